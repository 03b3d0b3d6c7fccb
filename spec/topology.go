package spec

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/internal/lru"
	"github.com/gatesim/gatesim/spec/topo"
)

// The bridge between the gates and spec/topo: a node's hardware layout,
// the topology NCCL detects once the network is chosen, the NCCL_*
// variables the topology stage reads, and the search.

// layout returns the node's hardware layout: its Layout reconciled with its
// facts, or one derived from the facts alone (one PCIe switch per GPU, each
// NIC on its nearest GPU's switch, NVLinks spread over a full mesh when
// there is no NVSwitch). The facts win where both speak (GPU count, compute
// capability, NVLinks, NVSwitch, the verbs NICs and their speed), so a
// system edited by hand or by a generator stays one machine; the layout
// keeps what only it knows (switch tree, NUMA and NIC placement).
func (n *Node) layout() topo.NodeSpec {
	var ns topo.NodeSpec
	if n.Layout != nil {
		ns = cloneLayout(*n.Layout)
	} else {
		ns = topo.NodeSpec{Name: n.Host, Sockets: max(1, n.CPU.Sockets)}
	}
	if n.CPU.Arch != "" {
		ns.CPUArch, ns.CPUVendor, ns.CPUModel = n.CPU.Arch, n.CPU.Vendor, n.CPU.Model
	}
	// the layout's GPUs are devices: an MLOPart GPU's two partitions are
	// one device of MLOParts 2, ranks sharing a whole GPU (listed one
	// after the other) one device of that many Ranks
	gpus, parts, ranks := n.GPUs, []int(nil), []int(nil)
	for i, g := range n.GPUs {
		part := g.MLOPart != nil && *g.MLOPart == 1 && i > 0
		shared := i > 0 && g.MLOPart == nil && n.GPUs[i-1].MLOPart == nil && n.GPUs[i-1].Dev == g.Dev
		if part || shared {
			if parts == nil {
				gpus, parts, ranks = append([]GPU(nil), n.GPUs[:i]...), make([]int, i), make([]int, i)
			}
			if part {
				parts[len(parts)-1] = 2
			} else {
				ranks[len(ranks)-1] = max(2, ranks[len(ranks)-1]+1)
			}
			continue
		}
		if parts != nil {
			gpus, parts, ranks = append(gpus, g), append(parts, 0), append(ranks, 0)
		}
	}
	meshBefore := n.Layout != nil && !n.Layout.NVSwitch && len(n.Layout.GPUs) == len(gpus)
	ns.NVSwitch = n.NVSwitch
	old := ns.GPUs
	ns.GPUs = make([]topo.GPUSpec, len(gpus))
	for i, g := range gpus {
		gs := topo.GPUSpec{Switch: -1}
		switch {
		case i < len(old):
			gs = old[i]
		case len(old) > 0: // an added GPU: placed like an existing one, its own bus id
			gs = old[i%len(old)]
			gs.BusID, gs.Peers = "", nil
		default: // derived: its own PCIe switch
			gs.Switch, gs.NUMA, gs.BusID = len(ns.Switches), g.NUMA, g.BusID
		}
		gs.Dev, gs.SM = g.Dev, g.SM
		if g.PCIGen > 0 {
			gs.PCIGen = g.PCIGen
		} else if gs.PCIGen == 0 {
			gs.PCIGen = defaultPCIGen(g.SM)
		}
		if g.PCIWidth > 0 {
			gs.PCIWidth = g.PCIWidth
		} else if gs.PCIWidth == 0 {
			gs.PCIWidth = 16
		}
		if gs.Switch >= len(ns.Switches) {
			ns.Switches = append(ns.Switches, topo.SwitchSpec{NUMA: gs.NUMA, PCIGen: gs.PCIGen, PCIWidth: 16, Parent: -1})
		}
		gs.MLOParts, gs.Ranks = 0, 0
		if parts != nil {
			gs.MLOParts, gs.Ranks = parts[i], ranks[i]
		}
		ns.GPUs[i] = gs
	}
	for i, g := range gpus {
		gs := &ns.GPUs[i]
		switch {
		case n.NVSwitch:
			gs.NVLinks, gs.Peers = g.NVLinks, nil
		case meshBefore && sumPeers(gs.Peers) == g.NVLinks:
			// the layout's own wiring (a hybrid cube mesh is no full mesh)
		default:
			gs.NVLinks, gs.Peers = 0, nil
			if g.NVLinks > 0 && len(gpus) > 1 {
				gs.Peers = map[int]int{}
				for _, p := range gpus {
					if p.Dev != g.Dev {
						gs.Peers[p.Dev] = max(1, g.NVLinks/(len(gpus)-1))
					}
				}
			}
		}
	}
	// the verbs NICs are the facts'; Socket interfaces only the layout has
	byName := map[string]topo.NICSpec{}
	var sock []topo.NICSpec
	for _, nic := range ns.NICs {
		if nic.Socket {
			sock = append(sock, nic)
		} else {
			byName[nic.Name] = nic
		}
	}
	ns.NICs = nil
	for _, nic := range n.NICs {
		spec, ok := byName[nic.Name]
		if !ok {
			spec = topo.NICSpec{Name: nic.Name, NUMA: nic.NUMA, Switch: -1}
			if nic.NearGPU >= 0 && nic.NearGPU < len(ns.GPUs) {
				spec.Switch, spec.NUMA = ns.GPUs[nic.NearGPU].Switch, ns.GPUs[nic.NearGPU].NUMA
			}
		}
		spec.SpeedMbps, spec.GDR, spec.Port = nic.SpeedMbps, nic.GDR, max(1, nic.Port)
		if nic.BusID != "" {
			spec.BusID = nic.BusID
		}
		ns.NICs = append(ns.NICs, spec)
	}
	ns.NICs = append(ns.NICs, sock...)
	return ns
}

func defaultPCIGen(sm int) int {
	switch {
	case sm >= 90:
		return 5
	case sm >= 80:
		return 4
	}
	return 3
}

func cloneLayout(s topo.NodeSpec) topo.NodeSpec {
	out := s
	out.GPUs = append([]topo.GPUSpec(nil), s.GPUs...)
	for i := range out.GPUs {
		if s.GPUs[i].Peers != nil {
			p := map[int]int{}
			for k, v := range s.GPUs[i].Peers {
				p[k] = v
			}
			out.GPUs[i].Peers = p
		}
	}
	out.NICs = append([]topo.NICSpec(nil), s.NICs...)
	out.Switches = append([]topo.SwitchSpec(nil), s.Switches...)
	return out
}

// nodeFromLayout fills a node's GPU, NIC, NVSwitch and CPU facts from a
// layout (presets keep the two in step).
func nodeFromLayout(n *Node, ns topo.NodeSpec) {
	n.Layout = &ns
	n.CPU = CPU{Arch: ns.CPUArch, Vendor: ns.CPUVendor, Model: ns.CPUModel, Sockets: max(1, ns.Sockets)}
	n.NVSwitch = ns.NVSwitch
	old := n.GPUs
	n.GPUs = nil
	for i, g := range ns.GPUs {
		links := g.NVLinks
		for _, l := range g.Peers {
			links += l
		}
		gpu := GPU{Dev: g.Dev, SM: g.SM, NVLinks: links, PCIGen: g.PCIGen, PCIWidth: g.PCIWidth, NUMA: g.NUMA, BusID: g.BusID}
		if gpu.BusID == "" {
			gpu.BusID = fmt.Sprintf("0000:%02x:00.0", 0x10+g.Dev*0x10)
		}
		if i < len(old) { // keep the driver-side facts a preset set
			gpu.Name, gpu.Multicast, gpu.FabricHandle = old[i].Name, old[i].Multicast, old[i].FabricHandle
		} else if len(old) > 0 {
			gpu.Name, gpu.Multicast, gpu.FabricHandle = old[0].Name, old[0].Multicast, old[0].FabricHandle
		}
		if g.MLOParts == 0 {
			// ranks sharing the device: one GPU entry each, one dev
			for range max(1, g.Ranks) {
				n.GPUs = append(n.GPUs, gpu)
			}
			continue
		}
		// each partition is a CUDA device and a rank of its own
		for part := range g.MLOParts {
			gpu.MLOPart = &part
			n.GPUs = append(n.GPUs, gpu)
		}
	}
	n.NICs = nil
	for _, nic := range ns.NICs {
		if nic.Socket {
			continue // a Socket interface, not a verbs port
		}
		near := -1
		for _, g := range ns.GPUs {
			if nic.Switch >= 0 && g.Switch == nic.Switch {
				near = g.Dev
				break
			}
		}
		n.NICs = append(n.NICs, NIC{Name: nic.Name, Port: max(1, nic.Port), LinkLayer: "IB", SpeedMbps: nic.SpeedMbps, Active: true, GDR: nic.GDR, NearGPU: near, NUMA: nic.NUMA, BusID: nic.BusID})
	}
}

// Reshape changes a node's GPU count, IB NIC count and speed, and NVLink
// links per GPU (0 keeps each), in its layout and its facts together, the
// way a planner varies a machine.
func (n *Node) Reshape(gpus, nics, nicGbps, nvlinks int) {
	ns := n.layout()
	if gpus > 0 && len(ns.GPUs) > 0 {
		g0 := ns.GPUs[0]
		var out []topo.GPUSpec
		for d := range gpus {
			g := g0
			if d < len(ns.GPUs) {
				g = ns.GPUs[d]
			} else {
				g.Switch = ns.GPUs[d%len(ns.GPUs)].Switch
				g.NUMA = ns.GPUs[d%len(ns.GPUs)].NUMA
			}
			g.Dev, g.BusID, g.Peers = d, "", nil
			out = append(out, g)
		}
		if !ns.NVSwitch { // rebuild the mesh over the new GPU set
			links := max(g0.NVLinks, sumPeers(g0.Peers))
			for i := range out {
				if links > 0 && gpus > 1 {
					out[i].Peers = map[int]int{}
					for p := range gpus {
						if p != i {
							out[i].Peers[p] = max(1, links/(gpus-1))
						}
					}
				}
			}
		}
		ns.GPUs = out
	}
	if nvlinks > 0 {
		for i := range ns.GPUs {
			if ns.NVSwitch {
				ns.GPUs[i].NVLinks = nvlinks
			} else if len(ns.GPUs) > 1 {
				ns.GPUs[i].Peers = map[int]int{}
				for p := range ns.GPUs {
					if p != i {
						ns.GPUs[i].Peers[p] = max(1, nvlinks/(len(ns.GPUs)-1))
					}
				}
			}
		}
	}
	var ib []topo.NICSpec
	var sock []topo.NICSpec
	for _, nic := range ns.NICs {
		if nic.Socket {
			sock = append(sock, nic)
		} else {
			ib = append(ib, nic)
		}
	}
	if nics > 0 && len(ib) > 0 {
		var out []topo.NICSpec
		for k := range nics {
			nic := ib[k%len(ib)]
			nic.Name = fmt.Sprintf("mlx5_%d", k)
			if k >= len(ib) {
				nic.BusID = "" // a copy is a NIC of its own
			}
			if g := k * len(ns.GPUs) / nics; g < len(ns.GPUs) {
				nic.Switch, nic.NUMA = ns.GPUs[g].Switch, ns.GPUs[g].NUMA
			}
			out = append(out, nic)
		}
		ib = out
	}
	if nicGbps > 0 {
		for i := range ib {
			ib[i].SpeedMbps = nicGbps * 1000
		}
	}
	ns.NICs = append(ib, sock...)
	nodeFromLayout(n, ns)
}

func sumPeers(p map[int]int) int {
	s := 0
	for _, v := range p {
		s += v
	}
	return s
}

// topoNICs are the NET devices NCCL's topology holds once the network is
// chosen (ncclTopoPopulateNics imports the chosen network's devices): the
// Socket interfaces for Socket, the usable verbs ports for IB and IB-based
// plugins (flagged coll when the CollNet plugin is attached), and for other
// plugins one device each.
func topoNICs(ns *topo.NodeSpec, n *Node, env Env, chosen *netCand, collNet, railPlane bool) {
	var out []topo.NICSpec
	switch {
	case chosen == nil:
	case chosen.external == nil && chosen.name == "Socket":
		for _, nic := range ns.NICs {
			if nic.Socket {
				out = append(out, nic)
			}
		}
		if len(out) == 0 {
			for _, f := range findInterfaces(env, n.ipIfs(0), 16) {
				out = append(out, topo.NICSpec{Name: f.name, SpeedMbps: 10000, Switch: -1, NoPCI: true, Socket: true})
			}
		}
	case chosen.external == nil || (chosen.external.Net != nil && chosen.external.Net.IBBased):
		hca := env["NCCL_IB_HCA"]
		if chosen.external != nil {
			hca = ""
		}
		active := map[string]topo.NetIf{}
		for _, nic := range n.NICs {
			if !nic.Active {
				continue
			}
			if e, ok := ifListEntry(hca, nic.Name, nic.Port, railPlane); ok {
				active[nic.Name] = e
			}
		}
		for _, nic := range ns.NICs {
			if e, ok := active[nic.Name]; ok && !nic.Socket {
				nic.Coll = collNet
				// ncclTopoPopulateNics writes the IB's rail and plane
				// (2.30.7: NCCL_IB_HCA's third and fourth fields)
				nic.Rail, nic.Plane, nic.RailPlane = e.Rail, e.Plane, true
				out = append(out, nic)
			}
		}
	default:
		var ib []topo.NICSpec
		for _, nic := range ns.NICs {
			if !nic.Socket {
				ib = append(ib, nic)
			}
		}
		noGDR := chosen.external.Net != nil && chosen.external.Net.NoGDR
		for k := range max(0, chosen.devices) {
			if k < len(ib) {
				nic := ib[k]
				nic.Coll = collNet
				// gdr is the device's ptrSupport & NCCL_PTR_CUDA (v2.28.9-1
				// src/graph/topo.cc ncclTopoPopulateNics)
				nic.GDR = nic.GDR && !noGDR
				out = append(out, nic)
				continue
			}
			out = append(out, topo.NICSpec{Name: fmt.Sprintf("%s_%d", chosen.name, k), SpeedMbps: 100000, Switch: -1, NoPCI: true, Coll: collNet})
		}
	}
	ns.NICs = out
}

// TopoOptions reads the NCCL_* variables the topology stage reads, with
// NCCL's integer parsing (strtoll; an invalid value keeps the default), into
// topo.Options. The NVLS and CollNet entries are set by the gates.
func TopoOptions(env Env) topo.Options {
	o := topo.DefaultOptions()
	num := func(name string) (int, bool) {
		v, ok := env.Lookup(name)
		if !ok || v == "" {
			return 0, false
		}
		n, of := strtoll(v)
		if of {
			return 0, false
		}
		return int(n), true
	}
	if n, ok := num("NCCL_P2P_DISABLE"); ok && n == 1 {
		o.P2PDisable = true
	}
	if v, ok := env.Lookup("NCCL_P2P_LEVEL"); ok && !o.P2PDisable {
		if t, ok := pathLevel(v); ok {
			o.P2PLevel, o.P2PLevelSet = t, true
		}
	}
	if v, ok := env.Lookup("NCCL_NET_GDR_LEVEL"); ok {
		if t, ok := pathLevel(v); ok {
			o.NetGdrLevel, o.NetGdrLevelSet = t, true
		}
	}
	set := func(name string, f func(int)) {
		if n, ok := num(name); ok {
			f(n)
		}
	}
	set("NCCL_SHM_DISABLE", func(n int) { o.SHMDisable = n == 1 })
	set("NCCL_NET_GDR_C2C", func(n int) { o.NetGdrC2C = n != 0 })
	set("NCCL_NET_GDR_MLOPART", func(n int) { o.NetGdrMLOPart = n != 0 })
	set("NCCL_TOPO_SPLIT_MLOPART", func(n int) { o.NoSplitMLOPart = n == 0 })
	set("NCCL_NET_GDR_READ", func(n int) { o.NetGdrRead, o.NetGdrReadSet = n, true })
	set("NCCL_PXN_DISABLE", func(n int) { o.PXNDisable = n == 1 })
	set("NCCL_PXN_C2C", func(n int) { o.PXNC2C = n != 0 })
	set("NCCL_NVB_DISABLE", func(n int) { o.NVBDisable = n != 0 })
	set("NCCL_CROSS_NIC", func(n int) { o.CrossNic = n })
	set("NCCL_NET_DISABLE_INTRA", func(n int) { o.NetDisableIntra = n == 1 })
	set("NCCL_P2P_USE_CUDA_MEMCPY", func(n int) { o.P2PUseCudaMemcpy = n != 0 })
	set("NCCL_MIN_NRINGS", func(n int) { o.MinNChannels = n })
	set("NCCL_MIN_NCHANNELS", func(n int) { o.MinNChannels = n })
	set("NCCL_MAX_NRINGS", func(n int) { o.MaxNChannels = n })
	set("NCCL_MAX_NCHANNELS", func(n int) { o.MaxNChannels = n })
	set("NCCL_MIN_CTAS", func(n int) {
		if n > 0 {
			o.MinCTAs = n
		}
	})
	set("NCCL_MAX_CTAS", func(n int) {
		if n > 0 {
			o.MaxCTAs = n
		}
	})
	set("NCCL_NVLS_ENABLE", func(n int) {
		o.NvlsEnable = n
		if n != 0 && n != 2 {
			o.NvlsEnable = 1 // any other value forces NVLS (G-NVLS-ENV-1)
		}
	})
	set("NCCL_NVLS_NCHANNELS", func(n int) {
		if n > 0 {
			o.NvlsChannels = n
		}
	})
	// int64 parameters NCCL stores in an int
	set("NCCL_NVLS_CHUNKSIZE", func(n int) { o.NvlsChunkSize = max(0, int(int32(n))) })
	set("NCCL_NVLSTREE_MAX_CHUNKSIZE", func(n int) { o.NvlsTreeMaxChunkSize = max(0, int(int32(n))) })
	set("NCCL_COLLNET_NODE_THRESHOLD", func(n int) { o.CollNetNodeThreshold = n })
	set("NCCL_NCHANNELS_PER_NET_PEER", func(n int) {
		// NCCL stores the int64 parameter in an int
		o.NChannelsPerNetPeer, o.NChannelsPerNetPeerSet = int(int32(n)), true
	})
	// ncclTopoGetNchannels casts the int64 parameter to int
	set("NCCL_P2P_PER_CHANNEL_NET_BW", func(n int) { o.P2PPerChannelNetBw = int(int32(n)) })
	// an int64 parameter stored in an int; <= 0 is left unset (INFO)
	set("NCCL_P2P_MAX_PEERS", func(n int) { o.P2PMaxPeers = max(0, int(int32(n))) })
	set("NCCL_MIN_P2P_NCHANNELS", func(n int) { o.MinP2PNChannels = n })
	set("NCCL_MAX_P2P_NCHANNELS", func(n int) { o.MaxP2PNChannels = n })
	set("NCCL_UNPACK_DOUBLE_NCHANNELS", func(n int) { o.UnpackDoubleNChannels = n != 0 })
	set("NCCL_MNNVL_SCATTER_NETS_ENABLE", func(n int) { o.MNNVLScatterNets = n != 0 })
	set("NCCL_MNNVL_RAIL_PER_HOST", func(n int) { o.MNNVLRailPerHost = n != 0 })
	// NIC fusion (G-TOPO-VNIC-1): read with ncclGetEnv, so a value set
	// empty counts as set; the release decides what reads them.
	if v, ok := env.Lookup("NCCL_NET_MERGE_LEVEL"); ok {
		o.NetMergeLevel, o.NetMergeLevelSet = v, true
	}
	o.NetForceMerge = env["NCCL_NET_FORCE_MERGE"]
	set("NCCL_IB_MERGE_NICS", func(n int) { o.IBMergeNicsOff = n == 0 })
	o.NetMergeRail = strings.EqualFold(env["NCCL_NET_MERGE_POLICY"], "RAIL")
	if v, ok := env.Lookup("NCCL_NETDEVS_POLICY"); ok {
		switch u := strings.ToUpper(v); {
		case u == "ALL":
			o.NetDevsPolicy = topo.NetDevsAll
		case strings.HasPrefix(u, "MAX:"):
			if m, err := strconv.Atoi(u[4:]); err == nil && m > 0 {
				o.NetDevsPolicy, o.NetDevsMax = topo.NetDevsMax, m
			}
		}
	}
	return o
}

// pathLevel is ncclGetLevel's reading of NCCL_P2P_LEVEL/NCCL_NET_GDR_LEVEL:
// a path name up to SYS (case-sensitive), or an old-style number.
func pathLevel(v string) (topo.PathType, bool) {
	if t, err := topo.ParsePathType(v); err == nil && t <= topo.PathSYS {
		return t, true
	}
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		n, _ := strtoll(v)
		old := []topo.PathType{topo.PathLOC, topo.PathPIX, topo.PathPXB, topo.PathPHB, topo.PathSYS}
		return old[min(max(int(n), 0), len(old)-1)], true
	}
	return 0, false
}

// vnicABI is the first net and collnet plugin ABI with makeVDevice
// (ncclNet_v9_t, ncclCollNet_v9_t; NCCL's adaptors of older ones leave
// it NULL: v2.24.3-1 src/net.cc, v2.28.3-1 src/plugin/net/net_v8.cc).
const vnicABI = 9

// topoRule is G-TOPO-1: the topology stage, run once for the communicator
// by spec/topo. The graph rules after it read its per-node and agreed
// results; the NVLS and CollNet gates before the searches set its inputs.
func topoRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-TOPO-1", Layer: LayerGraph, Title: "topology and graph search",
		Doc: `Every rank detects its host's topology (GPUs, PCIe switches, NVLink and NVSwitch, CPUs, and the NET devices of the chosen network, flagged for CollNet when a CollNet plugin is attached), computes the paths between them and searches the ring and tree graphs, the CollNet graphs when CollNet is enabled and the NVLS graph when NVLS is supported. GPUs of one host that reach each other neither by P2P nor by SHM form separate NCCL nodes; an MNNVL clique fuses its hosts into one. The graph rules after this one read the search.`,
		Ref: ref,
		init: func(r *initRun) {
			res, err := r.searchTopology()
			if fe := (*topo.FusionError)(nil); errors.As(err, &fe) {
				// NCCL fails init while it fuses the NICs (G-TOPO-VNIC-1)
				r.fail(fe.Result, fe.Msg)
				r.emit(Verdict{Outcome: Fail, Why: "NIC fusion failed: " + fe.Msg, Facts: []Fact{F("result", fe.Result.String())}})
				return
			}
			if err != nil {
				r.err = fmt.Errorf("topology stage: %w", err)
				r.emit(Verdict{Outcome: Fail, Why: "the topology search failed: " + err.Error()})
				return
			}
			c := r.comm
			c.Topo = res
			facts := []Fact{F("hosts", len(c.System.Nodes)), F("nNodes", res.NNodes), F("nRanks", res.NRanks), F("nvswitches", res.NVSCount)}
			why := fmt.Sprintf("%d rank(s) on %d NCCL node(s)", res.NRanks, res.NNodes)
			if res.NNodes != len(c.System.Nodes) {
				why += fmt.Sprintf(" (%d host(s)", len(c.System.Nodes))
				if c.MNNVL {
					why += ", MNNVL cliques fused"
				}
				if res.NNodes > len(c.System.Nodes) {
					why += ", GPUs without P2P or SHM between them are separate nodes"
				}
				why += ")"
			}
			if sum, n := vnicSummary(res.Nodes[0].VNics()); n > 0 {
				why += "; NIC fusion: " + sum
				facts = append(facts, F("fused_vnics", n))
			}
			switch _, named := r.env.Lookup("NCCL_GRAPH_FILE"); {
			case len(c.System.GraphFile) > 0:
				why += fmt.Sprintf("; %d graph(s) from NCCL_GRAPH_FILE replace the searches with their ids", len(c.System.GraphFile))
			case named:
				why += "; NCCL_GRAPH_FILE is set but its graphs were not given to the model: the searches ran"
			}
			r.emit(Verdict{Outcome: Info, Why: why, Facts: facts})
		},
	}
}

// vnicSummary says which ports each virtual NIC of several took, per
// plugin pass (G-TOPO-VNIC-1, G-TOPO-VNIC-2), and how many there are; a
// port alone (a vNic of one, 2.24.3–2.26.6) only changes its number.
func vnicSummary(vs []topo.VNic) (string, int) {
	var b strings.Builder
	n := 0
	for _, v := range vs {
		if len(v.Ports) < 2 {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		fmt.Fprintf(&b, "%s vNic %d = %s", v.Plugin, v.Dev, v.Name())
	}
	return b.String(), n
}

// searchTopology builds one topology per kind of node (one per MNNVL clique
// when MNNVL is on) and runs spec/topo's search with the options the
// environment and the gates set. With a Cache, a communicator whose hosts,
// release and options were searched before reuses that result.
func (r *initRun) searchTopology() (*topo.Result, error) {
	c := r.comm
	sys := c.System
	group := make([]*nodeState, len(sys.Nodes))
	// CollNet is searched when any node enabled it: a node that did not
	// flags no NET device for CollNet, finds 0 channels and so disables
	// CollNet in the consensus, as in NCCL.
	collNet := false
	multicast := true
	p2pNotSupported := false
	for _, g := range r.nodes {
		for _, i := range g.nodes {
			group[i] = g
		}
		collNet = collNet || g.collNetEnable
		multicast = multicast && g.node.Driver.MulticastAPI
		p2pNotSupported = p2pNotSupported || g.node.Driver.P2PNotSupported
		for _, gpu := range g.node.GPUs {
			multicast = multicast && gpu.Multicast
		}
	}
	o := TopoOptions(r.env)
	releaseTopoOptions(r.rs, r.env, &o)
	o.NvlsMulticast = topo.MulticastNo
	if multicast {
		o.NvlsMulticast = topo.MulticastYes
	}
	o.CollNetEnable = collNet
	o.P2PNotSupported = p2pNotSupported
	o.GraphFile = sys.GraphFile
	o.CollNetNodeThreshold = int(r.param("NCCL_COLLNET_NODE_THRESHOLD"))
	if ch := r.nodes[0].chosen; ch != nil && ch.external != nil && ch.external.Net != nil {
		o.NetDeviceUnpack = ch.external.Net.DeviceType == "unpack"
	}
	// The internal IB makes virtual devices (ncclIbMakeVDevice), Socket
	// none, an external plugin when its makeVDevice is set (net v9+); the
	// CollNet plugin's pass fuses too when its is (G-TOPO-VNIC-2).
	g0 := r.nodes[0]
	if ch := g0.chosen; ch != nil && ch.external == nil && ch.name == "IB" {
		o.NetVNics, o.NetIB = true, true
	}
	if ch := g0.chosen; ch != nil && ch.external != nil {
		l := ch.external
		o.NetVNics = ch.abi >= vnicABI && l.Net != nil && l.Net.MakeVDevice
		o.CollNetVNics = g0.collNetEnable && g0.collNetOK && g0.collNetABI >= vnicABI && l.CollNet != nil && l.CollNet.MakeVDevice
	}

	// The hosts Search sees: a layout (with the chosen network's NICs) per
	// kind of node, a clique's layout fused over its trays, or the node's
	// own topology XML.
	type host struct {
		ns    topo.NodeSpec
		xml   *topo.System
		trays int // > 0: an MNNVL clique
		key   string
	}
	var hosts []*host
	byGroup := map[*nodeState]*host{}
	byClique := map[mnnvlCliqueOf]int{}
	r.hostOf = make([]int, len(sys.Nodes))
	order := make([]*host, 0, len(sys.Nodes))
	for i := range sys.Nodes {
		g := group[i]
		nd := &sys.Nodes[i]
		coll := g.collNetEnable && g.collNetOK && g.collNetDevs > 0
		if cl := nd.mnnvlClique(); c.MNNVL && cl.cluster != "" && nd.Topo == nil {
			if h, ok := byClique[cl]; ok {
				r.hostOf[i] = h
				continue
			}
			// the clique's trays only: the other cliques of its cluster
			// are other nodes, cross-clique or not
			trays := 0
			for j := range sys.Nodes {
				if sys.Nodes[j].mnnvlClique() == cl {
					trays++
				}
			}
			h := &host{ns: nd.layout(), trays: trays}
			topoNICs(&h.ns, nd, r.env, g.chosen, coll, r.rs.TopoParams.IfListRailPlane)
			h.ns.NICFunctions = r.rs.TopoParams.NetPCIFunction
			h.key = string(encodeValue(fmt.Appendf(nil, "mnnvl%d:", trays), reflect.ValueOf(&h.ns).Elem()))
			byClique[cl] = len(order)
			r.hostOf[i] = len(order)
			order = append(order, h)
			hosts = append(hosts, h)
			continue
		}
		h, ok := byGroup[g]
		if !ok {
			h = &host{}
			if nd.Topo != nil {
				// by content, not by address: a freed topology's address
				// is reused by the next one loaded
				h.xml, h.key = nd.Topo, "xml"+nd.Topo.Name+"|"+nd.Topo.Fingerprint()
			} else {
				h.ns = nd.layout()
				topoNICs(&h.ns, nd, r.env, g.chosen, coll, r.rs.TopoParams.IfListRailPlane)
				h.ns.NICFunctions = r.rs.TopoParams.NetPCIFunction
				if h.ns.Name == "" {
					h.ns.Name = nd.Host
				}
				h.key = string(encodeValue([]byte("layout"), reflect.ValueOf(&h.ns).Elem()))
			}
			byGroup[g] = h
			hosts = append(hosts, h)
		}
		r.hostOf[i] = len(order)
		order = append(order, h)
	}
	var key, setting string
	if r.cache != nil {
		// each distinct host once, then the hosts' order by index
		setting = r.cache.settings.Name(r.cache.paramsKey(r.rs) + "|" + fmt.Sprintf("%+v", o))
		var b strings.Builder
		b.WriteString(setting)
		idx := map[*host]int{}
		for _, h := range hosts {
			idx[h] = len(idx)
			b.WriteString("|")
			b.WriteString(h.key)
		}
		b.WriteString("|")
		for _, h := range order {
			b.WriteString(strconv.Itoa(idx[h]))
			b.WriteByte(',')
		}
		key = b.String()
		if res, ok := r.cache.get(key); ok {
			return res, nil
		}
	}
	built := map[*host]*topo.System{}
	for _, h := range hosts {
		var s *topo.System
		var err error
		switch ok := false; {
		case h.xml != nil:
			s = h.xml
		case r.cache != nil:
			// a synthesized host is read-only: communicators of any size
			// share it
			if s, ok = r.cache.hosts.Get(h.key); ok {
				break
			}
			fallthrough
		default:
			if h.trays > 0 {
				s, err = topo.SynthesizeMNNVL(h.ns, h.trays)
			} else {
				s, err = topo.Synthesize(h.ns)
			}
			if err == nil && r.cache != nil {
				r.cache.hosts.Put(h.key, s)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", orName(h.ns.Name, "node"), err)
		}
		built[h] = s
	}
	systems := make([]*topo.System, len(order))
	for i, h := range order {
		systems[i] = built[h]
	}
	var nodes *topo.NodeCache
	if r.cache != nil {
		nodes = r.cache.nodes
	}
	res, err := topo.SearchKeyed(systems, r.rs.TopoParams, o, nodes, setting)
	if err == nil && r.cache != nil {
		r.cache.put(key, res)
	}
	return res, err
}

func orName(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Cache keeps topology searches across communicators: sweeps and batches
// (whatif, oracle, the property tests) build many communicators over the
// same machines, and the search dominates Init. A Cache is safe for
// concurrent use and bounded; the zero value is not usable, use NewCache.
// A nil *Cache caches nothing.
type Cache struct {
	m *lru.Cache[string, *topo.Result]
	// nodes keeps the searched nodes themselves: a machine of a new node
	// count searches its (known) hosts again only when they are new.
	nodes *topo.NodeCache
	// hosts keeps the topologies synthesized from layouts, by layout.
	hosts *lru.Cache[string, *topo.System]
	// params keeps each ruleset's topology parameters written out (the
	// search keys start with them; a ruleset is not changed once loaded).
	params *lru.Cache[*Ruleset, string]
	// settings names each search setting (the parameters and options
	// written out: kilobytes), which every search key starts with.
	settings *lru.Names
}

// paramsKey is rs's topology parameters as the search keys write them.
func (k *Cache) paramsKey(rs *Ruleset) string {
	if s, ok := k.params.Get(rs); ok {
		return s
	}
	s := fmt.Sprintf("%s|%+v", rs.Version, rs.TopoParams)
	k.params.Put(rs, s)
	return s
}

// NewCache returns a cache holding at most n searches (n ≤ 0: 256). When it
// is full it forgets the least recently used search.
func NewCache(n int) *Cache {
	if n <= 0 {
		n = 256
	}
	return &Cache{m: lru.New[string, *topo.Result](n), nodes: topo.NewNodeCache(n), hosts: lru.New[string, *topo.System](n),
		params: lru.New[*Ruleset, string](16), settings: lru.NewNames(n, "setting")}
}

func (k *Cache) get(key string) (*topo.Result, bool) { return k.m.Get(key) }

func (k *Cache) put(key string, r *topo.Result) { k.m.Put(key, r) }

// Init is spec.Init with this cache.
func (k *Cache) Init(rs *Ruleset, sys *System, env Env) (*Comm, error) {
	return initWith(rs, sys, env, k)
}

// topoNode is the search's result for a kind of node: the first NCCL node
// of its host, and how many NCCL nodes the host split into.
func (r *initRun) topoNode(s *nodeState) (*topo.NodeResult, int) {
	res := r.comm.Topo
	if res == nil {
		return nil, 0
	}
	host := r.hostOf[s.nodes[0]]
	var first *topo.NodeResult
	n := 0
	for i := range res.Nodes {
		if res.Nodes[i].Host == host {
			if first == nil {
				first = &res.Nodes[i]
			}
			n++
		}
	}
	return first, n
}

// graphInfo is what the gates read of a searched graph.
func graphInfo(g topo.Graph, searched bool) GraphInfo {
	gi := GraphInfo{Searched: searched, NChannels: g.NChannels, Pattern: int(g.Pattern)}
	if searched || g.NChannels > 0 {
		gi.TypeIntra, gi.TypeInter = g.TypeIntra.String(), g.TypeInter.String()
	}
	return gi
}

// worstGPUPath is the worst path class between two GPUs of an NCCL node
// ("LOC" for a single GPU).
func worstGPUPath(s *topo.System) string {
	worst := topo.PathLOC
	gpus := s.GPUs()
	for _, a := range gpus {
		for _, b := range gpus {
			if a != b && b.Index < len(a.Paths[topo.GPU]) {
				worst = max(worst, a.Paths[topo.GPU][b.Index].Type)
			}
		}
	}
	return worst.String()
}

// NodeFromTopology builds a node from NCCL's own topology XML (what
// NCCL_TOPO_DUMP_FILE writes and NCCL_TOPO_FILE reads). The topology is used
// as it is for the search; the gate facts are read from it: the CPU, each
// GPU's compute capability, bus id and NVLinks, the NVSwitch, and the NET
// devices (InfiniBand ports become verbs NICs, Socket interfaces become IP
// interfaces). What the XML does not say is assumed and can be edited on
// the returned node: the driver exports the multicast API and cuMem, GPUs of
// sm90 and newer on an NVSwitch report the multicast attribute, libibverbs
// loads (with no port when the XML lists none), CUDA 12.8.
func NodeFromTopology(file string, data []byte) (Node, error) {
	s, err := topo.LoadSystem(file, data)
	if err != nil {
		return Node{}, err
	}
	n := Node{Topo: s, Host: s.Name}
	arch, vendor, model := s.CPUType()
	n.CPU = CPU{Sockets: max(1, len(s.Nodes[topo.CPU]))}
	switch arch {
	case topo.ArchX86:
		n.CPU.Arch = "x86_64"
	case topo.ArchARM:
		n.CPU.Arch = "arm64"
	case topo.ArchPower:
		n.CPU.Arch = "ppc64"
	}
	switch vendor {
	case topo.VendorIntel:
		n.CPU.Vendor = "Intel"
		n.CPU.Model = map[topo.CPUModel]string{topo.ModelIntelBDW: "bdw", topo.ModelIntelSKL: "skl", topo.ModelIntelSRP: "srp", topo.ModelIntelERP: "erp"}[model]
	case topo.VendorAMD:
		n.CPU.Vendor = "AMD"
	case topo.VendorZhaoxin:
		n.CPU.Vendor = "Zhaoxin"
	}
	n.NVSwitch = len(s.Nodes[topo.NVS]) > 0
	gpus := append([]*topo.Node(nil), s.GPUs()...)
	slices.SortStableFunc(gpus, func(a, b *topo.Node) int { return a.Dev - b.Dev })
	if len(gpus) == 0 {
		return Node{}, fmt.Errorf("%s: no <gpu> element: expected the GPUs of one host", file)
	}
	for _, g := range gpus {
		links := 0
		for _, l := range g.Links {
			if l.Type == topo.LinkNVL {
				links += max(1, int(l.Bw/s.Params.NVLinkBw(g.SM)+0.5))
			}
		}
		gpu := GPU{Name: fmt.Sprintf("sm%d GPU", g.SM), Dev: g.Dev, SM: g.SM, NVLinks: links,
			Multicast: g.SM >= 90 && n.NVSwitch, BusID: busIDString(g.DeviceID())}
		xg := devXML(s.Source, "gpu", strconv.Itoa(g.Dev))
		if g.MLOPart != -1 {
			gpu.MLOPart = &g.MLOPart
		} else if v, ok := xg.Attr("mlopart"); ok {
			// the partition fillInfo wrote, whatever the release that
			// builds the topology reads of it (hasMloPart)
			if part, err := strconv.Atoi(v); err == nil && part >= 0 {
				gpu.MLOPart = &part
			}
		}
		// every whole-GPU <gpu> of the device is a rank on it (ranks
		// sharing a GPU, NCCL_MULTI_RANK_GPU_ENABLE=1)
		for range max(1, wholeGPURanks(xg.Parent())) {
			n.GPUs = append(n.GPUs, gpu)
		}
	}
	for _, net := range s.NETs() {
		x := netXML(s.Source, net.NetDev)
		name, _ := x.Attr("name")
		if net.Port == 0 { // Socket reports port 0 (IB ports count from 1)
			n.IPInterfaces = append(n.IPInterfaces, name)
			continue
		}
		gdr, _ := x.Attr("gdr")
		n.NICs = append(n.NICs, NIC{Name: name, Port: net.Port, LinkLayer: "IB", SpeedMbps: int(net.Bw * 8000), Active: true,
			GDR: gdr == "1", NearGPU: -1})
	}
	if len(n.IPInterfaces) == 0 {
		n.IPInterfaces = []string{"eth0"}
	}
	n.Driver = Driver{MulticastAPI: true, CuMem: true, Verbs: true, CUDA: 12080}
	return n, nil
}

// wholeGPURanks counts the <gpu> elements of a <pci> that are not MLOPart
// partitions (mlopart absent or -1): the ranks on the device; 0 for a
// partitioned device or no <pci>.
func wholeGPURanks(pci *topo.XMLNode) int {
	if pci == nil {
		return 0
	}
	n := 0
	for _, c := range pci.Subs {
		if c.Name != "gpu" {
			continue
		}
		if v, ok := c.Attr("mlopart"); ok && v != "-1" {
			return 0
		}
		n++
	}
	return n
}

// busIDString is the PCI address NCCL packs into an id (the hex digits of
// "dddd:bb:dd.f" without separators).
func busIDString(id int64) string {
	return fmt.Sprintf("%04x:%02x:%02x.%x", id>>20, (id>>12)&0xff, (id>>4)&0xff, id&0xf)
}

// netXML finds the <net> element with the given dev in a topology XML.
func netXML(x *topo.XMLNode, dev int) *topo.XMLNode { return devXML(x, "net", strconv.Itoa(dev)) }

// devXML finds the first element name (<net>, <gpu>) with the given dev
// attribute in a topology XML; an empty element when there is none.
func devXML(x *topo.XMLNode, name, dev string) *topo.XMLNode {
	if x == nil {
		return &topo.XMLNode{}
	}
	if x.Name == name {
		if d, ok := x.Attr("dev"); ok && d == dev {
			return x
		}
	}
	for _, s := range x.Subs {
		if f := devXML(s, name, dev); f.Name == name {
			return f
		}
	}
	return &topo.XMLNode{}
}

// SystemFromTopology is a system of nodes copies of a host described by
// NCCL's topology XML (NodeFromTopology); the copies share the topology.
func SystemFromTopology(file string, data []byte, nodes int) (*System, error) {
	n, err := NodeFromTopology(file, data)
	if err != nil {
		return nil, err
	}
	if err := CheckShape(max(1, nodes), len(n.GPUs)); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	sys := &System{Name: file}
	for i := range max(1, nodes) {
		nd := n
		nd.GPUs = slices.Clone(n.GPUs)
		nd.NICs = slices.Clone(n.NICs)
		nd.IPInterfaces = slices.Clone(n.IPInterfaces)
		nd.Host = fmt.Sprintf("node%d", i)
		sys.Nodes = append(sys.Nodes, nd)
	}
	return sys, nil
}

// releaseTopoOptions sets the options whose defaults differ by release from
// the newest ones TopoOptions carries: the C2C switches NCCL_PXN_C2C and
// NCCL_NET_GDR_C2C, with the user's value over the release's default, and
// the channel bound of NCCL_WORK_ARGS_BYTES where the release reads it.
func releaseTopoOptions(rs *Ruleset, env Env, o *topo.Options) {
	if def, ok := rs.Consts.IntParams["NCCL_WORK_ARGS_BYTES"]; ok && rs.Tuning != nil {
		v, _, _ := intParam(env, "NCCL_WORK_ARGS_BYTES", def)
		o.WorkArgsChannels, o.WorkArgsChannelsSet = rs.Tuning.MaxChannelsForArgsBytes(v, rs.Consts.MaxChannels), true
	}
	for name, f := range map[string]*bool{"NCCL_PXN_C2C": &o.PXNC2C, "NCCL_NET_GDR_C2C": &o.NetGdrC2C} {
		if def, ok := rs.Consts.IntParams[name]; ok {
			v, _, _ := intParam(env, name, def)
			*f = v != 0
		}
	}
}

package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// The bridge between the gates and spec/topo: a node's hardware layout,
// the topology NCCL detects once the network is chosen, the NCCL_*
// variables the topology stage reads, and the search.

// layout returns the node's hardware layout: its Layout, or one derived from
// its facts (one PCIe switch per GPU, each NIC on its nearest GPU's switch,
// NVLinks spread over a full mesh when there is no NVSwitch).
func (n *Node) layout() topo.NodeSpec {
	if n.Layout != nil {
		return cloneLayout(*n.Layout)
	}
	cpu := n.CPU
	ns := topo.NodeSpec{Name: n.Host, CPUArch: cpu.Arch, CPUVendor: cpu.Vendor, CPUModel: cpu.Model, Sockets: max(1, cpu.Sockets), NVSwitch: n.NVSwitch}
	for i, g := range n.GPUs {
		gs := topo.GPUSpec{Dev: g.Dev, SM: g.SM, PCIGen: g.PCIGen, PCIWidth: g.PCIWidth, NUMA: g.NUMA, Switch: i, BusID: g.BusID}
		if gs.PCIGen == 0 {
			gs.PCIGen = defaultPCIGen(g.SM)
		}
		if gs.PCIWidth == 0 {
			gs.PCIWidth = 16
		}
		if n.NVSwitch {
			gs.NVLinks = g.NVLinks
		} else if g.NVLinks > 0 && len(n.GPUs) > 1 {
			per := max(1, g.NVLinks/(len(n.GPUs)-1))
			gs.Peers = map[int]int{}
			for _, p := range n.GPUs {
				if p.Dev != g.Dev {
					gs.Peers[p.Dev] = per
				}
			}
		}
		ns.GPUs = append(ns.GPUs, gs)
		ns.Switches = append(ns.Switches, topo.SwitchSpec{NUMA: g.NUMA, PCIGen: gs.PCIGen, PCIWidth: 16, Parent: -1})
	}
	for _, nic := range n.NICs {
		sw := -1
		if nic.NearGPU >= 0 && nic.NearGPU < len(n.GPUs) {
			sw = nic.NearGPU
		}
		ns.NICs = append(ns.NICs, topo.NICSpec{Name: nic.Name, SpeedMbps: nic.SpeedMbps, NUMA: nic.NUMA, Switch: sw, GDR: nic.GDR, Port: max(1, nic.Port)})
	}
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
		n.GPUs = append(n.GPUs, gpu)
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
		n.NICs = append(n.NICs, NIC{Name: nic.Name, Port: max(1, nic.Port), LinkLayer: "IB", SpeedMbps: nic.SpeedMbps, Active: true, GDR: nic.GDR, NearGPU: near, NUMA: nic.NUMA})
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
func topoNICs(ns *topo.NodeSpec, n *Node, env Env, chosen *netCand, collNet bool) {
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
		active := map[string]bool{}
		for _, nic := range n.NICs {
			if nic.Active && ifListMatch(hca, nic.Name, nic.Port) {
				active[nic.Name] = true
			}
		}
		for _, nic := range ns.NICs {
			if !nic.Socket && active[nic.Name] {
				nic.Coll = collNet
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
		for k := range max(0, chosen.devices) {
			if k < len(ib) {
				nic := ib[k]
				nic.Coll = collNet
				out = append(out, nic)
				continue
			}
			out = append(out, topo.NICSpec{Name: fmt.Sprintf("%s_%d", chosen.name, k), SpeedMbps: 100000, Switch: -1, NoPCI: true, Coll: collNet})
		}
	}
	ns.NICs = out
}

// hostTopology is the topology NCCL detects on a node.
func hostTopology(n *Node, env Env, chosen *netCand, collNet bool) (*topo.System, error) {
	if n.Topo != nil {
		return n.Topo, nil
	}
	ns := n.layout()
	topoNICs(&ns, n, env, chosen, collNet)
	if ns.Name == "" {
		ns.Name = n.Host
	}
	return topo.Synthesize(ns)
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
	set("NCCL_NVLS_ENABLE", func(n int) { o.NvlsEnable = n })
	set("NCCL_NVLS_NCHANNELS", func(n int) {
		if n > 0 {
			o.NvlsChannels = n
		}
	})
	set("NCCL_COLLNET_NODE_THRESHOLD", func(n int) { o.CollNetNodeThreshold = n })
	set("NCCL_NCHANNELS_PER_NET_PEER", func(n int) {
		if n > 0 {
			o.NChannelsPerNetPeer = n
		}
	})
	set("NCCL_MIN_P2P_NCHANNELS", func(n int) { o.MinP2PNChannels = n })
	set("NCCL_MAX_P2P_NCHANNELS", func(n int) { o.MaxP2PNChannels = n })
	set("NCCL_UNPACK_DOUBLE_NCHANNELS", func(n int) { o.UnpackDoubleNChannels = n != 0 })
	set("NCCL_MNNVL_SCATTER_NETS_ENABLE", func(n int) { o.MNNVLScatterNets = n != 0 })
	set("NCCL_MNNVL_RAIL_PER_HOST", func(n int) { o.MNNVLRailPerHost = n != 0 })
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

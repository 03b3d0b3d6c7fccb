package spec

import (
	"fmt"
	"strconv"

	"github.com/gatesim/gatesim/spec/topo"
)

// The internal IB GIN and RMA: which backend (GDAKI or the proxy)
// NCCL_GIN_TYPE and the node's NICs give, what NCCL prints for it, and
// the GIN state comm->symmetricSupport reads across nodes (ginSupport,
// globalGinSupport). G-GIN-1 and G-RMA-1 call it when no external plugin
// is assigned; the release says which of its forms holds
// (Consts.GinInternal).

// GIN types (ncclGinType_t, the NCCL_NET_DEVICE_GIN_* device types).
const (
	ginTypeNone  = 0
	ginTypeProxy = 2
	ginTypeGDAKI = 3
)

// Forms of the internal IB GIN (Consts.GinInternal).
const (
	// GinInternalNet (2.28.7–2.28.9): the IB net plugin's GIN object,
	// assigned with the IB network. NCCL_GIN_TYPE unset: GDAKI when its
	// init finds an mlx5 device; init failing gives the proxy, and no
	// mlx5 device leaves NCCL's placeholder pointer in place.
	GinInternalNet = 1 + iota
	// GinInternalNetRma (2.29.2–2.29.3): as GinInternalNet, but no mlx5
	// device gives the proxy, and the IB proxy is the RMA object too.
	GinInternalNetRma
	// GinInternalIB (2.29.7–2.30.4): ncclGinInit's internal "GIN_IB"
	// entry, whatever the network, turns into GDAKI or the proxy after
	// ncclGinIbInitType's GPUDirect RDMA checks; its RMA is the IB proxy.
	GinInternalIB
	// GinInternalGdakiRma (2.30.7): the RMA loader's internal
	// RMA_IB_PROXY, then ncclGinInit's GDAKI entry and the GIN proxy over
	// the assigned RMA plugin, NCCL_GIN_TYPE filtering at assignment.
	GinInternalGdakiRma
)

// ginIBNoGDR is the INFO ncclGinIbGdrSupport prints when neither a
// peer-memory module nor the first device's DMA-BUF serves GIN.
const ginIBNoGDR = "Unable to use GIN: Peermem is not supported, nor DMA-BUF."

// ibGin is what the internal IB GIN and RMA find on a node.
type ibGin struct {
	ok       bool   // ncclIbInitDevices succeeds with devices
	why      string // why not
	devs     int    // usable ports
	mlx5     int    // of them, mlx5 devices (the GDAKI devices)
	dmaBuf   bool   // the first device's DMA-BUF support
	peerMem  string // Node.PeerMemOf
	ginType  int64  // NCCL_GIN_TYPE
	typeNote string // "NCCL_GIN_TYPE=3" or "NCCL_GIN_TYPE unset"
}

// ibGinOf reads the node as ncclIbInitDevices and ncclGinIbGdakiInit do.
func (r *initRun) ibGinOf(s *nodeState) ibGin {
	g := ibGin{peerMem: s.node.PeerMemOf(), ginType: r.param("NCCL_GIN_TYPE"), typeNote: "NCCL_GIN_TYPE unset"}
	if _, set := r.env.Lookup("NCCL_GIN_TYPE"); set {
		g.typeNote = "NCCL_GIN_TYPE=" + strconv.FormatInt(g.ginType, 10)
	}
	switch {
	case r.param("NCCL_IB_DISABLE") != 0:
		g.why = "NCCL_IB_DISABLE is set: ncclIbInitDevices fails"
		return g
	case !s.node.Driver.Verbs:
		g.why = "libibverbs cannot be loaded"
		return g
	case len(findInterfaces(r.env, s.node.ipIfs(s.nodes[0]), 1)) == 0:
		g.why = "no IP interface for the IB out-of-band connection"
		return g
	}
	hca := r.env["NCCL_IB_HCA"]
	var planes []int
	for _, n := range s.node.NICs {
		e, ok := ifListEntry(hca, n.Name, n.Port, r.rs.TopoParams.IfListRailPlane)
		if !ok || !n.Active {
			continue
		}
		planes = append(planes, e.Plane)
		if g.devs == 0 {
			g.dmaBuf = n.DMABuf
		}
		g.devs++
		if n.ProviderOf() == ProviderMLX5 {
			g.mlx5++
		}
	}
	// G-NET-IB-PLANE-1: a refused plane id fails ncclIbInitDevices only on
	// its first call; after the network's IB init, a later call returns at
	// netRefCount with every port listed
	if _, bad, warn := topo.IBPlaneIndexes(planes); bad >= 0 && !s.ibPlane.ran {
		g.why = warn + " (ncclIbInitDevices fails)"
		return g
	}
	g.ok = g.devs > 0
	if !g.ok {
		g.why = "no active verbs port" + hcaNote(hca)
	}
	return g
}

// gdr is ncclGinIbGdrSupport: GDAKI needs nvidia_peermem, the proxy any
// peer-memory module; either takes the first device's DMA-BUF instead.
func (g ibGin) gdr(gdaki bool) bool {
	if g.peerMem == PeerMemNvidia || !gdaki && g.peerMem == PeerMemLegacy {
		return true
	}
	return g.dmaBuf
}

func (g ibGin) facts() []Fact {
	return []Fact{F("gin_type", g.typeNote), F("ib_devices", g.devs), F("mlx5_devices", g.mlx5), F("peermem", g.peerMem), F("dmabuf", g.dmaBuf)}
}

// ginOutcome is the internal GIN's answer for one node.
type ginOutcome struct {
	ginType int
	name    string // GIN_IB_GDAKI, GIN_IB_PROXY, RMA_IB_PROXY
	rma     string // the RMA object assigned with it (2.29.2–2.30.4)
	why     string
	logs    []string
	crash   bool // 2.28.7–2.28.9: init through the placeholder pointer
}

// inNet is the IB net plugin's GIN object (GinInternalNet,
// GinInternalNetRma): s.chosen is the internal IB network.
//
// Ref: v2.28.9-1 src/plugin/net.cc initPluginLibsOnceFunc,
// ncclNetPluginInit, ncclNetPluginAssignToComm; src/transport/net_ib.cc
// ncclGinIbGdakiInit, ncclGinIbProxy (v2.29.2-1 the same with the proxy
// for no mlx5 device and the RMA object)
func (g ibGin) inNet(form int) ginOutcome {
	var o ginOutcome
	switch g.ginType {
	case -1:
		switch {
		case g.mlx5 > 0:
			o.ginType, o.name, o.why = ginTypeGDAKI, "GIN_IB_GDAKI", fmt.Sprintf("%d mlx5 device(s): GDAKI", g.mlx5)
		case form == GinInternalNet:
			o.crash = true
			o.why = "GDAKI's init succeeds with no mlx5 device, so ncclNetPluginInit keeps its placeholder (ncclGin_t*)-1 and calls init through it: the process crashes"
			return o
		default:
			o.ginType, o.name, o.why = ginTypeProxy, "GIN_IB_PROXY", "no mlx5 device for GDAKI: the proxy"
		}
	case ginTypeProxy:
		o.ginType, o.name, o.why = ginTypeProxy, "GIN_IB_PROXY", "NCCL_GIN_TYPE=2: the proxy"
	case ginTypeGDAKI:
		if g.mlx5 == 0 {
			o.why = "NCCL_GIN_TYPE=3 and no mlx5 device: GDAKI's devices() reports 0, GIN disabled"
			return o
		}
		o.ginType, o.name, o.why = ginTypeGDAKI, "GIN_IB_GDAKI", fmt.Sprintf("NCCL_GIN_TYPE=3: GDAKI on %d mlx5 device(s)", g.mlx5)
	default:
		o.why = g.typeNote + " names no GIN type: the IB plugin has no GIN object"
		return o
	}
	o.logs = []string{"Assigned GIN plugin " + o.name + " to comm"}
	if form == GinInternalNetRma {
		o.rma = "GIN_IB_PROXY"
		o.logs = append(o.logs, "Assigned RMA plugin GIN_IB_PROXY to comm")
	}
	return o
}

// ginIB is the internal "GIN_IB" entry of 2.29.7–2.30.4: GDAKI when an
// mlx5 device and its GPUDirect RDMA check allow, else the proxy, as
// NCCL_GIN_TYPE allows; its RMA object is the IB proxy, initialised with
// its own check.
//
// Ref: v2.29.7-1 src/transport/net_ib/gin.cc ncclGinIbInitType,
// ncclGinIbGdrSupport, ncclGinIbProxyInit; src/plugin/gin.cc
// ncclGinPluginInit, ncclGinPluginAssignToComm
func (g ibGin) ginIB() ginOutcome {
	var o ginOutcome
	if !g.ok {
		o.why = g.why
		return o
	}
	noGDR := func() { o.logs = append(o.logs, ginIBNoGDR) }
	switch g.ginType {
	case -1, ginTypeGDAKI, ginTypeProxy:
	default:
		o.logs = []string{"NET_IB: no support for GIN type " + strconv.FormatInt(g.ginType, 10)}
		o.why = g.typeNote + " names no GIN type"
		return o
	}
	if g.ginType != ginTypeProxy {
		switch {
		case g.mlx5 == 0 && g.ginType == -1:
		case !g.gdr(true):
			noGDR()
			if g.ginType == ginTypeGDAKI {
				o.why = "NCCL_GIN_TYPE=3: GDAKI needs nvidia_peermem or DMA-BUF"
				return o
			}
		case g.mlx5 == 0:
			o.why = "NCCL_GIN_TYPE=3 and no mlx5 device: GDAKI's devices() reports 0"
			return o
		default:
			o.ginType, o.name, o.why = ginTypeGDAKI, "GIN_IB_GDAKI", fmt.Sprintf("GDAKI on %d mlx5 device(s), GPUDirect RDMA by %s", g.mlx5, g.gdrBy(true))
		}
	}
	if o.ginType == ginTypeNone {
		if !g.gdr(false) {
			noGDR()
			o.why = "the proxy needs a peer-memory module or DMA-BUF"
			return o
		}
		o.ginType, o.name, o.why = ginTypeProxy, "GIN_IB_PROXY", "the proxy, GPUDirect RDMA by "+g.gdrBy(false)
	}
	o.logs = append(o.logs, "Assigned GIN plugin "+o.name+" to comm")
	// the RMA object's init runs ncclGinIbInitType for the proxy again
	if g.gdr(false) {
		o.rma = "GIN_IB_PROXY"
		o.logs = append(o.logs, "Assigned RMA plugin GIN_IB_PROXY to comm")
	} else {
		noGDR()
	}
	return o
}

func (g ibGin) gdrBy(gdaki bool) string {
	if g.peerMem == PeerMemNvidia || !gdaki && g.peerMem == PeerMemLegacy {
		return g.peerMem
	}
	return "DMA-BUF"
}

// rmaIBProxy is 2.30.7's internal RMA_IB_PROXY (ncclRmaIbProxyInit:
// ncclGinIbInitType for the proxy).
//
// Ref: v2.30.7-1 src/transport/net_ib/gin.cc ncclRmaIbProxyInit,
// ncclGinIbInitType; src/plugin/rma.cc ncclRmaInit
func (g ibGin) rmaIBProxy() (ok bool, why string, logs []string) {
	switch {
	case !g.ok:
		return false, g.why, nil
	case !g.gdr(false):
		return false, "the IB proxy needs a peer-memory module or DMA-BUF", []string{ginIBNoGDR}
	}
	return true, "RMA_IB_PROXY, GPUDirect RDMA by " + g.gdrBy(false), nil
}

// gdakiThenProxy is 2.30.7's ncclGinInit past the external entries: the
// GDAKI entry (index gdakiIdx), then the GIN proxy over the RMA plugin
// the communicator has (rma; empty: none).
//
// Ref: v2.30.7-1 src/plugin/gin.cc ncclGinInit, ncclGinPluginInit,
// ncclGinPluginAssignToComm; src/transport/net_ib/gin.cc
// ncclGinIbGdakiInitOnce, ncclGinIbInitType; src/gin/gin_host_proxy.cc
// ncclGinProxyInit
func (g ibGin) gdakiThenProxy(gdakiIdx int, rma string) ginOutcome {
	var o ginOutcome
	switch {
	case g.ginType != -1 && g.ginType != ginTypeGDAKI:
		o.why = g.typeNote + ": GDAKI finds no device"
	case !g.ok:
		o.why = "GDAKI: " + g.why
	case g.mlx5 == 0:
		o.why = "GDAKI: no mlx5 device"
	case !g.gdr(true):
		o.logs = append(o.logs, ginIBNoGDR)
		o.why = "GDAKI needs nvidia_peermem or DMA-BUF"
	default:
		o.ginType, o.name, o.why = ginTypeGDAKI, "GIN_IB_GDAKI", fmt.Sprintf("GDAKI on %d mlx5 device(s), GPUDirect RDMA by %s", g.mlx5, g.gdrBy(true))
		o.logs = append(o.logs, "GIN/Plugin: Assigned plugin GIN_IB_GDAKI type 3 to comm")
		return o
	}
	if rma == "" {
		o.why += "; no RMA plugin for the GIN proxy"
		return o
	}
	// an external RMA plugin's device type is taken to be the proxy's
	if g.ginType != -1 && g.ginType != ginTypeProxy {
		o.logs = append(o.logs, fmt.Sprintf("GIN/Plugin: Skipping plugin %s index %d type %d: NCCL_GIN_TYPE=%d requested", rma, gdakiIdx+1, ginTypeProxy, g.ginType))
		o.why += "; the proxy over " + rma + " is skipped (" + g.typeNote + ")"
		return o
	}
	o.ginType, o.name = ginTypeProxy, rma
	o.why += "; the GIN proxy over the RMA plugin " + rma
	o.logs = append(o.logs, fmt.Sprintf("GIN/Plugin: Assigned plugin %s type %d to comm", rma, ginTypeProxy))
	return o
}

// crossNicOff is ncclTopoCheckCrossNicSupport saying no: NCCL_CROSS_NIC=0
// (default 2).
func crossNicOff(env Env) bool {
	v, _, _ := intParam(env, "NCCL_CROSS_NIC", 2)
	return v == 0
}

// ginTypeName is the type as NCCL names it.
func ginTypeName(t int) string {
	switch t {
	case ginTypeProxy:
		return "proxy"
	case ginTypeGDAKI:
		return "GDAKI"
	}
	return "none"
}

// GINState is the communicator's GIN after init: node 0's assigned GIN
// (Type: 0 none, 2 proxy, 3 GDAKI; Name) and RMA object, and whether
// comm->symmetricSupport may count on GIN across nodes (Symmetric).
type GINState struct {
	Type      int    `json:"type"`
	Name      string `json:"name,omitempty"`
	RMA       string `json:"rma,omitempty"`
	Symmetric bool   `json:"symmetric,omitempty"`
	// Why says what Symmetric rests on.
	Why string `json:"why,omitempty"`
	// RMAProxy: the RMA proxy serves the one-sided calls across nodes
	// (rmaProxySupport, globalRmaProxySupport).
	RMAProxy bool `json:"rmaProxy,omitempty"`
	// ABI is an external GIN plugin's version (ncclGinPlugin_vN); 0 for
	// the internal GIN, the release's newest.
	ABI int `json:"abi,omitempty"`
	// TypesDiffer: the nodes' GIN types are not all node 0's.
	TypesDiffer bool `json:"typesDiffer,omitempty"`
	// NoStrongSignals and NoVASignals: the assigned GIN's
	// getGinProperties (2.30.7+: ginState.supportsStrongSignals,
	// supportsVASignals) says it has no strong or no VA signals; only an
	// external plugin of ABI v14 can.
	NoStrongSignals bool `json:"noStrongSignals,omitempty"`
	NoVASignals     bool `json:"noVASignals,omitempty"`
}

// GIN is the communicator's GIN state.
func (c *Comm) GIN() GINState { return c.gin }

// ginState is GINState from every node's G-GIN-1 and G-RMA-1: the GIN
// part of comm->symmetricSupport, per release (Consts.GinSymSupport).
// 2.29.2–2.29.3 want a GIN object (of any type, NCCL_GIN_ENABLE not
// read), NCCL_CROSS_NIC not 0 and no fused NIC; 2.29.7+ every rank's GIN
// type the same and not none, no fused NIC, and cuMem GPUDirect RDMA on
// every GPU (a rail-only connection when NCCL_CROSS_NIC=0 still counts).
//
// Ref: v2.29.2-1 src/init.cc initTransportsRank (ginSupport); v2.29.7-1
// src/init.cc initTransportsRank (globalGinSupport), fillInfo; v2.30.7-1
// the same
func (r *initRun) ginState() GINState {
	s0 := r.nodes[0]
	g := GINState{Type: s0.ginType, Name: s0.ginName, RMA: s0.rmaName}
	if s0.ginLib != nil && s0.ginName == ginName(s0.ginLib) {
		g.ABI = s0.ginABI
		// ncclGin_getGinProperties of the v13 adapter reports both kinds;
		// a v14 plugin answers for itself
		if b := s0.ginLib.Gin; b != nil && g.ABI >= 14 {
			g.NoStrongSignals, g.NoVASignals = b.NoStrongSignals, b.NoVASignals
		}
	}
	form := r.rs.Consts.GinSymSupport
	if form == 0 {
		g.Why = "the release's symmetric memory does not read GIN"
		return g
	}
	fused := false
	if res := r.comm.Topo; res != nil {
		for _, n := range res.Nodes {
			if _, k := vnicSummary(n.VNics()); k > 0 {
				fused = true
			}
		}
	}
	g.RMAProxy = r.rmaProxy(form, fused)
	for _, s := range r.nodes {
		g.TypesDiffer = g.TypesDiffer || s.ginType != s0.ginType
	}
	for _, s := range r.nodes {
		switch {
		case form == 1 && s.ginName == "":
			g.Why = "a node has no GIN object"
			return g
		case form == 2 && (s.ginType == ginTypeNone || s.ginType != s0.ginType):
			g.Why = "the ranks' GIN types differ or one is none"
			return g
		case form == 2 && !s.node.CuMemGDROf():
			g.Why = "a GPU lacks GPUDirect RDMA with cuMem (cumem_gdr)"
			return g
		}
	}
	switch {
	case fused:
		g.Why = "a NIC is fused (globalNicFused)"
	case form == 1 && crossNicOff(r.env):
		g.Why = "NCCL_CROSS_NIC=0 (ncclTopoCheckCrossNicSupport)"
	default:
		g.Symmetric, g.Why = true, "GIN "+ginTypeName(g.Type)+" on every rank"
	}
	return g
}

// rmaProxy is the RMA proxy's support across nodes, per release form of
// ginState: 2.29.2–2.29.3 node 0's RMA object (the net plugin's),
// NCCL_CROSS_NIC not 0 and no fused NIC; 2.29.7+ an RMA object on every
// rank, cross-NIC, no fused NIC and cuMem GPUDirect RDMA on every GPU.
//
// Ref: v2.29.2-1 src/init.cc initTransportsRank (rmaProxySupport);
// v2.29.7-1 src/init.cc initTransportsRank (globalRmaProxySupport)
func (r *initRun) rmaProxy(form int, fused bool) bool {
	if form == 0 || fused || crossNicOff(r.env) {
		return false
	}
	for i, s := range r.nodes {
		if s.rmaName == "" && (form == 2 || i == 0) || form == 2 && !s.node.CuMemGDROf() {
			return false
		}
	}
	return true
}

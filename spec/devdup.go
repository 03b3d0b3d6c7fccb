package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// Several ranks on one GPU (G-DEV-DUP-1): a system whose node lists one
// CUDA device twice, or the two MLOPart partitions of one GPU where the
// release compares bus ids. NCCL refuses the communicator at init; the
// text, the identity it compares and whether a variable allows it changed.

// devDupWarn22 is initTransportsRank's WARN up to 2.29.7.
const devDupWarn22 = "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx"

// devDupWarn30 and devDupInfo30 are ncclCheckMultiRank's lines (2.30.3–2.30.4).
const (
	devDupWarn30       = "Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration."
	devDupInfo30       = "Detected ranks %d and %d sharing GPU with bus %lX on this node"
	devDupAllowedInfo  = "Multiple ranks on the same GPU detected and allowed. Disabling NVLS."
	devDupAllowedNVLS  = `Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to "1". At this time multiple ranks per gpu is incompatible with NVLS.`
	devDupWarn307      = "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration."
	devDupNotModelled  = "several ranks on one MLOPart partition, or ranks of one GPU not listed one after the other, with NCCL_MULTI_RANK_GPU_ENABLE=1: not modelled; expected the ranks sharing a whole GPU listed together"
	devDupMultiRankVar = "NCCL_MULTI_RANK_GPU_ENABLE"
)

// devDupBy is what a release compares to find two ranks on one GPU.
type devDupBy int

const (
	// devDupBusID: peerInfo.busId, the PCI device (up to 2.30.4): the
	// partitions of an MLOPart GPU share it.
	devDupBusID devDupBy = iota
	// devDupUUID: peerInfo.gpuUuid (2.30.7): each MLOPart partition has
	// its own.
	devDupUUID
)

// devDupPair is the first two ranks of one host that a release sees on
// one GPU: ranks a < b, the node, and the GPU's bus id ("" when the
// system names none).
type devDupPair struct {
	a, b, node int
	bus        string
	dev        int
}

// devDupPairs lists the pairs of ranks on one GPU, as by compares them,
// of the first host that has any, in rank order (b, then a). A host with
// the facts of the one before it has its pairs, so it is not walked again
// (a 100,000-GPU system of one node kind walks one node).
func devDupPairs(sys *System, by devDupBy) []devDupPair {
	var out []devDupPair
	base := 0
	for ni := range sys.Nodes {
		gpus := sys.Nodes[ni].GPUs
		if ni > 0 && sharesNode(&sys.Nodes[ni-1], &sys.Nodes[ni]) {
			base += len(gpus)
			continue
		}
		var x *topo.XMLNode // the node's synthesized topology, once a pair needs it
		for j := range gpus {
			for i := range j {
				if gpus[i].Dev != gpus[j].Dev {
					continue
				}
				if by == devDupUUID && !samePartition(gpus[i].MLOPart, gpus[j].MLOPart) {
					continue
				}
				if x == nil {
					x = nodeXML(&sys.Nodes[ni])
				}
				out = append(out, devDupPair{a: base + i, b: base + j, node: ni, bus: devBusID(&sys.Nodes[ni], x, gpus[i].Dev), dev: gpus[i].Dev})
			}
		}
		if len(out) > 0 {
			return out
		}
		base += len(gpus)
	}
	return nil
}

// nodeXML is the topology gatesim synthesizes for a node without one
// (an empty element when it cannot: a layout of one dev twice).
func nodeXML(nd *Node) *topo.XMLNode {
	if nd.Topo == nil {
		if x, err := topo.SynthesizeXML(nd.layout()); err == nil {
			return x
		}
	}
	return &topo.XMLNode{}
}

// devBusID is the bus id of CUDA device dev of a node as NCCL's peer info
// carries it: its <pci> in x, the topology gatesim synthesizes for the
// node (a preset's GPU.BusID is a label), else the system's bus_id (""
// when it names none). Only a failing init asks, so the synthesis is off
// the hot path.
func devBusID(nd *Node, x *topo.XMLNode, dev int) string {
	if b := pciOfDev(x, strconv.Itoa(dev)); b != "" {
		return b
	}
	for _, g := range nd.GPUs {
		if g.Dev == dev && g.BusID != "" {
			return g.BusID
		}
	}
	return ""
}

// pciOfDev is the busid of the <pci> holding <gpu dev=dev>.
func pciOfDev(x *topo.XMLNode, dev string) string {
	if p := devXML(x, "gpu", dev).Parent(); p != nil {
		b, _ := p.Attr("busid")
		return b
	}
	return ""
}

func samePartition(a, b *int) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// busHex is peerInfo.busId printed with %lx (upper: %lX); "" when the
// system names no bus id.
func busHex(bus string, upper bool) string {
	if bus == "" {
		return ""
	}
	id, err := topo.BusIDToInt64(bus)
	if err != nil {
		return ""
	}
	if upper {
		return fmt.Sprintf("%X", id)
	}
	return fmt.Sprintf("%x", id)
}

// devDupModelled: the ranks sharing a device are ones gatesim builds on
// one DEV node (G-TOPO-DEV-1): whole GPUs, each device's ranks listed one
// after the other (the layout's GPUSpec.Ranks). It returns the first pair
// that is not.
func devDupModelled(sys *System) (devDupPair, bool) {
	base := 0
	for ni := range sys.Nodes {
		gpus := sys.Nodes[ni].GPUs
		for j := range gpus {
			for i := range j {
				if gpus[i].Dev != gpus[j].Dev || !samePartition(gpus[i].MLOPart, gpus[j].MLOPart) {
					continue
				}
				if gpus[j].MLOPart != nil || gpus[j-1].Dev != gpus[j].Dev {
					return devDupPair{a: base + i, b: base + j, node: ni, dev: gpus[j].Dev}, false
				}
			}
		}
		base += len(gpus)
	}
	return devDupPair{}, true
}

func devDupFacts(p devDupPair) []Fact {
	return []Fact{F("ranks", fmt.Sprintf("%d,%d", p.a, p.b)), F("node", p.node), F("dev", p.dev), F("busId", orUnknown(p.bus))}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// devDup22 is G-DEV-DUP-1 up to 2.29.7: in the AllGather1 loop each rank
// compares its own busId with every rank of its host.
var devDup22 = &Rule{
	ID: "G-DEV-DUP-1", Layer: LayerDevice, Title: "several ranks on one GPU",
	Doc:  `After the first all-gather of peer info each rank compares its bus id (peerInfo.busId, the PCI device of its CUDA device) with every other rank of its host: two ranks on one GPU fail init with WARN "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx" and ncclInvalidUsage, before the MNNVL check and the topology. The two partitions of an MLOPart GPU are two CUDA devices of one PCI device, so they are refused too. Only the ranks on the shared GPU return the error; the others wait in the next bootstrap step. gatesim prints the line of the lower rank of the first pair (the bus id only when the system names it). No variable allows it.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{devDupWarn22},
	init: func(r *initRun) {
		pairs := devDupPairs(r.comm.System, devDupBusID)
		if len(pairs) == 0 {
			r.emit(Verdict{Outcome: Pass, Why: "one rank per GPU on every host"})
			return
		}
		p := pairs[0]
		warn := fmt.Sprintf(strings.Replace(devDupWarn22, "%lx", "%s", 1), p.a, p.b, busHex(p.bus, false))
		var log []string
		if p.bus != "" {
			log = []string{warn}
		}
		r.fail(InvalidUsage, warn)
		r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ranks %d and %d of node %d are on CUDA device %d (one bus id): ncclInvalidUsage", p.a, p.b, p.node, p.dev), Facts: devDupFacts(p), Log: log})
	},
}

// devDup30 is G-DEV-DUP-1 at 2.30.3–2.30.4: ncclCheckMultiRank.
var devDup30 = &Rule{
	ID: "G-DEV-DUP-1", Layer: LayerDevice, Title: "several ranks on one GPU",
	Doc:  `ncclCheckMultiRank (after the topology is built, before ncclNvlsInit) compares the bus ids of the ranks of each host. The first rank of a host prints INFO "Detected ranks %d and %d sharing GPU with bus %lX on this node" for each pair, then, unless NCCL_MULTI_RANK_GPU_ENABLE=1, WARN "Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration." and returns ncclInvalidUsage (the host's other ranks go on and wait). The two partitions of an MLOPart GPU share a bus id, so they are refused too. With the variable set, NVLS is off (isMultiRankGpu: INFO "Multiple ranks on the same GPU detected and allowed. Disabling NVLS.", and ncclNvlsInit is not called; with NCCL_NVLS_ENABLE=1 a WARN and ncclInvalidUsage) and the ranks are GPUs of one DEV node (G-TOPO-DEV-1). gatesim runs the check before its topology stage, which cannot fail on these systems first.`,
	Ref:  Ref{Tag: "v2.30.3-1", File: "src/graph/topo.cc", Func: "ncclCheckMultiRank"},
	Logs: []string{devDupInfo30, devDupWarn30, devDupAllowedInfo, devDupAllowedNVLS},
	init: func(r *initRun) {
		pairs := devDupPairs(r.comm.System, devDupBusID)
		if len(pairs) == 0 {
			r.emit(Verdict{Outcome: Pass, Why: "one rank per GPU on every host"})
			return
		}
		p := pairs[0]
		var log []string
		for _, q := range pairs {
			if q.bus != "" {
				log = append(log, fmt.Sprintf("Detected ranks %d and %d sharing GPU with bus %s on this node", q.a, q.b, busHex(q.bus, true)))
			}
		}
		facts := append(devDupFacts(p), F(devDupMultiRankVar, r.param(devDupMultiRankVar)))
		if r.param(devDupMultiRankVar) == 0 {
			r.fail(InvalidUsage, devDupWarn30)
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ranks %d and %d of node %d share GPU %d (one bus id) and NCCL_MULTI_RANK_GPU_ENABLE is 0: ncclInvalidUsage", p.a, p.b, p.node, p.dev), Facts: facts, Log: append(log, devDupWarn30)})
			return
		}
		if r.param("NCCL_NVLS_ENABLE") == 1 {
			r.fail(InvalidUsage, devDupAllowedNVLS)
			r.emit(Verdict{Outcome: Fail, Why: "ranks share a GPU (allowed) with NCCL_NVLS_ENABLE=1: ncclInvalidUsage", Facts: facts, Log: append(log, devDupAllowedNVLS)})
			return
		}
		if !devDupAllowed(r) {
			return
		}
		// isMultiRankGpu: ncclNvlsInit is not called (G-NVLS-EARLY-1)
		r.multiRankGPU = true
		r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("ranks %d and %d of node %d share GPU %d, allowed by NCCL_MULTI_RANK_GPU_ENABLE=1: GPUs of one DEV node, NVLS off", p.a, p.b, p.node, p.dev),
			Facts: facts, Log: append(log, devDupAllowedInfo)})
	},
}

// devDupAllowed refuses, as not modelled, allowed ranks sharing a device
// that G-TOPO-DEV-1 cannot build.
func devDupAllowed(r *initRun) bool {
	if q, ok := devDupModelled(r.comm.System); !ok {
		r.err = fmt.Errorf("G-DEV-DUP-1: ranks %d and %d of node %d: %s", q.a, q.b, q.node, devDupNotModelled)
		return false
	}
	return true
}

// devDup307 is G-DEV-DUP-1 from 2.30.7: every rank compares every pair of
// ranks of one host by GPU UUID in the AllGather1 loop.
var devDup307 = &Rule{
	ID: "G-DEV-DUP-1", Layer: LayerDevice, Title: "several ranks on one GPU",
	Doc:  `In the AllGather1 loop every rank compares the GPU UUIDs (peerInfo.gpuUuid) of every pair of ranks of one host: unless NCCL_MULTI_RANK_GPU_ENABLE=1, two ranks on one GPU or one MLOPart partition fail init with WARN "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration." and ncclInvalidUsage on every rank, before the MNNVL check and the topology. Each MLOPart partition has a UUID of its own, so the two partitions of a GPU pass (hasMultiRankNvml, which compares the NVML device, turns NVLS off: G-NVLS-EARLY-1). With the variable set, the ranks are GPUs of one DEV node (G-TOPO-DEV-1), and hasMultiRankNvml turns NVLS off (G-NVLS-EARLY-1).`,
	Ref:  Ref{Tag: "v2.30.7-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{devDupWarn307},
	init: func(r *initRun) {
		pairs := devDupPairs(r.comm.System, devDupUUID)
		if len(pairs) == 0 {
			r.emit(Verdict{Outcome: Pass, Why: "one rank per GPU or MLOPart partition (UUID) on every host"})
			return
		}
		p := pairs[0]
		if r.param(devDupMultiRankVar) != 0 {
			if devDupAllowed(r) {
				r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("ranks %d and %d of node %d are on one GPU UUID (CUDA device %d), allowed by NCCL_MULTI_RANK_GPU_ENABLE=1: GPUs of one DEV node", p.a, p.b, p.node, p.dev),
					Facts: append(devDupFacts(p), F(devDupMultiRankVar, r.param(devDupMultiRankVar)))})
			}
			return
		}
		r.fail(InvalidUsage, devDupWarn307)
		r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ranks %d and %d of node %d are on one GPU UUID (CUDA device %d) and NCCL_MULTI_RANK_GPU_ENABLE is 0: ncclInvalidUsage", p.a, p.b, p.node, p.dev),
			Facts: append(devDupFacts(p), F(devDupMultiRankVar, 0)), Log: []string{devDupWarn307}})
	},
}

// ncclCommInitAll's own devlist checks (G-DEV-DUP-2): it reads the
// devlist before any communicator exists, entry by entry, a device outside
// cudaGetDeviceCount's before a device named twice.

// devInitAllWarn23 is the WARN for a devlist entry outside the visible
// devices, from 2.23.4 (before it the check printed nothing).
const devInitAllWarn23 = "Invalid device %d (totalnDev=%d)"

// devInitAllDoc18, devInitAllDoc23 and devInitAllDoc30 say what each
// release's checks do.
const (
	devInitAllDoc18 = `ncclCommInitAll (procs init-all: one process, its node's CUDA devices in order as devlist) checks the devlist before it makes any communicator, entry by entry: a device index outside the devices the process sees (cudaGetDeviceCount: the node's visible_devices, by default every device it lists) returns ncclUnhandledCudaError with no WARN, and a device named twice ncclInvalidUsage with no WARN; either way ncclGetLastError stays empty and no "NCCL version" or init line is printed. G-DEV-DUP-1's WARN is never reached. No variable allows it. Other layouts make their ranks with ncclCommInitRank, which has no such check.`
	devInitAllDoc23 = `As up to 2.22.3 (ncclCommInitAll's devlist, entry by entry, before any communicator), but a device index outside the devices the process sees (cudaGetDeviceCount: the node's visible_devices, by default every device it lists) prints WARN "Invalid device %d (totalnDev=%d)", which ncclGetLastError returns, and returns ncclInvalidArgument; a device named twice still returns ncclInvalidUsage with no WARN and an empty ncclGetLastError.`
	devInitAllDoc30 = `As from 2.23.4 (ncclCommInitAll's devlist, entry by entry: a device outside the visible ones is WARN "Invalid device %d (totalnDev=%d)" and ncclInvalidArgument; a device named twice returns ncclInvalidUsage with no WARN, before any communicator), unless NCCL_MULTI_RANK_GPU_ENABLE=1, which skips the duplicate check alone: the ranks are then made and G-DEV-DUP-1 decides (allowed: ranks on one DEV node, G-TOPO-DEV-1).`
)

// initAllCheck is what a release's ncclCommInitAll does with its devlist.
type initAllCheck struct {
	// invalid is the result for a device outside the visible ones; warn
	// says whether devInitAllWarn23 is printed with it.
	invalid Result
	warn    bool
	// multiRank says whether NCCL_MULTI_RANK_GPU_ENABLE skips the
	// duplicate check.
	multiRank bool
}

// invisibleDev is the first entry of a node's devlist outside the CUDA
// devices its process sees, -1 when none is (every device the node lists
// is seen unless visible_devices says otherwise).
func invisibleDev(nd *Node) int {
	if nd.VisibleDevices == 0 {
		return -1
	}
	for j, g := range nd.GPUs {
		if g.Dev < 0 || g.Dev >= nd.VisibleDevices {
			return j
		}
	}
	return -1
}

// devInitAll is G-DEV-DUP-2's check as release c has it.
func devInitAll(r *initRun, c initAllCheck) {
	sys := r.comm.System
	if sys.Procs != ProcsInitAll {
		// literals: every init walks this, and a joined string allocates
		why := "the ranks are made by ncclCommInitRank (procs per-gpu): no devlist to check"
		if sys.Procs == ProcsPerNode {
			why = "the ranks are made by ncclCommInitRank (procs per-node): no devlist to check"
		}
		r.emit(Verdict{Outcome: Skip, Why: why})
		return
	}
	// a CUDA device is a GPU or one MLOPart partition of it, as the UUID
	// comparison tells them apart
	pairs := devDupPairs(sys, devDupUUID)
	skipDup := c.multiRank && r.param(devDupMultiRankVar) != 0
	// the loop stops at the first entry either check refuses; a
	// duplicate's first naming was checked for visibility before it
	if bad := invisibleDev(&sys.Nodes[0]); bad >= 0 && (len(pairs) == 0 || skipDup || bad < pairs[0].b) {
		dev, total := sys.Nodes[0].GPUs[bad].Dev, sys.Nodes[0].VisibleDevices
		facts := []Fact{F("rank", bad), F("dev", dev), F("totalnDev", total)}
		if !c.warn {
			r.fail(c.invalid, "")
			r.failed.Call = "ncclCommInitAll"
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ncclCommInitAll's devlist names CUDA device %d (rank %d), outside the %d the process sees: %s before any communicator, with no WARN and an empty ncclGetLastError", dev, bad, total, c.invalid), Facts: facts})
			return
		}
		warn := fmt.Sprintf(devInitAllWarn23, dev, total)
		r.fail(c.invalid, warn)
		r.failed.Call = "ncclCommInitAll"
		r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ncclCommInitAll's devlist names CUDA device %d (rank %d), outside the %d the process sees: %s before any communicator", dev, bad, total, c.invalid), Facts: facts, Log: []string{warn}})
		return
	}
	if len(pairs) == 0 {
		r.emit(Verdict{Outcome: Pass, Why: "ncclCommInitAll's devlist names each CUDA device once"})
		return
	}
	p := pairs[0]
	facts := devDupFacts(p)
	if c.multiRank {
		facts = append(facts, F(devDupMultiRankVar, r.param(devDupMultiRankVar)))
		if skipDup {
			r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("ncclCommInitAll's devlist names CUDA device %d twice, and NCCL_MULTI_RANK_GPU_ENABLE=1 skips the check", p.dev), Facts: facts})
			return
		}
	}
	r.fail(InvalidUsage, "")
	r.failed.Call = "ncclCommInitAll"
	r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ncclCommInitAll's devlist names CUDA device %d twice (ranks %d and %d): ncclInvalidUsage before any communicator, with no WARN and an empty ncclGetLastError", p.dev, p.a, p.b), Facts: facts})
}

// devInitAllTitle is G-DEV-DUP-2's title at every release.
const devInitAllTitle = "ncclCommInitAll devlist names a device not visible or twice"

// devInitAll18 is G-DEV-DUP-2 up to 2.22.3: an invisible device is a
// silent ncclUnhandledCudaError.
var devInitAll18 = &Rule{
	ID: "G-DEV-DUP-2", Layer: LayerDevice, Title: devInitAllTitle,
	Doc:  devInitAllDoc18,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "ncclCommInitAll"},
	init: func(r *initRun) { devInitAll(r, initAllCheck{invalid: UnhandledCudaError}) },
}

// devInitAll23 is G-DEV-DUP-2 from 2.23.4 to 2.29.7: an invisible device
// is a WARN and ncclInvalidArgument.
var devInitAll23 = &Rule{
	ID: "G-DEV-DUP-2", Layer: LayerDevice, Title: devInitAllTitle,
	Doc:  devInitAllDoc23,
	Ref:  Ref{Tag: "v2.23.4-1", File: "src/init.cc", Func: "ncclCommInitAll"},
	Logs: []string{devInitAllWarn23},
	init: func(r *initRun) { devInitAll(r, initAllCheck{invalid: InvalidArgument, warn: true}) },
}

// devInitAll30 is G-DEV-DUP-2 from 2.30.3: NCCL_MULTI_RANK_GPU_ENABLE
// skips the duplicate check.
var devInitAll30 = &Rule{
	ID: "G-DEV-DUP-2", Layer: LayerDevice, Title: devInitAllTitle,
	Doc:  devInitAllDoc30,
	Ref:  Ref{Tag: "v2.30.3-1", File: "src/init.cc", Func: "ncclCommInitAll"},
	Logs: []string{devInitAllWarn23},
	init: func(r *initRun) { devInitAll(r, initAllCheck{invalid: InvalidArgument, warn: true, multiRank: true}) },
}

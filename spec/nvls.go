package spec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// NVLS (NVLink SHARP): the switch, the early exits, the multicast
// capability, the channel count, the graph, the agreement and the setup.

var nvlsEnv = &Rule{
	ID: "G-NVLS-ENV-1", Layer: LayerDevice, Cap: CapNVLS, Title: "NCCL_NVLS_ENABLE",
	Doc:  `NCCL_NVLS_ENABLE (integer, default 2): 0 turns NVLS off with no further check and no log; 2 is auto (the multicast capability decides); any other non-zero value (1, 3, ...) forces nvlsSupport on without querying the device attribute.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	node: true,
	init: func(r *initRun) {
		v := r.param("NCCL_NVLS_ENABLE")
		facts := []Fact{F("NCCL_NVLS_ENABLE", v)}
		switch {
		case v == 0:
			r.emit(Verdict{Outcome: Fail, Why: "NCCL_NVLS_ENABLE=0: NVLS off", Facts: facts})
		case v == 2:
			r.emit(Verdict{Outcome: Pass, Why: "auto: the multicast capability decides", Facts: facts})
		default:
			r.comm.Evidence.Raise(CapNVLS, LevelRequested)
			r.emit(Verdict{Outcome: Pass, Level: LevelRequested, Why: fmt.Sprintf("NCCL_NVLS_ENABLE=%d: forced on (the device attribute is not queried)", v), Facts: facts})
		}
	},
}

// nvlsEarly is G-NVLS-EARLY-1 with the release's GPU-count condition.
func nvlsEarly(ref Ref, doc string, off func(gpus, clique int, mnnvl bool) (bool, string)) *Rule {
	return &Rule{
		ID: "G-NVLS-EARLY-1", Layer: LayerDevice, Cap: CapNVLS, Title: "NVLS early exits",
		Doc: doc, Ref: ref, node: true,
		init: func(r *initRun) {
			s := r.cur
			if r.multiRankGPU {
				s.nvlsEarlyOff = "ranks sharing a GPU (isMultiRankGpu)"
				r.emit(Verdict{Outcome: Fail, Why: "ranks share a GPU (isMultiRankGpu, G-DEV-DUP-1): ncclNvlsInit is not called, NVLS off"})
				return
			}
			if r.param("NCCL_NVLS_ENABLE") == 0 {
				s.nvlsEarlyOff = "NCCL_NVLS_ENABLE=0"
				r.emit(Verdict{Outcome: Skip, Why: "NVLS disabled by NCCL_NVLS_ENABLE=0"})
				return
			}
			// the GPUs of the rank's topology: its NCCL node (an MNNVL
			// clique counts whole)
			gpus := len(s.node.GPUs)
			if nr, _ := r.topoNode(s); nr != nil {
				gpus = len(nr.Ranks)
			}
			clique := gpus
			if isOff, why := off(gpus, clique, r.comm.MNNVL); isOff {
				s.nvlsEarlyOff = why
				r.emit(Verdict{Outcome: Fail, Why: why + ": NVLS off (no log line)", Facts: []Fact{F("gpuCount", gpus)}})
				return
			}
			r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("%d GPUs in the topology", gpus), Facts: []Fact{F("gpuCount", gpus)}})
		},
	}
}

// nvlsCap is G-NVLS-CAP-1 (and, in 2.28, G-NVLS-CHAN-1 feeding its log).
func nvlsCap(ref Ref, withChannels bool) *Rule {
	logf := "NVLS multicast support is %savailable on dev %d"
	if withChannels {
		logf += " (NVLS_NCHANNELS %d)"
	}
	return &Rule{
		ID: "G-NVLS-CAP-1", Layer: LayerDevice, Cap: CapNVLS, Title: "multicast capability",
		Doc:  `Auto mode: nvlsSupport = CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED of the current device when the driver exports cuMulticastCreate, else 0. Forced mode: 1. The line says "available" from this stage alone: it is not evidence that NVLS is used.`,
		Ref:  ref,
		Logs: []string{logf},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			s.nvlsGPU = make([]bool, len(s.node.GPUs))
			if s.nvlsEarlyOff != "" {
				r.emit(Verdict{Outcome: Skip, Why: "NVLS already off: " + s.nvlsEarlyOff})
				return
			}
			forced := r.param("NCCL_NVLS_ENABLE") != 2
			var logs []string
			nOn := 0
			for i, g := range s.node.GPUs {
				on := forced || (s.node.Driver.MulticastAPI && g.Multicast)
				s.nvlsGPU[i] = on
				ch := 0
				if on {
					nOn++
					ch = r.nvlsChannelCount(s)
				}
				if i == 0 || on != s.nvlsGPU[0] {
					l := fmt.Sprintf("NVLS multicast support is %savailable on dev %d", notIf(on), g.Dev)
					if withChannels {
						l += fmt.Sprintf(" (NVLS_NCHANNELS %d)", ch)
					}
					logs = append(logs, l)
				}
			}
			facts := []Fact{F("forced", forced), F("multicast_api", s.node.Driver.MulticastAPI), F("multicast_attr", s.node.GPUs[0].Multicast)}
			switch {
			case nOn == len(s.node.GPUs):
				why := "multicast attribute set and cuMulticastCreate exported"
				if forced {
					why = "forced by NCCL_NVLS_ENABLE: the attribute is not checked"
				}
				r.emit(Verdict{Outcome: Pass, Level: LevelUsable, Why: why, Facts: facts, Log: logs})
			case nOn == 0:
				why := "CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED is 0"
				if !s.node.Driver.MulticastAPI {
					why = "the driver does not export cuMulticastCreate"
				}
				r.emit(Verdict{Outcome: Fail, Why: why, Facts: facts, Log: logs})
			default:
				r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("only %d of %d GPUs support multicast: the others search no NVLS graph", nOn, len(s.node.GPUs)), Facts: facts, Log: logs})
			}
		},
	}
}

// nvlsChannelCount is the release's NVLS channel rule for a supporting GPU.
func (r *initRun) nvlsChannelCount(s *nodeState) int {
	k := r.rs.Consts
	minCTAs, maxCTAs := r.ctaBounds()
	ch := k.NVLSChannelsSM90
	if k.NVLSChannelsSM100 > 0 {
		sm := s.node.GPUs[0].SM
		if sm >= 100 {
			ch = k.NVLSChannelsSM100
			if r.comm.NNodes > 1 && !r.comm.MNNVL {
				ch = k.NVLSChannelsSM100Multi
			}
		}
		if v, set, _ := intParam(r.env, "NCCL_NVLS_NCHANNELS", -1); set && v > 0 {
			ch = int(v)
		}
	} else {
		ch = int(r.param("NCCL_NVLS_NCHANNELS"))
	}
	return max(minCTAs, min(maxCTAs, ch))
}

// ctaBounds are config.minCTAs/maxCTAs after NCCL_MIN_CTAS/NCCL_MAX_CTAS.
func (r *initRun) ctaBounds() (lo, hi int) {
	lo, hi = 1, r.rs.Consts.MaxChannels
	if v, set, _ := intParam(r.env, "NCCL_MIN_CTAS", 0); set && v > 0 {
		lo = int(min(v, int64(r.rs.Consts.MaxChannels)))
	}
	if v, set, _ := intParam(r.env, "NCCL_MAX_CTAS", 0); set && v > 0 {
		hi = int(min(v, int64(r.rs.Consts.MaxChannels)))
	}
	if lo > hi {
		lo = hi
	}
	return lo, hi
}

var nvlsChan = &Rule{
	ID: "G-NVLS-CHAN-1", Layer: LayerDevice, Cap: CapNVLS, Title: "NVLS channel count",
	Doc:  `When supported: nvlsChannels = clamp(NCCL_NVLS_NCHANNELS, minCTAs, maxCTAs) (2.22: default 16; 2.28: sm90 16, sm100 24 in one node or NVL domain and 32 across nodes, NCCL_NVLS_NCHANNELS overriding when > 0; 2.30.3: after the all-gather ncclNvlsTuning sets an sm100 communicator of several nodes to 32 on two nodes with NICs of 48 GB/s or more, otherwise 24 with NICs of 48 GB/s or more (96 GB/s or more and over 8 GPUs per node: 32), before NCCL_NVLS_NCHANNELS and the CTA limits). 0 channels skips the NVLS setup.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		if len(s.nvlsGPU) == 0 || !s.nvlsGPU[0] {
			r.emit(Verdict{Outcome: Skip, Why: "NVLS not supported on this rank"})
			return
		}
		s.nvlsChannels = r.nvlsChannelCount(s)
		lo, hi := r.ctaBounds()
		out := Pass
		if s.nvlsChannels == 0 {
			out = Fail
		}
		// the bounds and the count as NCCL holds them, then where each that
		// is not NCCL's default came from (the variable or the config)
		facts := r.comm.settingsSet([]Fact{F("minCTAs", lo), F("maxCTAs", hi)}, "NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_NVLS_NCHANNELS")
		r.emit(Verdict{Outcome: out, Why: fmt.Sprintf("%d NVLS channel(s)", s.nvlsChannels), Facts: facts})
	},
}

// nvlsGraph is G-NVLS-GRAPH-1: the NVLS search needs an NVSwitch and
// compute capability 9.0 or newer. maxCh documents the release's cap; the
// count itself comes from spec/topo's search.
func nvlsGraph(ref Ref, maxCh func(nGPUs int) int) *Rule {
	return &Rule{
		ID: "G-NVLS-GRAPH-1", Layer: LayerGraph, Cap: CapNVLS, Title: "NVLS graph",
		Doc:  `Only where nvlsSupport is set: search the NVLS pattern (5). It returns 0 channels when the topology has no NVSwitch or the smallest compute capability is below 9.0; otherwise up to one channel per GPU (2.25+: at most 32).`,
		Ref:  ref,
		Logs: []string{"Pattern 5, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d"},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			s.graphs.NVLS = GraphInfo{Pattern: 5}
			if len(s.nvlsGPU) == 0 || !allTrue(s.nvlsGPU) {
				r.emit(Verdict{Outcome: Skip, Why: "nvlsSupport not set on every rank of this node: no NVLS graph searched"})
				return
			}
			nr, _ := r.topoNode(s)
			if nr == nil {
				r.emit(Verdict{Outcome: Skip, Why: "no topology search"})
				return
			}
			if !nr.Searched[topo.GraphNVLS] {
				r.emit(Verdict{Outcome: Fail, Why: "the topology stage searched no NVLS graph: another node of the communicator lacks multicast support, so the consensus would be 0 anyway"})
				return
			}
			s.graphs.NVLS = graphInfo(nr.Graph(topo.GraphNVLS), true)
			// A host split into several NCCL nodes (P2P off between its
			// CPUs) searches once per NCCL node, and the search may differ
			// between them (2.18.3 starts NVLS channels at a NET index
			// taken as a GPU index): the host has the fewest channels of its
			// NCCL nodes, as the consensus sees them.
			host := r.hostOf[s.nodes[0]]
			for i := range r.comm.Topo.Nodes {
				if n := &r.comm.Topo.Nodes[i]; n.Host == host {
					s.graphs.NVLS.NChannels = min(s.graphs.NVLS.NChannels, n.Graph(topo.GraphNVLS).NChannels)
				}
			}
			minSM := 1 << 30
			for _, g := range s.node.GPUs {
				minSM = min(minSM, g.SM)
			}
			// the node's own NVSwitches: the search ran on its system
			nvs := len(nr.System.Nodes[topo.NVS]) > 0
			facts := []Fact{F("nvswitch", nvs), F("minSM", minSM), F("gpus", len(nr.Ranks)), F("cap", maxCh(len(nr.Ranks)))}
			if s.graphs.NVLS.NChannels == 0 {
				var why []string
				if !nvs {
					why = append(why, "no NVSwitch in the topology")
				}
				if minSM < 90 {
					why = append(why, fmt.Sprintf("compute capability %d.%d < 9.0", minSM/10, minSM%10))
				}
				if len(why) == 0 {
					why = append(why, "the search found no NVLS channel")
				}
				r.emit(Verdict{Outcome: Fail, Why: strings.Join(why, ", ") + ": 0 NVLS channels", Facts: facts})
				return
			}
			r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("NVSwitch and sm%d: %d NVLS graph channel(s)", minSM, s.graphs.NVLS.NChannels), Facts: facts})
		},
	}
}

func allTrue(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return len(bs) > 0
}

var nvlsCons = &Rule{
	ID: "G-NVLS-CONS-1", Layer: LayerGraph, Cap: CapNVLS, Title: "ranks agree on NVLS",
	Doc:  `After AllGather3, if the minimum NVLS graph nChannels over all ranks is 0, nvlsSupport and nvlsChannels become 0 on every rank. The third number of the channel summary line shows the result.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{"%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer"},
	init: func(r *initRun) {
		c := r.comm
		minCh, minNv := 1<<30, 1<<30
		var zero []string
		for _, s := range r.nodes {
			minCh = min(minCh, s.graphs.NVLS.NChannels)
			minNv = min(minNv, s.nvlsChannels)
			if s.graphs.NVLS.NChannels == 0 {
				zero = append(zero, nodeList(s.nodes))
			}
		}
		if minCh == 0 {
			why := "NVLS graph has 0 channels: NVLS off on every rank"
			if len(r.nodes) > 1 && len(zero) < len(r.nodes) {
				why = "NVLS graph has 0 channels on node(s) " + strings.Join(zero, ", ") + ": NVLS off on every rank"
			}
			r.emit(Verdict{Outcome: Fail, Why: why})
			return
		}
		c.NVLSSupport = true
		c.NVLSChannels = minNv
		if c.Topo != nil && c.Topo.NvlsTuned {
			// 2.30.3+: ncclNvlsTuning after the all-gather (sm100, several nodes)
			c.NVLSChannels = c.Topo.NvlsChannels
		}
		c.Graphs.NVLS = r.nodes[0].graphs.NVLS
		c.Graphs.NVLS.NChannels = minCh
		r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("every rank has NVLS channels: %d NVLS graph channel(s), %d nvls channel(s)", minCh, minNv)})
	},
}

// nvlsSetup is G-NVLS-SETUP-1; soft marks 2.27.3-2.28.9, where a bind
// failure without NCCL_NVLS_ENABLE=1 only turns NVLS off.
func nvlsSetup(ref Ref, soft bool) *Rule { return nvlsSetupText(ref, soft, "") }

// nvlsSetupText is nvlsSetup whose hard bind failure WARNs hardText
// (2.29.2+: "Failed to bind ... Disable NVLS (NCCL_NVLS_ENABLE=0) ..." for
// every value of NCCL_NVLS_ENABLE); "" keeps the release's own text.
func nvlsSetupText(ref Ref, soft bool, hardText string) *Rule {
	return &Rule{
		ID: "G-NVLS-SETUP-1", Layer: LayerGraph, Cap: CapNVLS, Title: "multicast object setup",
		Doc: `ncclNvlsSetup (skipped when nvlsSupport or nvlsChannels is 0): local rank 0 creates the multicast group, ranks add their device, allocate and bind memory. A driver failure turns NVLS off and fails communicator init; from 2.27.3 to 2.28.9 a failing cuMulticastBindMem without NCCL_NVLS_ENABLE=1 only turns NVLS off ("Proceeding without NVLS support").`,
		Ref: ref,
		Logs: []string{"Cuda failure %d '%s'",
			"Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error %d '%s'. Proceeding without NVLS support.",
			"NVLS comm %p headRank %d nHeads %d buffSize %zu nvlsPerRankSize %zu nvlsTotalSize %zu"},
		init: func(r *initRun) {
			c := r.comm
			if !c.NVLSSupport || c.NVLSChannels == 0 {
				r.emit(Verdict{Outcome: Skip, Why: "NVLS not supported or 0 nvls channels: setup skipped"})
				return
			}
			for _, s := range r.nodes {
				bind := s.node.Driver.NVLSBindError
				if bind == "" {
					continue
				}
				code, text := cudaErr(bind)
				c.NVLSSupport, c.NVLSChannels = false, 0
				if soft && r.param("NCCL_NVLS_ENABLE") != 1 {
					r.emit(Verdict{Outcome: Fail, Why: "cuMulticastBindMem failed (" + bind + "): NVLS turned off, init continues",
						Log: []string{fmt.Sprintf("Failed to bind NVLink SHARP (NVLS) Multicast memory of size ? : CUDA error %d '%s'. Proceeding without NVLS support.", code, text)}})
					return
				}
				msg := fmt.Sprintf("Cuda failure %d '%s'", code, text)
				res := UnhandledCudaError
				if soft {
					msg = fmt.Sprintf("Failed to bind NVLink SHARP (NVLS) Multicast memory of size ? : CUDA error %d '%s'.\nThis is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.\nDo not force-enable NVLS (NCCL_NVLS_ENABLE=1) if you wish to avoid this error in the future.", code, text)
				} else if hardText != "" {
					msg = fmt.Sprintf(hardText, code, text)
				}
				r.emit(Verdict{Outcome: Fail, Why: "cuMulticastBindMem failed (" + bind + "): communicator init fails", Log: []string{msg}})
				r.fail(res, msg)
				return
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: fmt.Sprintf("multicast group created and bound: %d nvls channel(s)", c.NVLSChannels)})
		},
	}
}

// cudaErr splits "801:operation not supported" into code and text.
func cudaErr(s string) (int, string) {
	a, b, ok := strings.Cut(s, ":")
	if n, err := strconv.Atoi(strings.TrimSpace(a)); ok && err == nil {
		return n, strings.TrimSpace(b)
	}
	return 999, s
}

var nvlsTree = &Rule{
	ID: "G-NVLSTREE-1", Layer: LayerGraph, Cap: CapNVLSTree, Title: "NVLSTree prerequisites",
	Doc:  `NVLSTree needs nvlsSupport and more than one node (it is disabled in the enable matrix when nNodes is 1); it is modelled for AllReduce, Simple only, and does not itself require CollNet.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/transport/nvls.cc", Func: "ncclNvlsTreeConnect"},
	Logs: []string{"Connected NVLS tree"},
	init: func(r *initRun) {
		c := r.comm
		switch {
		case !c.NVLSSupport:
			r.emit(Verdict{Outcome: Fail, Why: "NVLS not supported"})
		case c.NNodes == 1:
			r.emit(Verdict{Outcome: Fail, Why: "single node: NVLSTree needs nNodes > 1"})
		default:
			r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: fmt.Sprintf("NVLS on %d nodes: the NVLS tree connects", c.NNodes), Log: []string{"Connected NVLS tree"}})
		}
	},
}

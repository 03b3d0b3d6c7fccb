package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.20.5 (tag v2.20.5-1, commit 48bb7fe), a backward delta from
// 2.21.5: what 2.20.5 had where 2.21.5 differs. The tuner ABI is v1, MNNVL
// is NCCL_MNNVL (auto: the whole communicator is one clique), the net
// plugin is one library name and the tuner library only NCCL_TUNER_PLUGIN's
// value (ncclNetPluginInit, ncclLoadTunerPlugin), Ring/LL is
// ×1/4 or ×1/3 of the bus bandwidth,
// and the Hopper LL ceilings and NVLS NVLink latencies are the older ones.
//
// The tuning model takes an MNNVL communicator as one node and disables
// NVLSTree, and NVLS without CollNet, for it (ncclTopoTuneModel,
// switch.mnnvlOneNode, G-TUNE-EN-1).
//
// Read at the tag and not modelled here (docs/releases.md lists them): the
// PXN rewiring across MNNVL peers and
// below PHB (ncclTopoComputePaths) and NCCL_MAX_NVLS_ARITY 8. The search behind an NVSwitch
// (neighbours first, not only), sm90SpeedArrayIntra without 11 GB/s, a
// lone GPU's totalBw of 0 and the system print by raw ids are
// topo.Apply2_20_5.

var tag2205 = "v2.20.5-1"

var tunerABI20 = tunerABI(Ref{Tag: tag2205, File: "src/misc/tuner.cc", Func: "ncclLoadTunerPlugin"},
	`Look up ncclTunerPlugin_v1 (NCCL_TUNER_PLUGIN_SYMBOL) only: init(nRanks, nNodes, logger) without a context. Missing: the library is closed and the internal tuner is used.`,
	[]string{"Tuner: failed to find ncclTunerPlugin_v1 in plugin (%s), using default tuner instead.", "Opened tuner: '%s'", "Using tuner plugin: '%s'"},
	func(name, opened string, v int, _ []int) []string {
		if v == 0 {
			return []string{"Tuner: failed to find ncclTunerPlugin_v1 in plugin (" + opened + "), using default tuner instead."}
		}
		return []string{"Opened tuner: '" + name + "'", "Using tuner plugin: '" + name + "'"}
	})

var tunerCall20 = ruleAt(tunerCall(Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "getTunerInfo"}), Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "getTunerInfo"},
	`Before the model, a loaded v1 tuner's getCollInfo (no context argument) receives the function, the byte count, collNetSupport, nvlsSupport and the pipelined-op count and may set the algorithm, the protocol and nChannels. A pair it sets is used as it is (topoGetAlgoInfo runs only for what it left undefined); a set nChannels is kept. A non-success return fails the collective.`)

// mnnvl20 is G-MNNVL-1 as NCCL_MNNVL (default -2) decides it, checked
// only when the communicator spans more than one host.
var mnnvl20 = mnnvlParam20(Ref{Tag: tag2205, File: "src/init.cc", Func: "initTransportsRank"},
	`Checked only when the communicator spans more than one host: the clique is the ranks whose fabric state is complete with the same cluster UUID and clique ID; MNNVL = (NCCL_MNNVL < 0) ? cliqueSize == nRanks (the whole communicator is one clique) : NCCL_MNNVL; then off without cuMem or without fabric-handle support.`, true)

// mnnvlParam20 is G-MNNVL-1 of 2.20.x, read from NCCL_MNNVL; multiHost
// skips the check on one host (2.20.5; 2.20.3 checks every communicator).
func mnnvlParam20(ref Ref, doc string, multiHost bool) *Rule {
	return &Rule{
		ID: "G-MNNVL-1", Layer: LayerDevice, Title: "multi-node NVLink",
		Doc: doc, Ref: ref,
		Logs: []string{"MNNVL busId 0x%lx fabric UUID %lx.%lx cliqueId 0x%x state %d healthMask 0x%x"},
		init: func(r *initRun) {
			c := r.comm
			r.netPluginInfo()
			param := r.param("NCCL_MNNVL")
			if multiHost && c.NNodes == 1 {
				r.emit(Verdict{Outcome: Skip, Why: "single host: MNNVL is not checked", Facts: []Fact{F("nNodes", 1)}})
				return
			}
			if param == 0 {
				r.emit(Verdict{Outcome: Fail, Why: "NCCL_MNNVL=0"})
				return
			}
			clique, size, _, fabric := mnnvlClique(c)
			switch {
			case !fabric || clique.cluster == "":
				r.emit(Verdict{Outcome: Fail, Why: "no fabric handle support, no NVSwitch fabric or no NVLink clique: MNNVL off"})
			case param < 0 && size != c.System.NRanks():
				r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("the clique holds %d of %d ranks: MNNVL off (auto needs the whole communicator)", size, c.System.NRanks())})
			default:
				c.MNNVL = true
				r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("NVLink clique %s of %d GPUs: MNNVL on", clique, size)})
			}
		},
	}
}

var release2_20_5 = Release{
	Version: V2_20_5,
	Tag:     tag2205,
	Consts:  consts2_20_5,
	Topo:    topo.Apply2_20_5,
	Tuning:  tuningBack2_20_5,
	Rules:   back2_20_5,
}

func consts2_20_5(rs *Ruleset) {
	// cited at 2.21.5, whose changelog holds it: its loader's name
	rs.SetConst("TunerABI", []int{1}, Ref{Tag: tag2215, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"})
	rs.DropParam("NCCL_MNNVL_ENABLE", Ref{Tag: tag2205, File: "src/init.cc", Func: "initTransportsRank"})
	rs.SetParamDefault("NCCL_MNNVL", -2, Ref{Tag: tag2205, File: "src/init.cc", Func: "MNNVL"})
	// no nvlsChunkSize yet: NVLSTree's chunk stays the Simple step size
	rs.SetConst("NVLSTreeChunkFromStep", true, Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "computeCollChunkInfo"})
	// nor NCCL_NVLS_CHUNKSIZE: NVLS's largest chunk is computeCollChunkInfo's 128 KiB
	rs.SetConst("NVLSChunkSizeEnv", false, Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "computeCollChunkInfo"})
	// nothing is registered with CollNet: every proxy op has reg 0
	rs.SetConst("ProxyReg", ProxyRegNone, Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "initCollProxyOp"})
	setCollNetFail(rs, tag2205, collNetFailInit(336, 368, 712))
}

func tuningBack2_20_5(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2205}
	// no collNetRegSupport: CollNet buffers are not registered
	tuningSet(d, &t.RegCollNet, TuningRegCollNetNone, enqueueCC, "registerIntraNodeBuffers")
	// a cut task's channels are its aggregate's nBytes over the plan's
	// byte total (the budget check and computeCollChunkInfo's nChannels)
	tuningSet(d, &t.CBDChannelsAggBytes, true, enqueueCC, "scheduleCollTasksToPlan")
	const model = "ncclTopoTuneModel"
	tuningSet(d, &t.HwLat[TuningHwNVLink][NVLS][Simple], 23, tuningCC, "hwLat")
	tuningSet(d, &t.HwLat[TuningHwNVLink][NVLSTree][Simple], 23, tuningCC, "hwLat")
	tuningSet(d, &t.LLMaxBw[TuningHopper][TuningN1], 87.7, tuningCC, "llMaxBws")
	tuningSet(d, &t.LLMaxBw[TuningHopper][TuningN2], 22.5, tuningCC, "llMaxBws")
	tuningSet(d, &t.LLMaxBw[TuningHopper][TuningN4], 19.0, tuningCC, "llMaxBws")
	tuningSet(d, &t.RingLLFactor, 1.0/3.0, tuningCC, model)
	tuningSet(d, &t.RingLLQuarter, 1.0/4.0, tuningCC, model)
	// an MNNVL communicator is one node to the model, without NVLSTree
	// and (CollNet off) NVLS; ncclTopoGetAlgoTime gives its Ring/Simple
	// AllReduce no plateau
	tuningSet(d, &t.MNNVLOneNode, true, tuningCC, model)
	return d.changes, tuningJoinErrs(d.errs)
}

// en20 is G-TUNE-EN-1 of 2.20.x: NVLSTree, and NVLS without CollNet, are
// also off on an MNNVL communicator (the switch MNNVLOneNode).
var en20 = enableRule(Ref{Tag: tag2205, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`After NCCL_ALGO/NCCL_PROTO: NVLSTree off on one node or on an MNNVL communicator; without CollNet support CollNetDirect and CollNetChain off, and NVLS off across nodes or on an MNNVL communicator, and if that leaves Ring, Tree, NVLS and NVLSTree all off (a hard-set CollNet request, or NCCL_ALGO=NVLS on MNNVL) Ring and Tree are re-enabled; with CollNet, CollNetDirect off without an NVSwitch. A disabled algorithm or protocol gets bandwidth 0. The bandwidths and latencies take an MNNVL communicator as one node.`)

// nvlsEarly20 is G-NVLS-EARLY-1 of 2.20.x: NVLS is not supported on MNNVL
// at all (2.21.5 only below a clique of 3 GPUs). Its nNodes > 1 test reads
// comm->nNodes before initTransportsRank has counted the nodes (0), so it
// never holds.
var nvlsEarly20 = nvlsEarly(Ref{Tag: tag2205, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	`NVLS is turned off silently when NCCL_NVLS_ENABLE is 0, the topology has 2 GPUs or fewer, the communicator is MNNVL, or the driver entry point cuDeviceGet is missing.`,
	func(gpus, _ int, mnnvl bool) (bool, string) {
		if mnnvl {
			return true, "MNNVL communicator: NVLS not supported on MNNVL"
		}
		if gpus <= 2 {
			return true, "2 GPUs or fewer in the topology"
		}
		return false, ""
	})

func back2_20_5(rs *Ruleset) {
	rs.Remove("G-REG-COLLNET-1", Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "registerIntraNodeBuffers"}, "CollNet's user-buffer registration arrives in 2.21.5")
	rs.Remove("G-REG-PROXY-1", Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "initCollProxyOp"}, "no proxy op is registered before 2.21.5: reg is always 0")
	rs.Replace(nvlsEarly20, "2.20.5 turns NVLS off on any MNNVL communicator; 2.21.5 only for an MNNVL clique of 2 GPUs or fewer")
	rs.Replace(netLibOneName(Ref{Tag: tag2205, File: "src/net.cc", Func: "ncclNetPluginInit"}), "2.20.5 opens libnccl-net-<NCCL_NET_PLUGIN>.so only; 2.21.5 tries the value first")
	rs.Replace(netLibNone19, "2.20.5 logs one line with dlerror's text; 2.21.5 one per failed name and a summary")
	rs.Replace(tunerLib19(Ref{Tag: tag2205, File: "src/misc/tuner.cc", Func: "ncclLoadTunerPlugin"}, false), "2.20.5 opens NCCL_TUNER_PLUGIN's value only, nothing when unset; 2.21.5 adds libnccl-tuner names and the net plugin's library")
	rs.Replace(tunerABI20, "2.20.5 looks up ncclTunerPlugin_v1 only; 2.21.5 v2 only (init with a context)")
	rs.Replace(tunerCall20, "2.20.5: a v1 tuner (no context); 2.21.5: v2")
	rs.Replace(en20, "2.20.5 disables NVLSTree, and NVLS without CollNet, on an MNNVL communicator and tunes it as one node; 2.21.5 reads nNodes alone")
	rs.Replace(mnnvl20, "2.20.5: NCCL_MNNVL, auto needs the whole communicator in one clique; 2.21.5: NCCL_MNNVL_ENABLE, auto needs a clique of more than one")
}

// netLibNone19 is G-NET-LIB-2 of 2.19.1–2.20.5: one INFO line with
// dlerror's text, then the internal networks.
var netLibNone19 = &Rule{
	ID: "G-NET-LIB-2", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "no library: internal networks",
	Doc:  `When the library does not open, NCCL logs dlerror's text and the name (errno ENOENT) or errno and dlerror's text (any other errno) and uses only its internal networks (IB, then Socket), for the whole process. gatesim prints errno 0 for a library that exists but does not load.`,
	Ref:  Ref{Tag: tag2205, File: "src/net.cc", Func: "ncclNetPluginInit"},
	Logs: []string{"NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation", "NET/Plugin : Plugin load returned %d : %s."},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		if s.lib != nil {
			r.emit(Verdict{Outcome: Skip, Why: "a plugin library was opened"})
			return
		}
		name := strings.Join(s.libTried, " ")
		_, dlerr, enoent := s.node.dlopen(name)
		log := fmt.Sprintf("NET/Plugin : Plugin load returned %d : %s.", 0, dlerr)
		if enoent {
			log = "NET/Plugin : dlerror=" + dlerr + " No plugin found (" + name + "), using internal implementation"
		}
		r.emit(Verdict{Outcome: Fail, Why: "no external network plugin: internal IB and Socket only", Log: []string{log}})
	},
}

// tunerLib19 is G-TUNER-LIB-1 of ncclLoadTunerPlugin (2.19.1–2.20.5): only
// NCCL_TUNER_PLUGIN's value is opened (no libnccl-tuner.so, no net plugin
// library). unsetLog is 2.19.x's failure line with no name: the check of
// the handle sits outside "if (name)", so an unset variable logs too.
func tunerLib19(ref Ref, unsetLog bool) *Rule {
	doc := `NCCL_TUNER_PLUGIN set (plain getenv, even empty): dlopen its value (RTLD_LAZY), nothing else; unset: no tuner and no library is opened. A failure is logged with the name and is sticky for the process.`
	if unsetLog {
		doc += ` An unset variable still reaches the failure line, with the name NULL; its errno is whatever an earlier call left, and gatesim prints the ENOENT form.`
	}
	return &Rule{
		ID: "G-TUNER-LIB-1", Layer: LayerLibrary, Cap: CapTuner, Title: "tuner library",
		Doc: doc, Ref: ref,
		Logs: []string{"NCCL_TUNER_PLUGIN set to %s", "Tuner: no plugin found '%s', using default tuner instead.",
			"Tuner: plugin load '%s' returned error (%d : %s), using default tuner instead."},
		node: true,
		init: func(r *initRun) {
			s, nd := r.cur, r.cur.node
			v, set := r.env.Lookup("NCCL_TUNER_PLUGIN")
			if !set {
				var logs []string
				if unsetLog {
					logs = []string{"Tuner: no plugin found '(null)', using default tuner instead."}
				}
				r.emit(Verdict{Outcome: Fail, Why: "NCCL_TUNER_PLUGIN unset: no tuner library is opened", Log: logs})
				return
			}
			r.comm.Evidence.Raise(CapTuner, LevelRequested)
			logs := []string{"NCCL_TUNER_PLUGIN set to " + v}
			var lib *Library
			var dlerr string
			var enoent bool
			if v == "" {
				lib = nd.mainProgram() // dlopen("") is the main program
			} else {
				lib, dlerr, enoent = nd.dlopen(v)
			}
			if lib != nil {
				s.tunerLib, s.tunerPath = lib, v
				r.emit(Verdict{Outcome: Pass, Level: LevelDiscovered, Why: "dlopen(" + v + ") opened " + lib.Path, Log: logs})
				return
			}
			if enoent {
				logs = append(logs, "Tuner: no plugin found '"+v+"', using default tuner instead.")
			} else {
				logs = append(logs, fmt.Sprintf("Tuner: plugin load '%s' returned error (%d : %s), using default tuner instead.", v, 0, dlerr))
			}
			r.emit(Verdict{Outcome: Fail, Why: "dlopen(" + v + ") failed: internal tuning", Log: logs, Facts: []Fact{F("tried", v)}})
		},
	}
}

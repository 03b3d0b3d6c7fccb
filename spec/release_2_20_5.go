package spec

import (
	"fmt"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.20.5 (tag v2.20.5-1, commit 48bb7fe), a backward delta from
// 2.21.5: what 2.20.5 had where 2.21.5 differs. The tuner ABI is v1, MNNVL
// is NCCL_MNNVL (auto: the whole communicator is one clique), Ring/LL is
// ×1/4 or ×1/3 of the bus bandwidth,
// and the Hopper LL ceilings and NVLS NVLink latencies are the older ones.
//
// Read at the tag and not modelled here (docs/releases.md lists them): NVLS
// off on any MNNVL communicator (ncclNvlsInit; the topology stage's NVLS
// search does not know MNNVL, so gatesim keeps 2.21.5's clique rule), the
// tuning model's MNNVL-as-one-node (ncclTopoTuneModel uses nNodes 1 and
// disables NVLSTree for MNNVL), the PXN rewiring across MNNVL peers and
// below PHB (ncclTopoComputePaths), NCCL_MAX_NVLS_ARITY 8 and the NVLS
// chunk size before NCCL_NVLS_CHUNKSIZE. The search behind an NVSwitch
// (neighbours first, not only) and sm90SpeedArrayIntra without 11 GB/s
// are topo.Apply2_20_5.

var tag2205 = "v2.20.5-1"

var tunerABI20 = tunerABI(Ref{Tag: tag2205, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"},
	`Look up ncclTunerPlugin_v1 (NCCL_TUNER_PLUGIN_SYMBOL) only: init(nRanks, nNodes, logger) without a context. Missing: the library is closed and the internal tuner is used.`,
	[]string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v1, using internal tuner instead.", "TUNER/Plugin: Using tuner plugin %s"},
	func(name, _ string, v int, _ []int) []string {
		if v == 0 {
			return []string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v1, using internal tuner instead."}
		}
		return []string{"TUNER/Plugin: Using tuner plugin " + name}
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
			clique, size, fabric := mnnvlClique(c)
			switch {
			case !fabric || clique == "":
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
	rs.SetConst("TunerABI", []int{1}, Ref{Tag: tag2205, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"})
	rs.DropParam("NCCL_MNNVL_ENABLE", Ref{Tag: tag2205, File: "src/init.cc", Func: "initTransportsRank"})
	rs.SetParamDefault("NCCL_MNNVL", -2, Ref{Tag: tag2205, File: "src/init.cc", Func: "MNNVL"})
	// no nvlsChunkSize yet: NVLSTree's chunk stays the Simple step size
	rs.SetConst("NVLSTreeChunkFromStep", true, Ref{Tag: tag2205, File: "src/enqueue.cc", Func: "computeCollChunkInfo"})
}

func tuningBack2_20_5(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2205}
	const model = "ncclTopoTuneModel"
	tuningSet(d, &t.HwLat[TuningHwNVLink][NVLS][Simple], 23, tuningCC, "hwLat")
	tuningSet(d, &t.HwLat[TuningHwNVLink][NVLSTree][Simple], 23, tuningCC, "hwLat")
	tuningSet(d, &t.LLMaxBw[TuningHopper][TuningN1], 87.7, tuningCC, "llMaxBws")
	tuningSet(d, &t.LLMaxBw[TuningHopper][TuningN2], 22.5, tuningCC, "llMaxBws")
	tuningSet(d, &t.LLMaxBw[TuningHopper][TuningN4], 19.0, tuningCC, "llMaxBws")
	tuningSet(d, &t.RingLLFactor, 1.0/3.0, tuningCC, model)
	tuningSet(d, &t.RingLLQuarter, 1.0/4.0, tuningCC, model)
	return d.changes, tuningJoinErrs(d.errs)
}

func back2_20_5(rs *Ruleset) {
	rs.Replace(tunerABI20, "2.20.5 looks up ncclTunerPlugin_v1 only; 2.21.5 v2 only (init with a context)")
	rs.Replace(tunerCall20, "2.20.5: a v1 tuner (no context); 2.21.5: v2")
	rs.Replace(mnnvl20, "2.20.5: NCCL_MNNVL, auto needs the whole communicator in one clique; 2.21.5: NCCL_MNNVL_ENABLE, auto needs a clique of more than one")
}

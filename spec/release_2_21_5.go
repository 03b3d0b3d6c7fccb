package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.21.5 (tag v2.21.5-1, commit ab2b89c), a backward delta from
// 2.22.3: what 2.21.5 had where 2.22.3 differs. Before 2.22.3's enqueue
// rewrite a tuner plugin (ABI v2 only) chooses the algorithm and protocol
// before the model runs, and every algorithm is connected at communicator
// init (no runtime connect). There is no COLLNET_DIRECT search:
// CollNetDirect runs on the TREE-pattern CollNet graph with the ring's
// channel count (topo.Apply2_21_5).
//
// Its group schedule is the one before the rewrite: a sorted queue, one
// aggregate per run of a function, reduction and datatype, each task's
// channels from getChannnelThreadInfo, and the plain tasks cut at
// maxBytesPerChannel (scheduleCollTasksToPlan, addCBDCollToPlan).
//
// Read at the tag and not modelled here (docs/releases.md lists them): the
// Ring backup's saved bandwidths not zeroed for a disabled protocol (2.22.3
// zeroes them in ncclTopoTuneModel), the tuner library's load lines, and
// NVLS AllGather needing nvlsSupport with an NVLS Sum type (2.22.3 exempts
// AllGather; the gates and the tuning model's prune share 2.22.3's P4).

var tag2215 = "v2.21.5-1"

// tunerABI21 is the v2-only loader: one symbol, named by
// NCCL_TUNER_PLUGIN_SYMBOL, and its log line without the word "symbol".
var tunerABI21 = tunerABI(Ref{Tag: tag2215, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"},
	`Look up ncclTunerPlugin_v2 (NCCL_TUNER_PLUGIN_SYMBOL) only. Missing: the library is closed and the internal tuner is used.`,
	[]string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v2, using internal tuner instead.", "TUNER/Plugin: Using tuner plugin %s"},
	func(name, _ string, v int, _ []int) []string {
		if v == 0 {
			return []string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v2, using internal tuner instead."}
		}
		return []string{"TUNER/Plugin: Using tuner plugin " + name}
	})

var tunerCall21 = ruleAt(tunerCall(Ref{Tag: tag2215, File: "src/enqueue.cc", Func: "getTunerInfo"}), Ref{Tag: tag2215, File: "src/enqueue.cc", Func: "getTunerInfo"},
	`Before the model, a loaded v2 tuner's getCollInfo receives the function, the byte count, collNetSupport, nvlsSupport and the pipelined-op count and may set the algorithm, the protocol and nChannels. A pair it sets is used as it is (topoGetAlgoInfo runs only for what it left undefined), so a pair NCCL would have ruled out is selected; a set nChannels is kept. A non-success return fails the collective.`)

var release2_21_5 = Release{
	Version: V2_21_5,
	Tag:     tag2215,
	Consts:  consts2_21_5,
	Topo:    topo.Apply2_21_5,
	Tuning:  tuningBack2_21_5,
	Rules:   back2_21_5,
}

// tuningBack2_21_5: the schedule before the enqueue rewrite (sorted
// queue, aggregates, getChannnelThreadInfo, maxBytesPerChannel), in which
// Tree does not always take NCCL_MAX_NTHREADS.
func tuningBack2_21_5(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2215}
	tuningSet(d, &t.Schedule, TuningScheduleR20, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.TreeAllThreads, false, enqueueCC, "getChannnelThreadInfo")
	// an aggregate's non-Ring latency counts ceil(numPipeOps / this)
	tuningSet(d, &t.MaxDevWorkBatchColls, 9, deviceH, "NCCL_MAX_WORK_ELEMENTS")
	return d.changes, tuningJoinErrs(d.errs)
}

func consts2_21_5(rs *Ruleset) {
	rs.SetConst("TunerABI", []int{2}, Ref{Tag: tag2215, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"})
	rs.DropParam("NCCL_RUNTIME_CONNECT", Ref{Tag: tag2215, File: "src/init.cc", Func: "initTransportsRank"})
}

func back2_21_5(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2215, File: file, Func: fn} }
	rs.Replace(tunerABI21, "2.21.5 looks up v2 only (NCCL_TUNER_PLUGIN_SYMBOL); 2.22.3 probes v3, then v2 through an adapter")
	rs.Replace(tunerCall21, "2.21.5: a v2 tuner names algorithm and protocol before the model; 2.22.3: the tuner edits the cost table")
	rs.Remove("G-EXEC-RTCONN-1", ref("src/init.cc", "initTransportsRank"), "runtime connect arrives in 2.22.3; 2.21.5 connects every algorithm at init")
	rs.Remove("G-EXEC-RTCONN-2", ref("src/init.cc", "initTransportsRank"), "NCCL_RUNTIME_CONNECT (default 1) arrives in 2.22.3")
}

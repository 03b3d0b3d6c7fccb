package spec

import "fmt"

// NCCL 2.21.5 (tag v2.21.5-1, commit ab2b89c), a backward delta from
// 2.22.3: what 2.21.5 had where 2.22.3 differs. Before 2.22.3's enqueue
// rewrite a tuner plugin (ABI v2 only) chooses the algorithm and protocol
// before the model runs, NVLS AllGather needs an NVLS reduction type, and
// every algorithm is connected at communicator init (no runtime connect).
//
// Read at the tag and not modelled here (docs/releases.md lists them): the
// channel and thread counts of getChannnelThreadInfo (the threadThreshold
// loop; gatesim keeps 2.22.3's partition of scheduleCollTasksToPlan), the
// aggregation of consecutive same-function operations, the Ring backup's
// saved bandwidths not zeroed for a disabled protocol (2.22.3 zeroes them
// in ncclTopoTuneModel), the TREE-pattern CollNetDirect graph (2.22.3
// searches a COLLNET_DIRECT pattern) and the tuner library's load lines.

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

// opSupport21 is G-SEL-OPSUP-1 before 2.22.3: an AllGather is an NVLS
// candidate only when ncclNvlsSupported accepts Sum (the reduction
// ncclAllGather records) on its datatype.
func opSupport21(ref Ref) *Rule {
	r := opSupport(ref, false)
	inner := r.perOp
	r.Doc = `collNetOK = the communicator's CollNet support and, for AllReduce, Reduce and ReduceScatter, the gathered matrix at (netOp, datatype), where Avg and PreMulSum look up Sum. nvlsOK = the communicator's NVLS support and ncclNvlsSupported(op, type) for every function: AllGather is recorded with Sum, so it needs int32/uint32/int64/uint64/half/bfloat16/float/double.`
	r.perOp = func(o *opRun) {
		if o.op.Func != AllGather || !o.comm.NVLSSupport || nvlsSupported(Sum, o.op.DataType) {
			inner(o)
			return
		}
		o.collNetOK, _ = o.comm.opSupport(o.op)
		o.nvlsOK = false
		out := Info
		if o.collNetOK {
			out = Pass
		}
		o.emit(Verdict{Outcome: out, Why: fmt.Sprintf("NVLS: AllGather is recorded with Sum and %s is not an NVLS Sum type", o.op.DataType.Short()),
			Facts: []Fact{F("collNetOK", o.collNetOK), F("nvlsOK", false)}})
	}
	return r
}

var release2_21_5 = Release{
	Version: V2_21_5,
	Tag:     tag2215,
	Consts:  consts2_21_5,
	Rules:   back2_21_5,
}

func consts2_21_5(rs *Ruleset) {
	rs.SetConst("TunerABI", []int{2}, Ref{Tag: tag2215, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"})
	rs.DropParam("NCCL_RUNTIME_CONNECT", Ref{Tag: tag2215, File: "src/init.cc", Func: "initTransportsRank"})
}

func back2_21_5(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2215, File: file, Func: fn} }
	rs.Replace(tunerABI21, "2.21.5 looks up v2 only (NCCL_TUNER_PLUGIN_SYMBOL); 2.22.3 probes v3, then v2 through an adapter")
	rs.Replace(tunerCall21, "2.21.5: a v2 tuner names algorithm and protocol before the model; 2.22.3: the tuner edits the cost table")
	rs.Replace(opSupport21(ref("src/enqueue.cc", "scheduleCollTasksToPlan")), "2.21.5: NVLS AllGather needs an NVLS Sum type; 2.22.3 exempts AllGather")
	rs.Replace(pruneRule(ref("src/enqueue.cc", "topoGetAlgoInfo"), pruneSet{nvlsAGRSOneNode: true}),
		"2.21.5 prunes NVLS AllGather without nvlsSupport like every function; 2.22.3 exempts it (P4)")
	rs.Remove("G-EXEC-RTCONN-1", ref("src/init.cc", "initTransportsRank"), "runtime connect arrives in 2.22.3; 2.21.5 connects every algorithm at init")
	rs.Remove("G-EXEC-RTCONN-2", ref("src/init.cc", "initTransportsRank"), "NCCL_RUNTIME_CONNECT (default 1) arrives in 2.22.3")
}

package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.21.5 (tag v2.21.5-1, commit ab2b89c), a backward delta from
// 2.22.3: what 2.21.5 had where 2.22.3 differs. Before 2.22.3's enqueue
// rewrite a tuner plugin (ABI v2 only) chooses the algorithm and protocol
// before the model runs, every algorithm is connected at communicator init
// (no runtime connect), and the net and tuner loaders log each failed name
// and a summary instead of "Could not find". There is no COLLNET_DIRECT
// search: CollNetDirect runs on the TREE-pattern CollNet graph with the
// ring's channel count (topo.Apply2_21_5).
//
// Its group schedule is the one before the rewrite: a sorted queue, one
// aggregate per run of a function, reduction and datatype, each task's
// channels from getChannnelThreadInfo, and the plain tasks cut at
// maxBytesPerChannel (scheduleCollTasksToPlan, addCBDCollToPlan); a kernel
// plan holds half of NCCL_WORK_FIFO_DEPTH's ncclWork structs, and a larger
// group goes on in another plan (ncclLaunchPrepare).
//
// An AllGather is an NVLS candidate only when nvlsSupport holds for the
// ncclSum ncclAllGather enqueues with and its datatype (not for int8 or
// uint8, which ncclNvlsSupported refuses): nvlsSupport does not
// count AllGather in (scheduleCollTasksToPlan) and topoGetAlgoInfo prunes
// NVLS without it, AllGather included; 2.22.3 does both the other way.

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

// opSup21 and prune21: nvlsSupport from the type alone, AllGather's
// ncclSum included, and no AllGather exemption in the prune (P4).
var opSup21 = ruleAt(opSup22, Ref{Tag: tag2215, File: "src/enqueue.cc", Func: "scheduleCollTasksToPlan"},
	`collNetOK = the communicator's CollNet support and, for AllReduce, Reduce and ReduceScatter, the gathered matrix at (netOp, datatype), where Avg and PreMulSum look up Sum. nvlsOK = the communicator's NVLS support and ncclNvlsSupported(op, type): int32/uint32/int64/uint64/half/bfloat16 with Sum, Min or Max; float/double with Sum only. AllGather is checked with the ncclSum it is enqueued with, so an int8 or uint8 AllGather has no NVLS.`)

var prune21 = pruneRule(Ref{Tag: tag2215, File: "src/enqueue.cc", Func: "topoGetAlgoInfo"},
	pruneSet{nvlsAGRSOneNode: true})

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
// Tree does not always take NCCL_MAX_NTHREADS; and ringbdw, saved before
// the enable matrix, is not zeroed for a protocol NCCL_PROTO or the LL128
// rule disables (2.22.3 zeroes it in the loop that zeroes the bandwidth),
// so the restore and the Ring backup may run such a protocol.
func tuningBack2_21_5(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2215}
	tuningSet(d, &t.Schedule, TuningScheduleR20, enqueueCC, "scheduleCollTasksToPlan")
	// cited at 2.22.3 (its changelog holds these): topoGetAlgoInfo gives
	// Tree NCCL_MAX_NTHREADS, and the ncclDevWork batch's byte budget
	// replaces the element counts
	tuningSet(d, &t.TreeAllThreads, false, enqueueCC, "topoGetAlgoInfo")
	// an aggregate's non-Ring latency counts ceil(numPipeOps / this)
	tuningSet(d, &t.MaxDevWorkBatchColls, 9, deviceH, "NCCL_MAX_DEV_WORK_BATCH_COLLS")
	// a registered collective's ncclWork holds 2 ncclWorkElemReg
	// (appendWorkElemColl), so registered groups use more of the budget
	tuningSet(d, &t.MaxWorkElementsReg, 2, deviceH, "ncclDevWorkCollReg, NCCL_MAX_DEV_WORK_BATCH_BYTES")
	tuningSet(d, &t.RingBdwKeepsProto, true, tuningCC, "ncclTopoTuneModel")
	// P4 without the AllGather exemption
	tuningSet(d, &t.PruneNVLS, TuningNVLSPruneR20, enqueueCC, "topoGetAlgoInfo")
	// the kernel-plan budget before NCCL_WORK_FIFO_BYTES: half of
	// NCCL_WORK_FIFO_DEPTH's ncclWork structs per plan, a new plan when
	// the next task's channels do not fit (ncclLaunchPrepare,
	// scheduleCollTasksToPlan)
	tuningSet(d, &t.WorkFifoDepth, 64<<10, "src/init.cc", "devCommSetup")
	return d.changes, tuningJoinErrs(d.errs)
}

func consts2_21_5(rs *Ruleset) {
	rs.SetConst("TunerABI", []int{2}, Ref{Tag: tag2215, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"})
	rs.DropParam("NCCL_RUNTIME_CONNECT", Ref{Tag: tag2215, File: "src/init.cc", Func: "initTransportsRank"})
	rs.DropParam("NCCL_WORK_ARGS_BYTES", Ref{Tag: tag2215, File: "src/init.cc", Func: "devCommSetup"})
	rs.DropParam("NCCL_WORK_FIFO_BYTES", Ref{Tag: tag2215, File: "src/init.cc", Func: "devCommSetup"})
	rs.SetConst("NVLSSupportAllGather", false, Ref{Tag: tag2215, File: "src/enqueue.cc", Func: "scheduleCollTasksToPlan"})
	rs.SetConst("P2PRoundSchedule", false, Ref{Tag: tag2215, File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan"})
	rs.SetConst("P2PSkipSelfInPlace", false, Ref{Tag: tag2215, File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan"})
	setCollNetFail(rs, tag2215, collNetFailInit(327, 356, 718))
}

func back2_21_5(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2215, File: file, Func: fn} }
	rs.Replace(ruleAt(regProxyRule, ref("src/enqueue.cc", "initCollProxyOp"), ""), "calcCollChunking builds the proxy op, initCollProxyOp before the enqueue rewrite")
	rs.Replace(groupPlanRule(ref("src/enqueue.cc", "scheduleCollTasksToPlan, getTunerInfo"), "%ld Bytes -> Algo %d proto %d time %f", groupPlanDoc20), "before the enqueue rewrite an aggregate is a sorted run of one function, reduction and datatype, decided with numPipeOps 1; 2.22.3 bins within 4× and passes the group's tasks per channel")
	rs.Replace(netLib21, "2.21.5 logs each failed name as it fails and never opens the main program (no STATIC_PLUGIN)")
	rs.Replace(netLibNone21, "2.21.5 summarises the failed loads (errno, dlerror) before \"Using internal network plugin.\"; 2.22.3 lists the missing names in \"Could not find\"")
	rs.Replace(netABI22.withRef(ref("src/net.cc", "ncclNetPluginInit")), "2.21.5 probes the net plugin's symbols in ncclNetPluginInit; 2.22.3 renames it ncclNetPluginLoad")
	rs.Replace(collNetABI(ref("src/net.cc", "ncclNetPluginInit"), "coll"), "2.21.5 logs \"Loaded coll plugin\"; 2.22.3 \"Loaded collnet plugin\"")
	rs.Replace(collNetSetup(ref("src/init.cc", "collNetTrySetup"), false, collNetOffSupport), "2.21.5 sets CollNet up in src/init.cc collNetTrySetup; 2.22.3 moves it to src/transport/coll_net.cc ncclCollNetSetup")
	rs.Replace(collNetMatrix.withRef(ref("src/init.cc", "collNetTrySetup")), "2.21.5 agrees the CollNet support matrix in src/init.cc collNetTrySetup; 2.22.3 moves it to src/transport/coll_net.cc ncclCollNetSetup")
	rs.Replace(tunerLib21, "2.21.5 logs each missing tuner candidate and a summary; 2.22.3 lists them in \"Could not find\"")
	rs.Replace(tunerABI21, "2.21.5 looks up v2 only (NCCL_TUNER_PLUGIN_SYMBOL); 2.22.3 probes v3, then v2 through an adapter")
	rs.Replace(tunerCall21, "2.21.5: a v2 tuner names algorithm and protocol before the model; 2.22.3: the tuner edits the cost table")
	rs.Replace(opSup21, "2.21.5's nvlsSupport needs an NVLS type for AllGather too (ncclSum and the datatype); 2.22.3 counts AllGather in")
	rs.Replace(prune21, "2.21.5 prunes NVLS without nvlsSupport, AllGather included; 2.22.3 exempts AllGather")
	rs.Replace(p2pSchedRule(ref("src/enqueue.cc", "scheduleP2pTasksToPlan; src/include/channel.h ncclChannelCompute"), p2pSchedDoc18), "2.21.5 cuts a peer's bytes into chunks on ncclChannelCompute's mirrored channels; 2.22.3 plans one work per round of comm->p2pSchedule on ncclP2pChannelForPart")
	rs.Replace(p2pCountRule(ref("src/enqueue.cc", "scheduleP2pTasksToPlan, calcP2pChunkSize"), p2pCountDoc20), "2.21.5 sizes chunks with calcP2pChunkSize on p2pChunkSize and picks LL per chunk; 2.22.3 counts parts per direction on the protocol's step")
	rs.Replace(p2pSelfRule(ref("src/enqueue.cc", "scheduleP2pTasksToPlan; src/device/sendrecv.h runSend"), p2pSelfDoc18), "2.21.5 keeps an in-place send/recv to self as tasks whose copy the kernel skips; 2.22.3 drops them without a work")
	rs.Remove("G-EXEC-RTCONN-1", ref("src/init.cc", "initTransportsRank"), "runtime connect arrives in 2.22.3; 2.21.5 connects every algorithm at init")
	rs.Remove("G-EXEC-RTCONN-2", ref("src/init.cc", "initTransportsRank"), "NCCL_RUNTIME_CONNECT (default 1) arrives in 2.22.3")
	rs.Remove("G-SCHED-BUDGET-1", ref("src/enqueue.cc", "ncclLaunchPrepare"), "the byte budget of the kernel arguments and the work FIFO arrives with 2.22.3's enqueue rewrite; 2.21.5 counts ncclWork structs against NCCL_WORK_FIFO_DEPTH (G-GROUP-PLAN-1)")
}

// netLib21 is G-NET-LIB-1 of 2.21.5: the two names of 2.22.3, but each
// failure is logged as it happens and the main program is never opened
// (no STATIC_PLUGIN name).
var netLib21 = &Rule{
	ID: "G-NET-LIB-1", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "net plugin library names",
	Doc:  `If NCCL_NET_PLUGIN (plain getenv) is set and non-empty, dlopen the value, then libnccl-net-<value>.so; otherwise dlopen libnccl-net.so. The first that opens wins. Each failure is logged: "No plugin found (name)" when errno is ENOENT, otherwise errno and dlerror's text.`,
	Ref:  Ref{Tag: tag2215, File: "src/net.cc", Func: "openNetPluginLib"},
	Logs: []string{"NET/Plugin: Plugin name set by env to %s", "NET/Plugin: No plugin found (%s)", "NET/Plugin: Plugin load returned %d : %s when loading %s"},
	node: true,
	init: func(r *initRun) {
		s, nd := r.cur, r.cur.node
		val, set := r.env.Lookup("NCCL_NET_PLUGIN")
		names := []string{"libnccl-net.so"}
		if set && val != "" {
			names = []string{val, "libnccl-net-" + val + ".so"}
			r.comm.Evidence.Raise(CapNetPlugin, LevelRequested)
		}
		var logs []string
		facts := []Fact{F("NCCL_NET_PLUGIN", envShow(val, set))}
		for _, name := range names {
			s.libTried = append(s.libTried, name)
			lib, dlerr, enoent := nd.dlopen(name)
			if lib != nil {
				s.lib, s.libName = lib, name
				if set && val != "" {
					logs = append(logs, "NET/Plugin: Plugin name set by env to "+name)
				}
				r.emit(Verdict{Outcome: Pass, Level: LevelDiscovered, Why: "dlopen(" + name + ") opened " + lib.Path,
					Facts: append(facts, F("tried", strings.Join(s.libTried, " "))), Log: logs})
				return
			}
			if enoent {
				s.libMissing = append(s.libMissing, name)
				logs = append(logs, "NET/Plugin: No plugin found ("+name+")")
			} else {
				logs = append(logs, fmt.Sprintf("NET/Plugin: Plugin load returned %d : %s when loading %s", 0, dlerr, name))
			}
		}
		r.emit(Verdict{Outcome: Fail, Why: "no candidate name opened: " + strings.Join(s.libTried, ", "),
			Facts: append(facts, F("tried", strings.Join(s.libTried, " "))), Log: logs})
	},
}

// netLibNone21 is G-NET-LIB-2 of 2.21.5: the summary of the failed names,
// then the internal networks.
var netLibNone21 = &Rule{
	ID: "G-NET-LIB-2", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "no library: internal networks",
	Doc:  `When no candidate opens, NCCL summarises the attempts (errno and dlerror of the last one) and uses only its internal networks (IB, then Socket), for the whole process. The last name's dlerror text was already taken when it failed other than ENOENT, so dlerror then gives NULL.`,
	Ref:  Ref{Tag: tag2215, File: "src/net.cc", Func: "summarizeOpenNetPluginErrors"},
	Logs: []string{"NET/Plugin: Plugin load returned %d : %s : when loading %s", "NET/Plugin: Most recent plugin load returned %d : %s. All attempts to load '%s' also failed.", "NET/Plugin: Using internal network plugin."},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		if s.lib != nil {
			r.emit(Verdict{Outcome: Skip, Why: "a plugin library was opened"})
			return
		}
		logs := []string{summarizeOpenErrors21("NET/Plugin", s.node, s.libTried, true),
			"NET/Plugin: Using internal network plugin."}
		r.emit(Verdict{Outcome: Fail, Why: "no external network plugin: internal IB and Socket only", Log: logs})
	},
}

// summarizeOpenErrors21 is 2.21.5's summary of failed plugin loads: it
// drops the trailing name of a list of several (the list is cut at its last
// separator), and prints errno and dlerror as the last dlopen left them.
// errno is 2 after a missing file and printed as 0 otherwise; dlerror is
// "(null)" when the loader already read it (taken is whether a non-ENOENT
// failure reads it, as the net loader does and the tuner loader does not).
func summarizeOpenErrors21(prefix string, nd *Node, tried []string, taken bool) string {
	if len(tried) == 0 {
		return ""
	}
	last := tried[len(tried)-1]
	_, dlerr, enoent := nd.dlopen(last)
	errno := 0
	if enoent {
		errno = 2
	} else if taken {
		dlerr = "(null)"
	}
	shown := tried
	if len(tried) > 1 {
		shown = tried[:len(tried)-1]
	}
	if len(shown) > 1 {
		return fmt.Sprintf("%s: Most recent plugin load returned %d : %s. All attempts to load '%s' also failed.", prefix, errno, dlerr, strings.Join(shown, " "))
	}
	return fmt.Sprintf("%s: Plugin load returned %d : %s : when loading %s", prefix, errno, dlerr, shown[0])
}

// tunerLib21 is G-TUNER-LIB-1 of 2.21.5: 2.22.3's candidates, each missing
// one logged as it fails, and the attempts summarised when none opens.
var tunerLib21 = &Rule{
	ID: "G-TUNER-LIB-1", Layer: LayerLibrary, Cap: CapTuner, Title: "tuner library",
	Doc: `Candidates (dlopen RTLD_LAZY): NCCL_TUNER_PLUGIN's value then libnccl-tuner-<value>.so, or libnccl-tuner.so; then, since a tuner may be packed into the net plugin, NCCL_NET_PLUGIN's value then libnccl-net-<value>.so, or libnccl-net.so. The first that opens is searched for tuner symbols. A missing name is logged as it fails ("No plugin found"); when none opens, the attempts are summarised. Loaded once per process; a failure is sticky.`,
	Ref: Ref{Tag: tag2215, File: "src/misc/tuner.cc", Func: "openTunerPluginLib"},
	Logs: []string{"TUNER/Plugin: NCCL_TUNER_PLUGIN set to %s", "TUNER/Plugin: No plugin found (%s)", "TUNER/Plugin: Plugin name set by env to %s",
		"TUNER/Plugin: Most recent plugin load returned %d : %s. All attempts to load '%s' also failed.", "TUNER/Plugin: Using internal tuner plugin."},
	node: true,
	init: func(r *initRun) {
		s, nd := r.cur, r.cur.node
		var logs []string
		v, set := r.env.Lookup("NCCL_TUNER_PLUGIN")
		tunerSet := set && v != ""
		if tunerSet {
			r.comm.Evidence.Raise(CapTuner, LevelRequested)
			logs = append(logs, "TUNER/Plugin: NCCL_TUNER_PLUGIN set to "+v)
		}
		cands := tunerCands22(r.env)
		nTuner := 1
		if tunerSet {
			nTuner = 2
		}
		for i, n := range cands {
			lib, _, enoent := nd.dlopen(n)
			if lib == nil {
				if enoent {
					logs = append(logs, "TUNER/Plugin: No plugin found ("+n+")")
				}
				continue
			}
			if (i < nTuner && tunerSet) || (i >= nTuner && r.env["NCCL_NET_PLUGIN"] != "") {
				logs = append(logs, "TUNER/Plugin: Plugin name set by env to "+n)
			}
			s.tunerLib, s.tunerPath = lib, lib.Path
			if i >= nTuner {
				r.emit(Verdict{Outcome: Info, Why: "no tuner library; " + n + " (the net plugin's name) opened " + lib.Path + " and is searched for a tuner", Log: logs})
				return
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelDiscovered, Why: "dlopen(" + n + ") opened " + lib.Path, Log: logs})
			return
		}
		logs = append(logs, summarizeOpenErrors21("TUNER/Plugin", nd, cands, false), "TUNER/Plugin: Using internal tuner plugin.")
		r.emit(Verdict{Outcome: Fail, Why: "no tuner library: internal tuning", Log: logs, Facts: []Fact{F("tried", strings.Join(cands, " "))}})
	},
}

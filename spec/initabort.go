package spec

import "fmt"

// What a failing communicator init does on its way out (G-INIT-ABORT-1).
// ncclCommInitRankDev hands its init job to ncclAsyncLaunch; outside a
// group (ncclGroupDepth 0) ncclAsyncLaunch runs the job at once and, when
// it fails, runs the job's destructor (ncclCommInitJobFree) before
// returning the error. From 2.24.3 the fail path of ncclCommInitRankDev
// frees the job too, so a job that failed is freed twice and glibc stops
// the process; 2.26.2 frees it there only when it was never launched
// (launchedJob). Before 2.24.3 the fail path frees no job: there is no
// rule.

// initAbortMsg is what glibc's free prints for the second free of the
// job's commId (a tcache-sized block), then abort().
const initAbortMsg = "free(): double free detected in tcache 2"

const initAbortTitle = "a failed init job freed twice on ncclCommInitRank's error path"

// initAbortDoc24 is G-INIT-ABORT-1 at 2.24.3–2.25.1.
const initAbortDoc24 = `When communicator init fails inside its init job (ncclCommInitRankFunc: the network, bootstrap, initTransportsRank's checks such as two ranks on one GPU, the topology, NCCL_ALGO/NCCL_PROTO parsing, the tuner) and ncclCommInitRank was called outside any group, ncclAsyncLaunch ran the job at once and freed it (ncclCommInitJobFree) before returning the error; ncclCommInitRankDev's fail path then frees the job again. After NCCL's WARN and the error traces up to the ncclAsyncLaunch line, glibc prints "free(): double free detected in tcache 2" and aborts the process: the call never returns, ncclGetLastError is never read. The error is returned as usual when the job never ran (errors before ncclAsyncLaunch: the config, the ranks, ncclInit), when the job is queued in a group (ncclCommInitRank between ncclGroupStart and ncclGroupEnd, as a process driving several GPUs does; ncclCommInitRankConfig and ncclCommInitRankScalable, which open a group of their own; ncclCommInitAll, which refuses a repeated device before any job and otherwise inits its ranks in a group): its failure comes back from ncclGroupEnd, which frees the job once. In a group the job is freed twice only when ncclAsyncLaunch refuses to queue it (blocking and nonblocking communicators in one group: G-GROUP-MIX-1 aborts too). gatesim reads procs per-gpu without a config as ncclCommInitRank outside a group. The message is glibc's; another allocator may stop or corrupt differently.`

// initAbortDoc26 is G-INIT-ABORT-1 from 2.26.2.
const initAbortDoc26 = `ncclCommInitRankDev's fail path frees the init job only when it was never handed to ncclAsyncLaunch (launchedJob): a job that failed is freed once, by ncclAsyncLaunch (outside a group) or by ncclGroupEnd (in a group), and ncclCommInitRank returns the init error. 2.24.3–2.25.1 freed it a second time and aborted the process.`

// initAbortOutside is G-INIT-ABORT-1's reading of how the failed
// communicator was asked for: "" when ncclCommInitRank ran the init job
// outside any group (the path that frees the job twice), else where the
// error comes back from.
func initAbortOutside(r *initRun) string {
	sys := r.comm.System
	switch {
	case r.failed.Call == "ncclCommInitAll":
		return "ncclCommInitAll refused its devlist before any init job existed"
	case sys.CommConfig.Len() > 0:
		return "ncclCommInitRankConfig opens a group of its own: the failed job comes back from its ncclGroupEndInternal, which frees it once"
	case sys.Procs != ProcsPerGPU:
		return "one process inits its node's GPUs with ncclCommInitRank in a group (procs " + sys.Procs.String() + "): the failed job comes back from ncclGroupEnd, which frees it once"
	}
	return ""
}

// initAbortRule is G-INIT-ABORT-1 at a release; whether the fail path
// frees a launched job again is the release's Consts.InitJobFreedTwice.
func initAbortRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-INIT-ABORT-1", Layer: LayerGroup, Title: initAbortTitle, Doc: doc, Ref: ref, onFail: true,
		init: func(r *initRun) {
			facts := []Fact{F("call", r.failed.Call), F("procs", r.comm.System.Procs.String()), F("config", r.comm.System.CommConfig.Len() > 0)}
			if why := initAbortOutside(r); why != "" {
				r.emit(Verdict{Outcome: Pass, Why: why + ": " + r.failed.Result.String() + " is returned", Facts: facts})
				return
			}
			if !r.rs.Consts.InitJobFreedTwice {
				r.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("ncclCommInitRank ran the init job outside a group and ncclAsyncLaunch freed it; the fail path leaves a launched job alone (launchedJob): %s is returned", r.failed.Result), Facts: facts})
				return
			}
			r.failed.Abort = &Abort{Rule: "G-INIT-ABORT-1", Message: initAbortMsg}
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ncclCommInitRank ran the init job outside a group; ncclAsyncLaunch freed the failed job and ncclCommInitRankDev's fail path frees it again: the process aborts after logging %s, which is never returned", r.failed.Result),
				Facts: facts, Log: []string{initAbortMsg}})
		},
	}
}

var (
	initAbort24 = initAbortRule(Ref{Tag: "v2.24.3-1", File: "src/init.cc", Func: "ncclCommInitRankDev, ncclCommInitJobFree"}, initAbortDoc24)
	initAbort26 = initAbortRule(Ref{Tag: "v2.26.2-1", File: "src/init.cc", Func: "ncclCommInitRankDev"}, initAbortDoc26)
)

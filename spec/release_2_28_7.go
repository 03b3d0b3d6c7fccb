package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.28.7 (tag v2.28.7-1) as a delta against 2.28.3: two-GPU
// communicators become NVLS candidates, NCCL_NET filters plugins before
// their init, the environment plugin, the communicator-spans-hosts flag of
// the search, and one Blackwell Ring/LL128 cap.

var tag287 = "v2.28.7-1"

var nvlsEarly287 = nvlsEarly(Ref{Tag: tag287, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	`NVLS is turned off silently when the topology has fewer than 2 GPUs (2.28.7+: two-GPU communicators become NVLS candidates), or when the driver entry point cuDeviceGet is missing.`,
	nvlsOffBelow2)

// nvlsOffBelow2 is ncclNvlsInit's GPU-count exit from 2.28.7.
func nvlsOffBelow2(gpus, _ int, _ bool) (bool, string) {
	if gpus < 2 {
		return true, "fewer than 2 GPUs in the topology"
	}
	return false, ""
}

var netState287 = netState(Ref{Tag: tag287, File: "src/plugin/net.cc", Func: "ncclNetInit"},
	`Candidates in order: the NCCL_NET_PLUGIN entries, IB, Socket. NCCL_NET is compared before init (2.28.7+): a candidate whose name does not match is not initialised at all. init() is called for every communicator, devices() on the first successful init; a failure disables the network and its CollNet.`,
	netSelectOpts{filterBeforeInit: true, ibUsingOnZero: true, initLog: true})

// envPlugin is G-ENV-PLUGIN-1 (2.28.7+).
var envPlugin = &Rule{
	ID: "G-ENV-PLUGIN-1", Layer: LayerEnv, Title: "environment plugin",
	Doc:  `NCCL_ENV_PLUGIN (plain getenv): "none" keeps the internal plugin (getenv). Otherwise the name is resolved like a net plugin (default libnccl-env.so) and ncclEnvPlugin_vN is looked up over the release's window (v1; v2 then v1 from 2.30.7); when accepted, every ncclGetEnv returns the plugin's answer. A plugin whose init fails makes ncclGetUniqueId and communicator init fail; a missing library or symbol falls back silently.`,
	Ref:  Ref{Tag: tag287, File: "src/plugin/env.cc", Func: "ncclEnvPluginLoad"},
	Logs: []string{"NCCL_ENV_PLUGIN set by environment to %s", "ENV/Plugin: Using %s (v%d)", "Successfully loaded external env plugin %s", "External env plugin %s is unsupported"},
	init: func(r *initRun) {
		nd := r.nodes[0].node
		val, set := r.env.Lookup("NCCL_ENV_PLUGIN")
		var logs []string
		name := "" // the default, libnccl-env.so
		if set {
			logs = append(logs, "NCCL_ENV_PLUGIN set by environment to "+val)
			if strings.EqualFold(val, "none") {
				r.emit(Verdict{Outcome: Skip, Why: "NCCL_ENV_PLUGIN=none: the process environment is read directly", Log: logs})
				return
			}
			name = val
		}
		try := namesCond.libNames("libnccl-env", name)
		var lib *Library
		for _, n := range try {
			if l, _, _ := nd.open(n); l != nil {
				lib = l
				break
			}
		}
		if lib == nil {
			logs = append(logs, "ENV/Plugin: Could not find: "+strings.Join(try, " "))
			r.emit(Verdict{Outcome: Skip, Why: "no env plugin library: the process environment is read directly", Log: logs})
			return
		}
		v := probe(lib.EnvSymbols, r.rs.Consts.EnvABI)
		if v == 0 {
			logs = append(logs, "External env plugin "+lib.Path+" is unsupported")
			r.emit(Verdict{Outcome: Fail, Why: lib.Path + " exports no ncclEnvPlugin symbol of " + joinInts(r.rs.Consts.EnvABI) + ": the process environment is read directly", Log: logs})
			return
		}
		logs = append(logs, fmt.Sprintf("ENV/Plugin: Using %s (v%d)", lib.Path, v), "Successfully loaded external env plugin "+lib.Path)
		if lib.EnvInitError != "" {
			r.emit(Verdict{Outcome: Fail, Why: "env plugin init failed (" + lib.EnvInitError + "): communicator init fails", Log: logs})
			r.fail(InternalError, "env plugin init failed: "+lib.EnvInitError)
			return
		}
		var changed []string
		for _, k := range lib.EnvVars.Names() {
			r.env[k] = lib.EnvVars[k]
			changed = append(changed, k+"="+lib.EnvVars[k])
		}
		r.emit(Verdict{Outcome: Pass, Why: "every ncclGetEnv goes through " + lib.Path, Log: logs,
			Facts: []Fact{F("answers", strings.Join(changed, " "))}})
	},
}

var release2_28_7 = Release{
	Version: V2_28_7,
	Tag:     tag287,
	Consts:  consts2_28_7,
	Topo:    topo.Apply2_28_7,
	Tuning:  tuningApply2_28_7,
	Rules:   apply2_28_7,
}

func consts2_28_7(rs *Ruleset) {
	rs.SetConst("EnvABI", []int{1}, Ref{Tag: tag287, File: "src/plugin/env.cc", Func: "ncclEnvPluginLoad"})
	rs.SetConst("GinABI", []int{11}, Ref{Tag: tag287, File: "src/plugin/net.cc", Func: "ncclNetPluginLoad"})
	rs.SetConst("P2PGroupSchedule", true, Ref{Tag: tag287, File: "src/init.cc", Func: "initTransportsRank"})
	rs.SetConst("P2PTypeLog", 3, Ref{Tag: tag287, File: "src/transport.cc", Func: "ncclTransportCheckP2pType"})
	rs.SetConst("P2PBatchEpoch", true, Ref{Tag: tag287, File: "src/enqueue.cc", Func: "addWorkBatchToPlan"})
	rs.SetConst("ConfigResetLog", true, Ref{Tag: tag287, File: "src/init.cc", Func: "envConfigOverride"})
	rs.SetConst("GinInternal", GinInternalNet, Ref{Tag: tag287, File: "src/plugin/net.cc", Func: "initPluginLibsOnceFunc, ncclNetPluginInit"})
	rs.SetParamDefault("NCCL_GIN_TYPE", -1, Ref{Tag: tag287, File: "src/gin/gin_host.cc", Func: "ncclParamGinType"})
	rs.SetParamDefault("NCCL_GIN_ENABLE", 1, Ref{Tag: tag287, File: "src/gin/gin_host.cc", Func: "ncclParamGinEnable"})
	setCollNetFail(rs, tag287, collNetFailSetup(371, 399, 1590))
	rs.SetConst("DevCommForm", devComm287, Ref{Tag: tag287, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal"})
	rs.SetConst("GinPools", GinPools{Signals: 64 << 10, Counters: 64 << 10, SignalBound: 1 << 30, CounterBound: 1 << 30, Invalid: "%s has invalid value."},
		Ref{Tag: tag287, File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce, ncclGinAllocSignalsCounters"})
	// NCCL_NET_MAX_REQUESTS 32 × NCCL_NET_IB_MAX_RECVS 8
	rs.SetConst("GinQueue", GinQueue{GdakiQPDepth: 128, ProxyMaxRequests: 32 * 8},
		Ref{Tag: tag287, File: "src/transport/gdaki/gin_host_gdaki.cc", Func: "ncclGinGdakiCreateContext; src/gin/gin_host_proxy.cc ncclGinProxyCreateContext"})
}

// tuningApply2_28_7: perChMaxRingLL128Bws[Blackwell][N2] (N1 and N4 follow
// in 2.29.2).
func tuningApply2_28_7(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag287}
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN2], 34.6, tuningCC, "ncclTunerConstantsDefaults")
	// ncclDevComm gains the GIN barrier, contexts and signal fields (88 → 200
	// bytes): a bin holds 56 symmetric tasks instead of 58
	tuningSet(d, &t.SymArgsBytes, 224, symKernelsH, "struct ncclSymkDevWorkArgs")
	tuningSet(d, &t.SymRangeOwnEnds, true, "src/device/symmetric/primitives.cuh", "ncclSymkArgsHandler::getWorkRange, getWorkRangeFused")
	return d.changes, tuningJoinErrs(d.errs)
}

func apply2_28_7(rs *Ruleset) {
	rs.Replace(symRangeRule(Ref{Tag: tag287, File: "src/scheduler/symmetric_sched.cc", Func: "ncclSymmetricTaskScheduler; src/device/symmetric/primitives.cuh ncclSymkArgsHandler::getWorkRange, getWorkRangeFused"},
		"From 2.28.7 each end of a block's range reads its own task, and a task's owned blocks start after the block before them only when that block ends inside the same task, so the blocks' pieces cover every task's bytes exactly once."),
		"the work-range decode reads each end's own task (2.28.7)")
	rs.Add(envPlugin, "G-ENV-SRC-1", "environment plugin (2.28.7)")
	rs.Replace(p2pSchedRule(Ref{Tag: tag287, File: "src/init.cc", Func: "ncclP2pSchedule; src/include/channel.h ncclP2pChannelBaseForRound"}, p2pSchedDoc287), "comm->p2pSchedule walks groups of NCCL_P2P_SCHEDULE_GROUP_SIZE local ranks and the base counts group deltas (2.28.7)")
	// after the network choice: the GIN object is assigned with its net
	// plugin (ncclNetPluginAssignToComm)
	rs.Add(ginConnRule(Ref{Tag: tag287, File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"}), "G-TRANSPORT-CONN-1", "GIN connects for a device communicator the user asks GIN of; NCCL_GIN_ENABLE=0 WARNs \"GIN is disabled.\" (2.28.7)")
	rs.Add(ginInNet(Ref{Tag: tag287, File: "src/plugin/net.cc", Func: "ncclNetPluginLoad, ncclNetPluginAssignToComm"}), "G-NET-SEL-1", "ncclGinPlugin_v11 in the net plugin's library (2.28.7)")
	rs.Replace(nvlsEarly287, "two-GPU communicators try NVLS (2.28.7)")
	rs.Replace(netState287, "NCCL_NET filters before init (2.28.7)")
	rs.Replace(tunerLib28(Ref{Tag: tag287, File: "src/plugin/tuner.cc", Func: "ncclTunerPluginLoad"}, tunerLibOpts{form: namesCond, common: true}), `no ". Using internal tuner plugin." after "Could not find" (2.28.7)`)
	rs.Replace(devCommRule(Ref{Tag: tag287, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal; src/gin/gin_host.cc ncclGinConnectOnce"}, devCommDoc287), "a device communicator asks GIN with ginForceEnable, signals or counters: min(4, NCCL_GIN_NCONTEXTS) contexts (2.28.7)")
	rs.Add(devCommShareRule(Ref{Tag: tag287, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal; src/gin/gin_host.cc ncclGinAllocSignalsCounters"}, shareDoc287), "G-DEVCOMM-1", "a communicator's device communicators share one GIN connection, its contexts and 64 Ki signal and counter pools (2.28.7)")
	rs.Add(devCommGinTypeRule(Ref{Tag: tag287, File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"}, ginTypeDoc287), "G-DEVCOMM-SHARE-1", `NCCL_GIN_TYPE other than the connected GIN's: "GIN-capable device type mismatch." (2.28.7)`)
	rs.Replace(devCommDestroyRule(Ref{Tag: tag287, File: "src/dev_runtime.cc", Func: "ncclDevCommDestroy; src/gin/gin_host.cc ncclGinFreeSignalsCounters; src/allocator.cc ncclSpaceAlloc, ncclSpaceFree"}, destroyDoc287), "ncclDevCommDestroy gives signals and counters back to the pools, first fit, not reset; the GIN connection stays (2.28.7)")
	rs.Add(devCommQueueRule(Ref{Tag: tag287, File: "src/transport/gdaki/gin_host_gdaki.cc", Func: "ncclGinGdakiCreateContext; src/gin/gin_host_proxy.cc ncclGinProxyCreateContext"}, queueDoc287), "G-DEVCOMM-GINTYPE-1", "GDAKI send queues of NCCL_GIN_GDAKI_QP_DEPTH, proxy queues of NCCL_GIN_PROXY_QUEUE_SIZE (2.28.7)")
}

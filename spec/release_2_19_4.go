package spec

import (
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// NCCL 2.19.4 (tag v2.19.4-1, commit 88d44d7), a backward delta from
// 2.20.3: what 2.19.4 had where 2.20.3 differs. There is no multi-node
// NVLink, the net and CollNet ABI window is v7..v5 (CollNet v7 has no
// iallgather/ireducescatter), CollNetDirect serves AllReduce only, the
// tuner is asked in getAlgoInfo, the per-operation [TUNING] line is TRACE
// only, and ncclTopoPostset neither raises nChannels to nvlsChannels nor
// bounds the sm90 doubling by 16; SM90_NVLINK_BW is 20.0 and a network
// peer gets NCCL_NCHANNELS_PER_NET_PEER (2) p2p channels, a negative value
// (-1 included, which 2.20.3 reads as its NIC rule) leaving the peer out
// of the minimum (src/graph/paths.cc ncclTopoGetNchannels,
// ncclTopoComputeP2pChannels; topo.NetPeerChannelsFixed). Its tuning
// tables equal 2.20.3's (v2.19.4-1.txt). Its group schedule aggregates
// consecutive calls at NCCL_AGG_CHANNEL_SIZE and puts every task on its
// least loaded channels (scheduleCollTasksToPlan, addCollToPlan).
//
// The search's 15 % bonus for graphs not crossing NICs and crossNic rings
// without odd-channel NIC pairing are topo.Apply2_19_4.

var tag2194 = "v2.19.4-1"

func ref2194(file, fn string) Ref { return Ref{Tag: tag2194, File: file, Func: fn} }

// netABI19 and collNetABI19 probe v7, v6, v5: the same rule as 2.20.3's
// with the window one shorter.
var netABI19 = withLogs(ruleAt(netABI22, ref2194("src/net.cc", "ncclNetPluginInit"),
	`Probe ncclNetPlugin_v7, _v6, _v5 in that order; the first found is adapted to v7. v4 and older are not supported: with none of these the library is closed, only the internal networks remain, and CollNet is not probed.`),
	"NET/Plugin: Failed to find ncclNetPlugin_v7 symbol.", "NET/Plugin: Loaded net plugin %s (v6)",
	"NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.")

var collNetABI19 = withLogs(ruleAt(collNetABI(ref2194("src/net.cc", "ncclNetPluginInit"), "coll"), ref2194("src/net.cc", "ncclNetPluginInit"),
	`Only after a net symbol was accepted in the same library: probe ncclCollNetPlugin_v7, _v6, _v5. Failure is not fatal: the net plugin is used without CollNet. The internal networks never provide CollNet. No CollNet ABI of this release has iallgather or ireducescatter.`),
	"NET/Plugin: Failed to find ncclCollNetPlugin_v7 symbol.", "NET/Plugin: Loaded coll plugin %s (v6)",
	"NET/Plugin: Failed to find ncclCollNetPlugin symbol (>= v5). ncclCollNetPlugin symbols v4 and lower are not supported.")

// withLogs returns a copy of r with NCCL's format strings of another tag.
func withLogs(r *Rule, logs ...string) *Rule {
	c := *r
	c.Logs = logs
	return &c
}

var impl19Rule = implRule(ref2194("src/graph/tuning.cc", "ncclTopoTuneModel"),
	`Modelled cells: Broadcast and Reduce on Ring only; AllGather and ReduceScatter on Ring and NVLS; AllReduce on every algorithm. NVLS and NVLSTree have Simple only. Anything else keeps bandwidth 0: CollNetDirect serves AllReduce only.`,
	impl19)

var bw2_19 = collNetBw(ref2194("src/graph/tuning.cc", "ncclTopoTuneModel"),
	`CollNet protocols other than Simple get no bandwidth (CollNetDirect has no AllGather or ReduceScatter to check).`, false, false)

var nvlsEarly19 = nvlsEarly(ref2194("src/transport/nvls.cc", "ncclNvlsInit"),
	`NVLS is turned off silently when NCCL_NVLS_ENABLE is 0, the topology has 2 GPUs or fewer, or the driver entry point cuDeviceGet is missing.`,
	func(gpus, _ int, _ bool) (bool, string) {
		if gpus <= 2 {
			return true, "2 GPUs or fewer in the topology"
		}
		return false, ""
	})

var tunerCall19 = ruleAt(tunerCall20, ref2194("src/enqueue.cc", "getAlgoInfo"),
	`Before the model, a loaded v1 tuner's getCollInfo (no context argument) receives the function, the byte count, collNetSupport, nvlsSupport and the pipelined-op count and may set the algorithm, the protocol and nChannels. A pair it sets is used as it is (topoGetAlgoInfo runs only for what it left undefined); a set nChannels overrides the one topoGetAlgoInfo computed. A non-success return fails the collective.`)

// prune19 is 2.22.3's pruning as topoGetAlgoInfo writes it: NVLS
// AllGather is exempt from nvlsSupport (2.20.3 drops the exemption). Its
// nvlsSupport is 2.20.3's (an NVLS type for AllGather's ncclSum too), so
// the exemption decides an int8 AllGather.
var prune19 = pruneRule(ref2194("src/enqueue.cc", "topoGetAlgoInfo"),
	pruneSet{nvlsAGExempt: true, nvlsAGRSOneNode: true})

var en19 = enableRuleWarn(ref2194("src/graph/tuning.cc", "ncclTopoTuneModel"),
	`After NCCL_ALGO/NCCL_PROTO: NVLSTree off on one node; without CollNet support CollNetDirect and CollNetChain off, and NVLS off across nodes, and if that leaves Ring, Tree, NVLS and NVLSTree all off (a hard-set CollNet request) Ring and Tree are re-enabled with a WARN on rank 0; with CollNet, CollNetDirect off without an NVSwitch. A disabled algorithm or protocol gets bandwidth 0.`)

var release2_19_4 = Release{
	Version: V2_19_4,
	Tag:     tag2194,
	Consts:  consts2_19_4,
	Topo:    topo.Apply2_19_4,
	Tuning:  tuningBack2_19_4,
	Rules:   back2_19_4,
	// Against 2.19.3 only the lines a refused CollNet group prints from
	// move (CollNetFail); nothing else 2.19.4 changes decides anything
	// gatesim models: connection setup in rounds of
	// NCCL_CONNECT_ROUND_MAX_PEERS with NCCL_REPORT_CONNECT_PROGRESS
	// (src/transport.cc ncclTransportP2pSetup), the p2p fusion reset
	// inside the chunk loop (src/enqueue.cc scheduleP2pTasksToPlan) and
	// NCCL_WARN_ENABLE_DEBUG_INFO (src/debug.cc).
}

func consts2_19_4(rs *Ruleset) {
	rs.SetConst("NetABI", []int{7, 6, 5}, ref2194("src/net.cc", "ncclNetPluginInit"))
	rs.DropParam("NCCL_MNNVL", ref2194("src/init.cc", "initTransportsRank"))
	rs.SetConst("P2PMaxHalved", true, ref2194("src/enqueue.cc", "scheduleP2pTasksToPlan"))
	rs.SetConst("P2PHalveOneNodeOnly", true, ref2194("src/enqueue.cc", "scheduleP2pTasksToPlan"))
	rs.SetConst("P2PMinPartHalfStepNet", false, ref2194("src/enqueue.cc", "scheduleP2pTasksToPlan"))
	// addP2pToPlan asks for no registration record before 2.20.3
	rs.SetConst("P2PReg", tuning.P2PRegNone, ref2194("src/enqueue.cc", "addP2pToPlan"))
	// A backward delta's value change is cited at the next release's tag
	// (2.20.3's changelog holds it), so these name 2.20.3's function.
	// NCCL_NVLSTREE_MAX_CHUNKSIZE arrives in 2.20.3: computeColl's cap is fixed
	rs.SetConst("NVLSTreeMaxChunkSizeEnv", false, Ref{Tag: tag2203, File: "src/enqueue.cc", Func: "computeCollChunkInfo"})
	// computeCollChunkInfo (2.20.3) drops the Tree/Simple depth halving
	rs.SetConst("TreeSimpleChunkByDepth", true, Ref{Tag: tag2203, File: "src/enqueue.cc", Func: "computeCollChunkInfo"})
	setCollNetFail(rs, tag2194, collNetFailInit(336, 368, 664))
}

func tuningBack2_19_4(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2194}
	// a registered NVLS buffer: 5 or 4 channels, at most nvlsChannels, on
	// any number of nodes
	tuningSet(d, &t.RegNVLS, TuningRegNVLSPool, enqueueCC, "registerIntraNodeBuffers")
	tuningSet(d, &t.CollNetAGRS, TuningCollNetAGRSNone, tuningCC, "ncclTopoTuneModel")
	// no MNNVL in the model (no comm->MNNVL yet)
	tuningSet(d, &t.MNNVLOneNode, false, tuningCC, "ncclTopoTuneModel")
	tuningSet(d, &t.OpLine, TuningOpLineTrace, enqueueCC, "topoGetAlgoInfo")
	// NVLS AllGather exempt from nvlsSupport (P4 as 2.22.3 has it)
	tuningSet(d, &t.PruneNVLS, TuningNVLSPruneR22, enqueueCC, "topoGetAlgoInfo")
	// the schedule of NCCL_AGG_CHANNEL_SIZE and least loaded channels
	tuningSet(d, &t.Schedule, TuningScheduleR18, enqueueCC, "scheduleCollTasksToPlan")
	// the macros are gone at 2.20.3, whose changelog cites this: its
	// scheduler that no longer reads them
	tuningSet(d, &t.AggChannelSize, 1<<21, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.AggCollNetBytes, 256<<10, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.MinChannelSize, 8*64, enqueueCC, "scheduleCollTasksToPlan")
	// NCCL_PARAM(AggChannelSize, "AGG_CHANNEL_SIZE", -2), read into
	// comm->channelSize by commAlloc; a positive value replaces both
	// bytes per channel of scheduleCollTasksToPlan
	tuningSet(d, &t.AggChannelSizeDefault, -2, "src/init.cc", "commAlloc")
	// the alignment macros of the channel split arrive with it in 2.20.3
	for _, a := range []struct {
		p     *int64
		macro string
	}{
		{&t.SimpleAlignment, "NCCL_SIMPLE_ALIGNMENT"},
		{&t.LL128AlignPerWarp, "NCCL_LL128_ALIGNMENT_PER_WARP"},
		{&t.LLAlignPerThread, "NCCL_LL_ALIGNMENT_PER_THREAD"},
		{&t.BytesAlignment, "NCCL_BYTES_ALIGNMENT"},
	} {
		tuningSet(d, a.p, 0, "src/include/enqueue.h", a.macro)
	}
	return d.changes, tuningJoinErrs(d.errs)
}

func back2_19_4(rs *Ruleset) {
	rs.Remove("G-REG-P2P-1", ref2194("src/enqueue.cc", "addP2pToPlan"), "2.19.4 registers no send/recv buffer; 2.20.3 sends a ncclCommRegister buffer over the network from the user buffer")
	rs.Remove("G-MNNVL-1", ref2194("src/init.cc", "initTransportsRank"), "multi-node NVLink (NCCL_MNNVL, the NVML fabric clique) arrives in 2.20.3")
	rs.Remove("G-COLLNET-ABI-2", ref2194("src/net.cc", "ncclNetPluginInit"), "CollNet v8 with iallgather/ireducescatter arrives in 2.20.3; 2.19.4's newest CollNet ABI is v7")
	rs.Replace(netABI19, "2.19.4 probes net v7..v5; 2.20.3 v8..v5")
	rs.Replace(groupPlanRule(ref2194("src/enqueue.cc", "scheduleCollTasksToPlan, getAlgoInfo"), "%ld Bytes -> Algo %d proto %d time %f", groupPlanDoc18), "2.19.4 aggregates adjacent queued tasks and decides them with numPipeOps = opPerChannel; 2.20.3 sorts the queue and passes 1")
	rs.Replace(collNetABI19, "2.19.4 probes CollNet v7..v5; 2.20.3 v8..v5")
	rs.Replace(nvlsEarly19, "2.19.4 has no MNNVL exit; 2.20.3 turns NVLS off on any MNNVL communicator")
	rs.Replace(impl19Rule, "CollNetDirect AllGather/ReduceScatter arrive in 2.20.3")
	rs.Replace(bw2_19, "2.20.3 checks the CollNet entry points and heads for multi-node CollNetDirect AllGather/ReduceScatter")
	rs.Replace(en19, "2.19.4 WARNs when it re-enables Ring and Tree for a hard-set CollNet; 2.20.3 does it silently")
	rs.Replace(tunerLib19(ref2194("src/misc/tuner.cc", "ncclLoadTunerPlugin"), true), "2.19.4 reaches the failure line with NCCL_TUNER_PLUGIN unset (\"Tuner: no plugin found '(null)'\"); 2.20.3 checks the handle only when the variable is set")
	rs.Replace(tunerCall19, "2.19.4 asks the tuner in getAlgoInfo; 2.20.3 in getTunerInfo")
	rs.Replace(prune19, "2.19.4 exempts NVLS AllGather from nvlsSupport in topoGetAlgoInfo; 2.20.3 does not")
	rs.Replace(p2pCountRule(ref2194("src/enqueue.cc", "scheduleP2pTasksToPlan, calcP2pChunkSize"), p2pCountDoc183), "2.19.4 halves nChannelsMin and nChannelsMax on one node only and keeps chunks of p2pChunkSize/8 across nodes; 2.20.3 halves nChannelsMin only, everywhere, and cuts chunks of half a step across nodes")
}

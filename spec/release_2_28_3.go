package spec

import (
	"fmt"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.28.3 (tag v2.28.3-1), the system libnccl.so.2 of the project's GPU
// machine, as a delta against 2.22.3. Between them: the common plugin loader
// and per-plugin state machine (2.26-2.27), the per-function NCCL_ALGO grammar
// and the end of the Ring backup (2.24.3), PAT (2.23.4), per-operation CollNet
// arity (2.23.4, CollNetChain 2.28.3), NVLS channel defaults per architecture
// (2.25) and the soft NVLS bind failure (2.27.3).

var tag283 = "v2.28.3-1"

var netState28 = netState(Ref{tag283, "src/plugin/net.cc", "ncclNetPluginInit"},
	`Candidates in order: the NCCL_NET_PLUGIN entries, IB, Socket. init() is called for every communicator; devices() on the first successful init; a failure disables the network and its CollNet. NCCL_NET is compared after init, when the plugin is assigned to the communicator.`,
	netSelectOpts{ibUsingOnZero: true, initLog: true})

var ib28 = ib22.withRef(Ref{tag283, "src/transport/net_ib.cc", "ncclIbInitDevices"})
var socket28 = socket22.withRef(Ref{tag283, "src/transport/net_socket.cc", "ncclNetSocketInit"})

var netChoose28 = netChoose(Ref{tag283, "src/plugin/net.cc", "ncclNetInit"},
	`The communicator is assigned the first candidate that initialises with devices, whose name matches NCCL_NET (case-insensitive) when set, and whose device version is accepted; other external plugins are then disabled for the process. None: WARN "Failed to initialize any NET plugin" and ncclInvalidUsage from communicator init.`,
	"Failed to initialize any NET plugin", true)

var mnnvl28 = mnnvlRule(Ref{tag283, "src/mnnvl.cc", "ncclMnnvlCheck"},
	`Checked when there is more than one node and NCCL_MNNVL_ENABLE is not 0 (and the P2P level is not 0), or when NCCL_MNNVL_ENABLE is 1: cuMem, fabric-handle support, a complete fabric and a non-zero cluster UUID on every rank, a clique of more than one; failures are silent (MNNVL off). A clique fuses the topology of its nodes.`, false)

var nvlsEarly283 = nvlsEarly(Ref{tag283, "src/transport/nvls.cc", "ncclNvlsInit"},
	`NVLS is turned off silently when the topology has 2 GPUs or fewer (2.25.1-2.28.3), or when the driver entry point cuDeviceGet is missing.`,
	func(gpus, _ int, _ bool) (bool, string) {
		if gpus <= 2 {
			return true, "2 GPUs or fewer in the topology"
		}
		return false, ""
	})

var nvlsChan28 = nvlsChan.withRef(Ref{tag283, "src/transport/nvls.cc", "ncclNvlsInit"})

var collNetGraph28 = collNetGraph(Ref{tag283, "src/graph/search.cc", "ncclTopoCompute"}, func(n int) int { return min(8, n) })
var nvlsGraph28 = nvlsGraph(Ref{tag283, "src/graph/search.cc", "ncclTopoCompute"}, func(n int) int { return min(32, n) })

var impl28Rule = implRule(Ref{tag283, "src/graph/tuning.cc", "ncclTopoTuneModel"},
	`Modelled cells: Broadcast and Reduce on Ring only; AllGather and ReduceScatter on Ring, NVLS, CollNetDirect and PAT; AllReduce on every algorithm but PAT. NVLS, NVLSTree and PAT have Simple only (PAT also needs ncclPatEnable).`,
	impl28)

var bw1_28 = graphBwRule(Ref{tag283, "src/graph/tuning.cc", "ncclTopoTuneModel"},
	`Bandwidth is nChannels × per-channel bandwidth of the algorithm's graph (PAT and Tree read the tree graph): a graph with no channel gives no bandwidth, and NVLS/NVLSTree are skipped when the NVLS graph has fewer than 2 channels.`, 2)

var bw2_28 = collNetBwRule(Ref{tag283, "src/graph/tuning.cc", "ncclTopoTuneModel"},
	`CollNet protocols other than Simple get no bandwidth. Across nodes, NVLS and CollNetDirect AllGather (ReduceScatter) get 0 unless the CollNet object has iallgather (ireducescatter), CollNet is enabled and no node has more local ranks than CollNet heads.`, true)

var parse28 = algoParse("G-SEL-PARSE-2", Ref{tag283, "src/graph/tuning.cc", "parseList"},
	`Per-function grammar: entries split on ';', each "[func:]list" where only the first may omit func (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce, any case); a list starting with '^' inverts; each targeted row is reset before the names apply; rows not targeted keep their defaults. Empty entries and items are skipped, blanks are not trimmed. An unknown name or prefix, or a missing prefix after the first entry, is a WARN and ncclInvalidUsage from communicator init. A set-but-empty value changes nothing. Rank 0 prints the user matrix.`,
	true, []string{"NCCL_ALGO set by environment to %s", "Enabled NCCL Func/Proto/Algo Matrix:%s",
		`All entries except the first must have a prefix: "%s"`, `Unrecognized prefix token "%s" when parsing "%s"`, `Unrecognized element token "%s" when parsing "%s"`})

var en28 = enableRule(Ref{tag283, "src/graph/tuning.cc", "ncclTopoTuneModel"},
	`Per function, after NCCL_ALGO/NCCL_PROTO: NVLSTree off on one node; with config.collnetEnable 0, CollNetDirect, CollNetChain and multi-node NVLS off; CollNetDirect off without an NVSwitch. No rescue: a function left with nothing fails at enqueue (G-SEL-ERR-1).`, false)

var proto28 = protoRule(Ref{tag283, "src/graph/tuning.cc", "ncclTopoTuneModel"},
	`Protocols default to LL 1, LL128 2 (auto), Simple 1; a value set by NCCL_PROTO bypasses the auto rule. LL128 auto needs: inter-node path at most PXN when NCCL_LL128_C2C (default 1) and compute capability 9.0+, else at most PXB; intra-node path at most NVB; one compute capability on every GPU, at least 7.0; not a two-rank sm90 Ring AllReduce built with CUDA 11.8.`,
	ll128Auto28)

var tunerInit28 = tunerInit(Ref{tag283, "src/init.cc", "initTransportsRank"},
	`The tuner's init runs inside initTransportsRank after the CollNet and NVLS setup and before ncclTopoTuneModel, with the default tuner constants (a v5 tuner may change latencies and bandwidth caps, not the enable matrix). An init error fails communicator init.`)

// collNetArity28 is G-COLLNET-ARITY-1's per-operation form (2.23.4: Direct;
// 2.28.3: Chain too).
var collNetArity28 = &Rule{
	ID: "G-COLLNET-ARITY-1", Layer: LayerSelect, Cap: CapCollNet, Title: "CollNet GPUs per node",
	Doc: `No init-time disable: per operation CollNetDirect and (2.28.3+) CollNetChain stay IGNORE when a node has more than NCCL_MAX_DIRECT_ARITY+1 (8) local ranks.`,
	Ref: Ref{tag283, "src/enqueue.cc", "updateCollCostTable"},
	perOp: func(o *opRun) {
		lim := o.rs.Consts.MaxDirectArity + 1
		if o.comm.MaxLocalRanks <= lim {
			o.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("%d local ranks ≤ %d", o.comm.MaxLocalRanks, lim)})
			return
		}
		for _, a := range []Algo{CollNetDirect, CollNetChain} {
			for p := range NumProtos {
				o.prunedBy[a][p] = "G-COLLNET-ARITY-1"
			}
		}
		o.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("%d local ranks > %d: CollNetDirect and CollNetChain ignored", o.comm.MaxLocalRanks, lim)})
	},
}

var release2_28_3 = Release{
	Version: V2_28_3,
	Tag:     tag283,
	Consts:  consts2_28_3,
	Topo:    topo.Apply2_28_3,
	Tuning:  tuningApply2_28_3,
	Rules:   apply2_28_3,
}

func consts2_28_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{tag283, file, fn} }
	rs.SetConst("NetABI", []int{11, 10, 9, 8, 7, 6}, ref("src/plugin/net.cc", "ncclNetPluginLoad"))
	rs.SetConst("TunerABI", []int{5, 4, 3, 2}, ref("src/plugin/tuner.cc", "ncclTunerPluginLoad"))
	rs.SetConst("MaxChannels", 64, ref("src/include/device.h", "MAXCHANNELS"))
	rs.SetConst("NVLSChannelsSM100", 24, ref("src/transport/nvls.cc", "ncclNvlsInit"))
	rs.SetConst("NVLSChannelsSM100Multi", 32, ref("src/transport/nvls.cc", "ncclNvlsInit"))
	rs.SetConst("MaxNVLSArity", 32, ref("src/include/device.h", "NCCL_MAX_NVLS_ARITY"))
	rs.SetConst("HasPAT", true, ref("src/graph/tuning.cc", "ncclPatEnable"))
	rs.SetConst("NetNameAtLoad", true, ref("src/plugin/net/net_v8.cc", "getNcclNet_v8"))
	rs.SetConst("HasFP8", true, ref("src/nccl.h.in", "ncclDataType_t"))
	rs.SetConst("RingBackup", false, ref("src/enqueue.cc", "topoGetAlgoInfo"))
	rs.SetParamDefault("NCCL_NVLS_NCHANNELS", -2147483648, ref("src/transport/nvls.cc", "NvlsChannels"))
	rs.SetParamDefault("NCCL_PAT_ENABLE", 2, ref("src/graph/tuning.cc", "PatEnable"))
	rs.SetParamDefault("NCCL_LL128_C2C", 1, ref("src/graph/tuning.cc", "Ll128C2c"))
}

func apply2_28_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{tag283, file, fn} }
	rs.Replace(topoRule(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(envSource23, "NCCL_CONF_FILE names the user config file (2.23.4)")
	rs.Replace(intParamRule(ref("src/misc/param.cc", "ncclLoadParam")), "same parse; file unchanged, new tag")
	rs.Remove("G-COLLNET-ENV-1", ref("src/init.cc", "envConfigOverride"), "read at config time instead (below)")
	rs.Add(collNetEnv28, "G-ENV-PARAM-1", "strtol into config.collnetEnable for every communicator (2.27.5)")
	rs.Replace(netLib28, "comma list, none, conditional prefixed name (2.27.5, 2.28.3)")
	rs.Replace(netLibNone28, "no trailing sentence (2.27.3)")
	rs.Replace(netABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "window v11-v6 (v5 dropped 2.26.2), one log per accepted version")
	rs.Replace(collNetABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "window v11-v6, silent when absent")
	rs.Replace(collNetEntryPoints(ref("src/plugin/net/net_v7.cc", "getNcclCollNet_v7"), 8), "adapters moved to src/plugin/net/")
	rs.Replace(netState28, "per-plugin state machine, init per communicator (2.27-2.28)")
	rs.Replace(ib28, "file layout")
	rs.Replace(socket28, "file layout")
	rs.Replace(netChoose28, `WARN "Failed to initialize any NET plugin" (2.27.3)`)
	rs.Add(netLibOthers, "G-NET-SEL-1", "several external plugins, others disabled (2.27.3)")
	rs.Replace(netDevVersion.withRef(ref("src/plugin/net.cc", "ncclNetCheckDeviceVersion")), "checked at assignment")
	rs.Replace(collNetAttach.withRef(ref("src/plugin/net.cc", "ncclNetPluginAssignToComm")), "attached at assignment")
	rs.Replace(mnnvl28, "ncclMnnvlCheck (2.25.1): also with NCCL_MNNVL_ENABLE=1 on one node")
	rs.Replace(collNetPlugin28, "forces config.collnetEnable to 0")
	rs.Replace(nvlsEnv.withRef(ref("src/transport/nvls.cc", "ncclNvlsInit")), "file unchanged, new tag")
	rs.Replace(nvlsEarly283, "GPU count ≤ 2, no MNNVL clique form (2.25.1)")
	rs.Replace(nvlsCap(ref("src/transport/nvls.cc", "ncclNvlsInit"), true), "log adds (NVLS_NCHANNELS %d) (2.27.3)")
	rs.Replace(nvlsChan28, "per-architecture default (2.25, 2.27)")
	rs.Replace(graphSearch.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(collNetGraph28, "CollNetDirect ≤ min(8, #GPUs) (2.25.1)")
	rs.Replace(nvlsGraph28, "NVLS ≤ 32 channels (2.25.1)")
	rs.Replace(graphConsensus.withRef(ref("src/graph/connect.cc", "ncclTopoPostset")), "new tag")
	rs.Replace(collNetCons.withRef(ref("src/init.cc", "initTransportsRank")), "config.collnetEnable")
	rs.Replace(nvlsCons.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(collNetThreshold.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Remove("G-COLLNET-ARITY-1", ref("src/enqueue.cc", "updateCollCostTable"), "no init-time disable (2.23.4); per-operation form below")
	rs.Replace(transportRule.withRef(ref("src/transport/p2p.cc", "p2pCanConnect")), "new tag")
	rs.Replace(runtimeConnectInit.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(nvlsSetup(ref("src/transport/nvls.cc", "nvlsAllocateMem"), true), "bind failure soft unless NCCL_NVLS_ENABLE=1 (2.27.3)")
	rs.Replace(nvlsTree.withRef(ref("src/transport/nvls.cc", "ncclNvlsTreeConnect")), "new tag")
	rs.Replace(collNetSetup(ref("src/transport/coll_net.cc", "ncclCollNetSetup"), true), "heads from NVLS when NVLS is supported (2.28.3)")
	rs.Replace(collNetMatrix.withRef(ref("src/transport/coll_net.cc", "ncclCollNetSetup")), "new tag")
	// The tuner loads and initialises before the model in 2.28.
	rs.Replace(tunerLib28(ref("src/plugin/tuner.cc", "ncclTunerPluginLoad"), ". Using internal tuner plugin."), "common loader, none keyword (2.26, 2.28.3)")
	rs.Replace(tunerABI28, "window v5-v2 (2.28.3)")
	rs.Replace(tunerInit28, "init before ncclTopoTuneModel with editable constants (2.28.3)")
	rs.Move("G-TUNER-LIB-1", "G-COLLNET-MATRIX-1", ref("src/init.cc", "initTransportsRank"), "tuner before the model")
	rs.Move("G-TUNER-ABI-1", "G-TUNER-LIB-1", ref("src/init.cc", "initTransportsRank"), "tuner before the model")
	rs.Move("G-TUNER-INIT-1", "G-TUNER-ABI-1", ref("src/init.cc", "initTransportsRank"), "tuner before the model")
	rs.Replace(impl28Rule, "PAT for AllGather/ReduceScatter (2.23.4)")
	rs.Add(patRule, "G-TUNE-IMPL-1", "PAT (2.23.4); SM60 minimum (2.26.2)")
	rs.Replace(bw1_28, "NVLS needs ≥ 2 channels (2.28.3)")
	rs.Replace(bw2_28, "NVLS and CollNetDirect share the multi-node AllGather/ReduceScatter rule (2.27.3)")
	rs.Remove("G-SEL-PARSE-1", ref("src/graph/tuning.cc", "parseList"), "per-function grammar replaces it (2.24.3)")
	rs.Add(parse28, "G-TUNE-BW-2", "per-function grammar with hard errors (2.24.3)")
	rs.Replace(en28, "per function, no hard-set rescue (2.24.3)")
	rs.Replace(proto28, "NCCL_LL128_C2C, any compute capability ≥ 7.0 (2.27.3)")
	rs.Remove("G-TUNE-RINGRESTORE-1", ref("src/graph/tuning.cc", "ncclTopoTuneModel"), "removed in 2.24.3")
	rs.Replace(modelDone.withRef(ref("src/graph/tuning.cc", "ncclTopoTuneModel")), "7 algorithms")

	rs.Replace(appendRule(ref("src/enqueue.cc", "taskAppend"), true), "fp8 reductions need sm90 (2.24)")
	rs.Add(sideRule, "G-SEL-APPEND-1", "symmetric kernels (2.27.3) and copy-engine collectives (2.28) bypass the table")
	rs.Replace(opSupport(ref("src/enqueue.cc", "getCollNetSupport"), false), "new tag")
	rs.Add(collNetArity28, "G-SEL-OPSUP-1", "per-operation arity (2.23.4; CollNetChain 2.28.3)")
	rs.Replace(pruneRule(ref("src/enqueue.cc", "updateCollCostTable"),
		pruneSet{nvlsArity: true, patScaling: true, fp8Ring: true}), "P4', P7, P8; P6 removed (2.27.3)")
	rs.Replace(tunerCall(ref("src/enqueue.cc", "getAlgoInfo")), "v5 table API with regBuff")
	rs.Replace(pickRule.withRef(ref("src/enqueue.cc", "topoGetAlgoInfo")), "new tag")
	rs.Remove("G-SEL-BACKUP-1", ref("src/enqueue.cc", "topoGetAlgoInfo"), "no Ring backup (2.24.3)")
	rs.Add(ctaPolicyRule, "G-SEL-PICK-1", "CTA policy (2.27.3)")
	rs.Add(errRule(ref("src/enqueue.cc", "topoGetAlgoInfo"), "Error : no algorithm/protocol available"), "G-SEL-CTAPOL-1", "hard error (2.24.3)")
	rs.Replace(runtimeConnect.withRef(ref("src/group.cc", "ncclCollPreconnect")), "PAT too (2.23.4)")
	rs.Replace(execErr.withRef(ref("src/proxy.cc", "progressOps")), "new tag")
	rs.Replace(groupPlanRule(ref("src/enqueue.cc", "ncclPrepareTasks, scheduleCollTasksToPlan"), "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}"), "one line per task with its channel range (2.24.3)")
	rs.Add(regIPCRule, "G-GROUP-PLAN-1", "graph-captured and ncclCommRegister'ed buffers registered over IPC")
}

package spec

import (
	"math"

	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// NCCL 2.22.3 (tag v2.22.3-1, commit 178b6b7), the reference release of
// the design material and the base of the chain: every rule in evaluation
// order as initTransportsRank and the enqueue path run them.

var netState22 = netState(Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "netGetState"},
	`Candidates in order: the external plugin (one slot), IB, Socket. A candidate is usable when init() succeeds and devices() reports at least one device; the state is computed once per process and cached. NCCL_NET filters by name after init, so a non-matching plugin is still initialised. The walk stops at the first usable, matching, device-accepted candidate.`,
	netSelectOpts{})

var ib22 = internalNet("G-NET-IB-1", "IB", CapIB, Ref{Tag: "v2.22.3-1", File: "src/transport/net_ib.cc", Func: "ncclIbInit"},
	`The internal IB transport: init fails when NCCL_IB_DISABLE is non-zero, libibverbs cannot be loaded, or no IP interface exists for the out-of-band connection; ports must be ACTIVE, of IB or Ethernet (RoCE) link layer and match NCCL_IB_HCA (comma list with optional :port, '^' excludes, '=' matches exactly). Zero ports: init succeeds but devices() is 0, so the network is not usable.`,
	[]string{"NET/IB : No IP interface found.", "NET/IB : No device found.", "NET/IB : Using%s %s; OOB %s:%s", "NCCL_IB_HCA set to %s"})

var socket22 = internalNet("G-NET-SOCK-1", "Socket", "", Ref{Tag: "v2.22.3-1", File: "src/transport/net_socket.cc", Func: "ncclNetSocketInit"},
	`The internal Socket transport: interfaces from NCCL_SOCKET_IFNAME (when longer than one character), else ib*, then anything but docker/lo/virbr, then docker, then lo; none → init fails.`,
	[]string{"NET/Socket : no interface found", "NET/Socket : Using%s"})

var netChoose22 = netChoose(Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "ncclNetInit"},
	`The communicator uses the first candidate that is usable, whose name matches NCCL_NET (case-insensitive) when set, and whose device version is accepted. None: WARN "Error: network %s not found." and ncclInvalidUsage from communicator init.`,
	"Error: network %s not found.", false)

var mnnvl22 = mnnvlRuleForced(Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "checkMNNVL"},
	`Checked only with more than one node: needs cuMem, fabric-handle support and a complete NVLink fabric with a cluster UUID; the clique is the ranks with the same UUID and clique ID; MNNVL = (NCCL_MNNVL_ENABLE == 2) ? cliqueSize > 1 : NCCL_MNNVL_ENABLE. A clique fuses the topology of its nodes. NCCL_MNNVL_ENABLE=1 without a working MNNVL fails communicator init (WARN "MNNVL is not supported on this system", ncclSystemError; initTransportsRank).`)

var nvlsEarly22 = nvlsEarly(Ref{Tag: "v2.22.3-1", File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	`NVLS is turned off silently when (not MNNVL and the topology has 2 GPUs or fewer) or (MNNVL and the clique has 2 GPUs or fewer), or when the driver entry point cuDeviceGet is missing.`,
	func(gpus, clique int, mnnvl bool) (bool, string) {
		if !mnnvl && gpus <= 2 {
			return true, "2 GPUs or fewer in the topology"
		}
		if mnnvl && clique <= 2 {
			return true, "MNNVL clique of 2 GPUs or fewer"
		}
		return false, ""
	})

var collNetGraph22 = collNetGraph(Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"}, func(n int) int { return n })
var nvlsGraph22 = nvlsGraph(Ref{Tag: "v2.22.3-1", File: "src/graph/search.cc", Func: "ncclTopoCompute"}, func(n int) int { return n })

var nvlsSetup22 = nvlsSetup(Ref{Tag: "v2.22.3-1", File: "src/transport/nvls.cc", Func: "ncclNvlsSetup"}, false)
var collNetSetup22 = collNetSetup(Ref{Tag: "v2.22.3-1", File: "src/transport/coll_net.cc", Func: "ncclCollNetSetup"}, false, collNetOffSupport)

var impl22Rule = implRule(Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Modelled cells: Broadcast and Reduce on Ring only; AllGather and ReduceScatter on Ring, NVLS and CollNetDirect; AllReduce on every algorithm. NVLS and NVLSTree have Simple only. Anything else keeps bandwidth 0, so Tree never serves AllGather, ReduceScatter, Broadcast or Reduce.`,
	impl22)

var bw1_22 = graphBwRule(Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Bandwidth is nChannels × per-channel bandwidth of the algorithm's graph (PAT and Tree read the tree graph, NVLS/NVLSTree the NVLS graph): a graph with no channel gives its algorithms no bandwidth.`, 1)

var bw2_22 = collNetBwRule(Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`CollNet protocols other than Simple get no bandwidth. CollNetDirect AllGather (ReduceScatter) across nodes gets 0 when the CollNet object lacks iallgather (ireducescatter) or a node has more local ranks than CollNet heads.`, false)

var parse22 = algoParse("G-SEL-PARSE-1", Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "parseList"},
	`NCCL_PROTO and NCCL_ALGO are one list for all functions: a leading '^' inverts; tokens split on ',' (empty tokens vanish, blanks are kept) match names case-insensitively; unknown tokens are ignored silently, so a set-but-empty value or an unknown name disables everything (then rescued by G-TUNE-EN-1 or G-TUNE-RINGRESTORE-1).`,
	false, []string{"NCCL_PROTO set by environment to %s", "NCCL_ALGO set by environment to %s"})

var en22 = enableRule(Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`After NCCL_ALGO/NCCL_PROTO: NVLSTree off on one node; without CollNet support CollNetDirect and CollNetChain off, and NVLS off across nodes, and if that leaves Ring, Tree, NVLS and NVLSTree all off (a hard-set CollNet request) Ring and Tree are re-enabled; with CollNet, CollNetDirect off without an NVSwitch. A disabled algorithm or protocol gets bandwidth 0.`)

var proto22 = protoRule(Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Protocols default to LL 1, LL128 2 (auto), Simple 1; a value set by NCCL_PROTO is 0/1 and bypasses the auto rule. LL128 auto is on when the graph's inter-node path is at most PXB (or PXN on sm90), its intra-node path at most NVB, every GPU has the same compute capability and it is 7.0, 8.0 or 9.0 (not for a two-rank sm90 Ring AllReduce built with CUDA 11.8).`,
	ll128Auto22)

var tunerInit22 = tunerInit(Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "ncclCommInitRankFunc"},
	`The tuner's init(nRanks, nNodes, logger, &context) runs after initTransportsRank, i.e. after the model was built, so a tuner cannot change the model's constants. An init error fails communicator init.`)

var opSup22 = opSupport(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "getCollNetSupport"})

var prune22 = pruneRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "updateCollCostTable"},
	pruneSet{nvlsAGExempt: true, nvlsAGRSOneNode: true})

var tunerCall22 = tunerCall(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "getAlgoInfo"})

var release2_22_3 = Release{
	Version: V2_22_3,
	Tag:     "v2.22.3-1",
	Anchor:  true,
	Topo:    func(p *topo.Params) { *p = topo.Params2_22_3() },
	Tuning:  func(t *Tuning) ([]TuningChange, error) { *t = tuningBase2_22_3(); return nil, nil },
	Consts:  consts2_22_3,
	Rules:   base2_22_3,
}

func consts2_22_3(rs *Ruleset) {
	rs.Consts = Consts{
		NetABI:         []int{8, 7, 6, 5},
		TunerABI:       []int{3, 2},
		MaxChannels:    32,
		MaxDirectArity: 7,
		// NVLS channels come from NCCL_NVLS_NCHANNELS (default 16).
		NVLSChannelsSM90: 16,
		RingBackup:       true,
		// nvlsSupport counts AllGather in (scheduleCollTasksToPlan)
		NVLSSupportAllGather: true,
		NVLSLastChunkAlign:   16,
		// send/recv: one work per round of comm->p2pSchedule, parts of at
		// least half a step across nodes (scheduleP2pTasksToPlan,
		// addP2pToPlan)
		P2PRoundSchedule:      true,
		P2PMinPartHalfStepNet: true,
		// an in-place send/recv to self has no work
		// (scheduleP2pTasksToPlan)
		P2PSkipSelfInPlace: true,
		// a ncclCommRegister buffer over the network (addP2pToPlan)
		P2PReg:          tuning.P2PRegNetRecord,
		NVLSNetChunkCap: true,
		// a CollNet-registered task's proxy op moves 512 MiB pieces
		// (calcCollChunking)
		ProxyReg: tuning.ProxyRegCollNet,
		// NVLSTreeChunkFromStep false: 2.21.5 sizes NVLSTree from nvlsChunkSize
		NVLSTreeChunkCap4Nodes: true,
		// NCCL_NVLS_CHUNKSIZE (ncclNvlsSetup) and NCCL_NVLSTREE_MAX_CHUNKSIZE
		// (calcCollChunking) size the NVLS chunks
		NVLSChunkSizeEnv:        true,
		NVLSTreeMaxChunkSizeEnv: true,
		// src/nccl.h.in ncclConfig_t (the same struct from 2.17)
		ConfigFields:   configFieldsThrough("splitShare"),
		P2PDirectCuMem: true,
		CollNetFail:    collNetFailSetup(331, 360, 1375),
		IntParams: map[string]int64{
			"NCCL_NVLS_ENABLE":            2,
			"NCCL_NVLS_NCHANNELS":         16,
			"NCCL_MNNVL_ENABLE":           2,
			"NCCL_COLLNET_NODE_THRESHOLD": 2,
			"NCCL_IB_DISABLE":             0,
			"NCCL_SHM_DISABLE":            0,
			"NCCL_RUNTIME_CONNECT":        1,
			"NCCL_CUMEM_ENABLE":           -2,
			"NCCL_MIN_NCHANNELS":          -2,
			"NCCL_MAX_NCHANNELS":          -2,
			"NCCL_WORK_ARGS_BYTES":        math.MaxInt64,
			"NCCL_WORK_FIFO_BYTES":        1 << 20,
			"NCCL_MIN_CTAS":               -2147483648,
			"NCCL_MAX_CTAS":               -2147483648,
			// src/graph/paths.cc ncclTopoNeedFlush: a GDR receive of
			// sm90 and newer does not flush (G-NET-CONN-FLUSH-1)
			"NCCL_NET_FORCE_FLUSH": 0,
		},
	}
}

func base2_22_3(rs *Ruleset) {
	for _, r := range []*Rule{
		envSource22, intParamRule(Ref{Tag: "v2.22.3-1", File: "src/misc/param.cc", Func: "ncclLoadParam"}), devInitAll18,
		configRule(Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "parseCommConfig, envConfigOverride"}),
		netLib22, netLibNone22, netABI22, collNetABI22,
		collNetEntryPoints(Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "ncclCollNet_v7_as_v8_init"}, 8),
		netState22, ib22, socket22, netChoose22, netDevVersion, collNetAttach,
		devDup22, mnnvl22, collNetPlugin22, collNetEnv22, topoRule(Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"}),
		nvlsEnv, nvlsEarly22, nvlsCap(Ref{Tag: "v2.22.3-1", File: "src/transport/nvls.cc", Func: "ncclNvlsInit"}, false), nvlsChan,
		graphSearch, collNetGraph22, nvlsGraph22, graphConsensus,
		collNetCons, nvlsCons, collNetThreshold, collNetArity22,
		transportRule, procRule, connRule, runtimeConnectInit,
		nvlsSetup22, nvlsTree, collNetSetup22, collNetMatrix,
		impl22Rule, bw1_22, bw2_22, parse22, en22, proto22, ringRestore, modelDone,
		tunerLib22, tunerABI22, tunerInit22,
	} {
		rs.rules[r.ID] = r
		rs.Init = append(rs.Init, r.ID)
	}
	for _, r := range []*Rule{p2pPathRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan"}), appendRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "taskAppend"}, false), opSup22, prune22, tunerCall22, pickRule, backupRule, runtimeConnect, collNetFlushRule, execErr} {
		rs.rules[r.ID] = r
		rs.Op = append(rs.Op, r.ID)
	}
	groupPlan := groupPlanRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "ncclPrepareTasks, scheduleCollTasksToPlan"}, "%ld Bytes -> Algo %d proto %d time %f", groupPlanDoc22)
	rs.rules[groupPlan.ID], rs.rules[regUBRule.ID], rs.rules[regSkipRule.ID] = groupPlan, regUBRule, regSkipRule
	rs.rules[schedBudgetRule.ID] = schedBudgetRule
	rs.rules[regCollNetRule.ID], rs.rules[regProxyRule.ID] = regCollNetRule, regProxyRule
	rs.Group = append(rs.Group, groupPlan.ID, schedBudgetRule.ID, regUBRule.ID, regSkipRule.ID, regCollNetRule.ID, regProxyRule.ID)
	p2pSched := p2pSchedRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan, addP2pToPlan"}, p2pSchedDoc22)
	p2pCount := p2pCountRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan, addP2pToPlan"}, p2pCountDoc22)
	p2pReg := p2pRegRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "addP2pToPlan"}, p2pRegDoc20)
	p2pSelf := p2pSelfRule(Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan, ncclLaunchPrepare"}, p2pSelfDoc22)
	rs.rules[p2pSched.ID], rs.rules[p2pCount.ID], rs.rules[p2pReg.ID], rs.rules[p2pSelf.ID] = p2pSched, p2pCount, p2pReg, p2pSelf
	rs.Group = append(rs.Group, p2pSched.ID, p2pCount.ID, p2pSelf.ID, p2pReg.ID)
	for _, r := range groupCallRules22 {
		rs.rules[r.ID] = r
		rs.Call = append(rs.Call, r.ID)
	}
}

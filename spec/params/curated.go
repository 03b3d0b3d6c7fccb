package params

import (
	"slices"

	"github.com/gatesim/gatesim/spec"
)

// This file is the hand-written layer beside the generated tables: facts the
// generator cannot see (history, documentation, meaning), each with a Ref.
// Every entry was checked against NCCL's git history (git log -S, git grep
// at the tags); TestCuratedAgainstTables keeps the entries consistent with
// the generated tables (a name said to be read at a release must be in that
// release's table, an accepted value must be one the source compares with).

// Deprecation is a name users still write that NCCL renamed, superseded or
// dropped. Whether NCCL still reads it at a release comes from the generated
// table, not from here.
type Deprecation struct {
	Name string
	// Replacement is the variable to use instead ("" when there is none).
	// An entry with one holds where the release's table reads it: the old
	// name is deprecated once the new one exists.
	Replacement string
	// Note explains how the two interact.
	Note string
	Ref  spec.Ref
}

// Deprecations lists renamed, superseded and removed names.
var Deprecations = []Deprecation{
	{Name: "NCCL_CHECKS_DISABLE", Replacement: "NCCL_CHECK_POINTERS",
		Note: "documented as deprecated in 2.2.12 and absent from every tagged source since 2.3; NCCL_CHECK_POINTERS has the opposite sense: 1 enables the checks",
		Ref:  spec.Ref{Tag: "master@bbc3d605", File: "docs/userguide/source/env.rst", Func: "NCCL_CHECKS_DISABLE"}},
	{Name: "NCCL_CHECK_POINTERS", Replacement: "NCCL_CHECK_MODE",
		Note: "deprecated in 2.29.7: NCCL_CHECK_MODE=DEBUG_LOCAL replaces NCCL_CHECK_POINTERS=1; both are still read in envConfigOverride",
		Ref:  spec.Ref{Tag: "v2.29.7-1", File: "src/init.cc", Func: "envConfigOverride"}},
	{Name: "NCCL_IB_CUDA_SUPPORT", Replacement: "NCCL_NET_GDR_LEVEL",
		Note: "an NCCL_PARAM of the IB transport up to 2.3.7; removed when GPU Direct RDMA moved to the topology code: NCCL_NET_GDR_LEVEL and NCCL_NET_GDR_READ",
		Ref:  spec.Ref{Tag: "v2.3.7-1", File: "src/transport/net_ib.cu", Func: "NCCL_PARAM(IbCudaSupport)"}},
	{Name: "NCCL_IB_GDR_LEVEL", Replacement: "NCCL_NET_GDR_LEVEL",
		Note: "renamed in 2.4.0; the old name is not read by any release since 2.4",
		Ref:  spec.Ref{Tag: "v2.3.7-1", File: "src/transport/net_ib.cu", Func: "NCCL_PARAM(IbGdrLevel)"}},
	{Name: "NCCL_LL_THRESHOLD", Replacement: "NCCL_PROTO",
		Note: "removed in 2.5, last read at 2.4.8; since 2.5 the protocol comes from the tuning model; NCCL_PROTO restricts the choice",
		Ref:  spec.Ref{Tag: "v2.4.8-1", File: "src/init.cc", Func: "NCCL_PARAM(LlThreshold)"}},
	{Name: "NCCL_MAX_NCHANNELS", Replacement: "NCCL_MAX_CTAS",
		Note: "documented as deprecated since 2.17 in favour of NCCL_MAX_CTAS, also ncclConfig_t.maxCTAs; both are still read and the lower limit wins",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/graph/connect.cc", Func: "ncclMaxNchannels"}},
	{Name: "NCCL_MAX_NRINGS", Replacement: "NCCL_MAX_NCHANNELS",
		Note: "the 2.4 name, still read as an alias and used only while NCCL_MAX_NCHANNELS is unset: ncclMaxNchannels reads NRINGS first, then lets NCHANNELS override",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/graph/connect.cc", Func: "ncclMaxNchannels"}},
	{Name: "NCCL_MIN_NCHANNELS", Replacement: "NCCL_MIN_CTAS",
		Note: "documented as deprecated since 2.17 in favour of NCCL_MIN_CTAS, also ncclConfig_t.minCTAs; both are still read and the higher minimum wins",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/graph/connect.cc", Func: "ncclMinNchannels"}},
	{Name: "NCCL_MIN_NRINGS", Replacement: "NCCL_MIN_NCHANNELS",
		Note: "the 2.4 name, still read as an alias: used only while NCCL_MIN_NCHANNELS is unset",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/graph/connect.cc", Func: "ncclMinNchannels"}},
	{Name: "NCCL_SINGLE_RING_THRESHOLD", Replacement: "",
		Note: "documented as 'since 2.1, removed in 2.3'; no tagged source in the repository reads it (the 2.x history starts at 2.3.5)",
		Ref:  spec.Ref{Tag: "master@bbc3d605", File: "docs/userguide/source/env.rst", Func: "NCCL_SINGLE_RING_THRESHOLD"}},
	{Name: "NCCL_TREE_THRESHOLD", Replacement: "NCCL_ALGO",
		Note: "removed in 2.5, last read at 2.4.8; since 2.5 the algorithm comes from the tuning model; NCCL_ALGO restricts the choice",
		Ref:  spec.Ref{Tag: "v2.4.8-1", File: "src/init.cc", Func: "NCCL_PARAM(TreeThreshold)"}},
}

// Foreign is an NCCL_-prefixed name that NCCL itself never reads but that
// appears in job scripts because another program or a header uses it.
type Foreign struct {
	Name  string
	Owner string // who reads or defines it
	Note  string
	Ref   spec.Ref
}

// Foreigns lists NCCL_ names that belong to someone else.
var Foreigns = []Foreign{
	{Name: "NCCL_ASYNC_ERROR_HANDLING", Owner: "PyTorch ProcessGroupNCCL",
		Note: "PyTorch's old name; current PyTorch reads TORCH_NCCL_ASYNC_ERROR_HANDLING",
		Ref:  spec.Ref{Tag: "pytorch", File: "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp", Func: "NCCL_ASYNC_ERROR_HANDLING"}},
	{Name: "NCCL_BLOCKING_WAIT", Owner: "PyTorch ProcessGroupNCCL",
		Note: "PyTorch's old name; current PyTorch reads TORCH_NCCL_BLOCKING_WAIT",
		Ref:  spec.Ref{Tag: "pytorch", File: "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp", Func: "NCCL_BLOCKING_WAIT"}},
	{Name: "NCCL_DESYNC_DEBUG", Owner: "PyTorch ProcessGroupNCCL",
		Note: "PyTorch's old name; current PyTorch reads TORCH_NCCL_DESYNC_DEBUG",
		Ref:  spec.Ref{Tag: "pytorch", File: "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp", Func: "NCCL_DESYNC_DEBUG"}},
	{Name: "NCCL_HOME", Owner: "build systems", Note: "a build-time path used by some build scripts to find NCCL; the library never reads it",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src", Func: "(no read)"}},
	{Name: "NCCL_INCLUDE_DIR", Owner: "build systems (PyTorch's FindNCCL)", Note: "a build-time path; the library never reads it",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src", Func: "(no read)"}},
	{Name: "NCCL_LIB_DIR", Owner: "build systems (PyTorch's FindNCCL)", Note: "a build-time path; the library never reads it",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src", Func: "(no read)"}},
	{Name: "NCCL_ROOT", Owner: "build systems", Note: "a build-time path; the library never reads it",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src", Func: "(no read)"}},
	{Name: "NCCL_TIMEOUT", Owner: "nobody (a common confusion)",
		Note: "NCCL has no collective timeout variable; frameworks take a timeout argument (torch.distributed init_process_group(timeout=...)); the IB retransmission timeout is NCCL_IB_TIMEOUT",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src", Func: "(no read)"}},
	{Name: "NCCL_VERSION", Owner: "nccl.h",
		Note: "a macro of nccl.h (NCCL_VERSION(X,Y,Z) builds a version code), not a variable; the release is whatever libnccl.so.2 the loader finds",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/nccl.h.in", Func: "NCCL_VERSION"}},
}

// GateLink says that a variable feeds a gate rule of spec's registry. The
// releases a link holds for are not kept here: it holds wherever the
// release's ruleset has the rule (spec's release deltas own that) and the
// release's table reads the variable (the generated table owns that).
type GateLink struct {
	Rule spec.RuleID
	// When, if set, is the registry's release fact under which the rule
	// reads the variable (nil: wherever the rule is).
	When func(Release) bool
}

// GateInfo lists the gates a variable affects, with the read that feeds
// them.
type GateInfo struct {
	Name  string
	Gates []GateLink
	Note  string
	Ref   spec.Ref
}

func g(id string) GateLink { return GateLink{Rule: spec.RuleID(id)} }

// gWhen links a rule that reads the variable only under a release fact.
func gWhen(id string, when func(Release) bool) GateLink {
	return GateLink{Rule: spec.RuleID(id), When: when}
}

func mnnvlUserP2P(r Release) bool { return r.MNNVLUserP2P }

// Gates maps variables to the gate rules they feed (static: which rules read
// the variable, not whether it changes their verdict on a given system; that
// is the GateEffect hook's job). Sorted by name.
var Gates = []GateInfo{
	{Name: "NCCL_AGG_CHANNEL_SIZE", Gates: []GateLink{g("G-GROUP-PLAN-1")},
		Note: "the bytes per channel of an aggregate; 2.18.x keeps it unsigned, so unset (-2) or negative it is a size of 2^64 minus its magnitude",
		Ref:  spec.Ref{Tag: "v2.19.4-1", File: "src/enqueue.cc", Func: "scheduleCollTasksToPlan"}},
	{Name: "NCCL_ALGO", Gates: []GateLink{g("G-SEL-PARSE-1"), g("G-SEL-PARSE-2"), g("G-TUNE-EN-1"),
		g("G-TUNE-RINGRESTORE-1"), g("G-SEL-BACKUP-1"), g("G-SEL-ERR-1"), g("G-SEL-CTAPOL-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"}},
	{Name: "NCCL_COLLNET_ENABLE", Gates: []GateLink{g("G-COLLNET-ENV-1"), g("G-COLLNET-GRAPH-1"), g("G-COLLNET-CONS-1"), g("G-TUNE-EN-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/init.cc", Func: "envConfigOverride"}},
	{Name: "NCCL_COLLNET_NODE_THRESHOLD", Gates: []GateLink{g("G-COLLNET-THRESH-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/init.cc", Func: "initTransportsRank"}},
	{Name: "NCCL_CONF_FILE", Gates: []GateLink{g("G-ENV-SRC-1")},
		Note: "names the user config file read before /etc/nccl.conf (since 2.23.4)",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/misc/param.cc", Func: "initEnvFunc"}},
	{Name: "NCCL_CROSS_NIC", Gates: []GateLink{g("G-GRAPH-SEARCH-1"), g("G-GIN-CONN-1")},
		Note: "0 keeps each channel on one NIC rail in the graph search; from 2.29.7 it also makes a symmetric window's GIN connection rail-only (each rank to its rail team)",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/graph/search.cc", Func: "ncclTopoCheckCrossNicSupport"}},
	{Name: "NCCL_CTA_POLICY", Gates: []GateLink{g("G-SEL-CTAPOL-1"), g("G-SEL-SIDE-1"), g("G-ENV-CONFIG-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/init.cc", Func: "envConfigOverride"}},
	{Name: "NCCL_CUMEM_ENABLE", Gates: []GateLink{g("G-EXEC-RTCONN-1"), g("G-MNNVL-1")},
		Note: "runtime connect and MNNVL both need cuMem",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/misc/cudawrap.cc", Func: "ncclCuMemEnable"}},
	{Name: "NCCL_DEBUG", Note: "non-gating: decides which gate log lines are printed at all (INFO needed for most evidence)",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/debug.cc", Func: "ncclDebugInit"}},
	{Name: "NCCL_DEBUG_SUBSYS", Note: "non-gating: INFO lines tagged NET, GRAPH, TUNING, NVLS or REG need their subsystem here",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/debug.cc", Func: "ncclDebugInit"}},
	{Name: "NCCL_ELASTIC_BUFFER_REGISTER", Gates: []GateLink{g("G-WIN-HOST-1")},
		Note: "0 makes ncclCommWindowRegister refuse host-memory windows (2.30.3+)",
		Ref:  spec.Ref{Tag: "v2.30.3-1", File: "src/dev_runtime.cc", Func: "ncclDevrWindowRegisterInGroup"}},
	{Name: "NCCL_ENV_PLUGIN", Gates: []GateLink{g("G-ENV-PLUGIN-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/plugin/env.cc", Func: "ncclEnvPluginLoad"}},
	{Name: "NCCL_GIN_COUNTER_POOL_SIZE", Gates: []GateLink{g("G-DEVCOMM-SHARE-1")},
		Note: "the counters every device communicator of a communicator allocates from; one beyond it fails ncclDevCommCreate (2.28.7–2.29.7; gone from 2.30.3)",
		Ref:  spec.Ref{Tag: "v2.29.7-1", File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"}},
	{Name: "NCCL_GIN_ENABLE", Gates: []GateLink{g("G-GIN-CONN-1")},
		Note: "0 fails the GIN connection a symmetric window registration asks for with \"GIN is disabled.\" (2.29.2–2.29.3, 2.30.7)",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"}},
	{Name: "NCCL_GIN_EXCLUSIVE_CONTEXTS", Gates: []GateLink{g("G-DEVCOMM-1")},
		Note: "a device communicator's exclusive GIN contexts beyond the unallocated ones fail ncclDevCommCreate (2.29.7; gone from 2.30.3)",
		Ref:  spec.Ref{Tag: "v2.29.7-1", File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal"}},
	{Name: "NCCL_GIN_GDAKI_QP_DEPTH", Gates: []GateLink{g("G-DEVCOMM-QUEUE-1")},
		Note: "the send-queue depth of a device communicator's GDAKI contexts when its ginQueueDepth is 0 (2.28.7+)",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/transport/net_ib/gdaki/gin_host_gdaki.cc", Func: "ncclGinGdakiCreateContext"}},
	{Name: "NCCL_GIN_NCONNECTIONS", Gates: []GateLink{g("G-DEVCOMM-1")},
		Note: "overrides the GIN connection count (the rank's local GIN devices), at most 4 (2.29.7+)",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"}},
	{Name: "NCCL_GIN_NCONTEXTS", Gates: []GateLink{g("G-DEVCOMM-1")},
		Note: "the GIN contexts a device communicator's connection makes (2.28.7–2.29.7; gone from 2.30.3)",
		Ref:  spec.Ref{Tag: "v2.28.7-1", File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"}},
	{Name: "NCCL_GIN_PLUGIN", Gates: []GateLink{g("G-GIN-1")},
		Note: "non-gating for selection: GIN serves the device API and the symmetric GIN kernels",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/plugin/gin.cc", Func: "initPluginLibsOnceFunc"}},
	{Name: "NCCL_GIN_PROXY_QUEUE_SIZE", Gates: []GateLink{g("G-DEVCOMM-QUEUE-1")},
		Note: "the GIN proxy's queue per peer, at most NCCL_NET_MAX_REQUESTS × maxRecvs and a power of two (2.28.7+)",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/gin/gin_host_proxy.cc", Func: "ncclGinProxyCreateContext"}},
	{Name: "NCCL_GIN_SIGNAL_POOL_SIZE", Gates: []GateLink{g("G-DEVCOMM-SHARE-1")},
		Note: "the signals every device communicator of a communicator allocates from; one beyond it fails ncclDevCommCreate (2.28.7–2.29.7; gone from 2.30.3)",
		Ref:  spec.Ref{Tag: "v2.29.7-1", File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"}},
	{Name: "NCCL_GIN_TYPE", Gates: []GateLink{g("G-GIN-1"), g("G-DEVCOMM-GINTYPE-1")},
		Note: "the internal IB GIN's type (2 the proxy, 3 GDAKI); 2.28.7–2.29.3 fail a device communicator's GIN connection of another type, 2.30.7 skips such a plugin at assignment",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/plugin/gin.cc", Func: "ncclGinPluginAssignToComm"}},
	{Name: "NCCL_GRAPH_FILE", Gates: []GateLink{g("G-NVLS-GRAPH-1"), g("G-COLLNET-GRAPH-1")},
		Note: "a loaded graph replaces the search", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/search.cc", Func: "ncclTopoCompute"}},
	{Name: "NCCL_IB_DISABLE", Gates: []GateLink{g("G-NET-IB-1"), g("G-NET-SEL-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/transport/net_ib.cc", Func: "ncclIbInitDevices"}},
	{Name: "NCCL_IB_HCA", Gates: []GateLink{g("G-NET-IB-1"), g("G-NET-IB-PLANE-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/transport/net_ib.cc", Func: "ncclIbInitDevices"}},
	{Name: "NCCL_LEGACY_CUDA_REGISTER", Gates: []GateLink{g("G-REG-SKIP-1")},
		Note: "1 lets IPC registration export cudaMalloc buffers over legacy CUDA IPC (default 0: their registration fails and the operation runs unregistered)",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/transport/p2p.cc", Func: "ipcRegisterBuffer"}},
	{Name: "NCCL_LL128_C2C", Gates: []GateLink{g("G-TUNE-PROTO-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"}},
	{Name: "NCCL_MLOPART_RDMA_ENABLE", Gates: []GateLink{g("G-REG-UB-1"), g("G-REG-SKIP-1")},
		Note: "on a communicator with an MLOPart rank, CollNet and the network register user buffers only with it set (2.30.7)",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/register/coll_reg.cc", Func: "isMloPartBufRdmaCapable"}},
	// NCCL_MNNVL (default -2) is 2.20.x's name of the variable.
	{Name: "NCCL_MNNVL", Gates: []GateLink{g("G-MNNVL-1")},
		Ref: spec.Ref{Tag: "v2.20.5-1", File: "src/init.cc", Func: "initTransportsRank"}},
	// from 2.30.3: cross-clique P2P on an MNNVL communicator whose NVL domain holds several cliques
	{Name: "NCCL_MNNVL_CROSS_CLIQUE", Gates: []GateLink{g("G-MNNVL-1")},
		Ref: spec.Ref{Tag: "v2.30.3-1", File: "src/init.cc", Func: "initTransportsRank"}},
	{Name: "NCCL_MNNVL_ENABLE", Gates: []GateLink{g("G-MNNVL-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/init.cc", Func: "initTransportsRank"}},
	{Name: "NCCL_MULTI_RANK_GPU_ENABLE", Gates: []GateLink{g("G-DEV-DUP-1"), g("G-DEV-DUP-2")},
		Note: "lets several ranks share a GPU (2.30.3+), ncclCommInitAll's devlist included; gatesim then refuses the system, as it does not model ranks on one DEV node",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/init.cc", Func: "initTransportsRank"}},
	{Name: "NCCL_NET", Gates: []GateLink{g("G-NET-SEL-1"), g("G-NET-SEL-2")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/init.cc", Func: "envConfigOverride"}},
	{Name: "NCCL_NET_PLUGIN", Gates: []GateLink{g("G-NET-LIB-1"), g("G-NET-LIB-2"), g("G-NET-LIB-3"), g("G-TUNER-LIB-1")},
		Note: "the tuner loader falls back to the net plugin's library",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/plugin/net.cc", Func: "initPluginLibsOnceFunc"}},
	{Name: "NCCL_NO_CACHE", Gates: []GateLink{g("G-ENV-PARAM-1")},
		Note: "2.29.7 reads it in src/misc/param.cc ncclGetEnvNoCacheOnce",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/param/param.cc", Func: "ncclParamIsCacheDisabled"}},
	{Name: "NCCL_NUM_RMA_CTX", Gates: []GateLink{g("G-RMA-OP-1"), g("G-SEL-SIDE-1")},
		Note: "0 leaves the communicator without an RMA context: no one-sided calls and no hierarchical CE (2.30.7)",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/init.cc", Func: "envConfigOverride"}},
	{Name: "NCCL_NVLSTREE_MAX_CHUNKSIZE", Note: "non-gating: caps NVLSTree's chunk when set (since 2.20.3; from 2.30.3 it replaces ncclNvlsTuning's cap); the schedule reads it",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/enqueue.cc", Func: "calcCollChunking"}},
	{Name: "NCCL_NVLS_CHUNKSIZE", Note: "non-gating: NVLS's largest chunk and NVLSTree's first (comm->nvlsChunkSize, since 2.21.5; from 2.30.3 a set value replaces ncclNvlsTuning's chunk); the schedule reads it",
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/transport/nvls.cc", Func: "ncclNvlsSetup"}},
	{Name: "NCCL_NVLS_ENABLE", Gates: []GateLink{g("G-NVLS-ENV-1"), g("G-NVLS-SETUP-1"), g("G-NVLS-EARLY-1")},
		Note: "1 forces NVLS on (no capability query) and makes a multicast bind failure fatal",
		Ref:  spec.Ref{Tag: "v2.28.9-1", File: "src/transport/nvls.cc", Func: "ncclNvlsInit"}},
	{Name: "NCCL_NVLS_NCHANNELS", Gates: []GateLink{g("G-NVLS-CHAN-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/init.cc", Func: "envConfigOverride"}},
	{Name: "NCCL_P2P_DIRECT_DISABLE", Gates: []GateLink{g("G-TRANSPORT-CONN-1")},
		Note: "non-gating: ranks sharing a process connect over IPC/cuMem instead of P2P/direct pointer", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/transport/p2p.cc", Func: "p2pSendSetup"}},
	{Name: "NCCL_P2P_DISABLE", Gates: []GateLink{gWhen("G-MNNVL-1", mnnvlUserP2P)},
		Note: "the user P2P level gates the MNNVL check since 2.27.3", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/paths.cc", Func: "ncclGetUserP2pLevel"}},
	{Name: "NCCL_P2P_LEVEL", Gates: []GateLink{gWhen("G-MNNVL-1", mnnvlUserP2P)},
		Note: "the user P2P level gates the MNNVL check since 2.27.3", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/paths.cc", Func: "ncclGetUserP2pLevel"}},
	{Name: "NCCL_P2P_READ_ENABLE", Gates: []GateLink{g("G-TRANSPORT-CONN-1")},
		Note: "non-gating: P2P read (\"/read\" on the connection line); by default on for sm80 pairs over NVLink", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/transport/p2p.cc", Func: "p2pGetInfo"}},
	{Name: "NCCL_PAT_ENABLE", Gates: []GateLink{g("G-PAT-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/tuning.cc", Func: "ncclPatEnable"}},
	{Name: "NCCL_PROFILER_PLUGIN", Gates: []GateLink{g("G-PROF-1")},
		Note: "non-gating for selection: a profiler that fails to load or init leaves init going", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/plugin/profiler.cc", Func: "ncclProfilerPluginLoad"}},
	{Name: "NCCL_PROTO", Gates: []GateLink{g("G-SEL-PARSE-1"), g("G-SEL-PARSE-2"), g("G-TUNE-EN-1"), g("G-TUNE-PROTO-1"),
		g("G-TUNE-RINGRESTORE-1"), g("G-SEL-BACKUP-1"), g("G-SEL-ERR-1"), g("G-SEL-CTAPOL-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"}},
	{Name: "NCCL_RMA_PLUGIN", Gates: []GateLink{g("G-RMA-1")},
		Note: "non-gating for selection", Ref: spec.Ref{Tag: "v2.30.7-1", File: "src/plugin/rma.cc", Func: "initPluginLibsOnceFunc"}},
	{Name: "NCCL_RUNTIME_CONNECT", Gates: []GateLink{g("G-EXEC-RTCONN-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/init.cc", Func: "initTransportsRank"}},
	{Name: "NCCL_SHM_MEMCPY_MODE", Gates: []GateLink{g("G-TRANSPORT-CONN-1")},
		Note: "non-gating: with NCCL_SHM_USE_CUDA_MEMCPY, the side that copies (1 send, 2 receive, 3 both)", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/transport/shm.cc", Func: "initCeOperation"}},
	{Name: "NCCL_SHM_USE_CUDA_MEMCPY", Gates: []GateLink{g("G-TRANSPORT-CONN-1")},
		Note: "non-gating: SHM copies with the copy engine (\"SHM/CE/...\" on the connection line)", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/transport/shm.cc", Func: "initCeOperation"}},
	{Name: "NCCL_SINGLE_PROC_MEM_REG_ENABLE", Gates: []GateLink{g("G-REG-UB-1")},
		Note: "keeps NVLS buffer registration (nvlsRegSupport) and the symmetric LL kernels (2.29.2+) for ranks sharing a process (--procs per-node); with one process per GPU registration is on whatever it says",
		Ref:  spec.Ref{Tag: "v2.28.3-1", File: "src/init.cc", Func: "initTransportsRank"}},
	{Name: "NCCL_SOCKET_IFNAME", Gates: []GateLink{g("G-NET-SOCK-1"), g("G-NET-IB-1")},
		Note: "IB also needs an out-of-band IP interface from this list", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/misc/socket.cc", Func: "ncclFindInterfaces"}},
	{Name: "NCCL_SYM_NOWIN_ENABLE", Gates: []GateLink{g("G-SEL-SIDE-1")},
		Note: "buffers outside symmetric windows keep an LL symmetric kernel when the cost table alone picks LL (2.29.2+)",
		Ref:  spec.Ref{Tag: "v2.29.2-1", File: "src/scheduler/symmetric_sched.cc", Func: "ncclMakeSymmetricTaskList"}},
	{Name: "NCCL_SYM_TMA_ENABLE", Gates: []GateLink{g("G-SEL-SIDE-1")},
		Note: "the TMA symmetric kernels on sm100+ (2.30.3+)",
		Ref:  spec.Ref{Tag: "v2.30.3-1", File: "src/sym_kernels.cc", Func: "ncclSymkMask"}},
	{Name: "NCCL_TOPO_FILE", Gates: []GateLink{g("G-NVLS-GRAPH-1"), g("G-COLLNET-GRAPH-1")},
		Note: "replaces the detected topology every graph gate reads", Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/graph/topo.cc", Func: "ncclTopoGetSystem"}},
	{Name: "NCCL_TOPO_SPLIT_MLOPART", Gates: []GateLink{g("G-TOPO-1")},
		Note: "0 puts an MLOPart GPU's partitions on one DEV node (2.30.7, G-TOPO-MLOPART-1, G-TOPO-DEV-1): the topology stage builds them as GPUs of one device, its NVLinks and C2C counted once",
		Ref:  spec.Ref{Tag: "v2.30.7-1", File: "src/graph/topo.cc", Func: "ncclTopoAddGpuSub"}},
	{Name: "NCCL_TUNER_PLUGIN", Gates: []GateLink{g("G-TUNER-LIB-1"), g("G-TUNER-ABI-1"), g("G-TUNER-INIT-1"), g("G-TUNER-CALL-1")},
		Ref: spec.Ref{Tag: "v2.28.9-1", File: "src/plugin/tuner.cc", Func: "ncclTunerPluginLoad"}},
	{Name: "NCCL_WORK_ARGS_BYTES", Gates: []GateLink{g("G-SCHED-BUDGET-1")},
		Note: "comm->workArgsBytes, at most the 4 KiB kernel argument limit: a kernel plan's work batches (and work, when it fits) go in the arguments; a smaller value splits a group into more plans",
		Ref:  spec.Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "devCommSetup"}},
	{Name: "NCCL_WORK_FIFO_BYTES", Gates: []GateLink{g("G-SCHED-BUDGET-1")},
		Note: "a plan not captured into a CUDA graph keeps at most half the work FIFO of work outside its kernel arguments (a power of 2, else the default 1 MiB with a WARN; at most 1 GiB)",
		Ref:  spec.Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "devCommSetup"}},
	{Name: "NCCL_WORK_FIFO_DEPTH", Gates: []GateLink{g("G-GROUP-PLAN-1")},
		Note: "a kernel plan takes at most half of it in ncclWork structs (a power of 2, else ignored); a larger group is split into several plans",
		Ref:  spec.Ref{Tag: "v2.21.5-1", File: "src/enqueue.cc", Func: "ncclLaunchPrepare"}},
}

// GatesFor returns the gate rules a variable feeds at the registry's
// release: the links whose rule the release's ruleset has, where the
// release's table reads the variable. The first call derives every
// variable's links from one load of the ruleset (gateTable); later calls
// look them up.
func (r *Registry) GatesFor(name string) []spec.RuleID {
	r.gatesOnce.Do(func() { r.gates = r.gateTable() })
	return slices.Clone(r.gates[name])
}

// gateTable is the links of every variable of Gates the release reads
// (none where gatesim has no ruleset for the release).
func (r *Registry) gateTable() map[string][]spec.RuleID {
	out := map[string][]spec.RuleID{}
	rs, err := spec.Load(r.Version)
	if err != nil {
		return out
	}
	rel, _ := ReleaseOf(r.Version)
	for _, gi := range Gates {
		if _, seen := out[gi.Name]; seen {
			continue // a name's first entry holds its links
		}
		if p, ok := r.Lookup(gi.Name); !ok || !p.Read() {
			continue
		}
		var ids []spec.RuleID
		for _, l := range gi.Gates {
			if l.When != nil && !l.When(rel) {
				continue
			}
			if _, has := rs.Rule(l.Rule); has {
				ids = append(ids, l.Rule)
			}
		}
		out[gi.Name] = ids
	}
	return out
}

// deprecation returns the entry of a name at the registry's release: one
// with a replacement holds where the release reads the replacement.
func (r *Registry) deprecation(name string) (Deprecation, bool) {
	for _, d := range Deprecations {
		if d.Name == name && (d.Replacement == "" || r.reads(d.Replacement)) {
			return d, true
		}
	}
	return Deprecation{}, false
}

func foreign(name string) (Foreign, bool) {
	for _, f := range Foreigns {
		if f.Name == name {
			return f, true
		}
	}
	return Foreign{}, false
}

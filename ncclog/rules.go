package ncclog

import "github.com/gatesim/gatesim/spec"

// Rule is a gate an observation can speak about. IDs are those of spec's gate
// engine; Proposed marks the two this package needs for which the engine has
// no rule yet (GPUDirect RDMA).
type Rule struct {
	ID       spec.RuleID
	Layer    spec.Layer
	Title    string
	Ref      spec.Ref
	Proposed bool
}

// Rules lists the rules observations use, in NCCL's evaluation order
// (nccl-gates.md §1.1, R28 list). The order is the order of verdicts in an
// observed Trace.
var Rules = []Rule{
	{ID: "G-ENV-PARAM-1", Layer: spec.LayerEnv, Title: "NCCL_* parameter read from the environment", Ref: ref(t2289, "src/misc/param.cc", "ncclLoadParam")},
	{ID: "G-ENV-CONFIG-1", Layer: spec.LayerEnv, Title: "communicator config (ncclConfig_t)", Ref: ref(t2230, "src/init.cc", "envConfigOverride")},
	{ID: "G-GIN-1", Layer: spec.LayerLibrary, Title: "GIN plugin", Ref: ref(t2230, "src/plugin/gin.cc", "ncclGinInit")},
	{ID: "G-RMA-1", Layer: spec.LayerLibrary, Title: "RMA plugin", Ref: ref(t2230, "src/plugin/rma.cc", "ncclRmaInit")},
	{ID: "G-COLLNET-ENV-1", Layer: spec.LayerEnv, Title: "NCCL_COLLNET_ENABLE", Ref: ref(t2289, "src/init.cc", "envConfigOverride")},
	{ID: "G-NET-LIB-1", Layer: spec.LayerLibrary, Title: "net plugin library candidates and dlopen", Ref: ref(t2289, "src/plugin/plugin_open.cc", "openPluginLib")},
	{ID: "G-NET-LIB-2", Layer: spec.LayerLibrary, Title: "no external library: internal networks only", Ref: ref(t2289, "src/plugin/plugin_open.cc", "openPluginLib")},
	{ID: "G-NET-ABI-1", Layer: spec.LayerABI, Title: "ncclNetPlugin_vN symbol accepted", Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginLoad")},
	{ID: "G-COLLNET-ABI-1", Layer: spec.LayerABI, Title: "ncclCollNetPlugin_vN symbol accepted", Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginLoad")},
	{ID: "G-NET-STATE-1", Layer: spec.LayerDevice, Title: "network init succeeds with devices > 0", Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginInit")},
	{ID: "G-NET-IB-1", Layer: spec.LayerDevice, Title: "internal IB: verbs, IP interface, active ports", Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbInitDevices")},
	{ID: "G-NET-SOCK-1", Layer: spec.LayerDevice, Title: "internal Socket: an interface", Ref: ref(t2289, "src/transport/net_socket.cc", "ncclNetSocketInit")},
	{ID: "G-NET-ABI-2", Layer: spec.LayerABI, Title: "network device-offload version", Ref: ref(t2289, "src/plugin/net.cc", "ncclNetCheckDeviceVersion")},
	{ID: "G-NET-SEL-1", Layer: spec.LayerDevice, Title: "network chosen for the communicator (NCCL_NET)", Ref: ref(t2289, "src/plugin/net.cc", "ncclNetInit")},
	{ID: "G-NET-SEL-2", Layer: spec.LayerDevice, Title: "CollNet attaches only to the chosen net plugin", Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginAssignToComm")},
	{ID: "G-NET-GDR-1", Layer: spec.LayerDevice, Title: "NIC supports GPUDirect RDMA (peer-memory module or DMA-BUF)", Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbGdrSupport"), Proposed: true},
	{ID: "G-NET-GDR-2", Layer: spec.LayerGraph, Title: "GPU-NIC path close enough for GPUDirect RDMA (NCCL_NET_GDR_LEVEL)", Ref: ref(t2289, "src/graph/paths.cc", "ncclTopoCheckGdr"), Proposed: true},
	{ID: "G-DEV-DUP-1", Layer: spec.LayerDevice, Title: "several ranks on one GPU", Ref: ref(t2289, "src/init.cc", "initTransportsRank")},
	{ID: "G-MNNVL-1", Layer: spec.LayerDevice, Title: "multi-node NVLink", Ref: ref(t2289, "src/mnnvl.cc", "ncclMnnvlCheck")},
	{ID: "G-COLLNET-PLUGIN-1", Layer: spec.LayerDevice, Title: "a CollNet object is attached", Ref: ref(t2289, "src/init.cc", "initTransportsRank")},
	{ID: "G-TOPO-VNIC-1", Layer: spec.LayerGraph, Title: "NIC ports fused into virtual NICs", Ref: ref(t2289, "src/graph/topo.cc", "ncclTopoMakeVNics"), Proposed: true},
	{ID: "G-NVLS-ENV-1", Layer: spec.LayerDevice, Title: "NCCL_NVLS_ENABLE", Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsInit")},
	{ID: "G-NVLS-CAP-1", Layer: spec.LayerDevice, Title: "multicast capability of the device", Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsInit")},
	{ID: "G-NVLS-CHAN-1", Layer: spec.LayerDevice, Title: "NVLS channel count (0 skips the NVLS setup)", Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsInit")},
	{ID: "G-COLLNET-GRAPH-1", Layer: spec.LayerGraph, Title: "CollNet graph search finds channels", Ref: ref(t2289, "src/graph/search.cc", "ncclTopoCompute")},
	{ID: "G-NVLS-GRAPH-1", Layer: spec.LayerGraph, Title: "NVLS graph search finds channels", Ref: ref(t2289, "src/graph/search.cc", "ncclTopoCompute")},
	{ID: "G-NVLS-CONS-1", Layer: spec.LayerGraph, Title: "NVLS channels agreed by all ranks", Ref: ref(t2289, "src/init.cc", "initTransportsRank")},
	{ID: "G-COLLNET-THRESH-1", Layer: spec.LayerGraph, Title: "nNodes >= NCCL_COLLNET_NODE_THRESHOLD", Ref: ref(t2289, "src/init.cc", "initTransportsRank")},
	{ID: "G-COLLNET-ARITY-1", Layer: spec.LayerGraph, Title: "at most 8 GPUs per node for CollNet", Ref: ref("v2.22.3-1", "src/init.cc", "initTransportsRank")},
	{ID: "G-NVLS-SETUP-1", Layer: spec.LayerGraph, Title: "multicast object created and bound", Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsSetup")},
	{ID: "G-NVLSTREE-1", Layer: spec.LayerGraph, Title: "NVLSTree needs NVLS and nNodes > 1", Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsTreeConnect")},
	{ID: "G-COLLNET-SETUP-1", Layer: spec.LayerGraph, Title: "CollNet transport setup on every head", Ref: ref(t2289, "src/transport/coll_net.cc", "ncclCollNetSetup")},
	{ID: "G-COLLNET-MATRIX-1", Layer: spec.LayerGraph, Title: "CollNet reduction support matrix (redop x datatype)", Ref: ref(t2289, "src/transport/coll_net.cc", "ncclCollNetSetup")},
	{ID: "G-TRANSPORT-1", Layer: spec.LayerGraph, Title: "intra-node transport: P2P, then SHM, then the network", Ref: ref(t2289, "src/transport.cc", "selectTransport")},
	{ID: "G-TUNER-LIB-1", Layer: spec.LayerLibrary, Title: "tuner plugin library", Ref: ref(t2289, "src/plugin/tuner.cc", "ncclTunerPluginLoad")},
	{ID: "G-TUNER-ABI-1", Layer: spec.LayerABI, Title: "tuner symbol accepted", Ref: ref(t2289, "src/plugin/tuner.cc", "ncclTunerPluginLoad")},
	{ID: "G-TUNE-EN-1", Layer: spec.LayerModel, Title: "enable matrix after support disables", Ref: ref(t2289, "src/graph/tuning.cc", "ncclTopoTuneModel")},
	{ID: "G-PAT-1", Layer: spec.LayerModel, Title: "PAT eligibility", Ref: ref(t2289, "src/graph/tuning.cc", "ncclPatEnable")},
	{ID: "G-SEL-PARSE-1", Layer: spec.LayerModel, Title: "NCCL_ALGO/NCCL_PROTO legacy grammar", Ref: ref("v2.22.3-1", "src/graph/tuning.cc", "parseList")},
	{ID: "G-SEL-PARSE-2", Layer: spec.LayerModel, Title: "NCCL_ALGO/NCCL_PROTO per-function grammar", Ref: ref(t2289, "src/graph/tuning.cc", "parseList")},
	{ID: "G-INIT-ABORT-1", Layer: spec.LayerGroup, Title: "a failed init job freed twice on ncclCommInitRank's error path", Ref: ref("v2.25.1-1", "src/init.cc", "ncclCommInitRankDev")},
	{ID: "G-SEL-SIDE-1", Layer: spec.LayerSelect, Title: "symmetric kernels bypass the cost table", Ref: ref(t2289, "src/enqueue.cc", "ncclMakeSymmetricTaskList")},
	{ID: "G-SEL-OPSUP-1", Layer: spec.LayerSelect, Title: "per-operation CollNet and NVLS support", Ref: ref(t2289, "src/enqueue.cc", "getCollNetSupport")},
	{ID: "G-SEL-PICK-1", Layer: spec.LayerSelect, Title: "cost-table argmin", Ref: ref(t2289, "src/enqueue.cc", "topoGetAlgoInfo")},
	{ID: "G-SEL-BACKUP-1", Layer: spec.LayerSelect, Title: "silent Ring backup (2.19-2.23)", Ref: ref("v2.22.3-1", "src/enqueue.cc", "topoGetAlgoInfo")},
	{ID: "G-SEL-ERR-1", Layer: spec.LayerSelect, Title: "no algorithm/protocol available (before 2.19, 2.24+)", Ref: ref(t2289, "src/enqueue.cc", "topoGetAlgoInfo")},
	{ID: "G-REG-UB-1", Layer: spec.LayerGroup, Title: "NVLS and CollNet user buffers registered", Ref: ref(t2289, "src/register/coll_reg.cc", "ncclRegisterCollNvlsBuffers")},
	{ID: "G-EXEC-RTCONN-1", Layer: spec.LayerExec, Title: "connection of the selected algorithm", Ref: ref(t2289, "src/group.cc", "ncclCollPreconnect")},
	{ID: "G-EXEC-ERR-1", Layer: spec.LayerExec, Title: "network errors during progress", Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbTest")},
}

// RuleByID returns a rule of the table.
func RuleByID(id spec.RuleID) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

func ruleIndex(id spec.RuleID) int {
	for i, r := range Rules {
		if r.ID == id {
			return i
		}
	}
	return len(Rules)
}

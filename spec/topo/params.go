package topo

import (
	"fmt"

	"github.com/gatesim/gatesim/nccl"
)

// Params holds the per-release rules of the topology model, the paths and
// the graph search: every place where NCCL's source differs between the
// modelled releases is one field here, documented with where it lives, so the
// search code reads a switch instead of comparing versions. Params2_22_3 is
// the reference release; Apply2_23_4 … Apply2_30_3 turn a copy into the
// later releases that change it, Apply2_21_5 … Apply2_18_1 into the older.
type Params struct {
	// Release is the release these rules are of. spec sets it from the
	// Release value whose deltas built them; no Apply function names it.
	Release nccl.Version

	// MaxChannels is MAXCHANNELS (src/include/device.h): 32 in 2.22.3, 64
	// from 2.23. The ring search asks for at most half of it.
	MaxChannels int

	// PathOrder lists the path types the release defines, in numeric order.
	// The search relaxes typeIntra/typeInter with "+= 1", which walks this
	// list: 2.22.3 has no C2C and no P2C (src/graph/topo.h PATH_*).
	PathOrder []PathType

	// C2CLink is the link type a <c2c> element creates: LINK_NVL in 2.22.3,
	// LINK_C2C from 2.24 (src/graph/topo.cc ncclTopoAddC2c).
	C2CLink LinkType

	// NVLinkBwSM100 is the per-link NVLink bandwidth of sm100 GPUs
	// (SM100_NVLINK_BW 40.1 in 2.28, src/graph/topo.h ncclTopoNVLinkBw);
	// 0 means the release has no sm100 entry and uses the sm90 value (20.6).
	NVLinkBwSM100 float32

	// IntelSRPERP recognises Sapphire/Emerald Rapids (modelid >= 0x8F / 0xCF)
	// and gives them SRP_QPI_BW 22 / ERP_QPI_BW 40 (2.28 src/graph/topo.cc
	// ncclTopoAddCpu, ncclTopoGetInterCpuBw); 2.22.3 knows BDW and SKL only.
	IntelSRPERP bool

	// PCIClassDataDirect lists class 0x080100 (ConnectX-8 data direct) as a
	// PCI switch (2.28 src/graph/topo.cc kvDictPciClass).
	PCIClassDataDirect bool

	// NICIDPerNUMA builds NIC ids as NCCL_TOPO_LOCAL_NIC_ID(numaid, busid)
	// (2.28 src/graph/topo.cc ncclTopoAddPci); 2.22.3 uses the bus id with
	// its function bits cleared.
	NICIDPerNUMA bool

	// NetAsicFromID: without a guid a NET's asic is its topology id (2.28.9
	// ncclTopoAddNet); before, it is the plugin dev number.
	// NetGUIDNeeds0x: the guid is read with sscanf("0x%lx") (2.22.3, 2.28.3)
	// instead of strtoull(,16), so a guid without "0x" leaves asic 0.
	NetAsicFromID  bool
	NetGUIDNeeds0x bool

	// SelfPathsDIS initialises a base node's paths to its own type as
	// PATH_DIS (2.28 src/graph/paths.cc ncclTopoSetPaths); 2.22.3 leaves them
	// zero (PATH_LOC) until another search fills them.
	SelfPathsDIS bool

	// LocalCPUNeedsHops: ncclGetLocalCpu skips CPUs at 0 hops (unreachable)
	// (2.28 src/graph/paths.cc); 2.22.3's getLocalCpu does not.
	LocalCPUNeedsHops bool

	// P2PLevelAMDPairs: the default P2P level is PXB, raised to SYS on AMD
	// x86 with at most two GPUs (2.28 src/graph/paths.cc ncclTopoCheckP2p).
	// When false (2.22.3) the default is SYS, lowered to PXB on ARM, Intel
	// and Zhaoxin CPUs.
	P2PLevelAMDPairs bool

	// C2CPaths enables GDR over C2C (NCCL_NET_GDR_C2C): a GPU whose CPU is
	// C2C-attached reaches a NIC behind that CPU at C2C distance (2.26.2+
	// src/graph/paths.cc ncclTopoCheckGdr; before 2.27.3 the NIC path is
	// PHB). P2CPaths adds PATH_P2C (2.27.3+): the GPU→NIC P2C shortcut
	// through a C2C-attached CPU and PXN through a P2C peer (NCCL_PXN_C2C,
	// default 0 until 2.27.7, 1 from 2.28.3).
	C2CPaths bool
	P2CPaths bool

	// PXNAvoidsPXN: PXN is used when the GPU's own path is worse than PXN
	// (2.28 ncclTopoComputePaths condition (4)); 2.22.3 tests "worse than PXB".
	PXNAvoidsPXN bool
	// PXNOwnAbovePXNType: condition (4) of 2.27.5 alone tests the GPU's own
	// path against the PXN type of condition (1), P2C with NCCL_PXN_C2C and
	// PXB without (2.27.3 "worse than PXB", 2.27.6 PXNAvoidsPXN).
	PXNOwnAbovePXNType bool
	// GdrReadAllArchs: with NCCL_NET_GDR_READ unset a send connector of any
	// GPU reads over GDR only beside an NVLink peer or alone (2.18.x; from
	// 2.19.1 only below sm80; ncclTopoCheckGdr).
	GdrReadAllArchs bool
	// GdrModePCI: ncclTopoCheckGdr returns a mode (2.26.2+), PCI for a
	// C2C-attached GPU whose NIC is not behind its own CPU, and the
	// connection line prints "(PCI)" after "/GDRDMA" (src/transport/net.cc
	// sendSetup, recvSetup).
	GdrModePCI bool
	// GdrLevelP2C: the default GDR level is P2C with NCCL_NET_GDR_C2C and a
	// P2C distance is no longer taken as C2C (2.29.2+; before, PXB and P2C
	// read as C2C; ncclTopoCheckGdr).
	GdrLevelP2C bool
	// FlushC2C: a GDR receive of a GPU whose local CPU is C2C-attached
	// flushes when its NIC is within PXB, whatever the GPU's architecture
	// (2.26.2+; before, only below sm90 or with NCCL_NET_FORCE_FLUSH;
	// src/graph/paths.cc ncclTopoNeedFlush, G-NET-CONN-FLUSH-1).
	FlushC2C bool
	// PXNP2PType: a point-to-point send goes through the peer NIC's local
	// GPU when that GPU reaches the NIC within P2C with NCCL_PXN_C2C, else
	// PXB (2.27.6+; before, PXB; src/graph/search.cc ncclTopoGetNetDev).
	PXNP2PType bool
	// PXNP2PNeedsGDR: that GPU must also write to the NIC over GDR
	// (2.30.3+; ncclTopoGetNetDev).
	PXNP2PNeedsGDR bool
	// P2CMerge: mergePathType (2.27.5+). addInterStep gives PHB after C2C
	// type P2C, and the P2C shortcut tests the GPU's and the NET's paths to
	// the GPU's CPU (C2C and PHB); 2.27.3 takes the larger type in
	// addInterStep and gives P2C to a GPU→NET path of PHB whose GPU
	// reaches its CPU over C2C.
	P2CMerge bool

	// InterFlag: a communicator spanning several hosts is marked by
	// system->inter and the NET nodes are kept for single-host communicators
	// (2.28.9 src/graph/paths.cc ncclTopoTrimSystem). When false the NETs are
	// removed when all ranks are local and "inter" means "NET nodes exist"
	// (2.22.3, 2.28.3).
	InterFlag bool

	// PathBasedTypes starts typeIntra/typeInter at the best GPU→GPU/NET path
	// type and bounds them by the worst (2.24+ src/graph/search.cc
	// ncclTopoCompute); 2.22.3 starts at NVL (LOC for one GPU) / PIX and
	// stops at SYS.
	PathBasedTypes bool

	// SM100Speeds adds the sm100 speed arrays (2.28 src/graph/search.cc
	// sm100SpeedArrayIntra/Inter); without them sm100 uses the sm90 arrays.
	SM100Speeds bool

	// ArityCaps caps NVLS and CollNetDirect channels at NCCL_MAX_NVLS_ARITY
	// (32) and NCCL_MAX_DIRECT_ARITY+1 (8) (2.28 ncclTopoCompute); 2.22.3
	// caps both at the GPU count.
	ArityCaps bool

	// SplitNVLinkMin2 forces ring minChannels to 2 on systems with exactly
	// two NVLink islands (2.28 ncclTopoCompute, ncclTopoSplitNvLink).
	SplitNVLinkMin2 bool

	// CrossNic2: the crossNic relaxation sets crossNic 2 (alternating ring
	// pairs) and is tried for rings and balanced trees only (2.28
	// ncclTopoCompute, ncclTopoSearchRecGpu, ncclTopoSearchRecNet). When false
	// (2.22.3) it sets crossNic 1 for every pattern and odd channels are
	// pinned to the previous channel's NETs.
	CrossNic2 bool

	// ReplayOnlySameChannels: RecNet replays the previous channel only when
	// sameChannels is set, else it searches afresh (2.28
	// ncclTopoSearchRecNet); 2.22.3 always replays first and then also
	// searches when sameChannels is 0.
	ReplayOnlySameChannels bool

	// LocalGPUStart: RecNet starts a channel at the NET's precomputed local
	// GPU and then the other equally close GPUs (2.28 ncclTopoSearchRecNet,
	// ncclTopoGetLocal); 2.22.3 tries every GPU with the best bandwidth and
	// fewest hops, starting at nChannels % nGPUs.
	LocalGPUStart bool

	// HeadFoundBreak: NVLS/CollNetDirect head search stops at the first NIC
	// that found a head ("break"); 2.22.3 "continue"s, which skips the
	// remaining NICs without giving their bandwidth back.
	HeadFoundBreak bool

	// FollowPathSkipsDIS: ncclTopoFollowPath refuses PATH_DIS paths (2.28).
	FollowPathSkipsDIS bool

	// NetDevsPolicySelect: ncclTopoSelectNets honours NCCL_NETDEVS_POLICY
	// MAX:n (2.28.9 src/graph/search.cc). NetDevsPolicy: ncclTopoGetLocalNet
	// honours NCCL_NETDEVS_POLICY at all (2.28.3+; 2.22.3 is always AUTO).
	NetDevsPolicySelect bool
	NetDevsPolicy       bool

	// NetPrintIDs prints ncclTopoPrint's link targets, the paths header and
	// a graph channel's NETs as "NET/0-3" (2.23.4+ src/graph/topo.cc
	// ncclTopoPrintRec, paths.cc printNodePaths, search.cc
	// ncclTopoPrintGraph); 2.22.3 prints the raw id "NET/3".
	// NetPrintColl adds collSupport to ncclTopoPrint's NET line (2.24.3+).
	// GraphNetMixedID: 2.23.4 prints a channel's second NET with the first
	// NET's local id (ncclTopoPrintGraph).
	NetPrintIDs     bool
	NetPrintColl    bool
	GraphNetMixedID bool

	// GraphPrintIDs prints a graph channel's GPUs as "GPU/0-18000" and the
	// NVLS graph with its head only (2.27.5+ ncclTopoPrintGraph); before,
	// "GPU/<rank>" and every GPU slot.
	GraphPrintIDs bool

	// CollNetDirectGraphID is the id of the CollNetDirect graph: 2 in 2.22.3
	// (the same as CollNetChain), 4 from 2.24 (src/init.cc).
	CollNetDirectGraphID int

	// NVLSMinGPUs is the smallest GPU count for NVLS: 3 in 2.22.3 and 2.28.3
	// (gpuCount <= 2 disables it), 2 in 2.28.9 (src/transport/nvls.cc
	// ncclNvlsInit).
	NVLSMinGPUs int

	// NVLSChannelsBySM picks nvlsChannels from the SM: 16 on sm90, 24 on a
	// single sm100 node or NVL domain, 32 multi-node (2.28
	// src/transport/nvls.cc NVLS_NCHANNELS_*); 2.22.3 uses
	// NCCL_NVLS_NCHANNELS, default 16.
	NVLSChannelsBySM bool

	// NVLSRaisesChannels: ncclTopoPostset raises comm->nChannels to
	// nvlsChannels (2.22.3 src/graph/connect.cc); gone in 2.28.
	NVLSRaisesChannels bool

	// UnpackDouble: ncclTopoPostset doubles the channels of an UNPACK
	// network device across nodes, below 16 channels, unless
	// NCCL_UNPACK_DOUBLE_NCHANNELS=0 (2.22.3+ src/graph/connect.cc).
	UnpackDouble bool

	// ComputeChannelsSM90Plus: the "4 compute channels per search channel"
	// doubling applies to minCompCap >= 90 (2.28 ncclTopoPostset); 2.22.3
	// tests minCompCap == 90.
	ComputeChannelsSM90Plus bool

	// LinkTypeP2C lets a graph XML name typeintra/typeinter "P2C" (2.24+
	// src/graph/search.cc kvDictLinkType).
	LinkTypeP2C bool

	// CollNetLocalRanksCap disables CollNet when a node has more than
	// NCCL_MAX_DIRECT_ARITY+1 (8) ranks, right after the graph consensus
	// (2.22.3 src/init.cc initTransportsRank); 2.28 only skips CollNet at
	// enqueue for such communicators.
	CollNetLocalRanksCap bool

	// MNNVLRailPerHost honours NCCL_MNNVL_RAIL_PER_HOST in the exit-NET rule
	// (2.28.9 src/graph/search.cc ncclTopoSearchCheckNet).
	MNNVLRailPerHost bool

	// MNNVLNets: on multi-host (MNNVL) systems the preferred NETs are listed
	// GPU by GPU (2.28 ncclTopoPrefNetsGpuFirst, NCCL_MNNVL_SCATTER_NETS_ENABLE).
	MNNVLNets bool

	// InterSYSBelowSM90: below sm90 the inter-node path type may grow to
	// PATH_SYS again whatever the largest GPU→NET path is (2.29.2
	// src/graph/search.cc ncclTopoCompute; balanced trees of sm80 hosts
	// need it, 2.25.1–2.28.9 fall back to one channel in simple order).
	InterSYSBelowSM90 bool

	// SM100SpeedsIntra and SM100SpeedsInter are the sm100 speed arrays of
	// the release (src/graph/search.cc sm100SpeedArrayIntra/Inter; every
	// release from 2.25.1 sets them); nil: search.go's (the 2.27.6–2.28.9
	// values).
	SM100SpeedsIntra []float32
	SM100SpeedsInter []float32

	// LocalNetMask (2.18.1-2.18.3): a GPU's NET for a channel is a round
	// robin over the GPUs that share its set of closest NETs (a bit mask of
	// NET ids), a NET's local GPU is the inverse of that round robin, and
	// ncclTopoSelectNets lists the NETs by path type only, each type's list
	// rotated by the GPU's device number (src/graph/topo.cc
	// ncclTopoGetLocalNet, ncclTopoGetLocalGpu; src/graph/search.cc
	// ncclTopoSelectNets). From 2.18.5 the device number, mirrored, picks
	// among the closest NETs and the local NETs come first.
	LocalNetMask bool
	// NVLinkBwSM90 is the per-link NVLink bandwidth of sm90 GPUs where a
	// release differs from SM90_NVLINK_BW 20.6 (2.20.3+): 20.0 in 2.19.x
	// (src/graph/topo.h); 0 (a Params built by hand) means 20.6.
	NVLinkBwSM90 float32

	// ComputeChannelsFitMax: the "4 compute channels per search channel"
	// doubling needs 2*nChannels <= MAXCHANNELS (2.19.x
	// src/graph/connect.cc ncclTopoPostset) instead of nChannels < 16.
	ComputeChannelsFitMax bool

	// NetPeerChannelsFixed: a remote peer gets NCCL_NCHANNELS_PER_NET_PEER
	// (default 2) p2p channels whatever the NIC count, and a negative value
	// (-1 included) leaves the peer out of the minimum (2.18.x, 2.19.x
	// src/graph/paths.cc ncclTopoGetNchannels, ncclTopoComputeP2pChannels);
	// from 2.20.3 the default and an explicit -1 derive them from the NICs
	// and the rank count.
	NetPeerChannelsFixed bool

	// NetPeerEnvPositiveOnly: NCCL_NCHANNELS_PER_NET_PEER <= 0 is ignored
	// ("is too low", the NIC rule stays) as the variable only overrides
	// the communicator config's nChannelsPerNetPeer (2.28.3+ src/init.cc
	// envConfigOverride); before, 0 made the minimum 0 (one channel per
	// peer) and a value below -1 left the peer out.
	NetPeerEnvPositiveOnly bool
	// P2PChannelsByNetBw (2.29.2): a remote peer gets one p2p channel per
	// NCCL_P2P_PER_CHANNEL_NET_BW GB/s of the NICs its GPU's channels use
	// (at least one per NIC), each rank counts only its own GPU, and
	// across nodes the per-peer count is halved until a round of
	// NCCL_MAX_DEV_WORK_P2P_PER_BATCH peers per channel fits the p2p
	// channels, instead of the rank-count halving per remote peer. The
	// ranks all-gather their per-peer counts and take the least (before,
	// each rank kept its own node's).
	P2PChannelsByNetBw bool

	// SimpleOrderNets (2.29.2): the simple-order fallback graph names the
	// first preferred NET of its first and last GPU (before: NET id 0),
	// and has no inter-node bandwidth (PATH_DIS) when one has none.
	SimpleOrderNets bool

	// P2PMaxPeers (2.30.3): across nodes the per-peer p2p channels halve
	// until rounds of NCCL_MAX_DEV_WORK_P2P_PER_BATCH out of p2pMaxPeers
	// peers fit the p2p channels, p2pMaxPeers being NCCL_P2P_MAX_PEERS
	// (config maxP2pPeers) capped to nRanks, nRanks when unset; before,
	// always nRanks.
	P2PMaxPeers bool

	// NVLSTuningSM100 (2.30.3): ncclNvlsTuning sets the NVLS channels, the
	// NVLS chunk and the NVLSTree chunk cap of an sm100 communicator of
	// several nodes from the node count, the GPUs per node, the slowest NIC
	// path and its path type (ncclNvlsTreeSm100Tuning), and the chunk and
	// cap of every other communicator with NVLS at init.
	NVLSTuningSM100 bool

	// GPUSubs (2.30.3): ncclTopoAddPci builds every <gpu> of a <pci>
	// (ncclTopoAddGpuSub from 2.30.7), each GPU under the device's DEV
	// node; before, only the first. Several <gpu> on one device are
	// several ranks on one GPU (G-TOPO-DEV-1): GPU nodes under one DEV
	// node joined by LOC links at LOC_BW, the device's links on the DEV
	// and added by its first <gpu> alone; a device with one rank is a DEV
	// node with one GPU node, so every GPU-side path is one hop longer.
	GPUSubs bool
	// GraphXMLRank (2.30.3): the graph XML's <gpu> carries its rank
	// (ncclTopoGetXmlFromChannel), and a graph file's rank attribute
	// names the rank where the dev alone would not
	// (ncclTopoGetChannelFromXml).
	GraphXMLRank bool

	// MLOPartAttr (2.30.7): a <gpu>'s mlopart attribute (the CUDA device
	// name's "MLOPart<n>", written into the topology by ncclTopoGetSystem)
	// makes the GPU a partition with its own DEV node: LOC links at
	// MLOPART_LOC_BW to the other partitions, NVLink and C2C bandwidth
	// shared between them (a CXB bridge for C2C), no GPU Direct RDMA
	// unless NCCL_NET_GDR_MLOPART=1 (G-TOPO-MLOPART-1, -2); every GPU bus
	// id must leave the two partition bits clear. Before, the attribute
	// is not read.
	MLOPartAttr bool

	// AllNVLinkAgreed (2.30.7): comm->isAllNvlink is and-ed over every
	// rank after the third all-gather (src/init.cc initTransportsRank);
	// before, each rank keeps its own node's ncclTopoPathAllNVLink.
	AllNVLinkAgreed bool

	// LocalCPUByBw (2.30.7): ncclGetLocalCpu takes, among the CPUs
	// ncclTopoGetLocal finds closest to the GPU (the highest path
	// bandwidth, then the best path type), the one with the fewest hops,
	// the first on a tie; before, the CPU with the fewest hops (more than
	// 0). The two differ only where a GPU's path to its own CPU is slower
	// than its path to another CPU: under PathTypeFirst a C2C link slower
	// than the PCIe link and the link between the CPUs.
	LocalCPUByBw bool

	// PathTypeFirst (2.30.7): ncclTopoSetPaths replaces a node's path to the
	// base by a better path type, then by a higher bandwidth at the same
	// type, then by fewer hops at the same type and bandwidth, however many
	// hops the new path has. Before, it replaces only by a strictly higher
	// bandwidth over no more hops, and the type follows whichever path won.
	PathTypeFirst bool

	// ChannelLineNoCollNet: the init summary has no "collnet channels"
	// field (2.19.x src/init.cc initTransportsRank).
	ChannelLineNoCollNet bool

	// ChannelLineCollNetSetUp: the summary's collnet field is
	// comm->collNetChannels, which only CollNet's setup sets (to
	// nChannels), so a communicator without CollNet prints 0 (2.20.x
	// src/init.cc initTransportsRank); 2.21.5 prints nChannels twice.
	ChannelLineCollNetSetUp bool

	// SystemPrintRaw: ncclTopoPrint names every node and path target by
	// its raw id, "%s/%lX" ("CPU/1", "GPU/D8000"), and prints a path's
	// bandwidth with "%f" (2.19.x-2.20.x src/graph/topo.cc
	// ncclTopoPrintRec, paths.cc printNodePaths); 2.21.5 prints
	// "%s/%lx-%lx" and "%.1f".
	SystemPrintRaw bool

	// LoneGPUTotalBwZero: a system of one GPU and no NET keeps totalBw 0
	// (2.19.x-2.20.x src/graph/search.cc ncclTopoSearchInit; 2.21.5 sets it
	// to LOC_BW), so the search stops after its first graph (nChannels*bw
	// >= 0). TotalBwScaleOneGPU: ncclTopoCompute scales totalBw by
	// ngpus/(ngpus-1) for one GPU too, making it +Inf (NaN from 0), so no
	// speed is skipped for exceeding it (2.19.x-2.20.x; 2.21.5 scales only
	// for ngpus > 1).
	LoneGPUTotalBwZero bool
	TotalBwScaleOneGPU bool

	// NVSOrder is how the search orders the next GPUs behind an NVSwitch
	// (src/graph/search.cc ncclTopoSearchNextGpuSort, ncclTopoSearchRecNet).
	NVSOrder NVSOrder

	// DupAfterSearch: ncclTopoCompute duplicates a graph's channels at the
	// end, after the search for more bandwidth, and that search raises
	// only trees' bwIntra and NVLS's bwInter, never a ring's (2.19.1);
	// from 2.19.3 ncclTopoDupChannels runs between the passes and rings
	// try higher speeds too.
	DupAfterSearch bool

	// NVLSRaisesIntra: with DupAfterSearch, pass 2 raises an NVLS graph's
	// bwIntra as a tree's, its channel count not pinned, where 2.19.1 raises
	// its bwInter (2.18.x src/graph/search.cc ncclTopoCompute). Only
	// 2.18.1's ranking as rings can keep the raise.
	NVLSRaisesIntra bool

	// NVLSUncapped: across nodes an NVLS graph is searched up to
	// MAXCHANNELS channels, not the GPU count (2.18.x src/graph/search.cc
	// ncclTopoCompute, src/init.cc initTransportsRank).
	NVLSUncapped bool

	// SM90SpeedsIntra and SM90SpeedsInter replace the sm90 speed arrays of
	// search.go (the 2.21.5+ / 2.19.3+ values) where a release differs
	// (src/graph/search.cc sm90SpeedArrayIntra/Inter); nil: unchanged.
	SM90SpeedsIntra []float32
	SM90SpeedsInter []float32

	// CrossNicBonus (2.19.4 and before): ncclTopoCompareGraphs gives a
	// graph a 15 % bonus per crossNic level below the best graph's: it wins
	// when nChannels·bwIntra > ref.nChannels·ref.bwIntra·(1 − (ref.crossNic
	// − crossNic)·0.15), so a crossNic ring must beat the best one by 15 %
	// and a graph without crossNic may be 15 % slower. 2.20.3 compares
	// nChannels·bwIntra alone.
	CrossNicBonus bool

	// CrossNicUnpaired (2.19.4 and before): a crossNic ring's odd channel is
	// not pinned to the NETs of the channel before it, neither where it
	// starts (ncclTopoSearchRecNet) nor where it ends (ncclTopoSearchRecGpu);
	// 2.20.3 pairs them.
	CrossNicUnpaired bool

	// SearchGlobalTimeout is NCCL_SEARCH_GLOBAL_TIMEOUT where a release
	// differs from 1<<19 (2.19.1+): 1<<18 in 2.18.1, 5<<16 in 2.18.3–2.18.6
	// (src/graph/search.cc); 0 means 1<<19.
	SearchGlobalTimeout int64

	// SimplerTreeSplit (2.18.1): the "simpler tree" retry of ncclTopoCompute
	// turns a SPLIT_TREE into a TREE after the crossNic retry, so a balanced
	// tree is never retried as a TREE; from 2.18.3 a balanced tree on sm90+
	// is retried as a TREE before typeIntra is relaxed.
	SimplerTreeSplit bool

	// DupByBwOnly (2.18.1): ncclTopoCompute duplicates the channels of a
	// non-NVLS graph when ccMin <= 80 and bwIntra >= 25, or ccMin <= 90 and
	// bwIntra >= 50, whatever nChannels; from 2.18.3 (still inline in
	// ncclTopoCompute, ncclTopoDupChannels from 2.19.3) any ccMin with
	// bwIntra >= 25, except ccMin > 80 with bwIntra < 50 and more than 4
	// channels.
	DupByBwOnly bool

	// CrossNicAnyPattern (2.18.x): NCCL_CROSS_NIC=1 sets crossNic 1 on
	// every graph (trees, CollNet and NVLS included, a single NIC too) and
	// the crossNic retry, taken only for rings and trees, sets it back to 0
	// after the path types have been relaxed, so the lower speeds search
	// without crossNic (ncclTopoCompute). From 2.19.1 NCCL_CROSS_NIC applies
	// to rings and trees across several NICs only and 1 stays 1.
	CrossNicAnyPattern bool

	// NVLSCompare is how ncclTopoCompareGraphs ranks NVLS graphs: 2.19.1+
	// keeps more channels (up to the GPU count) or more channels × bwInter,
	// 2.18.3–2.18.6 more channels only (so a higher bandwidth at the same
	// channel count is never kept), 2.18.1 ranks them as rings and trees
	// (channels × bwIntra).
	NVLSCompare NVLSCompare

	// CollNetHeadsAllChannels (2.18.1): connectCollNet takes the first GPU
	// of every CollNet channel as a head, duplicates included, so nHeads is
	// the channel count; from 2.18.3 each head is counted once.
	CollNetHeadsAllChannels bool

	// SameChannelsAnyCPU (2.18.x): pass 1 of ncclTopoCompute retries
	// without sameChannels whatever the CPU; from 2.19.1 it keeps
	// sameChannels when the graph's typeIntra is SYS on x86 AMD CPUs
	// (src/graph/search.cc ncclTopoCompute, "except when going through
	// AMD CPUs"; the same test at every tag up to 2.30.7).
	SameChannelsAnyCPU bool

	// NVMLP2PKept (2.18.x): ncclTopoCheckP2p keeps P2P between PCIe GPUs
	// whose NVML P2P status is not OK, with an INFO (only
	// NCCL_IGNORE_DISABLED_P2P=1, which gatesim does not read, turns it
	// off); from 2.19.1 such a pair never uses P2P (Options.P2PNotSupported).
	NVMLP2PKept bool

	// NetChannelBudget (2.18.1): ncclTopoSearchRecNet skips a NET whose
	// channel budget (net.maxChannels, the XML's maxconn: the plugin's
	// maxComms) is spent, and each channel started at a NET takes one.
	NetChannelBudget bool
	// RecNet18 (2.18.x): ncclTopoSearchRecNet takes the NETs in list order;
	// 2.19.1 rotates the list by the channel number.
	RecNet18 bool

	// RecNetGpuOrder18 (2.18.x): ncclTopoSearchRecNet tries a NET's
	// closest GPUs in index order, first those whose PCI link still has
	// bandwidth (gpuPciBw > 0), then the others; 2.19.1 tries them once,
	// rotated by the channel number.
	RecNetGpuOrder18 bool

	// TreeRevPathUnchecked (2.18.1): ncclTopoFollowPath checks only the
	// forward path's type; from 2.18.3 trees also need the reverse path
	// within the graph's type.
	TreeRevPathUnchecked bool

	// NVLSHeads is where ncclTopoSearchRecNet starts an NVLS channel
	// across nodes.
	NVLSHeads NVLSHeads

	// CollNetDirectIsChain (2.21.5 and before): there is no COLLNET_DIRECT
	// search; CollNetDirect runs on the one CollNet graph, the TREE-pattern
	// graph with the ring's channel count (src/init.cc initTransportsRank
	// graphs[]), so its heads are that graph's first GPUs.
	CollNetDirectIsChain bool

	// NetIBPortMerge: the internal IB merges the ports of one PCI device
	// with one guid, two at most, into one device (G-TOPO-VNIC-1,
	// vnic.go; 2.20.3–2.23.4, src/transport/net_ib.cc ncclIbInit,
	// ncclIbFindMatchingDev).
	NetIBPortMerge bool
	// NetFusion is which NET groups become virtual NICs (G-TOPO-VNIC-1,
	// vnic.go): none up to 2.23.4; from 2.24.3 every group (a port alone
	// too, renumbered) until 2.26.6, fused groups only from 2.27.3
	// (src/graph/topo.cc ncclTopoMakeVNics, ncclTopoMakeVnic).
	NetFusion NetFusion
	// NetPCIFunction: the IB network's PCI path keeps the function, so a
	// multi-port NIC is discovered as one PCI device per function
	// (2.24.3–2.26.6, src/transport/net_ib.cc ncclIbGetPciPath; the other
	// releases zero the function: one device, its ports in one <nic>).
	// Synthesized layouts follow it (NodeSpec.NICFunctions).
	NetPCIFunction bool
	// NetFusionRetry: a group the network refuses goes back apart and the
	// merge goes on (2.26.2+, ncclTopoAutoMerge); before, init fails.
	NetFusionRetry bool
	// NetFusionPCIParent: the virtual NIC's parent is the first PCI element
	// at or above the ports' common one (ncclFindFirstPciParent), and only
	// a PCI switch gets a made-up PCI device (2.27.3+,
	// ncclTopoGetVNicParent).
	NetFusionPCIParent bool
	// NetFusionCPUParent: a CPU parent gets a made-up PCI device, and a
	// PIX/PXB/PHB group widens the PCI links to the ports' summed width
	// (2.28.3+, ncclTopoGetVNicParent, ncclTopoWidenLinks).
	NetFusionCPUParent bool
	// NetFusionAggregate: the summed width goes to the made-up device and
	// the parents up to the common one only, a group across CPUs is an
	// error, and NCCL_NET_MERGE_POLICY=RAIL is read (2.30.7,
	// ncclTopoGetVNicParent, ncclTopoGetMergePolicy).
	NetFusionAggregate bool
	// NetFusionPluginTags: a fused port is marked net="0" or coll="0" by
	// the pass that fused it and leaves the topology only when no plugin
	// lists it; ncclTopoAddNic makes NETs of net="1" nodes only (2.30.7,
	// ncclTopoUpdateVNics; before, ncclTopoMakeVnic clears keep).
	NetFusionPluginTags bool
	// IBVDeviceLine is the line the internal IB's makeVDevice prints for
	// every virtual device it makes: at init one per port, then one per
	// vNic of its network's fusion pass (vnic.go VNic.IBLog; 2.24.3+,
	// src/transport/net_ib.cc ncclIbMakeVDeviceInternal).
	IBVDeviceLine IBVDeviceLine
	// IfListRailPlane: parseStringList reads "name[:port[:rail[:plane]]]"
	// (2.30.7, src/misc/utils.cc), an empty or absent field -1; the IB
	// gives each port its NCCL_IB_HCA entry's rail and plane
	// (src/transport/net_ib/init.cc ncclIbInitDevices), which its
	// "Using" and virtual-device lines print and ncclTopoPopulateNics
	// writes as the NET's rail and plane (what NCCL_NET_MERGE_POLICY=RAIL
	// compares). Before, ":port" is the item's leading digits and the
	// rest is skipped.
	IfListRailPlane bool
}

// IBVDeviceLine is the form of "NET/IB : Made virtual device".
type IBVDeviceLine int

const (
	// IBVDeviceNone (up to 2.23.4): the IB makes no virtual devices.
	IBVDeviceNone IBVDeviceLine = iota
	// IBVDevicePlain (2.24.3–2.30.4): "[%d] name=%s speed=%d ndevs=%d".
	IBVDevicePlain
	// IBVDeviceRailPlane (2.30.7): " rail=%d plane=%d" appended.
	IBVDeviceRailPlane
)

func (l IBVDeviceLine) String() string {
	switch l {
	case IBVDeviceNone:
		return "none"
	case IBVDevicePlain:
		return "plain"
	case IBVDeviceRailPlane:
		return "rail-plane"
	}
	return fmt.Sprintf("IBVDeviceLine(%d)", int(l))
}

// NVLSCompare is the NVLS rule of ncclTopoCompareGraphs.
type NVLSCompare int

const (
	// NVLSCompareBw (2.19.1+): more channels up to the GPU count, or more
	// channels × bwInter.
	NVLSCompareBw NVLSCompare = iota
	// NVLSCompareCount (2.18.3–2.18.6): more channels up to the GPU count.
	NVLSCompareCount
	// NVLSCompareIntra (2.18.1): channels × bwIntra, as rings and trees.
	NVLSCompareIntra
)

func (c NVLSCompare) String() string {
	switch c {
	case NVLSCompareBw:
		return "channels-or-bwInter"
	case NVLSCompareCount:
		return "channels"
	case NVLSCompareIntra:
		return "bwIntra"
	}
	return fmt.Sprintf("NVLSCompare(%d)", int(c))
}

// NVLSHeads is the NVLS rule of ncclTopoSearchRecNet: which GPU, the
// head, an NVLS channel starts from.
type NVLSHeads int

const (
	// NVLSHeadsUnique (2.22.3+): the NETs in rotated order until one
	// channel is found, each NET's local GPU over the NET→GPU path, a NET
	// whose local GPU already heads a channel skipped.
	NVLSHeadsUnique NVLSHeads = iota
	// NVLSHeadsFirstNet (2.19.1–2.21.5): the first NET of the rotated list
	// only, its local GPU over the NET→GPU path; heads may repeat.
	NVLSHeadsFirstNet
	// NVLSHeadsNetLocal (2.18.5–2.18.6): every NET with bandwidth left
	// carries channel c in turn, whose head is the local GPU of NET
	// nets[c], reached without a path.
	NVLSHeadsNetLocal
	// NVLSHeadsNetIndex (2.18.3): as NetLocal, the head being GPU index
	// nets[c] (a NET index taken as a GPU index).
	NVLSHeadsNetIndex
	// NVLSHeadsAsRing (2.18.1): no NVLS rule; an NVLS channel starts as a
	// ring's does, goes back to a NET from its first GPU, then tries the
	// NVSwitch.
	NVLSHeadsAsRing
)

func (h NVLSHeads) String() string {
	switch h {
	case NVLSHeadsUnique:
		return "unique-local-gpu"
	case NVLSHeadsFirstNet:
		return "first-net-local-gpu"
	case NVLSHeadsNetLocal:
		return "nets[c]-local-gpu"
	case NVLSHeadsNetIndex:
		return "gpu-nets[c]"
	case NVLSHeadsAsRing:
		return "as-ring"
	}
	return fmt.Sprintf("NVLSHeads(%d)", int(h))
}

// NVSOrder is the NVSwitch rule of the GPU order during the search.
type NVSOrder int

const (
	// NVSOrderOnly (2.21.5+): only the two index neighbours are tried.
	NVSOrderOnly NVSOrder = iota
	// NVSOrderFirst (2.19.3-2.20.5): the neighbours first, then every
	// other GPU in score order; a NET channel does not try the PCI order
	// first.
	NVSOrderFirst
	// NVSOrderNone (2.19.1): no NVSwitch rule: score order, and a NET
	// channel tries the PCI order first as on any system.
	NVSOrderNone
)

func (o NVSOrder) String() string {
	switch o {
	case NVSOrderOnly:
		return "neighbours-only"
	case NVSOrderFirst:
		return "neighbours-first"
	case NVSOrderNone:
		return "none"
	}
	return fmt.Sprintf("NVSOrder(%d)", int(o))
}

// Params2_22_3 is the reference release, tag v2.22.3-1.
func Params2_22_3() Params {
	return Params{
		Release:     nccl.V2_22_3,
		MaxChannels: 32,
		PathOrder: []PathType{PathLOC, PathNVL, PathNVB, PathPIX, PathPXB, PathPXN,
			PathPHB, PathSYS, PathNET, PathDIS},
		C2CLink:              LinkNVL,
		CollNetDirectGraphID: 2,
		NVLSMinGPUs:          3,
		NetGUIDNeeds0x:       true,
		NVLSRaisesChannels:   true,
		UnpackDouble:         true,
		CollNetLocalRanksCap: true,
		NVLinkBwSM90:         20.6,
		NetIBPortMerge:       true,
	}
}

// Apply2_18_3 turns the rules of 2.18.5 back into those of tag v2.18.3-1
// (a backward delta): the mask round robin of the local NETs, and NVLS
// channel c headed by GPU index nets[c].
func Apply2_18_3(p *Params) {
	p.LocalNetMask = true
	p.NVLSHeads = NVLSHeadsNetIndex // search.cc ncclTopoSearchRecNet
}

// Apply2_23_4 … Apply2_27_6 are the topology changes of the releases between
// 2.22.3 and 2.28.3, each at the first tag that has it (the tag diffs of
// src/graph and src/init.cc). Releases with no entry here (2.26.3, 2.26.5,
// 2.26.6, 2.27.7) leave the topology stage unchanged.

// Apply2_19_4 turns 2.20.3's topology stage into 2.19.4's (a backward
// delta, tag v2.19.4-1): SM90_NVLINK_BW 20.0, ncclTopoPostset without the
// raise to nvlsChannels and with the older doubling bound, two p2p
// channels per network peer, and the init summary without CollNet
// channels.
func Apply2_19_4(p *Params) {
	p.CrossNicBonus = true         // search.cc ncclTopoCompareGraphs: the 15 % crossNic target
	p.CrossNicUnpaired = true      // search.cc ncclTopoSearchRecGpu, ncclTopoSearchRecNet: no odd-channel pairing
	p.NVLinkBwSM90 = 20.0          // topo.h SM90_NVLINK_BW
	p.NVLSRaisesChannels = false   // connect.cc ncclTopoPostset: no copyChannels to nvlsChannels
	p.ComputeChannelsFitMax = true // connect.cc ncclTopoPostset: 2*nChannels <= MAXCHANNELS
	p.NetPeerChannelsFixed = true  // paths.cc ncclTopoGetNchannels: NCHANNELS_PER_NET_PEER 2, a negative one skipped
	p.ChannelLineNoCollNet = true  // init.cc initTransportsRank summary line
	p.NetIBPortMerge = false       // net_ib.cc ncclIbInit: one device per port
}

// Apply2_20_5 turns 2.21.5's topology stage into 2.20.5's (a backward
// delta, tag v2.20.5-1): behind an NVSwitch the search tries the GPU
// neighbours first but not only them, sm90SpeedArrayIntra has no
// 11 GB/s step, a lone GPU's totalBw is 0 and one GPU's is scaled to
// +Inf, and the system print names nodes by their raw id.
func Apply2_20_5(p *Params) {
	p.NVSOrder = NVSOrderFirst       // search.cc ncclTopoSearchNextGpuSort
	p.ChannelLineCollNetSetUp = true // init.cc initTransportsRank summary line
	p.SystemPrintRaw = true          // topo.cc ncclTopoPrintRec, paths.cc printNodePaths
	p.LoneGPUTotalBwZero = true      // search.cc ncclTopoSearchInit
	p.TotalBwScaleOneGPU = true      // search.cc ncclTopoCompute
	p.SM90SpeedsIntra = []float32{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0}
}

// Params2_19_4 and Params2_19_1 are the backward releases the search
// tests compare (spec builds every release through TopoParamsFor).
func Params2_19_4() Params {
	p := Params2_22_3()
	Apply2_21_5(&p)
	Apply2_20_5(&p)
	Apply2_19_4(&p)
	p.Release = nccl.V2_19_4
	return p
}

func Params2_19_1() Params {
	p := Params2_19_4()
	Apply2_19_1(&p)
	p.Release = nccl.V2_19_1
	return p
}

// Apply2_19_1 turns 2.19.3's topology stage into 2.19.1's (a backward
// delta, tag v2.19.1-1): no NVSwitch rule in the GPU order, channels
// duplicated after the bandwidth search (rings never raised), and
// sm90SpeedArrayInter without 22 GB/s.
func Apply2_19_1(p *Params) {
	p.NVSOrder = NVSOrderNone // search.cc ncclTopoSearchNextGpuSort, ncclTopoSearchRecNet
	p.DupAfterSearch = true   // search.cc ncclTopoCompute
	p.SM90SpeedsInter = []float32{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
}

// Apply2_18_6 turns 2.19.1's topology stage into 2.18.6's (a backward
// delta, tag v2.18.6-1; 2.18.5's search is the same): the 5<<16 search
// budget, sm90SpeedArrayIntra without 50 GB/s, NCCL_CROSS_NIC on every
// graph, NVLS graphs ranked by their channel count alone, the NETs of
// ncclTopoSearchRecNet in list order and a NET's closest GPUs in index
// order (those with PCI bandwidth left first), and NVLS channel c headed by the
// local GPU of NET nets[c], P2P kept where NVML reports it disabled, and
// NVLS graphs across nodes searched up to MAXCHANNELS channels with pass 2
// raising their bwIntra; the sameChannels retry taken on AMD CPUs over SYS
// too.
func Apply2_18_6(p *Params) {
	p.SearchGlobalTimeout = 5 << 16 // search.cc NCCL_SEARCH_GLOBAL_TIMEOUT
	p.SM90SpeedsIntra = []float32{60.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0}
	p.CrossNicAnyPattern = true      // search.cc ncclTopoCompute
	p.NVLSCompare = NVLSCompareCount // search.cc ncclTopoCompareGraphs
	p.RecNet18 = true                // search.cc ncclTopoSearchRecNet
	p.RecNetGpuOrder18 = true        // search.cc ncclTopoSearchRecNet
	p.NVLSHeads = NVLSHeadsNetLocal  // search.cc ncclTopoSearchRecNet
	p.NVMLP2PKept = true             // paths.cc ncclTopoCheckP2p
	p.NVLSRaisesIntra = true         // search.cc ncclTopoCompute: pass 2 raises NVLS bwIntra
	p.NVLSUncapped = true            // search.cc ncclTopoCompute: NVLS up to MAXCHANNELS across nodes
	p.SameChannelsAnyCPU = true      // search.cc ncclTopoCompute: no AMD/SYS exception to the sameChannels retry
	p.GdrReadAllArchs = true         // paths.cc ncclTopoCheckGdr: GDR reads beside NVLink on every arch
}

// Apply2_18_1 turns 2.18.3's topology stage into 2.18.1's (a backward
// delta, tag v2.18.1-1): the 1<<18 search budget, sm90SpeedArrayInter
// without 20 and 17.5 GB/s, the SPLIT_TREE "simpler tree" retry, the
// older channel duplication rule, NVLS graphs ranked and started as
// rings, a CollNet head per channel, and trees that do not check the
// reverse path's type.
func Apply2_18_1(p *Params) {
	p.SearchGlobalTimeout = 1 << 18 // search.cc NCCL_SEARCH_GLOBAL_TIMEOUT
	p.SM90SpeedsInter = []float32{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	p.SimplerTreeSplit = true        // search.cc ncclTopoCompute
	p.DupByBwOnly = true             // search.cc ncclTopoCompute
	p.NVLSCompare = NVLSCompareIntra // search.cc ncclTopoCompareGraphs
	p.NVLSHeads = NVLSHeadsAsRing    // search.cc ncclTopoSearchRecNet
	p.CollNetHeadsAllChannels = true // connect.cc connectCollNet
	p.TreeRevPathUnchecked = true    // search.cc ncclTopoFollowPath
	p.NetChannelBudget = true        // search.cc ncclTopoSearchRecNet
}

// Apply2_21_5 turns 2.22.3's topology stage into 2.21.5's (a backward
// delta, tag v2.21.5-1): CollNetDirect runs on the TREE-pattern CollNet
// graph (there is no COLLNET_DIRECT search), and an NVLS channel tries
// only the first NET of the rotated list, heads may repeat; an UNPACK
// network's channels are not doubled.
func Apply2_21_5(p *Params) {
	p.CollNetDirectIsChain = true   // init.cc initTransportsRank
	p.NVLSHeads = NVLSHeadsFirstNet // search.cc ncclTopoSearchRecNet
	p.UnpackDouble = false          // connect.cc ncclTopoPostset
}

// Apply2_23_4 is tag v2.23.4-1.
func Apply2_23_4(p *Params) {
	p.P2PLevelAMDPairs = true      // paths.cc ncclTopoCheckP2p
	p.CrossNic2 = true             // search.cc ncclTopoCompute
	p.CollNetDirectGraphID = 4     // init.cc initTransportsRank
	p.CollNetLocalRanksCap = false // init.cc: no init-time CollNet disable
	p.SelfPathsDIS = true          // paths.cc ncclTopoSetPaths
	p.LocalCPUNeedsHops = true     // paths.cc ncclGetLocalCpu
	p.NICIDPerNUMA = true          // topo.cc NCCL_TOPO_LOCAL_NIC_ID
	p.HeadFoundBreak = true        // search.cc ncclTopoSearchRecNet "break"
	p.NetPrintIDs = true           // topo.cc ncclTopoPrintRec, search.cc ncclTopoPrintGraph
	p.GraphNetMixedID = true       // search.cc ncclTopoPrintGraph
}

// Apply2_24_3 is tag v2.24.3-1: ncclTopoPrint's NET line shows collSupport
// and a graph's second NET its own local id; NIC port fusion.
func Apply2_24_3(p *Params) {
	p.NetFusion = NetFusionAll
	p.IBVDeviceLine = IBVDevicePlain
	p.NetIBPortMerge = false
	p.NetPCIFunction = true
	p.NetPrintColl = true
	p.GraphNetMixedID = false
}

// Apply2_25_1 is tag v2.25.1-1: the search bounded by the system's paths
// (where a balanced tree needs SYS, Tree falls back to one channel), 64
// channels, Blackwell.
func Apply2_25_1(p *Params) {
	p.MaxChannels = 64
	p.PathBasedTypes = true
	p.ArityCaps = true
	p.SM100Speeds = true
	p.SM100SpeedsIntra = []float32{90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0}
	p.SM100SpeedsInter = []float32{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	p.NVLinkBwSM100 = 40.0
	p.ComputeChannelsSM90Plus = true
	p.NVLSChannelsBySM = true
}

// Apply2_26_2 is tag v2.26.2-1: C2C links and paths, Sapphire/Emerald
// Rapids, the two-island NVLink split; a refused NIC fusion no longer fails
// init.
func Apply2_26_2(p *Params) {
	p.NetFusionRetry = true
	p.PathOrder = []PathType{PathLOC, PathNVL, PathNVB, PathC2C, PathPIX, PathPXB,
		PathPXN, PathPHB, PathSYS, PathNET, PathDIS}
	p.C2CLink = LinkC2C
	p.IntelSRPERP = true
	p.C2CPaths = true
	p.SplitNVLinkMin2 = true
	p.GdrModePCI = true // paths.cc ncclTopoCheckGdr, net.cc sendSetup/recvSetup "(PCI)"
	p.FlushC2C = true   // paths.cc ncclTopoNeedFlush: PCIe data, C2C completions
}

// Apply2_27_3 is tag v2.27.3-1: PATH_P2C; only fused NIC groups become
// virtual NICs, placed under the ports' PCI device. 2.27.3 numbers P2C (7)
// above PXN (6); 2.27.5 swaps them. PathType's Go order is 2.27.5's, so
// the comparisons where the numbering decides ask PathCode (pathAbove).
func Apply2_27_3(p *Params) {
	p.NetFusion = NetFusionMerged
	p.NetFusionPCIParent = true
	p.NetPCIFunction = false
	p.PathOrder = []PathType{PathLOC, PathNVL, PathNVB, PathC2C, PathPIX, PathPXB,
		PathPXN, PathP2C, PathPHB, PathSYS, PathNET, PathDIS}
	p.LinkTypeP2C = true
	p.P2CPaths = true
	p.FollowPathSkipsDIS = true
	// sm100: 18 GB/s last within a node (search.go's array from here), 47.9
	// first across nodes.
	p.SM100SpeedsIntra = sm100SpeedArrayIntra
	p.SM100SpeedsInter = []float32{47.9, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
}

// Apply2_27_5 is tag v2.27.5-1: NETs record their local GPU, RecNet's
// replay only with sameChannels, MNNVL NET scattering, SM100_NVLINK_BW 40.1,
// mergePathType, PXN's own-path test against the PXN type, and PATH_P2C
// (6) below PATH_PXN (7).
func Apply2_27_5(p *Params) {
	p.PathOrder = []PathType{PathLOC, PathNVL, PathNVB, PathC2C, PathPIX, PathPXB,
		PathP2C, PathPXN, PathPHB, PathSYS, PathNET, PathDIS}
	p.NVLinkBwSM100 = 40.1
	p.P2CMerge = true
	p.PXNOwnAbovePXNType = true
	p.MNNVLNets = true
	p.ReplayOnlySameChannels = true
	p.LocalGPUStart = true
	p.GraphPrintIDs = true
	p.SM100SpeedsInter = []float32{48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
}

// Apply2_27_6 is tag v2.27.6-1: PXN when the GPU's own path is worse than
// PATH_PXN.
func Apply2_27_6(p *Params) {
	p.PXNAvoidsPXN = true
	p.PXNOwnAbovePXNType = false
	p.PXNP2PType = true                       // search.cc ncclTopoGetNetDev: pxnType
	p.SM100SpeedsInter = sm100SpeedArrayInter // 96 GB/s first across nodes
}

// Apply2_28_3 turns 2.27.7 rules into those of tag v2.28.3-1 (the system
// library on the project's GPU machine).
func Apply2_28_3(p *Params) {
	p.NetFusionCPUParent = true
	p.PCIClassDataDirect = true
	p.NetDevsPolicy = true
	p.NVLSRaisesChannels = false
	p.NetPeerEnvPositiveOnly = true // init.cc envConfigOverride: NCCL_NCHANNELS_PER_NET_PEER <= 0 "is too low"
}

// Apply2_28_7 turns 2.28.3 rules into those of tag v2.28.7-1; 2.28.9
// changes nothing in the topology stage.
func Apply2_28_7(p *Params) {
	// src/graph/paths.cc ncclTopoTrimSystem, search.cc: system->inter.
	p.InterFlag = true
	// src/graph/topo.cc ncclTopoAddNet: asic defaults to the NET id, guid read with strtoull.
	p.NetAsicFromID = true
	p.NetGUIDNeeds0x = false
	// src/graph/search.cc ncclTopoSelectNets: NETDEVS_POLICY MAX limits the list.
	p.NetDevsPolicySelect = true
	// src/transport/nvls.cc ncclNvlsInit: gpuCount < 2 disables NVLS (was <= 2).
	p.NVLSMinGPUs = 2
	// src/graph/search.cc ncclTopoSearchCheckNet: NCCL_MNNVL_RAIL_PER_HOST.
	p.MNNVLRailPerHost = true
}

// Apply2_29_2 turns 2.28.9 rules into those of tag v2.29.2-1.
func Apply2_29_2(p *Params) {
	p.InterSYSBelowSM90 = true
	p.P2PChannelsByNetBw = true
	p.GdrLevelP2C = true // paths.cc ncclTopoCheckGdr: netGdrLevel P2C with NCCL_NET_GDR_C2C
	p.SimpleOrderNets = true
	// 45 between 50 and 40.
	p.SM100SpeedsIntra = []float32{90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0}
}

// Apply2_29_7 turns 2.29.3 rules into those of tag v2.29.7-1: 80 GB/s is
// tried between 96 and 48 across nodes on sm100.
func Apply2_29_7(p *Params) {
	p.SM100SpeedsInter = []float32{96.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
}

// Apply2_30_3 turns 2.29.7 rules into those of tag v2.30.3-1: 86 GB/s
// between 96 and 80 across nodes on sm100.
func Apply2_30_3(p *Params) {
	p.NVLSTuningSM100 = true
	p.P2PMaxPeers = true
	p.PXNP2PNeedsGDR = true // search.cc ncclTopoGetNetDev: the PXN GPU's GDR write
	p.GPUSubs = true
	p.GraphXMLRank = true
	p.SM100SpeedsInter = []float32{96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
}

// Apply2_30_7 turns 2.30.4 rules into those of tag v2.30.7-1: MLOPart
// partitions in the topology; NIC fusion's aggregate link width, merge
// policy and per-plugin tags; isAllNvlink agreed over every rank; the
// paths BFS prefers the better path type, and ncclGetLocalCpu the CPU of
// the best path.
func Apply2_30_7(p *Params) {
	p.MLOPartAttr = true
	p.NetFusionAggregate = true
	p.NetFusionPluginTags = true
	p.IBVDeviceLine = IBVDeviceRailPlane // net_ib/init.cc ncclIbMakeVDeviceInternal
	p.IfListRailPlane = true             // misc/utils.cc parseStringList
	p.AllNVLinkAgreed = true
	p.PathTypeFirst = true // paths.cc ncclTopoSetPaths
	p.LocalCPUByBw = true  // paths.cc ncclGetLocalCpu
}

// Params2_28_3 is Params2_22_3 with every delta up to Apply2_28_3.
func Params2_28_3() Params {
	p := Params2_22_3()
	for _, apply := range []func(*Params){Apply2_23_4, Apply2_24_3, Apply2_25_1, Apply2_26_2,
		Apply2_27_3, Apply2_27_5, Apply2_27_6, Apply2_28_3} {
		apply(&p)
	}
	p.Release = nccl.V2_28_3
	return p
}

// Params2_28_9 is Params2_28_3 with Apply2_28_7: 2.28.9 changes nothing in
// the topology stage.
func Params2_28_9() Params {
	p := Params2_28_3()
	Apply2_28_7(&p)
	p.Release = nccl.V2_28_9
	return p
}

// DefaultParams are the rules of the newest modelled release (2.28.9); the
// System that Synthesize and LoadSystem return is built with them.
func DefaultParams() Params { return Params2_28_9() }

// nextPath is "type += 1" over the release's path types.
func (p *Params) nextPath(t PathType) PathType {
	for i, x := range p.PathOrder {
		if x == t && i+1 < len(p.PathOrder) {
			return p.PathOrder[i+1]
		}
	}
	return PathDIS
}

// hasPath reports whether the release defines the path type.
func (p *Params) hasPath(t PathType) bool {
	for _, x := range p.PathOrder {
		if x == t {
			return true
		}
	}
	return false
}

// PathCode is the numeric value of a path type in this release, as NCCL
// prints it in "distance %d > %d" lines; -1 when the release lacks it.
func (p *Params) PathCode(t PathType) int {
	for i, x := range p.PathOrder {
		if x == t {
			return i
		}
	}
	return -1
}

// pathAbove is NCCL's "a > b" on two path types by this release's numbers
// (2.27.3 numbers P2C above PXN, PathType's Go order below it).
func (p *Params) pathAbove(a, b PathType) bool {
	if (a == PathP2C && b == PathPXN) || (a == PathPXN && b == PathP2C) {
		return p.PathCode(a) > p.PathCode(b)
	}
	return a > b
}

// pathMin and pathMax are std::min and std::max on two path types by this
// release's numbers (ncclTopoGetGpuMinPath, ncclTopoGetGpuMaxPath, the
// graph consensus of initTransportsRank): at 2.27.3 PXN is below P2C.
func (p *Params) pathMin(a, b PathType) PathType {
	if p.pathAbove(a, b) {
		return b
	}
	return a
}

func (p *Params) pathMax(a, b PathType) PathType {
	if p.pathAbove(a, b) {
		return a
	}
	return b
}

// ComputeDoubleRoom says whether ncclTopoPostset's "4 compute channels
// per search channel" doubling may double nChannels: below 16 (2.20.3+),
// or while the double fits MAXCHANNELS (2.19.x).
func (p *Params) ComputeDoubleRoom(nChannels int) bool {
	if p.ComputeChannelsFitMax {
		return 2*nChannels <= p.MaxChannels
	}
	return nChannels < 16
}

// NVLinkBw is ncclTopoNVLinkBw (src/graph/topo.h) under these rules: the
// GB/s NCCL assigns one NVLink of a GPU of compute capability sm (×10).
func (p *Params) NVLinkBw(sm int) float32 { return p.nvlinkBw(sm) }

// nvlinkBw is ncclTopoNVLinkBw (src/graph/topo.h): GB/s per NVLink by SM.
func (p *Params) nvlinkBw(sm int) float32 {
	switch {
	case sm >= 100 && p.NVLinkBwSM100 > 0:
		return p.NVLinkBwSM100
	case sm >= 90 && p.NVLinkBwSM90 > 0:
		return p.NVLinkBwSM90
	case sm >= 90:
		return 20.6
	case sm == 86:
		return 12.0
	case sm >= 80:
		return 20.0
	case sm >= 70:
		return 20.0
	case sm >= 60:
		return 18.0
	}
	return 20.0
}

// NetDevsPolicyKind is NCCL_NETDEVS_POLICY (src/graph/topo.cc
// getNetDevsPolicyOnce).
type NetDevsPolicyKind int

const (
	NetDevsAuto NetDevsPolicyKind = iota
	NetDevsAll
	NetDevsMax
)

// Options are the parsed NCCL_* settings and the device facts the topology
// layer reads. spec parses the environment strings; here every value is
// already typed. Start from DefaultOptions: the zero value is not NCCL's
// default (CrossNic, for one, defaults to 2).
type Options struct {
	// P2PDisable is NCCL_P2P_DISABLE=1: the P2P level becomes LOC
	// (src/graph/paths.cc ncclGetLevel).
	P2PDisable bool
	// P2PLevel is NCCL_P2P_LEVEL when P2PLevelSet.
	P2PLevel    PathType
	P2PLevelSet bool
	// SHMDisable is NCCL_SHM_DISABLE=1 (src/transport/shm.cc shmCanConnect).
	SHMDisable bool
	// NetGdrLevel is NCCL_NET_GDR_LEVEL when NetGdrLevelSet (default PXB).
	NetGdrLevel    PathType
	NetGdrLevelSet bool
	// NetGdrC2C is NCCL_NET_GDR_C2C (default 1, 2.24+).
	NetGdrC2C bool
	// NetGdrMLOPart is NCCL_NET_GDR_MLOPART=1 (2.30.7, default 0): GPU
	// Direct RDMA for an MLOPart partition (src/graph/paths.cc
	// ncclTopoCheckGdr).
	NetGdrMLOPart bool
	// NoSplitMLOPart is NCCL_TOPO_SPLIT_MLOPART=0 (2.30.7, default 1):
	// where the release reads the mlopart attribute (MLOPartAttr) it does
	// not make a partition a device of its own, so an MLOPart GPU's
	// partitions are GPUs of one DEV node, its NVLinks and C2C those of one
	// device (src/graph/topo.cc ncclTopoAddGpuSub, ncclTopoGetGpuDevNode,
	// ncclTopoXmlIsPrimaryGpuForDev; G-TOPO-MLOPART-1, G-TOPO-DEV-1).
	NoSplitMLOPart bool
	// NetGdrRead is NCCL_NET_GDR_READ when NetGdrReadSet (default -2: GDR
	// reads on sm80+, before that only beside an NVLink peer).
	NetGdrRead    int
	NetGdrReadSet bool
	// NetForceFlush is NCCL_NET_FORCE_FLUSH != 0: every GDR receive
	// flushes (the release's default: 1 until 2.18.6, 0 from 2.19.1;
	// src/graph/paths.cc ncclTopoNeedFlush).
	NetForceFlush bool
	// GdrFlushDisable is NCCL_GDR_FLUSH_DISABLE != 0, read by NCCL's IB
	// (NetIB): its iflush then returns without posting the read
	// (src/transport/net_ib.cc ncclIbAccept; net_ib/connect.cc
	// ncclIbAcceptImpl from 2.29.2).
	GdrFlushDisable bool
	// PXNDisable is NCCL_PXN_DISABLE=1 (or a v4 net plugin).
	PXNDisable bool
	// PXNC2C is NCCL_PXN_C2C (default 1, 2.24+).
	PXNC2C bool
	// NVBDisable is NCCL_NVB_DISABLE=1: no routing through a peer GPU.
	NVBDisable bool
	// CrossNic is NCCL_CROSS_NIC (default 2).
	CrossNic int
	// NetDisableIntra is NCCL_NET_DISABLE_INTRA=1 (ncclTopoCheckNet).
	NetDisableIntra bool
	// P2PUseCudaMemcpy is NCCL_P2P_USE_CUDA_MEMCPY=1: P2P through an
	// intermediate GPU is refused (src/transport/p2p.cc p2pCanConnect).
	P2PUseCudaMemcpy bool
	// P2PNotSupported is the device fact that NVML's P2P read/write status
	// between the GPUs is not OK (GeForce boards on NVIDIA's driver):
	// ncclTopoCheckP2p then turns P2P off for every pair of distinct GPUs
	// the P2P level allows, so their paths go through the CPU
	// (src/graph/paths.cc ncclTopoCheckP2p, ncclNvmlDevicePairs, every
	// modelled release). NCCL fails init instead when such GPUs share
	// NVLink; that fault is not modelled, the fact applies to PCIe paths.
	P2PNotSupported bool

	// MinNChannels / MaxNChannels are NCCL_MIN_NCHANNELS (or NCCL_MIN_NRINGS)
	// and NCCL_MAX_NCHANNELS (or NCCL_MAX_NRINGS); -2 when unset, as NCCL's
	// parameters (src/graph/connect.cc ncclMinNchannels, ncclMaxNchannels).
	MinNChannels int
	MaxNChannels int
	// WorkArgsChannels is the channels NCCL_WORK_ARGS_BYTES leaves room
	// for in the kernel arguments (ncclDevMaxChannelsForArgsBytes), where
	// the release reads the variable (WorkArgsChannelsSet, 2.22.3+): it
	// bounds ncclMaxNchannels, and its power of 2 below bounds the p2p
	// channels (src/graph/connect.cc ncclMaxNchannels, src/graph/paths.cc
	// ncclTopoComputeP2pChannels).
	WorkArgsChannels    int
	WorkArgsChannelsSet bool
	// MinCTAs / MaxCTAs are the communicator config (NCCL_MIN_CTAS,
	// NCCL_MAX_CTAS); 0 means the defaults 1 and MAXCHANNELS.
	MinCTAs, MaxCTAs int

	// NvlsEnable is NCCL_NVLS_ENABLE (0, 1, 2 = auto, the default).
	NvlsEnable int
	// NvlsMulticast is what ncclNvlsInit asks the driver under auto:
	// cuMulticastCreate exists and CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED.
	// The zero value derives it from the topology: sm90 or newer GPUs on an
	// NVSwitch (what the driver reports with the fabric manager running).
	NvlsMulticast Multicast
	// NvlsChannels is NCCL_NVLS_NCHANNELS (config nvlsCTAs); 0 = default.
	NvlsChannels int
	// NvlsChunkSize is NCCL_NVLS_CHUNKSIZE and NvlsTreeMaxChunkSize
	// NCCL_NVLSTREE_MAX_CHUNKSIZE; 0 = unset (spec.CheckSizeEnv refuses
	// a value NCCL would take as <= 0 bytes, -2 being the cap's unset).
	// The release decides whether NCCL reads them.
	NvlsChunkSize, NvlsTreeMaxChunkSize int
	// CollNetEnable is collNetSupport(comm) at init: a CollNet plugin was
	// loaded and NCCL_COLLNET_ENABLE=1.
	CollNetEnable bool
	// CollNetNodeThreshold is NCCL_COLLNET_NODE_THRESHOLD (default 2).
	CollNetNodeThreshold int

	// NetDevsPolicy / NetDevsMax are NCCL_NETDEVS_POLICY (AUTO, ALL, MAX:n).
	NetDevsPolicy NetDevsPolicyKind
	NetDevsMax    int
	// NChannelsPerNetPeer is NCCL_NCHANNELS_PER_NET_PEER as read when
	// NChannelsPerNetPeerSet; -1 when unset (each release gives its own
	// default meaning, see Params.NetPeerChannelsFixed).
	NChannelsPerNetPeer    int
	NChannelsPerNetPeerSet bool
	// P2PPerChannelNetBw is NCCL_P2P_PER_CHANNEL_NET_BW (GB/s, default 14;
	// read from 2.29.2).
	P2PPerChannelNetBw int
	// P2PMaxPeers is NCCL_P2P_MAX_PEERS (config maxP2pPeers, read from
	// 2.30.3); 0 when unset or too low (<= 0, ignored with an INFO).
	P2PMaxPeers int
	// MinP2PNChannels / MaxP2PNChannels are NCCL_MIN_P2P_NCHANNELS (1) and
	// NCCL_MAX_P2P_NCHANNELS (MAXCHANNELS when 0).
	MinP2PNChannels, MaxP2PNChannels int
	// UnpackDoubleNChannels is NCCL_UNPACK_DOUBLE_NCHANNELS (default 1) and
	// NetDeviceUnpack says the network device type is UNPACK.
	UnpackDoubleNChannels bool
	NetDeviceUnpack       bool
	// MNNVLScatterNets is NCCL_MNNVL_SCATTER_NETS_ENABLE (default 1);
	// MNNVLRailPerHost is NCCL_MNNVL_RAIL_PER_HOST (default 0, 2.28.9).
	MNNVLScatterNets bool
	MNNVLRailPerHost bool

	// NetVNics says the communicator's network fuses ports: the internal
	// IB (its own port merge 2.20.3–2.23.4, its makeVDevice from 2.24.3)
	// or a net v9+ plugin whose makeVDevice is set (Socket and older
	// plugins have none), so the
	// release's Params.NetFusion applies (src/graph/topo.cc
	// ncclTopoProcessNet). NetMergeLevel is
	// NCCL_NET_MERGE_LEVEL when NetMergeLevelSet (default PORT),
	// NetForceMerge NCCL_NET_FORCE_MERGE ("" unset), IBMergeNicsOff
	// NCCL_IB_MERGE_NICS=0 (the IB network refuses a virtual device of
	// several ports) and NetMergeRail NCCL_NET_MERGE_POLICY=RAIL (2.30.7).
	NetVNics         bool
	NetMergeLevel    string
	NetMergeLevelSet bool
	NetForceMerge    string
	IBMergeNicsOff   bool
	NetMergeRail     bool
	// CollNetVNics says the CollNet plugin's pass fuses its devices too
	// (G-TOPO-VNIC-2): CollNet is enabled and the plugin's makeVDevice is
	// set (collnet v9+; NCCL leaves it NULL for older plugins).
	CollNetVNics bool
	// NetIB says that network is NCCL's internal IB, whose makeVDevice
	// prints "NET/IB : Made virtual device" (Params.IBVDeviceLine).
	NetIB bool

	// GraphFile is the content of NCCL_GRAPH_FILE, already parsed with
	// ParseGraphXML: a graph whose id matches replaces that search.
	GraphFile []Graph
}

// Multicast is the driver's NVLS multicast answer.
type Multicast int

const (
	MulticastAuto Multicast = iota // sm90+ GPUs with an NVSwitch
	MulticastYes
	MulticastNo
)

// DefaultOptions are NCCL's defaults, multicast as the topology suggests
// and no CollNet plugin.
func DefaultOptions() Options {
	return Options{
		NetGdrC2C:             true,
		PXNC2C:                true,
		CrossNic:              2,
		MinNChannels:          -2,
		MaxNChannels:          -2,
		NvlsEnable:            2,
		CollNetNodeThreshold:  2,
		NChannelsPerNetPeer:   -1,
		P2PPerChannelNetBw:    14, // NCCL_PARAM(P2pPerChannelNetBw, ..., 14), v2.29.2-1 src/graph/paths.cc
		MinP2PNChannels:       1,
		UnpackDoubleNChannels: true,
		MNNVLScatterNets:      true,
	}
}

// ParamSource is where in NCCL's source each Params field's behaviour
// lives (file and function at the tag that introduced the newer value), so
// a release's changelog can cite each difference; the field comments above
// say the same in prose. tag is the tag of the delta that changes the
// field: a field whose code moved to another file has an entry for the
// delta that changes it there (paramSourcesAt).
func ParamSource(field, tag string) (file, fn string) {
	if s, ok := paramSourcesAt[tag][field]; ok {
		return s[0], s[1]
	}
	if s, ok := paramSources[field]; ok {
		return s[0], s[1]
	}
	return "src/graph", "(spec/topo Params." + field + ")"
}

// paramSourcesAt are the sources of the deltas that change a field after
// its code moved, by the delta's tag.
var paramSourcesAt = map[string]map[string][2]string{
	// 2.30.7 splits src/transport/net_ib.cc into src/transport/net_ib/
	"v2.30.7-1": {"IBVDeviceLine": {"src/transport/net_ib/init.cc", "ncclIbMakeVDeviceInternal"}},
}

var paramSources = map[string][2]string{
	"MaxChannels":             {"src/include/device.h", "MAXCHANNELS"},
	"PathOrder":               {"src/graph/topo.h", "PATH_*"},
	"C2CLink":                 {"src/graph/topo.cc", "ncclTopoAddC2c"},
	"NVLinkBwSM100":           {"src/graph/topo.h", "ncclTopoNVLinkBw"},
	"IntelSRPERP":             {"src/graph/topo.cc", "ncclTopoGetInterCpuBw"},
	"PCIClassDataDirect":      {"src/graph/topo.cc", "kvDictPciClass"},
	"NICIDPerNUMA":            {"src/graph/topo.cc", "ncclTopoAddPci"},
	"NetAsicFromID":           {"src/graph/topo.cc", "ncclTopoAddNet"},
	"NetGUIDNeeds0x":          {"src/graph/topo.cc", "ncclTopoAddNet"},
	"SelfPathsDIS":            {"src/graph/paths.cc", "ncclTopoSetPaths"},
	"LocalCPUNeedsHops":       {"src/graph/paths.cc", "ncclGetLocalCpu"},
	"P2PLevelAMDPairs":        {"src/graph/paths.cc", "ncclTopoCheckP2p"},
	"C2CPaths":                {"src/graph/paths.cc", "ncclTopoCheckGdr"},
	"P2CPaths":                {"src/graph/paths.cc", "ncclTopoComputePaths"},
	"PXNAvoidsPXN":            {"src/graph/paths.cc", "ncclTopoComputePaths"},
	"PXNOwnAbovePXNType":      {"src/graph/paths.cc", "ncclTopoComputePaths"},
	"GdrReadAllArchs":         {"src/graph/paths.cc", "ncclTopoCheckGdr"},
	"GdrModePCI":              {"src/graph/paths.cc", "ncclTopoCheckGdr"},
	"GdrLevelP2C":             {"src/graph/paths.cc", "ncclTopoCheckGdr"},
	"FlushC2C":                {"src/graph/paths.cc", "ncclTopoNeedFlush"},
	"PXNP2PType":              {"src/graph/search.cc", "ncclTopoGetNetDev"},
	"PXNP2PNeedsGDR":          {"src/graph/search.cc", "ncclTopoGetNetDev"},
	"P2CMerge":                {"src/graph/paths.cc", "mergePathType"},
	"InterFlag":               {"src/graph/paths.cc", "ncclTopoTrimSystem"},
	"PathBasedTypes":          {"src/graph/search.cc", "ncclTopoCompute"},
	"SM100Speeds":             {"src/graph/search.cc", "sm100SpeedArrayIntra"},
	"ArityCaps":               {"src/graph/search.cc", "ncclTopoCompute"},
	"SplitNVLinkMin2":         {"src/graph/search.cc", "ncclTopoSplitNvLink"},
	"CrossNic2":               {"src/graph/search.cc", "ncclTopoSearchRecGpu"},
	"ReplayOnlySameChannels":  {"src/graph/search.cc", "ncclTopoSearchRecNet"},
	"LocalGPUStart":           {"src/graph/search.cc", "ncclTopoSearchRecNet"},
	"HeadFoundBreak":          {"src/graph/search.cc", "ncclTopoSearchTryNvls"},
	"FollowPathSkipsDIS":      {"src/graph/search.cc", "ncclTopoFollowPath"},
	"NetDevsPolicySelect":     {"src/graph/search.cc", "ncclTopoSelectNets"},
	"NetDevsPolicy":           {"src/graph/topo.cc", "ncclTopoGetLocalNet"},
	"GraphPrintIDs":           {"src/graph/search.cc", "ncclTopoPrintGraph"},
	"NetPrintIDs":             {"src/graph/topo.cc", "ncclTopoPrintRec"},
	"NetPrintColl":            {"src/graph/topo.cc", "ncclTopoPrintRec"},
	"GraphNetMixedID":         {"src/graph/search.cc", "ncclTopoPrintGraph"},
	"CollNetDirectGraphID":    {"src/init.cc", "initTransportsRank"},
	"NVLSMinGPUs":             {"src/transport/nvls.cc", "ncclNvlsInit"},
	"NVLSChannelsBySM":        {"src/transport/nvls.cc", "ncclNvlsInit"},
	"NVLSRaisesChannels":      {"src/graph/connect.cc", "ncclTopoPostset"},
	"ComputeChannelsSM90Plus": {"src/graph/connect.cc", "ncclTopoPostset"},
	"UnpackDouble":            {"src/graph/connect.cc", "ncclTopoPostset"},
	"LinkTypeP2C":             {"src/graph/search.cc", "kvDictLinkType"},
	"CollNetLocalRanksCap":    {"src/init.cc", "initTransportsRank"},
	"MNNVLRailPerHost":        {"src/graph/search.cc", "ncclTopoSearchCheckNet"},
	"MNNVLNets":               {"src/graph/search.cc", "ncclTopoPrefNetsGpuFirst"},
	"InterSYSBelowSM90":       {"src/graph/search.cc", "ncclTopoCompute"},
	"SM100SpeedsIntra":        {"src/graph/search.cc", "sm100SpeedArrayIntra"},
	"SM100SpeedsInter":        {"src/graph/search.cc", "sm100SpeedArrayInter"},
	"LocalNetMask":            {"src/graph/topo.cc", "ncclTopoGetLocalNet"},
	"NVLinkBwSM90":            {"src/graph/topo.h", "ncclTopoNVLinkBw"},
	"ComputeChannelsFitMax":   {"src/graph/connect.cc", "ncclTopoPostset"},
	"NetPeerChannelsFixed":    {"src/graph/paths.cc", "ncclTopoGetNchannels"},
	"NetPeerEnvPositiveOnly":  {"src/init.cc", "envConfigOverride"},
	"NVLSRaisesIntra":         {"src/graph/search.cc", "ncclTopoCompute"},
	"NVLSUncapped":            {"src/graph/search.cc", "ncclTopoCompute"},
	"P2PChannelsByNetBw":      {"src/graph/paths.cc", "ncclTopoComputeP2pChannels"},
	"SimpleOrderNets":         {"src/graph/search.cc", "ncclTopoCompute"},
	"NVLSTuningSM100":         {"src/transport/nvls.cc", "ncclNvlsTuning"},
	"P2PMaxPeers":             {"src/graph/paths.cc", "ncclTopoComputeP2pChannels"},
	"MLOPartAttr":             {"src/graph/topo.cc", "ncclTopoAddGpuSub"},
	"AllNVLinkAgreed":         {"src/init.cc", "initTransportsRank"},
	"PathTypeFirst":           {"src/graph/paths.cc", "ncclTopoSetPaths"},
	"LocalCPUByBw":            {"src/graph/paths.cc", "ncclGetLocalCpu"},
	"GPUSubs":                 {"src/graph/topo.cc", "ncclTopoAddPci"},
	"GraphXMLRank":            {"src/graph/search.cc", "ncclTopoGetXmlFromChannel"},
	"NetFusion":               {"src/graph/topo.cc", "ncclTopoMakeVNics"},
	"NetIBPortMerge":          {"src/transport/net_ib.cc", "ncclIbInit"},
	"NetFusionRetry":          {"src/graph/topo.cc", "ncclTopoAutoMerge"},
	"NetPCIFunction":          {"src/transport/net_ib.cc", "ncclIbGetPciPath"},
	"NetFusionPCIParent":      {"src/graph/topo.cc", "ncclTopoGetVNicParent"},
	"NetFusionCPUParent":      {"src/graph/topo.cc", "ncclTopoGetVNicParent"},
	"NetFusionAggregate":      {"src/graph/topo.cc", "ncclTopoGetVNicParent"},
	"NetFusionPluginTags":     {"src/graph/topo.cc", "ncclTopoUpdateVNics"},
	"IBVDeviceLine":           {"src/transport/net_ib.cc", "ncclIbMakeVDeviceInternal"},
	"IfListRailPlane":         {"src/misc/utils.cc", "parseStringList"},
	"ChannelLineNoCollNet":    {"src/init.cc", "initTransportsRank"},
	"ChannelLineCollNetSetUp": {"src/init.cc", "initTransportsRank"},
	"SystemPrintRaw":          {"src/graph/topo.cc", "ncclTopoPrintRec"},
	"LoneGPUTotalBwZero":      {"src/graph/search.cc", "ncclTopoSearchInit"},
	"TotalBwScaleOneGPU":      {"src/graph/search.cc", "ncclTopoCompute"},
	"NVSOrder":                {"src/graph/search.cc", "ncclTopoSearchNextGpuSort"},
	"DupAfterSearch":          {"src/graph/search.cc", "ncclTopoCompute"},
	"SM90SpeedsIntra":         {"src/graph/search.cc", "sm90SpeedArrayIntra"},
	"SM90SpeedsInter":         {"src/graph/search.cc", "sm90SpeedArrayInter"},
	"CrossNicBonus":           {"src/graph/search.cc", "ncclTopoCompareGraphs"},
	"CrossNicUnpaired":        {"src/graph/search.cc", "ncclTopoSearchRecNet"},
	"SearchGlobalTimeout":     {"src/graph/search.cc", "NCCL_SEARCH_GLOBAL_TIMEOUT"},
	"SimplerTreeSplit":        {"src/graph/search.cc", "ncclTopoCompute"},
	"DupByBwOnly":             {"src/graph/search.cc", "ncclTopoCompute"},
	"CrossNicAnyPattern":      {"src/graph/search.cc", "ncclTopoCompute"},
	"NVLSCompare":             {"src/graph/search.cc", "ncclTopoCompareGraphs"},
	"CollNetDirectIsChain":    {"src/init.cc", "initTransportsRank"},
	"RecNet18":                {"src/graph/search.cc", "ncclTopoSearchRecNet"},
	"NetChannelBudget":        {"src/graph/search.cc", "ncclTopoSearchRecNet"},
	"RecNetGpuOrder18":        {"src/graph/search.cc", "ncclTopoSearchRecNet"},
	"TreeRevPathUnchecked":    {"src/graph/search.cc", "ncclTopoFollowPath"},
	"NVMLP2PKept":             {"src/graph/paths.cc", "ncclTopoCheckP2p"},
	"SameChannelsAnyCPU":      {"src/graph/search.cc", "ncclTopoCompute"},
	"CollNetHeadsAllChannels": {"src/graph/connect.cc", "connectCollNet"},
	"NVLSHeads":               {"src/graph/search.cc", "ncclTopoSearchRecNet"},
}

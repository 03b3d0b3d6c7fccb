package spec

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// System is the machine as the gates see it: nodes, GPUs, NICs, the plugin
// libraries on disk and what each of them answers when NCCL calls it. It is
// what a user describes (a preset, a JSON/YAML file, or NCCL's topology XML
// plus plugin facts) and everything spec reads; spec never looks at the real
// machine.
type System struct {
	Name  string `json:"name,omitempty"`
	Nodes []Node `json:"nodes"`
	// GraphFile holds the graphs of NCCL_GRAPH_FILE, parsed (spec reads no
	// files: the CLI parses the file the variable names): a graph whose id
	// matches replaces that search on every rank.
	GraphFile []topo.Graph `json:"-"`
	// Conf are NCCL's configuration files (same on every node).
	Conf ConfFiles `json:"conf,omitempty"`
	// CommConfig is the ncclConfig_t the job passes to
	// ncclCommInitRankConfig (nil: ncclCommInitRank); the caller sets it
	// from its request, as it parses GraphFile.
	CommConfig *Config `json:"-"`
	// Procs is how the ranks are spread over processes: one per GPU (the
	// zero value) or one process per node driving all its GPUs. It is
	// how the job was launched, not what the machine is, so the request
	// sets it (oracle "procs", the CLI's --procs), never a system file.
	Procs Procs `json:"-"`
}

// Node is one host. Ranks are one per GPU, in GPU order, nodes in order:
// global rank = sum of earlier nodes' GPUs + local GPU index.
type Node struct {
	Host string `json:"host,omitempty"`
	CPU  CPU    `json:"cpu"`
	GPUs []GPU  `json:"gpus"`
	// NVSwitch is true when the GPUs reach each other through an NVSwitch
	// (the topology has an NVS node).
	NVSwitch bool   `json:"nvswitch"`
	Driver   Driver `json:"driver"`
	// NICs are the verbs (IB/RoCE) ports the node has; the internal IB
	// transport and IB-based plugins look at these.
	NICs []NIC `json:"nics,omitempty"`
	// IPInterfaces are the interfaces the Socket transport and the IB
	// out-of-band connection can use ("eth0").
	IPInterfaces []string `json:"ip_interfaces,omitempty"`
	// Libs are the shared objects on this node that NCCL may dlopen.
	Libs []Library `json:"libs,omitempty"`
	// MNNVLClique names the NVLink fabric cluster (the NVML cluster UUID,
	// one NVL domain) the node belongs to when its fabric state is
	// complete; empty when it has none (GB200 NVL72 trays share one).
	// MNNVLCliqueID is the NVML cliqueId inside that cluster: trays of one
	// cluster with the same id form one clique, with different ids
	// several cliques of one NVL domain (what NCCL_MNNVL_CROSS_CLIQUE
	// reaches across from 2.30.3).
	MNNVLClique   string `json:"mnnvl_clique,omitempty"`
	MNNVLCliqueID uint32 `json:"mnnvl_clique_id,omitempty"`
	// Layout is the hardware layout (CPU sockets, PCIe switches, NVLink
	// wiring, NICs with their placement) from which spec/topo synthesizes
	// the topology NCCL detects. Presets set it; when nil it is derived from
	// the facts above.
	Layout *topo.NodeSpec `json:"layout,omitempty"`
	// Topo is a detailed topology read from NCCL's own XML dump; when set
	// it is used as it is (its NICs are the ones NCCL saw).
	Topo *topo.System `json:"-"`
	// VisibleDevices is how many CUDA devices the node's process sees
	// (cudaGetDeviceCount, after CUDA_VISIBLE_DEVICES); 0: every device
	// the node lists. Only ncclCommInitAll's devlist check (procs
	// init-all, G-DEV-DUP-2) reads it.
	VisibleDevices int `json:"visible_devices,omitempty"`
}

// mnnvlCliqueOf is the clique a node belongs to: its fabric cluster and
// cliqueId; the zero value without a cluster.
type mnnvlCliqueOf struct {
	cluster string
	id      uint32
}

func (n *Node) mnnvlClique() mnnvlCliqueOf {
	if n.MNNVLClique == "" {
		return mnnvlCliqueOf{}
	}
	return mnnvlCliqueOf{n.MNNVLClique, n.MNNVLCliqueID}
}

// String is what the MNNVL line shows for cliqueId: the cluster's name,
// and the id when it is not 0.
func (c mnnvlCliqueOf) String() string {
	if c.id == 0 {
		return c.cluster
	}
	return fmt.Sprintf("%s/%x", c.cluster, c.id)
}

// CPU is the host processor as NCCL's topology names it.
type CPU struct {
	Arch   string `json:"arch"`            // x86_64, arm64, ppc64
	Vendor string `json:"vendor"`          // Intel, AMD, Zhaoxin, or "" for non-x86
	Model  string `json:"model,omitempty"` // skl, srp, erp, bdw ... as the topology XML writes it
	// Sockets is the number of CPU sockets (NUMA nodes in the topology).
	Sockets int `json:"sockets,omitempty"`
}

// GPU is one device.
type GPU struct {
	Dev   int    `json:"dev"`
	Name  string `json:"name,omitempty"`
	BusID string `json:"bus_id,omitempty"`
	// SM is the compute capability times ten: 70 for V100, 90 for H100/H200.
	SM int `json:"sm"`
	// Multicast is CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED.
	Multicast bool `json:"multicast"`
	// NVLinks is the number of NVLink links; with an NVSwitch they all go to it.
	NVLinks int `json:"nvlinks,omitempty"`
	// FabricHandle is CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED (MNNVL).
	FabricHandle bool `json:"fabric_handle,omitempty"`
	// PCIGen and PCIWidth describe the GPU's PCIe link (defaults 5 and 16 for sm90+, 4/16 for sm80, 3/16 before).
	PCIGen   int `json:"pci_gen,omitempty"`
	PCIWidth int `json:"pci_width,omitempty"`
	// NUMA is the CPU socket the GPU hangs off.
	NUMA int `json:"numa,omitempty"`
	// MLOPart is the partition index (0 or 1) of an MLOPart GPU's
	// partition, the "MLOPart<n>" of its CUDA device name; nil for a whole
	// GPU. The partitions of one GPU share its dev (NVML device).
	MLOPart *int `json:"mlopart,omitempty"`
}

// Driver holds what the CUDA driver and runtime offer.
type Driver struct {
	// MulticastAPI is true when the driver exports cuMulticastCreate (CUDA 12.1+ drivers).
	MulticastAPI bool `json:"multicast_api"`
	// CUDA is the runtime version NCCL was built against, as 12040 for 12.4.
	CUDA int `json:"cuda,omitempty"`
	// CuMem is true when cuMem* (VMM) allocations work; runtime connect and MNNVL need it.
	CuMem bool `json:"cumem"`
	// Verbs is true when libibverbs can be loaded.
	Verbs bool `json:"verbs"`
	// NVLSBindError, when set, is the CUDA error cuMulticastBindMem returns
	// (a Fabric Manager or NVSwitch problem).
	NVLSBindError string `json:"nvls_bind_error,omitempty"`
	// P2PNotSupported is true when NVML reports P2P between the node's GPUs
	// as not supported (GeForce boards on NVIDIA's driver): NCCL then routes
	// GPU-to-GPU paths through the CPU (topo.Options.P2PNotSupported).
	P2PNotSupported bool `json:"p2p_not_supported,omitempty"`
	// PeerMem is the GPUDirect RDMA kernel module loaded: "nvidia_peermem"
	// (/sys/module/nvidia_peermem), "nv_peer_mem" (the legacy
	// /sys/kernel/mm/memory_peers/nv_mem[_nc]), or "none". Empty:
	// nvidia_peermem when a NIC has gdr, else none. The internal IB GIN's
	// GDAKI backend accepts only nvidia_peermem, its proxy either
	// (PeerMemOf).
	PeerMem string `json:"peermem,omitempty"`
	// CuMemGDR is CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED
	// of the node's GPUs (the GIN support of 2.29.7+ needs it on every
	// rank). nil: the same as CuMem.
	CuMemGDR *bool `json:"cumem_gdr,omitempty"`
}

// Peer-memory modules (Driver.PeerMem).
const (
	PeerMemNvidia = "nvidia_peermem"
	PeerMemLegacy = "nv_peer_mem"
	PeerMemNone   = "none"
)

// PeerMemOf is the node's peer-memory module with Driver.PeerMem's
// default applied.
func (n *Node) PeerMemOf() string {
	if n.Driver.PeerMem != "" {
		return n.Driver.PeerMem
	}
	for _, x := range n.NICs {
		if x.GDR {
			return PeerMemNvidia
		}
	}
	return PeerMemNone
}

// CuMemGDROf is Driver.CuMemGDR with its default applied.
func (n *Node) CuMemGDROf() bool {
	if n.Driver.CuMemGDR != nil {
		return *n.Driver.CuMemGDR
	}
	return n.Driver.CuMem
}

// NIC is one verbs port.
type NIC struct {
	Name      string `json:"name"`       // mlx5_0
	Port      int    `json:"port"`       // 1
	LinkLayer string `json:"link_layer"` // IB or RoCE
	SpeedMbps int    `json:"speed_mbps"` // 400000 for NDR x4
	Active    bool   `json:"active"`
	// GDR is true when GPUDirect RDMA works with this NIC (nvidia-peermem or DMA-BUF).
	GDR bool `json:"gdr"`
	// NearGPU is the local GPU index sharing this NIC's PCIe switch (-1: none).
	NearGPU int `json:"near_gpu"`
	NUMA    int `json:"numa,omitempty"`
	// BusID is the PCI address of the port's function ("0000:16:00.1");
	// ports whose addresses differ only in the function are one multi-port
	// NIC (a dual-port ConnectX), which NCCL fuses (G-TOPO-VNIC-1). Empty:
	// a NIC of its own.
	BusID string `json:"bus_id,omitempty"`
	// Provider is the verbs provider (mlx5dv_is_supported): "mlx5" or
	// "other". Empty: mlx5 when the name starts with "mlx5", else other.
	// Only mlx5 devices serve the internal IB GIN's GDAKI backend.
	Provider string `json:"provider,omitempty"`
	// DMABuf is the kernel's DMA-BUF support for this device
	// (ibv_reg_dmabuf_mr not refused with EOPNOTSUPP); default false.
	// The internal IB GIN checks the first device's when no peer-memory
	// module serves it.
	DMABuf bool `json:"dmabuf,omitempty"`
}

// NIC providers (NIC.Provider).
const (
	ProviderMLX5  = "mlx5"
	ProviderOther = "other"
)

// ProviderOf is the NIC's verbs provider with NIC.Provider's default
// applied.
func (n NIC) ProviderOf() string {
	if n.Provider != "" {
		return n.Provider
	}
	if strings.HasPrefix(n.Name, "mlx5") {
		return ProviderMLX5
	}
	return ProviderOther
}

// Library is a shared object on a node and what NCCL finds in it.
type Library struct {
	// Path is where the file is.
	Path string `json:"path"`
	// InLoaderPath is true when dlopen of the bare file name finds it
	// (LD_LIBRARY_PATH, rpath or the loader cache). A path with a '/' is
	// always found by its full path.
	InLoaderPath bool `json:"in_loader_path"`
	// LoadError, when set, is the dlerror text dlopen gives (a missing
	// dependency, wrong architecture): the file exists but cannot be opened.
	LoadError string `json:"load_error,omitempty"`
	// NetSymbols lists N for every exported ncclNetPlugin_vN symbol.
	NetSymbols []int `json:"net_symbols,omitempty"`
	// CollNetSymbols lists N for every exported ncclCollNetPlugin_vN symbol.
	CollNetSymbols []int `json:"collnet_symbols,omitempty"`
	// TunerSymbols lists N for every exported ncclTunerPlugin_vN symbol.
	TunerSymbols []int `json:"tuner_symbols,omitempty"`
	// EnvSymbols lists N for every exported ncclEnvPlugin_vN symbol (2.28.7+).
	EnvSymbols []int `json:"env_symbols,omitempty"`
	// EnvVars are the answers an env plugin gives to ncclGetEnv: they
	// replace the process environment's value for these names.
	EnvVars Env `json:"env_vars,omitempty"`
	// EnvInitError makes an env plugin's init fail.
	EnvInitError string `json:"env_init_error,omitempty"`
	// ProfilerSymbols lists N for every exported ncclProfiler_vN symbol
	// (2.23.4+).
	ProfilerSymbols []int `json:"profiler_symbols,omitempty"`
	// Profiler is what the library's profiler answers.
	Profiler *ProfilerBackend `json:"profiler,omitempty"`
	// GinSymbols lists N for every exported ncclGinPlugin_vN symbol
	// (2.28.7+), GinName the name its struct carries.
	GinSymbols []int  `json:"gin_symbols,omitempty"`
	GinName    string `json:"gin_name,omitempty"`
	// Gin is what the accepted GIN struct's init and devices() answer;
	// nil: init succeeds with devices.
	Gin *GinBackend `json:"gin,omitempty"`
	// RmaSymbols lists N for every exported ncclRmaPlugin_vN symbol
	// (2.30.3+), RmaName the name its struct carries.
	RmaSymbols []int  `json:"rma_symbols,omitempty"`
	RmaName    string `json:"rma_name,omitempty"`
	// Rma is what the accepted RMA struct (an ncclGin_t too) answers.
	Rma *GinBackend `json:"rma,omitempty"`
	// Net is what the library's network answers; nil means it has none.
	Net *NetBackend `json:"net,omitempty"`
	// CollNet is what the library's CollNet answers.
	CollNet *CollNetBackend `json:"collnet,omitempty"`
	// Tuner is what the library's tuner does.
	Tuner *tuning.TunerBehaviour `json:"tuner,omitempty"`
}

// ProfilerBackend is what a profiler plugin's ncclProfiler_vN struct
// answers.
type ProfilerBackend struct {
	// Name is the struct's name, printed in "PROFILER/Plugin: Loaded %s".
	Name string `json:"name,omitempty"`
	// InitError, when not 0, is the error the plugin's init returns.
	InitError int `json:"init_error,omitempty"`
}

// GinBackend is what a GIN or RMA plugin's init and devices() answer, as
// NetBackend's InitError and Devices do for a net plugin.
type GinBackend struct {
	// InitError, when non-empty, makes init() fail.
	InitError string `json:"init_error,omitempty"`
	// Devices is what devices() reports; 0 stands for none as well as for
	// devices() failing, which NCCL treats alike.
	Devices int `json:"devices"`
	// NoStrongSignals and NoVASignals: a v14 GIN plugin's
	// getGinProperties reports no strong or no VA signals (2.30.7+;
	// NCCL's own GINs and the v13 adapter report both).
	NoStrongSignals bool `json:"no_strong_signals,omitempty"`
	NoVASignals     bool `json:"no_va_signals,omitempty"`
}

// maxGinDevices bounds a GIN or RMA plugin's devices().
const maxGinDevices = 1024

// usable is NCCL's test of a GIN or RMA plugin after init: init
// succeeds and devices() reports more than 0.
func (b *GinBackend) usable() (bool, string) {
	switch {
	case b == nil:
		return true, ""
	case b.InitError != "":
		return false, "init() fails: " + b.InitError
	case b.Devices <= 0:
		return false, "devices() reports 0"
	}
	return true, ""
}

// Base is the library's file name.
func (l Library) Base() string {
	if i := strings.LastIndexByte(l.Path, '/'); i >= 0 {
		return l.Path[i+1:]
	}
	return l.Path
}

// NetBackend is a network plugin's behaviour.
type NetBackend struct {
	// Name is what the plugin calls itself (ncclNet_t.name) once its init
	// has run: "IB", "IBext", "IBext_v8", "AWS Libfabric", "Socket".
	Name string `json:"name"`
	// LoadName, when set, is the name the exported ncclNetPlugin_vN struct
	// carries before init, for a plugin whose init swaps in another struct
	// (nccl-rdma-sharp-plugins src/p2p_plugin.c pluginInit_v8: "NCCL RDMA
	// Plugin v8" until pluginSetup installs the "IBext_v8" one). NCCL prints
	// it in "Loaded net plugin", and from 2.26 a plugin loaded through an
	// older-ABI shim keeps it as its network name (Consts.NetNameAtLoad).
	// Empty: Name. "%d" takes the ABI version, as in Name.
	LoadName string `json:"load_name,omitempty"`
	// InitError, when non-empty, makes init() fail.
	InitError string `json:"init_error,omitempty"`
	// Devices is what devices() reports; -1 means "as many as the node has
	// active NICs" (a plugin that lists the verbs devices of the node: the
	// SHARP plugin's IB ports, aws-ofi-nccl's EFA devices).
	Devices int `json:"devices"`
	// DeviceType is "host" (default) or "unpack" (device-side unpacking);
	// DeviceVersion is the UNPACK version it reports.
	DeviceType    string `json:"device_type,omitempty"`
	DeviceVersion int    `json:"device_version,omitempty"`
	// InitLog are the lines the plugin itself prints during init, such as
	// "NET/IB : No device found." from an IB-based plugin without devices.
	InitLog []string `json:"init_log,omitempty"`
	// IBBased is true for plugins that wrap verbs (the SHARP plugin's
	// "IBext"): their devices come from the node's NICs when Devices is -1.
	IBBased bool `json:"ib_based,omitempty"`
	// MakeVDevice says the plugin's makeVDevice is set (net v9+; NCCL
	// leaves it NULL for older plugins): NCCL fuses its ports into
	// virtual NICs as it does the internal IB's (G-TOPO-VNIC-1), an
	// NCCL_IB_MERGE_NICS=0 refusal taken as the IB's.
	MakeVDevice bool `json:"make_vdevice,omitempty"`
	// NoGDR says the devices' ptrSupport lacks NCCL_PTR_CUDA (and
	// DMA-BUF): every NET the plugin reports has gdr 0 whatever the NIC
	// could do (aws-ofi-nccl where libfabric cannot use CUDA memory:
	// "Could not disable CUDA API usage for HMEM, disabling GDR"). NCCL
	// writes the attribute only where the topology has none
	// (ncclTopoPopulateNics' xmlInitAttrInt), so a machine given by
	// NCCL's topology dump keeps the dump's gdr.
	NoGDR bool `json:"no_gdr,omitempty"`
	// NetEnvNames are names the plugin takes instead of Name, at load and
	// after init, when the process environment's NCCL_NET equals one of
	// them ignoring case (aws-ofi-nccl 1.13.0+ renames itself "AWS
	// Libfabric" or "OFI" for scripts written for older names).
	NetEnvNames []string `json:"net_env_names,omitempty"`
	// SetEnv are variables the plugin's init adds to the process
	// environment without overwriting a value already set, before NCCL
	// reads them for the communicator (aws-ofi-nccl's NCCL_PROTO=simple
	// without GDR).
	SetEnv []PluginEnvSet `json:"set_env,omitempty"`
}

// maxPluginEnv bounds a net plugin's renames and environment settings.
const maxPluginEnv = 16

// validate checks what a net plugin's description adds to NCCL's
// environment and names: bounded lists of NCCL_* variables and of names.
func (b *NetBackend) validate() error {
	if b == nil {
		return nil
	}
	if len(b.NetEnvNames) > maxPluginEnv || len(b.SetEnv) > maxPluginEnv {
		return fmt.Errorf("%d net_env_names, %d set_env: expected at most %d each", len(b.NetEnvNames), len(b.SetEnv), maxPluginEnv)
	}
	for k, n := range b.NetEnvNames {
		if n == "" || len(n) > 255 {
			return fmt.Errorf("net_env_names %d: %q: expected a name of 1-255 characters", k, n)
		}
	}
	for k, e := range b.SetEnv {
		if !strings.HasPrefix(e.Name, "NCCL_") || len(e.Name) > 255 || len(e.Value) > 4096 || strings.ContainsAny(e.Name, "= ") {
			return fmt.Errorf("set_env %d: %q=%q: expected an NCCL_* variable name and a value of at most 4096 bytes", k, e.Name, e.Value)
		}
	}
	return nil
}

// PluginEnvSet is one variable a net plugin's init sets: Log is printed
// when it sets it, Kept (when not empty) when a value was already there,
// with "%s" standing for that value.
type PluginEnvSet struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Log   string `json:"log,omitempty"`
	Kept  string `json:"kept,omitempty"`
}

// CollNetBackend is a CollNet plugin's behaviour.
type CollNetBackend struct {
	// Name is what the CollNet object calls itself ("SHARP").
	Name      string `json:"name,omitempty"`
	InitError string `json:"init_error,omitempty"`
	// Devices is what the CollNet devices() reports; -1 means "as many as
	// the node has active verbs NICs" (the SHARP plugin).
	Devices int `json:"devices"`
	// ReduceSupport is the default answer of reduceSupport(): redop → datatypes.
	ReduceSupport ReduceSet `json:"reduce_support,omitempty"`
	// RankReduceSupport overrides ReduceSupport for given global ranks
	// (a rank whose plugin answers differently).
	RankReduceSupport map[int]ReduceSet `json:"rank_reduce_support,omitempty"`
	// NoAllGather / NoReduceScatter mark a v8+ plugin whose iallgather /
	// ireducescatter entry points are NULL.
	NoAllGather     bool `json:"no_allgather,omitempty"`
	NoReduceScatter bool `json:"no_reducescatter,omitempty"`
	// ConnectError makes the CollNet transport setup fail (a SHARP
	// resource or subnet-manager problem): NCCL disables CollNet.
	ConnectError string `json:"connect_error,omitempty"`
	// MakeVDevice says the plugin's makeVDevice is set (collnet v9+; NCCL
	// leaves it NULL for older plugins): NCCL's CollNet pass fuses its
	// devices too (G-TOPO-VNIC-2), so a fused NIC keeps CollNet.
	MakeVDevice bool `json:"make_vdevice,omitempty"`
}

// ReduceSet is a set of (redop, datatype) pairs a CollNet plugin supports,
// written as redop name → datatype names, e.g. {"sum":["float32","bfloat16"]}.
type ReduceSet map[string][]string

// Has reports whether (op, dt) is in the set.
func (s ReduceSet) Has(op RedOp, dt DataType) bool {
	for k, ts := range s {
		r, err := ParseRedOp(k)
		if err != nil || r != op {
			continue
		}
		for _, t := range ts {
			if d, err := ParseDataType(t); err == nil && d == dt {
				return true
			}
		}
	}
	return false
}

// Bits resolves the set into a [redop][datatype] table, once, for loops
// that look it up per rank.
func (s ReduceSet) Bits() (out [NumRedOps][NumDataTypes]bool) {
	for k, ts := range s {
		r, err := ParseRedOp(k)
		if err != nil {
			continue
		}
		for _, t := range ts {
			if d, err := ParseDataType(t); err == nil {
				out[r][d] = true
			}
		}
	}
	return out
}

// Validate checks the names in the set.
func (s ReduceSet) Validate() error {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r, err := ParseRedOp(k)
		if err != nil {
			return err
		}
		if r == Avg || r == PreMulSum {
			return fmt.Errorf("reduce_support %q: NCCL queries the plugin with sum, prod, max and min only", k)
		}
		for _, t := range s[k] {
			if _, err := ParseDataType(t); err != nil {
				return fmt.Errorf("reduce_support %q: %v", k, err)
			}
		}
	}
	return nil
}

// NRanks is the total GPU count.
func (s *System) NRanks() int {
	n := 0
	for _, nd := range s.Nodes {
		n += len(nd.GPUs)
	}
	return n
}

// HasMLOPart is comm->hasMloPart: a GPU of the system is an MLOPart
// partition (fillInfo reads it from the CUDA device name).
func (s *System) HasMLOPart() bool {
	for i := range s.Nodes {
		for _, g := range s.Nodes[i].GPUs {
			if g.MLOPart != nil {
				return true
			}
		}
	}
	return false
}

// NNodes is the number of hosts.
func (s *System) NNodes() int { return len(s.Nodes) }

// MaxLocalRanks is the largest GPU count of a node.
func (s *System) MaxLocalRanks() int {
	m := 0
	for _, nd := range s.Nodes {
		m = max(m, len(nd.GPUs))
	}
	return m
}

// RankLocation maps a global rank to (node, local index).
func (s *System) RankLocation(rank int) (node, local int, ok bool) {
	for i, nd := range s.Nodes {
		if rank < len(nd.GPUs) {
			return i, rank, true
		}
		rank -= len(nd.GPUs)
	}
	return 0, 0, false
}

// MinMaxSM is the smallest and largest compute capability over all GPUs.
func (s *System) MinMaxSM() (lo, hi int) {
	lo = 1 << 30
	for _, nd := range s.Nodes {
		for _, g := range nd.GPUs {
			lo = min(lo, g.SM)
			hi = max(hi, g.SM)
		}
	}
	if hi == 0 {
		lo = 0
	}
	return lo, hi
}

// Validate checks a system for the mistakes that would make the gates
// meaningless, and names the node and field.
func (s *System) Validate() error {
	if s == nil || len(s.Nodes) == 0 {
		return fmt.Errorf("system: no nodes: expected at least one node with at least one GPU")
	}
	if len(s.Nodes) > MaxNodes {
		return fmt.Errorf("system %s: %d nodes: expected at most %d (gatesim's limit)", s.Name, len(s.Nodes), MaxNodes)
	}
	if s.Procs < 0 || s.Procs >= NumProcs {
		return fmt.Errorf("system %s: procs %d: expected per-gpu, per-node or init-all", s.Name, int(s.Procs))
	}
	if s.Procs == ProcsInitAll && len(s.Nodes) > 1 {
		return fmt.Errorf("system %s: procs init-all with %d nodes: ncclCommInitAll makes the ranks of one process, expected one node", s.Name, len(s.Nodes))
	}
	ranks := 0
	for i, nd := range s.Nodes {
		where := lazyWhere{s.Name, i}
		if len(nd.GPUs) == 0 {
			return fmt.Errorf("%s: no GPUs: expected at least one", where)
		}
		if len(nd.GPUs) > MaxGPUsPerNode {
			return fmt.Errorf("%s: %d GPUs: expected at most %d (NCCL_MAX_LOCAL_RANKS)", where, len(nd.GPUs), MaxGPUsPerNode)
		}
		if ranks += len(nd.GPUs); ranks > MaxRanks {
			return fmt.Errorf("system %s: more than %d ranks (gatesim's limit)", s.Name, MaxRanks)
		}
		if nd.MNNVLCliqueID != 0 && nd.MNNVLClique == "" {
			return fmt.Errorf("%s: mnnvl_clique_id %d without mnnvl_clique: expected the fabric cluster the clique belongs to", where, nd.MNNVLCliqueID)
		}
		if i > 0 && sharesNode(&s.Nodes[i-1], &s.Nodes[i]) {
			continue // the same facts as the node before, which passed
		}
		if nd.VisibleDevices < 0 || nd.VisibleDevices > MaxGPUsPerNode {
			return fmt.Errorf("%s: visible_devices %d: expected 1-%d (the CUDA devices the process sees) or 0 (every device the node lists)", where, nd.VisibleDevices, MaxGPUsPerNode)
		}
		devs := map[int]bool{}
		for j, g := range nd.GPUs {
			if g.MLOPart != nil && nd.VisibleDevices != 0 {
				// a partition's CUDA device index is not its dev
				return fmt.Errorf("%s: gpu %d: visible_devices %d with MLOPart partitions: not modelled; expected no visible_devices on a node of MLOPart GPUs", where, j, nd.VisibleDevices)
			}
			if g.SM < 30 || g.SM > 200 {
				return fmt.Errorf("%s: gpu %d: sm %d: expected a compute capability times ten such as 70, 80, 90, 100", where, j, g.SM)
			}
			if g.MLOPart != nil && (*g.MLOPart < 0 || *g.MLOPart > 1) {
				return fmt.Errorf("%s: gpu %d: mlopart %d: expected 0 or 1 (an MLOPart GPU's partitions) or none", where, j, *g.MLOPart)
			}
			if g.MLOPart != nil && nd.Topo == nil && !mloPartPaired(nd.GPUs, j) {
				return fmt.Errorf("%s: gpu %d: mlopart %d of dev %d alone: expected the partitions 0 and 1 of an MLOPart GPU listed one after the other, partition 0 first", where, j, *g.MLOPart, g.Dev)
			}
			if devs[g.Dev] && !sameDeviceKind(nd.GPUs[:j], g) {
				return fmt.Errorf("%s: gpu %d: dev %d is listed both as a whole GPU and as an MLOPart partition: expected one kind per CUDA device index", where, j, g.Dev)
			}
			devs[g.Dev] = true
			if g.NVLinks < 0 {
				return fmt.Errorf("%s: gpu %d: nvlinks %d: expected 0 or more", where, j, g.NVLinks)
			}
		}
		devices := map[string]int{}
		for j, n := range nd.NICs {
			if n.SpeedMbps < -1 || n.Port < 0 {
				return fmt.Errorf("%s: nic %d (%s): speed_mbps %d, port %d: expected a speed of 0 or more (-1: unknown, as some NICs report) and a port of 0 or more", where, j, n.Name, n.SpeedMbps, n.Port)
			}
			if n.BusID == "" {
				continue
			}
			dev, err := topo.NICDevice(n.BusID)
			if err != nil {
				return fmt.Errorf("%s: nic %d (%s): bus_id: %v", where, j, n.Name, err)
			}
			for k, o := range nd.NICs[:j] {
				if strings.EqualFold(o.BusID, n.BusID) {
					return fmt.Errorf("%s: nic %d (%s): bus_id %q is nic %d's too: expected one address per port", where, j, n.Name, n.BusID, k)
				}
			}
			if k, ok := devices[dev]; ok && (nd.NICs[k].NearGPU != n.NearGPU || nd.NICs[k].NUMA != n.NUMA) {
				return fmt.Errorf("%s: nic %d (%s): bus_id %q is a port of nic %d's device: expected its near_gpu %d and numa %d", where, j, n.Name, n.BusID, k, nd.NICs[k].NearGPU, nd.NICs[k].NUMA)
			} else if !ok {
				devices[dev] = j
			}
		}
		for j, l := range nd.Libs {
			if l.Path == "" {
				return fmt.Errorf("%s: lib %d: empty path", where, j)
			}
			for _, f := range []struct {
				field string
				vs    []int
			}{{"net_symbols", l.NetSymbols}, {"collnet_symbols", l.CollNetSymbols}, {"tuner_symbols", l.TunerSymbols},
				{"env_symbols", l.EnvSymbols}, {"profiler_symbols", l.ProfilerSymbols}, {"gin_symbols", l.GinSymbols}, {"rma_symbols", l.RmaSymbols}} {
				for k, v := range f.vs {
					if v < 1 || v > 99 {
						return fmt.Errorf("%s: lib %s: %s: version %d: expected 1-99", where, l.Path, f.field, v)
					}
					if slices.Contains(f.vs[:k], v) {
						return fmt.Errorf("%s: lib %s: %s: version %d listed twice: expected each version once", where, l.Path, f.field, v)
					}
				}
			}
			for _, b := range []struct {
				field string
				g     *GinBackend
			}{{"gin", l.Gin}, {"rma", l.Rma}} {
				if b.g != nil && (b.g.Devices < 0 || b.g.Devices > maxGinDevices) {
					return fmt.Errorf("%s: lib %s: %s: devices %d: expected 0-%d (0: none or devices() fails)", where, l.Path, b.field, b.g.Devices, maxGinDevices)
				}
			}
			if l.CollNet != nil {
				if err := l.CollNet.ReduceSupport.Validate(); err != nil {
					return fmt.Errorf("%s: lib %s: %v", where, l.Path, err)
				}
				for r, rs := range l.CollNet.RankReduceSupport {
					if err := rs.Validate(); err != nil {
						return fmt.Errorf("%s: lib %s: rank %d: %v", where, l.Path, r, err)
					}
				}
			}
			if l.Tuner != nil {
				for k, r := range l.Tuner.Rules {
					if _, err := ParseFunc(r.Func); err != nil {
						return fmt.Errorf("%s: lib %s: tuner rule %d: %v", where, l.Path, k, err)
					}
					if _, err := ParseAlgo(r.Algo); err != nil {
						return fmt.Errorf("%s: lib %s: tuner rule %d: %v", where, l.Path, k, err)
					}
					p, err := ParseProto(r.Proto)
					if err != nil {
						return fmt.Errorf("%s: lib %s: tuner rule %d: %v", where, l.Path, k, err)
					}
					if _, err := tuning.ParseTunerResult(r.Result); err != nil {
						return fmt.Errorf("%s: lib %s: tuner rule %d: %v", where, l.Path, k, err)
					}
					if r.Result != "" && r.ChunkSize != 0 {
						return fmt.Errorf("%s: lib %s: tuner rule %d: result and chunk_size: expected one (a result fails getCollInfo, a chunk_size answers getChunkSize)", where, l.Path, k)
					}
					if g := int64(tuning.GrainSize[p]); r.ChunkSize != 0 && (r.ChunkSize < g || r.ChunkSize > tuning.MaxTunerChunkSize) {
						// below the grain NCCL aligns the chunk to 0 and divides by it
						return fmt.Errorf("%s: lib %s: tuner rule %d: chunk_size %d: expected 0 (the rule sets the cost table) or %d-%d bytes (the %s grain up)", where, l.Path, k, r.ChunkSize, g, tuning.MaxTunerChunkSize, p)
					}
				}
			}
			if err := l.Net.validate(); err != nil {
				return fmt.Errorf("%s: lib %s: net: %v", where, l.Path, err)
			}
		}
		for j, n := range nd.NICs {
			if n.LinkLayer != "" && n.LinkLayer != "IB" && n.LinkLayer != "RoCE" {
				return fmt.Errorf("%s: nic %d (%s): link_layer %q: expected IB or RoCE", where, j, n.Name, n.LinkLayer)
			}
			if n.Provider != "" && n.Provider != ProviderMLX5 && n.Provider != ProviderOther {
				return fmt.Errorf("%s: nic %d (%s): provider %q: expected mlx5 or other", where, j, n.Name, n.Provider)
			}
		}
		switch nd.Driver.PeerMem {
		case "", PeerMemNvidia, PeerMemLegacy, PeerMemNone:
		default:
			return fmt.Errorf("%s: driver: peermem %q: expected nvidia_peermem, nv_peer_mem or none", where, nd.Driver.PeerMem)
		}
	}
	return nil
}

// lazyWhere names a node in Validate's errors; it is formatted only when
// an error is (%s), not for every node of a valid system.
type lazyWhere struct {
	system string
	node   int
}

func (w lazyWhere) String() string { return fmt.Sprintf("system %s: node %d", w.system, w.node) }

// sameDeviceKind: the GPUs before g with its dev are, as g, all whole
// GPUs or all MLOPart partitions. Several ranks on one device (or one
// partition) are a valid system NCCL refuses at init (G-DEV-DUP-1).
func sameDeviceKind(before []GPU, g GPU) bool {
	for _, o := range before {
		if o.Dev == g.Dev && (o.MLOPart == nil) != (g.MLOPart == nil) {
			return false
		}
	}
	return true
}

// mloPartPaired: GPU j is partition 0 followed by partition 1 of its dev,
// or partition 1 after partition 0.
func mloPartPaired(gpus []GPU, j int) bool {
	pair := func(a, b int) bool {
		return a >= 0 && b < len(gpus) && gpus[a].Dev == gpus[b].Dev &&
			gpus[a].MLOPart != nil && *gpus[a].MLOPart == 0 && gpus[b].MLOPart != nil && *gpus[b].MLOPart == 1
	}
	return pair(j, j+1) || pair(j-1, j)
}

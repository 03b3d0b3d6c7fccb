package ncclog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Bounds on what a Log keeps. A log of any size keeps at most this much;
// what does not fit is counted (the *Dropped fields), never stored.
const (
	maxSamplesPerKind = 3
	maxUnparsedSample = 20
	maxProcs          = 4096
	maxComms          = 4096
	maxDistinctOps    = 2048
	maxDistinctSymOps = 1024
	maxDistinctCalls  = 1024
	maxDistinctErrors = 512
	maxDistinctSmall  = 256
	maxTables         = 8
	maxLineBytes      = 64 << 10
	// The parser remembers the match of up to maxMemo recent messages of
	// at most maxMemoMsg bytes (about 2 MB at most).
	maxMemo    = 4096
	maxMemoMsg = 512
)

// Sample is one log line kept as evidence: where it is and its message.
type Sample struct {
	At   Loc    `json:"at"`
	Proc string `json:"proc,omitempty"` // host:pid[dev]
	Msg  string `json:"msg"`
}

// Source is one input (a file, one rank's log, stdin).
type Source struct {
	Name  string `json:"name"`
	Lines int    `json:"lines"`
	Bytes int64  `json:"bytes"`
	// NCCLLines counts the lines recognised as NCCL's (prefixed or bare).
	NCCLLines int `json:"nccl_lines"`
	// Truncated is set when the source ends in the middle of a line.
	Truncated bool `json:"truncated,omitempty"`
	// CutLines counts lines longer than the parser keeps (64 KiB).
	CutLines int `json:"cut_lines,omitempty"`
}

// EnvVar is one NCCL_* variable NCCL reported reading.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// How says which line reported it: "env" (set by environment), "set"
	// (NCCL_IB_HCA set to), "config" (Comm config reset), "invalid"
	// (Invalid value, default used), "ignored" (read, then "is too low,
	// leaving it set at": the config field keeps its value).
	How string `json:"how"`
	// Kept is the config value an "ignored" variable left in place (the
	// line's "leaving it set at %d").
	Kept string `json:"kept,omitempty"`
	At   Loc    `json:"at"`
	// Others are different values reported for the same name (ranks
	// launched with different environments), at most a few.
	Others []string `json:"others,omitempty"`
}

// ConfigLine is one "Comm config" line: How "set" (parseCommConfig: the
// config set Field to Value) or "reset" (envConfigOverride: Var, the
// variable NCCL read, overrode Field with Value); or one of
// envConfigOverride's other lines, How "checked": Var's Value refused
// ("is too low", "is not valid", "is too big") or Field's Value corrected
// ("is larger than", "is not a valid value").
type ConfigLine struct {
	Field string `json:"field"`
	Value string `json:"value"`
	How   string `json:"how"`
	Var   string `json:"var,omitempty"`
	Msg   string `json:"msg"`
	At    Loc    `json:"at"`
}

// Proc is one process seen in the log (host:pid).
type Proc struct {
	Host         string `json:"host"`
	PID          int    `json:"pid"`
	LauncherRank int    `json:"launcher_rank"`
	Devs         []int  `json:"devs"`
	Lines        int    `json:"lines"`
	Version      string `json:"version,omitempty"`
}

// Comm is one communicator rank as its init lines describe it.
type Comm struct {
	Proc       string `json:"proc"`
	Ptr        string `json:"comm"`
	Rank       int    `json:"rank"`
	NRanks     int    `json:"nranks"`
	CudaDev    int    `json:"cuda_dev"`
	BusID      string `json:"bus_id,omitempty"`
	NNodes     int    `json:"nnodes,omitempty"`
	LocalRanks int    `json:"local_ranks,omitempty"`
	MNNVL      int    `json:"mnnvl,omitempty"`
	Started    bool   `json:"started,omitempty"`
	Complete   bool   `json:"complete"`
	At         Loc    `json:"at"`
}

// NameCount is a name seen Count times, first at At.
type NameCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	At    Loc    `json:"at"`
}

// PluginLog is what the log says about external network plugin discovery
// (G-NET-LIB-1/2, G-NET-ABI-1, G-COLLNET-ABI-1).
type PluginLog struct {
	// NotFound lists the library names NCCL tried and could not find.
	NotFound []string `json:"not_found,omitempty"`
	// LoadErrors are dlopen errors other than "not found" (the file exists).
	LoadErrors []string `json:"load_errors,omitempty"`
	// NameEnv is the library NCCL_NET_PLUGIN made it load (2.21-2.27).
	NameEnv string `json:"name_env,omitempty"`
	// Path is the library's path as NCCL or the plugin prints it.
	Path string `json:"path,omitempty"`
	// SymbolsMissing are the ncclNetPlugin_vN symbols NCCL reported missing.
	SymbolsMissing []int `json:"symbols_missing,omitempty"`
	// NoSymbol: no acceptable ncclNetPlugin symbol (library rejected).
	NoSymbol bool `json:"no_symbol,omitempty"`
	// Unsupported: "External network plugin %s is unsupported" (2.28+).
	Unsupported string `json:"unsupported,omitempty"`
	// Name and ABI of the loaded net plugin ("Loaded net plugin X (vN)").
	Name string `json:"name,omitempty"`
	ABI  int    `json:"abi,omitempty"`
	// Success: "Successfully loaded external network plugin" (2.28+).
	Success bool `json:"success,omitempty"`
	// CollNet: the CollNet part of the same library.
	CollNetName           string `json:"collnet_name,omitempty"`
	CollNetABI            int    `json:"collnet_abi,omitempty"`
	CollNetSymbolsMissing []int  `json:"collnet_symbols_missing,omitempty"`
	CollNetNoSymbol       bool   `json:"collnet_no_symbol,omitempty"`
	// Self-reports printed by the plugin's own init.
	P2PPlugin   string `json:"p2p_plugin,omitempty"`
	OFIProvider string `json:"ofi_provider,omitempty"`
	OFINICs     int    `json:"ofi_nics,omitempty"`
	// OFI is what aws-ofi-nccl's own lines say of its release and host.
	OFI OFILog `json:"ofi,omitzero"`
	// DeviceType from "Using non-device net plugin" / UNPACK lines.
	DeviceType string `json:"device_type,omitempty"`
}

// OFILog is what aws-ofi-nccl prints of itself ("NET/OFI" lines), each
// with the line that said it (zero Line: not printed).
type OFILog struct {
	// Version is PACKAGE_STRING's version ("Using aws-ofi-nccl 1.7.4-aws"
	// to 1.7.x, "Initializing aws-ofi-nccl 1.18.0" from 1.8.0).
	Version   string `json:"version,omitempty"`
	VersionAt Loc    `json:"version_at,omitzero"`
	// Platform is the EC2 instance type its tuner names ("... for
	// platform : g7e.8xlarge", "... chosen for platform: p5en.48xlarge")
	// or its TRACE lines ("Product Name is", "EC2 platform type is").
	Platform   string `json:"platform,omitempty"`
	PlatformAt Loc    `json:"platform_at,omitzero"`
	// NoGDR: "Could not disable CUDA API usage for HMEM, disabling GDR".
	NoGDRAt Loc `json:"no_gdr_at,omitzero"`
	// Libfabric is the "Using Libfabric version A.B" version.
	Libfabric string `json:"libfabric,omitempty"`
}

// IBLog is what the log says about IB/RoCE devices.
type IBLog struct {
	// Devices are the ports NET/IB : Using listed ("mlx5_0:1/IB").
	Devices      []string `json:"devices,omitempty"`
	SHARPDevices int      `json:"sharp_devices,omitempty"`
	NoDevice     int      `json:"no_device,omitempty"`
	NoIP         int      `json:"no_ip,omitempty"`
	VerbsMissing int      `json:"verbs_missing,omitempty"`
	DataErrors   int      `json:"data_errors,omitempty"`
	// VirtualDevices are the devices the IB fused ports into ("NET/IB :
	// Made virtual device" with ndevs > 1; the ones of one port each are
	// not fusions), as "[dev] name ndevs=N", first seen first.
	VirtualDevices []string `json:"virtual_devices,omitempty"`
	// VNicsMade are the device numbers of "TOPO/NET : Made vNic" lines,
	// one per plugin pass and vNic (CollNet's pass prints them too).
	VNicsMade []int `json:"vnics_made,omitempty"`
}

// GDRLog counts GPUDirect RDMA verdicts.
type GDRLog struct {
	HCAEnabled  []string `json:"hca_enabled,omitempty"`
	HCADisabled []string `json:"hca_disabled,omitempty"`
	GPUEnabled  int      `json:"gpu_enabled,omitempty"`
	GPUDisabled int      `json:"gpu_disabled,omitempty"`
}

// NVLSLog is what the log says about NVLink SHARP beyond line counts.
type NVLSLog struct {
	// AvailableDevs and UnavailableDevs count distinct (process, device)
	// pairs of "NVLS multicast support is [not ]available on dev %d".
	AvailableDevs   int `json:"available_devs"`
	UnavailableDevs int `json:"unavailable_devs"`
	// NChannels is the NVLS_NCHANNELS value 2.27-2.29 print on that line
	// (0 when not printed).
	NChannels int `json:"nchannels,omitempty"`
	// CudaFailures counts WARN "Cuda failure" lines printed from nvls.cc.
	CudaFailures int `json:"cuda_failures,omitempty"`
	// RegFailures counts "rank %d failed to NVLS register ..." lines: an
	// operation's user buffer that NVLS could not register (each such
	// failure follows at most one failed CUDA call of the registration).
	RegFailures int `json:"register_failures,omitempty"`
	// RegFailed are the distinct buffers of those lines (the first
	// maxDistinctSmall): what NVLS tried to register for one operation.
	RegFailed []NVLSRegFailure `json:"register_failed,omitempty"`
}

// NVLSRegFailure is one "failed to NVLS register" line: the buffer sizes
// NCCL computed for the operation (send and receive counts × element
// size; an AllGather's send buffer and a ReduceScatter's receive buffer
// print (nil)) and whether both buffers are one (in place).
type NVLSRegFailure struct {
	SendBytes int64 `json:"send_bytes"`
	RecvBytes int64 `json:"recv_bytes"`
	InPlace   bool  `json:"in_place"`
}

// RegLog is what the log says about user-buffer registration (REG
// subsystem, NVLS before 2.24.3): one outcome per distinct buffer line.
type RegLog struct {
	// Lines counts the registration lines read, repeats included.
	Lines int `json:"lines,omitempty"`
	// Outcomes are the distinct outcomes (the first maxDistinctSmall).
	Outcomes []RegOutcome `json:"outcomes,omitempty"`
}

// RegOutcome is one registration line: the path (IPC, NET, CollNet,
// NVLS: the kind of info->regBufType the model writes too), whether it
// failed, and the buffers it names. IPC, NET and CollNet lines name one
// buffer (Bytes; Recv for CollNet's receive buffer); NVLS lines and the
// 2.21-2.23 CollNet line name both (SendBytes, RecvBytes, InPlace when
// both addresses are one). No line names the collective or its channels.
type RegOutcome struct {
	Path      tuning.ChunkReg `json:"path"`
	Failed    bool            `json:"failed,omitempty"`
	Bytes     int64           `json:"bytes,omitempty"`
	Recv      bool            `json:"recv,omitempty"`
	SendBytes int64           `json:"send_bytes,omitempty"`
	RecvBytes int64           `json:"recv_bytes,omitempty"`
	InPlace   bool            `json:"in_place,omitempty"`
}

// Both reports whether the line names both buffers of the operation.
func (r RegOutcome) Both() bool { return r.Bytes == 0 && (r.SendBytes != 0 || r.RecvBytes != 0) }

// Result is the outcome as diagnose compares it with the model's
// (tuning.OpChoice.RegResults): the path and whether the call failed.
func (r RegOutcome) Result() tuning.RegResult {
	return tuning.RegResult{Kind: r.Path, Failed: r.Failed}
}

// String is the outcome in words, for printing only: comparisons use
// Result.
func (r RegOutcome) String() string {
	if r.Failed {
		return r.Path.String() + " register failed"
	}
	return r.Path.String() + " registered"
}

// MNNVLLog is what a multi-node NVLink (GB200-class) node says about its
// fabric: each GPU's fabric state and clique, and the communicator's MNNVL
// decision.
type MNNVLLog struct {
	// Fabric lists the distinct (UUID, clique, state, health) a GPU
	// reported ("MNNVL busId ... fabric UUID ... state %d healthMask").
	Fabric []MNNVLFabric `json:"fabric,omitempty"`
	// Enabled and Disabled count "MNNVL 1 cliqueId ..." and "MNNVL 0 ..."
	// lines; CliqueSize is the largest clique printed, NVLDomainSize the
	// largest NVL domain (2.30.3+: the ranks of the cluster UUID, every
	// clique). CrossClique counts "Cross-clique P2P enabled" lines
	// (NCCL_MNNVL_CROSS_CLIQUE on a domain larger than the clique).
	Enabled       int `json:"enabled,omitempty"`
	Disabled      int `json:"disabled,omitempty"`
	CliqueSize    int `json:"clique_size,omitempty"`
	NVLDomainSize int `json:"nvl_domain_size,omitempty"`
	CrossClique   int `json:"cross_clique,omitempty"`
}

// MNNVLFabric is one GPU fabric report. State is nvmlGpuFabricState_t: 0
// not supported, 1 not started, 2 in progress, 3 completed. HealthMask is
// NVML's health fields as printed (the low two bits are the degraded-bandwidth
// field, 2 meaning false; a sound GB200 tray prints 0xaa); NCCL prints it and
// never reads it.
type MNNVLFabric struct {
	UUID       string `json:"uuid"`
	CliqueID   string `json:"clique_id"`
	State      int    `json:"state"`
	HealthMask string `json:"health_mask"`
	Count      int    `json:"count"`
	At         Loc    `json:"at"`
}

// Ready reports a completed fabric registration, the one fabric fact NCCL's
// MNNVL check reads: every rank's state must be
// NVML_GPU_FABRIC_STATE_COMPLETED, whatever the health mask says
// (G-MNNVL-1; v2.21.5-1 src/init.cc, v2.26.2-1 to v2.30.7-1 src/mnnvl.cc
// ncclMnnvlCheck).
func (f MNNVLFabric) Ready() bool { return f.State == 3 }

// TransportUse is one kind of connector seen on channel setup lines.
type TransportUse struct {
	// Class is P2P, SHM, NET or COLLNET.
	Class string `json:"class"`
	// Detail is the normalised path: "P2P/CUMEM/read", "NET/IB/GDRDMA".
	Detail string `json:"detail"`
	// Net is the network name for NET and COLLNET ("IB", "IBext_v8", "SHARP").
	Net   string `json:"net,omitempty"`
	GDR   bool   `json:"gdr,omitempty"`
	Count int    `json:"count"`
	First Sample `json:"first"`
}

// P2PTypeLine is a "Check P2P Type isAllDirectP2p %d directMode %d"
// line: every local pair connects over direct P2P, and some two local
// ranks share a process.
type P2PTypeLine struct {
	AllDirectP2P bool `json:"all_direct_p2p"`
	DirectMode   bool `json:"direct_mode"`
	At           Loc  `json:"at"`
}

// SharedProcess says whether ranks of the log's communicator share a
// process, and the line that shows it: a "Check P2P Type" line's
// directMode (2.24.3+), else a connection "via P2P/direct pointer",
// which p2pSendSetup prints only between ranks of one process. known is
// false when the log shows neither (other P2P paths do not rule it out:
// NCCL_P2P_DIRECT_DISABLE, and cuMem up to 2.19.1, keep such ranks off
// direct pointers).
func (l *Log) SharedProcess() (shared bool, at Loc, known bool) {
	if t := l.P2PType; t != nil {
		return t.DirectMode, t.At, true
	}
	for _, t := range l.Transports {
		if strings.HasPrefix(t.Detail, "P2P/direct pointer") {
			return true, t.First.At, true
		}
	}
	return false, Loc{}, false
}

// ChannelSummary is one "%d coll channels, ..." line (distinct values).
type ChannelSummary struct {
	Coll       int  `json:"coll"`
	CollNet    int  `json:"collnet"`
	NVLS       int  `json:"nvls"`
	HasCollNet bool `json:"has_collnet"`
	HasNVLS    bool `json:"has_nvls"`
	P2P        int  `json:"p2p"`
	P2PPerPeer int  `json:"p2p_per_peer"`
	Count      int  `json:"count"`
	At         Loc  `json:"at"`
}

// Line is the summary in the form the logging release printed it:
// 2.18.x-2.19.x have no collnet count (v2.19.4-1 src/init.cc
// initTransportsRank), releases before 2.17 no nvls count either, so a
// model that prints the old form is compared with the old form.
func (s ChannelSummary) Line() string {
	out := fmt.Sprintf("%d coll channels, ", s.Coll)
	if s.HasCollNet {
		out += fmt.Sprintf("%d collnet channels, ", s.CollNet)
	}
	if s.HasNVLS {
		out += fmt.Sprintf("%d nvls channels, ", s.NVLS)
	}
	return out + fmt.Sprintf("%d p2p channels, %d p2p channels per peer", s.P2P, s.P2PPerPeer)
}

// GraphLine is one [GRAPH] "Pattern %d, crossNic %d, nChannels %d, ..." line.
type GraphLine struct {
	Pattern      int     `json:"pattern"`
	CrossNic     int     `json:"cross_nic"`
	NChannels    int     `json:"nchannels"`
	BwIntra      float64 `json:"bw_intra"`
	BwInter      float64 `json:"bw_inter"`
	TypeIntra    string  `json:"type_intra"`
	TypeInter    string  `json:"type_inter"`
	SameChannels int     `json:"same_channels"`
	Count        int     `json:"count"`
	At           Loc     `json:"at"`
}

// Cell is one latency/bandwidth entry of the printed tuning table.
type Cell struct {
	Lat float64 `json:"lat"`
	Bw  float64 `json:"bw"`
	Set bool    `json:"set"`
}

// TuningTable is the model table rank 0 prints at init ([TUNING]).
type TuningTable struct {
	At         Loc                                                `json:"at"`
	Proc       string                                             `json:"proc"`
	Cells      [spec.NumFuncs][spec.NumAlgos][spec.NumProtos]Cell `json:"cells"`
	MaxThreads [spec.NumAlgos][spec.NumProtos]int                 `json:"max_threads"`
	// Algos are the algorithms the table has columns for, in order.
	Algos []spec.Algo `json:"algos"`
	// Inferred is set when the log lacks the table's "Algorithm" row and
	// the columns were assigned in NCCL's algorithm index order.
	Inferred bool `json:"inferred,omitempty"`
}

// Cell returns one cell and whether the table has it.
func (t *TuningTable) Cell(f spec.Func, a spec.Algo, p spec.Proto) (Cell, bool) {
	if f < 0 || f >= spec.NumFuncs || a < 0 || a >= spec.NumAlgos || p < 0 || p >= spec.NumProtos {
		return Cell{}, false
	}
	c := t.Cells[f][a][p]
	return c, c.Set
}

// OpChoice is one distinct per-operation decision line.
type OpChoice struct {
	Func  spec.Func  `json:"coll"`
	Bytes int64      `json:"bytes"`
	Algo  spec.Algo  `json:"algo"`
	Proto spec.Proto `json:"proto"`
	// ChannelLo/Hi from the 2.24+ line; -1 when the line does not say.
	ChannelLo int `json:"channel_lo"`
	ChannelHi int `json:"channel_hi"`
	// TimeUs from the numeric (2.5-2.23, TRACE) line; -1 when absent.
	TimeUs float64 `json:"time_us"`
	// FuncKnown is false when the line did not name the collective and no
	// call line before it did (2.22 INFO lines).
	FuncKnown bool `json:"func_known"`
	// DType, RedOp from the preceding call line of the same thread.
	DType     spec.DataType `json:"dtype"`
	RedOp     spec.RedOp    `json:"redop"`
	DTypeKnow bool          `json:"dtype_known"`
	Trace     bool          `json:"trace,omitempty"`
	Count     int           `json:"count"`
	First     Sample        `json:"first"`
}

// SymOp is one distinct [Symmetric] line: a plan of window-buffer
// collectives a symmetric kernel ran, as rank 0 prints it (2.27.3+).
type SymOp struct {
	Func      spec.Func `json:"coll"`
	FuncKnown bool      `json:"func_known"`
	// Bytes is the plan's bytes: NCCL prints logCount times the type
	// size, the sum of its tasks' bytes (2.28.3+; 2.27's one task's).
	Bytes     int64  `json:"bytes"`
	Kernel    string `json:"kernel"`
	NChannels int    `json:"nchannels"`
	NThreads  int    `json:"nthreads"`
	// NWorks is the tasks of the plan (2.28.3+); -1 on 2.27's line, which
	// has one collective and does not say.
	NWorks int    `json:"nworks"`
	Count  int    `json:"count"`
	First  Sample `json:"first"`
}

// TaskBytes is the bytes of one of the line's tasks: the line sums its
// nWorks tasks' bytes, and a group of equal operations (nccl-tests -m)
// divides them evenly. ok is false when nWorks does not divide them: the
// tasks differ and the line names no one task's size.
func (s SymOp) TaskBytes() (bytes int64, ok bool) {
	if s.NWorks <= 1 {
		return s.Bytes, true
	}
	if s.Bytes%int64(s.NWorks) != 0 {
		return 0, false
	}
	return s.Bytes / int64(s.NWorks), true
}

// Tasks is how many tasks the line's plan holds: nWorks, or one on
// 2.27's line, which has a single collective and does not say.
func (s SymOp) Tasks() int { return max(1, s.NWorks) }

// CollCall is one distinct collective call line ([COLL] "opCount").
type CollCall struct {
	Func   spec.Func     `json:"coll"`
	Count  int64         `json:"count"`
	DType  spec.DataType `json:"dtype"`
	RedOp  spec.RedOp    `json:"redop"`
	Root   int           `json:"root"`
	NRanks int           `json:"nranks"`
	Calls  int           `json:"calls"`
	First  Sample        `json:"first"`
}

// LogError is one distinct WARN, error trace or framework error.
type LogError struct {
	Kind  string `json:"kind"`
	Level Level  `json:"level"`
	Msg   string `json:"msg"`
	// SrcFile:SrcLine is where NCCL printed it (WARN) or returned (trace).
	SrcFile string `json:"src_file,omitempty"`
	SrcLine int    `json:"src_line,omitempty"`
	// SrcFunc is the function a 2.30.7+ WARN prints after file:line.
	SrcFunc string `json:"src_func,omitempty"`
	// Result is the ncclResult_t the line carries, when it carries one.
	Result    spec.Result `json:"result"`
	HasResult bool        `json:"has_result"`
	Count     int         `json:"count"`
	First     Sample      `json:"first"`
}

// NoAlgo is one "no algorithm/protocol available" error.
type NoAlgo struct {
	Func      string `json:"coll,omitempty"`
	DType     string `json:"dtype,omitempty"`
	AlgoEnv   string `json:"nccl_algo,omitempty"`
	ProtoEnv  string `json:"nccl_proto,omitempty"`
	Detailed  bool   `json:"detailed"`
	Count     int    `json:"count"`
	First     Sample `json:"first"`
	FromTrace bool   `json:"-"`
}

// Matrix is the user's enable matrix as 2.24+ prints it
// ("Enabled NCCL Func/Proto/Algo Matrix:"): what NCCL_ALGO/NCCL_PROTO asked
// for, before support disables it.
type Matrix struct {
	At    Loc                                 `json:"at"`
	Proto [spec.NumFuncs][spec.NumProtos]int8 `json:"proto"`
	Algo  [spec.NumFuncs][spec.NumAlgos]int8  `json:"algo"`
	Rows  int                                 `json:"rows"`
	Algos []spec.Algo                         `json:"algos"`
	Set   [spec.NumFuncs]bool                 `json:"-"`
}

// Log is everything recognised in one or more NCCL logs: counts,
// aggregates and a bounded set of sample lines. Build it with Parse or a
// Parser; read it directly or through Observe.
type Log struct {
	Sources []Source `json:"sources"`
	// Lines counts physical lines; NCCL lines are prefixed or bare matches.
	Lines     int `json:"lines"`
	NCCLLines int `json:"nccl_lines"`
	BareLines int `json:"bare_lines"`
	Joined    int `json:"joined_lines"`
	Blank     int `json:"blank_lines"`

	Version   string       `json:"version,omitempty"`
	Release   spec.Version `json:"release,omitempty"`
	VersionAt Loc          `json:"version_at"`
	// Versions are all distinct version strings (a mismatch is a finding).
	Versions   []string `json:"versions,omitempty"`
	CUDADriver int      `json:"cuda_driver,omitempty"`

	Env []EnvVar `json:"env,omitempty"`
	// CommConfig are the distinct "Comm config" lines (G-ENV-CONFIG-1):
	// the ncclConfig_t fields the job set and the variables that
	// overrode one, in log order.
	CommConfig []ConfigLine `json:"comm_config,omitempty"`
	Procs      []Proc       `json:"procs,omitempty"`
	Comms      []Comm       `json:"comms,omitempty"`

	Plugin      PluginLog   `json:"plugin"`
	Networks    []NameCount `json:"networks,omitempty"`
	Initialized []NameCount `json:"initialized,omitempty"`
	InitFailed  []NameCount `json:"init_failed,omitempty"`
	Assigned    []NameCount `json:"assigned,omitempty"`
	NetDevices  []NameCount `json:"net_devices,omitempty"`
	IB          IBLog       `json:"ib"`
	Sockets     []string    `json:"sockets,omitempty"`
	SocketNoIf  int         `json:"socket_no_interface,omitempty"`
	GDR         GDRLog      `json:"gdr"`
	NVLS        NVLSLog     `json:"nvls"`
	Reg         RegLog      `json:"register,omitzero"`
	MNNVL       MNNVLLog    `json:"mnnvl"`

	Transports []TransportUse `json:"transports,omitempty"`
	// NetConns are the network connector lines, in log order (at most
	// maxNetConns); SameNode the rank pairs of intra-node connection lines
	// (P2P, SHM), which tell which ranks share a node; RingConn the first
	// "Connected all rings, use ring PXN %d GDR %d" line.
	NetConns []NetConnLine    `json:"-"`
	SameNode [][2]RankDev     `json:"-"`
	RingConn *RingConnLine    `json:"-"`
	Channels []ChannelSummary `json:"channels,omitempty"`
	// P2PMaxPeers is the largest comm->p2pMaxPeers a "Tuning P2P
	// operations with maxP2pPeers" line printed (2.30.3+, several nodes).
	P2PMaxPeers int `json:"p2p_max_peers,omitempty"`
	// P2PType is the first "Check P2P Type" line, or the first whose
	// directMode is 1 (2.24.3+).
	P2PType *P2PTypeLine  `json:"p2p_type,omitempty"`
	Graphs  []GraphLine   `json:"graphs,omitempty"`
	Tables  []TuningTable `json:"tables,omitempty"`
	Matrix  *Matrix       `json:"matrix,omitempty"`

	Ops        []OpChoice `json:"ops,omitempty"`
	OpsDropped int        `json:"ops_dropped,omitempty"`
	// SymOps are the distinct [Symmetric] lines (symmetric kernels).
	SymOps        []SymOp    `json:"sym_ops,omitempty"`
	SymOpsDropped int        `json:"sym_ops_dropped,omitempty"`
	Calls         []CollCall `json:"calls,omitempty"`
	CallsDrop     int        `json:"calls_dropped,omitempty"`
	NoAlgo        []NoAlgo   `json:"no_algo,omitempty"`
	Errors        []LogError `json:"errors,omitempty"`
	ErrsDropped   int        `json:"errors_dropped,omitempty"`

	InitStarted   int `json:"init_started"`
	InitCompleted int `json:"init_completed"`

	// Kinds counts lines per recognised kind; Samples keeps the first few
	// lines of each kind as evidence.
	Kinds   map[string]int      `json:"kinds"`
	Samples map[string][]Sample `json:"-"`

	// Unparsed counts lines that are not NCCL's (framework output, launcher
	// noise, a paste's debris); UnknownSamples are NCCL lines whose message
	// no form recognises (counted under kind "unknown").
	Unparsed        int      `json:"unparsed"`
	UnparsedSamples []Sample `json:"unparsed_samples,omitempty"`
	UnknownSamples  []Sample `json:"unknown_samples,omitempty"`
}

// Count returns how many lines of a kind the log has.
func (l *Log) Count(k Kind) int { return l.Kinds[KindName(k)] }

// First returns the first sample line of a kind.
func (l *Log) First(k Kind) (Sample, bool) {
	s := l.Samples[KindName(k)]
	if len(s) == 0 {
		return Sample{}, false
	}
	return s[0], true
}

// SamplesOf returns the kept sample lines of a kind.
func (l *Log) SamplesOf(k Kind) []Sample { return l.Samples[KindName(k)] }

// EnvValue returns what NCCL reported for a variable.
func (l *Log) EnvValue(name string) (EnvVar, bool) {
	i := sort.Search(len(l.Env), func(i int) bool { return l.Env[i].Name >= name })
	if i < len(l.Env) && l.Env[i].Name == name {
		return l.Env[i], true
	}
	return EnvVar{}, false
}

// Truncated reports a source that ends in the middle of a line.
func (l *Log) Truncated() bool {
	for _, s := range l.Sources {
		if s.Truncated {
			return true
		}
	}
	return false
}

// FuncDataType is the datatype of a function's operation where its line
// does not say: the log's first call line of that function, else float32
// (nccl-tests' default).
func (l *Log) FuncDataType(f spec.Func) spec.DataType {
	for _, c := range l.Calls {
		if c.Func == f {
			return c.DType
		}
	}
	return spec.Float32
}

// Ranks is the number of ranks the log shows: the largest nranks of a
// communicator, else the number of distinct processes × devices.
func (l *Log) Ranks() int {
	n := 0
	for _, c := range l.Comms {
		n = max(n, c.NRanks)
	}
	if n > 0 {
		return n
	}
	for _, p := range l.Procs {
		n += max(1, len(p.Devs))
	}
	return n
}

// NNodes is the largest nNodes a communicator reported (0 when unknown).
func (l *Log) NNodes() int {
	n := 0
	for _, c := range l.Comms {
		n = max(n, c.NNodes)
	}
	return n
}

// Network is the network the communicators use ("Using network"), the most
// frequent one when several appear.
//
// Without a "Using network" line (NCCL prints it at INFO with
// NCCL_DEBUG_SUBSYS including INIT only), the network is the one the
// connection lines name most ("via NET/IB/0", "NET/IBext_v8/0/GDRDMA",
// "NET/AWS Libfabric/0").
func (l *Log) Network() string {
	best := NameCount{}
	for _, n := range l.Networks {
		if n.Count > best.Count {
			best = n
		}
	}
	if best.Name != "" {
		return best.Name
	}
	counts := map[string]int{}
	for _, t := range l.Transports {
		if t.Class == "NET" && t.Net != "" {
			counts[t.Net] += t.Count
		}
	}
	for n, c := range counts {
		if c > best.Count || (c == best.Count && n < best.Name) {
			best = NameCount{Name: n, Count: c}
		}
	}
	return best.Name
}

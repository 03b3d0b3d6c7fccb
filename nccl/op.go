package nccl

import (
	"fmt"
	"strings"
)

// Op is one collective call as the application makes it.
type Op struct {
	Func Func `json:"coll"`
	// Count is the API's element count: sendcount for AllGather, recvcount
	// for ReduceScatter, count otherwise.
	Count    int64    `json:"count"`
	DataType DataType `json:"dtype"`
	RedOp    RedOp    `json:"redop"`
	Root     int      `json:"root"`
}

// Bytes is Count × element size: the "N Bytes" NCCL prints in its
// per-operation line (send bytes for AllGather, receive bytes for
// ReduceScatter).
func (o Op) Bytes() int64 { return o.Count * int64(o.DataType.Size()) }

// Queued is the datatype and count NCCL queues the call with: AllGather
// and Broadcast move bytes, so every release turns them into Count ×
// element size of ncclInt8 before anything reads the datatype (the task's
// sort and aggregation, ncclNvlsSupported); every other function keeps
// the API's.
// Ref: v2.21.5-1 src/include/info.h ncclInfoSetDerived (called by
// src/misc/argcheck.cc ArgsCheck before taskAppend; v2.18.1-1 … v2.20.5-1
// likewise); v2.22.3-1 src/enqueue.cc taskAppend
func (o Op) Queued() (DataType, int64) {
	if o.Func == AllGather || o.Func == Broadcast {
		return Int8, o.Bytes()
	}
	return o.DataType, o.Count
}

// Buffers says what NCCL knows about an operation's buffers.
type Buffers int

const (
	// BuffersUser: buffers nobody registered (how they were allocated is
	// Alloc's).
	BuffersUser Buffers = iota
	// BuffersRegistered: both buffers registered with ncclCommRegister.
	BuffersRegistered
	// BuffersWindow: both buffers in windows from ncclCommWindowRegister
	// (2.27+).
	BuffersWindow
	// NumBuffers is the number of kinds of buffers (for range checks).
	NumBuffers
)

var buffersNames = [NumBuffers]string{"user", "registered", "window"}

func (b Buffers) String() string { return enumName("Buffers", b, buffersNames[:]) }

// ParseBuffers reads "user", "registered" or "window".
func ParseBuffers(s string) (Buffers, error) {
	return parseEnum[Buffers]("buffers", s, buffersNames[:])
}

// MarshalText writes the name.
func (b Buffers) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads the name.
func (b *Buffers) UnmarshalText(p []byte) error {
	return unmarshalEnum(b, "buffers", p, buffersNames[:])
}

// Alloc says how an operation's buffers were allocated, which decides
// whether NCCL can register them over IPC or NVLS.
type Alloc int

const (
	// AllocCuMem: cuMem (VMM) memory with NCCL's shareable handle type, as
	// ncclMemAlloc gives it (nccl-tests from NCCL 2.19, PyTorch's NCCL
	// memory pool); window buffers are always this.
	AllocCuMem Alloc = iota
	// AllocCudaMalloc: cudaMalloc memory, exported only over legacy CUDA
	// IPC (PyTorch's default caching allocator).
	AllocCudaMalloc
	// AllocCuMemHost: cuMem memory backed by host (CPU) physical memory
	// (CU_MEM_LOCATION_TYPE_HOST_NUMA), which ncclCommWindowRegister
	// takes into a window from 2.30.3; only windows are modelled on it.
	AllocCuMemHost
	// AllocCuMemSegments: cuMem device memory whose virtual range is
	// mapped from several physical allocations (cuMemMap of segments side
	// by side), which ncclCommWindowRegister refuses at 2.29.2–2.29.7 and
	// takes from 2.30.3; only windows are modelled on it.
	AllocCuMemSegments
	// NumAllocs is the number of kinds of allocation (for range checks).
	NumAllocs
)

var allocNames = [NumAllocs]string{"cumem", "cudamalloc", "cumem-host", "cumem-segments"}

func (a Alloc) String() string { return enumName("Alloc", a, allocNames[:]) }

// ParseAlloc reads "cumem", "cudamalloc", "cumem-host" or
// "cumem-segments".
func ParseAlloc(s string) (Alloc, error) { return parseEnum[Alloc]("alloc", s, allocNames[:]) }

// MarshalText writes the name.
func (a Alloc) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads the name.
func (a *Alloc) UnmarshalText(p []byte) error { return unmarshalEnum(a, "alloc", p, allocNames[:]) }

// enumName is the name of v, or Type(v) out of range.
func enumName[T ~int](typ string, v T, names []string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseEnum reads one of names in any case; the error names the kind.
func parseEnum[T ~int](kind, s string, names []string) (T, error) {
	for i, n := range names {
		if strings.EqualFold(s, n) {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%s %q: expected one of %s", kind, s, strings.Join(names, ", "))
}

// unmarshalEnum sets *v from its name.
func unmarshalEnum[T ~int](v *T, kind string, p []byte, names []string) error {
	x, err := parseEnum[T](kind, string(p), names)
	if err != nil {
		return err
	}
	*v = x
	return nil
}

// Procs is how the ranks of a communicator are spread over processes:
// NCCL compares peers' hostHash and pidHash (initTransportsRank,
// ncclTransportCheckP2pType) and, for ranks of one process, connects
// P2P by direct pointer, keeps no NVLS registration and refuses legacy
// CUDA IPC registration (directMode).
type Procs int

const (
	// ProcsPerGPU: one process per GPU (mpirun, srun, torchrun).
	ProcsPerGPU Procs = iota
	// ProcsPerNode: one process drives every GPU of its node
	// (ncclCommInitRank in a group per GPU).
	ProcsPerNode
	// ProcsInitAll: one process makes every rank of its one node with
	// ncclCommInitAll, the node's CUDA devices in order as devlist: as
	// ProcsPerNode, and the devlist is checked before any communicator is
	// made.
	ProcsInitAll
	// NumProcs is the number of layouts (for range checks).
	NumProcs
)

var procsNames = [NumProcs]string{"per-gpu", "per-node", "init-all"}

func (p Procs) String() string { return enumName("Procs", p, procsNames[:]) }

// ParseProcs reads "per-gpu", "per-node" or "init-all".
func ParseProcs(s string) (Procs, error) { return parseEnum[Procs]("procs", s, procsNames[:]) }

// MarshalText writes the name.
func (p Procs) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads the name.
func (p *Procs) UnmarshalText(b []byte) error { return unmarshalEnum(p, "procs", b, procsNames[:]) }

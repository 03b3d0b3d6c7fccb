package hw

import (
	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// engine is one process's hold on its local ranks: the GPUs it drives, their
// communicators, streams and buffers. The cgo implementation (cgo.go)
// talks to CUDA and NCCL; the tests' fake computes the collectives in Go.
// The runner (run.go) is written against this interface only, so everything
// above the C calls is tested without a GPU.
type engine interface {
	// NRanks is the communicator size; Local the ranks this process drives.
	NRanks() int
	Local() []conformance.DeviceInfo
	// Alloc gives every local rank a send and a receive buffer of at least
	// these sizes (bytes), replacing smaller ones.
	Alloc(sendBytes, recvBytes uint64) error
	// Fill writes the pattern into n elements of local rank l's send buffer.
	Fill(l int, dt spec.DataType, n uint64, f FillSpec, seed uint32) error
	// Poison overwrites the first bytes of local rank l's receive buffer
	// with 0xA5, which is no value the pattern can produce.
	Poison(l int, bytes uint64) error
	// Check counts the wrong elements among the first n of local rank l's
	// receive buffer.
	Check(l int, dt spec.DataType, n uint64, e Expect, seed uint32) (int64, error)
	// Run issues iters operations back to back, each one NCCL group over
	// the local ranks, and waits for them. With timed it returns, per local
	// rank, the milliseconds between events recorded before the first and
	// after the last operation. A failed NCCL call returns *Error.
	Run(op OpArgs, iters int, timed bool) ([]float64, error)
	// Healthy reports whether every communicator can still be used after an
	// error (ncclCommGetAsyncError is ncclSuccess).
	Healthy() bool
	// Reinit aborts the communicators and creates them again.
	Reinit() error
	// SumInt64 and MaxFloat64 combine one value per process over all
	// processes (identity with one process).
	SumInt64(v int64) (int64, error)
	MaxFloat64(v float64) (float64, error)
	// CheckMode is "device" when the check kernels run on the GPU, "host"
	// when buffers are copied back and compared here.
	CheckMode() string
}

// OpArgs is one NCCL call as the runner issues it.
type OpArgs struct {
	Func     spec.Func
	Count    uint64 // the API's count (per peer for AllToAll)
	DataType spec.DataType
	RedOp    spec.RedOp
	Root     int
	// Stride and Steps rotate the buffers as nccl-tests does: iteration i
	// uses offset Stride*(i%Steps), so repeated small operations do not sit
	// in one cache line.
	Stride, Steps uint64
	// Graph captures the iterations in a CUDA graph and times its launch.
	Graph bool
	// Agg is the number of operations per NCCL group and iteration (at
	// least 1).
	Agg int
}

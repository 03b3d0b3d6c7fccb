package hw

import (
	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// The hooks for replaying an algos schedule on the GPUs: grouped
// ncclSend/ncclRecv plus reduction kernels, output checked bit for bit
// against sim, simulated against measured time per step.
// Replaying a schedule is the caller's loop over its steps; hw gives it the
// GPU side as an Executor, which *Session implements.

// BufID names one of a local rank's two device buffers (Alloc sizes them).
type BufID int

const (
	SendBuf BufID = iota
	RecvBuf
)

func (b BufID) String() string {
	if b == RecvBuf {
		return "receive"
	}
	return "send"
}

// P2P is one ncclSend or ncclRecv of a replayed step.
type P2P struct {
	Local    int  // local rank index (0 .. len(Local())-1)
	Peer     int  // global rank
	Send     bool // ncclSend from Buf, else ncclRecv into Buf
	Buf      BufID
	Offset   uint64 // bytes into Buf
	Count    uint64 // elements
	DataType spec.DataType
}

// Executor is what a schedule replay needs from the GPUs. Every call waits
// for the GPUs before it returns, so a replay can check and time each step.
type Executor interface {
	NRanks() int
	Local() []conformance.DeviceInfo
	// Alloc gives every local rank a send and a receive buffer.
	Alloc(sendBytes, recvBytes uint64) error
	// Upload and Download copy between host memory and a local rank's buffer.
	Upload(l int, b BufID, off uint64, data []byte) error
	Download(l int, b BufID, off, n uint64) ([]byte, error)
	// Exchange issues the sends and receives as one NCCL group over the
	// local ranks and returns, per local rank, the milliseconds between CUDA
	// events around the group.
	Exchange(ops []P2P) ([]float64, error)
	// LoadKernels loads a PTX module (for replay, the reduction kernels
	// compiled from a checked-in .cu) on every local GPU, through the driver
	// API, and looks up the named kernels.
	LoadKernels(ptx []byte, names ...string) error
	// Launch runs kernel `name` on local rank l with one 64-bit word per
	// parameter (DevicePtr for buffers; 32-bit parameters take the low
	// half) and returns its time in milliseconds.
	Launch(l int, name string, grid, block uint32, args ...uint64) (float64, error)
	// DevicePtr is the device address of byte off of a local rank's buffer.
	DevicePtr(l int, b BufID, off uint64) uint64
}

var _ Executor = (*Session)(nil)

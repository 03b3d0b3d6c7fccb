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

// Buffers says what NCCL knows about an operation's buffers.
type Buffers int

const (
	// BuffersUser: plain cudaMalloc'ed buffers nobody registered.
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

func (b Buffers) String() string {
	if b >= 0 && b < NumBuffers {
		return buffersNames[b]
	}
	return fmt.Sprintf("Buffers(%d)", int(b))
}

// ParseBuffers reads "user", "registered" or "window".
func ParseBuffers(s string) (Buffers, error) {
	for i, n := range buffersNames {
		if strings.EqualFold(s, n) {
			return Buffers(i), nil
		}
	}
	return 0, fmt.Errorf("buffers %q: expected one of %s", s, strings.Join(buffersNames[:], ", "))
}

// MarshalText writes the name.
func (b Buffers) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads the name.
func (b *Buffers) UnmarshalText(p []byte) error {
	v, err := ParseBuffers(string(p))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

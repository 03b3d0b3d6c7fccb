package hw

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// fakeExec is the Executor contract in Go: buffers per rank and NCCL's
// group semantics for send/recv (each receive takes the matching send of
// its peer, in order).
type fakeExec struct{ *fakeEngine }

func (f fakeExec) buf(l int, b BufID) []byte {
	if b == RecvBuf {
		return f.recv[l]
	}
	return f.send[l]
}

func (f fakeExec) Upload(l int, b BufID, off uint64, data []byte) error {
	copy(f.buf(l, b)[off:], data)
	return nil
}

func (f fakeExec) Download(l int, b BufID, off, n uint64) ([]byte, error) {
	return bytes.Clone(f.buf(l, b)[off : off+n]), nil
}

func (f fakeExec) DevicePtr(l int, b BufID, off uint64) uint64 {
	return uint64(l)<<40 | uint64(b)<<39 | off
}

func (f fakeExec) Exchange(ops []P2P) ([]float64, error) {
	type key struct{ from, to int }
	sends := map[key][][]byte{}
	for _, o := range ops {
		if o.Send {
			n := o.Count * uint64(o.DataType.Size())
			k := key{o.Local, o.Peer}
			sends[k] = append(sends[k], bytes.Clone(f.buf(o.Local, o.Buf)[o.Offset:o.Offset+n]))
		}
	}
	for _, o := range ops {
		if o.Send {
			continue
		}
		k := key{o.Peer, o.Local}
		if len(sends[k]) == 0 {
			return nil, &Error{Op: "ncclGroupEnd", Result: Result(spec.InvalidUsage), LastError: fmt.Sprintf("recv from %d without a send", o.Peer)}
		}
		copy(f.buf(o.Local, o.Buf)[o.Offset:], sends[k][0])
		sends[k] = sends[k][1:]
	}
	return make([]float64, f.nranks), nil
}

func (f fakeExec) LoadKernels([]byte, ...string) error { return fmt.Errorf("fake: no kernels") }
func (f fakeExec) Launch(int, string, uint32, uint32, ...uint64) (float64, error) {
	return 0, fmt.Errorf("fake: no kernels")
}

var _ Executor = fakeExec{}

// A ring AllGather written as replay steps (what an algos schedule would
// drive): at step s each rank forwards the block it received last.
func TestExecutorRingAllGatherSteps(t *testing.T) {
	const n, block = 4, 16
	ex := fakeExec{newFake(n)}
	if err := ex.Alloc(n*block, n*block); err != nil {
		t.Fatal(err)
	}
	for r := range n {
		ex.Upload(r, RecvBuf, uint64(r*block), bytes.Repeat([]byte{byte(r + 1)}, block))
	}
	for step := 0; step < n-1; step++ {
		var ops []P2P
		for r := range n {
			sendBlock := (r - step + n) % n
			recvBlock := (r - step - 1 + n) % n
			ops = append(ops,
				P2P{Local: r, Peer: (r + 1) % n, Send: true, Buf: RecvBuf, Offset: uint64(sendBlock * block), Count: block, DataType: spec.Uint8},
				P2P{Local: r, Peer: (r - 1 + n) % n, Buf: RecvBuf, Offset: uint64(recvBlock * block), Count: block, DataType: spec.Uint8})
		}
		if _, err := ex.Exchange(ops); err != nil {
			t.Fatal(err)
		}
	}
	for r := range n {
		got, _ := ex.Download(r, RecvBuf, 0, n*block)
		for b := range n {
			if got[b*block] != byte(b+1) || got[b*block+block-1] != byte(b+1) {
				t.Fatalf("rank %d block %d holds %d", r, b, got[b*block])
			}
		}
	}
}

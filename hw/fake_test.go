package hw

import (
	"fmt"
	"math"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// fakeEngine runs collectives in Go on host buffers: the runner's tests use
// it in place of GPUs. It computes each collective from its definition
// (simpler code than NCCL's), so a wrong layout or check in the runner shows
// as wrong elements here too.
type fakeEngine struct {
	nranks     int
	send, recv [][]byte
	// failFunc makes every operation of that collective fail the way NCCL
	// refuses a forced algorithm; unhealthyAfterFail marks the
	// communicators broken after it.
	failFunc           spec.Func
	failing            bool
	unhealthyAfterFail bool
	healthy            bool
	reinits            int
	// corrupt flips one output element of rank 0 after each operation.
	corrupt bool
	// msPerOp is the simulated time of one operation.
	msPerOp float64
	runs    []int // iterations of each Run call
}

func newFake(n int) *fakeEngine {
	return &fakeEngine{nranks: n, healthy: true, msPerOp: 0.01, failFunc: -1}
}

func (f *fakeEngine) NRanks() int { return f.nranks }
func (f *fakeEngine) Local() []conformance.DeviceInfo {
	var d []conformance.DeviceInfo
	for r := range f.nranks {
		d = append(d, conformance.DeviceInfo{Rank: r, Dev: r, Name: "fake"})
	}
	return d
}
func (f *fakeEngine) CheckMode() string { return "host" }

func (f *fakeEngine) Alloc(s, r uint64) error {
	f.send, f.recv = make([][]byte, f.nranks), make([][]byte, f.nranks)
	for i := range f.nranks {
		f.send[i], f.recv[i] = make([]byte, s), make([]byte, r)
	}
	return nil
}

func (f *fakeEngine) Fill(l int, dt spec.DataType, n uint64, fs FillSpec, seed uint32) error {
	fillHost(f.send[l], dt, n, fs, seed)
	return nil
}

func (f *fakeEngine) Poison(l int, bytes uint64) error {
	for i := range bytes {
		f.recv[l][i] = 0xA5
	}
	return nil
}

func (f *fakeEngine) Check(l int, dt spec.DataType, n uint64, e Expect, seed uint32) (int64, error) {
	return checkHost(f.recv[l][:n*uint64(dt.Size())], dt, 0, e, seed), nil
}

func (f *fakeEngine) Healthy() bool { return f.healthy }
func (f *fakeEngine) Reinit() error {
	f.reinits++
	f.healthy = true
	return nil
}
func (f *fakeEngine) SumInt64(v int64) (int64, error)       { return v, nil }
func (f *fakeEngine) MaxFloat64(v float64) (float64, error) { return v, nil }

func (f *fakeEngine) Run(op OpArgs, iters int, timed bool) ([]float64, error) {
	f.runs = append(f.runs, iters)
	if f.failing && op.Func == f.failFunc {
		if f.unhealthyAfterFail {
			f.healthy = false
		}
		return nil, &Error{Op: "ncclGroupEnd", Result: Result(spec.InvalidUsage), LastError: "no algorithm/protocol available"}
	}
	// Only the first iteration's data matters (offset 0): the runner checks
	// after a single operation.
	if err := f.collective(op); err != nil {
		return nil, err
	}
	if f.corrupt && op.Count > 0 {
		f.recv[0][0] ^= 0x40
	}
	ms := make([]float64, f.nranks)
	for i := range ms {
		ms[i] = f.msPerOp * float64(iters)
	}
	return ms, nil
}

// elem reads element j of buf as an exact number.
func elem(dt spec.DataType, buf []byte, j uint64) float64 {
	esz := uint64(dt.Size())
	i, fl := decode(dt, buf[j*esz:(j+1)*esz])
	if dt.IsFloat() {
		return fl
	}
	return float64(i)
}

func put(dt spec.DataType, buf []byte, j uint64, v float64) {
	esz := uint64(dt.Size())
	if dt.IsFloat() {
		// exact small values only: route through the integer encoder when
		// integral, else through float32/64 bits
		if v == math.Trunc(v) {
			encode(dt, int64(v), buf[j*esz:])
			return
		}
		switch dt {
		case spec.Float32:
			b := math.Float32bits(float32(v))
			buf[j*esz], buf[j*esz+1], buf[j*esz+2], buf[j*esz+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
		case spec.Float64:
			b := math.Float64bits(v)
			for k := range 8 {
				buf[j*esz+uint64(k)] = byte(b >> (8 * k))
			}
		case spec.Float16:
			h := float32ToHalf(float32(v))
			buf[j*esz], buf[j*esz+1] = byte(h), byte(h>>8)
		case spec.Bfloat16:
			h := float32ToBfloat16(float32(v))
			buf[j*esz], buf[j*esz+1] = byte(h), byte(h>>8)
		}
		return
	}
	encode(dt, int64(v), buf[j*esz:])
}

func reduce(op spec.RedOp, vals []float64, dt spec.DataType) float64 {
	acc := vals[0]
	if op == spec.Avg && dt.IsFloat() {
		acc = 0
		for _, v := range vals {
			acc += v / float64(len(vals))
		}
		return acc
	}
	for _, v := range vals[1:] {
		switch op {
		case spec.Prod:
			acc *= v
		case spec.Max:
			acc = math.Max(acc, v)
		case spec.Min:
			acc = math.Min(acc, v)
		default:
			acc += v
		}
	}
	if op == spec.Avg {
		acc = math.Trunc(float64(wrap(int64(acc), dt)) / float64(len(vals)))
	}
	return acc
}

func (f *fakeEngine) collective(op OpArgs) error {
	n := f.nranks
	dt, c := op.DataType, op.Count
	vals := make([]float64, n)
	switch op.Func {
	case spec.AllReduce, spec.Reduce:
		for j := range c {
			for r := range n {
				vals[r] = elem(dt, f.send[r], j)
			}
			v := reduce(op.RedOp, vals, dt)
			for r := range n {
				if op.Func == spec.AllReduce || r == op.Root {
					put(dt, f.recv[r], j, v)
				}
			}
		}
	case spec.ReduceScatter:
		for r := range n {
			for j := range c {
				for s := range n {
					vals[s] = elem(dt, f.send[s], uint64(r)*c+j)
				}
				put(dt, f.recv[r], j, reduce(op.RedOp, vals, dt))
			}
		}
	case spec.Broadcast:
		for r := range n {
			for j := range c {
				put(dt, f.recv[r], j, elem(dt, f.send[op.Root], j))
			}
		}
	case spec.AllGather:
		for r := range n {
			for s := range n {
				for j := range c {
					put(dt, f.recv[r], uint64(s)*c+j, elem(dt, f.send[s], j))
				}
			}
		}
	case spec.AllToAll:
		for r := range n {
			for s := range n {
				for j := range c {
					put(dt, f.recv[r], uint64(s)*c+j, elem(dt, f.send[s], uint64(r)*c+j))
				}
			}
		}
	case spec.SendRecv:
		for r := range n {
			for j := range c {
				put(dt, f.recv[r], j, elem(dt, f.send[(r-1+n)%n], j))
			}
		}
	default:
		return fmt.Errorf("fake: %s", op.Func)
	}
	return nil
}

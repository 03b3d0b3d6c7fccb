package hw

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Plan is what `gatesim hw run` measures in one process.
type Plan struct {
	Funcs    []spec.Func
	Sizes    []uint64 // bytes, the table's size column
	DataType spec.DataType
	RedOp    spec.RedOp
	Root     int
	// Warmup operations before timing each row; Iters operations per timed
	// batch; Batches timed batches, whose median is the row's time.
	Warmup, Iters, Batches int
	// RowBudget bounds the timed work of one row: when the warm-up says
	// Iters*Batches operations would take longer, Iters shrinks (to 1 at
	// least), then Batches. Zero means no bound.
	RowBudget time.Duration
	// Graph times CUDA graph launches of Iters captured operations.
	Graph bool
	// Agg issues Agg operations of the row in each NCCL group (nccl-tests
	// -m): an iteration is one group; 0 and 1 mean one operation.
	Agg int
	// Check verifies every row once before timing it.
	Check bool
	Seed  uint32
}

// DefaultPlan is nccl-tests' default shape: 1 warm-up, 20 iterations;
// gatesim takes 5 batches of them for a median and a spread.
func DefaultPlan() Plan {
	return Plan{
		Funcs:    []spec.Func{spec.AllReduce},
		Sizes:    SizeRange(8, 128<<20, 2),
		DataType: spec.Float32, RedOp: spec.Sum,
		Warmup: 1, Iters: 20, Batches: 5,
		RowBudget: 2 * time.Second,
		Check:     true, Seed: 0x5eed,
	}
}

// SizeRange is nccl-tests' -b min -e max -f factor.
func SizeRange(min, max, factor uint64) []uint64 {
	if min == 0 || factor < 2 {
		return []uint64{min}
	}
	var out []uint64
	for s := min; s <= max; s *= factor {
		out = append(out, s)
		if s > max/factor {
			break
		}
	}
	return out
}

// Validate reports a plan the runner cannot honour.
func (p Plan) Validate(nranks int) error {
	if len(p.Funcs) == 0 {
		return errors.New("no collective to run")
	}
	if len(p.Sizes) == 0 {
		return errors.New("no size to run")
	}
	if p.DataType.Size() == 0 {
		return fmt.Errorf("unknown datatype %d", p.DataType)
	}
	if p.Check && !checkable(p.DataType) {
		return fmt.Errorf("datatype %s cannot be checked (only int8..bfloat16): pass --check=false", p.DataType)
	}
	if p.RedOp < spec.Sum || p.RedOp > spec.Avg {
		return fmt.Errorf("reduction %s cannot be run: expected sum, prod, max, min or avg", p.RedOp)
	}
	if p.Root < 0 || p.Root >= nranks {
		return fmt.Errorf("root %d out of range: the communicator has %d ranks", p.Root, nranks)
	}
	if p.Agg < 0 || p.Agg > spec.MaxGroupOps {
		return fmt.Errorf("agg: %w", spec.CheckGroupSize(p.Agg))
	}
	if p.Iters < 1 || p.Batches < 1 || p.Warmup < 0 {
		return fmt.Errorf("iters %d, batches %d, warmup %d: expected iters >= 1, batches >= 1, warmup >= 0", p.Iters, p.Batches, p.Warmup)
	}
	for _, f := range p.Funcs {
		if conformance.PerfBinary(f) == "" {
			return fmt.Errorf("collective %s cannot be run", f)
		}
	}
	return nil
}

// bufferBytes sizes the buffers as nccl-tests does: send and receive
// buffers both as large as the largest row (max of its send and receive
// bytes), so that the per-iteration rotation (Stride, Steps) walks the same
// offsets as nccl-tests' shift = total*(iter % (maxBytes/total)).
func (p Plan) bufferBytes(nranks int) (send, recv uint64) {
	esz := uint64(p.DataType.Size())
	var most uint64
	for _, f := range p.Funcs {
		for _, s := range p.Sizes {
			c := conformance.RowCounts(f, s, p.DataType, nranks)
			most = max(most, c.Send*esz, c.Recv*esz)
		}
	}
	most = max(most, 16)
	return most, most
}

// run executes the plan on e and returns one row per (collective, size).
// An NCCL error fails the row, not the run; a CUDA error or an error that
// leaves the communicators unusable (and unrecoverable) ends the run.
func run(e engine, p Plan, progress io.Writer) ([]conformance.Row, error) {
	n := e.NRanks()
	if err := p.Validate(n); err != nil {
		return nil, err
	}
	sendB, recvB := p.bufferBytes(n)
	if err := e.Alloc(sendB, recvB); err != nil {
		return nil, err
	}
	var rows []conformance.Row
	for _, f := range p.Funcs {
		for _, size := range p.Sizes {
			row, err := runRow(e, p, f, size, sendB, recvB)
			if err != nil {
				return rows, err
			}
			if progress != nil {
				fmt.Fprintf(progress, "%s %d bytes: %s\n", f, size, rowSummary(row))
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func rowSummary(r conformance.Row) string {
	if r.Err != nil {
		return r.Err.String()
	}
	return fmt.Sprintf("%.2f µs, busbw %.2f GB/s, wrong %d", r.TimeUs, r.BusBw, r.Wrong)
}

func runRow(e engine, p Plan, f spec.Func, size, sendB, recvB uint64) (conformance.Row, error) {
	n := e.NRanks()
	dt := p.DataType
	esz := uint64(dt.Size())
	c := conformance.RowCounts(f, size, dt, n)
	row := conformance.Row{Func: f, Size: c.Bytes(dt), Count: c.Param, Type: dt, RedOp: conformance.RowRedOp(f, p.RedOp), Root: conformance.RowRoot(f, p.Root), Wrong: -1}
	row.FillNames()
	total := max(c.Send, c.Recv) * esz
	op := OpArgs{Func: f, Count: c.Param, DataType: dt, RedOp: p.RedOp, Root: p.Root, Graph: p.Graph, Agg: max(1, p.Agg)}
	if total > 0 {
		op.Stride = total
		op.Steps = max(1, min(sendB, recvB)/total)
	}

	// failed turns an NCCL error into the row's result and makes sure the
	// communicators can go on; any other error ends the run.
	failed := func(err error) (conformance.Row, error) {
		var ne *Error
		if !errors.As(err, &ne) {
			return row, err
		}
		row.Err = ne.NCCLError()
		if !e.Healthy() {
			if rerr := e.Reinit(); rerr != nil {
				return row, fmt.Errorf("%s %d bytes failed (%v) and the communicators could not be recreated: %w", f, size, err, rerr)
			}
		}
		return row, nil
	}

	if p.Check {
		var wrong int64
		for l, d := range e.Local() {
			fill, _, _ := Layout(f, d.Rank, n, p.Root, c.Param, p.RedOp)
			if err := e.Fill(l, dt, c.Send, fill, p.Seed); err != nil {
				return row, err
			}
			if err := e.Poison(l, c.Recv*esz); err != nil {
				return row, err
			}
		}
		if _, err := e.Run(op, 1, false); err != nil {
			return failed(err)
		}
		for l, d := range e.Local() {
			_, exp, ok := Layout(f, d.Rank, n, p.Root, c.Param, p.RedOp)
			if !ok {
				continue
			}
			w, err := e.Check(l, dt, c.Recv, exp, p.Seed)
			if err != nil {
				return row, err
			}
			wrong += w
		}
		w, err := e.SumInt64(wrong)
		if err != nil {
			return row, err
		}
		row.Wrong = w
	}

	iters, batches := p.Iters, p.Batches
	if p.Warmup > 0 {
		ms, err := e.Run(op, p.Warmup, true)
		if err != nil {
			return failed(err)
		}
		perOp := slices.Max(ms) / float64(p.Warmup*op.Agg)
		if p.RowBudget > 0 && perOp > 0 {
			budget := float64(p.RowBudget) / float64(time.Millisecond)
			if perOp*float64(iters*batches) > budget {
				iters = max(1, int(budget/(perOp*float64(batches))))
				if perOp*float64(iters*batches) > budget {
					batches = max(1, int(budget/perOp))
				}
			}
		}
	}
	times := make([]float64, 0, batches)
	for range batches {
		ms, err := e.Run(op, iters, true)
		if err != nil {
			return failed(err)
		}
		t, err := e.MaxFloat64(slices.Max(ms))
		if err != nil {
			return row, err
		}
		times = append(times, t*1000/float64(iters*op.Agg)) // microseconds per op
	}
	row.Iters, row.Batches = iters, batches
	row.TimeUs, row.MinUs, row.MaxUs = conformance.Median(times), slices.Min(times), slices.Max(times)
	row.AlgBw, row.BusBw = sim.Bandwidth(f, sim.TestBytes(f, int64(c.Param), dt, n), n, row.TimeUs/1e6)
	return row, nil
}

// SelfTest checks the checker on the GPUs: a poisoned receive buffer must
// count every element wrong, in every datatype the kernels know. (That
// correct data counts as right is what every run's #wrong = 0 shows.)
func SelfTest(s *Session) error { return selfTest(s) }

func selfTest(e engine) error {
	const n = 4099 // not a multiple of the block size
	if err := e.Alloc(n*8, n*8); err != nil {
		return err
	}
	for dt := spec.Int8; dt <= spec.Bfloat16; dt++ {
		for l := range e.Local() {
			if err := e.Poison(l, n*uint64(dt.Size())); err != nil {
				return err
			}
			for _, ex := range []Expect{{Mode: ExpectReduce, NRanks: e.NRanks(), RedOp: spec.Sum}, {Mode: ExpectBlock, Block: 7, NRanks: e.NRanks()}} {
				w, err := e.Check(l, dt, n, ex, 1)
				if err != nil {
					return err
				}
				if w != n {
					return fmt.Errorf("self-test: %s mode %d on local rank %d: %d of %d poisoned elements counted wrong", dt, ex.Mode, l, w, n)
				}
			}
		}
	}
	return nil
}

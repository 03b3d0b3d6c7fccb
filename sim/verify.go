package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// exprs is a hash-consed expression DAG: the symbolic domain of the data
// plane. Running a schedule on it records, for every output element, the
// exact tree of operations that produced it — which ranks' inputs, in which
// order, with which pre- and post-operations — so the reference can
// evaluate the same tree directly and compare bit for bit, and the tree
// itself can be checked (every rank contributes exactly once).
type exprs struct {
	nodes []expr
	index map[exprKey]uint32
	swIdx map[string]uint32
	a     *Arith
}

type exprKind uint8

const (
	exUnset  exprKind = iota // an output element nothing wrote
	exLeaf                   // rank's input element g
	exPre                    // pre-operation of rank
	exRed                    // reduce(a, b)
	exPost                   // post-operation
	exSwitch                 // offload engine's reduction of kids
)

type expr struct {
	kind exprKind
	rank int32
	g    int64
	a, b uint32
	nvls bool
	kids []uint32
}

type exprKey struct {
	kind exprKind
	rank int32
	g    int64
	a, b uint32
}

func newExprs(a *Arith) *exprs {
	e := &exprs{index: map[exprKey]uint32{}, swIdx: map[string]uint32{}, a: a}
	e.nodes = append(e.nodes, expr{kind: exUnset})
	return e
}

func (e *exprs) intern(x expr) uint32 {
	if x.kind == exSwitch {
		var b strings.Builder
		b.WriteString(strconv.FormatBool(x.nvls))
		for _, k := range x.kids {
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(int(k)))
		}
		key := b.String()
		if id, ok := e.swIdx[key]; ok {
			return id
		}
		id := uint32(len(e.nodes))
		e.nodes = append(e.nodes, x)
		e.swIdx[key] = id
		return id
	}
	key := exprKey{x.kind, x.rank, x.g, x.a, x.b}
	if id, ok := e.index[key]; ok {
		return id
	}
	id := uint32(len(e.nodes))
	e.nodes = append(e.nodes, x)
	e.index[key] = id
	return id
}

func (e *exprs) leaf(rank int, g int64) uint64 {
	return uint64(e.intern(expr{kind: exLeaf, rank: int32(rank), g: g}))
}

func (e *exprs) pre(rank int, v uint64) uint64 {
	if e.a.devOp != devPreMulSum {
		return v
	}
	return uint64(e.intern(expr{kind: exPre, rank: int32(rank), a: uint32(v)}))
}
func (e *exprs) reduce(a, b uint64) uint64 {
	return uint64(e.intern(expr{kind: exRed, a: uint32(a), b: uint32(b)}))
}
func (e *exprs) post(v uint64) uint64 {
	if e.a.devOp != devSumPostDiv {
		return v
	}
	return uint64(e.intern(expr{kind: exPost, a: uint32(v)}))
}
func (e *exprs) switchReduce(nvls bool, vs []uint64) uint64 {
	if len(vs) == 1 {
		return vs[0]
	}
	kids := make([]uint32, len(vs))
	for i, v := range vs {
		kids[i] = uint32(v)
	}
	return uint64(e.intern(expr{kind: exSwitch, nvls: nvls, kids: kids}))
}

// eval computes an expression with the reference arithmetic, straight from
// the inputs: a different code path from the data plane's, over the same
// operation order.
func (e *exprs) eval(id uint32, input func(rank int, g int64) uint64, memo map[uint32]uint64) uint64 {
	if v, ok := memo[id]; ok {
		return v
	}
	x := e.nodes[id]
	var v uint64
	switch x.kind {
	case exLeaf:
		v = input(int(x.rank), x.g)
	case exPre:
		v = e.a.PreOp(int(x.rank), e.eval(x.a, input, memo))
	case exRed:
		v = e.a.Reduce(e.eval(x.a, input, memo), e.eval(x.b, input, memo))
	case exPost:
		v = e.a.PostOp(e.eval(x.a, input, memo))
	case exSwitch:
		vs := make([]uint64, len(x.kids))
		for i, k := range x.kids {
			vs[i] = e.eval(k, input, memo)
		}
		v = e.a.SwitchReduce(x.nvls, vs)
	}
	memo[id] = v
	return v
}

// shape checks that id is the full reduction the collective promises at
// input index g: every rank of want exactly once, each wrapped in its
// pre-operation when the reduction has one, the post-operation once at the
// top when it has one. It returns "" or what is wrong.
func (e *exprs) shape(id uint32, g int64, want []int) string {
	x := e.nodes[id]
	if e.a.devOp == devSumPostDiv && len(want) > 0 {
		if x.kind != exPost {
			return "missing the post-operation (division by nRanks) at the top"
		}
		x = e.nodes[x.a]
		id = e.nodes[id].a
	}
	seen := map[int]int{}
	var problems []string
	var walk func(id uint32, top bool)
	walk = func(id uint32, top bool) {
		x := e.nodes[id]
		switch x.kind {
		case exUnset:
			problems = append(problems, "an element nothing wrote")
		case exLeaf:
			if e.a.devOp == devPreMulSum {
				problems = append(problems, fmt.Sprintf("rank %d's input without its pre-operation", x.rank))
			}
			if x.g != g {
				problems = append(problems, fmt.Sprintf("rank %d's input element %d where element %d belongs", x.rank, x.g, g))
			}
			seen[int(x.rank)]++
		case exPre:
			leaf := e.nodes[x.a]
			if leaf.kind != exLeaf || leaf.rank != x.rank {
				problems = append(problems, "a pre-operation applied to something other than its rank's own input")
				walk(x.a, false)
				return
			}
			if leaf.g != g {
				problems = append(problems, fmt.Sprintf("rank %d's input element %d where element %d belongs", leaf.rank, leaf.g, g))
			}
			seen[int(leaf.rank)]++
		case exRed:
			walk(x.a, false)
			walk(x.b, false)
		case exSwitch:
			for _, k := range x.kids {
				walk(k, false)
			}
		case exPost:
			problems = append(problems, "a post-operation inside the reduction")
			walk(x.a, false)
		}
	}
	walk(id, true)
	for _, r := range want {
		if seen[r] != 1 {
			problems = append(problems, fmt.Sprintf("rank %d contributes %d times", r, seen[r]))
		}
		delete(seen, r)
	}
	for r, n := range seen {
		problems = append(problems, fmt.Sprintf("rank %d, which should not contribute, contributes %d times", r, n))
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return strings.Join(problems, "; ")
	}
	return ""
}

// Execute runs a schedule's data plane on real per-rank input bytes and
// returns every rank's output bytes: the arithmetic of the datatype and
// reduction (Arith), NCCL's reduction order as the schedule states it, and
// in-place aliasing when the schedule runs in place. scalars are the
// per-rank PreMulSum scalars (nil otherwise).
func Execute(s *algos.Schedule, inputs [][]byte, scalars []float64) ([][]byte, error) {
	out, _, err := execute(s, inputs, scalars)
	return out, err
}

func execute(s *algos.Schedule, inputs [][]byte, scalars []float64) ([][]byte, *Arith, error) {
	if len(inputs) != s.NRanks {
		return nil, nil, fmt.Errorf("execute: %d input buffers for %d ranks", len(inputs), s.NRanks)
	}
	unit := s.Unit
	inN := s.InputCount()
	for r, b := range inputs {
		if int64(len(b)) != inN*int64(unit) {
			return nil, nil, fmt.Errorf("execute: rank %d input has %d bytes: expected %d (%d units of %d bytes)", r, len(b), inN*int64(unit), inN, unit)
		}
	}
	a, err := NewArith(s.DataType, s.RedOp, s.NRanks, scalars)
	if err != nil {
		return nil, nil, err
	}
	var d domain = realDomain{a}
	copyOnly := s.Func == spec.AllGather || s.Func == spec.Broadcast || s.Func == spec.SendRecv || s.Func == spec.AllToAll
	var bad string
	if copyOnly {
		d = copyDomain{&bad}
	}
	vals := make([][]uint64, s.NRanks)
	for r := range inputs {
		vals[r] = decodeUnits(inputs[r], unit)
	}
	m := newMachine(s, d, func(r int, i int64) uint64 { return vals[r][i] }, 0)
	if err := m.run(); err != nil {
		return nil, nil, err
	}
	if bad != "" {
		return nil, nil, fmt.Errorf("execute: %s", bad)
	}
	outs := make([][]byte, s.NRanks)
	for r := range outs {
		outs[r] = encodeUnits(m.out[r], unit)
	}
	return outs, a, nil
}

// Verification is the outcome of checking an executed schedule against a
// reference computed directly from the inputs.
type Verification struct {
	// OK is true when every checked element is right.
	OK bool `json:"ok"`
	// Checked counts output elements compared (in schedule units).
	Checked int64 `json:"checked"`
	// Reference says how the expected values were computed: "direct" (a
	// plain fold over the ranks, for exact operations: integers, min, max,
	// and copies) or "schedule order" (the schedule's own reduction tree
	// evaluated directly, for floating-point sums and products, which are
	// not associative).
	Reference string `json:"reference"`
	// Problems lists the first mismatches.
	Problems []string `json:"problems,omitempty"`
}

// Verify executes the schedule on the inputs and checks every output
// element the collective defines:
//
//   - the symbolic run's expression for the element must be the full
//     reduction (each rank's element exactly once, pre-operations on
//     inputs, the post-operation at the top) or the right copy;
//   - the data plane's bits must equal the reference: a direct fold over
//     the ranks in rank order for exact operations, and the schedule's own
//     expression tree evaluated from the inputs for floating-point sums,
//     products and averages.
func Verify(s *algos.Schedule, inputs [][]byte, scalars []float64) (*Verification, error) {
	outs, _, err := execute(s, inputs, scalars)
	if err != nil {
		return nil, err
	}
	return checkOutputs(s, inputs, scalars, outs)
}

// checkOutputs checks outputs against the reference of schedule ref: its
// symbolic run gives every element's expression, which must be the full
// reduction (or the right copy) and, evaluated directly, must equal the
// output bits. Verify passes the schedule's own outputs; a test passes
// another schedule's to show that a different reduction order is caught.
func checkOutputs(ref *algos.Schedule, inputs [][]byte, scalars []float64, outs [][]byte) (*Verification, error) {
	s := ref
	a, err := NewArith(s.DataType, s.RedOp, s.NRanks, scalars)
	if err != nil {
		return nil, err
	}
	ex := newExprs(a)
	m := newMachine(s, ex, func(r int, i int64) uint64 { return ex.leaf(r, i) }, 0)
	if err := m.run(); err != nil {
		return nil, fmt.Errorf("symbolic run: %w", err)
	}
	unit := s.Unit
	vals := make([][]uint64, s.NRanks)
	for r := range inputs {
		vals[r] = decodeUnits(inputs[r], unit)
	}
	input := func(r int, g int64) uint64 { return vals[r][g] }
	exact := !s.DataType.IsFloat() || s.RedOp == spec.Min || s.RedOp == spec.Max
	v := &Verification{OK: true, Reference: "schedule order"}
	copyOnly := s.Func == spec.AllGather || s.Func == spec.Broadcast || s.Func == spec.SendRecv || s.Func == spec.AllToAll
	if exact || copyOnly {
		v.Reference = "direct"
	}
	all := make([]int, s.NRanks)
	for i := range all {
		all[i] = i
	}
	memo := map[uint32]uint64{}
	count := s.Count * int64(s.DataType.Size()/unit)
	n := s.NRanks
	fail := func(r int, i int64, msg string) {
		v.OK = false
		if len(v.Problems) < 20 {
			v.Problems = append(v.Problems, fmt.Sprintf("rank %d output element %d: %s", r, i, msg))
		}
	}
	for r := 0; r < n; r++ {
		got := decodeUnits(outs[r], unit)
		sym := m.out[r]
		for i := int64(0); i < int64(len(got)); i++ {
			var g int64
			var src int = -1 // copy source rank
			switch s.Func {
			case spec.AllReduce:
				g = i
			case spec.ReduceScatter:
				g = int64(r)*count + i
			case spec.Reduce:
				if r != s.Root {
					continue
				}
				g = i
			case spec.AllGather:
				src, g = int(i/count), i%count
			case spec.Broadcast:
				src, g = s.Root, i
			case spec.SendRecv:
				src, g = (r-1+n)%n, i
			case spec.AllToAll:
				// block q of rank r's output is block r of rank q's input
				src, g = int(i/count), int64(r)*count+i%count
			default:
				return nil, fmt.Errorf("verify: no reference for %s", s.Func)
			}
			v.Checked++
			id := uint32(sym[i])
			if src >= 0 {
				x := ex.nodes[id]
				if x.kind != exLeaf || int(x.rank) != src || x.g != g {
					fail(r, i, fmt.Sprintf("expected rank %d's element %d, got %s", src, g, ex.describe(id)))
					continue
				}
				if got[i] != vals[src][g] {
					fail(r, i, fmt.Sprintf("value %#x, expected %#x", got[i], vals[src][g]))
				}
				continue
			}
			if why := ex.shape(id, g, all); why != "" {
				fail(r, i, why)
				continue
			}
			var want uint64
			if exact {
				want = input(0, g)
				want = a.PreOp(0, want)
				for q := 1; q < n; q++ {
					want = a.Reduce(want, a.PreOp(q, input(q, g)))
				}
				want = a.PostOp(want)
			} else {
				want = ex.eval(id, input, memo)
			}
			if got[i] != want {
				fail(r, i, fmt.Sprintf("value %#x (%g), reference %#x (%g)", got[i], a.ToFloat(got[i]), want, a.ToFloat(want)))
			}
		}
	}
	return v, nil
}

// describe prints a small expression for error messages.
func (e *exprs) describe(id uint32) string {
	x := e.nodes[id]
	switch x.kind {
	case exUnset:
		return "an unwritten element"
	case exLeaf:
		return fmt.Sprintf("rank %d's element %d", x.rank, x.g)
	}
	return "a reduction"
}

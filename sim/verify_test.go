package sim

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
)

func randomInputs(rng *rand.Rand, s *algos.Schedule) [][]byte {
	ins := make([][]byte, s.NRanks)
	for r := range ins {
		ins[r] = make([]byte, s.InputCount()*int64(s.Unit))
		for i := range ins[r] {
			ins[r][i] = byte(rng.IntN(256))
		}
	}
	return ins
}

func scalarsFor(rng *rand.Rand, op spec.RedOp, dt spec.DataType, n int) []float64 {
	if op != spec.PreMulSum {
		return nil
	}
	sc := make([]float64, n)
	for i := range sc {
		if dt.IsFloat() {
			sc[i] = rng.Float64()*4 - 2
		} else {
			sc[i] = float64(rng.IntN(7) - 3)
		}
	}
	return sc
}

// TestVerifyEveryAlgorithm runs the data plane of every algorithm ×
// collective × protocol on every fixture shape, for datatypes and
// reductions NCCL accepts there, in and out of place, and checks every
// output element against the reference.
func TestVerifyEveryAlgorithm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dts := []spec.DataType{spec.Int8, spec.Uint8, spec.Int32, spec.Uint32, spec.Int64, spec.Uint64,
		spec.Float16, spec.Float32, spec.Float64, spec.Bfloat16, spec.Float8e4m3, spec.Float8e5m2}
	checked := 0
	for _, sh := range algostest.Shapes {
		l, err := algos.DefaultLayout(spec.V2_28_9, sh.Nodes, sh.LocalRanks, sh.Channels)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels = sh.Channels
		for _, c := range algostest.Cases {
			if !algostest.Fits(c.Algo, sh) {
				continue
			}
			for _, f := range c.Funcs {
				for pi, p := range c.Proto {
					for k := 0; k < 3; k++ {
						dt := dts[rng.IntN(len(dts))]
						op := spec.RedOp(rng.IntN(spec.NumRedOps))
						if c.Algo.IsNVLS() && f != spec.AllGather {
							// NVLS reduces only what ncclNvlsSupported allows
							dt = []spec.DataType{spec.Int32, spec.Uint64, spec.Float16, spec.Bfloat16, spec.Float32, spec.Float64}[rng.IntN(6)]
							op = spec.Sum
							if dt != spec.Float32 && dt != spec.Float64 && rng.IntN(2) == 0 {
								op = spec.Max
							}
						}
						if c.Algo == spec.PAT && f == spec.ReduceScatter && (op == spec.Avg || op == spec.PreMulSum) {
							op = spec.Sum // PAT skips ops with a pre/post operation
						}
						count := []int64{1, 37, 1000, 2500}[(k+pi)%4]
						inPlace := rng.IntN(2) == 0
						o := spec.Op{Func: f, Count: count, DataType: dt, RedOp: op, Root: rng.IntN(sh.Nodes * sh.LocalRanks)}
						s, err := algos.Build(o, algos.Selection{Algo: c.Algo, Proto: p, NChannels: sh.Channels}, l, algos.Options{InPlace: inPlace})
						if err != nil {
							t.Fatalf("%s %s %s %s: %v", sh.Name, c.Algo, f, p, err)
						}
						v, err := Verify(s, randomInputs(rng, s), scalarsFor(rng, op, dt, s.NRanks))
						if err != nil {
							t.Fatalf("%s %s %s %s %s %s count %d: %v", sh.Name, c.Algo, f, p, dt, op, count, err)
						}
						if !v.OK {
							t.Fatalf("%s %s %s %s %s %s count %d in-place %v: %v", sh.Name, c.Algo, f, p, dt, op, count, inPlace, v.Problems)
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d schedules verified", checked)
}

func f32Inputs(n, count int, f func(r, i int) float32) [][]byte {
	ins := make([][]byte, n)
	for r := range ins {
		ins[r] = make([]byte, 4*count)
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint32(ins[r][4*i:], math.Float32bits(f(r, i)))
		}
	}
	return ins
}

// TestWrongOrderIsDetected shows that floating-point results depend on the
// reduction order, and that the verifier catches a data plane whose
// results follow a different order than the schedule it checks: Ring and
// Tree AllReduce add the same numbers in different orders; checking the
// Ring's output against the Tree's reference fails, checking it against
// its own passes.
func TestWrongOrderIsDetected(t *testing.T) {
	l, _ := algos.DefaultLayout(spec.V2_28_9, 1, 4, 1)
	op := spec.Op{Func: spec.AllReduce, Count: 64, DataType: spec.Float32, RedOp: spec.Sum}
	ring, err := algos.Build(op, algos.Selection{Algo: spec.Ring, Proto: spec.Simple}, l, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := algos.Build(op, algos.Selection{Algo: spec.Tree, Proto: spec.Simple}, l, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// large and small magnitudes: (1e8 + 1) - 1e8 depends on association
	in := f32Inputs(4, 64, func(r, i int) float32 {
		return []float32{1e8, 1, -1e8, 1}[(r+i)%4]
	})
	ringOut, err := Execute(ring, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	treeOut, err := Execute(tree, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(ringOut[0]) == string(treeOut[0]) {
		t.Fatal("Ring and Tree give identical float sums on adversarial input: the test input does not exercise the order")
	}
	own, err := checkOutputs(ring, in, nil, ringOut)
	if err != nil || !own.OK {
		t.Fatalf("Ring against its own order: %v %v", err, own)
	}
	wrong, err := checkOutputs(tree, in, nil, ringOut)
	if err != nil {
		t.Fatal(err)
	}
	if wrong.OK || len(wrong.Problems) == 0 || !strings.Contains(wrong.Problems[0], "reference") {
		t.Fatalf("Ring's output checked against Tree's order passed: %+v", wrong)
	}
	// and with integers the order does not matter: both agree
	iop := op
	iop.DataType = spec.Int32
	ringI, _ := algos.Build(iop, algos.Selection{Algo: spec.Ring, Proto: spec.Simple}, l, algos.Options{})
	treeI, _ := algos.Build(iop, algos.Selection{Algo: spec.Tree, Proto: spec.Simple}, l, algos.Options{})
	a, _ := Execute(ringI, in, nil)
	b, _ := Execute(treeI, in, nil)
	if string(a[0]) != string(b[0]) {
		t.Fatal("integer sums differ between Ring and Tree")
	}
}

// TestVerifyCatchesBrokenSchedules mutates correct schedules and checks
// that verification names the damage.
func TestVerifyCatchesBrokenSchedules(t *testing.T) {
	l, _ := algos.DefaultLayout(spec.V2_28_9, 1, 4, 1)
	op := spec.Op{Func: spec.AllReduce, Count: 1000, DataType: spec.Float32, RedOp: spec.PreMulSum}
	rng := rand.New(rand.NewPCG(3, 4))
	build := func() (*algos.Schedule, [][]algos.Step) {
		s, err := algos.Build(op, algos.Selection{Algo: spec.Ring, Proto: spec.Simple}, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var progs [][]algos.Step
		for r := 0; r < s.NRanks; r++ {
			progs = append(progs, s.Program(r, 0, 0))
		}
		return s, progs
	}
	mutations := []struct {
		name string
		mut  func(p [][]algos.Step)
		want string
	}{
		{"missing pre-op", func(p [][]algos.Step) { p[1][0].PreOp = false }, "without its pre-operation"},
		{"wrong chunk", func(p [][]algos.Step) { p[2][1].Src.Offset += 4 }, "where element"},
		{"misplaced copy", func(p [][]algos.Step) { p[0][len(p[0])-1].Dst.Offset = 0 }, "where element 0 belongs"},
	}
	for _, mu := range mutations {
		s, progs := build()
		mu.mut(progs)
		h := s.Header
		m, err := algos.NewExplicit(h, progs, nil)
		if err != nil {
			t.Fatalf("%s: %v", mu.name, err)
		}
		in := randomInputs(rng, m)
		v, err := Verify(m, in, []float64{0.5, 2, 1, 3})
		if err != nil {
			t.Fatalf("%s: %v", mu.name, err)
		}
		if v.OK || !strings.Contains(strings.Join(v.Problems, "\n"), mu.want) {
			t.Errorf("%s: verification %v %v, want a problem mentioning %q", mu.name, v.OK, v.Problems, mu.want)
		}
	}
}

// TestVerifyCollNetGatherScatterEveryType verifies the generators of NVLS
// with SHARP (AllReduce, AllGather, ReduceScatter) and CollNetDirect
// AllGather/ReduceScatter for every datatype and reduction each supports
// (NVLS: ncclNvlsSupported's pairs; CollNet: every pair, the network
// summing for Avg and PreMulSum), in or out of place by turns, on nodes of
// two and three GPUs, with counts whose windows cross node boundaries.
func TestVerifyCollNetGatherScatterEveryType(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dts := []spec.DataType{spec.Int8, spec.Uint8, spec.Int32, spec.Uint32, spec.Int64, spec.Uint64,
		spec.Float16, spec.Float32, spec.Float64, spec.Bfloat16, spec.Float8e4m3, spec.Float8e5m2}
	nvlsOK := func(dt spec.DataType, op spec.RedOp) bool {
		switch dt {
		case spec.Int32, spec.Uint32, spec.Int64, spec.Uint64, spec.Float16, spec.Bfloat16:
			return op == spec.Sum || op == spec.Max || op == spec.Min
		case spec.Float32, spec.Float64:
			return op == spec.Sum
		}
		return false
	}
	checked := 0
	for _, sh := range []algostest.Shape{{Name: "2 nodes × 2 GPUs", Nodes: 2, LocalRanks: 2, Channels: 2}, {Name: "3 nodes × 3 GPUs", Nodes: 3, LocalRanks: 3, Channels: 3}} {
		l, err := algos.DefaultLayout(spec.V2_28_9, sh.Nodes, sh.LocalRanks, sh.Channels)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels = sh.Channels
		for _, c := range []struct {
			a spec.Algo
			f spec.Func
		}{{spec.NVLS, spec.AllReduce}, {spec.NVLS, spec.AllGather}, {spec.NVLS, spec.ReduceScatter}, {spec.CollNetDirect, spec.AllGather}, {spec.CollNetDirect, spec.ReduceScatter}} {
			for _, dt := range dts {
				for op := spec.RedOp(0); op < spec.NumRedOps; op++ {
					if c.f == spec.AllGather && op != spec.Sum {
						continue // a copy: the reduction does not matter
					}
					if c.a == spec.NVLS && c.f != spec.AllGather && !nvlsOK(dt, op) {
						continue
					}
					// in and out of place alternate over the datatypes
					inPlace := (int(dt)+int(op))%2 == 0
					count := []int64{37, 301}[rng.IntN(2)]
					s, err := algos.Build(spec.Op{Func: c.f, Count: count, DataType: dt, RedOp: op}, algos.Selection{Algo: c.a, Proto: spec.Simple, NChannels: sh.Channels}, l, algos.Options{InPlace: inPlace})
					if err != nil {
						t.Fatalf("%s %s %s %s %s: %v", sh.Name, c.a, c.f, dt, op, err)
					}
					v, err := Verify(s, randomInputs(rng, s), scalarsFor(rng, op, dt, s.NRanks))
					if err != nil || !v.OK {
						t.Fatalf("%s %s %s %s %s count %d in-place %v: %v %v", sh.Name, c.a, c.f, dt, op, count, inPlace, err, v)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d schedules verified", checked)
}

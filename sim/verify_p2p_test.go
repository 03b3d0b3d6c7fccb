package sim

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
)

// TestVerifyP2PEveryType runs the data plane of SendRecv and AllToAll (NCCL's
// point-to-point path) on every fixture shape and modelled release, every
// datatype on several shapes, and large enough on two shapes to run Simple
// over several parts and chunks, at counts below and above the LL threshold and across
// several parts and chunks, and checks every output element bit for bit:
// rank r's SendRecv output is rank r-1's input, block q of rank r's
// AllToAll output is block r of rank q's input. The p2p path copies and
// never reduces, so a reduction there fails the run (copy-only domain):
// every reduction is accepted and ignored, as NCCL ignores it. In place
// only on one rank (a self copy): across ranks NCCL's sends and receives
// on one buffer race.
func TestVerifyP2PEveryType(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	checked := 0
	verify := func(v spec.Version, l *algos.Layout, name string, f spec.Func, dt spec.DataType, count int64, inPlace bool) {
		op := spec.Op{Func: f, Count: count, DataType: dt, RedOp: spec.RedOp(rng.IntN(spec.NumRedOps))}
		s, err := algos.Build(op, algos.Selection{}, l, algos.Options{InPlace: inPlace})
		if err != nil {
			t.Fatalf("%s %s %s %s: %v", v, name, f, dt, err)
		}
		vr, err := Verify(s, randomInputs(rng, s), scalarsFor(rng, op.RedOp, dt, s.NRanks))
		if err != nil {
			t.Fatalf("%s %s %s %s count %d: %v", v, name, f, dt, count, err)
		}
		if !vr.OK || vr.Checked != int64(s.NRanks)*s.OutputCount() {
			t.Fatalf("%s %s %s %s count %d in-place %v: %d checked, %v", v, name, f, dt, count, inPlace, vr.Checked, vr.Problems)
		}
		checked++
	}
	for ri, v := range []spec.Version{spec.V2_22_3, spec.V2_28_3, spec.V2_28_9} {
		for si, sh := range algostest.Shapes {
			l, err := algos.DefaultLayout(v, sh.Nodes, sh.LocalRanks, sh.Channels)
			if err != nil {
				t.Fatal(err)
			}
			for fi, f := range []spec.Func{spec.SendRecv, spec.AllToAll} {
				// one datatype per shape, in turn: every datatype on
				// several shapes of every release and function
				dt := spec.DataType((si + 10*ri + 5*fi) % spec.NumDataTypes)
				if dt.IsFP8() && v == spec.V2_22_3 {
					dt = spec.Float64 // fp8 arrived in 2.24
				}
				count := []int64{1, 700, 3000}[(si+ri)%3]
				if f == spec.AllToAll {
					count = count/int64(l.NRanks()) + 1
				}
				verify(v, l, sh.Name, f, dt, count, l.NRanks() == 1 && rng.IntN(2) == 0)
			}
		}
		// Simple, several parts (one node: 64 KiB minimum part) and chunks
		// (across nodes: 32 KiB below one 128 KiB step): 72 KiB per peer
		for _, sh := range []algostest.Shape{{Name: "1 node × 2 GPUs", Nodes: 1, LocalRanks: 2, Channels: 4}, {Name: "2 nodes × 1 GPU", Nodes: 2, LocalRanks: 1, Channels: 2}} {
			l, err := algos.DefaultLayout(v, sh.Nodes, sh.LocalRanks, sh.Channels)
			if err != nil {
				t.Fatal(err)
			}
			verify(v, l, sh.Name, spec.SendRecv, spec.Int32, 18<<10, false)
			verify(v, l, sh.Name, spec.AllToAll, spec.Bfloat16, 36<<10, false)
		}
	}
	t.Logf("%d p2p schedules verified", checked)
}

// TestVerifyCatchesBrokenP2P mutates correct p2p schedules and checks that
// verification names the damage: a part sent from the wrong block, a
// received part written to the wrong place, a dropped self copy.
func TestVerifyCatchesBrokenP2P(t *testing.T) {
	l, _ := algos.DefaultLayout(spec.V2_28_9, 1, 4, 2)
	rng := rand.New(rand.NewPCG(7, 8))
	build := func(f spec.Func) (*algos.Schedule, [][]algos.Step) {
		s, err := algos.Build(spec.Op{Func: f, Count: 1000, DataType: spec.Float32}, algos.Selection{}, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var progs [][]algos.Step
		for r := 0; r < s.NRanks; r++ {
			for c := 0; c < s.NChannels; c++ {
				for g := 0; g < s.NGroups; g++ {
					progs = append(progs, s.Program(r, c, g))
				}
			}
		}
		return s, progs
	}
	find := func(s *algos.Schedule, progs [][]algos.Step, rank int, prim algos.Prim) *algos.Step {
		for c := 0; c < s.NChannels; c++ {
			for g := 0; g < s.NGroups; g++ {
				p := progs[(rank*s.NChannels+c)*s.NGroups+g]
				for i := range p {
					if p[i].Prim == prim {
						return &p[i]
					}
				}
			}
		}
		t.Fatalf("rank %d has no %s", rank, prim)
		return nil
	}
	mutations := []struct {
		name string
		f    spec.Func
		mut  func(s *algos.Schedule, p [][]algos.Step)
		want string
	}{
		{"send from the wrong block", spec.AllToAll, func(s *algos.Schedule, p [][]algos.Step) {
			st := find(s, p, 1, algos.PrimSend)
			st.Src.Offset = (st.Src.Offset + 4000) % (4 * 4000)
		}, "expected rank 1's element"},
		{"receive into the wrong block", spec.AllToAll, func(s *algos.Schedule, p [][]algos.Step) {
			st := find(s, p, 2, algos.PrimRecv)
			st.Dst.Offset = (st.Dst.Offset + 4000) % (4 * 4000)
		}, "expected rank"},
		{"no self copy", spec.AllToAll, func(s *algos.Schedule, p [][]algos.Step) {
			st := find(s, p, 3, algos.PrimCopy)
			st.Dst.Offset = 0
		}, "expected rank 3's element"},
	}
	for _, mu := range mutations {
		s, progs := build(mu.f)
		mu.mut(s, progs)
		m, err := algos.NewExplicit(s.Header, progs, nil)
		if err != nil {
			t.Fatalf("%s: %v", mu.name, err)
		}
		vr, err := Verify(m, randomInputs(rng, m), nil)
		if err != nil {
			t.Fatalf("%s: %v", mu.name, err)
		}
		if vr.OK || !strings.Contains(strings.Join(vr.Problems, "\n"), mu.want) {
			t.Errorf("%s: verification %v %v, want a problem mentioning %q", mu.name, vr.OK, vr.Problems, mu.want)
		}
	}
}

package sim

import (
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// postsTo counts the FIFO slices rank's program on channel ch, group grp
// sends to a peer of kind k: the steps a receiver flushes, one each.
func postsTo(s *algos.Schedule, rank, ch, grp int, k algos.PeerKind) int {
	n := 0
	for _, st := range s.AppendProgram(nil, rank, ch, grp) {
		for _, p := range st.Send {
			if p.Kind == k {
				n += len(sliceSizes(&s.Header, st.Count, nil))
				break
			}
		}
	}
	return n
}

// TestFlushOncePerStep: the receive proxy flushes a received Simple step
// once, before it hands the step to the GPU (G-NET-CONN-FLUSH-1 for NET,
// G-COLLNET-FLUSH-1 for CollNet); the credit the GPU returns when it has
// read the step goes back without one. On one channel whose sender runs
// FIFO-depth rounds ahead of its receiver (a two-node Ring Broadcast over
// NET, a one-GPU-per-node CollNetDirect AllReduce through SHARP), a
// round is the step's way out (latency and flush) and the credit's way
// back (latency), so with the flush dominating every other cost, each
// flush cost x more adds x per round: ceil(steps / depth) × x, not twice
// that less one, which a flush charged on the credit too would give. The
// NET case also checks the plain difference flush on / off with the
// network's latency dominating, and the event loop against the chain
// solver.
func TestFlushOncePerStep(t *testing.T) {
	for _, tc := range []struct {
		name    string
		algo    spec.Algo
		f       spec.Func
		bytes   int64
		collNet bool
		kind    algos.PeerKind
	}{
		{"NET Ring Broadcast", spec.Ring, spec.Broadcast, 10 << 20, false, algos.PeerRank},
		{"CollNetDirect AllReduce", spec.CollNetDirect, spec.AllReduce, 10 << 20, true, algos.PeerNet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := algos.DefaultLayout(spec.V2_28_9, 2, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			op := spec.Op{Func: tc.f, Count: tc.bytes / 4, DataType: spec.Float32, RedOp: spec.Sum}
			s, err := algos.Build(op, algos.Selection{Algo: tc.algo, Proto: spec.Simple, NChannels: 1}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			grp := 0
			if tc.collNet {
				grp = 1 // the head's reduce group sends to the network
			}
			steps := postsTo(s, 0, 0, grp, tc.kind)
			depth := s.NSteps / max(1, s.StepPerSlice)
			if steps <= 2*depth {
				t.Fatalf("%d flushed steps for a FIFO of %d: want several rounds", steps, depth)
			}
			rounds := int64((steps + depth - 1) / depth)
			m := dgxCluster(2)
			m.GPUsPerNode, m.NICs, m.SHARP = 1, 1, tc.collNet
			timeOf := func(flush bool, x, netLat float64, loop bool) Time {
				mm := m
				mm.NetFlush, mm.CollNetFlush = flush && !tc.collNet, flush && tc.collNet
				mm.NetLat, mm.Profile = netLat, flushProfile(x, x)
				res, err := Simulate(s, Config{Machine: mm, noRingRuns: loop})
				if err != nil {
					t.Fatal(err)
				}
				return res.Time
			}
			const x = 5000 // µs: dominates every step's other costs
			one, two := timeOf(true, x, 0, false), timeOf(true, 2*x, 0, false)
			if got, want := two-one, Time(rounds)*FromMicros(x); got != want {
				t.Errorf("%d steps, FIFO depth %d: a flush %g µs dearer adds %v, want %d rounds × %g µs = %v", steps, depth, float64(x), got, rounds, float64(x), want)
			}
			if tc.collNet {
				return
			}
			// the network's latency dominating, a small flush: on/off
			// differ by one flush per round
			const lat, fl = 2000, 3
			off, on := timeOf(false, fl, lat, false), timeOf(true, fl, lat, false)
			if got, want := on-off, Time(rounds)*FromMicros(fl); got != want {
				t.Errorf("NetLat %d µs: the flush adds %v, want %d × %d µs = %v", lat, got, rounds, fl, want)
			}
			if loop := timeOf(true, fl, lat, true); loop != on {
				t.Errorf("event loop %v, chain solver %v", loop, on)
			}
		})
	}
}

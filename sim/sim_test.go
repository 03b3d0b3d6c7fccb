package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// machineFor builds a DGX-like machine of the shape, with SHARP.
func machineFor(sh algostest.Shape) Machine {
	m, _ := Preset("dgx-h100")
	m.Name = sh.Name
	m.Nodes, m.GPUsPerNode, m.NICs = sh.Nodes, sh.LocalRanks, sh.LocalRanks
	m.SHARP = true
	return m
}

type timingCase struct {
	sh    algostest.Shape
	algo  spec.Algo
	f     spec.Func
	proto spec.Proto
	bytes int64
}

func (tc timingCase) schedule(t interface{ Fatal(...any) }, dt spec.DataType) *algos.Schedule {
	l, err := algos.DefaultLayout(spec.V2_28_9, tc.sh.Nodes, tc.sh.LocalRanks, tc.sh.Channels)
	if err != nil {
		t.Fatal(err)
	}
	l.NVLSChannels = tc.sh.Channels
	count := tc.bytes / int64(dt.Size())
	s, err := algos.Build(spec.Op{Func: tc.f, Count: count, DataType: dt, RedOp: spec.Sum}, algos.Selection{Algo: tc.algo, Proto: tc.proto, NChannels: tc.sh.Channels}, l, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type fit struct {
	sh algostest.Shape
	c  algostest.Case
}

// fits are the (shape, algorithm) pairs that run.
func fits() []fit {
	var out []fit
	for _, sh := range algostest.Shapes {
		for _, c := range algostest.Cases {
			if algostest.Fits(c.Algo, sh) {
				out = append(out, fit{sh, c})
			}
		}
	}
	return out
}

// drawTimingCase draws a shape, algorithm, collective, protocol and a
// size spread over 0 to 4 MiB on a log scale.
func drawTimingCase(t *rapid.T) timingCase {
	fc := rapid.SampledFrom(fits()).Draw(t, "fit")
	e := rapid.IntRange(0, 20).Draw(t, "log2 elements")
	n := int64(0)
	if e > 0 {
		n = rapid.Int64Range(int64(1)<<(e-1), int64(1)<<e).Draw(t, "elements")
	}
	return timingCase{
		sh:    fc.sh,
		algo:  fc.c.Algo,
		f:     rapid.SampledFrom(fc.c.Funcs).Draw(t, "func"),
		proto: rapid.SampledFrom(fc.c.Proto).Draw(t, "proto"),
		bytes: 4 * n,
	}
}

// TestSymmetryIsExact checks that simulating one representative per
// symmetry class gives exactly the times and link bytes of simulating
// every rank.
func TestSymmetryIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tc := drawTimingCase(t)
		s := tc.schedule(t, spec.Float32)
		m := machineFor(tc.sh)
		a, b := reducedAndFull(t, s, m)
		if b.Events < a.Events {
			t.Fatalf("the full simulation has fewer events (%d) than the reduced one (%d)", b.Events, a.Events)
		}
	})
}

// reducedAndFull simulates s once per symmetry class and once per rank, and
// fails unless the two agree on time and network bytes.
func reducedAndFull(t interface {
	Fatal(...any)
	Fatalf(string, ...any)
}, s *algos.Schedule, m Machine) (reduced, full *Result) {
	a, err := Simulate(s, Config{Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Simulate(s, Config{Machine: m, NoSymmetry: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Time != b.Time || a.NetBytes != b.NetBytes {
		t.Fatalf("symmetry: reduced %v, %d net bytes; every rank %v, %d net bytes", a.Time, a.NetBytes, b.Time, b.NetBytes)
	}
	return a, b
}

// TestTimeGrowsWithSize: more bytes never take less time, for a fixed
// algorithm, protocol, channel count and chunk size. (NCCL's own
// heuristics change channels and chunks with the size — calcCollChunking
// halves Tree/LL128, NVLS and CollNet chunks for small operations, the
// channel partition spreads cells differently — and those changes can make
// a larger operation faster, in NCCL as in the model; the property holds
// the heuristics' choices fixed. So it does for CollNet's rail windows:
// a larger per-rank count moves the node boundaries inside the windows,
// so one node's part of a channel shrinks while another's grows, and when
// the shrinking node was the slower one — its NIC also serves a channel in
// which the other node sends nothing — the operation ends sooner; the
// property asks that no step moves fewer elements.)
func TestTimeGrowsWithSize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tc := drawTimingCase(t)
		more := rapid.Int64Range(1, 1<<16).Draw(t, "more")
		m := machineFor(tc.sh)
		s1 := tc.schedule(t, spec.Float32)
		tc.bytes += 4 * more
		s2 := tc.schedule(t, spec.Float32)
		if s1.NChannels != s2.NChannels || !slices.Equal(s1.ChunkCounts(), s2.ChunkCounts()) || !sameShape(s1, s2) {
			t.Skip("NCCL's heuristics chose other channels, chunks or steps for the larger size")
		}
		if someStepShrinks(s1, s2) {
			t.Skip("the larger size moves fewer elements in some step (a rail window's node boundary moved)")
		}
		small, err := Simulate(s1, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		big, err := Simulate(s2, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		if big.Time < small.Time {
			t.Fatalf("%d bytes take %v, %d bytes take %v", tc.bytes-4*more, small.Time, tc.bytes, big.Time)
		}
	})
}

// sameShape reports schedules whose programs have the same steps, peers
// and PAT slot use, differing only in element counts and offsets.
func sameShape(a, b *algos.Schedule) bool {
	if a.NRanks != b.NRanks || a.NChannels != b.NChannels || a.NGroups != b.NGroups {
		return false
	}
	for r := 0; r < a.NRanks; r++ {
		for c := 0; c < a.NChannels; c++ {
			for g := 0; g < a.NGroups; g++ {
				pa, pb := a.Program(r, c, g), b.Program(r, c, g)
				if len(pa) != len(pb) {
					return false
				}
				for i := range pa {
					x, y := pa[i], pb[i]
					if x.Prim != y.Prim || !slices.Equal(x.Recv, y.Recv) || !slices.Equal(x.Send, y.Send) || (x.Pat == nil) != (y.Pat == nil) {
						return false
					}
					if x.Pat != nil && (x.Pat.RecvSlot != y.Pat.RecvSlot || x.Pat.SendSlot != y.Pat.SendSlot || x.Pat.PostSend != y.Pat.PostSend || x.Pat.PostRecv != y.Pat.PostRecv || x.Pat.Acc != y.Pat.Acc) {
						return false
					}
				}
			}
		}
	}
	return true
}

// someStepShrinks reports whether a step of b (of the same shape as a)
// moves fewer elements, or a smaller piece, than the same step of a.
func someStepShrinks(a, b *algos.Schedule) bool {
	for r := 0; r < a.NRanks; r++ {
		for c := 0; c < a.NChannels; c++ {
			for g := 0; g < a.NGroups; g++ {
				pa, pb := a.Program(r, c, g), b.Program(r, c, g)
				for i := range pa {
					if pb[i].Count < pa[i].Count {
						return true
					}
					for j := range pa[i].Pieces {
						if pb[i].Pieces[j].Count < pa[i].Pieces[j].Count {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// TestFasterLinksNeverSlower: doubling the bandwidth of a class of links
// never makes the operation slower.
func TestFasterLinksNeverSlower(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tc := drawTimingCase(t)
		which := rapid.IntRange(0, 3).Draw(t, "link")
		s := tc.schedule(t, spec.Float32)
		m := machineFor(tc.sh)
		base, err := Simulate(s, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		switch which {
		case 0:
			m.NVLinkBw *= 2
		case 1:
			m.PCIeBw *= 2
		case 2:
			m.NICBw *= 2
		case 3:
			m.HBMBw *= 2
		}
		fast, err := Simulate(s, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		if fast.Time > base.Time {
			t.Fatalf("link class %d twice as fast: %v, was %v", which, fast.Time, base.Time)
		}
	})
}

// TestDeterministic: identical inputs give a byte-identical result and
// timeline.
func TestDeterministic(t *testing.T) {
	tc := timingCase{algostest.Shapes[6], spec.Tree, spec.AllReduce, spec.Simple, 4 << 20}
	var out [2][]byte
	for i := range out {
		x, err := New(tc.schedule(t, spec.Float32), Config{Machine: machineFor(tc.sh), Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		r, err := x.Run()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		json.NewEncoder(&b).Encode(r)
		if err := WriteChromeTrace(&b, x.Trace(), map[string]string{"case": "tree"}); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Fatal("two runs of the same simulation differ")
	}
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(out[0][bytes.IndexByte(out[0], '\n')+1:], &tr); err != nil || len(tr.TraceEvents) == 0 {
		t.Fatalf("Chrome trace is not JSON with events: %v", err)
	}
}

// TestInjectedNetworkBytes: a Ring AllReduce injects 2(n-1)/n × S per node
// into the network (every ring edge carries that much, one edge leaves each
// node per channel), CollNet injects S per node (each head sends its share
// once; the switch reduces).
func TestInjectedNetworkBytes(t *testing.T) {
	sh := algostest.Shape{Name: "4 × 4", Nodes: 4, LocalRanks: 4, Channels: 4}
	const S = 16 << 20
	n := float64(sh.Nodes * sh.LocalRanks)
	ring, err := Simulate(timingCase{sh, spec.Ring, spec.AllReduce, spec.Simple, S}.schedule(t, spec.Float32), Config{Machine: machineFor(sh)})
	if err != nil {
		t.Fatal(err)
	}
	want := 2 * (n - 1) / n * S
	if d := math.Abs(ring.NetBytesPerNode-want) / want; d > 1e-3 {
		t.Errorf("Ring injects %.0f bytes per node, want 2(n-1)/n × S = %.0f", ring.NetBytesPerNode, want)
	}
	for _, a := range []spec.Algo{spec.CollNetDirect, spec.CollNetChain} {
		cn, err := Simulate(timingCase{sh, a, spec.AllReduce, spec.Simple, S}.schedule(t, spec.Float32), Config{Machine: machineFor(sh)})
		if err != nil {
			t.Fatal(err)
		}
		if cn.NetBytesPerNode != S {
			t.Errorf("%s injects %.0f bytes per node, want S = %d", a, cn.NetBytesPerNode, S)
		}
	}
}

// TestBusBandwidth checks nccl-tests' definitions on the result.
func TestBusBandwidth(t *testing.T) {
	sh := algostest.Shapes[3]
	for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast} {
		r, err := Simulate(timingCase{sh, spec.Ring, f, spec.Simple, 1 << 20}.schedule(t, spec.Float32), Config{Machine: machineFor(sh)})
		if err != nil {
			t.Fatal(err)
		}
		alg := float64(r.Bytes) / (float64(r.Time) * 1e-12) / 1e9
		if math.Abs(r.AlgBw-alg) > 1e-9*alg || math.Abs(r.BusBw-alg*f.BusFactor(8)) > 1e-9*alg {
			t.Errorf("%s: algbw %g busbw %g, want %g and %g", f, r.AlgBw, r.BusBw, alg, alg*f.BusFactor(8))
		}
	}
	if spec.AllReduce.BusFactor(8) != 1.75 || spec.AllGather.BusFactor(8) != 0.875 || spec.Reduce.BusFactor(8) != 1 ||
		spec.AllToAll.BusFactor(8) != 0.875 || spec.SendRecv.BusFactor(8) != 1 {
		t.Error("bus factors")
	}
	if TestBytes(spec.AllGather, 10, spec.Float32, 8) != 320 || TestBytes(spec.AllReduce, 10, spec.Float32, 8) != 40 {
		t.Error("nccl-tests sizes")
	}
}

// TestBandwidthIsNCCLTests holds Bandwidth (over TestBytes) to nccl-tests'
// <Coll>GetBw at one point each, the figures worked by hand: algbw is the
// size over the time, per-rank buffer for AllReduce, Broadcast, Reduce and
// SendRecv, the whole buffer for AllGather, ReduceScatter and AllToAll;
// busbw is algbw × 2(n-1)/n, (n-1)/n or 1.
func TestBandwidthIsNCCLTests(t *testing.T) {
	for _, c := range []struct {
		f        spec.Func
		count    int64
		dt       spec.DataType
		n        int
		sec      float64
		alg, bus float64
	}{
		{spec.AllReduce, 1 << 18, spec.Float32, 8, 1e-3, 1.048576, 1.835008},     // 1 MiB, × 14/8
		{spec.AllGather, 1 << 18, spec.Float32, 2, 1e-3, 2.097152, 1.048576},     // 1 MiB sent × 2 ranks, × 1/2
		{spec.ReduceScatter, 1 << 16, spec.Float32, 4, 5e-4, 2.097152, 1.572864}, // 256 KiB received × 4 ranks, × 3/4
		{spec.Broadcast, 1 << 20, spec.Int8, 8, 2e-3, 0.524288, 0.524288},
		{spec.Reduce, 1 << 17, spec.Float64, 16, 1e-3, 1.048576, 1.048576},
		{spec.SendRecv, 1 << 18, spec.Float32, 2, 1e-3, 1.048576, 1.048576},
		{spec.AllToAll, 1 << 15, spec.Float32, 8, 2.5e-4, 4.194304, 3.670016}, // 128 KiB per peer × 8, × 7/8
		{spec.AllReduce, 1 << 18, spec.Float32, 8, 0, 0, 0},                   // nothing timed
	} {
		alg, bus := Bandwidth(c.f, TestBytes(c.f, c.count, c.dt, c.n), c.n, c.sec)
		if math.Abs(alg-c.alg) > 1e-12*c.alg || math.Abs(bus-c.bus) > 1e-12*c.bus {
			t.Errorf("%s %d × %s on %d ranks in %g s: algbw %v busbw %v, want %v and %v", c.f, c.count, c.dt, c.n, c.sec, alg, bus, c.alg, c.bus)
		}
	}
}

// TestLatencyBound: a 4-byte Ring/LL AllReduce on one node takes NCCL's
// base latency plus 2(n-1) NVLink hops, the number NCCL's own model gives.
func TestLatencyBound(t *testing.T) {
	sh := algostest.Shapes[3] // 1 × 8
	r, err := Simulate(timingCase{sh, spec.Ring, spec.AllReduce, spec.LL, 4}.schedule(t, spec.Float32), Config{Machine: machineFor(sh)})
	if err != nil {
		t.Fatal(err)
	}
	want := FromMicros(6.6 + 14*0.6)
	if d := r.Time - want; d < 0 || d > FromMicros(0.01) {
		t.Errorf("4-byte Ring/LL AllReduce on 8 GPUs takes %v, want about %v", r.Time, want)
	}
}

// TestIdleConnectionsTakeNoShare: a connection that carries no data in the
// whole operation (the empty channels and heads of a small CollNet or NVLS
// operation, which walk the buffer with zero-element steps) takes no share
// of the links, so adding an idle channel leaves the time unchanged.
func TestIdleConnectionsTakeNoShare(t *testing.T) {
	m := machineFor(algostest.Shape{Name: "2 nodes × 4 GPUs", Nodes: 2, LocalRanks: 4})
	for _, a := range []spec.Algo{spec.NVLS, spec.CollNetDirect} {
		var times [2]Time
		for i, nc := range []int{1, 2} {
			l, err := algos.DefaultLayout(spec.V2_28_9, 2, 4, 2)
			if err != nil {
				t.Fatal(err)
			}
			l.NVLSChannels = 2
			// 1024 elements: one chunk of head 0 on channel 0, whatever
			// the channel count; channel 1 and the other heads move nothing
			s, err := algos.Build(spec.Op{Func: spec.AllReduce, Count: 1024, DataType: spec.Float32}, algos.Selection{Algo: a, Proto: spec.Simple, NChannels: nc}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.NChannels != nc {
				t.Fatalf("%s: %d channels, want %d", a, s.NChannels, nc)
			}
			r, err := Simulate(s, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			times[i] = r.Time
		}
		if times[0] != times[1] {
			t.Errorf("%s: %v on one channel, %v with an idle second channel", a, times[0], times[1])
		}
	}
}

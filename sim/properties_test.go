package sim

import (
	"maps"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// drawComm draws a communicator of 1 to 64 ranks as nodes × GPUs per node.
func drawComm(t *rapid.T) (nodes, local int) {
	nodes = rapid.IntRange(1, 16).Draw(t, "nodes")
	local = rapid.IntRange(1, min(8, 64/nodes)).Draw(t, "local")
	return nodes, local
}

// drawCount draws element counts that matter: 0, 1, primes, sizes not
// divisible by the ranks or channels, up to a few thousand (fewer on many
// ranks, to keep the symbolic reference small).
func drawCount(t *rapid.T, ranks int) int64 {
	hi := max(2, min(3000, 30000/int64(ranks)))
	return rapid.OneOf(
		rapid.Just(int64(0)), rapid.Just(int64(1)),
		rapid.SampledFrom([]int64{7, 31, 127, 1021}),
		rapid.Int64Range(2, hi),
	).Draw(t, "count")
}

var allTypes = []spec.DataType{spec.Int8, spec.Uint8, spec.Int32, spec.Uint32, spec.Int64, spec.Uint64,
	spec.Float16, spec.Float32, spec.Float64, spec.Bfloat16, spec.Float8e4m3, spec.Float8e5m2}

// algosFor lists the algorithms that implement f on nodes × local.
func algosFor(f spec.Func, nodes, local int) []spec.Algo {
	var out []spec.Algo
	for _, a := range spec.Algos {
		ok := false
		switch a {
		case spec.Ring:
			ok = true
		case spec.Tree, spec.CollNetChain:
			ok = f == spec.AllReduce && (a == spec.Tree || nodes > 1)
		case spec.CollNetDirect:
			ok = nodes > 1 && local <= 8 && (f == spec.AllReduce || f == spec.AllGather || f == spec.ReduceScatter)
		case spec.NVLS: // across nodes with CollNet (SHARP)
			ok = local > 1 && (f == spec.AllReduce || f == spec.AllGather || f == spec.ReduceScatter)
		case spec.NVLSTree:
			ok = f == spec.AllReduce && nodes > 1
		case spec.PAT:
			ok = local == 1 && nodes > 1 && (f == spec.AllGather || f == spec.ReduceScatter)
		}
		if ok {
			out = append(out, a)
		}
	}
	return out
}

// TestPropResultIsCorrect: for random communicators of 1–64 ranks, sizes,
// datatypes, reductions, algorithms and collectives, every output element
// equals the reference (Verify).
func TestPropResultIsCorrect(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, local := drawComm(t)
		f := rapid.SampledFrom([]spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce, spec.SendRecv, spec.AllToAll}).Draw(t, "func")
		var a spec.Algo = spec.Ring
		if !f.IsP2P() {
			a = rapid.SampledFrom(algosFor(f, nodes, local)).Draw(t, "algo")
		}
		dt := rapid.SampledFrom(allTypes).Draw(t, "dtype")
		op := spec.RedOp(rapid.IntRange(0, spec.NumRedOps-1).Draw(t, "redop"))
		if a.IsNVLS() && f != spec.AllGather {
			dt = rapid.SampledFrom([]spec.DataType{spec.Int32, spec.Uint64, spec.Float16, spec.Bfloat16, spec.Float32}).Draw(t, "nvls dtype")
			op = spec.Sum
		}
		if a == spec.PAT && (op == spec.Avg || op == spec.PreMulSum) {
			op = spec.Max
		}
		proto := spec.Simple
		if a == spec.Ring || a == spec.Tree {
			proto = rapid.SampledFrom(spec.Protos[:]).Draw(t, "proto")
		}
		ch := rapid.IntRange(1, 4).Draw(t, "channels")
		l, err := algos.DefaultLayout(spec.V2_28_9, nodes, local, ch)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels = ch
		// p2p in place only on one rank: across ranks its sends and
		// receives on one buffer race in NCCL, and Build refuses them
		inPlace := rapid.Bool().Draw(t, "inplace") && (!f.IsP2P() || nodes*local == 1)
		count := drawCount(t, nodes*local)
		if f == spec.AllToAll {
			count = nccl.DivUp(count, int64(nodes*local)) // per peer: the buffers hold count × ranks
		}
		s, err := algos.Build(spec.Op{Func: f, Count: count, DataType: dt, RedOp: op, Root: rapid.IntRange(0, nodes*local-1).Draw(t, "root")},
			algos.Selection{Algo: a, Proto: proto, NChannels: ch}, l, algos.Options{InPlace: inPlace})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(rapid.Uint32().Draw(t, "seed")), 7))
		v, err := Verify(s, randomInputs(rng, s), scalarsFor(rng, op, dt, s.NRanks))
		if err != nil {
			t.Fatal(err)
		}
		if !v.OK {
			t.Fatalf("%s %s %s %s: %v", a, f, dt, op, v.Problems)
		}
	})
}

// TestPropEveryByteReceivedOnce: every message a schedule sends is
// received exactly once by each receiver it is addressed to, with the same
// size, and nothing waits for a message that is never sent (Validate's
// abstract execution); the bytes sent over rank-to-rank connections equal
// the bytes received.
func TestPropEveryByteReceivedOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, local := drawComm(t)
		f := rapid.SampledFrom([]spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce}).Draw(t, "func")
		a := rapid.SampledFrom(algosFor(f, nodes, local)).Draw(t, "algo")
		ch := rapid.IntRange(1, 4).Draw(t, "channels")
		l, _ := algos.DefaultLayout(spec.V2_28_9, nodes, local, ch)
		l.NVLSChannels = ch
		s, err := algos.Build(spec.Op{Func: f, Count: drawCount(t, 1) * 97, DataType: spec.Float32}, algos.Selection{Algo: a, Proto: spec.Simple, NChannels: ch}, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		var sent, recvd int64
		for r := 0; r < s.NRanks; r++ {
			for c := 0; c < s.NChannels; c++ {
				for g := 0; g < s.NGroups; g++ {
					for _, st := range s.Program(r, c, g) {
						for j, p := range st.Send {
							if p.IsRank() {
								sent += pieceCount(st, j)
							}
						}
						for j, p := range st.Recv {
							if p.IsRank() {
								recvd += pieceCount(st, j)
							}
						}
					}
				}
			}
		}
		if a != spec.PAT && sent != recvd {
			t.Fatalf("%d elements sent between ranks, %d received", sent, recvd)
		}
	})
}

func pieceCount(st algos.Step, j int) int64 {
	if st.Prim == algos.PrimScatter || st.Prim == algos.PrimGather {
		return st.Pieces[j].Count
	}
	return st.Count
}

// TestPropRingMovesTwiceNMinusOneOverN: a Ring AllReduce sends
// 2(n-1)/n × S per rank (on average exactly; per rank up to the 16-byte
// rounding of chunks), for random ranks and sizes.
func TestPropRingMovesTwiceNMinusOneOverN(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, local := drawComm(t)
		n := nodes * local
		if n == 1 {
			t.Skip("one rank moves nothing")
		}
		ch := rapid.IntRange(1, 4).Draw(t, "channels")
		count := rapid.Int64Range(1, 1<<20).Draw(t, "count")
		l, _ := algos.DefaultLayout(spec.V2_28_9, nodes, local, ch)
		s, err := algos.Build(spec.Op{Func: spec.AllReduce, Count: count, DataType: spec.Float32}, algos.Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: ch}, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for r := 0; r < n; r++ {
			var sent int64
			for c := 0; c < s.NChannels; c++ {
				for _, st := range s.Program(r, c, 0) {
					if st.Prim.Sends() {
						sent += st.Count
					}
				}
			}
			total += sent
			want := float64(2*(n-1)) / float64(n) * float64(count)
			if math.Abs(float64(sent)-want) > float64(8*n*s.NChannels) {
				t.Fatalf("rank %d of %d sends %d elements, want about %.0f", r, n, sent, want)
			}
		}
		if total != 2*int64(n-1)*count {
			t.Fatalf("%d ranks send %d elements in all, want 2(n-1) × %d", n, total, count)
		}
	})
}

// TestPropNetworkInjection: across nodes, CollNet injects S per node into
// the network (the switch reduces), Ring injects 2(n-1)/n × S; NVLS with
// SHARP injects S per node as well (each NVLS head sends its share of the
// node's reduction once).
func TestPropNetworkInjection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(2, 16).Draw(t, "nodes")
		local := rapid.IntRange(1, 8).Draw(t, "local")
		ch := rapid.IntRange(1, 4).Draw(t, "channels")
		S := 4 * rapid.Int64Range(1, 1<<20).Draw(t, "elements")
		m, _ := Preset("dgx-h100")
		m.Nodes, m.GPUsPerNode, m.NICs, m.SHARP = nodes, local, local, true
		l, _ := algos.DefaultLayout(spec.V2_28_9, nodes, local, ch)
		n := float64(nodes * local)
		build := func(a spec.Algo) *Result {
			s, err := algos.Build(spec.Op{Func: spec.AllReduce, Count: S / 4, DataType: spec.Float32}, algos.Selection{Algo: a, Proto: spec.Simple, NChannels: ch}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Simulate(s, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		ring := build(spec.Ring)
		want := 2 * (n - 1) / n * float64(S)
		if math.Abs(ring.NetBytesPerNode-want) > 32*float64(ch)*n {
			t.Fatalf("Ring injects %.0f bytes per node, want 2(n-1)/n × S = %.0f", ring.NetBytesPerNode, want)
		}
		for _, a := range []spec.Algo{spec.CollNetDirect, spec.CollNetChain, spec.NVLS} {
			if (local > 8 && a == spec.CollNetDirect) || (local == 1 && a == spec.NVLS) {
				continue
			}
			if got := build(a).NetBytesPerNode; got != float64(S) {
				t.Fatalf("%s injects %.0f bytes per node, want S = %d", a, got, S)
			}
		}
	})
}

// TestPropNetworkInjectionGatherScatter: CollNet's iallgather takes each
// node's own data once, so an AllGather through CollNetDirect or NVLS with
// SHARP injects S/nNodes per node (S the gathered buffer) where Ring
// injects (n-1)/n × S; its ireducescatter takes the node's reduction of the
// whole buffer, so a ReduceScatter injects S per node (S the scattered
// buffer, every rank's input) where Ring injects (n-1)/n × S.
func TestPropNetworkInjectionGatherScatter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(2, 12).Draw(t, "nodes")
		local := rapid.IntRange(1, 8).Draw(t, "local")
		ch := rapid.IntRange(1, 4).Draw(t, "channels")
		f := rapid.SampledFrom([]spec.Func{spec.AllGather, spec.ReduceScatter}).Draw(t, "func")
		n := int64(nodes * local)
		count := rapid.Int64Range(1, (1<<22)/n).Draw(t, "count per rank")
		S := 4 * count * n
		m, _ := Preset("dgx-h100")
		m.Nodes, m.GPUsPerNode, m.NICs, m.SHARP = nodes, local, local, true
		l, _ := algos.DefaultLayout(spec.V2_28_9, nodes, local, ch)
		l.NVLSChannels = ch
		for _, a := range []spec.Algo{spec.Ring, spec.CollNetDirect, spec.NVLS} {
			if a == spec.NVLS && local == 1 {
				continue
			}
			s, err := algos.Build(spec.Op{Func: f, Count: count, DataType: spec.Float32}, algos.Selection{Algo: a, Proto: spec.Simple, NChannels: ch}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Simulate(s, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			var want float64
			switch {
			case a == spec.Ring:
				want = float64(n-1) / float64(n) * float64(S)
				if math.Abs(r.NetBytesPerNode-want) > float64(S)/float64(n)+1 {
					t.Fatalf("Ring %s injects %.0f bytes per node, want about (n-1)/n × S = %.0f", f, r.NetBytesPerNode, want)
				}
				continue
			case f == spec.AllGather:
				want = float64(S) / float64(nodes)
			default:
				want = float64(S)
			}
			if r.NetBytesPerNode != want {
				t.Fatalf("%s %s injects %.0f bytes per node, want %.0f", a, f, r.NetBytesPerNode, want)
			}
		}
	})
}

// TestPropSameIntegerResult: on integer data every algorithm gives the
// same result for the same input (integer reductions are exact, so the
// order does not matter).
func TestPropSameIntegerResult(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, local := drawComm(t)
		f := rapid.SampledFrom([]spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter}).Draw(t, "func")
		as := algosFor(f, nodes, local)
		dt := rapid.SampledFrom([]spec.DataType{spec.Int32, spec.Uint32, spec.Int64, spec.Uint64}).Draw(t, "dtype")
		op := rapid.SampledFrom([]spec.RedOp{spec.Sum, spec.Max, spec.Min}).Draw(t, "redop")
		count := drawCount(t, nodes*local)
		ch := rapid.IntRange(1, 3).Draw(t, "channels")
		l, _ := algos.DefaultLayout(spec.V2_28_9, nodes, local, ch)
		l.NVLSChannels = ch
		var first [][]byte
		var firstAlgo spec.Algo
		var in [][]byte
		for _, a := range as {
			s, err := algos.Build(spec.Op{Func: f, Count: count, DataType: dt, RedOp: op}, algos.Selection{Algo: a, Proto: spec.Simple, NChannels: ch}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if in == nil {
				in = randomInputs(rand.New(rand.NewPCG(uint64(count), 11)), s)
			}
			out, err := Execute(s, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first, firstAlgo = out, a
				continue
			}
			for r := range out {
				if string(out[r]) != string(first[r]) {
					t.Fatalf("%s and %s give different %s %s results on rank %d", firstAlgo, a, dt, op, r)
				}
			}
		}
	})
}

// TestPropSymmetryIsExact: on random communicators of 1–64 ranks, random
// algorithms, collectives, protocols, channel counts and sizes up to 4 MiB,
// simulating one representative per symmetry class gives the time, link
// bytes and network bytes of simulating every rank.
// drawCollective draws a collective, an algorithm with device code for it
// on nodes × local GPUs, and a protocol it runs.
func drawCollective(t *rapid.T, nodes, local int) (spec.Func, spec.Algo, spec.Proto) {
	f := rapid.SampledFrom([]spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce}).Draw(t, "func")
	a := rapid.SampledFrom(algosFor(f, nodes, local)).Draw(t, "algo")
	proto := spec.Simple
	if a == spec.Ring || a == spec.Tree {
		proto = rapid.SampledFrom(spec.Protos[:]).Draw(t, "proto")
	}
	return f, a, proto
}

func TestPropSymmetryIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, local := drawComm(t)
		f, a, proto := drawCollective(t, nodes, local)
		ch := 2 * rapid.IntRange(1, 8).Draw(t, "graph channels")
		l, err := algos.DefaultLayout(spec.V2_28_9, nodes, local, ch)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels = ch
		count := rapid.Int64Range(0, 1<<20).Draw(t, "count")
		if f == spec.AllGather || f == spec.ReduceScatter {
			count /= int64(nodes * local)
		}
		s, err := algos.Build(spec.Op{Func: f, Count: count, DataType: spec.Float32, RedOp: spec.Sum, Root: rapid.IntRange(0, nodes*local-1).Draw(t, "root")},
			algos.Selection{Algo: a, Proto: proto, NChannels: ch}, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := machineFor(algostest.Shape{Name: "drawn", Nodes: nodes, LocalRanks: local})
		x, err := Simulate(s, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		y, err := Simulate(s, Config{Machine: m, NoSymmetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if x.Time != y.Time || x.NetBytes != y.NetBytes || !maps.Equal(x.LinkBytes, y.LinkBytes) || !maps.Equal(x.MaxLinkBytes, y.MaxLinkBytes) {
			t.Fatalf("%s %s %s on %d×%d, %d channels: symmetry %v %d %v, every rank %v %d %v", a, f, proto, nodes, local, ch,
				x.Time, x.NetBytes, x.LinkBytes, y.Time, y.NetBytes, y.LinkBytes)
		}
	})
}

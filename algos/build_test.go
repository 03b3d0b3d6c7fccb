package algos

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
)

// TestBuildValidates builds every algorithm × collective × protocol on
// every fixture shape and size, and checks the result: fields, buffer
// ranges, and that every receive matches a send without deadlock.
func TestBuildValidates(t *testing.T) {
	for _, sh := range algostest.Shapes {
		l, err := DefaultLayout(spec.V2_28_9, sh.Nodes, sh.LocalRanks, sh.Channels)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels = sh.Channels
		for _, c := range algostest.Cases {
			if !algostest.Fits(c.Algo, sh) {
				continue
			}
			for _, f := range c.Funcs {
				for _, p := range c.Proto {
					for _, count := range []int64{0, 1, 5, 1000, 70001} {
						for _, inPlace := range []bool{false, true} {
							op := spec.Op{Func: f, Count: count, DataType: spec.Float32, RedOp: spec.Sum, Root: sh.Nodes*sh.LocalRanks - 1}
							s, err := Build(op, Selection{Algo: c.Algo, Proto: p, NChannels: sh.Channels}, l, Options{InPlace: inPlace})
							if err != nil {
								t.Fatalf("%s %s %s %s count %d: %v", sh.Name, c.Algo, f, p, count, err)
							}
							if err := s.Validate(); err != nil {
								t.Fatalf("%s %s %s %s count %d in-place %v: %v", sh.Name, c.Algo, f, p, count, inPlace, err)
							}
						}
					}
				}
			}
		}
	}
}

// TestBuildRejects checks that combinations NCCL does not run are refused
// with a reason.
func TestBuildRejects(t *testing.T) {
	one, _ := DefaultLayout(spec.V2_28_9, 1, 4, 2)
	two, _ := DefaultLayout(spec.V2_28_9, 2, 4, 2)
	old, _ := DefaultLayout(spec.V2_22_3, 4, 1, 2)
	pat, _ := DefaultLayout(spec.V2_28_9, 4, 1, 2)
	old22two, _ := DefaultLayout(spec.V2_22_3, 2, 4, 2)
	twoFewHeads, _ := DefaultLayout(spec.V2_28_9, 2, 4, 2)
	twoFewHeads.NVLSHeads, twoFewHeads.CollNetHeads = []int{0, 1}, []int{0, 2}
	f32 := spec.Op{Func: spec.AllReduce, Count: 100, DataType: spec.Float32}
	tests := []struct {
		name string
		op   spec.Op
		sel  Selection
		l    *Layout
		want string
	}{
		{"tree allgather", spec.Op{Func: spec.AllGather, Count: 10, DataType: spec.Float32}, Selection{Algo: spec.Tree, Proto: spec.Simple}, two, "no Tree AllGather"},
		{"nvls allgather, heads not every GPU", spec.Op{Func: spec.AllGather, Count: 10, DataType: spec.Float32}, Selection{Algo: spec.NVLS, Proto: spec.Simple}, twoFewHeads, "every local rank as an NVLS head"},
		{"collnetdirect reducescatter, heads not every GPU", spec.Op{Func: spec.ReduceScatter, Count: 10, DataType: spec.Float32}, Selection{Algo: spec.CollNetDirect, Proto: spec.Simple}, twoFewHeads, "every local rank as a CollNet head"},
		{"nvls allgather across nodes in 2.22", spec.Op{Func: spec.AllGather, Count: 10, DataType: spec.Float32}, Selection{Algo: spec.NVLS, Proto: spec.Simple}, old22two, "one node only"},
		{"nvls two nodes prod", spec.Op{Func: spec.ReduceScatter, Count: 10, DataType: spec.Float32, RedOp: spec.Prod}, Selection{Algo: spec.NVLS, Proto: spec.Simple}, two, "cannot reduce"},
		{"nvls LL", f32, Selection{Algo: spec.NVLS, Proto: spec.LL}, one, "Simple"},
		{"nvls prod", spec.Op{Func: spec.AllReduce, Count: 10, DataType: spec.Float32, RedOp: spec.Prod}, Selection{Algo: spec.NVLS, Proto: spec.Simple}, one, "cannot reduce"},
		{"nvlstree one node", f32, Selection{Algo: spec.NVLSTree, Proto: spec.Simple}, one, "two nodes"},
		{"collnet one node", f32, Selection{Algo: spec.CollNetDirect, Proto: spec.Simple}, one, "two nodes"},
		{"pat 2.22", spec.Op{Func: spec.AllGather, Count: 10, DataType: spec.Float32}, Selection{Algo: spec.PAT, Proto: spec.Simple}, old, "no PAT"},
		{"pat allreduce", f32, Selection{Algo: spec.PAT, Proto: spec.Simple}, pat, "no PAT AllReduce"},
		{"fp8 2.22", spec.Op{Func: spec.AllReduce, Count: 10, DataType: spec.Float8e4m3}, Selection{Algo: spec.Ring, Proto: spec.Simple}, old, "2.24"},
		{"too many channels", f32, Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 3}, one, "channels requested"},
		{"bad root", spec.Op{Func: spec.Broadcast, Count: 10, DataType: spec.Float32, Root: 9}, Selection{Algo: spec.Ring, Proto: spec.Simple}, one, "root 9"},
		{"negative count", spec.Op{Func: spec.AllReduce, Count: -1, DataType: spec.Float32}, Selection{Algo: spec.Ring, Proto: spec.Simple}, one, "negative"},
	}
	for _, tc := range tests {
		_, err := Build(tc.op, tc.sel, tc.l, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestRingAllReduceMovesTwiceNMinusOneOverN checks the ring's byte count:
// all ranks together send 2(n-1) buffers exactly, so each sends 2(n-1)/n
// of the buffer on average; a rank's own share differs only by the
// 16-byte rounding of the last loop's chunks.
func TestRingAllReduceMovesTwiceNMinusOneOverN(t *testing.T) {
	for _, n := range []int{2, 3, 4, 8} {
		l, _ := DefaultLayout(spec.V2_28_9, 1, n, 4)
		count := int64(1 << 20)
		s, err := Build(spec.Op{Func: spec.AllReduce, Count: count, DataType: spec.Float32}, Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 4}, l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		total := int64(0)
		for r := 0; r < n; r++ {
			sent := int64(0)
			for c := 0; c < s.NChannels; c++ {
				for _, st := range s.Program(r, c, 0) {
					if st.Prim.Sends() {
						sent += st.Count
					}
				}
			}
			total += sent
			want := 2 * int64(n-1) * count / int64(n)
			if d := sent - want; d < -int64(8*n*s.NChannels) || d > int64(8*n*s.NChannels) {
				t.Errorf("n=%d rank %d sends %d elements, want about 2(n-1)/n × %d = %d", n, r, sent, count, want)
			}
		}
		if total != 2*int64(n-1)*count {
			t.Errorf("n=%d: ranks send %d elements in all, want 2(n-1) × %d", n, total, count)
		}
	}
}

// TestRingChain checks what RingChain reports of Ring Broadcast and
// Reduce channels against every rank's programs: the chain indices are a
// permutation, the rank at index 0 only sends and the last only receives,
// every other receives from its previous and sends to its next ring
// neighbour in every step, and all run the same steps with the same
// counts; Ring's other collectives are not chains.
func TestRingChain(t *testing.T) {
	for _, c := range []struct {
		nodes, gpus, root int
		f                 spec.Func
		inPlace           bool
		count             int64
	}{
		{1, 2, 1, spec.Broadcast, false, 1 << 20},
		{1, 8, 3, spec.Reduce, true, 100003},
		{3, 8, 13, spec.Broadcast, true, 5<<20 + 7},
		{3, 8, 0, spec.Reduce, false, 1 << 10},
		{4, 1, 2, spec.Broadcast, false, 3 << 20},
	} {
		l, err := DefaultLayout(spec.V2_28_9, c.nodes, c.gpus, 4)
		if err != nil {
			t.Fatal(err)
		}
		op := spec.Op{Func: c.f, Count: c.count, DataType: spec.Float32, Root: c.root}
		s, err := Build(op, Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 4}, l, Options{InPlace: c.inPlace})
		if err != nil {
			t.Fatal(err)
		}
		n := s.NRanks
		for ch := 0; ch < s.NChannels; ch++ {
			index, nb, ok := s.RingChain(ch)
			if !ok {
				t.Fatalf("%+v channel %d: not a chain", c, ch)
			}
			seen := make([]bool, n)
			var counts []int64
			for r := 0; r < n; r++ {
				i := index(r)
				if i < 0 || i >= n || seen[i] {
					t.Fatalf("%+v channel %d: rank %d has chain index %d, taken or out of range", c, ch, r, i)
				}
				seen[i] = true
				prev, next := nb(r)
				if prev != l.RingPrev(ch, r) || next != l.RingNext(ch, r) {
					t.Fatalf("%+v channel %d rank %d: neighbours %d, %d", c, ch, r, prev, next)
				}
				prog := s.Program(r, ch, 0)
				if r == 0 {
					for _, st := range prog {
						counts = append(counts, st.Count)
					}
				}
				if len(prog) != len(counts) || len(prog) == 0 {
					t.Fatalf("%+v channel %d rank %d: %d steps, rank 0 %d", c, ch, r, len(prog), len(counts))
				}
				for k, st := range prog {
					recv := (i == 0 && len(st.Recv) == 0) || (i > 0 && len(st.Recv) == 1 && st.Recv[0] == RankPeer(prev))
					send := (i == n-1 && len(st.Send) == 0) || (i < n-1 && len(st.Send) == 1 && st.Send[0] == RankPeer(next))
					if st.Count != counts[k] || !recv || !send {
						t.Fatalf("%+v channel %d rank %d (chain index %d) step %d: %+v", c, ch, r, i, k, st)
					}
				}
			}
		}
	}
	l, _ := DefaultLayout(spec.V2_28_9, 2, 8, 4)
	for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter} {
		s, err := Build(spec.Op{Func: f, Count: 1 << 20, DataType: spec.Float32}, Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 4}, l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := s.RingChain(0); ok {
			t.Errorf("Ring %v is a chain", f)
		}
	}
}

func TestParamsFor(t *testing.T) {
	old := spec.Releases[0] - 1
	if _, err := ParamsFor(old); err == nil {
		t.Errorf("%s should be older than every modelled release", old)
	}
	// a release between two modelled ones gets the older one's constants
	p, err := ParamsFor(spec.MakeVersion(2, 29, 5))
	if err != nil || p.Release != spec.V2_29_3 {
		t.Errorf("2.29.5 maps to %v (%v), want the 2.29.3 constants", p.Release, err)
	}
	if p.DefaultBuffSize != [spec.NumProtos]int{524288, 4915200, 4194304} {
		t.Errorf("default buffer sizes %v", p.DefaultBuffSize)
	}
	if p.GrainSize != [spec.NumProtos]int{16, 1920, 512} {
		t.Errorf("grain sizes %v", p.GrainSize)
	}
}

// TestChannelKeys checks the promise of ChannelKey and ChannelRotation:
// channels with equal keys have programs that differ only in buffer
// offsets once their ranks are rotated back.
func TestChannelKeys(t *testing.T) {
	var h *Header
	strip := func(ps []Step, k int) string {
		var b strings.Builder
		for i, st := range ps {
			st.Src.Offset, st.Dst.Offset = 0, 0
			st.Recv = append([]Peer(nil), st.Recv...)
			st.Send = append([]Peer(nil), st.Send...)
			for _, peers := range [][]Peer{st.Recv, st.Send} {
				for j, p := range peers {
					if p.Kind == PeerRank {
						peers[j].ID = int32(h.RotateRank(int(p.ID), -k))
					}
				}
			}
			st.Pieces = append([]Chunk(nil), st.Pieces...)
			for j := range st.Pieces {
				st.Pieces[j].Offset = 0
			}
			b.WriteString(formatStep(i, &st, nil, 8) + "\n")
		}
		return b.String()
	}
	for _, sh := range algostest.Shapes {
		l, _ := DefaultLayout(spec.V2_28_9, sh.Nodes, sh.LocalRanks, sh.Channels)
		l.NVLSChannels = sh.Channels
		for _, c := range algostest.Cases {
			if !algostest.Fits(c.Algo, sh) {
				continue
			}
			for _, f := range c.Funcs {
				for _, count := range []int64{1, 999, 65537} {
					s, err := Build(spec.Op{Func: f, Count: count, DataType: spec.Float32}, Selection{Algo: c.Algo, Proto: spec.Simple, NChannels: sh.Channels}, l, Options{})
					if err != nil {
						t.Fatal(err)
					}
					h = &s.Header
					for a := 0; a < s.NChannels; a++ {
						for b := a + 1; b < s.NChannels; b++ {
							if s.ChannelKey(a) != s.ChannelKey(b) {
								continue
							}
							ka, kb := s.ChannelRotation(a), s.ChannelRotation(b)
							for r := 0; r < s.NRanks; r++ {
								for g := 0; g < s.NGroups; g++ {
									pa := strip(s.Program(s.RotateRank(r, ka), a, g), ka)
									pb := strip(s.Program(s.RotateRank(r, kb), b, g), kb)
									if pa != pb {
										t.Fatalf("%s %s %s count %d: channels %d and %d share key %q but rank %d group %d differs", sh.Name, c.Algo, f, count, a, b, s.ChannelKey(a), r, g)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestNVLSLastChunkAlignFollowsRelease checks the one release difference in
// one-node NVLS AllReduce's chunking: the last loop's chunk is
// ceil(rem/nHeads) rounded up to 16 B in 2.22.3 (so 1000 floats spread
// over the 4 heads as 252+252+252+244) and to 16 KiB from 2.23.4 (so head 0
// takes all 1000 and the other heads' pieces are empty).
func TestNVLSLastChunkAlignFollowsRelease(t *testing.T) {
	for _, tc := range []struct {
		rel     spec.Version
		largest int64
	}{{spec.V2_22_3, 252}, {spec.V2_28_9, 1000}} {
		l, err := DefaultLayout(tc.rel, 1, 4, 1)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels = 1
		op := spec.Op{Func: spec.AllReduce, Count: 1000, DataType: spec.Float32, RedOp: spec.Sum}
		s, err := Build(op, Selection{Algo: spec.NVLS, Proto: spec.Simple, NChannels: 1}, l, Options{})
		if err != nil {
			t.Fatalf("%v: %v", tc.rel, err)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("%v: %v", tc.rel, err)
		}
		// The scatter and gather steps list one piece per head.
		largest := int64(0)
		for r := 0; r < 4; r++ {
			for g := 0; g < s.NGroups; g++ {
				for _, st := range s.Program(r, 0, g) {
					for _, c := range st.Pieces {
						largest = max(largest, c.Count)
					}
				}
			}
		}
		if largest != tc.largest {
			t.Errorf("%v: largest head's piece is %d elements, want %d", tc.rel, largest, tc.largest)
		}
	}
}

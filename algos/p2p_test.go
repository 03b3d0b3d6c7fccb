package algos

import (
	"slices"
	"testing"

	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
)

var p2pReleases = []spec.Version{spec.V2_22_3, spec.V2_28_3, spec.V2_28_9}

// TestP2PBuildValidates builds SendRecv and AllToAll on every fixture shape,
// release and size (empty, below and above the LL threshold, several
// chunks and parts), and checks the schedule: every receive matches a send
// on the same channel and connection, no deadlock, buffers in range.
func TestP2PBuildValidates(t *testing.T) {
	for _, v := range p2pReleases {
		for _, sh := range algostest.Shapes {
			l, err := DefaultLayout(v, sh.Nodes, sh.LocalRanks, sh.Channels)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []spec.Func{spec.SendRecv, spec.AllToAll} {
				for _, count := range []int64{0, 1, 1000, 5000, 70001, 1 << 20} {
					for _, inPlace := range []bool{false, true} {
						if inPlace && l.NRanks() > 1 {
							continue
						}
						op := spec.Op{Func: f, Count: count, DataType: spec.Float32}
						s, err := Build(op, Selection{}, l, Options{InPlace: inPlace})
						if err != nil {
							t.Fatalf("%s %s %s count %d: %v", v, sh.Name, f, count, err)
						}
						if err := s.Validate(); err != nil {
							t.Fatalf("%s %s %s count %d in-place %v: %v", v, sh.Name, f, count, inPlace, err)
						}
					}
				}
			}
		}
	}
}

// TestP2PSchedule checks comm->p2pSchedule and the channel bases against
// NCCL's own sequences: the quadratic deltas of init.cc's comment
// ("Example sequence for 16 ranks: 0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2,
// 14, 11, 9, 8") before 2.28.7, linear deltas inside a group from 2.28.7,
// and the bit-reversed channel bases of 2.28.3.
func TestP2PSchedule(t *testing.T) {
	sends := func(v spec.Version, nodes, local, rank int) []int {
		l, err := DefaultLayout(v, nodes, local, 4)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := l.Params()
		pc := l.p2pComm(p)
		var out []int
		for _, r := range pc.Schedule(rank) {
			out = append(out, r.Send)
		}
		return out
	}
	tests := []struct {
		v                   spec.Version
		nodes, local, rank  int
		want                []int
		wantBase            []int // channel bases of the first rounds
		p2pChannels, rounds int
	}{
		{spec.V2_22_3, 1, 16, 0, []int{0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8}, []int{0, 1, 2, 3}, 4, 4},
		{spec.V2_28_3, 1, 16, 0, []int{0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8}, []int{0, 2, 1, 3}, 4, 4},
		{spec.V2_28_9, 1, 16, 0, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, []int{0, 2, 1, 3}, 4, 4},
		// 5 ranks: deltas ≥ 5 of the 8-sequence are filtered out
		{spec.V2_22_3, 1, 5, 2, []int{2, 3, 0, 4, 1}, nil, 4, 0},
		// across nodes: node deltas first (2 nodes × 2 GPUs), rank 1 = node 0 local 1
		{spec.V2_22_3, 2, 2, 1, []int{1, 0, 3, 2}, nil, 4, 0},
		{spec.V2_28_9, 2, 2, 1, []int{1, 0, 3, 2}, nil, 4, 0},
	}
	for _, tc := range tests {
		got := sends(tc.v, tc.nodes, tc.local, tc.rank)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %d×%d rank %d: send peers %v, want %v", tc.v, tc.nodes, tc.local, tc.rank, got, tc.want)
		}
		if tc.wantBase == nil {
			continue
		}
		l, _ := DefaultLayout(tc.v, tc.nodes, tc.local, tc.p2pChannels)
		p, _ := l.Params()
		pc := l.p2pComm(p)
		var bases []int
		for r := 0; r < tc.rounds; r++ {
			bases = append(bases, pc.ChannelBase(r))
		}
		if !slices.Equal(bases, tc.wantBase) {
			t.Errorf("%s: channel bases %v, want %v", tc.v, bases, tc.wantBase)
		}
	}
}

// TestP2PPlan checks addP2pToPlan's arithmetic on the project's 2 × H200
// (32 p2p channels, 32 per peer, 512 KiB NVLink chunks) and on NCCL's NET
// split of the same host (2 nodes of one GPU, 2 p2p channels, 128 KiB
// chunks, no LL over the network's shared buffers).
func TestP2PPlan(t *testing.T) {
	h200, _ := DefaultLayout(spec.V2_28_9, 1, 2, 24)
	net, _ := DefaultLayout(spec.V2_28_9, 2, 1, 2)
	tests := []struct {
		name      string
		l         *Layout
		f         spec.Func
		bytes     int64
		proto     spec.Proto
		nChannels int   // of the send to the next rank
		chunk     int64 // data bytes per call
	}{
		// nChannelsMin = 32 halved until 2 ranks fit in 32 channels: 16
		{"h200 8 B", h200, spec.SendRecv, 8, spec.LL, 1, 32 << 10},
		{"h200 16 KiB", h200, spec.SendRecv, 16 << 10, spec.LL, 2, 32 << 10},
		// 512 KiB: LL up to 32 × 16 KiB; 16 parts of 32 KiB (at least stepSize/8)
		{"h200 512 KiB", h200, spec.SendRecv, 512 << 10, spec.LL, 16, 32 << 10},
		{"h200 64 MiB", h200, spec.SendRecv, 64 << 20, spec.Simple, 16, 512 << 10},
		// 1 GiB / 16 = 64 MiB parts exceed 32 × 512 KiB: doubled to 32
		{"h200 1 GiB", h200, spec.SendRecv, 1 << 30, spec.Simple, 32, 512 << 10},
		// network: chunk/4 below one step, /2 below 8 steps
		{"net 8 B", net, spec.SendRecv, 8, spec.Simple, 1, 32 << 10},
		{"net 256 KiB", net, spec.SendRecv, 256 << 10, spec.Simple, 2, 64 << 10},
		{"net 4 MiB", net, spec.SendRecv, 4 << 20, spec.Simple, 2, 128 << 10},
		{"net alltoall 1 MiB", net, spec.AllToAll, 2 << 20, spec.Simple, 2, 128 << 10},
	}
	for _, tc := range tests {
		n := tc.l.NRanks()
		op := spec.Op{Func: tc.f, Count: tc.bytes / 4, DataType: spec.Float32}
		if tc.f == spec.AllToAll {
			op.Count /= int64(n)
		}
		s, err := Build(op, Selection{}, tc.l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Proto != tc.proto {
			t.Errorf("%s: protocol %s, want %s", tc.name, s.Proto, tc.proto)
		}
		g := s.gen.(*p2pGen)
		var w *p2pWork
		for _, x := range g.works(0) {
			if x.dir[1].peer == 1 && x.dir[1].bytes > 0 {
				w = &x
			}
		}
		if w == nil {
			t.Fatalf("%s: rank 0 has no send to rank 1", tc.name)
		}
		if w.dir[1].nChannels != tc.nChannels || w.dir[1].chunk != tc.chunk {
			t.Errorf("%s: send on %d channels in %d-byte chunks, want %d and %d", tc.name, w.dir[1].nChannels, w.dir[1].chunk, tc.nChannels, tc.chunk)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestP2PPartsCoverBuffer checks that the parts of every peer transfer
// tile its bytes: each byte of every rank's output is written exactly once.
func TestP2PPartsCoverBuffer(t *testing.T) {
	for _, v := range p2pReleases {
		for _, sh := range algostest.Shapes {
			l, _ := DefaultLayout(v, sh.Nodes, sh.LocalRanks, sh.Channels)
			for _, f := range []spec.Func{spec.SendRecv, spec.AllToAll} {
				for _, count := range []int64{3, 4097, 300000} {
					s, err := Build(spec.Op{Func: f, Count: count, DataType: spec.Int8}, Selection{}, l, Options{})
					if err != nil {
						t.Fatal(err)
					}
					for r := 0; r < s.NRanks; r++ {
						seen := make([]int, s.OutputCount())
						for c := 0; c < s.NChannels; c++ {
							for gr := 0; gr < s.NGroups; gr++ {
								for _, st := range s.Program(r, c, gr) {
									for i := st.Dst.Offset; i < st.Dst.Offset+st.Dst.Count; i++ {
										seen[i]++
									}
								}
							}
						}
						for i, k := range seen {
							if k != 1 {
								t.Fatalf("%s %s %s count %d rank %d: output byte %d written %d times", v, sh.Name, f, count, r, i, k)
							}
						}
					}
				}
			}
		}
	}
}

// TestP2PGroupBuild: a SendRecv or AllToAll issued in a group (nccl-tests
// -m N) runs the group's works of one kernel plan: every pass moves the
// operation's bytes again (so plan 0 of an unbudgeted group sends N times
// what the operation alone sends), the schedule validates, and a pass's
// work never joins a batch that holds its round already, so the works of
// the second pass start new batches.
func TestP2PGroupBuild(t *testing.T) {
	sent := func(s *Schedule) (n int64, slots int) {
		for r := range s.NRanks {
			for c := range s.NChannels {
				for g := range s.NGroups {
					for _, st := range s.Program(r, c, g) {
						if st.Prim == PrimSend {
							n += st.Count
							slots = max(slots, g/2+1)
						}
					}
				}
			}
		}
		return n, slots
	}
	for _, v := range p2pReleases {
		l, err := DefaultLayout(v, 1, 8, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []spec.Func{spec.SendRecv, spec.AllToAll} {
			op := spec.Op{Func: f, Count: 70001, DataType: spec.Float32}
			alone, err := Build(op, Selection{}, l, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := Build(op, Selection{}, l, Options{P2PGroup: &P2PGroup{Ops: 3}})
			if err != nil {
				t.Fatalf("%s %s: %v", v, f, err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("%s %s -m 3: %v", v, f, err)
			}
			a, aslots := sent(alone)
			g, gslots := sent(s)
			if g != 3*a || gslots != aslots {
				t.Errorf("%s %s -m 3: %d elements sent on %d slots, want %d on %d", v, f, g, gslots, 3*a, aslots)
			}
			if _, err := Build(op, Selection{}, l, Options{P2PGroup: &P2PGroup{Ops: 0}}); err == nil {
				t.Errorf("%s %s: a group of 0 operations built", v, f)
			}
		}
	}
}

// TestP2PEmpty: an empty send or receive is a task all the same
// (p2pTaskAppend; only collectives are discarded when empty), so a
// SendRecv or AllToAll of 0 bytes runs a kernel whose works each move one
// empty step (runSend/runRecv's loop runs once) on one channel: every
// rank sends and receives exactly once per peer, nothing of the buffers.
func TestP2PEmpty(t *testing.T) {
	for _, v := range p2pReleases {
		l, err := DefaultLayout(v, 1, 4, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []spec.Func{spec.SendRecv, spec.AllToAll} {
			s, err := Build(spec.Op{Func: f, Count: 0, DataType: spec.Float32}, Selection{}, l, Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", v, f, err)
			}
			if s.NChannels == 0 {
				t.Fatalf("%s %s: an empty schedule: NCCL launches a kernel for empty sends and receives", v, f)
			}
			peers := 1
			if f == spec.AllToAll {
				peers = l.NRanks() - 1
			}
			for r := range l.NRanks() {
				sends, recvs := 0, 0
				for ch := range s.NChannels {
					for g := range s.NGroups {
						for _, st := range s.AppendProgram(nil, r, ch, g) {
							if st.Count != 0 {
								t.Fatalf("%s %s rank %d: a step of %d elements", v, f, r, st.Count)
							}
							switch st.Prim {
							case PrimSend:
								sends++
							case PrimRecv:
								recvs++
							}
						}
					}
				}
				if sends != peers || recvs != peers {
					t.Errorf("%s %s rank %d: %d empty sends and %d receives, want %d each", v, f, r, sends, recvs, peers)
				}
			}
		}
		// one rank: its empty work to itself is one empty copy
		one, err := DefaultLayout(v, 1, 1, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []spec.Func{spec.SendRecv, spec.AllToAll} {
			s, err := Build(spec.Op{Func: f, Count: 0, DataType: spec.Float32}, Selection{}, one, Options{})
			if err != nil {
				t.Fatalf("%s %s one rank: %v", v, f, err)
			}
			copies := 0
			for ch := range s.NChannels {
				for g := range s.NGroups {
					for _, st := range s.AppendProgram(nil, 0, ch, g) {
						if st.Prim == PrimCopy && st.Count == 0 {
							copies++
						}
					}
				}
			}
			if copies != 1 {
				t.Errorf("%s %s one rank: %d empty copies, want 1 (an empty program times as nothing launched)", v, f, copies)
			}
		}
	}
}

package tuning

import (
	"math/bits"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func TestU32FP8(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{{0, 0}, {7, 7}, {8, 8}, {9, 9}, {17, 16}, {131072, 131072}, {100000, 98304}, {3 << 20, 3 << 20}} {
		if got := U32FP8(c.in); got != c.want {
			t.Errorf("U32FP8(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestP2PScheduleGroups: 2.28.7 cuts one node of 64 ranks into groups of
// NCCL_P2P_SCHEDULE_GROUP_SIZE (8) whose deltas follow the quadratic
// sequence 0, 1, 3, 6, 2, 7, 5, 4, so rank 0's third group of rounds goes
// to ranks 24..31; 2.28.9 takes the whole node as one group (deltas 0, 1,
// 2, ...). Ref: v2.28.7-1 / v2.28.9-1 src/init.cc ncclP2pSchedule.
func TestP2PScheduleGroups(t *testing.T) {
	for _, tc := range []struct {
		wholeNode bool
		want      int // the peer of round 16
	}{{false, 24}, {true, 16}} {
		p := P2PComm{Rules: P2PRules{RoundSchedule: true, BaseReversed: true, GroupSchedule: true, GroupWholeNode: tc.wholeNode},
			NNodes: 1, LocalRanks: 64, NChannels: 32, NChannelsPerPeer: 32, GroupSize: 8, ChunkSize: 1 << 19, LLStepSize: 1 << 16, LLThreshold: 16384}
		if got := p.Schedule(0)[16].Send; got != tc.want {
			t.Errorf("whole node %v: round 16 sends to %d, want %d", tc.wholeNode, got, tc.want)
		}
	}
}

// TestP2PChannelForPartInverts: ncclP2pChannelToPart undoes
// ncclP2pChannelForPart for every base and part, with and without the
// 2.28.3 reversal.
func TestP2PChannelForPartInverts(t *testing.T) {
	for _, rev := range []bool{false, true} {
		p := P2PComm{Rules: P2PRules{BaseReversed: rev}, NChannels: 16}
		for base := range 16 {
			seen := map[int]bool{}
			for part := range 16 {
				ch := p.ChannelForPart(base, part)
				if seen[ch] || p.PartForChannel(base, ch) != part {
					t.Fatalf("reversed %v base %d part %d: channel %d (seen %v), back to part %d", rev, base, part, ch, seen[ch], p.PartForChannel(base, ch))
				}
				seen[ch] = true
			}
		}
	}
}

// p2pFour is a one-node communicator of 4 ranks on 4 p2p channels, one
// channel a peer: 2.22.3's schedule puts round r (peer delta 0, 1, 3, 2)
// on channel r, one batch a work.
func p2pFour(resume bool) P2PComm {
	return P2PComm{Rules: P2PRules{RoundSchedule: true, ResumeRound: resume}, NNodes: 1, LocalRanks: 4,
		NChannels: 4, NChannelsPerPeer: 1, GroupSize: 8, ChunkSize: 1 << 19, LLStepSize: 1 << 14, LLThreshold: 16384}
}

func allToAll(n int, bytes int64) []P2PTask {
	var out []P2PTask
	for peer := range n {
		out = append(out, P2PTask{Peer: peer, Send: true, Bytes: bytes}, P2PTask{Peer: peer, Bytes: bytes})
	}
	return out
}

// plansByRound is each round's plan of one operation's tasks (its send's).
func plansByRound(tasks []P2PPlaced) []int {
	out := make([]int, 4)
	for _, t := range tasks {
		if t.Dir == "send" {
			out[t.Round] = t.Plan
		}
	}
	return out
}

// TestP2PPlaceGroupBudget: scheduleP2pTasksToPlan tests the budget for
// one more ncclDevWorkP2p and nChannelsMax more batches before each work
// and starts a new plan when it fails (G-SCHED-BUDGET-1, G-SCHED-P2P-1).
// With 192 bytes of arguments and none outside them a work (48 B, one
// 16 B batch) fits three to a plan: k works need 64k bytes. Two AllToAlls
// of 4 ranks are 8 works. Up to 2.29.3 every plan walks the schedule
// from round 0, so the second plan takes the second AllToAll's rounds 0–2
// before the first's round 3; from 2.29.7 the second plan resumes at round
// 3. Ref: v2.29.3-1 / v2.29.7-1 src/enqueue.cc scheduleP2pTasksToPlan,
// ncclLaunchPrepare (p2pRound).
func TestP2PPlaceGroupBudget(t *testing.T) {
	b := &P2PBudget{InArgs: 192, OutArgs: 0, BatchBytes: 16, WorkBytes: 48, MaxBatchBytes: 1024}
	for _, tc := range []struct {
		resume bool
		start  P2PPlanStart
		a, b   []int
		last   int
	}{
		{false, P2PPlanStart{Plan: 0}, []int{0, 0, 0, 2}, []int{1, 1, 1, 2}, 2},
		{true, P2PPlanStart{Plan: 0}, []int{0, 0, 0, 1}, []int{1, 1, 2, 2}, 2},
		// a collective plan holding 64 bytes (one batch, one 48-byte work)
		// takes two works before the next plan
		{true, P2PPlanStart{Plan: 3, Batches: 1, WorkBytes: 48}, []int{3, 3, 4, 4}, []int{4, 5, 5, 5}, 5},
	} {
		p := p2pFour(tc.resume)
		got, last, err := p.PlaceGroup(0, [][]P2PTask{allToAll(4, 1024), allToAll(4, 1024)}, tc.start, b)
		if err != nil {
			t.Fatal(err)
		}
		if a, bb := plansByRound(got[0]), plansByRound(got[1]); !slices.Equal(a, tc.a) || !slices.Equal(bb, tc.b) || last != tc.last {
			t.Errorf("resume %v from %+v: plans by round %v and %v, last %d; want %v and %v, last %d", tc.resume, tc.start, a, bb, last, tc.a, tc.b, tc.last)
		}
	}
	// no budget (2.18.1–2.21.5): every task in the start plan
	p := p2pFour(false)
	got, last, err := p.PlaceGroup(0, [][]P2PTask{allToAll(4, 1024)}, P2PPlanStart{Plan: 7}, nil)
	if err != nil || last != 7 || !slices.Equal(plansByRound(got[0]), []int{7, 7, 7, 7}) {
		t.Errorf("no budget: plans %v, last %d, %v; want all 7", plansByRound(got[0]), last, err)
	}
	// a budget too small for one work in an empty plan is an error
	if _, _, err := p.PlaceGroup(0, [][]P2PTask{allToAll(4, 1024)}, P2PPlanStart{}, &P2PBudget{InArgs: 32, BatchBytes: 16, WorkBytes: 48, MaxBatchBytes: 1024}); err == nil {
		t.Error("a budget of 32 bytes: no error, want ncclLaunchPrepare's endless loop reported")
	}
}

// TestP2PWorkBatches: addWorkBatchToPlan opens a new p2p batch on a
// channel at NCCL_MAX_DEV_WORK_P2P_PER_BATCH works, for a round already
// in it, for another epoch of 8 rounds (2.28.7+) or another pass
// (2.29.2+, unless NCCL_P2P_EPOCH_ENABLE=0), and an extension batch for a
// work more than 63 works past the batch's first. Ref: v2.28.9-1 /
// v2.29.7-1 src/enqueue.cc addWorkBatchToPlan, ncclAddWorkBatchToPlan.
func TestP2PWorkBatches(t *testing.T) {
	type work struct{ ch, round, epoch int }
	seq := func(ch, from, to, epoch int) []work {
		var out []work
		for r := from; r <= to; r++ {
			out = append(out, work{ch, r, epoch})
		}
		return out
	}
	b := &P2PBudget{BatchBytes: 16, WorkBytes: 48, MaxBatchBytes: 1024}
	for _, tc := range []struct {
		name  string
		rules P2PRules
		off   bool
		works []work
		want  int
	}{
		{"nine works, eight a batch", P2PRules{}, false, seq(0, 0, 8, 0), 2},
		{"same round twice", P2PRules{}, false, []work{{0, 1, 0}, {0, 1, 0}}, 2},
		{"rounds 6..8 without epochs", P2PRules{}, false, seq(0, 6, 8, 0), 1},
		{"rounds 6..8, 2.28.7 round epochs", P2PRules{BatchRoundEpoch: true}, false, seq(0, 6, 8, 0), 2},
		{"two passes without epochs", P2PRules{}, false, []work{{0, 1, 1}, {0, 2, 2}}, 1},
		{"two passes, 2.29.2 pass epochs", P2PRules{BatchPassEpoch: true}, false, []work{{0, 1, 1}, {0, 2, 2}}, 2},
		{"two passes, NCCL_P2P_EPOCH_ENABLE=0", P2PRules{BatchPassEpoch: true}, true, []work{{0, 1, 1}, {0, 2, 2}}, 1},
		// channel 0's second work lies 65 works past its first: an
		// extension; channel 1 takes 64 works in 8 batches
		{"extension", P2PRules{}, false, append(append([]work{{0, 0, 0}}, seq(1, 1, 64, 0)...), work{0, 65, 0}), 10},
	} {
		p := P2PComm{Rules: tc.rules, EpochOff: tc.off}
		var f p2pPlanFill
		for _, w := range tc.works {
			f.addBatch(&p, b, w.ch, w.round, w.epoch)
			f.work += b.WorkBytes
		}
		if f.batches != tc.want {
			t.Errorf("%s: %d batches, want %d", tc.name, f.batches, tc.want)
		}
	}
}

// TestPropP2PPlaceGroup: on random communicators, groups of send/recv
// operations and budgets, every task lands in exactly one plan from the
// start plan on, every plan from there holds work, a peer's tasks of one
// direction land in call order (NCCL dequeues them so), every plan keeps
// within its budget (its batches in the arguments, its work with them or
// outside), and a budget large enough for everything leaves every task in
// the start plan, on the channels it gets alone.
func TestPropP2PPlaceGroup(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nNodes := rapid.IntRange(1, 8).Draw(t, "nodes")
		local := rapid.SampledFrom([]int{1, 2, 4, 8}).Draw(t, "local")
		nch := 1 << rapid.IntRange(0, 5).Draw(t, "log2 p2pnChannels")
		per := 1 << rapid.IntRange(0, bits.Len(uint(nch))-1).Draw(t, "log2 perPeer")
		p := P2PComm{Rules: P2PRules{RoundSchedule: true, BaseReversed: rapid.Bool().Draw(t, "reversed"),
			GroupSchedule: rapid.Bool().Draw(t, "groups"), BatchRoundEpoch: rapid.Bool().Draw(t, "round epochs"),
			BatchPassEpoch: rapid.Bool().Draw(t, "pass epochs"), ResumeRound: rapid.Bool().Draw(t, "resume")},
			NNodes: nNodes, LocalRanks: local, NChannels: nch, NChannelsPerPeer: per, GroupSize: 8,
			ChunkSize: 1 << 19, LLStepSize: 1 << 14, LLThreshold: 16384, EpochOff: rapid.Bool().Draw(t, "epoch off")}
		n := p.NRanks()
		nOps := rapid.IntRange(1, 6).Draw(t, "ops")
		ops := make([][]P2PTask, nOps)
		for o := range ops {
			if rapid.Bool().Draw(t, "alltoall") {
				ops[o] = allToAll(n, rapid.Int64Range(0, 1<<24).Draw(t, "bytes"))
				continue
			}
			peer := rapid.IntRange(0, n-1).Draw(t, "peer")
			b := rapid.Int64Range(0, 1<<24).Draw(t, "bytes")
			ops[o] = []P2PTask{{Peer: peer, Send: true, Bytes: b}, {Peer: peer, Bytes: b}}
		}
		b := &P2PBudget{InArgs: rapid.Int64Range(int64(16*per+48), 4064).Draw(t, "in args"), OutArgs: rapid.Int64Range(0, 1<<16).Draw(t, "out args"),
			BatchBytes: 16, WorkBytes: 48, MaxBatchBytes: 1024}
		start := P2PPlanStart{Plan: rapid.IntRange(0, 3).Draw(t, "start plan")}
		if rapid.Bool().Draw(t, "shared") {
			start.Batches = rapid.IntRange(0, int(b.InArgs/16)-per-3).Draw(t, "start batches")
			start.WorkBytes = rapid.Int64Range(0, b.OutArgs).Draw(t, "start work")
		}
		got, last, fills, err := p.placeGroup(0, ops, start, b, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(fills) != last-start.Plan+1 {
			t.Fatalf("%d plan fills for plans %d..%d", len(fills), start.Plan, last)
		}
		used := map[int]bool{}
		type key struct {
			peer int
			send bool
		}
		seen := map[key]int{}
		for o, tasks := range got {
			for i, pl := range tasks {
				if pl.Plan < start.Plan || pl.Plan > last {
					t.Fatalf("op %d task %d in plan %d, outside %d..%d", o, i, pl.Plan, start.Plan, last)
				}
				used[pl.Plan] = true
				k := key{pl.Peer, pl.Dir == "send"}
				if prev, ok := seen[k]; ok && pl.Plan < prev {
					t.Fatalf("op %d task %d (%s %d) in plan %d after an earlier one in plan %d", o, i, pl.Dir, pl.Peer, pl.Plan, prev)
				}
				seen[k] = pl.Plan
			}
		}
		for k, f := range fills {
			if k > 0 && !used[start.Plan+k] {
				t.Fatalf("plan %d holds no task", start.Plan+k)
			}
			if !b.ok(f.batches, f.work) {
				t.Fatalf("plan %d: %d batches and %d work bytes exceed the budget %+v", start.Plan+k, f.batches, f.work, *b)
			}
		}
		big := &P2PBudget{InArgs: 1 << 40, OutArgs: 1 << 40, BatchBytes: 16, WorkBytes: 48, MaxBatchBytes: 1024}
		all, lastBig, err := p.PlaceGroup(0, ops, start, big)
		if err != nil || lastBig != start.Plan {
			t.Fatalf("an unbounded budget: last plan %d, %v; want %d", lastBig, err, start.Plan)
		}
		for o := range all {
			for i := range all[o] {
				a, g := all[o][i], got[o][i]
				if !slices.Equal(a.Channels, g.Channels) || a.Round != g.Round || a.Proto != g.Proto {
					t.Fatalf("op %d task %d: channels %v round %d %s with the budget, %v round %d %s without", o, i, g.Channels, g.Round, g.Proto, a.Channels, a.Round, a.Proto)
				}
			}
		}
	})
}

// TestP2PLegacyLLPerChunk: before 2.22.3 addP2pToPlan takes LL per chunk,
// so a 32 KiB send over PCIe (p2pChunkSize 128 KiB, chunks of at least
// 16 KiB) runs as two LL chunks of 16 KiB, though the task exceeds
// NCCL_P2P_LL_THRESHOLD; 64 KiB is four chunks of 16 KiB, LL too, and a
// 16 KiB chunk floor across nodes before 2.20.3. Ref: v2.21.5-1
// src/enqueue.cc addP2pToPlan, scheduleP2pTasksToPlan, calcP2pChunkSize.
func TestP2PLegacyLLPerChunk(t *testing.T) {
	p := P2PComm{NNodes: 1, LocalRanks: 8, NChannels: 32, NChannelsPerPeer: 4, GroupSize: 8, ChunkSize: 1 << 17, LLStepSize: 1 << 13, LLThreshold: 16384}
	for _, c := range []struct {
		bytes int64
		proto string
		n     int
	}{{16 << 10, "LL", 1}, {32 << 10, "LL", 2}, {64 << 10, "LL", 4}, {1 << 20, "Simple", 4}} {
		all, _, err := p.PlaceGroup(0, [][]P2PTask{{{Peer: 1, Send: true, Bytes: c.bytes}}}, P2PPlanStart{}, nil)
		got := all[0]
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Proto.String() != c.proto || got[0].NChannels != c.n {
			t.Errorf("%d B: %s on %d channels, want %s on %d", c.bytes, got[0].Proto, got[0].NChannels, c.proto, c.n)
		}
	}
}

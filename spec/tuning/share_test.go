package tuning

import (
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestChannelShareBoundsRanges: from 2.22.3 scheduleCollTasksToPlan cuts
// a plan's cost-table tasks of one kind over nChannels[kind] = min(Σ their
// nMaxChannels, comm->nChannels) channels, the cursor bounded by
// comm->nChannels; a task's own nMaxChannels only counts in the sum
// (v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan). On 2 × H200 (24
// channels, NVLS off) under a CUDA graph two 8 MiB AllReduces registered
// over IPC each have nMaxChannels 16 (ncclRegisterCollBuffers: 16 < 24 ≤
// 24), yet share all 24 channels, 2 × 16 MiB of traffic / 24 = 1398101
// bytes each: 0..11 and 11..23. Alone, one runs on 16 (0..15). With a
// small AllReduce beside it, a 64 MiB one spans more channels than its
// own 16.
func TestChannelShareBoundsRanges(t *testing.T) {
	in := tuningH200x2Input()
	in.DirectP2P, in.CuMem = true, true
	m := tuningModel(t, in, nccl.V2_28_9)
	reg := func(bytes int64) Call {
		return Call{Op: opOfBytes(t, nccl.AllReduce, bytes, nccl.Float32), Buffers: nccl.BuffersRegistered, Graph: true}
	}
	for _, tc := range []struct {
		name   string
		ops    []Call
		share  ChannelShare
		ranges [][2]int // nil: checked only against the share
	}{
		{"two 8 MiB", []Call{reg(8 << 20), reg(8 << 20)}, ChannelShare{SumMaxCh: 32, Cap: 24, Channels: 24, TrafficPerChannel: 2 * (16 << 20) / 24}, [][2]int{{0, 11}, {11, 23}}},
		{"one 8 MiB", []Call{reg(8 << 20)}, ChannelShare{SumMaxCh: 16, Cap: 24, Channels: 16, TrafficPerChannel: (16 << 20) / 16}, [][2]int{{0, 15}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ChooseGroup(m, tc.ops)
			if err != nil || g.Err != nil {
				t.Fatal(err, g.Err)
			}
			if len(g.Budget) != 1 || len(g.Budget[0].Shares) != 1 || g.Budget[0].Shares[0] != tc.share {
				t.Fatalf("plans %+v, want one with share %+v", g.Budget, tc.share)
			}
			for i, ch := range g.Ops {
				if ch.Registered != "IPC" || ch.NChannels != 16 {
					t.Errorf("op %d: registered %q nMaxChannels %d, want IPC 16", i, ch.Registered, ch.NChannels)
				}
				if got := [2]int{ch.ChannelLo, ch.ChannelHi}; got != tc.ranges[i] {
					t.Errorf("op %d: channels %d..%d, want %d..%d", i, got[0], got[1], tc.ranges[i][0], tc.ranges[i][1])
				}
			}
		})
	}
	// a 64 MiB task beside a small one: the share is 16 plus the small
	// one's nMaxChannels, and the large task takes nearly all of it
	g, err := ChooseGroup(m, []Call{reg(64 << 20), {Op: opOfBytes(t, nccl.AllReduce, 64<<10, nccl.Float32)}})
	if err != nil || g.Err != nil {
		t.Fatal(err, g.Err)
	}
	big, small := g.Ops[0], g.Ops[1]
	sh := g.Budget[0].Shares[0]
	if big.NChannels != 16 || sh.SumMaxCh != 16+small.NChannels || sh.Channels != min(sh.SumMaxCh, 24) {
		t.Fatalf("64 MiB nMaxChannels %d, 64 KiB %d, share %+v", big.NChannels, small.NChannels, sh)
	}
	if w := big.ChannelHi - big.ChannelLo + 1; w <= big.NChannels || big.ChannelHi >= sh.Channels+1 {
		t.Errorf("64 MiB on channels %d..%d (%d), want more than its nMaxChannels %d within the share of %d", big.ChannelLo, big.ChannelHi, w, big.NChannels, sh.Channels)
	}
}

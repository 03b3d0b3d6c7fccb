package tuning

import (
	"slices"
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// The schedules before 2.22.3, worked by hand from the tags' constants
// (NCCL_LL_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD 64,
// NCCL_LL_MAX_NTHREADS 512, NCCL_AGG_CHANNEL_SIZE 2 MiB,
// NCCL_MIN_CHANNEL_SIZE 512, NCCL_LL_ALIGNMENT_PER_THREAD 8,
// NCCL_BYTES_ALIGNMENT 16).

func tuningScenarioInput(t *testing.T, name string) Input {
	t.Helper()
	for _, s := range tuningScenarios() {
		if s.name == name {
			return s.in
		}
	}
	t.Fatalf("no tuning scenario %q", name)
	return Input{}
}

// legacyWant is one task's channels and threads as the tag computes them.
type legacyWant struct {
	algo      Algo
	proto     Proto
	nc, nt    int
	lo, hi    int
	part      CBDPart // zero: no channel split (2.18/2.19 walk the whole buffer)
	aggregate []int
}

func TestTuningLegacySchedules(t *testing.T) {
	h100x8 := tuningScenarioInput(t, "hgx-h100x8") // 8 ranks, nChannels 24, nvlsChannels 16
	h100x2x8 := tuningScenarioInput(t, "h100-2x8") // 16 ranks on 2 nodes, nChannels 16
	ar := func(count int64) Call { return Call{Op: nccl.Op{Func: AllReduce, Count: count, DataType: Float32}} }
	for _, tc := range []struct {
		name string
		in   Input
		v    nccl.Version
		ops  []Call
		want []legacyWant
	}{
		{
			// getChannnelThreadInfo: Ring/LL threshold 8 × 8 ranks = 64;
			// 4096 < nc·512·64 until nc = 1; nt 512 → 256 → 128 → 64
			// (4096 < 1·64·64 is false), below 3 warps: 96.
			// maxBytesPerChannel = 4096 on min(24, 1) usable channel; the
			// LL grain 8/4 × 96 = 192 floats rounds 1024 up, capped at 1024.
			name: "2.20.3 AllReduce 4 KiB on 8 H100", in: h100x8, v: nccl.V2_20_3,
			ops:  []Call{ar(1024)},
			want: []legacyWant{{algo: Ring, proto: LL, nc: 1, nt: 96, lo: 0, hi: 0, part: CBDPart{Lo: 0, Hi: 0, CountLo: 1024}}},
		},
		{
			// The queue is sorted by count, descending: 3K floats, then 1K;
			// one aggregate of 16 KiB: nc 1, nt 512 → 256 (16384 < 1·256·64
			// is false). Each member: 1 channel; usable min(24, 2) = 2;
			// maxBytesPerChannel 16384/2 = 8192. 3K: channel 0 takes 2048
			// floats (a multiple of the LL grain 8/4 × 256 = 512), channel
			// 1 the other 1024; 1K: channel 0 is full, channel 1 has 4096
			// bytes of room, 1024 floats.
			name: "2.20.3 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_20_3,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: Ring, proto: LL, nc: 1, nt: 256, lo: 1, hi: 1, part: CBDPart{Lo: 1, Hi: 1, CountLo: 1024}, aggregate: []int{0, 1}},
				{algo: Ring, proto: LL, nc: 1, nt: 256, lo: 0, hi: 1, part: CBDPart{Lo: 0, Hi: 1, CountLo: 2048, CountHi: 1024}, aggregate: []int{0, 1}},
			},
		},
		{
			// Tree/LL on two nodes (threshold 8): 4096 < nc·512·8 until
			// nc = 1; 4096 < 1·512·8 is false, so nt stays 512: Tree does
			// not take NCCL_MAX_NTHREADS (640) before 2.22.3.
			name: "2.21.5 Tree AllReduce 4 KiB on 2×8 H100", in: h100x2x8, v: nccl.V2_21_5,
			ops:  []Call{ar(1024)},
			want: []legacyWant{{algo: Tree, proto: LL, nc: 1, nt: 512, lo: 0, hi: 0, part: CBDPart{Lo: 0, Hi: 0, CountLo: 1024}}},
		},
		{
			// A call alone: topoGetAlgoInfo from nChannels 24, as 2.20.3;
			// addCollToPlan puts it on its 1 least loaded channel (0).
			name: "2.19.4 AllReduce 4 KiB on 8 H100", in: h100x8, v: nccl.V2_19_4,
			ops:  []Call{ar(1024)},
			want: []legacyWant{{algo: Ring, proto: LL, nc: 1, nt: 96, lo: 0, hi: 0}},
		},
		{
			// collBytesTotal is 0 (taskAppend adds an unset nBytes), so the
			// 2 MiB × min(16, 8) = 16 MiB per channel halves down to 512.
			// The follower (3K floats, 12288 B) wants min(24, 12288/512) =
			// 24 channels: the aggregate starts its loop at 24 with 1 op per
			// channel (bandwidth × 24/24), 16384 B → Ring/LL nc 1, nt 256.
			// Members: ceil(4096/512) = 8 and ceil(12288/512) = 24 channels,
			// the least loaded: 0..7, then all 24.
			name: "2.19.4 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_19_4,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: Ring, proto: LL, nc: 8, nt: 256, lo: 0, hi: 7, aggregate: []int{0, 1}},
				{algo: Ring, proto: LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// 2.18.1 counts the real total, 16384 B: 16 MiB halves while
			// 16384 < bpc·24 and bpc > 512: at 1024 (24576 > 16384) once
			// more, to 512, where the loop stops. Same channels as 2.19.4.
			name: "2.18.1 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_18_1,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: Ring, proto: LL, nc: 8, nt: 256, lo: 0, hi: 7, aggregate: []int{0, 1}},
				{algo: Ring, proto: LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// Two AllReduce of 16 MiB: 2.18.1's total of 32 MiB stops the
			// halving at 1 MiB (1 MiB × 24 ≤ 32 MiB), so the follower wants
			// 16 channels: the aggregate starts at 16 (Simple: 544
			// threads) and each member runs on 16 — the first on 0..15,
			// the second on the 8 empty channels 16..23 and 8..15.
			name: "2.18.1 group of AllReduce 16 MiB twice on 8 H100", in: h100x8, v: nccl.V2_18_1,
			ops: []Call{ar(4 << 20), ar(4 << 20)},
			want: []legacyWant{
				{algo: Ring, proto: Simple, nc: 16, nt: 544, lo: 0, hi: 15, aggregate: []int{0, 1}},
				{algo: Ring, proto: Simple, nc: 16, nt: 544, lo: 8, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// 2.19.4's total is 0: 512 bytes per channel, every member on
			// all 24 channels. (The cost table picks LL128 here, whose 640
			// threads 32 MiB never halves.)
			name: "2.19.4 group of AllReduce 16 MiB twice on 8 H100", in: h100x8, v: nccl.V2_19_4,
			ops: []Call{ar(4 << 20), ar(4 << 20)},
			want: []legacyWant{
				{algo: Ring, proto: LL128, nc: 24, nt: 640, lo: 0, hi: 23, aggregate: []int{0, 1}},
				{algo: Ring, proto: LL128, nc: 24, nt: 640, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tuningModel(t, tc.in, tc.v)
			g, err := ChooseGroup(m, tc.ops)
			if err != nil {
				t.Fatal(err)
			}
			if g.Err != nil {
				t.Fatalf("group error %v", g.Err)
			}
			for i, w := range tc.want {
				c := g.Ops[i]
				got := legacyWant{algo: c.Algo, proto: c.Proto, nc: c.NChannels, nt: c.NThreads, lo: c.ChannelLo, hi: c.ChannelHi, part: c.Part, aggregate: c.Aggregate}
				if got.algo != w.algo || got.proto != w.proto || got.nc != w.nc || got.nt != w.nt || got.lo != w.lo || got.hi != w.hi || got.part != w.part || !slices.Equal(got.aggregate, w.aggregate) {
					t.Errorf("op %d: got %+v, want %+v", i, got, w)
				}
			}
			if len(tc.ops) == 1 {
				one := tuningChoose(t, m, AllReduce, tc.ops[0].Op.Bytes(), Float32)
				if one.NChannels != g.Ops[0].NChannels || one.NThreads != g.Ops[0].NThreads || one.ChannelHi != g.Ops[0].ChannelHi || one.Part != g.Ops[0].Part {
					t.Errorf("ChooseOp %+v differs from the group of one %+v", *one, g.Ops[0])
				}
			}
		})
	}
}

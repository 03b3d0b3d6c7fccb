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
	algo      nccl.Algo
	proto     nccl.Proto
	nc, nt    int
	lo, hi    int
	part      CBDPart // zero: no channel split (2.18/2.19 walk the whole buffer)
	aggregate []int
}

func TestTuningLegacySchedules(t *testing.T) {
	h100x8 := tuningScenarioInput(t, "hgx-h100x8") // 8 ranks, nChannels 24, nvlsChannels 16
	h100x2x8 := tuningScenarioInput(t, "h100-2x8") // 16 ranks on 2 nodes, nChannels 16
	ar := func(count int64) Call {
		return Call{Op: nccl.Op{Func: nccl.AllReduce, Count: count, DataType: nccl.Float32}}
	}
	for _, tc := range []struct {
		name string
		in   Input
		v    nccl.Version
		ops  []Call
		want []legacyWant
		// NCCL_AGG_CHANNEL_SIZE when aggSet
		agg    int64
		aggSet bool
	}{
		{
			// getChannnelThreadInfo: Ring/LL threshold 8 × 8 ranks = 64;
			// 4096 < nc·512·64 until nc = 1; nt 512 → 256 → 128 → 64
			// (4096 < 1·64·64 is false), below 3 warps: 96.
			// maxBytesPerChannel = 4096 on min(24, 1) usable channel; the
			// LL grain 8/4 × 96 = 192 floats rounds 1024 up, capped at 1024.
			name: "2.20.3 AllReduce 4 KiB on 8 H100", in: h100x8, v: nccl.V2_20_3,
			ops:  []Call{ar(1024)},
			want: []legacyWant{{algo: nccl.Ring, proto: nccl.LL, nc: 1, nt: 96, lo: 0, hi: 0, part: CBDPart{Lo: 0, Hi: 0, CountLo: 1024}}},
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
				{algo: nccl.Ring, proto: nccl.LL, nc: 1, nt: 256, lo: 1, hi: 1, part: CBDPart{Lo: 1, Hi: 1, CountLo: 1024}, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL, nc: 1, nt: 256, lo: 0, hi: 1, part: CBDPart{Lo: 0, Hi: 1, CountLo: 2048, CountHi: 1024}, aggregate: []int{0, 1}},
			},
		},
		{
			// Tree/LL on two nodes (threshold 8): 4096 < nc·512·8 until
			// nc = 1; 4096 < 1·512·8 is false, so nt stays 512: Tree does
			// not take NCCL_MAX_NTHREADS (640) before 2.22.3.
			name: "2.21.5 Tree AllReduce 4 KiB on 2×8 H100", in: h100x2x8, v: nccl.V2_21_5,
			ops:  []Call{ar(1024)},
			want: []legacyWant{{algo: nccl.Tree, proto: nccl.LL, nc: 1, nt: 512, lo: 0, hi: 0, part: CBDPart{Lo: 0, Hi: 0, CountLo: 1024}}},
		},
		{
			// A call alone: topoGetAlgoInfo from nChannels 24, as 2.20.3;
			// addCollToPlan puts it on its 1 least loaded channel (0).
			name: "2.19.4 AllReduce 4 KiB on 8 H100", in: h100x8, v: nccl.V2_19_4,
			ops:  []Call{ar(1024)},
			want: []legacyWant{{algo: nccl.Ring, proto: nccl.LL, nc: 1, nt: 96, lo: 0, hi: 0}},
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
				{algo: nccl.Ring, proto: nccl.LL, nc: 8, nt: 256, lo: 0, hi: 7, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// 2.18.1 counts the real total, 16384 B, but comm->channelSize
			// is a size_t: the unset NCCL_AGG_CHANNEL_SIZE (-2) is a user
			// size of 2^64-2, halved to 2^63-1, 2^62-1 … while 16384 <
			// bpc·24 (size_t) and bpc > 512: the loop stops at 511. The
			// follower wants min(24, ceil(12288/511) = 25); the members
			// ceil(4096/511) = 9 and 24 channels.
			name: "2.18.1 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_18_1,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: nccl.Ring, proto: nccl.LL, nc: 9, nt: 256, lo: 0, hi: 8, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// 2.18.3 sums an unset nBytes (0): the halving of 2^64-2 also
			// ends at 511, one byte short of 2.19.4's 512 (9 channels
			// instead of 8).
			name: "2.18.3 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_18_3,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: nccl.Ring, proto: nccl.LL, nc: 9, nt: 256, lo: 0, hi: 8, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// NCCL_AGG_CHANNEL_SIZE=0 is the one 2.18.x value that keeps
			// the defaults (16 MiB halved to 512): 2.19.4's channels.
			name: "2.18.3 NCCL_AGG_CHANNEL_SIZE=0 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_18_3,
			agg: 0, aggSet: true,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: nccl.Ring, proto: nccl.LL, nc: 8, nt: 256, lo: 0, hi: 7, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// 2.19.4: a positive NCCL_AGG_CHANNEL_SIZE is both bytes per
			// channel; 256 is not above 512, so it is not halved: the
			// members want ceil(4096/256) = 16 and min(24, 48) channels.
			name: "2.19.4 NCCL_AGG_CHANNEL_SIZE=256 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_19_4,
			agg: 256, aggSet: true,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: nccl.Ring, proto: nccl.LL, nc: 16, nt: 256, lo: 0, hi: 15, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// 2.19.4's channelSize is signed: -1 keeps the defaults (512).
			name: "2.19.4 NCCL_AGG_CHANNEL_SIZE=-1 group of AllReduce 1K and 3K floats on 8 H100", in: h100x8, v: nccl.V2_19_4,
			agg: -1, aggSet: true,
			ops: []Call{ar(1 << 10), ar(3 << 10)},
			want: []legacyWant{
				{algo: nccl.Ring, proto: nccl.LL, nc: 8, nt: 256, lo: 0, hi: 7, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL, nc: 24, nt: 256, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// Two AllReduce of 16 MiB: 2.18.1's total of 32 MiB stops the
			// halving of 2^64-2 at 2^20-1 ((2^20-1)·24 ≤ 32 MiB), so the
			// follower wants ceil(16 MiB / (2^20-1)) = 17 channels: the
			// aggregate starts at 17 (Simple: 544 threads) and each
			// member runs on 17 — the first on 0..16, the second on the 7
			// empty channels 17..23 and 7..16.
			name: "2.18.1 group of AllReduce 16 MiB twice on 8 H100", in: h100x8, v: nccl.V2_18_1,
			ops: []Call{ar(4 << 20), ar(4 << 20)},
			want: []legacyWant{
				{algo: nccl.Ring, proto: nccl.Simple, nc: 17, nt: 544, lo: 0, hi: 16, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.Simple, nc: 17, nt: 544, lo: 7, hi: 23, aggregate: []int{0, 1}},
			},
		},
		{
			// 2.19.4's total is 0: 512 bytes per channel, every member on
			// all 24 channels. (The cost table picks LL128 here, whose 640
			// threads 32 MiB never halves.)
			name: "2.19.4 group of AllReduce 16 MiB twice on 8 H100", in: h100x8, v: nccl.V2_19_4,
			ops: []Call{ar(4 << 20), ar(4 << 20)},
			want: []legacyWant{
				{algo: nccl.Ring, proto: nccl.LL128, nc: 24, nt: 640, lo: 0, hi: 23, aggregate: []int{0, 1}},
				{algo: nccl.Ring, proto: nccl.LL128, nc: 24, nt: 640, lo: 0, hi: 23, aggregate: []int{0, 1}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			if tc.aggSet {
				in.AggChannelSize = &tc.agg
			}
			m := tuningModel(t, in, tc.v)
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
				one := tuningChoose(t, m, nccl.AllReduce, tc.ops[0].Op.Bytes(), nccl.Float32)
				if one.NChannels != g.Ops[0].NChannels || one.NThreads != g.Ops[0].NThreads || one.ChannelHi != g.Ops[0].ChannelHi || one.Part != g.Ops[0].Part {
					t.Errorf("ChooseOp %+v differs from the group of one %+v", *one, g.Ops[0])
				}
			}
		})
	}
}

// legacyPlanWant is one task's plan and channels in a group that may need
// several kernel plans.
type legacyPlanWant struct {
	plan, nc, lo, hi int
	aggregate        []int
}

func TestTuningLegacyPlans(t *testing.T) {
	h100x8 := tuningScenarioInput(t, "hgx-h100x8") // nChannels 24, MAXCHANNELS 32
	ars := func(n int, count int64) []Call {
		ops := make([]Call, n)
		for i := range ops {
			ops[i] = Call{Op: nccl.Op{Func: nccl.AllReduce, Count: count, DataType: nccl.Float32}}
		}
		return ops
	}
	four := []int{0, 1, 2, 3}
	for _, tc := range []struct {
		name    string
		v       nccl.Version
		depth   int64 // NCCL_WORK_FIFO_DEPTH (0: unset)
		ops     []Call
		plans   int
		want    []legacyPlanWant
		wantErr string
	}{
		{
			// 512 bytes per channel: each 4 KiB member on 8 channels, the
			// least loaded ones; 24 ncclWork structs, the fourth task's
			// elements join the works of channels 0..7 (same kernel and
			// warps, fewer than 9 elements). The default budget is 32768.
			name: "2.19.4 four AllReduce 4 KiB", v: nccl.V2_19_4,
			ops: ars(4, 1024), plans: 1,
			want: []legacyPlanWant{{0, 8, 0, 7, four}, {0, 8, 8, 15, four}, {0, 8, 16, 23, four}, {0, 8, 0, 7, four}},
		},
		{
			// NCCL_WORK_FIFO_DEPTH=32: 16 works per plan. The first two
			// members take 16; the third wants 8 more, so a second plan
			// starts with it. There the byte total has wrapped round
			// (0 minus the first plan's 8 KiB in size_t): no halving, 16
			// MiB per channel, and the rest, aggregated again, run on one
			// channel each.
			name: "2.19.4 four AllReduce 4 KiB, NCCL_WORK_FIFO_DEPTH=32", v: nccl.V2_19_4,
			depth: 32, ops: ars(4, 1024), plans: 2,
			want: []legacyPlanWant{{0, 8, 0, 7, four}, {0, 8, 8, 15, four}, {1, 1, 0, 0, []int{2, 3}}, {1, 1, 1, 1, []int{2, 3}}},
		},
		{
			// not a power of 2: ignored, the default depth stays
			name: "2.19.4 four AllReduce 4 KiB, NCCL_WORK_FIFO_DEPTH=48", v: nccl.V2_19_4,
			depth: 48, ops: ars(4, 1024), plans: 1,
			want: []legacyPlanWant{{0, 8, 0, 7, four}, {0, 8, 8, 15, four}, {0, 8, 16, 23, four}, {0, 8, 0, 7, four}},
		},
		{
			// 4 works per plan: the first task's 8 channels never fit.
			name: "2.19.4 four AllReduce 4 KiB, NCCL_WORK_FIFO_DEPTH=8", v: nccl.V2_19_4,
			depth: 8, ops: ars(4, 1024),
			wantErr: "ncclInvalidUsage: 'NCCL_WORK_FIFO_DEPTH=8' is too small. Minimum value is 64",
		},
		{
			// 2.21.5: 400 × 4 KiB over 24 usable channels, maxBytesPerChannel
			// roundUp16(1638400 / 24) = 68272, the LL grain (8 B × 512
			// threads) a whole task: 17 tasks per channel, two works each
			// (9 + 8 elements). Each task's budget check asks DIVUP(4096 ×
			// 24, total) = 1 channel. With NCCL_WORK_FIFO_DEPTH=64 (32
			// works) the first plan holds 15 channels and 10 tasks of the
			// 16th: 265 tasks of the sorted queue (a later call first, so
			// calls 135..399). The second plan cuts the other 135 (552960
			// B) at 23040 B: 6 tasks per channel, the last (call 0) on
			// channel 22.
			name: "2.21.5 400 AllReduce 4 KiB, NCCL_WORK_FIFO_DEPTH=64", v: nccl.V2_21_5,
			depth: 64, ops: ars(400, 1024), plans: 2,
		},
		{
			// 2.20.3 asks the aggregate's nBytes instead (G-SEL-CHUNK-3):
			// every task DIVUP(1638400 × 24, the plan's total) channels.
			// The first plan takes 69 tasks at 24, until its budget is
			// below 24; as the total shrinks the next plans ask 30, 31,
			// then 32 channels of their 32 works and take 15, 10, then one
			// task each; after ten plans the 299 tasks left ask
			// DIVUP(39321600, 1224704) = 33: nothing fits and NCCL fails
			// the group.
			name: "2.20.3 400 AllReduce 4 KiB, NCCL_WORK_FIFO_DEPTH=64", v: nccl.V2_20_3,
			depth: 64, ops: ars(400, 1024),
			wantErr: "ncclInvalidUsage: 'NCCL_WORK_FIFO_DEPTH=64' is too small. Minimum value is 64",
		},
		{
			// 12 MiB cut at 524288 B: each task wants DIVUP(4 MiB × 24,
			// 12 MiB) = 8 channels; 16 works hold two tasks. The second
			// plan cuts the last 4 MiB over all 24 channels, more than its
			// 16 works: NCCL fails the group.
			name: "2.20.3 three AllReduce 4 MiB, NCCL_WORK_FIFO_DEPTH=32", v: nccl.V2_20_3,
			depth: 32, ops: ars(3, 1<<20),
			wantErr: "ncclInvalidUsage: 'NCCL_WORK_FIFO_DEPTH=32' is too small. Minimum value is 64",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := h100x8
			if tc.depth != 0 {
				in.WorkFifoDepth = &tc.depth
			}
			m := tuningModel(t, in, tc.v)
			g, err := ChooseGroup(m, tc.ops)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantErr != "" {
				if g.Err == nil || g.Err.String() != tc.wantErr {
					t.Fatalf("group error %v, want %q", g.Err, tc.wantErr)
				}
				return
			}
			if g.Err != nil {
				t.Fatalf("group error %v", g.Err)
			}
			if g.Plans != tc.plans {
				t.Errorf("%d plans, want %d", g.Plans, tc.plans)
			}
			for i, w := range tc.want {
				c := g.Ops[i]
				got := legacyPlanWant{c.Plan, c.NChannels, c.ChannelLo, c.ChannelHi, c.Aggregate}
				if got.plan != w.plan || got.nc != w.nc || got.lo != w.lo || got.hi != w.hi || !slices.Equal(got.aggregate, w.aggregate) {
					t.Errorf("op %d: got %+v, want %+v", i, got, w)
				}
			}
			if tc.v == nccl.V2_21_5 {
				for i, c := range g.Ops {
					wantPlan, wantCh := 0, -1
					if i < 135 {
						wantPlan = 1
						if i == 0 {
							wantCh = 22
						}
					}
					if c.Plan != wantPlan || (wantCh >= 0 && (c.ChannelLo != wantCh || c.ChannelHi != wantCh)) {
						t.Errorf("op %d: plan %d channels %d..%d, want plan %d", i, c.Plan, c.ChannelLo, c.ChannelHi, wantPlan)
					}
				}
			}
		})
	}
}

// A group captured into a CUDA graph has a persistent plan, whose budget
// is INT_MAX: NCCL_WORK_FIFO_DEPTH does not split it.
func TestTuningLegacyPersistentPlan(t *testing.T) {
	in := tuningScenarioInput(t, "hgx-h100x8")
	depth := int64(32)
	in.WorkFifoDepth = &depth
	m := tuningModel(t, in, nccl.V2_19_4)
	ops := make([]Call, 4)
	for i := range ops {
		ops[i] = Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 1024, DataType: nccl.Float32}, Graph: true}
	}
	g, err := ChooseGroup(m, ops)
	if err != nil || g.Err != nil {
		t.Fatal(err, g.Err)
	}
	if g.Plans != 1 {
		t.Errorf("%d plans, want 1", g.Plans)
	}
}

// A call alone whose channels do not fit an empty plan fails as the group
// of one does.
func TestTuningLegacyOpFifoTooSmall(t *testing.T) {
	in := tuningScenarioInput(t, "hgx-h100x8")
	depth := int64(8)
	in.WorkFifoDepth = &depth
	for _, v := range []nccl.Version{nccl.V2_19_4, nccl.V2_21_5} {
		m := tuningModel(t, in, v)
		// 64 MiB: every channel, more than the 4 works of the plan
		ch, err := ChooseOp(m, Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 16 << 20, DataType: nccl.Float32}})
		if err != nil {
			t.Fatal(err)
		}
		want := "ncclInvalidUsage: 'NCCL_WORK_FIFO_DEPTH=8' is too small. Minimum value is 64"
		if ch.Err == nil || ch.Err.String() != want {
			t.Errorf("%s: error %v, want %q", v, ch.Err, want)
		}
	}
}

// TestTuningLegacyRegisteredWorks: before 2.22.3 an ncclWork of registered
// elements (ncclWorkTypeRegColl) holds NCCL_MAX_WORK_ELEMENTS_REG (2) of
// them, not NCCL_MAX_WORK_ELEMENTS (9), and never mixes with plain ones
// (v2.19.4-1 src/enqueue.cc appendWorkElemColl; src/include/device.h).
//
// 2.19.4, one node of 8 with 8 NVLS heads, 12 AllReduce of 1 MiB on
// NVLS-registered buffers, NCCL_WORK_FIFO_DEPTH=64 (32 works per plan).
// The byte total is 0 (2.18.3+), so the bytes per channel halve to 512 and
// every member asks for min(2048, nvlsChannels) = 16 channels at the budget
// check; registration then runs it on 4. Members 0..3 open 16 works on
// channels 0..15 (budget 16), members 4..7 join them as second elements,
// member 8 opens 4 more (budget 12) and member 9's 16 do not fit: a second
// plan, whose wrapped byte total leaves 16 MiB per channel. With 9 per
// work every member fits the first plan.
func TestTuningLegacyRegisteredWorks(t *testing.T) {
	nvlsReg := func(n int) []Call {
		ops := make([]Call, n)
		for i := range ops {
			ops[i] = Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 1 << 18, DataType: nccl.Float32}, Buffers: nccl.BuffersRegistered, NVLSOK: true}
		}
		return ops
	}
	group := func(v nccl.Version, n int, regMax int) *GroupChoice {
		in := tuningMultiNodeInput(1, 8)
		in.NVLSHeads = 8
		tuningForceAlgo(&in, nccl.NVLS)
		depth := int64(64)
		in.WorkFifoDepth = &depth
		m := tuningModel(t, in, v)
		if regMax != 0 {
			m.Tuning.MaxWorkElementsReg = regMax
		}
		g, err := ChooseGroup(m, nvlsReg(n))
		if err != nil || g.Err != nil {
			t.Fatal(v, err, g.Err)
		}
		return g
	}
	for _, v := range []nccl.Version{nccl.V2_18_3, nccl.V2_19_4, nccl.V2_20_5, nccl.V2_21_5} {
		if got := tuningRelease(t, v).MaxWorkElementsReg; got != 2 {
			t.Errorf("%s: NCCL_MAX_WORK_ELEMENTS_REG %d, want 2", v, got)
		}
	}
	if got := tuningRelease(t, nccl.V2_22_3).MaxWorkElementsReg; got != 0 {
		t.Errorf("2.22.3: NCCL_MAX_WORK_ELEMENTS_REG %d, want 0 (ncclDevWorkColl batches)", got)
	}

	g := group(nccl.V2_19_4, 12, 0)
	if g.Plans != 2 {
		t.Errorf("2.19.4: %d plans, want 2", g.Plans)
	}
	for i, c := range g.Ops {
		want := legacyPlanWant{plan: 0, nc: 4, lo: 4 * (i % 4), hi: 4*(i%4) + 3}
		if i >= 9 {
			want = legacyPlanWant{plan: 1, nc: 4, lo: 4 * (i - 9), hi: 4*(i-9) + 3}
		}
		if c.Registered != "NVLS" || c.Plan != want.plan || c.NChannels != want.nc || c.ChannelLo != want.lo || c.ChannelHi != want.hi {
			t.Errorf("2.19.4 op %d: %s plan %d, %d channels %d..%d; want NVLS plan %d, %d channels %d..%d",
				i, c.Registered, c.Plan, c.NChannels, c.ChannelLo, c.ChannelHi, want.plan, want.nc, want.lo, want.hi)
		}
	}
	if g := group(nccl.V2_19_4, 12, 9); g.Plans != 1 {
		t.Errorf("2.19.4 with 9 registered elements per work: %d plans, want 1", g.Plans)
	}
	// 2.21.5's cut schedule: 64 members fill one plan at 9 elements per
	// work and need a second at 2.
	if reg, plain := group(nccl.V2_21_5, 64, 0), group(nccl.V2_21_5, 64, 9); reg.Plans != 2 || plain.Plans != 1 {
		t.Errorf("2.21.5 64 registered members: %d plans (2 per work) and %d (9 per work), want 2 and 1", reg.Plans, plain.Plans)
	}
}

// TestLegacyAllGatherQueuedAsBytes: before 2.22.3 ArgsCheck turns an
// AllGather (and a Broadcast) into count × size bytes of ncclInt8 before
// taskAppend queues it, so a group's AllGathers of floats and of bfloat16
// are one aggregate (one function, reduction and datatype); AllReduces of
// the two types stay apart.
func TestLegacyAllGatherQueuedAsBytes(t *testing.T) {
	h100x8 := tuningScenarioInput(t, "hgx-h100x8")
	for _, v := range []nccl.Version{nccl.V2_18_1, nccl.V2_19_4, nccl.V2_20_3, nccl.V2_21_5} {
		m := tuningModel(t, h100x8, v)
		for _, tc := range []struct {
			fn   nccl.Func
			want []int
		}{
			{nccl.AllGather, []int{0, 1}},
			{nccl.Broadcast, []int{0, 1}},
			{nccl.AllReduce, nil},
		} {
			ops := []Call{
				{Op: nccl.Op{Func: tc.fn, Count: 1 << 10, DataType: nccl.Float32}},
				{Op: nccl.Op{Func: tc.fn, Count: 2 << 10, DataType: nccl.Bfloat16}},
			}
			g, err := ChooseGroup(m, ops)
			if err != nil || g.Err != nil {
				t.Fatal(v, tc.fn, err, g.Err)
			}
			for i, c := range g.Ops {
				if !slices.Equal(c.Aggregate, tc.want) {
					t.Errorf("%s %s op %d (%s): aggregate %v, want %v", v, tc.fn, i, ops[i].Op.DataType, c.Aggregate, tc.want)
				}
			}
		}
	}
}

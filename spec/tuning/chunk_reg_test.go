package tuning

import (
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestCollChunkRegistered: calcCollChunking on registered buffers
// (G-SEL-CHUNK-2), the figures worked out from src/enqueue.cc at
// v2.27.3-1 (the NVLS-registered branch) and v2.24.3-1 (the
// network-registered Ring AllGather of one rank per node).
func TestCollChunkRegistered(t *testing.T) {
	const k = 1 << 10
	nvls := ChunkComm{NRanks: 8, NNodes: 1, NVLSHeads: 8, Rules: ChunkRules{NVLSRegStepChunk: true, NetRegRingAllGather: true}}
	oneRPN := ChunkComm{NRanks: 4, NNodes: 4, Rules: nvls.Rules}
	edit := func(c ChunkComm, f func(*ChunkComm)) ChunkComm { f(&c); return c }
	before := func(c *ChunkComm) { c.Rules = ChunkRules{} }
	for _, tc := range []struct {
		name   string
		cc     ChunkComm
		f      nccl.Func
		a      nccl.Algo
		reg    ChunkReg
		nc     int
		nBytes int64
		sizer  ChunkSizer
		want   int64
		tuned  bool
	}{
		// 1 MiB on 16 × 8 ops: unregistered < 2 × ops × 32 KiB → 16 KiB;
		// NVLS-registered AllGather and ReduceScatter keep the 512 KiB
		// Simple step (2.27.3+), AllReduce does not
		{"NVLS AllGather", nvls, nccl.AllGather, nccl.NVLS, ChunkRegNone, 16, 1 << 20, nil, 16 * k, false},
		{"NVLS AllGather registered", nvls, nccl.AllGather, nccl.NVLS, ChunkRegNVLS, 16, 1 << 20, nil, 512 * k, false},
		{"NVLS ReduceScatter registered", nvls, nccl.ReduceScatter, nccl.NVLS, ChunkRegNVLS, 16, 1 << 20, nil, 512 * k, false},
		{"NVLS ReduceScatter registered NCCL_BUFFSIZE", edit(nvls, func(c *ChunkComm) { c.BuffSize[nccl.Simple] = 1 << 20 }), nccl.ReduceScatter, nccl.NVLS, ChunkRegNVLS, 16, 1 << 20, nil, 128 * k, false},
		{"NVLS AllReduce registered", nvls, nccl.AllReduce, nccl.NVLS, ChunkRegNVLS, 16, 1 << 20, nil, 16 * k, false},
		{"NVLS AllGather registered 2.26.6", edit(nvls, before), nccl.AllGather, nccl.NVLS, ChunkRegNVLS, 16, 1 << 20, nil, 16 * k, false},
		// the step is also the tuner's ceiling
		{"NVLS AllGather registered tuner", nvls, nccl.AllGather, nccl.NVLS, ChunkRegNVLS, 16, 1 << 20, fixedSizer(1 << 30), 512 * k, true},
		// Ring AllGather, 4 × 512 KiB steps; network-registered on one
		// rank per node: NCCL_MAX_NET_SIZE, after a tuner's answer
		{"Ring AllGather", oneRPN, nccl.AllGather, nccl.Ring, ChunkRegNone, 1, 1 << 20, nil, 2048 * k, false},
		{"Ring AllGather net-registered", oneRPN, nccl.AllGather, nccl.Ring, ChunkRegNet, 1, 1 << 20, nil, 1 << 30, false},
		{"Ring AllGather net-registered tuner", oneRPN, nccl.AllGather, nccl.Ring, ChunkRegNet, 1, 1 << 20, fixedSizer(64 * k), 1 << 30, false},
		{"Ring AllGather net-registered 2.23.4", edit(oneRPN, before), nccl.AllGather, nccl.Ring, ChunkRegNet, 1, 1 << 20, nil, 2048 * k, false},
		{"Ring AllGather net-registered two per node", edit(oneRPN, func(c *ChunkComm) { c.NRanks = 8 }), nccl.AllGather, nccl.Ring, ChunkRegNet, 1, 1 << 20, nil, 2048 * k, false},
		{"Ring Broadcast net-registered", oneRPN, nccl.Broadcast, nccl.Ring, ChunkRegNet, 1, 1 << 20, nil, 512 * k, false},
		{"Ring AllGather NVLS-registered", oneRPN, nccl.AllGather, nccl.Ring, ChunkRegNVLS, 1, 1 << 20, nil, 2048 * k, false},
	} {
		got, tuned, err := tc.cc.CollChunk(tc.f, tc.a, nccl.Simple, tc.reg, tc.nc, tc.nBytes, tc.sizer)
		if err != nil || tuned != tc.tuned || got != tc.want {
			t.Errorf("%s: chunk %d (tuned %v, %v), want %d (tuned %v)", tc.name, got, tuned, err, tc.want, tc.tuned)
		}
	}
	// the network-registered AllGather moves one step per chunk and per
	// slice (proxyOp, the kernel's ProtoSimple<1, 1>); its tuner ceiling
	// stays the buffer's 4-step chunk
	o, err := oneRPN.TaskChunk(nccl.AllGather, nccl.Ring, nccl.Simple, ChunkRegNet, 1, 1<<20, nil)
	if err != nil || o.Lo != 1<<30 || o.ChunkSteps != 1 || o.SliceSteps != 1 || o.BufferMax != 2048*k {
		t.Errorf("net-registered AllGather: %+v (%v), want chunk 1 GiB, 1/1 steps, ceiling 2 MiB", o, err)
	}
	if o, _ := oneRPN.TaskChunk(nccl.AllGather, nccl.Ring, nccl.Simple, ChunkRegNone, 1, 1<<20, nil); o.ChunkSteps != 4 || o.SliceSteps != 2 {
		t.Errorf("AllGather: %d/%d steps, want 4/2", o.ChunkSteps, o.SliceSteps)
	}
}

// TestTuningLegacyChunkArgs: the one calcCollChunking call a task gets
// before 2.22.3 (G-SEL-CHUNK-3). A group of AllReduce 4 MiB, 64 KiB and
// 64 KiB of floats on two nodes of 8 H100 is one Tree/LL128 aggregate of
// 4325376 bytes. 2.19.4's computeColl sizes a 64 KiB member on its own
// bytes and 16 channels; 2.20.3's computeCollChunkInfo on the aggregate's
// nBytes and DIVUP(aggnBytes × 16 usable, 4325376) = 16 channels; 2.21.5's
// on the aggregate's nBytes and DIVUP(65536 × 16, 4325376) = 1 channel.
// Tree/LL128 (nsteps 2.8, ppn 8): 65536 B halves 576000 to 72000, then
// to 18000 (17280 aligned to 1920); 4325376 B on 16 channels to 72000,
// then 36000 (34560); on 1 channel to 144000, where both loops stop.
func TestTuningLegacyChunkArgs(t *testing.T) {
	in := tuningScenarioInput(t, "h100-2x8")
	ar := func(count int64) Call {
		return Call{Op: nccl.Op{Func: nccl.AllReduce, Count: count, DataType: nccl.Float32}}
	}
	ops := []Call{ar(1 << 20), ar(16 << 10), ar(16 << 10)}
	for _, tc := range []struct {
		v      nccl.Version
		args   ChunkArgs
		chunk  int64
		aggBig int64 // the 4 MiB member's chunk
	}{
		{nccl.V2_19_4, ChunkArgs{NBytes: 65536, NChannels: 16}, 17280, 34560},
		{nccl.V2_20_3, ChunkArgs{NBytes: 4325376, NChannels: 16}, 34560, 34560},
		{nccl.V2_20_5, ChunkArgs{NBytes: 4325376, NChannels: 16}, 34560, 34560},
		{nccl.V2_21_5, ChunkArgs{NBytes: 4325376, NChannels: 1}, 144000, 34560},
	} {
		m := tuningModel(t, in, tc.v)
		g, err := ChooseGroup(m, ops)
		if err != nil || g.Err != nil {
			t.Fatalf("%s: %v %v", tc.v, err, g.Err)
		}
		for i := range g.Ops {
			c := &g.Ops[i]
			if c.Algo != nccl.Tree || c.Proto != nccl.LL128 {
				t.Fatalf("%s op %d: %s/%s, want the Tree/LL128 these figures are worked for", tc.v, i, c.Algo, c.Proto)
			}
			want, wantArgs := tc.chunk, tc.args
			if i == 0 {
				want, wantArgs = tc.aggBig, ChunkArgs{}
			}
			o, err := m.OpChunk(c)
			if err != nil || o.Lo != want || (i > 0 && c.ChunkArgs() != wantArgs) {
				t.Errorf("%s op %d: chunk %d args %+v (%v), want %d %+v", tc.v, i, o.Lo, c.ChunkArgs(), err, want, wantArgs)
			}
		}
	}
}

// TestTuningLegacyAggBytesBudget: 2.20.3–2.20.5 count a task's channels
// for the plan's budget as its aggregate's nBytes, which for an AllGather
// is ×nRanks, over the plan's byte total (count × type size): a lone
// 64 MiB AllGather on 16 ranks and 16 usable channels asks 256 channels.
// With NCCL_WORK_FIFO_DEPTH=256 (128 works per plan) nothing fits and the
// group fails; 2.21.5 asks DIVUP(64 MiB × 16, 64 MiB) = 16.
func TestTuningLegacyAggBytesBudget(t *testing.T) {
	in := tuningScenarioInput(t, "h100-2x8")
	depth := int64(256)
	in.WorkFifoDepth = &depth
	op := Call{Op: nccl.Op{Func: nccl.AllGather, Count: 16 << 20, DataType: nccl.Float32}}
	for _, tc := range []struct {
		v       nccl.Version
		wantErr string
		nc      int
	}{
		{nccl.V2_20_5, "ncclInvalidUsage: 'NCCL_WORK_FIFO_DEPTH=256' is too small. Minimum value is 64", 0},
		{nccl.V2_21_5, "", 16},
	} {
		ch, err := ChooseOp(tuningModel(t, in, tc.v), op)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if ch.Err != nil {
			got = ch.Err.String()
		}
		if got != tc.wantErr || ch.ChunkNChannels != tc.nc {
			t.Errorf("%s: error %q, chunk channels %d; want %q, %d", tc.v, got, ch.ChunkNChannels, tc.wantErr, tc.nc)
		}
	}
}

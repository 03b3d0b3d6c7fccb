package spec

import (
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/tuning"
)

// regOnSharp decides one operation on registered buffers on dgx-h100 × 4
// with SHARP (gpus GPUs per node, copies of GPU 0) with NCCL_ALGO=algo, and
// returns the decision, its tuning choice and its trace.
func regOnSharp(t *testing.T, v Version, gpus int, algo string, f Func, bytes int64) (*Decision, tuning.OpChoice, Trace) {
	t.Helper()
	return regOnSharpBuffers(t, v, gpus, algo, f, bytes, BuffersRegistered)
}

// regOnSharpBuffers is regOnSharp on buffers of the given kind.
func regOnSharpBuffers(t *testing.T, v Version, gpus int, algo string, f Func, bytes int64, buffers Buffers) (*Decision, tuning.OpChoice, Trace) {
	t.Helper()
	return regOnSharpOp(t, v, gpus, algo, GroupOp{Op: Op{Func: f, Count: bytes / 4, DataType: Float32, RedOp: Sum}, Buffers: buffers})
}

// regOnSharpOp is regOnSharp for one group operation as given.
func regOnSharpOp(t *testing.T, v Version, gpus int, algo string, op GroupOp) (*Decision, tuning.OpChoice, Trace) {
	t.Helper()
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: 4, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		g := sys.Nodes[i].GPUs[0]
		sys.Nodes[i].GPUs = nil
		for j := range gpus {
			g.Dev = j
			sys.Nodes[i].GPUs = append(sys.Nodes[i].GPUs, g)
		}
	}
	c, err := Init(MustLoad(v), sys, Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": algo})
	if err != nil || c.Err != nil {
		t.Fatal(err, c.Err)
	}
	g, err := c.SelectGroup([]GroupOp{op}, Launch{})
	if err != nil || g.Err != nil {
		t.Fatal(err, g.Err)
	}
	return g.Ops[0], g.Choices[0], g.Traces[0]
}

// outcomeOf is rule's verdict in tr as it prints ("pass", "skip"), ""
// when the release lacks the rule.
func outcomeOf(tr Trace, rule RuleID) (string, string) {
	if v, ok := tr.Find(rule); ok {
		return v.Outcome.String(), v.Why
	}
	return "", ""
}

// TestRegProxyOp: G-REG-PROXY-1 at each release — the proxy op of a
// CollNet-registered AllReduce of 1 GiB on one rank per node (512 MiB
// pieces 2.21.5–2.23.4, one step from 2.24.3), of a CollNetDirect
// AllGather registered with several ranks per node (its steps kept on one
// head's loop, 2.24.3+), and of a Ring AllGather the network registered on
// one rank per node (NCCL_MAX_NET_SIZE steps, 2.24.3+).
func TestRegProxyOp(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		v          Version
		gpus       int
		algo       string
		f          Func
		bytes      int64
		outcome    string // the rule's verdict; "" where the release lacks it
		reg        string
		nsteps     int64
		fifoSteps  int64 // 0: not checked
		chunk      int64 // 0: not checked
		chunkSteps int
		loopDiv    int64 // the FIFO loop over the proxy's; 0: not checked
	}{
		// one head, one channel: the FIFO would take 1 GiB / 512 KiB =
		// 2048 steps (CollNetChain's 256 KiB chunks: 4096)
		{v: nccl.V2_20_5, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: gib},
		{v: nccl.V2_21_5, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: gib, outcome: "pass", reg: "CollNet", nsteps: 2},
		{v: nccl.V2_22_3, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: gib, outcome: "pass", reg: "CollNet", nsteps: 2, fifoSteps: 2048},
		{v: nccl.V2_23_4, gpus: 1, algo: "CollNetChain", f: AllReduce, bytes: gib, outcome: "pass", reg: "CollNet", nsteps: 2, fifoSteps: 4096},
		{v: nccl.V2_24_3, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: gib, outcome: "pass", reg: "CollNet", nsteps: 1, fifoSteps: 2048},
		{v: nccl.V2_28_9, gpus: 1, algo: "CollNetChain", f: AllReduce, bytes: gib, outcome: "pass", reg: "CollNet", nsteps: 1, fifoSteps: 4096},
		{v: nccl.V2_30_7, gpus: 1, algo: "CollNetDirect", f: AllReduce, bytes: gib, outcome: "pass", reg: "CollNet", nsteps: 1, fifoSteps: 2048},
		// several ranks per node: nothing registered before 2.24.3
		{v: nccl.V2_22_3, gpus: 8, algo: "CollNetDirect", f: AllGather, bytes: 64 << 20, outcome: "skip", nsteps: 128},
		{v: nccl.V2_24_3, gpus: 8, algo: "CollNetDirect", f: AllGather, bytes: 64 << 20, outcome: "pass", reg: "CollNet", nsteps: 128, fifoSteps: 128, loopDiv: 8},
		{v: nccl.V2_28_9, gpus: 8, algo: "CollNetDirect", f: ReduceScatter, bytes: 64 << 20, outcome: "pass", reg: "CollNet", nsteps: 128, fifoSteps: 128, loopDiv: 8},
		{v: nccl.V2_29_2, gpus: 8, algo: "CollNetDirect", f: ReduceScatter, bytes: 64 << 20, outcome: "skip", nsteps: 128},
		{v: nccl.V2_30_7, gpus: 8, algo: "CollNetDirect", f: AllGather, bytes: 64 << 20, outcome: "pass", reg: "CollNet", nsteps: 128, fifoSteps: 128, loopDiv: 8},
		// a Ring AllGather registered with the network on one rank per
		// node: unregistered on 4 channels, 3 steps × 8 loops × 4 steps
		// per 2 MiB chunk = 96; registered on one channel, where the FIFO
		// would take 384, three 1 GiB steps
		{v: nccl.V2_23_4, gpus: 1, algo: "Ring", f: AllGather, bytes: 64 << 20, outcome: "skip", nsteps: 96},
		{v: nccl.V2_24_3, gpus: 1, algo: "Ring", f: AllGather, bytes: 64 << 20, outcome: "pass", reg: "NET", nsteps: 3, fifoSteps: 384, chunk: tuning.MaxNetSize, chunkSteps: 1, loopDiv: -1},
		{v: nccl.V2_28_9, gpus: 1, algo: "Ring", f: AllGather, bytes: 64 << 20, outcome: "pass", reg: "NET", nsteps: 3, fifoSteps: 384, chunk: tuning.MaxNetSize, chunkSteps: 1, loopDiv: -1},
	} {
		d, ch, tr := regOnSharp(t, tc.v, tc.gpus, tc.algo, tc.f, tc.bytes)
		name := tc.v.String() + " " + tc.algo + " " + tc.f.String()
		p := d.Chunk.Proxy
		if got, why := outcomeOf(tr, "G-REG-PROXY-1"); got != tc.outcome {
			t.Errorf("%s gpus %d: G-REG-PROXY-1 %q (%s), want %q", name, tc.gpus, got, why, tc.outcome)
		}
		if p.Reg != (tc.reg != "") || ch.Registered != tc.reg && tc.reg != "" {
			t.Errorf("%s gpus %d: proxy reg %v, registered %q; want %q", name, tc.gpus, p.Reg, ch.Registered, tc.reg)
		}
		if p.NSteps != tc.nsteps {
			t.Errorf("%s gpus %d: proxy nsteps %d, want %d (%+v)", name, tc.gpus, p.NSteps, tc.nsteps, p)
		}
		if tc.fifoSteps != 0 && p.FIFOSteps != tc.fifoSteps {
			t.Errorf("%s gpus %d: unregistered nsteps %d, want %d", name, tc.gpus, p.FIFOSteps, tc.fifoSteps)
		}
		if tc.chunk != 0 && (p.ChunkSize != tc.chunk || p.SliceSize != tc.chunk || p.ChunkSteps != tc.chunkSteps || p.SliceSteps != tc.chunkSteps) {
			t.Errorf("%s gpus %d: proxy chunk %d slice %d steps %d/%d, want %d and %d/%d", name, tc.gpus, p.ChunkSize, p.SliceSize, p.ChunkSteps, p.SliceSteps, tc.chunk, tc.chunkSteps, tc.chunkSteps)
		}
		switch {
		case tc.loopDiv > 0:
			// one head's loop: nChannels × chunk, where the FIFO's is × nHeads
			if want := int64(d.NChannels) * p.ChunkSize; p.LoopSize != want {
				t.Errorf("%s gpus %d: proxy loop %d, want %d channels × chunk %d = %d", name, tc.gpus, p.LoopSize, d.NChannels, p.ChunkSize, want)
			}
		case tc.loopDiv < 0:
			// NCCL_MAX_NET_SIZE chunks: nChannels × nRanks × 1 GiB
			if want := int64(d.NChannels) * 4 * tuning.MaxNetSize; p.LoopSize != want {
				t.Errorf("%s gpus %d: proxy loop %d, want %d", name, tc.gpus, p.LoopSize, want)
			}
		}
		if p.Reg && p.NBytes != globalBytes(tc.f, tc.bytes, 4*tc.gpus) {
			t.Errorf("%s gpus %d: proxy nbytes %d, want the task's %d", name, tc.gpus, p.NBytes, globalBytes(tc.f, tc.bytes, 4*tc.gpus))
		}
	}
}

// globalBytes is calcCollChunking's nBytes of a whole task.
func globalBytes(f Func, bytes int64, nRanks int) int64 {
	if f == AllGather || f == ReduceScatter {
		return bytes * int64(nRanks)
	}
	return bytes
}

// TestRegCollNetRule: G-REG-COLLNET-1's verdict per release, function and
// ranks per node: one rank per node registers from 2.21.5 on one channel;
// several ranks per node register a CollNetDirect AllGather from 2.24.3
// and a ReduceScatter 2.24.3–2.28.9 only, on their unregistered channels;
// an AllReduce never.
func TestRegCollNetRule(t *testing.T) {
	for _, tc := range []struct {
		v       Version
		gpus    int
		f       Func
		outcome string
		nc      int // the channels of a registered task; 0: unchecked
	}{
		{nccl.V2_20_5, 1, AllReduce, "", 0},
		{nccl.V2_21_5, 1, AllReduce, "pass", 1},
		{nccl.V2_28_9, 1, AllReduce, "pass", 1},
		{nccl.V2_23_4, 8, AllGather, "skip", 0},
		{nccl.V2_24_3, 8, AllGather, "pass", 16},
		{nccl.V2_24_3, 8, ReduceScatter, "pass", 16},
		{nccl.V2_24_3, 8, AllReduce, "skip", 0},
		{nccl.V2_28_9, 8, ReduceScatter, "pass", 16},
		{nccl.V2_29_2, 8, AllGather, "pass", 16},
		{nccl.V2_29_2, 8, ReduceScatter, "skip", 0},
		{nccl.V2_30_7, 8, ReduceScatter, "skip", 0},
	} {
		d, ch, tr := regOnSharp(t, tc.v, tc.gpus, "CollNetDirect", tc.f, 64<<20)
		name := tc.v.String() + " " + tc.f.String()
		if got, why := outcomeOf(tr, "G-REG-COLLNET-1"); got != tc.outcome {
			t.Errorf("%s gpus %d: G-REG-COLLNET-1 %q (%s), want %q", name, tc.gpus, got, why, tc.outcome)
		}
		if (ch.Registered == "CollNet") != (tc.outcome == "pass") {
			t.Errorf("%s gpus %d: registered %q", name, tc.gpus, ch.Registered)
		}
		if tc.nc != 0 && d.NChannels != tc.nc {
			t.Errorf("%s gpus %d: %d channels, want %d", name, tc.gpus, d.NChannels, tc.nc)
		}
	}
}

package spec

import (
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// chunkTuner is a declarative tuner library exporting the given ABIs whose
// one rule answers getChunkSize for Ring/Simple AllReduce.
func chunkTuner(abis []int, chunk int64) Library {
	return Library{Path: "/opt/t/libnccl-tuner-chunk.so", InLoaderPath: true, TunerSymbols: abis,
		Tuner: &tuning.TunerBehaviour{Name: "chunk", Rules: []tuning.TunerRule{
			{Func: "AllReduce", Algo: "Ring", Proto: "Simple", ChunkSize: chunk}}}}
}

// TestChunkPerRelease: calcCollChunking's chunk of one operation as the
// decision carries it (G-SEL-CHUNK-1), per release, with the variables
// and the v6 tuner that change it. The figures follow from
// src/enqueue.cc calcCollChunking at each tag: Ring/Simple AllReduce moves
// stepSize × ALLREDUCE_CHUNKSTEPS = 4 MiB / 8 × 4 = 2 MiB; LL half of a
// 64 KiB step; LL128 15/16 of a 600 KiB step (576000 B, a multiple of the
// 1920 B grain); NVLS min(step, nvlsChunkSize) = 128 KiB on a large
// operation.
func TestChunkPerRelease(t *testing.T) {
	const k, m = 1 << 10, 1 << 20
	ring := Env{"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"}
	with := func(e Env, kv ...string) Env {
		out := Env{}
		for n, v := range e {
			out[n] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name   string
		v      Version
		preset string
		nodes  int
		env    Env
		lib    *Library
		bytes  int64
		want   tuning.OpChunk
	}{
		// before 2.22.3 one chunk sized on the whole task serves every channel
		{"Ring/Simple 2.18.1", V2_18_1, "dgx-h100", 1, ring, nil, 1 << 30,
			tuning.OpChunk{Lo: 2 * m, StepSize: 512 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 2 * m}},
		{"Ring/Simple 2.28.9", V2_28_9, "dgx-h100", 1, ring, nil, 1 << 30,
			tuning.OpChunk{Lo: 2 * m, Mid: 2 * m, Hi: 2 * m, StepSize: 512 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 2 * m}},
		{"Ring/Simple NCCL_BUFFSIZE=1MiB 2.28.9", V2_28_9, "dgx-h100", 1, with(ring, "NCCL_BUFFSIZE", "1048576"), nil, 1 << 30,
			tuning.OpChunk{Lo: 512 * k, Mid: 512 * k, Hi: 512 * k, StepSize: 128 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 512 * k}},
		{"Ring/LL 2.30.7", V2_30_7, "dgx-h100", 1, Env{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"}, nil, 1 << 30,
			tuning.OpChunk{Lo: 32 * k, Mid: 32 * k, Hi: 32 * k, StepSize: 64 * k, ChunkSteps: 1, SliceSteps: 1, BufferMax: 32 * k}},
		{"Ring/LL128 2.22.3", V2_22_3, "dgx-h100", 1, Env{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL128"}, nil, 1 << 30,
			tuning.OpChunk{Lo: 576000, Mid: 576000, Hi: 576000, StepSize: 614400, ChunkSteps: 1, SliceSteps: 1, BufferMax: 576000}},
		{"NVLS 2.20.5", V2_20_5, "dgx-h100", 1, Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_CHUNKSIZE": "65536"}, nil, 1 << 30,
			tuning.OpChunk{Lo: 128 * k, StepSize: 512 * k, ChunkSteps: 1, SliceSteps: 1, BufferMax: 512 * k}},
		{"NVLS NCCL_NVLS_CHUNKSIZE 2.21.5", V2_21_5, "dgx-h100", 1, Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_CHUNKSIZE": "65536"}, nil, 1 << 30,
			tuning.OpChunk{Lo: 64 * k, StepSize: 512 * k, ChunkSteps: 1, SliceSteps: 1, BufferMax: 512 * k}},
		{"tuner v6 2.30.7", V2_30_7, "dgx-h100", 1, ring, ptr(chunkTuner([]int{6, 5}, 256*k)), 1 << 30,
			tuning.OpChunk{Lo: 256 * k, Mid: 256 * k, Hi: 256 * k, StepSize: 512 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 2 * m, Tuned: true}},
		// clamped to the buffer's chunk ("exceeds buffer max %d, clamping")
		{"tuner v6 clamped 2.30.3", V2_30_3, "dgx-h100", 1, ring, ptr(chunkTuner([]int{6}, 8*m)), 1 << 30,
			tuning.OpChunk{Lo: 2 * m, Mid: 2 * m, Hi: 2 * m, StepSize: 512 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 2 * m, Tuned: true}},
		// aligned down to the Simple grain (512 B)
		{"tuner v6 aligned 2.30.7", V2_30_7, "dgx-h100", 1, ring, ptr(chunkTuner([]int{6}, 100000)), 1 << 30,
			tuning.OpChunk{Lo: 99840, Mid: 99840, Hi: 99840, StepSize: 512 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 2 * m, Tuned: true}},
		// 2 × 8 ranks: tree depth 8 − 1 + log2(2) = 8; 2.19.4 halves the
		// 512 KiB step while 64 MiB / (nc × chunk) < 64 (then < 32, < 8)
		{"Tree/Simple depth 2.19.4", V2_19_4, "dgx-h100", 2, Env{"NCCL_ALGO": "Tree", "NCCL_PROTO": "Simple"}, nil, 64 << 20,
			tuning.OpChunk{Lo: 128 * k, StepSize: 512 * k, ChunkSteps: 1, SliceSteps: 1, BufferMax: 512 * k}},
		{"Tree/Simple 2.20.3", V2_20_3, "dgx-h100", 2, Env{"NCCL_ALGO": "Tree", "NCCL_PROTO": "Simple"}, nil, 64 << 20,
			tuning.OpChunk{Lo: 512 * k, StepSize: 512 * k, ChunkSteps: 1, SliceSteps: 1, BufferMax: 512 * k}},
		// a v5 tuner is adapted without getChunkSize; 2.29.7 has no hook
		{"tuner v5 2.30.7", V2_30_7, "dgx-h100", 1, ring, ptr(chunkTuner([]int{5}, 256*k)), 1 << 30,
			tuning.OpChunk{Lo: 2 * m, Mid: 2 * m, Hi: 2 * m, StepSize: 512 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 2 * m}},
		{"tuner 2.29.7", V2_29_7, "dgx-h100", 1, ring, ptr(chunkTuner([]int{5}, 256*k)), 1 << 30,
			tuning.OpChunk{Lo: 2 * m, Mid: 2 * m, Hi: 2 * m, StepSize: 512 * k, ChunkSteps: 4, SliceSteps: 2, BufferMax: 2 * m}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sys, err := Preset(tc.preset, PresetOptions{Nodes: tc.nodes})
			if err != nil {
				t.Fatal(err)
			}
			if tc.lib != nil {
				for i := range sys.Nodes {
					sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, *tc.lib)
				}
				tc.env = with(tc.env, "NCCL_TUNER_PLUGIN", "chunk")
			}
			c, err := Init(MustLoad(tc.v), sys, tc.env)
			if err != nil || c.Err != nil {
				t.Fatalf("init: %v %v", err, c.Err)
			}
			op, err := OpFromBytes(AllReduce, tc.bytes, Float32, Sum, 0)
			if err != nil {
				t.Fatal(err)
			}
			d, _, err := c.Select(op)
			if err != nil || d.Err != nil {
				t.Fatalf("select: %v %v", err, d.Err)
			}
			got := d.Chunk
			got.Proxy = tuning.ProxyOp{} // G-REG-PROXY-1's, TestRegProxyOp
			if got != tc.want {
				t.Errorf("%s/%s channels %d..%d: chunk %+v, want %+v", d.Algo, d.Proto, d.ChannelLo, d.ChannelHi, got, tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestChunkTunerRuleChecked: a tuner rule's chunk_size is refused below
// its protocol's grain (NCCL aligns it to 0 and divides by it) and above
// an int.
func TestChunkTunerRuleChecked(t *testing.T) {
	for _, tc := range []struct {
		proto string
		chunk int64
		ok    bool
	}{
		{"Simple", 512, true}, {"Simple", 511, false}, {"LL128", 1919, false}, {"LL128", 1920, true},
		{"LL", 16, true}, {"Simple", -1, false}, {"Simple", tuning.MaxTunerChunkSize + 1, false}, {"Simple", 0, true},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lib := chunkTuner([]int{6}, tc.chunk)
		lib.Tuner.Rules[0].Proto = tc.proto
		sys.Nodes[0].Libs = append(sys.Nodes[0].Libs, lib)
		err = sys.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("%s chunk_size %d: %v, want ok=%v", tc.proto, tc.chunk, err, tc.ok)
		}
	}
}

// TestChunkNotForSidePaths: operations outside the cost table carry no
// chunk.
func TestChunkNotForSidePaths(t *testing.T) {
	c := initPreset(t, V2_28_9, "dgx-h100", 1, nil)
	for _, op := range []Op{{Func: AllReduce, Count: 0, DataType: Float32}} {
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		if d.Chunk.Set() {
			t.Errorf("%v: chunk %s on a discarded operation", op, d.Chunk)
		}
	}
}

package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// nvlsLayout is the layout of a dgx-h100 communicator of nodes nodes.
func nvlsLayout(t *testing.T, v spec.Version, nodes int, env spec.Env) (*spec.Comm, *Layout) {
	t.Helper()
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	comm, err := spec.Init(spec.MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	if !comm.NVLSSupport {
		t.Fatalf("%s dgx-h100×%d: no NVLS", v, nodes)
	}
	l, err := LayoutFromComm(comm)
	if err != nil {
		t.Fatal(err)
	}
	return comm, l
}

// TestNVLSChunkEnv: calcCollChunking's chunk of a large NVLS or NVLSTree
// AllReduce follows NCCL_NVLS_CHUNKSIZE from 2.21.5 (ncclNvlsSetup's
// comm->nvlsChunkSize: NVLS's largest chunk, NVLSTree's first) and
// NCCL_NVLSTREE_MAX_CHUNKSIZE from 2.20.3 (NVLSTree's cap); a release
// before them ignores the variable: its chunk is the one of the unset
// variable.
func TestNVLSChunkEnv(t *testing.T) {
	const k = 1 << 10
	cases := []struct {
		name  string
		algo  spec.Algo
		nodes int
		env   spec.Env
		from  spec.Version // the first release that reads the variable
		want  int64        // the chunk from there on
	}{
		{"NVLS NCCL_NVLS_CHUNKSIZE", spec.NVLS, 1, spec.Env{"NCCL_NVLS_CHUNKSIZE": "65536"}, spec.V2_21_5, 64 * k},
		{"NVLSTree NCCL_NVLS_CHUNKSIZE", spec.NVLSTree, 2, spec.Env{"NCCL_NVLS_CHUNKSIZE": "65536"}, spec.V2_21_5, 64 * k},
		{"NVLSTree NCCL_NVLSTREE_MAX_CHUNKSIZE", spec.NVLSTree, 2, spec.Env{"NCCL_NVLSTREE_MAX_CHUNKSIZE": "32768"}, spec.V2_20_3, 32 * k},
	}
	const nBytes = 1 << 30
	for _, tc := range cases {
		for _, v := range spec.Releases {
			p, err := ParamsFor(v)
			if err != nil {
				t.Fatal(err)
			}
			chunk := func(env spec.Env) int64 {
				comm, l := nvlsLayout(t, v, tc.nodes, env)
				x := &chunkCtx{p: p, l: l, f: spec.AllReduce, algo: tc.algo, proto: spec.Simple, collnetDepth: 2}
				c := x.calcChunk(comm.NVLSChannels, nBytes)
				if x.err != nil {
					t.Fatal(x.err)
				}
				return c
			}
			set, unset := chunk(tc.env), chunk(nil)
			switch {
			case v >= tc.from && set != tc.want:
				t.Errorf("%s %s: chunk %d, want %d", tc.name, v, set, tc.want)
			case v < tc.from && (set != unset || set == tc.want):
				t.Errorf("%s %s: chunk %d with the variable, %d without: the release does not read it", tc.name, v, set, unset)
			}
		}
	}
}

// TestNVLSChunkEnvSchedule: from the communicator to the schedule, a
// 1 GiB NVLS AllReduce on one DGX H100 moves chunks of NCCL_NVLS_CHUNKSIZE
// (64 KiB) instead of the default 128 KiB, from 2.21.5 on; 2.20.5 ignores
// it.
func TestNVLSChunkEnvSchedule(t *testing.T) {
	const k = 1 << 10
	for _, tc := range []struct {
		v    spec.Version
		env  spec.Env
		want int64
	}{
		{spec.V2_20_5, spec.Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_CHUNKSIZE": "65536"}, 128 * k},
		{spec.V2_21_5, spec.Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_CHUNKSIZE": "65536"}, 64 * k},
		{spec.V2_29_7, spec.Env{"NCCL_ALGO": "NVLS"}, 128 * k},
		{spec.V2_29_7, spec.Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_CHUNKSIZE": "65536"}, 64 * k},
		{spec.V2_30_7, spec.Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_CHUNKSIZE": "65536"}, 64 * k},
	} {
		comm, l := nvlsLayout(t, tc.v, 1, tc.env)
		op, _ := spec.OpFromBytes(spec.AllReduce, 1<<30, spec.Float32, spec.Sum, 0)
		d, _, err := comm.Select(op)
		if err != nil || d.Err != nil {
			t.Fatalf("%s: select %v %v", tc.v, err, d.Err)
		}
		o, sel, err := FromDecision(d)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Algo != spec.NVLS {
			t.Fatalf("%s: %s chosen, want NVLS", tc.v, sel.Algo)
		}
		s, err := Build(o, sel, l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var most int64 // the largest message a step moves
		for ch := 0; ch < s.NChannels; ch++ {
			for g := 0; g < s.NGroups; g++ {
				for _, st := range s.Program(0, ch, g) {
					for i := range max(1, len(st.Pieces)) {
						most = max(most, st.messageCount(i)*int64(s.Unit))
					}
				}
			}
		}
		if most != tc.want {
			t.Errorf("%s %v: largest step %d bytes, want %d", tc.v, tc.env, most, tc.want)
		}
	}
}

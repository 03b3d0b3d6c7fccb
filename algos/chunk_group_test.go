package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestScheduleChunksAreSpecsInGroups: the schedule of an operation a group
// plan decided moves the chunks its decision reports, where the group's
// plan or the registration of its buffers changes them: 2.19.4–2.21.5's
// one chunk call on the task or its aggregate (G-SEL-CHUNK-3), an NVLS
// AllGather on NVLS-registered buffers (2.27.3+) and a Ring AllGather
// the network registered on one rank per node (2.24.3+, G-SEL-CHUNK-2).
// want is each operation's chunk in bytes.
func TestScheduleChunksAreSpecsInGroups(t *testing.T) {
	op := func(f spec.Func, bytes int64) spec.Op {
		o, err := spec.OpFromBytes(f, bytes, spec.Float32, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	agg := []spec.GroupOp{{Op: op(spec.AllReduce, 4<<20)}, {Op: op(spec.AllReduce, 64<<10)}, {Op: op(spec.AllReduce, 64<<10)}}
	nvlsAG := []spec.GroupOp{{Op: op(spec.AllGather, 1<<20), Buffers: spec.BuffersRegistered}}
	netAG := []spec.GroupOp{{Op: op(spec.AllGather, 64<<20), Buffers: spec.BuffersRegistered}}
	for _, tc := range []struct {
		name   string
		v      spec.Version
		nodes  int
		oneGPU bool
		env    spec.Env
		ops    []spec.GroupOp
		want   []int64
	}{
		// NVLSTree on two DGX H100: the 64 KiB members' chunk on their own
		// bytes (2.19.4), the aggregate's bytes on 16 channels (2.20.3) or
		// on DIVUP(64 KiB × 16, total) = 1 channel (2.21.5)
		{"aggregate", spec.V2_19_4, 2, false, nil, agg, []int64{32 << 10, 32 << 10, 32 << 10}},
		{"aggregate", spec.V2_20_3, 2, false, nil, agg, []int64{32 << 10, 32 << 10, 32 << 10}},
		{"aggregate", spec.V2_21_5, 2, false, nil, agg, []int64{32 << 10, 128 << 10, 128 << 10}},
		{"NVLS-registered AllGather", spec.V2_26_6, 1, false, spec.Env{"NCCL_ALGO": "NVLS"}, nvlsAG, []int64{32 << 10}},
		{"NVLS-registered AllGather", spec.V2_27_3, 1, false, spec.Env{"NCCL_ALGO": "NVLS"}, nvlsAG, []int64{512 << 10}},
		{"network-registered AllGather", spec.V2_22_3, 2, true, nil, netAG, []int64{2 << 20}},
		{"network-registered AllGather", spec.V2_24_3, 2, true, nil, netAG, []int64{1 << 30}},
		{"network-registered AllGather", spec.V2_30_7, 2, true, nil, netAG, []int64{1 << 30}},
	} {
		name := tc.name + " " + tc.v.String()
		sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: tc.nodes})
		if err != nil {
			t.Fatal(err)
		}
		if tc.oneGPU {
			for i := range sys.Nodes {
				sys.Nodes[i].Reshape(1, 0, 0, 0)
			}
		}
		comm, err := spec.Init(spec.MustLoad(tc.v), sys, tc.env)
		if err != nil || comm.Err != nil {
			t.Fatalf("%s: init: %v %v", name, err, comm.Err)
		}
		l, err := LayoutFromComm(comm)
		if err != nil {
			t.Fatal(err)
		}
		g, err := comm.SelectGroup(tc.ops, spec.Launch{})
		if err != nil || g.Err != nil {
			t.Fatalf("%s: %v %v", name, err, g.Err)
		}
		for i, d := range g.Ops {
			if !d.OK() || d.Chunk.Lo != tc.want[i] {
				t.Errorf("%s op %d: %s/%s decision chunk %s, want %d B", name, i, d.Algo, d.Proto, d.Chunk, tc.want[i])
				continue
			}
			o, sel, err := FromDecision(d)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Build(o, sel, l, Options{})
			if err != nil {
				t.Fatalf("%s op %d: %v", name, i, err)
			}
			if s.SlicePerChunk != d.Chunk.ChunkSteps/d.Chunk.SliceSteps || s.StepPerSlice != d.Chunk.SliceSteps {
				t.Errorf("%s op %d: %d slices of %d steps per chunk, decision %s", name, i, s.SlicePerChunk, s.StepPerSlice, d.Chunk)
			}
			for ch, units := range s.ChunkCounts() {
				if units != 0 && units*int64(s.Unit) != d.Chunk.Lo {
					t.Errorf("%s op %d channel %d: schedule chunk %d B, decision %s", name, i, ch, units*int64(s.Unit), d.Chunk)
				}
			}
		}
	}
}

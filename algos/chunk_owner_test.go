package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestScheduleChunksAreSpecs: the chunks the schedule builders give every
// channel (what the simulator moves) are the ones spec's decision reports
// (tuning's calcCollChunking, one owner): lo, mid and hi per channel part
// from 2.22.3, one chunk sized on the whole task before, one for CollNet
// and NVLS across nodes.
func TestScheduleChunksAreSpecs(t *testing.T) {
	envs := []spec.Env{
		nil,
		{"NCCL_ALGO": "Ring", "NCCL_PROTO": "Simple"},
		{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL128"},
		{"NCCL_ALGO": "Tree", "NCCL_PROTO": "Simple"},
		{"NCCL_ALGO": "Tree", "NCCL_PROTO": "LL128"},
		{"NCCL_ALGO": "NVLS"},
		{"NCCL_ALGO": "NVLSTree"},
		{"NCCL_ALGO": "Ring", "NCCL_BUFFSIZE": "1048576", "NCCL_NVLS_CHUNKSIZE": "65536"},
	}
	checked := 0
	for _, v := range []spec.Version{spec.V2_18_1, spec.V2_19_4, spec.V2_21_5, spec.V2_22_3, spec.V2_28_9, spec.V2_30_7} {
		for _, nodes := range []int{1, 2} {
			for _, env := range envs {
				sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: nodes})
				if err != nil {
					t.Fatal(err)
				}
				comm, err := spec.Init(spec.MustLoad(v), sys, env)
				if err != nil || comm.Err != nil {
					continue // a forced algorithm this communicator lacks
				}
				l, err := LayoutFromComm(comm)
				if err != nil {
					t.Fatalf("%s ×%d %v: %v", v, nodes, env, err)
				}
				for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast} {
					for _, bytes := range []int64{96 << 10, 16 << 20, 1 << 30} {
						op, _ := spec.OpFromBytes(f, bytes, spec.Float32, spec.Sum, 0)
						d, _, err := comm.Select(op)
						if err != nil || !d.OK() || d.P2P != nil || d.Kernel != "" {
							continue
						}
						o, sel, err := FromDecision(d)
						if err != nil {
							t.Fatal(err)
						}
						s, err := Build(o, sel, l, Options{})
						if err != nil {
							continue // a schedule the builders do not model
						}
						if !d.Chunk.Set() {
							t.Errorf("%s ×%d %v %s %d: %s/%s has no chunk in the decision", v, nodes, env, f, bytes, d.Algo, d.Proto)
							continue
						}
						lo, hi := d.ChannelLo, d.ChannelHi
						if d.Part != nil {
							lo, hi = d.Part.Lo, d.Part.Hi
						}
						whole := d.Chunk.Mid == 0 && d.Chunk.Hi == 0
						for ch, units := range s.ChunkCounts() {
							want := int64(0)
							switch {
							case units == 0:
								continue // no work on this channel
							case whole:
								want = d.Chunk.Lo
							case ch == lo:
								want = d.Chunk.Lo
							case ch == hi:
								want = d.Chunk.Hi
							default:
								want = d.Chunk.Mid
							}
							if got := units * int64(s.Unit); got != want {
								t.Errorf("%s ×%d %v %s %d %s/%s channel %d: schedule chunk %d B, decision %s", v, nodes, env, f, bytes, d.Algo, d.Proto, ch, got, d.Chunk)
							}
							checked++
						}
					}
				}
			}
		}
	}
	if checked < 500 {
		t.Errorf("only %d channel chunks compared", checked)
	}
}

package plan

import (
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// TestNVLSTuningSchedule: 2.30.3's ncclNvlsTuning sets the NVLS chunk and
// the NVLSTree chunk cap of an sm100 communicator of several nodes, and
// the NVLSTree schedule of a 256 MiB AllReduce follows them. DGX B200
// nodes (8 GPUs, 48 GB/s NICs behind the GPUs' PCIe switches): two nodes
// keep 32 channels and their cap falls from the 128 KiB chunk (2.29.7
// caps only from 4 nodes) to 64 KiB; four nodes drop to 24 channels and
// keep the 64 KiB chunk of 2.29.7's four-node cap. The simulated time
// moves with the schedule.
// Ref: v2.30.3-1 src/transport/nvls.cc ncclNvlsTuning, ncclNvlsTreeSm100Tuning; src/enqueue.cc calcCollChunking
func TestNVLSTuningSchedule(t *testing.T) {
	type run struct {
		channels int
		chunk    int64 // bytes of the schedule's chunk
		us       float64
	}
	simulate := func(v spec.Version, nodes int) run {
		t.Helper()
		sys, err := spec.Preset("dgx-b200", spec.PresetOptions{Nodes: nodes})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Build(spec.MustLoad(v), sys, spec.Env{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		op := spec.Op{Func: spec.AllReduce, Count: 64 << 20, DataType: spec.Float32, RedOp: spec.Sum}
		sel := algos.Selection{Algo: spec.NVLSTree, Proto: spec.Simple}
		s, err := algos.Build(op, sel, c.Layout, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		chunks := s.ChunkCounts()
		if len(chunks) == 0 {
			t.Fatalf("%s × %d: the NVLSTree schedule has no chunk", v, nodes)
		}
		r, err := c.Simulate(op, sel, c.Config(nil, sel), algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return run{s.NChannels, chunks[0] * int64(s.Unit), r.TimeUs}
	}
	for _, tc := range []struct {
		nodes    int
		old, new run // 2.29.7, 2.30.3 (us: only compared)
	}{
		{2, run{channels: 32, chunk: 128 << 10}, run{channels: 32, chunk: 64 << 10}},
		{4, run{channels: 32, chunk: 64 << 10}, run{channels: 24, chunk: 64 << 10}},
	} {
		old, nw := simulate(spec.V2_29_7, tc.nodes), simulate(spec.V2_30_3, tc.nodes)
		if old.channels != tc.old.channels || old.chunk != tc.old.chunk || nw.channels != tc.new.channels || nw.chunk != tc.new.chunk {
			t.Errorf("dgx-b200 × %d: 2.29.7 %d channels of %d-byte chunks, 2.30.3 %d of %d; want %d of %d, %d of %d",
				tc.nodes, old.channels, old.chunk, nw.channels, nw.chunk, tc.old.channels, tc.old.chunk, tc.new.channels, tc.new.chunk)
		}
		if old.us == nw.us {
			t.Errorf("dgx-b200 × %d: the same simulated time %.1f us at 2.29.7 and 2.30.3, want the schedules' times to differ", tc.nodes, old.us)
		}
		t.Logf("dgx-b200 × %d: 2.29.7 %.1f us, 2.30.3 %.1f us", tc.nodes, old.us, nw.us)
	}
}

package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// The layout of a communicator spec built has its channel count and heads,
// and every algorithm the gates leave schedulable builds on it.
func TestLayoutFromComm(t *testing.T) {
	built := map[string]bool{} // multi-node schedules of NCCL's choice
	for _, c := range []struct {
		preset string
		nodes  int
		sharp  bool
		env    spec.Env
	}{
		{"h200x2", 1, false, spec.Env{"NCCL_NVLS_ENABLE": "0"}},
		{"dgx-h100", 1, false, nil},
		{"dgx-h100", 2, true, spec.Env{"NCCL_COLLNET_ENABLE": "1"}},
		{"dgx-a100", 4, false, spec.Env{"NCCL_MAX_NCHANNELS": "8"}},
		{"v100x4", 1, false, spec.Env{"NCCL_BUFFSIZE": "1048576"}},
		// ncclMaxNchannels raises 0 to 1: the layout reads the count the
		// search made, not a second reading of the variable
		{"dgx-h100", 1, false, spec.Env{"NCCL_MAX_NCHANNELS": "0"}},
	} {
		for _, v := range spec.Releases {
			sys, err := spec.Preset(c.preset, spec.PresetOptions{Nodes: c.nodes, SHARP: c.sharp})
			if err != nil {
				t.Fatal(err)
			}
			comm, err := spec.Init(spec.MustLoad(v), sys, c.env)
			if err != nil {
				t.Fatal(err)
			}
			l, err := LayoutFromComm(comm)
			if err != nil {
				t.Errorf("%s×%d %s: %v", c.preset, c.nodes, v, err)
				continue
			}
			if l.NChannels != comm.NChannels || l.NNodes != comm.NNodes {
				t.Errorf("%s×%d %s: layout %d channels %d nodes, comm %d %d", c.preset, c.nodes, v, l.NChannels, l.NNodes, comm.NChannels, comm.NNodes)
			}
			if comm.NVLSSupport && len(l.NVLSHeads) == 0 {
				t.Errorf("%s×%d %s: NVLS supported but no NVLS heads", c.preset, c.nodes, v)
			}
			if c.env.Get("NCCL_BUFFSIZE") == "1048576" && l.BuffSize[spec.Simple] != 1<<20 {
				t.Errorf("NCCL_BUFFSIZE not applied: %v", l.BuffSize)
			}
			// NCCL's choice for every collective with a schedule, at sizes
			// where NVLS (with SHARP across nodes) and CollNet win
			for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter} {
				for _, size := range []int64{64 << 10, 1 << 20} {
					op, _ := spec.OpFromBytes(f, size, spec.Float32, spec.Sum, 0)
					d, _, err := comm.Select(op)
					if err != nil || d.Err != nil {
						t.Fatalf("%s×%d %s: select %v %v", c.preset, c.nodes, v, err, d.Err)
					}
					o, sel, err := FromDecision(d)
					if err != nil {
						t.Fatal(err)
					}
					s, err := Build(o, sel, l, Options{})
					if err != nil {
						t.Errorf("%s×%d %s: %s %s: %v", c.preset, c.nodes, v, f, sel, err)
						continue
					}
					if err := s.Validate(); err != nil {
						t.Errorf("%s×%d %s: %s %s: %v", c.preset, c.nodes, v, f, sel, err)
					}
					if l.NNodes > 1 {
						built[f.String()+"/"+sel.Algo.String()] = true
					}
				}
			}
		}
	}
	// the SHARP cluster exercises the generators of NVLS across nodes and
	// of CollNetDirect AllGather/ReduceScatter
	for _, k := range []string{"AllReduce/NVLS", "AllGather/CollNetDirect", "ReduceScatter/CollNetDirect"} {
		if !built[k] {
			t.Errorf("no modelled release chose %s on dgx-h100×2 with SHARP (chose %v)", k, built)
		}
	}
}

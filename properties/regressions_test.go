package properties

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// Cases rapid once shrank to a failure, kept as plain tests so that they run
// on every `make test` whatever the random seed. Each names the property it
// broke and what was wrong at the time.
func TestRecordedRegressions(t *testing.T) {
	preset := func(t *testing.T, name string, nodes int) *spec.System {
		sys, err := spec.Preset(name, spec.PresetOptions{Nodes: nodes})
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
	v2223, v2283 := spec.MakeVersion(2, 22, 3), spec.MakeVersion(2, 28, 3)
	cases := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"empty Broadcast is discarded, not undecided (G-SEL-APPEND-1)", func(t *testing.T) {
			checkConsistent(t, Case{Release: v2223, System: preset(t, "dgx-a100", 1), Env: spec.Env{},
				Op: spec.Op{Func: spec.Broadcast, DataType: spec.Int8}})
		}},
		{"an MNNVL rack with one node's NVSwitch gone still initialises", func(t *testing.T) {
			sys := preset(t, "gb200-nvl72", 2)
			sys.Nodes[0].NVSwitch = false
			checkModelAgrees(t, Case{Release: v2223, System: sys, Env: spec.Env{"NCCL_SHM_DISABLE": "1"},
				Op: spec.Op{Func: spec.Broadcast, DataType: spec.Int8}})
		}},
		{"fp8 Reduce below sm90 fails in taskAppend before the cost table (G-SEL-APPEND-1)", func(t *testing.T) {
			checkModelAgrees(t, Case{Release: v2283, System: preset(t, "dgx-a100", 1),
				Env: spec.Env{"NCCL_COLLNET_ENABLE": "0", "NCCL_NVLS_ENABLE": "0"},
				Op:  spec.Op{Func: spec.Reduce, Count: 1, DataType: spec.Float8e4m3}})
		}},
		{"without NICs and with P2P off, SHM joins the host and NVLS may appear", func(t *testing.T) {
			c := Case{Release: v2223, System: preset(t, "dgx-h100", 1),
				Env: spec.Env{"NCCL_COLLNET_ENABLE": "0", "NCCL_P2P_DISABLE": "1"},
				Op:  spec.Op{Func: spec.AllGather, Count: 1 << 20, DataType: spec.Int8}}
			checkRemoval(t, c, removalNamed(t, "no NICs"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.check)
	}
}

package spec

import "testing"

// TestRingBdwKeepsProto: NCCL_ALGO=NVLS with NCCL_PROTO=Simple on four
// V100s (no NVLS). Every AllReduce cell is off, so ncclTopoTuneModel
// restores Ring from ringbdw. 2.22.3 zeroed ringbdw for LL and LL128 with
// the bandwidths they disable, so only Ring/Simple comes back; 2.19.1–2.21.5
// saved ringbdw before and never zero it, so LL, which NCCL_PROTO disabled,
// comes back and wins a small AllReduce.
func TestRingBdwKeepsProto(t *testing.T) {
	sys, err := Preset("v100x4", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    Version
		want string
	}{{V2_19_1, "Ring/LL"}, {V2_20_5, "Ring/LL"}, {V2_21_5, "Ring/LL"}, {V2_22_3, "Ring/Simple"}, {V2_23_4, "Ring/Simple"}} {
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_ALGO": "NVLS", "NCCL_PROTO": "Simple"})
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		op, _ := OpFromBytes(AllReduce, 1024, Float32, Sum, 0)
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Algo.String() + "/" + d.Proto.String(); got != tc.want {
			t.Errorf("%s: 1 KiB AllReduce runs %s, want %s", tc.v, got, tc.want)
		}
		if m := c.Model; m != nil {
			ll := m.Bandwidths[AllReduce][Ring][LL]
			if (ll != 0) != (tc.want == "Ring/LL") {
				t.Errorf("%s: the model's restored Ring/LL bandwidth is %v", tc.v, ll)
			}
		}
	}
}

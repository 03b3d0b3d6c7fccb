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

// TestRingRestoreIsFallback: NCCL_ALGO=NVLS on four V100s (no NVLS)
// leaves every function no cell; 2.19.1–2.23.4 restore Ring
// (G-TUNE-RINGRESTORE-1) and run it, which is not what NCCL_ALGO asked:
// the decision is a fallback. Without NCCL_ALGO, Ring is the cost table's
// own choice; from 2.24.3 the request fails instead.
func TestRingRestoreIsFallback(t *testing.T) {
	sys, err := Preset("v100x4", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v        Version
		env      Env
		fallback bool
		fails    bool
	}{
		{V2_19_1, Env{"NCCL_ALGO": "NVLS"}, true, false},
		{V2_21_5, Env{"NCCL_ALGO": "NVLS"}, true, false},
		{V2_22_3, Env{"NCCL_ALGO": "NVLS"}, true, false},
		{V2_23_4, Env{"NCCL_ALGO": "NVLS"}, true, false},
		{V2_22_3, Env{"NCCL_ALGO": "Ring"}, false, false},
		{V2_22_3, Env{}, false, false},
		{V2_24_3, Env{"NCCL_ALGO": "NVLS"}, false, true},
	} {
		c, err := Init(MustLoad(tc.v), sys, tc.env)
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		for _, coll := range []Func{AllReduce, AllGather, Broadcast} {
			op, _ := OpFromBytes(coll, 1<<20, Float32, Sum, 0)
			d, _, err := c.Select(op)
			if err != nil {
				t.Fatal(err)
			}
			if (d.Err != nil) != tc.fails {
				t.Errorf("%s %v %s: error %v, want failure %v", tc.v, tc.env, coll, d.Err, tc.fails)
				continue
			}
			if d.Fallback != tc.fallback {
				t.Errorf("%s %v %s: ran %s/%s with fallback %v, want %v", tc.v, tc.env, coll, d.Algo, d.Proto, d.Fallback, tc.fallback)
			}
			if tc.fallback && d.Algo != Ring {
				t.Errorf("%s %v %s: ran %s, want the restored Ring", tc.v, tc.env, coll, d.Algo)
			}
		}
	}
}

package params

import "testing"

func TestLoadParam(t *testing.T) {
	cases := []struct {
		value string
		set   bool
		want  int64
		out   ParamOutcome
		log   string
	}{
		{"", false, 20, ParamUnset, ""},
		{"", true, 20, ParamEmpty, ""},
		{"23", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"0x17", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"027", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"23abc", true, 23, ParamSet, "NCCL_IB_TIMEOUT set by environment to 23."},
		{"yes", true, 0, ParamSet, "NCCL_IB_TIMEOUT set by environment to 0."},
		{"99999999999999999999", true, 20, ParamInvalid, "Invalid value 99999999999999999999 for NCCL_IB_TIMEOUT, using default 20."},
	}
	for _, c := range cases {
		v, out, log := LoadParam("NCCL_IB_TIMEOUT", c.value, c.set, 20)
		if v != c.want || out != c.out || log != c.log {
			t.Errorf("LoadParam(%q, %v) = %d, %d, %q; want %d, %d, %q", c.value, c.set, v, out, log, c.want, c.out, c.log)
		}
	}
}

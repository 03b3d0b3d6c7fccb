package spec

import (
	"strings"
	"testing"
)

// TestCheckedTopoOptions: values the topology stage reads are checked
// before NCCL's lenient reading converts them.
func TestCheckedTopoOptions(t *testing.T) {
	for _, tc := range []struct {
		env Env
		err string
	}{
		{Env{}, ""},
		{Env{"NCCL_P2P_LEVEL": "PIX"}, ""},
		{Env{"NCCL_P2P_LEVEL": "3"}, ""},
		{Env{"NCCL_P2P_LEVEL": "3x"}, "expected LOC"},
		{Env{"NCCL_NET_GDR_LEVEL": "bogus"}, "expected LOC"},
		{Env{"NCCL_NETDEVS_POLICY": "MAX:2"}, ""},
		{Env{"NCCL_NETDEVS_POLICY": "MAX:0"}, "MAX:n with n > 0"},
		{Env{"NCCL_MAX_NCHANNELS": "0x10"}, ""},
		{Env{"NCCL_MAX_NCHANNELS": "4M"}, "expected an integer"},
		{Env{"NCCL_ALGO": "Ring"}, "not read by the topology stage"},
	} {
		_, err := CheckedTopoOptions(tc.env)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%v: %v, want %q", tc.env, err, tc.err)
		}
	}
	on, err := CheckedTopoOptions(Env{"NCCL_COLLNET_ENABLE": "1"})
	if err != nil || !on.CollNetEnable {
		t.Errorf("NCCL_COLLNET_ENABLE=1: CollNetEnable %v, %v", on.CollNetEnable, err)
	}
}

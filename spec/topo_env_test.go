package spec

import (
	"fmt"
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

// TestTopoHosts: a preset or XML hosts repeated to the node count, never
// both, within the node limit.
func TestTopoHosts(t *testing.T) {
	read := func(p string) ([]byte, error) { return nil, fmt.Errorf("%s: no such file", p) }
	for _, tc := range []struct {
		preset string
		xml    []string
		nodes  int
		err    string
	}{
		{"h200x2", nil, 3, ""},
		{"h200x2", []string{"a.xml"}, 1, "give one"},
		{"", nil, 1, "no host"},
		{"nope", nil, 1, "unknown system preset \"nope\": expected one of dgx-a100, dgx-b200, dgx-h100, gb200-nvl72, h200x2, hgx-h200, v100x4"},
		{"gb200", nil, 2, ""},       // the topology stage's old name, an alias
		{"GB200-NVL72", nil, 2, ""}, // the name every other command takes
		{"dgx-b200", nil, 1, ""},    // a preset the topology stage lacked
		{"h200x2", nil, 0, "expected 1 to"},
		{"", []string{"a.xml"}, 1, "no such file"},
	} {
		hosts, err := TopoHosts(tc.preset, tc.xml, tc.nodes, read)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q %v %d: %v, want %q", tc.preset, tc.xml, tc.nodes, err, tc.err)
			}
			continue
		}
		if err != nil || len(hosts) != tc.nodes || hosts[0] != hosts[tc.nodes-1] {
			t.Errorf("%q × %d: %d hosts, %v", tc.preset, tc.nodes, len(hosts), err)
		}
	}
}

// TestNChannelsPerNetPeerEnv: NCCL_NCHANNELS_PER_NET_PEER reaches the
// topology stage as written, -1 and 0 included, so each release can give
// them its own meaning (topo's TestChannelCounts has the counts).
func TestNChannelsPerNetPeerEnv(t *testing.T) {
	for _, tc := range []struct {
		env Env
		n   int
		set bool
	}{
		{Env{}, -1, false},
		{Env{"NCCL_NCHANNELS_PER_NET_PEER": "-1"}, -1, true},
		{Env{"NCCL_NCHANNELS_PER_NET_PEER": "0"}, 0, true},
		{Env{"NCCL_NCHANNELS_PER_NET_PEER": "4"}, 4, true},
		{Env{"NCCL_NCHANNELS_PER_NET_PEER": "4294967295"}, -1, true}, // stored in an int
	} {
		o, err := CheckedTopoOptions(tc.env)
		if err != nil || o.NChannelsPerNetPeer != tc.n || o.NChannelsPerNetPeerSet != tc.set {
			t.Errorf("%v: %d set %v (%v), want %d set %v", tc.env, o.NChannelsPerNetPeer, o.NChannelsPerNetPeerSet, err, tc.n, tc.set)
		}
	}
}

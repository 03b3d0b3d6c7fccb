package spec

import (
	"slices"
	"testing"
)

// TestConfigLines (G-ENV-CONFIG-1): parseCommConfig's "Comm config
// <label> set to" lines for the fields a config sets (every release),
// and envConfigOverride's "reset" lines from 2.28.7: without a config
// only for fields whose default is a value; with the names the lines
// print (NCCL_MAX_CGA_CLUSTER_SIZE, NCCL_MAX_P2P_PEERS), not the
// variables NCCL reads.
func TestConfigLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Version
		cfg  string
		env  Env
		want []string
	}{
		{"no config, nothing set", V2_28_9, "", nil, nil},
		{"NCCL_MIN_CTAS without a config resets the default", V2_28_9, "", Env{"NCCL_MIN_CTAS": "4"},
			[]string{"Comm config minCTAs reset to NCCL_MIN_CTAS=4"}},
		{"no reset line before 2.28.7", V2_28_3, "", Env{"NCCL_MIN_CTAS": "4"}, nil},
		{"NCCL_MIN_CTAS=0 is too low: no reset", V2_28_9, "", Env{"NCCL_MIN_CTAS": "0"}, nil},
		{"nvlsCTAs has no default: no line without a config", V2_28_9, "", Env{"NCCL_NVLS_NCHANNELS": "8"}, nil},
		{"nvlsCTAs set and overridden", V2_28_9, "nvlsCTAs=4", Env{"NCCL_NVLS_NCHANNELS": "8"},
			[]string{"Comm config nvlsCTAs set to 4", "Comm config nvlsCTAs reset to NCCL_NVLS_NCHANNELS=8"}},
		{"config set lines at 2.18.1", V2_18_1, "maxCTAs=4,netName=IB", nil,
			[]string{"Comm config Max CTAs set to 4", "Comm config Net name set to IB"}},
		{"netName reset names the config's own value", V2_28_9, "netName=Socket", nil,
			[]string{"Comm config Net name set to Socket", "Comm config netName reset to NCCL_NET=Socket"}},
		{"NCCL_NET over netName", V2_30_7, "netName=Socket", Env{"NCCL_NET": "IB"},
			[]string{"Comm config Net name set to Socket", "Comm config netName reset to NCCL_NET=IB"}},
		{"NCCL_NET without netName: no line", V2_30_7, "", Env{"NCCL_NET": "IB"}, nil},
		{"cgaClusterSize prints NCCL_MAX_CGA_CLUSTER_SIZE", V2_28_9, "", Env{"NCCL_CGA_CLUSTER_SIZE": "2"},
			[]string{"Comm config cgaClusterSize reset to NCCL_MAX_CGA_CLUSTER_SIZE=2"}},
		{"cgaClusterSize too big: no reset", V2_28_9, "", Env{"NCCL_CGA_CLUSTER_SIZE": "9"}, nil},
		{"maxP2pPeers prints NCCL_MAX_P2P_PEERS", V2_30_3, "maxP2pPeers=16", Env{"NCCL_P2P_MAX_PEERS": "64"},
			[]string{"Comm config maxP2pPeers set to 16", "Comm config maxP2pPeers reset to NCCL_MAX_P2P_PEERS=64"}},
		{"graphUsageMode from NCCL_GRAPH_MIXING_SUPPORT", V2_29_2, "", Env{"NCCL_GRAPH_MIXING_SUPPORT": "0"},
			[]string{"Comm config graphUsageMode reset to 0 by NCCL_GRAPH_MIXING_SUPPORT=0"}},
		{"no graphUsageMode before 2.29.2", V2_28_9, "", Env{"NCCL_GRAPH_MIXING_SUPPORT": "0"}, nil},
		{"CTA policy names OR-ed from 2.29.2", V2_29_2, "", Env{"NCCL_CTA_POLICY": "ZERO|EFFICIENCY"},
			[]string{"Comm config CTAPolicy reset to NCCL_CTA_POLICY=3"}},
		{"collnetEnable and the split share in envConfigOverride's order", V2_28_9, "",
			Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_COMM_SPLIT_SHARE_RESOURCES": "1", "NCCL_MAX_CTAS": "16"},
			[]string{"Comm config maxCTAs reset to NCCL_MAX_CTAS=16", "Comm config splitShare reset to NCCL_COMM_SPLIT_SHARE_RESOURCES=1",
				"Comm config collnetEnable reset to NCCL_COLLNET_ENABLE=1"}},
		{"a kept config field prints no reset", V2_28_9, "maxCTAs=4", nil, []string{"Comm config Max CTAs set to 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := initConfig(t, tc.v, "dgx-h100", 1, false, tc.cfg, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := c.Trace.Find("G-ENV-CONFIG-1")
			if !ok {
				t.Fatal("no G-ENV-CONFIG-1 verdict")
			}
			if !slices.Equal(v.Log, tc.want) {
				t.Errorf("lines %q\nwant  %q", v.Log, tc.want)
			}
		})
	}
	if v, ok := ConfigResetVariable("maxP2pPeers"); !ok || v != "NCCL_P2P_MAX_PEERS" {
		t.Errorf("ConfigResetVariable(maxP2pPeers) = %q %v", v, ok)
	}
	if _, ok := ConfigResetVariable("blocking"); ok {
		t.Error("blocking has no reset line")
	}
}

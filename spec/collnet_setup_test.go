package spec

import (
	"strings"
	"testing"
)

// TestCollNetSetupRefused (G-COLLNET-SETUP-1): a CollNet plugin whose
// connect refuses the group makes NCCL WARN and run on the point-to-point
// network, at every release; what the fail path turns off changes at
// 2.27.3 (the config's collnetEnable, which split communicators copy,
// instead of collNetSupport), and the setup lives in src/init.cc up to
// 2.21.5.
func TestCollNetSetupRefused(t *testing.T) {
	for _, tc := range []struct {
		v        Version
		file, fn string
		off      string
	}{
		{V2_18_1, "src/init.cc", "collNetSetup", "comm->collNetSupport = 0"},
		{V2_21_5, "src/init.cc", "collNetSetup", "comm->collNetSupport = 0"},
		{V2_22_3, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->collNetSupport = 0"},
		{V2_26_6, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->collNetSupport = 0"},
		{V2_27_3, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->config.collnetEnable = 0"},
		{V2_30_7, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->config.collnetEnable = 0"},
	} {
		t.Run(tc.v.String(), func(t *testing.T) {
			sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true})
			if err != nil {
				t.Fatal(err)
			}
			withCollNet(sys, func(c *CollNetBackend) { c.ConnectError = "sharp_coll_comm_init failed" })
			c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_COLLNET_ENABLE": "1"})
			if err != nil || c.Err != nil {
				t.Fatal(err, c.Err)
			}
			v, ok := c.Trace.Find("G-COLLNET-SETUP-1")
			if !ok || v.Outcome != Fail {
				t.Fatalf("G-COLLNET-SETUP-1 %v %v, want a failure", v.Outcome, ok)
			}
			if v.Ref.File != tc.file || v.Ref.Func != tc.fn {
				t.Errorf("ref %s %s, want %s %s", v.Ref.File, v.Ref.Func, tc.file, tc.fn)
			}
			off := ""
			for _, f := range v.Facts {
				if f.Name == "fallback" {
					off = f.Value
				}
			}
			if !strings.HasPrefix(off, tc.off) {
				t.Errorf("fallback %q, want %s", off, tc.off)
			}
			if c.CollNetSupport {
				t.Error("CollNet still supported after the refused setup")
			}
		})
	}
}

// withCollNet changes a copy of every node library's CollNet object.
func withCollNet(sys *System, f func(*CollNetBackend)) {
	for i := range sys.Nodes {
		for j := range sys.Nodes[i].Libs {
			if cn := sys.Nodes[i].Libs[j].CollNet; cn != nil {
				c := *cn
				f(&c)
				sys.Nodes[i].Libs[j].CollNet = &c
			}
		}
	}
}

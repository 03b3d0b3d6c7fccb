package whatif

import (
	"strings"
	"testing"
)

// TestAxesApply: flags add to a sweep file's axes and fill the defaults;
// each malformed axis names its flag.
func TestAxesApply(t *testing.T) {
	for _, tc := range []struct {
		name  string
		a     Axes
		base  Sweep
		err   string
		check func(Sweep) bool
	}{
		{"defaults", Axes{SHARP: "off"}, Sweep{}, "", func(s Sweep) bool {
			return len(s.NCCL) == 1 && s.NCCL[0] == "2.28.9" && s.Sizes.From == "4KiB" && s.Sizes.Factor == 4
		}},
		{"range", Axes{SHARP: "both", Systems: []string{"h200x2"}, Nodes: "1,2", Sizes: "1MiB:1GiB:x2"}, Sweep{}, "", func(s Sweep) bool {
			return len(s.Systems) == 1 && len(s.Systems[0].SHARP) == 2 && len(s.Systems[0].Nodes) == 2 && s.Sizes.To == "1GiB" && s.Sizes.Factor == 2
		}},
		{"list", Axes{SHARP: "on", Sizes: "1MiB,1G"}, Sweep{}, "", func(s Sweep) bool { return len(s.Sizes.List) == 2 }},
		{"env into every set", Axes{SHARP: "off", Env: []string{"NCCL_ALGO=Ring"}, EnvSets: []string{"a:", "b:NCCL_PROTO=LL"}}, Sweep{}, "", func(s Sweep) bool {
			return len(s.Env) == 2 && s.Env[0].Vars["NCCL_ALGO"] == "Ring" && s.Env[1].Vars["NCCL_PROTO"] == "LL"
		}},
		{"file colls kept", Axes{SHARP: "off", Colls: "allreduce", FromFile: true}, Sweep{Colls: []string{"allgather"}}, "", func(s Sweep) bool {
			return len(s.Colls) == 1 && s.Colls[0] == "allgather"
		}},
		{"release added", Axes{SHARP: "off", NCCL: []string{"2.22.3"}}, Sweep{NCCL: []string{"2.28.9"}}, "", func(s Sweep) bool { return len(s.NCCL) == 2 }},
		{"sharp", Axes{SHARP: "maybe"}, Sweep{}, "--sharp", nil},
		{"nodes", Axes{SHARP: "off", Nodes: "1,x"}, Sweep{}, "--nodes", nil},
		{"factor", Axes{SHARP: "off", Sizes: "1K:1M:y"}, Sweep{}, "factor", nil},
		{"env-set", Axes{SHARP: "off", EnvSets: []string{"noname"}}, Sweep{}, "--env-set", nil},
	} {
		sw := tc.base
		err := tc.a.Apply(&sw)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || !tc.check(sw) {
			t.Errorf("%s: %+v, %v", tc.name, sw, err)
		}
	}
}

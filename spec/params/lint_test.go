package params

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

func lintOne(t *testing.T, v spec.Version, name, value string, opts Options) Var {
	t.Helper()
	reg, err := Load(v)
	if err != nil {
		t.Fatal(err)
	}
	rep := Lint(reg, []Assignment{{Name: name, Value: value, Source: SourceArgument, Exported: true}}, opts)
	if len(rep.Vars) != 1 {
		t.Fatalf("%d vars", len(rep.Vars))
	}
	return rep.Vars[0]
}

func codes(v Var) []string {
	var c []string
	for _, f := range v.Findings {
		c = append(c, f.Code)
	}
	return c
}

func TestLintValues(t *testing.T) {
	cases := []struct {
		v           spec.Version
		name, value string
		sev         Severity
		code        string // a finding code that must be present ("" none)
		uses        string // prefix of Uses
		nearest     string
	}{
		{spec.V2_28_9, "NCCL_IB_TIMEOUT", "23", SevOK, "", "23", ""},
		{spec.V2_28_9, "NCCL_IB_TIMEOUT", "40", SevError, "out-of-range", "40", ""},
		{spec.V2_28_9, "NCCL_IB_TIMEOUT", "", SevInfo, "empty", "default 20", ""},
		{spec.V2_28_9, "NCCL_BUFFSIZE", "4M", SevWarning, "trailing-garbage", "4", ""},
		{spec.V2_28_9, "NCCL_BUFFSIZE", "99999999999999999999", SevError, "out-of-range", "default -2", ""},
		{spec.V2_28_9, "NCCL_NVLS_ENABLE", "yes", SevError, "not-a-number", "0: NVLS off", ""},
		{spec.V2_28_9, "NCCL_NVLS_ENABLE", "1", SevInfo, "special-value", "1: NVLS forced on", ""},
		{spec.V2_28_9, "NCCL_NVLS_ENABLE", "0x2", SevOK, "", "2: NVLS auto", ""},
		{spec.V2_22_3, "NCCL_COLLNET_ENABLE", "1", SevOK, "", "enabled", ""},
		{spec.V2_22_3, "NCCL_COLLNET_ENABLE", "01", SevWarning, "ignored-value", "disabled", ""},
		{spec.V2_28_9, "NCCL_COLLNET_ENABLE", "01", SevOK, "", "1 (enabled", ""},
		{spec.V2_28_9, "NCCL_COLLNET_ENABLE", "2", SevWarning, "ignored-value", "0 (disabled)", ""},
		{spec.V2_28_9, "NCCL_COLLNET_ENABLE", "4294967297", SevOK, "", "1 (enabled", ""}, // (int) narrowing
		{spec.V2_28_9, "NCCL_BUFFLE_SIZE", "1", SevWarning, "typo", "ignored", "NCCL_BUFFSIZE"},
		{spec.V2_28_9, "NCCL_TIMEOUT", "1", SevWarning, "foreign", "ignored", ""},
		{spec.V2_28_9, "NCCL_VERSION", "1", SevWarning, "foreign", "ignored", ""},
		{spec.V2_28_9, "NCCL_MAX_NRINGS", "8", SevInfo, "deprecated", "8", ""},
		{spec.V2_28_9, "NCCL_IB_GDR_LEVEL", "PHB", SevWarning, "removed", "ignored", "NCCL_NET_GDR_LEVEL"},
		{spec.V2_22_3, "NCCL_PAT_ENABLE", "1", SevWarning, "not-in-release", "ignored", ""},
		{spec.V2_28_9, "nccl_debug", "INFO", SevWarning, "lower-case", "ignored", "NCCL_DEBUG"},
		{spec.V2_28_9, "NCCL_DEBUG", "info", SevOK, "", "INFO", ""},
		{spec.V2_28_9, "NCCL_DEBUG", "verbose", SevWarning, "ignored-value", "ignored", ""},
		{spec.V2_30_7, "NCCL_DEBUG", "verbose", SevWarning, "ignored-value", "default", ""},
		{spec.V2_30_7, "NCCL_DEBUG", "Trace", SevOK, "", "TRACE", ""},
		{spec.V2_28_9, "NCCL_DEBUG_SUBSYS", "^INIT,BOGUS", SevWarning, "ignored-value", "", ""},
		{spec.V2_28_9, "NCCL_P2P_LEVEL", "NVL", SevOK, "", "NVL", ""},
		{spec.V2_28_9, "NCCL_P2P_LEVEL", "nvl", SevWarning, "ignored-value", "ignored", ""},
		{spec.V2_28_9, "NCCL_P2P_LEVEL", "9", SevInfo, "deprecated", "SYS", ""},
		{spec.V2_28_9, "NCCL_P2P_DISABLE", "1", SevOK, "", "1: P2P disabled", ""},
		{spec.V2_28_9, "NCCL_P2P_DISABLE", "2", SevWarning, "ignored-value", "no effect", ""},
		{spec.V2_28_9, "NCCL_NTHREADS", "500", SevWarning, "clamped", "512", ""},
		{spec.V2_28_9, "NCCL_MAX_NCHANNELS", "100", SevWarning, "clamped", "64", ""},
		{spec.V2_22_3, "NCCL_MAX_NCHANNELS", "40", SevWarning, "clamped", "32", ""},
		{spec.V2_28_9, "NCCL_MIN_NCHANNELS", "010", SevWarning, "octal", "8", ""},
		{spec.V2_28_9, "NCCL_ALGO", "Ring, Tree", SevError, "rejected", "", ""},
		{spec.V2_28_9, "NCCL_ALGO", "allreduce:tree;allgather:ring", SevOK, "", "", ""},
		{spec.V2_28_9, "NCCL_ALGO", "tree;ring", SevError, "rejected", "", ""},
		{spec.V2_28_9, "NCCL_ALGO", "foo:ring", SevError, "rejected", "", ""},
		{spec.V2_28_9, "NCCL_ALGO", "^PAT", SevOK, "", "", ""},
		{spec.V2_22_3, "NCCL_ALGO", "PAT", SevWarning, "ignored-value", "", ""},
		{spec.V2_28_9, "NCCL_NET_PLUGIN", "none", SevOK, "", "no external net plugin", ""},
		{spec.V2_22_3, "NCCL_NET_PLUGIN", "none", SevWarning, "ignored-value", "tries", ""},
		{spec.V2_28_9, "NCCL_NET_PLUGIN", "", SevWarning, "special-value", "no external", ""},
		// the profiler's empty value opens the default name (G-PROF-1)
		{spec.V2_28_9, "NCCL_PROFILER_PLUGIN", "", SevOK, "", "libnccl-profiler.so (the default name)", ""},
		{spec.V2_28_9, "NCCL_PROFILER_PLUGIN", "none", SevOK, "", "no external profiler plugin", ""},
		{spec.V2_27_7, "NCCL_PROFILER_PLUGIN", "none", SevWarning, "ignored-value", "tries", ""},
		{spec.V2_30_7, "NCCL_GIN_PLUGIN", "", SevWarning, "special-value", "no external", ""},
		{spec.V2_30_7, "NCCL_RMA_PLUGIN", "none", SevOK, "", "no external rma plugin", ""},
		{spec.V2_28_9, "NCCL_CTA_POLICY", "5", SevWarning, "ignored-value", "0 (DEFAULT)", ""},
		{spec.V2_30_7, "NCCL_CTA_POLICY", "efficiency|ZERO", SevOK, "", "", ""},
		{spec.V2_30_7, "NCCL_CTA_POLICY", "12", SevWarning, "trailing-garbage", "EFFICIENCY", ""},
		{spec.V2_30_7, "NCCL_CHECK_POINTERS", "1", SevInfo, "deprecated", "1", ""},
		{spec.V2_29_3, "NCCL_CHECK_POINTERS", "1", SevOK, "", "1", ""},
	}
	for _, c := range cases {
		t.Run(c.v.String()+"/"+c.name+"="+c.value, func(t *testing.T) {
			v := lintOne(t, c.v, c.name, c.value, Options{})
			sev := SevOK
			for _, f := range v.Findings {
				sev = max(sev, f.Severity)
			}
			if sev != c.sev {
				t.Errorf("severity %s, want %s (findings %+v)", sev, c.sev, v.Findings)
			}
			if c.code != "" && !slices.Contains(codes(v), c.code) {
				t.Errorf("codes %v lack %s", codes(v), c.code)
			}
			if !strings.HasPrefix(v.Uses, c.uses) {
				t.Errorf("uses %q, want prefix %q", v.Uses, c.uses)
			}
			if c.nearest != "" && !slices.ContainsFunc(v.Findings, func(f Finding) bool { return f.Nearest == c.nearest }) {
				t.Errorf("no finding names %s (%+v)", c.nearest, v.Findings)
			}
		})
	}
}

func TestLintEnvironmentSemantics(t *testing.T) {
	reg, _ := Load(spec.V2_28_9)
	as := []Assignment{
		{Name: "NCCL_MAX_NRINGS", Value: "4", Line: 1, Source: SourceExport, Exported: true},
		{Name: "NCCL_MAX_NCHANNELS", Value: "8", Line: 2, Source: SourceExport, Exported: true},
		{Name: "NCCL_DEBUG", Value: "WARN", Line: 3, Source: SourceExport, Exported: true},
		{Name: "NCCL_DEBUG", Value: "INFO", Line: 4, Source: SourceExport, Exported: true},
		{Name: "NCCL_ALGO", Value: "Ring", Line: 5, Source: SourceExport, Exported: true},
		{Name: "NCCL_ALGO", Line: 6, Source: SourceUnset},
		{Name: "NCCL_SOCKET_IFNAME", Value: "eth0", Line: 7, Source: SourceAssignment},
		{Name: "PATH", Value: "/bin", Line: 8, Source: SourceExport, Exported: true},
	}
	rep := Lint(reg, as, Options{})
	byName := map[string]Var{}
	for _, v := range rep.Vars {
		byName[v.Name] = v
	}
	if _, ok := byName["NCCL_ALGO"]; ok {
		t.Error("unset NCCL_ALGO still linted")
	}
	if v := byName["NCCL_MAX_NRINGS"]; !slices.Contains(codes(v), "overridden") {
		t.Errorf("NRINGS with NCHANNELS set: %v", codes(v))
	}
	if v := byName["NCCL_DEBUG"]; v.Value != "INFO" || !slices.Contains(codes(v), "duplicate") {
		t.Errorf("NCCL_DEBUG: %+v", v)
	}
	if v := byName["NCCL_SOCKET_IFNAME"]; !slices.Contains(codes(v), "not-exported") {
		t.Errorf("plain assignment: %v", codes(v))
	}
	if rep.Ignored != 1 {
		t.Errorf("ignored %d, want 1 (PATH)", rep.Ignored)
	}
}

// TestLintHooks: the grammar and gate-effect hooks are called and their
// answers reported.
func TestLintHooks(t *testing.T) {
	var gramCalls, effCalls int
	opts := Options{
		Grammar: func(v spec.Version, name, value string) error {
			gramCalls++
			if value == "bad" {
				return errors.New("spec parser: bad token")
			}
			return nil
		},
		Effect: func(v spec.Version, env spec.Env, name string) (string, error) {
			effCalls++
			return "G-X-1 pass -> fail without " + name, nil
		},
	}
	v := lintOne(t, spec.V2_28_9, "NCCL_ALGO", "bad", opts)
	if gramCalls != 1 || !slices.Contains(codes(v), "rejected") || !strings.Contains(v.Findings[0].Message, "spec parser") {
		t.Errorf("grammar hook: calls %d, findings %+v", gramCalls, v.Findings)
	}
	v = lintOne(t, spec.V2_28_9, "NCCL_IB_TIMEOUT", "23", opts)
	if effCalls != 1 || v.Effect == "" {
		t.Errorf("effect hook: calls %d, effect %q", effCalls, v.Effect)
	}
}

// TestGatesFor pins the releases a gate link holds for: they come from
// the release's ruleset and table, so a rule the delta adds, replaces or
// removes moves the link with it.
func TestGatesFor(t *testing.T) {
	tests := []struct {
		v    spec.Version
		name string
		want string
	}{
		{spec.V2_18_6, "NCCL_ALGO", "G-SEL-PARSE-1 G-TUNE-EN-1 G-SEL-ERR-1"},
		{spec.V2_19_1, "NCCL_ALGO", "G-SEL-PARSE-1 G-TUNE-EN-1 G-TUNE-RINGRESTORE-1 G-SEL-BACKUP-1"},
		// 2.23.4 still has the Ring backup (its last release)
		{spec.V2_23_4, "NCCL_ALGO", "G-SEL-PARSE-1 G-TUNE-EN-1 G-TUNE-RINGRESTORE-1 G-SEL-BACKUP-1"},
		{spec.V2_24_3, "NCCL_ALGO", "G-SEL-PARSE-2 G-TUNE-EN-1 G-SEL-ERR-1"},
		{spec.V2_28_9, "NCCL_ALGO", "G-SEL-PARSE-2 G-TUNE-EN-1 G-SEL-ERR-1 G-SEL-CTAPOL-1"},
		{spec.V2_18_6, "NCCL_TUNER_PLUGIN", ""},
		{spec.V2_19_1, "NCCL_TUNER_PLUGIN", "G-TUNER-LIB-1 G-TUNER-ABI-1 G-TUNER-INIT-1 G-TUNER-CALL-1"},
		{spec.V2_20_3, "NCCL_MNNVL", "G-MNNVL-1"},
		{spec.V2_21_5, "NCCL_MNNVL", ""},
		{spec.V2_21_5, "NCCL_MNNVL_ENABLE", "G-MNNVL-1"},
		{spec.V2_22_3, "NCCL_PROFILER_PLUGIN", ""},
		{spec.V2_23_4, "NCCL_PROFILER_PLUGIN", "G-PROF-1"},
		{spec.V2_29_3, "NCCL_NO_CACHE", ""},
		{spec.V2_29_7, "NCCL_NO_CACHE", "G-ENV-PARAM-1"},
		{spec.V2_28_9, "NCCL_IB_HCA", "G-NET-IB-1"},
		{spec.V2_19_4, "NCCL_AGG_CHANNEL_SIZE", "G-GROUP-PLAN-1"},
		{spec.V2_20_3, "NCCL_AGG_CHANNEL_SIZE", ""},
		{spec.V2_21_5, "NCCL_WORK_FIFO_DEPTH", "G-GROUP-PLAN-1"},
		{spec.V2_22_3, "NCCL_WORK_FIFO_DEPTH", ""},
		{spec.V2_21_5, "NCCL_WORK_FIFO_BYTES", ""},
		{spec.V2_22_3, "NCCL_WORK_FIFO_BYTES", "G-SCHED-BUDGET-1"},
		{spec.V2_30_7, "NCCL_WORK_ARGS_BYTES", "G-SCHED-BUDGET-1"},
		{spec.V2_26_6, "NCCL_P2P_LEVEL", ""},
		{spec.V2_27_3, "NCCL_P2P_LEVEL", "G-MNNVL-1"},
		{spec.V2_22_3, "NCCL_NVLS_ENABLE", "G-NVLS-ENV-1 G-NVLS-SETUP-1 G-NVLS-EARLY-1"},
		{spec.V2_27_7, "NCCL_SINGLE_PROC_MEM_REG_ENABLE", ""},
		{spec.V2_28_3, "NCCL_SINGLE_PROC_MEM_REG_ENABLE", "G-REG-UB-1"},
		{spec.V2_28_9, "NCCL_NOT_A_VARIABLE", ""},
	}
	for _, tc := range tests {
		reg, err := Load(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, id := range reg.GatesFor(tc.name) {
			got = append(got, string(id))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s at %s: gates %q, want %q", tc.name, tc.v, g, tc.want)
		}
	}
}

// TestCuratedAgainstTables keeps the hand-written layer honest against the
// generated one.
func TestCuratedAgainstTables(t *testing.T) {
	regs := map[spec.Version]*Registry{}
	for _, v := range Versions {
		r, err := Load(v)
		if err != nil {
			t.Fatal(err)
		}
		regs[v] = r
	}
	readAt := func(name string, v spec.Version) bool {
		p, ok := regs[v].Lookup(name)
		return ok && p.Read()
	}
	removed := map[string]bool{"NCCL_CHECKS_DISABLE": true, "NCCL_IB_CUDA_SUPPORT": true, "NCCL_IB_GDR_LEVEL": true,
		"NCCL_LL_THRESHOLD": true, "NCCL_SINGLE_RING_THRESHOLD": true, "NCCL_TREE_THRESHOLD": true}
	for _, d := range Deprecations {
		if d.Ref.Tag == "" || d.Ref.File == "" || d.Note == "" {
			t.Errorf("%s: incomplete entry", d.Name)
		}
		for _, v := range Versions {
			if _, ok := regs[v].deprecation(d.Name); !ok {
				continue
			}
			if removed[d.Name] && readAt(d.Name, v) {
				t.Errorf("%s is said to be removed but %s reads it", d.Name, v)
			}
			if !removed[d.Name] && !readAt(d.Name, v) {
				t.Errorf("%s is said to be still read but %s does not read it", d.Name, v)
			}
		}
		// once a replacement exists the old name stays deprecated: the
		// releases an entry holds for are the newest ones, never a gap
		held := false
		for _, v := range Versions {
			_, ok := regs[v].deprecation(d.Name)
			if held && !ok {
				t.Errorf("%s: deprecated before %s but not at it", d.Name, v)
			}
			held = held || ok
		}
		if !held {
			t.Errorf("%s: deprecated at no release", d.Name)
		}
	}
	for _, f := range Foreigns {
		for _, v := range Versions {
			if _, ok := regs[v].Lookup(f.Name); ok {
				t.Errorf("%s is called foreign but %s's table has it", f.Name, v)
			}
		}
	}
	// every rule some release's ruleset has
	var knownRules []string
	for _, v := range spec.Releases {
		for _, r := range spec.MustLoad(v).Rules() {
			knownRules = append(knownRules, string(r.ID))
		}
	}
	for i, gi := range Gates {
		if i > 0 && Gates[i-1].Name >= gi.Name {
			t.Errorf("Gates not sorted at %s", gi.Name)
		}
		if gi.Ref.Tag == "" || gi.Ref.File == "" || gi.Ref.Func == "" {
			t.Errorf("%s: no Ref", gi.Name)
		}
		anyRead := false
		for _, v := range Versions {
			anyRead = anyRead || readAt(gi.Name, v)
		}
		if !anyRead {
			t.Errorf("%s has gates but no release reads it", gi.Name)
		}
		for _, l := range gi.Gates {
			if !slices.Contains(knownRules, string(l.Rule)) {
				t.Errorf("%s: unknown rule %s", gi.Name, l.Rule)
			}
		}
		// GatesFor answers a link only where the release's ruleset has the
		// rule and the release reads the
		// variable, so a link no release answers is dead
		for _, l := range gi.Gates {
			live := false
			for _, v := range Versions {
				live = live || slices.Contains(regs[v].GatesFor(gi.Name), l.Rule)
			}
			if !live {
				t.Errorf("%s: the link to %s holds at no release (no ruleset has the rule where the variable is read)", gi.Name, l.Rule)
			}
		}
	}
	for name := range valueRules {
		anyRead := false
		for _, v := range Versions {
			anyRead = anyRead || readAt(name, v)
		}
		if !anyRead {
			t.Errorf("value rule for %s, which no release reads", name)
		}
	}
	// enum rules use values the source compares with
	for _, name := range []string{"NCCL_DEBUG", "NCCL_LAUNCH_MODE", "NCCL_SOCKET_FAMILY", "NCCL_IB_ADDR_FAMILY", "NCCL_DEBUG_SUBSYS", "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL"} {
		for _, v := range Versions {
			if p, ok := regs[v].Lookup(name); ok && len(stringValues(p)) == 0 {
				t.Errorf("%s at %s: no compared values in the table for its enum rule", name, v)
			}
		}
	}
}

// FuzzLint: any script and release: no panic, every var has a severity that
// matches its findings, and every finding has a code and a message.
func FuzzLint(f *testing.F) {
	f.Add([]byte("export NCCL_ALGO=\"Ring, Tree\"\nexport NCCL_IB_TIMEOUT=0x17\n"), uint8(2))
	f.Add([]byte("NCCL_COLLNET_ENABLE=true cmd\nexport NCCL_P2P_LEVEL=9\n"), uint8(0))
	f.Add([]byte("export NCCL_CTA_POLICY='1|zero'\nexport NCCL_DEBUG=x\n"), uint8(3))
	regs := make([]*Registry, len(Versions))
	for i, v := range Versions {
		regs[i], _ = Load(v)
	}
	f.Fuzz(func(t *testing.T, script []byte, vi uint8) {
		as, err := ParseScript("f.sh", script)
		if err != nil {
			return
		}
		rep := Lint(regs[int(vi)%len(regs)], as, Options{})
		for _, v := range rep.Vars {
			w := SevOK
			for _, fd := range v.Findings {
				if fd.Code == "" || fd.Message == "" {
					t.Fatalf("empty finding %+v", fd)
				}
				w = max(w, fd.Severity)
			}
			if w != v.Severity || v.Uses == "" {
				t.Fatalf("var %+v", v)
			}
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(spec.V2_28_9); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLintScript(b *testing.B) {
	reg, _ := Load(spec.V2_28_9)
	script := []byte(strings.Repeat("export NCCL_IB_TIMEOUT=23\nexport NCCL_ALGO=\"Ring,Tree\"\nexport NCCL_DEBUG=INFO\nexport NCCL_BUFFSIZE=4M\n", 4))
	for b.Loop() {
		as, err := ParseScript("b.sh", script)
		if err != nil {
			b.Fatal(err)
		}
		Lint(reg, as, Options{})
	}
}

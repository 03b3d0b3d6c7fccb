package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

func runTopoCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestTopoCLI(t *testing.T) {
	dir := t.TempDir()
	code, xml, stderr := runTopoCLI(t, "topo", "dump", "h200x2")
	if code != 0 {
		t.Fatalf("dump: exit %d: %s", code, stderr)
	}
	file := filepath.Join(dir, "h200x2.xml")
	if err := os.WriteFile(file, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	ring := "Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1"
	for _, args := range [][]string{
		{"topo", "search", "--preset", "h200x2", "--set", "NCCL_NVLS_ENABLE=0"},
		{"topo", "search", "--xml", file, "--set", "NCCL_NVLS_ENABLE=0", "--release", "v2.28.9-1"},
	} {
		code, out, stderr := runTopoCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.HasPrefix(out, ring+"\n") || !strings.Contains(out, "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n") {
			t.Errorf("%v:\n%s", args, out)
		}
	}
	code, out, _ := runTopoCLI(t, "topo", "search", "--preset", "h200x2", "--graph-xml")
	if code != 0 || !strings.HasPrefix(out, `<graphs version="1">`) {
		t.Errorf("--graph-xml: exit %d\n%s", code, out)
	}
	gfile := filepath.Join(dir, "graph.xml")
	if err := os.WriteFile(gfile, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runTopoCLI(t, "topo", "search", "--preset", "h200x2", "--graph-file", gfile)
	if code != 0 || !strings.HasPrefix(out, "Search 0 : 12 channels loaded from XML graph\n") {
		t.Errorf("--graph-file: exit %d\n%s", code, out)
	}
	code, out, _ = runTopoCLI(t, "topo", "search", "--preset", "dgx-h100", "--nodes", "2", "--json")
	if code != 0 || !strings.Contains(out, `"n_nodes": 2`) {
		t.Errorf("--json: exit %d", code)
	}
}

func TestTopoCLIBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.xml")
	if err := os.WriteFile(bad, []byte("<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"topo", "dump", "dgx-z"}, `unknown system preset "dgx-z"`},
		{[]string{"topo", "search", "--system", "gb2000"}, "expected one of " + strings.Join(spec.PresetNames(), ", ")},
		{[]string{"topo", "search"}, "no host: expected --system NAME or --topo FILE"},
		{[]string{"topo", "search", "--preset", "h200x2", "--release", "2.17.1"}, "NCCL 2.17.1 is not modelled"},
		{[]string{"topo", "search", "--preset", "h200x2", "--set", "NCCL_P2P_LEVEL=FOO"}, `NCCL_P2P_LEVEL="FOO": expected LOC`},
		{[]string{"topo", "search", "--preset", "h200x2", "--set", "NCCL_ALGO=Ring"}, "NCCL_ALGO is not read by the topology stage"},
		{[]string{"topo", "search", "--topo", bad}, bad + ":3: </system> closes <cpu> opened at line 2"},
	}
	for _, tc := range tests {
		code, _, stderr := runTopoCLI(t, tc.args...)
		if code != exitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestPresetNamesEveryCommand: every command that names a machine takes the
// same names (spec.PresetNames) and the old gb200 as gb200-nvl72, and
// refuses another name with exit 2 and the list.
func TestPresetNamesEveryCommand(t *testing.T) {
	names := append(spec.PresetNames(), "gb200")
	cmds := map[string]func(string) []string{
		"topo dump":   func(n string) []string { return []string{"topo", "dump", n} },
		"topo search": func(n string) []string { return []string{"topo", "search", "--system", n, "--nccl", "2.28.9"} },
		"table":       func(n string) []string { return []string{"table", "--system", n} },
		"explain":     func(n string) []string { return []string{"explain", "--system", n, "--env", "NCCL_ALGO=Ring"} },
		"whatif": func(n string) []string {
			return []string{"whatif", "--system", n, "--sizes", "1MiB", "--no-sim", "--json"}
		},
	}
	for cmd, args := range cmds {
		for _, n := range names {
			if code, _, stderr := runTopoCLI(t, args(n)...); code != 0 {
				t.Errorf("%s %s: exit %d: %s", cmd, n, code, stderr)
			}
		}
		code, _, stderr := runTopoCLI(t, args("gb300")...)
		if code != exitBadInput || !strings.Contains(stderr, strings.Join(spec.PresetNames(), ", ")) {
			t.Errorf("%s gb300: exit %d, %q; want 2 and the presets", cmd, code, stderr)
		}
	}
	_, a, _ := runTopoCLI(t, "topo", "search", "--system", "gb200", "--nodes", "2")
	_, b, _ := runTopoCLI(t, "topo", "search", "--system", "gb200-nvl72", "--nodes", "2")
	if a != b || a == "" {
		t.Error("topo search: gb200 and gb200-nvl72 differ")
	}
}

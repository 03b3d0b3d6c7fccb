package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// runCLIIn runs the CLI with standard input.
func runCLIIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	var in *strings.Reader
	if stdin != "" {
		in = strings.NewReader(stdin)
	}
	var code int
	if in != nil {
		code = runWithInput(args, in, &out, &errb)
	} else {
		code = run(args, &out, &errb)
	}
	return code, out.String(), errb.String()
}

func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"nodes\": [ {\"gpus\": [{\"sm\": \"ninety\"}]} ]\n}\n"), 0o644)
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	cases := []struct {
		args []string
		want string // substring of stderr
	}{
		{[]string{"explain", "--nccl", "2.17.1", "--system", "v100x4"}, "supported releases are " + spec.Releases[0].String() + ", "},
		{[]string{"explain", "--nccl", "banana", "--system", "v100x4"}, "expected"},
		{[]string{"explain", "--system", "v100x4", "--coll", "gather"}, "unknown collective"},
		{[]string{"explain", "--system", "v100x4", "--dtype", "float128"}, "unknown datatype"},
		{[]string{"explain", "--system", "v100x4", "--redop", "xor"}, "unknown reduction"},
		{[]string{"explain", "--system", "v100x4", "--bytes", "3"}, "not a whole number"},
		{[]string{"explain", "--system", "v100x4", "--env", "NCCL_ALGO"}, "expected NAME=VALUE"},
		{[]string{"explain", "--system", "dgx-z"}, "unknown system preset"},
		{[]string{"explain"}, "no machine"},
		{[]string{"explain", "--system-file", bad}, "bad.json:2:"},
		{[]string{"explain", "--system-file", empty}, "empty system file"},
		{[]string{"explain", "--system-file", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"rules", "--nccl", "2.17.1"}, "not modelled"},
		// --nodes 0 is refused alike wherever --nodes is taken
		{[]string{"explain", "--system", "dgx-h100", "--nodes", "0"}, "--nodes 0: expected 1 to 16384 (gatesim's limit)"},
		{[]string{"sim", "--system", "dgx-h100", "--nodes", "0"}, "--nodes 0: expected 1 to 16384 (gatesim's limit)"},
		{[]string{"topo", "search", "--system", "dgx-h100", "--nodes", "0"}, "--nodes 0: expected 1 to 16384 (gatesim's limit)"},
		{[]string{"explain", "--topo", filepath.Join("..", "..", "examples", "topo.xml"), "--nodes", "-1"}, "--nodes -1: expected 1 to 16384 (gatesim's limit)"},
		{[]string{"rules", "diff", "2.28.9", "2.17.1"}, "2.17.1"},
		{[]string{"explain", "--no-such-flag"}, "unknown flag"},
		{[]string{"no-such-command"}, "unknown command"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, exitBadInput, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not say %q", c.args, stderr, c.want)
		}
	}
}

func TestExplainSideBySide(t *testing.T) {
	t.Setenv("COLUMNS", "400") // NCCL's WARN on one line
	code, out, stderr := runCLI(t, "explain", "--nccl", "2.22.3,2.28.9", "--system", "v100x4",
		"--env", "NCCL_ALGO=NVLS", "--env", "NCCL_NVLS_ENABLE=1", "--env", "NCCL_COLLNET_ENABLE=1", "--bytes", "1MiB")
	if code != exitNo { // 2.28.9 returns ncclInvalidUsage
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"NCCL 2.22.3", "NCCL 2.28.9", "G-SEL-ERR-1", "G-TUNE-RINGRESTORE-1",
		"Error : no algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to NVLS.",
		"NCCL 2.22.3: Ring/LL128", "would change it: NCCL_ALGO (now NVLS)"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q", want)
		}
	}
}

// TestExplainSummary: the decision leads, in at most ten lines; --full adds
// every gate in a table as wide as $COLUMNS.
func TestExplainSummary(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	code, out, stderr := runCLI(t, "explain", "--system", "v100x4", "--env", "NCCL_NVLS_ENABLE=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	summary, logical := 0, 0
	for summary < len(lines) && lines[summary] != "" {
		if !strings.HasPrefix(lines[summary], "    ") { // not a folded continuation
			logical++
		}
		summary++
	}
	if logical > 11 || logical < 6 {
		t.Errorf("summary is %d lines, want 5-10 after the header:\n%s", logical, out)
	}
	head := strings.Join(lines[:summary], "\n")
	for _, w := range []string{"NCCL 2.28.9: Ring/LL128", "decided by G-SEL-PICK-1", "network: Socket", "NVLS stopped at G-NVLS-GRAPH-1: no NVSwitch", "would change it: runner-up"} {
		if !strings.Contains(head, w) {
			t.Errorf("summary lacks %q:\n%s", w, head)
		}
	}
	if strings.Contains(out, "G-NET-LIB-1") {
		t.Errorf("the gate table is printed without --full")
	}
	_, full, _ := runCLI(t, "explain", "--system", "v100x4", "--env", "NCCL_NVLS_ENABLE=1", "--full")
	if !strings.Contains(full, "G-NET-LIB-1") || !strings.HasPrefix(full, head) {
		t.Errorf("--full does not add the gate table after the same summary")
	}
	for _, l := range strings.Split(full, "\n") {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line of %d columns with COLUMNS=100: %s", n, l)
		}
	}
}

func TestExplainJSON(t *testing.T) {
	code, out, stderr := runCLI(t, "explain", "--nccl", "2.28.9", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var v struct {
		Releases []struct {
			Release  string
			Decision map[string]any
			Trace    []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if len(v.Releases) != 1 || len(v.Releases[0].Trace) < 40 {
		t.Fatalf("unexpected JSON: %d releases", len(v.Releases))
	}
}

func TestOracleStream(t *testing.T) {
	in := `{"id":1,"nccl":"2.28.9","system":"v100x4","env":{"NCCL_ALGO":"NVLS"},"op":{"coll":"allreduce","bytes":"1MiB"}}

# comment
{"id":2,"nccl":"2.28.9","system":"v100x4","op":{"coll":"nope","bytes":"1MiB"}}
{"id":3,"nccl":"2.22.3","system":"v100x4","env":{"NCCL_ALGO":"NVLS"},"op":{"coll":"allreduce","bytes":"1MiB"}}
`
	code, out, stderr := runCLIIn(t, in, "oracle", "--no-trace")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d answers, want 3:\n%s", len(lines), out)
	}
	want := []string{`"status":"error"`, `"status":"invalid"`, `"algo":"Ring"`}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("answer %d %s lacks %s", i+1, lines[i], w)
		}
	}
}

// The oracle's budget flags: a request over --max-memory is answered
// invalid naming its line and the stream goes on; bad values exit 2.
func TestOracleBudgetFlags(t *testing.T) {
	in := `{"id":1,"nccl":"2.28.9","system":"dgx-h100","nodes":4096,"op":{"coll":"allreduce","bytes":4}}
{"id":2,"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":4}}
`
	code, out, stderr := runCLIIn(t, in, "oracle", "--no-trace", "--max-ranks", "131072", "--max-memory", "32MiB", "--timeout", "1m")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "line 1: 32768 ranks") || !strings.Contains(lines[0], "--max-memory") ||
		!strings.Contains(lines[1], `"status":"ok"`) {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	for _, args := range [][]string{{"--timeout", "0s"}, {"--timeout", "-1s"}, {"--max-memory", "1KiB"}, {"--max-memory", "lots"}, {"--max-memory", "2TiB"}} {
		if code, _, stderr := runCLIIn(t, "", append([]string{"oracle"}, args...)...); code != exitBadInput {
			t.Errorf("oracle %v: exit %d, want %d: %s", args, code, exitBadInput, stderr)
		}
	}
}

func TestRulesAndDemo(t *testing.T) {
	code, out, _ := runCLI(t, "rules", "--nccl", "2.22.3")
	if code != 0 || !strings.Contains(out, "G-SEL-BACKUP-1") || !strings.Contains(out, "src/enqueue.cc") {
		t.Fatalf("rules: exit %d\n%s", code, out)
	}
	// without --nccl, the release every command defaults to
	code, out, _ = runCLI(t, "rules")
	if code != 0 || !strings.HasPrefix(out, "NCCL "+spec.DefaultRelease.String()+":") {
		t.Fatalf("rules without --nccl: exit %d\n%.200s", code, out)
	}
	code, out, _ = runCLI(t, "rules", "diff", "2.22.3", "2.28.9")
	if code != 0 || !strings.Contains(out, "G-SEL-ERR-1") || !strings.Contains(out, "2.28.9") {
		t.Fatalf("rules diff: exit %d\n%s", code, out)
	}
	// either order: the same changes, said to be undone going back; one
	// release against itself changes nothing
	code, back, _ := runCLI(t, "rules", "diff", "2.28.9", "2.22.3")
	if code != 0 || !strings.HasPrefix(back, "Going back from NCCL 2.28.9 to 2.22.3") || !strings.HasSuffix(back, out) {
		t.Fatalf("rules diff newest first: exit %d\n%.300s", code, back)
	}
	code, out, _ = runCLI(t, "rules", "diff", "2.22.3", "2.22.3")
	if code != 0 || out != "2.22.3 and 2.22.3 decide alike on every rule\n" {
		t.Fatalf("rules diff of one release: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "demo")
	if code != 0 || !strings.Contains(out, "NCCL_ALGO=CollNetDirect") || !strings.Contains(out, "G-SEL-ERR-1") {
		t.Fatalf("demo: exit %d\n%s", code, out)
	}
}

// The 2.19.x releases (backward deltas from 2.20.3) through every command
// that takes a release: the list, a range diff, two-release tables and
// sweeps, and a log of the exact release, which diagnose predicts with.
func TestBackwardReleasesThroughTheCLI(t *testing.T) {
	dir := t.TempDir()
	log219 := writeFile(t, dir, "nccl-2.19.3.log", "NCCL version 2.19.3+cuda12.2\n"+
		"h:1:1 [0] NCCL INFO 32 coll channels, 16 nvls channels, 32 p2p channels, 2 p2p channels per peer\n")
	log2192 := writeFile(t, dir, "nccl-2.19.2.log", "NCCL version 2.19.2+cuda12.2\n")
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string
		notWant string
	}{
		{"releases", []string{"releases"}, []string{"2.19.1\tv2.19.1-1", "2.19.3\tv2.19.3-1", "2.19.4\tv2.19.4-1"}, ""},
		{"rules diff", []string{"rules", "diff", "2.19.1", "2.20.3"},
			[]string{"3 release(s)", "NVSOrder", "CollNetFail", "G-MNNVL-1", "G-COLLNET-ABI-2"}, ""},
		{"table of two releases", []string{"table", "--nccl", "2.19.4,2.20.3", "--system", "dgx-h100", "--nodes", "2"},
			// 2.19.4's two-node ring is 8 × 45 GB/s (the crossNic bonus), 2.20.3's 8 × 48.
			[]string{"16 coll channels, 16 nvls channels", "AllGather/CollNetDirect/Simple", "456.4/360.0", "456.4/384.0"}, ""},
		{"whatif of two releases", []string{"whatif", "--nccl", "2.19.1,2.19.4", "--system", "dgx-h100", "--nodes", "2", "--sizes", "1M", "--no-sim"},
			[]string{"NCCL 2.19.1 |", "NCCL 2.19.4 |"}, ""},
		{"diagnose a 2.19.3 log", []string{"diagnose", log219}, []string{"NCCL 2.19.3+cuda12.2"}, "has no gatesim ruleset"},
		{"diagnose a 2.19.2 log", []string{"diagnose", log2192}, []string{"nearest older one, 2.19.1"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.notWant != "" && strings.Contains(out, tc.notWant) {
				t.Errorf("output has %q:\n%s", tc.notWant, out)
			}
		})
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cliLog = `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)
h:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer
h:1:1 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}
`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDiagnoseCLI(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "rank0.log", cliLog)
	empty := writeFile(t, dir, "empty.log", "")
	binary := writeFile(t, dir, "core.bin", "\x7fELF\x00\x01\x02")
	text := writeFile(t, dir, "notes.txt", "nothing from NCCL here\n")
	agree := writeFile(t, dir, "agree.json", `{"trace":[{"rule":"G-NVLS-CAP-1","verdict":"pass","cap":"nvls","level":"usable"}],"decisions":[]}`)
	differ := writeFile(t, dir, "differ.json", `{"trace":[{"rule":"G-NVLS-CONS-1","verdict":"pass","cap":"nvls","level":"candidate"}],"decisions":[]}`)
	bad := writeFile(t, dir, "bad.json", `{"trace": 3}`)
	sub := filepath.Join(dir, "capture")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sub, "nccl.log", cliLog)
	writeFile(t, sub, "topo.xml", "<system/>")
	writeFile(t, sub, "results.txt", "#  size count\n")

	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{"report", []string{"diagnose", good}, "", exitOK, "nvls.no-channels", ""},
		{"summary first", []string{"diagnose", good}, "", exitOK, "Capabilities (level reached; why not higher)", ""},
		{"stdin", []string{"diagnose", "-"}, cliLog, exitOK, "NCCL 2.28.9+cuda12.9 — 4 line(s) in stdin", ""},
		{"directory picks the .log", []string{"diagnose", sub}, "", exitOK, "in " + filepath.Join(sub, "nccl.log") + ",", ""},
		{"env flag", []string{"diagnose", "--env", "NCCL_P2P_DISABLE=1", good}, "", exitOK, "p2p           none (off)", ""},
		{"given release", []string{"diagnose", "--nccl", "2.22.3", "-"}, "h:1:1 [0] NCCL INFO Using network IB\n", exitOK, "NCCL 2.22.3 (given, not in the log)", ""},
		{"predicted agrees", []string{"diagnose", "--predicted", agree, good}, "", exitOK, "2 agree, 0 consistent, 0 differ", ""},
		{"predicted differs", []string{"diagnose", "--predicted", differ, good}, "", exitNo, "DIFFER", "disagree on 1 row"},
		{"empty", []string{"diagnose", empty}, "", exitBadInput, "", empty + ": empty input: expected an NCCL log"},
		{"binary", []string{"diagnose", binary}, "", exitBadInput, "", binary + ": line 1: binary data (NUL byte at offset 4)"},
		{"no NCCL line", []string{"diagnose", text}, "", exitBadInput, "", text + ": no NCCL log line found"},
		{"missing file", []string{"diagnose", filepath.Join(dir, "nope.log")}, "", exitBadInput, "", "no such file"},
		{"bad env", []string{"diagnose", "--env", "NOEQUALS", good}, "", exitBadInput, "", "expected NAME=VALUE"},
		{"bad release", []string{"diagnose", "--nccl", "2.x", good}, "", exitBadInput, "", "bad NCCL version"},
		{"bad prediction", []string{"diagnose", "--predicted", bad, good}, "", exitBadInput, "", bad + ": json"},
		{"no argument", []string{"diagnose"}, "", exitBadInput, "", "requires at least 1 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runWithInput(tc.args, strings.NewReader(tc.stdin), &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errb.String())
			}
			if tc.stdout != "" && !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, out.String())
			}
			if tc.stderr != "" && !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr lacks %q: %s", tc.stderr, errb.String())
			}
		})
	}
}

func TestDiagnoseCLIJSON(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "rank0.log", cliLog)
	differ := writeFile(t, dir, "differ.json", `{"trace":[{"rule":"G-NVLS-CONS-1","verdict":"pass","cap":"nvls","level":"candidate"}],"decisions":[]}`)
	var out, errb bytes.Buffer
	code := run([]string{"diagnose", "--json", "--predicted", differ, good}, &out, &errb)
	if code != exitNo {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	if m["nccl_version"] != "2.28.9+cuda12.9" || m["comparison"] == nil {
		t.Errorf("json %v", m)
	}
	nvls := m["nvls"].(map[string]any)
	if nvls["level"] != "usable" || nvls["channels"].(float64) != 0 {
		t.Errorf("nvls %v", nvls)
	}
}

// diagnose --system on a log of a release gatesim does not model reports
// instead of stopping: a newer one is predicted with the nearest older
// modelled release, --nccl overrides, and one older than every modelled
// release predicts nothing; each says so, and exits 0 unless a compared
// row differs.
func TestDiagnoseUnmodelledRelease(t *testing.T) {
	base, err := os.ReadFile(filepath.Join(capturedBase, "nccl.log"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	newer := writeFile(t, dir, "newer.log", strings.ReplaceAll(string(base), "version 2.28.9", "version 2.31.2"))
	older := writeFile(t, dir, "older.log", strings.ReplaceAll(string(base), "version 2.28.9", "version 2.4.8"))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{newer}, exitNo, "note: the log's NCCL 2.31.2 is not modelled (modelled: 2.18.1 to "},
		{[]string{newer, "--nccl", "2.28.9"}, exitOK, "note: the log names NCCL 2.31.2; predicting with NCCL 2.28.9 as --nccl gives"},
		{[]string{older}, exitOK, "note: the log's NCCL 2.4.8 is older than 2.18.1, the oldest modelled release: nothing is predicted"},
		{[]string{newer, "--nccl", "2.31.2"}, exitBadInput, "NCCL 2.31.2 is not modelled"},
	} {
		code, stdout, stderr := runCLI(t, append([]string{"diagnose", "--system", "h200x2"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s\n%s", tc.args, code, tc.code, tc.want, stdout, stderr)
		}
		if code != exitBadInput && !strings.Contains(stdout, "Findings") {
			t.Errorf("%v: the report is lost:\n%s", tc.args, stdout)
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runSimCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestSimCommand(t *testing.T) {
	code, out, errs := runSimCLI("sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "ll", "--bytes", "64KiB", "--verify")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"AllReduce 64.00 KiB float sum on dgx-h100", "Ring/LL", "simulated time", "busbw", "nvlink", "verification     OK", "NCCL model time  n/a"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSimJSONAndTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.json")
	code, out, errs := runSimCLI("sim", "--system", "ib16-sharp", "--algo", "collnetdirect", "--proto", "simple", "--bytes", "64MiB", "--json", "--trace", trace, "--ranks", "32")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Result struct {
			Ranks           int     `json:"ranks"`
			NetBytesPerNode float64 `json:"net_bytes_per_node"`
			BusBw           float64 `json:"busbw"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Result.Ranks != 32 || rep.Result.NetBytesPerNode != 64<<20 || rep.Result.BusBw <= 0 {
		t.Errorf("unexpected result %+v", rep.Result)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil || len(tr.TraceEvents) == 0 {
		t.Fatalf("trace file is not Chrome trace JSON with events: %v", err)
	}
}

func TestSimBadInput(t *testing.T) {
	dir := t.TempDir()
	xml := filepath.Join(dir, "topo.xml")
	os.WriteFile(xml, []byte("<system version=\"1\"></system>"), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"nodes": [{"gpus": [{"sm": 9}]}]}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring"}, "--algo and --proto are required"},
		{[]string{"sim", "--algo", "ring", "--proto", "ll"}, "exactly one of --system"},
		{[]string{"sim", "--system", "nope", "--algo", "ring", "--proto", "ll"}, "unknown machine preset"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "ll", "--bytes", "12 parsecs"}, "bad size"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "ll", "--bytes", "3", "--dtype", "float32"}, "not a whole number"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "nvlstree", "--proto", "simple"}, "two nodes"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "ll", "--ranks", "12"}, "--ranks 12"},
		{[]string{"sim", "--system", "ib16", "--algo", "collnetdirect", "--proto", "simple"}, "SHARP"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "simple", "--verify", "--bytes", "1GiB"}, "--verify holds every rank's buffers"},
		{[]string{"sim", "--topo", xml, "--algo", "ring", "--proto", "simple"}, "spec/topo's parser"},
		{[]string{"sim", "--topo", bad, "--algo", "ring", "--proto", "simple"}, "bad.json"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "simple", "--nccl", "1.0"}, "bad NCCL version"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K"}, "FROM:TO"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1K"}, "FROM <= TO"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1M:1"}, "at least 2"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1M", "--algo", "ring,bogus"}, "--algo"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1M", "--verify"}, "prints a table"},
	}
	for _, tc := range tests {
		code, _, errs := runSimCLI(tc.args...)
		if code != exitBadInput || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"4KiB": 4096, "4K": 4096, "4KB": 4000, "256MiB": 256 << 20, "1G": 1 << 30, "7": 7, "8B": 8} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

// TestSimSweep prints one row pair per runnable algorithm × protocol and
// lists the others with the reason.
func TestSimSweep(t *testing.T) {
	code, out, errs := runSimCLI("sim", "--system", "h200x2", "--sweep", "4KiB:1MiB:4", "--algo", "ring,nvls", "--proto", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"| algorithm | protocol | time | 4K | 16K | 64K | 256K | 1M |",
		"| Ring | LL | sim |", "| Ring | Simple | NCCL model | n/a |", "| NVLS | Simple | sim |",
		"NVLS/LL: build: NVLS runs only with the Simple protocol"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| NVLS | LL |") {
		t.Errorf("NVLS/LL does not run but has a row:\n%s", out)
	}
	if got := strings.Count(out, " sim | "); got != 4 {
		t.Errorf("%d simulated rows, want 4 (Ring × 3 protocols, NVLS/Simple):\n%s", got, out)
	}
}

func TestParseSweep(t *testing.T) {
	got, err := parseSweep("4KiB:64KiB:4")
	if err != nil || len(got) != 3 || got[0] != 4096 || got[2] != 65536 {
		t.Errorf("parseSweep = %v, %v", got, err)
	}
	if got, err := parseSweep("1:8"); err != nil || len(got) != 4 {
		t.Errorf("parseSweep(1:8) = %v, %v; want 4 sizes with factor 2", got, err)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkTraceEvents reads a trace file by the Trace Event Format's rules as
// Perfetto's JSON importer applies them and returns the events it would
// drop (with why), the complete events' lanes (pid → tids) and the counter
// tracks' names.
func checkTraceEvents(t *testing.T, path string) (dropped []string, lanes map[int]map[int]bool, counters map[string]int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: not a JSON trace object: %v", path, err)
	}
	lanes, counters = map[int]map[int]bool{}, map[string]int{}
	num := func(e map[string]json.RawMessage, k string) (float64, bool) {
		var f float64
		raw, ok := e[k]
		return f, ok && json.Unmarshal(raw, &f) == nil
	}
	for i, e := range doc.TraceEvents {
		var ph, name string
		json.Unmarshal(e["ph"], &ph)
		json.Unmarshal(e["name"], &name)
		bad := func(why string) { dropped = append(dropped, fmt.Sprintf("event %d (%s %q): %s", i, ph, name, why)) }
		pid, okP := num(e, "pid")
		tid, okT := num(e, "tid")
		ts, okTs := num(e, "ts")
		switch {
		case !okP || !okT:
			bad("pid or tid missing")
			continue
		case !okTs || ts < 0:
			bad("ts missing or negative")
			continue
		case name == "":
			bad("no name")
			continue
		}
		var args map[string]any
		json.Unmarshal(e["args"], &args)
		switch ph {
		case "X":
			if d, ok := num(e, "dur"); !ok || d < 0 {
				bad("complete event without a non-negative dur")
				continue
			}
			if lanes[int(pid)] == nil {
				lanes[int(pid)] = map[int]bool{}
			}
			lanes[int(pid)][int(tid)] = true
		case "M":
			if s, ok := args["name"].(string); !ok || s == "" || (name != "process_name" && name != "thread_name") {
				bad("metadata without args.name")
			}
		case "C":
			if len(args) == 0 {
				bad("counter without values")
			}
			for k, v := range args {
				if _, ok := v.(float64); !ok {
					bad("counter value " + k + " not a number")
				}
			}
			counters[name]++
		default:
			bad("unexpected phase")
		}
	}
	return dropped, lanes, counters
}

// TestTracePerfettoLoadsWhole: 2 GPUs × 8 channels and 128 ranks, one lane
// per rank and channel, every event well formed, counters per link class.
func TestTracePerfettoLoadsWhole(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name                string
		args                []string
		ranks, minChannels  int
		counters            []string
		representativesOnly bool
	}{
		{"2x8 channels", []string{"--system", "h200x2", "--algo", "ring", "--proto", "ll", "--bytes", "64KiB", "--channels", "8", "--trace-ranks", "all"}, 2, 8, []string{"bytes on nvlink"}, false},
		{"128 ranks", []string{"--system", "dgx-h100", "--nodes", "16", "--bytes", "64MiB", "--trace-ranks", "all"}, 128, 16, []string{"bytes on nvlink", "bytes on nic"}, false},
		{"first 4 ranks", []string{"--system", "dgx-h100", "--nodes", "2", "--algo", "ring", "--proto", "simple", "--bytes", "1MiB", "--trace-ranks", "4"}, 4, 1, []string{"bytes on nic"}, false},
		{"representatives", []string{"--system", "h200x2", "--algo", "ring", "--proto", "simple", "--bytes", "1MiB"}, 1, 1, nil, true},
	}
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
		code, _, stderr := runCLI(t, append([]string{"sim", "--trace", path}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		dropped, lanes, counters := checkTraceEvents(t, path)
		if len(dropped) > 0 {
			t.Errorf("%s: %d events Perfetto drops, first: %s", c.name, len(dropped), dropped[0])
		}
		if c.representativesOnly {
			if len(lanes) < 1 {
				t.Errorf("%s: no lanes", c.name)
			}
			continue
		}
		if len(lanes) != c.ranks {
			t.Errorf("%s: %d ranks have lanes, want %d", c.name, len(lanes), c.ranks)
		}
		for pid, tids := range lanes {
			chans := map[int]bool{}
			for tid := range tids {
				chans[tid/16] = true
			}
			if len(chans) < c.minChannels {
				t.Errorf("%s: rank %d has %d channel lanes, want at least %d", c.name, pid, len(chans), c.minChannels)
				break
			}
		}
		for _, name := range c.counters {
			if counters[name] < 2 {
				t.Errorf("%s: counter %q has %d samples", c.name, name, counters[name])
			}
		}
	}
	code, _, stderr := runCLI(t, "sim", "--system", "h200x2", "--trace", filepath.Join(dir, "x.json"), "--trace-ranks", "some")
	if code != exitBadInput || !strings.Contains(stderr, "expected all or a rank count") {
		t.Errorf("--trace-ranks some: exit %d, %s", code, stderr)
	}
}

// TestTraceCheckerCatchesDrops: the checker is not vacuous.
func TestTraceCheckerCatchesDrops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(path, []byte(`{"traceEvents":[{"name":"send","ph":"X","ts":1,"pid":0,"tid":0},{"name":"x","ph":"X","ts":1,"dur":0,"pid":0},{"name":"ok","ph":"X","ts":1,"dur":0,"pid":0,"tid":1}]}`), 0o644)
	dropped, lanes, _ := checkTraceEvents(t, path)
	if len(dropped) != 2 || len(lanes[0]) != 1 {
		t.Errorf("dropped %v, lanes %v; want the event without dur and the one without tid", dropped, lanes)
	}
}

// TestPages: whatif --out writes index.html beside the plots, diagnose
// --html writes its page; both carry the command that made them.
func TestPages(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "plan")
	code, _, stderr := runCLI(t, "whatif", "--system", "dgx-h100", "--system", "dgx-a100", "--nodes", "1,2,4", "--sizes", "1MiB,64MiB", "--no-sim", "--out", out)
	if code != 0 {
		t.Fatalf("whatif: exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(page), "<tr><td>"); n != 2*3*2 {
		t.Errorf("whatif page has %d rows, want 12", n)
	}
	if !strings.Contains(string(page), "gatesim whatif --no-sim --nodes") || strings.Count(string(page), "<svg") != 2 {
		t.Errorf("whatif page lacks the command or the two plots")
	}
	html := filepath.Join(dir, "d.html")
	code, _, stderr = runCLI(t, "diagnose", filepath.Join("..", "..", "examples", "hgx-ring.log"), "--html", html)
	if code != 0 {
		t.Fatalf("diagnose: exit %d: %s", code, stderr)
	}
	dp, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(dp), "gatesim diagnose --html") || !strings.Contains(string(dp), "hgx-ring.log:37") {
		t.Errorf("diagnose page lacks the command or the cited line (%v)", err)
	}
}

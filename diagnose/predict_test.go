package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// Predicting a captured run from its own topology dump, with the variables
// its log reports, agrees with every gate and operation the log shows.
func TestPredictCaptured(t *testing.T) {
	for _, cfg := range []string{"baseline", "algo-tree", "proto-simple", "net"} {
		dir := filepath.Join("..", "golden", "testdata", "captured", "h200x2-2.28.9", cfg)
		f, err := os.Open(filepath.Join(dir, "nccl.log"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := ncclog.Parse(f, "nccl.log")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		xml, err := os.ReadFile(filepath.Join(dir, "topo.xml"))
		if err != nil {
			t.Fatal(err)
		}
		sys, err := spec.SystemFromTopology("topo.xml", xml, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Predict(l, 0, sys, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		if len(p.Decisions) < 10 {
			t.Fatalf("%s: %d decisions predicted", cfg, len(p.Decisions))
		}
		c := Compare(p, Diagnose(l, Options{}).Obs)
		if n := c.Counts[string(Differ)]; n > 0 {
			for _, r := range c.Ops {
				if r.Agreement == Differ {
					t.Errorf("%s: %s %d: predicted %s, observed %s", cfg, r.Coll, r.Bytes, r.Predicted, r.Observed)
				}
			}
			for _, r := range c.Gates {
				if r.Agreement == Differ {
					t.Errorf("%s: %s: predicted %s, observed %s", cfg, r.Rule, r.Predicted, r.Observed)
				}
			}
		}
		if c.Counts[string(Agree)] < len(p.Decisions) {
			t.Errorf("%s: only %d rows agree", cfg, c.Counts[string(Agree)])
		}
	}
}

// groupLog is what rank 0 of 2 × H200 printed under NCCL 2.28.9 for
// nccl-tests -m 8 (eight AllReduces of one size in one group) at 8 KiB
// and 8 MiB, as a user reported it: each operation on its own range of
// the 24 channels. The repository's own -m 8 captures are of two ranks on
// one H200 at 2.30.x (TestPredictGroupCaptured); this one is two GPUs at
// 2.28.9, which no capture holds.
func groupLog() string {
	var b strings.Builder
	b.WriteString("vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n")
	b.WriteString("vm:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n")
	for i := range 8 {
		fmt.Fprintf(&b, "vm:1:1 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={%d..%d}\n", 2*i, 2*i+1)
	}
	for _, r := range [][2]int{{0, 2}, {2, 5}, {5, 8}, {8, 11}, {11, 14}, {14, 17}, {17, 20}, {20, 23}} {
		fmt.Fprintf(&b, "vm:1:1 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={%d..%d}\n", r[0], r[1])
	}
	return b.String()
}

// TestPredictGroupSize: every line of an -m 8 log agrees when diagnosed
// as groups of 8; the wrong group size (alone, 4, 16) is caught as lines
// that differ.
func TestPredictGroupSize(t *testing.T) {
	for _, agg := range []int{1, 4, 8, 16} {
		agree, differ, ops := agreeOnH200x2(t, groupLog(), 16, spec.Launch{Agg: agg})
		if agg == 8 && (agree != 16 || differ != 0) {
			t.Errorf("agg 8: %d lines agree, %d differ, want 16 and 0: %+v", agree, differ, ops)
		}
		if agg != 8 && differ == 0 {
			t.Errorf("agg %d: the wrong group size was not caught (%d agree)", agg, agree)
		}
	}
}

// TestPredictGroupCaptured: the real -m 8 captures (two ranks on one H200
// under NCCL_MULTI_RANK_GPU_ENABLE, NCCL 2.30.3, 2.30.4 and 2.30.7 built
// from their tags; hw/testdata/device/README.md) diagnosed from their own
// topology dump with the group size the capture ran: every distinct
// operation line of the log agrees, and a wrong group size (alone, 4, 16)
// is caught as lines that differ.
func TestPredictGroupCaptured(t *testing.T) {
	for _, rel := range []string{"2.30.3", "2.30.4", "2.30.7"} {
		dir := filepath.Join("..", "hw", "testdata", "device", "multirank", rel, "agg8")
		l, sys, env, launch, lines := readGroupCapture(t, dir)
		if l.Release.String() != rel {
			t.Fatalf("%s: the log says NCCL %s", dir, l.Release)
		}
		if launch.Agg != 8 || lines < 100 {
			t.Fatalf("%s: group of %d, %d distinct operation lines: expected the -m 8 capture", dir, launch.Agg, lines)
		}
		obs := Diagnose(l, Options{}).Obs
		if len(obs.Decisions) != lines {
			t.Fatalf("%s: %d distinct operation lines read, the log holds %d", dir, len(obs.Decisions), lines)
		}
		for _, agg := range []int{launch.Agg, 1, 4, 16} {
			p, err := PredictLaunch(l, 0, sys, env, nil, spec.Launch{Mode: launch.Mode, Agg: agg})
			if err != nil {
				t.Fatalf("%s agg %d: %v", rel, agg, err)
			}
			agree, differ := 0, 0
			var bad []OpRow
			for _, r := range Compare(p, obs).Ops {
				switch r.Agreement {
				case Agree:
					agree++
				case Differ:
					differ++
				}
				if r.Agreement != Agree && len(bad) < 4 {
					bad = append(bad, r)
				}
			}
			t.Logf("%s agg %d: %d of %d lines agree, %d differ", rel, agg, agree, lines, differ)
			if agg == launch.Agg && agree != lines {
				t.Errorf("%s agg %d: %d of %d lines agree: %+v", rel, agg, agree, lines, bad)
			}
			if agg != launch.Agg && differ == 0 {
				t.Errorf("%s agg %d: the wrong group size was not caught (%d of %d agree)", rel, agg, agree, lines)
			}
		}
	}
}

// opLine is an operation line as NCCL 2.24+ prints it.
var opLine = regexp.MustCompile(`\] NCCL INFO (\w+): (\d+) Bytes -> Algo (\w+) proto (\w+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}`)

// readGroupCapture reads a capture directory of hw run: its log, its
// topology dump as the machine, the variables NCCL read and the launch
// (group size, graph or stream) from results.json, and how many distinct
// operation lines the log holds, counted from the text.
func readGroupCapture(t *testing.T, dir string) (*ncclog.Log, *spec.System, spec.Env, spec.Launch, int) {
	t.Helper()
	logText, err := os.ReadFile(filepath.Join(dir, "nccl.log"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := ncclog.Parse(bytes.NewReader(logText), "nccl.log")
	if err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile(filepath.Join(dir, conformance.CaptureTopo))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.SystemFromTopology(conformance.CaptureTopo, xml, 1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, conformance.CaptureResults))
	if err != nil {
		t.Fatal(err)
	}
	var r conformance.RunResult
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Normalize(dir); err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, m := range opLine.FindAllStringSubmatch(string(logText), -1) {
		distinct[strings.Join(m[1:], " ")] = true
	}
	return l, sys, conformance.NCCLEnv(r.Env), conformance.CaptureLaunch(&r), len(distinct)
}

// agreeOnH200x2 diagnoses log (lines distinct operation lines) on 2 ×
// H200 with NVLS off, predicted at launch, and counts the lines that
// agree and differ.
func agreeOnH200x2(t *testing.T, log string, lines int, launch spec.Launch) (agree, differ int, ops []OpRow) {
	t.Helper()
	l, sys := parseOnH200x2(t, log)
	obs := Diagnose(l, Options{}).Obs
	if len(obs.Decisions) != lines {
		t.Fatalf("%d distinct lines read, want %d", len(obs.Decisions), lines)
	}
	p, err := PredictLaunch(l, 0, sys, spec.Env{"NCCL_NVLS_ENABLE": "0"}, nil, launch)
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(p, obs)
	for _, r := range c.Ops {
		switch r.Agreement {
		case Agree:
			agree++
		case Differ:
			differ++
		}
	}
	return agree, differ, c.Ops
}

// TestPredictReadsTheLog: NCCL_COLLNET_ENABLE=1 as 2.28 prints it ("Comm
// config collnetEnable reset to ...") reaches the prediction; the
// predicted capability levels do not depend on whether the log printed
// operation lines; a user naming a plugin library is not the library gate
// passing.
func TestPredictReadsTheLog(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 2, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	head := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO Comm config collnetEnable reset to NCCL_COLLNET_ENABLE=1\n"
	op := "h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}\n"
	var levels [2]spec.Evidence
	for i, log := range []string{head, head + op} {
		_, p := predictLog(t, log, sys)
		env := false
		for _, v := range p.Trace {
			if v.Rule == "G-COLLNET-ENV-1" && v.Outcome == spec.Pass {
				env = true
			}
		}
		if !env {
			t.Errorf("log %d: NCCL_COLLNET_ENABLE=1 from the config line did not reach the prediction", i)
		}
		levels[i] = p.Evidence
	}
	if levels[0][spec.CapNetPlugin] != levels[1][spec.CapNetPlugin] || levels[0][spec.CapNetPlugin] == spec.LevelNone {
		t.Errorf("net plugin level without op lines %s, with %s", levels[0][spec.CapNetPlugin], levels[1][spec.CapNetPlugin])
	}
	l, err := ncclog.Parse(strings.NewReader("h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO NCCL_NET_PLUGIN set by environment to foo\n"), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ncclog.Observe(l).Trace {
		if v.Rule == "G-NET-LIB-1" && v.Outcome == spec.Pass {
			t.Errorf("NCCL_NET_PLUGIN set alone made G-NET-LIB-1 pass: %+v", v)
		}
	}
}

// graphLog is what rank 0 of 2 × H200 prints under NCCL 2.28.9 for
// nccl-tests -G 1 at 64 MiB, written from the report of the same user
// (the repository holds no such capture): out-of-place Ring/Simple
// AllReduce and AllGather on channels 0..15 (their buffers registered over
// IPC at capture), ReduceScatter and the in-place AllReduce on 0..23.
func graphLog() string {
	var b strings.Builder
	b.WriteString("vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n")
	b.WriteString("vm:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n")
	for _, l := range []string{
		"AllReduce: 67108864 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}",
		"AllReduce: 67108864 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}",
		"AllGather: 67108864 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..15}",
		"ReduceScatter: 67108864 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}",
	} {
		b.WriteString("vm:1:1 [0] NCCL INFO " + l + "\n")
	}
	return b.String()
}

// TestPredictGraphLines: every line of a captured run agrees when the log
// is diagnosed as captured (out of place and in place both predicted); on
// a stream the registered 0..15 lines are caught as differing, and with
// the wrong group size too.
func TestPredictGraphLines(t *testing.T) {
	for _, c := range []struct {
		launch        spec.Launch
		agree, differ int
	}{
		{spec.Launch{Mode: spec.LaunchGraph}, 4, 0},
		{spec.Launch{}, 2, 2},
		{spec.Launch{Mode: spec.LaunchGraph, Agg: 2}, 0, 4},
	} {
		agree, differ, ops := agreeOnH200x2(t, graphLog(), 4, c.launch)
		if agree != c.agree || differ != c.differ {
			t.Errorf("%+v: %d lines agree, %d differ, want %d and %d: %+v", c.launch, agree, differ, c.agree, c.differ, ops)
		}
	}
}

// parseOnH200x2 reads log and returns it with the 2 × H200 system the
// tests predict it on.
func parseOnH200x2(t *testing.T, log string) (*ncclog.Log, *spec.System) {
	t.Helper()
	l, err := ncclog.Parse(strings.NewReader(log), "test.log")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l, sys
}

// TestPredictUnmodelledRelease: a log of a release gatesim does not model
// is predicted, as the report without a machine says, with the nearest
// older modelled release, and the comparison says so; --nccl (given)
// overrides the log's release and says so; a log older than every
// modelled release predicts nothing, says why, and leaves the observed
// rows not predicted (no difference).
func TestPredictUnmodelledRelease(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "golden", "testdata", "captured", "h200x2-2.28.9", "baseline", "nccl.log"))
	if err != nil {
		t.Fatal(err)
	}
	newest, oldest := spec.Releases[len(spec.Releases)-1], spec.Releases[0]
	for _, tc := range []struct {
		name, from, to string
		given          string
		rel            spec.Version // 0: nothing predicted
		notes          []string
	}{
		{"modelled", "", "", "", mustVersion(t, "2.28.9"), nil},
		{"newer than all", "version 2.28.9", "version 2.31.2", "", newest,
			[]string{"NCCL 2.31.2 is not modelled", "predicting with NCCL " + newest.String() + ", the nearest older modelled release"}},
		{"an unmodelled patch", "version 2.28.9", "version 2.28.10", "", mustVersion(t, "2.28.9"),
			[]string{"NCCL 2.28.10 is not modelled", "predicting with NCCL 2.28.9"}},
		{"given overrides", "version 2.28.9", "version 2.31.2", "2.28.9", mustVersion(t, "2.28.9"),
			[]string{"the log names NCCL 2.31.2; predicting with NCCL 2.28.9 as --nccl gives"}},
		{"given overrides a modelled one", "", "", "2.27.7", mustVersion(t, "2.27.7"),
			[]string{"the log names NCCL 2.28.9; predicting with NCCL 2.27.7"}},
		{"older than all", "version 2.28.9", "version 2.4.8", "", 0,
			[]string{"NCCL 2.4.8 is older than " + oldest.String() + ", the oldest modelled release: nothing is predicted"}},
		{"older than all, given", "version 2.28.9", "version 2.4.8", "2.28.9", mustVersion(t, "2.28.9"),
			[]string{"the log names NCCL 2.4.8; predicting with NCCL 2.28.9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := string(base)
			if tc.from != "" {
				if !strings.Contains(text, tc.from) {
					t.Fatalf("the capture's log lacks %q", tc.from)
				}
				text = strings.ReplaceAll(text, tc.from, tc.to)
			}
			l, sys := parseOnH200x2(t, text)
			var given spec.Version
			if tc.given != "" {
				given = mustVersion(t, tc.given)
			}
			p, err := PredictLaunch(l, given, sys, nil, nil, spec.Launch{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Release != tc.rel {
				t.Errorf("predicted with %s, want %s", p.Release, tc.rel)
			}
			c := Compare(p, Diagnose(l, Options{Release: given}).Obs)
			var out strings.Builder
			if err := c.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.notes {
				if !strings.Contains(out.String(), "note: ") || !strings.Contains(strings.Join(c.Notes, "\n"), want) {
					t.Errorf("notes %q lack %q", c.Notes, want)
				}
			}
			if len(tc.notes) == 0 && len(c.Notes) > 0 {
				t.Errorf("notes %q for the log's own release", c.Notes)
			}
			if tc.rel == 0 {
				if len(p.Decisions) > 0 || c.Counts[string(Agree)] > 0 || c.Differences() > 0 || c.Counts[string(NotPredicted)] == 0 {
					t.Errorf("nothing predicted, yet %v", c.Counts)
				}
			} else if len(p.Decisions) < 10 || c.Counts[string(Agree)] < 10 {
				t.Errorf("%d decisions, %v", len(p.Decisions), c.Counts)
			}
		})
	}
	// without a machine, the report says the same for both ranges
	for v, want := range map[string]string{
		"2.31.2": "predictions would use the nearest older one, " + newest.String(),
		"2.4.8":  "NCCL 2.4.8 is older than " + oldest.String() + ", the oldest release gatesim models: nothing can be predicted",
	} {
		l, _ := parseOnH200x2(t, strings.ReplaceAll(string(base), "version 2.28.9", "version "+v))
		if r := Diagnose(l, Options{}); !strings.Contains(strings.Join(r.Missing, "\n"), want) {
			t.Errorf("%s: the report's missing list lacks %q: %q", v, want, r.Missing)
		}
	}
}

func mustVersion(t *testing.T, s string) spec.Version {
	t.Helper()
	v, err := spec.ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

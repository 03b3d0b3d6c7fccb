package tuner

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/internal/tunertest"
	"github.com/gatesim/gatesim/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The test tuners of this test binary, built once into buildDir.
var (
	buildDir string
	libs     sync.Map // "v3-force" → *Library
)

func testLib(t *testing.T, version int, mode string) *Library {
	t.Helper()
	key := fmt.Sprintf("v%d-%s", version, mode)
	if l, ok := libs.Load(key); ok {
		return l.(*Library)
	}
	so := tunertest.Build(t, buildDir, version, mode)
	l, err := Load(so, Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	libs.Store(key, l)
	return l
}

var topoCache = spec.NewCache(0)

func attach(t *testing.T, l *Library, v spec.Version, preset string, nodes int, env spec.Env) *Session {
	t.Helper()
	sys, err := spec.Preset(preset, spec.PresetOptions{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.Attach(topoCache.Init, spec.MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func op(t *testing.T, f spec.Func, bytes int64) spec.Op {
	o, err := spec.OpFromBytes(f, bytes, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// gateLog is the log text and outcome of one rule in a trace.
func gateLog(tr spec.Trace, id spec.RuleID) (spec.Outcome, []string) {
	for _, v := range tr {
		if v.Rule == id {
			return v.Outcome, v.Log
		}
	}
	return spec.Skip, nil
}

// TestABIWindow: every ABI version loads on the releases whose loader
// accepts it and is refused on the others, with NCCL's log text.
func TestABIWindow(t *testing.T) {
	for _, v := range spec.Releases {
		accepts := spec.MustLoad(v).Consts.TunerABI
		for _, abi := range tunertest.Versions {
			t.Run(fmt.Sprintf("%s/v%d", v, abi), func(t *testing.T) {
				l := testLib(t, abi, "identity")
				s := attach(t, l, v, "dgx-h100", 2, nil)
				_, tr, err := s.Select(op(t, spec.AllReduce, 1<<20))
				if err != nil {
					t.Fatal(err)
				}
				out, log := gateLog(tr, "G-TUNER-ABI-1")
				name := fmt.Sprintf("gatesim-test-v%d", abi)
				var want []string
				ok := slices.Contains(accepts, abi)
				switch {
				case v == spec.V2_22_3 && abi == 3:
					want = []string{"TUNER/Plugin: Using tuner plugin " + name}
				case v == spec.V2_22_3 && abi == 2:
					want = []string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v3 symbol.", "TUNER/Plugin: Using tuner plugin " + name}
				case v == spec.V2_22_3:
					want = []string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v3 symbol.", "TUNER/Plugin: Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead."}
				case v < spec.V2_28_3: // one line per symbol not found, newest first
					for i, x := range accepts {
						if x == abi {
							break
						}
						if i == len(accepts)-1 {
							want = append(want, fmt.Sprintf("TUNER/Plugin: Failed to find ncclTunerPlugin_v%d symbol, using internal tuner instead.", x))
						} else {
							want = append(want, fmt.Sprintf("TUNER/Plugin: Failed to find ncclTunerPlugin_v%d symbol.", x))
						}
					}
					if ok {
						want = append(want, "TUNER/Plugin: Using tuner plugin "+name)
					}
				case ok:
					want = []string{fmt.Sprintf("TUNER/Plugin: Using %s (v%d)", name, abi), "Successfully loaded external tuner plugin " + l.Path}
				default:
					want = []string{"External tuner plugin " + l.Path + " is unsupported"}
				}
				if ok != (s.Report.ABI == abi) || (!ok && s.Report.ABI != 0) {
					t.Errorf("accepted ABI %d, want accepted=%v (window %v)", s.Report.ABI, ok, accepts)
				}
				if (out == spec.Pass) != ok {
					t.Errorf("G-TUNER-ABI-1 %s, want pass=%v", out, ok)
				}
				if !slices.Equal(log, want) {
					t.Errorf("log %q\nwant %q", log, want)
				}
				if ok && (!slices.ContainsFunc(s.Report.InitLog, func(l string) bool { return strings.Contains(l, "nRanks 16 nNodes 2") })) {
					t.Errorf("init log %q: want the tuner's message with nRanks 16 nNodes 2", s.Report.InitLog)
				}
			})
		}
	}
}

// TestIllegalV2Ignored: a v2 tuner naming an IGNORE cell (CollNetDirect
// without CollNet) is ignored by the adapter: NCCL's choice stands.
func TestIllegalV2Ignored(t *testing.T) {
	for _, v := range spec.Releases {
		s := attach(t, testLib(t, 2, "illegal"), v, "dgx-h100", 2, nil)
		for _, b := range []int64{4 << 10, 1 << 20, 256 << 20} {
			d, _, err := s.Select(op(t, spec.AllReduce, b))
			if err != nil {
				t.Fatal(err)
			}
			if d.Tuner == nil || d.Tuner.Ignored == "" || len(d.Tuner.Edits) != 0 {
				t.Fatalf("%s %d B: tuner effect %+v: want the v2 choice ignored and no edit", v, b, d.Tuner)
			}
			if d.Tuner.Changed(d) {
				t.Errorf("%s %d B: %s/%s, without the plugin %s: an ignored choice changed it", v, b, d.Algo, d.Proto, d.Tuner.Without)
			}
		}
	}
}

// TestIllegalV3NotRevalidated: from v3 the tuner writes the table and
// NCCL scans it without re-validation: a time written into an IGNORE cell
// wins (the trace says NCCL had ruled it out).
func TestIllegalV3NotRevalidated(t *testing.T) {
	s := attach(t, testLib(t, 3, "illegal"), spec.V2_28_9, "dgx-h100", 2, nil)
	d, _, err := s.Select(op(t, spec.AllReduce, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if d.Algo != spec.CollNetDirect || d.Proto != spec.Simple || d.DecidedBy != "G-TUNER-CALL-1" {
		t.Errorf("%s/%s by %s: want CollNetDirect/Simple by G-TUNER-CALL-1", d.Algo, d.Proto, d.DecidedBy)
	}
}

// TestInitFail: init returning an error fails communicator init, with
// the tuner's own message in the trace; finalize is still called.
func TestInitFail(t *testing.T) {
	for _, abi := range []int{3, 5} {
		s := attach(t, testLib(t, abi, "initfail"), spec.V2_28_9, "dgx-h100", 2, nil)
		d, tr, err := s.Select(op(t, spec.AllReduce, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		out, log := gateLog(tr, "G-TUNER-INIT-1")
		if out != spec.Fail || d.Err == nil || !slices.Contains(log, "gatesim test tuner: init refuses (mode initfail)") {
			t.Errorf("v%d: G-TUNER-INIT-1 %s %q, decision error %v: want a failed init with the tuner's message", abi, out, log, d.Err)
		}
		s.Close()
		if !s.Report.Finalized {
			t.Errorf("v%d: finalize not called after a failed init", abi)
		}
	}
}

// TestFaultContained: a tuner that crashes or hangs in getCollInfo is
// reported; the session answers no further calls but nothing else fails.
func TestFaultContained(t *testing.T) {
	for _, mode := range []string{"crash", "hang"} {
		s := attach(t, testLib(t, 4, mode), spec.V2_28_9, "dgx-h100", 2, nil)
		d, _, err := s.Select(op(t, spec.AllReduce, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"crash": "crashed during getCollInfo: signal: segmentation fault", "hang": "hung during getCollInfo"}[mode]
		if d.Tuner == nil || !strings.Contains(d.Tuner.Answer.Fault, want) || d.Algo != spec.AlgoNone {
			t.Fatalf("%s: decision %s/%s, tuner %+v: want the fault %q reported", mode, d.Algo, d.Proto, d.Tuner, want)
		}
		d2, _, err := s.Select(op(t, spec.AllReduce, 4<<10))
		if err != nil || d2.Tuner != nil {
			t.Errorf("%s: after the fault: %v, tuner %+v: want plain NCCL (the plugin is gone)", mode, err, d2.Tuner)
		}
	}
}

// TestConstantEdits: a v5/v6 init's constant edit reaches the tuning
// model (Ring/LL's base latency, hence its time).
func TestConstantEdits(t *testing.T) {
	for _, abi := range []int{5} { // v6 is accepted by no modelled release
		s := attach(t, testLib(t, abi, "edit"), spec.V2_28_9, "dgx-h100", 2, nil)
		if len(s.Report.Constants) != 1 || s.Report.Constants[0].Path != "baseLatencies[Ring][LL]" {
			t.Fatalf("v%d: constant edits %+v: want baseLatencies[Ring][LL]", abi, s.Report.Constants)
		}
		plain := attach(t, testLib(t, abi, "identity"), spec.V2_28_9, "dgx-h100", 2, nil)
		o := op(t, spec.AllReduce, 4<<10)
		d, _, _ := s.Select(o)
		p, _, _ := plain.Select(o)
		if got, want := cost(d.Tuner.Call.Table, spec.Ring, spec.LL)-cost(p.Tuner.Call.Table, spec.Ring, spec.LL), 50.0; got < want-0.01 || got > want+0.01 {
			t.Errorf("v%d: Ring/LL time +%.3f µs with the edit: want +%.0f", abi, got, want)
		}
		if d.NChannels != 4 {
			t.Errorf("v%d: nChannels %d: want the tuner's 4", abi, d.NChannels)
		}
	}
}

func cost(t spec.TunerTable, a spec.Algo, p spec.Proto) float64 { return float64(t[a][p]) }

// TestGolden records, per release, ABI version and behaviour, what the
// plugin did on two presets at three sizes.
func TestGolden(t *testing.T) {
	modes := []string{"force", "edit", "illegal"}
	presets := []struct {
		name  string
		nodes int
	}{{"dgx-h100", 2}, {"h200x2", 1}}
	for _, v := range spec.Releases {
		var b strings.Builder
		for _, abi := range tunertest.Versions {
			for _, mode := range modes {
				l := testLib(t, abi, mode)
				for _, p := range presets {
					s := attach(t, l, v, p.name, p.nodes, nil)
					fmt.Fprintf(&b, "v%d %s %s×%d: abi %d", abi, mode, p.name, p.nodes, s.Report.ABI)
					if len(s.Report.Constants) > 0 {
						fmt.Fprintf(&b, " constants %v", s.Report.Constants)
					}
					b.WriteString("\n")
					for _, f := range []spec.Func{spec.AllReduce, spec.AllGather} {
						for _, size := range []int64{4 << 10, 1 << 20, 256 << 20} {
							d, _, err := s.Select(op(t, f, size))
							if err != nil {
								t.Fatal(err)
							}
							fmt.Fprintf(&b, "  %s %d: %s", f, size, goldenLine(d))
							b.WriteString("\n")
						}
					}
					s.Close()
				}
			}
		}
		goldenfile.Check(t, filepath.Join("testdata", "golden", "tuner-"+v.String()+".txt"), b.String(), *update)
	}
}

func goldenLine(d *spec.Decision) string {
	with := d.Algo.String() + "/" + d.Proto.String()
	if d.Err != nil {
		with = "error " + d.Err.Result.String()
	}
	e := d.Tuner
	if e == nil {
		return with + " (no call)"
	}
	s := fmt.Sprintf("%s nch %d (without %s nch %d)", with, d.NChannels, e.Without, e.WithoutNChannels)
	if e.Changed(d) {
		s += " CHANGED"
	}
	if len(e.Edits) > 0 {
		s += " edits " + strings.Join(e.Edits, ", ")
	}
	if e.Ignored != "" {
		s += " ignored: " + e.Ignored
	}
	return s
}

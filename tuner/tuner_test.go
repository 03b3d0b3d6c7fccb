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

	"github.com/gatesim/gatesim/algos"
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
				out, log := gateLog(tr.Trace(), "G-TUNER-ABI-1")
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
				case len(accepts) == 1 && accepts[0] == 1: // ncclLoadTunerPlugin (2.19.1–2.20.5)
					want = []string{"Tuner: failed to find ncclTunerPlugin_v1 in plugin (" + filepath.Base(l.Path) + "), using default tuner instead."}
					if ok {
						want = []string{"Opened tuner: '" + name + "'", "Using tuner plugin: '" + name + "'"}
					}
				case len(accepts) == 1: // 2.21.5: NCCL_TUNER_PLUGIN_SYMBOL only
					want = []string{fmt.Sprintf("TUNER/Plugin: Failed to find ncclTunerPlugin_v%d, using internal tuner instead.", accepts[0])}
					if ok {
						want = []string{"TUNER/Plugin: Using tuner plugin " + name}
					}
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
		if c, err := spec.ConstsFor(v); err != nil || !slices.Contains(c.TunerABI, 2) {
			continue // a release that does not load a v2 tuner (2.20.5: v1 only)
		}
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
		out, log := gateLog(tr.Trace(), "G-TUNER-INIT-1")
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
	for abi, v := range map[int]spec.Version{5: spec.V2_28_9, 6: spec.V2_30_7} {
		s := attach(t, testLib(t, abi, "edit"), v, "dgx-h100", 2, nil)
		if len(s.Report.Constants) != 1 || s.Report.Constants[0].Path != "baseLatencies[Ring][LL]" {
			t.Fatalf("v%d: constant edits %+v: want baseLatencies[Ring][LL]", abi, s.Report.Constants)
		}
		plain := attach(t, testLib(t, abi, "identity"), v, "dgx-h100", 2, nil)
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
// plugin did on two presets at three sizes; for a v6 tuner on 2.30 also
// each getChunkSize call of the schedule (NCCL's chunk → the tuner's).
func TestGolden(t *testing.T) {
	modes := []string{"force", "edit", "illegal"}
	presets := []struct {
		name  string
		nodes int
	}{{"dgx-h100", 2}, {"h200x2", 1}}
	for _, v := range goldenReleases {
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
							if sz := s.ChunkSizer(); sz != nil && d.Err == nil && d.Algo != spec.AlgoNone {
								n := len(s.Report.Chunks)
								if _, err := chunkCounts(t, s, op(t, f, size), d, sz); err != nil {
									fmt.Fprintf(&b, " (no schedule: %v)", err)
								}
								for _, c := range s.Report.Chunks[n:] {
									fmt.Fprintf(&b, " getChunkSize %d→%d", c.NCCL, c.Asked)
									if c.Clamped {
										fmt.Fprintf(&b, " (clamped to %d)", c.BufferMax)
									}
								}
							}
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

// goldenReleases are the releases TestGolden records: one per tuner
// contract (2.22.3: v3/v2 after the model; 2.28.3: v5..v2 before it; 2.30.7:
// v6 with getChunkSize, as 2.30.3 and 2.30.4) and the captured 2.28.9. Each
// plugin session starts a child process, so recording every release would
// triple the test's time; TestABIWindow and TestV6ChunkSize walk them all.
var goldenReleases = []spec.Version{spec.V2_22_3, spec.V2_28_3, spec.V2_28_9, spec.V2_30_7}

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

// chunkCounts builds op's schedule as NCCL would run d, with and without
// the session's getChunkSize, and returns the chunk of every channel.
func chunkCounts(t *testing.T, s *Session, o spec.Op, d *spec.Decision, sizer algos.ChunkSizer) ([]int64, error) {
	t.Helper()
	l, err := algos.LayoutFromComm(s.Comm)
	if err != nil {
		t.Fatal(err)
	}
	sel := algos.Selection{Algo: d.Algo, Proto: d.Proto, NChannels: d.NChannels}
	sch, err := algos.Build(o, sel, l, algos.Options{ChunkSize: sizer})
	if err != nil {
		return nil, err
	}
	return sch.ChunkCounts(), nil
}

// TestV6ChunkSize: a v6 tuner's getChunkSize is called where 2.30's
// calcCollChunking calls it, with NCCL's chunk; the answer replaces the
// chunk, clamped to the buffer's step-sized chunk; a failing call fails
// the collective and a crash is contained. Releases before 2.30.3 never
// call it (they refuse the v6 symbol).
func TestV6ChunkSize(t *testing.T) {
	o := op(t, spec.AllReduce, 256<<20)
	for _, v := range spec.Releases {
		rs := spec.MustLoad(v)
		for _, p := range []struct {
			name  string
			nodes int
		}{{"dgx-h100", 2}, {"h200x2", 1}, {"dgx-b200", 1}} {
			t.Run(fmt.Sprintf("%s/%s", v, p.name), func(t *testing.T) {
				half := attach(t, testLib(t, 6, "edit"), v, p.name, p.nodes, nil)
				if !slices.Contains(rs.Consts.TunerABI, 6) {
					if half.Report.ABI != 0 || half.ChunkSizer() != nil {
						t.Fatalf("ABI %d, chunk sizer %v: %s refuses v6", half.Report.ABI, half.ChunkSizer(), v)
					}
					return
				}
				if half.Report.ABI != 6 || !half.Report.HasChunk || half.ChunkSizer() == nil {
					t.Fatalf("ABI %d, getChunkSize set %v: want v6 with getChunkSize called", half.Report.ABI, half.Report.HasChunk)
				}
				d, _, err := half.Select(o)
				if err != nil || d.Err != nil {
					t.Fatal(err, d.Err)
				}
				plain, err := chunkCounts(t, half, o, d, nil)
				if err != nil {
					t.Fatal(err)
				}
				halved, err := chunkCounts(t, half, o, d, half.ChunkSizer())
				if err != nil {
					t.Fatal(err)
				}
				if len(half.Report.Chunks) == 0 {
					t.Fatal("getChunkSize never called")
				}
				for _, c := range half.Report.Chunks {
					if c.Asked != uint64(c.NCCL)/2 || c.Clamped || c.Func != spec.AllReduce || c.Algo != d.Algo || c.Proto != d.Proto {
						t.Errorf("call %+v: want half of NCCL's chunk for %s/%s, not clamped", c, d.Algo, d.Proto)
					}
				}
				if slices.Equal(plain, halved) {
					t.Errorf("%s/%s: chunks %v with the tuner's halving and %v without: want them to differ", d.Algo, d.Proto, halved, plain)
				}

				// the illegal tuner's own choice (CollNetDirect) cannot run
				// here: its getChunkSize is asked on the choice above
				big := attach(t, testLib(t, 6, "illegal"), v, p.name, p.nodes, nil)
				if _, err := chunkCounts(t, big, o, d, big.ChunkSizer()); err != nil {
					t.Fatal(err)
				}
				for _, c := range big.Report.Chunks {
					if !c.Clamped || c.Asked != 1<<30 || c.NCCL > c.BufferMax {
						t.Errorf("call %+v: want 1 GiB asked and clamped to %d", c, c.BufferMax)
					}
				}

				fail := attach(t, testLib(t, 6, "chunkfail"), v, p.name, p.nodes, nil)
				if _, err := chunkCounts(t, fail, o, d, fail.ChunkSizer()); err == nil || !strings.Contains(err.Error(), "getChunkSize returned ncclInternalError") {
					t.Errorf("chunkfail: %v: want the collective to fail with the tuner's result", err)
				}
				if len(fail.Report.Chunks) == 0 || !slices.Contains(fail.Report.Chunks[0].Log, "gatesim test tuner: getChunkSize refuses (mode chunkfail)") {
					t.Errorf("chunkfail: calls %+v: want the tuner's message", fail.Report.Chunks)
				}

				crash := attach(t, testLib(t, 6, "chunkcrash"), v, p.name, p.nodes, nil)
				if _, err := chunkCounts(t, crash, o, d, crash.ChunkSizer()); err == nil || !strings.Contains(crash.Report.Fault, "crashed during getChunkSize") {
					t.Errorf("chunkcrash: %v, fault %q: want the crash reported", err, crash.Report.Fault)
				}
				if d2, _, err := crash.Select(op(t, spec.AllReduce, 4<<10)); err != nil || d2.Tuner != nil || crash.ChunkSizer() != nil {
					t.Errorf("after the crash: %v, tuner %+v: want plain NCCL", err, d2)
				}
			})
		}
	}
}

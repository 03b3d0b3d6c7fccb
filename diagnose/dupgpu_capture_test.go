package diagnose

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// dupGPUCaptures are the releases captured with two ranks on one H200
// (hw/testdata/device/README.md, "Two ranks on one GPU"): every directory
// of hw/testdata/device/dupgpu (TestDupGPUCapturesListed).
var dupGPUCaptures = []spec.Version{spec.V2_19_1, spec.V2_19_4, spec.V2_23_4, spec.V2_24_3, spec.V2_25_1, spec.V2_26_3, spec.V2_26_6, spec.V2_27_6, spec.V2_28_3, spec.V2_28_7, spec.V2_28_9, spec.V2_29_3}

// resultLine is dupgpu.py's summary of each call: its return code and
// what ncclGetLastError said afterwards.
var resultLine = regexp.MustCompile(`(?m)^RESULT .*\brc=(\d+) .* last='(.*)'$`)

// abortLine is glibc's last word when the process died inside the call
// (2.24.3, 2.25.1): dupgpu.py never printed a RESULT.
var abortLine = regexp.MustCompile(`(?m)^free\(\): double free detected in tcache 2\n?\z`)

// readDupGPUCapture reads one captured log and its RESULT line. A log that
// ends in glibc's abort instead has none: aborted is set, rc is the result
// the last error return before it carried and last the WARN it printed
// (the text ncclGetLastError would have returned).
func readDupGPUCapture(t *testing.T, v spec.Version, name string) (l *ncclog.Log, rc spec.Result, last string, aborted bool) {
	t.Helper()
	path, data := dupGPUFile(t, v, name)
	var err error
	if l, err = ncclog.Parse(strings.NewReader(string(data)), name); err != nil {
		t.Fatal(err)
	}
	m := resultLine.FindStringSubmatch(string(data))
	if m == nil {
		if !abortLine.Match(data) {
			t.Fatalf("%s: no RESULT line and no abort at its end", path)
		}
		var ret *ncclog.LogError
		for i, e := range l.Errors {
			if e.HasResult && (ret == nil || e.First.At.Line > ret.First.At.Line) {
				ret = &l.Errors[i]
			}
			if e.Level == ncclog.LevelWarn {
				last = e.Msg
			}
		}
		if ret == nil || last == "" {
			t.Fatalf("%s: an abort without a WARN and an error return before it", path)
		}
		return l, ret.Result, last, true
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatalf("%s: rc %q", path, m[1])
	}
	return l, spec.Result(n), m[2], false
}

// TestDupGPUCapturesListed: dupGPUCaptures is every captured release, so
// no capture goes unchecked.
func TestDupGPUCapturesListed(t *testing.T) {
	dir := filepath.Join("..", "hw", "testdata", "device", "dupgpu")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		if e.IsDir() {
			got = append(got, e.Name())
		}
	}
	var want []string
	for _, v := range dupGPUCaptures {
		want = append(want, v.String())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s holds %v; dupGPUCaptures lists %v", dir, got, want)
	}
}

// dupGPUFile reads one captured log of hw/testdata/device/dupgpu.
func dupGPUFile(t *testing.T, v spec.Version, name string) (string, []byte) {
	t.Helper()
	path := filepath.Join("..", "hw", "testdata", "device", "dupgpu", v.String(), name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// resultOf is the RESULT line of one captured rank log.
func resultOf(t *testing.T, v spec.Version, name string) string {
	t.Helper()
	_, data := dupGPUFile(t, v, name)
	return resultLine.FindString(string(data))
}

// dupGPUSystem is the captured machine: both ranks on CUDA device 0 of
// one H200 at the bus id the logs print.
func dupGPUSystem(t *testing.T) *spec.System { return systemFile(t, "dupgpu-h200.json") }

// systemFile reads golden/testdata/systems/name.
func systemFile(t *testing.T, name string) *spec.System {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "golden", "testdata", "systems", name))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.ParseSystem(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestDupGPUCaptured: two processes of one host on one CUDA device, per
// captured release. The log reader reads each rank's "Duplicate GPU
// detected" WARN (the text ncclGetLastError returned), diagnose names
// G-DEV-DUP-1 and the return code the call returned, and the model
// predicts rank 0's WARN word for word and the same code. At 2.24.3 and
// 2.25.1 each process died in ncclCommInitRank with glibc's double free
// instead: the reader observes G-INIT-ABORT-1, diagnose names the abort,
// the model predicts it (there and nowhere else), and the same log
// diagnosed as 2.26.2, which returns the error, differs on that gate.
// Ref: v2.28.9-1 src/init.cc initTransportsRank; v2.24.3-1 src/init.cc
// ncclCommInitRankDev
func TestDupGPUCaptured(t *testing.T) {
	sys := dupGPUSystem(t)
	id, err := topo.BusIDToInt64(sys.Nodes[0].GPUs[0].BusID)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range dupGPUCaptures {
		for _, name := range []string{"rank0.log", "rank1.log"} {
			l, rc, last, aborted := readDupGPUCapture(t, v, name)
			// Before 2.20 only rank 0 logs "NCCL version"; dupgpu.py's
			// RESULT line carries what ncclGetVersion returned to each.
			if l.Release != v && (l.Release != 0 || !strings.Contains(resultOf(t, v, name), fmt.Sprintf("version=%d ", v.Code()))) {
				t.Errorf("%s %s: release %s", v, name, l.Release)
			}
			var warn *ncclog.LogError
			for i, e := range l.Errors {
				if e.Kind == "init.dupgpu" {
					warn = &l.Errors[i]
				}
			}
			if warn == nil || warn.Level != ncclog.LevelWarn || warn.Msg != last {
				t.Fatalf("%s %s: the reader's dup-GPU WARN %+v, want %q", v, name, warn, last)
			}
			if len(l.Comms) != 1 || l.Comms[0].BusID != fmt.Sprintf("%x", id) || l.Comms[0].CudaDev != sys.Nodes[0].GPUs[0].Dev {
				t.Errorf("%s %s: comms %+v: want CUDA device %d at bus id %x, as the system file says", v, name, l.Comms, sys.Nodes[0].GPUs[0].Dev, id)
			}
			rep := Diagnose(l, Options{})
			var f, ab *Finding
			for i := range rep.Findings {
				switch rep.Findings[i].Rule {
				case "G-DEV-DUP-1":
					f = &rep.Findings[i]
				case "G-INIT-ABORT-1":
					ab = &rep.Findings[i]
				}
			}
			want := "returning " + rc.String()
			if aborted {
				want = "its error path carrying " + rc.String()
			}
			if f == nil || f.Severity != Error || !strings.HasSuffix(f.Title, ", "+want) {
				t.Errorf("%s %s: finding %+v: want G-DEV-DUP-1 %s", v, name, f, want)
			}
			if (ab != nil) != aborted || ab != nil && ab.Severity != Error {
				t.Errorf("%s %s: abort finding %+v, want one: %v", v, name, ab, aborted)
			}
			if name != "rank0.log" {
				continue
			}
			comm, err := spec.Init(spec.MustLoad(v), sys, spec.Env{})
			if err != nil {
				t.Fatal(err)
			}
			if comm.Err == nil || comm.Err.Result != rc || comm.Err.Message != last || (comm.Err.Abort != nil) != aborted {
				t.Errorf("%s: the model's init error %v, want %s %q, aborting: %v", v, comm.Err, rc, last, aborted)
			}
			if by := decidedBy(t, comm); by != "G-DEV-DUP-1" {
				t.Errorf("%s: the model's deciding gate %s, want G-DEV-DUP-1", v, by)
			}
			// diagnose with the captured machine: the observed G-DEV-DUP-1
			// agrees with the prediction, and nothing differs
			pred, err := Predict(l, v, sys, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			cmp := Compare(pred, rep.Obs)
			agreed, abortAgreed := false, false
			for _, g := range cmp.Gates {
				agreed = agreed || g.Rule == "G-DEV-DUP-1" && g.Agreement == Agree
				abortAgreed = abortAgreed || g.Rule == "G-INIT-ABORT-1" && g.Agreement == Agree && g.Observed == "fail"
			}
			if !agreed || abortAgreed != aborted || cmp.Differences() != 0 {
				t.Errorf("%s: G-DEV-DUP-1 agreed %v, the abort agreed %v (want %v), %d differences: %+v", v, agreed, abortAgreed, aborted, cmp.Differences(), cmp.Gates)
			}
			if !aborted {
				continue
			}
			// the wrong release: 2.26.2 returns the error this log never
			// returned (the log's version line names the release Predict uses)
			wrong := *l
			wrong.Release = spec.V2_26_2
			pred, err = Predict(&wrong, spec.V2_26_2, sys, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			cmp = Compare(pred, rep.Obs)
			caught := false
			for _, g := range cmp.Gates {
				caught = caught || g.Rule == "G-INIT-ABORT-1" && g.Agreement == Differ
			}
			if !caught || cmp.Differences() == 0 {
				t.Errorf("%s log as 2.26.2: G-INIT-ABORT-1 differs %v, %d differences: %+v", v, caught, cmp.Differences(), cmp.Gates)
			}
		}
	}
}

// TestInitAbortReportedOnce: at 2.24.3 and 2.25.1 each captured process
// died of glibc's double free on ncclCommInitRank's error path after the
// dup-GPU WARN. The report names that abort once: one finding cites the
// double-free line, is G-INIT-ABORT-1's and says the process aborted
// (init.abort), beside init.dupgpu, which names the WARN and the result
// its error path carried. So does the report of both ranks' logs read as
// one (a directory of them), which holds two double-free lines.
func TestInitAbortReportedOnce(t *testing.T) {
	for _, v := range []spec.Version{spec.V2_24_3, spec.V2_25_1} {
		rank0, _, _, aborted0 := readDupGPUCapture(t, v, "rank0.log")
		rank1, _, _, aborted1 := readDupGPUCapture(t, v, "rank1.log")
		if !aborted0 || !aborted1 {
			t.Fatalf("%s: aborted %v %v: want both captured processes aborted", v, aborted0, aborted1)
		}
		p := ncclog.NewParser()
		for _, name := range []string{"rank0.log", "rank1.log"} {
			_, data := dupGPUFile(t, v, name)
			if err := p.Parse(strings.NewReader(string(data)), name); err != nil {
				t.Fatal(err)
			}
		}
		both := p.Finish()
		for name, l := range map[string]*ncclog.Log{"rank0.log": rank0, "rank1.log": rank1, "both": both} {
			frees := l.SamplesOf(ncclog.KindDoubleFree)
			if len(frees) == 0 {
				t.Fatalf("%s %s: no double-free line read", v, name)
			}
			var citing, byRule, saying []string
			dup := false
			for _, f := range Diagnose(l, Options{}).Findings {
				for _, e := range f.Evidence {
					if slices.ContainsFunc(frees, func(s ncclog.Sample) bool { return s.At == e.At }) {
						citing = append(citing, f.ID)
						break
					}
				}
				if f.Rule == "G-INIT-ABORT-1" {
					byRule = append(byRule, f.ID)
				}
				if strings.Contains(f.Title, "abort") {
					saying = append(saying, f.ID)
				}
				dup = dup || f.ID == "init.dupgpu"
			}
			for what, ids := range map[string][]string{"cite the double-free line": citing, "name G-INIT-ABORT-1": byRule, "say the process aborted": saying} {
				if len(ids) != 1 || ids[0] != "init.abort" {
					t.Errorf("%s %s: findings that %s: %v, want init.abort alone", v, name, what, ids)
				}
			}
			if !dup {
				t.Errorf("%s %s: no init.dupgpu finding", v, name)
			}
		}
	}
}

// decidedBy is the gate a failed communicator's first AllReduce names.
func decidedBy(t *testing.T, comm *spec.Comm) spec.RuleID {
	t.Helper()
	op, err := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := comm.Select(op)
	if err != nil {
		t.Fatal(err)
	}
	return d.DecidedBy
}

// TestInitAllDupCaptured: one process calling ncclCommInitAll with
// devlist {0, 0}, per captured release: the call returns its code with no
// WARN and an empty ncclGetLastError, and the model (procs init-all on the
// captured machine) returns the same code and message, decided by
// G-DEV-DUP-2, with no WARN among its lines.
// Ref: v2.28.9-1 src/init.cc ncclCommInitAll
func TestInitAllDupCaptured(t *testing.T) {
	sys := dupGPUSystem(t)
	sys.Procs = spec.ProcsInitAll
	for _, v := range dupGPUCaptures {
		l, rc, last, aborted := readDupGPUCapture(t, v, "initall.log")
		if aborted {
			t.Fatalf("%s: ncclCommInitAll aborted", v)
		}
		for _, e := range l.Errors {
			if e.Level == ncclog.LevelWarn {
				t.Errorf("%s: the capture has a WARN %q", v, e.Msg)
			}
		}
		comm, err := spec.Init(spec.MustLoad(v), sys, spec.Env{})
		if err != nil {
			t.Fatal(err)
		}
		if comm.Err == nil || comm.Err.Result != rc || comm.Err.Message != last || comm.Err.Call != "ncclCommInitAll" || comm.Err.Abort != nil {
			t.Errorf("%s: the model's init error %+v, want ncclCommInitAll's %s %q", v, comm.Err, rc, last)
		}
		if by := decidedBy(t, comm); by != "G-DEV-DUP-2" {
			t.Errorf("%s: the model's deciding gate %s, want G-DEV-DUP-2", v, by)
		}
		for _, vd := range comm.Trace {
			for _, line := range vd.Log {
				if strings.Contains(line, "Duplicate GPU") {
					t.Errorf("%s: the model prints %q (%s)", v, line, vd.Rule)
				}
			}
		}
	}
}

// TestMultiRankAllowedCaptured: two processes of one host on CUDA device
// 0 with NCCL_MULTI_RANK_GPU_ENABLE=1 (hw/testdata/device/multirank/R/
// dup-on), per captured 2.30.x release: both calls succeed, and the model
// builds the communicator; at 2.30.3–2.30.4 rank 0 prints ncclCheckMultiRank's
// "Detected ranks 0 and 1 sharing GPU with bus 60 on this node" and both
// ranks "Multiple ranks on the same GPU detected and allowed. Disabling
// NVLS.", the lines G-DEV-DUP-1 predicts word for word; 2.30.7 prints
// neither.
// Ref: v2.30.3-1 src/graph/topo.cc ncclCheckMultiRank, src/init.cc
// initTransportsRank; v2.30.7-1 src/init.cc initTransportsRank
func TestMultiRankAllowedCaptured(t *testing.T) {
	sys := systemFile(t, "multirank-h200.json")
	multiRank := regexp.MustCompile(`NCCL INFO ((Detected ranks|Multiple ranks on the same GPU) .*)$`)
	for _, v := range []spec.Version{spec.V2_30_3, spec.V2_30_4, spec.V2_30_7} {
		path := filepath.Join("..", "hw", "testdata", "device", "multirank", v.String(), "dup-on", "rank0.log")
		log, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m := resultLine.FindStringSubmatch(string(log))
		if m == nil || m[1] != "0" {
			t.Fatalf("%s: RESULT %q: want rc=0", path, m)
		}
		var lines []string
		for _, l := range strings.Split(string(log), "\n") {
			if mm := multiRank.FindStringSubmatch(l); mm != nil {
				lines = append(lines, mm[1])
			}
		}
		comm, err := spec.Init(spec.MustLoad(v), sys, spec.Env{"NCCL_MULTI_RANK_GPU_ENABLE": "1"})
		if err != nil {
			t.Fatal(err)
		}
		if comm.Err != nil {
			t.Errorf("%s: the model's init error %v, want none", v, comm.Err)
		}
		vd, ok := comm.Trace.Find("G-DEV-DUP-1")
		if !ok || vd.Outcome != spec.Pass || strings.Join(vd.Log, "\n") != strings.Join(lines, "\n") {
			t.Errorf("%s: G-DEV-DUP-1 %s prints %q, rank 0 printed %q", v, vd.Outcome, vd.Log, lines)
		}
	}
}

// TestMultiRankRefusedCaptured: the same two processes without the
// variable (hw/testdata/device/multirank/R/dup-off). Rank 0 fails with the
// model's error, code and text word for word (2.30.3–2.30.4 ncclCheckMultiRank's
// "Multiple ranks detected using the same GPU on this node...", 2.30.7
// initTransportsRank's "Multiple Ranks are using the same GPU/Partition..."),
// and ncclGetLastError returns that text. At 2.30.3–2.30.4 rank 1, still in
// the bootstrap, returns ncclRemoteError once rank 0's process exits; at
// 2.30.7 it fails as rank 0 does.
// Ref: v2.30.3-1 src/graph/topo.cc ncclCheckMultiRank; v2.30.7-1 src/init.cc
// initTransportsRank
func TestMultiRankRefusedCaptured(t *testing.T) {
	sys := systemFile(t, "dupgpu-h200.json")
	for _, v := range []spec.Version{spec.V2_30_3, spec.V2_30_4, spec.V2_30_7} {
		comm, err := spec.Init(spec.MustLoad(v), sys, spec.Env{})
		if err != nil {
			t.Fatal(err)
		}
		if comm.Err == nil {
			t.Fatalf("%s: the model builds the communicator; NCCL refused it", v)
		}
		for r := 0; r < 2; r++ {
			path := filepath.Join("..", "hw", "testdata", "device", "multirank", v.String(), "dup-off", fmt.Sprintf("rank%d.log", r))
			log, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m := resultLine.FindStringSubmatch(string(log))
			if m == nil {
				t.Fatalf("%s: no RESULT line", path)
			}
			rc, _ := strconv.Atoi(m[1])
			if r == 1 && spec.Result(rc) == nccl.RemoteError {
				continue // waiting in the bootstrap when rank 0 exited (2.30.3–2.30.4)
			}
			if spec.Result(rc) != comm.Err.Result || m[2] != comm.Err.Message {
				t.Errorf("%s rank %d: NCCL returned %s %q, the model %s %q", v, r, spec.Result(rc), m[2], comm.Err.Result, comm.Err.Message)
			}
			if !strings.Contains(string(log), "NCCL WARN "+comm.Err.Message) {
				t.Errorf("%s rank %d: no WARN of the model's text %q", v, r, comm.Err.Message)
			}
		}
	}
}

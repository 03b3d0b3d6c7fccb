package diagnose

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

func parseText(t *testing.T, name, text string) *ncclog.Log {
	t.Helper()
	l, err := ncclog.Parse(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func findingByID(r *Report, id string) (Finding, bool) {
	for _, f := range r.Findings {
		if f.ID == id {
			return f, true
		}
	}
	return Finding{}, false
}

var (
	v2_18_3 = spec.MakeVersion(2, 18, 3)
	v2_18_5 = spec.MakeVersion(2, 18, 5)
	v2_18_6 = spec.MakeVersion(2, 18, 6)
)

// InferRelease narrows a log's release by the NCCL source locations it
// prints, and the report says what it assumed and why.
func TestInferRelease(t *testing.T) {
	newest := spec.Releases[len(spec.Releases)-1]
	warn1182 := "h:1:1 [3] enqueue.cc:1182 NCCL WARN Error : no algorithm/protocol available\n"
	for _, tc := range []struct {
		name       string
		log        string
		candidates []spec.Version // nil: every modelled release
		assumed    spec.Version
		clues      []string // Source of each clue
		severity   Severity
		title      string
	}{
		{"one WARN", warn1182, []spec.Version{v2_18_3, v2_18_5, v2_18_6}, v2_18_6,
			[]string{"enqueue.cc:1182"}, Info, "assumed NCCL 2.18.6, the newest of the modelled releases that print every NCCL source location and line form the log shows (2.18.3, 2.18.5, 2.18.6)"},
		{"no location", "h:1:1 [0] NCCL INFO Using network IB\n", nil, newest,
			nil, Info, "assumed NCCL " + newest.String() + ", the newest modelled release; nothing in the log narrowed it"},
		// init.cc:185 is an NCCLCHECK of ncclGetUniqueId only at 2.30.7,
		// which prints the function after file:line
		{"contradiction", warn1182 + "h:1:1 [3] NCCL INFO init.cc:185 (ncclGetUniqueId) -> 3\n", []spec.Version{}, newest,
			[]string{"enqueue.cc:1182", "init.cc:185", "err.trace.func"}, Warning, "no modelled release prints every NCCL source location and line form the log shows"},
		{"only 2.30.7", "h:1:1 [3] NCCL INFO init.cc:185 (ncclGetUniqueId) -> 3\n", []spec.Version{newest}, newest,
			[]string{"init.cc:185", "err.trace.func"}, Info, "assumed NCCL 2.30.7, the only one of the 31 modelled releases"},
		{"2.30.7 location without the function", "h:1:1 [3] NCCL INFO init.cc:185 -> 3\n", []spec.Version{}, newest,
			[]string{"init.cc:185"}, Warning, "no modelled release prints every NCCL source location and line form the log shows"},
		// NVIDIA/nccl#2332 as posted: register.cc:42 prints at 2.29.7 too,
		// but there without a function
		{"2.30.7 registration", "[1] nccl/src/register/register.cc:42 (ncclRegister) NCCL WARN Cuda failure 500 'named symbol not found'\n" +
			"[1] NCCL INFO nccl/src/register/register.cc:161 (ncclCommRegister) -> 1\n", []spec.Version{newest}, newest,
			[]string{"nccl/src/register/register.cc:42", "nccl/src/register/register.cc:161", "err.trace.func"}, Info, "the only one of the 31 modelled releases"},
		// a line form the catalogue bounds: "Initialized NET plugin" from 2.27.3
		{"form", "h:1:1 [0] NCCL INFO Initialized NET plugin IB\n", spec.Releases[18:], newest,
			[]string{"net.plugin.initialized"}, Info, "(2.27.3 to 2.30.7)"},
		{"form against location", warn1182 + "h:1:1 [0] NCCL INFO Initialized NET plugin IB\n", []spec.Version{}, newest,
			[]string{"enqueue.cc:1182", "net.plugin.initialized"}, Warning, "no modelled release prints every"},
		// the confidential-compute line and the init timings changed
		// wording at 2.23.4 and 2.24.3: together they leave 2.22.3
		{"cc and timings", "h:1:1 [0] NCCL INFO CC Off, Multi-GPU CC Off, workFifoBytes 1048576\n" +
			"h:1:1 [0] NCCL INFO Init timings: rank 0 nranks 24 total 3.45 (kernels 0.33, bootstrap 2.75, allgathers 0.10, topo 0.03, graphs 0.12, connections 0.12, rest 0.00)\n",
			[]spec.Version{spec.MakeVersion(2, 22, 3)}, spec.MakeVersion(2, 22, 3),
			[]string{"init.cc.multigpu", "init.timings.old"}, Info, "the only one of the 31 modelled releases"},
		{"cc from 2.24.3", "h:1:1 [0] NCCL INFO CC Off, workFifoBytes 1048576\n", spec.Releases[12:], newest,
			[]string{"init.cc"}, Info, "(2.24.3 to 2.30.7)"},
		// envConfigOverride ignores NCCL_NCHANNELS_PER_NET_PEER <= 0 with
		// this line from 2.28.3 (2.20.3-2.27.7 give 0 one channel)
		{"too low", "h:1:1 [0] NCCL INFO NCCL_NCHANNELS_PER_NET_PEER 0 is too low, leaving it set at -2147483648\n",
			spec.Releases[slices.Index(spec.Releases, spec.V2_28_3):], newest, []string{"env.toolow.netpeer"}, Info, "(2.28.3 to 2.30.7)"},
		// the per-operation line named its collective at 2.23.4 only; the
		// unnamed one is also a TRACE line of every release
		{"named choice", "h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo 0 proto 0 time 25.874907\n",
			[]spec.Version{spec.MakeVersion(2, 23, 4)}, spec.MakeVersion(2, 23, 4), []string{"op.choice.num.named"}, Info, "the only one"},
		{"unnamed choice", "h:1:1 [0] NCCL INFO 4096 Bytes -> Algo 0 proto 0 time 25.874907\n", nil, newest,
			nil, Info, "nothing in the log narrowed it"},
		// a plugin's file says nothing about NCCL's release
		{"plugin file", "h:1:1 [0] nccl_ofi_net.c:1182 NCCL WARN NET/OFI failed\n", nil, newest,
			nil, Info, "nothing in the log narrowed it"},
		// a line every modelled release prints at is no clue either: the
		// path form with a build directory before src/ is read too
		{"path prefix", "h:1:1 [3] /build/nccl/src/enqueue.cc:1182 NCCL WARN Error : no algorithm/protocol available\n",
			[]spec.Version{v2_18_3, v2_18_5, v2_18_6}, v2_18_6, []string{"/build/nccl/src/enqueue.cc:1182"}, Info, "(2.18.3, 2.18.5, 2.18.6)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := parseText(t, "x.log", tc.log)
			g, err := InferRelease(l)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.candidates
			if want == nil {
				want = spec.Releases
			}
			if !slices.Equal(g.Candidates, want) && !(len(want) == 0 && len(g.Candidates) == 0) {
				t.Errorf("candidates %v, want %v", g.Candidates, want)
			}
			if g.Assumed != tc.assumed {
				t.Errorf("assumed %s, want %s", g.Assumed, tc.assumed)
			}
			var srcs []string
			for _, c := range g.Clues {
				srcs = append(srcs, c.Source+c.Form)
				if c.At.File != "x.log" || c.At.Line < 1 {
					t.Errorf("clue %s at %v: want a line of x.log", c.Source, c.At)
				}
			}
			if !slices.Equal(srcs, tc.clues) {
				t.Errorf("clues %v, want %v", srcs, tc.clues)
			}
			r := Diagnose(l, Options{})
			f, ok := findingByID(r, "release.assumed")
			if !ok {
				t.Fatal("no release.assumed finding")
			}
			if f.Severity != tc.severity || !strings.Contains(f.Title, tc.title) {
				t.Errorf("finding [%s] %q, want [%s] containing %q", f.Severity, f.Title, tc.severity, tc.title)
			}
			if len(f.Evidence) != len(tc.clues) {
				t.Errorf("%d evidence lines, want one per clue (%d)", len(f.Evidence), len(tc.clues))
			}
			var b strings.Builder
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if head := "NCCL " + tc.assumed.String() + " (assumed, not in the log"; !strings.HasPrefix(b.String(), head) {
				t.Errorf("report starts %q, want %q", strings.SplitN(b.String(), "\n", 2)[0], head)
			}
		})
	}
}

// A version line, or a given release, leaves nothing to assume.
func TestInferReleaseNotWhenKnown(t *testing.T) {
	warn := "h:1:1 [3] enqueue.cc:1182 NCCL WARN Error : no algorithm/protocol available\n"
	logged := parseText(t, "x.log", "h:1:1 [0] NCCL INFO NCCL version 2.22.3+cuda12.4\n"+warn)
	for name, r := range map[string]*Report{
		"logged": Diagnose(logged, Options{}),
		"given":  Diagnose(parseText(t, "x.log", warn), Options{Release: spec.MakeVersion(2, 22, 3)}),
	} {
		if _, ok := findingByID(r, "release.assumed"); ok || r.Assumed != nil {
			t.Errorf("%s: the release was assumed although it is known", name)
		}
	}
}

// The public TensorRT-LLM #953 post prints no version line; its failure's
// source locations pin 2.18.3, 2.18.5 or 2.18.6 (the public case's README),
// and the prediction runs at the newest of them.
func TestInferReleaseTRTLLM953(t *testing.T) {
	dir := filepath.Join("..", "golden", "testdata", "public", "trtllm-953-4xh100-2.18")
	data, err := os.ReadFile(filepath.Join(dir, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	l := parseText(t, "log.txt", string(data))
	g, err := InferRelease(l)
	if err != nil {
		t.Fatal(err)
	}
	if want := []spec.Version{v2_18_3, v2_18_5, v2_18_6}; !slices.Equal(g.Candidates, want) || g.Assumed != v2_18_6 {
		t.Fatalf("candidates %v assumed %s, want %v assumed 2.18.6", g.Candidates, g.Assumed, want)
	}
	var at []int
	for _, c := range g.Clues {
		at = append(at, c.At.Line)
	}
	if !slices.Equal(at, []int{2, 8, 9, 10, 11}) {
		t.Errorf("clues at lines %v, want 2 (the channel line's 2.17.1-2.19.4 wording) and 8-11 (the WARN and the three error returns)", at)
	}
	xml, err := os.ReadFile(filepath.Join(dir, "..", "machines", "dgx-h100-4gpu", "topo.xml"))
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.SystemFromTopology("topo.xml", xml, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Predict(l, 0, sys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Release != v2_18_6 {
		t.Errorf("predicted with %s, want the assumed 2.18.6", p.Release)
	}
}

func TestReleaseSet(t *testing.T) {
	r := spec.Releases
	for _, tc := range []struct {
		in   []spec.Version
		want string
	}{
		{nil, "no modelled release"},
		{r[1:4], "2.18.3, 2.18.5, 2.18.6"},
		{r[0:4], "2.18.1 to 2.18.6"},
		{append(slices.Clone(r[0:5]), r[30]), "2.18.1 to 2.19.1, 2.30.7"},
	} {
		if got := releaseSet(tc.in); got != tc.want {
			t.Errorf("releaseSet(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Over every committed log that prints a modelled release, the inference
// (which reads only the source locations, never the version line) keeps
// that release among its candidates: the table never excludes the truth.
func TestInferReleaseKeepsTheLoggedRelease(t *testing.T) {
	root := filepath.Join("..", "golden", "testdata")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if name := d.Name(); name != "log.txt" && !strings.HasSuffix(name, ".log") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		l, err := ncclog.Parse(f, path)
		if err != nil || l.Release == 0 || !spec.Supported(l.Release) || len(l.Versions) > 1 {
			return nil
		}
		g, err := InferRelease(l)
		if err != nil {
			return err
		}
		checked++
		if !slices.Contains(g.Candidates, l.Release) {
			var why []string
			for _, c := range g.Clues {
				why = append(why, c.At.String()+" "+c.Source+": "+releaseSet(c.Releases))
			}
			t.Errorf("%s prints NCCL %s, inferred %v from:\n  %s", path, l.Release, g.Candidates, strings.Join(why, "\n  "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d logs with a modelled release under %s", checked, root)
	}
	t.Logf("%d logs", checked)
}

// Package deptest holds the import rules of the module as a test, in the
// manner of tailscale's deptest: the vocabulary of NCCL (nccl) is a leaf
// that imports nothing of the module; the pure core (nccl, spec, algos, sim
// and the log reader, ncclog) does no I/O, reads no clock, holds no cgo, and
// imports nothing above it in the data flow (hw, whatif, oracle, diagnose,
// cmd). The judges of what hardware produced (ncclog, diagnose, conformance)
// are pure too and reach neither hw nor cgo, and hw reaches none of them but
// conformance, the records it writes. The tuning model (spec/tuning) imports
// of the module only NCCL's vocabulary and spec/topo: spec consumes it, never
// the reverse. Outside the release files no code compares a version with a
// particular release (versions_test.go).
package deptest

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/gatesim/gatesim"

// core lists the pure packages (and everything beneath them).
var core = []string{"nccl", "spec", "algos", "sim", "ncclog"}

// forbiddenStd are standard packages a core package may not import
// directly: files, processes, the network, the clock, global randomness
// and cgo.
var forbiddenStd = map[string]string{
	"os": "I/O", "os/exec": "processes", "os/signal": "processes", "net": "network", "net/http": "network",
	"syscall": "system calls", "time": "clocks", "math/rand": "global randomness", "math/rand/v2": "global randomness",
	"io/ioutil": "I/O", "path/filepath": "file paths", "io/fs": "file systems", "C": "cgo", "unsafe": "unsafe memory",
	"runtime/cgo": "cgo", "plugin": "dlopen", "log": "global logger",
}

// above are the module's packages a core package may not reach, directly or
// not: they sit later in the data flow.
var above = []string{"hw", "tuner", "whatif", "oracle", "diagnose", "cmd", "golden", "properties"}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	CgoFiles   []string
}

func list(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Imports,Deps,CgoFiles"}, patterns...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", patterns, err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func isCore(path string) bool {
	for _, c := range core {
		if path == module+"/"+c || strings.HasPrefix(path, module+"/"+c+"/") {
			return true
		}
	}
	return false
}

// forbiddenImports lists p's direct imports of forbidden standard packages.
func forbiddenImports(p pkg) []string {
	var out []string
	for _, imp := range p.Imports {
		if why, bad := forbiddenStd[imp]; bad {
			out = append(out, "imports "+imp+" ("+why+")")
		}
	}
	return out
}

// violations returns what p breaks, given cgo use per module package.
func violations(p pkg, cgo map[string]bool) []string {
	out := forbiddenImports(p)
	for _, d := range append([]string{p.ImportPath}, p.Deps...) {
		if !strings.HasPrefix(d, module+"/") {
			continue
		}
		if cgo[d] {
			out = append(out, "reaches "+d+", which uses cgo")
		}
		if isCore(d) {
			continue
		}
		rel := strings.TrimPrefix(d, module+"/")
		for _, a := range above {
			if rel == a || strings.HasPrefix(rel, a+"/") {
				out = append(out, "reaches "+d+", later in the data flow")
			}
		}
	}
	return out
}

// listWithCgo lists the module's packages and which of them use cgo.
func listWithCgo(t *testing.T) ([]pkg, map[string]bool) {
	all := list(t, "./...")
	cgo := map[string]bool{}
	for _, p := range all {
		cgo[p.ImportPath] = len(p.CgoFiles) > 0
	}
	return all, cgo
}

func TestCoreIsPure(t *testing.T) {
	all, cgo := listWithCgo(t)
	n := 0
	for _, p := range all {
		if !isCore(p.ImportPath) {
			continue
		}
		n++
		for _, v := range violations(p, cgo) {
			t.Errorf("%s %s", strings.TrimPrefix(p.ImportPath, module+"/"), v)
		}
	}
	if n < len(core) {
		t.Fatalf("found %d core packages, want at least %d", n, len(core))
	}
}

// The rules catch what they are meant to catch.
func TestViolationsAreCaught(t *testing.T) {
	cgo := map[string]bool{module + "/hw": true}
	bad := pkg{ImportPath: module + "/spec", Imports: []string{"fmt", "os", "time"},
		Deps: []string{"fmt", module + "/hw", module + "/whatif", module + "/spec/topo"}}
	got := violations(bad, cgo)
	want := []string{"imports os (I/O)", "imports time (clocks)", "reaches " + module + "/hw, which uses cgo",
		"reaches " + module + "/hw, later in the data flow", "reaches " + module + "/whatif, later in the data flow"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	good := pkg{ImportPath: module + "/algos", Imports: []string{"fmt", "io"}, Deps: []string{module + "/spec"}}
	if v := violations(good, cgo); len(v) != 0 {
		t.Fatalf("a pure package flagged: %v", v)
	}
}

// judges are the packages that read or judge what hardware produced
// (ncclog reads a log, diagnose says what it proves, conformance puts
// predictions beside captures): they sit above the core in the data flow
// but are pure like it, so they build and test where cgo and GPUs are
// absent. None imports a forbidden standard package or reaches hw.
var judges = []string{"ncclog", "diagnose", "conformance"}

func isJudge(path string) (string, bool) {
	rel := strings.TrimPrefix(path, module+"/")
	for _, n := range judges {
		if rel == n || strings.HasPrefix(rel, n+"/") {
			return n, true
		}
	}
	return "", false
}

// judgeViolations returns what p, a judge, breaks.
func judgeViolations(p pkg, cgo map[string]bool) []string {
	out := forbiddenImports(p)
	for _, d := range p.Deps {
		if d == module+"/hw" || strings.HasPrefix(d, module+"/hw/") {
			out = append(out, "reaches "+d+", the hardware package")
		} else if cgo[d] {
			out = append(out, "reaches "+d+", which uses cgo")
		}
	}
	return out
}

func TestJudgesArePure(t *testing.T) {
	all, cgo := listWithCgo(t)
	found := map[string]bool{}
	for _, p := range all {
		n, ok := isJudge(p.ImportPath)
		if !ok {
			continue
		}
		found[n] = true
		for _, v := range judgeViolations(p, cgo) {
			t.Errorf("%s %s", strings.TrimPrefix(p.ImportPath, module+"/"), v)
		}
	}
	for _, n := range judges {
		if !found[n] {
			t.Errorf("package %s not found: drop it from judges or fix the name", n)
		}
	}
}

func TestJudgeViolationsAreCaught(t *testing.T) {
	cgo := map[string]bool{module + "/tuner": true}
	bad := pkg{ImportPath: module + "/diagnose", Imports: []string{"fmt", "os"},
		Deps: []string{"fmt", module + "/hw", module + "/tuner", module + "/ncclog"}}
	got := judgeViolations(bad, cgo)
	want := []string{"imports os (I/O)", "reaches " + module + "/hw, the hardware package", "reaches " + module + "/tuner, which uses cgo"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	good := pkg{ImportPath: module + "/conformance", Imports: []string{"io"}, Deps: []string{module + "/diagnose", module + "/spec"}}
	if v := judgeViolations(good, cgo); len(v) != 0 {
		t.Fatalf("a pure judge flagged: %v", v)
	}
}

// leaves are the packages every other builds on; they import nothing of the
// module, so that any package may use them without a cycle.
var leaves = []string{"nccl"}

// leafViolations returns the module packages a leaf reaches.
func leafViolations(p pkg) []string {
	var out []string
	for _, d := range p.Deps {
		if d == module || strings.HasPrefix(d, module+"/") {
			out = append(out, "reaches "+d+"; a leaf imports nothing of the module")
		}
	}
	return out
}

func TestLeavesImportNothingOfTheModule(t *testing.T) {
	for _, l := range leaves {
		ps := list(t, "./"+l)
		if len(ps) != 1 {
			t.Fatalf("go list ./%s: %d packages", l, len(ps))
		}
		for _, v := range leafViolations(ps[0]) {
			t.Errorf("%s %s", l, v)
		}
	}
}

func TestLeafViolationsAreCaught(t *testing.T) {
	bad := pkg{ImportPath: module + "/nccl", Deps: []string{"fmt", module + "/internal/lru"}}
	if got := leafViolations(bad); len(got) != 1 || !strings.Contains(got[0], "internal/lru") {
		t.Fatalf("violations: %v", got)
	}
	if got := leafViolations(pkg{ImportPath: module + "/nccl", Deps: []string{"fmt", "strings"}}); len(got) != 0 {
		t.Fatalf("a leaf flagged: %v", got)
	}
}

// hwViolations: hw measures and writes capture records (conformance);
// it never needs the log reader or diagnose, which judge what it wrote.
func hwViolations(p pkg) []string {
	var out []string
	for _, d := range p.Deps {
		for _, j := range []string{"diagnose", "ncclog"} {
			if d == module+"/"+j || strings.HasPrefix(d, module+"/"+j+"/") {
				out = append(out, "reaches "+d+", a judge of what hw produced")
			}
		}
	}
	return out
}

func TestHWReachesNoJudge(t *testing.T) {
	ps := list(t, "./hw")
	if len(ps) != 1 {
		t.Fatalf("go list ./hw: %d packages", len(ps))
	}
	for _, v := range hwViolations(ps[0]) {
		t.Errorf("hw %s", v)
	}
	if v := hwViolations(pkg{ImportPath: module + "/hw", Deps: []string{module + "/conformance", module + "/diagnose"}}); len(v) != 1 {
		t.Errorf("hw reaching diagnose not caught: %v", v)
	}
}

// allowedImports names, for a package, every package of the module it may
// import directly. The tuning model is the rule engine's input, not a part
// of it: it reads NCCL's vocabulary and the searched graphs, never spec
// itself, so that spec consumes the model and the model stays testable and
// reusable on its own.
var allowedImports = map[string][]string{
	"spec/tuning": {"nccl", "spec/topo"},
}

// allowedViolations returns the module packages p imports outside allowed.
func allowedViolations(p pkg, allowed []string) []string {
	var out []string
	for _, imp := range p.Imports {
		rel, ok := strings.CutPrefix(imp, module+"/")
		if !ok && imp != module {
			continue
		}
		if !slices.Contains(allowed, rel) {
			out = append(out, "imports "+imp+"; allowed from the module: "+strings.Join(allowed, ", "))
		}
	}
	return out
}

func TestAllowedImports(t *testing.T) {
	for name, allowed := range allowedImports {
		ps := list(t, "./"+name)
		if len(ps) != 1 {
			t.Fatalf("go list ./%s: %d packages", name, len(ps))
		}
		for _, v := range allowedViolations(ps[0], allowed) {
			t.Errorf("%s %s", name, v)
		}
	}
}

func TestAllowedViolationsAreCaught(t *testing.T) {
	bad := pkg{ImportPath: module + "/spec/tuning", Imports: []string{"fmt", module + "/nccl", module + "/spec", module + "/spec/topo"}}
	if got := allowedViolations(bad, allowedImports["spec/tuning"]); len(got) != 1 || !strings.Contains(got[0], "imports "+module+"/spec;") {
		t.Fatalf("violations: %v", got)
	}
	good := pkg{ImportPath: module + "/spec/tuning", Imports: []string{"fmt", module + "/nccl", module + "/spec/topo"}}
	if got := allowedViolations(good, allowedImports["spec/tuning"]); len(got) != 0 {
		t.Fatalf("an allowed import flagged: %v", got)
	}
}

package logs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/diagnose"
	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

var (
	publicRoot   = filepath.Join("..", "testdata", "logs", "public")
	capturedRoot = capturedDir()
	capturedOut  = filepath.Join("..", "testdata", "logs", "captured")
)

// capturedDir is golden/testdata/captured, or GATESIM_CAPTURED to diagnose
// captures kept elsewhere (the reports still go under testdata/logs/captured).
func capturedDir() string {
	if d := os.Getenv("GATESIM_CAPTURED"); d != "" {
		return d
	}
	return filepath.Join("..", "testdata", "captured")
}

// minPublicCases is the least number of logs from public threads the
// corpus must hold, so that deleting logs fails the test.
const minPublicCases = 45

// logRef reads dir's log.ref, the path (relative to dir) of an excerpt
// the public-truth corpus already keeps, so one excerpt has one copy; ""
// without one. The path must name a log.txt under testdata/public.
func logRef(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "log.ref"))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	ref := strings.TrimSpace(string(b))
	want := filepath.Join("..", "..", "..", "public")
	if len(b) > 512 || filepath.Base(ref) != "log.txt" || filepath.Dir(filepath.Dir(ref)) != want {
		t.Fatalf("%s/log.ref: %q: expected one line naming %s/<case>/log.txt", dir, ref, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ref)); err != nil {
		t.Fatalf("%s/log.ref: %v", dir, err)
	}
	return ref
}

func TestPublicLogs(t *testing.T) {
	ents, err := os.ReadDir(publicRoot)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(publicRoot, e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			checkReadme(t, dir)
			exp := readExpect(t, filepath.Join(dir, "expect"))
			rep := diagnoseDir(t, dir, exp.opts)
			compareGolden(t, filepath.Join(dir, "diagnose.golden"), rep)
			exp.check(t, rep)
		})
	}
	if n < minPublicCases {
		t.Errorf("%d public cases, want at least %d", n, minPublicCases)
	}
}

// TestCapturedLogs diagnoses every directory of logs under
// testdata/captured (hw's GPU captures), so that new captures
// are picked up without editing this test.
func TestCapturedLogs(t *testing.T) {
	if _, err := os.Stat(capturedRoot); err != nil {
		t.Fatalf("no captures at %s: the committed captures are missing", capturedRoot)
	}
	var dirs []string
	err := filepath.WalkDir(capturedRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && hasLogs(path) {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("%s holds no NCCL log: the committed captures are missing", capturedRoot)
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(capturedRoot, dir)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			rep := diagnoseDir(t, dir, diagnose.Options{})
			compareGolden(t, filepath.Join(capturedOut, rel, "diagnose.golden"), rep)
		})
	}
}

// logFiles lists a directory's NCCL log files (diagnose.LogFiles).
func logFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && e.Name() != "log.ref" {
			names = append(names, e.Name())
		}
	}
	return diagnose.LogFiles(names)
}

// hasLogs reports a capture directory: one with *.log files (NCCL_DEBUG_FILE
// outputs) holding NCCL lines.
func hasLogs(dir string) bool {
	for _, f := range logFiles(dir) {
		if !strings.HasSuffix(f, ".log") {
			continue
		}
		head := make([]byte, 64<<10)
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		n, _ := fh.Read(head)
		fh.Close()
		if bytes.Contains(head[:n], []byte("NCCL ")) {
			return true
		}
	}
	return false
}

// diagnoseDir parses every log of a directory under its base name, so
// reports name files, not machine paths.
func diagnoseDir(t *testing.T, dir string, opts diagnose.Options) *diagnose.Report {
	t.Helper()
	p := ncclog.NewParser()
	files := logFiles(dir)
	if ref := logRef(t, dir); ref != "" {
		files = append(files, ref)
	}
	if len(files) == 0 {
		t.Fatalf("%s: no log file", dir)
	}
	for _, f := range files {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		err = p.Parse(fh, filepath.Base(f))
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	l := p.Finish()
	if l.NCCLLines == 0 {
		t.Fatalf("%s: no NCCL line recognised", dir)
	}
	rep := diagnose.Diagnose(l, opts)
	if _, err := json.Marshal(rep.JSON()); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	checkRuleIDs(t, rep)
	return rep
}

// checkRuleIDs requires every rule a verdict, decision or finding names to
// be in ncclog.Rules, so that each carries a layer and a source reference
// (a verdict for an unlisted rule would have neither).
func checkRuleIDs(t *testing.T, rep *diagnose.Report) {
	t.Helper()
	known := func(what string, id spec.RuleID) {
		if id == "" {
			return
		}
		if _, ok := ncclog.RuleByID(id); !ok {
			t.Errorf("%s names rule %s, which is not in ncclog.Rules", what, id)
		}
	}
	for _, v := range rep.Obs.Trace {
		known("verdict", v.Rule)
	}
	for _, d := range rep.Obs.Decisions {
		known("decision", d.DecidedBy)
	}
	for _, c := range rep.Obs.Caps {
		for _, p := range append(append([]ncclog.Proof{}, c.Proofs...), c.Blocks...) {
			known("proof of "+string(c.Cap), p.Rule)
		}
		if c.Off != nil {
			known("switch of "+string(c.Cap), c.Off.Rule)
		}
	}
	for _, f := range rep.Findings {
		known("finding "+f.ID, f.Rule)
	}
}

func compareGolden(t *testing.T, path string, rep *diagnose.Report) {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, path, buf.String(), *update)
}

var urlRe = regexp.MustCompile(`https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+`)

// checkReadme requires the provenance every case must carry.
func checkReadme(t *testing.T, dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	s := string(b)
	if !urlRe.MatchString(s) {
		t.Errorf("README.md names no GitHub issue or pull request URL")
	}
	for _, h := range []string{"## Established", "## Expected"} {
		if !strings.Contains(s, h) {
			t.Errorf("README.md lacks a %q section", h)
		}
	}
}

// expectations are the machine-checked answer of a case.
type expectations struct {
	opts  diagnose.Options
	lines []expectLine
}

type expectLine struct {
	n     int
	words []string
}

func readExpect(t *testing.T, path string) *expectations {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("expect: %v", err)
	}
	defer f.Close()
	e := &expectations{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		w := strings.Fields(line)
		if len(w) == 0 {
			continue
		}
		if w[0] == "args" {
			for i := 1; i < len(w); i++ {
				switch w[i] {
				case "--env":
					i++
					env, err := spec.ParseAssignments(w[i : i+1])
					if err != nil {
						t.Fatalf("expect:%d: %v", n, err)
					}
					if e.opts.Env == nil {
						e.opts.Env = spec.Env{}
					}
					for k, v := range env {
						e.opts.Env[k] = v
					}
				case "--nccl":
					i++
					v, err := spec.ParseVersion(w[i])
					if err != nil {
						t.Fatalf("expect:%d: %v", n, err)
					}
					e.opts.Release = v
				default:
					t.Fatalf("expect:%d: unknown arg %q", n, w[i])
				}
			}
			continue
		}
		e.lines = append(e.lines, expectLine{n, w})
	}
	if len(e.lines) == 0 {
		t.Fatalf("expect: no assertion")
	}
	return e
}

func (e *expectations) check(t *testing.T, rep *diagnose.Report) {
	t.Helper()
	l, o := rep.Log, rep.Obs
	findings := map[string]bool{}
	for _, f := range rep.Findings {
		findings[f.ID] = true
	}
	for _, x := range e.lines {
		w := x.words
		fail := func(format string, a ...any) {
			t.Errorf("expect:%d %q: "+format, append([]any{x.n, strings.Join(w, " ")}, a...)...)
		}
		need := func(k int) bool {
			if len(w) != k {
				fail("want %d words", k)
				return false
			}
			return true
		}
		switch w[0] {
		case "release":
			if need(2) && l.Release.String() != w[1] && rep.Release.String() != w[1] {
				fail("release %v", rep.Release)
			}
		case "candidates":
			// candidates V...: the releases a log without a version line
			// narrows to (diagnose.InferRelease)
			var got []string
			if rep.Assumed != nil {
				for _, v := range rep.Assumed.Candidates {
					got = append(got, v.String())
				}
			}
			if !slices.Equal(got, w[1:]) {
				fail("candidates %v", got)
			}
		case "net":
			if want := strings.Join(w[1:], " "); l.Network() != want {
				fail("network %q", l.Network())
			}
		case "ranks":
			if need(2) && strconv.Itoa(l.Ranks()) != w[1] {
				fail("ranks %d", l.Ranks())
			}
		case "unparsed":
			if need(2) && strconv.Itoa(l.Unparsed) != w[1] {
				fail("unparsed %d %v", l.Unparsed, l.UnparsedSamples)
			}
		case "level":
			// level CAP LEVEL | level CAP >= LEVEL
			if len(w) != 3 && len(w) != 4 {
				fail("level CAP [>=] LEVEL")
				continue
			}
			c := o.Cap(spec.Capability(w[1]))
			want, err := spec.ParseLevel(w[len(w)-1])
			if c == nil || err != nil {
				fail("bad capability or level")
				continue
			}
			if (len(w) == 3 && c.Level != want) || (len(w) == 4 && c.Level < want) {
				fail("level is %v", c.Level)
			}
		case "off":
			if c := o.Cap(spec.Capability(w[1])); need(2) && (c == nil || c.Off == nil) {
				fail("not switched off")
			}
		case "block":
			if !need(3) {
				continue
			}
			c := o.Cap(spec.Capability(w[1]))
			found := false
			for _, b := range c.Blocks {
				found = found || string(b.Rule) == w[2]
			}
			if !found {
				fail("blocks %v", c.Blocks)
			}
		case "finding":
			if need(2) && !findings[w[1]] {
				fail("findings %v", findings)
			}
		case "no-finding":
			if need(2) && findings[w[1]] {
				fail("finding present")
			}
		case "rule":
			// rule FINDING RULE: the finding names this gate
			if !need(3) {
				continue
			}
			ok := false
			for _, f := range rep.Findings {
				ok = ok || (f.ID == w[1] && string(f.Rule) == w[2])
			}
			if !ok {
				fail("no finding %s with rule %s", w[1], w[2])
			}
		case "decision", "fallback":
			// decision COLL BYTES ALGO PROTO | fallback COLL BYTES
			found := false
			for _, d := range o.Decisions {
				if d.Op.Func.String() != w[1] || strconv.FormatInt(d.Op.Bytes(), 10) != w[2] {
					continue
				}
				if w[0] == "fallback" {
					found = found || d.Fallback
				} else if len(w) == 5 {
					found = found || (d.Algo.LogName() == w[3] && d.Proto.LogName() == w[4])
				}
			}
			if !found {
				fail("decisions %+v", o.Decisions)
			}
		case "op":
			// op BYTES ALGO PROTO: a decision line whatever its collective
			if !need(4) {
				continue
			}
			found := false
			for _, op := range l.Ops {
				found = found || (strconv.FormatInt(op.Bytes, 10) == w[1] && op.Algo.LogName() == w[2] && op.Proto.LogName() == w[3])
			}
			if !found {
				fail("ops %+v", l.Ops)
			}
		case "error":
			// error RESULT: some error line carries this ncclResult_t
			found := false
			for _, er := range l.Errors {
				found = found || (er.HasResult && er.Result.String() == w[1])
			}
			if !found {
				fail("errors %+v", l.Errors)
			}
		case "env":
			v, ok := o.Env.Lookup(w[1])
			if !need(3) || !ok || v != w[2] {
				fail("env %s=%q %v", w[1], v, ok)
			}
		case "transport":
			found := false
			for _, tr := range l.Transports {
				found = found || tr.Detail == strings.Join(w[1:], " ")
			}
			if !found {
				fail("transports %+v", l.Transports)
			}
		default:
			fail("unknown assertion")
		}
	}
}

// TestCapturedAgreesWithConfig holds each capture's observation against
// the configuration it was run with (config.json's "env", written by hw):
// what the variables ask for must be what the log shows NCCL did. Each
// check is counted; the totals are the agreement figure of docs/diagnose.md.
func TestCapturedAgreesWithConfig(t *testing.T) {
	if _, err := os.Stat(capturedRoot); err != nil {
		t.Fatalf("no captures at %s: the committed captures are missing", capturedRoot)
	}
	checks, failed := 0, 0
	err := filepath.WalkDir(capturedRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "config.json" || !hasLogs(filepath.Dir(path)) {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var cfg struct {
			Env map[string]string `json:"env"`
		}
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		dir := filepath.Dir(path)
		rel, _ := filepath.Rel(capturedRoot, dir)
		rep := diagnoseDir(t, dir, diagnose.Options{})
		l, o := rep.Log, rep.Obs
		check := func(ok bool, format string, a ...any) {
			checks++
			if !ok {
				failed++
				t.Errorf("%s: "+format, append([]any{rel}, a...)...)
			}
		}
		for k, v := range cfg.Env {
			if e, ok := l.EnvValue(k); ok {
				check(e.Value == v, "NCCL reports %s=%q, configured %q", k, e.Value, v)
			}
		}
		if v, ok := cfg.Env["NCCL_PROTO"]; ok {
			pr, err := spec.ParseProto(v)
			check(err == nil, "NCCL_PROTO=%q", v)
			for _, op := range l.Ops {
				check(op.Proto == pr, "NCCL_PROTO=%s yet %s %d bytes ran %s", v, op.Func, op.Bytes, op.Proto)
			}
		}
		if v, ok := cfg.Env["NCCL_ALGO"]; ok {
			req, err := ncclog.ReadAlgoEnv(v, l.Release)
			check(err == nil, "NCCL_ALGO=%q does not read: %v", v, err)
			for _, op := range l.Ops {
				check(op.FuncKnown && op.Algo >= 0 && req.Enabled[op.Func][op.Algo], "NCCL_ALGO=%s yet %s %d bytes ran %s", v, op.Func, op.Bytes, op.Algo)
			}
			for _, na := range l.NoAlgo {
				f, err := spec.ParseFunc(na.Func)
				check(err == nil && !req.Enabled[f][spec.Ring], "%s failed although NCCL_ALGO=%s leaves it Ring", na.Func, v)
				check(na.AlgoEnv == v, "the WARN names NCCL_ALGO=%q, configured %q", na.AlgoEnv, v)
			}
		} else {
			check(len(l.NoAlgo) == 0, "an operation failed without NCCL_ALGO: %+v", l.NoAlgo)
		}
		if v, ok := cfg.Env["NCCL_MAX_NCHANNELS"]; ok {
			n, _ := strconv.Atoi(v)
			for _, op := range l.Ops {
				check(op.ChannelHi < n, "NCCL_MAX_NCHANNELS=%d yet %s %d bytes used channels %d..%d", n, op.Func, op.Bytes, op.ChannelLo, op.ChannelHi)
			}
		}
		p2p := o.Cap(spec.CapP2P).Level
		if cfg.Env["NCCL_P2P_DISABLE"] == "1" {
			check(p2p == spec.LevelNone, "NCCL_P2P_DISABLE=1 yet P2P %v", p2p)
		} else if len(l.Transports) > 0 {
			check(p2p == spec.LevelExecuted, "P2P between two NVLink-connected GPUs not seen: %v", p2p)
		}
		if cfg.Env["NCCL_SHM_DISABLE"] == "1" {
			check(o.Cap(spec.CapSHM).Level == spec.LevelNone, "NCCL_SHM_DISABLE=1 yet SHM %v", o.Cap(spec.CapSHM).Level)
			if cfg.Env["NCCL_P2P_DISABLE"] == "1" {
				net := false
				for _, tr := range l.Transports {
					net = net || tr.Class == "NET"
				}
				check(net, "with P2P and SHM off the GPUs must connect through the network")
			}
		}
		nvls := o.Cap(spec.CapNVLS)
		check(nvls.Off != nil && nvls.Level < spec.LevelSelected, "NVLS must be off (NCCL_NVLS_ENABLE=0 on that machine): %v off=%v", nvls.Level, nvls.Off != nil)
		check(l.InitCompleted > 0, "no Init COMPLETE")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checks == 0 {
		t.Fatal("no capture with a config.json: the committed captures are missing")
	}
	t.Logf("%d checks of observed behaviour against the configured environment, %d failed", checks, failed)
}

// TestCatalogueListing keeps testdata/logs/catalogue.txt, the reviewable
// list of every message form the parser recognises: its ID, the releases
// that print it, the function that prints it and NCCL's format string. A
// new form or a changed range shows as a diff of this file.
func TestCatalogueListing(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Message forms recognised by hw/ncclog (generated by golden/logs TestCatalogueListing; -update rewrites it)\n")
	b.WriteString("# id | releases | printed by | format\n")
	for _, f := range ncclog.Catalogue {
		rng := "plugin/framework"
		if f.Since != 0 {
			rng = f.Since.String() + "-"
			if f.Until != 0 {
				rng += f.Until.String()
			}
		}
		fmt.Fprintf(&b, "%s | %s | %s | %s\n", f.ID, rng, strings.TrimSpace(f.Ref.String()), strings.ReplaceAll(f.Format, "\n", `\n`))
	}
	b.WriteString("\n# Rules observations use (* = proposed, not yet in nccl-gates.md)\n")
	for _, r := range ncclog.Rules {
		mark := ""
		if r.Proposed {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s%s | %s | %s | %s\n", r.ID, mark, r.Layer, r.Ref, r.Title)
	}
	path := filepath.Join("..", "testdata", "logs", "catalogue.txt")
	goldenfile.Check(t, path, b.String(), *update)
}

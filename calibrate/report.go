package calibrate

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"gonum.org/v1/gonum/stat"
)

// Options configure a calibration.
type Options struct {
	// From are the files and directories to read.
	From []string
	// Exclude are path patterns (filepath.Match against the path, or any
	// suffix of it) of files to leave out, with the reason in the report.
	Exclude []string
	// System is the preset the rows were measured on.
	System string
	// Name names the fitted profile.
	Name string
	// NoCV skips the cross-validation (held-out columns stay empty).
	NoCV bool
	// Workers run cross-validation folds in parallel (0: 1).
	Workers int
}

// Result is one row's measured and simulated times, µs.
type Result struct {
	*Case
	// Nominal is the time under the nominal profile, HeldIn under the
	// profile fitted to every row, HeldOut under the profile fitted
	// without the row's configuration (0: not computed).
	Nominal, HeldIn, HeldOut float64
}

// Report is what a calibration found.
type Report struct {
	System  string
	Rows    int
	Results []Result
	// NotSimulable counts the rows that cannot be timed, by reason.
	NotSimulable map[string]int
	Excluded     []string
	Profile      *sim.Profile
	// Repeats are the rows counted once (Load).
	Repeats Repeats
	// Clamped names the fitted values held at their parameter's range.
	Clamped []string
	// Pinned counts the rows that pin each fitted parameter.
	Pinned map[string]int
	Folds  int
	// SharedRows are the rows of runs whose ranks share one GPU, and
	// GroupOp what their launch floors say of launch.group_op (nil: no
	// pair of floors).
	SharedRows int
	GroupOp    *GroupOpEstimate
}

// setGroupOp sets p's launch.group_op from the shared-GPU runs' share of
// launch.stream, unless the profile's own rows pinned it (groups timed on
// the machine itself win).
func (rep *Report) setGroupOp(p *sim.Profile) {
	const name = "launch.group_op"
	if rep.GroupOp == nil || p.Source(name) == "calibrated" {
		return
	}
	stream := p.Value("launch.stream")
	if stream <= 0 {
		return
	}
	p.Params[name] = sim.Param{Value: round4(rep.GroupOp.Ratio * stream), Source: "calibrated", From: rep.GroupOp.From(stream)}
}

// Run loads, fits and cross-validates.
func Run(o Options) (*Report, error) {
	rows, repeats, err := load(o.From)
	if err != nil {
		return nil, err
	}
	rep := &Report{System: o.System, NotSimulable: map[string]int{}, Pinned: map[string]int{}, Repeats: repeats}
	var kept, shared []Row
	excl := map[string]bool{}
	for _, r := range rows {
		if excluded(r.File, o.Exclude) {
			if !excl[r.File] {
				excl[r.File] = true
				rep.Excluded = append(rep.Excluded, r.File)
			}
			continue
		}
		if r.SharedGPU {
			// another machine than the profile's: only its launch floors
			// are read (GroupOpEstimate)
			shared = append(shared, r)
			continue
		}
		kept = append(kept, r)
	}
	rep.SharedRows = len(shared)
	if len(kept) == 0 && len(shared) > 0 {
		return nil, fmt.Errorf("%s:%d: no row to fit: the %d rows read are of runs that put several ranks on one GPU (their devices repeat a bus id), a machine the %s profile does not describe; only their launch floors are read, beside the machine's own rows", shared[0].File, shared[0].Line, len(shared), o.System)
	}
	rep.Rows = len(kept)
	cases, err := Prepare(kept, o.System)
	if err != nil {
		return nil, err
	}
	var prs []*probe
	cache := probeCache{}
	for _, c := range cases {
		if !c.Simulable() {
			rep.NotSimulable[c.Config+": "+c.Why]++
			continue
		}
		pr, err := newProbeCached(c, cache)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", c.File, c.Line, err)
		}
		prs = append(prs, pr)
	}
	if len(prs) == 0 {
		return nil, fmt.Errorf("no row can be simulated")
	}
	full, err := fit(prs, nil)
	if err != nil {
		return nil, err
	}
	rep.Profile, rep.Clamped = buildProfile(o.Name, kept, full)
	// a value outside a parameter's range would write a profile no reader
	// takes; buildProfile holds fitted values at their bounds, so only a
	// value that is no number at all is left
	if err := rep.Profile.Validate(); err != nil {
		return nil, fmt.Errorf("the fitted profile: %v (a fit outside the range: are the rows from a --system machine?)", err)
	}
	rep.GroupOp = estimateGroupOp(shared, rep.Profile.Value("launch.logged"))
	rep.setGroupOp(rep.Profile)
	if rep.GroupOp != nil && rep.Pinned["launch.group_op"] == 0 {
		rep.Pinned["launch.group_op"] = rep.GroupOp.Rows
	}
	for _, p := range fitParams() {
		for _, pr := range prs {
			if p.uses(pr) {
				rep.Pinned[p.name]++
			}
		}
	}
	rep.Results = make([]Result, len(prs))
	held := simCache{}
	for i, pr := range prs {
		rep.Results[i].Case = pr.c
		rep.Results[i].Nominal = pr.nominal
		if rep.Results[i].HeldIn, err = held.simulate(pr.c, rep.Profile); err != nil {
			return nil, err
		}
	}
	if o.NoCV {
		return rep, nil
	}
	// leave one configuration out: fit without it, predict it
	byKey := map[string][]int{}
	var keys []string
	for i, pr := range prs {
		if byKey[pr.c.Key] == nil {
			keys = append(keys, pr.c.Key)
		}
		byKey[pr.c.Key] = append(byKey[pr.c.Key], i)
	}
	rep.Folds = len(keys)
	workers := max(1, o.Workers)
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				errs[k] = rep.fold(prs, byKey[keys[k]], full, o.Name, kept)
			}
		}()
	}
	for k := range keys {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// fold fits without the rows out and simulates them.
func (rep *Report) fold(prs []*probe, out []int, full *fitResult, name string, rows []Row) error {
	skip := map[int]bool{}
	for _, i := range out {
		skip[i] = true
	}
	train := make([]*probe, 0, len(prs)-len(out))
	for i, pr := range prs {
		if !skip[i] {
			// each fold indexes its own copy (probes carry parameter indices)
			cp := *pr
			train = append(train, &cp)
		}
	}
	fr, err := fit(train, full)
	if err != nil {
		return err
	}
	p, _ := buildProfile(name, rows, fr)
	rep.setGroupOp(p)
	sc := simCache{}
	for _, i := range out {
		t, err := sc.simulate(prs[i].c, p)
		if err != nil {
			return err
		}
		rep.Results[i].HeldOut = t
	}
	return nil
}

// simCache shares the simulations of rows with one schedule and launch
// mode under one profile.
type simCache map[simKey]float64

type simKey struct {
	s *algos.Schedule
	l sim.Launch
}

func (sc simCache) simulate(c *Case, p *sim.Profile) (float64, error) {
	k := simKey{c.sched, c.Launch}
	if t, ok := sc[k]; ok {
		return t, nil
	}
	t, err := c.Simulate(p)
	if err != nil {
		return 0, err
	}
	sc[k] = t
	return t, nil
}

func excluded(path string, pats []string) bool {
	p := filepath.ToSlash(path)
	for _, pat := range pats {
		parts := strings.Split(p, "/")
		for i := range parts {
			if ok, _ := filepath.Match(pat, strings.Join(parts[i:], "/")); ok {
				return true
			}
		}
	}
	return false
}

var dateRE = regexp.MustCompile(`\b(20\d\d-\d\d-\d\d)\b`)

// captureDate is the first date in the notes nearest to dir (README.md or
// PROVENANCE.md), "" if none.
func captureDate(dir string) string {
	for d := dir; d != "." && d != "/" && d != ""; d = filepath.Dir(d) {
		for _, n := range []string{"PROVENANCE.md", "README.md"} {
			b, err := os.ReadFile(filepath.Join(d, n))
			if err == nil {
				if m := dateRE.FindSubmatch(b); m != nil {
					return string(m[1])
				}
			}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return ""
}

// captureID names a row's source: its directory (a capture configuration's
// directory stands for itself).
func captureID(r *Row) string { return filepath.ToSlash(filepath.Dir(r.File)) }

// buildProfile turns a fit into a profile. The fit searches wider than a
// parameter's range (a parameter the rows hardly pin can wander off, as
// hop.nvlink.scale does on one collective's rows): such a value is held at
// the range's bound and named in clamped.
func buildProfile(name string, rows []Row, fr *fitResult) (p *sim.Profile, clamped []string) {
	p = &sim.Profile{Schema: sim.ProfileSchema, Name: name, SM: 90, Params: map[string]sim.Param{},
		Doc: "fitted by gatesim calibrate (docs/calibration.md); parameters not listed as calibrated are nominal"}
	// captures, grouped by their top directory and release
	type ck struct{ id, rel string }
	seen := map[ck]int{}
	var order []ck
	for i := range rows {
		r := &rows[i]
		id := captureID(r)
		if j := strings.Index(id, "/h200x2-"); j >= 0 {
			if k := strings.Index(id[j+1:], "/"); k >= 0 {
				id = id[:j+1+k]
			}
		}
		k := ck{id, r.Release.String()}
		if _, ok := seen[k]; !ok {
			order = append(order, k)
		}
		seen[k]++
	}
	var ids []string
	for _, k := range order {
		p.Captures = append(p.Captures, sim.ProfileCapture{ID: k.id, Machine: "2 × H200 NV18 (the project's nvidia-h200-x2)", Date: captureDate(k.id), Release: k.rel, Rows: seen[k]})
		ids = append(ids, k.id)
	}
	sort.Slice(p.Captures, func(i, j int) bool {
		a, b := p.Captures[i], p.Captures[j]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Release < b.Release
	})
	from := "fitted to the captures above"
	pinned := map[string]bool{}
	for _, n := range fr.pinned {
		pinned[n] = true
	}
	for _, ps := range sim.ProfileParams() {
		if pinned[ps.Name] {
			v := round4(fr.value(ps.Name))
			if b := min(max(v, ps.Min), ps.Max); b != v && !(v == 0 && ps.Zero != "") {
				clamped = append(clamped, fmt.Sprintf("`%s` %.4g → %g", ps.Name, v, b))
				v = b
			}
			p.Params[ps.Name] = sim.Param{Value: v, Source: "calibrated", From: from}
		}
	}
	return p, clamped
}

// round4 keeps four significant digits (a profile is read by people).
func round4(x float64) float64 {
	if x == 0 {
		return 0
	}
	e := math.Pow(10, 3-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*e) / e
}

// Errors are relative errors of a set of rows.
type Errors struct {
	N                    int
	Nominal, In, Out     float64 // median |error|
	OutP90               float64
	NominalBias, OutBias float64 // median signed error
}

func relErr(sim, meas float64) float64 { return (sim - meas) / meas }

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return stat.Quantile(q, stat.Empirical, s, nil)
}

// Summarise computes the errors of the results that keep says yes to.
func Summarise(rs []Result, keep func(*Result) bool) Errors {
	var nom, in, out, nomS, outS []float64
	for i := range rs {
		r := &rs[i]
		if !keep(r) {
			continue
		}
		en, ei, eo := relErr(r.Nominal, r.TimeUs), relErr(r.HeldIn, r.TimeUs), relErr(r.HeldOut, r.TimeUs)
		nom, in, nomS = append(nom, math.Abs(en)), append(in, math.Abs(ei)), append(nomS, en)
		if r.HeldOut > 0 {
			out, outS = append(out, math.Abs(eo)), append(outS, eo)
		}
	}
	e := Errors{N: len(nom)}
	if e.N == 0 {
		return e
	}
	e.Nominal, e.In, e.NominalBias = quantile(nom, 0.5), quantile(in, 0.5), quantile(nomS, 0.5)
	e.Out, e.OutP90, e.OutBias = quantile(out, 0.5), quantile(out, 0.9), quantile(outS, 0.5)
	return e
}

// Large reports rows of at least 1 MiB (the split docs/calibration.md reports by).
func Large(r *Result) bool { return r.Bytes >= 1<<20 }

// ProfileYAML writes the fitted profile, every parameter listed: the
// calibrated ones with their value, the nominal ones with their constant's
// origin.
func ProfileYAML(rep *Report, command string) ([]byte, error) {
	p := *rep.Profile
	p.Params = map[string]sim.Param{}
	for _, ps := range sim.ProfileParams() {
		if x, ok := rep.Profile.Params[ps.Name]; ok {
			p.Params[ps.Name] = x
			continue
		}
		p.Params[ps.Name] = sim.Param{Value: ps.Nominal, Source: "nominal", From: ps.NominalFrom}
	}
	b, err := p.MarshalYAML()
	if err != nil {
		return nil, err
	}
	head := "# gatesim machine performance profile (schema " + sim.ProfileSchema + ", docs/calibration.md).\n" +
		"# Written by: " + command + "\n"
	return append([]byte(head), b...), nil
}

// Command is the gatesim calibrate command line of the options.
func Command(o Options) string {
	var b strings.Builder
	b.WriteString("gatesim calibrate")
	for _, f := range o.From {
		b.WriteString(" --from " + f)
	}
	for _, x := range o.Exclude {
		b.WriteString(" --exclude '" + x + "'")
	}
	if o.System != "" && o.System != "h200x2" {
		b.WriteString(" --system " + o.System)
	}
	if o.Name != "" && o.Name != "h200x2" {
		b.WriteString(" --name " + o.Name)
	}
	return b.String()
}

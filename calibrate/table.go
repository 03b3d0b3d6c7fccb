package calibrate

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/sim"
)

func pct(x float64) string {
	if x != x { // NaN
		return "—"
	}
	return fmt.Sprintf("%.1f %%", 100*x)
}

func spct(x float64) string {
	if x != x {
		return "—"
	}
	return fmt.Sprintf("%+.1f %%", 100*x)
}

// groupTable writes one table: the rows grouped by key, each group split
// at 1 MiB.
func groupTable(w io.Writer, rs []Result, title string, key func(*Result) string) {
	keys := map[string]bool{}
	for i := range rs {
		keys[key(&rs[i])] = true
	}
	var ks []string
	for k := range keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	fmt.Fprintf(w, "| %s | sizes | rows | nominal median | nominal bias | held-in median | held-out median | held-out p90 | held-out bias |\n", title)
	fmt.Fprintf(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, k := range ks {
		for _, big := range []bool{false, true} {
			e := Summarise(rs, func(r *Result) bool { return key(r) == k && Large(r) == big })
			if e.N == 0 {
				continue
			}
			sz := "< 1 MiB"
			if big {
				sz = "≥ 1 MiB"
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", k, sz, e.N, pct(e.Nominal), spct(e.NominalBias), pct(e.In), pct(e.Out), pct(e.OutP90), spct(e.OutBias))
		}
	}
	fmt.Fprintln(w)
}

// WriteMarkdown writes the calibration's tables (docs/calibration.md's
// generated part).
func WriteMarkdown(w io.Writer, rep *Report) {
	simulable := len(rep.Results)
	fmt.Fprintf(w, "Measured rows: %d on %s (%d simulable, %d not). Cross-validation: %d folds, each leaving out one configuration (collective × environment × release × launch mode), fitting the profile to the rest and simulating the left-out rows with it.\n\n",
		rep.Rows, rep.System, simulable, rep.Rows-simulable, rep.Folds)
	if len(rep.Excluded) > 0 {
		fmt.Fprintf(w, "Files left out (`--exclude`): %s.\n\n", strings.Join(rep.Excluded, ", "))
	}
	if len(rep.NotSimulable) > 0 {
		fmt.Fprintf(w, "Rows that cannot be simulated yet:\n\n| rows | configuration: reason |\n|--:|---|\n")
		var ks []string
		for k := range rep.NotSimulable {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			fmt.Fprintf(w, "| %d | %s |\n", rep.NotSimulable[k], k)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Errors are (simulated − measured) / measured; medians and p90 of |error|, bias the median signed error (negative: the model is optimistic).\n\n")
	fmt.Fprintf(w, "### All rows\n\n")
	groupTable(w, rep.Results, "rows", func(*Result) string { return "all" })
	fmt.Fprintf(w, "### Per collective and launch mode\n\n")
	groupTable(w, rep.Results, "collective, launch", func(r *Result) string { return r.Func.String() + ", " + r.Launch.String() })
	fmt.Fprintf(w, "### Per algorithm and protocol (NCCL's choice)\n\n")
	groupTable(w, rep.Results, "algorithm/protocol", func(r *Result) string { return r.Cell() })
	fmt.Fprintf(w, "### Per channel count\n\n")
	groupTable(w, rep.Results, "channels", func(r *Result) string { return fmt.Sprintf("%2d", r.NChannels) })
	fmt.Fprintf(w, "### Per release\n\n")
	groupTable(w, rep.Results, "release", func(r *Result) string { return r.Release.String() })
	fmt.Fprintf(w, "### Per environment configuration\n\n")
	groupTable(w, rep.Results, "configuration", func(r *Result) string { return r.Config })
	fmt.Fprintf(w, "### Per tool\n\n")
	groupTable(w, rep.Results, "tool", func(r *Result) string { return r.Tool })
	fmt.Fprintf(w, "### Per operations per timed batch (-n)\n\n")
	groupTable(w, rep.Results, "-n", func(r *Result) string { return fmt.Sprintf("%3d", max(1, r.Launch.Iters)) })
	writeSpread(w, rep.Results)
	WriteParams(w, rep)
}

// spreadMax is the largest size whose time is the fixed cost alone (the
// launch floor) on the captures: up to it a row's time moves by less than
// the floor's own spread.
const spreadMax = 4 << 10

// FloorSpread is how far the floor rows (at most 4 KiB) of the selected
// results lie from the median of their group, |t - median| / t: what no
// model that gives a group one time can beat. With key the row's file and
// collective it is the spread within one process; with what a row records
// (tool, launch mode, -n) the spread any model of those meets.
func FloorSpread(rs []Result, keep func(*Result) bool, key func(*Result) string) (n int, median, p90 float64) {
	groups := map[string][]float64{}
	for i := range rs {
		r := &rs[i]
		if r.Bytes <= spreadMax && keep(r) {
			groups[key(r)] = append(groups[key(r)], r.TimeUs)
		}
	}
	var errs []float64
	for _, ts := range groups {
		m := quantile(ts, 0.5)
		for _, t := range ts {
			errs = append(errs, math.Abs(t-m)/t)
		}
	}
	if len(errs) == 0 {
		return 0, math.NaN(), math.NaN()
	}
	return len(errs), quantile(errs, 0.5), quantile(errs, 0.9)
}

func writeSpread(w io.Writer, rs []Result) {
	fmt.Fprintf(w, "### The spread of the launch floor itself\n\n")
	fmt.Fprintf(w, "Rows of at most %d KiB (the time is the fixed cost alone), each against the median of its group: no model that gives a group one time does better.\n\n", spreadMax>>10)
	fmt.Fprintf(w, "| launch | group | rows | median \\|t − group median\\| / t | p90 |\n|---|---|--:|--:|--:|\n")
	for _, l := range []struct {
		name string
		keep func(*Result) bool
	}{
		{"stream", func(r *Result) bool { return !r.Launch.Graph() }},
		{"graph", func(r *Result) bool { return r.Launch.Graph() }},
	} {
		for _, g := range []struct {
			name string
			key  func(*Result) string
		}{
			{"what a row records (what a model sees): tool, launch mode, -n, collective, configuration, release", func(r *Result) string {
				return fmt.Sprintf("%s|%s|%d|%s", r.Tool, r.Launch, r.Launch.Iters, r.Key)
			}},
			{"one file (one process) and collective", func(r *Result) string { return r.File + "|" + r.Func.String() }},
		} {
			n, med, p90 := FloorSpread(rs, l.keep, g.key)
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s |\n", l.name, g.name, n, pct(med), pct(p90))
		}
	}
	fmt.Fprintln(w)
}

// WriteParams writes the fitted profile's parameters.
func WriteParams(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "### Parameters of profile %s\n\n", rep.Profile.Name)
	fmt.Fprintf(w, "| parameter | value | unit | source | rows that pin it | transfers to the GPU generation |\n|---|--:|---|---|--:|---|\n")
	for _, ps := range sim.ProfileParams() {
		src := "nominal: " + ps.NominalFrom
		v := rep.Profile.Value(ps.Name)
		if rep.Profile.Source(ps.Name) == "calibrated" {
			src = "calibrated"
		}
		gen := "no"
		if ps.Generation {
			gen = "yes"
		}
		fmt.Fprintf(w, "| `%s` | %.4g | %s | %s | %d | %s |\n", ps.Name, v, ps.Unit, src, rep.Pinned[ps.Name], gen)
	}
	fmt.Fprintln(w)
}

package calibrate

import (
	"fmt"
	"io"
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
	WriteParams(w, rep)
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

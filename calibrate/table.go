package calibrate

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/sim"
)

func pct(x float64) string {
	if x != x { // NaN
		return "—"
	}
	return fmt.Sprintf("%.1f %%", 100*x)
}

// offsetUs is a signed offset in µs; "n/a" where a mode has no rows.
func offsetUs(x float64) string {
	if x != x {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f", x)
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
	if len(rep.Clamped) > 0 {
		fmt.Fprintf(w, "Fitted values outside their parameter's range, held at its bound (the rows hardly pin them): %s.\n\n", strings.Join(rep.Clamped, ", "))
	}
	if rep.Repeats.N > 0 {
		fmt.Fprintf(w, "Rows that repeat an earlier row of their file's pass over the sizes (the same operation, size and type), counted once: %d, the first at %s.\n\n", rep.Repeats.N, rep.Repeats.First)
	}
	if rep.SharedRows > 0 {
		fmt.Fprintf(w, "Rows of runs whose ranks share one GPU: %d, another machine than %s's; only their launch floors are read (`launch.group_op`, \"The cost of an operation inside a group\" below).\n\n", rep.SharedRows, rep.System)
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
	writeFloorModes(w, rep.Results)
	writeModeKnown(w, rep.Results)
	fmt.Fprintf(w, "### The cost of an operation inside a group\n\n")
	WriteGroupOp(w, rep.GroupOp)
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

// slowFloor separates the stream launch floor's two modes: a row is in the
// slow mode above this multiple of the fast floor (the 10th percentile of
// the rows). The comparison runs' modes sit near 12.5 and 18 µs.
const slowFloor = 1.2

// slowLimit is the time above which a floor row of ts is in the slow mode:
// slowFloor times the fast floor, the 10th percentile of ts.
func slowLimit(ts []float64) float64 { return slowFloor * quantile(ts, 0.1) }

// sweepPlace is where a row stands in its file's sweep over sizes: Pass
// counts the passes before it (nccl-tests -N repeats the sweep; a pass
// starts where the size falls), AfterLarge says the operation before it in
// the file was at least 1 MiB, First that it is the file's first row.
type sweepPlace struct {
	Pass              int
	AfterLarge, First bool
}

// fileOrder is the results' indices in file and line order: the order a
// process measured them in.
func fileOrder(rs []Result) []int {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ra, rb := &rs[idx[a]], &rs[idx[b]]
		if ra.File != rb.File {
			return ra.File < rb.File
		}
		return ra.Line < rb.Line
	})
	return idx
}

// sweepPlaces gives every result its place in its file's sweep, in file
// and line order.
func sweepPlaces(rs []Result) []sweepPlace {
	idx := fileOrder(rs)
	out := make([]sweepPlace, len(rs))
	for k, i := range idx {
		if k == 0 || rs[idx[k-1]].File != rs[i].File {
			out[i] = sweepPlace{First: true}
			continue
		}
		prev := &rs[idx[k-1]]
		out[i] = sweepPlace{Pass: out[idx[k-1]].Pass, AfterLarge: prev.Bytes >= 1<<20}
		if rs[i].Bytes < prev.Bytes {
			out[i].Pass++
		}
	}
	return out
}

// FloorMode is the share of the stream launch floor's rows in the slow
// mode among the rows of one value of one recorded property.
type FloorMode struct {
	Property, Value string
	Rows, Slow      int
}

// FloorModes splits the stream floor rows (at most 4 KiB) of the runs
// whose modes separate (not logged, -n of at least 20) by each property a
// row records and gives each value's share in the slow mode. A property
// predicts the mode only where its values' shares approach 0 or 1.
func FloorModes(rs []Result) []FloorMode {
	places := sweepPlaces(rs)
	var sel []int
	var ts []float64
	for i := range rs {
		r := &rs[i]
		if !r.Launch.Graph() && !r.Launch.Logged && r.Launch.Iters >= 20 && r.Bytes <= spreadMax {
			sel = append(sel, i)
			ts = append(ts, r.TimeUs)
		}
	}
	if len(sel) == 0 {
		return nil
	}
	lim := slowLimit(ts)
	props := []struct {
		name string
		val  func(*Result, sweepPlace) string
	}{
		{"collective", func(r *Result, _ sweepPlace) string { return r.Func.String() }},
		{"release", func(r *Result, _ sweepPlace) string { return r.Release.String() }},
		{"tool", func(r *Result, _ sweepPlace) string { return r.Tool }},
		{"-n", func(r *Result, _ sweepPlace) string { return fmt.Sprintf("%d", r.Launch.Iters) }},
		{passProperty, func(_ *Result, p sweepPlace) string { return passLabel(p.Pass + 1) }},
		{"the operation before it in the process ≥ 1 MiB", func(_ *Result, p sweepPlace) string { return fmt.Sprint(p.AfterLarge) }},
		{"the first operation of the process", func(_ *Result, p sweepPlace) string { return fmt.Sprint(p.First) }},
	}
	var out []FloorMode
	for _, p := range props {
		byVal := map[string]*FloorMode{}
		var vals []string
		for _, i := range sel {
			v := p.val(&rs[i], places[i])
			m := byVal[v]
			if m == nil {
				m = &FloorMode{Property: p.name, Value: v}
				byVal[v] = m
				vals = append(vals, v)
			}
			m.Rows++
			if rs[i].TimeUs > lim {
				m.Slow++
			}
		}
		if p.name == passProperty || p.name == "-n" {
			// counts in numeric order (20 before 100)
			sort.Slice(vals, func(a, b int) bool { return passLess(vals[a], vals[b]) })
		} else {
			sort.Strings(vals)
		}
		for _, v := range vals {
			out = append(out, *byVal[v])
		}
	}
	return out
}

// maxPassRow is the last pass over the sizes FloorModes gives a row of its
// own; later passes share one ("> 10"), so that a file of thousands of
// passes prints a table of a few lines.
const maxPassRow = 10

func passLabel(pass int) string {
	if pass > maxPassRow {
		return fmt.Sprintf("> %d", maxPassRow)
	}
	return fmt.Sprintf("%d", pass)
}

const passProperty = "pass over the sizes (nccl-tests -N)"

// passLess orders passLabels (and -n counts) by number (1, 2, 10,
// "> 10"), not as text (1, 10, 2).
func passLess(a, b string) bool {
	na, _ := passNumber(a)
	nb, _ := passNumber(b)
	return na < nb
}

// passNumber reads a passLabel: "> 10" after 10.
func passNumber(s string) (float64, bool) {
	rest, above := strings.CutPrefix(s, "> ")
	n, err := strconv.Atoi(rest)
	if err != nil {
		return 0, false
	}
	if above {
		return float64(n) + 0.5, true
	}
	return float64(n), true
}

func writeFloorModes(w io.Writer, rs []Result) {
	ms := FloorModes(rs)
	if len(ms) == 0 {
		return
	}
	fmt.Fprintf(w, "### The stream floor's mode against what a row records\n\n")
	fmt.Fprintf(w, "Stream rows of at most %d KiB from the runs whose two modes separate (not logged, -n ≥ 20), in the slow mode when above %.1f × the fast floor (their 10th percentile). A property a row records predicts the mode only where its values' shares approach 0 or 1.\n\n", spreadMax>>10, slowFloor)
	fmt.Fprintf(w, "| what a row records | value | rows | in the slow mode |\n|---|---|--:|--:|\n")
	for _, m := range ms {
		fmt.Fprintf(w, "| %s | %s | %d | %s |\n", m.Property, m.Value, m.Rows, pct(float64(m.Slow)/float64(m.Rows)))
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

// predicted is a result's held-out time, or its held-in time where the
// calibration ran without cross-validation.
func (r *Result) predicted() float64 {
	if r.HeldOut > 0 {
		return r.HeldOut
	}
	return r.HeldIn
}

// floorNeighbours gives every result the index of the floor row (at most
// spreadMax) of the same file and collective measured last before it, or
// the first after it where none is before; never the row itself, -1 where
// there is none. It stands for the state of the process when the row ran.
func floorNeighbours(rs []Result) []int {
	idx := fileOrder(rs)
	nb := make([]int, len(rs))
	for k, i := range idx {
		nb[i] = -1
		for j := k - 1; j >= 0 && rs[idx[j]].File == rs[i].File; j-- {
			if o := &rs[idx[j]]; o.Func == rs[i].Func && o.Bytes <= spreadMax {
				nb[i] = idx[j]
				break
			}
		}
		for j := k + 1; nb[i] < 0 && j < len(idx) && rs[idx[j]].File == rs[i].File; j++ {
			if o := &rs[idx[j]]; o.Func == rs[i].Func && o.Bytes <= spreadMax {
				nb[i] = idx[j]
			}
		}
	}
	return nb
}

// ModeKnown is the error below 1 MiB of one set of rows under three
// predictions of the same profile: as the model gives it (the stream
// floor's mode unknown), with the floor's mode known, and with the
// process's floor at that moment known. Medians and p90 of |error|.
type ModeKnown struct {
	Rows                   string
	N                      int
	Unknown, UnknownP90    float64
	Known, KnownP90        float64
	FloorKnown, FloorP90   float64
	FastOffset, SlowOffset float64 // µs, the mode's median offset (stream groups only)
}

// floorGroup is what a stream row's floor is modelled by: launch mode and
// operations per timed batch.
func floorGroup(r *Result) string { return fmt.Sprintf("%s, -n %d", r.Launch, max(1, r.Launch.Iters)) }

// FloorModeKnown measures how much of the error below 1 MiB the stream
// floor's mode explains. Per floor group (launch mode, -n) a floor row is
// in the slow mode when its measured time over the model's exceeds
// slowFloor times the group's 10th percentile; each mode's offset is the
// median of measured − modelled over its floor rows. A row's mode is its
// floor neighbour's (floorNeighbours: never the row itself); "mode known"
// adds that mode's offset to the model's time, "floor known" the
// neighbour's own offset. Rows from a CUDA graph have no host in the loop
// and keep the model's time.
func FloorModeKnown(rs []Result) []ModeKnown {
	k := modeKnown(rs)
	type errs struct{ unknown, known, floor []float64 }
	byRows := map[string]*errs{}
	all := "all < 1 MiB"
	names := []string{all} // first in the table
	byRows[all] = &errs{}
	add := func(name string, i int) {
		e := byRows[name]
		if e == nil {
			e = &errs{}
			byRows[name] = e
			names = append(names, name)
		}
		e.unknown = append(e.unknown, math.Abs(k.unknown[i]))
		e.known = append(e.known, math.Abs(k.known[i]))
		e.floor = append(e.floor, math.Abs(k.floor[i]))
	}
	for i := range rs {
		r := &rs[i]
		if Large(r) {
			continue
		}
		add(all, i)
		if r.Launch.Graph() {
			add("graph", i)
		} else {
			add(floorGroup(r), i)
		}
	}
	sort.Strings(names[1:])
	var out []ModeKnown
	for _, name := range names {
		e := byRows[name]
		m := ModeKnown{Rows: name, N: len(e.unknown),
			Unknown: quantile(e.unknown, 0.5), UnknownP90: quantile(e.unknown, 0.9),
			Known: quantile(e.known, 0.5), KnownP90: quantile(e.known, 0.9),
			FloorKnown: quantile(e.floor, 0.5), FloorP90: quantile(e.floor, 0.9)}
		if o, ok := k.offset[name]; ok {
			m.FastOffset, m.SlowOffset = o[0], o[1]
		}
		out = append(out, m)
	}
	return out
}

// modeKnownErrs are every row's relative errors below 1 MiB (NaN at
// 1 MiB and above) under the three predictions of FloorModeKnown, and each
// stream floor group's fast and slow offsets, µs.
type modeKnownErrs struct {
	unknown, known, floor []float64
	offset                map[string][2]float64
}

func modeKnown(rs []Result) modeKnownErrs {
	nb := floorNeighbours(rs)
	ratios := map[string][]float64{}
	for i := range rs {
		r := &rs[i]
		if !r.Launch.Graph() && r.Bytes <= spreadMax {
			ratios[floorGroup(r)] = append(ratios[floorGroup(r)], r.TimeUs/r.predicted())
		}
	}
	lim := map[string]float64{}
	for g, xs := range ratios {
		lim[g] = slowLimit(xs)
	}
	mode := func(r *Result) int {
		if r.TimeUs/r.predicted() > lim[floorGroup(r)] {
			return 1
		}
		return 0
	}
	offs := map[string]*[2][]float64{}
	for i := range rs {
		r := &rs[i]
		if !r.Launch.Graph() && r.Bytes <= spreadMax {
			g := floorGroup(r)
			if offs[g] == nil {
				offs[g] = &[2][]float64{}
			}
			offs[g][mode(r)] = append(offs[g][mode(r)], r.TimeUs-r.predicted())
		}
	}
	k := modeKnownErrs{offset: map[string][2]float64{}}
	for g, xs := range offs {
		k.offset[g] = [2]float64{quantile(xs[0], 0.5), quantile(xs[1], 0.5)}
	}
	for i := range rs {
		r := &rs[i]
		p := r.predicted()
		known, floor := p, p
		if j := nb[i]; !r.Launch.Graph() && j >= 0 {
			n := &rs[j]
			if o := k.offset[floorGroup(r)][mode(n)]; o == o {
				known += o
			}
			floor += n.TimeUs - n.predicted()
		}
		u, kn, f := relErr(p, r.TimeUs), relErr(known, r.TimeUs), relErr(floor, r.TimeUs)
		if Large(r) {
			u, kn, f = math.NaN(), math.NaN(), math.NaN()
		}
		k.unknown, k.known, k.floor = append(k.unknown, u), append(k.known, kn), append(k.floor, f)
	}
	return k
}

// ModeLeft is what the model misses below 1 MiB on a stream once the
// floor's mode is known, in one group of rows: the median and p90 of
// |error| and the median signed error.
type ModeLeft struct {
	Property, Value string
	N               int
	Median, P90     float64
	Bias            float64
}

// FloorModeLeft groups the stream rows below 1 MiB, their floor's mode
// known (FloorModeKnown), by the properties a timing term could depend
// on: size, protocol, channel count, transport. A term that depends on one
// of them shows as a bias that moves with its value.
func FloorModeLeft(rs []Result) []ModeLeft {
	k := modeKnown(rs)
	props := []struct {
		name string
		val  func(*Result) string
	}{
		{"size", func(r *Result) string {
			switch {
			case r.Bytes <= spreadMax:
				return "≤ 4 KiB"
			case r.Bytes <= 64<<10:
				return "8–64 KiB"
			case r.Bytes <= 256<<10:
				return "128–256 KiB"
			}
			return "512 KiB–1 MiB"
		}},
		{"protocol", func(r *Result) string { return r.Proto.String() }},
		{"channels", func(r *Result) string { return fmt.Sprintf("%2d", r.NChannels) }},
		{"transport", func(r *Result) string { return r.Transport }},
	}
	var out []ModeLeft
	for _, p := range props {
		errs := map[string][]float64{}
		var vals []string
		for i := range rs {
			r := &rs[i]
			if Large(r) || r.Launch.Graph() {
				continue
			}
			v := p.val(r)
			if errs[v] == nil {
				vals = append(vals, v)
			}
			errs[v] = append(errs[v], k.known[i])
		}
		if p.name != "size" {
			sort.Strings(vals)
		}
		for _, v := range vals {
			e := errs[v]
			abs := make([]float64, len(e))
			for j, x := range e {
				abs[j] = math.Abs(x)
			}
			out = append(out, ModeLeft{Property: p.name, Value: v, N: len(e), Median: quantile(abs, 0.5), P90: quantile(abs, 0.9), Bias: quantile(e, 0.5)})
		}
	}
	return out
}

// InPlaceModes counts the stream floor rows of nccl-tests outputs whose
// in-place column, measured right after the out-of-place one, is in the
// same floor mode (slowFloor times the file's fast floor, its 10th
// percentile of out-of-place times).
func InPlaceModes(rs []Result) (n, same int) {
	times := map[string][]float64{}
	for i := range rs {
		r := &rs[i]
		if r.InPlaceUs > 0 && !r.Launch.Graph() && r.Bytes <= spreadMax {
			times[r.File] = append(times[r.File], r.TimeUs)
		}
	}
	lim := map[string]float64{}
	for f, ts := range times {
		lim[f] = slowLimit(ts)
	}
	for i := range rs {
		r := &rs[i]
		if r.InPlaceUs > 0 && !r.Launch.Graph() && r.Bytes <= spreadMax {
			n++
			if (r.TimeUs > lim[r.File]) == (r.InPlaceUs > lim[r.File]) {
				same++
			}
		}
	}
	return n, same
}

func writeModeKnown(w io.Writer, rs []Result) {
	ms := FloorModeKnown(rs)
	fmt.Fprintf(w, "### What the stream floor's mode explains below 1 MiB\n\n")
	fmt.Fprintf(w, "The held-out model's rows below 1 MiB, and the same predictions told the floor's state, which no input a user gives says: a row's mode is that of the floor row (≤ %d KiB) of the same process and collective measured last before it (never the row itself); per launch mode and -n a floor row is slow above %.1f × the group's fast floor (the 10th percentile of measured / modelled), and each mode's offset is its floor rows' median measured − modelled. *Mode known* adds the row's mode's offset, *floor known* the neighbouring floor row's own offset. CUDA-graph rows keep the model's time.\n\n", spreadMax>>10, slowFloor)
	fmt.Fprintf(w, "| rows | n | mode unknown: median | p90 | mode known: median | p90 | floor known: median | p90 | fast, slow offset (µs) |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, m := range ms {
		off := ""
		if m.FastOffset != 0 || m.SlowOffset != 0 {
			off = offsetUs(m.FastOffset) + ", " + offsetUs(m.SlowOffset)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", m.Rows, m.N, pct(m.Unknown), pct(m.UnknownP90), pct(m.Known), pct(m.KnownP90), pct(m.FloorKnown), pct(m.FloorP90), off)
	}
	fmt.Fprintf(w, "\nWhat the model leaves on a stream below 1 MiB once the mode is known, by what a timing term could depend on (a term that does shows as a bias moving with the value):\n\n")
	fmt.Fprintf(w, "| property | value | rows | mode known: median | p90 | bias |\n|---|---|--:|--:|--:|--:|\n")
	for _, m := range FloorModeLeft(rs) {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s |\n", m.Property, m.Value, m.N, pct(m.Median), pct(m.P90), spct(m.Bias))
	}
	if n, same := InPlaceModes(rs); n > 0 {
		fmt.Fprintf(w, "\nnccl-tests' in-place column, timed right after the out-of-place one of the same row, is in the same floor mode for %d of %d stream floor rows (%s): the mode is a state of the process that outlasts a row, not a property of the row.\n", same, n, pct(float64(same)/float64(n)))
	}
	fmt.Fprintln(w)
}

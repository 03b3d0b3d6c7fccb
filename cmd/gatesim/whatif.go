package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/whatif"
	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

type whatifOpts struct {
	file                                string
	nccl, systems                       []string
	nodes, gpus, nics, nicGbps, nvlinks string
	sharp                               string
	envs                                []string
	envSets                             []string
	colls, sizes, dtype, redop          string
	format, out                         string
	workers                             int
	noSim                               bool
	noProgress                          bool
	tuner                               tunerFlags
	profile                             string
	cudagraph                           bool
	agg                                 int
}

func newWhatifCmd(d *deps) *cobra.Command {
	o := &whatifOpts{}
	c := &cobra.Command{
		Use:   "whatif",
		Short: "Sweep machines, releases, NCCL_* settings, collectives and sizes: what NCCL decides and how fast",
		Long: `whatif evaluates every combination of the sweep's axes: for each point the
decision (algorithm, protocol, channels, or NCCL's error), the gate that kept
CollNet and NVLS out, NCCL's own cost-model time, the simulated time (when the
simulator is built in), and algbw/busbw as nccl-tests defines them (sizes are
nccl-tests sizes: the whole buffer).

Axes come from flags or a sweep file (YAML or JSON, --file); lists are comma
separated; sizes are FROM:TO[:xFACTOR] or a list. With several releases
(--nccl 2.22.3,2.28.9) the points where they decide differently are listed.
--format table|csv|json; --out DIR also writes busbw.png/.svg and
time-nodes.png/.svg.`,
		Example: `  gatesim whatif --system dgx-h100 --nodes 16 --sharp both --env-set nvls-on: --env-set 'nvls-off:NCCL_NVLS_ENABLE=0' --sizes 4KiB:16GiB:x4 --out plan/`,
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return runWhatif(d, o, commandLine(c)) },
	}
	f := c.Flags()
	f.StringVar(&o.file, "file", "", "sweep file (YAML or JSON); flags add to it")
	f.StringSliceVar(&o.nccl, "nccl", nil, "releases (default 2.28.9)")
	f.StringArrayVar(&o.systems, "system", nil, "system preset; repeatable")
	f.StringVar(&o.nodes, "nodes", "", "node counts, such as 1,2,4,16")
	f.StringVar(&o.gpus, "gpus", "", "GPUs per node")
	f.StringVar(&o.nics, "nics", "", "IB NICs per node")
	f.StringVar(&o.nicGbps, "nic-gbps", "", "NIC speeds in Gb/s, such as 200,400")
	f.StringVar(&o.nvlinks, "nvlinks", "", "NVLink links per GPU")
	f.StringVar(&o.sharp, "sharp", "off", "SHARP plugin/switch: off, on or both")
	f.StringArrayVar(&o.envs, "env", nil, "NAME=VALUE for every point; repeatable")
	f.StringArrayVar(&o.envSets, "env-set", nil, "NAME:A=1,B=2 a named environment set; repeatable (NAME: alone is the empty set)")
	f.StringVar(&o.colls, "coll", "allreduce", "collectives, comma separated: "+strings.Join(spec.FuncNames(spec.SelectFuncs), ", "))
	f.StringVar(&o.sizes, "sizes", "", "sizes: FROM:TO[:xFACTOR] (4KiB:16GiB:x2) or a list (1MiB,1GiB)")
	f.StringVar(&o.dtype, "dtype", "", "datatype (default float32)")
	f.StringVar(&o.redop, "redop", "", "reduction (default sum)")
	f.StringVar(&o.format, "format", "table", "table, csv or json")
	f.StringVar(&o.out, "out", "", "directory for the plots (busbw and time-nodes, PNG and SVG)")
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "parallel workers")
	f.BoolVar(&o.noSim, "no-sim", false, "leave the simulated-time column empty (NCCL's cost model only; faster on huge sweeps)")
	f.BoolVar(&o.noProgress, "no-progress", false, "no progress bar")
	o.tuner.add(c)
	addTimingFlags(f, &o.profile, &o.cudagraph, &o.agg)
	return c
}

func intList(flag, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return nil, badInputf("--%s %q: expected a comma list of non-negative integers", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}

func (o *whatifOpts) sweep() (whatif.Sweep, error) {
	var sw whatif.Sweep
	if o.file != "" {
		data, err := readInput(o.file)
		if err != nil {
			return sw, badInput(err)
		}
		if sw, err = whatif.ParseSweep(o.file, data); err != nil {
			return sw, badInput(err)
		}
	}
	sw.NCCL = append(sw.NCCL, o.nccl...)
	if len(sw.NCCL) == 0 {
		sw.NCCL = []string{spec.V2_28_9.String()}
	}
	var sharps []bool
	switch o.sharp {
	case "off":
		sharps = []bool{false}
	case "on":
		sharps = []bool{true}
	case "both":
		sharps = []bool{false, true}
	default:
		return sw, badInputf("--sharp %q: expected off, on or both", o.sharp)
	}
	lists := map[string]*[]int{}
	var nodes, gpus, nics, gbps, nvl []int
	for name, p := range map[string]struct {
		s   string
		dst *[]int
	}{"nodes": {o.nodes, &nodes}, "gpus": {o.gpus, &gpus}, "nics": {o.nics, &nics}, "nic-gbps": {o.nicGbps, &gbps}, "nvlinks": {o.nvlinks, &nvl}} {
		l, err := intList(name, p.s)
		if err != nil {
			return sw, err
		}
		*p.dst = l
		lists[name] = p.dst
	}
	for _, s := range o.systems {
		sw.Systems = append(sw.Systems, whatif.SystemAxis{Preset: s, Nodes: nodes, GPUs: gpus, SHARP: sharps, NICs: nics, NICGbps: gbps, NVLinks: nvl})
	}
	common, err := spec.ParseAssignments(o.envs)
	if err != nil {
		return sw, badInput(err)
	}
	for _, es := range o.envSets {
		name, vars, ok := strings.Cut(es, ":")
		if !ok || name == "" {
			return sw, badInputf("--env-set %q: expected NAME:A=1,B=2", es)
		}
		set := whatif.EnvSet{Name: name, Vars: map[string]string{}}
		if vars != "" {
			e, err := spec.ParseAssignments(strings.Split(vars, ","))
			if err != nil {
				return sw, badInputf("--env-set %s: %v", name, err)
			}
			for k, v := range e {
				set.Vars[k] = v
			}
		}
		sw.Env = append(sw.Env, set)
	}
	if len(sw.Env) == 0 && len(common) > 0 {
		sw.Env = []whatif.EnvSet{{Name: "env", Vars: map[string]string{}}}
	}
	for i := range sw.Env {
		if sw.Env[i].Vars == nil {
			sw.Env[i].Vars = map[string]string{}
		}
		for k, v := range common {
			sw.Env[i].Vars[k] = v
		}
	}
	if o.colls != "" && (o.file == "" || len(sw.Colls) == 0) {
		sw.Colls = strings.Split(o.colls, ",")
	}
	if o.sizes != "" {
		if strings.Contains(o.sizes, ":") {
			parts := strings.Split(o.sizes, ":")
			if len(parts) < 2 || len(parts) > 3 {
				return sw, badInputf("--sizes %q: expected FROM:TO[:xFACTOR]", o.sizes)
			}
			sw.Sizes = whatif.SizeAxis{From: parts[0], To: parts[1]}
			if len(parts) == 3 {
				f, err := strconv.Atoi(strings.TrimPrefix(parts[2], "x"))
				if err != nil {
					return sw, badInputf("--sizes %q: factor %q: expected x2, x4, ...", o.sizes, parts[2])
				}
				sw.Sizes.Factor = f
			}
		} else {
			sw.Sizes = whatif.SizeAxis{List: strings.Split(o.sizes, ",")}
		}
	}
	if sw.Sizes.From == "" && len(sw.Sizes.List) == 0 {
		sw.Sizes = whatif.SizeAxis{From: "4KiB", To: "16GiB", Factor: 4}
	}
	if o.dtype != "" {
		sw.DType = o.dtype
	}
	if o.redop != "" {
		sw.RedOp = o.redop
	}
	return sw, nil
}

func runWhatif(d *deps, o *whatifOpts, command string) error {
	if o.workers < 1 || o.workers > 1024 {
		return badInputf("--workers %d: expected 1 to 1024", o.workers)
	}
	sw, err := o.sweep()
	if err != nil {
		return err
	}
	pts, err := whatif.Expand(sw)
	if err != nil {
		return badInput(err)
	}
	switch o.format {
	case "table", "csv", "json":
	default:
		return badInputf("--format %q: expected table, csv or json", o.format)
	}
	// The bar appears once the sweep has run for a second, whatever its
	// point count: a few slow simulated points deserve one as much as
	// thousands of cost-model points.
	var progress func(int)
	if !o.noProgress && isTerminal(d.stderr) {
		// the bar appears once the sweep has run a second: a simulated
		// point can take that long, so the point count alone says little
		start := time.Now()
		var mu sync.Mutex
		var bar *progressbar.ProgressBar
		progress = func(done int) {
			mu.Lock()
			defer mu.Unlock()
			if bar == nil {
				if time.Since(start) < time.Second {
					return
				}
				bar = progressbar.NewOptions(len(pts), progressbar.OptionSetWriter(d.stderr), progressbar.OptionSetDescription("whatif"),
					progressbar.OptionThrottle(100e6), progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true),
					progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
			}
			_ = bar.Set(done)
		}
		defer func() {
			mu.Lock()
			defer mu.Unlock()
			if bar != nil {
				_ = bar.Finish()
			}
		}()
	}
	var simulate whatif.Simulator
	if !o.noSim {
		prof, err := loadProfile(o.profile)
		if err != nil {
			return err
		}
		l, err := timingLaunch(o.cudagraph, o.agg)
		if err != nil {
			return err
		}
		simulate = whatif.NewSimulator(4096, whatif.SimOptions{Profile: prof, Launch: l})
		which := "each machine's own profile (" + sim.DefaultProfile("h200x2", 90).Summary() + " on h200x2; its GPU-generation parameters on other sm90 machines; nominal elsewhere)"
		if prof != nil {
			which = prof.Summary()
		}
		fmt.Fprintf(d.stderr, "gatesim whatif: simulated time: launch %s, profile %s\n", l, which)
	}
	lib, err := o.tuner.load()
	if err != nil {
		return err
	}
	var host whatif.TunerHost
	if lib != nil {
		host = whatifTuner{lib}
	}
	rs := whatif.RunTuned(pts, o.workers, simulate, host, progress)
	var diffs []whatif.ReleaseDiff
	if len(sw.NCCL) > 1 {
		diffs = whatif.DiffReleases(rs)
	}
	switch o.format {
	case "csv":
		if err := whatif.WriteCSV(d.stdout, rs); err != nil {
			return err
		}
	case "json":
		// streamed: a sweep of whatif.MaxPoints prints in bounded memory
		v, err := outVersion("whatif")
		if err != nil {
			return err
		}
		if err := whatif.WriteJSON(d.stdout, v, rs, diffs); err != nil {
			return err
		}
	default:
		if err := whatifTable(d.stdout, rs, diffs); err != nil {
			return err
		}
	}
	if o.out != "" {
		if err := os.MkdirAll(o.out, 0o755); err != nil {
			return badInput(err)
		}
		var figs []whatif.Figure
		for _, pl := range []struct {
			name string
			mk   func([]whatif.Result) (any, error)
		}{{"busbw", func(r []whatif.Result) (any, error) { return whatif.BusBwPlot(r) }}, {"time-nodes", func(r []whatif.Result) (any, error) { return whatif.TimeNodesPlot(r) }}} {
			p, err := pl.mk(rs)
			if err != nil {
				fmt.Fprintf(d.stderr, "gatesim: %s plot: %v\n", pl.name, err)
				continue
			}
			if pp, ok := p.(*plot.Plot); ok {
				svg, err := whatif.SVG(pp)
				if err != nil {
					return err
				}
				figs = append(figs, whatif.Figure{Title: pp.Title.Text, SVG: svg})
			}
			for _, ext := range []string{"png", "svg"} {
				path := filepath.Join(o.out, pl.name+"."+ext)
				if err := saveAny(p, path); err != nil {
					return err
				}
				fmt.Fprintf(d.stderr, "wrote %s\n", path)
			}
		}
		path := filepath.Join(o.out, "index.html")
		hf, err := os.Create(path)
		if err != nil {
			return badInput(err)
		}
		err = whatif.WriteHTML(hf, command, figs, rs)
		if cerr := hf.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(d.stderr, "wrote %s\n", path)
	}
	return nil
}

// commandLine is the command as a shell would take it: the command path
// and every flag the user set, quoted where needed.
func commandLine(c *cobra.Command) string {
	parts := []string{c.CommandPath()}
	c.Flags().Visit(func(f *pflag.Flag) {
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			if f.Value.Type() == "bool" {
				parts = append(parts, "--"+f.Name)
				continue
			}
			parts = append(parts, "--"+f.Name, shellQuote(v))
		}
	})
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == ',' || r == '=' || r == '+' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func whatifTable(w io.Writer, rs []whatif.Result, diffs []whatif.ReleaseDiff) error {
	hasModel, hasSim, hasTuner := false, false, false
	for _, r := range rs {
		hasModel = hasModel || r.ModelUs > 0
		hasSim = hasSim || r.SimUs > 0
		hasTuner = hasTuner || r.TunerWithout != ""
	}
	type key struct{ rel, label, env, coll string }
	var order []key
	groups := map[key][]whatif.Result{}
	for _, r := range rs {
		k := key{r.Release.String(), r.Machine.Label, r.Env.Name, r.Op.Func.String()}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		fmt.Fprintf(w, "NCCL %s | %s | env %s | %s\n", k.rel, k.label, k.env, k.coll)
		var rows [][]string
		for _, r := range groups[k] {
			nc := "-"
			if r.NChannels > 0 {
				nc = strconv.Itoa(r.NChannels)
			}
			bw := func(x float64) string {
				if x == 0 {
					return "-"
				}
				return strconv.FormatFloat(x, 'f', 1, 64)
			}
			row := []string{spec.FormatBytes(r.Size), r.Outcome, nc, orDash(r.CollNetGate), orDash(r.NVLSGate),
				whatif.FormatUs(r.ModelUs), whatif.FormatUs(r.SimUs), bw(r.AlgBw), bw(r.BusBw)}
			if hasTuner {
				mark := "-"
				switch {
				case r.TunerChanged:
					mark = "CHANGED (without: " + r.TunerWithout + ")"
				case r.TunerWithout != "":
					mark = "same"
				}
				row = append(row, mark)
			}
			rows = append(rows, row)
		}
		header := []string{"size", "decision", "nch", "CollNet kept out by", "NVLS kept out by", "model time", "sim time", "algbw GB/s", "busbw GB/s"}
		if hasTuner {
			header = append(header, "tuner plugin")
		}
		if err := texttable.Write(w, header, rows, 40); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	switch {
	case !hasSim && !hasModel:
		fmt.Fprintln(w, "note: no time column: neither NCCL's cost model nor the simulator gave a time for these points")
	case !hasSim:
		fmt.Fprintln(w, "note: times and bandwidths are NCCL's cost model only (no point was simulated: --no-sim, or no schedule builder for these decisions)")
	}
	if len(diffs) > 0 {
		fmt.Fprintf(w, "\n%d point(s) where the releases differ:\n", len(diffs))
		var rows [][]string
		for _, df := range diffs {
			var parts, times []string
			for i := range df.Releases {
				parts = append(parts, df.Releases[i]+": "+df.Outcomes[i])
				times = append(times, df.Releases[i]+": "+whatif.FormatUs(df.Times[i]))
			}
			rows = append(rows, []string{df.Key, strings.Join(parts, "\n"), strings.Join(times, "\n")})
		}
		return texttable.Write(w, []string{"point", "decision", "time"}, rows, 60)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// saveAny saves a *plot.Plot built by whatif.
func saveAny(p any, path string) error {
	pl, ok := p.(interface {
		Save(w, h font.Length, file string) error
	})
	if !ok {
		return fmt.Errorf("not a plot")
	}
	return pl.Save(10*vg.Inch, 6*vg.Inch, path)
}

package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/whatif"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type whatifOpts struct {
	file                                string
	nccl, systems                       []string
	nodes, gpus, nics, nicGbps, nvlinks string
	sharp, procs                        string
	envs                                []string
	envSets                             []string
	colls, sizes, dtype, redop, config  string
	format, out                         string
	json                                bool
	workers                             int
	noSim                               bool
	noProgress                          bool
	tuner                               tunerFlags
	profile                             string
	launch                              launchFlags
}

func newWhatifCmd(d *deps) *cobra.Command {
	o := &whatifOpts{}
	c := &cobra.Command{
		Use:   "whatif",
		Short: "Sweep machines, releases, NCCL_* settings, collectives and sizes: what NCCL decides and how fast",
		Long: `whatif evaluates every combination of the sweep's axes: for each point the
decision (algorithm, protocol, channels, or NCCL's error; with --agg N the point
is N operations in one group, and the channels are each one's), the gate that kept
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
	f.StringSliceVar(&o.nccl, "nccl", nil, "releases (default "+spec.DefaultRelease.String()+")")
	f.StringArrayVar(&o.systems, "system", nil, presetUsage+"; repeatable")
	f.StringVar(&o.nodes, "nodes", "", "node counts, such as 1,2,4,16")
	f.StringVar(&o.gpus, "gpus", "", "GPUs per node")
	f.StringVar(&o.nics, "nics", "", "IB NICs per node")
	f.StringVar(&o.nicGbps, "nic-gbps", "", "NIC speeds in Gb/s, such as 200,400")
	f.StringVar(&o.nvlinks, "nvlinks", "", "NVLink links per GPU")
	f.StringVar(&o.sharp, "sharp", "off", "SHARP plugin/switch: off, on or both")
	f.StringVar(&o.procs, "procs", "", "ranks per process for every machine: per-gpu (default), per-node or init-all")
	f.StringArrayVar(&o.envs, "env", nil, "NAME=VALUE for every point; repeatable")
	f.StringVar(&o.config, "config", "", configUsage)
	f.StringArrayVar(&o.envSets, "env-set", nil, "NAME:A=1,B=2 a named environment set; repeatable (NAME: alone is the empty set)")
	f.StringVar(&o.colls, "coll", "allreduce", "collectives, comma separated: "+strings.Join(spec.FuncNames(spec.SelectFuncs), ", "))
	f.StringVar(&o.sizes, "sizes", "", "sizes: FROM:TO[:xFACTOR] (4KiB:16GiB:x2) or a list (1MiB,1GiB)")
	f.StringVar(&o.dtype, "dtype", "", "datatype: "+strings.Join(spec.DataTypeNames(), ", ")+" (default float32)")
	f.StringVar(&o.redop, "redop", "", "reduction: "+strings.Join(spec.RedOpNames(), ", ")+" (default sum)")
	f.StringVar(&o.format, "format", "table", "table, csv or json")
	f.BoolVar(&o.json, "json", false, "print JSON (--format json)")
	f.StringVar(&o.out, "out", "", "directory for the plots (busbw and time-nodes, PNG and SVG)")
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "parallel workers")
	f.BoolVar(&o.noSim, "no-sim", false, "leave the simulated-time column empty (NCCL's cost model only; faster on huge sweeps)")
	f.BoolVar(&o.noProgress, "no-progress", false, "no progress bar")
	o.tuner.add(c)
	addProfileFlag(f, &o.profile)
	o.launch.add(c)
	return c
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
	a := whatif.Axes{NCCL: o.nccl, Systems: o.systems, Nodes: o.nodes, GPUs: o.gpus, NICs: o.nics, NICGbps: o.nicGbps, NVLinks: o.nvlinks,
		SHARP: o.sharp, Env: o.envs, EnvSets: o.envSets, Config: o.config, Colls: o.colls, Sizes: o.sizes, DType: o.dtype, RedOp: o.redop, Procs: o.procs, FromFile: o.file != ""}
	if err := a.Apply(&sw); err != nil {
		return sw, badInput(err)
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
	if o.format, err = whatif.Format(o.format, o.json); err != nil {
		return badInput(err)
	}
	issue, err := o.launch.issue()
	if err != nil {
		return err
	}
	if !issue.Alone() && o.tuner.path != "" {
		return badInputf("--tuner with --agg, --cudagraph, --buffers or --inplace: a tuner's answer for a group is not modelled")
	}
	var progress func(int)
	if !o.noProgress && isTerminal(d.stderr) {
		var finish func()
		progress, finish = whatif.ProgressBar(len(pts), d.stderr)
		defer finish()
	}
	var simulate whatif.Simulator
	if !o.noSim {
		prof, err := plan.LoadProfile(o.profile)
		if err != nil {
			return badInput(err)
		}
		l, err := plan.TimingLaunch(issue)
		if err != nil {
			return badInput(err)
		}
		simulate = whatif.NewSimulator(4096, whatif.SimOptions{Profile: prof, Launch: l, InPlace: issue.InPlace})
		fmt.Fprintf(d.stderr, "gatesim whatif: simulated time: %s\n", whatif.SimulatorNote(prof, l))
	}
	lib, err := o.tuner.load()
	if err != nil {
		return err
	}
	var host whatif.TunerHost
	if lib != nil {
		host = whatifTuner{lib}
	}
	rs := whatif.RunWith(pts, o.workers, whatif.RunOptions{Sim: simulate, Tuner: host, Issue: issue}, progress)
	var diffs []whatif.ReleaseDiff
	if len(sw.NCCL) > 1 {
		diffs = whatif.DiffReleases(rs)
	}
	v, err := outVersion("whatif")
	if err != nil {
		return err
	}
	if err := whatif.Write(d.stdout, o.format, v, rs, diffs); err != nil {
		return err
	}
	if o.out != "" {
		return whatif.WriteFigures(o.out, command, rs, d.stderr)
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

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/oracle"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/tuner"
	"github.com/gatesim/gatesim/whatif"
	"github.com/spf13/cobra"
)

// tunerFlags is --tuner FILE.so (a real tuner plugin, run in a child
// process) and its time limit, shared by explain, whatif and sim.
type tunerFlags struct {
	path    string
	timeout time.Duration
}

func (t *tunerFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&t.path, "tuner", "", "load this tuner plugin (.so) as NCCL would and apply its answers (it runs in a child process)")
	c.Flags().DurationVar(&t.timeout, "tuner-timeout", tuner.DefaultTimeout, "time limit for one call into the tuner plugin")
}

// load probes the plugin; nil without --tuner.
func (t *tunerFlags) load() (*tuner.Library, error) {
	if t.path == "" {
		return nil, nil
	}
	if t.timeout <= 0 || t.timeout > time.Hour {
		return nil, badInputf("--tuner-timeout %s: expected a duration between 1ns and 1h", t.timeout)
	}
	if st, err := os.Stat(t.path); err != nil || st.IsDir() {
		if err == nil {
			err = fmt.Errorf("is a directory")
		}
		return nil, badInputf("--tuner %s: %v: expected a tuner plugin shared library", t.path, err)
	}
	lib, err := tuner.Load(t.path, tuner.Options{Timeout: t.timeout})
	if err != nil {
		return nil, badInputf("--tuner: %v", err)
	}
	return lib, nil
}

// decideWith builds the communicator and decides op, through the tuner
// plugin when lib is not nil.
func decideWith(lib *tuner.Library, rs *spec.Ruleset, sys *spec.System, env spec.Env, op spec.Op) (*spec.Comm, *spec.Decision, spec.Trace, *tuner.Report, error) {
	if lib == nil {
		comm, err := spec.Init(rs, sys, env)
		if err != nil {
			return nil, nil, nil, nil, badInput(err)
		}
		d, tr, err := comm.Select(op)
		if err != nil {
			return nil, nil, nil, nil, badInput(err)
		}
		return comm, d, tr, nil, nil
	}
	s, err := lib.Attach(spec.Init, rs, sys, env)
	if err != nil {
		return nil, nil, nil, nil, badInput(err)
	}
	d, tr, err := s.Select(op)
	s.Close()
	if err != nil {
		return nil, nil, nil, nil, badInput(err)
	}
	return s.Comm, d, tr, s.Report, nil
}

// printTunerEffect prints what the plugin did to one operation: the cost
// table before and after, and the choice without and with it.
func printTunerEffect(w io.Writer, rep *tuner.Report, d *spec.Decision) {
	if rep == nil {
		return
	}
	abi := "refused (no accepted ncclTunerPlugin symbol)"
	if rep.ABI > 0 {
		abi = fmt.Sprintf("ncclTunerPlugin_v%d %q", rep.ABI, rep.Name)
	}
	fmt.Fprintf(w, "  tuner plugin %s: exports %v, %s\n", rep.Path, rep.Symbols, abi)
	if rep.ABI > 0 {
		fmt.Fprintf(w, "    init: %s", spec.Result(rep.InitResult))
		if len(rep.Constants) > 0 {
			var cs []string
			for _, c := range rep.Constants {
				cs = append(cs, fmt.Sprintf("%s=%g", c.Path, c.Value))
			}
			fmt.Fprintf(w, "; constants edited: %s", strings.Join(cs, " "))
		}
		fmt.Fprintln(w)
		for _, l := range rep.InitLog {
			fmt.Fprintf(w, "      log: %s\n", l)
		}
	}
	if rep.Fault != "" {
		fmt.Fprintf(w, "    fault (contained): %s\n", rep.Fault)
	}
	e := d.Tuner
	if e == nil {
		fmt.Fprintf(w, "    getCollInfo: not called for this operation\n")
		return
	}
	fmt.Fprintf(w, "    getCollInfo(%s, nBytes %d, numPipeOps %d, %d×%d table): %s", e.Call.Func, e.Call.NBytes, e.Call.NumPipeOps, e.Call.NumAlgo, e.Call.NumProto, spec.Result(e.Answer.Result))
	if e.Answer.NChannels != 0 {
		fmt.Fprintf(w, ", nChannels %d", e.Answer.NChannels)
	}
	if e.Call.ABI == 2 {
		fmt.Fprintf(w, ", v2 answer algorithm %d protocol %d", e.Answer.Algo, e.Answer.Proto)
	}
	fmt.Fprintln(w)
	var rows [][]string
	for a := range e.Call.NumAlgo {
		row := []string{spec.Algo(a).String()}
		for p := range e.Call.NumProto {
			b, x := e.Call.Table[a][p], e.After[a][p]
			cell := tunerCell(b)
			if x != b && !(x != x && b != b) {
				cell += " → " + tunerCell(x)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	_ = texttable.Write(w, []string{"algorithm", "LL", "LL128", "Simple"}, rows, 40)
	if e.Ignored != "" {
		fmt.Fprintf(w, "    ignored: %s\n", e.Ignored)
	}
	without := e.Without.String()
	if e.WithoutErr != nil {
		without = "error " + fmtErr(e.WithoutErr)
	}
	mark := "unchanged"
	if e.Changed(d) {
		mark = "CHANGED by the plugin"
	}
	fmt.Fprintf(w, "    choice without the plugin: %s; with it: %s (%s)\n", without, decisionLine(d), mark)
	for _, l := range e.Answer.Log {
		fmt.Fprintf(w, "      log: %s\n", l)
	}
}

func tunerCell(v float32) string {
	switch {
	case v == spec.TuningIgnore:
		return "IGNORE"
	case v != v:
		return "NaN"
	}
	return fmt.Sprintf("%.2f", v)
}

// oracleTuner serves the oracle's "tuner" requests: the path must be a
// regular file under one of dirs (after resolving links), and the plugin
// runs in a child process with the time limit.
func oracleTuner(dirs []string, timeout time.Duration) (oracle.TunerFunc, error) {
	var roots []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, badInputf("--tuner-dir %s: %v", d, err)
		}
		roots = append(roots, abs)
	}
	return func(path string, rs *spec.Ruleset, sys *spec.System, env spec.Env, op spec.Op) (*spec.Decision, spec.Trace, *oracle.TunerReport, error) {
		if len(path) > 4096 {
			return nil, nil, nil, fmt.Errorf("path longer than 4096 bytes")
		}
		abs, err := filepath.Abs(path)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		inside := false
		for _, r := range roots {
			if rel, err := filepath.Rel(r, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				inside = true
			}
		}
		if !inside {
			return nil, nil, nil, fmt.Errorf("%s is not under an allowed directory (--tuner-dir %s)", path, strings.Join(roots, ", "))
		}
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
			return nil, nil, nil, fmt.Errorf("%s: expected a regular file", path)
		}
		lib, err := tuner.Load(abs, tuner.Options{Timeout: timeout})
		if err != nil {
			return nil, nil, nil, err
		}
		s, err := lib.Attach(spec.Init, rs, sys, env)
		if err != nil {
			return nil, nil, nil, err
		}
		d, tr, err := s.Select(op)
		s.Close()
		if err != nil {
			return nil, nil, nil, err
		}
		r := s.Report
		rep := &oracle.TunerReport{Path: r.Path, Symbols: r.Symbols, ABI: r.ABI, Name: r.Name, InitLog: r.InitLog, Fault: r.Fault}
		if r.ABI > 0 {
			rep.InitResult = spec.Result(r.InitResult).String()
		}
		return d, tr, rep, nil
	}, nil
}

// whatifTuner loads the --tuner plugin into each of whatif's communicators.
type whatifTuner struct{ lib *tuner.Library }

func (w whatifTuner) Attach(rs *spec.Ruleset, sys *spec.System, env spec.Env, init func(*spec.Ruleset, *spec.System, spec.Env) (*spec.Comm, error)) (whatif.TunedComm, error) {
	s, err := w.lib.Attach(init, rs, sys, env)
	if err != nil {
		return nil, err
	}
	return s, nil
}

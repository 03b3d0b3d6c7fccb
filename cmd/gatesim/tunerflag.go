package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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

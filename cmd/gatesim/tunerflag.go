package main

import (
	"fmt"
	"os"
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

// oracleTuner serves the oracle's "tuner" requests (tuner.UnderDirs).
func oracleTuner(dirs []string, timeout time.Duration) (oracle.TunerFunc, error) {
	decide, err := tuner.UnderDirs(dirs, timeout)
	if err != nil {
		return nil, badInput(err)
	}
	return func(path string, rs *spec.Ruleset, sys *spec.System, env spec.Env, op spec.Op) (*spec.Decision, spec.Trace, *oracle.TunerReport, error) {
		d, tr, r, err := decide(path, rs, sys, env, op)
		if err != nil {
			return nil, nil, nil, err
		}
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

package tuner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatesim/gatesim/spec"
)

// UnderDirs decides operations through tuner plugins named per request
// (the oracle's "tuner"): the path must be a regular file under one of
// dirs (after resolving links), and the plugin runs in a child process
// with the time limit.
func UnderDirs(dirs []string, timeout time.Duration) (func(path string, rs *spec.Ruleset, sys *spec.System, env spec.Env, op spec.Op) (*spec.Decision, spec.Trace, *Report, error), error) {
	var roots []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("--tuner-dir %s: %v", d, err)
		}
		roots = append(roots, abs)
	}
	return func(path string, rs *spec.Ruleset, sys *spec.System, env spec.Env, op spec.Op) (*spec.Decision, spec.Trace, *Report, error) {
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
		lib, err := Load(abs, Options{Timeout: timeout})
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
		return d, tr.Trace(), s.Report, nil
	}, nil
}

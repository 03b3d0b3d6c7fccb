package hw

import (
	"encoding/json"
	"errors"
	"github.com/gatesim/gatesim/conformance"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// Job is one `gatesim hw run`: the plan, the session, how many times to
// measure the table, and the capture policy. Every rank runs the job;
// rank 0 (or the one process of a single-process run) reports.
type Job struct {
	Plan    Plan
	Options Options
	// Cycles measures the whole table this many times (nccl-tests -N);
	// Cycle gets every cycle's result but the last.
	Cycles int
	Cycle  func(n int, r *conformance.RunResult) error
	// Capture is the capture directory ("" none): NCCL's log, topology
	// and graph dumps (CaptureEnv) and the results go there.
	Capture string
	// Config names the configuration in the results.
	Config string
	// OutJSON also writes the result as JSON to this file.
	OutJSON string
	// Rank is this process's rank under a launcher, -1 alone.
	Rank int
	// Progress gets one line per measured row.
	Progress io.Writer
}

// JobError is why a job stopped: InitRefused when NCCL refused the
// configuration at init (the capture and Result still hold that
// result), Plan when the plan does not fit the session (the input's
// fault), otherwise the session or the run failed.
type JobError struct {
	Err         error
	InitRefused bool
	Plan        bool
}

func (e *JobError) Error() string { return e.Err.Error() }
func (e *JobError) Unwrap() error { return e.Err }

// Run runs the job. It returns the result rank 0 reports (nil on other
// ranks) and the run's error, a *JobError where the job could not run;
// an error writing the capture or OutJSON is returned as is.
func (j *Job) Run() (_ *conformance.RunResult, jobErr error) {
	if j.Capture != "" {
		if err := os.MkdirAll(j.Capture, 0o755); err != nil {
			return nil, err
		}
		// what the user set wins over the capture's defaults
		for k, v := range CaptureEnv(j.Capture, j.Rank) {
			if _, set := os.LookupEnv(k); !set {
				os.Setenv(k, v)
			}
		}
	}
	s, err := Open(j.Options)
	var ne *Error
	if err != nil && j.Capture != "" && j.Rank <= 0 && errors.As(err, &ne) {
		// NCCL refused the configuration at init: that is a result too.
		res := &conformance.RunResult{Config: j.Config, Env: NCCLEnviron(), InitErr: ne.NCCLError()}
		if p, perr := Probe(j.Options.Search, j.Options.AllowNVLS); perr == nil {
			res.Library, res.CudaRT, res.Version, res.Devices = p.NCCL, p.CUDART, p.Version, p.Devices
			res.Release, _ = spec.Nearest(p.Version)
		}
		if werr := WriteCapture(j.Capture, captureConfig(j.Capture, j.Config, res.Env), res); werr != nil {
			return nil, werr
		}
		return res, &JobError{Err: err, InitRefused: true}
	}
	if err != nil {
		return nil, &JobError{Err: err}
	}
	defer func() {
		// a deregistration NCCL refused is a failed run too
		if cerr := s.Close(); cerr != nil && jobErr == nil {
			jobErr = &JobError{Err: cerr}
		}
	}()
	if err := j.Plan.Validate(s.NRanks()); err != nil {
		return nil, &JobError{Err: err, Plan: true}
	}
	for cyc := 1; cyc < j.Cycles; cyc++ {
		res, err := Measure(s, j.Plan, j.Progress)
		if err != nil {
			return nil, &JobError{Err: err}
		}
		if j.Rank <= 0 && j.Cycle != nil {
			if err := j.Cycle(cyc, res); err != nil {
				return nil, err
			}
		}
	}
	res, runErr := Measure(s, j.Plan, j.Progress)
	res.Config = j.Config
	res.Env = NCCLEnviron()
	if j.Rank > 0 {
		if runErr != nil {
			return nil, &JobError{Err: runErr}
		}
		return nil, nil // rank 0 reports
	}
	if j.Capture != "" {
		if err := WriteCapture(j.Capture, captureConfig(j.Capture, j.Config, res.Env), res); err != nil {
			return nil, err
		}
	}
	if j.OutJSON != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(j.OutJSON, append(b, '\n'), 0o644); err != nil {
			return nil, err
		}
	}
	if runErr != nil {
		return res, &JobError{Err: runErr}
	}
	return res, nil
}

// captureConfig is the config.json a standalone run writes; nil when a
// matrix run already wrote one (with the configuration's own variables).
func captureConfig(dir, name string, env spec.Env) *conformance.Config {
	if _, err := os.Stat(filepath.Join(dir, conformance.CaptureConfig)); err == nil {
		return nil
	}
	return &conformance.Config{Name: name, Env: env}
}

// NCCLEnviron is the part of this process's environment NCCL and the
// safety rules read.
func NCCLEnviron() spec.Env {
	e := spec.Env{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "NCCL_") || k == "TORCH_SYMM_MEM_DISABLE_MULTICAST" || k == "NVSHMEM_DISABLE_NVLS" || k == "CUDA_VISIBLE_DEVICES" {
			e[k] = v
		}
	}
	return e
}

package hw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// StandardMatrix is the project's capture matrix: NCCL's defaults, each
// protocol and algorithm forced (including the per-function form and two
// algorithms a machine without NVLS or CollNet cannot give, which NCCL must
// refuse), the transports narrowed to SHM and then to the network, and the
// channel, thread and buffer knobs.
var StandardMatrix = []conformance.Config{
	{Name: "baseline", Env: spec.Env{}, Note: "NCCL's own choices"},
	{Name: "proto-ll", Env: spec.Env{"NCCL_PROTO": "LL"}},
	{Name: "proto-ll128", Env: spec.Env{"NCCL_PROTO": "LL128"}},
	{Name: "proto-simple", Env: spec.Env{"NCCL_PROTO": "Simple"}},
	{Name: "algo-ring", Env: spec.Env{"NCCL_ALGO": "Ring"}},
	{Name: "algo-tree", Env: spec.Env{"NCCL_ALGO": "Tree"}, Note: "Tree exists for AllReduce only: the other collectives are expected to fail"},
	{Name: "algo-not-ring", Env: spec.Env{"NCCL_ALGO": "^Ring"}},
	{Name: "algo-per-func", Env: spec.Env{"NCCL_ALGO": "allreduce:tree;allgather:ring"}, Note: "per-function NCCL_ALGO"},
	{Name: "algo-nvls", Env: spec.Env{"NCCL_ALGO": "NVLS"}, Note: "NVLS is disabled (NCCL_NVLS_ENABLE=0): expected errors"},
	{Name: "algo-collnetdirect", Env: spec.Env{"NCCL_ALGO": "CollNetDirect"}, Note: "no CollNet plugin: expected errors"},
	{Name: "p2p-disable", Env: spec.Env{"NCCL_P2P_DISABLE": "1"}, Note: "SHM between the GPUs"},
	{Name: "net", Env: spec.Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}, Note: "the network transport (sockets) between GPUs of one node"},
	{Name: "min-nchannels-16", Env: spec.Env{"NCCL_MIN_NCHANNELS": "16"}},
	{Name: "max-nchannels-2", Env: spec.Env{"NCCL_MAX_NCHANNELS": "2"}},
	{Name: "nthreads-256", Env: spec.Env{"NCCL_NTHREADS": "256"}},
	{Name: "buffsize-1m", Env: spec.Env{"NCCL_BUFFSIZE": "1048576"}},
}

// FindConfigs picks configurations of StandardMatrix by name ("all" or
// empty for every one).
func FindConfigs(names []string) ([]conformance.Config, error) {
	if len(names) == 0 || len(names) == 1 && names[0] == "all" {
		return StandardMatrix, nil
	}
	var out []conformance.Config
	for _, n := range names {
		found := false
		for _, c := range StandardMatrix {
			if c.Name == n {
				out = append(out, c)
				found = true
			}
		}
		if !found {
			var all []string
			for _, c := range StandardMatrix {
				all = append(all, c.Name)
			}
			return nil, fmt.Errorf("unknown configuration %q: expected one of %s", n, strings.Join(all, ", "))
		}
	}
	return out, nil
}

// ChildEnv is the environment of a configuration's process: the parent's,
// with the capture variables and the configuration's own on top, and the
// NVLS safety variables forced last unless allowNVLS.
func ChildEnv(parent []string, cfg conformance.Config, captureDir string, allowNVLS bool) []string {
	set := spec.Env{}
	if captureDir != "" {
		for k, v := range CaptureEnv(captureDir, -1) {
			set[k] = v
		}
	}
	for k, v := range cfg.Env {
		set[k] = v
	}
	out := make([]string, 0, len(parent)+len(set))
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range set.Names() {
		out = append(out, k+"="+set[k])
	}
	return SafeEnviron(out, allowNVLS)
}

// MatrixOptions configure RunMatrix.
type MatrixOptions struct {
	// Exe is the gatesim binary; Args the `hw run` flags every
	// configuration shares (sizes, collectives...).
	Exe  string
	Args []string
	// Out is the capture set directory: one subdirectory per configuration.
	Out       string
	Configs   []conformance.Config
	AllowNVLS bool
	// Timeout bounds each configuration's process.
	Timeout time.Duration
	// Log receives one line per configuration.
	Log io.Writer
}

// MatrixEntry is how one configuration's process ended.
type MatrixEntry struct {
	Config   string  `json:"config"`
	ExitCode int     `json:"exit_code"`
	Seconds  float64 `json:"seconds"`
}

// RunMatrix runs every configuration in a fresh `gatesim hw run` process
// (NCCL reads its parameters once per process), each writing its capture
// directory. A configuration whose process fails is recorded, not fatal.
func RunMatrix(ctx context.Context, o MatrixOptions) ([]MatrixEntry, error) {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	var out []MatrixEntry
	for _, cfg := range o.Configs {
		dir := filepath.Join(o.Out, cfg.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return out, err
		}
		if err := writeJSON(filepath.Join(dir, conformance.CaptureConfig), cfg); err != nil {
			return out, err
		}
		cctx := ctx
		cancel := func() {}
		if o.Timeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, o.Timeout)
		}
		args := append([]string{"hw", "run", "--capture", dir, "--config", cfg.Name}, o.Args...)
		cmd := exec.CommandContext(cctx, o.Exe, args...)
		cmd.Env = ChildEnv(os.Environ(), cfg, dir, o.AllowNVLS)
		logf, err := os.Create(filepath.Join(dir, conformance.CaptureOutput))
		if err != nil {
			cancel()
			return out, err
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		t0 := time.Now()
		err = cmd.Run()
		cancel()
		logf.Close()
		e := MatrixEntry{Config: cfg.Name, Seconds: time.Since(t0).Seconds()}
		var xe *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &xe):
			e.ExitCode = xe.ExitCode()
		default:
			return out, fmt.Errorf("configuration %s: %w", cfg.Name, err)
		}
		if o.Log != nil {
			fmt.Fprintf(o.Log, "%-20s exit %d  %6.1fs  %s\n", cfg.Name, e.ExitCode, e.Seconds, cfg.Env)
		}
		out = append(out, e)
	}
	return out, writeJSON(filepath.Join(o.Out, "matrix.json"), out)
}

// MatrixHelp lists StandardMatrix, one configuration a line with its
// variables, for hw matrix's help.
func MatrixHelp() string {
	var b strings.Builder
	for _, c := range StandardMatrix {
		fmt.Fprintf(&b, "  %-20s %s\n", c.Name, c.Env)
	}
	return b.String()
}

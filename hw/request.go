package hw

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/gatesim/gatesim/spec"
)

// RunRequest is `gatesim hw run` as its flags give it, in nccl-tests'
// terms: collectives, sizes from MinBytes to MaxBytes by Factor (gatesim's
// one size grammar, spec.ParseBytes), the datatype and reduction by name,
// and the GPUs by count (NGPUs, nccl-tests' -g) or by ordinal (Devices).
type RunRequest struct {
	Colls, DataType, RedOp     string
	MinBytes, MaxBytes         string
	Factor                     uint64
	Root, Warmup, Iters, Batch int
	Agg, Cycles, NGPUs         int
	RowBudget, Timeout         time.Duration
	Graph, Check, HostCheck    bool
	AllowNVLS                  bool
	Buffers                    string
	Devices                    []int
	PTX                        []byte
	Search                     Search
	// IDFile and Store carry NCCL's unique id under a launcher.
	IDFile, Store            string
	Capture, Config, OutJSON string
	Progress                 io.Writer
	// Getenv reads the launcher's variables (os.Getenv).
	Getenv func(string) string
}

// Job checks the request and turns it into a Job; every error is the
// request's (a value out of range, a name unknown, flags that conflict).
func (r RunRequest) Job() (*Job, error) {
	devices := r.Devices
	if r.NGPUs > 0 {
		if len(devices) > 0 {
			return nil, fmt.Errorf("-g and --devices both name the GPUs: give one")
		}
		for i := 0; i < r.NGPUs; i++ {
			devices = append(devices, i)
		}
	}
	if r.Cycles < 1 {
		return nil, fmt.Errorf("-N %d: expected a cycle count >= 1 (nccl-tests' 0, run forever, is not offered)", r.Cycles)
	}
	funcs, err := ParseFuncs(r.Colls)
	if err != nil {
		return nil, err
	}
	dt, err := spec.ParseDataType(r.DataType)
	if err != nil {
		return nil, err
	}
	op, err := spec.ParseRedOp(r.RedOp)
	if err != nil {
		return nil, err
	}
	if err := spec.CheckGroupSize(r.Agg); err != nil {
		return nil, fmt.Errorf("-m: %w", err)
	}
	lo, err := spec.ParseBytes(r.MinBytes)
	if err != nil {
		return nil, err
	}
	hi, err := spec.ParseBytes(r.MaxBytes)
	if err != nil {
		return nil, err
	}
	if lo <= 0 || hi < lo || r.Factor < 2 {
		return nil, fmt.Errorf("sizes -b %s -e %s -f %d: expected 0 < minbytes <= maxbytes and a factor >= 2", r.MinBytes, r.MaxBytes, r.Factor)
	}
	sizes := SizeRange(uint64(lo), uint64(hi), r.Factor)
	if sizes[len(sizes)-1] != uint64(hi) {
		sizes = append(sizes, uint64(hi)) // always measure the largest size asked for
	}
	bufs, err := spec.ParseBuffers(r.Buffers)
	if err != nil {
		return nil, fmt.Errorf("--buffers: %w", err)
	}
	o := Options{Search: r.Search, Devices: devices, HostCheck: r.HostCheck, AllowNVLS: r.AllowNVLS, Timeout: r.Timeout, Buffers: bufs, PTX: r.PTX}
	launch, multi, err := DetectLaunch(r.Getenv)
	if err != nil {
		return nil, err
	}
	rank := -1
	if multi {
		launch.IDFile = r.IDFile
		if r.Store != "" {
			launch.Store = r.Store
		}
		o.Launch, rank = launch, launch.Rank
	}
	plan := Plan{Funcs: funcs, Sizes: sizes, DataType: dt, RedOp: op, Root: r.Root, Warmup: r.Warmup, Iters: r.Iters,
		Batches: r.Batch, RowBudget: r.RowBudget, Graph: r.Graph, Agg: r.Agg, Check: r.Check, Seed: 0x5eed}
	return &Job{Plan: plan, Options: o, Cycles: r.Cycles, Capture: r.Capture, Config: r.Config, OutJSON: r.OutJSON, Rank: rank, Progress: r.Progress}, nil
}

// NCCLTestsOnly are nccl-tests flags (-z, -a, -p, -t) whose other settings
// do not apply to gatesim's runner: each is taken at the value under which
// the runner already behaves, and refused with the reason otherwise.
type NCCLTestsOnly struct{ Blocking, Average, Parallel, Threads int }

// Check refuses a setting the runner does not offer.
func (n NCCLTestsOnly) Check() error {
	for _, x := range []struct {
		flag      string
		got, want int
		why       string
	}{
		{"-z", n.Blocking, 0, "gatesim's runner does not make collectives blocking"},
		{"-a", n.Average, 1, "the reported time is measured once for all ranks (CUDA events around each batch)"},
		{"-p", n.Parallel, 0, "parallel init threads are not offered"},
		{"-t", n.Threads, 1, "one thread drives every GPU of the process; use -g for the GPU count"},
	} {
		if x.got != x.want {
			return fmt.Errorf("%s %d does not apply: %s (only %s %d)", x.flag, x.got, x.why, x.flag, x.want)
		}
	}
	return nil
}

// NCCLTestsArgs rewrites nccl-tests' "-c 0" and "-G 10" (a switch with a
// separate number) into "-c=0" and "-G=10" for hw run, so the switches keep
// working bare (-G) as well.
func NCCLTestsArgs(args []string) []string {
	if len(args) < 2 || args[0] != "hw" || args[1] != "run" {
		return args
	}
	out := append([]string(nil), args[:2]...)
	for i := 2; i < len(args); i++ {
		a := args[i]
		if (a == "-c" || a == "-G" || a == "--check" || a == "--cudagraph") && i+1 < len(args) {
			if _, err := strconv.Atoi(args[i+1]); err == nil {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		out = append(out, a)
	}
	return out
}

// NCCLTestsBool is a switch that also takes nccl-tests' numeric form:
// -c 0, -c 1, -G 10 (any N > 0 is on), as well as true/false; it is a
// flag value (String, Type, Set) for hw run's -c and -G.
type NCCLTestsBool struct{ B *bool }

func (v NCCLTestsBool) String() string {
	if v.B != nil && *v.B {
		return "1"
	}
	return "0"
}
func (v NCCLTestsBool) Type() string { return "0|1" }
func (v NCCLTestsBool) Set(s string) error {
	if b, err := strconv.ParseBool(s); err == nil {
		*v.B = b
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: expected 0, 1 (or N > 0), true or false", s)
	}
	*v.B = n > 0
	return nil
}

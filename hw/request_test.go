package hw

import (
	"strings"
	"testing"
)

// TestRunRequest: hw run's flags become a plan, or an error naming the
// flag and what it expects.
func TestRunRequest(t *testing.T) {
	base := func() RunRequest {
		return RunRequest{Colls: "allreduce,allgather", DataType: "float", RedOp: "sum", MinBytes: "4K", MaxBytes: "1M", Factor: 4,
			Agg: 1, Cycles: 1, Buffers: "user", Getenv: func(string) string { return "" }}
	}
	job, err := base().Job()
	if err != nil {
		t.Fatal(err)
	}
	// 4K, 16K, 64K, 256K, then 1M, the largest size asked for
	if got := job.Plan.Sizes; len(got) != 5 || got[0] != 4096 || got[4] != 1<<20 || len(job.Plan.Funcs) != 2 || job.Rank != -1 {
		t.Errorf("plan %+v rank %d", job.Plan, job.Rank)
	}
	r := base()
	r.NGPUs = 3
	if job, err := r.Job(); err != nil || len(job.Options.Devices) != 3 || job.Options.Devices[2] != 2 {
		t.Errorf("-g 3: %v, %v", job, err)
	}
	for _, tc := range []struct {
		edit func(*RunRequest)
		want string
	}{
		{func(r *RunRequest) { r.NGPUs, r.Devices = 2, []int{0} }, "give one"},
		{func(r *RunRequest) { r.Cycles = 0 }, "-N 0"},
		{func(r *RunRequest) { r.Colls = "allredcue" }, "did you mean allreduce"},
		{func(r *RunRequest) { r.DataType = "flaot" }, "datatype"},
		{func(r *RunRequest) { r.RedOp = "xor" }, "reduction"},
		{func(r *RunRequest) { r.Agg = 0 }, "-m: 0 operations in one group"},
		{func(r *RunRequest) { r.MinBytes = "4KiB?" }, "4KiB?"},
		{func(r *RunRequest) { r.MinBytes, r.MaxBytes = "1M", "4K" }, "minbytes <= maxbytes"},
		{func(r *RunRequest) { r.Factor = 1 }, "factor >= 2"},
		{func(r *RunRequest) { r.Buffers = "pinned" }, "--buffers"},
	} {
		r := base()
		tc.edit(&r)
		if _, err := r.Job(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", r, err, tc.want)
		}
	}
}

// TestNCCLTestsBool: -c and -G take nccl-tests' numbers and Go's booleans.
func TestNCCLTestsBool(t *testing.T) {
	for in, want := range map[string]bool{"0": false, "1": true, "10": true, "true": true, "false": false} {
		var b bool
		if err := (NCCLTestsBool{B: &b}).Set(in); err != nil || b != want {
			t.Errorf("Set(%q) = %v, %v; want %v", in, b, err, want)
		}
	}
	var b bool
	for _, in := range []string{"-1", "yes", ""} {
		if err := (NCCLTestsBool{B: &b}).Set(in); err == nil {
			t.Errorf("Set(%q): no error", in)
		}
	}
	if s := (NCCLTestsBool{B: &b}).String(); s != "0" {
		t.Errorf("String() = %q", s)
	}
}

package main

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

// launchFlags describe how the operation is issued: repeated --agg times in
// one group (nccl-tests -m), captured into a CUDA graph, with which
// buffers, in place or not.
type launchFlags struct {
	agg       int
	cudagraph bool
	buffers   string
	alloc     string
	inplace   bool
}

func (f *launchFlags) add(c *cobra.Command) {
	c.Flags().IntVar(&f.agg, "agg", 1, fmt.Sprintf("operations in one group: the collective repeated N times between ncclGroupStart/End, as nccl-tests -m (1..%d)", spec.MaxGroupOps))
	c.Flags().BoolVar(&f.cudagraph, "cudagraph", false, "the group is captured into a CUDA graph (NCCL_GRAPH_REGISTER may register its buffers)")
	c.Flags().StringVar(&f.buffers, "buffers", "user", "buffers: user, registered (ncclCommRegister) or window (ncclCommWindowRegister)")
	c.Flags().StringVar(&f.alloc, "alloc", "cumem", "how the buffers were allocated: cumem (ncclMemAlloc, as nccl-tests), cudamalloc (NCCL registers it neither with NVLS nor, from 2.24.3, over IPC), cumem-host (host memory in a window, 2.30.3+) or cumem-segments (a window over several cuMem allocations, 2.29.2+)")
	c.Flags().BoolVar(&f.inplace, "inplace", false, "in-place operation (receive buffer = send buffer)")
}

// issue returns how the operation is issued (spec.Issue: the one value
// the decision and the timing read); Alone when every flag keeps its
// default (the operation alone on a stream, as Select decides it).
func (f *launchFlags) issue() (spec.Issue, error) {
	b, a, err := spec.ParseBuffersAlloc(f.buffers, f.alloc)
	if err != nil {
		return spec.Issue{}, badInput(fmt.Errorf("--buffers, --alloc: %w", err))
	}
	if err := spec.CheckGroupSize(f.agg); err != nil {
		return spec.Issue{}, badInputf("--agg: %v", err)
	}
	return spec.Issue{Launch: spec.Launch{Mode: spec.LaunchModeOf(f.cudagraph), Agg: f.agg}, Buffers: b, Alloc: a, InPlace: f.inplace}, nil
}

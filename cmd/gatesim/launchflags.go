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
	inplace   bool
}

func (f *launchFlags) add(c *cobra.Command) {
	c.Flags().IntVar(&f.agg, "agg", 1, fmt.Sprintf("operations in one group: the collective repeated N times between ncclGroupStart/End, as nccl-tests -m (1..%d)", spec.MaxGroupOps))
	c.Flags().BoolVar(&f.cudagraph, "cudagraph", false, "the group is captured into a CUDA graph (NCCL_GRAPH_REGISTER may register its buffers)")
	c.Flags().StringVar(&f.buffers, "buffers", "user", "buffers: user, registered (ncclCommRegister) or window (ncclCommWindowRegister)")
	c.Flags().BoolVar(&f.inplace, "inplace", false, "in-place operation (receive buffer = send buffer)")
}

// build returns the launch and the one operation's buffers; grouped is
// false when every flag keeps its default (the operation alone on a
// stream, as Select decides it).
func (f *launchFlags) build(op spec.Op) (l spec.Launch, g spec.GroupOp, grouped bool, err error) {
	b, err := spec.ParseBuffers(f.buffers)
	if err != nil {
		return l, g, false, badInput(fmt.Errorf("--buffers: %w", err))
	}
	if f.agg < 1 || f.agg > spec.MaxGroupOps {
		return l, g, false, badInputf("--agg %d: expected 1..%d", f.agg, spec.MaxGroupOps)
	}
	l = spec.Launch{Agg: f.agg}
	if f.cudagraph {
		l.Mode = spec.LaunchGraph
	}
	g = spec.GroupOp{Op: op, InPlace: f.inplace, Buffers: b}
	grouped = f.agg > 1 || f.cudagraph || b != spec.BuffersUser || f.inplace
	return l, g, grouped, nil
}

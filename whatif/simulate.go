package whatif

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Simulate is the simulated-time column: the schedule NCCL runs for the
// point's decision (algos, from the communicator's own graphs and channel
// count) timed on the point's machine (sim), with the switches reducing
// only where NCCL enabled the offload; SendRecv and AllToAll run NCCL's
// p2p plan. Points whose layout has no builder (nodes of different sizes)
// give an error and an empty cell.
func Simulate(p Point, comm *spec.Comm, d *spec.Decision) (float64, error) {
	l, err := algos.LayoutFromComm(comm)
	if err != nil {
		return 0, err
	}
	op, sel, err := algos.FromDecision(d)
	if err != nil {
		return 0, err
	}
	s, err := algos.Build(op, sel, l, algos.Options{})
	if err != nil {
		return 0, err
	}
	m, err := sim.MachineForComm(p.Machine.Sys, comm)
	if err != nil {
		return 0, err
	}
	res, err := sim.Simulate(s, sim.Config{Machine: m})
	if err != nil {
		return 0, err
	}
	if res.TimeUs <= 0 {
		return 0, fmt.Errorf("simulated time %g µs", res.TimeUs)
	}
	return res.TimeUs, nil
}

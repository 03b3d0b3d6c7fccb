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
// only where NCCL enabled the offload. Points whose layout or schedule has
// no builder (nodes of different sizes, AllToAll) give an error and an
// empty cell.
func Simulate(p Point, comm *spec.Comm, d *spec.Decision) (float64, error) {
	return simulate(p, comm, d, SimOptions{})
}

// SimOptions change the timing, never the decision: a machine profile in
// place of each machine's own (nil: the machine's), and the launch mode.
type SimOptions struct {
	Profile *sim.Profile
	Launch  sim.Launch
}

// SimulateWith is Simulate with options.
func SimulateWith(o SimOptions) Simulator {
	return func(p Point, comm *spec.Comm, d *spec.Decision) (float64, error) { return simulate(p, comm, d, o) }
}

func simulate(p Point, comm *spec.Comm, d *spec.Decision, o SimOptions) (float64, error) {
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
	m, err := sim.MachineFromSystem(p.Machine.Sys)
	if err != nil {
		return 0, err
	}
	m.SHARP, m.NVLS = comm.CollNetSupport, comm.NVLSSupport
	if o.Profile != nil {
		m.Profile = o.Profile
	}
	cfg := sim.Config{Machine: m, Launch: o.Launch}
	cfg.FromDecision(comm, d)
	res, err := sim.Simulate(s, cfg)
	if err != nil {
		return 0, err
	}
	if res.TimeUs <= 0 {
		return 0, fmt.Errorf("simulated time %g µs", res.TimeUs)
	}
	return res.TimeUs, nil
}

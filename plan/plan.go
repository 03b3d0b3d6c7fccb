// Package plan is the one way from NCCL's decision to a simulation. It
// builds, once per communicator, what every simulation of the
// communicator's operations shares: the communicator spec built (through a
// tuner plugin where one is loaded), its layout (algos.LayoutFromComm) and
// the machine its schedules run on (sim.MachineForComm: NCCL's nodes, the
// switches reducing only where NCCL enabled the offload). From an
// operation and NCCL's decision, or an algorithm and protocol forced over
// it, it builds the schedule NCCL plans (algos) and its timing
// configuration (sim). gatesim sim, whatif's simulated column and its
// one-machine grid, hw replay and calibrate all start here.
package plan

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// SelectFunc decides one operation on the communicator: Comm.Select, or
// the same through a tuner plugin.
type SelectFunc func(spec.Op) (*spec.Decision, spec.SelectTrace, error)

// Init builds the communicator NCCL would build and the way it decides an
// operation: spec.Init and Comm.Select, or a tuner plugin's session.
type Init func(rs *spec.Ruleset, sys *spec.System, env spec.Env) (*spec.Comm, SelectFunc, error)

// Comm is a communicator with what simulating its operations needs.
type Comm struct {
	Sys     *spec.System
	Comm    *spec.Comm
	Layout  *algos.Layout
	Machine sim.Machine
	// Launch is how every operation is launched (stream or CUDA graph,
	// operations per group): it changes the timing, never the decision.
	Launch sim.Launch
	// Issue is how each operation is issued (alone on a stream, or in a
	// group, a CUDA graph, on registered or window buffers): NCCL plans an
	// issued operation with its group (DecideIssued).
	Issue spec.Issue
	// Select decides an operation (nil: Comm.Select).
	Select SelectFunc
}

// RefusedError is NCCL returning an error, for the communicator or an
// operation: the answer is no, the input is not at fault.
type RefusedError struct{ msg string }

func (e *RefusedError) Error() string { return e.msg }

// Refused is the error for a communicator NCCL does not create, naming
// the init rule that failed it.
func Refused(v spec.Version, c *spec.Comm) error {
	return &RefusedError{fmt.Sprintf("NCCL %s refuses the communicator: %s (%s)", v, c.Err, DecisiveRule(c))}
}

// RefusedOp is the error for an operation NCCL returns an error for.
func RefusedOp(release string, d *spec.Decision) error {
	return &RefusedError{fmt.Sprintf("NCCL %s returns %s for this operation: %s (%s)", release, d.Err.Result, d.Err.Message, d.DecidedBy)}
}

// DecisiveRule names the init rule that failed the communicator.
func DecisiveRule(c *spec.Comm) string {
	if v, ok := c.FailedBy(); ok {
		return string(v.Rule) + ": " + strings.TrimSpace(v.WhyText())
	}
	return "no failing rule"
}

// Build builds the communicator with init (nil: spec.Init), refuses it as
// NCCL does when NCCL would not create it (RefusedError), and adds its
// layout and machine.
func Build(rs *spec.Ruleset, sys *spec.System, env spec.Env, init Init) (*Comm, error) {
	if init == nil {
		init = func(rs *spec.Ruleset, sys *spec.System, env spec.Env) (*spec.Comm, SelectFunc, error) {
			c, err := spec.Init(rs, sys, env)
			return c, nil, err
		}
	}
	comm, sel, err := init(rs, sys, env)
	if err != nil {
		return nil, err
	}
	if comm.Err != nil {
		return nil, Refused(rs.Version, comm)
	}
	c, err := New(sys, comm)
	if err != nil {
		return nil, err
	}
	c.Select = sel
	return c, nil
}

// New adds the layout and the machine to a communicator spec built on sys.
func New(sys *spec.System, comm *spec.Comm) (*Comm, error) {
	l, err := algos.LayoutFromComm(comm)
	if err != nil {
		return nil, err
	}
	// NCCL's nodes on the machine: offloads where NCCL enabled them, an
	// MNNVL clique as one node, a host NCCL split as its pieces
	m, err := sim.MachineForComm(sys, comm)
	if err != nil {
		return nil, err
	}
	return &Comm{Sys: sys, Comm: comm, Layout: l, Machine: m}, nil
}

// Decide is NCCL's decision for op (through the tuner plugin, if any).
func (c *Comm) Decide(op spec.Op) (*spec.Decision, spec.SelectTrace, error) {
	if c.Select != nil {
		return c.Select(op)
	}
	return c.Comm.Select(op)
}

// DecideIssued is NCCL's decision for op issued as c.Issue says: alone
// (Decide), or planned with its group, whose first operation it returns
// with the group's plan.
func (c *Comm) DecideIssued(op spec.Op) (*spec.Decision, *spec.GroupDecision, error) {
	if c.Comm.IssuedAlone(op, c.Issue) {
		d, _, err := c.Decide(op)
		return d, nil, err
	}
	if c.Select != nil {
		return nil, nil, fmt.Errorf("a tuner's answer for a group (--agg, --cudagraph, --buffers or --inplace) is not modelled")
	}
	g, err := c.Comm.SelectIssue(op, c.Issue)
	if err != nil {
		return nil, nil, err
	}
	return g.Ops[0], g, nil
}

// Config is the timing configuration of one operation: the machine, the
// launch, and the threads NCCL gives decision d run as sel's algorithm and
// protocol (d nil: the machine's defaults).
func (c *Comm) Config(d *spec.Decision, sel algos.Selection) sim.Config {
	cfg := sim.Config{Machine: c.Machine, Launch: c.Launch}
	if d != nil {
		dd := *d
		dd.Algo, dd.Proto = sel.Algo, sel.Proto
		cfg.FromDecision(c.Comm, &dd)
	}
	return cfg
}

// Decided is the operation and selection NCCL's decision d runs, and its
// timing configuration.
func (c *Comm) Decided(d *spec.Decision) (spec.Op, algos.Selection, sim.Config, error) {
	op, sel, err := algos.FromDecision(d)
	if err != nil {
		return op, sel, sim.Config{}, err
	}
	cfg := sim.Config{Machine: c.Machine, Launch: c.Launch}
	cfg.FromDecision(c.Comm, d)
	return op, sel, cfg, nil
}

// Simulate builds op's schedule for sel and times it under cfg.
func (c *Comm) Simulate(op spec.Op, sel algos.Selection, cfg sim.Config, o algos.Options) (*sim.Result, error) {
	s, err := algos.Build(op, sel, c.Layout, o)
	if err != nil {
		return nil, err
	}
	return sim.Simulate(s, cfg)
}

// Op is the operation of nccl-tests size bytes: the per-rank buffer, the
// whole gathered (scattered) buffer for AllGather (ReduceScatter), the
// whole send buffer for AllToAll.
func (c *Comm) Op(f spec.Func, dt spec.DataType, rop spec.RedOp, size int64, root int) (spec.Op, error) {
	per := int64(dt.Size())
	if f == spec.AllGather || f == spec.ReduceScatter || f == spec.AllToAll {
		per *= int64(c.Comm.NRanks)
	}
	if size%per != 0 {
		return spec.Op{}, fmt.Errorf("--bytes %d is not a whole number of %s elements%s (%d bytes each step)", size, dt, map[bool]string{true: " per rank", false: ""}[per != int64(dt.Size())], per)
	}
	return spec.Op{Func: f, Count: size / per, DataType: dt, RedOp: rop, Root: root}, nil
}

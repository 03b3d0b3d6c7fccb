package calibrate

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Case is a measured row with what NCCL decided for it and the schedule
// that runs, ready to be timed under any profile. A row that cannot be
// simulated keeps the reason in Why.
type Case struct {
	Row
	Key string
	// Algo, Proto, NChannels, NThreads and Transport are NCCL's decision.
	Algo      spec.Algo
	Proto     spec.Proto
	NChannels int
	NThreads  int
	Transport string
	Why       string

	sched   *algos.Schedule
	machine sim.Machine
	cfg     sim.Config
	// group is the row's group (nccl-tests -m N, hw run -m N): NCCL's
	// plan of its N operations, timed as sim.GroupOpTime says; nil for an
	// operation issued alone.
	group *groupCase
}

// groupCase is a row's group: the communicator issuing it (the row's
// launch) and NCCL's plan of it.
type groupCase struct {
	pc *plan.Comm
	op spec.Op
	g  *spec.GroupDecision
}

// Simulable reports whether the row can be timed.
func (c *Case) Simulable() bool { return c.Why == "" }

// Cell is the (algorithm, protocol) NCCL ran.
func (c *Case) Cell() string {
	if c.Func.IsP2P() {
		return "p2p/" + c.Proto.String()
	}
	return c.Algo.String() + "/" + c.Proto.String()
}

type commKey struct {
	rel spec.Version
	env string
}

type commSetup struct {
	pc  *plan.Comm
	err error
}

// Prepare decides and builds the schedule of every row on the named
// system preset (the machine the rows were measured on). The communicator,
// its layout and the machine its schedules run on come from plan, as for
// every other simulation: NCCL's nodes (a host NCCL split into NET nodes
// when P2P and SHM are off) are the machine's nodes.
func Prepare(rows []Row, system string) ([]*Case, error) {
	setups := map[commKey]*commSetup{}
	get := func(r *Row) *commSetup {
		k := commKey{r.Release, r.Env.String()}
		if s := setups[k]; s != nil {
			return s
		}
		s := &commSetup{}
		setups[k] = s
		rs, err := spec.Load(r.Release)
		if err != nil {
			s.err = err
			return s
		}
		sys, err := spec.Preset(system, spec.PresetOptions{})
		if err != nil {
			s.err = err
			return s
		}
		s.pc, s.err = plan.Build(rs, sys, r.Env, nil)
		return s
	}
	sys, err := spec.Preset(system, spec.PresetOptions{})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.Ranks > 0 && r.Ranks != sys.NRanks() {
			return nil, fmt.Errorf("%s:%d: a run of %d rank(s), on a machine other than %s (%d ranks); leave it out with --exclude", r.File, r.Line, r.Ranks, system, sys.NRanks())
		}
	}
	// rows of one operation under one environment and release share NCCL's
	// decision and schedule (and so every simulation but the launch's)
	type opKey struct {
		rel   spec.Version
		env   string
		f     spec.Func
		count int64
		dt    spec.DataType
		op    spec.RedOp
		root  int
		// the launch, for rows NCCL plans with their group (a group's
		// size, a CUDA graph): their decision may differ
		issue spec.Launch
	}
	done := map[opKey]*Case{}
	out := make([]*Case, 0, len(rows))
	for i := range rows {
		c := &Case{Row: rows[i]}
		c.Key = c.ConfigKey()
		out = append(out, c)
		k := opKey{c.Release, c.Env.String(), c.Func, c.Count, c.DataType, c.RedOp, c.Root, c.Launch.Launch}
		if d := done[k]; d != nil {
			c.Algo, c.Proto, c.NChannels, c.NThreads, c.Transport, c.Why = d.Algo, d.Proto, d.NChannels, d.NThreads, d.Transport, d.Why
			c.sched, c.machine, c.cfg, c.group = d.sched, d.machine, d.cfg, d.group
			c.cfg.Launch = c.Launch
			continue
		}
		done[k] = c
		if c.Buffers != "" && c.Buffers != spec.BuffersUser.String() {
			c.Why = fmt.Sprintf("buffers %s: calibrate times user buffers (the captures' own) only", c.Buffers)
			continue
		}
		s := get(&c.Row)
		if s.err != nil {
			c.Why = s.err.Error()
			continue
		}
		op := spec.Op{Func: c.Func, Count: c.Count, DataType: c.DataType, RedOp: c.RedOp, Root: c.Root}
		// issued as the row was (alone, in a group, from a CUDA graph):
		// NCCL plans an issued operation with its group, as sim and whatif
		// decide it (plan.Comm.DecideIssued)
		pc := s.pc
		if is := (spec.Issue{Launch: c.Launch.Launch}); !pc.Comm.IssuedAlone(op, is) {
			cc := *s.pc
			cc.Issue, cc.Launch = is, c.Launch
			pc = &cc
		}
		d, g, err := pc.DecideIssued(op)
		if err != nil {
			c.Why = err.Error()
			continue
		}
		if d.Err != nil {
			c.Why = "NCCL returns " + d.Err.Message
			continue
		}
		c.Algo, c.Proto, c.NChannels, c.NThreads, c.Transport = d.Algo, d.Proto, d.NChannels, d.NThreads, d.Transport
		if g != nil && len(g.Ops) > 1 {
			c.group = &groupCase{pc: pc, op: op, g: g}
		}
		o, sel, cfg, err := pc.Decided(d)
		if err != nil {
			c.Why = err.Error()
			continue
		}
		if c.sched, err = algos.Build(o, sel, pc.Layout, algos.Options{}); err != nil {
			c.Why = err.Error()
			continue
		}
		c.machine, c.cfg = cfg.Machine, cfg
		c.cfg.Launch = c.Launch
		if d.P2P != nil {
			// no cost table: the schedule's protocol (LL or Simple per
			// peer as addP2pToPlan plans it) on p2p channels, timed as Ring's
			c.Algo, c.Proto = c.sched.Algo, c.sched.Proto
		}
		// a schedule the simulator cannot run (a shape it has no machine
		// for) is reported now, not at every fit step
		if _, err := c.Simulate(nil); err != nil {
			c.Why = strings.TrimPrefix(err.Error(), "sim: ")
			c.sched = nil
		}
	}
	return out, nil
}

// Simulate times the row under a profile (nil: nominal), µs.
func (c *Case) Simulate(p *sim.Profile) (float64, error) {
	if c.sched == nil {
		return 0, fmt.Errorf("not simulable: %s", c.Why)
	}
	cfg := c.cfg
	cfg.Machine = c.machine
	cfg.Machine.Profile = p
	if c.group != nil {
		return c.group.simulate(cfg)
	}
	res, err := sim.Simulate(c.sched, cfg)
	if err != nil {
		return 0, err
	}
	return res.TimeUs, nil
}

// simulate times the group under cfg's machine and launch as gatesim sim
// does (plan.Comm.Run: the group's kernel plans, a send/recv group's
// works): its time per operation, µs.
func (gc *groupCase) simulate(cfg sim.Config) (float64, error) {
	c := *gc.pc
	c.Machine, c.Launch = cfg.Machine, cfg.Launch
	rep, _, err := c.Run(gc.op, plan.RunOptions{Describe: func(*spec.Decision) string { return "" }})
	if err != nil {
		return 0, err
	}
	if rep.Group == nil {
		return 0, fmt.Errorf("group of %d operations simulated as one", len(gc.g.Ops))
	}
	return rep.Group.PerOpUs, nil
}

// extraChannels is the channels beyond the first that the row's
// operations run on, added over a group's operations: what
// launch.channel charges the host (sim.Result.Host).
func (c *Case) extraChannels() int {
	if c.group == nil {
		return max(0, c.NChannels-1)
	}
	n := 0
	for _, d := range c.group.g.Ops {
		n += max(0, d.ChannelHi-d.ChannelLo)
	}
	return n
}

// kernels is how many kernels the row's operation (or group) launches.
func (c *Case) kernels() int {
	if c.group != nil {
		return max(1, c.group.g.Plans)
	}
	return 1
}

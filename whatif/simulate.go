package whatif

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/internal/lru"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Simulate is the simulated-time column: the schedule NCCL runs for the
// point's decision (algos, from the communicator's own graphs and channel
// count) timed on the point's machine (sim) with the machine's own
// profile, the switches reducing only where NCCL enabled the offload;
// SendRecv and AllToAll run NCCL's p2p plan. Points whose layout has no
// builder (nodes of different sizes) give an error and an empty cell.
func Simulate(p Point, comm *spec.Comm, d *spec.Decision) (float64, error) {
	in, err := simInputOf(p, comm, d, SimOptions{})
	if err != nil {
		return 0, err
	}
	return in.run()
}

// SimOptions change the timing, never the decision: a machine profile in
// place of each machine's own (nil: the machine's), and the launch mode.
type SimOptions struct {
	Profile *sim.Profile
	Launch  sim.Launch
}

// NewSimulator is Simulate with options that remembers up to n
// simulations (least recently used forgotten first) and reuses one for
// every point with the same machine, layout, operation, selection and
// timing configuration: a sweep reaches the same schedule many times, and
// those are all a simulation reads. Releases share a simulation where
// they build the same schedule and the profile times them alike (key). A
// remembered error is not reused (its text names the release): the point
// runs again. Safe for concurrent use.
func NewSimulator(n int, o SimOptions) Simulator {
	type res struct {
		us  float64
		err error
	}
	cache := lru.New[string, res](max(1, n))
	return func(p Point, comm *spec.Comm, d *spec.Decision) (float64, error) {
		in, err := simInputOf(p, comm, d, o)
		if err != nil {
			return 0, err
		}
		key, err := in.key()
		if err != nil {
			return 0, err
		}
		if r, ok := cache.Get(key); ok && r.err == nil {
			return r.us, r.err
		}
		us, err := in.run()
		cache.Put(key, res{us, err})
		return us, err
	}
}

// simInput is everything a point's simulation depends on.
type simInput struct {
	cfg sim.Config
	l   *algos.Layout
	op  spec.Op
	sel algos.Selection
}

func simInputOf(p Point, comm *spec.Comm, d *spec.Decision, o SimOptions) (*simInput, error) {
	l, err := algos.LayoutFromComm(comm)
	if err != nil {
		return nil, err
	}
	op, sel, err := algos.FromDecision(d)
	if err != nil {
		return nil, err
	}
	// NCCL's nodes on the machine: offloads where NCCL enabled them, an
	// MNNVL clique as one node, a host NCCL split as its pieces
	m, err := sim.MachineForComm(p.Machine.Sys, comm)
	if err != nil {
		return nil, err
	}
	if o.Profile != nil {
		m.Profile = o.Profile
	}
	cfg := sim.Config{Machine: m, Launch: o.Launch}
	cfg.FromDecision(comm, d)
	return &simInput{cfg: cfg, l: l, op: op, sel: sel}, nil
}

// key identifies the simulation by value, the machine's profile included
// (each point's machine carries its own copy). The release counts through
// what a schedule and its timing read of it: the builders' parameters
// (algos.Params) and the profile's factor for the release.
func (in *simInput) key() (string, error) {
	p, err := in.l.Params()
	if err != nil {
		return "", err
	}
	l := *in.l
	p.Release, l.Release = 0, 0
	var sched spec.Tuning // by value: each release has its own copy
	if p.Sched != nil {
		sched, p.Sched = *p.Sched, nil
	}
	cfg := in.cfg
	prof := cfg.Machine.Profile
	cfg.Machine.Profile = nil
	profKey := "nominal"
	if prof != nil {
		profKey = fmt.Sprintf("%s|%d|%v", prof.Name, prof.SM, prof.Params)
	}
	return fmt.Sprintf("%+v|%s|%g|%+v|%+v|%+v|%+v|%+v", cfg, profKey, prof.ReleaseFactor(in.l.Release), l, p, sched, in.op, in.sel), nil
}

func (in *simInput) run() (float64, error) {
	s, err := algos.Build(in.op, in.sel, in.l, algos.Options{})
	if err != nil {
		return 0, err
	}
	res, err := sim.Simulate(s, in.cfg)
	if err != nil {
		return 0, err
	}
	if res.TimeUs <= 0 {
		return 0, fmt.Errorf("simulated time %g µs", res.TimeUs)
	}
	return res.TimeUs, nil
}

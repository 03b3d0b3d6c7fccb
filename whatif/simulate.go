package whatif

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/internal/lru"
	"github.com/gatesim/gatesim/plan"
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
// those are all a simulation reads. Safe for concurrent use.
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
		key := in.key()
		if r, ok := cache.Get(key); ok {
			return r.us, r.err
		}
		us, err := in.run()
		cache.Put(key, res{us, err})
		return us, err
	}
}

// simInput is everything a point's simulation depends on.
type simInput struct {
	c   *plan.Comm
	cfg sim.Config
	op  spec.Op
	sel algos.Selection
}

func simInputOf(p Point, comm *spec.Comm, d *spec.Decision, o SimOptions) (*simInput, error) {
	c, err := plan.New(p.Machine.Sys, comm)
	if err != nil {
		return nil, err
	}
	if o.Profile != nil {
		c.Machine.Profile = o.Profile
	}
	c.Launch = o.Launch
	op, sel, cfg, err := c.Decided(d)
	if err != nil {
		return nil, err
	}
	return &simInput{c: c, cfg: cfg, op: op, sel: sel}, nil
}

// key identifies the simulation by value (the profile by identity: a
// sweep's profiles are loaded once).
func (in *simInput) key() string {
	return fmt.Sprintf("%+v|%p|%+v|%+v|%+v", in.cfg, in.cfg.Machine.Profile, *in.c.Layout, in.op, in.sel)
}

func (in *simInput) run() (float64, error) {
	res, err := in.c.Simulate(in.op, in.sel, in.cfg, algos.Options{})
	if err != nil {
		return 0, err
	}
	if res.TimeUs <= 0 {
		return 0, fmt.Errorf("simulated time %g µs", res.TimeUs)
	}
	return res.TimeUs, nil
}

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
func Simulate(p Point, comm *spec.Comm, ds []*spec.Decision) (float64, error) {
	return simulate(p, comm, ds, SimOptions{}, nil)
}

// SimOptions change the timing, never the decision: a machine profile in
// place of each machine's own (nil: the machine's), the launch the timing
// charges (the Issue's launch) and whether the operations run in place.
type SimOptions struct {
	Profile *sim.Profile
	Launch  sim.Launch
	InPlace bool
}

// NewSimulator is Simulate with options that remembers up to n
// simulations (least recently used forgotten first) and reuses one for
// every point with the same machine, layout, operation, selection and
// timing configuration: a sweep reaches the same schedule many times, and
// those are all a simulation reads. Safe for concurrent use. A group's
// operations are each simulated on the channels NCCL's plan gave them
// and combined as sim.GroupOpTime says.
func NewSimulator(n int, o SimOptions) Simulator {
	cache := lru.New[string, simRes](max(1, n))
	return func(p Point, comm *spec.Comm, ds []*spec.Decision) (float64, error) {
		return simulate(p, comm, ds, o, cache)
	}
}

type simRes struct {
	t, launch sim.Time
	err       error
}

// simulate times the decisions (one operation, or a group's operations
// each on its channels, combined by sim.GroupOpTime), reusing the
// simulations cache holds (nil: none).
func simulate(p Point, comm *spec.Comm, ds []*spec.Decision, o SimOptions, cache *lru.Cache[string, simRes]) (float64, error) {
	if len(ds) == 0 {
		return 0, fmt.Errorf("simulate: no decision")
	}
	times, launches := make([]sim.Time, len(ds)), make([]sim.Time, len(ds))
	for i, d := range ds {
		in, err := simInputOf(p, comm, d, o)
		if err != nil {
			return 0, err
		}
		var r simRes
		ok := false
		key := ""
		if cache != nil {
			key = in.key()
			r, ok = cache.Get(key)
		}
		if !ok {
			r.t, r.launch, r.err = in.run()
			if cache != nil {
				cache.Put(key, r)
			}
		}
		if r.err != nil {
			return 0, r.err
		}
		times[i], launches[i] = r.t, r.launch
	}
	if len(ds) == 1 {
		return times[0].Micros(), nil
	}
	t, err := sim.GroupOpTime(times, launches, len(ds))
	return t.Micros(), err
}

// simInput is everything a point's simulation depends on.
type simInput struct {
	cfg     sim.Config
	l       *algos.Layout
	op      spec.Op
	sel     algos.Selection
	inPlace bool
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
	return &simInput{cfg: cfg, l: l, op: op, sel: sel, inPlace: o.InPlace}, nil
}

// key identifies the simulation by value (the profile by identity: a
// sweep's profiles are loaded once; a group's channel split by value).
func (in *simInput) key() string {
	part := "alone"
	if in.sel.Part != nil {
		part = fmt.Sprintf("%+v", *in.sel.Part)
	}
	return fmt.Sprintf("%+v|%p|%+v|%+v|%s/%s/%d|%s|%v", in.cfg, in.cfg.Machine.Profile, *in.l, in.op, in.sel.Algo, in.sel.Proto, in.sel.NChannels, part, in.inPlace)
}

// run simulates the operation: its time and the launch cost in it.
func (in *simInput) run() (t, launch sim.Time, err error) {
	s, err := algos.Build(in.op, in.sel, in.l, algos.Options{InPlace: in.inPlace})
	if err != nil {
		return 0, 0, err
	}
	res, err := sim.Simulate(s, in.cfg)
	if err != nil {
		return 0, 0, err
	}
	if res.TimeUs <= 0 {
		return 0, 0, fmt.Errorf("simulated time %g µs", res.TimeUs)
	}
	return res.Time, in.cfg.Machine.LaunchCost(s.Algo, s.Proto, in.cfg.Launch), nil
}

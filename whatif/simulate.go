package whatif

import (
	"fmt"
	"sync"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/internal/lru"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Simulate is the simulated-time column: the schedule NCCL runs for the
// point's decision (algos, from the communicator's own graphs and channel
// count) timed on the point's machine (sim) with the machine's own
// profile, the switches reducing only where NCCL enabled the offload;
// SendRecv and AllToAll run NCCL's p2p plan; an operation NCCL runs on a
// symmetric kernel or the copy engines is timed as what it moves
// (sim.SimulateSym). Points whose layout has no
// builder (nodes of different sizes) give an error and an empty cell.
func Simulate(p Point, comm *spec.Comm, ds []*spec.Decision) (float64, error) {
	return simulate(p, comm, ds, SimOptions{}, nil)
}

// SimOptions change the timing, never the decision: a machine profile in
// place of each machine's own (nil: the machine's), the launch the timing
// charges (sim.Launch: stream or CUDA graph, logging, batching) and whether the operations run in place.
type SimOptions struct {
	Profile *sim.Profile
	Launch  sim.Launch
	InPlace bool
}

// NewSimulator is Simulate with options that remembers up to n
// simulations (least recently used forgotten first) and reuses one for
// every point with the same machine, layout, operation, selection and
// timing configuration: a sweep reaches the same schedule many times, and
// those are all a simulation reads. Releases share a simulation where
// they build the same schedule and the profile times them alike (key). A
// remembered error is not reused (its text names the release): the point
// runs again. A group's operations are each simulated on the channels
// NCCL's plan gave them and combined as sim.GroupOpTime says: its kernel
// plans one after another. The plan of
// a communicator (its layout, its machine with the machine's profile, and
// their part of the key) is built once for all its points. Safe for
// concurrent use.
func NewSimulator(n int, o SimOptions) Simulator {
	x := &simCache{sims: lru.New[string, simRes](max(1, n)), comms: lru.New[*spec.Comm, *commSim](maxCommSims)}
	return func(p Point, comm *spec.Comm, ds []*spec.Decision) (float64, error) {
		return simulate(p, comm, ds, o, x)
	}
}

// maxCommSims bounds the communicator plans a simulator keeps: a sweep
// visits a communicator's points together (sizes and collectives vary
// fastest), so a few per worker are enough.
const maxCommSims = 64

// simCache is what a simulator remembers: simulations by key, and the
// plans of recent communicators by the communicator (kept alive by the
// cache, so the pointer is not reused while it is there).
type simCache struct {
	sims  *lru.Cache[string, simRes]
	comms *lru.Cache[*spec.Comm, *commSim]
}

type simRes struct {
	// t is the time per operation of the timed batch; alone, host and dev
	// what a group's timing reads (sim.GroupOpRun)
	t, alone, host, dev, bound sim.Time
	err                        error
}

// simulate times the decisions (one operation, or a group's operations
// each on its channels, its kernel plans combined by sim.GroupOpTime),
// reusing what the cache holds (nil: nothing).
func simulate(p Point, comm *spec.Comm, ds []*spec.Decision, o SimOptions, cache *simCache) (float64, error) {
	if len(ds) == 0 {
		return 0, fmt.Errorf("simulate: no decision")
	}
	var cs *commSim
	if cache != nil {
		cs, _ = cache.comms.Get(comm)
	}
	if cs == nil {
		var err error
		if cs, err = newCommSim(p, comm, o); err != nil {
			return 0, err
		}
		if cache != nil {
			cache.comms.Put(comm, cs)
		}
	}
	if len(ds) == 1 && ds[0].Kernel != "" {
		// a symmetric kernel or the copy engines: what it moves, no
		// schedule of steps (sim.SimulateSym)
		d := ds[0]
		r, _, err := cs.c.SimulateSym(d, o.InPlace, sim.TestBytes(d.Op.Func, d.Op.Count, d.Op.DataType, cs.c.Comm.NRanks))
		if err != nil {
			return 0, err
		}
		return r.TimeUs, nil
	}
	grp, plans := cs.c.P2PGroup(ds, o.Launch.Graph())
	n := len(ds)
	if grp != nil {
		// a send/recv group: one run per kernel plan, each its works'
		// schedule (sim.P2PGroupOpTime)
		n = plans
	}
	runs := make([]sim.GroupOpRun, n)
	// a group's symmetric kernel plans and copy-engine collectives, each
	// plan's tasks in one launch (plan.SimulateSymPlans)
	syms, err := cs.c.SimulateSymPlans(ds, o.InPlace)
	if err != nil {
		return 0, err
	}
	for i := range n {
		d := ds[0] // a send/recv group's operations are one operation repeated
		if grp == nil {
			d = ds[i]
		}
		if p := syms[d.Plan]; grp == nil && d.Kernel != "" && p != nil {
			if len(ds) == 1 {
				return p.Result.TimeUs, nil
			}
			runs[i] = sim.GroupOpRun{Time: p.Result.Alone, Host: p.Timing.Host, Dev: p.Timing.Launch - p.Timing.Host, Plan: d.Plan}
			continue
		}
		in, err := cs.input(d, o)
		if err != nil {
			return 0, err
		}
		plan := d.Plan
		if grp != nil {
			g := *grp
			g.Plan, plan = i, i
			in.p2p = &g
		}
		var r simRes
		ok := false
		key := ""
		if cache != nil {
			if key, err = in.key(); err != nil {
				return 0, err
			}
			r, ok = cache.sims.Get(key)
			ok = ok && r.err == nil
		}
		if !ok {
			r, err = in.run()
			r.err = err
			if cache != nil {
				cache.sims.Put(key, r)
			}
		}
		if r.err != nil {
			return 0, r.err
		}
		if grp == nil && len(ds) == 1 {
			return r.t.Micros(), nil
		}
		runs[i] = sim.GroupOpRun{Time: r.alone, Host: r.host, Dev: r.dev, Plan: plan, LinkBound: r.bound}
		if grp == nil {
			runs[i].ChannelLo, runs[i].ChannelHi, runs[i].OnChannels = d.ChannelLo, d.ChannelHi, true
			if p := d.Part; p != nil {
				runs[i].CountLo, runs[i].CountMid, runs[i].CountHi = p.CountLo, p.CountMid, p.CountHi
			}
		}
	}
	if grp != nil {
		t, _, err := sim.P2PGroupOpTime(runs, len(ds), o.Launch.Batch())
		return t.Micros(), err
	}
	t, _, err := sim.GroupOpTime(runs, o.Launch.Batch())
	return t.Micros(), err
}

// commSim is what every point of one communicator shares: its plan (the
// layout and the machine, with the options' profile and launch) and its
// part of the simulation key. Only read once built.
type commSim struct {
	c *plan.Comm

	once   sync.Once
	static string
	err    error
}

func newCommSim(p Point, comm *spec.Comm, o SimOptions) (*commSim, error) {
	c, err := plan.New(p.Machine.Sys, comm)
	if err != nil {
		return nil, err
	}
	if o.Profile != nil {
		c.Machine.Profile = o.Profile
	}
	c.Launch = o.Launch
	return &commSim{c: c}, nil
}

// staticKey is the communicator's part of the key, by value: the machine
// and its profile (each point's machine carries its own copy), the layout
// and the builders' parameters. The release counts through what a
// schedule and its timing read of it: the builders' parameters
// (algos.Params) and the profile's factor for the release.
func (cs *commSim) staticKey() (string, error) {
	cs.once.Do(func() {
		p, err := cs.c.Layout.Params()
		if err != nil {
			cs.err = err
			return
		}
		l := *cs.c.Layout
		p.Release, l.Release = 0, 0
		var sched tuning.Consts // by value: each release has its own copy
		if p.Sched != nil {
			sched, p.Sched = *p.Sched, nil
		}
		m := cs.c.Machine
		prof := m.Profile
		m.Profile = nil
		profKey := "nominal"
		if prof != nil {
			profKey = fmt.Sprintf("%s|%d|%v", prof.Name, prof.SM, prof.Params)
		}
		cs.static = fmt.Sprintf("%+v|%s|%g|%+v|%+v|%+v", m, profKey, prof.ReleaseFactor(cs.c.Layout.Release), l, p, sched)
	})
	return cs.static, cs.err
}

// input is what the point's simulation of decision d depends on.
func (cs *commSim) input(d *spec.Decision, o SimOptions) (*simInput, error) {
	op, sel, cfg, err := cs.c.Decided(d)
	if err != nil {
		return nil, err
	}
	return &simInput{cs: cs, c: cs.c, cfg: cfg, op: op, sel: sel, inPlace: o.InPlace}, nil
}

// simInput is everything a point's simulation depends on.
type simInput struct {
	cs      *commSim
	c       *plan.Comm
	cfg     sim.Config
	op      spec.Op
	sel     algos.Selection
	inPlace bool
	// p2p is the send/recv group and kernel plan a schedule runs (nil:
	// the operation alone)
	p2p *algos.P2PGroup
}

func simInputOf(p Point, comm *spec.Comm, d *spec.Decision, o SimOptions) (*simInput, error) {
	cs, err := newCommSim(p, comm, o)
	if err != nil {
		return nil, err
	}
	return cs.input(d, o)
}

// key identifies the simulation by value: the communicator's part
// (staticKey), the timing configuration beyond the machine, the
// operation, the selection and a group's channel split.
func (in *simInput) key() (string, error) {
	static, err := in.cs.staticKey()
	if err != nil {
		return "", err
	}
	cfg := in.cfg
	cfg.Machine = sim.Machine{} // in the static part
	part := "alone"
	if in.sel.Part != nil {
		part = fmt.Sprintf("%+v", *in.sel.Part)
	}
	if g := in.p2p; g != nil {
		part = fmt.Sprintf("p2p group %d plan %d", g.Ops, g.Plan)
		if g.Budget != nil {
			part += fmt.Sprintf(" budget %+v", *g.Budget)
		}
	}
	return fmt.Sprintf("%s|%+v|%+v|%+v|%s|%v", static, cfg, in.op, in.sel, part, in.inPlace), nil
}

// run simulates the operation: its time per operation of the batch, and
// what a group's timing reads: its time alone, the host's and device's
// launch in it and its link bound (sim.Result.LinkBound).
func (in *simInput) run() (simRes, error) {
	s, err := algos.Build(in.op, in.sel, in.c.Layout, algos.Options{InPlace: in.inPlace, P2PGroup: in.p2p})
	if err != nil {
		return simRes{}, err
	}
	res, err := sim.Simulate(s, in.cfg)
	if err != nil {
		return simRes{}, err
	}
	if res.TimeUs <= 0 {
		return simRes{}, fmt.Errorf("simulated time %g µs", res.TimeUs)
	}
	_, dev := in.cfg.Machine.LaunchParts(s.Algo, s.Proto, in.cfg.Launch)
	return simRes{t: res.Time, alone: res.Alone, host: res.Host, dev: dev, bound: res.LinkBound}, nil
}

// SimulatorNote says how a sweep's simulated time is taken: the launch and
// the profile (the given one, or each machine's own).
func SimulatorNote(prof *sim.Profile, l sim.Launch) string {
	which := "each machine's own profile (" + sim.DefaultProfile("h200x2", 90).Summary() + " on h200x2; its GPU-generation parameters on other sm90 machines; nominal elsewhere)"
	if prof != nil {
		which = prof.Summary()
	}
	return "launch " + l.String() + ", profile " + which
}

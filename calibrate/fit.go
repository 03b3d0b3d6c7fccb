package calibrate

import (
	"fmt"
	"math"
	"sort"

	"github.com/gatesim/gatesim/algos"

	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"gonum.org/v1/gonum/optimize"
)

// The fit does not run the simulator inside the optimiser: it would take
// thousands of full passes. Instead each row's simulated time is probed
// four times (two channel caps, a doubled NVLink latency, no cap), which
// gives the simulator's own response to the profile for that schedule:
//
//	T = launch + A + h·Alat + B / r,  r = min(link share, cap·threads) · factors
//
// with A the latency of the steps, Alat their NVLink hop latency, B the
// bytes on a connection's critical path and the link share what the
// machine's links leave each connection. The optimiser fits the profile to
// that closed form; every reported time (held in and held out) is then a
// real simulation under the fitted profile.

// probe is a row's response to the profile.
type probe struct {
	c       *Case
	a, alat float64 // µs
	b       float64 // µs × GB/s
	linkR   float64 // GB/s per connection with nominal links (math.Inf: no link bound)
	shm     bool
	// loop: the row runs over NET between pieces of one host
	// (NetLoopback), whose links transport.net.loopback.bw and .rank.bw
	// set; loopDir and loopRank are a connection's rate per GB/s of each
	loop              bool
	loopDir, loopRank float64
	// loopLat is the time 1 µs of transport.net.loopback.lat adds (the NET
	// steps on the critical path), µs
	loopLat float64
	// loopMsg is the time 1 µs of transport.net.loopback.msg adds (the
	// proxy's per-message cost on the critical path), µs
	loopMsg   float64
	graph     bool
	agg       int
	kernels   int // the kernels a group launches (1: an operation alone)
	iters     int
	capIdx    int // index of the row's cap parameter in the fit, -1 none
	thrRatio  float64
	relName   string
	funcName  string
	baseLaunc float64
	// nominal is the row's time under the nominal profile, µs
	nominal      float64
	logged       bool
	fills        bool
	fill         float64 // the share of the fill it pays
	funcLinkName string
	// indices of its cap, release and collective factors in values (-1:
	// none)
	iCap, iRel, iFunc, iFuncLink int
}

const (
	probeCap1 = 0.5 // GB/s: below any connection's link share
	probeCap2 = 1.0
)

func probeProfile(c *Case, capGBps, hop float64) *sim.Profile {
	p := &sim.Profile{Schema: sim.ProfileSchema, Name: "probe", Params: map[string]sim.Param{}}
	if capGBps > 0 {
		p.Params["cap."+c.Algo.String()+"."+c.Proto.String()] = sim.Param{Value: capGBps, Source: "nominal"}
	}
	if hop != 1 {
		p.Params["hop.nvlink.scale"] = sim.Param{Value: hop, Source: "nominal"}
	}
	return p
}

func hasCap(a spec.Algo) bool { return a == spec.Ring || a == spec.Tree }

// probeCache shares the probe simulations of rows with one schedule (the
// probes do not depend on the launch mode or the measured time; rows NCCL
// plans with their group have a schedule of their own launch, Prepare).
type probeCache map[*algos.Schedule]*probe

// newProbeCached is newProbe through a cache.
func newProbeCached(c *Case, cache probeCache) (*probe, error) {
	if p := cache[c.sched]; p != nil {
		q := *p
		q.c, q.graph, q.agg, q.kernels, q.logged, q.iters = c, c.Launch.Graph(), max(1, c.Launch.Agg), c.kernels(), c.Launch.Logged, c.Launch.Batch()
		q.relName, q.funcName, q.funcLinkName = "release."+c.Release.String()+".bw", "func."+c.Func.String()+".bw", "func."+c.Func.String()+".link"
		return &q, nil
	}
	p, err := newProbe(c)
	if err != nil {
		return nil, err
	}
	cache[c.sched] = p
	return p, nil
}

// newProbe probes one simulable row: the operation timed alone (the
// closed form adds the batch's overlap). A group's probes time the group
// alone, whose time per operation (the probe profiles have no launch
// split: each kernel's fixed cost is NCCL's base latency) is read back
// as one operation's: the kernels' fixed costs but one and the steps of
// the group.
func newProbe(row *Case) (*probe, error) {
	alone := *row
	alone.cfg.Launch.Iters = 1
	c := &alone
	pr := &probe{c: row, shm: c.Transport == "SHM", loop: c.machine.NetLoopback, graph: c.Launch.Graph(), agg: max(1, c.Launch.Agg), kernels: c.kernels(), iters: row.Launch.Batch(), capIdx: -1, thrRatio: 1,
		relName: "release." + c.Release.String() + ".bw", funcName: "func." + c.Func.String() + ".bw",
		funcLinkName: "func." + c.Func.String() + ".link", logged: c.Launch.Logged,
	}
	fcfg := c.cfg
	fcfg.Machine = c.machine
	share, err := sim.FillShare(c.sched, fcfg)
	if err != nil {
		return nil, err
	}
	pr.fill, pr.fills = share, share > 0
	pr.baseLaunc = c.machine.LaunchLatency(c.Algo, c.Proto).Micros()
	if c.cfg.NThreads > 0 && c.cfg.DefaultNThreads > 0 {
		pr.thrRatio = float64(c.cfg.NThreads) / float64(c.cfg.DefaultNThreads)
	}
	simulate := func(p *sim.Profile) (float64, error) {
		t, err := c.Simulate(p)
		if c.group != nil {
			t = t*float64(pr.agg) - float64(pr.kernels-1)*pr.baseLaunc
		}
		return t, err
	}
	if !hasCap(c.Algo) {
		t, err := simulate(nil)
		if err != nil {
			return nil, err
		}
		pr.a, pr.linkR = t-pr.baseLaunc, math.Inf(1)
		pr.nominal, err = c.Simulate(nil)
		return pr, err
	}
	t1, err := simulate(probeProfile(c, probeCap1, 1))
	if err != nil {
		return nil, err
	}
	t2, err := simulate(probeProfile(c, probeCap2, 1))
	if err != nil {
		return nil, err
	}
	t3, err := simulate(probeProfile(c, probeCap1, 2))
	if err != nil {
		return nil, err
	}
	t4, err := simulate(nil)
	if err != nil {
		return nil, err
	}
	if pr.nominal, err = c.Simulate(nil); err != nil {
		return nil, err
	}
	pr.b = max(0, (t1-t2)/(1/probeCap1-1/probeCap2))
	a := t1 - pr.b/probeCap1 - pr.baseLaunc
	pr.alat = max(0, t3-t1)
	pr.a = a - pr.alat
	pr.linkR = math.Inf(1)
	if d := t4 - pr.baseLaunc - a; pr.b > 0 && d > 1e-9 {
		pr.linkR = pr.b / d
	}
	if pr.loop && pr.b > 0 {
		// each of the two loopback links alone at 1 GB/s, the other out of
		// the way
		for i, bw := range [2][2]float64{{1, 1e6}, {1e6, 1}} {
			p := &sim.Profile{Schema: sim.ProfileSchema, Name: "probe", Params: map[string]sim.Param{
				"transport.net.loopback.bw": {Value: bw[0], Source: "nominal"}, "transport.net.loopback.rank.bw": {Value: bw[1], Source: "nominal"}}}
			t, err := simulate(p)
			if err != nil {
				return nil, err
			}
			r := math.Inf(1)
			if d := t - pr.baseLaunc - a; d > 1e-9 {
				r = pr.b / d
			}
			if i == 0 {
				pr.loopDir = r
			} else {
				pr.loopRank = r
			}
		}
	}
	if pr.loop {
		t, err := simulate(&sim.Profile{Schema: sim.ProfileSchema, Name: "probe", Params: map[string]sim.Param{
			"transport.net.loopback.lat": {Value: 1, Source: "nominal"}}})
		if err != nil {
			return nil, err
		}
		pr.loopLat = max(0, t-t4)
		t, err = simulate(&sim.Profile{Schema: sim.ProfileSchema, Name: "probe", Params: map[string]sim.Param{
			"transport.net.loopback.msg": {Value: 1, Source: "nominal"}}})
		if err != nil {
			return nil, err
		}
		pr.loopMsg = max(0, t-t4)
	}
	return pr, nil
}

// values is a profile as the closed form reads it: one value per fit
// parameter (fitParams' order), nominal where the fit did not move it.
type values []float64

// Indices of the fixed parameters in fitParams.
const (
	pLaunchStream = iota
	pLaunchGraph
	pGroupOp
	pHop
	pNVLinkEff
	pSHMBw
	pThreadsExp
	pLogged
	pFillBw
	pFillMax
	pLLLink
	pLaunchDevice
	pLaunchChannel
	pFillBase
	pNetLoopBw
	pNetLoopRankBw
	pNetLoopLat
	pNetLoopMsg
	pFirstCap
)

func nominalValues(ps []fitParam) values {
	v := make(values, len(ps))
	for i, p := range ps {
		v[i] = (*sim.Profile)(nil).Value(p.name)
	}
	return v
}

// index sets the probe's parameter indices.
func (pr *probe) index(ps []fitParam) {
	pr.iCap, pr.iRel, pr.iFunc, pr.iFuncLink = -1, -1, -1, -1
	for i, p := range ps {
		switch p.name {
		case pr.capName():
			pr.iCap = i
		case pr.relName:
			pr.iRel = i
		case pr.funcName:
			pr.iFunc = i
		case pr.funcLinkName:
			pr.iFuncLink = i
		}
	}
}

// predict is the closed form, µs.
func (pr *probe) predict(v values) float64 {
	dev := pr.a + v[pHop]*pr.alat + v[pNetLoopLat]*pr.loopLat + v[pNetLoopMsg]*pr.loopMsg
	if pr.fills && v[pFillBw] > 0 {
		dev += pr.fill * (v[pFillBase] + min(float64(pr.c.Bytes)/1e3/v[pFillBw], v[pFillMax]))
	}
	if pr.b > 0 {
		dev += pr.b / pr.rate(v)
	}
	// a group of n operations in k kernels (one operation: 1 and 1): the
	// host issues the n, each kernel pays the device's fixed cost once
	// (sim.GroupOpTime); per operation
	n, k := float64(pr.agg), float64(pr.kernels)
	host, dfix := v[pLaunchStream], v[pLaunchGraph]
	if host <= 0 && dfix <= 0 {
		return (k*pr.baseLaunc + dev) / n
	}
	if pr.graph {
		if dfix <= 0 {
			dfix = host
		}
		return (k*dfix + dev) / n
	}
	host += (n - 1) * v[pGroupOp]
	if pr.logged {
		host += n * v[pLogged]
	}
	// each operation's host prepares its channels (sim: Result.Host)
	host += v[pLaunchChannel] * float64(pr.c.extraChannels())
	if d := v[pLaunchDevice]; d > 0 {
		dfix = d
	}
	return sim.BatchTime(host, k*max(0, dfix)+dev, pr.iters) / n
}

// rate is the closed form's rate of the row's critical connection, GB/s.
func (pr *probe) rate(v values) float64 {
	r := pr.linkR
	switch {
	case pr.shm:
		if bw := v[pSHMBw]; bw > 0 {
			r *= bw / (float64(pr.c.machine.PCIeBw) / 1e9)
		}
	case pr.loop:
		if bw := v[pNetLoopBw]; bw > 0 {
			r = bw * pr.loopDir
		}
		if bw := v[pNetLoopRankBw]; bw > 0 {
			r = min(r, bw*pr.loopRank)
		}
	default:
		r *= v[pNVLinkEff]
		if pr.c.Proto == spec.LL {
			r *= v[pLLLink]
		}
		if pr.iFuncLink >= 0 {
			r *= v[pr.iFuncLink]
		}
	}
	if pr.iCap >= 0 {
		if c := v[pr.iCap]; c > 0 {
			if pr.thrRatio != 1 {
				c *= math.Pow(pr.thrRatio, v[pThreadsExp])
			}
			if pr.iFunc >= 0 {
				c *= v[pr.iFunc]
			}
			r = min(r, c)
		}
	}
	if pr.iRel >= 0 {
		r *= v[pr.iRel]
	}
	return r
}

func (pr *probe) capName() string {
	if !hasCap(pr.c.Algo) {
		return ""
	}
	return "cap." + pr.c.Algo.String() + "." + pr.c.Proto.String()
}

// fitParam is a parameter the fit may move.
type fitParam struct {
	name   string
	init   float64
	linear bool // fitted as is (else in log space)
	// uses: the rows that pin it down
	uses func(pr *probe) bool
}

// Reference release and collective: their factors stay 1 (the caps and
// links carry the scale).
const (
	refRelease = spec.V2_28_9
	refFunc    = spec.AllReduce
)

func fitParams() []fitParam {
	large := func(pr *probe) bool { return pr.c.Bytes >= 1<<20 }
	ps := []fitParam{
		{name: "launch.stream", init: 15, uses: func(pr *probe) bool { return !pr.graph && pr.c.Bytes <= 64<<10 }},
		{name: "launch.graph", init: 7, uses: func(pr *probe) bool { return pr.graph }},
		{name: "launch.group_op", init: 3, uses: func(pr *probe) bool { return pr.agg > 1 }},
		{name: "hop.nvlink.scale", init: 1, uses: func(pr *probe) bool { return pr.alat > 0.5 }},
		{name: "link.nvlink.eff", init: 0.95, uses: func(pr *probe) bool { return large(pr) && !pr.shm && pr.c.NChannels >= 16 }},
		{name: "transport.shm.bw", init: 20, uses: func(pr *probe) bool { return pr.shm && large(pr) }},
		{name: "threads.exponent", init: 1, linear: true, uses: func(pr *probe) bool { return pr.thrRatio != 1 && large(pr) && hasCap(pr.c.Algo) }},
		{name: "launch.logged", init: 3, uses: func(pr *probe) bool { return pr.logged && pr.c.Bytes <= 64<<10 }},
		{name: "fill.bw", init: 1000, uses: func(pr *probe) bool { return pr.fills && large(pr) }},
		{name: "fill.max", init: 150, uses: func(pr *probe) bool { return pr.fills && large(pr) }},
		{name: "proto.LL.link", init: 1, uses: func(pr *probe) bool { return pr.c.Proto == spec.LL && !pr.shm && large(pr) && pr.c.NChannels >= 16 }},
		{name: "launch.device", init: 8, uses: func(pr *probe) bool { return !pr.graph && pr.iters > 1 && large(pr) }},
		{name: "launch.channel", init: 0.1, uses: func(pr *probe) bool { return !pr.graph && pr.c.NChannels > 1 && pr.c.Bytes < 1<<20 }},
		{name: "fill.base", init: 2, uses: func(pr *probe) bool { return pr.fills && large(pr) }},
		{name: "transport.net.loopback.bw", init: 5, uses: func(pr *probe) bool { return pr.loop && large(pr) }},
		{name: "transport.net.loopback.rank.bw", init: 7, uses: func(pr *probe) bool { return pr.loop && large(pr) }},
		{name: "transport.net.loopback.lat", init: 3, uses: func(pr *probe) bool { return pr.loop && pr.c.Bytes <= 64<<10 }},
		{name: "transport.net.loopback.msg", init: 2, uses: func(pr *probe) bool { return pr.loop && pr.c.Bytes < 1<<20 }},
	}
	for _, a := range []spec.Algo{spec.Ring, spec.Tree} {
		for p := spec.Proto(0); p < spec.NumProtos; p++ {
			name := "cap." + a.String() + "." + p.String()
			ps = append(ps, fitParam{name: name, init: 20, uses: func(pr *probe) bool {
				return pr.capName() == name && pr.c.Bytes >= 256<<10
			}})
		}
	}
	for _, f := range append(spec.Funcs[:], spec.SendRecv, spec.AllToAll) {
		if f == refFunc {
			continue
		}
		name := "func." + f.String() + ".bw"
		ps = append(ps, fitParam{name: name, init: 1, uses: func(pr *probe) bool { return pr.funcName == name && large(pr) && pr.c.NChannels < 16 }})
		link := "func." + f.String() + ".link"
		ps = append(ps, fitParam{name: link, init: 1, uses: func(pr *probe) bool {
			return pr.funcLinkName == link && large(pr) && !pr.shm && pr.c.NChannels >= 16
		}})
	}
	for _, v := range spec.Releases {
		if v == refRelease {
			continue
		}
		name := "release." + v.String() + ".bw"
		ps = append(ps, fitParam{name: name, init: 1, uses: func(pr *probe) bool { return pr.relName == name && large(pr) }})
	}
	return ps
}

// minPinRows is how many rows must depend on a parameter for the fit to
// move it; with fewer it stays nominal.
const minPinRows = 4

// fitResult is a fitted set of values and the parameters that were pinned.
type fitResult struct {
	params []fitParam
	v      values
	pinned []string
	loss   float64
}

// value is a fitted parameter's value.
func (f *fitResult) value(name string) float64 {
	for i, p := range f.params {
		if p.name == name {
			return f.v[i]
		}
	}
	return (*sim.Profile)(nil).Value(name)
}

// fit fits the closed form to the probes' measured times: it minimises the
// summed smoothed absolute log error (a median fit: a few wild rows do not
// move it) with Nelder-Mead, from start (nil: the parameters' initial
// values).
func fit(prs []*probe, start *fitResult) (*fitResult, error) {
	ps := fitParams()
	for _, pr := range prs {
		pr.index(ps)
	}
	var free []int
	for i, p := range ps {
		n := 0
		for _, pr := range prs {
			if p.uses(pr) {
				n++
			}
		}
		if n >= minPinRows {
			free = append(free, i)
		}
	}
	x0 := make([]float64, len(free))
	for k, i := range free {
		p := ps[i]
		x0[k] = p.init
		if start != nil {
			x0[k] = start.value(p.name)
		}
		if !p.linear {
			x0[k] = math.Log(x0[k])
		}
	}
	nominal := nominalValues(ps)
	toValues := func(x []float64, v values) values {
		copy(v, nominal)
		for k, i := range free {
			if ps[i].linear {
				v[i] = x[k]
			} else {
				v[i] = math.Exp(x[k])
			}
		}
		return v
	}
	const eps = 0.01
	buf := make(values, len(ps))
	// rows that share a schedule and a launch mode share a prediction
	type gk struct {
		s *algos.Schedule
		l sim.Launch
	}
	gi := map[gk]int{}
	var reps []*probe
	var meas [][]float64
	for _, pr := range prs {
		k := gk{pr.c.sched, pr.c.Launch}
		j, ok := gi[k]
		if !ok {
			j = len(reps)
			gi[k] = j
			reps = append(reps, pr)
			meas = append(meas, nil)
		}
		meas[j] = append(meas[j], pr.c.TimeUs)
	}
	loss := func(x []float64) float64 {
		for k, i := range free {
			if !ps[i].linear && (x[k] < -12 || x[k] > 12) || ps[i].linear && math.Abs(x[k]) > 4 {
				return math.Inf(1)
			}
		}
		v := toValues(x, buf)
		s := 0.0
		for j, pr := range reps {
			lp := math.Log(pr.predict(v))
			for _, m := range meas[j] {
				e := lp - math.Log(m)
				s += lossOf(e)
			}
		}
		return s
	}
	x := x0
	best := loss(x0)
	// restarts: Nelder-Mead stalls on the kinks of min(link, cap)
	for range 4 {
		res, err := optimize.Minimize(optimize.Problem{Func: loss}, x, &optimize.Settings{MajorIterations: 4000, Converger: &optimize.FunctionConverge{Absolute: 1e-6, Iterations: 100}}, &optimize.NelderMead{})
		if err != nil && res == nil {
			return nil, fmt.Errorf("fit: %v", err)
		}
		improved := res.F < best-1e-4
		if res.F < best {
			best, x = res.F, res.X
		}
		if !improved {
			break
		}
	}
	out := &fitResult{params: ps, v: toValues(x, make(values, len(ps))), loss: best}
	for _, i := range free {
		out.pinned = append(out.pinned, ps[i].name)
	}
	sort.Strings(out.pinned)
	return out, nil
}

var lossOf = func(e float64) float64 { return math.Sqrt(e*e + 0.01*0.01) } // smoothed |log error|

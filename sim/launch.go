package sim

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// Launch is how an operation is launched: spec's launch description (on a
// stream or captured in a CUDA graph, nccl-tests -G; Agg operations per
// group, -m N, 0 and 1 both meaning one), which also decides NCCL's plan,
// and what only the timing reads. The fixed cost the timing model charges
// per operation comes from here.
type Launch struct {
	spec.Launch
	// Logged: NCCL writes a line per operation (NCCL_DEBUG=INFO with the
	// TUNING or COLL subsystem), a host cost on every launch.
	Logged bool `json:"logged,omitempty"`
	// Iters is how many operations are issued back to back per timed
	// batch (nccl-tests -n, hw run -n); the reported time is the batch's
	// over Iters. 1 is an operation timed alone; 0 is nccl-tests' default
	// (DefaultIters).
	Iters int `json:"iters,omitempty"`
}

// LoggedPerOp reports whether NCCL logs every operation under env:
// NCCL_DEBUG=INFO (or TRACE) with NCCL_DEBUG_SUBSYS naming TUNING, COLL or
// ALL (getAlgoInfo's "%s: %ld Bytes -> Algo" line is INFO(NCCL_TUNING);
// v2.28.9-1 src/enqueue.cc). NCCL's default subsystems are INIT, BOOTSTRAP
// and ENV (src/debug.cc ncclDebugInit).
func LoggedPerOp(env spec.Env) bool {
	lvl := strings.ToUpper(strings.TrimSpace(env.Get("NCCL_DEBUG")))
	if lvl != "INFO" && lvl != "TRACE" {
		return false
	}
	sub := strings.ToUpper(env.Get("NCCL_DEBUG_SUBSYS"))
	if strings.HasPrefix(strings.TrimSpace(sub), "^") {
		return !strings.Contains(sub, "TUNING")
	}
	for _, s := range strings.Split(sub, ",") {
		switch strings.TrimSpace(s) {
		case "TUNING", "COLL", "ALL":
			return true
		}
	}
	return false
}

// MaxIters bounds Launch.Iters.
const MaxIters = 1 << 20

// DefaultIters is nccl-tests' default -n (iters = 20 in src/common.cu):
// what a time is compared with unless the launch says otherwise.
const DefaultIters = 20

// Batch is the operations per timed batch Iters stands for.
func (l Launch) Batch() int {
	if l.Iters == 0 {
		return DefaultIters
	}
	return l.Iters
}

// Graph reports a launch from a CUDA graph.
func (l Launch) Graph() bool { return l.Mode == spec.LaunchGraph }

// Validate checks the launch mode and the group size.
func (l Launch) Validate() error {
	if l.Mode != spec.LaunchStream && l.Mode != spec.LaunchGraph {
		return fmt.Errorf("launch mode %d: expected stream or graph", int(l.Mode))
	}
	if l.Agg < 0 || l.Agg > spec.MaxGroupOps {
		return fmt.Errorf("agg: %w", spec.CheckGroupSize(l.Agg))
	}
	if l.Iters < 0 || l.Iters > MaxIters {
		return fmt.Errorf("%d operations per timed batch: expected 1 ... %d", l.Iters, MaxIters)
	}
	return nil
}

func (l Launch) String() string {
	s := l.Mode.String()
	if l.Agg > 1 {
		s += fmt.Sprintf(" m%d", l.Agg)
	}
	if l.Logged {
		s += " logged"
	}
	return s
}

// LaunchCost is the fixed cost the model charges an operation timed alone
// before its first step: the host's and the device's (launchSplit), or
// NCCL's base latency of the algorithm and protocol where the profile has
// neither.
func (m *Machine) LaunchCost(algo spec.Algo, proto spec.Proto, l Launch) Time {
	host, dev, _ := m.launchSplit(algo, proto, l)
	return host + dev
}

// LaunchParts is LaunchCost's host's and device's parts (launchSplit):
// a group pays the host's parts of its operations and the device's once
// per kernel (GroupOpTime).
func (m *Machine) LaunchParts(algo spec.Algo, proto spec.Proto, l Launch) (host, dev Time) {
	host, dev, _ = m.launchSplit(algo, proto, l)
	return host, dev
}

// launchSplit splits an operation's fixed cost into the host's part (what
// the host spends issuing it before it can issue the next: launch.stream,
// an operation of a group of N paying (launch.stream + (N-1) ×
// launch.group_op) / N, plus launch.logged) and the device's (launch.graph:
// the whole fixed cost of an operation replayed from a CUDA graph, whose
// host part is one graph launch for many operations). split is false when
// the profile has no launch cost (NCCL's base latency, all of it counted
// as the device's).
func (m *Machine) launchSplit(algo spec.Algo, proto spec.Proto, l Launch) (host, dev Time, split bool) {
	return m.launchSplitOr(m.LaunchLatency(algo, proto), l)
}

// launchSplitOr is launchSplit with base, NCCL's fixed cost of the
// operation, where the profile has no launch cost.
func (m *Machine) launchSplitOr(base Time, l Launch) (host, dev Time, split bool) {
	p := m.Profile
	stream, graph := p.Value("launch.stream"), p.Value("launch.graph")
	if stream <= 0 && graph <= 0 {
		return 0, base, false
	}
	if l.Graph() {
		if graph <= 0 {
			graph = stream
		}
		return 0, FromMicros(graph), true
	}
	n := max(1, l.Agg)
	h := (stream + float64(n-1)*p.Value("launch.group_op")) / float64(n)
	if l.Logged {
		h += p.Value("launch.logged")
	}
	d := p.Value("launch.device")
	if d <= 0 {
		d = graph
	}
	return FromMicros(h), FromMicros(d), true
}

// BatchTime is the time per operation of n operations issued back to back
// and timed together (nccl-tests and hw run time -n operations per batch
// and divide): the host issues each in host, the device runs each in dev
// once it is issued and the one before it has ended, so the batch lasts
// host + dev + (n-1) × max(host, dev). Alone (n <= 1) an operation costs
// host + dev; in a long batch the larger of the two.
func BatchTime[T Time | float64](host, dev T, n int) T {
	if n <= 1 {
		return host + dev
	}
	return (host + dev + T(n-1)*max(host, dev)) / T(n)
}

// FromDecision sets what the timing needs from NCCL's decision beyond the
// schedule: the channel's threads against NCCL's default for the cell (the
// communicator's "Max NThreads" row under the environment against the
// release's default, so NCCL_NTHREADS counts and the smaller blocks NCCL
// gives small operations do not) and the transport between ranks of a
// node. comm may be nil (threads then count as the default).
func (c *Config) FromDecision(comm *spec.Comm, d *spec.Decision) {
	c.Transport = d.Transport
	c.NThreads, c.DefaultNThreads = 0, 0
	if comm == nil || comm.Model == nil || d.Algo < 0 || d.Algo >= spec.NumAlgos || d.Proto < 0 || d.Proto >= spec.NumProtos {
		return
	}
	t := comm.Model.Tuning
	c.NThreads = comm.Model.MaxThreads[d.Algo][d.Proto]
	switch d.Proto {
	case spec.Simple:
		c.DefaultNThreads = t.SimpleMaxNThreads
	case spec.LL:
		c.DefaultNThreads = t.LLMaxNThreads
	case spec.LL128:
		c.DefaultNThreads = t.LL128MaxNThreads
	}
}

// Fills reports whether the profile's pipeline fill applies to a
// schedule: LL128 or Simple over NVLink (not SHM) busy on 16 or more channels,
// the operations the link, not a channel's copy rate, bounds.
func Fills(s *algos.Schedule, cfg Config) bool {
	return s != nil && s.Proto != spec.LL && busyChannels(s) >= 16 && cfg.Transport != "SHM" && s.NNodes == 1
}

// busyChannels is the channels the schedule gives work: an operation of a
// group runs on its range of the channels, not on all below its last.
func busyChannels(s *algos.Schedule) int {
	cc := s.ChunkCounts()
	if cc == nil {
		return s.NChannels
	}
	n := 0
	for _, c := range cc {
		if c > 0 {
			n++
		}
	}
	return n
}

// fillCost is the pipeline fill the profile charges an operation: the
// share of its NVLink traffic that loads a GPU's port both ways (bidir) of
// min(bytes / fill.bw, fill.max). On the captures only patterns that load
// both directions (a ring on 2 GPUs) keep gaining bandwidth up to GiB
// sizes; a one-way chain reaches its rate by a few MiB.
func fillCost(s *algos.Schedule, cfg *Config, bidir float64) Time {
	p := cfg.Machine.Profile
	bw := p.Value("fill.bw")
	if bw <= 0 || bidir <= 0 || !Fills(s, *cfg) {
		return 0
	}
	b := TestBytes(s.Func, s.Count, s.DataType, s.NRanks)
	return FromMicros(bidir * (p.Value("fill.base") + min(float64(b)/1e3/bw, p.Value("fill.max"))))
}

// FillShare is the share of the pipeline fill an operation pays (0 when
// the fill does not apply to it; see fillCost).
func FillShare(s *algos.Schedule, cfg Config) (float64, error) {
	if !Fills(s, cfg) {
		return 0, nil
	}
	if err := cfg.Machine.Validate(); err != nil {
		return 0, err
	}
	f := newFabric(&cfg.Machine, newTiming(&cfg, s))
	an, err := analyze(s, f, cfg.RateTolerance)
	if err != nil {
		return 0, err
	}
	return an.bidirShare(), nil
}

// bidirShare is the share of the NVLink bytes that load a GPU's port both
// ways: the sum over GPUs of min(sent, received) over the sum of
// max(sent, received) (1: a ring; 0: a chain of 2 GPUs).
func (a *analysis) bidirShare() float64 {
	f := a.f
	var both, most int64
	for node := 0; node < f.m.Nodes; node++ {
		for g := 0; g < f.m.GPUsPerNode; g++ {
			b := node*f.perNode + g*gpuLinks
			out, in := a.linkBytes[b], a.linkBytes[b+1]
			both += min(out, in)
			most += max(out, in)
		}
	}
	if most == 0 {
		return 0
	}
	return float64(both) / float64(most)
}

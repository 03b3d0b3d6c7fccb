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

// MaxAgg bounds Launch.Agg: spec's one limit on nccl-tests' -m.
const MaxAgg = spec.MaxAgg

// Graph reports a launch from a CUDA graph.
func (l Launch) Graph() bool { return l.Mode == spec.LaunchGraph }

// Validate checks the launch mode and the group size.
func (l Launch) Validate() error {
	if l.Mode != spec.LaunchStream && l.Mode != spec.LaunchGraph {
		return fmt.Errorf("launch mode %d: expected stream or graph", int(l.Mode))
	}
	if l.Agg < 0 || l.Agg > MaxAgg {
		return fmt.Errorf("%d operations per group: expected 1 ... %d", l.Agg, MaxAgg)
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

// LaunchCost is the fixed cost the model charges an operation before its
// first step: the profile's cost for the launch mode (an operation of a
// group of N pays (launch + (N-1) × launch.group_op) / N), or NCCL's base
// latency of the algorithm and protocol where the profile has none.
func (m *Machine) LaunchCost(algo spec.Algo, proto spec.Proto, l Launch) Time {
	p := m.Profile
	base := p.Value("launch.stream")
	if l.Graph() {
		if g := p.Value("launch.graph"); g > 0 {
			base = g
		}
	}
	if base <= 0 {
		return m.LaunchLatency(algo, proto)
	}
	n := max(1, l.Agg)
	c := (base + float64(n-1)*p.Value("launch.group_op")) / float64(n)
	if l.Logged {
		c += p.Value("launch.logged")
	}
	return FromMicros(c)
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

// fillCost is the pipeline fill the profile charges an operation.
func fillCost(s *algos.Schedule, cfg *Config) Time {
	p := cfg.Machine.Profile
	bw := p.Value("fill.bw")
	if bw <= 0 || !Fills(s, *cfg) {
		return 0
	}
	b := TestBytes(s.Func, s.Count, s.DataType, s.NRanks)
	return FromMicros(min(float64(b)/1e3/bw, p.Value("fill.max")))
}

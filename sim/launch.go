package sim

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
)

// Launch is how an operation is launched, in nccl-tests' terms: on a
// stream (the default), captured in a CUDA graph (-G), and with Agg
// operations per group (-m N; 0 and 1 both mean one). It changes the fixed
// cost the timing model charges per operation, never NCCL's decision.
type Launch struct {
	Graph bool `json:"graph,omitempty"`
	Agg   int  `json:"agg,omitempty"`
}

// MaxAgg bounds Launch.Agg (nccl-tests' -m takes an int; groups of more
// than this many operations are not what it measures).
const MaxAgg = 1024

// Validate checks the group size.
func (l Launch) Validate() error {
	if l.Agg < 0 || l.Agg > MaxAgg {
		return fmt.Errorf("%d operations per group: expected 1 ... %d", l.Agg, MaxAgg)
	}
	return nil
}

func (l Launch) String() string {
	s := "stream"
	if l.Graph {
		s = "graph"
	}
	if l.Agg > 1 {
		s += fmt.Sprintf(" m%d", l.Agg)
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
	if l.Graph {
		if g := p.Value("launch.graph"); g > 0 {
			base = g
		}
	}
	if base <= 0 {
		return m.LaunchLatency(algo, proto)
	}
	n := max(1, l.Agg)
	return FromMicros((base + float64(n-1)*p.Value("launch.group_op")) / float64(n))
}

// FromDecision sets what the timing needs from NCCL's decision beyond the
// schedule: the threads per channel against the protocol's default (t is
// the release's tuning constants) and the transport between ranks of a
// node.
func (c *Config) FromDecision(d *spec.Decision, t *spec.Tuning) {
	c.Transport = d.Transport
	c.NThreads = d.NThreads
	c.DefaultNThreads = 0
	if t != nil {
		switch d.Proto {
		case spec.Simple:
			c.DefaultNThreads = t.SimpleMaxNThreads
		case spec.LL:
			c.DefaultNThreads = t.LLMaxNThreads
		case spec.LL128:
			c.DefaultNThreads = t.LL128MaxNThreads
		}
	}
}

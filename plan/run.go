package plan

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// RunOptions are what one simulation of an operation asks for beyond the
// operation: a forced algorithm, protocol or channel count (empty and 0:
// NCCL's), the chunk sizer of a tuner plugin, a timeline trace and a
// data-plane verification.
type RunOptions struct {
	// Release names the ruleset in the report; Size is the nccl-tests size
	// the operation was made from (Comm.Op).
	Release     string
	Size        int64
	Algo, Proto string
	Channels    int
	ChunkSize   algos.ChunkSizer
	Describe    func(*spec.Decision) string
	// Trace is the file for the Chrome trace ("" none), of at most
	// MaxTraceEvents slices, one lane per rank of TraceRanks.
	Trace          string
	TraceRanks     string
	MaxTraceEvents int
	Verify         bool
}

// Run is gatesim sim's one simulation: NCCL's choice (or the forced one),
// the schedule algos builds for it, its simulation, the group it was
// issued in, and the optional trace and verification, as one Report.
func (c *Comm) Run(op spec.Op, o RunOptions) (*Report, *Choice, error) {
	ch, err := c.Choose(op, o.Algo, o.Proto, o.Channels, o.Describe)
	if err != nil {
		return nil, nil, err
	}
	s, err := algos.Build(op, ch.Sel, c.Layout, algos.Options{InPlace: c.Issue.InPlace, ChunkSize: o.ChunkSize})
	if err != nil {
		return nil, nil, err
	}
	cfg := c.Config(ch.Decision, ch.Sel)
	cfg.Trace, cfg.MaxTraceEvents = o.Trace != "", o.MaxTraceEvents
	sx, err := sim.New(s, cfg)
	if err != nil {
		return nil, nil, err
	}
	res, err := sx.Run()
	if err != nil {
		return nil, nil, err
	}
	selection := ch.Sel.String()
	if ch.Decision.P2P != nil {
		selection = fmt.Sprintf("p2p/%s, up to %d of %d p2p channels per peer", s.Proto, ch.Decision.P2P.NChannelsPerPeer, ch.Decision.P2P.NChannels)
	}
	m := c.Machine
	rep := &Report{Machine: m, NCCL: o.Release, Op: op, Selection: selection, ChosenBy: ch.By, NCCLChoice: ch.NCCL,
		Result: res, ModelTimeUs: ch.ModelUs, ModelNote: ch.Note, Profile: m.Profile.Summary(), Launch: c.Launch}
	switch {
	case ch.Decision.P2P != nil:
		rep.P2PTasks = ch.Decision.P2P.Tasks // a group of one (DecideIssued): its tasks, no group to time
	case ch.Group != nil:
		if rep.Group, err = c.SimulateGroup(ch.Group, res); err != nil {
			return nil, nil, err
		}
	}
	if o.Trace != "" {
		title := fmt.Sprintf("%s %d B %s", op.Func, o.Size, ch.Sel)
		if err := WriteTrace(o.Trace, sx, o.TraceRanks, title, m.Name, o.MaxTraceEvents); err != nil {
			return nil, nil, err
		}
	}
	if o.Verify {
		if rep.Verification, err = Verify(s, o.Size, op.RedOp); err != nil {
			return nil, nil, err
		}
	}
	return rep, ch, nil
}

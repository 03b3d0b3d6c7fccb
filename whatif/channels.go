package whatif

import (
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// Channels is where the operations issued together at a point run. A
// group splits its channels between its operations (G-GROUP-PLAN-1,
// scheduleCollTasksToPlan): eight 8 MiB AllReduces on 2 × H200 at 2.28.9
// share 24 channels as 0..2, 2..5, ..., 20..23, so no one count tells
// where each runs.
type Channels struct {
	// Ops is how many operations were decided together (1: alone, or a
	// group of one).
	Ops int
	// Lo..Hi is the first operation's range, as NCCL's line prints it.
	Lo, Hi int
	// Min and Max are the fewest and the most channels one operation of
	// the group runs on (those of its range; a send/recv operation's
	// distinct p2p channels).
	Min, Max int
	// MaxChannels is, for a group of several, the first operation's
	// nMaxChannels as the group's choice set it (explain's nMaxCh, the
	// oracle's nchannels), which its range need not reach; 0 alone.
	MaxChannels int
	// Ranges is every operation's range in call order, compact: a run of
	// equal ranges once with its count ("0..0 ×8"), and past
	// maxRangesShown runs the first two, "…" and the last.
	Ranges string
}

// maxRangesShown bounds Ranges: a group may hold 1,024 operations.
const maxRangesShown = 4

// opRange is the channels one decided operation runs on: a send/recv
// operation's distinct p2p channels and their hull, otherwise its range
// ChannelLo..ChannelHi. ok is false where nothing runs (an error, a
// discarded call, an undecided choice).
func opRange(d *spec.Decision) (n, lo, hi int, ok bool) {
	switch {
	case d.Err != nil || d.Discarded:
		return 0, 0, 0, false
	case d.P2P != nil && len(d.P2P.Tasks) > 0:
		n, lo, hi = d.P2P.P2PHull()
		return n, lo, hi, n > 0
	case d.NChannels > 0:
		return d.ChannelHi - d.ChannelLo + 1, d.ChannelLo, d.ChannelHi, true
	}
	return 0, 0, 0, false
}

// channelsOf summarises the decisions of the operations issued together
// (ds in call order).
func channelsOf(ds []*spec.Decision) Channels {
	c := Channels{Ops: len(ds)}
	type run struct{ lo, hi, n int }
	var runs []run
	for i, d := range ds {
		n, lo, hi, ok := opRange(d)
		if !ok {
			continue
		}
		if len(runs) == 0 {
			c.Min, c.Max = n, n
		}
		if i == 0 {
			c.Lo, c.Hi = lo, hi
		}
		c.Min, c.Max = min(c.Min, n), max(c.Max, n)
		if k := len(runs) - 1; k >= 0 && runs[k].lo == lo && runs[k].hi == hi {
			runs[k].n++
			continue
		}
		runs = append(runs, run{lo, hi, 1})
	}
	if len(ds) > 1 {
		c.MaxChannels = ds[0].NChannels
	}
	show := func(r run) string {
		s := spec.ChannelRange(r.lo, r.hi)
		if r.n > 1 {
			s += " ×" + strconv.Itoa(r.n)
		}
		return s
	}
	var parts []string
	for i, r := range runs {
		if len(runs) > maxRangesShown && i >= 2 && i < len(runs)-1 {
			if i == 2 {
				parts = append(parts, "…")
			}
			continue
		}
		parts = append(parts, show(r))
	}
	c.Ranges = strings.Join(parts, ", ")
	return c
}

// Grouped says whether the point's operation was decided with others.
func (c Channels) Grouped() bool { return c.Ops > 1 }

// PerOp is the channels one operation runs on: "3" when every operation
// of the group runs on as many, "3–4" when they differ; "" when none runs.
func (c Channels) PerOp() string {
	switch {
	case c.Max == 0:
		return ""
	case c.Min == c.Max:
		return strconv.Itoa(c.Min)
	}
	return strconv.Itoa(c.Min) + "–" + strconv.Itoa(c.Max)
}

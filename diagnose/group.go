package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// GroupGuess is the group size a log's operation lines reveal: NCCL
// splits a group's channels among its operations (G-SEL-GROUP rules of
// the release), so the N operations of one (collective, size) that a
// program issues per group (nccl-tests -m N) print N lines whose channel
// ranges tile the channels in order from channel 0 ({0..2}, {2..5}, ...
// or {0..1}, {2..3}, ...), where operations issued alone each start at 0.
type GroupGuess struct {
	// Ops is the group size every tiling (collective, size) shows; 0 when
	// they show different sizes (Sizes), which the log cannot settle
	// (a group wider than the channels wraps to channel 0 again and
	// repeats lines).
	Ops int
	// Sizes are the distinct group sizes seen, smallest first.
	Sizes []int
	// Lines are the tiling lines of the first such (collective, size).
	Lines []ncclog.OpChoice
	// Keys counts the (collective, size) pairs whose lines tile.
	Keys int
}

// InferGroup reads the group size from the log's distinct operation
// lines (2.24+ print a channel range; older ones none): per (collective,
// bytes), its lines in the order the log first printed them, when there
// are at least two and their ranges tile the channels from 0, each
// starting at or just after the previous one's last channel. Nil when no
// (collective, size) tiles, or when one with several lines does not (a
// program mixing lone operations and groups is not guessed at).
func InferGroup(l *ncclog.Log) *GroupGuess {
	type key struct {
		f     spec.Func
		bytes int64
	}
	lines := map[key][]ncclog.OpChoice{}
	var order []key
	for _, o := range l.Ops {
		if o.ChannelLo < 0 || o.ChannelHi < o.ChannelLo || !o.FuncKnown {
			continue
		}
		k := key{o.Func, o.Bytes}
		if _, ok := lines[k]; !ok {
			order = append(order, k)
		}
		lines[k] = append(lines[k], o)
	}
	g := &GroupGuess{}
	for _, k := range order {
		ls := lines[k]
		if len(ls) < 2 {
			continue
		}
		if !tiles(ls) {
			return nil
		}
		if g.Keys == 0 {
			g.Lines = ls
		}
		g.Keys++
		if !slices.Contains(g.Sizes, len(ls)) {
			g.Sizes = append(g.Sizes, len(ls))
		}
	}
	if g.Keys == 0 {
		return nil
	}
	slices.Sort(g.Sizes)
	if len(g.Sizes) == 1 {
		g.Ops = g.Sizes[0]
	}
	return g
}

// tiles says whether the lines' channel ranges cover the channels in
// order from 0: each starts where the previous one ended (NCCL's split
// of a group's channels prints a shared boundary channel in both) or
// just after it.
func tiles(ls []ncclog.OpChoice) bool {
	if ls[0].ChannelLo != 0 {
		return false
	}
	for i := 1; i < len(ls); i++ {
		lo, prevHi := ls[i].ChannelLo, ls[i-1].ChannelHi
		if (lo != prevHi && lo != prevHi+1) || lo <= ls[i-1].ChannelLo {
			return false
		}
	}
	return true
}

// ranges is the lines' channel ranges as NCCL prints them.
func (g *GroupGuess) ranges() string {
	var rs []string
	for _, o := range g.Lines {
		rs = append(rs, "{"+spec.ChannelRange(o.ChannelLo, o.ChannelHi)+"}")
	}
	return strings.Join(rs, ", ")
}

// Note says what a prediction does with the guess.
func (g *GroupGuess) Note() string {
	first := g.Lines[0]
	return fmt.Sprintf("operation lines predicted as groups of %d (inferred: the %d lines of %s %d bytes, and of %d (collective, size) pair(s) in all, tile the channels in order: %s); --agg N states the group size, --agg 1 predicts each operation alone",
		g.Ops, len(g.Lines), first.Func, first.Bytes, g.Keys, g.ranges())
}

// group reports the group size the operation lines reveal (InferGroup).
func (d *diag) group() {
	g := InferGroup(d.l)
	if g == nil {
		return
	}
	first := g.Lines[0]
	var ev []ncclog.Proof
	for _, o := range g.Lines {
		ev = append(ev, ncclog.Proof{At: o.First.At, Msg: o.First.Msg, Why: "channels " + spec.ChannelRange(o.ChannelLo, o.ChannelHi)})
	}
	f := Finding{ID: "ops.group", Severity: Info, Evidence: ev}
	if g.Ops > 0 {
		f.Title = fmt.Sprintf("these %d lines of %s %d bytes (and those of %d (collective, size) pair(s) in all) tile the channels in order: they look like one group of %d operations (nccl-tests -m %d)",
			g.Ops, first.Func, first.Bytes, g.Keys, g.Ops, g.Ops)
		f.Check = []string{fmt.Sprintf("with a machine (--system, --topo) the prediction takes them as groups of %d; --agg %d states it, --agg 1 predicts each alone", g.Ops, g.Ops)}
	} else {
		f.Title = fmt.Sprintf("operation lines of %d (collective, size) pair(s) tile the channels in order, in runs of %v lines: they look like groups (nccl-tests -m), of a size the log does not settle", g.Keys, g.Sizes)
		f.Check = []string{fmt.Sprintf("rerun the diagnosis with --agg N, N the program's operations per group (at least %d)", g.Sizes[len(g.Sizes)-1])}
	}
	d.add(f)
}

package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/gatesim/gatesim/algos"
)

// sendLinks is the set of link classes a step's sends cross (bit c for
// LinkClass c), on the paths slotFlows charges: the step sends to every
// slot of its send groups sg (a group's slots are used alike) of rank r's
// plan rp.
func (x *Sim) sendLinks(ci, r int, rp *rankPlan, sg []int32) uint8 {
	var mask uint8
	cc := x.an.classes[ci]
	nd := x.an.rail(ci)
	var buf []int32
	for si := range rp.slots {
		if !slices.Contains(sg, rp.slots[si].group) {
			continue
		}
		p := cc.peer(rp.slots[si].peer)
		switch p.Kind {
		case algos.PeerRank:
			buf, _ = x.f.path(buf[:0], r, int(p.ID), nd)
		case algos.PeerNet:
			buf = x.f.toNet(buf[:0], r, nd)
		case algos.PeerNVLS:
			buf = append(buf[:0], x.f.gpuLink(r, 4))
		case algos.PeerMcast:
			buf = append(buf[:0], x.f.gpuLink(r, 0))
		}
		for _, l := range buf {
			mask |= 1 << x.f.class[l]
		}
	}
	return mask
}

// TraceDropped is how many slices were not recorded because the trace
// reached Config.MaxTraceEvents.
func (x *Sim) TraceDropped() int64 { return x.traceDropped }

// NRanks and NChannels are the schedule's, for choosing trace lanes.
func (x *Sim) NRanks() int    { return x.s.NRanks }
func (x *Sim) NChannels() int { return x.s.NChannels }

// Lane says whose recorded timeline rank r shows on channel c: the program
// of representative rank rep in channel class ci. Ranks of one symmetry
// class and channels of one channel class run one timeline (up to the
// rotation a merged class undoes), which is why one was simulated for all.
func (x *Sim) Lane(c, r int) (ci, rep int) {
	for ci, cc := range x.an.classes {
		for _, ch := range cc.chans {
			if ch.c != c {
				continue
			}
			q := r
			if ch.d != cc.d {
				q = x.s.Header.RotateRank(r, cc.d-ch.d)
			}
			return ci, x.reps[ci][x.repOf[ci][q]].rank
		}
	}
	return -1, -1
}

// RankTrace expands the recorded timeline to one lane per listed rank and
// channel: every event of the lane's representative, relabelled with the
// rank and the channel.
func (x *Sim) RankTrace(ranks []int) []TraceEvent {
	type key struct{ ci, rank int }
	byLane := map[key][]TraceEvent{}
	for _, e := range x.trace {
		k := key{e.Class, e.Rank}
		byLane[k] = append(byLane[k], e)
	}
	var out []TraceEvent
	for _, r := range ranks {
		for c := 0; c < x.s.NChannels; c++ {
			ci, rep := x.Lane(c, r)
			for _, e := range byLane[key{ci, rep}] {
				e.Rank, e.Channel, e.Weight = r, c, 1
				out = append(out, e)
			}
		}
	}
	return out
}

// WeightedTrace is the recorded timeline with each event's Weight set to
// the number of (rank, channel) lanes it stands for: summed over it, bytes
// count every rank and channel.
func (x *Sim) WeightedTrace() []TraceEvent {
	type key struct{ ci, rank int }
	lanes := map[key]int64{}
	for r := 0; r < x.s.NRanks; r++ {
		for c := 0; c < x.s.NChannels; c++ {
			ci, rep := x.Lane(c, r)
			lanes[key{ci, rep}]++
		}
	}
	out := make([]TraceEvent, len(x.trace))
	for i, e := range x.trace {
		e.Weight = lanes[key{e.Class, e.Rank}]
		out[i] = e
	}
	return out
}

// ChromeTrace is a timeline in the Trace Event Format that Perfetto and
// chrome://tracing load: Events as complete events (one process per rank,
// one thread per channel and thread group), and Counters, when given, as
// one counter track per link class of the bytes sent so far, each event
// counted Weight times.
type ChromeTrace struct {
	Events   []TraceEvent
	Counters []TraceEvent
	Meta     map[string]string
}

// counterSamples bounds the points of one counter track.
const counterSamples = 2000

type chromeEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"` // present on every complete event, zero included
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// Write writes the JSON object {"traceEvents", "displayTimeUnit",
// "otherData"}; timestamps are microseconds.
func (t ChromeTrace) Write(w io.Writer) error {
	out := struct {
		TraceEvents     []chromeEvent     `json:"traceEvents"`
		DisplayTimeUnit string            `json:"displayTimeUnit"`
		OtherData       map[string]string `json:"otherData,omitempty"`
	}{TraceEvents: []chromeEvent{}, DisplayTimeUnit: "ns", OtherData: t.Meta}
	ranks := map[int]bool{}
	threads := map[[2]int]bool{}
	maxPid := -1
	for _, e := range t.Events {
		tid := e.Channel*16 + e.Group
		ranks[e.Rank] = true
		threads[[2]int{e.Rank, tid}] = true
		maxPid = max(maxPid, e.Rank)
		dur := (e.End - e.Start).Micros()
		out.TraceEvents = append(out.TraceEvents, chromeEvent{
			Name: e.Prim.String(), Ph: "X", Ts: e.Start.Micros(), Dur: &dur,
			Pid: e.Rank, Tid: tid,
			Args: map[string]any{"step": e.Step, "slice": e.Slice, "bytes": e.Bytes},
		})
	}
	var rs []int
	for r := range ranks {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	for _, r := range rs {
		out.TraceEvents = append(out.TraceEvents, chromeEvent{Name: "process_name", Ph: "M", Pid: r, Args: map[string]any{"name": fmt.Sprintf("rank %d", r)}})
	}
	var ts [][2]int
	for t := range threads {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if ts[i][0] != ts[j][0] {
			return ts[i][0] < ts[j][0]
		}
		return ts[i][1] < ts[j][1]
	})
	for _, t := range ts {
		out.TraceEvents = append(out.TraceEvents, chromeEvent{Name: "thread_name", Ph: "M", Pid: t[0], Tid: t[1],
			Args: map[string]any{"name": fmt.Sprintf("channel %d group %d", t[1]/16, t[1]%16)}})
	}
	if len(t.Counters) > 0 {
		pid := maxPid + 1
		out.TraceEvents = append(out.TraceEvents, chromeEvent{Name: "process_name", Ph: "M", Pid: pid,
			Args: map[string]any{"name": "bytes sent per link class (every rank and channel)"}})
		out.TraceEvents = append(out.TraceEvents, counterTracks(t.Counters, pid)...)
	}
	return json.NewEncoder(w).Encode(out)
}

// counterTracks turns weighted events into one cumulative counter per link
// class, sampled at most counterSamples times (at the end of each bucket of
// time in which it grew), starting at 0.
func counterTracks(events []TraceEvent, pid int) []chromeEvent {
	sorted := append([]TraceEvent(nil), events...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].End < sorted[j].End })
	var end Time
	for _, e := range sorted {
		end = max(end, e.End)
	}
	width := Time(math.Ceil(float64(end) / counterSamples))
	var out []chromeEvent
	for c := LinkClass(0); c < numLinkClasses; c++ {
		name := "bytes on " + c.String()
		var sum int64
		used := false
		last := int64(-1)
		bucket := Time(0)
		emit := func(at Time) {
			if sum != last {
				out = append(out, chromeEvent{Name: name, Ph: "C", Ts: at.Micros(), Pid: pid, Args: map[string]any{"bytes": sum}})
				last = sum
			}
		}
		for _, e := range sorted {
			if e.Links&(1<<c) == 0 {
				continue
			}
			if !used {
				used = true
				emit(0)
			}
			if width > 0 && e.End/width != bucket {
				emit(bucket * width)
				bucket = e.End / width
			}
			w := e.Weight
			if w == 0 {
				w = 1
			}
			sum += e.Bytes * w
		}
		if used {
			emit(end)
		}
	}
	return out
}

// MaxLaneEvents caps the events a per-rank trace expands to.
const MaxLaneEvents = 2_000_000

// TraceRanks reads --trace-ranks: "" (the representatives as recorded),
// "all" or N (ranks 0..N-1, one lane per rank and channel). The ranks are
// cut so that the lanes hold at most MaxLaneEvents events; note says what
// the trace shows and what was cut.
func (x *Sim) TraceRanks(arg string) (ranks []int, note string, err error) {
	n := x.s.NRanks
	switch arg {
	case "":
		return nil, "one process per representative rank (ranks of a symmetry class share its timeline) and one thread per representative channel; --trace-ranks all|N gives every rank and channel its own lane", nil
	case "all":
	default:
		k, perr := fmt.Sscanf(arg, "%d", &n)
		if perr != nil || k != 1 || n < 1 || fmt.Sprint(n) != arg {
			return nil, "", fmt.Errorf("--trace-ranks %q: expected all or a rank count N ≥ 1", arg)
		}
		n = min(n, x.s.NRanks)
	}
	per := int64(0) // events of one rank's lanes (every rank has the same count)
	for c := 0; c < x.s.NChannels; c++ {
		ci, rep := x.Lane(c, 0)
		for _, e := range x.trace {
			if e.Class == ci && e.Rank == rep {
				per++
			}
		}
	}
	cut := ""
	if per > 0 && int64(n)*per > MaxLaneEvents {
		n = max(1, int(MaxLaneEvents/per))
		cut = fmt.Sprintf("; cut to %d ranks to stay within %d events", n, MaxLaneEvents)
	}
	for r := 0; r < n; r++ {
		ranks = append(ranks, r)
	}
	note = fmt.Sprintf("ranks 0..%d of %d, one lane per rank and channel (thread = channel×16 + group); each lane replays its symmetry class's simulated timeline%s", n-1, x.s.NRanks, cut)
	return ranks, note, nil
}

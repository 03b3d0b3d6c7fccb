package diagnose

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// CheckCapture puts spec's prediction beside what NCCL did in one capture: the
// system is the capture's own topology dump (spec.NodeFromTopology), the
// release the library's, the environment the one the process ran under.
// Compared: the gate outcomes and capability levels the log proves, the
// graph searches rank 0 printed, the channel summary, the
// threadThresholds line, every cell of the printed tuning table, each
// distinct per-operation line (algorithm, protocol, channel range), each
// distinct registration line (checkRegistrations) and the errors the
// measured operations returned. Pure: the capture is read
// already (hw.ReadCapture).
func CheckCapture(c *conformance.Capture, cache *spec.Cache) (*conformance.CheckReport, error) {
	rep := &conformance.CheckReport{Config: c.Config.Name, Dir: c.Dir}
	if c.Result == nil {
		return nil, fmt.Errorf("%s: no results.json: the run died before writing it", c.Dir)
	}
	if len(c.Topo) == 0 {
		return nil, fmt.Errorf("%s: no %s: run the capture with NCCL_TOPO_DUMP_FILE", c.Dir, conformance.CaptureTopo)
	}
	rel := c.Result.Release
	if rel == 0 {
		rel = c.Result.Version
	}
	rs, err := spec.Load(rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Dir, err)
	}
	rep.Release = rel
	sys, err := spec.SystemFromTopology(c.Dir+"/"+conformance.CaptureTopo, c.Topo, 1)
	if err != nil {
		return nil, err
	}
	if n := len(sys.Nodes[0].GPUs); n != c.Result.NRanks {
		return nil, fmt.Errorf("%s: the topology dump has %d GPUs, the run %d ranks: expected one process group on one host", c.Dir, n, c.Result.NRanks)
	}
	var logs bytes.Buffer
	for _, name := range c.LogNames() {
		logs.Write(c.Logs[name])
	}
	l, err := ncclog.Parse(&logs, c.Dir)
	var ie *ncclog.InputError
	switch {
	case errors.As(err, &ie) || errors.Is(err, ncclog.ErrNoNCCL):
		// an empty or foreign log is missing evidence, not bad input
		rep.NotComparable = append(rep.NotComparable, "the log is unusable: "+err.Error())
		l = ncclog.NewParser().Finish()
	case err != nil:
		return nil, err
	}

	// gatesim hw run drives every GPU from one process, under mpirun one
	// each: the log says which (G-PROC-1)
	rep.Env = conformance.NCCLEnv(c.Result.Env)
	comm, err := cache.Init(rs, procsOf(l, sys), rep.Env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Dir, err)
	}

	// init error
	obsErr := "none"
	if c.Result.InitErr != nil {
		obsErr = c.Result.InitErr.Result.String()
	}
	predErr := "none"
	if comm.Err != nil {
		predErr = comm.Err.Result.String()
	}
	rep.Add("init", "communicator init error", predErr, obsErr)
	if comm.Err != nil || c.Result.InitErr != nil {
		return rep, nil
	}

	// gate outcomes and capability levels the log proves (diagnose's
	// comparison: a gate the log says nothing about is not counted)
	cmp := Compare(&Prediction{Trace: comm.Trace}, Diagnose(l, Options{}).Obs)
	var gates conformance.Tally
	var bad []string
	for _, g := range cmp.Gates {
		switch g.Agreement {
		case Agree, Consistent:
			gates.Total++
			gates.Agree++
		case Differ:
			gates.Total++
			bad = append(bad, fmt.Sprintf("%s predicted %s, log %s (%s)", g.Rule, g.Predicted, g.Observed, g.At))
		}
	}
	for _, c := range cmp.Caps {
		switch c.Agreement {
		case Agree:
			gates.Total++
			gates.Agree++
		case Differ:
			gates.Total++
			bad = append(bad, fmt.Sprintf("%s predicted %s, log %s", c.Cap, c.Predicted, c.Observed))
		}
	}
	rep.Gates = gates
	rep.AddTally("gates", "gate outcomes and capability levels in the log", gates, strings.Join(bad, "; "))

	// graphs rank 0 searched (before the ranks agree)
	nr := &comm.Topo.Nodes[0]
	pg := nr.Graphs()
	for _, g := range []struct {
		name    string
		idx     topo.GraphIndex
		pattern int
	}{{"ring graph", topo.GraphRing, 4}, {"tree graph", topo.GraphTree, 1}, {"NVLS graph", topo.GraphNVLS, 5}} {
		obs := "not searched"
		pattern := g.pattern
		if nr.Searched[g.idx] {
			pattern = int(pg[g.idx].Pattern) // a one-GPU node searches the tree as pattern 3
		}
		for _, gl := range l.Graphs {
			if gl.Pattern == pattern {
				obs = fmt.Sprintf("nChannels %d, bw %.1f/%.1f, type %s/%s, sameChannels %d, crossNic %d",
					gl.NChannels, gl.BwIntra, gl.BwInter, gl.TypeIntra, gl.TypeInter, gl.SameChannels, gl.CrossNic)
				break
			}
		}
		pred := "not searched"
		if nr.Searched[g.idx] {
			x := pg[g.idx]
			same := 0
			if x.SameChannels {
				same = 1
			}
			pred = fmt.Sprintf("nChannels %d, bw %.1f/%.1f, type %s/%s, sameChannels %d, crossNic %d",
				x.NChannels, x.BwIntra, x.BwInter, x.TypeIntra, x.TypeInter, same, x.CrossNic)
		}
		rep.Add("graph", g.name, pred, obs)
	}

	// channel summary and thread thresholds
	obs := "not printed"
	if len(l.Channels) > 0 {
		obs = l.Channels[0].Line()
	}
	rep.Add("channels", "channel summary", comm.Topo.Summary, obs)
	obs = "not printed"
	if s, ok := l.First(ncclog.KindThreadThresholds); ok {
		obs = strings.TrimSpace(s.Msg)
	}
	// a one-rank communicator prints no thresholds, as the model says ("")
	pred := comm.Model.ThreadThresholdsLine()
	if pred == "" {
		pred = "not printed"
	}
	rep.Add("model", "threadThresholds", pred, obs)

	// the tuning table, cell by cell at the printed precision
	if len(l.Tables) > 0 {
		t := &l.Tables[0]
		m := comm.Model
		var bad []string
		for f := range spec.NumFuncs {
			for _, a := range t.Algos {
				for p := range spec.NumProtos {
					cell, ok := t.Cell(spec.Func(f), a, spec.Proto(p))
					if !ok || !cell.Set {
						continue
					}
					rep.Table.Total++
					po := fmt.Sprintf("%.1f/%.1f", m.Latencies[f][a][p], m.Bandwidths[f][a][p])
					oo := fmt.Sprintf("%.1f/%.1f", cell.Lat, cell.Bw)
					if po == oo {
						rep.Table.Agree++
					} else if len(bad) < 8 {
						bad = append(bad, fmt.Sprintf("%s/%s/%s %s≠%s", spec.Func(f), a, spec.Proto(p), po, oo))
					}
				}
			}
		}
		rep.AddTally("model", "tuning table cells", rep.Table, strings.Join(bad, "; "))
	}

	// per-operation lines
	dtypes := map[spec.Func]spec.DataType{}
	for _, r := range c.Result.Rows {
		if _, ok := dtypes[r.Func]; !ok {
			if dt, err := spec.ParseDataType(r.TypeS); err == nil {
				dtypes[r.Func] = dt
			}
		}
	}
	ops := LoggedOps(l, dtypes)
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].Op.Func != ops[j].Op.Func {
			return ops[i].Op.Func < ops[j].Op.Func
		}
		return ops[i].Line.Bytes < ops[j].Line.Bytes
	})
	// Each logged line is one operation of a group of Agg copies of its
	// size (a graph capture registers the buffers): it agrees when one of
	// the group's operations prints it.
	launch := conformance.CaptureLaunch(c.Result)
	bufs, alloc, err := conformance.CaptureBuffers(c.Result)
	if err != nil {
		return nil, fmt.Errorf("%s: results.json: %w", c.Dir, err)
	}
	for _, lo := range ops {
		o := lo.Line
		g, err := comm.SelectGroup([]spec.GroupOp{{Op: lo.Op, Buffers: bufs, Alloc: alloc}}, launch)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %d bytes: %w", c.Dir, o.Func, o.Bytes, err)
		}
		obs := OpString(o.Algo, o.Proto, o.ChannelLo, o.ChannelHi, o.ChannelLo >= 0)
		found, preds := matchPredictions(g.Ops, obs, func(d *spec.Decision) string {
			return OpString(d.Algo, d.Proto, d.ChannelLo, d.ChannelHi, o.ChannelLo >= 0)
		})
		rep.Ops.Total++
		if found {
			rep.Ops.Agree++
			continue
		}
		rep.Add("op", fmt.Sprintf("%s %s", o.Func, spec.FormatBytes(o.Bytes)), strings.Join(preds, " | "), obs)
	}
	// [Symmetric] lines: the kernel predicted for the line's group
	// (symLaunch) on window buffers, filling the same channels
	var uneven []string
	for _, so := range LoggedSymOps(l, dtypes) {
		o := so.Line
		obs := SymString(o.Kernel, o.NChannels)
		if !so.Even {
			uneven = append(uneven, fmt.Sprintf("%s [Symmetric] %d bytes over %d tasks name no one task's size: not comparable", o.Func, o.Bytes, o.NWorks))
			continue
		}
		g, err := comm.SelectGroup([]spec.GroupOp{{Op: so.Op, Buffers: spec.BuffersWindow}}, symLaunch(launch, o))
		if err != nil {
			return nil, fmt.Errorf("%s: %s [Symmetric] %d bytes: %w", c.Dir, o.Func, o.Bytes, err)
		}
		found, preds := matchPredictions(g.Ops, obs, func(d *spec.Decision) string {
			if d.Kernel != "" {
				return SymString(d.Kernel, d.SymChannels)
			}
			return OpString(d.Algo, d.Proto, d.ChannelLo, d.ChannelHi, true)
		})
		rep.Ops.Total++
		if found {
			rep.Ops.Agree++
			continue
		}
		rep.Add("op", fmt.Sprintf("%s [Symmetric] %s", o.Func, spec.FormatBytes(so.Op.Bytes())), strings.Join(preds, " | "), obs)
	}
	rep.AddTally("op", "per-operation lines", rep.Ops, strings.Join(uneven, "; "))
	if err := checkRegistrations(rep, l, c, comm, launch, bufs, alloc); err != nil {
		return nil, err
	}

	// operations that returned an error
	refused := 0
	for _, r := range c.Result.Rows {
		if r.Err == nil {
			continue
		}
		dt, err := spec.ParseDataType(r.TypeS)
		if err != nil {
			continue
		}
		op := spec.Op{Func: r.Func, Count: int64(r.Count), DataType: dt, RedOp: spec.Sum}
		d, _, err := comm.Select(op)
		if err != nil {
			continue
		}
		pred := "ok"
		if d.Err != nil {
			pred = d.Err.Result.String()
		}
		rep.Add("op", fmt.Sprintf("%s %s returns", r.Coll, spec.FormatBytes(int64(r.Size))), pred, r.Err.Result.String())
		refused++
	}
	// Agreement needs evidence: a cut log or a capture without its graph
	// dump compares nothing and must not read as "agree".
	if len(l.Versions) == 0 {
		rep.NotComparable = append(rep.NotComparable, "the log has no \"NCCL version\" line: empty, cut, or not NCCL_DEBUG=INFO")
	}
	oneRank := comm.Model != nil && comm.Model.SingleRank
	switch {
	case oneRank && (len(l.Tables) == 0 || rep.Table.Total == 0):
		rep.NotComparable = append(rep.NotComparable, "a communicator of one rank: NCCL prints no tuning table")
	case len(l.Tables) == 0 || rep.Table.Total == 0:
		rep.NotComparable = append(rep.NotComparable, "the log has no tuning table (NCCL_DEBUG_SUBSYS=TUNING): the log is cut or the subsystem is off")
	}
	if len(l.Channels) == 0 {
		rep.NotComparable = append(rep.NotComparable, "the log has no channel summary: the log is cut before init completed")
	}
	if rep.Ops.Total == 0 && refused == 0 && oneRank {
		rep.NotComparable = append(rep.NotComparable, "a communicator of one rank: NCCL runs no algorithm and prints no per-operation line")
	} else if rep.Ops.Total == 0 && refused == 0 {
		rep.NotComparable = append(rep.NotComparable, "no operation to compare: no per-operation line in the log and no refused operation in results.json")
	}
	if len(c.Graph) == 0 {
		rep.NotComparable = append(rep.NotComparable, "no "+conformance.CaptureGraph+": run the capture with NCCL_GRAPH_DUMP_FILE")
	}
	return rep, nil
}

// CheckCaptures checks each capture (CheckCapture), sharing one
// communicator cache.
func CheckCaptures(caps []*conformance.Capture) ([]*conformance.CheckReport, error) {
	cache := spec.NewCache(0)
	var reps []*conformance.CheckReport
	for _, cp := range caps {
		rep, err := CheckCapture(cp, cache)
		if err != nil {
			return nil, err
		}
		reps = append(reps, rep)
	}
	return reps, nil
}

// SymString is a symmetric kernel's choice as a [Symmetric] line states
// it: the kernel and its nchannels (2.28.3+: the channels its plan fills).
func SymString(kernel string, nChannels int) string {
	return fmt.Sprintf("kernel %s nchannels %d", kernel, nChannels)
}

// OpString is how a per-operation choice reads in a check: Algo/Proto,
// and its channel range when the log printed one.
func OpString(a spec.Algo, p spec.Proto, lo, hi int, withRange bool) string {
	s := a.String() + "/" + p.String()
	if withRange {
		s += " channels " + spec.ChannelRange(lo, hi)
	}
	return s
}

// matchPredictions says whether one of a group's predictions, each written
// by show (an error as "error <result>"), reads as the logged obs, and
// lists them without repeats in a row for the report.
func matchPredictions(ops []*spec.Decision, obs string, show func(*spec.Decision) string) (bool, []string) {
	var preds []string
	found := false
	for _, d := range ops {
		pred := "error "
		if d.Err != nil {
			pred += d.Err.Result.String()
		} else {
			pred = show(d)
		}
		found = found || pred == obs
		if len(preds) == 0 || preds[len(preds)-1] != pred {
			preds = append(preds, pred)
		}
	}
	return found, preds
}

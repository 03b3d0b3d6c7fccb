// Package explain walks NCCL's gates for one operation under one or more
// releases and writes what gatesim explain, demo, sim and group print of
// it: the decision in a line, the summary (the gate that settled it, the
// network, how far each offload got), the cost table, every gate verdict,
// the releases side by side, a group's plans and what a tuner plugin did.
// It also lays out spec's other reports: the tuning table rank 0 logs and
// its difference between releases (gatesim table), the rules and their
// deltas (gatesim rules), and a call script's results (gatesim group).
// The walk itself is spec's (Init, Select, SelectGroup, Summarize); this
// package only builds and lays out the reports.
package explain

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
	"github.com/gatesim/gatesim/tuner"
)

// Walk is one release's walk.
type Walk struct {
	Release  string         `json:"nccl"`
	Decision *spec.Decision `json:"decision"`
	Trace    spec.Trace     `json:"trace"`
	// Tuner is what a --tuner plugin did over the communicator's life.
	Tuner *tuner.Report `json:"tuner,omitempty"`
	// Group is every operation's decision when the operation is issued in
	// a group, a CUDA graph or with registered buffers (Decision is then
	// the first operation's).
	Group *spec.GroupDecision `json:"group,omitempty"`
	// Invalid says why this release refuses the request as input (no
	// decision, no trace); the other releases listed are still walked.
	Invalid string `json:"invalid,omitempty"`
	comm    *spec.Comm
	version spec.Version
	env     spec.Env
}

// Comm is the communicator the walk built.
func (r *Walk) Comm() *spec.Comm { return r.comm }

// Version is the walk's release.
func (r *Walk) Version() spec.Version { return r.version }

// TextOptions shape the text report: Full prints every gate verdict
// (Verbose with facts and sources), Width folds it.
type TextOptions struct {
	Full, Verbose bool
	Width         int
}

// WriteText prints the report of explain: the operation and machine, each
// release's summary, then one release's cost table and gates, or the
// releases side by side.
func WriteText(w io.Writer, sys *spec.System, env spec.Env, op spec.Op, runs []Walk, o TextOptions) error {
	width := o.Width
	cfg := ""
	if sys.CommConfig.Len() > 0 {
		cfg = "; config: " + sys.CommConfig.String()
	}
	fmt.Fprintln(w, texttable.Wrap(fmt.Sprintf("%s %s (%d × %s, %s, root %d) on %s (%d node(s), %d rank(s)); env: %s%s", op.Func, spec.FormatBytes(op.Bytes()),
		op.Count, op.DataType, op.RedOp.Short(), op.Root, sys.Name, sys.NNodes(), sys.NRanks(), env.Line(), cfg), width, "  "))
	for _, r := range runs {
		if r.Invalid != "" {
			fmt.Fprintln(w, texttable.Wrap(fmt.Sprintf("NCCL %s: invalid: %s", r.Release, r.Invalid), width, "  "))
			continue
		}
		WriteSummary(w, spec.Summarize(r.Decision, r.Trace, r.env), width)
		WriteTunerEffect(w, r.Tuner, r.Decision)
	}
	// the releases that refuse the request have nothing to lay out
	runs = Valid(runs)
	if len(runs) == 1 {
		fmt.Fprintln(w)
		WriteCosts(w, runs[0].Decision)
		if runs[0].Group != nil {
			if err := WriteGroup(w, runs[0].Group); err != nil {
				return err
			}
		}
		if !o.Full {
			fmt.Fprintf(w, "\n(%d gate verdicts: --full prints them)\n", len(runs[0].Trace))
			return nil
		}
		fmt.Fprintln(w)
		return WriteTrace(w, runs[0], o.Verbose, width)
	}
	fmt.Fprintln(w)
	if err := WriteSideBySide(w, runs, o.Full, width); err != nil {
		return err
	}
	for _, r := range runs {
		if r.Group != nil {
			fmt.Fprintf(w, "\nNCCL %s:", r.Release)
			if err := WriteGroup(w, r.Group); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteSummary prints one release's decision in a few lines, folded at
// width.
func WriteSummary(w io.Writer, s spec.Summary, width int) {
	d := s.Decision
	lines := []string{fmt.Sprintf("NCCL %s: %s", d.Release, DecisionLine(d))}
	if s.DecidedBy.Rule != "" {
		lines = append(lines, fmt.Sprintf("  decided by %s: %s", s.DecidedBy.Rule, strings.TrimSpace(s.DecidedBy.WhyText())))
	}
	if d.Undecided != "" {
		lines = append(lines, "  needs the tuning model: "+d.Undecided)
	}
	if d.Chunk.Set() {
		// on the decision's line: the summary stays within its line budget
		c := d.Chunk
		if c.Mid == 0 && c.Hi == 0 || c.Mid == c.Lo && c.Hi == c.Lo {
			lines[0] += fmt.Sprintf("; chunk %d B [G-SEL-CHUNK-1]", c.Lo)
		} else {
			lines[0] += fmt.Sprintf("; chunk lo/mid/hi %d/%d/%d B [G-SEL-CHUNK-1]", c.Lo, c.Mid, c.Hi)
		}
		if p := c.Proxy; p.Reg {
			lines[0] += fmt.Sprintf("; registered proxy op: %d step(s) [G-REG-PROXY-1]", p.NSteps)
			if p.NetSteps > 0 {
				lines[0] += fmt.Sprintf(", %d plugin collective(s) of at most %d B [G-REG-COLLNET-SPLIT-1]", p.NetSteps, p.MaxCollBytes)
			}
		}
	}
	if s.Network != "" {
		lines = append(lines, fmt.Sprintf("  network: %s; within a node: %s", s.Network, d.Transport))
	}
	for _, p := range s.Plugins {
		lines = append(lines, fmt.Sprintf("  %s: %s at %s: %s", p.Name, p.Verdict.Outcome, p.Verdict.Rule, strings.TrimSpace(p.Verdict.WhyText())))
	}
	// the selected offloads share a line; one that init set up but the
	// operation did not choose says both on its own, then the stopped ones
	var selected []string
	for _, c := range s.Offloads {
		if c.Stopped == nil && c.Level >= spec.LevelSelected {
			selected = append(selected, c.String())
		}
	}
	if len(selected) > 0 {
		lines = append(lines, "  "+strings.Join(selected, "; "))
	}
	for _, stopped := range []bool{false, true} {
		for _, c := range s.Offloads {
			if (c.Stopped != nil) == stopped && (stopped || c.Level < spec.LevelSelected) {
				lines = append(lines, "  "+c.String())
			}
		}
	}
	for _, ch := range s.Changes {
		lines = append(lines, "  would change it: "+ch)
	}
	for _, l := range lines {
		indent := "    "
		if !strings.HasPrefix(l, " ") {
			indent = "  "
		}
		fmt.Fprintln(w, texttable.Wrap(l, width, indent))
	}
}

// One walks op under release v: the communicator, through the tuner
// plugin when lib is not nil, and the decision.
func One(v spec.Version, sys *spec.System, env spec.Env, op spec.Op, lib *tuner.Library) (Walk, error) {
	rs, err := spec.Load(v)
	if err != nil {
		return Walk{}, err
	}
	comm, dec, trace, rep, err := Decide(lib, rs, sys, env, op)
	if err != nil {
		return Walk{}, err
	}
	return Walk{Release: v.String(), Decision: dec, Trace: trace, Tuner: rep, comm: comm, version: v, env: env}, nil
}

// Decide builds the communicator and decides op, through the tuner
// plugin when lib is not nil.
func Decide(lib *tuner.Library, rs *spec.Ruleset, sys *spec.System, env spec.Env, op spec.Op) (*spec.Comm, *spec.Decision, spec.Trace, *tuner.Report, error) {
	if lib == nil {
		comm, err := spec.Init(rs, sys, env)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		d, tr, err := comm.Select(op)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return comm, d, tr.Trace(), nil, nil
	}
	s, err := lib.Attach(spec.Init, rs, sys, env)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	d, tr, err := s.Select(op)
	s.Close()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return s.Comm, d, tr.Trace(), s.Report, nil
}

func WriteTrace(w io.Writer, e Walk, verbose bool, width int) error {
	header := []string{"layer", "rule", "verdict", "why", "NCCL log"}
	if verbose {
		header = append(header, "facts", "source")
	}
	var rows [][]string
	for _, v := range e.Trace {
		rule := string(v.Rule)
		if v.Scope != "" && v.Scope != "op" {
			rule += " (" + v.Scope + ")"
		}
		row := []string{v.Layer.String(), rule, v.Outcome.String(), v.WhyText(), strings.Join(v.Log, "\n")}
		if verbose {
			var fs []string
			for _, f := range v.Facts {
				fs = append(fs, f.String())
			}
			row = append(row, strings.Join(fs, " "), v.RefText())
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(w, "gates of NCCL %s\n", e.Release)
	// layer, rule and verdict take about 47 columns with their borders; the
	// free-text columns (3 columns of border and padding each) share the rest
	n := len(header) - 3
	return texttable.Write(w, header, texttable.BreakWords(rows, max(16, (width-47-3*n)/n)), max(16, (width-47-3*n)/n))
}

// WriteCosts prints the operation's cost table, one row per algorithm: the
// time of each protocol or why it cannot be chosen, the winner marked.
func WriteCosts(w io.Writer, d *spec.Decision) {
	costs := d.CostTable()
	if len(costs) == 0 {
		return
	}
	fmt.Fprintf(w, "  cost table for %s of %s (µs; * marks the choice):\n", d.Op.Func, spec.FormatBytes(d.Op.Bytes()))
	var rows [][]string
	row := map[spec.Algo]int{}
	var why []string
	for _, c := range costs {
		i, ok := row[c.Algo]
		if !ok {
			i = len(rows)
			row[c.Algo] = i
			rows = append(rows, []string{c.Algo.String(), "", "", ""})
		}
		cell := "-"
		switch {
		case c.Usable:
			cell = fmt.Sprintf("%.2f", c.TimeUs)
			if c.Algo == d.Algo && c.Proto == d.Proto {
				cell = "*" + cell
			}
		case c.Rule != "":
			cell = "— " + string(c.Rule)
		}
		rows[i][1+int(c.Proto)] = cell
		if !c.Usable && c.Why != "" && c.Proto == spec.Simple {
			why = append(why, fmt.Sprintf("%s: %s", c.Algo, c.Why))
		}
	}
	_ = texttable.Write(w, []string{"algorithm", "LL", "LL128", "Simple"}, rows, 40)
	for _, s := range why {
		fmt.Fprintf(w, "    %s\n", s)
	}
}

// WriteP2PTasks prints rank 0's send/recv tasks of the operations that
// have them (G-SCHED-P2P-1, G-SCHED-P2P-2, G-REG-P2P-1): peer, direction,
// bytes, protocol, round, channels in part order, plan and registration.
func WriteP2PTasks(w io.Writer, ops []*spec.Decision) error {
	var rows [][]string
	for i, d := range ops {
		if d == nil || d.P2P == nil {
			continue
		}
		for _, t := range d.P2P.Tasks {
			rows = append(rows, []string{strconv.Itoa(i), t.Dir, strconv.Itoa(t.Peer), spec.FormatBytes(t.Bytes), t.Proto.String(), strconv.Itoa(t.Round),
				strconv.Itoa(t.NChannels), spec.FormatP2PChannels(t.Channels), strconv.Itoa(t.Plan), t.Registered})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nsend/recv tasks of rank 0 (round: of comm->p2pSchedule, -1 before 2.22.3)")
	return texttable.Write(w, []string{"op", "dir", "peer", "bytes", "proto", "round", "nchannels", "channels", "plan", "registered"}, rows, 60)
}

// DecisionLine is the one-line outcome: "Ring/Simple", "Ring (protocol
// needs the tuning model)", "ncclInvalidUsage: ...".
func DecisionLine(d *spec.Decision) string {
	switch {
	case d.Discarded:
		return "discarded (count 0: nothing runs)"
	case d.Err != nil:
		return "error " + d.Err.String()
	case d.P2P != nil && len(d.P2P.Tasks) > 0:
		n, lo, hi := d.P2P.P2PHull()
		return fmt.Sprintf("p2p path (no cost table): %d send/recv task(s) of rank 0 %s on %d of %d p2p channels (%s), up to %d per peer",
			len(d.P2P.Tasks), spec.PlanPhrase(d.Plan), n, d.P2P.NChannels, spec.ChannelRange(lo, hi), d.P2P.NChannelsPerPeer)
	case d.P2P != nil:
		return fmt.Sprintf("p2p path (no cost table): %d p2p channels, up to %d per peer", d.P2P.NChannels, d.P2P.NChannelsPerPeer)
	case d.Kernel == "copy-engine":
		return "copy-engine collective (no cost table, no channel)"
	case d.Kernel == "hierarchical-ce":
		return "hierarchical copy-engine collective: CE inside each LSA team, the RMA proxy between teams (no cost table, no channel)"
	case d.RMA != nil:
		return d.RMA.String()
	case d.DevComm != nil:
		return "device communicator (ncclDevCommCreate; no kernel): " + d.DevComm.Cell()
	case d.DevCommRelease != nil:
		return "ncclDevCommDestroy (at its call; no kernel): " + d.DevCommRelease.Cell()
	case d.Kernel != "":
		return fmt.Sprintf("symmetric kernel %s (no cost table): channels %s of %d blocks, nthreads %d, at most %s per block (est. %.1f µs)", d.Kernel, spec.ChannelRange(d.ChannelLo, d.ChannelHi), d.NChannels, d.NThreads, spec.FormatBytes(d.CTABytes), d.TimeUs)
	case d.Algo != spec.AlgoNone && d.Proto != spec.ProtoNone:
		s := d.Algo.String() + "/" + d.Proto.String()
		if d.NChannels > 0 {
			s += fmt.Sprintf(" channels %s nthreads %d (est. %.1f µs)", spec.ChannelRange(d.ChannelLo, d.ChannelHi), d.NThreads, d.TimeUs)
		}
		if d.Fallback {
			s += " (fallback)"
		}
		return s
	case d.Algo != spec.AlgoNone:
		s := d.Algo.String() + " (protocol: tuning model)"
		if d.Fallback {
			s += " (fallback)"
		}
		return s
	default:
		var c []string
		for _, ap := range d.Candidates {
			c = append(c, ap.String())
		}
		return "one of " + strings.Join(c, " ") + " (tuning model)"
	}
}

// WriteSideBySide prints one row per rule with a column per release; rules
// a release does not have show "—". Unless full, only the rules whose
// verdicts differ between the releases are printed.
func WriteSideBySide(w io.Writer, runs []Walk, full bool, width int) error {
	type key struct {
		rule  spec.RuleID
		scope string
	}
	var order []key
	seen := map[key]bool{}
	cells := make([]map[key][]spec.Verdict, len(runs))
	for i, r := range runs {
		cells[i] = map[key][]spec.Verdict{}
		var prev *key
		for _, v := range r.Trace {
			k := key{v.Rule, v.Scope}
			cells[i][k] = append(cells[i][k], v)
			if !seen[k] {
				seen[k] = true
				// insert after the previous rule of this release
				pos := len(order)
				if prev != nil {
					for j, o := range order {
						if o == *prev {
							pos = j + 1
						}
					}
				}
				order = append(order[:pos], append([]key{k}, order[pos:]...)...)
			}
			kk := k
			prev = &kk
		}
	}
	header := []string{"layer", "rule"}
	for _, r := range runs {
		header = append(header, "NCCL "+r.Release)
	}
	var rows [][]string
	for _, k := range order {
		layer := ""
		row := []string{"", string(k.rule)}
		if k.scope != "" && k.scope != "op" {
			row[1] += " (" + k.scope + ")"
		}
		for i := range runs {
			vs := cells[i][k]
			if len(vs) == 0 {
				row = append(row, "—")
				continue
			}
			layer = vs[0].Layer.String()
			var parts []string
			for _, v := range vs {
				parts = append(parts, v.Outcome.String()+": "+v.WhyText())
			}
			row = append(row, strings.Join(parts, "\n"))
		}
		row[0] = layer
		same := true
		for _, c := range row[3:] {
			same = same && c == row[2]
		}
		if full || !same {
			rows = append(rows, row)
		}
	}
	if !full {
		fmt.Fprintf(w, "the %d of %d rules whose verdicts differ (--full prints them all):\n", len(rows), len(order))
	}
	cell := max(16, (width-34-3*len(runs))/len(runs))
	return texttable.Write(w, header, texttable.BreakWords(rows, cell), cell)
}

// WriteGroup prints each operation's plan in a group.
func WriteGroup(w io.Writer, g *spec.GroupDecision) (err error) {
	rows := groupRows(g)
	defer func() {
		if err == nil {
			err = WriteP2PTasks(w, g.Ops)
		}
	}()
	if len(g.Ops) == 1 {
		// alone (captured, on registered or window buffers): no group's member
		fmt.Fprintf(w, "\nthe operation's plan: launch %s, %d kernel plan(s)\n", g.Launch.Mode, g.Plans)
	} else {
		fmt.Fprintf(w, "\ngroup of %d operation(s), launch %s, %d kernel plan(s)\n", len(g.Ops), g.Launch.Mode, g.Plans)
	}
	for _, u := range g.Budget {
		p2p := ""
		if u.P2PWorks > 0 {
			p2p = fmt.Sprintf(" and %d send/recv work(s)", u.P2PWorks)
		}
		fmt.Fprintf(w, "  plan %d: %d collective(s)%s, %d work bytes in %s, %d work batches, %d bytes of kernel arguments (budget: %d bytes in the arguments, %d outside)\n",
			u.Plan, u.Works, p2p, u.WorkBytes, u.Storage, u.Batches, u.ArgsBytes, u.InArgs, u.OutArgs)
		for _, sh := range u.Shares {
			kind, cap := "Ring/Tree/PAT", "nChannels"
			if sh.NVLS {
				kind, cap = "NVLS", "nvlsChannels"
			}
			fmt.Fprintf(w, "    its %s tasks share %d channel(s), min(Σ nMaxCh %d, %s %d), %d traffic bytes per channel: that bounds their channel ranges, not a task's own nMaxCh\n",
				kind, sh.Channels, sh.SumMaxCh, cap, sh.Cap, sh.TrafficPerChannel)
		}
	}
	header := []string{"op", "coll", "size", "algo/proto or kernel", "channels", "nMaxCh", "nThreads", "note"}
	if len(rows) > groupSummaryOps {
		fmt.Fprintf(w, "  (%d operations: consecutive ones that differ only in their channels are one row, their channel ranges in call order, N×lo..hi for N operations in a row on lo..hi; --json lists each)\n", len(rows))
		rows = collapseOps(rows)
	}
	return texttable.Write(w, header, rows, 60)
}

// groupRows is WriteGroup's row of each operation: op, coll, size,
// algo/proto or kernel, channels, nMaxCh, nThreads, note.
func groupRows(g *spec.GroupDecision) [][]string {
	var rows [][]string
	for i, d := range g.Ops {
		row := []string{strconv.Itoa(i), d.Op.Func.String(), spec.FormatBytes(d.Op.Bytes())}
		switch {
		case d.Err != nil:
			row = append(row, "error", "", "", "", d.Err.String())
		case d.Discarded:
			row = append(row, "-", "", "", "", "discarded (count 0)")
		default:
			note := ""
			if i < len(g.Choices) {
				ch := g.Choices[i]
				if len(ch.Aggregate) > 1 {
					note = fmt.Sprintf("aggregate of %d (%s)", len(ch.Aggregate), spec.FormatBytes(ch.NBytes))
				}
				if ch.Registered != "" {
					if note != "" {
						note += "; "
					}
					note += "registered over " + ch.Registered
				}
				if ch.WorkStorage != "" && len(g.Budget) > 1 {
					if note != "" {
						note += "; "
					}
					note += fmt.Sprintf("plan %d", ch.Plan)
				}
				if ch.Kernel != "" && ch.Err == nil {
					if note != "" {
						note += "; "
					}
					note += fmt.Sprintf("plan %d (%d ops), at most %s per block", ch.Plan, ch.Works, spec.FormatBytes(ch.CTABytes))
					if len(ch.SymParts) > 1 || (len(ch.SymParts) == 1 && ch.SymParts[0].Missing > 0) {
						note += "; " + tuning.FormatSymParts(ch.SymParts)
					}
				}
			}
			ap := d.Algo.String() + "/" + d.Proto.String()
			if d.Kernel != "" {
				ap = d.Kernel
			}
			lo, hi, nc := d.ChannelLo, d.ChannelHi, d.NChannels
			if d.P2P != nil && len(d.P2P.Tasks) > 0 {
				ap, note = "p2p (send/recv tasks)", fmt.Sprintf("%d task(s), plan %d", len(d.P2P.Tasks), d.Plan)
				nc, lo, hi = d.P2P.P2PHull()
			}
			row = append(row, ap, spec.ChannelRange(lo, hi), strconv.Itoa(nc), strconv.Itoa(d.NThreads), note)
		}
		rows = append(rows, row)
	}
	return rows
}

// groupSummaryOps is the largest group WriteGroup prints an operation a
// row; a larger one (nccl-tests -m up to 4096) is summarized by
// collapseOps, so that its report stays a few KB.
const groupSummaryOps = 64

// collapseOps folds WriteGroup's rows (op, coll, size, algo/proto,
// channels, nMaxCh, nThreads, note) of consecutive operations equal but
// for their channels into one: ops "a..b", and the channel ranges in call
// order, a run of n operations on the same range written "n×lo..hi".
// Every difference but the channels splits a row.
func collapseOps(rows [][]string) [][]string {
	same := func(a, b []string) bool {
		for k := range a {
			if k != 0 && k != 4 && a[k] != b[k] {
				return false
			}
		}
		return true
	}
	var out [][]string
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && same(rows[i], rows[j]) {
			j++
		}
		row := slices.Clone(rows[i])
		if j-i > 1 {
			row[0] = rows[i][0] + ".." + rows[j-1][0]
			var chans []string
			for a := i; a < j; {
				b := a + 1
				for b < j && rows[b][4] == rows[a][4] {
					b++
				}
				c := rows[a][4]
				if b-a > 1 {
					c = fmt.Sprintf("%d×%s", b-a, c)
				}
				chans = append(chans, c)
				a = b
			}
			row[4] = strings.Join(chans, ", ")
		}
		out = append(out, row)
		i = j
	}
	return out
}

// WriteTunerEffect prints what the plugin did to one operation: the cost
// table before and after, and the choice without and with it.
func WriteTunerEffect(w io.Writer, rep *tuner.Report, d *spec.Decision) {
	if rep == nil {
		return
	}
	abi := "refused (no accepted ncclTunerPlugin symbol)"
	if rep.ABI > 0 {
		abi = fmt.Sprintf("ncclTunerPlugin_v%d %q", rep.ABI, rep.Name)
	}
	fmt.Fprintf(w, "  tuner plugin %s: exports %v, %s\n", rep.Path, rep.Symbols, abi)
	if rep.ABI > 0 {
		fmt.Fprintf(w, "    init: %s", spec.Result(rep.InitResult))
		if len(rep.Constants) > 0 {
			var cs []string
			for _, c := range rep.Constants {
				cs = append(cs, fmt.Sprintf("%s=%g", c.Path, c.Value))
			}
			fmt.Fprintf(w, "; constants edited: %s", strings.Join(cs, " "))
		}
		fmt.Fprintln(w)
		for _, l := range rep.InitLog {
			fmt.Fprintf(w, "      log: %s\n", l)
		}
	}
	if rep.Fault != "" {
		fmt.Fprintf(w, "    fault (contained): %s\n", rep.Fault)
	}
	e := d.Tuner
	if e == nil {
		fmt.Fprintf(w, "    getCollInfo: not called for this operation\n")
		return
	}
	fmt.Fprintf(w, "    getCollInfo(%s, nBytes %d, numPipeOps %d, %d×%d table): %s", e.Call.Func, e.Call.NBytes, e.Call.NumPipeOps, e.Call.NumAlgo, e.Call.NumProto, spec.Result(e.Answer.Result))
	if e.Answer.NChannels != 0 {
		fmt.Fprintf(w, ", nChannels %d", e.Answer.NChannels)
	}
	if e.Call.ABI == 2 {
		fmt.Fprintf(w, ", v2 answer algorithm %d protocol %d", e.Answer.Algo, e.Answer.Proto)
	}
	fmt.Fprintln(w)
	var rows [][]string
	for a := range e.Call.NumAlgo {
		row := []string{spec.Algo(a).String()}
		for p := range e.Call.NumProto {
			b, x := e.Call.Table[a][p], e.After[a][p]
			cell := tunerCell(b)
			if x != b && !(x != x && b != b) {
				cell += " → " + tunerCell(x)
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	_ = texttable.Write(w, []string{"algorithm", "LL", "LL128", "Simple"}, rows, 40)
	if e.Ignored != "" {
		fmt.Fprintf(w, "    ignored: %s\n", e.Ignored)
	}
	without := e.Without.String()
	if e.WithoutErr != nil {
		without = "error " + e.WithoutErr.String()
	}
	mark := "unchanged"
	if e.Changed(d) {
		mark = "CHANGED by the plugin"
	}
	fmt.Fprintf(w, "    choice without the plugin: %s; with it: %s (%s)\n", without, DecisionLine(d), mark)
	for _, l := range e.Answer.Log {
		fmt.Fprintf(w, "      log: %s\n", l)
	}
}

func tunerCell(v float32) string {
	switch {
	case v == tuning.Ignore:
		return "IGNORE"
	case v != v:
		return "NaN"
	}
	return fmt.Sprintf("%.2f", v)
}

// The design chapter's experiment: a 4 × V100 node with the HPC-X SHARP
// library but no verbs device, asked for SHARP and NVLS in every way a user
// would, under the reference release and the GPU machine's release.
var demoCases = []struct {
	name  string
	env   []string
	bytes string
}{
	{"baseline", nil, "1MiB"},
	{"plugin: missing .so (NCCL_NET_PLUGIN=foo)", []string{"NCCL_NET_PLUGIN=foo"}, "1MiB"},
	{"plugin: .so without NCCL symbols", []string{"NCCL_NET_PLUGIN=" + spec.LibmPath}, "1MiB"},
	{"NCCL_COLLNET_ENABLE=0", []string{"NCCL_COLLNET_ENABLE=0"}, "1MiB"},
	{"NCCL_COLLNET_ENABLE=1", []string{"NCCL_COLLNET_ENABLE=1"}, "1MiB"},
	{"NCCL_COLLNET_ENABLE=true", []string{"NCCL_COLLNET_ENABLE=true"}, "1MiB"},
	{"NCCL_NVLS_ENABLE=0", []string{"NCCL_NVLS_ENABLE=0"}, "1MiB"},
	{"NCCL_NVLS_ENABLE=2 (auto)", []string{"NCCL_NVLS_ENABLE=2"}, "1MiB"},
	{"NCCL_NVLS_ENABLE=1 (forced)", []string{"NCCL_NVLS_ENABLE=1"}, "1MiB"},
	{"NCCL_ALGO=CollNetDirect", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=CollNetDirect"}, "1MiB"},
	{"NCCL_ALGO=CollNetChain", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=CollNetChain"}, "1MiB"},
	{"NCCL_ALGO=NVLS", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=NVLS"}, "1MiB"},
	{"NCCL_ALGO=NVLSTree", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=NVLSTree"}, "1MiB"},
	{"P2P and SHM off, 4 KiB", []string{"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"}, "4KiB"},
	{"P2P and SHM off, 64 MiB", []string{"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"}, "64MiB"},
}

// WriteDemo prints the design chapter's experiment (gatesim demo): every
// gate of one request under both releases side by side, then each case's
// outcome and the gate that decided it.
func WriteDemo(w io.Writer) error {
	sys, err := spec.Preset("v100x4", spec.PresetOptions{})
	if err != nil {
		return err
	}
	releases := []spec.Version{spec.V2_22_3, spec.V2_28_9}
	fmt.Fprintln(w, "gatesim demo: "+spec.PresetDoc("v100x4")+".")
	fmt.Fprintln(w, "A user asks for SHARP (CollNet) and NVLS and forces the algorithm; what does NCCL do?")
	fmt.Fprintln(w)
	env, _ := spec.ParseAssignments([]string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=NVLS"})
	op, _ := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	fmt.Fprintf(w, "1 MiB AllReduce with %s, every gate:\n\n", env)
	var runs []Walk
	for _, v := range releases {
		e, err := One(v, sys, env, op, nil)
		if err != nil {
			return err
		}
		runs = append(runs, e)
	}
	if err := WriteSideBySide(w, runs, true, 120); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range runs {
		WriteSummary(w, spec.Summarize(r.Decision, r.Trace, r.env), 120)
	}
	fmt.Fprintf(w, "\nThe whole experiment (AllReduce, float32 sum), the outcome and the gate that decided it:\n\n")
	var rows [][]string
	for _, dc := range demoCases {
		env, err := spec.ParseAssignments(dc.env)
		if err != nil {
			return err
		}
		n, _ := spec.ParseBytes(dc.bytes)
		op, _ := spec.OpFromBytes(spec.AllReduce, n, spec.Float32, spec.Sum, 0)
		row := []string{dc.name}
		for _, v := range releases {
			e, err := One(v, sys, env, op, nil)
			if err != nil {
				return err
			}
			row = append(row, demoCell(e))
		}
		rows = append(rows, row)
	}
	header := []string{"case"}
	for _, v := range releases {
		header = append(header, "NCCL "+v.String())
	}
	if err := texttable.Write(w, header, rows, 52); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nTry: gatesim explain --nccl 2.22.3,2.28.9 --system v100x4 --env NCCL_ALGO=CollNetDirect --env NCCL_COLLNET_ENABLE=1 --bytes 1MiB")
	return nil
}

// demoCell summarises one release's outcome: the decision, the network and
// the gate that stopped CollNet and NVLS.
func demoCell(e Walk) string {
	d := e.Decision
	by := string(d.DecidedBy)
	if by == "" {
		by = "tuning model"
	}
	lines := []string{DecisionLine(d) + " [" + by + "]", "net " + d.Net + ", local peers via " + d.Transport}
	for _, c := range []spec.Capability{spec.CapNetPlugin, spec.CapCollNet, spec.CapNVLS} {
		if v, ok := e.Trace.Stopper(c); ok {
			lines = append(lines, fmt.Sprintf("%s %s: %s", c, d.Evidence[c], v.Rule))
		}
	}
	return strings.Join(lines, "\n")
}

// DecisionCell is one collective's decision in a table cell.
func DecisionCell(d *spec.Decision) string {
	switch {
	case d == nil:
		return ""
	case d.Err != nil:
		return d.Err.String()
	case d.Discarded:
		return "discarded (count 0)"
	case d.P2P != nil && len(d.P2P.Tasks) > 0:
		if d.Plan < 0 {
			return "p2p " + spec.PlanPhrase(d.Plan)
		}
		return fmt.Sprintf("p2p plan %d: %s", d.Plan, spec.FormatP2PTasks(d.P2P.Tasks, 2))
	case d.RMA != nil:
		return d.RMA.Cell()
	case d.DevComm != nil:
		return d.DevComm.Cell()
	case d.DevCommRelease != nil:
		return d.DevCommRelease.Cell()
	case d.Kernel == "copy-engine" || d.Kernel == "hierarchical-ce":
		return d.Kernel
	case d.Kernel != "":
		return d.Kernel + " channels " + spec.ChannelRange(d.ChannelLo, d.ChannelHi)
	}
	return fmt.Sprintf("%s/%s channels %s", d.Algo, d.Proto, spec.ChannelRange(d.ChannelLo, d.ChannelHi))
}

// Output is explain's --json output.
type Output struct {
	System   string   `json:"system"`
	Env      spec.Env `json:"env"`
	Op       spec.Op  `json:"op"`
	Releases []Walk   `json:"releases"`
}

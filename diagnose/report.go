package diagnose

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// summaryLine is the one-line answer for a capability: level reached and
// why not higher.
func summaryLine(c ncclog.CapEvidence) (level, why string) {
	level = c.Level.String()
	if c.Off != nil {
		level += " (off)"
	}
	switch {
	case c.Off != nil:
		why = "off: " + c.Off.Why
		if c.Off.At.File != "" {
			why += " [" + c.Off.At.String() + "]"
		}
	case len(c.Blocks) > 0:
		b := c.Blocks[0]
		why = "stopped: " + b.Why + " [" + b.At.String() + "]"
		if b.At.File == "" {
			why = "stopped: " + b.Why
		}
	case c.Next != "":
		why = "next: " + c.Next
	default:
		if p, ok := c.Top(); ok {
			why = p.Why
		}
	}
	if c.Next == "" && len(c.Blocks) == 0 && c.Off == nil {
		if p, ok := c.Top(); ok {
			why = p.Why + " [" + p.At.String() + "]"
		}
	}
	return level, why
}

// WriteText prints the human report: a short summary (one line per
// capability), then the details.
func (r *Report) WriteText(w io.Writer) error {
	l := r.Log
	b := &strings.Builder{}
	files := make([]string, len(l.Sources))
	for i, s := range l.Sources {
		files[i] = s.Name
	}
	rel := "NCCL release unknown"
	switch {
	case l.Version != "":
		rel = "NCCL " + l.Version
	case r.Release != 0:
		rel = "NCCL " + r.Release.String() + " (given, not in the log)"
	case r.Assumed != nil:
		rel = "NCCL " + r.Assumed.Assumed.String() + " (assumed, not in the log: see release.assumed)"
	}
	fmt.Fprintf(b, "%s — %d line(s) in %s, %d NCCL line(s)\n", rel, l.Lines, strings.Join(files, ", "), l.NCCLLines)
	fmt.Fprintf(b, "ranks %d, nodes %s, processes %d, network %s\n", l.Ranks(), unknownInt(l.NNodes()), len(l.Procs), unknownStr(l.Network()))
	if shared, at, known := l.SharedProcess(); known {
		fmt.Fprintf(b, "ranks sharing a process (directMode): %s [%s]\n", map[bool]string{true: "yes, predicted as one process per node", false: "no"}[shared], at)
	}
	b.WriteString("\nCapabilities (level reached; why not higher)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, c := range r.Obs.Caps {
		level, why := summaryLine(c)
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Cap, level, why)
	}
	tw.Flush()

	if len(r.Findings) > 0 {
		b.WriteString("\nFindings\n")
		for i, f := range r.Findings {
			fmt.Fprintf(b, "%2d. [%s] %s", i+1, f.Severity, f.ID)
			if f.Rule != "" {
				fmt.Fprintf(b, " (%s)", f.Rule)
			}
			fmt.Fprintf(b, ": %s\n", f.Title)
			if f.Cap != "" {
				fmt.Fprintf(b, "    %s reached %s\n", f.Cap, f.Level)
			}
			for _, e := range f.Evidence {
				writeEvidence(b, e)
			}
			if f.Missing != "" {
				fmt.Fprintf(b, "    missing for the next level: %s\n", f.Missing)
			}
			for _, c := range f.Check {
				fmt.Fprintf(b, "    check: %s\n", c)
			}
		}
	}

	header := false
	for _, c := range r.Obs.Caps {
		if len(c.Proofs) == 0 && len(c.Blocks) == 0 && c.Off == nil {
			continue
		}
		if !header {
			b.WriteString("\nEvidence per capability\n")
			header = true
		}
		fmt.Fprintf(b, "  %s: %s\n", c.Cap, c.Level)
		for _, p := range c.Proofs {
			fmt.Fprintf(b, "    + %-10s %-18s %s: %s\n", p.Level, p.Rule, locOr(p.At), p.Why)
		}
		if c.Off != nil {
			fmt.Fprintf(b, "    - %-10s %-18s %s: %s\n", "off", c.Off.Rule, locOr(c.Off.At), c.Off.Why)
		}
		for _, p := range c.Blocks {
			fmt.Fprintf(b, "    - %-10s %-18s %s: %s\n", p.Level, p.Rule, locOr(p.At), p.Why)
		}
	}

	if len(l.Ops) > 0 || len(l.NoAlgo) > 0 {
		b.WriteString("\nOperations (per-operation lines, distinct)\n")
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  coll\tbytes\talgo\tproto\tchannels\tcount\tat\n")
		for _, op := range limitOps(l.Ops, 40) {
			coll := "?"
			if op.FuncKnown {
				coll = op.Func.String()
			}
			ch := "-"
			if op.ChannelLo >= 0 {
				ch = spec.ChannelRange(op.ChannelLo, op.ChannelHi)
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%d\t%s\n", coll, op.Bytes, op.Algo.LogName(), op.Proto.LogName(), ch, op.Count, op.First.At)
		}
		for _, na := range l.NoAlgo {
			fmt.Fprintf(tw, "  %s\t-\terror\t-\t-\t%d\t%s\n", unknownStr(na.Func), na.Count, na.First.At)
		}
		tw.Flush()
		if len(l.Ops) > 40 {
			fmt.Fprintf(b, "  ... %d more distinct operation lines\n", len(l.Ops)-40)
		}
	}

	for i, t := range l.Tables {
		if i == 2 {
			fmt.Fprintf(b, "  ... %d more tables\n", len(l.Tables)-2)
			break
		}
		inferred := ""
		if t.Inferred {
			inferred = ", columns in NCCL's index order (the Algorithm row is not in the log)"
		}
		fmt.Fprintf(b, "\nTuning table at %s (%s%s): cells with bandwidth > 0\n", t.At, t.Proc, inferred)
		for _, f := range spec.Funcs {
			var cells []string
			for _, a := range spec.Algos {
				for _, p := range spec.Protos {
					if c, ok := t.Cell(f, a, p); ok && c.Bw > 0 {
						cells = append(cells, fmt.Sprintf("%s/%s %.1f", a, p, c.Bw))
					}
				}
			}
			if len(cells) == 0 {
				cells = []string{"none"}
			}
			fmt.Fprintf(b, "  %-13s %s\n", f, strings.Join(cells, ", "))
		}
	}

	if len(l.Transports) > 0 {
		b.WriteString("\nTransports (connector lines)\n")
		for _, t := range l.Transports {
			fmt.Fprintf(b, "  %-8s %-28s x%-5d first %s\n", t.Class, t.Detail, t.Count, t.First.At)
		}
	}
	if len(l.Env) > 0 {
		b.WriteString("\nEnvironment NCCL reported\n")
		for _, e := range l.Env {
			fmt.Fprintf(b, "  %s=%s  (%s)", e.Name, e.Value, e.At)
			if len(e.Others) > 0 {
				fmt.Fprintf(b, "  other values on other ranks: %s", strings.Join(e.Others, ", "))
			}
			b.WriteString("\n")
		}
	}
	if len(l.Errors) > 0 {
		b.WriteString("\nErrors and warnings (distinct)\n")
		for i, e := range l.Errors {
			if i == 20 {
				fmt.Fprintf(b, "  ... %d more\n", len(l.Errors)-20)
				break
			}
			where := ""
			if e.SrcFile != "" {
				where = fmt.Sprintf(" [%s:%d]", e.SrcFile, e.SrcLine)
			}
			res := ""
			if e.HasResult {
				res = " -> " + e.Result.String()
			}
			fmt.Fprintf(b, "  %s %s%s %s%s (x%d)\n", e.First.At, e.Level, where, e.Msg, res, e.Count)
		}
	}
	if len(r.Missing) > 0 {
		b.WriteString("\nWhat the log does not show\n")
		for _, m := range r.Missing {
			fmt.Fprintf(b, "  - %s\n", m)
		}
	}
	if l.Unparsed > 0 || l.Count(ncclog.KindUnknown) > 0 {
		fmt.Fprintf(b, "\nLines not recognised: %d non-NCCL, %d NCCL lines of other kinds", l.Unparsed, l.Count(ncclog.KindUnknown))
		if len(l.UnparsedSamples) > 0 {
			fmt.Fprintf(b, " (first non-NCCL: %s %q)", l.UnparsedSamples[0].At, l.UnparsedSamples[0].Msg)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func limitOps(ops []ncclog.OpChoice, n int) []ncclog.OpChoice {
	if len(ops) <= n {
		return ops
	}
	return ops[:n]
}

func writeEvidence(b *strings.Builder, e ncclog.Proof) {
	count := ""
	if e.Count > 1 {
		count = " (x" + strconv.Itoa(e.Count) + ")"
	}
	fmt.Fprintf(b, "    %s  %s%s\n", locOr(e.At), e.Msg, count)
}

func locOr(l ncclog.Loc) string {
	if l.File == "" {
		return "(given)"
	}
	return l.String()
}

func unknownInt(n int) string {
	if n == 0 {
		return "?"
	}
	return strconv.Itoa(n)
}

func unknownStr(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// JSONReport is the --json output. Field names are stable.
type JSONReport struct {
	NCCLVersion string `json:"nccl_version"`
	Release     string `json:"release,omitempty"`
	// AssumedRelease is the release inferred for a log without a version
	// line that was given none (the finding release.assumed).
	AssumedRelease *JSONReleaseGuess `json:"assumed_release,omitempty"`
	Sources        []ncclog.Source   `json:"sources"`
	Lines          int               `json:"lines"`
	NCCLLines      int               `json:"nccl_lines"`
	Ranks          int               `json:"ranks"`
	Nodes          int               `json:"nodes"`
	Processes      int               `json:"processes"`
	// SharedProcess is what the log shows of ranks sharing a process
	// (ncclog.Log.SharedProcess); absent when it does not say.
	SharedProcess *bool                   `json:"shared_process,omitempty"`
	Net           string                  `json:"net"`
	Networks      []ncclog.NameCount      `json:"networks,omitempty"`
	NetPlugin     JSONPlugin              `json:"net_plugin"`
	IBDevices     JSONIB                  `json:"ib_devices"`
	GDR           JSONCap                 `json:"gdr"`
	Transports    []JSONTransport         `json:"transports"`
	CollNet       JSONCap                 `json:"collnet"`
	NVLS          JSONCap                 `json:"nvls"`
	Caps          []JSONCap               `json:"capabilities"`
	Env           map[string]string       `json:"env"`
	Decisions     []JSONDecision          `json:"decisions"`
	Errors        []JSONError             `json:"errors"`
	Findings      []Finding               `json:"findings"`
	Missing       []string                `json:"missing,omitempty"`
	Unparsed      int                     `json:"unparsed"`
	Unknown       int                     `json:"unknown_nccl_lines"`
	Kinds         map[string]int          `json:"kinds"`
	Trace         spec.Trace              `json:"trace"`
	Channels      []ncclog.ChannelSummary `json:"channels,omitempty"`
}

// JSONPlugin is the net plugin part.
type JSONPlugin struct {
	Path      string   `json:"path,omitempty"`
	Found     bool     `json:"found"`
	Name      string   `json:"name,omitempty"`
	ABI       int      `json:"abi,omitempty"`
	Accepted  bool     `json:"accepted"`
	NotFound  []string `json:"not_found,omitempty"`
	Errors    []string `json:"load_errors,omitempty"`
	CollNet   string   `json:"collnet,omitempty"`
	CollNetAB int      `json:"collnet_abi,omitempty"`
	Level     string   `json:"level"`
}

// JSONIB is the IB device part.
type JSONIB struct {
	Found   bool     `json:"found"`
	Devices []string `json:"devices,omitempty"`
	Level   string   `json:"level"`
}

// JSONCap is one capability's level, channels where meaningful, evidence.
type JSONCap struct {
	Cap      spec.Capability `json:"cap"`
	Level    string          `json:"level"`
	Off      bool            `json:"off,omitempty"`
	Channels *int            `json:"channels,omitempty"`
	Next     string          `json:"next,omitempty"`
	Evidence []ncclog.Proof  `json:"evidence,omitempty"`
	Blocks   []ncclog.Proof  `json:"blocks,omitempty"`
}

// JSONTransport is one connector kind.
type JSONTransport struct {
	Class  string `json:"class"`
	Detail string `json:"detail"`
	Count  int    `json:"count"`
	At     string `json:"at"`
}

// JSONDecision is one per-operation line.
type JSONDecision struct {
	Coll      string  `json:"coll"`
	Bytes     int64   `json:"bytes"`
	Algo      string  `json:"algo"`
	Proto     string  `json:"proto"`
	ChannelLo int     `json:"channel_lo"`
	ChannelHi int     `json:"channel_hi"`
	TimeUs    float64 `json:"time_us,omitempty"`
	Count     int     `json:"count"`
	Fallback  bool    `json:"fallback,omitempty"`
	Error     string  `json:"error,omitempty"`
	At        string  `json:"at"`
}

// JSONError is one distinct error line.
type JSONError struct {
	Kind   string `json:"kind"`
	Level  string `json:"level"`
	Msg    string `json:"msg"`
	Src    string `json:"src,omitempty"`
	Result string `json:"result,omitempty"`
	Count  int    `json:"count"`
	At     string `json:"at"`
}

func jsonCap(c *ncclog.CapEvidence) JSONCap {
	if c == nil {
		return JSONCap{}
	}
	return JSONCap{Cap: c.Cap, Level: c.Level.String(), Off: c.Off != nil, Next: c.Next, Evidence: c.Proofs, Blocks: c.Blocks}
}

// JSON builds the --json document.
func (r *Report) JSON() JSONReport {
	l, o := r.Log, r.Obs
	j := JSONReport{NCCLVersion: l.Version, Sources: l.Sources, Lines: l.Lines, NCCLLines: l.NCCLLines, Ranks: l.Ranks(),
		Nodes: l.NNodes(), Processes: len(l.Procs), Net: l.Network(), Networks: l.Networks, Env: map[string]string{},
		Findings: r.Findings, Missing: r.Missing, Unparsed: l.Unparsed, Unknown: l.Count(ncclog.KindUnknown), Kinds: l.Kinds,
		Trace: o.Trace, Channels: l.Channels, Transports: []JSONTransport{}, Decisions: []JSONDecision{}, Errors: []JSONError{}}
	if j.Findings == nil {
		j.Findings = []Finding{}
	}
	if shared, _, known := l.SharedProcess(); known {
		j.SharedProcess = &shared
	}
	if l.Release != 0 {
		j.Release = l.Release.String()
	}
	j.AssumedRelease = r.Assumed.JSON()
	np := o.Cap(spec.CapNetPlugin)
	j.NetPlugin = JSONPlugin{Path: l.Plugin.Path, Found: np.Level >= spec.LevelDiscovered, Name: l.Plugin.Name, ABI: l.Plugin.ABI,
		Accepted: np.Level >= spec.LevelAccepted, NotFound: l.Plugin.NotFound, Errors: l.Plugin.LoadErrors,
		CollNet: l.Plugin.CollNetName, CollNetAB: l.Plugin.CollNetABI, Level: np.Level.String()}
	ib := o.Cap(spec.CapIB)
	j.IBDevices = JSONIB{Found: len(l.IB.Devices) > 0, Devices: l.IB.Devices, Level: ib.Level.String()}
	j.GDR = jsonCap(o.Cap(spec.CapGDR))
	j.CollNet = jsonCap(o.Cap(spec.CapCollNet))
	j.NVLS = jsonCap(o.Cap(spec.CapNVLS))
	collCh, nvlsCh := -1, -1
	for _, cs := range l.Channels {
		if cs.HasNVLS {
			nvlsCh = max(nvlsCh, cs.NVLS)
		}
	}
	for _, g := range l.Graphs {
		if g.Pattern == 6 {
			collCh = max(collCh, g.NChannels)
		}
		if g.Pattern == 5 && nvlsCh < 0 {
			nvlsCh = max(nvlsCh, g.NChannels)
		}
	}
	if collCh >= 0 {
		j.CollNet.Channels = &collCh
	}
	if nvlsCh >= 0 {
		j.NVLS.Channels = &nvlsCh
	}
	for i := range o.Caps {
		j.Caps = append(j.Caps, jsonCap(&o.Caps[i]))
	}
	for _, t := range l.Transports {
		j.Transports = append(j.Transports, JSONTransport{Class: t.Class, Detail: t.Detail, Count: t.Count, At: t.First.At.String()})
	}
	for k, v := range o.Env {
		j.Env[k] = v
	}
	fallback := map[string]bool{}
	for _, d := range o.Decisions {
		if d.Fallback {
			fallback[d.Op.Func.String()+"|"+strconv.FormatInt(d.Op.Bytes(), 10)+"|"+d.Algo.String()] = true
		}
	}
	for _, op := range l.Ops {
		coll := "?"
		if op.FuncKnown {
			coll = op.Func.String()
		}
		jd := JSONDecision{Coll: coll, Bytes: op.Bytes, Algo: op.Algo.String(), Proto: op.Proto.String(), ChannelLo: op.ChannelLo,
			ChannelHi: op.ChannelHi, Count: op.Count, At: op.First.At.String()}
		if op.TimeUs >= 0 {
			jd.TimeUs = op.TimeUs
		}
		jd.Fallback = fallback[coll+"|"+strconv.FormatInt(op.Bytes, 10)+"|"+op.Algo.String()]
		j.Decisions = append(j.Decisions, jd)
	}
	for _, na := range l.NoAlgo {
		j.Decisions = append(j.Decisions, JSONDecision{Coll: unknownStr(na.Func), Algo: "none", Proto: "none", ChannelLo: -1, ChannelHi: -1,
			Count: na.Count, Error: na.First.Msg, At: na.First.At.String()})
	}
	for _, e := range l.Errors {
		je := JSONError{Kind: e.Kind, Level: e.Level.String(), Msg: e.Msg, Count: e.Count, At: e.First.At.String()}
		if e.SrcFile != "" {
			je.Src = e.SrcFile + ":" + strconv.Itoa(e.SrcLine)
		}
		if e.HasResult {
			je.Result = e.Result.String()
		}
		j.Errors = append(j.Errors, je)
	}
	return j
}

// WriteJSON writes the --json document, indented, with keys in a fixed order.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}

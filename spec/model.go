package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// The init-time model (ncclTopoTuneModel and ncclTopoInitTunerConstants):
// NCCL_ALGO/NCCL_PROTO parsing and which (function, algorithm, protocol)
// cells keep a non-zero bandwidth. These rules decide eligibility only; the
// numbers of the table are the tuning model's.

// algoMatrixError is a parse error of the 2.24+ grammar.
type algoMatrixError struct{ msg string }

func (e *algoMatrixError) Error() string { return e.msg }

// parseList22 is the one-row grammar of 2.22.3 (src/graph/tuning.cc
// parseList): a leading '^' inverts; tokens split on ',' (strtok: empty
// tokens vanish, blanks are kept) and matched case-insensitively; unknown
// tokens are ignored silently.
func parseList22(str string, names []string, row []int8) {
	def, set := int8(0), int8(1)
	if strings.HasPrefix(str, "^") {
		def, set = 1, 0
		str = str[1:]
	}
	for i := range names {
		row[i] = def
	}
	for _, tok := range strings.Split(str, ",") {
		if tok == "" {
			continue
		}
		for i, n := range names {
			if strings.EqualFold(tok, n) {
				row[i] = set
			}
		}
	}
}

// parseList28 is the per-function grammar of 2.24.3+ (parseList with
// prefixes): entries split on ';', each "[func:]list" (only the first may
// omit the prefix; a third ':' field is ignored), a list starting with '^'
// inverts; each targeted row is reset before the names are applied.
// matrix[f] is the row of function f.
func parseList28(str string, names []string, matrix [][]int8) error {
	first := true
	for i, full := range strings.Split(str, ";") {
		if full == "" {
			if i == 0 {
				first = false // strtok skips a leading ';': the first token is not at the start
			}
			continue
		}
		parts := strings.Split(full, ":")
		var fields []string
		for _, p := range parts {
			if p != "" {
				fields = append(fields, p)
			}
		}
		if len(fields) == 0 {
			continue
		}
		prefix, list := "", ""
		hasPrefix := len(fields) >= 2
		if hasPrefix {
			prefix, list = fields[0], fields[1]
		} else {
			if !first || i != 0 {
				return &algoMatrixError{fmt.Sprintf("All entries except the first must have a prefix: %q", str)}
			}
			list = fields[0]
		}
		first = false
		unset, set := int8(0), int8(1)
		if strings.HasPrefix(list, "^") {
			unset, set = 1, 0
			list = list[1:]
		}
		found := false
		for f := range NumFuncs {
			if hasPrefix && !strings.EqualFold(prefix, Func(f).String()) {
				continue
			}
			found = true
			for e := range names {
				matrix[f][e] = unset
			}
			for _, tok := range strings.Split(list, ",") {
				if tok == "" {
					continue
				}
				k := -1
				for e, n := range names {
					if strings.EqualFold(tok, n) {
						k = e
						break
					}
				}
				if k < 0 {
					return &algoMatrixError{fmt.Sprintf("Unrecognized element token %q when parsing %q", tok, str)}
				}
				matrix[f][k] = set
			}
		}
		if !found {
			return &algoMatrixError{fmt.Sprintf("Unrecognized prefix token %q when parsing %q", prefix, str)}
		}
	}
	return nil
}

// ParseAlgoProto applies NCCL_ALGO and NCCL_PROTO with a release's grammar
// (perFunction: 2.24+) and returns the matrix, the log lines, and the WARN
// text when the value is rejected (2.24+ only).
func ParseAlgoProto(env Env, perFunction bool, nAlgos int) (m tuning.EnableMatrix, logs []string, warn string) {
	m = tuning.DefaultEnable()
	algoNames := algoNames[:nAlgos]
	protoS, protoSet := env.Lookup("NCCL_PROTO")
	algoS, algoSet := env.Lookup("NCCL_ALGO")
	if protoSet {
		logs = append(logs, "NCCL_PROTO set by environment to "+protoS)
	}
	if !perFunction {
		if protoSet {
			var row [NumProtos]int8
			parseList22(protoS, protoNames[:], row[:])
			for f := range NumFuncs {
				m.Proto[f] = row
			}
		}
		if algoSet {
			logs = append(logs, "NCCL_ALGO set by environment to "+algoS)
			row := make([]int8, nAlgos)
			parseList22(algoS, algoNames, row)
			for f := range NumFuncs {
				copy(m.Algo[f][:], row)
			}
		}
		return m, logs, ""
	}
	if protoSet {
		rows := make([][]int8, NumFuncs)
		for f := range rows {
			rows[f] = m.Proto[f][:]
		}
		if err := parseList28(protoS, protoNames[:], rows); err != nil {
			return m, logs, err.Error()
		}
	}
	if algoSet {
		logs = append(logs, "NCCL_ALGO set by environment to "+algoS)
		rows := make([][]int8, NumFuncs)
		for f := range rows {
			rows[f] = m.Algo[f][:nAlgos]
		}
		if err := parseList28(algoS, algoNames, rows); err != nil {
			return m, logs, err.Error()
		}
	}
	if algoSet || protoSet {
		logs = append(logs, "Enabled NCCL Func/Proto/Algo Matrix:"+formatEnableMatrix(m, nAlgos))
	}
	return m, logs, ""
}

// formatEnableMatrix prints the 2.24+ matrix as ncclTopoInitTunerConstants
// does (the text starts with a newline and fits NCCL's 1 KiB buffer).
func formatEnableMatrix(m tuning.EnableMatrix, nAlgos int) string {
	var b strings.Builder
	b.WriteString("\n     Function | ")
	for p := range NumProtos {
		fmt.Fprintf(&b, "%8s  ", protoNames[p])
	}
	b.WriteString(" | ")
	for a := range nAlgos {
		fmt.Fprintf(&b, "%13s  ", algoNames[a])
	}
	b.WriteString("\n")
	for f := range NumFuncs {
		fmt.Fprintf(&b, "%13s | ", Func(f).String())
		for p := range NumProtos {
			fmt.Fprintf(&b, "%8d  ", m.Proto[f][p])
		}
		b.WriteString(" | ")
		for a := range nAlgos {
			fmt.Fprintf(&b, "%13d  ", m.Algo[f][a])
		}
		b.WriteString("\n")
	}
	s := b.String()
	if len(s) > 1023 {
		s = s[:1023]
	}
	return s
}

// algoParse is G-SEL-PARSE-1 / G-SEL-PARSE-2.
func algoParse(id RuleID, ref Ref, doc string, perFunction bool, logs []string) *Rule {
	return &Rule{
		ID: id, Layer: LayerModel, Title: "NCCL_ALGO / NCCL_PROTO",
		Doc: doc, Ref: ref, Logs: logs,
		init: func(r *initRun) {
			nA := NumAlgos
			if !r.rs.Consts.HasPAT {
				nA = int(PAT)
			}
			m, logs, warn := ParseAlgoProto(r.env, perFunction, nA)
			r.comm.UserEnable = m
			facts := []Fact{F("NCCL_ALGO", envShow(r.env.Lookup("NCCL_ALGO"))), F("NCCL_PROTO", envShow(r.env.Lookup("NCCL_PROTO")))}
			if warn != "" {
				r.emit(Verdict{Outcome: Fail, Why: "rejected: communicator init fails with ncclInvalidUsage", Facts: facts, Log: append(logs, warn)})
				r.fail(InvalidUsage, warn)
				return
			}
			_, a := r.env.Lookup("NCCL_ALGO")
			_, p := r.env.Lookup("NCCL_PROTO")
			if !a && !p {
				r.emit(Verdict{Outcome: Info, Why: "NCCL_ALGO and NCCL_PROTO unset: every algorithm and protocol allowed (LL128 auto)", Facts: facts})
				return
			}
			r.emit(Verdict{Outcome: Info, Why: "user matrix: " + describeEnable(m, nA), Facts: facts, Log: logs})
		},
	}
}

// describeEnable summarises a user matrix in one line.
func describeEnable(m tuning.EnableMatrix, nA int) string {
	row := func(f int) string {
		var on []string
		for a := range nA {
			if m.Algo[f][a] != 0 {
				on = append(on, algoNames[a])
			}
		}
		var ps []string
		for p := range NumProtos {
			if m.Proto[f][p] == 1 {
				ps = append(ps, protoNames[p])
			} else if m.Proto[f][p] == 2 {
				ps = append(ps, protoNames[p]+"(auto)")
			}
		}
		return "algos [" + strings.Join(on, ",") + "] protos [" + strings.Join(ps, ",") + "]"
	}
	same := true
	for f := 1; f < NumFuncs; f++ {
		if m.Algo[f] != m.Algo[0] || m.Proto[f] != m.Proto[0] {
			same = false
		}
	}
	if same {
		return row(0)
	}
	var parts []string
	for f := range NumFuncs {
		parts = append(parts, Func(f).String()+": "+row(f))
	}
	return strings.Join(parts, "; ")
}

// cellState accumulates, per (function, algorithm, protocol), whether the
// model computes a non-zero bandwidth and which rule zeroed it.
type cellState struct {
	on [NumFuncs][NumAlgos][NumProtos]bool
	by [NumFuncs][NumAlgos][NumProtos]RuleID
}

func (cs *cellState) zero(f, a, p int, id RuleID) {
	if cs.on[f][a][p] {
		cs.on[f][a][p] = false
		cs.by[f][a][p] = id
	}
}

// graphFor is the graph the model reads for an algorithm (PAT reads the
// tree graph).
func (c *Comm) graphFor(a Algo) GraphInfo {
	switch a {
	case Tree, PAT:
		return c.Graphs.Tree
	case Ring:
		return c.Graphs.Ring
	case CollNetDirect:
		return c.Graphs.CollNetDirect
	case CollNetChain:
		return c.Graphs.CollNetChain
	}
	return c.Graphs.NVLS
}

// implRule is G-TUNE-IMPL-1 (with G-PAT-1's effect folded in by patRule).
func implRule(ref Ref, doc string, implemented func(f Func, a Algo, p Proto) bool) *Rule {
	return &Rule{
		ID: "G-TUNE-IMPL-1", Layer: LayerModel, Title: "modelled (function, algorithm, protocol)",
		Doc: doc, Ref: ref,
		init: func(r *initRun) {
			c := r.comm
			cs := r.cells()
			nA := r.nAlgos()
			n := 0
			for f := range NumFuncs {
				for a := range nA {
					for p := range NumProtos {
						if implemented(Func(f), Algo(a), Proto(p)) {
							cs.on[f][a][p] = true
							n++
						} else {
							cs.by[f][a][p] = "G-TUNE-IMPL-1"
						}
					}
				}
			}
			_ = c
			r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("%d (function, algorithm, protocol) cells are modelled", n)})
		},
	}
}

func (r *initRun) nAlgos() int {
	if r.rs.Consts.HasPAT {
		return NumAlgos
	}
	return int(PAT)
}

// cells returns the comm's cell state scratch (kept on the run).
func (r *initRun) cells() *cellState {
	if r.cs == nil {
		r.cs = &cellState{}
	}
	return r.cs
}

// impl22 is the modelled set of 2.22.3.
func impl22(f Func, a Algo, p Proto) bool {
	if a == PAT {
		return false
	}
	switch f {
	case Broadcast, Reduce:
		if a != Ring {
			return false
		}
	case AllGather, ReduceScatter:
		if a != Ring && a != NVLS && a != CollNetDirect {
			return false
		}
	}
	if a.IsNVLS() && p != Simple {
		return false
	}
	return true
}

// impl18 is the modelled set of 2.18.x: AllGather and ReduceScatter on
// Ring only (NVLS serves them from 2.19.1).
func impl18(f Func, a Algo, p Proto) bool {
	if (f == AllGather || f == ReduceScatter) && a != Ring {
		return false
	}
	return impl22(f, a, p)
}

// impl19 is the modelled set before 2.20.3: 2.22.3's without CollNetDirect
// AllGather and ReduceScatter.
func impl19(f Func, a Algo, p Proto) bool {
	if a == CollNetDirect && (f == AllGather || f == ReduceScatter) {
		return false
	}
	return impl22(f, a, p)
}

// impl28 is the modelled set of 2.23.4+ (PAT for AllGather/ReduceScatter;
// its Simple cell additionally needs ncclPatEnable, G-PAT-1).
func impl28(f Func, a Algo, p Proto) bool {
	switch f {
	case Broadcast, Reduce:
		if a != Ring {
			return false
		}
	case AllGather, ReduceScatter:
		if a != Ring && a != NVLS && a != CollNetDirect && a != PAT {
			return false
		}
	case AllReduce:
		if a == PAT {
			return false
		}
	}
	if (a.IsNVLS() || a == PAT) && p != Simple {
		return false
	}
	return true
}

var patRule = &Rule{
	ID: "G-PAT-1", Layer: LayerModel, Cap: CapPAT, Title: "PAT eligibility",
	Doc: `ncclPatEnable: smallest compute capability below 6.0 → off; NCCL_PAT_ENABLE (default 2) other than 2 → its truth value (non-zero forces PAT on, even with several GPUs per node); auto → on iff one GPU per node (nNodes == nRanks) and the network device is HOST type. PAT serves AllGather and ReduceScatter, Simple only.`,
	Ref: Ref{Tag: "v2.28.3-1", File: "src/graph/tuning.cc", Func: "ncclPatEnable"},
	init: func(r *initRun) {
		c := r.comm
		cs := r.cells()
		v := r.param("NCCL_PAT_ENABLE")
		facts := []Fact{F("NCCL_PAT_ENABLE", v), F("nNodes", c.NNodes), F("nRanks", c.NRanks), F("minSM", c.MinSM)}
		on, why := false, ""
		hostNet := true
		if ch := r.nodes[0].chosen; ch != nil && ch.external != nil && ch.external.Net != nil && ch.external.Net.DeviceType == "unpack" {
			hostNet = false
		}
		switch {
		case c.MinSM < r.rs.Tuning.PATMinCompCap:
			why = fmt.Sprintf("compute capability below %d.%d", r.rs.Tuning.PATMinCompCap/10, r.rs.Tuning.PATMinCompCap%10)
		case v != 2:
			on = v != 0
			why = fmt.Sprintf("NCCL_PAT_ENABLE=%d", v)
			if on {
				r.comm.Evidence.Raise(CapPAT, LevelRequested)
			}
		case c.NNodes != c.NRanks:
			why = fmt.Sprintf("%d GPUs on %d nodes: PAT needs one GPU per node", c.NRanks, c.NNodes)
		case !hostNet:
			why = "the network offloads to the device (UNPACK): PAT needs a HOST network"
		default:
			on, why = true, "one GPU per node on a HOST network"
		}
		c.PATEnable = on
		if !on {
			for f := range NumFuncs {
				for p := range NumProtos {
					cs.zero(f, int(PAT), p, "G-PAT-1")
				}
			}
			r.emit(Verdict{Outcome: Fail, Why: why + ": PAT off", Facts: facts})
			return
		}
		r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: why + ": PAT on for AllGather and ReduceScatter", Facts: facts})
	},
}

// graphBwRule is G-TUNE-BW-1: a graph with too few channels gives the
// algorithms it feeds no bandwidth.
func graphBwRule(ref Ref, doc string, nvlsMin int) *Rule {
	return &Rule{
		ID: "G-TUNE-BW-1", Layer: LayerModel, Title: "graph channels feed the bandwidth",
		Doc: doc, Ref: ref,
		init: func(r *initRun) {
			c := r.comm
			cs := r.cells()
			var zeroed []string
			for a := range r.nAlgos() {
				g := c.graphFor(Algo(a))
				need := 1
				if Algo(a).IsNVLS() {
					need = nvlsMin
				}
				if g.NChannels >= need {
					continue
				}
				for f := range NumFuncs {
					for p := range NumProtos {
						cs.zero(f, a, p, "G-TUNE-BW-1")
					}
				}
				zeroed = append(zeroed, fmt.Sprintf("%s (%d channel(s))", algoNames[a], g.NChannels))
			}
			if len(zeroed) == 0 {
				r.emit(Verdict{Outcome: Pass, Why: "every graph has channels"})
				return
			}
			r.emit(Verdict{Outcome: Fail, Why: "no bandwidth for " + strings.Join(zeroed, ", ")})
		},
	}
}

// collNetBwRule is G-TUNE-BW-2: AllGather/ReduceScatter across nodes over
// CollNetDirect (2.27+: and NVLS) need the plugin's entry points and one
// CollNet head per local rank; CollNet protocols other than Simple get 0.
func collNetBwRule(ref Ref, doc string, alsoNVLS bool) *Rule {
	return collNetBw(ref, doc, alsoNVLS, true)
}

// collNetBw is G-TUNE-BW-2; agrs is false before 2.20.3, where CollNetDirect
// has no AllGather/ReduceScatter (G-TUNE-IMPL-1) and nothing is checked
// for them.
func collNetBw(ref Ref, doc string, alsoNVLS, agrs bool) *Rule {
	return &Rule{
		ID: "G-TUNE-BW-2", Layer: LayerModel, Cap: CapCollNet, Title: "CollNet/NVLS AllGather and ReduceScatter bandwidth",
		Doc: doc, Ref: ref,
		init: func(r *initRun) {
			c := r.comm
			cs := r.cells()
			var notes []string
			for f := range NumFuncs {
				for p := range NumProtos {
					if p != int(Simple) {
						cs.zero(f, int(CollNetDirect), p, "G-TUNE-BW-2")
						cs.zero(f, int(CollNetChain), p, "G-TUNE-BW-2")
					}
				}
			}
			ppn := c.MaxLocalRanks
			for _, fn := range []Func{AllGather, ReduceScatter} {
				if c.NNodes <= 1 || !agrs {
					continue
				}
				entry := c.CollNetIAllGather
				if fn == ReduceScatter {
					entry = c.CollNetIReduceScatter
				}
				bad := ""
				switch {
				case !c.CollNetAttached || !entry:
					bad = "the CollNet plugin lacks i" + strings.ToLower(fn.String())
				case alsoNVLS && !c.CollNetSupport:
					bad = "CollNet is not enabled"
				case ppn > c.CollNetHeads:
					bad = fmt.Sprintf("%d local ranks > %d CollNet heads", ppn, c.CollNetHeads)
				}
				if bad == "" {
					continue
				}
				cs.zero(int(fn), int(CollNetDirect), int(Simple), "G-TUNE-BW-2")
				if alsoNVLS {
					cs.zero(int(fn), int(NVLS), int(Simple), "G-TUNE-BW-2")
				}
				notes = append(notes, fn.String()+": "+bad)
			}
			if c.MaxLocalRanks == 1 {
				for _, fn := range []Func{AllGather, ReduceScatter} {
					cs.zero(int(fn), int(NVLS), int(Simple), "G-TUNE-BW-2")
				}
				notes = append(notes, "one GPU per node: NVLS AllGather/ReduceScatter has no intra-node bandwidth")
			}
			why := "CollNet protocols other than Simple get no bandwidth"
			if len(notes) > 0 {
				why += "; multi-node " + strings.Join(notes, "; ")
			}
			r.emit(Verdict{Outcome: Info, Why: why})
		},
	}
}

// enableRule is G-TUNE-EN-1: the support-driven disables and the
// release's rescues, as the tuning model computes them (its AlgoEnable).
func enableRule(ref Ref, doc string) *Rule {
	return enableRuleWith(ref, doc, "")
}

// enableRuleWarn is G-TUNE-EN-1 whose hard-set CollNet rescue WARNs on
// rank 0 (2.18.1–2.19.4).
func enableRuleWarn(ref Ref, doc string) *Rule {
	const warn = "CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=COLLNET"
	r := enableRuleWith(ref, doc, warn)
	r.Logs = []string{warn}
	return r
}

func enableRuleWith(ref Ref, doc string, rescueWarn string) *Rule {
	return &Rule{
		ID: "G-TUNE-EN-1", Layer: LayerModel, Title: "algorithm enable matrix",
		Doc: doc, Ref: ref,
		init: func(r *initRun) {
			c := r.comm
			cs := r.cells()
			r.ringSave()
			nA := r.nAlgos()
			in := r.tuningInput()
			en := r.rs.Tuning.AlgoEnable(&in)
			var notes, logs []string
			for a := range nA {
				if c.UserEnable.Algo[0][a] != 0 && en.Algo[0][a] == 0 {
					notes = append(notes, Algo(a).String()+": "+en.Why[0][a])
				}
			}
			if en.Rescued[0] {
				notes = append(notes, "NCCL_ALGO left only CollNet: Ring and Tree re-enabled (hard-set CollNet is ignored)")
			}
			if rescueWarn != "" && slices.Contains(en.Rescued[:], true) {
				logs = append(logs, rescueWarn)
			}
			var off []string
			for f := range NumFuncs {
				for a := range nA {
					if !en.CellsOff(Func(f), Algo(a)) {
						if en.RingKept(Func(f), Algo(a)) {
							c.RingKept[f] = true
							if f == 0 {
								notes = append(notes, "NCCL_ALGO's Ring disable reaches only AllReduce: every other function keeps Ring and runs it instead of what NCCL_ALGO asked for")
							}
						}
						continue
					}
					for p := range NumProtos {
						cs.zero(f, a, p, "G-TUNE-EN-1")
					}
				}
			}
			for a := range nA {
				if en.Algo[0][a] == 0 && en.Algo[4][a] == 0 {
					off = append(off, algoNames[a])
				}
			}
			why := "disabled: " + strings.Join(off, ", ")
			if len(off) == 0 {
				why = "every algorithm enabled"
			}
			if len(notes) > 0 {
				why += " (" + strings.Join(notes, "; ") + ")"
			}
			r.emit(Verdict{Outcome: Info, Why: why, Log: logs})
		},
	}
}

// protoRule is G-TUNE-PROTO-1: protocol flags and LL128's auto rule.
func protoRule(ref Ref, doc string, ll128 func(r *initRun, f Func, a Algo, g GraphInfo) (bool, string)) *Rule {
	return &Rule{
		ID: "G-TUNE-PROTO-1", Layer: LayerModel, Title: "protocol enable and LL128 auto",
		Doc: doc, Ref: ref,
		init: func(r *initRun) {
			c := r.comm
			cs := r.cells()
			var notes []string
			for f := range NumFuncs {
				for a := range r.nAlgos() {
					for p := range NumProtos {
						pe := c.UserEnable.Proto[f][p]
						why := ""
						if pe == 2 && p == int(LL128) {
							ok, w := ll128(r, Func(f), Algo(a), c.graphFor(Algo(a)))
							if ok {
								pe = 1
							} else {
								pe, why = 0, w
							}
						}
						if pe == 0 {
							cs.zero(f, a, p, "G-TUNE-PROTO-1")
							if a == int(Ring) && !r.rs.Tuning.RingBdwKeepsProto {
								c.RingBackup[f][p] = false
							}
							if f == int(AllReduce) && a == int(Ring) {
								if why == "" {
									why = "disabled by NCCL_PROTO"
								}
								notes = append(notes, protoNames[p]+": "+why)
							}
						}
					}
				}
			}
			why := "LL, LL128 and Simple enabled for AllReduce/Ring"
			if len(notes) > 0 {
				why = "AllReduce/Ring " + strings.Join(notes, "; ")
			}
			r.emit(Verdict{Outcome: Info, Why: why})
		},
	}
}

// ll128Auto22 is 2.22.3's rule.
func ll128Auto22(r *initRun, f Func, a Algo, g GraphInfo) (bool, string) {
	return ll128AutoIntra(r, f, a, g, "NVB", false)
}

// ll128Auto18 is 2.18.1's rule: the intra-node path at most NVL.
func ll128Auto18(r *initRun, f Func, a Algo, g GraphInfo) (bool, string) {
	return ll128AutoIntra(r, f, a, g, "NVL", false)
}

// ll128Auto25 is 2.25.1's rule: 2.22.3's, with sm100 and sm120 allowed.
func ll128Auto25(r *initRun, f Func, a Algo, g GraphInfo) (bool, string) {
	return ll128AutoIntra(r, f, a, g, "NVB", true)
}

// ll128AutoIntra is the rule of 2.18.1-2.26.6 with the largest intra-node
// path type it allows and whether Blackwell (sm100, sm120) is on the list.
func ll128AutoIntra(r *initRun, f Func, a Algo, g GraphInfo, intraMax string, blackwell bool) (bool, string) {
	c := r.comm
	inter, intra := pathIdx(g.TypeInter, "PIX"), pathIdx(g.TypeIntra, "LOC")
	switch {
	case !(inter <= pathIdx("PXB", "") || (c.MinSM >= 90 && inter <= pathIdx("PXN", ""))):
		return false, "inter-node path " + g.TypeInter + " beyond PXB"
	case intra > pathIdx(intraMax, ""):
		return false, "intra-node path " + g.TypeIntra + " beyond " + intraMax
	case c.MinSM != c.MaxSM:
		return false, "mixed compute capabilities"
	case blackwell && c.MinSM != 70 && c.MinSM != 80 && c.MinSM != 90 && c.MinSM != 100 && c.MinSM != 120:
		return false, fmt.Sprintf("sm%d is not 70, 80, 90, 100 or 120", c.MinSM)
	case !blackwell && c.MinSM != 70 && c.MinSM != 80 && c.MinSM != 90:
		return false, fmt.Sprintf("sm%d is not 70, 80 or 90", c.MinSM)
	case c.MinSM == 90 && cuda(r) == 11080 && f == AllReduce && a == Ring && c.NRanks == 2:
		return false, "CUDA 11.8 sm90 two-rank Ring AllReduce"
	}
	return true, ""
}

// ll128Auto28 is 2.27.5+'s rule with NCCL_LL128_C2C.
func ll128Auto28(r *initRun, f Func, a Algo, g GraphInfo) (bool, string) {
	return ll128AutoC2C(r, f, a, g, false)
}

// ll128Auto273 is 2.27.3's: its PATH_P2C is numbered above PXN, so sm90+
// allows PXN with or without NCCL_LL128_C2C and P2C only with it.
func ll128Auto273(r *initRun, f Func, a Algo, g GraphInfo) (bool, string) {
	return ll128AutoC2C(r, f, a, g, true)
}

// ll128AutoC2C is the rule of 2.27.3+ with NCCL_LL128_C2C; p2cAbovePXN is
// 2.27.3's path numbering.
func ll128AutoC2C(r *initRun, f Func, a Algo, g GraphInfo, p2cAbovePXN bool) (bool, string) {
	c := r.comm
	inter, intra := pathIdx(g.TypeInter, "PIX"), pathIdx(g.TypeIntra, "LOC")
	c2c := r.param("NCCL_LL128_C2C") != 0
	limit := "PXB"
	beyond := inter > pathIdx(limit, "")
	switch {
	case c.MinSM >= 90 && p2cAbovePXN:
		limit = "PXB, PXN"
		if c2c {
			limit += " or P2C"
		}
		beyond = beyond && g.TypeInter != "PXN" && !(c2c && g.TypeInter == "P2C")
	case c.MinSM >= 90 && c2c:
		limit = "PXN"
		beyond = inter > pathIdx(limit, "")
	}
	switch {
	case beyond:
		return false, "inter-node path " + g.TypeInter + " beyond " + limit
	case intra > pathIdx("NVB", ""):
		return false, "intra-node path " + g.TypeIntra + " beyond NVB"
	case c.MinSM != c.MaxSM:
		return false, "mixed compute capabilities"
	case c.MinSM < 70:
		return false, fmt.Sprintf("sm%d is below 70", c.MinSM)
	case c.MinSM == 90 && cuda(r) == 11080 && f == AllReduce && a == Ring && c.NRanks == 2:
		return false, "CUDA 11.8 sm90 two-rank Ring AllReduce"
	}
	return true, ""
}

func cuda(r *initRun) int { return r.comm.System.Nodes[0].Driver.CUDA }

func pathIdx(s, def string) int {
	if s == "" {
		s = def
	}
	for i, p := range pathOrder {
		if p == s {
			return i
		}
	}
	return len(pathOrder)
}

var ringRestore = &Rule{
	ID: "G-TUNE-RINGRESTORE-1", Layer: LayerModel, Title: "Ring restored when a function has nothing",
	Doc: `Ring bandwidths are saved per (function, protocol) before NCCL_ALGO's disables (protocols NCCL_PROTO or the LL128 rule disabled stay 0). After the disables, a function whose whole row is 0 gets its Ring bandwidths back.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	init: func(r *initRun) {
		c := r.comm
		cs := r.cells()
		var restored []string
		for f := range NumFuncs {
			any := false
			for a := range NumAlgos {
				for p := range NumProtos {
					any = any || cs.on[f][a][p]
				}
			}
			if any {
				continue
			}
			got := false
			for p := range NumProtos {
				if c.RingBackup[f][p] {
					cs.on[f][Ring][p] = true
					cs.by[f][Ring][p] = ""
					c.RingRestored[f][p] = true
					got = true
				}
			}
			if got {
				restored = append(restored, Func(f).String())
			}
		}
		if len(restored) == 0 {
			r.emit(Verdict{Outcome: Skip, Why: "every function has an algorithm"})
			return
		}
		r.emit(Verdict{Outcome: Pass, Why: "no algorithm left for " + strings.Join(restored, ", ") + ": Ring bandwidths restored"})
	},
}

// ringSave records the Ring cells before NCCL_ALGO's disables, for
// 2.22.3's restore and backup; it runs inside the model before EN-1.
func (r *initRun) ringSave() {
	cs := r.cells()
	for f := range NumFuncs {
		for p := range NumProtos {
			r.comm.RingBackup[f][p] = cs.on[f][Ring][p]
		}
	}
}

// modelDone builds NCCL's tuning model from the communicator the gates
// left and publishes its eligibility. The structural rules above say why a
// cell is off; the model computes the numbers. Where the two disagree the
// model's answer stands (it is NCCL's arithmetic on the searched graphs) and
// the verdict names the cells: the properties assert there are none.
var modelDone = &Rule{
	ID: "G-TUNE-TABLE-1", Layer: LayerModel, Title: "the tuning table",
	Doc:  `ncclTopoTuneModel's table: bandwidth and latency per (function, algorithm, protocol); a cell with bandwidth 0 is never chosen (ncclTopoGetAlgoTime returns -1). Rank 0 prints it at INFO level with NCCL_DEBUG_SUBSYS including TUNING, then the threadThresholds line.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	Logs: []string{"threadThresholds %ld/%ld/%ld | %ld/%ld/%ld | %ld | %ld", "  Algorithm   |", "  Protocol    |", " Max NThreads |"},
	init: func(r *initRun) {
		c := r.comm
		cs := r.cells()
		m, err := tuning.BuildModel(r.tuningInput(), r.rs.Tuning)
		if err != nil {
			r.err = fmt.Errorf("tuning model: %w", err)
			r.emit(Verdict{Outcome: Fail, Why: "the tuning model could not be built: " + err.Error()})
			return
		}
		c.Model = m
		nA := r.nAlgos()
		var disagree []string
		for f := range NumFuncs {
			for a := range nA {
				for p := range NumProtos {
					on := m.Bandwidths[f][a][p] > 0
					if on != cs.on[f][a][p] {
						rule := m.Zeroed[f][a][p].Rule
						if on {
							rule = "model"
						}
						disagree = append(disagree, fmt.Sprintf("%s/%s/%s (gates %s, model %s by %s)", Func(f), Algo(a), Proto(p), onOff(cs.on[f][a][p]), onOff(on), rule))
					}
					c.Enabled[f][a][p] = on
					c.ZeroedBy[f][a][p] = ""
					if !on {
						c.ZeroedBy[f][a][p] = cs.by[f][a][p]
						if c.ZeroedBy[f][a][p] == "" {
							c.ZeroedBy[f][a][p] = m.Zeroed[f][a][p].Rule
						}
					}
				}
			}
		}
		var per []string
		for f := range NumFuncs {
			var algos []string
			for a := range nA {
				for p := range NumProtos {
					if c.Enabled[f][a][p] {
						algos = append(algos, algoNames[a])
						break
					}
				}
			}
			per = append(per, Func(f).String()+" ["+strings.Join(algos, ",")+"]")
		}
		var log, debug []string
		for _, l := range m.Log {
			switch l.Subsys {
			case "TUNING", "GRAPH":
				debug = append(debug, l.Text)
			case "INIT":
				log = append(log, l.Text)
			} // ENV lines belong to G-SEL-PARSE-*
		}
		v := Verdict{Outcome: Info, Why: "eligible: " + strings.Join(per, " "), Log: log, Debug: debug,
			Facts: []Fact{F("nChannels", c.NChannels), F("AllReduce/Ring/Simple busBw", fmt.Sprintf("%.1f GB/s", m.Bandwidths[AllReduce][Ring][Simple]))}}
		if len(disagree) > 0 {
			v.Facts = append(v.Facts, F("model_disagrees", strings.Join(disagree, "; ")))
		}
		r.emit(v)
		for a := range nA {
			if !c.Enabled[AllReduce][a][Simple] && !c.Enabled[AllGather][a][Simple] {
				continue
			}
			if cp := offloadOf(Algo(a)); cp != "" {
				c.Evidence.Raise(cp, LevelCandidate)
			}
		}
	},
}

// tuningInput is what ncclTopoTuneModel reads of the communicator.
func (r *initRun) tuningInput() tuning.Input {
	c := r.comm
	res := c.Topo
	env := r.env
	in := tuning.Input{
		NRanks: c.NRanks, NNodes: c.NNodes, MaxLocalRanks: c.MaxLocalRanks,
		MinCompCap: res.MinCompCap, MaxCompCap: res.MaxCompCap,
		Graphs: res.AlgoGraphs(), MaxTreePattern: res.MaxTreePattern,
		CollNetEnable: c.CollNetSupport, CollNetHeads: c.CollNetHeads,
		CollNetAllGather: c.CollNetAttached && c.CollNetIAllGather, CollNetReduceScatter: c.CollNetAttached && c.CollNetIReduceScatter,
		NVSwitch:  res.NVSCount > 0,
		Enable:    c.UserEnable,
		NChannels: c.NChannels, NVLSChannels: c.NVLSChannels, NVLSSupport: c.NVLSSupport,
		CollNetDirectHeads: res.CollNetDirectHeads, CollNetChainSupport: res.CollNetChainHeadsOK,
		Tuner:       c.Tuner,
		CUDARuntime: c.System.Nodes[0].Driver.CUDA,
	}
	if len(res.LocalRanks) > 0 {
		in.LocalRanks = res.LocalRanks[0]
	}
	if !c.NVLSSupport {
		// initTransportsRank searches the NVLS graph only with nvlsSupport:
		// without it the model reads an empty one, whatever the topology
		// stage found (a gate such as 2.20.x's MNNVL exit may have turned
		// NVLS off after the search).
		in.Graphs[NVLS], in.Graphs[NVLSTree] = nil, nil
	}
	if c.Tuner != nil {
		in.TunerConstants = c.Tuner.Constants
	}
	in.Chunk = r.chunkComm()
	cpu := c.System.Nodes[0].CPU
	in.CPUArch, in.CPUVendor = tuning.CPUOf(cpu.Arch, cpu.Vendor)
	if ch := r.nodes[0].chosen; ch != nil && ch.external != nil && ch.external.Net != nil {
		in.NetDeviceUnpack = ch.external.Net.DeviceType == "unpack"
	}
	str := func(name string) *string {
		if v, ok := env.Lookup(name); ok {
			return &v
		}
		return nil
	}
	in.Algo, in.Proto, in.ThreadThresholds = str("NCCL_ALGO"), str("NCCL_PROTO"), str("NCCL_THREAD_THRESHOLDS")
	// NCCL_PARAM integers: unset, empty or out of range keep the default.
	num := func(name string) *int64 {
		v, ok := env.Lookup(name)
		if !ok || v == "" {
			return nil
		}
		n, overflow := strtoll(v)
		if overflow {
			return nil
		}
		return &n
	}
	in.NThreads, in.LL128NThreads, in.NetOverhead = num("NCCL_NTHREADS"), num("NCCL_LL128_NTHREADS"), num("NCCL_NET_OVERHEAD")
	in.LL128C2C, in.PATEnable = num("NCCL_LL128_C2C"), num("NCCL_PAT_ENABLE")
	in.GraphRegister, in.LocalRegister = num("NCCL_GRAPH_REGISTER"), num("NCCL_LOCAL_REGISTER")
	in.LegacyCudaRegister = num("NCCL_LEGACY_CUDA_REGISTER")
	in.CuMem = r.cuMemEnable()
	if p := num("NCCL_P2P_USE_CUDA_MEMCPY"); p != nil { // default 0 at every modelled tag
		in.P2PUseMemcpy = *p != 0
	}
	in.DirectP2P = c.IntraTransport == "P2P" && in.LocalRanks > 1
	in.SharedProcess = c.SharedProcess
	if p := num("NCCL_SINGLE_PROC_MEM_REG_ENABLE"); p != nil { // default 0 where read (2.28.3+)
		in.SingleProcMemReg = *p != 0
	}
	in.RingNetGDR, in.MinNetCount = res.RingNetGDR, res.MinNetCount
	in.CollNetGDR = r.comm.CollNetFlush().Conns.GDR
	in.MLOPart = c.System.HasMLOPart()
	if p := num("NCCL_MLOPART_RDMA_ENABLE"); p != nil { // default 0 where read (2.30.7+)
		in.MLOPartRDMA = *p != 0
	}
	off := func(p *int64) bool { return p != nil && *p == 0 }
	in.MNNVL, in.CrossClique, in.NVLDomainSize = c.MNNVL, c.CrossClique, c.NVLDomainSize
	// across nodes symmetric memory needs GIN (2.29.2+, ginState)
	gin := r.ginState()
	in.SymmetricSupport = in.DirectP2P && (in.OneLSATeam() || gin.Symmetric) && !off(num("NCCL_WIN_ENABLE")) && !off(num("NCCL_CUMEM_ENABLE"))
	in.RMAProxySupport, in.ElasticBufferRegister = gin.RMAProxy, num("NCCL_ELASTIC_BUFFER_REGISTER")
	// config.numRmaCtx: 1, or NCCL_NUM_RMA_CTX where envConfigOverride
	// takes it (a config's kept numRmaCtx stands for the variable,
	// G-ENV-CONFIG-1)
	in.NumRMACtx = 1
	if p := num("NCCL_NUM_RMA_CTX"); p != nil && *p >= int64(r.rs.Consts.ConfigRmaCtxEnvMin) && *p <= 1<<31-1 {
		in.NumRMACtx = int(*p)
	}
	// the per-operation verdicts that read the policy cite where it came
	// from (the variable or config CTAPolicy)
	c.ctaPolicy = c.settingsSet(nil, "NCCL_CTA_POLICY")
	if r.rs.Tuning.CTAPolicyMask {
		if v, ok := env.Lookup("NCCL_CTA_POLICY"); ok {
			mask := ctaPolicyMask(v)
			if mask&ctaPolicyZero != 0 {
				// envConfigOverride unsets EFFICIENCY beside ZERO (a WARN)
				mask &^= ctaPolicyEfficiency
			}
			in.CTAPolicyZero, in.CTAPolicyEfficiency = mask&ctaPolicyZero != 0, mask&ctaPolicyEfficiency != 0
		}
	} else if p := num("NCCL_CTA_POLICY"); p != nil && *p <= int64(r.rs.Tuning.CTAPolicyMax) {
		// a value above the release's last policy is reset to DEFAULT
		in.CTAPolicyZero, in.CTAPolicyEfficiency = *p == 2, *p == 1
	}
	// the config's CTA bounds, capped as envConfigOverride caps them
	maxCh := r.rs.Consts.MaxChannels
	if p := num("NCCL_MIN_CTAS"); p != nil && *p > 0 {
		in.MinCTAs = int(min(*p, int64(maxCh)))
	}
	if p := num("NCCL_MAX_CTAS"); p != nil && *p > 0 {
		in.MaxCTAs = int(min(*p, int64(maxCh)))
	}
	if in.MaxCTAs > 0 && in.MinCTAs > in.MaxCTAs {
		in.MinCTAs = in.MaxCTAs
	}
	in.SymKernel, in.SymCTAs = str("NCCL_SYM_KERNEL"), num("NCCL_SYM_CTAS")
	in.SymNoWinEnable, in.SymTMAEnable = num("NCCL_SYM_NOWIN_ENABLE"), num("NCCL_SYM_TMA_ENABLE")
	in.NVLSHeads = res.NvlsHeads
	in.MinNetBw = res.MinNetBw
	in.SymGinKernelsEnable, in.SymRsGinChunkSize = num("NCCL_SYM_GIN_KERNELS_ENABLE"), num("NCCL_SYM_RS_GIN_CHUNK_SIZE")
	in.SymCEThreshold, in.AllGatherVEnable = num("NCCL_SYM_CE_THRESHOLD"), num("NCCL_ALLGATHERV_ENABLE")
	in.AggChannelSize, in.WorkFifoDepth = num("NCCL_AGG_CHANNEL_SIZE"), num("NCCL_WORK_FIFO_DEPTH")
	in.WorkArgsBytes, in.WorkFifoBytes = num("NCCL_WORK_ARGS_BYTES"), num("NCCL_WORK_FIFO_BYTES")
	in.AllDirectNVLink = res.AllDirectNVLink
	in.CUDADriver = c.System.Nodes[0].Driver.CUDA
	in.CEDriver = in.CUDADriver >= 12050
	return in
}

// cuMemEnable is ncclCuMemEnable(): NCCL_CUMEM_ENABLE when it is 0 or
// more, else (the auto-detect -2, 2.19.1's default) whether cuMem works on
// every node's driver; any other negative value is off.
// Ref: v2.28.9-1 src/misc/cudawrap.cc ncclCuMemEnable
func (r *initRun) cuMemEnable() bool {
	p := r.param("NCCL_CUMEM_ENABLE")
	if p >= 0 {
		return p != 0
	}
	if p != -2 {
		return false
	}
	for _, nd := range r.comm.System.Nodes {
		if !nd.Driver.CuMem {
			return false
		}
	}
	return true
}

// The CTA policy bits (src/nccl.h.in NCCL_CTA_POLICY_*).
const (
	ctaPolicyEfficiency = 0x01
	ctaPolicyZero       = 0x02
)

// ctaPolicyMask reads NCCL_CTA_POLICY as 2.29.2 does: a leading digit 0, 1
// or 2 is the old single policy (any other digit, and whatever follows the
// first character, is ignored: DEFAULT); otherwise names joined by '|'
// (DEFAULT, EFFICIENCY, ZERO, any case) are or-ed, unknown names ignored.
// Ref: v2.29.2-1 src/init.cc getEnvCtaPolicyOnce
func ctaPolicyMask(v string) int {
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		switch v[0] {
		case '1':
			return ctaPolicyEfficiency
		case '2':
			return ctaPolicyZero
		}
		return 0
	}
	m := 0
	for _, tok := range strings.Split(v, "|") {
		switch strings.ToUpper(tok) {
		case "EFFICIENCY":
			m |= ctaPolicyEfficiency
		case "ZERO":
			m |= ctaPolicyZero
		}
	}
	return m
}

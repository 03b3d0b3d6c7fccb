package params

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
)

// Severity orders findings.
type Severity int

const (
	SevOK      Severity = iota // nothing to say beyond what NCCL uses
	SevInfo                    // worth knowing; NCCL does what the user most likely meant
	SevWarning                 // NCCL ignores the variable or the value, or does something else than it says
	SevError                   // NCCL rejects it: communicator creation or a collective fails
)

var sevNames = [...]string{"ok", "info", "warning", "error"}

func (s Severity) String() string {
	if s >= 0 && int(s) < len(sevNames) {
		return sevNames[s]
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Finding is one thing the linter says about one variable.
type Finding struct {
	Severity Severity `json:"severity"`
	// Code is a stable identifier: unknown-name, typo, foreign, removed,
	// deprecated, not-in-release, unread, not-exported, dynamic, empty,
	// not-a-number, trailing-garbage, out-of-range, octal, ignored-value,
	// rejected, clamped, special-value, overridden, duplicate, lower-case.
	Code    string `json:"code"`
	Message string `json:"message"`
	// Nearest is the closest real name (edit distance) for an unknown one.
	Nearest string `json:"nearest,omitempty"`
	// Ref is where NCCL's source (or, for history, the documentation) says
	// so.
	Ref *spec.Ref `json:"ref,omitempty"`
}

// Var is the linter's verdict on one variable.
type Var struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Line     int    `json:"line,omitempty"`
	Source   string `json:"source"`
	Exported bool   `json:"exported"`
	Dynamic  bool   `json:"dynamic,omitempty"`
	// Known is true when NCCL reads the name at this release.
	Known bool `json:"known"`
	// Type, Default and Reads come from the generated table.
	Type    string `json:"type,omitempty"`
	Default string `json:"default,omitempty"`
	Reads   []Site `json:"reads,omitempty"`
	// Uses says what NCCL does with the value at this release: the number
	// an NCCL_PARAM accessor returns, the level chosen, "ignored".
	Uses string `json:"uses"`
	// Gates are the gate rules the variable feeds (static list).
	Gates []spec.RuleID `json:"gates,omitempty"`
	// Effect is what the GateEffect hook said (empty without a hook).
	Effect   string    `json:"effect,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	Severity Severity  `json:"severity"`
}

// Report is the result of linting one environment against one release.
type Report struct {
	Version spec.Version `json:"-"`
	Release string       `json:"release"`
	Tag     string       `json:"tag"`
	Vars    []Var        `json:"vars"`
	// Ignored counts assignments of variables that are not NCCL_* (PATH,
	// CUDA_VISIBLE_DEVICES ...), which the linter does not judge.
	Ignored int `json:"ignored"`
	// EffectWired says whether the dynamic gate-effect hook ran.
	EffectWired bool `json:"effect_wired"`
	// EffectAt names the operations the effects were judged at (set by
	// the caller that wired the hook).
	EffectAt string `json:"effect_at,omitempty"`
	Errors   int    `json:"errors"`
	Warnings int    `json:"warnings"`
	Infos    int    `json:"infos"`
}

// Worst returns the highest severity in the report.
func (r *Report) Worst() Severity {
	w := SevOK
	for _, v := range r.Vars {
		w = max(w, v.Severity)
	}
	return w
}

// AlgoProtoGrammar checks an NCCL_ALGO or NCCL_PROTO value with the rule
// engine's own parser (spec's G-SEL-PARSE-1/-2). It returns nil when NCCL
// accepts the value, or the error NCCL reports. The engine owns the real
// parser; Lint calls this hook when it is set and otherwise does a light
// check of its own (and says so in the finding).
type AlgoProtoGrammar func(v spec.Version, name, value string) error

// GateEffect is the hook for "the effect of each valid variable on the
// gates for a given system": the gate engine runs the gates on the system
// with the whole environment and again without the one variable, and
// returns a one-line description of what changed (verdicts, decision).
// The engine is not part of this package; Lint only calls the hook.
type GateEffect func(v spec.Version, env spec.Env, name string) (string, error)

// Options tune Lint.
type Options struct {
	// Grammar is the hook for NCCL_ALGO/NCCL_PROTO (nil: light check).
	Grammar AlgoProtoGrammar
	// Effect is the dynamic gate-effect hook (nil: only the static rule
	// list of each variable is reported).
	Effect GateEffect
}

// Lint judges the NCCL_* assignments against the release's registry. The
// assignments are applied in order (a later one wins, unset removes), so a
// job script's final environment is what is judged.
func Lint(reg *Registry, assigns []Assignment, opts Options) *Report {
	rep := &Report{Version: reg.Version, Release: reg.Version.String(), Tag: reg.Version.Tag()}
	type final struct {
		a     Assignment
		count int
		lines []int
	}
	byName := map[string]*final{}
	var order []string
	for _, a := range assigns {
		if !strings.HasPrefix(strings.ToUpper(a.Name), "NCCL_") {
			if a.Source != SourceUnset {
				rep.Ignored++
			}
			continue
		}
		f := byName[a.Name]
		if a.Source == SourceUnset {
			if f != nil {
				delete(byName, a.Name)
				order = slices.DeleteFunc(order, func(n string) bool { return n == a.Name })
			}
			continue
		}
		if f == nil {
			f = &final{}
			byName[a.Name] = f
			order = append(order, a.Name)
		}
		f.count++
		f.lines = append(f.lines, a.Line)
		exported := a.Exported || (f.count > 1 && f.a.Exported && a.Source == SourceAssignment)
		f.a = a
		f.a.Exported = exported
	}
	slices.Sort(order)
	env := spec.Env{}
	for _, n := range order {
		env[n] = byName[n].a.Value
	}
	rel, _ := ReleaseOf(reg.Version)
	l := &linter{reg: reg, v: reg.Version, rel: rel, env: env, opts: opts}
	rep.EffectWired = opts.Effect != nil
	for _, n := range order {
		f := byName[n]
		vr := l.lintVar(f.a)
		if f.count > 1 {
			vr.add(Finding{Severity: SevInfo, Code: "duplicate",
				Message: fmt.Sprintf("set %d times (lines %s); the last one wins", f.count, joinInts(f.lines))})
		}
		for _, fd := range vr.Findings {
			vr.Severity = max(vr.Severity, fd.Severity)
		}
		// the dynamic effect only for a variable NCCL accepts
		if opts.Effect != nil && vr.Known && vr.Severity < SevError {
			eff, err := opts.Effect(l.v, env, n)
			if err != nil {
				eff = "gate engine error: " + err.Error()
			}
			vr.Effect = eff
		}
		for _, fd := range vr.Findings {
			vr.Severity = max(vr.Severity, fd.Severity)
			switch fd.Severity {
			case SevError:
				rep.Errors++
			case SevWarning:
				rep.Warnings++
			case SevInfo:
				rep.Infos++
			}
		}
		rep.Vars = append(rep.Vars, vr)
	}
	return rep
}

func joinInts(l []int) string {
	s := make([]string, len(l))
	for i, x := range l {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

type linter struct {
	reg  *Registry
	v    spec.Version
	rel  Release
	env  spec.Env
	opts Options
	// others are the other releases' tables, loaded once per lint (each
	// load parses a table: milliseconds per unknown name otherwise).
	others map[spec.Version]*Registry
}

func (l *linter) other(v spec.Version) (*Registry, error) {
	if r, ok := l.others[v]; ok {
		return r, nil
	}
	r, err := Load(v)
	if err != nil {
		return nil, err
	}
	if l.others == nil {
		l.others = map[spec.Version]*Registry{}
	}
	l.others[v] = r
	return r, nil
}

func (vr *Var) add(f Finding) { vr.Findings = append(vr.Findings, f) }

func ref(tag, file, fn string) *spec.Ref { return &spec.Ref{Tag: tag, File: file, Func: fn} }

// tagRef is a Ref at this release's tag.
func (l *linter) tagRef(file, fn string) *spec.Ref { return ref(l.v.Tag(), file, fn) }

func (l *linter) lintVar(a Assignment) Var {
	vr := Var{Name: a.Name, Value: a.Value, Line: a.Line, Source: a.Source, Exported: a.Exported, Dynamic: a.Dynamic}
	if !a.Exported {
		vr.add(Finding{Severity: SevWarning, Code: "not-exported",
			Message: "a plain shell assignment: the processes the script starts do not see it unless it is exported (export " + a.Name + ", set -a)"})
	}
	p, known := l.reg.Lookup(a.Name)
	if !known {
		l.unknown(&vr)
		return vr
	}
	vr.Known = true
	vr.Reads = p.Sites()
	vr.Gates = l.reg.GatesFor(a.Name)
	row := p.Rows[0]
	if r, ok := p.IntParam(); ok {
		row = r
	} else if r, ok := p.Typed(); ok {
		row = r
	}
	vr.Type, vr.Default = row.Type, row.Default
	if d, ok := l.reg.deprecation(a.Name); ok {
		msg := "deprecated: " + d.Note
		if d.Replacement != "" {
			msg = "deprecated, use " + d.Replacement + ": " + d.Note
		}
		r := d.Ref
		vr.add(Finding{Severity: SevInfo, Code: "deprecated", Message: msg, Ref: &r})
		if d.Replacement != "" && strings.HasSuffix(d.Name, "NRINGS") {
			if rv, set := l.env.Lookup(d.Replacement); set && rv != "" {
				vr.add(Finding{Severity: SevWarning, Code: "overridden",
					Message: d.Replacement + " is also set, so NCCL ignores " + a.Name, Ref: &r})
				vr.Uses = "ignored (" + d.Replacement + " wins)"
			}
		}
	}
	if !p.Read() {
		vr.add(Finding{Severity: SevWarning, Code: "unread",
			Message: fmt.Sprintf("declared (%s in %s) but no code path of NCCL %s reads it: setting it has no effect", row.Symbol, row.Defined, l.v),
			Ref:     l.tagRef(row.Defined, row.Symbol)})
		if vr.Uses == "" {
			vr.Uses = "ignored (never read)"
		}
		// a string read of the same name may still exist (NCCL_COLLNET_ENABLE)
	}
	if a.Dynamic {
		vr.add(Finding{Severity: SevInfo, Code: "dynamic",
			Message: "the value depends on a shell expansion (" + a.Value + "); only the expanded text can be checked"})
		if vr.Uses == "" {
			vr.Uses = "(set at run time)"
		}
		return vr
	}
	if vr.Uses != "" && strings.HasPrefix(vr.Uses, "ignored (") && strings.Contains(vr.Uses, "wins") {
		return vr
	}
	l.value(&vr, p)
	if vr.Uses == "" {
		vr.Uses = strconv.Quote(a.Value)
	}
	return vr
}

// unknown explains a name that is not in the release's table.
func (l *linter) unknown(vr *Var) {
	name := vr.Name
	vr.Uses = "ignored (not read)"
	if upper := strings.ToUpper(name); upper != name {
		if _, ok := l.reg.Lookup(upper); ok {
			vr.add(Finding{Severity: SevWarning, Code: "lower-case", Nearest: upper,
				Message: "NCCL reads upper-case names only: " + name + " is a different variable from " + upper})
			return
		}
	}
	if d, ok := l.reg.deprecation(name); ok {
		msg := fmt.Sprintf("not read by NCCL %s: %s", l.v, d.Note)
		if d.Replacement != "" {
			msg = fmt.Sprintf("not read by NCCL %s, use %s: %s", l.v, d.Replacement, d.Note)
		}
		r := d.Ref
		vr.add(Finding{Severity: SevWarning, Code: "removed", Message: msg, Nearest: d.Replacement, Ref: &r})
		return
	}
	if f, ok := foreign(name); ok {
		r := f.Ref
		vr.add(Finding{Severity: SevWarning, Code: "foreign",
			Message: fmt.Sprintf("not an NCCL parameter (%s): %s", f.Owner, f.Note), Ref: &r})
		return
	}
	var others []string
	for _, ov := range Versions {
		if ov == l.v {
			continue
		}
		if o, err := l.other(ov); err == nil {
			if p, ok := o.Lookup(name); ok && p.Read() {
				others = append(others, ov.String())
			}
		}
	}
	if len(others) > 0 {
		vr.add(Finding{Severity: SevWarning, Code: "not-in-release",
			Message: fmt.Sprintf("NCCL %s does not read it (it is read by %s)", l.v, strings.Join(others, ", "))})
		return
	}
	near, d := Nearest(name, l.reg.Names())
	if near != "" && d <= typoDistance(name) {
		vr.add(Finding{Severity: SevWarning, Code: "typo", Nearest: near,
			Message: fmt.Sprintf("NCCL %s reads no variable %s; likely a typo of %s (edit distance %d)", l.v, name, near, d)})
		return
	}
	vr.add(Finding{Severity: SevWarning, Code: "unknown-name", Nearest: near,
		Message: fmt.Sprintf("NCCL %s reads no variable %s (nearest real name: %s, edit distance %d)", l.v, name, near, d)})
}

// typoDistance is the largest edit distance still called a typo: a quarter
// of the name, at least 2.
func typoDistance(name string) int { return max(2, len(name)/4) }

// Nearest returns the candidate closest to name by optimal-string-alignment
// distance (ties: the first in sorted order) and the distance.
func Nearest(name string, candidates []string) (string, int) {
	return nccl.NearestName(name, candidates)
}

// ---------------------------------------------------------------------------
// values

func (l *linter) value(vr *Var, p *Param) {
	if r, ok := p.IntParam(); ok && r.Read() {
		l.intParam(vr, r)
	}
	if r, ok := p.Typed(); ok {
		l.typed(vr, r)
	}
	if rule, ok := valueRules[vr.Name]; ok {
		rule(l, vr, p)
		return
	}
	if _, ok := p.IntParam(); !ok && vr.Value == "" {
		vr.add(Finding{Severity: SevInfo, Code: "empty",
			Message: "set but empty: NCCL's string read returns \"\" (not NULL), which is not the same as unset for some variables"})
	}
}

// Read reports whether a row has read sites.
func (r Row) Read() bool { return len(r.Reads) > 0 }

// intParam checks a value read through ncclLoadParam.
func (l *linter) intParam(vr *Var, r Row) {
	pref := l.tagRef("src/misc/param.cc", "ncclLoadParam")
	def, defErr := strconv.ParseInt(r.Default, 10, 64)
	defText := r.Default
	if r.Computed {
		defText += " (NCCL computes the value)"
	}
	if vr.Value == "" {
		vr.add(Finding{Severity: SevInfo, Code: "empty", Ref: pref,
			Message: "set but empty: ncclLoadParam treats an empty value as unset and uses the default " + defText})
		vr.Uses = "default " + defText
		return
	}
	if defErr != nil {
		def = 0
	}
	val, outcome, logLine := LoadParam(vr.Name, vr.Value, true, def)
	parse := nccl.Strtoll(vr.Value, 0)
	trimmed := strings.TrimRight(cString(vr.Value), " \t\n\v\f\r")
	switch {
	case outcome == ParamInvalid:
		vr.add(Finding{Severity: SevError, Code: "out-of-range", Ref: pref,
			Message: fmt.Sprintf("does not fit in int64: NCCL logs %q and uses the default %s", logLine, defText)})
		vr.Uses = "default " + defText
		return
	case !parse.Digits():
		vr.add(Finding{Severity: SevError, Code: "not-a-number", Ref: pref,
			Message: fmt.Sprintf("not a number: strtoll converts no digits, so NCCL uses 0 (not the default %s) and logs %q", defText, logLine)})
	case parse.Used < len(trimmed):
		msg := fmt.Sprintf("NCCL reads only the leading number: %q gives %d (trailing %q ignored, no warning)", vr.Value, val, trimmed[parse.Used:])
		if strings.HasPrefix(strings.TrimLeft(vr.Value, " \t+-"), "0b") || strings.HasPrefix(strings.TrimLeft(vr.Value, " \t+-"), "0B") {
			msg += "; binary 0b literals are not read by the classic glibc strtoll NCCL uses"
		}
		vr.add(Finding{Severity: SevWarning, Code: "trailing-garbage", Ref: pref, Message: msg})
	}
	body := strings.TrimLeft(vr.Value, " \t\n\v\f\r+-")
	if len(body) > 1 && body[0] == '0' && body[1] >= '0' && body[1] <= '9' && parse.Digits() {
		vr.add(Finding{Severity: SevWarning, Code: "octal", Ref: pref,
			Message: fmt.Sprintf("a leading 0 makes strtoll read octal: %q is %d", vr.Value, val)})
	}
	vr.Uses = strconv.FormatInt(val, 10)
	if val == def && !r.Computed {
		vr.Uses += " (the default)"
	}
}

func (l *linter) siteRef(r Row) *spec.Ref {
	if len(r.Reads) == 0 {
		return l.tagRef(r.Defined, r.Symbol)
	}
	return l.tagRef(r.Reads[0].File, r.Reads[0].Func)
}

// typed checks a DEFINE_NCCL_PARAM value (2.30 parameter registry): a value
// its parser rejects is dropped silently and the default used.
//
// Ref: v2.30.7-1 src/include/param/param.h ncclParam::loadValue,
// src/include/param/parser_default.h, parser_enum.h, parser_bitset.h.
func (l *linter) typed(vr *Var, r Row) {
	pref := l.tagRef("src/include/param/param.h", "ncclParam::loadValue")
	bad := func(why string) {
		vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: pref,
			Message: fmt.Sprintf("%s: the 2.30 parameter parser rejects it silently and NCCL uses the default %s", why, r.Default)})
		vr.Uses = "default " + r.Default
	}
	parser := ""
	if len(r.Parse) > 0 {
		parser = r.Parse[0]
	}
	switch {
	case parser == "ncclParamOneOf":
		for _, o := range r.Values {
			if strings.EqualFold(o, vr.Value) {
				vr.Uses = strings.ToUpper(o)
				return
			}
		}
		bad(fmt.Sprintf("%q is not one of %s (case-insensitive)", vr.Value, strings.Join(r.Values, ", ")))
	case parser == "ncclParamBitsetOf":
		for _, tok := range strings.Split(vr.Value, ",") {
			if !slices.ContainsFunc(r.Values, func(o string) bool { return strings.EqualFold(o, tok) }) {
				bad(fmt.Sprintf("%q is not one of %s", tok, strings.Join(r.Values, ", ")))
				return
			}
		}
		vr.Uses = vr.Value
	case r.Type == "bool":
		switch strings.ToUpper(vr.Value) {
		case "1", "T", "TRUE":
			vr.Uses = "true"
		case "0", "F", "FALSE":
			vr.Uses = "false"
		default:
			bad(fmt.Sprintf("%q is not a boolean (1/T/TRUE or 0/F/FALSE)", vr.Value))
		}
	case strings.HasPrefix(r.Type, "int") || strings.HasPrefix(r.Type, "uint"):
		p := nccl.Strtoll(vr.Value, 10)
		if vr.Value == "" || p.Used != len(vr.Value) || p.Range {
			bad(fmt.Sprintf("%q is not a plain decimal integer", vr.Value))
			return
		}
		vr.Uses = strconv.FormatInt(p.Value, 10)
	}
}

// ---------------------------------------------------------------------------
// curated value rules

type valueRule func(l *linter, vr *Var, p *Param)

// valueRules are the hand-written checks of values a release treats
// specially. Each carries its Ref in the findings it makes.
var valueRules = map[string]valueRule{
	"NCCL_ALGO":            ruleAlgoProto,
	"NCCL_PROTO":           ruleAlgoProto,
	"NCCL_COLLNET_ENABLE":  ruleCollNetEnable,
	"NCCL_NVLS_ENABLE":     ruleTriState("NVLS", "src/transport/nvls.cc", "ncclNvlsInit"),
	"NCCL_PAT_ENABLE":      ruleTriState("PAT", "src/graph/tuning.cc", "ncclPatEnable"),
	"NCCL_DEBUG":           ruleEnum("NCCL_LOG_NONE (no output)", true),
	"NCCL_LAUNCH_MODE":     ruleEnum("PARALLEL", true),
	"NCCL_SOCKET_FAMILY":   ruleEnum("no forced family (the first interface found)", false),
	"NCCL_IB_ADDR_FAMILY":  ruleEnum("no forced family", false),
	"NCCL_CHECK_MODE":      ruleEnum("the default check mode", true),
	"NCCL_DEBUG_SUBSYS":    ruleList(",", true),
	"NCCL_P2P_LEVEL":       ruleLevel,
	"NCCL_NET_GDR_LEVEL":   ruleLevel,
	"NCCL_P2P_DISABLE":     ruleP2pDisable,
	"NCCL_IB_TIMEOUT":      ruleBits(5, "IB local ACK timeout (4.096 us x 2^value)"),
	"NCCL_IB_RETRY_CNT":    ruleBits(3, "IB retry count"),
	"NCCL_NTHREADS":        ruleNthreads(64, 512),
	"NCCL_LL128_NTHREADS":  ruleNthreads(160, 640),
	"NCCL_MAX_NCHANNELS":   ruleChannels(1),
	"NCCL_MAX_NRINGS":      ruleChannels(1),
	"NCCL_MIN_NCHANNELS":   ruleChannels(0),
	"NCCL_MIN_NRINGS":      ruleChannels(0),
	"NCCL_NET_PLUGIN":      rulePlugin("net", "libnccl-net", true),
	"NCCL_TUNER_PLUGIN":    rulePlugin("tuner", "libnccl-tuner", false),
	"NCCL_PROFILER_PLUGIN": rulePlugin("profiler", "libnccl-profiler", false),
	"NCCL_ENV_PLUGIN":      rulePlugin("env", "libnccl-env", false),
	"NCCL_GIN_PLUGIN":      rulePlugin("gin", "libnccl-gin", true),
	"NCCL_RMA_PLUGIN":      rulePlugin("rma", "libnccl-rma", true),
	"NCCL_CTA_POLICY":      ruleCtaPolicy,
	"NCCL_MNNVL_ENABLE":    ruleMnnvl,
}

// stringValues returns the literal values the source compares a string
// read of the variable with (generated table).
func stringValues(p *Param) []string {
	var out []string
	for _, r := range p.StringReads() {
		out = append(out, r.Values...)
	}
	if r, ok := p.Typed(); ok {
		out = append(out, r.Values...)
	}
	return out
}

func firstRead(p *Param) (Row, bool) {
	for _, r := range p.Rows {
		if r.Read() {
			return r, true
		}
	}
	return Row{}, false
}

// ruleEnum: the whole value must equal one of the compared literals;
// anything else leaves the fallback.
func ruleEnum(fallback string, caseInsensitive bool) valueRule {
	return func(l *linter, vr *Var, p *Param) {
		if _, typed := p.Typed(); typed {
			return // the typed parser check has run
		}
		vals := stringValues(p)
		r, _ := firstRead(p)
		for _, v := range vals {
			if v == vr.Value || (caseInsensitive && strings.EqualFold(v, vr.Value)) {
				vr.Uses = v
				return
			}
		}
		how := "exactly (case-sensitive strcmp)"
		if caseInsensitive {
			how = "ignoring case (strcasecmp)"
		}
		vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: l.siteRef(r),
			Message: fmt.Sprintf("%q is not one of %s, compared %s: NCCL silently keeps %s", vr.Value, strings.Join(vals, ", "), how, fallback)})
		vr.Uses = "ignored: " + fallback
	}
}

// ruleList: a separated list of compared words, optional leading ^
// (NCCL_DEBUG_SUBSYS); unknown words are skipped silently.
func ruleList(sep string, caseInsensitive bool) valueRule {
	return func(l *linter, vr *Var, p *Param) {
		if _, typed := p.Typed(); typed {
			return
		}
		vals := stringValues(p)
		r, _ := firstRead(p)
		body := strings.TrimPrefix(vr.Value, "^")
		var unknown []string
		for _, tok := range strings.Split(body, sep) {
			if tok == "" {
				continue
			}
			if !slices.ContainsFunc(vals, func(v string) bool { return v == tok || (caseInsensitive && strings.EqualFold(v, tok)) }) {
				unknown = append(unknown, strconv.Quote(tok))
			}
		}
		if len(unknown) > 0 {
			vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: l.siteRef(r),
				Message: fmt.Sprintf("NCCL skips the unknown item(s) %s silently; known: %s", strings.Join(unknown, ", "), strings.Join(vals, ", "))})
		}
	}
}

// ruleTriState: 0 off, 2 auto, any other value forces the feature on.
func ruleTriState(feature, file, fn string) valueRule {
	return func(l *linter, vr *Var, p *Param) {
		r, ok := p.IntParam()
		if !ok || vr.Uses == "" || strings.HasPrefix(vr.Uses, "default") {
			return
		}
		val, _, _ := LoadParam(vr.Name, vr.Value, true, 0)
		rf := l.tagRef(file, fn)
		switch val {
		case 0:
			vr.Uses = "0: " + feature + " off"
		case 2:
			vr.Uses = "2: " + feature + " auto (the default)"
		case 1:
			vr.Uses = "1: " + feature + " forced on"
			vr.add(Finding{Severity: SevInfo, Code: "special-value", Ref: rf,
				Message: feature + " is forced on: NCCL skips its own capability check" + forcedNote(feature, l.rel)})
		default:
			vr.Uses = fmt.Sprintf("%d: %s forced on", val, feature)
			vr.add(Finding{Severity: SevWarning, Code: "special-value", Ref: rf,
				Message: fmt.Sprintf("%d is neither 0 (off) nor 2 (auto): any other value forces %s on like 1, though the source compares with %s", val, feature, strings.Join(r.Checks, " "))})
		}
	}
}

func forcedNote(feature string, rel Release) string {
	if feature == "NVLS" {
		if rel.NVLSBindSoft {
			return "; with exactly 1 a multicast bind failure is fatal (other values make it soft in 2.28)"
		}
		return "; a multicast bind failure is fatal"
	}
	return ""
}

// ruleMnnvl: 0 off, 1 forced, 2 auto (G-MNNVL-1).
func ruleMnnvl(l *linter, vr *Var, p *Param) {
	if _, ok := p.IntParam(); !ok || strings.HasPrefix(vr.Uses, "default") {
		return
	}
	val, _, _ := LoadParam(vr.Name, vr.Value, true, 0)
	rf := l.tagRef(l.rel.MNNVLFile, l.rel.MNNVLFunc)
	switch val {
	case 0, 1, 2:
	default:
		vr.add(Finding{Severity: SevWarning, Code: "special-value", Ref: rf,
			Message: fmt.Sprintf("%d is not 0 (off), 1 (force) or 2 (auto); NCCL tests the value against 0, 1 and 2 only", val)})
	}
}

// ruleCollNetEnable: exact "1" in 2.22.3; (int)strtol base 0 and 0/1 only
// since 2.27.5 (2.28.x, 2.30.7).
func ruleCollNetEnable(l *linter, vr *Var, p *Param) {
	if !l.rel.CollNetEnableStrtol {
		rf := l.tagRef("src/init.cc", "initTransportsRank")
		if vr.Value == "1" {
			vr.Uses = "enabled (when a CollNet plugin is attached)"
			return
		}
		vr.Uses = "disabled"
		if vr.Value == "0" {
			return
		}
		vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf,
			Message: fmt.Sprintf("2.22.3 enables CollNet only for the exact string \"1\" (strcmp): %q leaves CollNet disabled", vr.Value)})
		return
	}
	rf := l.tagRef("src/init.cc", "envConfigOverride")
	parse := nccl.Strtoll(vr.Value, 0)
	x := int32(parse.Value) // (int)strtol(...)
	switch {
	case x == math.MinInt32:
		vr.Uses = "ignored (equals NCCL_CONFIG_UNDEF_INT)"
		vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf,
			Message: "the value converts to INT_MIN, NCCL's 'undefined' marker, so the environment does not override the config"})
	case x != 0 && x != 1:
		vr.Uses = "0 (disabled)"
		vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf,
			Message: fmt.Sprintf("(int)strtol gives %d, not 0/1: NCCL logs \"collnetEnable %d is not a valid value 0/1, set it to 0\"", x, x)})
	default:
		if x == 1 {
			vr.Uses = "1 (enabled, when a CollNet plugin is attached)"
		} else {
			vr.Uses = "0 (disabled)"
		}
		switch {
		case !parse.Digits():
			vr.add(Finding{Severity: SevWarning, Code: "not-a-number", Ref: rf,
				Message: fmt.Sprintf("%q is not a number: (int)strtol gives 0, so CollNet stays disabled", vr.Value)})
		case parse.Used < len(strings.TrimRight(vr.Value, " \t")):
			vr.add(Finding{Severity: SevWarning, Code: "trailing-garbage", Ref: rf,
				Message: fmt.Sprintf("strtol reads only the leading number: %q is %d", vr.Value, x)})
		}
	}
}

// ruleLevel: NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL path names (exact case) or
// the legacy integers 0-5.
func ruleLevel(l *linter, vr *Var, p *Param) {
	rf := l.tagRef("src/graph/paths.cc", "ncclGetLevel")
	all := stringValues(p)
	// ncclGetLevel accepts names up to PATH_SYS only; the array goes on
	// (NET, DIS).
	var names []string
	for _, n := range all {
		names = append(names, n)
		if n == "SYS" {
			break
		}
	}
	if slices.Contains(names, vr.Value) {
		vr.Uses = vr.Value
		return
	}
	if vr.Value != "" && vr.Value[0] >= '0' && vr.Value[0] <= '9' {
		old := nccl.Strtoll(vr.Value, 0).Value
		legacy := []string{"LOC", "PIX", "PXB", "PHB", "SYS", "SYS"}
		if old > 5 || old < 0 {
			old = 5
		}
		vr.Uses = legacy[old] + " (legacy integer)"
		vr.add(Finding{Severity: SevInfo, Code: "deprecated", Ref: rf,
			Message: fmt.Sprintf("legacy integer level: %s means %s; write the name instead (NVL and the newer levels have no number)", vr.Value, legacy[old])})
		return
	}
	vr.Uses = "ignored (NCCL's own level)"
	hint := ""
	for _, n := range names {
		if strings.EqualFold(n, vr.Value) {
			hint = "; the match is case-sensitive: write " + n
		}
	}
	vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf,
		Message: fmt.Sprintf("%q is not a level name (%s) nor a number: NCCL ignores it silently%s", vr.Value, strings.Join(names, ", "), hint)})
}

// ruleP2pDisable: only the value 1 disables P2P (strtol == 1).
func ruleP2pDisable(l *linter, vr *Var, p *Param) {
	rf := l.tagRef("src/graph/paths.cc", "ncclGetLevel")
	x := int32(nccl.Strtoll(vr.Value, 0).Value)
	if x == 1 {
		vr.Uses = "1: P2P disabled (level LOC)"
		return
	}
	vr.Uses = "no effect"
	vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf,
		Message: fmt.Sprintf("only the value 1 disables P2P (strtol(...) == 1); %q has no effect and NCCL_P2P_LEVEL decides", vr.Value)})
}

// ruleBits: a verbs QP attribute of a few bits, passed as uint8_t.
func ruleBits(bits int, what string) valueRule {
	return func(l *linter, vr *Var, p *Param) {
		if strings.HasPrefix(vr.Uses, "default") {
			return
		}
		val, _, _ := LoadParam(vr.Name, vr.Value, true, 0)
		hi := int64(1)<<bits - 1
		rf := l.tagRef(l.rel.IBQPFile, "ncclIbRtsQp")
		if val < 0 || val > hi {
			msg := fmt.Sprintf("%s is a %d-bit field (0-%d) of the IB QP; NCCL passes %d unchecked as uint8_t", what, bits, hi, val)
			if val < 0 || val > 255 {
				msg += fmt.Sprintf(" (it arrives as %d)", uint8(val))
			}
			msg += ", so the verbs call may fail or use another value"
			vr.add(Finding{Severity: SevError, Code: "out-of-range", Ref: rf, Message: msg})
		}
	}
}

// ruleNthreads: getNthreads in tuning.cc.
func ruleNthreads(lo, hi int64) valueRule {
	return func(l *linter, vr *Var, p *Param) {
		if strings.HasPrefix(vr.Uses, "default") {
			return
		}
		val, _, _ := LoadParam(vr.Name, vr.Value, true, 0)
		rf := l.tagRef("src/graph/tuning.cc", "getNthreads")
		nt := int64(int32(val))
		switch {
		case nt <= 0:
			vr.Uses = "NCCL's default"
			vr.add(Finding{Severity: SevInfo, Code: "special-value", Ref: rf, Message: "a value <= 0 means NCCL's default thread count"})
		case nt%32 != 0:
			vr.Uses = strconv.FormatInt(hi, 10)
			vr.add(Finding{Severity: SevWarning, Code: "clamped", Ref: rf,
				Message: fmt.Sprintf("not a multiple of 32: NCCL logs \"Invalid %s %d (must be a multiple of 32)\" and uses the maximum %d", vr.Name, nt, hi)})
		case nt > hi:
			vr.Uses = strconv.FormatInt(hi, 10)
			vr.add(Finding{Severity: SevWarning, Code: "clamped", Ref: rf, Message: fmt.Sprintf("above the maximum: NCCL uses %d", hi)})
		case nt < lo:
			vr.Uses = strconv.FormatInt(lo, 10)
			vr.add(Finding{Severity: SevWarning, Code: "clamped", Ref: rf, Message: fmt.Sprintf("below the minimum: NCCL uses %d", lo)})
		}
		if vr.Name == "NCCL_NTHREADS" {
			vr.add(Finding{Severity: SevInfo, Code: "special-value", Ref: rf,
				Message: "applies to Ring and Tree with LL and Simple only; LL128 uses NCCL_LL128_NTHREADS and CollNet/NVLS always use the maximum"})
		}
	}
}

// maxChannels is MAXCHANNELS at the release, read from the table (the
// default of NCCL_MAX_P2P_NCHANNELS is MAXCHANNELS).
func (l *linter) maxChannels() int64 {
	if p, ok := l.reg.Lookup("NCCL_MAX_P2P_NCHANNELS"); ok {
		if r, ok := p.IntParam(); ok && r.Expr == "MAXCHANNELS" {
			if x, err := strconv.ParseInt(r.Default, 10, 64); err == nil {
				return x
			}
		}
	}
	return 0
}

// ruleChannels: ncclMaxNchannels / ncclMinNchannels clamps.
func ruleChannels(lo int64) valueRule {
	return func(l *linter, vr *Var, p *Param) {
		if strings.HasPrefix(vr.Uses, "default") || strings.HasPrefix(vr.Uses, "ignored") {
			return
		}
		val, _, _ := LoadParam(vr.Name, vr.Value, true, 0)
		if val == -2 {
			return // the "unset" marker
		}
		hi := l.maxChannels()
		fn := "ncclMaxNchannels"
		if lo == 0 {
			fn = "ncclMinNchannels"
		}
		rf := l.tagRef("src/graph/connect.cc", fn)
		v32 := int64(int32(val))
		switch {
		case hi > 0 && v32 > hi:
			vr.Uses = strconv.FormatInt(hi, 10)
			vr.add(Finding{Severity: SevWarning, Code: "clamped", Ref: rf,
				Message: fmt.Sprintf("above MAXCHANNELS: NCCL %s uses %d", l.v, hi)})
		case v32 < lo:
			vr.Uses = strconv.FormatInt(lo, 10)
			vr.add(Finding{Severity: SevWarning, Code: "clamped", Ref: rf, Message: fmt.Sprintf("below %d: NCCL uses %d", lo, lo)})
		}
	}
}

// rulePlugin: library names and the "none" keyword (G-NET-LIB-1). list
// marks a plugin whose variable is a comma list (net from 2.27, GIN, RMA),
// where an empty value names no plugin; the others open the default name
// for an empty value (G-TUNER-LIB-1, G-PROF-1, G-ENV-PLUGIN-1).
func rulePlugin(kind, prefix string, list bool) valueRule {
	return func(l *linter, vr *Var, p *Param) {
		r, _ := firstRead(p)
		rf := l.siteRef(r)
		hasNone := slices.ContainsFunc(stringValues(p), func(v string) bool { return strings.EqualFold(v, "none") })
		switch {
		case hasNone && strings.EqualFold(vr.Value, "none"):
			vr.Uses = "no external " + kind + " plugin"
		case vr.Value == "":
			if !list || !l.rel.PluginList {
				vr.Uses = prefix + ".so (the default name)"
			} else {
				vr.Uses = "no external " + kind + " plugin"
				vr.add(Finding{Severity: SevWarning, Code: "special-value", Ref: rf,
					Message: "set but empty: since 2.27 an empty list means no external plugin (2.22.3 tried " + prefix + ".so)"})
			}
		case strings.EqualFold(vr.Value, "none"):
			vr.Uses = fmt.Sprintf("tries dlopen(%q), then %s-none.so", vr.Value, prefix)
			vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf,
				Message: fmt.Sprintf("NCCL %s has no \"none\" keyword for this plugin: it looks for a library called none", l.v)})
		default:
			vr.Uses = "loads " + vr.Value
			if kind == "net" && strings.Contains(vr.Value, ",") && !l.rel.PluginList {
				vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf,
					Message: "2.22.3 takes one plugin name: the comma list is looked up as one library name"})
			}
		}
	}
}

// ruleCtaPolicy: an int param in 2.28 (0-2), a string with names and | in
// 2.30.
func ruleCtaPolicy(l *linter, vr *Var, p *Param) {
	if _, ok := p.IntParam(); ok && p.Read() {
		if strings.HasPrefix(vr.Uses, "default") {
			return
		}
		val, _, _ := LoadParam(vr.Name, vr.Value, true, 0)
		if val < 0 || val > 2 {
			vr.Uses = "0 (DEFAULT)"
			vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: l.tagRef("src/init.cc", "envConfigOverride"),
				Message: fmt.Sprintf("CTA policy %d is not 0 (DEFAULT), 1 (EFFICIENCY) or 2 (ZERO): NCCL resets it to DEFAULT", val)})
		}
		return
	}
	rf := l.tagRef("src/init.cc", "getEnvCtaPolicyOnce")
	if vr.Value != "" && vr.Value[0] >= '0' && vr.Value[0] <= '9' {
		names := []string{"DEFAULT", "EFFICIENCY", "ZERO"}
		d := vr.Value[0] - '0'
		if d <= 2 {
			vr.Uses = names[d] + " (legacy digit)"
			if len(vr.Value) > 1 {
				vr.add(Finding{Severity: SevWarning, Code: "trailing-garbage", Ref: rf,
					Message: fmt.Sprintf("only the first digit is read: %q means %s", vr.Value, names[d])})
			}
			return
		}
		vr.Uses = "DEFAULT"
		vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf, Message: "legacy digits are 0, 1 and 2 only: NCCL uses DEFAULT"})
		return
	}
	ruleList("|", true)(l, vr, p)
}

// ruleAlgoProto checks NCCL_ALGO / NCCL_PROTO: with the engine's parser when
// the Grammar hook is set, else a light check of the same grammar.
func ruleAlgoProto(l *linter, vr *Var, p *Param) {
	legacy := !l.rel.PerFunctionAlgo
	rf := l.tagRef("src/graph/tuning.cc", "parseList")
	if l.opts.Grammar != nil {
		if err := l.opts.Grammar(l.v, vr.Name, vr.Value); err != nil {
			sev := SevError
			if legacy {
				sev = SevWarning
			}
			vr.add(Finding{Severity: sev, Code: "rejected", Ref: rf, Message: err.Error()})
		}
		return
	}
	var elems []string
	if vr.Name == "NCCL_ALGO" {
		for _, a := range spec.Algos {
			if a == spec.PAT && legacy {
				continue // PAT arrived in 2.23.4
			}
			elems = append(elems, a.String())
		}
	} else {
		for _, pr := range spec.Protos {
			elems = append(elems, pr.String())
		}
	}
	known := func(tok string) bool {
		return slices.ContainsFunc(elems, func(e string) bool { return strings.EqualFold(e, tok) })
	}
	const light = " (light check: spec's NCCL_ALGO/NCCL_PROTO parser is not wired into this linter)"
	if legacy {
		if vr.Value == "" {
			vr.add(Finding{Severity: SevWarning, Code: "special-value", Ref: rf,
				Message: "set but empty: 2.22.3 disables every entry, then restores Ring" + light})
			return
		}
		body := strings.TrimPrefix(vr.Value, "^")
		var bad []string
		for _, tok := range strings.Split(body, ",") {
			if tok != "" && !known(tok) {
				bad = append(bad, strconv.Quote(tok))
			}
		}
		if len(bad) > 0 {
			msg := fmt.Sprintf("2.22.3 ignores unknown item(s) %s silently (known: %s)", strings.Join(bad, ", "), strings.Join(elems, ", "))
			if strings.ContainsAny(vr.Value, ":;") {
				msg += "; the per-function syntax func:list;... arrived in 2.24"
			}
			vr.add(Finding{Severity: SevWarning, Code: "ignored-value", Ref: rf, Message: msg + light})
		}
		return
	}
	// 2.24+ grammar: entry {';' entry}; entry = [func ':'] ['^'] name {',' name}
	funcs := []string{"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"}
	first := true
	for _, entry := range strings.Split(vr.Value, ";") {
		if entry == "" {
			first = false
			continue
		}
		list := entry
		if i := strings.IndexByte(entry, ':'); i >= 0 {
			prefix := entry[:i]
			if !slices.ContainsFunc(funcs, func(f string) bool { return strings.EqualFold(f, prefix) }) {
				vr.add(Finding{Severity: SevError, Code: "rejected", Ref: rf,
					Message: fmt.Sprintf("NCCL WARNs \"Unrecognized prefix token \\\"%s\\\" when parsing \\\"%s\\\"\" and communicator creation fails (ncclInvalidUsage)%s", prefix, vr.Value, light)})
				return
			}
			list = entry[i+1:]
			if j := strings.IndexByte(list, ':'); j >= 0 {
				list = list[:j] // a third field is ignored
			}
		} else if !first {
			vr.add(Finding{Severity: SevError, Code: "rejected", Ref: rf,
				Message: fmt.Sprintf("NCCL WARNs \"All entries except the first must have a prefix: \\\"%s\\\"\" and communicator creation fails (ncclInvalidUsage)%s", vr.Value, light)})
			return
		}
		first = false
		for _, tok := range strings.Split(strings.TrimPrefix(list, "^"), ",") {
			if tok == "" {
				continue
			}
			if !known(tok) {
				vr.add(Finding{Severity: SevError, Code: "rejected", Ref: rf,
					Message: fmt.Sprintf("NCCL WARNs \"Unrecognized element token \\\"%s\\\" when parsing \\\"%s\\\"\" and communicator creation fails (ncclInvalidUsage); whitespace is not trimmed%s", tok, vr.Value, light)})
				return
			}
		}
	}
	if vr.Value == "" {
		vr.add(Finding{Severity: SevInfo, Code: "special-value", Ref: rf,
			Message: "set but empty: changes nothing, but counts as set (an unavailable choice fails with ncclInvalidUsage rather than ncclInternalError)" + light})
	}
}

package ncclog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// InputError is bad input: an empty or binary file, or a read failure. It
// names the source and, where there is one, the line.
type InputError struct {
	Name string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.Name, e.Line, e.Msg)
	}
	return e.Name + ": " + e.Msg
}

// ErrNoNCCL is returned by Parse (and by Parser.Finish when asked) when not
// a single line was recognised as NCCL's.
var ErrNoNCCL = errors.New("no NCCL log line found: expected NCCL_DEBUG=INFO (or WARN) output, lines such as \"host:pid:tid [dev] NCCL INFO ...\"")

// Parse reads one log. It returns an *InputError for an empty or binary
// input and ErrNoNCCL (wrapped with the name) when nothing in it is NCCL's.
func Parse(r io.Reader, name string) (*Log, error) {
	p := NewParser()
	if err := p.Parse(r, name); err != nil {
		return nil, err
	}
	l := p.Finish()
	if l.NCCLLines == 0 {
		return l, fmt.Errorf("%s: %w", name, ErrNoNCCL)
	}
	return l, nil
}

// Parser accumulates one or more sources (one file per rank, or several
// ranks interleaved in one file) into one Log. It is not safe for
// concurrent use; the zero value is not ready, use NewParser.
type Parser struct {
	log     Log
	kinds   [numKinds]int
	samples [numKinds][]Sample

	env    *distinct[string, EnvVar]
	procs  *distinct[procID, Proc]
	comms  *distinct[string, Comm]
	names  map[string]*distinct[string, NameCount] // list name -> its aggregator
	ops    *distinct[opKey, OpChoice]
	symOps *distinct[symKey, SymOp]
	calls  *distinct[callKey, CollCall]
	errs   *distinct[errorKey, LogError]
	noalgo *distinct[string, NoAlgo]
	trans  *distinct[transKey, TransportUse]
	// connProcs is the process of each Log.NetConns line
	connProcs []string
	chans     *distinct[ChannelSummary, ChannelSummary]
	graphs    *distinct[GraphLine, GraphLine]
	fabric    *distinct[MNNVLFabric, MNNVLFabric]
	lastCall  map[threadID]CollCall
	// vias remembers classifyVia's answers: a log names few paths, and
	// every connection line prints one (at most maxVias kept).
	vias     map[string]viaClass
	tables   map[string]*tableBuilder
	nvlsDevs *firstSeen[nvlsKey]
	versions map[string]bool
	// versionRank ranks the line the release was taken from (see
	// setVersion); bareVersions is true while Versions holds only versions
	// of lines without NCCL's prefix.
	versionRank  int
	bareVersions bool
	gdrHCA       *firstSeen[string]
	ibDevs       *firstSeen[string]
	socks        *firstSeen[string]
	lists        *firstSeen[listKey] // device lists already read (IB ports, socket interfaces)
	prev         *pending            // nil, or &prevBuf
	prevBuf      pending
	// memo holds the form and submatches of recent messages: NCCL prints
	// the same message on every rank and for every repeated operation, so
	// most lines of a long log need no expression run.
	memo msgMemo
	// onBlock, when set (by tests), sees every block of input text.
	onBlock   func(string)
	procSlot  [procSlots]procSlot
	lastErrOn bool
	matrix    *Matrix
}

// pending is the previous NCCL line, kept so that the next physical line
// can continue it (a wrapped paste, a multi-line WARN, the matrix rows).
type pending struct {
	ln        Line
	kind      Kind
	matched   bool
	committed bool
}

// setPrev makes v the pending line (held in place: no allocation per line).
func (p *Parser) setPrev(v pending) {
	p.prevBuf = v
	p.prev = &p.prevBuf
}

// NewParser returns an empty parser.
func NewParser() *Parser {
	p := &Parser{
		names: map[string]*distinct[string, NameCount]{}, lastCall: map[threadID]CollCall{}, vias: map[string]viaClass{},
		tables: map[string]*tableBuilder{}, nvlsDevs: newFirstSeen[nvlsKey](maxProcs),
		versions: map[string]bool{}, gdrHCA: newFirstSeen[string](maxDistinctSmall),
		ibDevs: newFirstSeen[string](maxDistinctSmall), socks: newFirstSeen[string](maxDistinctSmall),
		lists: newFirstSeen[listKey](maxDistinctSmall),
	}
	l := &p.log
	p.env = newDistinct[string](&l.Env, maxDistinctSmall, nil)
	p.procs = newDistinct[procID](&l.Procs, maxProcs, nil)
	p.comms = newDistinct[string](&l.Comms, maxComms, nil)
	p.ops = newDistinct[opKey](&l.Ops, maxDistinctOps, &l.OpsDropped)
	p.symOps = newDistinct[symKey](&l.SymOps, maxDistinctSymOps, &l.SymOpsDropped)
	p.calls = newDistinct[callKey](&l.Calls, maxDistinctCalls, &l.CallsDrop)
	p.errs = newDistinct[errorKey](&l.Errors, maxDistinctErrors, &l.ErrsDropped)
	p.noalgo = newDistinct[string](&l.NoAlgo, maxDistinctSmall, nil)
	p.trans = newDistinct[transKey](&l.Transports, maxDistinctSmall, nil)
	p.chans = newDistinct[ChannelSummary](&l.Channels, maxDistinctSmall, nil)
	p.graphs = newDistinct[GraphLine](&l.Graphs, maxDistinctSmall, nil)
	p.fabric = newDistinct[MNNVLFabric](&l.MNNVL.Fabric, maxDistinctSmall, nil)
	return p
}

// blockSize is how much input the reader turns into text at once: the
// lines are substrings of one block, so reading costs an allocation per
// block, not per line. What the Log keeps of a line is copied out of the
// block (the process's host, samples, error texts, long messages' matches),
// so a kept string never holds a block in memory.
const blockSize = 256 << 10

// Parse reads one source to its end, adding it to the log. Reading is
// streaming: memory does not grow with the size of the input.
//
// A line of maxLineBytes or more keeps its first maxLineBytes (counted in
// CutLines); a read error names the line it stopped in.
func (p *Parser) Parse(r io.Reader, name string) error {
	buf := make([]byte, blockSize)
	n, pos := 0, 0 // buf[pos:n] is read and not yet parsed
	var rerr error
	var total int64
	fill := func() {
		for range 100 { // as bufio: give up on a reader that makes no progress
			m, err := r.Read(buf[n:])
			n += m
			total += int64(m)
			if err != nil || m > 0 {
				rerr = err
				return
			}
		}
		rerr = io.ErrNoProgress
	}
	for n < 8192 && rerr == nil {
		fill()
	}
	if err := checkText(buf[:min(n, 8192)], name); err != nil {
		return err
	}
	src := Source{Name: name}
	p.prev = nil
	p.lastErrOn = false
	lineNo := 0
	emit := func(text string) {
		lineNo++
		if len(text) >= maxLineBytes {
			text = text[:maxLineBytes]
			src.CutLines++
		}
		if p.line(trimRightOf(text, "\r\n"), Loc{File: name, Line: lineNo}) {
			src.NCCLLines++
		}
	}
	// long is the kept head of a line longer than maxLineBytes whose end
	// is still to come (skipping is true until its newline).
	var long string
	skipping := false
	scanned := 0 // buf[pos:scanned] holds no newline
	for {
		if skipping {
			if i := bytes.IndexByte(buf[pos:n], '\n'); i >= 0 {
				pos += i + 1
				skipping = false
				emit(long)
			} else {
				pos = n
			}
			scanned = pos
		}
		if !skipping {
			if end := bytes.LastIndexByte(buf[scanned:n], '\n'); end >= 0 {
				end += scanned
				blk := string(buf[pos : end+1])
				p.seeBlock(blk)
				pos = end + 1
				for blk != "" {
					i := strings.IndexByte(blk, '\n')
					emit(blk[:i])
					blk = blk[i+1:]
				}
			}
			scanned = n
			if n-pos >= maxLineBytes {
				long, skipping = string(buf[pos:pos+maxLineBytes]), true
				p.seeBlock(long)
				pos, scanned = n, n
			}
		}
		// buf[pos:n] holds no newline
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				return &InputError{Name: name, Line: lineNo + 1, Msg: "read error: " + rerr.Error()}
			}
			if skipping || pos < n {
				// The input ends without a newline (NCCL always writes
				// one): a paste without the final newline if the line is
				// complete, a cut log if the line is not a recognised
				// message.
				if skipping {
					emit(long)
				} else {
					last := string(buf[pos:n])
					p.seeBlock(last)
					emit(last)
				}
				src.Truncated = p.prev == nil || !p.prev.matched
			}
			break
		}
		if n == len(buf) {
			// the partial line (shorter than maxLineBytes) to the front
			n = copy(buf, buf[pos:n])
			scanned -= pos
			pos = 0
		}
		fill()
	}
	p.commitPrev()
	src.Lines = lineNo
	src.Bytes = total
	if src.Bytes == 0 {
		return &InputError{Name: name, Msg: "empty input: expected an NCCL log (NCCL_DEBUG=INFO output)"}
	}
	p.log.Sources = append(p.log.Sources, src)
	p.prev, p.prevBuf = nil, pending{}
	return nil
}

func (p *Parser) seeBlock(s string) {
	if p.onBlock != nil {
		p.onBlock(s)
	}
}

// checkText rejects binary input by its first bytes: a NUL byte, or mostly
// control characters.
func checkText(head []byte, name string) error {
	ctl := 0
	line := 1
	for i, b := range head {
		switch {
		case b == 0:
			return &InputError{Name: name, Line: line, Msg: fmt.Sprintf("binary data (NUL byte at offset %d): expected a text NCCL log", i)}
		case b == '\n':
			line++
		case b < 0x20 && b != '\t' && b != '\r' && b != 0x1b && b != '\f':
			ctl++
		}
	}
	if len(head) >= 64 && ctl*10 > len(head) {
		return &InputError{Name: name, Msg: fmt.Sprintf("binary data (%d control bytes in the first %d): expected a text NCCL log", ctl, len(head))}
	}
	return nil
}

// warnForms are the forms NCCL prints at WARN level; a bare line of one of
// them (a framework's "Last error:" text) is still an error.
var warnForms = map[string]bool{
	"net.anyfail": true, "net.notfound": true, "net.ib.noip": true, "net.ib.completion": true,
	"net.socket.noif": true, "collnet.arity": true, "collnet.initfail": true, "collnet.algo.ignored": true,
	"collnet.child": true, "nvls.bind.fail": true, "nvls.nonic": true, "op.noalgo": true,
	"env.algo.parse": true, "cuda.failure": true, "proc.doublefree": true,
}

var timestampOnly = regexp.MustCompile(`^\d{4}-\d\d-\d\d[T ][\d:.]+(?:Z|[+-]\d\d:?\d\d)?$`)

// mayBeTimestamp is the cheap part of timestampOnly (it starts with a
// digit and has the date's first dash), so most lines skip the expression.
func mayBeTimestamp(s string) bool { return len(s) >= 10 && isDigit(s[0]) && s[4] == '-' }

// line handles one physical line; it reports whether it was NCCL's.
func (p *Parser) line(text string, at Loc) bool {
	p.log.Lines++
	armed := p.lastErrOn
	p.lastErrOn = false
	// Most lines are the common INFO line, which is neither blank nor a
	// bare timestamp (it holds spaces and "NCCL"): it skips those tests.
	if ln, ok := parseCanonical(text); ok {
		ln.Loc = at
		p.commitPrev()
		p.log.NCCLLines++
		p.matrix = nil
		p.handleLine(&ln)
		return true
	}
	trimmed := strings.TrimSpace(text)
	if isLauncherOnly(text) || mayBeTimestamp(trimmed) && timestampOnly.MatchString(trimmed) {
		p.log.Blank++
		p.commitPrev()
		p.prev = nil
		p.matrix = nil
		return false
	}
	if ln, ok := parseLineGeneral(text); ok {
		ln.Loc = at
		p.commitPrev()
		p.log.NCCLLines++
		p.matrix = nil
		p.handleLine(&ln)
		return true
	}
	if p.continueLine(trimmed) {
		p.log.Joined++
		return true
	}
	p.commitPrev()
	if ln, fi, sub, ok := p.bare(trimmed, at); ok {
		p.log.NCCLLines++
		p.log.BareLines++
		p.dispatch(&ln, fi, sub, nil)
		p.setPrev(pending{ln: ln, kind: Catalogue[fi].Kind, matched: true})
		return true
	}
	if armed {
		// The line after "Last error:" is NCCL's last WARN text.
		ln := Line{Loc: at, Dev: -1, LauncherRank: -1, Level: LevelBare, Msg: trimmed}
		p.addError(&ln, "framework.lasterror", 0, false)
		p.log.NCCLLines++
		p.log.BareLines++
		p.prev = nil
		return true
	}
	p.prev = nil
	p.log.Unparsed++
	if len(p.log.UnparsedSamples) < maxUnparsedSample {
		p.log.UnparsedSamples = append(p.log.UnparsedSamples, Sample{At: at, Msg: clip(trimmed)})
	}
	return false
}

// commitPrev records the previous line as unrecognised once it is clear
// that no continuation completes it.
func (p *Parser) commitPrev() {
	if p.prev == nil || p.prev.matched || p.prev.committed {
		return
	}
	p.prev.committed = true
	ln := &p.prev.ln
	p.kinds[KindUnknown]++
	if len(p.log.UnknownSamples) < maxUnparsedSample {
		p.log.UnknownSamples = append(p.log.UnknownSamples, firstSample(ln))
	}
	if ln.Level == LevelWarn {
		p.kinds[KindWarn]++
		p.sample(KindWarn, ln)
		p.addError(ln, "warn", 0, false)
	}
}

// clip is the kept copy of a message, cut to a bounded length (a copy:
// the message is read from a block of input).
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return strings.Clone(s)
}

var launcherRes = []*regexp.Regexp{
	regexp.MustCompile(`^\[\d+,\d+\]<std(?:out|err)>:\s*`),
	regexp.MustCompile(`^\[?rank\d+\]?:\s*`),
	regexp.MustCompile(`^\d+:\s*`),
	regexp.MustCompile(`^\[\d+\]\s*`),
	regexp.MustCompile(`^\|\s*`),
	regexp.MustCompile(`^\d{4}-\d\d-\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\s*\|?\s*`),
	regexp.MustCompile(`^[A-Za-z][\w.-]*:\s+`),
}

// bare tries the catalogue on a line without NCCL's prefix, after peeling
// off up to four launcher prefixes.
func (p *Parser) bare(s string, at Loc) (Line, int, []string, bool) {
	rest := s
	launcher := ""
	for range 5 {
		if rest == "" {
			break
		}
		if fi, _ := match(rest, true); fi >= 0 {
			// matched again on a copy: the submatches may be kept, and
			// rest is read from a block of input
			rest = strings.Clone(rest)
			fi, sub := match(rest, true)
			ln := Line{Loc: at, Dev: -1, Level: LevelBare, Msg: rest, Launcher: strings.TrimSpace(launcher)}
			ln.LauncherRank = launcherRank(ln.Launcher)
			return ln, fi, sub, true
		}
		stripped := false
		for _, re := range launcherRes {
			if m := re.FindString(rest); m != "" {
				launcher += m
				rest = rest[len(m):]
				stripped = true
				break
			}
		}
		if !stripped {
			break
		}
	}
	return Line{}, -1, nil, false
}

var nvlsContinuations = []string{"This is usually caused", "Do not force-enable NVLS", "Disable NVLS (NCCL_NVLS_ENABLE=0)"}

// continueLine joins a prefix-less line to the previous NCCL line when it
// is a known continuation or completes an unrecognised (wrapped) message.
func (p *Parser) continueLine(s string) bool {
	if p.matrix != nil {
		if p.matrixRow(s) {
			return true
		}
		p.matrix = nil
	}
	if p.prev == nil || s == "" {
		return false
	}
	if p.prev.ln.Level == LevelWarn || p.prev.kind == KindNVLSBindFail {
		for _, c := range nvlsContinuations {
			if strings.HasPrefix(s, c) {
				return true
			}
		}
	}
	if p.prev.matched {
		return false
	}
	for _, joined := range []string{p.prev.ln.Msg + s, p.prev.ln.Msg + " " + s} {
		if fi, sub := match(joined, false); fi >= 0 {
			ln := p.prev.ln
			ln.Msg = joined
			p.dispatch(&ln, fi, sub, nil)
			p.setPrev(pending{ln: ln, kind: Catalogue[fi].Kind, matched: true})
			return true
		}
	}
	return false
}

// procID is a process (host, pid): a map key that needs no string built
// per line.
type procID struct {
	host string
	pid  int
}

func procKey(ln *Line) string {
	if !ln.HasProc {
		return ""
	}
	return ln.Host + ":" + strconv.Itoa(ln.PID)
}

func procLabel(ln *Line) string {
	k := procKey(ln)
	if k == "" {
		return ""
	}
	if ln.Dev >= 0 {
		return k + "[" + strconv.Itoa(ln.Dev) + "]"
	}
	return k
}

func (p *Parser) handleLine(ln *Line) {
	if ln.HasProc {
		// The host is read from a block of input; every later use of it
		// (keys of calls, NVLS devices) takes the process's own copy.
		pr := p.proc(ln)
		if pr != nil {
			ln.Host = pr.Host
			pr.Lines++
			if ln.Dev >= 0 {
				if len(pr.Devs) < 64 && !slices.Contains(pr.Devs, ln.Dev) {
					pr.Devs = append(pr.Devs, ln.Dev)
				}
			}
		} else {
			ln.Host = strings.Clone(ln.Host) // more processes than kept
		}
	}
	m := p.match(ln.Msg)
	fi, sub := m.form, m.sub
	if fi < 0 {
		p.setPrev(pending{ln: *ln})
		return
	}
	p.dispatch(ln, fi, sub, &m)
	k := Catalogue[fi].Kind
	p.setPrev(pending{ln: *ln, kind: k, matched: true})
	if k == KindAlgoMatrix {
		p.matrix = &Matrix{At: ln.Loc}
	}
}

// procSlots is a direct-mapped cache of where recent processes' records
// are (index+1 in Procs; 0: empty): most lines name one of a few
// processes, and checking a slot costs less than hashing the key.
const procSlots = 1024

type procSlot struct {
	host     string
	pid, idx int
}

// proc returns the record of ln's process, adding it when new; nil when
// the log keeps no more processes.
func (p *Parser) proc(ln *Line) *Proc {
	h := uint(ln.PID) ^ uint(len(ln.Host))<<7
	if ln.Host != "" {
		h ^= uint(ln.Host[len(ln.Host)-1]) << 3
	}
	slot := &p.procSlot[h%procSlots]
	if slot.idx > 0 && slot.pid == ln.PID && slot.host == ln.Host {
		return &p.log.Procs[slot.idx-1]
	}
	k := procID{ln.Host, ln.PID}
	i, ok := p.procs.idx[k]
	if !ok {
		k.host = strings.Clone(ln.Host)
		pr, isNew := p.procs.add(k)
		if !isNew {
			return nil
		}
		*pr = Proc{Host: k.host, PID: ln.PID, LauncherRank: ln.LauncherRank}
		i = len(p.log.Procs) - 1
	}
	pr := &p.log.Procs[i]
	*slot = procSlot{pr.Host, pr.PID, i + 1}
	return pr
}

type memoMatch struct {
	key  string // the remembered copy of the message ("": not remembered)
	form int
	sub  []string
	op   *opLine // a decision line's fields (nil for other forms)
	// errKey is errKey(key): the message as a distinct error.
	errKey string
}

// msgMemo remembers the matches of recent messages in two generations of
// at most maxMemo/2 each: a message found in the older moves to the newer,
// and the older is forgotten when the newer fills. It is a cache only (a
// forgotten message is matched again, to the same answer), cheaper per
// line than an exact LRU: no lock, no list.
type msgMemo struct{ cur, old map[string]memoMatch }

func (m *msgMemo) get(msg string) (memoMatch, bool) {
	if v, ok := m.cur[msg]; ok {
		return v, true
	}
	v, ok := m.old[msg]
	if ok {
		delete(m.old, msg)
		m.put(v)
	}
	return v, ok
}

func (m *msgMemo) put(v memoMatch) {
	if m.cur == nil || len(m.cur) >= maxMemo/2 {
		m.old, m.cur = m.cur, make(map[string]memoMatch, maxMemo/2)
	}
	m.cur[v.key] = v
}

// match is the package's match with the memo in front. A remembered
// message is a copy, so the memo holds at most maxMemo × maxMemoMsg bytes
// of text whatever the lines around it were.
func (p *Parser) match(msg string) memoMatch {
	if m, ok := p.memo.get(msg); ok {
		return m
	}
	if len(msg) > maxMemoMsg {
		// a copy: the submatches may be kept, and msg is read from a
		// block of input
		var m memoMatch
		m.form, m.sub = match(strings.Clone(msg), false)
		return m
	}
	m := memoMatch{key: strings.Clone(msg)}
	m.form, m.sub = match(m.key, false)
	if m.form >= 0 && Catalogue[m.form].Kind == KindOpChoice {
		o := readOpLine(m.sub)
		m.op = &o
	}
	m.errKey = errKey(m.key)
	p.memo.put(m)
	return m
}

func (p *Parser) sample(k Kind, ln *Line) {
	if len(p.samples[k]) < maxSamplesPerKind {
		p.samples[k] = append(p.samples[k], firstSample(ln))
	}
}

// firstSample is the evidence kept of a line: where, which process, and
// the message cut to a bounded length.
func firstSample(ln *Line) Sample { return Sample{At: ln.Loc, Proc: procLabel(ln), Msg: clip(ln.Msg)} }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func atof(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// addName counts name in the named NameCount list.
func (p *Parser) addName(list *[]NameCount, key, name string, at Loc) {
	d := p.names[key]
	if d == nil {
		d = newDistinct[string](list, maxDistinctSmall, nil)
		p.names[key] = d
	}
	r, isNew := d.add(name)
	if r == nil {
		return
	}
	if isNew {
		*r = NameCount{Name: name, At: at}
	}
	r.Count++
}

// setEnv records a variable NCCL reported; it returns the variable's
// record (nil when the table is full).
func (p *Parser) setEnv(name, value, how string, at Loc) *EnvVar {
	e, isNew := p.env.add(name)
	switch {
	case e == nil:
		return nil
	case isNew:
		*e = EnvVar{Name: name, Value: value, How: how, At: at}
		return e
	case e.Value == value && how == "ignored":
		// "is too low" follows the "set by environment" line of the same
		// value: NCCL read it, then left the config field as it was.
		e.How = how
		return e
	case e.Value == value || len(e.Others) >= 4:
		return e
	}
	for _, o := range e.Others {
		if o == value {
			return e
		}
	}
	e.Others = append(e.Others, value)
	return e
}

// addConfigCheck records an envConfigOverride line that refused a
// variable's value or corrected a field (How "checked"): name is the
// variable or the field the line names, value the one refused.
func (p *Parser) addConfigCheck(ln *Line, name, value string) {
	c := ConfigLine{Field: name, Value: value, How: "checked", Msg: ln.Msg, At: ln.Loc}
	if strings.HasPrefix(name, "NCCL_") {
		c.Var = name
		c.Field, _ = spec.ConfigFieldOfVariable(name)
	}
	p.addConfigLine(c)
}

// addConfigLine keeps the distinct "Comm config" lines (every rank
// prints the same ones), a bounded number.
func (p *Parser) addConfigLine(c ConfigLine) {
	if len(p.log.CommConfig) >= maxDistinctSmall || slices.ContainsFunc(p.log.CommConfig, func(o ConfigLine) bool { return o.Msg == c.Msg }) {
		return
	}
	c.Msg = clip(c.Msg)
	p.log.CommConfig = append(p.log.CommConfig, c)
}

// errKey is msg with every 0x<hex digits> and <digits> replaced by "#"
// (pointers and socket ports vary between otherwise equal errors), scanning
// left to right as the expression 0x[0-9a-fA-F]+|<\d+> would.
func errKey(msg string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(msg); {
		n := 0
		switch {
		case msg[i] == '0' && i+2 < len(msg) && msg[i+1] == 'x' && isHex(msg[i+2]):
			n = 3
			for i+n < len(msg) && isHex(msg[i+n]) {
				n++
			}
		case msg[i] == '<' && i+2 < len(msg) && isDigit(msg[i+1]):
			j := i + 1
			for j < len(msg) && isDigit(msg[j]) {
				j++
			}
			if j < len(msg) && msg[j] == '>' {
				n = j + 1 - i
			}
		}
		if n == 0 {
			i++
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(msg))
		}
		b.WriteString(msg[last:i])
		b.WriteByte('#')
		i += n
		last = i
	}
	if last == 0 {
		return msg
	}
	b.WriteString(msg[last:])
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// errorKey identifies a distinct error: its kind and its message with the
// numbers that vary taken out (errKey; the whole message for err.trace).
type errorKey struct{ kind, msg string }

func (p *Parser) addError(ln *Line, kind string, res spec.Result, hasRes bool) {
	p.addErrorMemo(ln, kind, nil, res, hasRes)
}

// addErrorMemo is addError with the message's memo entry (nil: none),
// whose errKey it takes instead of scanning the message again.
func (p *Parser) addErrorMemo(ln *Line, kind string, m *memoMatch, res spec.Result, hasRes bool) {
	key := errorKey{kind, ln.Msg}
	switch {
	case kind == errTraceKind:
	case m != nil:
		key.msg = m.errKey
	default:
		key.msg = errKey(ln.Msg)
	}
	e, ok := p.errs.get(key)
	if !ok {
		key.msg = strings.Clone(key.msg) // kept: a copy out of the input block
		var isNew bool
		if e, isNew = p.errs.add(key); e == nil {
			return
		}
		if isNew {
			*e = LogError{Kind: kind, Level: ln.Level, Msg: clip(ln.Msg), SrcFile: strings.Clone(ln.SrcFile),
				SrcLine: ln.SrcLine, SrcFunc: strings.Clone(ln.SrcFunc), Result: res, HasResult: hasRes, First: firstSample(ln)}
		}
	}
	e.Count++
}

var (
	ibDevRe   = regexp.MustCompile(`([A-Za-z][\w.+-]*):(\d+)/(IB|RoCE)(/SHARP)?`)
	sockIfRe  = regexp.MustCompile(`\[\d+\]([^:\s<]+):`)
	netViaRe  = regexp.MustCompile(`^NET/(.*)/(\d+)(?:\((\d+)\))?(/GDRDMA)?(\(PCI\))?(/Shared)?$`)
	matrixRow = regexp.MustCompile(`^\s*(Broadcast|Reduce|AllGather|ReduceScatter|AllReduce)\s*\|((?:\s+-?\d+)+)\s*\|((?:\s+-?\d+)+)\s*$`)
	matrixHdr = regexp.MustCompile(`^\s*Function\s*\|(.*)\|(.*)$`)
)

// setVersion records a version line. The release comes from the best
// line seen: one with NCCL's prefix ("host:pid:tid [rank] NCCL INFO") over
// a bare one, a version that parses over one that does not, and the first
// of equals; a garbage line early in an interleaved log cannot set it. The
// versions a mismatch is judged on are those of prefixed lines when there
// are any.
func (p *Parser) setVersion(ln *Line, v string) {
	rank := 1
	if ln.Level != LevelBare {
		rank = 3
	}
	r, err := spec.ParseVersion(v)
	if err == nil {
		rank++
	}
	if rank > p.versionRank {
		p.versionRank = rank
		p.log.Version, p.log.VersionAt, p.log.Release = v, ln.Loc, 0
		if err == nil {
			p.log.Release = r
		}
	}
	bare := ln.Level == LevelBare
	switch {
	case !bare && (p.bareVersions || len(p.log.Versions) == 0):
		// the first prefixed version: forget the bare ones
		clear(p.versions)
		p.log.Versions, p.bareVersions = nil, false
	case bare && len(p.log.Versions) == 0:
		p.bareVersions = true
	case bare && !p.bareVersions:
		return
	}
	if !p.versions[v] && len(p.log.Versions) < 16 {
		p.versions[v] = true
		p.log.Versions = append(p.log.Versions, v)
	}
}

// dispatch records one recognised line.
// dispatch records one recognised line; m is the message's memo entry
// (nil, or key "": none), whose reading of the message it takes.
func (p *Parser) dispatch(ln *Line, fi int, sub []string, m *memoMatch) {
	if m != nil && m.key == "" {
		m = nil
	}
	f := &Catalogue[fi]
	p.kinds[f.Kind]++
	p.sample(f.Kind, ln)
	if (ln.Level == LevelWarn || (ln.Level == LevelBare && warnForms[f.ID])) && f.Kind != KindNoAlgo && f.Kind != KindCudaFailure {
		p.addErrorMemo(ln, f.ID, m, 0, false)
	}
	switch f.Kind {
	case KindVersion:
		v := sub[1]
		p.setVersion(ln, v)
		if pr, ok := p.procs.get(procID{ln.Host, ln.PID}); ok && ln.HasProc {
			pr.Version = v
		}
	case KindCudaDriver:
		p.log.CUDADriver = atoi(sub[1])
	case KindEnv:
		name, val := sub[1], strings.TrimSpace(sub[2])
		// Integer parameters print "%lld." and NCCL_COLLNET_ENABLE "%s.".
		if t := strings.TrimSuffix(val, "."); t != val {
			if _, err := strconv.ParseInt(t, 0, 64); err == nil || name == "NCCL_COLLNET_ENABLE" {
				val = t
			}
		}
		how := "env"
		if f.ID == "env.set.to" || f.ID == "env.tuner.set" {
			how = "set"
		}
		p.setEnv(name, val, how, ln.Loc)
	case KindEnvInvalid:
		p.setEnv(sub[2], sub[1], "invalid", ln.Loc)
	case KindEnvConfigReset:
		// the line may name another variable than the one NCCL reads
		name := sub[2]
		if v, ok := spec.ConfigResetVariable(sub[1]); ok {
			name = v
		}
		p.setEnv(name, sub[3], "config", ln.Loc)
		p.addConfigLine(ConfigLine{Field: sub[1], Value: sub[3], How: "reset", Var: name, Msg: ln.Msg, At: ln.Loc})
	case KindEnvConfigSet:
		if field, ok := spec.ConfigFieldOfLabel(sub[1]); ok {
			p.addConfigLine(ConfigLine{Field: field, Value: sub[2], How: "set", Msg: ln.Msg, At: ln.Loc})
		}
	case KindEnvTooLow:
		if e := p.setEnv(sub[1], sub[2], "ignored", ln.Loc); e != nil && e.How == "ignored" {
			e.Kept = sub[3]
		}
		p.addConfigCheck(ln, sub[1], sub[2])
	case KindEnvConfigCheck:
		switch f.ID {
		case "env.config.ctapolicy.unknown":
			p.addConfigCheck(ln, "CTAPolicy", sub[1]) // one refused name
			return
		case "env.config.ctapolicy.legacy":
			p.addConfigCheck(ln, "CTAPolicy", "") // the digit is not printed
			return
		}
		// a line naming its variable reports NCCL reading it: refused
		// ("not valid", "too big": the field keeps its value), or taken
		// (NCCL_NUM_RMA_CTX=0)
		if strings.HasPrefix(sub[1], "NCCL_") {
			how := "ignored"
			if f.ID == "env.config.rmaoff" {
				how = "config"
			}
			if e := p.setEnv(sub[1], sub[2], how, ln.Loc); e != nil && e.How == "ignored" && f.ID == "env.config.notvalid" {
				e.Kept = sub[3]
			}
		}
		p.addConfigCheck(ln, sub[1], sub[2])
	case KindPluginNotFound:
		names := ""
		switch f.ID {
		case "net.plugin.notfound", "net.plugin.notfound.221":
			names = sub[1]
		case "net.plugin.notfound.219":
			names = sub[2]
		case "net.plugin.couldnotfind":
			names = sub[1]
		}
		for _, n := range strings.Fields(names) {
			p.addPluginNotFound(strings.TrimSuffix(n, "."))
		}
	case KindPluginLoadError:
		name := sub[1]
		if name == "" {
			name = sub[4]
		}
		msg := sub[3]
		if strings.Contains(msg, "No such file or directory") && (name == "" || strings.Contains(msg, name)) {
			if name == "" {
				name = strings.TrimSpace(strings.SplitN(msg, ":", 2)[0])
			}
			p.addPluginNotFound(name)
		} else if len(p.log.Plugin.LoadErrors) < 8 {
			p.log.Plugin.LoadErrors = appendUnique(p.log.Plugin.LoadErrors, strings.TrimSpace(name+" "+msg))
		}
	case KindPluginOpenError:
		if len(p.log.Plugin.LoadErrors) < 8 {
			p.log.Plugin.LoadErrors = appendUnique(p.log.Plugin.LoadErrors, sub[1]+": "+sub[2])
		}
	case KindPluginNameEnv:
		p.log.Plugin.NameEnv = sub[1]
	case KindPluginSymbolMissing:
		p.log.Plugin.SymbolsMissing = appendUniqueInt(p.log.Plugin.SymbolsMissing, atoi(sub[1]))
	case KindPluginNoSymbol:
		p.log.Plugin.NoSymbol = true
	case KindPluginLoaded:
		p.log.Plugin.Name, p.log.Plugin.ABI = sub[1], atoi(sub[2])
	case KindCollNetLoaded:
		p.log.Plugin.CollNetName, p.log.Plugin.CollNetABI = sub[1], atoi(sub[2])
	case KindCollNetSymbolMissing:
		p.log.Plugin.CollNetSymbolsMissing = appendUniqueInt(p.log.Plugin.CollNetSymbolsMissing, atoi(sub[1]))
	case KindCollNetNoSymbol:
		p.log.Plugin.CollNetNoSymbol = true
	case KindPluginUnsupported:
		p.log.Plugin.Unsupported = sub[1]
	case KindPluginSuccess:
		p.log.Plugin.Success = true
		p.log.Plugin.Path = sub[1]
	case KindPluginPath:
		if p.log.Plugin.Path == "" {
			p.log.Plugin.Path = sub[1]
		}
	case KindP2PPlugin:
		p.log.Plugin.P2PPlugin = sub[1]
	case KindOFIProvider:
		p.log.Plugin.OFIProvider = sub[1]
		if sub[2] != "" {
			p.log.Plugin.OFINICs = atoi(sub[2])
		}
	case KindOFI:
		p.ofiLine(sub[1], ln.Loc)
	case KindPluginInitialized:
		p.addName(&p.log.Initialized, "init", sub[1], ln.Loc)
	case KindPluginInitFailed:
		p.addName(&p.log.InitFailed, "initfail", sub[1], ln.Loc)
	case KindPluginAssigned:
		p.addName(&p.log.Assigned, "assigned", sub[1], ln.Loc)
	case KindUsingNetwork:
		p.addName(&p.log.Networks, "net", strings.TrimSpace(sub[1]), ln.Loc)
	case KindNetDevices:
		p.addName(&p.log.NetDevices, "netdev", sub[3]+" "+sub[2], ln.Loc)
	case KindNetDeviceHost:
		p.log.Plugin.DeviceType = "host"
	case KindNetDeviceUnpack:
		p.log.Plugin.DeviceType = "unpack v" + sub[1]
	case KindIBUsing:
		if p.lists.seen(listKey{"ib", sub[1]}) {
			break // every port of this list was counted already
		}
		for _, m := range ibDevRe.FindAllStringSubmatch(sub[1], -1) {
			d := m[1] + ":" + m[2] + "/" + m[3]
			if p.ibDevs.first(d) {
				p.log.IB.Devices = append(p.log.IB.Devices, d)
				if m[4] != "" {
					p.log.IB.SHARPDevices++
				}
			}
		}
	case KindIBVirtualDevice:
		// from 2.24.3 every port is a virtual device of one (and
		// 2.24.3-2.26.6 every group of one a vNic): only several ports
		// are a fusion
		if atoi(sub[4]) < 2 {
			break
		}
		d := "[" + sub[1] + "] " + sub[2] + " ndevs=" + sub[4]
		if p.ibDevs.first("vdev " + d) {
			p.log.IB.VirtualDevices = append(p.log.IB.VirtualDevices, d)
		}
	case KindVNicMade:
		if len(p.log.IB.VNicsMade) < maxDistinctSmall && !slices.Contains(p.log.IB.VNicsMade, atoi(sub[1])) {
			p.log.IB.VNicsMade = append(p.log.IB.VNicsMade, atoi(sub[1]))
		}
	case KindIBNoDevice:
		p.log.IB.NoDevice++
	case KindIBNoIP:
		p.log.IB.NoIP++
	case KindVerbsMissing:
		p.log.IB.VerbsMissing++
	case KindIBDataError:
		p.log.IB.DataErrors++
	case KindSocketUsing:
		if p.lists.seen(listKey{"sock", sub[1]}) {
			break
		}
		for _, m := range sockIfRe.FindAllStringSubmatch(sub[1], -1) {
			if p.socks.first(m[1]) {
				p.log.Sockets = append(p.log.Sockets, m[1])
			}
		}
	case KindSocketNoIf:
		p.log.SocketNoIf++
	case KindGDRHCA:
		if sub[1] == "Socket" {
			break // sockets never do GPUDirect RDMA; not a verdict on the NIC
		}
		key := sub[2] + "|" + sub[4]
		if p.gdrHCA.first(key) {
			if sub[2] == "Enabled" {
				p.log.GDR.HCAEnabled = append(p.log.GDR.HCAEnabled, sub[4])
			} else {
				p.log.GDR.HCADisabled = append(p.log.GDR.HCADisabled, sub[4])
			}
		}
	case KindGDRGPU:
		if sub[1] == "Enabled" {
			p.log.GDR.GPUEnabled++
		} else {
			p.log.GDR.GPUDisabled++
		}
	case KindTransport:
		v, ok := p.vias[sub[9]]
		if !ok {
			v.class, v.detail, v.net, v.gdr = classifyVia(sub[9])
			if len(p.vias) < maxVias {
				p.vias[strings.Clone(sub[9])] = v
			}
		}
		p.addTransport(v.class, v.detail, v.net, v.gdr, ln)
		p.addNetConn(sub, ln)
	case KindConnectedRings:
		if sub[1] != "" && p.log.RingConn == nil {
			p.log.RingConn = &RingConnLine{PXN: sub[1] != "0", GDR: sub[2] != "0", At: ln.Loc}
		}
		p.connected("ring", ln)
	case KindConnectedTrees:
		p.connected("tree", ln)
	case KindCollNetConn:
		detail := "COLLNET/" + sub[5]
		if sub[7] != "" {
			detail += "/GDRDMA"
		}
		p.addTransport("COLLNET", detail, sub[5], sub[7] != "", ln)
	case KindNVLSSupport:
		key := nvlsKey{loc: ln.Loc}
		if ln.HasProc {
			key = nvlsKey{proc: procID{ln.Host, ln.PID}, dev: ln.Dev, what: sub[2]}
		}
		if p.nvlsDevs.first(key) {
			if sub[1] == "" {
				p.log.NVLS.AvailableDevs++
			} else {
				p.log.NVLS.UnavailableDevs++
			}
		}
		if sub[3] != "" {
			p.log.NVLS.NChannels = atoi(sub[3])
		}
	case KindNVLSRegFail:
		p.log.NVLS.RegFailures++
		f := NVLSRegFailure{SendBytes: atoi64(sub[3]), RecvBytes: atoi64(sub[5]), InPlace: sub[2] == sub[4] && sub[2] != "(nil)"}
		if !slices.Contains(p.log.NVLS.RegFailed, f) && len(p.log.NVLS.RegFailed) < maxDistinctSmall {
			p.log.NVLS.RegFailed = append(p.log.NVLS.RegFailed, f)
		}
		p.addReg(RegOutcome{Path: tuning.ChunkRegNVLS, Failed: true, SendBytes: f.SendBytes, RecvBytes: f.RecvBytes, InPlace: f.InPlace})
	case KindRegistered, KindRegFailed:
		p.addReg(regOutcome(f.ID, f.Kind == KindRegFailed, sub))
	case KindCudaFailure:
		if strings.Contains(ln.SrcFile, "nvls") {
			p.log.NVLS.CudaFailures++
		}
		res := spec.UnhandledCudaError
		p.addError(ln, f.ID, res, true)
	case KindChannels:
		cs := ChannelSummary{Coll: atoi(sub[1]), P2P: atoi(sub[4]), P2PPerPeer: atoi(sub[5])}
		if sub[2] != "" {
			cs.CollNet, cs.HasCollNet = atoi(sub[2]), true
		}
		if sub[3] != "" {
			cs.NVLS, cs.HasNVLS = atoi(sub[3]), true
		}
		if r, isNew := p.chans.add(cs); r != nil {
			if isNew {
				*r = cs
				r.At = ln.Loc
			}
			r.Count++
		}
	case KindP2PType:
		// keep the first line, or the first that shows directMode
		if t := (P2PTypeLine{AllDirectP2P: sub[1] != "0", DirectMode: sub[2] != "0", At: ln.Loc}); p.log.P2PType == nil || t.DirectMode && !p.log.P2PType.DirectMode {
			p.log.P2PType = &t
		}
	case KindP2PMaxPeers:
		if f.ID == "p2p.maxpeers" {
			p.log.P2PMaxPeers = max(p.log.P2PMaxPeers, atoi(sub[1]))
		}
	case KindGraph:
		g := GraphLine{Pattern: atoi(sub[1]), CrossNic: atoi(sub[2]), NChannels: atoi(sub[3]), BwIntra: atof(sub[4]),
			BwInter: atof(sub[5]), TypeIntra: sub[6], TypeInter: sub[7], SameChannels: atoi(sub[8])}
		if r, isNew := p.graphs.add(g); r != nil {
			if isNew {
				*r = g
				r.At = ln.Loc
			}
			r.Count++
		}
	case KindMNNVL:
		if atoi(sub[1]) != 0 {
			p.log.MNNVL.Enabled++
		} else {
			p.log.MNNVL.Disabled++
		}
		p.log.MNNVL.CliqueSize = max(p.log.MNNVL.CliqueSize, atoi(sub[2]))
		p.log.MNNVL.NVLDomainSize = max(p.log.MNNVL.NVLDomainSize, atoi(sub[3]))
	case KindMNNVLCrossClique:
		p.log.MNNVL.CrossClique++
		p.log.MNNVL.NVLDomainSize = max(p.log.MNNVL.NVLDomainSize, atoi(sub[1]))
		p.log.MNNVL.CliqueSize = max(p.log.MNNVL.CliqueSize, atoi(sub[2]))
	case KindMNNVLFabric:
		f := MNNVLFabric{UUID: sub[2], CliqueID: sub[3], State: atoi(sub[4]), HealthMask: sub[5]}
		if r, isNew := p.fabric.add(f); r != nil {
			if isNew {
				*r = f
				r.At = ln.Loc
			}
			r.Count++
		}
	case KindCommInfo:
		c := p.comm(ln, sub[1])
		if c != nil {
			c.Rank, c.NRanks, c.NNodes, c.LocalRanks, c.MNNVL = atoi(sub[2]), atoi(sub[3]), atoi(sub[4]), atoi(sub[5]), atoi(sub[7])
		}
	case KindInitStart, KindInitComplete:
		c := p.comm(ln, sub[1])
		if c != nil {
			c.Rank, c.NRanks, c.CudaDev, c.BusID = atoi(sub[2]), atoi(sub[3]), atoi(sub[4]), sub[6]
			if f.Kind == KindInitStart {
				c.Started = true
			} else {
				c.Complete = true
			}
		}
		if f.Kind == KindInitStart {
			p.log.InitStarted++
		} else {
			p.log.InitCompleted++
		}
	case KindTuningHeaderOld, KindTuningAlgorithm, KindTuningProtocol, KindTuningThreads, KindTuningRow:
		p.tableLine(ln, f.Kind, sub)
	case KindOpChoice:
		var o *opLine
		if m != nil {
			o = m.op
		}
		if o == nil {
			r := readOpLine(sub)
			o = &r
		}
		p.addOpResolved(ln, o.f, o.fKnown, o.bytes, o.a, o.pr, o.lo, o.hi, -1)
	case KindOpChoiceNum:
		p.addOpNum(ln, sub)
	case KindOpSymmetric:
		p.addSymOp(ln, sub)
	case KindCollCall:
		p.addCall(ln, sub)
	case KindNoAlgo:
		p.addNoAlgo(ln, sub)
	case KindErrTrace:
		// One error kind for both forms (with and without 2.30.7's
		// function): each line is its own error, keyed by the whole message.
		r := atoi(sub[3])
		if r > 0 && r < 8 {
			p.addError(ln, errTraceKind, spec.Result(r), true)
		} else {
			p.addError(ln, errTraceKind, 0, false)
		}
	case KindFrameworkError:
		res := frameworkResult(sub[2])
		p.addError(ln, f.ID, res, true)
		if sub[3] != "" {
			p.setVersion(ln, sub[3])
		}
	case KindResultName:
		if r, err := nccl.ParseResult(sub[1]); err == nil {
			p.addError(ln, f.ID, r, true)
		}
	case KindLastError:
		if strings.TrimSpace(sub[1]) == "" {
			p.lastErrOn = true
		} else {
			l2 := *ln
			l2.Msg = strings.TrimSpace(sub[1])
			p.addError(&l2, "framework.lasterror", 0, false)
		}
	}
}

func frameworkResult(s string) spec.Result {
	switch s {
	case "unhandled cuda error":
		return spec.UnhandledCudaError
	case "unhandled system error":
		return spec.SystemError
	case "internal error":
		return spec.InternalError
	case "invalid argument":
		return spec.InvalidArgument
	case "invalid usage":
		return spec.InvalidUsage
	case "remote process exited or there was a network error":
		return nccl.RemoteError
	case "NCCL operation in progress":
		return spec.InProgress
	}
	return spec.InternalError
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func appendUniqueInt(list []int, n int) []int {
	for _, x := range list {
		if x == n {
			return list
		}
	}
	if len(list) >= 16 {
		return list
	}
	return append(list, n)
}

func (p *Parser) addPluginNotFound(name string) {
	if name == "" || len(p.log.Plugin.NotFound) >= 16 {
		return
	}
	p.log.Plugin.NotFound = appendUnique(p.log.Plugin.NotFound, name)
}

// viaClass is classifyVia's answer.
type viaClass struct {
	class, detail, net string
	gdr                bool
}

// maxVias bounds the remembered transport paths.
const maxVias = 1024

// classifyVia reads the transport path of a connection line ("via ...").
func classifyVia(via string) (class, detail, net string, gdr bool) {
	via = strings.TrimSpace(via)
	switch {
	case strings.HasPrefix(via, "NET/"):
		if m := netViaRe.FindStringSubmatch(via); m != nil {
			net = m[1]
			gdr = m[4] != ""
			detail = "NET/" + net
			if gdr {
				detail += "/GDRDMA"
			}
			if m[6] != "" {
				detail += "/Shared"
			}
			return "NET", detail, net, gdr
		}
		return "NET", via, strings.SplitN(via[4:], "/", 2)[0], strings.Contains(via, "GDRDMA")
	case strings.HasPrefix(via, "P2P/"):
		d := via
		if strings.HasPrefix(via, "P2P/indirect/") {
			d = "P2P/indirect"
			if strings.HasSuffix(via, "/read") {
				d += "/read"
			}
		}
		return "P2P", d, "", false
	case strings.HasPrefix(via, "SHM/"):
		return "SHM", via, "", false
	case via == "direct shared memory":
		return "SHM", "SHM/direct shared memory", "", false
	}
	return "OTHER", via, "", false
}

func (p *Parser) addTransport(class, detail, net string, gdr bool, ln *Line) {
	r, isNew := p.trans.add(transKey{class, detail})
	if r == nil {
		return
	}
	if isNew {
		*r = TransportUse{Class: class, Detail: detail, Net: net, GDR: gdr, First: firstSample(ln)}
	}
	r.Count++
}

func (p *Parser) comm(ln *Line, ptr string) *Comm {
	c, isNew := p.comms.add(procKey(ln) + "|" + ptr)
	if isNew {
		*c = Comm{Proc: procKey(ln), Ptr: ptr, CudaDev: ln.Dev, At: ln.Loc}
	}
	return c
}

func threadKey(ln *Line) string {
	if !ln.HasProc {
		return "?"
	}
	return ln.Host + ":" + strconv.Itoa(ln.PID) + ":" + strconv.Itoa(ln.TID)
}

// transKey, nvlsKey and listKey are map keys built without a string per
// line: a transport (class, detail); a process's device and the NVLS line's
// subject (or the line's place when it names no process); a device list
// ("ib" or "sock", the list as printed).
type transKey struct{ class, detail string }

type nvlsKey struct {
	proc procID
	dev  int
	what string
	loc  Loc
}

type listKey struct{ kind, list string }

// threadID is a thread (host, pid, tid), or the thread of lines without
// NCCL's process prefix ("?" in threadKey): a map key built without a
// string per line.
type threadID struct {
	proc procID
	tid  int
	has  bool
}

func threadOf(ln *Line) threadID {
	if !ln.HasProc {
		return threadID{}
	}
	return threadID{procID{ln.Host, ln.PID}, ln.TID, true}
}

// callKey and opKey identify distinct call and decision lines.
type callKey struct {
	f      spec.Func
	count  int64
	dt     spec.DataType
	op     spec.RedOp
	root   int
	nranks int
}

// symKey is what makes a [Symmetric] line distinct: all it prints.
type symKey struct {
	f                        spec.Func
	known                    bool
	bytes                    int64
	kernel                   string
	nChannels, nThreads, nWs int
}

// addSymOp records a [Symmetric] line. The expression bounds every field
// (a kernel name of at most 64 word characters, where NCCL's longest has
// about 30, counts of at
// most 6 digits, bytes of at most 19), so the values fit their types; a
// byte count past int64 does not match (strconv fails) and is left out.
func (p *Parser) addSymOp(ln *Line, sub []string) {
	bytes, err := strconv.ParseInt(sub[2], 10, 64)
	if err != nil {
		return
	}
	k := symKey{bytes: bytes, kernel: sub[3], nChannels: atoi(sub[4]), nThreads: atoi(sub[5]), nWs: -1}
	if sub[6] != "" {
		k.nWs = atoi(sub[6])
	}
	k.f, k.known = readFunc(sub[1], true)
	r, isNew := p.symOps.add(k)
	if r == nil {
		return
	}
	if isNew {
		k.kernel = strings.Clone(k.kernel)
		*r = SymOp{Func: k.f, FuncKnown: k.known, Bytes: bytes, Kernel: k.kernel, NChannels: k.nChannels, NThreads: k.nThreads, NWorks: k.nWs, First: firstSample(ln)}
	}
	r.Count++
}

type opKey struct {
	f       spec.Func
	known   bool
	bytes   int64
	a       spec.Algo
	p       spec.Proto
	lo, hi  int
	trace   bool
	dt      spec.DataType
	dtKnown bool
}

// logFuncs, logAlgos and logProtos are the names as NCCL prints them
// (Func.String, Algo.LogName and String, Proto.LogName and String),
// looked up before the spec's case-folding parsers.
var logFuncs, logAlgos, logProtos = func() (map[string]spec.Func, map[string]spec.Algo, map[string]spec.Proto) {
	f, a, p := map[string]spec.Func{}, map[string]spec.Algo{}, map[string]spec.Proto{}
	for _, fn := range spec.AllFuncs {
		f[fn.String()] = fn
	}
	for i := range spec.NumAlgos {
		a[spec.Algo(i).String()], a[spec.Algo(i).LogName()] = spec.Algo(i), spec.Algo(i)
	}
	for i := range spec.NumProtos {
		p[spec.Proto(i).String()], p[spec.Proto(i).LogName()] = spec.Proto(i), spec.Proto(i)
	}
	return f, a, p
}()

// parseFunc is spec.ParseFunc with NCCL's own spellings looked up first.
func parseFunc(s string) (spec.Func, error) {
	if f, ok := logFuncs[s]; ok {
		return f, nil
	}
	return spec.ParseFunc(s)
}

func (p *Parser) addCall(ln *Line, sub []string) {
	fn, err := parseFunc(sub[1])
	if err != nil {
		return
	}
	c := CollCall{Func: fn, Count: atoi64(sub[5]), DType: spec.DataType(atoi(sub[6])), RedOp: spec.RedOp(min(atoi(sub[7]), int(spec.PreMulSum))),
		Root: atoi(sub[8]), NRanks: atoi(sub[10])}
	if len(p.lastCall) > 4096 {
		clear(p.lastCall)
	}
	p.lastCall[threadOf(ln)] = c
	r, isNew := p.calls.add(callKey{c.Func, c.Count, c.DType, c.RedOp, c.Root, c.NRanks})
	if r == nil {
		return
	}
	if isNew {
		*r = c
		r.First = firstSample(ln)
	}
	r.Calls++
}

func (p *Parser) addOpNum(ln *Line, sub []string) {
	a, pr := atoi(sub[3]), atoi(sub[4])
	algo, proto := spec.AlgoNone, spec.ProtoNone
	if a >= 0 && a < spec.NumAlgos {
		algo = spec.Algo(a)
	}
	if pr >= 0 && pr < spec.NumProtos {
		proto = spec.Proto(pr)
	}
	f, fKnown := readFunc(sub[1], sub[1] != "")
	p.addOpResolved(ln, f, fKnown, atoi64(sub[2]), algo, proto, -1, -1, atof(sub[5]))
}

// opLine is what a decision line of 2.24 and later says ("%s: %ld Bytes ->
// Algo %s proto %s channel{Lo..Hi}={%d..%d}"), read once per remembered
// message: the line repeats on every rank and for every repeated operation.
type opLine struct {
	f      spec.Func
	fKnown bool
	bytes  int64
	a      spec.Algo
	pr     spec.Proto
	lo, hi int
}

func readOpLine(sub []string) opLine {
	o := opLine{bytes: atoi64(sub[2]), lo: atoi(sub[5]), hi: atoi(sub[6])}
	o.f, o.fKnown = readFunc(sub[1], true)
	var ok bool
	if o.a, ok = logAlgos[sub[3]]; !ok {
		var err error
		if o.a, err = spec.ParseAlgo(sub[3]); err != nil {
			o.a = spec.AlgoNone
		}
	}
	if o.pr, ok = logProtos[sub[4]]; !ok {
		var err error
		if o.pr, err = spec.ParseProto(sub[4]); err != nil {
			o.pr = spec.ProtoNone
		}
	}
	return o
}

// readFunc is the collective a decision line names, when it names one
// (known) that parses.
func readFunc(fn string, known bool) (spec.Func, bool) {
	if known {
		if f, err := parseFunc(fn); err == nil {
			return f, true
		}
	}
	return 0, false
}

func (p *Parser) addOpResolved(ln *Line, f spec.Func, fKnown bool, bytes int64, a spec.Algo, pr spec.Proto, lo, hi int, t float64) {
	op := OpChoice{Bytes: bytes, Algo: a, Proto: pr, ChannelLo: lo, ChannelHi: hi, TimeUs: t, Trace: ln.Level == LevelTrace}
	op.Func, op.FuncKnown = f, fKnown
	// The call line of the same thread names the datatype and redop (and
	// the collective, which the 2.22 line does not print).
	if c, ok := p.lastCall[threadOf(ln)]; ok && c.Count*int64(max(1, c.DType.Size())) == bytes {
		if !op.FuncKnown {
			op.Func, op.FuncKnown = c.Func, true
		}
		if !op.FuncKnown || op.Func == c.Func {
			op.DType, op.RedOp, op.DTypeKnow = c.DType, c.RedOp, true
		}
	}
	r, isNew := p.ops.add(opKey{op.Func, op.FuncKnown, op.Bytes, op.Algo, op.Proto, op.ChannelLo, op.ChannelHi, op.Trace, op.DType, op.DTypeKnow})
	if r == nil {
		return
	}
	if isNew {
		*r = op
		r.First = firstSample(ln)
	}
	r.Count++
}

func (p *Parser) addNoAlgo(ln *Line, sub []string) {
	na := NoAlgo{Func: sub[1], DType: sub[2], AlgoEnv: sub[3], ProtoEnv: sub[4], Detailed: sub[1] != ""}
	if !na.Detailed {
		if c, ok := p.lastCall[threadOf(ln)]; ok {
			na.Func, na.DType = c.Func.String(), c.DType.String()
		}
	}
	res := spec.InternalError
	if na.AlgoEnv != "" || na.ProtoEnv != "" {
		res = spec.InvalidUsage
	}
	// The WARN does not print the result; it is ncclInvalidUsage when
	// NCCL_ALGO/NCCL_PROTO is set and ncclInternalError otherwise
	// (v2.28.9-1 src/enqueue.cc topoGetAlgoInfo; the 2.22 form has no backup
	// left and returns ncclInternalError).
	p.addError(ln, "op.noalgo", res, true)
	r, isNew := p.noalgo.add(na.Func + "|" + na.DType + "|" + na.AlgoEnv + "|" + na.ProtoEnv)
	if r == nil {
		return
	}
	if isNew {
		*r = na
		r.First = firstSample(ln)
	}
	r.Count++
}

// matrixRow reads one row of the enabled-matrix block.
func (p *Parser) matrixRow(s string) bool {
	if matrixHdr.MatchString(s) {
		m := matrixHdr.FindStringSubmatch(s)
		p.matrix.Algos = p.matrix.Algos[:0]
		for _, name := range strings.Fields(m[2]) {
			if a, err := spec.ParseAlgo(name); err == nil {
				p.matrix.Algos = append(p.matrix.Algos, a)
			}
		}
		return true
	}
	m := matrixRow.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	fn, err := spec.ParseFunc(m[1])
	if err != nil || fn >= spec.NumFuncs {
		return false
	}
	protos := strings.Fields(m[2])
	algos := strings.Fields(m[3])
	for i, v := range protos {
		if i < spec.NumProtos {
			p.matrix.Proto[fn][i] = int8(atoi(v))
		}
	}
	for i, v := range algos {
		if i < spec.NumAlgos {
			p.matrix.Algo[fn][i] = int8(atoi(v))
		}
	}
	p.matrix.Set[fn] = true
	p.matrix.Rows++
	if p.matrix.Rows == spec.NumFuncs && p.log.Matrix == nil {
		m := *p.matrix
		p.log.Matrix = &m
	}
	return true
}

// tableBuilder assembles one printed tuning table from its rows.
type tableBuilder struct {
	t            TuningTable
	inferred     bool
	nextInferred int
	algos        []spec.Algo        // current block's algorithms
	cols         []spec.AlgoProto   // old format: one column per cell
	rows         int                // function rows seen
	seenAlgo     map[spec.Algo]bool // algorithms already in this table
}

func (p *Parser) tableLine(ln *Line, k Kind, sub []string) {
	key := threadKey(ln)
	b := p.tables[key]
	startNew := func() {
		if b != nil {
			p.flushTable(b)
		}
		b = &tableBuilder{seenAlgo: map[spec.Algo]bool{}}
		b.t.At, b.t.Proc = ln.Loc, procLabel(ln)
		p.tables[key] = b
	}
	switch k {
	case KindTuningHeaderOld:
		startNew()
		for _, c := range strings.Split(sub[1], "|") {
			parts := strings.SplitN(strings.TrimSpace(c), "/", 2)
			if len(parts) != 2 {
				continue
			}
			a, err1 := tableAlgo(strings.TrimSpace(parts[0]))
			pr, err2 := spec.ParseProto(strings.TrimSpace(parts[1]))
			if err1 != nil || err2 != nil {
				b.cols = append(b.cols, spec.AlgoProto{Algo: spec.AlgoNone, Proto: spec.ProtoNone})
				continue
			}
			b.cols = append(b.cols, spec.AlgoProto{Algo: a, Proto: pr})
			if !b.seenAlgo[a] {
				b.seenAlgo[a] = true
				b.t.Algos = append(b.t.Algos, a)
			}
		}
	case KindTuningAlgorithm:
		var algos []spec.Algo
		for _, c := range strings.Split(sub[1], "|") {
			if a, err := spec.ParseAlgo(strings.TrimSpace(c)); err == nil {
				algos = append(algos, a)
			}
		}
		if b == nil || (len(algos) > 0 && b.seenAlgo[algos[0]]) {
			startNew()
		}
		b.algos = algos
		b.cols = nil
		for _, a := range algos {
			if !b.seenAlgo[a] {
				b.seenAlgo[a] = true
				b.t.Algos = append(b.t.Algos, a)
			}
		}
	case KindTuningProtocol:
		// A block whose "Algorithm" row the paste lost: its algorithms
		// follow NCCL's index order, three per block.
		if b == nil || (b.inferred && b.rows > 0) {
			next := 0
			if b != nil && b.nextInferred < spec.NumAlgos {
				next = b.nextInferred
			} else {
				startNew()
			}
			b.inferred, b.cols = true, nil
			b.algos = b.algos[:0]
			for a := next; a < next+spec.NumProtos && a < spec.NumAlgos; a++ {
				b.algos = append(b.algos, spec.Algo(a))
				if !b.seenAlgo[spec.Algo(a)] {
					b.seenAlgo[spec.Algo(a)] = true
					b.t.Algos = append(b.t.Algos, spec.Algo(a))
				}
			}
			b.nextInferred = next + spec.NumProtos
			b.t.Inferred = true
		}
	case KindTuningThreads:
		if b == nil {
			return
		}
		for i, c := range cellsOf(sub[1]) {
			a, pr, ok := b.column(i)
			if ok {
				b.t.MaxThreads[a][pr] = atoi(strings.TrimSpace(c))
			}
		}
	case KindTuningRow:
		if b == nil {
			return
		}
		fn, err := spec.ParseFunc(sub[1])
		if err != nil || fn >= spec.NumFuncs {
			return
		}
		for i, c := range cellsOf(sub[2]) {
			a, pr, ok := b.column(i)
			parts := strings.SplitN(c, "/", 2)
			if !ok || len(parts) != 2 {
				continue
			}
			b.t.Cells[fn][a][pr] = Cell{Lat: atof(strings.TrimSpace(parts[0])), Bw: atof(strings.TrimSpace(parts[1])), Set: true}
		}
		b.rows++
	}
}

// tableAlgo reads an algorithm name of the printed table; 2.6-2.13 call
// CollNetDirect "CollNet".
func tableAlgo(s string) (spec.Algo, error) {
	if strings.EqualFold(s, "CollNet") {
		return spec.CollNetDirect, nil
	}
	return spec.ParseAlgo(s)
}

func cellsOf(s string) []string {
	var out []string
	for _, c := range strings.Split(s, "|") {
		if strings.TrimSpace(c) != "" {
			out = append(out, c)
		}
	}
	return out
}

// column maps cell i of a row to its (algorithm, protocol).
func (b *tableBuilder) column(i int) (spec.Algo, spec.Proto, bool) {
	if b.cols != nil {
		if i < len(b.cols) && b.cols[i].Algo != spec.AlgoNone {
			return b.cols[i].Algo, b.cols[i].Proto, true
		}
		return 0, 0, false
	}
	ai, pi := i/spec.NumProtos, i%spec.NumProtos
	if ai < len(b.algos) {
		return b.algos[ai], spec.Proto(pi), true
	}
	return 0, 0, false
}

func (p *Parser) flushTable(b *tableBuilder) {
	if b.rows == 0 || len(p.log.Tables) >= maxTables {
		return
	}
	p.log.Tables = append(p.log.Tables, b.t)
}

// Finish completes the log: pending tables are added, lists sorted where
// order is not meaningful, kind counts named. Parse may not be called after.
func (p *Parser) Finish() *Log {
	keys := make([]string, 0, len(p.tables))
	for k := range p.tables {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.flushTable(p.tables[k])
	}
	p.tables = map[string]*tableBuilder{}
	if p.matrix != nil && p.log.Matrix == nil && p.matrix.Rows > 0 {
		m := *p.matrix
		p.log.Matrix = &m
	}
	sort.Slice(p.log.Env, func(i, j int) bool { return p.log.Env[i].Name < p.log.Env[j].Name })
	p.log.Kinds = map[string]int{}
	p.log.Samples = map[string][]Sample{}
	for k := Kind(0); k < numKinds; k++ {
		if p.kinds[k] > 0 {
			name := KindName(k)
			p.log.Kinds[name] += p.kinds[k]
			p.log.Samples[name] = append(p.log.Samples[name], p.samples[k]...)
		}
	}
	out := p.log
	return &out
}

// ofiSelf are the aws-ofi-nccl lines that name its version, its host's
// instance type, GDR and Libfabric.
//
// Ref: aws-ofi-nccl v1.18.0 src/nccl_ofi_net.cpp nccl_net_ofi_create_plugin
// ("Initializing " PACKAGE_STRING; "Using " before 1.8.0), src/tuner/
// nccl_ofi_tuner.cpp nccl_ofi_tuner_init, include/tuner/
// nccl_ofi_tuner_process_config.h, src/nccl_ofi_system.cpp (TRACE),
// src/nccl_ofi_ofiutils.cpp nccl_ofi_ofiutils_ep_create
var (
	ofiVersionRe   = regexp.MustCompile(`^(?:Initializing|Using) aws-ofi-nccl (\d+\.\d+\.\d+(?:-aws)?)$`)
	ofiPlatformRe  = regexp.MustCompile(`(?:for platform ?: ?|Product Name is |EC2 platform type is )([a-z][a-z0-9-]*\.[a-z0-9]+)(?:,|$)`)
	ofiLibfabricRe = regexp.MustCompile(`^Using Libfabric version (\d+\.\d+)`)
)

// ofiLine reads one "NET/OFI" message: the first of each kind is kept.
func (p *Parser) ofiLine(msg string, at Loc) {
	o := &p.log.Plugin.OFI
	if m := ofiVersionRe.FindStringSubmatch(msg); m != nil && o.Version == "" {
		o.Version, o.VersionAt = m[1], at
	} else if m := ofiPlatformRe.FindStringSubmatch(msg); m != nil && o.Platform == "" {
		o.Platform, o.PlatformAt = m[1], at
	} else if m := ofiLibfabricRe.FindStringSubmatch(msg); m != nil && o.Libfabric == "" {
		o.Libfabric = m[1]
	} else if msg == "Could not disable CUDA API usage for HMEM, disabling GDR" && o.NoGDRAt.Line == 0 {
		o.NoGDRAt = at
	}
}

// regOutcome reads a registration line's submatches: rank, then one
// buffer (address, size[, Send|Recv]) or two (send and receive address,
// then their sizes; the 2.21-2.23 CollNet line alternates them).
func regOutcome(id string, failed bool, sub []string) RegOutcome {
	r := RegOutcome{Failed: failed}
	switch {
	case strings.HasPrefix(id, "reg.ipc."):
		r.Path = tuning.ChunkRegIPC
	case strings.HasPrefix(id, "reg.net."):
		r.Path = tuning.ChunkRegNet
	case strings.HasPrefix(id, "reg.collnet."):
		r.Path = tuning.ChunkRegCollNet
	default:
		r.Path = tuning.ChunkRegNVLS
	}
	switch {
	case id == "reg.collnet.registered.both":
		r.SendBytes, r.RecvBytes = atoi64(sub[3]), atoi64(sub[5])
		r.InPlace = sub[2] == sub[4] && sub[2] != "(nil)"
	case r.Path == tuning.ChunkRegNVLS:
		r.SendBytes, r.RecvBytes = atoi64(sub[4]), atoi64(sub[5])
		r.InPlace = sub[2] == sub[3] && sub[2] != "(nil)"
	default:
		r.Bytes = atoi64(sub[3])
		r.Recv = len(sub) > 4 && sub[4] == "Recv"
	}
	return r
}

// addReg counts a registration line and keeps its outcome once.
func (p *Parser) addReg(r RegOutcome) {
	p.log.Reg.Lines++
	if !slices.Contains(p.log.Reg.Outcomes, r) && len(p.log.Reg.Outcomes) < maxDistinctSmall {
		p.log.Reg.Outcomes = append(p.log.Reg.Outcomes, r)
	}
}

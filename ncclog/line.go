package ncclog

import (
	"strconv"
	"strings"
)

// Level is the NCCL debug level a line was printed at.
type Level uint8

const (
	// LevelBare marks a message recognised without NCCL's prefix: a paste
	// whose prefixes were stripped, or the "Last error:" text a framework
	// (PyTorch) repeats from ncclGetLastError.
	LevelBare Level = iota
	LevelVersion
	LevelInfo
	LevelWarn
	LevelTrace
	LevelCall
)

var levelNames = [...]string{"bare", "VERSION", "INFO", "WARN", "TRACE", "CALL"}

func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "Level(" + strconv.Itoa(int(l)) + ")"
}

// Loc is where a line is: the source name given to Parse and the 1-based
// physical line number in it.
type Loc struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (l Loc) String() string { return l.File + ":" + strconv.Itoa(l.Line) }

// Line is one NCCL log line split into its prefix fields and its message.
//
// The prefix NCCL prints is the same from 2.4 to 2.30
// (v2.28.9-1 src/debug.cc ncclDebugLog):
//
//	INFO   host:pid:tid [dev] NCCL INFO msg
//	WARN   \nhost:pid:tid [dev] file:line NCCL WARN msg          (2.30: file:line (func))
//	TRACE  host:pid:tid [dev] ms func:line NCCL TRACE msg
//	CALL   host:pid:tid NCCL CALL msg
//
// Since 2.26.2 a timestamp ("[%F %T] " by default, WARN only by default,
// NCCL_DEBUG_TIMESTAMP_LEVELS/FORMAT) precedes the host. Launchers add their
// own prefix in front of all this: "[1,0]<stdout>:" (Open MPI
// --tag-output), "0: " (srun -l), "host: " (pdsh, DeepSpeed),
// "[rank0]:" (torchrun); pastes drop parts of it. ParseLine keeps what is
// there and leaves the rest zero.
type Line struct {
	Loc Loc `json:"loc"`
	// Launcher is the text in front of NCCL's own prefix, without NCCL's
	// timestamp; LauncherRank is the rank it names, -1 when none.
	Launcher string `json:"launcher,omitempty"`
	// Repeated is the count of Ray's " [repeated Nx across cluster]"
	// suffix, taken off Msg (0 without one).
	Repeated     int `json:"repeated,omitempty"`
	LauncherRank int `json:"launcher_rank"`
	// Time is NCCL's timestamp as printed (without brackets).
	Time string `json:"time,omitempty"`
	// Host, PID and TID come from host:pid:tid; HasProc says they were there.
	Host    string `json:"host,omitempty"`
	PID     int    `json:"pid,omitempty"`
	TID     int    `json:"tid,omitempty"`
	HasProc bool   `json:"has_proc,omitempty"`
	// Dev is the CUDA device in [dev], -1 when absent.
	Dev   int   `json:"dev"`
	Level Level `json:"level"`
	// SrcFile, SrcLine and SrcFunc are the NCCL source location a WARN or
	// TRACE prints.
	SrcFile string `json:"src_file,omitempty"`
	SrcLine int    `json:"src_line,omitempty"`
	SrcFunc string `json:"src_func,omitempty"`
	Msg     string `json:"msg"`
}

// levelToken finds NCCL's level word: the first "NCCL INFO", "NCCL WARN",
// "NCCL TRACE" or "NCCL CALL" followed by a space or the end of the line.
func levelToken(s string) (at, end int, lvl Level, ok bool) {
	off := 0
	for {
		i := strings.Index(s[off:], "NCCL ")
		if i < 0 {
			return 0, 0, 0, false
		}
		i += off
		rest := s[i+5:]
		for _, c := range [...]struct {
			w string
			l Level
		}{{"INFO", LevelInfo}, {"WARN", LevelWarn}, {"TRACE", LevelTrace}, {"CALL", LevelCall}} {
			if strings.HasPrefix(rest, c.w) {
				e := i + 5 + len(c.w)
				if e == len(s) || s[e] == ' ' || s[e] == '\t' {
					return i, e, c.l, true
				}
			}
		}
		off = i + 5
	}
}

// ParseLine splits one physical line. ok is false when the line carries no
// NCCL level word; the caller then tries the bare forms of the catalogue.
func ParseLine(s string) (ln Line, ok bool) {
	s = trimRightOf(s, "\r\n")
	if ln, ok := parseCanonical(s); ok {
		return ln, true
	}
	return parseLineGeneral(s)
}

// parseCanonical reads the common INFO line, "host:pid:tid [dev] NCCL INFO
// msg" with nothing in front, in one forward pass. It gives what
// parseLineGeneral gives (FuzzParseCanonical holds the two together) and
// declines (ok false) every other shape: a launcher prefix, a timestamp,
// a host with a colon, signs or more than 18 digits in the numbers, other
// levels.
func parseCanonical(s string) (ln Line, ok bool) {
	i := 0
	for i < len(s) && s[i] != ':' && s[i] != ' ' && s[i] != '\t' {
		i++
	}
	if i == 0 || i == len(s) || s[i] != ':' {
		return ln, false
	}
	host := s[:i]
	pid, i, ok1 := digitsAt(s, i+1)
	if !ok1 || i >= len(s) || s[i] != ':' {
		return ln, false
	}
	tid, i, ok2 := digitsAt(s, i+1)
	if !ok2 || i+1 >= len(s) || s[i] != ' ' || s[i+1] != '[' {
		return ln, false
	}
	dev, i, ok3 := digitsAt(s, i+2)
	const level = "] NCCL INFO"
	if !ok3 || len(s)-i < len(level) || s[i:i+len(level)] != level {
		return ln, false
	}
	i += len(level)
	msg := s[i:]
	if msg != "" {
		if msg[0] != ' ' && msg[0] != '\t' {
			return ln, false
		}
		if msg[0] == ' ' {
			msg = msg[1:]
		}
	}
	ln.Msg, ln.Repeated = stripRepeated(trimRightOf(msg, " \t"))
	ln.Level = LevelInfo
	ln.Host, ln.PID, ln.TID, ln.HasProc = host, pid, tid, true
	ln.Dev = dev
	ln.LauncherRank = -1
	return ln, true
}

// digitsAt reads 1 to 18 decimal digits at s[i:] (no sign): the value and
// the index after them.
func digitsAt(s string, i int) (n, end int, ok bool) {
	j := i
	for j < len(s) && j-i <= 18 && s[j] >= '0' && s[j] <= '9' {
		n = n*10 + int(s[j]-'0')
		j++
	}
	if j == i || j-i > 18 {
		return 0, j, false
	}
	return n, j, true
}

// parseLineGeneral is ParseLine for every shape.
func parseLineGeneral(s string) (ln Line, ok bool) {
	ln.Dev = -1
	ln.LauncherRank = -1
	at, end, lvl, found := levelToken(s)
	if !found {
		return ln, false
	}
	ln.Level = lvl
	msg := s[end:]
	// NCCL writes exactly one space after the level word; the message may
	// itself start with spaces (the tuning table's "  Algorithm   |").
	if strings.HasPrefix(msg, " ") {
		msg = msg[1:]
	}
	ln.Msg, ln.Repeated = stripRepeated(trimRightOf(msg, " \t"))
	p := trimRightOf(s[:at], " \t")

	switch lvl {
	case LevelWarn:
		// 2.30 adds "(func)" after file:line.
		if strings.HasSuffix(p, ")") {
			if i := strings.LastIndex(p, " ("); i >= 0 && !strings.ContainsAny(p[i+2:len(p)-1], " ()") {
				ln.SrcFunc = p[i+2 : len(p)-1]
				p = trimRightOf(p[:i], " ")
			}
		}
		if tok, rest := lastToken(p); tok != "" {
			if f, n, ok := fileLine(tok); ok {
				ln.SrcFile, ln.SrcLine = f, n
				p = rest
			}
		}
	case LevelTrace:
		if tok, rest := lastToken(p); tok != "" {
			if f, n, ok := fileLine(tok); ok {
				ln.SrcFunc, ln.SrcLine = f, n
				p = rest
				if tok2, rest2 := lastToken(p); isFloat(tok2) {
					p = rest2
				}
			}
		}
	}
	if tok, rest := lastToken(p); len(tok) >= 3 && tok[0] == '[' && tok[len(tok)-1] == ']' {
		if d, ok := atoiStrict(tok[1 : len(tok)-1]); ok {
			ln.Dev = d
			p = rest
		}
	}
	if tok, rest := lastToken(p); tok != "" {
		if head, pid, tid, ok := splitProc(tok); ok {
			ln.PID, ln.TID, ln.HasProc = pid, tid, true
			// A launcher prefix may be glued to the host: "[1,0]<stdout>:host".
			if i := strings.LastIndexByte(head, ':'); i >= 0 {
				ln.Host = head[i+1:]
				p = rest + " " + head[:i+1]
			} else {
				ln.Host = head
				p = rest
			}
		}
	}
	p = strings.TrimSpace(p)
	ln.Launcher, ln.Time = splitTime(p)
	ln.LauncherRank = launcherRank(ln.Launcher)
	return ln, true
}

// stripRepeated takes Ray's de-duplication suffix off a message:
// "... [repeated 3x across cluster]" stands for 3 more copies of the line
// on other workers. n is the count (0 without the suffix). Ray colours the
// suffix ("\x1b[32m [repeated 3x across cluster]\x1b[0m"); a paste often
// loses the escape byte and keeps "[32m" and "[0m", so both forms of the
// colour codes around the suffix are taken off with it.
func stripRepeated(msg string) (string, int) {
	const tail = "x across cluster]"
	body := trimRightOf(trimSGR(msg), " \t")
	if !strings.HasSuffix(body, tail) {
		return msg, 0
	}
	i := strings.LastIndex(body, " [repeated ")
	if i < 0 {
		return msg, 0
	}
	n, err := strconv.Atoi(body[i+len(" [repeated ") : len(body)-len(tail)])
	if err != nil || n < 0 {
		return msg, 0
	}
	head := trimRightOf(body[:i], " \t")
	return trimRightOf(trimSGR(head), " \t"), n
}

// trimSGR takes one trailing ANSI colour code off s: "\x1b[<n>m", or
// "[<n>m" when the escape byte was lost.
func trimSGR(s string) string {
	if !strings.HasSuffix(s, "m") {
		return s
	}
	j := strings.LastIndexByte(s, '[')
	if j < 0 || j+1 == len(s)-1 {
		return s
	}
	for _, c := range s[j+1 : len(s)-1] {
		if (c < '0' || c > '9') && c != ';' {
			return s
		}
	}
	if j > 0 && s[j-1] == '\x1b' {
		j--
	}
	return s[:j]
}

// lastToken returns the last space-separated token of p and what precedes it.
func lastToken(p string) (tok, rest string) {
	p = trimRightOf(p, " \t")
	i := len(p) - 1
	for i >= 0 && p[i] != ' ' && p[i] != '\t' {
		i--
	}
	if i < 0 {
		return p, ""
	}
	return p[i+1:], trimRightOf(p[:i], " \t")
}

// fileLine accepts "transport/net_ib.cc:1295" and "topoGetAlgoInfo:1535".
func fileLine(tok string) (string, int, bool) {
	i := strings.LastIndexByte(tok, ':')
	if i <= 0 || i == len(tok)-1 {
		return "", 0, false
	}
	n, ok := atoiStrict(tok[i+1:])
	if !ok || n < 0 {
		return "", 0, false
	}
	f := tok[:i]
	for _, c := range f {
		if c == ':' || c == '[' || c == ']' {
			return "", 0, false
		}
	}
	return f, n, true
}

func isFloat(s string) bool {
	if s == "" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// splitProc splits "host:pid:tid" (host may be empty or carry a glued
// launcher prefix).
func splitProc(tok string) (head string, pid, tid int, ok bool) {
	j := strings.LastIndexByte(tok, ':')
	if j < 0 {
		return "", 0, 0, false
	}
	i := strings.LastIndexByte(tok[:j], ':')
	if i < 0 {
		return "", 0, 0, false
	}
	p, ok1 := atoiStrict(tok[i+1 : j])
	t, ok2 := atoiStrict(tok[j+1:])
	if !ok1 || !ok2 || p < 0 || t < 0 || i+1 == j || j+1 == len(tok) {
		return "", 0, 0, false
	}
	return tok[:i], p, t, true
}

// splitTime separates NCCL's bracketed timestamp ("[2025-10-23 10:26:31]",
// the default "[%F %T] " of 2.26+) from the launcher prefix before it.
func splitTime(p string) (launcher, ts string) {
	if !strings.HasSuffix(p, "]") {
		return p, ""
	}
	i := strings.LastIndexByte(p, '[')
	if i < 0 {
		return p, ""
	}
	in := p[i+1 : len(p)-1]
	digits := 0
	for _, c := range in {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '-' || c == ':' || c == ' ' || c == '.' || c == 'T' || c == ',' || c == '/':
		default:
			return p, ""
		}
	}
	// A date and a time: at least 12 digits ("2025-10-23 10:26:31" has 14).
	if digits < 12 {
		return p, ""
	}
	return strings.TrimSpace(p[:i]), in
}

// launcherRank reads the rank a launcher prefix names: "[1,3]<stdout>:"
// (Open MPI), "3:" (srun -l), "[3]" and "[rank3]:" (torchrun).
func launcherRank(l string) int {
	l = strings.TrimSpace(l)
	if l == "" {
		return -1
	}
	if l[0] == '[' {
		j := strings.IndexByte(l, ']')
		if j < 0 {
			return -1
		}
		in := l[1:j]
		if c := strings.IndexByte(in, ','); c >= 0 {
			in = in[c+1:]
		}
		in = strings.TrimPrefix(in, "rank")
		if n, ok := atoiStrict(in); ok && n >= 0 {
			return n
		}
		return -1
	}
	if j := strings.IndexByte(l, ':'); j > 0 {
		if n, ok := atoiStrict(l[:j]); ok && n >= 0 {
			return n
		}
	}
	return -1
}

// isLauncherOnly reports a line that holds only a launcher prefix (the blank
// line before a WARN, tagged by the launcher): "[1,23]<stdout>:", "host: ".
func isLauncherOnly(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" {
		return true
	}
	if strings.HasSuffix(t, ":") && !strings.ContainsAny(t, " \t") {
		return true
	}
	return false
}

// atoiStrict is strconv.Atoi for text that is often not a number (a host
// name where a launcher rank may be) and, on every line, the pid, tid and
// device: it looks before converting, so the common miss costs no error
// value, and converts up to 18 digits without a sign itself.
func atoiStrict(s string) (int, bool) {
	d := s
	if d != "" && (d[0] == '+' || d[0] == '-') {
		d = d[1:]
	}
	if d == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
		n = n*10 + int(d[i]-'0')
	}
	if len(d) == len(s) && len(d) <= 18 {
		return n, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// trimRightOf is strings.TrimRight for a cutset of ASCII bytes, without
// building the set on every call (it runs several times per log line).
func trimRightOf(s, cut string) string {
	for len(s) > 0 && inCut(s[len(s)-1], cut) {
		s = s[:len(s)-1]
	}
	return s
}

func inCut(c byte, cut string) bool {
	for i := 0; i < len(cut); i++ {
		if cut[i] == c {
			return true
		}
	}
	return false
}

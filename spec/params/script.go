package params

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// How an assignment reached the environment of the job.
const (
	SourceExport     = "export"        // export NAME=VALUE, declare -x, typeset -x
	SourceAssignment = "assignment"    // NAME=VALUE on its own: a shell variable
	SourcePrefix     = "prefix"        // NAME=VALUE cmd, env NAME=VALUE cmd
	SourceSbatch     = "sbatch-export" // #SBATCH --export=...,NAME=VALUE
	SourceSrun       = "srun-export"   // srun --export=...,NAME=VALUE
	SourceMPI        = "mpirun"        // mpirun -x NAME=VALUE, -genv NAME VALUE
	SourceArgument   = "argument"      // gatesim env NAME=VALUE
	SourceUnset      = "unset"         // unset NAME
)

// Assignment is one NAME=VALUE (or unset NAME) found in a job script.
type Assignment struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Line  int    `json:"line"`
	// Source says how the script sets it (SourceExport, ...).
	Source string `json:"source"`
	// Exported is true when the variable reaches the processes the script
	// starts: export, a command prefix, --export, mpirun -x, set -a; false
	// for a plain shell assignment never exported.
	Exported bool `json:"exported"`
	// Dynamic is true when the value contains a shell expansion ($VAR,
	// $(cmd), `cmd`) that only the shell can resolve; Value holds the text
	// as written, quotes removed.
	Dynamic bool `json:"dynamic,omitempty"`
}

// ScriptError is a malformed job script: file, line and what was expected.
type ScriptError struct {
	File string
	Line int
	Msg  string
}

func (e *ScriptError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ReadScript reads a job script (bash, sh or a Slurm batch file) and returns
// the environment assignments in it, in order. name is used in errors.
func ReadScript(name string, r io.Reader) ([]Assignment, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return ParseScript(name, data)
}

// ParseScript is ReadScript on bytes.
//
// What it understands: comments; `\` line continuations; single, double and
// $'...' quotes (double-quoted escapes \" \\ \$ \`); `export`, `declare -x`,
// `typeset -x`, `readonly -x`? no: readonly does not export; `env A=B cmd`;
// assignments before a command (`A=B cmd`); `set -a` / `set -o allexport`
// (later plain assignments are exported) and `set +a`; `export NAME` of an
// earlier plain assignment; `unset NAME`; `#SBATCH --export=` lines;
// `srun --export=`; `mpirun -x NAME[=VALUE]` and `-genv/-env NAME VALUE`;
// commands separated by newlines, `;`, `&&`, `||`, `|` and `&`; heredoc
// bodies are skipped. Values with $VAR, ${...}, $(...) or backticks are kept
// as written and marked Dynamic. It does not run the shell: conditionals and
// loops are read straight through, as if every branch ran.
func ParseScript(name string, data []byte) ([]Assignment, error) {
	for i, line := 0, 1; i < len(data); line++ {
		n := bytes.IndexByte(data[i:], '\n')
		if n < 0 {
			n = len(data) - i
		}
		if n > spec.MaxLineBytes {
			return nil, &ScriptError{File: name, Line: line, Msg: fmt.Sprintf("%d bytes: expected a line of at most %d bytes", n, spec.MaxLineBytes)}
		}
		i += n + 1
	}
	p := &scriptParser{name: name, src: string(data), line: 1, plain: map[string]int{}}
	if err := p.run(); err != nil {
		return nil, err
	}
	if len(p.out) > spec.MaxEnvVars {
		return nil, &ScriptError{File: name, Line: p.out[spec.MaxEnvVars].Line, Msg: fmt.Sprintf("more than %d assignments: expected at most %d (gatesim's limit)", spec.MaxEnvVars, spec.MaxEnvVars)}
	}
	for _, a := range p.out {
		if len(a.Name) > spec.MaxEnvName || len(a.Value) > spec.MaxValueBytes {
			return nil, &ScriptError{File: name, Line: a.Line, Msg: fmt.Sprintf("%.40s...: a name of %d bytes or a value of %d: expected at most %d and %d (gatesim's limits)", a.Name, len(a.Name), len(a.Value), spec.MaxEnvName, spec.MaxValueBytes)}
		}
	}
	return p.out, nil
}

type word struct {
	text    string // unquoted value
	raw     string // as written
	line    int
	dynamic bool
	quoted  bool // any part was quoted
	heredoc string
}

type scriptParser struct {
	name    string
	src     string
	pos     int
	line    int
	out     []Assignment
	allExp  bool
	plain   map[string]int // name -> index in out of its last plain assignment
	pending []string       // heredoc delimiters to skip after this line
}

func (p *scriptParser) errf(line int, format string, args ...any) error {
	return &ScriptError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *scriptParser) run() error {
	var cmd []word
	for {
		w, sep, err := p.next()
		if err != nil {
			return err
		}
		if w != nil {
			cmd = append(cmd, *w)
		}
		if sep != "" {
			if err := p.command(cmd); err != nil {
				return err
			}
			cmd = cmd[:0]
			if sep == "\n" && len(p.pending) > 0 {
				p.skipHeredocs()
			}
			if sep == "EOF" {
				return nil
			}
		}
	}
}

// skipHeredocs skips the bodies of the heredocs opened on the line just
// ended.
func (p *scriptParser) skipHeredocs() {
	for _, delim := range p.pending {
		for p.pos < len(p.src) {
			end := strings.IndexByte(p.src[p.pos:], '\n')
			var l string
			if end < 0 {
				l, p.pos = p.src[p.pos:], len(p.src)
			} else {
				l, p.pos = p.src[p.pos:p.pos+end], p.pos+end+1
				p.line++
			}
			if strings.TrimLeft(strings.TrimRight(l, "\r"), "\t") == delim {
				break
			}
		}
	}
	p.pending = nil
}

// next returns the next word, or a separator ("\n", ";", "&&", "||", "|",
// "&", "EOF") that ends the current command, or both.
func (p *scriptParser) next() (*word, string, error) {
	s := p.src
	// skip blanks and continuations
	for p.pos < len(s) {
		c := s[p.pos]
		if c == ' ' || c == '\t' || c == '\r' {
			p.pos++
			continue
		}
		if c == '\\' && p.pos+1 < len(s) && s[p.pos+1] == '\n' {
			p.pos += 2
			p.line++
			continue
		}
		if c == '\\' && p.pos+2 < len(s) && s[p.pos+1] == '\r' && s[p.pos+2] == '\n' {
			p.pos += 3
			p.line++
			continue
		}
		break
	}
	if p.pos >= len(s) {
		return nil, "EOF", nil
	}
	c := s[p.pos]
	switch c {
	case '\n':
		p.pos++
		p.line++
		return nil, "\n", nil
	case '#':
		end := strings.IndexByte(s[p.pos:], '\n')
		var comment string
		if end < 0 {
			comment, p.pos = s[p.pos:], len(s)
		} else {
			comment, p.pos = s[p.pos:p.pos+end], p.pos+end
		}
		if err := p.sbatch(comment, p.line); err != nil {
			return nil, "", err
		}
		return nil, "", nil
	case ';':
		p.pos++
		if p.pos < len(s) && s[p.pos] == ';' {
			p.pos++
		}
		return nil, ";", nil
	case '&', '|':
		p.pos++
		if p.pos < len(s) && s[p.pos] == c {
			p.pos++
			return nil, string([]byte{c, c}), nil
		}
		return nil, string(c), nil
	case '(', ')', '{', '}':
		// subshells and groups: treat as separators
		p.pos++
		return nil, ";", nil
	}
	return p.word()
}

// word reads one shell word starting at p.pos.
func (p *scriptParser) word() (*word, string, error) {
	s := p.src
	w := &word{line: p.line}
	start := p.pos
	var b strings.Builder
	for p.pos < len(s) {
		c := s[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if c == '(' && p.pos > start && strings.HasSuffix(b.String(), "=") {
				// array assignment NAME=( ... ): keep it as one word
				end, err := p.skipBalanced(p.pos, '(', ')')
				if err != nil {
					return nil, "", err
				}
				b.WriteString(s[p.pos:end])
				w.dynamic = true
				p.pos = end
				continue
			}
			goto done
		case c == '<' && strings.HasPrefix(s[p.pos:], "<<") && !strings.HasPrefix(s[p.pos:], "<<<"):
			if p.pos > start {
				goto done
			}
			p.pos += 2
			if p.pos < len(s) && s[p.pos] == '-' {
				p.pos++
			}
			for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t') {
				p.pos++
			}
			dw, _, err := p.word()
			if err != nil {
				return nil, "", err
			}
			if dw == nil || dw.text == "" {
				return nil, "", p.errf(w.line, "heredoc without a delimiter: expected <<WORD")
			}
			p.pending = append(p.pending, dw.text)
			return nil, "", nil
		case c == '\\':
			if p.pos+1 >= len(s) {
				p.pos++
				continue
			}
			if s[p.pos+1] == '\n' {
				p.pos += 2
				p.line++
				continue
			}
			b.WriteByte(s[p.pos+1])
			w.quoted = true
			p.pos += 2
		case c == '\'':
			end := strings.IndexByte(s[p.pos+1:], '\'')
			if end < 0 {
				return nil, "", p.errf(w.line, "unterminated single quote: expected a closing '")
			}
			lit := s[p.pos+1 : p.pos+1+end]
			b.WriteString(lit)
			p.line += strings.Count(lit, "\n")
			p.pos += end + 2
			w.quoted = true
		case c == '"':
			if err := p.doubleQuoted(&b, w); err != nil {
				return nil, "", err
			}
			w.quoted = true
		case c == '$' && p.pos+1 < len(s) && s[p.pos+1] == '\'':
			if err := p.ansiQuoted(&b, w); err != nil {
				return nil, "", err
			}
			w.quoted = true
		case c == '$':
			text, err := p.expansion()
			if err != nil {
				return nil, "", err
			}
			b.WriteString(text)
			if text != "$" {
				w.dynamic = true
			}
		case c == '`':
			end := strings.IndexByte(s[p.pos+1:], '`')
			if end < 0 {
				return nil, "", p.errf(w.line, "unterminated backquote: expected a closing `")
			}
			lit := s[p.pos : p.pos+end+2]
			b.WriteString(lit)
			p.line += strings.Count(lit, "\n")
			p.pos += end + 2
			w.dynamic = true
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
done:
	w.text = b.String()
	w.raw = s[start:p.pos]
	return w, "", nil
}

// doubleQuoted reads "..." at p.pos.
func (p *scriptParser) doubleQuoted(b *strings.Builder, w *word) error {
	s := p.src
	startLine := p.line
	p.pos++
	for p.pos < len(s) {
		c := s[p.pos]
		switch c {
		case '"':
			p.pos++
			return nil
		case '\\':
			if p.pos+1 < len(s) {
				n := s[p.pos+1]
				switch n {
				case '"', '\\', '$', '`':
					b.WriteByte(n)
					p.pos += 2
					continue
				case '\n':
					p.pos += 2
					p.line++
					continue
				}
			}
			b.WriteByte(c)
			p.pos++
		case '$':
			text, err := p.expansion()
			if err != nil {
				return err
			}
			b.WriteString(text)
			if text != "$" {
				w.dynamic = true
			}
		case '`':
			end := strings.IndexByte(s[p.pos+1:], '`')
			if end < 0 {
				return p.errf(p.line, "unterminated backquote: expected a closing `")
			}
			lit := s[p.pos : p.pos+end+2]
			b.WriteString(lit)
			p.line += strings.Count(lit, "\n")
			p.pos += end + 2
			w.dynamic = true
		case '\n':
			b.WriteByte(c)
			p.line++
			p.pos++
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return p.errf(startLine, "unterminated double quote: expected a closing \"")
}

// ansiQuoted reads $'...' with the common escapes.
func (p *scriptParser) ansiQuoted(b *strings.Builder, w *word) error {
	s := p.src
	startLine := p.line
	p.pos += 2
	for p.pos < len(s) {
		c := s[p.pos]
		if c == '\'' {
			p.pos++
			return nil
		}
		if c == '\\' && p.pos+1 < len(s) {
			n := s[p.pos+1]
			rep := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', '\\': '\\', '\'': '\'', '"': '"', 'a': 7, 'b': 8, 'e': 27, 'f': 12, 'v': 11}
			if r, ok := rep[n]; ok {
				b.WriteByte(r)
				p.pos += 2
				continue
			}
		}
		if c == '\n' {
			p.line++
		}
		b.WriteByte(c)
		p.pos++
	}
	return p.errf(startLine, "unterminated $' quote: expected a closing '")
}

// expansion reads $NAME, ${...}, $(...), $((...)) at p.pos and returns it
// as written.
func (p *scriptParser) expansion() (string, error) {
	s := p.src
	start := p.pos
	if p.pos+1 >= len(s) {
		p.pos++
		return "$", nil
	}
	n := s[p.pos+1]
	switch {
	case n == '{':
		end, err := p.skipBalanced(p.pos+1, '{', '}')
		if err != nil {
			return "", err
		}
		p.pos = end
	case n == '(':
		end, err := p.skipBalanced(p.pos+1, '(', ')')
		if err != nil {
			return "", err
		}
		p.pos = end
	case n == '_' || (n >= 'A' && n <= 'Z') || (n >= 'a' && n <= 'z'):
		p.pos++
		for p.pos < len(s) && (s[p.pos] == '_' || (s[p.pos] >= 'A' && s[p.pos] <= 'Z') || (s[p.pos] >= 'a' && s[p.pos] <= 'z') || (s[p.pos] >= '0' && s[p.pos] <= '9')) {
			p.pos++
		}
	case (n >= '0' && n <= '9') || strings.IndexByte("@*#?$!-", n) >= 0:
		p.pos += 2
	default:
		p.pos++
		return "$", nil
	}
	text := s[start:p.pos]
	p.line += strings.Count(text, "\n")
	return text, nil
}

// skipBalanced returns the offset after the closer matching the opener at
// s[i], skipping quoted text.
func (p *scriptParser) skipBalanced(i int, open, close byte) (int, error) {
	s := p.src
	depth := 0
	line := p.line
	for k := i; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '\'':
			e := strings.IndexByte(s[k+1:], '\'')
			if e < 0 {
				return 0, p.errf(line, "unterminated single quote inside %c...%c: expected a closing '", open, close)
			}
			k += e + 1
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return k + 1, nil
			}
		}
	}
	return 0, p.errf(line, "unterminated %c: expected a closing %c", open, close)
}

// reserved words and builtins that may precede a command on a line.
var shellReserved = map[string]bool{
	"then": true, "do": true, "else": true, "elif": true, "if": true, "while": true, "until": true,
	"!": true, "time": true, "{": true, "}": true, "fi": true, "done": true, "esac": true, "exec": true, "command": true, "nohup": true,
}

// command interprets one simple command.
func (p *scriptParser) command(words []word) error {
	for len(words) > 0 && !words[0].quoted && shellReserved[words[0].text] {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	// leading assignments
	var assigns []word
	for len(words) > 0 && isAssignWord(words[0]) {
		assigns = append(assigns, words[0])
		words = words[1:]
	}
	if len(words) == 0 {
		for _, a := range assigns {
			name, value := splitAssign(a.text)
			p.add(name, value, a, SourceAssignment, p.allExp)
		}
		return nil
	}
	for _, a := range assigns {
		name, value := splitAssign(a.text)
		p.add(name, value, a, SourcePrefix, true)
	}
	cmd := words[0].text
	args := words[1:]
	switch cmd {
	case "export", "declare", "typeset", "local":
		exported := cmd == "export"
		var names []word
		for _, a := range args {
			if !a.quoted && strings.HasPrefix(a.text, "-") {
				if strings.Contains(a.text, "x") && cmd != "export" {
					exported = true
				}
				if cmd == "export" && strings.Contains(a.text, "n") {
					return nil // export -n removes the export attribute
				}
				continue
			}
			names = append(names, a)
		}
		for _, a := range names {
			if isAssignWord(a) {
				name, value := splitAssign(a.text)
				src := SourceExport
				if !exported {
					src = SourceAssignment
				}
				p.add(name, value, a, src, exported || p.allExp)
				continue
			}
			if !validEnvName(a.text) {
				if a.dynamic {
					continue // export "$@" and the like
				}
				return p.errf(a.line, "%s %q: expected a variable name or NAME=VALUE", cmd, a.text)
			}
			if exported {
				if i, ok := p.plain[a.text]; ok {
					p.out[i].Exported = true
				}
			}
		}
	case "set":
		for i, a := range args {
			switch {
			case a.text == "-o" && i+1 < len(args) && args[i+1].text == "allexport":
				p.allExp = true
			case a.text == "+o" && i+1 < len(args) && args[i+1].text == "allexport":
				p.allExp = false
			case strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "a"):
				p.allExp = true
			case strings.HasPrefix(a.text, "+") && strings.Contains(a.text, "a"):
				p.allExp = false
			}
		}
	case "unset":
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") {
				continue
			}
			if validEnvName(a.text) {
				p.out = append(p.out, Assignment{Name: a.text, Line: a.line, Source: SourceUnset})
				delete(p.plain, a.text)
			}
		}
	case "env":
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") {
				continue
			}
			if !isAssignWord(a) {
				break
			}
			name, value := splitAssign(a.text)
			p.add(name, value, a, SourcePrefix, true)
		}
	case "srun", "sbatch", "salloc":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.text, "--export="); ok {
				p.exportList(v, a, SourceSrun)
			}
		}
	case "mpirun", "mpiexec", "orterun", "oshrun", "mpiexec.hydra":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch a.text {
			case "-x", "--x":
				if i+1 < len(args) {
					i++
					v := args[i]
					if isAssignWord(v) {
						name, value := splitAssign(v.text)
						p.add(name, value, v, SourceMPI, true)
					} else if validEnvName(v.text) {
						if j, ok := p.plain[v.text]; ok {
							p.out[j].Exported = true
						}
					}
				}
			case "-genv", "-env", "--genv", "--env":
				if i+2 < len(args) && validEnvName(args[i+1].text) {
					v := args[i+2]
					v.text = args[i+1].text + "=" + v.text
					p.add(args[i+1].text, args[i+2].text, v, SourceMPI, true)
					i += 2
				}
			}
		}
	}
	return nil
}

// sbatch reads "#SBATCH --export=..." comments.
func (p *scriptParser) sbatch(comment string, line int) error {
	rest, ok := strings.CutPrefix(comment, "#SBATCH")
	if !ok {
		return nil
	}
	for _, f := range strings.Fields(rest) {
		if strings.HasPrefix(f, "#") {
			break
		}
		if v, ok := strings.CutPrefix(f, "--export="); ok {
			p.exportList(v, word{line: line, raw: f, text: f}, SourceSbatch)
		}
	}
	return nil
}

// exportList reads Slurm's --export value: ALL, NONE, NIL or a comma list
// of NAME or NAME=VALUE. Slurm splits on commas; a value with a comma must
// be quoted, which a job script rarely does.
func (p *scriptParser) exportList(v string, w word, src string) {
	v = strings.Trim(v, `"'`)
	for _, item := range strings.Split(v, ",") {
		if item == "" || item == "ALL" || item == "NONE" || item == "NIL" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		if !ok || !validEnvName(name) {
			continue
		}
		iw := w
		iw.dynamic = strings.ContainsAny(value, "$`")
		p.add(name, value, iw, src, true)
	}
}

func (p *scriptParser) add(name, value string, w word, src string, exported bool) {
	p.out = append(p.out, Assignment{Name: name, Value: value, Line: w.line, Source: src, Exported: exported, Dynamic: w.dynamic})
	if src == SourceAssignment {
		p.plain[name] = len(p.out) - 1
	} else {
		delete(p.plain, name)
	}
}

// isAssignWord: NAME=... with NAME unquoted and valid.
func isAssignWord(w word) bool {
	i := strings.IndexByte(w.raw, '=')
	if i <= 0 {
		return false
	}
	name := w.raw[:i]
	if strings.HasSuffix(name, "+") { // NAME+=VALUE appends
		name = name[:len(name)-1]
	}
	return validEnvName(name)
}

func splitAssign(text string) (string, string) {
	i := strings.IndexByte(text, '=')
	name := text[:i]
	name = strings.TrimSuffix(name, "+")
	return name, text[i+1:]
}

// validEnvName: letters, digits and _, not starting with a digit.
func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9' && i > 0)) {
			return false
		}
	}
	return true
}

// Package clex is the one C/C++ lexer of the generators under tools/
// (genparams, gensrclines), which read NCCL's source at each tag. It is
// deliberately small: it knows enough C++ to find calls, string literals,
// braces and #define lines, and nothing about types or templates.
package clex

import (
	"strings"
)

// Kind classifies a C/C++ token.
type Kind int

const (
	Ident Kind = iota
	Number
	String // a string literal; Text is the decoded value (adjacent literals are not joined here)
	Char
	Punct
)

// Token is one lexed token with the 1-based line it starts on.
type Token struct {
	Kind Kind
	Text string
	Line int
}

// Define is a #define NAME body from a preprocessor line; every token of
// an object-like one carries the directive's line.
type Define struct {
	Name string
	Body []Token
	Line int
}

// File is the token stream of one file (preprocessor lines left out) plus
// its macros.
type File struct {
	Toks []Token
	// Defines are the object-like macros (the constants).
	Defines []Define
	// Macros are every #define (object-like and function-like) with its
	// body (a function-like one's after its parameter list), so a call
	// inside a macro is found where the macro is used.
	Macros []Define
	// MacroStrings are the string literals of every #define line, each
	// with the directive's line.
	MacroStrings []Token
}

// puncts lists multi-character punctuators, longest first.
var puncts = []string{
	"<<=", ">>=", "...", "->*",
	"::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*",
}

// Lex tokenizes C/C++ source. It never fails: unterminated literals and
// comments end at the end of the file, which is what a reader of possibly
// odd files (generated headers, CUDA) needs.
func Lex(src []byte) *File {
	s := string(src)
	out := &File{}
	line := 1
	i := 0
	atLineStart := true
	n := len(s)
	for i < n {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
			atLineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '\\' && i+1 < n && (s[i+1] == '\n' || (s[i+1] == '\r' && i+2 < n && s[i+2] == '\n')):
			// line splice outside a directive
			if s[i+1] == '\r' {
				i++
			}
			i += 2
			line++
			continue
		case c == '/' && i+1 < n && s[i+1] == '/':
			for i < n && s[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < n && s[i+1] == '*':
			var lines int
			i, lines = blockComment(s, i)
			line += lines
			continue
		case c == '#' && atLineStart:
			// A preprocessor directive runs to the end of the line,
			// including spliced lines.
			start := i
			startLine := line
			for i < n && s[i] != '\n' {
				if s[i] == '\\' && i+1 < n && s[i+1] == '\n' {
					i += 2
					line++
					continue
				}
				if s[i] == '\\' && i+2 < n && s[i+1] == '\r' && s[i+2] == '\n' {
					i += 3
					line++
					continue
				}
				// comments inside a directive may span lines
				if s[i] == '/' && i+1 < n && s[i+1] == '*' {
					var lines int
					i, lines = blockComment(s, i)
					line += lines
					continue
				}
				i++
			}
			if i > n {
				i = n
			}
			out.directive(s[start:i], startLine)
			continue
		}
		atLineStart = false
		tok, next, lines := lexOne(s, i, line)
		out.Toks = append(out.Toks, tok)
		line += lines
		i = next
	}
	return out
}

// blockComment skips the /* comment at s[i]: the offset after it (past
// the end when it is unterminated) and the newlines it holds.
func blockComment(s string, i int) (next, lines int) {
	n := len(s)
	i += 2
	for i < n && !(s[i] == '*' && i+1 < n && s[i+1] == '/') {
		if s[i] == '\n' {
			lines++
		}
		i++
	}
	return i + 2, lines
}

// lexOne reads the token at s[i] (which is not space, comment or directive).
// It returns the token, the next offset and the number of newlines consumed.
func lexOne(s string, i, line int) (Token, int, int) {
	n := len(s)
	c := s[i]
	// raw string literal R"delim( ... )delim", with optional prefix
	if j, ok := rawStringStart(s, i); ok {
		k := j + 1 // after the opening quote
		d := k
		for d < n && s[d] != '(' && d-k < 16 {
			d++
		}
		if d < n && s[d] == '(' {
			delim := ")" + s[k:d] + "\""
			end := strings.Index(s[d+1:], delim)
			var body string
			var next int
			if end < 0 {
				body, next = s[d+1:], n
			} else {
				body, next = s[d+1:d+1+end], d+1+end+len(delim)
			}
			return Token{Kind: String, Text: body, Line: line}, next, strings.Count(s[i:next], "\n")
		}
	}
	if isIdentStart(c) {
		j := i
		for j < n && isIdentChar(s[j]) {
			j++
		}
		// encoding prefixes of string and char literals: u8"", L"", u"", U""
		if j < n && (s[j] == '"' || s[j] == '\'') {
			switch s[i:j] {
			case "u8", "u", "U", "L":
				t, next, lines := lexQuoted(s, j, line)
				return t, next, lines
			}
		}
		return Token{Kind: Ident, Text: s[i:j], Line: line}, j, 0
	}
	if isDigit(c) || (c == '.' && i+1 < n && isDigit(s[i+1])) {
		j := i
		for j < n {
			d := s[j]
			if isIdentChar(d) || d == '.' || d == '\'' {
				j++
				continue
			}
			if (d == '+' || d == '-') && j > i && (s[j-1] == 'e' || s[j-1] == 'E' || s[j-1] == 'p' || s[j-1] == 'P') &&
				!strings.HasPrefix(strings.ToLower(s[i:j]), "0x") {
				j++
				continue
			}
			break
		}
		return Token{Kind: Number, Text: s[i:j], Line: line}, j, 0
	}
	if c == '"' || c == '\'' {
		return lexQuoted(s, i, line)
	}
	for _, p := range puncts {
		if strings.HasPrefix(s[i:], p) {
			return Token{Kind: Punct, Text: p, Line: line}, i + len(p), 0
		}
	}
	return Token{Kind: Punct, Text: s[i : i+1], Line: line}, i + 1, 0
}

// rawStringStart reports whether a raw string literal starts at s[i] and
// returns the offset of its opening quote.
func rawStringStart(s string, i int) (int, bool) {
	for _, p := range []string{"R\"", "u8R\"", "uR\"", "UR\"", "LR\""} {
		if strings.HasPrefix(s[i:], p) {
			if i > 0 && isIdentChar(s[i-1]) {
				return 0, false
			}
			return i + len(p) - 1, true
		}
	}
	return 0, false
}

// lexQuoted reads a string or character literal starting at the quote s[i]
// and decodes the simple escapes (the registry only needs the text of
// environment variable names and option words).
func lexQuoted(s string, i, line int) (Token, int, int) {
	q := s[i]
	kind := String
	if q == '\'' {
		kind = Char
	}
	var b strings.Builder
	j := i + 1
	lines := 0
	n := len(s)
	for j < n && s[j] != q {
		if s[j] == '\n' { // unterminated: stop at the end of the line
			break
		}
		if s[j] == '\\' && j+1 < n {
			e := s[j+1]
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			case '\n':
				lines++
			default:
				b.WriteByte(e)
			}
			j += 2
			continue
		}
		b.WriteByte(s[j])
		j++
	}
	if j < n && s[j] == q {
		j++
	}
	return Token{Kind: kind, Text: b.String(), Line: line}, j, lines
}

// directive records a #define: every one in Macros, an object-like one in
// Defines too (function-like macros are not constants), and the string
// literals of its line.
func (l *File) directive(text string, line int) {
	body := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "#"))
	if !strings.HasPrefix(body, "define") {
		return
	}
	rest := body[len("define"):]
	if rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return
	}
	rest = strings.TrimLeft(rest, " \t")
	j := 0
	for j < len(rest) && isIdentChar(rest[j]) {
		j++
	}
	if j == 0 {
		return
	}
	name := rest[:j]
	inner := Lex([]byte(strings.ReplaceAll(strings.ReplaceAll(rest[j:], "\\\r\n", " "), "\\\n", " ")))
	for k := range inner.Toks {
		// every token of the directive is on its first line
		inner.Toks[k].Line = line
		if inner.Toks[k].Kind == String {
			l.MacroStrings = append(l.MacroStrings, inner.Toks[k])
		}
	}
	mbody := inner.Toks
	if j < len(rest) && rest[j] == '(' {
		// function-like: the body starts after the parameter list
		depth := 0
		k := 0
		for k < len(mbody) {
			if mbody[k].Text == "(" {
				depth++
			} else if mbody[k].Text == ")" {
				depth--
				if depth == 0 {
					k++
					break
				}
			}
			k++
		}
		l.Macros = append(l.Macros, Define{Name: name, Body: mbody[min(k, len(mbody)):], Line: line})
		return // not a constant
	}
	l.Macros = append(l.Macros, Define{Name: name, Body: mbody, Line: line})
	l.Defines = append(l.Defines, Define{Name: name, Body: inner.Toks, Line: line})
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

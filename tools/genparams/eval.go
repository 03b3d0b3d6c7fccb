package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/tools/internal/clex"
)

// consts resolves identifiers in default expressions: object-like macros,
// enumerators and file-scope const/constexpr integers collected from the
// whole source tree. A name defined more than once with different bodies
// is ambiguous and does not resolve (the registry then says "unresolved"
// rather than guess which #if branch the build takes).
type consts struct {
	defs      map[string][]clex.Token
	ambiguous map[string]bool
}

func newConsts() *consts {
	return &consts{defs: map[string][]clex.Token{}, ambiguous: map[string]bool{}}
}

func (c *consts) add(name string, body []clex.Token) {
	if old, ok := c.defs[name]; ok {
		if tokText(old) != tokText(body) {
			c.ambiguous[name] = true
		}
		return
	}
	c.defs[name] = body
}

// limits are the <climits>/<cstdint> constants NCCL uses in defaults.
var limits = map[string]int64{
	"INT_MIN": math.MinInt32, "INT_MAX": math.MaxInt32,
	"INT32_MIN": math.MinInt32, "INT32_MAX": math.MaxInt32,
	"INT64_MIN": math.MinInt64, "INT64_MAX": math.MaxInt64,
	"LLONG_MIN": math.MinInt64, "LLONG_MAX": math.MaxInt64,
	"LONG_MIN": math.MinInt64, "LONG_MAX": math.MaxInt64,
	"UINT32_MAX": math.MaxUint32, "UINT_MAX": math.MaxUint32,
	"INT16_MAX": math.MaxInt16, "INT8_MAX": math.MaxInt8, "UINT8_MAX": math.MaxUint8, "UINT16_MAX": math.MaxUint16,
	"true": 1, "false": 0,
}

var errUnresolved = errors.New("unresolved")

// eval computes an integer constant expression.
func (c *consts) eval(toks []clex.Token) (int64, error) {
	p := &evalParser{c: c, toks: toks}
	v, err := p.expr(0)
	if err != nil {
		return 0, err
	}
	if p.pos != len(p.toks) {
		return 0, fmt.Errorf("%w: trailing %q", errUnresolved, p.toks[p.pos].Text)
	}
	return v, nil
}

type evalParser struct {
	c     *consts
	toks  []clex.Token
	pos   int
	depth int
}

func (p *evalParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos].Text
	}
	return ""
}

// binary operators and their precedence (higher binds tighter).
var binPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

func (p *evalParser) expr(minPrec int) (int64, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 200 {
		return 0, fmt.Errorf("%w: expression too deep", errUnresolved)
	}
	lhs, err := p.unary()
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		if op == "?" && minPrec == 0 {
			p.pos++
			a, err := p.expr(0)
			if err != nil {
				return 0, err
			}
			if p.peek() != ":" {
				return 0, fmt.Errorf("%w: expected ':'", errUnresolved)
			}
			p.pos++
			b, err := p.expr(0)
			if err != nil {
				return 0, err
			}
			if lhs != 0 {
				lhs = a
			} else {
				lhs = b
			}
			continue
		}
		prec, ok := binPrec[op]
		if !ok || prec <= minPrec {
			return lhs, nil
		}
		p.pos++
		rhs, err := p.expr(prec)
		if err != nil {
			return 0, err
		}
		lhs, err = apply(op, lhs, rhs)
		if err != nil {
			return 0, err
		}
	}
}

func apply(op string, a, b int64) (int64, error) {
	bool2 := func(x bool) int64 {
		if x {
			return 1
		}
		return 0
	}
	switch op {
	case "||":
		return bool2(a != 0 || b != 0), nil
	case "&&":
		return bool2(a != 0 && b != 0), nil
	case "|":
		return a | b, nil
	case "^":
		return a ^ b, nil
	case "&":
		return a & b, nil
	case "==":
		return bool2(a == b), nil
	case "!=":
		return bool2(a != b), nil
	case "<":
		return bool2(a < b), nil
	case ">":
		return bool2(a > b), nil
	case "<=":
		return bool2(a <= b), nil
	case ">=":
		return bool2(a >= b), nil
	case "<<":
		if b < 0 || b > 63 {
			return 0, fmt.Errorf("%w: shift %d", errUnresolved, b)
		}
		return a << uint(b), nil
	case ">>":
		if b < 0 || b > 63 {
			return 0, fmt.Errorf("%w: shift %d", errUnresolved, b)
		}
		return a >> uint(b), nil
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/", "%":
		if b == 0 {
			return 0, fmt.Errorf("%w: division by zero", errUnresolved)
		}
		if op == "/" {
			return a / b, nil
		}
		return a % b, nil
	}
	return 0, fmt.Errorf("%w: operator %s", errUnresolved, op)
}

// castTypes are the type names that may appear in a C cast in a default.
var castTypes = map[string]bool{
	"int": true, "long": true, "unsigned": true, "signed": true, "short": true, "char": true,
	"int64_t": true, "uint64_t": true, "int32_t": true, "uint32_t": true, "size_t": true, "ssize_t": true,
	"int8_t": true, "uint8_t": true, "int16_t": true, "uint16_t": true, "bool": true,
}

func (p *evalParser) unary() (int64, error) {
	t := p.peek()
	switch t {
	case "-", "+", "~", "!":
		p.pos++
		v, err := p.unary()
		if err != nil {
			return 0, err
		}
		switch t {
		case "-":
			return -v, nil
		case "~":
			return ^v, nil
		case "!":
			if v == 0 {
				return 1, nil
			}
			return 0, nil
		}
		return v, nil
	case "(":
		// cast or parenthesised expression
		j := p.pos + 1
		for j < len(p.toks) && castTypes[p.toks[j].Text] {
			j++
		}
		if j > p.pos+1 && j < len(p.toks) && p.toks[j].Text == ")" {
			p.pos = j + 1
			return p.unary()
		}
		p.pos++
		v, err := p.expr(0)
		if err != nil {
			return 0, err
		}
		if p.peek() != ")" {
			return 0, fmt.Errorf("%w: expected ')'", errUnresolved)
		}
		p.pos++
		return v, nil
	case "static_cast":
		// static_cast<T>(x)
		j := p.pos + 1
		for j < len(p.toks) && p.toks[j].Text != ">" {
			j++
		}
		if j+1 < len(p.toks) && p.toks[j+1].Text == "(" {
			p.pos = j + 1
			return p.unary()
		}
		return 0, fmt.Errorf("%w: static_cast", errUnresolved)
	}
	if p.pos >= len(p.toks) {
		return 0, fmt.Errorf("%w: empty expression", errUnresolved)
	}
	tok := p.toks[p.pos]
	p.pos++
	switch tok.Kind {
	case clex.Number:
		return parseCInt(tok.Text)
	case clex.Char:
		if len(tok.Text) == 1 {
			return int64(tok.Text[0]), nil
		}
	case clex.Ident:
		if v, ok := limits[tok.Text]; ok {
			return v, nil
		}
		if p.c != nil && !p.c.ambiguous[tok.Text] {
			if body, ok := p.c.defs[tok.Text]; ok && p.depth < 100 {
				sub := &evalParser{c: p.c, toks: body, depth: p.depth + 1}
				v, err := sub.expr(0)
				if err == nil && sub.pos == len(body) {
					return v, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("%w: %s", errUnresolved, tok.Text)
}

// parseCInt parses a C integer literal: decimal, 0x hex, 0 octal, 0b
// binary, digit separators and u/l suffixes.
func parseCInt(s string) (int64, error) {
	t := strings.ReplaceAll(s, "'", "")
	t = strings.TrimRight(t, "uUlLzZ")
	if t == "" {
		return 0, fmt.Errorf("%w: %s", errUnresolved, s)
	}
	base := 10
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		base, t = 16, t[2:]
	case strings.HasPrefix(t, "0b") || strings.HasPrefix(t, "0B"):
		base, t = 2, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	u, err := strconv.ParseUint(t, base, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s", errUnresolved, s)
	}
	return int64(u), nil
}

// tokText joins tokens into readable C: spaces around binary operators,
// none inside parentheses or around ::, ., ->.
func tokText(toks []clex.Token) string {
	var b strings.Builder
	for i, t := range toks {
		text := t.Text
		switch t.Kind {
		case clex.String:
			text = strconv.Quote(t.Text)
		case clex.Char:
			text = "'" + strings.Trim(strconv.Quote(t.Text), "\"") + "'"
		}
		if i > 0 && needSpace(toks[i-1], t, i, toks) {
			b.WriteByte(' ')
		}
		b.WriteString(text)
	}
	return b.String()
}

func needSpace(prev, cur clex.Token, i int, toks []clex.Token) bool {
	tight := map[string]bool{"(": true, "[": true, "::": true, ".": true, "->": true, "~": true, "!": true}
	if prev.Kind == clex.Punct && tight[prev.Text] {
		return false
	}
	if cur.Kind == clex.Punct {
		switch cur.Text {
		case ")", "]", ",", ";", "::", ".", "->":
			return false
		case "(", "[":
			return prev.Kind == clex.Punct && prev.Text != ")"
		}
	}
	// unary minus/plus directly after an operator or at the start
	if prev.Kind == clex.Punct && (prev.Text == "-" || prev.Text == "+") {
		if i < 2 {
			return false
		}
		pp := toks[i-2]
		if pp.Kind == clex.Punct && pp.Text != ")" && pp.Text != "]" {
			return false
		}
	}
	return true
}

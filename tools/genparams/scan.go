package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/params"
	"github.com/gatesim/gatesim/tools/internal/clex"
)

// srcFile is one file of NCCL's source tree, path relative to the repository
// root (src/init.cc).
type srcFile struct {
	Path string
	Data []byte
}

// funcSpan is a function definition: its name, parameter names and the token
// range of its body (between the braces, exclusive).
type funcSpan struct {
	Name       string
	Params     []string
	Start, End int
}

type fileInfo struct {
	path  string
	lx    *clex.File
	toks  []clex.Token
	funcs []funcSpan
	// inFunc[i] is the index into funcs of the function whose body holds
	// token i, or -1 at file, namespace or class scope.
	inFunc []int
}

// analysis holds the whole tree while rows are built.
type analysis struct {
	files  []*fileInfo
	consts *consts
	rows   map[rowKey]*rowAcc
	// forwarders maps a helper function to the index of the parameter it
	// passes to a getenv-style reader (ncclGetLevel -> 1 and 2).
	forwarders map[string]map[int]bool
	// fwdSites are the reader calls inside each helper, per forwarded
	// parameter index, so what the helper does with the string is recorded
	// for every variable read through it.
	fwdSites map[string]map[int][]fwdSite
	warnings []string
	// strArrays are file-scope arrays of string literals
	// (topoPathTypeStr), so a strcmp against an element is a comparison
	// with every literal of the array.
	strArrays map[string][]string
}

type fwdSite struct {
	fi          *fileInfo
	open, close int
}

type rowKey struct {
	name string
	via  params.Via
}

// rowAcc accumulates one row while the tree is scanned.
type rowAcc struct {
	row      params.Row
	values   []string
	valueSet map[string]bool
	parse    []string
	parseSet map[string]bool
	checks   map[string]bool
	config   map[string]bool
	reads    map[params.Site]bool
	defTok   []clex.Token // default expression
}

func (a *analysis) acc(name string, via params.Via) *rowAcc {
	k := rowKey{name, via}
	r := a.rows[k]
	if r == nil {
		r = &rowAcc{row: params.Row{Name: name, Via: via}, valueSet: map[string]bool{}, parseSet: map[string]bool{},
			checks: map[string]bool{}, config: map[string]bool{}, reads: map[params.Site]bool{}}
		a.rows[k] = r
	}
	return r
}

func (r *rowAcc) addValue(v string) {
	if !r.valueSet[v] {
		r.valueSet[v] = true
		r.values = append(r.values, v)
	}
}

func (r *rowAcc) addParse(p string) {
	if !r.parseSet[p] {
		r.parseSet[p] = true
		r.parse = append(r.parse, p)
	}
}

// analyze builds the registry rows of a source tree. files must be sorted by
// path so that first-seen orders (values) are deterministic.
func analyze(files []srcFile) ([]params.Row, []string) {
	a := &analysis{consts: newConsts(), rows: map[rowKey]*rowAcc{}, forwarders: map[string]map[int]bool{},
		fwdSites: map[string]map[int][]fwdSite{}, strArrays: map[string][]string{}}
	for _, f := range files {
		lx := clex.Lex(f.Data)
		fi := &fileInfo{path: f.Path, lx: lx, toks: lx.Toks}
		fi.findFuncs()
		a.files = append(a.files, fi)
		for _, d := range lx.Defines {
			a.consts.add(d.Name, d.Body)
		}
		// an NCCL_ name inside a macro body is not analysed: report it,
		// so that a read hidden in a macro is never lost silently
		for _, t := range lx.MacroStrings {
			if len(t.Text) <= len("NCCL_") || !strings.HasPrefix(t.Text, "NCCL_") || !params.IsEnvName(t.Text) {
				continue
			}
			a.warnings = append(a.warnings, f.Path+":"+strconv.Itoa(t.Line)+": "+strconv.Quote(t.Text)+
				" appears inside a #define body, which genparams does not analyse")
		}
	}
	for _, fi := range a.files {
		fi.collectConsts(a.consts)
		fi.collectStringArrays(a.strArrays)
	}
	a.findForwarders()
	for _, fi := range a.files {
		a.scanParamDefs(fi)
		a.scanStringReads(fi)
	}
	a.scanParamUses()
	return a.finish(), a.warnings
}

// ---------------------------------------------------------------------------
// functions

// nonFuncCallees are keywords that look like calls before a brace.
var nonFuncCallees = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "catch": true, "sizeof": true, "return": true,
	"decltype": true, "alignas": true, "__attribute__": true, "noexcept": true, "throw": true, "defined": true,
	"__declspec": true, "alignof": true, "static_assert": true,
}

// qualifiers that may sit between a function's ')' and its '{'.
var postQualifiers = map[string]bool{
	"const": true, "noexcept": true, "override": true, "final": true, "volatile": true, "mutable": true,
	"&": true, "&&": true, "try": true,
}

// findFuncs finds function bodies at file, namespace and class scope.
func (fi *fileInfo) findFuncs() {
	toks := fi.toks
	fi.inFunc = make([]int, len(toks))
	type scope struct {
		fn    int // index in funcs, or -1
		start int
	}
	var stack []scope
	cur := -1
	for i, t := range toks {
		fi.inFunc[i] = cur
		if t.Kind != clex.Punct {
			continue
		}
		switch t.Text {
		case "{":
			fn := -1
			if cur < 0 {
				if name, params, ok := funcHeader(toks, i); ok {
					fi.funcs = append(fi.funcs, funcSpan{Name: name, Params: params, Start: i + 1})
					fn = len(fi.funcs) - 1
				}
			}
			stack = append(stack, scope{fn: fn, start: i})
			if fn >= 0 {
				cur = fn
			}
		case "}":
			if len(stack) == 0 {
				continue
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.fn >= 0 {
				fi.funcs[top.fn].End = i
				fi.inFunc[i] = -1
				cur = -1
				for _, s := range stack {
					if s.fn >= 0 {
						cur = s.fn
					}
				}
			}
		}
	}
	for k := range fi.funcs {
		if fi.funcs[k].End == 0 {
			fi.funcs[k].End = len(toks)
		}
	}
}

// matchBack returns the index of the '(' matching the ')' at toks[j].
func matchBack(toks []clex.Token, j int, open, close string) int {
	depth := 0
	for k := j; k >= 0; k-- {
		if toks[k].Kind != clex.Punct {
			continue
		}
		switch toks[k].Text {
		case close:
			depth++
		case open:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// matchFwd returns the index of the closer matching the opener at toks[j].
func matchFwd(toks []clex.Token, j int, open, close string) int {
	depth := 0
	for k := j; k < len(toks); k++ {
		if toks[k].Kind != clex.Punct {
			continue
		}
		switch toks[k].Text {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// funcHeader decides whether the '{' at toks[i] opens a function body and
// returns the function's (possibly qualified) name and parameter names.
func funcHeader(toks []clex.Token, i int) (string, []string, bool) {
	j := i - 1
	// skip qualifiers and a trailing return type
	for steps := 0; j >= 0 && steps < 16; steps++ {
		t := toks[j]
		if t.Kind == clex.Punct && t.Text == ")" {
			break
		}
		if postQualifiers[t.Text] || t.Text == "->" || t.Text == "::" || t.Text == "*" || t.Kind == clex.Ident ||
			t.Text == "<" || t.Text == ">" {
			j--
			continue
		}
		return "", nil, false
	}
	if j < 0 || toks[j].Text != ")" {
		return "", nil, false
	}
	for guard := 0; guard < 64; guard++ {
		open := matchBack(toks, j, "(", ")")
		if open <= 0 {
			return "", nil, false
		}
		nameIdx := open - 1
		nt := toks[nameIdx]
		if nt.Kind != clex.Ident || nonFuncCallees[nt.Text] {
			if nt.Kind == clex.Ident && (nt.Text == "noexcept" || nt.Text == "throw" || nt.Text == "__attribute__") {
				j = nameIdx - 1
				if j >= 0 && toks[j].Text == ")" {
					continue
				}
			}
			return "", nil, false
		}
		// constructor initialiser list: ") : a(x), b(y) {"
		if nameIdx > 0 && (toks[nameIdx-1].Text == "," || toks[nameIdx-1].Text == ":") {
			k := nameIdx - 2
			if k >= 0 && toks[k].Text == ")" {
				j = k
				continue
			}
			if toks[nameIdx-1].Text == "," && k >= 0 && toks[k].Text == "}" {
				// member initialised with braces: skip to before its '{'
				ob := matchBack(toks, k, "{", "}")
				if ob > 1 && toks[ob-1].Kind == clex.Ident {
					k = ob - 2
					if k >= 0 && (toks[k].Text == "," || toks[k].Text == ":") {
						if k-1 >= 0 && toks[k-1].Text == ")" {
							j = k - 1
							continue
						}
					}
				}
			}
			return "", nil, false
		}
		name := nt.Text
		k := nameIdx - 1
		for k >= 1 && toks[k].Text == "::" {
			q := toks[k-1]
			if q.Text == ">" {
				lt := matchBack(toks, k-1, "<", ">")
				if lt > 0 && toks[lt-1].Kind == clex.Ident {
					name = toks[lt-1].Text + "::" + name
					k = lt - 2
					continue
				}
				break
			}
			if q.Kind != clex.Ident {
				break
			}
			name = q.Text + "::" + name
			k -= 2
		}
		if strings.HasPrefix(name, "operator") {
			return "", nil, false
		}
		return name, paramNames(toks[open+1 : j]), true
	}
	return "", nil, false
}

// paramNames returns the last identifier of each top-level parameter.
func paramNames(toks []clex.Token) []string {
	var out []string
	depth := 0
	last := ""
	inDefault := false
	for _, t := range toks {
		if t.Kind == clex.Punct {
			switch t.Text {
			case "(", "[", "{", "<":
				depth++
			case ")", "]", "}", ">":
				depth--
			case ",":
				if depth == 0 {
					out = append(out, last)
					last, inDefault = "", false
				}
			case "=":
				if depth == 0 {
					inDefault = true
				}
			}
			continue
		}
		if t.Kind == clex.Ident && depth == 0 && !inDefault {
			last = t.Text
		}
	}
	if last != "" || len(out) > 0 {
		out = append(out, last)
	}
	return out
}

func (fi *fileInfo) funcName(i int) string {
	if i < 0 || i >= len(fi.inFunc) || fi.inFunc[i] < 0 {
		return "(file scope)"
	}
	return fi.funcs[fi.inFunc[i]].Name
}

// ---------------------------------------------------------------------------
// constants: enumerators and const/constexpr integers outside functions

func (fi *fileInfo) collectConsts(c *consts) {
	toks := fi.toks
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind != clex.Ident {
			continue
		}
		switch t.Text {
		case "enum":
			// enum [class|struct] [Name] [: type] { ... }
			j := i + 1
			for j < len(toks) && toks[j].Text != "{" && toks[j].Text != ";" && j-i < 12 {
				j++
			}
			if j >= len(toks) || toks[j].Text != "{" {
				continue
			}
			end := matchFwd(toks, j, "{", "}")
			if end < 0 {
				continue
			}
			var prev string
			k := j + 1
			for k < end {
				if toks[k].Kind != clex.Ident {
					k++
					continue
				}
				name := toks[k].Text
				k++
				var body []clex.Token
				if k < end && toks[k].Text == "=" {
					s := k + 1
					depth := 0
					for k = s; k < end; k++ {
						tx := toks[k].Text
						if tx == "(" {
							depth++
						} else if tx == ")" {
							depth--
						} else if tx == "," && depth == 0 {
							break
						}
					}
					body = toks[s:k]
				} else if prev == "" {
					body = []clex.Token{{Kind: clex.Number, Text: "0"}}
				} else {
					body = []clex.Token{{Kind: clex.Punct, Text: "("}, {Kind: clex.Ident, Text: prev}, {Kind: clex.Punct, Text: ")"},
						{Kind: clex.Punct, Text: "+"}, {Kind: clex.Number, Text: "1"}}
				}
				c.add(name, body)
				prev = name
				// skip to the next comma
				for k < end && toks[k].Text != "," {
					k++
				}
				k++
			}
			i = end
		case "constexpr", "const":
			if fi.inFunc[i] >= 0 {
				continue
			}
			// const|constexpr [type words] NAME = expr ;
			j := i + 1
			for j < len(toks) && j-i < 6 && toks[j].Kind == clex.Ident && castTypes[toks[j].Text] {
				j++
			}
			if j == i+1 || j+1 >= len(toks) || toks[j].Kind != clex.Ident || toks[j+1].Text != "=" {
				continue
			}
			s := j + 2
			e := s
			for e < len(toks) && toks[e].Text != ";" && toks[e].Text != "," && e-s < 40 {
				e++
			}
			if e < len(toks) && toks[e].Text == ";" {
				c.add(toks[j].Text, toks[s:e])
			}
		}
	}
}

// collectStringArrays finds "name[...] = { "a", "b", ... }" outside
// functions. A name defined twice with different contents is dropped.
func (fi *fileInfo) collectStringArrays(out map[string][]string) {
	toks := fi.toks
	for i := 0; i+3 < len(toks); i++ {
		if toks[i].Kind != clex.Ident || toks[i+1].Text != "[" || fi.inFunc[i] >= 0 {
			continue
		}
		cl := matchFwd(toks, i+1, "[", "]")
		if cl < 0 || cl+2 >= len(toks) || toks[cl+1].Text != "=" || toks[cl+2].Text != "{" {
			continue
		}
		end := matchFwd(toks, cl+2, "{", "}")
		if end < 0 {
			continue
		}
		var vals []string
		ok := true
		for k := cl + 3; k < end; k++ {
			switch {
			case toks[k].Kind == clex.String:
				vals = append(vals, toks[k].Text)
			case toks[k].Text == ",":
			default:
				ok = false
			}
		}
		if !ok || len(vals) == 0 {
			continue
		}
		name := toks[i].Text
		if old, seen := out[name]; seen && strings.Join(old, "\x00") != strings.Join(vals, "\x00") {
			out[name] = nil
			continue
		}
		out[name] = vals
	}
}

// ---------------------------------------------------------------------------
// readers

// isReaderName reports getenv-style functions: ncclGetEnv, getenv,
// std::getenv, getEnvFunc (a function pointer in debug.cc).
func isReaderName(name string) bool {
	return strings.Contains(strings.ToLower(name), "getenv")
}

// calleeAt returns the callee name of a call whose '(' is toks[open], with
// a std:: qualifier kept ("std::getenv").
func calleeAt(toks []clex.Token, open int) string {
	if open < 1 || toks[open-1].Kind != clex.Ident {
		return ""
	}
	name := toks[open-1].Text
	if open >= 3 && toks[open-2].Text == "::" && toks[open-3].Kind == clex.Ident {
		name = toks[open-3].Text + "::" + name
	}
	// a member call (obj.getenv) is not a reader
	if open >= 2 && (toks[open-2].Text == "." || toks[open-2].Text == "->") {
		return ""
	}
	return name
}

// calleeStart returns the index of the first token of the callee of the
// call whose '(' is toks[open] (the "std" of std::getenv).
func calleeStart(toks []clex.Token, open int) int {
	s := open - 1
	if s >= 2 && toks[s-1].Text == "::" && toks[s-2].Kind == clex.Ident {
		s -= 2
	}
	return s
}

// callArgs splits the arguments of the call whose '(' is toks[open] and
// returns their token ranges and the index of the closing ')'.
func callArgs(toks []clex.Token, open int) ([][2]int, int) {
	var args [][2]int
	depth := 0
	start := open + 1
	for k := open; k < len(toks); k++ {
		t := toks[k]
		if t.Kind != clex.Punct {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				if k > start || len(args) > 0 {
					args = append(args, [2]int{start, k})
				}
				return args, k
			}
		case ",":
			if depth == 1 {
				args = append(args, [2]int{start, k})
				start = k + 1
			}
		}
	}
	return args, -1
}

// literalArg returns the string value of an argument that is one string
// literal or several adjacent ones.
func literalArg(toks []clex.Token, r [2]int) (string, bool) {
	if r[1] <= r[0] {
		return "", false
	}
	var b strings.Builder
	for k := r[0]; k < r[1]; k++ {
		if toks[k].Kind != clex.String {
			return "", false
		}
		b.WriteString(toks[k].Text)
	}
	return b.String(), true
}

// findForwarders finds helpers that pass one of their parameters to a
// reader, to a fixed point (a helper of a helper is found too).
func (a *analysis) findForwarders() {
	for changed := true; changed; {
		changed = false
		for _, fi := range a.files {
			for _, fn := range fi.funcs {
				for k := fn.Start; k < fn.End; k++ {
					if fi.toks[k].Text != "(" {
						continue
					}
					callee := calleeAt(fi.toks, k)
					if callee == "" {
						continue
					}
					args, _ := callArgs(fi.toks, k)
					var idx []int
					if isReaderName(callee) {
						idx = []int{0}
					} else if fw, ok := a.forwarders[callee]; ok {
						for x := range fw {
							idx = append(idx, x)
						}
					}
					for _, x := range idx {
						if x >= len(args) || args[x][1]-args[x][0] != 1 {
							continue
						}
						arg := fi.toks[args[x][0]]
						if arg.Kind != clex.Ident {
							continue
						}
						for p, name := range fn.Params {
							if name == arg.Text && !isReaderName(fn.Name) {
								if a.forwarders[fn.Name] == nil {
									a.forwarders[fn.Name] = map[int]bool{}
								}
								if !a.forwarders[fn.Name][p] {
									a.forwarders[fn.Name][p] = true
									changed = true
									if isReaderName(callee) {
										if a.fwdSites[fn.Name] == nil {
											a.fwdSites[fn.Name] = map[int][]fwdSite{}
										}
										_, cl := callArgs(fi.toks, k)
										a.fwdSites[fn.Name][p] = append(a.fwdSites[fn.Name][p], fwdSite{fi: fi, open: k, close: cl})
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// scanStringReads finds reader calls whose variable name is a literal.
func (a *analysis) scanStringReads(fi *fileInfo) {
	toks := fi.toks
	for k := 1; k < len(toks); k++ {
		if toks[k].Text != "(" || toks[k].Kind != clex.Punct {
			continue
		}
		callee := calleeAt(toks, k)
		if callee == "" {
			continue
		}
		var idx []int
		if isReaderName(callee) {
			idx = []int{0}
		} else if fw, ok := a.forwarders[callee]; ok {
			for x := range fw {
				idx = append(idx, x)
			}
			sort.Ints(idx)
		} else {
			continue
		}
		args, closeIdx := callArgs(toks, k)
		if closeIdx < 0 {
			continue
		}
		if isReaderName(callee) && len(args) > 0 && fi.inFunc[k] >= 0 {
			if _, lit := literalArg(toks, args[0]); !lit && !a.isForwardedParam(fi, k, args[0]) && !isReaderName(fi.funcName(k)) {
				a.warnings = append(a.warnings, fmt.Sprintf("%s:%d: %s(%s) in %s reads a name that is not a literal",
					fi.path, toks[k].Line, callee, tokText(toks[args[0][0]:args[0][1]]), fi.funcName(k)))
			}
		}
		for _, x := range idx {
			if x >= len(args) {
				continue
			}
			name, ok := literalArg(toks, args[x])
			if !ok || !strings.HasPrefix(name, "NCCL_") || !params.IsEnvName(name) {
				continue
			}
			r := a.acc(name, params.Via(callee))
			r.row.Symbol = callee
			r.row.Type = "string"
			r.row.Default = "unset"
			r.reads[params.Site{File: fi.path, Func: fi.funcName(k)}] = true
			if _, isFw := a.forwarders[callee]; isFw {
				// what the helper does with the string, at its own reader call
				for _, fs := range a.fwdSites[callee][x] {
					if fs.close > 0 {
						a.follow(fs.fi, calleeStart(fs.fi.toks, fs.open), fs.close+1, r, true)
					}
				}
				continue
			}
			a.follow(fi, calleeStart(toks, k), closeIdx+1, r, true)
		}
	}
}

// isForwardedParam reports that the argument is a parameter of the
// enclosing helper that genparams already follows (ncclGetLevel's levelEnv).
func (a *analysis) isForwardedParam(fi *fileInfo, k int, arg [2]int) bool {
	if arg[1]-arg[0] != 1 || fi.inFunc[k] < 0 {
		return false
	}
	fn := fi.funcs[fi.inFunc[k]]
	for p, name := range fn.Params {
		if name == fi.toks[arg[0]].Text && a.forwarders[fn.Name][p] {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// parameters

// scanParamDefs finds NCCL_PARAM and DEFINE_NCCL_PARAM definitions.
func (a *analysis) scanParamDefs(fi *fileInfo) {
	toks := fi.toks
	for k := 0; k+1 < len(toks); k++ {
		t := toks[k]
		if t.Kind != clex.Ident || toks[k+1].Text != "(" {
			continue
		}
		switch t.Text {
		case "NCCL_PARAM":
			args, _ := callArgs(toks, k+1)
			if len(args) < 3 || args[0][1]-args[0][0] != 1 {
				continue
			}
			key, ok := literalArg(toks, args[1])
			if !ok {
				continue
			}
			name := "NCCL_" + key
			r := a.acc(name, params.ViaParam)
			r.row.Symbol = "ncclParam" + toks[args[0][0]].Text
			r.row.Type = "int64"
			r.row.Defined = fi.path
			r.addParse("ncclLoadParam")
			// the default is everything after the second comma
			r.defTok = toks[args[2][0]:args[len(args)-1][1]]
		case "DEFINE_NCCL_PARAM":
			args, _ := callArgs(toks, k+1)
			if len(args) < 7 || args[0][1]-args[0][0] != 1 || args[2][1]-args[2][0] != 1 {
				continue
			}
			name := toks[args[2][0]].Text
			if !strings.HasPrefix(name, "NCCL_") {
				continue
			}
			r := a.acc(name, params.ViaTypedParam)
			r.row.Symbol = toks[args[0][0]].Text
			r.row.Type = tokText(toks[args[1][0]:args[1][1]])
			r.row.Defined = fi.path
			r.defTok = toks[args[3][0]:args[3][1]]
			p := toks[args[5][0]:args[5][1]]
			parser := "default"
			for _, pt := range p {
				if pt.Kind == clex.Ident {
					if pt.Text != "NCCL_PARAM_DEFAULT" {
						parser = pt.Text
					}
					break
				}
			}
			r.addParse(parser)
			// option names: makeOption("NAME", ...)
			for q := args[5][0]; q+2 < args[5][1]; q++ {
				if p := toks[q]; p.Kind == clex.Ident && p.Text == "makeOption" && toks[q+1].Text == "(" && toks[q+2].Kind == clex.String {
					r.addValue(toks[q+2].Text)
				}
			}
		}
	}
}

// scanParamUses finds the calls of every parameter's accessor.
func (a *analysis) scanParamUses() {
	bySym := map[string]*rowAcc{}
	for k, r := range a.rows {
		if !k.via.IsString() {
			bySym[r.row.Symbol] = r
		}
	}
	// macros whose body calls an accessor, directly or through another
	// macro (RAS_KEEPALIVE_INTERVAL calls ncclParamRasTimeoutFactor())
	viaMacro := map[string]map[*rowAcc]bool{}
	var macros []clex.Define
	for _, fi := range a.files {
		macros = append(macros, fi.lx.Macros...)
	}
	for changed := true; changed; {
		changed = false
		for _, m := range macros {
			for _, bt := range m.Body {
				if bt.Kind != clex.Ident || bt.Text == m.Name {
					continue
				}
				var add []*rowAcc
				if r, ok := bySym[bt.Text]; ok {
					add = append(add, r)
				}
				for r := range viaMacro[bt.Text] {
					add = append(add, r)
				}
				for _, r := range add {
					if viaMacro[m.Name] == nil {
						viaMacro[m.Name] = map[*rowAcc]bool{}
					}
					if !viaMacro[m.Name][r] {
						viaMacro[m.Name][r] = true
						changed = true
					}
				}
			}
		}
	}
	for _, fi := range a.files {
		toks := fi.toks
		for k := 0; k < len(toks); k++ {
			if rs, ok := viaMacro[toks[k].Text]; ok && toks[k].Kind == clex.Ident && fi.inFunc[k] >= 0 {
				for r := range rs {
					r.reads[params.Site{File: fi.path, Func: fi.funcName(k)}] = true
				}
			}
		}
		for k := 0; k+2 < len(toks); k++ {
			t := toks[k]
			if t.Kind != clex.Ident || toks[k+1].Text != "(" || toks[k+2].Text != ")" {
				continue
			}
			r, ok := bySym[t.Text]
			if !ok || fi.inFunc[k] < 0 {
				continue
			}
			if k > 0 && (toks[k-1].Text == "." || toks[k-1].Text == "->" || toks[k-1].Text == "::") {
				continue
			}
			r.reads[params.Site{File: fi.path, Func: fi.funcName(k)}] = true
			a.follow(fi, k, k+3, r, false)
		}
	}
}

// ---------------------------------------------------------------------------
// following a value: aliases, comparisons, parses, config fields

var cmpOps = map[string]string{"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}

var parseFuncs = map[string]bool{
	"strtol": true, "strtoll": true, "strtoul": true, "strtoull": true, "atoi": true, "atol": true, "atoll": true,
	"std::strtol": true, "std::strtoll": true, "std::strtoul": true, "std::strtoull": true, "std::atoi": true,
	"std::stoi": true, "std::stol": true, "std::stoll": true,
}

// copyFuncs return (part of) their string argument.
var copyFuncs = map[string]bool{"strdup": true, "strndup": true, "strtok": true, "strtok_r": true}

var strCmpFuncs = map[string]bool{
	"strcmp": true, "strcasecmp": true, "strncmp": true, "strncasecmp": true,
	"std::strcmp": true, "std::strncmp": true,
}

// follow records what the code does with a value produced by the expression
// toks[s:e] (a reader or accessor call, or one use of an alias). isString is
// true for a raw string (comparisons with string literals and parses are
// looked for) and false for an integer (comparisons with constants).
func (a *analysis) follow(fi *fileInfo, s, e int, r *rowAcc, isString bool) {
	a.followDepth(fi, s, e, r, isString, 0)
}

func (a *analysis) followDepth(fi *fileInfo, s, e int, r *rowAcc, isString bool, depth int) {
	toks := fi.toks
	if depth > 8 {
		return
	}
	if isString {
		a.stringUse(fi, s, e, r, depth)
	} else {
		a.intUse(fi, s, e, r)
	}
	// assignment to a config field or an alias
	lhs := s - 1
	// skip a C cast such as (int)
	if lhs >= 0 && toks[lhs].Text == ")" {
		open := matchBack(toks, lhs, "(", ")")
		if open >= 0 && isCast(toks[open+1:lhs]) {
			lhs = open - 1
		}
	}
	if lhs < 1 || toks[lhs].Text != "=" {
		return
	}
	target := toks[lhs-1]
	if target.Kind != clex.Ident {
		return
	}
	if lhs >= 3 && (toks[lhs-2].Text == "." || toks[lhs-2].Text == "->") {
		if toks[lhs-3].Text == "config" {
			r.config[target.Text] = true
		}
		return
	}
	// alias: follow its uses to the end of the block or the next assignment
	fnIdx := fi.inFunc[s]
	if fnIdx < 0 {
		return
	}
	end := blockEnd(toks, s, fi.funcs[fnIdx].End)
	for k := e; k < end; k++ {
		t := toks[k]
		if t.Kind != clex.Ident || t.Text != target.Text {
			continue
		}
		if k > 0 && (toks[k-1].Text == "." || toks[k-1].Text == "->" || toks[k-1].Text == "::") {
			continue
		}
		if k+1 < len(toks) && toks[k+1].Text == "=" {
			break // reassigned
		}
		a.followDepth(fi, k, k+1, r, isString, depth+1)
	}
}

// blockEnd returns the index of the '}' closing the block that holds toks[s].
func blockEnd(toks []clex.Token, s, limit int) int {
	depth := 0
	for k := s; k < limit; k++ {
		switch toks[k].Text {
		case "{":
			depth++
		case "}":
			if depth == 0 {
				return k
			}
			depth--
		}
	}
	return limit
}

func isCast(toks []clex.Token) bool {
	if len(toks) == 0 {
		return false
	}
	for _, t := range toks {
		if !(castTypes[t.Text] || t.Text == "*" || t.Text == "const" || t.Text == "char") {
			return false
		}
	}
	return true
}

// constOperand reads a constant operand starting at toks[k] (forward) and
// returns its text.
func constOperand(toks []clex.Token, k, limit int) (string, bool) {
	if k >= limit {
		return "", false
	}
	t := toks[k]
	if t.Text == "-" && k+1 < limit && toks[k+1].Kind == clex.Number {
		return "-" + toks[k+1].Text, true
	}
	if t.Kind == clex.Number {
		return t.Text, true
	}
	if t.Kind == clex.Ident && isConstName(t.Text) {
		// not a call or a member
		if k+1 < limit && (toks[k+1].Text == "(" || toks[k+1].Text == "." || toks[k+1].Text == "->" || toks[k+1].Text == "[") {
			return "", false
		}
		return t.Text, true
	}
	return "", false
}

// constBefore reads a constant operand that ends at toks[k] (backward).
func constBefore(toks []clex.Token, k int) (string, bool) {
	if k < 0 {
		return "", false
	}
	t := toks[k]
	if t.Kind == clex.Number {
		if k >= 1 && toks[k-1].Text == "-" && (k < 2 || toks[k-2].Kind == clex.Punct && toks[k-2].Text != ")") {
			return "-" + t.Text, true
		}
		return t.Text, true
	}
	if t.Kind == clex.Ident && isConstName(t.Text) {
		if k >= 1 && (toks[k-1].Text == "." || toks[k-1].Text == "->" || toks[k-1].Text == "::") {
			return "", false
		}
		return t.Text, true
	}
	return "", false
}

// isConstName: macro or enumerator style names (NCCL_CONFIG_UNDEF_INT,
// MAXCHANNELS, PATH_SYS) plus true/false.
func isConstName(s string) bool {
	if s == "true" || s == "false" {
		return true
	}
	if len(s) < 2 {
		return false
	}
	hasUpper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			hasUpper = true
		case c == '_' || (c >= '0' && c <= '9'):
		default:
			return false
		}
	}
	return hasUpper
}

// intUse records comparisons of the integer value toks[s:e] with constants.
func (a *analysis) intUse(fi *fileInfo, s, e int, r *rowAcc) {
	toks := fi.toks
	if e < len(toks) {
		if _, ok := cmpOps[toks[e].Text]; ok {
			if c, ok := constOperand(toks, e+1, len(toks)); ok {
				// do not take "x < y + 1" as "x < y": the operand must end the comparison
				if next := e + 2 + strings.Count(c, "-"); next >= len(toks) || !isArith(toks[next].Text) {
					r.checks[toks[e].Text+c] = true
				}
			}
		}
	}
	if s >= 2 {
		if flipped, ok := cmpOps[toks[s-1].Text]; ok {
			if c, ok := constBefore(toks, s-2); ok {
				prev := s - 3
				if strings.HasPrefix(c, "-") {
					prev--
				}
				if prev < 0 || toks[prev].Text == "(" || !isArith(toks[prev].Text) {
					r.checks[flipped+c] = true
				}
			}
		}
	}
	// "!x" and "x ? ..." and "if (x)" are truth tests
	if s >= 1 && toks[s-1].Text == "!" {
		r.checks["==0"] = true
	}
}

func isArith(s string) bool {
	switch s {
	case "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", ".", "->", "(", "[":
		return true
	}
	return false
}

// stringUse records string comparisons and integer parses of the string
// value toks[s:e].
func (a *analysis) stringUse(fi *fileInfo, s, e int, r *rowAcc, depth int) {
	toks := fi.toks
	// the value is an argument: find the call it is passed to
	if s < 2 {
		return
	}
	open := -1
	if toks[s-1].Text == "(" {
		open = s - 1
	} else if toks[s-1].Text == "," {
		// second argument: scan back to the '(' of the call
		d := 0
		for k := s - 2; k >= 0 && s-k < 16; k-- {
			switch toks[k].Text {
			case ")":
				d++
			case "(":
				if d == 0 {
					open = k
				}
				d--
			}
			if open >= 0 {
				break
			}
		}
	}
	if open < 1 {
		return
	}
	callee := calleeAt(toks, open)
	args, closeIdx := callArgs(toks, open)
	switch {
	case strCmpFuncs[callee]:
		for _, ar := range args[:min(2, len(args))] {
			if v, ok := literalArg(toks, ar); ok {
				r.addValue(v)
				r.addParse(strings.TrimPrefix(callee, "std::"))
			}
			// name[i]: an element of a string array
			if ar[1]-ar[0] >= 3 && toks[ar[0]].Kind == clex.Ident && toks[ar[0]+1].Text == "[" && toks[ar[1]-1].Text == "]" {
				if vals := a.strArrays[toks[ar[0]].Text]; len(vals) > 0 {
					for _, v := range vals {
						r.addValue(v)
					}
					r.addParse(strings.TrimPrefix(callee, "std::"))
				}
			}
		}
	case copyFuncs[callee]:
		// strdup/strtok: the result is the same text, followed as a string
		if closeIdx > 0 {
			a.followDepth(fi, calleeStart(toks, open), closeIdx+1, r, true, depth+1)
		}
	case parseFuncs[callee]:
		r.addParse(strings.TrimPrefix(callee, "std::"))
		if closeIdx > 0 {
			// the parsed integer is followed like a parameter
			start := open - 1
			if start >= 2 && toks[start-1].Text == "::" {
				start -= 2
			}
			a.intUse(fi, start, closeIdx+1, r)
			a.followInt(fi, start, closeIdx+1, r, depth+1)
		}
	}
}

// followInt follows an integer derived from a string (the result of strtol).
func (a *analysis) followInt(fi *fileInfo, s, e int, r *rowAcc, depth int) {
	a.followDepth(fi, s, e, r, false, depth)
}

// ---------------------------------------------------------------------------
// rows

func (a *analysis) finish() []params.Row {
	rows := make([]params.Row, 0, len(a.rows))
	for _, r := range a.rows {
		row := r.row
		row.Values = r.values
		row.Parse = r.parse
		for c := range r.checks {
			row.Checks = append(row.Checks, c)
		}
		for c := range r.config {
			row.Config = append(row.Config, c)
		}
		for s := range r.reads {
			row.Reads = append(row.Reads, s)
		}
		if !row.Via.IsString() {
			a.resolveDefault(&row, r.defTok)
		}
		rows = append(rows, row)
	}
	params.SortRows(rows)
	return rows
}

// resolveDefault fills Default, Expr and Computed of a parameter row.
func (a *analysis) resolveDefault(row *params.Row, def []clex.Token) {
	text := tokText(def)
	switch {
	case len(def) == 1 && def[0].Kind == clex.String:
		row.Default = strconv.Quote(def[0].Text)
		return
	case len(def) == 1 && (def[0].Text == "nullptr" || def[0].Text == "NULL"):
		row.Default = "unset"
		return
	case len(def) == 1 && (def[0].Text == "true" || def[0].Text == "false") && row.Type == "bool":
		row.Default = def[0].Text
		return
	}
	v, err := a.consts.eval(def)
	if err != nil {
		row.Default = "unresolved"
		row.Expr = text
		return
	}
	row.Default = strconv.FormatInt(v, 10)
	if text != row.Default {
		row.Expr = text
	}
	// A use site that compares the value with its own default treats the
	// default as "not set": NCCL computes the value then.
	for _, c := range row.Checks {
		op, operand := splitCheck(c)
		cv, err := a.consts.eval(clex.Lex([]byte(operand)).Toks)
		if err != nil {
			continue
		}
		// Only a negative default counts: a default of 0, 1 or 2 compared
		// with itself is as often a feature switch as an "auto" mode.
		if v >= 0 {
			continue
		}
		if (op == "==" || op == "!=") && cv == v {
			row.Computed = true
		}
		if cv == 0 && (op == "<" || op == ">=") {
			row.Computed = true // "negative means automatic"
		}
	}
}

func splitCheck(c string) (string, string) {
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(c, op) {
			return op, c[len(op):]
		}
	}
	return "", c
}

package params

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Via says how NCCL reads a variable at one release.
//
//   - "NCCL_PARAM": an int64 parameter declared with the NCCL_PARAM macro
//     (src/include/param.h) and read by ncclLoadParam (src/misc/param.cc):
//     strtoll base 0, cached per process.
//   - "DEFINE_NCCL_PARAM": a typed parameter of the 2.30 parameter registry
//     (src/include/param/param.h) with its own parser.
//   - any other value is the C function that reads the string: ncclGetEnv,
//     getenv, std::getenv, getEnvFunc (debug.cc), or a helper that passes
//     its argument on to one of those (ncclGetLevel in src/graph/paths.cc).
type Via string

const (
	ViaParam      Via = "NCCL_PARAM"
	ViaTypedParam Via = "DEFINE_NCCL_PARAM"
)

// IsParam reports an integer NCCL_PARAM read.
func (v Via) IsParam() bool { return v == ViaParam }

// IsTyped reports a DEFINE_NCCL_PARAM read.
func (v Via) IsTyped() bool { return v == ViaTypedParam }

// IsString reports a raw string read (ncclGetEnv, getenv, or a helper).
func (v Via) IsString() bool { return v != ViaParam && v != ViaTypedParam }

// Site is a place NCCL reads a variable: a file under src/ and the function
// the read happens in ("(file scope)" for a static initializer).
type Site struct {
	File string `json:"file"`
	Func string `json:"func"`
}

func (s Site) String() string { return s.File + ":" + s.Func }

// Row is one generated registry row: one variable read one way (Via) at one
// release. A variable read both as an NCCL_PARAM and with ncclGetEnv has two
// rows. Every field comes from NCCL's source at the tag; see tools/genparams
// for how each is found.
type Row struct {
	Name   string `json:"name"`   // NCCL_IB_TIMEOUT
	Via    Via    `json:"via"`    // NCCL_PARAM, DEFINE_NCCL_PARAM, ncclGetEnv, getenv, ...
	Symbol string `json:"symbol"` // ncclParamIbTimeout for a parameter; the reader for a string read
	// Type is int64 for NCCL_PARAM, the declared C type for
	// DEFINE_NCCL_PARAM, and string for a raw read.
	Type string `json:"type"`
	// Default is what NCCL uses when the variable is unset: an integer,
	// a Go-quoted string, "unset" (a string read that returns NULL), or
	// "unresolved" when the default expression uses something the source
	// tree does not define (a CUDA constant).
	Default string `json:"default"`
	// Computed is true when a use site tests the parameter against its
	// default, i.e. the default is a sentinel and NCCL computes the value.
	Computed bool `json:"computed,omitempty"`
	// Expr is the default expression as written in the source ("" when
	// it is the literal value itself or there is none).
	Expr string `json:"expr,omitempty"`
	// Parse lists how the value is interpreted: ncclLoadParam (strtoll base
	// 0) for NCCL_PARAM; the C functions applied to a string read (strtol,
	// strcmp, strcasecmp, ...); the parser of a DEFINE_NCCL_PARAM.
	Parse []string `json:"parse,omitempty"`
	// Values are the literal strings the source compares a string read
	// with, or the option names of a DEFINE_NCCL_PARAM parser, in order of
	// appearance.
	Values []string `json:"values,omitempty"`
	// Checks are the comparisons of the value with constants at its use
	// sites ("==2", "<=0", "!=NCCL_CONFIG_UNDEF_INT"), sorted.
	Checks []string `json:"checks,omitempty"`
	// Config lists the ncclConfig_t fields the value is assigned to
	// (envConfigOverride in src/init.cc), sorted.
	Config []string `json:"config,omitempty"`
	// Defined is the file declaring an NCCL_PARAM or DEFINE_NCCL_PARAM.
	Defined string `json:"defined,omitempty"`
	// Reads are the functions that read the value, sorted.
	Reads []Site `json:"reads,omitempty"`
}

// Columns are the TSV columns of a registry table, in order.
var Columns = []string{"name", "via", "symbol", "type", "default", "computed", "expr", "parse", "values", "checks", "config", "defined", "reads"}

// Table is the generated registry of one NCCL release tag.
type Table struct {
	Tag  string // v2.28.9-1
	Rows []Row  // sorted by (Name, Via)
}

// Header returns the comment block written at the top of a table file.
func Header(tag string) []string {
	return []string{
		"# gatesim NCCL parameter registry: every NCCL_* variable NCCL reads at tag " + tag,
		"# Generated from NCCL's source by tools/genparams, which only reads the source. DO NOT EDIT.",
		"# regenerate: go run ./tools/genparams -git <NVIDIA/nccl git dir> -tag " + tag + " -o spec/params/data/" + tag + ".tsv",
		"#   (or -src <checked-out NCCL at " + tag + "> instead of -git; both give the same bytes)",
		"# '-' is an empty field; lists are space separated (values: Go-quoted strings); reads are file:function.",
	}
}

// Encode writes a table in its canonical TSV form. Rows must be sorted and
// well formed (see Check); Encode does not sort, so that an unsorted input is
// caught by the round-trip test rather than hidden.
func Encode(t *Table) []byte {
	var b bytes.Buffer
	for _, h := range Header(t.Tag) {
		b.WriteString(h)
		b.WriteByte('\n')
	}
	b.WriteString(strings.Join(Columns, "\t"))
	b.WriteByte('\n')
	for _, r := range t.Rows {
		f := []string{
			r.Name, string(r.Via), r.Symbol, r.Type, r.Default, boolField(r.Computed), escape(r.Expr),
			listField(r.Parse), quotedList(r.Values), listField(r.Checks), listField(r.Config), r.Defined, siteList(r.Reads),
		}
		for i := range f {
			if f[i] == "" {
				f[i] = "-"
			}
		}
		b.WriteString(strings.Join(f, "\t"))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func boolField(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// escape makes free text safe for one TSV field. A text that is exactly
// "-" is written \- so it is not read back as an empty field.
func escape(s string) string {
	if s == "-" {
		return `\-`
	}
	r := strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	return r.Replace(s)
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("dangling backslash")
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case '-':
			b.WriteByte('-')
		default:
			return "", fmt.Errorf("unknown escape \\%c", s[i])
		}
	}
	return b.String(), nil
}

func listField(l []string) string { return strings.Join(l, " ") }

func quotedList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, " ")
}

func siteList(l []Site) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = s.String()
	}
	return strings.Join(q, " ")
}

// ParseTable reads a table written by Encode. name is used in error
// messages ("v2.28.9-1.tsv:12: ..."). It checks the format, not the content;
// Check validates the content.
func ParseTable(name string, r io.Reader) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	t := &Table{}
	line := 0
	sawHeader := false
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "#") {
			if t.Tag == "" {
				if i := strings.Index(text, " at tag "); i >= 0 {
					t.Tag = strings.TrimSpace(text[i+len(" at tag "):])
				}
			}
			continue
		}
		if text == "" {
			return nil, fmt.Errorf("%s:%d: empty line: expected a row of %d tab-separated columns", name, line, len(Columns))
		}
		fields := strings.Split(text, "\t")
		if !sawHeader {
			if text != strings.Join(Columns, "\t") {
				return nil, fmt.Errorf("%s:%d: bad column header: expected %q", name, line, strings.Join(Columns, " "))
			}
			sawHeader = true
			continue
		}
		if len(fields) != len(Columns) {
			return nil, fmt.Errorf("%s:%d: %d columns: expected %d (%s)", name, line, len(fields), len(Columns), strings.Join(Columns, " "))
		}
		row, err := parseRow(fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		t.Rows = append(t.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, line+1, err)
	}
	if !sawHeader {
		return nil, fmt.Errorf("%s: no column header: expected a line %q", name, strings.Join(Columns, " "))
	}
	if t.Tag == "" {
		return nil, fmt.Errorf("%s: no tag: expected a header comment naming the NCCL tag", name)
	}
	return t, nil
}

func dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func splitList(s string) []string {
	s = dash(s)
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

func parseRow(f []string) (Row, error) {
	var r Row
	r.Name = dash(f[0])
	r.Via = Via(dash(f[1]))
	r.Symbol = dash(f[2])
	r.Type = dash(f[3])
	r.Default = dash(f[4])
	switch dash(f[5]) {
	case "":
	case "yes":
		r.Computed = true
	default:
		return r, fmt.Errorf("column computed: %q: expected yes or -", f[5])
	}
	expr, err := unescape(dash(f[6]))
	if err != nil {
		return r, fmt.Errorf("column expr: %v", err)
	}
	r.Expr = expr
	r.Parse = splitList(f[7])
	if v := dash(f[8]); v != "" {
		vals, err := parseQuotedList(v)
		if err != nil {
			return r, fmt.Errorf("column values: %v", err)
		}
		r.Values = vals
	}
	r.Checks = splitList(f[9])
	r.Config = splitList(f[10])
	r.Defined = dash(f[11])
	for _, s := range splitList(f[12]) {
		i := strings.LastIndexByte(s, ':')
		if i <= 0 || i == len(s)-1 {
			return r, fmt.Errorf("column reads: %q: expected file:function", s)
		}
		r.Reads = append(r.Reads, Site{File: s[:i], Func: s[i+1:]})
	}
	return r, nil
}

// parseQuotedList reads space-separated Go-quoted strings.
func parseQuotedList(s string) ([]string, error) {
	var out []string
	for len(s) > 0 {
		if s[0] != '"' {
			return nil, fmt.Errorf("expected a quoted string at %q", s)
		}
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return nil, fmt.Errorf("bad quoted string at %q", s)
		}
		v, _ := strconv.Unquote(q)
		out = append(out, v)
		s = s[len(q):]
		if s == "" {
			break
		}
		if s[0] != ' ' || len(s) == 1 {
			return nil, fmt.Errorf("expected one space between quoted strings at %q", s)
		}
		s = s[1:]
	}
	return out, nil
}

// Check validates a table: names are NCCL_ identifiers, rows are sorted by
// (Name, Via) without duplicates, every row has a type, a default and at
// least one read or definition, list fields are sorted where the format
// says so. It returns one error listing every problem.
func Check(t *Table) error {
	var errs []string
	add := func(i int, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("row %d (%s %s): ", i+1, t.Rows[i].Name, t.Rows[i].Via)+fmt.Sprintf(format, args...))
	}
	if t.Tag == "" {
		errs = append(errs, "no tag")
	}
	for i, r := range t.Rows {
		if !strings.HasPrefix(r.Name, "NCCL_") || !IsEnvName(r.Name) {
			add(i, "name is not an NCCL_ variable name")
		}
		if r.Via == "" || strings.ContainsAny(string(r.Via), " \t") {
			add(i, "bad via")
		}
		if r.Type == "" {
			add(i, "no type")
		}
		if r.Default == "" {
			add(i, "no default")
		}
		if r.Via.IsParam() {
			if r.Type != "int64" {
				add(i, "NCCL_PARAM type %q: expected int64", r.Type)
			}
			if r.Default != "unresolved" {
				if _, err := strconv.ParseInt(r.Default, 10, 64); err != nil {
					add(i, "NCCL_PARAM default %q is not an integer", r.Default)
				}
			}
			if r.Defined == "" || r.Symbol == "" {
				add(i, "NCCL_PARAM without definition file or symbol")
			}
		}
		if r.Via.IsString() && r.Default != "unset" {
			add(i, "string read default %q: expected unset", r.Default)
		}
		if len(r.Reads) == 0 && r.Defined == "" {
			add(i, "no read site and no definition")
		}
		for _, l := range [][]string{r.Checks, r.Config} {
			if !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
				add(i, "list %v not sorted and unique", l)
			}
		}
		if !slices.IsSortedFunc(r.Reads, cmpSite) || len(slices.CompactFunc(slices.Clone(r.Reads), func(a, b Site) bool { return a == b })) != len(r.Reads) {
			add(i, "reads not sorted and unique")
		}
		for _, s := range r.Reads {
			if !strings.HasPrefix(s.File, "src/") || s.Func == "" || strings.ContainsAny(s.File+s.Func, " \t") {
				add(i, "bad read site %q", s)
			}
		}
		if i > 0 {
			p := t.Rows[i-1]
			if p.Name > r.Name || (p.Name == r.Name && p.Via >= r.Via) {
				add(i, "not sorted after %s %s", p.Name, p.Via)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("registry %s: %d problems:\n  %s", t.Tag, len(errs), strings.Join(errs, "\n  "))
	}
	return nil
}

func cmpSite(a, b Site) int {
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	return strings.Compare(a.Func, b.Func)
}

// SortRows puts rows in canonical order and sorts and deduplicates their
// list fields (except Values and Parse, which keep source order).
func SortRows(rows []Row) {
	for i := range rows {
		r := &rows[i]
		slices.Sort(r.Checks)
		r.Checks = slices.Compact(r.Checks)
		slices.Sort(r.Config)
		r.Config = slices.Compact(r.Config)
		slices.SortFunc(r.Reads, cmpSite)
		r.Reads = slices.CompactFunc(r.Reads, func(a, b Site) bool { return a == b })
	}
	slices.SortFunc(rows, func(a, b Row) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(string(a.Via), string(b.Via))
	})
}

// IsEnvName reports whether s looks like an environment variable name in
// NCCL's style: upper-case letters, digits (not first) and underscores. The
// table's check and genparams' scan of NCCL's source both ask it.
func IsEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9' && i > 0)) {
			return false
		}
	}
	return true
}

package ncclog

import (
	_ "embed" // the generated table of location-printing source lines
	"fmt"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// srcLinesTSV lists, for every modelled release, the lines of NCCL's src/
// that print their own location: WARN's "file.cc:LINE NCCL WARN" prefix and
// NCCLCHECK's "file.cc:LINE -> N". tools/gensrclines generates it from each
// tag's source.
//
//go:embed data/srclines.tsv
var srcLinesTSV string

// SourceLines answers at which modelled releases a source location can be
// printed. Build it with LoadSourceLines.
type SourceLines struct {
	tags   []spec.Version
	files  map[string]map[int]uint64 // path relative to src/ -> line -> release mask
	byBase map[string][]string       // base name -> paths
}

// LoadSourceLines decodes the embedded table. Its tags must be the modelled
// releases, in order: a release added without regenerating the table is an
// error here, not a silently wrong answer.
func LoadSourceLines() (*SourceLines, error) {
	return parseSourceLines(srcLinesTSV, spec.Releases)
}

func parseSourceLines(data string, want []spec.Version) (*SourceLines, error) {
	s := &SourceLines{files: map[string]map[int]uint64{}, byBase: map[string][]string{}}
	for n, row := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		bad := func(format string, a ...any) error {
			return fmt.Errorf("srclines.tsv:%d: %s", n+1, fmt.Sprintf(format, a...))
		}
		if row == "" || strings.HasPrefix(row, "#") {
			continue
		}
		f := strings.Split(row, "\t")
		if f[0] == "tags" {
			if s.tags != nil {
				return nil, bad("a second tags row")
			}
			for _, t := range f[1:] {
				v, err := spec.ParseVersion(strings.TrimSuffix(strings.TrimPrefix(t, "v"), "-1"))
				if err != nil || v.Tag() != t {
					return nil, bad("bad tag %q", t)
				}
				s.tags = append(s.tags, v)
			}
			if len(s.tags) != len(want) {
				return nil, bad("%d tags, %d modelled releases: regenerate it (tools/gensrclines)", len(s.tags), len(want))
			}
			for i := range want {
				if s.tags[i] != want[i] {
					return nil, bad("tag %d is %s, the modelled release is %s: regenerate it (tools/gensrclines)", i, s.tags[i], want[i])
				}
			}
			continue
		}
		if s.tags == nil {
			return nil, bad("a file row before the tags row")
		}
		if len(f) < 2 || f[0] == "" || s.files[f[0]] != nil {
			return nil, bad("expected a new file name and its entries")
		}
		lines := map[int]uint64{}
		line, mask := 0, uint64(0)
		for _, e := range f[1:] {
			d, m, hasMask := strings.Cut(e, ":")
			dn, err := strconv.Atoi(d)
			if err != nil || dn <= 0 {
				return nil, bad("bad line step %q", d)
			}
			line += dn
			if hasMask {
				if mask, err = strconv.ParseUint(m, 16, 64); err != nil || mask == 0 || mask>>len(s.tags) != 0 {
					return nil, bad("bad release mask %q", m)
				}
			} else if mask == 0 {
				return nil, bad("first entry without a mask")
			}
			lines[line] = mask
		}
		s.files[f[0]] = lines
		base := f[0][strings.LastIndexByte(f[0], '/')+1:]
		s.byBase[base] = append(s.byBase[base], f[0])
	}
	if s.tags == nil {
		return nil, fmt.Errorf("srclines.tsv: no tags row")
	}
	return s, nil
}

// Releases returns the modelled releases at which file:line prints its
// location, oldest first. known is false when no modelled release has a
// source file of that name (a plugin's file, say): the location then says
// nothing about NCCL's release. file may be the path relative to src/ that
// NCCL prints ("transport/net.cc"), carry a build directory before "src/",
// or be a bare base name (every file of that name counts).
func (s *SourceLines) Releases(file string, line int) (rels []spec.Version, known bool) {
	if i := strings.LastIndex(file, "src/"); i >= 0 {
		file = file[i+len("src/"):]
	}
	paths := []string{file}
	if s.files[file] == nil {
		paths = s.byBase[file]
	}
	var mask uint64
	for _, p := range paths {
		if lines, ok := s.files[p]; ok {
			known = true
			mask |= lines[line]
		}
	}
	for i, v := range s.tags {
		if mask&(1<<i) != 0 {
			rels = append(rels, v)
		}
	}
	return rels, known
}

// errTraceKind is the LogError kind of an NCCLCHECK error-return trace, in
// either of its forms (err.trace, err.trace.func).
const errTraceKind = "err.trace"

// PrintedAt returns the NCCL source location e's line printed: a WARN's
// "file.cc:LINE" prefix, or the "file.cc:LINE" of an error-return trace
// ("enqueue.cc:1283 -> 3", from 2.30.7 "enqueue.cc:1283 (func) -> 3").
// TRACE lines print a function, not a file, and give none.
func (e LogError) PrintedAt() (file string, line int, ok bool) {
	file, line, _, ok = e.printedAt()
	return file, line, ok
}

// printedAt is PrintedAt with whether the line printed a function after
// file:line.
func (e LogError) printedAt() (file string, line int, withFunc, ok bool) {
	if e.Level == LevelWarn && e.SrcFile != "" {
		return e.SrcFile, e.SrcLine, e.SrcFunc != "", true
	}
	if e.Kind != errTraceKind {
		return "", 0, false, false
	}
	head, _, found := strings.Cut(e.Msg, " -> ")
	if !found {
		return "", 0, false, false
	}
	loc, fn, _ := strings.Cut(strings.TrimSpace(head), " ")
	file, line, ok = fileLine(loc)
	return file, line, fn != "", ok
}

// Printing returns the modelled releases at which e's line is printed as it
// is: those that print its location (Releases), kept to the releases whose
// NCCL prints a function after file:line when e's line carries one, and to
// the others when it does not. From 2.30.7 every WARN and NCCLCHECK trace
// of NCCL itself carries it (v2.30.7-1 src/debug.cc ncclDebugLogV,
// src/include/debug.h INFO_LOC_FN; the err.trace.func form's range), while a
// net plugin's lines, through ncclDebugLog, never do. ok is false when e
// printed no location; known as for Releases.
func (s *SourceLines) Printing(e LogError) (rels []spec.Version, known, ok bool) {
	file, line, withFunc, ok := e.printedAt()
	if !ok {
		return nil, false, false
	}
	all, known := s.Releases(file, line)
	for _, v := range all {
		if v.Within(funcPrefix.Since, funcPrefix.Until) == withFunc {
			rels = append(rels, v)
		}
	}
	return rels, known, true
}

// funcPrefix is the catalogue form whose release range is that of the
// function NCCL prints after file:line (TestFuncPrefixForm holds it there).
var funcPrefix = func() Form {
	for _, f := range Catalogue {
		if f.ID == "err.trace.func" {
			return f
		}
	}
	return Form{}
}()

package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/params"
)

// releasesJSON is the machine-readable companion of docs/releases.md.
var releasesJSON = filepath.Join("..", "docs", "releases.json")

type releasesFile struct {
	Description string        `json:"description"`
	Source      string        `json:"source"`
	Releases    []releaseJSON `json:"releases"`
}

type releaseJSON struct {
	Version     string          `json:"version"`
	Tag         string          `json:"tag"`
	Commit      string          `json:"commit"`
	Date        string          `json:"date"`
	Predecessor *string         `json:"predecessor"`
	Truth       string          `json:"truth"`
	TruthWhere  string          `json:"truth_where"`
	Modelled    bool            `json:"modelled_by_gatesim"`
	Changes     []releaseChange `json:"changes"`
}

// releaseChange is one exact change: its file and function are at the
// release's tag, or, for a removal, at its predecessor's (where the thing
// removed still is). A parameter's function "-" is file scope: the
// NCCL_PARAM that defines it.
type releaseChange struct {
	Area     string `json:"area"`
	Key      string `json:"key"`
	Old      string `json:"old"`
	New      string `json:"new"`
	File     string `json:"file"`
	Function string `json:"function"`
}

// removal: the change takes the thing away, so its reference is at the
// predecessor's tag.
func (c releaseChange) removal() bool {
	return c.New == "absent" || c.Area == "parameter removed"
}

func (c releaseChange) parameter() bool { return strings.HasPrefix(c.Area, "parameter ") }

func (c releaseChange) String() string {
	return fmt.Sprintf("%s %s (%s · %s)", c.Area, c.Key, c.File, c.Function)
}

// readReleasesJSON reads the committed file strictly: a field the test
// does not know is an error, as a missing file is.
func readReleasesJSON(t *testing.T) releasesFile {
	t.Helper()
	data, err := os.ReadFile(releasesJSON)
	if err != nil {
		t.Fatalf("%v: the release document is committed and must be read", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f releasesFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", releasesJSON, err)
	}
	if len(f.Releases) == 0 {
		t.Fatalf("%s: no releases", releasesJSON)
	}
	return f
}

// refTag is the tag a change's reference is at.
func refTag(r releaseJSON, byVersion map[string]releaseJSON, c releaseChange) (string, error) {
	if !c.removal() {
		return r.Tag, nil
	}
	if r.Predecessor == nil {
		return "", fmt.Errorf("a removal in a release without a predecessor")
	}
	p, ok := byVersion[*r.Predecessor]
	if !ok {
		return "", fmt.Errorf("predecessor %s is not listed", *r.Predecessor)
	}
	return p.Tag, nil
}

var srcPath = regexp.MustCompile(`^src/[A-Za-z0-9_./-]+\.(cc|h|cu|in|cuh|c)$`)

// TestReleasesJSONWellFormed holds docs/releases.json to what its
// references need without NCCL's source: every modelled release is listed
// with its tag, every predecessor is listed, and every change names a
// source file and a function (or, for a parameter, "-": file scope). Each
// parameter change agrees with the generated parameter tables
// (spec/params/data): an added one is absent before and present at the
// tag, a removed one the reverse, and its file is one that defines or
// reads it there.
func TestReleasesJSONWellFormed(t *testing.T) {
	f := readReleasesJSON(t)
	byVersion := map[string]releaseJSON{}
	for _, r := range f.Releases {
		if _, dup := byVersion[r.Version]; dup {
			t.Errorf("%s: %s listed twice", releasesJSON, r.Version)
		}
		byVersion[r.Version] = r
	}
	for _, v := range spec.Releases {
		r, ok := byVersion[v.String()]
		switch {
		case !ok:
			t.Errorf("%s: modelled release %s is not listed", releasesJSON, v)
		case r.Tag != v.Tag():
			t.Errorf("%s: %s has tag %q, expected %q", releasesJSON, v, r.Tag, v.Tag())
		}
	}
	regs := map[string]*params.Registry{}
	registry := func(version string) *params.Registry {
		if reg, ok := regs[version]; ok {
			return reg
		}
		v, err := spec.ParseVersion(version)
		if err != nil {
			t.Fatalf("%s: version %q: %v", releasesJSON, version, err)
		}
		reg, err := params.Load(v)
		if err != nil {
			t.Fatalf("%s: %s: %v", releasesJSON, version, err)
		}
		regs[version] = reg
		return reg
	}
	n := 0
	for _, r := range f.Releases {
		if r.Predecessor != nil {
			if _, ok := byVersion[*r.Predecessor]; !ok {
				t.Errorf("%s: %s: predecessor %s is not listed", releasesJSON, r.Version, *r.Predecessor)
			}
		}
		for _, c := range r.Changes {
			n++
			if !srcPath.MatchString(c.File) {
				t.Errorf("%s: %s %s: file %q: expected a path under src/", releasesJSON, r.Version, c, c.File)
			}
			if c.Function == "" || c.Function == "-" && !c.parameter() {
				t.Errorf("%s: %s %s: expected a function, table or define name", releasesJSON, r.Version, c)
			}
			if !c.parameter() || r.Predecessor == nil {
				continue
			}
			at, before := registry(r.Version), registry(*r.Predecessor)
			_, now := at.Lookup(c.Key)
			_, was := before.Lookup(c.Key)
			switch c.Area {
			case "parameter added":
				if !now || was {
					t.Errorf("%s: %s %s: in the table of %s %v, of %s %v: expected added", releasesJSON, r.Version, c, r.Version, now, *r.Predecessor, was)
				}
			case "parameter removed":
				if now || !was {
					t.Errorf("%s: %s %s: in the table of %s %v, of %s %v: expected removed", releasesJSON, r.Version, c, r.Version, now, *r.Predecessor, was)
				}
			case "parameter default":
				if !now || !was {
					t.Errorf("%s: %s %s: in the table of %s %v, of %s %v: expected in both", releasesJSON, r.Version, c, r.Version, now, *r.Predecessor, was)
				}
			default:
				t.Errorf("%s: %s %s: unknown parameter area %q", releasesJSON, r.Version, c, c.Area)
			}
			reg := at
			if c.removal() {
				reg = before
			}
			if p, ok := reg.Lookup(c.Key); ok {
				var files []string
				for _, row := range p.Rows {
					if row.Defined != "" {
						files = append(files, row.Defined)
					}
					for _, s := range row.Reads {
						files = append(files, s.File)
					}
				}
				if !slices.Contains(files, c.File) {
					t.Errorf("%s: %s %s: the table of %s defines or reads it only in %s", releasesJSON, r.Version, c, reg.Version, strings.Join(slices.Compact(slices.Sorted(slices.Values(files))), ", "))
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: no changes", releasesJSON)
	}
}

// TestReleasesJSONRefsAtTags checks every change of docs/releases.json
// against NCCL's source: its file exists at its tag (the predecessor's for
// a removal) and names each identifier of its function as a word (a
// parameter at file scope: its variable, with or without the NCCL_
// prefix). A removal must also be gone: the file at the release's own tag
// no longer names it. It reads NCCL's git mirror (ncclmirror.ForTest),
// which is not committed data: like TestRefsAtTags, it skips and says why
// where the mirror is absent.
func TestReleasesJSONRefsAtTags(t *testing.T) {
	f := readReleasesJSON(t)
	src := ncclmirror.OpenSource(t, ncclmirror.ForTest(t))
	start := time.Now()
	byVersion := map[string]releaseJSON{}
	for _, r := range f.Releases {
		byVersion[r.Version] = r
	}
	n := 0
	for _, r := range f.Releases {
		for _, c := range r.Changes {
			n++
			what := r.Version + " " + c.String()
			tag, err := refTag(r, byVersion, c)
			if err != nil {
				t.Errorf("%s: %s", what, err)
				continue
			}
			if c.Function == "-" {
				text, ok, err := src.File(tag, c.File)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					t.Errorf("%s: %s has no %s", what, tag, c.File)
				} else if !ncclmirror.HasWord(text, c.Key) && !ncclmirror.HasWord(text, strings.TrimPrefix(c.Key, "NCCL_")) {
					t.Errorf("%s: %s:%s does not name %s", what, tag, c.File, c.Key)
				}
			} else {
				bad, err := src.CheckRef(spec.Ref{Tag: tag, File: c.File, Func: c.Function})
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range bad {
					t.Errorf("%s: %s", what, b)
				}
			}
			if !c.removal() || c.parameter() {
				continue // a parameter's removal is the tables' to show (TestReleasesJSONWellFormed)
			}
			text, ok, err := src.File(r.Tag, c.File)
			if err != nil {
				t.Fatal(err)
			}
			_, names := ncclmirror.RefNames(spec.Ref{Tag: r.Tag, File: c.File, Func: c.Function})
			for _, id := range names[0] {
				if ok && ncclmirror.HasWord(text, id) {
					t.Errorf("%s: marked absent, but %s:%s still names %s", what, r.Tag, c.File, id)
				}
			}
		}
	}
	t.Logf("%d changes of %d releases checked in %v", n, len(f.Releases), time.Since(start).Round(time.Millisecond))
}

// splitOutsideTicks splits s at sep where sep is not inside `…`.
func splitOutsideTicks(s string, sep byte) []string {
	var out []string
	quoted, from := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '`':
			quoted = !quoted
		case s[i] == sep && !quoted:
			out = append(out, s[from:i])
			from = i + 1
		}
	}
	return append(out, s[from:])
}

var tickedText = regexp.MustCompile("`([^`]+)`")

// docRefGroup is one "`file`, `file` · names" group of a change table's
// "file · function at the tag" cell: every name is in one of the files.
type docRefGroup struct {
	files []string
	names string
}

// parseDocRefCell reads a "file · function at the tag" cell: groups
// separated by ";", each "`files` · names" or, without files, more names
// of the group before; "`a; b`" and "`a`, `b`" list several files, and a
// file without a directory is in the directory of the one before it.
func parseDocRefCell(cell string) ([]docRefGroup, error) {
	var groups []docRefGroup
	for _, part := range splitOutsideTicks(cell, ';') {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "`") {
			if len(groups) == 0 {
				return nil, fmt.Errorf("%q: names before any file", part)
			}
			groups = append(groups, docRefGroup{files: groups[len(groups)-1].files, names: part})
			continue
		}
		filePart, names, ok := strings.Cut(part, " · ")
		if !ok {
			return nil, fmt.Errorf("%q: expected \"`file` · function\"", part)
		}
		var files []string
		for _, m := range tickedText.FindAllStringSubmatch(filePart, -1) {
			for _, f := range strings.Split(m[1], ";") {
				f = strings.TrimSpace(f)
				if !strings.Contains(f, "/") && len(files) > 0 {
					f = filepath.ToSlash(filepath.Join(filepath.Dir(files[len(files)-1]), f))
				}
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%q: no file", part)
		}
		groups = append(groups, docRefGroup{files: files, names: names})
	}
	return groups, nil
}

// docTableRefs reads, per release section of docs/releases.md, the
// "file · function at the tag" cell of each row of its change table, with
// the row's line number.
func docTableRefs(t *testing.T, text string) (refs map[string][]docTableRef) {
	t.Helper()
	refs = map[string][]docTableRef{}
	section, col := "", -1
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "## ") {
			section, col = "", -1
			if m := releaseSection.FindStringSubmatch(l); m != nil {
				section = m[1]
			}
			continue
		}
		if section == "" || !strings.HasPrefix(l, "|") {
			col = -1
			continue
		}
		cells := mdCells(l)
		switch {
		case cells[0] == "area":
			col = slices.Index(cells, "file · function at the tag")
			if col < 0 {
				t.Errorf("%s:%d: NCCL %s's change table has no \"file · function at the tag\" column", releasesDoc, i+1, section)
			}
		case col < 0 || strings.Trim(strings.Join(cells, ""), "-: ") == "":
		case col >= len(cells):
			t.Errorf("%s:%d: %d cells: expected a reference in column %d", releasesDoc, i+1, len(cells), col+1)
		default:
			refs[section] = append(refs[section], docTableRef{line: i + 1, cell: cells[col]})
		}
	}
	return refs
}

type docTableRef struct {
	line int
	cell string
}

// TestReleasesDocRefsAtTags checks the reference of every row of every
// release's change table in docs/releases.md against NCCL's source at the
// release's tag: each file exists and each identifier named is a word of
// one of its group's files. It reads NCCL's git mirror and skips where it
// is absent, as TestRefsAtTags does; the parse itself needs no mirror
// (TestReleasesDocRefsParse).
func TestReleasesDocRefsAtTags(t *testing.T) {
	data, err := os.ReadFile(releasesDoc)
	if err != nil {
		t.Fatalf("%v: the release document is committed and must be read", err)
	}
	refs := docTableRefs(t, string(data))
	src := ncclmirror.OpenSource(t, ncclmirror.ForTest(t))
	n := 0
	for _, section := range slices.Sorted(maps.Keys(refs)) {
		v, err := spec.ParseVersion(section)
		if err != nil {
			t.Fatalf("%s: section %s: %v", releasesDoc, section, err)
		}
		for _, r := range refs[section] {
			n++
			groups, err := parseDocRefCell(r.cell)
			if err != nil {
				t.Errorf("%s:%d: %v", releasesDoc, r.line, err)
				continue
			}
			for _, g := range groups {
				var texts []string
				for _, f := range g.files {
					text, ok, err := src.File(v.Tag(), f)
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						t.Errorf("%s:%d: %s has no %s", releasesDoc, r.line, v.Tag(), f)
					}
					texts = append(texts, text)
				}
				_, names := ncclmirror.RefNames(spec.Ref{Tag: v.Tag(), File: g.files[0], Func: g.names})
				if len(names[0]) == 0 {
					t.Errorf("%s:%d: %q names no identifier", releasesDoc, r.line, g.names)
				}
				for _, id := range names[0] {
					if !slices.ContainsFunc(texts, func(text string) bool { return ncclmirror.HasWord(text, id) }) {
						t.Errorf("%s:%d: no file of %s at %s names %s", releasesDoc, r.line, strings.Join(g.files, ", "), v.Tag(), id)
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s: no change table rows", releasesDoc)
	}
	t.Logf("%d change table references checked", n)
}

// TestReleasesDocRefsParse pins the cell reader on the forms the document
// uses.
func TestReleasesDocRefsParse(t *testing.T) {
	for _, tc := range []struct {
		cell string
		want string
	}{
		{"`src/init.cc` · ncclCommInitRank", "[src/init.cc]:ncclCommInitRank"},
		{"`src/graph/tuning.cc; src/enqueue.cc` · ncclTopoTuneModel; getAlgoInfo", "[src/graph/tuning.cc src/enqueue.cc]:ncclTopoTuneModel [src/graph/tuning.cc src/enqueue.cc]:getAlgoInfo"},
		{"`src/device/all_gather.h`, `reduce_scatter.h` · RunWorkColl", "[src/device/all_gather.h src/device/reduce_scatter.h]:RunWorkColl"},
		{"`src/a.cc` · f, g; `src/b.cc` · struct h", "[src/a.cc]:f, g [src/b.cc]:struct h"},
	} {
		groups, err := parseDocRefCell(tc.cell)
		if err != nil {
			t.Fatalf("%q: %v", tc.cell, err)
		}
		var got []string
		for _, g := range groups {
			got = append(got, fmt.Sprintf("%v:%s", g.files, g.names))
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%q: %s, want %s", tc.cell, s, tc.want)
		}
	}
	for _, bad := range []string{"getAlgoInfo", "`src/init.cc` ncclCommInitRank", "· f"} {
		if _, err := parseDocRefCell(bad); err == nil {
			t.Errorf("%q: parsed, want an error", bad)
		}
	}
}

var (
	abiItem    = regexp.MustCompile("(\\w+ABI) (\\[[^\\]]*\\]) → (\\[[^\\]]*\\]) \\(`([^`]+)` ([^)]+)\\)")
	defineItem = regexp.MustCompile("`([A-Za-z0-9_]+)` (.+?) → (.+?) \\(`([^`]+)`\\)")
	constCount = regexp.MustCompile(`^(\d+) \((\d+) / (\d+) / (\d+) / (\d+)(?:, \+(\d+) other)?\)$`)
)

// constGroup is the overview's group of a change area: tuning and search,
// ABI, defines, parameters, other.
func constGroup(area string) int {
	switch {
	case area == "tuning constant" || area == "graph search constant":
		return 0
	case area == "plugin ABI window":
		return 1
	case area == "constant":
		return 2
	case strings.HasPrefix(area, "parameter "):
		return 3
	}
	return 4
}

// TestReleasesDocAgreesWithJSON holds the prose of docs/releases.md to
// docs/releases.json, whose references TestReleasesJSONRefsAtTags checks:
// every "Plugin ABI windows" and "Defines" item of a section is a change
// of that release in the JSON with the same values, file (and loader
// function), and the overview's exact-constant counts are the JSON's.
func TestReleasesDocAgreesWithJSON(t *testing.T) {
	f := readReleasesJSON(t)
	data, err := os.ReadFile(releasesDoc)
	if err != nil {
		t.Fatalf("%v: the release document is committed and must be read", err)
	}
	changes := map[string]map[string]releaseChange{}
	counts := map[string][5]int{}
	for _, r := range f.Releases {
		changes[r.Version] = map[string]releaseChange{}
		var c [5]int
		for _, ch := range r.Changes {
			changes[r.Version][ch.Area+" "+ch.Key] = ch
			c[constGroup(ch.Area)]++
		}
		counts[r.Version] = c
	}
	compact := func(s string) string { return strings.ReplaceAll(s, ",", "") }
	section, col, items, rows := "", -1, 0, 0
	for i, l := range strings.Split(string(data), "\n") {
		n := i + 1
		if strings.HasPrefix(l, "## ") {
			section = ""
			if m := releaseSection.FindStringSubmatch(l); m != nil {
				section = m[1]
			}
			continue
		}
		if section == "" && strings.HasPrefix(l, "|") {
			cells := mdCells(l)
			if j := slices.IndexFunc(cells, func(c string) bool { return strings.HasPrefix(c, "exact constants") }); j >= 0 {
				col = j
				continue
			}
			m := glanceRelease.FindStringSubmatch(cells[0])
			if m == nil || col < 0 || col >= len(cells) {
				continue
			}
			rows++
			cm := constCount.FindStringSubmatch(cells[col])
			if cm == nil {
				t.Errorf("%s:%d: NCCL %s's exact constants %q: expected \"N (a / b / c / d)\" or \"…, +e other)\"", releasesDoc, n, m[1], cells[col])
				continue
			}
			want, total := counts[m[1]], 0
			for _, x := range want {
				total += x
			}
			got := fmt.Sprintf("%s (%s / %s / %s / %s, +%s other)", cm[1], cm[2], cm[3], cm[4], cm[5], orDefault(cm[6], "0"))
			if exp := fmt.Sprintf("%d (%d / %d / %d / %d, +%d other)", total, want[0], want[1], want[2], want[3], want[4]); got != exp {
				t.Errorf("%s:%d: NCCL %s states %s exact constants; %s lists %s", releasesDoc, n, m[1], got, releasesJSON, exp)
			}
			continue
		}
		if section == "" {
			continue
		}
		switch {
		case strings.HasPrefix(l, "Plugin ABI windows"):
			for _, m := range abiItem.FindAllStringSubmatch(l, -1) {
				items++
				c, ok := changes[section]["plugin ABI window "+m[1]]
				if !ok {
					t.Errorf("%s:%d: %s of NCCL %s is not in %s", releasesDoc, n, m[1], section, releasesJSON)
					continue
				}
				if compact(c.Old) != compact(m[2]) || compact(c.New) != compact(m[3]) || c.File != m[4] || c.Function != m[5] {
					t.Errorf("%s:%d: %s %s → %s (%s %s); %s: %s → %s (%s %s)", releasesDoc, n, m[1], m[2], m[3], m[4], m[5], releasesJSON, c.Old, c.New, c.File, c.Function)
				}
			}
		case strings.HasPrefix(l, "Defines:"):
			for _, m := range defineItem.FindAllStringSubmatch(l, -1) {
				items++
				c, ok := changes[section]["constant "+m[1]]
				if !ok {
					t.Errorf("%s:%d: define %s of NCCL %s is not in %s", releasesDoc, n, m[1], section, releasesJSON)
					continue
				}
				if c.Old != m[2] || c.New != m[3] || c.File != m[4] {
					t.Errorf("%s:%d: %s %s → %s (%s); %s: %s → %s (%s)", releasesDoc, n, m[1], m[2], m[3], m[4], releasesJSON, c.Old, c.New, c.File)
				}
			}
		}
	}
	if items == 0 || rows == 0 {
		t.Fatalf("%s: %d ABI and define items, %d overview rows: expected some", releasesDoc, items, rows)
	}
}

func orDefault(s, empty string) string {
	if s == "" {
		return empty
	}
	return s
}

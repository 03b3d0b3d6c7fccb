package golden

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// releasesDoc is the release-by-release ground truth; its overview table
// states, per release, how many hand-read changes the release's own
// section lists.
var releasesDoc = filepath.Join("..", "docs", "releases.md")

// mdCells splits a markdown table row into its trimmed cells; "\|" inside
// a cell is text, not a separator.
func mdCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(strings.TrimSuffix(row, "|"), "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

var (
	releaseSection = regexp.MustCompile(`^## NCCL (\d+\.\d+\.\d+)\s*$`)
	glanceRelease  = regexp.MustCompile(`^\[(\d+\.\d+\.\d+)\]\(#nccl-\d+\)$`)
)

// releasesDocCounts reads the overview's "hand-read changes" column and
// counts the rows of each release section's change table (the one whose
// header starts with "| area |"); line numbers are 1-based, for messages.
func releasesDocCounts(t *testing.T, text string) (stated map[string]int, statedLine map[string]int, rows map[string]int) {
	t.Helper()
	stated, statedLine, rows = map[string]int{}, map[string]int{}, map[string]int{}
	lines := strings.Split(text, "\n")
	col := -1 // the "hand-read changes" column of the overview, once its header is read
	section := ""
	inTable := false
	for i, l := range lines {
		n := i + 1
		if strings.HasPrefix(l, "## ") {
			section, inTable = "", false
			if m := releaseSection.FindStringSubmatch(l); m != nil {
				section = m[1]
				if _, dup := rows[section]; dup {
					t.Errorf("%s:%d: a second section for NCCL %s", releasesDoc, n, section)
				}
				rows[section] = 0
			}
			continue
		}
		if !strings.HasPrefix(l, "|") {
			inTable = false
			continue
		}
		cells := mdCells(l)
		if section == "" {
			if i := slices.Index(cells, "hand-read changes"); i >= 0 {
				col = i
				continue
			}
			m := glanceRelease.FindStringSubmatch(cells[0])
			if col < 0 || m == nil {
				continue
			}
			if col >= len(cells) {
				t.Errorf("%s:%d: NCCL %s's row has %d cells: expected a hand-read changes cell (column %d)", releasesDoc, n, m[1], len(cells), col+1)
				continue
			}
			v, err := strconv.Atoi(cells[col])
			if err != nil {
				t.Errorf("%s:%d: NCCL %s's hand-read changes %q: expected a number", releasesDoc, n, m[1], cells[col])
				continue
			}
			stated[m[1]], statedLine[m[1]] = v, n
			continue
		}
		switch {
		case cells[0] == "area":
			if inTable {
				t.Errorf("%s:%d: a second change table in NCCL %s's section", releasesDoc, n, section)
			}
			inTable = true
		case inTable && strings.Trim(strings.Join(cells, ""), "-: ") == "":
			// the header's separator row
		case inTable:
			rows[section]++
		}
	}
	return stated, statedLine, rows
}

// TestReleasesDocHandReadCounts holds the overview of docs/releases.md to
// the sections below it: each release's hand-read change count is the
// number of rows its section's change table lists, and every modelled
// release has both a row and a section. The counts are derived from the
// rows, so adding a row to a section means updating its count.
func TestReleasesDocHandReadCounts(t *testing.T) {
	data, err := os.ReadFile(releasesDoc)
	if err != nil {
		t.Fatalf("%v: the release document is committed and must be read", err)
	}
	stated, line, rows := releasesDocCounts(t, string(data))
	if len(stated) == 0 {
		t.Fatalf("%s: no overview row with a hand-read changes column", releasesDoc)
	}
	for _, v := range spec.Releases {
		name := v.String()
		if _, ok := stated[name]; !ok {
			t.Errorf("%s: NCCL %s (modelled) has no overview row", releasesDoc, name)
		}
		if _, ok := rows[name]; !ok {
			t.Errorf("%s: NCCL %s (modelled) has no \"## NCCL %s\" section", releasesDoc, name, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(stated)) {
		want := stated[name]
		got, ok := rows[name]
		switch {
		case !ok:
			t.Errorf("%s:%d: NCCL %s has an overview row but no section", releasesDoc, line[name], name)
		case got != want:
			t.Errorf("%s:%d: NCCL %s states %d hand-read changes, its section's table lists %d", releasesDoc, line[name], name, want, got)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		if _, ok := stated[name]; !ok {
			t.Errorf("%s: the section of NCCL %s has no overview row", releasesDoc, name)
		}
	}
}

// TestReleasesDocCountsParse pins the reader on a small document: the
// counts come from the rows, a pipe escaped in a cell is text, a blank
// line or a section that is not a release's ends the table.
func TestReleasesDocCountsParse(t *testing.T) {
	doc := strings.Join([]string{
		"| release | date | hand-read changes | truth |",
		"|---|---|---|---|",
		"| [2.1.1](#nccl-211) | x | 2 | a \\| b |",
		"| [2.1.2](#nccl-212) | x | 1 | c |",
		"## NCCL 2.1.1",
		"| area | what changes |",
		"|---|---|",
		"| a | busid\\|(n<<1\\|1) |",
		"| b | c |",
		"",
		"## NCCL 2.1.2",
		"| area | what changes |",
		"|---|---|",
		"## Later",
		"| area | what changes |",
		"| x | y |",
	}, "\n")
	stated, _, rows := releasesDocCounts(t, doc)
	if stated["2.1.1"] != 2 || stated["2.1.2"] != 1 || rows["2.1.1"] != 2 || rows["2.1.2"] != 0 || len(rows) != 2 {
		t.Fatalf("stated %v rows %v: expected 2.1.1 2/2, 2.1.2 1/0", stated, rows)
	}
	if got := mdCells("| a \\| b | c |"); !slices.Equal(got, []string{"a | b", "c"}) {
		t.Fatalf("mdCells: %q", got)
	}
}

var sectionTruth = regexp.MustCompile(`Source of truth: \*\*([^*]+)\*\*`)

// releasesDocTruth reads the overview's "source of truth" column and each
// release section's "Source of truth: **KIND**", per release.
func releasesDocTruth(t *testing.T, text string) (overview, section map[string]string) {
	t.Helper()
	overview, section = map[string]string{}, map[string]string{}
	col, current := -1, ""
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "## ") {
			current = ""
			if m := releaseSection.FindStringSubmatch(l); m != nil {
				current = m[1]
			}
			continue
		}
		if current != "" {
			if m := sectionTruth.FindStringSubmatch(l); m != nil {
				if _, dup := section[current]; dup {
					t.Errorf("%s:%d: NCCL %s's section states its source of truth twice", releasesDoc, i+1, current)
				}
				section[current] = m[1]
			}
			continue
		}
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := mdCells(l)
		if j := slices.Index(cells, "source of truth"); j >= 0 && slices.Contains(cells, "hand-read changes") {
			col = j
			continue
		}
		if m := glanceRelease.FindStringSubmatch(cells[0]); m != nil && col >= 0 && col < len(cells) {
			overview[m[1]] = cells[col]
		}
	}
	return overview, section
}

// TestReleasesDocTruthMatchesPublicCases holds the source-of-truth column
// of docs/releases.md to testdata/public: a release whose own log (its
// version line, or the release its post states or its README argues) is a
// public case is not "source only"; a release marked "public log" has a
// case that logged it or pinned it without a version line, "(stated)" one
// that states it, "(argued)" one that argues it; and each release section
// names the same kind as the overview.
func TestReleasesDocTruthMatchesPublicCases(t *testing.T) {
	data, err := os.ReadFile(releasesDoc)
	if err != nil {
		t.Fatalf("%v: the release document is committed and must be read", err)
	}
	overview, section := releasesDocTruth(t, string(data))
	if len(overview) != len(spec.Releases) {
		t.Fatalf("%s: %d overview rows with a source of truth, %d modelled releases", releasesDoc, len(overview), len(spec.Releases))
	}
	dirs, err := filepath.Glob(filepath.Join(publicTruthRoot, "*", "case"))
	if err != nil || len(dirs) < minPublicTruthCases {
		t.Fatalf("%d public cases (%v): expected at least %d", len(dirs), err, minPublicTruthCases)
	}
	logged, stated, argued := map[string]string{}, map[string]string{}, map[string]string{}
	for _, f := range dirs {
		c, err := readPublicCase(filepath.Dir(f))
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(c.dir)
		switch {
		case c.logged != 0:
			logged[c.logged.String()] = name
		case c.pin != "":
			for _, v := range c.releases {
				logged[v.String()] = name
			}
		case c.stated != 0:
			stated[c.stated.String()] = name
		}
		for _, v := range c.argued {
			argued[v.String()] = name
		}
	}
	for _, v := range spec.Releases {
		name := v.String()
		truth := overview[name]
		if s, ok := section[name]; !ok || s != truth {
			t.Errorf("%s: NCCL %s: the overview says %q, its section %q", releasesDoc, name, truth, s)
		}
		own := logged[name] + stated[name] + argued[name]
		for _, kind := range strings.Split(truth, "; ") {
			switch {
			case kind == "source only" && own != "":
				t.Errorf("%s: NCCL %s is marked source only, but testdata/public/%s is a log of it", releasesDoc, name, own)
			case kind == "source only" && len(deviceCaptures(t, name)) > 0:
				t.Errorf("%s: NCCL %s is marked source only, but hw/testdata/device holds %v of it", releasesDoc, name, deviceCaptures(t, name))
			case kind == "public log" && logged[name] == "":
				t.Errorf("%s: NCCL %s is marked public log, but no public case logged it or pinned it", releasesDoc, name)
			case kind == "public log (stated)" && stated[name] == "":
				t.Errorf("%s: NCCL %s is marked public log (stated), but no public case states it", releasesDoc, name)
			case kind == "public log (argued)" && argued[name] == "":
				t.Errorf("%s: NCCL %s is marked public log (argued), but no public case argues it", releasesDoc, name)
			case kind == "captured (one GPU)" && len(deviceCaptures(t, name)) == 0:
				t.Errorf("%s: NCCL %s is marked captured (one GPU), but hw/testdata/device holds no capture of it", releasesDoc, name)
			}
		}
	}
}

// deviceCaptures lists the one-GPU device captures of a release: the
// directories named after it under hw/testdata/device/*/ (dupgpu,
// multirank, onerank; hw/testdata/device/README.md says how each was
// taken).
func deviceCaptures(t *testing.T, release string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "hw", "testdata", "device", "*", release))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestReleasesDocTruthParse pins the truth reader on a small document: the
// overview column is found by its header, a section's bold kind is read,
// and a section without one is left out.
func TestReleasesDocTruthParse(t *testing.T) {
	doc := strings.Join([]string{
		"| release | hand-read changes | source of truth | gatesim |",
		"|---|---|---|---|",
		"| [2.1.1](#nccl-211) | 2 | public log (argued) | modelled |",
		"| [2.1.2](#nccl-212) | 1 | source only | modelled |",
		"## NCCL 2.1.1",
		"Tag x. Source of truth: **public log (argued)** (a case).",
		"## NCCL 2.1.2",
		"No truth line here.",
		"## Later",
		"Source of truth: **captured**.",
	}, "\n")
	overview, section := releasesDocTruth(t, doc)
	want := map[string]string{"2.1.1": "public log (argued)", "2.1.2": "source only"}
	if !maps.Equal(overview, want) {
		t.Fatalf("overview %v: expected %v", overview, want)
	}
	if !maps.Equal(section, map[string]string{"2.1.1": "public log (argued)"}) {
		t.Fatalf("sections %v: expected only 2.1.1's", section)
	}
}

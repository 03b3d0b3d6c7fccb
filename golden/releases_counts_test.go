package golden

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// Delta-count columns of docs/releases.md. A forward table ("| release |
// rules | gate constants | tuning | topology |") counts the entries of the
// release's own spec.Load(v).Changes, split by path; a backward table ("|
// release | rules | values |") counts the release's own delta file, which
// turns the release after it into this one, so its entries are the ones
// spec.Load reports for that later release (the boundary this release →
// the next, as `gatesim rules diff` and spec/testdata/boundaries print it).
var (
	forwardCountCols  = []string{"rules", "gate constants", "tuning", "topology"}
	backwardCountCols = []string{"rules", "values"}
)

// docDeltaCount is one number a delta table states.
type docDeltaCount struct {
	Release  string
	Column   string
	Line     int
	Value    int
	Backward bool
}

// releasesDocDeltaCounts reads every delta table of the document: a table
// whose header starts with "release" followed by one of the column lists
// above. A cell that is not a whole number is an error naming its release
// and column.
func releasesDocDeltaCounts(text string) (out []docDeltaCount, errs []string) {
	var cols []string
	backward := false
	for i, l := range strings.Split(text, "\n") {
		n := i + 1
		if !strings.HasPrefix(l, "|") {
			cols = nil
			continue
		}
		cells := mdCells(l)
		if cells[0] == "release" {
			cols = nil
			switch {
			case len(cells) > len(forwardCountCols) && slices.Equal(cells[1:1+len(forwardCountCols)], forwardCountCols):
				cols, backward = forwardCountCols, false
			case len(cells) > len(backwardCountCols) && slices.Equal(cells[1:1+len(backwardCountCols)], backwardCountCols):
				cols, backward = backwardCountCols, true
			}
			continue
		}
		if cols == nil || strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue
		}
		if len(cells) <= len(cols) {
			errs = append(errs, fmt.Sprintf("%s:%d: NCCL %s's delta row has %d cells: expected %s", releasesDoc, n, cells[0], len(cells), strings.Join(cols, ", ")))
			continue
		}
		for j, col := range cols {
			v, err := strconv.Atoi(cells[1+j])
			if err != nil || v < 0 {
				errs = append(errs, fmt.Sprintf("%s:%d: NCCL %s's %q column is %q: expected a count of delta entries", releasesDoc, n, cells[0], col, cells[1+j]))
				continue
			}
			out = append(out, docDeltaCount{Release: cells[0], Column: col, Line: n, Value: v, Backward: backward})
		}
	}
	return out, errs
}

// releaseDeltaCounts counts the entries of one release's Changes the way
// the delta tables split them: rule changes, and value changes as tuning
// cells ("tuning."), topology parameters ("topo.") and the rest (gate
// constants and parameter defaults).
func releaseDeltaCounts(v spec.Version) (map[string]int, error) {
	rs, err := spec.Load(v)
	if err != nil {
		return nil, err
	}
	c := map[string]int{}
	for _, ch := range rs.Changes {
		if ch.Kind != spec.ChangeValue {
			c["rules"]++
			continue
		}
		c["values"]++
		switch {
		case strings.HasPrefix(ch.Path, "tuning."):
			c["tuning"]++
		case strings.HasPrefix(ch.Path, "topo."):
			c["topology"]++
		default:
			c["gate constants"]++
		}
	}
	return c, nil
}

// checkDeltaCounts compares the document's counts with the code's; counts
// gives a release's split Changes.
func checkDeltaCounts(docs []docDeltaCount, counts func(spec.Version) (map[string]int, error)) []string {
	var errs []string
	seen := map[string]int{}
	for _, d := range docs {
		key := fmt.Sprintf("%s/%s/%t", d.Release, d.Column, d.Backward)
		if prev, dup := seen[key]; dup {
			errs = append(errs, fmt.Sprintf("%s:%d: NCCL %s's %q column is stated again (first at line %d)", releasesDoc, d.Line, d.Release, d.Column, prev))
			continue
		}
		seen[key] = d.Line
		v, err := spec.ParseVersion(d.Release)
		i := slices.Index(spec.Releases, v)
		if err != nil || i < 0 {
			errs = append(errs, fmt.Sprintf("%s:%d: %q in a delta table: expected a modelled release", releasesDoc, d.Line, d.Release))
			continue
		}
		of, what := v, "its own changes"
		if d.Backward {
			if i+1 == len(spec.Releases) {
				errs = append(errs, fmt.Sprintf("%s:%d: NCCL %s in a backward delta table: the newest release has no release after it", releasesDoc, d.Line, d.Release))
				continue
			}
			of = spec.Releases[i+1]
			what = "its delta against " + of.String()
		}
		c, err := counts(of)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s:%d: NCCL %s: %v", releasesDoc, d.Line, of, err))
			continue
		}
		if got := c[d.Column]; got != d.Value {
			errs = append(errs, fmt.Sprintf("%s:%d: NCCL %s's %q column says %d, the code has %d (%s, spec.Load(%s).Changes)", releasesDoc, d.Line, d.Release, d.Column, d.Value, got, what, of))
		}
	}
	return errs
}

// TestReleasesDocDeltaCounts holds the delta tables of docs/releases.md
// (rules, gate constants, tuning, topology; rules, values) to the release
// deltas in spec, the numbers `gatesim releases` prints: every stated
// count is the code's, so a delta that gains an entry updates its row.
func TestReleasesDocDeltaCounts(t *testing.T) {
	data, err := os.ReadFile(releasesDoc)
	if err != nil {
		t.Fatalf("%v: the release document is committed and must be read", err)
	}
	docs, errs := releasesDocDeltaCounts(string(data))
	for _, e := range errs {
		t.Error(e)
	}
	var forward, backward int
	for _, d := range docs {
		if d.Backward {
			backward++
		} else {
			forward++
		}
	}
	if forward == 0 || backward == 0 {
		t.Fatalf("%s: %d forward and %d backward delta counts read: expected tables headed %q and %q", releasesDoc, forward, backward,
			"| release | "+strings.Join(forwardCountCols, " | ")+" |", "| release | "+strings.Join(backwardCountCols, " | ")+" |")
	}
	for _, e := range checkDeltaCounts(docs, releaseDeltaCounts) {
		t.Error(e)
	}
}

// TestReleasesDocDeltaCountsParse pins the reader and the comparison on a
// small document: both table shapes, the backward table read against the
// release after, a stale count named with its release, column and both
// values, and a cell that is not a count.
func TestReleasesDocDeltaCountsParse(t *testing.T) {
	if len(spec.Releases) < 3 {
		t.Fatalf("%d modelled releases: expected at least 3", len(spec.Releases))
	}
	a, b, c := spec.Releases[0], spec.Releases[1], spec.Releases[2]
	doc := strings.Join([]string{
		"| release | rules | gate constants | tuning | topology | what |",
		"|---|---|---|---|---|---|",
		"| " + b.String() + " | 1 | 2 | 3 | 4 | x \\| y |",
		"",
		"| release | rules | values | what |",
		"|---|---|---|---|",
		"| " + a.String() + " | 5 | 6 | x |",
		"| " + c.String() + " | - | 1 + 2 | x |",
		"| release | date |",
		"| " + c.String() + " | 7 |",
	}, "\n")
	docs, errs := releasesDocDeltaCounts(doc)
	if len(errs) != 2 || !strings.Contains(errs[0], `NCCL `+c.String()+`'s "rules" column is "-"`) || !strings.Contains(errs[1], `"values" column is "1 + 2"`) {
		t.Fatalf("errors %q: expected %s's rules and values named as not counts", errs, c)
	}
	want := []docDeltaCount{
		{b.String(), "rules", 3, 1, false}, {b.String(), "gate constants", 3, 2, false},
		{b.String(), "tuning", 3, 3, false}, {b.String(), "topology", 3, 4, false},
		{a.String(), "rules", 7, 5, true}, {a.String(), "values", 7, 6, true},
	}
	if !slices.Equal(docs, want) {
		t.Fatalf("read %+v\nexpected %+v", docs, want)
	}
	fake := func(v spec.Version) (map[string]int, error) {
		if v != b {
			return nil, fmt.Errorf("asked for %s: expected %s", v, b)
		}
		return map[string]int{"rules": 1, "gate constants": 2, "tuning": 3, "topology": 9, "values": 6}, nil
	}
	errs = checkDeltaCounts(docs, fake)
	if len(errs) != 2 || !strings.Contains(errs[0], `NCCL `+b.String()+`'s "topology" column says 4, the code has 9`) ||
		!strings.Contains(errs[1], `NCCL `+a.String()+`'s "rules" column says 5, the code has 1 (its delta against `+b.String()) {
		t.Fatalf("errors %q: expected %s's topology and %s's rules named", errs, b, a)
	}
}

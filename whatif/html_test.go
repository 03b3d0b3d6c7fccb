package whatif

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func familySweep(t *testing.T) []Result {
	t.Helper()
	sw := Sweep{
		NCCL: []string{"2.28.9"},
		Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1, 2, 4, 8, 16, 32, 64}}, {Preset: "hgx-h200", Nodes: []int{1, 2, 4, 8, 16, 32, 64}},
			{Preset: "dgx-a100", Nodes: []int{1, 2, 4, 8, 16, 32, 64}}},
		Sizes: SizeAxis{List: []string{"4KiB", "64KiB", "1MiB", "16MiB", "256MiB"}},
	}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	return Run(pts, 2, nil, nil)
}

// TestTimeNodesSeries: 7 node counts × 3 systems give one line per system
// and shown size, each across every node count.
func TestTimeNodesSeries(t *testing.T) {
	rs := familySweep(t)
	title, ss := timeNodesSeries(rs)
	if len(ss) != 3*3 { // three families, three of the five sizes
		var names []string
		for _, s := range ss {
			names = append(names, s.name)
		}
		t.Fatalf("%d series, want 9: %v", len(ss), names)
	}
	if !strings.Contains(title, "4 KiB") || !strings.Contains(title, "256 MiB") {
		t.Errorf("title %q does not name the sizes shown", title)
	}
	for _, s := range ss {
		if len(s.xs) != 7 {
			t.Errorf("series %q has %d points, want 7 (one per node count)", s.name, len(s.xs))
		}
		if strings.Contains(s.name, "×16") || strings.Contains(s.name, " 16×") {
			t.Errorf("series %q names a node count", s.name)
		}
	}
	if _, err := TimeNodesPlot(rs); err != nil {
		t.Fatal(err)
	}
}

// TestWriteHTML: one page, every point in the table, the plots inline,
// nothing fetched from elsewhere.
func TestWriteHTML(t *testing.T) {
	rs := familySweep(t)
	p, err := TimeNodesPlot(rs)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	cmd := "gatesim whatif --system dgx-h100 --nodes 1,2 --sizes '1MiB'"
	if err := WriteHTML(&b, cmd, []Figure{{Title: p.Title.Text, SVG: svg}}, rs); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "<tr><td>"); n != len(rs) {
		t.Errorf("table has %d rows for %d points", n, len(rs))
	}
	if !strings.Contains(page, "<svg") || strings.Contains(page, "<?xml") {
		t.Error("the plot is not inline SVG")
	}
	if !strings.Contains(page, "gatesim whatif --system dgx-h100 --nodes 1,2 --sizes &#39;1MiB&#39;") {
		t.Error("the page does not hold the command")
	}
	for _, re := range []string{`(?i)<script`, `(?i)<link`, `(?i)\ssrc=`, `(?i)href="?http`, `(?i)url\(\s*['"]?http`, `@import`} {
		if regexp.MustCompile(re).MatchString(page) {
			t.Errorf("the page loads something from elsewhere: %s", re)
		}
	}
}

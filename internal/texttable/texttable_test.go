package texttable

import (
	"bytes"
	"strings"
	"testing"
)

// A 100 KB table cell used to make the wrapper allocate gigabytes; now it
// is cut and the table says so.
func TestTableCellCut(t *testing.T) {
	var b bytes.Buffer
	long := strings.Repeat("mlx5_0:1,", 20000)
	if err := Write(&b, []string{"a", "b"}, [][]string{{"x", long}}, 60); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 8*MaxCell || !strings.Contains(b.String(), "cut to 512 bytes") || !strings.Contains(b.String(), "more bytes") {
		t.Errorf("table of %d bytes:\n%.2000s", b.Len(), b.String())
	}
	s, cut := Elide("é" + strings.Repeat("é", MaxCell))
	if !cut || !strings.HasSuffix(s, "more bytes)") || !strings.HasPrefix(s, "é") || strings.Contains(s, "\uFFFD") {
		t.Errorf("elide cut a rune: %q", s[len(s)-40:])
	}
}

// TestWrap: a line folds at the width and continues with the indent; a
// word longer than the width is broken by BreakWords, not by Wrap.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in     string
		width  int
		indent string
		want   string
	}{
		{"a b c", 80, "  ", "a b c"},
		{"aaa bbb ccc", 7, "  ", "aaa bbb\n  ccc"},
		{"  lead x y", 7, "    ", "  lead\n    x y"},
	} {
		if got := Wrap(tc.in, tc.width, tc.indent); got != tc.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
	got := BreakWords([][]string{{"abcdefgh ij", "x\nyyyyy"}}, 3)
	if got[0][0] != "abc def gh ij" || got[0][1] != "x\nyyy yy" {
		t.Errorf("BreakWords = %q", got)
	}
}

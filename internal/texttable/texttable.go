// Package texttable is the one human-table writer of gatesim's reports:
// plain ASCII borders, headers as given, left-aligned cells wrapped at a
// width, cells over MaxCell bytes cut with a note (the counterpart of
// internal/jsonout for --json). Configured once, so every command's output
// looks the same and goldens do not depend on the library's defaults.
package texttable

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"golang.org/x/term"
)

// MaxCell bounds a table cell: longer cells are cut, with the count of
// what was left out, and a note under the table says so (the wrapper's cost
// grows faster than linearly with a cell's length).
const MaxCell = 512

// Elide cuts s to MaxCell bytes (on a rune boundary) and says how many
// bytes it left out.
func Elide(s string) (string, bool) {
	if len(s) <= MaxCell {
		return s, false
	}
	cut := MaxCell
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d more bytes)", s[:cut], len(s)-cut), true
}

// Write writes a table with plain ASCII borders, headers as given (no
// auto-formatting), left-aligned cells, and long cells wrapped at maxCell
// characters (0: no wrapping). Configured here once, so every command's
// output looks the same and goldens do not depend on the library's defaults.
// Cells over MaxCell bytes are cut, and a line under the table says so.
func Write(w io.Writer, header []string, rows [][]string, maxCell int) error {
	cut := 0
	capped := make([][]string, len(rows))
	for i, r := range rows {
		capped[i] = make([]string, len(r))
		for j, c := range r {
			var was bool
			if capped[i][j], was = Elide(c); was {
				cut++
			}
		}
	}
	rows = capped
	wrap := tw.WrapNone
	if maxCell > 0 {
		wrap = tw.WrapNormal
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Symbols: tw.NewSymbols(tw.StyleASCII),
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(wrap),
		tablewriter.WithRowMaxWidth(maxCell),
	)
	t.Header(toAny(header)...)
	for _, r := range rows {
		if err := t.Append(toAny(r)...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if cut > 0 {
		_, err := fmt.Fprintf(w, "(%d cell(s) cut to %d bytes; --json prints them whole)\n", cut, MaxCell)
		return err
	}
	return nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// BreakWords splits words longer than n (paths, port lists) so that a
// table wrapped at n stays n wide.
func BreakWords(rows [][]string, n int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			var lines []string
			for _, line := range strings.Split(c, "\n") {
				var words []string
				for _, wd := range strings.Split(line, " ") {
					for rs := []rune(wd); len(rs) > n; rs = rs[n:] {
						words = append(words, string(rs[:n]))
						wd = string(rs[n:])
					}
					words = append(words, wd)
				}
				lines = append(lines, strings.Join(words, " "))
			}
			out[i][j] = strings.Join(lines, "\n")
		}
	}
	return out
}

// Wrap folds a line at width, continuing with indent.
func Wrap(s string, width int, indent string) string {
	var b strings.Builder
	lead := s[:len(s)-len(strings.TrimLeft(s, " "))]
	b.WriteString(lead)
	col := len(lead)
	for i, wd := range strings.Fields(s) {
		n := len([]rune(wd))
		if i > 0 && col+1+n > width {
			b.WriteString("\n" + indent)
			col = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(wd)
		col += n
	}
	return b.String()
}

// Width is the width to fit tables in: the terminal's, $COLUMNS, or
// 120 when the output is not a terminal.
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 40 {
			return cols
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 40 {
		return n
	}
	return 120
}

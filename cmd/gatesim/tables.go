package main

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// maxTableCell bounds a table cell: longer cells are cut, with the count of
// what was left out, and a note under the table says so (the wrapper's cost
// grows faster than linearly with a cell's length).
const maxTableCell = 512

// elide cuts s to maxTableCell bytes (on a rune boundary) and says how many
// bytes it left out.
func elide(s string) (string, bool) {
	if len(s) <= maxTableCell {
		return s, false
	}
	cut := maxTableCell
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d more bytes)", s[:cut], len(s)-cut), true
}

// asciiTable writes a table with plain ASCII borders, headers as given (no
// auto-formatting), left-aligned cells, and long cells wrapped at maxCell
// characters (0: no wrapping). Configured here once, so every command's
// output looks the same and goldens do not depend on the library's defaults.
// Cells over maxTableCell bytes are cut, and a line under the table says so.
func asciiTable(w io.Writer, header []string, rows [][]string, maxCell int) error {
	cut := 0
	capped := make([][]string, len(rows))
	for i, r := range rows {
		capped[i] = make([]string, len(r))
		for j, c := range r {
			var was bool
			if capped[i][j], was = elide(c); was {
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
		_, err := fmt.Fprintf(w, "(%d cell(s) cut to %d bytes; --json prints them whole)\n", cut, maxTableCell)
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

package main

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// asciiTable writes a table with plain ASCII borders, headers as given (no
// auto-formatting), left-aligned cells, and long cells wrapped at maxCell
// characters (0: no wrapping). Configured here once, so every command's
// output looks the same and goldens do not depend on the library's defaults.
func asciiTable(w io.Writer, header []string, rows [][]string, maxCell int) error {
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
	return t.Render()
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

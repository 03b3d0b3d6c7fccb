package whatif

import (
	"bytes"
	"html/template"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// SVG renders a plot as SVG, for inlining in a page.
func SVG(p *plot.Plot) ([]byte, error) {
	wt, err := p.WriterTo(10*vg.Inch, 6*vg.Inch, "svg")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Figure is one plot of a page: its title and its SVG.
type Figure struct {
	Title string
	SVG   []byte
}

// WriteHTML writes one self-contained page: the command that made the
// sweep, the plots inline as SVG, and every point in one table (Header's
// columns). It loads nothing from anywhere: no scripts, styles or fonts
// outside the page.
func WriteHTML(w io.Writer, command string, figs []Figure, rs []Result) error {
	type fig struct {
		Title string
		SVG   template.HTML
	}
	data := struct {
		Command string
		Figures []fig
		Header  []string
		Rows    [][]string
	}{Command: command, Header: Header}
	for _, f := range figs {
		// the SVG is ours (gonum's output), not user text
		data.Figures = append(data.Figures, fig{f.Title, template.HTML(stripXMLHeader(f.SVG))})
	}
	for _, r := range rs {
		data.Rows = append(data.Rows, r.Row())
	}
	return pageTmpl.Execute(w, data)
}

// stripXMLHeader drops the <?xml ...?> line an SVG file starts with, which
// has no place inside HTML.
func stripXMLHeader(svg []byte) []byte {
	if bytes.HasPrefix(svg, []byte("<?xml")) {
		if i := bytes.IndexByte(svg, '\n'); i >= 0 {
			return svg[i+1:]
		}
	}
	return svg
}

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>gatesim whatif</title>
<style>
body { font-family: sans-serif; margin: 1.5em; }
pre { background: #f4f4f4; padding: .6em; white-space: pre-wrap; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ccc; padding: 2px 5px; text-align: left; }
th { background: #eee; position: sticky; top: 0; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<h1>gatesim whatif</h1>
<p>Made by:</p>
<pre id="command">{{.Command}}</pre>
{{range .Figures}}<figure><figcaption>{{.Title}}</figcaption>
{{.SVG}}
</figure>
{{end}}<h2>Every point ({{len .Rows}})</h2>
<table id="points">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</body>
</html>
`))

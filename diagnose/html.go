package diagnose

import (
	"html/template"
	"io"
	"strings"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// WriteHTML writes the report as one self-contained page: per capability
// the evidence ladder (every level from requested to executed, the log
// line that proves each one reached, the gates that stopped it), then the
// findings with the lines they cite. The page loads nothing from anywhere.
func (r *Report) WriteHTML(w io.Writer, command string) error {
	type rung struct {
		Level   string
		Reached bool
		Proofs  []ncclog.Proof
	}
	type capPage struct {
		Cap    spec.Capability
		Level  string
		Ladder []rung
		Blocks []ncclog.Proof
		Off    *ncclog.Proof
		Next   string
	}
	var files []string
	for _, s := range r.Log.Sources {
		files = append(files, s.Name)
	}
	data := struct {
		Command, Release, Files string
		Caps                    []capPage
		Findings                []Finding
		Missing                 []string
	}{Command: command, Files: strings.Join(files, ", "), Findings: r.Findings, Missing: r.Missing}
	data.Release = "unknown"
	switch {
	case r.Log.Version != "":
		data.Release = r.Log.Version
	case r.Release != 0:
		data.Release = r.Release.String() + " (given, not in the log)"
	case r.Assumed != nil:
		data.Release = r.Assumed.Assumed.String() + " (assumed, not in the log: see release.assumed)"
	}
	for _, c := range r.Obs.Caps {
		cp := capPage{Cap: c.Cap, Level: c.Level.String(), Blocks: c.Blocks, Off: c.Off, Next: c.Next}
		for l := spec.LevelRequested; l <= spec.LevelExecuted; l++ {
			rg := rung{Level: l.String(), Reached: l <= c.Level}
			for _, p := range c.Proofs {
				if p.Level == l {
					rg.Proofs = append(rg.Proofs, p)
				}
			}
			cp.Ladder = append(cp.Ladder, rg)
		}
		data.Caps = append(data.Caps, cp)
	}
	return diagTmpl.Execute(w, data)
}

var diagTmpl = template.Must(template.New("diag").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>gatesim diagnose</title>
<style>
body { font-family: sans-serif; margin: 1.5em; }
pre, code { background: #f4f4f4; }
pre { padding: .6em; white-space: pre-wrap; }
table { border-collapse: collapse; font-size: 13px; margin-bottom: 1em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: left; vertical-align: top; }
td.reached { background: #dff0d8; }
td.stopped { background: #f2dede; }
.sev-error { color: #a00; } .sev-warning { color: #a60; }
</style>
</head>
<body>
<h1>gatesim diagnose</h1>
<p>NCCL {{.Release}}; log: <code>{{.Files}}</code></p>
<pre id="command">{{.Command}}</pre>
<h2>Evidence ladder per capability</h2>
{{range .Caps}}<h3 id="cap-{{.Cap}}">{{.Cap}}: {{.Level}}</h3>
<table class="ladder">
<thead><tr><th>level</th><th>rule</th><th>log line</th><th>what it proves</th></tr></thead>
<tbody>
{{range .Ladder}}{{$l := .}}{{if .Proofs}}{{range .Proofs}}<tr><td class="reached">{{$l.Level}}</td><td>{{.Rule}}</td><td><code>{{.At}}</code> {{.Msg}}</td><td>{{.Why}}</td></tr>
{{end}}{{else}}<tr><td{{if .Reached}} class="reached"{{end}}>{{.Level}}</td><td></td><td></td><td>{{if .Reached}}implied by a higher level{{end}}</td></tr>
{{end}}{{end}}{{with .Off}}<tr><td class="stopped">off</td><td>{{.Rule}}</td><td><code>{{.At}}</code> {{.Msg}}</td><td>{{.Why}}</td></tr>
{{end}}{{range .Blocks}}<tr><td class="stopped">stopped</td><td>{{.Rule}}</td><td><code>{{.At}}</code> {{.Msg}}</td><td>{{.Why}}</td></tr>
{{end}}</tbody>
</table>
{{if .Next}}<p>Next level needs: {{.Next}}</p>{{end}}
{{end}}<h2>Findings</h2>
<ol id="findings">
{{range .Findings}}<li class="sev-{{.Severity}}"><b>[{{.Severity}}] {{.ID}}{{if .Rule}} ({{.Rule}}){{end}}</b>: {{.Title}}
<ul>{{range .Evidence}}<li><code>{{.At}}</code> {{.Msg}}</li>{{end}}{{if .Missing}}<li>missing for the next level: {{.Missing}}</li>{{end}}{{range .Check}}<li>check: {{.}}</li>{{end}}</ul></li>
{{end}}</ol>
{{if .Missing}}<h2>What the log does not show</h2>
<ul>{{range .Missing}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body>
</html>
`))

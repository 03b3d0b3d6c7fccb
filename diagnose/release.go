package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// ReleaseGuess is the release diagnose assumes for a log that prints no
// "NCCL version" line and was given none, and why.
type ReleaseGuess struct {
	// Assumed is the release predictions use: the newest candidate, or the
	// newest modelled release when no candidate is left.
	Assumed spec.Version
	// Candidates are the modelled releases consistent with every clue,
	// oldest first; empty when the clues contradict each other.
	Candidates []spec.Version
	// Clues are the log's lines that narrowed the candidates (or, on a
	// contradiction, every line that took part), in log order.
	Clues []ReleaseClue
}

// ReleaseClue is one log line whose NCCL source location only some
// modelled releases print.
type ReleaseClue struct {
	At       ncclog.Loc
	Msg      string
	Source   string         // "enqueue.cc:1182", as the line prints it; empty for a form
	Form     string         // the catalogue form (ncclog.Form.ID) whose release range narrowed; empty for a source location
	Releases []spec.Version // modelled releases at which that source line prints its location as the line shows it (with or without 2.30.7's function)
}

// Contradiction reports that no modelled release prints every clue.
func (g *ReleaseGuess) Contradiction() bool { return len(g.Candidates) == 0 }

// InferRelease narrows the modelled releases to those whose source prints
// every NCCL source location the log shows (WARN lines' "file.cc:LINE"
// prefix and the "file.cc:LINE -> N" error returns, with the function
// after file:line from 2.30.7 and without it before), from the table
// tools/gensrclines generates at each tag, and every line form the log
// shows whose catalogue entry bounds the releases that print it
// (ncclog.Form's Since and Until). A location in a file NCCL does not have
// (a plugin's) and a plugin's form say nothing and are skipped.
func InferRelease(l *ncclog.Log) (*ReleaseGuess, error) {
	table, err := ncclog.LoadSourceLines()
	if err != nil {
		return nil, err
	}
	all := spec.Releases
	in := make(map[spec.Version]bool, len(all))
	for _, v := range all {
		in[v] = true
	}
	g := &ReleaseGuess{}
	var clues []ReleaseClue
	seen := map[string]bool{}
	for _, e := range l.Errors {
		file, line, ok := e.PrintedAt()
		if !ok {
			continue
		}
		src := fmt.Sprintf("%s:%d", file, line)
		if seen[src] {
			continue
		}
		seen[src] = true
		rels, known, _ := table.Printing(e)
		if !known || len(rels) == len(all) {
			continue
		}
		clues = append(clues, ReleaseClue{At: e.First.At, Msg: e.First.Msg, Source: src, Releases: rels})
		in = narrow(in, rels)
	}
	// the line forms the catalogue knows only some releases to print
	kinds := make([]string, 0, len(l.Samples))
	for k := range l.Samples {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		for _, smp := range l.Samples[k] {
			f, _, ok := ncclog.Match(smp.Msg)
			if !ok || f.Since == 0 || seen["form "+f.ID] {
				continue
			}
			seen["form "+f.ID] = true
			var rels []spec.Version
			for _, v := range all {
				if v.Within(f.Since, f.Until) {
					rels = append(rels, v)
				}
			}
			if len(rels) == len(all) {
				continue
			}
			clues = append(clues, ReleaseClue{At: smp.At, Msg: smp.Msg, Form: f.ID, Releases: rels})
			in = narrow(in, rels)
		}
	}
	sort.SliceStable(clues, func(i, j int) bool {
		a, b := clues[i].At, clues[j].At
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	for _, v := range all {
		if in[v] {
			g.Candidates = append(g.Candidates, v)
		}
	}
	g.Clues = clues
	g.Assumed = all[len(all)-1]
	if n := len(g.Candidates); n > 0 {
		g.Assumed = g.Candidates[n-1]
	}
	return g, nil
}

// narrow keeps the releases of in that rels holds.
func narrow(in map[spec.Version]bool, rels []spec.Version) map[spec.Version]bool {
	keep := map[spec.Version]bool{}
	for _, v := range rels {
		if in[v] {
			keep[v] = true
		}
	}
	return keep
}

// releaseSet writes releases compactly: runs of four or more consecutive
// modelled releases as "A to B".
func releaseSet(rels []spec.Version) string {
	if len(rels) == 0 {
		return "no modelled release"
	}
	idx := map[spec.Version]int{}
	for i, v := range spec.Releases {
		idx[v] = i
	}
	var parts []string
	for i := 0; i < len(rels); {
		j := i
		for j+1 < len(rels) && idx[rels[j+1]] == idx[rels[j]]+1 {
			j++
		}
		switch {
		case j-i >= 3:
			parts = append(parts, rels[i].String()+" to "+rels[j].String())
		default:
			for _, v := range rels[i : j+1] {
				parts = append(parts, v.String())
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// releaseFinding says which release the report and predictions assume, the
// candidates, and the lines that narrowed them.
func releaseFinding(g *ReleaseGuess) Finding {
	all := spec.Releases
	span := fmt.Sprintf("%d modelled releases (%s to %s)", len(all), all[0], all[len(all)-1])
	f := Finding{ID: "release.assumed", Severity: Info,
		Check: []string{"pass --nccl X.Y.Z to predict with another release (the \"NCCL version\" line that NCCL_DEBUG=VERSION or INFO prints, or ncclGetVersion)"}}
	for _, c := range g.Clues {
		why := c.Source + " prints its location at " + releaseSet(c.Releases)
		if c.Form != "" {
			why = "the form " + c.Form + " is printed at " + releaseSet(c.Releases)
		}
		f.Evidence = append(f.Evidence, ncclog.Proof{At: c.At, Msg: c.Msg + "  [" + why + "]", Why: why})
	}
	switch {
	case len(g.Clues) == 0:
		f.Title = fmt.Sprintf("no NCCL version line: assumed NCCL %s, the newest modelled release; nothing in the log narrowed it (no WARN or error-return line prints an NCCL source location, and no line has a form, that only some of the %s print)", g.Assumed, span)
	case g.Contradiction():
		f.Severity = Warning
		f.Title = fmt.Sprintf("no NCCL version line, and no modelled release prints every NCCL source location and line form the log shows (the lines below contradict each other or point outside the modelled releases): assumed NCCL %s, the newest modelled release", g.Assumed)
		f.Check = append(f.Check, "the log may mix ranks of different releases, come from a release outside the "+span+", or from a patched build")
	case len(g.Candidates) == 1:
		f.Title = fmt.Sprintf("no NCCL version line: assumed NCCL %s, the only one of the %s that prints every NCCL source location and line form the log shows", g.Assumed, span)
	default:
		f.Title = fmt.Sprintf("no NCCL version line: assumed NCCL %s, the newest of the modelled releases that print every NCCL source location and line form the log shows (%s)", g.Assumed, releaseSet(g.Candidates))
	}
	return f
}

// JSONReleaseGuess is ReleaseGuess in --json, releases as "2.18.6".
type JSONReleaseGuess struct {
	Assumed    string            `json:"assumed"`
	Candidates []string          `json:"candidates"`
	Clues      []JSONReleaseClue `json:"clues"`
}

// JSONReleaseClue is one ReleaseClue in --json.
type JSONReleaseClue struct {
	At       string   `json:"at"`
	Msg      string   `json:"msg"`
	Source   string   `json:"source,omitempty"`
	Form     string   `json:"form,omitempty"`
	Releases []string `json:"releases"`
}

func versionStrings(vs []spec.Version) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// JSON returns g for --json; nil for nil.
func (g *ReleaseGuess) JSON() *JSONReleaseGuess {
	if g == nil {
		return nil
	}
	j := &JSONReleaseGuess{Assumed: g.Assumed.String(), Candidates: versionStrings(g.Candidates), Clues: []JSONReleaseClue{}}
	for _, c := range g.Clues {
		j.Clues = append(j.Clues, JSONReleaseClue{At: c.At.String(), Msg: c.Msg, Source: c.Source, Form: c.Form, Releases: versionStrings(c.Releases)})
	}
	return j
}

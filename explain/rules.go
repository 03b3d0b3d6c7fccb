package explain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
)

// Rules is every gate rule of a release with the releases it holds for:
// gatesim rules --json.
type Rules struct {
	NCCL  string    `json:"nccl"`
	Rules []RuleRow `json:"rules"`
}

// RuleRow is one rule of Rules.
type RuleRow struct {
	ID     spec.RuleID `json:"id"`
	Layer  string      `json:"layer"`
	PerOp  bool        `json:"per_op"`
	Title  string      `json:"title"`
	Holds  string      `json:"holds_for"`
	Ref    spec.Ref    `json:"ref"`
	Doc    string      `json:"doc"`
	Logs   []string    `json:"logs,omitempty"`
	Gating string      `json:"cap,omitempty"`
}

// NewRules lists the release's rules with the spans of releases each
// rule's variant holds for (spec.Timeline).
func NewRules(rs *spec.Ruleset) (*Rules, error) {
	tl, err := spec.Timeline()
	if err != nil {
		return nil, err
	}
	out := &Rules{NCCL: rs.Version.String()}
	for _, r := range rs.Rules() {
		out.Rules = append(out.Rules, RuleRow{ID: r.ID, Layer: r.Layer.String(), PerOp: r.PerOp(), Title: r.Title,
			Holds: holds(tl[r.ID], r.Ref), Ref: r.Ref, Doc: r.Doc, Logs: r.Logs, Gating: string(r.Cap)})
	}
	return out, nil
}

// holds prints the spans of releases the rule's variant (ref) holds for.
func holds(spans []spec.Span, ref spec.Ref) string {
	var s []string
	for _, sp := range spans {
		if sp.Ref == ref {
			s = append(s, sp.String())
		}
	}
	return strings.Join(s, ",")
}

// WriteText prints one row per rule (long: with its documentation).
func (out *Rules) WriteText(w io.Writer, rs *spec.Ruleset, long bool) error {
	fmt.Fprintf(w, "NCCL %s: %d rules (%d at communicator init, %d per operation)\n", rs.Version, len(out.Rules), len(rs.Init), len(rs.Op))
	var rows [][]string
	for i, r := range out.Rules {
		when := "init"
		if r.PerOp {
			when = "op"
		}
		cells := []string{strconv.Itoa(i + 1), r.ID.String(), r.Layer, when, r.Title, r.Holds, r.Ref.File + " " + r.Ref.Func}
		if long {
			cells = append(cells, r.Doc)
		}
		rows = append(rows, cells)
	}
	header := []string{"#", "rule", "layer", "when", "title", "holds for", "source (" + rs.Version.Tag() + " or earlier tag)"}
	if long {
		header = append(header, "doc")
	}
	return texttable.Write(w, header, rows, 70)
}

// RulesDiff is every delta between two releases: gatesim rules diff --json.
type RulesDiff struct {
	From    string        `json:"from"`
	To      string        `json:"to"`
	Changes []spec.Change `json:"changes"`
}

// WriteRulesDiff prints the changes from one release to another.
func WriteRulesDiff(w io.Writer, from, to spec.Version, changes []spec.Change) error {
	fmt.Fprintf(w, "%d changes from NCCL %s to %s\n", len(changes), from, to)
	var rows [][]string
	for _, ch := range changes {
		what := string(ch.Rule)
		if ch.Path != "" {
			what = ch.Path
		}
		detail := ch.Note
		if ch.Kind == spec.ChangeValue {
			detail = ch.Old + " → " + ch.New
		}
		rows = append(rows, []string{ch.Since.String(), string(ch.Kind), what, detail, ch.Ref.File + " " + ch.Ref.Func})
	}
	return texttable.Write(w, []string{"since", "change", "rule / value", "what", "source"}, rows, 60)
}

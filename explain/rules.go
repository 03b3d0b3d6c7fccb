package explain

import (
	"fmt"
	"io"
	"slices"
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
	ID    spec.RuleID `json:"id"`
	Layer string      `json:"layer"`
	PerOp bool        `json:"per_op"`
	// Group: evaluated for every operation of a planned group.
	Group bool `json:"group,omitempty"`
	// Call: a group-call rule, evaluated while a thread's API calls are
	// replayed (gatesim group).
	Call   bool     `json:"call,omitempty"`
	Title  string   `json:"title"`
	Holds  string   `json:"holds_for"`
	Ref    spec.Ref `json:"ref"`
	Doc    string   `json:"doc"`
	Logs   []string `json:"logs,omitempty"`
	Gating string   `json:"cap,omitempty"`
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
		out.Rules = append(out.Rules, RuleRow{ID: r.ID, Layer: r.Layer.String(), PerOp: r.PerOp(), Group: r.InGroup(), Call: r.AtCall(), Title: r.Title,
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
	fmt.Fprintf(w, "NCCL %s: %d rules (%d at communicator init, %d per operation, %d per operation of a planned group, %d at group calls)\n", rs.Version, len(out.Rules), len(rs.Init), len(rs.Op), len(rs.Group), len(rs.Call))
	var rows [][]string
	for i, r := range out.Rules {
		when := "init"
		switch {
		case r.PerOp:
			when = "op"
		case r.Group:
			when = "group"
		case r.Call:
			when = "call"
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
	From string `json:"from"`
	To   string `json:"to"`
	// Back: the user named the newer release first; the changes are the
	// same, and going back undoes them.
	Back    bool          `json:"back,omitempty"`
	Changes []spec.Change `json:"changes"`
}

// WriteRangeDirection says, before a range is listed, what a range asked
// newest first or of one release means.
func WriteRangeDirection(w io.Writer, from, to spec.Version, back bool) {
	switch {
	case from == to:
		fmt.Fprintln(w, spec.DecideAlike([]string{from.String(), to.String()}, "rule"))
	case back:
		fmt.Fprintf(w, "Going back from NCCL %s to %s undoes the changes below (listed from %s forward).\n", to, from, from)
	}
}

// WriteRulesDiff prints the changes from one release to another.
func WriteRulesDiff(w io.Writer, from, to spec.Version, changes []spec.Change) error {
	if from == to {
		return nil // WriteRangeDirection said so
	}
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

// WriteRangeSummary prints, per release of the range, the rules that change
// behaviour (with the delta's note and source) and the values that change,
// grouped; rules that only moved to a new tag are counted, not listed.
func WriteRangeSummary(w io.Writer, from, to spec.Version, deltas []spec.ReleaseDelta) {
	if from == to {
		return // WriteRangeDirection said so
	}
	nr, nv := 0, 0
	for _, dl := range deltas {
		nr, nv = nr+len(dl.Rules), nv+len(dl.Values)
	}
	fmt.Fprintf(w, "NCCL %s -> %s: %d release(s), %d rule changes, %d value changes (--all lists each)\n", from, to, len(deltas), nr, nv)
	for _, dl := range deltas {
		fmt.Fprintf(w, "\n%s (%s): %d rule changes, %d value changes\n", dl.Version, dl.Tag, len(dl.Rules), len(dl.Values))
		if dl.Unchanged != "" {
			fmt.Fprintf(w, "  nothing that decides: %s\n", dl.Unchanged)
		}
		moved := 0
		for _, ch := range dl.Rules {
			if strings.HasPrefix(ch.Note, "new tag") || ch.Note == "file layout" {
				moved++
				continue
			}
			fmt.Fprintf(w, "  %-20s %s: %s  [%s %s]\n", ch.Rule, ch.Kind, ch.Note, ch.Ref.File, ch.Ref.Func)
		}
		if moved > 0 {
			fmt.Fprintf(w, "  (%d rules only cite the new tag)\n", moved)
		}
		groups := map[string][]string{}
		var order []string
		for _, ch := range dl.Values {
			g, name := "constants", ch.Path
			if i := strings.IndexByte(ch.Path, '.'); i > 0 {
				g, name = ch.Path[:i], ch.Path[i+1:]
			}
			if g == "tuning" || g == "topo" || g == "param" {
				if i := strings.IndexByte(name, '['); i > 0 {
					name = name[:i]
				}
			} else {
				name = ch.Path
			}
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			if !slices.Contains(groups[g], name) {
				groups[g] = append(groups[g], name)
			}
		}
		for _, g := range order {
			fmt.Fprintf(w, "  %s: %s\n", g, strings.Join(groups[g], ", "))
		}
	}
}

package main

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newRulesCmd(d *deps) *cobra.Command {
	var nccl string
	var asJSON, long bool
	c := &cobra.Command{
		Use:   "rules",
		Short: "List every gate rule of a release, with the releases it holds for and its NCCL source",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			vs, err := parseReleases(nccl)
			if err != nil {
				return err
			}
			if len(vs) != 1 {
				return badInputf("rules lists one release; use 'rules diff A B' to compare")
			}
			rs, err := spec.Load(vs[0])
			if err != nil {
				return badInput(err)
			}
			tl, err := spec.Timeline()
			if err != nil {
				return err
			}
			var out []ruleRow
			for _, r := range rs.Rules() {
				out = append(out, ruleRow{ID: r.ID, Layer: r.Layer.String(), PerOp: r.PerOp(), Title: r.Title,
					Holds: holds(tl[r.ID], r.Ref), Ref: r.Ref, Doc: r.Doc, Logs: r.Logs, Gating: string(r.Cap)})
			}
			if asJSON {
				return writeOut(d, "rules", rulesOut{NCCL: rs.Version.String(), Rules: out})
			}
			fmt.Fprintf(d.stdout, "NCCL %s: %d rules (%d at communicator init, %d per operation)\n", rs.Version, len(out), len(rs.Init), len(rs.Op))
			var rows [][]string
			for i, r := range out {
				when := "init"
				if r.PerOp {
					when = "op"
				}
				cells := []string{itoa(i + 1), r.ID.String(), r.Layer, when, r.Title, r.Holds, r.Ref.File + " " + r.Ref.Func}
				if long {
					cells = append(cells, r.Doc)
				}
				rows = append(rows, cells)
			}
			header := []string{"#", "rule", "layer", "when", "title", "holds for", "source (" + rs.Version.Tag() + " or earlier tag)"}
			if long {
				header = append(header, "doc")
			}
			return texttable.Write(d.stdout, header, rows, 70)
		},
	}
	c.Flags().StringVar(&nccl, "nccl", spec.Releases[len(spec.Releases)-1].String(), "NCCL release")
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	c.Flags().BoolVarP(&long, "long", "l", false, "include each rule's documentation")
	c.AddCommand(newRulesDiffCmd(d))
	return c
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

func newRulesDiffCmd(d *deps) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "diff FROM TO",
		Short: "What changed in the rules between two releases (every delta on the way)",
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			from, err := parseReleases(args[0])
			if err != nil {
				return err
			}
			to, err := parseReleases(args[1])
			if err != nil {
				return err
			}
			if len(from) != 1 || len(to) != 1 || from[0] >= to[0] {
				return badInputf("rules diff takes an older and a newer release, such as 2.22.3 2.28.9")
			}
			changes, err := spec.Diff(from[0], to[0])
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				return writeOut(d, "rules-diff", rulesDiffOut{From: from[0].String(), To: to[0].String(), Changes: changes})
			}
			fmt.Fprintf(d.stdout, "%d changes from NCCL %s to %s\n", len(changes), from[0], to[0])
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
			return texttable.Write(d.stdout, []string{"since", "change", "rule / value", "what", "source"}, rows, 60)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

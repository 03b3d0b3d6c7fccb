package main

import (
	"github.com/gatesim/gatesim/explain"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newRulesCmd(d *deps) *cobra.Command {
	var nccl []string
	var asJSON, long bool
	c := &cobra.Command{
		Use:   "rules",
		Short: "List every gate rule of a release, with the releases it holds for and its NCCL source",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			rs, err := loadOneRelease(nccl)
			if err != nil {
				return err
			}
			out, err := explain.NewRules(rs)
			if err != nil {
				return err
			}
			if asJSON {
				return writeOut(d, "rules", out)
			}
			return out.WriteText(d.stdout, rs, long)
		},
	}
	c.Flags().StringSliceVar(&nccl, "nccl", []string{spec.DefaultRelease.String()}, "NCCL release")
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	c.Flags().BoolVarP(&long, "long", "l", false, "include each rule's documentation")
	c.AddCommand(newRulesDiffCmd(d))
	return c
}

func newRulesDiffCmd(d *deps) *cobra.Command {
	var asJSON, all bool
	c := &cobra.Command{
		Use:   "diff A B",
		Short: "What changed in the rules between two releases, in either order (every delta on the way)",
		Args:  cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			from, to, back, err := spec.ParseReleasePair(args[0], args[1])
			if err != nil {
				return badInput(err)
			}
			changes, err := spec.Diff(from, to)
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				return writeOut(d, "rules-diff", explain.RulesDiff{From: from.String(), To: to.String(), Back: back, Changes: changes})
			}
			explain.WriteRangeDirection(d.stdout, from, to, back)
			if !all {
				deltas, err := spec.RangeDeltas(from, to)
				if err != nil {
					return badInput(err)
				}
				explain.WriteRangeSummary(d.stdout, from, to, deltas)
				return nil
			}
			return explain.WriteRulesDiff(d.stdout, from, to, changes)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	c.Flags().BoolVar(&all, "all", false, "list every change of every delta (default: a summary per release)")
	return c
}

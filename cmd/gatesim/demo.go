package main

import (
	"github.com/gatesim/gatesim/explain"
	"github.com/spf13/cobra"
)

func newDemoCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "The design scenario (4 × V100 with a SHARP library and no verbs device), gate by gate, NCCL 2.22.3 and 2.28.9 side by side",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return explain.WriteDemo(d.stdout)
		},
	}
}

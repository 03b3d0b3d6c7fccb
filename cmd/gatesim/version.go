package main

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newVersionCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "releases",
		Short: "List the NCCL releases gatesim models",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			for _, v := range spec.Releases {
				fmt.Fprintf(d.stdout, "%s\t%s\t%d\n", v, v.Tag(), v.Code())
			}
			return nil
		},
	}
}

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gatesim/gatesim/explain"
	"github.com/gatesim/gatesim/internal/buildinfo"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newVersionCmd(d *deps) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "releases",
		Short: "List the NCCL releases gatesim models, with the size of each one's delta",
		Long: `List the NCCL releases gatesim models, oldest first: version, tag, NCCL_VERSION_CODE,
the rule changes and value changes (constants, parameter defaults, topology and tuning cells)
from the release before, and how the release's delta is written: "anchor" (built from
nothing), "forward" (from the release before) or "backward" (from the release after).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			out, err := explain.NewReleases()
			if err != nil {
				return err
			}
			if asJSON {
				return writeOut(d, "releases", out)
			}
			out.WriteText(d.stdout)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

func newGatesimVersionCmd(d *deps) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print gatesim's version and commit, and the NCCL releases it models",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if asJSON {
				in, _ := buildinfo.Read()
				return writeOut(d, "version", versionJSON{Gatesim: in, NCCLReleases: spec.ReleaseNames()})
			}
			printVersion(d.stdout)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

type versionJSON struct {
	Gatesim      buildinfo.Info `json:"gatesim"`
	NCCLReleases []string       `json:"nccl_releases"`
}

func printVersion(w io.Writer) {
	fmt.Fprint(w, versionText())
}

func versionText() string {
	in, ok := buildinfo.Read()
	line := "(no build information)"
	if ok {
		line = in.String()
	}
	return fmt.Sprintf("gatesim %s\nNCCL releases modelled: %s\n", line, strings.Join(spec.ReleaseNames(), ", "))
}

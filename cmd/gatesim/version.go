package main

import (
	"fmt"
	"io"
	"strings"

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
			out, err := releaseRows()
			if err != nil {
				return err
			}
			if asJSON {
				return writeOut(d, "releases", out)
			}
			for _, r := range out.Releases {
				fmt.Fprintf(d.stdout, "%s\t%s\t%d\t%d rules\t%d values\t%s\n", r.Version, r.Tag, r.Code, r.RuleChanges, r.ValueChanges, r.Delta)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

type releasesJSON struct {
	// Anchor is the release built from nothing; releases before it are
	// backward deltas.
	Anchor   string       `json:"anchor"`
	Releases []releaseRow `json:"releases"`
}

type releaseRow struct {
	Version string `json:"version"`
	Tag     string `json:"tag"`
	Code    int    `json:"code"`
	// RuleChanges and ValueChanges count the changes from the release
	// before (0 for the oldest).
	RuleChanges  int    `json:"rule_changes"`
	ValueChanges int    `json:"value_changes"`
	Delta        string `json:"delta"`
	// Unchanged says why a release records no change.
	Unchanged string `json:"unchanged,omitempty"`
}

func releaseRows() (releasesJSON, error) {
	anchor := spec.AnchorRelease()
	out := releasesJSON{Anchor: anchor.String()}
	for _, v := range spec.Releases {
		rs, err := spec.Load(v)
		if err != nil {
			return out, err
		}
		rel, _ := spec.ReleaseOf(v)
		row := releaseRow{Version: v.String(), Tag: v.Tag(), Code: v.Code(), Unchanged: rel.Unchanged, Delta: "forward"}
		switch {
		case v == anchor:
			row.Delta = "anchor"
		case v < anchor:
			row.Delta = "backward"
		}
		for _, ch := range rs.Changes {
			if ch.Kind == spec.ChangeValue {
				row.ValueChanges++
			} else {
				row.RuleChanges++
			}
		}
		out.Releases = append(out.Releases, row)
	}
	return out, nil
}

// newGatesimVersionCmd is `gatesim version`: the binary's own build and the
// NCCL releases it models (`gatesim --version` prints the same text).
func newGatesimVersionCmd(d *deps) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print gatesim's version and commit, and the NCCL releases it models",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if asJSON {
				in, _ := buildinfo.Read()
				var rels []string
				for _, v := range spec.Releases {
					rels = append(rels, v.String())
				}
				return writeOut(d, "version", versionJSON{Gatesim: in, NCCLReleases: rels})
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
	var rels []string
	for _, v := range spec.Releases {
		rels = append(rels, v.String())
	}
	return fmt.Sprintf("gatesim %s\nNCCL releases modelled: %s\n", line, strings.Join(rels, ", "))
}

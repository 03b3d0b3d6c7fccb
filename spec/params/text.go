package params

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
)

// RenderReport is the human report of gatesim env: a summary line, one
// row per variable, then every finding with its reference (file names the
// job script the lines refer to).
func RenderReport(rep *Report, file string) string {
	var b bytes.Buffer
	modelled := ""
	if !spec.Supported(rep.Version) {
		modelled = "; parameter table only, the gate engine does not model this release yet"
	}
	fmt.Fprintf(&b, "NCCL %s (%s)%s: %d variable(s), %d error(s), %d warning(s), %d note(s)",
		rep.Release, rep.Tag, modelled, len(rep.Vars), rep.Errors, rep.Warnings, rep.Infos)
	if rep.Ignored > 0 {
		fmt.Fprintf(&b, "; %d non-NCCL assignment(s) not checked", rep.Ignored)
	}
	b.WriteString("\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tVALUE\tLINE\tSTATUS\tNCCL USES\tGATES")
	for _, v := range rep.Vars {
		line := "-"
		if v.Line > 0 {
			line = fmt.Sprint(v.Line)
		}
		gates := "-"
		if len(v.Gates) > 0 {
			g := make([]string, len(v.Gates))
			for i, r := range v.Gates {
				g[i] = string(r)
			}
			gates = strings.Join(g, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", capCell(v.Name), cell(v.Value), line, v.Severity, cell(v.Uses), capCell(gates))
	}
	tw.Flush()
	any := false
	for _, v := range rep.Vars {
		for _, f := range v.Findings {
			if !any {
				b.WriteString("\nFindings:\n")
				any = true
			}
			where := ""
			if file != "" && v.Line > 0 {
				where = fmt.Sprintf("%s:%d: ", file, v.Line)
			}
			fmt.Fprintf(&b, "  %s%s: %s [%s] %s\n", where, v.Name, f.Severity, f.Code, f.Message)
			if f.Ref != nil && f.Ref.String() != "" {
				fmt.Fprintf(&b, "      ref: %s\n", f.Ref)
			}
		}
	}
	b.WriteString("\nGate effect on a system: ")
	if rep.EffectWired {
		fmt.Fprintf(&b, "from the gate engine, at %s (--coll: a list; --sizes: a list or a range)\n", rep.EffectAt)
		for _, v := range rep.Vars {
			if v.Effect != "" {
				fmt.Fprintf(&b, "  %s: %s\n", v.Name, v.Effect)
			}
		}
	} else {
		b.WriteString("not computed: give --system PRESET (or --system-file) to run the gates with and without each variable; the GATES column lists the rules each variable feeds\n")
	}
	return b.String()
}

// capCell is elide without the flag: the report's findings below the
// table carry every name whole.
func capCell(s string) string {
	s, _ = texttable.Elide(s)
	return s
}

// cell keeps a table cell on one line and readable.
func cell(s string) string {
	if s == "" {
		return `""`
	}
	if strings.ContainsAny(s, "\t\n\r") || strings.TrimSpace(s) != s {
		return fmt.Sprintf("%q", s)
	}
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

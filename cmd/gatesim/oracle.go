package main

import (
	"bufio"
	"bytes"
	"os"

	"github.com/gatesim/gatesim/oracle"
	"github.com/spf13/cobra"
)

func newOracleCmd(d *deps) *cobra.Command {
	var noTrace bool
	c := &cobra.Command{
		Use:   "oracle",
		Short: "Answer JSON-lines requests on stdin, one JSON answer per line on stdout",
		Long: `oracle reads one JSON request per line on stdin: {"nccl", "system", "plugins",
"env", "op": {"coll", "bytes" | "count", "dtype", "redop", "root"}} and writes one
JSON answer per line (schema version ` + itoa(oracle.SchemaVersion) + `, documented in the README).
A malformed request gets an answer with status "invalid" naming the field, and
the stream goes on. Blank lines and lines starting with # are skipped.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o := oracle.New(os.ReadFile)
			o.Trace = !noTrace
			in := d.stdin
			if in == nil {
				in = os.Stdin
			}
			sc := bufio.NewScanner(in)
			sc.Buffer(make([]byte, 1<<16), 1<<26)
			w := bufio.NewWriter(d.stdout)
			defer w.Flush()
			for sc.Scan() {
				line := bytes.TrimSpace(sc.Bytes())
				if len(line) == 0 || line[0] == '#' {
					continue
				}
				w.Write(o.HandleLine(line))
				w.WriteByte('\n')
			}
			if err := sc.Err(); err != nil {
				return badInput(err)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&noTrace, "no-trace", false, "leave the gate trace out of the answers")
	return c
}

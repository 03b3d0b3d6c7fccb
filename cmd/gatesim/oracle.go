package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime"

	"github.com/gatesim/gatesim/oracle"
	"github.com/spf13/cobra"
)

func newOracleCmd(d *deps) *cobra.Command {
	var noTrace bool
	var workers int
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
			p := oracle.NewParallel(o, workers, func(a []byte) {
				w.Write(a)
				w.WriteByte('\n')
			})
			defer p.Close()
			for sc.Scan() {
				line := bytes.TrimSpace(sc.Bytes())
				if len(line) == 0 || line[0] == '#' {
					continue
				}
				p.Submit(line)
			}
			if err := sc.Err(); err != nil {
				return badInput(err)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&noTrace, "no-trace", false, "leave the gate trace out of the answers")
	c.Flags().IntVar(&workers, "workers", runtime.NumCPU(), "answer on this many workers (answers keep the input's order)")
	return c
}

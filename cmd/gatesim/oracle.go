package main

import (
	"bufio"
	"bytes"
	"os"
	"time"

	"github.com/gatesim/gatesim/oracle"
	"github.com/gatesim/gatesim/tuner"
	"github.com/spf13/cobra"
)

func newOracleCmd(d *deps) *cobra.Command {
	var noTrace bool
	var tunerDirs []string
	var tunerTimeout time.Duration
	c := &cobra.Command{
		Use:   "oracle",
		Short: "Answer JSON-lines requests on stdin, one JSON answer per line on stdout",
		Long: `oracle reads one JSON request per line on stdin: {"nccl", "system", "plugins",
"env", "op": {"coll", "bytes" | "count", "dtype", "redop", "root"}} and writes one
JSON answer per line (schema version ` + itoa(oracle.SchemaVersion) + `, documented in the README).
A malformed request gets an answer with status "invalid" naming the field, and
the stream goes on. Blank lines and lines starting with # are skipped.
A request may name a tuner plugin ("tuner": "path/to/plugin.so") under a
directory given with --tuner-dir; the plugin runs in a child process, and a
plugin that crashes or hangs gets an answer with status "error" and result
"tunerFault" while the stream goes on.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o := oracle.New(os.ReadFile)
			o.Trace = !noTrace
			if len(tunerDirs) > 0 {
				f, err := oracleTuner(tunerDirs, tunerTimeout)
				if err != nil {
					return err
				}
				o.Tuner = f
			}
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
	c.Flags().StringArrayVar(&tunerDirs, "tuner-dir", nil, "allow requests to load tuner plugins from this directory (repeatable)")
	c.Flags().DurationVar(&tunerTimeout, "tuner-timeout", tuner.DefaultTimeout, "time limit for one call into a tuner plugin")
	return c
}

package main

import (
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/oracle"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/tuner"
	"github.com/spf13/cobra"
)

func newOracleCmd(d *deps) *cobra.Command {
	var noTrace bool
	var tunerDirs []string
	var tunerTimeout time.Duration
	var allow []string
	var maxRanks, maxLine, workers int
	var timeout time.Duration
	var maxMemory string
	c := &cobra.Command{
		Use:   "oracle",
		Short: "Answer JSON-lines requests on stdin, one JSON answer per line on stdout",
		Long: `oracle reads one JSON request per line on stdin: {"id", "nccl", "system", "nodes",
"sharp", "plugins", "env", "config", "tuner", "op": {"coll", "bytes" | "count", "dtype",
"redop", "root", "inplace", "buffers"}} or, for a group, "group": [op, ...] in call order with
"launch": "stream" | "graph", and writes one JSON answer per line (schema
version ` + itoa(oracle.SchemaVersion) + `, documented in the README). A malformed request gets an answer
with status "invalid" naming the field, and the stream goes on. Blank lines and lines starting with # are skipped.
"config" is the communicator's ncclConfig_t, NCCL's field names: {"maxCTAs": 4, "netName": "IB"}.
A request may name a tuner plugin ("tuner": "path/to/plugin.so") under a
directory given with --tuner-dir; the plugin runs in a child process, and a
plugin that crashes or hangs gets an answer with status "error" and result
"tunerFault" while the stream goes on.

Requests may name files (a system file, a topology XML, NCCL_GRAPH_FILE) only
under the directories --allow-dir names; with none, every path is refused.
A request on a machine of more than --max-ranks ranks, one whose estimated
memory is over --max-memory, one not answered within --timeout, or a line
longer than --max-line bytes, gets an "invalid" answer naming its line and
the budget, and the stream goes on.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var read func(string) ([]byte, error)
			if len(allow) > 0 {
				var err error
				if read, err = inputfile.Under(allow, spec.MaxFileBytes); err != nil {
					return badInput(err)
				}
			}
			o := oracle.New(read)
			o.Trace = !noTrace
			if len(tunerDirs) > 0 {
				f, err := oracleTuner(tunerDirs, tunerTimeout)
				if err != nil {
					return err
				}
				o.Tuner = f
			}
			if err := (oracle.Budgets{MaxRanks: maxRanks, MaxLine: maxLine, Workers: workers, Timeout: timeout, MaxMemory: maxMemory}).Apply(o); err != nil {
				return badInput(err)
			}
			in := d.stdin
			if in == nil {
				in = os.Stdin
			}
			return o.Serve(in, d.stdout, maxLine)
		},
	}
	c.Flags().BoolVar(&noTrace, "no-trace", false, "leave the gate trace out of the answers")
	c.Flags().StringArrayVar(&tunerDirs, "tuner-dir", nil, "allow requests to load tuner plugins from this directory (repeatable)")
	c.Flags().DurationVar(&tunerTimeout, "tuner-timeout", tuner.DefaultTimeout, "time limit for one call into a tuner plugin")
	c.Flags().StringArrayVar(&allow, "allow-dir", nil, "directory whose files requests may name (repeatable; default: none)")
	c.Flags().IntVar(&maxRanks, "max-ranks", oracle.DefaultMaxRanks, "per-request budget: the most ranks a request's machine may have")
	c.Flags().IntVar(&maxLine, "max-line", oracle.MaxLineBytes, "the longest request line in bytes")
	c.Flags().DurationVar(&timeout, "timeout", oracle.DefaultTimeout, "per-request time budget: a request not answered by then is answered invalid (it finishes in the background)")
	c.Flags().StringVar(&maxMemory, "max-memory", strconv.Itoa(oracle.DefaultMaxMemory>>20)+"MiB", "per-request memory budget: a request estimated to need more is invalid before any work")
	c.Flags().IntVar(&workers, "workers", runtime.NumCPU(), "answer on this many workers (answers keep the input's order)")
	return c
}

package conformance

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/gatesim/gatesim/spec"
)

// A capture directory is what one configuration's process leaves behind,
// and what `gatesim hw check --from DIR` replays without a GPU:
//
//	<dir>/config.json    Config: the name and the NCCL_* variables set for it
//	<dir>/nccl.log       NCCL_DEBUG_FILE (one process); nccl.rank<R>.log per
//	                     process under a launcher
//	<dir>/topo.xml       NCCL_TOPO_DUMP_FILE (written by rank 0)
//	<dir>/graph.xml      NCCL_GRAPH_DUMP_FILE (written by rank 0)
//	<dir>/results.json   RunResult
//	<dir>/results.txt    the nccl-tests-style table
//	<dir>/run.txt        the process's own stdout and stderr (matrix runs)
//
// A capture set is a directory of such directories plus PROVENANCE.md.
const (
	CaptureConfig  = "config.json"
	CaptureLog     = "nccl.log"
	CaptureTopo    = "topo.xml"
	CaptureGraph   = "graph.xml"
	CaptureResults = "results.json"
	CaptureTable   = "results.txt"
	CaptureOutput  = "run.txt"
)

// Config is one environment configuration of a matrix.
type Config struct {
	Name string   `json:"name"`
	Env  spec.Env `json:"env"`
	// Note says what the configuration exercises and, where NCCL is expected
	// to refuse it, that it is.
	Note string `json:"note,omitempty"`
}

// Capture is one configuration read back from its directory.
type Capture struct {
	Dir    string
	Config Config
	// Result is nil when the process died before writing results.json.
	Result *RunResult
	// Logs maps each NCCL log file name to its content.
	Logs  map[string][]byte
	Topo  []byte
	Graph []byte
}

// LogNames returns the log file names in order.
func (c *Capture) LogNames() []string {
	var n []string
	for k := range c.Logs {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Normalize restores the typed fields of rows read from JSON; name
// (the file) goes in the error.
func (r *RunResult) Normalize(name string) error {
	for i := range r.Rows {
		row := &r.Rows[i]
		f, err := spec.ParseFunc(row.Coll)
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", name, i, err)
		}
		dt, err := spec.ParseDataType(row.TypeS)
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", name, i, err)
		}
		row.Func, row.Type = f, dt
	}
	return nil
}

// RowLines finds the line of each row object of a results JSON (the line
// of its "coll" key), for errors that name a row.
func RowLines(b []byte) []int {
	var out []int
	line := 1
	key := []byte(`"coll"`)
	for i := 0; i < len(b); i++ {
		if b[i] == '\n' {
			line++
		} else if b[i] == '"' && bytes.HasPrefix(b[i:], key) {
			out = append(out, line)
		}
	}
	return out
}

package hw

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/internal/inputfile"
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

// DebugSubsys is NCCL_DEBUG_SUBSYS for captures: init, environment, graph
// search, tuning (the table and each operation's choice) and network.
const DebugSubsys = "INIT,ENV,GRAPH,TUNING,NET"

// CaptureEnv returns the variables that make NCCL write its log and dumps
// into dir, for a process that is rank `rank` of a launcher job (rank < 0
// for one process driving every GPU).
func CaptureEnv(dir string, rank int) spec.Env {
	logName := CaptureLog
	if rank >= 0 {
		logName = fmt.Sprintf("nccl.rank%d.log", rank)
	}
	return spec.Env{
		"NCCL_DEBUG":           "INFO",
		"NCCL_DEBUG_SUBSYS":    DebugSubsys,
		"NCCL_DEBUG_FILE":      filepath.Join(dir, logName),
		"NCCL_TOPO_DUMP_FILE":  filepath.Join(dir, CaptureTopo),
		"NCCL_GRAPH_DUMP_FILE": filepath.Join(dir, CaptureGraph),
	}
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

// ReadCapture reads one capture directory. Missing dumps are left empty
// (NCCL writes none when init fails); a missing config.json or a malformed
// JSON file is an error naming the file.
func ReadCapture(dir string) (*Capture, error) {
	c := &Capture{Dir: dir, Logs: map[string][]byte{}}
	if err := readJSON(filepath.Join(dir, CaptureConfig), &c.Config); err != nil {
		return nil, err
	}
	var r RunResult
	switch err := readJSON(filepath.Join(dir, CaptureResults), &r); {
	case err == nil:
		if err := r.normalize(filepath.Join(dir, CaptureResults)); err != nil {
			return nil, err
		}
		c.Result = &r
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "nccl.") || !strings.HasSuffix(name, ".log") {
			continue
		}
		b, err := inputfile.Read(filepath.Join(dir, name), maxCaptureFile)
		if err != nil {
			return nil, err
		}
		c.Logs[name] = b
	}
	c.Topo, _ = inputfile.Read(filepath.Join(dir, CaptureTopo), maxCaptureFile)
	c.Graph, _ = inputfile.Read(filepath.Join(dir, CaptureGraph), maxCaptureFile)
	return c, nil
}

// ReadCaptureSet reads every capture directory under root (those holding a
// config.json), in name order.
func ReadCaptureSet(root string) ([]*Capture, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []*Capture
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, CaptureConfig)); err != nil {
			continue
		}
		c, err := ReadCapture(dir)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no capture directories (none holds %s)", root, CaptureConfig)
	}
	return out, nil
}

// maxCaptureFile bounds each file of a capture (logs, dumps, tables).
const maxCaptureFile = 256 << 20

func readJSON(path string, v any) error {
	b, err := inputfile.Read(path, maxCaptureFile)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// normalize restores the typed fields of rows read from JSON.
func (r *RunResult) normalize(name string) error {
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

// ReadRunResult reads a results.json.
func ReadRunResult(path string) (*RunResult, error) {
	var r RunResult
	if err := readJSON(path, &r); err != nil {
		return nil, err
	}
	return &r, r.normalize(path)
}

// WriteCapture writes the results and the table into dir, and cfg as
// config.json unless cfg is nil (a matrix run wrote it already).
func WriteCapture(dir string, cfg *Config, res *RunResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if cfg != nil {
		if err := writeJSON(filepath.Join(dir, CaptureConfig), cfg); err != nil {
			return err
		}
	}
	if res == nil {
		return nil
	}
	if err := writeJSON(filepath.Join(dir, CaptureResults), res); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, CaptureTable))
	if err != nil {
		return err
	}
	if err := WriteTable(f, res); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

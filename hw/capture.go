package hw

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/spec"
)

// DebugSubsys is NCCL_DEBUG_SUBSYS for captures: init, environment, graph
// search, tuning (the table and each operation's choice) and network.
const DebugSubsys = "INIT,ENV,GRAPH,TUNING,NET"

// CaptureEnv returns the variables that make NCCL write its log and dumps
// into dir, for a process that is rank `rank` of a launcher job (rank < 0
// for one process driving every GPU).
func CaptureEnv(dir string, rank int) spec.Env {
	logName := conformance.CaptureLog
	if rank >= 0 {
		logName = fmt.Sprintf("nccl.rank%d.log", rank)
	}
	return spec.Env{
		"NCCL_DEBUG":           "INFO",
		"NCCL_DEBUG_SUBSYS":    DebugSubsys,
		"NCCL_DEBUG_FILE":      filepath.Join(dir, logName),
		"NCCL_TOPO_DUMP_FILE":  filepath.Join(dir, conformance.CaptureTopo),
		"NCCL_GRAPH_DUMP_FILE": filepath.Join(dir, conformance.CaptureGraph),
	}
}

// ReadCapture reads one capture directory. Missing dumps are left empty
// (NCCL writes none when init fails); a missing config.json or a malformed
// JSON file is an error naming the file.
func ReadCapture(dir string) (*conformance.Capture, error) {
	c := &conformance.Capture{Dir: dir, Logs: map[string][]byte{}}
	if err := readJSON(filepath.Join(dir, conformance.CaptureConfig), &c.Config); err != nil {
		return nil, err
	}
	var r conformance.RunResult
	switch err := readJSON(filepath.Join(dir, conformance.CaptureResults), &r); {
	case err == nil:
		if err := r.Normalize(filepath.Join(dir, conformance.CaptureResults)); err != nil {
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
	c.Topo, _ = inputfile.Read(filepath.Join(dir, conformance.CaptureTopo), maxCaptureFile)
	c.Graph, _ = inputfile.Read(filepath.Join(dir, conformance.CaptureGraph), maxCaptureFile)
	return c, nil
}

// ReadCaptureSet reads every capture directory under root (those holding a
// config.json), in name order.
func ReadCaptureSet(root string) ([]*conformance.Capture, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []*conformance.Capture
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, conformance.CaptureConfig)); err != nil {
			continue
		}
		c, err := ReadCapture(dir)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no capture directories (none holds %s)", root, conformance.CaptureConfig)
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

// ReadRunResult reads a results.json.
func ReadRunResult(path string) (*conformance.RunResult, error) {
	var r conformance.RunResult
	if err := readJSON(path, &r); err != nil {
		return nil, err
	}
	return &r, r.Normalize(path)
}

// WriteCapture writes the results and the table into dir, and cfg as
// config.json unless cfg is nil (a matrix run wrote it already).
func WriteCapture(dir string, cfg *conformance.Config, res *conformance.RunResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if cfg != nil {
		if err := writeJSON(filepath.Join(dir, conformance.CaptureConfig), cfg); err != nil {
			return err
		}
	}
	if res == nil {
		return nil
	}
	if err := writeJSON(filepath.Join(dir, conformance.CaptureResults), res); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, conformance.CaptureTable))
	if err != nil {
		return err
	}
	if err := conformance.WriteTable(f, res); err != nil {
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

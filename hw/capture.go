package hw

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/sim"
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
	switch r, err := ReadRunResult(filepath.Join(dir, conformance.CaptureResults)); {
	case err == nil:
		c.Result = r
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
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields() // the format is ours: a misspelt key is an error
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s:%d: %w", path, jsonErrLine(b, err), err)
	}
	return nil
}

// ReadRunResult reads a results.json (or a gs-*.json, the same format).
// The format is ours: a field it does not have is refused, as is a timed
// row that gives iters below 1 or whose size is not nccl-tests' size of its
// count (sim.TestBytes). Errors name the file and line.
func ReadRunResult(path string) (*conformance.RunResult, error) {
	b, err := inputfile.Read(path, maxCaptureFile)
	if err != nil {
		return nil, err
	}
	var r conformance.RunResult
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s:%d: %v: expected a gatesim hw run results JSON", path, jsonErrLine(b, err), err)
	}
	if d.More() {
		return nil, fmt.Errorf("%s:%d: data after the results object", path, lineAt(b, d.InputOffset()))
	}
	if err := r.Normalize(path); err != nil {
		return nil, err
	}
	// which rows say iters (older files may not: 0 then stands for the
	// default batch)
	var given struct {
		Rows []struct {
			Iters *int `json:"iters"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &given); err != nil || len(given.Rows) != len(r.Rows) {
		return nil, fmt.Errorf("%s:1: rows unreadable: %v", path, err)
	}
	lines := conformance.RowLines(b)
	for i, row := range r.Rows {
		if row.Err != nil {
			continue // NCCL refused it: nothing was timed
		}
		line := 1
		if i < len(lines) {
			line = lines[i]
		}
		if given.Rows[i].Iters != nil && row.Iters < 1 {
			return nil, fmt.Errorf("%s:%d: %s %d bytes: iters %d: expected at least 1 operation per timed batch", path, line, row.Coll, row.Size, row.Iters)
		}
		if want := sim.TestBytes(row.Func, int64(row.Count), row.Type, r.NRanks); int64(row.Size) != want || want < 0 {
			return nil, fmt.Errorf("%s:%d: %s size %d of count %d %s on %d ranks: expected size %d (nccl-tests' size column)", path, line, row.Coll, row.Size, row.Count, row.TypeS, r.NRanks, want)
		}
	}
	return &r, nil
}

// jsonErrLine is the line a decoding error points at, 1 if it does not
// say (an unknown field: the line of its first key of that name).
func jsonErrLine(b []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return lineAt(b, se.Offset)
	case errors.As(err, &te):
		return lineAt(b, te.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return lineAt(b, int64(len(b)))
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := bytes.Index(b, []byte(f+":")); i >= 0 {
			return lineAt(b, int64(i))
		}
		if i := bytes.Index(b, []byte(f)); i >= 0 {
			return lineAt(b, int64(i))
		}
	}
	return 1
}

func lineAt(b []byte, off int64) int {
	off = min(max(off, 0), int64(len(b)))
	return 1 + bytes.Count(b[:off], []byte("\n"))
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

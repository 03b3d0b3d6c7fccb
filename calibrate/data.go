// Package calibrate fits a machine performance profile (sim.Profile) to
// measured collective times: `gatesim hw run` results (results.json, the
// capture directories, gs-*.json) and nccl-tests outputs, and validates it
// by leaving each configuration out (docs/calibration.md).
//
// Every measured row is simulated as the rest of gatesim does it: NCCL's
// decision on the machine under the row's environment and release (spec),
// the schedule NCCL runs (algos), its time (sim) with the row's launch
// mode. Rows that cannot be simulated are kept, counted and reported with
// the reason.
package calibrate

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/hw"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Row is one measured operation.
type Row struct {
	// File and Line locate the row; Tool is "nccl-tests" or "hw run".
	File string `json:"file"`
	Line int    `json:"line"`
	Tool string `json:"tool"`
	// Config names the environment configuration (the capture's, or
	// "baseline"); Env holds its NCCL_* variables.
	Config  string       `json:"config"`
	Env     spec.Env     `json:"env"`
	Release spec.Version `json:"release"`
	Launch  sim.Launch   `json:"launch"`
	Func    spec.Func    `json:"-"`
	Coll    string       `json:"coll"`
	// Bytes is nccl-tests' size column; Count the API count.
	Bytes    int64         `json:"bytes"`
	Count    int64         `json:"count"`
	DataType spec.DataType `json:"-"`
	RedOp    spec.RedOp    `json:"-"`
	Root     int           `json:"root"`
	TimeUs   float64       `json:"time_us"`
	// InPlaceUs is nccl-tests' in-place time of the same size, measured
	// right after TimeUs (out-of-place) in the same process; 0 if none.
	InPlaceUs float64 `json:"in_place_us,omitempty"`
	// SharedGPU says the run put several ranks on one GPU (its devices
	// repeat a bus id, or a process of it lists fewer devices than ranks
	// under NCCL_MULTI_RANK_GPU_ENABLE=1): a machine no profile describes.
	SharedGPU bool `json:"shared_gpu,omitempty"`
	// Ranks is the run's rank count where its file says it (hw run's
	// nranks, the "#  Rank" lines of an nccl-tests output; 0 if it does
	// not), Procs the processes its ranks ran in (hw run's procs; 0: not
	// said).
	Ranks int `json:"ranks,omitempty"`
	Procs int `json:"procs,omitempty"`
	// Buffers are hw run's buffers (user, registered, window; "": user).
	Buffers string `json:"buffers,omitempty"`
}

// ConfigKey is the configuration a row belongs to: collective ×
// environment configuration × release × launch mode. Cross-validation
// leaves out whole configurations.
func (r *Row) ConfigKey() string {
	return fmt.Sprintf("%s %s %s %s", r.Func, r.Config, r.Release, r.Launch)
}

// Limits on input, checked at the edge.
const (
	maxFileBytes = 16 << 20
	maxRows      = 200000
	maxFiles     = 10000
)

// Load reads every measurement file under the given files or directories
// (recursively): results.json and gs-*.json (`gatesim hw run`), nt-*.txt
// and *_perf*.txt (nccl-tests). Other files are skipped; a file named
// explicitly must be one of the two formats. Rows of nccl-tests outputs
// run under NCCL_NVLS_ENABLE=0 (the lent machine's safety setting) unless
// a config.json in the same directory names the environment.
func Load(paths []string) ([]Row, error) {
	rows, _, err := load(paths)
	return rows, err
}

// Repeats are the rows Load counted once: rows of one file's pass over
// the sizes that repeat an earlier row of that pass.
type Repeats struct {
	N int
	// First locates the first one ("file:line").
	First string
}

func load(paths []string) ([]Row, Repeats, error) {
	var rows []Row
	var reps Repeats
	files := 0
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, reps, err
		}
		if !st.IsDir() {
			rs, ok, err := loadFile(p)
			if err != nil {
				return nil, reps, err
			}
			rs = countOnce(rs, &reps)
			if !ok {
				return nil, reps, fmt.Errorf("%s:1: unknown format: expected a gatesim hw run results JSON or an nccl-tests output", p)
			}
			rows = append(rows, rs...)
			continue
		}
		var names []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				names = append(names, path)
			}
			return nil
		})
		if err != nil {
			return nil, reps, err
		}
		sort.Strings(names)
		for _, n := range names {
			rs, ok, err := loadFile(n)
			if err != nil {
				return nil, reps, err
			}
			rs = countOnce(rs, &reps)
			if ok {
				files++
				if files > maxFiles {
					return nil, reps, fmt.Errorf("%s: more than %d measurement files", p, maxFiles)
				}
			}
			rows = append(rows, rs...)
			if len(rows) > maxRows {
				return nil, reps, fmt.Errorf("%s: more than %d rows", n, maxRows)
			}
		}
	}
	if len(rows) == 0 {
		return nil, reps, fmt.Errorf("%s: no measured rows (expected results.json, gs-*.json or nccl-tests outputs)", strings.Join(paths, ", "))
	}
	return rows, reps, nil
}

// countOnce keeps the first of the rows of one file's pass over the sizes
// (a pass ends where the size falls: nccl-tests -N) that time the same
// operation (collective, size, count, type, operation, root, with or
// without an in-place time), and counts the others in reps. A pass times
// each operation once, except where nccl-tests' 16-byte alignment maps
// two requested sizes of AllGather, ReduceScatter or AllToAll onto one (-i
// steps below 16 × nranks bytes): those are real timings, which refusing
// would reject, while a line pasted again is no new measurement. Counted
// once, neither weighs twice in the fit nor counts twice among the rows
// that pin a parameter.
func countOnce(rows []Row, reps *Repeats) []Row {
	type key struct {
		f            spec.Func
		bytes, count int64
		dt           spec.DataType
		op           spec.RedOp
		root         int
		inPlace      bool
	}
	seen := map[key]bool{}
	out := rows[:0]
	prev := int64(-1)
	for _, r := range rows {
		if r.Bytes < prev {
			clear(seen)
		}
		prev = r.Bytes
		k := key{r.Func, r.Bytes, r.Count, r.DataType, r.RedOp, r.Root, r.InPlaceUs > 0}
		if seen[k] {
			if reps.N == 0 {
				reps.First = fmt.Sprintf("%s:%d", r.File, r.Line)
			}
			reps.N++
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	return out
}

// loadFile reads one file; ok is false when it is neither format.
func loadFile(path string) ([]Row, bool, error) {
	base := filepath.Base(path)
	isJSON := base == "results.json" || (strings.HasPrefix(base, "gs-") && strings.HasSuffix(base, ".json"))
	isNT := strings.HasSuffix(base, ".txt") && (strings.HasPrefix(base, "nt-") || strings.Contains(base, "_perf"))
	if !isJSON && !isNT {
		if strings.HasSuffix(base, ".json") && base != "config.json" && base != "matrix.json" && base != "hw-info.json" {
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(`"rows"`)) && bytes.Contains(b, []byte(`"nranks"`)) {
				isJSON = true
			}
		}
		if !isJSON {
			return nil, false, nil
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, err
	}
	if st.Size() > maxFileBytes {
		return nil, false, fmt.Errorf("%s:1: %d bytes: a measurement file is at most %d", path, st.Size(), maxFileBytes)
	}
	if isJSON {
		rs, err := loadRunResult(path)
		return rs, true, err
	}
	rs, err := loadNCCLTests(path)
	return rs, true, err
}

// ncclEnv keeps the variables that change NCCL's behaviour (not its
// logging or dump files, nor variables NCCL does not read).
func ncclEnv(e spec.Env) spec.Env {
	out := spec.Env{}
	for k, v := range e {
		if !strings.HasPrefix(k, "NCCL_") || strings.HasPrefix(k, "NCCL_DEBUG") || strings.HasSuffix(k, "_DUMP_FILE") || k == "NCCL_VERSION" {
			continue
		}
		out[k] = v
	}
	return out
}

func loadRunResult(path string) ([]Row, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	res, err := hw.ReadRunResult(path)
	if err != nil {
		return nil, err
	}
	rel := res.Release
	if rel == 0 {
		rel = res.Version
	}
	if rel == 0 {
		return nil, fmt.Errorf("%s:1: no NCCL release (version and release are empty)", path)
	}
	if res.NRanks <= 0 {
		return nil, fmt.Errorf("%s:1: nranks %d: expected a positive rank count", path, res.NRanks)
	}
	cfg := res.Config
	if cfg == "" {
		cfg = "baseline"
	}
	buses := map[string]bool{}
	for _, d := range res.Devices {
		buses[d.BusID] = true
	}
	// ranks share a GPU where the devices repeat a bus id; a process of a
	// run in several processes lists its own devices only, and then the
	// variable that lets NCCL put ranks on one GPU (2.30.3+) says so
	shared := len(buses) < len(res.Devices) || len(res.Devices) < res.NRanks && res.Env["NCCL_MULTI_RANK_GPU_ENABLE"] == "1"
	l := sim.Launch{Launch: spec.Launch{Mode: spec.LaunchModeOf(res.Timing == "graph")}, Logged: sim.LoggedPerOp(res.Env)}
	if res.Agg != 0 {
		if err := spec.CheckGroupSize(res.Agg); err != nil {
			return nil, fmt.Errorf("%s:1: agg: %v", path, err)
		}
		if res.Agg > 1 {
			l.Agg = res.Agg
		}
	}
	lines := conformance.RowLines(b)
	var rows []Row
	for i, r := range res.Rows {
		line := 1
		if i < len(lines) {
			line = lines[i]
		}
		if r.Err != nil {
			continue // NCCL refused the operation: nothing was timed
		}
		if r.Size == 0 {
			continue // nccl-tests' empty rows time a launch of nothing
		}
		if !(r.TimeUs > 0) {
			return nil, fmt.Errorf("%s:%d: %s %d bytes: a row without a time (time_us %v)", path, line, r.Coll, r.Size, r.TimeUs)
		}
		l.Iters = min(max(0, r.Iters), sim.MaxIters)
		rows = append(rows, Row{File: path, Line: line, Tool: "hw run", Config: cfg, Env: ncclEnv(res.Env), Release: rel, Launch: l,
			Func: r.Func, Coll: r.Func.String(), Bytes: int64(r.Size), Count: int64(r.Count), DataType: r.Type, RedOp: redOp(r.RedOp), Root: max(0, r.Root), TimeUs: r.TimeUs, SharedGPU: shared, Ranks: res.NRanks, Procs: res.Procs, Buffers: res.Buffers})
	}
	return rows, nil
}

func redOp(s string) spec.RedOp {
	if op, err := spec.ParseRedOp(s); err == nil {
		return op
	}
	return spec.Sum
}

func loadNCCLTests(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := conformance.ParseNCCLTests(f, path)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	fn, ok := conformance.FuncOfProgram(t.Program)
	if !ok {
		return nil, fmt.Errorf("%s:1: no \"Collective test starting: <program>\" line: cannot tell the collective", path)
	}
	if t.LibraryVersion == 0 {
		return nil, fmt.Errorf("%s:1: no \"nccl-library=\" on the version line: cannot tell the release", path)
	}
	rel := spec.Version(t.LibraryVersion)
	cfg, env := "baseline", spec.Env{"NCCL_NVLS_ENABLE": "0"}
	if c, err := hw.ReadCapture(filepath.Dir(path)); err == nil && c.Config.Name != "" {
		cfg, env = c.Config.Name, spec.Env(c.Config.Env).With("NCCL_NVLS_ENABLE", "0")
	}
	l := sim.Launch{Launch: spec.Launch{Mode: spec.LaunchModeOf(t.Graph > 0), Agg: t.AggIters}, Logged: sim.LoggedPerOp(env)}
	if l.Agg <= 1 {
		l.Agg = 0
	}
	l.Iters = min(t.Iters, sim.MaxIters)
	var rows []Row
	for _, r := range t.Rows {
		if r.Size == 0 {
			continue
		}
		if !(r.TimeUs > 0) {
			return nil, fmt.Errorf("%s:%d: a row without a time (%v us)", path, r.Line, r.TimeUs)
		}
		dt, err := spec.ParseDataType(r.Type)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: type %q: %v", path, r.Line, r.Type, err)
		}
		row := Row{File: path, Line: r.Line, Tool: "nccl-tests", Config: cfg, Env: env, Release: rel, Launch: l,
			Func: fn, Coll: fn.String(), Bytes: int64(r.Size), Count: int64(r.Count), DataType: dt, RedOp: redOp(r.RedOp), Root: max(0, r.Root), TimeUs: r.TimeUs, Ranks: t.NRanks}
		if r.InPlace != nil && r.InPlace.TimeUs > 0 {
			row.InPlaceUs = r.InPlace.TimeUs
		}
		rows = append(rows, row)
	}
	return rows, nil
}

package conformance

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// NTRow is one row of an nccl-tests result table (out-of-place columns,
// and in-place ones when the table has them).
type NTRow struct {
	Size    uint64  `json:"size"`
	Count   uint64  `json:"count"`
	Type    string  `json:"type"`
	RedOp   string  `json:"redop"`
	Root    int     `json:"root"`
	TimeUs  float64 `json:"time_us"`
	AlgBw   float64 `json:"algbw"`
	BusBw   float64 `json:"busbw"`
	Wrong   string  `json:"wrong"` // a number or N/A
	InPlace *struct {
		TimeUs, AlgBw, BusBw float64
		Wrong                string
	} `json:"in_place,omitempty"`
	Line int `json:"line"`
}

// NTTable is one nccl-tests program's output.
type NTTable struct {
	// Program is the perf binary ("all_reduce_perf") from the "Collective
	// test starting" line, if present.
	Program string `json:"program,omitempty"`
	// LibraryVersion is nccl-library=NNNNN of the version line, 0 if absent.
	LibraryVersion int     `json:"library_version,omitempty"`
	Rows           []NTRow `json:"rows"`
	// AvgBusBw is the "Avg bus bandwidth" footer.
	AvgBusBw float64 `json:"avg_busbw"`
	// Graph is the header's "graph: N" (-G N: operations captured in a CUDA
	// graph launched N times; 0 on a stream) and AggIters its "agg iters: N"
	// (-m N: operations per group).
	Graph    int `json:"graph,omitempty"`
	AggIters int `json:"agg_iters,omitempty"`
	// Iters is the header's "iters: N" (-n N: operations issued back to
	// back per timed batch), 0 if absent.
	Iters int `json:"iters,omitempty"`
	// NRanks is the number of "#  Rank N" lines of the device list (every
	// rank of every process and thread), 0 if the file has none.
	NRanks int `json:"nranks,omitempty"`
}

// headerInt reads the integer after key in nccl-tests' parameter line
// ("... agg iters: 1 validation: 1 graph: 0 ..."), 0 if absent.
func headerInt(body, key string) int {
	i := strings.Index(body, key)
	if i < 0 {
		return 0
	}
	f := strings.Fields(body[i+len(key):])
	if len(f) == 0 {
		return 0
	}
	v, err := strconv.Atoi(f[0])
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// itersInt reads the header's own "iters: N", not "warmup iters:" or "agg
// iters:", 0 if absent.
func itersInt(body string) int {
	for i := 0; ; {
		j := strings.Index(body[i:], "iters:")
		if j < 0 {
			return 0
		}
		j += i
		prev := strings.Fields(body[:j])
		if len(prev) == 0 || (prev[len(prev)-1] != "warmup" && prev[len(prev)-1] != "agg") {
			return headerInt(body[j:], "iters:")
		}
		i = j + len("iters:")
	}
}

// ntLayout is the columns of a result row (nccl-tests util.cu
// writeResultHeader and writeBenchmarkLine*): size, count, type, redop and
// root, then time, algbw, busbw and #wrong out of place and in place. Older
// nccl-tests (before its 2.13 resync) printed only the redop and root the
// collective has (all_reduce and reduce_scatter redop, broadcast root,
// reduce both) and an "error" column (the largest error, a float) where
// #wrong is; newer ones add i_min i_max i_p99 i_cv% to each side (per
// iteration timing) and a date and time at the end (timestamps) when asked.
type ntLayout struct {
	redop, root bool
	errorCol    bool
	perIter     bool
	timestamp   bool
}

// side is the columns of one of the out-of-place and in-place halves.
func (l ntLayout) side() int {
	if l.perIter {
		return 8
	}
	return 4
}

func (l ntLayout) columns() int {
	n := 3 + 2*l.side()
	if l.redop {
		n++
	}
	if l.root {
		n++
	}
	if l.timestamp {
		n += 2 // date and time
	}
	return n
}

func (l ntLayout) names() string {
	s := "size count type"
	if l.redop {
		s += " redop"
	}
	if l.root {
		s += " root"
	}
	w := "#wrong"
	if l.errorCol {
		w = "error"
	}
	if l.perIter {
		w += " i_min i_max i_p99 i_cv%"
	}
	s += ", time algbw busbw " + w + " out-of-place and in-place"
	if l.timestamp {
		s += ", timestamp"
	}
	return s
}

var ntModern = ntLayout{redop: true, root: true}

// ntLegacy is the older layout of program's rows.
func ntLegacy(program string) (ntLayout, bool) {
	switch program {
	case "all_reduce_perf", "reduce_scatter_perf":
		return ntLayout{redop: true, errorCol: true}, true
	case "broadcast_perf":
		return ntLayout{root: true, errorCol: true}, true
	case "reduce_perf":
		return ntLayout{redop: true, root: true, errorCol: true}, true
	case "all_gather_perf", "alltoall_perf", "sendrecv_perf":
		return ntLayout{errorCol: true}, true
	}
	return ntLayout{}, false
}

// ntState is what the header lines said so far, with the line that said it.
type ntState struct {
	programLine, headerLine int
	header                  string
	layout                  *ntLayout
	nThread, nGpus          int
	ranks                   map[int]int // rank → line
}

// ParseNCCLTests reads nccl-tests' stdout: one program's run of one
// release. Lines that are not result rows (comments, NCCL INFO lines a run
// mixed in, launcher noise) are skipped; a line that starts like a row (a
// size, a count) must be one: the program's columns, a positive finite
// time, an algbw that times the time gives the size within the printed
// digits, a #wrong count or N/A. A second program, release or parameter
// line in one file (outputs concatenated) is refused. Errors name the file
// and line.
func ParseNCCLTests(r io.Reader, name string) (*NTTable, error) {
	t := &NTTable{}
	st := ntState{ranks: map[int]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			if err := st.comment(t, strings.TrimSpace(strings.TrimPrefix(line, "#")), name, ln); err != nil {
				return nil, err
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		size, err1 := strconv.ParseUint(f[0], 10, 64)
		count, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue // not a row
		}
		row, err := st.row(t.Program, f, size, count)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, ln, err)
		}
		row.Line = ln
		t.Rows = append(t.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, ln, err)
	}
	if err := st.rankCount(t, name); err != nil {
		return nil, err
	}
	return t, nil
}

func (st *ntState) comment(t *NTTable, body, name string, ln int) error {
	switch {
	case strings.HasPrefix(body, "Collective test starting:"):
		if st.programLine != 0 {
			return fmt.Errorf("%s:%d: a second \"Collective test starting\" line (the first is line %d): two runs in one file (split it, one run per file)", name, ln, st.programLine)
		}
		st.programLine = ln
		t.Program = strings.TrimSpace(strings.TrimPrefix(body, "Collective test starting:"))
	case strings.HasPrefix(body, "nccl-tests version"):
		if i := strings.Index(body, "nccl-library="); i >= 0 {
			f := strings.Fields(body[i+len("nccl-library="):])
			if len(f) > 0 {
				v, _ := strconv.Atoi(f[0])
				if t.LibraryVersion != 0 && v != t.LibraryVersion {
					return fmt.Errorf("%s:%d: nccl-library=%d after nccl-library=%d: two releases in one file (split it, one run per file)", name, ln, v, t.LibraryVersion)
				}
				t.LibraryVersion = v
			}
		}
	case strings.HasPrefix(body, "nThread"):
		h := strings.Join(strings.Fields(body), " ")
		if st.headerLine != 0 {
			if h != st.header {
				return fmt.Errorf("%s:%d: parameters %q differ from line %d's %q: two runs in one file (split it, one run per file)", name, ln, h, st.headerLine, st.header)
			}
			return nil
		}
		st.headerLine, st.header = ln, h
		t.AggIters = headerInt(body, "agg iters:")
		t.Graph = headerInt(body, "graph:")
		t.Iters = itersInt(body)
		st.nThread, st.nGpus = headerInt(body, "nThread"), headerInt(body, "nGpus")
	case strings.HasPrefix(body, "Rank "):
		f := strings.Fields(body)
		// "Rank 0 Group 0 Pid ..." (older: "Rank 0 Pid ..."), one per rank
		if len(f) >= 3 && (f[2] == "Group" || f[2] == "Pid") {
			rank, err := strconv.Atoi(f[1])
			if err != nil || rank < 0 {
				return fmt.Errorf("%s:%d: rank %q: expected a rank number", name, ln, f[1])
			}
			if prev, ok := st.ranks[rank]; ok {
				return fmt.Errorf("%s:%d: rank %d listed again (first on line %d): two runs in one file (split it, one run per file)", name, ln, rank, prev)
			}
			st.ranks[rank] = ln
		}
	case strings.HasPrefix(body, "size ") && strings.Contains(body, "time"):
		// the column names of the result table
		f := strings.Fields(body)
		l := ntLayout{redop: slices.Contains(f, "redop"), root: slices.Contains(f, "root"), errorCol: slices.Contains(f, "error"),
			perIter: slices.Contains(f, "i_min"), timestamp: slices.Contains(f, "timestamp")}
		if st.layout != nil && *st.layout != l {
			return fmt.Errorf("%s:%d: column names differ from an earlier table's: two runs in one file (split it, one run per file)", name, ln)
		}
		st.layout = &l
	case strings.HasPrefix(body, "Avg bus bandwidth"):
		if i := strings.Index(body, ":"); i >= 0 {
			f := strings.Fields(body[i+1:])
			if len(f) > 0 {
				t.AvgBusBw, _ = strconv.ParseFloat(f[0], 64)
			}
		}
	}
	return nil
}

// rankCount sets t.NRanks from the device list: ranks 0..N-1, each once,
// N a multiple of the threads × GPUs each process drives.
func (st *ntState) rankCount(t *NTTable, name string) error {
	n := len(st.ranks)
	if n == 0 {
		return nil
	}
	for r, ln := range st.ranks {
		if r >= n {
			return fmt.Errorf("%s:%d: rank %d of a device list of %d ranks: expected ranks 0..%d", name, ln, r, n, n-1)
		}
	}
	if per := st.nThread * st.nGpus; per > 0 && n%per != 0 {
		return fmt.Errorf("%s:%d: %d ranks listed: expected a multiple of nThread %d × nGpus %d (one per GPU of each thread of each process)", name, st.headerLine, n, st.nThread, st.nGpus)
	}
	t.NRanks = n
	return nil
}

// row reads one result row of program (f: its fields).
func (st *ntState) row(program string, f []string, size, count uint64) (NTRow, error) {
	var l ntLayout
	switch legacy, ok := ntLegacy(program); {
	case st.layout != nil:
		l = *st.layout
	case ok && len(f) == legacy.columns():
		l = legacy
	default:
		l = ntModern
	}
	if len(f) != l.columns() {
		prog := program
		if prog == "" {
			prog = "a result row"
		}
		return NTRow{}, fmt.Errorf("%d columns: expected %d for %s (%s)", len(f), l.columns(), prog, l.names())
	}
	row := NTRow{Size: size, Count: count, Type: f[2], RedOp: "none", Root: -1}
	i := 3
	if l.redop {
		row.RedOp = f[i]
		i++
	}
	if l.root {
		var err error
		if row.Root, err = strconv.Atoi(f[i]); err != nil {
			return NTRow{}, fmt.Errorf("column %d root %q: expected an integer", i+1, f[i])
		}
		i++
	}
	var err error
	if row.TimeUs, row.AlgBw, row.BusBw, row.Wrong, err = ntTimes(f, i, size, l.errorCol); err != nil {
		return NTRow{}, fmt.Errorf("out-of-place %v", err)
	}
	ip := struct {
		TimeUs, AlgBw, BusBw float64
		Wrong                string
	}{}
	if ip.TimeUs, ip.AlgBw, ip.BusBw, ip.Wrong, err = ntTimes(f, i+l.side(), size, l.errorCol); err != nil {
		return NTRow{}, fmt.Errorf("in-place %v", err)
	}
	row.InPlace = &ip
	return row, nil
}

// ntTimes reads time, algbw, busbw and #wrong from f[i:i+4].
func ntTimes(f []string, i int, size uint64, errorCol bool) (timeUs, algBw, busBw float64, wrong string, err error) {
	var v [3]float64
	for k, what := range []string{"time (us)", "algbw (GB/s)", "busbw (GB/s)"} {
		x, e := strconv.ParseFloat(f[i+k], 64)
		if e != nil || math.IsInf(x, 0) || math.IsNaN(x) || x < 0 || (k == 0 && x == 0) {
			want := "a finite number ≥ 0"
			if k == 0 {
				want = "a finite number > 0"
			}
			return 0, 0, 0, "", fmt.Errorf("column %d %s %q: expected %s", i+k+1, what, f[i+k], want)
		}
		v[k] = x
	}
	wrong = f[i+3]
	if wrong != "N/A" {
		if errorCol {
			x, e := strconv.ParseFloat(wrong, 64)
			if e != nil || math.IsInf(x, 0) || math.IsNaN(x) || x < 0 {
				return 0, 0, 0, "", fmt.Errorf("column %d error %q: expected a finite number ≥ 0 or N/A", i+4, wrong)
			}
		} else if x, e := strconv.ParseFloat(wrong, 64); e != nil || !(x >= 0) || math.IsInf(x, 0) || x != math.Trunc(x) {
			// printed %6g: a count, in exponent form from a million
			return 0, 0, 0, "", fmt.Errorf("column %d #wrong %q: expected a count of wrong elements or N/A", i+4, wrong)
		}
	}
	// algbw is size / time (GB/s of 10^9 bytes, time in us): both printed
	// rounded, so the size must lie within what the printed digits allow
	t, dt := v[0], halfDigit(f[i])
	a, da := v[1], halfDigit(f[i+1])
	lo := (a - da) * (t - dt) * 1e3
	hi := (a + da) * (t + dt) * 1e3
	if s := float64(size); s < lo*(1-1e-9) || s > hi*(1+1e-9) {
		return 0, 0, 0, "", fmt.Errorf("time %s us × algbw %s GB/s is %.4g bytes: expected the row's size %d (within the printed digits)", f[i], f[i+1], t*a*1e3, size)
	}
	return v[0], v[1], v[2], wrong, nil
}

// halfDigit is half a unit of the last digit printed in s ("17.09": 0.005,
// "1.2e+07": 0.05e7).
func halfDigit(s string) float64 {
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	dec := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		dec = len(s) - i - 1
	}
	return 0.5 * math.Pow(10, float64(exp-dec))
}

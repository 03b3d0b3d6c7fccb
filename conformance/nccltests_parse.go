package conformance

import (
	"bufio"
	"fmt"
	"io"
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

// ParseNCCLTests reads nccl-tests' stdout. Lines that are not result rows
// (comments, NCCL INFO lines a run mixed in, launcher noise) are skipped; a
// line that starts like a row (a size, a count, a type) but cannot be read
// is an error naming the file and line.
func ParseNCCLTests(r io.Reader, name string) (*NTTable, error) {
	t := &NTTable{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			body := strings.TrimSpace(strings.TrimPrefix(line, "#"))
			switch {
			case strings.HasPrefix(body, "Collective test starting:"):
				t.Program = strings.TrimSpace(strings.TrimPrefix(body, "Collective test starting:"))
			case strings.HasPrefix(body, "nccl-tests version"):
				if i := strings.Index(body, "nccl-library="); i >= 0 {
					f := strings.Fields(body[i+len("nccl-library="):])
					if len(f) > 0 {
						v, _ := strconv.Atoi(f[0])
						if t.LibraryVersion != 0 && v != t.LibraryVersion {
							return nil, fmt.Errorf("%s:%d: nccl-library=%d after nccl-library=%d: two releases in one file (split it, one run per file)", name, ln, v, t.LibraryVersion)
						}
						t.LibraryVersion = v
					}
				}
			case strings.HasPrefix(body, "nThread"):
				t.AggIters = headerInt(body, "agg iters:")
				t.Graph = headerInt(body, "graph:")
				t.Iters = itersInt(body)
			case strings.HasPrefix(body, "Avg bus bandwidth"):
				if i := strings.Index(body, ":"); i >= 0 {
					f := strings.Fields(body[i+1:])
					if len(f) > 0 {
						t.AvgBusBw, _ = strconv.ParseFloat(f[0], 64)
					}
				}
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
		if len(f) < 9 {
			return nil, fmt.Errorf("%s:%d: a result row needs at least 9 columns (size count type redop root time algbw busbw #wrong), got %d", name, ln, len(f))
		}
		row := NTRow{Size: size, Count: count, Type: f[2], RedOp: f[3], Line: ln}
		var err error
		if row.Root, err = strconv.Atoi(f[4]); err != nil {
			return nil, fmt.Errorf("%s:%d: root %q: expected an integer", name, ln, f[4])
		}
		vals := make([]float64, 3)
		for i := range vals {
			if vals[i], err = strconv.ParseFloat(f[5+i], 64); err != nil {
				return nil, fmt.Errorf("%s:%d: column %d %q: expected a number", name, ln, 6+i, f[5+i])
			}
		}
		row.TimeUs, row.AlgBw, row.BusBw, row.Wrong = vals[0], vals[1], vals[2], f[8]
		if len(f) >= 13 {
			ip := struct {
				TimeUs, AlgBw, BusBw float64
				Wrong                string
			}{Wrong: f[12]}
			var e1, e2, e3 error
			ip.TimeUs, e1 = strconv.ParseFloat(f[9], 64)
			ip.AlgBw, e2 = strconv.ParseFloat(f[10], 64)
			ip.BusBw, e3 = strconv.ParseFloat(f[11], 64)
			if e1 == nil && e2 == nil && e3 == nil {
				row.InPlace = &ip
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, ln, err)
	}
	return t, nil
}

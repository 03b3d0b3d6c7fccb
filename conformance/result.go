package conformance

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// RunResult is what one `gatesim hw run` process measured: one environment
// configuration, one library, every (collective, size) row. It is the
// results.json of a capture directory.
type RunResult struct {
	// Config names the environment configuration ("baseline", "algo-tree").
	Config string `json:"config,omitempty"`
	// Env holds the NCCL_* (and safety) variables the process ran under.
	Env spec.Env `json:"env"`
	// Library is the libnccl path that was loaded; Version what its
	// ncclGetVersion returned, and Release the modelled release it maps to.
	Library    string       `json:"library"`
	Version    spec.Version `json:"version"`
	Release    spec.Version `json:"release,omitempty"`
	CudaRT     string       `json:"cudart,omitempty"`
	CudaDriver int          `json:"cuda_driver,omitempty"`
	NRanks     int          `json:"nranks"`
	// Procs is 1 when one process drove every GPU.
	Procs   int          `json:"procs"`
	Devices []DeviceInfo `json:"devices"`
	// Timing says how time was taken: "events" or "graph".
	Timing string `json:"timing"`
	// Agg is the number of operations issued in one NCCL group (nccl-tests
	// -m); 0 and 1 mean one.
	Agg int `json:"agg,omitempty"`
	// Buffers is how the buffers reached NCCL ("registered", "window");
	// empty for plain cudaMalloc.
	Buffers string `json:"buffers,omitempty"`
	// Check says how results were checked: "device" (the check kernels),
	// "host" (copied back), or "off".
	Check string `json:"check"`
	// InitErr is set when the communicator could not be created (then
	// there are no rows).
	InitErr *spec.NCCLError `json:"init_error,omitempty"`
	Rows    []Row           `json:"rows"`
}

// DeviceInfo identifies one GPU a rank ran on.
type DeviceInfo struct {
	Rank  int    `json:"rank"`
	Dev   int    `json:"device"`
	Name  string `json:"name,omitempty"`
	BusID string `json:"bus_id,omitempty"`
}

// Row is one line of the nccl-tests table.
type Row struct {
	Func  spec.Func     `json:"-"`
	Coll  string        `json:"coll"`
	Size  uint64        `json:"size"`
	Count uint64        `json:"count"`
	Type  spec.DataType `json:"-"`
	TypeS string        `json:"type"`
	RedOp string        `json:"redop"`
	Root  int           `json:"root"`
	// TimeUs is the median over batches of the time per operation, in
	// microseconds; MinUs and MaxUs the fastest and slowest batch.
	TimeUs float64 `json:"time_us"`
	MinUs  float64 `json:"min_us"`
	MaxUs  float64 `json:"max_us"`
	AlgBw  float64 `json:"algbw"`
	BusBw  float64 `json:"busbw"`
	// Wrong is the number of wrong elements over all ranks; -1 when the
	// result was not checked.
	Wrong int64 `json:"wrong"`
	// Iters is the operations per batch, Batches how many batches were timed.
	Iters   int `json:"iters"`
	Batches int `json:"batches"`
	// Err is the NCCL error the operation returned, if any (the row has no
	// timing then).
	Err *spec.NCCLError `json:"error,omitempty"`
}

// FillNames sets the columns derived from Func and Type.
func (r *Row) FillNames() {
	r.Coll = r.Func.String()
	r.TypeS = r.Type.Short()
}

// formatFloat is nccl-tests' getFloatStr: the widest of %.2f, %.1f, %.0f
// that fits the column, then an exponent.
func formatFloat(v float64, width int) string {
	for _, p := range []int{2, 1, 0} {
		s := fmt.Sprintf("%*.*f", width, p, v)
		if len(s) <= width {
			return s
		}
	}
	if width >= 7 {
		return fmt.Sprintf("%*.1e", width, v)
	}
	return fmt.Sprintf("%*.0e", width, v)
}

// WriteTable prints rows in nccl-tests' layout (out-of-place columns only),
// grouped by collective, each group headed by the program nccl-tests would
// have run.
func WriteTable(w io.Writer, res *RunResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# gatesim hw run: NCCL %s (%s), %d ranks in %d process(es), timing %s, check %s\n",
		res.Version, res.Library, res.NRanks, res.Procs, res.Timing, res.Check)
	if res.Config != "" {
		fmt.Fprintf(&b, "# config %s: %s\n", res.Config, res.Env)
	}
	for _, d := range res.Devices {
		fmt.Fprintf(&b, "#  Rank %2d device %2d [%s] %s\n", d.Rank, d.Dev, d.BusID, d.Name)
	}
	if res.InitErr != nil {
		fmt.Fprintf(&b, "# communicator init failed: %s\n", res.InitErr)
	}
	last := spec.Func(-1)
	for _, r := range res.Rows {
		if r.Func != last {
			last = r.Func
			fmt.Fprintf(&b, "#\n# %s (%s)\n", r.Func, PerfBinary(r.Func))
			fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong")
			fmt.Fprintf(&b, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "")
		}
		fmt.Fprintf(&b, "%12d  %12d  %8s  %6s  %6d", r.Size, r.Count, r.Type.Short(), r.RedOp, r.Root)
		if r.Err != nil {
			fmt.Fprintf(&b, "  %s\n", r.Err)
			continue
		}
		wrong := "N/A"
		if r.Wrong >= 0 {
			wrong = fmt.Sprintf("%6d", r.Wrong)
		}
		fmt.Fprintf(&b, "  %7s  %6s  %6s  %6s\n", formatFloat(r.TimeUs, 7), formatFloat(r.AlgBw, 6), formatFloat(r.BusBw, 6), wrong)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Median is the middle of v (the mean of the two middle values when even):
// a row's time is the median over its batches.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

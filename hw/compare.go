package hw

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// The comparison with nccl-tests: the same GPUs, the same library, the same
// sizes, in one session. The targets are those of the hw issue.
const (
	// TargetBusBwRatio: gatesim's busbw at >= TargetLargeBytes is at least
	// this fraction of nccl-tests'.
	TargetBusBwRatio = 0.99
	TargetLargeBytes = 64 << 20
	// TargetLatencyUs: gatesim's time at <= TargetSmallBytes is within this
	// many microseconds of nccl-tests'.
	TargetLatencyUs  = 1.0
	TargetSmallBytes = 4096
)

// CompareRow is one (collective, size) measured by both.
type CompareRow struct {
	Coll string `json:"coll"`
	Size uint64 `json:"size"`
	// TheirUs and TheirBusBw are nccl-tests'; OurUs and OurBusBw gatesim's.
	TheirUs    float64 `json:"nccl_tests_us"`
	OurUs      float64 `json:"gatesim_us"`
	TheirBusBw float64 `json:"nccl_tests_busbw"`
	OurBusBw   float64 `json:"gatesim_busbw"`
	// Ratio is OurBusBw/TheirBusBw; DeltaUs is OurUs-TheirUs.
	Ratio   float64 `json:"ratio"`
	DeltaUs float64 `json:"delta_us"`
	// Large and Small say which target applies; MeetOK whether it is met.
	Large  bool `json:"large"`
	Small  bool `json:"small"`
	MeetOK bool `json:"ok"`
}

// Compare matches ours' rows of collective f with nccl-tests' rows by size.
// Where nccl-tests printed a size several times (-N cycles), its median time
// and median busbw are used, as gatesim reports the median of its batches.
func Compare(f spec.Func, ours *RunResult, theirs *NTTable) []CompareRow {
	bySize := map[uint64]Row{}
	for _, r := range ours.Rows {
		if r.Func == f && r.Err == nil {
			bySize[r.Size] = r
		}
	}
	var sizes []uint64
	times, bws := map[uint64][]float64{}, map[uint64][]float64{}
	for _, t := range theirs.Rows {
		if _, seen := times[t.Size]; !seen {
			sizes = append(sizes, t.Size)
		}
		times[t.Size] = append(times[t.Size], t.TimeUs)
		bws[t.Size] = append(bws[t.Size], t.BusBw)
	}
	var out []CompareRow
	for _, size := range sizes {
		o, ok := bySize[size]
		if !ok {
			continue
		}
		tUs, tBw := median(times[size]), median(bws[size])
		c := CompareRow{Coll: f.String(), Size: size, TheirUs: tUs, OurUs: o.TimeUs, TheirBusBw: tBw, OurBusBw: o.BusBw,
			DeltaUs: o.TimeUs - tUs, Large: size >= TargetLargeBytes, Small: size <= TargetSmallBytes}
		if tBw > 0 {
			c.Ratio = o.BusBw / tBw
		}
		c.MeetOK = true
		if c.Large {
			c.MeetOK = c.Ratio >= TargetBusBwRatio
		}
		if c.Small {
			c.MeetOK = math.Abs(c.DeltaUs) <= TargetLatencyUs
		}
		out = append(out, c)
	}
	return out
}

// WriteCompare prints the comparison as a markdown table and returns how
// many rows missed their target.
func WriteCompare(w io.Writer, rows []CompareRow) (missed int, err error) {
	var b strings.Builder
	b.WriteString("| coll | size (B) | nccl-tests time (us) | gatesim time (us) | delta (us) | nccl-tests busbw (GB/s) | gatesim busbw (GB/s) | ratio | target |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		target := ""
		switch {
		case r.Large:
			target = fmt.Sprintf("busbw >= %.0f%%", TargetBusBwRatio*100)
		case r.Small:
			target = fmt.Sprintf("delta within %.0f us", TargetLatencyUs)
		}
		if target != "" {
			if r.MeetOK {
				target += " ok"
			} else {
				target += " MISSED"
				missed++
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %+.2f | %.2f | %.2f | %.3f | %s |\n",
			r.Coll, r.Size, r.TheirUs, r.OurUs, r.DeltaUs, r.TheirBusBw, r.OurBusBw, r.Ratio, target)
	}
	_, err = io.WriteString(w, b.String())
	return missed, err
}

// FuncOfProgram maps an nccl-tests program name to its collective.
func FuncOfProgram(prog string) (spec.Func, bool) {
	for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce, spec.AllToAll, spec.SendRecv} {
		if strings.Contains(prog, PerfBinary(f)) {
			return f, true
		}
	}
	return 0, false
}

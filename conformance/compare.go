package conformance

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// The comparison with nccl-tests: the same GPUs, the same library, the same
// sizes, in one session, with targets on large-size busbw and small-size
// time.
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
		tUs, tBw := Median(times[size]), Median(bws[size])
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

// CompareBest is Compare with the best (lowest) time on both sides instead
// of the median: gatesim's fastest batch over all its runs against
// nccl-tests' fastest cycle over all its outputs. On a machine whose
// processes land in fast or slow latency states (docs/hw.md), the best
// times say what each tool adds on top of NCCL; the medians say what a run
// is likely to show. busbw scales with 1/time at a fixed size.
func CompareBest(f spec.Func, runs []*RunResult, theirs *NTTable) []CompareRow {
	type best struct {
		us, bw float64
		ok     bool
	}
	ours := map[uint64]best{}
	for _, r := range runs {
		for _, row := range r.Rows {
			if row.Func != f || row.Err != nil || row.MinUs <= 0 {
				continue
			}
			b := ours[row.Size]
			if !b.ok || row.MinUs < b.us {
				ours[row.Size] = best{us: row.MinUs, bw: row.BusBw * row.TimeUs / row.MinUs, ok: true}
			}
		}
	}
	var sizes []uint64
	theirsBest := map[uint64]best{}
	for _, t := range theirs.Rows {
		b, seen := theirsBest[t.Size]
		if !seen {
			sizes = append(sizes, t.Size)
		}
		if !seen || t.TimeUs < b.us {
			theirsBest[t.Size] = best{us: t.TimeUs, bw: t.BusBw, ok: true}
		}
	}
	var out []CompareRow
	for _, size := range sizes {
		o, ok := ours[size]
		if !ok {
			continue
		}
		t := theirsBest[size]
		c := CompareRow{Coll: f.String(), Size: size, TheirUs: t.us, OurUs: o.us, TheirBusBw: t.bw, OurBusBw: o.bw,
			DeltaUs: o.us - t.us, Large: size >= TargetLargeBytes, Small: size <= TargetSmallBytes}
		if o.us > 0 && t.bw > 0 {
			c.Ratio = t.us / o.us
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
			target = fmt.Sprintf("delta within %.0f µs", TargetLatencyUs)
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

// MergeResults combines repeated runs of the same plan (one process each)
// into one result whose rows hold, per (collective, size), the median time
// and the median busbw over the runs: a process's placement on the host can
// shift its small-message latency by microseconds, and the median of several
// processes is what the comparison with nccl-tests uses.
func MergeResults(rs []*RunResult) *RunResult {
	if len(rs) == 0 {
		return nil
	}
	out := *rs[0]
	out.Rows = nil
	type key struct {
		f    spec.Func
		size uint64
	}
	var order []key
	groups := map[key][]Row{}
	for _, r := range rs {
		for _, row := range r.Rows {
			k := key{row.Func, row.Size}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], row)
		}
	}
	for _, k := range order {
		rows := groups[k]
		m := rows[0]
		var ts, bs []float64
		for _, r := range rows {
			if r.Err != nil {
				m.Err = r.Err
				continue
			}
			if len(ts) == 0 {
				m.MinUs, m.MaxUs = r.MinUs, r.MaxUs
			}
			ts = append(ts, r.TimeUs)
			bs = append(bs, r.BusBw)
			m.MinUs, m.MaxUs = min(m.MinUs, r.MinUs), max(m.MaxUs, r.MaxUs)
			m.Wrong = max(m.Wrong, r.Wrong)
		}
		if len(ts) > 0 {
			m.Err = nil
			m.TimeUs, m.BusBw = Median(ts), Median(bs)
			m.AlgBw = m.BusBw / m.Func.BusFactor(out.NRanks)
		}
		out.Rows = append(out.Rows, m)
	}
	return &out
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

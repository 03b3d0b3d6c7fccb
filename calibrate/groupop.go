package calibrate

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec"
	"gonum.org/v1/gonum/stat"
)

// GroupOpEstimate is launch.group_op measured on the host alone: the
// floor of operations issued N to a group against the same operations
// issued one per group, by runs whose ranks share one GPU
// (hw/testdata/device/multirank: ncclCommInitAll over devices {0, 0}, one
// process issuing both ranks, as the 2 × H200 captures issue theirs). Such
// runs time no transfer the profile's machine makes, but at a few KiB an
// operation on a stream costs what the host spends issuing it (the device
// runs a group's operations in one kernel and is done sooner), and the
// host's work for a group (ncclGroupEnd's plan and launch, then each
// operation's enqueue) does not depend on where the ranks' GPUs are. A
// group of N costs the host launch.stream + (N−1)·launch.group_op, so each
// pair of floors gives group_op as a share of launch.stream:
//
//	k = (N·T_N − T_1) / ((N − 1)·T_1)
//
// (logging's per-operation cost taken off each floor first). Only the
// share carries over: the floor itself moves with the host's state (its
// two modes, docs/calibration.md), and with it both costs alike.
type GroupOpEstimate struct {
	// Ratio is the median k over the pairs; Pairs the pairs it is taken
	// over (collective × size × release, both floors medians of their
	// rows).
	Ratio float64
	Pairs []GroupOpPair
	// Rows are the rows the pairs are taken over, Files their runs.
	Rows  int
	Files []string
}

// GroupOpPair is one pair of floors: the medians of the rows of one
// collective, size and release issued alone (T1) and N to a group (TN).
type GroupOpPair struct {
	Release spec.Version
	Func    spec.Func
	Bytes   int64
	N       int
	T1, TN  float64
	Ratio   float64
}

// groupOpMaxBytes bounds the rows whose time is the launch floor.
const groupOpMaxBytes = 4 << 10

// estimateGroupOp pairs the floors of rows (runs whose ranks share one
// GPU) issued alone and N to a group on a stream, user buffers, one
// process; logged is launch.logged's fitted value. nil when no pair
// exists.
func estimateGroupOp(rows []Row, logged float64) *GroupOpEstimate {
	type key struct {
		rel    spec.Version
		f      spec.Func
		bytes  int64
		n      int
		logged bool
	}
	times := map[key][]float64{}
	files := map[string]bool{}
	for _, r := range rows {
		if !r.SharedGPU || r.Launch.Graph() || r.Bytes > groupOpMaxBytes || (r.Buffers != "" && r.Buffers != spec.BuffersUser.String()) || r.Procs > 1 {
			continue
		}
		t := r.TimeUs
		if r.Launch.Logged {
			t -= logged
		}
		k := key{r.Release, r.Func, r.Bytes, max(1, r.Launch.Agg), r.Launch.Logged}
		times[k] = append(times[k], t)
		files[r.File] = true
	}
	var est GroupOpEstimate
	for k, tn := range times {
		if k.n == 1 {
			continue
		}
		k1 := k
		k1.n = 1
		t1 := times[k1]
		if len(t1) == 0 {
			continue
		}
		p := GroupOpPair{Release: k.rel, Func: k.f, Bytes: k.bytes, N: k.n, T1: median(t1), TN: median(tn)}
		if p.T1 <= 0 {
			continue
		}
		p.Ratio = (float64(p.N)*p.TN - p.T1) / (float64(p.N-1) * p.T1)
		est.Pairs = append(est.Pairs, p)
		est.Rows += len(tn) + len(t1)
	}
	if len(est.Pairs) == 0 {
		return nil
	}
	sort.Slice(est.Pairs, func(i, j int) bool {
		a, b := est.Pairs[i], est.Pairs[j]
		if a.Release != b.Release {
			return a.Release < b.Release
		}
		if a.Func != b.Func {
			return a.Func < b.Func
		}
		if a.Bytes != b.Bytes {
			return a.Bytes < b.Bytes
		}
		return a.N < b.N
	})
	est.Ratio = median(pairRatios(est.Pairs, func(GroupOpPair) bool { return true }))
	for f := range files {
		est.Files = append(est.Files, f)
	}
	sort.Strings(est.Files)
	return &est
}

func pairRatios(ps []GroupOpPair, keep func(GroupOpPair) bool) []float64 {
	var out []float64
	for _, p := range ps {
		if keep(p) {
			out = append(out, p.Ratio)
		}
	}
	return out
}

// median is the median of xs (0 for none); xs is sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	return stat.Quantile(0.5, stat.Empirical, xs, nil)
}

// releases is the estimate's releases in order.
func (e *GroupOpEstimate) releases() []spec.Version {
	var out []spec.Version
	for _, p := range e.Pairs {
		if len(out) == 0 || out[len(out)-1] != p.Release {
			out = append(out, p.Release)
		}
	}
	return out
}

// From is where the profile says launch.group_op comes from.
func (e *GroupOpEstimate) From(stream float64) string {
	var rels []string
	for _, v := range e.releases() {
		rels = append(rels, v.String())
	}
	return fmt.Sprintf("%.3f × launch.stream (%.4g µs): the median share of %d pairs of -m N and -m 1 floors (≤ %d KiB) of two ranks on one H200, NCCL %s (%s)",
		e.Ratio, stream, len(e.Pairs), groupOpMaxBytes>>10, strings.Join(rels, ", "), commonDir(e.Files))
}

// commonDir is the longest directory prefix of the files.
func commonDir(files []string) string {
	if len(files) == 0 {
		return ""
	}
	pre := files[0]
	for _, f := range files[1:] {
		for !strings.HasPrefix(f, pre) {
			pre = pre[:len(pre)-1]
		}
	}
	if i := strings.LastIndex(pre, "/"); i >= 0 {
		pre = pre[:i]
	}
	return pre
}

// WriteGroupOp writes the estimate: each pair, and each release's floors
// predicted from the share the other releases give (leave one release
// out).
func WriteGroupOp(w io.Writer, e *GroupOpEstimate) {
	if e == nil {
		fmt.Fprintf(w, "No run pairs operations issued alone and in a group on one GPU: `launch.group_op` stays nominal.\n\n")
		return
	}
	fmt.Fprintf(w, "Floors (µs per operation; the median where several runs have the size) of two ranks sharing one H200, issued alone and N to a group; the share k = (N·T_N − T_1) / ((N − 1)·T_1) that `launch.group_op` is of `launch.stream`; and each release's T_N predicted from its T_1 with the share the *other* releases give, (T_1 + (N − 1)·k·T_1) / N. Median share: %.3f over %d pairs.\n\n", e.Ratio, len(e.Pairs))
	fmt.Fprintf(w, "| release | collective | bytes | N | T_1 | T_N | k | k of the other releases | T_N predicted | error |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, p := range e.Pairs {
		other := median(pairRatios(e.Pairs, func(q GroupOpPair) bool { return q.Release != p.Release }))
		pred, errs := "", ""
		if other != 0 {
			t := (p.T1 + float64(p.N-1)*other*p.T1) / float64(p.N)
			pred, errs = fmt.Sprintf("%.2f", t), spct((t-p.TN)/p.TN)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %.2f | %.2f | %.3f | %.3f | %s | %s |\n", p.Release, p.Func, p.Bytes, p.N, p.T1, p.TN, p.Ratio, other, pred, errs)
	}
	fmt.Fprintln(w)
}

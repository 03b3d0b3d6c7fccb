package calibrate

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// GroupOpEstimate is launch.group_op measured on the host alone: the
// floor of operations issued N to a group against the same operations
// issued one per group, by runs whose ranks share one GPU
// (hw/testdata/device/multirank and groupop: ncclCommInitAll over devices
// {0, 0}, one process issuing both ranks, as the 2 × H200 captures issue
// theirs). Such runs time no transfer the profile's machine makes, but at
// a few KiB an operation on a stream costs what the host spends issuing it
// (the device runs a group's operations in one kernel and is done sooner:
// from a CUDA graph 8 of them take 0.9 µs each), and the host's work for a
// group (ncclGroupEnd's plan and launch, then each operation's enqueue)
// does not depend on where the ranks' GPUs are. A group of N costs the
// host launch.stream + (N−1)·launch.group_op, so each pair of floors gives
// group_op as a share of launch.stream:
//
//	k = (N·T_N − T_1) / ((N − 1)·T_1)
//
// (logging's per-operation cost taken off each floor first). Only the
// share carries over: the floor itself moves with the host's state (its
// two modes, docs/calibration.md), and with it both costs.
type GroupOpEstimate struct {
	// Ratio is the median k over the pairs.
	Ratio float64
	Pairs []GroupOpPair
	// Rows are the rows the pairs are taken over, Files their runs.
	Rows  int
	Files []string
}

// GroupOpPair is one pair of floors of one set of runs (the runs of one
// directory, taken together one after another: a set's host state is
// one): the median of its floor rows issued alone (T1) and N to a group
// (TN), and the share k they give.
type GroupOpPair struct {
	Set     string
	Release spec.Version
	Logged  bool
	N       int
	T1, TN  float64
	Ratio   float64
}

// groupOpMaxBytes bounds the rows whose time is the launch floor.
const groupOpMaxBytes = 4 << 10

// groupOpSet is the set a run belongs to: the directory above its own
// (a run is DIR/SET/RUN/results.json).
func groupOpSet(file string) string { return filepath.ToSlash(filepath.Dir(filepath.Dir(file))) }

// estimateGroupOp pairs the floors of rows (runs whose ranks share one
// GPU) issued alone and N to a group on a stream, user buffers, one
// process, within each set of runs; logged is launch.logged's fitted
// value. nil when no pair exists.
func estimateGroupOp(rows []Row, logged float64) *GroupOpEstimate {
	type key struct {
		set    string
		rel    spec.Version
		logged bool
		n      int
	}
	times := map[key][]float64{}
	files := map[key]map[string]bool{}
	for _, r := range rows {
		if !r.SharedGPU || r.Launch.Graph() || r.Bytes > groupOpMaxBytes || (r.Buffers != "" && r.Buffers != spec.BuffersUser.String()) || r.Procs > 1 {
			continue
		}
		t := r.TimeUs
		if r.Launch.Logged {
			t -= logged
		}
		k := key{groupOpSet(r.File), r.Release, r.Launch.Logged, max(1, r.Launch.Agg)}
		times[k] = append(times[k], t)
		if files[k] == nil {
			files[k] = map[string]bool{}
		}
		files[k][r.File] = true
	}
	var est GroupOpEstimate
	used := map[string]bool{}
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
		p := GroupOpPair{Set: k.set, Release: k.rel, Logged: k.logged, N: k.n, T1: quantile(t1, 0.5), TN: quantile(tn, 0.5)}
		if p.T1 <= 0 || p.TN <= 0 { // a logged floor at or under logging's cost
			continue
		}
		p.Ratio = (float64(p.N)*p.TN - p.T1) / (float64(p.N-1) * p.T1)
		est.Pairs = append(est.Pairs, p)
		est.Rows += len(tn)
		for _, kk := range []key{k, k1} {
			for f := range files[kk] {
				used[f] = true
			}
		}
	}
	if len(est.Pairs) == 0 {
		return nil
	}
	for f := range used {
		est.Files = append(est.Files, f)
	}
	sort.Strings(est.Files)
	// a set's T1 rows count once
	seen := map[key]bool{}
	for _, p := range est.Pairs {
		k := key{p.Set, p.Release, p.Logged, 1}
		if !seen[k] {
			seen[k] = true
			est.Rows += len(times[k])
		}
	}
	sort.Slice(est.Pairs, func(i, j int) bool {
		a, b := est.Pairs[i], est.Pairs[j]
		if a.Set != b.Set {
			return a.Set < b.Set
		}
		if a.Release != b.Release {
			return a.Release < b.Release
		}
		if a.Logged != b.Logged {
			return !a.Logged
		}
		return a.N < b.N
	})
	est.Ratio = quantile(pairRatios(est.Pairs, func(GroupOpPair) bool { return true }), 0.5)
	return &est
}

// heldOut is the share the pairs of the other sets give: what predicts a
// set it was not taken from (NaN: no other set).
func (e *GroupOpEstimate) heldOut(set string) float64 {
	return quantile(pairRatios(e.Pairs, func(q GroupOpPair) bool { return q.Set != set }), 0.5)
}

// predict is a pair's T_N from its T_1 at share k.
func (p GroupOpPair) predict(k float64) float64 {
	return (p.T1 + float64(p.N-1)*k*p.T1) / float64(p.N)
}

// HeldOutErrors are each pair's |error| predicted with the share of the
// other sets (none for a pair whose set is the only one).
func (e *GroupOpEstimate) HeldOutErrors() []float64 {
	var out []float64
	for _, p := range e.Pairs {
		if k := e.heldOut(p.Set); !math.IsNaN(k) {
			out = append(out, math.Abs(p.predict(k)-p.TN)/p.TN)
		}
	}
	return out
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

// releases is the estimate's releases in order.
func (e *GroupOpEstimate) releases() []spec.Version {
	seen := map[spec.Version]bool{}
	var out []spec.Version
	for _, p := range e.Pairs {
		if !seen[p.Release] {
			seen[p.Release] = true
			out = append(out, p.Release)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
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

// WriteGroupOp writes the estimate: each pair, and its T_N predicted from
// its T_1 with the share the other sets give (leave one set out).
func WriteGroupOp(w io.Writer, e *GroupOpEstimate) {
	if e == nil {
		fmt.Fprintf(w, "No run pairs operations issued alone and in a group on one GPU: `launch.group_op` stays nominal.\n\n")
		return
	}
	errs := e.HeldOutErrors()
	fmt.Fprintf(w, "Floors (µs per operation, the median of a run's rows of at most %d KiB) of two ranks sharing one H200, issued alone (T_1) and N to a group (T_N), per set of runs taken together; the share k = (N·T_N − T_1) / ((N − 1)·T_1) that `launch.group_op` is of `launch.stream`; and T_N predicted from T_1 with the share the *other* sets give, (T_1 + (N − 1)·k·T_1) / N. Median share %.3f over %d pairs; held out, median |error| %s, p90 %s.\n\n",
		groupOpMaxBytes>>10, e.Ratio, len(e.Pairs), pct(quantile(errs, 0.5)), pct(quantile(errs, 0.9)))
	fmt.Fprintf(w, "| set of runs | release | logged | N | T_1 | T_N | k | k of the other sets | T_N predicted | error |\n|---|---|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, p := range e.Pairs {
		other, pred, errs := "—", "—", "—"
		if k := e.heldOut(p.Set); !math.IsNaN(k) {
			t := p.predict(k)
			other, pred, errs = fmt.Sprintf("%.3f", k), fmt.Sprintf("%.2f", t), spct((t-p.TN)/p.TN)
		}
		fmt.Fprintf(w, "| %s | %s | %v | %d | %.2f | %.2f | %.3f | %s | %s | %s |\n", p.Set, p.Release, p.Logged, p.N, p.T1, p.TN, p.Ratio, other, pred, errs)
	}
	fmt.Fprintln(w)
}

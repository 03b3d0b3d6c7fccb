package whatif

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// series groups results by everything but the x coordinate.
type series struct {
	name string
	xs   []float64
	ys   []float64
}

func seriesOf(rs []Result, key func(Result) string, x func(Result) float64, y func(Result) float64) []*series {
	m := map[string]*series{}
	var order []string
	for _, r := range rs {
		yv := y(r)
		if yv <= 0 || math.IsNaN(yv) {
			continue
		}
		k := key(r)
		s := m[k]
		if s == nil {
			s = &series{name: k}
			m[k] = s
			order = append(order, k)
		}
		s.xs = append(s.xs, x(r))
		s.ys = append(s.ys, yv)
	}
	out := make([]*series, 0, len(order))
	for _, k := range order {
		s := m[k]
		idx := make([]int, len(s.xs))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return s.xs[idx[a]] < s.xs[idx[b]] })
		xs, ys := make([]float64, len(idx)), make([]float64, len(idx))
		for i, j := range idx {
			xs[i], ys[i] = s.xs[j], s.ys[j]
		}
		s.xs, s.ys = xs, ys
		out = append(out, s)
	}
	return out
}

func configKey(multiRelease bool) func(Result) string {
	return func(r Result) string {
		k := fmt.Sprintf("%s %s %s", r.Op.Func, r.Machine.Label, r.Env.Name)
		if multiRelease {
			k = r.Release.String() + " " + k
		}
		return k
	}
}

// BusBwPlot draws busbw against size, one line per configuration.
func BusBwPlot(rs []Result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "busbw against message size"
	p.X.Label.Text = "size (bytes, nccl-tests convention)"
	p.Y.Label.Text = "busbw (GB/s)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{}
	return p, addLines(p, seriesOf(rs, configKey(multiRelease(rs)), func(r Result) float64 { return float64(r.Size) },
		func(r Result) float64 { return r.BusBw }))
}

// TimeNodesPlot draws time against node count: one line per machine
// family (the same machine at every node count), environment set and
// shown size.
func TimeNodesPlot(rs []Result) (*plot.Plot, error) {
	p := plot.New()
	title, ss := timeNodesSeries(rs)
	p.Title.Text = title
	p.X.Label.Text = "nodes"
	p.Y.Label.Text = "time (µs)"
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	nodes := map[float64]bool{}
	lo, hi := math.Inf(1), 0.0
	for _, sr := range ss {
		for i := range sr.xs {
			nodes[sr.xs[i]] = true
			lo, hi = min(lo, sr.ys[i]), max(hi, sr.ys[i])
		}
	}
	var ticks plot.ConstantTicks
	for n := range nodes {
		ticks = append(ticks, plot.Tick{Value: n, Label: fmt.Sprint(n)})
	}
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
	p.X.Tick.Marker = ticks
	p.Y.Tick.Marker = plot.LogTicks{}
	if err := addLines(p, ss); err != nil {
		return p, err
	}
	// headroom above the data for the legend (about 16 pt per entry of a
	// 6 in plot), so that no line runs under it
	if hi > 0 && lo > 0 && len(ss) > 0 {
		frac := min(0.6, float64(len(ss))*16/(6*72))
		decades := math.Log10(hi / lo)
		if decades < 0.5 {
			decades = 0.5
		}
		p.Y.Max = hi * math.Pow(10, decades*frac/(1-frac)+0.05)
	}
	return p, nil
}

// timeNodesSeries picks at most three sizes (the smallest, one in the
// middle, the largest), so that the legend stays short, and keys each line
// by what varies besides the node count.
func timeNodesSeries(rs []Result) (string, []*series) {
	sizeSet := map[int64]bool{}
	funcs, envs, fams := map[spec.Func]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range rs {
		sizeSet[r.Size] = true
		funcs[r.Op.Func] = true
		envs[r.Env.Name] = true
		fams[r.Machine.Family] = true
	}
	var sizes []int64
	for sz := range sizeSet {
		sizes = append(sizes, sz)
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	if len(sizes) > 3 {
		sizes = []int64{sizes[0], sizes[len(sizes)/2], sizes[len(sizes)-1]}
	}
	shown := map[int64]bool{}
	var names []string
	for _, sz := range sizes {
		shown[sz] = true
		names = append(names, formatSize(sz))
	}
	title := "time against nodes at " + strings.Join(names, ", ")
	mr := multiRelease(rs)
	key := func(r Result) string {
		var k []string
		if mr {
			k = append(k, r.Release.String())
		}
		if len(funcs) > 1 {
			k = append(k, r.Op.Func.String())
		}
		k = append(k, r.Machine.Family)
		if len(envs) > 1 {
			k = append(k, r.Env.Name)
		}
		if len(sizes) > 1 {
			k = append(k, formatSize(r.Size))
		}
		return strings.Join(k, " ")
	}
	t := func(r Result) float64 {
		if !shown[r.Size] {
			return 0
		}
		if r.SimUs > 0 {
			return r.SimUs
		}
		return r.ModelUs
	}
	return title, seriesOf(rs, key, func(r Result) float64 { return float64(r.Machine.Nodes) }, t)
}

func multiRelease(rs []Result) bool {
	for _, r := range rs {
		if r.Release != rs[0].Release {
			return true
		}
	}
	return false
}

func addLines(p *plot.Plot, ss []*series) error {
	if len(ss) == 0 {
		return fmt.Errorf("nothing to plot: no point has a time (the cost model or the simulator gives none here)")
	}
	var args []any
	for _, s := range ss {
		pts := make(plotter.XYs, len(s.xs))
		for i := range s.xs {
			pts[i].X, pts[i].Y = s.xs[i], s.ys[i]
		}
		args = append(args, s.name, pts)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return nil
}

// Save writes a plot as PNG or SVG by the file's extension.
func Save(p *plot.Plot, path string) error {
	return p.Save(10*vg.Inch, 6*vg.Inch, path)
}

// sizeTicks labels powers of two as KiB/MiB/GiB.
type sizeTicks struct{}

func (sizeTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for e := 0; e < 50; e += 2 {
		v := math.Ldexp(1, e)
		if v < min/1.01 || v > max*1.01 {
			continue
		}
		out = append(out, plot.Tick{Value: v, Label: formatSize(int64(v))})
	}
	return out
}

func formatSize(n int64) string {
	for _, u := range []struct {
		s string
		v int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return fmt.Sprintf("%d %s", n/u.v, u.s)
		}
	}
	return fmt.Sprintf("%d B", n)
}

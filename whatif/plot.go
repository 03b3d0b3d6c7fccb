package whatif

import (
	"fmt"
	"math"
	"sort"

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

// TimeNodesPlot draws time against node count, one line per
// (configuration, size).
func TimeNodesPlot(rs []Result) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "time against nodes"
	p.X.Label.Text = "nodes"
	p.Y.Label.Text = "time (µs)"
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{}
	p.Y.Tick.Marker = plot.LogTicks{}
	mr := multiRelease(rs)
	key := func(r Result) string {
		k := fmt.Sprintf("%s %s %s %s %s", r.Op.Func, formatSize(r.Size), preset(r), r.Env.Name, sharp(r))
		if mr {
			k = r.Release.String() + " " + k
		}
		return k
	}
	t := func(r Result) float64 {
		if r.SimUs > 0 {
			return r.SimUs
		}
		return r.ModelUs
	}
	return p, addLines(p, seriesOf(rs, key, func(r Result) float64 { return float64(r.Machine.Nodes) }, t))
}

func preset(r Result) string { return r.Machine.Sys.Name }
func sharp(r Result) string {
	if r.Machine.SHARP {
		return "SHARP"
	}
	return ""
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

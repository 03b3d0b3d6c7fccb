package sim

import (
	"testing"

	"pgregory.net/rapid"
)

// drawPWA draws a piecewise-affine function over m blocks and its values.
func drawPWA(t *rapid.T, m int32, label string) ([]seg, []Time) {
	var f []seg
	vals := make([]Time, m)
	for lo := int32(0); lo < m; {
		hi := min(m, lo+rapid.Int32Range(1, 6).Draw(t, label+" length"))
		// values far apart and slopes small and large, so that lines
		// cross far away too
		v := rapid.Int64Range(-1<<40, 1<<40).Draw(t, label+" value")
		sl := rapid.SampledFrom([]int64{0, 1, -1, 7, -7, 1 << 30, -(1 << 30), 123456789}).Draw(t, label+" slope")
		for q := lo; q < hi; q++ {
			vals[q] = Time(v) + Time(q-lo)*Time(sl)
		}
		f = pwaAppend(f, lo, hi, Time(v), Time(sl))
		lo = hi
	}
	return f, vals
}

func evalPWA(f []seg, q int32) Time {
	k := len(f) - 1
	for f[k].lo > q {
		k--
	}
	return f[k].v + Time(q-f[k].lo)*f[k].s
}

// TestPropPWA: the piecewise-affine operations solveRing runs on give, block
// for block, what the same operations on every block's value give: appending
// (and merging) pieces, the cyclic shifts, and the maximum of up to three
// functions plus constants plus a piecewise-constant duration.
func TestPropPWA(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := rapid.Int32Range(1, 40).Draw(t, "blocks")
		nt := rapid.IntRange(1, 3).Draw(t, "terms")
		var ts []term
		var vals [][]Time
		for j := 0; j < nt; j++ {
			f, v := drawPWA(t, m, "f")
			for q := int32(0); q < m; q++ {
				if evalPWA(f, q) != v[q] {
					t.Fatalf("append: block %d is %d, want %d", q, evalPWA(f, q), v[q])
				}
			}
			switch rapid.IntRange(0, 2).Draw(t, "shift") {
			case 1:
				f = pwaShiftUp(nil, f, m)
				v = append([]Time{v[m-1]}, v[:m-1]...)
			case 2:
				f = pwaShiftDown(nil, f, m)
				v = append(append([]Time{}, v[1:]...), v[0])
			}
			for q := int32(0); q < m; q++ {
				if evalPWA(f, q) != v[q] {
					t.Fatalf("shift: block %d is %d, want %d", q, evalPWA(f, q), v[q])
				}
			}
			add := Time(rapid.Int64Range(0, 1<<30).Draw(t, "add"))
			ts = append(ts, term{f, add})
			w := make([]Time, m)
			for q := range w {
				w[q] = v[q] + add
			}
			vals = append(vals, w)
		}
		var d []dpiece
		dv := make([]Time, m)
		for lo := int32(0); lo < m; {
			hi := min(m, lo+rapid.Int32Range(1, 10).Draw(t, "duration length"))
			x := Time(rapid.Int64Range(0, 1<<20).Draw(t, "duration"))
			d = append(d, dpiece{lo, hi, x})
			for q := lo; q < hi; q++ {
				dv[q] = x
			}
			lo = hi
		}
		g := pwaMax(nil, ts, d, m)
		if g[0].lo != 0 {
			t.Fatalf("the maximum starts at block %d", g[0].lo)
		}
		for q := int32(0); q < m; q++ {
			want := vals[0][q]
			for _, w := range vals[1:] {
				want = max(want, w[q])
			}
			want += dv[q]
			if got := evalPWA(g, q); got != want {
				t.Fatalf("max: block %d is %d, want %d (pieces %v)", q, got, want, g)
			}
		}
	})
}

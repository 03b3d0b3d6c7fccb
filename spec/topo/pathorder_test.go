package topo

import "testing"

// TestPathOrderP2C holds the numbers of PATH_P2C and PATH_PXN at the tags
// that swap them (src/graph/topo.h): 2.27.3 numbers P2C 7 above PXN 6,
// 2.27.5 P2C 6 below PXN 7, and "a > b" between the two follows them.
func TestPathOrderP2C(t *testing.T) {
	p := Params2_22_3()
	Apply2_26_2(&p)
	for _, tc := range []struct {
		tag        string
		apply      func(*Params)
		p2c, pxn   int
		p2cAbove   bool
		afterPXB   PathType
		afterPXNor PathType
	}{
		{"v2.27.3-1", Apply2_27_3, 7, 6, true, PathPXN, PathP2C},
		{"v2.27.5-1", Apply2_27_5, 6, 7, false, PathP2C, PathPHB},
	} {
		tc.apply(&p)
		if got := p.PathCode(PathP2C); got != tc.p2c {
			t.Errorf("%s: PATH_P2C %d, want %d", tc.tag, got, tc.p2c)
		}
		if got := p.PathCode(PathPXN); got != tc.pxn {
			t.Errorf("%s: PATH_PXN %d, want %d", tc.tag, got, tc.pxn)
		}
		if got := p.pathAbove(PathP2C, PathPXN); got != tc.p2cAbove || p.pathAbove(PathPXN, PathP2C) == got {
			t.Errorf("%s: P2C > PXN %v, want %v", tc.tag, got, tc.p2cAbove)
		}
		if got := p.nextPath(PathPXB); got != tc.afterPXB {
			t.Errorf("%s: PXB += 1 is %s, want %s", tc.tag, got, tc.afterPXB)
		}
		if got := p.nextPath(PathPXN); got != tc.afterPXNor {
			t.Errorf("%s: PXN += 1 is %s, want %s", tc.tag, got, tc.afterPXNor)
		}
		if p.pathAbove(PathPHB, PathSYS) || !p.pathAbove(PathSYS, PathPHB) {
			t.Errorf("%s: the other types keep their order", tc.tag)
		}
	}
}

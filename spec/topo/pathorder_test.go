package topo

import (
	"slices"
	"testing"
)

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

// TestPathOrderP2CSearch: ncclTopoGetGpuMinPath, ncclTopoGetLocal and the
// search compare path types by the release's numbers. With NCCL_PXN_C2C=1
// two GB200 trays searched as two hosts give GPUs 1-3 a PXN path to NET 0
// of the same bandwidth (48) as the P2C path to their own NETs. 2.27.3
// numbers PXN (6) below P2C (7): the smallest GPU→NET type is PXN, and
// every GPU's closest NET (equal bandwidth, lower type) is NET 0, so the
// NVLS graph has one head (1 channel). 2.27.5 numbers P2C below PXN: P2C,
// each GPU's own NETs, 4 NVLS channels.
func TestPathOrderP2CSearch(t *testing.T) {
	p := Params2_22_3()
	for _, apply := range []func(*Params){Apply2_23_4, Apply2_24_3, Apply2_25_1, Apply2_26_2} {
		apply(&p)
	}
	o := DefaultOptions()
	o.PXNC2C = true
	gb200 := mustPreset(t, "gb200")
	for _, tc := range []struct {
		tag      string
		apply    func(*Params)
		minInter PathType
		nvls     int
		local    []int // each GPU's NET of channel 0 (ncclTopoGetLocalNet)
	}{
		{"v2.27.3-1", Apply2_27_3, PathPXN, 1, []int{0, 0, 0, 0}},
		{"v2.27.5-1", Apply2_27_5, PathP2C, 4, []int{0, 1, 2, 3}},
	} {
		tc.apply(&p)
		r := search(t, nTimes(gb200, 2), p, o)
		if lo, _ := gpuMinMaxPath(&p, r.Nodes[0].System, NET); lo != tc.minInter {
			t.Errorf("%s: smallest GPU→NET path %s, want %s", tc.tag, lo, tc.minInter)
		}
		if got := r.Graphs[GraphNVLS].NChannels; got != tc.nvls {
			t.Errorf("%s: NVLS graph %d channel(s), want %d", tc.tag, got, tc.nvls)
		}
		sys := r.Nodes[0].System
		ps := &pathState{p: p, o: o}
		var local []int
		for _, g := range sys.Nodes[GPU] {
			n, err := ps.localNet(sys, g, 0)
			if err != nil {
				t.Fatal(err)
			}
			local = append(local, n.Index)
		}
		if !slices.Equal(local, tc.local) {
			t.Errorf("%s: the GPUs' channel-0 NETs %v, want %v", tc.tag, local, tc.local)
		}
	}
}

package topo

import (
	"slices"
	"testing"
)

// fourNICsPerGPU has one GPU and four NICs behind each of two PCIe
// switches.
func fourNICsPerGPU() NodeSpec {
	spec := NodeSpec{Name: "4nic", CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "skl", Sockets: 1,
		Switches: []SwitchSpec{{NUMA: 0, PCIGen: 4, Parent: -1}, {NUMA: 0, PCIGen: 4, Parent: -1}},
		GPUs: []GPUSpec{{Dev: 0, SM: 80, PCIGen: 4, PCIWidth: 16, NUMA: 0, Switch: 0},
			{Dev: 1, SM: 80, PCIGen: 4, PCIWidth: 16, NUMA: 0, Switch: 1}}}
	for i := range 8 {
		spec.NICs = append(spec.NICs, NICSpec{SpeedMbps: 200000, Switch: i / 4, GDR: true, PCIGen: 4})
	}
	return spec
}

// TestLocalNetMask18: with four NICs per GPU, 2.18.5 starts GPU 1 (device
// 1, mirrored over four NICs: 2) on its third NIC; 2.18.3 goes round the
// mask of its closest NICs from the lowest id. 2.18.3's ncclTopoSelectNets
// rotates GPU 1's NICs by its device number; 2.18.5's lists its local NETs
// in channel order. Each NIC's local GPU is the GPU behind its switch in
// both.
func TestLocalNetMask18(t *testing.T) {
	p185 := Params2_22_3()
	p183 := p185
	Apply2_18_3(&p183)
	cases := []struct {
		name    string
		p       Params
		nets    [2][2]int // GPU, channel -> NET index
		select1 []int     // selectNets(PIX, GPU 1)
	}{
		{"2.18.5", p185, [2][2]int{{0, 1}, {6, 7}}, []int{6, 7, 4, 5}},
		{"2.18.3", p183, [2][2]int{{0, 1}, {4, 5}}, []int{5, 6, 7, 4}},
	}
	for _, tc := range cases {
		s := pathsOf(t, fourNICsPerGPU(), tc.p, DefaultOptions())
		ps := &pathState{p: tc.p, o: DefaultOptions()}
		for g := range 2 {
			for c := range 2 {
				n, err := ps.localNet(s, s.Nodes[GPU][g], c)
				if err != nil {
					t.Fatal(err)
				}
				if n.Index != tc.nets[g][c] {
					t.Errorf("%s: GPU %d channel %d NET %d, want %d", tc.name, g, c, n.Index, tc.nets[g][c])
				}
			}
		}
		for i, n := range s.Nodes[NET] {
			if want := i / 4; n.LocalGPU != want {
				t.Errorf("%s: NET %d local GPU %d, want %d", tc.name, i, n.LocalGPU, want)
			}
		}
		x := newSearcher(ps, s)
		got, err := x.selectNets(PathPIX, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.select1) {
			t.Errorf("%s: selectNets(PIX, GPU 1) = %v, want %v", tc.name, got, tc.select1)
		}
	}
}

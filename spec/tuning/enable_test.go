package tuning

import (
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestAlgoEnable: the support-driven disables, the hard-set CollNet rescue
// of 2.18–2.23 and 2.18.x's Ring kept for functions other than AllReduce.
func TestAlgoEnable(t *testing.T) {
	c := Base2_22_3()
	collNetOnly := DefaultEnable()
	for f := range nccl.NumFuncs {
		for a := range nccl.NumAlgos {
			if a != int(nccl.CollNetDirect) && a != int(nccl.CollNetChain) {
				collNetOnly.Algo[f][a] = 0
			}
		}
	}
	in := Input{NNodes: 1, Enable: collNetOnly}
	e := c.AlgoEnable(&in)
	if !e.Rescued[nccl.AllReduce] || e.Algo[nccl.AllReduce][nccl.Ring] != 1 || e.Algo[nccl.AllReduce][nccl.Tree] != 1 {
		t.Errorf("hard-set CollNet without CollNet: rescued %v, Ring %d Tree %d", e.Rescued, e.Algo[nccl.AllReduce][nccl.Ring], e.Algo[nccl.AllReduce][nccl.Tree])
	}
	if w := e.Why[nccl.AllReduce][nccl.CollNetDirect]; w != "CollNet is disabled" {
		t.Errorf("CollNetDirect: %q", w)
	}
	if w := e.Why[nccl.AllReduce][nccl.NVLSTree]; w != "NCCL_ALGO disables NVLSTree" {
		t.Errorf("NVLSTree: %q (NCCL_ALGO turned it off first)", w)
	}
	c.HardSetCollNetRescue = false
	if e := c.AlgoEnable(&in); e.Rescued[nccl.AllReduce] || e.Algo[nccl.AllReduce][nccl.Ring] != 0 {
		t.Errorf("no rescue: rescued %v, Ring %d", e.Rescued, e.Algo[nccl.AllReduce][nccl.Ring])
	}
	treeOnly := DefaultEnable()
	for f := range nccl.NumFuncs {
		treeOnly.Algo[f][nccl.Ring] = 0
	}
	in = Input{NNodes: 2, CollNetEnable: true, NVSwitch: true, Enable: treeOnly}
	c.RingKeptNonAllReduce = true
	e = c.AlgoEnable(&in)
	if !e.CellsOff(nccl.AllReduce, nccl.Ring) || e.CellsOff(nccl.Broadcast, nccl.Ring) || e.CellsOff(nccl.AllReduce, nccl.NVLSTree) {
		t.Errorf("Ring kept: AllReduce off %v, Broadcast off %v, NVLSTree off %v", e.CellsOff(nccl.AllReduce, nccl.Ring), e.CellsOff(nccl.Broadcast, nccl.Ring), e.CellsOff(nccl.AllReduce, nccl.NVLSTree))
	}
}

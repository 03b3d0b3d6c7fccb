package tuning

import (
	"testing"

	"github.com/gatesim/gatesim/internal/benchcpu"
	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
)

// BenchmarkTuningChooseOp is one per-operation choice on the 2 × H200 model
// (target ≤ 1 µs).
func BenchmarkTuningChooseOp(b *testing.B) {
	m := tuningModel(b, tuningH200x2Input(), nccl.V2_28_9)
	op := Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 1 << 18, DataType: nccl.Float32}}
	b.ReportAllocs()
	var cpu benchcpu.Timer
	cpu.Start()
	for b.Loop() {
		if _, err := ChooseOp(m, op); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, 0)
}

// BenchmarkTuningModel1024x8 builds the model of a 1,024-node × 8-GPU
// communicator (ring 8 × 48 crossNic 2, tree pattern 3, NVLS and CollNet).
func BenchmarkTuningModel1024x8(b *testing.B) {
	in := tuningMultiNodeInput(1024, 8)
	tu := tuningRelease(b, nccl.V2_28_9)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildModel(in, tu); err != nil {
			b.Fatal(err)
		}
	}
}

// tuningMultiNodeInput is nodes × 8 H100/H200 with 8 × 400G NICs and an
// Intel CPU, graphs as nccl-tuning.md §6.8 predicts them: ring 8 × 48/48
// crossNic 2 NVL/PIX, tree pattern 3 8 × 48/48, NVLS 8 × 40/48, CollNet on
// over GPU Direct RDMA (as on the SHARP presets).
func tuningMultiNodeInput(nodes, ppn int) Input {
	ring := &topo.Graph{Pattern: topo.PatternRing, CrossNic: 2, NChannels: 8, BwIntra: 48, BwInter: 48, TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	tree := &topo.Graph{ID: 1, Pattern: topo.PatternTree, NChannels: 8, BwIntra: 48, BwInter: 48, TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	chain := &topo.Graph{ID: 2, Pattern: topo.PatternTree, CollNet: true, NChannels: 8, BwIntra: 48, BwInter: 48, TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	direct := &topo.Graph{ID: 3, Pattern: topo.PatternCollNetDirect, CollNet: true, NChannels: 8, BwIntra: 48, BwInter: 48, TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	nvls := &topo.Graph{ID: 4, Pattern: topo.PatternNVLS, NChannels: 8, BwIntra: 40, BwInter: 48, TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	return Input{NRanks: nodes * ppn, NNodes: nodes, MaxLocalRanks: ppn, LocalRanks: ppn, MinCompCap: 90, MaxCompCap: 90,
		CPUArch: ArchX86, CPUVendor: VendorIntel, Graphs: Graphs(ring, tree, chain, direct, nvls),
		MaxTreePattern: topo.PatternTree, CollNetEnable: true, CollNetChainSupport: true, CollNetHeads: 8,
		CollNetAllGather: true, CollNetReduceScatter: true, NVSwitch: true, Enable: DefaultEnable(), CUDARuntime: 12080,
		NChannels: 16, NVLSChannels: 16, NVLSSupport: true, CollNetDirectHeads: 8, CollNetGDR: true}
}

// BenchmarkTuningChooseGroup8 is a group of eight collectives (two bins
// with aggregation, channel packing).
func BenchmarkTuningChooseGroup8(b *testing.B) {
	m := tuningModel(b, tuningH200x2Input(), nccl.V2_28_9)
	var ops []Call
	for i := range 8 {
		dt := nccl.Float32
		if i%2 == 1 {
			dt = nccl.Bfloat16
		}
		ops = append(ops, Call{Op: nccl.Op{Func: nccl.AllReduce, Count: int64(1024) << (2 * i), DataType: dt}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ChooseGroup(m, ops); err != nil {
			b.Fatal(err)
		}
	}
}

package spec

import (
	"testing"

	"github.com/gatesim/gatesim/internal/benchcpu"
)

// BenchmarkRequest measures one whole request, as the oracle serves it:
// Init (every init gate, with its Trace) plus Select (every per-operation
// gate and the Decision), for the design machine and a 128-node cluster.
func BenchmarkRequest(b *testing.B) {
	for _, c := range []struct {
		name string
		sys  *System
		env  Env
	}{
		{"v100x4", mustPreset("v100x4", PresetOptions{}), Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_ENABLE": "1", "NCCL_COLLNET_ENABLE": "1"}},
		{"dgx-h100x128+sharp", mustPreset("dgx-h100", PresetOptions{Nodes: 128, SHARP: true}), Env{"NCCL_COLLNET_ENABLE": "1"}},
	} {
		for _, v := range []Version{V2_22_3, V2_28_9} {
			rs := MustLoad(v)
			op, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
			b.Run(c.name+"/"+v.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					comm, err := Init(rs, c.sys, c.env)
					if err != nil {
						b.Fatal(err)
					}
					if _, _, err := comm.Select(op); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRequestCached is BenchmarkRequest with a Cache, as the oracle
// and whatif run: after the first request the topology search is reused.
func BenchmarkRequestCached(b *testing.B) {
	for _, c := range []struct {
		name string
		sys  *System
	}{
		{"v100x4", mustPreset("v100x4", PresetOptions{})},
		{"dgx-h100x128+sharp", mustPreset("dgx-h100", PresetOptions{Nodes: 128, SHARP: true})},
	} {
		rs := MustLoad(V2_28_9)
		cache := NewCache(0)
		op, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				comm, err := cache.Init(rs, c.sys, Env{"NCCL_COLLNET_ENABLE": "1"})
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := comm.Select(op); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSelect measures the per-operation part alone on a built
// communicator.
func BenchmarkSelect(b *testing.B) {
	rs := MustLoad(V2_28_9)
	comm, _ := Init(rs, mustPreset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true}), Env{"NCCL_COLLNET_ENABLE": "1"})
	op, _ := OpFromBytes(AllReduce, 1<<20, Bfloat16, Sum, 0)
	b.ReportAllocs()
	var cpu benchcpu.Timer
	cpu.Start()
	for b.Loop() {
		if _, _, err := comm.Select(op); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, 0)
}

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		MustLoad(V2_28_9)
	}
}

func mustPreset(name string, o PresetOptions) *System {
	s, err := Preset(name, o)
	if err != nil {
		panic(err)
	}
	return s
}

// BenchmarkSelectOp is Select without the init trace: the oracle's path
// with its traces off, deciding only (the operation's verdicts and its
// cost table are made when read, and this reads neither).
func BenchmarkSelectOp(b *testing.B) { benchSelectOp(b, false) }

// BenchmarkSelectOpTraced is SelectOp recording the operation's verdicts
// in the one walk: the oracle's path with its traces on (its default).
func BenchmarkSelectOpTraced(b *testing.B) { benchSelectOp(b, true) }

func benchSelectOp(b *testing.B, withTrace bool) {
	rs := MustLoad(V2_28_9)
	comm, _ := Init(rs, mustPreset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true}), Env{"NCCL_COLLNET_ENABLE": "1"})
	op, _ := OpFromBytes(AllReduce, 1<<20, Bfloat16, Sum, 0)
	b.ReportAllocs()
	var cpu benchcpu.Timer
	cpu.Start()
	for b.Loop() {
		if _, _, err := comm.SelectOp(op, withTrace); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report(b, 0)
}

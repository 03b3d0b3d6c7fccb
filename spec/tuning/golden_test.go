package tuning

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
)

// Golden scenarios: the full model output (every line ncclTopoTuneModel
// prints, then the per-operation lines of a size sweep and one group) for a
// set of communicators built directly as topo.Graph values, over every
// modelled release, with identical outputs merged into release ranges. These
// are the model's own output — a regression record for review, not truth;
// the truth checks are the [LOG] tests and the public and captured logs.

type tuningScenario struct {
	name, doc string
	in        Input
}

func tuningG(pattern topo.Pattern, nCh int, intra, inter float32, ti, te topo.PathType, same bool) *topo.Graph {
	return &topo.Graph{Pattern: pattern, NChannels: nCh, BwIntra: intra, BwInter: inter, TypeIntra: ti, TypeInter: te, SameChannels: same}
}

func tuningScenarios() []tuningScenario {
	var out []tuningScenario
	add := func(name, doc string, in Input) { out = append(out, tuningScenario{name, doc, in}) }

	add("h200x2", "2 × H200 through NVSwitch, NVLS off (the project's machine; graphs as logged)", tuningH200x2Input())

	in := tuningH200x2Input()
	in.Graphs[nccl.NVLS] = tuningG(topo.PatternNVLS, 2, 60, 60, topo.PathNVL, topo.PathPIX, false)
	in.Graphs[nccl.NVLSTree] = in.Graphs[nccl.NVLS]
	in.NVLSSupport, in.NVLSChannels = true, 16
	add("h200x2-nvls", "2 × H200 with NVLS allowed: NVLS graph 2 × 60/60, 16 NVLS channels (predicted, not logged)", in)

	in = tuningH200x2Input()
	in.NRanks, in.MaxLocalRanks, in.LocalRanks = 8, 8, 8
	in.Graphs = Graphs(tuningG(topo.PatternRing, 12, 30, 30, topo.PathNVL, topo.PathPIX, true),
		tuningG(topo.PatternBalancedTree, 12, 30, 30, topo.PathNVL, topo.PathPIX, true), nil, nil,
		tuningG(topo.PatternNVLS, 8, 40, 60, topo.PathNVL, topo.PathPIX, false))
	in.NVLSSupport, in.NVLSChannels = true, 16
	add("hgx-h100x8", "8 × H100 SXM, NVSwitch, NVLS on: ring/tree 12 × 30, NVLS 8 × 40/60 (nccl-tuning.md §6.8)", in)

	in = tuningH200x2Input()
	in.NRanks, in.MaxLocalRanks, in.LocalRanks, in.MinCompCap, in.MaxCompCap = 8, 8, 8, 80, 80
	in.CPUVendor = VendorAMD
	in.Graphs = Graphs(tuningG(topo.PatternRing, 12, 20, 20, topo.PathNVL, topo.PathPIX, true),
		tuningG(topo.PatternBalancedTree, 12, 20, 20, topo.PathNVL, topo.PathPIX, true), nil, nil, nil)
	add("dgx-a100x8", "8 × A100 (sm80), NVSwitch, AMD CPUs: ring/tree 12 × 20", in)

	in = tuningMultiNodeInput(2, 8)
	in.CollNetEnable, in.NVLSSupport, in.NVLSChannels = false, false, 0
	in.Graphs = Graphs(in.Graphs[nccl.Ring], in.Graphs[nccl.Tree], nil, nil, nil)
	add("h100-2x8", "2 nodes × 8 H100, 8 × 400G IB, Intel: ring 8 × 48 crossNic 2, tree pattern 3 (§6.8 prediction)", in)

	in = tuningMultiNodeInput(16, 8)
	in.MinCompCap, in.MaxCompCap, in.CPUVendor = 80, 80, VendorAMD
	in.CollNetEnable, in.NVLSSupport, in.NVLSChannels = false, false, 0
	in.Graphs = Graphs(tuningG(topo.PatternRing, 8, 24, 24, topo.PathNVL, topo.PathPIX, false),
		tuningG(topo.PatternTree, 8, 24, 24, topo.PathNVL, topo.PathPIX, false), nil, nil, nil)
	add("a100-16x8-amd", "16 nodes × 8 A100, 200G HDR, AMD CPUs (N4 scale, AMD LL row)", in)

	in = tuningMultiNodeInput(2, 8)
	add("h100-2x8-collnet", "2 nodes × 8 H100 with CollNet (SHARP) and NVLS: chain, direct and NVLS graphs", in)

	in = tuningMultiNodeInput(4, 1)
	in.Graphs = Graphs(tuningG(topo.PatternRing, 2, 24, 24, topo.PathLOC, topo.PathPIX, true),
		tuningG(topo.PatternTree, 2, 24, 24, topo.PathLOC, topo.PathPIX, true), nil, nil, nil)
	in.MaxTreePattern = topo.PatternTree
	in.CollNetEnable, in.NVLSSupport, in.NVLSChannels, in.NVSwitch = false, false, 0, false
	in.NChannels = 4
	add("pat-4x1", "4 nodes × 1 GPU: PAT is on (one GPU per node, HOST network)", in)

	in = tuningH200x2Input()
	in.NRanks, in.MaxLocalRanks, in.LocalRanks, in.MinCompCap, in.MaxCompCap = 4, 4, 4, 70, 70
	in.CPUArch, in.CPUVendor, in.NVSwitch = ArchPower, VendorOther, false
	in.Graphs = Graphs(tuningG(topo.PatternRing, 4, 20, 20, topo.PathPHB, topo.PathPIX, true),
		tuningG(topo.PatternBalancedTree, 4, 20, 20, topo.PathPHB, topo.PathPIX, true), nil, nil, nil)
	in.NChannels = 8
	add("power-v100x4", "4 × V100 on POWER over PCIe host bridges: the POWER Tree/Simple latency patch, no LL128", in)

	in = tuningH200x2Input()
	for f := range nccl.NumFuncs {
		in.Enable.Algo[f] = [nccl.NumAlgos]int8{}
		in.Enable.Algo[f][nccl.Tree] = 1
		in.Enable.Proto[f][nccl.LL128] = 0
	}
	algo, proto, nt, th := "Tree", "^LL128", int64(256), "4 4 32 4 4 32"
	in.Algo, in.Proto, in.NThreads, in.ThreadThresholds = &algo, &proto, &nt, &th
	add("h200x2-env", "2 × H200 with NCCL_ALGO=Tree NCCL_PROTO=^LL128 NCCL_NTHREADS=256 NCCL_THREAD_THRESHOLDS='4 4 32 4 4 32'", in)
	return out
}

// tuningScenarioOutput prints everything the scenario produces for one release.
func tuningScenarioOutput(t *testing.T, in Input, tu *Consts) string {
	var b strings.Builder
	m, err := BuildModel(in, tu)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	for _, l := range m.Log {
		fmt.Fprintf(&b, "%s %s %s\n", l.Level, l.Subsys, strings.ReplaceAll(l.Text, "\n", "\n    "))
	}
	for _, f := range nccl.Funcs {
		for _, sz := range []int64{8, 4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20} {
			op := opOfBytes(t, f, sz, nccl.Float32)
			c, err := ChooseOp(m, Call{Op: op, NVLSOK: in.NVLSSupport, CollNetOK: in.CollNetEnable})
			if err != nil {
				fmt.Fprintf(&b, "%s %d: error: %v\n", f, sz, err)
				continue
			}
			fmt.Fprintf(&b, "%-13s %10d  %s/%s nc %d nt %d time %.3f  %s", f, sz, c.Algo, c.Proto, c.NChannels, c.NThreads, c.TimeUs, c.Line)
			if ck, err := m.OpChunk(&c); err != nil {
				fmt.Fprintf(&b, " chunk error: %v", err)
			} else if ck.Set() {
				fmt.Fprintf(&b, " chunk %d/%d/%d", ck.Lo, ck.Mid, ck.Hi)
			}
			if c.Err != nil {
				fmt.Fprintf(&b, "WARN %s -> %s", c.Warn, c.Err.Result)
			}
			b.WriteString("\n")
		}
	}
	g, err := ChooseGroup(m, []Call{
		{Op: nccl.Op{Func: nccl.AllReduce, Count: 1 << 10, DataType: nccl.Float32}},
		{Op: nccl.Op{Func: nccl.AllReduce, Count: 3 << 10, DataType: nccl.Float32}},
		{Op: nccl.Op{Func: nccl.AllGather, Count: 1 << 16, DataType: nccl.Bfloat16}},
		{Op: nccl.Op{Func: nccl.ReduceScatter, Count: 1 << 20, DataType: nccl.Float32}},
	})
	if err != nil {
		fmt.Fprintf(&b, "group: error: %v\n", err)
	} else {
		fmt.Fprintf(&b, "group: plans %d\n", g.Plans)
		for _, l := range g.Lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		if g.Err != nil {
			fmt.Fprintf(&b, "  -> %s\n", g.Err.Result)
		}
	}
	return b.String()
}

func TestTuningScenariosGolden(t *testing.T) {
	rels := tuningReleases(t)
	for _, sc := range tuningScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			var b strings.Builder
			fmt.Fprintf(&b, "# %s\n# the model's output, not an observation (go test ./spec/tuning -run TuningScenariosGolden -update)\n", sc.doc)
			outs := make([]string, len(rels))
			for i, r := range rels {
				outs[i] = tuningScenarioOutput(t, sc.in, r.tu)
			}
			for i := 0; i < len(rels); {
				j := i
				for j+1 < len(rels) && outs[j+1] == outs[i] {
					j++
				}
				names := rels[i].v.String()
				if j > i {
					names += " = " + rels[j].v.String()
				}
				fmt.Fprintf(&b, "\n## %s\n%s", names, outs[i])
				i = j + 1
			}
			golden(t, filepath.Join("testdata", "golden", sc.name+".txt"), b.String())
		})
	}
}

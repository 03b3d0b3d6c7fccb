package tuning

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
	"pgregory.net/rapid"
)

// The project's GPU machine: 2 × H200 (sm90) through an NVSwitch node, one
// host, NVLS disabled. Graphs as NCCL 2.28.9 logged them there
// (nccl-tuning.md §6.8 [LOG]): ring 12 × 30/30 NVL/PIX sameChannels 1, tree
// pattern 1 (BALANCED_TREE) 12 × 60/60 NVL/PIX sameChannels 0; the
// communicator has 24 channels.
func tuningH200x2Input() Input {
	ring := &topo.Graph{ID: 0, Pattern: topo.PatternRing, NChannels: 12, BwIntra: 30, BwInter: 30,
		TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX, SameChannels: true}
	tree := &topo.Graph{ID: 1, Pattern: topo.PatternBalancedTree, NChannels: 12, BwIntra: 60, BwInter: 60,
		TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	return Input{NRanks: 2, NNodes: 1, MaxLocalRanks: 2, LocalRanks: 2, MinCompCap: 90, MaxCompCap: 90,
		CPUArch: ArchX86, CPUVendor: VendorIntel, Graphs: Graphs(ring, tree, nil, nil, nil),
		MaxTreePattern: topo.PatternBalancedTree, NVSwitch: true, Enable: DefaultEnable(), CUDARuntime: 13000,
		NChannels: 24}
}

// tuningForceAlgo is NCCL_ALGO=<a> as the gate engine parses it: only a
// enabled, for every function, and the variable set.
func tuningForceAlgo(in *Input, a Algo) {
	for f := range NumFuncs {
		in.Enable.Algo[f] = [NumAlgos]int8{}
		in.Enable.Algo[f][a] = 1
	}
	s := a.String()
	in.Algo = &s
}

func tuningModel(t tuningTB, in Input, v nccl.Version) *Model {
	t.Helper()
	m, err := BuildModel(in, tuningRelease(t, v))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tuningCell prints one table cell as NCCL does ("%8.1f/%6.1f").
func tuningCell(m *Model, f Func, a Algo, p Proto) string {
	return fmt.Sprintf("%8.1f/%6.1f", m.Latencies[f][a][p], m.Bandwidths[f][a][p])
}

// TestTuningH200x2Logged checks the model against what real NCCL 2.28.9
// printed on 2 × H200 (nccl-tuning.md, the values marked [LOG]).
func TestTuningH200x2Logged(t *testing.T) {
	for _, v := range []nccl.Version{nccl.V2_28_3, nccl.V2_28_9} {
		m := tuningModel(t, tuningH200x2Input(), v)
		// §3.4: CollNetDirect AG/RS/AR cells print their latency with bandwidth 0.
		for _, f := range []Func{AllGather, ReduceScatter, AllReduce} {
			got := tuningCell(m, f, CollNetDirect, LL) + "|" + tuningCell(m, f, CollNetDirect, LL128) + "|" + tuningCell(m, f, CollNetDirect, Simple)
			if want := "     0.8/   0.0|     0.8/   0.0|    39.2/   0.0"; got != want {
				t.Errorf("%s %s CollNetDirect: %q, logged %q", v, f, got, want)
			}
		}
		got := tuningCell(m, AllReduce, CollNetChain, LL) + "|" + tuningCell(m, AllReduce, CollNetChain, LL128) + "|" + tuningCell(m, AllReduce, CollNetChain, Simple)
		if want := "     0.0/   0.0|     0.0/   0.0|    35.6/   0.0"; got != want {
			t.Errorf("%s AllReduce CollNetChain: %q, logged %q", v, got, want)
		}
		// §3.4: NVLS and NVLSTree are all 0.0/0.0 (the NVLS graph has no channel).
		for _, f := range Funcs {
			for _, a := range []Algo{NVLS, NVLSTree} {
				if c := tuningCell(m, f, a, Simple); c != "     0.0/   0.0" {
					t.Errorf("%s %s %s: %q", v, f, a, c)
				}
			}
		}
		// §3.8
		if got := m.ThreadThresholdsLine(); got != "threadThresholds 8/8/64 | 16/8/64 | 512 | 512" {
			t.Errorf("%s: %q", v, got)
		}
		// §3.1: every config but net_socket prints 512 for Ring/Simple.
		if m.MaxThreads[Ring][Simple] != 512 || m.MaxThreads[Tree][LL128] != 640 {
			t.Errorf("%s: max threads %v", v, m.MaxThreads)
		}
		// §7 note: Tree AllReduce Simple latency 16.4 µs on 2 GPUs.
		if got := fmt.Sprintf("%.1f", m.Latencies[AllReduce][Tree][Simple]); got != "16.4" {
			t.Errorf("%s Tree AR Simple latency %s, logged 16.4", v, got)
		}
	}
	// 2.22.3's Tree/Simple latency on the same graphs: 56 µs (nccl-tuning.md §7).
	m := tuningModel(t, tuningH200x2Input(), nccl.V2_22_3)
	if got := fmt.Sprintf("%.1f", m.Latencies[AllReduce][Tree][Simple]); got != "56.0" {
		t.Errorf("2.22.3 Tree AR Simple latency %s, want 56.0", got)
	}
}

// TestTuningH200x2Variants: the other logged configurations of the note.
func TestTuningH200x2Variants(t *testing.T) {
	// net_socket: NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1, the ring goes over
	// the socket network, 1 channel × 1.2 GB/s, typeInter PHB: Ring/Simple
	// prints 256 threads and LL128 is off everywhere (§3.1, §3.7 [LOG]).
	in := tuningH200x2Input()
	ring := *in.Graphs[Ring]
	ring.NChannels, ring.BwIntra, ring.BwInter, ring.TypeIntra, ring.TypeInter = 1, 1.2, 1.2, topo.PathPHB, topo.PathPHB
	tree := *in.Graphs[Tree]
	tree.NChannels, tree.BwIntra, tree.BwInter, tree.TypeIntra, tree.TypeInter = 1, 1.2, 1.2, topo.PathPHB, topo.PathPHB
	in.Graphs = Graphs(&ring, &tree, nil, nil, nil)
	in.NChannels = 2
	m := tuningModel(t, in, nccl.V2_28_9)
	if m.MaxThreads[Ring][Simple] != 256 {
		t.Errorf("net_socket Ring/Simple threads %d, logged 256", m.MaxThreads[Ring][Simple])
	}
	for _, f := range Funcs {
		for _, a := range []Algo{Tree, Ring} {
			if m.Bandwidths[f][a][LL128] != 0 {
				t.Errorf("net_socket %s %s LL128 bandwidth %v, logged 0", f, a, m.Bandwidths[f][a][LL128])
			}
			if z := m.Zeroed[f][a][LL128]; f == AllReduce || a == Ring {
				if z.Rule != RuleProto {
					t.Errorf("net_socket %s %s LL128: reason %v, want %s", f, a, z, RuleProto)
				}
			}
		}
	}

	// maxch2: NCCL_MAX_NCHANNELS=2 leaves the table unchanged (it uses the
	// graphs' channel counts), only the communicator has 2 channels (§2 [LOG]).
	base := tuningModel(t, tuningH200x2Input(), nccl.V2_28_9)
	in2 := tuningH200x2Input()
	in2.NChannels = 2
	m2 := tuningModel(t, in2, nccl.V2_28_9)
	if strings.Join(base.TableLines(), "\n") != strings.Join(m2.TableLines(), "\n") {
		t.Error("NCCL_MAX_NCHANNELS changed the table")
	}
	op, err := ChooseOp(m2, Call{Op: Op{Func: AllReduce, Count: 1 << 20, DataType: Float32}})
	if err != nil {
		t.Fatal(err)
	}
	if op.ChannelHi != 1 {
		t.Errorf("maxch2: %s", op.Line)
	}
}

// TestTuningSingleRank: nRanks 1 stops after the thread counts.
func TestTuningSingleRank(t *testing.T) {
	in := tuningH200x2Input()
	in.NRanks, in.MaxLocalRanks, in.LocalRanks = 1, 1, 1
	in.Graphs = [NumAlgos]*topo.Graph{}
	m := tuningModel(t, in, nccl.V2_28_9)
	if !m.SingleRank || m.TableLines() != nil || m.ThreadThresholdsLine() != "" {
		t.Fatal("nRanks 1 must not print")
	}
	op, err := ChooseOp(m, Call{Op: Op{Func: AllReduce, Count: 10, DataType: Float32}})
	if err != nil || !op.OneRank || op.Line != "" {
		t.Fatalf("nRanks 1: %+v %v", op, err)
	}
}

func TestTuningInputErrors(t *testing.T) {
	tu := tuningRelease(t, nccl.V2_28_9)
	for name, mod := range map[string]func(*Input){
		"ranks":   func(in *Input) { in.NRanks = 0 },
		"nodes":   func(in *Input) { in.NNodes = 3 },
		"cc":      func(in *Input) { in.MaxCompCap = 80 },
		"no ring": func(in *Input) { in.Graphs[Ring] = nil },
		"empty tree": func(in *Input) {
			g := *in.Graphs[Tree]
			g.NChannels = 0
			in.Graphs[Tree] = &g
			in.Graphs[PAT] = &g
		},
		"channels": func(in *Input) { in.NChannels = 65 },
		"bw":       func(in *Input) { g := *in.Graphs[Ring]; g.BwIntra = float32(math.NaN()); in.Graphs[Ring] = &g },
	} {
		in := tuningH200x2Input()
		mod(&in)
		if _, err := BuildModel(in, tu); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), "expected") {
			t.Errorf("%s: error %q does not say what was expected", name, err)
		}
	}
	if _, err := BuildModel(tuningH200x2Input(), nil); err == nil {
		t.Error("nil Consts accepted")
	}
	in := tuningH200x2Input()
	in.TunerConstants = []ConstantEdit{{Path: "hwLatencies[NET][Ring][Simple]", Value: 1}}
	if _, err := BuildModel(in, tuningRelease(t, nccl.V2_22_3)); err == nil {
		t.Error("2.22.3's tuner cannot edit constants")
	}
}

// TestTuningEnableAndProto covers the enable stage: NCCL_ALGO / NCCL_PROTO as
// parsed, the support-driven disables and the LL128 rule.
func TestTuningEnableAndProto(t *testing.T) {
	in := tuningH200x2Input()
	// NCCL_ALGO=Tree (every function): Ring off everywhere.
	tuningForceAlgo(&in, Tree)
	m := tuningModel(t, in, nccl.V2_28_9)
	for _, f := range Funcs {
		for p := range NumProtos {
			if m.Bandwidths[f][Ring][p] != 0 || m.Zeroed[f][Ring][p].Rule != RuleEnable {
				t.Errorf("%s Ring/%s: %v %v", f, Proto(p), m.Bandwidths[f][Ring][p], m.Zeroed[f][Ring][p])
			}
		}
	}
	if m.Bandwidths[AllReduce][Tree][Simple] == 0 {
		t.Error("Tree AllReduce disabled")
	}
	// The matrix is printed (user intent, before support disables).
	found := false
	for _, l := range m.Log {
		if strings.HasPrefix(l.Text, "Enabled NCCL Func/Proto/Algo Matrix:\n     Function |       LL     LL128    Simple   |          Tree  ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no matrix print in %v", m.Log)
	}
	// 2.22.3 restores Ring for functions left with nothing (G-TUNE-RINGRESTORE-1).
	m22 := tuningModel(t, in, nccl.V2_22_3)
	for _, f := range []Func{Broadcast, Reduce, AllGather, ReduceScatter} {
		if m22.Bandwidths[f][Ring][Simple] == 0 || !m22.Restored[f][Simple] {
			t.Errorf("2.22.3 %s Ring/Simple not restored", f)
		}
	}
	if m22.Restored[AllReduce][Simple] || m22.Bandwidths[AllReduce][Ring][Simple] != 0 {
		t.Error("2.22.3 AllReduce has Tree, Ring must stay off")
	}

	// NCCL_PROTO=LL128 forced on (1) bypasses the LL128 rule even on PHB.
	in = tuningH200x2Input()
	g := *in.Graphs[Ring]
	g.TypeIntra = topo.PathPHB
	in.Graphs[Ring] = &g
	m = tuningModel(t, in, nccl.V2_28_9)
	if m.Bandwidths[AllReduce][Ring][LL128] != 0 {
		t.Error("LL128 auto must be off over PHB")
	}
	for f := range NumFuncs {
		in.Enable.Proto[f][LL128] = 1
	}
	m = tuningModel(t, in, nccl.V2_28_9)
	if m.Bandwidths[AllReduce][Ring][LL128] == 0 {
		t.Error("LL128 forced on must bypass the auto rule")
	}

	// Mixed compute capabilities: LL128 auto off in 2.28.9, on in 2.30.7 if ≥ sm90.
	in = tuningH200x2Input()
	in.MaxCompCap = 100
	if m := tuningModel(t, in, nccl.V2_28_9); m.Bandwidths[AllReduce][Ring][LL128] != 0 {
		t.Error("2.28.9 LL128 with mixed sm90/sm100 must be off")
	}
	if m, err := BuildModel(in, tuningRelease(t, nccl.V2_30_7)); err != nil || m.Bandwidths[AllReduce][Ring][LL128] == 0 {
		t.Error("2.30.7 LL128 with mixed sm90/sm100 must be on")
	}

	// CUDA 11.8 exception: sm90 Ring AllReduce LL128 on 2 ranks.
	in = tuningH200x2Input()
	in.CUDARuntime = 11080
	m = tuningModel(t, in, nccl.V2_28_9)
	if m.Bandwidths[AllReduce][Ring][LL128] != 0 || m.Bandwidths[AllGather][Ring][LL128] == 0 {
		t.Error("CUDA 11.8 exception")
	}

	// NCCL_LL128_C2C=0 on sm90: PXN no longer allowed, and NCCL says so.
	in = tuningH200x2Input()
	g = *in.Graphs[Ring]
	g.TypeInter = topo.PathPXN
	in.Graphs[Ring] = &g
	zero := int64(0)
	in.LL128C2C = &zero
	m = tuningModel(t, in, nccl.V2_28_9)
	if m.Bandwidths[AllReduce][Ring][LL128] != 0 {
		t.Error("LL128_C2C=0 must disable LL128 over PXN")
	}
	n := 0
	for _, l := range m.Log {
		if strings.HasPrefix(l.Text, "Disabling LL128 over all PxN connections") {
			n++
		}
	}
	if n != NumFuncs*NumAlgos {
		t.Errorf("LL128_C2C message printed %d times, NCCL prints it once per (function, algorithm): %d", n, NumFuncs*NumAlgos)
	}
}

// TestTuningNThreadsMessages: getNthreads' messages per release.
func TestTuningNThreadsMessages(t *testing.T) {
	in := tuningH200x2Input()
	n := int64(100)
	in.NThreads = &n
	m := tuningModel(t, in, nccl.V2_28_9)
	var got []string
	for _, l := range m.Log {
		if strings.HasPrefix(l.Text, "Invalid") {
			got = append(got, l.Level+" "+l.Subsys+" "+l.Text)
		}
	}
	want := strings.Repeat("INFO GRAPH|ENV Invalid NCCL_NTHREADS 100 (must be a multiple of 32)\n", 3)
	if strings.Join(got, "\n")+"\n" != want {
		t.Errorf("messages %q", got)
	}
	if m.MaxThreads[Ring][Simple] != 512 || m.MaxThreads[Ring][LL] != 512 {
		t.Errorf("threads %v", m.MaxThreads)
	}
	m = tuningModel(t, in, nccl.V2_22_3)
	if m.Log[0].Level != "WARN" {
		t.Errorf("2.22.3 warns: %v", m.Log[0])
	}
	n = 32
	m = tuningModel(t, in, nccl.V2_28_9)
	if m.MaxThreads[Ring][Simple] != 64 || !strings.Contains(m.Log[0].Text, "(minimum 64).") {
		t.Errorf("32 threads: %v %v", m.MaxThreads[Ring][Simple], m.Log[0])
	}
	th := "1 2 3 4 5"
	in = tuningH200x2Input()
	in.ThreadThresholds = &th
	m = tuningModel(t, in, nccl.V2_28_9)
	if got := m.ThreadThresholdsLine(); got != "threadThresholds 1/2/3 | 4/5/64 | 512 | 512" {
		t.Error(got)
	}
}

// tuningRandomInput draws a plausible communicator: nodes, ranks, compute
// capabilities, CPU, graphs (ring/tree always, CollNet and NVLS sometimes)
// and an enable matrix.
func tuningRandomInput(t *rapid.T) Input {
	nNodes := rapid.IntRange(1, 64).Draw(t, "nNodes")
	ppn := rapid.SampledFrom([]int{1, 2, 4, 8}).Draw(t, "ppn")
	nRanks := nNodes * ppn
	if nRanks == 1 {
		nRanks, ppn = 2, 2
	}
	cc := rapid.SampledFrom([]int{70, 80, 86, 90, 100, 120}).Draw(t, "cc")
	maxCC := cc
	if rapid.Bool().Draw(t, "mixedCC") {
		maxCC = cc + 10
	}
	types := []topo.PathType{topo.PathNVL, topo.PathNVB, topo.PathPIX, topo.PathPXB, topo.PathPXN, topo.PathPHB, topo.PathSYS, topo.PathNET}
	graph := func(name string, pattern topo.Pattern, minCh int) *topo.Graph {
		return &topo.Graph{
			Pattern:      pattern,
			NChannels:    rapid.IntRange(minCh, 32).Draw(t, name+".nCh"),
			BwIntra:      float32(rapid.SampledFrom([]float64{0.24, 1.2, 6, 12, 20, 24, 30, 40, 48, 60}).Draw(t, name+".bwIntra")),
			BwInter:      float32(rapid.SampledFrom([]float64{0.24, 1.2, 6, 12, 20, 24, 30, 40, 48, 60}).Draw(t, name+".bwInter")),
			TypeIntra:    rapid.SampledFrom(types[:6]).Draw(t, name+".typeIntra"),
			TypeInter:    rapid.SampledFrom(types).Draw(t, name+".typeInter"),
			SameChannels: rapid.Bool().Draw(t, name+".same"),
			LatencyInter: float32(rapid.SampledFrom([]float64{0, 0, 1.5}).Draw(t, name+".lat")),
		}
	}
	ring := graph("ring", topo.PatternRing, 1)
	tree := graph("tree", rapid.SampledFrom([]topo.Pattern{topo.PatternBalancedTree, topo.PatternSplitTree, topo.PatternTree}).Draw(t, "treePattern"), 1)
	var chain, direct, nvls *topo.Graph
	collnet := rapid.Bool().Draw(t, "collnet")
	if collnet {
		chain = graph("chain", topo.PatternTree, 0)
		direct = graph("direct", topo.PatternCollNetDirect, 0)
	}
	nvlsChannels := 0
	if rapid.Bool().Draw(t, "nvls") {
		// NCCL keeps NVLS only with channels (init.cc: an empty NVLS graph
		// sets nvlsSupport = nvlsChannels = 0).
		nvls = graph("nvls", topo.PatternNVLS, 1)
		nvlsChannels = rapid.IntRange(1, 32).Draw(t, "nvlsChannels")
	}
	in := Input{NRanks: nRanks, NNodes: nNodes, MaxLocalRanks: ppn, LocalRanks: ppn, MinCompCap: cc, MaxCompCap: maxCC,
		CPUArch:   rapid.SampledFrom([]CPUArch{ArchX86, ArchPower, ArchARM, ArchMixed}).Draw(t, "arch"),
		CPUVendor: rapid.SampledFrom([]CPUVendor{VendorIntel, VendorAMD, VendorOther, VendorMixed}).Draw(t, "vendor"),
		Graphs:    Graphs(ring, tree, chain, direct, nvls), MaxTreePattern: tree.Pattern,
		CollNetEnable: collnet, CollNetChainSupport: rapid.Bool().Draw(t, "chainSupport"), CollNetHeads: rapid.IntRange(1, 8).Draw(t, "heads"),
		CollNetAllGather: rapid.Bool().Draw(t, "iag"), CollNetReduceScatter: rapid.Bool().Draw(t, "irs"),
		NVSwitch: rapid.Bool().Draw(t, "nvs"), NetDeviceUnpack: rapid.Bool().Draw(t, "unpack"),
		Enable: DefaultEnable(), CUDARuntime: rapid.SampledFrom([]int{11080, 12040, 13000}).Draw(t, "cuda"),
		NChannels: rapid.IntRange(1, 32).Draw(t, "nChannels"), NVLSChannels: nvlsChannels,
		NVLSSupport: nvls != nil, CollNetDirectHeads: rapid.IntRange(1, 8).Draw(t, "directHeads"),
	}
	for f := range NumFuncs {
		for a := range NumAlgos {
			if rapid.IntRange(0, 5).Draw(t, fmt.Sprintf("algoOff%d%d", f, a)) == 0 {
				in.Enable.Algo[f][a] = 0
			}
		}
		for p := range NumProtos {
			in.Enable.Proto[f][p] = int8(rapid.SampledFrom([]int{0, 1, 1, 1, 2}).Draw(t, fmt.Sprintf("proto%d%d", f, p)))
		}
	}
	return in
}

var tuningAllReleases = []nccl.Version{nccl.V2_22_3, nccl.V2_28_3, nccl.V2_28_9}

// TestTuningModelProperties: invariants of every model, over random
// communicators and every release.
func TestTuningModelProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in := tuningRandomInput(rt)
		v := rapid.SampledFrom(tuningAllReleases).Draw(rt, "release")
		m, err := BuildModel(in, tuningRelease(rt, v))
		if err != nil {
			rt.Fatalf("valid input rejected: %v", err)
		}
		for _, f := range Funcs {
			for a := range NumAlgos {
				for p := range NumProtos {
					bw, lat := m.Bandwidths[f][a][p], m.Latencies[f][a][p]
					if !m.Computed[f][a][p] && (bw != 0 || lat != 0) {
						rt.Fatalf("%s %s/%s not computed but %v/%v", f, Algo(a), Proto(p), lat, bw)
					}
					if bw < 0 || lat < 0 {
						rt.Fatalf("%s %s/%s negative %v/%v", f, Algo(a), Proto(p), lat, bw)
					}
					if bw == 0 && m.Zeroed[f][a][p].Rule == "" {
						rt.Fatalf("%s %s/%s: bandwidth 0 without a reason", f, Algo(a), Proto(p))
					}
					if bw != 0 && m.Zeroed[f][a][p].Rule != "" {
						rt.Fatalf("%s %s/%s: bandwidth %v with zero reason %v", f, Algo(a), Proto(p), bw, m.Zeroed[f][a][p])
					}
					if math.IsNaN(float64(bw)) && Algo(a) != CollNetDirect {
						rt.Fatalf("%s %s/%s NaN", f, Algo(a), Proto(p))
					}
					// G-TUNE-IMPL-1: Tree only for AllReduce, PAT never for AllReduce.
					if bw != 0 && ((a == int(Tree) && f != AllReduce) || (a == int(PAT) && f == AllReduce) || (a != int(Ring) && (f == Broadcast || f == Reduce))) {
						rt.Fatalf("%s %s has bandwidth", f, Algo(a))
					}
				}
			}
		}
		if len(m.TableLines()) != 8*((m.Tuning.NumAlgos+2)/3) {
			rt.Fatalf("table has %d lines", len(m.TableLines()))
		}
		// Turning one more algorithm off never raises a bandwidth (2.28:
		// exactly; in 2.22.3 the hard-set CollNet rescue may bring Ring and
		// Tree back, and the Ring restoration Ring).
		f := rapid.IntRange(0, NumFuncs-1).Draw(rt, "offF")
		a := rapid.IntRange(0, NumAlgos-1).Draw(rt, "offA")
		in2 := in
		in2.Enable.Algo[f][a] = 0
		m2, err := BuildModel(in2, tuningRelease(rt, v))
		if err != nil {
			rt.Fatal(err)
		}
		for g := range NumFuncs {
			for b := range NumAlgos {
				for p := range NumProtos {
					if m2.Bandwidths[g][b][p] > m.Bandwidths[g][b][p] && !(v == nccl.V2_22_3 && (b == int(Ring) || b == int(Tree))) {
						rt.Fatalf("disabling %s for %s raised %s %s/%s from %v to %v", Algo(a), Func(f), Func(g), Algo(b), Proto(p), m.Bandwidths[g][b][p], m2.Bandwidths[g][b][p])
					}
				}
			}
		}
	})
}

// TestTuningResearchPredictions compares with the research note's own
// computations from source (nccl-tuning.md §6.8; a separate port of the
// code, not observations): 8 × H100 on one node and 2 nodes × 8 H100.
func TestTuningResearchPredictions(t *testing.T) {
	var hgx Input
	for _, sc := range tuningScenarios() {
		if sc.name == "hgx-h100x8" {
			hgx = sc.in
		}
	}
	m := tuningModel(t, hgx, nccl.V2_28_9)
	for _, c := range []struct {
		a    Algo
		p    Proto
		want string
	}{
		{Ring, Simple, "    56.0/ 205.7"}, {Ring, LL, "    15.0/  80.6"}, {Ring, LL128, "    40.6/ 189.3"},
		{Tree, Simple, "    64.4/ 165.6"}, {NVLS, Simple, "    25.0/ 272.0"},
	} {
		if got := tuningCell(m, AllReduce, c.a, c.p); got != c.want {
			t.Errorf("8 × H100 AllReduce %s/%s: %q, note %q", c.a, c.p, got, c.want)
		}
	}
	in := tuningMultiNodeInput(2, 8)
	in.CollNetEnable = false
	in.Graphs = Graphs(in.Graphs[Ring], in.Graphs[Tree], nil, nil, nil)
	m = tuningModel(t, in, nccl.V2_28_9)
	for _, c := range []struct {
		f    Func
		a    Algo
		p    Proto
		want string
	}{
		{AllReduce, Ring, LL, "    40.0/  20.8"}, {AllReduce, Ring, LL128, "    75.2/ 156.6"}, {AllReduce, Ring, Simple, "   131.6/ 204.8"},
		{AllReduce, Tree, LL, "    25.2/  16.6"}, {AllReduce, Tree, LL128, "    48.5/ 124.8"}, {AllReduce, Tree, Simple, "    92.4/ 140.8"},
		{AllGather, Ring, Simple, "    70.0/ 409.6"}, {ReduceScatter, Ring, Simple, "    70.0/ 409.6"},
	} {
		if got := tuningCell(m, c.f, c.a, c.p); got != c.want {
			t.Errorf("2 × 8 H100 %s %s/%s: %q, note %q", c.f, c.a, c.p, got, c.want)
		}
	}
}

// TestTuningMNNVLOneNode: 2.20.x tunes an MNNVL communicator as one node
// (switch.mnnvlOneNode): four ranks on two NCCL nodes with MNNVL get the
// one-node table and cost (no NET latencies, no Ring/Simple plateau), and
// NVLSTree and NVLS (CollNet off) are disabled for MNNVL whatever the node
// count; 2.21.5 tunes the two nodes and keeps one node's NVLS.
func TestTuningMNNVLOneNode(t *testing.T) {
	in := func(nNodes int, mnnvl bool) Input {
		i := tuningH200x2Input()
		i.NRanks, i.NNodes, i.MNNVL = 4, nNodes, mnnvl
		return i
	}
	cost := func(m *Model) [NumAlgos][NumProtos]float32 {
		op, err := ChooseOp(m, Call{Op: Op{Func: AllReduce, Count: 64 << 20, DataType: Float32}})
		if err != nil {
			t.Fatal(err)
		}
		return op.Cost
	}
	for _, tc := range []struct {
		v       nccl.Version
		oneNode bool
	}{{nccl.V2_20_3, true}, {nccl.V2_20_5, true}, {nccl.V2_21_5, false}, {nccl.V2_22_3, false}} {
		two := tuningModel(t, in(2, true), tc.v)
		one := tuningModel(t, in(1, true), tc.v)
		same := strings.Join(two.TableLines(), "\n") == strings.Join(one.TableLines(), "\n") && cost(two) == cost(one)
		if same != tc.oneNode {
			t.Errorf("%s: two MNNVL nodes tuned as one: %v, want %v", tc.v, same, tc.oneNode)
		}
		// NVLSTree on two nodes: off only for MNNVL
		if off := two.AlgoEnable[AllReduce][NVLSTree] == 0; off != tc.oneNode {
			t.Errorf("%s: NVLSTree disabled on two MNNVL nodes: %v, want %v", tc.v, off, tc.oneNode)
		}
		// NVLS on one node: kept without MNNVL, off for MNNVL at 2.20.x
		if off := one.AlgoEnable[AllReduce][NVLS] == 0; off != tc.oneNode {
			t.Errorf("%s: NVLS disabled on one MNNVL node: %v, want %v", tc.v, off, tc.oneNode)
		}
		// without MNNVL the two nodes are two nodes at every release
		if plain := tuningModel(t, in(2, false), tc.v); strings.Join(plain.TableLines(), "\n") == strings.Join(one.TableLines(), "\n") {
			t.Errorf("%s: two nodes without MNNVL tuned as one", tc.v)
		}
	}
}

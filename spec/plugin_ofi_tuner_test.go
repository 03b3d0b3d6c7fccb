package spec

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ofiPublishedPlatforms are the platform names of the published tables.
var ofiPublishedPlatforms = map[string]string{
	"P5": "p5.48xlarge", "P5en": "p5en.48xlarge", "P6": "p6-b200.48xlarge", "P6_B300": "p6-b300.48xlarge",
}

// ofiLegalCall is the published tool's call: a 7×3 table of 1337.0.
func ofiLegalCall(f Func, nBytes int64) TunerCall {
	call := TunerCall{ABI: 3, Func: f, NBytes: nBytes, NumPipeOps: 1, NumAlgo: NumAlgos, NumProto: NumProtos}
	for a := range NumAlgos {
		for p := range NumProtos {
			call.Table[a][p] = 1337
		}
	}
	return call
}

// ofiCellSet is the cell the answer moved off 1337.0 (AlgoNone: none).
func ofiCellSet(ans TunerAnswer) AlgoProto {
	for a := range NumAlgos {
		for p := range NumProtos {
			if ans.Table[a][p] != 1337 {
				return AlgoProto{Algo(a), Proto(p)}
			}
		}
	}
	return AlgoProto{AlgoNone, ProtoNone}
}

// TestOFIRegionTunerPublished: aws-ofi-nccl 1.18.0's region tuner as
// gatesim models it gives, at every size of aws-ofi-nccl's published
// decision tables, the published algorithm, protocol and nChannels
// (P-OFI-TUNER-2; spec/testdata/ofi-tuner/README.md).
func TestOFIRegionTunerPublished(t *testing.T) {
	files, err := filepath.Glob("testdata/ofi-tuner/tuner_ranks*_nodes*.out.expected")
	if err != nil || len(files) != 14 {
		t.Fatalf("published tables: %d files (%v), expected 14", len(files), err)
	}
	algos := map[string]Algo{"Tree": Tree, "Ring": Ring, "Nvls_Tree": NVLSTree, "Pat": PAT}
	protos := map[string]Proto{"Ll": LL, "Ll128": LL128, "Simple": Simple}
	funcs := map[string]Func{"AllReduce": AllReduce, "AllGather": AllGather, "ReduceScatter": ReduceScatter}
	v := ofiVersion{1, 18, 0}
	rows, perPlatform := 0, map[string]int{}
	for _, file := range files {
		fh, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for ln := 1; sc.Scan(); ln++ {
			f := strings.Fields(sc.Text())
			if len(f) != 8 || f[0] == "nodes" {
				continue
			}
			nodes, _ := strconv.Atoi(f[0])
			ranks, _ := strconv.Atoi(f[1])
			size, _ := strconv.ParseInt(f[2], 10, 64)
			nch, _ := strconv.ParseFloat(f[6], 64)
			fn, okF := funcs[f[3]]
			a, okA := algos[f[4]]
			p, okP := protos[f[5]]
			platform, okPl := ofiPublishedPlatforms[f[7]]
			if !okF || !okA || !okP || !okPl || nodes == 0 || ranks == 0 {
				t.Fatalf("%s:%d: unexpected row %q", file, ln, sc.Text())
			}
			tu, _ := newOFIRegionTuner(v, platform, ranks, nodes)
			call := ofiLegalCall(fn, size)
			ans := tu.answer(&call)
			if got, want := ofiCellSet(ans), (AlgoProto{a, p}); got != want || ans.NChannels != int(nch) {
				t.Errorf("%s:%d: %s %d ranks %d nodes %s %d B: got %s nChannels %d, published %s nChannels %d",
					filepath.Base(file), ln, platform, ranks, nodes, fn, size, got, ans.NChannels, want, int(nch))
			}
			rows++
			perPlatform[f[7]]++
		}
		fh.Close()
	}
	t.Logf("%d published rows: %v", rows, perPlatform)
	if rows < 500 {
		t.Fatalf("%d rows read, expected every row of the 14 tables", rows)
	}
}

// ofiPresetComm is a communicator of preset × nodes (gpus per node: 0,
// the preset's) with aws-ofi-nccl of version on platform on every node.
func ofiPresetComm(t *testing.T, nccl Version, preset string, nodes int, version, platform string, env Env) *Comm {
	t.Helper()
	sys, err := Preset(preset, PresetOptions{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	libs, err := OFIPlugin(version, platform)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = append(slices.Clone(sys.Nodes[i].Libs), libs...)
	}
	c, err := Init(MustLoad(nccl), sys, env)
	if err != nil || c.Err != nil {
		t.Fatalf("init: %v %v", err, c.Err)
	}
	return c
}

// TestOFIRegionTunerDecides: with aws-ofi-nccl 1.18.0 on a tuned platform
// NCCL's choice is the region tuner's cell wherever NCCL's table has it
// (G-TUNER-CALL-1 through the loaded-plugin path), NCCL's own on two
// nodes or fewer, and the P6-B200 channel count is honoured; through tuner v2 (2.21.5) and
// v3 (2.22.3+).
func TestOFIRegionTunerDecides(t *testing.T) {
	type want struct {
		algo  Algo
		proto Proto
		nch   int // 0: NCCL's
	}
	for _, tc := range []struct {
		nccl     Version
		preset   string
		nodes    int
		platform string
		fn       Func
		count    int64 // float32 elements
		want     want
		tuned    bool // the tuner changed NCCL's choice
	}{
		// p5en × 4 (32 ranks, 8 per node): NCCL's NVLSTree/Simple becomes
		// Tree/LL128 at 16 MiB and Ring/LL128 at 64 MiB
		{V2_28_9, "hgx-h200", 4, "p5en.48xlarge", AllReduce, 4 << 20, want{Tree, LL128, 0}, true},
		{V2_28_9, "hgx-h200", 4, "p5en.48xlarge", AllReduce, 16 << 20, want{Ring, LL128, 0}, true},
		{V2_22_3, "hgx-h200", 4, "p5en.48xlarge", AllReduce, 16 << 20, want{Ring, LL128, 0}, true},
		// v2 (2.21.5): the tuner names the cell, NCCL's adapter writes 0.0 into it
		{V2_21_5, "hgx-h200", 4, "p5en.48xlarge", AllReduce, 16 << 20, want{Ring, LL128, 0}, true},
		// p5 × 4 at 1 KiB: Tree/LL128 where NCCL picks Tree/LL
		{V2_28_9, "dgx-h100", 4, "p5.48xlarge", AllReduce, 256, want{Tree, LL128, 0}, true},
		// P6-B200 × 4: Tree/LL128 on the channel count of the largest chunk
		// (32 at 4 MiB, 24 at 16 MiB: the published rows of 4 nodes)
		{V2_28_9, "dgx-b200", 4, "p6-b200.48xlarge", AllReduce, 1 << 20, want{Tree, LL128, 32}, true},
		{V2_28_9, "dgx-b200", 4, "p6-b200.48xlarge", AllReduce, 4 << 20, want{Tree, LL128, 24}, true},
		{V2_30_7, "dgx-b200", 4, "p6-b200.48xlarge", AllReduce, 4 << 20, want{Tree, LL128, 24}, true},
		// two nodes: the regions are not used
		{V2_28_9, "hgx-h200", 2, "p5en.48xlarge", AllReduce, 4 << 20, want{}, false},
	} {
		name := fmt.Sprintf("%s %s×%d %s %d", tc.nccl, tc.preset, tc.nodes, tc.fn, tc.count)
		t.Run(name, func(t *testing.T) {
			c := ofiPresetComm(t, tc.nccl, tc.preset, tc.nodes, "1.18.0", tc.platform, nil)
			if c.ofiTuner == nil || c.TunerABI < 2 {
				t.Fatalf("tuner %v ABI %d: expected the modelled region tuner", c.ofiTuner, c.TunerABI)
			}
			op := Op{Func: tc.fn, Count: tc.count, DataType: Float32, RedOp: Sum}
			d, _, err := c.Select(op)
			if err != nil || d.Err != nil {
				t.Fatalf("select: %v %v", err, d.Err)
			}
			if d.Tuner == nil {
				t.Fatal("no tuner effect recorded")
			}
			if got := d.Tuner.Changed(d); got != tc.tuned {
				t.Errorf("changed %v, want %v (without: %s, with: %s/%s on %d)", got, tc.tuned, d.Tuner.Without, d.Algo, d.Proto, d.NChannels)
			}
			if !tc.tuned {
				return
			}
			if d.Algo != tc.want.algo || d.Proto != tc.want.proto {
				t.Errorf("decision %s/%s, want %s/%s", d.Algo, d.Proto, tc.want.algo, tc.want.proto)
			}
			if tc.want.nch != 0 && d.NChannels != tc.want.nch {
				t.Errorf("nChannels %d, want the tuner's %d", d.NChannels, tc.want.nch)
			}
			// the oracle's path (SelectOp) decides the same
			d2, _, err := c.SelectOp(op, false)
			if err != nil || d2.Algo != d.Algo || d2.Proto != d.Proto || d2.NChannels != d.NChannels {
				t.Errorf("SelectOp: %v %s/%s on %d, Select %s/%s on %d", err, d2.Algo, d2.Proto, d2.NChannels, d.Algo, d.Proto, d.NChannels)
			}
		})
	}
}

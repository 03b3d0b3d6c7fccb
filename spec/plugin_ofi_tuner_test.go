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
			// the oracle's path (SelectOp) and a group of one (diagnose's)
			// decide the same
			d2, _, err := c.SelectOp(op, false)
			if err != nil || d2.Algo != d.Algo || d2.Proto != d.Proto || d2.NChannels != d.NChannels {
				t.Errorf("SelectOp: %v %s/%s on %d, Select %s/%s on %d", err, d2.Algo, d2.Proto, d2.NChannels, d.Algo, d.Proto, d.NChannels)
			}
			g, err := c.SelectGroup([]GroupOp{{Op: op}}, Launch{})
			if err != nil || g.Ops[0].Algo != d.Algo || g.Ops[0].Proto != d.Proto || g.Ops[0].NChannels != d.NChannels || g.Ops[0].ChannelHi != d.ChannelHi {
				t.Errorf("SelectGroup: %v %s/%s on %d (channels ..%d), Select %s/%s on %d (..%d)", err, g.Ops[0].Algo, g.Ops[0].Proto, g.Ops[0].NChannels, g.Ops[0].ChannelHi, d.Algo, d.Proto, d.NChannels, d.ChannelHi)
			}
		})
	}
}

// TestOFIRegionTunerReleases: what changes between the region tuner's
// releases, each case read off the tags' regions by hand (P-OFI-TUNER-2):
// new regions (1.17.0), the P6-B200 PAT channel counts (1.18.0), the
// log2 placement of 1.19.0 on regions 1.18.0 and 1.19.0 share, and
// p6-b300 (regions from 1.18.0).
func TestOFIRegionTunerReleases(t *testing.T) {
	for _, tc := range []struct {
		ofi            string
		platform       string
		nRanks, nNodes int
		fn             Func
		nBytes         int64
		want           AlgoProto
		nch            int
	}{
		// p5en, 8 ranks per node, AllGather at 32 ranks: 1.16.0's Ring/LL
		// edge reaches 262144 B at 32 ranks, 1.17.0's 1348169 B
		{"1.16.0", "p5en.48xlarge", 32, 4, AllGather, 1 << 20, AlgoProto{Ring, LL128}, 0},
		{"1.17.0", "p5en.48xlarge", 32, 4, AllGather, 1 << 20, AlgoProto{Ring, LL}, 0},
		// the same Ring/LL edge, (786432, 16)–(4718592, 128), at 32 ranks
		// and 1400000 B: outside it in bytes (1348169), inside it in log2
		// (2^20.4466 = 1429043)
		{"1.18.0", "p5en.48xlarge", 32, 4, AllGather, 1400000, AlgoProto{Ring, LL128}, 0},
		{"1.19.0", "p5en.48xlarge", 32, 4, AllGather, 1400000, AlgoProto{Ring, LL}, 0},
		{"1.19.2", "p5en.48xlarge", 32, 4, AllGather, 1300000, AlgoProto{Ring, LL}, 0},
		{"1.20.0", "p5en.48xlarge", 32, 4, AllGather, 1500000, AlgoProto{Ring, LL128}, 0},
		// P6-B200 one rank per node, PAT/Simple AllGather: no channel count
		// before 1.18.0; then 1 up to 64 KiB per node, 2 up to 128 KiB
		{"1.17.3", "p6-b200.48xlarge", 8, 8, AllGather, 4096, AlgoProto{PAT, Simple}, 0},
		{"1.18.0", "p6-b200.48xlarge", 8, 8, AllGather, 4096, AlgoProto{PAT, Simple}, 1},
		{"1.21.1", "p6-b200.48xlarge", 8, 8, AllGather, 1 << 20, AlgoProto{PAT, Simple}, 2},
		// p5, 8 ranks per node: Tree/LL128 from (0, 16) at every release
		{"1.16.0", "p5.48xlarge", 32, 4, AllReduce, 4096, AlgoProto{Tree, LL128}, 0},
		{"1.21.0", "p5.48xlarge", 32, 4, AllReduce, 4096, AlgoProto{Tree, LL128}, 0},
		// p5 has no AllGather regions with 8 ranks per node
		{"1.18.0", "p5.48xlarge", 32, 4, AllGather, 4096, AlgoProto{AlgoNone, ProtoNone}, 0},
		// p6-b300 from 1.18.0
		{"1.18.0", "p6-b300.48xlarge", 32, 4, AllReduce, 4096, AlgoProto{Tree, LL}, 0},
	} {
		t.Run(fmt.Sprintf("%s %s %d×%d %s %d", tc.ofi, tc.platform, tc.nRanks, tc.nNodes, tc.fn, tc.nBytes), func(t *testing.T) {
			v, err := parseOFIVersion(tc.ofi)
			if err != nil || !ofiTunerModelled(v, tc.platform) {
				t.Fatalf("%s on %s not modelled: %v", tc.ofi, tc.platform, err)
			}
			tu, _ := newOFIRegionTuner(v, tc.platform, tc.nRanks, tc.nNodes)
			call := ofiLegalCall(tc.fn, tc.nBytes)
			ans := tu.answer(&call)
			if got := ofiCellSet(ans); got != tc.want || ans.NChannels != tc.nch {
				t.Errorf("got %s nChannels %d, want %s nChannels %d", got, ans.NChannels, tc.want, tc.nch)
			}
		})
	}
	// p6-b300 before 1.18.0: the tuner has no regions and declines
	if v, _ := parseOFIVersion("1.17.3"); ofiTunerModelled(v, "p6-b300.48xlarge") {
		t.Error("1.17.3 on p6-b300: modelled as tuned, but its tuner has no p6-b300 regions")
	}
}

// TestOFIRegionTunerV2Decline: from 1.17.0 the v1/v2 entry points decline
// under NCCL_ALGO or NCCL_PROTO (NCCL 2.21.5 takes v2), 1.16.x does not;
// v3 (2.22.3+) never does.
func TestOFIRegionTunerV2Decline(t *testing.T) {
	env := Env{"NCCL_PROTO": "LL128,Simple"}
	for _, tc := range []struct {
		nccl  Version
		ofi   string
		tuned bool
	}{
		{V2_21_5, "1.16.0", true},
		{V2_21_5, "1.17.0", false},
		{V2_21_5, "1.19.0", false},
		{V2_28_9, "1.19.0", true},
	} {
		c := ofiPresetComm(t, tc.nccl, "hgx-h200", 4, tc.ofi, "p5en.48xlarge", env)
		if got := c.ofiTuner != nil; got != tc.tuned {
			t.Errorf("%s on NCCL %s (tuner v%d) with NCCL_PROTO: region tuner %v, want %v", tc.ofi, tc.nccl, c.TunerABI, got, tc.tuned)
		}
	}
}

// TestOFIRegionVerticesOnEdge: as the plugin's own unit test requires of
// is_inside_region, every vertex of every region, placed as its release
// places it, is on the region's edge (0), at every release, platform,
// ranks-per-node count and function.
func TestOFIRegionVerticesOnEdge(t *testing.T) {
	n := 0
	for _, rel := range ofiRegionReleases {
		for platform := range ofiTunerPlatforms {
			if !ofiTunerModelled(rel.since, platform) {
				continue
			}
			for _, ppn := range []int{1, 2, 8} {
				tu, _ := newOFIRegionTuner(rel.since, platform, ppn*4, 4)
				for f, regions := range tu.regions {
					for i := range regions {
						for _, v := range regions[i].v {
							if got := ofiInside(rel.geo, v, &regions[i]); got != 0 {
								t.Errorf("%s %s %d per node %s region %d (%s/%s): vertex %v classified %d, want 0 (on the edge)",
									rel.since, platform, ppn, Func(f), i, regions[i].algo, regions[i].proto, v, got)
							}
							n++
						}
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("%d vertices checked, expected every region's", n)
	}
}

// TestOFIRegionTunerSkipsIgnore: a region whose cell NCCL's table has as
// IGNORE is passed over (v3: the next region that holds the call, or
// none); v2 passes over NVLSTree without NVLS support and PAT, and names
// any other cell, which NCCL's adapter then checks. p5en, 32 ranks on 4
// nodes, AllReduce of 400 MiB lies in 1.18.0's NVLSTree/Simple region
// only.
func TestOFIRegionTunerSkipsIgnore(t *testing.T) {
	tu, _ := newOFIRegionTuner(ofiVersion{1, 18, 0}, "p5en.48xlarge", 32, 4)
	const n = 400 << 20
	call := ofiLegalCall(AllReduce, n)
	if got := ofiCellSet(tu.answer(&call)); got != (AlgoProto{NVLSTree, Simple}) {
		t.Fatalf("every cell legal: %s, want NVLSTree/Simple", got)
	}
	call.Table[NVLSTree][Simple] = -1
	ans := tu.answer(&call)
	if ans.Table[NVLSTree][Simple] != -1 || ofiCellSet(ans) != (AlgoProto{NVLSTree, Simple}) {
		// the IGNORE cell stays -1 and nothing else moves off 1337
		t.Errorf("NVLSTree/Simple IGNORE: table %v, want it left as it is", ans.Table)
	}
	if len(ans.Log) != 1 || !strings.Contains(ans.Log[0], "Falling back to NCCL's tuner") {
		t.Errorf("log %q, want the fallback line", ans.Log)
	}
	call.ABI = 2
	for _, nvls := range []bool{false, true} {
		call.NVLSSupport = nvls
		ans := tu.answer(&call)
		want := -1
		if nvls {
			want = int(NVLSTree)
		}
		if ans.Algo != want {
			t.Errorf("v2, NVLS support %v: algorithm %d, want %d", nvls, ans.Algo, want)
		}
	}
}

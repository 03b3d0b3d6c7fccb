package topo

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// multirankDir holds the captures of two ranks on one H200 under
// NCCL_MULTI_RANK_GPU_ENABLE=1 (hw/testdata/device/README.md).
const multirankDir = "../../hw/testdata/device/multirank"

// rankStart is rank r's "Init START" line: its host:pid:tid prefix.
var rankStart = regexp.MustCompile(`(?m)^([^ ]+) \[\d+\] NCCL INFO \[Rank 0\] \w+ comm .* Init START$`)

// TestMultiRankCaptured: the captured topology of two ranks on one H200
// (NCCL_TOPO_DUMP_FILE: one <pci> holding two <gpu>), built with each
// captured release's rules, prints rank 0's "=== System" block (the DEV
// node, its two GPUs joined by LOC links, the GPU-DEV-GPU paths), its
// [GRAPH] blocks and the channel summary as NCCL printed them, and writes
// its graph.xml byte for byte: maxBw 0 (the one DEV has no path to
// another DEV), totalBw the DEV's PCI link, 32 ring channels at LOC.
// Ref: v2.30.3-1 src/graph/topo.cc ncclTopoAddPci; src/graph/paths.cc
// ncclTopoSetPaths; src/graph/search.cc ncclTopoSearchInit,
// ncclTopoCompute; v2.30.7-1 src/graph/topo.cc ncclTopoAddGpuSub
func TestMultiRankCaptured(t *testing.T) {
	for _, release := range []string{"2.30.3", "2.30.4", "2.30.7"} {
		t.Run(release, func(t *testing.T) {
			dir := filepath.Join(multirankDir, release, "plain")
			data, err := os.ReadFile(filepath.Join(dir, "topo.xml"))
			if err != nil {
				t.Fatal(err)
			}
			x, err := ParseTopologyXML("topo.xml", data)
			if err != nil {
				t.Fatal(err)
			}
			// 2.30.4 changes no topology rule
			p, ok := chainParams(strings.Replace(release, "2.30.4", "2.30.3", 1))
			if !ok {
				t.Fatalf("no release %s", release)
			}
			p.Release = mustVersion(t, release)
			s, err := BuildSystem("topo.xml", x, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Nodes[GPU]) != 2 || len(s.Nodes[DEV]) != 1 || s.deviceCount() != 1 {
				t.Fatalf("%d GPU and %d DEV nodes: want two ranks on one DEV", len(s.Nodes[GPU]), len(s.Nodes[DEV]))
			}
			logData, err := os.ReadFile(filepath.Join(dir, "nccl.log"))
			if err != nil {
				t.Fatal(err)
			}
			m := rankStart.FindSubmatch(logData)
			if m == nil {
				t.Fatal("no [Rank 0] Init START line")
			}
			// both ranks print from one process on CUDA device 0: rank 0's
			// thread only
			prefix := string(m[1]) + " [0] NCCL INFO "
			var want []string
			for _, line := range strings.Split(string(logData), "\n") {
				if text, ok := strings.CutPrefix(line, prefix); ok && (topologyLine.MatchString(text) || strings.HasPrefix(text, "DEV/")) {
					want = append(want, text)
				}
			}
			// the capture's other variables are the log's, the safety ones
			// and G-DEV-DUP-1's, none read by the topology stage
			env := map[string]string{}
			for k, v := range capturedEnv(t, dir) {
				if k == "NCCL_NVLS_ENABLE" || k == "NCCL_MAX_NCHANNELS" || k == "NCCL_MIN_NCHANNELS" {
					env[k] = v
				}
			}
			checkCapturedLines(t, dir, s, p, capturedOptions(t, env), want)
		})
	}
}

// onerankDir holds the captures of one rank on one H200 (ncclCommInitAll
// over one device; hw/testdata/device/README.md).
const onerankDir = "../../hw/testdata/device/onerank"

// TestOneRankCaptured: a GPU that is its device's only rank is a GPU node
// under a DEV node from 2.30.3 (G-TOPO-DEV-1), as for ranks sharing a
// device: the captured one-rank topology, built with each captured
// release's rules, prints the "=== System" block (DEV/0-60 holding the
// PCI link, GPU/0-60 as its LOC link; the GPU's path to the NET four hops,
// GPU–DEV–PCI…, and the DEV's paths printed), the [GRAPH] blocks and the
// channel summary as NCCL printed them, and writes its graph.xml byte for
// byte. Before 2.30.3 (2.24.3–2.29.3 here) the GPU node is the device: no
// DEV, three hops.
// Ref: v2.29.3-1, v2.30.3-1 src/graph/topo.cc ncclTopoAddPci; v2.30.7-1
// src/graph/topo.cc ncclTopoAddGpuSub; src/graph/paths.cc ncclTopoSetPaths
func TestOneRankCaptured(t *testing.T) {
	for _, tc := range []struct {
		release  string
		devs     int // DEV nodes built
		netHops  int // the GPU's path to the NET
		wantDEVs int // lines of the System block naming a DEV
	}{
		{"2.24.3", 0, 3, 0},
		{"2.27.6", 0, 3, 0},
		{"2.28.7", 0, 3, 0},
		{"2.29.3", 0, 3, 0},
		{"2.30.3", 1, 4, 3},
		{"2.30.7", 1, 4, 3},
	} {
		t.Run(tc.release, func(t *testing.T) {
			dir := filepath.Join(onerankDir, tc.release)
			data, err := os.ReadFile(filepath.Join(dir, "topo.xml"))
			if err != nil {
				t.Fatal(err)
			}
			x, err := ParseTopologyXML("topo.xml", data)
			if err != nil {
				t.Fatal(err)
			}
			// 2.29.3 changes no topology rule of 2.29.2
			p, ok := chainParams(strings.Replace(tc.release, "2.29.3", "2.29.2", 1))
			if !ok {
				t.Fatalf("no release %s", tc.release)
			}
			p.Release = mustVersion(t, tc.release)
			s, err := BuildSystem("topo.xml", x, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Nodes[GPU]) != 1 || len(s.Nodes[DEV]) != tc.devs || s.deviceCount() != 1 {
				t.Fatalf("%d GPU and %d DEV nodes, %d devices: want one GPU, %d DEV, one device", len(s.Nodes[GPU]), len(s.Nodes[DEV]), s.deviceCount(), tc.devs)
			}
			logData, err := os.ReadFile(filepath.Join(dir, "nccl.log"))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			devs := 0
			for _, line := range strings.Split(string(logData), "\n") {
				_, text, ok := strings.Cut(line, " NCCL INFO ")
				if ok && (topologyLine.MatchString(text) || strings.HasPrefix(text, "DEV/")) {
					want = append(want, text)
					if strings.Contains(text, "DEV/") {
						devs++
					}
				}
			}
			if devs != tc.wantDEVs {
				t.Fatalf("the capture names a DEV on %d lines, want %d", devs, tc.wantDEVs)
			}
			env := map[string]string{}
			for k, v := range capturedEnv(t, dir) {
				if k == "NCCL_NVLS_ENABLE" {
					env[k] = v
				}
			}
			o := capturedOptions(t, env)
			checkCapturedLines(t, dir, s, p, o, want)
			ps := &pathState{p: p, o: o}
			if err := ps.computePaths(s); err != nil {
				t.Fatal(err)
			}
			if got := s.Nodes[GPU][0].Paths[NET][0].Count(); got != tc.netHops {
				t.Errorf("GPU→NET path %d hops, want %d", got, tc.netHops)
			}
		})
	}
}

// TestOneRankDevNode: on a DGX H100 (one rank per GPU) every GPU is under
// a DEV node from 2.30.3 (G-TOPO-DEV-1), so each GPU-side path is one hop
// longer at that end (GPU→GPU through the NVSwitch 4, GPU→NIC 4, PXN
// 4+4, GPU→CPU 3) with the same bandwidth and type, the System block
// prints a DEV per GPU holding its PCI and NVLinks, and the searched
// graphs keep their channels, bandwidths and types (nHops counts the
// longer paths).
// Ref: v2.29.7-1, v2.30.3-1 src/graph/topo.cc ncclTopoAddPci; v2.30.7-1
// src/graph/topo.cc ncclTopoAddGpuSub; src/graph/paths.cc
// ncclTopoSetPaths, ncclTopoComputePaths; src/graph/search.cc
func TestOneRankDevNode(t *testing.T) {
	for _, tc := range []struct {
		release                    string
		devs                       int
		gpu, nic, pxn, cpu, netGPU string
		ringHops                   int
	}{
		{"2.29.7", 0, "2/370.8/NVL", "3/48.0/PIX", "5/48.0/PXN", "2/48.0/PHB", "3/48.0/PIX", 96},
		{"2.30.3", 8, "4/370.8/NVL", "4/48.0/PIX", "8/48.0/PXN", "3/48.0/PHB", "4/48.0/PIX", 192},
		{"2.30.7", 8, "4/370.8/NVL", "4/48.0/PIX", "8/48.0/PXN", "3/48.0/PHB", "4/48.0/PIX", 192},
	} {
		t.Run(tc.release, func(t *testing.T) {
			p, ok := chainParams(tc.release)
			if !ok {
				t.Fatalf("no release %s", tc.release)
			}
			p.Release = mustVersion(t, tc.release)
			s := pathsOf(t, PresetDGXH100(), p, DefaultOptions())
			if len(s.Nodes[DEV]) != tc.devs {
				t.Errorf("%d DEV nodes, want %d", len(s.Nodes[DEV]), tc.devs)
			}
			for _, g := range s.Nodes[GPU] {
				if (g.Parent != nil) != (tc.devs > 0) {
					t.Errorf("%s: parent %v, want a DEV node: %v", g.Name(), g.Parent, tc.devs > 0)
				}
			}
			for _, c := range []struct {
				from     NodeType
				i        int
				to       NodeType
				j        int
				want, is string
			}{
				{GPU, 0, GPU, 1, tc.gpu, "GPU→GPU through the NVSwitch"},
				{GPU, 0, NET, 0, tc.nic, "GPU→its NIC"},
				{GPU, 0, NET, 1, tc.pxn, "GPU→a peer's NIC (PXN)"},
				{GPU, 0, CPU, 0, tc.cpu, "GPU→its CPU"},
				{NET, 0, GPU, 0, tc.netGPU, "NIC→its GPU"},
			} {
				if got := pathSummary(s, c.from, c.i, c.to, c.j); got != c.want {
					t.Errorf("%s: %s, want %s", c.is, got, c.want)
				}
			}
			sys, err := mustSynth(t, PresetDGXH100()).ForRelease(p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Search([]*System{sys}, p, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			ring := r.Graphs[0]
			if ring.NChannels != 12 || ring.BwIntra != 30 || ring.TypeIntra != PathNVL || ring.TypeInter != PathPIX || ring.NHops != tc.ringHops {
				t.Errorf("ring: %d channels at %v, %s/%s, nHops %d: want 12 at 30, NVL/PIX, nHops %d", ring.NChannels, ring.BwIntra, ring.TypeIntra, ring.TypeInter, ring.NHops, tc.ringHops)
			}
			devLines := 0
			for _, l := range r.Nodes[0].System.SystemLines() {
				if strings.Contains(l, "+ PCI[48.0] - DEV/") {
					devLines++
				}
			}
			if devLines != tc.devs {
				t.Errorf("System block: %d DEV nodes under a PCI link, want %d", devLines, tc.devs)
			}
		})
	}
}

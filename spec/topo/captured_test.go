package topo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// capturedDir holds the project's real NCCL captures (gatesim hw matrix on
// the 2×H200 machine): per configuration NCCL's topology dump (topo.xml),
// its graph dump (graph.xml), its INFO log (nccl.log) and the environment
// (config.json). See golden/testdata/captured/*/PROVENANCE.md.
const capturedDir = "../../golden/testdata/captured"

// ncclInfo matches a rank-0 INFO line: "host:pid:tid [0] NCCL INFO text".
var ncclInfo = regexp.MustCompile(`^[^ ]+ \[0\] NCCL INFO (.*)$`)

// topologyLine tells the lines of ncclTopoPrint, ncclTopoPrintGraph and the
// channel summary apart from the rest of the log.
var topologyLine = regexp.MustCompile(`^(=== System|(CPU|GPU|NET|NIC|NVS|PCI)/[0-9a-fA-F]+(-[0-9a-f]+)?( \(| :|$)|=====|Pattern |Search \d|Could not find a path| *\+ |\s?\d+ : (GPU|NET)/|\d+ coll channels)`)

func capturedOptions(t *testing.T, env map[string]string) Options {
	o := DefaultOptions()
	o.NvlsEnable = 0 // every capture ran with NCCL_NVLS_ENABLE=0
	for k, v := range env {
		n, err := strconv.Atoi(v)
		switch k {
		case "NCCL_P2P_DISABLE":
			o.P2PDisable = err == nil && n == 1
		case "NCCL_SHM_DISABLE":
			o.SHMDisable = err == nil && n == 1
		case "NCCL_MAX_NCHANNELS":
			o.MaxNChannels = n
		case "NCCL_MIN_NCHANNELS":
			o.MinNChannels = n
		case "NCCL_ALGO", "NCCL_PROTO", "NCCL_NTHREADS", "NCCL_BUFFSIZE", "NCCL_NVLS_ENABLE":
			// not read by the topology stage
		default:
			t.Fatalf("config sets %s, which this test does not map", k)
		}
	}
	return o
}

// TestCapturedRuns replays every captured configuration: NCCL's topology
// dump through the model, and the h200x2 preset synthesized in its place,
// must print rank 0's system, paths, [GRAPH] blocks and channel summary as
// NCCL did, and dump the same graph XML.
func TestCapturedRuns(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(capturedDir, "h200x2-*", "*", "topo.xml"))
	if len(dirs) == 0 {
		t.Fatal("no captures under " + capturedDir + ": the committed captures are missing")
	}
	preset, err := SynthesizeXML(PresetH200x2())
	if err != nil {
		t.Fatal(err)
	}
	for _, topoFile := range dirs {
		dir := filepath.Dir(topoFile)
		machine := filepath.Base(filepath.Dir(dir))
		release := strings.TrimPrefix(machine, "h200x2-")
		p, err := paramsForRelease(release)
		if err != nil {
			t.Fatal(err)
		}
		xmlData, err := os.ReadFile(topoFile)
		if err != nil {
			t.Fatal(err)
		}
		dump, err := ParseTopologyXML(topoFile, xmlData)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []struct {
			name string
			x    *XMLNode
		}{{"dump", dump}, {"preset", preset}} {
			t.Run(machine+"/"+filepath.Base(dir)+"/"+src.name, func(t *testing.T) {
				s, err := BuildSystem(topoFile, src.x, p)
				if err != nil {
					t.Fatal(err)
				}
				checkCaptured(t, dir, s, p)
			})
		}
	}
}

func checkCaptured(t *testing.T, dir string, s *System, p Params) {
	t.Helper()
	logData, err := os.ReadFile(filepath.Join(dir, "nccl.log"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(string(logData), "\n") {
		if m := ncclInfo.FindStringSubmatch(line); m != nil && topologyLine.MatchString(m[1]) {
			want = append(want, m[1])
		}
	}
	checkCapturedLines(t, dir, s, p, capturedOptions(t, capturedEnv(t, dir)), want)
}

// capturedEnv is the environment a capture's config.json records.
func capturedEnv(t *testing.T, dir string) map[string]string {
	t.Helper()
	var cfg struct{ Env map[string]string }
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.Env
}

// checkCapturedLines searches s with the options o and compares rank 0's
// topology lines (want) and graph.xml.
func checkCapturedLines(t *testing.T, dir string, s *System, p Params, o Options, want []string) {
	t.Helper()
	r, err := Search([]*System{s}, p, o)
	if err != nil {
		t.Fatal(err)
	}
	got := append(r.Nodes[0].System.SystemLines(), r.Log...)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rank 0's topology lines differ (-NCCL +model):\n%s", d)
	}
	graphData, err := os.ReadFile(filepath.Join(dir, "graph.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var gx strings.Builder
	if err := r.WriteGraphXML(&gx, 0); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(graphData), gx.String()); d != "" {
		t.Errorf("graph.xml differs (-NCCL +model):\n%s", d)
	}
}

// paramsForRelease names the parameters of a captured release directory;
// outside tests a release's parameters come from its spec.Release.
func paramsForRelease(release string) (Params, error) {
	switch release {
	case "2.22.3":
		return Params2_22_3(), nil
	case "2.28.3":
		return Params2_28_3(), nil
	case "2.28.9":
		return Params2_28_9(), nil
	}
	return Params{}, fmt.Errorf("captured release %q has no topology parameters", release)
}

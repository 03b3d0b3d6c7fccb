package hw

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

func TestSafeEnvironForcesNVLSOff(t *testing.T) {
	in := []string{"PATH=/bin", "NCCL_NVLS_ENABLE=1", "NVSHMEM_DISABLE_NVLS=0", "NCCL_ALGO=NVLS"}
	out := SafeEnviron(in, false)
	if bad := CheckSafe(out); len(bad) != 0 {
		t.Fatalf("unsafe after SafeEnviron: %v in %v", bad, out)
	}
	for _, kv := range []string{"PATH=/bin", "NCCL_ALGO=NVLS"} {
		if !slices.Contains(out, kv) {
			t.Errorf("lost %s", kv)
		}
	}
	if slices.Contains(out, "NCCL_NVLS_ENABLE=1") {
		t.Error("the user's NCCL_NVLS_ENABLE=1 survived")
	}
	if got := SafeEnviron(in, true); !slices.Equal(got, in) {
		t.Errorf("with --allow-nvls the environment must be left alone: %v", got)
	}
}

func TestApplySafetySetsThisProcess(t *testing.T) {
	for _, s := range SafetyEnv {
		t.Setenv(s[0], "unsafe")
	}
	changed := ApplySafety(false)
	if len(changed) != len(SafetyEnv) {
		t.Errorf("changed %v", changed)
	}
	if bad := CheckSafe(os.Environ()); len(bad) != 0 {
		t.Errorf("still unsafe: %v", bad)
	}
	if changed := ApplySafety(false); len(changed) != 0 {
		t.Errorf("second call changed %v", changed)
	}
}

func TestChildEnvIsSafeWhateverTheConfigSays(t *testing.T) {
	cfg := conformance.Config{Name: "evil", Env: spec.Env{"NCCL_NVLS_ENABLE": "1", "NCCL_PROTO": "LL"}}
	env := ChildEnv([]string{"NCCL_PROTO=Simple", "HOME=/root"}, cfg, "/cap", false)
	if bad := CheckSafe(env); len(bad) != 0 {
		t.Fatalf("child environment unsafe: %v", bad)
	}
	want := []string{"NCCL_PROTO=LL", "HOME=/root", "NCCL_DEBUG=INFO", "NCCL_DEBUG_FILE=/cap/nccl.log", "NCCL_TOPO_DUMP_FILE=/cap/topo.xml", "NCCL_GRAPH_DUMP_FILE=/cap/graph.xml"}
	for _, w := range want {
		if !slices.Contains(env, w) {
			t.Errorf("child environment lacks %s: %v", w, env)
		}
	}
	if slices.Contains(env, "NCCL_PROTO=Simple") {
		t.Error("the configuration must override the parent's variable")
	}
}

// TestMain doubles as the child process of the matrix test: with
// GATESIM_HW_TEST_CHILD set it writes its environment where the capture
// variables say and exits, as a `gatesim hw run` would write its log there.
func TestMain(m *testing.M) {
	if os.Getenv("GATESIM_HW_TEST_CHILD") == "1" {
		f, err := os.Create(os.Getenv("NCCL_DEBUG_FILE"))
		if err != nil {
			os.Exit(5)
		}
		w := bufio.NewWriter(f)
		for _, kv := range os.Environ() {
			w.WriteString(kv + "\n")
		}
		w.Flush()
		f.Close()
		if os.Getenv("NCCL_PROTO") == "fail" {
			os.Exit(4)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Every process RunMatrix starts has the safety variables, whatever the
// parent's environment and the configuration say.
func TestMatrixChildrenAreSafe(t *testing.T) {
	t.Setenv("GATESIM_HW_TEST_CHILD", "1")
	t.Setenv("NCCL_NVLS_ENABLE", "1")
	t.Setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "0")
	out := t.TempDir()
	cfgs := []conformance.Config{
		{Name: "a", Env: spec.Env{"NCCL_ALGO": "NVLS"}},
		{Name: "b", Env: spec.Env{"NCCL_NVLS_ENABLE": "1", "NCCL_PROTO": "fail"}},
	}
	entries, err := RunMatrix(context.Background(), MatrixOptions{Exe: os.Args[0], Out: out, Configs: cfgs})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].ExitCode != 0 || entries[1].ExitCode != 4 {
		t.Fatalf("entries %+v: want exit codes 0 and 4", entries)
	}
	for _, c := range cfgs {
		b, err := os.ReadFile(filepath.Join(out, c.Name, conformance.CaptureLog))
		if err != nil {
			t.Fatalf("%s: the child wrote no log: %v", c.Name, err)
		}
		env := strings.Split(strings.TrimSpace(string(b)), "\n")
		if bad := CheckSafe(env); len(bad) != 0 {
			t.Errorf("%s: child ran with %v unsafe", c.Name, bad)
		}
		for k, v := range c.Env {
			if k != "NCCL_NVLS_ENABLE" && !slices.Contains(env, k+"="+v) {
				t.Errorf("%s: child lacks %s=%s", c.Name, k, v)
			}
		}
		if _, err := os.Stat(filepath.Join(out, c.Name, conformance.CaptureConfig)); err != nil {
			t.Errorf("%s: no config.json", c.Name)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "matrix.json")); err != nil {
		t.Error("no matrix.json")
	}
}

func TestStandardMatrix(t *testing.T) {
	if len(StandardMatrix) < 15 {
		t.Fatalf("%d configurations: the capture matrix needs at least 15", len(StandardMatrix))
	}
	names := map[string]bool{}
	for _, c := range StandardMatrix {
		if names[c.Name] {
			t.Errorf("duplicate %s", c.Name)
		}
		names[c.Name] = true
		if _, ok := c.Env["NCCL_NVLS_ENABLE"]; ok {
			t.Errorf("%s sets NCCL_NVLS_ENABLE", c.Name)
		}
	}
	if _, err := FindConfigs([]string{"baseline", "nope"}); err == nil || !strings.Contains(err.Error(), "unknown configuration \"nope\"") {
		t.Errorf("FindConfigs: %v", err)
	}
	if got, _ := FindConfigs([]string{"net"}); len(got) != 1 || got[0].Env["NCCL_SHM_DISABLE"] != "1" {
		t.Errorf("FindConfigs(net) = %v", got)
	}
}

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The findings of the hostile-input review, one test each: every case
// exits with the code of its class (never a panic, never a hang), and bad
// input names what was expected.

const (
	capturedTopo  = "../../golden/testdata/captured/h200x2-2.28.9/baseline/topo.xml"
	capturedGraph = "../../golden/testdata/captured/h200x2-2.28.9/baseline/graph.xml"
	capturedBase  = "../../golden/testdata/captured/h200x2-2.28.9/baseline"
)

func readTestdata(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("committed test data missing: %v", err)
	}
	return string(b)
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHostileInputsRefused(t *testing.T) {
	graph := readTestdata(t, capturedGraph)
	topoXML := readTestdata(t, capturedTopo)
	g65 := writeTemp(t, "g65.xml", strings.Replace(graph, `nchannels="12"`, `nchannels="65"`, 1))
	gneg := writeTemp(t, "gneg.xml", strings.Replace(graph, `nchannels="12"`, `nchannels="-12"`, 1))
	negLinks := writeTemp(t, "neg.xml", strings.Replace(topoXML, `count="18"`, `count="-18"`, 1))
	negSpeed := writeTemp(t, "speed.xml", strings.Replace(topoXML, `speed="10000"`, `speed="-400000"`, 1))
	dupGPU := writeTemp(t, "dup.xml", strings.Replace(topoXML, `<gpu dev="1"`, `<gpu dev="0"`, 1))
	dupSys := writeTemp(t, "dup.json", `{"nodes":[{"gpus":[{"dev":0,"sm":90,"mlopart":0},{"dev":0,"sm":90,"mlopart":1},{"dev":0,"sm":90}]}]}`)
	bigGroup := writeTemp(t, "calls.txt", "init c0\nallreduce "+strings.Repeat("c", 10<<20)+" 1MiB\n")
	longName := writeTemp(t, "long.txt", "init c0\nallreduce "+strings.Repeat("c", 1000)+" 1MiB\n")
	deepGroup := writeTemp(t, "deep.txt", strings.Repeat("groupStart\n", 2000))
	hugeSweep := writeTemp(t, "sweep.yaml", "nccl: [2.28.9]\nsystems: [{preset: dgx-h100, nodes: [1,2,4,8,16,32,64,128,256,512], gpus: [1,2,3,4,5,6,7,8,9,10]}]\ncolls: [allreduce, allgather, reducescatter, broadcast, reduce]\nsizes: {from: \"1\", to: 1TiB, factor: 2}\nenv: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}]\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"graph nchannels 65, topo search", []string{"topo", "search", "--topo", capturedTopo, "--graph-file", g65}, "MAXCHANNELS"},
		{"graph nchannels 65, explain", []string{"explain", "--topo", capturedTopo, "--env", "NCCL_GRAPH_FILE=" + g65, "--env", "NCCL_NVLS_ENABLE=0"}, "MAXCHANNELS"},
		{"graph nchannels 65, sim", []string{"sim", "--topo", capturedTopo, "--env", "NCCL_GRAPH_FILE=" + g65, "--env", "NCCL_NVLS_ENABLE=0", "--bytes", "1MiB"}, "MAXCHANNELS"},
		{"graph nchannels -12", []string{"topo", "search", "--topo", capturedTopo, "--graph-file", gneg}, "gneg.xml:2"},
		{"topo search nodes 2^63-1", []string{"topo", "search", "--preset", "dgx-h100", "--nodes", "9223372036854775807"}, "expected 1 to"},
		{"sim nodes 131072", []string{"sim", "--system", "dgx-h100", "--nodes", "131072"}, "expected 1 to"},
		{"sim gpus 4096", []string{"sim", "--system", "dgx-h100", "--gpus", "4096"}, "NCCL_MAX_LOCAL_RANKS"},
		{"sim gpus 0", []string{"sim", "--system", "dgx-h100", "--gpus", "0"}, "expected 1 to 72"},
		{"sim channels -4", []string{"sim", "--system", "dgx-h100", "--channels", "-4", "--bytes", "1MiB"}, "MAXCHANNELS"},
		{"count overflows", []string{"explain", "--system", "dgx-h100", "--count", "2305843009213693952"}, "exceeds"},
		{"count 2^50", []string{"explain", "--system", "dgx-h100", "--count", "1125899906842624"}, "exceeds"},
		{"count -5", []string{"explain", "--system", "dgx-h100", "--count", "-5"}, "negative count"},
		{"whatif workers -5", []string{"whatif", "--system", "dgx-h100", "--workers", "-5"}, "--workers"},
		{"whatif 10 million points", []string{"whatif", "--file", hugeSweep}, "points"},
		{"topology XML negative link count", []string{"table", "--topo", negLinks}, "neg.xml:5"},
		{"topology XML negative NIC speed", []string{"table", "--topo", negSpeed}, "speed.xml:9"},
		{"topology XML duplicate GPU dev", []string{"table", "--topo", dupGPU}, "dup.xml:12"},
		{"system file GPU dev whole and partition", []string{"explain", "--system-file", dupSys}, "both as a whole GPU and as an MLOPart partition"},
		{"system file /dev/zero", []string{"explain", "--system-file", "/dev/zero"}, "a device"},
		{"topology a directory", []string{"table", "--topo", t.TempDir()}, "a directory"},
		{"group 10 MB communicator name", []string{"group", bigGroup}, "expected a line of at most"},
		{"group 1 KB communicator name", []string{"group", longName}, "communicator name"},
		{"group nested 2000 deep", []string{"group", deepGroup}, "nested"},
		{"env value of 1 MB", []string{"explain", "--system", "v100x4", "--env", "NCCL_IB_HCA=" + strings.Repeat("mlx5_0,", 150000)}, "at most"},
		{"version code 70000", []string{"explain", "--nccl", "70000", "--system", "v100x4"}, "20000-29999"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, c.args...)
			if code != exitBadInput || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %.300q: want exit 2 naming %q", code, stderr, c.want)
			}
		})
	}
}

// A FIFO named as a file is refused without opening it (opening would
// block until a writer came).
func TestFIFORefusedWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan int, 1)
	var stderr string
	go func() {
		var code int
		code, _, stderr = runCLI(t, "group", fifo)
		done <- code
	}()
	select {
	case code := <-done:
		if code != exitBadInput || !strings.Contains(stderr, "a FIFO") {
			t.Errorf("exit %d, %q", code, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("group FILE blocked on a FIFO")
	}
}

// group exits 1 when a call returns an error (it exited 0).
func TestGroupFailedCallExitsOne(t *testing.T) {
	f := writeTemp(t, "calls.txt", "allreduce nope 1MiB\n")
	code, stdout, stderr := runCLI(t, "group", f)
	if code != exitNo || !strings.Contains(stdout, "ncclInvalidArgument") || !strings.Contains(stderr, "calls.txt:1") {
		t.Errorf("exit %d, %q, %q", code, stdout, stderr)
	}
}

// hw check said "agree" with nothing compared; a capture without its graph
// dump or with a cut log is "not comparable", with what it lacks listed.
// Missing evidence is no difference: exit 0 unless something compared
// differs (exit 1 is "differs", as the help says).
func TestHWCheckNotComparable(t *testing.T) {
	for name, mutate := range map[string]func(dir string) error{
		"graph.xml missing": func(dir string) error { return os.Remove(filepath.Join(dir, "graph.xml")) },
		"log cut after the version line": func(dir string) error {
			log, err := os.ReadFile(filepath.Join(dir, "nccl.log"))
			if err != nil {
				return err
			}
			lines := strings.SplitAfter(string(log), "\n")
			return os.WriteFile(filepath.Join(dir, "nccl.log"), []byte(strings.Join(lines[:8], "")), 0o644)
		},
		"log empty": func(dir string) error { return os.WriteFile(filepath.Join(dir, "nccl.log"), nil, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "baseline")
			if err := os.CopyFS(dir, os.DirFS(capturedBase)); err != nil {
				t.Fatalf("committed capture missing: %v", err)
			}
			if err := mutate(dir); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, "hw", "check", "--from", dir)
			want := exitOK
			if strings.Contains(stdout, "| DIFFER |") {
				want = exitNo // a cut log misses lines init prints: those differ
			}
			if code != want || want == exitOK && !strings.Contains(stdout, "| not comparable |") || !strings.Contains(stdout, "baseline ("+dir+"): not comparable:") {
				t.Errorf("exit %d (want %d, the capture listed as not comparable):\n%s\n%s", code, want, stdout, stderr)
			}
		})
	}
	code, _, stderr := runCLI(t, "hw", "check", "--from", capturedBase)
	if code != exitOK {
		t.Errorf("the intact capture: exit %d, %s", code, stderr)
	}
}

// panicReader stands for any bug: its Read panics.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("reader bug") }

// A panic is an internal error with the command line, exit 70, not a Go
// stack trace with exit 2.
func TestPanicIsInternalError(t *testing.T) {
	var out, errb bytes.Buffer
	code := runWithInput([]string{"env", "--nccl", "2.28.9", "--file", "-"}, panicReader{}, &out, &errb)
	if code != exitInternal || code == exitBadInput {
		t.Fatalf("exit %d, want %d", code, exitInternal)
	}
	for _, want := range []string{"internal error: reader bug", "input: gatesim env --nccl 2.28.9 --file -", "bug in gatesim"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestMain lets a test run the real main (GATESIM_TEST_MAIN=1), with the
// process's own standard input.
// env --file - never read standard input: main passed none.
func TestMainReadsStdin(t *testing.T) {
	cmd := exec.Command(os.Args[0], "env", "--nccl", "2.28.9", "--file", "-")
	cmd.Env = append(os.Environ(), "GATESIM_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader("export NCCL_IB_HCA=mlx5_0\n")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "NCCL_IB_HCA") || !strings.Contains(string(out), "1 variable(s)") {
		t.Errorf("env --file - through main:\n%s", out)
	}
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
)

// exampleTasks are the five first tasks of a new user, run as written in
// examples/tasks/README.md; each golden file holds the command and what it
// prints (paths it writes shown under OUT/).
var exampleTasks = []struct {
	name string
	args []string
}{
	{"1-plan-16-dgx-h100-sharp", []string{"whatif", "--system", "dgx-h100", "--nodes", "16", "--sharp", "both", "--env", "NCCL_COLLNET_ENABLE=1",
		"--sizes", "4KiB:16GiB:x16", "--out", "OUT/plan"}},
	{"2-lint-job-script", []string{"env", "--nccl", "2.28.9", "--file", "examples/job.sh", "--system", "dgx-h100", "--nodes", "16"}},
	{"3-read-a-log", []string{"diagnose", "examples/hgx-ring.log", "--html", "OUT/diagnose.html"}},
	{"4-busbw-against-nodes", []string{"whatif", "--system", "dgx-h100", "--system", "hgx-h200", "--system", "dgx-a100", "--nodes", "1,2,4,8,16,32,64",
		"--sizes", "1MiB,256MiB", "--no-sim", "--out", "OUT/nodes"}},
	{"5-perfetto-trace", []string{"sim", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--bytes", "64MiB", "--channels", "8",
		"--trace", "OUT/ring.json", "--trace-ranks", "all"}},
}

// TestExampleTasks runs each task from the repository root and compares
// its output with examples/tasks/NAME.txt (-update rewrites them).
func TestExampleTasks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Chdir(root)
	t.Setenv("COLUMNS", "120")
	for _, task := range exampleTasks {
		args := make([]string, len(task.args))
		for i, a := range task.args {
			args[i] = strings.Replace(a, "OUT/", tmp+"/"+task.name+"-", 1)
		}
		code, out, stderr := runCLI(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", task.name, code, stderr)
			continue
		}
		var written []string
		for _, line := range strings.Split(stderr, "\n") {
			if p, ok := strings.CutPrefix(line, "wrote "); ok {
				written = append(written, strings.Replace(p, tmp+"/"+task.name+"-", "OUT/", 1))
			}
		}
		sort.Strings(written)
		got := "$ gatesim " + strings.Join(task.args, " ") + "\n" + strings.ReplaceAll(out, tmp+"/"+task.name+"-", "OUT/")
		if len(written) > 0 {
			got += "\n# written: " + strings.Join(written, ", ") + "\n"
		}
		if task.name == "5-perfetto-trace" {
			dropped, lanes, counters := checkTraceEvents(t, strings.Replace("OUT/ring.json", "OUT/", tmp+"/"+task.name+"-", 1))
			var cs []string
			for name, n := range counters {
				cs = append(cs, fmt.Sprintf("%s (%d samples)", name, n))
			}
			sort.Strings(cs)
			nl := 0
			for _, tids := range lanes {
				nl += len(tids)
			}
			got += fmt.Sprintf("\n# trace check: %d events dropped, %d ranks, %d lanes, counters: %s\n", len(dropped), len(lanes), nl, strings.Join(cs, ", "))
		}
		goldenfile.Check(t, filepath.Join(root, "examples", "tasks", task.name+".txt"), got, *update)
	}
	if _, err := os.Stat(filepath.Join(root, "examples", "tasks", "README.md")); err != nil {
		t.Error(err)
	}
}

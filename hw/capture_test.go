package hw

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

func TestCaptureRoundTrip(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "proto-ll")
	res := &conformance.RunResult{Config: "proto-ll", Env: spec.Env{"NCCL_PROTO": "LL"}, Library: "/x/libnccl.so.2", Version: spec.V2_28_9, Release: spec.V2_28_9,
		NRanks: 2, Procs: 1, Timing: "events", Check: "device",
		Rows: []conformance.Row{{Func: spec.ReduceScatter, Coll: "ReduceScatter", Size: 512, Count: 128, Type: spec.Bfloat16, TypeS: "bfloat16", RedOp: "sum", Root: -1, TimeUs: 9, Wrong: 0, Iters: 20, Batches: 1}}}
	if err := WriteCapture(dir, &conformance.Config{Name: "proto-ll", Env: spec.Env{"NCCL_PROTO": "LL"}}, res); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"nccl.log": "vm:1:2 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n", "topo.xml": "<system/>", "graph.xml": "<graphs/>"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a directory without config.json is not a capture
	os.MkdirAll(filepath.Join(root, "junk"), 0o755)
	set, err := ReadCaptureSet(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != 1 {
		t.Fatalf("%d captures", len(set))
	}
	c := set[0]
	if c.Config.Name != "proto-ll" || c.Config.Env["NCCL_PROTO"] != "LL" || c.Result == nil || c.Result.Rows[0].Func != spec.ReduceScatter ||
		c.Result.Rows[0].Type != spec.Bfloat16 || string(c.Topo) != "<system/>" || string(c.Graph) != "<graphs/>" ||
		len(c.LogNames()) != 1 || !strings.Contains(string(c.Logs["nccl.log"]), "2.28.9") {
		t.Errorf("read back %+v", c)
	}
	if _, err := os.Stat(filepath.Join(dir, conformance.CaptureTable)); err != nil {
		t.Error("no results.txt")
	}
}

// A results JSON is ours: unknown fields, timed rows without iters and
// sizes other than nccl-tests' for the count are refused by file and line.
func TestReadRunResultErrors(t *testing.T) {
	const head = `{"version": 22809, "nranks": 2, "rows": [
`
	row := func(coll, extra string, size, count int) string {
		return fmt.Sprintf(`  {"coll": %q, "size": %d, "count": %d, "type": "float", "redop": "sum", "root": -1, "time_us": 5, "iters": 20%s}`, coll, size, count, extra)
	}
	for _, c := range []struct{ name, body, want string }{
		{"good", head + row("AllReduce", "", 8, 2) + ",\n" + row("AllGather", "", 16, 2) + ",\n" + row("ReduceScatter", "", 16, 2) + ",\n" + row("AllToAll", "", 16, 2) + ",\n" + row("Broadcast", "", 8, 2) + "]}", ""},
		// NCCL refused the operation: nothing was timed
		{"refused row", head + `  {"coll": "AllReduce", "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1, "iters": 0, "error": {"result": 5}}]}`, ""},
		{"iters 0", head + `  {"coll": "AllReduce", "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1, "time_us": 5, "iters": 0}]}`, "x.json:2: AllReduce 8 bytes: iters 0: expected at least 1"},
		{"iters absent", head + `  {"coll": "AllReduce", "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1, "time_us": 5}]}`, ""},
		{"iters negative", head + `  {"coll": "AllReduce", "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1, "time_us": 5, "iters": -3}]}`, "x.json:2: AllReduce 8 bytes: iters -3"},
		{"AllReduce size", head + row("AllReduce", "", 8, 2) + ",\n" + row("AllReduce", "", 8, 4) + "]}", "x.json:3: AllReduce size 8 of count 4 float on 2 ranks: expected size 16"},
		{"AllGather size", head + row("AllGather", "", 8, 2) + "]}", "x.json:2: AllGather size 8 of count 2 float on 2 ranks: expected size 16"},
		{"unknown field", head + row("AllReduce", `, "iter": 20`, 8, 2) + "]}", "x.json:2: json: unknown field \"iter\""},
		{"unknown top field", `{"version": 22809,` + "\n" + `"ranks": 2, "rows": []}`, "x.json:2: json: unknown field \"ranks\""},
		{"wrong type", head + `  {"coll": "AllReduce", "size": "8"}]}`, "x.json:2: json: cannot unmarshal string"},
		{"truncated", head, "x.json:2: unexpected EOF"},
	} {
		p := filepath.Join(t.TempDir(), "x.json")
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadRunResult(p)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestReadCaptureErrors(t *testing.T) {
	root := t.TempDir()
	if _, err := ReadCaptureSet(root); err == nil || !strings.Contains(err.Error(), "no capture directories") {
		t.Errorf("empty set: %v", err)
	}
	dir := filepath.Join(root, "bad")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, conformance.CaptureConfig), []byte(`{"name": "bad"}`), 0o644)
	os.WriteFile(filepath.Join(dir, conformance.CaptureResults), []byte(`{"rows": [{"coll": "AllSum", "type": "float"}]}`), 0o644)
	if _, err := ReadCapture(dir); err == nil || !strings.Contains(err.Error(), "results.json: row 0: unknown collective") {
		t.Errorf("bad row: %v", err)
	}
	os.WriteFile(filepath.Join(dir, conformance.CaptureResults), []byte(`{"rows": [`), 0o644)
	if _, err := ReadCapture(dir); err == nil || !strings.Contains(err.Error(), "results.json") {
		t.Errorf("bad json: %v", err)
	}
	os.Remove(filepath.Join(dir, conformance.CaptureResults))
	c, err := ReadCapture(dir)
	if err != nil || c.Result != nil {
		t.Errorf("a capture whose process died keeps its config: %v %+v", err, c)
	}
}

func TestCaptureEnvPerRank(t *testing.T) {
	if e := CaptureEnv("/c", 3); e["NCCL_DEBUG_FILE"] != "/c/nccl.rank3.log" || e["NCCL_DEBUG_SUBSYS"] != DebugSubsys {
		t.Errorf("%v", e)
	}
}

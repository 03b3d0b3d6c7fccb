package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const ntHead = `# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22809
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 2 minBytes 8 maxBytes 4096 step: 2(factor) warmup iters: 10 iters: 20 agg iters: 4 validation: 1 graph: 10 unalign: 0
`

// Bad input names the file and line.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, body, want string
	}{
		{"nt-twice.txt", ntHead + "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803\n" + "           8             2     float     sum      -1     6.23    0.00    0.00       0     6.10    0.00    0.00       0\n", "nt-twice.txt:4: nccl-library=22803 after nccl-library=22809: two releases"},
		{"nt-notime.txt", ntHead + "           8             2     float     sum      -1     N/A    0.00    0.00       0     6.10    0.00    0.00       0\n", "nt-notime.txt:4: out-of-place column 6 time (us) \"N/A\": expected a finite number > 0"},
		{"nt-norel.txt", "# Collective test starting: all_reduce_perf\n           8             2     float     sum      -1     6.2    0.00    0.00       0     6.10    0.00    0.00       0\n", "nt-norel.txt:1: no \"nccl-library=\""},
		{"gs-bad.json", "{\"rows\": [", "gs-bad.json:1:"},
		{"gs-notime.json", `{"version": 22809, "nranks": 2, "rows": [
  {"coll": "AllReduce", "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1,
   "time_us": 0, "iters": 20}
]}`, "gs-notime.json:2: AllReduce 8 bytes: a row without a time"},
		{"gs-noiters.json", `{"version": 22809, "nranks": 2, "rows": [
  {"coll": "AllReduce", "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1,
   "time_us": 5, "iters": 0}
]}`, "gs-noiters.json:2: AllReduce 8 bytes: iters 0: expected at least 1"},
		// AllGather's size is every rank's count (nccl-tests' convention)
		{"gs-agsize.json", `{"version": 22809, "nranks": 2, "rows": [
  {"coll": "AllReduce", "size": 8, "count": 2, "type": "float", "redop": "sum", "root": -1, "time_us": 5, "iters": 20},
  {"coll": "AllGather", "size": 8, "count": 2, "type": "float", "redop": "none", "root": -1, "time_us": 5, "iters": 20}
]}`, "gs-agsize.json:3: AllGather size 8 of count 2 float on 2 ranks: expected size 16"},
		{"gs-arsize.json", `{"version": 22809, "nranks": 2, "rows": [
  {"coll": "AllReduce", "size": 8, "count": 4, "type": "float", "redop": "sum", "root": -1, "time_us": 5, "iters": 20}
]}`, "gs-arsize.json:2: AllReduce size 8 of count 4 float on 2 ranks: expected size 16"},
		{"gs-unknown.json", `{"version": 22809, "nranks": 2,
  "timeing": "graph",
  "rows": []}`, "gs-unknown.json:2: json: unknown field \"timeing\""},
		{"gs-twice.json", `{"version": 22809, "nranks": 2, "rows": []}
{"version": 22809, "nranks": 2, "rows": []}`, "gs-twice.json:2: data after the results object"},
	}
	for _, c := range cases {
		p := write(t, dir, c.name, c.body)
		_, err := Load([]string{p})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	p := write(t, dir, "notes.md", "hello")
	if _, err := Load([]string{p}); err == nil || !strings.Contains(err.Error(), "notes.md:1: unknown format") {
		t.Errorf("unknown format: %v", err)
	}
}

// nccl-tests' header gives the launch mode: -G, -m N and -n N (not -w N).
func TestLoadLaunchMode(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "nt-g.txt", ntHead+"           8             2     float     sum      -1     6.23    0.00    0.00       0     6.10    0.00    0.00       0\n")
	rows, err := Load([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !rows[0].Launch.Graph() || rows[0].Launch.Agg != 4 || rows[0].Launch.Iters != 20 || rows[0].Release.String() != "2.28.9" || rows[0].Line != 4 {
		t.Errorf("%+v", rows)
	}
	if k := rows[0].ConfigKey(); k != "AllReduce baseline 2.28.9 graph m4" {
		t.Errorf("key %q", k)
	}
}

// A run of two ranks sharing one GPU (ncclCommInitAll with devlist {0, 0},
// hw/testdata/device/multirank) is another machine than the profile's:
// Run never fits h200x2 to it; alone it is refused by name, beside the
// machine's own rows only its launch floors are read, for launch.group_op
// (TestGroupOpFromSharedGPU), and --exclude leaves it out.
func TestRunRefusesSharedGPU(t *testing.T) {
	dir := filepath.Join("..", "hw", "testdata", "device", "multirank", "2.30.7", "plain")
	rows, err := Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || !rows[0].SharedGPU {
		t.Fatalf("%d rows, shared GPU %v: want the capture's rows marked as sharing a GPU", len(rows), len(rows) > 0 && rows[0].SharedGPU)
	}
	_, err = Run(Options{From: []string{dir}, System: "h200x2", Name: "h200x2", Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "results.json:") || !strings.Contains(err.Error(), "several ranks on one GPU") || !strings.Contains(err.Error(), "no row to fit") {
		t.Errorf("error %v: want the file named and the shared GPU refused as the rows to fit", err)
	}
	if _, err = Run(Options{From: []string{dir}, Exclude: []string{"multirank/*/*/*"}, System: "h200x2", Name: "h200x2", Workers: 1}); err == nil || strings.Contains(err.Error(), "one GPU") {
		t.Errorf("excluded: error %v, want only that nothing is left to fit", err)
	}
}

// A one-rank run (hw/testdata/device/onerank) is refused for the 2-rank
// h200x2 profile, naming its file.
func TestRunRefusesOtherRankCount(t *testing.T) {
	dir := filepath.Join("..", "hw", "testdata", "device", "onerank", "2.28.7")
	_, err := Run(Options{From: []string{dir}, System: "h200x2", Name: "h200x2", Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "results.json:") || !strings.Contains(err.Error(), "a run of 1 rank(s)") {
		t.Errorf("error %v: want the one-rank run refused by name", err)
	}
	// nccl-tests outputs list their ranks ("#  Rank  1 Group ..."): the
	// 2-GPU run is refused for the 8-GPU dgx-h100 as hw run's JSON is
	_, err = Run(Options{From: []string{filepath.Join("..", "hw", "testdata", "compare", "run2")}, Exclude: []string{"gs-*"}, System: "dgx-h100", Name: "dgx-h100", Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "nt-all_gather-2.28.3.txt:14: a run of 2 rank(s), on a machine other than dgx-h100 (8 ranks)") {
		t.Errorf("nccl-tests on dgx-h100: error %v, want the 2-rank output refused by name", err)
	}
}

// A row repeated within one pass over the sizes is counted once (the
// first kept), a later pass (nccl-tests -N) is not a repeat, and the
// report says how many rows were counted once and where the first is.
func TestLoadCountsRepeatsOnce(t *testing.T) {
	const r8 = "           8             2     float     sum      -1     6.23    0.00    0.00       0     6.10    0.00    0.00       0\n"
	const r16 = "          16             4     float     sum      -1     6.40    0.00    0.00       0     6.20    0.00    0.00       0\n"
	const r16b = "          16             4     float     sum      -1     7.40    0.00    0.00       0     7.20    0.00    0.00       0\n"
	for _, c := range []struct {
		name, body string
		rows, reps int
		first      string
	}{
		{"one pass", ntHead + r8 + r16, 2, 0, ""},
		{"two passes", ntHead + r8 + r16 + r8 + r16, 4, 0, ""},
		{"pasted row", ntHead + r8 + r16 + r16 + r16, 2, 2, "nt-x.txt:6"},
		{"same operation, another time", ntHead + r8 + r16 + r16b, 2, 1, "nt-x.txt:6"},
	} {
		p := write(t, t.TempDir(), "nt-x.txt", c.body)
		rows, reps, err := load([]string{p})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(rows) != c.rows || reps.N != c.reps || !strings.HasSuffix(reps.First, c.first) {
			t.Errorf("%s: %d rows, %d counted once (first %q); want %d, %d (%q)", c.name, len(rows), reps.N, reps.First, c.rows, c.reps, c.first)
		}
		if c.reps > 0 && rows[1].TimeUs != 6.40 {
			t.Errorf("%s: kept %v us, want the first row's 6.40", c.name, rows[1].TimeUs)
		}
	}
}

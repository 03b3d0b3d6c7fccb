package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

func answers(t testing.TB, o *Oracle, in string, maxLine int) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	if err := o.Serve(strings.NewReader(in), &out, maxLine); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var ms []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("answer is not JSON: %s", l)
		}
		ms = append(ms, m)
	}
	return ms
}

const goodReq = `{"id":%d,"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":"1MiB"}}`

// A line over the limit gets an invalid answer naming it, and the lines
// after it are answered (bufio.Scanner used to end the stream there).
func TestServeLongLineGoesOn(t *testing.T) {
	in := fmt.Sprintf(goodReq, 1) + "\n" + `{"id":2,"x":"` + strings.Repeat("a", 5000) + `"}` + "\n" + fmt.Sprintf(goodReq, 3) + "\n"
	ms := answers(t, New(nil), in, 1000)
	if len(ms) != 3 {
		t.Fatalf("%d answers, want 3", len(ms))
	}
	inv, _ := ms[1]["invalid"].(map[string]any)
	if ms[1]["status"] != "invalid" || !strings.Contains(fmt.Sprint(inv["message"]), "line 2: 5015 bytes") {
		t.Errorf("long line answered %v", ms[1])
	}
	if ms[0]["status"] != "ok" || ms[2]["status"] != "ok" || ms[2]["id"] != float64(3) {
		t.Errorf("good lines answered %v, %v", ms[0], ms[2])
	}
}

// The last line needs no newline; blank and # lines get no answer.
func TestServeEdges(t *testing.T) {
	in := "\n# comment\n   \n" + fmt.Sprintf(goodReq, 1)
	if ms := answers(t, New(nil), in, 0); len(ms) != 1 || ms[0]["status"] != "ok" {
		t.Fatalf("answers %v", ms)
	}
}

func TestTrailingDataInvalid(t *testing.T) {
	for _, tail := range []string{" xyz", " {}", `{"id":2}`, " 1"} {
		m := decode(t, New(nil).HandleLine([]byte(fmt.Sprintf(goodReq, 7)+tail)))
		if m["status"] != "invalid" || m["id"] != float64(7) {
			t.Errorf("%q after the object: %v", tail, m)
		}
	}
	if m := decode(t, New(nil).HandleLine([]byte(fmt.Sprintf(goodReq, 7)+"  \t"))); m["status"] != "ok" {
		t.Errorf("trailing blanks: %v", m)
	}
}

// Files outside --allow-dir, missing files, devices and links out of the
// directory all get the same answer: nothing about them leaks.
func TestAllowDirLeaksNothing(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../golden/testdata/captured/h200x2-2.28.9/baseline/topo.xml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "topo.xml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte(`{"CapAmb": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	read, err := inputfile.Under([]string{dir}, spec.MaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	o := New(read)
	msg := func(path string) string {
		m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"`+path+`","op":{"coll":"allreduce","bytes":4}}`)))
		if m["status"] != "invalid" {
			t.Fatalf("%s: %v", path, m)
		}
		return strings.ReplaceAll(m["invalid"].(map[string]any)["message"].(string), path, "P")
	}
	want := msg("/nonexistent/x.json")
	for _, p := range []string{outside, "/proc/self/status", "/dev/zero", filepath.Join(dir, "link.json"), filepath.Join(dir, "missing.json"), dir + "/../" + filepath.Base(filepath.Dir(outside)) + "/secret.json"} {
		if got := msg(p); got != want || strings.Contains(got, "CapAmb") {
			t.Errorf("%s: %q, want the same answer as a missing file %q", p, got, want)
		}
	}
	m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"`+filepath.Join(dir, "topo.xml")+`","env":{"NCCL_NVLS_ENABLE":"0"},"op":{"coll":"allreduce","bytes":4}}`)))
	if m["status"] != "ok" {
		t.Errorf("a file under the allowed directory: %v", m)
	}
}

// NCCL_GRAPH_FILE is honoured through the same reader, or refused
// explicitly when the oracle reads no files.
func TestGraphFileHonoured(t *testing.T) {
	graph, err := os.ReadFile("../golden/testdata/captured/h200x2-2.28.9/baseline/graph.xml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(graph), `nchannels="`, `nchannels="6`, 1)
	files := map[string][]byte{"g.xml": graph, "bad.xml": []byte(bad)}
	o := New(func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("no file %s", p)
	})
	req := func(gf string) map[string]any {
		return decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0","NCCL_GRAPH_FILE":"`+gf+`"},"op":{"coll":"allreduce","bytes":"2MiB"}}`)))
	}
	if m := req("g.xml"); m["status"] != "ok" {
		t.Errorf("graph file: %v", m)
	}
	m := req("bad.xml")
	inv, _ := m["invalid"].(map[string]any)
	if m["status"] != "invalid" || inv["field"] != "env.NCCL_GRAPH_FILE" && inv["field"] != "system" || !strings.Contains(fmt.Sprint(inv["message"]), "MAXCHANNELS") {
		t.Errorf("nchannels beyond MAXCHANNELS: %v", m)
	}
	m = decode(t, New(nil).HandleLine([]byte(`{"nccl":"2.28.9","system":"h200x2","env":{"NCCL_GRAPH_FILE":"g.xml"},"op":{"coll":"allreduce","bytes":4}}`)))
	if inv, _ := m["invalid"].(map[string]any); m["status"] != "invalid" || inv["field"] != "env.NCCL_GRAPH_FILE" {
		t.Errorf("an oracle without files: %v", m)
	}
}

func TestRanksBudget(t *testing.T) {
	o := New(nil)
	o.MaxRanks = 64
	m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"dgx-h100","nodes":9,"op":{"coll":"allreduce","bytes":4}}`)))
	if m["status"] != "invalid" || !strings.Contains(fmt.Sprint(m["invalid"]), "72 ranks") {
		t.Errorf("72 ranks over a budget of 64: %v", m)
	}
	if m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"dgx-h100","nodes":8,"op":{"coll":"allreduce","bytes":4}}`))); m["status"] != "ok" {
		t.Errorf("64 ranks: %v", m)
	}
}

// From 2^50 elements the answer was "ok" with algo null; counts and byte
// sizes beyond the limit, or overflowing, are invalid.
func TestHugeCountsInvalid(t *testing.T) {
	for _, op := range []string{`"count":1125899906842624`, `"count":2305843009213693952`, `"bytes":"2TiB"`, `"count":-5`} {
		m := decode(t, New(nil).HandleLine([]byte(`{"nccl":"2.28.9","system":"dgx-h100","op":{"coll":"allreduce",`+op+`}}`)))
		if m["status"] != "invalid" {
			t.Errorf("%s: %v", op, m)
		}
	}
}

// A panic in a request becomes an "internal" answer and the stream goes on.
func TestPanicIsInternal(t *testing.T) {
	o := New(func(string) ([]byte, error) { panic("boom") })
	in := `{"nccl":"2.28.9","system":"x.json","op":{"coll":"allreduce","bytes":4}}` + "\n" + fmt.Sprintf(goodReq, 2) + "\n"
	ms := answers(t, o, in, 0)
	if len(ms) != 2 || ms[0]["status"] != "internal" || !strings.Contains(fmt.Sprint(ms[0]["internal"]), "boom") || ms[1]["status"] != "ok" {
		t.Fatalf("answers %v", ms)
	}
}

// The metamorphic test, in the manner of pebble's: a random stream of good
// requests with bad lines interleaved gives the good lines the same answers
// as the good lines alone, in the same order, on any number of workers.
// The bad lines include requests over the memory budget.
func TestMetamorphicBadLinesChangeNothing(t *testing.T) {
	goods := []string{
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":"1MiB"}}`,
		`{"nccl":"2.22.3","system":"v100x4","env":{"NCCL_ALGO":"NVLS"},"op":{"coll":"allreduce","bytes":"1MiB"}}`,
		`{"nccl":"2.28.9","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0","NCCL_PROTO":"LL128"},"op":{"coll":"allgather","bytes":"64KiB"}}`,
		`{"nccl":"2.28.9","system":"dgx-h100","nodes":2,"sharp":true,"env":{"NCCL_COLLNET_ENABLE":"1"},"op":{"coll":"allreduce","bytes":"16MiB","dtype":"bf16"}}`,
		`{"nccl":22203,"system":{"preset":"dgx-a100","nodes":2},"op":{"coll":"reducescatter","count":4096,"dtype":"int8"}}`,
		`{"nccl":"2.28.3","system":"dgx-h100","op":{"coll":"broadcast","bytes":"4KiB","root":3}}`,
	}
	bads := []string{
		`{`, `[]`, `null`, `{"nccl":"9.9.9","system":"v100x4","op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"/dev/zero","op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":4}} trailing`,
		`{"nccl":"2.28.9","system":"dgx-h100","nodes":100000,"op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"dgx-h100","op":{"coll":"allreduce","count":2305843009213693952}}`,
		`{"nccl":"2.28.9","system":"v100x4","env":{"NCCL_GRAPH_FILE":"/etc/passwd"},"op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":4},"x":"` + strings.Repeat("z", 70<<10) + `"}`,
		"\x00\xff\xfe garbage",
		`{"nccl":"2.28.9","system":"dgx-h100","nodes":4096,"op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"v100x4","group":[` + strings.TrimSuffix(strings.Repeat(`{"coll":"allreduce","bytes":"1MiB"},`, 320), ",") + `]}`,
	}
	alone := map[int]string{} // good request index → its answer alone
	for i, g := range goods {
		alone[i] = string(New(nil).HandleLine([]byte(g)))
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "n")
		var in strings.Builder
		var want []string
		for range n {
			if rapid.Bool().Draw(t, "bad") {
				in.WriteString(rapid.SampledFrom(bads).Draw(t, "badLine") + "\n")
				continue
			}
			i := rapid.IntRange(0, len(goods)-1).Draw(t, "good")
			in.WriteString(goods[i] + "\n")
			want = append(want, alone[i])
		}
		var out bytes.Buffer
		o := New(nil)
		o.MaxMemory = 32 << 20 // the last two bad lines need more
		o.Workers = rapid.IntRange(1, 4).Draw(t, "workers")
		if err := o.Serve(strings.NewReader(in.String()), &out, 64<<10); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if !strings.Contains(l, `"status":"invalid"`) {
				got = append(got, l)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("good lines answered differently among bad ones:\n got %v\nwant %v", got, want)
		}
	})
}

// FuzzServe feeds whole streams: every line gets one JSON answer, the
// stream never ends early.
func FuzzServe(f *testing.F) {
	f.Add([]byte(fmt.Sprintf(goodReq, 1) + "\n{\n\n# c\n" + fmt.Sprintf(goodReq, 2)))
	f.Add([]byte(`{"nccl":"2.28.9","system":"/dev/zero","op":{"coll":"allreduce","bytes":4}} x` + "\n"))
	f.Add([]byte(`{"nccl":"2.28.9","system":"dgx-h100","nodes":9223372036854775807,"op":{"coll":"allreduce","count":2305843009213693952}}`))
	f.Add([]byte(`{"nccl":"2.28.9","system":"v100x4","env":{"NCCL_GRAPH_FILE":"g.xml","NCCL_IB_HCA":"` + strings.Repeat("mlx5_0,", 100) + `"},"op":{"coll":"allreduce","bytes":4}}`))
	o := New(nil) // one oracle for every execution, as in FuzzHandleLine
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if err := o.Serve(bytes.NewReader(in), &out, 512); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		want := 0
		for _, l := range strings.Split(string(in), "\n") {
			if tl := strings.TrimSpace(l); tl != "" && tl[0] != '#' || len(l) > 512 {
				want++
			}
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			lines = nil
		}
		if len(lines) != want {
			t.Fatalf("%d answers for %d request lines", len(lines), want)
		}
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("not JSON: %s", l)
			}
			switch m["status"] {
			case "ok", "error", "invalid":
			default:
				t.Fatalf("status %v: %s", m["status"], l)
			}
		}
	})
}

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/tunertest"
)

// TestOracleTunerStream: a crashing and a hanging tuner get a tunerFault
// answer, and the stream keeps answering the requests after them; so does
// a crashing v6 tuner on 2.30.7, which accepts v6.
func TestOracleTunerStream(t *testing.T) {
	dir := t.TempDir()
	crash := tunertest.Build(t, dir, 3, "crash")
	hang := tunertest.Build(t, dir, 5, "hang")
	force := tunertest.Build(t, dir, 5, "force")
	crash6 := tunertest.Build(t, dir, 6, "crash")
	force6 := tunertest.Build(t, dir, 6, "force")
	req := func(id int, tuner string, nccl ...string) string {
		v := "2.28.9"
		if len(nccl) > 0 {
			v = nccl[0]
		}
		b, _ := json.Marshal(map[string]any{"id": id, "nccl": v, "system": "dgx-h100", "nodes": 2, "tuner": tuner,
			"op": map[string]any{"coll": "allreduce", "bytes": "1MiB"}})
		return string(b)
	}
	in := strings.Join([]string{req(1, crash), req(2, hang), req(3, force), req(4, "/etc/passwd"),
		req(5, crash6, "2.30.7"), req(6, force6, "2.30.7")}, "\n") + "\n"
	var out, errb bytes.Buffer
	code := runWithInput([]string{"oracle", "--no-trace", "--tuner-dir", dir, "--tuner-timeout", "1s"}, strings.NewReader(in), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d answers, want 6:\n%s", len(lines), out.String())
	}
	type answer struct {
		Status string `json:"status"`
		Error  *struct {
			Result  string `json:"result"`
			Message string `json:"message"`
		} `json:"error"`
		Invalid *struct{ Field string } `json:"invalid"`
		Algo    *string                 `json:"algo"`
		Proto   *string                 `json:"proto"`
		Tuner   *struct {
			ABI     int  `json:"abi"`
			Changed bool `json:"changed"`
		} `json:"tuner"`
	}
	var as []answer
	for _, l := range lines {
		var a answer
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	for i, want := range []string{"crashed during getCollInfo", "hung during getCollInfo"} {
		if a := as[i]; a.Status != "error" || a.Error == nil || a.Error.Result != "tunerFault" || !strings.Contains(a.Error.Message, want) {
			t.Errorf("answer %d: %s: want a tunerFault answer saying %q", i+1, lines[i], want)
		}
	}
	if a := as[2]; a.Status != "ok" || a.Algo == nil || *a.Algo != "Ring" || *a.Proto != "Simple" || a.Tuner == nil || a.Tuner.ABI != 5 || !a.Tuner.Changed {
		t.Errorf("answer 3: %s: want Ring/Simple forced by the v5 tuner", lines[2])
	}
	if a := as[3]; a.Status != "invalid" || a.Invalid == nil || a.Invalid.Field != "tuner" {
		t.Errorf("answer 4: %s: want a path outside --tuner-dir refused", lines[3])
	}
	if a := as[4]; a.Status != "error" || a.Error == nil || a.Error.Result != "tunerFault" || !strings.Contains(a.Error.Message, "crashed during getCollInfo") {
		t.Errorf("answer 5: %s: want a tunerFault answer from the v6 tuner", lines[4])
	}
	if a := as[5]; a.Status != "ok" || a.Algo == nil || *a.Algo != "Ring" || *a.Proto != "Simple" || a.Tuner == nil || a.Tuner.ABI != 6 || !a.Tuner.Changed {
		t.Errorf("answer 6: %s: want Ring/Simple forced by the v6 tuner on 2.30.7", lines[5])
	}
}

// TestExplainTuner: explain --tuner prints the table before and after and
// the choice without and with the plugin.
func TestExplainTuner(t *testing.T) {
	so := tunertest.Build(t, t.TempDir(), 2, "force")
	var out, errb bytes.Buffer
	code := run([]string{"explain", "--nccl", "2.22.3", "--system", "dgx-h100", "--nodes", "2", "--coll", "allreduce", "--bytes", "64KiB", "--tuner", so}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"ncclTunerPlugin_v2 \"gatesim-test-v2\"", "Ring/Simple", "→ 0.00", "choice without the plugin: Tree/LL; with it: Ring/Simple", "CHANGED by the plugin"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("explain output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestWhatifSimTuner: whatif --tuner marks the points the plugin changed;
// sim --tuner runs the plugin's choice.
func TestWhatifSimTuner(t *testing.T) {
	so := tunertest.Build(t, t.TempDir(), 4, "force")
	var out, errb bytes.Buffer
	code := run([]string{"whatif", "--nccl", "2.28.9", "--system", "dgx-h100", "--nodes", "2", "--sizes", "4KiB,256MiB", "--no-sim", "--no-progress", "--workers", "1", "--tuner", so}, &out, &errb)
	if code != 0 {
		t.Fatalf("whatif exit %d: %s", code, errb.String())
	}
	if s := out.String(); !strings.Contains(s, "tuner plugin") || !strings.Contains(s, "CHANGED (without: Tree/LL)") || strings.Count(s, "Ring/Simple") < 2 {
		t.Errorf("whatif --tuner output:\n%s", s)
	}
	out.Reset()
	code = run([]string{"sim", "--nccl", "2.28.9", "--system", "dgx-h100", "--nodes", "2", "--bytes", "64KiB", "--json", "--tuner", so}, &out, &errb)
	if code != 0 {
		t.Fatalf("sim exit %d: %s", code, errb.String())
	}
	var rep struct {
		Selection string `json:"selection"`
		Tuner     *struct {
			ABI       int  `json:"abi"`
			Finalized bool `json:"finalized"`
		} `json:"tuner"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Selection, "Ring/Simple") || rep.Tuner == nil || rep.Tuner.ABI != 4 || !rep.Tuner.Finalized {
		t.Errorf("sim --tuner: selection %q, tuner %+v: want Ring/Simple through the v4 plugin, finalized", rep.Selection, rep.Tuner)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/tunertest"
)

// TestTunerFlag owns what each command shows of a --tuner plugin that
// forces Ring/Simple where NCCL's model picks Tree/LL (dgx-h100 × 2, an
// AllReduce of 64 KiB or 1 MiB): explain prints the table before and after
// and both choices, whatif marks the points the plugin changed, sim runs
// the plugin's choice and finalizes it, and an oracle answer carries the
// plugin's choice, its ABI and the change, v6 included on 2.30.7. The
// plugin's effect on the decision itself is tuner's (TestGolden); a JSON
// output is compacted before its words are looked for.
func TestTunerFlag(t *testing.T) {
	dir := t.TempDir()
	oracleReq := func(nccl string, abi int) string {
		b, _ := json.Marshal(map[string]any{"id": 1, "nccl": nccl, "system": "dgx-h100", "nodes": 2, "tuner": tunertest.Build(t, dir, abi, "force"),
			"op": map[string]any{"coll": "allreduce", "bytes": "1MiB"}})
		return string(b) + "\n"
	}
	for _, tc := range []struct {
		name  string
		abi   int
		args  []string // --tuner SO is appended
		stdin string   // oracle requests name their plugin themselves
		want  []string
	}{
		{"explain v2 on 2.22.3", 2, []string{"explain", "--nccl", "2.22.3", "--system", "dgx-h100", "--nodes", "2", "--coll", "allreduce", "--bytes", "64KiB"}, "",
			[]string{`ncclTunerPlugin_v2 "gatesim-test-v2"`, "Ring/Simple", "→ 0.00", "choice without the plugin: Tree/LL; with it: Ring/Simple", "CHANGED by the plugin"}},
		{"whatif v4 on 2.28.9", 4, []string{"whatif", "--nccl", "2.28.9", "--system", "dgx-h100", "--nodes", "2", "--sizes", "4KiB,256MiB", "--no-sim", "--no-progress", "--workers", "1"}, "",
			[]string{"tuner plugin", "CHANGED (without: Tree/LL)", "Ring/Simple"}},
		{"sim v4 on 2.28.9", 4, []string{"sim", "--nccl", "2.28.9", "--system", "dgx-h100", "--nodes", "2", "--bytes", "64KiB", "--json"}, "",
			[]string{`"selection":"Ring/Simple`, `"abi":4`, `"finalized":true`}},
		{"oracle v5 on 2.28.9", 5, []string{"oracle", "--no-trace", "--tuner-dir", dir}, oracleReq("2.28.9", 5),
			[]string{`"status":"ok"`, `"algo":"Ring"`, `"proto":"Simple"`, `"abi":5`, `"changed":true`}},
		{"oracle v6 on 2.30.7", 6, []string{"oracle", "--no-trace", "--tuner-dir", dir}, oracleReq("2.30.7", 6),
			[]string{`"status":"ok"`, `"algo":"Ring"`, `"proto":"Simple"`, `"abi":6`, `"changed":true`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.stdin == "" {
				args = append(slices.Clone(args), "--tuner", tunertest.Build(t, dir, tc.abi, "force"))
			}
			var out, errb bytes.Buffer
			if code := runWithInput(args, strings.NewReader(tc.stdin), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			got := out.String()
			var c bytes.Buffer
			if json.Compact(&c, out.Bytes()) == nil {
				got = c.String()
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestOracleTunerStream: a crashing and a hanging tuner get a tunerFault
// answer, and the stream keeps answering the requests after them; so does
// a crashing v6 tuner on 2.30.7, which accepts v6. What a forcing plugin's
// answer says is TestTunerFlag's.
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
		Tuner   *struct {
			ABI int `json:"abi"`
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
	if a := as[3]; a.Status != "invalid" || a.Invalid == nil || a.Invalid.Field != "tuner" {
		t.Errorf("answer 4: %s: want a path outside --tuner-dir refused", lines[3])
	}
	if a := as[4]; a.Status != "error" || a.Error == nil || a.Error.Result != "tunerFault" || !strings.Contains(a.Error.Message, "crashed during getCollInfo") {
		t.Errorf("answer 5: %s: want a tunerFault answer from the v6 tuner", lines[4])
	}
	// after each fault the next plugin is loaded and answers
	for i, abi := range map[int]int{2: 5, 5: 6} {
		if a := as[i]; a.Status != "ok" || a.Tuner == nil || a.Tuner.ABI != abi {
			t.Errorf("answer %d: %s: want an answer through the v%d plugin", i+1, lines[i], abi)
		}
	}
}

package golden

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/oracle"
	"github.com/google/go-cmp/cmp"
)

// TestOracleVectors replays testdata/vectors/*.requests.jsonl through the
// oracle and compares each answer with the line of the matching
// .answers.jsonl. These files are gatesim's conformance vectors: another
// implementation that answers the same requests the same way agrees with
// gatesim's model of NCCL.
func TestOracleVectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "vectors", "*.requests.jsonl"))
	if len(files) == 0 {
		t.Fatal("no vector files")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			o := oracle.New(nil)
			var got bytes.Buffer
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				line := bytes.TrimSpace(sc.Bytes())
				if len(line) == 0 || line[0] == '#' {
					continue
				}
				ans := o.HandleLine(line)
				if !json.Valid(ans) {
					t.Fatalf("answer is not JSON: %s", ans)
				}
				got.Write(ans)
				got.WriteByte('\n')
			}
			out := strings.TrimSuffix(f, ".requests.jsonl") + ".answers.jsonl"
			if *update {
				if err := os.WriteFile(out, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("%v (run go test ./golden -update)", err)
			}
			wl, gl := strings.Split(string(want), "\n"), strings.Split(got.String(), "\n")
			if len(wl) != len(gl) {
				t.Fatalf("%d answers, want %d", len(gl), len(wl))
			}
			for i := range wl {
				if wl[i] != gl[i] {
					var a, b any
					_ = json.Unmarshal([]byte(wl[i]), &a)
					_ = json.Unmarshal([]byte(gl[i]), &b)
					t.Errorf("answer %d differs (-want +got):\n%s", i+1, cmp.Diff(a, b))
				}
			}
		})
	}
}

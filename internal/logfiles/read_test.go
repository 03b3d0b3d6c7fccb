package logfiles

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
)

// TestReadLogs: a file, a directory (an empty file in it skipped with a
// note) and standard input; a directory without a log is an error.
func TestReadLogs(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("..", "..", "examples", "nccl.log"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rank0.log"), log, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rank1.log"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for _, tc := range []struct {
		args  []string
		names int
		warn  string
		err   bool
	}{
		{[]string{filepath.Join(dir, "rank0.log")}, 1, "", false},
		{[]string{dir}, 1, "skipped", false},
		{[]string{"-"}, 1, "", false},
		{[]string{empty}, 0, "", true},
		{[]string{filepath.Join(dir, "missing.log")}, 0, "", true},
	} {
		var warn bytes.Buffer
		p := ncclog.NewParser()
		names, err := ReadLogs(p, tc.args, bytes.NewReader(log), &warn)
		if tc.err != (err != nil) || len(names) != tc.names || !strings.Contains(warn.String(), tc.warn) {
			t.Errorf("%v: names %v, warn %q, err %v", tc.args, names, warn.String(), err)
			continue
		}
		if !tc.err && p.Finish().NCCLLines == 0 {
			t.Errorf("%v: no NCCL line read", tc.args)
		}
	}
}

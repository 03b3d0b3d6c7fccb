// Package goldenfile is the one compare-or-rewrite step behind every golden
// test in the module: the output a test builds now is checked against a
// committed file, or written there when the test binary runs with -update.
// Sharing it keeps "-update" meaning the same thing in every package and
// every mismatch reported the same way (a line diff, -want +got).
package goldenfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Check compares got with the file at path and reports a line diff when they
// differ; with update set it (re)writes the file instead, creating its
// directory. It reports whether the file now holds got.
func Check(t testing.TB, path, got string, update bool) bool {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if d := Diff(string(want), got); d != "" {
		t.Errorf("%s differs from the output built now (rerun with -update and review the change) (-want +got):\n%s", path, d)
		return false
	}
	return true
}

// Diff is a line diff of two texts (-want +got), empty when they are equal.
func Diff(want, got string) string {
	return cmp.Diff(want, got)
}

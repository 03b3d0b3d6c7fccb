package goldenfile

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps failures instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, format)
}

func TestCheckRewritesThenCompares(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "case.txt")
	if !Check(t, path, "a\nb\n", true) {
		t.Fatal("update should report the file holds the output")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("rewritten file %q, %v", b, err)
	}
	if !Check(t, path, "a\nb\n", false) {
		t.Error("same output reported as different")
	}
	r := &recorder{TB: t}
	if Check(r, path, "a\nc\n", false) {
		t.Error("changed output reported as equal")
	}
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "-update") {
		t.Errorf("mismatch reported as %q, want one error telling how to update", r.errs)
	}
	if d := Diff("a\nb\n", "a\nc\n"); !strings.Contains(d, "-") || !strings.Contains(d, "+") {
		t.Errorf("diff %q shows neither side", d)
	}
}

// TestMakeGoldenCoversEveryUpdateFlag keeps `make golden` honest: its
// GOLDEN_PKGS must name exactly the packages whose tests define -update
// (go test refuses a flag a package lacks, and a package left out would
// keep stale golden files).
func TestMakeGoldenCoversEveryUpdateFlag(t *testing.T) {
	updateFlag := regexp.MustCompile(`(?m)^var update\s*=\s*flag\.Bool\("update"`)
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(string(mk), "\n") {
		if rest, ok := strings.CutPrefix(line, "GOLDEN_PKGS"); ok {
			_, pkgs, _ := strings.Cut(rest, "=")
			listed = strings.Fields(pkgs)
		}
	}
	if len(listed) == 0 {
		t.Fatal("Makefile: no GOLDEN_PKGS line")
	}
	covered := func(dir string) bool {
		for _, p := range listed {
			p = strings.TrimPrefix(p, "./")
			if sub, ok := strings.CutSuffix(p, "/..."); ok {
				if dir == sub || strings.HasPrefix(dir, sub+"/") {
					return true
				}
			} else if dir == p {
				return true
			}
		}
		return false
	}
	defines := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if updateFlag.Match(b) {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			defines[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(defines) == 0 {
		t.Fatal("found no package defining -update: is the walk rooted at the module?")
	}
	for dir := range defines {
		if !covered(dir) {
			t.Errorf("./%s defines -update but Makefile's GOLDEN_PKGS leaves it out", dir)
		}
	}
	for _, p := range listed {
		p = strings.TrimPrefix(p, "./")
		if strings.HasSuffix(p, "/...") {
			continue
		}
		if !defines[p] {
			t.Errorf("Makefile's GOLDEN_PKGS names ./%s, whose tests define no -update flag (go test would fail)", p)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec"
)

// TestCheckedInTableMatchesGenerator regenerates the table from NCCL's
// source at every modelled tag and compares the bytes with
// ncclog/data/srclines.tsv. CI has only Go, so without the mirror the test
// skips and says why (ncclog's own tests check the table against the
// modelled releases either way).
func TestCheckedInTableMatchesGenerator(t *testing.T) {
	dir := ncclmirror.ForTest(t)
	tags := make([]string, len(spec.Releases))
	for i, v := range spec.Releases {
		tags[i] = v.Tag()
	}
	got, err := generate(tags, func(tag string) ([]srcFile, error) { return readGit(dir, tag) })
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "ncclog", "data", "srclines.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("generator output differs from the checked-in table: regenerate with\n  go run ./tools/gensrclines -git %s -o ncclog/data/srclines.tsv", dir)
	}
}

// locLines finds the calls that print a location, through macros defined
// in terms of others, across lines, and not in comments, strings or
// macro bodies.
func TestLocLines(t *testing.T) {
	hdr := `#define WARN(...) logIt(__FILE__, __LINE__, __VA_ARGS__)
#define INFO(F, ...) logIt(__func__, __LINE__, __VA_ARGS__)
#define NCCLCHECK(call) do { \
  int r = call; \
  if (r) { INFO(1, "%s:%d -> %d", __FILE__, __LINE__, r); return r; } \
} while (0)
#define CHECKGOTO(call, res, label) do { NCCLCHECK(call); } while (0)
`
	src := `int f() {
  INFO(1, "not a location");
  NCCLCHECK(g());
  // WARN("commented out");
  const char* s = "WARN(in a string)";
  WARN("spans",
       "two lines");
  /* NCCLCHECK(h()); */
  CHECKGOTO(h(), r, out);
  printf("%d", __LINE__);
}
`
	got := locLines([]srcFile{{Path: "include/debug.h", Data: []byte(hdr)}, {Path: "x.cc", Data: []byte(src)}})
	var lines []int
	for k := range got {
		if k.file != "x.cc" {
			t.Errorf("marked %s:%d (a macro definition)", k.file, k.line)
			continue
		}
		lines = append(lines, k.line)
	}
	sort.Ints(lines)
	if want := []int{3, 6, 7, 9, 10}; !slices.Equal(lines, want) {
		t.Errorf("lines %v, want %v", lines, want)
	}
}

// The table's bytes: delta-coded lines, a mask only where it changes.
func TestGenerateFormat(t *testing.T) {
	files := map[string][]srcFile{
		"v1": {{Path: "a.cc", Data: []byte("\nWARN(x);\n\nWARN(y);\n")}},
		"v2": {{Path: "a.cc", Data: []byte("WARN(x);\nWARN(x);\n\nWARN(y);\n")}},
	}
	hdr := []byte("#define WARN(...) log(__FILE__, __VA_ARGS__)\n")
	out, err := generate([]string{"v1", "v2"}, func(tag string) ([]srcFile, error) {
		return append(files[tag], srcFile{Path: "include/debug.h", Data: hdr}), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "tags\tv1\tv2\na.cc\t1:2\t1:3\t2\n"
	if !bytes.HasSuffix(out, []byte(want)) {
		t.Errorf("table ends\n%s\nwant\n%s", out, want)
	}
}

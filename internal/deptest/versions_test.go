package deptest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// versionConst matches the names of release constants (spec.V2_28_9,
// nccl.V2_30_7).
var versionConst = regexp.MustCompile(`^V[0-9]+_[0-9]+_[0-9]+$`)

// versionCompareAllowed are files that still compare versions, each with
// the reason. The release files (spec/release_*.go) are where release facts
// live and are always allowed. Nothing else may join this list: a new fact
// goes on the release (spec.Release, its Consts or TopoParams, or the
// parameter registry's Release) and the code asks it.
var versionCompareAllowed = map[string]string{}

// TestNoVersionComparisons fails when non-test code outside the release
// files compares a Version with a particular release: a release constant
// (V2_28_3) or a MakeVersion literal, in a comparison or a switch case.
// Such code asks the release for a named fact instead, so a new release
// cannot fall silently down the wrong branch.
func TestNoVersionComparisons(t *testing.T) {
	root := filepath.Join("..", "..")
	var bad []string
	seen := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		if m, _ := filepath.Match("spec/release_*.go", rel); m {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found := versionComparisons(f)
		if _, ok := versionCompareAllowed[rel]; ok {
			if len(found) == 0 {
				t.Errorf("%s compares no version any more: drop it from versionCompareAllowed", rel)
			}
			seen[rel] = true
			return nil
		}
		for _, pos := range found {
			p := fset.Position(pos)
			bad = append(bad, fmt.Sprintf("%s:%d", rel, p.Line))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: compares a version with a particular release; ask the release for a named fact", b)
	}
	for file := range versionCompareAllowed {
		if !seen[file] {
			t.Errorf("allowed file %s no longer exists: drop it from versionCompareAllowed", file)
		}
	}
}

// versionComparisons returns the positions of comparisons and switch cases
// whose operand names a particular release.
func versionComparisons(f *ast.File) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				if namesRelease(n.X) || namesRelease(n.Y) {
					out = append(out, n.Pos())
				}
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if namesRelease(e) {
					out = append(out, e.Pos())
				}
			}
		}
		return true
	})
	return out
}

// namesRelease reports whether e is a release constant or a MakeVersion
// call, possibly parenthesised or converted.
func namesRelease(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return namesRelease(e.X)
	case *ast.Ident:
		return versionConst.MatchString(e.Name)
	case *ast.SelectorExpr:
		return versionConst.MatchString(e.Sel.Name)
	case *ast.CallExpr:
		switch fn := e.Fun.(type) {
		case *ast.Ident:
			return fn.Name == "MakeVersion"
		case *ast.SelectorExpr:
			return fn.Sel.Name == "MakeVersion"
		}
	}
	return false
}

// TestVersionComparisonsDetected keeps the scan honest: it must flag the
// forms it exists to forbid and pass the forms that ask a release.
func TestVersionComparisonsDetected(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{`package p; func f(v spec.Version) bool { return v == spec.V2_28_3 || v == spec.V2_28_9 }`, 2},
		{`package p; func f(v spec.Version) bool { return v < spec.MakeVersion(2, 24, 0) }`, 1},
		{`package p; func f(v Version) bool { return (V2_22_3) != v }`, 1},
		{`package p; func f(v Version) int { switch v { case V2_22_3: return 1 }; return 0 }`, 1},
		{`package p; func f(rs *spec.Ruleset) bool { return rs.Consts.HasFP8 }`, 0},
		{`package p; func f(p Params, v spec.Version) bool { return p.Release <= v }`, 0},
		{`package p; var x = spec.MakeVersion(2, 30, 7)`, 0},
	}
	for _, tc := range tests {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(versionComparisons(f)); got != tc.want {
			t.Errorf("%s: %d comparisons found, want %d", tc.src, got, tc.want)
		}
	}
}

package deptest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
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
// (V2_28_3) or a MakeVersion literal, in a comparison or a switch case; a
// release held in a field, ordered (v >= link.From); or a version's parts
// (v.Minor() >= 24). Such code asks the release for a named fact instead,
// so a new release cannot fall silently down the wrong branch; a window
// kept as data is tested by nccl.Version.Within alone.
func TestNoVersionComparisons(t *testing.T) {
	var bad []string
	seen := map[string]bool{}
	walkGoFiles(t, false, func(rel string, fset *token.FileSet, f *ast.File) {
		if m, _ := filepath.Match("spec/release_*.go", rel); m {
			return
		}
		found := versionComparisons(f)
		if _, ok := versionCompareAllowed[rel]; ok {
			if len(found) == 0 {
				t.Errorf("%s compares no version any more: drop it from versionCompareAllowed", rel)
			}
			seen[rel] = true
			return
		}
		for _, pos := range found {
			p := fset.Position(pos)
			bad = append(bad, fmt.Sprintf("%s:%d", rel, p.Line))
		}
	})
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
// whose operand names a particular release, of orderings of a release
// held in a field (v >= link.From, rs.Version < v), and of comparisons of a
// version's parts (v.Minor() >= 24, r.Minor > 27).
func versionComparisons(f *ast.File) []token.Pos {
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			switch n.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
				ordering := n.Op != token.EQL && n.Op != token.NEQ
				if namesRelease(n.X) || namesRelease(n.Y) ||
					ordering && (versionField(n.X) || versionField(n.Y)) && !sortKey(n.X, n.Y) ||
					versionPart(n.X) || versionPart(n.Y) {
					out = append(out, n.Pos())
				}
			}
		case *ast.CallExpr:
			// Version.Within is the one window test; its ends come from
			// data (a form's Since, a table's Release), never a literal
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Within" && slices.ContainsFunc(n.Args, namesRelease) {
				out = append(out, n.Pos())
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

// versionFields are the field names that hold a release (a window's ends,
// a ruleset's or a change's version): ordering one asks the version where
// the release value should be asked for a named fact.
var versionFields = map[string]bool{"Version": true, "From": true, "Until": true, "Since": true, "Release": true}

// versionParts are a version's parts, as Version's methods or as the
// fields of a struct that spells a release out.
var versionParts = map[string]bool{"Major": true, "Minor": true, "Patch": true, "Code": true}

// versionField reports whether e is a field that holds a release
// (x.From, rs.Version), possibly parenthesised or converted.
func versionField(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return versionField(e.X)
	case *ast.SelectorExpr:
		return versionFields[e.Sel.Name]
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			return versionField(e.Args[0])
		}
	}
	return false
}

// sortKey reports whether x and y are the same field of two values
// (a.Release < b.Release): an ordering of records, which asks nothing of
// a particular release.
func sortKey(x, y ast.Expr) bool {
	a, ok1 := x.(*ast.SelectorExpr)
	b, ok2 := y.(*ast.SelectorExpr)
	return ok1 && ok2 && a.Sel.Name == b.Sel.Name
}

// versionPart reports whether e is a part of a version: a call of
// Major/Minor/Patch/Code without arguments or a field of that name.
func versionPart(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return versionPart(e.X)
	case *ast.SelectorExpr:
		return versionParts[e.Sel.Name]
	case *ast.CallExpr:
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && len(e.Args) == 0 {
			return versionParts[sel.Sel.Name]
		}
		if len(e.Args) == 1 {
			return versionPart(e.Args[0])
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
		// a release held in a field, ordered: the window belongs on the
		// release value or in Version.Within
		{`package p; func f(p Params, v spec.Version) bool { return p.Release <= v }`, 1},
		{`package p; func f(g GateLink, v spec.Version) bool { return (g.From == 0 || v >= g.From) && (g.Until == 0 || v <= g.Until) }`, 2},
		{`package p; func f(rs *spec.Ruleset) bool { return rs.Version.Minor() >= 24 }`, 1},
		{`package p; func f(r Rel) bool { return r.Minor > 27 }`, 1},
		{`package p; func f(v Version) bool { return v.Major() == 2 && v.Code() < 22703 }`, 2},
		{`package p; func f(v spec.Version) bool { return v.Within(spec.V2_24_3, 0) }`, 1},
		{`package p; func f(v spec.Version, f Form) bool { return v.Within(f.Since, f.Until) }`, 0},
		{`package p; func less(a, b Capture) bool { return a.Release < b.Release }`, 0},
		{`package p; func f(g GateLink) bool { return g.From == 0 }`, 0},
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

// walkGoFiles parses every Go file of the module (test files too with
// withTests), leaving out hidden folders, testdata and bin, and calls fn
// with its path from the module root.
func walkGoFiles(t *testing.T, withTests bool, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root := filepath.Join("..", "..")
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
		if !strings.HasSuffix(rel, ".go") || (!withTests && strings.HasSuffix(rel, "_test.go")) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

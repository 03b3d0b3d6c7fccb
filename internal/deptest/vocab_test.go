package deptest

import (
	"go/ast"
	"go/token"
	"testing"
)

// vocabReexports is the one file that may re-export package nccl's names
// under the same name (Func = nccl.Func, Ring = nccl.Ring): spec's older
// spellings. Another list would be a second owner of the same aliases;
// every other package names nccl directly.
const vocabReexports = "spec/vocab.go"

// TestOneVocabularyList fails when a file other than vocabReexports
// declares an alias or a re-export X = nccl.X.
func TestOneVocabularyList(t *testing.T) {
	where := map[string]int{}
	walkGoFiles(t, true, func(rel string, _ *token.FileSet, f *ast.File) {
		reexport := func(name *ast.Ident, e ast.Expr) {
			if sel, ok := e.(*ast.SelectorExpr); ok && sel.Sel.Name == name.Name {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "nccl" {
					where[rel]++
				}
			}
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Assign.IsValid() {
						reexport(s.Name, s.Type)
					}
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if i < len(s.Values) {
							reexport(n, s.Values[i])
						}
					}
				}
			}
		}
	})
	if where[vocabReexports] == 0 {
		t.Errorf("%s re-exports nothing: the walk missed it", vocabReexports)
	}
	for file, n := range where {
		if file != vocabReexports {
			t.Errorf("%s re-exports %d of package nccl's names: name them nccl.X (%s is the one list)", file, n, vocabReexports)
		}
	}
}

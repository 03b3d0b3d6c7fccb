package clex

import (
	"slices"
	"testing"
)

func texts(toks []Token) []string {
	var out []string
	for _, t := range toks {
		out = append(out, t.Text)
	}
	return out
}

func TestLex(t *testing.T) {
	lx := Lex([]byte("#define X \\\n  (1+2)\nint a = R\"x(ncclGetEnv(\"NCCL_RAW\"))x\"; // c\n/* \n */ char b = '\\'';\n" +
		"#define F(y) WARN(\"NCCL_IN_MACRO\", y)\n"))
	if len(lx.Defines) != 1 || lx.Defines[0].Name != "X" || !slices.Equal(texts(lx.Defines[0].Body), []string{"(", "1", "+", "2", ")"}) {
		t.Errorf("defines %+v", lx.Defines)
	}
	if lx.Defines[0].Body[0].Line != 1 {
		t.Errorf("a define's tokens carry its line: %+v", lx.Defines[0].Body)
	}
	want := []string{"int", "a", "=", `ncclGetEnv("NCCL_RAW")`, ";", "char", "b", "=", "'", ";"}
	if got := texts(lx.Toks); !slices.Equal(got, want) {
		t.Errorf("tokens %q, want %q", got, want)
	}
	if lx.Toks[5].Line != 5 {
		t.Errorf("line of char: %d", lx.Toks[5].Line)
	}
	// a function-like macro is a macro, not a constant; its body starts
	// after the parameter list
	if len(lx.Macros) != 2 || lx.Macros[1].Name != "F" || !slices.Equal(texts(lx.Macros[1].Body), []string{"WARN", "(", "NCCL_IN_MACRO", ",", "y", ")"}) {
		t.Errorf("macros %+v", lx.Macros)
	}
	if b := lx.Macros[1].Body; b[0].Line != 6 {
		t.Errorf("a function-like macro's tokens carry its line: %+v", b)
	}
	if len(lx.MacroStrings) != 1 || lx.MacroStrings[0].Text != "NCCL_IN_MACRO" || lx.MacroStrings[0].Line != 6 {
		t.Errorf("macro strings %+v", lx.MacroStrings)
	}
}

// FuzzLex: any input lexes without panicking, and lines never go back.
func FuzzLex(f *testing.F) {
	f.Add([]byte("#define A(x) \\\n x\nR\"(unterminated"))
	f.Add([]byte("/* unterminated"))
	f.Add([]byte("char c = '\\\n'; \"open\n#define B \"s\" /* x\n */ 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lx := Lex(data)
		for i := 1; i < len(lx.Toks); i++ {
			if lx.Toks[i].Line < lx.Toks[i-1].Line {
				t.Fatalf("token %d at line %d after line %d", i, lx.Toks[i].Line, lx.Toks[i-1].Line)
			}
		}
	})
}

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec/params"
	"github.com/gatesim/gatesim/tools/internal/clex"
)

// TestCheckedInTablesMatchGenerator regenerates every table from NCCL's
// source at its tag and compares the bytes with spec/params/data. CI has
// only Go, so without the mirror the test skips and says why.
func TestCheckedInTablesMatchGenerator(t *testing.T) {
	dir := ncclmirror.ForTest(t)
	for _, v := range params.Versions {
		tag := v.Tag()
		files, err := readGit(dir, tag)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		got, _, err := generate(tag, files)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "spec", "params", "data", tag+".tsv"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: generator output differs from the checked-in table: regenerate with\n  go run ./tools/genparams -git %s -tag %s -o spec/params/data/%s.tsv", tag, dir, tag, tag)
		}
	}
}

// TestGitAndDirAgree: the two ways of reading the source give the same bytes.
func TestGitAndDirAgree(t *testing.T) {
	dir := ncclmirror.ForTest(t)
	tag := "v2.28.9-1"
	out := t.TempDir()
	arch := exec.Command("sh", "-c", "git --git-dir \"$0\" archive \"$1\" src | tar -x -C \"$2\"", dir, tag, out)
	if b, err := arch.CombinedOutput(); err != nil {
		t.Skipf("git archive: %v %s", err, b)
	}
	gf, err := readGit(dir, tag)
	if err != nil {
		t.Fatal(err)
	}
	df, err := readDir(out)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err1 := generate(tag, gf)
	b, _, err2 := generate(tag, df)
	if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
		t.Fatalf("git and dir modes differ (%v, %v)", err1, err2)
	}
}

// TestAnalyzeSynthetic runs the analysis on a small invented tree that has
// every construct the generator handles.
func TestAnalyzeSynthetic(t *testing.T) {
	files := []srcFile{
		{"src/include/defs.h", []byte(`
#define UNDEF_INT INT_MIN
#define MAXCH 32
#define TWICE(x) (2*(x))
enum { MODE_A = 1, MODE_B, MODE_C };
const char* levelStr[] = { "LOC", "PIX", "SYS" };
#define TIMEOUT_OF(x) ((x) * ncclParamUnused())
#define TIMEOUT TIMEOUT_OF(2)
`)},
		{"src/a.cc", []byte(`
#include "defs.h"
NCCL_PARAM(Foo, "FOO", -2);
NCCL_PARAM(Bar, "BAR", MAXCH * 2);
NCCL_PARAM(Cfg, "CFG", UNDEF_INT);
NCCL_PARAM(Mode, "MODE", MODE_C);
NCCL_PARAM(Odd, "ODD", cudaSomething);
NCCL_PARAM(Unused, "UNUSED", 0);
NCCL_PARAM(Never, "NEVER", 0);
/* ncclGetEnv("NCCL_IN_COMMENT") is not a read */
static const char* s = "ncclGetEnv(\"NCCL_IN_STRING\")";

int getLevel(int* level, const char* levelEnv) {
  const char* str = ncclGetEnv(levelEnv);
  if (str) {
    for (int i = 0; i < 3; i++) if (strcmp(str, levelStr[i]) == 0) *level = i;
    if (*level < 0) *level = strtol(str, NULL, 0);
  }
  return 0;
}

static int useThem(struct comm* comm) {
  if (ncclParamFoo() != -2) return 1;
  int cfg = ncclParamCfg();
  if (cfg != UNDEF_INT && cfg <= 0) return 2;
  comm->config.cfgField = cfg;
  int l = -1;
  getLevel(&l, "NCCL_LEVEL");
  const char* dbg = ncclGetEnv("NCCL_DBG");
  if (dbg && strcasecmp(dbg, "INFO") == 0) return 3;
  if (0 < ncclParamMode()) return ncclParamBar();
  return ncclParamOdd() + TIMEOUT;
}

struct S {
  int method() { const char* e = std::getenv("NCCL_IN_METHOD"); return e ? atoi(e) : 0; }
};
`)},
	}
	rows, warnings := analyze(files)
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	by := map[string]params.Row{}
	for _, r := range rows {
		by[r.Name+"/"+string(r.Via)] = r
	}
	check := func(key string, f func(r params.Row) bool, what string) {
		t.Helper()
		r, ok := by[key]
		if !ok {
			t.Errorf("%s: missing (rows %v)", key, keys(by))
			return
		}
		if !f(r) {
			t.Errorf("%s: %s: %+v", key, what, r)
		}
	}
	check("NCCL_FOO/NCCL_PARAM", func(r params.Row) bool { return r.Default == "-2" && r.Computed && slices.Contains(r.Checks, "!=-2") }, "sentinel -2")
	check("NCCL_BAR/NCCL_PARAM", func(r params.Row) bool { return r.Default == "64" && r.Expr == "MAXCH * 2" }, "macro default")
	check("NCCL_CFG/NCCL_PARAM", func(r params.Row) bool {
		return r.Default == "-2147483648" && r.Computed && slices.Equal(r.Config, []string{"cfgField"}) && slices.Contains(r.Checks, "<=0")
	}, "alias, config field, checks")
	check("NCCL_MODE/NCCL_PARAM", func(r params.Row) bool { return r.Default == "3" && slices.Contains(r.Checks, ">0") }, "enum default and flipped check")
	check("NCCL_ODD/NCCL_PARAM", func(r params.Row) bool { return r.Default == "unresolved" && r.Expr == "cudaSomething" }, "unresolved")
	check("NCCL_UNUSED/NCCL_PARAM", func(r params.Row) bool { return len(r.Reads) == 1 && r.Reads[0].Func == "useThem" }, "read through two macros")
	check("NCCL_NEVER/NCCL_PARAM", func(r params.Row) bool { return len(r.Reads) == 0 && r.Defined == "src/a.cc" }, "declared, never read")
	check("NCCL_LEVEL/getLevel", func(r params.Row) bool {
		return slices.Equal(r.Values, []string{"LOC", "PIX", "SYS"}) && slices.Contains(r.Parse, "strtol") && r.Reads[0].Func == "useThem"
	}, "forwarded read with array values")
	check("NCCL_DBG/ncclGetEnv", func(r params.Row) bool {
		return slices.Equal(r.Values, []string{"INFO"}) && slices.Equal(r.Parse, []string{"strcasecmp"})
	}, "strcasecmp value")
	check("NCCL_IN_METHOD/std::getenv", func(r params.Row) bool { return r.Reads[0].Func == "method" && slices.Contains(r.Parse, "atoi") }, "method read")
	for _, k := range []string{"NCCL_IN_COMMENT/ncclGetEnv", "NCCL_IN_STRING/ncclGetEnv"} {
		if _, ok := by[k]; ok {
			t.Errorf("%s must not be a read", k)
		}
	}
	if err := params.Check(&params.Table{Tag: "v0", Rows: rows}); err != nil {
		t.Error(err)
	}
}

func keys(m map[string]params.Row) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	slices.Sort(k)
	return k
}

func TestEval(t *testing.T) {
	c := newConsts()
	c.add("A", clex.Lex([]byte("(1 << 4)")).Toks)
	c.add("B", clex.Lex([]byte("A * 2 + 1")).Toks)
	c.add("AMB", clex.Lex([]byte("1")).Toks)
	c.add("AMB", clex.Lex([]byte("2")).Toks)
	cases := []struct {
		expr string
		want int64
		ok   bool
	}{
		{"42", 42, true}, {"-2", -2, true}, {"0x10", 16, true}, {"010", 8, true}, {"1LL << 30", 1 << 30, true},
		{"B", 33, true}, {"(int64_t)-1", -1, true}, {"INT_MIN", -2147483648, true}, {"1 ? 2 : 3", 2, true},
		{"128 * 1024", 131072, true}, {"AMB", 0, false}, {"foo()", 0, false}, {"1 /", 0, false}, {"1u << NCCL_X", 0, false},
	}
	for _, cs := range cases {
		got, err := c.eval(clex.Lex([]byte(cs.expr)).Toks)
		if (err == nil) != cs.ok || (cs.ok && got != cs.want) {
			t.Errorf("eval(%q) = %d, %v; want %d ok=%v", cs.expr, got, err, cs.want, cs.ok)
		}
	}
}

func TestRunFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-tag", "v1"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "exactly one of -git or -src") {
		t.Errorf("no source: %d %q", code, errb.String())
	}
	if code := run([]string{"-src", t.TempDir(), "-tag", "v1"}, &out, &errb); code != 1 {
		t.Errorf("empty dir: %d", code)
	}
}

func FuzzLex(f *testing.F) {
	f.Add([]byte("NCCL_PARAM(A, \"A\", 1);\nint f(const char* x) { return ncclGetEnv(\"NCCL_B\") != 0; }\n"))
	f.Add([]byte("#define A(x) \\\n x\nR\"(unterminated"))
	f.Add([]byte("/* unterminated"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, _ := analyze([]srcFile{{"src/f.cc", data}})
		for _, r := range rows {
			if !strings.HasPrefix(r.Name, "NCCL_") {
				t.Fatalf("row %q", r.Name)
			}
		}
	})
}

func BenchmarkGenerate(b *testing.B) {
	dir := ncclmirror.ForTest(b)
	files, err := readGit(dir, "v2.28.9-1")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := generate("v2.28.9-1", files); err != nil {
			b.Fatal(err)
		}
	}
}

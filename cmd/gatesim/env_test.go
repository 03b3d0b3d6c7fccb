package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestEnvGolden lints every job script under testdata/env against several
// releases and compares the whole output (and exit status) with a golden
// file: <script>.<release>.txt, plus one JSON report.
func TestEnvGolden(t *testing.T) {
	scripts, err := filepath.Glob("testdata/env/*.sh")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no job scripts under testdata/env: %v", err)
	}
	type gcase struct {
		name string
		args []string
	}
	var cases []gcase
	for _, s := range scripts {
		base := strings.TrimSuffix(filepath.Base(s), ".sh")
		for _, rel := range []string{"2.22.3", "2.28.9", "2.30.7"} {
			cases = append(cases, gcase{base + "." + rel + ".txt", []string{"env", "--nccl", rel, "--file", s}})
		}
	}
	cases = append(cases,
		gcase{"blog_recipe.2.28.9.json", []string{"env", "--nccl", "2.28.9", "--json", "--file", "testdata/env/blog_recipe.sh"}},
		gcase{"args.2.28.9.txt", []string{"env", "--nccl", "v2.28.9-1", "NCCL_IB_TIMEOUT=23", "NCCL_TIMEOUT=1800", "NCCL_VERSION=2.28",
			"NCCL_BUFFLE_SIZE=4194304", "NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=0", "NCCL_ALGO=allreduce:tree;allgather:ring", "NCCL_PROTO=LL,Simple"}},
		gcase{"args.2.22.3.txt", []string{"env", "--nccl", "2.22.3", "NCCL_COLLNET_ENABLE=01", "NCCL_ALGO=allreduce:tree;allgather:ring", "NCCL_PAT_ENABLE=1", "NCCL_NET_PLUGIN="}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			got := fmt.Sprintf("$ gatesim %s\n%s", strings.Join(c.args, " "), out.String())
			if errb.Len() > 0 {
				got += "stderr: " + errb.String()
			}
			got += fmt.Sprintf("exit %d\n", code)
			goldenfile.Check(t, filepath.Join("testdata", "env", c.name), got, *update)
		})
	}
}

// TestEnvBadInput: malformed input is exit 2 with a message naming what was
// expected (and the file and line where there is one).
func TestEnvBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.sh")
	if err := os.WriteFile(bad, []byte("export A=1\nexport NCCL_DEBUG=\"INFO\nexport B=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badName := filepath.Join(dir, "badname.sh")
	if err := os.WriteFile(badName, []byte("export 1NCCL=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"env", "NCCL_DEBUG=INFO"}, "--nccl is required"},
		{[]string{"env", "--nccl", "2.28", "NCCL_DEBUG=INFO"}, "expected major.minor.patch"},
		{[]string{"env", "--nccl", "2.17.1", "NCCL_DEBUG=INFO"}, "no NCCL parameter table for 2.17.1"},
		{[]string{"env", "--nccl", "2.28.9"}, "nothing to lint"},
		{[]string{"env", "--nccl", "2.28.9", "NCCL_DEBUG"}, "expected NAME=VALUE"},
		{[]string{"env", "--nccl", "2.28.9", "1BAD=2"}, "bad environment variable name"},
		{[]string{"env", "--nccl", "2.28.9", "--file", filepath.Join(dir, "missing.sh")}, "reading job script"},
		{[]string{"env", "--nccl", "2.28.9", "--file", bad}, "bad.sh:2: unterminated double quote"},
		{[]string{"env", "--nccl", "2.28.9", "--file", badName}, "badname.sh:1: export \"1NCCL=2\": expected a variable name"},
		{[]string{"env", "--nccl", "2.28.9", "--bogus"}, "unknown flag"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, exitBadInput, errb.String())
		}
		if !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: stderr %q does not say %q", c.args, errb.String(), c.want)
		}
	}
}

// TestEnvStdinAndStrict: --file - reads standard input; --strict turns
// warnings into exit 1; a clean environment exits 0.
func TestEnvStdinAndStrict(t *testing.T) {
	var out, errb bytes.Buffer
	code := runWithInput([]string{"env", "--nccl", "2.28.9", "--file", "-"}, strings.NewReader("export NCCL_IB_TIMEOUT=22\n"), &out, &errb)
	if code != exitOK || !strings.Contains(out.String(), "NCCL_IB_TIMEOUT") {
		t.Fatalf("stdin: exit %d, out %q, err %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"env", "--nccl", "2.28.9", "NCCL_TIMEOUT=1"}, &out, &errb); code != exitOK {
		t.Errorf("a warning without --strict: exit %d, want 0", code)
	}
	if code := run([]string{"env", "--strict", "--nccl", "2.28.9", "NCCL_TIMEOUT=1"}, &out, &errb); code != exitNo {
		t.Errorf("a warning with --strict: exit %d, want 1", code)
	}
	if code := run([]string{"env", "--nccl", "2.28.9", "NCCL_ALGO=Bogus"}, &out, &errb); code != exitNo {
		t.Errorf("an error: exit %d, want 1", code)
	}
}

// TestEnvEffectSizes: gate effects are judged at a small and a large size
// unless --bytes/--coll say where, and the report says which it used.
func TestEnvEffectSizes(t *testing.T) {
	base := []string{"env", "--nccl", "2.28.9", "--system", "dgx-h100", "--nodes", "16"}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"NCCL_ALGO=tree"}, []string{"at AllReduce 4 KiB and 1 GiB", "NCCL_ALGO: AllReduce 4 KiB: no change; AllReduce 1 GiB: NVLSTree/Simple → Tree/Simple"}},
		{[]string{"--bytes", "1MiB", "NCCL_ALGO=tree"}, []string{"at AllReduce 1 MiB (", "NCCL_ALGO: no gate changes on this system"}},
		{[]string{"--coll", "allgather", "--bytes", "1GiB", "NCCL_ALGO=tree"}, []string{"at AllGather 1 GiB (", "Ring/Simple → ncclInvalidUsage"}},
	}
	for _, c := range cases {
		_, out, stderr := runCLI(t, append(base, c.args...)...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q\n%s%s", c.args, w, out, stderr)
			}
		}
	}
}

package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func TestTypoSuggestions(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"explain", "--sytem", "v100x4"}, "did you mean --system?"},
		{[]string{"sim", "--sweeps", "4KiB:1MiB:4"}, "did you mean --sweep?"},
		{[]string{"whatif", "--node", "2"}, "did you mean --nodes?"},
		{[]string{"explain", "--system", "v100x4", "--coll", "allredcue"}, "did you mean allreduce? expected one of allreduce, allgather, reducescatter, broadcast, reduce"},
		{[]string{"sim", "--system", "v100x4", "--coll", "allgahter"}, "did you mean allgather?"},
		{[]string{"explain", "--system", "dgx-h10"}, "did you mean dgx-h100?"},
		{[]string{"explain", "--system", "v100x4", "--dtype", "bflot16"}, "did you mean bfloat16?"},
		{[]string{"sim", "--system", "v100x4", "--algo", "rign", "--proto", "simple"}, "did you mean Ring?"},
		{[]string{"explain", "--nccl", "2.28", "--system", "v100x4"}, "2.28.3, 2.28.7, 2.28.9"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestCollValues: every command's --coll completions are exactly what it
// accepts: each one runs, and the refusal of any other lists the same set.
func TestCollValues(t *testing.T) {
	root := newRootCmd(&deps{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	runs := map[string][]string{
		"explain": {"explain", "--system", "v100x4", "--bytes", "64KiB"},
		"sim":     {"sim", "--system", "v100x4", "--bytes", "64KiB"},
		"whatif":  {"whatif", "--system", "v100x4", "--sizes", "64KiB", "--no-sim"},
		"env":     {"env", "--nccl", "2.28.9", "--system", "v100x4", "NCCL_ALGO=Ring"},
	}
	var visit func(c *cobra.Command)
	seen := map[string]bool{}
	visit = func(c *cobra.Command) {
		if f := c.Flags().Lookup("coll"); f != nil {
			seen[c.Name()] = true
			args, ok := runs[c.Name()]
			if !ok {
				t.Errorf("%s has --coll and no case here", c.CommandPath())
			}
			vals := completions(c, "coll")
			for _, v := range vals {
				code, _, stderr := runCLI(t, append(args, "--coll", v)...)
				if code != 0 {
					t.Errorf("%s --coll %s: completion offers it, exit %d: %s", c.Name(), v, code, stderr)
				}
			}
			for _, bad := range []string{"sendrecv", "alltoall", "gather"} {
				if slices.Contains(vals, bad) {
					continue
				}
				code, _, stderr := runCLI(t, append(args, "--coll", bad)...)
				if code != exitBadInput || !strings.Contains(stderr, strings.Join(vals, ", ")) {
					t.Errorf("%s --coll %s: exit %d, %q; want exit 2 listing %v", c.Name(), bad, code, stderr, vals)
				}
			}
		}
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(root)
	for name := range runs {
		if !seen[name] {
			t.Errorf("%s has no --coll", name)
		}
	}
	if got := completions(root, "coll"); strings.Join(got, ",") != strings.Join(spec.FuncNames(spec.SelectFuncs), ",") {
		t.Errorf("coll completions %v", got)
	}
}

// TestCompletions: the value flags complete to their lists through cobra's
// own completion command.
func TestCompletions(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "explain", "--system", ""}, spec.PresetNames()},
		{[]string{"__complete", "sim", "--nccl", ""}, spec.ReleaseNames()},
		{[]string{"__complete", "explain", "--coll", ""}, spec.FuncNames(spec.SelectFuncs)},
		{[]string{"__complete", "sim", "--algo", ""}, spec.AlgoNames()},
		{[]string{"__complete", "sim", "--proto", ""}, spec.ProtoNames()},
		{[]string{"__complete", "explain", "--dtype", ""}, spec.DataTypeNames()},
		{[]string{"__complete", "explain", "--redop", ""}, spec.RedOpNames()},
		{[]string{"__complete", "hw", "run", "--colls", ""}, append(spec.FuncNames(spec.AllFuncs), "all")},
	}
	for _, c := range cases {
		_, out, _ := runCLI(t, c.args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		got := lines[:len(lines)-1] // the last line is the directive
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%v: completions %v, want %v", c.args, got, c.want)
		}
	}
}

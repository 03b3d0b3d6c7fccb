package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sharedFlags are the names every subcommand uses alike: the value types
// a command may give the flag (a sweep takes lists) and a word its help
// must carry, so the same name means the same thing everywhere.
var sharedFlags = map[string]struct {
	types []string
	word  string
}{
	"system": {[]string{"string", "stringArray"}, "preset"},
	"nodes":  {[]string{"int", "string"}, "node"},
	"gpus":   {[]string{"int", "string"}, "GPUs per node"},
	"nccl":   {[]string{"string", "stringSlice"}, "release"},
	"env":    {[]string{"stringArray"}, "="},
	"coll":   {[]string{"string"}, "collective"},
	"bytes":  {[]string{"string"}, "size"},
	"sizes":  {[]string{"string"}, "size"},
	"json":   {[]string{"bool"}, "JSON"},
	"topo":   {[]string{"string", "stringArray"}, "topology XML"},
}

// printsNoJSON are the commands that print results without --json, each
// for a reason: a list or a file format, a stream already JSON, a report
// with its own file output, or a setup step.
var printsNoJSON = map[string]string{
	"gatesim demo":           "a fixed walkthrough",
	"gatesim oracle":         "answers are JSON lines already",
	"gatesim calibrate":      "writes the profile with --out",
	"gatesim topo dump":      "prints topology XML",
	"gatesim hw matrix":      "writes capture directories",
	"gatesim hw selftest":    "a pass/fail line",
	"gatesim completion":     "cobra's",
	"gatesim help":           "cobra's",
	"gatesim completion zsh": "cobra's",
}

func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, s := range c.Commands() {
		walk(s, f)
	}
}

// TestSharedFlags: across every subcommand a shared name has one meaning,
// and every command that prints results takes --json.
func TestSharedFlags(t *testing.T) {
	root := newRootCmd(&deps{stdout: io.Discard, stderr: io.Discard})
	seen := map[string]int{}
	walk(root, func(c *cobra.Command) {
		if !c.Runnable() || c == root || strings.HasPrefix(c.CommandPath(), "gatesim completion") || c.Name() == "help" {
			return
		}
		path := c.CommandPath()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			want, ok := sharedFlags[f.Name]
			if !ok || f.Hidden {
				return
			}
			seen[f.Name]++
			typeOK := false
			for _, ty := range want.types {
				typeOK = typeOK || f.Value.Type() == ty
			}
			if !typeOK || !strings.Contains(f.Usage, want.word) {
				t.Errorf("%s --%s: a %s, %q; want one of %v mentioning %q", path, f.Name, f.Value.Type(), f.Usage, want.types, want.word)
			}
		})
		_, exempt := printsNoJSON[path]
		if has := c.Flags().Lookup("json") != nil; has == exempt {
			t.Errorf("%s: --json %v, exempt %v (printsNoJSON)", path, has, exempt)
		}
	})
	for name := range sharedFlags {
		if seen[name] < 2 && name != "sizes" {
			t.Errorf("--%s is in %d command(s): not shared", name, seen[name])
		}
	}
}

// TestHiddenAliases: old spellings still work and stay out of the help.
func TestHiddenAliases(t *testing.T) {
	for _, tc := range []struct {
		old, now []string
	}{
		{[]string{"topo", "search", "--preset", "h200x2", "--release", "2.22.3", "--set", "NCCL_NVLS_ENABLE=0"},
			[]string{"topo", "search", "--system", "h200x2", "--nccl", "2.22.3", "--env", "NCCL_NVLS_ENABLE=0"}},
		{[]string{"topo", "search", "--xml", capturedTopo, "--nodes", "2"},
			[]string{"topo", "search", "--topo", capturedTopo, "--nodes", "2"}},
		{[]string{"whatif", "--system", "h200x2", "--sizes", "1M", "--no-sim", "--format", "json"},
			[]string{"whatif", "--system", "h200x2", "--sizes", "1M", "--no-sim", "--json"}},
	} {
		c1, o1, e1 := runCLI(t, tc.old...)
		c2, o2, e2 := runCLI(t, tc.now...)
		if c1 != 0 || c2 != 0 || o1 != o2 {
			t.Errorf("%v (exit %d, %s) and %v (exit %d, %s) differ", tc.old, c1, e1, tc.now, c2, e2)
		}
	}
	_, help, _ := runCLI(t, "topo", "search", "--help")
	for _, old := range []string{"--preset", "--release", "--set ", "--xml"} {
		if strings.Contains(help, old) {
			t.Errorf("topo search --help shows %s", old)
		}
	}
	if code, _, errs := runCLI(t, "whatif", "--system", "h200x2", "--json", "--format", "csv"); code != exitBadInput || !strings.Contains(errs, "give one") {
		t.Errorf("--json with --format csv: exit %d, %s", code, errs)
	}
}

// TestSizeRangeGrammar: every flag that takes a range of sizes reads it
// with one parser (spec.ParseSizeRange): the factor written 4 or x4 alike,
// and a bad one refused with exit 2 in every command.
func TestSizeRangeGrammar(t *testing.T) {
	for name, args := range map[string][]string{
		"sim --sweep":    {"sim", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--algo", "ring", "--proto", "simple", "--sweep"},
		"whatif --sizes": {"whatif", "--system", "h200x2", "--no-sim", "--json", "--sizes"},
		"env --sizes":    {"env", "--nccl", "2.28.9", "--system", "h200x2", "NCCL_ALGO=Tree", "--sizes"},
		"env --bytes":    {"env", "--nccl", "2.28.9", "--system", "h200x2", "NCCL_ALGO=Tree", "--bytes"},
	} {
		c1, o1, e1 := runCLI(t, append(args, "4KiB:64KiB:4")...)
		c2, o2, e2 := runCLI(t, append(args, "4KiB:64KiB:x4")...)
		if c1 != 0 || c2 != 0 || o1 != o2 || o1 == "" {
			t.Errorf("%s: 4KiB:64KiB:4 (exit %d, %s) and :x4 (exit %d, %s) differ", name, c1, e1, c2, e2)
		}
		if c, _, e := runCLI(t, append(args, "4KiB:64KiB:1")...); c != exitBadInput || !strings.Contains(e, "at least 2") {
			t.Errorf("%s 4KiB:64KiB:1: exit %d, %s", name, c, e)
		}
	}
	// hw replay's own default, its help's example and a list parse (no GPU here: exit 3, never 2)
	for _, sizes := range []string{"1MiB:256MiB:x4", "1MiB:256MiB:4", "1MiB,4MiB"} {
		if c, _, e := runCLI(t, "hw", "replay", "--system", "h200x2", "--sizes", sizes, "--cudart-lib", "/nonexistent"); c == exitBadInput {
			t.Errorf("hw replay --sizes %s: exit 2: %s", sizes, e)
		}
	}
	if c, _, e := runCLI(t, "hw", "replay", "--system", "h200x2", "--sizes", "1MiB:2MiB:x1"); c != exitBadInput || !strings.Contains(e, "--sizes") {
		t.Errorf("hw replay --sizes 1MiB:2MiB:x1: exit %d, %s", c, e)
	}
}

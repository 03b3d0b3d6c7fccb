package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// The commands say the same thing the same way: one group limit, one
// --nccl grammar, one line when releases agree, group script errors that
// name file and line.
func TestCommandsAgree(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := script("big.txt", "init c0\ngroupStart\n"+strings.Repeat("allreduce c0 1KiB\n", spec.MaxGroupOps+1)+"groupEnd\n")
	inplace := script("inplace.txt", "init c0\nallreduce c0 1MiB inplace\n")
	inplaceEq := script("inplace1.txt", "init c0\nallreduce c0 1MiB inplace=1\n")
	one := "--nccl takes one release (got 2.22.3,2.28.9); use whatif/table for several"
	h100 := []string{"--system", "dgx-h100"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // in stdout (code 0) or stderr
	}{
		{"explain --agg over", append([]string{"explain", "--agg", "4097"}, h100...), 2, "--agg: 4097 operations in one group: expected 1..4096"},
		{"sim --agg over", append([]string{"sim", "--agg", "4097"}, h100...), 2, "--agg: 4097 operations in one group: expected 1..4096"},
		{"whatif --agg over", append([]string{"whatif", "--agg", "4097", "--no-sim"}, h100...), 2, "--agg: 4097 operations in one group: expected 1..4096"},
		{"explain --agg at the limit", append([]string{"explain", "--agg", "4096"}, h100...), 0, "op 0 of 4096"},
		{"group over the limit", []string{"group", big}, 2, big + ":4099: group on c0: 4097 operations in one group: expected 1..4096"},
		{"group inplace", []string{"group", inplace}, 0, "AllReduce c0 1 MiB inplace"},
		{"group inplace=1", []string{"group", inplaceEq}, 2, inplaceEq + `:2: "inplace=1": expected inplace`},
		{"group help lists inplace", []string{"group", "--help"}, 0, "[buffers=B] [alloc=A] [inplace], send|recv"},
		{"sim list", append([]string{"sim", "--nccl", "2.22.3,2.28.9"}, h100...), 2, one},
		{"sim repeated", append([]string{"sim", "--nccl", "2.22.3", "--nccl", "2.28.9"}, h100...), 2, one},
		{"diagnose list", []string{"diagnose", "--nccl", "2.22.3,2.28.9", os.DevNull}, 2, one},
		{"group list", []string{"group", "--nccl", "2.22.3", "--nccl", "2.28.9", inplace}, 2, one},
		{"topo search list", []string{"topo", "search", "--preset", "h200x2", "--nccl", "2.22.3", "--release", "2.28.9"}, 2, one},
		{"env repeated", []string{"env", "--nccl", "2.22.3", "--nccl", "2.28.9", "NCCL_ALGO=Ring"}, 2, one},
		{"rules repeated", []string{"rules", "--nccl", "2.22.3", "--nccl", "2.28.9"}, 2, one},
		{"table repeated", append([]string{"table", "--nccl", "2.22.3", "--nccl", "2.28.9"}, h100...), 0, "NCCL 2.22.3 → 2.28.9"},
		{"explain repeated", append([]string{"explain", "--nccl", "2.22.3", "--nccl", "2.28.9"}, h100...), 0, "NCCL 2.22.3"},
		{"table alike", append([]string{"table", "--nccl", "2.28.9,2.28.9"}, h100...), 0, "dgx-h100, 8 rank(s): 2.28.9 and 2.28.9 decide alike on every cell\n"},
		{"rules diff alike", []string{"rules", "diff", "2.28.9", "2.28.9"}, 0, "2.28.9 and 2.28.9 decide alike on every rule\n"},
		{"whatif alike", append([]string{"whatif", "--nccl", "2.28.9", "--nccl", "2.28.7", "--sizes", "1MiB", "--no-sim"}, h100...), 0, "\n2.28.9 and 2.28.7 decide alike on every point\n"},
		{"explain window alone", append([]string{"explain", "--buffers", "window", "--nccl", "2.26.6"}, h100...), 2, "gatesim: buffers window at NCCL 2.26.6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			got := out
			if tc.code != 0 {
				got = errs
			}
			if code != tc.code || !strings.Contains(got, tc.out) {
				t.Fatalf("exit %d (want %d)\nstdout %.600s\nstderr %.600s\nwant %q", code, tc.code, out, errs, tc.out)
			}
			if tc.name == "table alike" && strings.Contains(out, "+--") {
				t.Fatalf("an empty table:\n%s", out)
			}
			if tc.name == "rules diff alike" && out != tc.out {
				t.Fatalf("more than one line:\n%s", out)
			}
		})
	}
}

// Many releases in whatif's release table: one row per release, no cell
// cut (texttable.MaxCell), every release named.
func TestWhatifManyReleasesNotCut(t *testing.T) {
	var rels []string
	for _, v := range spec.Releases {
		rels = append(rels, v.String())
	}
	code, out, errs := runCLI(t, "whatif", "--nccl", strings.Join(rels, ","), "--system", "dgx-h100", "--nodes", "4", "--sharp", "on", "--sizes", "4KiB:1GiB:x16", "--no-sim")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	_, diff, ok := strings.Cut(out, "where the releases differ")
	if !ok {
		t.Fatalf("no release differences:\n%.2000s", out)
	}
	if strings.Contains(diff, "more bytes)") {
		t.Fatalf("a cell was cut:\n%s", diff)
	}
	for _, r := range rels {
		if !strings.Contains(diff, r+": ") {
			t.Errorf("release %s not in the differences", r)
		}
	}
}

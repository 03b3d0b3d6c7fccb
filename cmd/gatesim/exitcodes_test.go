package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExitCodes holds every command to the README's exit-code table: the
// same failure gives the same code whichever command meets it.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lintErr := write("bad.sh", "export NCCL_ALGO=Bogus\n")
	badGroup := write("group.txt", "groupEnd\n")
	ex := func(name string) string { return filepath.Join("..", "..", "examples", name) }
	invalidUsage := []string{"--system", "v100x4", "--env", "NCCL_ALGO=NVLS", "--env", "NCCL_NVLS_ENABLE=1"}
	noNet := []string{"--system", "dgx-h100", "--nodes", "2", "--env", "NCCL_NET=NoSuchNet"}
	cases := []struct {
		name string
		args []string
		want int
	}{
		// 1: NCCL returns an error for the operation (ncclInvalidUsage)
		{"explain, NCCL refuses the op", append([]string{"explain"}, invalidUsage...), exitNo},
		{"sim, NCCL refuses the op", append([]string{"sim"}, invalidUsage...), exitNo},
		// 1: NCCL refuses the communicator
		{"explain, NCCL refuses the comm", append([]string{"explain"}, noNet...), exitNo},
		{"sim, NCCL refuses the comm", append([]string{"sim"}, noNet...), exitNo},
		{"table, NCCL refuses the comm", append([]string{"table"}, noNet...), exitNo},
		// 0: whatif and oracle report NCCL's errors in their answers
		{"whatif reports the refusal", append([]string{"whatif", "--sizes", "1MiB", "--no-sim"}, invalidUsage...), exitOK},
		// 1: a check says no
		{"group rule fails", []string{"group", badGroup}, exitNo},
		{"env lint error", []string{"env", "--nccl", "2.28.9", "--file", lintErr}, exitNo},
		{"diagnose disagrees", []string{"diagnose", ex("nccl.log"), "--topo", ex("topo.xml"), "--env", "NCCL_PROTO=LL"}, exitNo},
		// 0: the same inputs without the failure
		{"group ok", []string{"group", ex("calls.txt")}, exitOK},
		{"env warnings only", []string{"env", "--nccl", "2.28.9", "--file", ex("job.sh")}, exitOK},
		{"diagnose agrees", []string{"diagnose", ex("nccl.log"), "--topo", ex("topo.xml")}, exitOK},
		{"explain ok", []string{"explain", "--system", "h200x2"}, exitOK},
		// 2: bad input, for every command that takes it
		{"explain unknown release", []string{"explain", "--nccl", "2.17.1", "--system", "v100x4"}, exitBadInput},
		{"sim unknown release", []string{"sim", "--nccl", "2.17.1", "--system", "v100x4"}, exitBadInput},
		{"table unknown release", []string{"table", "--nccl", "2.17.1", "--system", "v100x4"}, exitBadInput},
		{"whatif unknown release", []string{"whatif", "--nccl", "2.17.1", "--system", "v100x4"}, exitBadInput},
		{"env unknown release", []string{"env", "--nccl", "2.17.1", "--file", ex("job.sh")}, exitBadInput},
		{"rules unknown release", []string{"rules", "--nccl", "2.17.1"}, exitBadInput},
		{"explain unknown collective", []string{"explain", "--system", "v100x4", "--coll", "gather"}, exitBadInput},
		{"sim unknown collective", []string{"sim", "--system", "v100x4", "--coll", "gather"}, exitBadInput},
		{"whatif unknown collective", []string{"whatif", "--system", "v100x4", "--coll", "gather"}, exitBadInput},
		{"group missing file", []string{"group", filepath.Join(dir, "none.txt")}, exitBadInput},
		// the communicator config: a field NCCL refuses is NCCL's no; an
		// unknown field, a wrong type or a field the release lacks is bad input
		{"explain config refused by NCCL", []string{"explain", "--system", "v100x4", "--config", "minCTAs=2"}, exitNo},
		{"explain config ok", []string{"explain", "--system", "v100x4", "--config", "maxCTAs=2,minCTAs=2"}, exitOK},
		{"explain config unknown field", []string{"explain", "--system", "v100x4", "--config", "maxPeers=4"}, exitBadInput},
		{"explain config wrong type", []string{"explain", "--system", "v100x4", "--config", "maxCTAs=IB"}, exitBadInput},
		{"explain config field after the release", []string{"explain", "--nccl", "2.29.7", "--system", "v100x4", "--config", "maxP2pPeers=4"}, exitBadInput},
		{"sim config field after the release", []string{"sim", "--nccl", "2.29.7", "--system", "v100x4", "--config", "maxP2pPeers=4"}, exitBadInput},
		{"table config unknown field", []string{"table", "--system", "v100x4", "--config", "maxPeers=4"}, exitBadInput},
		{"whatif config field after the release", []string{"whatif", "--nccl", "2.29.7", "--system", "v100x4", "--sizes", "1MiB", "--no-sim", "--config", "maxP2pPeers=4"}, exitBadInput},
		{"whatif config unknown field", []string{"whatif", "--system", "v100x4", "--sizes", "1MiB", "--no-sim", "--config", "maxPeers=4"}, exitBadInput},
		{"diagnose missing file", []string{"diagnose", filepath.Join(dir, "none.log")}, exitBadInput},
		// they shape a prediction from a machine: without one they were ignored
		{"diagnose --agg without a machine", []string{"diagnose", ex("nccl.log"), "--agg", "8"}, exitBadInput},
		{"diagnose --cudagraph without a machine", []string{"diagnose", ex("nccl.log"), "--cudagraph"}, exitBadInput},
		{"topo unknown preset", []string{"topo", "search", "--preset", "dgx-z"}, exitBadInput},
		{"hw check missing folder", []string{"hw", "check", "--from", filepath.Join(dir, "none")}, exitBadInput},
		{"hw check folder without captures", []string{"hw", "check", "--from", "../../hw/testdata/compare"}, exitBadInput},
		// 32 captures three levels down; the one-rank ones' missing table is
		// listed as not comparable, no difference
		{"hw check every capture agrees", []string{"hw", "check", "--from", "../../hw/testdata/device"}, exitOK},
		{"unknown flag", []string{"sim", "--sytem", "v100x4"}, exitBadInput},
		{"unknown command", []string{"simulate"}, exitBadInput},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != c.want {
			t.Errorf("%s: gatesim %s: exit %d, want %d\nstderr: %s", c.name, strings.Join(c.args, " "), code, c.want, stderr)
		}
	}
}

// TestExitCodeTableListsEveryCommand keeps the README's table complete.
func TestExitCodeTableListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	start := strings.Index(s, "## Exit codes")
	if start < 0 {
		t.Fatal("README.md has no \"## Exit codes\" section")
	}
	sec := s[start:]
	if end := strings.Index(sec[3:], "\n## "); end >= 0 {
		sec = sec[:end+3]
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range regexp.MustCompile("`([a-z-]+)`").FindAllStringSubmatch(cells[1], -1) {
			listed[m[1]] = true
		}
	}
	root := newRootCmd(&deps{stdout: os.Stdout, stderr: os.Stderr})
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if !listed[c.Name()] {
			t.Errorf("README's exit-code table does not list %s", c.Name())
		}
	}
}

// Command gatesim is a thin CLI over gatesim's packages: explain, rules,
// oracle, table, sim, whatif, env, diagnose and hw. Every subcommand prints a
// human table by default and JSON with --json.
//
// Exit codes: 0 success; 1 the answer is "no" where a yes was required (a
// cross-check disagreement, a failed verification); 2 bad input (unknown
// release, collective, malformed file or value); 3 no GPU or no NCCL where
// hw needs one; 70 an internal error (a bug in gatesim).
package main

import (
	"os"

	"github.com/gatesim/gatesim/tuner"
)

func main() {
	tuner.ServeIfChild() // the hidden child that hosts a --tuner plugin
	os.Exit(runWithInput(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

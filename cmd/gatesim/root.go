package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitNo       = 1 // a check said no (disagreement, wrong result)
	exitBadInput = 2 // the user's input is malformed or unknown
	exitNoDevice = 3 // hw: no GPU, no CUDA or no NCCL library
)

// exitError carries an exit code through cobra's RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput marks an error as the user's: exit code 2.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitBadInput, err: err}
}

func badInputf(format string, args ...any) error { return badInput(fmt.Errorf(format, args...)) }

// deps are what the commands may touch outside the pure packages.
type deps struct {
	stdout, stderr io.Writer
	stdin          io.Reader
}

// newRootCmd builds a fresh command tree on every call, so tests can run
// commands side by side.
func newRootCmd(d *deps) *cobra.Command {
	root := &cobra.Command{
		Use:           "gatesim",
		Short:         "An executable specification and simulator of NCCL's gates, selection and schedules",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(d.stdout)
	root.SetErr(d.stderr)
	root.SetIn(d.stdin)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return badInput(err) })
	for _, sub := range subcommands {
		root.AddCommand(sub(d))
	}
	return root
}

// subcommands lists the constructors of the subcommands, one file each.
var subcommands = []func(*deps) *cobra.Command{
	newVersionCmd,
	newExplainCmd,
	newRulesCmd,
	newOracleCmd,
	newDemoCmd,
	newGroupCmd,
	newWhatifCmd,
	newEnvCmd,
	newHWCmd,
	newDiagnoseCmd,
	newTopoCmd,
	newTableCmd,
	newSimCmd,
	newCalibrateCmd,
}

func run(args []string, stdout, stderr io.Writer) int {
	return runWithInput(args, nil, stdout, stderr)
}

func runWithInput(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	d := &deps{stdout: stdout, stderr: stderr, stdin: stdin}
	root := newRootCmd(d)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "gatesim:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// cobra's own errors (unknown command, bad flag) are the user's.
	return exitBadInput
}

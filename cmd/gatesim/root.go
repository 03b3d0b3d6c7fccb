package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/gatesim/gatesim/hw"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes shared by every subcommand; the README's exit-code table lists
// them per command and TestExitCodes holds the commands to it.
const (
	exitOK       = 0
	exitNo       = 1 // the answer is no: NCCL returns an error, a check disagrees, a result is wrong
	exitBadInput = 2 // the user's input is malformed or unknown
	exitNoDevice = 3 // hw: no GPU, no CUDA or no NCCL library
	// exitInternal is a bug in gatesim (a panic): sysexits' EX_SOFTWARE,
	// far from the codes an input can earn.
	exitInternal = 70
)

// ncclRefusesComm is exit 1 for a communicator NCCL does not create: the
// same code from every command that builds one.
func ncclRefusesComm(v spec.Version, c *spec.Comm) error {
	return &exitError{code: exitNo, err: plan.Refused(v, c)}
}

// ncclRefusesOp is exit 1 for an operation NCCL returns an error for: the
// same code from explain and sim.
func ncclRefusesOp(v string, d *spec.Decision) error {
	return &exitError{code: exitNo, err: plan.RefusedOp(v, d)}
}

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

// newRootCmd builds a fresh command tree per call, so tests run commands side by side.
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return badInput(suggestFlag(c, err)) })
	// --version prints what `gatesim version` prints.
	root.Version = "set"
	root.SetVersionTemplate(versionText())
	for _, sub := range subcommands {
		root.AddCommand(sub(d))
	}
	registerCompletions(root)
	return root
}

// unknownFlag finds the flag name in pflag's "unknown flag: --sytem" and
// "unknown shorthand flag: 'g' in -g".
var unknownFlag = regexp.MustCompile(`^unknown flag: --([^ =]+)$|^unknown shorthand flag: '(.)'`)

// suggestFlag adds the closest flag of the command to an unknown-flag error.
func suggestFlag(c *cobra.Command, err error) error {
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if m[1] != "" {
		if best, ok := spec.Closest(m[1], names); ok {
			return fmt.Errorf("%v: did you mean --%s?", err, best)
		}
		return err
	}
	return fmt.Errorf("%v: %s takes no -%s (see %s --help)", err, c.CommandPath(), m[2], c.CommandPath())
}

// aliases keeps old spellings of a command's flags working, hidden from
// its help: each is read as the name gatesim's grammar gives the flag in
// every command.
func aliases(c *cobra.Command, old map[string]string) {
	c.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if n, ok := old[name]; ok {
			return pflag.NormalizedName(n)
		}
		return pflag.NormalizedName(name)
	})
}

// completions are the values a flag of this name takes, for shell
// completion (spec.ValueNames); hw run's --colls takes more than the
// others' --coll.
func completions(c *cobra.Command, flag string) []string {
	if flag == "colls" && c.Name() == "run" && c.Parent() != nil && c.Parent().Name() == "hw" {
		return append(spec.FuncNames(spec.AllFuncs), "all")
	}
	return spec.ValueNames(flag)
}

// registerCompletions gives every string flag that names a preset, release,
// collective, algorithm, protocol, datatype or reduction its values.
func registerCompletions(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		switch f.Value.Type() {
		case "string", "stringArray", "stringSlice":
		default:
			return
		}
		vals := completions(c, f.Name)
		if vals == nil {
			return
		}
		_ = c.RegisterFlagCompletionFunc(f.Name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		})
	})
	for _, sub := range c.Commands() {
		registerCompletions(sub)
	}
}

// subcommands lists the constructors of the subcommands, one file each.
var subcommands = []func(*deps) *cobra.Command{
	newVersionCmd,
	newGatesimVersionCmd,
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

// runWithInput runs one command line. A panic is a bug in gatesim, never
// the user's: it is reported as an internal error with the command line
// that caused it, and exit code exitInternal.
func runWithInput(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "gatesim: internal error: %v\ninput: %s\nThis is a bug in gatesim, not a problem with the input; please report it with the input above.\n%s", r, quoteArgs(args), debug.Stack())
			code = exitInternal
		}
	}()
	d := &deps{stdout: stdout, stderr: stderr, stdin: stdin}
	root := newRootCmd(d)
	root.SetArgs(hw.NCCLTestsArgs(args))
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

// quoteArgs writes a command line back as a shell would read it, each
// argument cut to 200 bytes.
func quoteArgs(args []string) string {
	out := []string{"gatesim"}
	for _, a := range args {
		if len(a) > 200 {
			a = fmt.Sprintf("%s…(%d more bytes)", a[:200], len(a)-200)
		}
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

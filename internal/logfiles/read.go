// Package logfiles reads NCCL log files, directories of them and standard
// input into the log reader (ncclog) for diagnose: the I/O the pure
// diagnose package leaves to its callers.
package logfiles

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gatesim/gatesim/diagnose"
	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/ncclog"
)

// ReadLogs feeds every argument to the parser, in order: a file, a
// directory (its log files in LogFiles' order; a binary or empty file
// there is skipped with a line on warn) or "-" for in. It returns the
// sources it read.
func ReadLogs(p *ncclog.Parser, args []string, in io.Reader, warn io.Writer) ([]string, error) {
	var names []string
	for _, a := range args {
		n, err := readLogArg(p, a, in, warn)
		if err != nil {
			return nil, err
		}
		names = append(names, n...)
	}
	return names, nil
}

// readLogArg feeds one argument (file, directory or -) to the parser and
// returns the source names it read.
func readLogArg(p *ncclog.Parser, arg string, in io.Reader, warn io.Writer) ([]string, error) {
	if arg == "-" {
		return []string{"stdin"}, parseOne(p, in, "stdin")
	}
	st, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		f, err := inputfile.Open(arg)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return []string{arg}, parseOne(p, f, arg)
	}
	ents, err := os.ReadDir(arg)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, e := range ents {
		if e.Type().IsRegular() {
			all = append(all, e.Name())
		}
	}
	var names []string
	for _, n := range diagnose.LogFiles(all) {
		path := filepath.Join(arg, n)
		f, err := inputfile.Open(path)
		if err != nil {
			return nil, err
		}
		err = p.Parse(f, path)
		f.Close()
		var ie *ncclog.InputError
		if errors.As(err, &ie) {
			// In a directory, a binary or empty file is skipped, not fatal.
			fmt.Fprintf(warn, "gatesim: skipped %s\n", ie.Error())
			continue
		}
		if err != nil {
			return nil, err
		}
		names = append(names, path)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no readable log file in the directory: expected NCCL_DEBUG_FILE outputs", arg)
	}
	return names, nil
}

func parseOne(p *ncclog.Parser, r io.Reader, name string) error {
	return p.Parse(r, name)
}

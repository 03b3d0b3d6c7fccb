package hw

import (
	"fmt"
	"github.com/gatesim/gatesim/conformance"
	"path/filepath"
	"sort"

	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/spec"
)

// CompareOutputs compares runs of gatesim hw run with nccl-tests outputs
// (files), row by row per collective: several outputs of one nccl-tests
// program are merged, and each side is its median per size, or its
// fastest batch or cycle with best.
func CompareOutputs(runs []*conformance.RunResult, files []string, best bool) ([]conformance.CompareRow, error) {
	res := conformance.MergeResults(runs)
	var rows []conformance.CompareRow
	sort.Strings(files)
	tables := map[spec.Func]*conformance.NTTable{}
	var funcs []spec.Func
	for _, name := range files {
		fh, err := inputfile.Open(name)
		if err != nil {
			return nil, err
		}
		t, err := conformance.ParseNCCLTests(fh, name)
		fh.Close()
		if err != nil {
			return nil, err
		}
		f, ok := conformance.FuncOfProgram(t.Program)
		if !ok {
			f, ok = conformance.FuncOfProgram(filepath.Base(name))
		}
		if !ok {
			return nil, fmt.Errorf("%s: cannot tell which collective it measured (no 'Collective test starting' line and no *_perf in the name)", name)
		}
		if tables[f] == nil {
			tables[f] = &conformance.NTTable{Program: t.Program, LibraryVersion: t.LibraryVersion}
			funcs = append(funcs, f)
		}
		tables[f].Rows = append(tables[f].Rows, t.Rows...)
	}
	for _, f := range funcs {
		if best {
			rows = append(rows, conformance.CompareBest(f, runs, tables[f])...)
		} else {
			rows = append(rows, conformance.Compare(f, res, tables[f])...)
		}
	}
	return rows, nil
}

// CompareFiles is CompareOutputs of the results.json files ours (gatesim
// hw run's, repeated runs) against the nccl-tests outputs files.
func CompareFiles(ours, files []string, best bool) ([]conformance.CompareRow, error) {
	var runs []*conformance.RunResult
	for _, name := range ours {
		r, err := ReadRunResult(name)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return CompareOutputs(runs, files, best)
}

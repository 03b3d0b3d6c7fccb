// Command genparams generates gatesim's NCCL parameter registry for one
// NCCL release tag from NCCL's own source. It only reads the source: from a
// git directory and a tag (through git ls-tree and git cat-file, which never
// write), or from a checked-out directory. The output is deterministic: the
// same tag gives the same bytes in either mode.
//
//	go run ./tools/genparams -git /path/to/nccl.git -tag v2.28.9-1 -o spec/params/data/v2.28.9-1.tsv
//	go run ./tools/genparams -src /path/to/nccl -tag v2.28.9-1 -o spec/params/data/v2.28.9-1.tsv
//
// What it finds in every file under src/ (C, C++, CUDA sources and headers,
// and nccl.h.in):
//   - NCCL_PARAM(Name, "KEY", default): an int64 parameter NCCL_KEY; the
//     default is evaluated through the tree's #defines, enumerators and
//     const integers (INT_MIN and friends from the C library);
//   - DEFINE_NCCL_PARAM(sym, type, KEY, default, flags, parser, desc) (2.30):
//     a typed parameter with its option names;
//   - every call of a getenv-style function (ncclGetEnv, getenv,
//     std::getenv, debug.cc's getEnvFunc) with an "NCCL_..." literal, and
//     every call of a helper that passes one of its parameters on to such a
//     function (ncclGetLevel), found automatically;
//   - for each value: the functions that read it, the constants it is
//     compared with, the string literals it is compared with (strcmp,
//     strcasecmp), the integer parses applied (strtol, atoi), and the
//     ncclConfig_t fields it is assigned to (envConfigOverride), following
//     one local variable per step within a block.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec/params"

	"github.com/gatesim/gatesim/tools/internal/gittree"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("genparams", flag.ContinueOnError)
	fl.SetOutput(stderr)
	gitDir := fl.String("git", "", "NCCL git directory (bare or .git) to read the tag from")
	srcDir := fl.String("src", "", "checked-out NCCL source directory (instead of -git)")
	tag := fl.String("tag", "", "NCCL release tag, e.g. v2.28.9-1 (with -src: the tag the directory holds)")
	out := fl.String("o", "", "output file (default: standard output)")
	quiet := fl.Bool("q", false, "do not print warnings")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 0 || *tag == "" || (*gitDir == "") == (*srcDir == "") {
		fmt.Fprintln(stderr, "genparams: expected -tag and exactly one of -git or -src, and no other arguments")
		fl.Usage()
		return 2
	}
	var files []srcFile
	var err error
	if *gitDir != "" {
		files, err = readGit(*gitDir, *tag)
	} else {
		files, err = readDir(*srcDir)
	}
	if err != nil {
		fmt.Fprintln(stderr, "genparams:", err)
		return 1
	}
	data, warnings, err := generate(*tag, files)
	if err != nil {
		fmt.Fprintln(stderr, "genparams:", err)
		return 1
	}
	if !*quiet {
		for _, w := range warnings {
			fmt.Fprintln(stderr, "genparams: warning:", w)
		}
	}
	if *out == "" {
		_, err = stdout.Write(data)
	} else {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "genparams:", err)
		return 1
	}
	return 0
}

// generate builds the table of one tag from its files.
func generate(tag string, files []srcFile) ([]byte, []string, error) {
	if len(files) == 0 {
		return nil, nil, errors.New("no source files under src/")
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	rows, warnings := analyze(files)
	t := &params.Table{Tag: tag, Rows: rows}
	if err := params.Check(t); err != nil {
		return nil, warnings, err
	}
	return params.Encode(t), warnings, nil
}

// wanted reports the files genparams reads.
func wanted(path string) bool {
	if !strings.HasPrefix(path, "src/") {
		return false
	}
	switch filepath.Ext(path) {
	case ".cc", ".cpp", ".c", ".cu", ".cuh", ".h", ".hpp", ".in":
		return true
	}
	return false
}

// readGit reads src/ at a tag (the files wanted accepts).
func readGit(gitDir, tag string) ([]srcFile, error) {
	got, err := gittree.ReadSrc(gitDir, tag, wanted)
	if err != nil {
		return nil, err
	}
	files := make([]srcFile, len(got))
	for i, f := range got {
		files[i] = srcFile(f)
	}
	return files, nil
}

// readDir reads src/ of a checked-out tree.
func readDir(dir string) ([]srcFile, error) {
	var files []srcFile
	root := filepath.Join(dir, "src")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !wanted(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, srcFile{Path: rel, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", root, err)
	}
	return files, nil
}

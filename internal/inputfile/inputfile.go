// Package inputfile is the one way gatesim opens a file a user names:
// regular files only (a device, FIFO, socket or directory is refused before
// it is opened, so /dev/zero cannot fill memory and a FIFO cannot block),
// and whole-file reads are capped.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Open opens a regular file for streaming.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	// The file may have been replaced between Stat and Open.
	if st2, err := f.Stat(); err != nil || !st2.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = regular(path, st2)
		}
		return nil, err
	}
	return f, nil
}

// Read reads a whole regular file of at most max bytes.
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, max)
}

// ReadAll reads r to its end, refusing more than max bytes (standard input,
// or a file whose size its metadata does not tell, as in /proc).
func ReadAll(r io.Reader, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes: expected a file of at most %s (gatesim's limit)", name, max, human(max))
	}
	return data, nil
}

func regular(path string, st fs.FileInfo) error {
	m := st.Mode()
	what := ""
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	default:
		what = "not a regular file"
	}
	return fmt.Errorf("%s: %s: expected a regular file", path, what)
}

func human(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Under returns a reader of files inside the given directories only (after
// symbolic links are resolved), each of at most max bytes. A path outside
// them, missing, or not a regular file gets one and the same error, so a
// caller learns nothing about files it may not read. With no directories
// every path is refused.
func Under(dirs []string, max int64) (func(string) ([]byte, error), error) {
	var roots []string
	for _, d := range dirs {
		r, err := filepath.EvalSymlinks(d)
		if err == nil {
			r, err = filepath.Abs(r)
		}
		if err != nil {
			return nil, fmt.Errorf("--allow-dir %s: %v", d, err)
		}
		st, err := os.Stat(r)
		if err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--allow-dir %s: expected a directory", d)
		}
		roots = append(roots, r)
	}
	return func(path string) ([]byte, error) {
		refused := fmt.Errorf("%q: not a readable file under an allowed directory (the operator's --allow-dir)", path)
		real, err := filepath.EvalSymlinks(path)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			return nil, refused
		}
		inside := false
		for _, r := range roots {
			if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				inside = true
				break
			}
		}
		if !inside {
			return nil, refused
		}
		st, err := os.Stat(real)
		if err != nil || !st.Mode().IsRegular() {
			return nil, refused
		}
		return Read(real, max)
	}, nil
}

// ReadOrStdin reads path, or stdin when path is "-" (named "<stdin>";
// nil stdin is an error), at most max bytes either way; name is what
// errors and positions call the input.
func ReadOrStdin(path string, stdin io.Reader, max int64) (data []byte, name string, err error) {
	if path != "-" {
		data, err = Read(path, max)
		return data, path, err
	}
	if stdin == nil {
		return nil, "<stdin>", errors.New("no standard input")
	}
	data, err = ReadAll(stdin, "<stdin>", max)
	return data, "<stdin>", err
}

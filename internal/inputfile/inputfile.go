// Package inputfile is the one way gatesim opens a file a user names:
// regular files only (a device, FIFO, socket or directory is refused before
// it is opened, so /dev/zero cannot fill memory and a FIFO cannot block),
// and whole-file reads are capped.
package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
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

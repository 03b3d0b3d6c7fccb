//go:build !cgo

package tuner

import (
	"errors"
	"io"
)

// Serve needs cgo (dlopen); a build without it cannot load a tuner.
func Serve(in io.Reader, out io.Writer) error {
	return errors.New("gatesim was built without cgo: it cannot load a tuner plugin")
}

package hw

import (
	"errors"
	"fmt"

	"github.com/gatesim/gatesim/spec"
)

// ErrUnavailable is returned (wrapped) whenever the GPU path cannot run
// here: a binary built without cgo, no libnccl, no CUDA runtime, no driver,
// or no GPU. The CLI maps it to exit code 3.
var ErrUnavailable = errors.New("no GPU, CUDA or NCCL available")

// UnavailableError says what was missing and where gatesim looked.
type UnavailableError struct {
	What  string   // "libnccl.so.2", "CUDA runtime", "GPU"
	Why   string   // the loader's or the runtime's message
	Tried []string // the paths tried, in order
}

func (e *UnavailableError) Error() string {
	s := "hw: " + e.What + " not available"
	if e.Why != "" {
		s += ": " + e.Why
	}
	if len(e.Tried) > 0 {
		s += fmt.Sprintf(" (tried %q)", e.Tried)
	}
	return s
}

func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

// Result is ncclResult_t as an error: ncclSuccess is never returned as one.
type Result int32

func (r Result) Error() string { return spec.Result(r).String() }

// Error is a failed NCCL call: the call, its result and the text
// ncclGetLastError gave (NCCL's last WARN).
type Error struct {
	Op        string
	Result    Result
	LastError string
}

func (e *Error) Error() string {
	s := e.Op + ": " + e.Result.Error()
	if e.LastError != "" {
		s += ": " + e.LastError
	}
	return s
}

func (e *Error) Unwrap() error { return e.Result }

// NCCLError turns the error into the value a Row or a Decision carries.
func (e *Error) NCCLError() *spec.NCCLError {
	return &spec.NCCLError{Result: spec.Result(e.Result), Message: e.LastError, Call: e.Op}
}

// CUDAError is a failed CUDA runtime or driver call.
type CUDAError struct {
	Op   string
	Code int
	Name string
}

func (e *CUDAError) Error() string {
	return fmt.Sprintf("%s: CUDA error %d (%s)", e.Op, e.Code, e.Name)
}

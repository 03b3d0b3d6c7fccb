//go:build !cgo || !linux

package hw

import (
	"errors"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// This build has no cgo: the GPU path is compiled out. Everything that
// would touch a GPU returns an error wrapping ErrUnavailable, so the CLI
// exits with its no-device code and says why.

var errNoCgo = &UnavailableError{What: "GPU support", Why: "this gatesim was built without cgo (CGO_ENABLED=0 or not linux); rebuild with CGO_ENABLED=1 and a C compiler to use hw"}

// Session is unusable in this build.
type Session struct{ opts Options }

// Open always fails in this build.
func Open(o Options) (*Session, error) { return nil, errNoCgo }

// Probe always fails in this build.
func Probe(s Search, allowNVLS bool) (*ProbeResult, error) { return nil, errNoCgo }

var errClosed = errors.New("hw: no session in a build without cgo")

func (s *Session) Version() spec.Version                                   { return 0 }
func (s *Session) Libraries() (string, string)                             { return "", "" }
func (s *Session) NRanks() int                                             { return 0 }
func (s *Session) Local() []conformance.DeviceInfo                         { return nil }
func (s *Session) CheckMode() string                                       { return "off" }
func (s *Session) Close() error                                            { return nil }
func (s *Session) Alloc(uint64, uint64) error                              { return errClosed }
func (s *Session) Poison(int, uint64) error                                { return errClosed }
func (s *Session) Run(OpArgs, int, bool) ([]float64, error)                { return nil, errClosed }
func (s *Session) Healthy() bool                                           { return false }
func (s *Session) Reinit() error                                           { return errClosed }
func (s *Session) SumInt64(v int64) (int64, error)                         { return 0, errClosed }
func (s *Session) MaxFloat64(v float64) (float64, error)                   { return 0, errClosed }
func (s *Session) Fill(int, spec.DataType, uint64, FillSpec, uint32) error { return errClosed }
func (s *Session) Check(int, spec.DataType, uint64, Expect, uint32) (int64, error) {
	return 0, errClosed
}

func loadedAlready() bool { return false }

func (s *Session) Upload(int, BufID, uint64, []byte) error             { return errClosed }
func (s *Session) Download(int, BufID, uint64, uint64) ([]byte, error) { return nil, errClosed }
func (s *Session) DevicePtr(int, BufID, uint64) uint64                 { return 0 }
func (s *Session) Exchange([]P2P) ([]float64, error)                   { return nil, errClosed }
func (s *Session) LoadKernels([]byte, ...string) error                 { return errClosed }
func (s *Session) Launch(int, string, uint32, uint32, ...uint64) (float64, error) {
	return 0, errClosed
}

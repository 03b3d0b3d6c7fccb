package hw

import (
	"errors"
	"path/filepath"
	"testing"
)

// Without a GPU, CUDA or NCCL, Open and Probe refuse with ErrUnavailable and
// say what they tried. The CUDA runtime is pointed at a path that does not
// exist, so this holds on GPU machines too.
func TestOpenRefusesWithoutLibraries(t *testing.T) {
	s := Search{CUDART: filepath.Join(t.TempDir(), "libcudart.so.13"), NCCL: filepath.Join(t.TempDir(), "libnccl.so.2")}
	if loadedAlready() {
		t.Skip("this process already loaded the libraries")
	}
	_, err := Open(Options{Search: s})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Open: %v, want ErrUnavailable", err)
	}
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Error() == "" {
		t.Fatalf("Open: %v", err)
	}
	if _, err := Probe(s, false); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Probe: %v", err)
	}
}

package hw

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLibrarySearchOrder(t *testing.T) {
	root := t.TempDir()
	ld1, ld2 := filepath.Join(root, "ld1"), filepath.Join(root, "ld2")
	wheel := filepath.Join(root, "site", "nvidia")
	touch(t, filepath.Join(ld2, "libnccl.so.2"))
	touch(t, filepath.Join(wheel, "nccl", "lib", "libnccl.so.2"))
	touch(t, filepath.Join(wheel, "cu13", "lib", "libcudart.so.13"))
	s := Search{
		Getenv:      envOf(map[string]string{"LD_LIBRARY_PATH": ld1 + ":" + ld2}),
		PythonPaths: func() []string { return []string{wheel} },
	}
	got := s.NCCLCandidates()
	want := []string{filepath.Join(ld2, "libnccl.so.2"), filepath.Join(wheel, "nccl", "lib", "libnccl.so.2"), "libnccl.so.2", "libnccl.so"}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("NCCL candidates %q, want %q first", got, want)
	}
	cr := s.CUDARTCandidates()
	if cr[0] != filepath.Join(wheel, "cu13", "lib", "libcudart.so.13") || cr[1] != "libcudart.so.13" {
		t.Errorf("CUDA runtime candidates %q", cr)
	}
}

func TestLibraryOverrideIsExclusive(t *testing.T) {
	dir := t.TempDir()
	touch(t, filepath.Join(dir, "libnccl.so.2"))
	s := Search{NCCL: dir, PythonPaths: func() []string { return nil }}
	if got := s.NCCLCandidates(); !slices.Equal(got, []string{filepath.Join(dir, "libnccl.so.2")}) {
		t.Errorf("a directory override gave %q", got)
	}
	s.NCCL = "/nowhere/libnccl.so.2"
	if got := s.NCCLCandidates(); !slices.Equal(got, []string{"/nowhere/libnccl.so.2"}) {
		t.Errorf("a file override gave %q: it must be tried alone, so dlopen says what is wrong", got)
	}
}

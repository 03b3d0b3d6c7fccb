package hw

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Library search. NCCL and the CUDA runtime are loaded with dlopen at run
// time, never linked, so the binary builds and starts without CUDA. The
// order for libnccl.so.2 is:
//
//  1. GATESIM_NCCL_LIB (or --nccl-lib): a file, or a directory holding it;
//  2. the loader path: each directory of LD_LIBRARY_PATH that holds it;
//  3. PyTorch's wheel: nvidia/nccl/lib of the python3 on PATH;
//  4. the system: the loader's cache (a bare dlopen("libnccl.so.2")), then
//     the usual library directories.
//
// The CUDA runtime follows the same order with GATESIM_CUDART_LIB, the
// wheel's nvidia/cuda_runtime/lib (CUDA 12) or nvidia/cu13/lib (CUDA 13),
// libcudart.so.13 before libcudart.so.12. The driver (libcuda.so.1) comes
// with the kernel module and is only ever taken from the loader.

// Search holds what the library search reads, so tests can replace it.
type Search struct {
	// NCCL and CUDART override the first step (a file or a directory).
	NCCL, CUDART string
	// Getenv reads LD_LIBRARY_PATH; os.Getenv when nil.
	Getenv func(string) string
	// PythonPaths lists the directories of the `nvidia` Python namespace
	// package; DefaultPythonPaths when nil.
	PythonPaths func() []string
}

// DefaultSearch reads GATESIM_NCCL_LIB and GATESIM_CUDART_LIB.
func DefaultSearch() Search {
	return Search{NCCL: os.Getenv("GATESIM_NCCL_LIB"), CUDART: os.Getenv("GATESIM_CUDART_LIB")}
}

var (
	ncclNames   = []string{"libnccl.so.2", "libnccl.so"}
	cudartNames = []string{"libcudart.so.13", "libcudart.so.12", "libcudart.so"}
	systemDirs  = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/lib", "/usr/local/cuda/lib64", "/usr/lib"}
)

// NCCLCandidates returns libnccl candidates in search order: absolute paths
// that exist, and bare sonames for the loader's own search.
func (s Search) NCCLCandidates() []string {
	return s.candidates(s.NCCL, ncclNames, []string{"nccl/lib"})
}

// CUDARTCandidates returns CUDA runtime candidates in search order.
func (s Search) CUDARTCandidates() []string {
	return s.candidates(s.CUDART, cudartNames, []string{"cu13/lib", "cuda_runtime/lib", "cu12/lib"})
}

func (s Search) candidates(override string, names, wheelDirs []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	inDir := func(dir string) {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if fileExists(p) {
				add(p)
			}
		}
	}
	if override != "" {
		if st, err := os.Stat(override); err == nil && st.IsDir() {
			inDir(override)
		} else {
			add(override) // a file, or a name: let dlopen say what is wrong
		}
		return out // an explicit choice is never silently replaced
	}
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, dir := range filepath.SplitList(getenv("LD_LIBRARY_PATH")) {
		if dir != "" {
			inDir(dir)
		}
	}
	pp := s.PythonPaths
	if pp == nil {
		pp = DefaultPythonPaths
	}
	for _, base := range pp() {
		for _, w := range wheelDirs {
			inDir(filepath.Join(base, w))
		}
	}
	for _, n := range names {
		add(n) // the loader's cache
	}
	for _, dir := range systemDirs {
		inDir(dir)
	}
	return out
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// DefaultPythonPaths asks the python3 on PATH where its `nvidia` namespace
// package lives (PyTorch's wheels put NCCL and the CUDA runtime there). No
// python3, no nvidia package or a slow interpreter give no paths.
func DefaultPythonPaths() []string {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", "import nvidia\nfor p in nvidia.__path__: print(p)")
	cmd.Env = SafeEnviron(os.Environ(), false)
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var paths []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			paths = append(paths, l)
		}
	}
	return paths
}

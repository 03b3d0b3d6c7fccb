// Package ncclmirror names the NCCL git mirror that the tests which read
// NCCL's source at its tags use: the generators' (tools/genparams,
// tools/gensrclines) and the log catalogue's reference check.
package ncclmirror

import (
	"os"
	"os/exec"
	"testing"
)

// ForTest is the NCCL git directory ($GATESIM_NCCL_GIT, else the project's
// mirror). CI has only Go: without the directory or git, tb skips and
// says why.
func ForTest(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("GATESIM_NCCL_GIT")
	if dir == "" {
		dir = "/work/.mirror/NVIDIA+nccl/repo"
	}
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("NCCL git mirror not found at %s (set GATESIM_NCCL_GIT): cannot read NCCL's source here", dir)
	}
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	return dir
}

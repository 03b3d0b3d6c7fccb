package hw

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// The embedded PTX must come from the embedded source: kernels/README.md
// records the checksum of the .cu the PTX was compiled from.
func TestEmbeddedPTXMatchesSource(t *testing.T) {
	if len(embeddedPTX()) == 0 {
		t.Fatal("no embedded PTX")
	}
	readme, err := kernelFiles.ReadFile("kernels/README.md")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(KernelSource())
	if !bytes.Contains(readme, []byte("| gatesim_kernels.cu | "+hex.EncodeToString(sum[:])+" |")) {
		t.Error("gatesim_kernels.cu changed since the PTX was made: recompile it with the command in kernels/README.md")
	}
	psum := sha256.Sum256(embeddedPTX())
	if !bytes.Contains(readme, []byte("| gatesim_kernels.ptx | "+hex.EncodeToString(psum[:])+" |")) {
		t.Error("gatesim_kernels.ptx is not the one kernels/README.md records")
	}
	for _, entry := range []string{".entry gs_fill(", ".entry gs_check("} {
		if !bytes.Contains(embeddedPTX(), []byte(entry)) {
			t.Errorf("PTX lacks %s", entry)
		}
	}
}

package hw

import (
	"fmt"
	"github.com/gatesim/gatesim/conformance"
	"strings"
	"testing"
)

// TestCheckComparesRegistrationLines: hw check compares each registration
// line with the model's outcome for the operations of its size. No
// committed capture holds one (none ran with NCCL_DEBUG_SUBSYS=REG), so
// lines built from NCCL's format strings (v2.28.9-1 src/transport/p2p.cc
// ipcRegisterBuffer, src/transport/nvls.cc nvlsRegisterBuffer) are appended
// to the 2.28.9 baseline's log, read as a CUDA-graph run. Its two ranks
// share one process and its buffers are cudaMalloc'ed, so at capture an
// out-of-place Ring/Simple AllReduce of 128 MiB calls ipcRegisterBuffer,
// which refuses legacy CUDA IPC in directMode and prints the failure; an
// in-place one, or a small one on LL, registers nothing; NVLS is off.
func TestCheckComparesRegistrationLines(t *testing.T) {
	const (
		ipcOK   = "vm:1:1 [0] NCCL INFO rank 0 - IPC register buffer 0x7f2a40000000 size %d (baseAddr 0x7f2a40000000 size %d) to peer 1 regAddr 0x7f1c20000000 offsetOut 0\n"
		ipcFail = "vm:1:1 [0] NCCL INFO rank 0 failed to IPC register userbuff 0x7f2a40000000 buffSize %d nPeers 1 isLegacyIpc 1 type POSIX_FD\n"
		nvlsOK  = "vm:1:1 [0] NCCL INFO rank 0 successfully registered NVLS sendbuff 0x7f2a40000000, recvbuff 0x7f2a48000000, sendbuff size %d, recvbuff size %d, reg sendbuff 0x7f1c00000000, reg recvbuff 0x7f1c08000000\n"
	)
	for _, tc := range []struct {
		name, line string
		graph      bool
		compared   bool
		agree      bool
	}{
		{"IPC failure at capture", fmt.Sprintf(ipcFail, 128<<20), true, true, true},
		{"IPC success where the export fails", fmt.Sprintf(ipcOK, 128<<20, 128<<20), true, true, false},
		{"IPC failure outside a graph", fmt.Sprintf(ipcFail, 128<<20), false, true, false},
		{"IPC failure of a small LL operation", fmt.Sprintf(ipcFail, 64), true, true, false},
		{"NVLS success with NVLS off", fmt.Sprintf(nvlsOK, 128<<20, 128<<20), true, true, false},
		{"no measured operation of that size", fmt.Sprintf(ipcFail, 12345), true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var edit func(*conformance.Capture)
			if tc.graph {
				edit = func(c *conformance.Capture) { c.Result.Timing = "graph" }
			}
			before, rep := checkWithLine(t, edit, tc.line)
			var tally, row *string
			for _, r := range rep.Rows {
				switch {
				case r.Kind == "register" && r.What == "registration lines":
					s := fmt.Sprintf("%s/%s %v note %q", r.Predicted, r.Observed, r.Agree, r.Note)
					tally = &s
				case r.Kind == "register":
					s := fmt.Sprintf("%s: predicted %q, observed %q", r.What, r.Predicted, r.Observed)
					row = &s
				}
			}
			if tally == nil {
				t.Fatalf("no registration tally: %+v", rep.Rows)
			}
			if !tc.compared {
				if !strings.Contains(*tally, "0 compared") || !strings.Contains(*tally, "not comparable") || rep.Disagreements() != before.Disagreements() {
					t.Errorf("compared: %s", *tally)
				}
				return
			}
			if !strings.HasPrefix(*tally, "1 compared") {
				t.Fatalf("tally %s, want 1 compared", *tally)
			}
			if got := rep.Disagreements() == before.Disagreements(); got != tc.agree || (row == nil) != tc.agree {
				t.Errorf("agree %v, want %v (tally %s, row %v)", got, tc.agree, *tally, row)
			}
			if row != nil {
				t.Log(*row)
			}
		})
	}
}

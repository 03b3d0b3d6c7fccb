package diagnose

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
)

// TestRegisterFindings: registration lines of IPC, NET and CollNet give
// register.done for the paths that registered and register.failed for
// those whose call failed; NVLS's failure stays nvls.register-failed's
// alone, and a log without registration lines gives neither.
func TestRegisterFindings(t *testing.T) {
	const (
		ver     = "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n"
		ipcOK   = "h:1:1 [0] NCCL INFO rank 0 - IPC register buffer 0x7f00 size 8388608 (baseAddr 0x7f00 size 8388608) to peer 1 regAddr 0x7e00 offsetOut 0\n"
		netFail = "h:1:1 [0] NCCL INFO rank 0 failed to NET register userbuff 0x7f00 buffSize 8388608 GDR flag 0\n"
		cnOK    = "h:1:1 [0] NCCL INFO rank 0 - COLLNET register userbuff 0x7f00 (handle 0x55), buffSize 8388608, type Send\n"
		nvlsF   = "h:1:1 [0] NCCL INFO rank 0 failed to NVLS register sendbuff 0x7f00 sendbuffSize 4096 recvbuff 0x7f00 recvbuffSize 4096\n"
	)
	for _, tc := range []struct {
		name, log    string
		done, failed string // title part, "" when the finding is absent
	}{
		{"IPC and CollNet registered, NET failed", ver + ipcOK + cnOK + netFail, "(IPC, CollNet)", "(NET)"},
		{"NVLS failure alone", ver + nvlsF, "", ""},
		{"none", ver, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ncclog.Parse(strings.NewReader(tc.log), "t.log")
			if err != nil {
				t.Fatal(err)
			}
			rep := Diagnose(l, Options{})
			got := map[string]string{}
			for _, f := range rep.Findings {
				got[f.ID] = f.Title
				if (f.ID == "register.done" || f.ID == "register.failed") && len(f.Evidence) == 0 {
					t.Errorf("%s: no evidence", f.ID)
				}
			}
			for id, want := range map[string]string{"register.done": tc.done, "register.failed": tc.failed} {
				title, ok := got[id]
				if ok != (want != "") || !strings.Contains(title, want) {
					t.Errorf("%s: %q (present %v), want %q", id, title, ok, want)
				}
			}
		})
	}
}

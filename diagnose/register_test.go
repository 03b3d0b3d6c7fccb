package diagnose

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec/tuning"
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

// TestRegAgrees: a registration line agrees with the model's choice when
// their typed outcomes do (the path as tuning.ChunkReg, failed or not), not
// when their words do. sameText records what the old word-for-word
// comparison of RegString with the line's String said, where the two part
// ways: a line without a path printed " registered", and so did the
// choice that registers nothing; a CollNetDirect choice whose peers are
// registered over IPC once printed "CollNet registered, not IPC".
func TestRegAgrees(t *testing.T) {
	line := func(p tuning.ChunkReg, failed bool) ncclog.RegOutcome {
		return ncclog.RegOutcome{Path: p, Failed: failed, Bytes: 8 << 20}
	}
	for _, tc := range []struct {
		name     string
		ch       tuning.OpChoice
		r        ncclog.RegOutcome
		agree    bool
		sameText bool // RegString(ch, r.Path) == r.String()
	}{
		{"IPC registered", tuning.OpChoice{Registered: "IPC"}, line(tuning.ChunkRegIPC, false), true, true},
		{"NVLS failed", tuning.OpChoice{RegFailed: "NVLS", RegRefused: "the bind failed"}, line(tuning.ChunkRegNVLS, true), true, true},
		{"registered, the line failed", tuning.OpChoice{Registered: "NET"}, line(tuning.ChunkRegNet, true), false, false},
		{"another path", tuning.OpChoice{Registered: "CollNet"}, line(tuning.ChunkRegNet, false), false, false},
		{"nothing registered", tuning.OpChoice{Algo: nccl.Ring, Proto: nccl.LL}, line(tuning.ChunkRegIPC, false), false, false},
		{"CollNetDirect's IPC peers", tuning.OpChoice{Algo: nccl.CollNetDirect, Registered: "CollNet", RegPeers: "IPC"}, line(tuning.ChunkRegIPC, false), true, true},
		{"CollNetDirect's CollNet line", tuning.OpChoice{Algo: nccl.CollNetDirect, Registered: "CollNet", RegPeers: "IPC"}, line(tuning.ChunkRegCollNet, false), true, true},
		{"IPC failed", tuning.OpChoice{RegFailed: "IPC", RegRefused: "no handle"}, line(tuning.ChunkRegIPC, true), true, true},
		// 2.23.4's IPC export fails without a line: a failure line is not
		// the model's
		{"IPC failed silently", tuning.OpChoice{RegFailed: "IPC", RegSilent: "IPC", RegRefused: "directMode"}, line(tuning.ChunkRegIPC, true), false, false},
		// the peers' IPC export and CollNet's registration both failed:
		// each prints its line
		{"IPC and CollNet failed, the CollNet line", tuning.OpChoice{Algo: nccl.CollNetDirect, RegFailed: "IPC+CollNet", RegRefused: "no GDR"}, line(tuning.ChunkRegCollNet, true), true, true},
		{"IPC and CollNet failed, the IPC line", tuning.OpChoice{Algo: nccl.CollNetDirect, RegFailed: "IPC+CollNet", RegRefused: "no GDR"}, line(tuning.ChunkRegIPC, true), true, true},
		// the words agree (" registered" both), the values do not: the
		// line names no path and the choice registers nothing
		{"no path, nothing registered", tuning.OpChoice{}, line(tuning.ChunkRegNone, false), false, true},
		// a word the model does not write maps to no registration
		{"an unknown word", tuning.OpChoice{Registered: "ipc"}, line(tuning.ChunkRegIPC, false), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RegAgrees(tc.ch, tc.r); got != tc.agree {
				t.Errorf("RegAgrees(%+v, %+v) = %v, want %v", tc.ch, tc.r, got, tc.agree)
			}
			if same := RegString(tc.ch, tc.r.Path) == tc.r.String(); same != tc.sameText {
				t.Errorf("RegString %q, line %q: same words %v, want %v", RegString(tc.ch, tc.r.Path), tc.r.String(), same, tc.sameText)
			}
		})
	}
}

package ncclog

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// TestRegLines: each registration line, success or failure, of every
// path and wording (written from NCCL's format strings at the releases
// the catalogue names), is read as its path, outcome and buffer sizes;
// repeats count as lines but are kept once.
func TestRegLines(t *testing.T) {
	const a, b = "0x7f2a40000000", "0x7f2a48000000"
	cases := []struct {
		name, msg string
		want      RegOutcome
	}{
		// v2.24.3-1, v2.27.3-1 to v2.28.9-1 p2p.cc ipcRegisterBuffer
		{"IPC 2.24/2.27-2.28", "rank 0 - IPC register buffer " + a + " size 8388608 (baseAddr " + a + " size 8388608) to peer 1 regAddr 0x7f1c20000000 offsetOut 0",
			RegOutcome{Path: tuning.ChunkRegIPC, Bytes: 8 << 20}},
		// v2.25.1-1 to v2.26.6-1
		{"IPC 2.25-2.26", "rank 1 - IPC registered buffer " + a + " size 4096 (baseAddr " + a + " size 2097152) to peer 0 regAddr 0x7f1c20000000 offsetOut 4096",
			RegOutcome{Path: tuning.ChunkRegIPC, Bytes: 4096}},
		// v2.30.3-1 to v2.30.7-1
		{"IPC 2.30", "rank 0 - IPC register buffer " + a + " size 8388608 (baseAddr " + a + " totalSize 8388608 numSegments 1) to peer 1 regAddr 0x7f1c20000000 offsetOut 0",
			RegOutcome{Path: tuning.ChunkRegIPC, Bytes: 8 << 20}},
		{"IPC reuse 2.30", "rank 0 - IPC reuse buffer " + a + " size 8388608 (baseAddr " + a + " size 8388608 numSegments 1) to peer 1 regAddr 0x7f1c20000000",
			RegOutcome{Path: tuning.ChunkRegIPC, Bytes: 8 << 20}},
		{"IPC failed 2.24-2.25 WARN", "rank 0 failed to IPC register userbuff " + a + " buffSize 8388608 nPeers 1 isLegacyIpc 0x7ffd1c",
			RegOutcome{Path: tuning.ChunkRegIPC, Failed: true, Bytes: 8 << 20}},
		{"IPC failed 2.26+", "rank 0 failed to IPC register userbuff " + a + " buffSize 8388608 nPeers 1 isLegacyIpc 0 type POSIX_FD",
			RegOutcome{Path: tuning.ChunkRegIPC, Failed: true, Bytes: 8 << 20}},
		// net.cc netRegisterBuffer
		{"NET", "rank 3 - NET register userbuff " + a + " (handle 0x55d0c0a0), buffSize 1048576", RegOutcome{Path: tuning.ChunkRegNet, Bytes: 1 << 20}},
		{"NET failed", "rank 3 failed to NET register userbuff " + a + " buffSize 1048576 GDR flag 0", RegOutcome{Path: tuning.ChunkRegNet, Failed: true, Bytes: 1 << 20}},
		// coll_net.cc collnetRegisterBuffer
		{"CollNet send", "rank 0 - COLLNET register userbuff " + a + " (handle 0x55d0c0a0), buffSize 8388608, type Send", RegOutcome{Path: tuning.ChunkRegCollNet, Bytes: 8 << 20}},
		{"CollNet reuse recv", "rank 0 - COLLNET reuse register userbuff " + b + " (handle 0x55d0c0b0), buffSize 8388608, type Recv", RegOutcome{Path: tuning.ChunkRegCollNet, Bytes: 8 << 20, Recv: true}},
		{"CollNet failed 2.24-2.26 WARN", "rank 0 - COLLNET failed to register userbuff " + a + " (handle (nil)), buffSize 8388608, type Send, GDR is not enabled",
			RegOutcome{Path: tuning.ChunkRegCollNet, Failed: true, Bytes: 8 << 20}},
		{"CollNet failed 2.27+", "rank 0 - COLLNET failed to register userbuff " + b + ", buffSize 8388608, type Recv, GDR 0",
			RegOutcome{Path: tuning.ChunkRegCollNet, Failed: true, Bytes: 8 << 20, Recv: true}},
		// v2.22.3-1 enqueue.cc registerIntraNodeBuffers
		{"CollNet 2.21-2.23", "rank 0 successfully registered collNet sendbuff " + a + " (handle 0x55d0c0a0), sendbuff size 1048576, recvbuff " + b + " (handle 0x55d0c0b0), recvbuff size 8388608",
			RegOutcome{Path: tuning.ChunkRegCollNet, SendBytes: 1 << 20, RecvBytes: 8 << 20}},
		// nvls.cc nvlsRegisterBuffer (2.24.3+), ncclNvlsLocalRegisterBuffer
		// and ncclNvlsGraphRegisterBuffer (2.19-2.23)
		{"NVLS in place", "rank 0 successfully registered NVLS sendbuff " + a + ", recvbuff " + a + ", sendbuff size 8388608, recvbuff size 8388608, reg sendbuff 0x7f1c00000000, reg recvbuff 0x7f1c00000000",
			RegOutcome{Path: tuning.ChunkRegNVLS, SendBytes: 8 << 20, RecvBytes: 8 << 20, InPlace: true}},
		{"NVLS reuse", "rank 0 reuse registered NVLS sendbuff (nil), recvbuff " + b + ", sendbuff size 1048576, recvbuff size 8388608, reg sendbuff (nil), reg recvbuff 0x7f1c08000000",
			RegOutcome{Path: tuning.ChunkRegNVLS, SendBytes: 1 << 20, RecvBytes: 8 << 20}},
		{"NVLS local 2.21-2.23", "rank 0 successfully local-registered NVLS sendbuff " + a + ", recvbuff " + b + ", sendbuff size 4096, recvbuff size 4096, reg sendbuff 0x7f1c00000000, reg recvbuff 0x7f1c08000000",
			RegOutcome{Path: tuning.ChunkRegNVLS, SendBytes: 4096, RecvBytes: 4096}},
		{"NVLS graph 2.19-2.23", "rank 0 successfully graph-registered sendbuff " + a + ", recvbuff " + b + ", sendbuff size 4096 (register size 2097152, sendGran 2097152), recvbuff size 4096 (register size 2097152, recvGran 2097152), reg sendbuff 0x7f1c00000000, reg recvbuff 0x7f1c08000000",
			RegOutcome{Path: tuning.ChunkRegNVLS, SendBytes: 4096, RecvBytes: 4096}},
		{"NVLS failed", "rank 0 failed to NVLS register sendbuff " + a + " sendbuffSize 4096 recvbuff " + b + " recvbuffSize 4096",
			RegOutcome{Path: tuning.ChunkRegNVLS, Failed: true, SendBytes: 4096, RecvBytes: 4096}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := "h:1:1 [0] NCCL INFO " + c.msg + "\n"
			l, err := Parse(strings.NewReader(line+line), "t.log")
			if err != nil {
				t.Fatal(err)
			}
			if l.Reg.Lines != 2 || !reflect.DeepEqual(l.Reg.Outcomes, []RegOutcome{c.want}) {
				t.Errorf("got %d lines %+v, want 2 lines %+v", l.Reg.Lines, l.Reg.Outcomes, c.want)
			}
		})
	}
	// deregistration and the proxy's half of the IPC handshake are not outcomes
	for _, msg := range []string{
		"rank 0 - IPC deregistered buffer " + a + " peer 1 ipc remote buffer 0x7f1c20000000",
		"rank 0 - IPC registering buffer " + a + " size 8388608 (baseAddr " + a + " size 8388608) to peer 1",
		"Proxy rank 1 register success regAddr 0x7f1c20000000 size 8388608 offset 0 legacyIpcCap 0 sameProcess 0",
		"rank 0 - COLLNET deregistered buffer handle 0x55d0c0a0",
	} {
		l, err := Parse(strings.NewReader("h:1:1 [0] NCCL INFO "+msg+"\n"), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if l.Reg.Lines != 0 {
			t.Errorf("%q read as a registration outcome: %+v", msg, l.Reg.Outcomes)
		}
	}
}

// TestRegFormsAtTags: every wording of a registration form is printed by
// the form's file at some modelled release in its range, and every modelled
// release in the range prints one of them (adjacent string literals
// joined, as clang-format splits them from 2.30.7). It needs the NCCL git
// mirror.
func TestRegFormsAtTags(t *testing.T) {
	src := ncclmirror.OpenSource(t, ncclmirror.ForTest(t))
	join := regexp.MustCompile(`"\s*\n\s*"`)
	n := 0
	for _, f := range Catalogue {
		if f.Kind != KindRegistered && f.Kind != KindRegFailed {
			continue
		}
		n++
		alts := strings.Split(f.Format, " | ")
		seen := make([]bool, len(alts))
		for _, r := range spec.Releases {
			if r < f.Since || (f.Until != 0 && r > f.Until) {
				continue
			}
			text, ok, err := src.File(r.Tag(), f.Ref.File)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Errorf("%s: %s: no %s", f.ID, r, f.Ref.File)
				continue
			}
			text = join.ReplaceAllString(text, "")
			any := false
			for i, alt := range alts {
				if strings.Contains(text, `"`+alt+`"`) {
					seen[i], any = true, true
				}
			}
			if !any {
				t.Errorf("%s: %s prints none of its wordings", f.ID, r)
			}
		}
		for i, s := range seen {
			if !s {
				t.Errorf("%s: %q printed at no modelled release in its range", f.ID, alts[i])
			}
		}
	}
	if n == 0 {
		t.Fatal("no registration forms in the catalogue")
	}
}

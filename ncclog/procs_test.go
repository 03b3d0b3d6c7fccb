package ncclog

import (
	"strings"
	"testing"
)

// TestSharedProcess: the log shows ranks sharing a process by a "Check
// P2P Type" line's directMode (every wording since 2.24.3) or by a
// connection "via P2P/direct pointer"; other connection lines say
// nothing either way.
func TestSharedProcess(t *testing.T) {
	for _, tc := range []struct {
		name, log     string
		shared, known bool
		line          int
	}{
		{"2.28.9 check line", "vm:2054:2079 [0] NCCL INFO Check P2P Type isAllDirectP2p 1 directMode 1 isAllCudaP2p 1\n", true, true, 1},
		{"2.24.3 wording", "h:1:1 [0] NCCL INFO Check P2P Type intraNodeP2pSupport 1 directMode 0\n", false, true, 1},
		{"one rank says 0, another 1", "h:1:1 [0] NCCL INFO Check P2P Type isAllDirectP2p 1 directMode 0\nh:1:1 [1] NCCL INFO Check P2P Type isAllDirectP2p 1 directMode 1\n", true, true, 2},
		{"direct pointer connection", "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer/read\n", true, true, 1},
		{"check line wins over connections", "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer\nh:1:1 [0] NCCL INFO Check P2P Type isAllDirectP2p 1 directMode 0\n", false, true, 2},
		{"CUMEM connection", "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n", false, false, 0},
	} {
		l, err := Parse(strings.NewReader(tc.log), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		shared, at, known := l.SharedProcess()
		if shared != tc.shared || known != tc.known || at.Line != tc.line {
			t.Errorf("%s: shared %v known %v at %v, want %v %v line %d", tc.name, shared, known, at, tc.shared, tc.known, tc.line)
		}
	}
}

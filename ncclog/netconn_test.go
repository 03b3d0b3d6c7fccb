package ncclog

import (
	"strings"
	"testing"
)

// TestNetConnLines: every "via NET/..." connector line is kept with its
// ranks, devices, side and what follows the network's name; its kind is
// the "Connected all rings/trees" line that follows it in the process
// (p2p for a connection index other than 0); intra-node lines give rank
// pairs of one node; "use ring PXN %d GDR %d" is read.
func TestNetConnLines(t *testing.T) {
	log := strings.Join([]string{
		"h:1:2 [0] NCCL INFO NCCL version 2.28.9+cuda12.9",
		"h:1:2 [0] NCCL INFO Channel 00/0 : 7[7] -> 0[0] [receive] via NET/IB/0/GDRDMA",
		"h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
		"h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 8[0] [send] via NET/IB/1(3)/GDRDMA(PCI)",
		"h:1:2 [0] NCCL INFO Connected all rings, use ring PXN 1 GDR 1",
		"h:1:2 [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/NCCL RDMA Plugin v6/2",
		"h:1:2 [0] NCCL INFO Connected all trees",
		"h:1:2 [0] NCCL INFO Channel 01/1 : 0[0] -> 9[1] [send] via NET/IB/1(1)/GDRDMA/Shared",
		"h:1:2 [0] NCCL INFO Channel 02/0 : 0[0] -> 9[1] [send] via NET/IB/1",
	}, "\n") + "\n"
	l, err := Parse(strings.NewReader(log), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind, net, suffix string
		rank, dev, peer   int
		send              bool
	}{
		{"ring", "IB", "0/GDRDMA", 0, 0, 7, false},
		{"ring", "IB", "1(3)/GDRDMA(PCI)", 1, 1, 8, true},
		{"tree", "NCCL RDMA Plugin v6", "2", 0, 0, 8, false},
		{"p2p", "IB", "1(1)/GDRDMA/Shared", 0, 0, 9, true},
		{"", "IB", "1", 0, 0, 9, true},
	}
	if len(l.NetConns) != len(want) {
		t.Fatalf("%d connector lines, want %d: %+v", len(l.NetConns), len(want), l.NetConns)
	}
	for i, w := range want {
		c := &l.NetConns[i]
		if c.Kind != w.kind || c.Net != w.net || c.Suffix != w.suffix || c.Rank() != w.rank || c.Dev() != w.dev || c.Peer() != w.peer || c.Send != w.send {
			t.Errorf("line %d: %+v, want %+v", i, *c, w)
		}
	}
	if len(l.SameNode) != 1 || l.SameNode[0] != [2]RankDev{{0, 0}, {1, 1}} {
		t.Errorf("same-node pairs %+v, want 0[0]-1[1]", l.SameNode)
	}
	if l.RingConn == nil || !l.RingConn.PXN || !l.RingConn.GDR {
		t.Errorf("ring line %+v, want PXN 1 GDR 1", l.RingConn)
	}
}

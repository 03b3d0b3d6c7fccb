package diagnose

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// TestCompareConns: with a machine, every logged network connector line is
// predicted (G-NET-CONN-PXN-1, G-NET-CONN-GDR-1, G-NET-CONN-SHARED-1) and
// compared, and a line that disagrees is a difference: on two DGX H100s
// rank 0's point-to-point send to GPU 1 of the other node goes through
// rank 1 and NIC 1, its ring receive is NIC 0 with GDR, the ring's flags
// are PXN 0 GDR 1; a logged send without the proxy differs.
func TestCompareConns(t *testing.T) {
	log := strings.Join([]string{
		"h:1:2 [0] NCCL INFO NCCL version 2.28.9+cuda12.9",
		"h:1:2 [0] NCCL INFO Channel 00/0 : 15[7] -> 0[0] [receive] via NET/IB/0/GDRDMA",
		"h:1:2 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
		"h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 9[1] [send] via NET/IB/1(1)/GDRDMA/Shared",
		"h:1:2 [0] NCCL INFO Channel 01/1 : 0[0] -> 9[1] [send] via NET/IB/0/GDRDMA/Shared",
	}, "\n") + "\n"
	cmp := compareOnDGXH100x2(t, log)
	want := []struct {
		kind, pred string
		agree      Agreement
	}{
		{"ring", "0/GDRDMA", Agree},
		{"p2p", "1(1)/GDRDMA/Shared", Agree},
		{"p2p", "1(1)/GDRDMA/Shared", Differ},
		{"ring", "use ring PXN 0 GDR 1", Agree},
	}
	if len(cmp.Conns) != len(want) {
		t.Fatalf("%d connector rows, want %d: %+v", len(cmp.Conns), len(want), cmp.Conns)
	}
	for i, w := range want {
		if r := cmp.Conns[i]; r.Kind != w.kind || r.Predicted != w.pred || r.Agreement != w.agree {
			t.Errorf("row %d: %+v, want %+v", i, r, w)
		}
	}
	if cmp.Differences() < 1 {
		t.Errorf("the differing connector is not counted: %v", cmp.Counts)
	}
	var b strings.Builder
	if err := cmp.WriteText(&b); err != nil || !strings.Contains(b.String(), "Network connectors (G-NET-CONN-PXN-1") {
		t.Errorf("text lacks the connector table (%v):\n%s", err, b.String())
	}
}

// TestCompareConnsFlush: each predicted receive carries its flush
// (G-NET-CONN-FLUSH-1), which no NCCL line prints: on two DGX H100s 2.18.6
// flushes a GDR receive (NCCL_NET_FORCE_FLUSH's default 1), 2.28.9 does
// not; a send has none.
func TestCompareConnsFlush(t *testing.T) {
	for _, tc := range []struct{ version, recv string }{{"2.18.6", "iflush"}, {"2.28.9", "none"}} {
		cmp := compareOnDGXH100x2(t, strings.Join([]string{
			"h:1:2 [0] NCCL INFO NCCL version " + tc.version + "+cuda12.4",
			"h:1:2 [0] NCCL INFO Channel 00/0 : 15[7] -> 0[0] [receive] via NET/IB/0/GDRDMA",
			"h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 9[1] [send] via NET/IB/1(1)/GDRDMA/Shared",
		}, "\n")+"\n")
		if len(cmp.Conns) != 2 || cmp.Conns[0].Flush != tc.recv || cmp.Conns[1].Flush != "-" {
			t.Fatalf("%s: connector rows %+v, want the receive's flush %q and the send's -", tc.version, cmp.Conns, tc.recv)
		}
		var b strings.Builder
		if err := cmp.WriteText(&b); err != nil || !strings.Contains(b.String(), "G-NET-CONN-FLUSH-1") || !strings.Contains(b.String(), "  "+tc.recv+"  ") {
			t.Errorf("%s: text lacks the flush column (%v):\n%s", tc.version, err, b.String())
		}
	}
}

// compareOnDGXH100x2 is the comparison of a log with its prediction on two
// DGX H100s.
func compareOnDGXH100x2(t *testing.T, log string) *Comparison {
	t.Helper()
	l, err := ncclog.Parse(strings.NewReader(log), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	pred, err := Predict(l, 0, sys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Compare(pred, Diagnose(l, Options{}).Obs)
}

// TestPredictConnsWithoutComm: where the model builds no communicator,
// every logged connector is a row, not predicted.
func TestPredictConnsWithoutComm(t *testing.T) {
	l, err := ncclog.Parse(strings.NewReader("h:1:2 [0] NCCL INFO Channel 00/1 : 0[0] -> 9[1] [send] via NET/IB/1(1)/GDRDMA/Shared\n"), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	rows := PredictConns(nil, l)
	if len(rows) != 1 || rows[0].Agreement != NotPredicted || rows[0].Observed != "1(1)/GDRDMA/Shared" {
		t.Errorf("rows %+v, want one not predicted", rows)
	}
}

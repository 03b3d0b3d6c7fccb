package tuning

import (
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestCTAPolicyCheck: G-SEL-CTAPOL-1's one decision over each of its
// conditions, read from getAlgoInfo at the tags (v2.27.3-1 and v2.28.9-1
// src/enqueue.cc getAlgoInfo; v2.29.2-1 and v2.30.7-1 ncclGetAlgoInfo:
// the same conditions, the policy a bit mask from 2.29.2), on one node of
// 8 ranks with 8 NVLS heads: a registered AllGather needs 32/8 = 4
// channels, a ReduceScatter 40/8 = 5, across nodes 48/8 = 6
// (ncclNvlsRegResourcesQuery). Where the pick's channels are free
// (pickNC 0 in the table means 16), ChooseOp's getAlgoInfo must take
// the same decision: ctaPolicy asks CTAPolicyCheck.
func TestCTAPolicyCheck(t *testing.T) {
	ag, rs, ar := nccl.AllGather, nccl.ReduceScatter, nccl.AllReduce
	ring := "Ring"
	for _, tc := range []struct {
		name   string
		v      nccl.Version
		f      nccl.Func
		nodes  int
		pickNC int // 0: 16, and ChooseOp must agree
		edit   func(*Input, *Call)
		want   CTAPolicyCond
		wantNC int
	}{
		{name: "applies", v: nccl.V2_28_9, f: ag, want: CTAPolicyApplies, wantNC: 4},
		{name: "applies RS", v: nccl.V2_28_9, f: rs, want: CTAPolicyApplies, wantNC: 5},
		{name: "applies 2.27.3", v: nccl.V2_27_3, f: ag, want: CTAPolicyApplies, wantNC: 4},
		{name: "applies 2.30.7", v: nccl.V2_30_7, f: rs, want: CTAPolicyApplies, wantNC: 5},
		{name: "across nodes", v: nccl.V2_28_9, f: ag, nodes: 2, want: CTAPolicyApplies, wantNC: 6},
		{name: "graph-registered", v: nccl.V2_28_9, f: ag, edit: func(_ *Input, c *Call) { c.Buffers, c.Graph = nccl.BuffersUser, true }, want: CTAPolicyApplies, wantNC: 4},
		{name: "no override before 2.27.3", v: nccl.V2_26_6, f: ag, want: CTAPolicyNoRelease},
		{name: "not EFFICIENCY", v: nccl.V2_28_9, f: ag, edit: func(in *Input, _ *Call) { in.CTAPolicyEfficiency = false }, want: CTAPolicyNotEfficient},
		{name: "AllReduce", v: nccl.V2_28_9, f: ar, want: CTAPolicyFunc},
		{name: "tuner", v: nccl.V2_28_9, f: ag, edit: func(in *Input, _ *Call) { in.Tuner = &TunerBehaviour{Name: "t"} }, want: CTAPolicyTuner},
		{name: "tuner answer", v: nccl.V2_28_9, f: ag, pickNC: 16, edit: func(_ *Input, c *Call) { c.Tuned = &TunerEdit{} }, want: CTAPolicyTuner},
		{name: "NCCL_ALGO", v: nccl.V2_28_9, f: ag, edit: func(in *Input, _ *Call) { in.Algo = &ring }, want: CTAPolicyAlgoProto},
		{name: "NCCL_PROTO", v: nccl.V2_28_9, f: ag, edit: func(in *Input, _ *Call) { s := "Simple"; in.Proto = &s }, want: CTAPolicyAlgoProto},
		{name: "MNNVL", v: nccl.V2_28_9, f: ag, edit: func(in *Input, _ *Call) { in.MNNVL = true }, want: CTAPolicyMNNVL},
		{name: "plain buffers", v: nccl.V2_28_9, f: ag, edit: func(_ *Input, c *Call) { c.Buffers = nccl.BuffersUser }, want: CTAPolicyNoRegBuff},
		{name: "no NVLS support", v: nccl.V2_28_9, f: ag, edit: func(_ *Input, c *Call) { c.NVLSOK = false }, want: CTAPolicyNoSupport},
		{name: "across nodes, no CollNet", v: nccl.V2_28_9, f: ag, nodes: 2, edit: func(_ *Input, c *Call) { c.CollNetOK = false }, want: CTAPolicyNoSupport},
		{name: "one node, no CollNet", v: nccl.V2_28_9, f: ag, edit: func(_ *Input, c *Call) { c.CollNetOK = false }, want: CTAPolicyApplies, wantNC: 4},
		{name: "no NVLS heads", v: nccl.V2_28_9, f: ag, pickNC: 16, edit: func(in *Input, _ *Call) { in.NVLSHeads = 0 }, want: CTAPolicyNoResources},
		{name: "pick has as many", v: nccl.V2_28_9, f: ag, pickNC: 4, want: CTAPolicyApplies, wantNC: 4},
		{name: "pick has fewer", v: nccl.V2_28_9, f: ag, pickNC: 3, want: CTAPolicyChannels},
		{name: "pick kept", v: nccl.V2_28_9, f: ag, pickNC: -1, want: CTAPolicyChannels},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tuningMultiNodeInput(max(tc.nodes, 1), 8)
			in.NVLSHeads, in.CTAPolicyEfficiency = 8, true
			call := Call{Op: opOfBytes(t, tc.f, 64<<20, nccl.Float32), CollNetOK: true, NVLSOK: true, Buffers: nccl.BuffersRegistered}
			if tc.edit != nil {
				tc.edit(&in, &call)
			}
			m := tuningModel(t, in, tc.v)
			call.RegBuff = m.RegBuff(call)
			pickNC := tc.pickNC
			switch pickNC {
			case 0:
				pickNC = 16
			case -1:
				pickNC = CTAPolicyPickKept
			}
			got := m.CTAPolicyCheck(call, pickNC)
			if got.Cond != tc.want || (tc.want == CTAPolicyApplies) != (got.Why == "") || got.NChannels != tc.wantNC {
				t.Fatalf("pick on %d channels: %+v, want cond %d on %d channels", pickNC, got, tc.want, tc.wantNC)
			}
			if tc.pickNC != 0 {
				return
			}
			ch, err := ChooseOp(m, call)
			if err != nil || ch.Err != nil {
				t.Fatal(err, ch.Err)
			}
			if moved := ch.DecidedBy == RuleCTAPolicy; moved != (got.Cond == CTAPolicyApplies) || (moved && (ch.Algo != nccl.NVLS || ch.Proto != nccl.Simple || ch.NChannels != tc.wantNC)) {
				t.Errorf("ChooseOp: %s/%s on %d channels decided by %s, want the override %v", ch.Algo, ch.Proto, ch.NChannels, ch.DecidedBy, got.Cond == CTAPolicyApplies)
			}
		})
	}
}

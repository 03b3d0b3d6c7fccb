package tuning

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
	"pgregory.net/rapid"
)

// opOfBytes is a sum of bytes/size(dt) elements of dt; the sizes the
// tests name are whole numbers of elements.
func opOfBytes(t testing.TB, f nccl.Func, bytes int64, dt nccl.DataType) nccl.Op {
	t.Helper()
	if sz := int64(dt.Size()); sz == 0 || bytes%sz != 0 {
		t.Fatalf("%d bytes is no whole number of %s elements", bytes, dt)
	}
	return nccl.Op{Func: f, Count: bytes / int64(dt.Size()), DataType: dt, RedOp: nccl.Sum}
}

func tuningChoose(t testing.TB, m *Model, f nccl.Func, bytes int64, dt nccl.DataType) *OpChoice {
	t.Helper()
	op := opOfBytes(t, f, bytes, dt)
	c, err := ChooseOp(m, Call{Op: op})
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// TestTuningH200x2ChannelRanges: the per-operation lines real NCCL 2.28.9
// printed on 2 × H200 (nccl-tuning.md §5.6, §5.7 and the 2.28.9 column of
// §7.2, all [LOG]), and the same decisions under the 2.22.3 and 2.30.7
// schedulers as the note predicts them from source (§7.2, [model]).
func TestTuningH200x2ChannelRanges(t *testing.T) {
	type row struct {
		f     nccl.Func
		bytes int64
		line  string
	}
	logged := []row{
		{nccl.AllReduce, 32768, "AllReduce: 32768 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..3}"},
		{nccl.AllReduce, 131072, "AllReduce: 131072 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..15}"},
		{nccl.AllReduce, 524288, "AllReduce: 524288 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..23}"},
		{nccl.AllReduce, 2 << 20, "AllReduce: 2097152 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}"},
		{nccl.AllGather, 131072, "AllGather: 131072 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..21}"},
		{nccl.ReduceScatter, 131072, "ReduceScatter: 131072 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..21}"},
		{nccl.AllGather, 524288, "AllGather: 524288 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..23}"},
		{nccl.ReduceScatter, 524288, "ReduceScatter: 524288 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..23}"},
		{nccl.Broadcast, 524288, "Broadcast: 524288 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..21}"},
		{nccl.Reduce, 524288, "Reduce: 524288 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..21}"},
		{nccl.Broadcast, 2 << 20, "Broadcast: 2097152 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..21}"},
		{nccl.Reduce, 2 << 20, "Reduce: 2097152 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..21}"},
	}
	for _, v := range []nccl.Version{nccl.V2_28_3, nccl.V2_28_9} {
		m := tuningModel(t, tuningH200x2Input(), v)
		for _, r := range logged {
			if c := tuningChoose(t, m, r.f, r.bytes, nccl.Float32); c.Line != r.line {
				t.Errorf("%s: %q\n  logged %q", v, c.Line, r.line)
			}
		}
	}
	// §7.2 predictions for the other schedulers: (2.22.3 hi, 2.30.7 hi).
	pred := []struct {
		f        nccl.Func
		bytes    int64
		r22, r30 int
		proto    nccl.Proto
	}{
		{nccl.AllReduce, 524288, 23, 21, nccl.LL},
		{nccl.AllReduce, 2 << 20, 23, 21, nccl.Simple},
		{nccl.AllGather, 131072, 23, 15, nccl.LL},
		{nccl.ReduceScatter, 131072, 23, 15, nccl.LL},
		{nccl.AllGather, 524288, 23, 21, nccl.LL},
		{nccl.Broadcast, 524288, 23, 21, nccl.LL},
		{nccl.Reduce, 2 << 20, 23, 21, nccl.Simple},
	}
	m22 := tuningModel(t, tuningH200x2Input(), nccl.V2_22_3)
	m30, err := BuildModel(tuningH200x2Input(), tuningRelease(t, nccl.V2_30_7))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pred {
		if c := tuningChoose(t, m22, p.f, p.bytes, nccl.Float32); c.ChannelLo != 0 || c.ChannelHi != p.r22 || c.Proto != p.proto || c.Algo != nccl.Ring {
			t.Errorf("2.22.3 %s %d: %s/%s {%d..%d}, predicted Ring/%s {0..%d}", p.f, p.bytes, c.Algo, c.Proto, c.ChannelLo, c.ChannelHi, p.proto, p.r22)
		}
		if c := tuningChoose(t, m30, p.f, p.bytes, nccl.Float32); c.ChannelLo != 0 || c.ChannelHi != p.r30 || c.Proto != p.proto || c.Algo != nccl.Ring {
			t.Errorf("2.30.7 %s %d: %s/%s {%d..%d}, predicted Ring/%s {0..%d}", p.f, p.bytes, c.Algo, c.Proto, c.ChannelLo, c.ChannelHi, p.proto, p.r30)
		}
	}
}

// TestTuningChannelsAndThreads: topoGetAlgoInfo's nc/nt (nccl-tuning.md §5.6).
func TestTuningChannelsAndThreads(t *testing.T) {
	m := tuningModel(t, tuningH200x2Input(), nccl.V2_28_9)
	for _, tc := range []struct {
		f      nccl.Func
		bytes  int64
		nc, nt int
		algo   nccl.Algo
		proto  nccl.Proto
	}{
		// Ring/LL: nc = min(24, max(1, nBytes/(512×16))), nt halves while nBytes < nc·nt·16.
		{nccl.AllReduce, 8, 1, 96, nccl.Ring, nccl.LL},
		{nccl.AllReduce, 32768, 4, 512, nccl.Ring, nccl.LL},
		{nccl.AllReduce, 131072, 16, 512, nccl.Ring, nccl.LL},
		{nccl.AllReduce, 524288, 24, 512, nccl.Ring, nccl.LL},
		{nccl.AllGather, 1024, 1, 128, nccl.Ring, nccl.LL}, // nBytes 2048: 512 → 256 → 128
		{nccl.AllReduce, 64 << 20, 24, 544, nccl.Ring, nccl.Simple},
	} {
		c := tuningChoose(t, m, tc.f, tc.bytes, nccl.Int8)
		if c.NChannels != tc.nc || c.NThreads != tc.nt || c.Algo != tc.algo || c.Proto != tc.proto {
			t.Errorf("%s %d: %s/%s nc %d nt %d, want %s/%s %d %d", tc.f, tc.bytes, c.Algo, c.Proto, c.NChannels, c.NThreads, tc.algo, tc.proto, tc.nc, tc.nt)
		}
	}
}

// TestTuningNoAlgorithm: NCCL_ALGO=Tree makes AllGather impossible. 2.28.9
// fails the collective with ncclInvalidUsage (the real log and torch's
// "invalid usage", nccl-tuning.md §5.5 [LOG]); 2.22.3 silently runs Ring.
func TestTuningNoAlgorithm(t *testing.T) {
	in := tuningH200x2Input()
	tuningForceAlgo(&in, nccl.Tree)
	m := tuningModel(t, in, nccl.V2_28_9)
	c := tuningChoose(t, m, nccl.AllGather, 1<<20, nccl.Float32)
	want := "Error : no algorithm/protocol available for function AllGather with datatype ncclInt8. NCCL_ALGO was set to Tree."
	if c.Err == nil || c.Err.Result != nccl.InvalidUsage || c.Warn != want || c.Err.Message != want || c.DecidedBy != RuleSelErr {
		t.Errorf("2.28.9: %+v %q", c.Err, c.Warn)
	}
	if c.Line != "" {
		t.Errorf("a failed group prints no per-op line: %q", c.Line)
	}
	// AllReduce still runs Tree.
	if c := tuningChoose(t, m, nccl.AllReduce, 1<<20, nccl.Float32); c.Err != nil || c.Algo != nccl.Tree {
		t.Errorf("AllReduce under NCCL_ALGO=Tree: %s %v", c.Algo, c.Err)
	}
	// A group with one failing bin fails whole and prints the WARN only.
	g, err := ChooseGroup(m, []Call{{Op: nccl.Op{Func: nccl.AllReduce, Count: 1024, DataType: nccl.Float32}}, {Op: nccl.Op{Func: nccl.AllGather, Count: 1024, DataType: nccl.Float32}}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Err == nil || len(g.Lines) != 1 || g.Lines[0] != "Error : no algorithm/protocol available for function AllGather with datatype ncclInt8. NCCL_ALGO was set to Tree." {
		t.Errorf("group: %v %q", g.Err, g.Lines)
	}

	// 2.22.3: Ring restored at init (G-TUNE-RINGRESTORE-1) for AllGather.
	m22 := tuningModel(t, in, nccl.V2_22_3)
	c = tuningChoose(t, m22, nccl.AllGather, 1<<20, nccl.Float32)
	if c.Err != nil || c.Algo != nccl.Ring {
		t.Errorf("2.22.3: %s %v", c.Algo, c.Err)
	}
	if !strings.HasPrefix(c.Line, "2097152 Bytes -> Algo 1 proto ") {
		t.Errorf("2.22.3 line %q", c.Line)
	}

	// 2.22.3 backup (G-SEL-BACKUP-1): with NCCL_ALGO=NVLS the model keeps
	// NVLS for AllReduce (so no Ring restoration at init), but an int8
	// AllReduce cannot use NVLS (P4): the table is empty at enqueue and the
	// Ring time computed from the bandwidth saved before NCCL_ALGO's disable
	// is used. 2.28.9 fails instead.
	in2 := tuningH200x2Input()
	nvls := &topo.Graph{Pattern: topo.PatternNVLS, NChannels: 2, BwIntra: 60, BwInter: 60, TypeIntra: topo.PathNVL, TypeInter: topo.PathPIX}
	in2.Graphs = Graphs(in2.Graphs[nccl.Ring], in2.Graphs[nccl.Tree], nil, nil, nvls)
	in2.NVLSSupport, in2.NVLSChannels = true, 16
	tuningForceAlgo(&in2, nccl.NVLS)
	m22 = tuningModel(t, in2, nccl.V2_22_3)
	if m22.Restored[nccl.AllReduce][nccl.Simple] || m22.Bandwidths[nccl.AllReduce][nccl.NVLS][nccl.Simple] == 0 {
		t.Fatalf("setup: AllReduce must keep NVLS at init: %v", m22.Bandwidths[nccl.AllReduce][nccl.NVLS][nccl.Simple])
	}
	c = tuningChoose(t, m22, nccl.AllReduce, 1<<20, nccl.Int8)
	if c.Err != nil || c.Algo != nccl.Ring || !c.Backup || c.DecidedBy != RuleSelBackup || c.Reason[nccl.Ring][nccl.LL] != CostBackup {
		t.Errorf("2.22.3 backup: %s/%s backup=%v %v", c.Algo, c.Proto, c.Backup, c.Err)
	}
	// The same op with NVLS support runs NVLS.
	if op, _ := ChooseOp(m22, Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 1 << 18, DataType: nccl.Float32}, NVLSOK: true}); op.Algo != nccl.NVLS {
		t.Errorf("2.22.3 NVLS: %s", op.Algo)
	}
	p := "Simple"
	in2.Proto = &p
	m28 := tuningModel(t, in2, nccl.V2_28_9)
	c = tuningChoose(t, m28, nccl.AllReduce, 1<<20, nccl.Int8)
	if c.Err == nil || c.Err.Result != nccl.InvalidUsage || c.Warn != "Error : no algorithm/protocol available for function AllReduce with datatype ncclInt8. NCCL_ALGO was set to NVLS. NCCL_PROTO was set to Simple." {
		t.Errorf("2.28.9 no backup: %v %q", c.Err, c.Warn)
	}
	// Nothing usable and neither variable set in the environment (the
	// matrix as a caller might build it): ncclInternalError.
	in4 := in
	in4.Algo = nil
	m4 := tuningModel(t, in4, nccl.V2_28_9)
	c = tuningChoose(t, m4, nccl.AllGather, 1<<20, nccl.Uint8)
	if c.Err == nil || c.Err.Result != nccl.InternalError || c.Warn != "Error : no algorithm/protocol available for function AllGather with datatype ncclInt8." {
		t.Errorf("unset env: %v %q", c.Err, c.Warn)
	}
	c = tuningChoose(t, m4, nccl.ReduceScatter, 1<<20, nccl.Uint8)
	if c.Warn != "Error : no algorithm/protocol available for function ReduceScatter with datatype Unknown." {
		t.Errorf("ncclDatatypeToString has no ncclUint8: %q", c.Warn)
	}
	// 2.30.7's text.
	m30, err := BuildModel(in, tuningRelease(t, nccl.V2_30_7))
	if err != nil {
		t.Fatal(err)
	}
	if c := tuningChoose(t, m30, nccl.AllGather, 1<<20, nccl.Float32); !strings.HasPrefix(c.Warn, "No algorithm/protocol available for function AllGather") {
		t.Errorf("2.30.7: %q", c.Warn)
	}
}

// TestTuningTieOrder: equal times go to the lower algorithm, then protocol.
func TestTuningTieOrder(t *testing.T) {
	in := tuningH200x2Input()
	in.Tuner = &TunerBehaviour{Name: "tie", Rules: []TunerRule{{Func: "AllReduce", Algo: "Ring", Proto: "LL", Cost: 0}}}
	m := tuningModel(t, in, nccl.V2_28_9)
	c := tuningChoose(t, m, nccl.AllReduce, 1<<20, nccl.Float32)
	if c.Algo != nccl.Ring || c.Proto != nccl.LL || c.TimeUs != 0 {
		t.Fatalf("tuner cost 0: %s/%s %v", c.Algo, c.Proto, c.TimeUs)
	}
	// Two zero cells (a loaded tuner's table, every other cell IGNORE):
	// Tree/Simple (lower index) beats Ring/LL; then Tree/LL beats both.
	edit := &TunerEdit{NumAlgo: nccl.NumAlgos}
	for a := range nccl.NumAlgos {
		for p := range nccl.NumProtos {
			edit.After[a][p] = Ignore
		}
	}
	edit.After[nccl.Tree][nccl.Simple], edit.After[nccl.Ring][nccl.LL] = 0, 0
	op := Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 1 << 20, DataType: nccl.Int8, RedOp: nccl.Sum}, Tuned: edit}
	for _, want := range []struct {
		Algo  nccl.Algo
		Proto nccl.Proto
	}{{nccl.Tree, nccl.Simple}, {nccl.Tree, nccl.LL}} {
		edit.After[want.Algo][want.Proto] = 0
		c, err := ChooseOp(m, op)
		if err != nil {
			t.Fatal(err)
		}
		if c.Algo != want.Algo || c.Proto != want.Proto {
			t.Errorf("tie: %s/%s, want %s/%s", c.Algo, c.Proto, want.Algo, want.Proto)
		}
	}
}

// TestTuningTuner: the tuner hook is not re-validated; its nChannels
// replaces the computed one after nWarps.
func TestTuningTuner(t *testing.T) {
	in := tuningH200x2Input()
	in.NVLSChannels = 16
	in.Tuner = &TunerBehaviour{Name: "t", Rules: []TunerRule{
		{Func: "allgather", MinBytes: 0, MaxBytes: 1 << 20, Algo: "NVLS", Proto: "Simple", Cost: 0},
		{Func: "allreduce", MinBytes: 1 << 20, Algo: "Tree", Proto: "Simple", Cost: 1, NChannels: 3},
		{Func: "allreduce", Algo: "Ring", Proto: "LL", Cost: -1},
	}}
	m := tuningModel(t, in, nccl.V2_28_9)
	// NVLS is pruned for this op (no NVLS support), the tuner makes it 0:
	// NCCL takes it anyway (G-TUNER-CALL-1).
	c := tuningChoose(t, m, nccl.AllGather, 4096, nccl.Float32)
	if c.Algo != nccl.NVLS || c.Reason[nccl.NVLS][nccl.Simple] != CostTuner {
		t.Errorf("tuner NVLS: %s/%s", c.Algo, c.Proto)
	}
	ex := c.Explain(m)
	if ex[nccl.NVLS][nccl.Simple].Rule != RuleTunerCall || ex[nccl.Ring][nccl.LL].Reason != CostOK || ex[nccl.CollNetDirect][nccl.Simple].Rule != RuleSelPrune {
		t.Errorf("explain: %+v %+v %+v", ex[nccl.NVLS][nccl.Simple], ex[nccl.Ring][nccl.LL], ex[nccl.CollNetDirect][nccl.Simple])
	}
	c = tuningChoose(t, m, nccl.AllReduce, 8<<20, nccl.Float32)
	if c.Algo != nccl.Tree || c.NChannels != 3 || c.TunerNChannels != 3 || c.NThreads != 640 {
		t.Errorf("tuner Tree: %s/%s nc %d nt %d", c.Algo, c.Proto, c.NChannels, c.NThreads)
	}
	if c.ChannelLo != 0 || c.ChannelHi != 2 {
		t.Errorf("tuner channels: %s", c.Line)
	}
	// Below 1 MiB the third rule forbids Ring/LL.
	c = tuningChoose(t, m, nccl.AllReduce, 4096, nccl.Float32)
	if c.Algo == nccl.Ring && c.Proto == nccl.LL {
		t.Error("tuner IGNORE not honoured")
	}
	// A rule for PAT does not apply to 2.22.3's 6-algorithm table.
	in.Tuner = &TunerBehaviour{Name: "pat", Rules: []TunerRule{{Func: "allgather", Algo: "PAT", Proto: "Simple", Cost: 0}}}
	c = tuningChoose(t, tuningModel(t, in, nccl.V2_22_3), nccl.AllGather, 4096, nccl.Float32)
	if c.Algo == nccl.PAT {
		t.Error("PAT chosen in 2.22.3")
	}
}

// TestTuningR22Line: 2.22.3 prints the tuning size, numeric ids and NCCL's
// time estimate once per aggregate.
func TestTuningR22Line(t *testing.T) {
	m := tuningModel(t, tuningH200x2Input(), nccl.V2_22_3)
	c := tuningChoose(t, m, nccl.AllGather, 131072, nccl.Float32)
	// Ring/LL, time = lat 7.2 + 262144/(1000 × 282): NCCL's float arithmetic.
	want := fmt.Sprintf("262144 Bytes -> Algo 1 proto 0 time %f", float64(c.TimeUs))
	if c.Line != want || c.Algo != nccl.Ring || c.Proto != nccl.LL {
		t.Errorf("%q, want %q", c.Line, want)
	}
	// By hand in float32: lat = 6.6f + 0.6f = 7.19999981; 262144/(1000 × 282)
	// = 0.929588646; the sum rounds to 8.12958813, printed 8.129588.
	if c.Line != "262144 Bytes -> Algo 1 proto 0 time 8.129588" {
		t.Errorf("time %q", c.Line)
	}
}

// TestTuningGroup: aggregation within 4× per bin, one decision per
// aggregate, channel packing of the plan.
func TestTuningGroup(t *testing.T) {
	m := tuningModel(t, tuningH200x2Input(), nccl.V2_28_9)
	ops := []Call{
		{Op: nccl.Op{Func: nccl.AllReduce, Count: 1024, DataType: nccl.Float32}},    // 4 KiB
		{Op: nccl.Op{Func: nccl.AllReduce, Count: 2048, DataType: nccl.Float32}},    // 8 KiB: within 4× of 4 KiB
		{Op: nccl.Op{Func: nccl.AllReduce, Count: 1 << 20, DataType: nccl.Float32}}, // 4 MiB: its own aggregate
		{Op: nccl.Op{Func: nccl.AllReduce, Count: 1024, DataType: nccl.Float16}},    // another bin
	}
	g, err := ChooseGroup(m, ops)
	if err != nil {
		t.Fatal(err)
	}
	if g.Err != nil {
		t.Fatal(g.Err)
	}
	if fmt.Sprint(g.Ops[0].Aggregate) != "[0 1]" || fmt.Sprint(g.Ops[1].Aggregate) != "[0 1]" || g.Ops[2].Aggregate != nil {
		t.Errorf("aggregates %v %v %v", g.Ops[0].Aggregate, g.Ops[1].Aggregate, g.Ops[2].Aggregate)
	}
	if g.Ops[0].NBytes != 12288 || g.Ops[0].NumPipeOps != 1 {
		t.Errorf("aggregate size %d pipe %d", g.Ops[0].NBytes, g.Ops[0].NumPipeOps)
	}
	if len(g.Lines) != 4 || g.Plans != 1 {
		t.Fatalf("lines %q plans %d", g.Lines, g.Plans)
	}
	// Tasks share the plan's channels: no channel range leaves [0, 24).
	for _, o := range g.Ops {
		if o.ChannelLo < 0 || o.ChannelHi >= 24 || o.ChannelHi < o.ChannelLo {
			t.Errorf("range %d..%d", o.ChannelLo, o.ChannelHi)
		}
	}
	// Zero-count collectives are discarded.
	g, err = ChooseGroup(m, []Call{{Op: nccl.Op{Func: nccl.AllReduce, Count: 0, DataType: nccl.Float32}}})
	if err != nil || !g.Ops[0].Discarded || len(g.Lines) != 0 {
		t.Errorf("count 0: %+v %v", g.Ops[0], err)
	}
	// Bad calls are Go errors.
	for _, bad := range []nccl.Op{{Func: nccl.Func(42), Count: 1, DataType: nccl.Float32}, {Func: nccl.AllReduce, Count: -1, DataType: nccl.Float32},
		{Func: nccl.AllReduce, Count: 1, DataType: 99}, {Func: nccl.AllReduce, Count: 1, DataType: nccl.Float32, RedOp: 42}} {
		if _, err := ChooseOp(m, Call{Op: bad}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// SendRecv and AllToAll, empty ones included, are send/recv tasks
	// (spec places them), outside the cost table
	for _, p2p := range []nccl.Op{{Func: nccl.SendRecv, Count: 1, DataType: nccl.Float32}, {Func: nccl.AllToAll, Count: 0, DataType: nccl.Float32}} {
		if c, err := ChooseOp(m, Call{Op: p2p}); err != nil || !c.P2P || c.Discarded || c.Line != "" {
			t.Errorf("%+v: %+v %v, want a p2p task", p2p, c, err)
		}
	}
	if _, err := ChooseOp(tuningModel(t, tuningH200x2Input(), nccl.V2_22_3), Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 1, DataType: nccl.Float8e4m3}}); err == nil {
		t.Error("fp8 in 2.22.3 accepted")
	}
	// fp8 reductions need sm90.
	in := tuningH200x2Input()
	in.MinCompCap, in.MaxCompCap = 80, 80
	c, err := ChooseOp(tuningModel(t, in, nccl.V2_28_9), Call{Op: nccl.Op{Func: nccl.AllReduce, Count: 16, DataType: nccl.Float8e5m2}})
	if err != nil || c.Err == nil || c.Err.Result != nccl.InvalidArgument {
		t.Errorf("fp8 on sm80: %v %v", c, err)
	}
}

// TestTuningChooseProperties: invariants of every choice over random
// communicators, releases and operations.
func TestTuningChooseProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in := tuningRandomInput(rt)
		if rapid.Bool().Draw(rt, "tuner") {
			in.Tuner = &TunerBehaviour{Name: "r", Rules: []TunerRule{{
				Func: rapid.SampledFrom([]string{"allreduce", "allgather", "broadcast"}).Draw(rt, "tf"),
				Algo: rapid.SampledFrom(nccl.AlgoNames()).Draw(rt, "ta"), Proto: rapid.SampledFrom(nccl.ProtoNames()).Draw(rt, "tp"),
				Cost: rapid.SampledFrom([]float64{-1, 0, 5}).Draw(rt, "tc"), NChannels: rapid.IntRange(0, 4).Draw(rt, "tn")}}}
		}
		v := rapid.SampledFrom(tuningAllReleases).Draw(rt, "release")
		m, err := BuildModel(in, tuningRelease(rt, v))
		if err != nil {
			rt.Fatal(err)
		}
		f := nccl.Func(rapid.IntRange(0, nccl.NumFuncs-1).Draw(rt, "f"))
		dts := []nccl.DataType{nccl.Int8, nccl.Int32, nccl.Float16, nccl.Float32, nccl.Float64, nccl.Bfloat16}
		if v != nccl.V2_22_3 {
			dts = append(dts, nccl.Float8e4m3)
		}
		dt := rapid.SampledFrom(dts).Draw(rt, "dt")
		count := rapid.Int64Range(1, 1<<28).Draw(rt, "count")
		op := Call{Op: nccl.Op{Func: f, Count: count, DataType: dt, RedOp: rapid.SampledFrom([]nccl.RedOp{nccl.Sum, nccl.Max, nccl.Avg}).Draw(rt, "op")},
			CollNetOK: rapid.Bool().Draw(rt, "cnok"), NVLSOK: rapid.Bool().Draw(rt, "nvok")}
		c, err := ChooseOp(m, op)
		if err != nil {
			if in.Tuner != nil && strings.Contains(err.Error(), "would divide by zero") {
				return // a tuner forcing NVLS on a communicator without NVLS channels crashes NCCL
			}
			rt.Fatal(err)
		}
		if c.Err != nil {
			if c.Err.Result == nccl.InvalidArgument {
				return // fp8 reduction below sm90
			}
			// No cell below topoGetAlgoInfo's starting minimum (3.6e9 µs in
			// 2.28: an fp8 Ring ×1024 on a slow network can exceed it).
			for a := range nccl.NumAlgos {
				for p := range nccl.NumProtos {
					if x := c.Cost[a][p]; x != Ignore && x >= 0 && x < m.Tuning.PickMaxTime {
						rt.Fatalf("error %v with usable cell %s/%s %v", c.Err, nccl.Algo(a), nccl.Proto(p), x)
					}
				}
			}
			return
		}
		// The chosen cell is the first minimum (or 2.22.3's backup).
		if !c.Backup {
			best := c.Cost[c.Algo][c.Proto]
			if best < 0 || best != c.TimeUs {
				rt.Fatalf("chosen %s/%s cost %v time %v", c.Algo, c.Proto, best, c.TimeUs)
			}
			for a := range nccl.NumAlgos {
				for p := range nccl.NumProtos {
					x := c.Cost[a][p]
					if x == Ignore || x < 0 {
						continue
					}
					if x < best || (x == best && (a < int(c.Algo) || (a == int(c.Algo) && p < int(c.Proto)))) {
						rt.Fatalf("%s/%s %v beats chosen %s/%s %v", nccl.Algo(a), nccl.Proto(p), x, c.Algo, c.Proto, best)
					}
				}
			}
		} else if v != nccl.V2_22_3 || c.Algo != nccl.Ring {
			rt.Fatalf("backup %s in %s", c.Algo, v)
		}
		if c.NThreads%32 != 0 || c.NThreads < 96 || c.NThreads > 640 {
			rt.Fatalf("threads %d", c.NThreads)
		}
		if c.ChannelLo < 0 || c.ChannelHi < c.ChannelLo || c.ChannelHi >= max(in.NChannels, in.NVLSChannels, c.NChannels) {
			rt.Fatalf("channels %d..%d (nChannels %d, nvls %d, task %d)", c.ChannelLo, c.ChannelHi, in.NChannels, in.NVLSChannels, c.NChannels)
		}
		if v != nccl.V2_22_3 && c.Line != fmt.Sprintf("%s: %d Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}", f, c.Bytes, c.Algo.LogName(), c.Proto.LogName(), c.ChannelLo, c.ChannelHi) {
			rt.Fatalf("line %q", c.Line)
		}
		// Forcing the chosen algorithm alone keeps it (or its error).
		forced := in
		for g := range nccl.NumFuncs {
			for a := range nccl.NumAlgos {
				forced.Enable.Algo[g][a] = 0
			}
			forced.Enable.Algo[g][c.Algo] = 1
		}
		mf, err := BuildModel(forced, tuningRelease(rt, v))
		if err != nil {
			rt.Fatal(err)
		}
		cf, err := ChooseOp(mf, op)
		if err != nil {
			rt.Fatal(err)
		}
		if cf.Err == nil && cf.Algo != c.Algo && in.Tuner == nil && v != nccl.V2_22_3 {
			rt.Fatalf("forcing %s chose %s", c.Algo, cf.Algo)
		}
	})
}

// TestTuningGroupProperties: in a group of distinct bins (no aggregation)
// with fewer tasks than channels, every task gets the decision it gets
// alone; ranges of one kind never overlap beyond shared edge channels.
func TestTuningGroupProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		v := rapid.SampledFrom(tuningAllReleases).Draw(rt, "release")
		m := tuningModel(rt, tuningH200x2Input(), v)
		n := rapid.IntRange(1, 5).Draw(rt, "n")
		perm := rapid.Permutation([]nccl.DataType{nccl.Int8, nccl.Int32, nccl.Float16, nccl.Float32, nccl.Float64, nccl.Bfloat16}).Draw(rt, "types")
		var ops []Call
		for i := range n {
			f := nccl.Func(rapid.IntRange(0, nccl.NumFuncs-1).Draw(rt, fmt.Sprint("f", i)))
			ops = append(ops, Call{Op: nccl.Op{Func: f, Count: rapid.Int64Range(1, 1<<26).Draw(rt, fmt.Sprint("c", i)), DataType: perm[i]}})
		}
		// AllGather and Broadcast become int8: keep one of them at most per
		// function so that bins stay distinct.
		seen := map[nccl.Func]bool{}
		var kept []Call
		for _, o := range ops {
			if (o.Op.Func == nccl.AllGather || o.Op.Func == nccl.Broadcast) && seen[o.Op.Func] {
				continue
			}
			seen[o.Op.Func] = true
			kept = append(kept, o)
		}
		g, err := ChooseGroup(m, kept)
		if err != nil {
			rt.Fatal(err)
		}
		if g.Err != nil {
			rt.Fatal(g.Err)
		}
		for i, o := range kept {
			alone, err := ChooseOp(m, o)
			if err != nil {
				rt.Fatal(err)
			}
			got := g.Ops[i]
			if got.Algo != alone.Algo || got.Proto != alone.Proto || got.NChannels != alone.NChannels || got.NThreads != alone.NThreads || got.TimeUs != alone.TimeUs {
				rt.Fatalf("op %d in a group %s/%s nc %d nt %d, alone %s/%s nc %d nt %d", i, got.Algo, got.Proto, got.NChannels, got.NThreads, alone.Algo, alone.Proto, alone.NChannels, alone.NThreads)
			}
			if got.ChannelLo < 0 || got.ChannelHi >= 24 {
				rt.Fatalf("op %d range %d..%d", i, got.ChannelLo, got.ChannelHi)
			}
		}
	})
}

func TestTuningZeros(t *testing.T) {
	m := tuningModel(t, tuningH200x2Input(), nccl.V2_28_9)
	zs := m.Zeros()
	n := 0
	for _, f := range nccl.Funcs {
		for a := range nccl.NumAlgos {
			for p := range nccl.NumProtos {
				if m.Bandwidths[f][a][p] == 0 {
					n++
				}
			}
		}
	}
	if len(zs) != n {
		t.Errorf("%d zeros listed, %d zero cells", len(zs), n)
	}
	rules := map[nccl.RuleID]int{}
	for _, z := range zs {
		rules[z.Rule]++
		if z.Rule == "" || z.Why == "" {
			t.Errorf("%+v without a reason", z)
		}
	}
	// On 2 × H200: CollNet off (EN-1), NVLS graph empty (BW-1), PAT off
	// (G-PAT-1), everything else not modelled (IMPL-1).
	for _, r := range []nccl.RuleID{RuleImpl, RuleEnable, RuleBwNVLS, RulePAT} {
		if rules[r] == 0 {
			t.Errorf("no zero from %s: %v", r, rules)
		}
	}
}

// TestTuningPickMaxTime: 2.28.9 starts the argmin at 3.6e9 µs, so a cell
// slower than that (an fp8 Ring deprioritised ×1024 over a slow network)
// is no candidate and the operation fails; 2.29+ starts at FLT_MAX.
func TestTuningPickMaxTime(t *testing.T) {
	in := tuningMultiNodeInput(5, 8)
	in.CollNetEnable = false
	slow := tuningG(topo.PatternRing, 1, 0.24, 0.24, topo.PathNVL, topo.PathNVL, false)
	in.Graphs = Graphs(slow, tuningG(topo.PatternTree, 1, 0.24, 0.24, topo.PathNVL, topo.PathNVL, false), nil, nil, nil)
	m := tuningModel(t, in, nccl.V2_28_9)
	op := Call{Op: nccl.Op{Func: nccl.ReduceScatter, Count: 1 << 30, DataType: nccl.Float8e4m3}}
	c, err := ChooseOp(m, op)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err == nil || c.Err.Result != nccl.InternalError || c.Cost[nccl.Ring][nccl.Simple] < 3.6e9 || c.Reason[nccl.Ring][nccl.Simple] != CostP8 {
		t.Fatalf("fp8 ring beyond 3.6e9 µs: %v cost %v", c.Err, c.Cost[nccl.Ring][nccl.Simple])
	}
	tu := tuningRelease(t, nccl.V2_28_9)
	tu.PickMaxTime = tuningRelease(t, nccl.V2_30_7).PickMaxTime
	m2, err := BuildModel(in, tu)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := ChooseOp(m2, op); c.Err != nil || c.Algo != nccl.Ring {
		t.Fatalf("with FLT_MAX: %s %v", c.Algo, c.Err)
	}
}

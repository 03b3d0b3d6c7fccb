package diagnose

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// A hand-made prediction for an 8-GPU NVSwitch node: NVLS usable and with
// channels, AllReduce 256 MiB on NVLS, AllGather 1 MiB on Ring/LL128, and
// no IB device.
var handPrediction = Prediction{
	Trace: spec.Trace{
		{Rule: "G-NVLS-CAP-1", Outcome: spec.Pass, Cap: spec.CapNVLS, Level: spec.LevelUsable},
		{Rule: "G-NVLS-CONS-1", Outcome: spec.Pass, Cap: spec.CapNVLS, Level: spec.LevelCandidate},
		{Rule: "G-NET-IB-1", Outcome: spec.Fail, Cap: spec.CapIB},
		{Rule: "G-PAT-1", Outcome: spec.Fail, Cap: spec.CapPAT},
	},
	Decisions: []spec.Decision{
		{Op: spec.Op{Func: spec.AllReduce, Count: 64 << 20, DataType: spec.Float32}, Algo: spec.NVLS, Proto: spec.Simple, NChannels: 16, ChannelHi: 15},
		{Op: spec.Op{Func: spec.AllGather, Count: 1 << 20, DataType: spec.Int8}, Algo: spec.Ring, Proto: spec.LL128},
		{Op: spec.Op{Func: spec.Broadcast, Count: 8, DataType: spec.Int8}, Algo: spec.Ring, Proto: spec.LL},
	},
}

const observedNoChannels = `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NET/IB : No device found.
h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)
h:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer
h:1:1 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}
h:1:1 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..7}
`

func TestCompare(t *testing.T) {
	r := diagLog(t, observedNoChannels, Options{})
	c := Compare(&handPrediction, r.Obs)
	gates := map[spec.RuleID]GateRow{}
	for _, g := range c.Gates {
		if _, ok := gates[g.Rule]; !ok {
			gates[g.Rule] = g
		}
	}
	for rule, want := range map[spec.RuleID]Agreement{
		"G-NVLS-CAP-1":  Agree,
		"G-NVLS-CONS-1": Differ, // predicted channels, the log has 0
		"G-NET-IB-1":    Agree,
		"G-PAT-1":       NotObserved, // no tuning table in this log
	} {
		if g, ok := gates[rule]; !ok || g.Agreement != want {
			t.Errorf("%s: %+v, want %s", rule, g, want)
		}
	}
	ops := map[spec.Func]OpRow{}
	for _, o := range c.Ops {
		ops[o.Coll] = o
	}
	if o := ops[spec.AllReduce]; o.Agreement != Differ || o.Observed != "Ring/Simple ch=0..23" || o.Predicted != "NVLS/Simple ch=0..15" || o.At != "t.log:5" {
		t.Errorf("AllReduce %+v", o)
	}
	if o := ops[spec.AllGather]; o.Agreement != Agree {
		t.Errorf("AllGather %+v", o)
	}
	if o := ops[spec.Broadcast]; o.Agreement != NotObserved {
		t.Errorf("Broadcast %+v", o)
	}
	caps := map[spec.Capability]CapRow{}
	for _, cr := range c.Caps {
		caps[cr.Cap] = cr
	}
	if cr := caps[spec.CapNVLS]; cr.Predicted != spec.LevelCandidate || cr.Observed != spec.LevelUsable || cr.Agreement != NotObserved {
		t.Errorf("nvls level row %+v", cr)
	}
	if c.Differences() != 2 {
		t.Errorf("differences %d, want 2 (NVLS consensus, AllReduce); counts %v", c.Differences(), c.Counts)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2 differ", "G-NVLS-CONS-1", "NVLS/Simple ch=0..15", "Ring/Simple ch=0..23"} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, buf.String())
		}
	}
}

// TestComparePerfectAgreement: a prediction made from the observation
// itself agrees everywhere.
func TestComparePerfectAgreement(t *testing.T) {
	r := diagLog(t, observedNoChannels, Options{})
	p := &Prediction{Trace: r.Obs.Trace, Decisions: r.Obs.Decisions}
	c := Compare(p, r.Obs)
	if c.Differences() != 0 || c.Counts[string(NotPredicted)] != 0 {
		t.Errorf("self-comparison: %v", c.Counts)
	}
}

func TestReadPrediction(t *testing.T) {
	b, err := json.Marshal(handPrediction)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadPrediction(b, "p.json")
	if err != nil || len(p.Trace) != 4 || len(p.Decisions) != 3 || p.Trace[0].Level != spec.LevelUsable {
		t.Fatalf("round trip: %+v %v", p, err)
	}
	for in, want := range map[string]string{
		`{`:                               "p.json: unexpected EOF",
		`{"trace": [], "x":1}`:            `p.json: json: unknown field "x"`,
		`{}`:                              "p.json: empty prediction",
		`{"trace":[{"verdict":"maybe"}]}`: `p.json: unknown verdict "maybe"`,
	} {
		if _, err := ReadPrediction([]byte(in), "p.json"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ReadPrediction(%s) error %v, want prefix %q", in, err, want)
		}
	}
}

// TestCompareEngineShapes covers what spec's engine emits that a log
// cannot: info verdicts (recording rules), undecided decisions with
// candidates (no tuning model), and capabilities it follows only up to
// "usable".
func TestCompareEngineShapes(t *testing.T) {
	const log = `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to nvls,ring
h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM
h:1:1 [0] NCCL INFO AllReduce: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}
h:1:1 [0] NCCL INFO AllReduce: 2048 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}
h:1:1 [0] NCCL INFO AllGather: 4096 Bytes -> Algo PAT proto SIMPLE channel{Lo..Hi}={0..0}
h:1:1 [0] NCCL INFO ReduceScatter: 4096 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..0}
`
	r := diagLog(t, log, Options{})
	ring := []spec.AlgoProto{{Algo: spec.Ring, Proto: spec.LL}, {Algo: spec.Ring, Proto: spec.Simple}}
	p := &Prediction{
		Trace: spec.Trace{
			{Rule: "G-SEL-PARSE-2", Outcome: spec.Info},
			{Rule: "G-TRANSPORT-1", Outcome: spec.Pass, Cap: spec.CapP2P, Level: spec.LevelUsable},
			{Rule: "G-PAT-1", Outcome: spec.Fail, Cap: spec.CapPAT},
		},
		Decisions: []spec.Decision{
			{Op: spec.Op{Func: spec.AllReduce, Count: 1024, DataType: spec.Int8}, Algo: spec.Ring, Proto: spec.ProtoNone, Candidates: ring, Undecided: "needs the tuning model"},
			{Op: spec.Op{Func: spec.AllReduce, Count: 2048, DataType: spec.Int8}, Algo: spec.AlgoNone, Proto: spec.ProtoNone, Candidates: ring[1:], Undecided: "needs the tuning model"},
			{Op: spec.Op{Func: spec.AllGather, Count: 4096, DataType: spec.Int8}, Algo: spec.Ring, Proto: spec.Simple},
			{Op: spec.Op{Func: spec.ReduceScatter, Count: 4096, DataType: spec.Int8}, Algo: spec.AlgoNone, Proto: spec.ProtoNone, Undecided: "no candidates listed"},
		},
	}
	c := Compare(p, r.Obs)
	gate := map[spec.RuleID]Agreement{}
	for _, g := range c.Gates {
		gate[g.Rule] = g.Agreement
	}
	if gate["G-SEL-PARSE-2"] != Agree {
		t.Errorf("info versus pass: %s, want agree (%+v)", gate["G-SEL-PARSE-2"], c.Gates)
	}
	want := map[int64]Agreement{1024: Consistent, 2048: Differ}
	for _, o := range c.Ops {
		switch {
		case o.Coll == spec.AllReduce:
			if o.Agreement != want[o.Bytes] {
				t.Errorf("AllReduce %d: %+v, want %s", o.Bytes, o, want[o.Bytes])
			}
		case o.Coll == spec.AllGather && o.Agreement != Differ,
			o.Coll == spec.ReduceScatter && o.Agreement != NotPredicted:
			t.Errorf("%+v", o)
		}
		if o.Bytes == 2048 && o.Predicted != "one of Ring/Simple" {
			t.Errorf("undecided text %q", o.Predicted)
		}
	}
	caps := map[spec.Capability]CapRow{}
	for _, cr := range c.Caps {
		caps[cr.Cap] = cr
	}
	// P2P: the log proves executed, spec stops at usable without a failing
	// gate: not a disagreement. PAT: spec's gate failed, the log passed it
	// (PAT in the model, then chosen).
	if cr := caps[spec.CapP2P]; cr.Observed != spec.LevelExecuted || cr.Agreement != NotPredicted {
		t.Errorf("p2p %+v", cr)
	}
	if cr := caps[spec.CapPAT]; cr.Observed != spec.LevelSelected || cr.Agreement != Differ {
		t.Errorf("pat %+v", cr)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "1 consistent") {
		t.Errorf("summary lacks the consistent count:\n%s", buf.String())
	}
}

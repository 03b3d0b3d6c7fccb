package spec

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

func tunerTestComm(t *testing.T, v Version) *Comm {
	t.Helper()
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	// named as lib*.so in the loader's path: 2.27.3 opens a path not
	// starting with "lib" only under the libnccl-tuner- prefix
	lib := Library{Path: "/opt/t/libnccl-tuner-t.so", InLoaderPath: true, TunerSymbols: []int{1, 2, 3, 4, 5}, Tuner: &tuning.TunerBehaviour{Name: "t"}}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, lib)
	}
	c, err := Init(MustLoad(v), sys, Env{"NCCL_TUNER_PLUGIN": lib.Base()})
	if err != nil {
		t.Fatal(err)
	}
	if c.TunerABI == 0 {
		t.Fatalf("%s: no tuner ABI accepted", v)
	}
	return c
}

// TestApplyTunerAnswer: NCCL's use of getCollInfo's answer, per ABI.
func TestApplyTunerAnswer(t *testing.T) {
	var before TunerTable
	for a := range NumAlgos {
		for p := range NumProtos {
			before[a][p] = tuning.Ignore
		}
	}
	before[Ring][Simple], before[Tree][LL] = 100, 50
	call := TunerCall{NumAlgo: 6, NumProto: 3, Table: before}
	edited := before
	edited[Ring][Simple], edited[NVLS][Simple] = 0, 3
	for _, tc := range []struct {
		name    string
		abi     int
		ans     TunerAnswer
		cell    AlgoProto
		want    float32
		edits   int
		ignored string
	}{
		{"v2 legal cell gets 0", 2, TunerAnswer{Algo: int(Ring), Proto: int(Simple)}, AlgoProto{Ring, Simple}, 0, 1, ""},
		{"v2 IGNORE cell is left", 2, TunerAnswer{Algo: int(NVLS), Proto: int(Simple)}, AlgoProto{NVLS, Simple}, tuning.Ignore, 0, "is IGNORE"},
		{"v2 PAT outside a 6-algorithm table", 2, TunerAnswer{Algo: int(PAT), Proto: int(Simple)}, AlgoProto{PAT, Simple}, tuning.Ignore, 0, "outside the 6×3 table"},
		{"v2 no choice", 2, TunerAnswer{Algo: -1, Proto: -1}, AlgoProto{Ring, Simple}, 100, 0, ""},
		{"v3 table as edited, IGNORE cell included", 3, TunerAnswer{Table: edited}, AlgoProto{NVLS, Simple}, 3, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := call
			c.ABI = tc.abi
			after, edits, ignored := applyTunerAnswer(&c, &tc.ans)
			if got := after[tc.cell.Algo][tc.cell.Proto]; got != tc.want {
				t.Errorf("%s = %g, want %g", tc.cell, got, tc.want)
			}
			if len(edits) != tc.edits {
				t.Errorf("edits %v, want %d", edits, tc.edits)
			}
			if (tc.ignored == "") != (ignored == "") || !strings.Contains(ignored, tc.ignored) {
				t.Errorf("ignored %q, want %q", ignored, tc.ignored)
			}
		})
	}
}

// TestSelectTuned: an unchanged table changes nothing; a cell set to 0
// wins; a non-success result fails the collective; a fault leaves the
// operation undecided; nChannels replaces NCCL's.
func TestSelectTuned(t *testing.T) {
	for _, v := range Releases {
		if len(MustLoad(v).Consts.TunerABI) == 0 {
			continue // no tuner plugin before 2.19.1
		}
		c := tunerTestComm(t, v)
		op, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
		d0, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		call, ok := c.TunerCallFor(d0)
		if !ok || call.NBytes != 1<<20 || call.NumAlgo != c.Model.Tuning.NumAlgos {
			t.Fatalf("%s: TunerCallFor %+v %v", v, call, ok)
		}
		same := TunerAnswer{Table: call.Table, Algo: -1, Proto: -1}
		d, _, err := c.SelectTuned(op, call, same)
		if err != nil || d.Algo != d0.Algo || d.Proto != d0.Proto || d.NChannels != d0.NChannels || len(d.Tuner.Edits) != 0 {
			t.Errorf("%s: unchanged table: %s/%s nch %d (want %s/%s nch %d), err %v", v, d.Algo, d.Proto, d.NChannels, d0.Algo, d0.Proto, d0.NChannels, err)
		}
		force := same
		force.Table[Ring][LL], force.NChannels = 0, 3
		if call.ABI < 3 { // a v1 or v2 tuner names the pair instead of editing the table
			force.Algo, force.Proto = int(Ring), int(LL)
		}
		d, _, _ = c.SelectTuned(op, call, force)
		if d.Algo != Ring || d.Proto != LL || d.NChannels != 3 || d.DecidedBy != "G-TUNER-CALL-1" {
			t.Errorf("%s: Ring/LL set to 0 with 3 channels: got %s/%s nch %d by %s", v, d.Algo, d.Proto, d.NChannels, d.DecidedBy)
		}
		fail := same
		fail.Result = int(InvalidUsage)
		d, _, _ = c.SelectTuned(op, call, fail)
		if d.Err == nil || d.Err.Result != InvalidUsage || d.DecidedBy != "G-TUNER-CALL-1" {
			t.Errorf("%s: getCollInfo returning ncclInvalidUsage: err %v by %s", v, d.Err, d.DecidedBy)
		}
		d, _, _ = c.SelectTuned(op, call, TunerAnswer{Fault: "crashed during getCollInfo: signal: segmentation fault"})
		if d.Algo != AlgoNone || !strings.Contains(d.Undecided, "crashed") {
			t.Errorf("%s: fault: %s/%s undecided %q", v, d.Algo, d.Proto, d.Undecided)
		}
	}
}

// TestTunerConstantsV5 lays out ncclTunerConstants_v5_t: 7×3 + 3×7×3 +
// 5×4×3 doubles, and an edit comes back as the path it changed.
func TestTunerConstantsV5(t *testing.T) {
	tu := MustLoad(V2_28_9).Tuning
	cs := tu.TunerConstantsV5()
	if len(cs) != 7*3+3*7*3+5*4*3 {
		t.Fatalf("%d constants, want 144", len(cs))
	}
	if cs[0] != tu.BaseLat[Tree][LL] || cs[21] != tu.HwLat[0][Tree][LL] || cs[84] != tu.LLMaxBw[0][0] {
		t.Errorf("layout: %v %v %v", cs[0], cs[21], cs[84])
	}
	after := append([]float64(nil), cs...)
	after[1*3+0] += 7 // baseLatencies[Ring][LL]
	edits, err := tu.TunerConstantEditsV5(after)
	if err != nil || len(edits) != 1 || edits[0].Path != "baseLatencies[Ring][LL]" || edits[0].Value != cs[3]+7 {
		t.Errorf("edits %+v, err %v", edits, err)
	}
	if _, err := tu.TunerConstantEditsV5(after[:10]); err == nil {
		t.Error("a short constants block was accepted")
	}
}

package spec

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// TestSymmetricProbeRegBuff: the ncclGetAlgoInfo that
// ncclMakeSymmetricTaskList makes before it keeps an unforced LL kernel
// (2.29.2+) reads the task's regBuff like any other: buffers registered
// with ncclCommRegister under CTA policy EFFICIENCY make it NVLS/Simple, so
// the piece goes back to the cost table instead of running AllGather_LLMC.
func TestSymmetricProbeRegBuff(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v      Version
		env    Env
		kernel string // "" when the piece goes back
		algo   Algo
	}{
		{V2_29_2, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		{V2_29_7, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		{V2_30_7, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		// without the policy the cost table alone runs it with LL
		{V2_29_2, Env{"NCCL_SYM_NOWIN_ENABLE": "1"}, "AllGather_LLMC", AlgoNone},
	} {
		comm, err := Init(MustLoad(c.v), sys, c.env)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []LaunchMode{LaunchStream, LaunchGraph} {
			d, err := comm.SelectGroup([]GroupOp{{Op: Op{Func: AllGather, Count: 8 << 10, DataType: Float32, RedOp: Sum}, Buffers: BuffersRegistered}}, Launch{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			op, ch := d.Ops[0], d.Choices[0]
			if op.Kernel != c.kernel || op.Algo != c.algo || (c.kernel == "") != strings.Contains(ch.SymFallback, "cost table alone picks NVLS/Simple") {
				t.Errorf("%s %v %v: kernel %q %s/%s, fallback %q: want kernel %q algo %s", c.v, c.env, mode, op.Kernel, op.Algo, op.Proto, ch.SymFallback, c.kernel, c.algo)
			}
		}
	}
}

// TestSymRangeGroup: G-SCHED-SYMRANGE-1 reports each grouped symmetric
// task's pieces, and from 2.28.7 the pieces of a bin's tasks cover each
// task's bytes exactly once, within the blocks its plan launches.
func TestSymRangeGroup(t *testing.T) {
	for _, v := range Releases {
		rs := MustLoad(v)
		if !slices.ContainsFunc(rs.Rules(), func(r *Rule) bool { return r.ID == "G-SCHED-SYMRANGE-1" }) {
			continue
		}
		comm := h200x2Comm(t, v, nil)
		var g []GroupOp
		for _, kib := range []int64{1024, 257, 3072, 5} {
			g = append(g, GroupOp{Op: Op{Func: AllReduce, Count: kib << 8, DataType: Float32, RedOp: Sum}, Buffers: BuffersWindow})
		}
		d, err := comm.SelectGroup(g, Launch{})
		if err != nil || d.Err != nil {
			t.Fatalf("%s: %v %v", v, err, d.Err)
		}
		for i, op := range d.Ops {
			if op.Kernel == "" || len(op.SymParts) == 0 {
				t.Fatalf("%s op %d: kernel %q, parts %v: want a symmetric kernel's pieces", v, i, op.Kernel, op.SymParts)
			}
			found := false
			for _, vd := range d.Traces[i] {
				found = found || (vd.Rule == "G-SCHED-SYMRANGE-1" && vd.Outcome == Info && strings.Contains(vd.Why, "this task's bytes: "))
			}
			if !found {
				t.Errorf("%s op %d: no G-SCHED-SYMRANGE-1 verdict", v, i)
			}
			if !rs.Tuning.SymRangeOwnEnds {
				continue
			}
			parts := slices.Clone(op.SymParts)
			slices.SortFunc(parts, func(a, b tuning.SymPart) int { return int(a.Offset - b.Offset) })
			var at int64
			for _, p := range parts {
				if p.Offset != at || p.Missing != 0 || p.CTAHi >= op.SymChannels {
					t.Errorf("%s op %d: pieces %+v", v, i, op.SymParts)
				}
				at += p.Bytes
			}
			if at != op.Op.Bytes() {
				t.Errorf("%s op %d: pieces cover %d of %d bytes", v, i, at, op.Op.Bytes())
			}
		}
	}
}

// TestSymmetricProbeTuner: the probe's ncclGetAlgoInfo calls a loaded
// tuner's getCollInfo once more, on the piece's head task alone
// (numPipeOps 1). 2.29.2–2.29.3 make it for every LL kernel pick, forced
// by NCCL_SYM_KERNEL or not, and return its failure from ncclGroupEnd;
// 2.29.7 makes none for buffers in windows on both sides; from 2.30.3 a
// failure outside windows is discarded and the piece goes back, where
// the operation's own call fails the same way.
func TestSymmetricProbeTuner(t *testing.T) {
	const small = 4 << 10 // an AllReduce the LL kernels take
	tuner := func(result string) *tuning.TunerBehaviour {
		return &tuning.TunerBehaviour{Name: "probe", Rules: []tuning.TunerRule{{Func: "AllReduce", MinBytes: 1, Algo: "Ring", Proto: "LL", Cost: 0, Result: result}}}
	}
	forced := Env{"NCCL_SYM_KERNEL": "AllReduce_AGxLL_R"}
	noWin := Env{"NCCL_SYM_NOWIN_ENABLE": "1"}
	for _, c := range []struct {
		name    string
		v       Version
		env     Env
		buffers Buffers
		fail    bool // the tuner fails every AllReduce call
		// want: the kernel kept ("" back to the cost table), the probe's
		// nBytes on the head (0: no probe), the group's error
		kernel string
		probe  int64
		err    Result
	}{
		{"2.29.2 window, tuner keeps LL", V2_29_2, nil, BuffersWindow, false, "AllReduce_AGxLL_R", small * 4, Success},
		{"2.29.2 window, tuner fails", V2_29_2, nil, BuffersWindow, true, "", small * 4, InvalidUsage},
		{"2.29.2 forced, tuner fails", V2_29_2, forced, BuffersWindow, true, "", small * 4, InvalidUsage},
		{"2.29.3 forced, tuner fails", V2_29_3, forced, BuffersWindow, true, "", small * 4, InvalidUsage},
		{"2.29.7 window, tuner fails: no probe", V2_29_7, nil, BuffersWindow, true, "AllReduce_AGxLL_R", 0, Success},
		{"2.29.7 forced, tuner fails: no probe", V2_29_7, forced, BuffersWindow, true, "AllReduce_AGxLL_R", 0, Success},
		// without NCCL_SYM_NOWIN_ENABLE the piece outside windows is
		// sure to go back, but 2.29.2–2.29.3 pick its LL kernel and probe
		// first; 2.29.7 test the buffers before any probe
		{"2.29.2 outside windows, tuner keeps LL: probed, back", V2_29_2, nil, BuffersUser, false, "", small * 4, Success},
		{"2.29.3 outside windows, tuner fails", V2_29_3, nil, BuffersUser, true, "", small * 4, InvalidUsage},
		{"2.29.7 outside windows, tuner keeps LL: no probe", V2_29_7, nil, BuffersUser, false, "", 0, Success},
		{"2.29.7 outside windows, tuner fails", V2_29_7, noWin, BuffersUser, true, "", small * 4, InvalidUsage},
		{"2.30.7 outside windows, tuner fails: back, then the operation's call", V2_30_7, noWin, BuffersUser, true, "", small * 4, InvalidUsage},
		{"2.30.7 outside windows, tuner keeps LL", V2_30_7, noWin, BuffersUser, false, "AllReduce_AGxLL_R", small * 4, Success},
	} {
		t.Run(c.name, func(t *testing.T) {
			result := ""
			if c.fail {
				result = "ncclInvalidUsage"
			}
			comm := probeTunerComm(t, c.v, tuner(result), c.env)
			d, err := comm.SelectGroup([]GroupOp{{Op: Op{Func: AllReduce, Count: small, DataType: Float32, RedOp: Sum}, Buffers: c.buffers}}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			ch := d.Choices[0]
			var res Result
			if d.Err != nil {
				res = d.Err.Result
			}
			if res != c.err || ch.SymProbeNBytes != c.probe {
				t.Fatalf("group error %v (want %s), probe nBytes %d (want %d)", d.Err, c.err, ch.SymProbeNBytes, c.probe)
			}
			if c.err != Success {
				if d.Err.Message != "tuner getCollInfo returned ncclInvalidUsage" || ch.DecidedBy != "G-TUNER-CALL-1" {
					t.Errorf("error %q decided by %s: want the tuner's result by G-TUNER-CALL-1", d.Err.Message, ch.DecidedBy)
				}
				return
			}
			if d.Ops[0].Kernel != c.kernel {
				t.Errorf("kernel %q, want %q (fallback %q, %s/%s side %q)", d.Ops[0].Kernel, c.kernel, ch.SymFallback, d.Ops[0].Algo, d.Ops[0].Proto, ch.SidePath)
			}
		})
	}
}

// probeTunerComm is 2 × H200 without NVLS, the declarative tuner loaded
// as NCCL_TUNER_PLUGIN, and env.
func probeTunerComm(t *testing.T, v Version, tuner *tuning.TunerBehaviour, env Env) *Comm {
	t.Helper()
	sys, err := Preset("h200x2", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lib := Library{Path: "/opt/t/libnccl-tuner-probe.so", InLoaderPath: true, TunerSymbols: []int{1, 2, 3, 4, 5, 6}, Tuner: tuner}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, lib)
	}
	all := Env{"NCCL_NVLS_ENABLE": "0", "NCCL_TUNER_PLUGIN": lib.Base()}
	for k, val := range env {
		all[k] = val
	}
	comm, err := Init(MustLoad(v), sys, all)
	if err != nil {
		t.Fatalf("%s init: %v", v, err)
	}
	if comm.TunerABI == 0 {
		t.Fatalf("%s: the tuner was not loaded", v)
	}
	return comm
}

// TestTunerRuleResult: a declarative tuner rule's result is checked at the
// system file's edge (an error result, not with chunk_size), and fails the
// getCollInfo calls it matches: a lone operation on the cost table fails
// with the tuner's result, by G-TUNER-CALL-1 in the rules and the model.
func TestTunerRuleResult(t *testing.T) {
	for _, tc := range []struct {
		result string
		chunk  int64
		ok     bool
	}{
		{"ncclInvalidUsage", 0, true}, {"InternalError", 0, true}, {"ncclSuccess", 0, false},
		{"ncclInProgress", 0, false}, {"nope", 0, false}, {"ncclInvalidUsage", 512, false},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lib := chunkTuner([]int{6}, tc.chunk)
		lib.Tuner.Rules[0].Result = tc.result
		sys.Nodes[0].Libs = append(sys.Nodes[0].Libs, lib)
		if err = sys.Validate(); (err == nil) != tc.ok {
			t.Errorf("result %q chunk_size %d: %v, want ok=%v", tc.result, tc.chunk, err, tc.ok)
		}
	}
	for _, v := range []Version{V2_28_9, V2_29_2, V2_30_7} {
		sys, err := Preset("h200x2", PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lib := Library{Path: "/opt/t/libnccl-tuner-f.so", InLoaderPath: true, TunerSymbols: []int{1, 2, 3, 4, 5, 6},
			Tuner: &tuning.TunerBehaviour{Name: "f", Rules: []tuning.TunerRule{{Func: "AllReduce", MaxBytes: 1 << 20, Algo: "Ring", Proto: "LL", Result: "ncclInternalError"}}}}
		sys.Nodes[0].Libs = append(sys.Nodes[0].Libs, lib)
		comm, err := Init(MustLoad(v), sys, Env{"NCCL_TUNER_PLUGIN": lib.Base()})
		if err != nil {
			t.Fatal(err)
		}
		for _, bytes := range []int64{64 << 10, 4 << 20} {
			op, _ := OpFromBytes(AllReduce, bytes, Float32, Sum, 0)
			d, _, err := comm.Select(op)
			if err != nil {
				t.Fatal(err)
			}
			g, err := comm.SelectGroup([]GroupOp{{Op: op}}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			ch := g.Choices[0]
			fails := bytes <= 1<<20
			if (d.Err != nil) != fails || (ch.Err != nil) != fails {
				t.Errorf("%s %d bytes: rules %v, model %v by %s: want failing %v", v, bytes, d.Err, ch.Err, ch.DecidedBy, fails)
				continue
			}
			if fails && (d.Err.Result != InternalError || ch.Err.Message != "tuner getCollInfo returned ncclInternalError" || d.DecidedBy != "G-TUNER-CALL-1" || ch.DecidedBy != "G-TUNER-CALL-1") {
				t.Errorf("%s: rules %v by %s, model %v by %s", v, d.Err, d.DecidedBy, ch.Err, ch.DecidedBy)
			}
		}
	}
}

// TestSymmetricProbeOutsideWindows: 2.29.2–2.29.3 probe the head task of
// every listed piece outside windows whose pick is an LL kernel, even
// when NCCL_SYM_NOWIN_ENABLE is unset and the piece is sure to go back.
// With NCCL_WORK_ARGS_BYTES holding one symmetric work per piece (LL
// kernels take no more), two equal AllReduces are two pieces and two
// probes of 16 KiB each, and a tuner that fails only up to 16 KiB fails
// the group; from 2.29.7 no probe is made and the aggregate's own call
// (32 KiB) passes. workArgs is the smallest multiple of 32 above the
// assert (calcArgsSize(MAXCHANNELS, 1)) that keeps one work per piece.
func TestSymmetricProbeOutsideWindows(t *testing.T) {
	const small = 4 << 10 // elements of each AllReduce: 16 KiB
	for _, c := range []struct {
		v        Version
		workArgs string
		probes   int
		err      Result
	}{
		{V2_29_2, "576", 1, InvalidUsage},
		{V2_29_3, "576", 1, InvalidUsage},
		{V2_29_7, "640", 0, Success},
		{V2_30_7, "640", 0, Success},
	} {
		tuner := &tuning.TunerBehaviour{Name: "probe", Rules: []tuning.TunerRule{{Func: "AllReduce", MinBytes: 1, MaxBytes: small * 4, Algo: "Ring", Proto: "LL", Result: "ncclInvalidUsage"}}}
		comm := probeTunerComm(t, c.v, tuner, Env{"NCCL_WORK_ARGS_BYTES": c.workArgs})
		op := GroupOp{Op: Op{Func: AllReduce, Count: small, DataType: Float32, RedOp: Sum}}
		d, err := comm.SelectGroup([]GroupOp{op, op}, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		var res Result
		if d.Err != nil {
			res = d.Err.Result
		}
		// NCCLCHECK returns the first failing probe: the other piece is
		// never probed
		probes := 0
		for i, ch := range d.Choices {
			if ch.SymProbeNBytes != 0 {
				probes++
				if ch.SymProbeNBytes != small*4 {
					t.Errorf("%s op %d: probe nBytes %d, want the head task's %d", c.v, i, ch.SymProbeNBytes, small*4)
				}
			}
		}
		if res != c.err || probes != c.probes {
			t.Errorf("%s: group error %v (want %s), %d probes (want %d)", c.v, d.Err, c.err, probes, c.probes)
		}
		if c.err == Success && d.Choices[0].NBytes != 2*small*4 {
			t.Errorf("%s: the two AllReduces are not one aggregate (nBytes %d): the tuner's own call would not differ from the probe", c.v, d.Choices[0].NBytes)
		}
	}
}

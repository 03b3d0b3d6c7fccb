package spec

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec/topo"
)

// TestDevDupPerRelease: a DGX B200 with its GPUs split into MLOPart
// partitions puts two CUDA devices on one bus id. Up to 2.29.7 init fails
// with "Duplicate GPU detected", at 2.30.3–2.30.4 with ncclCheckMultiRank's
// WARN, and from 2.30.7 (one UUID per partition) it passes; two ranks on
// one CUDA device fail at every release, 2.30.7 with the UUID WARN. The
// releases come from the rule's timeline, so a release added without its
// variant fails here.
// Ref: v2.29.7-1 src/init.cc initTransportsRank; v2.30.3-1
// src/graph/topo.cc ncclCheckMultiRank; v2.30.7-1 src/init.cc
// initTransportsRank
func TestDevDupPerRelease(t *testing.T) {
	parts, err := Preset("dgx-b200", PresetOptions{MLOPart: true})
	if err != nil {
		t.Fatal(err)
	}
	same, err := Preset("dgx-b200", PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	// ranks 10 and 11 on CUDA device 2 of node 1, at the bus id the
	// system names
	same.Nodes[1].GPUs[3].Dev = 2
	same.Nodes[1].GPUs[2].BusID, same.Nodes[1].GPUs[3].BusID = "0000:b0:00.0", "0000:b0:00.0"
	for _, v := range Releases {
		var wantParts, wantSame string
		switch {
		case v <= V2_29_7:
			wantParts = "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 90000"
			wantSame = "Duplicate GPU detected : rank 10 and rank 11 both on CUDA device b0000"
		case v <= V2_30_4:
			wantParts = devDupWarn30
			wantSame = devDupWarn30
		default:
			wantSame = devDupWarn307
		}
		for _, tc := range []struct {
			sys  *System
			want string
		}{{parts, wantParts}, {same, wantSame}} {
			comm, err := Init(MustLoad(v), tc.sys, Env{})
			if err != nil {
				t.Fatalf("%s %s: %v", v, tc.sys.Name, err)
			}
			switch {
			case tc.want == "" && comm.Err != nil:
				t.Errorf("%s %s: init fails: %v", v, tc.sys.Name, comm.Err)
			case tc.want != "" && (comm.Err == nil || comm.Err.Message != tc.want || comm.Err.Result != InvalidUsage):
				t.Errorf("%s %s: init error %v, want ncclInvalidUsage %q", v, tc.sys.Name, comm.Err, tc.want)
			}
		}
	}
}

// TestDevDupAllowed: from 2.30.3 NCCL_MULTI_RANK_GPU_ENABLE=1 lets two
// ranks share a GPU: 2.30.3–2.30.4 refuse NCCL_NVLS_ENABLE=1, and
// otherwise the communicator is built with the ranks on one DEV node
// (G-TOPO-DEV-1), NVLS off (2.30.3–2.30.4: isMultiRankGpu and its INFO
// line; 2.30.7: hasMultiRankNvml) and P2P between the two ranks. Ranks
// of one GPU listed apart are refused as not modelled.
// Ref: v2.30.3-1 src/init.cc initTransportsRank, src/graph/topo.cc
// ncclCheckMultiRank, ncclTopoAddPci; v2.30.7-1 src/init.cc
// initTransportsRank
func TestDevDupAllowed(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sys.Nodes[0].GPUs[1].Dev = 0
	allow := Env{devDupMultiRankVar: "1"}
	for _, v := range []Version{V2_30_3, V2_30_4, V2_30_7} {
		comm, err := Init(MustLoad(v), sys, allow)
		if err != nil {
			t.Fatalf("%s: %v: want the communicator built", v, err)
		}
		if comm.Err != nil {
			t.Fatalf("%s: init error %v: want the communicator built", v, comm.Err)
		}
		dup, _ := comm.Trace.Find("G-DEV-DUP-1")
		early, _ := comm.Trace.Find("G-NVLS-EARLY-1")
		// 2.30.7 keeps hasMultiRankNvml of the last pair of ranks (6, 7
		// here): NVLS stays on
		if wantOff := v <= V2_30_4; dup.Outcome != Pass || (early.Outcome == Fail) != wantOff {
			t.Errorf("%s: G-DEV-DUP-1 %s (%s), G-NVLS-EARLY-1 %s: want pass and NVLS off %v", v, dup.Outcome, dup.Why, early.Outcome, wantOff)
		}
		if allowed := strings.Contains(strings.Join(dup.Log, "\n"), devDupAllowedInfo); allowed != (v <= V2_30_4) {
			t.Errorf("%s: G-DEV-DUP-1 prints %q: want %q up to 2.30.4", v, dup.Log, devDupAllowedInfo)
		}
		if comm.Topo == nil || comm.Topo.NRanks != 8 {
			t.Fatalf("%s: topology %+v: want 8 ranks", v, comm.Topo)
		}
	}
	last, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	last.Nodes[0].GPUs[7].Dev = 6
	if comm, err := Init(MustLoad(V2_30_7), last, allow); err != nil || comm.Err != nil {
		t.Errorf("2.30.7, ranks 6 and 7 on GPU 6: %v, %v", err, comm.Err)
	} else if early, _ := comm.Trace.Find("G-NVLS-EARLY-1"); early.Outcome != Fail {
		t.Errorf("2.30.7, ranks 6 and 7 on GPU 6: G-NVLS-EARLY-1 %s (%s): want NVLS off (hasMultiRankNvml)", early.Outcome, early.Why)
	}
	comm, err := Init(MustLoad(V2_30_3), sys, Env{devDupMultiRankVar: "1", "NCCL_NVLS_ENABLE": "1"})
	if err != nil || comm.Err == nil || comm.Err.Message != devDupAllowedNVLS {
		t.Errorf("2.30.3 NCCL_NVLS_ENABLE=1: %v, %v: want %q", err, comm.Err, devDupAllowedNVLS)
	}
	// 2.29.7 reads no such variable: still the duplicate error
	comm, err = Init(MustLoad(V2_29_7), sys, allow)
	if err != nil || comm.Err == nil || !strings.HasPrefix(comm.Err.Message, "Duplicate GPU detected") {
		t.Errorf("2.29.7 with %s=1: %v, %v: want Duplicate GPU detected", devDupMultiRankVar, err, comm.Err)
	}
	apart, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	apart.Nodes[0].GPUs[2].Dev = 0
	if _, err := Init(MustLoad(V2_30_7), apart, allow); err == nil || !strings.Contains(err.Error(), "not modelled") {
		t.Errorf("ranks of GPU 0 listed apart: %v, want the not-modelled refusal", err)
	}
}

// cLiterals joins adjacent C string literals ("a" "b" across lines), so a
// WARN split over lines reads as the text it prints (with \" unescaped).
var cLiterals = regexp.MustCompile(`"\s*\n\s*"`)

// TestDevDupTextsAtTags reads every release's G-DEV-DUP-1 source file at
// its tag: each log format the rule prints is in it, and the other
// variants' WARNs are not (so each text holds for exactly its releases).
// It needs the NCCL git mirror (ncclmirror.ForTest).
func TestDevDupTextsAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	warns := []string{devDupWarn22, devDupWarn30, devDupWarn307}
	for _, v := range Releases {
		r, ok := MustLoad(v).Rule("G-DEV-DUP-1")
		if !ok {
			t.Fatalf("%s: no G-DEV-DUP-1", v)
		}
		var src string
		for _, f := range []string{"src/init.cc", "src/graph/topo.cc"} {
			out, err := exec.Command("git", "-C", repo, "show", v.Tag()+":"+f).Output()
			if err != nil {
				t.Fatalf("%s:%s: %v", v.Tag(), f, err)
			}
			if f == r.Ref.File && !strings.Contains(string(out), r.Ref.Func) {
				t.Errorf("%s: %s does not mention %s", v, f, r.Ref.Func)
			}
			src += strings.ReplaceAll(cLiterals.ReplaceAllString(string(out), ""), `\"`, `"`)
		}
		for _, l := range r.Logs {
			if !strings.Contains(src, l) {
				t.Errorf("%s: %q not in the tag's source", v, l)
			}
		}
		for _, w := range warns {
			if !strings.Contains(strings.Join(r.Logs, "\n"), w) && strings.Contains(src, w) {
				t.Errorf("%s: the source prints %q, which the release's rule does not", v, w)
			}
		}
	}
}

// TestMLOPartNoSplit: under NCCL_TOPO_SPLIT_MLOPART=0 2.30.7 builds both
// partitions of an MLOPart GPU as GPUs of one DEV node (G-TOPO-DEV-1,
// G-TOPO-MLOPART-1): the communicator comes up with 16 ranks on 8 devices,
// G-DEV-DUP-1 passes (each partition its own UUID) and NVLS is off
// (hasMultiRankNvml) as with the split, the partitions GPU–DEV–GPU at
// LOC_BW where the split has a DEV per partition, GPU–DEV–DEV–GPU at
// MLOPART_LOC_BW. A lone partition per device builds as one DEV node with
// one GPU, and 2.30.4 (which reads neither the variable nor the
// partition) fails G-DEV-DUP-1 either way.
// Ref: v2.30.7-1 src/graph/topo.cc ncclTopoAddGpuSub, ncclTopoGetGpuDevNode
func TestMLOPartNoSplit(t *testing.T) {
	parts, err := Preset("dgx-b200", PresetOptions{MLOPart: true})
	if err != nil {
		t.Fatal(err)
	}
	noSplit := Env{"NCCL_TOPO_SPLIT_MLOPART": "0"}
	for _, tc := range []struct {
		env  Env
		devs int     // DEV nodes
		hops int     // between ranks 0 and 1
		bw   float32 // between ranks 0 and 1
	}{
		{noSplit, 8, 2, 5000},
		{Env{"NCCL_TOPO_SPLIT_MLOPART": "1"}, 16, 3, 2618},
		{Env{}, 16, 3, 2618},
	} {
		c, err := Init(MustLoad(V2_30_7), parts, tc.env)
		if err != nil {
			t.Fatalf("%v: %v", tc.env, err)
		}
		if c.Err != nil {
			t.Fatalf("%v: init error %v", tc.env, c.Err)
		}
		outcome := map[RuleID]Outcome{}
		for _, vd := range c.Trace {
			if _, ok := outcome[vd.Rule]; !ok {
				outcome[vd.Rule] = vd.Outcome
			}
		}
		if outcome["G-DEV-DUP-1"] != Pass || outcome["G-NVLS-EARLY-1"] != Fail {
			t.Errorf("%v: G-DEV-DUP-1 %v, G-NVLS-EARLY-1 %v: want pass and fail (NVLS off)", tc.env, outcome["G-DEV-DUP-1"], outcome["G-NVLS-EARLY-1"])
		}
		if c.Topo == nil || c.Topo.NRanks != 16 {
			t.Fatalf("%v: topology %+v: want 16 ranks", tc.env, c.Topo)
		}
		s := c.Topo.Nodes[0].System
		a, b := s.Nodes[topo.GPU][0], s.Nodes[topo.GPU][1]
		p := a.Paths[topo.GPU][b.Index]
		if len(s.Nodes[topo.DEV]) != tc.devs || p.Type != topo.PathLOC || p.Count() != tc.hops || p.Bw != tc.bw {
			t.Errorf("%v: %d DEV nodes, ranks 0-1 %s/%d hops/%v: want %d and LOC/%d/%v", tc.env, len(s.Nodes[topo.DEV]), p.Type, p.Count(), p.Bw, tc.devs, tc.hops, tc.bw)
		}
	}
	if c, err := Init(MustLoad(V2_30_4), parts, noSplit); err != nil || c.Err == nil {
		t.Errorf("2.30.4: %v, %v: want G-DEV-DUP-1's init error", err, c.Err)
	}
	data, err := os.ReadFile("../golden/testdata/systems/mlopart-1rank.xml")
	if err != nil {
		t.Fatal(err)
	}
	one, err := SystemFromTopology("mlopart-1rank.xml", data, 2)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Init(MustLoad(V2_30_7), one, noSplit)
	if err != nil {
		t.Fatalf("2.30.7 one partition per device, split off: %v", err)
	}
	if c.Err != nil {
		t.Fatalf("2.30.7 one partition per device, split off: init error %v", c.Err)
	}
	if s := c.Topo.Nodes[0].System; len(s.Nodes[topo.DEV]) != len(s.Nodes[topo.GPU]) {
		t.Errorf("one partition per device: %d DEV nodes, want one per GPU (%d)", len(s.Nodes[topo.DEV]), len(s.Nodes[topo.GPU]))
	}
}

// TestDevInitAllPerRelease: ncclCommInitAll (procs init-all) over a
// devlist that names CUDA device 0 twice fails with ncclInvalidUsage, no
// message and G-DEV-DUP-2 deciding, at every release; from 2.30.3
// NCCL_MULTI_RANK_GPU_ENABLE=1 skips the check and G-DEV-DUP-1 then
// allows the ranks, built on one DEV node. The same ranks made
// by ncclCommInitRank (per-node) reach G-DEV-DUP-1 and its WARN.
// Ref: v2.29.7-1, v2.30.3-1 src/init.cc ncclCommInitAll
func TestDevInitAllPerRelease(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sys.Nodes[0].GPUs[3].Dev = 2
	sys.Procs = ProcsInitAll
	perNode := *sys
	perNode.Procs = ProcsPerNode
	for _, v := range Releases {
		comm, err := Init(MustLoad(v), sys, Env{})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if e := comm.Err; e == nil || e.Result != InvalidUsage || e.Message != "" || e.Call != "ncclCommInitAll" || comm.failedBy != "G-DEV-DUP-2" {
			t.Errorf("%s: init error %+v decided by %s: want ncclCommInitAll's silent ncclInvalidUsage (G-DEV-DUP-2)", v, e, comm.failedBy)
		}
		for _, vd := range comm.Trace {
			if vd.Rule == "G-DEV-DUP-2" && len(vd.Log) != 0 {
				t.Errorf("%s: G-DEV-DUP-2 prints %q: ncclCommInitAll's check prints nothing", v, vd.Log)
			}
		}
		comm, err = Init(MustLoad(v), &perNode, Env{})
		if err != nil || comm.Err == nil || comm.failedBy != "G-DEV-DUP-1" {
			t.Errorf("%s per-node: %v, %v: want G-DEV-DUP-1", v, err, comm.Err)
		}
		comm, err = Init(MustLoad(v), sys, Env{devDupMultiRankVar: "1"})
		if err != nil {
			t.Fatalf("%s with %s=1: %v", v, devDupMultiRankVar, err)
		}
		allowed := v >= V2_30_3
		if got := comm.Err == nil; got != allowed {
			t.Errorf("%s with %s=1: init error %v: want the check skipped (and the ranks built on one DEV) %v", v, devDupMultiRankVar, comm.Err, allowed)
		}
	}
	// the two MLOPart partitions of a GPU are two CUDA devices of
	// ncclCommInitAll's devlist
	parts, err := Preset("dgx-b200", PresetOptions{MLOPart: true})
	if err != nil {
		t.Fatal(err)
	}
	parts.Procs = ProcsInitAll
	for _, v := range []Version{V2_29_7, V2_30_7} {
		comm, err := Init(MustLoad(v), parts, Env{})
		if err != nil {
			t.Fatal(err)
		}
		for _, vd := range comm.Trace {
			if vd.Rule == "G-DEV-DUP-2" && vd.Outcome != Pass {
				t.Errorf("%s MLOPart: G-DEV-DUP-2 %s (%s): want pass", v, vd.Outcome, vd.Why)
			}
		}
	}
	two, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	two.Procs = ProcsInitAll
	if err := two.Validate(); err == nil || !strings.Contains(err.Error(), "init-all") {
		t.Errorf("two nodes under init-all: %v, want an error naming init-all", err)
	}
}

// initAllSystem is one H200 host whose process sees visible CUDA devices
// and calls ncclCommInitAll with devs as devlist.
func initAllSystem(t *testing.T, visible int, devs ...int) *System {
	t.Helper()
	gpus := make([]string, len(devs))
	for i, d := range devs {
		gpus[i] = fmt.Sprintf(`{"dev": %d, "sm": 90}`, d)
	}
	js := fmt.Sprintf(`{"name": "initall", "nodes": [{"ip_interfaces": ["eth0"], "cpu": {"arch": "x86_64", "vendor": "Intel", "model": "srp"}, "driver": {"cuda": 12040, "cumem": true}, "visible_devices": %d, "gpus": [%s]}]}`, visible, strings.Join(gpus, ", "))
	sys, err := ParseSystem("initall.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	sys.Procs = ProcsInitAll
	return sys
}

// TestDevInitAllInvisiblePerRelease: ncclCommInitAll's devlist naming a
// device outside the ones the process sees (visible_devices) is a silent
// ncclUnhandledCudaError up to 2.22.3 and WARN "Invalid device %d
// (totalnDev=%d)" with ncclInvalidArgument from 2.23.4; the checks run
// entry by entry, so a device named twice before the invisible one is
// ncclInvalidUsage, and NCCL_MULTI_RANK_GPU_ENABLE=1 (2.30.3+) skips the
// duplicate check alone.
// Ref: v2.22.3-1, v2.23.4-1, v2.30.3-1 src/init.cc ncclCommInitAll
func TestDevInitAllInvisiblePerRelease(t *testing.T) {
	type want struct {
		res  Result
		msg  string // ncclGetLastError, and the one WARN when not empty
		pass bool
	}
	invisible := func(v Version, dev, total int) want {
		if v >= V2_23_4 {
			return want{res: InvalidArgument, msg: fmt.Sprintf("Invalid device %d (totalnDev=%d)", dev, total)}
		}
		return want{res: UnhandledCudaError}
	}
	dup := want{res: InvalidUsage}
	for _, c := range []struct {
		name    string
		visible int
		devs    []int
		env     Env
		want    func(v Version) want
	}{
		{"device 1 of 1 visible", 1, []int{0, 1}, nil, func(v Version) want { return invisible(v, 1, 1) }},
		{"device 3 of 2 visible, after two good ones", 2, []int{0, 1, 3}, nil, func(v Version) want { return invisible(v, 3, 2) }},
		{"every device visible", 2, []int{0, 1}, nil, func(Version) want { return want{pass: true} }},
		{"default: every device the node lists is visible", 0, []int{0, 5}, nil, func(Version) want { return want{pass: true} }},
		{"device named twice before the invisible one", 1, []int{0, 0, 1}, nil, func(Version) want { return dup }},
		{"invisible device before the second naming", 1, []int{0, 1, 0}, nil, func(v Version) want { return invisible(v, 1, 1) }},
		{"duplicate check skipped, the invisible device decides", 1, []int{0, 0, 1}, Env{devDupMultiRankVar: "1"}, func(v Version) want {
			if v >= V2_30_3 {
				return invisible(v, 1, 1)
			}
			return dup
		}},
	} {
		sys := initAllSystem(t, c.visible, c.devs...)
		for _, v := range Releases {
			w := c.want(v)
			comm, err := Init(MustLoad(v), sys, c.env)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, v, err)
			}
			var log []string
			for _, vd := range comm.Trace {
				if vd.Rule == "G-DEV-DUP-2" {
					log = vd.Log
				}
			}
			if w.pass {
				if comm.Err != nil && comm.Err.Call == "ncclCommInitAll" {
					t.Errorf("%s %s: %+v: want ncclCommInitAll's checks passed", c.name, v, comm.Err)
				}
				continue
			}
			e := comm.Err
			if e == nil || e.Result != w.res || e.Message != w.msg || e.Call != "ncclCommInitAll" || comm.failedBy != "G-DEV-DUP-2" {
				t.Errorf("%s %s: init error %+v decided by %s: want %s %q from ncclCommInitAll (G-DEV-DUP-2)", c.name, v, e, comm.failedBy, w.res, w.msg)
			}
			wantLog := 0
			if w.msg != "" {
				wantLog = 1
			}
			if len(log) != wantLog || (wantLog == 1 && log[0] != w.msg) {
				t.Errorf("%s %s: G-DEV-DUP-2 prints %q: want %q", c.name, v, log, w.msg)
			}
		}
	}
}

// TestVisibleDevicesAtTheEdge: visible_devices is bounded, and refused on
// MLOPart partitions, whose CUDA device index the system does not name.
func TestVisibleDevicesAtTheEdge(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`{"nodes": [{"visible_devices": -1, "gpus": [{"dev": 0, "sm": 90}]}]}`, "visible_devices -1: expected 1-72"},
		{`{"nodes": [{"visible_devices": 73, "gpus": [{"dev": 0, "sm": 90}]}]}`, "visible_devices 73: expected 1-72"},
		{`{"nodes": [{"visible_devices": 2, "gpus": [{"dev": 0, "sm": 100, "mlopart": 0}, {"dev": 0, "sm": 100, "mlopart": 1}]}]}`, "with MLOPart partitions: not modelled"},
	} {
		if _, err := ParseSystem("v.json", []byte(c.js)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.js, err, c.want)
		}
	}
}

// ncclCommInitAllBody is ncclCommInitAll's definition in init.cc.
var ncclCommInitAllBody = regexp.MustCompile(`(?s)\nncclResult_t ncclCommInitAll\(.*?\n}\n`)

// TestDevInitAllAtTags reads ncclCommInitAll at every release's tag: the
// duplicate-device check returns ncclInvalidUsage with no WARN in its
// branch, and it reads NCCL_MULTI_RANK_GPU_ENABLE exactly where the
// release's G-DEV-DUP-2 says (the 2.30.3 variant); the invalid-device
// check comes first in the loop, with the WARN and result the release's
// variant predicts. It needs the NCCL git
// mirror (ncclmirror.ForTest).
func TestDevInitAllAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	check := regexp.MustCompile(`(?s)/\* duplicate device check\. \*/\s*if \(([^{]*)\) \{\s*ret = ncclInvalidUsage;\s*goto fail;\s*\}`)
	invalid := regexp.MustCompile(`(?s)/\* invalid device check\. \*/\s*if \(devlist\[i\] < 0 \|\| devlist\[i\] >= totalnDev\) \{\s*(WARN\("([^"]*)", devlist\[i\], totalnDev\);\s*)?ret = (\w+);\s*goto fail;`)
	// what each variant predicts for a device outside the visible ones
	wantInvalid := map[*Rule]struct {
		warn string
		res  Result
	}{
		devInitAll18: {"", UnhandledCudaError},
		devInitAll23: {devInitAllWarn23, InvalidArgument},
		devInitAll30: {devInitAllWarn23, InvalidArgument},
	}
	for _, v := range Releases {
		r, ok := MustLoad(v).Rule("G-DEV-DUP-2")
		if !ok {
			t.Fatalf("%s: no G-DEV-DUP-2", v)
		}
		out, err := exec.Command("git", "-C", repo, "show", v.Tag()+":"+r.Ref.File).Output()
		if err != nil {
			t.Fatalf("%s:%s: %v", v.Tag(), r.Ref.File, err)
		}
		body := ncclCommInitAllBody.FindString(string(out))
		m := check.FindStringSubmatch(body)
		if m == nil {
			t.Errorf("%s: no silent ncclInvalidUsage duplicate-device check in %s", v, r.Ref.Func)
			continue
		}
		if reads := strings.Contains(m[1], "ncclParamMultiRankGpuEnable()"); reads != (r == devInitAll30) {
			t.Errorf("%s: the check %q reads NCCL_MULTI_RANK_GPU_ENABLE: %v; the rule's variant says %v", v, m[1], reads, r == devInitAll30)
		}
		inv := invalid.FindStringSubmatchIndex(body)
		if inv == nil {
			t.Errorf("%s: no invalid device check in %s", v, r.Ref.Func)
			continue
		}
		if inv[0] > strings.Index(body, m[0]) {
			t.Errorf("%s: the invalid device check comes after the duplicate check; G-DEV-DUP-2 runs it first", v)
		}
		warn, res := "", body[inv[6]:inv[7]]
		if inv[4] >= 0 {
			warn = body[inv[4]:inv[5]]
		}
		w, ok := wantInvalid[r]
		if !ok {
			t.Errorf("%s: G-DEV-DUP-2 variant %s has no invalid-device expectation", v, r.Ref.Tag)
			continue
		}
		if res != w.res.String() || warn != w.warn {
			t.Errorf("%s: invalid device: WARN %q and %s at the tag; the rule's variant (%s) says %q and %s", v, warn, res, r.Ref.Tag, w.warn, w.res)
		}
	}
}

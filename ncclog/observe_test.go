package ncclog

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

func observe(t *testing.T, text string, extra spec.Env) *Observation {
	t.Helper()
	return ObserveWith(mustParse(t, text), extra)
}

// TestLadderNVLS walks NVLS up the ladder one kind of line at a time.
func TestLadderNVLS(t *testing.T) {
	avail := "h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)\n"
	chans := "h:1:1 [0] NCCL INFO 32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer\n"
	zero := "h:1:1 [0] NCCL INFO 32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n"
	op := "h:1:1 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}\n"
	buf := "h:1:1 [0] NCCL INFO NVLS comm 0x55 headRank 0 nHeads 8 nvlsRanks 8 buffSize 1048576 nvlsPerRankSize 201326592 nvlsTotalSize 1610612736\n"
	tests := []struct {
		name  string
		log   string
		want  spec.Level
		block spec.RuleID
	}{
		{"available only", avail, spec.LevelUsable, ""},
		{"available, zero channels", avail + zero, spec.LevelUsable, "G-NVLS-CONS-1"},
		{"channels", avail + chans, spec.LevelCandidate, ""},
		{"selected", avail + chans + op, spec.LevelSelected, ""},
		{"executed", avail + chans + op + buf, spec.LevelExecuted, ""},
		{"not available", "h:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0\n", spec.LevelNone, "G-NVLS-CAP-1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := observe(t, tc.log, nil)
			c := o.Cap(spec.CapNVLS)
			if c.Level != tc.want || o.Evidence[spec.CapNVLS] != tc.want {
				t.Fatalf("level %v (evidence %v), want %v; proofs %+v", c.Level, o.Evidence[spec.CapNVLS], tc.want, c.Proofs)
			}
			if tc.block != "" && (len(c.Blocks) == 0 || c.Blocks[0].Rule != tc.block) {
				t.Errorf("blocks %+v, want %s", c.Blocks, tc.block)
			}
			if v, ok := o.Trace.Find("G-NVLS-CAP-1"); ok && v.Ref.File != "src/transport/nvls.cc" {
				t.Errorf("verdict ref %v", v.Ref)
			}
		})
	}
}

func TestLadderCollNetAndIB(t *testing.T) {
	base := `h:1:1 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.
h:1:1 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.
h:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v6 (v6)
h:1:1 [0] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.
h:1:1 [0] NCCL INFO NET/Plugin: Loaded collnet plugin SHARP (v6)
h:1:1 [0] NCCL INFO P2P plugin IBext
h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP [RO]; OOB ib0:10.0.0.1<0>
h:1:1 [0] NCCL INFO Using network IBext
`
	o := observe(t, base+"h:1:1 [0] NCCL INFO Communicator has 1 nodes which is less than CollNet node threshold 2, disabling CollNet\n", nil)
	c := o.Cap(spec.CapCollNet)
	if c.Level != spec.LevelUsable || len(c.Blocks) == 0 || c.Blocks[0].Rule != "G-COLLNET-THRESH-1" {
		t.Errorf("threshold: level %v blocks %+v", c.Level, c.Blocks)
	}
	if np := o.Cap(spec.CapNetPlugin); np.Level != spec.LevelCandidate {
		t.Errorf("net plugin level %v, want candidate (Using network IBext)", np.Level)
	}
	if ib := o.Cap(spec.CapIB); ib.Level != spec.LevelCandidate {
		t.Errorf("IB through the plugin: level %v", ib.Level)
	}
	o = observe(t, base+"h:1:1 [0] NCCL INFO CollNet 00/0 : 0 [send] via COLLNET/SHARP/0/GDRDMA\n"+
		"h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo COLLNET_DIRECT proto SIMPLE channel{Lo..Hi}={0..1}\n", nil)
	if c := o.Cap(spec.CapCollNet); c.Level != spec.LevelExecuted {
		t.Errorf("collnet with connectors and a selecting op: %v", c.Level)
	}
	if g := o.Cap(spec.CapGDR); g.Level != spec.LevelExecuted {
		t.Errorf("GDRDMA connector: gdr %v", g.Level)
	}
	if len(o.Decisions) != 1 || o.Decisions[0].Algo != spec.CollNetDirect || o.Decisions[0].NChannels != 2 || o.Decisions[0].DecidedBy != "G-SEL-PICK-1" {
		t.Errorf("decisions %+v", o.Decisions)
	}
}

func TestObserveEnvOffAndContradiction(t *testing.T) {
	log := `h:1:1 [0] NCCL INFO P2P plugin IBext_v8
h:1:1 [0] NCCL INFO Using network IBext_v8
h:1:1 [0] NCCL INFO Channel 00/0 : 1[0] -> 2[0] [receive] via NET/IBext_v8/1
`
	o := observe(t, log, spec.Env{"NCCL_IB_DISABLE": "1"})
	ib := o.Cap(spec.CapIB)
	if ib.Off == nil || ib.Level != spec.LevelExecuted || ib.Off.Msg != "NCCL_IB_DISABLE=1 (given, not in the log)" {
		t.Errorf("IB off %+v level %v", ib.Off, ib.Level)
	}
	if v, ok := o.Trace.Find("G-NET-IB-1"); !ok || v.Outcome != spec.Fail {
		t.Errorf("off verdict %+v %v", v, ok)
	}
}

func TestObserveFallbackR22(t *testing.T) {
	log := `NCCL version 2.21.5+cuda12.4
h:1:1 [1] NCCL INFO NCCL_ALGO set by environment to Tree
h:1:1 [1] NCCL INFO Broadcast: opCount a sendbuff 0x1 recvbuff 0x1 count 24 datatype 0 op 0 root 0 comm 0x5 [nranks=1024] stream 0x6
h:1:1 [1] 15269.938482 topoGetAlgoInfo:1535 NCCL TRACE 24 Bytes -> Algo 1 proto 0 time 2771.401367
`
	o := observe(t, log, nil)
	if len(o.Decisions) != 1 {
		t.Fatalf("decisions %+v", o.Decisions)
	}
	d := o.Decisions[0]
	if d.Op.Func != spec.Broadcast || d.Algo != spec.Ring || !d.Fallback || d.DecidedBy != "G-SEL-BACKUP-1" || d.Op.Bytes() != 24 {
		t.Errorf("decision %+v", d)
	}
	if v, ok := o.Trace.Find("G-SEL-BACKUP-1"); !ok || v.Scope != "op" || !strings.Contains(v.Why, "silent Ring backup") {
		t.Errorf("backup verdict %+v", v)
	}
}

// TestObserveFallbackR18: before 2.19.1 there is no Ring backup: a Ring
// that ran for Broadcast under NCCL_ALGO=Tree is the Ring NCCL_ALGO never
// disables for a function other than AllReduce (G-TUNE-EN-1), and a
// function left with nothing fails by G-SEL-ERR-1.
func TestObserveFallbackR18(t *testing.T) {
	log := `NCCL version 2.18.1+cuda12.1
h:1:1 [1] NCCL INFO NCCL_ALGO set by environment to Tree
h:1:1 [1] NCCL INFO Broadcast: opCount a sendbuff 0x1 recvbuff 0x1 count 24 datatype 0 op 0 root 0 comm 0x5 [nranks=8] stream 0x6
h:1:1 [1] 15269.938482 getAlgoInfo:1190 NCCL TRACE 24 Bytes -> Algo 1 proto 0 time 12.5
`
	o := observe(t, log, nil)
	if len(o.Decisions) != 1 {
		t.Fatalf("decisions %+v", o.Decisions)
	}
	d := o.Decisions[0]
	if d.Op.Func != spec.Broadcast || d.Algo != spec.Ring || !d.Fallback || d.DecidedBy != "G-TUNE-EN-1" {
		t.Errorf("decision %+v", d)
	}
	if v, ok := o.Trace.Find("G-TUNE-EN-1"); !ok || v.Scope != "op" || !strings.Contains(v.Why, "never disables Ring") {
		t.Errorf("fallback verdict %+v", v)
	}
	if _, ok := o.Trace.Find("G-SEL-BACKUP-1"); ok {
		t.Error("a G-SEL-BACKUP-1 verdict at 2.18.1, which has no Ring backup")
	}
}

func TestReadAlgoEnv(t *testing.T) {
	r22, err := ReadAlgoEnv("^Ring,Tree", spec.MakeVersion(2, 22, 3))
	if err != nil || r22.Rule != "G-SEL-PARSE-1" || r22.Enabled[spec.AllReduce][spec.Ring] || !r22.Enabled[spec.AllReduce][spec.NVLS] || r22.Named[spec.Ring] {
		t.Errorf("legacy negation: %+v %v", r22, err)
	}
	r28, err := ReadAlgoEnv("allreduce:tree;allgather:ring", spec.MakeVersion(2, 28, 9))
	if err != nil || !r28.Enabled[spec.Broadcast][spec.NVLS] || r28.Enabled[spec.AllReduce][spec.Ring] || !r28.Enabled[spec.AllGather][spec.Ring] || !r28.Named[spec.Tree] {
		t.Errorf("per-function: %+v %v", r28, err)
	}
	for _, bad := range []string{"Ring, Tree", "tree;allgather:ring;ring", "allreduc:ring"} {
		if _, err := ReadAlgoEnv(bad, spec.MakeVersion(2, 28, 9)); err == nil {
			t.Errorf("%q accepted by the 2.24+ grammar", bad)
		}
	}
	if r, err := ReadAlgoEnv("PAT", spec.MakeVersion(2, 22, 3)); err != nil || r.Enabled[spec.AllReduce][spec.Ring] {
		t.Errorf("legacy unknown token disables everything: %+v %v", r, err)
	}
}

// linePool is real lines of every kind the ladder reads.
var linePool = []string{
	"h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0",
	"h:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 1",
	"h:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer",
	"h:1:1 [0] NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer",
	"h:1:1 [0] NCCL INFO Pattern 5, crossNic 0, nChannels 16, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1",
	"h:1:1 [0] NCCL INFO NVLS comm 0x55 headRank 0 nHeads 8 nvlsRanks 8 buffSize 1048576 nvlsPerRankSize 2 nvlsTotalSize 16",
	"h:1:1 [0] NCCL INFO Connected NVLS tree",
	"h:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v6 (v6)",
	"h:1:1 [0] NCCL INFO NET/Plugin: Loaded collnet plugin SHARP (v6)",
	"h:1:1 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
	"h:1:1 [0] NCCL INFO P2P plugin IBext",
	"h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP [RO]; OOB ib0:10.0.0.1<0>",
	"h:1:1 [0] NCCL INFO NET/IB : No device found.",
	"h:1:1 [0] NCCL INFO Using network IB",
	"h:1:1 [0] NCCL INFO Using network IBext",
	"h:1:1 [0] NCCL INFO Using network Socket",
	"h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA",
	"h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
	"h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct",
	"h:1:1 [0] NCCL INFO CollNet 00/0 : 0 [send] via COLLNET/SHARP/0/GDRDMA",
	"h:1:1 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.",
	"h:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.",
	"h:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
	"h:1:1 [0] NCCL INFO Communicator has 1 nodes which is less than CollNet node threshold 2, disabling CollNet",
	"h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
	"h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'",
	"h:1:1 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the operation cannot be performed in the present state'",
	"h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0",
	"h:1:1 [0] NCCL INFO Init START",
}

var opPool = []string{
	"h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}",
	"h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo COLLNET_DIRECT proto SIMPLE channel{Lo..Hi}={0..1}",
	"h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo NVLS_TREE proto SIMPLE channel{Lo..Hi}={0..1}",
	"h:1:1 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo PAT proto SIMPLE channel{Lo..Hi}={0..1}",
}

// TestNeverPromoted is the ladder's central property: without a
// per-operation line no algorithm capability reaches selected or executed,
// however many "available", channel and connector lines the log has.
func TestNeverPromoted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lines := rapid.SliceOf(rapid.SampledFrom(linePool)).Draw(t, "lines")
		l, err := Parse(strings.NewReader(strings.Join(lines, "\n")+"\n"), "p.log")
		if err != nil {
			if len(lines) == 0 {
				return
			}
			t.Fatalf("parse: %v", err)
		}
		o := Observe(l)
		for _, cp := range []spec.Capability{spec.CapCollNet, spec.CapNVLS, spec.CapNVLSTree, spec.CapPAT} {
			if o.Evidence[cp] >= spec.LevelSelected {
				t.Fatalf("%s reached %v with no operation line: %+v", cp, o.Evidence[cp], o.Cap(cp).Proofs)
			}
		}
	})
}

// TestMoreLinesNeverLower: adding lines to a log never lowers a level
// (levels are the maximum of what lines prove; blocks never subtract).
func TestMoreLinesNeverLower(t *testing.T) {
	pool := append(append([]string{}, linePool...), opPool...)
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.SampledFrom(pool), 1, 20).Draw(t, "a")
		b := rapid.SliceOf(rapid.SampledFrom(pool)).Draw(t, "b")
		la, err1 := Parse(strings.NewReader(strings.Join(a, "\n")+"\n"), "a.log")
		lab, err2 := Parse(strings.NewReader(strings.Join(append(append([]string{}, a...), b...), "\n")+"\n"), "ab.log")
		if err1 != nil || err2 != nil {
			t.Fatalf("parse: %v %v", err1, err2)
		}
		oa, oab := Observe(la), Observe(lab)
		for _, o := range []*Observation{oa, oab} {
			if len(o.DecisionsAt) != len(o.Decisions) {
				t.Fatalf("%d decisions, %d locations", len(o.Decisions), len(o.DecisionsAt))
			}
			for i, at := range o.DecisionsAt {
				if at.File == "" || at.Line < 1 {
					t.Fatalf("decision %d (%+v) has no location", i, o.Decisions[i].Op)
				}
			}
		}
		for _, cp := range spec.Capabilities {
			if oab.Evidence[cp] < oa.Evidence[cp] {
				t.Fatalf("%s: %v with more lines, %v before", cp, oab.Evidence[cp], oa.Evidence[cp])
			}
		}
	})
}

// TestObserveNICFusion: the lines NIC fusion prints are evidence of it
// (G-TOPO-VNIC-1): the IB's "Made virtual device" names the ports it
// fused, "TOPO/NET : Made vNic" (GRAPH) gives the device numbers of each
// plugin pass, printed once per pass and deduplicated.
func TestObserveNICFusion(t *testing.T) {
	using := "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:2/IB [RO]; OOB ib0:10.0.0.1<0>\n"
	vdev := "h:1:1 [0] NCCL INFO NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2\n"
	vdev2307 := "h:1:1 [0] NCCL INFO NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2 rail=-1 plane=-2147483645\n"
	made := "h:1:1 [0] NCCL INFO TOPO/NET : Made vNic 2\n"
	for _, tc := range []struct {
		name, log string
		vdevs     []string
		vnics     []int
		why       string
	}{
		{"IB and GRAPH lines", using + vdev + made + made, []string{"[2] mlx5_0+mlx5_1 ndevs=2"}, []int{2}, "fused NIC ports into 1 virtual device(s): [2] mlx5_0+mlx5_1 ndevs=2"},
		{"2.30.7's rail and plane", using + vdev2307 + made, []string{"[2] mlx5_0+mlx5_1 ndevs=2"}, []int{2}, "[2] mlx5_0+mlx5_1"},
		{"GRAPH line alone", using + made, nil, []int{2}, "made 1 virtual NIC(s) (device 2)"},
		{"no fusion", using, nil, nil, ""},
		{"a port's own virtual device is no fusion", "h:1:1 [0] NCCL INFO NET/IB : Made virtual device [0] name=mlx5_0 speed=100000 ndevs=1\n" + using, nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := mustParse(t, tc.log)
			if !slices.Equal(l.IB.VirtualDevices, tc.vdevs) || !slices.Equal(l.IB.VNicsMade, tc.vnics) {
				t.Fatalf("virtual devices %q, vNics %v; want %q, %v", l.IB.VirtualDevices, l.IB.VNicsMade, tc.vdevs, tc.vnics)
			}
			c := ObserveWith(l, nil).Cap(spec.CapIB)
			var got string
			for _, p := range c.Proofs {
				if p.Rule == "G-TOPO-VNIC-1" {
					got = p.Why
				}
			}
			if (tc.why == "") != (got == "") || !strings.Contains(got, tc.why) {
				t.Errorf("G-TOPO-VNIC-1 proof %q, want one containing %q", got, tc.why)
			}
		})
	}
}

// TestObserveGinRmaAnyFail: NCCL's lines for no GIN or RMA plugin
// initialising, at each release that prints them, are G-GIN-1 and
// G-RMA-1 verdicts of the observed trace.
func TestObserveGinRmaAnyFail(t *testing.T) {
	for _, c := range []struct {
		version, line string
		rule          spec.RuleID
	}{
		{"2.29.7", "Failed to initialize any GIN plugin", "G-GIN-1"},
		{"2.30.3", "Failed to initialize any GIN plugin", "G-GIN-1"},
		{"2.30.7", "GIN/Plugin: Failed to initialize any GIN plugin", "G-GIN-1"},
		{"2.30.7", "RMA/Plugin: Failed to initialize any plugin", "G-RMA-1"},
	} {
		t.Run(c.version+"/"+c.line, func(t *testing.T) {
			log := "h:1:1 [0] NCCL INFO NCCL version " + c.version + "+cuda13.0\nh:1:1 [0] NCCL INFO " + c.line + "\n"
			o := observe(t, log, nil)
			i := slices.IndexFunc(o.Trace, func(v spec.Verdict) bool { return v.Rule == c.rule })
			if i < 0 {
				t.Fatalf("no %s verdict in the observed trace", c.rule)
			}
			if v := o.Trace[i]; v.Outcome != spec.Info || !slices.Equal(v.Log, []string{c.line}) || !strings.Contains(v.Why, "the communicator has no") {
				t.Errorf("%s %s %q %v, want Info naming the line", v.Rule, v.Outcome, v.Why, v.Log)
			}
		})
	}
}

// TestObserveGinRmaAssigned: the line NCCL prints when it assigns a GIN
// or RMA plugin to the communicator (2.28.7+) is a passing G-GIN-1 or
// G-RMA-1 at candidate, the level spec predicts for it.
func TestObserveGinRmaAssigned(t *testing.T) {
	for _, c := range []struct {
		version, line string
		rule          spec.RuleID
	}{
		{"2.28.9", "Assigned GIN plugin GIN_IB_GDAKI to comm", "G-GIN-1"},
		{"2.29.7", "Assigned GIN plugin GIN_IB_GDAKI to comm", "G-GIN-1"},
		{"2.30.3", "Assigned RMA plugin GIN_IB_PROXY to comm", "G-RMA-1"},
		{"2.30.7", "GIN/Plugin: Assigned plugin G13 type 3 to comm", "G-GIN-1"},
		{"2.30.7", "RMA/Plugin: Assigned plugin RMA_IB_PROXY to comm", "G-RMA-1"},
	} {
		t.Run(c.version+"/"+c.line, func(t *testing.T) {
			log := "h:1:1 [0] NCCL INFO NCCL version " + c.version + "+cuda13.0\nh:1:1 [0] NCCL INFO " + c.line + "\n"
			o := observe(t, log, nil)
			v, ok := o.Trace.Find(c.rule)
			if !ok {
				t.Fatalf("no %s verdict in the observed trace", c.rule)
			}
			if v.Outcome != spec.Pass || v.Level != spec.LevelCandidate || !slices.Equal(v.Log, []string{c.line}) || v.Layer != spec.LayerLibrary {
				t.Errorf("%s %s %s %s %v, want a library-layer pass at candidate naming the line", v.Rule, v.Outcome, v.Level, v.Layer, v.Log)
			}
		})
	}
}

// TestObserveCollNetFailTrace (G-COLLNET-SETUP-1): the error returns a
// refused CollNet group prints at the log's release join the observed
// failure, in print order, with the WARN's location; at another
// release's lines, or without a release, the WARN stands alone.
func TestObserveCollNetFailTrace(t *testing.T) {
	const warn = "Cannot initialize CollNet, using point-to-point network instead"
	for _, c := range []struct {
		name, version, connect, warnAt, check string
		want                                  []string
		wantAt                                string
	}{
		{"2.28.9", "2.28.9", "transport.cc:371 -> 2", "transport.cc:399", "transport/coll_net.cc:1590 -> 2",
			[]string{"transport.cc:371 -> 2", warn, "transport/coll_net.cc:1590 -> 2"}, "transport.cc:399"},
		{"2.30.7 names the functions", "2.30.7", "transport.cc:431 (ncclTransportCollNetSetup) -> 2", "transport.cc:464 (ncclTransportCollNetCheck)",
			"transport/coll_net.cc:1811 (ncclCollNetSetup) -> 2",
			[]string{"transport.cc:431 (ncclTransportCollNetSetup) -> 2", warn, "transport/coll_net.cc:1811 (ncclCollNetSetup) -> 2"},
			"transport.cc:464 (ncclTransportCollNetCheck)"},
		{"2.18.1 checks in init.cc", "2.18.1", "transport.cc:273 -> 2", "transport.cc:305", "init.cc:633 -> 2",
			[]string{"transport.cc:273 -> 2", warn, "init.cc:633 -> 2"}, "transport.cc:305"},
		{"2.28.3's lines in a 2.28.9 log are not the failure's", "2.28.9", "transport.cc:357 -> 2", "transport.cc:385", "transport/coll_net.cc:1590 -> 2",
			[]string{warn, "transport/coll_net.cc:1590 -> 2"}, "transport.cc:385"},
		{"no release", "", "transport.cc:371 -> 2", "transport.cc:399", "transport/coll_net.cc:1590 -> 2", []string{warn}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := ""
			if c.version != "" {
				log = "h:1:1 [0] NCCL INFO NCCL version " + c.version + "+cuda13.0\n"
			}
			log += "h:1:1 [0] NCCL INFO " + c.connect + "\nh:1:1 [0] " + c.warnAt + " NCCL WARN " + warn + "\nh:1:1 [0] NCCL INFO " + c.check + "\n"
			o := observe(t, log, nil)
			v, ok := o.Trace.Find("G-COLLNET-SETUP-1")
			if !ok || v.Outcome != spec.Fail {
				t.Fatalf("G-COLLNET-SETUP-1 %+v %v, want a failure", v, ok)
			}
			if !slices.Equal(v.Log, c.want) {
				t.Errorf("lines %q\nwant  %q", v.Log, c.want)
			}
			at := ""
			for _, f := range v.Facts {
				if f.Name == "warn_at" {
					at = f.Value
				}
			}
			if at != c.wantAt {
				t.Errorf("warn_at %q, want %q", at, c.wantAt)
			}
		})
	}
}

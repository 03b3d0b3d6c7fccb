package diagnose

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// predictLog parses a synthetic log and predicts it on sys.
func predictLog(t *testing.T, log string, sys *spec.System) (*ncclog.Log, *Prediction) {
	t.Helper()
	l, err := ncclog.Parse(strings.NewReader(log), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Predict(l, 0, sys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return l, p
}

// diagnoseRule parses a synthetic log, predicts it on sys and returns the
// predicted and observed verdicts of rule and its gate row.
func diagnoseRule(t *testing.T, log string, sys *spec.System, rule spec.RuleID) (pred, obs spec.Verdict, row GateRow) {
	t.Helper()
	l, p := predictLog(t, log, sys)
	o := ncclog.Observe(l)
	var ok bool
	if pred, ok = p.Trace.Find(rule); !ok {
		t.Fatalf("no predicted %s", rule)
	}
	if obs, ok = o.Trace.Find(rule); !ok {
		t.Fatalf("no observed %s", rule)
	}
	c := Compare(p, o)
	i := slices.IndexFunc(c.Gates, func(g GateRow) bool { return g.Rule == rule })
	if i < 0 {
		t.Fatalf("no gate row for %s", rule)
	}
	return pred, obs, c.Gates[i]
}

// TestDiagnoseConfigLines (G-ENV-CONFIG-1): a 2.28.9 log whose job set
// maxCTAs and netName in its config, NCCL_MIN_CTAS resetting minCTAs's
// default and NCCL_NET the netName. diagnose reads the config from the
// "set to" lines and the variables from the "reset" lines, predicts the
// same lines, and the gate agrees.
func TestDiagnoseConfigLines(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"Comm config Max CTAs set to 16",
		"Comm config Net name set to Socket",
		"Comm config minCTAs reset to NCCL_MIN_CTAS=2",
		"Comm config netName reset to NCCL_NET=IB",
	}
	log := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	for _, ln := range lines {
		log += "h:1:1 [0] NCCL INFO " + ln + "\nh:1:1 [1] NCCL INFO " + ln + "\n"
	}
	pred, obs, row := diagnoseRule(t, log, sys, "G-ENV-CONFIG-1")
	if !slices.Equal(pred.Log, lines) {
		t.Errorf("predicted lines %q\nwant %q", pred.Log, lines)
	}
	if !slices.Equal(obs.Log, lines) || obs.Outcome != spec.Pass {
		t.Errorf("observed %s %q, want pass with %q", obs.Outcome, obs.Log, lines)
	}
	if row.Agreement != Agree {
		t.Errorf("gate row %+v, want agree", row)
	}
	l, _ := ncclog.Parse(strings.NewReader(log), "t.log")
	if e, ok := l.EnvValue("NCCL_MIN_CTAS"); !ok || e.Value != "2" || e.How != "config" {
		t.Errorf("NCCL_MIN_CTAS from the reset line: %+v %v", e, ok)
	}
	l, _ = ncclog.Parse(strings.NewReader("h:1:1 [0] NCCL INFO Comm config maxP2pPeers reset to NCCL_MAX_P2P_PEERS=64\n"), "t.log")
	if e, ok := l.EnvValue("NCCL_P2P_MAX_PEERS"); !ok || e.Value != "64" {
		t.Errorf("the reset line names NCCL_MAX_P2P_PEERS; NCCL reads NCCL_P2P_MAX_PEERS: %+v %v", l.Env, ok)
	}
}

// predictedLines are every Log and Debug line of a prediction's trace.
func predictedLines(tr spec.Trace) []string {
	var out []string
	for _, v := range tr {
		out = append(out, v.Log...)
		out = append(out, v.Debug...)
	}
	return out
}

// TestDiagnoseIBVirtualDevice (G-TOPO-VNIC-1): a 2.28.9 log of a host
// whose dual-port NIC the IB fused. diagnose reads the fused device (not
// the per-port devices every IB log prints) as the fusion proof, and the
// prediction on that machine prints the same lines.
func TestDiagnoseIBVirtualDevice(t *testing.T) {
	sys := &spec.System{Name: "dual-port"}
	nd := spec.Node{CPU: spec.CPU{Arch: "x86_64", Vendor: "Intel", Model: "skl", Sockets: 1},
		GPUs:         []spec.GPU{{Name: "A100", Dev: 0, SM: 80}, {Name: "A100", Dev: 1, SM: 80}},
		IPInterfaces: []string{"eth0"}, Driver: spec.Driver{Verbs: true, CuMem: true, CUDA: 12080}}
	for i, b := range []string{"0000:16:00.0", "0000:16:00.1"} {
		nd.NICs = append(nd.NICs, spec.NIC{Name: "mlx5_" + string(rune('0'+i)), Port: 1, LinkLayer: "RoCE", SpeedMbps: 100000, Active: true, GDR: true, BusID: b})
	}
	for _, h := range []string{"node0", "node1"} {
		n := nd
		n.Host = h
		sys.Nodes = append(sys.Nodes, n)
	}
	lines := []string{
		"NET/IB : Made virtual device [0] name=mlx5_0 speed=100000 ndevs=1",
		"NET/IB : Made virtual device [1] name=mlx5_1 speed=100000 ndevs=1",
		"NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2",
		"TOPO/NET : Made vNic 2",
	}
	log := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	for _, ln := range lines {
		log += "h:1:1 [0] NCCL INFO " + ln + "\n"
	}
	l, p := predictLog(t, log, sys)
	if !slices.Equal(l.IB.VirtualDevices, []string{"[2] mlx5_0+mlx5_1 ndevs=2"}) {
		t.Errorf("fused devices read %q", l.IB.VirtualDevices)
	}
	o := ncclog.Observe(l)
	if v, ok := o.Trace.Find("G-TOPO-VNIC-1"); !ok || v.Outcome != spec.Pass {
		t.Errorf("observed G-TOPO-VNIC-1 %+v %v, want a pass", v, ok)
	}
	got := predictedLines(p.Trace)
	for _, ln := range lines {
		if !slices.Contains(got, ln) {
			t.Errorf("the prediction lacks %q", ln)
		}
	}
}

// TestDiagnoseGinAssigned (G-GIN-1, G-RMA-1): a 2.30.7 log whose GIN
// plugin library (v13) NCCL assigned to the communicator, and its RMA
// plugin library (v14) too. Predicted on the machine with those
// libraries, both gates pass at candidate with the same lines, and the
// rows agree.
func TestDiagnoseGinAssigned(t *testing.T) {
	sys, err := spec.Preset("v100x4", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	libs := []spec.Library{
		{Path: "/opt/g/libnccl-gin.so", InLoaderPath: true, GinSymbols: []int{13}, GinName: "G13"},
		{Path: "/opt/r/libnccl-rma.so", InLoaderPath: true, RmaSymbols: []int{14}, RmaName: "R14"},
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = libs
	}
	lines := map[spec.RuleID]string{
		"G-GIN-1": "GIN/Plugin: Assigned plugin G13 type 3 to comm",
		"G-RMA-1": "RMA/Plugin: Assigned plugin R14 to comm",
	}
	log := "h:1:1 [0] NCCL INFO NCCL version 2.30.7+cuda13.0\nh:1:1 [0] NCCL INFO " + lines["G-RMA-1"] + "\nh:1:1 [0] NCCL INFO " + lines["G-GIN-1"] + "\n"
	for _, rule := range []spec.RuleID{"G-GIN-1", "G-RMA-1"} {
		pred, obs, row := diagnoseRule(t, log, sys, rule)
		if pred.Outcome != spec.Pass || pred.Level != spec.LevelCandidate || !slices.Contains(pred.Log, lines[rule]) {
			t.Errorf("predicted %s %s %s %q, want a pass at candidate printing %q", rule, pred.Outcome, pred.Level, pred.Log, lines[rule])
		}
		if obs.Level != pred.Level || row.Agreement != Agree {
			t.Errorf("%s observed at %s, row %+v; want the predicted level and agree", rule, obs.Level, row)
		}
	}
}

// TestDiagnoseCollNetRefused (G-COLLNET-SETUP-1): a 2.28.9 log of two
// DGX H100 nodes whose SHARP plugin refused the CollNet group: NCCL
// WARNs and falls back to the point-to-point network. Predicted with a
// CollNet connect error, the gate fails with the same line and the rows
// agree; the prediction says CollNet is off for the communicator.
func TestDiagnoseCollNetRefused(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 2, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		for j := range sys.Nodes[i].Libs {
			if cn := sys.Nodes[i].Libs[j].CollNet; cn != nil {
				c := *cn
				c.ConnectError = "sharp_coll_comm_init failed"
				sys.Nodes[i].Libs[j].CollNet = &c
			}
		}
	}
	const warn = "Cannot initialize CollNet, using point-to-point network instead"
	// The head's connect trace, local rank 0's WARN (transport.cc:399,
	// ncclTransportCollNetCheck) and every rank's check trace, as 2.28.9
	// prints them (spec.Consts.CollNetFail).
	lines := []string{"transport.cc:371 -> 2", warn, "transport/coll_net.cc:1590 -> 2"}
	log := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.\n" +
		"h:1:1 [0] NCCL INFO " + lines[0] + "\n" +
		"h:1:1 [0] transport.cc:399 NCCL WARN " + warn + "\nh:1:1 [0] NCCL INFO " + lines[2] + "\nh:1:1 [1] NCCL INFO " + lines[2] + "\n"
	pred, obs, row := diagnoseRule(t, log, sys, "G-COLLNET-SETUP-1")
	if pred.Outcome != spec.Fail || !slices.Equal(pred.Log, lines) {
		t.Errorf("predicted %s %q, want a failure printing %q", pred.Outcome, pred.Log, lines)
	}
	if obs.Outcome != spec.Fail || row.Agreement != Agree || !slices.Equal(obs.Log, lines) {
		t.Errorf("observed %s %q, row %+v; want fail with %q and agree", obs.Outcome, obs.Log, row, lines)
	}
	if !slices.ContainsFunc(obs.Facts, func(f spec.Fact) bool { return f.Name == "warn_at" && f.Value == "transport.cc:399" }) {
		t.Errorf("observed facts %v lack the WARN's location transport.cc:399", obs.Facts)
	}
	if !strings.Contains(pred.Why, "CollNet disabled") {
		t.Errorf("predicted why %q does not say CollNet is disabled", pred.Why)
	}
}

// TestDiagnoseConfigCheckLines (G-ENV-CONFIG-1): envConfigOverride's
// other lines in a 2.28.9 log: NCCL_MAX_CTAS=100 resets maxCTAs and is
// capped at MAXCHANNELS, NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE=2 is not
// taken, NCCL_MIN_CTAS=0 is too low. diagnose reads the variables back
// from the lines, predicts the same lines in the same order, and the
// observed gate carries them.
func TestDiagnoseConfigCheckLines(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"NCCL_MIN_CTAS 0 is too low, leaving it set at 1",
		"Comm config maxCTAs reset to NCCL_MAX_CTAS=100",
		"NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE 2 is not valid, leaving it set at 0",
		"maxCTAs 100 is larger than #channels upper limit 64, cap it to 64",
	}
	log := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	for _, ln := range lines {
		log += "h:1:1 [0] NCCL INFO " + ln + "\n"
	}
	pred, obs, row := diagnoseRule(t, log, sys, "G-ENV-CONFIG-1")
	if !slices.Equal(pred.Log, lines) {
		t.Errorf("predicted lines %q\nwant %q", pred.Log, lines)
	}
	if !slices.Equal(obs.Log, lines) || !strings.Contains(obs.Why, "refused or corrected NCCL_MIN_CTAS=0, NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE=2, maxCTAs=100") {
		t.Errorf("observed %q %q", obs.Log, obs.Why)
	}
	if row.Agreement != Agree {
		t.Errorf("gate row %+v, want agree", row)
	}
}

// TestDiagnoseCTAPolicyLines (G-ENV-CONFIG-1): the lines NCCL prints
// about NCCL_CTA_POLICY and NCCL_CHECK_MODE, each release's own. The log
// reader records them under G-ENV-CONFIG-1, diagnose replays the variable
// and predicts the same lines.
func TestDiagnoseCTAPolicyLines(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version string
		env     []string // lines ncclLoadParam and getEnvCtaPolicyOnce print first
		lines   []string // G-ENV-CONFIG-1's
	}{
		{"2.27.7", []string{"NCCL_CTA_POLICY set by environment to 2."},
			[]string{"CTAPolicy 2 is not a valid value, set it to 0"}},
		{"2.28.9", []string{"NCCL_CTA_POLICY set by environment to 3."},
			[]string{"Comm config CTAPolicy reset to NCCL_CTA_POLICY=3", "CTAPolicy 3 is not a valid value, set it to 0"}},
		{"2.30.7", nil,
			[]string{"Unknown CTA policy fast passed as environment variable. Ignoring.",
				"Parsed environment variable NCCL_CTA_POLICY=zero|efficiency|fast to 3",
				"Comm config CTAPolicy reset to NCCL_CTA_POLICY=3",
				"Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (3). Unsetting POLICY_EFFICIENCY.",
				"NCCL_CHECK_MODE set by environment to DEBUG_GLOBAL"}},
	} {
		log := "h:1:1 [0] NCCL INFO NCCL version " + tc.version + "+cuda12.9\n"
		for _, ln := range append(append([]string{}, tc.env...), tc.lines...) {
			level := "INFO"
			if strings.HasPrefix(ln, "Both ") {
				level = "WARN"
			}
			log += "h:1:1 [0] NCCL " + level + " " + ln + "\n"
		}
		pred, obs, _ := diagnoseRule(t, log, sys, "G-ENV-CONFIG-1")
		if !slices.Equal(pred.Log, tc.lines) {
			t.Errorf("%s: predicted lines %q\nwant %q", tc.version, pred.Log, tc.lines)
		}
		for _, ln := range tc.lines {
			if !slices.Contains(obs.Log, ln) && !strings.Contains(ln, "set by environment") && !strings.HasPrefix(ln, "Parsed ") {
				t.Errorf("%s: the observed G-ENV-CONFIG-1 lacks %q (%q)", tc.version, ln, obs.Log)
			}
		}
	}
}

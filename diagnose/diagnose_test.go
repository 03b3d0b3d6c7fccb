package diagnose

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

func diagLog(t *testing.T, log string, opts Options) *Report {
	t.Helper()
	l, err := ncclog.Parse(strings.NewReader(log), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	return Diagnose(l, opts)
}

func findingRules(r *Report) map[string]spec.RuleID {
	m := map[string]spec.RuleID{}
	for _, f := range r.Findings {
		if _, ok := m[f.ID]; !ok {
			m[f.ID] = f.Rule
		}
	}
	return m
}

// TestDecisionTree walks the branches of the evidence ladder's decision
// tree (DESIGN.md) with the smallest logs that reach each one.
func TestDecisionTree(t *testing.T) {
	tests := []struct {
		name    string
		log     string
		opts    Options
		want    map[string]spec.RuleID
		notWant []string
	}{
		{"plugin unsupported (2.28)", `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NCCL_NET_PLUGIN set by environment to /opt/p/libnccl-net.so
h:1:1 [0] NCCL INFO External network plugin /opt/p/libnccl-net.so is unsupported
h:1:1 [0] NCCL INFO Using network IB
`, Options{}, map[string]spec.RuleID{"net-plugin.rejected": "G-NET-ABI-1"}, []string{"net-plugin.not-found"}},
		{"plugin dlopen error (2.28)", `h:1:1 [0] NCCL INFO NET/Plugin: libnccl-net.so: libsharp.so.1: cannot open shared object file
`, Options{}, map[string]spec.RuleID{"net-plugin.rejected": "G-NET-ABI-1"}, nil},
		{"plugin asked for, not found", `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NCCL_NET_PLUGIN set by environment to aws-ofi
h:1:1 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net-aws-ofi.so aws-ofi
`, Options{}, map[string]spec.RuleID{"net-plugin.not-found": "G-NET-LIB-2"}, nil},
		{"plugin without device (2.28)", `h:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v9)
h:1:1 [0] NCCL INFO Failed to initialize NET plugin AWS Libfabric
h:1:1 [0] NCCL INFO Using network Socket
`, Options{}, map[string]spec.RuleID{"net-plugin.no-device": "G-NET-STATE-1", "net.socket": "G-NET-SEL-1"}, nil},
		{"collnet threshold", `h:1:1 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.
h:1:1 [0] NCCL INFO NET/Plugin: Loaded collnet plugin SHARP (v8)
h:1:1 [0] NCCL INFO Using network IBext_v8
h:1:1 [0] NCCL INFO Communicator has 1 nodes which is less than CollNet node threshold 2, disabling CollNet
`, Options{}, map[string]spec.RuleID{"collnet.blocked": "G-COLLNET-THRESH-1"}, nil},
		{"collnet on an internal network", `h:1:1 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.
h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>
h:1:1 [0] NCCL INFO Using network IB
`, Options{}, map[string]spec.RuleID{"collnet.blocked": "G-NET-SEL-2"}, nil},
		{"collnet setup failed", `h:1:1 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.
h:1:1 [0] NCCL INFO NET/Plugin: Loaded collnet plugin SHARP (v8)
h:1:1 [0] NCCL INFO Using network IBext_v8
h:1:1 [0] transport.cc:200 NCCL WARN Cannot initialize CollNet, using point-to-point network instead
`, Options{}, map[string]spec.RuleID{"collnet.blocked": "G-COLLNET-SETUP-1"}, nil},
		{"collnet set up, ops elsewhere", `h:1:1 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 1.
h:1:1 [0] NCCL INFO CollNet 00/0 : 0 [send] via COLLNET/SHARP/0/GDRDMA
h:1:1 [0] NCCL INFO AllReduce: 4 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}
`, Options{}, map[string]spec.RuleID{"collnet.not-selected": "G-SEL-OPSUP-1"}, []string{"collnet.used"}},
		{"nvls soft bind failure (2.28)", `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)
h:1:1 [0] NCCL INFO Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'. Proceeding without NVLS support.
`, Options{}, map[string]spec.RuleID{"nvls.setup-failed": "G-NVLS-SETUP-1"}, nil},
		{"nvls registration failed under a CUDA graph (2.24.3)", `NCCL version 2.24.3+cuda12.2
h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0
h:1:1 [0] transport/nvls.cc:580 NCCL WARN Cuda failure 1 'invalid argument'
h:1:1 [0] transport/nvls.cc:703 NCCL WARN rank 0 failed to NVLS register sendbuff 0x7800 sendbuffSize 1073741824 recvbuff 0x7800 recvbuffSize 1073741824
`, Options{}, map[string]spec.RuleID{"nvls.register-failed": "G-REG-UB-1"}, []string{"nvls.setup-failed", "nccl.error"}},
		{"nvls registration failed, REG subsystem (2.26.2)", `NCCL version 2.26.2+cuda12.8
h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0
h:1:1 [0] transport/nvls.cc:598 NCCL WARN Cuda failure 1 'invalid argument'
h:1:1 [0] NCCL INFO rank 0 failed to NVLS register sendbuff 0x7800 sendbuffSize 4096 recvbuff 0x7800 recvbuffSize 4096
`, Options{}, map[string]spec.RuleID{"nvls.register-failed": "G-REG-UB-1"}, []string{"nvls.setup-failed"}},
		{"nvls setup failed beside a failed registration", `NCCL version 2.24.3+cuda12.2
h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0
h:1:1 [0] transport/nvls.cc:245 NCCL WARN Cuda failure 401 'the operation cannot be performed in the present state'
h:1:2 [1] transport/nvls.cc:580 NCCL WARN Cuda failure 1 'invalid argument'
h:1:2 [1] transport/nvls.cc:703 NCCL WARN rank 1 failed to NVLS register sendbuff 0x7800 sendbuffSize 4096 recvbuff 0x7800 recvbuffSize 4096
`, Options{}, map[string]spec.RuleID{"nvls.setup-failed": "G-NVLS-SETUP-1", "nvls.register-failed": "G-REG-UB-1"}, nil},
		{"nvls zero channels", `h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0
h:1:1 [0] NCCL INFO 16 coll channels, 16 collnet channels, 0 nvls channels, 16 p2p channels, 16 p2p channels per peer
`, Options{}, map[string]spec.RuleID{"nvls.no-channels": "G-NVLS-CONS-1"}, nil},
		{"nvls used", `h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0
h:1:1 [0] NCCL INFO 16 coll channels, 16 collnet channels, 16 nvls channels, 16 p2p channels, 16 p2p channels per peer
h:1:1 [0] NCCL INFO AllReduce: 268435456 Bytes -> Algo NVLS proto SIMPLE channel{Lo..Hi}={0..15}
`, Options{}, map[string]spec.RuleID{"nvls.used": "G-SEL-PICK-1"}, []string{"nvls.no-channels", "nvls.setup-failed"}},
		{"forced algorithm error (2.28)", `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to NVLS
h:1:1 [0] enqueue.cc:1 NCCL WARN Error : no algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to NVLS.
h:1:1 [0] enqueue.cc:1 NCCL WARN Error : no algorithm/protocol available for function Broadcast with datatype ncclInt8. NCCL_ALGO was set to NVLS.
`, Options{}, map[string]spec.RuleID{"algo.unavailable": "G-SEL-ERR-1"}, nil},
		{"per-function NCCL_ALGO leaves others free (2.28)", `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to allreduce:tree
h:1:1 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..3}
`, Options{}, map[string]spec.RuleID{"algo.not-honoured": "G-SEL-PICK-1"}, []string{"algo.fallback"}},
		{"NCCL_ALGO parse error (2.28)", `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring, Tree
h:1:1 [0] tuning.cc:1 NCCL WARN Unrecognized element token " Tree" when parsing "Ring, Tree"
`, Options{}, map[string]spec.RuleID{"algo.parse-error": "G-SEL-PARSE-2"}, nil},
		{"P2P disabled yet used", `h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
`, Options{Env: spec.Env{"NCCL_P2P_DISABLE": "1"}}, map[string]spec.RuleID{"env.contradicted": "G-TRANSPORT-1"}, nil},
		{"version mismatch", `NCCL version 2.28.9+cuda12.9
NCCL version 2.22.3+cuda12.4
`, Options{}, map[string]spec.RuleID{"version.mismatch": ""}, nil},
		{"GDR disabled, 2.22", `NCCL version 2.22.3+cuda12.4
h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>
h:1:1 [0] NCCL INFO Using network IB
h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
`, Options{}, map[string]spec.RuleID{"gdr.disabled": "G-NET-GDR-1"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := diagLog(t, tc.log, tc.opts)
			got := findingRules(r)
			for id, rule := range tc.want {
				if g, ok := got[id]; !ok || g != rule {
					t.Errorf("finding %s rule %q present=%v, want rule %s; findings %v", id, g, ok, rule, got)
				}
			}
			for _, id := range tc.notWant {
				if _, ok := got[id]; ok {
					t.Errorf("finding %s should not be reported; findings %v", id, got)
				}
			}
			for _, f := range r.Findings {
				if f.Title == "" || (f.Rule != "" && !strings.HasPrefix(string(f.Rule), "G-")) {
					t.Errorf("finding %+v: no title or a rule that is not a G-* ID", f)
				}
				for _, e := range f.Evidence {
					if e.At.File != "" && e.At.Line <= 0 {
						t.Errorf("finding %s: evidence without a line: %+v", f.ID, e)
					}
				}
			}
		})
	}
}

func TestGDRCheckNamesPeermemRelease(t *testing.T) {
	r := diagLog(t, `NCCL version 2.22.3+cuda12.4
h:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
`, Options{})
	for _, f := range r.Findings {
		if f.ID == "gdr.disabled" && strings.Contains(strings.Join(f.Check, " "), "from 2.23.4") {
			return
		}
	}
	t.Errorf("2.22.3's GDR finding must name the 2.23.4 nvidia-peermem change: %+v", r.Findings)
}

// TestJSONFields pins the fields diagnose's JSON promises.
func TestJSONFields(t *testing.T) {
	r := diagLog(t, `NCCL version 2.28.9+cuda12.9
h:1:1 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0
h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>
h:1:1 [0] NCCL INFO Using network IB
h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA
h:1:1 [0] NCCL INFO AllReduce: 4 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..0}
`, Options{})
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"nccl_version", "ranks", "net", "net_plugin", "ib_devices", "gdr", "transports", "collnet", "nvls", "env", "decisions", "errors", "findings", "capabilities", "trace"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if m["nccl_version"] != "2.28.9+cuda12.9" || m["net"] != "IB" {
		t.Errorf("version %v net %v", m["nccl_version"], m["net"])
	}
	dec := m["decisions"].([]any)[0].(map[string]any)
	if dec["coll"] != "AllReduce" || dec["algo"] != "Tree" || dec["proto"] != "LL" || dec["bytes"].(float64) != 4 {
		t.Errorf("decision %v", dec)
	}
	ib := m["ib_devices"].(map[string]any)
	if ib["found"] != true || ib["level"] != "executed" {
		t.Errorf("ib_devices %v", ib)
	}
	gdr := m["gdr"].(map[string]any)
	if gdr["level"] != "executed" {
		t.Errorf("gdr %v", gdr)
	}
}

func TestLogFiles(t *testing.T) {
	got := LogFiles([]string{"topo.xml", "rank1.log", "PROVENANCE.md", "rank0.log", "results.txt"})
	if strings.Join(got, ",") != "rank0.log,rank1.log" {
		t.Errorf("with .log files: %v", got)
	}
	got = LogFiles([]string{"topo.xml", "out.txt", "README.md", "expect", "diagnose.golden"})
	if strings.Join(got, ",") != "out.txt" {
		t.Errorf("without .log files: %v", got)
	}
}

// TestEnvExplains: the variable of the log's environment that kept a fast
// path out is named, with the line NCCL printed it on; a path the machine
// never offered is not blamed on NCCL_ALGO.
func TestEnvExplains(t *testing.T) {
	data, err := os.ReadFile("../golden/testdata/public/nccl-tests-319-hgx-h100-2nodes-ib-2.26.2/log.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, log string
		opts      Options
		want      string // a finding title (substring); "" for none
		at        string
	}{
		{"HGX H100 with NCCL_ALGO=RING", string(data), Options{}, "NCCL_ALGO=RING explains why NVLS and CollNet were not used: it leaves Ring only", ":37"},
		{"NVLS switched off", "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO NCCL_NVLS_ENABLE set by environment to 0.\n", Options{},
			"NCCL_NVLS_ENABLE=0 explains why NVLS and NVLSTree were not used", "t.log:2"},
		{"given with --env, no line", "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n", Options{Env: spec.Env{"NCCL_P2P_DISABLE": "1"}},
			"NCCL_P2P_DISABLE=1 explains why P2P was not used", ""},
		{"NCCL_ALGO on a machine without NVLS", "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n", Options{}, "", ""},
	}
	for _, c := range cases {
		r := diagLog(t, c.log, c.opts)
		var got []Finding
		for _, f := range r.Findings {
			if strings.HasPrefix(f.ID, "env.explains.") {
				got = append(got, f)
			}
		}
		if c.want == "" {
			if len(got) > 0 {
				t.Errorf("%s: unexpected %q", c.name, got[0].Title)
			}
			continue
		}
		if len(got) != 1 || !strings.Contains(got[0].Title, c.want) {
			t.Errorf("%s: findings %+v, want one saying %q", c.name, got, c.want)
			continue
		}
		if c.at == "" && len(got[0].Evidence) != 0 {
			t.Errorf("%s: evidence %+v for a variable the log does not print", c.name, got[0].Evidence)
		}
		if c.at != "" && (len(got[0].Evidence) != 1 || !strings.HasSuffix(got[0].Evidence[0].At.String(), c.at)) {
			t.Errorf("%s: evidence %+v, want the line %s", c.name, got[0].Evidence, c.at)
		}
	}
}

// TestWriteHTML: the page holds every capability's ladder and the log
// lines the findings cite, and fetches nothing.
func TestWriteHTML(t *testing.T) {
	data, err := os.ReadFile("../golden/testdata/public/nccl-tests-319-hgx-h100-2nodes-ib-2.26.2/log.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := diagLog(t, string(data), Options{})
	var b bytes.Buffer
	if err := r.WriteHTML(&b, "gatesim diagnose log.txt"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, c := range r.Obs.Caps {
		if !strings.Contains(page, `id="cap-`+string(c.Cap)+`"`) {
			t.Errorf("no ladder for %s", c.Cap)
		}
	}
	for _, f := range r.Findings {
		for _, e := range f.Evidence {
			if !strings.Contains(page, e.At.String()) {
				t.Errorf("finding %s cites %s, which the page lacks", f.ID, e.At)
			}
		}
	}
	if !strings.Contains(page, "NCCL_ALGO=RING explains why NVLS") {
		t.Error("the page lacks the NCCL_ALGO finding")
	}
	for _, bad := range []string{"<script", "<link", " src=", "href=\"http", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page loads something: %s", bad)
		}
	}
}

// TestOldAndFabricFindings: NCCL older than 2.4 is said to be out of range;
// a GB200 GPU whose fabric is not completed is a finding; a completed one is
// not, whatever its health mask (NCCL's MNNVL check reads only the state).
func TestOldAndFabricFindings(t *testing.T) {
	r := diagLog(t, "h:1:1 [0] NCCL INFO NCCL version 2.3.7+cuda10.0\nh:1:1 [0] NCCL INFO Using internal Network Socket\n", Options{})
	if _, ok := findingRules(r)["version.too-old"]; !ok {
		t.Errorf("2.3.7: no version.too-old finding: %+v", r.Findings)
	}
	r = diagLog(t, "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO MNNVL busId 0x1b000 fabric UUID 2c1f.9f0e cliqueId 0x7ff state 2 healthMask 0x0\n", Options{})
	if _, ok := findingRules(r)["mnnvl.fabric-not-ready"]; !ok {
		t.Errorf("fabric in progress: no finding: %+v", r.Findings)
	}
	for _, mask := range []string{"0x0", "0xaa", "0x4"} {
		r = diagLog(t, "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO MNNVL busId 0x1b000 fabric UUID 2c1f.9f0e cliqueId 0x7ff state 3 healthMask "+mask+"\n", Options{})
		if _, ok := findingRules(r)["mnnvl.fabric-not-ready"]; ok {
			t.Errorf("a completed fabric with healthMask %s is a finding: %+v", mask, r.Findings)
		}
	}
}

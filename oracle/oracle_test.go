package oracle

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer is not JSON: %s", b)
	}
	return m
}

func TestAnswerShape(t *testing.T) {
	o := New(nil)
	m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"v100x4","env":{"NCCL_ALGO":"NVLS"},"op":{"coll":"allreduce","bytes":"1MiB"}}`)))
	if m["status"] != "error" || m["schema"] != float64(SchemaVersion) {
		t.Fatalf("status %v schema %v", m["status"], m["schema"])
	}
	e := m["error"].(map[string]any)
	if e["result"] != "ncclInvalidUsage" || !strings.Contains(e["message"].(string), "NCCL_ALGO was set to NVLS.") {
		t.Fatalf("error %v", e)
	}
	for _, k := range []string{"algo", "proto", "net", "collnet_support", "nvls_support", "evidence", "trace"} {
		if _, ok := m[k]; !ok {
			t.Errorf("answer lacks %q", k)
		}
	}
	tr := m["trace"].([]any)
	first := tr[0].(map[string]any)
	if first["rule"] == "" || first["verdict"] == "" {
		t.Fatalf("trace entry %v", first)
	}
}

func TestInvalidNamesTheField(t *testing.T) {
	o := New(nil)
	cases := map[string]string{
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"gather","bytes":4}}`:                                                       "op.coll",
		`{"nccl":"1.0","system":"v100x4","op":{"coll":"allreduce","bytes":4}}`:                                                       "nccl",
		`{"nccl":"2.28.9","op":{"coll":"allreduce","bytes":4}}`:                                                                      "system",
		`{"nccl":"2.28.9","system":"v100x4"}`:                                                                                        "op",
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce"}}`:                                                              "op.bytes",
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":4,"count":1}}`:                                          "op.bytes",
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","count":-1}}`:                                                   "op.count",
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":4,"redop":"xor"}}`:                                      "op.redop",
		`{"nccl":"2.28.9","system":"v100x4","nodes":"two","op":{"coll":"allreduce","bytes":4}}`:                                      "nodes",
		`{"nccl":"2.28.9","system":{"nodes":[]},"op":{"coll":"allreduce","bytes":4}}`:                                                "system",
		`{"nccl":"2.28.9","system":"./nope.json","op":{"coll":"allreduce","bytes":4}}`:                                               "system",
		`{"nccl":"2.28.9","system":"h200x2","group":[{"coll":"allreduce","bytes":4},{"coll":"gather","bytes":4}]}`:                   "group[1].coll",
		`{"nccl":"2.28.9","system":"h200x2","group":[{"coll":"allreduce","bytes":4,"buffers":"pinned"}]}`:                            "group[0].buffers",
		`{"nccl":"2.28.9","system":"h200x2","op":{"coll":"allreduce","bytes":4,"buffers":"pinned"}}`:                                 "op.buffers",
		`{"nccl":"2.28.9","system":"h200x2","op":{"coll":"allreduce","bytes":4,"alloc":"pinned"}}`:                                   "op.alloc",
		`{"nccl":"2.28.9","system":"h200x2","group":[{"coll":"allgather","bytes":4,"buffers":"window","alloc":"cudamalloc"}]}`:       "group[0].alloc",
		`{"nccl":"2.28.9","system":"h200x2","launch":"eager","op":{"coll":"allreduce","bytes":4}}`:                                   "launch",
		`{"nccl":"2.28.9","system":"h200x2","op":{"coll":"allreduce","bytes":4},"group":[{"coll":"allreduce","bytes":4}]}`:           "group",
		`{"nccl":"2.28.9","system":"h200x2","config":{"maxPeers":4},"op":{"coll":"allreduce","bytes":4}}`:                            "config",
		`{"nccl":"2.28.9","system":"h200x2","config":{"maxCTAs":"4"},"op":{"coll":"allreduce","bytes":4}}`:                           "config",
		`{"nccl":"2.28.9","system":"h200x2","config":{"maxP2pPeers":4},"op":{"coll":"allreduce","bytes":4}}`:                         "config",
		`{"nccl":"2.28.9","system":"h200x2","plugin_names":["aws-ofi-nccl@1.18.9:g7e.8xlarge"],"op":{"coll":"allreduce","bytes":4}}`: "plugin_names",
		`{"nccl":"2.28.9","system":"h200x2","plugin_names":["sharp"],"op":{"coll":"allreduce","bytes":4}}`:                           "plugin_names",
	}
	for in, field := range cases {
		m := decode(t, o.HandleLine([]byte(in)))
		inv, ok := m["invalid"].(map[string]any)
		if m["status"] != "invalid" || !ok {
			t.Errorf("%s: status %v", in, m["status"])
			continue
		}
		if inv["field"] != field {
			t.Errorf("%s: field %v, want %s (%v)", in, inv["field"], field, inv["message"])
		}
	}
}

func TestIDEchoedAndFileSystems(t *testing.T) {
	o := New(func(p string) ([]byte, error) {
		return []byte(`{"preset":"dgx-h100","nodes":2}`), nil
	})
	m := decode(t, o.HandleLine([]byte(`{"id":[1,"x"],"nccl":"2.28.9","system":"cluster.json","op":{"coll":"allreduce","bytes":"1MiB"}}`)))
	if m["status"] != "ok" {
		t.Fatalf("%v", m)
	}
	if id, _ := json.Marshal(m["id"]); string(id) != `[1,"x"]` {
		t.Errorf("id echoed as %s", id)
	}
	if m["net"] != "IB" {
		t.Errorf("net %v, want IB from the file's DGX H100 system", m["net"])
	}
}

func FuzzHandleLine(f *testing.F) {
	f.Add([]byte(`{"nccl":"2.28.9","system":"v100x4","env":{"NCCL_ALGO":"NVLS"},"op":{"coll":"allreduce","bytes":"1MiB"}}`))
	f.Add([]byte(`{"nccl":22203,"system":{"preset":"dgx-h100","nodes":2},"op":{"coll":"allgather","count":12,"dtype":"int8"}}`))
	f.Add([]byte(`{"nccl":"2.28.9","system":"h200x2","plugins":[{"path":"/x.so","net_symbols":[9]}],"op":{"coll":"reduce","bytes":8,"root":1}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	// hostile inputs
	for _, s := range []string{
		`{"nccl":"2.28.9","system":"/dev/zero","op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"/proc/self/status","op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":4}} trailing`,
		`{"nccl":"2.28.9","system":"dgx-h100","op":{"coll":"allreduce","count":1125899906842624}}`,
		`{"nccl":"2.28.9","system":"dgx-h100","op":{"coll":"allreduce","count":2305843009213693952}}`,
		`{"nccl":"2.28.9","system":"dgx-h100","nodes":131072,"op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"v100x4","env":{"NCCL_GRAPH_FILE":"g.xml"},"op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":70000,"system":"v100x4","op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"dgx-h100","op":{"coll":"allreduce","count":-5}}`,
		`{"nccl":"2.28.9","system":"v100x4","plugins":[{"path":"/opt/` + strings.Repeat("p", 2000) + `/libnccl-net.so","net_symbols":[8],"in_loader_path":true}],"op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"v100x4","env":{"NCCL_IB_HCA":"` + strings.Repeat("mlx5_0:1,", 500) + `"},"op":{"coll":"allreduce","bytes":4}}`,
		`{"nccl":"2.28.9","system":"v100x4","group":[` + strings.TrimSuffix(strings.Repeat(`{"coll":"allreduce","bytes":"1MiB"},`, 64), ",") + `]}`,
		`{"nccl":"2.28.9","system":{"nodes":[{"gpus":[{"dev":0,"sm":90},{"dev":0,"sm":90}]}]},"op":{"coll":"allreduce","bytes":4}}`,
	} {
		f.Add([]byte(s))
	}
	// One oracle for every execution, as a service keeps one: a mutated
	// request on a machine already seen reuses its communicator, so the
	// fuzzer spends its time on the request's parsing and checks rather
	// than on the same topology search again (answers do not depend on the
	// cache: TestMetamorphicBadLinesChangeNothing).
	o := New(nil)
	f.Fuzz(func(t *testing.T, line []byte) {
		ans := o.HandleLine(line)
		var m map[string]any
		if err := json.Unmarshal(ans, &m); err != nil {
			t.Fatalf("not JSON: %s", ans)
		}
		switch m["status"] {
		case "ok", "error", "invalid":
		default:
			t.Fatalf("status %v", m["status"])
		}
	})
}

// A topology XML path is a system: the answer is what that NCCL printed
// for the operation on the captured machine (AllReduce 2 MiB in the
// baseline capture: Ring/Simple over channels 0..23).
func TestTopologyXMLSystem(t *testing.T) {
	o := New(os.ReadFile)
	xml := "../golden/testdata/captured/h200x2-2.28.9/baseline/topo.xml"
	m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"`+xml+`","env":{"NCCL_NVLS_ENABLE":"0"},"op":{"coll":"allreduce","bytes":"2MiB"}}`)))
	if m["status"] != "ok" {
		t.Fatalf("answer %v", m)
	}
	log, err := os.ReadFile("../golden/testdata/captured/h200x2-2.28.9/baseline/nccl.log")
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("AllReduce: 2097152 Bytes -> Algo %s proto %s channel{Lo..Hi}={%v..%v}",
		strings.ToUpper(m["algo"].(string)), strings.ToUpper(m["proto"].(string)), m["channel_lo"], m["channel_hi"])
	if !strings.Contains(string(log), line) {
		t.Errorf("%q is not in the captured log", line)
	}
	m = decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"nope.xml","op":{"coll":"allreduce","bytes":"1MiB"}}`)))
	if m["status"] != "invalid" {
		t.Errorf("a missing XML file: %v", m)
	}
}

// TestOraclePluginNames: aws-ofi-nccl named in the request is the
// network of the public 2 × g7e.8xlarge run (Libfabric), and its
// NCCL_PROTO=simple leaves Simple where 1.12.1 (no such setting) and no
// plugin run LL; requests differing only in the name never share a
// communicator.
func TestOraclePluginNames(t *testing.T) {
	o := New(os.ReadFile)
	xml := "../golden/testdata/public/machines/aws-g7e-8xlarge/topo.xml"
	for _, tc := range []struct{ names, net, proto string }{
		{`["aws-ofi-nccl@1.18.0:g7e.8xlarge"]`, "Libfabric", "Simple"},
		{`["aws-ofi-nccl@1.12.1-aws:g7e.8xlarge"]`, "AWS Libfabric", "LL"},
		{`[]`, "IB", "LL"},
	} {
		m := decode(t, o.HandleLine([]byte(`{"nccl":"2.29.2","system":"`+xml+`","nodes":2,"plugin_names":`+tc.names+`,"op":{"coll":"allreduce","bytes":"4KiB"}}`)))
		if m["status"] != "ok" || m["net"] != tc.net || m["proto"] != tc.proto {
			t.Errorf("%s: status %v net %v proto %v; want ok, %s, %s", tc.names, m["status"], m["net"], m["proto"], tc.net, tc.proto)
		}
	}
}

// SendRecv and AllToAll answer with NCCL's p2p path: no algorithm or
// protocol, the communicator's p2p channels (the 2 × H200 logs "32 p2p
// channels, 32 p2p channels per peer").
// TestOracleConfig: the request's ncclConfig_t changes the communicator
// (maxCTAs=2 leaves 2 channels), a variable set wins over it, NCCL's
// refusal of a config is an "error" answer, and requests differing only
// in their config never share a communicator.
func TestOracleConfig(t *testing.T) {
	o := New(nil)
	ask := func(extra string) *Answer {
		a, _, _, _ := o.answer([]byte(`{"nccl":"2.28.9","system":"h200x2",` + extra + `"op":{"coll":"allreduce","bytes":"1MiB"}}`))
		return a
	}
	for _, tc := range []struct {
		extra string
		want  int
	}{
		{``, 24}, {`"config":{"maxCTAs":2},`, 2}, {`"config":{"maxCTAs":2},"env":{"NCCL_MAX_CTAS":"4"},`, 4}, {``, 24}, {`"config":{"maxCTAs":2},`, 2},
	} {
		if a := ask(tc.extra); a.Status != "ok" || a.NChannels == nil || *a.NChannels != tc.want {
			t.Errorf("%s: %s, %v channels, want %d", tc.extra, a.Status, a.NChannels, tc.want)
		}
	}
	if a := ask(`"config":{"minCTAs":2},`); a.Status != "error" || a.Error == nil || a.Error.Message != "Invalid config min/max channels attribute value 2/-2147483648" {
		t.Errorf("minCTAs alone: %+v", a)
	}
}

// TestOracleP2P: a lone SendRecv or AllToAll is planned as a group of one
// (G-SCHED-P2P-1), so its answer carries rank 0's tasks with their
// channels and plan, as the same operation in a group does.
func TestOracleP2P(t *testing.T) {
	o := New(nil)
	for _, c := range []struct {
		coll   string
		tasks  int
		lo, hi int
	}{{"sendrecv", 2, 16, 31}, {"alltoall", 4, 0, 31}} {
		for _, req := range []string{`"op":{"coll":"` + c.coll + `","bytes":"1MiB"}`, `"group":[{"coll":"` + c.coll + `","bytes":"1MiB"}]`} {
			a, _, _, _ := o.answer([]byte(`{"nccl":"2.28.9","system":"h200x2",` + req + `}`))
			if a.Status != "ok" || a.Algo != nil || a.Proto != nil || a.P2P == nil || a.P2P.NChannels != 32 || a.P2P.NChannelsPerPeer != 32 {
				t.Errorf("%s: %+v", req, a)
				continue
			}
			if len(a.Ops) != 1 || len(a.Ops[0].P2PTasks) != c.tasks || a.Ops[0].Plan == nil || *a.Ops[0].Plan != 0 ||
				a.Ops[0].ChannelLo == nil || *a.Ops[0].ChannelLo != c.lo || *a.Ops[0].ChannelHi != c.hi {
				t.Errorf("%s: ops %+v, want %d tasks in plan 0 on %d..%d", req, a.Ops, c.tasks, c.lo, c.hi)
			}
		}
	}
}

// TestOracleP2PPeers: a group may state sends and recvs with their peers
// (here a pipeline pair on 2 × H200 at 2.28.9: 1 MiB sent to rank 1 on
// Simple, 4 KiB received from it on LL, both round 1); a peer outside the
// communicator or on another collective is refused naming the field, and
// a send to rank 0 itself without a matching recv fails ncclGroupEnd.
func TestOracleP2PPeers(t *testing.T) {
	o := New(nil)
	ask := func(ops string) *Answer {
		a, _, _, _ := o.answer([]byte(`{"nccl":"2.28.9","system":"h200x2","group":[` + ops + `]}`))
		return a
	}
	a := ask(`{"coll":"send","peer":1,"bytes":"1MiB"},{"coll":"recv","peer":1,"bytes":"4KiB"}`)
	if a.Status != "ok" || len(a.Ops) != 2 {
		t.Fatalf("pipeline pair: %+v", a)
	}
	for k, w := range []struct{ coll, dir, proto string }{{"Send", "send", "Simple"}, {"Recv", "recv", "LL"}} {
		op := a.Ops[k]
		if op.Coll != w.coll || len(op.P2PTasks) != 1 || op.P2PTasks[0].Peer != 1 || op.P2PTasks[0].Dir != w.dir || op.P2PTasks[0].Proto != w.proto || op.P2PTasks[0].Round != 1 {
			t.Errorf("op %d: %+v, want %s to 1 on %s in round 1", k, op, w.dir, w.proto)
		}
	}
	for _, c := range []struct{ ops, field string }{
		{`{"coll":"send","peer":0,"bytes":4},{"coll":"recv","peer":2,"bytes":4}`, "group[1].peer"},
		{`{"coll":"allreduce","peer":1,"bytes":4}`, "group[0].peer"},
		{`{"coll":"sendrecv","peer":1,"bytes":4}`, "group[0].peer"},
		{`{"coll":"recv","peer":-1,"bytes":4}`, "group[0].peer"},
	} {
		if a := ask(c.ops); a.Status != "invalid" || a.Invalid == nil || a.Invalid.Field != c.field {
			t.Errorf("%s: %+v %+v, want invalid %s", c.ops, a, a.Invalid, c.field)
		}
	}
	// captured, the 64 MiB send registers over IPC (G-REG-P2P-1), and the
	// encoder writes it
	line := o.HandleLine([]byte(`{"nccl":"2.28.9","system":"h200x2","launch":"graph","group":[{"coll":"send","peer":1,"bytes":"64MiB"}]}`))
	if !strings.Contains(string(line), `"plan":0,"registered":"IPC"}`) {
		t.Errorf("captured send: %s, want its task registered IPC", line)
	}
	if a := ask(`{"coll":"send","peer":0,"bytes":8}`); a.Status != "error" || a.Error == nil || a.Error.Result != "ncclInvalidUsage" || a.Error.Call != "ncclGroupEnd" {
		t.Errorf("unmatched send to self: %+v %+v", a, a.Error)
	}
}

// TestGroupAnswer: a group's answer carries every operation's plan in call
// order (8 MiB AllReduces of 2 × H200 under 2.28.9 share the 24 channels,
// as nccl-tests -m 8 printed), the top level describes the first; a
// captured out-of-place AllReduce is registered and runs on 16 channels.
func TestGroupAnswer(t *testing.T) {
	o := New(nil)
	o.Trace = false
	op := `{"coll":"allreduce","bytes":"8MiB"}`
	m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0"},"group":[`+strings.TrimSuffix(strings.Repeat(op+",", 8), ",")+`]}`)))
	ops, ok := m["ops"].([]any)
	if m["status"] != "ok" || !ok || len(ops) != 8 {
		t.Fatalf("answer %v", m)
	}
	var got []string
	for _, x := range ops {
		e := x.(map[string]any)
		got = append(got, fmt.Sprintf("%v/%v %v..%v", e["algo"], e["proto"], e["channel_lo"], e["channel_hi"]))
	}
	want := "Ring/Simple 0..2,Ring/Simple 2..5,Ring/Simple 5..8,Ring/Simple 8..11,Ring/Simple 11..14,Ring/Simple 14..17,Ring/Simple 17..20,Ring/Simple 20..23"
	if strings.Join(got, ",") != want {
		t.Errorf("ops %v\nwant %s", got, want)
	}
	if m["channel_lo"] != float64(0) || m["channel_hi"] != float64(2) {
		t.Errorf("top level %v..%v, want the first op's 0..2", m["channel_lo"], m["channel_hi"])
	}
	m = decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0"},"launch":"graph","op":{"coll":"allreduce","bytes":"64MiB"}}`)))
	e := m["ops"].([]any)[0].(map[string]any)
	if e["channel_hi"] != float64(15) || e["registered"] != "IPC" {
		t.Errorf("graph op %v", e)
	}
	// 60 window AllReduces of 64 KiB at 2.28.3: the kernel arguments hold
	// 58 works, so the second piece of 2 is picked on its own (3 blocks
	// instead of 7); cta_bytes are each piece's cells per block
	win := `{"coll":"allreduce","bytes":"64KiB","buffers":"window"}`
	m = decode(t, o.HandleLine([]byte(`{"nccl":"2.28.3","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0"},"group":[`+strings.TrimSuffix(strings.Repeat(win+",", 60), ",")+`]}`)))
	ops = m["ops"].([]any)
	for _, c := range []struct {
		i                      int
		blocks, bytes, covered float64
	}{{0, 7, 531 << 10, 64 << 10}, {57, 7, 531 << 10, 14 << 10}, {58, 3, 43 << 10, 64 << 10}, {59, 3, 43 << 10, 64 << 10}} {
		e := ops[c.i].(map[string]any)
		if e["kernel"] != "AllReduce_RSxLD_AGxST" || e["nchannels"] != c.blocks || e["cta_bytes"] != c.bytes || e["nthreads"] != float64(512) || e["algo"] != nil {
			t.Errorf("window op %d: %v, want %g blocks of %g bytes", c.i, e, c.blocks, c.bytes)
		}
		// cta_parts: the blocks' pieces of the operation's 64 KiB; 2.28.3's
		// decode starts op 57, which follows op 56's tail in block 6, after
		// op 56's fraction and never moves its first 50 KiB
		var sum float64
		for _, p := range e["cta_parts"].([]any) {
			sum += p.(map[string]any)["bytes"].(float64)
		}
		if sum != c.covered {
			t.Errorf("window op %d: cta_parts %v cover %g bytes, want %g", c.i, e["cta_parts"], sum, c.covered)
		}
	}
}

// TestOracleIPCRegisterReleases: a 64 MiB AllReduce on 2 × H200 is
// registered over IPC (16 channels, not 24) from 2.23.4 when its buffers
// are ncclCommRegister'ed, and from 2.24.3 when it is only captured into a
// CUDA graph; cudaMalloc buffers ("alloc") only at 2.23.4, where NCCL
// exports them over legacy CUDA IPC without NCCL_LEGACY_CUDA_REGISTER.
func TestOracleIPCRegisterReleases(t *testing.T) {
	o := New(nil)
	o.Trace = false
	for _, tc := range []struct {
		nccl, launch, buffers, alloc string
		hi                           float64
		reg                          any
	}{
		{"2.22.3", "graph", "registered", "", 23, nil},
		{"2.23.4", "stream", "registered", "", 15, "IPC"},
		{"2.23.4", "graph", "user", "", 23, nil},
		{"2.24.3", "graph", "user", "", 15, "IPC"},
		{"2.27.7", "graph", "user", "", 15, "IPC"},
		{"2.28.3", "stream", "registered", "", 15, "IPC"},
		{"2.28.9", "stream", "user", "", 23, nil},
		{"2.28.9", "graph", "user", "cumem", 15, "IPC"},
		{"2.28.9", "graph", "user", "cudamalloc", 23, nil},
		{"2.24.3", "stream", "registered", "cudamalloc", 23, nil},
		{"2.23.4", "stream", "registered", "cudamalloc", 15, "IPC"},
	} {
		req := fmt.Sprintf(`{"nccl":%q,"system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0"},"launch":%q,"op":{"coll":"allreduce","bytes":"64MiB","buffers":%q,"alloc":%q}}`, tc.nccl, tc.launch, tc.buffers, tc.alloc)
		m := decode(t, o.HandleLine([]byte(req)))
		ops, ok := m["ops"].([]any)
		if m["status"] != "ok" || !ok || len(ops) != 1 {
			t.Fatalf("%s: answer %v", req, m)
		}
		e := ops[0].(map[string]any)
		if e["channel_hi"] != tc.hi || e["registered"] != tc.reg {
			t.Errorf("%s %s %s %s: channel_hi %v registered %v, want %v %v", tc.nccl, tc.launch, tc.buffers, tc.alloc, e["channel_hi"], e["registered"], tc.hi, tc.reg)
		}
	}
}

// TestOracleRegisteredProxy: ops[].chunk carries the proxy op's reg and
// steps only for buffers the network or CollNet registered
// (G-REG-PROXY-1): a CollNetDirect AllGather of 64 MiB on dgx-h100 × 4
// with SHARP is registered from 2.24.3 (128 steps on one head's loop),
// a ReduceScatter up to 2.28.9; plain buffers never.
func TestOracleRegisteredProxy(t *testing.T) {
	o := New(nil)
	o.Trace = false
	for _, tc := range []struct {
		nccl, coll, buffers string
		nsteps              any
	}{
		{"2.23.4", "allgather", "registered", nil},
		{"2.24.3", "allgather", "registered", 128.0},
		{"2.28.9", "allgather", "user", nil},
		{"2.28.9", "reducescatter", "registered", 128.0},
		{"2.29.2", "reducescatter", "registered", nil},
	} {
		req := fmt.Sprintf(`{"nccl":%q,"system":"dgx-h100","nodes":4,"sharp":true,"env":{"NCCL_COLLNET_ENABLE":"1","NCCL_ALGO":"CollNetDirect"},"op":{"coll":%q,"bytes":"64MiB","buffers":%q}}`, tc.nccl, tc.coll, tc.buffers)
		m := decode(t, o.HandleLine([]byte(req)))
		ops, ok := m["ops"].([]any)
		if m["status"] != "ok" || !ok || len(ops) != 1 {
			t.Fatalf("%s: answer %v", req, m)
		}
		c, _ := ops[0].(map[string]any)["chunk"].(map[string]any)
		if c == nil || c["proxy_nsteps"] != tc.nsteps || (tc.nsteps != nil) != (c["proxy_reg"] == true) {
			t.Errorf("%s %s %s: chunk %v, want proxy_nsteps %v", tc.nccl, tc.coll, tc.buffers, c, tc.nsteps)
		}
	}
}

// TestOracleProcs: "procs" spreads the ranks over processes. One process
// per node registers no NVLS buffer (nvlsRegSupport 0), the same request
// per GPU does; the communicator cache keeps the two apart, and a layout
// gatesim does not know is invalid, naming the field.
func TestOracleProcs(t *testing.T) {
	o := New(nil)
	o.Trace = false
	for _, tc := range []struct {
		procs string
		hi    float64
		reg   any
	}{
		{"", 3, "NVLS"},
		{"per-node", 15, nil},
		{"per-gpu", 3, "NVLS"},
		{"per-node", 15, nil},
	} {
		req := fmt.Sprintf(`{"nccl":"2.28.9","system":"dgx-h100","procs":%q,"op":{"coll":"allreduce","bytes":"64MiB","buffers":"registered"}}`, tc.procs)
		m := decode(t, o.HandleLine([]byte(req)))
		ops, ok := m["ops"].([]any)
		if m["status"] != "ok" || !ok || len(ops) != 1 {
			t.Fatalf("%s: answer %v", req, m)
		}
		e := ops[0].(map[string]any)
		if e["channel_hi"] != tc.hi || e["registered"] != tc.reg {
			t.Errorf("procs %q: channel_hi %v registered %v, want %v %v", tc.procs, e["channel_hi"], e["registered"], tc.hi, tc.reg)
		}
	}
	m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"dgx-h100","procs":"per-rack","op":{"coll":"allreduce","bytes":1024}}`)))
	inv, _ := m["invalid"].(map[string]any)
	if m["status"] != "invalid" || inv["field"] != "procs" || !strings.Contains(fmt.Sprint(inv["message"]), "per-gpu, per-node") {
		t.Errorf("bad procs: answer %v", m)
	}
}

// TestOracleInitAllDup: "procs":"init-all" makes the ranks with
// ncclCommInitAll, whose devlist check refuses two ranks on one CUDA
// device with ncclInvalidUsage and no message (G-DEV-DUP-2) before
// G-DEV-DUP-1's WARN; per-gpu reaches that WARN, which ncclCommInitRank
// never returns at 2.24.3-2.25.1: the answer's error carries the abort
// (G-INIT-ABORT-1), and only there. ncclCommInitAll over two nodes is
// invalid, naming init-all.
func TestOracleInitAllDup(t *testing.T) {
	o := New(nil)
	o.Trace = false
	sys := `{"name":"dup","nodes":[{"host":"n0","ip_interfaces":["eth0"],"gpus":[{"dev":0,"sm":90,"bus_id":"0000:18:00.0"},{"dev":0,"sm":90,"bus_id":"0000:18:00.0"}]}]}`
	const dupWarn = "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 18000"
	for _, tc := range []struct {
		nccl, procs, by, msg, abort string
	}{
		{"2.28.9", "init-all", "G-DEV-DUP-2", "", ""},
		{"2.30.7", "init-all", "G-DEV-DUP-2", "", ""},
		{"2.24.3", "init-all", "G-DEV-DUP-2", "", ""},
		{"2.28.9", "per-gpu", "G-DEV-DUP-1", dupWarn, ""},
		{"2.23.4", "per-gpu", "G-DEV-DUP-1", dupWarn, ""},
		{"2.24.3", "per-gpu", "G-DEV-DUP-1", dupWarn, "G-INIT-ABORT-1"},
		{"2.25.1", "per-gpu", "G-DEV-DUP-1", dupWarn, "G-INIT-ABORT-1"},
		{"2.25.1", "per-node", "G-DEV-DUP-1", dupWarn, ""},
		{"2.26.2", "per-gpu", "G-DEV-DUP-1", dupWarn, ""},
	} {
		req := fmt.Sprintf(`{"nccl":%q,"system":%s,"procs":%q,"op":{"coll":"allreduce","bytes":1024}}`, tc.nccl, sys, tc.procs)
		line := o.HandleLine([]byte(req))
		m := decode(t, line)
		e, _ := m["error"].(map[string]any)
		if m["status"] != "error" || m["decided_by"] != tc.by || e["result"] != "ncclInvalidUsage" || fmt.Sprint(e["message"]) != tc.msg {
			t.Errorf("%s %s: answer %v: want ncclInvalidUsage %q decided by %s", tc.nccl, tc.procs, m, tc.msg, tc.by)
		}
		ab, _ := e["abort"].(map[string]any)
		if got, _ := ab["rule"].(string); got != tc.abort || tc.abort != "" && ab["message"] != "free(): double free detected in tcache 2" {
			t.Errorf("%s %s: error %v: want abort %q", tc.nccl, tc.procs, e, tc.abort)
		}
		ops, _ := m["ops"].([]any)
		if len(ops) != 1 || fmt.Sprint(ops[0].(map[string]any)["error"]) != fmt.Sprint(e) {
			t.Errorf("%s %s: ops %v: want the top level's error %v", tc.nccl, tc.procs, ops, e)
		}
	}
	m := decode(t, o.HandleLine([]byte(`{"nccl":"2.28.9","system":"dgx-h100","nodes":2,"procs":"init-all","op":{"coll":"allreduce","bytes":1024}}`)))
	if m["status"] != "invalid" || !strings.Contains(fmt.Sprint(m["invalid"]), "init-all") {
		t.Errorf("init-all over two nodes: answer %v", m)
	}
}

// TestOracleSymmetricKernels: the per-operation answer names the symmetric
// kernel of each new choice. A plain request (one op, user buffers) under
// NCCL_SYM_NOWIN_ENABLE=1 is planned as its group from 2.29.2 and takes
// the LL kernel where the cost table alone picks LL; 2.28.9 answers with
// the cost table. A window AllReduce on 8 × B200 under
// NCCL_SYM_TMA_ENABLE=1 takes the TMA kernel from 2.30.3. The top level,
// which describes the first operation, names the same kernel.
func TestOracleSymmetricKernels(t *testing.T) {
	o := New(nil)
	o.Trace = false
	for _, c := range []struct {
		req, kernel string
	}{
		{`{"nccl":"2.29.2","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0","NCCL_SYM_NOWIN_ENABLE":"1"},"op":{"coll":"allreduce","bytes":"4KiB"}}`, "AllReduce_AGxLL_R"},
		{`{"nccl":"2.30.7","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0","NCCL_SYM_NOWIN_ENABLE":"1"},"op":{"coll":"allreduce","bytes":"4KiB"}}`, "AllReduce_AGxLL_R"},
		{`{"nccl":"2.28.9","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0","NCCL_SYM_NOWIN_ENABLE":"1"},"op":{"coll":"allreduce","bytes":"4KiB"}}`, ""},
		{`{"nccl":"2.30.7","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0","NCCL_SYM_KERNEL":"AllReduce_AGxLL_R"},"op":{"coll":"allreduce","bytes":"16MiB"}}`, "AllReduce_AGxLL_R"},
		{`{"nccl":"2.30.7","system":"dgx-b200","env":{"NCCL_NVLS_ENABLE":"0","NCCL_SYM_TMA_ENABLE":"1"},"op":{"coll":"allreduce","bytes":"64MiB","buffers":"window"}}`, "AllReduce_RSxTmaLD_AGxTmaST"},
		{`{"nccl":"2.29.7","system":"dgx-b200","env":{"NCCL_NVLS_ENABLE":"0","NCCL_SYM_TMA_ENABLE":"1"},"op":{"coll":"allreduce","bytes":"64MiB","buffers":"window"}}`, "AllReduce_RSxLD_AGxST"},
	} {
		m := decode(t, o.HandleLine([]byte(c.req)))
		ops, ok := m["ops"].([]any)
		if m["status"] != "ok" || !ok || len(ops) != 1 {
			t.Fatalf("%s: answer %v", c.req, m)
		}
		e := ops[0].(map[string]any)
		if k, _ := e["kernel"].(string); k != c.kernel {
			t.Errorf("%s: kernel %q, want %q", c.req, k, c.kernel)
		}
		if k, _ := m["kernel"].(string); k != c.kernel {
			t.Errorf("%s: top-level kernel %q, want ops[0]'s %q", c.req, k, c.kernel)
		}
		if c.kernel == "" && e["algo"] == nil {
			t.Errorf("%s: no algorithm: want the cost table's", c.req)
		}
	}
}

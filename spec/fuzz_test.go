package spec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

func TestParseAlgoProtoGrammar(t *testing.T) {
	cases := []struct {
		algo    string
		perFunc bool
		warn    string // substring; "" = accepted
		check   func(tuning.EnableMatrix) bool
	}{
		{"Ring", true, "", func(m tuning.EnableMatrix) bool { return m.Algo[AllReduce][Ring] == 1 && m.Algo[AllReduce][Tree] == 0 }},
		{"^Ring", true, "", func(m tuning.EnableMatrix) bool { return m.Algo[AllGather][Ring] == 0 && m.Algo[AllGather][NVLS] == 1 }},
		{"allreduce:tree;allgather:ring", true, "", func(m tuning.EnableMatrix) bool {
			return m.Algo[AllReduce][Tree] == 1 && m.Algo[AllReduce][Ring] == 0 && m.Algo[AllGather][Ring] == 1 &&
				m.Algo[AllGather][NVLS] == 0 && m.Algo[Broadcast][NVLS] == 1
		}},
		{"tree;allgather:ring", true, "", func(m tuning.EnableMatrix) bool {
			return m.Algo[AllReduce][Tree] == 1 && m.Algo[AllGather][Ring] == 1 && m.Algo[AllGather][Tree] == 0
		}},
		{"allreduce:tree:ring", true, "", func(m tuning.EnableMatrix) bool { return m.Algo[AllReduce][Tree] == 1 && m.Algo[AllReduce][Ring] == 0 }},
		{"", true, "", func(m tuning.EnableMatrix) bool { return m == tuning.DefaultEnable() }},
		{"RING,tree", true, "", func(m tuning.EnableMatrix) bool { return m.Algo[Reduce][Ring] == 1 && m.Algo[Reduce][Tree] == 1 }},
		{"Ring, Tree", true, `Unrecognized element token " Tree"`, nil},
		{"allreduce:tree;ring", true, "All entries except the first must have a prefix", nil},
		{";ring", true, "All entries except the first must have a prefix", nil},
		{"sendrecv:ring", true, `Unrecognized prefix token "sendrecv"`, nil},
		{"Ring, Tree", false, "", func(m tuning.EnableMatrix) bool { return m.Algo[AllReduce][Ring] == 1 && m.Algo[AllReduce][Tree] == 0 }},
		{"", false, "", func(m tuning.EnableMatrix) bool { return m.Algo[AllReduce][Ring] == 0 && m.Algo[AllReduce][Tree] == 0 }},
		{"allreduce:tree", false, "", func(m tuning.EnableMatrix) bool { return m.Algo[AllReduce][Tree] == 0 && m.Algo[AllReduce][Ring] == 0 }},
		{"^nvls,collnetdirect", false, "", func(m tuning.EnableMatrix) bool {
			return m.Algo[AllReduce][NVLS] == 0 && m.Algo[AllReduce][CollNetDirect] == 0 && m.Algo[AllReduce][Ring] == 1
		}},
	}
	for _, c := range cases {
		m, _, warn := ParseAlgoProto(Env{"NCCL_ALGO": c.algo}, c.perFunc, NumAlgos)
		if c.warn == "" && warn != "" {
			t.Errorf("NCCL_ALGO=%q (perFunction %v): unexpected %q", c.algo, c.perFunc, warn)
		}
		if c.warn != "" && !strings.Contains(warn, c.warn) {
			t.Errorf("NCCL_ALGO=%q: warning %q, want %q", c.algo, warn, c.warn)
		}
		if c.check != nil && warn == "" && !c.check(m) {
			t.Errorf("NCCL_ALGO=%q (perFunction %v): matrix %v", c.algo, c.perFunc, m.Algo)
		}
	}
	// NCCL_PROTO=Simple sets LL128 to 0 (not auto): the LL128 rule is bypassed.
	m, _, _ := ParseAlgoProto(Env{"NCCL_PROTO": "LL128"}, true, NumAlgos)
	if m.Proto[AllReduce][LL128] != 1 || m.Proto[AllReduce][LL] != 0 {
		t.Errorf("NCCL_PROTO=LL128: %v", m.Proto[AllReduce])
	}
}

func FuzzParseAlgoProto(f *testing.F) {
	for _, s := range []string{"Ring", "^Ring", "allreduce:tree;allgather:ring", ";", "::", "^", "a:b:c", "Ring,,Tree", "ALLREDUCE:^nvls"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, perFunc bool) {
		m, logs, warn := ParseAlgoProto(Env{"NCCL_ALGO": s, "NCCL_PROTO": s}, perFunc, NumAlgos)
		for f := range NumFuncs {
			for a := range NumAlgos {
				if v := m.Algo[f][a]; v != 0 && v != 1 {
					t.Fatalf("algo flag %d", v)
				}
			}
			for p := range NumProtos {
				if v := m.Proto[f][p]; v < 0 || v > 2 {
					t.Fatalf("proto flag %d", v)
				}
			}
		}
		if warn != "" && !perFunc {
			t.Fatalf("2.22 grammar never rejects: %q", warn)
		}
		if warn != "" && !strings.Contains(warn, strconv.Quote(s)) {
			t.Fatalf("warning %q does not quote the value", warn)
		}
		if len(logs) == 0 {
			t.Fatal("no log line for a set variable")
		}
	})
}

func FuzzParseSystem(f *testing.F) {
	f.Add([]byte(`{"preset":"dgx-h100","nodes":2,"sharp":true}`))
	f.Add([]byte("preset: v100x4\n"))
	f.Add([]byte(`{"nodes":[{"cpu":{"arch":"x86_64"},"gpus":[{"dev":0,"sm":90}]}]}`))
	f.Add([]byte(`{"nodes":[{"gpus":[{"sm":9000}]}]}`))
	f.Add([]byte("nodes:\n  - gpus: [{sm: 80}]\n    libs: [{path: /x.so, net_symbols: [0]}]\n"))
	// hostile inputs: a YAML bomb, duplicate GPU devs (valid: NCCL refuses
	// them at init), negative links and
	// speeds, a long conf value, nodes past the limit
	f.Add([]byte("a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"))
	f.Add([]byte(`{"nodes":[{"gpus":[{"dev":0,"sm":90},{"dev":0,"sm":90}]}]}`))
	f.Add([]byte(`{"nodes":[{"gpus":[{"dev":0,"sm":90,"nvlinks":-18}],"nics":[{"name":"mlx5_0","port":-1,"speed_mbps":-400000}]}]}`))
	f.Add([]byte("preset: dgx-h100\nconf:\n  /etc/nccl.conf: {NCCL_IB_HCA: \"" + strings.Repeat("mlx5_0:1,", 200) + "\"}\n"))
	f.Add([]byte(`{"preset":"dgx-h100","nodes":9223372036854775807}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sys, err := ParseSystem("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := sys.Validate(); err != nil {
			t.Fatalf("accepted an invalid system: %v", err)
		}
		// and the engine runs on whatever was accepted
		if len(sys.Nodes) > 64 {
			return
		}
		c, err := Init(MustLoad(V2_28_9), sys, nil)
		if err != nil {
			t.Fatalf("init on an accepted system: %v", err)
		}
		if _, _, err := c.Select(Op{Func: AllReduce, Count: 1024, DataType: Float32}); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"1MiB", "4KiB", "1.5G", "1048576", "3 bytes", "0", "9999999999TiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err == nil && n < 0 {
			t.Fatalf("ParseBytes(%q) = %d", s, n)
		}
		if err == nil && n > 0 {
			if m, err := ParseBytes(strconv.FormatInt(n, 10)); err != nil || m != n {
				t.Fatalf("%q -> %d does not round-trip", s, n)
			}
		}
	})
}

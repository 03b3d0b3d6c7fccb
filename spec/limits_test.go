package spec

import (
	"strings"
	"testing"
)

func TestCheckShape(t *testing.T) {
	for _, c := range []struct {
		nodes, gpus int
		ok          bool
	}{
		{1, 1, true}, {MaxNodes, 8, true}, {MaxRanks / 72, 72, true},
		{0, 8, false}, {MaxNodes + 1, 1, false}, {1, 0, false}, {1, 73, false}, {MaxNodes, 72, false}, {1 << 62, 8, false},
	} {
		if err := CheckShape(c.nodes, c.gpus); (err == nil) != c.ok {
			t.Errorf("CheckShape(%d, %d) = %v, want ok %v", c.nodes, c.gpus, err, c.ok)
		}
	}
}

// --count 2305843009213693952 overflowed to a negative byte count and 2^50
// elements answered "ok" with no algorithm; -5 passed through.
func TestCheckCount(t *testing.T) {
	for _, c := range []struct {
		count int64
		dt    DataType
		ok    bool
	}{
		{0, Float32, true}, {MaxOpBytes / 4, Float32, true}, {MaxOpBytes, Int8, true},
		{-5, Float32, false}, {MaxOpBytes/4 + 1, Float32, false}, {1 << 50, Float32, false}, {2305843009213693952, Float32, false}, {1<<63 - 1, Float64, false},
	} {
		if err := CheckCount(c.count, c.dt); (err == nil) != c.ok {
			t.Errorf("CheckCount(%d, %s) = %v, want ok %v", c.count, c.dt, err, c.ok)
		}
	}
	comm, err := Init(MustLoad(V2_28_9), mustPreset("dgx-h100", PresetOptions{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := comm.Select(Op{Func: AllReduce, Count: 1 << 50, DataType: Float32}); err == nil {
		t.Error("Select took 2^50 float32 elements")
	}
	if _, err := OpFromBytes(AllReduce, 2*MaxOpBytes, Float32, Sum, 0); err == nil {
		t.Error("OpFromBytes took 2 TiB")
	}
}

// Documented maxima must hold: a preset at MaxNodes builds; one node more
// is refused before anything is built.
func TestPresetNodeLimit(t *testing.T) {
	if _, err := Preset("dgx-h100", PresetOptions{Nodes: MaxNodes}); err != nil {
		t.Errorf("MaxNodes: %v", err)
	}
	for _, n := range []int{MaxNodes + 1, 131072, -1} {
		if _, err := Preset("dgx-h100", PresetOptions{Nodes: n}); err == nil {
			t.Errorf("%d nodes accepted", n)
		}
	}
}

func TestValidateRefusesNonsense(t *testing.T) {
	for name, sys := range map[string]System{
		"dev whole and partitioned": {Nodes: []Node{{GPUs: []GPU{{Dev: 0, SM: 90, MLOPart: new(0)}, {Dev: 0, SM: 90, MLOPart: new(1)}, {Dev: 0, SM: 90}}}}},
		"73 GPUs":                   {Nodes: []Node{{GPUs: make73()}}},
		"negative links":            {Nodes: []Node{{GPUs: []GPU{{Dev: 0, SM: 90, NVLinks: -2}}}}},
		"negative speed":            {Nodes: []Node{{GPUs: []GPU{{SM: 90}}, NICs: []NIC{{Name: "mlx5_0", SpeedMbps: -400000}}}}},
	} {
		if err := sys.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for field, lib := range map[string]Library{
		"profiler_symbols: version 0":          {Path: "libnccl-profiler.so", ProfilerSymbols: []int{0}},
		"gin_symbols: version 11 listed twice": {Path: "libnccl-net.so", GinSymbols: []int{11, 12, 11}},
		"rma_symbols: version 100":             {Path: "libnccl-rma.so", RmaSymbols: []int{100}},
		"gin: devices -1":                      {Path: "libnccl-gin.so", GinSymbols: []int{13}, Gin: &GinBackend{Devices: -1}},
		"rma: devices 1025":                    {Path: "libnccl-rma.so", RmaSymbols: []int{14}, Rma: &GinBackend{Devices: 1025}},
	} {
		sys := System{Nodes: []Node{{GPUs: []GPU{{SM: 90}}, Libs: []Library{lib}}}}
		if err := sys.Validate(); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: got %v, want an error naming it", field, err)
		}
	}
	ok := System{Nodes: []Node{{GPUs: []GPU{{SM: 90}}, NICs: []NIC{{Name: "eth0", SpeedMbps: -1}}}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("speed -1 (unknown, as NICs report it): %v", err)
	}
}

func make73() []GPU {
	g := make([]GPU, 73)
	for i := range g {
		g[i] = GPU{Dev: i, SM: 90}
	}
	return g
}

func TestAssignmentsBounded(t *testing.T) {
	if _, err := ParseAssignments([]string{"NCCL_IB_HCA=" + strings.Repeat("x", MaxValueBytes+1)}); err == nil {
		t.Error("a value over MaxValueBytes accepted")
	}
	if _, err := ParseAssignments([]string{strings.Repeat("N", MaxEnvName+1) + "=1"}); err == nil {
		t.Error("a name over MaxEnvName accepted")
	}
	if _, err := ParseCalls("deep", []byte(strings.Repeat("groupStart\n", MaxGroupDepth+1))); err == nil || !strings.Contains(err.Error(), "deep:1025") {
		t.Errorf("groupStart nested beyond MaxGroupDepth: %v", err)
	}
}

// TestCheckSizeEnv: a buffer or chunk size NCCL would take as zero or
// negative bytes is refused by name and range where the release reads it;
// NCCL_PARAM's unset (-2), an empty value and an overflow keep the default.
func TestCheckSizeEnv(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    Version
		env  Env
		want string // "" = Init succeeds
	}{
		{V2_28_9, Env{"NCCL_BUFFSIZE": "0"}, `NCCL_BUFFSIZE="0": NCCL takes it as 0 bytes`},
		{V2_28_9, Env{"NCCL_BUFFSIZE": "-2"}, ""},
		{V2_28_9, Env{"NCCL_LL_BUFFSIZE": "-1"}, "expected 1 to 2147483647 bytes, or -2 (unset)"},
		{V2_28_9, Env{"NCCL_LL128_BUFFSIZE": "4294967296"}, "NCCL takes it as 0 bytes"},
		{V2_28_9, Env{"NCCL_P2P_NVL_CHUNKSIZE": "abc"}, `NCCL_P2P_NVL_CHUNKSIZE="abc": NCCL takes it as 0 bytes`},
		{V2_28_9, Env{"NCCL_P2P_NET_CHUNKSIZE": ""}, ""},
		{V2_28_9, Env{"NCCL_P2P_PCI_CHUNKSIZE": "99999999999999999999"}, ""},
		{V2_28_9, Env{"NCCL_NVLS_CHUNKSIZE": "0"}, "NCCL_NVLS_CHUNKSIZE=\"0\": NCCL takes it as 0 bytes, a buffer or chunk NCCL cannot use (gatesim does not model the failure); expected 1 to 2147483647 bytes"},
		{V2_20_5, Env{"NCCL_NVLS_CHUNKSIZE": "0"}, ""}, // read from 2.21.5
		{V2_30_7, Env{"NCCL_NVLSTREE_MAX_CHUNKSIZE": "-2"}, ""},
		{V2_30_7, Env{"NCCL_NVLSTREE_MAX_CHUNKSIZE": "0"}, "NCCL_NVLSTREE_MAX_CHUNKSIZE"},
		{V2_19_4, Env{"NCCL_NVLSTREE_MAX_CHUNKSIZE": "0"}, ""}, // read from 2.20.3
		{V2_28_9, Env{"NCCL_NVLS_CHUNKSIZE": "65536"}, ""},
	} {
		_, err := Init(MustLoad(c.v), sys, c.env)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v", c.v, c.env, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v: error %v, want one with %q", c.v, c.env, err, c.want)
		}
	}
}

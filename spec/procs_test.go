package spec

import (
	"strings"
	"testing"
)

// initVerdict initialises a preset under procs and returns one rule's
// verdict.
func initVerdict(t *testing.T, v Version, preset string, procs Procs, env Env, id RuleID) (*Comm, Verdict) {
	t.Helper()
	rs, err := Load(v)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := Preset(preset, PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sys.Procs = procs
	c, err := Init(rs, sys, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, vd := range c.Trace {
		if vd.Rule == id {
			return c, vd
		}
	}
	t.Fatalf("%s: no verdict of %s", v, id)
	return nil, Verdict{}
}

// TestP2PConnectionLines: the path every intra-node connection line
// names, per release and process layout (G-TRANSPORT-CONN-1), and the
// first line of ring channel 0.
func TestP2PConnectionLines(t *testing.T) {
	for _, c := range []struct {
		name   string
		v      Version
		preset string
		procs  Procs
		env    Env
		path   string
		line   string // a prefix of one of the verdict's lines
	}{
		{"one process per GPU, cuMem", V2_28_9, "h200x2", ProcsPerGPU, nil, "P2P/CUMEM", "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"},
		{"one process drives both GPUs", V2_28_9, "h200x2", ProcsPerNode, nil, "P2P/direct pointer", "Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer"},
		{"the last rank sends back to the first on one node", V2_28_9, "h200x2", ProcsPerNode, nil, "P2P/direct pointer", "Channel 00/0 : 1[1] -> 0[0] via P2P/direct pointer"},
		{"NCCL_P2P_DIRECT_DISABLE", V2_28_9, "h200x2", ProcsPerNode, Env{"NCCL_P2P_DIRECT_DISABLE": "1"}, "P2P/CUMEM", ""},
		{"copy engine: never direct", V2_28_9, "h200x2", ProcsPerNode, Env{"NCCL_P2P_USE_CUDA_MEMCPY": "1"}, "P2P/CUMEM/CE", ""},
		{"cuMem off: legacy IPC", V2_22_3, "h200x2", ProcsPerGPU, Env{"NCCL_CUMEM_ENABLE": "0"}, "P2P/IPC", ""},
		{"2.19.1: cuMem keeps a process's ranks off direct pointers", V2_19_1, "h200x2", ProcsPerNode, Env{"NCCL_CUMEM_ENABLE": "1"}, "P2P/CUMEM", ""},
		{"2.19.3: direct with cuMem too", V2_19_3, "h200x2", ProcsPerNode, Env{"NCCL_CUMEM_ENABLE": "1"}, "P2P/direct pointer", ""},
		{"sm80 over NVLink reads", V2_22_3, "dgx-a100", ProcsPerNode, nil, "P2P/direct pointer/read", ""},
		{"NCCL_P2P_READ_ENABLE=0", V2_22_3, "dgx-a100", ProcsPerGPU, Env{"NCCL_P2P_READ_ENABLE": "0"}, "P2P/CUMEM", ""},
		{"2.18 names GPUs by bus id", V2_18_1, "h200x2", ProcsPerNode, nil, "P2P/direct pointer", "Channel 00/0 : 0["},
		{"SHM", V2_28_9, "v100x4", ProcsPerNode, Env{"NCCL_P2P_DISABLE": "1"}, "SHM/direct/direct", "Channel 00 : "},
		{"SHM over the copy engine on the send side", V2_28_9, "v100x4", ProcsPerGPU, Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_USE_CUDA_MEMCPY": "1"}, "SHM/CE/direct", ""},
		{"2.30.7 SHM line", V2_30_7, "v100x4", ProcsPerGPU, Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_USE_CUDA_MEMCPY": "1"}, "SHM/direct", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, vd := initVerdict(t, c.v, c.preset, c.procs, c.env, "G-TRANSPORT-CONN-1")
			if !strings.HasSuffix(vd.Why, "via "+c.path) {
				t.Errorf("why %q: want the path %s", vd.Why, c.path)
			}
			if len(vd.Log) == 0 {
				t.Fatalf("no connection line")
			}
			for _, l := range vd.Log {
				if !strings.HasSuffix(l, " via "+c.path) {
					t.Errorf("line %q: want via %s", l, c.path)
				}
			}
			if c.line != "" && !slicesHasPrefix(vd.Log, c.line) {
				t.Errorf("lines %q: want one starting %q", vd.Log, c.line)
			}
		})
	}
}

func slicesHasPrefix(lines []string, p string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// TestBusIDConnectionLine: 2.18 prints the GPU's bus id in hex where
// later releases print its NVML index.
func TestBusIDConnectionLine(t *testing.T) {
	_, vd := initVerdict(t, V2_18_1, "h200x2", ProcsPerNode, nil, "G-TRANSPORT-CONN-1")
	_, vd19 := initVerdict(t, V2_19_1, "h200x2", ProcsPerNode, nil, "G-TRANSPORT-CONN-1")
	if len(vd.Log) == 0 || len(vd19.Log) == 0 || vd.Log[0] == vd19.Log[0] {
		t.Fatalf("2.18.1 %q and 2.19.1 %q: want the GPUs named differently", vd.Log, vd19.Log)
	}
	if strings.Contains(vd.Log[0], "0[0] -> 1[1]") {
		t.Errorf("2.18.1 line %q names NVML indices, want bus ids", vd.Log[0])
	}
}

// TestCheckP2PType: the "Check P2P Type" line per release (G-PROC-1).
func TestCheckP2PType(t *testing.T) {
	for _, c := range []struct {
		v     Version
		procs Procs
		want  string
	}{
		{V2_23_4, ProcsPerNode, ""},
		{V2_24_3, ProcsPerNode, "Check P2P Type intraNodeP2pSupport 1 directMode 1"},
		{V2_28_3, ProcsPerGPU, "Check P2P Type isAllDirectP2p 1 directMode 0"},
		{V2_28_9, ProcsPerNode, "Check P2P Type isAllDirectP2p 1 directMode 1 isAllCudaP2p 1"},
	} {
		c0, vd := initVerdict(t, c.v, "h200x2", c.procs, nil, "G-PROC-1")
		got := strings.Join(vd.Log, "\n")
		if got != c.want {
			t.Errorf("%s %s: log %q, want %q", c.v, c.procs, got, c.want)
		}
		if c0.SharedProcess != (c.procs == ProcsPerNode) {
			t.Errorf("%s %s: SharedProcess %v", c.v, c.procs, c0.SharedProcess)
		}
	}
}

// procsComm is a one-node preset communicator under procs.
func procsComm(t *testing.T, v Version, preset string, procs Procs, env Env) *Comm {
	t.Helper()
	sys, err := Preset(preset, PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sys.Procs = procs
	if env == nil {
		env = Env{}
	}
	if preset == "h200x2" {
		env["NCCL_NVLS_ENABLE"] = "0"
	}
	c, err := Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSharedProcessRegistration: ranks sharing a process register no NVLS
// buffer from 2.19.1 (unless NCCL_SINGLE_PROC_MEM_REG_ENABLE, 2.28.3+),
// and from 2.23.4 no buffer only legacy CUDA IPC can export.
func TestSharedProcessRegistration(t *testing.T) {
	ar := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	reg := func(a Alloc) GroupOp { return GroupOp{Op: ar, Buffers: BuffersRegistered, Alloc: a} }
	legacy := Env{"NCCL_LEGACY_CUDA_REGISTER": "1"}
	single := Env{"NCCL_SINGLE_PROC_MEM_REG_ENABLE": "1"}
	for _, tc := range []struct {
		v      Version
		preset string
		procs  Procs
		env    Env
		g      GroupOp
		want   string // algo/proto lo..hi and G-REG-SKIP-1's verdict
	}{
		// NVLS on one DGX H100: 4 channels registered, 16 not
		{V2_28_9, "dgx-h100", ProcsPerGPU, nil, reg(AllocCuMem), "NVLS/Simple 0..3 skip"},
		{V2_28_9, "dgx-h100", ProcsPerNode, nil, reg(AllocCuMem), "NVLS/Simple 0..15 fail"},
		{V2_28_9, "dgx-h100", ProcsPerNode, single, reg(AllocCuMem), "NVLS/Simple 0..3 skip"},
		{V2_28_3, "dgx-h100", ProcsPerNode, single, reg(AllocCuMem), "NVLS/Simple 0..3 skip"},
		{V2_27_7, "dgx-h100", ProcsPerNode, single, reg(AllocCuMem), "NVLS/Simple 0..15 fail"},
		{V2_19_3, "dgx-h100", ProcsPerNode, nil, reg(AllocCuMem), "NVLS/Simple 0..15 fail"},
		{V2_19_3, "dgx-h100", ProcsPerGPU, nil, reg(AllocCuMem), "NVLS/Simple 0..3 skip"},
		// IPC on 2 × H200: cudaMalloc buffers under NCCL_LEGACY_CUDA_REGISTER
		{V2_28_9, "h200x2", ProcsPerGPU, legacy, reg(AllocCudaMalloc), "Ring/Simple 0..15 skip"},
		{V2_28_9, "h200x2", ProcsPerNode, legacy, reg(AllocCudaMalloc), "Ring/Simple 0..23 fail"},
		{V2_23_4, "h200x2", ProcsPerNode, nil, reg(AllocCudaMalloc), "Ring/Simple 0..23 fail"},
		{V2_23_4, "h200x2", ProcsPerGPU, nil, reg(AllocCudaMalloc), "Ring/Simple 0..15 skip"},
		// cuMem buffers export their handle in one process too
		{V2_28_9, "h200x2", ProcsPerNode, nil, reg(AllocCuMem), "Ring/Simple 0..15 skip"},
	} {
		c := procsComm(t, tc.v, tc.preset, tc.procs, tc.env)
		if got := ruleSummary(t, c, tc.g, Launch{}, "G-REG-SKIP-1"); got != tc.want {
			t.Errorf("%s %s %s %v alloc %s: got %s, want %s", tc.v, tc.preset, tc.procs, tc.env, tc.g.Alloc, got, tc.want)
		}
	}
}

// TestSharedProcessSymmetricFallback: from 2.29.2 a symmetric LL kernel on
// buffers outside windows goes back to the cost table when one thread
// drives several GPUs, unless NCCL_SINGLE_PROC_MEM_REG_ENABLE=1; from
// 2.29.7 window buffers keep it.
func TestSharedProcessSymmetricFallback(t *testing.T) {
	ar := Op{Func: AllReduce, Count: 256, DataType: Float32, RedOp: Sum}
	forced := func(extra Env) Env {
		e := Env{"NCCL_SYM_KERNEL": "AllReduce_AGxLL_R"}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	for _, tc := range []struct {
		v     Version
		procs Procs
		env   Env
		back  bool
	}{
		{V2_30_7, ProcsPerGPU, forced(nil), false},
		{V2_30_7, ProcsPerNode, forced(nil), false}, // windows keep it
		{V2_29_2, ProcsPerNode, forced(nil), false}, // forced on windows keeps it
		{V2_29_2, ProcsPerNode, nil, true},          // unforced: any LL kernel falls back
		{V2_29_2, ProcsPerNode, Env{"NCCL_SINGLE_PROC_MEM_REG_ENABLE": "1"}, false},
	} {
		c := procsComm(t, tc.v, "h200x2", tc.procs, tc.env)
		alone, _, err := c.Select(ar)
		if err != nil {
			t.Fatal(err)
		}
		if tc.env == nil && alone.Proto != LL {
			t.Fatalf("%s: the cost table alone picks %s: the case needs LL", tc.v, alone.Proto)
		}
		d, err := c.SelectGroup([]GroupOp{{Op: ar, Buffers: BuffersWindow}}, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Ops[0].Kernel == ""; got != tc.back {
			t.Errorf("%s %s %v: kernel %q, fallback %q: want the fallback %v", tc.v, tc.procs, tc.env, d.Ops[0].Kernel, d.Choices[0].SymFallback, tc.back)
		}
		if tc.back && !strings.Contains(d.Choices[0].SymFallback, "isOneThreadMultiGpus") {
			t.Errorf("%s: fallback %q: want one thread driving several GPUs", tc.v, d.Choices[0].SymFallback)
		}
	}
}

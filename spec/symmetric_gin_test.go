package spec

import (
	"strings"
	"testing"
)

// TestSymmetricGinKernels: on two DGX H100 nodes with the internal IB
// GIN, window buffers take the GIN kernels of the release (none before
// 2.29.2), with the [Symmetric] line; without GIN (NCCL_GIN_TYPE naming
// no type) or with NCCL_SYM_GIN_KERNELS_ENABLE=0 they go to the cost
// table, and G-SEL-SIDE-1 says why: the release's kernels stay inside one
// node, GIN does not carry symmetric memory, or no GIN kernel takes the
// operation.
func TestSymmetricGinKernels(t *testing.T) {
	ag := Op{Func: AllGather, Count: 32 << 20, DataType: Bfloat16}
	rs := Op{Func: ReduceScatter, Count: 32 << 20, DataType: Bfloat16, RedOp: Sum}
	ar := Op{Func: AllReduce, Count: 32 << 20, DataType: Bfloat16, RedOp: Sum}
	for _, c := range []struct {
		v      Version
		env    Env
		op     Op
		kernel string
		blocks int
		why    string
	}{
		{V2_27_3, nil, ar, "", 0, "inside one node only"},
		{V2_28_9, nil, ag, "", 0, "inside one node only"},
		{V2_29_2, nil, ag, "AllGather_GinHier_MCRing", 2, ""},
		{V2_29_2, nil, rs, "", 0, "none takes ReduceScatter"},
		{V2_29_7, nil, ag, "AllGather_RailRing_LsaSTMC", 2, ""},
		{V2_29_7, nil, rs, "ReduceScatter_RailA2A_LsaLDMC", 7, ""},
		{V2_29_7, nil, ar, "", 0, "none takes AllReduce"},
		{V2_29_7, Env{"NCCL_SYM_GIN_KERNELS_ENABLE": "0"}, rs, "", 0, "none takes ReduceScatter"},
		{V2_29_7, Env{"NCCL_GIN_TYPE": "1"}, ag, "", 0, "needs GIN"},
		{V2_29_7, Env{"NCCL_SYM_CTAS": "5"}, ag, "AllGather_RailRing_LsaSTMC", 5, ""},
		{V2_30_7, nil, rs, "ReduceScatter_RailA2A_LsaLDMC", 16, ""},
		{V2_30_7, nil, ar, "", 0, "none takes AllReduce"},
		{V2_30_7, Env{"NCCL_SYM_RS_GIN_CHUNK_SIZE": "1048576"}, rs, "ReduceScatter_RailA2A_LsaLDMC", 16, ""},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		comm, err := Init(MustLoad(c.v), sys, c.env)
		if err != nil || comm.Err != nil {
			t.Fatal(err, comm.Err)
		}
		g, err := comm.SelectGroup([]GroupOp{{Op: c.op, Buffers: BuffersWindow}}, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		d := g.Ops[0]
		if d.Kernel != c.kernel || c.kernel != "" && d.NChannels != c.blocks {
			t.Errorf("%s %v %v: kernel %q on %d blocks, want %q on %d", c.v, c.env, c.op.Func, d.Kernel, d.NChannels, c.kernel, c.blocks)
		}
		if c.why != "" {
			var why string
			for _, v := range g.Traces[0] {
				if v.Rule == "G-SEL-SIDE-1" {
					why = v.Why
				}
			}
			if !strings.Contains(why, c.why) || !strings.Contains(why, "the cost table decides") || d.Algo == AlgoNone {
				t.Errorf("%s %v %v: %s/%s, G-SEL-SIDE-1 says %q, want %q and the cost table", c.v, c.env, c.op.Func, d.Algo, d.Proto, why, c.why)
			}
		}
		if c.kernel != "" && (len(g.Lines) != 1 || !strings.Contains(g.Lines[0], "[Symmetric]: ") || !strings.Contains(g.Lines[0], "Kernel "+c.kernel+" ")) {
			t.Errorf("%s %v: lines %q", c.v, c.op.Func, g.Lines)
		}
	}
}

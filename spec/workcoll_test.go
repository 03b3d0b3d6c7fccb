package spec

import "testing"

// cField is one member of a C struct on an LP64 host: its size and
// alignment in bytes.
type cField struct{ size, align int }

// cSizeof lays fields out as a C compiler does (each at the next multiple
// of its alignment) and rounds the total up to the struct's alignment.
func cSizeof(structAlign int, fields ...cField) int {
	off := 0
	for _, f := range fields {
		off = (off + f.align - 1) / f.align * f.align
		off += f.size
	}
	return (off + structAlign - 1) / structAlign * structAlign
}

// TestWorkCollSize holds sched.workCollBytes and
// NCCL_MAX_DEV_WORK_BATCH_COLLS (NCCL_MAX_DEV_WORK_BATCH_BYTES /
// sizeof(struct ncclDevWorkColl)) for every release from 2.22.3 against
// the struct's members as each tag declares them in src/include/device.h:
// the bit fields channelLo..profilerEnabled fill one uint32_t at every
// tag, the cbd/collnet union is 32 bytes (three size_t and one uint64_t of
// bit fields), and the struct is alignas(16).
func TestWorkCollSize(t *testing.T) {
	word := cField{4, 4}
	ptr := cField{8, 8}
	union := cField{32, 8}
	pad := func(n int) cField { return cField{n, 1} }
	// v2.22.3-1: bits, root, recvbuff, sendbuff, union, redOpArg
	r22 := cSizeof(16, word, word, ptr, ptr, union, ptr)
	// v2.23.4-1 adds sendbuffOffset, recvbuffOffset, sendbuffRmtAddrs and
	// recvbuffRmtAddrs after sendbuff
	r23 := cSizeof(16, word, word, ptr, ptr, ptr, ptr, ptr, ptr, union, ptr)
	// v2.30.3-1 pads: uint8_t pad1[12] after root, uint64_t pad0 after
	// sendbuff, uint8_t pad2[8] at the end
	r30 := cSizeof(16, word, word, pad(12), ptr, ptr, ptr, ptr, ptr, ptr, ptr, union, ptr, pad(8))
	if r22 != 64 || r23 != 96 || r30 != 128 {
		t.Fatalf("layouts: %d, %d, %d bytes; the struct members above lay out as 64, 96 and 128", r22, r23, r30)
	}
	want := func(v Version) int {
		switch {
		case v >= V2_30_3:
			return r30
		case v >= V2_23_4:
			return r23
		}
		return r22
	}
	n := 0
	for _, v := range Releases {
		if v < V2_22_3 {
			continue // before the enqueue rewrite the limit is NCCL_MAX_WORK_ELEMENTS
		}
		n++
		tc := MustLoad(v).Tuning
		if tc.WorkCollBytes != want(v) {
			t.Errorf("%s: sched.workCollBytes %d, want sizeof(struct ncclDevWorkColl) = %d", v, tc.WorkCollBytes, want(v))
		}
		if colls := tc.MaxDevWorkBatchBytes / want(v); tc.MaxDevWorkBatchColls != colls {
			t.Errorf("%s: NCCL_MAX_DEV_WORK_BATCH_COLLS %d, want %d/%d = %d", v, tc.MaxDevWorkBatchColls, tc.MaxDevWorkBatchBytes, want(v), colls)
		}
	}
	if n < 21 {
		t.Fatalf("%d releases from 2.22.3 on, want 21", n)
	}
}

// TestWorkCollBatchDecision: the latency of every algorithm but Ring
// counts ⌈numPipeOps / NCCL_MAX_DEV_WORK_BATCH_COLLS⌉ work batches, and
// ncclPrepareTasks gives an aggregate numPipeOps = ⌈nTasks / nChannels⌉.
// 176 AllReduces of 512 KiB in one group on two DGX A100 nodes (16
// channels) have numPipeOps 11: 2.26.6's 96-byte work struct (10 per
// batch) counts Tree's latency twice and picks Tree/LL128; with 2.22.3's
// 64-byte struct (16 per batch) it counts once and Simple wins.
func TestWorkCollBatchDecision(t *testing.T) {
	sys, err := Preset("dgx-a100", PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	op := GroupOp{Op: Op{Func: AllReduce, Count: 128 << 10, DataType: Float32, RedOp: Sum}}
	for _, tc := range []struct {
		colls int
		want  string
	}{{10, "Tree/LL128"}, {16, "Tree/Simple"}} {
		rs := MustLoad(V2_26_6).clone(V2_26_6)
		if tc.colls == 16 {
			rs.Tuning.WorkCollBytes, rs.Tuning.MaxDevWorkBatchColls = 64, 16
		} else if rs.Tuning.MaxDevWorkBatchColls != tc.colls {
			t.Fatalf("2.26.6: NCCL_MAX_DEV_WORK_BATCH_COLLS %d, want %d", rs.Tuning.MaxDevWorkBatchColls, tc.colls)
		}
		c, err := Init(rs, sys, Env{})
		if err != nil || c.Err != nil {
			t.Fatalf("init: %v %v", err, c.Err)
		}
		g, err := c.SelectGroup([]GroupOp{op}, Launch{Agg: 176})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range g.Ops {
			if got := d.Algo.String() + "/" + d.Proto.String(); got != tc.want {
				t.Fatalf("%d per batch: op %d %s, want %s (numPipeOps %d)", tc.colls, i, got, tc.want, g.Choices[i].NumPipeOps)
			}
		}
	}
}

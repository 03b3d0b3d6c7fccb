package spec

import (
	"fmt"
	"slices"
	"testing"
)

// TestSymmetricListOrder: from 2.29.2 ncclMakeSymmetricTaskList takes
// every task ncclSymkAvailable allows out of the sorter's list, whatever
// its buffers, and sends those outside windows straight back after the
// tasks it never listed, each bin smallest first; the cost table's LIFO
// binning then walks them in the sorter's order. So on a communicator with
// symmetric support the equal operations of a group take the channel
// ranges in reverse call order, and a bin that came back starts at its
// largest task and aggregates everything below 4× of it. Before 2.29.2,
// or without symmetric support (NCCL_WIN_ENABLE=0), the sorter's order
// stands. 2 × H200, NVLS off.
func TestSymmetricListOrder(t *testing.T) {
	ar := func(n int64, dt DataType) GroupOp {
		return GroupOp{Op: Op{Func: AllReduce, Count: n, DataType: dt, RedOp: Sum}}
	}
	m4 := []GroupOp{ar(2<<20, Float32), ar(2<<20, Float32), ar(2<<20, Float32), ar(2<<20, Float32)}
	mixed := []GroupOp{ar(32<<20, Bfloat16), ar(8<<20, Bfloat16)}
	// a Broadcast is never listed: it keeps its place ahead of the
	// AllReduces that came back
	withBcast := []GroupOp{ar(2<<20, Float32), {Op: Op{Func: Broadcast, Count: 1 << 20, DataType: Float32, RedOp: Sum}}}
	noWin := Env{"NCCL_WIN_ENABLE": "0"}
	for _, v := range []Version{V2_28_9, V2_29_2, V2_29_3, V2_29_7, V2_30_3, V2_30_7} {
		listed := v >= V2_29_2
		for _, tc := range []struct {
			name string
			env  Env
			ops  []GroupOp
			// lo is the ChannelLo of each operation; agg the first
			// operation's aggregate
			lo  []int
			agg []int
		}{
			{"m4", nil, m4, pick(listed, []int{17, 11, 5, 0}, []int{0, 5, 11, 17}), []int{0, 1, 2, 3}},
			{"m4/no-windows", noWin, m4, []int{0, 5, 11, 17}, []int{0, 1, 2, 3}},
			{"mixed", nil, mixed, nil, pick(listed, []int{0, 1}, nil)},
			{"mixed/no-windows", noWin, mixed, nil, nil},
			{"bcast", nil, withBcast, pick(listed, []int{4, 0}, []int{0, 18}), nil},
		} {
			t.Run(fmt.Sprintf("%s/%s", v, tc.name), func(t *testing.T) {
				c := h200x2Comm(t, v, tc.env)
				g, err := c.SelectGroup(tc.ops, Launch{})
				if err != nil {
					t.Fatal(err)
				}
				if g.Err != nil {
					t.Fatalf("group error %v", g.Err)
				}
				var lo []int
				for i := range g.Choices {
					ch := &g.Choices[i]
					if ch.SidePath != "" || ch.Kernel != "" {
						t.Fatalf("op %d: side path %q kernel %q: want the cost table", i, ch.SidePath, ch.Kernel)
					}
					lo = append(lo, ch.ChannelLo)
				}
				if tc.lo != nil && !slices.Equal(lo, tc.lo) {
					t.Errorf("channel starts %v, want %v", lo, tc.lo)
				}
				if got := g.Choices[0].Aggregate; !slices.Equal(got, tc.agg) {
					t.Errorf("op 0 aggregate %v, want %v", got, tc.agg)
				}
			})
		}
	}
}

func pick[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// TestCopyEnginePlansFirst: ncclLaunchPrepare drains the copy-engine tasks
// first, one plan each in call order, then the symmetric plans, then the
// cost table's. 2 × H200 under NCCL_CTA_POLICY=2 (ZERO): a window
// AllGather goes to the copy engines, a window AllReduce to a symmetric
// kernel.
func TestCopyEnginePlansFirst(t *testing.T) {
	win := func(f Func) GroupOp {
		return GroupOp{Op: Op{Func: f, Count: 1 << 20, DataType: Float32, RedOp: Sum}, Buffers: BuffersWindow}
	}
	plain := GroupOp{Op: Op{Func: AllReduce, Count: 1 << 20, DataType: Float32, RedOp: Sum}}
	for _, v := range []Version{V2_28_3, V2_28_9, V2_29_2, V2_30_7} {
		t.Run(v.String(), func(t *testing.T) {
			c := h200x2Comm(t, v, Env{"NCCL_CTA_POLICY": "2"})
			g, err := c.SelectGroup([]GroupOp{plain, win(AllReduce), win(AllGather), win(AllGather)}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Err != nil {
				t.Fatalf("group error %v", g.Err)
			}
			side := []string{"", "symmetric", "copy-engine", "copy-engine"}
			for i, want := range []int{3, 2, 0, 1} {
				ch := &g.Choices[i]
				if ch.SidePath != side[i] {
					t.Fatalf("op %d: side path %q, want %q", i, ch.SidePath, side[i])
				}
				if ch.Plan != want {
					t.Errorf("op %d (%s): plan %d, want %d", i, side[i], ch.Plan, want)
				}
			}
			if g.Plans != 4 {
				t.Errorf("%d plans, want 4", g.Plans)
			}
		})
	}
}

// TestSymmetricAvg: from 2.30.3 the symmetric task list reads ncclAvg as
// SumPostDiv whatever the type (symkRedOp), so a float Avg in windows
// takes a symmetric kernel, binned apart from the Sums; before, a float
// Avg is PreMulSum, which no symmetric kernel implements. Double stays
// outside. 2 × H200, NVLS off.
func TestSymmetricAvg(t *testing.T) {
	win := func(r RedOp, dt DataType) GroupOp {
		return GroupOp{Op: Op{Func: AllReduce, Count: 1 << 20, DataType: dt, RedOp: r}, Buffers: BuffersWindow}
	}
	for _, v := range []Version{V2_29_7, V2_30_3, V2_30_7} {
		avg := v >= V2_30_3
		t.Run(v.String(), func(t *testing.T) {
			c := h200x2Comm(t, v, nil)
			g, err := c.SelectGroup([]GroupOp{win(Avg, Bfloat16), win(Sum, Bfloat16), win(Avg, Float64)}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Err != nil {
				t.Fatalf("group error %v", g.Err)
			}
			ch := g.Choices
			if got := ch[0].Kernel != ""; got != avg {
				t.Errorf("bf16 Avg: kernel %q (%s/%s), want a kernel: %v", ch[0].Kernel, ch[0].Algo, ch[0].Proto, avg)
			}
			if ch[1].Kernel == "" || ch[2].Kernel != "" {
				t.Errorf("bf16 Sum kernel %q, double Avg kernel %q: want one, none", ch[1].Kernel, ch[2].Kernel)
			}
			if avg && ch[0].Plan == ch[1].Plan {
				t.Errorf("Avg and Sum share plan %d: want two bins", ch[0].Plan)
			}
		})
	}
}

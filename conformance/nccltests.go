package conformance

import (
	"github.com/gatesim/gatesim/spec"
)

// The size conventions of nccl-tests (NVIDIA/nccl-tests src/*.cu,
// <Coll>GetCollByteCount and <Coll>GetBw), so that gatesim's table lines up
// with nccl-tests' row for row: the same "size" and "count" columns, the
// same per-rank counts passed to NCCL, the same algbw and busbw.

// Counts are the element counts of one benchmark row.
type Counts struct {
	// Send and Recv are the elements of each rank's send and receive buffers.
	Send, Recv uint64
	// Param is the count given to the NCCL call (per peer for AllToAll,
	// per rank for AllGather and ReduceScatter); the table's count column.
	Param uint64
}

// Bytes is the table's size column: max(send, recv) bytes.
func (c Counts) Bytes(dt spec.DataType) uint64 {
	return max(c.Send, c.Recv) * uint64(dt.Size())
}

// RowCounts returns nccl-tests' counts for a row of `size` bytes: for
// AllGather, ReduceScatter and AllToAll the per-rank count is rounded down
// to a multiple of 16 bytes (`(count/nranks) & ~(16/eltSize-1)`), which is
// why their first rows read size 0.
func RowCounts(f spec.Func, size uint64, dt spec.DataType, nranks int) Counts {
	esz := uint64(dt.Size())
	count := size / esz
	n := uint64(nranks)
	align := func(c uint64) uint64 {
		if esz >= 16 {
			return c
		}
		return c &^ (16/esz - 1)
	}
	switch f {
	case spec.AllGather:
		base := align(count / n)
		return Counts{Send: base, Recv: base * n, Param: base}
	case spec.ReduceScatter:
		base := align(count / n)
		return Counts{Send: base * n, Recv: base, Param: base}
	case spec.AllToAll:
		p := align(count / n)
		return Counts{Send: p * n, Recv: p * n, Param: p}
	}
	return Counts{Send: count, Recv: count, Param: count}
}

// RowRedOp and RowRoot are the redop and root columns nccl-tests prints:
// "none" and -1 where the collective has none.
func RowRedOp(f spec.Func, op spec.RedOp) string {
	switch f {
	case spec.AllGather, spec.Broadcast, spec.AllToAll:
		return "none"
	}
	return op.Short()
}

func RowRoot(f spec.Func, root int) int {
	switch f {
	case spec.Broadcast, spec.Reduce:
		return root
	}
	return -1
}

// PerfBinary is the nccl-tests program that measures f.
func PerfBinary(f spec.Func) string {
	switch f {
	case spec.AllReduce:
		return "all_reduce_perf"
	case spec.AllGather:
		return "all_gather_perf"
	case spec.ReduceScatter:
		return "reduce_scatter_perf"
	case spec.Broadcast:
		return "broadcast_perf"
	case spec.Reduce:
		return "reduce_perf"
	case spec.AllToAll:
		return "alltoall_perf"
	case spec.SendRecv:
		return "sendrecv_perf"
	}
	return ""
}

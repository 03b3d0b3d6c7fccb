// Package algos turns NCCL's decisions into schedules: for one collective,
// the ordered primitive calls every rank makes on every channel, in NCCL's
// own vocabulary (send, recv, recvReduceSend, recvReduceCopySend,
// recvCopySend, copySend, scatter, gather, and the offload steps of CollNet
// (SHARP) and NVLS (multimem loads and stores)).
//
// Place in DESIGN.md's data flow:
//
//	Comm.Select ──> Decision (algo, proto, channels)
//	                     │            topo.Graph values (ring, tree, CollNet, NVLS)
//	                     ▼                 │
//	 algos.Build(op, Selection, Layout) <──┘ (FromGraphs, or DefaultLayout without a topology)
//	                     │
//	                     ▼
//	                 Schedule ──> sim (data plane, timing) and hw (replay)
//
// A Layout is what the builders need from a communicator: ring orders,
// tree chains and the double binary tree, CollNet and NVLS heads, channel
// counts, network rails and buffer sizes per release. A Schedule is data:
// its canonical text form (Format, Parse) round-trips, prints the
// dependency of every receive on the send it consumes, and is what golden
// files hold. Large schedules are generated on demand (Program), so a
// 100,000-rank schedule never exists in memory at once.
//
// The generators mirror NCCL's device code at v2.28.9-1: runRing and
// runTreeSplit of src/device/all_reduce.h, the Ring kernels of
// all_gather.h, reduce_scatter.h, broadcast.h and reduce.h, the
// CollNetDirect (AllReduce, AllGather, ReduceScatter), CollNetChain, NVLS
// (one node, and across nodes with CollNet/SHARP) and NVLSTree kernels,
// PAT's step generators (src/include/collectives.h), with channel
// partitions and chunk sizes from src/enqueue.cc (scheduleCollTasksToPlan,
// calcCollChunking). Each file names the code it follows; release
// differences live in Params.
//
// The package is pure: no I/O, no clocks, no goroutines, no mutable
// package state.
package algos

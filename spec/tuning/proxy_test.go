package tuning

import (
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestProxyOpModes: calcCollChunking's proxy op under each ProxyReg
// (G-REG-PROXY-1), figures worked from v2.22.3-1 and v2.28.9-1
// src/enqueue.cc calcCollChunking: 4 nodes, 8 CollNet heads, the default
// 4 MiB Simple buffer (512 KiB steps).
func TestProxyOpModes(t *testing.T) {
	const mib = 1 << 20
	comm := func(mode ProxyReg, ranks int) ChunkComm {
		return ChunkComm{NRanks: ranks, NNodes: 4, CollNetHeads: 8, NVLSHeads: 8, Rules: ChunkRules{ProxyReg: mode, NetRegRingAllGather: mode == ProxyRegNet}}
	}
	for _, tc := range []struct {
		name       string
		cc         ChunkComm
		f          nccl.Func
		a          nccl.Algo
		reg        ChunkReg
		nc         int
		bytes      int64
		chunk      int64 // calcCollChunking's answer; unregChunk the same unless set
		unreg      int64
		wantReg    bool
		nsteps     int64
		loop       int64
		chunkSteps int
	}{
		// Ring AllReduce, 32 ranks, 16 channels, 2 MiB chunks of 4 steps:
		// 62 steps per 1 GiB loop
		{name: "plain ring", cc: comm(ProxyRegNet, 32), f: nccl.AllReduce, a: nccl.Ring, nc: 16, bytes: 1 << 30, chunk: 2 * mib,
			nsteps: 62 * 1 * 4, loop: 16 * 32 * 2 * mib, chunkSteps: 4},
		{name: "network-registered ring allreduce keeps its steps", cc: comm(ProxyRegNet, 32), f: nccl.AllReduce, a: nccl.Ring, reg: ChunkRegNet, nc: 16, bytes: 1 << 30, chunk: 2 * mib,
			wantReg: true, nsteps: 62 * 4, loop: 16 * 32 * 2 * mib, chunkSteps: 4},
		{name: "IPC is not the proxy's", cc: comm(ProxyRegNet, 32), f: nccl.AllReduce, a: nccl.Ring, reg: ChunkRegIPC, nc: 16, bytes: 1 << 30, chunk: 2 * mib,
			nsteps: 62 * 4, loop: 16 * 32 * 2 * mib, chunkSteps: 4},
		// one rank per node: ring AllGather of 4 × 256 MiB on one channel,
		// 1 GiB chunks: 3 steps per loop of 4 GiB
		{name: "network-registered ring allgather, 1RPN", cc: comm(ProxyRegNet, 4), f: nccl.AllGather, a: nccl.Ring, reg: ChunkRegNet, nc: 1, bytes: 1 << 30, chunk: MaxNetSize, unreg: 2 * mib,
			wantReg: true, nsteps: 3, loop: 4 * MaxNetSize, chunkSteps: 1},
		{name: "collnet 1RPN, 2.24.3+", cc: comm(ProxyRegNet, 4), f: nccl.AllReduce, a: nccl.CollNetChain, reg: ChunkRegCollNet, nc: 1, bytes: 3 << 29, chunk: 256 << 10,
			wantReg: true, nsteps: 1, loop: 256 << 10, chunkSteps: 1},
		{name: "collnet 1RPN, 2.21.5-2.23.4: 512 MiB pieces", cc: comm(ProxyRegCollNet, 4), f: nccl.AllReduce, a: nccl.CollNetDirect, reg: ChunkRegCollNet, nc: 1, bytes: 3<<29 + 1, chunk: 512 << 10,
			wantReg: true, nsteps: 4, loop: 8 * 512 << 10, chunkSteps: 1},
		{name: "collnet several ranks: one head's loop", cc: comm(ProxyRegNet, 32), f: nccl.ReduceScatter, a: nccl.CollNetDirect, reg: ChunkRegCollNet, nc: 16, bytes: 2 << 30, chunk: 128 << 10,
			wantReg: true, nsteps: 128, loop: 16 * 128 << 10, chunkSteps: 1},
		{name: "nothing registered before 2.21.5", cc: comm(ProxyRegNone, 4), f: nccl.AllReduce, a: nccl.CollNetDirect, reg: ChunkRegCollNet, nc: 1, bytes: 1 << 30, chunk: 512 << 10,
			nsteps: 256, loop: 8 * 512 << 10, chunkSteps: 1},
		{name: "the network's registration is not CollNet's before 2.24.3", cc: comm(ProxyRegCollNet, 4), f: nccl.AllGather, a: nccl.Ring, reg: ChunkRegNet, nc: 1, bytes: 1 << 30, chunk: 2 * mib,
			nsteps: 3 * 128 * 4, loop: 4 * 2 * mib, chunkSteps: 4},
	} {
		unreg := tc.unreg
		if unreg == 0 {
			unreg = tc.chunk
		}
		p := tc.cc.ProxyOp(tc.f, tc.a, nccl.Simple, tc.reg, tc.nc, tc.bytes, tc.chunk, unreg)
		if p.Reg != tc.wantReg || p.NSteps != tc.nsteps || p.LoopSize != tc.loop || p.ChunkSteps != tc.chunkSteps {
			t.Errorf("%s: reg %v nsteps %d loop %d chunkSteps %d; want %v %d %d %d", tc.name, p.Reg, p.NSteps, p.LoopSize, p.ChunkSteps, tc.wantReg, tc.nsteps, tc.loop, tc.chunkSteps)
		}
		if p.Reg && p.NBytes != tc.bytes {
			t.Errorf("%s: nbytes %d, want the task's %d", tc.name, p.NBytes, tc.bytes)
		}
		if !p.Reg && p.NSteps != p.FIFOSteps {
			t.Errorf("%s: unregistered, but nsteps %d differ from the FIFO's %d", tc.name, p.NSteps, p.FIFOSteps)
		}
	}
}

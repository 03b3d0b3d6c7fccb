package spec

import (
	"fmt"
	"strings"
)

// G-REG-COLLNET-1 and G-REG-PROXY-1: CollNet's user-buffer path (which
// tasks CollNet registers and what their kernel and proxy then skip) and
// the proxy op of a task whose buffers the network or CollNet registered.
// The tuning model decides (tuning.RegCollNetRanks, the chunk's
// tuning.ProxyOp); the verdicts report it.

// regCollNetDoc22 is G-REG-COLLNET-1 from 2.21.5 to 2.23.4.
const regCollNetDoc22 = `CollNet registers a CollNetDirect or CollNetChain task's buffers (NCCL_LOCAL_REGISTER for ncclCommRegister'ed buffers, NCCL_GRAPH_REGISTER for a CUDA graph capture, both default 1; not PreMulSum or SumPostDiv) only on a communicator of one rank per node (collNetRegSupport is isOneRPN), where it runs on one channel (G-REG-UB-1). Such a rank has no local peer: its kernel moves nothing through the CollNet connection's FIFO, it posts one notify step to the proxy each way (sendPeerNotify, recvPeerNotify) and the proxy hands the plugin the user buffers (G-REG-PROXY-1). With several ranks per node nothing is registered.`

// regCollNetDoc24 is G-REG-COLLNET-1 from 2.24.3 to 2.28.9.
const regCollNetDoc24 = `CollNet registers a CollNetDirect or CollNetChain task's buffers (NCCL_LOCAL_REGISTER, NCCL_GRAPH_REGISTER; not PreMulSum or SumPostDiv) as NCCL_NET_REG_BUFFER. On one rank per node (isOneRPN) it runs on one channel (G-REG-UB-1) and its kernel posts one notify step each way instead of moving data through the CollNet FIFO. From 2.24.3 a CollNetDirect AllGather or ReduceScatter is registered with several ranks per node too, never an AllReduce and never CollNetChain; the task keeps its channels, and its kernel skips one copy: an AllGather's send to the network (the proxy sends from the user's send buffer; the kernel posts the steps, ceil(nNodes × count / (nChannels × chunk))), a ReduceScatter's receive from it (the proxy writes into the user's receive buffer); the other phases still go through the FIFO and the local peers. The proxy op's loop is one head's (G-REG-PROXY-1). CollNetDirect's local peers are registered over IPC at the same time (G-REG-COLLNET-IPC-1).`

// regCollNetDoc29 is G-REG-COLLNET-1 from 2.29.2.
const regCollNetDoc29 = `As from 2.24.3 (NCCL_NET_REG_BUFFER; one rank per node: one channel, one notify step each way), but with several ranks per node only a CollNetDirect AllGather is registered, on its send buffer alone (the proxy sends from it; the kernel posts the steps); a ReduceScatter, like an AllReduce, now needs one rank per node. The registered task keeps its channels. CollNetDirect's local peers are registered over IPC at the same time (G-REG-COLLNET-IPC-1).`

// regCollNetRule is G-REG-COLLNET-1.
var regCollNetRule = &Rule{
	ID: "G-REG-COLLNET-1", Layer: LayerGroup, Title: "CollNet user buffers: which tasks register, what the kernel skips",
	Doc: regCollNetDoc22,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "registerIntraNodeBuffers"},
	group: func(g *groupRun) {
		ch := g.choice
		if !ch.Algo.IsCollNet() {
			g.emit(Verdict{Outcome: Skip, Why: "not a CollNet task"})
			return
		}
		if ch.Registered != "CollNet" {
			g.emit(Verdict{Outcome: Skip, Why: fmt.Sprintf("%s %s: CollNet registers no buffer of it (unregistered or uncaptured buffers, PreMulSum or SumPostDiv, or not this function and algorithm with %s)", ch.Algo, g.op.Op.Func, rpnWords(g))})
			return
		}
		why := fmt.Sprintf("%s %s registered with CollNet, %s: ", ch.Algo, g.op.Op.Func, rpnWords(g))
		switch {
		case g.oneRPN:
			why += fmt.Sprintf("%d channel(s); the kernel posts one notify step each way, no data through the CollNet FIFO", ch.NChannels)
		case g.op.Op.Func == AllGather:
			why += fmt.Sprintf("%d channel(s) kept; the kernel's send to the network is a notify, the proxy sends from the user buffer", ch.NChannels)
		default:
			why += fmt.Sprintf("%d channel(s) kept; the kernel's receive from the network is a notify, the proxy writes into the user buffer", ch.NChannels)
		}
		g.emit(Verdict{Outcome: Pass, Why: why})
	},
}

func rpnWords(g *groupRun) string {
	if g.oneRPN {
		return "one rank per node"
	}
	return "several ranks per node"
}

// regProxyDoc22 is G-REG-PROXY-1 from 2.21.5 to 2.23.4.
const regProxyDoc22 = `The proxy op calcCollChunking builds for each channel part (computeColl before 2.22.3) counts the FIFO steps the proxy thread drives: nstepsPerLoop × ceil(nBytes / (nChannels × nchunksPerLoop × chunk)) × chunkSteps, where a ring moves nRanks chunks in nRanks − 1 steps (AllReduce twice), NVLS and CollNetDirect one chunk per head in one step, trees, pipelines, PAT and CollNetChain one in one. A CollNet-registered task (NCCL_COLLNET_REG_BUFFER, G-REG-COLLNET-1) instead gets reg 1, nbytes its bytes and nsteps ceil(nBytes / NCCL_MAX_COLLNET_SIZE), 512 MiB: the proxy hands the plugin the user buffers in pieces rather than stepping through the FIFO. Before 2.22.3 only a registered task's proxy op is modelled.`

// regProxyDoc24 is G-REG-PROXY-1 from 2.24.3.
const regProxyDoc24 = `The proxy op calcCollChunking builds for each channel part counts the FIFO steps the proxy thread drives: nstepsPerLoop × ceil(nBytes / (nChannels × nchunksPerLoop × chunk)) × chunkSteps (a ring: nRanks chunks in nRanks − 1 steps, AllReduce twice; NVLS and CollNetDirect one chunk per head in one step; trees, pipelines, PAT and CollNetChain one in one). A task whose buffers the network or CollNet registered (NCCL_NET_REG_BUFFER: G-REG-COLLNET-1, G-REG-UB-1) gets reg 1 and nbytes its bytes, so the proxy sends from and receives into the user buffers: CollNetDirect and CollNetChain on one rank per node take nsteps 1 (the kernel only notifies; the proxy re-splits the buffer by the plugin's maxCollBytes, G-REG-COLLNET-SPLIT-1); with several ranks per node an AllGather or ReduceScatter keeps its steps on one head's loop (loopSize / nHeads); a Ring AllGather on one rank per node moves NCCL_MAX_NET_SIZE (1 GiB) chunks and slices of one step each, nsteps (nRanks − 1) × ceil(nBytes / (nChannels × nRanks × 1 GiB)); any other registered Ring task keeps its steps. The registered NVLS task across nodes that CollNet also registers is not modelled.`

// regProxyRule is G-REG-PROXY-1.
var regProxyRule = &Rule{
	ID: "G-REG-PROXY-1", Layer: LayerGroup, Title: "the proxy op of network-registered buffers",
	Doc: regProxyDoc22,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "calcCollChunking"},
	group: func(g *groupRun) {
		c := g.dec.Chunk
		if !c.Set() {
			g.emit(Verdict{Outcome: Skip, Why: "no cost-table chunk: no proxy op of a collective"})
			return
		}
		p := c.Proxy
		if !p.Reg {
			why := "buffers not registered with the network or CollNet: reg 0"
			if p.NSteps > 0 {
				why += fmt.Sprintf("; the proxy op counts %d FIFO step(s) on the first channel, driven where a connection has a proxy (the network)", p.NSteps)
			}
			g.emit(Verdict{Outcome: Skip, Why: why})
			return
		}
		parts := []string{fmt.Sprintf("reg 1 (%s): nsteps %d", g.choice.Registered, p.NSteps)}
		if p.FIFOSteps > 0 && p.FIFOSteps != p.NSteps {
			parts[0] += fmt.Sprintf(" where the FIFO would take %d", p.FIFOSteps)
		}
		if p.NStepsMid > 0 || p.NStepsHi > 0 {
			parts = append(parts, fmt.Sprintf("mid/hi channels %d/%d", p.NStepsMid, p.NStepsHi))
		}
		parts = append(parts, fmt.Sprintf("nbytes %d", p.NBytes), fmt.Sprintf("chunk %d B, %d/%d steps per chunk/slice, loop %d B", p.ChunkSize, p.ChunkSteps, p.SliceSteps, p.LoopSize))
		g.emit(Verdict{Outcome: Pass, Why: "proxy op " + strings.Join(parts, "; ")})
	},
}

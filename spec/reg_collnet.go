package spec

import "fmt"

// G-REG-COLLNET-IPC-1: CollNetDirect's registration of the user buffers
// over IPC with the node's peers, beside CollNet's registration of the
// network side (G-REG-COLLNET-1). The tuning model decides
// (OpChoice.RegPeers); the verdict reports it.

// regCollNetIPCDoc23 is G-REG-COLLNET-IPC-1 from 2.23.4 to 2.28.9.
const regCollNetIPCDoc23 = `A CollNetDirect task (Simple) whose buffers NCCL may register (ncclCommRegister'ed under NCCL_LOCAL_REGISTER, or captured into a CUDA graph under NCCL_GRAPH_REGISTER, both default 1; the graph path needs no ncclCommRegister record), not a ReduceScatter, on a communicator whose local ranks are direct P2P (intraNodeP2pSupport; isAllDirectP2p from 2.27.3), registers its send and then its receive buffer over IPC with the first channel's up and down peers that connect over P2P (registerCheckP2PConnection); both must succeed (NCCL_IPC_REG_BUFFER). The work's regUsed is then 1: the kernel's direct primitives read and write those peers' user buffers instead of their FIFOs. The channels do not change. 2.23.4 tries this only where CollNet's own registration path is not taken (several ranks per node); from 2.24.3 both are tried, IPC first. A cudaMalloc or cuMem buffer NCCL cannot export fails as for Ring (G-REG-SKIP-1): the registration leaves its flag 0 (from 2.24.3 ipcRegisterBuffer WARNs "failed to IPC register"; 2.23.4's ncclIpcLocalRegisterBuffer fails silently), its caller ignores the failure and the task runs without regUsed on its channels (from 2.24.3 CollNet's own registration is still tried). 2.22.3 and earlier keep the branch switched off.`

// regCollNetIPCDoc29 is G-REG-COLLNET-IPC-1 from 2.29.2.
const regCollNetIPCDoc29 = `As from 2.24.3, but only a CollNetDirect AllGather registers over IPC, and its receive buffer alone decides (an AllReduce and a ReduceScatter no longer do). The channels do not change; the kernel reads and writes the peers' user buffers directly (regUsed).`

// regCollNetIPCRule is G-REG-COLLNET-IPC-1.
var regCollNetIPCRule = &Rule{
	ID: "G-REG-COLLNET-IPC-1", Layer: LayerGroup, Title: "CollNetDirect's node peers registered over IPC",
	Doc: regCollNetIPCDoc23,
	Ref: Ref{Tag: "v2.23.4-1", File: "src/enqueue.cc", Func: "registerCollBuffers"},
	group: func(g *groupRun) {
		ch := g.choice
		if ch.Algo != CollNetDirect {
			g.emit(Verdict{Outcome: Skip, Why: "not a CollNetDirect task"})
			return
		}
		if ch.RegCallFailed("IPC") {
			// ipcRegisterBuffer's failure: the caller ignores it and goes on
			line := `it prints "failed to IPC register"`
			if ch.RegFailedSilently("IPC") {
				line = "it prints nothing"
			}
			g.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("CollNetDirect %s: NCCL calls the IPC registration with the node's P2P peers and it fails (G-REG-SKIP-1 says why; %s): regUsed 0, the kernel goes through their FIFOs; %d channel(s) kept", g.op.Op.Func, line, ch.NChannels)})
			return
		}
		if ch.RegPeers != "IPC" {
			g.emit(Verdict{Outcome: Skip, Why: fmt.Sprintf("CollNetDirect %s: no buffer registered over IPC (unregistered or uncaptured buffers, one rank per node, peers not direct P2P, the export refused, or not a function this release registers)", g.op.Op.Func)})
			return
		}
		why := fmt.Sprintf("CollNetDirect %s registered over IPC with the node's P2P peers: regUsed 1, the kernel reads and writes their user buffers directly; %d channel(s) kept", g.op.Op.Func, ch.NChannels)
		if ch.Registered == "CollNet" {
			why += "; CollNet registered the network side too (G-REG-COLLNET-1)"
		}
		g.emit(Verdict{Outcome: Pass, Why: why})
	},
}

// regCollNetSplitDoc is G-REG-COLLNET-SPLIT-1 (2.24.3+).
const regCollNetSplitDoc = `A CollNetDirect or CollNetChain task CollNet registered (NCCL_NET_REG_BUFFER, G-REG-COLLNET-1) on a communicator of one rank per node gets a proxy op of one step (G-REG-PROXY-1): its kernel posts one notify each way. When the proxy starts the op (sendProxyProgress, recvProxyProgress) it re-splits it: nsteps becomes ceil(nbytes / maxCollBytes), each step one plugin collective (iallreduce, iallgather, ireducescatter) of at most maxCollBytes straight from and into the user buffers, the receive side flushing each (G-COLLNET-FLUSH-1); the head posts one credit and the tail moves once, after the last. maxCollBytes is the CollNet plugin's property: NCCL's adapters give a plugin of API v8 or older MAX_COLLNET_SIZE (512 MiB); a v9+ plugin reports its own, which gatesim does not know (NCCL refuses a value outside (0, NCCL_MAX_NET_SIZE_BYTES] with "collnet plugin returned invalid value for maxCollBytes" and ncclInternalError at connection). With several ranks per node the proxy keeps the FIFO's steps. The simulator does not time CollNet's registered path (it runs the FIFO schedule), so the pieces change no simulated time. Before 2.24.3 the enqueue itself cuts the op at NCCL_MAX_COLLNET_SIZE (G-REG-PROXY-1).`

// regCollNetSplitRule is G-REG-COLLNET-SPLIT-1.
var regCollNetSplitRule = &Rule{
	ID: "G-REG-COLLNET-SPLIT-1", Layer: LayerGroup, Title: "the CollNet proxy re-splits a registered operation by maxCollBytes",
	Doc: regCollNetSplitDoc,
	Ref: Ref{Tag: "v2.24.3-1", File: "src/transport/coll_net.cc", Func: "sendProxyProgress, recvProxyProgress, collNetRegIallreduce"},
	group: func(g *groupRun) {
		ch, c := g.choice, g.dec.Chunk
		if !ch.Algo.IsCollNet() || ch.Registered != "CollNet" || !c.Set() || !c.Proxy.Reg {
			g.emit(Verdict{Outcome: Skip, Why: "no CollNet-registered task: the proxy steps through the FIFO"})
			return
		}
		if !g.oneRPN {
			g.emit(Verdict{Outcome: Skip, Why: fmt.Sprintf("several ranks per node: the proxy keeps the op's %d step(s), a window of the user buffer each", c.Proxy.NSteps)})
			return
		}
		p := c.Proxy
		if p.NetSteps == 0 {
			g.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("one rank per node, %d B: the proxy re-splits the op into ceil(nbytes / maxCollBytes) plugin collectives, but this CollNet plugin (API v9+) reports its own maxCollBytes, unknown to gatesim", p.NBytes)})
			return
		}
		g.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("one rank per node: the kernel's one step becomes %d plugin collective(s) of at most %d B (maxCollBytes, MAX_COLLNET_SIZE through the v8-and-older adapter) over %d B, each flushed on receive where the CollNet receive flushes", p.NetSteps, p.MaxCollBytes, p.NBytes),
			Facts: []Fact{F("nbytes", p.NBytes), F("maxCollBytes", p.MaxCollBytes), F("netSteps", p.NetSteps)}})
	},
}

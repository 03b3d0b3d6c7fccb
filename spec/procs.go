package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// Ranks sharing a process (System.Procs): what NCCL decides from peers'
// equal hostHash and pidHash, and the connection lines of the intra-node
// transport that G-TRANSPORT-1 chose.

// procRule is G-PROC-1: which ranks share a process, and what the
// communicator turns off for them.
var procRule = &Rule{
	ID: "G-PROC-1", Layer: LayerGraph, Cap: CapP2P, Title: "ranks sharing a process",
	Doc: `Ranks whose peer info has the same hostHash and pidHash run in one process (ncclCommInitAll, or one thread calling ncclCommInitRank per GPU inside a group): intraProcRanks counts them. From 2.19.1 nvlsRegSupport is 0 when any two ranks share a process, so NVLS and NVLSTree tasks on registered or graph-captured buffers keep their unregistered channels (G-REG-UB-1); from 2.28.3 NCCL_SINGLE_PROC_MEM_REG_ENABLE=1 keeps it (never under MNNVL). From 2.23.4 comm->directMode (ncclTransportCheckP2pType) refuses to register a buffer only legacy CUDA IPC can export (cudaMalloc memory; G-REG-SKIP-1). From 2.29.2 a symmetric LL kernel falls back to the cost table when one thread drives several GPUs (intraRanks > 1) without NCCL_SINGLE_PROC_MEM_REG_ENABLE, for buffers outside windows (2.29.2–2.29.3 unforced: always). From 2.24.3 the check prints "Check P2P Type" (rank 0 only before 2.28.7); gatesim prints isAllCudaP2p equal to isAllDirectP2p (CUDA P2P beyond NCCL_P2P_LEVEL is not modelled). No decision of gatesim's changes otherwise: SHM between ranks of one process uses /dev/shm memory instead of cuMem host memory (2.23.4+, shmSendSetup req.legacy), the proxy maps a same-process peer's buffers directly (proxyConn.sameProcess) and keeps its cuMem host connections on abort (proxyState->directMode); channels, algorithms and protocols are the same.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{"Check P2P Type intraNodeP2pSupport %d directMode %d", "Check P2P Type isAllDirectP2p %d directMode %d",
		"Check P2P Type isAllDirectP2p %d directMode %d isAllCudaP2p %d"},
	init: func(r *initRun) {
		c := r.comm
		gpus := len(r.nodes[0].node.GPUs)
		direct := b01(gpus <= 1 || c.IntraTransport == "P2P")
		shared := b01(c.SharedProcess)
		var log []string
		switch r.rs.Consts.P2PTypeLog {
		case 1:
			log = []string{fmt.Sprintf("Check P2P Type intraNodeP2pSupport %s directMode %s", direct, shared)}
		case 2:
			log = []string{fmt.Sprintf("Check P2P Type isAllDirectP2p %s directMode %s", direct, shared)}
		case 3:
			log = []string{fmt.Sprintf("Check P2P Type isAllDirectP2p %s directMode %s isAllCudaP2p %s", direct, shared, direct)}
		}
		facts := []Fact{F("procs", c.System.Procs.String()), F("directMode", shared)}
		if !c.SharedProcess {
			why := "one process per GPU: no two ranks share a process"
			if c.System.Procs != ProcsPerGPU {
				why = "one process per node, with one GPU per node: no two ranks share a process"
			}
			r.emit(Verdict{Outcome: Info, Why: why, Facts: facts, Log: log})
			return
		}
		why := fmt.Sprintf("one process drives each node's GPUs (up to %d ranks per process): directMode", c.MaxLocalRanks)
		if r.rs.Tuning.RegNVLS != TuningRegNVLSNone {
			if r.rs.Tuning.RegSingleProcParam && r.envInt("NCCL_SINGLE_PROC_MEM_REG_ENABLE", 0) != 0 && !c.MNNVL {
				why += "; NCCL_SINGLE_PROC_MEM_REG_ENABLE keeps nvlsRegSupport"
			} else {
				why += "; nvlsRegSupport 0: NVLS registers no buffer"
			}
		}
		if r.rs.Tuning.RegIPCDirectMode {
			why += "; directMode: no legacy CUDA IPC registration"
		}
		r.emit(Verdict{Outcome: Info, Why: why, Facts: facts, Log: log})
	},
}

// connRule is G-TRANSPORT-CONN-1: the path every intra-node connection
// line names, and those lines for the first node's ring channel 0.
var connRule = &Rule{
	ID: "G-TRANSPORT-CONN-1", Layer: LayerGraph, Cap: CapP2P, Title: "intra-node connection lines",
	Doc: `Each send connection prints one line. P2P (p2pSendSetup): two ranks of one process connect by direct pointer ("P2P/direct pointer") unless NCCL_P2P_DIRECT_DISABLE=1 or NCCL_P2P_USE_CUDA_MEMCPY=1, and up to 2.19.1 only with NCCL's cuMem off; otherwise "P2P/CUMEM" ("P2P/MNNVL" under MNNVL) with cuMem on, else legacy "P2P/IPC"; "/read" when the GPUs are both sm80 on an NVLink path (ncclTopoCheckP2p) or NCCL_P2P_READ_ENABLE says so (never with the copy engine), "/CE" under NCCL_P2P_USE_CUDA_MEMCPY=1 (not direct). Up to 2.18.6 the direct and IPC lines name GPUs by bus id, the CUMEM line by CUDA device in hex; later by NVML index. SHM (shmSendSetup): "SHM/%s/%s", CE on the send (receive) side when NCCL_SHM_USE_CUDA_MEMCPY=1 and NCCL_SHM_MEMCPY_MODE has bit 1 (2); from 2.30.7 "SHM/direct". The trace shows ring channel 0 of the first node; every channel connects alike. Paths through an intermediate GPU (P2P/indirect) are not modelled.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/transport/p2p.cc", Func: "p2pSendSetup"},
	Logs: []string{"Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/direct pointer%s", "Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/%s%s%s",
		"Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/IPC%s%s", "Channel %02d : %d[%d] -> %d[%d] via SHM/%s/%s"},
	init: func(r *initRun) {
		c := r.comm
		c.P2PConn = ""
		if c.IntraTransport != "P2P" && c.IntraTransport != "SHM" {
			r.emit(Verdict{Outcome: Skip, Why: "no P2P or SHM connection between ranks of one node"})
			return
		}
		nr, _ := r.topoNode(r.nodes[0])
		if nr == nil || nr.System == nil {
			r.emit(Verdict{Outcome: Skip, Why: "no topology search"})
			return
		}
		gpus := nr.System.GPUs()
		path, facts := r.shmPath()
		if c.IntraTransport == "P2P" {
			path, facts = r.p2pPath(gpus)
			c.P2PConn = path
		}
		r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("every %s connection between ranks of one node goes via %s", c.IntraTransport, path),
			Facts: facts, Log: r.connLines(nr, gpus, path)})
	},
}

// p2pPath is the path p2pSendSetup names for the node's P2P connections.
func (r *initRun) p2pPath(gpus []*topo.Node) (string, []Fact) {
	c := r.comm
	memcpy := r.envInt("NCCL_P2P_USE_CUDA_MEMCPY", 0) != 0
	cuMem := r.cuMemEnable()
	// ncclTopoCheckP2p: P2P read for sm80 pairs over NVLink
	read := len(gpus) > 1
	for _, a := range gpus {
		for _, b := range gpus {
			if a != b && (a.SM != 80 || b.SM != 80 || b.Index >= len(a.Paths[topo.GPU]) || a.Paths[topo.GPU][b.Index].Type != topo.PathNVL) {
				read = false
			}
		}
	}
	if v := r.envInt("NCCL_P2P_READ_ENABLE", -2); v != -2 {
		read = v != 0
	}
	read = read && !memcpy
	direct := c.SharedProcess && r.envInt("NCCL_P2P_DIRECT_DISABLE", 0) == 0 && !memcpy && (r.rs.Consts.P2PDirectCuMem || !cuMem)
	var b strings.Builder
	switch {
	case direct:
		b.WriteString("P2P/direct pointer")
	case cuMem && c.MNNVL:
		b.WriteString("P2P/MNNVL")
	case cuMem:
		b.WriteString("P2P/CUMEM")
	default:
		b.WriteString("P2P/IPC")
	}
	if read {
		b.WriteString("/read")
	}
	if memcpy {
		b.WriteString("/CE")
	}
	return b.String(), []Fact{F("sameProcess", b01(c.SharedProcess)), F("cuMem", b01(cuMem)), F("read", b01(read)), F("NCCL_P2P_USE_CUDA_MEMCPY", b01(memcpy))}
}

// shmPath is the path shmSendSetup names.
func (r *initRun) shmPath() (string, []Fact) {
	if r.rs.Consts.SHMDirectOnly {
		return "SHM/direct", nil
	}
	side := func(bit int64) string {
		if r.envInt("NCCL_SHM_USE_CUDA_MEMCPY", 0) != 0 && r.envInt("NCCL_SHM_MEMCPY_MODE", 1)&bit != 0 {
			return "CE"
		}
		return "direct"
	}
	return "SHM/" + side(1) + "/" + side(2), []Fact{F("sameProcess", b01(r.comm.SharedProcess))}
}

// envInt reads an NCCL_PARAM the release table does not list (its default
// is the same at every modelled tag).
func (r *initRun) envInt(name string, def int64) int64 {
	v, _, _ := intParam(r.env, name, def)
	return v
}

// connLines are the send connection lines of the first node's ring
// channel 0: each rank to the next one of the node, the last back to the
// first on one node (across nodes it sends to the network).
func (r *initRun) connLines(nr *topo.NodeResult, gpus []*topo.Node, path string) []string {
	ring := nr.Graph(topo.GraphRing)
	if len(ring.Intra) == 0 || len(ring.Intra[0]) < 2 {
		return nil
	}
	order := ring.Intra[0]
	// a GPU's name: its NVML index, up to 2.18.6 its bus id (the CUMEM
	// line its CUDA device) in hex
	format := "Channel 00/0 : %d[%d] -> %d[%d] via %s"
	if r.rs.Consts.P2PLogBusID {
		format = "Channel 00/0 : %d[%x] -> %d[%x] via %s"
	}
	if strings.HasPrefix(path, "SHM/") {
		format = strings.Replace(format, "00/0", "00", 1)
	}
	id := func(g *topo.Node) int64 {
		if r.rs.Consts.P2PLogBusID && path != "P2P/CUMEM" && !strings.HasPrefix(path, "P2P/CUMEM/") {
			return g.LocalID()
		}
		return int64(g.Dev)
	}
	gpu := func(rank int) *topo.Node {
		for _, g := range gpus {
			if g.Rank == rank {
				return g
			}
		}
		return nil
	}
	n := len(order)
	if r.comm.NNodes > 1 {
		n--
	}
	lines := make([]string, 0, n)
	for i := 0; i < n; i++ {
		from, to := gpu(order[i]), gpu(order[(i+1)%len(order)])
		if from == nil || to == nil {
			continue
		}
		lines = append(lines, fmt.Sprintf(format, from.Rank, id(from), to.Rank, id(to), path))
	}
	return lines
}

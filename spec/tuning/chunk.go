package tuning

// calcCollChunking: the chunk every channel of a collective moves per step
// of its loop, per release (G-SEL-CHUNK-1), and a v6 tuner's
// getChunkSize override (G-TUNER-CHUNK-1). The schedule builders (algos,
// hence the simulator) and the reports (explain, oracle) read it from here.

import (
	"fmt"
	"math/bits"

	"github.com/gatesim/gatesim/nccl"
)

// The FIFO and protocol geometry calcCollChunking reads. They are the same
// at every tag from v2.18.1-1 to v2.30.7-1
// (TestChunkConstantsMatchSource checks them against each tag).
//
// Ref: v2.30.7-1 src/include/device.h NCCL_STEPS, NCCL_LL_LINES_PER_THREAD,
// NCCL_LL_MAX_NTHREADS, NCCL_LL128_ELEMS_PER_THREAD, NCCL_LL128_MAX_NTHREADS,
// NCCL_LL128_LINEELEMS, NCCL_LL128_DATAELEMS,
// NCCL_LL128_SHMEM_ELEMS_PER_THREAD, ncclProtoGrainSize; src/include/
// collectives.h *_CHUNKSTEPS, *_SLICESTEPS; src/init.cc DEFAULT_*BUFFSIZE
const (
	// NSteps is NCCL_STEPS, the depth of every connection FIFO.
	NSteps = 8
	// LL128LineElems and LL128DataElems: a 128-byte LL128 line is 16
	// eight-byte words of which 15 carry data.
	LL128LineElems = 16
	LL128DataElems = LL128LineElems - 1

	llLinesPerThread       = 8
	llMaxNThreads          = 512
	ll128ElemsPerThread    = 120
	ll128MaxNThreads       = 640
	ll128ShmemElemsPerThrd = 8
	warpSize               = 32
)

// DefaultBuffSize is the per-connection buffer of LL, LL128 and Simple
// when NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE and NCCL_BUFFSIZE are unset
// (DEFAULT_LL_BUFFSIZE: lines per thread × threads × steps × 16 B;
// DEFAULT_LL128_BUFFSIZE: elements per thread × threads × steps × 8 B;
// DEFAULT_BUFFSIZE 4 MiB).
var DefaultBuffSize = [nccl.NumProtos]int{
	llLinesPerThread * llMaxNThreads * NSteps * 16,
	ll128ElemsPerThread * ll128MaxNThreads * NSteps * 8,
	1 << 22,
}

// GrainSize is ncclProtoGrainSize: a chunk is a multiple of it.
var GrainSize = [nccl.NumProtos]int{16, warpSize * ll128ShmemElemsPerThrd / LL128LineElems * LL128DataElems * 8, 512}

// RingChunkSteps and RingSliceSteps are the *_CHUNKSTEPS and *_SLICESTEPS
// of each collective (Broadcast, Reduce, AllGather, ReduceScatter,
// AllReduce); only Ring/Simple reads them, every other algorithm and
// protocol moves one step per chunk.
var (
	RingChunkSteps = [nccl.NumFuncs]int{1, 1, NSteps / 2, NSteps / 2, NSteps / 2}
	RingSliceSteps = [nccl.NumFuncs]int{1, 1, NSteps / 4, NSteps / 4, NSteps / 4}
)

// The algorithm rules of calcCollChunking as data, in source order: a
// halving step divides the chunk by 2 while nBytes/(nChannels × heads ×
// chunk) < depth × Mul and chunk > Above; a cap step sets the chunk to
// Above when nBytes < Mul × concurrent ops × chunk and chunk > Above.
type chunkStep struct{ Mul, Above int64 }

var (
	collNetDirectHalving = [...]chunkStep{{64, 131072}, {8, 65536}, {8, 32768}}
	collNetChainHalving  = [...]chunkStep{{64, 131072}, {8, 65536}, {1, 32768}}
	treeSimpleHalving    = [...]chunkStep{{8, 131072}, {4, 65536}, {1, 32768}}
	nvlsCaps             = [...]chunkStep{{64, 65536}, {8, 32768}, {2, 16384}}
	nvlsTreeCaps         = [...]chunkStep{{32, 262144}, {16, 131072}, {4, 65536}, {1, 32768}}
	treeLL128Halving     = [...]chunkStep{{64, 131072}, {16, 32768}}
	patAllGatherHalving  = chunkStep{32, 65536}
	patReduceScatterHalv = chunkStep{16, 65536}
)

const (
	// collNetChainMaxChunk is CollNetChain's largest chunk (256 KiB).
	collNetChainMaxChunk = 256 * 1024
	// nvlsNetSlowBw and nvlsNetSlowChunk: NVLS across nodes whose NVLS
	// AllReduce bandwidth is below 150 GB/s moves 32 KiB chunks.
	nvlsNetSlowBw    = 150
	nvlsNetSlowChunk = 32768
	// nvlsTreeCap4Nodes is NVLSTree's cap from 4 nodes when
	// NCCL_NVLSTREE_MAX_CHUNKSIZE is unset (2.19.3–2.30.2).
	nvlsTreeCap4Nodes = 65536
	// MaxNetSize is NCCL_MAX_NET_SIZE (1 GiB, "rather than send INT_MAX"):
	// the chunk of a Ring AllGather whose buffers the network registered
	// on a communicator of one rank per node (2.24.3+).
	MaxNetSize = 1 << 30
)

// ChunkRules are the release's switches of calcCollChunking (spec's
// Consts of the same names say when each holds).
type ChunkRules struct {
	// NVLSNetChunkCap: the 32 KiB chunk of slow NVLS across nodes (2.19.3+).
	NVLSNetChunkCap bool `json:"nvlsNetChunkCap,omitempty"`
	// NVLSTreeChunkFromStep: NVLSTree starts from the Simple step size,
	// not nvlsChunkSize (2.18.1–2.20.5).
	NVLSTreeChunkFromStep bool `json:"nvlsTreeChunkFromStep,omitempty"`
	// NVLSTreeChunkCap4Nodes: NVLSTree's 64 KiB cap from 4 nodes (2.19.3+,
	// where nothing else sets the cap).
	NVLSTreeChunkCap4Nodes bool `json:"nvlsTreeChunkCap4Nodes,omitempty"`
	// TreeSimpleDepth: a Tree/Simple AllReduce (ncclPatternTreeUpDown)
	// halves its chunk by the tree depth nRanks/nNodes − 1 +
	// log2(nNodes) (2.18.1–2.19.4, computeColl).
	TreeSimpleDepth bool `json:"treeSimpleDepth,omitempty"`
	// NVLSRegStepChunk: an NVLS AllGather or ReduceScatter on
	// NVLS-registered buffers moves Simple-step chunks, past nvlsChunkSize
	// and the small-operation caps (2.27.3+, G-SEL-CHUNK-2).
	NVLSRegStepChunk bool `json:"nvlsRegStepChunk,omitempty"`
	// NetRegRingAllGather: a Ring AllGather whose buffers the network
	// registered on a communicator of one rank per node moves
	// NCCL_MAX_NET_SIZE chunks of one step and one slice (2.24.3+,
	// G-SEL-CHUNK-2).
	NetRegRingAllGather bool `json:"netRegRingAllGather,omitempty"`
	// ProxyReg: what the proxy op of a network- or CollNet-registered task
	// carries (G-REG-PROXY-1).
	ProxyReg ProxyReg `json:"proxyReg,omitempty"`
}

// ChunkReg is the buffer registration of a task (info->regBufType) as the
// schedule builders and the simulator read it. calcCollChunking reads
// NVLS's (NCCL_NVLS_REG_BUFFER) and the network's on Ring's peers
// (NCCL_NET_REG_BUFFER); IPC registration (NCCL_IPC_REG_BUFFER) and
// CollNet's change no chunk, but IPC and the network's change the
// kernel's data path: a registered peer writes straight into the user
// buffer, so a receive copies nothing out of the connection's FIFO.
type ChunkReg uint8

const (
	ChunkRegNone ChunkReg = iota
	ChunkRegNVLS
	ChunkRegNet
	ChunkRegIPC
	ChunkRegCollNet
	numChunkRegs
)

// chunkRegNames are OpChoice.Registered's words for each ChunkReg.
var chunkRegNames = [numChunkRegs]string{"", "NVLS", "NET", "IPC", "CollNet"}

// String is the registration as OpChoice.Registered writes it ("" for
// none).
func (r ChunkReg) String() string {
	if r < numChunkRegs {
		return chunkRegNames[r]
	}
	return fmt.Sprintf("ChunkReg(%d)", int(r))
}

// MarshalText writes the path's name ("" for none).
func (r ChunkReg) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// ChunkArgs is what calcCollChunking reads of a task beyond its function,
// algorithm, protocol and channel split: the registration of its buffers
// (G-SEL-CHUNK-2) and, before 2.22.3, the bytes and channels of its one
// call (G-SEL-CHUNK-3; NChannels 0 from 2.22.3, or where no schedule
// placed the task: each call is then sized on its own part). The schedule
// builders (algos) read it from the decision.
type ChunkArgs struct {
	Reg       ChunkReg
	NBytes    int64
	NChannels int
}

// ChunkArgs is the choice's ChunkArgs.
func (ch *OpChoice) ChunkArgs() ChunkArgs {
	return ChunkArgs{Reg: ChunkRegOf(ch.Registered), NBytes: ch.ChunkNBytes, NChannels: ch.ChunkNChannels}
}

// ChunkRegOf is the ChunkReg of an OpChoice's Registered ("NVLS", "NET",
// "IPC", "CollNet"; anything else is none).
func ChunkRegOf(registered string) ChunkReg {
	for r := ChunkRegNVLS; r < numChunkRegs; r++ {
		if chunkRegNames[r] == registered {
			return r
		}
	}
	return ChunkRegNone
}

// ChunkComm is what calcCollChunking reads of the communicator.
type ChunkComm struct {
	// BuffSize is comm->buffSizes (NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE,
	// NCCL_BUFFSIZE or their defaults); zero cells take DefaultBuffSize.
	BuffSize [nccl.NumProtos]int `json:"buffSize"`
	NRanks   int                 `json:"nRanks"`
	NNodes   int                 `json:"nNodes"`
	// NVLSHeads is channels[0].nvls.nHeads, CollNetHeads
	// channels[0].collnetDirect.nHeads, CollNetDepth
	// channels[0].collnetDirect.depth; collnetChain.depth is
	// nRanks/nNodes.
	NVLSHeads    int `json:"nvlsHeads,omitempty"`
	CollNetHeads int `json:"collNetHeads,omitempty"`
	CollNetDepth int `json:"collNetDepth,omitempty"`
	// NVLSChunkSize is comm->nvlsChunkSize (NCCL_NVLS_CHUNKSIZE or 2.30.3's
	// ncclNvlsTuning; 0: 128 KiB) and NVLSTreeMaxChunkSize NVLSTree's cap
	// (NCCL_NVLSTREE_MAX_CHUNKSIZE or comm->nvlsTreeMaxChunkSize; 0: unset).
	NVLSChunkSize        int `json:"nvlsChunkSize,omitempty"`
	NVLSTreeMaxChunkSize int `json:"nvlsTreeMaxChunkSize,omitempty"`
	// NVLSBw is comm->bandwidths[AllReduce][NVLS][Simple] (GB/s).
	NVLSBw float64    `json:"nvlsBw,omitempty"`
	Rules  ChunkRules `json:"rules,omitzero"`
	// TunerGetChunkSize: the loaded tuner has getChunkSize (a v6 tuner at
	// a release that calls it, 2.30.3+; older ABIs are adapted with none).
	TunerGetChunkSize bool `json:"tunerGetChunkSize,omitempty"`
	// MaxCollBytes is the CollNet plugin's maxCollBytes property, the most
	// one plugin collective of registered buffers moves (ProxyOp.NetSteps);
	// 0 where gatesim does not know it (a plugin of API v9 or newer gives
	// its own).
	MaxCollBytes int64 `json:"maxCollBytes,omitempty"`
}

// nvlsChunkSizeDefault is NCCL_NVLS_CHUNKSIZE's default (and the constant
// of computeColl before the variable).
const nvlsChunkSizeDefault = 128 << 10

// Buff is the protocol's buffer of the communicator.
func (cc *ChunkComm) Buff(p nccl.Proto) int {
	if p < 0 || int(p) >= nccl.NumProtos {
		return 0
	}
	if b := cc.BuffSize[p]; b > 0 {
		return b
	}
	return DefaultBuffSize[p]
}

// ChunkGeometry is calcCollChunking's start: the step size of the
// protocol's buffer, the chunk and slice steps (Ring/Simple: the
// function's; otherwise 1) and the step-sized chunk, halved for LL (half
// of every line is flags) and 15/16 for LL128. That chunk is also
// bufferMaxChunkSize, the ceiling of a tuner's answer. A Ring AllGather
// the network registered on one rank per node (netRegOneRPN) moves one
// step per chunk and per slice (proxyOp's chunkSteps and sliceSteps; the
// kernel's ProtoSimple<1, 1>).
func (cc *ChunkComm) ChunkGeometry(f nccl.Func, a nccl.Algo, p nccl.Proto, reg ChunkReg) (stepSize, chunkSteps, sliceSteps, chunk int) {
	stepSize = cc.Buff(p) / NSteps
	chunkSteps, sliceSteps = 1, 1
	if p == nccl.Simple && a == nccl.Ring && f >= 0 && int(f) < nccl.NumFuncs && !cc.netRegOneRPN(f, a, reg) {
		chunkSteps, sliceSteps = RingChunkSteps[f], RingSliceSteps[f]
	}
	chunk = stepSize * chunkSteps
	switch p {
	case nccl.LL:
		chunk /= 2
	case nccl.LL128:
		chunk = chunk / LL128LineElems * LL128DataElems
	}
	return stepSize, chunkSteps, sliceSteps, chunk
}

// ChunkCall is one getChunkSize call: the function, the bytes of the
// calcCollChunking call, the chosen algorithm and protocol, its channels
// and NCCL's chunk (not yet aligned). BufferMax is NCCL's ceiling
// (bufferMaxChunkSize), not part of what the plugin is passed.
type ChunkCall struct {
	Func      nccl.Func
	NBytes    int64
	Algo      nccl.Algo
	Proto     nccl.Proto
	NChannels int
	Chunk     int64
	BufferMax int64
}

// ChunkSizer is a v6 tuner's getChunkSize: the chunk it wants (NCCL clamps
// it to BufferMax and aligns it to the protocol's grain) or the error that
// fails the collective.
type ChunkSizer interface {
	ChunkSize(c ChunkCall) (uint64, error)
}

// CollChunk is calcCollChunking's chunk in bytes for nBytes spread over
// nChannels with algorithm a and protocol p: the step-sized chunk, shrunk
// for small operations by the algorithm's rules, replaced by a v6 tuner's
// answer (sizer non-nil; clamped to the buffer's chunk) and aligned down to
// the protocol's grain. tuned says the tuner's answer was taken. A tuner
// error fails the collective; so does an answer below the grain, which
// aligns to 0 and on which NCCL's loop count divides by zero.
//
// Buffers registered for the task (reg, G-SEL-CHUNK-2) change two of
// the rules: an NVLS AllGather or ReduceScatter on NVLS-registered
// buffers keeps the Simple step (2.27.3+), and a Ring AllGather the
// network registered on one rank per node moves NCCL_MAX_NET_SIZE after
// everything else, a tuner's answer included (2.24.3+: proxyOp's chunk,
// which calcCollChunking returns).
//
// Ref: v2.30.7-1 src/enqueue.cc calcCollChunking (G-SEL-CHUNK-1; v2.22.3-1
// the same rules without PAT and the tuner; v2.20.3-1 computeCollChunkInfo,
// v2.18.1-1 computeColl for the NVLS and NVLSTree rules; v2.27.3-1 the
// NVLS-registered branch; v2.24.3-1 the network-registered one)
func (cc *ChunkComm) CollChunk(f nccl.Func, a nccl.Algo, p nccl.Proto, reg ChunkReg, nChannels int, nBytes int64, sizer ChunkSizer) (chunk int64, tuned bool, err error) {
	if p < 0 || int(p) >= nccl.NumProtos || nChannels <= 0 || nBytes < 0 {
		return 0, false, fmt.Errorf("chunk: %s/%s on %d channels, %d bytes: expected a protocol, channels > 0 and bytes ≥ 0", a, p, nChannels, nBytes)
	}
	_, _, _, step := cc.ChunkGeometry(f, a, p, ChunkRegNone)
	c, bufferMax := int64(step), int64(step)
	nc := int64(nChannels)
	switch {
	case a == nccl.Tree && p == nccl.Simple && f == nccl.AllReduce && cc.Rules.TreeSimpleDepth:
		// connectTrees: "not an exact value but a good approximation"
		nNodes := int64(max(1, cc.NNodes))
		depth := int64(cc.NRanks)/nNodes - 1 + int64(log2i(nNodes))
		for _, s := range treeSimpleHalving {
			for nBytes/(nc*c) < depth*s.Mul && c > s.Above {
				c /= 2
			}
		}
	case a == nccl.CollNetDirect:
		heads, depth := int64(max(1, cc.CollNetHeads)), int64(max(1, cc.CollNetDepth))
		for _, s := range collNetDirectHalving {
			for nBytes/(nc*heads*c) < depth*s.Mul && c > s.Above {
				c /= 2
			}
		}
	case a == nccl.CollNetChain:
		c = min(collNetChainMaxChunk, int64(cc.Buff(nccl.Simple)/NSteps))
		depth := int64(max(1, cc.NRanks/max(1, cc.NNodes)))
		for _, s := range collNetChainHalving {
			for nBytes/(nc*c) < depth*s.Mul && c > s.Above {
				c /= 2
			}
		}
	case a == nccl.NVLS && reg == ChunkRegNVLS && cc.Rules.NVLSRegStepChunk && (f == nccl.AllGather || f == nccl.ReduceScatter):
		c = int64(cc.Buff(nccl.Simple) / NSteps)
	case a == nccl.NVLS:
		maxChunk := int64(cmpOr(cc.NVLSChunkSize, nvlsChunkSizeDefault))
		if cc.Rules.NVLSNetChunkCap && cc.NNodes > 1 && cc.NVLSBw < nvlsNetSlowBw {
			maxChunk = nvlsNetSlowChunk
		}
		c = min(c, maxChunk)
		ops := nc * int64(max(1, cc.NVLSHeads))
		for _, s := range nvlsCaps {
			if nBytes < s.Mul*ops*c && c > s.Above {
				c = s.Above
			}
		}
	case a == nccl.NVLSTree:
		ops := nc * int64(max(1, cc.NVLSHeads))
		if !cc.Rules.NVLSTreeChunkFromStep {
			c = int64(cmpOr(cc.NVLSChunkSize, nvlsChunkSizeDefault))
		}
		maxChunk := c
		switch {
		case cc.NVLSTreeMaxChunkSize > 0:
			maxChunk = int64(cc.NVLSTreeMaxChunkSize)
		case cc.Rules.NVLSTreeChunkCap4Nodes && cc.NNodes >= 4:
			maxChunk = nvlsTreeCap4Nodes
		}
		c = min(c, maxChunk)
		for _, s := range nvlsTreeCaps {
			if nBytes < s.Mul*ops*c && c > s.Above {
				c = s.Above
			}
		}
	case a == nccl.Tree && p == nccl.LL128:
		// float ppn; float nstepsLL128 = 1+log2i(nNodes) + 0.1*ppn (the sum
		// in double, stored as float); the left side divides as integers
		nNodes := max(1, cc.NNodes)
		ppn := float32(cc.NRanks) / float32(nNodes)
		nsteps := float32(float64(1+log2i(int64(nNodes))) + 0.1*float64(ppn))
		for _, s := range treeLL128Halving {
			for float32(nBytes/(nc*c)) < nsteps*float32(s.Mul)/ppn && c > s.Above {
				c /= 2
			}
		}
	case a == nccl.PAT && f == nccl.AllGather:
		for c*nc*patAllGatherHalving.Mul > nBytes && c > patAllGatherHalving.Above {
			c /= 2
		}
	case a == nccl.PAT && f == nccl.ReduceScatter:
		for c*nc*patReduceScatterHalv.Mul > nBytes && c > patReduceScatterHalv.Above {
			c /= 2
		}
	}
	g := int64(GrainSize[p])
	if sizer != nil {
		asked, err := sizer.ChunkSize(ChunkCall{Func: f, NBytes: nBytes, Algo: a, Proto: p, NChannels: nChannels, Chunk: c, BufferMax: bufferMax})
		if err != nil {
			return 0, false, err
		}
		asked = min(asked, uint64(bufferMax)) // "tuner chunk size %zu exceeds buffer max %d, clamping"
		if int64(asked) < g {
			return 0, false, fmt.Errorf("the tuner's chunk size %d is below the %s grain of %d bytes: NCCL's loop count would divide by zero", asked, p, g)
		}
		c, tuned = int64(asked), true
	}
	if cc.netRegOneRPN(f, a, reg) {
		return MaxNetSize, false, nil
	}
	return c / g * g, tuned, nil
}

// netRegOneRPN is calcCollChunking's net-registration branch that sets the
// chunk: a Ring AllGather with NCCL_NET_REG_BUFFER on a communicator of
// one rank per node (comm->isOneRPN), where the release has it.
//
// Ref: v2.30.7-1 src/enqueue.cc calcCollChunking (v2.24.3-1 likewise);
// src/device/all_gather.h runRing (isNetOffload: chunkCount
// NCCL_MAX_NET_SIZE)
func (cc *ChunkComm) netRegOneRPN(f nccl.Func, a nccl.Algo, reg ChunkReg) bool {
	return reg == ChunkRegNet && cc.Rules.NetRegRingAllGather && a == nccl.Ring && f == nccl.AllGather && cc.NRanks == cc.NNodes
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func log2i(n int64) int {
	if n <= 0 {
		return -1
	}
	return 63 - bits.LeadingZeros64(uint64(n))
}

// OpChunk is calcCollChunking's answer for one collective as
// scheduleCollTasksToPlan asks it (2.22.3+): the chunk in bytes of the
// task's first channel (Lo), of each channel between (Mid) and of its last
// (Hi), each sized on its own part's bytes with one channel; 0 where a part
// is empty. A CollNet task (and NVLS across nodes) walks the whole buffer
// on every channel: one chunk, Lo, sized on the whole task. StepSize,
// ChunkSteps and SliceSteps are the FIFO geometry (sliceSize = chunk /
// chunkSteps × sliceSteps); BufferMax is the step-sized chunk a tuner's
// answer is clamped to; Tuned: a v6 tuner's getChunkSize set the chunks.
type OpChunk struct {
	Lo, Mid, Hi int64
	StepSize    int
	ChunkSteps  int
	SliceSteps  int
	BufferMax   int64
	Tuned       bool
	// Proxy is the proxy op of the first channel's part, with the steps
	// of the others (G-REG-PROXY-1).
	Proxy ProxyOp
}

// Set reports whether the chunk was computed (a cost-table collective that
// moves data).
func (o OpChunk) Set() bool { return o.StepSize > 0 }

// String is the chunk as explain prints it: "131072 B" for one chunk,
// "lo 65536 B, mid 131072 B, hi 32768 B" where the parts differ.
func (o OpChunk) String() string {
	if !o.Set() {
		return ""
	}
	s := fmt.Sprintf("%d B", o.Lo)
	if (o.Mid != 0 && o.Mid != o.Lo) || (o.Hi != 0 && o.Hi != o.Lo) {
		s = fmt.Sprintf("lo %d B", o.Lo)
		if o.Mid != 0 {
			s += fmt.Sprintf(", mid %d B", o.Mid)
		}
		if o.Hi != 0 {
			s += fmt.Sprintf(", hi %d B", o.Hi)
		}
	}
	s += fmt.Sprintf(" (step %d B, %d/%d steps per chunk/slice", o.StepSize, o.ChunkSteps, o.SliceSteps)
	if o.Tuned {
		s += ", set by the tuner's getChunkSize"
	}
	return s + ")"
}

// CollNetWhole reports whether a task of algorithm a walks the whole
// buffer on every channel (scheduleCollTasksToPlan's isCollnet: CollNet,
// and NVLS across nodes, which goes through CollNet).
func (cc *ChunkComm) CollNetWhole(a nccl.Algo) bool {
	return a.IsCollNet() || (a == nccl.NVLS && cc.NNodes > 1)
}

// OpChunk is the chunks of one collective of count elements of elemSize
// bytes (AllGather and Broadcast: bytes) split as part says, on buffers
// registered as reg. calcCollChunking sizes on global bytes: count ×
// elemSize × nRanks for AllGather and ReduceScatter (AllReduce's are not
// doubled). A CollNet task (and NVLS across nodes) is sized once on all
// its nChannels channels.
//
// Ref: v2.30.7-1 src/enqueue.cc scheduleCollTasksToPlan (G-SEL-CHUNK-1)
func (cc *ChunkComm) OpChunk(f nccl.Func, a nccl.Algo, p nccl.Proto, reg ChunkReg, elemSize int64, count int64, part CBDPart, nChannels int, sizer ChunkSizer) (OpChunk, error) {
	global := elemSize
	if f == nccl.AllGather || f == nccl.ReduceScatter {
		global *= int64(cc.NRanks)
	}
	if cc.CollNetWhole(a) {
		return cc.TaskChunk(f, a, p, reg, max(1, nChannels), global*count, sizer)
	}
	o := cc.opGeometry(f, a, p, reg)
	var err error
	size := func(n int64) (int64, ProxyOp) {
		if n == 0 || err != nil {
			return 0, ProxyOp{}
		}
		c, t, e := cc.CollChunk(f, a, p, reg, 1, global*n, sizer)
		if e != nil {
			err = e
			return c, ProxyOp{}
		}
		o.Tuned = o.Tuned || t
		return c, cc.proxyOf(f, a, p, reg, 1, global*n, c, sizer)
	}
	// the order of scheduleCollTasksToPlan's calls: lo, hi, mid
	o.Lo, o.Proxy = size(part.CountLo)
	var hi, mid ProxyOp
	o.Hi, hi = size(part.CountHi)
	if part.Hi-part.Lo > 1 {
		o.Mid, mid = size(part.CountMid)
	}
	o.Proxy.NStepsMid, o.Proxy.NStepsHi = mid.NSteps, hi.NSteps
	return o, err
}

// proxyOf is the proxy op of one calcCollChunking call that returned
// chunk; the unregistered chunk is asked again only where the
// registration changed it.
func (cc *ChunkComm) proxyOf(f nccl.Func, a nccl.Algo, p nccl.Proto, reg ChunkReg, nChannels int, nBytes, chunk int64, sizer ChunkSizer) ProxyOp {
	unreg := chunk
	if cc.netRegOneRPN(f, a, reg) {
		unreg, _, _ = cc.CollChunk(f, a, p, ChunkRegNone, nChannels, nBytes, sizer)
	}
	return cc.ProxyOp(f, a, p, reg, nChannels, nBytes, chunk, unreg)
}

// TaskChunk is a task's one calcCollChunking call on nBytes over
// nChannels channels: a CollNet task's from 2.22.3, every task's before
// (Lo; computeColl, computeCollChunkInfo).
func (cc *ChunkComm) TaskChunk(f nccl.Func, a nccl.Algo, p nccl.Proto, reg ChunkReg, nChannels int, nBytes int64, sizer ChunkSizer) (OpChunk, error) {
	o := cc.opGeometry(f, a, p, reg)
	if nBytes == 0 {
		return o, nil
	}
	c, t, err := cc.CollChunk(f, a, p, reg, nChannels, nBytes, sizer)
	o.Lo, o.Tuned = c, t
	if err == nil {
		o.Proxy = cc.proxyOf(f, a, p, reg, nChannels, nBytes, c, sizer)
	}
	return o, err
}

// opGeometry is an OpChunk's FIFO geometry, before any chunk.
func (cc *ChunkComm) opGeometry(f nccl.Func, a nccl.Algo, p nccl.Proto, reg ChunkReg) OpChunk {
	var o OpChunk
	var bm int
	o.StepSize, o.ChunkSteps, o.SliceSteps, bm = cc.ChunkGeometry(f, a, p, reg)
	if cc.netRegOneRPN(f, a, reg) {
		_, _, _, bm = cc.ChunkGeometry(f, a, p, ChunkRegNone) // the tuner's ceiling is the buffer's chunk
	}
	o.BufferMax = int64(bm)
	return o
}

// ChunkComm is the communicator calcCollChunking reads: the input's chunk
// facts (Input.Chunk) with the model's ranks, nodes, heads and NVLS
// AllReduce bandwidth.
func (m *Model) ChunkComm() ChunkComm {
	cc := m.In.Chunk
	cc.NRanks, cc.NNodes = m.In.NRanks, m.In.NNodes
	cc.NVLSHeads, cc.CollNetHeads = m.In.NVLSHeads, m.In.CollNetDirectHeads
	cc.NVLSBw = float64(m.Bandwidths[nccl.AllReduce][nccl.NVLS][nccl.Simple])
	if cc.CollNetDepth == 0 {
		cc.CollNetDepth = 2
	}
	return cc
}

// OpChunk is calcCollChunking's chunks for a choice the cost table made
// (zero for a discarded, one-rank, p2p, symmetric or copy-engine
// operation and for an error), on the buffers the scheduler registered
// (G-SEL-CHUNK-2), with the declarative tuner's getChunkSize where the
// release calls it (TunerChunkSize, 2.30.3+). Before 2.22.3 the schedule
// made one call per task and recorded its bytes and channels in the
// choice (ChunkNBytes, ChunkNChannels; G-SEL-CHUNK-3).
func (m *Model) OpChunk(ch *OpChoice) (OpChunk, error) {
	if ch == nil || ch.Err != nil || ch.Discarded || ch.OneRank || ch.P2P || ch.SidePath != "" ||
		ch.Algo < 0 || int(ch.Algo) >= nccl.NumAlgos || ch.Proto < 0 || int(ch.Proto) >= nccl.NumProtos {
		return OpChunk{}, nil
	}
	cc := m.ChunkComm()
	f, count, elem := ch.Op.Func, ch.Op.Count, int64(ch.Op.DataType.Size())
	if f == nccl.AllGather || f == nccl.Broadcast {
		count, elem = count*elem, 1 // the tasks move bytes
	}
	var sizer ChunkSizer
	if m.Tuning.TunerChunkSize && cc.TunerGetChunkSize && m.In.Tuner.HasChunkRules() {
		sizer = m.In.Tuner
	}
	args := ch.ChunkArgs()
	if m.Tuning.Schedule != ScheduleR22 {
		if args.NChannels <= 0 {
			return OpChunk{}, nil // the schedule placed no call
		}
		o, err := cc.TaskChunk(f, ch.Algo, ch.Proto, args.Reg, args.NChannels, args.NBytes, sizer)
		// before 2.22.3 only a registered task's proxy op is modelled
		// (computeColl's own loop is not followed)
		if o.Proxy.FIFOSteps = 0; !o.Proxy.Reg {
			o.Proxy = ProxyOp{}
		}
		return o, err
	}
	return cc.OpChunk(f, ch.Algo, ch.Proto, args.Reg, elem, count, ch.Part, ch.NChannels, sizer)
}

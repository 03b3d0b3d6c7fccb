package tuning

// NCCL's tuning model, part 3: the choice for one (aggregated) operation —
// getAlgoInfo, updateCollCostTable, ncclTopoGetAlgoTime, the tuner hook and
// topoGetAlgoInfo of src/enqueue.cc and src/graph/tuning.cc.

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/gatesim/gatesim/nccl"
)

// Rule IDs of the per-operation path (nccl-gates.md §8).
const (
	RuleSelPrune  nccl.RuleID = "G-SEL-PRUNE-1"
	RuleSelPick   nccl.RuleID = "G-SEL-PICK-1"
	RuleSelBackup nccl.RuleID = "G-SEL-BACKUP-1"
	RuleSelErr    nccl.RuleID = "G-SEL-ERR-1"
	RuleTunerCall nccl.RuleID = "G-TUNER-CALL-1"
	RuleCTAPolicy nccl.RuleID = "G-SEL-CTAPOL-1"
)

// Ignore is NCCL_ALGO_PROTO_IGNORE, the cost of a cell that may not be
// chosen.
const Ignore float32 = -1.0

// Call is one collective call of a group, with the per-operation support
// bits the gate engine computes (G-SEL-OPSUP-1).
type Call struct {
	Op nccl.Op `json:"op"`
	// CollNetOK is getCollNetSupport's answer for the op's bin: collnet
	// enabled and, for AllReduce/Reduce/ReduceScatter, the plugin's reduction
	// matrix supports (netOp, datatype).
	CollNetOK bool `json:"collNetOK"`
	// NVLSOK is nvlsSupport: comm->nvlsSupport and (AllGather or
	// ncclNvlsSupported(devOp, datatype)).
	NVLSOK bool `json:"nvlsOK"`
	// RegBuff tells a tuner that both buffers are registered.
	RegBuff bool `json:"regBuff,omitempty"`
	// InPlace: the receive buffer is the send buffer (AllGather: the send
	// buffer is the rank's slice of it). Buffers says what NCCL knows of
	// them; Graph that the call is captured into a CUDA graph
	// (planner->persistent). All three matter only to the buffer
	// registration after the choice (G-REG-IPC-1).
	InPlace bool         `json:"inPlace,omitempty"`
	Buffers nccl.Buffers `json:"buffers,omitempty"`
	Graph   bool         `json:"graph,omitempty"`
	// Alloc is how the buffers were allocated: cudaMalloc memory is
	// registered neither with NVLS nor (2.24.3+ by default) over IPC
	// (G-REG-SKIP-1).
	Alloc nccl.Alloc `json:"alloc,omitempty"`
	// Tuned is a loaded tuner's answer for this operation (it replaces
	// the declarative TunerBehaviour's rules).
	Tuned *TunerEdit `json:"-"`
}

// CostReason says why a cost-table cell cannot be chosen (or that a
// tuner wrote it). It is a small code so that a choice costs no
// allocation; OpChoice.Explain turns it into a rule ID and a sentence.
type CostReason uint8

const (
	CostOK      CostReason = iota // computed and usable
	CostNoAlgo                    // the algorithm does not exist in this release
	CostP1                        // CollNet not supported for the op
	CostP2                        // CollNetDirect: too many local ranks
	CostP3                        // CollNetChain: too many local ranks
	CostP4                        // NVLS not supported for the op
	CostP4Arity                   // NVLS: too many local ranks for a non-AllReduce
	CostP5                        // multi-node NVLS without CollNet
	CostP6                        // NVLS AllGather/ReduceScatter on several nodes (≤ 2.26)
	CostP7                        // PAT ReduceScatter with a scaling reduction
	CostP8                        // fp8 Ring on more than 8 ranks: time ×1024
	CostZeroBw                    // the model's bandwidth is 0 (see Model.Zeroed)
	CostNaN                       // the model's bandwidth is NaN (CollNetDirect without a graph)
	CostBackup                    // 2.22.3: Ring kept aside as the backup
	CostTuner                     // the tuner plugin wrote this cell
	numTuningCostReasons
)

var tuningCostReasonNames = [numTuningCostReasons]string{"", "no-such-algo", "P1", "P2", "P3", "P4", "P4'", "P5", "P6", "P7", "P8",
	"zero-bandwidth", "nan-bandwidth", "ring-backup", "tuner"}

func (r CostReason) String() string {
	if r < numTuningCostReasons {
		return tuningCostReasonNames[r]
	}
	return fmt.Sprintf("CostReason(%d)", int(r))
}

// MarshalText writes the short name.
func (r CostReason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads the short name.
func (r *CostReason) UnmarshalText(b []byte) error {
	for i, n := range tuningCostReasonNames {
		if n == string(b) {
			*r = CostReason(i)
			return nil
		}
	}
	return fmt.Errorf("unknown cost reason %q", b)
}

// CostCell is one cell of an operation's cost table, explained.
type CostCell struct {
	// Time is the estimate in µs, or a negative value (Ignore, or −1
	// for a zero bandwidth) for a cell that cannot be chosen.
	Time   float32    `json:"time"`
	Reason CostReason `json:"reason,omitempty"`
	// Rule and Why explain the reason: the pruning rule, the model rule that
	// left the bandwidth at 0, the backup, the tuner.
	Rule nccl.RuleID `json:"rule,omitempty"`
	Why  string      `json:"why,omitempty"`
}

// Usable reports whether topoGetAlgoInfo may pick the cell.
func (c CostCell) Usable() bool { return c.Time != Ignore && c.Time >= 0 }

// tuningDevOp is ncclDevRedOp_t: Max and Min share MinMax; Avg is a
// pre-multiplied sum for floats and a sum-then-divide for integers.
type tuningDevOp int

const (
	tuningDevSum tuningDevOp = iota
	tuningDevProd
	tuningDevMinMax
	tuningDevPreMulSum
	tuningDevSumPostDiv
	tuningNumDevOps
)

// tuningDevOpOf is hostToDevRedOp's mapping (the reduction NCCL bins and
// prunes by).
func tuningDevOpOf(op nccl.RedOp, dt nccl.DataType) tuningDevOp {
	switch op {
	case nccl.Sum:
		return tuningDevSum
	case nccl.Prod:
		return tuningDevProd
	case nccl.Max, nccl.Min:
		return tuningDevMinMax
	case nccl.Avg:
		switch dt {
		case nccl.Int8, nccl.Int32, nccl.Int64, nccl.Uint8, nccl.Uint32, nccl.Uint64:
			return tuningDevSumPostDiv
		}
		return tuningDevPreMulSum
	}
	return tuningDevPreMulSum
}

// tuningTask is an ncclTaskColl: one collective, after collTaskAppend's
// AllGather/Broadcast conversion to bytes.
type tuningTask struct {
	index   int // position in the group
	op      Call
	fn      nccl.Func
	count   int64
	dtype   nccl.DataType
	devOp   tuningDevOp
	traffic int64
	algo    nccl.Algo
	proto   nccl.Proto
	nMaxCh  int
	nWarps  int
	// aggNBytes is the nBytes of the task's aggregate (2.20.3–2.21.5's
	// aggnBytes), summed over its members
	aggNBytes int64
	collnet   bool
	nvls      bool
	choice    *OpChoice
	sortSeq   int
	sortBin   int
	// symOp is the device reduction the symmetric task list reads
	// (symkRedOp: an Avg is SumPostDiv from 2.30.3), devOp otherwise
	symOp tuningDevOp
	// sym: window buffers a symmetric kernel takes (G-SEL-SIDE-1); the
	// task leaves the collective planner
	sym bool
	// symBack: ncclMakeSymmetricTaskList lists the task (2.29.2+) and is
	// sure to send it back to the cost table (buffers outside windows, no
	// kernel forced, no NCCL_SYM_NOWIN_ENABLE): its decision is the cost
	// table's, its place in the cost table's bins is not the sorter's
	symBack bool
}

// tuningAgg is the result of getAlgoInfo for one aggregate.
type tuningAgg struct {
	nBytes     int64
	numPipeOps int
	cost       [nccl.NumAlgos][nccl.NumProtos]float32
	reason     [nccl.NumAlgos][nccl.NumProtos]CostReason
	// live has bit a×NumProtos+p set for every cell that may be chosen
	// (a time ≥ 0, or a tuner's number): every other cell is negative
	// or NaN, so topoGetAlgoInfo's scan visits the live cells only.
	live     uint32
	algo     nccl.Algo
	proto    nccl.Proto
	time     float32
	backup   bool
	tunerNCh int
	nc, nt   int
	// presetNC is an aggregate's nChannels before 2.20.3: the channel
	// loop starts there and the cost table scales bandwidths by it.
	presetNC  int
	line      string // 2.22.3/2.23.4 per-aggregate line
	err       *nccl.NCCLError
	warn      string
	decidedBy nccl.RuleID
}

// the live bits of a cost table fit a uint32
var _ [32 - nccl.NumAlgos*nccl.NumProtos]struct{}

// setLive marks cell (a, p) as one the scan must look at.
func (g *tuningAgg) setLive(a nccl.Algo, p nccl.Proto) {
	g.live |= 1 << (int(a)*nccl.NumProtos + int(p))
}

// MaxSendRecvCount is ncclFuncMaxSendRecvCount.
func MaxSendRecvCount(f nccl.Func, nRanks int, count int64) int64 {
	if f == nccl.AllGather || f == nccl.ReduceScatter {
		return int64(nRanks) * count
	}
	return count
}

// tuningTrafficPerByte is ncclFuncTrafficPerByte.
func tuningTrafficPerByte(f nccl.Func, nRanks int) int64 {
	switch f {
	case nccl.AllReduce:
		return 2
	case nccl.AllGather, nccl.ReduceScatter:
		return int64(nRanks)
	}
	return 1
}

// rowTimes is ncclTopoGetAlgoTime for algorithm a's three cells, written
// into g's cost table with their reasons: −1 for a zero bandwidth, else
// lat × latCount + nBytes / (1000 × bw) with the Tree correction and the
// ring plateau; 2.22.3's Ring cells without bandwidth are timed with the
// saved Ring bandwidth and kept aside as the backup (bk, the fastest), and
// an fp8 Ring is penalised (fp8Ring). s holds what the cells of one size
// share (tuningSizeTerms); what one row shares (its latency count, which
// corrections apply) is settled once for its three protocols.
//
// Ref: v2.28.9-1 src/graph/tuning.cc ncclTopoGetAlgoTime; src/enqueue.cc
// updateCollCostTable
func (m *Model) rowTimes(f nccl.Func, a nccl.Algo, bws, lats *[nccl.NumProtos]float32, s *tuningSizeTerms, fp8Ring bool, g *tuningAgg, bk *tuningBackup) {
	c := m.Tuning
	cost, reason := &g.cost[a], &g.reason[a]
	logSize := s.logSize
	treeCorr := a == nccl.Tree && (f == nccl.AllReduce || !c.TreeCorrectionAllReduceOnly) && logSize >= 0 && logSize < int64(c.TreeCorrectionLen) ||
		s.nvlsTreeCorrection && a == nccl.NVLSTree && f == nccl.AllReduce
	ringBackup := c.RingBackup && a == nccl.Ring
	latCount := float32(s.numPipeOps)
	if a != nccl.Ring {
		latCount = float32(s.latCountNonRing)
	}
	for p := range nccl.NumProtos {
		bw, lat := bws[p], lats[p]
		backup := false
		if ringBackup && bw == 0.0 {
			bw = m.RingBackupBw[f][p]
			backup = true
		}
		time := float32(-1.0)
		if bw != 0 {
			if treeCorr {
				bw *= c.TreeCorrection[p][logSize]
			}
			if s.nChannels != 0 && m.In.NChannels > 0 {
				// an aggregate's bandwidth on its own channels (float / int × int)
				bw = bw / float32(m.In.NChannels) * float32(s.nChannels)
			}
			if a == nccl.Ring && p == int(nccl.Simple) && s.ringPlateau {
				lat = float32(float64(lat) * s.plateau) // plateau effect of ring
			}
			// float lat × int, plus size_t / float: nBytes is converted to float.
			time = float32(lat*latCount) + s.nBytesF/(1000*bw)
		}
		if !backup {
			cost[p] = time
			switch {
			case time < 0:
				reason[p] = CostZeroBw
			case time != time: // NaN: never chosen
				reason[p] = CostNaN
			}
		} else {
			reason[p] = CostBackup
			if time >= 0 && time < bk.time {
				bk.algo, bk.proto, bk.time = a, nccl.Proto(p), time
			}
		}
		if fp8Ring && a == nccl.Ring {
			// Relegate deep fp8 reduction rings (precision loss) to last.
			cost[p] = float32(float64(cost[p]) * c.FP8RingPenalty)
			if reason[p] == CostOK {
				reason[p] = CostP8
			}
		}
		if cost[p] >= 0 {
			g.setLive(a, nccl.Proto(p))
		}
	}
}

// tuningBackup is 2.22.3's Ring backup cell and its time.
type tuningBackup struct {
	algo  nccl.Algo
	proto nccl.Proto
	time  float32
}

// tuningSizeTerms is what ncclTopoGetAlgoTime computes alike for every cell
// of one size: log2 of the size in 64-byte units, whether the NVLSTree
// correction and the ring plateau apply (for the cells they name), and the
// latency count of the algorithms other than Ring.
type tuningSizeTerms struct {
	nBytes             int64
	nBytesF            float32 // float(nBytes), as NCCL converts the size_t
	numPipeOps         int
	logSize            int64
	nvlsTreeCorrection bool
	ringPlateau        bool
	plateau            float64
	latCountNonRing    int
	// nChannels is the aggregate's preset channel count (0: none).
	nChannels int
}

func (m *Model) sizeTerms(f nccl.Func, nBytes int64, numPipeOps int) tuningSizeTerms {
	c, in := m.Tuning, &m.In
	s := tuningSizeTerms{nBytes: nBytes, nBytesF: float32(uint64(nBytes)), numPipeOps: numPipeOps, logSize: tuningLog2i(nBytes >> 6)}
	s.nvlsTreeCorrection = c.NVLSTreeCorrection && s.logSize >= 0 && s.logSize < TreeCorrections &&
		in.MinCompCap >= 100 && in.CPUArch == ArchX86
	s.ringPlateau = in.NNodes > 1 && !(c.MNNVLOneNode && in.MNNVL) && f == nccl.AllReduce && in.NChannels > 0 &&
		uint64(nBytes)/uint64(in.NChannels*in.NRanks) >= 64
	s.plateau = c.RingPlateau
	if in.MinCompCap < 80 {
		s.plateau = c.RingPlateauPreAmpere
	}
	s.latCountNonRing = numPipeOps
	if c.MaxDevWorkBatchColls > 0 {
		s.latCountNonRing = nccl.DivUp(numPipeOps, c.MaxDevWorkBatchColls)
	}
	return s
}

// ignoreTable is a cost table whose every cell is IGNORE, where
// updateCollCostTable starts.
var ignoreTable = func() (t [nccl.NumAlgos][nccl.NumProtos]float32) {
	for a := range t {
		for p := range t[a] {
			t[a][p] = Ignore
		}
	}
	return t
}()

// costTable is updateCollCostTable (with 2.22.3's Ring backup) for an
// aggregate of one (function, op, datatype) bin. g's reasons are zero
// (CostOK) on entry.
//
// Ref: v2.28.9-1 src/enqueue.cc updateCollCostTable (v2.22.3-1 likewise)
func (m *Model) costTable(t *tuningTask, nBytes int64, numPipeOps int, g *tuningAgg) (backupAlgo nccl.Algo, backupProto nccl.Proto, backupTime float32) {
	c, in := m.Tuning, &m.In
	bk := tuningBackup{nccl.AlgoNone, nccl.ProtoNone, c.PickMaxTime}
	g.cost = ignoreTable
	prune := func(a nccl.Algo, r CostReason) {
		g.reason[a] = [nccl.NumProtos]CostReason{r, r, r}
	}
	f := t.fn
	terms := m.sizeTerms(f, nBytes, numPipeOps)
	terms.nChannels = g.presetNC
	// the fp8 penalty is the same for every Ring cell of the table
	fp8Ring := c.FP8RingPenaltyOn && t.dtype.IsFP8() && in.NRanks > 8
	bws, lats := &m.Bandwidths[f], &m.Latencies[f]
	for ai := range nccl.NumAlgos {
		a := nccl.Algo(ai)
		switch {
		case ai >= c.NumAlgos:
			prune(a, CostNoAlgo)
			continue
		case a.IsCollNet() && !t.op.CollNetOK:
			prune(a, CostP1)
			continue
		case a == nccl.CollNetDirect && c.PruneCollNetArity && in.MaxLocalRanks > c.MaxDirectArity+1:
			prune(a, CostP2)
			continue
		case a == nccl.CollNetChain && c.PruneCollNetChainArity && in.MaxLocalRanks > c.MaxDirectArity+1:
			prune(a, CostP3)
			continue
		}
		if a.IsNVLS() {
			switch c.PruneNVLS {
			case NVLSPruneR22:
				if !t.op.NVLSOK && f != nccl.AllGather {
					prune(a, CostP4)
					continue
				}
			case NVLSPruneR20:
				if !t.op.NVLSOK {
					prune(a, CostP4)
					continue
				}
			case NVLSPruneArity:
				if !t.op.NVLSOK {
					prune(a, CostP4)
					continue
				}
				if f != nccl.AllReduce && in.LocalRanks > c.MaxNVLSArity {
					prune(a, CostP4Arity)
					continue
				}
			}
		}
		if a == nccl.NVLS && !t.op.CollNetOK && in.NNodes > 1 {
			prune(a, CostP5)
			continue
		}
		if a == nccl.NVLS && c.PruneNVLSMultiNodeAGRS && (f == nccl.AllGather || f == nccl.ReduceScatter) &&
			(in.NNodes > 1 || c.PruneNVLSAGRSRanks && in.NRanks > c.MaxNVLSArity) {
			prune(a, CostP6)
			continue
		}
		if a == nccl.PAT && c.PrunePATScaling && f == nccl.ReduceScatter && (t.devOp == tuningDevPreMulSum || t.devOp == tuningDevSumPostDiv) {
			prune(a, CostP7)
			continue
		}
		if bws[a] == ([nccl.NumProtos]float32{}) && !(a == nccl.Ring && (c.RingBackup || fp8Ring)) {
			// no bandwidth (an algorithm the function never runs): every
			// cell stays −1, which no scan picks
			g.reason[a] = [nccl.NumProtos]CostReason{CostZeroBw, CostZeroBw, CostZeroBw}
			continue
		}
		m.rowTimes(f, a, &bws[a], &lats[a], &terms, fp8Ring, g, &bk)
	}
	return bk.algo, bk.proto, bk.time
}

// applyTuner is the tuner plugin's getCollInfo: the first matching rule
// writes its cost into one cell (never re-validated) and may set the
// channel count, or fails the call (g.err: NCCLCHECK returns it before
// topoGetAlgoInfo runs).
//
// Ref: v2.28.9-1 src/enqueue.cc getAlgoInfo (G-TUNER-CALL-1)
func (m *Model) applyTuner(f nccl.Func, nBytes int64, g *tuningAgg) {
	tb := m.In.Tuner
	if tb == nil {
		return
	}
	for _, r := range tb.Rules {
		rf, err := nccl.ParseFunc(r.Func)
		if err != nil || rf != f || r.ChunkSize > 0 { // a chunk rule answers getChunkSize only
			continue
		}
		if nBytes < r.MinBytes || (r.MaxBytes != 0 && nBytes > r.MaxBytes) {
			continue
		}
		if r.Result != "" {
			if res, err := ParseTunerResult(r.Result); err == nil {
				g.err, g.decidedBy = TunerCallErr(res), RuleTunerCall
				return
			}
		}
		a, err1 := nccl.ParseAlgo(r.Algo)
		p, err2 := nccl.ParseProto(r.Proto)
		if err1 != nil || err2 != nil || int(a) >= m.Tuning.NumAlgos {
			continue // out of the release's table: not applicable
		}
		g.cost[a][p], g.reason[a][p] = float32(r.Cost), CostTuner
		g.setLive(a, p)
		if r.NChannels > 0 {
			g.tunerNCh = r.NChannels
		}
		return
	}
}

// pick is topoGetAlgoInfo: the argmin (strictly smaller wins, so ties keep
// the lower algorithm then protocol index), the "no algorithm" outcome, and
// the channel and thread counts.
//
// Ref: v2.28.9-1 src/enqueue.cc topoGetAlgoInfo (v2.22.3-1 with the backup)
func (m *Model) pick(t *tuningTask, nBytes int64, g *tuningAgg, backupAlgo nccl.Algo, backupProto nccl.Proto, backupTime float32) {
	c, in := m.Tuning, &m.In
	minTime := c.PickMaxTime
	algo, proto := nccl.AlgoNone, nccl.ProtoNone
	// the live cells in scan order (algorithm, then protocol); IGNORE and
	// the other cells left out are negative or NaN, which the test skips
	for live := g.live; live != 0; live &= live - 1 {
		i := bits.TrailingZeros32(live)
		a, p := i/nccl.NumProtos, i%nccl.NumProtos
		if v := g.cost[a][p]; v >= 0.0 && v < minTime {
			algo, proto, minTime = nccl.Algo(a), nccl.Proto(p), v
		}
	}
	time := minTime
	g.decidedBy = RuleSelPick
	if algo == nccl.AlgoNone {
		if c.NoAlgo == NoAlgoR22 && backupAlgo != nccl.AlgoNone {
			algo, proto, time = backupAlgo, backupProto, backupTime
			g.backup, g.decidedBy = true, RuleSelBackup
		} else {
			g.err, g.warn = m.noAlgoError(t)
			g.decidedBy = RuleSelErr
			return
		}
	}
	g.algo, g.proto, g.time = algo, proto, time
	if in.Rank == 0 {
		switch c.OpLine {
		case OpLineR22:
			g.line = tuningOpLineR22("", nBytes, algo, proto, time)
		case OpLineR23:
			g.line = tuningOpLineR22(t.fn.String()+": ", nBytes, algo, proto, time)
		}
	}

	nc := in.NChannels
	if g.presetNC > 0 {
		nc = g.presetNC // an aggregate's channels before 2.20.3
	}
	g.nc, g.nt = m.channelThreads(algo, proto, nBytes, nc)
}

// channelThreads is the channel and thread count of topoGetAlgoInfo
// (getChannnelThreadInfo in 2.20.3–2.21.5; one loop lowering nc, then nt,
// in 2.18.1–2.19.4, which ends where the two loops end): from nc channels
// and the cell's maxThreads, channels are dropped while nBytes <
// nc × nt × threadThreshold (CollNetDirect by its ncSwitch steps, NVLS at
// nvlsChannels), then threads are halved, and the sync warps added.
//
// Ref: v2.28.9-1 src/enqueue.cc topoGetAlgoInfo (v2.22.3-1 likewise;
// v2.21.5-1 getChannnelThreadInfo and v2.19.4-1 topoGetAlgoInfo without
// Tree's NCCL_MAX_NTHREADS)
func (m *Model) channelThreads(algo nccl.Algo, proto nccl.Proto, nBytes int64, nc int) (int, int) {
	c, in := m.Tuning, &m.In
	nt := m.MaxThreads[algo][proto]
	thr := int32(m.ThreadThresholds[algo][proto]) // ssize_t stored in an int
	// nBytes < nc*nt*threshold: an int product compared as size_t.
	less := func(prod int32) bool { return uint64(nBytes) < uint64(int64(prod)) }
	switch {
	case algo == nccl.CollNetDirect:
		ncSwitch := int32(c.CollNetDirectSwitch)
		flag := true
		heads := int32(in.CollNetDirectHeads)
		for ncSwitch >= 1 && flag {
			for {
				flag = less(int32(nc) * int32(nt) * heads * thr)
				if !(flag && int32(nc) > ncSwitch) {
					break
				}
				if int32(nc) == ncSwitch+ncSwitch/2 {
					thr /= 2
				}
				nc--
			}
			ncSwitch /= 2
		}
	case algo == nccl.NVLS || algo == nccl.NVLSTree:
		if c.NVLSMultiNodeMinChannels && in.NNodes > 1 && algo == nccl.NVLS {
			nc = min(in.NVLSChannels, in.NChannels)
		} else {
			nc = in.NVLSChannels
		}
	default:
		for less(int32(nc) * int32(nt) * thr) {
			if nc >= 2 {
				nc--
			} else {
				break
			}
		}
	}
	if algo != nccl.NVLS && algo != nccl.NVLSTree && algo != nccl.CollNetDirect {
		for less(int32(nc) * int32(nt) * thr) {
			if nt%128 == 0 {
				nt /= 2
			} else {
				break
			}
		}
	}
	if proto == nccl.Simple {
		if algo == nccl.Ring {
			nt += c.WarpSize // extra warp for sync
		}
		if algo == nccl.Tree {
			nt += 4 * c.WarpSize // split thread model
		}
	}
	if nt/c.WarpSize < 3 {
		nt = 3 * c.WarpSize
	}
	if c.TreeAllThreads && (algo == nccl.Tree || algo == nccl.PAT) {
		nt = c.MaxNThreads // Tree and PAT always use all threads
	}
	return nc, nt
}

// noAlgoError is the WARN and result of an operation no cell can serve.
func (m *Model) noAlgoError(t *tuningTask) (*nccl.NCCLError, string) {
	in := &m.In
	switch m.Tuning.NoAlgo {
	case NoAlgoR22:
		w := "Error : no algorithm/protocol available"
		return &nccl.NCCLError{Result: nccl.InternalError, Message: w, Call: "ncclGroupEnd"}, w
	}
	var algoS, protoS string
	if in.Algo != nil {
		algoS = tuningTrunc1023(" NCCL_ALGO was set to " + *in.Algo + ".")
	}
	if in.Proto != nil {
		protoS = tuningTrunc1023(" NCCL_PROTO was set to " + *in.Proto + ".")
	}
	prefix := "Error : no algorithm/protocol available"
	if m.Tuning.NoAlgo == NoAlgoR30 {
		prefix = "No algorithm/protocol available"
	}
	w := prefix + " for function " + t.fn.String() + " with datatype " + tuningDatatypeToString(t.dtype) + "." + algoS + protoS
	res := nccl.InternalError
	if in.Algo != nil || in.Proto != nil {
		res = nccl.InvalidUsage
	}
	return &nccl.NCCLError{Result: res, Message: w, Call: "ncclGroupEnd"}, w
}

// tuningTrunc1023 is snprintf(buf, 1023, ...): at most 1022 characters.
func tuningTrunc1023(s string) string {
	if len(s) > 1022 {
		return s[:1022]
	}
	return s
}

// tuningDatatypeToString is ncclDatatypeToString of src/collectives.cc,
// which has no case for ncclUint8 ("Unknown").
func tuningDatatypeToString(d nccl.DataType) string {
	if d == nccl.Uint8 || d < 0 || d >= nccl.NumDataTypes {
		return "Unknown"
	}
	return d.String()
}

// algoInfo is getAlgoInfo for one aggregate into g (zero): cost table,
// tuner, pick, and the tuner's channel count replacing the computed one.
//
// Ref: v2.28.9-1 src/enqueue.cc getAlgoInfo
func (m *Model) algoInfo(agg *tuningTask, numPipeOps int, g *tuningAgg) {
	m.algoInfoFrom(agg, numPipeOps, 0, g)
}

// algoInfoFrom is algoInfo for an aggregate whose channel count NCCL
// preset (presetNC > 0, before 2.20.3).
func (m *Model) algoInfoFrom(agg *tuningTask, numPipeOps, presetNC int, g *tuningAgg) {
	// g is zero (its caller's fresh one): set field by field
	g.numPipeOps, g.algo, g.proto, g.presetNC = numPipeOps, nccl.AlgoNone, nccl.ProtoNone, presetNC
	elemSize := int64(agg.dtype.Size())
	g.nBytes = elemSize * MaxSendRecvCount(agg.fn, m.In.NRanks, agg.count)
	ba, bp, bt := m.costTable(agg, g.nBytes, numPipeOps, g)
	if agg.op.Tuned != nil {
		agg.op.Tuned.applyToModel(m, g)
	} else {
		m.applyTuner(agg.fn, g.nBytes, g)
		if g.err != nil {
			return
		}
	}
	m.pick(agg, g.nBytes, g, ba, bp, bt)
	if g.err == nil {
		m.ctaPolicy(agg, g)
	}
	if g.err == nil && g.tunerNCh != 0 {
		g.nc = g.tunerNCh
	}
}

// ctaPolicy is G-SEL-CTAPOL-1 after the pick: when CTAPolicyCheck finds
// the override applies, the task moves to NVLS/Simple on the channels its
// registered NVLS resources need.
func (m *Model) ctaPolicy(agg *tuningTask, g *tuningAgg) {
	v := m.CTAPolicyCheck(agg.op, g.nc)
	if v.Cond != CTAPolicyApplies {
		return
	}
	g.algo, g.proto, g.nc, g.nt = nccl.NVLS, nccl.Simple, v.NChannels, m.MaxThreads[nccl.NVLS][nccl.Simple]
	g.decidedBy = RuleCTAPolicy
}

// CTAPolicyCond is the G-SEL-CTAPOL-1 condition that keeps a task on its
// pick (CTAPolicyApplies: none, the override moves it). The first four
// leave the override unread or beside the point; from CTAPolicyAlgoProto
// on, getAlgoInfo reads the policy and the override does not apply.
type CTAPolicyCond uint8

const (
	CTAPolicyApplies      CTAPolicyCond = iota
	CTAPolicyNoRelease                  // the release has no override (before 2.27.3)
	CTAPolicyNotEfficient               // config.CTAPolicy lacks EFFICIENCY
	CTAPolicyFunc                       // not AllGather or ReduceScatter
	CTAPolicyTuner                      // a tuner answers getAlgoInfo
	CTAPolicyAlgoProto                  // NCCL_ALGO or NCCL_PROTO set
	CTAPolicyMNNVL                      // comm->MNNVL
	CTAPolicyNoRegBuff                  // regBuff 0
	CTAPolicyNoSupport                  // no NVLS support (across nodes: NVLS and CollNet)
	CTAPolicyNoResources                // ncclNvlsRegResourcesQuery finds none
	CTAPolicyChannels                   // the resources need more channels than the pick's
)

// CTAPolicyPickKept is CTAPolicyCheck's pickNC for a caller that knows
// the pick stood but not its channel count: all else holding, the
// override needed more channels than the pick had.
const CTAPolicyPickKept = 0

// CTAPolicyVerdict is CTAPolicyCheck's answer: the condition that decided,
// why in words ("" when the override applies), and the channels the task
// moves to (when it applies).
type CTAPolicyVerdict struct {
	Cond      CTAPolicyCond
	Why       string
	NChannels int
}

// CTAPolicyCheck is G-SEL-CTAPOL-1's one decision, for a task whose pick
// runs on pickNC channels (CTAPolicyPickKept: unknown, the pick stood):
// without a tuner (getAlgoInfo asks a loaded one instead), under CTA
// policy EFFICIENCY, with NCCL_ALGO and NCCL_PROTO unset and no MNNVL, a
// registered AllGather or ReduceScatter (ncclCommRegister'ed, or captured
// with NCCL_GRAPH_REGISTER) that NVLS supports (across nodes: NVLS and
// CollNet) moves to NVLS/Simple on the channels its registered NVLS
// resources need, when they are no more than the pick's. The conditions
// are the same from 2.27.3 to 2.30.7 (2.29.2 reads the policy as a bit
// mask, which Input.CTAPolicyEfficiency already says).
//
// Ref: v2.28.9-1 src/enqueue.cc getAlgoInfo; src/transport/nvls.cc
// ncclNvlsRegResourcesQuery (v2.27.3-1 and v2.28.3-1 likewise); v2.29.2-1
// and v2.30.7-1 src/enqueue.cc ncclGetAlgoInfo
func (m *Model) CTAPolicyCheck(o Call, pickNC int) CTAPolicyVerdict {
	c, in, f := m.Tuning, &m.In, o.Op.Func
	miss := func(cond CTAPolicyCond, why string) CTAPolicyVerdict { return CTAPolicyVerdict{Cond: cond, Why: why} }
	switch {
	case !c.CTAPolicyNVLS:
		return miss(CTAPolicyNoRelease, "the release has no CTA policy override (2.27.3+)")
	case !in.CTAPolicyEfficiency:
		return miss(CTAPolicyNotEfficient, "the CTA policy is not EFFICIENCY")
	case f != nccl.AllGather && f != nccl.ReduceScatter:
		return miss(CTAPolicyFunc, "it moves only AllGather and ReduceScatter")
	case o.Tuned != nil || in.Tuner != nil:
		return miss(CTAPolicyTuner, "a tuner plugin is loaded: getAlgoInfo asks its getCollInfo and never reads the CTA policy")
	case in.Algo != nil || in.Proto != nil:
		return miss(CTAPolicyAlgoProto, "NCCL_ALGO or NCCL_PROTO is set")
	case in.MNNVL:
		return miss(CTAPolicyMNNVL, "the communicator is MNNVL")
	case !o.RegBuff:
		return miss(CTAPolicyNoRegBuff, "the buffers have no local registration (ncclCommRegister, a window, or a capture under NCCL_GRAPH_REGISTER): regBuff is 0")
	case in.NNodes > 1 && !(o.CollNetOK && o.NVLSOK):
		return miss(CTAPolicyNoSupport, "across nodes it needs both NVLS and CollNet support for the operation")
	case !o.NVLSOK:
		return miss(CTAPolicyNoSupport, "NVLS does not support the operation (nvlsSupport 0)")
	}
	rec, ok := m.nvlsRegChannels(f)
	switch {
	case !ok:
		return miss(CTAPolicyNoResources, "ncclNvlsRegResourcesQuery finds no NVLS resources")
	case pickNC == CTAPolicyPickKept:
		return miss(CTAPolicyChannels, fmt.Sprintf("its registered NVLS resources need %d channels, more than the pick's", rec))
	case rec > pickNC:
		return miss(CTAPolicyChannels, fmt.Sprintf("its registered NVLS resources need %d channels, more than the pick's %d", rec, pickNC))
	}
	return CTAPolicyVerdict{Cond: CTAPolicyApplies, NChannels: rec}
}

// nvlsRegChannels is the channels an NVLS or NVLSTree task of function f
// runs on once NVLS registered its buffers, as the release counts them
// (RegNVLS): a fixed 4 (5 for ReduceScatter, 6 across nodes, more on
// sm100+) before 2.27.3, then ncclNvlsRegResourcesQuery's blocks, a
// per-function factor over the node's NVLS heads; within the config's CTA
// bounds, or (2.19.3–2.19.4) at most nvlsChannels. ok is false where the
// release registers no NVLS buffer or the query fails (not AllReduce,
// AllGather or ReduceScatter, or no NVLS head).
//
// Ref: v2.28.9-1 src/transport/nvls.cc ncclNvlsRegResourcesQuery (v2.27.3-1
// likewise); v2.26.2-1 and v2.24.3-1 src/register/coll_reg.cc
// ncclRegisterCollNvlsBuffers; v2.22.3-1, v2.20.3-1, v2.19.3-1 and
// v2.19.1-1 src/enqueue.cc registerIntraNodeBuffers
func (m *Model) nvlsRegChannels(f nccl.Func) (int, bool) {
	c, in := m.Tuning, &m.In
	s := in.symComm(c.MaxChannels)
	ctas := func(n int) int { return max(s.minCTAs, min(s.maxCTAs, n)) }
	rs, oneNode, cc100 := f == nccl.ReduceScatter, in.NNodes == 1, in.MinCompCap >= 100
	pick := func(a, b int, first bool) int {
		if first {
			return a
		}
		return b
	}
	switch c.RegNVLS {
	case RegNVLSNone:
		return 0, false
	case RegNVLSCTAs:
		return ctas(pick(5, 4, rs)), true
	case RegNVLSPool:
		return min(pick(5, 4, rs), in.NVLSChannels), true
	case RegNVLSNodes:
		if !oneNode {
			return ctas(6), true
		}
		return ctas(pick(5, 4, rs)), true
	case RegNVLSCompCap:
		switch {
		case !oneNode:
			return ctas(pick(7, 6, cc100)), true
		case rs:
			return ctas(pick(6, 5, cc100)), true
		}
		return ctas(pick(8, 4, cc100)), true
	}
	if in.NVLSHeads < 1 {
		return 0, false
	}
	var factor int
	switch {
	case oneNode && rs:
		factor = pick(6, 5, cc100) * 8
	case oneNode && f == nccl.AllGather:
		factor = 4 * 8
	case oneNode && f == nccl.AllReduce:
		factor = pick(8, 4, cc100) * 8
	case rs:
		factor = pick(7, 6, m.Bandwidths[nccl.ReduceScatter][nccl.NVLS][nccl.Simple] > 400) * 8
	case f == nccl.AllGather:
		factor = 6 * 8
	case f == nccl.AllReduce:
		factor = pick(7, 6, cc100) * 8
	default:
		return 0, false
	}
	return ctas((factor + in.NVLSHeads - 1) / in.NVLSHeads), true
}

// tuningOpLineR22 is the 2.22 per-task [TUNING] line "%ld Bytes -> Algo
// %d proto %d time %f" (2.23 puts the function name and ": " in front).
func tuningOpLineR22(prefix string, bytes int64, a nccl.Algo, p nccl.Proto, t float32) string {
	var buf [128]byte
	b := append(buf[:0], prefix...)
	b = strconv.AppendInt(b, bytes, 10)
	b = append(b, " Bytes -> Algo "...)
	b = strconv.AppendInt(b, int64(a), 10)
	b = append(b, " proto "...)
	b = strconv.AppendInt(b, int64(p), 10)
	b = append(b, " time "...)
	if x := float64(t); math.IsInf(x, 0) || math.IsNaN(x) {
		b = fmt.Appendf(b, "%f", x)
	} else {
		b = strconv.AppendFloat(b, x, 'f', 6, 64)
	}
	return string(b)
}

// tuningOpLineR24 is the 2.24+ per-task [TUNING] line
// "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}".
func tuningOpLineR24(f nccl.Func, bytes int64, a nccl.Algo, p nccl.Proto, lo, hi int) string {
	var buf [128]byte
	b := append(buf[:0], f.String()...)
	b = append(b, ": "...)
	b = appendDecimal(b, bytes)
	if a >= 0 && a < nccl.NumAlgos && p >= 0 && p < nccl.NumProtos {
		b = append(b, tuningOpLineMid[a][p]...)
	} else {
		b = append(b, tuningOpLineMidText(a, p)...)
	}
	b = appendDecimal(b, int64(lo))
	b = append(b, ".."...)
	b = appendDecimal(b, int64(hi))
	b = append(b, '}')
	return string(b)
}

// appendDecimal is strconv.AppendInt(b, v, 10) with a short path for the
// non-negative numbers of a [TUNING] line (the same digits).
func appendDecimal(b []byte, v int64) []byte {
	if v < 0 {
		return strconv.AppendInt(b, v, 10)
	}
	u := uint64(v)
	if u < 10 {
		return append(b, byte('0'+u))
	}
	var d [20]byte
	i := len(d)
	for u >= 10 {
		q := u / 10
		i--
		d[i] = byte('0' + u - q*10)
		u = q
	}
	i--
	d[i] = byte('0' + u)
	return append(b, d[i:]...)
}

// tuningOpLineMidText is the 2.24+ line's text between the byte count and
// the channel range; tuningOpLineMid holds it for every cell, made once.
func tuningOpLineMidText(a nccl.Algo, p nccl.Proto) string {
	return " Bytes -> Algo " + a.LogName() + " proto " + p.LogName() + " channel{Lo..Hi}={"
}

var tuningOpLineMid = func() (m [nccl.NumAlgos][nccl.NumProtos]string) {
	for a := range nccl.NumAlgos {
		for p := range nccl.NumProtos {
			m[a][p] = tuningOpLineMidText(nccl.Algo(a), nccl.Proto(p))
		}
	}
	return m
}()

// Explain spells out each cell of the choice's cost table: the time, and for
// a cell that cannot be chosen (or that the tuner wrote) the rule and the
// reason, with the facts that decided it.
func (c *OpChoice) Explain(m *Model) [nccl.NumAlgos][nccl.NumProtos]CostCell {
	var out [nccl.NumAlgos][nccl.NumProtos]CostCell
	for a := range nccl.NumAlgos {
		for p := range nccl.NumProtos {
			out[a][p] = c.ExplainCell(m, nccl.Algo(a), nccl.Proto(p))
		}
	}
	return out
}

// ExplainCell is Explain for one cell (a and p in range).
func (c *OpChoice) ExplainCell(m *Model, a nccl.Algo, p nccl.Proto) CostCell {
	cell := CostCell{Time: c.Cost[a][p], Reason: c.Reason[a][p]}
	if cell.Reason == CostOK {
		return cell // a usable cell needs no reason
	}
	in := &m.In
	f := c.Op.Func
	switch cell.Reason {
	case CostNoAlgo:
		cell.Rule, cell.Why = RuleImpl, a.String()+" does not exist in this release"
	case CostP1:
		cell.Rule, cell.Why = RuleSelPrune, "P1: CollNet is not supported for this operation"
	case CostP2:
		cell.Rule, cell.Why = RuleSelPrune, fmt.Sprintf("P2: %d local ranks > %d (CollNetDirect arity)", in.MaxLocalRanks, m.Tuning.MaxDirectArity+1)
	case CostP3:
		cell.Rule, cell.Why = RuleSelPrune, fmt.Sprintf("P3: %d local ranks > %d (CollNetChain arity)", in.MaxLocalRanks, m.Tuning.MaxDirectArity+1)
	case CostP4:
		cell.Rule, cell.Why = RuleSelPrune, "P4: NVLS is not supported for this operation"
	case CostP4Arity:
		cell.Rule, cell.Why = RuleSelPrune, fmt.Sprintf("P4': %d local ranks > %d (NVLS arity) for %s", in.LocalRanks, m.Tuning.MaxNVLSArity, f)
	case CostP5:
		cell.Rule, cell.Why = RuleSelPrune, "P5: multi-node NVLS needs CollNet support for this operation"
	case CostP6:
		cell.Rule, cell.Why = RuleSelPrune, "P6: NVLS AllGather/ReduceScatter are single-node only"
		if in.NNodes == 1 {
			cell.Why = fmt.Sprintf("P6: NVLS AllGather/ReduceScatter need at most %d ranks (%d)", m.Tuning.MaxNVLSArity, in.NRanks)
		}
	case CostP7:
		cell.Rule, cell.Why = RuleSelPrune, "P7: PAT ReduceScatter does not support scaling reductions (PreMulSum/SumPostDiv)"
	case CostP8:
		cell.Rule, cell.Why = RuleSelPrune, "P8: fp8 Ring on more than 8 ranks is deprioritised ×1024"
	case CostZeroBw:
		z := m.Zeroed[f][a][p]
		cell.Rule, cell.Why = z.Rule, z.Why
	case CostNaN:
		cell.Rule, cell.Why = RuleCollNetGraph, "the model's bandwidth is NaN (the "+a.String()+" graph has no channel)"
	case CostBackup:
		cell.Rule, cell.Why = RuleSelBackup, "Ring is disabled: its time is kept aside as the backup"
	case CostTuner:
		name := ""
		if in.Tuner != nil {
			name = in.Tuner.Name
		}
		cell.Rule, cell.Why = RuleTunerCall, fmt.Sprintf("tuner %s set %s/%s to %g (not re-validated)", name, a, p, cell.Time)
	}
	return cell
}

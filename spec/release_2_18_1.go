package spec

import (
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.18.1 (tag v2.18.1-1, commit d97a32f), a backward delta from
// 2.18.3, the oldest modelled release. Its tuning tables are the older
// ones: Tree/Simple latency 28 µs per step on every link (2.18.3: 4, 6
// and 14), one LL128 per-channel ceiling per architecture for Ring and
// Tree alike (ll128MaxBwPerCh: 20, 20, 36.7 GB/s, where 2.18.3 gives
// Hopper Tree on four nodes or more 29), Hopper Tree on four nodes or more
// 33 GB/s per channel (2.18.3: 36). The model has no 0.85 penalty for a
// Tree graph of the TREE pattern, NVLS algorithm bandwidth is 3/4 of the
// bus bandwidth (2.18.3: 5/6) and LL128 needs an NVLink intra-node path
// (PATH_NVL; 2.18.3: up to NVB).
//
// There is no CollNet support matrix yet: each operation asks the rank's
// own CollNet plugin whether it reduces the datatype with the operation
// (G-COLLNET-MATRIX-1's 2.18.1 variant). The group's byte total that
// sizes an aggregate member's channels is the calls' bytes (2.18.3: 0).
//
// The search (topo.Apply2_18_1): a 1<<18 budget (2.18.3: 5<<16), the
// SPLIT_TREE "simpler tree" retry where 2.18.3 retries a balanced tree as
// a TREE on sm90, the older channel duplication, NVLS graphs ranked as
// rings, sm90SpeedArrayInter without 20 and 17.5, trees that check only
// the forward path's type (ncclTopoFollowPath).
//
// Read at the tag and not modelled (docs/releases.md says why): the NETs'
// channel budget. NVLS channels started as rings in ncclTopoSearchRecNet,
// the CollNet heads of every channel counted, duplicates included, and p2p
// channels per operation halved on several nodes too are the topology
// stage's 2.18.1 values (topo.NVLSHeadsAsRing, CollNetHeadsAllChannels)
// and P2PHalveOneNodeOnly below.

var tag2181 = "v2.18.1-1"

var proto181 = protoRule(Ref{Tag: tag2181, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Protocols default to LL 1, LL128 2 (auto), Simple 1; a value set by NCCL_PROTO is 0/1 and bypasses the auto rule. LL128 auto is on when the graph's inter-node path is at most PXB (or PXN on sm90), its intra-node path at most NVL, every GPU has the same compute capability and it is 7.0, 8.0 or 9.0 (not for a two-rank sm90 Ring AllReduce built with CUDA 11.8).`,
	ll128Auto18)

// collNetLocal181 is G-COLLNET-MATRIX-1 of 2.18.1: no matrix agreed at
// init; per operation, getCollNetSupport asks the rank's own plugin. The
// gates decide for rank 0, so rank 0's answer stands.
var collNetLocal181 = &Rule{
	ID: "G-COLLNET-MATRIX-1", Layer: LayerGraph, Cap: CapCollNet, Title: "CollNet reduction support matrix",
	Doc: `No matrix is agreed at init: every operation asks the rank's own CollNet plugin reduceSupport(datatype, redop) (Avg and PreMulSum as Sum), so ranks whose plugins answer differently can disagree. gatesim decides for rank 0 with its plugin's answer.`,
	Ref: Ref{Tag: tag2181, File: "src/enqueue.cc", Func: "getCollNetSupport"},
	init: func(r *initRun) {
		c := r.comm
		if !c.CollNetSupport {
			r.emit(Verdict{Outcome: Skip, Why: "CollNet disabled"})
			return
		}
		cn := r.nodeCollNets()[0]
		if cn == nil {
			r.emit(Verdict{Outcome: Skip, Why: "rank 0's network has no CollNet"})
			return
		}
		bits := cn.ReduceSupport.Bits()
		if o, ok := cn.RankReduceSupport[0]; ok {
			bits = o.Bits()
		}
		var sup []string
		for op := Sum; op <= Min; op++ {
			var ts []string
			for dt := DataType(0); dt < Float8e4m3; dt++ {
				c.CollNetMatrix[op][dt] = bits[op][dt]
				if bits[op][dt] {
					ts = append(ts, dt.Short())
				}
			}
			if len(ts) > 0 {
				sup = append(sup, op.Short()+":"+strings.Join(ts, ","))
			}
		}
		why := "rank 0's plugin supports: " + strings.Join(sup, " ")
		if len(sup) == 0 {
			why = "rank 0's plugin supports no (redop, datatype) pair"
		}
		r.emit(Verdict{Outcome: Info, Why: why})
	},
}

var release2_18_1 = Release{
	Version: V2_18_1,
	Tag:     tag2181,
	Consts:  consts2_18_1,
	Topo:    topo.Apply2_18_1,
	Tuning:  tuningBack2_18_1,
	Rules:   back2_18_1,
}

// consts2_18_1: scheduleP2pTasksToPlan halves the p2p channels on any
// number of nodes (2.18.3: one node only).
func consts2_18_1(rs *Ruleset) {
	rs.SetConst("P2PHalveOneNodeOnly", false, Ref{Tag: tag2181, File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan"})
	setCollNetFail(rs, tag2181, collNetFailInit(273, 305, 633))
}

func tuningBack2_18_1(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2181}
	const model = "ncclTopoTuneModel"
	for h := range NumTuningHw {
		tuningSet(d, &t.HwLat[h][Tree][Simple], 28.0, tuningCC, "hwLat")
	}
	// ll128MaxBwPerCh[compCapIndex] caps Ring and Tree LL128 alike.
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningHopper][TuningN4], 36.7, tuningCC, "perChMaxTreeLL128Bws")
	tuningSet(d, &t.PerChMaxTreeBw[TuningHopper][TuningN4], 33.0, tuningCC, "perChMaxTreeBws")
	tuningSet(d, &t.TreePatternFactor, 0, tuningCC, model)
	tuningSet(d, &t.NVLSRatioR22, 0.75, tuningCC, model)
	tuningSet(d, &t.LL128Rule, TuningLL128R18, tuningCC, model)
	// taskAppend adds count × type size to collBytesTotal; 2.18.3 adds
	// the info's nBytes, which nothing has set yet (0)
	tuningSet(d, &t.AggTotalFromCount, true, enqueueCC, "taskAppend")
	return d.changes, tuningJoinErrs(d.errs)
}

func back2_18_1(rs *Ruleset) {
	rs.Replace(proto181, "2.18.1: LL128 auto needs an intra-node path at most NVL; 2.18.3: at most NVB")
	rs.Replace(p2pCountRule(Ref{Tag: tag2181, File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan"}, p2pCountDoc18), "2.18.1 halves the p2p channels on any number of nodes; 2.18.3 on one node only")
	rs.Replace(collNetLocal181, "2.18.1 asks each rank's own plugin per operation; 2.18.3 agrees a support matrix across the CollNet heads at init")
}

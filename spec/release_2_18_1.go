package spec

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
// Read at the tag and not modelled here (docs/releases.md lists them): the
// graph search of 2.18.3 (search timeout 1<<18 instead of 5<<16, the
// SPLIT_TREE fallback of a balanced tree where 2.18.3 tries TREE on sm90,
// the older channel duplication, no NVLS channel cap at the GPU count),
// the CollNet reduction support asked per operation of the rank's own
// plugin instead of the support matrix agreed at init, and p2p channels
// per operation halved on several nodes too.

var tag2181 = "v2.18.1-1"

var proto181 = protoRule(Ref{Tag: tag2181, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Protocols default to LL 1, LL128 2 (auto), Simple 1; a value set by NCCL_PROTO is 0/1 and bypasses the auto rule. LL128 auto is on when the graph's inter-node path is at most PXB (or PXN on sm90), its intra-node path at most NVL, every GPU has the same compute capability and it is 7.0, 8.0 or 9.0 (not for a two-rank sm90 Ring AllReduce built with CUDA 11.8).`,
	ll128Auto18)

var release2_18_1 = Release{
	Version: V2_18_1,
	Tag:     tag2181,
	Tuning:  tuningBack2_18_1,
	Rules:   back2_18_1,
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
	return d.changes, tuningJoinErrs(d.errs)
}

func back2_18_1(rs *Ruleset) {
	rs.Replace(proto181, "2.18.1: LL128 auto needs an intra-node path at most NVL; 2.18.3: at most NVB")
}

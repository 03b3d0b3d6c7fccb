package spec

// aws-ofi-nccl's region tuner (P-OFI-TUNER-2): on the P5, P5e, P5en,
// P6-B200 and P6-B300 instance types its getCollInfo replaces NCCL's choice
// with the algorithm and protocol of the first region (a polygon in the
// (nBytes, nRanks) plane) that holds the call, and on P6-B200 sets the
// channel count of some Tree/LL128 and PAT calls. gatesim answers for it
// as the plugin would (a TunerAnswer), and NCCL's side applies the answer
// through the same path as a loaded plugin's (applyTunerAnswer).

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// ofiTunerPlatform is the tuner's nccl_ofi_tuner_platform.
type ofiTunerPlatform uint8

const (
	ofiP5 ofiTunerPlatform = iota // p5.48xlarge and p5e.48xlarge
	ofiP5en
	ofiP6B200
	ofiP6B300
)

// ofiTunerPlatforms maps the instance type (the product name the plugin
// reads) to the tuner's platform, and the first plugin release whose
// tuner has regions for it (P-OFI-TUNER-1: from then on its own tuner
// chooses there).
//
// Ref: aws-ofi-nccl v1.18.0 include/tuner/nccl_ofi_tuner_process_config.h
// TunerProcessConfig; v1.16.0 src/tuner/nccl_ofi_tuner.cpp nccl_ofi_tuner_init
var ofiTunerPlatforms = map[string]struct {
	p     ofiTunerPlatform
	since ofiVersion
}{
	"p5.48xlarge": {ofiP5, ofiVersion{1, 16, 0}}, "p5e.48xlarge": {ofiP5, ofiVersion{1, 16, 0}},
	"p5en.48xlarge": {ofiP5en, ofiVersion{1, 16, 0}}, "p6-b200.48xlarge": {ofiP6B200, ofiVersion{1, 16, 0}},
	"p6-b300.48xlarge": {ofiP6B300, ofiVersion{1, 18, 0}},
}

// TUNER_MAX_SIZE and TUNER_MAX_RANKS: the corner every open region is
// extended towards.
const (
	ofiMaxSize  = 100.0 * 1024 * 1024 * 1024
	ofiMaxRanks = 1024.0 * 1024
)

type ofiPoint struct{ x, y float64 }

func (a ofiPoint) sub(b ofiPoint) ofiPoint             { return ofiPoint{a.x - b.x, a.y - b.y} }
func (a ofiPoint) dot(b ofiPoint) float64              { return a.x*b.x + a.y*b.y }
func (a ofiPoint) cross(b ofiPoint) float64            { return a.x*b.y - a.y*b.x }
func (a ofiPoint) madd(s float64, b ofiPoint) ofiPoint { return ofiPoint{a.x + s*b.x, a.y + s*b.y} }

// ofiRegion is one nccl_ofi_tuner_region: a cell and its polygon.
type ofiRegion struct {
	algo  Algo
	proto Proto
	v     []ofiPoint
}

// ofiRegionTable is a communicator's regions per function (nil: none).
type ofiRegionTable [NumFuncs][]ofiRegion

// ofiGeometry is how a plugin release places its points: up to 1.18.0 in
// bytes and ranks as they are, from 1.19.0 in log2 of both (a 0
// coordinate taken as 1e-6 first), where extend_region also works.
type ofiGeometry struct{ log2 bool }

// pt is a vertex as the tables write it (placed later, by place).
func (ofiGeometry) pt(x, y float64) ofiPoint { return ofiPoint{x, y} }

// place is the point in the space the tests run in.
//
// Ref: aws-ofi-nccl v1.19.0 include/tuner/nccl_ofi_tuner_region.h
// nccl_ofi_tuner_point::transform_log2; src/tuner/nccl_ofi_regions.cpp
// set_regions
func (g ofiGeometry) place(p ofiPoint) ofiPoint {
	if !g.log2 {
		return p
	}
	const eps = 1e-6
	if p.x == 0 {
		p.x = eps
	}
	if p.y == 0 {
		p.y = eps
	}
	return ofiPoint{math.Log2(p.x), math.Log2(p.y)}
}

// extend is extend_region: the point of the line through a and b that
// reaches the (TUNER_MAX_SIZE, TUNER_MAX_RANKS) corner's x or y first,
// in the release's space, given back as a table vertex.
//
// Ref: aws-ofi-nccl v1.18.0 and v1.19.0 src/tuner/nccl_ofi_regions.cpp
// extend_region
func (g ofiGeometry) extend(a, b ofiPoint) ofiPoint {
	a, b = g.place(a), g.place(b)
	z := g.place(ofiPoint{ofiMaxSize, ofiMaxRanks})
	var r ofiPoint
	switch {
	case a.x == b.x:
		r = ofiPoint{a.x, z.y}
	case a.y == b.y:
		r = ofiPoint{z.x, a.y}
	default:
		m := (a.y - b.y) / (a.x - b.x)
		c := b.y - m*b.x
		if y := m*z.x + c; y < z.y {
			r = ofiPoint{z.x, y}
		} else {
			r = ofiPoint{(z.y - c) / m, z.y}
		}
	}
	if g.log2 {
		r = ofiPoint{math.Pow(2, r.x), math.Pow(2, r.y)}
	}
	return r
}

// ofiIntersect is the plugin's segment test: 1 when x0→x1 crosses y0→y1,
// -1 when not, 0 when the crossing is within eps of y0 or y1 (or the
// segments are parallel); sect is the crossing on the y line.
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_regions.cpp intersect
func ofiIntersect(x0, x1, y0, y1 ofiPoint, eps float64) (int, ofiPoint, bool) {
	dx, dy := x1.sub(x0), y1.sub(y0)
	d := dy.cross(dx)
	if math.Abs(d) < eps {
		return 0, ofiPoint{}, false
	}
	a := (x0.cross(dx) - y0.cross(dx)) / d
	sect := y0.madd(a, dy)
	if a < -eps || a > 1+eps {
		return -1, sect, true
	}
	if a < eps || a > 1-eps {
		return 0, sect, true
	}
	if a = (x0.cross(dy) - y0.cross(dy)) / d; a < 0 || a > 1 {
		return -1, sect, true
	}
	return 1, sect, true
}

// ofiDistance is the distance from x to the segment y0→y1 along the
// perpendicular, infinite when its foot is off the segment.
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_regions.cpp distance
func ofiDistance(x, y0, y1 ofiPoint, eps float64) float64 {
	dy := y1.sub(y0)
	r, s, _ := ofiIntersect(x, ofiPoint{x.x + dy.y, x.y - dy.x}, y0, y1, eps)
	if r == -1 {
		return math.Inf(1)
	}
	s = s.sub(x)
	return math.Sqrt(s.dot(s))
}

// ofiInside is is_inside_region: 0 on an edge, 1 inside, -1 outside (a
// bounding-box screen, then a ray to a point beyond every polygon).
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_regions.cpp is_inside_region
func ofiInside(g ofiGeometry, p ofiPoint, r *ofiRegion) int {
	const eps = 1e-10
	n := len(r.v)
	for i := range n {
		if ofiDistance(p, r.v[i], r.v[(i+1)%n], eps) < eps {
			return 0
		}
	}
	minX, maxX, minY, maxY := r.v[0].x, r.v[0].x, r.v[1].y, r.v[1].y
	for _, v := range r.v {
		minX, maxX, minY, maxY = min(minX, v.x), max(maxX, v.x), min(minY, v.y), max(maxY, v.y)
	}
	if p.x < minX || p.x > maxX || p.y < minY || p.y > maxY {
		return -1
	}
	far := g.place(ofiPoint{2 * ofiMaxSize, 2 * ofiMaxRanks})
	crosses := 0
	for i := range n {
		if res, _, _ := ofiIntersect(p, far, r.v[i], r.v[(i+1)%n], eps); res == 1 {
			crosses++
		}
	}
	if crosses&1 == 1 {
		return 1
	}
	return -1
}

// ofiRegionTuner is the region tuner's context for one communicator
// (region_init_internal): its release, platform, size and regions, placed.
type ofiRegionTuner struct {
	rel            *ofiRegionRelease
	platform       ofiTunerPlatform
	nRanks, nNodes int
	log2Nodes      int
	regions        ofiRegionTable
}

// ofiRegionRelease is the region tuner of the plugin releases from since:
// their regions and how they read them.
type ofiRegionRelease struct {
	since   ofiVersion
	regions func(ofiGeometry, ofiTunerPlatform, int) ofiRegionTable
	geo     ofiGeometry
	// patChannels: P6-B200's PAT/Simple channel count (1.18.0+).
	patChannels bool
	// selectedLine: TunerProcessConfig logs "Tuner selected platform"
	// (1.18.0+); declineV2: the v1/v2 init declines under NCCL_ALGO or
	// NCCL_PROTO (1.17.0+).
	selectedLine, declineV2 bool
	// chunkSizeOn is the platform whose getChunkSize (v6) the release
	// tunes and gatesim does not model (1.21.0+: p5en): OFIPlugin refuses it.
	chunkSizeOn string
}

// ofiRegionReleases are the region tuner's releases, oldest first; each
// holds up to the next (P-OFI-TUNER-2).
var ofiRegionReleases = []ofiRegionRelease{
	{since: ofiVersion{1, 16, 0}, regions: ofiRegions1_16_0},
	{since: ofiVersion{1, 17, 0}, regions: ofiRegions1_17_0, declineV2: true},
	{since: ofiVersion{1, 18, 0}, regions: ofiRegions1_18_0, declineV2: true, patChannels: true, selectedLine: true},
	{since: ofiVersion{1, 19, 0}, regions: ofiRegions1_19_0, geo: ofiGeometry{log2: true}, declineV2: true, patChannels: true, selectedLine: true},
	{since: ofiVersion{1, 21, 0}, regions: ofiRegions1_21_0, geo: ofiGeometry{log2: true}, declineV2: true, patChannels: true, selectedLine: true,
		chunkSizeOn: "p5en.48xlarge"},
}

// ofiRegionReleaseOf is the region tuner of plugin release v (nil before
// 1.16.0, where the tuner is a library of its own).
func ofiRegionReleaseOf(v ofiVersion) *ofiRegionRelease {
	var out *ofiRegionRelease
	for i := range ofiRegionReleases {
		if !v.less(ofiRegionReleases[i].since) {
			out = &ofiRegionReleases[i]
		}
	}
	return out
}

// ofiTunerModelled reports whether the region tuner of v on the platform
// is modelled (a tuned platform from the release that has its regions).
func ofiTunerModelled(v ofiVersion, platform string) bool {
	tp, tuned := ofiTunerPlatforms[platform]
	r := ofiRegionReleaseOf(v)
	return tuned && r != nil && !v.less(tp.since) && r.chunkSizeOn != platform
}

// newOFIRegionTuner is the tuner's init on a communicator of nRanks ranks
// on nNodes nodes, and the lines it logs. Ranks per node that the
// platform's tables do not list leave it without regions (each call then
// logs that the context is not ready).
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_tuner.cpp nccl_ofi_tuner_init;
// src/tuner/nccl_ofi_regions.cpp region_init_internal
func newOFIRegionTuner(v ofiVersion, platform string, nRanks, nNodes int) (*ofiRegionTuner, []string) {
	p := ofiTunerPlatforms[platform].p
	rel := ofiRegionReleaseOf(v)
	t := &ofiRegionTuner{rel: rel, platform: p, nRanks: nRanks, nNodes: nNodes, log2Nodes: bits.Len(uint(max(nNodes, 1))) - 1}
	if nNodes > 0 && nRanks%nNodes == 0 {
		t.regions = rel.regions(rel.geo, p, nRanks/nNodes)
		for f := range t.regions {
			placed := make([]ofiRegion, len(t.regions[f]))
			for i, r := range t.regions[f] {
				placed[i] = ofiRegion{algo: r.algo, proto: r.proto, v: make([]ofiPoint, len(r.v))}
				for j, pt := range r.v {
					placed[i].v[j] = rel.geo.place(pt)
				}
			}
			t.regions[f] = placed
		}
	}
	var log []string
	if rel.selectedLine {
		log = append(log, "NET/OFI Tuner selected platform: AWS")
	}
	return t, append(log,
		"NET/OFI Region base Tuner is chosen for platform: "+platform,
		fmt.Sprintf("NET/OFI Region Tuner init (platform %d): comm with %d ranks and %d nodes.", p, nRanks, nNodes),
		fmt.Sprintf("NET/OFI Tuner init: comm with %d ranks and %d nodes.", nRanks, nNodes))
}

// answer is the tuner's getCollInfo for call: v3 and later skip a region
// whose cell is IGNORE or outside the table and write 0.0 into the first
// that holds the call; v1 and v2 name the first region that holds it
// (PAT left out, NVLSTree only with NVLS support), which NCCL's adapter
// then checks. Two nodes or fewer keep NCCL's choice.
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_regions.cpp
// region_get_coll_info_internal_v3, region_get_coll_info_internal_v2
func (t *ofiRegionTuner) answer(call *TunerCall) TunerAnswer {
	ans := TunerAnswer{Table: call.Table, Algo: -1, Proto: -1}
	regions := t.regions[call.Func]
	if regions == nil {
		ans.Log = []string{"NET/OFI Region Context is not ready. Fall back to NCCL's tuner."}
		return ans
	}
	if t.nNodes <= 2 {
		return ans
	}
	p := t.rel.geo.place(ofiPoint{float64(call.NBytes), float64(t.nRanks)})
	for i := range regions {
		r := &regions[i]
		a, pr := int(r.algo), int(r.proto)
		if call.ABI >= 3 && (a >= call.NumAlgo || pr >= call.NumProto || call.Table[a][pr] == -1) {
			continue
		}
		if call.ABI < 3 && (r.algo == PAT || (r.algo == NVLSTree && !call.NVLSSupport)) {
			continue
		}
		if ofiInside(t.rel.geo, p, r) < 0 {
			continue
		}
		if call.ABI < 3 {
			ans.Algo, ans.Proto = a, pr
		} else {
			ans.Table[a][pr] = 0
			ans.NChannels = t.channels(call.NBytes, r.algo, r.proto)
		}
		ans.Log = []string{fmt.Sprintf("NET/OFI Region Tuner choosing algo %d proto %d with cost 0.00000000 µsecs for coll %d size %d.", a, pr, call.Func, call.NBytes)}
		if call.ABI >= 3 {
			ans.Log = append(ans.Log, fmt.Sprintf("NET/OFI Setting nChannels to %d at nBytes=%d.", ans.NChannels, call.NBytes))
		}
		return ans
	}
	ans.Log = []string{fmt.Sprintf("NET/OFI Falling back to NCCL's tuner for coll %d size %d.", call.Func, call.NBytes)}
	return ans
}

// channels is the v3 answer's nChannels on P6-B200 (0: NCCL's): Tree/LL128
// AllReduce at 4–32 MiB with 8 ranks per node takes the count of 16, 24
// and 32 that gives the largest chunk; PAT/Simple up to 32 MiB with one
// rank per node takes 1 or 2 channels by bytes per node.
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_regions.cpp
// region_get_coll_info_internal_v3, calculateBestNChannelTree,
// calculateBestNChannelPat
func (t *ofiRegionTuner) channels(nBytes int64, a Algo, p Proto) int {
	if t.platform != ofiP6B200 {
		return 0
	}
	n := uint64(nBytes)
	nc := 0
	if n >= 4<<20 && n <= 32<<20 && a == Tree && p == LL128 && t.nNodes*8 == t.nRanks {
		best, bestChunk := 0, uint64(0)
		for _, ch := range []int{16, 24, 32} {
			if c := ofiTreeLL128Chunk(n, ch, t.log2Nodes); c > bestChunk || (c == bestChunk && ch > best) {
				best, bestChunk = ch, c
			}
		}
		nc = best
	}
	if t.rel.patChannels && n <= 32<<20 && a == PAT && p == Simple && t.nNodes == t.nRanks {
		switch nn := uint64(t.nNodes); {
		case n <= nn*65536:
			nc = 1
		case n <= nn*65536*2:
			nc = 2
		default:
			nc = 0
		}
	}
	return nc
}

// ofiTreeLL128Chunk is the plugin's estimate of NCCL's Tree/LL128 chunk on
// nCh channels: the step of a 640-thread LL128 buffer halved while the
// message gives too few chunks per tree step, aligned to the LL128 grain
// and converted to wire bytes.
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_regions.cpp
// calculateChunkSizeTreeLL128 (include/internal/tuner/nccl_defaults.h)
func ofiTreeLL128Chunk(n uint64, nCh, log2Nodes int) uint64 {
	const (
		steps, warp, lineElems, dataElems = 8, 32, 16, 15
		ll128Threads, elemsPerThread      = 640, 120
		shmemElemsPerThread, ppn          = 8, 8
	)
	chunk := uint64(elemsPerThread*ll128Threads*steps*8) / steps
	chunk = chunk / lineElems * dataElems
	nSteps := 1 + float64(log2Nodes) + 0.1*ppn
	for float64(n/(uint64(nCh)*chunk)) < nSteps*64/ppn && chunk > 131072 {
		chunk /= 2
	}
	for float64(n/(uint64(nCh)*chunk)) < nSteps*16/ppn && chunk > 32768 {
		chunk /= 2
	}
	grain := uint64(warp * shmemElemsPerThread / lineElems * dataElems * 8)
	chunk = chunk / grain * grain
	nelem := chunk / grain * (grain / 4)
	wireWords := uint64(warp * shmemElemsPerThread)
	dataPerSlice := (wireWords - wireWords/lineElems) * 2
	return uint64(math.Ceil(float64(nelem)/float64(dataPerSlice))) * wireWords * 8
}

// ofiTunerInit is the init of a modelled aws-ofi-nccl tuner (model is
// "aws-ofi-nccl@VERSION:PLATFORM", as OFIPlugin names it) under tuner ABI
// abi: the v1 and v2 entry points decline when NCCL_ALGO or NCCL_PROTO
// is set (NCCL then keeps its own choice).
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_tuner.cpp
// nccl_ofi_tuner_init_v2, nccl_ofi_tuner_init_v1, nccl_ofi_tuner_init
func ofiTunerInit(model string, abi, nRanks, nNodes int, env Env) (*ofiRegionTuner, []string) {
	rest, _ := strings.CutPrefix(model, OFIPluginName+"@")
	version, platform, _ := strings.Cut(rest, ":")
	v, err := parseOFIVersion(version)
	if err != nil || !ofiTunerModelled(v, platform) {
		return nil, nil // OFIPlugin names only modelled ones
	}
	_, algo := env.Lookup("NCCL_ALGO")
	_, proto := env.Lookup("NCCL_PROTO")
	if abi < 3 && (algo || proto) && ofiRegionReleaseOf(v).declineV2 {
		return nil, []string{"NET/OFI The tuner plugin can not be loaded when explicitly choosing an algorithm or protocol with NCCL_ALGO/NCCL_PROTO. Defaulting to internal tuner."}
	}
	return newOFIRegionTuner(v, platform, nRanks, nNodes)
}

// ofiTuned is the effect of the modelled tuner on op: NCCL's table before
// it (the decision without it), the tuner's answer and the table NCCL then
// scans, as for a loaded plugin (nil: no call).
func (c *Comm) ofiTuned(op Op) (*TunerEffect, error) {
	d, err := c.decideOp(op, nil)
	if err != nil {
		return nil, err
	}
	call, ok := c.TunerCallFor(d)
	if !ok {
		return nil, nil
	}
	e := &TunerEffect{Call: call, Answer: c.ofiTuner.answer(&call)}
	e.After, e.Edits, e.Ignored = applyTunerAnswer(&e.Call, &e.Answer)
	e.Without, e.WithoutErr, e.WithoutNChannels = AlgoProto{d.Algo, d.Proto}, d.Err, d.NChannels
	return e, nil
}

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

// ofiGeometry is how a plugin release places its points: 1.18.0 works in
// bytes and ranks as they are.
type ofiGeometry struct{}

func (ofiGeometry) pt(x, y float64) ofiPoint { return ofiPoint{x, y} }

// extend is extend_region: the point of the line through a and b that
// reaches the (TUNER_MAX_SIZE, TUNER_MAX_RANKS) corner's x or y first.
//
// Ref: aws-ofi-nccl v1.18.0 src/tuner/nccl_ofi_regions.cpp extend_region
func (ofiGeometry) extend(a, b ofiPoint) ofiPoint {
	z := ofiPoint{ofiMaxSize, ofiMaxRanks}
	switch {
	case a.x == b.x:
		return ofiPoint{a.x, z.y}
	case a.y == b.y:
		return ofiPoint{z.x, a.y}
	}
	m := (a.y - b.y) / (a.x - b.x)
	c := b.y - m*b.x
	if y := m*z.x + c; y < z.y {
		return ofiPoint{z.x, y}
	}
	return ofiPoint{(z.y - c) / m, z.y}
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
func ofiInside(p ofiPoint, r *ofiRegion) int {
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
	far := ofiPoint{2 * ofiMaxSize, 2 * ofiMaxRanks}
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
// (region_init_internal): its platform, size and regions.
type ofiRegionTuner struct {
	platform       ofiTunerPlatform
	nRanks, nNodes int
	log2Nodes      int
	regions        ofiRegionTable
}

// ofiRegionsAt are the plugin releases whose regions gatesim carries.
var ofiRegionsAt = map[ofiVersion]func(ofiGeometry, ofiTunerPlatform, int) ofiRegionTable{
	{1, 18, 0}: ofiRegions1_18_0,
}

// ofiTunerModelled reports whether the region tuner of v on the platform
// is modelled (a tuned platform of a release whose regions gatesim has).
func ofiTunerModelled(v ofiVersion, platform string) bool {
	tp, tuned := ofiTunerPlatforms[platform]
	_, ok := ofiRegionsAt[v]
	return tuned && ok && !v.less(tp.since)
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
	t := &ofiRegionTuner{platform: p, nRanks: nRanks, nNodes: nNodes, log2Nodes: bits.Len(uint(max(nNodes, 1))) - 1}
	if nNodes > 0 && nRanks%nNodes == 0 {
		t.regions = ofiRegionsAt[v](ofiGeometry{}, p, nRanks/nNodes)
	}
	return t, []string{
		"NET/OFI Tuner selected platform: AWS",
		"NET/OFI Region base Tuner is chosen for platform: " + platform,
		fmt.Sprintf("NET/OFI Region Tuner init (platform %d): comm with %d ranks and %d nodes.", p, nRanks, nNodes),
		fmt.Sprintf("NET/OFI Tuner init: comm with %d ranks and %d nodes.", nRanks, nNodes),
	}
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
	p := ofiPoint{float64(call.NBytes), float64(t.nRanks)}
	for i := range regions {
		r := &regions[i]
		a, pr := int(r.algo), int(r.proto)
		if call.ABI >= 3 && (a >= call.NumAlgo || pr >= call.NumProto || call.Table[a][pr] == -1) {
			continue
		}
		if call.ABI < 3 && (r.algo == PAT || (r.algo == NVLSTree && !call.NVLSSupport)) {
			continue
		}
		if ofiInside(p, r) < 0 {
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
	if n <= 32<<20 && a == PAT && p == Simple && t.nNodes == t.nRanks {
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

// ofiRegionReleases names the plugin releases whose regions are modelled.
func ofiRegionReleases() string {
	var vs []string
	for _, r := range ofiReleases {
		if v, _ := parseOFIVersion(r); ofiRegionsAt[v] != nil {
			vs = append(vs, v.String())
		}
	}
	return strings.Join(vs, ", ")
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
	if abi < 3 && (algo || proto) {
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

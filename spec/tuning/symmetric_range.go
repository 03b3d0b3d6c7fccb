package tuning

import "fmt"

// How a grouped symmetric plan (2.28.3+) splits its tasks' bytes over the
// kernel's blocks. The host lays each task's 1 KiB cells over the blocks in
// order, cellPerChannel cells a block, and records per block only the last
// task it reaches (workHi) and where in that task it stops, as a 16-bit
// fraction (fracHi); per task it records the blocks it owns outright
// (sChannelId, nChannels). The device turns the fractions back into element
// ranges: a task's owned blocks share its range (the kernel spreads its
// threads over them), a block that holds a task's head or tail beside other
// tasks works that piece alone. The fractions round, so a block's real share
// differs from its cells wherever a task has more than 65536 cells, and
// 2.28.3's decode reads the wrong task at two places (Tuning.SymRangeOwnEnds).
//
// Ref: v2.28.9-1 src/scheduler/symmetric_sched.cc ncclSymmetricTaskScheduler;
// src/device/symmetric/primitives.cuh ncclSymkArgsHandler::getWorkRange,
// getWorkRangeFused, forEachWork, singleWork (v2.29.2-1 forEachWorkNoFusion
// for the GIN kernels); src/include/sym_kernels.h ncclSymkChannelWorkRange
// (v2.28.3-1..v2.30.7-1 the same host side; v2.28.3-1 the decode of
// SymRangeOwnEnds)

// SymPart is a piece of one symmetric task's bytes and the blocks (CTAs)
// that move it: blocks CTALo..CTAHi share bytes [Offset, Offset+Bytes)
// evenly, or one block works it alone (CTALo == CTAHi). Missing counts
// the blocks of a shared range that never reach the task (a rounded
// fraction let the block before them finish it): their shares are not
// moved.
type SymPart struct {
	CTALo   int   `json:"cta_lo"`
	CTAHi   int   `json:"cta_hi"`
	Offset  int64 `json:"offset"`
	Bytes   int64 `json:"bytes"`
	Missing int   `json:"missing,omitempty"`
}

// symFrac is ncclSymkChannelWorkRange: the last task a block reaches and
// where in it the block stops (a fraction of 0x10000, minus one).
type symFrac struct {
	workHi int
	fracHi uint32
}

// symWork is what the decode reads of one task's ncclSymkDevWork: its
// elements and the blocks it owns.
type symWork struct {
	elts       int64
	sCh, nChan int
}

// symFusion is how a kernel walks its works: forEachWork (owned blocks
// share a task), singleWork (the LL kernels: one task, each block its own
// range) or forEachWorkNoFusion (the GIN kernels: each block its own
// ranges).
type symFusion int

const (
	symFused symFusion = iota
	symSingle
	symNoFusion
)

func symFusionOf(k SymKernel) symFusion {
	switch {
	case symMaskLL>>k&1 == 1:
		return symSingle
	case symMaskGin>>k&1 == 1:
		return symNoFusion
	}
	return symFused
}

// symLayout is ncclSymmetricTaskScheduler's loop: the tasks' cells (cells[i]
// of works[i]) laid over nMax blocks, cellPerChannel each; last says no
// symmetric task follows this plan's in the group's queue (the last
// task's tail block is then always owned). It fills frac (nMax entries)
// and the works' owned blocks, and returns the blocks the plan launches
// (curChannel).
func symLayout(cells []int64, works []symWork, frac []symFrac, cellPerChannel int64, last bool) int {
	nMax := len(frac)
	remain := cellPerChannel
	cur, curWork := 0, 0
	for w, taskCell := range cells {
		dw := &works[w]
		left := taskCell
		for cur < nMax {
			frac[cur].workHi = w
			switch {
			case curWork == 0 && dw.nChan == 0:
				dw.sCh, dw.nChan = cur, 1
			case curWork == 0 && left <= remain:
				// the task's tail: owned when it (nearly) fills the block
				// or nothing follows it
				if remain-left <= 1 || (last && w == len(cells)-1) {
					dw.nChan++
				}
			case curWork == 0:
				dw.nChan++
			case taskCell <= remain:
				dw.sCh, dw.nChan = cur, 1
			}
			if left < remain {
				frac[cur].fracHi = 0xFFFF
				remain -= left
				curWork++
				break
			}
			if left == remain {
				frac[cur].fracHi = 0xFFFF
				remain, curWork = cellPerChannel, 0
				cur++
				break
			}
			left -= remain
			frac[cur].fracHi = uint32((0x10000*(taskCell-left)+taskCell-1)/taskCell - 1)
			remain, curWork = cellPerChannel, 0
			cur++
		}
		if cur == nMax && w < len(cells)-1 {
			break // "ran out of channel space": the cells always fit, so never
		}
	}
	if remain < cellPerChannel {
		cur++
	}
	return cur
}

// symFracElts is the element a fraction of a task's cells points at.
func symFracElts(f uint32, elts, cellElts int64) int64 {
	return (int64(f) * ((elts + cellElts - 1) / cellElts) >> 16) * cellElts
}

// symDecode is the device's walk of the work ranges for the blocks
// 0..used-1: each task's parts, in the order the blocks reach them (appended
// to parts[w], in elements). ownEnds: each end of a block's range reads its
// own task, and an owned range starts after its predecessor block only when
// that block ends inside the same task (2.28.7+; 2.28.3 reads both ends
// from the first task and always starts after the predecessor's fraction).
func symDecode(frac []symFrac, works []symWork, used int, cellElts int64, mode symFusion, ownEnds bool, parts [][]SymPart) {
	// owned[w]: the index in parts[w] of the task's shared range, and how
	// many of its blocks reached it
	type ownedAt struct{ at, seen int }
	owned := make([]ownedAt, len(works))
	for w := range owned {
		owned[w].at = -1
	}
	for b := range used {
		workLo, fracLo := 0, uint32(0)
		if b > 0 {
			workLo, fracLo = frac[b-1].workHi, frac[b-1].fracHi+1
		}
		if fracLo == 0x10000 {
			workLo, fracLo = workLo+1, 0
		}
		workHi, fracHi := frac[b].workHi, frac[b].fracHi+1
		if workLo >= len(works) {
			continue
		}
		lo := symFracElts(fracLo, works[workLo].elts, cellElts)
		endWork := workLo
		if ownEnds {
			endWork = workHi
		}
		hi := min(symFracElts(fracHi, works[endWork].elts, cellElts), works[endWork].elts)
		for w := workLo; w <= workHi; w++ {
			dw := &works[w]
			if mode == symFused && b >= dw.sCh && b < dw.sCh+dw.nChan {
				owned[w].seen++
				if owned[w].at >= 0 {
					continue // the shared range, entered once
				}
				last := dw.sCh + dw.nChan - 1
				var fl uint32
				if dw.sCh > 0 && (!ownEnds || frac[dw.sCh-1].workHi == w) {
					fl = (frac[dw.sCh-1].fracHi + 1) & 0xFFFF
				}
				fh := uint32(0x10000)
				if frac[last].workHi == w {
					fh = frac[last].fracHi + 1
				}
				pl, ph := symFracElts(fl, dw.elts, cellElts), min(symFracElts(fh, dw.elts, cellElts), dw.elts)
				owned[w].at = len(parts[w])
				parts[w] = append(parts[w], SymPart{CTALo: dw.sCh, CTAHi: last, Offset: pl, Bytes: ph - pl})
				continue
			}
			pl, ph := int64(0), dw.elts
			if w == workLo {
				pl = lo
			}
			if w == workHi {
				ph = hi
			}
			if ph > pl {
				parts[w] = append(parts[w], SymPart{CTALo: b, CTAHi: b, Offset: pl, Bytes: ph - pl})
			}
		}
	}
	for w, o := range owned {
		if o.at >= 0 {
			parts[w][o.at].Missing = works[w].nChan - o.seen
		}
	}
}

// symCTAShare adds each part's even share per block (rounded up) to
// load, one entry per block (a missing block's share is counted on it,
// though nothing moves it).
func symCTAShare(parts []SymPart, load []int64) {
	for _, p := range parts {
		n := int64(p.CTAHi - p.CTALo + 1)
		for b := p.CTALo; b <= p.CTAHi; b++ {
			load[b] += (p.Bytes + n - 1) / n
		}
	}
}

// FormatSymParts prints a task's parts: "blocks 0-3 bytes 0..786432" for
// blocks sharing a range, "block 4 bytes ..." for one alone.
func FormatSymParts(parts []SymPart) string {
	var b []byte
	for i, p := range parts {
		if i > 0 {
			b = append(b, ", "...)
		}
		if p.CTALo == p.CTAHi {
			b = fmt.Appendf(b, "block %d", p.CTALo)
		} else {
			b = fmt.Appendf(b, "blocks %d-%d", p.CTALo, p.CTAHi)
		}
		b = fmt.Appendf(b, " bytes %d..%d", p.Offset, p.Offset+p.Bytes)
		if p.Missing > 0 {
			b = fmt.Appendf(b, " (%d of them never reach it)", p.Missing)
		}
	}
	return string(b)
}

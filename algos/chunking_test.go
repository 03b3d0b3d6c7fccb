package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestChannelRange checks the channel range scheduleCollTasksToPlan gives
// one collective on a 2-GPU communicator with 24 channels. The 2.28.9 rows
// are NCCL's own "channel{Lo..Hi}" log lines on 2 × H200 (the captures in
// golden/testdata/captured); the 2.22.3 and 2.30.7 rows are a reading of
// those releases' scheduleCollTasksToPlan.
func TestChannelRange(t *testing.T) {
	v2307 := spec.MakeVersion(2, 30, 7)
	tests := []struct {
		release spec.Version
		f       spec.Func
		bytes   int64
		proto   spec.Proto
		hi      int
	}{
		{spec.V2_28_9, spec.AllReduce, 524288, spec.LL, 23},
		{spec.V2_28_9, spec.AllReduce, 2 << 20, spec.Simple, 23},
		{spec.V2_28_9, spec.AllGather, 131072, spec.LL, 21},
		{spec.V2_28_9, spec.ReduceScatter, 131072, spec.LL, 21},
		{spec.V2_28_9, spec.AllGather, 524288, spec.LL, 23},
		{spec.V2_28_9, spec.Broadcast, 524288, spec.LL, 21},
		{spec.V2_28_9, spec.Reduce, 524288, spec.LL, 21},
		{spec.V2_28_9, spec.Broadcast, 2 << 20, spec.Simple, 21},
		{spec.V2_22_3, spec.AllReduce, 524288, spec.LL, 23},
		{spec.V2_22_3, spec.AllGather, 131072, spec.LL, 23},
		{spec.V2_22_3, spec.Broadcast, 2 << 20, spec.Simple, 23},
		{v2307, spec.AllReduce, 524288, spec.LL, 21},
		{v2307, spec.AllReduce, 2 << 20, spec.Simple, 21},
		{v2307, spec.AllGather, 131072, spec.LL, 15},
		{v2307, spec.AllGather, 524288, spec.LL, 21},
		{v2307, spec.Broadcast, 524288, spec.LL, 21},
	}
	for _, tc := range tests {
		l, err := DefaultLayout(tc.release, 1, 2, 24)
		if err != nil {
			t.Fatal(err)
		}
		dt := spec.Float32
		if tc.f == spec.AllGather || tc.f == spec.Broadcast {
			dt = spec.Int8
		}
		op, err := spec.OpFromBytes(tc.f, tc.bytes, dt, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Build(op, Selection{Algo: spec.Ring, Proto: tc.proto, NChannels: 24}, l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.NChannels - 1; got != tc.hi {
			t.Errorf("%s %s %d B %s: channels 0..%d, want 0..%d", tc.release, tc.f, tc.bytes, tc.proto, got, tc.hi)
		}
	}
}

// TestChannels checks topoGetAlgoInfo's channel count for Ring/LL on 2
// ranks (maxThreads 512 × threshold 8×nRanks = 8192 bytes per channel),
// the worked example of nccl-tuning.md §5.6.
func TestChannels(t *testing.T) {
	l, err := DefaultLayout(spec.V2_28_9, 1, 2, 24)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bytes int64
		nc    int
	}{{32768, 4}, {131072, 16}, {524288, 24}, {100, 1}} {
		if got := Channels(l, spec.AllReduce, spec.Ring, spec.LL, tc.bytes); got != tc.nc {
			t.Errorf("Channels(Ring/LL, %d B) = %d, want %d", tc.bytes, got, tc.nc)
		}
	}
	if got := Channels(l, spec.AllReduce, spec.NVLS, spec.Simple, 1<<30); got != l.NVLSChannels {
		t.Errorf("NVLS channels = %d, want the layout's NVLS channels %d", got, l.NVLSChannels)
	}
}

// TestPartitionCoversCount checks, over many sizes and channel counts,
// that the channel parts tile the count exactly and chunks are positive
// multiples of the protocol grain.
func TestPartitionCoversCount(t *testing.T) {
	// 2.20.3 cuts at maxBytesPerChannel, the others by traffic
	for _, rel := range []spec.Version{spec.V2_20_3, spec.V2_22_3, spec.V2_28_9, spec.MakeVersion(2, 30, 7)} {
		p, _ := ParamsFor(rel)
		l, _ := DefaultLayout(rel, 1, 4, 16)
		for _, proto := range spec.Protos {
			for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.Broadcast} {
				x := &chunkCtx{p: p, l: l, f: f, algo: spec.Ring, proto: proto}
				for _, count := range []int64{1, 3, 17, 1000, 4097, 1 << 16, 1<<20 + 7} {
					for _, nc := range []int{1, 2, 5, 16} {
						unit := 4
						part, err := x.cbdPartition(count, unit, nc, 16, 256)
						if err != nil {
							t.Fatal(err)
						}
						off := int64(0)
						for c := part.lo; c <= part.hi; c++ {
							o, n, chunk := part.part(c)
							if o != off || n <= 0 && c != part.hi {
								t.Fatalf("%s %s %s count %d nc %d: channel %d part %d+%d, expected offset %d", rel, f, proto, count, nc, c, o, n, off)
							}
							if chunk <= 0 || chunk*int64(unit)%int64(p.GrainSize[proto]) != 0 {
								t.Fatalf("%s %s %s count %d: chunk %d elements is not a positive multiple of the %d-byte grain", rel, f, proto, count, chunk, p.GrainSize[proto])
							}
							off += n
						}
						// 2.22.3 rounds the first channel's cells down, so a
						// ragged count can spill one cell onto an extra channel
						// (NCCL does the same: the overflow check compares with
						// the kind's channels, not the task's)
						limit := nc
						if !p.Sched.CellsLoRoundUp {
							limit = nc + 1
						}
						if off != count || part.hi >= limit || part.total() != count {
							t.Fatalf("%s %s %s count %d nc %d: parts cover %d over channels %d..%d", rel, f, proto, count, nc, off, part.lo, part.hi)
						}
					}
				}
			}
		}
	}
}

// TestNVLSAcrossNodesChunkAndChannels: NVLS through CollNet runs on
// min(nvlsChannels, nChannels) channels from 2.28.3 (nvlsChannels before),
// and its chunk is capped at 32 KiB when the tuning model's AllReduce NVLS
// bandwidth is below 150 GB/s (calcCollChunking), then shrinks with the
// size as on one node.
func TestNVLSAcrossNodesChunkAndChannels(t *testing.T) {
	for _, tc := range []struct {
		release spec.Version
		nvlsBw  float64
		bytes   int64
		ch      int
		chunk   int64 // bytes
	}{
		{spec.V2_28_9, 193.5, 1 << 30, 8, 128 << 10}, // dgx-h100 × 16 with SHARP: no cap
		{spec.V2_28_9, 120, 1 << 30, 8, 32 << 10},    // a slow NVLS: the 32 KiB cap
		{spec.V2_28_9, 193.5, 1 << 20, 8, 16 << 10},  // small: 64K, 32K, 16K steps
		{spec.V2_22_3, 193.5, 1 << 30, 12, 128 << 10},
	} {
		l, err := DefaultLayout(tc.release, 16, 8, 8)
		if err != nil {
			t.Fatal(err)
		}
		l.NVLSChannels, l.NVLSBw = 12, tc.nvlsBw
		if got := Channels(l, spec.AllReduce, spec.NVLS, spec.Simple, tc.bytes); got != tc.ch {
			t.Errorf("%s %d bytes: %d channels, want %d", tc.release, tc.bytes, got, tc.ch)
		}
		if tc.release == spec.V2_22_3 {
			continue // 2.22.3's layouts have nChannels ≥ nvlsChannels; this one does not
		}
		s, err := Build(spec.Op{Func: spec.AllReduce, Count: tc.bytes / 4, DataType: spec.Float32}, Selection{Algo: spec.NVLS, Proto: spec.Simple}, l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.ChunkCounts()[0] * 4; s.NChannels != tc.ch || got != tc.chunk {
			t.Errorf("%s NVLS bandwidth %v, %d bytes: %d channels of %d-byte chunks, want %d of %d", tc.release, tc.nvlsBw, tc.bytes, s.NChannels, got, tc.ch, tc.chunk)
		}
	}
}

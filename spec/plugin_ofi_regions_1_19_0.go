package spec

// The regions of aws-ofi-nccl 1.19.0 to 1.20.0 (P-OFI-TUNER-2): per instance family,
// ranks per node and function, the (nBytes, nRanks) polygons where the
// tuner sets an algorithm and protocol, in the order it tries them.
// Transcribed from aws/aws-ofi-nccl v1.19.0 (v1.19.1, v1.19.2 and v1.20.0 have the same)
// src/tuner/nccl_ofi_regions.cpp region_init_internal_p5en, _p5_p5e, _p6 and _p6_b300; the
// extended vertices are extend_region's towards (TUNER_MAX_SIZE,
// TUNER_MAX_RANKS). A ranks-per-node count without a case has no regions:
// the tuner leaves NCCL's table as it is.
// Written as the changes from ofiRegions1_18_0: the cases and functions not listed
// here are the previous release's.
func ofiRegions1_19_0(x ofiGeometry, p ofiTunerPlatform, ranksPerNode int) (t ofiRegionTable) {
	t = ofiRegions1_18_0(x, p, ranksPerNode)
	switch int(p)<<8 | ranksPerNode {
	case int(ofiP5)<<8 | 1:
		{
			extendedTreeLl128 := x.extend(x.pt(9999360, 64), x.pt(119477248, 128))
			extendedRingLl128 := x.extend(x.pt(4736000, 2), x.pt(269484032, 128))
			t[AllReduce] = []ofiRegion{
				{Tree, LL128, []ofiPoint{x.pt(0, 16), x.pt(2367488, 16), x.pt(9999360, 64), x.pt(119477248, 128), extendedTreeLl128, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{x.pt(0, 2), x.pt(4736000, 2), x.pt(269484032, 128), extendedRingLl128, extendedTreeLl128, x.pt(119477248, 128), x.pt(9999360, 64), x.pt(2367488, 16), x.pt(0, 16)}},
				{Ring, Simple, []ofiPoint{x.pt(4736000, 2), x.pt(ofiMaxSize, 2), extendedRingLl128, x.pt(269484032, 128)}},
			}
		}
	case int(ofiP6B200)<<8 | 8:
		{
			extendedRingLl := x.extend(x.pt(73924608, 1024), x.pt(209190912, 2048))
			extendedRingLl128 := x.extend(x.pt(4294967296, 256), x.pt(8589934592, 512))
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(786432, 16), x.pt(1572864, 32), x.pt(2621440, 64), x.pt(4718592, 128), x.pt(17301504, 256), x.pt(35127296, 512), x.pt(73924608, 1024), x.pt(209190912, 2048), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(209190912, 2048), x.pt(73924608, 1024), x.pt(35127296, 512), x.pt(17301504, 256), x.pt(4718592, 128), x.pt(2621440, 64), x.pt(1572864, 32), x.pt(786432, 16), x.pt(219676672, 16), x.pt(508559360, 32), x.pt(592445440, 64), x.pt(4294967296, 256), x.pt(8589934592, 512), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(8589934592, 512), x.pt(4294967296, 256), x.pt(592445440, 64), x.pt(508559360, 32), x.pt(219676672, 16), x.pt(ofiMaxSize, 16)}},
			}
		}
	case int(ofiP6B200)<<8 | 1:
		{
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(65536, 4)}},
				{PAT, Simple, []ofiPoint{x.pt(0, 2), x.pt(65536, 4), x.pt(1048576, 4), x.pt(4194305, 16), x.pt(12582912, 48), x.pt(88080384, 48), x.pt(248512512, 128), x.pt(34359738368, 17137), x.pt(0, 131072)}},
				{Ring, LL128, []ofiPoint{x.pt(65536, 2), x.pt(2097152, 2), x.pt(16777216, 8), x.pt(291504128, 128), x.pt(34359738368, 15008), x.pt(34359738368, 17137), x.pt(248512512, 128), x.pt(88080384, 48), x.pt(12582912, 48), x.pt(4194305, 16), x.pt(1048576, 4), x.pt(65536, 4)}},
				{Ring, Simple, []ofiPoint{x.pt(2097152, 2), x.pt(34359738368, 2), x.pt(34359738368, 15008), x.pt(291504128, 128), x.pt(16777216, 8)}},
			}
		}
		{
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(65536, 4)}},
				{PAT, Simple, []ofiPoint{x.pt(0, 2), x.pt(65536, 4), x.pt(1048576, 4), x.pt(3345192, 8), x.pt(19065019, 16), x.pt(67108864, 48), x.pt(106954752, 48), x.pt(274877906944, 121928), x.pt(0, 131072)}},
				{Ring, LL128, []ofiPoint{x.pt(65536, 2), x.pt(2097152, 2), x.pt(16777216, 8), x.pt(106954752, 48), x.pt(67108864, 48), x.pt(19065019, 16), x.pt(3345192, 8), x.pt(1048576, 4), x.pt(65536, 4)}},
				{Ring, Simple, []ofiPoint{x.pt(2097152, 2), x.pt(274877906944, 2), x.pt(274877906944, 121928), x.pt(106954752, 48), x.pt(16777216, 8)}},
			}
		}
	}
	return t
}

package spec

// The regions of aws-ofi-nccl 1.21.0 and 1.21.1 (P-OFI-TUNER-2): per instance family,
// ranks per node and function, the (nBytes, nRanks) polygons where the
// tuner sets an algorithm and protocol, in the order it tries them.
// Transcribed from aws/aws-ofi-nccl v1.21.0
// src/tuner/nccl_ofi_regions.cpp region_init_internal_p5en, _p5_p5e, _p6 and _p6_b300; the
// extended vertices are extend_region's towards (TUNER_MAX_SIZE,
// TUNER_MAX_RANKS). A ranks-per-node count without a case has no regions:
// the tuner leaves NCCL's table as it is.
// Written as the changes from ofiRegions1_19_0: the cases and functions not listed
// here are the previous release's.
func ofiRegions1_21_0(x ofiGeometry, p ofiTunerPlatform, ranksPerNode int) (t ofiRegionTable) {
	t = ofiRegions1_19_0(x, p, ranksPerNode)
	switch int(p)<<8 | ranksPerNode {
	case int(ofiP5en)<<8 | 1:
		{
			extendedTreeLl128 := x.extend(x.pt(524288, 8), x.pt(1048576, 96))
			extendedTreeSimple := x.extend(x.pt(8388608, 32), x.pt(33554432, 128))
			extendedRingLl128 := x.extend(x.pt(50331648, 16), x.pt(301989888, 128))
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(65536, 64), x.pt(65536, ofiMaxRanks)}},
				{Tree, LL128, []ofiPoint{x.pt(65536, ofiMaxRanks), x.pt(65536, 64), x.pt(65536, 2), x.pt(262144, 2), x.pt(1048576, 4), x.pt(4194304, 8), x.pt(16777216, 16), x.pt(33554432, 32), x.pt(1048576, 32), x.pt(1048576, 96), extendedTreeLl128}},
				{Tree, Simple, []ofiPoint{extendedTreeLl128, x.pt(1048576, 96), x.pt(1048577, 32), x.pt(33554431, 32), x.pt(33554432, 128), extendedTreeSimple}},
				{Ring, LL128, []ofiPoint{extendedTreeSimple, x.pt(33554432, 128), x.pt(33554433, 32), x.pt(16777217, 16), x.pt(4194305, 8), x.pt(1048577, 4), x.pt(262144, 2), x.pt(6291456, 2), x.pt(50331648, 16), x.pt(301989888, 128), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(301989888, 128), x.pt(50331648, 16), x.pt(6291456, 2), x.pt(ofiMaxSize, 2)}},
			}
		}
		{
			extendedPatSimple := x.extend(x.pt(50331648, 64), x.pt(117440512, 128))
			extendedRingLl128 := x.extend(x.pt(50331648, 16), x.pt(301989888, 128))
			t[AllGather] = []ofiRegion{
				{PAT, Simple, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(1048576, 2), x.pt(8388608, 8), x.pt(16777216, 16), x.pt(16777216, 32), x.pt(50331648, 64), x.pt(117440512, 128), extendedPatSimple, x.pt(ofiMaxSize, ofiMaxRanks), x.pt(65536, ofiMaxRanks), x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedPatSimple, x.pt(117440512, 128), x.pt(50331648, 64), x.pt(16777216, 32), x.pt(16777217, 16), x.pt(8388609, 8), x.pt(1048576, 2), x.pt(4194304, 2), x.pt(50331648, 16), x.pt(301989888, 128), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(301989888, 128), x.pt(50331648, 16), x.pt(4194304, 2), x.pt(ofiMaxSize, 2)}},
			}
		}
	}
	return t
}

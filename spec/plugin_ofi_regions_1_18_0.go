package spec

// The regions of aws-ofi-nccl 1.18.0 (P-OFI-TUNER-2): per instance family,
// ranks per node and function, the (nBytes, nRanks) polygons where the
// tuner sets an algorithm and protocol, in the order it tries them.
// Transcribed from aws/aws-ofi-nccl v1.18.0
// src/tuner/nccl_ofi_regions.cpp region_init_internal_p5en, _p5_p5e, _p6 and _p6_b300; the
// extended vertices are extend_region's towards (TUNER_MAX_SIZE,
// TUNER_MAX_RANKS). A ranks-per-node count without a case has no regions:
// the tuner leaves NCCL's table as it is.
// Written as the changes from ofiRegions1_17_0: the cases and functions not listed
// here are the previous release's.
func ofiRegions1_18_0(x ofiGeometry, p ofiTunerPlatform, ranksPerNode int) (t ofiRegionTable) {
	t = ofiRegions1_17_0(x, p, ranksPerNode)
	switch int(p)<<8 | ranksPerNode {
	case int(ofiP6B300)<<8 | 8:
		{
			extendedTreeLl := x.extend(x.pt(360448, 1024), x.pt(360448, 2048))
			extendedTreeLl128 := x.extend(x.pt(218103808, 1024), x.pt(251658240, 2048))
			extendedNvlstreeSimple := x.extend(x.pt(9663676416, 256), x.pt(19327352832, 512))
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 16), x.pt(720896, 16), x.pt(491520, 32), x.pt(425984, 64), x.pt(425984, 128), x.pt(425984, 256), x.pt(360448, 512), x.pt(360448, 1024), x.pt(360448, 2048), extendedTreeLl, x.pt(0, ofiMaxRanks)}},
				{Tree, LL128, []ofiPoint{extendedTreeLl, x.pt(360448, 2048), x.pt(360448, 1024), x.pt(360448, 512), x.pt(425984, 256), x.pt(425984, 128), x.pt(425984, 64), x.pt(491520, 32), x.pt(720896, 16), x.pt(31457280, 16), x.pt(54525952, 32), x.pt(109051904, 64), x.pt(125829120, 128), x.pt(125829120, 256), x.pt(184549376, 512), x.pt(218103808, 1024), x.pt(251658240, 2048), extendedTreeLl128}},
				{Ring, LL128, []ofiPoint{x.pt(369098752, 128), x.pt(109051904, 64), x.pt(54525952, 32), x.pt(31457280, 16), x.pt(62914560, 16), x.pt(603979776, 32), x.pt(1006632960, 64), x.pt(1006632960, 128)}},
				{NVLSTree, Simple, []ofiPoint{extendedTreeLl128, x.pt(251658240, 2048), x.pt(218103808, 1024), x.pt(184549376, 512), x.pt(125829120, 256), x.pt(125829120, 128), x.pt(109051904, 64), x.pt(369098752, 128), x.pt(1006632960, 128), x.pt(1006632960, 64), x.pt(603979776, 32), x.pt(62914560, 16), x.pt(107374182400, 16), x.pt(603979776, 32), x.pt(2013265920, 64), x.pt(4026531840, 128), x.pt(9663676416, 256), x.pt(19327352832, 512), extendedNvlstreeSimple}},
				{Ring, Simple, []ofiPoint{extendedNvlstreeSimple, x.pt(19327352832, 512), x.pt(9663676416, 256), x.pt(4026531840, 128), x.pt(2013265920, 64), x.pt(603979776, 32), x.pt(107374182400, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(109051904, 1024), x.pt(218103808, 2048))
			extendedRingLl128 := x.extend(x.pt(13958643712, 512), x.pt(27917287424, 1024))
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(1703936, 16), x.pt(3407872, 32), x.pt(6815744, 64), x.pt(13631488, 128), x.pt(27262976, 256), x.pt(54525952, 512), x.pt(109051904, 1024), x.pt(218103808, 2048), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(218103808, 2048), x.pt(109051904, 1024), x.pt(54525952, 512), x.pt(27262976, 256), x.pt(13631488, 128), x.pt(6815744, 64), x.pt(3407872, 32), x.pt(1703936, 16), x.pt(436207616, 16), x.pt(872415232, 32), x.pt(1744830464, 64), x.pt(3489660928, 128), x.pt(6979321856, 256), x.pt(13958643712, 512), x.pt(27917287424, 1024), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(27917287424, 1024), x.pt(13958643712, 512), x.pt(6979321856, 256), x.pt(3489660928, 128), x.pt(1744830464, 64), x.pt(872415232, 32), x.pt(436207616, 16), x.pt(107374182400, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(109051904, 1024), x.pt(218103808, 2048))
			extendedRingLl128 := x.extend(x.pt(13958643712, 512), x.pt(27917287424, 1024))
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(1703936, 16), x.pt(3407872, 32), x.pt(6815744, 64), x.pt(13631488, 128), x.pt(27262976, 256), x.pt(54525952, 512), x.pt(109051904, 1024), x.pt(218103808, 2048), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(218103808, 2048), x.pt(109051904, 1024), x.pt(54525952, 512), x.pt(27262976, 256), x.pt(13631488, 128), x.pt(6815744, 64), x.pt(3407872, 32), x.pt(1703936, 16), x.pt(301989888, 16), x.pt(738197504, 32), x.pt(1207959552, 64), x.pt(3489660928, 128), x.pt(6979321856, 256), x.pt(13958643712, 512), x.pt(27917287424, 1024), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(27917287424, 1024), x.pt(13958643712, 512), x.pt(6979321856, 256), x.pt(3489660928, 128), x.pt(1207959552, 64), x.pt(738197504, 32), x.pt(301989888, 16), x.pt(ofiMaxSize, 16)}},
			}
		}
	case int(ofiP6B300)<<8 | 1:
		{
			extendedTreeLl128 := x.extend(x.pt(1441792, 16), x.pt(1441792, 256))
			extendedTreeSimple := x.extend(x.pt(503316480, 128), x.pt(1476395008, 256))
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(65536, 64), x.pt(65536, ofiMaxRanks), x.pt(0, ofiMaxRanks)}},
				{Tree, LL128, []ofiPoint{x.pt(65536, ofiMaxRanks), x.pt(65536, 64), x.pt(65536, 2), x.pt(294912, 2), x.pt(720896, 4), x.pt(1179648, 8), x.pt(1441792, 16), x.pt(1441792, 128), x.pt(1441792, 256), extendedTreeLl128}},
				{Tree, Simple, []ofiPoint{extendedTreeLl128, x.pt(1441792, 256), x.pt(1441792, 128), x.pt(1441792, 16), x.pt(1179648, 8), x.pt(2359296, 8), x.pt(4718592, 16), x.pt(75497472, 32), x.pt(218103808, 64), x.pt(503316480, 128), x.pt(1476395008, 256), extendedTreeSimple}},
				{Ring, LL128, []ofiPoint{x.pt(1476395008, 256), x.pt(503316480, 128), x.pt(218103808, 64), x.pt(75497472, 32), x.pt(4718592, 16), x.pt(2359296, 8), x.pt(1179648, 8), x.pt(720896, 4), x.pt(294912, 2), x.pt(3407872, 2), x.pt(13631488, 4), x.pt(31457280, 8), x.pt(75497472, 16), x.pt(150994944, 32), x.pt(301989888, 64), x.pt(603979776, 128)}},
				{Ring, Simple, []ofiPoint{extendedTreeSimple, x.pt(1476395008, 256), x.pt(603979776, 128), x.pt(301989888, 64), x.pt(150994944, 32), x.pt(75497472, 16), x.pt(31457280, 8), x.pt(13631488, 4), x.pt(3407872, 2), x.pt(ofiMaxSize, 2)}},
			}
		}
		{
			extendedPatSimple := x.extend(x.pt(369098752, 128), x.pt(738197504, 256))
			extendedRingLl128 := x.extend(x.pt(603979776, 128), x.pt(1207959552, 256))
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 2), x.pt(147456, 2), x.pt(131072, 12), x.pt(106496, 8), x.pt(65536, 4), x.pt(57344, 8), x.pt(36864, 4), x.pt(32768, 3), x.pt(4608, 4), x.pt(0, 8)}},
				{PAT, Simple, []ofiPoint{x.pt(0, ofiMaxRanks), x.pt(0, 8), x.pt(4608, 4), x.pt(32768, 3), x.pt(36864, 4), x.pt(57344, 8), x.pt(65536, 4), x.pt(106496, 8), x.pt(131072, 12), x.pt(147456, 2), x.pt(294912, 4), x.pt(4718592, 8), x.pt(9437184, 16), x.pt(75497472, 32), x.pt(218103808, 64), x.pt(369098752, 128), x.pt(738197504, 256), extendedPatSimple}},
				{Ring, LL128, []ofiPoint{extendedPatSimple, x.pt(738197504, 256), x.pt(369098752, 128), x.pt(218103808, 64), x.pt(75497472, 32), x.pt(9437184, 16), x.pt(4718592, 8), x.pt(294912, 4), x.pt(147456, 2), x.pt(5767168, 2), x.pt(15728640, 4), x.pt(37748736, 8), x.pt(75497472, 16), x.pt(150994944, 32), x.pt(301989888, 64), x.pt(603979776, 128), x.pt(1207959552, 256), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(1207959552, 256), x.pt(603979776, 128), x.pt(301989888, 64), x.pt(150994944, 32), x.pt(75497472, 16), x.pt(37748736, 8), x.pt(15728640, 4), x.pt(5767168, 2), x.pt(34359738368, 2)}},
			}
		}
		{
			extendedPatSimple := x.extend(x.pt(503316480, 128), x.pt(1006632960, 256))
			extendedRingLl128 := x.extend(x.pt(603979776, 128), x.pt(1207959552, 256))
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 2), x.pt(45056, 2), x.pt(147456, 4), x.pt(131072, 8), x.pt(36864, 4), x.pt(4608, 4), x.pt(4096, 6), x.pt(0, 8)}},
				{PAT, Simple, []ofiPoint{x.pt(0, ofiMaxRanks), x.pt(0, 8), x.pt(4096, 6), x.pt(4608, 4), x.pt(36864, 4), x.pt(131072, 8), x.pt(147456, 4), x.pt(45056, 2), x.pt(2359296, 4), x.pt(4718592, 8), x.pt(67108864, 16), x.pt(92274688, 32), x.pt(218103808, 64), x.pt(503316480, 128), x.pt(1006632960, 256), extendedPatSimple}},
				{Ring, LL128, []ofiPoint{extendedPatSimple, x.pt(1006632960, 256), x.pt(503316480, 128), x.pt(218103808, 64), x.pt(92274688, 32), x.pt(67108864, 16), x.pt(4718592, 8), x.pt(2359296, 4), x.pt(45056, 2), x.pt(3932160, 2), x.pt(11534336, 4), x.pt(31457280, 8), x.pt(75497472, 16), x.pt(150994944, 32), x.pt(301989888, 64), x.pt(603979776, 128), x.pt(1207959552, 256), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(1207959552, 256), x.pt(603979776, 128), x.pt(301989888, 64), x.pt(150994944, 32), x.pt(75497472, 16), x.pt(31457280, 8), x.pt(11534336, 4), x.pt(3932160, 2), x.pt(ofiMaxSize, 2)}},
			}
		}
	}
	return t
}

package spec

// The regions of aws-ofi-nccl 1.16.0 to 1.16.3 (P-OFI-TUNER-2): per instance family,
// ranks per node and function, the (nBytes, nRanks) polygons where the
// tuner sets an algorithm and protocol, in the order it tries them.
// Transcribed from aws/aws-ofi-nccl v1.16.0
// src/tuner/nccl_ofi_regions.cpp region_init_internal_p5en, _p5_p5e and _p6 (p6-b300 has none); the
// extended vertices are extend_region's towards (TUNER_MAX_SIZE,
// TUNER_MAX_RANKS). A ranks-per-node count without a case has no regions:
// the tuner leaves NCCL's table as it is.
func ofiRegions1_16_0(x ofiGeometry, p ofiTunerPlatform, ranksPerNode int) (t ofiRegionTable) {
	switch int(p)<<8 | ranksPerNode {
	case int(ofiP5en)<<8 | 8:
		{
			extendedTreeLl := x.extend(x.pt(262144, 192), x.pt(262144, 1024))
			extendedTreeLl128 := x.extend(x.pt(150994944, 128), x.pt(251658240, 1024))
			extendedNvlstreeSimple := x.extend(x.pt(6442450944, 256), x.pt(17179869184, 768))
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 16), x.pt(262144, 16), x.pt(262144, 1024), extendedTreeLl}},
				{Tree, LL128, []ofiPoint{extendedTreeLl, x.pt(262144, 1024), x.pt(262144, 16), x.pt(14680064, 16), x.pt(150994944, 128), x.pt(251658240, 1024), extendedTreeLl128}},
				{Ring, LL128, []ofiPoint{x.pt(150994944, 128), x.pt(14680064, 16), x.pt(33554432, 16), x.pt(536870912, 32), x.pt(536870912, 128)}},
				{NVLSTree, Simple, []ofiPoint{extendedTreeLl128, x.pt(251658240, 1024), x.pt(150994944, 128), x.pt(536870912, 128), x.pt(536870912, 32), x.pt(6442450944, 256), x.pt(17179869184, 768), extendedNvlstreeSimple}},
				{Ring, Simple, []ofiPoint{extendedNvlstreeSimple, x.pt(17179869184, 768), x.pt(6442450944, 256), x.pt(536870912, 32), x.pt(33554432, 16), x.pt(1073741824, 16), x.pt(ofiMaxSize, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(8388608, 256), x.pt(33554432, 1024))
			extendedRingLl128 := x.extend(x.pt(8589934592, 512), x.pt(17179869184, 1024))
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(131072, 16), x.pt(262144, 32), x.pt(8388608, 256), x.pt(33554432, 1024), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(33554432, 1024), x.pt(8388608, 256), x.pt(262144, 32), x.pt(131072, 16), x.pt(268435456, 16), x.pt(2147483648, 128), x.pt(8589934592, 512), x.pt(17179869184, 1024), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(17179869184, 1024), x.pt(8589934592, 512), x.pt(268435456, 16), x.pt(17179869184, 16), x.pt(ofiMaxSize, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(8388608, 256), x.pt(33554432, 1024))
			extendedRingLl128 := x.extend(x.pt(8589934592, 512), x.pt(17179869184, 1024))
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(131072, 16), x.pt(262144, 32), x.pt(8388608, 256), x.pt(33554432, 1024), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(33554432, 1024), x.pt(8388608, 256), x.pt(262144, 32), x.pt(131072, 16), x.pt(268435456, 16), x.pt(2147483648, 128), x.pt(8589934592, 512), x.pt(17179869184, 1024), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(17179869184, 1024), x.pt(8589934592, 512), x.pt(268435456, 16), x.pt(17179869184, 16), x.pt(ofiMaxSize, 16)}},
			}
		}
	case int(ofiP5en)<<8 | 1:
		{
			extendedTreeLl128 := x.extend(x.pt(524288, 8), x.pt(1048576, 96))
			extendedTreeSimple := x.extend(x.pt(8388608, 32), x.pt(33554432, 128))
			extendedRingLl128 := x.extend(x.pt(50331648, 16), x.pt(301989888, 128))
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(65536, 64), x.pt(65536, ofiMaxRanks)}},
				{Tree, LL128, []ofiPoint{x.pt(65536, ofiMaxRanks), x.pt(65536, 64), x.pt(65536, 2), x.pt(262144, 2), x.pt(524288, 8), x.pt(1048576, 96), extendedTreeLl128}},
				{Tree, Simple, []ofiPoint{extendedTreeLl128, x.pt(1048576, 96), x.pt(524288, 8), x.pt(262144, 2), x.pt(8388608, 32), x.pt(33554432, 128), extendedTreeSimple}},
				{Ring, LL128, []ofiPoint{extendedTreeSimple, x.pt(33554432, 128), x.pt(8388608, 32), x.pt(262144, 2), x.pt(6291456, 2), x.pt(50331648, 16), x.pt(301989888, 128), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(301989888, 128), x.pt(50331648, 16), x.pt(6291456, 2), x.pt(ofiMaxSize, 2)}},
			}
		}
		{
			extendedPatSimple := x.extend(x.pt(50331648, 64), x.pt(117440512, 128))
			extendedRingLl128 := x.extend(x.pt(50331648, 16), x.pt(301989888, 128))
			t[AllGather] = []ofiRegion{
				{PAT, Simple, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(1048576, 2), x.pt(16777216, 32), x.pt(50331648, 64), x.pt(117440512, 128), extendedPatSimple, x.pt(ofiMaxSize, ofiMaxRanks), x.pt(65536, ofiMaxRanks), x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedPatSimple, x.pt(117440512, 128), x.pt(50331648, 64), x.pt(16777216, 32), x.pt(1048576, 2), x.pt(4194304, 2), x.pt(50331648, 16), x.pt(301989888, 128), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(301989888, 128), x.pt(50331648, 16), x.pt(4194304, 2), x.pt(ofiMaxSize, 2)}},
			}
		}
		{
			extendedPatSimple := x.extend(x.pt(50331648, 64), x.pt(117440512, 128))
			extendedRingLl128 := x.extend(x.pt(50331648, 16), x.pt(301989888, 128))
			t[ReduceScatter] = []ofiRegion{
				{PAT, Simple, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(1048576, 2), x.pt(16777216, 32), x.pt(50331648, 64), x.pt(117440512, 128), extendedPatSimple, x.pt(ofiMaxSize, ofiMaxRanks), x.pt(65536, ofiMaxRanks), x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedPatSimple, x.pt(117440512, 128), x.pt(50331648, 64), x.pt(16777216, 32), x.pt(1048576, 2), x.pt(4194304, 2), x.pt(50331648, 16), x.pt(301989888, 128), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(301989888, 128), x.pt(50331648, 16), x.pt(4194304, 2), x.pt(ofiMaxSize, 2)}},
			}
		}
	case int(ofiP5)<<8 | 8:
		{
			extendedTreeLl128 := x.extend(x.pt(402653184, 2048), x.pt(402653184, 4096))
			extendedNvlstreeSimple1 := x.extend(x.pt(8053063680, 160), x.pt(9663676416, 192))
			extendedNvlstreeSimple2 := x.extend(x.pt(402653184, 2048), x.pt(402653184, 4096))
			extendedRingSimple := x.extend(x.pt(8053063680, 160), x.pt(9663676416, 192))
			t[AllReduce] = []ofiRegion{
				{Tree, LL128, []ofiPoint{x.pt(0, 16), x.pt(31457280, 16), x.pt(37748736, 32), x.pt(117440512, 64), x.pt(301989888, 128), x.pt(301989888, 256), x.pt(335544320, 512), x.pt(536870912, 1024), x.pt(402653184, 2048), x.pt(402653184, 4096), extendedTreeLl128, x.pt(0, extendedTreeLl128.y)}},
				{NVLSTree, Simple, []ofiPoint{x.pt(31457281, 16), x.pt(ofiMaxSize, 16), x.pt(31457281, 16)}},
				{Ring, LL128, []ofiPoint{x.pt(31457280, 17), x.pt(1073741824, 17), x.pt(2147483648, 64), x.pt(2147483648, 128), x.pt(1342177280, 160), x.pt(2147483648, 256), x.pt(1074790400, 256), x.pt(444596224, 160), x.pt(301989888, 128), x.pt(117440512, 64), x.pt(37748736, 32)}},
				{NVLSTree, Simple, []ofiPoint{x.pt(2147483648, 128), x.pt(6442450944, 128), x.pt(8053063680, 160), x.pt(9663676416, 192), extendedNvlstreeSimple1, extendedNvlstreeSimple2, x.pt(402653184, 4096), x.pt(402653184, 2048), x.pt(536870912, 1024), x.pt(335544320, 512), x.pt(301989888, 256), x.pt(310378496, 160), x.pt(444596224, 160), x.pt(1074790400, 256), x.pt(2684354560, 256), x.pt(2147483648, 224), x.pt(1342177280, 160)}},
				{Ring, Simple, []ofiPoint{x.pt(1073741824, 17), x.pt(extendedRingSimple.x, 17), extendedRingSimple, x.pt(9663676416, 192), x.pt(8053063680, 160), x.pt(2684354560, 64), x.pt(1610612736, 32)}},
			}
		}
	case int(ofiP5)<<8 | 2:
		{
			extendedTreeLl128 := x.extend(x.pt(88160256, 128), x.pt(178163712, 256))
			extendedTreeSimple1 := x.extend(x.pt(787480576, 128), x.pt(1073741824, 256))
			extendedTreeSimple2 := x.extend(x.pt(257114112, 128), x.pt(269484032, 256))
			extendedNvlstreeSimple := x.extend(x.pt(787480576, 128), x.pt(1073741824, 256))
			t[AllReduce] = []ofiRegion{
				{Tree, LL128, []ofiPoint{x.pt(0, 4), x.pt(1314816, 4), x.pt(1051648, 8), x.pt(1051648, 12), x.pt(2367488, 16), x.pt(5525504, 32), x.pt(9473024, 64), x.pt(88160256, 128), x.pt(178163712, 256), extendedTreeLl128, x.pt(0, extendedTreeLl128.y)}},
				{Ring, LL128, []ofiPoint{x.pt(1314816, 4), x.pt(19736576, 4), x.pt(41842688, 8), x.pt(296747008, 64), x.pt(257114112, 128), x.pt(269484032, 256), x.pt(178163712, 256), x.pt(88160256, 128), x.pt(9473024, 64), x.pt(5525504, 32), x.pt(2367488, 16), x.pt(1051648, 12), x.pt(1051648, 8), x.pt(1314816, 4)}},
				{NVLSTree, Simple, []ofiPoint{x.pt(19736576, 4), x.pt(81844224, 4), x.pt(275775488, 8), x.pt(275775488, 48), x.pt(296747008, 64), x.pt(41842688, 8)}},
				{Tree, LL128, []ofiPoint{x.pt(81844224, 4), x.pt(269484032, 4), x.pt(81844224, 4)}},
				{Tree, Simple, []ofiPoint{x.pt(269484032, 4), x.pt(ofiMaxSize, 4), x.pt(269484032, 4)}},
				{Ring, Simple, []ofiPoint{x.pt(81844224, 5), x.pt(ofiMaxSize, 5), x.pt(ofiMaxSize, 32), x.pt(1073741824, 40), x.pt(1073741824, 128), x.pt(787480576, 128), x.pt(296747008, 64), x.pt(275775488, 48), x.pt(275775488, 8), x.pt(81844224, 5)}},
				{Tree, Simple, []ofiPoint{x.pt(296747008, 64), x.pt(787480576, 128), x.pt(1073741824, 256), extendedTreeSimple1, extendedTreeSimple2, x.pt(269484032, 256), x.pt(257114112, 128)}},
				{NVLSTree, Simple, []ofiPoint{extendedNvlstreeSimple, x.pt(1073741824, 256), x.pt(787480576, 128), x.pt(1073741824, 128), x.pt(1073741824, 40), x.pt(ofiMaxSize, 32)}},
			}
		}
	case int(ofiP5)<<8 | 1:
		{
			extendedTreeLl128 := x.extend(x.pt(9999360, 64), x.pt(119477248, 128))
			extendedRingLl128 := x.extend(x.pt(4736000, 2), x.pt(269484032, 128))
			t[AllReduce] = []ofiRegion{
				{Tree, LL128, []ofiPoint{x.pt(0, 16), x.pt(2367488, 16), x.pt(9999360, 64), x.pt(119477248, 128), extendedTreeLl128}},
				{Ring, LL128, []ofiPoint{x.pt(0, 2), x.pt(4736000, 2), x.pt(269484032, 128), extendedRingLl128, extendedTreeLl128, x.pt(119477248, 128), x.pt(9999360, 64), x.pt(2367488, 16), x.pt(0, 16)}},
				{Ring, Simple, []ofiPoint{x.pt(4736000, 2), x.pt(ofiMaxSize, 2), extendedRingLl128, x.pt(269484032, 128)}},
			}
		}
		{
			extendedRingSimple := x.extend(x.pt(4194304, 2), x.pt(8589934592, 2048))
			t[AllGather] = []ofiRegion{
				{Ring, Simple, []ofiPoint{x.pt(4194304, 2), x.pt(ofiMaxSize, 2), extendedRingSimple, x.pt(8589934592, 2048)}},
			}
		}
		{
			extendedRingSimple := x.extend(x.pt(8388608, 2), x.pt(4294967296, 1024))
			t[ReduceScatter] = []ofiRegion{
				{Ring, Simple, []ofiPoint{x.pt(8388608, 2), x.pt(ofiMaxSize, 2), extendedRingSimple, x.pt(4294967296, 1024)}},
			}
		}
	case int(ofiP6B200)<<8 | 8:
		{
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 16), x.pt(262144, 16), x.pt(262144, 1024), x.pt(262144, 1048576)}},
				{Tree, LL128, []ofiPoint{x.pt(262144, 1048576), x.pt(262144, 1024), x.pt(262144, 16), x.pt(55574528, 16), x.pt(67108864, 32), x.pt(465567744, 128), x.pt(962592768, 256), x.pt(1610612736, 512), x.pt(2684354560, 1024), x.pt(107374182400, 50944), x.pt(107374182400, 1048576)}},
				{Ring, LL128, []ofiPoint{x.pt(55574528, 16), x.pt(87031808, 16), x.pt(562036736, 32), x.pt(17179869184, 1024), x.pt(107374182400, 6408.141), x.pt(107374182400, 33962.667), x.pt(3758096384, 1024), x.pt(2147483648, 512), x.pt(1610612736, 512), x.pt(962592768, 256), x.pt(465567744, 128), x.pt(67108864, 32)}},
				{NVLSTree, Simple, []ofiPoint{x.pt(1610612736, 512), x.pt(2147483648, 512), x.pt(3758096384, 1024), x.pt(107374182400, 33962.667), x.pt(107374182400, 50944), x.pt(2684354560, 1024)}},
				{NVLSTree, Simple, []ofiPoint{x.pt(87031808, 16), x.pt(107374182400, 16), x.pt(107374182400, 16), x.pt(87031808, 16)}},
				{Ring, Simple, []ofiPoint{x.pt(562036736, 32), x.pt(87031808, 16), x.pt(107374182400, 16), x.pt(107374182400, 6408.141), x.pt(17179869184, 1024)}},
			}
		}
		{
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(1048576, 16), x.pt(106954752, 1024), x.pt(107374182400, 1021978.297), x.pt(0, 1048576)}},
				{Ring, LL128, []ofiPoint{x.pt(1048576, 16), x.pt(268435456, 16), x.pt(21474836480, 1024), x.pt(107374182400, 5107.038), x.pt(107374182400, 1021978.297), x.pt(106954752, 1024)}},
				{Ring, Simple, []ofiPoint{x.pt(268435456, 16), x.pt(107374182400, 16), x.pt(107374182400, 5107.038)}},
			}
		}
		{
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(1048576, 16), x.pt(106954752, 1024), x.pt(107374182400, 1021978.297), x.pt(0, 1048576)}},
				{Ring, LL128, []ofiPoint{x.pt(1048576, 16), x.pt(268435456, 16), x.pt(21474836480, 1024), x.pt(107374182400, 5107.038), x.pt(107374182400, 1021978.297), x.pt(106954752, 1024)}},
				{Ring, Simple, []ofiPoint{x.pt(268435456, 16), x.pt(107374182400, 16), x.pt(107374182400, 5107.038)}},
			}
		}
	case int(ofiP6B200)<<8 | 1:
		{
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 2), x.pt(32768, 2), x.pt(32768, 128), x.pt(32768, 131072), x.pt(0, 131072)}},
				{Tree, LL128, []ofiPoint{x.pt(32768, 2), x.pt(131072, 2), x.pt(8388608, 128), x.pt(8589934592, 131072), x.pt(32768, 131072), x.pt(32768, 128)}},
				{Ring, LL128, []ofiPoint{x.pt(131072, 2), x.pt(3145728, 2), x.pt(297795584, 128), x.pt(107374182400, 45916), x.pt(107374182400, 59831), x.pt(164626432, 128), x.pt(20971520, 48), x.pt(3145728, 48)}},
				{Tree, Simple, []ofiPoint{x.pt(3145728, 48), x.pt(20971520, 48), x.pt(164626432, 128), x.pt(107374182400, 59831), x.pt(107374182400, 131072), x.pt(8589934592, 131072)}},
				{Ring, Simple, []ofiPoint{x.pt(3145728, 2), x.pt(107374182400, 2), x.pt(107374182400, 45916), x.pt(297795584, 128)}},
			}
		}
		{
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(65536, 4)}},
				{PAT, Simple, []ofiPoint{x.pt(0, 2), x.pt(65536, 4), x.pt(1048576, 4), x.pt(12582912, 48), x.pt(88080384, 48), x.pt(248512512, 128), x.pt(34359738368, 17137), x.pt(0, 131072)}},
				{Ring, LL128, []ofiPoint{x.pt(65536, 2), x.pt(2097152, 2), x.pt(16777216, 8), x.pt(291504128, 128), x.pt(34359738368, 15008), x.pt(34359738368, 17137), x.pt(248512512, 128), x.pt(88080384, 48), x.pt(12582912, 48), x.pt(1048576, 4), x.pt(65536, 4)}},
				{Ring, Simple, []ofiPoint{x.pt(2097152, 2), x.pt(34359738368, 2), x.pt(34359738368, 15008), x.pt(291504128, 128), x.pt(16777216, 8)}},
			}
		}
		{
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 2), x.pt(65536, 2), x.pt(65536, 4)}},
				{PAT, Simple, []ofiPoint{x.pt(0, 2), x.pt(65536, 4), x.pt(1048576, 4), x.pt(67108864, 48), x.pt(106954752, 48), x.pt(274877906944, 121928), x.pt(0, 131072)}},
				{Ring, LL128, []ofiPoint{x.pt(65536, 2), x.pt(2097152, 2), x.pt(16777216, 8), x.pt(106954752, 48), x.pt(67108864, 48), x.pt(1048576, 4), x.pt(65536, 4)}},
				{Ring, Simple, []ofiPoint{x.pt(2097152, 2), x.pt(274877906944, 2), x.pt(274877906944, 121928), x.pt(106954752, 48), x.pt(16777216, 8)}},
			}
		}

	}
	return t
}

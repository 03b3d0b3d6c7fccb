package spec

// The regions of aws-ofi-nccl 1.17.0 to 1.17.3 (P-OFI-TUNER-2): per instance family,
// ranks per node and function, the (nBytes, nRanks) polygons where the
// tuner sets an algorithm and protocol, in the order it tries them.
// Transcribed from aws/aws-ofi-nccl v1.17.0
// src/tuner/nccl_ofi_regions.cpp region_init_internal_p5en, _p5_p5e and _p6 (p6-b300 has none); the
// extended vertices are extend_region's towards (TUNER_MAX_SIZE,
// TUNER_MAX_RANKS). A ranks-per-node count without a case has no regions:
// the tuner leaves NCCL's table as it is.
func ofiRegions1_17_0(x ofiGeometry, p ofiTunerPlatform, ranksPerNode int) (t ofiRegionTable) {
	switch int(p)<<8 | ranksPerNode {
	case int(ofiP5en)<<8 | 8:
		{
			extendedTreeLl := x.extend(x.pt(196608, 192), x.pt(196608, 1024))
			extendedTreeLl128 := x.extend(x.pt(129499136, 127), x.pt(218103808, 1024))
			extendedNvlstreeSimple := x.extend(x.pt(7516192768, 256), x.pt(17179869184, 448))
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 16), x.pt(196608, 16), x.pt(196608, 1024), extendedTreeLl, x.pt(0, ofiMaxRanks)}},
				{Tree, LL128, []ofiPoint{extendedTreeLl, x.pt(196608, 1024), x.pt(196608, 16), x.pt(13107200, 16), x.pt(129499136, 127), x.pt(218103808, 1024), extendedTreeLl128}},
				{Ring, LL128, []ofiPoint{x.pt(129499136, 127), x.pt(13107200, 16), x.pt(29884416, 16), x.pt(293601280, 32), x.pt(589299712, 64), x.pt(549453824, 128)}},
				{NVLSTree, Simple, []ofiPoint{extendedTreeLl128, x.pt(218103808, 1024), x.pt(129499136, 127), x.pt(549453824, 128), x.pt(589299712, 64), x.pt(293601280, 32), x.pt(29884416, 16), x.pt(ofiMaxSize, 16), x.pt(509607936, 32), x.pt(7516192768, 256), x.pt(17179869184, 448), extendedNvlstreeSimple}},
				{Ring, Simple, []ofiPoint{extendedNvlstreeSimple, x.pt(17179869184, 448), x.pt(7516192768, 256), x.pt(509607936, 32), x.pt(ofiMaxSize, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(28305408, 768), x.pt(33554432, 1024))
			extendedRingLl128 := x.extend(x.pt(7247754240, 384), x.pt(17179865088, 896))
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(786432, 16), x.pt(4718592, 128), x.pt(13630464, 384), x.pt(19922944, 512), x.pt(28305408, 768), x.pt(33554432, 1024), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(33554432, 1024), x.pt(28305408, 768), x.pt(19922944, 512), x.pt(13630464, 384), x.pt(4718592, 128), x.pt(786432, 16), x.pt(236978176, 16), x.pt(956301312, 64), x.pt(7247754240, 384), x.pt(17179865088, 896), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(17179865088, 896), x.pt(7247754240, 384), x.pt(956301312, 64), x.pt(494927872, 32), x.pt(236978176, 16), x.pt(ofiMaxSize, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(7340032, 256), x.pt(18874368, 512))
			extendedRingLl128 := x.extend(x.pt(7247757312, 256), x.pt(17179869184, 640))
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(786432, 16), x.pt(4718592, 128), x.pt(7340032, 256), x.pt(18874368, 512), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(18874368, 512), x.pt(7340032, 256), x.pt(4718592, 128), x.pt(786432, 16), x.pt(291504128, 16), x.pt(589299712, 32), x.pt(2415919104, 128), x.pt(7247757312, 256), x.pt(17179869184, 640), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(17179869184, 640), x.pt(7247757312, 256), x.pt(2415919104, 128), x.pt(589299712, 32), x.pt(291504128, 16), x.pt(ofiMaxSize, 16)}},
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
			extendedTreeLl := x.extend(x.pt(393216, 16), x.pt(393216, 1024))
			extendedTreeLl128 := x.extend(x.pt(96993280, 1024), x.pt(106430464, 2048))
			extendedNvlstreeSimple := x.extend(x.pt(10737418240, 512), x.pt(34359738368, 1500))
			t[AllReduce] = []ofiRegion{
				{Tree, LL, []ofiPoint{x.pt(0, 16), x.pt(393216, 16), extendedTreeLl, x.pt(0, ofiMaxRanks)}},
				{Tree, LL128, []ofiPoint{extendedTreeLl, x.pt(393216, 16), x.pt(4718592, 16), x.pt(18350080, 32), x.pt(40370176, 64), x.pt(57147392, 128), x.pt(72876032, 256), x.pt(96993280, 1024), x.pt(106430464, 2048), extendedTreeLl128}},
				{Ring, LL128, []ofiPoint{x.pt(90701824, 128), x.pt(50855936, 64), x.pt(18350080, 32), x.pt(133693440, 32), x.pt(120061952, 64)}},
				{NVLSTree, Simple, []ofiPoint{extendedTreeLl128, x.pt(106430464, 2048), x.pt(96993280, 1024), x.pt(72876032, 256), x.pt(57147392, 128), x.pt(40370176, 64), x.pt(18350080, 32), x.pt(50855936, 64), x.pt(90701824, 128), x.pt(120061952, 64), x.pt(133693440, 32), x.pt(18350080, 32), x.pt(4718592, 16), x.pt(ofiMaxSize, 16), x.pt(435159040, 32), x.pt(1072693248, 64), x.pt(10737418240, 512), x.pt(34359738368, 1500), extendedNvlstreeSimple}},
				{Ring, Simple, []ofiPoint{extendedNvlstreeSimple, x.pt(10737418240, 512), x.pt(1072693248, 64), x.pt(435159040, 32), x.pt(ofiMaxSize, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(74973184, 1024), x.pt(213385216, 2048))
			extendedRingLl128 := x.extend(x.pt(8321499136, 512), x.pt(32212254720, 2048))
			t[AllGather] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(786432, 16), x.pt(1572864, 32), x.pt(2621440, 64), x.pt(4718592, 128), x.pt(17301504, 256), x.pt(74973184, 1024), x.pt(213385216, 2048), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(213385216, 2048), x.pt(74973184, 1024), x.pt(17301504, 256), x.pt(4718592, 128), x.pt(2621440, 64), x.pt(1572864, 32), x.pt(786432, 16), x.pt(198705152, 16), x.pt(456130560, 32), x.pt(871366656, 64), x.pt(8321499136, 512), x.pt(32212254720, 2048), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(32212254720, 2048), x.pt(8321499136, 512), x.pt(871366656, 64), x.pt(456130560, 32), x.pt(198705152, 16), x.pt(ofiMaxSize, 16)}},
			}
		}
		{
			extendedRingLl := x.extend(x.pt(73924608, 1024), x.pt(209190912, 2048))
			extendedRingLl128 := x.extend(x.pt(4294967296, 256), x.pt(8589934592, 512))
			t[ReduceScatter] = []ofiRegion{
				{Ring, LL, []ofiPoint{x.pt(0, 16), x.pt(786432, 16), x.pt(1572864, 32), x.pt(2621440, 64), x.pt(4718592, 128), x.pt(17301504, 256), x.pt(35127296, 512), x.pt(73924608, 1024), x.pt(209190912, 2048), extendedRingLl, x.pt(0, ofiMaxRanks)}},
				{Ring, LL128, []ofiPoint{extendedRingLl, x.pt(209190912, 2048), x.pt(73924608, 1024), x.pt(35127296, 512), x.pt(17301504, 256), x.pt(4718592, 128), x.pt(2621440, 64), x.pt(1572864, 32), x.pt(786432, 16), x.pt(219676672, 16), x.pt(508559360, 32), x.pt(592445440, 64), x.pt(4294967296, 256), x.pt(8589934592, 512), extendedRingLl128}},
				{Ring, Simple, []ofiPoint{extendedRingLl128, x.pt(4294967296, 256), x.pt(592445440, 64), x.pt(508559360, 32), x.pt(219676672, 16), x.pt(ofiMaxSize, 16)}},
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

package spec

// The regions of aws-ofi-nccl 1.17.0 to 1.17.3 (P-OFI-TUNER-2): per instance family,
// ranks per node and function, the (nBytes, nRanks) polygons where the
// tuner sets an algorithm and protocol, in the order it tries them.
// Transcribed from aws/aws-ofi-nccl v1.17.0
// src/tuner/nccl_ofi_regions.cpp region_init_internal_p5en, _p5_p5e and _p6 (p6-b300 has none); the
// extended vertices are extend_region's towards (TUNER_MAX_SIZE,
// TUNER_MAX_RANKS). A ranks-per-node count without a case has no regions:
// the tuner leaves NCCL's table as it is.
// Written as the changes from ofiRegions1_16_0: the cases and functions not listed
// here are the previous release's.
func ofiRegions1_17_0(x ofiGeometry, p ofiTunerPlatform, ranksPerNode int) (t ofiRegionTable) {
	t = ofiRegions1_16_0(x, p, ranksPerNode)
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
	}
	return t
}

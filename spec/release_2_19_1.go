package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.19.1 (tag v2.19.1-1, commit f9c3dc2), a backward delta from
// 2.19.3: what 2.19.1 had where 2.19.3 differs. The graph search
// (topo.Apply2_19_1): no NVSwitch rule in the GPU order (2.19.3 tries the
// neighbours first and skips the PCI order), the channels are duplicated
// after the search for more bandwidth, which never raises a ring's, and
// sm90SpeedArrayInter has no 22 GB/s step; and a registered NVLS buffer's
// channels bounded by the CTA limits (tuningBack2_19_1). Its tuning tables
// equal 2.19.3's (v2.19.1-1.txt) and so does its parameter table.
//
// Read at the tag and not modelled here (docs/releases.md lists them): the
// NVLS chunk size without the 32 KiB cap of multi-node NVLS below 150 GB/s
// and the NVLSTree chunk without the 64 KiB cap from 4 nodes
// (computeColl) and P2P/direct pointers within one process being off with
// cuMem (p2pSendSetup, p2pRecvSetup). A registered NVLS buffer's channels
// are bounded by the CTA limits, not nvlsChannels (registerIntraNodeBuffers).

var tag2191 = "v2.19.1-1"

var release2_19_1 = Release{
	Version: V2_19_1,
	Tag:     tag2191,
	Consts:  consts2_19_1,
	Topo:    topo.Apply2_19_1,
	Tuning:  tuningBack2_19_1,
}

// tuningBack2_19_1: a registered NVLS buffer runs on 5 or 4 channels
// within the config's CTA bounds (2.19.3 caps them at nvlsChannels).
func tuningBack2_19_1(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2191}
	tuningSet(d, &t.RegNVLS, TuningRegNVLSCTAs, enqueueCC, "registerIntraNodeBuffers")
	return d.changes, tuningJoinErrs(d.errs)
}

// consts2_19_1: computeColl has neither the 32 KiB NVLS chunk across nodes
// nor NVLSTree's 64 KiB cap from 4 nodes (both arrive in 2.19.3).
func consts2_19_1(rs *Ruleset) {
	ref := Ref{Tag: tag2191, File: "src/enqueue.cc", Func: "computeColl"}
	rs.SetConst("NVLSNetChunkCap", false, ref)
	rs.SetConst("NVLSTreeChunkCap4Nodes", false, ref)
	rs.SetConst("P2PDirectCuMem", false, Ref{Tag: tag2191, File: "src/transport/p2p.cc", Func: "p2pSendSetup"})
	setCollNetFail(rs, tag2191, collNetFailInit(295, 327, 670))
}

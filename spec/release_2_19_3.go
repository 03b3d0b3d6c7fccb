package spec

// NCCL 2.19.3 (tag v2.19.3-1, commit 8c6c595), a backward delta from
// 2.19.4 whose one block is a source location (the lines a refused CollNet
// group prints from, Consts.CollNetFail): nothing 2.19.4 changed decides
// anything gatesim models (release2_19_4 says what it did change). The release
// exists so that its logs and answers name it; its tuning tables equal
// 2.19.4's (v2.19.3-1.txt) and its parameter table is v2.19.3-1.tsv.

var release2_19_3 = Release{
	Version: V2_19_3,
	Tag:     "v2.19.3-1",
	Consts:  consts2_19_3,
}

func consts2_19_3(rs *Ruleset) {
	setCollNetFail(rs, "v2.19.3-1", collNetFailInit(291, 323, 670))
}

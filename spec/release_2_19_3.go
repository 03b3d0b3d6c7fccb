package spec

// NCCL 2.19.3 (tag v2.19.3-1, commit 8c6c595), a backward delta from
// 2.19.4 with no block: nothing 2.19.4 changed decides anything gatesim
// models (release2_19_4.Unchanged says what it did change). The release
// exists so that its logs and answers name it; its tuning tables equal
// 2.19.4's (v2.19.3-1.txt) and its parameter table is v2.19.3-1.tsv.

var release2_19_3 = Release{
	Version: V2_19_3,
	Tag:     "v2.19.3-1",
}

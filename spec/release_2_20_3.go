package spec

// NCCL 2.20.3 (tag v2.20.3-1, commit b647562), a backward delta from
// 2.20.5: the MNNVL check runs for every communicator, one host included
// (2.20.5 checks it only across hosts). Its tuning tables equal 2.20.5's
// (v2.20.3-1.txt).

var tag2203 = "v2.20.3-1"

var mnnvl203 = mnnvlParam20(Ref{Tag: tag2203, File: "src/init.cc", Func: "initTransportsRank"},
	`Checked for every communicator, one host included: the clique is the ranks whose fabric state is complete with the same cluster UUID and clique ID; MNNVL = (NCCL_MNNVL < 0) ? cliqueSize == nRanks (the whole communicator is one clique) : NCCL_MNNVL; then off without cuMem or without fabric-handle support.`, false)

var release2_20_3 = Release{
	Version: V2_20_3,
	Tag:     tag2203,
	Rules:   back2_20_3,
}

func back2_20_3(rs *Ruleset) {
	rs.Replace(mnnvl203, "2.20.3 checks MNNVL on one host too; 2.20.5 only when the communicator spans several hosts")
}

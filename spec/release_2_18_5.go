package spec

// NCCL 2.18.5 (tag v2.18.5-1, commit 559b70f), a backward delta from
// 2.18.6 whose one block is a source location (the lines a refused CollNet
// group prints from, Consts.CollNetFail): 2.18.6 only makes the host keep copies of the
// device peer pointers instead of reading them back from the device, a fix
// that decides nothing (release2_18_6 says so for 2.18.6's changelog,
// as 2.19.4 does for 2.19.3's).

var release2_18_5 = Release{
	Version: V2_18_5,
	Tag:     "v2.18.5-1",
	Consts:  consts2_18_5,
}

func consts2_18_5(rs *Ruleset) {
	setCollNetFail(rs, "v2.18.5-1", collNetFailInit(273, 305, 641))
}

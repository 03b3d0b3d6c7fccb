package spec

// NCCL 2.18.5 (tag v2.18.5-1, commit 559b70f), a backward delta from
// 2.18.6 with no block: 2.18.6 only makes the host keep copies of the
// device peer pointers instead of reading them back from the device, a fix
// that decides nothing (release2_18_6.Unchanged says so for 2.18.6's
// changelog, as 2.19.4 does for 2.19.3's).

var release2_18_5 = Release{
	Version: V2_18_5,
	Tag:     "v2.18.5-1",
}

package spec

// NCCL 2.18.5 (tag v2.18.5-1, commit 559b70f), a backward delta from
// 2.18.6: 2.18.6 only makes the host keep copies of the device peer
// pointers (src/channel.cc initChannel, src/transport.cc
// ncclTransportP2pSetup, src/transport/nvls.cc ncclNvlsSetup) instead of
// reading them back from the device, a fix that decides nothing.

var release2_18_5 = Release{
	Version: V2_18_5,
	Tag:     "v2.18.5-1",
	Unchanged: "2.18.6 keeps host copies of the device peer pointers (src/channel.cc initChannel, src/transport/nvls.cc ncclNvlsSetup) " +
		"instead of copying them back from the device: a fix; no gate, constant or rule differs",
}

package hw

import _ "embed"

// ReplayPTX is the replay kernel, kernels/gatesim_replay.cu compiled for
// the GPUs (kernels/README.md has the command and checksums); gatesim hw
// replay loads it through the driver API.
//
//go:embed kernels/gatesim_replay.ptx
var ReplayPTX []byte

package nccl

// Integer is the integer types NCCL's size and count arithmetic runs on.
type Integer interface {
	~int | ~int32 | ~int64 | ~uint32 | ~uint64
}

// DivUp is DIVUP(x, y): x / y rounded up, for x >= 0 and y > 0
// (src/include/bitops.h at v2.28.9-1).
func DivUp[T Integer](x, y T) T { return (x + y - 1) / y }

// RoundUp is ROUNDUP(x, y): x rounded up to a multiple of y, for x >= 0
// and y > 0 (src/include/bitops.h at v2.28.9-1).
func RoundUp[T Integer](x, y T) T { return DivUp(x, y) * y }

// MaxDevWorkP2PPerBatch is NCCL_MAX_DEV_WORK_P2P_PER_BATCH: the p2p
// operations one work batch (one round on a channel) holds, 8 at every
// tag from v2.22.3-1 (src/include/device.h), where the define first
// appears.
const MaxDevWorkP2PPerBatch = 8

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

// Steps is NCCL_STEPS: the slots of a connection's buffer (8 at every
// modelled tag, src/include/device.h).
const Steps = 8

// DefaultBuffSize is a connection's buffer of LL, LL128 and Simple without
// NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE and NCCL_BUFFSIZE: DEFAULT_LL_BUFFSIZE
// (NCCL_LL_LINES_PER_THREAD × NCCL_LL_MAX_NTHREADS × NCCL_STEPS × 16),
// DEFAULT_LL128_BUFFSIZE (NCCL_LL128_ELEMS_PER_THREAD ×
// NCCL_LL128_MAX_NTHREADS × NCCL_STEPS × 8) and DEFAULT_BUFFSIZE (4 MiB),
// the same at every modelled tag (src/include/device.h, src/init.cc
// computeBuffSizes), indexed by Proto.
func DefaultBuffSize() [NumProtos]int {
	return [NumProtos]int{8 * 512 * Steps * 16, 120 * 640 * Steps * 8, 1 << 22}
}

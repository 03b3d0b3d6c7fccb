package spec

import (
	"fmt"
	"math/bits"
)

// The limits every input is checked against at its edge, before any work
// (docs/limits.md lists them with the memory each takes at its maximum).
// They are gatesim's, not NCCL's, except where a comment names NCCL's.
const (
	// MaxNodes bounds a machine's node count (--nodes, a system file, the
	// oracle's "nodes").
	MaxNodes = 16384
	// MaxRanks bounds nodes × GPUs per node: 16,384 DGX H100 nodes. sim at
	// this size takes 13-33 s and 0.47 GB.
	MaxRanks = 131072
	// MaxGPUsPerNode is the largest NCCL_MAX_LOCAL_RANKS of the modelled
	// releases (src/include/device.h: 64 in 2.22.3, 72 from 2.28.3).
	MaxGPUsPerNode = 72
	// MaxOpBytes bounds count × element size of one operation: 1 TiB, more
	// than any GPU's memory. From 2^48 bytes NCCL's own cost model finds no
	// algorithm under its 3600 s ceiling.
	MaxOpBytes = int64(1) << 40
	// MaxFileBytes bounds every file read whole: system, topology, graph,
	// plugin, group, job-script, sweep and prediction files.
	MaxFileBytes = 16 << 20
	// MaxLineBytes bounds one line of a line-oriented input (oracle
	// requests, job scripts, call scripts, logs).
	MaxLineBytes = 1 << 20
	// MaxSweepPoints bounds whatif's and sim's size sweeps.
	MaxSweepPoints = 1024
	// MaxGroupCalls and MaxGroupDepth bound a call script: calls in all,
	// and ncclGroupStart nesting.
	MaxGroupCalls = 100000
	MaxGroupDepth = 1024
	// MaxEnvVars bounds the NCCL_* assignments of one job script or request.
	MaxEnvVars = 4096
	// MaxValueBytes bounds one variable's value; MaxEnvName its name.
	MaxValueBytes = 64 << 10
	MaxEnvName    = 256
)

// checkNodes refuses a node count given as --nodes (or a preset's
// nodes) outside 1..MaxNodes, in the one message every command prints.
func checkNodes(n int) error {
	if n < 1 || n > MaxNodes {
		return fmt.Errorf("--nodes %d: expected 1 to %d (gatesim's limit)", n, MaxNodes)
	}
	return nil
}

// CheckShape refuses a machine beyond the limits: nodes and GPUs per node
// as given, before anything is built for them.
func CheckShape(nodes, gpusPerNode int) error {
	if nodes < 1 || nodes > MaxNodes {
		return fmt.Errorf("%d nodes: expected 1 to %d (gatesim's limit)", nodes, MaxNodes)
	}
	if gpusPerNode < 1 || gpusPerNode > MaxGPUsPerNode {
		return fmt.Errorf("%d GPUs per node: expected 1 to %d (NCCL_MAX_LOCAL_RANKS)", gpusPerNode, MaxGPUsPerNode)
	}
	if nodes*gpusPerNode > MaxRanks {
		return fmt.Errorf("%d nodes × %d GPUs = %d ranks: expected at most %d (gatesim's limit)", nodes, gpusPerNode, nodes*gpusPerNode, MaxRanks)
	}
	return nil
}

// CheckCount refuses a negative element count and one whose byte size
// overflows or exceeds MaxOpBytes.
func CheckCount(count int64, dt DataType) error {
	if count < 0 {
		return fmt.Errorf("negative count %d: expected 0 or more elements", count)
	}
	hi, lo := bits.Mul64(uint64(count), uint64(dt.Size()))
	if hi != 0 || lo > uint64(MaxOpBytes) {
		return fmt.Errorf("count %d × %d bytes (%s) exceeds %s per operation (gatesim's limit)", count, dt.Size(), dt, FormatBytes(MaxOpBytes))
	}
	return nil
}

// sizeVars are the byte sizes NCCL cuts a communicator's buffers and
// chunks by. NCCL takes a set value as strtoll reads it, truncated to an
// int, with no range check: buffSizes (src/init.cc computeBuffSizes, -2
// is NCCL_PARAM's unset), p2pChunkSize (the same function), nvlsChunkSize
// (src/transport/nvls.cc ncclNvlsSetup, ncclNvlsTuning from 2.30.3) and
// NVLSTree's cap (src/enqueue.cc, -2 unset). A zero or negative size
// leaves a buffer or a chunk without bytes, which NCCL divides by or fails
// to allocate: gatesim refuses it rather than model a crash.
var sizeVars = []struct {
	name  string
	unset int64 // NCCL_PARAM's unset value, 0 where the default is a size
	reads func(*Consts) bool
}{
	{"NCCL_BUFFSIZE", -2, nil}, {"NCCL_LL_BUFFSIZE", -2, nil}, {"NCCL_LL128_BUFFSIZE", -2, nil},
	{"NCCL_P2P_NET_CHUNKSIZE", 0, nil}, {"NCCL_P2P_NVL_CHUNKSIZE", 0, nil}, {"NCCL_P2P_PCI_CHUNKSIZE", 0, nil},
	{"NCCL_NVLS_CHUNKSIZE", 0, func(c *Consts) bool { return c.NVLSChunkSizeEnv }},
	{"NCCL_NVLSTREE_MAX_CHUNKSIZE", -2, func(c *Consts) bool { return c.NVLSTreeMaxChunkSizeEnv }},
}

// CheckSizeEnv refuses a buffer or chunk size variable the release reads
// whose value NCCL would take as zero or negative bytes.
func CheckSizeEnv(rs *Ruleset, env Env) error {
	for _, sv := range sizeVars {
		v, ok := env.Lookup(sv.name)
		if !ok || v == "" || (sv.reads != nil && !sv.reads(&rs.Consts)) {
			continue
		}
		n, overflow := strtoll(v)
		if overflow || (sv.unset != 0 && n == sv.unset) {
			continue // NCCL keeps the default
		}
		if b := int32(n); b <= 0 {
			want := "1 to 2147483647 bytes"
			if sv.unset != 0 {
				want += fmt.Sprintf(", or %d (unset)", sv.unset)
			}
			return fmt.Errorf("%s=%q: NCCL takes it as %d bytes, a buffer or chunk NCCL cannot use (gatesim does not model the failure); expected %s", sv.name, v, b, want)
		}
	}
	return nil
}

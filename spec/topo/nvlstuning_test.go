package topo

import "testing"

// TestNVLSTreeSM100Tuning walks every branch of ncclNvlsTreeSm100Tuning:
// channels, chunk and NVLSTree cap (0 keeps NCCL's default) by node count,
// GPUs per node, the slowest GPU-to-NIC bandwidth and that path's type.
// Ref: v2.30.3-1 src/transport/nvls.cc ncclNvlsTreeSm100Tuning
func TestNVLSTreeSM100Tuning(t *testing.T) {
	const k = 1 << 10
	for _, tc := range []struct {
		nodes, ppn int
		nicBw      float32
		path       PathType
		want       nvlsSM100Tuning
	}{
		{2, 8, 48, PathPIX, nvlsSM100Tuning{32, 128 * k, 64 * k}},  // DGX B200: behind a PCIe switch, below 96 GB/s
		{2, 8, 48, PathPHB, nvlsSM100Tuning{32, 128 * k, 128 * k}}, // through the CPU
		{2, 8, 100, PathPIX, nvlsSM100Tuning{32, 128 * k, 128 * k}},
		{2, 4, 48, PathPIX, nvlsSM100Tuning{32, 256 * k, 256 * k}},
		{2, 16, 100, PathPHB, nvlsSM100Tuning{32, 128 * k, 64 * k}},
		{2, 12, 48, PathPIX, nvlsSM100Tuning{32, 128 * k, 128 * k}},
		{2, 8, 40, PathPIX, nvlsSM100Tuning{0, 128 * k, 0}},
		{4, 8, 100, PathPIX, nvlsSM100Tuning{24, 256 * k, 256 * k}},
		{4, 16, 100, PathPIX, nvlsSM100Tuning{32, 128 * k, 128 * k}},
		{4, 32, 100, PathPIX, nvlsSM100Tuning{32, 128 * k, 64 * k}},
		{4, 8, 48, PathPIX, nvlsSM100Tuning{24, 128 * k, 64 * k}}, // DGX B200
		{4, 8, 48, PathPXB, nvlsSM100Tuning{24, 128 * k, 64 * k}},
		{4, 8, 48, PathP2C, nvlsSM100Tuning{24, 128 * k, 128 * k}}, // GB200: C2C then PCIe
		{4, 8, 24, PathPIX, nvlsSM100Tuning{0, 128 * k, 0}},
	} {
		if got := nvlsTreeSM100Tuning(tc.nodes, tc.ppn, tc.nicBw, tc.path); got != tc.want {
			t.Errorf("%d nodes × %d, %v GB/s over %v: %+v, want %+v", tc.nodes, tc.ppn, tc.nicBw, tc.path, got, tc.want)
		}
	}
}

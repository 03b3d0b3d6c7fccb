package hw

import (
	"time"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// Options configure Open.
type Options struct {
	Search Search
	// Devices are the local GPU ordinals; nil means every GPU (one process)
	// or LOCAL_RANK's GPU (under a launcher).
	Devices []int
	// Launch is set when a launcher started one process per GPU.
	Launch *Launch
	// PTX holds the check kernels; nil means the embedded
	// kernels/gatesim_kernels.ptx.
	PTX []byte
	// HostCheck checks results on the host instead of with the kernels.
	HostCheck bool
	// AllowNVLS leaves NVLink multicast to NCCL's own default. Never set it
	// on shared machines.
	AllowNVLS bool
	// Timeout bounds every wait for the GPUs (default 10 minutes).
	Timeout time.Duration
	// Buffers says how the run's buffers reach NCCL: plain cudaMalloc
	// (user), cudaMalloc registered with ncclCommRegister, or ncclMemAlloc'ed
	// and registered as symmetric windows (ncclCommWindowRegister, 2.27+);
	// conformance.CaptureBuffers predicts with the same allocation.
	Buffers spec.Buffers
}

// ProbeResult is what Probe found.
type ProbeResult struct {
	NCCL    string       `json:"nccl"`
	CUDART  string       `json:"cudart"`
	Version spec.Version `json:"version"`
	// Release is the modelled release the version maps to (the newest one
	// not newer); Modelled is false when the library predates them all.
	Release     spec.Version `json:"release"`
	Modelled    bool         `json:"modelled"`
	CUDADriver  int          `json:"cuda_driver"`
	CUDARuntime int          `json:"cuda_runtime"`
	// DriverNote says why the driver API (check kernels, GPU names) is not
	// available, if it is not.
	DriverNote string                   `json:"driver_note,omitempty"`
	Devices    []conformance.DeviceInfo `json:"devices"`
}

// Measure runs plan p on the session and labels the rows with where they
// came from.
func Measure(s *Session, p Plan, progress interface{ Write([]byte) (int, error) }) (*conformance.RunResult, error) {
	nccl, cudart := s.Libraries()
	res := &conformance.RunResult{
		Library: nccl, CudaRT: cudart, Version: s.Version(),
		NRanks: s.NRanks(), Procs: 1, Devices: s.Local(), Timing: "events", Check: "off",
	}
	if r, ok := spec.Nearest(res.Version); ok {
		res.Release = r
	}
	if s.opts.Launch != nil {
		res.Procs = s.opts.Launch.World
	}
	if p.Graph {
		res.Timing = "graph"
	}
	if p.Agg > 1 {
		res.Agg = p.Agg
	}
	if s.opts.Buffers != spec.BuffersUser {
		res.Buffers = s.opts.Buffers.String()
	}
	if p.Check {
		res.Check = s.CheckMode()
	}
	rows, err := run(s, p, progress)
	res.Rows = rows
	return res, err
}

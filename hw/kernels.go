package hw

import "embed"

// kernelFiles holds kernels/: the CUDA source, the PTX nvcc made from it on
// the GPU machine, and the README with the exact command. The PTX is loaded
// through the driver API (cuModuleLoadData) at run time, so the binary needs
// no CUDA toolkit.
//
//go:embed kernels
var kernelFiles embed.FS

// embeddedPTX returns the checked-in PTX, or nil if there is none (then
// results are checked on the host).
func embeddedPTX() []byte {
	b, err := kernelFiles.ReadFile("kernels/gatesim_kernels.ptx")
	if err != nil {
		return nil
	}
	return b
}

// KernelSource is the CUDA source of the check kernels.
func KernelSource() []byte {
	b, _ := kernelFiles.ReadFile("kernels/gatesim_kernels.cu")
	return b
}

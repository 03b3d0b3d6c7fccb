// Package hw runs collectives on real GPUs through real NCCL: the
// "hw.Run (real GPUs, real NCCL)" box of DESIGN.md's data flow, whose
// results sit beside sim's and whose captured logs, topology and graph
// dumps feed ncclog and conformance's cross-check against spec. What needs
// no GPU (the records of a run, nccl-tests' conventions, the check against
// spec) lives in conformance; hw runs things and reads and writes capture
// directories.
//
// NCCL, the CUDA runtime and the CUDA driver are opened with dlopen
// (libs.go says where it looks), so the binary builds and starts on a
// machine without CUDA and says clearly, with exit code 3 in the CLI, when
// there is no GPU or no NCCL. cgo.go is the only Go file that speaks C (the
// C itself is gs.c and gs.h); a build without cgo compiles stub.go instead.
//
// One process drives every local GPU through ncclCommInitAll and one NCCL
// group per operation, issued from one locked OS thread; under mpirun, srun
// or torchrun each process drives one GPU and NCCL's unique id travels
// through a shared file or a TCP store (launch.go). Each environment
// configuration runs in a fresh process (NCCL reads its variables once per
// process): matrix.go starts them and capture.go lays out what each left
// behind. Every process hw starts, and hw's own, gets NCCL_NVLS_ENABLE=0,
// TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NVSHMEM_DISABLE_NVLS=1 unless the
// user allows NVLS (safety.go).
//
// Timing follows nccl-tests (conformance/nccltests.go): the same per-rank counts, buffer
// rotation, algbw and busbw; batches of back-to-back operations between CUDA
// events (or one CUDA graph launch), the median of the batches reported with
// its spread. Results are checked on the GPU by kernels/gatesim_kernels.cu,
// whose formulas pattern.go repeats in Go.
package hw

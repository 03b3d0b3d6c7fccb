// Single-GPU measurements for gatesim's machine profile: launch cost of an
// empty kernel on a stream and from a CUDA graph, HBM copy bandwidth
// (cudaMemcpy device to device), and the copy rate of one CTA.
#include <cstdio>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("error %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)

__global__ void empty() {}

__global__ void copy(const int4* __restrict__ in, int4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int rt, drv;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  printf("device %s sm%d%d SMs %d runtime %d driver %d\n", p.name, p.major, p.minor, p.multiProcessorCount, rt, drv);
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float ms;
  const int N = 10000;
  // launch on a stream: back-to-back empty kernels, per launch
  for (int i = 0; i < 1000; i++) empty<<<1, 32, 0, s>>>();
  CK(cudaStreamSynchronize(s));
  for (int rep = 0; rep < 3; rep++) {
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < N; i++) empty<<<1, 32, 0, s>>>();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("stream_empty_kernel_us %.3f\n", ms * 1000 / N);
  }
  // launch from a CUDA graph of 100 empty kernels
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 100; i++) empty<<<1, 32, 0, s>>>();
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  CK(cudaGraphLaunch(ge, s));
  CK(cudaStreamSynchronize(s));
  for (int rep = 0; rep < 3; rep++) {
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < 100; i++) CK(cudaGraphLaunch(ge, s));
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("graph_empty_kernel_us %.3f\n", ms * 1000 / (100 * 100));
  }
  // HBM copy, device to device, 1 GiB
  size_t bytes = 1ull << 30;
  int4 *x, *y;
  CK(cudaMalloc(&x, bytes));
  CK(cudaMalloc(&y, bytes));
  CK(cudaMemset(x, 1, bytes));
  CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s));
  CK(cudaStreamSynchronize(s));
  for (int rep = 0; rep < 3; rep++) {
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < 10; i++) CK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, s));
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("hbm_memcpy_d2d_GBps %.1f (read+write %.1f)\n", 10.0 * bytes / (ms * 1e6), 20.0 * bytes / (ms * 1e6));
  }
  // one CTA copying 256 MiB with 512 and 256 threads (NCCL's Simple default and NCCL_NTHREADS=256), and all SMs
  size_t n = (256ull << 20) / sizeof(int4);
  int threads[] = {512, 256, 640};
  for (int t : threads) {
    copy<<<1, t, 0, s>>>(x, y, n);
    CK(cudaStreamSynchronize(s));
    CK(cudaEventRecord(a, s));
    copy<<<1, t, 0, s>>>(x, y, n);
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("one_cta_copy_%dthreads_GBps %.1f\n", t, (256ull << 20) / (ms * 1e6));
  }
  copy<<<p.multiProcessorCount * 4, 512, 0, s>>>(x, y, n);
  CK(cudaStreamSynchronize(s));
  CK(cudaEventRecord(a, s));
  copy<<<p.multiProcessorCount * 4, 512, 0, s>>>(x, y, n);
  CK(cudaEventRecord(b, s));
  CK(cudaEventSynchronize(b));
  CK(cudaEventElapsedTime(&ms, a, b));
  printf("all_sm_copy_GBps %.1f\n", (256ull << 20) / (ms * 1e6));
  return 0;
}

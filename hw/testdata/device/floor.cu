// Fixed cost of one launch as a function of its grid, on one GPU: does the
// per-operation floor NCCL shows grow with the channels (one CTA each) it
// launches, and does it differ between processes or the CPU the launching
// thread runs on? Each line: mode, CTAs, threads per CTA, microseconds per
// launch (median of 5 repetitions of N back-to-back launches).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("error %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

// Every thread of every CTA touches one word, so each CTA really runs (an
// empty kernel may retire CTAs without scheduling work).
__global__ void touch(int* flags) {
  if (threadIdx.x == 0) atomicAdd(&flags[blockIdx.x], 1);
  __syncthreads();
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const char* tag = argc > 1 ? argv[1] : "run";
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  int* flags;
  CK(cudaMalloc(&flags, 1024 * sizeof(int)));
  const int grids[] = {1, 2, 4, 8, 16, 24, 32, 64};
  const int threads[] = {256, 512, 640};
  const int N = 4000;
  float ms;
  for (int t : threads) {
    for (int g : grids) {
      for (int i = 0; i < 200; i++) touch<<<g, t, 0, s>>>(flags);
      CK(cudaStreamSynchronize(s));
      std::vector<float> us;
      for (int rep = 0; rep < 5; rep++) {
        CK(cudaEventRecord(a, s));
        for (int i = 0; i < N; i++) touch<<<g, t, 0, s>>>(flags);
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        us.push_back(ms * 1000 / N);
      }
      printf("%s stream ctas %d threads %d us %.3f\n", tag, g, t, median(us));
      // the same launches from a CUDA graph of 100 kernels
      cudaGraph_t gr;
      cudaGraphExec_t ge;
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      for (int i = 0; i < 100; i++) touch<<<g, t, 0, s>>>(flags);
      CK(cudaStreamEndCapture(s, &gr));
      CK(cudaGraphInstantiate(&ge, gr, 0));
      CK(cudaGraphLaunch(ge, s));
      CK(cudaStreamSynchronize(s));
      us.clear();
      for (int rep = 0; rep < 5; rep++) {
        CK(cudaEventRecord(a, s));
        for (int i = 0; i < 40; i++) CK(cudaGraphLaunch(ge, s));
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&ms, a, b));
        us.push_back(ms * 1000 / (40 * 100));
      }
      printf("%s graph ctas %d threads %d us %.3f\n", tag, g, t, median(us));
      CK(cudaGraphExecDestroy(ge));
      CK(cudaGraphDestroy(gr));
    }
  }
  // a launch followed by a host wait each time: the round trip a host-side
  // synchronisation would add to every operation
  std::vector<float> us;
  for (int rep = 0; rep < 5; rep++) {
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < 500; i++) {
      touch<<<24, 512, 0, s>>>(flags);
      CK(cudaStreamSynchronize(s));
    }
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    us.push_back(ms * 1000 / 500);
  }
  printf("%s stream+sync ctas 24 threads 512 us %.3f\n", tag, median(us));
  return 0;
}

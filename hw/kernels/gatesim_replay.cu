// gatesim schedule replay kernel: the local half of one replay round.
//
// A round of a replayed algos schedule is, per GPU, a list of tasks (one per
// schedule step that runs in the round) followed by one NCCL group of
// ncclSend/ncclRecv (hw.Session.Exchange). A task folds its sources in
// order, acc = src[0] op src[1] op ..., exactly as the sim data plane does
// (the rank's own data first, then each received message), and stores acc
// to dst0 and dst1 (the step's destination in the user buffer and its
// outgoing message; 0 = none). Floating-point adds and multiplies use the
// round-to-nearest intrinsics so no contraction changes a bit.
//
// Every parameter is one 64-bit word (hw.Session.Launch passes words).

struct gsTask {
  unsigned long long dst0, dst1;
  unsigned long long src[4];
  unsigned long long nsrc, n;
};

enum { OP_SUM = 0, OP_PROD = 1, OP_MAX = 2, OP_MIN = 3 };

template <typename T> __device__ T gsOp(T a, T b, int op) {
  switch (op) {
  case OP_SUM: return a + b;
  case OP_PROD: return a * b;
  case OP_MAX: return a > b ? a : b;
  default: return a < b ? a : b;
  }
}
template <> __device__ float gsOp<float>(float a, float b, int op) {
  switch (op) {
  case OP_SUM: return __fadd_rn(a, b);
  case OP_PROD: return __fmul_rn(a, b);
  case OP_MAX: return fmaxf(a, b);
  default: return fminf(a, b);
  }
}
template <> __device__ double gsOp<double>(double a, double b, int op) {
  switch (op) {
  case OP_SUM: return __dadd_rn(a, b);
  case OP_PROD: return __dmul_rn(a, b);
  case OP_MAX: return fmax(a, b);
  default: return fmin(a, b);
  }
}

template <typename T> __device__ void gsRun(const gsTask* tasks, unsigned long long ntasks, int op) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned long long t = 0; t < ntasks; t++) {
    const gsTask task = tasks[t];
    const T* s0 = (const T*)task.src[0];
    T* d0 = (T*)task.dst0;
    T* d1 = (T*)task.dst1;
    for (unsigned long long i = tid; i < task.n; i += stride) {
      T acc = s0[i];
      for (unsigned long long k = 1; k < task.nsrc; k++) acc = gsOp<T>(acc, ((const T*)task.src[k])[i], op);
      if (d0) d0[i] = acc;
      if (d1) d1[i] = acc;
    }
  }
}

// dtypeOp = ncclDataType_t * 16 + op. Types: int8 0, uint8 1, int32 2,
// uint32 3, int64 4, uint64 5, float32 7, float64 8 (ncclDataType_t).
extern "C" __global__ void gs_replay(unsigned long long tasks, unsigned long long ntasks, unsigned long long dtypeOp) {
  const gsTask* t = (const gsTask*)tasks;
  int op = (int)(dtypeOp & 15);
  switch (dtypeOp >> 4) {
  case 0: gsRun<signed char>(t, ntasks, op); break;
  case 1: gsRun<unsigned char>(t, ntasks, op); break;
  case 2: gsRun<int>(t, ntasks, op); break;
  case 3: gsRun<unsigned int>(t, ntasks, op); break;
  case 4: gsRun<long long>(t, ntasks, op); break;
  case 5: gsRun<unsigned long long>(t, ntasks, op); break;
  case 7: gsRun<float>(t, ntasks, op); break;
  case 8: gsRun<double>(t, ntasks, op); break;
  }
}

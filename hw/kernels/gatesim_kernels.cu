// gatesim hw kernels: the data pattern that `gatesim hw run` writes into
// every send buffer and the check that counts wrong elements in every
// receive buffer, on the device, so that checking a 4 GiB result costs
// milliseconds instead of a copy to the host.
//
// The same formulas are written in Go in hw/pattern.go (used by the host
// fallback and by the tests); a change here must be made there too, and
// TestPatternMatchesKernelSource pins the constants.
//
// No CUDA headers are included, so the file compiles to PTX with any nvcc
// (and with clang --cuda-device-only -nocudainc). The exact command that
// produced the checked-in PTX is in hw/kernels/README.md.

typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;

// ncclDataType_t values (nccl.h): the kernels take the NCCL enum directly.
#define GS_INT8 0
#define GS_UINT8 1
#define GS_INT32 2
#define GS_UINT32 3
#define GS_INT64 4
#define GS_UINT64 5
#define GS_FLOAT16 6
#define GS_FLOAT32 7
#define GS_FLOAT64 8
#define GS_BFLOAT16 9

// ncclRedOp_t values.
#define GS_SUM 0
#define GS_PROD 1
#define GS_MAX 2
#define GS_MIN 3
#define GS_AVG 4

// What an output element is expected to hold (see hw/pattern.go Expect).
#define GS_MODE_REDUCE 0 // reduction over all ranks of element base+j
#define GS_MODE_SINGLE 1 // element base+j of rank src
#define GS_MODE_BLOCK 2  // element base+j%block of rank j/block

__device__ __forceinline__ u32 gs_hash(u32 seed, u32 rank, u64 idx) {
  u32 x = (u32)idx ^ ((u32)(idx >> 32) * 0x9E3779B1u);
  x ^= seed * 0x85EBCA6Bu + rank * 0xC2B2AE35u;
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

__device__ __forceinline__ int gs_unsigned(int dt) {
  return dt == GS_UINT8 || dt == GS_UINT32 || dt == GS_UINT64;
}

// gs_value is the value rank `rank` holds at element idx: a small integer, so
// that every sum, product, max and min of a few ranks is exact in every type.
// For products the values are +-1 and +-2 (powers of two stay exact).
__device__ __forceinline__ i64 gs_value(u32 seed, int rank, u64 idx, int prod, int uns) {
  u32 h = gs_hash(seed, (u32)rank, idx);
  if (prod) {
    i64 v = (h & 1u) ? 2 : 1;
    if (!uns && (h & 2u)) v = -v;
    return v;
  }
  if (uns) return (i64)(h % 17u);
  return (i64)(h % 17u) - 8;
}

__device__ __forceinline__ unsigned short gs_f32_to_f16(float f) {
  unsigned short r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
__device__ __forceinline__ float gs_f16_to_f32(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ unsigned short gs_f32_to_bf16(float f) {
  unsigned short r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return r;
}
__device__ __forceinline__ float gs_bf16_to_f32(unsigned short h) {
  union { u32 u; float f; } x;
  x.u = ((u32)h) << 16;
  return x.f;
}

// gs_store writes integer v as type dt (integers wrap as two's complement).
__device__ __forceinline__ void gs_store(void* buf, u64 j, int dt, i64 v) {
  switch (dt) {
  case GS_INT8: case GS_UINT8: ((unsigned char*)buf)[j] = (unsigned char)v; break;
  case GS_INT32: case GS_UINT32: ((u32*)buf)[j] = (u32)v; break;
  case GS_INT64: case GS_UINT64: ((u64*)buf)[j] = (u64)v; break;
  case GS_FLOAT16: ((unsigned short*)buf)[j] = gs_f32_to_f16((float)v); break;
  case GS_FLOAT32: ((float*)buf)[j] = (float)v; break;
  case GS_FLOAT64: ((double*)buf)[j] = (double)v; break;
  case GS_BFLOAT16: ((unsigned short*)buf)[j] = gs_f32_to_bf16((float)v); break;
  }
}

// gs_wrap reduces an exact integer to what type dt holds after wrapping.
__device__ __forceinline__ i64 gs_wrap(i64 v, int dt) {
  switch (dt) {
  case GS_INT8: return (i64)(signed char)v;
  case GS_UINT8: return (i64)(unsigned char)v;
  case GS_INT32: return (i64)(int)v;
  case GS_UINT32: return (i64)(u32)v;
  default: return v;
  }
}

extern "C" __global__ void gs_fill(void* buf, u64 n, int dt, int rank, u64 base, u32 seed, int prod) {
  int uns = gs_unsigned(dt);
  for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x) {
    gs_store(buf, j, dt, gs_value(seed, rank, base + j, prod, uns));
  }
}

extern "C" __global__ void gs_check(const void* buf, u64 n, int dt, int mode, int redop, int nranks, int src,
                                    u64 base, u64 block, u32 seed, u64* wrong) {
  int uns = gs_unsigned(dt);
  int prod = redop == GS_PROD;
  u64 bad = 0;
  for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x) {
    i64 want = 0;
    double wantf = 0; // for floating-point Avg only
    int approx = 0;
    if (mode == GS_MODE_SINGLE) {
      want = gs_value(seed, src, base + j, 0, uns);
    } else if (mode == GS_MODE_BLOCK) {
      want = gs_value(seed, (int)(j / block), base + j % block, 0, uns);
    } else {
      i64 acc = gs_value(seed, 0, base + j, prod, uns);
      for (int r = 1; r < nranks; r++) {
        i64 v = gs_value(seed, r, base + j, prod, uns);
        switch (redop) {
        case GS_PROD: acc = (i64)((u64)acc * (u64)v); break;
        case GS_MAX: acc = v > acc ? v : acc; break;
        case GS_MIN: acc = v < acc ? v : acc; break;
        default: acc += v; break;
        }
      }
      if (redop == GS_AVG) {
        if (dt == GS_FLOAT16 || dt == GS_FLOAT32 || dt == GS_FLOAT64 || dt == GS_BFLOAT16) {
          approx = 1;
          wantf = (double)acc / nranks;
        } else {
          acc = gs_wrap(acc, dt) / nranks; // SumPostDiv: truncation toward zero
        }
      }
      want = acc;
    }
    int ok;
    switch (dt) {
    case GS_INT8: case GS_UINT8: ok = ((const unsigned char*)buf)[j] == (unsigned char)want; break;
    case GS_INT32: case GS_UINT32: ok = ((const u32*)buf)[j] == (u32)want; break;
    case GS_INT64: case GS_UINT64: ok = ((const u64*)buf)[j] == (u64)want; break;
    default: {
      double got, eps;
      if (dt == GS_FLOAT16) { got = gs_f16_to_f32(((const unsigned short*)buf)[j]); eps = 1.0 / 1024; }
      else if (dt == GS_BFLOAT16) { got = gs_bf16_to_f32(((const unsigned short*)buf)[j]); eps = 1.0 / 128; }
      else if (dt == GS_FLOAT32) { got = ((const float*)buf)[j]; eps = 1.0 / 8388608; }
      else { got = ((const double*)buf)[j]; eps = 1.0 / 4503599627370496.0; }
      if (approx) {
        double d = got - wantf;
        if (d < 0) d = -d;
        double w = wantf < 0 ? -wantf : wantf;
        ok = d <= eps * (8.0 * nranks + w); // NaN fails
      } else {
        ok = got == (double)want;
      }
    }
    }
    if (!ok) bad++;
  }
  if (bad) atomicAdd(wrong, bad);
}

//go:build cgo && linux

// gs.c: NCCL, the CUDA runtime and the CUDA driver reached through dlopen
// and dlsym, and the timed loop that issues collectives on every local
// rank. Compiled by cgo with cgo.go; the prototypes are declared from the
// public API (nccl.h of v2.28.9-1, the CUDA runtime and driver API).

#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gs.h"

typedef struct {
  void* h;
  int (*GetVersion)(int*);
  int (*GetUniqueId)(gsUniqueId*);
  int (*CommInitRank)(gsHandle*, int, gsUniqueId, int);
  int (*CommInitAll)(gsHandle*, int, const int*);
  int (*CommDestroy)(gsHandle);
  int (*CommAbort)(gsHandle);
  int (*CommGetAsyncError)(gsHandle, int*);
  const char* (*GetErrorString)(int);
  const char* (*GetLastError)(gsHandle);
  int (*AllReduce)(const void*, void*, size_t, int, int, gsHandle, gsHandle);
  int (*Broadcast)(const void*, void*, size_t, int, int, gsHandle, gsHandle);
  int (*Reduce)(const void*, void*, size_t, int, int, int, gsHandle, gsHandle);
  int (*AllGather)(const void*, void*, size_t, int, gsHandle, gsHandle);
  int (*ReduceScatter)(const void*, void*, size_t, int, int, gsHandle, gsHandle);
  int (*Send)(const void*, size_t, int, int, gsHandle, gsHandle);
  int (*Recv)(void*, size_t, int, int, gsHandle, gsHandle);
  int (*GroupStart)(void);
  int (*GroupEnd)(void);
  // Optional: buffer registration (2.19+) and symmetric windows (2.27+).
  int (*CommRegister)(gsHandle, void*, size_t, void**);
  int (*CommDeregister)(gsHandle, void*);
  int (*MemAlloc)(void**, size_t);
  int (*MemFree)(void*);
  int (*CommWindowRegister)(gsHandle, void*, size_t, void**, int);
  int (*CommWindowDeregister)(gsHandle, void*);
} gsNccl;

typedef struct {
  void* h;
  int (*GetDeviceCount)(int*);
  int (*SetDevice)(int);
  int (*Malloc)(void**, size_t);
  int (*Free)(void*);
  int (*Memcpy)(void*, const void*, size_t, int);
  int (*MemsetAsync)(void*, int, size_t, gsHandle);
  int (*StreamCreateWithFlags)(gsHandle*, unsigned);
  int (*StreamDestroy)(gsHandle);
  int (*StreamQuery)(gsHandle);
  int (*StreamSynchronize)(gsHandle);
  int (*EventCreate)(gsHandle*);
  int (*EventDestroy)(gsHandle);
  int (*EventRecord)(gsHandle, gsHandle);
  int (*EventElapsedTime)(float*, gsHandle, gsHandle);
  const char* (*GetErrorName)(int);
  int (*DeviceGetPCIBusId)(char*, int, int);
  int (*DriverGetVersion)(int*);
  int (*RuntimeGetVersion)(int*);
  int (*GetLastError)(void);
  int (*StreamBeginCapture)(gsHandle, int);
  int (*StreamEndCapture)(gsHandle, gsHandle*);
  int (*GraphInstantiateWithFlags)(gsHandle*, gsHandle, unsigned long long);
  int (*GraphLaunch)(gsHandle, gsHandle);
  int (*GraphExecDestroy)(gsHandle);
  int (*GraphDestroy)(gsHandle);
} gsCudart;

typedef struct {
  void* h;
  int (*Init)(unsigned);
  int (*DeviceGet)(int*, int);
  int (*DeviceGetName)(char*, int, int);
  int (*ModuleLoadData)(gsHandle*, const void*);
  int (*ModuleGetFunction)(gsHandle*, gsHandle, const char*);
  int (*LaunchKernel)(gsHandle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, gsHandle, void**, void**);
  int (*GetErrorName)(int, const char**);
} gsDriver;

static gsNccl N;
static gsCudart R;
static gsDriver D;

// gs_sym resolves one symbol; a missing required symbol names itself.
static void* gs_sym(void* h, const char* name, int required, const char** missing) {
  void* p = dlsym(h, name);
  if (!p && required && !*missing) *missing = name;
  return p;
}

#define SYM(S, f, name) *(void**)(&S.f) = gs_sym(S.h, name, 1, &missing)
#define OPT(S, f, name) *(void**)(&S.f) = gs_sym(S.h, name, 0, &missing)

// gs_open_nccl opens path; on failure *err holds dlerror() or the first
// missing symbol.
int gs_open_nccl(const char* path, const char** err, char* where, int wlen) {
  const char* missing = NULL;
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) { *err = dlerror(); return -1; }
  N.h = h;
  SYM(N, GetVersion, "ncclGetVersion");
  SYM(N, GetUniqueId, "ncclGetUniqueId");
  SYM(N, CommInitRank, "ncclCommInitRank");
  SYM(N, CommInitAll, "ncclCommInitAll");
  SYM(N, CommDestroy, "ncclCommDestroy");
  SYM(N, CommAbort, "ncclCommAbort");
  SYM(N, CommGetAsyncError, "ncclCommGetAsyncError");
  SYM(N, GetErrorString, "ncclGetErrorString");
  OPT(N, GetLastError, "ncclGetLastError");
  SYM(N, AllReduce, "ncclAllReduce");
  SYM(N, Broadcast, "ncclBroadcast");
  SYM(N, Reduce, "ncclReduce");
  SYM(N, AllGather, "ncclAllGather");
  SYM(N, ReduceScatter, "ncclReduceScatter");
  SYM(N, Send, "ncclSend");
  SYM(N, Recv, "ncclRecv");
  SYM(N, GroupStart, "ncclGroupStart");
  SYM(N, GroupEnd, "ncclGroupEnd");
  OPT(N, CommRegister, "ncclCommRegister");
  OPT(N, CommDeregister, "ncclCommDeregister");
  OPT(N, MemAlloc, "ncclMemAlloc");
  OPT(N, MemFree, "ncclMemFree");
  OPT(N, CommWindowRegister, "ncclCommWindowRegister");
  OPT(N, CommWindowDeregister, "ncclCommWindowDeregister");
  if (missing) { *err = missing; dlclose(h); N.h = NULL; return -2; }
  Dl_info info;
  if (where && dladdr(*(void**)(&N.GetVersion), &info) && info.dli_fname) {
    strncpy(where, info.dli_fname, wlen - 1);
    where[wlen - 1] = 0;
  }
  return 0;
}

int gs_open_cudart(const char* path, const char** err, char* where, int wlen) {
  const char* missing = NULL;
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) { *err = dlerror(); return -1; }
  R.h = h;
  SYM(R, GetDeviceCount, "cudaGetDeviceCount");
  SYM(R, SetDevice, "cudaSetDevice");
  SYM(R, Malloc, "cudaMalloc");
  SYM(R, Free, "cudaFree");
  SYM(R, Memcpy, "cudaMemcpy");
  SYM(R, MemsetAsync, "cudaMemsetAsync");
  SYM(R, StreamCreateWithFlags, "cudaStreamCreateWithFlags");
  SYM(R, StreamDestroy, "cudaStreamDestroy");
  SYM(R, StreamQuery, "cudaStreamQuery");
  SYM(R, StreamSynchronize, "cudaStreamSynchronize");
  SYM(R, EventCreate, "cudaEventCreate");
  SYM(R, EventDestroy, "cudaEventDestroy");
  SYM(R, EventRecord, "cudaEventRecord");
  SYM(R, EventElapsedTime, "cudaEventElapsedTime");
  SYM(R, GetErrorName, "cudaGetErrorName");
  SYM(R, DeviceGetPCIBusId, "cudaDeviceGetPCIBusId");
  SYM(R, DriverGetVersion, "cudaDriverGetVersion");
  SYM(R, RuntimeGetVersion, "cudaRuntimeGetVersion");
  SYM(R, GetLastError, "cudaGetLastError");
  OPT(R, StreamBeginCapture, "cudaStreamBeginCapture");
  OPT(R, StreamEndCapture, "cudaStreamEndCapture");
  OPT(R, GraphInstantiateWithFlags, "cudaGraphInstantiateWithFlags");
  OPT(R, GraphLaunch, "cudaGraphLaunch");
  OPT(R, GraphExecDestroy, "cudaGraphExecDestroy");
  OPT(R, GraphDestroy, "cudaGraphDestroy");
  if (missing) { *err = missing; dlclose(h); R.h = NULL; return -2; }
  Dl_info info;
  if (where && dladdr(*(void**)(&R.SetDevice), &info) && info.dli_fname) {
    strncpy(where, info.dli_fname, wlen - 1);
    where[wlen - 1] = 0;
  }
  return 0;
}

int gs_open_driver(const char** err) {
  const char* missing = NULL;
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) { *err = dlerror(); return -1; }
  D.h = h;
  SYM(D, Init, "cuInit");
  SYM(D, DeviceGet, "cuDeviceGet");
  SYM(D, DeviceGetName, "cuDeviceGetName");
  SYM(D, ModuleLoadData, "cuModuleLoadData");
  SYM(D, ModuleGetFunction, "cuModuleGetFunction");
  SYM(D, LaunchKernel, "cuLaunchKernel");
  SYM(D, GetErrorName, "cuGetErrorName");
  if (missing) { *err = missing; dlclose(h); D.h = NULL; return -2; }
  return D.Init(0);
}

int gs_has_graphs(void) {
  return R.StreamBeginCapture && R.StreamEndCapture && R.GraphInstantiateWithFlags && R.GraphLaunch && R.GraphExecDestroy && R.GraphDestroy;
}

// Thin wrappers: cgo cannot call through function pointers.
int gs_nccl_version(int* v) { return N.GetVersion(v); }
int gs_unique_id(void* id) { return N.GetUniqueId((gsUniqueId*)id); }
int gs_comm_init_all(gsHandle* comms, int n, const int* devs) { return N.CommInitAll(comms, n, devs); }
int gs_comm_init_rank(gsHandle* comm, int n, const void* id, int rank) {
  gsUniqueId u;
  memcpy(&u, id, sizeof(u));
  return N.CommInitRank(comm, n, u, rank);
}
int gs_comm_destroy(gsHandle c) { return N.CommDestroy(c); }
int gs_comm_abort(gsHandle c) { return N.CommAbort(c); }
int gs_comm_async_error(gsHandle c) { int e = 0; int r = N.CommGetAsyncError(c, &e); return r ? r : e; }
static const char* gs_nccl_error_string(int r) { return N.GetErrorString(r); }
const char* gs_nccl_last_error(gsHandle c) { return N.GetLastError ? N.GetLastError(c) : ""; }
int gs_group_start(void) { return N.GroupStart(); }
int gs_group_end(void) { return N.GroupEnd(); }
static int gs_allreduce_on(const void* s, void* r, size_t n, int dt, int op, gsHandle c, gsHandle st) { return N.AllReduce(s, r, n, dt, op, c, st); }

int gs_device_count(int* n) { return R.GetDeviceCount(n); }
int gs_set_device(int d) { return R.SetDevice(d); }
int gs_malloc(void** p, size_t n) { return R.Malloc(p, n); }
int gs_free(void* p) { return R.Free(p); }

// Buffer registration and windows; -1 when the library lacks the symbol.
int gs_has_register(void) { return N.CommRegister != NULL && N.CommDeregister != NULL; }
int gs_has_windows(void) { return N.MemAlloc != NULL && N.MemFree != NULL && N.CommWindowRegister != NULL && N.CommWindowDeregister != NULL; }
int gs_comm_register(gsHandle c, void* p, size_t n, void** h) { return N.CommRegister(c, p, n, h); }
int gs_comm_deregister(gsHandle c, void* h) { return N.CommDeregister(c, h); }
int gs_nccl_mem_alloc(void** p, size_t n) { return N.MemAlloc(p, n); }
int gs_nccl_mem_free(void* p) { return N.MemFree(p); }
// NCCL_WIN_COLL_SYMMETRIC is 0x01 (nccl.h, 2.27+).
int gs_window_register(gsHandle c, void* p, size_t n, void** w) { return N.CommWindowRegister(c, p, n, w, 0x01); }
int gs_window_deregister(gsHandle c, void* w) { return N.CommWindowDeregister(c, w); }
int gs_memcpy(void* dst, const void* src, size_t n, int kind) { return R.Memcpy(dst, src, n, kind); }
int gs_memset_async(void* p, int v, size_t n, gsHandle s) { return R.MemsetAsync(p, v, n, s); }
int gs_stream_create(gsHandle* s) { return R.StreamCreateWithFlags(s, 1); } // cudaStreamNonBlocking
int gs_stream_destroy(gsHandle s) { return R.StreamDestroy(s); }
int gs_stream_sync(gsHandle s) { return R.StreamSynchronize(s); }
int gs_event_create(gsHandle* e) { return R.EventCreate(e); }
int gs_event_destroy(gsHandle e) { return R.EventDestroy(e); }
const char* gs_cuda_error_name(int e) { return R.GetErrorName(e); }
int gs_pci_bus_id(char* buf, int len, int dev) { return R.DeviceGetPCIBusId(buf, len, dev); }
int gs_driver_version(int* v) { return R.DriverGetVersion(v); }
int gs_runtime_version(int* v) { return R.RuntimeGetVersion(v); }

int gs_cu_device_name(char* buf, int len, int ordinal) {
  int dev = 0;
  int r = D.DeviceGet(&dev, ordinal);
  return r ? r : D.DeviceGetName(buf, len, dev);
}
int gs_module_load(gsHandle* m, const void* image) { return D.ModuleLoadData(m, image); }
int gs_module_function(gsHandle* f, gsHandle m, const char* name) { return D.ModuleGetFunction(f, m, name); }
const char* gs_cu_error_name(int e) {
  const char* s = "unknown";
  if (D.GetErrorName) D.GetErrorName(e, &s);
  return s;
}

// --- kernels -----------------------------------------------------------

static unsigned gs_grid(uint64_t n) {
  uint64_t g = (n + 255) / 256;
  if (g > 132 * 16) g = 132 * 16; // enough blocks to fill any current GPU
  if (g < 1) g = 1;
  return (unsigned)g;
}

int gs_launch_fill(gsHandle fn, gsHandle stream, void* buf, uint64_t n, int dt, int rank, uint64_t base, uint32_t seed, int prod) {
  void* args[] = {&buf, &n, &dt, &rank, &base, &seed, &prod};
  return D.LaunchKernel(fn, gs_grid(n), 1, 1, 256, 1, 1, 0, stream, args, NULL);
}

int gs_launch_check(gsHandle fn, gsHandle stream, const void* buf, uint64_t n, int dt, int mode, int redop,
                           int nranks, int src, uint64_t base, uint64_t block, uint32_t seed, void* wrong) {
  void* args[] = {&buf, &n, &dt, &mode, &redop, &nranks, &src, &base, &block, &seed, &wrong};
  return D.LaunchKernel(fn, gs_grid(n), 1, 1, 256, 1, 1, 0, stream, args, NULL);
}

// --- the timed loop ----------------------------------------------------


#define NCCLTRY(expr, name) do { int _r = (expr); if (_r) { f->kind = 1; f->code = _r; f->call = name; return _r; } } while (0)
#define CUDATRY(expr, name) do { int _r = (expr); if (_r) { f->kind = 2; f->code = _r; f->call = name; return _r; } } while (0)

// Func indices are ncclFunc_t's (Broadcast 0, Reduce 1, AllGather 2,
// ReduceScatter 3, AllReduce 4) plus gatesim's SendRecv 5 and AllToAll 6.
static int gs_issue(gsLocal* L, int l, int func, char* s, char* r, size_t count, int dt, size_t esz, int op, int root, gsFail* f) {
  gsHandle c = L->comm[l], st = L->stream[l];
  switch (func) {
  case 0: NCCLTRY(N.Broadcast(s, r, count, dt, root, c, st), "ncclBroadcast"); break;
  case 1: NCCLTRY(N.Reduce(s, r, count, dt, op, root, c, st), "ncclReduce"); break;
  case 2: NCCLTRY(N.AllGather(s, r, count, dt, c, st), "ncclAllGather"); break;
  case 3: NCCLTRY(N.ReduceScatter(s, r, count, dt, op, c, st), "ncclReduceScatter"); break;
  case 4: NCCLTRY(N.AllReduce(s, r, count, dt, op, c, st), "ncclAllReduce"); break;
  case 5: {
    int me = L->rank[l], n = L->nranks;
    NCCLTRY(N.Send(s, count, dt, (me + 1) % n, c, st), "ncclSend");
    NCCLTRY(N.Recv(r, count, dt, (me - 1 + n) % n, c, st), "ncclRecv");
    break;
  }
  case 6:
    for (int p = 0; p < L->nranks; p++) {
      NCCLTRY(N.Send(s + (size_t)p * count * esz, count, dt, p, c, st), "ncclSend");
      NCCLTRY(N.Recv(r + (size_t)p * count * esz, count, dt, p, c, st), "ncclRecv");
    }
    break;
  default:
    f->kind = 1; f->code = 4; f->call = "unknown collective"; return 4;
  }
  return 0;
}

static int gs_issue_iters(gsLocal* L, int func, size_t count, int dt, size_t esz, int op, int root,
                          size_t stride, size_t steps, int iters, int agg, gsFail* f) {
  if (agg < 1) agg = 1;
  int grouped = L->n > 1 || func >= 5 || agg > 1;
  if (steps == 0) steps = 1;
  for (int i = 0; i < iters; i++) {
    if (grouped) NCCLTRY(N.GroupStart(), "ncclGroupStart");
    for (int a = 0; a < agg; a++) {
      size_t off = stride * (((size_t)i * agg + a) % steps);
      for (int l = 0; l < L->n; l++) {
        int r = gs_issue(L, l, func, L->send[l] + off, L->recv[l] + off, count, dt, esz, op, root, f);
        if (r) {
          if (grouped) N.GroupEnd();
          return r;
        }
      }
    }
    if (grouped) NCCLTRY(N.GroupEnd(), "ncclGroupEnd");
  }
  return 0;
}

static double gs_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// gs_wait waits for every local stream, polling so that an asynchronous
// NCCL error or a hang ends the wait instead of the process.
static int gs_wait(gsLocal* L, double timeout, gsFail* f) {
  double t0 = gs_now();
  for (;;) {
    int busy = 0;
    for (int l = 0; l < L->n; l++) {
      int q = R.StreamQuery(L->stream[l]);
      if (q == 600) { busy = 1; continue; } // cudaErrorNotReady
      if (q) { f->kind = 2; f->code = q; f->call = "cudaStreamQuery"; return q; }
    }
    if (!busy) return 0;
    for (int l = 0; l < L->n; l++) {
      int e = 0;
      N.CommGetAsyncError(L->comm[l], &e);
      if (e && e != 7) { f->kind = 1; f->code = e; f->call = "ncclCommGetAsyncError"; return e; } // 7: ncclInProgress
    }
    if (timeout > 0 && gs_now() - t0 > timeout) { f->kind = 3; f->code = 0; f->call = "wait"; return -1; }
    sched_yield();
  }
}

// gs_run issues iters operations and, when timed, records events around
// them on every local stream; ms[l] receives the elapsed milliseconds.
int gs_run(gsLocal* L, int func, size_t count, int dt, size_t esz, int op, int root,
                  size_t stride, size_t steps, int iters, int agg, int timed, int graph, double timeout, float* ms, gsFail* f) {
  f->kind = 0; f->code = 0; f->call = "";
  gsHandle g[GS_MAX_LOCAL], ge[GS_MAX_LOCAL];
  if (graph) {
    for (int l = 0; l < L->n; l++) {
      CUDATRY(R.SetDevice(L->dev[l]), "cudaSetDevice");
      CUDATRY(R.StreamBeginCapture(L->stream[l], 1), "cudaStreamBeginCapture"); // cudaStreamCaptureModeThreadLocal
    }
    int r = gs_issue_iters(L, func, count, dt, esz, op, root, stride, steps, iters, agg, f);
    for (int l = 0; l < L->n; l++) {
      g[l] = NULL;
      int e = R.StreamEndCapture(L->stream[l], &g[l]);
      if (e && !r) { f->kind = 2; f->code = e; f->call = "cudaStreamEndCapture"; r = e; }
    }
    if (r) return r;
    for (int l = 0; l < L->n; l++) {
      CUDATRY(R.SetDevice(L->dev[l]), "cudaSetDevice");
      CUDATRY(R.GraphInstantiateWithFlags(&ge[l], g[l], 0), "cudaGraphInstantiateWithFlags");
    }
    // The first launch of an instantiated graph uploads it and lets NCCL
    // finish its setup for captured work; nccl-tests amortises that over
    // many launches of one graph. Launch once untimed so the timed launch
    // measures the operations only.
    int w = 0;
    for (int l = 0; l < L->n && !w; l++) {
      w = R.GraphLaunch(ge[l], L->stream[l]);
      if (w) { f->kind = 2; f->code = w; f->call = "cudaGraphLaunch"; }
    }
    if (!w) w = gs_wait(L, timeout, f);
    if (w) {
      for (int l = 0; l < L->n; l++) { R.GraphExecDestroy(ge[l]); R.GraphDestroy(g[l]); }
      return w;
    }
  }
  if (timed) {
    for (int l = 0; l < L->n; l++) {
      CUDATRY(R.SetDevice(L->dev[l]), "cudaSetDevice");
      CUDATRY(R.EventRecord(L->ev0[l], L->stream[l]), "cudaEventRecord");
    }
  }
  if (graph) {
    for (int l = 0; l < L->n; l++) CUDATRY(R.GraphLaunch(ge[l], L->stream[l]), "cudaGraphLaunch");
  } else {
    int r = gs_issue_iters(L, func, count, dt, esz, op, root, stride, steps, iters, agg, f);
    if (r) return r;
  }
  if (timed) {
    for (int l = 0; l < L->n; l++) {
      CUDATRY(R.SetDevice(L->dev[l]), "cudaSetDevice");
      CUDATRY(R.EventRecord(L->ev1[l], L->stream[l]), "cudaEventRecord");
    }
  }
  int r = gs_wait(L, timeout, f);
  if (graph) {
    for (int l = 0; l < L->n; l++) {
      R.GraphExecDestroy(ge[l]);
      R.GraphDestroy(g[l]);
    }
  }
  if (r) return r;
  if (timed) {
    for (int l = 0; l < L->n; l++) CUDATRY(R.EventElapsedTime(&ms[l], L->ev0[l], L->ev1[l]), "cudaEventElapsedTime");
  }
  return 0;
}

// gs_allreduce_small combines one 8-byte value per process (launcher mode):
// dt/op are ncclInt64+ncclSum or ncclFloat64+ncclMax.
int gs_allreduce_small(gsLocal* L, void* dev, int dt, int op, void* host, gsFail* f) {
  f->kind = 0;
  CUDATRY(R.Memcpy(dev, host, 8, 1), "cudaMemcpy");
  NCCLTRY(N.AllReduce(dev, dev, 1, dt, op, L->comm[0], L->stream[0]), "ncclAllReduce");
  int r = gs_wait(L, 600, f);
  if (r) return r;
  CUDATRY(R.Memcpy(host, dev, 8, 2), "cudaMemcpy");
  return 0;
}

// --- schedule replay primitives (replay.go) ------------------------------

// gs_exchange issues n sends and receives as one NCCL group over the local
// ranks, with events around the group on every local stream, and waits.
// Op i is on local rank loc[i], with peer[i], send[i] (1) or receive (0),
// from/into buffer buf[i] (0 send, 1 receive) at byte offset off[i], cnt[i]
// elements of datatype dt[i].
int gs_exchange(gsLocal* L, int n, const int* loc, const int* peer, const int* send, const int* buf,
                       const uint64_t* off, const uint64_t* cnt, const int* dt, double timeout, float* ms, gsFail* f) {
  f->kind = 0; f->code = 0; f->call = "";
  for (int l = 0; l < L->n; l++) {
    CUDATRY(R.SetDevice(L->dev[l]), "cudaSetDevice");
    CUDATRY(R.EventRecord(L->ev0[l], L->stream[l]), "cudaEventRecord");
  }
  NCCLTRY(N.GroupStart(), "ncclGroupStart");
  for (int i = 0; i < n; i++) {
    int l = loc[i];
    char* base = (buf[i] ? L->recv[l] : L->send[l]) + off[i];
    int r = send[i] ? N.Send(base, cnt[i], dt[i], peer[i], L->comm[l], L->stream[l])
                    : N.Recv(base, cnt[i], dt[i], peer[i], L->comm[l], L->stream[l]);
    if (r) { N.GroupEnd(); f->kind = 1; f->code = r; f->call = send[i] ? "ncclSend" : "ncclRecv"; return r; }
  }
  NCCLTRY(N.GroupEnd(), "ncclGroupEnd");
  for (int l = 0; l < L->n; l++) {
    CUDATRY(R.SetDevice(L->dev[l]), "cudaSetDevice");
    CUDATRY(R.EventRecord(L->ev1[l], L->stream[l]), "cudaEventRecord");
  }
  int r = gs_wait(L, timeout, f);
  if (r) return r;
  for (int l = 0; l < L->n; l++) CUDATRY(R.EventElapsedTime(&ms[l], L->ev0[l], L->ev1[l]), "cudaEventElapsedTime");
  return 0;
}

// gs_launch_words launches fn on local rank l with nargs parameters, each
// read from a 64-bit word (pointers and 64-bit integers fill it, 32-bit
// parameters read its low half: the machine is little-endian), timed with
// the local rank's events, and waits.
int gs_launch_words(gsLocal* L, int l, gsHandle fn, unsigned grid, unsigned block, uint64_t* words, int nargs,
                           double timeout, float* ms, gsFail* f) {
  f->kind = 0; f->code = 0; f->call = "";
  void* args[64];
  if (nargs > 64) { f->kind = 2; f->code = 1; f->call = "too many kernel arguments"; return 1; }
  for (int i = 0; i < nargs; i++) args[i] = &words[i];
  CUDATRY(R.SetDevice(L->dev[l]), "cudaSetDevice");
  CUDATRY(R.EventRecord(L->ev0[l], L->stream[l]), "cudaEventRecord");
  CUDATRY(D.LaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, L->stream[l], args, NULL), "cuLaunchKernel");
  CUDATRY(R.EventRecord(L->ev1[l], L->stream[l]), "cudaEventRecord");
  CUDATRY(R.StreamSynchronize(L->stream[l]), "cudaStreamSynchronize");
  CUDATRY(R.EventElapsedTime(ms, L->ev0[l], L->ev1[l]), "cudaEventElapsedTime");
  return 0;
}

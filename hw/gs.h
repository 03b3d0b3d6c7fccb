// gs.h: what hw's Go code (cgo.go) calls in gs.c, and the types they share.
// Handles are opaque pointers and enums ints, as cgo.go's doc says.
#ifndef GATESIM_HW_GS_H
#define GATESIM_HW_GS_H

#include <stddef.h>
#include <stdint.h>

typedef struct { char internal[128]; } gsUniqueId;
typedef void* gsHandle;

#define GS_MAX_LOCAL 64

typedef struct {
  int n;        // local ranks
  int nranks;   // communicator size
  int rank[GS_MAX_LOCAL];
  int dev[GS_MAX_LOCAL];
  gsHandle comm[GS_MAX_LOCAL];
  gsHandle stream[GS_MAX_LOCAL];
  gsHandle ev0[GS_MAX_LOCAL], ev1[GS_MAX_LOCAL];
  char* send[GS_MAX_LOCAL];
  char* recv[GS_MAX_LOCAL];
} gsLocal;

// Failure report: which API and which call.
typedef struct {
  int kind;          // 0 none, 1 NCCL, 2 CUDA, 3 timeout
  int code;
  const char* call;
} gsFail;

int gs_open_nccl(const char* path, const char** err, char* where, int wlen);
int gs_open_cudart(const char* path, const char** err, char* where, int wlen);
int gs_open_driver(const char** err);
int gs_has_graphs(void);
int gs_nccl_version(int* v);
int gs_unique_id(void* id);
int gs_comm_init_all(gsHandle* comms, int n, const int* devs);
int gs_comm_init_rank(gsHandle* comm, int n, const void* id, int rank);
int gs_comm_destroy(gsHandle c);
int gs_comm_abort(gsHandle c);
int gs_comm_async_error(gsHandle c);
const char* gs_nccl_last_error(gsHandle c);
int gs_group_start(void);
int gs_group_end(void);
int gs_device_count(int* n);
int gs_set_device(int d);
int gs_malloc(void** p, size_t n);
int gs_free(void* p);
int gs_has_register(void);
int gs_has_windows(void);
int gs_comm_register(gsHandle c, void* p, size_t n, void** h);
int gs_comm_deregister(gsHandle c, void* h);
int gs_nccl_mem_alloc(void** p, size_t n);
int gs_nccl_mem_free(void* p);
int gs_window_register(gsHandle c, void* p, size_t n, void** w);
int gs_window_deregister(gsHandle c, void* w);
int gs_memcpy(void* dst, const void* src, size_t n, int kind);
int gs_memset_async(void* p, int v, size_t n, gsHandle s);
int gs_stream_create(gsHandle* s);
int gs_stream_destroy(gsHandle s);
int gs_stream_sync(gsHandle s);
int gs_event_create(gsHandle* e);
int gs_event_destroy(gsHandle e);
const char* gs_cuda_error_name(int e);
int gs_pci_bus_id(char* buf, int len, int dev);
int gs_driver_version(int* v);
int gs_runtime_version(int* v);
int gs_cu_device_name(char* buf, int len, int ordinal);
int gs_module_load(gsHandle* m, const void* image);
int gs_module_function(gsHandle* f, gsHandle m, const char* name);
const char* gs_cu_error_name(int e);
int gs_launch_fill(gsHandle fn, gsHandle stream, void* buf, uint64_t n, int dt, int rank, uint64_t base, uint32_t seed, int prod);
int gs_launch_check(gsHandle fn, gsHandle stream, const void* buf, uint64_t n, int dt, int mode, int redop, int nranks, int src, uint64_t base, uint64_t block, uint32_t seed, void* wrong);
int gs_run(gsLocal* L, int func, size_t count, int dt, size_t esz, int op, int root, size_t stride, size_t steps, int iters, int agg, int timed, int graph, double timeout, float* ms, gsFail* f);
int gs_allreduce_small(gsLocal* L, void* dev, int dt, int op, void* host, gsFail* f);
int gs_exchange(gsLocal* L, int n, const int* loc, const int* peer, const int* send, const int* buf, const uint64_t* off, const uint64_t* cnt, const int* dt, double timeout, float* ms, gsFail* f);
int gs_launch_words(gsLocal* L, int l, gsHandle fn, unsigned grid, unsigned block, uint64_t* words, int nargs, double timeout, float* ms, gsFail* f);

#endif

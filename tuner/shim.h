// The child process's calls into a tuner library: open, look up the
// versioned symbols, and call one version's init, getCollInfo and
// finalize. The tuner's context stays in C memory (a slot gs_init fills):
// it is the tuner's value, not a pointer Go may look at. Messages the tuner logs are collected in a buffer.
#ifndef GATESIM_TUNER_SHIM_H
#define GATESIM_TUNER_SHIM_H

#include <stddef.h>
#include <stdint.h>

void* gs_open(const char* path, char* err, int errlen);
// gs_symbol returns ncclTunerPlugin_v<version> or NULL.
void* gs_symbol(void* lib, int version);
const char* gs_name(void* sym);

int gs_init(void* sym, int version, size_t nRanks, size_t nNodes, uint64_t commId,
            const int nvl[3], double* constants, void** ctx);
int gs_coll(void* sym, int version, void** slot, int func, size_t nBytes, int numPipeOps,
            float* table, int numAlgo, int numProto, int regBuff, int collNetSupport,
            int nvlsSupport, int* algo, int* proto, int* nChannels);
int gs_finalize(void* sym, int version, void** slot);
// gs_has_chunk says whether a v6 tuner's getChunkSize is set; gs_chunk
// calls it with *chunkSize holding NCCL's chunk (only when it is set).
int gs_has_chunk(void* sym, int version);
int gs_chunk(void* sym, int version, void** slot, int func, size_t nBytes, int algo, int proto,
             int nChannels, size_t* chunkSize);
int gs_num_constants(void);

// gs_log_take copies the collected messages (one per line) into buf and
// empties the collection; it returns the number of bytes written.
int gs_log_take(char* buf, int len);

#endif

// The tuner plugin ABI as NCCL's loader sees it, versions 2 to 6, written
// from the layouts NCCL documents at its release tags (v2.22.3-1
// src/include/nccl_tuner.h; v2.28.9-1 and v2.30.7-1
// src/include/plugin/tuner/tuner_v2.h .. tuner_v6.h). Enumerations are
// passed as int, as the C ABI passes them.
#ifndef GATESIM_TUNER_ABI_H
#define GATESIM_TUNER_ABI_H

#include <stddef.h>
#include <stdint.h>

// ncclDebugLogger_t: level, subsystem flags, file, line, printf format.
typedef void (*gsLogger)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// v2: the tuner answers an algorithm and a protocol.
typedef struct {
  const char* name;
  int (*init)(size_t nRanks, size_t nNodes, gsLogger log, void** ctx);
  int (*getCollInfo)(void* ctx, int collType, size_t nBytes, int collNetSupport, int nvlsSupport,
                     int numPipeOps, int* algorithm, int* protocol, int* nChannels);
  int (*destroy)(void* ctx);
} gsTunerV2;

// v3: the tuner edits the cost table (numAlgo x numProto floats).
typedef struct {
  const char* name;
  int (*init)(size_t nRanks, size_t nNodes, gsLogger log, void** ctx);
  int (*getCollInfo)(void* ctx, int collType, size_t nBytes, int numPipeOps, float** table,
                     int numAlgo, int numProto, int* nChannels);
  int (*destroy)(void* ctx);
} gsTunerV3;

// v4: v3 with regBuff before nChannels.
typedef struct {
  const char* name;
  int (*init)(size_t nRanks, size_t nNodes, gsLogger log, void** ctx);
  int (*getCollInfo)(void* ctx, int collType, size_t nBytes, int numPipeOps, float** table,
                     int numAlgo, int numProto, int regBuff, int* nChannels);
  int (*destroy)(void* ctx);
} gsTunerV4;

// v5 and v6: init takes the communicator hash, the NVLink domains and the
// tuning constants (editable); destroy became finalize.
typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} gsNvlDomainInfo;

// ncclTunerConstants_v5_t: 7 algorithms, 3 protocols, 3 link kinds, 4
// compute capabilities, 3 tuning scales; GS_NUM_CONSTANTS doubles in all.
typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[4][3];
  double perChMaxRingLL128Bws[4][3];
  double perChMaxTreeLL128Bws[4][3];
  double perChMaxTreeBws[4][3];
  double perChMaxNVLSTreeBws[4][3];
} gsTunerConstants;

#define GS_NUM_CONSTANTS (sizeof(gsTunerConstants) / sizeof(double))

typedef struct {
  const char* name;
  int (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, gsLogger log,
              gsNvlDomainInfo* nvl, gsTunerConstants* constants);
  int (*getCollInfo)(void* ctx, int collType, size_t nBytes, int numPipeOps, float** table,
                     int numAlgo, int numProto, int regBuff, int* nChannels);
  int (*finalize)(void* ctx);
} gsTunerV5;

typedef struct {
  const char* name;
  int (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, gsLogger log,
              gsNvlDomainInfo* nvl, gsTunerConstants* constants);
  int (*getCollInfo)(void* ctx, int collType, size_t nBytes, int numPipeOps, float** table,
                     int numAlgo, int numProto, int regBuff, int* nChannels);
  int (*finalize)(void* ctx);
  int (*getChunkSize)(void* ctx, int collType, size_t nBytes, int algo, int proto, int nChannels,
                      size_t* chunkSize);
} gsTunerV6;

#endif

// A test tuner exporting ncclTunerPlugin_v6 only: v5 plus getChunkSize
// (src/include/plugin/tuner/tuner_v6.h at v2.30.7-1).
#include "modes.h"

typedef struct { int nNvlDomains, minRanksPerNvlDomain, maxRanksPerNvlDomain; } nvl_t;
typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double rest[5][4][3];
} constants_t;

typedef struct {
  const char* name;
  int (*init)(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, logger_t log, nvl_t* nvl, constants_t* c);
  int (*getCollInfo)(void* ctx, int coll, size_t nBytes, int numPipeOps, float** table, int numAlgo, int numProto,
                     int regBuff, int* nChannels);
  int (*finalize)(void* ctx);
  int (*getChunkSize)(void* ctx, int coll, size_t nBytes, int algo, int proto, int nChannels, size_t* chunkSize);
} tuner_v6_t;

static int init(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, logger_t log, nvl_t* nvl, constants_t* c) {
  (void)commId; (void)nvl;
  int r = mode_init(nRanks, nNodes, log, ctx, 6);
  if (MODE == MODE_EDIT) c->baseLatencies[1][0] += 50.0;
  return r;
}
static int coll(void* ctx, int coll, size_t nBytes, int numPipeOps, float** table, int numAlgo, int numProto, int regBuff, int* nChannels) {
  (void)ctx; (void)coll; (void)numPipeOps; (void)regBuff;
  mode_table((float*)table, numAlgo, numProto, nBytes, nChannels);
  return 0;
}
static int finalize(void* ctx) { (void)ctx; return 0; }
// getChunkSize: edit halves NCCL's chunk, illegal asks for 1 GiB (NCCL
// clamps it to the buffer's), chunkcrash and chunkfail fail here; the
// other modes leave NCCL's chunk.
static int chunk(void* ctx, int coll, size_t nBytes, int algo, int proto, int nChannels, size_t* chunkSize) {
  (void)ctx; (void)coll; (void)nBytes; (void)algo; (void)proto; (void)nChannels;
  switch (MODE) {
  case MODE_EDIT: *chunkSize /= 2; break;
  case MODE_ILLEGAL: *chunkSize = (size_t)1 << 30; break;
  case MODE_CHUNKCRASH: raise(SIGSEGV); break;
  case MODE_CHUNKFAIL:
    if (logfn) logfn(2, 0, __FILE__, __LINE__, "gatesim test tuner: getChunkSize refuses (mode chunkfail)");
    return 3;
  }
  return 0;
}

const tuner_v6_t ncclTunerPlugin_v6 = {"gatesim-test-v6", init, coll, finalize, chunk};

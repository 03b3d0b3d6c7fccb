// A test tuner exporting ncclTunerPlugin_v5 only: init sees the tuning
// constants; in edit mode it raises Ring/LL's base latency.
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
} tuner_v5_t;

static int init(void** ctx, uint64_t commId, size_t nRanks, size_t nNodes, logger_t log, nvl_t* nvl, constants_t* c) {
  (void)commId;
  int r = mode_init(nRanks, nNodes, log, ctx, 5);
  if (log) log(3, 0, __FILE__, __LINE__, "gatesim test tuner v5: %d NVLink domains of %d..%d ranks", nvl->nNvlDomains, nvl->minRanksPerNvlDomain, nvl->maxRanksPerNvlDomain);
  if (MODE == MODE_EDIT) c->baseLatencies[1][0] += 50.0;
  return r;
}
static int coll(void* ctx, int coll, size_t nBytes, int numPipeOps, float** table, int numAlgo, int numProto, int regBuff, int* nChannels) {
  (void)ctx; (void)coll; (void)numPipeOps; (void)regBuff;
  mode_table((float*)table, numAlgo, numProto, nBytes, nChannels);
  return 0;
}
static int finalize(void* ctx) { (void)ctx; if (logfn) logfn(3, 0, __FILE__, __LINE__, "gatesim test tuner v5: finalize"); return 0; }

const tuner_v5_t ncclTunerPlugin_v5 = {"gatesim-test-v5", init, coll, finalize};

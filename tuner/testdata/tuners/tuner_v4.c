// A test tuner exporting ncclTunerPlugin_v4 only: v3 with regBuff.
#include "modes.h"

typedef struct {
  const char* name;
  int (*init)(size_t nRanks, size_t nNodes, logger_t log, void** ctx);
  int (*getCollInfo)(void* ctx, int coll, size_t nBytes, int numPipeOps, float** table, int numAlgo, int numProto,
                     int regBuff, int* nChannels);
  int (*destroy)(void* ctx);
} tuner_v4_t;

static int init(size_t nRanks, size_t nNodes, logger_t log, void** ctx) { return mode_init(nRanks, nNodes, log, ctx, 4); }
static int coll(void* ctx, int coll, size_t nBytes, int numPipeOps, float** table, int numAlgo, int numProto, int regBuff, int* nChannels) {
  (void)ctx; (void)coll; (void)numPipeOps; (void)regBuff;
  mode_table((float*)table, numAlgo, numProto, nBytes, nChannels);
  return 0;
}
static int destroy(void* ctx) { (void)ctx; if (logfn) logfn(3, 0, __FILE__, __LINE__, "gatesim test tuner v4: destroy"); return 0; }

const tuner_v4_t ncclTunerPlugin_v4 = {"gatesim-test-v4", init, coll, destroy};

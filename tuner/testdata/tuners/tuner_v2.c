// A test tuner exporting ncclTunerPlugin_v2 only: getCollInfo answers an
// algorithm and a protocol.
#include "modes.h"

typedef struct {
  const char* name;
  int (*init)(size_t nRanks, size_t nNodes, logger_t log, void** ctx);
  int (*getCollInfo)(void* ctx, int coll, size_t nBytes, int collNetSupport, int nvlsSupport, int numPipeOps,
                     int* algo, int* proto, int* nChannels);
  int (*destroy)(void* ctx);
} tuner_v2_t;

static int init(size_t nRanks, size_t nNodes, logger_t log, void** ctx) { return mode_init(nRanks, nNodes, log, ctx, 2); }
static int coll(void* ctx, int coll, size_t nBytes, int collNet, int nvls, int numPipeOps, int* algo, int* proto, int* nChannels) {
  (void)ctx; (void)coll; (void)nBytes; (void)collNet; (void)nvls; (void)numPipeOps;
  mode_pick(algo, proto, nChannels);
  return 0;
}
static int destroy(void* ctx) { (void)ctx; if (logfn) logfn(3, 0, __FILE__, __LINE__, "gatesim test tuner v2: destroy"); return 0; }

const tuner_v2_t ncclTunerPlugin_v2 = {"gatesim-test-v2", init, coll, destroy};

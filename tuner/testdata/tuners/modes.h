// Behaviours shared by the test tuners; MODE is set on the compiler's
// command line (-DMODE=MODE_FORCE ...). Indices are NCCL's: algorithms
// Tree 0, Ring 1, CollNetDirect 2, CollNetChain 3, NVLS 4, NVLSTree 5,
// PAT 6; protocols LL 0, LL128 1, Simple 2; -1.0 is IGNORE.
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#define MODE_IDENTITY 0 // returns the table unchanged
#define MODE_FORCE 1    // forces Ring/Simple (0.0 where it is not IGNORE)
#define MODE_EDIT 2     // adds 1000 us to every LL cell, asks for 4 channels, prints to stdout
#define MODE_ILLEGAL 3  // picks CollNetDirect/Simple whatever the table says
#define MODE_INITFAIL 4 // init returns ncclInternalError
#define MODE_CRASH 5    // getCollInfo raises SIGSEGV
#define MODE_HANG 6     // getCollInfo never returns
#define MODE_CHUNKCRASH 7 // v6: the table unchanged; getChunkSize raises SIGSEGV
#define MODE_CHUNKFAIL 8  // v6: the table unchanged; getChunkSize returns ncclInternalError

#ifndef MODE
#error MODE must be defined
#endif

typedef void (*logger_t)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);
static logger_t logfn;

static int mode_init(size_t nRanks, size_t nNodes, logger_t log, void** ctx, int version) {
  logfn = log;
  *ctx = (void*)0x1;
  if (log) log(3, 0, __FILE__, __LINE__, "gatesim test tuner v%d mode %d: nRanks %zu nNodes %zu", version, MODE, nRanks, nNodes);
  if (MODE == MODE_INITFAIL) {
    if (log) log(2, 0, __FILE__, __LINE__, "gatesim test tuner: init refuses (mode initfail)");
    return 3;
  }
  return 0;
}

static void mode_fault(void) {
  if (MODE == MODE_CRASH) raise(SIGSEGV);
  if (MODE == MODE_HANG) for (;;) pause();
}

// mode_table edits a cost table of numAlgo x numProto cells in place.
__attribute__((unused)) static void mode_table(float* t, int numAlgo, int numProto, size_t nBytes, int* nChannels) {
  (void)nBytes;
  mode_fault();
  if (numProto < 3 || numAlgo < 3) return;
  switch (MODE) {
  case MODE_FORCE:
    if (t[1 * numProto + 2] != -1.0f) t[1 * numProto + 2] = 0.0f;
    break;
  case MODE_EDIT:
    printf("gatesim test tuner: a plugin that prints on stdout\n"); // must not reach NCCL's (or gatesim's) protocol
    fflush(stdout);
    for (int a = 0; a < numAlgo; a++)
      if (t[a * numProto + 0] >= 0.0f) t[a * numProto + 0] += 1000.0f;
    *nChannels = 4;
    break;
  case MODE_ILLEGAL:
    t[2 * numProto + 2] = 0.0f;
    break;
  }
}

// mode_pick is a v2 tuner's answer.
__attribute__((unused)) static void mode_pick(int* algo, int* proto, int* nChannels) {
  mode_fault();
  switch (MODE) {
  case MODE_FORCE: *algo = 1; *proto = 2; break;
  case MODE_EDIT: *nChannels = 4; break;
  case MODE_ILLEGAL: *algo = 2; *proto = 2; break;
  }
}

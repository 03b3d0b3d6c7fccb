//go:build cgo

#include "shim.h"
#include "abi.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// The messages a tuner logs, newline-separated; messages past the limit
// are dropped (the limit is the one on what a child reports per call).
#define GS_LOG_MAX (64 * 1024)
static char gsLog[GS_LOG_MAX];
static int gsLogLen;

static void gsLogFn(int level, unsigned long flags, const char* file, int line, const char* fmt, ...) {
  (void)level; (void)flags; (void)file; (void)line;
  if (fmt == NULL) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n >= (int)sizeof(msg)) n = sizeof(msg) - 1;
  if (gsLogLen + n + 1 > GS_LOG_MAX) return;
  memcpy(gsLog + gsLogLen, msg, n);
  gsLogLen += n;
  gsLog[gsLogLen++] = '\n';
}

int gs_log_take(char* buf, int len) {
  int n = gsLogLen < len ? gsLogLen : len;
  memcpy(buf, gsLog, n);
  gsLogLen = 0;
  return n;
}

void* gs_open(const char* path, char* err, int errlen) {
  // A fault inside the tuner ends the child with the signal itself, so
  // the parent can report it; the child has nothing to recover.
  int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (unsigned i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) signal(fatal[i], SIG_DFL);
  void* lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  if (lib == NULL) {
    const char* e = dlerror();
    snprintf(err, errlen, "%s", e ? e : "dlopen failed");
  }
  return lib;
}

void* gs_symbol(void* lib, int version) {
  char name[32];
  snprintf(name, sizeof(name), "ncclTunerPlugin_v%d", version);
  return dlsym(lib, name);
}

// Every version's struct starts with the name.
const char* gs_name(void* sym) {
  const char* n = *(const char**)sym;
  return n ? n : "";
}

int gs_num_constants(void) { return (int)GS_NUM_CONSTANTS; }

int gs_init(void* sym, int version, size_t nRanks, size_t nNodes, uint64_t commId,
            const int nvl[3], double* constants, void** ctx) {
  switch (version) {
  case 2: return ((gsTunerV2*)sym)->init(nRanks, nNodes, gsLogFn, ctx);
  case 3: return ((gsTunerV3*)sym)->init(nRanks, nNodes, gsLogFn, ctx);
  case 4: return ((gsTunerV4*)sym)->init(nRanks, nNodes, gsLogFn, ctx);
  case 5:
  case 6: {
    gsNvlDomainInfo info = {nvl[0], nvl[1], nvl[2]};
    gsTunerConstants c;
    memcpy(&c, constants, sizeof(c));
    int r = ((gsTunerV5*)sym)->init(ctx, commId, nRanks, nNodes, gsLogFn, &info, &c);
    memcpy(constants, &c, sizeof(c));
    return r;
  }
  }
  return -1;
}

int gs_coll(void* sym, int version, void** slot, int func, size_t nBytes, int numPipeOps,
            float* table, int numAlgo, int numProto, int regBuff, int collNetSupport,
            int nvlsSupport, int* algo, int* proto, int* nChannels) {
  void* ctx = *slot;
  switch (version) {
  case 2:
    return ((gsTunerV2*)sym)->getCollInfo(ctx, func, nBytes, collNetSupport, nvlsSupport, numPipeOps, algo, proto, nChannels);
  case 3:
    return ((gsTunerV3*)sym)->getCollInfo(ctx, func, nBytes, numPipeOps, (float**)table, numAlgo, numProto, nChannels);
  case 4:
    return ((gsTunerV4*)sym)->getCollInfo(ctx, func, nBytes, numPipeOps, (float**)table, numAlgo, numProto, regBuff, nChannels);
  case 5:
  case 6:
    return ((gsTunerV5*)sym)->getCollInfo(ctx, func, nBytes, numPipeOps, (float**)table, numAlgo, numProto, regBuff, nChannels);
  }
  return -1;
}

int gs_finalize(void* sym, int version, void** slot) {
  void* ctx = *slot;
  switch (version) {
  case 2: return ((gsTunerV2*)sym)->destroy(ctx);
  case 3: return ((gsTunerV3*)sym)->destroy(ctx);
  case 4: return ((gsTunerV4*)sym)->destroy(ctx);
  case 5:
  case 6: return ((gsTunerV5*)sym)->finalize(ctx);
  }
  return -1;
}

int gs_has_chunk(void* sym, int version) {
  return version == 6 && ((gsTunerV6*)sym)->getChunkSize != NULL;
}

int gs_chunk(void* sym, int version, void** slot, int func, size_t nBytes, int algo, int proto,
             int nChannels, size_t* chunkSize) {
  if (!gs_has_chunk(sym, version)) return -1;
  return ((gsTunerV6*)sym)->getChunkSize(*slot, func, nBytes, algo, proto, nChannels, chunkSize);
}

/*
 * fake_cuda.c: a stand-in for libcuda.so.1 with the driver functions libvm loads, backed by
 * host memory, so the CUDA device code runs in tests on machines without a GPU
 * (TVM_VM_LIBCUDA points libvm at it). Counters let the test check what happened.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static int g_live, g_copies, g_syncs;
static char g_ctx[2];

int fake_cuda_live_allocations(void) { return g_live; }
int fake_cuda_copies(void) { return g_copies; }
int fake_cuda_syncs(void) { return g_syncs; }

/* Modules hold a copy of their PTX; a function is the module and the name of one of its
 * `.entry`s. A launch records what it was given: the dimensions, the dynamic shared memory, the
 * stream and the parameter values (as many as the entry declares; each read as the 8 bytes
 * libvm's slots hold). fake_cuda_fail_next(code) makes the next launch return code. */
typedef struct fake_function fake_function;
typedef struct {
  char* ptx;
  fake_function* fns; /* freed with the module */
} fake_module;

struct fake_function {
  fake_module* mod;
  fake_function* next;
  char name[256];
  int nparams;
};

static int g_modules_loaded, g_modules_live, g_launches, g_fail_next;
static unsigned g_dims[6], g_shmem;
static void* g_stream;
static uint64_t g_params[32];
static int g_nparams;
static char g_launched[256];

int fake_cuda_modules_loaded(void) { return g_modules_loaded; }
int fake_cuda_modules_live(void) { return g_modules_live; }
int fake_cuda_launches(void) { return g_launches; }
void fake_cuda_fail_next(int code) { g_fail_next = code; }
const char* fake_cuda_last_kernel(void) { return g_launched; }
unsigned fake_cuda_last_dim(int k) { return k >= 0 && k < 6 ? g_dims[k] : 0; }
unsigned fake_cuda_last_shmem(void) { return g_shmem; }
void* fake_cuda_last_stream(void) { return g_stream; }
int fake_cuda_last_nparams(void) { return g_nparams; }
uint64_t fake_cuda_last_param(int k) { return k >= 0 && k < 32 ? g_params[k] : 0; }

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDeviceGetCount(int* n) {
  *n = 2;
  return 0;
}
CUresult cuDeviceGet(int* d, int ordinal) {
  *d = ordinal;
  return ordinal >= 0 && ordinal < 2 ? 0 : 101; /* CUDA_ERROR_INVALID_DEVICE */
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int dev) {
  *ctx = &g_ctx[dev];
  return 0;
}
CUresult cuCtxSetCurrent(void* ctx) { return ctx == &g_ctx[0] || ctx == &g_ctx[1] ? 0 : 201; }
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  void* m = malloc(n);
  if (!m) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  memset(m, 0xCD, n);
  g_live++;
  *p = (CUdeviceptr)(size_t)m;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void*)(size_t)p);
  g_live--;
  return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t n, void* stream) {
  memcpy((void*)(size_t)d, s, n);
  g_copies++;
  return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t n, void* stream) {
  memcpy(d, (const void*)(size_t)s, n);
  g_copies++;
  return 0;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void* stream) {
  memcpy((void*)(size_t)d, (const void*)(size_t)s, n);
  g_copies++;
  return 0;
}
CUresult cuStreamSynchronize(void* stream) {
  g_syncs++;
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  *s = r == 0 ? "no error" : "fake error";
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case 0: *s = "CUDA_SUCCESS"; return 0;
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
    case 101: *s = "CUDA_ERROR_INVALID_DEVICE"; return 0;
    case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
    case 719: *s = "CUDA_ERROR_LAUNCH_FAILED"; return 0;
    case 400: *s = "CUDA_ERROR_INVALID_HANDLE"; return 0;
    case 600: *s = "CUDA_ERROR_NOT_READY"; return 0;
    default: *s = NULL; return 1;
  }
}
CUresult cuDeviceGetAttribute(int* v, int attrib, int dev) {
  if (dev < 0 || dev >= 2) return 101;
  *v = attrib == 75 ? 9 : attrib == 76 ? 0 : 0; /* compute capability 9.0 */
  return 0;
}
/* PTX text: at least a .version line and one .entry. */
CUresult cuModuleLoadData(void** mod, const void* image) {
  const char* ptx = image;
  if (!strstr(ptx, ".version") || !strstr(ptx, ".entry")) return 218;
  fake_module* m = malloc(sizeof(fake_module));
  m->ptx = strdup(ptx);
  m->fns = NULL;
  *mod = m;
  g_modules_loaded++;
  g_modules_live++;
  return 0;
}
CUresult cuModuleUnload(void* mod) {
  fake_module* m = mod;
  while (m->fns) {
    fake_function* f = m->fns;
    m->fns = f->next;
    free(f);
  }
  free(m->ptx);
  free(m);
  g_modules_live--;
  return 0;
}
/* ".entry <name>(" followed by its parameter list "(... .param ..., .param ...)". */
CUresult cuModuleGetFunction(void** fn, void* mod, const char* name) {
  fake_module* m = mod;
  char pat[300];
  snprintf(pat, sizeof(pat), ".entry %s(", name);
  const char* at = strstr(m->ptx, pat);
  if (!at || strlen(name) >= 256) return 500;
  const char* end = strchr(at, ')');
  int n = 0;
  for (const char* p = at; end && (p = strstr(p, ".param")) && p < end; p += 6) n++;
  fake_function* f = calloc(1, sizeof(fake_function));
  f->mod = m;
  strcpy(f->name, name);
  f->nparams = n;
  f->next = m->fns; /* a CUfunction lives as long as its module */
  m->fns = f;
  *fn = f;
  return 0;
}
CUresult cuFuncSetAttribute(void* fn, int attrib, int value) { return fn && value >= 0 ? 0 : 1; }
CUresult cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shmem, void* stream, void** params, void** extra) {
  fake_function* f = fn;
  if (g_fail_next) {
    int code = g_fail_next;
    g_fail_next = 0;
    return code;
  }
  if (!f || extra || gx == 0 || bx == 0 || bx * by * bz > 1024) return 1;
  unsigned d[6] = {gx, gy, gz, bx, by, bz};
  memcpy(g_dims, d, sizeof(d));
  g_shmem = shmem;
  g_stream = stream;
  g_nparams = f->nparams < 32 ? f->nparams : 32;
  for (int k = 0; k < g_nparams; ++k) memcpy(&g_params[k], params[k], 8);
  snprintf(g_launched, sizeof(g_launched), "%s", f->name);
  g_launches++;
  return 0;
}

/* Events: an event remembers the launch count when it was recorded; the time between two is
 * 0.25 ms per launch in between (a made-up clock the tests can check). Synchronizing or
 * measuring an event never recorded is CUDA_ERROR_NOT_READY (600), as the driver says for a
 * pending one; fake_cuda_fail_event(code) makes the next cuEventElapsedTime return code. */
typedef struct {
  int recorded, launches;
} fake_event;
static int g_events_live, g_events_recorded, g_fail_event;

int fake_cuda_events_live(void) { return g_events_live; }
int fake_cuda_events_recorded(void) { return g_events_recorded; }
void fake_cuda_fail_event(int code) { g_fail_event = code; }

CUresult cuEventCreate(void** ev, unsigned flags) {
  fake_event* e = calloc(1, sizeof(fake_event));
  if (!e || flags > 15) {
    free(e);
    return 1;
  }
  g_events_live++;
  *ev = e;
  return 0;
}
CUresult cuEventRecord(void* ev, void* stream) {
  (void)stream;
  fake_event* e = ev;
  if (!e) return 400; /* CUDA_ERROR_INVALID_HANDLE */
  e->recorded = 1;
  e->launches = g_launches;
  g_events_recorded++;
  return 0;
}
CUresult cuEventSynchronize(void* ev) {
  fake_event* e = ev;
  return !e ? 400 : e->recorded ? 0 : 600;
}
CUresult cuEventElapsedTime(float* ms, void* a, void* b) {
  fake_event *x = a, *y = b;
  if (g_fail_event) {
    int code = g_fail_event;
    g_fail_event = 0;
    return code;
  }
  if (!x || !y || !ms) return 400;
  if (!x->recorded || !y->recorded) return 600;
  *ms = 0.25f * (float)(y->launches - x->launches);
  return 0;
}
CUresult cuEventDestroy_v2(void* ev) {
  if (!ev) return 400;
  free(ev);
  g_events_live--;
  return 0;
}

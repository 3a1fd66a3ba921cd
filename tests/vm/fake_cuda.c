/*
 * fake_cuda.c: a stand-in for libcuda.so.1 with the driver functions libvm loads, backed by
 * host memory, so the CUDA device code runs in tests on machines without a GPU
 * (TVM_VM_LIBCUDA points libvm at it). Counters let the test check what happened.
 */
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static int g_live, g_copies, g_syncs;
static char g_ctx[2];

int fake_cuda_live_allocations(void) { return g_live; }
int fake_cuda_copies(void) { return g_copies; }
int fake_cuda_syncs(void) { return g_syncs; }

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

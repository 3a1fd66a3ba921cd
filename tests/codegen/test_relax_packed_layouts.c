/*
 * test_relax_packed_layouts.c: max_pool2d, avg_pool2d, adaptive_avg_pool2d and image.resize2d
 * in packed layouts (NCHW16c, NCHW4c, NHWC4c in and NCHW4c out; tests/corpus/relax/
 * packed_layouts.py) legalized, then run two ways on random inputs: in the Relax reference
 * evaluator and compiled, each checked against the operator written below as plain C loops over
 * the logical axes (N, C outer, H, W, c inner), which the layouts place; symbolic at two sizes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "exec_mode_testing.h"
#include "script_testing.h"
#include "values_testing.h"
#include "corpus_ops_testing.h"

/* A 5-d tensor's dims ls by logical axis (N, C, H, W, c), placed by pos. */
typedef struct {
  int64_t ls[5];
  int pos[5];
} packed;

static const int kNCHWc[5] = {0, 1, 2, 3, 4}, kNHWCc[5] = {0, 3, 1, 2, 4};

static packed pk(const int64_t* ls, const int* pos) {
  packed p;
  memcpy(p.ls, ls, sizeof(p.ls));
  memcpy(p.pos, pos, sizeof(p.pos));
  return p;
}

/* The flat offset of logical index li. */
static int64_t at(const packed* p, const int64_t* li) {
  int64_t ds[5], pi[5], o = 0;
  for (int k = 0; k < 5; ++k) ds[p->pos[k]] = p->ls[k], pi[p->pos[k]] = li[k];
  for (int k = 0; k < 5; ++k) o = o * ds[k] + pi[k];
  return o;
}

static void dims_of(const packed* p, int64_t* ds) {
  for (int k = 0; k < 5; ++k) ds[p->pos[k]] = p->ls[k];
}

static void* rand_of(const packed* p) {
  int64_t ds[5];
  dims_of(p, ds);
  return rv_rand(5, ds);
}

/* Pooling oracle: kind 0 max, 1 avg excluding the padding, 2 avg including it (the taps before
 * the input's end plus the after-padding); k, st, pad (top, left, bottom, right) per H, W. */
static void pool_of(const float* x, const packed* xp, const packed* op, const int64_t* k,
                    const int64_t* st, const int64_t* pad, int kind, double* out) {
  int64_t o[5];
  for (o[0] = 0; o[0] < op->ls[0]; ++o[0])
    for (o[1] = 0; o[1] < op->ls[1]; ++o[1])
      for (o[2] = 0; o[2] < op->ls[2]; ++o[2])
        for (o[3] = 0; o[3] < op->ls[3]; ++o[3])
          for (o[4] = 0; o[4] < op->ls[4]; ++o[4]) {
            double m = -INFINITY, s = 0;
            int64_t valid = 0, padded = 0;
            for (int64_t ky = 0; ky < k[0]; ++ky)
              for (int64_t kx = 0; kx < k[1]; ++kx) {
                int64_t iy = o[2] * st[0] - pad[0] + ky, ix = o[3] * st[1] - pad[1] + kx;
                if (iy < xp->ls[2] + pad[2] && ix < xp->ls[3] + pad[3]) ++padded;
                if (iy < 0 || iy >= xp->ls[2] || ix < 0 || ix >= xp->ls[3]) continue;
                double v = x[at(xp, (int64_t[]){o[0], o[1], iy, ix, o[4]})];
                m = v > m ? v : m;
                s += v;
                ++valid;
              }
            out[at(op, o)] = kind == 0 ? m : kind == 1 ? s / (double)valid : s / (double)padded;
          }
}

static void expect_packed(const char* fn, void* x, const packed* op, const double* want) {
  int64_t ds[5];
  dims_of(op, ds);
  expect2(fn, &x, 1, 5, ds, F32, want);
}

TEST(max_pool_16c) {
  packed xp = pk((int64_t[]){2, 2, 6, 5, 16}, kNCHWc), op = pk((int64_t[]){2, 2, 3, 5, 16}, kNCHWc);
  void* x = rand_of(&xp);
  double* want = malloc(sizeof(double) * 2 * 2 * 3 * 5 * 16);
  pool_of(tvm_ffi_tensor_dl(x)->data, &xp, &op, (int64_t[]){3, 3}, (int64_t[]){2, 1},
          (int64_t[]){1, 1, 1, 1}, 0, want);
  expect_packed("max_pool_16c", x, &op, want);
  free(want);
  tvm_ffi_release(x);
}

/* NHWC4c in, NCHW4c out: the output is re-ordered, not re-packed */
TEST(avg_pool_nhwc4c) {
  packed xp = pk((int64_t[]){1, 2, 5, 4, 4}, kNHWCc), op = pk((int64_t[]){1, 2, 5, 4, 4}, kNCHWc);
  void* x = rand_of(&xp);
  double want[160];
  pool_of(tvm_ffi_tensor_dl(x)->data, &xp, &op, (int64_t[]){2, 2}, (int64_t[]){1, 1},
          (int64_t[]){0, 0, 1, 1}, 2, want);
  expect_packed("avg_pool_nhwc4c", x, &op, want);
  tvm_ffi_release(x);
}

TEST(max_pool_sym) {
  static const int64_t kSizes[2][3] = {{2, 5, 3}, {1, 2, 7}};
  for (int i = 0; i < 2; ++i) {
    int64_t n = kSizes[i][0], h = kSizes[i][1], w = kSizes[i][2];
    packed xp = pk((int64_t[]){n, 2, h, w, 4}, kNCHWc);
    packed op = pk((int64_t[]){n, 2, h - 1, w - 1, 4}, kNCHWc);
    void* x = rand_of(&xp);
    double want[2 * 2 * 4 * 6 * 4];
    pool_of(tvm_ffi_tensor_dl(x)->data, &xp, &op, (int64_t[]){2, 2}, (int64_t[]){1, 1},
            (int64_t[]){0, 0, 0, 0}, 0, want);
    expect_packed("max_pool_sym", x, &op, want);
    tvm_ffi_release(x);
  }
}

/* Window of output y along an axis of h in, oh out: [y * h // oh, ceil((y + 1) * h / oh)). */
TEST(adaptive_16c) {
  packed xp = pk((int64_t[]){2, 1, 7, 5, 16}, kNCHWc), op = pk((int64_t[]){2, 1, 2, 3, 16}, kNCHWc);
  void* x = rand_of(&xp);
  const float* p = tvm_ffi_tensor_dl(x)->data;
  double want[192];
  int64_t o[5];
  for (o[0] = 0; o[0] < 2; ++o[0])
    for (o[1] = 0; o[1] < 1; ++o[1])
      for (o[2] = 0; o[2] < 2; ++o[2])
        for (o[3] = 0; o[3] < 3; ++o[3])
          for (o[4] = 0; o[4] < 16; ++o[4]) {
            int64_t y0 = o[2] * 7 / 2, y1 = ((o[2] + 1) * 7 + 1) / 2;
            int64_t z0 = o[3] * 5 / 3, z1 = ((o[3] + 1) * 5 + 2) / 3;
            double s = 0;
            for (int64_t i = y0; i < y1; ++i)
              for (int64_t j = z0; j < z1; ++j) {
                s += p[at(&xp, (int64_t[]){o[0], o[1], i, j, o[4]})];
              }
            want[at(&op, o)] = s / (double)((y1 - y0) * (z1 - z0));
          }
  expect_packed("adaptive_16c", x, &op, want);
  tvm_ffi_release(x);
}

static int64_t clampi(int64_t i, int64_t h) { return i < 0 ? 0 : i > h - 1 ? h - 1 : i; }

/* linear, half_pixel: each axis's coordinate (y + 0.5) * h / oh - 0.5 in float32, the two
 * neighbours clamped, blended along W first as upstream's topi does */
TEST(resize_4c) {
  packed xp = pk((int64_t[]){1, 2, 3, 5, 4}, kNCHWc), op = pk((int64_t[]){1, 2, 6, 4, 4}, kNCHWc);
  void* x = rand_of(&xp);
  const float* p = tvm_ffi_tensor_dl(x)->data;
  double want[192];
  int64_t o[5], h = 3, w = 5;
  for (o[0] = 0; o[0] < 1; ++o[0])
    for (o[1] = 0; o[1] < 2; ++o[1])
      for (o[2] = 0; o[2] < 6; ++o[2])
        for (o[3] = 0; o[3] < 4; ++o[3])
          for (o[4] = 0; o[4] < 4; ++o[4]) {
            float cy = ((float)o[2] + 0.5f) * ((float)h / 6.0f) - 0.5f;
            float cz = ((float)o[3] + 0.5f) * ((float)w / 4.0f) - 0.5f;
            float fy = floorf(cy), fz = floorf(cz), ty = cy - fy, tz = cz - fz;
            int64_t y0 = clampi((int64_t)fy, h), y1 = clampi((int64_t)fy + 1, h);
            int64_t z0 = clampi((int64_t)fz, w), z1 = clampi((int64_t)fz + 1, w);
#define X(y, z) p[at(&xp, (int64_t[]){o[0], o[1], y, z, o[4]})]
            float r0 = X(y0, z0) * (1 - tz) + X(y0, z1) * tz;
            float r1 = X(y1, z0) * (1 - tz) + X(y1, z1) * tz;
#undef X
            want[at(&op, o)] = r0 * (1 - ty) + r1 * ty;
          }
  expect_packed("resize_4c", x, &op, want);
  tvm_ffi_release(x);
}

int main(void) {
  corpus_ops_setup("packed_layouts.py", 1e-5);
  RUN(max_pool_16c);
  RUN(avg_pool_nhwc4c);
  RUN(max_pool_sym);
  RUN(adaptive_16c);
  RUN(resize_4c);
  corpus_ops_teardown();
  return test_summary();
}

/*
 * codegen_bench.c: kernels built with the TIR builder, lowered with tvm_tir_lower and compiled
 * by libcodegen (LLVM O3, host CPU, ORC JIT), against the same loops in C compiled by gcc -O3
 * -march=native (codegen_baseline.c), measured in the same run:
 *   - float32 elementwise add C = A + B (16M elements), inner loop vectorized x8: GB/s
 *     (3 * 4 bytes * n / time)
 *   - naive matmul in loop order i, k, j (j split 8-wide and vectorized): GFLOP/s (2 n^3 / time)
 *   - the same matmul tiled (i/j blocks, k steps outside the block's rows): GFLOP/s
 *   - compile time per kernel: total (lower + LLVM O3 + JIT + first lookup) and the LLVM share
 *     (tvm_codegen_build + first get_function), in ms, median of 3 compilations.
 * Medians of repeated runs after one warm-up run; results are checked against the baseline
 * (normwise relative difference max|ours - gcc| / max|gcc| <= 1e-3, else "CHECK FAILED").
 * libcodegen does not contract a*b+c into FMA (no fast-math by default); gcc does with
 * -march=native (-ffp-contract=fast is its GNU C default).
 */
#include <math.h>
#include <string.h>
#include <tvm/codegen/codegen.h>
#include <tvm/tir/tir.h>

#include "bench_util.h"
#include "codegen_baseline.h"

#define R(x) tvm_tir_ref(x)

enum { ADD_REPEATS = 7, MATMUL_REPEATS = 3, COMPILE_REPEATS = 3 };
static const double kMaxRunNs = 3e9; /* a single matmul run longer than this: measure 512 */

/* ---- Kernels -------------------------------------------------------------------------------- */
/* a * s + b (a, b consumed) */
static void* lin(void* a, int64_t s, void* b) {
  return tvm_tir_add_take(tvm_tir_mul_take(a, tvm_tir_int(s)), b);
}

static void release_all(void** objs, int n) {
  for (int k = 0; k < n; ++k) tvm_ffi_release(objs[k]);
}
#define RELEASE_ALL(...) \
  release_all((void*[]){__VA_ARGS__}, (int)(sizeof((void*[]){__VA_ARGS__}) / sizeof(void*)))

/* add(A, B, C): for io in n/8: for ji in 8 (vectorized): C[io*8+ji] = A[io*8+ji] + B[io*8+ji] */
static void* make_add(int64_t n) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, n);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, n);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, n);
  tvm_tir_var_obj* io = tvm_tir_var("io", TVM_TIR_INT32);
  tvm_tir_var_obj* ji = tvm_tir_var("ji", TVM_TIR_INT32);
#define IDX lin(R(io), 8, R(ji))
  void* store = tvm_tir_store_take(
      R(C), tvm_tir_add_take(tvm_tir_load_take(R(A), IDX), tvm_tir_load_take(R(B), IDX)), IDX);
#undef IDX
  void* body = tvm_tir_serial_take(
      R(io), tvm_tir_int(0), tvm_tir_int(n / 8),
      tvm_tir_for_take(R(ji), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_FOR_VECTORIZED, store));
  void* f = tvm_tir_func_take("add", tvm_tir_list_take(R(A), R(B), R(C)), body);
  RELEASE_ALL(A, B, C, io, ji);
  return f;
}

/* C[I, J] = C[I, J] + A[I, K] * B[K, J] (index expressions consumed, each used once per copy) */
static void* mac_store(void* A, void* B, void* C, void* (*I)(void*), void* (*J)(void*),
                       void* (*K)(void*), void* ctx) {
  return tvm_tir_store_take(
      R(C),
      tvm_tir_add_take(tvm_tir_load_take(R(C), I(ctx), J(ctx)),
                       tvm_tir_mul_take(tvm_tir_load_take(R(A), I(ctx), K(ctx)),
                                        tvm_tir_load_take(R(B), K(ctx), J(ctx)))),
      I(ctx), J(ctx));
}

/* Loop variables of the matmul kernels. */
/* naive: i, k, j = jo*8 + ji; tiled: i = io*TI + i, j = bj*TJ + jj*8 + ji, k = ko*TK + kk */
typedef struct {
  tvm_tir_var_obj *i, *k, *jo, *ji;
  tvm_tir_var_obj *io, *bj, *ko, *kk, *jj;
} mm_vars;

static void* naive_i(void* c) { return R(((mm_vars*)c)->i); }
static void* naive_k(void* c) { return R(((mm_vars*)c)->k); }
static void* naive_j(void* c) { return lin(R(((mm_vars*)c)->jo), 8, R(((mm_vars*)c)->ji)); }
static void* tiled_i(void* c) { return lin(R(((mm_vars*)c)->io), CG_TILE_I, R(((mm_vars*)c)->i)); }
static void* tiled_k(void* c) { return lin(R(((mm_vars*)c)->ko), CG_TILE_K, R(((mm_vars*)c)->kk)); }
static void* tiled_j(void* c) {
  mm_vars* v = c;
  return lin(R(v->bj), CG_TILE_J, lin(R(v->jj), 8, R(v->ji)));
}

/* for <outer> in extent: for <inner> in 8 (vectorized): body (var references taken here) */
static void* j_loops(void* outer, int64_t extent, void* inner, void* body) {
  return tvm_tir_serial_take(
      R(outer), tvm_tir_int(0), tvm_tir_int(extent),
      tvm_tir_for_take(R(inner), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_FOR_VECTORIZED, body));
}

/* matmul(A, B, C), n x n row-major, the loops of cg_baseline_matmul:
 *   for i: { for j0o, j0i(vec 8): C[i, j] = 0;
 *            for k: for jo: for ji (vec 8): C[i, j] += A[i, k] * B[k, j] } */
static void* make_matmul(int64_t n) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, n, n);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, n, n);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, n, n);
  mm_vars v = {.i = tvm_tir_var("i", TVM_TIR_INT32),
               .k = tvm_tir_var("k", TVM_TIR_INT32),
               .jo = tvm_tir_var("jo", TVM_TIR_INT32),
               .ji = tvm_tir_var("ji", TVM_TIR_INT32)};
  tvm_tir_var_obj* zo = tvm_tir_var("j0o", TVM_TIR_INT32);
  tvm_tir_var_obj* zi = tvm_tir_var("j0i", TVM_TIR_INT32);
  void* init = j_loops(zo, n / 8, zi,
                       tvm_tir_store_take(R(C), tvm_tir_f32(0), R(v.i), lin(R(zo), 8, R(zi))));
  void* update = tvm_tir_serial_take(
      R(v.k), tvm_tir_int(0), tvm_tir_int(n),
      j_loops(v.jo, n / 8, v.ji, mac_store(A, B, C, naive_i, naive_j, naive_k, &v)));
  void* body =
      tvm_tir_serial_take(R(v.i), tvm_tir_int(0), tvm_tir_int(n), tvm_tir_seq_take(init, update));
  void* f = tvm_tir_func_take("matmul", tvm_tir_list_take(R(A), R(B), R(C)), body);
  RELEASE_ALL(A, B, C, v.i, v.k, v.jo, v.ji, zo, zi);
  return f;
}

/* matmul_tiled(A, B, C), the loops of cg_baseline_matmul_tiled:
 *   for io in n/TI: for bj in n/TJ: {
 *     for i0 in TI: for j0o in TJ/8: for j0i (vec 8): C[io*TI+i0, bj*TJ+j0o*8+j0i] = 0
 *     for ko in n/TK: for i in TI: for kk in TK: for jj in TJ/8: for ji (vec 8):
 *       C[I, J] += A[I, K] * B[K, J] } */
static void* make_matmul_tiled(int64_t n) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, n, n);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, n, n);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, n, n);
  mm_vars v = {.i = tvm_tir_var("i", TVM_TIR_INT32),
               .ji = tvm_tir_var("ji", TVM_TIR_INT32),
               .io = tvm_tir_var("io", TVM_TIR_INT32),
               .bj = tvm_tir_var("bj", TVM_TIR_INT32),
               .ko = tvm_tir_var("ko", TVM_TIR_INT32),
               .kk = tvm_tir_var("kk", TVM_TIR_INT32),
               .jj = tvm_tir_var("jj", TVM_TIR_INT32)};
  tvm_tir_var_obj* i0 = tvm_tir_var("i0", TVM_TIR_INT32);
  tvm_tir_var_obj* zo = tvm_tir_var("j0o", TVM_TIR_INT32);
  tvm_tir_var_obj* zi = tvm_tir_var("j0i", TVM_TIR_INT32);
  void* zero = tvm_tir_store_take(R(C), tvm_tir_f32(0), lin(R(v.io), CG_TILE_I, R(i0)),
                                  lin(R(v.bj), CG_TILE_J, lin(R(zo), 8, R(zi))));
  void* init = tvm_tir_serial_take(R(i0), tvm_tir_int(0), tvm_tir_int(CG_TILE_I),
                                   j_loops(zo, CG_TILE_J / 8, zi, zero));
  void* inner =
      j_loops(v.jj, CG_TILE_J / 8, v.ji, mac_store(A, B, C, tiled_i, tiled_j, tiled_k, &v));
  void* update = tvm_tir_serial_take(
      R(v.ko), tvm_tir_int(0), tvm_tir_int(n / CG_TILE_K),
      tvm_tir_serial_take(
          R(v.i), tvm_tir_int(0), tvm_tir_int(CG_TILE_I),
          tvm_tir_serial_take(R(v.kk), tvm_tir_int(0), tvm_tir_int(CG_TILE_K), inner)));
  void* body = tvm_tir_serial_take(
      R(v.io), tvm_tir_int(0), tvm_tir_int(n / CG_TILE_I),
      tvm_tir_serial_take(R(v.bj), tvm_tir_int(0), tvm_tir_int(n / CG_TILE_J),
                          tvm_tir_seq_take(init, update)));
  void* f = tvm_tir_func_take("matmul_tiled", tvm_tir_list_take(R(A), R(B), R(C)), body);
  RELEASE_ALL(A, B, C, v.i, v.ji, v.io, v.bj, v.ko, v.kk, v.jj, i0, zo, zi);
  return f;
}

/* ---- Compilation ---------------------------------------------------------------------------- */
typedef struct {
  void* mod;       /* ffi.Module (llvm_jit) */
  void* fn;        /* its function */
  double total_ms; /* lower + build + first get_function, median */
  double llvm_ms;  /* build + first get_function, median */
} compiled;

static void print_error(const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "!! %s: %s: %s\n", what, e ? tvm_ffi_error_kind(e) : "?",
          e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
}

/* Compile f COMPILE_REPEATS times from scratch; keeps the last module. 0 or -1 (reported). */
static int compile_kernel(const void* f, const char* name, compiled* out) {
  double total[COMPILE_REPEATS], llvm[COMPILE_REPEATS];
  memset(out, 0, sizeof(*out));
  for (int r = 0; r < COMPILE_REPEATS; ++r) {
    tvm_ffi_release(out->fn);
    tvm_ffi_release(out->mod);
    out->fn = out->mod = NULL;
    double t0 = bench_now_ns();
    void* g = tvm_tir_lower(f, NULL);
    if (!g) {
      print_error(name);
      return -1;
    }
    double t1 = bench_now_ns();
    out->mod = tvm_codegen_build(g, "llvm", NULL);
    tvm_ffi_release(g);
    if (!out->mod || tvm_ffi_module_get_function(out->mod, name, false, &out->fn) != 0 ||
        !out->fn) {
      print_error(name);
      tvm_ffi_release(out->mod);
      out->mod = NULL;
      return -1;
    }
    double t2 = bench_now_ns();
    total[r] = (t2 - t0) / 1e6;
    llvm[r] = (t2 - t1) / 1e6;
  }
  qsort(total, COMPILE_REPEATS, sizeof(double), bench_cmp_double);
  qsort(llvm, COMPILE_REPEATS, sizeof(double), bench_cmp_double);
  out->total_ms = total[COMPILE_REPEATS / 2];
  out->llvm_ms = llvm[COMPILE_REPEATS / 2];
  return 0;
}

static void compiled_free(compiled* c) {
  tvm_ffi_release(c->fn);
  tvm_ffi_release(c->mod);
  c->fn = c->mod = NULL;
}

/* ---- Data ----------------------------------------------------------------------------------- */
static void* new_tensor(int32_t ndim, int64_t n) {
  int64_t shape[2] = {n, n};
  void* t = tvm_ffi_tensor_empty(shape, ndim, TVM_TIR_FLOAT32, (DLDevice){kDLCPU, 0});
  if (!t) print_error("tensor_empty");
  return t;
}
static float* tensor_data(void* t) { return (float*)tvm_ffi_tensor_dl(t)->data; }

/* Random non-zero values in [-99/64, 99/64]. */
static void fill_random(float* p, int64_t n, unsigned seed) {
  for (int64_t e = 0; e < n; ++e) {
    int r = (int)(rand_r(&seed) % 199) - 99;
    p[e] = (float)(r == 0 ? 42 : r) / 64.0f;
  }
}

static int call3(void* fn, void* a, void* b, void* c) {
  TVMFFIAny args[3] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b), tvm_ffi_any_obj(c)};
  TVMFFIAny res;
  int rc = tvm_ffi_function_call(fn, args, 3, &res);
  if (rc != 0) print_error("call");
  tvm_ffi_any_release(&res);
  return rc;
}

/* ---- Table ---------------------------------------------------------------------------------- */
typedef struct {
  char label[96];
  double ours, base; /* base < 0: no baseline */
  const char* unit;
  double max_abs, rel; /* rel < 0: not checked */
  int failed;          /* a call failed */
  double share;        /* > 0: a share of the row above, shown in the ratio column */
} row;

enum { MAX_ROWS = 16 };
static row g_rows[MAX_ROWS];
static int g_nrows;

static row* add_row(const char* label, const char* unit) {
  row* r = &g_rows[g_nrows++];
  memset(r, 0, sizeof(*r));
  snprintf(r->label, sizeof(r->label), "%s", label);
  r->unit = unit;
  r->base = -1;
  r->rel = -1;
  return r;
}

static void compare(const float* ours, const float* base, int64_t n, row* r) {
  double max_abs = 0, max_base = 0;
  for (int64_t e = 0; e < n; ++e) {
    double d = fabs((double)ours[e] - (double)base[e]);
    if (d > max_abs || isnan(d)) max_abs = isnan(d) ? INFINITY : d;
    if (fabs((double)base[e]) > max_base) max_base = fabs((double)base[e]);
  }
  r->max_abs = max_abs;
  r->rel = max_abs / (max_base > 0 ? max_base : 1.0);
}

static void print_table(void) {
  printf("| %-68s | %10s | %10s | %-7s | %9s | %12s | %-12s |\n", "kernel", "ours", "gcc -O3",
         "unit", "ours/gcc", "max abs diff", "check");
  printf("|%s|------------|------------|---------|-----------|--------------|--------------|\n",
         "----------------------------------------------------------------------");
  for (int k = 0; k < g_nrows; ++k) {
    const row* r = &g_rows[k];
    char base[32] = "-", ratio[32] = "-", diff[32] = "-";
    const char* check = "-";
    if (r->base >= 0) {
      snprintf(base, sizeof(base), "%.2f", r->base);
      snprintf(ratio, sizeof(ratio), "%.2f", r->base > 0 ? r->ours / r->base : 0.0);
    }
    if (r->share > 0) snprintf(ratio, sizeof(ratio), "%.0f%%", 100.0 * r->share);
    if (r->rel >= 0) {
      snprintf(diff, sizeof(diff), "%.3g", r->max_abs);
      check = r->rel <= 1e-3 ? "ok" : "CHECK FAILED";
    }
    if (r->failed) check = "CALL FAILED";
    printf("| %-68s | %10.2f | %10s | %-7s | %9s | %12s | %-12s |\n", r->label, r->ours, base,
           r->unit, ratio, diff, check);
  }
}

/* ---- Benchmarks ----------------------------------------------------------------------------- */
static void bench_add(int64_t n, compiled* c) {
  char label[96];
  snprintf(label, sizeof(label), "f32 add C=A+B, n=%lldM, inner loop vectorized x8",
           (long long)(n >> 20));
  row* r = add_row(label, "GB/s");
  void* f = make_add(n);
  if (!f || compile_kernel(f, "add", c) != 0) {
    if (!f) print_error("make_add");
    r->failed = 1;
    tvm_ffi_release(f);
    return;
  }
  tvm_ffi_release(f);
  void *A = new_tensor(1, n), *B = new_tensor(1, n), *C = new_tensor(1, n), *D = new_tensor(1, n);
  if (A && B && C && D) {
    float *a = tensor_data(A), *b = tensor_data(B), *cd = tensor_data(C), *d = tensor_data(D);
    fill_random(a, n, 11);
    fill_random(b, n, 12);
    int bad = call3(c->fn, A, B, C); /* warm-up */
    cg_baseline_add(a, b, d, n);
    double t_ours = 0, t_base = 0;
    BENCH_MEDIAN_NS(t_ours, ADD_REPEATS, 1, bad |= call3(c->fn, A, B, C));
    BENCH_MEDIAN_NS(t_base, ADD_REPEATS, 1, cg_baseline_add(a, b, d, n); BENCH_KEEP(d));
    double bytes = 3.0 * 4.0 * (double)n;
    r->ours = bytes / t_ours; /* bytes per ns = GB/s */
    r->base = bytes / t_base;
    r->failed = bad != 0;
    compare(cd, d, n, r);
  } else {
    r->failed = 1;
  }
  RELEASE_ALL(A, B, C, D);
}

/* One matmul row at size n. Returns 1 when a single run took longer than kMaxRunNs (nothing
 * recorded: the caller retries with a smaller n), else 0. */
static int bench_matmul_n(int tiled, int64_t n, row* r, compiled* c) {
  void* f = tiled ? make_matmul_tiled(n) : make_matmul(n);
  const char* name = tiled ? "matmul_tiled" : "matmul";
  if (!f || compile_kernel(f, name, c) != 0) {
    if (!f) print_error("make_matmul");
    r->failed = 1;
    tvm_ffi_release(f);
    return 0;
  }
  tvm_ffi_release(f);
  void *A = new_tensor(2, n), *B = new_tensor(2, n), *C = new_tensor(2, n), *D = new_tensor(2, n);
  int too_slow = 0;
  if (A && B && C && D) {
    float *a = tensor_data(A), *b = tensor_data(B), *cd = tensor_data(C), *d = tensor_data(D);
    fill_random(a, n * n, 21);
    fill_random(b, n * n, 22);
    void (*baseline)(const float* restrict, const float* restrict, float* restrict, int64_t) =
        tiled ? cg_baseline_matmul_tiled : cg_baseline_matmul;
    double t0 = bench_now_ns();
    int bad = call3(c->fn, A, B, C); /* warm-up */
    double t1 = bench_now_ns();
    baseline(a, b, d, n);
    double t2 = bench_now_ns();
    if (t1 - t0 > kMaxRunNs || t2 - t1 > kMaxRunNs) {
      too_slow = 1;
    } else {
      double t_ours = 0, t_base = 0;
      BENCH_MEDIAN_NS(t_ours, MATMUL_REPEATS, 1, bad |= call3(c->fn, A, B, C));
      BENCH_MEDIAN_NS(t_base, MATMUL_REPEATS, 1, baseline(a, b, d, n); BENCH_KEEP(d));
      double flops = 2.0 * (double)n * (double)n * (double)n;
      r->ours = flops / t_ours; /* flop per ns = GFLOP/s */
      r->base = flops / t_base;
      r->failed = bad != 0;
      compare(cd, d, n * n, r);
    }
  } else {
    r->failed = 1;
  }
  RELEASE_ALL(A, B, C, D);
  if (too_slow) compiled_free(c);
  return too_slow;
}

static void bench_matmul(int tiled, compiled* c) {
  const char* what = tiled ? "tiled matmul f32 (64x256 i/j tiles, k by 64, j vec x8)"
                           : "naive matmul f32 (i, k, j; j vectorized x8)";
  char label[96];
  row* r = add_row("", "GFLOP/s");
  int64_t n = 1024;
  if (bench_matmul_n(tiled, n, r, c)) {
    n = 512;
    bench_matmul_n(tiled, n, r, c);
    snprintf(label, sizeof(label), "%s, %lld^3 (1024>3s)", what, (long long)n);
  } else {
    snprintf(label, sizeof(label), "%s, %lld^3", what, (long long)n);
  }
  snprintf(r->label, sizeof(r->label), "%s", label);
}

static void compile_rows(const char* kernel, const compiled* c) {
  char label[96];
  snprintf(label, sizeof(label), "compile %s: total (lower + LLVM O3 + JIT + lookup)", kernel);
  row* r = add_row(label, "ms");
  r->ours = c->total_ms;
  r->failed = c->fn == NULL;
  snprintf(label, sizeof(label), "compile %s: LLVM share (build + first lookup)", kernel);
  r = add_row(label, "ms");
  r->ours = c->llvm_ms;
  r->share = c->total_ms > 0 ? c->llvm_ms / c->total_ms : 0;
  r->failed = c->fn == NULL;
}

int main(int argc, char** argv) {
  int64_t n_add = argc > 1 ? atoll(argv[1]) : (int64_t)16 << 20;
  n_add = n_add / 8 * 8;
  if (n_add < 8) n_add = 8;
  char load[64] = "?";
  FILE* lf = fopen("/proc/loadavg", "r");
  if (lf) {
    if (!fgets(load, sizeof(load), lf)) snprintf(load, sizeof(load), "?");
    fclose(lf);
    load[strcspn(load, "\n")] = 0;
  }
  tvm_codegen_options o = tvm_codegen_options_default();
  printf("libcodegen %s (LLVM O%d, host CPU %s, fast-math %s) vs gcc -O3 -march=native; "
         "loadavg %s\n\n",
         tvm_codegen_version(), o.opt_level, o.host_cpu ? "on" : "off", o.fast_math ? "on" : "off",
         load);

  compiled c_add = {0}, c_mm = {0}, c_tiled = {0};
  bench_add(n_add, &c_add);
  bench_matmul(0, &c_mm);
  bench_matmul(1, &c_tiled);
  compile_rows("add", &c_add);
  compile_rows("matmul", &c_mm);
  compile_rows("matmul_tiled", &c_tiled);
  print_table();
  printf("\nCompile rows: the ratio column of an LLVM-share row is its share of the total.\n");
  compiled_free(&c_add);
  compiled_free(&c_mm);
  compiled_free(&c_tiled);
  tvm_ffi_error_clear();
  return 0;
}

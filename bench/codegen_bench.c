/*
 * codegen_bench.c: kernels built with the TIR builder, lowered with tvm_tir_lower and compiled
 * by libcodegen (LLVM O3, host CPU, ORC JIT), against baselines measured in the same run:
 *   - float32 elementwise add C = A + B (16M elements), inner loop vectorized x8: GB/s
 *     (3 * 4 bytes * n / time), vs the same loop in C compiled by gcc -O3 -march=native
 *     (codegen_baseline.c)
 *   - naive matmul in loop order i, k, j (j split 8-wide and vectorized): GFLOP/s (2 n^3 / time),
 *     vs the same loops in C (gcc)
 *   - the same matmul tiled (i/j blocks, k steps outside the block's rows), vs C (gcc)
 *   - the scheduled matmul (make_matmul_sched: parallel row blocks, packed B panels, a register
 *     tile of 4 rows x 2 vector registers, T.fma) on 1 and 2 threads, vs OpenBLAS cblas_sgemm on
 *     1 and 2 threads, and its own 2-thread / 1-thread speedup. The thread pool's size is read
 *     once per process, so each of these runs in a child process: this program re-executed as
 *     `codegen_bench --matmul-child ours|openblas THREADS` with TVM_NUM_THREADS and
 *     OPENBLAS_NUM_THREADS set, printing "GFLOP/s max_abs rel threads"; the children alternate
 *     over 5 rounds and each row keeps its best round (`n/a` rows without OpenBLAS)
 *   - the add and the naive and tiled matmuls (512^3) compiled with --bounds-check
 *     (tvm_tir_lower_options.bounds_check: every access guarded, IndexError outside), against
 *     the same kernels without it, timed alternately: the cost of the checks
 *   - compile time per kernel: total (lower + LLVM O3 + JIT + first lookup) and the LLVM share;
 *     for the scheduled matmul also parsing examples/matmul.py (TVMScript -> checked IR)
 *     (tvm_codegen_build + first get_function), in ms, median of 3 compilations.
 * Medians of repeated runs after one warm-up run; results are checked against the gcc baselines
 * (normwise relative difference max|ours - gcc| / max|gcc| <= 1e-3, else "CHECK FAILED"; the
 * inputs are small multiples of 1/64, so every matmul sum here is exact in float32 and any
 * indexing mistake shows). Both libcodegen (its fp_contract option, on by default) and gcc
 * (-ffp-contract=fast is its GNU C default) contract a*b+c into FMA; the scheduled matmul also
 * writes T.fma explicitly.
 * `codegen_bench --print-script` prints the scheduled matmul of examples/matmul.py as TVMScript
 * (`--print-script avx2`: that of examples/matmul_avx2.py); `--check-example` tells whether each
 * file parses to its kernel (structural equality; lines under the table say the same).
 */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <tvm/codegen/codegen.h>
#include <tvm/tir/tir.h>
#include <unistd.h>

#ifdef TVM_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#undef I /* from <complex.h>, which OpenBLAS's cblas.h includes */
/* OpenBLAS's own (cblas.h declares them in OpenBLAS's copy, not in netlib's). */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
#endif
#ifdef TVM_BENCH_HAVE_SCRIPT
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#endif

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

/* The scheduled matmul's tile sizes. */
typedef struct {
  int64_t mb; /* rows of A and C per parallel task */
  int64_t mr; /* rows of the register tile (unrolled) */
  int64_t nr; /* columns of the register tile and of a packed B panel (vectorized) */
} mm_sched;

/* The register tile for the host: 4 rows x 2 vector registers of float32 = 8 accumulators, plus
 * 2 registers of B and one broadcast of A, which fits the 16 ymm registers of AVX2 without
 * spilling and keeps 8 independent FMA chains in flight (2 FMA units x 4 cycles of latency).
 * Columns: 32 with AVX-512 (LLVM uses zmm registers; examples/matmul.py), else 16
 * (examples/matmul_avx2.py). TVM_BENCH_MATMUL_NR=16|32 picks one, e.g. together with
 * TVM_CODEGEN_CPU=haswell to time the AVX2 build on an AVX-512 machine. */
static mm_sched host_sched(void) {
  int lanes = 8;
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx512f")) lanes = 16;
#endif
  const char* nr = getenv("TVM_BENCH_MATMUL_NR");
  if (nr && (strcmp(nr, "16") == 0 || strcmp(nr, "32") == 0)) lanes = atoi(nr) / 2;
  return (mm_sched){.mb = 256, .mr = 4, .nr = 2 * lanes};
}

static void* var32(const char* name) { return tvm_tir_var(name, TVM_TIR_INT32); }

/* for <var> in <kind>(extent): body */
static void* loop(void* var, int64_t extent, tvm_tir_for_kind kind, void* body) {
  return tvm_tir_for_take(R(var), tvm_tir_int(0), tvm_tir_int(extent), kind, body);
}

/* A (d0, d1) float32 buffer in scope "local" (its data Var "<name>_data"), and its Allocate +
 * DeclBuffer around body. */
static tvm_tir_buffer_obj* local_decl(const char* name, int64_t d0, int64_t d1) {
  char data_name[64];
  snprintf(data_name, sizeof(data_name), "%s_data", name);
  tvm_tir_var_obj* data = tvm_tir_ptr_var(data_name, TVM_TIR_FLOAT32, "local");
  void* shape = tvm_tir_list_take(tvm_tir_int(d0), tvm_tir_int(d1));
  tvm_tir_buffer_obj* b = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){
      .data = data, .dtype = TVM_TIR_FLOAT32, .shape = shape, .name = name});
  RELEASE_ALL(data, shape);
  return b;
}
static void* local_alloc(tvm_tir_buffer_obj* buf, int64_t d0, int64_t d1, void* body) {
  return tvm_tir_allocate_takev(R(buf->data), TVM_TIR_FLOAT32, 2,
                                (void*[]){tvm_tir_int(d0), tvm_tir_int(d1)},
                                tvm_tir_decl_buffer_take(R(buf), body));
}

/* The loops around a register tile, for the index helpers below. */
typedef struct {
  mm_sched s;
  tvm_tir_var_obj *io, *jo, *im;
} mm_loops;

/* Row io*mb + im*mr + ii and column jo*nr + jj of C (and A's row, B's column). */
static void* mm_row(const mm_loops* l, void* ii) {
  return tvm_tir_add_take(lin(R(l->io), l->s.mb, tvm_tir_mul_take(R(l->im), tvm_tir_int(l->s.mr))),
                          R(ii));
}
static void* mm_col(const mm_loops* l, void* jj) { return lin(R(l->jo), l->s.nr, R(jj)); }

/* for ii in T.unroll(mr): for jj in T.vectorized(nr): body */
static void* tile_loops(const mm_loops* l, void* ii, void* jj, void* body) {
  return loop(ii, l->s.mr, TVM_TIR_FOR_UNROLLED, loop(jj, l->s.nr, TVM_TIR_FOR_VECTORIZED, body));
}

/* matmul_sched(A, B, C), n x n row-major, n a multiple of s.mb and s.nr, s.mb of s.mr:
 *   for io in T.parallel(n / mb):                 # row blocks, one chunk per thread
 *     for jo in range(n / nr):                     # column panels
 *       B_panel[k, jp] = B[k, jo*nr + jp]          # the panel, contiguous (k, jp vectorized)
 *       for im in range(mb / mr):                  # register tiles down the row block
 *         C_local[i0, j0] = 0                      # (i0 unrolled, j0 vectorized: registers)
 *         for k in range(n):
 *           for ii in T.unroll(mr): for jj in T.vectorized(nr):
 *             C_local[ii, jj] = T.fma(A[row, k], B_panel[k, jj], C_local[ii, jj])
 *         C[row, col] = C_local[i1, j1]
 * (examples/matmul.py explains the choices.) */
static void* make_matmul_sched(int64_t n, mm_sched s) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, n, n);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, n, n);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, n, n);
  tvm_tir_buffer_obj* Bp = local_decl("B_panel", n, s.nr);
  tvm_tir_buffer_obj* Cl = local_decl("C_local", s.mr, s.nr);
  mm_loops l = {s, var32("io"), var32("jo"), var32("im")};
  void *kp = var32("kp"), *jp = var32("jp"), *k = var32("k");
  void *i0 = var32("i0"), *j0 = var32("j0"), *ii = var32("ii"), *jj = var32("jj");
  void *i1 = var32("i1"), *j1 = var32("j1");
  void* pack = loop(kp, n, TVM_TIR_FOR_SERIAL,
                    loop(jp, s.nr, TVM_TIR_FOR_VECTORIZED,
                         tvm_tir_store_take(R(Bp), tvm_tir_load_take(R(B), R(kp), mm_col(&l, jp)),
                                            R(kp), R(jp))));
  void* init = tile_loops(&l, i0, j0, tvm_tir_store_take(R(Cl), tvm_tir_f32(0), R(i0), R(j0)));
  void* fma = tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.fma",
                                tvm_tir_load_take(R(A), mm_row(&l, ii), R(k)),
                                tvm_tir_load_take(R(Bp), R(k), R(jj)),
                                tvm_tir_load_take(R(Cl), R(ii), R(jj)));
  void* update = loop(k, n, TVM_TIR_FOR_SERIAL,
                      tile_loops(&l, ii, jj, tvm_tir_store_take(R(Cl), fma, R(ii), R(jj))));
  void* store = tile_loops(&l, i1, j1,
                           tvm_tir_store_take(R(C), tvm_tir_load_take(R(Cl), R(i1), R(j1)),
                                              mm_row(&l, i1), mm_col(&l, j1)));
  void* tiles = loop(l.im, s.mb / s.mr, TVM_TIR_FOR_SERIAL,
                     local_alloc(Cl, s.mr, s.nr, tvm_tir_seq_take(init, update, store)));
  void* body = loop(l.io, n / s.mb, TVM_TIR_FOR_PARALLEL,
                    loop(l.jo, n / s.nr, TVM_TIR_FOR_SERIAL,
                         local_alloc(Bp, n, s.nr, tvm_tir_seq_take(pack, tiles))));
  void* f = tvm_tir_func_take("matmul_sched", tvm_tir_list_take(R(A), R(B), R(C)), body);
  RELEASE_ALL(A, B, C, Bp, Cl, l.io, l.jo, l.im, kp, jp, k, i0, j0, ii, jj, i1, j1);
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

/* The lowering options of compile_kernel (NULL: the defaults; the bounds-check rows set it). */
static const tvm_tir_lower_options* g_lower;

/* Compile f `repeats` (<= COMPILE_REPEATS) times from scratch; keeps the last module. 0 or -1
 * (reported). */
static int compile_kernel(const void* f, const char* name, int repeats, compiled* out) {
  double total[COMPILE_REPEATS], llvm[COMPILE_REPEATS];
  memset(out, 0, sizeof(*out));
  for (int r = 0; r < repeats; ++r) {
    tvm_ffi_release(out->fn);
    tvm_ffi_release(out->mod);
    out->fn = out->mod = NULL;
    double t0 = bench_now_ns();
    void* g = tvm_tir_lower(f, g_lower);
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
  qsort(total, (size_t)repeats, sizeof(double), bench_cmp_double);
  qsort(llvm, (size_t)repeats, sizeof(double), bench_cmp_double);
  out->total_ms = total[repeats / 2];
  out->llvm_ms = llvm[repeats / 2];
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
  double ours, base;     /* base < 0: no baseline */
  const char* base_name; /* what the baseline is ("gcc -O3" unless set) */
  int base_na;           /* the baseline is unavailable here: "n/a" */
  const char* unit;
  double max_abs, rel; /* rel < 0: not checked */
  int failed;          /* a call failed */
  double share;        /* > 0: a share of the row above, shown in the ratio column */
} row;

enum { MAX_ROWS = 20 };
static row g_rows[MAX_ROWS];
static int g_nrows;

static row* add_row(const char* label, const char* unit) {
  row* r = &g_rows[g_nrows++];
  memset(r, 0, sizeof(*r));
  snprintf(r->label, sizeof(r->label), "%s", label);
  r->unit = unit;
  r->base = -1;
  r->base_name = "gcc -O3";
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
  printf("| %-72s | %10s | %10s | %-13s | %-7s | %9s | %12s | %-12s |\n", "kernel", "ours",
         "baseline", "baseline is", "unit", "ours/base", "max abs diff", "check");
  printf("|%s|------------|------------|---------------|---------|-----------|--------------|"
         "--------------|\n",
         "--------------------------------------------------------------------------");
  for (int k = 0; k < g_nrows; ++k) {
    const row* r = &g_rows[k];
    char base[32] = "-", ratio[32] = "-", diff[32] = "-";
    const char* check = "-";
    if (r->base_na) {
      snprintf(base, sizeof(base), "n/a");
      snprintf(ratio, sizeof(ratio), "n/a");
    } else if (r->base >= 0) {
      snprintf(base, sizeof(base), "%.2f", r->base);
      snprintf(ratio, sizeof(ratio), "%.2f", r->base > 0 ? r->ours / r->base : 0.0);
    }
    if (r->share > 0) snprintf(ratio, sizeof(ratio), "%.0f%%", 100.0 * r->share);
    if (r->rel >= 0) {
      snprintf(diff, sizeof(diff), "%.3g", r->max_abs);
      check = r->rel <= 1e-3 ? "ok" : "CHECK FAILED";
    }
    if (r->failed) check = "CALL FAILED";
    printf("| %-72s | %10.2f | %10s | %-13s | %-7s | %9s | %12s | %-12s |\n", r->label, r->ours,
           base, r->base >= 0 || r->base_na ? r->base_name : "-", r->unit, ratio, diff, check);
  }
}

/* ---- Benchmarks ----------------------------------------------------------------------------- */
static void bench_add(int64_t n, compiled* c) {
  char label[96];
  snprintf(label, sizeof(label), "f32 add C=A+B, n=%lldM, inner loop vectorized x8",
           (long long)(n >> 20));
  row* r = add_row(label, "GB/s");
  void* f = make_add(n);
  if (!f || compile_kernel(f, "add", COMPILE_REPEATS, c) != 0) {
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
  if (!f || compile_kernel(f, name, COMPILE_REPEATS, c) != 0) {
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

/* ---- The cost of --bounds-check ------------------------------------------------------------- */
/* Kernel f (name; A, B -> C of ndim 1 or 2, extent n per dimension) compiled with and without
 * tvm_tir_lower_options.bounds_check, timed alternately on the same inputs: a row of the checked
 * kernel's throughput (work / time in `unit`) against the unchecked one, whose outputs must be
 * equal. */
static void bench_checked(const char* label, void* f, const char* name, int ndim, int64_t n,
                          double work, const char* unit) {
  row* r = add_row(label, unit);
  r->base_name = "unchecked";
  compiled plain = {0}, checked = {0};
  tvm_tir_lower_options lo = tvm_tir_lower_options_default();
  lo.bounds_check = true;
  int rc = f ? compile_kernel(f, name, 1, &plain) : -1;
  g_lower = &lo;
  if (rc == 0) rc = compile_kernel(f, name, 1, &checked);
  g_lower = NULL;
  int64_t numel = ndim == 1 ? n : n * n;
  void *A = new_tensor(ndim, n), *B = new_tensor(ndim, n), *C = new_tensor(ndim, n),
       *D = new_tensor(ndim, n);
  if (rc == 0 && A && B && C && D) {
    fill_random(tensor_data(A), numel, 31);
    fill_random(tensor_data(B), numel, 32);
    int bad = call3(checked.fn, A, B, C) | call3(plain.fn, A, B, D); /* warm-up */
    double t_checked = 0, t_plain = 0;
    for (int round = 0; round < 2; ++round) { /* alternate, keep each side's best round */
      double tc = 0, tp = 0;
      BENCH_MEDIAN_NS(tc, MATMUL_REPEATS, 1, bad |= call3(checked.fn, A, B, C));
      BENCH_MEDIAN_NS(tp, MATMUL_REPEATS, 1, bad |= call3(plain.fn, A, B, D));
      if (round == 0 || tc < t_checked) t_checked = tc;
      if (round == 0 || tp < t_plain) t_plain = tp;
    }
    r->ours = work / t_checked;
    r->base = work / t_plain;
    r->failed = bad != 0;
    compare(tensor_data(C), tensor_data(D), numel, r);
  } else {
    r->failed = 1;
  }
  RELEASE_ALL(A, B, C, D);
  compiled_free(&plain);
  compiled_free(&checked);
  tvm_ffi_release(f);
}

/* ---- Scheduled matmul vs OpenBLAS, one thread count per process ----------------------------- */
enum { SCHED_N = 1024, SCHED_REPEATS = 9 };

/* A child's result. */
typedef struct {
  double gflops, max_abs, rel;
  int threads; /* as the child saw it (pool size / OpenBLAS threads) */
  int ok;
} child_result;

#ifdef TVM_BENCH_HAVE_OPENBLAS
static void sgemm(const float* a, const float* b, float* c, int n) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
#endif

/* In the child: time `what` ("ours": the scheduled matmul on the pool; "openblas": cblas_sgemm)
 * at SCHED_N, median of SCHED_REPEATS after a warm-up; check against the gcc tiled matmul and
 * print "GFLOP/s max_abs rel threads". Returns the exit status. */
static int matmul_child(const char* what, int threads) {
  int64_t n = SCHED_N;
  int ours = strcmp(what, "ours") == 0;
  compiled c = {0};
  if (ours) {
    void* f = make_matmul_sched(n, host_sched());
    int rc = f ? compile_kernel(f, "matmul_sched", 1, &c) : (print_error("make_matmul_sched"), -1);
    tvm_ffi_release(f);
    if (rc != 0) return 1;
  } else {
#ifdef TVM_BENCH_HAVE_OPENBLAS
    openblas_set_num_threads(threads);
#else
    fprintf(stderr, "!! built without OpenBLAS\n");
    return 1;
#endif
  }
  void *A = new_tensor(2, n), *B = new_tensor(2, n), *C = new_tensor(2, n), *D = new_tensor(2, n);
  int bad = !(A && B && C && D);
  if (!bad) {
    float *a = tensor_data(A), *b = tensor_data(B), *cd = tensor_data(C), *d = tensor_data(D);
    fill_random(a, n * n, 21);
    fill_random(b, n * n, 22);
    double t = 0;
    if (ours) {
      bad = call3(c.fn, A, B, C); /* warm-up */
      BENCH_MEDIAN_NS(t, SCHED_REPEATS, 1, bad |= call3(c.fn, A, B, C));
      threads = tvm_ffi_parallel_num_threads();
    } else {
#ifdef TVM_BENCH_HAVE_OPENBLAS
      sgemm(a, b, cd, (int)n);
      BENCH_MEDIAN_NS(t, SCHED_REPEATS, 1, sgemm(a, b, cd, (int)n); BENCH_KEEP(cd));
      threads = openblas_get_num_threads();
#endif
    }
    cg_baseline_matmul_tiled(a, b, d, n);
    row r;
    compare(cd, d, n * n, &r);
    printf("%.6g %.6g %.6g %d\n", 2.0 * (double)(n * n * n) / t, r.max_abs, r.rel, threads);
  }
  RELEASE_ALL(A, B, C, D);
  compiled_free(&c);
  return bad ? 1 : 0;
}

extern char** environ;

/* Run `codegen_bench --matmul-child what threads` with TVM_NUM_THREADS and OPENBLAS_NUM_THREADS
 * set to threads, and read its line. out->ok = 0 when it failed (reported). */
static void run_matmul_child(const char* what, int threads, child_result* out) {
  memset(out, 0, sizeof(*out));
  char nt[16], tvm_env[48], blas_env[48];
  snprintf(nt, sizeof(nt), "%d", threads);
  snprintf(tvm_env, sizeof(tvm_env), "TVM_NUM_THREADS=%d", threads);
  snprintf(blas_env, sizeof(blas_env), "OPENBLAS_NUM_THREADS=%d", threads);
  size_t nenv = 0;
  while (environ[nenv]) ++nenv;
  char** env = malloc((nenv + 3) * sizeof(char*));
  int fd[2] = {-1, -1};
  if (!env || pipe(fd) != 0) {
    fprintf(stderr, "!! matmul child: out of resources\n");
    free(env);
    return;
  }
  size_t e = 0;
  for (size_t i = 0; i < nenv; ++i)
    if (strncmp(environ[i], "TVM_NUM_THREADS=", 16) != 0 &&
        strncmp(environ[i], "OPENBLAS_NUM_THREADS=", 21) != 0)
      env[e++] = environ[i];
  env[e++] = tvm_env;
  env[e++] = blas_env;
  env[e] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, fd[0]);
  posix_spawn_file_actions_addclose(&fa, fd[1]);
  char* argv[] = {"codegen_bench", "--matmul-child", (char*)what, nt, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  close(fd[1]);
  char buf[256] = {0};
  size_t len = 0;
  ssize_t got;
  while (rc == 0 && len < sizeof(buf) - 1 &&
         (got = read(fd[0], buf + len, sizeof(buf) - 1 - len)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    len += (size_t)got;
  }
  close(fd[0]);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  out->ok =
      rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
      sscanf(buf, "%lf %lf %lf %d", &out->gflops, &out->max_abs, &out->rel, &out->threads) == 4;
  if (!out->ok)
    fprintf(stderr, "!! matmul child %s %d failed\n", what, threads);
  else if (out->threads != threads)
    fprintf(stderr, "!! matmul child %s ran %d threads, not %d\n", what, out->threads, threads);
}

/* The scheduled matmul rows: ours on 1 and 2 threads vs OpenBLAS on as many, and the speedup.
 * Other processes' load slows whichever child it meets, so the children alternate (ours and
 * OpenBLAS, 1 and 2 threads) over SCHED_ROUNDS rounds and each row keeps its best round.
 * Sets *out_ratio_1t (ours / OpenBLAS, 1 thread; < 0 without OpenBLAS) and *out_speedup. */
enum { SCHED_ROUNDS = 5 };
static void keep_best(child_result* best, const child_result* r) {
  if (r->ok && (!best->ok || r->gflops > best->gflops)) *best = *r;
}
static void bench_matmul_sched(double* out_ratio_1t, double* out_speedup) {
  mm_sched s = host_sched();
  child_result ours[2] = {{0}}, blas[2] = {{0}}, got;
  for (int round = 0; round < SCHED_ROUNDS; ++round) {
    for (int t = 0; t < 2; ++t) {
      run_matmul_child("ours", t + 1, &got);
      keep_best(&ours[t], &got);
#ifdef TVM_BENCH_HAVE_OPENBLAS
      run_matmul_child("openblas", t + 1, &got);
      keep_best(&blas[t], &got);
#endif
    }
  }
  char label[96];
  row* first = NULL;
  for (int t = 0; t < 2; ++t) {
    snprintf(label, sizeof(label),
             "scheduled matmul f32 (%lldx%lld tile, B panels), %lld^3, %d thread%s",
             (long long)s.mr, (long long)s.nr, (long long)SCHED_N, t + 1, t ? "s" : "");
    row* r = add_row(label, "GFLOP/s");
    if (!first) first = r;
    r->base_name = t ? "OpenBLAS 2t" : "OpenBLAS 1t";
    r->ours = ours[t].gflops;
    r->failed = !ours[t].ok || ours[t].threads != t + 1;
    if (ours[t].ok) {
      r->rel = ours[t].rel;
      r->max_abs = ours[t].max_abs;
    }
    if (blas[t].ok && blas[t].threads == t + 1)
      r->base = blas[t].gflops;
    else
      r->base_na = 1;
  }
  row* r = add_row("scheduled matmul: 2 threads / 1 thread (speedup)", "GFLOP/s");
  r->base_name = "ours 1t";
  r->ours = ours[1].gflops;
  r->base = ours[0].gflops;
  r->failed = !ours[0].ok || !ours[1].ok;
  *out_ratio_1t = ours[0].ok && first->base > 0 ? ours[0].gflops / first->base : -1;
  *out_speedup = ours[0].ok && ours[0].gflops > 0 ? ours[1].gflops / ours[0].gflops : 0;
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

/* ---- examples/matmul.py --------------------------------------------------------------------- */
#ifdef TVM_BENCH_HAVE_SCRIPT
/* The instances of the schedule in examples/matmul.py (the AVX-512 tile) and
 * examples/matmul_avx2.py (the AVX2 tile). */
typedef struct {
  const char* path;
  mm_sched s;
} example;
static const example kExamples[] = {{TVM_BENCH_EXAMPLE, {.mb = 256, .mr = 4, .nr = 32}},
                                    {TVM_BENCH_EXAMPLE_AVX2, {.mb = 256, .mr = 4, .nr = 16}}};
enum { N_EXAMPLES = sizeof(kExamples) / sizeof(kExamples[0]) };

/* The kernel of kExamples[which] as TVMScript on stdout (the file adds comments and line
 * breaks). */
static int print_script(int which) {
  void* f = make_matmul_sched(SCHED_N, kExamples[which].s);
  void* text = f ? tvm_script_print_obj(f, NULL) : NULL;
  tvm_ffi_release(f);
  if (!text) {
    print_error("print");
    return 1;
  }
  TVMFFIByteArray b = tvm_ffi_str_view(text);
  fwrite(b.data, 1, b.size, stdout);
  tvm_ffi_release(text);
  return 0;
}

/* Whether the file at path parses to make_matmul_sched(SCHED_N, s): 1 equal, 0 not (the report
 * appended to why), -1 error (raised). */
static int check_example(const char* path, mm_sched s, tvm_ffi_strbuf* why) {
  FILE* fp = fopen(path, "rb");
  if (!fp) return tvm_ffi_raise("OSError", "cannot open %s", path);
  tvm_ffi_strbuf text = {0};
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof(chunk), fp)) > 0) tvm_ffi_strbuf_append(&text, chunk, got);
  fclose(fp);
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = path;
  void* parsed = tvm_script_parse(text.data, text.size, &opts);
  tvm_ffi_strbuf_free(&text);
  void* built = parsed ? make_matmul_sched(SCHED_N, s) : NULL;
  int eq = -1;
  if (built) {
    TVMFFIAny l = tvm_ffi_any_obj(parsed), r = tvm_ffi_any_obj(built);
    eq = tvm_script_structural_equal_report(&l, &r, false, why);
  }
  RELEASE_ALL(parsed, built);
  return eq;
}

/* One line on each example file vs the kernel built here; with verbose, the whole difference.
 * Returns 0 when they are all equal, else 1. */
static int report_example_one(const example* ex, int verbose);
static int report_example(int verbose) {
  int rc = 0;
  for (int i = 0; i < N_EXAMPLES; ++i) rc |= report_example_one(&kExamples[i], verbose);
  return rc;
}
static int report_example_one(const example* ex, int verbose) {
  tvm_ffi_strbuf why = {0};
  int eq = check_example(ex->path, ex->s, &why);
  const char* base = strrchr(ex->path, '/');
  printf("examples/%s parsed vs make_matmul_sched (%lldx%lld tile): ", base ? base + 1 : ex->path,
         (long long)ex->s.mr, (long long)ex->s.nr);
  if (eq == 1) {
    printf("structurally equal\n");
  } else if (eq == 0) {
    printf("DIFFERENT%s\n", verbose ? "" : " (codegen_bench --check-example shows where)");
    if (verbose) printf("%s\n", tvm_ffi_strbuf_cstr(&why));
  } else {
    void* e = tvm_ffi_error_take();
    printf("FAILED: %s: %s\n", e ? tvm_ffi_error_kind(e) : "?", e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
  }
  tvm_ffi_strbuf_free(&why);
  return eq == 1 ? 0 : 1;
}

/* Median time (ms) of tvm_script_parse on the text of path (well-formedness check on, as
 * tvmc does), or -1 when it cannot be read or parsed (reported). */
static double parse_ms(const char* path) {
  FILE* fp = fopen(path, "rb");
  if (!fp) return -1;
  tvm_ffi_strbuf text = {0};
  char chunk[4096];
  size_t got;
  while ((got = fread(chunk, 1, sizeof(chunk), fp)) > 0) tvm_ffi_strbuf_append(&text, chunk, got);
  fclose(fp);
  double t[COMPILE_REPEATS];
  int ok = 1;
  for (int r = 0; r < COMPILE_REPEATS && ok; ++r) {
    double t0 = bench_now_ns();
    void* ir = tvm_script_parse(text.data, text.size, NULL);
    t[r] = (bench_now_ns() - t0) / 1e6;
    ok = ir != NULL;
    tvm_ffi_release(ir);
  }
  tvm_ffi_strbuf_free(&text);
  if (!ok) {
    print_error("parse examples/matmul.py");
    return -1;
  }
  qsort(t, COMPILE_REPEATS, sizeof(double), bench_cmp_double);
  return t[COMPILE_REPEATS / 2];
}
#endif

static void read_loadavg(char* buf, size_t size) {
  snprintf(buf, size, "?");
  FILE* lf = fopen("/proc/loadavg", "r");
  if (!lf) return;
  if (!fgets(buf, (int)size, lf)) snprintf(buf, size, "?");
  fclose(lf);
  buf[strcspn(buf, "\n")] = 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strncmp(argv[1], "--", 2) == 0) {
    if (strcmp(argv[1], "--matmul-child") == 0 && argc == 4 && atoi(argv[3]) > 0 &&
        (strcmp(argv[2], "ours") == 0 || strcmp(argv[2], "openblas") == 0))
      return matmul_child(argv[2], atoi(argv[3]));
#ifdef TVM_BENCH_HAVE_SCRIPT
    if (strcmp(argv[1], "--print-script") == 0 && argc == 2) return print_script(0);
    if (strcmp(argv[1], "--print-script") == 0 && argc == 3 && strcmp(argv[2], "avx2") == 0)
      return print_script(1);
    if (strcmp(argv[1], "--check-example") == 0 && argc == 2) return report_example(1);
#endif
    fprintf(stderr,
            "usage: codegen_bench [ADD_ELEMENTS] | --print-script [avx2] | --check-example |\n"
            "                     --matmul-child ours|openblas THREADS\n"
            "(--print-script and --check-example need libscript)\n");
    return 2;
  }
  int64_t n_add = argc > 1 ? atoll(argv[1]) : (int64_t)16 << 20;
  n_add = n_add / 8 * 8;
  if (n_add < 8) n_add = 8;
  char load[64];
  read_loadavg(load, sizeof(load));
  tvm_codegen_options o = tvm_codegen_options_default();
  printf("libcodegen %s (LLVM O%d, host CPU %s, fast-math %s) vs gcc -O3 -march=native and "
         "%s; loadavg %s\n\n",
         tvm_codegen_version(), o.opt_level, o.host_cpu ? "on" : "off", o.fast_math ? "on" : "off",
#ifdef TVM_BENCH_HAVE_OPENBLAS
         "OpenBLAS",
#else
         "no OpenBLAS (not found at configure time)",
#endif
         load);

  compiled c_add = {0}, c_mm = {0}, c_tiled = {0}, c_sched = {0};
  bench_add(n_add, &c_add);
  bench_matmul(0, &c_mm);
  bench_matmul(1, &c_tiled);
  double ratio_1t, speedup;
  bench_matmul_sched(&ratio_1t, &speedup);
  void* f = make_matmul_sched(SCHED_N, host_sched()); /* for its compile rows */
  if (!f)
    print_error("make_matmul_sched");
  else
    compile_kernel(f, "matmul_sched", COMPILE_REPEATS, &c_sched);
  tvm_ffi_release(f);
  {
    double add_bytes = 3.0 * 4.0 * (double)n_add, mm_flops = 2.0 * 512.0 * 512.0 * 512.0;
    bench_checked("f32 add, --bounds-check (vs the same kernel unchecked)", make_add(n_add), "add",
                  1, n_add, add_bytes, "GB/s");
    bench_checked("naive matmul 512^3, --bounds-check (vs unchecked)", make_matmul(512), "matmul",
                  2, 512, mm_flops, "GFLOP/s");
    bench_checked("tiled matmul 512^3, --bounds-check (vs unchecked)", make_matmul_tiled(512),
                  "matmul_tiled", 2, 512, mm_flops, "GFLOP/s");
  }
  compile_rows("add", &c_add);
  compile_rows("matmul", &c_mm);
  compile_rows("matmul_tiled", &c_tiled);
  compile_rows("matmul_sched", &c_sched);
#ifdef TVM_BENCH_HAVE_SCRIPT
  {
    /* The front of the pipeline for the same kernel: TVMScript text -> checked IR. */
    double p = parse_ms(TVM_BENCH_EXAMPLE);
    row* r = add_row("compile matmul_sched: parse examples/matmul.py (text -> checked IR)", "ms");
    r->ours = p;
    r->share = p > 0 && c_sched.total_ms > 0 ? p / (p + c_sched.total_ms) : 0;
    r->failed = p < 0;
  }
#endif
  print_table();
  printf("\nCompile rows: the ratio column of an LLVM-share row is its share of the total; of the\n"
         "parse row, its share of parse + total.\n");
  if (ratio_1t >= 0)
    printf("Scheduled matmul, 1 thread / OpenBLAS 1 thread: %.2f (target >= 0.7: %s)\n", ratio_1t,
           ratio_1t >= 0.7 ? "met" : "NOT MET");
  else
    printf("Scheduled matmul, 1 thread / OpenBLAS 1 thread: n/a\n");
  printf("Scheduled matmul, 2 threads / 1 thread: %.2f (target >= 1.8: %s)\n", speedup,
         speedup >= 1.8 ? "met" : "NOT MET");
#ifdef TVM_BENCH_HAVE_SCRIPT
  report_example(0);
#endif
  read_loadavg(load, sizeof(load));
  printf("loadavg at the end: %s\n", load);
  compiled_free(&c_add);
  compiled_free(&c_mm);
  compiled_free(&c_tiled);
  compiled_free(&c_sched);
  tvm_ffi_error_clear();
  return 0;
}

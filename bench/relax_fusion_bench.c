/*
 * relax_fusion_bench.c: what operator fusion (AnnotateTIROpPattern, FuseOps, FuseTIR) costs at
 * compile time and saves at run time.
 *
 *   relax_fusion_bench [LAYERS]      (default 48: the transformer of relax_bench, ~50k bindings)
 *
 * Table 1: the time of each fusion pass on relax_bench's transformer (128 heads, seq 64,
 * hidden 1024) per binding, against the same model at a quarter of the layers built in the same
 * run (a ratio well above 1 would be a pass superlinear in the program), and the kernel calls of
 * main before and after.
 *
 * Table 2: the transformer block of issue 18 (seq 64, hidden 128, 4 heads, 2 layers, batch 1),
 * an MLP chain (8 layers of 64 x 256 matmul + relu) and two elementwise tails over 512 x 1024
 * (bias, relu, scaling, residual, sigmoid; bias, GELU, scaling, residual, tanh), compiled with
 * the build pipeline with and without the fusion passes: kernel calls per inference, distinct
 * kernels compiled, compile time, median CPU time per inference, and the largest difference
 * between the two outputs. (The kernels are unscheduled: erf and tanh are scalar libm calls,
 * and glibc's erff and tanhf interleaved in one loop run ~1.7x slower than in two loops, as a
 * plain C loop shows too, so the fused GELU/tanh tail is slower than the unfused one.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

#include "bench_util.h"
#include "relax_models.h"

/* The calling thread's CPU time: the VM runs these (unscheduled, serial) kernels on it, and the
 * CPU time is less disturbed than the wall time by other processes on a busy machine. */
static double thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void report_error(const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "relax_fusion_bench: %s: %s\n", what, e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
}

/* ---- Pass times ----------------------------------------------------------------------------- */
typedef struct {
  int layers;
  int64_t bindings, calls_before, calls_after;
  double ns[4]; /* LegalizeOps, AnnotateTIROpPattern, FuseOps, FuseTIR */
} pass_row;

static int measure_passes(int layers, pass_row* r) {
  const tvm_relax_pass steps[4] = {{"LegalizeOps", tvm_relax_transform_legalize_ops},
                                   {"AnnotateTIROpPattern", tvm_relax_transform_annotate_tir_op_pattern},
                                   {"FuseOps", tvm_relax_transform_fuse_ops},
                                   {"FuseTIR", tvm_relax_transform_fuse_tir}};
  r->layers = layers;
  r->bindings = relax_models_transformer_bindings(layers, 128);
  tvm_tir_ir_module_obj* cur = relax_models_transformer(layers, 128, 64, 1024);
  for (int i = 0; i < 4 && cur; ++i) {
    double t0 = bench_now_ns();
    tvm_tir_ir_module_obj* next = steps[i].run(cur);
    r->ns[i] = bench_now_ns() - t0;
    if (i == 0 && next) r->calls_before = relax_models_count_calls(next, "main", "relax.call_tir");
    tvm_ffi_release(cur);
    cur = next;
    if (!cur) report_error(steps[i].name);
  }
  if (cur) r->calls_after = relax_models_count_calls(cur, "main", "relax.call_tir");
  int rc = cur ? 0 : -1;
  tvm_ffi_release(cur);
  return rc;
}

/* ---- Compiled models ------------------------------------------------------------------------- */
static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static float rnd(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (float)((double)(g_rng >> 11) / 9007199254740992.0 * 2.0 - 1.0) * 0.25f;
}

/* Random float32 arguments for main's parameters (a symbolic dim = 1). */
static int make_args(const tvm_tir_ir_module_obj* mod, TVMFFIAny* args, int max) {
  void* f = tvm_tir_ir_module_lookup(mod, "main");
  if (!f) return -1;
  void* params = ((tvm_relax_function_obj*)f)->params;
  int n = (int)tvm_ffi_seq_size(params);
  for (int i = 0; i < n && i < max; ++i) {
    void* dims = tvm_relax_tensor_sinfo_dims(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(params, i)));
    int64_t shape[8];
    int nd = (int)tvm_ffi_seq_size(dims);
    for (int d = 0; d < nd; ++d) {
      if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, d), &shape[d])) shape[d] = 1;
    }
    void* t = tvm_ffi_tensor_empty(shape, nd, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
    float* p = tvm_ffi_tensor_dl(t)->data;
    for (int64_t k = 0; k < tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t)); ++k) p[k] = rnd();
    args[i] = tvm_ffi_any_obj(t);
  }
  tvm_ffi_release(f);
  return n > max ? max : n;
}

typedef struct {
  int64_t calls, kernels;
  double compile_ms, run_ms;
  TVMFFIAny out;
} run_row;

static int64_t count_prim_funcs(const tvm_tir_ir_module_obj* mod) {
  int64_t n = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    n += tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc);
  }
  return n;
}

/* The calls of PrimFuncs in main (after CallTIRRewrite each kernel call is one). */
static int64_t count_kernel_calls(const tvm_tir_ir_module_obj* mod) {
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "main");
  if (!f) return -1;
  int64_t n = 0;
  const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      const tvm_relax_call_obj* c = (const void*)tvm_relax_binding_value(tvm_ffi_seq_obj_at(blk->bindings, j));
      if (tvm_relax_kind_of(c) != TVM_RELAX_KIND_Call || !tvm_tir_is(c->op, TVM_TIR_KIND_GlobalVar)) continue;
      TVMFFIAny key = tvm_ffi_any_obj(c->op);
      const TVMFFIAny* callee = tvm_ffi_map_get(mod->functions, &key);
      n += callee && tvm_tir_is(callee->v_obj, TVM_TIR_KIND_PrimFunc);
    }
  }
  tvm_ffi_release(f);
  return n;
}

static int compile_and_run(const tvm_tir_ir_module_obj* mod, bool fuse, const TVMFFIAny* args, int nargs,
                           run_row* r) {
  const tvm_relax_pass* p;
  tvm_relax_pass passes[32];
  int64_t all = tvm_relax_build_pipeline_passes(&p), n = 0;
  for (int64_t i = 0; i < all && n < 32; ++i) {
    bool fusion = strcmp(p[i].name, "AnnotateTIROpPattern") == 0 || strcmp(p[i].name, "FuseOps") == 0 ||
                  strcmp(p[i].name, "FuseTIR") == 0;
    if (fuse || !fusion) passes[n++] = p[i];
  }
  double t0 = bench_now_ns();
  tvm_tir_ir_module_obj* lowered = tvm_relax_run_passes(mod, passes, n);
  tvm_vm_executable* exec = lowered ? tvm_codegen_relax_build_passes(lowered, NULL, 0, NULL) : NULL;
  r->compile_ms = (bench_now_ns() - t0) / 1e6;
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  int rc = vm ? 0 : -1;
  if (lowered) {
    /* kernel calls left in main (after CallTIRRewrite: direct calls of PrimFuncs) */
    r->kernels = count_prim_funcs(lowered);
    r->calls = count_kernel_calls(lowered);
  }
  if (rc == 0) rc = tvm_vm_invoke(vm, "main", args, nargs, &r->out); /* warm-up, kept */
  TVMFFIAny tmp;
  double samples[15];
  for (int i = 0; rc == 0 && i < 15; ++i) {
    double t = thread_cpu_ns();
    if (tvm_vm_invoke(vm, "main", args, nargs, &tmp) == 0) tvm_ffi_any_release(&tmp);
    else rc = -1;
    samples[i] = thread_cpu_ns() - t;
  }
  qsort(samples, 15, sizeof(double), bench_cmp_double);
  r->run_ms = rc == 0 ? samples[7] / 1e6 : 0;
  if (rc != 0) report_error(fuse ? "compiling / running with fusion" : "compiling / running without fusion");
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(lowered);
  return rc;
}

static double max_diff(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index == kTVMFFIArray) {
    double m = 0;
    for (int64_t i = 0; i < tvm_ffi_seq_size(a->v_obj); ++i) {
      double d = max_diff(tvm_ffi_seq_at(a->v_obj, i), tvm_ffi_seq_at(b->v_obj, i));
      if (d > m) m = d;
    }
    return m;
  }
  const DLTensor *x = tvm_ffi_tensor_dl(a->v_obj), *y = tvm_ffi_tensor_dl(b->v_obj);
  double m = 0;
  for (int64_t i = 0; i < tvm_ffi_dltensor_numel(x); ++i) {
    double d = fabs((double)((const float*)x->data)[i] - ((const float*)y->data)[i]);
    if (!(d <= m)) m = d;
  }
  return m;
}

static int model_rows(const char* name, tvm_tir_ir_module_obj* mod) {
  if (!mod) {
    report_error(name);
    return -1;
  }
  TVMFFIAny args[64];
  int nargs = make_args(mod, args, 64);
  run_row plain = {0}, fused = {0};
  int rc = nargs >= 0 && compile_and_run(mod, false, args, nargs, &plain) == 0 &&
                   compile_and_run(mod, true, args, nargs, &fused) == 0
               ? 0
               : -1;
  if (rc == 0) {
    double diff = max_diff(&fused.out, &plain.out);
    printf("%-30s %-9s %8lld %8lld %12.1f %12.3f %12s\n", name, "unfused", (long long)plain.calls,
           (long long)plain.kernels, plain.compile_ms, plain.run_ms, "");
    printf("%-30s %-9s %8lld %8lld %12.1f %12.3f %12.2e\n", "", "fused", (long long)fused.calls,
           (long long)fused.kernels, fused.compile_ms, fused.run_ms, diff);
    printf("%-30s %-9s %8s %8s %12s %11.2fx\n", "", "speed-up", "", "", "", plain.run_ms / fused.run_ms);
  }
  tvm_ffi_any_release(&plain.out), tvm_ffi_any_release(&fused.out);
  for (int i = 0; i < nargs; ++i) tvm_ffi_any_release(&args[i]);
  tvm_ffi_release(mod);
  return rc;
}

/* An elementwise tail over x: (512, 1024) with b: (1024,): steps[k] = op(operand a, operand b)
 * with operands -1 x, -2 b, -3 the scalar 0.5, k >= 0 the k-th result; the last is main's
 * result. Five kernels unfused, one fused. */
typedef struct {
  const char* op;
  int n;
  int a, b;
} tail_step;

static tvm_tir_ir_module_obj* elementwise_tail(const tail_step* steps) {
  int64_t xs[2] = {512, 1024}, bs[1] = {1024};
  DLDataType f32 = tvm_ffi_dtype(kDLFloat, 32, 1);
  tvm_relax_sinfo_obj* sx = tvm_relax_tensor_sinfo_of_ints(xs, 2, f32);
  tvm_relax_sinfo_obj* sb = tvm_relax_tensor_sinfo_of_ints(bs, 1, f32);
  tvm_relax_var_obj* x = sx ? tvm_relax_var_new("x", sx, false) : NULL;
  tvm_relax_var_obj* b = sb ? tvm_relax_var_new("b", sb, false) : NULL;
  void* objs[2] = {x, b};
  void* params = x && b ? tvm_ffi_array_of_objects(objs, 2) : NULL;
  tvm_tir_expr_obj* half = tvm_tir_const_float(f32, 0.5);
  tvm_relax_expr_obj* hv = half ? tvm_relax_prim_value_new(half) : NULL;
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_tir_ir_module_obj* mod = NULL;
  if (params && hv && tvm_relax_bb_function_begin(bb, "main", params, NULL, true) == 0 &&
      tvm_relax_bb_dataflow_begin(bb) == 0) {
    tvm_relax_var_obj* v[5] = {NULL};
    for (int k = 0; k < 5; ++k) {
      void* ops[2];
      for (int j = 0; j < steps[k].n; ++j) {
        int o = j == 0 ? steps[k].a : steps[k].b;
        ops[j] = o == -1 ? (void*)x : o == -2 ? (void*)b : o == -3 ? (void*)hv : (void*)v[o];
      }
      tvm_relax_expr_obj* call = steps[k].n == 1 ? tvm_relax_call_op(steps[k].op, NULL, 1, ops[0])
                                                 : tvm_relax_call_op(steps[k].op, NULL, 2, ops[0], ops[1]);
      v[k] = call ? (k == 4 ? tvm_relax_bb_emit_output(bb, call, NULL) : tvm_relax_bb_emit(bb, call, NULL)) : NULL;
      tvm_ffi_release(call);
      if (!v[k]) break;
    }
    tvm_tir_global_var_obj* gv = v[4] && tvm_relax_bb_block_end(bb) == 0
                                     ? tvm_relax_bb_function_end(bb, &v[4]->expr, NULL)
                                     : NULL;
    mod = gv ? tvm_relax_bb_module(bb) : NULL;
    tvm_ffi_release(gv);
    for (int k = 0; k < 5; ++k) tvm_ffi_release(v[k]);
  }
  tvm_relax_bb_free(bb);
  tvm_ffi_release(hv), tvm_ffi_release(half), tvm_ffi_release(params);
  tvm_ffi_release(x), tvm_ffi_release(b), tvm_ffi_release(sx), tvm_ffi_release(sb);
  return mod;
}

/* sigmoid(relu(x + b) * 0.5 + x) */
static const tail_step k_relu_tail[5] = {{"relax.add", 2, -1, -2}, {"relax.nn.relu", 1, 0, 0},
                                         {"relax.multiply", 2, 1, -3}, {"relax.add", 2, 2, -1},
                                         {"relax.sigmoid", 1, 3, 0}};
/* tanh(gelu(x + b) * 0.5 + x): erf and tanh are libm calls */
static const tail_step k_gelu_tail[5] = {{"relax.add", 2, -1, -2}, {"relax.nn.gelu", 1, 0, 0},
                                         {"relax.multiply", 2, 1, -3}, {"relax.add", 2, 2, -1},
                                         {"relax.tanh", 1, 3, 0}};

int main(int argc, char** argv) {
  int layers = argc > 1 ? atoi(argv[1]) : 48;
  if (layers < 4) layers = 4;
  pass_row base = {0}, big = {0};
  if (measure_passes(layers / 4, &base) != 0 || measure_passes(layers, &big) != 0) return 1;
  static const char* const names[4] = {"LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR"};
  printf("Fusion passes on relax_bench's transformer (128 heads, seq 64, hidden 1024)\n");
  printf("%-22s %10s %12s %12s %14s %12s\n", "pass", "layers", "bindings", "ms", "ns/binding", "vs 1/4");
  for (int i = 0; i < 4; ++i) {
    double per_base = base.ns[i] / (double)base.bindings, per_big = big.ns[i] / (double)big.bindings;
    printf("%-22s %10d %12lld %12.1f %14.1f %12s\n", names[i], base.layers, (long long)base.bindings,
           base.ns[i] / 1e6, per_base, "");
    printf("%-22s %10d %12lld %12.1f %14.1f %11.2fx\n", "", big.layers, (long long)big.bindings, big.ns[i] / 1e6,
           per_big, per_big / per_base);
  }
  printf("kernel calls in main: %lld -> %lld (%d layers), %lld -> %lld (%d layers)\n\n",
         (long long)base.calls_before, (long long)base.calls_after, base.layers, (long long)big.calls_before,
         (long long)big.calls_after, big.layers);

  printf("Compiled models, build pipeline with and without fusion (run: CPU time of the VM's\n"
         "thread, median of 15; the kernels are unscheduled and serial)\n");
  printf("%-30s %-9s %8s %8s %12s %12s %12s\n", "model", "pipeline", "calls", "kernels", "compile ms",
         "ms / run", "max |diff|");
  int rc = model_rows("transformer 2x(64, 128, 4 heads)", relax_models_transformer(2, 4, 64, 128));
  if (rc == 0) rc = model_rows("mlp chain 8x(64 x 256)", relax_models_mlp(8, 64, 256));
  if (rc == 0) rc = model_rows("relu/sigmoid tail (512 x 1024)", elementwise_tail(k_relu_tail));
  if (rc == 0) rc = model_rows("gelu/tanh tail (512 x 1024)", elementwise_tail(k_gelu_tail));
  return rc == 0 ? 0 : 1;
}

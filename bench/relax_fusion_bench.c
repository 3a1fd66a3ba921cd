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
 * Table 2: the transformer block of issue 18 (seq 64, hidden 128, 4 heads, 2 layers, batch 1)
 * and an MLP chain (8 layers of 64 x 256 matmul + relu), compiled with the build pipeline with
 * and without the fusion passes: kernel calls per inference, distinct kernels compiled, compile
 * time, median time per inference, and the largest difference between the two outputs.
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
  tvm_relax_pass passes[16];
  int64_t all = tvm_relax_build_pipeline_passes(&p), n = 0;
  for (int64_t i = 0; i < all && n < 16; ++i) {
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
  double ns = 0;
  if (rc == 0) {
    BENCH_MEDIAN_NS(ns, 9, 3, {
      if (tvm_vm_invoke(vm, "main", args, nargs, &tmp) == 0) tvm_ffi_any_release(&tmp);
      else rc = -1;
    });
  }
  r->run_ms = ns / 1e6;
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

  printf("Compiled models, build pipeline with and without fusion (1 thread of the VM, median of 9)\n");
  printf("%-30s %-9s %8s %8s %12s %12s %12s\n", "model", "pipeline", "calls", "kernels", "compile ms",
         "ms / run", "max |diff|");
  int rc = model_rows("transformer 2x(64, 128, 4 heads)", relax_models_transformer(2, 4, 64, 128));
  if (rc == 0) rc = model_rows("mlp chain 8x(64 x 256)", relax_models_mlp(8, 64, 256));
  return rc == 0 ? 0 : 1;
}

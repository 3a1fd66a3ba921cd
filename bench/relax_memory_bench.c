/*
 * relax_memory_bench.c: what the memory passes of the Relax build pipeline save. An MLP chain
 * (relax_models_mlp) is compiled with four pass lists and run once in a fresh VM; the table gives
 * the bytes the VM's pooled allocator holds afterwards (it keeps freed blocks, so this is the
 * run's high-water mark), the allocation bindings left in main, and the time of the Relax passes
 * and of one run.
 *
 *   relax_memory_bench [LAYERS [BATCH [HIDDEN]]]     (default 16 64 256)
 *
 * The baseline row is "LegalizeOps only": call_tir compiled directly, one fresh output per call,
 * all held until the function returns.
 *
 * A second table does the same for the models of model_bench (bench/model_bench_models.c: MLP,
 * CNN, transformer block, ResNet block): the peak with the whole pipeline against the pipeline
 * without StaticPlanBlockMemory and KillAfterLastUse (the baseline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

#include "bench_util.h"
#include "model_bench.h"
#include "relax_models.h"

/* The build pipeline without the passes named in `skip` (comma-separated), into out. */
static int64_t pipeline_without(const char* skip, tvm_relax_pass* out, int64_t limit) {
  const tvm_relax_pass* p;
  int64_t n = tvm_relax_build_pipeline_passes(&p), k = 0;
  for (int64_t i = 0; i < n && i < limit; ++i) {
    if (skip && strstr(skip, p[i].name)) continue;
    out[k++] = p[i];
  }
  return k;
}

static int64_t count_allocs(const tvm_tir_ir_module_obj* mod) {
  return relax_models_count_calls(mod, "main", "relax.memory.alloc_storage") +
         relax_models_count_calls(mod, "main", "relax.builtin.alloc_tensor") +
         relax_models_count_calls(mod, "main", "relax.call_tir");
}

static void report_error(const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "relax_memory_bench: %s: %s\n", what, e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
}

static int run_row(const char* name, const char* skip, int layers, int64_t batch, int64_t hidden,
                   int first_only) {
  tvm_relax_pass passes[32];
  int64_t n = first_only ? 1 : pipeline_without(skip, passes, 32);
  if (first_only) passes[0] = (tvm_relax_pass){"LegalizeOps", tvm_relax_transform_legalize_ops};
  tvm_tir_ir_module_obj* mod = relax_models_mlp(layers, batch, hidden);
  double t0 = bench_now_ns();
  tvm_tir_ir_module_obj* lowered = mod ? tvm_relax_run_passes(mod, passes, n) : NULL;
  double pass_ns = bench_now_ns() - t0;
  tvm_vm_executable* exec = lowered ? tvm_codegen_relax_build_passes(lowered, NULL, 0, NULL) : NULL;
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  int rc = -1;
  if (vm) {
    int64_t sx[2] = {batch, hidden}, sw[2] = {hidden, hidden};
    void* x = tvm_ffi_tensor_empty(sx, 2, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
    void* w = tvm_ffi_tensor_empty(sw, 2, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
    memset(tvm_ffi_tensor_dl(x)->data, 0, (size_t)(batch * hidden * 4));
    memset(tvm_ffi_tensor_dl(w)->data, 0, (size_t)(hidden * hidden * 4));
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(w)}, out;
    t0 = bench_now_ns();
    rc = tvm_vm_invoke(vm, "main", args, 2, &out);
    double run_ns = bench_now_ns() - t0;
    size_t allocated = 0, cached = 0;
    if (rc == 0) {
      tvm_ffi_any_release(&out);
      rc = tvm_vm_memory_usage(vm, 0, &allocated, &cached);
    }
    if (rc == 0) {
      printf("%-38s %14.1f %12lld %10.2f %10.2f\n", name, (double)(allocated + cached) / 1024.0,
             (long long)count_allocs(lowered), pass_ns / 1e6, run_ns / 1e6);
    }
    tvm_ffi_release(x), tvm_ffi_release(w);
    tvm_vm_release(vm);
  }
  if (rc != 0) report_error(name);
  tvm_ffi_release(exec), tvm_ffi_release(lowered), tvm_ffi_release(mod);
  return rc;
}

/* The peak pool bytes of one run of model bm (zero inputs) compiled with the pipeline less
 * `skip`; -1 on failure (reported). */
static int64_t model_peak(const bench_model* bm, const char* skip) {
  tvm_relax_pass passes[32];
  int64_t n = pipeline_without(skip, passes, 32);
  tvm_vm_executable* exec = tvm_codegen_relax_build_passes(bm->mod, passes, n, NULL);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  int64_t peak = -1;
  if (vm) {
    TVMFFIAny args[BENCH_MAX_PARAMS], out;
    for (int i = 0; i < bm->nparams; ++i) {
      void* t = tvm_ffi_tensor_empty(bm->shape[i], bm->ndim[i], tvm_ffi_dtype(kDLFloat, 32, 1),
                                     (DLDevice){kDLCPU, 0});
      const DLTensor* dl = t ? tvm_ffi_tensor_dl(t) : NULL;
      if (dl) memset(dl->data, 0, (size_t)tvm_ffi_dltensor_numel(dl) * 4);
      args[i] = tvm_ffi_any_obj(t);
    }
    size_t allocated = 0, cached = 0;
    if (tvm_vm_invoke(vm, "main", args, bm->nparams, &out) == 0) {
      tvm_ffi_any_release(&out);
      if (tvm_vm_memory_usage(vm, 0, &allocated, &cached) == 0) {
        peak = (int64_t)(allocated + cached);
      }
    }
    for (int i = 0; i < bm->nparams; ++i) tvm_ffi_any_release(&args[i]);
    tvm_vm_release(vm);
  }
  if (peak < 0) report_error(bm->name);
  tvm_ffi_release(exec);
  return peak;
}

static int model_rows(void) {
  static const char* const models[] = {"mlp-b32", "cnn", "transformer", "resnet-block"};
  printf("\nThe models of model_bench: peak pool KiB of one run\n");
  printf("%-16s %22s %16s %8s\n", "model", "without planning (base)", "whole pipeline", "saved");
  int rc = 0;
  for (int m = 0; m < 4; ++m) {
    bench_model bm;
    if (bench_model_build(models[m], &bm) != 0) {
      report_error(models[m]);
      rc = 1;
      continue;
    }
    int64_t base = model_peak(&bm, "StaticPlanBlockMemory,KillAfterLastUse");
    int64_t planned = model_peak(&bm, NULL);
    if (base > 0 && planned >= 0) {
      printf("%-16s %22.1f %16.1f %7.0f%%\n", models[m], (double)base / 1024.0,
             (double)planned / 1024.0, 100.0 * (double)(base - planned) / (double)base);
    } else {
      rc = 1;
    }
    tvm_ffi_release(bm.mod);
  }
  return rc;
}

int main(int argc, char** argv) {
  int layers = argc > 1 ? atoi(argv[1]) : 16;
  int64_t batch = argc > 2 ? atoll(argv[2]) : 64, hidden = argc > 3 ? atoll(argv[3]) : 256;
  if (layers < 1 || batch < 1 || hidden < 1) {
    fprintf(stderr, "usage: relax_memory_bench [LAYERS [BATCH [HIDDEN]]]\n");
    return 2;
  }
  printf("MLP chain: %d x (matmul, relu) on (%lld, %lld) float32 tensors of %.1f KiB\n", layers,
         (long long)batch, (long long)hidden, (double)(batch * hidden * 4) / 1024.0);
  printf("%-38s %14s %12s %10s %10s\n", "passes", "peak pool KiB", "allocations", "passes ms",
         "run ms");
  int rc = 0;
  rc |= run_row("LegalizeOps only (baseline)", NULL, layers, batch, hidden, 1);
  rc |= run_row("pipeline without planning and kills", "StaticPlanBlockMemory,KillAfterLastUse",
                layers, batch, hidden, 0);
  rc |= run_row("pipeline without planning", "StaticPlanBlockMemory", layers, batch, hidden, 0);
  rc |= run_row("whole pipeline", NULL, layers, batch, hidden, 0);
  rc |= model_rows();
  return rc ? 1 : 0;
}

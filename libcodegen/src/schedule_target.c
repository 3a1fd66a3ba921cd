/* schedule_target.c: the default CPU schedule's target facts for the code generator's CPU
 * (tvm_codegen_schedule_target) and the Relax build's schedule-then-lower step. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* LLVM x86 CPU names with AVX-512 (F) and with AVX, for TVM_CODEGEN_CPU (a named CPU has no
 * feature string to read through LLVM's C API). */
static const char* const kAvx512Cpus[] = {
    "skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client", "icelake-server",
    "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids",
    "graniterapids-d", "diamondrapids", "znver4", "znver5", "knl", "knm", "x86-64-v4"};
static const char* const kAvxCpus[] = {
    "sandybridge", "ivybridge", "haswell", "broadwell", "skylake", "alderlake", "raptorlake",
    "meteorlake", "arrowlake", "arrowlake-s", "lunarlake", "pantherlake", "gracemont", "sierraforest",
    "grandridge", "clearwaterforest", "znver1", "znver2", "znver3", "bdver1", "bdver2", "bdver3",
    "bdver4", "btver2", "x86-64-v3"};

static bool in_list(const char* name, const char* const* list, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(name, list[i]) == 0) return true;
  }
  return false;
}

static int vector_bits(const tvm_codegen_options* o) {
  if (!o->host_cpu) return 128;
  const char* cpu = getenv("TVM_CODEGEN_CPU");
  if (cpu && cpu[0]) {
    if (in_list(cpu, kAvx512Cpus, sizeof(kAvx512Cpus) / sizeof(kAvx512Cpus[0]))) return 512;
    if (in_list(cpu, kAvxCpus, sizeof(kAvxCpus) / sizeof(kAvxCpus[0]))) return 256;
    return 128;
  }
  if (tvm_codegen__host_has_feature("avx512f")) return 512;
  if (tvm_codegen__host_has_feature("avx")) return 256;
  return 128;
}

void tvm_codegen_schedule_target(const tvm_codegen_options* options, tvm_tir_schedule_target* out) {
  tvm_codegen_options d = tvm_codegen_options_default();
  const tvm_codegen_options* o = options ? options : &d;
  *out = tvm_tir_schedule_target_default();
  out->vector_bits = vector_bits(o);
  /* AVX-512 has 32 vector registers: 8 rows x 2 registers of accumulators fit with the operands
   * (16 with AVX2: 4 x 2, as examples/matmul_avx2.py) */
  if (out->vector_bits >= 512) out->tile_rows = 8;
}

int tvm_codegen__relax_target(const tvm_codegen_options* options, tvm_codegen_target* out) {
  const char* text = options ? options->target : NULL;
  if (tvm_codegen_target_parse(text, out) != 0) {
    tvm_ffi_raise_context("the Relax build's target");
    return -1;
  }
  if (out->kind == TVM_CODEGEN_TARGET_LLVM && out->mcpu[0])
    return tvm_ffi_raise("ValueError",
                         "the Relax build's target \"%s\": -mcpu is not read here (the CPU is "
                         "the host's, or TVM_CODEGEN_CPU's); give \"llvm\"",
                         text);
  return 0;
}

bool tvm_codegen__has_gpu_kernels(const void* mod) {
  if (tvm_tir_kind_of(mod) != TVM_TIR_KIND_IRModule) return true;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(((const tvm_tir_ir_module_obj*)mod)->functions, pos, &k, &v)) >= 0;) {
    if (tvm_tir_kind_of(v->v_obj) != TVM_TIR_KIND_PrimFunc || tvm_codegen__is_host_func(v->v_obj)) continue;
    if (tvm_ffi_map_size(((const tvm_tir_prim_func_obj*)v->v_obj)->buffer_map) > 0) return true;
  }
  return false;
}

void* tvm_codegen__schedule_and_lower(const void* mod, const tvm_codegen_options* options) {
  tvm_codegen_options d = tvm_codegen_options_default();
  const tvm_codegen_options* o = options ? options : &d;
  tvm_codegen_target target;
  if (tvm_codegen__relax_target(o, &target) != 0) return NULL;
  void* cur = (void*)mod;
  tvm_ffi_retain(cur);
  if (target.kind == TVM_CODEGEN_TARGET_CUDA) {
    /* not an optimisation: kernels without thread bindings cannot run on the GPU, so the GPU
     * schedule runs whatever options->schedule says */
    void* s = tvm_tir_schedule_gpu(cur, TVM_CODEGEN_GPU_THREADS);
    tvm_ffi_release(cur);
    if (!s) {
      tvm_ffi_raise_context("the default GPU schedule");
      return NULL;
    }
    cur = s;
  } else if (o->schedule) {
    tvm_tir_schedule_target t;
    tvm_codegen_schedule_target(o, &t);
    void* s = tvm_tir_schedule_default(cur, &t);
    tvm_ffi_release(cur);
    if (!s) {
      tvm_ffi_raise_context("the default schedule");
      return NULL;
    }
    cur = s;
  }
  void* lowered = tvm_tir_lower(cur, NULL);
  tvm_ffi_release(cur);
  return lowered;
}

/*
 * test_gpu_relax.c: Relax models built for CUDA (tvm_codegen_options.target = "cuda").
 *
 *   gpu_relax fake     $TVM_VM_LIBCUDA is tests/vm's fake driver (host memory, launches recorded):
 *                      the default GPU schedule (tvm_tir_schedule_gpu) of every legalized and
 *                      fused kernel of the models (a dense layer, an MLP, a convolution,
 *                      softmax, a reduction, a fused elementwise chain, a transformer layer with
 *                      layer norms, the fusion tests' models) interpreted against the
 *                      unscheduled module by the Relax reference evaluator on random inputs,
 *                      also after lowering and the GPU passes (host functions launching device
 *                      kernels); every kernel thread-bound and its PTX generated (entry
 *                      points, thread and block indices); the model library
 *                      exported for CUDA and loaded, the VM on the CUDA device: storage on the
 *                      device, one launch per kernel call with the grid the schedule gives, the
 *                      result a CUDA tensor, a CPU input refused by the kernel's checks; the
 *                      in-process build too
 *   gpu_relax missing  no driver: the export works, the in-process build says "no CUDA driver"
 *   gpu_relax real     the machine's driver (exits 77, skipped, without one): each model run on
 *                      GPU 0 and compared with the CPU build
 */
#define _GNU_SOURCE /* memmem */
#include <tvm/codegen/relax_build.h>
#include <tvm/tir/schedule.h>
#include <tvm/tir/transform.h>
#include <tvm/vm/vm.h>
#include <unistd.h>

#include "gpu_modes.h"
#include "fuse_testing.h"
#include "relax_pool.h"

#ifndef TVM_GPU_TMPDIR
#define TVM_GPU_TMPDIR "/tmp"
#endif


/* ---- The models ------------------------------------------------------------------------------ */
typedef struct {
  const char* name;
  tvm_tir_ir_module_obj* (*make)(void);
  double tol;
  bool single_ok; /* launches of one thread allowed (a reduction to one element) */
} model;

static tvm_tir_ir_module_obj* mlp(void) {
  tvm_tir_ir_module_obj* m = relax_models_mlp(3, -1, 16);
  tvm_tir_ir_module_obj* l = m ? tvm_relax_transform_legalize_ops(m) : NULL;
  tvm_ffi_release(m);
  return l;
}
static tvm_tir_ir_module_obj* transformer(void) {
  tvm_tir_ir_module_obj* m = relax_models_transformer(1, 2, 4, 8);
  tvm_tir_ir_module_obj* l = m ? tvm_relax_transform_legalize_ops(m) : NULL;
  tvm_ffi_release(m);
  return l;
}

/* sum(exp(x)) over every axis, + 1: a reduction to one element */
static tvm_tir_ir_module_obj* full_sum(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 8});
  fm_begin(&m);
  tvm_relax_var_obj* e = FM_OP(&m, "relax.exp", x);
  tvm_relax_var_obj* r = fm_op(&m, false, "relax.sum", NULL, e, NULL, NULL);
  tvm_relax_var_obj* o = FM_OUT(&m, "relax.add", r, fm_scalar(&m, 1.0));
  return fm_end(&m, o, NULL);
}

static const model kModels[] = {
    {"elementwise_chain", fm_elementwise_chain, 1e-5},
    {"matmul_bias_relu", fm_matmul_bias_relu, 1e-5},
    {"mlp", mlp, 1e-4},
    {"conv_bias_relu", fm_conv_bias_relu, 1e-4},
    {"softmax_epilogue", fm_softmax_epilogue, 1e-5},
    {"reduction_prologue", fm_reduction_prologue, 1e-5},
    {"transformer", transformer, 1e-3},
    {"full_sum", full_sum, 1e-5, true},
    {"broadcast_and_scalar", fm_broadcast_and_scalar, 1e-5},
    {"injective_chain", fm_injective_chain, 1e-5},
    {"block_output_in_a_chain", fm_block_output_in_a_chain, 1e-5},
    {"tuple_get_root", fm_tuple_get_root, 1e-5},
    {"value_used_twice", fm_value_used_twice, 1e-5},
    {"split_tuple_get_item", fm_split_tuple_get_item, 1e-4},
    {"tuple_get_item_of_outside_tuple", fm_tuple_get_item_of_outside_tuple, 1e-5},
    {"constant_operand", fm_constant_operand, 1e-5},
    /* fused unfolded (the build pipeline folds it first): exp(C1 * C2) over (1, 32) and the add
     * over (n, 32) share no outer loop range, so the fused kernel runs in one thread */
    {"folded_constants", fm_folded_constants, 1e-5, true},
};
enum { NMODELS = sizeof(kModels) / sizeof(kModels[0]) };

/* ---- Thread bindings ------------------------------------------------------------------------- */
typedef struct {
  int64_t blocks, threads, single; /* single: threadIdx.x loops of one thread */
} bind_count;

static int count_bound(tvm_tir_visitor* v, const void* node) {
  bind_count* c = v->ctx;
  const tvm_tir_for_obj* f = node;
  if (f->kind == TVM_TIR_FOR_THREAD_BINDING && f->thread_binding) {
    const char* tag = tvm_ffi_str_cstr(f->thread_binding->thread_tag);
    if (strcmp(tag, "blockIdx.x") == 0) c->blocks++;
    if (strcmp(tag, "threadIdx.x") == 0) {
      c->threads++;
      int64_t e;
      if (tvm_tir_as_const_int(f->extent, &e) && e == 1) c->single++;
    }
  }
  return TVM_TIR_VISIT_CONTINUE;
}

/* Every PrimFunc of mod has thread-bound loops over blockIdx.x and threadIdx.x; the number of
 * PrimFuncs, or -1. *out_single: the launches of one thread (a reduction to one element, or a
 * fused kernel whose nests did not merge). */
static int64_t all_bound(const tvm_tir_ir_module_obj* mod, const char* what, int64_t* out_single) {
  int64_t n = 0;
  *out_single = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (!tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc)) continue;
    bind_count c = {0, 0, 0};
    tvm_tir_visitor vis = {0};
    vis.pre[TVM_TIR_KIND_For] = count_bound;
    vis.ctx = &c;
    tvm_tir_visit(&vis, ((const tvm_tir_prim_func_obj*)v->v_obj)->body);
    tvm_tir_visitor_free(&vis);
    if (c.blocks == 0 || c.threads != c.blocks) {
      fprintf(stderr, "%s: %s: %lld blockIdx.x / %lld threadIdx.x loops\n", what,
              tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)k->v_obj)->name_hint),
              (long long)c.blocks, (long long)c.threads);
      g_test_failed_checks++;
      return -1;
    }
    if (c.single && getenv("GPU_RELAX_VERBOSE"))
      fprintf(stderr, "%s: %s: %lld single-thread launches\n", what,
              tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)k->v_obj)->name_hint),
              (long long)c.single);
    *out_single += c.single;
    ++n;
  }
  return n;
}

/* libtir's GPU passes over mod (a new reference, NULL + error). */
static void* gpu_passes(void* mod) {
  static const tvm_tir_pass passes[] = {TVM_TIR_GPU_PASSES};
  void* cur = mod;
  tvm_ffi_retain(cur);
  for (size_t k = 0; cur && k < sizeof(passes) / sizeof(passes[0]); ++k) {
    void* next = passes[k].fn(cur);
    tvm_ffi_release(cur);
    cur = next;
  }
  return cur;
}

/* The GPU schedule (threads per block) of legal's kernels, interpreted against legal by the
 * reference evaluator at batch 1 and 3. */
static void scheduled_matches(const model* m, const tvm_tir_ir_module_obj* legal, int64_t threads) {
  tvm_tir_ir_module_obj* sched = tvm_tir_schedule_gpu(legal, threads);
  if (!sched) {
    CHECK_OK(-1);
    return;
  }
  int64_t single;
  CHECK(all_bound(sched, m->name, &single) > 0);
  if (!m->single_ok) CHECK_EQ_INT(single, 0);
  for (int64_t batch = 1; batch <= 3; batch += 2) {
    int64_t bad = fm_eval_diff(legal, sched, batch, m->tol);
    if (bad != 0)
      fprintf(stderr, "%s (%lld threads, batch %lld): %lld differ\n", m->name, (long long)threads,
              (long long)batch, (long long)bad);
    CHECK_EQ_INT(bad, 0);
  }
  /* lowered, the GPU passes and the PTX: one .entry per launch, reading the thread indices */
  void* lowered = tvm_tir_lower(sched, NULL);
  /* the host functions and device kernels the GPU passes make, in the module of the model:
   * the evaluator runs them (each call_tir's host function calling its kernels) */
  void* split = lowered ? gpu_passes(lowered) : NULL;
  if (!split) {
    fprintf(stderr, "%s: GPU passes\n", m->name);
    CHECK_OK(-1);
  } else {
    /* a device kernel (calling_conv 2) per launch */
    int64_t kernels = 0;
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0;
         (pos = tvm_ffi_map_next(((tvm_tir_ir_module_obj*)split)->functions, pos, &k, &v)) >= 0;) {
      if (!tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc)) continue;
      const TVMFFIAny* cc =
          tvm_ffi_map_get_str(((const tvm_tir_prim_func_obj*)v->v_obj)->func.attrs, "calling_conv");
      kernels += cc && cc->type_index == kTVMFFIInt && cc->v_int64 == 2;
    }
    CHECK(kernels >= fm_count_funcs(sched, true));
    int64_t bad = fm_eval_diff(legal, split, 3, m->tol);
    if (bad != 0)
      fprintf(stderr, "%s (%lld threads, GPU passes): %lld differ\n", m->name, (long long)threads,
              (long long)bad);
    CHECK_EQ_INT(bad, 0);
  }
  tvm_ffi_release(split);
  TVMFFIAny ptx = tvm_ffi_any_none();
  if (!lowered || tvm_codegen_emit_ptx(lowered, "cuda -arch=sm_80", NULL, &ptx) != 0) {
    fprintf(stderr, "%s: PTX\n", m->name);
    CHECK_OK(-1);
  } else {
    TVMFFIByteArray text;
    tvm_ffi_any_as_bytes(&ptx, &text);
    CHECK(memmem(text.data, text.size, ".visible .entry", 15) != NULL);
    /* (a launch of one thread reads neither index) */
    CHECK(m->single_ok || memmem(text.data, text.size, "%ctaid.x", 8) != NULL);
    CHECK(m->single_ok || memmem(text.data, text.size, "%tid.x", 6) != NULL);
    CHECK(memmem(text.data, text.size, ".target sm_80", 13) != NULL);
  }
  tvm_ffi_any_release(&ptx);
  tvm_ffi_release(lowered);
  tvm_ffi_release(sched);
}

TEST(schedule_models) {
  for (int i = 0; i < NMODELS; ++i) {
    tvm_tir_ir_module_obj* legal = kModels[i].make();
    if (!legal) {
      CHECK_OK(-1);
      continue;
    }
    scheduled_matches(&kModels[i], legal, 256);
    scheduled_matches(&kModels[i], legal, 5); /* several blocks, a guarded last one */
    tvm_tir_ir_module_obj* fused = fm_fuse(legal);
    if (fused) scheduled_matches(&kModels[i], fused, 32);
    tvm_ffi_release(fused);
    tvm_ffi_release(legal);
  }
}

/* Bad arguments and what the schedule leaves alone. */
TEST(schedule_edges) {
  tvm_tir_ir_module_obj* legal = fm_elementwise_chain();
  CHECK(tvm_tir_schedule_gpu(legal, 0) == NULL);
  void* e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "max_threads_per_block 0"));
  tvm_ffi_release(e);
  CHECK(tvm_tir_schedule_gpu(legal, 2048) == NULL);
  tvm_ffi_error_clear();
  /* scheduled once: marked, so a second run changes nothing */
  tvm_tir_ir_module_obj* once = tvm_tir_schedule_gpu(legal, 64);
  tvm_tir_ir_module_obj* twice = once ? tvm_tir_schedule_gpu(once, 64) : NULL;
  CHECK(once && twice == once);
  tvm_ffi_release(twice);
  tvm_ffi_release(once);
  tvm_ffi_release(legal);
  /* a reduction to one element has no independent loop: one thread runs it */
  legal = full_sum();
  tvm_tir_ir_module_obj* sched = legal ? tvm_tir_schedule_gpu(legal, 256) : NULL;
  int64_t single = 0;
  CHECK(sched && all_bound(sched, "full_sum", &single) > 0);
  CHECK(single >= 1);
  tvm_ffi_release(sched);
  tvm_ffi_release(legal);
}

/* ---- Built for CUDA -------------------------------------------------------------------------- */
static tvm_codegen_options cuda_opts(void) {
  tvm_codegen_options o = tvm_codegen_options_default();
  o.target = "cuda -arch=sm_80";
  return o;
}

static void lib_path(const char* tag, char* out, size_t n) {
  snprintf(out, n, "%s/gpu_relax_%s_%d.so", TVM_GPU_TMPDIR, tag, (int)getpid());
}

/* args[0..n) copied to (type, 0), in place. */
static int to_device(TVMFFIAny* args, int n, int type) {
  for (int i = 0; i < n; ++i) {
    TVMFFIAny a[3] = {args[i], tvm_ffi_any_int(type), tvm_ffi_any_int(0)}, out;
    if (tvm_ffi_global_call("vm.builtin.to_device", a, 3, &out) != 0) return -1;
    tvm_ffi_any_release(&args[i]);
    args[i] = out;
  }
  return 0;
}

static int64_t launches(void) { return FAKE(int (*)(void), "fake_cuda_launches")(); }

/* The model library of a dense layer, loaded on the fake driver: kernels launched on the
 * device with the schedule's grid, storage on the device. */
TEST(exported_on_fake_driver) {
  tvm_tir_ir_module_obj* legal = fm_matmul_bias_relu();
  char path[512];
  lib_path("dense", path, sizeof(path));
  tvm_codegen_options o = cuda_opts();
  CHECK_OK(legal ? tvm_codegen_relax_export(legal, path, &o) : -1);
  tvm_vm_executable* exec = tvm_vm_executable_load_file(path);
  CHECK(exec != NULL);
  if (!exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCUDA, 0}, 1) : NULL;
  CHECK(vm != NULL);
  if (vm) {
    TVMFFIAny args[8], got = tvm_ffi_any_none();
    int n = fm_args(legal, 3, args, 8);
    CHECK_EQ_INT(n, 3);
    /* a CPU input: the kernel's packed-API check names the device */
    CHECK(tvm_vm_invoke(vm, "main", args, n, &got) != 0);
    void* err = tvm_ffi_error_take();
    CHECK(err && strstr(tvm_ffi_error_message(err), "CUDA"));
    if (err) fprintf(stderr, "(expected) %s\n", tvm_ffi_error_message(err));
    tvm_ffi_release(err);
    CHECK_OK(to_device(args, n, kDLCUDA));
    int64_t l0 = launches();
    CHECK_OK(tvm_vm_invoke(vm, "main", args, n, &got));
    /* matmul, add and relu fused into one kernel by the build pipeline, one launch */
    CHECK_EQ_INT(launches(), l0 + 1);
    CHECK(strcmp(FAKE(const char* (*)(void), "fake_cuda_last_kernel")(),
                 "fused_matmul_add_nn_relu_kernel") == 0);
    CHECK(got.type_index == kTVMFFITensor);
    if (got.type_index == kTVMFFITensor) {
      const DLTensor* t = tvm_ffi_tensor_dl(got.v_obj);
      CHECK_EQ_INT(t->device.device_type, kDLCUDA);
      CHECK_EQ_INT(t->ndim, 2);
      CHECK_EQ_INT(t->shape[0], 3);
      CHECK_EQ_INT(t->shape[1], 8);
    }
    /* the output lives in device memory the driver handed out */
    CHECK(FAKE(int (*)(void), "fake_cuda_live_allocations")() > 0);
    /* the launch covers the n x 8 outputs (n symbolic: blocks of 256 threads, one for n = 3):
     * the fused kernel's nests merged under their (i, j) loops, the matmul's result local */
    unsigned (*dim)(int) = FAKE(unsigned (*)(int), "fake_cuda_last_dim");
    CHECK_EQ_INT(dim(0), 1);
    CHECK_EQ_INT(dim(3), 256);
    CHECK_EQ_INT(dim(1) * dim(2) * dim(4) * dim(5), 1);
    tvm_ffi_any_release(&got);
    fm_args_free(args, n);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(legal);
  unlink(path);
}

/* main(a: (n, 4), b: (n, 4)): c = concat((a, b)) (n * 2, 4); e = reshape(exp(c), (n * 8,)):
 * the composite dims come from a shape function, which runs on the host (marked
 * tir.is_host_func: its heap is a CPU tensor) while the kernels run on the device. */
static tvm_tir_ir_module_obj* concat_model(void) {
  rp m;
  rp_init(&m);
  DLDataType i64 = tvm_ffi_dtype(kDLInt, 64, 1), f32 = tvm_ffi_dtype(kDLFloat, 32, 1);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", i64));
  void* d4[2] = {n, rp_keep(&m, tvm_tir_const_int(i64, 4))};
  tvm_relax_var_obj* a = rp_param(&m, "a", rt_tensor_sym(f32, 2, d4));
  tvm_relax_var_obj* b = rp_param(&m, "b", rt_tensor_sym(f32, 2, d4));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  void* axis = rp_keep(&m, rt_attrs(1, "axis", tvm_ffi_any_int(0)));
  tvm_relax_var_obj* c =
      rp_emit(&m, rp_call(&m, "relax.concat", axis, 1, rp_tuple(&m, 2, a, b)), "c");
  tvm_relax_var_obj* d = rp_emit(&m, rp_call(&m, "relax.exp", NULL, 1, c), "d");
  void* flat[1] = {rp_keep(&m, tvm_tir_mul(n, rp_keep(&m, tvm_tir_const_int(i64, 8))))};
  tvm_relax_var_obj* e =
      rp_output(&m, rp_call(&m, "relax.reshape", NULL, 2, d, rp_shape(&m, 1, flat)), "e");
  rp_block_end(&m);
  return rp_finish(&m, (tvm_relax_expr_obj*)e);
}

TEST(shape_functions_on_the_host) {
  tvm_tir_ir_module_obj* mod = concat_model();
  char path[512];
  lib_path("concat", path, sizeof(path));
  tvm_codegen_options o = cuda_opts();
  CHECK_OK(mod ? tvm_codegen_relax_export(mod, path, &o) : -1);
  tvm_vm_executable* exec = tvm_vm_executable_load_file(path);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCUDA, 0}, 1) : NULL;
  CHECK(vm != NULL);
  if (vm) {
    int64_t s[2] = {3, 4};
    TVMFFIAny args[2] = {tvm_ffi_any_obj(rv_rand(2, s)), tvm_ffi_any_obj(rv_rand(2, s))}, got;
    CHECK_OK(to_device(args, 2, kDLCUDA));
    int64_t l0 = launches();
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 2, &got));
    CHECK(launches() > l0);
    if (got.type_index == kTVMFFITensor) {
      const DLTensor* t = tvm_ffi_tensor_dl(got.v_obj);
      CHECK_EQ_INT(t->device.device_type, kDLCUDA);
      CHECK_EQ_INT(t->ndim, 1);
      CHECK_EQ_INT(t->shape[0], 24);
    } else {
      CHECK(false);
    }
    tvm_ffi_any_release(&got);
    fm_args_free(args, 2);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
  unlink(path);
}

/* Every model built in-process for CUDA (the JIT imports the cuda module through the fake
 * driver) and run on the device: one launch at least, a CUDA result. */
TEST(jit_on_fake_driver) {
  for (int i = 0; i < NMODELS; ++i) {
    tvm_tir_ir_module_obj* legal = kModels[i].make();
    tvm_codegen_options o = cuda_opts();
    tvm_vm_executable* exec = legal ? tvm_codegen_relax_build(legal, &o) : NULL;
    if (!exec) fprintf(stderr, "%s: build\n", kModels[i].name);
    CHECK_OK(exec ? 0 : -1);
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCUDA, 0}, 1) : NULL;
    if (vm) {
      TVMFFIAny args[64], got = tvm_ffi_any_none();
      int n = fm_args(legal, 2, args, 64);
      CHECK_OK(to_device(args, n, kDLCUDA));
      int64_t l0 = launches();
      CHECK_OK(tvm_vm_invoke(vm, "main", args, n, &got));
      CHECK(launches() > l0);
      tvm_ffi_any_release(&got);
      fm_args_free(args, n);
      tvm_vm_release(vm);
    }
    tvm_ffi_release(exec);
    tvm_ffi_release(legal);
  }
}

/* No driver: the library is still written (PTX needs none); the in-process build, which loads
 * the cuda module, says why it cannot. */
TEST(no_driver) {
  tvm_tir_ir_module_obj* legal = fm_elementwise_chain();
  char path[512];
  lib_path("nodriver", path, sizeof(path));
  tvm_codegen_options o = cuda_opts();
  CHECK_OK(legal ? tvm_codegen_relax_export(legal, path, &o) : -1);
  CHECK(access(path, R_OK) == 0);
  unlink(path);
  CHECK(tvm_codegen_relax_build(legal, &o) == NULL);
  void* e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "no CUDA driver"));
  tvm_ffi_release(e);
  /* a bad target is a ValueError naming it */
  o.target = "cuda -arch=sm_5";
  CHECK(tvm_codegen_relax_build(legal, &o) == NULL);
  e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "ValueError") == 0);
  tvm_ffi_release(e);
  o.target = "llvm -mcpu=haswell"; /* the CPU comes from TVM_CODEGEN_CPU, not read here */
  CHECK(tvm_codegen_relax_export(legal, path, &o) != 0);
  e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "-mcpu is not read here"));
  tvm_ffi_release(e);
  tvm_ffi_release(legal);
}

/* On a GPU: each model's library run on GPU 0 against the CPU build on the same inputs. */
TEST(on_the_gpu) {
  for (int i = 0; i < NMODELS; ++i) {
    tvm_tir_ir_module_obj* legal = kModels[i].make();
    char path[512];
    lib_path(kModels[i].name, path, sizeof(path));
    tvm_codegen_options o = tvm_codegen_options_default();
    o.target = "cuda";
    CHECK_OK(legal ? tvm_codegen_relax_export(legal, path, &o) : -1);
    tvm_vm_executable* gexec = tvm_vm_executable_load_file(path);
    tvm_vm_executable* cexec = legal ? tvm_codegen_relax_build(legal, NULL) : NULL;
    tvm_vm* gvm = gexec ? tvm_vm_create(gexec, &(DLDevice){kDLCUDA, 0}, 1) : NULL;
    tvm_vm* cvm = cexec ? tvm_vm_create(cexec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    CHECK(gvm && cvm);
    if (gvm && cvm) {
      for (int64_t batch = 1; batch <= 5; batch += 4) {
        TVMFFIAny args[64], dev[64], want = tvm_ffi_any_none(), got = tvm_ffi_any_none();
        int n = fm_args(legal, batch, args, 64);
        for (int k = 0; k < n; ++k) {
          dev[k] = tvm_ffi_any_copy(&args[k]);
        }
        CHECK_OK(to_device(dev, n, kDLCUDA));
        CHECK_OK(tvm_vm_invoke(cvm, "main", args, n, &want));
        CHECK_OK(tvm_vm_invoke(gvm, "main", dev, n, &got));
        /* back to the host (tuples of results copied field by field) */
        if (got.type_index == kTVMFFITensor) CHECK_OK(to_device(&got, 1, kDLCPU));
        if (got.type_index == kTVMFFIArray) {
          int64_t m = tvm_ffi_seq_size(got.v_obj);
          TVMFFIAny items[8];
          for (int64_t j = 0; j < m && j < 8; ++j) {
            items[j] = tvm_ffi_any_copy(tvm_ffi_seq_at(got.v_obj, j));
          }
          CHECK_OK(to_device(items, (int)m, kDLCPU));
          tvm_ffi_any_release(&got);
          got = tvm_ffi_any_obj(tvm_ffi_array_new_take(items, m));
        }
        int64_t bad = rv_differ(&got, &want, kModels[i].tol);
        if (bad)
          fprintf(stderr, "%s batch %lld: %lld differ\n", kModels[i].name, (long long)batch,
                  (long long)bad);
        CHECK_EQ_INT(bad, 0);
        tvm_ffi_any_release(&got);
        tvm_ffi_any_release(&want);
        fm_args_free(args, n);
        fm_args_free(dev, n);
      }
    }
    if (gvm) tvm_vm_release(gvm);
    if (cvm) tvm_vm_release(cvm);
    tvm_ffi_release(gexec);
    tvm_ffi_release(cexec);
    tvm_ffi_release(legal);
    unlink(path);
  }
}

int main(int argc, char** argv) {
  tvm_vm_init();
  gpu_mode mode;
  int rc = gpu_mode_setup(argc, argv, &mode);
  if (rc != 0) return rc;
  if (mode == GPU_MODE_MISSING) {
    RUN(no_driver);
    return test_summary();
  }
  if (mode == GPU_MODE_REAL) {
    RUN(on_the_gpu);
    return test_summary();
  }
  RUN(schedule_models);
  RUN(schedule_edges);
  RUN(exported_on_fake_driver);
  RUN(jit_on_fake_driver);
  RUN(shape_functions_on_the_host);
  rc = test_summary();
  dlclose(g_fake);
  return rc;
}

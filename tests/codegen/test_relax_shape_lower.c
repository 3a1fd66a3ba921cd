/*
 * test_relax_shape_lower.c: the build pipeline's late passes compiled and run in libvm against
 * the Relax reference evaluator (on the module after LegalizeOps alone) on random inputs:
 * composite symbolic dims (concat of (n, 4) and (n, 4) into (n * 2, 4), parameters declared
 * (n, n * 2) and ((n + 1) // 2,)) computed by generated shape functions, with located errors
 * when a caller's tensor does not match; reshape views that run no kernel; prim values computed
 * by ComputePrimValue's functions (an int result, an If on `n > 2`); folded constants; the model
 * exported as a library.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

#include "relax_models.h"
#include "relax_pool.h"
#include "relax_testing.h"
#include "values_testing.h"
#include "exec_mode_testing.h"

static void print_error(const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "%s: %s\n", what, e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
}

/* Run main of vm and of the evaluator (on `ref`) with args; the number of differences (1 for
 * an error). */
static int compare(tvm_vm* vm, const tvm_tir_ir_module_obj* ref, const TVMFFIAny* args, int n) {
  TVMFFIAny want, got;
  if (tvm_relax_eval(ref, "main", args, n, &want) != 0) {
    print_error("eval");
    return 1;
  }
  int bad = 1;
  if (tvm_vm_invoke(vm, "main", args, n, &got) == 0) {
    bad = rv_differ(&got, &want, 1e-5);
    tvm_ffi_any_release(&got);
  } else {
    print_error("vm");
  }
  tvm_ffi_any_release(&want);
  return bad;
}

/* The model built through the whole pipeline, a VM over it, and the reference (LegalizeOps). */
typedef struct {
  tvm_tir_ir_module_obj* mod;
  tvm_tir_ir_module_obj* ref;
  tvm_vm_executable* exec;
  tvm_vm* vm;
} built;

static built build(tvm_tir_ir_module_obj* mod) {
  built b = {mod, NULL, NULL, NULL};
  b.ref = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  b.exec = b.ref ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (mod && !b.exec) print_error("build");
  b.vm = b.exec ? tvm_vm_create(b.exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  return b;
}

static void unbuild(built* b) {
  if (b->vm) tvm_vm_release(b->vm);
  tvm_ffi_release(b->exec), tvm_ffi_release(b->ref), tvm_ffi_release(b->mod);
}

static void* i64(rp* m, int64_t v) { return rp_keep(m, tvm_tir_const_int(I64, v)); }

/* ---- Composite dims ---------------------------------------------------------------------------- */
/* main(a: (n, 4), b: (n, 4)): c = concat((a, b)) (n * 2, 4); d = exp(c); e = reshape(d, (n * 8,))
 * (a view); f = e * 2 ; return (d, f) */
static tvm_tir_ir_module_obj* concat_model(void) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  void* d4[2] = {n, i64(&m, 4)};
  tvm_relax_var_obj* a = rp_param(&m, "a", rt_tensor_sym(F32, 2, d4));
  tvm_relax_var_obj* b = rp_param(&m, "b", rt_tensor_sym(F32, 2, d4));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  void* axis = rp_keep(&m, rt_attrs(1, "axis", tvm_ffi_any_int(0)));
  tvm_relax_var_obj* c = rp_emit(&m, rp_call(&m, "relax.concat", axis, 1, rp_tuple(&m, 2, a, b)), "c");
  tvm_relax_var_obj* d = rp_output(&m, rp_call(&m, "relax.exp", NULL, 1, c), "d");
  void* flat[1] = {rp_keep(&m, tvm_tir_mul(n, i64(&m, 8)))};
  tvm_relax_var_obj* e = rp_emit(&m, rp_call(&m, "relax.reshape", NULL, 2, d, rp_shape(&m, 1, flat)), "e");
  tvm_relax_expr_obj* two = rp_keep(&m, tvm_relax_constant_new(rp_keep(&m, tvm_ffi_tensor_empty(NULL, 0, F32, (DLDevice){kDLCPU, 0})), NULL));
  if (two) *(float*)tvm_ffi_tensor_dl(((tvm_relax_constant_obj*)two)->data)->data = 2.0f;
  tvm_relax_var_obj* f = rp_output(&m, rp_call(&m, "relax.multiply", NULL, 2, e, two), "f");
  rp_block_end(&m);
  return rp_finish(&m, rp_tuple(&m, 2, d, f));
}

TEST(concat_of_symbolic_dims) {
  built b = build(concat_model());
  CHECK(b.vm != NULL);
  for (int64_t n = 1; b.vm && n <= 9; n += 4) {
    int64_t s[2] = {n, 4};
    void* x = rv_rand(2, s);
    void* y = rv_rand(2, s);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)};
    CHECK_EQ_INT(compare(b.vm, b.ref, args, 2), 0);
    tvm_ffi_release(x), tvm_ffi_release(y);
  }
  /* Exported as a library and loaded back, with its shape functions. */
  char path[512];
  snprintf(path, sizeof(path), "%s/relax_shape_lower_%d.so", TVM_CODEGEN_TEST_TMPDIR, (int)getpid());
  CHECK_OK(b.mod ? tvm_codegen_relax_export(b.mod, path, test_opts()) : -1);
  tvm_vm_executable* lib = tvm_vm_executable_load_file(path);
  CHECK(lib != NULL);
  tvm_vm* vm = lib ? tvm_vm_create(lib, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  int64_t s[2] = {3, 4};
  void* x = rv_rand(2, s);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(x)};
  if (vm) CHECK_EQ_INT(compare(vm, b.ref, args, 2), 0);
  tvm_ffi_release(x);
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(lib);
  unlink(path);
  unbuild(&b);
}

/* main(h: ((n + 1) // 2,), x: (n, n * 2)): return (negative(h), exp(x)). h's dim uses n, which
 * only the later parameter x defines. */
static tvm_tir_ir_module_obj* declared_model(void) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  void* hd[1] = {rp_keep(&m, tvm_tir_floordiv(rp_keep(&m, tvm_tir_add(n, i64(&m, 1))), i64(&m, 2)))};
  void* xd[2] = {n, rp_keep(&m, tvm_tir_mul(n, i64(&m, 2)))};
  tvm_relax_var_obj* h = rp_param(&m, "h", rt_tensor_sym(F32, 1, hd));
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor_sym(F32, 2, xd));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  tvm_relax_var_obj* a = rp_output(&m, rp_call(&m, "relax.negative", NULL, 1, h), "a");
  tvm_relax_var_obj* e = rp_output(&m, rp_call(&m, "relax.exp", NULL, 1, x), "e");
  rp_block_end(&m);
  return rp_finish(&m, rp_tuple(&m, 2, a, e));
}

/* Call main(h of hn, x of (xn, xm)); returns the error message (static buffer) or NULL. */
static const char* call_declared(built* b, int64_t hn, int64_t xn, int64_t xm, int* bad) {
  static char msg[1024];
  int64_t sh[1] = {hn}, sx[2] = {xn, xm};
  void* h = rv_rand(1, sh);
  void* x = rv_rand(2, sx);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(h), tvm_ffi_any_obj(x)}, got;
  const char* out = NULL;
  if (bad) {
    *bad = compare(b->vm, b->ref, args, 2);
  } else if (tvm_vm_invoke(b->vm, "main", args, 2, &got) == 0) {
    tvm_ffi_any_release(&got);
  } else {
    void* e = tvm_ffi_error_take();
    snprintf(msg, sizeof(msg), "%s", e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    out = msg;
  }
  tvm_ffi_release(h), tvm_ffi_release(x);
  return out;
}

TEST(declared_composite_dims_are_checked) {
  built b = build(declared_model());
  CHECK(b.vm != NULL);
  if (!b.vm) {
    unbuild(&b);
    return;
  }
  for (int64_t n = 1; n <= 6; ++n) {
    int bad = 1;
    call_declared(&b, (n + 1) / 2, n, 2 * n, &bad);
    CHECK_EQ_INT(bad, 0);
  }
  /* x declared (n, n * 2), passed (3, 5). */
  const char* msg = call_declared(&b, 2, 3, 5, NULL);
  CHECK(msg != NULL);
  if (msg) {
    CHECK_STR_CONTAINS(msg, "main: argument 'x' of R.Tensor((n, n * T.int64(2))");
    CHECK_STR_CONTAINS(msg, "dimension 1 is n * T.int64(2)");
    CHECK_STR_CONTAINS(msg, "expected 6");
    CHECK_STR_CONTAINS(msg, "got 5");
  }
  /* h declared ((n + 1) // 2,), passed 3 elements for n = 3. */
  msg = call_declared(&b, 3, 3, 6, NULL);
  CHECK(msg != NULL);
  if (msg) {
    CHECK_STR_CONTAINS(msg, "argument 'h'");
    CHECK_STR_CONTAINS(msg, "dimension 0 is");
    CHECK_STR_CONTAINS(msg, "expected 2");
    CHECK_STR_CONTAINS(msg, "got 3");
  }
  /* The plain dims are still checked first. */
  msg = call_declared(&b, 2, 3, 6, NULL);
  CHECK(msg == NULL);
  unbuild(&b);
}

/* VMCodeGen alone refuses a module that needs shape functions (they are only returned by the
 * _kernels variant), naming the way out. */
TEST(codegen_without_kernels_is_refused) {
  tvm_tir_ir_module_obj* mod = declared_model();
  tvm_tir_ir_module_obj* low = mod ? build_pipeline_roundtrip(mod) : NULL;
  CHECK(low != NULL);
  CHECK(low && tvm_codegen_relax_vm_codegen(low) == NULL);
  CHECK_RAISED("ValueError", "tvm_codegen_relax_vm_codegen_kernels");
  tvm_tir_ir_module_obj* kernels = NULL;
  tvm_vm_executable* exec = low ? tvm_codegen_relax_vm_codegen_kernels(low, &kernels) : NULL;
  CHECK(exec != NULL && kernels != NULL);
  void* f = kernels ? tvm_tir_ir_module_lookup(kernels, "shape_func") : NULL;
  CHECK(tvm_tir_is(f, TVM_TIR_KIND_PrimFunc));
  tvm_ffi_release(f), tvm_ffi_release(exec), tvm_ffi_release(kernels);
  tvm_ffi_release(low), tvm_ffi_release(mod);
}

/* A composite dim over a variable nothing defines (ill-formed IR given to VMCodeGen directly)
 * is an error naming the variable and the expression. */
TEST(undefined_variable_is_refused) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* k = rp_keep(&m, tvm_tir_var_new("k", I64));
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 1, (int64_t)4));
  rp_begin(&m, "main");
  void* d[1] = {rp_keep(&m, tvm_tir_mul(k, i64(&m, 2)))};
  tvm_relax_var_obj* s = rp_emit(&m, rp_shape(&m, 1, d), "s");
  tvm_tir_ir_module_obj* mod = rp_finish(&m, rp_tuple(&m, 2, x, s));
  tvm_tir_ir_module_obj* kernels = NULL;
  CHECK(mod && tvm_codegen_relax_vm_codegen_kernels(mod, &kernels) == NULL);
  CHECK(kernels == NULL);
  CHECK_RAISED("ValueError", "VMCodeGen: main: symbolic dim not defined here: k (in k * T.int64(2))");
  tvm_ffi_release(mod);
}

/* ---- Reshape views ----------------------------------------------------------------------------- */
typedef struct {
  int kernels;  /* calls of functions other than VM builtins and shape functions */
  int reshapes; /* calls of vm.builtin.reshape */
  char names[512];
} call_log;

static int log_calls(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)n;
  call_log* l = self;
  TVMFFIByteArray name;
  if (args[2].v_int64 && tvm_ffi_any_as_bytes(&args[1], &name)) {
    if (name.size >= 10 && memcmp(name.data, "shape_func", 10) == 0) {
      /* the shape function computing n * 4 for the view of y */
    } else if (name.size >= 11 && memcmp(name.data, "vm.builtin.", 11) == 0) {
      l->reshapes += name.size == 18 && memcmp(name.data, "vm.builtin.reshape", 18) == 0;
    } else {
      ++l->kernels;
      size_t len = strlen(l->names);
      snprintf(l->names + len, sizeof(l->names) - len, "%.*s;", (int)name.size, name.data);
    }
  }
  *rv = tvm_ffi_any_int(TVM_VM_INSTRUMENT_NO_OP);
  return 0;
}

/* main(x: (2, 6), y: (n, 4)): a = reshape(x, (3, 4)); b = flatten(y) (n * 4,); o1 = a; o2 = b
 * (the dataflow block's outputs); return (o1, o2): views of the parameters' data. */
static tvm_tir_ir_module_obj* view_model(void) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 2, (int64_t)2, (int64_t)6));
  void* yd[2] = {n, i64(&m, 4)};
  tvm_relax_var_obj* y = rp_param(&m, "y", rt_tensor_sym(F32, 2, yd));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  void* s34[2] = {i64(&m, 3), i64(&m, 4)};
  tvm_relax_var_obj* a = rp_emit(&m, rp_call(&m, "relax.reshape", NULL, 2, x, rp_shape(&m, 2, s34)), "a");
  tvm_relax_var_obj* b = rp_emit(&m, rp_call(&m, "relax.flatten", NULL, 1, y), "b");
  tvm_relax_var_obj* o1 = rp_output(&m, (tvm_relax_expr_obj*)a, "o1");
  tvm_relax_var_obj* o2 = rp_output(&m, (tvm_relax_expr_obj*)b, "o2");
  rp_block_end(&m);
  return rp_finish(&m, rp_tuple(&m, 2, o1, o2));
}

TEST(reshape_runs_no_kernel) {
  built b = build(view_model());
  CHECK(b.vm != NULL);
  call_log log = {0, 0, {0}};
  void* cb = tvm_ffi_function_new(&log, log_calls, NULL);
  if (b.vm) CHECK_OK(tvm_vm_set_instrument(b.vm, cb));
  for (int64_t n = 1; b.vm && n <= 5; n += 2) {
    int64_t sx[2] = {2, 6}, sy[2] = {n, 4};
    void* x = rv_rand(2, sx);
    void* y = rv_rand(2, sy);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)};
    CHECK_EQ_INT(compare(b.vm, b.ref, args, 2), 0);
    /* The results share the parameters' memory. */
    TVMFFIAny got;
    if (tvm_vm_invoke(b.vm, "main", args, 2, &got) == 0) {
      CHECK(tvm_ffi_tensor_dl(tvm_ffi_seq_obj_at(got.v_obj, 0))->data == tvm_ffi_tensor_dl(x)->data);
      CHECK(tvm_ffi_tensor_dl(tvm_ffi_seq_obj_at(got.v_obj, 1))->data == tvm_ffi_tensor_dl(y)->data);
      tvm_ffi_any_release(&got);
    }
    tvm_ffi_release(x), tvm_ffi_release(y);
  }
  CHECK_EQ_INT(log.kernels, 0);
  CHECK_STR_EQ(log.names, "");
  CHECK_EQ_INT(log.reshapes, 6 * 2);
  tvm_ffi_release(cb);
  unbuild(&b);
}

/* The build pipeline without its fusion passes (test_relax_fuse covers them): here each kernel
 * stays its own call, so the checks can name them. */
static tvm_tir_ir_module_obj* lowering_pipeline(const tvm_tir_ir_module_obj* mod) {
  const tvm_relax_pass* p;
  tvm_relax_pass passes[32];
  int64_t all = tvm_relax_build_pipeline_passes(&p), n = 0;
  for (int64_t i = 0; i < all && n < 32; ++i) {
    if (strcmp(p[i].name, "AnnotateTIROpPattern") != 0 && strcmp(p[i].name, "FuseOps") != 0 &&
        strcmp(p[i].name, "FuseTIR") != 0) {
      passes[n++] = p[i];
    }
  }
  return run_passes_roundtrip(mod, passes, n);
}

/* main(x: (4, 8)): a = exp(x); b = reshape(a, (8, 4)) (a view of a's storage); c = negative(b);
 * d = exp(c); return d. The view's uses count as a's: a's storage is neither killed nor reused
 * for c or d (static shapes, so StaticPlanBlockMemory plans them) while b is read. */
TEST(a_view_keeps_its_storage) {
  rp m;
  rp_init(&m);
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 2, (int64_t)4, (int64_t)8));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  tvm_relax_var_obj* a = rp_emit(&m, rp_call(&m, "relax.exp", NULL, 1, x), "a");
  void* s84[2] = {i64(&m, 8), i64(&m, 4)};
  tvm_relax_var_obj* v = rp_emit(&m, rp_call(&m, "relax.reshape", NULL, 2, a, rp_shape(&m, 2, s84)), "b");
  tvm_relax_var_obj* c = rp_emit(&m, rp_call(&m, "relax.negative", NULL, 1, v), "c");
  tvm_relax_var_obj* d = rp_output(&m, rp_call(&m, "relax.exp", NULL, 1, c), "d");
  rp_block_end(&m);
  built b = build(rp_finish(&m, (tvm_relax_expr_obj*)d));
  CHECK(b.vm != NULL);
  tvm_tir_ir_module_obj* low = b.mod ? lowering_pipeline(b.mod) : NULL;
  char buf[2048];
  /* a's tensor is killed after c's kernel, its last reader through the view, and c gets a
   * storage of its own. */
  CHECK_STR_CONTAINS(low ? relax_models_bindings_text(low, "main", buf, sizeof(buf)) : "",
                     "b = vm.builtin.reshape(a, shape(8, 4)); "
                     "storage1 = memory.alloc_storage(shape(128), 0, global, uint8); "
                     "alloc1 = memory.alloc_tensor(storage1, 0, shape(8, 4), float32); "
                     "_ = memory.kill_storage(storage1); _ = negative(b, alloc1); "
                     "_ = memory.kill_tensor(alloc); c = alloc1");
  for (int trial = 0; b.vm && trial < 3; ++trial) {
    int64_t s[2] = {4, 8};
    void* xt = rv_rand(2, s);
    TVMFFIAny arg = tvm_ffi_any_obj(xt);
    CHECK_EQ_INT(compare(b.vm, b.ref, &arg, 1), 0);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(low);
  unbuild(&b);
}

/* ---- Prim values ------------------------------------------------------------------------------- */
/* main(x: (n, 4)): r = if n > 2: exp(x) else negative(x); return (r, R.prim_value(n * 2 + 1)) */
static tvm_tir_ir_module_obj* prim_model(void) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  void* xd[2] = {n, i64(&m, 4)};
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor_sym(F32, 2, xd));
  rp_begin(&m, "main");
  tvm_relax_expr_obj* cond = rp_keep(&m, tvm_relax_prim_value_new(rp_keep(&m, tvm_tir_gt(n, i64(&m, 2)))));
  tvm_relax_expr_obj* branch[2];
  const char* ops[2] = {"relax.exp", "relax.negative"};
  for (int i = 0; i < 2; ++i) {
    tvm_relax_expr_obj* call = rp_call(&m, ops[i], NULL, 1, x);
    tvm_relax_var_obj* t = call ? rp_keep(&m, tvm_relax_var_new(i ? "t2" : "t1", tvm_relax_sinfo_of(call), false)) : NULL;
    tvm_relax_binding_obj* bd = t ? rp_keep(&m, tvm_relax_var_binding_new(t, call)) : NULL;
    tvm_relax_block_obj* blk = bd ? rp_keep(&m, tvm_relax_block_new(rp_keep(&m, tvm_ffi_array_of_objects((void**)&bd, 1)), false)) : NULL;
    branch[i] = blk ? rp_keep(&m, tvm_relax_seq_expr_new(rp_keep(&m, tvm_ffi_array_of_objects((void**)&blk, 1)), (tvm_relax_expr_obj*)t)) : NULL;
  }
  tvm_relax_expr_obj* iff = branch[0] && branch[1] ? rp_keep(&m, tvm_relax_if_new(cond, branch[0], branch[1])) : NULL;
  tvm_relax_var_obj* r = rp_emit(&m, iff, "r");
  tvm_tir_expr_obj* v = rp_keep(&m, tvm_tir_add(rp_keep(&m, tvm_tir_mul(n, i64(&m, 2))), i64(&m, 1)));
  tvm_relax_expr_obj* pv = rp_keep(&m, tvm_relax_prim_value_new(v));
  return rp_finish(&m, rp_tuple(&m, 2, r, pv));
}

TEST(prim_values_are_computed) {
  built b = build(prim_model());
  CHECK(b.vm != NULL);
  for (int64_t n = 1; b.vm && n <= 4; ++n) {
    int64_t s[2] = {n, 4};
    void* x = rv_rand(2, s);
    TVMFFIAny arg = tvm_ffi_any_obj(x), got;
    CHECK_EQ_INT(compare(b.vm, b.ref, &arg, 1), 0);
    if (tvm_vm_invoke(b.vm, "main", &arg, 1, &got) == 0) {
      CHECK_EQ_INT(tvm_ffi_seq_at(got.v_obj, 1)->v_int64, 2 * n + 1);
      tvm_ffi_any_release(&got);
    }
    tvm_ffi_release(x);
  }
  unbuild(&b);
}

/* ---- Folded constants -------------------------------------------------------------------------- */
/* main(x: (n, 3)): w = c1 * c2 + c3 (constants, folded); return x + w */
TEST(folded_constants_match) {
  rp m;
  rp_init(&m);
  tvm_tir_expr_obj* n = rp_keep(&m, tvm_tir_var_new("n", I64));
  void* xd[2] = {n, i64(&m, 3)};
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor_sym(F32, 2, xd));
  rp_begin(&m, "main");
  int64_t s3[1] = {3};
  tvm_relax_expr_obj* c[3];
  for (int i = 0; i < 3; ++i) c[i] = rp_keep(&m, tvm_relax_constant_new(rp_keep(&m, rv_rand(1, s3)), NULL));
  rp_dataflow(&m);
  tvm_relax_var_obj* p = rp_emit(&m, rp_call(&m, "relax.multiply", NULL, 2, c[0], c[1]), "p");
  tvm_relax_var_obj* w = rp_emit(&m, rp_call(&m, "relax.add", NULL, 2, p, c[2]), "w");
  tvm_relax_var_obj* o = rp_output(&m, rp_call(&m, "relax.add", NULL, 2, x, w), "o");
  rp_block_end(&m);
  built b = build(rp_finish(&m, (tvm_relax_expr_obj*)o));
  CHECK(b.vm != NULL);
  tvm_tir_ir_module_obj* low = b.mod ? lowering_pipeline(b.mod) : NULL;
  /* One kernel call is left (x + w). */
  char buf[1024];
  CHECK_STR_EQ(low ? relax_models_bindings_text(low, "main", buf, sizeof(buf)) : "",
               "alloc = builtin.alloc_tensor(shape(n, 3), float32, 0); _ = add1(x, const, alloc); o = alloc");
  for (int64_t k = 1; b.vm && k <= 7; k += 3) {
    int64_t s[2] = {k, 3};
    void* xt = rv_rand(2, s);
    TVMFFIAny arg = tvm_ffi_any_obj(xt);
    CHECK_EQ_INT(compare(b.vm, b.ref, &arg, 1), 0);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(low);
  unbuild(&b);
}

int main(void) {
  RUN(concat_of_symbolic_dims);
  RUN(declared_composite_dims_are_checked);
  RUN(codegen_without_kernels_is_refused);
  RUN(undefined_variable_is_refused);
  RUN(reshape_runs_no_kernel);
  RUN(a_view_keeps_its_storage);
  RUN(prim_values_are_computed);
  RUN(folded_constants_match);
  return test_summary();
}

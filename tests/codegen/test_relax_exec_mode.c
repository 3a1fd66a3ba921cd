/*
 * test_relax_exec_mode.c: what is particular to exec_mode compiled (the other Relax build
 * tests run in both modes through their *_compiled.c twins): a function of over a thousand
 * calls (compiled without LLVM's optimizations) matches the evaluator and bytecode mode on
 * random inputs; errors in a compiled function say where they happened; a wrong argument count
 * is the VM's TypeError; an instrument sees every call of a compiled function.
 */
#include <math.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/bytecode.h>
#include <tvm/vm/vm.h>

#include "relax_pool.h"
#include "relax_testing.h"
#include "values_testing.h"

/* main(x: (4,), y: (4,)): `ops` chained adds h = h + y (from x), returned. */
static tvm_tir_ir_module_obj* chain(int ops) {
  rp m;
  rp_init(&m);
  tvm_relax_var_obj* x = rp_param(&m, "x", rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_var_obj* y = rp_param(&m, "y", rt_tensor(F32, 1, (int64_t)4));
  rp_begin(&m, "main");
  rp_dataflow(&m);
  tvm_relax_var_obj* h = x;
  for (int i = 0; i < ops; ++i) {
    h = i + 1 < ops ? rp_emit(&m, rp_call(&m, "relax.add", NULL, 2, h, y), "h")
                    : rp_output(&m, rp_call(&m, "relax.add", NULL, 2, h, y), "out");
  }
  rp_block_end(&m);
  return rp_finish(&m, (tvm_relax_expr_obj*)h);
}

/* The build pipeline without fusion (which would make the chain one kernel). */
static tvm_vm_executable* build(const tvm_tir_ir_module_obj* mod, tvm_codegen_exec_mode mode) {
  const tvm_relax_pass* p;
  tvm_relax_pass passes[32];
  int64_t all = tvm_relax_build_pipeline_passes(&p), n = 0;
  for (int64_t i = 0; i < all && n < 32; ++i) {
    if (strcmp(p[i].name, "FuseOps") != 0 && strcmp(p[i].name, "FuseTIR") != 0) passes[n++] = p[i];
  }
  tvm_codegen_options o = tvm_codegen_options_default();
  o.exec_mode = mode;
  return tvm_codegen_relax_build_passes(mod, passes, n, &o);
}

static int count_calls(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)args;
  if (n >= 3 && args[2].type_index == kTVMFFIBool && args[2].v_int64) ++*(int64_t*)self;
  *rv = tvm_ffi_any_none();
  return 0;
}

TEST(long_function_matches_evaluator_and_bytecode) {
  tvm_tir_ir_module_obj* mod = chain(200); /* ~6 VM calls an add: over 1000 in all (tir.optnone) */
  tvm_vm_executable* ec = mod ? build(mod, TVM_CODEGEN_EXEC_COMPILED) : NULL;
  tvm_vm_executable* eb = mod ? build(mod, TVM_CODEGEN_EXEC_BYTECODE) : NULL;
  tvm_tir_ir_module_obj* ref = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK(ec != NULL && eb != NULL);
  if (!ec || !eb) {
    CHECK_OK(-1);
  } else {
    int64_t fi = tvm_vm_executable_find_function(ec, "main");
    CHECK_EQ_INT(tvm_vm_executable_function_kind(ec, fi), TVM_VM_FUNC_VMTIR);
    CHECK_EQ_INT(tvm_vm_executable_function_kind(eb, tvm_vm_executable_find_function(eb, "main")),
                 TVM_VM_FUNC_VM);
    CHECK(tvm_vm_executable_num_instructions(ec) == 0); /* no bytecode at all */
    tvm_vm* vc = tvm_vm_create(ec, &(DLDevice){kDLCPU, 0}, 1);
    tvm_vm* vb = tvm_vm_create(eb, &(DLDevice){kDLCPU, 0}, 1);
    for (int trial = 0; vc && vb && trial < 3; ++trial) {
      void* x = rv_rand(1, (int64_t[]){4});
      void* y = rv_rand(1, (int64_t[]){4});
      TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, want, gc, gb;
      CHECK_OK(ref ? tvm_relax_eval(ref, "main", args, 2, &want) : -1);
      CHECK_OK(tvm_vm_invoke(vc, "main", args, 2, &gc));
      CHECK_OK(tvm_vm_invoke(vb, "main", args, 2, &gb));
      if (want.type_index == kTVMFFITensor && gc.type_index == kTVMFFITensor &&
          gb.type_index == kTVMFFITensor) {
        const float* w = tvm_ffi_tensor_dl(want.v_obj)->data;
        const float* c = tvm_ffi_tensor_dl(gc.v_obj)->data;
        const float* b = tvm_ffi_tensor_dl(gb.v_obj)->data;
        for (int i = 0; i < 4; ++i) {
          CHECK(fabsf(c[i] - w[i]) <= 1e-4f * (1 + fabsf(w[i])));
          CHECK(c[i] == b[i]); /* the same kernels in the same order */
        }
      } else {
        CHECK(0);
      }
      tvm_ffi_any_release(&want), tvm_ffi_any_release(&gc), tvm_ffi_any_release(&gb);
      tvm_ffi_release(x), tvm_ffi_release(y);
    }
    /* An instrument sees the same calls in both modes. */
    int64_t nc = 0, nb = 0;
    void* fc = tvm_ffi_function_new(&nc, count_calls, NULL);
    void* fb = tvm_ffi_function_new(&nb, count_calls, NULL);
    void* x = rv_rand(1, (int64_t[]){4});
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(x)}, out;
    if (vc && vb) {
      CHECK_OK(tvm_vm_set_instrument(vc, fc));
      CHECK_OK(tvm_vm_set_instrument(vb, fb));
      if (tvm_vm_invoke(vc, "main", args, 2, &out) == 0) tvm_ffi_any_release(&out);
      if (tvm_vm_invoke(vb, "main", args, 2, &out) == 0) tvm_ffi_any_release(&out);
      CHECK(nc > 1000);
      CHECK_EQ_INT(nc, nb);
    }
    tvm_ffi_release(x), tvm_ffi_release(fc), tvm_ffi_release(fb);
    if (vc) tvm_vm_release(vc);
    if (vb) tvm_vm_release(vb);
  }
  tvm_ffi_release(ec), tvm_ffi_release(eb), tvm_ffi_release(ref), tvm_ffi_release(mod);
}

TEST(bad_calls_are_located_errors) {
  tvm_tir_ir_module_obj* mod = chain(3);
  tvm_vm_executable* ec = mod ? build(mod, TVM_CODEGEN_EXEC_COMPILED) : NULL;
  tvm_vm* vm = ec ? tvm_vm_create(ec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(vm != NULL);
  if (vm) {
    void* x = rv_rand(1, (int64_t[]){4});
    void* z = rv_rand(1, (int64_t[]){5});
    TVMFFIAny out;
    TVMFFIAny one[1] = {tvm_ffi_any_obj(x)};
    CHECK(tvm_vm_invoke(vm, "main", one, 1, &out) != 0);
    CHECK_RAISED("TypeError", "expects 2 arguments but got 1");
    TVMFFIAny bad[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(z)};
    CHECK(tvm_vm_invoke(vm, "main", bad, 2, &out) != 0);
    void* e = tvm_ffi_error_take();
    CHECK(e != NULL);
    if (e) {
      CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "'y'");
      CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "in compiled VM function `main`");
      tvm_ffi_release(e);
    }
    /* The VM still runs after the errors. */
    TVMFFIAny good[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(x)};
    CHECK_OK(tvm_vm_invoke(vm, "main", good, 2, &out));
    if (out.type_index == kTVMFFITensor) {
      const float* a = tvm_ffi_tensor_dl(x)->data;
      const float* r = tvm_ffi_tensor_dl(out.v_obj)->data;
      for (int i = 0; i < 4; ++i) CHECK(fabsf(r[i] - 4 * a[i]) <= 1e-5f * (1 + fabsf(a[i])));
    }
    tvm_ffi_any_release(&out);
    tvm_ffi_release(x), tvm_ffi_release(z);
    tvm_vm_release(vm);
  }
  tvm_ffi_release(ec), tvm_ffi_release(mod);
}

int main(void) {
  RUN(long_function_matches_evaluator_and_bytecode);
  RUN(bad_calls_are_located_errors);
  return test_summary();
}

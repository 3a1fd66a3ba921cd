/*
 * test_relax_packed_callees.c: packed functions as callees in the forms upstream allows:
 * R.call_dps_packed whose callee is a function value (a variable bound to R.ExternFunc("..."),
 * of struct info R.Callable; CallTIRRewrite makes it a call of the variable, the VM invokes the
 * packed function it holds) and R.vm.call_tir_dyn of a packed function's name (a string, as
 * upstream's wrapper converts it, or an ExternFunc) with the shape written R.ShapeExpr((m, n)).
 * R.call_inplace_packed, whose packed function writes into an argument and returns it. Each runs
 * in the reference evaluator and compiled (bytecode mode) on random inputs, against values
 * computed here; and the bad inputs (an unregistered name, a callee that is no function).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "exec_mode_testing.h"
#include "values_testing.h"

/* test.dps_scale3(x, out): out = 3 * x + 1 (float32, same shape). */
static int dps_scale3(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  *rv = tvm_ffi_any_none();
  if (n != 2 || args[0].type_index != kTVMFFITensor || args[1].type_index != kTVMFFITensor) {
    return tvm_ffi_raise("TypeError", "test.dps_scale3 expects two tensors");
  }
  const DLTensor *x = tvm_ffi_tensor_dl(args[0].v_obj), *o = tvm_ffi_tensor_dl(args[1].v_obj);
  int64_t k = tvm_ffi_dltensor_numel(x);
  if (tvm_ffi_dltensor_numel(o) != k) return tvm_ffi_raise("ValueError", "test.dps_scale3: sizes differ");
  for (int64_t i = 0; i < k; ++i) ((float*)o->data)[i] = 3 * ((const float*)x->data)[i] + 1;
  return 0;
}

/* test.fill_scaled(x, out, m, n): out = x * m + n, for the (m, n) tensors given. */
static int fill_scaled(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  *rv = tvm_ffi_any_none();
  if (n != 4 || args[0].type_index != kTVMFFITensor || args[1].type_index != kTVMFFITensor ||
      args[2].type_index != kTVMFFIInt || args[3].type_index != kTVMFFIInt) {
    return tvm_ffi_raise("TypeError", "test.fill_scaled expects two tensors and two ints");
  }
  const DLTensor *x = tvm_ffi_tensor_dl(args[0].v_obj), *o = tvm_ffi_tensor_dl(args[1].v_obj);
  int64_t m = args[2].v_int64, k = args[3].v_int64;
  if (x->ndim != 2 || x->shape[0] != m || x->shape[1] != k || tvm_ffi_dltensor_numel(o) != m * k) {
    return tvm_ffi_raise("ValueError", "test.fill_scaled: shapes differ from (m, n)");
  }
  for (int64_t i = 0; i < m * k; ++i) {
    ((float*)o->data)[i] = ((const float*)x->data)[i] * (float)m + (float)k;
  }
  return 0;
}

/* test.add_into(a, b): a += b (float32, same size), returning a: an in-place packed function. */
static int add_into(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  *rv = tvm_ffi_any_none();
  if (n != 2 || args[0].type_index != kTVMFFITensor || args[1].type_index != kTVMFFITensor) {
    return tvm_ffi_raise("TypeError", "test.add_into expects two tensors");
  }
  const DLTensor *a = tvm_ffi_tensor_dl(args[0].v_obj), *b = tvm_ffi_tensor_dl(args[1].v_obj);
  int64_t k = tvm_ffi_dltensor_numel(a);
  if (tvm_ffi_dltensor_numel(b) != k) return tvm_ffi_raise("ValueError", "test.add_into: sizes differ");
  for (int64_t i = 0; i < k; ++i) ((float*)a->data)[i] += ((const float*)b->data)[i];
  tvm_ffi_retain(args[0].v_obj);
  *rv = args[0];
  return 0;
}

static const char kSrc[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "from tvm.script import tir as T\n"
    "@I.ir_module\n"
    "class M:\n"
    "    @R.function\n"
    "    def twice(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n"
    "        func = R.ExternFunc(\"test.dps_scale3\")\n"
    "        gv0 = R.call_dps_packed(func, x, R.Tensor((2, 3), dtype=\"float32\"))\n"
    "        gv1 = R.call_dps_packed(func, gv0, R.Tensor((2, 3), dtype=\"float32\"))\n"
    "        return gv1\n"
    "    @R.function(pure=False)\n"
    "    def dyn(x: R.Tensor((\"m\", \"n\"), \"float32\")) -> R.Tensor((\"m\", \"n\"), \"float32\"):\n"
    "        m = T.int64()\n"
    "        n = T.int64()\n"
    "        y = R.builtin.alloc_tensor(R.shape([m, n]), dtype=\"float32\", runtime_device_index=0)\n"
    "        _ = R.vm.call_tir_dyn(\"test.fill_scaled\", (x, y, R.ShapeExpr((m, n))))\n"
    "        z = R.builtin.alloc_tensor(R.shape([m, n]), dtype=\"float32\", runtime_device_index=0)\n"
    "        _1 = R.vm.call_tir_dyn(R.ExternFunc(\"test.fill_scaled\"), (y, z, R.shape([m, n])))\n"
    "        return z\n";

static tvm_tir_ir_module_obj* parse(const char* src) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  return tvm_script_parse(src, strlen(src), &opts);
}

TEST(function_value_callee) {
  tvm_tir_ir_module_obj* mod = parse(kSrc);
  CHECK_OK(mod ? 0 : -1);
  if (!mod) return;
  tvm_vm_executable* exec = test_mode(tvm_codegen_relax_build(mod, test_opts()));
  CHECK_OK(exec ? 0 : -1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  int64_t shape[2] = {2, 3};
  for (int round = 0; round < 3 && vm; ++round) {
    void* x = rv_rand(2, shape);
    const float* xd = tvm_ffi_tensor_dl(x)->data;
    TVMFFIAny a = tvm_ffi_any_obj(x);
    for (int w = 0; w < 2; ++w) {
      TVMFFIAny r = tvm_ffi_any_none();
      int rc = w == 0 ? tvm_relax_eval(mod, "twice", &a, 1, &r) : tvm_vm_invoke(vm, "twice", &a, 1, &r);
      CHECK_OK(rc);
      const DLTensor* t = rc == 0 && r.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(r.v_obj) : NULL;
      CHECK(t && tvm_ffi_dltensor_numel(t) == 6);
      for (int i = 0; t && i < 6; ++i) {
        float want = 3 * (3 * xd[i] + 1) + 1;
        if (fabsf(((const float*)t->data)[i] - want) > 1e-5f) {
          fprintf(stderr, "%s element %d: got %g, want %g\n", w ? "vm" : "evaluator", i,
                  ((const float*)t->data)[i], want);
          CHECK(0);
        }
      }
      tvm_ffi_any_release(&r);
    }
    tvm_ffi_release(x);
  }
  /* dyn: y = x * m + n, z = y * m + n, on two symbolic shapes */
  int64_t shapes[2][2] = {{2, 5}, {3, 7}};
  for (int k = 0; k < 2 && vm; ++k) {
    void* x = rv_rand(2, shapes[k]);
    const float* xd = tvm_ffi_tensor_dl(x)->data;
    int64_t m = shapes[k][0], n = shapes[k][1];
    TVMFFIAny a = tvm_ffi_any_obj(x);
    for (int w = 0; w < 2; ++w) {
      TVMFFIAny r = tvm_ffi_any_none();
      int rc = w == 0 ? tvm_relax_eval(mod, "dyn", &a, 1, &r) : tvm_vm_invoke(vm, "dyn", &a, 1, &r);
      CHECK_OK(rc);
      const DLTensor* t = rc == 0 && r.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(r.v_obj) : NULL;
      CHECK(t && t->ndim == 2 && t->shape[0] == m && t->shape[1] == n);
      for (int64_t i = 0; t && t->ndim == 2 && i < m * n; ++i) {
        float y = xd[i] * (float)m + (float)n, want = y * (float)m + (float)n;
        if (fabsf(((const float*)t->data)[i] - want) > 1e-4f) {
          fprintf(stderr, "dyn %s element %lld: got %g, want %g\n", w ? "vm" : "evaluator",
                  (long long)i, ((const float*)t->data)[i], want);
          CHECK(0);
        }
      }
      tvm_ffi_any_release(&r);
    }
    tvm_ffi_release(x);
  }
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
}

/* A name nobody registered: an error both ways (the VM's when it loads or calls it). */
TEST(unregistered_name) {
  tvm_tir_ir_module_obj* mod = parse(
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def missing(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n"
      "        func = R.ExternFunc(\"test.no_such_function\")\n"
      "        gv0 = R.call_dps_packed(func, x, R.Tensor((2, 3), dtype=\"float32\"))\n"
      "        return gv0\n");
  CHECK_OK(mod ? 0 : -1);
  if (!mod) return;
  int64_t shape[2] = {2, 3};
  void* x = rv_rand(2, shape);
  TVMFFIAny a = tvm_ffi_any_obj(x), r = tvm_ffi_any_none();
  CHECK(tvm_relax_eval(mod, "missing", &a, 1, &r) != 0);
  CHECK_RAISED("ValueError", "no packed function named test.no_such_function");
  tvm_vm_executable* exec = test_mode(tvm_codegen_relax_build(mod, test_opts()));
  CHECK_OK(exec ? 0 : -1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(!vm || tvm_vm_invoke(vm, "missing", &a, 1, &r) != 0);
  void* e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "test.no_such_function"));
  tvm_ffi_release(e);
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(x);
  tvm_ffi_release(mod);
}

/* A callee that is no function: a tensor is rejected where the call is made. */
TEST(bad_callee) {
  tvm_tir_ir_module_obj* mod = parse(
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@R.function\n"
      "def f(x: R.Tensor((2, 3), \"float32\")) -> R.Tensor((2, 3), \"float32\"):\n"
      "    gv0 = R.call_dps_packed(x, x, R.Tensor((2, 3), dtype=\"float32\"))\n"
      "    return gv0\n");
  CHECK(mod == NULL);
  CHECK_RAISED("TypeError", "argument 'func' must be an ExternFunc or a function value (R.Callable)");
  tvm_ffi_release(mod);
}

/* vm.call_tir_dyn's callee: a GlobalVar or a name; R.ShapeExpr takes a list of dims. */
TEST(bad_call_tir_dyn) {
  tvm_tir_ir_module_obj* mod = parse(
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@R.function(pure=False)\n"
      "def f(x: R.Tensor((2, 3), \"float32\")):\n"
      "    _ = R.vm.call_tir_dyn(x, (x, R.shape([2])))\n"
      "    return x\n");
  CHECK(mod == NULL);
  CHECK_RAISED("TypeError", "argument 'func' must be a GlobalVar of a PrimFunc or a packed "
                            "function's name (ExternFunc, StringImm)");
  mod = parse(
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@R.function\n"
      "def f(x: R.Tensor((2, 3), \"float32\")):\n"
      "    s = R.ShapeExpr(3)\n"
      "    return x\n");
  CHECK(mod == NULL);
  CHECK_RAISED("TypeError", "argument 'values' of R.ShapeExpr must be a list of dims, got int");
}

/* R.call_inplace_packed: main computes s = x + y, adds y into s in place and returns
 * (s + y) * x; alias returns its argument x with y added into it (the very same tensor). */
TEST(inplace_packed_callee) {
  tvm_tir_ir_module_obj* mod = parse(
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 3), \"float32\")):\n"
      "        with R.dataflow():\n"
      "            s = R.add(x, y)\n"
      "            z = R.call_inplace_packed(\"test.add_into\", s, y, inplace_indices=0,\n"
      "                                      sinfo_args=R.Tensor((2, 3), \"float32\"))\n"
      "            w = R.multiply(z, x)\n"
      "            R.output(w)\n"
      "        return w\n"
      "    @R.function\n"
      "    def alias(x: R.Tensor((2, 3), \"float32\"), y: R.Tensor((2, 3), \"float32\")):\n"
      "        z = R.call_inplace_packed(\"test.add_into\", x, y, inplace_indices=[0],\n"
      "                                  sinfo_args=R.Tensor((2, 3), \"float32\"))\n"
      "        return z\n");
  CHECK_OK(mod ? 0 : -1);
  if (!mod) return;
  tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod); /* for the evaluator */
  CHECK_OK(legal ? 0 : -1);
  tvm_vm_executable* exec = test_mode(tvm_codegen_relax_build(mod, test_opts()));
  CHECK_OK(exec ? 0 : -1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  int64_t shape[2] = {2, 3};
  for (int w = 0; w < 2 && vm && legal; ++w) {
    void* x = rv_rand(2, shape);
    void* y = rv_rand(2, shape);
    const float *xd = tvm_ffi_tensor_dl(x)->data, *yd = tvm_ffi_tensor_dl(y)->data;
    float want[6], x0[6];
    for (int i = 0; i < 6; ++i) want[i] = (xd[i] + 2 * yd[i]) * xd[i], x0[i] = xd[i];
    TVMFFIAny a[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, r = tvm_ffi_any_none();
    int rc = w == 0 ? tvm_relax_eval(legal, "main", a, 2, &r) : tvm_vm_invoke(vm, "main", a, 2, &r);
    CHECK_OK(rc);
    const DLTensor* t = rc == 0 && r.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(r.v_obj) : NULL;
    CHECK(t && tvm_ffi_dltensor_numel(t) == 6);
    for (int i = 0; t && i < 6; ++i) {
      CHECK(fabsf(((const float*)t->data)[i] - want[i]) <= 1e-5f);
      CHECK(xd[i] == x0[i]); /* main writes only into its own s */
    }
    tvm_ffi_any_release(&r);
    rc = w == 0 ? tvm_relax_eval(legal, "alias", a, 2, &r) : tvm_vm_invoke(vm, "alias", a, 2, &r);
    CHECK_OK(rc);
    CHECK(rc == 0 && r.type_index == kTVMFFITensor && r.v_obj == x);
    for (int i = 0; i < 6; ++i) CHECK(xd[i] == x0[i] + yd[i]);
    tvm_ffi_any_release(&r);
    tvm_ffi_release(x), tvm_ffi_release(y);
  }
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(legal);
  tvm_ffi_release(mod);
}

int main(void) {
  CHECK_OK(tvm_ffi_global_register("test.dps_scale3", dps_scale3, true));
  CHECK_OK(tvm_ffi_global_register("test.fill_scaled", fill_scaled, true));
  CHECK_OK(tvm_ffi_global_register("test.add_into", add_into, true));
  RUN(function_value_callee);
  RUN(unregistered_name);
  RUN(bad_callee);
  RUN(bad_call_tir_dyn);
  RUN(inplace_packed_callee);
  return test_summary();
}

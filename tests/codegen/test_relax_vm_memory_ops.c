/*
 * test_relax_vm_memory_ops.c: the VM's own allocation operators R.vm.alloc_storage /
 * alloc_tensor / kill_object (tests/corpus/relax/vm_memory.py: tensors at offsets of one storage,
 * one reusing the bytes of a killed tensor; a storage of a symbolic size), run two ways on random
 * inputs: in the Relax reference evaluator (storage as bytes, tensors as views of them) and
 * compiled (vm.builtin.alloc_storage / alloc_tensor, a kill overwriting the register; bytecode
 * mode here, compiled mode in the _compiled twin); each against values computed here. The bad
 * inputs: a tensor past its storage's end and a storage scope other than "global" (errors both
 * ways), and ill-typed arguments (located parse errors).
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
#include "script_testing.h"
#include "values_testing.h"

/* The module's evaluator result and VM result of fn(args), each against want (n floats). */
static void expect_both(tvm_tir_ir_module_obj* mod, const char* fn, void** args, int nargs,
                        const float* want, int64_t n) {
  tvm_vm_executable* exec = test_mode(tvm_codegen_relax_build(mod, test_opts()));
  CHECK_OK(exec ? 0 : -1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(vm != NULL);
  TVMFFIAny a[4];
  for (int i = 0; i < nargs; ++i) a[i] = tvm_ffi_any_obj(args[i]);
  for (int w = 0; w < 2 && vm; ++w) {
    TVMFFIAny r = tvm_ffi_any_none();
    int rc = w == 0 ? tvm_relax_eval(mod, fn, a, nargs, &r) : tvm_vm_invoke(vm, fn, a, nargs, &r);
    CHECK_OK(rc);
    if (rc == 0) {
      CHECK(r.type_index == kTVMFFITensor);
      const DLTensor* t = r.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(r.v_obj) : NULL;
      CHECK(t && t->ndim == 1 && t->shape[0] == n);
      int bad = 0;
      for (int64_t i = 0; t && t->ndim == 1 && t->shape[0] == n && i < n; ++i) {
        double got = rv_elem(t, i);
        if (fabs(got - want[i]) > 1e-5) {
          if (bad++ < 4) {
            fprintf(stderr, "%s (%s) element %lld: got %g, want %g\n", fn, w ? "vm" : "evaluator",
                    (long long)i, got, (double)want[i]);
          }
        }
      }
      CHECK_EQ_INT(bad, 0);
    }
    tvm_ffi_any_release(&r);
  }
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
}

static const float* fdata(void* t) { return (const float*)tvm_ffi_tensor_dl(t)->data; }

/* main: a = x + 1 and b = a * w at offsets 0 and 16 of one 32-byte storage; a killed, c = b + 1
 * in a's bytes; d = b * c in a second storage (b and c must not overlap; d's alloc_tensor in the
 * newer five-argument form). dynamic: y = 2 * x in a storage of 4 * n bytes. */
TEST(corpus_module) {
  tvm_tir_ir_module_obj* mod = test_parse_file(TVM_CORPUS_DIR "/relax", "vm_memory.py");
  if (!mod) return;
  int64_t s4[1] = {4};
  for (int round = 0; round < 3; ++round) {
    void* x = rv_rand(1, s4);
    void* w = rv_rand(1, s4);
    float want[4];
    for (int i = 0; i < 4; ++i) {
      float b = (fdata(x)[i] + 1.0f) * fdata(w)[i];
      want[i] = b * (b + 1.0f);
    }
    void* args[2] = {x, w};
    expect_both(mod, "main", args, 2, want, 4);
    tvm_ffi_release(x), tvm_ffi_release(w);
  }
  int64_t ns[2] = {5, 11};
  for (int k = 0; k < 2; ++k) {
    void* x = rv_rand(1, &ns[k]);
    float want[16];
    for (int64_t i = 0; i < ns[k]; ++i) want[i] = 2.0f * fdata(x)[i];
    expect_both(mod, "dynamic", &x, 1, want, ns[k]);
    tvm_ffi_release(x);
  }
  tvm_ffi_release(mod);
}

/* A module of one impure function f(x: (4,) f32)<ret> whose body is `body` (lines of 8
 * spaces), with a PrimFunc copy(A, B). */
static tvm_tir_ir_module_obj* parse_body_ret(const char* ret, const char* body) {
  char src[2048];
  snprintf(src, sizeof(src),
           "from tvm.script import ir as I\n"
           "from tvm.script import relax as R\n"
           "from tvm.script import tir as T\n"
           "@I.ir_module\n"
           "class M:\n"
           "    @T.prim_func\n"
           "    def copy(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
           "        for i in range(4):\n"
           "            B[i] = A[i]\n"
           "    @R.function(pure=False)\n"
           "    def f(x: R.Tensor((4,), \"float32\"))%s:\n"
           "        cls = M\n"
           "%s",
           ret, body);
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  return tvm_script_parse(src, strlen(src), &opts);
}

/* parse_body_ret with f returning a (4,) f32 tensor. */
static tvm_tir_ir_module_obj* parse_body(const char* body) {
  return parse_body_ret(" -> R.Tensor((4,), \"float32\")", body);
}

/* The module parses, and fails at run time both ways with kind and part in the message. */
static void check_run_fails(const char* body, const char* kind, const char* eval_part,
                            const char* vm_part) {
  tvm_tir_ir_module_obj* mod = parse_body(body);
  CHECK_OK(mod ? 0 : -1);
  if (!mod) return;
  int64_t s4[1] = {4};
  void* x = rv_rand(1, s4);
  TVMFFIAny a = tvm_ffi_any_obj(x), r = tvm_ffi_any_none();
  CHECK(tvm_relax_eval(mod, "f", &a, 1, &r) != 0);
  CHECK_RAISED(kind, eval_part);
  tvm_vm_executable* exec = test_mode(tvm_codegen_relax_build(mod, test_opts()));
  CHECK_OK(exec ? 0 : -1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  if (vm) {
    CHECK(tvm_vm_invoke(vm, "f", &a, 1, &r) != 0);
    CHECK_RAISED(kind, vm_part);
  }
  tvm_ffi_any_release(&r);
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(x);
  tvm_ffi_release(mod);
}

TEST(runtime_errors) {
  /* 16 bytes at offset 4 of a 16-byte storage */
  check_run_fails(
      "        s = R.vm.alloc_storage(R.shape([4]), R.prim_value(0), R.dtype(\"float32\"))\n"
      "        y = R.vm.alloc_tensor(s, R.prim_value(4), R.shape([4]), R.dtype(\"float32\"))\n"
      "        _ = cls.copy(x, y)\n"
      "        return y\n",
      "ValueError", "relax.vm.alloc_tensor of 16 bytes at offset 4 does not fit in a storage of 16 bytes",
      "");
  check_run_fails(
      "        s = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype(\"uint8\"), R.str(\"local\"))\n"
      "        y = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype(\"float32\"))\n"
      "        _ = cls.copy(x, y)\n"
      "        return y\n",
      "ValueError", "relax.vm.alloc_storage in storage scope \"local\"", "local");
}

/* The value of a void call (a PrimFunc called directly, R.assert_op, a kill) has struct info
 * R.Tuple() and is None at run time, in the evaluator as in the VM (as upstream's VM); a
 * function may return it. R.null_value() is None both ways too. */
TEST(void_values_are_none_both_ways) {
  tvm_tir_ir_module_obj* mod = parse_body_ret(
      "",
      "        s = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype(\"uint8\"))\n"
      "        y = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([4]), R.dtype(\"float32\"))\n"
      "        done = cls.copy(x, y)\n"
      "        held = R.assert_op(R.const(True, \"bool\"))\n"
      "        gone = R.vm.kill_object(s)\n"
      "        nothing = R.null_value()\n"
      "        return (y, done, held, gone, nothing)\n");
  CHECK_OK(mod ? 0 : -1);
  if (!mod) return;
  tvm_vm_executable* exec = test_mode(tvm_codegen_relax_build(mod, test_opts()));
  CHECK_OK(exec ? 0 : -1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  int64_t s4[1] = {4};
  void* x = rv_rand(1, s4);
  TVMFFIAny a = tvm_ffi_any_obj(x);
  for (int w = 0; w < 2 && vm; ++w) {
    TVMFFIAny r = tvm_ffi_any_none();
    CHECK_OK(w == 0 ? tvm_relax_eval(mod, "f", &a, 1, &r) : tvm_vm_invoke(vm, "f", &a, 1, &r));
    CHECK(r.type_index == kTVMFFIArray && tvm_ffi_seq_size(r.v_obj) == 5);
    if (r.type_index == kTVMFFIArray && tvm_ffi_seq_size(r.v_obj) == 5) {
      const TVMFFIAny* y = tvm_ffi_seq_at(r.v_obj, 0);
      CHECK(y->type_index == kTVMFFITensor);
      if (y->type_index == kTVMFFITensor) {
        for (int i = 0; i < 4; ++i) CHECK(fdata(y->v_obj)[i] == fdata(x)[i]);
      }
      for (int k = 1; k < 5; ++k) CHECK(tvm_ffi_any_is_none(tvm_ffi_seq_at(r.v_obj, k)));
    }
    tvm_ffi_any_release(&r);
  }
  tvm_ffi_release(x);
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
}

/* Ill-typed arguments: the parse fails, naming the operator and the argument. */
static void check_parse_fails(const char* body, const char* part) {
  tvm_tir_ir_module_obj* mod = parse_body(body);
  CHECK(mod == NULL);
  CHECK_RAISED("TypeError", part);
  tvm_ffi_release(mod);
}

TEST(bad_arguments) {
  check_parse_fails("        s = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.str(\"uint8\"))\n"
                    "        return x\n",
                    "R.vm.alloc_storage: argument 'dtype' must be a DataTypeImm");
  check_parse_fails("        s = R.vm.alloc_storage(R.prim_value(16), 0, \"uint8\")\n"
                    "        return x\n",
                    "R.vm.alloc_storage: argument 'shape' must be a shape");
  check_parse_fails("        s = R.vm.alloc_storage(R.shape([16]), 0, \"uint8\")\n"
                    "        y = R.vm.alloc_tensor(x, 0, R.shape([4]), \"float32\")\n"
                    "        return x\n",
                    "R.vm.alloc_tensor: argument 'storage' must be a storage object");
  check_parse_fails("        s = R.vm.alloc_storage(R.shape([16]), 0, \"uint8\")\n"
                    "        y = R.vm.alloc_tensor(s, R.str(\"a\"), R.shape([4]), \"float32\")\n"
                    "        return x\n",
                    "R.vm.alloc_tensor: argument 'offset' must be an integer R.prim_value");
  check_parse_fails("        s = R.vm.alloc_storage(R.shape([16]), 0, \"uint8\")\n"
                    "        y = R.vm.alloc_tensor(s, 0, R.shape([4]), \"float32\", R.str(\"cpu\"))\n"
                    "        return x\n",
                    "R.vm.alloc_tensor: argument 'runtime_device_index' must be an integer "
                    "R.prim_value");
  check_parse_fails("        s = R.vm.alloc_storage(R.shape([16]), 0, \"uint8\")\n"
                    "        y = R.vm.alloc_tensor(s, 0, R.shape([4]), \"float32\", 0, 0)\n"
                    "        return x\n",
                    "R.vm.alloc_tensor");
  check_parse_fails("        _ = R.vm.kill_object()\n"
                    "        return x\n",
                    "missing required argument 'obj'");
}

int main(void) {
  RUN(corpus_module);
  RUN(runtime_errors);
  RUN(void_values_are_none_both_ways);
  RUN(bad_arguments);
  return test_summary();
}

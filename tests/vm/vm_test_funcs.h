/*
 * vm_test_funcs.h: small packed functions the VM tests call ("test.add", ...) and helpers to
 * build common programs with the builder.
 */
#ifndef TVM_TESTS_VM_VM_TEST_FUNCS_H_
#define TVM_TESTS_VM_VM_TEST_FUNCS_H_

#include <tvm/vm/builder.h>
#include <tvm/vm/vm.h>

#include "test_util.h"

static int test_binop(const char* name, const TVMFFIAny* a, int32_t n, int64_t* x, int64_t* y) {
  return tvm_ffi_check_num_args(name, n, 2) && tvm_ffi_arg_int(name, a, 0, x) &&
                 tvm_ffi_arg_int(name, a, 1, y)
             ? 0
             : -1;
}

static int test_add(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  int64_t x, y;
  if (test_binop("test.add", a, n, &x, &y) != 0) return -1;
  *r = tvm_ffi_any_int(x + y);
  return 0;
}
static int test_sub(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  int64_t x, y;
  if (test_binop("test.sub", a, n, &x, &y) != 0) return -1;
  *r = tvm_ffi_any_int(x - y);
  return 0;
}
static int test_mul(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  int64_t x, y;
  if (test_binop("test.mul", a, n, &x, &y) != 0) return -1;
  *r = tvm_ffi_any_int(x * y);
  return 0;
}
static int test_lt(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  int64_t x, y;
  if (test_binop("test.lt", a, n, &x, &y) != 0) return -1;
  *r = tvm_ffi_any_bool(x < y);
  return 0;
}
static int test_fail(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  return tvm_ffi_raise("ValueError", "test.fail was called with %d arguments", (int)n);
}
/* Returns a raw C string view: the VM must turn it into an owned string. */
static int test_raw_str(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  *r = tvm_ffi_any_raw_str("a raw string longer than seven bytes");
  return 0;
}

static void register_test_funcs(void) {
  tvm_ffi_global_register("test.add", test_add, true);
  tvm_ffi_global_register("test.sub", test_sub, true);
  tvm_ffi_global_register("test.mul", test_mul, true);
  tvm_ffi_global_register("test.lt", test_lt, true);
  tvm_ffi_global_register("test.fail", test_fail, true);
  tvm_ffi_global_register("test.raw_str", test_raw_str, true);
}

/* fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2), recursing through VM function calls. */
static tvm_vm_executable* build_fib(void) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "test.sub");
  tvm_vm_builder_declare_packed(b, "test.add");
  const char* params[] = {"n"};
  tvm_vm_builder_function_begin(b, "fib", 1, 7, params);
  int64_t lt_args[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(2)};
  tvm_vm_builder_emit_call(b, "test.lt", lt_args, 2, 1);
  int64_t br = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  int64_t sub1[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)};
  int64_t sub2[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(2)};
  int64_t r2[] = {tvm_vm_arg_reg(2)}, r3[] = {tvm_vm_arg_reg(3)};
  int64_t add[] = {tvm_vm_arg_reg(4), tvm_vm_arg_reg(5)};
  tvm_vm_builder_emit_call(b, "test.sub", sub1, 2, 2);
  tvm_vm_builder_emit_call(b, "fib", r2, 1, 4);
  tvm_vm_builder_emit_call(b, "test.sub", sub2, 2, 3);
  tvm_vm_builder_emit_call(b, "fib", r3, 1, 5);
  tvm_vm_builder_emit_call(b, "test.add", add, 2, 6);
  tvm_vm_builder_emit_ret(b, 6);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  return e;
}

static tvm_vm* cpu_vm(tvm_vm_executable* e) {
  DLDevice cpu = {kDLCPU, 0};
  return tvm_vm_create(e, &cpu, 1);
}

/* Result of name(args) as an int (-999999 on failure, which also fails the check). */
static int64_t call_int(tvm_vm* vm, const char* name, const TVMFFIAny* args, int32_t n) {
  TVMFFIAny out;
  int rc = tvm_vm_invoke(vm, name, args, n, &out);
  CHECK_OK(rc);
  if (rc != 0) return -999999;
  int64_t v = -999999;
  CHECK(tvm_ffi_any_as_int(&out, &v));
  tvm_ffi_any_release(&out);
  return v;
}

#endif /* TVM_TESTS_VM_VM_TEST_FUNCS_H_ */

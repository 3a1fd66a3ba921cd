/*
 * test_vm_run.c: executing bytecode: arithmetic through packed functions, branches,
 * recursion, closures, shape matching, tensors, storage, instrumentation, the stateful
 * interface, saved functions, the time evaluator, compiled (vm_tir) functions, imports, errors
 * and limits.
 */
#include <stdio.h>

#include "vm_test_funcs.h"

/* main(a, b) = (a + b) * (a - b) */
static tvm_vm_executable* build_arith(void) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_declare_packed(b, "test.sub");
  tvm_vm_builder_declare_packed(b, "test.mul");
  tvm_vm_builder_function_begin(b, "main", 2, 5, NULL);
  int64_t ab[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "test.add", ab, 2, 2);
  tvm_vm_builder_emit_call(b, "test.sub", ab, 2, 3);
  int64_t m[] = {tvm_vm_arg_reg(2), tvm_vm_arg_reg(3)};
  tvm_vm_builder_emit_call(b, "test.mul", m, 2, 4);
  tvm_vm_builder_emit_ret(b, 4);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  return e;
}

TEST(arithmetic) {
  tvm_vm_executable* e = build_arith();
  CHECK(e != NULL);
  tvm_vm* vm = cpu_vm(e);
  CHECK(vm != NULL);
  TVMFFIAny args[] = {tvm_ffi_any_int(7), tvm_ffi_any_int(3)};
  CHECK_EQ_INT(call_int(vm, "main", args, 2), 40);
  /* Through the Function interface. */
  void* f = tvm_vm_get_function(vm, "main");
  CHECK(f != NULL);
  TVMFFIAny r;
  args[0] = tvm_ffi_any_int(10);
  CHECK_OK(tvm_ffi_function_call(f, args, 2, &r));
  CHECK_EQ_INT(r.v_int64, 91);
  /* The function keeps the VM state alive after the module is released. */
  tvm_vm_release(vm);
  CHECK_OK(tvm_ffi_function_call(f, args, 2, &r));
  CHECK_EQ_INT(r.v_int64, 91);
  tvm_ffi_release(f);
  tvm_vm_executable_release(e);
}

TEST(wrong_arguments) {
  tvm_vm_executable* e = build_arith();
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny args[] = {tvm_ffi_any_int(1), tvm_ffi_any_raw_str("not an int")}, r;
  CHECK(tvm_vm_invoke(vm, "main", args, 1, &r) != 0);
  CHECK_RAISED("TypeError", "VM function `main` expects 2 arguments but got 1");
  CHECK(tvm_vm_invoke(vm, "main", args, 2, &r) != 0);
  void* err = tvm_ffi_error_take();
  CHECK(err != NULL);
  if (err) {
    CHECK_STR_EQ(tvm_ffi_error_kind(err), "TypeError");
    CHECK_STR_CONTAINS(tvm_ffi_error_message(err), "argument #1 when calling `test.add`");
    TVMFFIByteArray bt = TVMFFIErrorGetCellPtr(err)->backtrace;
    CHECK(bt.data && strstr(bt.data, "at VM function main, instruction 0: call test.add in: %0, %1 dst: %2"));
  }
  tvm_ffi_release(err);
  CHECK(tvm_vm_invoke(vm, "missing", args, 2, &r) != 0);
  CHECK_RAISED("ValueError", "unknown function `missing`");
  CHECK(tvm_vm_get_function(vm, "missing") == NULL);
  CHECK_RAISED("ValueError", "unknown function `missing`");
  CHECK(tvm_vm_invoke((tvm_vm*)e, "main", args, 2, &r) != 0);
  CHECK_RAISED("TypeError", "not a relax.VirtualMachine");
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* abs_diff(a, b) = a < b ? b - a : a - b, with If and Goto. */
TEST(branches) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "test.sub");
  tvm_vm_builder_function_begin(b, "abs_diff", 2, 4, NULL);
  int64_t ab[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)}, ba[] = {tvm_vm_arg_reg(1), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "test.lt", ab, 2, 2);
  int64_t br = tvm_vm_builder_emit_if(b, 2, 0);
  tvm_vm_builder_emit_call(b, "test.sub", ba, 2, 3);
  int64_t jmp = tvm_vm_builder_emit_goto(b, 0);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.sub", ab, 2, 3);
  tvm_vm_builder_set_jump_target(b, jmp, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_ret(b, 3);
  CHECK_OK(tvm_vm_builder_function_end(b));
  /* A loop: sum(n) = n + (n-1) + ... + 1 with a backward goto. */
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_function_begin(b, "sum", 1, 4, NULL);
  int64_t zero[] = {tvm_vm_arg_imm(0)};
  tvm_vm_builder_declare_packed(b, "vm.builtin.copy");
  tvm_vm_builder_emit_call(b, "vm.builtin.copy", zero, 1, 1); /* acc = 0 */
  int64_t top = tvm_vm_builder_next_instr(b);
  int64_t lt[] = {tvm_vm_arg_imm(0), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "test.lt", lt, 2, 2); /* 0 < n */
  int64_t exit_br = tvm_vm_builder_emit_if(b, 2, 0);
  int64_t acc[] = {tvm_vm_arg_reg(1), tvm_vm_arg_reg(0)}, dec[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "test.add", acc, 2, 1);
  tvm_vm_builder_emit_call(b, "test.sub", dec, 2, 0);
  int64_t back = tvm_vm_builder_emit_goto(b, 0);
  tvm_vm_builder_set_jump_target(b, back, top);
  tvm_vm_builder_set_jump_target(b, exit_br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_ret(b, 1);
  CHECK_OK(tvm_vm_builder_function_end(b));
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny args[] = {tvm_ffi_any_int(3), tvm_ffi_any_int(10)};
  CHECK_EQ_INT(call_int(vm, "abs_diff", args, 2), 7);
  args[0] = tvm_ffi_any_int(30);
  CHECK_EQ_INT(call_int(vm, "abs_diff", args, 2), 20);
  TVMFFIAny n = tvm_ffi_any_int(100);
  CHECK_EQ_INT(call_int(vm, "sum", &n, 1), 5050);
  n = tvm_ffi_any_int(0);
  CHECK_EQ_INT(call_int(vm, "sum", &n, 1), 0);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

TEST(if_condition_must_be_int) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_function_begin(b, "f", 1, 1, NULL);
  int64_t br = tvm_vm_builder_emit_if(b, 0, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_ret(b, TVM_VM_REG_VOID);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny s = tvm_ffi_string("a long string object"), r;
  CHECK(tvm_vm_invoke(vm, "f", &s, 1, &r) != 0);
  CHECK_RAISED("TypeError", "If: condition register %0 holds ffi.String");
  TVMFFIAny f = tvm_ffi_any_bool(false);
  CHECK_OK(tvm_vm_invoke(vm, "f", &f, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  tvm_ffi_any_release(&s);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

TEST(fibonacci) {
  tvm_vm_executable* e = build_fib();
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny n = tvm_ffi_any_int(20);
  CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 6765);
  n = tvm_ffi_any_int(1);
  CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 1);
  /* The depth limit: fib(20) needs 20 frames. */
  CHECK_OK(tvm_vm_set_max_call_depth(vm, 10));
  n = tvm_ffi_any_int(20);
  TVMFFIAny r;
  CHECK(tvm_vm_invoke(vm, "fib", &n, 1, &r) != 0);
  void* err = tvm_ffi_error_take();
  CHECK(err && strcmp(tvm_ffi_error_kind(err), "RecursionError") == 0);
  if (err) {
    CHECK_STR_CONTAINS(tvm_ffi_error_message(err), "maximum VM call depth (10) exceeded calling `fib`");
    CHECK_STR_CONTAINS(TVMFFIErrorGetCellPtr(err)->backtrace.data, "at VM function fib, instruction 4: call fib");
  }
  tvm_ffi_release(err);
  CHECK_OK(tvm_vm_set_max_call_depth(vm, 100));
  CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 6765); /* the VM is usable after the error */
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

TEST(deep_recursion_and_error_trace_limit) {
  /* down(n) = n < 1 ? fail() : down(n - 1) */
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "test.sub");
  tvm_vm_builder_declare_packed(b, "test.fail");
  tvm_vm_builder_function_begin(b, "down", 1, 3, NULL);
  int64_t lt[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)}, sub[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "test.lt", lt, 2, 1);
  int64_t br = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_emit_call(b, "test.fail", NULL, 0, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.sub", sub, 2, 2);
  int64_t rec[] = {tvm_vm_arg_reg(2)};
  tvm_vm_builder_emit_call(b, "down", rec, 1, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  CHECK_OK(tvm_vm_set_max_call_depth(vm, 200000));
  TVMFFIAny n = tvm_ffi_any_int(100000), r; /* 100001 frames deep, no C recursion */
  CHECK(tvm_vm_invoke(vm, "down", &n, 1, &r) != 0);
  void* err = tvm_ffi_error_take();
  CHECK(err && strcmp(tvm_ffi_error_kind(err), "ValueError") == 0);
  if (err) {
    const char* bt = TVMFFIErrorGetCellPtr(err)->backtrace.data;
    CHECK_STR_CONTAINS(bt, "at VM function down, instruction 2: call test.fail in:  dst: %2");
    CHECK_STR_CONTAINS(bt, "... 99969 more VM frames");
  }
  tvm_ffi_release(err);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* add3(a, b, c) = a + b + c; main(x) = make_closure(add3, 10, 20) called with x. */
TEST(closures) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_declare_packed(b, "vm.builtin.make_closure");
  tvm_vm_builder_declare_packed(b, "vm.builtin.invoke_closure");
  int64_t add3 = tvm_vm_builder_declare_function(b, "add3", 3);
  tvm_vm_builder_function_begin(b, "main", 1, 3, NULL);
  int64_t mk[] = {tvm_vm_arg_func(add3), tvm_vm_arg_imm(10), tvm_vm_arg_imm(20)};
  tvm_vm_builder_emit_call(b, "vm.builtin.make_closure", mk, 3, 1);
  int64_t inv[] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_reg(1), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "vm.builtin.invoke_closure", inv, 3, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "get_closure", 0, 1, NULL);
  int64_t mk1[] = {tvm_vm_arg_func(add3), tvm_vm_arg_imm(1000)};
  tvm_vm_builder_emit_call(b, "vm.builtin.make_closure", mk1, 2, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "add3", 3, 5, NULL);
  int64_t a1[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)}, a2[] = {tvm_vm_arg_reg(3), tvm_vm_arg_reg(2)};
  tvm_vm_builder_emit_call(b, "test.add", a1, 2, 3);
  tvm_vm_builder_emit_call(b, "test.add", a2, 2, 4);
  tvm_vm_builder_emit_ret(b, 4);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny x = tvm_ffi_any_int(5);
  CHECK_EQ_INT(call_int(vm, "main", &x, 1), 35);
  /* A closure returned to the host, called through the VM's invoke_closure function. */
  TVMFFIAny clo;
  CHECK_OK(tvm_vm_invoke(vm, "get_closure", NULL, 0, &clo));
  CHECK(clo.type_index == tvm_vm_closure_type_index());
  void* inv_fn = NULL;
  CHECK_OK(tvm_ffi_module_get_function(vm, "invoke_closure", false, &inv_fn));
  TVMFFIAny cargs[] = {clo, tvm_ffi_any_int(1), tvm_ffi_any_int(2)}, r;
  CHECK_OK(tvm_ffi_function_call(inv_fn, cargs, 3, &r));
  CHECK_EQ_INT(r.v_int64, 1003);
  CHECK(tvm_ffi_function_call(inv_fn, cargs, 2, &r) != 0);
  CHECK_RAISED("TypeError", "VM function `add3` expects 3 arguments but got 2");
  /* A closure of one executable cannot run on a VM of another. */
  tvm_vm_executable* other = build_arith();
  tvm_vm* vm2 = cpu_vm(other);
  void* inv2 = NULL;
  CHECK_OK(tvm_ffi_module_get_function(vm2, "invoke_closure", false, &inv2));
  CHECK(tvm_ffi_function_call(inv2, cargs, 3, &r) != 0);
  CHECK_RAISED("ValueError", "belongs to a different executable");
  /* vm.builtin.invoke_closure checks its context argument. */
  TVMFFIAny bad[] = {tvm_ffi_any_int(3), clo};
  CHECK(tvm_ffi_global_call("vm.builtin.invoke_closure", bad, 2, &r) != 0);
  CHECK_RAISED("TypeError", "expected the VM context");
  tvm_ffi_release(inv2);
  tvm_vm_release(vm2);
  tvm_vm_executable_release(other);
  tvm_ffi_release(inv_fn);
  tvm_ffi_any_release(&clo);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* main(x, y): x is (n, 4), y is (n,); returns shape (n, 8). */
static tvm_vm_executable* build_shapes(void) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "vm.builtin.alloc_shape_heap");
  tvm_vm_builder_declare_packed(b, "vm.builtin.match_shape");
  tvm_vm_builder_declare_packed(b, "vm.builtin.make_shape");
  tvm_vm_builder_declare_packed(b, "vm.builtin.check_tensor_info");
  int64_t cx = tvm_vm_builder_const_str(b, "x"), cy = tvm_vm_builder_const_str(b, "y");
  int64_t f32 = tvm_vm_builder_const_dtype(b, tvm_ffi_dtype(kDLFloat, 32, 1));
  const char* params[] = {"x", "y"};
  tvm_vm_builder_function_begin(b, "main", 2, 4, params);
  int64_t chk[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(2), tvm_vm_arg_const(f32), tvm_vm_arg_const(cx)};
  tvm_vm_builder_emit_call(b, "vm.builtin.check_tensor_info", chk, 4, TVM_VM_REG_VOID);
  int64_t heap[] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "vm.builtin.alloc_shape_heap", heap, 2, 2);
  int64_t mx[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(2), tvm_vm_arg_imm(2),
                  tvm_vm_arg_imm(TVM_VM_MATCH_STORE_TO_HEAP), tvm_vm_arg_imm(0),
                  tvm_vm_arg_imm(TVM_VM_MATCH_ASSERT_EQUAL_TO_IMM), tvm_vm_arg_imm(4),
                  tvm_vm_arg_const(cx)};
  tvm_vm_builder_emit_call(b, "vm.builtin.match_shape", mx, 8, TVM_VM_REG_VOID);
  int64_t my[] = {tvm_vm_arg_reg(1), tvm_vm_arg_reg(2), tvm_vm_arg_imm(1),
                  tvm_vm_arg_imm(TVM_VM_MATCH_ASSERT_EQUAL_TO_LOAD), tvm_vm_arg_imm(0),
                  tvm_vm_arg_const(cy)};
  tvm_vm_builder_emit_call(b, "vm.builtin.match_shape", my, 6, TVM_VM_REG_VOID);
  int64_t mk[] = {tvm_vm_arg_reg(2), tvm_vm_arg_imm(2), tvm_vm_arg_imm(TVM_VM_MAKE_LOAD_SHAPE),
                  tvm_vm_arg_imm(0), tvm_vm_arg_imm(TVM_VM_MAKE_USE_IMM), tvm_vm_arg_imm(8)};
  tvm_vm_builder_emit_call(b, "vm.builtin.make_shape", mk, 6, 3);
  tvm_vm_builder_emit_ret(b, 3);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  return e;
}

static void* tensor_2d(int64_t a, int64_t c, DLDataType dt) {
  int64_t shape[] = {a, c};
  return tvm_ffi_tensor_empty(shape, c < 0 ? 1 : 2, dt, (DLDevice){kDLCPU, 0});
}

static void expect_shape_error(tvm_vm* vm, void* x, void* y, const char* kind, const char* part) {
  TVMFFIAny args[] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, r;
  CHECK(tvm_vm_invoke(vm, "main", args, 2, &r) != 0);
  CHECK_RAISED(kind, part);
}

TEST(shape_matching) {
  tvm_vm_executable* e = build_shapes();
  CHECK(e != NULL);
  tvm_vm* vm = cpu_vm(e);
  DLDataType f32 = tvm_ffi_dtype(kDLFloat, 32, 1), i32 = tvm_ffi_dtype(kDLInt, 32, 1);
  void* x = tensor_2d(3, 4, f32);
  void* y = tensor_2d(3, -1, f32);
  TVMFFIAny args[] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, r;
  CHECK_OK(tvm_vm_invoke(vm, "main", args, 2, &r));
  CHECK(r.type_index == kTVMFFIShape && tvm_ffi_shape_ndim(r.v_obj) == 2 &&
        tvm_ffi_shape_data(r.v_obj)[0] == 3 && tvm_ffi_shape_data(r.v_obj)[1] == 8);
  tvm_ffi_any_release(&r);
  /* Each kind of mismatch names the dimension and the value. */
  void* x5 = tensor_2d(3, 5, f32);
  expect_shape_error(vm, x5, y, "ValueError", "match_shape: dimension 1 of x: expected 4 but got 5");
  void* y4 = tensor_2d(4, -1, f32);
  expect_shape_error(vm, x, y4, "ValueError",
                     "match_shape: dimension 0 of y: expected 3 (bound earlier, shape heap slot 0) but got 4");
  expect_shape_error(vm, x, x, "ValueError", "match_shape: ndim of y: expected 1 but got 2");
  void* xi = tensor_2d(3, 4, i32);
  expect_shape_error(vm, xi, y, "ValueError", "check_tensor_info: x: expected a Tensor with dtype float32 but got int32");
  expect_shape_error(vm, y, y, "ValueError", "check_tensor_info: x: expected a Tensor with ndim 2 but got 1");
  TVMFFIAny not_tensor[] = {tvm_ffi_any_int(1), tvm_ffi_any_obj(y)};
  CHECK(tvm_vm_invoke(vm, "main", not_tensor, 2, &r) != 0);
  CHECK_RAISED("TypeError", "check_tensor_info: x: expected a Tensor but got int");
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  tvm_ffi_release(x5);
  tvm_ffi_release(y4);
  tvm_ffi_release(xi);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

TEST(shape_builtins_direct) {
  /* Shapes as match_shape input, heap bounds, prim values, struct-info checks. */
  int64_t dims[] = {2, 9};
  void* shape = tvm_ffi_shape_new(dims, 2);
  int64_t hs = 2;
  void* heap = tvm_ffi_tensor_empty(&hs, 1, tvm_ffi_dtype(kDLInt, 64, 1), (DLDevice){kDLCPU, 0});
  TVMFFIAny r;
  TVMFFIAny ms[] = {tvm_ffi_any_obj(shape), tvm_ffi_any_obj(heap), tvm_ffi_any_int(2),
                    tvm_ffi_any_int(1), tvm_ffi_any_int(1), tvm_ffi_any_int(1), tvm_ffi_any_int(0)};
  CHECK_OK(tvm_ffi_global_call("vm.builtin.match_shape", ms, 7, &r));
  int64_t* h = (int64_t*)tvm_ffi_tensor_dl(heap)->data;
  CHECK(h[1] == 2 && h[0] == 9);
  ms[4] = tvm_ffi_any_int(5); /* heap slot 5 of 2 */
  CHECK(tvm_ffi_global_call("vm.builtin.match_shape", ms, 7, &r) != 0);
  CHECK_RAISED("IndexError", "shape heap slot 5 out of range (the heap has 2 slots)");
  ms[1] = tvm_ffi_any_none();
  CHECK(tvm_ffi_global_call("vm.builtin.match_shape", ms, 7, &r) != 0);
  CHECK_RAISED("ValueError", "needs a shape heap");
  ms[1] = tvm_ffi_any_obj(heap);
  ms[3] = tvm_ffi_any_int(9);
  CHECK(tvm_ffi_global_call("vm.builtin.match_shape", ms, 7, &r) != 0);
  CHECK_RAISED("ValueError", "unknown match code 9");
  CHECK(tvm_ffi_global_call("vm.builtin.match_shape", ms, 5, &r) != 0);
  CHECK_RAISED("TypeError", "2 dimensions need 7 arguments but got 5");
  TVMFFIAny pv[] = {tvm_ffi_any_int(9), tvm_ffi_any_obj(heap), tvm_ffi_any_int(3), tvm_ffi_any_int(0),
                    tvm_ffi_any_raw_str("n")};
  CHECK_OK(tvm_ffi_global_call("vm.builtin.match_prim_value", pv, 5, &r));
  pv[0] = tvm_ffi_any_int(10);
  CHECK(tvm_ffi_global_call("vm.builtin.match_prim_value", pv, 5, &r) != 0);
  CHECK_RAISED("ValueError", "match_prim_value: value of n: expected 9 (bound earlier, shape heap slot 0) but got 10");
  TVMFFIAny mp[] = {tvm_ffi_any_obj(heap), tvm_ffi_any_int(1), tvm_ffi_any_int(1)};
  CHECK_OK(tvm_ffi_global_call("vm.builtin.make_prim_value", mp, 3, &r));
  CHECK_EQ_INT(r.v_int64, 2);
  TVMFFIAny cs[] = {tvm_ffi_any_obj(shape), tvm_ffi_any_int(3), tvm_ffi_any_raw_str("s")};
  CHECK(tvm_ffi_global_call("vm.builtin.check_shape_info", cs, 3, &r) != 0);
  CHECK_RAISED("ValueError", "check_shape_info: s: expected a Shape with ndim 3 but got 2");
  TVMFFIAny cp[] = {tvm_ffi_any_float(1.5), tvm_ffi_any_raw_str("int64"), tvm_ffi_any_raw_str("p")};
  CHECK(tvm_ffi_global_call("vm.builtin.check_prim_value_info", cp, 3, &r) != 0);
  CHECK_RAISED("TypeError", "check_prim_value_info: p: expected a int64 value but got float");
  cp[1] = tvm_ffi_any_dtype(tvm_ffi_dtype(kDLFloat, 32, 1));
  CHECK_OK(tvm_ffi_global_call("vm.builtin.check_prim_value_info", cp, 3, &r));
  TVMFFIAny tup_items[] = {tvm_ffi_any_int(1), tvm_ffi_any_int(2)};
  TVMFFIAny tup;
  CHECK_OK(tvm_ffi_global_call("vm.builtin.make_tuple", tup_items, 2, &tup));
  TVMFFIAny ct[] = {tup, tvm_ffi_any_int(3), tvm_ffi_any_raw_str("t")};
  CHECK(tvm_ffi_global_call("vm.builtin.check_tuple_info", ct, 3, &r) != 0);
  CHECK_RAISED("ValueError", "check_tuple_info: t: expected a Tuple with 3 elements but got 2");
  TVMFFIAny gi[] = {tup, tvm_ffi_any_int(1)};
  CHECK_OK(tvm_ffi_global_call("vm.builtin.tuple_getitem", gi, 2, &r));
  CHECK_EQ_INT(r.v_int64, 2);
  gi[1] = tvm_ffi_any_int(2);
  CHECK(tvm_ffi_global_call("vm.builtin.tuple_getitem", gi, 2, &r) != 0);
  CHECK_RAISED("IndexError", "index 2 out of range");
  TVMFFIAny cf[] = {tup, tvm_ffi_any_raw_str("f")};
  CHECK(tvm_ffi_global_call("vm.builtin.check_func_info", cf, 2, &r) != 0);
  CHECK_RAISED("TypeError", "check_func_info: f: expected a Function but got ffi.Array");
  tvm_ffi_any_release(&tup);
  tvm_ffi_release(shape);
  tvm_ffi_release(heap);
}

TEST(runtime_builtins_direct) {
  int64_t shape[] = {2, 3};
  void* t = tvm_ffi_tensor_empty(shape, 2, tvm_ffi_dtype(kDLInt, 32, 1), (DLDevice){kDLCPU, 0});
  int32_t* d = (int32_t*)tvm_ffi_tensor_dl(t)->data;
  for (int i = 0; i < 6; ++i) d[i] = i + 1;
  TVMFFIAny r, a = tvm_ffi_any_obj(t);
  CHECK_OK(tvm_ffi_global_call("vm.builtin.shape_of", &a, 1, &r));
  CHECK(r.type_index == kTVMFFIShape && tvm_ffi_shape_data(r.v_obj)[1] == 3);
  TVMFFIAny rs[] = {a, r}, view;
  int64_t six = 6;
  void* flat = tvm_ffi_shape_new(&six, 1);
  rs[1] = tvm_ffi_any_obj(flat);
  CHECK_OK(tvm_ffi_global_call("vm.builtin.reshape", rs, 2, &view));
  CHECK(tvm_ffi_tensor_dl(view.v_obj)->ndim == 1 && tvm_ffi_tensor_dl(view.v_obj)->shape[0] == 6);
  TVMFFIAny shp;
  CHECK_OK(tvm_ffi_global_call("vm.builtin.tensor_to_shape", &view, 1, &shp));
  CHECK(tvm_ffi_shape_ndim(shp.v_obj) == 6 && tvm_ffi_shape_data(shp.v_obj)[5] == 6);
  tvm_ffi_any_release(&shp);
  rs[1] = r; /* (2, 3) for 6 elements of the flat view: fine; (2, 3) of a wrong count is not */
  tvm_ffi_any_release(&r);
  int64_t four = 4;
  void* bad = tvm_ffi_shape_new(&four, 1);
  rs[1] = tvm_ffi_any_obj(bad);
  CHECK(tvm_ffi_global_call("vm.builtin.reshape", rs, 2, &r) != 0);
  CHECK_RAISED("ValueError", "cannot view a compact tensor of 6 elements with a shape of 4 elements");
  /* read_if_cond on a scalar tensor, ints and bools. */
  int64_t one = 1;
  void* c = tvm_ffi_tensor_empty(&one, 1, tvm_ffi_dtype(kDLInt, 8, 1), (DLDevice){kDLCPU, 0});
  *(int8_t*)tvm_ffi_tensor_dl(c)->data = -3;
  TVMFFIAny cv = tvm_ffi_any_obj(c);
  CHECK_OK(tvm_ffi_global_call("vm.builtin.read_if_cond", &cv, 1, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 1);
  cv = tvm_ffi_any_int(0);
  CHECK_OK(tvm_ffi_global_call("vm.builtin.read_if_cond", &cv, 1, &r));
  CHECK(r.v_int64 == 0);
  /* to_device on the CPU copies. */
  TVMFFIAny td[] = {a, tvm_ffi_any_int(kDLCPU), tvm_ffi_any_int(0)};
  CHECK_OK(tvm_ffi_global_call("vm.builtin.to_device", td, 3, &r));
  CHECK(tvm_ffi_tensor_dl(r.v_obj)->data != tvm_ffi_tensor_dl(t)->data);
  CHECK(memcmp(tvm_ffi_tensor_dl(r.v_obj)->data, d, 24) == 0);
  tvm_ffi_any_release(&r);
  td[1] = tvm_ffi_any_int(kDLOpenCL);
  CHECK(tvm_ffi_global_call("vm.builtin.to_device", td, 3, &r) != 0);
  CHECK_RAISED("ValueError", "is not supported by the VM");
  CHECK_OK(tvm_ffi_global_call("vm.builtin.ensure_zero_offset", &a, 1, &r));
  CHECK(r.v_obj == t);
  tvm_ffi_any_release(&r);
  CHECK_OK(tvm_ffi_global_call("vm.builtin.null_value", NULL, 0, &r));
  CHECK(r.type_index == kTVMFFINone);
  TVMFFIAny s = tvm_ffi_any_raw_str("copied string, long");
  CHECK_OK(tvm_ffi_global_call("vm.builtin.copy", &s, 1, &r));
  CHECK(r.type_index == kTVMFFIStr);
  tvm_ffi_any_release(&r);
  tvm_ffi_release(c);
  tvm_ffi_release(bad);
  tvm_ffi_release(flat);
  tvm_ffi_any_release(&view);
  tvm_ffi_release(t);
}

/* Tensors in the constant pool reach the program; storage and tensor allocation. */
TEST(tensors_and_storage) {
  int64_t shape[] = {4};
  void* src = tvm_ffi_tensor_empty(shape, 1, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
  float* sd = (float*)tvm_ffi_tensor_dl(src)->data;
  for (int i = 0; i < 4; ++i) sd[i] = 0.5f * (float)i;
  tvm_vm_builder* b = tvm_vm_builder_new();
  int64_t ct = tvm_vm_builder_const_tensor(b, src);
  int64_t cs = tvm_vm_builder_const_shape(b, shape, 1);
  int64_t cd = tvm_vm_builder_const_dtype(b, tvm_ffi_dtype(kDLFloat, 32, 1));
  tvm_vm_builder_declare_packed(b, "vm.builtin.copy");
  tvm_vm_builder_declare_packed(b, "vm.builtin.alloc_storage");
  tvm_vm_builder_declare_packed(b, "vm.builtin.alloc_tensor");
  tvm_vm_builder_function_begin(b, "weights", 0, 1, NULL);
  int64_t c0[] = {tvm_vm_arg_const(ct)};
  tvm_vm_builder_emit_call(b, "vm.builtin.copy", c0, 1, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "alloc", 0, 2, NULL);
  int64_t st[] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_const(cs), tvm_vm_arg_imm(0), tvm_vm_arg_const(cd)};
  tvm_vm_builder_emit_call(b, "vm.builtin.alloc_storage", st, 4, 0);
  int64_t at[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(0), tvm_vm_arg_const(cs), tvm_vm_arg_const(cd)};
  tvm_vm_builder_emit_call(b, "vm.builtin.alloc_tensor", at, 4, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "bad_alloc", 0, 2, NULL);
  int64_t at2[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(8), tvm_vm_arg_const(cs), tvm_vm_arg_const(cd)};
  tvm_vm_builder_emit_call(b, "vm.builtin.alloc_storage", st, 4, 0);
  tvm_vm_builder_emit_call(b, "vm.builtin.alloc_tensor", at2, 4, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  sd[0] = 99.0f; /* the executable holds a copy */
  for (int pass = 0; pass < 2; ++pass) {
    DLDevice cpu = {kDLCPU, 0};
    int32_t type = pass == 0 ? TVM_VM_ALLOC_POOLED : TVM_VM_ALLOC_NAIVE;
    tvm_vm* vm = tvm_vm_create_ex(e, &cpu, &type, 1);
    CHECK(vm != NULL);
    TVMFFIAny w;
    CHECK_OK(tvm_vm_invoke(vm, "weights", NULL, 0, &w));
    const float* wd = (const float*)tvm_ffi_tensor_dl(w.v_obj)->data;
    CHECK(wd[0] == 0.0f && wd[3] == 1.5f);
    tvm_ffi_any_release(&w);
    TVMFFIAny t1, t2;
    CHECK_OK(tvm_vm_invoke(vm, "alloc", NULL, 0, &t1));
    const DLTensor* d1 = tvm_ffi_tensor_dl(t1.v_obj);
    CHECK(d1->ndim == 1 && d1->shape[0] == 4 && ((uintptr_t)d1->data % 64) == 0);
    void* p1 = d1->data;
    size_t allocated, cached;
    CHECK_OK(tvm_vm_memory_usage(vm, 0, &allocated, &cached));
    CHECK(allocated >= 16 && cached == 0);
    tvm_ffi_any_release(&t1);
    CHECK_OK(tvm_vm_memory_usage(vm, 0, &allocated, &cached));
    CHECK_EQ_INT(allocated, 0);
    if (pass == 0) {
      CHECK(cached >= 16); /* pooled: the block waits for reuse */
      CHECK_OK(tvm_vm_invoke(vm, "alloc", NULL, 0, &t2));
      CHECK(tvm_ffi_tensor_dl(t2.v_obj)->data == p1);
      tvm_ffi_any_release(&t2);
    } else {
      CHECK_EQ_INT(cached, 0);
    }
    CHECK(tvm_vm_invoke(vm, "bad_alloc", NULL, 0, &t2) != 0);
    CHECK_RAISED("ValueError", "16 bytes at offset 8 do not fit in a storage of");
    tvm_vm_release(vm);
  }
  /* Tensors outlive the VM that allocated them. */
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny t;
  CHECK_OK(tvm_vm_invoke(vm, "alloc", NULL, 0, &t));
  tvm_vm_release(vm);
  ((float*)tvm_ffi_tensor_dl(t.v_obj)->data)[3] = 1.0f;
  tvm_ffi_any_release(&t);
  tvm_ffi_release(src);
  tvm_vm_executable_release(e);
}

/* ---- Instrumentation ------------------------------------------------------------------- */
typedef struct {
  char log[2048];
  const char* skip;
} instr_state;

static int instrument_cb(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  instr_state* s = (instr_state*)self;
  TVMFFIByteArray name;
  tvm_ffi_any_as_bytes(&args[1], &name);
  size_t len = strlen(s->log);
  if (args[2].v_int64) {
    snprintf(s->log + len, sizeof(s->log) - len, "before %.*s(%d args);", (int)name.size,
             name.data, (int)(n - 4));
  } else {
    snprintf(s->log + len, sizeof(s->log) - len, "after %.*s(%d args) ->%lld;", (int)name.size,
             name.data, (int)(n - 4), (long long)args[3].v_int64);
  }
  if (args[0].type_index < kTVMFFIStaticObjectBegin) return tvm_ffi_raise("TypeError", "no callee");
  bool skip = s->skip && args[2].v_int64 && name.size == strlen(s->skip) &&
              memcmp(name.data, s->skip, name.size) == 0;
  *rv = tvm_ffi_any_int(skip ? TVM_VM_INSTRUMENT_SKIP_RUN : TVM_VM_INSTRUMENT_NO_OP);
  return 0;
}

TEST(instrumentation) {
  tvm_vm_executable* e = build_arith();
  tvm_vm* vm = cpu_vm(e);
  instr_state st = {{0}, NULL};
  void* cb = tvm_ffi_function_new(&st, instrument_cb, NULL);
  CHECK_OK(tvm_vm_set_instrument(vm, cb));
  TVMFFIAny args[] = {tvm_ffi_any_int(7), tvm_ffi_any_int(3)}, r;
  CHECK_EQ_INT(call_int(vm, "main", args, 2), 40);
  CHECK_STR_EQ(st.log,
               "before test.add(2 args);after test.add(2 args) ->10;before test.sub(2 args);"
               "after test.sub(2 args) ->4;before test.mul(2 args);after test.mul(2 args) ->40;");
  /* Skipping test.sub leaves its destination None: test.mul then fails on it. */
  st.log[0] = 0;
  st.skip = "test.sub";
  CHECK(tvm_vm_invoke(vm, "main", args, 2, &r) != 0);
  CHECK_RAISED("TypeError", "argument #1 when calling `test.mul`: expected int but got None");
  CHECK_STR_EQ(st.log, "before test.add(2 args);after test.add(2 args) ->10;before test.sub(2 args);"
                       "before test.mul(2 args);");
  /* VM function calls are instrumented too (they go through their closure). */
  tvm_vm_executable* fe = build_fib();
  tvm_vm* fvm = cpu_vm(fe);
  CHECK_OK(tvm_vm_set_instrument(fvm, cb));
  st.log[0] = 0;
  st.skip = NULL;
  TVMFFIAny two = tvm_ffi_any_int(2);
  CHECK_EQ_INT(call_int(fvm, "fib", &two, 1), 1);
  /* fib(2): the top-level call is not an instruction; the recursive calls are. */
  CHECK_STR_CONTAINS(st.log, "before test.lt(2 args);after test.lt(2 args) ->0;before test.sub(2 args);");
  CHECK_STR_CONTAINS(st.log, "before fib(1 args);before test.lt(2 args);after test.lt(2 args) ->1;"
                             "after fib(1 args) ->1;");
  CHECK_STR_CONTAINS(st.log, "before test.add(2 args);after test.add(2 args) ->1;");
  /* Removing the instrument through the module function. */
  void* set = NULL;
  CHECK_OK(tvm_ffi_module_get_function(vm, "set_instrument", false, &set));
  TVMFFIAny none = tvm_ffi_any_none();
  CHECK_OK(tvm_ffi_function_call(set, &none, 1, &r));
  st.log[0] = 0;
  CHECK_EQ_INT(call_int(vm, "main", args, 2), 40);
  CHECK_STR_EQ(st.log, "");
  tvm_ffi_release(set);
  tvm_vm_release(fvm);
  tvm_vm_executable_release(fe);
  tvm_ffi_release(cb);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* ---- Stateful interface, saved functions, time evaluator ------------------------------- */
TEST(stateful_interface) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_declare_packed(b, "vm.builtin.make_tuple");
  tvm_vm_builder_function_begin(b, "pair", 2, 4, NULL);
  int64_t ab[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "test.add", ab, 2, 2);
  int64_t tup[] = {tvm_vm_arg_reg(2), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "vm.builtin.make_tuple", tup, 2, 3);
  tvm_vm_builder_emit_ret(b, 3);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny args[] = {tvm_ffi_any_int(4), tvm_ffi_any_int(5)}, r;
  CHECK(tvm_vm_invoke_stateful(vm, "pair") != 0);
  CHECK_RAISED("ValueError", "no inputs set");
  CHECK(tvm_vm_set_input(vm, "pair", args, 1) != 0);
  CHECK_RAISED("ValueError", "takes 2 arguments but 1 were given");
  CHECK_OK(tvm_vm_set_input(vm, "pair", args, 2));
  int64_t idx[] = {0};
  CHECK(tvm_vm_get_output(vm, "pair", idx, 1, &r) != 0);
  CHECK_RAISED("ValueError", "call invoke_stateful first");
  CHECK_OK(tvm_vm_invoke_stateful(vm, "pair"));
  /* A name the module lacks is "not found" (0, NULL) even with an error the caller left raised,
   * which stays raised. */
  void* missing = vm; /* (any pointer: the call must set it to NULL) */
  tvm_ffi_raise("KeyError", "left by the caller");
  CHECK(tvm_ffi_module_get_function(vm, "no_such_function", false, &missing) == 0);
  CHECK(missing == NULL);
  CHECK_RAISED("KeyError", "left by the caller");
  int64_t arity;
  CHECK_OK(tvm_vm_get_output_arity(vm, "pair", NULL, 0, &arity));
  CHECK_EQ_INT(arity, 2);
  CHECK_OK(tvm_vm_get_output_arity(vm, "pair", idx, 1, &arity));
  CHECK_EQ_INT(arity, -1);
  CHECK_OK(tvm_vm_get_output(vm, "pair", idx, 1, &r));
  CHECK_EQ_INT(r.v_int64, 9);
  idx[0] = 1;
  CHECK_OK(tvm_vm_get_output(vm, "pair", idx, 1, &r));
  CHECK_EQ_INT(r.v_int64, 4);
  CHECK(tvm_vm_get_output(vm, "pair", NULL, 0, &r) != 0);
  CHECK_RAISED("ValueError", "cannot return a tuple");
  idx[0] = 2;
  CHECK(tvm_vm_get_output(vm, "pair", idx, 1, &r) != 0);
  CHECK_RAISED("IndexError", "index 2 out of range");
  /* The same through the module functions. */
  void *set_input = NULL, *invoke = NULL, *get_output = NULL;
  CHECK_OK(tvm_ffi_module_get_function(vm, "set_input", false, &set_input));
  CHECK_OK(tvm_ffi_module_get_function(vm, "invoke_stateful", false, &invoke));
  CHECK_OK(tvm_ffi_module_get_function(vm, "get_output", false, &get_output));
  TVMFFIAny si[] = {tvm_ffi_any_raw_str("pair"), tvm_ffi_any_int(10), tvm_ffi_any_int(20)};
  CHECK_OK(tvm_ffi_function_call(set_input, si, 3, &r));
  CHECK_OK(tvm_ffi_function_call(invoke, si, 1, &r));
  TVMFFIAny go[] = {si[0], tvm_ffi_any_int(0)};
  CHECK_OK(tvm_ffi_function_call(get_output, go, 2, &r));
  CHECK_EQ_INT(r.v_int64, 30);
  tvm_ffi_release(set_input);
  tvm_ffi_release(invoke);
  tvm_ffi_release(get_output);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

TEST(saved_functions_and_timing) {
  tvm_vm_executable* e = build_fib();
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny ten = tvm_ffi_any_int(10), r;
  CHECK_OK(tvm_vm_save_function(vm, "fib", "fib10", true, &ten, 1));
  CHECK_EQ_INT(call_int(vm, "fib10", NULL, 0), 55);
  CHECK_OK(tvm_vm_save_function(vm, "fib", "fib10_void", false, &ten, 1));
  CHECK_OK(tvm_vm_invoke(vm, "fib10_void", NULL, 0, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  void* f = tvm_vm_get_function(vm, "fib10");
  CHECK_OK(tvm_ffi_function_call(f, NULL, 0, &r));
  CHECK_EQ_INT(r.v_int64, 55);
  tvm_ffi_release(f);
  CHECK(tvm_vm_save_function(vm, "nope", "x", true, NULL, 0) != 0);
  CHECK_RAISED("ValueError", "unknown function `nope`");
  /* C API timer. */
  double secs[3] = {-1, -1, -1};
  CHECK_OK(tvm_vm_time_evaluator(vm, "fib", &ten, 1, 5, 3, 0, secs));
  CHECK(secs[0] > 0 && secs[1] > 0 && secs[2] > 0);
  CHECK_OK(tvm_vm_time_evaluator(vm, "fib10", NULL, 0, 1, 1, 2, secs));
  CHECK(secs[0] > 0 && secs[0] < 1e-2);
  CHECK(tvm_vm_time_evaluator(vm, "fib", &ten, 1, 0, 1, 0, secs) != 0);
  CHECK_RAISED("ValueError", "must be >= 1");
  /* Module timer: returns an Array of per-run seconds. */
  void* te = NULL;
  CHECK_OK(tvm_ffi_module_get_function(vm, "time_evaluator", false, &te));
  TVMFFIAny targs[] = {tvm_ffi_any_raw_str("fib"), tvm_ffi_any_int(2), tvm_ffi_any_int(4),
                       tvm_ffi_any_int(0)};
  TVMFFIAny timer;
  CHECK_OK(tvm_ffi_function_call(te, targs, 4, &timer));
  CHECK_OK(tvm_ffi_function_call(timer.v_obj, &ten, 1, &r));
  CHECK(r.type_index == kTVMFFIArray && tvm_ffi_seq_size(r.v_obj) == 4);
  CHECK(tvm_ffi_seq_at(r.v_obj, 3)->type_index == kTVMFFIFloat && tvm_ffi_seq_at(r.v_obj, 3)->v_float64 > 0);
  tvm_ffi_any_release(&r);
  CHECK(tvm_ffi_function_call(timer.v_obj, NULL, 0, &r) != 0);
  CHECK_RAISED("TypeError", "expects 1 argument but got 0");
  tvm_ffi_any_release(&timer);
  tvm_ffi_release(te);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* ---- Compiled functions, imports, resolution errors ------------------------------------ */
/* __vmtir__tir_add(vm, regs, consts, funcs): regs[2] = regs[0] + regs[1] + consts[0]. */
static int vmtir_add(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (n != 4 || args[0].type_index != kTVMFFIOpaquePtr || args[1].type_index != kTVMFFIOpaquePtr ||
      args[2].type_index != kTVMFFIOpaquePtr || args[3].type_index != kTVMFFIOpaquePtr) {
    return tvm_ffi_raise("TypeError", "__vmtir__tir_add: bad calling convention");
  }
  TVMFFIAny* regs = (TVMFFIAny*)args[1].v_ptr;
  const TVMFFIAny* consts = (const TVMFFIAny*)args[2].v_ptr;
  regs[2] = tvm_ffi_any_int(regs[0].v_int64 + regs[1].v_int64 + consts[0].v_int64);
  return 0;
}

static int mod_double(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  *rv = tvm_ffi_any_int(2 * args[0].v_int64);
  return 0;
}

static int kernels_get_function(void* mod, const char* name, void** out) {
  *out = NULL;
  if (strcmp(name, "__vmtir__tir_add") == 0) *out = tvm_ffi_function_new(NULL, vmtir_add, NULL);
  if (strcmp(name, "test.mod_double") == 0) *out = tvm_ffi_function_new(NULL, mod_double, NULL);
  return 0;
}

static const tvm_ffi_module_vtable k_kernels = {.kind = "test_kernels",
                                                .get_function = kernels_get_function};

TEST(compiled_functions_and_imports) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_const_int(b, 100);
  tvm_vm_builder_declare_vmtir(b, "tir_add", 2, 3, NULL);
  tvm_vm_builder_declare_packed(b, "test.mod_double");
  tvm_vm_builder_function_begin(b, "main", 2, 4, NULL);
  int64_t ab[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "tir_add", ab, 2, 2);
  int64_t d[] = {tvm_vm_arg_reg(2)};
  tvm_vm_builder_emit_call(b, "test.mod_double", d, 1, 3);
  tvm_vm_builder_emit_ret(b, 3);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  CHECK(e != NULL);
  /* Without the kernels the VM cannot be created, and the error names what is missing. */
  DLDevice cpu = {kDLCPU, 0};
  CHECK(tvm_vm_create(e, &cpu, 1) == NULL);
  CHECK_RAISED("ValueError", "cannot find `__vmtir__tir_add`");
  void* kernels = tvm_ffi_module_new(&k_kernels, sizeof(tvm_ffi_module_obj));
  CHECK_OK(tvm_vm_executable_import(e, kernels));
  tvm_vm* vm = tvm_vm_create(e, &cpu, 1);
  CHECK(vm != NULL);
  TVMFFIAny args[] = {tvm_ffi_any_int(1), tvm_ffi_any_int(2)};
  CHECK_EQ_INT(call_int(vm, "main", args, 2), 206);
  CHECK_EQ_INT(call_int(vm, "tir_add", args, 2), 103);
  TVMFFIAny r;
  CHECK(tvm_vm_invoke(vm, "tir_add", args, 1, &r) != 0);
  CHECK_RAISED("TypeError", "VM function `tir_add` expects 2 arguments but got 1");
  /* The executable found through a module's imports. */
  void* wrapper = tvm_ffi_module_new(&k_kernels, sizeof(tvm_ffi_module_obj));
  CHECK_OK(tvm_ffi_module_import(wrapper, e));
  tvm_vm_executable* found = tvm_vm_executable_load_from_module(wrapper);
  CHECK(found == e);
  tvm_ffi_release(found);
  CHECK(tvm_vm_executable_load_from_module(kernels) == NULL);
  CHECK_RAISED("ValueError", "holds no VM executable");
  tvm_ffi_release(wrapper);
  tvm_vm_release(vm);
  tvm_ffi_release(kernels);
  tvm_vm_executable_release(e);
}

TEST(missing_packed_function) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.does_not_exist");
  tvm_vm_builder_function_begin(b, "main", 0, 1, NULL);
  tvm_vm_builder_emit_call(b, "test.does_not_exist", NULL, 0, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  DLDevice cpu = {kDLCPU, 0};
  CHECK(tvm_vm_create(e, &cpu, 1) == NULL);
  CHECK_RAISED("ValueError", "cannot find packed function `test.does_not_exist` (function 0)");
  DLDevice bad = {kDLOpenCL, 0};
  CHECK(tvm_vm_create(e, &bad, 1) == NULL);
  CHECK_RAISED("ValueError", "device type 4 (opencl) is not supported");
  CHECK(tvm_vm_create(e, &cpu, 0) == NULL);
  CHECK_RAISED("ValueError", "at least one device");
  int32_t type = 7;
  CHECK(tvm_vm_create_ex(e, &cpu, &type, 1) == NULL);
  CHECK_RAISED("ValueError", "unknown allocator type 7");
  tvm_vm_executable_release(e);
}

/* A packed function that calls back into the VM: reenter(vm, closure, k) =
 * k == 0 ? 0 : vm.builtin.invoke_closure(vm, closure, k - 1) + 1. */
static int reenter(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  int64_t k = args[2].v_int64;
  if (k == 0) {
    *rv = tvm_ffi_any_int(0);
    return 0;
  }
  TVMFFIAny a[] = {args[0], args[1], tvm_ffi_any_int(k - 1)};
  int rc = tvm_ffi_global_call("vm.builtin.invoke_closure", a, 3, rv);
  if (rc == 0) rv->v_int64 += 1;
  return rc;
}

TEST(native_reentry) {
  tvm_ffi_global_register("test.reenter", reenter, true);
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.reenter");
  tvm_vm_builder_declare_packed(b, "test.raw_str");
  int64_t self = tvm_vm_builder_function_begin(b, "nest", 1, 2, NULL);
  int64_t args[] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_func(self), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "test.reenter", args, 3, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "raw", 0, 1, NULL);
  tvm_vm_builder_emit_call(b, "test.raw_str", NULL, 0, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny n = tvm_ffi_any_int(50), r;
  /* nest(50) -> reenter -> nest(49) -> ...: 51 nested native entries into the loop. */
  CHECK_EQ_INT(call_int(vm, "nest", &n, 1), 50);
  CHECK_OK(tvm_vm_set_max_native_nesting(vm, 20));
  CHECK(tvm_vm_invoke(vm, "nest", &n, 1, &r) != 0);
  void* err = tvm_ffi_error_take();
  CHECK(err && strcmp(tvm_ffi_error_kind(err), "RecursionError") == 0);
  if (err) {
    CHECK_STR_CONTAINS(tvm_ffi_error_message(err),
                       "maximum native nesting of VM calls (20) exceeded calling `nest`");
  }
  tvm_ffi_release(err);
  n = tvm_ffi_any_int(15);
  CHECK_EQ_INT(call_int(vm, "nest", &n, 1), 15); /* usable after the error */
  /* Results that are views are made owned. */
  CHECK_OK(tvm_vm_invoke(vm, "raw", NULL, 0, &r));
  CHECK(r.type_index == kTVMFFIStr);
  tvm_ffi_any_release(&r);
  tvm_vm_release(vm);
  tvm_ffi_global_remove("test.reenter");
  tvm_vm_executable_release(e);
}


/* Registers read before any write are None, even where earlier frames left values behind. */
TEST(unwritten_registers_are_none) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_declare_packed(b, "vm.builtin.copy");
  /* fill(x): writes x + i into registers 1..7 */
  tvm_vm_builder_function_begin(b, "fill", 1, 8, NULL);
  for (int r = 1; r < 8; ++r) {
    int64_t args[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(r)};
    tvm_vm_builder_emit_call(b, "test.add", args, 2, r);
  }
  tvm_vm_builder_emit_ret(b, 7);
  tvm_vm_builder_function_end(b);
  /* peek(flag): if flag: %2 = copy(1); return copy(%2) -- %2 is unwritten when flag is 0 */
  tvm_vm_builder_function_begin(b, "peek", 1, 8, NULL);
  int64_t br = tvm_vm_builder_emit_if(b, 0, 0);
  int64_t one[] = {tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "vm.builtin.copy", one, 1, 2);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  int64_t r2[] = {tvm_vm_arg_reg(2)};
  tvm_vm_builder_emit_call(b, "vm.builtin.copy", r2, 1, 3);
  tvm_vm_builder_emit_ret(b, 3);
  tvm_vm_builder_function_end(b);
  /* both(x) = fill(x); peek(0) -- peek's frame reuses fill's registers */
  tvm_vm_builder_function_begin(b, "both", 1, 2, NULL);
  int64_t x[] = {tvm_vm_arg_reg(0)}, zero[] = {tvm_vm_arg_imm(0)};
  tvm_vm_builder_emit_call(b, "fill", x, 1, 1);
  tvm_vm_builder_emit_call(b, "peek", zero, 1, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny v = tvm_ffi_any_int(100), r;
  CHECK_OK(tvm_vm_invoke(vm, "both", &v, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFINone);
  v = tvm_ffi_any_int(1);
  CHECK_EQ_INT(call_int(vm, "peek", &v, 1), 1);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* Objects through every call path: in-place arguments, results fused with Ret and If, %void
 * destinations, deep recursion across register stack chunks. Leaks show under ASan. */
static int test_concat(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  TVMFFIByteArray x, y;
  if (!tvm_ffi_check_num_args("test.concat", n, 2) || !tvm_ffi_arg_bytes("test.concat", a, 0, &x) ||
      !tvm_ffi_arg_bytes("test.concat", a, 1, &y)) {
    return -1;
  }
  char buf[256];
  snprintf(buf, sizeof(buf), "%.*s%.*s", (int)x.size, x.data, (int)y.size, y.data);
  *r = tvm_ffi_string(buf);
  return 0;
}

static int test_nonempty(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  TVMFFIByteArray x;
  if (!tvm_ffi_arg_bytes("test.nonempty", a, 0, &x)) return -1;
  *r = tvm_ffi_any_bool(x.size > 0);
  return 0;
}

TEST(objects_through_every_call_path) {
  tvm_ffi_global_register("test.concat", test_concat, true);
  tvm_ffi_global_register("test.nonempty", test_nonempty, true);
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.concat");
  tvm_vm_builder_declare_packed(b, "test.nonempty");
  tvm_vm_builder_declare_packed(b, "test.sub");
  tvm_vm_builder_declare_packed(b, "test.lt");
  int64_t suffix = tvm_vm_builder_const_str(b, "-suffix-long-enough");
  /* join(a, b) = concat(a, b)   (in-place arguments, fused with Ret) */
  tvm_vm_builder_function_begin(b, "join", 2, 3, NULL);
  int64_t ab[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "test.concat", ab, 2, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  /* pick(s) = nonempty(s) ? join(s, c) : s   (fused If, %void discarded object) */
  tvm_vm_builder_function_begin(b, "pick", 1, 3, NULL);
  int64_t s0[] = {tvm_vm_arg_reg(0)}, sc[] = {tvm_vm_arg_reg(0), tvm_vm_arg_const(suffix)};
  tvm_vm_builder_emit_call(b, "test.concat", sc, 2, TVM_VM_REG_VOID);
  tvm_vm_builder_emit_call(b, "test.nonempty", s0, 1, 1);
  int64_t br = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_emit_call(b, "join", sc, 2, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  /* deep(n, s) = n < 1 ? s : deep(n - 1, s)   (objects in every frame, chunks switch) */
  tvm_vm_builder_function_begin(b, "deep", 2, 4, NULL);
  int64_t lt[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)}, dec[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "test.lt", lt, 2, 2);
  int64_t br2 = tvm_vm_builder_emit_if(b, 2, 0);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_set_jump_target(b, br2, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.sub", dec, 2, 3);
  int64_t rec[] = {tvm_vm_arg_reg(3), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "deep", rec, 2, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny args[] = {tvm_ffi_string("left-part-object"), tvm_ffi_string("right-part-object")}, r;
  CHECK_OK(tvm_vm_invoke(vm, "join", args, 2, &r));
  CHECK_STR_EQ(tvm_ffi_str_cstr(r.v_obj), "left-part-objectright-part-object");
  tvm_ffi_any_release(&r);
  CHECK_OK(tvm_vm_invoke(vm, "pick", args, 1, &r));
  CHECK_STR_EQ(tvm_ffi_str_cstr(r.v_obj), "left-part-object-suffix-long-enough");
  tvm_ffi_any_release(&r);
  TVMFFIAny empty = tvm_ffi_string(""), deep_args[] = {tvm_ffi_any_int(20000), args[1]};
  CHECK_OK(tvm_vm_invoke(vm, "pick", &empty, 1, &r));
  CHECK(tvm_ffi_any_as_bytes(&r, &(TVMFFIByteArray){0}));
  tvm_ffi_any_release(&r);
  CHECK_OK(tvm_vm_set_max_call_depth(vm, 30000));
  CHECK_OK(tvm_vm_invoke(vm, "deep", deep_args, 2, &r));
  CHECK(r.v_obj == args[1].v_obj);
  CHECK_EQ_INT(tvm_ffi_strong_count(args[1].v_obj), 2); /* ours and r: all frames let go */
  tvm_ffi_any_release(&r);
  /* Errors unwind frames that hold objects. */
  deep_args[0] = tvm_ffi_any_int(40000);
  CHECK(tvm_vm_invoke(vm, "deep", deep_args, 2, &r) != 0);
  CHECK_RAISED("RecursionError", "maximum VM call depth (30000)");
  CHECK_EQ_INT(tvm_ffi_strong_count(args[1].v_obj), 1);
  tvm_ffi_any_release(&args[0]);
  tvm_ffi_any_release(&args[1]);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* Registers overwritten in a loop and after a branch merge hold objects when written again:
 * the analysis must not call those destinations fresh (a leak or a use after free would
 * show under ASan), while first writes are. */
TEST(objects_overwritten_in_loops_and_merges) {
  tvm_ffi_global_register("test.concat", test_concat, true);
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.concat");
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "vm.builtin.copy");
  /* repeat(n, s): acc = s; i = 0; do { acc = concat(acc, s); i += 1 } while (i < n); acc */
  tvm_vm_builder_function_begin(b, "repeat", 2, 5, NULL);
  int64_t s1[] = {tvm_vm_arg_reg(1)}, zero[] = {tvm_vm_arg_imm(0)};
  tvm_vm_builder_emit_call(b, "vm.builtin.copy", s1, 1, 3);
  tvm_vm_builder_emit_call(b, "vm.builtin.copy", zero, 1, 2);
  int64_t loop = tvm_vm_builder_next_instr(b);
  int64_t cat[] = {tvm_vm_arg_reg(3), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "test.concat", cat, 2, 3); /* dst is also an argument */
  int64_t inc[] = {tvm_vm_arg_reg(2), tvm_vm_arg_imm(1)}, lt[] = {tvm_vm_arg_reg(2), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "test.add", inc, 2, 2);
  tvm_vm_builder_emit_call(b, "test.lt", lt, 2, 4);
  int64_t br = tvm_vm_builder_emit_if(b, 4, 0);
  int64_t back = tvm_vm_builder_emit_goto(b, 0);
  tvm_vm_builder_set_jump_target(b, back, loop);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_ret(b, 3);
  tvm_vm_builder_function_end(b);
  /* merge(flag, x, y): r = flag ? concat(x, y) : concat(y, x); r = concat(r, x); r */
  tvm_vm_builder_function_begin(b, "merge", 3, 4, NULL);
  int64_t xy[] = {tvm_vm_arg_reg(1), tvm_vm_arg_reg(2)}, yx[] = {tvm_vm_arg_reg(2), tvm_vm_arg_reg(1)};
  int64_t rx[] = {tvm_vm_arg_reg(3), tvm_vm_arg_reg(1)};
  int64_t br2 = tvm_vm_builder_emit_if(b, 0, 0);
  tvm_vm_builder_emit_call(b, "test.concat", xy, 2, 3);
  int64_t join = tvm_vm_builder_emit_goto(b, 0);
  tvm_vm_builder_set_jump_target(b, br2, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.concat", yx, 2, 3);
  tvm_vm_builder_set_jump_target(b, join, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.concat", rx, 2, 3); /* overwrites an object */
  tvm_vm_builder_emit_call(b, "test.concat", rx, 2, 3);
  tvm_vm_builder_emit_ret(b, 3);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny args[] = {tvm_ffi_any_int(3), tvm_ffi_string("abcdefgh")}, r;
  CHECK_OK(tvm_vm_invoke(vm, "repeat", args, 2, &r));
  CHECK_STR_EQ(tvm_ffi_str_cstr(r.v_obj), "abcdefghabcdefghabcdefghabcdefgh");
  tvm_ffi_any_release(&r);
  CHECK_EQ_INT(tvm_ffi_strong_count(args[1].v_obj), 1);
  TVMFFIAny margs[] = {tvm_ffi_any_bool(true), tvm_ffi_string("x-object"), tvm_ffi_string("y-object")};
  CHECK_OK(tvm_vm_invoke(vm, "merge", margs, 3, &r));
  CHECK_STR_EQ(tvm_ffi_str_cstr(r.v_obj), "x-objecty-objectx-objectx-object");
  tvm_ffi_any_release(&r);
  margs[0] = tvm_ffi_any_bool(false);
  CHECK_OK(tvm_vm_invoke(vm, "merge", margs, 3, &r));
  CHECK_STR_EQ(tvm_ffi_str_cstr(r.v_obj), "y-objectx-objectx-objectx-object");
  tvm_ffi_any_release(&r);
  CHECK_EQ_INT(tvm_ffi_strong_count(margs[1].v_obj), 1);
  tvm_ffi_any_release(&args[1]);
  tvm_ffi_any_release(&margs[1]);
  tvm_ffi_any_release(&margs[2]);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* The fast paths of packed calls (a plain result checked with one test; a call fused with the
 * If that tests its result; `register op constant` arguments; one-argument bytecode calls)
 * and the cases they hand to the general path: errors (the trace names the Call), views and
 * objects as results, destinations that held an object, non-int conditions. */
static int test_echo(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  if (!tvm_ffi_check_num_args("test.echo", n, 1)) return -1;
  return tvm_ffi_any_to_owned(&a[0], r);
}

TEST(packed_call_fast_paths_and_fallbacks) {
  tvm_ffi_global_register("test.concat", test_concat, true);
  tvm_ffi_global_register("test.echo", test_echo, true);
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_declare_packed(b, "test.echo");
  tvm_vm_builder_declare_packed(b, "test.concat");
  tvm_vm_builder_declare_packed(b, "test.raw_str");
  int64_t suffix = tvm_vm_builder_const_str(b, "-constant-suffix");
  /* small(x) = x < 10 ? 1 : 2   (fused If, a fresh destination, register and immediate) */
  tvm_vm_builder_function_begin(b, "small", 1, 2, NULL);
  int64_t lt[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(10)};
  tvm_vm_builder_emit_call(b, "test.lt", lt, 2, 1);
  int64_t br = tvm_vm_builder_emit_if(b, 1, 0);
  int64_t one[] = {tvm_vm_arg_imm(0), tvm_vm_arg_imm(1)}, two[] = {tvm_vm_arg_imm(1), tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "test.add", one, 2, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.add", two, 2, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  /* cond(x) = echo(x) tested by If: 1 or 0; anything but an int or bool is a TypeError */
  tvm_vm_builder_function_begin(b, "cond", 1, 2, NULL);
  int64_t x0[] = {tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "test.echo", x0, 1, 1);
  int64_t br2 = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_emit_call(b, "test.add", one, 2, 1); /* overwrites the condition */
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_set_jump_target(b, br2, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.add", lt + 1, 1, 1); /* wrong count: raises */
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  /* view_cond() = If on a raw string view result (owned first, then rejected) */
  tvm_vm_builder_function_begin(b, "view_cond", 0, 1, NULL);
  tvm_vm_builder_emit_call(b, "test.raw_str", NULL, 0, 0);
  int64_t br3 = tvm_vm_builder_emit_if(b, 0, 0);
  tvm_vm_builder_set_jump_target(b, br3, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  /* reuse(s) = r = concat(s, c); r = echo(1) tested by If (its old object released); r */
  tvm_vm_builder_function_begin(b, "reuse", 1, 2, NULL);
  int64_t sc[] = {tvm_vm_arg_reg(0), tvm_vm_arg_const(suffix)}, imm1[] = {tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "test.concat", sc, 2, 1);
  tvm_vm_builder_emit_call(b, "test.echo", imm1, 1, 1);
  int64_t br4 = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_set_jump_target(b, br4, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.concat", sc, 2, 1); /* a plain value overwritten by an object */
  tvm_vm_builder_emit_call(b, "test.add", one, 2, 1);   /* and the object by a plain value */
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  /* outer(s) = twice(s), twice(s) = concat(s, s)   (one-argument bytecode call of an object) */
  tvm_vm_builder_declare_function(b, "twice", 1);
  tvm_vm_builder_function_begin(b, "outer", 1, 2, NULL);
  tvm_vm_builder_emit_call(b, "twice", x0, 1, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "twice", 1, 2, NULL);
  int64_t ss[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "test.concat", ss, 2, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  CHECK(e != NULL);
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny x = tvm_ffi_any_int(3), r;
  CHECK_EQ_INT(call_int(vm, "small", &x, 1), 1);
  x = tvm_ffi_any_int(30);
  CHECK_EQ_INT(call_int(vm, "small", &x, 1), 2);
  /* A failing call fused with If: the trace names the Call, not the If. */
  TVMFFIAny s = tvm_ffi_string("a string object, not an int");
  CHECK(tvm_vm_invoke(vm, "small", &s, 1, &r) != 0);
  void* err = tvm_ffi_error_take();
  CHECK(err && strcmp(tvm_ffi_error_kind(err), "TypeError") == 0);
  if (err) {
    CHECK_STR_CONTAINS(TVMFFIErrorGetCellPtr(err)->backtrace.data,
                       "at VM function small, instruction 0: call test.lt in: %0, i10 dst: %1");
  }
  tvm_ffi_release(err);
  CHECK_EQ_INT(tvm_ffi_strong_count(s.v_obj), 1);
  /* Conditions through the fused If: bools, ints, and the rest rejected. */
  x = tvm_ffi_any_bool(true);
  CHECK_EQ_INT(call_int(vm, "cond", &x, 1), 1);
  x = tvm_ffi_any_int(-5);
  CHECK_EQ_INT(call_int(vm, "cond", &x, 1), 1);
  x = tvm_ffi_any_int(0);
  CHECK(tvm_vm_invoke(vm, "cond", &x, 1, &r) != 0);
  CHECK_RAISED("TypeError", "test.add");
  CHECK(tvm_vm_invoke(vm, "cond", &s, 1, &r) != 0);
  CHECK_RAISED("TypeError", "If: condition register %1 holds ffi.String");
  CHECK_EQ_INT(tvm_ffi_strong_count(s.v_obj), 1);
  x = tvm_ffi_any_float(1.5);
  CHECK(tvm_vm_invoke(vm, "cond", &x, 1, &r) != 0);
  CHECK_RAISED("TypeError", "If: condition register %1 holds float");
  CHECK(tvm_vm_invoke(vm, "view_cond", NULL, 0, &r) != 0);
  CHECK_RAISED("TypeError", "If: condition register %0 holds ffi.String");
  /* Destinations that held objects, and objects as one-argument bytecode call arguments. */
  CHECK_EQ_INT(call_int(vm, "reuse", &s, 1), 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(s.v_obj), 1);
  CHECK_OK(tvm_vm_invoke(vm, "outer", &s, 1, &r));
  CHECK_STR_EQ(tvm_ffi_str_cstr(r.v_obj), "a string object, not an inta string object, not an int");
  tvm_ffi_any_release(&r);
  CHECK_EQ_INT(tvm_ffi_strong_count(s.v_obj), 1);
  /* Bytecode functions still check their argument count. */
  CHECK(tvm_vm_invoke(vm, "outer", NULL, 0, &r) != 0);
  CHECK_RAISED("TypeError", "VM function `outer` expects 1 argument but got 0");
  tvm_ffi_any_release(&s);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* The register stack after errors: a failure deep in the recursion (register files in later
 * chunks) unwinds every frame; the frames and chunks are then reused, at every depth, up to
 * the limit, which still fails cleanly. */
TEST(frames_reused_after_errors) {
  tvm_vm_executable* e = build_fib();
  tvm_vm* vm = cpu_vm(e);
  /* down(n) = n < 1 ? fail() : down(n - 1), from deep_recursion_and_error_trace_limit */
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "test.sub");
  tvm_vm_builder_declare_packed(b, "test.fail");
  tvm_vm_builder_function_begin(b, "down", 1, 3, NULL);
  int64_t lt[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)}, sub[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)};
  tvm_vm_builder_emit_call(b, "test.lt", lt, 2, 1);
  int64_t br = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_emit_call(b, "test.fail", NULL, 0, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  tvm_vm_builder_emit_call(b, "test.sub", sub, 2, 2);
  int64_t rec[] = {tvm_vm_arg_reg(2)};
  tvm_vm_builder_emit_call(b, "down", rec, 1, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* d = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  tvm_vm* dvm = cpu_vm(d);
  TVMFFIAny n, r;
  for (int round = 0; round < 3; ++round) {
    n = tvm_ffi_any_int(5000 + 1000 * round); /* register files span several chunks */
    CHECK(tvm_vm_invoke(dvm, "down", &n, 1, &r) != 0);
    CHECK_RAISED("ValueError", "test.fail was called with 0 arguments");
  }
  CHECK_OK(tvm_vm_set_max_call_depth(dvm, 100));
  n = tvm_ffi_any_int(99); /* 100 frames: exactly the limit */
  CHECK(tvm_vm_invoke(dvm, "down", &n, 1, &r) != 0);
  CHECK_RAISED("ValueError", "test.fail");
  n = tvm_ffi_any_int(100);
  CHECK(tvm_vm_invoke(dvm, "down", &n, 1, &r) != 0);
  CHECK_RAISED("RecursionError", "maximum VM call depth (100) exceeded calling `down`");
  /* fib on its own VM, between errors at its depth limit. */
  for (int round = 0; round < 3; ++round) {
    CHECK_OK(tvm_vm_set_max_call_depth(vm, 12));
    n = tvm_ffi_any_int(15);
    CHECK(tvm_vm_invoke(vm, "fib", &n, 1, &r) != 0);
    CHECK_RAISED("RecursionError", "maximum VM call depth (12) exceeded calling `fib`");
    n = tvm_ffi_any_int(12); /* 12 frames deep: fits */
    CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 144);
    CHECK_OK(tvm_vm_set_max_call_depth(vm, 10000));
    n = tvm_ffi_any_int(22);
    CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 17711);
  }
  tvm_vm_release(dvm);
  tvm_vm_executable_release(d);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

/* An instrument that removes itself from inside its callback. */
typedef struct {
  void* remove; /* the VM's set_instrument function */
  int calls;
} self_removing;

static int self_removing_cb(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  self_removing* s = (self_removing*)self;
  if (++s->calls == 3) {
    TVMFFIAny none = tvm_ffi_any_none(), r;
    if (tvm_ffi_function_call(s->remove, &none, 1, &r) != 0) return -1;
  }
  return 0;
}

TEST(instrument_removed_during_a_call) {
  tvm_vm_executable* e = build_fib();
  tvm_vm* vm = cpu_vm(e);
  self_removing st = {NULL, 0};
  CHECK_OK(tvm_ffi_module_get_function(vm, "set_instrument", false, &st.remove));
  void* cb = tvm_ffi_function_new(&st, self_removing_cb, NULL);
  CHECK_OK(tvm_vm_set_instrument(vm, cb));
  tvm_ffi_release(cb); /* the VM holds it; the callback drops the VM's reference itself */
  TVMFFIAny n = tvm_ffi_any_int(15);
  CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 610);
  CHECK_EQ_INT(st.calls, 4); /* the call whose "before" removed it still gets its "after" */
  CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 610);
  CHECK_EQ_INT(st.calls, 4);
  tvm_ffi_release(st.remove);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

int main(void) {
  tvm_vm_init();
  register_test_funcs();
  RUN(arithmetic);
  RUN(wrong_arguments);
  RUN(branches);
  RUN(if_condition_must_be_int);
  RUN(fibonacci);
  RUN(deep_recursion_and_error_trace_limit);
  RUN(closures);
  RUN(shape_matching);
  RUN(shape_builtins_direct);
  RUN(runtime_builtins_direct);
  RUN(tensors_and_storage);
  RUN(instrumentation);
  RUN(stateful_interface);
  RUN(saved_functions_and_timing);
  RUN(compiled_functions_and_imports);
  RUN(missing_packed_function);
  RUN(native_reentry);
  RUN(unwritten_registers_are_none);
  RUN(objects_through_every_call_path);
  RUN(objects_overwritten_in_loops_and_merges);
  RUN(instrument_removed_during_a_call);
  RUN(packed_call_fast_paths_and_fallbacks);
  RUN(frames_reused_after_errors);
  return test_summary();
}

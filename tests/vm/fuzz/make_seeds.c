/*
 * make_seeds.c: writes the seed corpus of fuzz_vm_load: small executables, built with the
 * builder, that cover every section and constant kind, branches, calls and closures.
 * Usage: make_seeds DIR (created if missing)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <tvm/vm/builder.h>

static int write_seed(const char* dir, const char* name, tvm_vm_builder* b) {
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  if (!e) return 1;
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
  int rc = tvm_vm_executable_save_file(e, path);
  tvm_vm_executable_release(e);
  return rc != 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_seeds DIR\n");
    return 2;
  }
  const char* dir = argv[1];
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "make_seeds: cannot create %s\n", dir);
    return 1;
  }
  int failed = 0;

  /* Recursion, branches. */
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "test.sub");
  tvm_vm_builder_declare_packed(b, "test.add");
  const char* params[] = {"n"};
  tvm_vm_builder_function_begin(b, "fib", 1, 7, params);
  int64_t lt[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(2)};
  tvm_vm_builder_emit_call(b, "test.lt", lt, 2, 1);
  int64_t br = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  int64_t s1[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)}, r2[] = {tvm_vm_arg_reg(2)};
  int64_t add[] = {tvm_vm_arg_reg(4), tvm_vm_arg_reg(5)};
  tvm_vm_builder_emit_call(b, "test.sub", s1, 2, 2);
  tvm_vm_builder_emit_call(b, "fib", r2, 1, 4);
  tvm_vm_builder_emit_call(b, "fib", r2, 1, 5);
  tvm_vm_builder_emit_call(b, "test.add", add, 2, 6);
  tvm_vm_builder_emit_ret(b, 6);
  tvm_vm_builder_function_end(b);
  failed |= write_seed(dir, "fib", b);

  /* Every constant kind, a memory scope, a loop, closures, a compiled function. */
  b = tvm_vm_builder_new();
  int64_t shape[] = {2, 3};
  void* t = tvm_ffi_tensor_empty(shape, 2, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
  memset(tvm_ffi_tensor_dl(t)->data, 0x3f, 24);
  tvm_vm_builder_const_tensor(b, t);
  tvm_ffi_release(t);
  tvm_vm_builder_const_shape(b, shape, 2);
  tvm_vm_builder_const_str(b, "a constant string");
  tvm_vm_builder_const_int(b, -7);
  tvm_vm_builder_const_float(b, 0.25);
  tvm_vm_builder_const_dtype(b, tvm_ffi_dtype(kDLInt, 8, 4));
  TVMFFIAny none = tvm_ffi_any_none(), yes = tvm_ffi_any_bool(true);
  tvm_vm_builder_const_object(b, &none);
  tvm_vm_builder_const_object(b, &yes);
  tvm_vm_builder_set_memory_scope(b, 0, "global");
  tvm_vm_builder_declare_packed(b, "vm.builtin.make_closure");
  tvm_vm_builder_declare_packed(b, "vm.builtin.invoke_closure");
  tvm_vm_builder_declare_packed(b, "test.lt");
  tvm_vm_builder_declare_packed(b, "test.add");
  tvm_vm_builder_declare_vmtir(b, "compiled", 2, 3, NULL);
  int64_t inc = tvm_vm_builder_declare_function(b, "inc", 2);
  tvm_vm_builder_function_begin(b, "main", 1, 4, NULL);
  int64_t mk[] = {tvm_vm_arg_func(inc), tvm_vm_arg_const(3)};
  tvm_vm_builder_emit_call(b, "vm.builtin.make_closure", mk, 2, 1);
  int64_t top = tvm_vm_builder_next_instr(b);
  int64_t cmp[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(100)};
  tvm_vm_builder_emit_call(b, "test.lt", cmp, 2, 2);
  int64_t exit_br = tvm_vm_builder_emit_if(b, 2, 0);
  int64_t inv[] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_reg(1), tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "vm.builtin.invoke_closure", inv, 3, 0);
  int64_t back = tvm_vm_builder_emit_goto(b, 0);
  tvm_vm_builder_set_jump_target(b, back, top);
  tvm_vm_builder_set_jump_target(b, exit_br, tvm_vm_builder_next_instr(b));
  int64_t cargs[] = {tvm_vm_arg_reg(0), tvm_vm_arg_const(1)};
  tvm_vm_builder_emit_call(b, "compiled", cargs, 2, 3);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "inc", 2, 3, NULL);
  int64_t ab[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "test.add", ab, 2, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  failed |= write_seed(dir, "kinds", b);

  /* The smallest executable: one function returning None. */
  b = tvm_vm_builder_new();
  tvm_vm_builder_function_begin(b, "f", 0, 0, NULL);
  tvm_vm_builder_emit_ret(b, TVM_VM_REG_VOID);
  tvm_vm_builder_function_end(b);
  failed |= write_seed(dir, "tiny", b);

  if (failed) {
    void* err = tvm_ffi_error_take();
    fprintf(stderr, "make_seeds: %s\n", err ? tvm_ffi_error_message(err) : "failed");
    tvm_ffi_release(err);
  }
  return failed;
}

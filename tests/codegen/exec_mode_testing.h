/*
 * exec_mode_testing.h: a Relax build test runs in bytecode mode, or, built with
 * TEST_EXEC_MODE=TVM_CODEGEN_EXEC_COMPILED (the test_*_compiled.c files include the test source
 * with it), in compiled mode: its builds take test_opts() (which also checks well-formedness and
 * the TVMScript round trip after every pass: pass_roundtrip.h), and test_mode() checks that every
 * Relax function of an executable was compiled in the mode asked for (no silent fallback).
 * Include after relax_testing.h (CHECK).
 */
#ifndef TVM_TESTS_CODEGEN_EXEC_MODE_TESTING_H_
#define TVM_TESTS_CODEGEN_EXEC_MODE_TESTING_H_

#include <tvm/codegen/relax_build.h>
#include <tvm/vm/bytecode.h>

#include "pass_roundtrip.h"

#ifndef TEST_EXEC_MODE
#define TEST_EXEC_MODE TVM_CODEGEN_EXEC_BYTECODE
#endif

static inline const tvm_codegen_options* test_opts(void) {
  static tvm_codegen_options o;
  static int init;
  if (!init) {
    o = tvm_codegen_options_default();
    o.exec_mode = TEST_EXEC_MODE;
    /* well-formedness and the TVMScript round trip after every pass (pass_roundtrip.h) */
    o.relax_after_pass = pass_roundtrip_observer;
    init = 1;
  }
  return &o;
}

/* exec (returned) has no function of the other mode's kind. */
static inline tvm_vm_executable* test_mode(tvm_vm_executable* exec) {
  int want = TEST_EXEC_MODE == TVM_CODEGEN_EXEC_COMPILED ? TVM_VM_FUNC_VMTIR : TVM_VM_FUNC_VM;
  for (int64_t i = 0; exec && i < tvm_vm_executable_num_functions(exec); ++i) {
    int k = tvm_vm_executable_function_kind(exec, i);
    if (k != TVM_VM_FUNC_PACKED) CHECK(k == want);
  }
  return exec;
}

#endif /* TVM_TESTS_CODEGEN_EXEC_MODE_TESTING_H_ */

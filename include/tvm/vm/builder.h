/*
 * tvm/vm/builder.h: build a VM executable instruction by instruction (upstream's ExecBuilder).
 *
 *   tvm_vm_builder* b = tvm_vm_builder_new();
 *   tvm_vm_builder_declare_packed(b, "test.add");
 *   tvm_vm_builder_function_begin(b, "main", 2, 3, NULL);     // 2 args, 3 registers
 *   int64_t args[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)};
 *   tvm_vm_builder_emit_call(b, "test.add", args, 2, 2);      // %2 = test.add(%0, %1)
 *   tvm_vm_builder_emit_ret(b, 2);
 *   tvm_vm_builder_function_end(b);
 *   tvm_vm_executable* exec = tvm_vm_builder_finish(b);
 *   tvm_vm_builder_free(b);
 *
 * Every function checks what it is given (unknown function names, registers beyond the
 * function's register count, argument counts of VM function calls, jumps leaving the function,
 * emitting outside a function, ...) and raises a ValueError naming the problem; after an error
 * the builder stays usable. tvm_vm_builder_finish runs the loader's verifier on the result.
 */
#ifndef TVM_VM_BUILDER_H_
#define TVM_VM_BUILDER_H_

#include <tvm/vm/vm.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef struct tvm_vm_builder tvm_vm_builder;

tvm_vm_builder* tvm_vm_builder_new(void);
void tvm_vm_builder_free(tvm_vm_builder* b); /* NULL-safe */

/* ---- Function table: each returns the function index, or -1 with an error raised. ---- */
/* A packed function (resolved at VM creation). Declaring a name again returns its index. */
int64_t tvm_vm_builder_declare_packed(tvm_vm_builder* b, const char* name);
/* A bytecode function defined later with function_begin (for forward calls and recursion). */
int64_t tvm_vm_builder_declare_function(tvm_vm_builder* b, const char* name, int64_t num_args);
/* A compiled (exec_mode="compiled") function, implemented by `__vmtir__<name>` in the imports
 * and called with (vm, register file, constant pool, function pool); its result is register
 * num_args, so register_file_size must exceed num_args. param_names may be NULL. */
int64_t tvm_vm_builder_declare_vmtir(tvm_vm_builder* b, const char* name, int64_t num_args,
                                     int64_t register_file_size,
                                     const char* const* param_names);
/* Define function `name`, declared with declare_function and not yet defined, as a compiled
 * (vm_tir) function instead of bytecode (what declare_vmtir makes; a code generator declares
 * every function first and decides per function). param_names may be NULL. */
int64_t tvm_vm_builder_define_vmtir(tvm_vm_builder* b, const char* name,
                                    int64_t register_file_size, const char* const* param_names);
/* The tvm_vm_func_kind of function `index`, or -1 when there is none. */
int tvm_vm_builder_function_kind(const tvm_vm_builder* b, int64_t index);
/* Index of a declared function, or -1 (nothing raised). */
int64_t tvm_vm_builder_find_function(const tvm_vm_builder* b, const char* name);

/* Start a bytecode function with num_args parameters in registers 0..num_args-1 and
 * num_registers registers in all. param_names may be NULL (names "arg0", "arg1", ...). */
int64_t tvm_vm_builder_function_begin(tvm_vm_builder* b, const char* name, int64_t num_args,
                                      int64_t num_registers, const char* const* param_names);
/* End the current function: it must end in Ret or Goto and every jump must be resolved. */
int tvm_vm_builder_function_end(tvm_vm_builder* b);

/* ---- Instructions: each returns the new instruction's index within the whole executable
 * (what tvm_vm_builder_set_jump_target takes), or -1 with an error raised. ---- */
/* dst: a register, or TVM_VM_REG_VOID to discard. args: tvm_vm_arg_* words. */
int64_t tvm_vm_builder_emit_call(tvm_vm_builder* b, const char* func_name, const int64_t* args,
                                 int32_t num_args, int64_t dst);
int64_t tvm_vm_builder_emit_call_index(tvm_vm_builder* b, int64_t func_index,
                                       const int64_t* args, int32_t num_args, int64_t dst);
int64_t tvm_vm_builder_emit_ret(tvm_vm_builder* b, int64_t result_reg);
/* Offsets are relative to the instruction itself; 0 leaves it unresolved, to be set with
 * tvm_vm_builder_set_jump_target before function_end. */
int64_t tvm_vm_builder_emit_goto(tvm_vm_builder* b, int64_t pc_offset);
int64_t tvm_vm_builder_emit_if(tvm_vm_builder* b, int64_t cond_reg, int64_t false_offset);
/* Point the Goto (or the false branch of the If) at `instr` to instruction `target`. */
int tvm_vm_builder_set_jump_target(tvm_vm_builder* b, int64_t instr, int64_t target);
/* Index the next emitted instruction will get. */
int64_t tvm_vm_builder_next_instr(const tvm_vm_builder* b);

/* ---- Constant pool: each returns the constant's index, or -1 with an error raised. ---- */
int64_t tvm_vm_builder_const_int(tvm_vm_builder* b, int64_t value);
int64_t tvm_vm_builder_const_float(tvm_vm_builder* b, double value);
int64_t tvm_vm_builder_const_str(tvm_vm_builder* b, const char* s);
int64_t tvm_vm_builder_const_shape(tvm_vm_builder* b, const int64_t* dims, int64_t ndim);
int64_t tvm_vm_builder_const_dtype(tvm_vm_builder* b, DLDataType dtype);
/* A CPU tensor; its contents are copied, so later changes to `tensor` do not show. */
int64_t tvm_vm_builder_const_tensor(tvm_vm_builder* b, const void* tensor);
/* Any value: None, bool, int, float, dtype, strings, bytes, shapes, tensors (copied), or an
 * object with reflection (serialized as JSON by tvm_vm_executable_save). */
int64_t tvm_vm_builder_const_object(tvm_vm_builder* b, const TVMFFIAny* value);
/* Record a memory scope for constant const_index ("global", "global.texture", ...). */
int tvm_vm_builder_set_memory_scope(tvm_vm_builder* b, int64_t const_index, const char* scope);

/* The verified executable; the builder can be freed afterwards (it is left empty). */
tvm_vm_executable* tvm_vm_builder_finish(tvm_vm_builder* b);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_VM_BUILDER_H_ */

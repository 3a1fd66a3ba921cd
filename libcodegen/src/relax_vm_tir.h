/*
 * relax_vm_tir.h: a Relax function's VMCodeGen instructions as one TIR PrimFunc
 * (exec_mode="compiled"; relax_vm_tir.c). Private to relax_vm_codegen.c and relax_vm_tir.c.
 */
#ifndef TVM_CODEGEN_RELAX_VM_TIR_H_
#define TVM_CODEGEN_RELAX_VM_TIR_H_

#include <stdbool.h>
#include <tvm/tir/tir.h>

/* One recorded instruction (VMCodeGen records a function before replaying it into the
 * builder; jumps are record indices). */
typedef struct {
  int op;          /* TVM_VM_OP_* */
  int64_t dst;     /* Call: destination register; Ret: result; If: condition register */
  int64_t func;    /* Call: function index */
  int32_t nargs;   /* Call */
  int64_t args_at; /* Call: first argument word in words */
  int64_t target;  /* Goto / If (false branch): record index jumped to */
} tvm_codegen__vm_rec;

/*
 * `__vmtir__<name>(ctx, r, c, f)`: the records recs[0..n) (argument words in words) of function
 * `name` (function table index fidx, num_args parameters, num_regs registers; packed[i] for each
 * of the num_funcs function table entries: whether it is a packed function) as a PrimFunc with global_symbol
 * "__vmtir__<name>". Returns NULL + error on failure; NULL without an error (and *unsupported
 * set) when the records are not in the structured form VMCodeGen makes (an If's then-part
 * ending in a Goto past the else-part, a single Ret at the end).
 */
tvm_tir_prim_func_obj* tvm_codegen__vm_tir_func(const char* name, int64_t fidx, int64_t num_args,
                                                const tvm_codegen__vm_rec* recs, int64_t n,
                                                const int64_t* words, const bool* packed,
                                                int64_t num_funcs, int64_t num_regs,
                                                bool* unsupported);

#endif /* TVM_CODEGEN_RELAX_VM_TIR_H_ */

/*
 * tvm/vm/bytecode.h: the Relax VM instruction set, shared by the executable format, the
 * builder, the verifier, the text printers and the interpreter.
 *
 * Values follow apache/tvm include/tvm/runtime/vm/bytecode.h and builtin.h, so executables
 * are interchangeable with upstream's.
 *
 * Instructions are stored as a flat array of 64-bit words; instruction i starts at word
 * instr_offset[i]:
 *
 *   Call  [1, dst, func_idx, num_args, arg_0 ... arg_{num_args-1}]
 *   Ret   [2, result]
 *   Goto  [3, pc_offset]                 pc += pc_offset (in instructions)
 *   If    [4, cond, false_offset]        cond register non-zero: pc + 1, else pc + false_offset
 *
 * An argument word holds its kind in bits [63:56] and a sign-extended value in bits [55:0].
 * dst, result and cond are plain register numbers (no kind bits).
 */
#ifndef TVM_VM_BYTECODE_H_
#define TVM_VM_BYTECODE_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* X(Name, value, text mnemonic, number of fixed words including the opcode). Call has
 * num_args further words. */
#define TVM_VM_OPCODES(X) \
  X(Call, 1, "call", 4)   \
  X(Ret, 2, "ret", 2)     \
  X(Goto, 3, "goto", 2)   \
  X(If, 4, "If", 3)

typedef enum {
#define TVM_VM_OPCODE_ENUM_(name, value, text, words) TVM_VM_OP_##name = value,
  TVM_VM_OPCODES(TVM_VM_OPCODE_ENUM_)
#undef TVM_VM_OPCODE_ENUM_
} tvm_vm_opcode;

/* Kinds of a Call argument word (Instruction::ArgKind). */
typedef enum {
  TVM_VM_ARG_REGISTER = 0,
  TVM_VM_ARG_IMMEDIATE = 1,
  TVM_VM_ARG_CONST_IDX = 2,
  TVM_VM_ARG_FUNC_IDX = 3
} tvm_vm_arg_kind;

#define TVM_VM_ARG_KIND_BITS 8
#define TVM_VM_ARG_VALUE_BITS 56
#define TVM_VM_ARG_VALUE_MASK ((INT64_C(1) << TVM_VM_ARG_VALUE_BITS) - 1)
/* Largest magnitude an argument value may have (one bit is the sign). */
#define TVM_VM_ARG_VALUE_MAX ((INT64_C(1) << (TVM_VM_ARG_VALUE_BITS - 1)) - 1)

/* Special registers: values at or above TVM_VM_REG_SPECIAL_BEGIN are not in the register file. */
#define TVM_VM_REG_SPECIAL_BEGIN (INT64_C(1) << 54)
/* Writing to it discards a result; reading it gives None. */
#define TVM_VM_REG_VOID (TVM_VM_REG_SPECIAL_BEGIN + 0)
/* Reading it gives the VM context pointer (an opaque pointer, kTVMFFIOpaquePtr). */
#define TVM_VM_REG_VM (TVM_VM_REG_SPECIAL_BEGIN + 1)

static inline int64_t tvm_vm_arg_make(tvm_vm_arg_kind kind, int64_t value) {
  return (int64_t)(((uint64_t)kind << TVM_VM_ARG_VALUE_BITS) |
                   ((uint64_t)value & (uint64_t)TVM_VM_ARG_VALUE_MASK));
}
static inline int64_t tvm_vm_arg_reg(int64_t reg) { return tvm_vm_arg_make(TVM_VM_ARG_REGISTER, reg); }
static inline int64_t tvm_vm_arg_imm(int64_t value) { return tvm_vm_arg_make(TVM_VM_ARG_IMMEDIATE, value); }
static inline int64_t tvm_vm_arg_const(int64_t index) { return tvm_vm_arg_make(TVM_VM_ARG_CONST_IDX, index); }
static inline int64_t tvm_vm_arg_func(int64_t index) { return tvm_vm_arg_make(TVM_VM_ARG_FUNC_IDX, index); }
static inline int tvm_vm_arg_kind_of(int64_t word) {
  return (int)(((uint64_t)word >> TVM_VM_ARG_VALUE_BITS) & 0xFF);
}
static inline int64_t tvm_vm_arg_value(int64_t word) {
  /* Sign-extend bits [55:0]. */
  return (int64_t)((uint64_t)word << TVM_VM_ARG_KIND_BITS) >> TVM_VM_ARG_KIND_BITS;
}

/* Kinds of function table entries (VMFuncInfo::FuncKind). */
typedef enum {
  TVM_VM_FUNC_PACKED = 0, /* resolved from the imports or the global registry */
  TVM_VM_FUNC_VM = 1,     /* bytecode, run by the interpreter */
  TVM_VM_FUNC_VMTIR = 2   /* compiled: `__vmtir__<name>` in the imports (exec_mode="compiled") */
} tvm_vm_func_kind;

/* Codes of vm.builtin.match_shape / match_prim_value (MatchShapeCode). */
typedef enum {
  TVM_VM_MATCH_ASSERT_EQUAL_TO_IMM = 0, /* assert value == r */
  TVM_VM_MATCH_STORE_TO_HEAP = 1,       /* heap[r] = value */
  TVM_VM_MATCH_NO_OP = 2,
  TVM_VM_MATCH_ASSERT_EQUAL_TO_LOAD = 3 /* assert value == heap[r] */
} tvm_vm_match_shape_code;

/* Codes of vm.builtin.make_shape / make_prim_value (MakeShapeCode). */
typedef enum {
  TVM_VM_MAKE_USE_IMM = 0,   /* dimension = r */
  TVM_VM_MAKE_LOAD_SHAPE = 1 /* dimension = heap[r] */
} tvm_vm_make_shape_code;

/* Return values of an instrument callback (VMInstrumentReturnKind). */
typedef enum { TVM_VM_INSTRUMENT_NO_OP = 0, TVM_VM_INSTRUMENT_SKIP_RUN = 1 } tvm_vm_instrument_kind;

/* Allocator kinds of a device (memory::AllocatorType). */
typedef enum { TVM_VM_ALLOC_NAIVE = 1, TVM_VM_ALLOC_POOLED = 2 } tvm_vm_allocator_type;

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_VM_BYTECODE_H_ */

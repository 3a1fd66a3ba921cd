/*
 * tvm/tir/expr.h: primitive expressions (spec grammar: PrimExpr) and their constructors.
 *
 * The constructors here build exactly the node asked for and enforce the spec's typing rules
 * ("Rules for Assigning Datatypes to PrimExprs"), raising a TypeError that names the rule and
 * prints the operands. They neither fold constants nor convert operands: tvm/tir/op.h does that
 * (tvm_tir_add, ...), and tvm/tir/builder.h composes expressions without reference counting.
 *
 * All arguments are borrowed; results are new references (NULL + error on failure).
 */
#ifndef TVM_TIR_EXPR_H_
#define TVM_TIR_EXPR_H_

#include <tvm/tir/node.h>
#include <tvm/tir/type.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* tir.Var / tir.SizeVar (a Var known to be non-negative). name_hint is ignored by structural
 * equality; a Var is equal to the Var bound at the corresponding definition site. */
struct tvm_tir_var_obj {
  tvm_tir_expr_obj expr;
  void* name_hint;                   /* ffi.String */
  tvm_tir_type_obj* type_annotation; /* PrimType(dtype), PointerType, or TupleType([]) */
};
/* ir.IntImm: Int or UInt scalar constant (bool is uint1 with value 0 or 1). */
struct tvm_tir_int_imm_obj {
  tvm_tir_expr_obj expr;
  int64_t value;
};
/* ir.FloatImm: Float or BFloat scalar constant. */
struct tvm_tir_float_imm_obj {
  tvm_tir_expr_obj expr;
  double value;
};
/* tir.StringImm: a handle to a constant string. */
struct tvm_tir_string_imm_obj {
  tvm_tir_expr_obj expr;
  void* value; /* ffi.String */
};
/* tir.Cast */
struct tvm_tir_cast_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_expr_obj* value;
};
/* Every binary PrimExpr (TVM_TIR_BINOP in nodes.def): Add ... Max, EQ ... GE, And, Or. */
struct tvm_tir_binary_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_expr_obj* a;
  tvm_tir_expr_obj* b;
};
/* tir.Not */
struct tvm_tir_not_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_expr_obj* a;
};
/* tir.Select (not short-circuiting). */
struct tvm_tir_select_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_expr_obj* condition;
  tvm_tir_expr_obj* true_value;
  tvm_tir_expr_obj* false_value;
};
/* tir.BufferLoad: indices is an ffi.Array of PrimExpr, one per buffer dimension. */
struct tvm_tir_buffer_load_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_buffer_obj* buffer;
  void* indices;
};
/* tir.Ramp: [base, base + stride, ..., base + (lanes-1)*stride]. */
struct tvm_tir_ramp_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_expr_obj* base;
  tvm_tir_expr_obj* stride;
  int32_t lanes;
};
/* tir.Broadcast: value repeated lanes times. */
struct tvm_tir_broadcast_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_expr_obj* value;
  int32_t lanes;
};
/* tir.Let: var (a definition site) bound to value in body. */
struct tvm_tir_let_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_var_obj* var;
  tvm_tir_expr_obj* value;
  tvm_tir_expr_obj* body;
};
/* tir.Call: op is an ir.Op (a builtin, tvm/tir/op.h) or an ir.GlobalVar (a PrimFunc of the
 * module); args is an ffi.Array of PrimExpr. */
struct tvm_tir_call_obj {
  tvm_tir_expr_obj expr;
  tvm_tir_relax_expr_obj* op;
  void* args;
};
/* tir.Shuffle: vectors and indices are ffi.Arrays of PrimExpr. */
struct tvm_tir_shuffle_obj {
  tvm_tir_expr_obj expr;
  void* vectors;
  void* indices;
};

/* ---- Constructors (rules of spec section "Rules for Assigning Datatypes to PrimExprs") ------ */
/* T-VAR: a Var of dtype, annotated PrimType(dtype), or TupleType([]) when dtype is void. */
tvm_tir_var_obj* tvm_tir_var_new(const char* name_hint, DLDataType dtype);
/* T-VAR: a Var whose dtype comes from its annotation: PrimType(t) -> t, PointerType -> handle,
 * TupleType([]) -> void; any other annotation is a TypeError. */
tvm_tir_var_obj* tvm_tir_var_new_typed(const char* name_hint, tvm_tir_type_obj* type_annotation);
tvm_tir_var_obj* tvm_tir_size_var_new(const char* name_hint, DLDataType dtype);
/* tvm_tir_var_new / tvm_tir_var_new_typed with the name hint given as an ffi.String object
 * (borrowed): the Var shares it instead of copying its text (a parser's interned names). */
tvm_tir_var_obj* tvm_tir_var_new_str(void* name_hint, DLDataType dtype);
tvm_tir_var_obj* tvm_tir_var_new_typed_str(void* name_hint, tvm_tir_type_obj* type_annotation);
/* T-INTIMM: dtype a scalar Int/UInt and value in its range. */
tvm_tir_expr_obj* tvm_tir_int_imm_new(DLDataType dtype, int64_t value);
/* T-FLOATIMM: dtype a scalar float16/32/64 or bfloat16; value NaN, +-inf or within range. */
tvm_tir_expr_obj* tvm_tir_float_imm_new(DLDataType dtype, double value);
/* A StringImm of the `len` bytes at `value` (any bytes, NUL included; NULL when len is 0). */
tvm_tir_expr_obj* tvm_tir_string_imm_new(const char* value, size_t len);
/* T-CAST */
tvm_tir_expr_obj* tvm_tir_cast_new(DLDataType dtype, tvm_tir_expr_obj* value);
/* T-BINOP / T-CMP / T-LOGIC, chosen by kind (a TVM_TIR_BINOP kind; ValueError otherwise). */
tvm_tir_expr_obj* tvm_tir_binary_new(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
/* T-NOT */
tvm_tir_expr_obj* tvm_tir_not_new(tvm_tir_expr_obj* a);
/* T-SELECT */
tvm_tir_expr_obj* tvm_tir_select_new(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* true_value,
                                     tvm_tir_expr_obj* false_value);
/* T-BUFFERLOAD: indices is an ffi.Array of PrimExpr (NULL = none). */
tvm_tir_expr_obj* tvm_tir_buffer_load_new(tvm_tir_buffer_obj* buffer, void* indices);
/* 0 when tvm_tir_buffer_load_new(buffer, an Array of indices[0, n)) would succeed (short of
 * memory), else -1 with the error it would raise: for a caller that wants the region such a
 * load reads (T.reads(A[i, j])) without making the load. */
int tvm_tir_buffer_load_check(tvm_tir_buffer_obj* buffer, const TVMFFIAny* indices, int64_t n);
/* T-RAMP */
tvm_tir_expr_obj* tvm_tir_ramp_new(tvm_tir_expr_obj* base, tvm_tir_expr_obj* stride, int32_t lanes);
/* T-BROADCAST */
tvm_tir_expr_obj* tvm_tir_broadcast_new(tvm_tir_expr_obj* value, int32_t lanes);
/* T-LET */
tvm_tir_expr_obj* tvm_tir_let_new(tvm_tir_var_obj* var, tvm_tir_expr_obj* value,
                                  tvm_tir_expr_obj* body);
/* T-CALL: op an ir.Op or ir.GlobalVar; args an ffi.Array of PrimExpr (NULL = none). An Op with a
 * fixed arity (tvm_tir_op_num_inputs >= 0) must get exactly that many arguments. */
tvm_tir_expr_obj* tvm_tir_call_new(DLDataType dtype, void* op, void* args);
/* T-SHUFFLE: vectors and indices are ffi.Arrays of PrimExpr. */
tvm_tir_expr_obj* tvm_tir_shuffle_new(void* vectors, void* indices);

/* ---- Queries ------------------------------------------------------------------------------- */
/* The value of an IntImm / FloatImm (an IntImm also reads as a float); false otherwise. */
bool tvm_tir_as_const_int(const void* expr, int64_t* out);
bool tvm_tir_as_const_float(const void* expr, double* out);
/* A short one-line text of a libtir node for messages ("n * 2", "A[i, j]"), depth- and
 * length-limited; never fails. (The TVMScript printer is libscript's.) */
void tvm_tir_node_text(tvm_ffi_strbuf* out, const void* obj);
/* name_hint of a Var as a C string. */
static inline const char* tvm_tir_var_name(const tvm_tir_var_obj* var) {
  return tvm_ffi_str_cstr(var->name_hint);
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_EXPR_H_ */

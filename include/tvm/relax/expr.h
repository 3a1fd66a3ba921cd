/*
 * tvm/relax/expr.h: Relax expressions, bindings and blocks (upstream: relax/expr.h).
 *
 * Every constructor computes the new expression's struct info (stored in struct_info_), so an
 * expression always carries it: a Call's comes from its operator's inference rule or its
 * callee's FuncStructInfo, a Tuple's from its fields, and so on. Wrong arguments are errors at
 * construction, located at the call's span when it has one.
 *
 * "expr" arguments are Relax expressions: the kinds below plus libtir's ir.GlobalVar, ir.Op and
 * tir.PrimFunc. Arrays are ffi.Arrays; NULL for an optional array means empty.
 */
#ifndef TVM_RELAX_EXPR_H_
#define TVM_RELAX_EXPR_H_

#include <tvm/relax/struct_info.h>
#include <tvm/tir/function.h>
#include <tvm/tir/op.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef tvm_tir_relax_expr_obj tvm_relax_expr_obj;

/* relax.expr.Call: op is an ir.Op (an operator of tvm/relax/op.h), a GlobalVar, a Var of
 * function struct info, a Function or an ExternFunc. attrs: the operator's attributes as an
 * ffi.Map<String, Any> holding every field of its schema (NULL when it has none). sinfo_args:
 * struct info arguments (call_tir's output, call_packed's result, ...). */
struct tvm_relax_call_obj {
  tvm_relax_expr_obj expr;
  tvm_relax_expr_obj* op;
  void* args;
  void* attrs;
  void* sinfo_args;
};
struct tvm_relax_tuple_obj {
  tvm_relax_expr_obj expr;
  void* fields;
};
struct tvm_relax_tuple_get_item_obj {
  tvm_relax_expr_obj expr;
  tvm_relax_expr_obj* tuple_value;
  int64_t index;
};
/* relax.expr.ShapeExpr: values is an ffi.Array of int64 PrimExprs. */
struct tvm_relax_shape_expr_obj {
  tvm_relax_expr_obj expr;
  void* values;
};
/* relax.expr.Var / DataflowVar. name_hint is ignored by equality; struct_info_ is the var's
 * annotation and is compared (the var's definition site maps the TIR variables it names). */
struct tvm_relax_var_obj {
  tvm_relax_expr_obj expr;
  void* name_hint; /* ffi.String */
};
/* relax.expr.Constant: data is an ffi.Tensor (on the CPU). */
struct tvm_relax_constant_obj {
  tvm_relax_expr_obj expr;
  void* data;
};
struct tvm_relax_prim_value_obj {
  tvm_relax_expr_obj expr;
  tvm_tir_expr_obj* value;
};
struct tvm_relax_string_imm_obj {
  tvm_relax_expr_obj expr;
  void* value; /* ffi.String */
};
struct tvm_relax_dtype_imm_obj {
  tvm_relax_expr_obj expr;
  DLDataType value;
};
/* relax.expr.If: cond is a bool scalar (tensor of ndim 0 or PrimValue); the branches are
 * SeqExprs (the constructor wraps other expressions). */
struct tvm_relax_if_obj {
  tvm_relax_expr_obj expr;
  tvm_relax_expr_obj* cond;
  tvm_relax_expr_obj* true_branch;
  tvm_relax_expr_obj* false_branch;
};
/* relax.expr.SeqExpr: blocks (ffi.Array of BindingBlock / DataflowBlock), then body. */
struct tvm_relax_seq_expr_obj {
  tvm_relax_expr_obj expr;
  void* blocks;
  tvm_relax_expr_obj* body;
};
/* relax.expr.Function: params (ffi.Array of Var, definition sites), body (a SeqExpr),
 * ret_struct_info, is_pure; attrs (BaseFunc) an ffi.Map<String, Any>. */
struct tvm_relax_function_obj {
  tvm_tir_base_func_obj func;
  void* params;
  tvm_relax_expr_obj* body;
  tvm_relax_sinfo_obj* ret_struct_info;
  bool is_pure;
};
/* relax.expr.ExternFunc: a packed function of the runtime, by name. */
struct tvm_relax_extern_func_obj {
  tvm_tir_base_func_obj func;
  void* global_symbol; /* ffi.String */
};
/* relax.expr.Binding: var is bound (a definition site). */
struct tvm_relax_binding_obj {
  TVMFFIObject header;
  void* span; /* optional, ignored by equality */
  tvm_relax_var_obj* var;
};
/* var = value */
struct tvm_relax_var_binding_obj {
  tvm_relax_binding_obj binding;
  tvm_relax_expr_obj* value;
};
/* var = R.match_cast(value, struct_info): defines the TIR variables struct_info names. */
struct tvm_relax_match_cast_obj {
  tvm_relax_binding_obj binding;
  tvm_relax_expr_obj* value;
  tvm_relax_sinfo_obj* struct_info;
};
/* relax.expr.BindingBlock / DataflowBlock: bindings is an ffi.Array of Binding. */
struct tvm_relax_block_obj {
  TVMFFIObject header;
  void* span;
  void* bindings;
};

/* ---- Leaves ---------------------------------------------------------------------------------- */
/* A Var (DataflowVar with dataflow) annotated with sinfo (required). */
tvm_relax_var_obj* tvm_relax_var_new(const char* name_hint, tvm_relax_sinfo_obj* sinfo,
                                     bool dataflow);
/* The same with the name as an ffi.String (borrowed). */
tvm_relax_var_obj* tvm_relax_var_new_str(void* name_hint, tvm_relax_sinfo_obj* sinfo,
                                         bool dataflow);
/* The name of a Var ("" when it has none: IR loaded from JSON may lack the field). */
static inline const char* tvm_relax_var_name(const tvm_relax_var_obj* v) {
  return v->name_hint ? tvm_ffi_str_cstr(v->name_hint) : "";
}
/* data: an ffi.Tensor on the CPU (kDLCPU), retained. sinfo NULL: the tensor's exact shape; else
 * a struct info that describes data, or a DTensorStructInfo whose tensor does (data being the
 * whole tensor: upstream's R.dist.const). */
tvm_relax_expr_obj* tvm_relax_constant_new(void* data, tvm_relax_sinfo_obj* sinfo);
/* A scalar PrimExpr as a Relax value (PrimStructInfo with the value). */
tvm_relax_expr_obj* tvm_relax_prim_value_new(tvm_tir_expr_obj* value);
tvm_relax_expr_obj* tvm_relax_prim_value_int64(int64_t value);
tvm_relax_expr_obj* tvm_relax_string_imm_new(const char* data, size_t size);
tvm_relax_expr_obj* tvm_relax_dtype_imm_new(DLDataType dtype);
/* values: ffi.Array of integer PrimExprs (or ints), converted to int64. */
tvm_relax_expr_obj* tvm_relax_shape_expr_new(void* values);
tvm_relax_expr_obj* tvm_relax_shape_expr_of_ints(const int64_t* dims, int32_t ndim);

/* ---- Compound expressions -------------------------------------------------------------------- */
tvm_relax_expr_obj* tvm_relax_tuple_new(void* fields);
/* index must be within the tuple's struct info when it is a TupleStructInfo (IndexError). */
tvm_relax_expr_obj* tvm_relax_tuple_get_item_new(tvm_relax_expr_obj* tuple, int64_t index);
/*
 * A Call. With an ir.Op of the operator table, attrs (ffi.Map<String, Any> of the attributes the
 * caller sets, or NULL) is checked against the operator's schema and completed with defaults,
 * and the operator's inference rule gives the struct info (errors name the operator and the
 * argument). With a callee of FuncStructInfo (GlobalVar, Var, Function), the arguments must
 * match its parameters and the result is its ret with symbolic dims bound at this call site.
 * sinfo_args NULL = none. span (optional) locates errors and is stored on the call.
 */
tvm_relax_expr_obj* tvm_relax_call_new(void* op, void* args, void* attrs, void* sinfo_args,
                                       void* span);
/* tvm_relax_call_new with the operator named `op_name` ("relax.add") and args given inline. */
tvm_relax_expr_obj* tvm_relax_call_op(const char* op_name, void* attrs, int32_t num_args, ...);
/* cond: a bool scalar expression; branches: any expressions (wrapped into SeqExprs). */
tvm_relax_expr_obj* tvm_relax_if_new(tvm_relax_expr_obj* cond, tvm_relax_expr_obj* true_branch,
                                     tvm_relax_expr_obj* false_branch);
/* blocks: ffi.Array of blocks (NULL = none). The struct info is the body's, erased of the TIR
 * variables and Vars that the blocks define (they are out of scope outside). */
tvm_relax_expr_obj* tvm_relax_seq_expr_new(void* blocks, tvm_relax_expr_obj* body);
/* params: ffi.Array of Var (not DataflowVar); body: any expression (wrapped into a SeqExpr);
 * ret_sinfo NULL: the body's struct info, erased to what the parameters define; otherwise the
 * body's must be an instance of it (a TypeError when provably not). attrs NULL = none. */
tvm_relax_function_obj* tvm_relax_function_new(void* params, tvm_relax_expr_obj* body,
                                               tvm_relax_sinfo_obj* ret_sinfo, bool is_pure,
                                               void* attrs);
/* The same function with attrs (an ffi.Map; NULL = none) instead of its own: its other fields
 * and its struct info shared, nothing inferred again. */
tvm_relax_function_obj* tvm_relax_function_with_attrs(const tvm_relax_function_obj* func,
                                                      void* attrs);
/* The same function with attrs[key] = value. */
tvm_relax_function_obj* tvm_relax_function_with_attr(tvm_relax_function_obj* func, const char* key,
                                                     const TVMFFIAny* value);
/* sinfo NULL: an opaque function returning an object. */
tvm_relax_expr_obj* tvm_relax_extern_func_new(const char* global_symbol, tvm_relax_sinfo_obj* sinfo);
/* A GlobalVar for a Relax function of a module, carrying its FuncStructInfo (so calls through
 * it infer their result before the function's body exists). */
tvm_tir_global_var_obj* tvm_relax_global_var_new(const char* name_hint, tvm_relax_sinfo_obj* sinfo);
/* The FuncStructInfo of a PrimFunc: what `R.call_tir`'s callee and a direct call see. Opaque
 * params (upstream's declared form, FuncStructInfo::OpaqueFunc: arguments are not checked, a
 * lowered call passes its symbolic values as one R.Shape), the result from ret_type as upstream
 * infers it (void -> R.Tuple(), a PrimType -> R.Prim(dtype), else R.Object), impure. */
tvm_relax_sinfo_obj* tvm_relax_prim_func_sinfo(const tvm_tir_prim_func_obj* func);
/* The same for a PrimFunc whose ret_type is given (NULL: void), before the PrimFunc exists: what
 * a parser declares a module's PrimFunc GlobalVar with. */
tvm_relax_sinfo_obj* tvm_relax_prim_func_type_sinfo(const tvm_tir_type_obj* ret_type);

/* ---- Bindings and blocks --------------------------------------------------------------------- */
/* var = value: value's struct info must be an instance of var's annotation (TypeError when
 * provably not; a symbolic mismatch needs match_cast). */
tvm_relax_binding_obj* tvm_relax_var_binding_new(tvm_relax_var_obj* var, tvm_relax_expr_obj* value);
/* var = R.match_cast(value, sinfo): var's annotation must equal sinfo's kind (the var should be
 * made with sinfo). FAIL base checks between value and sinfo are TypeErrors. */
tvm_relax_binding_obj* tvm_relax_match_cast_new(tvm_relax_var_obj* var, tvm_relax_expr_obj* value,
                                                tvm_relax_sinfo_obj* sinfo);
/* bindings: ffi.Array of Binding (NULL = none). */
tvm_relax_block_obj* tvm_relax_block_new(void* bindings, bool dataflow);
static inline tvm_relax_expr_obj* tvm_relax_binding_value(const tvm_relax_binding_obj* b) {
  return ((const tvm_relax_var_binding_obj*)b)->value; /* VarBinding and MatchCast alike */
}

/* ---- Module helpers -------------------------------------------------------------------------- */
/* The struct info of any Relax expression: its struct_info_, or for a PrimFunc its
 * tvm_relax_prim_func_sinfo (new reference), NULL + TypeError for an Op or a non-expression. */
tvm_relax_sinfo_obj* tvm_relax_expr_sinfo(const void* expr);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_EXPR_H_ */

/*
 * tvm/relax/struct_info.h: struct info, the compile-time facts Relax knows about a value
 * (upstream: relax/struct_info.h): its kind (tensor, tuple, shape, prim value, function, object)
 * and as much of its shape and dtype as is known. Symbolic dimensions are TIR variables (int64
 * tir.Var), shared between a function's parameters and its body.
 *
 * dtype "unknown" is the void DLDataType {kDLOpaqueHandle, 0, 0} (TVM_RELAX_DTYPE_UNKNOWN);
 * ndim -1 (TVM_RELAX_UNKNOWN_NDIM) means the rank is unknown.
 */
#ifndef TVM_RELAX_STRUCT_INFO_H_
#define TVM_RELAX_STRUCT_INFO_H_

#include <tvm/relax/node.h>
#include <tvm/tir/expr.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

#define TVM_RELAX_UNKNOWN_NDIM (-1)
#define TVM_RELAX_DTYPE_UNKNOWN ((DLDataType){kDLOpaqueHandle, 0, 0})
static inline bool tvm_relax_dtype_is_unknown(DLDataType t) {
  return t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0;
}

/* relax.PrimStructInfo: a scalar of dtype; value (optional PrimExpr) when known. */
struct tvm_relax_prim_sinfo_obj {
  tvm_relax_sinfo_obj base;
  tvm_tir_expr_obj* value; /* optional */
  DLDataType dtype;
};
/* relax.ShapeStructInfo: a shape; values (ffi.Array of int64 PrimExprs) when known, else NULL;
 * ndim = size of values when known, else a rank or -1. */
struct tvm_relax_shape_sinfo_obj {
  tvm_relax_sinfo_obj base;
  void* values; /* optional ffi.Array<PrimExpr> */
  int32_t ndim;
};
/* relax.TensorStructInfo: shape is a ShapeExpr or a Relax Var of shape struct info (optional);
 * vdevice an ir.VDevice (optional). */
struct tvm_relax_tensor_sinfo_obj {
  tvm_relax_sinfo_obj base;
  tvm_tir_relax_expr_obj* shape; /* optional */
  DLDataType dtype;
  int32_t ndim;
  void* vdevice; /* optional */
};
/* relax.TupleStructInfo: fields is an ffi.Array of StructInfo. */
struct tvm_relax_tuple_sinfo_obj {
  tvm_relax_sinfo_obj base;
  void* fields;
};
/* relax.FuncStructInfo: params an ffi.Array of StructInfo (NULL: opaque, any arguments), ret
 * the result's struct info, purity whether calling it has no visible side effect. An opaque
 * function may instead name a derivation rule (upstream's derive_func, an EnvFunc: see
 * tvm_relax_func_sinfo_derived) that computes each call's struct info from its arguments. */
struct tvm_relax_func_sinfo_obj {
  tvm_relax_sinfo_obj base;
  void* params; /* optional ffi.Array<StructInfo> */
  tvm_relax_sinfo_obj* ret;
  bool purity;
  void* derive_func; /* optional ffi.String, the rule's registered name (ret is then Object) */
};

/* ---- Constructors ---------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax_object_sinfo_new(void);
/* value NULL: any value of dtype. A value must be a scalar PrimExpr of dtype (TypeError). */
tvm_relax_sinfo_obj* tvm_relax_prim_sinfo_new(DLDataType dtype, tvm_tir_expr_obj* value);
/* values: ffi.Array of integer PrimExprs (converted to int64) or NULL (unknown, with ndim). */
tvm_relax_sinfo_obj* tvm_relax_shape_sinfo_new(void* values, int32_t ndim);
/* shape: a ShapeExpr or a Var with ShapeStructInfo, or NULL (then ndim gives the rank, -1 when
 * unknown). With a shape, ndim must be -1 or agree with it. vdevice optional. */
tvm_relax_sinfo_obj* tvm_relax_tensor_sinfo_new(void* shape, DLDataType dtype, int32_t ndim,
                                                void* vdevice);
/* The common case: a tensor of known dims (ffi.Array of PrimExprs, or ints). */
tvm_relax_sinfo_obj* tvm_relax_tensor_sinfo_of_dims(void* dims, DLDataType dtype);
/* A tensor of constant dims. */
tvm_relax_sinfo_obj* tvm_relax_tensor_sinfo_of_ints(const int64_t* dims, int32_t ndim,
                                                    DLDataType dtype);
tvm_relax_sinfo_obj* tvm_relax_tuple_sinfo_new(void* fields);
tvm_relax_sinfo_obj* tvm_relax_func_sinfo_new(void* params, tvm_relax_sinfo_obj* ret, bool purity);
/* An opaque function whose calls' struct info the named rule derives (R.Callable(derive_func=
 * name)). The rules are upstream's registered ones: "tvm.relax.type.infer_view_ty" (and its
 * older name "tvm.relax.struct_info.infer_view_sinfo"), R.memory.view's inference on the call's
 * (x, shape, dtype, relative_byte_offset), which runtime.TVMTensorCreateView is declared with.
 * An unknown name is a ValueError. */
tvm_relax_sinfo_obj* tvm_relax_func_sinfo_derived(const char* derive_func, bool purity);
/* The empty tuple R.Tuple(), the value of calls that return nothing. */
tvm_relax_sinfo_obj* tvm_relax_void_sinfo(void);

/* ---- Queries --------------------------------------------------------------------------------- */
/* The known dims of a tensor struct info (an ffi.Array of PrimExpr, borrowed), or NULL when the
 * shape is unknown or a Var whose struct info has no values. */
void* tvm_relax_tensor_sinfo_dims(const tvm_relax_sinfo_obj* sinfo);
/* The known dims of a shape struct info or a ShapeExpr-typed expression, borrowed, or NULL. */
void* tvm_relax_shape_sinfo_dims(const tvm_relax_sinfo_obj* sinfo);

/* ---- Relations (upstream: relax/analysis.h) ---------------------------------------------------- */
typedef enum {
  TVM_RELAX_BASE_CHECK_FAIL = 0,      /* derived is never an instance of base */
  TVM_RELAX_BASE_CHECK_STATIC = 1,    /* needs a runtime check: the static kinds agree */
  TVM_RELAX_BASE_CHECK_RUNTIME = 2,   /* needs a runtime check of symbolic dims or values */
  TVM_RELAX_BASE_CHECK_PASS = 3,      /* every value of derived is a value of base */
} tvm_relax_base_check;
/* Whether every value of `derived` is a value of `base` (StructInfoBaseCheck): PASS when
 * provable (symbolic dims through libtir's prover), FAIL when provably not, else what a runtime
 * check would have to verify. Never raises. */
tvm_relax_base_check tvm_relax_sinfo_base_check(const tvm_relax_sinfo_obj* base,
                                                const tvm_relax_sinfo_obj* derived);
static inline bool tvm_relax_sinfo_is_base_of(const tvm_relax_sinfo_obj* base,
                                              const tvm_relax_sinfo_obj* derived) {
  return tvm_relax_sinfo_base_check(base, derived) == TVM_RELAX_BASE_CHECK_PASS;
}
/* The most specific struct info of which both are instances (StructInfoLCA): the union of
 * two branches of an If. New reference, or NULL + error (memory). */
tvm_relax_sinfo_obj* tvm_relax_sinfo_lca(const tvm_relax_sinfo_obj* a, const tvm_relax_sinfo_obj* b);
/*
 * Erase what is not defined in scope (EraseToWellDefined): symbolic dims or values that use a TIR
 * variable not in `defined` (an ffi.Map or Dict whose keys are tir.Vars; NULL = none) become
 * unknown (a shape becomes ndim-only), and shapes given by Relax Vars not in `defined_vars`
 * likewise. Used when a value leaves the scope that binds its variables (a SeqExpr's body, a
 * call's result). A new reference (sinfo itself when nothing changes) or NULL + error.
 */
tvm_relax_sinfo_obj* tvm_relax_sinfo_erase(const tvm_relax_sinfo_obj* sinfo, const void* defined,
                                           const void* defined_vars);
/* sinfo with every TIR variable that is a key of `vmap` (ffi.Map/Dict tir.Var -> PrimExpr)
 * replaced by its value (and dims simplified). New reference, or NULL + error. */
tvm_relax_sinfo_obj* tvm_relax_sinfo_substitute(const tvm_relax_sinfo_obj* sinfo, const void* vmap);
/* Add to `dict` (an ffi.Dict tir.Var -> PrimExpr) the bindings that make `param` match `arg`:
 * each param dim (or PrimStructInfo value) that is a bare TIR variable not yet bound is bound to
 * arg's corresponding dim (the call-site unification of upstream's DeriveCallRetStructInfo).
 * Returns 0, or -1 + error (memory only). */
int tvm_relax_sinfo_unify(const tvm_relax_sinfo_obj* param, const tvm_relax_sinfo_obj* arg,
                          void* dict);
/* Append every TIR variable used in sinfo to `out` (an ffi.List), each once, in order of first
 * appearance. With defs_only, only the variables a parameter of this struct info defines (bare
 * variable dims and prim values). Returns 0 or -1 + error. */
int tvm_relax_sinfo_tir_vars(const tvm_relax_sinfo_obj* sinfo, bool defs_only, void* out);

/* A one-line TVMScript-like text of a struct info for messages: R.Tensor((n, 4), "float32"). */
void tvm_relax_sinfo_text(tvm_ffi_strbuf* out, const tvm_relax_sinfo_obj* sinfo);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_STRUCT_INFO_H_ */

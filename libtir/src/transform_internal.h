/* transform_internal.h: helpers shared by the lowering passes (transform_*.c; not installed). */
#ifndef TVM_TIR_SRC_TRANSFORM_INTERNAL_H_
#define TVM_TIR_SRC_TRANSFORM_INTERNAL_H_

#include <tvm/tir/transform.h>

#include "internal.h"

/* The per-function body of a pass: a new reference to the transformed PrimFunc (f itself,
 * retained, when unchanged) or NULL with an error raised. */
typedef void* (*tir_func_pass)(const tvm_tir_prim_func_obj* f);

/* Run fn on a PrimFunc, or on every PrimFunc of an IRModule (rebuilt only if one changed).
 * pass names the pass in the TypeError raised for any other argument. */
void* tvm_tir__xform_apply(const void* mod_or_func, const char* pass, tir_func_pass fn);

/* f with a new body (f itself, retained, when body is f's). */
void* tvm_tir__xform_with_body(const tvm_tir_prim_func_obj* f, tvm_tir_stmt_obj* body);

/* Raise kind "<pass>: <what> (<short text of node>) at <access path of node>", the path from
 * the PrimFunc being transformed, when node is part of it (see tvm_tir__xform_apply); returns NULL. */
void* tvm_tir__xform_error(const char* kind, const char* pass, const void* node, const char* fmt, ...)
    TVM_FFI_PRINTF(4, 5);

/*
 * Substitution of Vars and Buffers, memoised so that every use of a Buffer maps to the same new
 * Buffer object. Vars in `vars` are replaced by their values (in buffer fields too); Buffers in
 * `buffers` by theirs; any other Buffer has its fields substituted (and is memoised). With
 * rename, binding sites (Let, LetStmt, For, Allocate) get fresh Vars (a copy that keeps SSA).
 */
typedef struct {
  tvm_tir_mutator m; /* first: callbacks get &m */
  void* vars;        /* ffi.Dict Var -> PrimExpr */
  void* buffers;     /* ffi.Dict Buffer -> Buffer */
  bool rename;
} tir_subst;
/* 0, or -1 with a MemoryError. */
int tvm_tir__subst_init(tir_subst* s, bool rename);
void tvm_tir__subst_free(tir_subst* s);
int tvm_tir__subst_set_var(tir_subst* s, const void* var, const void* value);
int tvm_tir__subst_set_buffer(tir_subst* s, const void* old_buffer, const void* new_buffer);
/* The substituted node (a new reference) or NULL + error. */
void* tvm_tir__subst_apply(tir_subst* s, const void* node);

/* Release two objects (NULL-safe). */
static inline void RELEASE2(void* a, void* b) {
  tvm_ffi_release(a);
  tvm_ffi_release(b);
}

/* A new ffi.Array of the objects (retained each), NULL + error. */
static inline void* tir_array(void* const* objs, int64_t n) {
  return tvm_ffi_array_of_objects(objs, n);
}
/* expr cast to an integer type of `bits` with expr's code and lanes (expr itself, retained,
 * when it already has them). */
tvm_tir_expr_obj* tvm_tir__cast_bits(tvm_tir_expr_obj* expr, int bits);
/* tvm_tir_binary(kind, a, b) after casting the narrower of two integer operands to the wider
 * bit width (index arithmetic mixes int32 and int64). */
tvm_tir_expr_obj* tvm_tir__wide_binary(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
/* The strides of a buffer's layout (a new ffi.Array): its own, or the compact row-major ones of
 * its shape. */
void* tvm_tir__layout_strides(const tvm_tir_buffer_obj* buf);
/* _take form: consumes a and b (NULL-propagating like the builder). */
tvm_tir_expr_obj* tvm_tir__wide_take(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);

#endif /* TVM_TIR_SRC_TRANSFORM_INTERNAL_H_ */

/* transform_internal.h: helpers shared by the lowering passes (transform_*.c; not installed). */
#ifndef TVM_TIR_SRC_TRANSFORM_INTERNAL_H_
#define TVM_TIR_SRC_TRANSFORM_INTERNAL_H_

#include <tvm/tir/transform.h>

#include "internal.h"

/* The per-function body of a pass: a new reference to the transformed PrimFunc (f itself,
 * retained, when unchanged) or NULL with an error raised. */
typedef void* (*tir_func_pass)(const tvm_tir_prim_func_obj* f);

/* Run fn on a PrimFunc, or on every PrimFunc of an IRModule (rebuilt only if one changed).
 * pass names the pass in the TypeError raised for any other argument. A stale error the caller
 * left raised is set aside meanwhile (tvm_ffi_error_give_back): the passes read a raised error
 * as their own failure. */
void* tvm_tir__xform_apply(const void* mod_or_func, const char* pass, tir_func_pass fn);

/* f with a new body (f itself, retained, when body is f's). */
void* tvm_tir__xform_with_body(const tvm_tir_prim_func_obj* f, tvm_tir_stmt_obj* body);

/* Raise kind "<pass>: <what> (<short text of node>) at <access path of node>", the path from
 * the PrimFunc being transformed, when node is part of it (see tvm_tir__xform_apply); returns
 * NULL. */
void* tvm_tir__xform_error(const char* kind, const char* pass, const void* node, const char* fmt,
                           ...) TVM_FFI_PRINTF(4, 5) TVM_FFI_COLD;


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

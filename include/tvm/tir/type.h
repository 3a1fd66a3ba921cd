/*
 * tvm/tir/type.h: the finer-grained types of TIR variables and functions (spec: "Finer-Grained
 * Types"): PrimType, PointerType and TupleType (ir.* keys, shared with Relax).
 */
#ifndef TVM_TIR_TYPE_H_
#define TVM_TIR_TYPE_H_

#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* ir.PrimType: a value of datatype dtype. */
struct tvm_tir_prim_type_obj {
  tvm_tir_type_obj type;
  DLDataType dtype;
};
/* ir.PointerType: a handle to values of element_type (a PrimType in TIR, rule T-POINTERTYPE) in
 * storage_scope ("" = global, "shared", "shared.dyn", "local", ...). */
struct tvm_tir_pointer_type_obj {
  tvm_tir_type_obj type;
  tvm_tir_type_obj* element_type;
  void* storage_scope; /* ffi.String */
};
/* ir.TupleType: fields is an ffi.Array of ir.Type. TupleType([]) is TIR's void type. */
struct tvm_tir_tuple_type_obj {
  tvm_tir_type_obj type;
  void* fields;
};

tvm_tir_prim_type_obj* tvm_tir_prim_type_new(DLDataType dtype);
/* storage_scope NULL means "" (global). TypeError (T-POINTERTYPE) unless element_type is a
 * PrimType. */
tvm_tir_pointer_type_obj* tvm_tir_pointer_type_new(tvm_tir_type_obj* element_type,
                                                   const char* storage_scope);
/* PointerType(PrimType(dtype), storage_scope). */
tvm_tir_pointer_type_obj* tvm_tir_pointer_type_of(DLDataType dtype, const char* storage_scope);
/* fields: ffi.Array of ir.Type, or NULL for the empty tuple (TIR's void type). */
tvm_tir_tuple_type_obj* tvm_tir_tuple_type_new(void* fields);

/* Type equality used by the typing rules: same kind, same dtype / element type and storage
 * scope / fields. NULL equals only NULL. */
bool tvm_tir_type_equal(const tvm_tir_type_obj* a, const tvm_tir_type_obj* b);
/* Whether t is TupleType([]) (void). */
bool tvm_tir_type_is_void(const tvm_tir_type_obj* t);
/* The storage scope of a PointerType ("" for global), or NULL if t is not a PointerType. */
const char* tvm_tir_pointer_type_scope(const tvm_tir_type_obj* t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_TYPE_H_ */

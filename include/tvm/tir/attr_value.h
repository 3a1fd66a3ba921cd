/*
 * tvm/tir/attr_value.h: values that IR attributes hold besides expressions: a compilation target
 * (`T.target("cuda")` in a function's "target" attribute), a commutative reducer
 * (`T.comm_reducer(lambda x, y: x + y, [T.float32(0)])`, the node of a "reduce_scope"
 * AttrStmt next to tir.tvm_thread_allreduce) and an index map (`T.index_map(lambda i, j:
 * (j, i))`, in annotations of layout transformations) and a virtual device (`I.vdevice`, in a
 * module's global infos). Lowering and the interpreter do not act on them.
 */
#ifndef TVM_TIR_ATTR_VALUE_H_
#define TVM_TIR_ATTR_VALUE_H_

#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* target.Target, kept minimal: the kind name ("cuda", "llvm") and the other attributes as
 * given (upstream's export dict less "kind": "mcpu", "arch", "keys", "host", ...). */
struct tvm_tir_target_obj {
  TVMFFIObject header;
  void* kind;  /* ffi.String, not empty */
  void* attrs; /* ffi.Map<String, Any> */
};
/* attrs: an ffi.Map / ffi.Dict with string keys, or NULL (none). ValueError on an empty kind,
 * TypeError on a non-string key. */
tvm_tir_target_obj* tvm_tir_target_new(const char* kind, const void* attrs);

/* tir.CommReducer: result[i] combines lhs[i] and rhs[i] (lhs, rhs bound in result); the
 * identity_element[i] is its neutral value. All four arrays have the same length n >= 1 and
 * entry i of each has one dtype. */
struct tvm_tir_comm_reducer_obj {
  TVMFFIObject header;
  void* lhs;              /* ffi.Array<Var> */
  void* rhs;              /* ffi.Array<Var> */
  void* result;           /* ffi.Array<PrimExpr> */
  void* identity_element; /* ffi.Array<PrimExpr> */
};
/* TypeError when the arrays differ in length, are empty, hold the wrong kinds or disagree in
 * dtype. Arguments borrowed. */
tvm_tir_comm_reducer_obj* tvm_tir_comm_reducer_new(const void* lhs, const void* rhs,
                                                   const void* result,
                                                   const void* identity_element);

/* tir.IndexMap: maps the indices initial_indices (Vars, bound in final_indices) to
 * final_indices; inverse_index_map is None or the IndexMap back. */
struct tvm_tir_index_map_obj {
  TVMFFIObject header;
  void* initial_indices; /* ffi.Array<Var> */
  void* final_indices;   /* ffi.Array<PrimExpr> */
  TVMFFIAny inverse_index_map;
};
/* initial_indices an array of Vars, final_indices one of PrimExprs; inverse NULL or an
 * IndexMap. TypeError otherwise. Arguments borrowed. */
tvm_tir_index_map_obj* tvm_tir_index_map_new(const void* initial_indices, const void* final_indices,
                                             const tvm_tir_index_map_obj* inverse);

/* ir.VDevice: a device a module's functions may be placed on (module attribute
 * "global_infos" {"vdevice": [...]}): its target, the index among devices of that target, and
 * the memory scope ("global"). */
struct tvm_tir_vdevice_obj {
  TVMFFIObject header;
  tvm_tir_target_obj* target;
  int64_t vdevice_id;
  void* memory_scope; /* ffi.String */
};
/* TypeError without a target, ValueError on a negative vdevice_id; memory_scope NULL =
 * "global". */
tvm_tir_vdevice_obj* tvm_tir_vdevice_new(const tvm_tir_target_obj* target, int64_t vdevice_id,
                                         const char* memory_scope);

/* ir.DummyGlobalInfo: a global info without content (I.dummy_global_info(), an entry of a
 * module's "global_infos" lists that upstream's tests use as a placeholder); all are equal. */
struct tvm_tir_dummy_global_info_obj {
  TVMFFIObject header;
};
tvm_tir_dummy_global_info_obj* tvm_tir_dummy_global_info_new(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_ATTR_VALUE_H_ */

/*
 * parse_tir_builtins_attr.h: the builtins whose values are attribute values rather than
 * expressions or statements (parse_tir_builtins_attr.c): `T.target`, `T.comm_reducer`,
 * `T.index_map` (listed in the expression table) and `I.vdevice`; also `meta_var`.
 */
#ifndef TVM_SCRIPT_PARSE_TIR_BUILTINS_ATTR_H_
#define TVM_SCRIPT_PARSE_TIR_BUILTINS_ATTR_H_

#include "parse_internal.h"

/* T.target("cuda"), T.target("llvm -mcpu=skylake"), T.target({"kind": "llvm", ...}),
 * T.target(..., host=...): a target.Target. */
int tvm_script__b_target(tvm_script_call* call, TVMFFIAny* out);
/* T.comm_reducer(lambda x, y: x + y, [T.float32(0)]): a tir.CommReducer. */
int tvm_script__b_comm_reducer(tvm_script_call* call, TVMFFIAny* out);
/* T.index_map(lambda i, j: (j, i), inverse_index_map=..., index_dtype="int64"): a
 * tir.IndexMap. */
int tvm_script__b_index_map(tvm_script_call* call, TVMFFIAny* out);
/* The IndexMap of a lambda fn (upstream's IndexMap.from_func): Vars of dtype named after its
 * parameters, its result (a tuple or list of indices, or one) converted to PrimExprs; inverse
 * optional. NULL + error naming `what`. */
tvm_tir_index_map_obj* tvm_script__index_map_of(const TVMFFIAny* fn, DLDataType dtype,
                                                const tvm_tir_index_map_obj* inverse,
                                                const char* what);

/* I.vdevice(target, vdevice_id=0, memory_scope="global") (also R.vdevice): a VDevice. */
int tvm_script__b_vdevice(tvm_script_call* call, TVMFFIAny* out);
/* T.meta_var(value) (also I.meta_var): the value. */
int tvm_script__b_meta_var(tvm_script_call* call, TVMFFIAny* out);
/* The `I.*` builtins called like the `T.*` ones (I.vdevice, I.meta_var), or NULL (no error
 * raised). */
const tvm_script_builtin* tvm_script__ir_builtin_lookup(const char* name, size_t len);

#endif /* TVM_SCRIPT_PARSE_TIR_BUILTINS_ATTR_H_ */

/* range_extent.c: see range_extent.h. */
#include "range_extent.h"

#include <tvm/tir/arith.h>

tvm_tir_expr_obj* tvm_script_range_extent(tvm_tir_expr_obj* start, tvm_tir_expr_obj* stop) {
  if (tvm_tir_kind_of(stop) == TVM_TIR_KIND_Add) {
    const tvm_tir_binary_obj* add = (const void*)stop;
    TVMFFIAny a = tvm_ffi_any_obj(add->a), s = tvm_ffi_any_obj(start);
    /* The same object is equal to itself, and nodes of different types never are: only the
     * other cases need the (reflection-driven) comparison. */
    int eq = add->a == start                                                     ? 1
             : tvm_ffi_type_index(add->a) != tvm_ffi_type_index(start)           ? 0
             : tvm_ffi_structural_equal(&a, &s, false, NULL, NULL);
    if (eq == 1) return tvm_tir_ref(add->b);
    if (eq < 0) return NULL;
  }
  tvm_tir_expr_obj* ext = tvm_tir_sub(stop, start);
  int64_t c;
  if (!ext || tvm_tir_as_const_int(ext, &c) || !tvm_tir_dtype_is_index(ext->dtype)) return ext;
  tvm_tir_expr_obj* simple = tvm_tir_simplify_expr(ext, NULL);
  tvm_ffi_release(ext);
  return simple;
}

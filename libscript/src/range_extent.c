/* range_extent.c: see range_extent.h. */
#include "range_extent.h"

#include <tvm/tir/arith.h>

/* The binary operator kinds (struct tvm_tir_binary_obj: dtype, a, b). */
static const bool k_binary[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) [TVM_TIR_KIND_##Name] = true,
#include <tvm/tir/nodes.def>
};

/* Structural equality (free variables by identity) of the bounds ranges are written with,
 * without the reflection-driven walk: 1 equal, 0 not, -1 not decided here (other kinds, or
 * distinct variables). Equality of these nodes is their kind, dtype and fields (spans are
 * ignored), and an object equals itself. */
static int quick_equal(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b, int depth) {
  if (a == b) return 1;
  tvm_tir_kind k = tvm_tir_kind_of(a);
  if (k < 0 || depth > 8) return -1;
  if (k != tvm_tir_kind_of(b)) return tvm_tir_kind_of(b) < 0 ? -1 : 0;
  if (!tvm_ffi_dtype_equal(a->dtype, b->dtype)) return 0;
  if (k == TVM_TIR_KIND_IntImm) {
    return ((const tvm_tir_int_imm_obj*)a)->value == ((const tvm_tir_int_imm_obj*)b)->value;
  }
  if (!k_binary[k]) return -1;
  const tvm_tir_binary_obj *x = (const void*)a, *y = (const void*)b;
  int l = quick_equal(x->a, y->a, depth + 1);
  if (l == 0) return 0;
  int r = quick_equal(x->b, y->b, depth + 1);
  return r == 0 ? 0 : l == 1 && r == 1 ? 1 : -1;
}

tvm_tir_expr_obj* tvm_script__range_extent(tvm_tir_expr_obj* start, tvm_tir_expr_obj* stop) {
  if (tvm_tir_kind_of(stop) == TVM_TIR_KIND_Add) {
    const tvm_tir_binary_obj* add = (const void*)stop;
    TVMFFIAny a = tvm_ffi_any_obj(add->a), s = tvm_ffi_any_obj(start);
    int eq = quick_equal(add->a, start, 0);
    if (eq < 0) eq = tvm_ffi_structural_equal(&a, &s, false, NULL, NULL);
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

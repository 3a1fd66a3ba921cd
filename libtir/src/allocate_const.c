/*
 * allocate_const.c: T.allocate_const, an Allocate whose contents are constants.
 *
 * Upstream has a node of its own (tir.AllocateConst); here it is an Allocate whose annotations
 * hold the contents under TVM_TIR__ALLOCATE_CONST_KEY (tvm-private/tir.h): every pass that keeps
 * an Allocate's annotations keeps them, and the printer, the interpreter and the code generator
 * read them through tvm_tir__allocate_const_data, which checks them once for all three.
 */
#include <stdio.h>
#include <tvm-private/tir.h>

static bool const_supported(DLDataType t) {
  if (t.lanes != 1) return false;
  if (t.code == kDLInt || t.code == kDLUInt) {
    return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
  }
  return t.code == kDLFloat && (t.bits == 16 || t.bits == 32 || t.bits == 64);
}

int tvm_tir__allocate_const_data(const tvm_tir_allocate_obj* a, const void** out) {
  return tvm_tir__allocate_const_check(tvm_tir_var_name(a->buffer_var), a->dtype, a->extents,
                                       a->annotations, out);
}

int tvm_tir__allocate_const_check(const char* name, DLDataType dtype, const void* extents,
                                  const void* annotations, const void** out) {
  *out = NULL;
  const TVMFFIAny* v =
      annotations ? tvm_ffi_map_get_str(annotations, TVM_TIR__ALLOCATE_CONST_KEY) : NULL;
  if (!v) return 0;
  const void* data = tvm_ffi_any_as_object(v, kTVMFFIArray);
  if (!data) {
    return tvm_ffi_raise("TypeError", "allocate_const %s: annotation \"%s\" must be an array", name,
                         TVM_TIR__ALLOCATE_CONST_KEY);
  }
  if (!const_supported(dtype)) {
    char buf[32] = "?";
    if (tvm_ffi_dtype_format(dtype, buf, sizeof(buf)) < 0) tvm_ffi_error_clear();
    return tvm_ffi_raise("TypeError",
                         "allocate_const %s: dtype %s is not supported (int, uint and float of "
                         "one lane)",
                         name, buf);
  }
  int64_t count = 1;
  for (int64_t i = 0; i < tvm_tir_array_size(extents); ++i) {
    int64_t e;
    if (!tvm_tir_as_const_int(tvm_tir_array_at(extents, i), &e) || e < 0 ||
        __builtin_mul_overflow(count, e, &count)) {
      return tvm_ffi_raise("ValueError",
                           "allocate_const %s: extents must be non-negative constants", name);
    }
  }
  int64_t n = tvm_ffi_seq_size(data);
  if (n != count) {
    return tvm_ffi_raise("ValueError",
                         "allocate_const %s: %lld values for extents of %lld elements", name,
                         (long long)n, (long long)count);
  }
  tvm_tir_kind want = dtype.code == kDLFloat ? TVM_TIR_KIND_FloatImm : TVM_TIR_KIND_IntImm;
  for (int64_t i = 0; i < n; ++i) {
    const void* e =
        tvm_ffi_any_is_object(tvm_ffi_seq_at(data, i)) ? tvm_ffi_seq_obj_at(data, i) : NULL;
    if (!tvm_tir_is(e, want) || !tvm_ffi_dtype_equal(tvm_tir_expr_dtype(e), dtype)) {
      return tvm_ffi_raise("TypeError",
                           "allocate_const %s: value %lld is not a constant of the buffer's dtype",
                           name, (long long)i);
    }
  }
  *out = data;
  return 0;
}

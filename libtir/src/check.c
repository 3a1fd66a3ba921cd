/* check.c: argument checking shared by the constructors (NULLs, arrays, maps, node kinds). */
#include <stdio.h>

#include "internal.h"

void* tvm_tir__null_arg(const char* node, const char* field) {
  if (!tvm_ffi_error_pending()) tvm_ffi_raise("ValueError", "%s: %s is NULL", node, field);
  return NULL;
}

void* tvm_tir__too_wide_error(tvm_tir_rule rule, const char* node, DLDataType t) {
  char what[160];
  snprintf(what, sizeof(what), "%s is wider than 64 bits, the widest integer libtir represents",
           tvm_tir_dtype_str(t).s);
  return tvm_tir__type_error(rule, node, what, NULL);
}

static const char* obj_type_name(const void* obj) {
  return obj ? tvm_ffi_type_key(((const TVMFFIObject*)obj)->type_index) : "None";
}

int tvm_tir__kind_error(const void* obj, tvm_tir_kind kind, const char* node, const char* field) {
  return tvm_ffi_raise("TypeError", "%s: %s must be a %s, got %s", node, field,
                       tvm_tir_kind_type_key(kind), obj_type_name(obj));
}

int tvm_tir__array_arg_slow(void* arr, tvm_tir_kind elem, const char* node, const char* field,
                            void** out) {
  *out = NULL;
  if (!arr) {
    *out = tvm_tir__empty_array();
    return 0;
  }
  if (tvm_ffi_type_index(arr) != kTVMFFIArray) {
    return tvm_ffi_raise("TypeError", "%s: %s must be an ffi.Array, got %s", node, field,
                         obj_type_name(arr));
  }
  int64_t n = tvm_ffi_seq_size(arr);
  const TVMFFIAny* items = tvm_ffi_seq_data(arr);
  for (int64_t i = 0; i < n; ++i) {
    if (!tvm_ffi_any_is_object(&items[i]) || !tir_is(items[i].v_obj, elem)) {
      return tvm_ffi_raise("TypeError", "%s: %s[%lld] must be a %s, got %s", node, field,
                           (long long)i, tvm_tir_kind_type_key(elem),
                           tvm_ffi_any_type_name(&items[i]));
    }
  }
  tvm_ffi_retain(arr);
  *out = arr;
  return 0;
}

int tvm_tir__str_map_arg_slow(void* map, const char* node, const char* field, void** out) {
  *out = NULL;
  if (!map) {
    *out = tvm_tir__empty_map();
    return 0;
  }
  if (tvm_ffi_type_index(map) != kTVMFFIMap) {
    return tvm_ffi_raise("TypeError", "%s: %s must be an ffi.Map, got %s", node, field,
                         obj_type_name(map));
  }
  /* Keys that are all Strings pass the loop below (each is bytes of a string); the entries'
   * type indices read in one call instead of a tvm_ffi_map_next and tvm_ffi_any_as_bytes call
   * per key (a function's attrs are checked once per function). */
  if (tvm_ffi__map_keys_are_str(map)) {
    tvm_ffi_retain(map);
    *out = map;
    return 0;
  }
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(map, pos, &k, &v)) >= 0;) {
    TVMFFIByteArray s;
    if (!tvm_ffi_any_as_bytes(k, &s) || k->type_index == kTVMFFIBytes ||
        k->type_index == kTVMFFISmallBytes) {
      return tvm_ffi_raise("TypeError", "%s: %s keys must be strings, got %s", node, field,
                           tvm_ffi_any_type_name(k));
    }
  }
  tvm_ffi_retain(map);
  *out = map;
  return 0;
}

/*
 * attr_value.c: constructors of the attribute values target.Target, tir.CommReducer,
 * tir.IndexMap and ir.VDevice (tvm/tir/attr_value.h).
 */
#include <string.h>

#include "internal.h"

tvm_tir_target_obj* tvm_tir_target_new(const char* kind, const void* attrs) {
  if (!kind || !*kind) {
    tvm_ffi_raise("ValueError", "target.Target: the kind must be a non-empty string");
    return NULL;
  }
  const TVMFFIAny *key, *value;
  for (int64_t pos = attrs ? tvm_ffi_map_next(attrs, 0, &key, &value) : -1; pos >= 0;
       pos = tvm_ffi_map_next(attrs, pos, &key, &value)) {
    TVMFFIByteArray s;
    if (!tvm_ffi_any_as_bytes(key, &s) || key->type_index == kTVMFFIBytes) {
      tvm_ffi_raise("TypeError", "target.Target: attribute names must be strings, got %s",
                    tvm_ffi_any_type_name(key));
      return NULL;
    }
  }
  tvm_tir_target_obj* t = TIR_NEW(tvm_tir_target_obj, Target);
  if (!t) return NULL;
  t->kind = tvm_tir__str(kind);
  /* A Dict becomes an immutable Map; a Map is shared. */
  if (!attrs) {
    t->attrs = tvm_tir__empty_map();
  } else if (tvm_ffi_type_index(attrs) == kTVMFFIDict) {
    t->attrs = tvm_ffi_dict_to_map(attrs);
  } else {
    tvm_ffi_retain((void*)attrs);
    t->attrs = (void*)attrs;
  }
  if (!t->kind || !t->attrs) {
    tvm_ffi_release(t);
    return NULL;
  }
  return t;
}

/* Entry i of an array as an object of the wanted kind family, or NULL. */
static const void* entry(const void* arr, int64_t i, bool var) {
  const TVMFFIAny* a = tvm_ffi_seq_at(arr, i);
  if (!tvm_ffi_any_is_object(a)) return NULL;
  return (var ? tvm_tir_is_var(a->v_obj) : tvm_tir_is_expr(a->v_obj)) ? a->v_obj : NULL;
}

static bool is_array(const void* a) {
  return a && (tvm_ffi_type_index(a) == kTVMFFIArray || tvm_ffi_type_index(a) == kTVMFFIList);
}

tvm_tir_comm_reducer_obj* tvm_tir_comm_reducer_new(const void* lhs, const void* rhs,
                                                   const void* result,
                                                   const void* identity_element) {
  static const char* const k_names[4] = {"lhs", "rhs", "result", "identity_element"};
  const void* arrays[4] = {lhs, rhs, result, identity_element};
  int64_t n = is_array(lhs) ? tvm_ffi_seq_size(lhs) : 0;
  for (int k = 0; k < 4; ++k) {
    if (!is_array(arrays[k])) {
      tvm_ffi_raise("TypeError", "tir.CommReducer: %s must be an array", k_names[k]);
      return NULL;
    }
    if (tvm_ffi_seq_size(arrays[k]) != n || n == 0) {
      tvm_ffi_raise("TypeError",
                    "tir.CommReducer: lhs, rhs, result and identity_element must have the same "
                    "non-zero length, got %lld, %lld, %lld and %lld",
                    (long long)tvm_ffi_seq_size(lhs), (long long)tvm_ffi_seq_size(rhs),
                    (long long)tvm_ffi_seq_size(result),
                    (long long)tvm_ffi_seq_size(identity_element));
      return NULL;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const void* items[4];
    for (int k = 0; k < 4; ++k) {
      items[k] = entry(arrays[k], i, k < 2);
      if (!items[k]) {
        tvm_ffi_raise("TypeError", "tir.CommReducer: %s[%lld] must be a %s, got %s", k_names[k],
                      (long long)i, k < 2 ? "Var" : "PrimExpr",
                      tvm_ffi_any_type_name(tvm_ffi_seq_at(arrays[k], i)));
        return NULL;
      }
    }
    DLDataType t = tvm_tir_expr_dtype(items[0]);
    for (int k = 1; k < 4; ++k) {
      if (!tvm_tir_dtype_equal(tvm_tir_expr_dtype(items[k]), t)) {
        tvm_ffi_raise("TypeError", "tir.CommReducer: %s[%lld] has dtype %s, lhs[%lld] has %s",
                      k_names[k], (long long)i, tvm_tir_dtype_str(tvm_tir_expr_dtype(items[k])).s,
                      (long long)i, tvm_tir_dtype_str(t).s);
        return NULL;
      }
    }
  }
  tvm_tir_comm_reducer_obj* r = TIR_NEW(tvm_tir_comm_reducer_obj, CommReducer);
  if (!r) return NULL;
  void** fields[4] = {&r->lhs, &r->rhs, &r->result, &r->identity_element};
  for (int k = 0; k < 4; ++k) {
    /* A List becomes an immutable Array; an Array is shared. */
    if (tvm_ffi_type_index(arrays[k]) == kTVMFFIList) {
      *fields[k] = tvm_ffi_list_to_array(arrays[k]);
    } else {
      tvm_ffi_retain((void*)arrays[k]);
      *fields[k] = (void*)arrays[k];
    }
    if (!*fields[k]) {
      tvm_ffi_release(r);
      return NULL;
    }
  }
  return r;
}

tvm_tir_index_map_obj* tvm_tir_index_map_new(const void* initial_indices, const void* final_indices,
                                             const tvm_tir_index_map_obj* inverse) {
  const void* arrays[2] = {initial_indices, final_indices};
  for (int k = 0; k < 2; ++k) {
    if (!is_array(arrays[k])) {
      tvm_ffi_raise("TypeError", "tir.IndexMap: %s must be an array",
                    k ? "final_indices" : "initial_indices");
      return NULL;
    }
    for (int64_t i = 0; i < tvm_ffi_seq_size(arrays[k]); ++i) {
      if (!entry(arrays[k], i, k == 0)) {
        tvm_ffi_raise("TypeError", "tir.IndexMap: %s[%lld] must be a %s, got %s",
                      k ? "final_indices" : "initial_indices", (long long)i, k ? "PrimExpr" : "Var",
                      tvm_ffi_any_type_name(tvm_ffi_seq_at(arrays[k], i)));
        return NULL;
      }
    }
  }
  if (inverse && !TIR_IS(inverse, IndexMap)) {
    tvm_ffi_raise("TypeError", "tir.IndexMap: inverse_index_map must be an IndexMap");
    return NULL;
  }
  tvm_tir_index_map_obj* m = TIR_NEW(tvm_tir_index_map_obj, IndexMap);
  if (!m) return NULL;
  m->initial_indices = tvm_ffi_type_index(initial_indices) == kTVMFFIList
                           ? tvm_ffi_list_to_array(initial_indices)
                           : (tvm_ffi_retain((void*)initial_indices), (void*)initial_indices);
  m->final_indices = tvm_ffi_type_index(final_indices) == kTVMFFIList
                         ? tvm_ffi_list_to_array(final_indices)
                         : (tvm_ffi_retain((void*)final_indices), (void*)final_indices);
  m->inverse_index_map = inverse ? tvm_ffi_any_obj((void*)inverse) : tvm_ffi_any_none();
  if (inverse) tvm_ffi_retain((void*)inverse);
  if (!m->initial_indices || !m->final_indices) {
    tvm_ffi_release(m);
    return NULL;
  }
  return m;
}

tvm_tir_dummy_global_info_obj* tvm_tir_dummy_global_info_new(void) {
  return TIR_NEW(tvm_tir_dummy_global_info_obj, DummyGlobalInfo);
}

tvm_tir_vdevice_obj* tvm_tir_vdevice_new(const tvm_tir_target_obj* target, int64_t vdevice_id,
                                         const char* memory_scope) {
  if (!TIR_IS(target, Target)) {
    tvm_ffi_raise("TypeError", "ir.VDevice: the target must be a Target");
    return NULL;
  }
  if (vdevice_id < 0 || vdevice_id > INT32_MAX) {
    tvm_ffi_raise("ValueError", "ir.VDevice: vdevice_id must be in [0, 2^31), got %lld",
                  (long long)vdevice_id);
    return NULL;
  }
  tvm_tir_vdevice_obj* v = TIR_NEW(tvm_tir_vdevice_obj, VDevice);
  if (!v) return NULL;
  tvm_ffi_retain((void*)target);
  v->target = (tvm_tir_target_obj*)target;
  v->vdevice_id = vdevice_id;
  v->memory_scope = tvm_tir__str(memory_scope ? memory_scope : "global");
  if (!v->memory_scope) {
    tvm_ffi_release(v);
    return NULL;
  }
  return v;
}

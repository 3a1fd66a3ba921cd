/* type.c: PrimType, PointerType, TupleType, and the type equality of the typing rules. */
#include <string.h>

#include "internal.h"

static tvm_tir_prim_type_obj* prim_type_make(DLDataType dtype) {
  tvm_tir_prim_type_obj* t = TIR_NEW_UNINIT(tvm_tir_prim_type_obj, PrimType);
  if (t) {
    _Static_assert(offsetof(tvm_tir_prim_type_obj, dtype) + sizeof(uint64_t) ==
                       sizeof(tvm_tir_prim_type_obj),
                   "dtype and its padding end a PrimType");
    uint64_t word = 0; /* dtype, then zero padding: one store */
    memcpy(&word, &dtype, sizeof(dtype));
    t->type.span = NULL;
    memcpy(&t->dtype, &word, sizeof(word));
  }
  return t;
}

/* The PrimTypes of the scalar dtypes of codes Int, UInt, Float, OpaqueHandle and Bfloat with
 * 1, 8, 16, 32 or 64 bits, and their PointerTypes of the global scope (""), are shared by the
 * whole process like the small IntImms (tvm_tir__shared_get): every Var annotates one, and
 * every global buffer's data Var a PointerType. [code][bits slot] */
static void* g_scalar_types[5][5];
static void* g_global_ptrs[5][5];

/* The tables' slot of a scalar dtype, or NULL for any other. */
static void** scalar_slot(void* table[5][5], DLDataType dtype) {
  if (dtype.lanes != 1 || dtype.code > kDLBfloat) return NULL;
  switch (dtype.bits) {
    case 1: return &table[dtype.code][0];
    case 8: return &table[dtype.code][1];
    case 16: return &table[dtype.code][2];
    case 32: return &table[dtype.code][3];
    case 64: return &table[dtype.code][4];
    default: return NULL;
  }
}

tvm_tir_prim_type_obj* tvm_tir_prim_type_new(DLDataType dtype) {
  void** slot = scalar_slot(g_scalar_types, dtype);
  if (!slot) {
    if (tvm_tir__dtype_too_wide(dtype)) {
      return tvm_tir__too_wide_error(TVM_TIR_RULE_T_PRIMTYPE, "PrimType", dtype);
    }
    return prim_type_make(dtype);
  }
  void* t = tvm_tir__shared_get(slot);
  return t ? t : tvm_tir__shared_publish(slot, prim_type_make(dtype));
}

static tvm_tir_pointer_type_obj* pointer_type_make(tvm_tir_type_obj* element_type,
                                                   const char* storage_scope) {
  void* scope = tvm_tir__str(storage_scope);
  if (!scope) return NULL;
  tvm_tir_pointer_type_obj* t = TIR_NEW_UNINIT(tvm_tir_pointer_type_obj, PointerType);
  if (!t) {
    tvm_ffi_release(scope);
    return NULL;
  }
  t->type.span = NULL;
  tvm_ffi_retain(element_type);
  t->element_type = element_type;
  t->storage_scope = scope;
  return t;
}

tvm_tir_pointer_type_obj* tvm_tir_pointer_type_new(tvm_tir_type_obj* element_type,
                                                   const char* storage_scope) {
  if (!element_type) return tvm_tir__null_arg("PointerType", "element_type");
  if (!TIR_IS(element_type, PrimType)) {
    return tvm_tir__type_error(TVM_TIR_RULE_T_POINTERTYPE, "PointerType",
                               "element_type must be a PrimType", "element_type", element_type,
                               NULL);
  }
  void** slot = !storage_scope || !*storage_scope
                    ? scalar_slot(g_global_ptrs, ((tvm_tir_prim_type_obj*)element_type)->dtype)
                    : NULL;
  if (!slot) return pointer_type_make(element_type, storage_scope);
  void* t = tvm_tir__shared_get(slot);
  return t ? t : tvm_tir__shared_publish(slot, pointer_type_make(element_type, NULL));
}


tvm_tir_pointer_type_obj* tvm_tir_pointer_type_of(DLDataType dtype, const char* storage_scope) {
  tvm_tir_prim_type_obj* elem = tvm_tir_prim_type_new(dtype);
  if (!elem) return NULL;
  tvm_tir_pointer_type_obj* t = tvm_tir_pointer_type_new(&elem->type, storage_scope);
  tvm_ffi_release(elem);
  return t;
}

tvm_tir_tuple_type_obj* tvm_tir_tuple_type_new(void* fields) {
  void* arr;
  if (tvm_tir__array_arg(fields, TVM_TIR_KIND_Type, "TupleType", "fields", &arr) != 0) return NULL;
  tvm_tir_tuple_type_obj* t = TIR_NEW_UNINIT(tvm_tir_tuple_type_obj, TupleType);
  if (!t) {
    tvm_ffi_release(arr);
    return NULL;
  }
  t->type.span = NULL;
  t->fields = arr;
  return t;
}

static bool str_equal(const void* a, const void* b) {
  TVMFFIByteArray x = tvm_ffi_str_view(a), y = tvm_ffi_str_view(b);
  return x.size == y.size && memcmp(x.data, y.data, x.size) == 0;
}

bool tvm_tir_type_equal(const tvm_tir_type_obj* a, const tvm_tir_type_obj* b) {
  if (a == b) return true;
  if (!a || !b || a->header.type_index != b->header.type_index) return false;
  switch (tvm_tir_kind_of(a)) {
    case TVM_TIR_KIND_PrimType:
      return tvm_tir_dtype_equal(((const tvm_tir_prim_type_obj*)a)->dtype,
                                 ((const tvm_tir_prim_type_obj*)b)->dtype);
    case TVM_TIR_KIND_PointerType: {
      const tvm_tir_pointer_type_obj* x = (const tvm_tir_pointer_type_obj*)a;
      const tvm_tir_pointer_type_obj* y = (const tvm_tir_pointer_type_obj*)b;
      return tvm_tir_type_equal(x->element_type, y->element_type) &&
             str_equal(x->storage_scope, y->storage_scope);
    }
    case TVM_TIR_KIND_TupleType: {
      const void* fx = ((const tvm_tir_tuple_type_obj*)a)->fields;
      const void* fy = ((const tvm_tir_tuple_type_obj*)b)->fields;
      int64_t n = tvm_ffi_seq_size(fx);
      if (n != tvm_ffi_seq_size(fy)) return false;
      for (int64_t i = 0; i < n; ++i) {
        if (!tvm_tir_type_equal(tvm_ffi_seq_obj_at(fx, i), tvm_ffi_seq_obj_at(fy, i))) return false;
      }
      return true;
    }
    default:
      return false; /* types of other dialects: identity only */
  }
}

bool tvm_tir_type_is_void(const tvm_tir_type_obj* t) {
  return TIR_IS(t, TupleType) && tvm_ffi_seq_size(((const tvm_tir_tuple_type_obj*)t)->fields) == 0;
}

const char* tvm_tir_pointer_type_scope(const tvm_tir_type_obj* t) {
  if (!TIR_IS(t, PointerType)) return NULL;
  return tvm_ffi_str_cstr(((const tvm_tir_pointer_type_obj*)t)->storage_scope);
}

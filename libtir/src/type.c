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
 * 1, 8, 16, 32 or 64 bits are shared by the whole process, like the small IntImms (expr.c, which
 * says why that is sound): every Var annotates one. Made on first use, published with a
 * compare-and-swap, never dropped. */
static tvm_tir_prim_type_obj* g_scalar_types[5][5]; /* [code][bits slot] */

static int bits_slot(uint8_t bits) {
  switch (bits) {
    case 1: return 0;
    case 8: return 1;
    case 16: return 2;
    case 32: return 3;
    case 64: return 4;
    default: return -1;
  }
}

static __attribute__((noinline)) tvm_tir_prim_type_obj* shared_type_make(
    tvm_tir_prim_type_obj** slot, DLDataType dtype) {
  tvm_tir_prim_type_obj* t = prim_type_make(dtype);
  tvm_tir_prim_type_obj* seen = NULL;
  if (!t || __atomic_compare_exchange_n(slot, &seen, t, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
    tvm_ffi_retain(t); /* the table keeps the first reference; this one is the caller's */
    return t;
  }
  tvm_ffi_release(t); /* another thread published its own first */
  tvm_ffi_retain(seen);
  return seen;
}

tvm_tir_prim_type_obj* tvm_tir_prim_type_new(DLDataType dtype) {
  int b = dtype.lanes == 1 && dtype.code <= kDLBfloat ? bits_slot(dtype.bits) : -1;
  if (b < 0) return prim_type_make(dtype);
  tvm_tir_prim_type_obj** slot = &g_scalar_types[dtype.code][b];
  tvm_tir_prim_type_obj* t = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (__builtin_expect(t != NULL, 1)) {
    tvm_ffi_retain(t);
    return t;
  }
  return shared_type_make(slot, dtype);
}

static tvm_tir_pointer_type_obj* pointer_type_make(tvm_tir_type_obj* element_type,
                                                   const char* storage_scope);

/* PointerType(PrimType(scalar), "") is shared like its element type: every buffer's data Var
 * of the global scope annotates one. [code][bits slot], as g_scalar_types. */
static tvm_tir_pointer_type_obj* g_global_ptrs[5][5];

static __attribute__((noinline)) tvm_tir_pointer_type_obj* shared_ptr_make(
    tvm_tir_pointer_type_obj** slot, tvm_tir_type_obj* element_type) {
  tvm_tir_pointer_type_obj* t = pointer_type_make(element_type, NULL);
  tvm_tir_pointer_type_obj* seen = NULL;
  if (!t || __atomic_compare_exchange_n(slot, &seen, t, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
    tvm_ffi_retain(t); /* the table keeps the first reference; this one is the caller's */
    return t;
  }
  tvm_ffi_release(t);
  tvm_ffi_retain(seen);
  return seen;
}

tvm_tir_pointer_type_obj* tvm_tir_pointer_type_new(tvm_tir_type_obj* element_type,
                                                   const char* storage_scope) {
  if (!element_type) return tvm_tir__null_arg("PointerType", "element_type");
  if (!TIR_IS(element_type, PrimType)) {
    return tvm_tir__type_error(TVM_TIR_RULE_T_POINTERTYPE, "PointerType",
                               "element_type must be a PrimType", "element_type", element_type,
                               NULL);
  }
  DLDataType e = ((const tvm_tir_prim_type_obj*)element_type)->dtype;
  int b = e.lanes == 1 && e.code <= kDLBfloat ? bits_slot(e.bits) : -1;
  if (b >= 0 && (!storage_scope || !*storage_scope)) {
    tvm_tir_pointer_type_obj** slot = &g_global_ptrs[e.code][b];
    tvm_tir_pointer_type_obj* t = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t != NULL, 1)) {
      tvm_ffi_retain(t);
      return t;
    }
    return shared_ptr_make(slot, element_type);
  }
  return pointer_type_make(element_type, storage_scope);
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

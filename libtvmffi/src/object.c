/*
 * object.c: reference counting (strong + weak in one 64-bit word), object creation and
 * destruction, opaque objects.
 *
 * combined_ref_count = strong | weak << 32. All strong references together own one weak
 * reference, so the memory is freed only when both counts reach zero.
 */
#include "internal.h"

#define STRONG_ONE 1ull
#define WEAK_ONE (1ull << 32)

int TVMFFIObjectIncRef(TVMFFIObjectHandle obj) {
  if (!obj) return tvm_ffi_raise("ValueError", "TVMFFIObjectIncRef: NULL handle");
  __atomic_fetch_add(&((TVMFFIObject*)obj)->combined_ref_count, STRONG_ONE, __ATOMIC_RELAXED);
  return 0;
}

static void drop_strong(TVMFFIObject* o) {
  uint64_t old = __atomic_fetch_sub(&o->combined_ref_count, STRONG_ONE, __ATOMIC_RELEASE);
  if ((old & 0xFFFFFFFFull) != 1) return;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if ((old >> 32) == 1) {
    /* No weak references besides the one the strong ones shared: one call does both. */
    o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskBoth);
    return;
  }
  o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskStrong);
  old = __atomic_fetch_sub(&o->combined_ref_count, WEAK_ONE, __ATOMIC_RELEASE);
  if ((old >> 32) == 1) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }
}

int TVMFFIObjectDecRef(TVMFFIObjectHandle obj) {
  if (!obj) return tvm_ffi_raise("ValueError", "TVMFFIObjectDecRef: NULL handle");
  drop_strong((TVMFFIObject*)obj);
  return 0;
}

void tvm_ffi_release(void* obj) {
  if (obj) drop_strong((TVMFFIObject*)obj);
}

void tvm_ffi_weak_retain(void* obj) {
  if (obj) __atomic_fetch_add(&((TVMFFIObject*)obj)->combined_ref_count, WEAK_ONE,
                              __ATOMIC_RELAXED);
}

void tvm_ffi_weak_release(void* obj) {
  if (!obj) return;
  TVMFFIObject* o = (TVMFFIObject*)obj;
  uint64_t old = __atomic_fetch_sub(&o->combined_ref_count, WEAK_ONE, __ATOMIC_RELEASE);
  if ((old >> 32) == 1) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }
}

void* tvm_ffi_weak_lock(void* obj) {
  if (!obj) return NULL;
  TVMFFIObject* o = (TVMFFIObject*)obj;
  uint64_t cur = __atomic_load_n(&o->combined_ref_count, __ATOMIC_RELAXED);
  while ((cur & 0xFFFFFFFFull) != 0) {
    if (__atomic_compare_exchange_n(&o->combined_ref_count, &cur, cur + STRONG_ONE, true,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      return obj;
    }
  }
  return NULL;
}

void tvm_ffi__object_deleter(void* self, int flags) {
  TVMFFIObject* o = (TVMFFIObject*)self;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    tvm_ffi_type_entry* e = tvm_ffi__type_entry(o->type_index);
    if (e && e->destroy) {
      e->destroy(self);
    } else {
      tvm_ffi__release_fields(self);
    }
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) tvm_ffi__object_free(self);
}

void* tvm_ffi_object_new(int32_t type_index, size_t size) {
  if (size < sizeof(TVMFFIObject)) {
    tvm_ffi_raise("ValueError", "tvm_ffi_object_new: size %zu is smaller than the header", size);
    return NULL;
  }
  TVMFFIObject* o = (TVMFFIObject*)tvm_ffi__object_alloc(size, type_index);
  if (!o) return NULL;
  o->combined_ref_count = STRONG_ONE | WEAK_ONE;
  o->type_index = type_index;
  o->deleter = tvm_ffi__object_deleter;
  return o;
}

/* ---- Opaque objects: a foreign handle with its own deleter ------------------------------- */
typedef struct {
  TVMFFIObject header;
  TVMFFIOpaqueObjectCell cell;
  void (*handle_deleter)(void* handle);
} opaque_obj;
_Static_assert(offsetof(opaque_obj, cell) == sizeof(TVMFFIObject), "opaque cell follows header");

static void opaque_destroy(void* self) {
  opaque_obj* o = (opaque_obj*)self;
  if (o->handle_deleter) o->handle_deleter(o->cell.handle);
}

int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index, void (*deleter)(void* handle),
                             TVMFFIObjectHandle* out) {
  tvm_ffi_init();
  if (!out) return tvm_ffi_raise("ValueError", "TVMFFIObjectCreateOpaque: out is NULL");
  *out = NULL;
  TVMFFIObject probe = {0};
  probe.type_index = type_index;
  if (!tvm_ffi_instance_of(&probe, kTVMFFIOpaquePyObject)) {
    /* Opaque handles must use kTVMFFIOpaquePyObject or a type derived from it. */
    return tvm_ffi_raise("TypeError",
                         "TVMFFIObjectCreateOpaque: type index %d is not an opaque object type",
                         (int)type_index);
  }
  opaque_obj* o = (opaque_obj*)tvm_ffi_object_new(type_index, sizeof(opaque_obj));
  if (!o) return -1;
  o->cell.handle = handle;
  o->handle_deleter = deleter;
  *out = o;
  return 0;
}

void tvm_ffi__init_objects(void) {
  tvm_ffi_type_register("ffi.OpaquePyObject", kTVMFFIObject, kTVMFFIOpaquePyObject,
                        sizeof(opaque_obj), opaque_destroy, kTVMFFISEqHashKindUniqueInstance);
}

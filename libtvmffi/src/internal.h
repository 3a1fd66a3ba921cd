/* internal.h: declarations shared by libtvmffi's source files (not installed). */
#ifndef TVM_FFI_SRC_INTERNAL_H_
#define TVM_FFI_SRC_INTERNAL_H_

#include <tvm-private/ffi.h>
#include <tvm/ffi/ffi.h>
#include <string.h>

/* Most type indices a process can register (static and dynamic). */
#define TVM_FFI_MAX_TYPES 4096

/* The registry entry of a type: the public TVMFFITypeInfo first, then our extensions. */
typedef struct tvm_ffi_type_entry {
  TVMFFITypeInfo info;
  size_t object_size;          /* 0 when the type was registered through the raw ABI */
  tvm_ffi_destroy_fn destroy;  /* NULL: release reflected fields */
  TVMFFITypeMetadata metadata; /* info.metadata points here once set */
  /* Growable arrays behind info.fields / info.methods. */
  TVMFFIFieldInfo* fields;
  int32_t fields_cap;
  TVMFFIMethodInfo* methods;
  int32_t methods_cap;
  /* Next entry with the same key hash bucket (type_registry.c's key index). */
  struct tvm_ffi_type_entry* next_in_bucket;
  /* Cached fields of the type and all ancestors, outermost first (built lazily). */
  const TVMFFIFieldInfo** all_fields;
  int32_t num_all_fields;
  int32_t all_fields_version;
  /* What the default destructor releases (built lazily; NULL again after a field of the type
   * or an ancestor is registered). Read lock-free with an acquire load. */
  struct tvm_ffi_release_plan* release_plan;
} tvm_ffi_type_entry;

/*
 * The reference fields of a type (own and inherited, outermost first, as the reflected field
 * list orders them): the offsets of its object fields in offsets[0, num_obj), then those of its
 * Any fields in offsets[num_obj, count). Destroying an object then is a tight loop over offsets
 * (no per-field test of the field's storage) instead of a walk over TVMFFIFieldInfo records that
 * tests each field's accessors per object.
 */
typedef struct tvm_ffi_release_plan {
  int32_t num_obj;
  int32_t count;
  uint32_t offsets[];
} tvm_ffi_release_plan;

/* The registry table (type_registry.c). Hidden: the library is compiled -fPIC, and a global of
 * default visibility would be read through the GOT on every lookup. */
extern tvm_ffi_type_entry* tvm_ffi__types[TVM_FFI_MAX_TYPES] __attribute__((visibility("hidden")));

/* Entry of a registered type, or NULL. Lock-free read (inline: it is on every destruction and
 * instance check; entries are published with a release store and never freed). */
static inline tvm_ffi_type_entry* tvm_ffi__type_entry(int32_t type_index) {
  if ((uint32_t)type_index >= TVM_FFI_MAX_TYPES) return NULL;
  return __atomic_load_n(&tvm_ffi__types[type_index], __ATOMIC_ACQUIRE);
}

/* Build (under the registry lock) and publish the release plan of e; NULL when out of memory. */
const tvm_ffi_release_plan* tvm_ffi__build_release_plan(tvm_ffi_type_entry* e);

/*
 * What the deleter releases of an object, by type index, read with one load per object instead
 * of the entry's destroy function (compared against the containers' two) and then its plan:
 * the type's release plan when it has no destroy function (written with e->release_plan, under
 * the registry lock, and cleared with it), tvm_ffi__seq_plan / tvm_ffi__map_plan (num_obj < 0)
 * for a type registered with the containers' destroy functions, tvm_ffi__no_plan (never NULL,
 * so the deleter's common test needs no NULL test; num_obj < 0) when not known (yet): the
 * deleter then takes the general path through the entry. Hidden, like tvm_ffi__types.
 */
extern const tvm_ffi_release_plan* tvm_ffi__plans[TVM_FFI_MAX_TYPES]
    __attribute__((visibility("hidden")));
extern const tvm_ffi_release_plan tvm_ffi__seq_plan __attribute__((visibility("hidden")));
extern const tvm_ffi_release_plan tvm_ffi__map_plan __attribute__((visibility("hidden")));
extern const tvm_ffi_release_plan tvm_ffi__no_plan __attribute__((visibility("hidden")));

/* The current release plan of e. */
static inline const tvm_ffi_release_plan* tvm_ffi__release_plan(tvm_ffi_type_entry* e) {
  const tvm_ffi_release_plan* p = __atomic_load_n(&e->release_plan, __ATOMIC_ACQUIRE);
  return p ? p : tvm_ffi__build_release_plan(e);
}

/* Initialisers called once, in this order, by tvm_ffi_init() (init.c). Each registers the
 * types and global functions of its own file. */
void tvm_ffi__init_types(void);      /* type_registry.c: POD keys, ffi.Object */
void tvm_ffi__init_objects(void);    /* object.c: ffi.OpaquePyObject */
void tvm_ffi__init_strings(void);    /* string.c: ffi.String, ffi.Bytes */
void tvm_ffi__init_errors(void);     /* error.c: ffi.Error */
void tvm_ffi__init_functions(void);  /* function.c: ffi.Function, registry globals */
void tvm_ffi__init_containers(void); /* container.c: Array, List, Map, Dict, Shape */
void tvm_ffi__init_tensors(void);    /* tensor.c: ffi.Tensor, dtype globals */
void tvm_ffi__init_env(void);        /* env.c: stream/allocator globals */
void tvm_ffi__init_modules(void);    /* module.c: ffi.Module and loaders */
void tvm_ffi__init_reflection(void); /* access_path.c: calls the two below */
void tvm_ffi__init_structural(void); /* structural.c */
void tvm_ffi__init_json(void);       /* json.c */

/* True once tvm_ffi_init() has completed (cheap check for hot paths). Hidden: no GOT load. */
extern int tvm_ffi__initialized __attribute__((visibility("hidden")));

/* tvm_ffi_init() for hot paths: the call only while initialisation has not completed. */
static inline void tvm_ffi__ensure_init(void) {
  if (__builtin_expect(!__atomic_load_n(&tvm_ffi__initialized, __ATOMIC_ACQUIRE), 0)) {
    tvm_ffi_init();
  }
}

/* A global function implemented in C, registered at init; aborts init on failure only for
 * programmer errors (duplicate names), which tests catch. */
void tvm_ffi__register_global(const char* name, TVMFFISafeCallType fn);

/* A 64-bit finaliser (murmur3's fmix64): spreads every input bit over the result. */
static inline uint64_t tvm_ffi__mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* The hash of n bytes (tvm_ffi_hash_bytes): eight bytes a step, then the last one to eight
 * bytes in one word (two overlapping 4-byte loads, or the first, middle and last of 1-3
 * bytes, which with the length mixed in first determine them), then mix64. */
static inline uint64_t tvm_ffi__hash_bytes(const char* data, size_t n) {
  const unsigned char* p = (const unsigned char*)data;
  const uint64_t k = 0x9e3779b97f4a7c15ull;
  uint64_t h = 0xcbf29ce484222325ull ^ n * k;
  uint64_t w;
  for (; n > 8; p += 8, n -= 8) {
    memcpy(&w, p, 8);
    h = (h ^ w) * k;
    h ^= h >> 29;
  }
  if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + n - 4, 4);
    w = (uint64_t)a << 32 | b;
  } else {
    w = n ? (uint64_t)p[0] << 16 | (uint64_t)p[n >> 1] << 8 | p[n - 1] : 0;
  }
  return tvm_ffi__mix64((h ^ w) * k);
}

/* tvm_ffi_any_hash of a string or bytes value: the hash of its bytes xor the kind's tag. */
#define TVM_FFI__STR_HASH_TAG 0x5354ull
#define TVM_FFI__BYTES_HASH_TAG 0x4259ull

/* Wrap the result slot of a safe call: move an owned object into it. */
static inline int tvm_ffi__ret_obj(TVMFFIAny* result, void* obj) {
  if (!obj) return -1;
  *result = tvm_ffi_any_obj(obj); /* ownership moves to the result */
  return 0;
}

/* The backtrace of the current point as an owned C string ("" if none), for new errors. */
char* tvm_ffi__capture_backtrace(int skip);

/* The allocator behind tvm_ffi_malloc/tvm_ffi_free, for hot paths that want it without the
 * wrappers (object.c's default object allocator). */
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
void* tvm_je_malloc(size_t size);
void tvm_je_free(void* ptr);
#define tvm_ffi__raw_malloc tvm_je_malloc
#define tvm_ffi__raw_free tvm_je_free
#else
#include <stdlib.h>
#define tvm_ffi__raw_malloc malloc
#define tvm_ffi__raw_free free
#endif

/* tvm_ffi__object_new_uninit (tvm-private/ffi.h): for objects whose every byte that is ever
 * read the caller writes at once (Strings, Arrays, small Dicts, libtir expressions), so the zeroing
 * would only be overwritten. */

/* Deleter installed by tvm_ffi_object_new: destroy with Strong, free with Weak. */
void tvm_ffi__object_deleter(void* self, int flags);

/*
 * The objects found dead while tvm_ffi__object_deleter runs, destroyed by its loop rather than
 * by a nested call each: releasing an IR frees a tree of objects, and a call per node (its
 * frame, the registers it saves) cost as much as the node's own release. A dead object is
 * linked through its combined_ref_count: both of its counts are zero, so no reference remains
 * through which anything could read or change that word again. Unbounded: no recursion at all
 * for objects with the default deleter, however deep or wide the tree.
 */
typedef struct {
  TVMFFIObject* head;
} tvm_ffi__dead_list;

/* Drop one strong reference to child (non-NULL), held by an object being destroyed: as
 * tvm_ffi__drop_strong, except that a child whose last references these were and that has
 * the default deleter goes onto dl instead of being deleted here. */
static inline void tvm_ffi__drop_child(TVMFFIObject* child, tvm_ffi__dead_list* dl) {
  /* The sole owner (one strong reference, no weak one besides the strong group's) is the only
   * one that may touch the count, so it needs no atomic read-modify-write; the acquire load
   * pairs with the release decrements of earlier owners on other threads. */
  if (__atomic_load_n(&child->combined_ref_count, __ATOMIC_ACQUIRE) == (1ull | 1ull << 32) &&
      child->deleter == tvm_ffi__object_deleter) {
    child->combined_ref_count = (uint64_t)(uintptr_t)dl->head;
    dl->head = child;
    return;
  }
  /* Shared: tvm_ffi__drop_strong, its decrement inline (no call for the usual case). */
  uint64_t old = __atomic_fetch_sub(&child->combined_ref_count, 1ull, __ATOMIC_RELEASE);
  if (__builtin_expect((old & 0xFFFFFFFFull) == 1, 0)) tvm_ffi_release_last(child, old);
}

/* The storage of ffi.Map / ffi.Dict (container.c, which describes the layout). */
typedef struct {
  TVMFFIAny key; /* owned; type_index MAP_DEAD once erased */
  TVMFFIAny value;
  uint64_t hash;
} map_entry;

typedef struct {
  TVMFFIObject header;
  map_entry* entries; /* one block: entry_cap entries, then index_cap uint32 slots; in the
                       * object itself (tvm_ffi__map_inline) for a small Map made at its final size
                       * and for a Dict until it outgrows DICT_INLINE_CAP */
  uint32_t* index;    /* NULL while entry_cap <= MAP_SMALL_CAP */
  int64_t size;       /* live entries */
  int64_t used;       /* entries [0, used) are live or dead */
  int64_t entry_cap;
  int64_t index_cap; /* 0, or a power of two >= 2 * entry_cap */
} map_obj;

#define MAP_DEAD (-2)

/* Whether m's entries lie in the object (map_alloc of a small Map, never grown; a new Dict's
 * first entries): never freed. */
static inline bool tvm_ffi__map_inline(const map_obj* m) {
  return m->entries == (const map_entry*)(m + 1);
}

/* The destructors of Array/List and Map/Dict (container.c), recognised by the deleter, and
 * their counterparts that push dead children on the list head instead of deleting them (and
 * return the new head). */
void tvm_ffi__seq_destroy(void* self);
void tvm_ffi__map_destroy(void* self);
TVMFFIObject* tvm_ffi__seq_release_into(void* self, TVMFFIObject* head);
TVMFFIObject* tvm_ffi__map_release_into(void* self, TVMFFIObject* head);

/* Drop one strong reference to a non-NULL object (tvm_ffi_release, inline for the destructors
 * of containers and reflected objects, which release every child). All strong references
 * together own one weak reference, so the memory goes when both counts reach zero. */
static inline void tvm_ffi__strong_dropped(TVMFFIObject* o, uint64_t old);
static inline void tvm_ffi__drop_strong(TVMFFIObject* o) {
  uint64_t old = __atomic_fetch_sub(&o->combined_ref_count, 1ull, __ATOMIC_RELEASE);
  if ((old & 0xFFFFFFFFull) != 1) return;
  tvm_ffi__strong_dropped(o, old);
}

/* The rest of tvm_ffi__drop_strong once its decrement took the last strong reference (old:
 * the count before it). */
static inline void tvm_ffi__strong_dropped(TVMFFIObject* o, uint64_t old) {
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if ((old >> 32) == 1) {
    /* No weak references besides the one the strong ones shared: one call does both. */
    o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskBoth);
    return;
  }
  o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskStrong);
  old = __atomic_fetch_sub(&o->combined_ref_count, 1ull << 32, __ATOMIC_RELEASE);
  if ((old >> 32) == 1) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    o->deleter(o, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }
}

/* tvm_ffi_any_release with the drop inline. */
static inline void tvm_ffi__any_release(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin && a->v_obj) {
    tvm_ffi__drop_strong((TVMFFIObject*)a->v_obj);
  }
}

#endif /* TVM_FFI_SRC_INTERNAL_H_ */

/*
 * object.c: reference counting (strong + weak in one 64-bit word), object creation and
 * destruction, opaque objects.
 *
 * combined_ref_count = strong | weak << 32. All strong references together own one weak
 * reference, so the memory is freed only when both counts reach zero.
 */
#include <assert.h>
#include <pthread.h>
#include <string.h>

#include "internal.h"

#define STRONG_ONE 1ull
#define WEAK_ONE (1ull << 32)

int TVMFFIObjectIncRef(TVMFFIObjectHandle obj) {
  if (!obj) return tvm_ffi_raise("ValueError", "TVMFFIObjectIncRef: NULL handle");
  __atomic_fetch_add(&((TVMFFIObject*)obj)->combined_ref_count, STRONG_ONE, __ATOMIC_RELAXED);
  return 0;
}

int TVMFFIObjectDecRef(TVMFFIObjectHandle obj) {
  if (!obj) return tvm_ffi_raise("ValueError", "TVMFFIObjectDecRef: NULL handle");
  tvm_ffi__drop_strong((TVMFFIObject*)obj);
  return 0;
}

void(tvm_ffi_release)(void* obj) {
  if (obj) tvm_ffi__drop_strong((TVMFFIObject*)obj);
}

void tvm_ffi_release_last(void* obj, uint64_t old) {
  tvm_ffi__strong_dropped((TVMFFIObject*)obj, old);
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

/* ---- The object allocator of the ABI ---------------------------------------------------- */
/*
 * Each object block is [tag, TVMFFIObjectAllocHeader][object body]: 16 bytes before the body,
 * the header immediately before it, as the ABI requires. In jemalloc builds the tag (the first
 * 8 bytes) holds the block's size class for the thread cache below (0: not cacheable).
 */
#define TVM_FFI_OBJ_PREFIX 16

#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
/*
 * A per-thread cache of freed default object blocks: one free list per size class, class c
 * holding blocks of c * 16 bytes (prefix included), c in 1..OBJ_CLASSES-1, i.e. up to 256 bytes.
 * Building and releasing an IR creates and frees hundreds of small objects; a pop or push here
 * costs a third of jemalloc's malloc + free fast paths (its free looks the size class up in a
 * radix tree). Bounded (OBJ_CACHE_DEPTH blocks a class, at most ~550 KiB a thread) and flushed
 * to jemalloc when the thread exits. The bound is deep enough for the objects of one class in a
 * small IR (a parsed function has over a hundred objects, dozens of a class): with 64, the
 * blocks beyond it went back to jemalloc on every release and came from it on every build.
 * Only with jemalloc: sanitizer builds use libc, which sees every block.
 */
#define OBJ_CLASSES 17
#define OBJ_CACHE_DEPTH 255
typedef struct {
  void* head[OBJ_CLASSES];
  /* How many more blocks class c may take (OBJ_CACHE_DEPTH - its blocks; fits). 0 while the
   * flush is not armed, so that a free tests one count: the first push finds no room and arms
   * it (obj_cache_arm), which gives every class its room. */
  uint8_t room[OBJ_CLASSES];
  bool registered; /* the thread-exit flush is armed */
} obj_cache;
/* initial-exec: a direct %fs access (the library already needs static TLS for jemalloc). */
static __thread obj_cache t_obj_cache __attribute__((tls_model("initial-exec")));
static pthread_key_t g_obj_cache_key;
static pthread_once_t g_obj_cache_once = PTHREAD_ONCE_INIT;

static void obj_cache_flush(void* arg) {
  obj_cache* c = (obj_cache*)arg;
  c->registered = false; /* a later push (another destructor) arms it again */
  for (int i = 0; i < OBJ_CLASSES; ++i) {
    while (c->head[i]) {
      void* b = c->head[i];
      c->head[i] = *(void**)b;
      tvm_ffi__raw_free(b);
    }
    c->room[i] = 0;
  }
}
static void obj_cache_make_key(void) { pthread_key_create(&g_obj_cache_key, obj_cache_flush); }
/* Arm the flush (the cache is empty: never armed, or flushed); then every class has room. */
static __attribute__((noinline)) void obj_cache_arm(obj_cache* c) {
  pthread_once(&g_obj_cache_once, obj_cache_make_key);
  c->registered = pthread_setspecific(g_obj_cache_key, c) == 0;
  if (c->registered) memset(c->room, OBJ_CACHE_DEPTH, sizeof(c->room));
}

static inline void* block_alloc(size_t total) {
  size_t cls = (total + 15) >> 4;
  if (cls < OBJ_CLASSES) {
    obj_cache* c = &t_obj_cache;
    void* b = c->head[cls];
    if (b) {
      c->head[cls] = *(void**)b;
      c->room[cls]++;
    } else if (!(b = tvm_ffi__raw_malloc(cls << 4))) {
      return NULL;
    }
    *(uint64_t*)b = cls;
    return b;
  }
  void* b = tvm_ffi__raw_malloc(total);
  if (b) *(uint64_t*)b = 0;
  return b;
}

static inline void block_free(void* b) {
  uint64_t cls = *(uint64_t*)b;
  obj_cache* c = &t_obj_cache;
  if (cls && (c->room[cls] || (!c->registered && (obj_cache_arm(c), c->room[cls])))) {
    *(void**)b = c->head[cls];
    c->head[cls] = b;
    c->room[cls]--;
    return;
  }
  tvm_ffi__raw_free(b);
}
#else
#define block_alloc tvm_ffi__raw_malloc
#define block_free tvm_ffi__raw_free
#endif

#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
/* Zero the body of a block of a cached size class (false for a larger one) past its first 16
 * bytes: the rest of its class's (class - 1) * 16 bytes (at least size, 16-byte aligned), as a
 * run of 16-byte stores entered at the class's count, instead of a call to memset with a
 * variable size (every object is zeroed when made; a constant-size memset of this size becomes
 * `rep stos`, slower still). The first 16 bytes (reference count, type index and padding) are
 * the caller's to write: every object's header sets them. */
typedef long long obj_zero16 __attribute__((vector_size(16)));
static inline bool zero_cached_body(void* body, size_t size) {
  size_t cls = (TVM_FFI_OBJ_PREFIX + size + 15) >> 4;
  obj_zero16* z = (obj_zero16*)body;
  obj_zero16 zero = {0, 0};
  /* One zeroed register for all the stores (else a pxor before each, at every case label). */
  __asm__("" : "+x"(zero));
  switch (cls) {
    case 16: z[14] = zero; /* fall through */
    case 15: z[13] = zero; /* fall through */
    case 14: z[12] = zero; /* fall through */
    case 13: z[11] = zero; /* fall through */
    case 12: z[10] = zero; /* fall through */
    case 11: z[9] = zero;  /* fall through */
    case 10: z[8] = zero;  /* fall through */
    case 9: z[7] = zero;   /* fall through */
    case 8: z[6] = zero;   /* fall through */
    case 7: z[5] = zero;   /* fall through */
    case 6: z[4] = zero;   /* fall through */
    case 5: z[3] = zero;   /* fall through */
    case 4: z[2] = zero;   /* fall through */
    case 3: z[1] = zero;   /* fall through */
    case 2: return true;
    default: return false;
  }
}
_Static_assert(OBJ_CLASSES == 17, "zero_cached_body has a case for each cached class");
#endif

static void default_delete_space(void* body) { block_free((char*)body - TVM_FFI_OBJ_PREFIX); }

/* One block of prefix + size from the general allocator, or NULL with MemoryError raised. */
static inline void* default_block(size_t size) {
  char* block = (char*)block_alloc(TVM_FFI_OBJ_PREFIX + size);
  if (!block) {
    tvm_ffi_raise("MemoryError", "out of memory allocating %zu bytes", TVM_FFI_OBJ_PREFIX + size);
    return NULL;
  }
  char* body = block + TVM_FFI_OBJ_PREFIX;
  ((TVMFFIObjectAllocHeader*)body - 1)->delete_space = default_delete_space;
  return body;
}

static void* default_allocate(size_t size, size_t alignment, int32_t type_index, void* ctx) {
  (void)type_index;
  (void)ctx;
  if (alignment > TVM_FFI_OBJ_PREFIX) return NULL; /* over-aligned objects are not used */
  return default_block(size);
}

static TVMFFICustomAllocator g_default_allocator = {default_allocate, NULL};
static TVMFFICustomAllocator* g_allocator = &g_default_allocator;
/* g_allocator != &g_default_allocator, for object_new's test (one compare with memory). */
static bool g_custom_allocator;

TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void) {
  return __atomic_load_n(&g_allocator, __ATOMIC_ACQUIRE);
}

int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator) {
  if (allocator && !allocator->allocate) {
    return tvm_ffi_raise("ValueError", "TVMFFISetCustomAllocator: allocate is NULL");
  }
  allocator = allocator ? allocator : &g_default_allocator;
  __atomic_store_n(&g_allocator, allocator, __ATOMIC_RELEASE);
  __atomic_store_n(&g_custom_allocator, allocator != &g_default_allocator, __ATOMIC_RELEASE);
  return 0;
}

/* ---- Creation and destruction ----------------------------------------------------------- */

const tvm_ffi_release_plan tvm_ffi__no_plan = {-3, 0};
/* internal.h. Every entry starts as tvm_ffi__no_plan (a GNU range initialiser: no startup work). */
const tvm_ffi_release_plan* tvm_ffi__plans[TVM_FFI_MAX_TYPES] = {
    [0 ... TVM_FFI_MAX_TYPES - 1] = &tvm_ffi__no_plan};
const tvm_ffi_release_plan tvm_ffi__seq_plan = {-1, 0};
const tvm_ffi_release_plan tvm_ffi__map_plan = {-2, 0};

/* Release the reference fields of o by its type's plan p (num_obj >= 0); returns head with the
 * objects found dead pushed on it. With clear, the object fields are cleared as the reflected
 * setters expect: for an object whose memory outlives this (weak references remain); a block
 * about to be freed needs no clearing. The list head is passed by value so that it stays in a
 * register. */
static inline TVMFFIObject* release_planned(TVMFFIObject* o, const tvm_ffi_release_plan* p,
                                           TVMFFIObject* head, bool clear) {
  tvm_ffi__dead_list dl = {head};
  char* base = (char*)o;
  /* The plan's counts in locals: the stores to the children's counts could alias them for all
   * the compiler knows, and it would reload them after each child. */
  const uint32_t* offsets = p->offsets;
  int32_t num_obj = p->num_obj, count = p->count;
  int32_t i = 0;
  for (; i < num_obj; ++i) {
    TVMFFIObject** addr = (TVMFFIObject**)(base + offsets[i]);
    TVMFFIObject* child = *addr;
    if (clear) *addr = NULL;
    if (child) tvm_ffi__drop_child(child, &dl);
  }
  for (; i < count; ++i) {
    TVMFFIAny* a = (TVMFFIAny*)(base + offsets[i]);
    if (a->type_index >= kTVMFFIStaticObjectBegin && a->v_obj) {
      tvm_ffi__drop_child((TVMFFIObject*)a->v_obj, &dl);
    }
  }
  return dl.head;
}

/* release_planned's general form, from the type's entry: the containers' children go onto the
 * list as a reflected object's fields do; any other destroy function is called. */
static TVMFFIObject* release_fields(TVMFFIObject* o, TVMFFIObject* head, bool clear) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(o->type_index);
  if (!e) return head;
  tvm_ffi_destroy_fn destroy = e->destroy;
  if (destroy) {
    if (destroy == tvm_ffi__seq_destroy) return tvm_ffi__seq_release_into(o, head);
    if (destroy == tvm_ffi__map_destroy) return tvm_ffi__map_release_into(o, head);
    destroy(o);
    return head;
  }
  const tvm_ffi_release_plan* p = tvm_ffi__release_plan(e);
  if (!p) return head; /* out of memory building the plan: leak the children, not crash */
  return release_planned(o, p, head, clear);
}

/* delete_tree's objects other than those it releases itself (see tvm_ffi__plans). */
static __attribute__((noinline)) TVMFFIObject* release_other(TVMFFIObject* o,
                                                           const tvm_ffi_release_plan* p,
                                                           TVMFFIObject* head) {
  if (p == &tvm_ffi__seq_plan) return tvm_ffi__seq_release_into(o, head);
  if (p == &tvm_ffi__map_plan) return tvm_ffi__map_release_into(o, head);
  if (p != &tvm_ffi__no_plan) return release_planned(o, p, head, false); /* (Any fields) */
  return release_fields(o, head, false);
}

/* Give the block of o back to its allocator. */
static inline void free_object(TVMFFIObject* o) {
  TVMFFIObjectAllocHeader* h = (TVMFFIObjectAllocHeader*)o - 1;
  /* The default allocator's block is freed here directly; any other goes back to its own. */
  if (h->delete_space == default_delete_space) {
    block_free((char*)o - TVM_FFI_OBJ_PREFIX);
  } else {
    h->delete_space(o);
  }
}

/* tvm_ffi__drop_child with the list head by value (delete_tree keeps it in a register). */
static inline TVMFFIObject* drop_child(TVMFFIObject* child, TVMFFIObject* head) {
  tvm_ffi__dead_list dl = {head};
  tvm_ffi__drop_child(child, &dl);
  return dl.head;
}

/* Destroy and free o and every object found dead on the way (all with both counts at zero). */
static void delete_tree(TVMFFIObject* o) {
  TVMFFIObject* head = NULL;
  for (;;) {
    /* One load says what to release (see tvm_ffi__plans). The usual objects (a reflected one
     * whose reference fields are all object fields, an Array) are released here, with the list
     * head in a register and no call (a call per node cost as much as the node's release:
     * its frame, the registers it saves); the rest by release_other. */
    uint32_t ti = (uint32_t)o->type_index;
    const tvm_ffi_release_plan* p = ti < TVM_FFI_MAX_TYPES
                                        ? __atomic_load_n(&tvm_ffi__plans[ti], __ATOMIC_ACQUIRE)
                                        : &tvm_ffi__no_plan;
    /* (Never NULL: an unknown type's entry is tvm_ffi__no_plan, whose counts differ.) */
    if (__builtin_expect(p->num_obj == p->count, 1)) {
      const char* base = (const char*)o;
      for (const uint32_t *off = p->offsets, *end = off + p->num_obj; off != end; ++off) {
        TVMFFIObject* child = *(TVMFFIObject* const*)(base + *off);
        if (!child) continue;
        head = drop_child(child, head);
      }
    } else if (p == &tvm_ffi__seq_plan) {
      /* An Array / List: tvm_ffi__seq_release_into's loop, here for the same reason (its
       * storage needs no clearing: the block is freed below). */
      TVMFFISeqCell* c = TVMFFISeqGetCellPtr(o);
      const TVMFFIAny* item = (const TVMFFIAny*)c->data;
      /* (an empty sequence may have no storage: NULL + 0 is undefined in C) */
      for (const TVMFFIAny* end = item ? item + c->size : item; item != end; ++item) {
        TVMFFIObject* child = (TVMFFIObject*)item->v_obj;
        if (item->type_index < kTVMFFIStaticObjectBegin || !child) continue;
        head = drop_child(child, head);
      }
      if (c->data_deleter) c->data_deleter(c->data);
    } else if (p == &tvm_ffi__map_plan) {
      /* A Map / Dict: tvm_ffi__map_release_into's loop, likewise. */
      map_obj* m = (map_obj*)o;
      for (map_entry *e = m->entries, *end = e ? e + m->used : e; e != end; ++e) {
        if (e->key.type_index == MAP_DEAD) continue;
        if (e->key.type_index >= kTVMFFIStaticObjectBegin && e->key.v_obj) {
          head = drop_child((TVMFFIObject*)e->key.v_obj, head);
        }
        if (e->value.type_index >= kTVMFFIStaticObjectBegin && e->value.v_obj) {
          head = drop_child((TVMFFIObject*)e->value.v_obj, head);
        }
      }
      if (!tvm_ffi__map_inline(m)) tvm_ffi_free(m->entries);
    } else {
      head = release_other(o, p, head);
    }
    free_object(o);
    o = head;
    if (!o) return;
    head = (TVMFFIObject*)(uintptr_t)o->combined_ref_count;
  }
}

/* A strong-only or weak-only call: weak references outlived the strong ones (rare). */
static __attribute__((noinline)) void delete_partial(TVMFFIObject* o, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    TVMFFIObject* head = release_fields(o, NULL, true);
    while (head) {
      TVMFFIObject* c = head;
      head = (TVMFFIObject*)(uintptr_t)c->combined_ref_count;
      delete_tree(c);
    }
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free_object(o);
}

void tvm_ffi__object_deleter(void* self, int flags) {
  if (__builtin_expect(flags == kTVMFFIObjectDeleterFlagBitMaskBoth, 1)) {
    delete_tree((TVMFFIObject*)self);
  } else {
    delete_partial((TVMFFIObject*)self, flags);
  }
}

static __attribute__((noinline)) void* object_new_slow(int32_t type_index, size_t size,
                                                      bool zero);

/* tvm_ffi_object_new, and with zero false tvm_ffi__object_new_uninit. */
static inline void* object_new(int32_t type_index, size_t size, bool zero) {
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
  /* The common case as a leaf (no call, so no frame or saved registers): the default
   * allocator with a block of the object's class in the thread's cache. */
  size_t cls = (TVM_FFI_OBJ_PREFIX + size + 15) >> 4;
  obj_cache* c = &t_obj_cache;
  void* b;
  /* size in [sizeof(TVMFFIObject), OBJ_CACHED_MAX] (a header, and a cached class: cls <
   * OBJ_CLASSES) as one unsigned compare. */
  enum { OBJ_CACHED_MAX = OBJ_CLASSES * 16 - TVM_FFI_OBJ_PREFIX - 16 };
  _Static_assert(((TVM_FFI_OBJ_PREFIX + OBJ_CACHED_MAX + 15) >> 4) == OBJ_CLASSES - 1 &&
                     ((TVM_FFI_OBJ_PREFIX + OBJ_CACHED_MAX + 16) >> 4) == OBJ_CLASSES,
                 "OBJ_CACHED_MAX is the largest size of a cached class");
  if (__builtin_expect(size - sizeof(TVMFFIObject) <= OBJ_CACHED_MAX - sizeof(TVMFFIObject) &&
                           (b = c->head[cls]) &&
                           !__atomic_load_n(&g_custom_allocator, __ATOMIC_ACQUIRE),
                       1)) {
    c->head[cls] = *(void**)b;
    c->room[cls]++;
    *(uint64_t*)b = cls;
    TVMFFIObject* o = (TVMFFIObject*)((char*)b + TVM_FFI_OBJ_PREFIX);
    ((TVMFFIObjectAllocHeader*)o - 1)->delete_space = default_delete_space;
    if (zero) zero_cached_body(o, size);
    o->combined_ref_count = STRONG_ONE | WEAK_ONE;
    o->type_index = type_index;
    o->__padding = 0;
    o->deleter = tvm_ffi__object_deleter;
    return o;
  }
#endif
  return object_new_slow(type_index, size, zero);
}

void* tvm_ffi_object_new(int32_t type_index, size_t size) {
  return object_new(type_index, size, true);
}

void* tvm_ffi__object_new_uninit(int32_t type_index, size_t size) {
  assert(tvm_ffi__type_entry(type_index) != NULL && size >= sizeof(TVMFFIObject));
  return object_new(type_index, size, false);
}

static void* object_new_slow(int32_t type_index, size_t size, bool zero) {
  if (size < sizeof(TVMFFIObject)) {
    tvm_ffi_raise("ValueError", "tvm_ffi_object_new: size %zu is smaller than the header", size);
    return NULL;
  }
  TVMFFICustomAllocator* a = __atomic_load_n(&g_allocator, __ATOMIC_ACQUIRE);
  TVMFFIObject* o;
  if (a == &g_default_allocator) {
    /* The default allocator, inline: no indirect call for the common case. */
    o = (TVMFFIObject*)default_block(size);
    if (!o) return NULL;
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
    if (!zero || zero_cached_body(o, size)) goto header;
#endif
  } else {
    uint64_t mark = tvm_ffi_error_mark();
    o = (TVMFFIObject*)a->allocate(size, 16, type_index, a->context);
    if (!o) {
      /* (Raising allocates the error object: an allocator out of memory for it too leaves
       * none raised rather than recursing.) */
      static __thread bool raising;
      if (!tvm_ffi_error_raised_since(mark) && !raising) {
        raising = true;
        tvm_ffi_raise("MemoryError", "out of memory allocating %zu bytes", size);
        raising = false;
      }
      return NULL;
    }
  }
  if (zero) memset(o, 0, size);
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
header:
#endif
  o->combined_ref_count = STRONG_ONE | WEAK_ONE;
  o->type_index = type_index;
  o->__padding = 0;
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

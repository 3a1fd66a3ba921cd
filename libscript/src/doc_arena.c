/* doc_arena.c: the arena of one parse's docs and arrays, its fast whole-tree release, and the
 * process-wide pool of freed chunks.
 *
 * Every doc and array of one parse is bump-allocated in the chunks of an arena. They stay
 * ordinary FFI objects (reference counted, weak references work, every algorithm sees the usual
 * layouts, kTVMFFIArray included); only their deleter is the arena's: a dying object releases
 * its fields as usual, but its memory stays in its chunk until every object of the arena has
 * died, and then the chunks are freed together.
 *
 * The pool: a parse touches ~27 bytes of docs per byte of text, and fresh pages cost more than
 * the parsing itself, so freed chunks are kept for the next parse, up to TVM_SCRIPT_DOC_POOL_MB
 * MiB (read once; default POOL_DEFAULT_MB; 0 turns the pool off). They are never given back to
 * the system, so the pool stays small: it seldom pays. jemalloc already reuses the pages of freed
 * chunks, so repeating a parse of a text under ~1 MB is as fast without the pool, and the first
 * parse of a process gains nothing; only repeated parses of texts of several MB gain (to Doc,
 * 2 MB of text: 71 MB/s without, 82 with 8 MiB, 99 with 64 MiB).
 *
 * Fast teardown: a parse tree usually dies as a whole, when its root is released. The root's
 * deleter then checks every other live object, newest first (so parents before children),
 * for a strong count equal to the references it has from other objects of the arena (`refs`)
 * and no weak reference. If all pass, nothing outside the arena can reach any of them, so the
 * arena releases what they hold from outside (names, string literals, comments, paths) and
 * frees its chunks, without walking the tree. Otherwise the root dies like any other object,
 * releasing its children. Why this is sound:
 * - Parents first: a thread that gets an object after that object passed its check can only
 *   have read it from a parent it held then, and that parent, checked earlier, would have failed.
 * - Nothing but the root can die while the root lives (every other object is reachable from it,
 *   fields never being set again), so no deleter runs concurrently with the check.
 * - `refs` is kept exact while the parser builds, the only time objects other than the root can
 *   die before the root; after that it only has to count the tree's own links, which never
 *   change.
 * What they hold from outside is known without looking into them: the builder notes each
 * outside reference it stores, with the field it is in (tvm_script__doc_arena_note_outside).
 * That list is exactly what the objects hold while no object holding something has died (its
 * deleter released what it held) and no field holding an outside reference has been set after
 * the build: doc.c's setters tell the arena (tvm_script__doc_arena_touch). A reflection write
 * that replaced a noted reference left its field owning the new value, so the teardown releases
 * what each noted field holds then (the list keeps fields, not references). Otherwise the
 * objects' fields are looked into, by their kinds (as a reflection write into an empty field
 * breaks the rule of doc_arena.h, the list does not look for those).
 */
#include "doc_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef tvm_script__arena_block arena_block; /* precedes each object (doc_arena.h) */

/* Outside references noted inline in the arena (a small parse has ~110: names, literals; 8 bytes
 * each, so 256 take what 128 of the (field, reference) pairs took before). */
enum { OUT_INLINE = 256 };

typedef struct arena_chunk {
  struct arena_chunk* older;
  size_t used, cap, last; /* bytes used and available in data; offset of the newest block */
  char data[];
} arena_chunk;

struct tvm_script__doc_arena {
  /* The newest chunk's free space (doc_arena.h); that chunk's `used` and `last` are set from
   * it only when the chunk is left or the builder finishes. */
  tvm_script__doc_arena_bump bump;
  int64_t live;        /* objects whose memory is in use (+ ARENA_BIAS while building) */
  arena_chunk* chunks; /* newest first; the oldest holds this struct (ARENA_HOME bytes) */
  void* root;          /* the parse result; NULL while building or after a failed parse */
  bool done;           /* the parser has finished: `refs` is no longer maintained */
  /* The list of noted outside references (bump.out) is not to be trusted: an object that holds
   * some died (it released them), a setter changed a field, or the list could not grow.
   * Written with relaxed atomics: objects of the arena may die on other threads. */
  bool out_bad;
  /* Objects whose strong references are gone while weak ones (from outside) keep their memory
   * (deleter called for the strong part only, not yet for the weak one). While there are none,
   * every object not marked ARENA_FREED has a strong reference, which lets unshared() test an
   * object with one compare. Atomic: objects may die on other threads. */
  int64_t zombies;
  tvm_script__outside_ref out_inline[OUT_INLINE]; /* bump.out's first storage */
};

/* Chunks have ARENA_CHUNK bytes of data (with their header, within jemalloc's 256 KiB size
 * class), except those made for one larger object. Only standard chunks are pooled. */
enum { ARENA_CHUNK = (256 << 10) - 64 };
enum { POOL_DEFAULT_MB = 8, POOL_MAX_MB = 1 << 20 }; /* see the pool above */
/* The room a chunk keeps past bump.end: the half header written at bump.cur (doc_arena.h). */
enum { ARENA_TAIL = 16 };
#define ARENA_FREED UINT32_MAX /* in `refs`: the memory is dead */
#define ARENA_BIAS (INT64_C(1) << 40)
#define STRONG_ONE UINT64_C(1)
#define WEAK_ONE (UINT64_C(1) << 32)
_Static_assert(sizeof(arena_block) == 16 && offsetof(arena_chunk, data) % 16 == 0,
               "objects are 16-byte aligned like the default allocator's");
_Static_assert(offsetof(struct tvm_script__doc_arena, bump) == 0, "doc_arena.h reads the bump");
/* The bytes of the first chunk the arena itself takes (16-aligned, as blocks are). */
#define ARENA_HOME ((sizeof(struct tvm_script__doc_arena) + 15) & ~(size_t)15)

/* Pooled chunks are poisoned for AddressSanitizer until reused. */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_ASAN 1
#endif
#endif
#ifdef ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_POISON(c) ASAN_POISON_MEMORY_REGION((c)->data, (c)->cap)
#define POOL_UNPOISON(c) ASAN_UNPOISON_MEMORY_REGION((c)->data, (c)->cap)
#else
#define POOL_POISON(c) ((void)(c))
#define POOL_UNPOISON(c) ((void)(c))
#endif

static struct {
  pthread_mutex_t lock;
  arena_chunk* chunks;
  size_t bytes;
  size_t limit; /* set once by init_once */
} g_pool = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};

/* Per doc kind (from reflection), the fields holding references: objects, arrays, strings,
 * Any values. Only source_paths, strings and Any values can refer outside the arena: the other
 * fields hold the parser's docs and arrays (see the rule in doc_arena.h; setting a NULL one to
 * an outside object would leak that object at a fast teardown, and any other change makes the
 * old value's count disagree with its `refs` and turns the fast teardown off).
 * g_kind_of maps type index - g_kind_base to the kind. */
typedef struct {
  uint8_t n;
  struct {
    uint16_t offset;
    bool any;     /* a TVMFFIAny, else an object pointer */
    bool outside; /* may refer outside the arena */
  } f[8];
} ref_fields;
static ref_fields g_ref_fields[TVM_SCRIPT_DOC_COUNT];
/* The same, only the fields that may refer outside the arena (bit i of `any`: a TVMFFIAny). */
typedef struct {
  uint8_t n, any;
  uint16_t offset[8];
} out_fields;
static out_fields g_out_fields[TVM_SCRIPT_DOC_COUNT];
/* The same for the fast teardown, by type index - g_kind_base, when every kind has at most
 * what a Doc has (source_paths), one more object field (a name, a comment) and one Any (a
 * literal's value), as today (g_out_plan_ok): a fixed sequence of loads instead of a loop over
 * a field list, for the ~170 objects of a small parse. Offset 0 (the header): none. */
typedef struct {
  uint16_t ptr, any;
} out_plan;
static out_plan* g_out_plan;
static bool g_out_plan_ok;
static int g_out_per_doc; /* the most outside references a doc holds by its plan */
int32_t tvm_script__doc_arena_type_index[TVM_SCRIPT_DOC_COUNT];
#define g_doc_index tvm_script__doc_arena_type_index
static int8_t* g_kind_of;
static int32_t g_kind_base;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static bool g_ref_ok;
/* Set (release) once init_once is done: tvm_script__doc_arena_new tests it inline before
 * pthread_once, a call per parse. */
static int g_inited;

size_t tvm_script__doc_pool_limit_from(const char* value) {
  const size_t dflt = (size_t)POOL_DEFAULT_MB << 20;
  if (!value || *value < '0' || *value > '9') return dflt;
  char* end;
  unsigned long long mb = strtoull(value, &end, 10); /* ULLONG_MAX when out of range */
  if (*end != '\0') return dflt;
  unsigned long long max = SIZE_MAX >> 20 < POOL_MAX_MB ? SIZE_MAX >> 20 : POOL_MAX_MB;
  return (size_t)(mb < max ? mb : max) << 20;
}

static void init_ref_fields(void) {
  int32_t lo = INT32_MAX, hi = -1;
  for (int k = 0; k < TVM_SCRIPT_DOC_COUNT; ++k) {
    int32_t idx = g_doc_index[k] = tvm_script_doc_type_index(k);
    const TVMFFIFieldInfo* const* fields;
    int32_t n = idx < 0 ? -1 : tvm_ffi_type_all_fields(idx, &fields);
    if (n < 0) return;
    lo = idx < lo ? idx : lo;
    hi = idx > hi ? idx : hi;
    ref_fields* r = &g_ref_fields[k];
    for (int32_t i = 0; i < n; ++i) {
      int32_t t = fields[i]->field_static_type_index;
      if (t != kTVMFFIAny && t < kTVMFFIStaticObjectBegin) continue;
      if (r->n == sizeof(r->f) / sizeof(r->f[0])) return;
      r->f[r->n].offset = (uint16_t)fields[i]->offset;
      r->f[r->n].any = t == kTVMFFIAny;
      r->f[r->n++].outside = t == kTVMFFIAny || t == kTVMFFIStr ||
                             fields[i]->offset == offsetof(tvm_script_doc_obj, source_paths);
      if (r->f[r->n - 1].outside) {
        out_fields* o = &g_out_fields[k];
        o->any |= (uint8_t)((t == kTVMFFIAny) << o->n);
        o->offset[o->n++] = (uint16_t)fields[i]->offset;
      }
    }
  }
  if (!(g_kind_of = tvm_ffi_calloc((size_t)(hi - lo + 1), 1))) return;
  g_kind_base = lo;
  for (int k = 0; k < TVM_SCRIPT_DOC_COUNT; ++k) g_kind_of[g_doc_index[k] - lo] = (int8_t)k;
  if ((g_out_plan = tvm_ffi_calloc((size_t)(hi - lo + 1), sizeof(out_plan)))) {
    g_out_plan_ok = true;
    for (int k = 0; k < TVM_SCRIPT_DOC_COUNT; ++k) {
      const out_fields* o = &g_out_fields[k];
      out_plan* pl = &g_out_plan[g_doc_index[k] - lo];
      int n_ptr = 0, n_any = 0;
      bool has_paths = false;
      for (int i = 0; i < o->n; ++i) {
        if (o->any >> i & 1) {
          ++n_any;
          pl->any = o->offset[i];
        } else if (o->offset[i] == offsetof(tvm_script_doc_obj, source_paths)) {
          has_paths = true;
        } else {
          ++n_ptr;
          pl->ptr = o->offset[i];
        }
      }
      if (!has_paths || n_ptr > 1 || n_any > 1) g_out_plan_ok = false;
      if (1 + n_ptr + n_any > g_out_per_doc) g_out_per_doc = 1 + n_ptr + n_any;
    }
  }
  g_ref_ok = true;
}

static void init_once(void) {
  g_pool.limit = tvm_script__doc_pool_limit_from(getenv("TVM_SCRIPT_DOC_POOL_MB"));
  init_ref_fields();
  __atomic_store_n(&g_inited, 1, __ATOMIC_RELEASE);
}

static inline arena_block* block_of(const void* obj) { return (arena_block*)obj - 1; }

/* ---- Chunks and the pool ------------------------------------------------------------------ */

/* The pool's first place, taken and filled without the lock (an atomic exchange; a parse
 * takes one chunk and gives it back, so the lock was most of the pool's cost): a pooled
 * chunk, or NULL. It counts towards the limit: the locked list keeps one chunk less. */
static arena_chunk* g_spare;

/* Keeps a standard chunk c in the pool if it has room, else frees it. */
static void chunk_release(arena_chunk* c) {
  if (c->cap == ARENA_CHUNK && g_pool.limit >= ARENA_CHUNK) {
    arena_chunk* none = NULL;
    POOL_POISON(c);
    if (__atomic_compare_exchange_n(&g_spare, &none, c, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      return;
    }
    pthread_mutex_lock(&g_pool.lock);
    bool keep = g_pool.bytes + 2 * (size_t)ARENA_CHUNK <= g_pool.limit;
    if (keep) {
      c->older = g_pool.chunks;
      g_pool.chunks = c;
      g_pool.bytes += ARENA_CHUNK;
    }
    pthread_mutex_unlock(&g_pool.lock);
    if (keep) return;
    POOL_UNPOISON(c);
  }
  tvm_ffi_free(c);
}

/* Frees the arena and its chunks, keeping standard ones in the pool while it has room. The
 * arena lives in its oldest chunk (tvm_script__doc_arena_new): nothing reads it once that
 * chunk is released, the last. */
static void arena_free(tvm_script__doc_arena* a) {
  if (a->bump.out != a->out_inline) tvm_ffi_free(a->bump.out);
  arena_chunk* c = a->chunks;
  while (c) {
    arena_chunk* older = c->older;
    chunk_release(c);
    c = older;
  }
}

static arena_chunk* chunk_new(size_t cap) {
  arena_chunk* c = NULL;
  if (cap == ARENA_CHUNK && g_pool.limit >= ARENA_CHUNK) {
    if (!(c = __atomic_exchange_n(&g_spare, NULL, __ATOMIC_ACQ_REL))) {
      pthread_mutex_lock(&g_pool.lock);
      if ((c = g_pool.chunks)) {
        g_pool.chunks = c->older;
        g_pool.bytes -= ARENA_CHUNK;
      }
      pthread_mutex_unlock(&g_pool.lock);
    }
    if (c) POOL_UNPOISON(c);
  }
  if (!c && !(c = tvm_ffi_malloc(sizeof(arena_chunk) + cap))) return NULL;
  c->used = c->last = 0;
  c->cap = cap;
  return c;
}

void tvm_script__doc_pool_stats(size_t* out_bytes, size_t* out_limit) {
  pthread_once(&g_once, init_once);
  pthread_mutex_lock(&g_pool.lock);
  if (out_bytes) {
    *out_bytes = g_pool.bytes + (__atomic_load_n(&g_spare, __ATOMIC_ACQUIRE) ? ARENA_CHUNK : 0);
  }
  pthread_mutex_unlock(&g_pool.lock);
  if (out_limit) *out_limit = g_pool.limit;
}

/* ---- Releasing -------------------------------------------------------------------------- */

/* Calls fn(ref, ctx) on each reference held by an arena object (a doc or an array). */
static inline void for_each_ref(void* obj, void (*fn)(void* ref, void* ctx), void* ctx) {
  int32_t t = ((TVMFFIObject*)obj)->type_index;
  if (t == kTVMFFIArray) {
    tvm_script__arena_array* arr = obj;
    for (int64_t i = 0; i < arr->cell.size; ++i) {
      if (arr->items[i].type_index >= kTVMFFIStaticObjectBegin) fn(arr->items[i].v_obj, ctx);
    }
    return;
  }
  const ref_fields* r = &g_ref_fields[g_kind_of[t - g_kind_base]];
  for (int i = 0; i < r->n; ++i) {
    char* field = (char*)obj + r->f[i].offset;
    if (!r->f[i].any) {
      if (*(void**)field) fn(*(void**)field, ctx);
    } else if (((TVMFFIAny*)field)->type_index >= kTVMFFIStaticObjectBegin) {
      fn(((TVMFFIAny*)field)->v_obj, ctx);
    }
  }
}

static void drop_ref(void* ref, void* building) {
  if (building && ((TVMFFIObject*)ref)->deleter == tvm_script__doc_arena_deleter) {
    --block_of(ref)->refs;
  }
  tvm_ffi_release(ref);
}

/* Releases the outside references of an arena object, telling them by the field (see
 * ref_fields) without touching what they point to. */
static inline void release_outside_refs(void* obj) {
  int32_t t = ((TVMFFIObject*)obj)->type_index;
  if (t == kTVMFFIArray) { /* the parser's arrays hold docs of the arena, or names */
    tvm_script__arena_array* arr = obj;
    for (int64_t i = 0; i < arr->cell.size; ++i) {
      if (arr->items[i].type_index == kTVMFFIStr) tvm_ffi_release(arr->items[i].v_obj);
    }
    return;
  }
  const out_fields* r = &g_out_fields[g_kind_of[t - g_kind_base]];
  for (int i = 0; i < r->n; ++i) {
    char* field = (char*)obj + r->offset[i];
    if (!(r->any >> i & 1)) {
      if (*(void**)field) tvm_ffi_release(*(void**)field);
    } else if (((TVMFFIAny*)field)->type_index >= kTVMFFIStaticObjectBegin) {
      tvm_ffi_release(((TVMFFIAny*)field)->v_obj);
    }
  }
}

/* Appends the outside references of an arena object (a doc or an array) to out from k on and
 * returns the new count, telling them by the field (see out_plan) without touching what they
 * point to. The caller has room for them all (see fast_teardown). */
static inline size_t collect_outside_refs(void* obj, void** out, size_t k) {
  int32_t t = ((TVMFFIObject*)obj)->type_index;
  if (t == kTVMFFIArray) { /* the parser's arrays hold docs of the arena, or names */
    tvm_script__arena_array* arr = obj;
    for (int64_t i = 0; i < arr->cell.size; ++i) {
      if (arr->items[i].type_index == kTVMFFIStr) out[k++] = arr->items[i].v_obj;
    }
    return k;
  }
  const out_plan* pl = &g_out_plan[t - g_kind_base];
  void* ref = ((tvm_script_doc_obj*)obj)->source_paths;
  out[k] = ref;
  k += ref != NULL;
  if (pl->ptr) {
    ref = *(void**)((char*)obj + pl->ptr);
    out[k] = ref;
    k += ref != NULL;
  }
  if (pl->any) {
    const TVMFFIAny* v = (const TVMFFIAny*)((char*)obj + pl->any);
    out[k] = v->v_obj;
    k += v->type_index >= kTVMFFIStaticObjectBegin;
  }
  return k;
}

/* Whether every object of the arena but the root is referenced only by other objects of the
 * arena (the check described above), walking them newest first; with collect, also appends the
 * outside references they hold to out (from *n on; room for all, see fast_teardown).
 * Inlined twice: the walk without collecting is a tight loop. */
static inline __attribute__((always_inline)) bool unshared(tvm_script__doc_arena* a, bool collect,
                                                          void** out, size_t* n) {
  for (arena_chunk* c = a->chunks; c; c = c->older) {
    if (c->last == c->used) continue; /* no block (see sync_chunk) */
    for (char* h = c->data + c->last;; h -= ((arena_block*)h)->back) {
      arena_block* b = (arena_block*)h;
      TVMFFIObject* o = (TVMFFIObject*)(b + 1);
      uint32_t refs = b->refs;
      uint64_t count = __atomic_load_n(&o->combined_ref_count, __ATOMIC_ACQUIRE);
      /* The test is refs != 0 && count == (WEAK_ONE | refs) for a live object; with no zombie
       * (checked by the caller) a live object has a strong reference, so count cannot be
       * WEAK_ONE | 0 and the compare alone tells. A dead one (ARENA_FREED) died with no
       * strong reference either: its count is never WEAK_ONE | UINT32_MAX, so it and the
       * root (the one object that may fail the test and pass) go to the test below. */
      if (__builtin_expect(count - refs != WEAK_ONE, 0)) { /* == count != (WEAK_ONE | refs) */
        if (refs != ARENA_FREED && o != a->root) return false;
        if (refs == ARENA_FREED) goto next;
      }
      if (collect) *n = collect_outside_refs(o, out, *n);
    next:
      if (b->back == 0) break;
    }
  }
  return true;
}

/* Releases what each noted field holds now, in one pass over the list (no check that it still
 * holds the noted reference first). With out_bad clear, no object that holds one has died (its
 * memory is live) and no setter of doc.c changed one; a reflection write (tvm_ffi_field_set)
 * may have replaced one, but the field then owns its new value (the setter retained it and
 * released the noted one), so releasing the field's current content is right either way. It is
 * no object of this arena: a reflection write of one would have raised its count above its
 * `refs`, and unshared() would have failed (the root in a field is a cycle: it never dies). */
static void release_noted_fields(const tvm_script__doc_arena* a) {
  for (const tvm_script__outside_ref* r = a->bump.out; r != a->bump.out_cur; ++r) {
    if (r->slot & 1) {
      const TVMFFIAny* v = (const TVMFFIAny*)(r->slot & ~(uintptr_t)1);
      if (v->type_index >= kTVMFFIStaticObjectBegin) tvm_ffi_release(v->v_obj);
    } else {
      void* ref = *(void* const*)r->slot;
      if (ref) tvm_ffi_release(ref);
    }
  }
}

/* The check-then-free of the whole arena described above; false when something is shared.
 * Nothing is released before everything is known to be unshared. The outside references to
 * release are those the fields the builder noted (bump.out) hold, when that list can be trusted
 * (out_bad clear);
 * otherwise the walk that checks every object notes the references they hold from outside, by
 * their kinds' fields (a parse of a small text holds a few dozen), and they are released after
 * it; only when there could be too many to note does a second walk release them. */
static bool fast_teardown(tvm_script__doc_arena* a) {
  /* A zombie fails the check of unshared() (it has no strong reference), which relies on
   * there being none. */
  if (__atomic_load_n(&a->zombies, __ATOMIC_ACQUIRE) != 0) return false;
  if (!__atomic_load_n(&a->out_bad, __ATOMIC_RELAXED)) {
    if (!unshared(a, false, NULL, NULL)) return false;
    release_noted_fields(a);
    arena_free(a);
    return true;
  }
  /* Room for every outside reference the objects can hold (their plans' most, and the items
   * counted when the arrays were filled), so that collecting them checks no bound: a small
   * parse's fit; a larger one's are released by the second walk. */
  void* outside[1024];
  size_t n_outside = 0;
  bool noted = g_out_plan_ok && (size_t)g_out_per_doc * (size_t)a->bump.allocated +
                                        (size_t)a->bump.outside_items <=
                                    sizeof(outside) / sizeof(outside[0]);
  if (noted) {
    if (!unshared(a, true, outside, &n_outside)) return false;
    for (size_t i = 0; i < n_outside; ++i) tvm_ffi_release(outside[i]);
    arena_free(a);
    return true;
  }
  if (!unshared(a, false, NULL, NULL)) return false;
  for (arena_chunk* c = a->chunks; c; c = c->older) {
    if (c->last == c->used) continue; /* no block (see sync_chunk) */
    for (char* h = c->data + c->last;; h -= ((arena_block*)h)->back) {
      arena_block* b = (arena_block*)h;
      if (b->refs != ARENA_FREED) release_outside_refs(b + 1);
      if (b->back == 0) break;
    }
  }
  arena_free(a);
  return true;
}

void tvm_script__doc_arena_deleter(void* self, int flags) {
  arena_block* b = block_of(self);
  tvm_script__doc_arena* a = b->arena;
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    if (flags == kTVMFFIObjectDeleterFlagBitMaskBoth && self == a->root && fast_teardown(a)) {
      return;
    }
    /* What it holds from outside may be in the list of noted ones: that list can no longer
     * be trusted (an empty array, the parser's spare one, holds nothing). */
    if (((TVMFFIObject*)self)->type_index != kTVMFFIArray ||
        ((tvm_script__arena_array*)self)->cell.size != 0) {
      __atomic_store_n(&a->out_bad, true, __ATOMIC_RELAXED);
    }
    for_each_ref(self, drop_ref, a->done ? NULL : a);
    if (!(flags & kTVMFFIObjectDeleterFlagBitMaskWeak)) {
      __atomic_add_fetch(&a->zombies, 1, __ATOMIC_ACQ_REL);
    }
  } else if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    __atomic_sub_fetch(&a->zombies, 1, __ATOMIC_ACQ_REL); /* a zombie's memory goes */
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    b->refs = ARENA_FREED;
    if (__atomic_sub_fetch(&a->live, 1, __ATOMIC_ACQ_REL) == 0) arena_free(a);
  }
}

/* ---- Building ----------------------------------------------------------------------------- */

/* Makes c, new, the chunk the bump allocates from, from `from` on: the half header there says
 * the chunk has no block yet (back 0), and end keeps room for the one written past the last
 * block (see bump.cur in doc_arena.h). */
static void start_chunk(tvm_script__doc_arena* a, arena_chunk* c, char* from) {
  memset(from, 0, sizeof(arena_block) / 2);
  a->bump.cur = from;
  a->bump.end = c->data + c->cap - ARENA_TAIL;
}

tvm_script__doc_arena* tvm_script__doc_arena_new(void) {
  if (!__atomic_load_n(&g_inited, __ATOMIC_ACQUIRE)) pthread_once(&g_once, init_once);
  if (!g_ref_ok) {
    if (!tvm_ffi_error_pending()) {
      tvm_ffi_raise("RuntimeError", "TVMScript parser: unexpected Doc type layout");
    }
    return NULL;
  }
  /* The arena lives at the start of its first chunk, which its objects follow: one allocation
   * (usually the pool's) instead of two. Not zeroed whole: out_inline (2 KiB) needs none. */
  arena_chunk* c = chunk_new(ARENA_CHUNK);
  if (!c) return NULL;
  tvm_script__doc_arena* a = (tvm_script__doc_arena*)c->data;
  memset(a, 0, offsetof(tvm_script__doc_arena, out_inline));
  a->bump.out = a->bump.out_cur = a->out_inline;
  a->bump.out_end = a->out_inline + OUT_INLINE;
  a->live = ARENA_BIAS;
  c->older = NULL;
  a->chunks = c;
  start_chunk(a, c, c->data + ARENA_HOME);
  return a;
}

void tvm_script__doc_arena_note_outside_slow(tvm_script__doc_arena* a, uintptr_t slot) {
  tvm_script__doc_arena_bump* m = &a->bump;
  /* The list is no longer used: no need to grow it. */
  if (__atomic_load_n(&a->out_bad, __ATOMIC_RELAXED)) return;
  size_t n = (size_t)(m->out_cur - m->out), cap = (size_t)(m->out_end - m->out);
  tvm_script__outside_ref* out = NULL;
  if (cap <= SIZE_MAX / 2 / sizeof(*out)) out = tvm_ffi_malloc(2 * cap * sizeof(*out));
  if (!out) { /* the teardown falls back to looking into every object */
    tvm_ffi_error_clear();
    __atomic_store_n(&a->out_bad, true, __ATOMIC_RELAXED);
    return;
  }
  memcpy(out, m->out, n * sizeof(*out));
  if (m->out != a->out_inline) tvm_ffi_free(m->out);
  m->out = out;
  m->out_end = out + 2 * cap;
  out[n].slot = slot;
  m->out_cur = out + n + 1;
}

void tvm_script__doc_arena_touch(void* obj) {
  if (obj && ((const TVMFFIObject*)obj)->deleter == tvm_script__doc_arena_deleter) {
    __atomic_store_n(&block_of(obj)->arena->out_bad, true, __ATOMIC_RELAXED);
  }
}

/* Records the newest chunk's fill from the bump pointers (see struct tvm_script__doc_arena);
 * last == used then says the chunk has no block (the arena's home may have none). */
static void sync_chunk(tvm_script__doc_arena* a) {
  arena_chunk* c = a->chunks;
  if (c) {
    c->used = (size_t)(a->bump.cur - c->data);
    c->last = c->used - ((const arena_block*)a->bump.cur)->back; /* see bump.cur */
  }
}

void tvm_script__doc_arena_finish(tvm_script__doc_arena* a, void* root) {
  sync_chunk(a);
  a->root = root;
  a->done = true;
  if (__atomic_add_fetch(&a->live, a->bump.allocated - ARENA_BIAS, __ATOMIC_ACQ_REL) == 0) {
    arena_free(a);
  }
}

void* tvm_script__doc_arena_object_slow(tvm_script__doc_arena* a, int32_t type_index,
                                        size_t size) {
  size_t need = (sizeof(arena_block) + size + 15) & ~(size_t)15;
  if (need > UINT32_MAX - ARENA_TAIL) {
    tvm_ffi_raise("MemoryError", "TVMScript parser: a doc of %zu bytes is too large", size);
    return NULL;
  }
  arena_chunk* c = chunk_new(need + ARENA_TAIL > ARENA_CHUNK ? need + ARENA_TAIL : ARENA_CHUNK);
  if (!c) return NULL;
  sync_chunk(a);
  c->older = a->chunks;
  a->chunks = c;
  start_chunk(a, c, c->data);
  return tvm_script__doc_arena_object(a, type_index, size); /* fits now */
}

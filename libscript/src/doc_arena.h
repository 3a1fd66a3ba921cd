/* doc_arena.h: the arena the parser allocates the docs and arrays of one parse in (doc_arena.c).
 *
 * Use: tvm_script__doc_arena_new(), then docs and arrays from it, each field that takes an
 * object going through tvm_script__doc_arena_link(), then tvm_script__doc_arena_finish() with
 * the parse result (or NULL). The objects are ordinary counted FFI objects; after finish they
 * alone keep the arena, and it goes away when the last of them dies.
 *
 * Rule for the builder: an object's reference fields are set when it is made (children are made
 * before their parents) and never set again, except by the public annotation setters of doc.c
 * (source_paths, comment), which hold objects from outside the arena (and tell the arena:
 * tvm_script__doc_arena_touch). Each outside reference the builder stores in a field is noted
 * (tvm_script__doc_arena_note_outside; set_item does it for items). doc_arena.c relies on these
 * to release a whole tree without walking it. */
#ifndef TVM_SCRIPT_DOC_ARENA_H_
#define TVM_SCRIPT_DOC_ARENA_H_

#include <stdint.h>
#include <string.h>
#include <tvm/script/doc.h>

typedef struct tvm_script__doc_arena tvm_script__doc_arena;

/* An ffi.Array in the arena: a seq_obj of libtvmffi, { TVMFFIObject, TVMFFISeqCell } in the
 * ABI, with its items inline. */
typedef struct {
  TVMFFIObject header;
  TVMFFISeqCell cell;
  TVMFFIAny items[];
} tvm_script__arena_array;

/* A new arena, or NULL + error. */
tvm_script__doc_arena* tvm_script__doc_arena_new(void);


/* The header of each object of an arena, just before it. Here so that the link below, called
 * for every reference the parser stores, is inlined. */
typedef struct {
  /* Bytes from the previous block of the chunk to this one (0: the first). (It has no flag
   * bits: the fast teardown's walk over every object steps by it with no masking.) Written,
   * with refs, by the previous block's allocation (see tvm_script__doc_arena_object). */
  uint32_t back;
  uint32_t refs; /* references from arena objects; UINT32_MAX once the memory is dead */
  tvm_script__doc_arena* arena;
} tvm_script__arena_block;


_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
                   offsetof(tvm_script__arena_block, refs) == 4 &&
                   offsetof(TVMFFIObject, __padding) == offsetof(TVMFFIObject, type_index) + 4,
               "tvm_script__doc_arena_object writes back and refs, type_index and __padding, as "
               "one word each");
_Static_assert(offsetof(TVMFFIAny, zero_padding) == offsetof(TVMFFIAny, type_index) + 4,
               "tvm_script__doc_arena_set_item copies an Any's type_index and zero_padding as "
               "one word");

/* The deleter of every object of an arena. */
void tvm_script__doc_arena_deleter(void* self, int flags);

/* The start of every arena (doc_arena.c has the rest): the free space of its newest chunk, for
 * the allocation below, inlined into the parser: a doc costs a pointer bump and a few stores
 * (the compiler sees the size, and drops the zeroing of the fields the caller sets). */
typedef struct {
  /* The next free byte of the newest chunk. The header of the block to be allocated there is
   * already half written: its back (the size of the newest block of the chunk; 0 when it has
   * none) and refs (0), so the newest block is found from cur alone (see sync_chunk). */
  char* cur;
  char* end; /* its end, less the room for the half header at cur (ARENA_TAIL bytes) */
  int64_t allocated; /* objects allocated (only the builder touches it) */
  int64_t outside_items; /* items of arrays that are not of the arena (the builder's too) */
  /* The outside references the builder stored (see tvm_script__doc_arena_note_outside), so that
   * the fast teardown releases them from this list instead of looking into every object. */
  struct tvm_script__outside_ref* out;     /* the list */
  struct tvm_script__outside_ref* out_cur; /* its end */
  struct tvm_script__outside_ref* out_end; /* the end of its room */
} tvm_script__doc_arena_bump;

/* A field of an arena object that holds an outside reference: its address (a pointer field,
 * or a TVMFFIAny when bit 0 of the address is set). The reference itself is not kept: the
 * teardown releases what the field holds then (see release_noted_fields in doc_arena.c). */
typedef struct tvm_script__outside_ref {
  uintptr_t slot;
} tvm_script__outside_ref;

/* tvm_script__doc_arena_note_outside when the list is full. */
void tvm_script__doc_arena_note_outside_slow(tvm_script__doc_arena* a, uintptr_t slot);

/* Records that the field at slot (a pointer field; a TVMFFIAny if any) of an arena object now
 * holds an object not of the arena (a name, a string literal, a docstring). */
static inline void tvm_script__doc_arena_note_outside(tvm_script__doc_arena* a, void* slot,
                                                      bool any) {
  tvm_script__doc_arena_bump* m = (tvm_script__doc_arena_bump*)a;
  uintptr_t s = (uintptr_t)slot | (uintptr_t)any;
  tvm_script__outside_ref* r = m->out_cur;
  if (__builtin_expect(r == m->out_end, 0)) {
    tvm_script__doc_arena_note_outside_slow(a, s);
    return;
  }
  r->slot = s;
  m->out_cur = r + 1;
}

/* Registered type index of each doc kind (set before the first arena is made). */
extern int32_t tvm_script__doc_arena_type_index[TVM_SCRIPT_DOC_COUNT];

/* tvm_script__doc_arena_object when the newest chunk has no room. */
void* tvm_script__doc_arena_object_slow(tvm_script__doc_arena* a, int32_t type_index,
                                        size_t size);

/* An object of type_index (`size` bytes, only its header set: the caller sets the rest) with
 * one strong and one weak reference (the latter dropped with the strong one), or NULL +
 * MemoryError. (It used to zero a prefix of the object, header and span included, which the
 * callers then overwrote: ~5 of a doc's stores.) */
static inline void* tvm_script__doc_arena_object(tvm_script__doc_arena* a, int32_t type_index,
                                                 size_t size) {
  tvm_script__doc_arena_bump* m = (tvm_script__doc_arena_bump*)a;
  size_t need = (sizeof(tvm_script__arena_block) + size + 15) & ~(size_t)15;
  if ((size_t)(m->end - m->cur) < need) {
    return tvm_script__doc_arena_object_slow(a, type_index, size);
  }
  tvm_script__arena_block* b = (tvm_script__arena_block*)m->cur;
  /* back and refs are set (see cur); the next block's are set here, in one store of a
   * constant for a doc (the compiler sees its size): instead of a load of the newest block's
   * address, a subtraction, its store and the store of refs (need <= UINT32_MAX: see
   * tvm_script__doc_arena_object_slow; end leaves room for the 8 bytes). */
  uint64_t next_back_refs = (uint64_t)(uint32_t)need; /* little-endian: back, then refs = 0 */
  memcpy(m->cur + need, &next_back_refs, sizeof(next_back_refs));
  b->arena = a;
  m->cur += need;
  ++m->allocated;
  TVMFFIObject* o = (TVMFFIObject*)(b + 1);
  o->combined_ref_count = 1 | (UINT64_C(1) << 32); /* one strong, one weak */
  /* type_index and __padding (0) in one store. */
  uint64_t index_padding = (uint64_t)(uint32_t)type_index;
  memcpy(&o->type_index, &index_padding, sizeof(index_padding));
  o->deleter = tvm_script__doc_arena_deleter;
  return o;
}

/* A doc of kind k (its struct is `size` bytes) with one strong reference, or NULL +
 * MemoryError. source_paths is NULL and the bytes past the Doc header up to `zeroed` are
 * zeroed (the caller sets the rest); the span is left unset: the parser sets every doc's span
 * once it is made (spanned() in parse.c), so zeroing it was a dead store. */
static inline void* tvm_script__doc_arena_doc(tvm_script__doc_arena* a, tvm_script_doc_kind k,
                                              size_t size, size_t zeroed) {
  tvm_script_doc_obj* d =
      tvm_script__doc_arena_object(a, tvm_script__doc_arena_type_index[k], size);
  if (d) {
    d->source_paths = NULL;
    if (zeroed > sizeof(tvm_script_doc_obj)) {
      memset(d + 1, 0, zeroed - sizeof(tvm_script_doc_obj));
    }
  }
  return d;
}

/* An array of n items (size = capacity = n) with one strong reference, or NULL + MemoryError.
 * The items are not initialised: the caller sets them all (zeroing them, a call to memset of
 * a variable size, cost more than the rest of an array of a few items). */
static inline tvm_script__arena_array* tvm_script__doc_arena_array(tvm_script__doc_arena* a,
                                                                   size_t n) {
  if (__builtin_expect(n > (UINT32_MAX - sizeof(tvm_script__arena_array)) / sizeof(TVMFFIAny),
                       0)) {
    tvm_ffi_raise("MemoryError", "TVMScript parser: an array of %zu items is too large", n);
    return NULL;
  }
  tvm_script__arena_array* arr = tvm_script__doc_arena_object(
      a, kTVMFFIArray, sizeof(tvm_script__arena_array) + n * sizeof(TVMFFIAny));
  if (arr) {
    arr->cell.data = arr->items;
    arr->cell.size = arr->cell.capacity = (int64_t)n;
    arr->cell.data_deleter = NULL;
  }
  return arr;
}

/* Returns obj, a reference that an object of the arena now owns (recorded if obj is in the
 * arena, to prove later that nothing else holds it). */
static inline void* tvm_script__doc_arena_link(void* obj) {
  if (obj && ((const TVMFFIObject*)obj)->deleter == tvm_script__doc_arena_deleter) {
    ++((tvm_script__arena_block*)obj - 1)->refs;
  }
  return obj;
}

/* tvm_script__doc_arena_link for obj known to be of the arena (or NULL): no test of its
 * deleter. (Checked in debug builds.) */
static inline void* tvm_script__doc_arena_link_own(void* obj) {
  if (obj) {
#ifndef NDEBUG
    if (((const TVMFFIObject*)obj)->deleter != tvm_script__doc_arena_deleter) __builtin_trap();
#endif
    ++((tvm_script__arena_block*)obj - 1)->refs;
  }
  return obj;
}

/* Stores obj (moved in, not NULL) as item i of arr, linked (see above); an object not of the
 * arena is counted and noted for the fast teardown (doc_arena.c). */
static inline void tvm_script__doc_arena_set_item(tvm_script__arena_array* arr, size_t i,
                                                  void* obj) {
  if (((const TVMFFIObject*)obj)->deleter == tvm_script__doc_arena_deleter) {
    ++((tvm_script__arena_block*)obj - 1)->refs;
    /* The item's type_index and zero_padding copied in one word from the object's
     * type_index and __padding, which is 0 in an arena object (tvm_script__doc_arena_object). */
    memcpy(&arr->items[i].type_index, &((const TVMFFIObject*)obj)->type_index, sizeof(uint64_t));
    arr->items[i].v_obj = (TVMFFIObject*)obj;
  } else {
    tvm_script__arena_block* b = (tvm_script__arena_block*)arr - 1;
    ++((tvm_script__doc_arena_bump*)b->arena)->outside_items;
    tvm_script__doc_arena_note_outside(b->arena, &arr->items[i], true);
    arr->items[i] = tvm_ffi_any_obj(obj);
  }
}

/* tvm_script__doc_arena_set_item for obj known to be of the arena (a doc or array): no test
 * of its deleter. (Checked in debug builds.) */
static inline void tvm_script__doc_arena_set_own_item(tvm_script__arena_array* arr, size_t i,
                                                      void* obj) {
  tvm_script__doc_arena_link_own(obj);
  /* As in tvm_script__doc_arena_set_item: type_index and __padding (0) in one word. */
  memcpy(&arr->items[i].type_index, &((const TVMFFIObject*)obj)->type_index, sizeof(uint64_t));
  arr->items[i].v_obj = (TVMFFIObject*)obj;
}

/* Called before a field of obj that may hold an outside reference (source_paths, a comment) is
 * set after the build: if obj is of an arena, its fast teardown no longer trusts the list of
 * outside references (see doc_arena.c). */
void tvm_script__doc_arena_touch(void* obj);

/* The builder is done; root is the parse result (NULL after a failure). */
void tvm_script__doc_arena_finish(tvm_script__doc_arena* a, void* root);

/* The process-wide pool of freed chunks: bytes kept now, and the most it keeps
 * (TVM_SCRIPT_DOC_POOL_MB, read once). For tests and benchmarks. */
void tvm_script__doc_pool_stats(size_t* out_bytes, size_t* out_limit);

/* The pool limit in bytes for a value of TVM_SCRIPT_DOC_POOL_MB: a decimal number of MiB
 * (0 turns the pool off; clamped to 1 TiB); NULL or anything else means the default, 8 MiB. */
size_t tvm_script__doc_pool_limit_from(const char* value);

#endif /* TVM_SCRIPT_DOC_ARENA_H_ */

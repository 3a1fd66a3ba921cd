/* doc_arena.h: the arena the parser allocates the docs and arrays of one parse in (doc_arena.c).
 *
 * Use: tvm_script__doc_arena_new(), then docs and arrays from it, each field that takes an
 * object going through tvm_script__doc_arena_link(), then tvm_script__doc_arena_finish() with
 * the parse result (or NULL). The objects are ordinary counted FFI objects; after finish they
 * alone keep the arena, and it goes away when the last of them dies.
 *
 * Rule for the builder: an object's reference fields are set when it is made (children are made
 * before their parents) and never set again, except by the public annotation setters of doc.c
 * (source_paths, comment), which hold objects from outside the arena. doc_arena.c relies on it
 * to release a whole tree without walking it. */
#ifndef TVM_SCRIPT_DOC_ARENA_H_
#define TVM_SCRIPT_DOC_ARENA_H_

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

/* A zeroed doc of kind k (its struct is `size` bytes) with one strong reference, or NULL +
 * MemoryError. */
void* tvm_script__doc_arena_doc(tvm_script__doc_arena* a, tvm_script_doc_kind k, size_t size);

/* An array of n None items (size = capacity = n) with one strong reference, or NULL +
 * MemoryError. */
tvm_script__arena_array* tvm_script__doc_arena_array(tvm_script__doc_arena* a, size_t n);

/* The header of each object of an arena, just before it. Here so that the link below, called
 * for every reference the parser stores, is inlined. */
typedef struct {
  uint32_t back; /* bytes from the previous block of the chunk to this one (0: the first) */
  uint32_t refs; /* references from arena objects; UINT32_MAX once the memory is dead */
  tvm_script__doc_arena* arena;
} tvm_script__arena_block;

/* The deleter of every object of an arena. */
void tvm_script__doc_arena_deleter(void* self, int flags);

/* Returns obj, a reference that an object of the arena now owns (recorded if obj is in the
 * arena, to prove later that nothing else holds it). */
static inline void* tvm_script__doc_arena_link(void* obj) {
  if (obj && ((const TVMFFIObject*)obj)->deleter == tvm_script__doc_arena_deleter) {
    ++((tvm_script__arena_block*)obj - 1)->refs;
  }
  return obj;
}

/* The builder is done; root is the parse result (NULL after a failure). */
void tvm_script__doc_arena_finish(tvm_script__doc_arena* a, void* root);

/* The process-wide pool of freed chunks: bytes kept now, and the most it keeps
 * (TVM_SCRIPT_DOC_POOL_MB, read once). For tests and benchmarks. */
void tvm_script__doc_pool_stats(size_t* out_bytes, size_t* out_limit);

/* The pool limit in bytes for a value of TVM_SCRIPT_DOC_POOL_MB: a decimal number of MiB
 * (0 turns the pool off; clamped to 1 TiB); NULL or anything else means the default, 8 MiB. */
size_t tvm_script__doc_pool_limit_from(const char* value);

#endif /* TVM_SCRIPT_DOC_ARENA_H_ */

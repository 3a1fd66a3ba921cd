/*
 * container.c: the built-in containers of the ABI and their global functions.
 *
 *   ffi.Array (immutable) / ffi.List (mutable): { header, TVMFFISeqCell } with owned TVMFFIAny
 *     elements. An Array keeps its elements inline after the cell (data_deleter NULL); a List
 *     keeps a growable buffer of its own (data_deleter frees it).
 *   ffi.Map (immutable) / ffi.Dict (mutable): one hash-map implementation keyed by value
 *     (tvm_ffi_any_equal / tvm_ffi_any_hash) that iterates in insertion order.
 *   ffi.Shape: { header, TVMFFIShapeCell } with the int64 dims inline.
 *
 * Every element, key and value a container holds is owned: views (raw C strings, byte-array
 * pointers, rvalue references) are converted to owned values when stored.
 */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- Owning values ---------------------------------------------------------------------- */

static inline bool is_pointer_view(int32_t t) {
  return t == kTVMFFIRawStr || t == kTVMFFIByteArrayPtr || t == kTVMFFIObjectRValueRef;
}

/* A pointer view (raw string, byte array, rvalue reference) holding NULL is a ValueError. */
static int check_view(const TVMFFIAny* v) {
  if (!is_pointer_view(v->type_index) || v->v_ptr) return 0;
  return tvm_ffi_raise("ValueError", "a %s value holds a NULL pointer",
                       tvm_ffi_type_key(v->type_index));
}

/* An owned copy of a value that may be a view (inline: it is on every insertion path). */
static inline int own_value(const TVMFFIAny* v, TVMFFIAny* out) {
  if (__builtin_expect(!is_pointer_view(v->type_index), 1)) {
    *out = tvm_ffi_any_copy(v);
    return 0;
  }
  return check_view(v) ? -1 : TVMFFIAnyViewToOwnedAny(v, out);
}

/* Move an owned value into *out (converting a view left in it); *v becomes None. */
static int take_value(TVMFFIAny* v, TVMFFIAny* out) {
  int rc = is_pointer_view(v->type_index) ? own_value(v, out) : (*out = *v, 0);
  *v = tvm_ffi_any_none();
  return rc;
}

/* The value to hash and compare for a lookup key: an rvalue reference is read through without
 * moving from it. *out is key itself or tmp. */
static int key_view(const TVMFFIAny* key, TVMFFIAny* tmp, const TVMFFIAny** out) {
  *out = key;
  if (check_view(key)) return -1;
  if (key->type_index == kTVMFFIObjectRValueRef) {
    *tmp = tvm_ffi_any_obj(*(void**)key->v_ptr);
    *out = tmp;
  }
  return 0;
}

/* A short printable form of a key for error messages: strings quoted, numbers as numbers. */
static void describe_value(const TVMFFIAny* v, tvm_ffi_strbuf* b) {
  TVMFFIByteArray s;
  if (v->type_index == kTVMFFIInt) {
    tvm_ffi_strbuf_printf(b, "%lld", (long long)v->v_int64);
  } else if (v->type_index == kTVMFFIBool) {
    tvm_ffi_strbuf_puts(b, v->v_int64 ? "True" : "False");
  } else if (v->type_index == kTVMFFIFloat) {
    tvm_ffi_strbuf_printf(b, "%g", v->v_float64);
  } else if (v->type_index != kTVMFFINone && tvm_ffi_any_as_bytes(v, &s)) {
    int n = s.size > 64 ? 64 : (int)s.size;
    tvm_ffi_strbuf_printf(b, "\"%.*s%s\"", n, s.data, s.size > 64 ? "..." : "");
  } else {
    tvm_ffi_strbuf_puts(b, tvm_ffi_any_type_name(v));
  }
}

/* ---- Array and List --------------------------------------------------------------------- */

typedef struct {
  TVMFFIObject header;
  TVMFFISeqCell cell;
} seq_obj;
_Static_assert(offsetof(seq_obj, cell) == 24, "sequence cell follows the 24-byte header");
_Static_assert(sizeof(TVMFFISeqCell) == 32, "TVMFFISeqCell is 32 bytes");
_Static_assert(sizeof(TVMFFIAny) == 16, "TVMFFIAny is 16 bytes");

/* Largest element count whose byte size cannot overflow (with room for the header). */
#define SEQ_MAX_ELEMS ((int64_t)((SIZE_MAX - sizeof(seq_obj)) / sizeof(TVMFFIAny) / 2))

static bool is_kind(const void* obj, int32_t type_index) {
  return obj && (tvm_ffi_type_index(obj) == type_index || tvm_ffi_instance_of(obj, type_index));
}

static int check_kind(const char* fname, const void* obj, int32_t type_index) {
  if (is_kind(obj, type_index)) return 0;
  return tvm_ffi_raise("TypeError", "%s: expected %s but got %s", fname,
                       tvm_ffi_type_key(type_index),
                       obj ? tvm_ffi_type_key(tvm_ffi_type_index(obj)) : "NULL");
}

void tvm_ffi__seq_destroy(void* self) {
  TVMFFISeqCell* c = &((seq_obj*)self)->cell;
  TVMFFIAny* data = (TVMFFIAny*)c->data;
  int64_t n = c->size;
  c->size = 0;
  for (int64_t i = 0; i < n; ++i) tvm_ffi__any_release(&data[i]);
  if (c->data_deleter) c->data_deleter(c->data);
  c->data = NULL;
}

TVMFFIObject* tvm_ffi__seq_release_into(void* self, TVMFFIObject* head) {
  tvm_ffi__dead_list dl = {head};
  TVMFFISeqCell* c = &((seq_obj*)self)->cell;
  TVMFFIAny* data = (TVMFFIAny*)c->data;
  int64_t n = c->size;
  c->size = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (data[i].type_index >= kTVMFFIStaticObjectBegin && data[i].v_obj) {
      tvm_ffi__drop_child((TVMFFIObject*)data[i].v_obj, &dl);
    }
  }
  if (c->data_deleter) c->data_deleter(c->data);
  c->data = NULL;
  return dl.head;
}

/* A size must be in [0, max]: ValueError when negative, MemoryError when too large. */
static bool bad_count(int32_t type_index, int64_t count, int64_t max) {
  if (count >= 0 && count <= max) return false;
  tvm_ffi_raise(count < 0 ? "ValueError" : "MemoryError", "%s: %s size %lld",
                tvm_ffi_type_key(type_index), count < 0 ? "negative" : "too large",
                (long long)count);
  return true;
}

/* Input arrays may be NULL only when empty. */
static bool null_input(const char* fname, const void* items, int64_t count) {
  if (items || count <= 0) return false;
  tvm_ffi_raise("ValueError", "%s: the input is NULL but count is %lld", fname, (long long)count);
  return true;
}

/* A new Array with room for count elements and size 0 (the caller fills and counts them, so
 * that a release on failure drops exactly the elements stored so far). */
static inline seq_obj* array_alloc(int64_t count) {
  tvm_ffi__ensure_init();
  if (bad_count(kTVMFFIArray, count, SEQ_MAX_ELEMS)) return NULL;
  /* Not zeroed: the cell is set here and an item is read only once stored and counted. */
  seq_obj* a = (seq_obj*)tvm_ffi__object_new_uninit(
      kTVMFFIArray, sizeof(seq_obj) + (size_t)count * sizeof(TVMFFIAny));
  if (!a) return NULL;
  a->cell.data = a + 1;
  a->cell.size = 0;
  a->cell.capacity = count;
  a->cell.data_deleter = NULL;
  return a;
}

void* tvm_ffi_array_new(const TVMFFIAny* items, int64_t count) {
  seq_obj* a = null_input("tvm_ffi_array_new", items, count) ? NULL : array_alloc(count);
  if (!a) return NULL;
  TVMFFIAny* data = (TVMFFIAny*)a->cell.data;
  for (int64_t i = 0; i < count; ++i, ++a->cell.size) {
    if (own_value(&items[i], &data[i]) != 0) {
      tvm_ffi_release(a);
      return NULL;
    }
  }
  return a;
}

/* tvm_ffi_array_new_take from item i on, once an item is a view (or a is NULL: the Array could
 * not be made): take every item even on failure (ownership moved in); a failed one stores
 * None. */
static __attribute__((noinline)) void* array_take_rest(seq_obj* a, TVMFFIAny* items, int64_t i,
                                                      int64_t count) {
  int rc = a ? 0 : -1;
  for (; i < count; ++i) {
    TVMFFIAny v = tvm_ffi_any_none();
    if (take_value(&items[i], &v) != 0) rc = -1;
    if (a) ((TVMFFIAny*)a->cell.data)[a->cell.size++] = v;
    else tvm_ffi_any_release(&v);
  }
  if (rc != 0) {
    tvm_ffi_release(a);
    return NULL;
  }
  return a;
}

void* tvm_ffi_array_new_take(TVMFFIAny* items, int64_t count) {
  if (null_input("tvm_ffi_array_new_take", items, count)) return NULL;
  seq_obj* a = array_alloc(count);
  if (!a) return array_take_rest(NULL, items, 0, count);
  /* Owned values (the usual items) move as they are, counted once at the end of the run; the
   * rest (a view, rare) is array_take_rest's, out of this path's registers. */
  TVMFFIAny* data = (TVMFFIAny*)a->cell.data;
  int64_t i = 0;
  for (; i < count && !is_pointer_view(items[i].type_index); ++i) {
    data[i] = items[i];
    items[i] = tvm_ffi_any_none();
  }
  a->cell.size = i;
  return __builtin_expect(i == count, 1) ? a : array_take_rest(a, items, i, count);
}

void* tvm_ffi_array_of_objects(void* const* objs, int64_t count) {
  seq_obj* a = null_input("tvm_ffi_array_of_objects", objs, count) ? NULL : array_alloc(count);
  if (!a) return NULL;
  TVMFFIAny* data = (TVMFFIAny*)a->cell.data;
  for (int64_t i = 0; i < count; ++i) {
    tvm_ffi_retain(objs[i]);
    data[i] = tvm_ffi_any_obj(objs[i]);
  }
  a->cell.size = count;
  return a;
}

void* tvm_ffi_list_new(void) {
  tvm_ffi__ensure_init();
  seq_obj* l = (seq_obj*)tvm_ffi_object_new(kTVMFFIList, sizeof(seq_obj));
  if (!l) return NULL;
  l->cell.data = NULL;
  l->cell.size = 0;
  l->cell.capacity = 0;
  l->cell.data_deleter = tvm_ffi_free;
  return l;
}

/* Room for one more element: capacity doubles (from 4). */
static int list_reserve_one(seq_obj* l) {
  TVMFFISeqCell* c = &l->cell;
  if (c->size < c->capacity) return 0;
  if (c->capacity >= SEQ_MAX_ELEMS / 2) {
    return tvm_ffi_raise("MemoryError", "ffi.List: cannot grow past %lld elements",
                         (long long)c->capacity);
  }
  int64_t cap = c->capacity ? c->capacity * 2 : 4;
  void* d = tvm_ffi_realloc(c->data, (size_t)cap * sizeof(TVMFFIAny));
  if (!d) return -1;
  c->data = d;
  c->capacity = cap;
  return 0;
}

/* Append an owned value; it is released on failure. */
static int list_append(const char* fname, void* list, TVMFFIAny v) {
  if (check_kind(fname, list, kTVMFFIList) != 0 || list_reserve_one((seq_obj*)list) != 0) {
    tvm_ffi_any_release(&v);
    return -1;
  }
  TVMFFISeqCell* c = TVMFFISeqGetCellPtr(list);
  ((TVMFFIAny*)c->data)[c->size++] = v;
  return 0;
}

int tvm_ffi_list_push(void* list, const TVMFFIAny* item) {
  TVMFFIAny v;
  if (!item) return tvm_ffi_raise("ValueError", "tvm_ffi_list_push: item is NULL");
  return own_value(item, &v) != 0 ? -1 : list_append("tvm_ffi_list_push", list, v);
}

int tvm_ffi_list_push_take(void* list, TVMFFIAny* item) {
  TVMFFIAny v;
  if (!item) return tvm_ffi_raise("ValueError", "tvm_ffi_list_push_take: item is NULL");
  return take_value(item, &v) != 0 ? -1 : list_append("tvm_ffi_list_push_take", list, v);
}

static int index_error(const char* fname, int64_t i, const void* seq, int64_t size) {
  return tvm_ffi_raise("IndexError", "%s: index %lld out of range for %s of size %lld", fname,
                       (long long)i, tvm_ffi_type_key(tvm_ffi_type_index(seq)), (long long)size);
}

int tvm_ffi_list_set(void* list, int64_t i, const TVMFFIAny* item) {
  if (check_kind("tvm_ffi_list_set", list, kTVMFFIList) != 0) return -1;
  if (!item) return tvm_ffi_raise("ValueError", "tvm_ffi_list_set: item is NULL");
  TVMFFISeqCell* c = &((seq_obj*)list)->cell;
  if (i < 0 || i >= c->size) return index_error("tvm_ffi_list_set", i, list, c->size);
  TVMFFIAny v;
  if (own_value(item, &v) != 0) return -1;
  /* Store before releasing: the old value's destructor may run arbitrary code. */
  TVMFFIAny old = ((TVMFFIAny*)c->data)[i];
  ((TVMFFIAny*)c->data)[i] = v;
  tvm_ffi_any_release(&old);
  return 0;
}

int tvm_ffi_list_pop(void* list, TVMFFIAny* out) {
  if (check_kind("tvm_ffi_list_pop", list, kTVMFFIList) != 0) return -1;
  if (!out) return tvm_ffi_raise("ValueError", "tvm_ffi_list_pop: out is NULL");
  TVMFFISeqCell* c = &((seq_obj*)list)->cell;
  if (c->size == 0) return tvm_ffi_raise("IndexError", "tvm_ffi_list_pop: pop from an empty ffi.List");
  *out = ((TVMFFIAny*)c->data)[--c->size];
  return 0;
}

void tvm_ffi_list_clear(void* list) {
  if (check_kind("tvm_ffi_list_clear", list, kTVMFFIList) != 0) return;
  /* Detach the buffer first so element destructors see an empty, consistent list. */
  TVMFFISeqCell* c = &((seq_obj*)list)->cell;
  TVMFFIAny* data = (TVMFFIAny*)c->data;
  int64_t n = c->size;
  c->data = NULL;
  c->size = c->capacity = 0;
  for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&data[i]);
  tvm_ffi_free(data);
}

void* tvm_ffi_list_to_array(const void* list) {
  if (check_kind("tvm_ffi_list_to_array", list, kTVMFFIList) != 0) return NULL;
  return tvm_ffi_array_new(tvm_ffi_seq_data(list), tvm_ffi_seq_size(list));
}

/* ---- Map and Dict ----------------------------------------------------------------------- */
/*
 * Entries live in a dense array in insertion order; an open-addressing index (linear probing,
 * at most half full) maps hashes to entry positions + 1 (0 = empty slot). Erasing from a Dict
 * marks the entry dead and leaves its index slot pointing at it, which makes the slot a
 * tombstone: probes continue past it and an insertion may reuse it. Dead entries are dropped
 * (and the index rebuilt) when the entry array is full. Small maps have no index at all and
 * are scanned linearly.
 */

/* map_entry, map_obj and MAP_DEAD: internal.h (the deleter releases a map's entries). */
#define MAP_SMALL_CAP 8
/* Entries a new Dict holds in itself: most Dicts (a module's functions and names, attributes)
 * stay this small, and each used to allocate (and free) an entry block on its first insertion. */
#define DICT_INLINE_CAP 4
#define MAP_MAX_ENTRIES ((int64_t)1 << 30) /* index slots are uint32 positions + 1 */

static int check_map(const char* fname, const void* obj) {
  /* The exact types first: a Dict would otherwise take the Map ancestor test first. */
  if (obj && (tvm_ffi_type_index(obj) == kTVMFFIMap || tvm_ffi_type_index(obj) == kTVMFFIDict)) {
    return 0;
  }
  if (is_kind(obj, kTVMFFIMap) || is_kind(obj, kTVMFFIDict)) return 0;
  return tvm_ffi_raise("TypeError", "%s: expected ffi.Map or ffi.Dict but got %s", fname,
                       obj ? tvm_ffi_type_key(tvm_ffi_type_index(obj)) : "NULL");
}

/* tvm_ffi_any_hash, with floats that compare equal (0.0 and -0.0, any NaN) hashed alike. */
static uint64_t key_hash(const TVMFFIAny* k) {
  if (k->type_index != kTVMFFIFloat || (k->v_float64 != 0.0 && k->v_float64 == k->v_float64)) {
    return tvm_ffi_any_hash(k);
  }
  TVMFFIAny c = tvm_ffi_any_float(k->v_float64 == 0.0 ? 0.0 : __builtin_nan(""));
  return tvm_ffi_any_hash(&c);
}

static inline size_t map_home(uint64_t h, int64_t index_cap) {
  /* Fibonacci hashing: the top bits of h * 2^64/phi spread any hash over the table. */
  return (size_t)((h * 0x9E3779B97F4A7C15ull) >> (64 - __builtin_ctzll((uint64_t)index_cap)));
}

/* Position of the live entry equal to key (hash h), or -1. With out_slot, also returns the
 * index slot of the entry, or else the slot where it would be inserted (-1 without index). */
static int64_t map_lookup(const map_obj* m, const TVMFFIAny* key, uint64_t h, int64_t* out_slot) {
  if (out_slot) *out_slot = -1;
  if (!m->index) {
    for (int64_t j = 0; j < m->used; ++j) {
      const map_entry* e = &m->entries[j];
      if (e->hash == h && e->key.type_index != MAP_DEAD && tvm_ffi_any_equal(&e->key, key)) {
        return j;
      }
    }
    return -1;
  }
  size_t mask = (size_t)m->index_cap - 1;
  int64_t free_slot = -1;
  for (size_t i = map_home(h, m->index_cap);; i = (i + 1) & mask) {
    uint32_t s = m->index[i];
    if (s == 0) {
      if (out_slot) *out_slot = free_slot >= 0 ? free_slot : (int64_t)i;
      return -1;
    }
    const map_entry* e = &m->entries[s - 1];
    if (e->key.type_index == MAP_DEAD) {
      if (free_slot < 0) free_slot = (int64_t)i;
    } else if (e->hash == h && tvm_ffi_any_equal(&e->key, key)) {
      if (out_slot) *out_slot = (int64_t)i;
      return (int64_t)s - 1;
    }
  }
}

/* Point a free slot of a fresh (tombstone-free) index at entry j. */
static void map_index_entry(map_obj* m, int64_t j) {
  size_t mask = (size_t)m->index_cap - 1;
  size_t i = map_home(m->entries[j].hash, m->index_cap);
  while (m->index[i]) i = (i + 1) & mask;
  m->index[i] = (uint32_t)(j + 1);
}

/* Move the live entries into a new block of new_cap entries (in order) and rebuild the index.
 * No reference counts change. */
static int map_rebuild(map_obj* m, int64_t new_cap) {
  if (bad_count(m->header.type_index, new_cap, MAP_MAX_ENTRIES)) return -1;
  int64_t icap = 0;
  if (new_cap > MAP_SMALL_CAP) {
    icap = 16;
    while (icap < 2 * new_cap) icap *= 2;
  }
  map_entry* block = (map_entry*)tvm_ffi_malloc((size_t)new_cap * sizeof(map_entry) +
                                                (size_t)icap * sizeof(uint32_t));
  if (!block) return -1;
  uint32_t* index = icap ? (uint32_t*)(block + new_cap) : NULL;
  if (index) memset(index, 0, (size_t)icap * sizeof(uint32_t));
  int64_t n = 0;
  for (int64_t j = 0; j < m->used; ++j) {
    if (m->entries[j].key.type_index != MAP_DEAD) block[n++] = m->entries[j];
  }
  if (!tvm_ffi__map_inline(m)) tvm_ffi_free(m->entries);
  m->entries = block;
  m->index = index;
  m->used = n;
  m->entry_cap = new_cap;
  m->index_cap = icap;
  for (int64_t j = 0; index && j < n; ++j) map_index_entry(m, j);
  return 0;
}

/* Insertion into a small map (no index) of a key that needs no view conversion and is compared
 * without a call: an object key other than a string (a GlobalVar, a Var), compared by identity,
 * or an owned string key (a name). These are map_put's steps inline, with the hashes
 * tvm_ffi_any_hash gives such keys (the type index and the pointer; a string's bytes' hash xor
 * the string tag) and its equality (a dead entry's MAP_DEAD never equals an object's type
 * index); a duplicate key takes the later value. Returns true when done, false to take the
 * general path (another key or value, an indexed map, or no room left). */
static inline bool small_put(map_obj* m, const TVMFFIAny* key, const TVMFFIAny* value) {
  int32_t t = key->type_index;
  if (m->index || is_pointer_view(value->type_index)) return false;
  map_entry* e = m->entries;
  map_entry* end = e ? e + m->used : e; /* (no entries yet: NULL + 0 is undefined in C) */
  uint64_t h;
  if (t >= kTVMFFIStaticObjectBegin && t != kTVMFFIStr && t != kTVMFFIBytes && key->v_obj) {
    h = tvm_ffi__mix64(key->v_uint64 ^ ((uint64_t)(uint32_t)t << 40));
    while (e != end && !(e->hash == h && e->key.type_index == t &&
                         e->key.v_uint64 == key->v_uint64)) {
      ++e;
    }
  } else if (t == kTVMFFISmallStr || (t == kTVMFFIStr && key->v_obj)) {
    TVMFFIByteArray bytes = t == kTVMFFISmallStr ? TVMFFISmallBytesGetContentByteArray(key)
                                                 : *TVMFFIBytesGetByteArrayPtr(key->v_obj);
    h = tvm_ffi__hash_bytes(bytes.data, bytes.size) ^ TVM_FFI__STR_HASH_TAG;
    while (e != end && !(e->hash == h && tvm_ffi_any_equal(&e->key, key))) ++e;
  } else {
    return false;
  }
  if (e != end) {
    TVMFFIAny old = e->value;
    e->value = tvm_ffi_any_copy(value);
    tvm_ffi_any_release(&old);
    return true;
  }
  if (m->used == m->entry_cap) return false; /* full: the general path grows the map */
  e->key = tvm_ffi_any_copy(key);
  e->value = tvm_ffi_any_copy(value);
  e->hash = h;
  m->used++;
  m->size++;
  return true;
}

/* Insert or replace key -> value; both may be views and are stored owned. */
static int map_put(map_obj* m, const TVMFFIAny* key, const TVMFFIAny* value) {
  TVMFFIAny tmp, v, k;
  const TVMFFIAny* kv;
  if (small_put(m, key, value)) return 0;
  if (key_view(key, &tmp, &kv) != 0) return -1;
  uint64_t h = key_hash(kv);
  if (own_value(value, &v) != 0) return -1;
  int64_t slot;
  int64_t j = map_lookup(m, kv, h, &slot);
  if (j >= 0) {
    TVMFFIAny old = m->entries[j].value;
    m->entries[j].value = v;
    tvm_ffi_any_release(&old);
    return 0;
  }
  if (own_value(kv, &k) != 0) {
    tvm_ffi_any_release(&v);
    return -1;
  }
  if (m->used == m->entry_cap) {
    /* Full: compact in place when at least half the entries are dead, else double. */
    int64_t cap = m->entry_cap;
    int64_t new_cap = cap == 0 ? 4 : (m->size + 1 > cap / 2 ? cap * 2 : cap);
    if (map_rebuild(m, new_cap) != 0) {
      tvm_ffi_any_release(&k);
      tvm_ffi_any_release(&v);
      return -1;
    }
    map_lookup(m, kv, h, &slot);
  }
  map_entry* e = &m->entries[m->used];
  e->key = k;
  e->value = v;
  e->hash = h;
  if (m->index) m->index[slot] = (uint32_t)(m->used + 1);
  m->used++;
  m->size++;
  return 0;
}

void tvm_ffi__map_destroy(void* self) {
  map_obj* m = (map_obj*)self;
  for (int64_t j = 0; j < m->used; ++j) {
    map_entry* e = &m->entries[j];
    if (e->key.type_index == MAP_DEAD) continue;
    tvm_ffi__any_release(&e->key);
    tvm_ffi__any_release(&e->value);
  }
  if (!tvm_ffi__map_inline(m)) tvm_ffi_free(m->entries);
}

TVMFFIObject* tvm_ffi__map_release_into(void* self, TVMFFIObject* head) {
  tvm_ffi__dead_list dl = {head};
  map_obj* m = (map_obj*)self;
  int64_t used = m->used;
  for (int64_t j = 0; j < used; ++j) {
    map_entry* e = &m->entries[j];
    if (e->key.type_index == MAP_DEAD) continue;
    if (e->key.type_index >= kTVMFFIStaticObjectBegin && e->key.v_obj) {
      tvm_ffi__drop_child((TVMFFIObject*)e->key.v_obj, &dl);
    }
    if (e->value.type_index >= kTVMFFIStaticObjectBegin && e->value.v_obj) {
      tvm_ffi__drop_child((TVMFFIObject*)e->value.v_obj, &dl);
    }
  }
  if (!tvm_ffi__map_inline(m)) tvm_ffi_free(m->entries);
  return dl.head;
}

static map_obj* map_alloc(int32_t type_index, int64_t reserve) {
  tvm_ffi__ensure_init();
  if (bad_count(type_index, reserve, MAP_MAX_ENTRIES)) return NULL;
  if (type_index == kTVMFFIMap && reserve > 0 && reserve <= MAP_SMALL_CAP) {
    /* An immutable Map is made at its final size: a small one (no index) holds its entries
     * itself, one block instead of two. */
    map_obj* m = (map_obj*)tvm_ffi__object_new_uninit(
        type_index, sizeof(map_obj) + (size_t)reserve * sizeof(map_entry));
    if (!m) return NULL;
    /* Not zeroed, as a small Dict below: every field is set here, an entry read once used. */
    m->entries = (map_entry*)(m + 1);
    m->index = NULL;
    m->size = m->used = 0;
    m->entry_cap = reserve;
    m->index_cap = 0;
    return m;
  }
  if (type_index == kTVMFFIDict && reserve <= DICT_INLINE_CAP) {
    /* Not zeroed: every field is set here, and an entry is read only once stored (used). */
    map_obj* m = (map_obj*)tvm_ffi__object_new_uninit(
        type_index, sizeof(map_obj) + DICT_INLINE_CAP * sizeof(map_entry));
    if (!m) return NULL;
    m->entries = (map_entry*)(m + 1);
    m->index = NULL;
    m->size = m->used = 0;
    m->entry_cap = DICT_INLINE_CAP;
    m->index_cap = 0;
    return m;
  }
  map_obj* m = (map_obj*)tvm_ffi_object_new(type_index, sizeof(map_obj));
  if (!m) return NULL;
  if (reserve > 0 && map_rebuild(m, reserve) != 0) {
    tvm_ffi_release(m);
    return NULL;
  }
  return m;
}

void* tvm_ffi_map_new(const TVMFFIAny* keys, const TVMFFIAny* values, int64_t count) {
  if (null_input("tvm_ffi_map_new", keys, count) || null_input("tvm_ffi_map_new", values, count)) {
    return NULL;
  }
  /* Exact capacity: an immutable map never grows (duplicate keys only use less). */
  map_obj* m = map_alloc(kTVMFFIMap, count);
  for (int64_t i = 0; m && i < count; ++i) {
    if (small_put(m, &keys[i], &values[i])) continue; /* (most keys: no map_put call) */
    if (map_put(m, &keys[i], &values[i]) != 0) {
      tvm_ffi_release(m);
      return NULL;
    }
  }
  return m;
}

void* tvm_ffi_dict_new(void) { return map_alloc(kTVMFFIDict, 0); }

int64_t tvm_ffi_map_size(const void* map) {
  if (check_map("tvm_ffi_map_size", map) != 0) return -1;
  return ((const map_obj*)map)->size;
}

/* Checked lookup for the public functions: the entry position of key, -1 when missing, or -2
 * with an error raised for a bad map or key. */
static int64_t map_find(const char* fname, const void* map, const TVMFFIAny* key) {
  TVMFFIAny tmp;
  const TVMFFIAny* kv;
  if (check_map(fname, map) != 0) return -2;
  if (!key) return tvm_ffi_raise("ValueError", "%s: key is NULL", fname) - 1;
  if (key_view(key, &tmp, &kv) != 0) return -2;
  return map_lookup((const map_obj*)map, kv, key_hash(kv), NULL);
}

/* tvm_ffi_map_get of a key compared by identity in an exact Map or Dict: map_lookup's probe
 * with tvm_ffi_any_hash and tvm_ffi_any_equal of such a key inline (the type index and the
 * pointer; a dead entry's MAP_DEAD type index never equals an object's). */
static inline const TVMFFIAny* map_get_identity(const map_obj* m, const TVMFFIAny* key) {
  int32_t t = key->type_index;
  uint64_t bits = key->v_uint64;
  uint64_t h = tvm_ffi__mix64(bits ^ ((uint64_t)(uint32_t)t << 40));
  if (!m->index) {
    for (const map_entry *e = m->entries, *end = e ? e + m->used : e; e != end; ++e) {
      if (e->hash == h && e->key.type_index == t && e->key.v_uint64 == bits) return &e->value;
    }
    return NULL;
  }
  size_t mask = (size_t)m->index_cap - 1;
  for (size_t i = map_home(h, m->index_cap);; i = (i + 1) & mask) {
    uint32_t s = m->index[i];
    if (s == 0) return NULL;
    const map_entry* e = &m->entries[s - 1];
    if (e->hash == h && e->key.type_index == t && e->key.v_uint64 == bits) return &e->value;
  }
}

const TVMFFIAny* tvm_ffi_map_get(const void* map, const TVMFFIAny* key) {
  /* Most lookups (GlobalVars, Vars, Buffers) have an object key that is no string or bytes,
   * which tvm_ffi_any_hash and tvm_ffi_any_equal take by identity: no checks of a view, no
   * calls. */
  if (__builtin_expect(map && key, 1)) {
    int32_t t = key->type_index, mt = tvm_ffi_type_index(map);
    if ((mt == kTVMFFIMap || mt == kTVMFFIDict) && t >= kTVMFFIStaticObjectBegin &&
        t != kTVMFFIStr && t != kTVMFFIBytes && key->v_obj) {
      return map_get_identity((const map_obj*)map, key);
    }
  }
  int64_t j = map_find("tvm_ffi_map_get", map, key);
  return j >= 0 ? &((const map_obj*)map)->entries[j].value : NULL;
}

/* True when k is a string (tvm_ffi_any_equal's string kinds) with the bytes key[0, n). */
static inline bool str_key_equal(const TVMFFIAny* k, const char* key, size_t n) {
  TVMFFIByteArray b;
  if (k->type_index == kTVMFFISmallStr) {
    b = TVMFFISmallBytesGetContentByteArray(k);
  } else if (k->type_index == kTVMFFIStr) {
    b = *TVMFFIBytesGetByteArrayPtr(k->v_obj);
  } else if (k->type_index == kTVMFFIRawStr && k->v_c_str) {
    b.data = k->v_c_str;
    b.size = strlen(k->v_c_str);
  } else {
    return false;
  }
  return b.size == n && (n == 0 || memcmp(b.data, key, n) == 0);
}

/* tvm_ffi_map_get with a raw-string key, without boxing the key: the hash is key_hash's
 * (tvm_ffi_any_hash of a string) and the equality tvm_ffi_any_equal's (a string key equals
 * exactly the string values with the same bytes). */
_Static_assert(sizeof(map_entry) == TVM_FFI__MAP_ENTRY_SIZE && offsetof(map_entry, key) == 0 &&
                   offsetof(map_entry, value) == sizeof(TVMFFIAny) &&
                   MAP_DEAD == TVM_FFI__MAP_DEAD,
               "tvm_ffi__map_entries describes map_entry");
const char* tvm_ffi__map_entries(const void* map, int64_t* count) {
  assert(is_kind(map, kTVMFFIMap) || is_kind(map, kTVMFFIDict));
  const map_obj* m = (const map_obj*)map;
  *count = m->used;
  return (const char*)m->entries;
}

bool tvm_ffi__map_keys_are_str(const void* map) {
  assert(is_kind(map, kTVMFFIMap) || is_kind(map, kTVMFFIDict));
  const map_obj* m = (const map_obj*)map;
  for (const map_entry *e = m->entries, *end = e ? e + m->used : e; e != end; ++e) {
    int32_t t = e->key.type_index;
    if (t != kTVMFFIStr && t != kTVMFFISmallStr && t != MAP_DEAD) return false;
  }
  return true;
}

const TVMFFIAny* tvm_ffi_map_get_str(const void* map, const char* key) {
  if (!key) {
    tvm_ffi_raise("ValueError", "tvm_ffi_map_get_str: key is NULL");
    return NULL;
  }
  if (check_map("tvm_ffi_map_get", map) != 0) return NULL;
  const map_obj* m = (const map_obj*)map;
  size_t n = strlen(key);
  uint64_t h = tvm_ffi__hash_bytes(key, n) ^ TVM_FFI__STR_HASH_TAG;
  if (!m->index) {
    for (int64_t j = 0; j < m->used; ++j) {
      const map_entry* e = &m->entries[j];
      if (e->hash == h && str_key_equal(&e->key, key, n)) return &e->value;
    }
    return NULL;
  }
  /* A dead entry (tombstone) is never a string key, so the probe just goes past it. */
  size_t mask = (size_t)m->index_cap - 1;
  for (size_t i = map_home(h, m->index_cap);; i = (i + 1) & mask) {
    uint32_t s = m->index[i];
    if (s == 0) return NULL;
    const map_entry* e = &m->entries[s - 1];
    if (e->hash == h && str_key_equal(&e->key, key, n)) return &e->value;
  }
}

static int64_t map_next_entries(const map_obj* m, int64_t pos, const TVMFFIAny** out_key,
                                const TVMFFIAny** out_value);

/* tvm_ffi_map_next of a map that is not exactly a Map or Dict: its check (a derived type, or
 * the error), out of the common path, which then saves no registers. */
static __attribute__((noinline)) int64_t map_next_checked(const void* map, int64_t pos,
                                                          const TVMFFIAny** out_key,
                                                          const TVMFFIAny** out_value) {
  if (check_map("tvm_ffi_map_next", map) != 0) return -1;
  return map_next_entries((const map_obj*)map, pos, out_key, out_value);
}

int64_t tvm_ffi_map_next(const void* map, int64_t pos, const TVMFFIAny** out_key,
                         const TVMFFIAny** out_value) {
  /* check_map's first test, inline */
  if (__builtin_expect(!map || (tvm_ffi_type_index(map) != kTVMFFIMap &&
                                tvm_ffi_type_index(map) != kTVMFFIDict),
                       0)) {
    return map_next_checked(map, pos, out_key, out_value);
  }
  return map_next_entries((const map_obj*)map, pos, out_key, out_value);
}

static inline int64_t map_next_entries(const map_obj* m, int64_t pos, const TVMFFIAny** out_key,
                                       const TVMFFIAny** out_value) {
  for (int64_t j = pos < 0 ? m->used : pos; j < m->used; ++j) {
    const map_entry* e = &m->entries[j];
    if (e->key.type_index == MAP_DEAD) continue;
    if (out_key) *out_key = &e->key;
    if (out_value) *out_value = &e->value;
    return j + 1;
  }
  return -1;
}

int tvm_ffi_dict_set(void* dict, const TVMFFIAny* key, const TVMFFIAny* value) {
  if (check_kind("tvm_ffi_dict_set", dict, kTVMFFIDict) != 0) return -1;
  if (!key || !value) return tvm_ffi_raise("ValueError", "tvm_ffi_dict_set: key or value is NULL");
  return map_put((map_obj*)dict, key, value);
}

bool tvm_ffi_dict_erase(void* dict, const TVMFFIAny* key) {
  if (check_kind("tvm_ffi_dict_erase", dict, kTVMFFIDict) != 0) return false;
  int64_t j = map_find("tvm_ffi_dict_erase", dict, key);
  if (j < 0) return false;
  map_obj* m = (map_obj*)dict;
  map_entry* e = &m->entries[j];
  TVMFFIAny old_key = e->key, old_value = e->value;
  e->key = tvm_ffi_any_none();
  e->key.type_index = MAP_DEAD;
  e->value = tvm_ffi_any_none();
  m->size--;
  if (m->size == 0) {
    /* Empty again: forget the dead entries and tombstones without reallocating. */
    m->used = 0;
    if (m->index) memset(m->index, 0, (size_t)m->index_cap * sizeof(uint32_t));
  }
  tvm_ffi_any_release(&old_key);
  tvm_ffi_any_release(&old_value);
  return true;
}

void tvm_ffi_dict_clear(void* dict) {
  if (check_kind("tvm_ffi_dict_clear", dict, kTVMFFIDict) != 0) return;
  /* Detach the storage first so destructors of the released values see an empty dict. */
  map_obj* m = (map_obj*)dict;
  if (tvm_ffi__map_inline(m)) {
    /* The entries are the object's own (at most DICT_INLINE_CAP, no index): moved out to be
     * released, and the storage stays for later insertions. */
    map_entry old[DICT_INLINE_CAP];
    int64_t used = m->used;
    memcpy(old, m->entries, (size_t)used * sizeof(map_entry));
    m->used = m->size = 0;
    for (int64_t j = 0; j < used; ++j) {
      if (old[j].key.type_index == MAP_DEAD) continue;
      tvm_ffi_any_release(&old[j].key);
      tvm_ffi_any_release(&old[j].value);
    }
    return;
  }
  map_obj old = *m;
  m->entries = NULL;
  m->index = NULL;
  m->used = m->size = m->entry_cap = m->index_cap = 0;
  tvm_ffi__map_destroy(&old);
}

void* tvm_ffi_dict_to_map(const void* dict) {
  if (check_kind("tvm_ffi_dict_to_map", dict, kTVMFFIDict) != 0) return NULL;
  const map_obj* d = (const map_obj*)dict;
  map_obj* m = map_alloc(kTVMFFIMap, d->size);
  if (!m) return NULL;
  /* Copy the live entries in order; their hashes are known and the keys are distinct. */
  for (int64_t j = 0; j < d->used; ++j) {
    const map_entry* src = &d->entries[j];
    if (src->key.type_index == MAP_DEAD) continue;
    map_entry* e = &m->entries[m->used++];
    e->key = tvm_ffi_any_copy(&src->key);
    e->value = tvm_ffi_any_copy(&src->value);
    e->hash = src->hash;
    if (m->index) map_index_entry(m, m->used - 1);
    m->size++;
  }
  return m;
}

/* ---- Shape ------------------------------------------------------------------------------ */

typedef struct {
  TVMFFIObject header;
  TVMFFIShapeCell cell;
} shape_obj;
_Static_assert(offsetof(shape_obj, cell) == 24, "shape cell follows the 24-byte header");
_Static_assert(sizeof(shape_obj) == 40, "shape dims start at byte 40");

/* The dims live inside the object: nothing to release. */
static void shape_destroy(void* self) { (void)self; }

static shape_obj* shape_alloc(int64_t ndim) {
  tvm_ffi__ensure_init();
  if (bad_count(kTVMFFIShape, ndim, (int64_t)(SIZE_MAX / sizeof(int64_t) / 2))) return NULL;
  shape_obj* s = (shape_obj*)tvm_ffi_object_new(kTVMFFIShape,
                                                sizeof(shape_obj) + (size_t)ndim * sizeof(int64_t));
  if (!s) return NULL;
  s->cell.data = (const int64_t*)(s + 1);
  s->cell.size = (size_t)ndim;
  return s;
}

void* tvm_ffi_shape_new(const int64_t* dims, int64_t ndim) {
  shape_obj* s = null_input("tvm_ffi_shape_new", dims, ndim) ? NULL : shape_alloc(ndim);
  if (s && ndim > 0) memcpy(s + 1, dims, (size_t)ndim * sizeof(int64_t));
  return s;
}

/* ---- Global functions ------------------------------------------------------------------- */
/* Each validates its arguments (which are views) and returns owned values in *result. */

#define GLOBAL(name) static int name(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result)

/* Check the argument count and that argument 0 is a type_index object (*out, borrowed). */
static bool self_arg(const char* fname, int32_t type_index, const TVMFFIAny* args, int32_t n,
                     int32_t expected, void** out) {
  return tvm_ffi_check_num_args(fname, n, expected) &&
         (*out = tvm_ffi_arg_object(fname, args, 0, type_index)) != NULL;
}

/* self and an in-range index from arguments 0 and 1. */
static bool self_index_args(const char* fname, int32_t type_index, const TVMFFIAny* args,
                            int32_t n, int32_t expected, void** out, int64_t* out_i) {
  if (!self_arg(fname, type_index, args, n, expected, out) ||
      !tvm_ffi_arg_int(fname, args, 1, out_i)) {
    return false;
  }
  int64_t size = type_index == kTVMFFIShape ? tvm_ffi_shape_ndim(*out) : tvm_ffi_seq_size(*out);
  if (*out_i >= 0 && *out_i < size) return true;
  index_error(fname, *out_i, *out, size);
  return false;
}

static int seq_get_item(const char* fname, int32_t type_index, const TVMFFIAny* args,
                        int32_t n, TVMFFIAny* result) {
  void* seq;
  int64_t i;
  if (!self_index_args(fname, type_index, args, n, 2, &seq, &i)) return -1;
  *result = type_index == kTVMFFIShape ? tvm_ffi_any_int(tvm_ffi_shape_data(seq)[i])
                                       : tvm_ffi_any_copy(tvm_ffi_seq_at(seq, i));
  return 0;
}

static int obj_size(const char* fname, int32_t type_index, const TVMFFIAny* args, int32_t n,
                    TVMFFIAny* result) {
  void* obj;
  if (!self_arg(fname, type_index, args, n, 1, &obj)) return -1;
  int64_t size = type_index == kTVMFFIShape ? tvm_ffi_shape_ndim(obj)
                 : (type_index == kTVMFFIMap || type_index == kTVMFFIDict)
                     ? ((map_obj*)obj)->size
                     : tvm_ffi_seq_size(obj);
  *result = tvm_ffi_any_int(size);
  return 0;
}

GLOBAL(g_array) { return tvm_ffi__ret_obj(result, tvm_ffi_array_new(args, n)); }
GLOBAL(g_list) {
  void* l = tvm_ffi_list_new();
  for (int32_t i = 0; l && i < n; ++i) {
    if (tvm_ffi_list_push(l, &args[i]) != 0) {
      tvm_ffi_release(l);
      return -1;
    }
  }
  return tvm_ffi__ret_obj(result, l);
}
GLOBAL(g_list_append) {
  void* l;
  if (!self_arg("ffi.ListAppend", kTVMFFIList, args, n, 2, &l)) return -1;
  return tvm_ffi_list_push(l, &args[1]);
}
GLOBAL(g_list_set_item) {
  void* l;
  int64_t i;
  if (!self_index_args("ffi.ListSetItem", kTVMFFIList, args, n, 3, &l, &i)) return -1;
  return tvm_ffi_list_set(l, i, &args[2]);
}
GLOBAL(g_list_pop) {
  void* l;
  if (!self_arg("ffi.ListPop", kTVMFFIList, args, n, 1, &l)) return -1;
  if (tvm_ffi_seq_size(l) == 0) {
    return tvm_ffi_raise("IndexError", "ffi.ListPop: pop from an empty ffi.List");
  }
  return tvm_ffi_list_pop(l, result);
}
GLOBAL(g_list_clear) {
  void* l;
  if (!self_arg("ffi.ListClear", kTVMFFIList, args, n, 1, &l)) return -1;
  tvm_ffi_list_clear(l);
  return 0;
}

/* ffi.Map / ffi.Dict: alternating keys and values; a later duplicate key wins. */
static int map_from_pairs(const char* fname, int32_t type_index, const TVMFFIAny* args,
                          int32_t n, TVMFFIAny* result) {
  if (n < 0 || n % 2 != 0) {
    return tvm_ffi_raise("ValueError",
                         "%s expects alternating keys and values (an even number of arguments) "
                         "but got %d arguments", fname, (int)n);
  }
  map_obj* m = map_alloc(type_index, type_index == kTVMFFIMap ? n / 2 : 0);
  for (int32_t i = 0; m && i < n; i += 2) {
    if (map_put(m, &args[i], &args[i + 1]) != 0) {
      tvm_ffi_release(m);
      return -1;
    }
  }
  return tvm_ffi__ret_obj(result, m);
}

static int key_error(const char* fname, const TVMFFIAny* key) {
  tvm_ffi_strbuf b = {0};
  describe_value(key, &b);
  tvm_ffi_raise("KeyError", "%s: key %s not found", fname, tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return -1;
}

/* GetItem (count == false: the value, KeyError when missing) or Count (0 or 1). */
static int map_get_item(const char* fname, int32_t type_index, bool count, const TVMFFIAny* args,
                        int32_t n, TVMFFIAny* result) {
  void* m;
  if (!self_arg(fname, type_index, args, n, 2, &m)) return -1;
  uint64_t mark = tvm_ffi_error_mark();
  const TVMFFIAny* v = tvm_ffi_map_get(m, &args[1]);
  if (!v && tvm_ffi_error_raised_since(mark)) return -1;
  if (count) {
    *result = tvm_ffi_any_int(v ? 1 : 0);
    return 0;
  }
  if (!v) return key_error(fname, &args[1]);
  *result = tvm_ffi_any_copy(v);
  return 0;
}

/* An Array [k0, v0, k1, v1, ...] in iteration order. */
static int map_items(const char* fname, int32_t type_index, const TVMFFIAny* args, int32_t n,
                     TVMFFIAny* result) {
  void* m;
  if (!self_arg(fname, type_index, args, n, 1, &m)) return -1;
  seq_obj* a = array_alloc(2 * ((map_obj*)m)->size);
  if (!a) return -1;
  TVMFFIAny* data = (TVMFFIAny*)a->cell.data;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(m, pos, &k, &v)) >= 0;) {
    data[a->cell.size++] = tvm_ffi_any_copy(k);
    data[a->cell.size++] = tvm_ffi_any_copy(v);
  }
  return tvm_ffi__ret_obj(result, a);
}

/* ffi.MapForwardIterFunctor(map) -> f: f(0) is the current key, f(1) the current value, f(2)
 * advances and returns whether an entry remains (upstream's iteration protocol). */
typedef struct {
  void* map;   /* owned */
  int64_t pos; /* entry position of the current item (>= used when exhausted) */
} map_iter;

static void map_iter_free(void* self) {
  tvm_ffi_release(((map_iter*)self)->map);
  tvm_ffi_free(self);
}

static int map_iter_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  map_iter* it = (map_iter*)self;
  const char* fname = "ffi.MapForwardIterFunctor()";
  int64_t cmd;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !tvm_ffi_arg_int(fname, args, 0, &cmd)) return -1;
  const TVMFFIAny *k, *v;
  int64_t next = tvm_ffi_map_next(it->map, it->pos, &k, &v);
  if (cmd == 2) {
    if (next >= 0) next = tvm_ffi_map_next(it->map, next, NULL, NULL);
    it->pos = next >= 0 ? next - 1 : ((map_obj*)it->map)->used;
    *result = tvm_ffi_any_bool(next >= 0);
    return 0;
  }
  if (cmd != 0 && cmd != 1) {
    return tvm_ffi_raise("ValueError", "%s: command must be 0 (key), 1 (value) or 2 (next), got %lld",
                         fname, (long long)cmd);
  }
  if (next < 0) return tvm_ffi_raise("IndexError", "%s: the iterator is exhausted", fname);
  *result = tvm_ffi_any_copy(cmd == 0 ? k : v);
  return 0;
}

GLOBAL(g_map_iter) {
  void* m;
  if (!self_arg("ffi.MapForwardIterFunctor", kTVMFFIMap, args, n, 1, &m)) return -1;
  map_iter* it = (map_iter*)tvm_ffi_malloc(sizeof(map_iter));
  if (!it) return -1;
  tvm_ffi_retain(m);
  it->map = m;
  it->pos = 0;
  void* f = tvm_ffi_function_new(it, map_iter_call, map_iter_free);
  if (!f) map_iter_free(it);
  return tvm_ffi__ret_obj(result, f);
}

GLOBAL(g_dict_set_item) {
  void* d;
  if (!self_arg("ffi.DictSetItem", kTVMFFIDict, args, n, 3, &d)) return -1;
  return map_put((map_obj*)d, &args[1], &args[2]);
}
/* Like Python's `del d[key]`: a missing key is a KeyError. */
GLOBAL(g_dict_erase) {
  void* d;
  if (!self_arg("ffi.DictErase", kTVMFFIDict, args, n, 2, &d)) return -1;
  uint64_t mark = tvm_ffi_error_mark();
  if (tvm_ffi_dict_erase(d, &args[1])) return 0;
  return tvm_ffi_error_raised_since(mark) ? -1 : key_error("ffi.DictErase", &args[1]);
}

GLOBAL(g_shape) {
  shape_obj* s = shape_alloc(n);
  if (!s) return -1;
  int64_t* dims = (int64_t*)(s + 1);
  for (int32_t i = 0; i < n; ++i) {
    if (!tvm_ffi_arg_int("ffi.Shape", args, i, &dims[i])) {
      tvm_ffi_release(s);
      return -1;
    }
  }
  return tvm_ffi__ret_obj(result, s);
}

/* Globals that only forward to a shared body with their name and type. */
#define FORWARD(gname, body, ...) \
  GLOBAL(gname) { return body(__VA_ARGS__, args, n, result); }
FORWARD(g_array_get_item, seq_get_item, "ffi.ArrayGetItem", kTVMFFIArray)
FORWARD(g_array_size, obj_size, "ffi.ArraySize", kTVMFFIArray)
FORWARD(g_list_get_item, seq_get_item, "ffi.ListGetItem", kTVMFFIList)
FORWARD(g_list_size, obj_size, "ffi.ListSize", kTVMFFIList)
FORWARD(g_map, map_from_pairs, "ffi.Map", kTVMFFIMap)
FORWARD(g_map_size, obj_size, "ffi.MapSize", kTVMFFIMap)
FORWARD(g_map_get_item, map_get_item, "ffi.MapGetItem", kTVMFFIMap, false)
FORWARD(g_map_count, map_get_item, "ffi.MapCount", kTVMFFIMap, true)
FORWARD(g_map_items, map_items, "ffi.MapItems", kTVMFFIMap)
FORWARD(g_dict, map_from_pairs, "ffi.Dict", kTVMFFIDict)
FORWARD(g_dict_size, obj_size, "ffi.DictSize", kTVMFFIDict)
FORWARD(g_dict_get_item, map_get_item, "ffi.DictGetItem", kTVMFFIDict, false)
FORWARD(g_dict_count, map_get_item, "ffi.DictCount", kTVMFFIDict, true)
FORWARD(g_dict_items, map_items, "ffi.DictItems", kTVMFFIDict)
FORWARD(g_shape_get_item, seq_get_item, "ffi.ShapeGetItem", kTVMFFIShape)
FORWARD(g_shape_size, obj_size, "ffi.ShapeSize", kTVMFFIShape)

void tvm_ffi__init_containers(void) {
  tvm_ffi_type_register("ffi.Shape", kTVMFFIObject, kTVMFFIShape, sizeof(shape_obj),
                        shape_destroy, kTVMFFISEqHashKindTreeNode);
  tvm_ffi_type_register("ffi.Array", kTVMFFIObject, kTVMFFIArray, sizeof(seq_obj),
                        tvm_ffi__seq_destroy, kTVMFFISEqHashKindTreeNode);
  tvm_ffi_type_register("ffi.Map", kTVMFFIObject, kTVMFFIMap, sizeof(map_obj),
                        tvm_ffi__map_destroy, kTVMFFISEqHashKindTreeNode);
  tvm_ffi_type_register("ffi.List", kTVMFFIObject, kTVMFFIList, sizeof(seq_obj),
                        tvm_ffi__seq_destroy, kTVMFFISEqHashKindTreeNode);
  tvm_ffi_type_register("ffi.Dict", kTVMFFIObject, kTVMFFIDict, sizeof(map_obj),
                        tvm_ffi__map_destroy, kTVMFFISEqHashKindTreeNode);
  static const struct {
    const char* name;
    TVMFFISafeCallType fn;
  } globals[] = {
      {"ffi.Array", g_array},           {"ffi.ArrayGetItem", g_array_get_item},
      {"ffi.ArraySize", g_array_size},  {"ffi.List", g_list},
      {"ffi.ListGetItem", g_list_get_item}, {"ffi.ListSize", g_list_size},
      {"ffi.ListAppend", g_list_append}, {"ffi.ListSetItem", g_list_set_item},
      {"ffi.ListPop", g_list_pop},      {"ffi.ListClear", g_list_clear},
      {"ffi.Map", g_map},               {"ffi.MapSize", g_map_size},
      {"ffi.MapGetItem", g_map_get_item}, {"ffi.MapCount", g_map_count},
      {"ffi.MapItems", g_map_items},    {"ffi.MapForwardIterFunctor", g_map_iter},
      {"ffi.Dict", g_dict},             {"ffi.DictSize", g_dict_size},
      {"ffi.DictGetItem", g_dict_get_item}, {"ffi.DictCount", g_dict_count},
      {"ffi.DictSetItem", g_dict_set_item}, {"ffi.DictErase", g_dict_erase},
      {"ffi.DictItems", g_dict_items},  {"ffi.Shape", g_shape},
      {"ffi.ShapeGetItem", g_shape_get_item}, {"ffi.ShapeSize", g_shape_size},
  };
  for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); ++i) {
    tvm_ffi__register_global(globals[i].name, globals[i].fn);
  }
}

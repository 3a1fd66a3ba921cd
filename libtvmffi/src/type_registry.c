/*
 * type_registry.c: type indices, keys, ancestors (constant-time instance checks), reflection
 * (fields, methods, metadata, type attributes) and the reflection-driven field access and
 * destruction every registered object type gets for free.
 *
 * Reads (tvm_ffi__type_entry, instance checks) are lock-free; registration takes g_lock.
 * Registration is expected at start-up; entries are never freed.
 */
#include <pthread.h>
#include <string.h>

#include "internal.h"

tvm_ffi_type_entry* tvm_ffi__types[TVM_FFI_MAX_TYPES]; /* internal.h reads it inline */
#define g_types tvm_ffi__types
static int32_t g_types_end; /* 1 + the highest registered type index (written under g_lock) */
static int32_t g_next_dyn_index = kTVMFFIDynObjectBegin;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int32_t g_fields_version = 1; /* bumped when any field is registered */

/* True while this thread holds g_lock: an object released under it (an error replaced while
 * raising, say) may need a release plan built, which then must not wait for the lock. */
static __thread bool t_holds_lock;
static void lock_registry(void) {
  pthread_mutex_lock(&g_lock);
  t_holds_lock = true;
}
static void unlock_registry(void) {
  t_holds_lock = false;
  pthread_mutex_unlock(&g_lock);
}

/* Key -> entry index: hash buckets of entries chained through next_in_bucket. Entries are only
 * ever added (at the head, with a release store), so lookups need no lock. */
#define KEY_BUCKETS 1024
static tvm_ffi_type_entry* g_key_buckets[KEY_BUCKETS];

/* Cached field lists and release plans replaced after a later field registration: a reader may
 * still hold one, so they stay allocated (and reachable) for the life of the process. */
typedef struct retired_fields {
  struct retired_fields* next;
  void* fields;
} retired_fields;
static retired_fields* g_retired_fields;

static void retire_locked(void* fields) {
  retired_fields* r = (retired_fields*)tvm_ffi_malloc(sizeof(retired_fields));
  if (r) {
    r->fields = fields;
    r->next = g_retired_fields;
    g_retired_fields = r;
  }
}

static int32_t find_key(const char* key, size_t n) {
  uint64_t h = tvm_ffi__hash_bytes(key, n);
  tvm_ffi_type_entry* e = __atomic_load_n(&g_key_buckets[h % KEY_BUCKETS], __ATOMIC_ACQUIRE);
  for (; e; e = e->next_in_bucket) {
    if (e->info.type_key_hash == h && e->info.type_key.size == n &&
        memcmp(e->info.type_key.data, key, n) == 0) {
      return e->info.type_index;
    }
  }
  return -1;
}

int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex) {
  tvm_ffi_init();
  if (!type_key || !out_tindex) return tvm_ffi_raise("ValueError", "TVMFFITypeKeyToIndex: NULL");
  int32_t idx = find_key(type_key->data, type_key->size);
  if (idx < 0) {
    return tvm_ffi_raise("KeyError", "type key `%.*s` is not registered", (int)type_key->size,
                         type_key->data);
  }
  *out_tindex = idx;
  return 0;
}

int32_t tvm_ffi_type_find(const char* type_key) {
  tvm_ffi_init();
  return find_key(type_key, strlen(type_key));
}

const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(type_index);
  return e ? &e->info : NULL;
}

const char* tvm_ffi_type_key(int32_t type_index) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(type_index);
  return e ? e->info.type_key.data : "<unknown>";
}

bool tvm_ffi_instance_of(const void* obj, int32_t type_index) {
  if (!obj) return false;
  int32_t t = ((const TVMFFIObject*)obj)->type_index;
  if (t == type_index) return true;
  if (type_index == kTVMFFIObject) return t >= kTVMFFIStaticObjectBegin;
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(t);
  tvm_ffi_type_entry* target = tvm_ffi__type_entry(type_index);
  if (!e || !target) return false;
  /* type_index is an ancestor of t iff it sits at its own depth in t's ancestor chain. */
  int32_t d = target->info.type_depth;
  return e->info.type_depth > d && e->info.type_ancestors[d] == &target->info;
}

int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key, int32_t static_type_index,
                                  int32_t type_depth, int32_t num_child_slots,
                                  int32_t child_slots_can_overflow, int32_t parent_type_index) {
  (void)num_child_slots;
  (void)child_slots_can_overflow;
  if (!type_key || !type_key->data || type_key->size == 0) {
    tvm_ffi_raise("ValueError", "TVMFFITypeGetOrAllocIndex: empty type key");
    return -1;
  }
  lock_registry();
  int32_t existing = find_key(type_key->data, type_key->size);
  if (existing >= 0) {
    unlock_registry();
    return existing;
  }
  const char* why = NULL;
  tvm_ffi_type_entry* parent = NULL;
  if (parent_type_index >= 0) {
    parent = g_types[parent_type_index < TVM_FFI_MAX_TYPES ? parent_type_index : 0];
    if (!parent || parent_type_index >= TVM_FFI_MAX_TYPES) why = "unknown parent type index";
    else if (type_depth != parent->info.type_depth + 1) why = "type_depth is not parent depth + 1";
  } else if (type_depth != 0) {
    why = "a root type must have depth 0";
  }
  int32_t idx = static_type_index;
  if (!why) {
    if (idx >= 0) {
      if (idx >= TVM_FFI_MAX_TYPES) why = "static type index out of range";
      else if (g_types[idx]) why = "static type index already used by another key";
    } else {
      if (g_next_dyn_index >= TVM_FFI_MAX_TYPES) why = "too many types";
      else idx = g_next_dyn_index++;
    }
  }
  tvm_ffi_type_entry* e = NULL;
  if (!why) {
    e = (tvm_ffi_type_entry*)tvm_ffi_calloc(1, sizeof(tvm_ffi_type_entry));
    char* key = e ? tvm_ffi_strndup(type_key->data, type_key->size) : NULL;
    const TVMFFITypeInfo** anc =
        type_depth ? (const TVMFFITypeInfo**)tvm_ffi_calloc((size_t)type_depth, sizeof(void*))
                   : NULL;
    if (!e || !key || (type_depth && !anc)) {
      tvm_ffi_free(e);
      tvm_ffi_free(key);
      tvm_ffi_free(anc);
      unlock_registry();
      return -1;
    }
    for (int32_t d = 0; d + 1 < type_depth; ++d) anc[d] = parent->info.type_ancestors[d];
    if (type_depth) anc[type_depth - 1] = &parent->info;
    e->info.type_index = idx;
    e->info.type_depth = type_depth;
    e->info.type_key.data = key;
    e->info.type_key.size = type_key->size;
    e->info.type_ancestors = anc;
    e->info.type_key_hash = tvm_ffi__hash_bytes(key, type_key->size);
    if (parent) {
      /* Children inherit the parent's C-level behaviour until they register their own. */
      e->destroy = parent->destroy;
      e->metadata = parent->metadata;
      e->metadata.creator = NULL;
      e->metadata.doc.data = NULL;
      e->metadata.doc.size = 0;
      e->info.metadata = parent->info.metadata ? &e->metadata : NULL;
    }
    __atomic_store_n(&g_types[idx], e, __ATOMIC_RELEASE);
    if (idx >= g_types_end) g_types_end = idx + 1;
    tvm_ffi_type_entry** bucket = &g_key_buckets[e->info.type_key_hash % KEY_BUCKETS];
    e->next_in_bucket = *bucket;
    __atomic_store_n(bucket, e, __ATOMIC_RELEASE);
  }
  unlock_registry();
  if (why) {
    tvm_ffi_raise("RuntimeError", "cannot register type `%.*s`: %s", (int)type_key->size,
                  type_key->data, why);
    return -1;
  }
  return idx;
}

int32_t tvm_ffi_type_register(const char* type_key, int32_t parent_index, int32_t static_index,
                              size_t size, tvm_ffi_destroy_fn destroy,
                              TVMFFISEqHashKind seq_kind) {
  tvm_ffi_type_entry* parent = tvm_ffi__type_entry(parent_index);
  if (!parent) {
    tvm_ffi_raise("RuntimeError", "cannot register `%s`: unknown parent type index %d", type_key,
                  (int)parent_index);
    return -1;
  }
  TVMFFIByteArray key = {type_key, strlen(type_key)};
  int32_t idx = TVMFFITypeGetOrAllocIndex(&key, static_index, parent->info.type_depth + 1, 0, 1,
                                          parent_index);
  if (idx < 0) return -1;
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(idx);
  lock_registry();
  e->object_size = size;
  e->destroy = destroy;
  /* The deleter's entry for the type follows its destroy function (the plan of a type without
   * one is published when first built). */
  __atomic_store_n(&tvm_ffi__plans[idx],
                   destroy == tvm_ffi__seq_destroy   ? &tvm_ffi__seq_plan
                   : destroy == tvm_ffi__map_destroy ? &tvm_ffi__map_plan
                                                     : &tvm_ffi__no_plan,
                   __ATOMIC_RELEASE);
  e->metadata.total_size = (int32_t)size;
  e->metadata.structural_eq_hash_kind = seq_kind;
  e->info.metadata = &e->metadata;
  unlock_registry();
  return idx;
}

/* ---- Reflection: fields ----------------------------------------------------------------- */

static TVMFFIByteArray copy_bytes(TVMFFIByteArray b) {
  TVMFFIByteArray r = {"", 0};
  if (b.data && b.size) {
    char* p = tvm_ffi_strndup(b.data, b.size);
    if (p) {
      r.data = p;
      r.size = b.size;
    }
  }
  return r;
}

int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(type_index);
  if (!e) return tvm_ffi_raise("KeyError", "TVMFFITypeRegisterField: unknown type %d", type_index);
  if (!info || !info->name.data) return tvm_ffi_raise("ValueError", "field info without a name");
  lock_registry();
  for (int32_t i = 0; i < e->info.num_fields; ++i) {
    if (e->fields[i].name.size == info->name.size &&
        memcmp(e->fields[i].name.data, info->name.data, info->name.size) == 0) {
      unlock_registry();
      return 0; /* already registered (idempotent re-registration) */
    }
  }
  if (e->info.num_fields == e->fields_cap) {
    int32_t cap = e->fields_cap ? e->fields_cap * 2 : 8;
    TVMFFIFieldInfo* f =
        (TVMFFIFieldInfo*)tvm_ffi_realloc(e->fields, (size_t)cap * sizeof(TVMFFIFieldInfo));
    if (!f) {
      unlock_registry();
      return -1;
    }
    e->fields = f;
    e->fields_cap = cap;
  }
  TVMFFIFieldInfo* f = &e->fields[e->info.num_fields];
  *f = *info;
  f->name = copy_bytes(info->name);
  f->doc = copy_bytes(info->doc);
  f->metadata = copy_bytes(info->metadata);
  if (f->default_value_or_factory.type_index >= kTVMFFIStaticObjectBegin) {
    tvm_ffi_retain(f->default_value_or_factory.v_obj);
  }
  e->info.fields = e->fields;
  e->info.num_fields++;
  g_fields_version++;
  /* The release plans of the type and its descendants are stale now: drop them (a later
   * destruction rebuilds them). */
  for (int32_t i = 0; i < g_types_end; ++i) {
    tvm_ffi_type_entry* x = g_types[i];
    if (!x || !x->release_plan) continue;
    if (x == e || (x->info.type_depth > e->info.type_depth &&
                   x->info.type_ancestors[e->info.type_depth] == &e->info)) {
      retire_locked(x->release_plan);
      __atomic_store_n(&x->release_plan, NULL, __ATOMIC_RELEASE);
      __atomic_store_n(&tvm_ffi__plans[i], &tvm_ffi__no_plan, __ATOMIC_RELEASE);
    }
  }
  unlock_registry();
  return 0;
}

int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(type_index);
  if (!e) return tvm_ffi_raise("KeyError", "TVMFFITypeRegisterMethod: unknown type %d", type_index);
  if (!info || !info->name.data) return tvm_ffi_raise("ValueError", "method info without a name");
  if (info->method.type_index != kTVMFFIFunction) {
    return tvm_ffi_raise("TypeError", "method `%.*s` is not a Function", (int)info->name.size,
                         info->name.data);
  }
  lock_registry();
  if (e->info.num_methods == e->methods_cap) {
    int32_t cap = e->methods_cap ? e->methods_cap * 2 : 4;
    TVMFFIMethodInfo* m =
        (TVMFFIMethodInfo*)tvm_ffi_realloc(e->methods, (size_t)cap * sizeof(TVMFFIMethodInfo));
    if (!m) {
      unlock_registry();
      return -1;
    }
    e->methods = m;
    e->methods_cap = cap;
  }
  TVMFFIMethodInfo* m = &e->methods[e->info.num_methods];
  *m = *info;
  m->name = copy_bytes(info->name);
  m->doc = copy_bytes(info->doc);
  m->metadata = copy_bytes(info->metadata);
  tvm_ffi_retain(m->method.v_obj);
  e->info.methods = e->methods;
  e->info.num_methods++;
  unlock_registry();
  return 0;
}

int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(type_index);
  if (!e) return tvm_ffi_raise("KeyError", "TVMFFITypeRegisterMetadata: unknown type %d", type_index);
  if (!metadata) return tvm_ffi_raise("ValueError", "TVMFFITypeRegisterMetadata: NULL metadata");
  lock_registry();
  e->metadata = *metadata;
  e->metadata.doc = copy_bytes(metadata->doc);
  e->info.metadata = &e->metadata;
  unlock_registry();
  return 0;
}

/* ---- Type attributes: one column per attribute name ------------------------------------- */
typedef struct attr_column {
  struct attr_column* next;
  char* name;
  TVMFFITypeAttrColumn column;
  TVMFFIAny* data; /* owned values, indexed by type index */
} attr_column;
static attr_column* g_columns;

static attr_column* find_column_locked(const TVMFFIByteArray* name) {
  for (attr_column* c = g_columns; c; c = c->next) {
    if (strlen(c->name) == name->size && memcmp(c->name, name->data, name->size) == 0) return c;
  }
  return NULL;
}

int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                           const TVMFFIAny* attr_value) {
  if (!attr_name || !attr_value) return tvm_ffi_raise("ValueError", "TVMFFITypeRegisterAttr: NULL");
  if (type_index < 0 || type_index >= TVM_FFI_MAX_TYPES) {
    return tvm_ffi_raise("IndexError", "TVMFFITypeRegisterAttr: type index %d out of range",
                         type_index);
  }
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(attr_value, &owned) != 0) return -1;
  lock_registry();
  attr_column* c = find_column_locked(attr_name);
  if (!c) {
    c = (attr_column*)tvm_ffi_calloc(1, sizeof(attr_column));
    if (!c || !(c->name = tvm_ffi_strndup(attr_name->data, attr_name->size))) {
      tvm_ffi_free(c);
      unlock_registry();
      tvm_ffi_any_release(&owned);
      return -1;
    }
    c->next = g_columns;
    g_columns = c;
  }
  if (type_index >= c->column.size) {
    int32_t n = type_index + 1 > 2 * c->column.size ? type_index + 1 : 2 * c->column.size;
    TVMFFIAny* d = (TVMFFIAny*)tvm_ffi_realloc(c->data, (size_t)n * sizeof(TVMFFIAny));
    if (!d) {
      unlock_registry();
      tvm_ffi_any_release(&owned);
      return -1;
    }
    for (int32_t i = c->column.size; i < n; ++i) d[i] = tvm_ffi_any_none();
    c->data = d;
    c->column.size = n;
    c->column.data = d;
    c->column.begin_index = 0;
  }
  TVMFFIAny old = c->data[type_index];
  c->data[type_index] = owned;
  unlock_registry();
  /* Released outside the lock: its destructor may need the registry (a release plan). */
  tvm_ffi_any_release(&old);
  return 0;
}

const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name) {
  if (!attr_name) return NULL;
  lock_registry();
  attr_column* c = find_column_locked(attr_name);
  unlock_registry();
  return c ? &c->column : NULL;
}

/* ---- Generic field storage: getters, setters, destruction ------------------------------ */

static int get_any(void* f, TVMFFIAny* r) {
  *r = tvm_ffi_any_copy((TVMFFIAny*)f);
  return 0;
}
static int get_obj(void* f, TVMFFIAny* r) {
  void* o = *(void**)f;
  tvm_ffi_retain(o);
  *r = tvm_ffi_any_obj(o);
  return 0;
}
static int get_i64(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_int(*(int64_t*)f); return 0; }
static int get_i32(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_int(*(int32_t*)f); return 0; }
static int get_i16(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_int(*(int16_t*)f); return 0; }
static int get_i8(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_int(*(int8_t*)f); return 0; }
static int get_bool(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_bool(*(uint8_t*)f != 0); return 0; }
static int get_f64(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_float(*(double*)f); return 0; }
static int get_f32(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_float(*(float*)f); return 0; }
static int get_dtype(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_dtype(*(DLDataType*)f); return 0; }
static int get_device(void* f, TVMFFIAny* r) { *r = tvm_ffi_any_device(*(DLDevice*)f); return 0; }

static int set_any(void* f, const TVMFFIAny* v) {
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(v, &owned) != 0) return -1;
  tvm_ffi_any_release((TVMFFIAny*)f);
  *(TVMFFIAny*)f = owned;
  return 0;
}
static int set_int_common(const TVMFFIAny* v, int64_t* out) {
  if (!tvm_ffi_any_as_int(v, out)) {
    return tvm_ffi_raise("TypeError", "expected an int, got %s", tvm_ffi_any_type_name(v));
  }
  return 0;
}
static int set_i64(void* f, const TVMFFIAny* v) {
  int64_t x;
  if (set_int_common(v, &x)) return -1;
  *(int64_t*)f = x;
  return 0;
}
static int set_i32(void* f, const TVMFFIAny* v) {
  int64_t x;
  if (set_int_common(v, &x)) return -1;
  *(int32_t*)f = (int32_t)x;
  return 0;
}
static int set_i16(void* f, const TVMFFIAny* v) {
  int64_t x;
  if (set_int_common(v, &x)) return -1;
  *(int16_t*)f = (int16_t)x;
  return 0;
}
static int set_i8(void* f, const TVMFFIAny* v) {
  int64_t x;
  if (set_int_common(v, &x)) return -1;
  *(int8_t*)f = (int8_t)x;
  return 0;
}
static int set_bool(void* f, const TVMFFIAny* v) {
  bool x;
  if (!tvm_ffi_any_as_bool(v, &x)) {
    return tvm_ffi_raise("TypeError", "expected a bool, got %s", tvm_ffi_any_type_name(v));
  }
  *(uint8_t*)f = x;
  return 0;
}
static int set_f64(void* f, const TVMFFIAny* v) {
  double x;
  if (!tvm_ffi_any_as_float(v, &x)) {
    return tvm_ffi_raise("TypeError", "expected a float, got %s", tvm_ffi_any_type_name(v));
  }
  *(double*)f = x;
  return 0;
}
static int set_f32(void* f, const TVMFFIAny* v) {
  double x;
  if (!tvm_ffi_any_as_float(v, &x)) {
    return tvm_ffi_raise("TypeError", "expected a float, got %s", tvm_ffi_any_type_name(v));
  }
  *(float*)f = (float)x;
  return 0;
}
static int set_dtype(void* f, const TVMFFIAny* v) {
  if (v->type_index == kTVMFFIDataType) {
    *(DLDataType*)f = v->v_dtype;
    return 0;
  }
  TVMFFIByteArray s;
  if (tvm_ffi_any_as_bytes(v, &s)) return tvm_ffi_dtype_parse(s.data, s.size, (DLDataType*)f);
  return tvm_ffi_raise("TypeError", "expected a DataType, got %s", tvm_ffi_any_type_name(v));
}
static int set_device(void* f, const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIDevice) {
    return tvm_ffi_raise("TypeError", "expected a Device, got %s", tvm_ffi_any_type_name(v));
  }
  *(DLDevice*)f = v->v_device;
  return 0;
}

/* The raw setter only sees the field's address, so it cannot check the object's type;
 * tvm_ffi_field_set (which knows the field) checks it before calling this. Short strings
 * are boxed into ffi.String objects. */
static int set_obj(void* f, const TVMFFIAny* v) {
  void* o = NULL;
  if (v->type_index == kTVMFFINone) {
    o = NULL;
  } else if (v->type_index >= kTVMFFIStaticObjectBegin) {
    o = v->v_obj;
    tvm_ffi_retain(o);
  } else {
    TVMFFIAny owned;
    if (TVMFFIAnyViewToOwnedAny(v, &owned) != 0) return -1;
    if (owned.type_index == kTVMFFISmallStr || owned.type_index == kTVMFFISmallBytes) {
      TVMFFIByteArray b = TVMFFISmallBytesGetContentByteArray(&owned);
      o = owned.type_index == kTVMFFISmallStr ? tvm_ffi_str_obj(b.data, b.size)
                                              : tvm_ffi_bytes_obj(b.data, b.size);
      if (!o) return -1;
    } else if (owned.type_index >= kTVMFFIStaticObjectBegin) {
      o = owned.v_obj;
    } else {
      return tvm_ffi_raise("TypeError", "expected an object, got %s", tvm_ffi_any_type_name(v));
    }
  }
  tvm_ffi_release(*(void**)f);
  *(void**)f = o;
  return 0;
}

static int set_accessors(TVMFFIFieldInfo* fi) {
  int32_t t = fi->field_static_type_index;
  int64_t sz = fi->size;
  TVMFFIFieldGetter g = NULL;
  TVMFFIFieldSetter s = NULL;
  if (t == kTVMFFIAny && sz == (int64_t)sizeof(TVMFFIAny)) {
    g = get_any, s = set_any;
  } else if (t >= kTVMFFIStaticObjectBegin && sz == (int64_t)sizeof(void*)) {
    g = get_obj, s = set_obj;
  } else if (t == kTVMFFIInt && sz == 8) {
    g = get_i64, s = set_i64;
  } else if (t == kTVMFFIInt && sz == 4) {
    g = get_i32, s = set_i32;
  } else if (t == kTVMFFIInt && sz == 2) {
    g = get_i16, s = set_i16;
  } else if (t == kTVMFFIInt && sz == 1) {
    g = get_i8, s = set_i8;
  } else if (t == kTVMFFIBool && sz == 1) {
    g = get_bool, s = set_bool;
  } else if (t == kTVMFFIFloat && sz == 8) {
    g = get_f64, s = set_f64;
  } else if (t == kTVMFFIFloat && sz == 4) {
    g = get_f32, s = set_f32;
  } else if (t == kTVMFFIDataType && sz == (int64_t)sizeof(DLDataType)) {
    g = get_dtype, s = set_dtype;
  } else if (t == kTVMFFIDevice && sz == (int64_t)sizeof(DLDevice)) {
    g = get_device, s = set_device;
  } else {
    return tvm_ffi_raise("TypeError",
                         "field `%s`: unsupported storage (static type %d, %lld bytes)",
                         fi->name.data, (int)t, (long long)sz);
  }
  fi->getter = g;
  fi->setter = (void*)s;
  return 0;
}

int tvm_ffi_type_add_fields(int32_t type_index, const tvm_ffi_field_def* defs, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    TVMFFIFieldInfo fi;
    memset(&fi, 0, sizeof(fi));
    fi.name.data = defs[i].name;
    fi.name.size = strlen(defs[i].name);
    fi.doc.data = "";
    fi.metadata.data = "";
    fi.flags = defs[i].flags | kTVMFFIFieldFlagBitMaskWritable;
    fi.size = defs[i].size;
    fi.alignment = defs[i].size >= 8 ? 8 : defs[i].size;
    fi.offset = (int64_t)defs[i].offset;
    fi.field_static_type_index = defs[i].static_type_index;
    fi.default_value_or_factory = tvm_ffi_any_none();
    if (set_accessors(&fi) != 0) return -1;
    if (TVMFFITypeRegisterField(type_index, &fi) != 0) return -1;
  }
  return 0;
}

/* (Re)build the cached field list of e under the lock. Out of line: it keeps the fast path of
 * tvm_ffi_type_all_fields free of the lock and of register saves. */
static __attribute__((noinline)) int32_t
all_fields_slow(tvm_ffi_type_entry* e, const TVMFFIFieldInfo* const** out_fields) {
  *out_fields = NULL;
  lock_registry();
  if (e->all_fields_version != g_fields_version) {
    int32_t n = e->info.num_fields;
    for (int32_t d = 0; d < e->info.type_depth; ++d) n += e->info.type_ancestors[d]->num_fields;
    const TVMFFIFieldInfo** all =
        n ? (const TVMFFIFieldInfo**)tvm_ffi_malloc((size_t)n * sizeof(void*)) : NULL;
    if (n && !all) {
      unlock_registry();
      return 0;
    }
    int32_t k = 0;
    for (int32_t d = 0; d < e->info.type_depth; ++d) {
      const TVMFFITypeInfo* a = e->info.type_ancestors[d];
      for (int32_t i = 0; i < a->num_fields; ++i) all[k++] = &a->fields[i];
    }
    for (int32_t i = 0; i < e->info.num_fields; ++i) all[k++] = &e->info.fields[i];
    /* A reader may still hold the old list: keep it, reachable, for the process's life. */
    if (e->all_fields) retire_locked(e->all_fields);
    e->all_fields = all;
    e->num_all_fields = n;
    __atomic_store_n(&e->all_fields_version, g_fields_version, __ATOMIC_RELEASE);
  }
  *out_fields = e->all_fields;
  int32_t n = e->num_all_fields;
  unlock_registry();
  return n;
}

int32_t tvm_ffi_type_all_fields(int32_t type_index, const TVMFFIFieldInfo* const** out_fields) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(type_index);
  if (!e) {
    *out_fields = NULL;
    return 0;
  }
  int32_t version = __atomic_load_n(&g_fields_version, __ATOMIC_ACQUIRE);
  if (__atomic_load_n(&e->all_fields_version, __ATOMIC_ACQUIRE) == version) {
    *out_fields = e->all_fields;
    return e->num_all_fields;
  }
  return all_fields_slow(e, out_fields);
}

const TVMFFIFieldInfo* tvm_ffi_type_find_field(int32_t type_index, const char* name) {
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(type_index, &fields);
  size_t len = strlen(name);
  for (int32_t i = n - 1; i >= 0; --i) {
    if (fields[i]->name.size == len && memcmp(fields[i]->name.data, name, len) == 0) {
      return fields[i];
    }
  }
  return NULL;
}

int tvm_ffi_field_get(const void* obj, const TVMFFIFieldInfo* field, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (!field->getter) {
    return tvm_ffi_raise("AttributeError", "field `%s` has no getter", field->name.data);
  }
  return field->getter((char*)obj + field->offset, out);
}

int tvm_ffi_field_set(void* obj, const TVMFFIFieldInfo* field, const TVMFFIAny* value) {
  int32_t t = field->field_static_type_index;
  if (t >= kTVMFFIStaticObjectBegin && t != kTVMFFIObject && field->size == (int64_t)sizeof(void*) &&
      value->type_index >= kTVMFFIStaticObjectBegin && !tvm_ffi_instance_of(value->v_obj, t)) {
    return tvm_ffi_raise("TypeError", "field `%s` expects %s, got %s", field->name.data,
                         tvm_ffi_type_key(t), tvm_ffi_any_type_name(value));
  }
  if (!field->setter) {
    return tvm_ffi_raise("AttributeError", "field `%s` has no setter", field->name.data);
  }
  if (field->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny args[2] = {tvm_ffi_any_ptr((char*)obj + field->offset), *value};
    TVMFFIAny r;
    int rc = tvm_ffi_function_call(field->setter, args, 2, &r);
    tvm_ffi_any_release(&r);
    return rc;
  }
  return ((TVMFFIFieldSetter)field->setter)((char*)obj + field->offset, value);
}

/* Append the offsets of t's object fields (any: of its Any fields), in registration order, to
 * p->offsets. Exactly the fields the reflected accessors manage as references: an Any field
 * (get_any) is released, an object field (get_obj) released and cleared; fields of other
 * storage own nothing. Offsets fit in 32 bits: they lie within a registered object size. */
static void plan_add_fields(tvm_ffi_release_plan* p, const TVMFFITypeInfo* t, bool any) {
  for (int32_t i = 0; i < t->num_fields; ++i) {
    const TVMFFIFieldInfo* f = &t->fields[i];
    if (any ? f->getter == get_any : f->getter == get_obj) {
      p->offsets[p->count++] = (uint32_t)f->offset;
    }
  }
}

const tvm_ffi_release_plan* tvm_ffi__build_release_plan(tvm_ffi_type_entry* e) {
  /* Under the lock, which field registration (the plan's invalidation) also holds; when this
   * thread holds it already, nothing can change the fields meanwhile. */
  bool reentered = t_holds_lock;
  if (!reentered) lock_registry();
  tvm_ffi_release_plan* p = e->release_plan;
  if (!p) {
    int32_t n = e->info.num_fields;
    for (int32_t d = 0; d < e->info.type_depth; ++d) n += e->info.type_ancestors[d]->num_fields;
    p = (tvm_ffi_release_plan*)tvm_ffi_malloc(sizeof(tvm_ffi_release_plan) +
                                             (size_t)n * sizeof(uint32_t));
    if (p) {
      /* Outermost ancestor first, as tvm_ffi_type_all_fields orders the fields; object fields,
       * then Any fields. */
      p->count = 0;
      for (int any = 0; any < 2; ++any) {
        for (int32_t d = 0; d < e->info.type_depth; ++d) {
          plan_add_fields(p, e->info.type_ancestors[d], any);
        }
        plan_add_fields(p, &e->info, any);
        if (!any) p->num_obj = p->count;
      }
      __atomic_store_n(&e->release_plan, p, __ATOMIC_RELEASE);
    }
  }
  if (p && !e->destroy) __atomic_store_n(&tvm_ffi__plans[e->info.type_index], p, __ATOMIC_RELEASE);
  if (!reentered) unlock_registry();
  return p;
}

/* ---- Built-in keys ---------------------------------------------------------------------- */
void tvm_ffi__init_types(void) {
  static const char* pod_keys[] = {"None",        "int",
                                   "bool",        "float",
                                   "void*",       "DataType",
                                   "Device",      "DLTensor*",
                                   "const char*", "TVMFFIByteArray*",
                                   "ObjectRValueRef", "ffi.SmallStr",
                                   "ffi.SmallBytes"};
  for (int32_t i = 0; i < (int32_t)(sizeof(pod_keys) / sizeof(pod_keys[0])); ++i) {
    TVMFFIByteArray k = {pod_keys[i], strlen(pod_keys[i])};
    TVMFFITypeGetOrAllocIndex(&k, i, 0, 0, 0, -1);
  }
  TVMFFIByteArray obj = {"ffi.Object", 10};
  TVMFFITypeGetOrAllocIndex(&obj, kTVMFFIObject, 0, 0, 1, -1);
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(kTVMFFIObject);
  e->object_size = sizeof(TVMFFIObject);
  e->metadata.total_size = sizeof(TVMFFIObject);
  e->metadata.structural_eq_hash_kind = kTVMFFISEqHashKindTreeNode;
  e->info.metadata = &e->metadata;
}

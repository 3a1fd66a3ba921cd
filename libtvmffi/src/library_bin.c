/*
 * library_bin.c: the __tvm_ffi__library_bin layout, read and written.
 *
 * All integers are u64 little-endian; vec = u64 count + that many u64; str = u64 length + bytes.
 *
 *   <nbytes: u64>                       length of what follows
 *   <indptr: vec> <child_indices: vec>  the import tree in CSR form: module i imports
 *                                       modules[child_indices[j]], j in [indptr[i], indptr[i+1])
 *   then for each of the len(indptr) - 1 modules, in order:
 *     <kind: str>                       "_lib": the library's own module, nothing follows;
 *     <bytes: str>                      otherwise: the payload for the global
 *                                       ffi.Module.load_from_bytes.<kind>(Bytes) -> Module
 *   modules[0] is the root.
 *
 * The reader trusts nothing: every count, length and index is checked against the bytes that
 * are really there (the symbol's size when known, else the nbytes prefix), the import graph
 * must be acyclic, and every problem is a RuntimeError "corrupted __tvm_ffi__library_bin: ...".
 */
#include <string.h>

#include "module_internal.h"

#define CORRUPTED "corrupted " TVM_FFI_SYMBOL_LIBRARY_BIN ": "

/* ---- Reading ---------------------------------------------------------------------------- */

typedef struct {
  const uint8_t* p;
  size_t left;
} reader;

static uint64_t load_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

static bool read_u64(reader* r, uint64_t* out) {
  if (r->left < 8) return false;
  *out = load_u64(r->p);
  r->p += 8;
  r->left -= 8;
  return true;
}

/* A vec<u64>: *out is malloc'ed (NULL + error raised on failure). */
static int read_vec(reader* r, const char* what, uint64_t** out, uint64_t* count) {
  *out = NULL;
  if (!read_u64(r, count)) {
    return tvm_ffi_raise("RuntimeError", CORRUPTED "truncated before the length of %s", what);
  }
  if (*count > r->left / 8) {
    return tvm_ffi_raise("RuntimeError",
                         CORRUPTED "%s claims %llu entries but only %zu bytes remain", what,
                         (unsigned long long)*count, r->left);
  }
  *out = (uint64_t*)tvm_ffi_malloc(*count ? (size_t)*count * 8 : 1);
  if (!*out) return -1;
  for (uint64_t i = 0; i < *count; ++i) read_u64(r, &(*out)[i]);
  return 0;
}

/* A str: a view into the blob. */
static int read_str(reader* r, uint64_t module, const char* what, TVMFFIByteArray* out) {
  uint64_t n;
  if (!read_u64(r, &n)) {
    return tvm_ffi_raise("RuntimeError", CORRUPTED "truncated before the %s length of module %llu",
                         what, (unsigned long long)module);
  }
  if (n > r->left) {
    return tvm_ffi_raise("RuntimeError",
                         CORRUPTED "the %s of module %llu claims %llu bytes but only %zu remain",
                         what, (unsigned long long)module, (unsigned long long)n, r->left);
  }
  out->data = (const char*)r->p;
  out->size = (size_t)n;
  r->p += n;
  r->left -= (size_t)n;
  return 0;
}

/* Check the CSR import tree: monotone indptr within the child list, indices in range, and no
 * cycle (iterative depth-first search with three colours). */
static int check_tree(const uint64_t* indptr, uint64_t num_modules, const uint64_t* child,
                      uint64_t num_child) {
  for (uint64_t i = 0; i < num_modules; ++i) {
    if (indptr[i] > indptr[i + 1]) {
      return tvm_ffi_raise("RuntimeError", CORRUPTED "indptr is not monotone at %llu (%llu > %llu)",
                           (unsigned long long)i, (unsigned long long)indptr[i],
                           (unsigned long long)indptr[i + 1]);
    }
  }
  if (indptr[num_modules] > num_child) {
    return tvm_ffi_raise("RuntimeError",
                         CORRUPTED "indptr ends at %llu but there are only %llu child indices",
                         (unsigned long long)indptr[num_modules], (unsigned long long)num_child);
  }
  for (uint64_t j = indptr[0]; j < indptr[num_modules]; ++j) {
    if (child[j] >= num_modules) {
      return tvm_ffi_raise("RuntimeError", CORRUPTED "child index %llu out of range (%llu modules)",
                           (unsigned long long)child[j], (unsigned long long)num_modules);
    }
  }
  /* colour: 0 unvisited, 1 on the stack, 2 done; next[i]: the next edge of i to follow. */
  uint8_t* colour = (uint8_t*)tvm_ffi_calloc((size_t)num_modules, 1);
  uint64_t* next = (uint64_t*)tvm_ffi_malloc((size_t)num_modules * 8);
  uint64_t* stack = (uint64_t*)tvm_ffi_malloc((size_t)num_modules * 8);
  int rc = colour && next && stack ? 0 : -1;
  for (uint64_t s = 0; rc == 0 && s < num_modules; ++s) {
    if (colour[s]) continue;
    uint64_t depth = 0;
    stack[depth++] = s;
    colour[s] = 1;
    next[s] = indptr[s];
    while (rc == 0 && depth) {
      uint64_t u = stack[depth - 1];
      if (next[u] == indptr[u + 1]) {
        colour[u] = 2;
        --depth;
        continue;
      }
      uint64_t v = child[next[u]++];
      if (colour[v] == 1) {
        rc = tvm_ffi_raise("RuntimeError", CORRUPTED "import cycle through module %llu",
                           (unsigned long long)v);
      } else if (colour[v] == 0) {
        colour[v] = 1;
        next[v] = indptr[v];
        stack[depth++] = v;
      }
    }
  }
  tvm_ffi_free(colour);
  tvm_ffi_free(next);
  tvm_ffi_free(stack);
  return rc;
}

/* ffi.Module.load_from_bytes.<kind>(payload) */
static void* load_from_bytes(TVMFFIByteArray kind, TVMFFIByteArray payload) {
  tvm_ffi_strbuf name = {0};
  tvm_ffi_strbuf_puts(&name, "ffi.Module.load_from_bytes.");
  tvm_ffi_strbuf_append(&name, kind.data, kind.size);
  if (name.failed) {
    tvm_ffi_strbuf_free(&name);
    return NULL;
  }
  void* mod = NULL;
  void* loader = memchr(kind.data, '\0', kind.size) ? NULL : tvm_ffi_global_get(name.data);
  if (!loader) {
    tvm_ffi_raise("RuntimeError",
                  "Library binary was created using {%.*s} but a loader of that name is not "
                  "registered: no global function %s",
                  (int)kind.size, kind.data, name.data);
  } else {
    TVMFFIAny arg = tvm_ffi_bytes_n(payload.data, payload.size);
    TVMFFIAny result;
    if (tvm_ffi_any_is_none(&arg)) {
      /* out of memory, raised */
    } else if (tvm_ffi_function_call(loader, &arg, 1, &result) != 0) {
      tvm_ffi_raise_context("%s", name.data);
    } else if (!(mod = tvm_ffi_any_as_object(&result, kTVMFFIModule))) {
      tvm_ffi_raise("TypeError", "%s returned %s, not a Module", name.data,
                    tvm_ffi_any_type_name(&result));
      tvm_ffi_any_release(&result);
    }
    tvm_ffi_any_release(&arg);
    tvm_ffi_release(loader);
  }
  tvm_ffi_strbuf_free(&name);
  return mod;
}

void* tvm_ffi__library_bin_load(const uint8_t* data, size_t avail, void* (*make_lib)(void*),
                                void* lib_ctx) {
  if (!data) {
    tvm_ffi_raise("ValueError", "library binary: data is NULL");
    return NULL;
  }
  if (avail < 8) {
    tvm_ffi_raise("RuntimeError", CORRUPTED "%zu bytes cannot hold the u64 length prefix", avail);
    return NULL;
  }
  uint64_t nbytes = load_u64(data);
  if (nbytes > avail - 8) {
    tvm_ffi_raise("RuntimeError", CORRUPTED "the length prefix says %llu bytes but only %zu follow",
                  (unsigned long long)nbytes, avail - 8);
    return NULL;
  }
  reader r = {data + 8, (size_t)nbytes};
  uint64_t *indptr = NULL, *child = NULL, num_indptr = 0, num_child = 0, num_modules = 0;
  void** modules = NULL;
  void* root = NULL;
  int rc = read_vec(&r, "indptr", &indptr, &num_indptr);
  if (rc == 0) rc = read_vec(&r, "child_indices", &child, &num_child);
  if (rc == 0 && num_indptr < 2) {
    rc = tvm_ffi_raise("RuntimeError", CORRUPTED "indptr has %llu entries, so there is no module",
                       (unsigned long long)num_indptr);
  }
  if (rc == 0) {
    num_modules = num_indptr - 1;
    rc = check_tree(indptr, num_modules, child, num_child);
  }
  if (rc == 0) {
    modules = (void**)tvm_ffi_calloc((size_t)num_modules, sizeof(void*));
    rc = modules ? 0 : -1;
  }
  for (uint64_t i = 0; rc == 0 && i < num_modules; ++i) {
    TVMFFIByteArray kind, payload;
    rc = read_str(&r, i, "kind", &kind);
    if (rc != 0) break;
    if (kind.size == 4 && memcmp(kind.data, "_lib", 4) == 0) {
      if (!make_lib) {
        rc = tvm_ffi_raise("RuntimeError",
                           CORRUPTED "module %llu is `_lib` but no library is being loaded",
                           (unsigned long long)i);
      } else {
        modules[i] = make_lib(lib_ctx);
        rc = modules[i] ? 0 : -1;
      }
    } else {
      rc = read_str(&r, i, "payload", &payload);
      if (rc == 0) {
        modules[i] = load_from_bytes(kind, payload);
        rc = modules[i] ? 0 : -1;
      }
    }
  }
  for (uint64_t i = 0; rc == 0 && i < num_modules; ++i) {
    for (uint64_t j = indptr[i]; rc == 0 && j < indptr[i + 1]; ++j) {
      rc = tvm_ffi_module_import(modules[i], modules[child[j]]);
    }
  }
  if (rc == 0) {
    root = modules[0];
    tvm_ffi_retain(root);
  }
  for (uint64_t i = 0; modules && i < num_modules; ++i) tvm_ffi_release(modules[i]);
  tvm_ffi_free(modules);
  tvm_ffi_free(indptr);
  tvm_ffi_free(child);
  return root;
}

void* tvm_ffi_module_from_library_bin(const void* data, size_t size) {
  tvm_ffi_init();
  return tvm_ffi__library_bin_load((const uint8_t*)data, size, NULL, NULL);
}

/* ---- Writing ---------------------------------------------------------------------------- */

static void put_u64(tvm_ffi_strbuf* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = (char)(v >> (8 * i));
  tvm_ffi_strbuf_append(out, b, 8);
}

static void put_str(tvm_ffi_strbuf* out, const char* data, size_t n) {
  put_u64(out, n);
  tvm_ffi_strbuf_append(out, data, n);
}

/* The distinct modules reachable from the root, root first (breadth first). */
typedef struct {
  void** mods;
  size_t size, cap;
} mod_list;

static int64_t mod_list_find(const mod_list* l, const void* m) {
  for (size_t i = 0; i < l->size; ++i) {
    if (l->mods[i] == m) return (int64_t)i;
  }
  return -1;
}

static int mod_list_add(mod_list* l, void* m) {
  if (mod_list_find(l, m) >= 0) return 0;
  if (l->size == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 8;
    void** d = (void**)tvm_ffi_realloc(l->mods, cap * sizeof(void*));
    if (!d) return -1;
    l->mods = d;
    l->cap = cap;
  }
  l->mods[l->size++] = m;
  return 0;
}

int tvm_ffi_module_pack_library_bin(void* root, tvm_ffi_strbuf* out) {
  if (!out) return tvm_ffi_raise("ValueError", "tvm_ffi_module_pack_library_bin: out is NULL");
  if (!root || !tvm_ffi_instance_of(root, kTVMFFIModule)) {
    return tvm_ffi_raise("TypeError",
                         "tvm_ffi_module_pack_library_bin: expected ffi.Module but got %s",
                         root ? tvm_ffi_type_key(tvm_ffi_type_index(root)) : "NULL");
  }
  mod_list l = {0};
  int rc = mod_list_add(&l, root);
  for (size_t i = 0; rc == 0 && i < l.size; ++i) {
    void* imports = ((tvm_ffi_module_obj*)l.mods[i])->imports;
    for (int64_t k = 0; rc == 0 && k < tvm_ffi_seq_size(imports); ++k) {
      rc = mod_list_add(&l, tvm_ffi_seq_obj_at(imports, k));
    }
  }
  tvm_ffi_strbuf body = {0};
  if (rc == 0) {
    /* indptr, then child indices */
    put_u64(&body, l.size + 1);
    uint64_t edges = 0;
    put_u64(&body, 0);
    for (size_t i = 0; i < l.size; ++i) {
      edges += (uint64_t)tvm_ffi_seq_size(((tvm_ffi_module_obj*)l.mods[i])->imports);
      put_u64(&body, edges);
    }
    put_u64(&body, edges);
    for (size_t i = 0; i < l.size; ++i) {
      void* imports = ((tvm_ffi_module_obj*)l.mods[i])->imports;
      for (int64_t k = 0; k < tvm_ffi_seq_size(imports); ++k) {
        put_u64(&body, (uint64_t)mod_list_find(&l, tvm_ffi_seq_obj_at(imports, k)));
      }
    }
  }
  for (size_t i = 0; rc == 0 && i < l.size; ++i) {
    tvm_ffi_module_obj* m = (tvm_ffi_module_obj*)l.mods[i];
    if (tvm_ffi__module_is_library(m) ||
        (m->vtable->property_mask & TVM_FFI_MODULE_COMPILATION_EXPORTABLE)) {
      put_str(&body, "_lib", 4); /* compiled into the library that embeds this blob */
      continue;
    }
    if (!m->vtable->save_to_bytes) {
      rc =
          tvm_ffi_raise("RuntimeError", "Module[%s] does not support SaveToBytes", m->vtable->kind);
      break;
    }
    TVMFFIAny bytes = tvm_ffi_any_none();
    TVMFFIByteArray b;
    rc = m->vtable->save_to_bytes(m, &bytes);
    if (rc == 0 && !tvm_ffi_any_as_bytes(&bytes, &b)) {
      rc = tvm_ffi_raise("TypeError", "Module[%s].save_to_bytes returned %s, not bytes",
                         m->vtable->kind, tvm_ffi_any_type_name(&bytes));
    }
    if (rc == 0) {
      put_str(&body, m->vtable->kind, strlen(m->vtable->kind));
      put_str(&body, b.data, b.size);
    }
    tvm_ffi_any_release(&bytes);
  }
  if (rc == 0 && body.failed) rc = -1;
  if (rc == 0) {
    put_u64(out, body.size);
    tvm_ffi_strbuf_append(out, body.data ? body.data : "", body.size);
    if (out->failed) rc = -1;
  }
  tvm_ffi_strbuf_free(&body);
  tvm_ffi_free(l.mods);
  return rc;
}

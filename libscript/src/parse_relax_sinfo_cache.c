/*
 * parse_relax_sinfo_cache.c: the parse's table of closed struct-info annotations.
 *
 * A program's annotations repeat: a model's tensors have few shapes, and every parameter,
 * return and binding written `R.Tensor((32, 32), "float32")` would otherwise evaluate the call
 * again and build a new ShapeExpr, its struct info and the tensor's. An annotation is closed
 * when it is made only of the Relax module's struct-info constructors with literal arguments:
 * no name but the module's alias, no string dim (which declares a symbolic variable), no value
 * or device (which name variables or the module's devices). A closed annotation means the same
 * struct info wherever it is written, so the first evaluation is kept under the annotation's
 * source text, and later ones of the same text take that object (struct info is immutable;
 * expressions share it in upstream's IR as well).
 */
#include <string.h>

#include "parse_eval.h"
#include "script_relax_internal.h"

struct script_sinfo_cache {
  struct script_sinfo_entry {
    const char* text; /* the annotation's source text (a view of the source) */
    uint32_t size;
    uint32_t hash;
    tvm_relax_sinfo_obj* sinfo; /* owned; NULL: a free slot */
  } * slots;
  uint32_t cap; /* a power of two */
  uint32_t count;
};
typedef struct script_sinfo_entry cache_entry;

/* ---- Closed annotations ---------------------------------------------------------------------- */
static bool is_int(const ast_expr* e) {
  return e->kind == AST_CONST && e->u.value.type_index == kTVMFFIInt;
}
static bool is_str(const ast_expr* e) { return e->kind == AST_STR; }
/* A tuple or list of integer literals: static dims. */
static bool is_int_dims(const ast_expr* e) {
  if (e->kind != AST_TUPLE && e->kind != AST_LIST) return false;
  for (int32_t i = 0; i < e->u.elts.n; ++i) {
    if (!is_int(e->u.elts.items[i])) return false;
  }
  return true;
}

/* The constructor e names, `R.<ctor>` through an alias of the Relax module; "" when none. */
static const char* relax_ctor(script_parser* p, const ast_expr* e, char* buf, size_t size) {
  size_t n = 0;
  if (e->kind != AST_ATTR) return "";
  const script_special* mod = tvm_script__dotted(p, e, buf, size, &n);
  return mod && strcmp(mod->name, "relax") == 0 ? buf : "";
}

/* The keyword arguments of call c are among names (NULL-terminated), each with a value that
 * ok_value accepts for its index in names. */
static bool keywords_ok(const ast_expr* c, const char* const* names,
                        bool (*const* ok_value)(const ast_expr*)) {
  for (int32_t i = 0; i < c->u.call.kw_values.n; ++i) {
    const char* kw = c->u.call.kw_names[i]->text;
    int32_t j = 0;
    while (names[j] && strcmp(names[j], kw) != 0) ++j;
    if (!names[j] || !ok_value[j](c->u.call.kw_values.items[i])) return false;
  }
  return true;
}

static bool is_closed(script_parser* p, const ast_expr* e, int depth);

static bool closed_call(script_parser* p, const ast_expr* c, const char* ctor, int depth) {
  const ast_exprs* args = &c->u.call.args;
  if (strcmp(ctor, "Tensor") == 0) {
    /* R.Tensor(shape, dtype) / R.Tensor(dtype); shape=, dtype=, ndim= (not vdevice) */
    static const char* const names[] = {"shape", "dtype", "ndim", NULL};
    static bool (*const ok[])(const ast_expr*) = {is_int_dims, is_str, is_int};
    if (args->n > 2) return false;
    if (args->n >= 1 && !is_int_dims(args->items[0]) && !is_str(args->items[0])) return false;
    if (args->n == 2 && !is_str(args->items[1])) return false;
    return keywords_ok(c, names, ok);
  }
  if (strcmp(ctor, "Shape") == 0) {
    static const char* const names[] = {"values", "ndim", NULL};
    static bool (*const ok[])(const ast_expr*) = {is_int_dims, is_int};
    if (args->n > 1 || (args->n == 1 && !is_int_dims(args->items[0]))) return false;
    return keywords_ok(c, names, ok);
  }
  if (strcmp(ctor, "Prim") == 0) { /* a dtype only (a value names a variable or a constant) */
    static const char* const names[] = {"dtype", NULL};
    static bool (*const ok[])(const ast_expr*) = {is_str};
    if (args->n > 1 || (args->n == 1 && !is_str(args->items[0]))) return false;
    return keywords_ok(c, names, ok);
  }
  if (strcmp(ctor, "Tuple") == 0 && c->u.call.kw_values.n == 0) {
    for (int32_t i = 0; i < args->n; ++i) {
      if (!is_closed(p, args->items[i], depth + 1)) return false;
    }
    return true;
  }
  if (strcmp(ctor, "Object") == 0) return args->n == 0 && c->u.call.kw_values.n == 0;
  return false;
}

/* Whether annotation e is closed (see the top of the file). */
static bool is_closed(script_parser* p, const ast_expr* e, int depth) {
  if (depth > 8) return false;
  char buf[16];
  if (e->kind == AST_ATTR) { /* written without a call: R.Tensor, R.Object, ... */
    const char* ctor = relax_ctor(p, e, buf, sizeof(buf));
    return strcmp(ctor, "Tensor") == 0 || strcmp(ctor, "Object") == 0 ||
           strcmp(ctor, "Shape") == 0 || strcmp(ctor, "Any") == 0;
  }
  if (e->kind != AST_CALL) return false;
  const char* ctor = relax_ctor(p, e->u.call.func, buf, sizeof(buf));
  return *ctor && closed_call(p, e, ctor, depth);
}

/* ---- The table ------------------------------------------------------------------------------- */
/* The hash of the text s[0, n): its 8-byte words mixed in turn. */
static uint32_t text_hash(const char* s, size_t n) {
  uint64_t h = n * UINT64_C(0x9E3779B97F4A7C15);
  for (; n >= 8; s += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * UINT64_C(0xC2B2AE3D27D4EB4F);
    h ^= h >> 29;
  }
  uint64_t w = 0;
  memcpy(&w, s, n);
  h = (h ^ w) * UINT64_C(0xC2B2AE3D27D4EB4F);
  return (uint32_t)(h >> 32);
}

/* The slot of text (the entry holding it, or the free slot where it goes). */
static cache_entry* slot_of(const struct script_sinfo_cache* c, const char* text, uint32_t size,
                            uint32_t hash) {
  for (uint32_t i = hash & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
    cache_entry* e = &c->slots[i];
    if (!e->sinfo) return e;
    if (e->hash == hash && e->size == size && memcmp(e->text, text, size) == 0) return e;
  }
}

void* tvm_script__sinfo_cache_get(script_parser* p, const ast_expr* ann, bool* closed) {
  *closed = is_closed(p, ann, 0);
  const struct script_sinfo_cache* c = p->sinfo_cache;
  if (!*closed || !c) return NULL;
  const char* text = p->src + ann->span.start_byte;
  uint32_t size = (uint32_t)(ann->span.end_byte - ann->span.start_byte);
  cache_entry* e = slot_of(c, text, size, text_hash(text, size));
  if (e->sinfo) tvm_ffi_retain(e->sinfo);
  return e->sinfo;
}

/* Twice the slots (or the first 64). false when out of memory. */
static bool cache_grow(struct script_sinfo_cache* c) {
  uint32_t cap = c->cap ? 2 * c->cap : 64;
  cache_entry* slots = tvm_ffi_calloc(cap, sizeof(cache_entry));
  if (!slots) return false;
  struct script_sinfo_cache grown = {slots, cap, c->count};
  for (uint32_t i = 0; i < c->cap; ++i) {
    const cache_entry* e = &c->slots[i];
    if (e->sinfo) *slot_of(&grown, e->text, e->size, e->hash) = *e;
  }
  tvm_ffi_free(c->slots);
  *c = grown;
  return true;
}

void tvm_script__sinfo_cache_put(script_parser* p, const ast_expr* ann, void* s) {
  struct script_sinfo_cache* c = p->sinfo_cache;
  if (!c && !(c = p->sinfo_cache = tvm_ffi_calloc(1, sizeof(*c)))) return;
  if (2 * (c->count + 1) > c->cap && !cache_grow(c)) return; /* (out of memory: not kept) */
  const char* text = p->src + ann->span.start_byte;
  uint32_t size = (uint32_t)(ann->span.end_byte - ann->span.start_byte);
  uint32_t hash = text_hash(text, size);
  cache_entry* e = slot_of(c, text, size, hash);
  if (e->sinfo) return;
  tvm_ffi_retain(s);
  *e = (cache_entry){text, size, hash, s};
  ++c->count;
}

void tvm_script__sinfo_cache_free(script_parser* p) {
  struct script_sinfo_cache* c = p->sinfo_cache;
  if (!c) return;
  for (uint32_t i = 0; i < c->cap; ++i) tvm_ffi_release(c->slots[i].sinfo);
  tvm_ffi_free(c->slots);
  tvm_ffi_free(c);
  p->sinfo_cache = NULL;
}

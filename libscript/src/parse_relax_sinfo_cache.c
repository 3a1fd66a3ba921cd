/*
 * parse_relax_sinfo_cache.c: the evaluation of Relax struct-info annotations, with the parse's
 * table of closed ones.
 *
 * A program's annotations repeat: a model's tensors have few shapes, and every parameter,
 * return and binding written `R.Tensor((n, 4), "float32")` would otherwise evaluate the call
 * again and build a new ShapeExpr, its struct info and the tensor's. An annotation is closed
 * when its struct info is determined by its text and by the TIR variables its names are bound
 * to: it is made only of the Relax module's struct-info constructors with dims that are integer
 * literals, names of TIR variables and arithmetic on them, and literal dtypes (no string dim,
 * which declares a symbolic variable, and no value or device, which name variables or the
 * module's devices). The first evaluation of a closed annotation is kept under its source text
 * and those variables, and a later annotation with the same text whose names are bound to the
 * same variables takes that object (struct info is immutable; expressions share it in
 * upstream's IR as well).
 */
#include <string.h>

#include "parse_eval.h"
#include "script_relax_internal.h"

/* The TIR variables an annotation's names are bound to, in the order they are written. */
enum { MAX_VARS = 8 };
typedef struct {
  const void* v[MAX_VARS];
  int32_t n;
} ann_vars;

/* A kept annotation: its key (text, hash, and its variables: cache->vars[vars_at, + nvars)) and
 * its struct info. */
struct script_sinfo_entry {
  const char* text; /* the annotation's source text (a view of the source) */
  uint32_t size;
  uint32_t hash;
  tvm_relax_sinfo_obj* sinfo; /* owned (it holds the variables too); NULL: a free slot */
  uint32_t vars_at, nvars;
};
typedef struct script_sinfo_entry cache_entry;

/* ---- Closed annotations ---------------------------------------------------------------------- */
typedef bool (*arg_rule)(script_parser* p, const ast_expr* e, ann_vars* vars);

static bool name_eq(const script_name* n, const char* lit, size_t len) {
  return n->size == len && memcmp(n->text, lit, len) == 0;
}
#define NAME_IS(n, lit) name_eq((n), lit, sizeof(lit) - 1)

static bool is_int(script_parser* p, const ast_expr* e, ann_vars* vars) {
  (void)p, (void)vars;
  return e->kind == AST_CONST && e->u.value.type_index == kTVMFFIInt;
}
static bool is_str(script_parser* p, const ast_expr* e, ann_vars* vars) {
  (void)p, (void)vars;
  return e->kind == AST_STR;
}
/* A dim: an integer literal, a name bound to a TIR variable, arithmetic on dims. */
static bool is_dim(script_parser* p, const ast_expr* e, ann_vars* vars, int depth) {
  if (e->kind == AST_NAME) {
    const TVMFFIAny* v = script__vt_lookup(&p->vt, e->u.name);
    if (!v || !tvm_ffi_any_is_object(v) || !tvm_tir_is_var(v->v_obj) || vars->n == MAX_VARS) {
      return false;
    }
    vars->v[vars->n++] = v->v_obj;
    return true;
  }
  if (e->kind == AST_OP && depth < 8) {
    int32_t op = e->u.op.op;
    return (op == TVM_SCRIPT_OP_Add || op == TVM_SCRIPT_OP_Sub || op == TVM_SCRIPT_OP_Mult ||
            op == TVM_SCRIPT_OP_FloorDiv || op == TVM_SCRIPT_OP_Mod) &&
           is_dim(p, e->u.op.args[0], vars, depth + 1) &&
           is_dim(p, e->u.op.args[1], vars, depth + 1);
  }
  return is_int(p, e, vars);
}
/* A tuple or list of dims. */
static bool is_dims(script_parser* p, const ast_expr* e, ann_vars* vars) {
  if (e->kind != AST_TUPLE && e->kind != AST_LIST) return false;
  for (int32_t i = 0; i < e->u.elts.n; ++i) {
    if (!is_dim(p, e->u.elts.items[i], vars, 0)) return false;
  }
  return true;
}

/* The constructor e names as `<alias>.<ctor>` with alias the Relax module there, or NULL. */
static const script_name* relax_ctor(script_parser* p, const ast_expr* e) {
  if (e->kind != AST_ATTR || e->u.attr.value->kind != AST_NAME) return NULL;
  return tvm_script__is_relax_alias(p, e->u.attr.value->u.name) ? e->u.attr.name : NULL;
}

/* The keyword arguments of call c are among names (NULL-terminated), each with a value that
 * the rule of its index in names accepts. */
static bool keywords_ok(script_parser* p, const ast_expr* c, const char* const* names,
                        const arg_rule* rules, ann_vars* vars) {
  for (int32_t i = 0; i < c->u.call.kw_values.n; ++i) {
    const script_name* kw = c->u.call.kw_names[i];
    int32_t j = 0;
    while (names[j] && !name_eq(kw, names[j], strlen(names[j]))) ++j;
    if (!names[j] || !rules[j](p, c->u.call.kw_values.items[i], vars)) return false;
  }
  return true;
}

static bool is_closed(script_parser* p, const ast_expr* e, ann_vars* vars, int depth);

static bool closed_call(script_parser* p, const ast_expr* c, const script_name* ctor,
                        ann_vars* vars, int depth) {
  const ast_exprs* args = &c->u.call.args;
  if (NAME_IS(ctor, "Tensor")) {
    /* R.Tensor(shape, dtype) / R.Tensor(dtype); shape=, dtype=, ndim= (not vdevice) */
    static const char* const names[] = {"shape", "dtype", "ndim", NULL};
    static const arg_rule rules[] = {is_dims, is_str, is_int};
    if (args->n > 2) return false;
    if (args->n >= 1 && !is_dims(p, args->items[0], vars) && !is_str(p, args->items[0], vars)) {
      return false;
    }
    if (args->n == 2 && !is_str(p, args->items[1], vars)) return false;
    return keywords_ok(p, c, names, rules, vars);
  }
  if (NAME_IS(ctor, "Shape")) {
    static const char* const names[] = {"values", "ndim", NULL};
    static const arg_rule rules[] = {is_dims, is_int};
    if (args->n > 1 || (args->n == 1 && !is_dims(p, args->items[0], vars))) return false;
    return keywords_ok(p, c, names, rules, vars);
  }
  if (NAME_IS(ctor, "Prim")) { /* a dtype only (a value names a variable or a constant) */
    static const char* const names[] = {"dtype", NULL};
    static const arg_rule rules[] = {is_str};
    if (args->n > 1 || (args->n == 1 && !is_str(p, args->items[0], vars))) return false;
    return keywords_ok(p, c, names, rules, vars);
  }
  if (NAME_IS(ctor, "Tuple") && c->u.call.kw_values.n == 0) {
    for (int32_t i = 0; i < args->n; ++i) {
      if (!is_closed(p, args->items[i], vars, depth + 1)) return false;
    }
    return true;
  }
  if (NAME_IS(ctor, "Object")) return args->n == 0 && c->u.call.kw_values.n == 0;
  return false;
}

/* Whether annotation e is closed (see the top of the file), with the variables it names. */
static bool is_closed(script_parser* p, const ast_expr* e, ann_vars* vars, int depth) {
  if (depth > 8) return false;
  if (e->kind == AST_ATTR) { /* written without a call: R.Tensor, R.Object, ... */
    const script_name* ctor = relax_ctor(p, e);
    return ctor && (NAME_IS(ctor, "Tensor") || NAME_IS(ctor, "Object") || NAME_IS(ctor, "Shape") ||
                    NAME_IS(ctor, "Any"));
  }
  if (e->kind != AST_CALL) return false;
  const script_name* ctor = relax_ctor(p, e->u.call.func);
  return ctor && closed_call(p, e, ctor, vars, depth);
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

/* The key of an annotation: its text and the variables its names are bound to. */
typedef struct {
  const char* text;
  uint32_t size;
  uint32_t hash;
  const ann_vars* vars;
} ann_key;

static ann_key key_of(const script_parser* p, const ast_expr* ann, const ann_vars* vars) {
  ann_key k = {p->src + ann->span.start_byte, (uint32_t)(ann->span.end_byte - ann->span.start_byte),
               0, vars};
  uint64_t h = text_hash(k.text, k.size);
  for (int32_t i = 0; i < vars->n; ++i) {
    h = (h ^ (uint64_t)(uintptr_t)vars->v[i]) * UINT64_C(0x9E3779B97F4A7C15);
  }
  k.hash = (uint32_t)(h >> 16);
  return k;
}

/* The slot of key k (the entry holding it, or the free slot where it goes). */
static cache_entry* slot_of(const script_sinfo_cache* c, const ann_key* k) {
  for (uint32_t i = k->hash & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
    cache_entry* e = &c->slots[i];
    if (!e->sinfo) return e;
    if (e->hash == k->hash && e->size == k->size && e->nvars == (uint32_t)k->vars->n &&
        (e->nvars == 0 ||
         memcmp(c->vars + e->vars_at, k->vars->v, e->nvars * sizeof(void*)) == 0) &&
        memcmp(e->text, k->text, k->size) == 0) {
      return e;
    }
  }
}

/* Twice the slots (or the first 16). false when out of memory. */
static bool cache_grow(script_sinfo_cache* c) {
  uint32_t cap = c->cap ? 2 * c->cap : 16;
  cache_entry* slots = tvm_ffi_calloc(cap, sizeof(cache_entry));
  if (!slots) return false;
  cache_entry* old = c->slots;
  uint32_t old_cap = c->cap;
  c->slots = slots;
  c->cap = cap;
  for (uint32_t i = 0; i < old_cap; ++i) {
    if (!old[i].sinfo) continue;
    uint32_t j = old[i].hash & (cap - 1);
    while (slots[j].sinfo) j = (j + 1) & (cap - 1);
    slots[j] = old[i];
  }
  tvm_ffi_free(old);
  return true;
}

/* Room for n more variables in c->vars. false when out of memory. */
static bool vars_room(script_sinfo_cache* c, uint32_t n) {
  if (c->nvars + n <= c->vars_cap) return true;
  uint32_t cap = 2 * (c->nvars + n);
  const void** vars = tvm_ffi_realloc(c->vars, cap * sizeof(void*));
  if (!vars) return false;
  c->vars = vars;
  c->vars_cap = cap;
  return true;
}

/* Keep s under key k (nothing kept when out of memory). */
static void cache_put(script_sinfo_cache* c, const ann_key* k, tvm_relax_sinfo_obj* s) {
  if ((2 * (c->count + 1) > c->cap && !cache_grow(c)) || !vars_room(c, (uint32_t)k->vars->n)) {
    return;
  }
  cache_entry* e = slot_of(c, k);
  if (e->sinfo) return;
  if (k->vars->n > 0) memcpy(c->vars + c->nvars, k->vars->v, (size_t)k->vars->n * sizeof(void*));
  tvm_ffi_retain(s);
  *e = (cache_entry){k->text, k->size, k->hash, s, c->nvars, (uint32_t)k->vars->n};
  c->nvars += (uint32_t)k->vars->n;
  ++c->count;
}

/* ---- Evaluation ------------------------------------------------------------------------------ */
tvm_relax_sinfo_obj* tvm_script__relax_eval_sinfo(script_parser* p, const ast_expr* ann,
                                                  const char* what) {
  ann_vars vars = {.n = 0};
  bool closed = is_closed(p, ann, &vars, 0);
  ann_key k = closed ? key_of(p, ann, &vars) : (ann_key){0};
  if (closed && p->sinfo_cache.count > 0) {
    cache_entry* e = slot_of(&p->sinfo_cache, &k);
    if (e->sinfo) {
      tvm_ffi_retain(e->sinfo);
      return e->sinfo;
    }
  }
  TVMFFIAny v;
  if (tvm_script__eval(p, ann, &v) != 0) return NULL;
  /* `None` is R.Tuple(), void (upstream's _normalize_struct_info_proxy): `-> None` */
  tvm_relax_sinfo_obj* s =
      tvm_ffi_any_is_none(&v) ? tvm_relax_void_sinfo() : tvm_script__relax_sinfo_of(&v, what);
  tvm_ffi_any_release(&v);
  if (!s) {
    tvm_script__relocate(p, &ann->span);
  } else if (closed) {
    cache_put(&p->sinfo_cache, &k, s);
  }
  return s;
}

void tvm_script__sinfo_cache_free(script_parser* p) {
  script_sinfo_cache* c = &p->sinfo_cache;
  for (uint32_t i = 0; i < c->cap; ++i) tvm_ffi_release(c->slots[i].sinfo);
  tvm_ffi_free(c->slots);
  tvm_ffi_free(c->vars);
  memset(c, 0, sizeof(*c));
}

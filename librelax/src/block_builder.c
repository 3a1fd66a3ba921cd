/*
 * block_builder.c: the BlockBuilder (tvm/relax/block_builder.h): bindings accumulate in the
 * current block, blocks in the current function, functions in the module. Emitted expressions
 * are put in A-normal form here; their struct info comes from the constructors.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* What is set aside while a nested function or a binding scope is built: the enclosing
 * function's whole state (FUNC), or the enclosing scope's blocks (SCOPE). */
typedef struct {
  bool is_func;
  bool in_function, is_pure, dataflow;
  char* name;
  void *params, *attrs, *blocks, *bindings;
  struct name_table* names;
  int64_t num_bindings;
  int32_t scopes;
} bb_saved;

struct tvm_relax_block_builder {
  tvm_tir_ir_module_obj* mod;
  /* The function being built. */
  bool in_function;
  char* name;
  void* params;
  void* attrs;
  bool is_pure;
  void* blocks;   /* ffi.List of finished blocks */
  void* bindings; /* ffi.List of the current block's bindings */
  bool dataflow;  /* the current block is a dataflow block */
  struct name_table* names; /* the names taken in the function, for unique variable names */
  int64_t num_bindings;
  int32_t scopes; /* binding scopes open in this function (tvm_relax_bb_scope_begin) */
  /* Enclosing functions and scopes, innermost last. */
  bb_saved* saved;
  int32_t num_saved, cap_saved;
};

tvm_relax_block_builder* tvm_relax_bb_new(tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  if (mod && !tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "BlockBuilder: mod must be an IRModule");
    return NULL;
  }
  tvm_relax_block_builder* bb = tvm_ffi_calloc(1, sizeof(*bb));
  if (!bb) return NULL;
  if (mod) {
    tvm_ffi_retain(mod);
    bb->mod = mod;
  } else if (!(bb->mod = tvm_tir_ir_module_new(NULL, NULL))) {
    tvm_ffi_free(bb);
    return NULL;
  }
  return bb;
}

/* ---- The names taken in a function ----------------------------------------------------------- */
/* An open-addressing table of names (their bytes in one pool), each with the next numeric
 * suffix to try; the names of a function's parameters and bindings go through it, so it avoids
 * making an ffi.String per lookup as an ffi.Dict keyed by names would. */
typedef struct {
  size_t off, len; /* the name: pool[off, off + len) */
  uint64_t hash;
  int64_t next; /* the next suffix to try for this name */
  bool used;
} name_slot;

typedef struct name_table {
  name_slot* slots;
  size_t mask, used;
  char* pool;
  size_t pool_used, pool_cap;
} name_table;

static void names_free(name_table* t) {
  if (!t) return;
  tvm_ffi_free(t->slots);
  tvm_ffi_free(t->pool);
  tvm_ffi_free(t);
}

static name_table* names_new(void) {
  name_table* t = tvm_ffi_calloc(1, sizeof(*t));
  if (t && !(t->slots = tvm_ffi_calloc(16, sizeof(name_slot)))) {
    tvm_ffi_free(t);
    t = NULL;
  }
  if (!t) {
    tvm_ffi_raise("MemoryError", "BlockBuilder: out of memory");
    return NULL;
  }
  t->mask = 15;
  return t;
}

/* The slot of name s[0, n) with hash h: its entry, or the empty slot where it would go. */
static name_slot* names_slot(const name_table* t, const char* s, size_t n, uint64_t h) {
  for (size_t i = (size_t)(h >> 7) & t->mask;; i = (i + 1) & t->mask) {
    name_slot* e = &t->slots[i];
    if (!e->used ||
        (e->hash == h && e->len == n && (n == 0 || memcmp(t->pool + e->off, s, n) == 0))) {
      return e;
    }
  }
}

/* Adds name s[0, n) (absent, hash h) with suffix `next`; 0 or -1 + MemoryError. */
static int names_add(name_table* t, const char* s, size_t n, uint64_t h, int64_t next) {
  if ((t->used + 1) * 4 > (t->mask + 1) * 3) {
    size_t cap = (t->mask + 1) * 2;
    name_slot* slots = tvm_ffi_calloc(cap, sizeof(name_slot));
    if (!slots) return tvm_ffi_raise("MemoryError", "BlockBuilder: out of memory");
    name_slot* old = t->slots;
    size_t old_cap = t->mask + 1;
    t->slots = slots;
    t->mask = cap - 1;
    for (size_t i = 0; i < old_cap; ++i) {
      if (!old[i].used) continue;
      size_t j = (size_t)(old[i].hash >> 7) & t->mask;
      while (slots[j].used) j = (j + 1) & t->mask;
      slots[j] = old[i];
    }
    tvm_ffi_free(old);
  }
  if (t->pool_cap - t->pool_used < n) {
    size_t cap = t->pool_cap ? t->pool_cap : 256;
    while (cap - t->pool_used < n) cap *= 2;
    char* pool = tvm_ffi_realloc(t->pool, cap);
    if (!pool) return tvm_ffi_raise("MemoryError", "BlockBuilder: out of memory");
    t->pool = pool;
    t->pool_cap = cap;
  }
  if (n) memcpy(t->pool + t->pool_used, s, n);
  name_slot* e = names_slot(t, s, n, h);
  *e = (name_slot){t->pool_used, n, h, next, true};
  t->pool_used += n;
  t->used++;
  return 0;
}

static void end_function_state(tvm_relax_block_builder* bb) {
  tvm_ffi_free(bb->name);
  tvm_ffi_release(bb->params);
  tvm_ffi_release(bb->attrs);
  tvm_ffi_release(bb->blocks);
  tvm_ffi_release(bb->bindings);
  names_free(bb->names);
  bb->name = NULL;
  bb->params = bb->attrs = bb->blocks = bb->bindings = NULL;
  bb->names = NULL;
  bb->in_function = false;
  bb->dataflow = false;
  bb->num_bindings = 0;
  bb->scopes = 0;
}

static void saved_release(bb_saved* s) {
  tvm_ffi_free(s->name);
  tvm_ffi_release(s->params);
  tvm_ffi_release(s->attrs);
  tvm_ffi_release(s->blocks);
  tvm_ffi_release(s->bindings);
  names_free(s->names);
}

void tvm_relax_bb_free(tvm_relax_block_builder* bb) {
  if (!bb) return;
  end_function_state(bb);
  for (int32_t i = 0; i < bb->num_saved; ++i) saved_release(&bb->saved[i]);
  tvm_ffi_free(bb->saved);
  tvm_ffi_release(bb->mod);
  tvm_ffi_free(bb);
}

/* Room for one more saved entry (zeroed); NULL + MemoryError. */
static bb_saved* push_saved(tvm_relax_block_builder* bb) {
  if (bb->num_saved == bb->cap_saved) {
    int32_t cap = bb->cap_saved ? 2 * bb->cap_saved : 4;
    bb_saved* s = tvm_ffi_realloc(bb->saved, (size_t)cap * sizeof(*s));
    if (!s) return NULL;
    bb->saved = s;
    bb->cap_saved = cap;
  }
  bb_saved* s = &bb->saved[bb->num_saved++];
  memset(s, 0, sizeof(*s));
  return s;
}

/* Set the current function aside (its state moves into a FUNC entry; the builder is then
 * outside any function). */
static int save_function(tvm_relax_block_builder* bb) {
  bb_saved* s = push_saved(bb);
  if (!s) return -1;
  s->is_func = true;
  s->in_function = bb->in_function;
  s->is_pure = bb->is_pure;
  s->dataflow = bb->dataflow;
  s->name = bb->name;
  s->params = bb->params;
  s->attrs = bb->attrs;
  s->blocks = bb->blocks;
  s->bindings = bb->bindings;
  s->names = bb->names;
  s->num_bindings = bb->num_bindings;
  s->scopes = bb->scopes;
  bb->name = NULL;
  bb->params = bb->attrs = bb->blocks = bb->bindings = NULL;
  bb->names = NULL;
  bb->in_function = bb->dataflow = false;
  bb->num_bindings = 0;
  bb->scopes = 0;
  return 0;
}

/* After the current function ended: the enclosing one, if it was set aside, is current again. */
static void restore_function(tvm_relax_block_builder* bb) {
  if (bb->num_saved == 0 || !bb->saved[bb->num_saved - 1].is_func) return;
  bb_saved* s = &bb->saved[--bb->num_saved];
  bb->in_function = s->in_function;
  bb->is_pure = s->is_pure;
  bb->dataflow = s->dataflow;
  bb->name = s->name;
  bb->params = s->params;
  bb->attrs = s->attrs;
  bb->blocks = s->blocks;
  bb->bindings = s->bindings;
  bb->names = s->names;
  bb->num_bindings = s->num_bindings;
  bb->scopes = s->scopes;
}

static int need_function(tvm_relax_block_builder* bb, const char* what) {
  if (!bb) return tvm_ffi_raise("ValueError", "BlockBuilder: NULL builder");
  if (!bb->in_function) return tvm_ffi_raise("ValueError", "BlockBuilder: %s outside a function", what);
  return 0;
}

/* A name not yet used in the function: hint, else hint1, hint2, ... */
/* Takes a name unique in the function for hint: hint itself the first time, else hint followed by
 * a number (written to buf). Returns the name taken (hint or buf), or NULL + error. */
static const char* take_name(tvm_relax_block_builder* bb, const char* hint, char buf[256]) {
  name_table* t = bb->names;
  size_t n = strlen(hint);
  uint64_t h = tvm_ffi_hash_bytes(hint, n);
  name_slot* seen = names_slot(t, hint, n, h);
  if (!seen->used) return names_add(t, hint, n, h, 1) == 0 ? hint : NULL;
  for (int64_t next = seen->next;; ++next) {
    int m = snprintf(buf, 256, "%.200s%lld", hint, (long long)next);
    size_t cn = m < 0 ? 0 : (size_t)m;
    uint64_t ch = tvm_ffi_hash_bytes(buf, cn);
    if (names_slot(t, buf, cn, ch)->used) continue;
    seen->next = next + 1; /* (before names_add, which may move the slots) */
    return names_add(t, buf, cn, ch, 1) == 0 ? buf : NULL;
  }
}

/* take_name as an ffi.String (a new reference), or NULL + error. */
static void* unique_name(tvm_relax_block_builder* bb, const char* hint) {
  char buf[256];
  const char* name = take_name(bb, hint, buf);
  return name ? tvm_relax__str(name) : NULL;
}

/* attrs with "global_symbol" = name added (a new reference). */
static void* public_attrs(void* attrs, const char* name) {
  if (attrs && tvm_ffi_map_get_str(attrs, "global_symbol")) {
    tvm_ffi_retain(attrs);
    return attrs;
  }
  void* dict = tvm_ffi_dict_new();
  if (!dict) return NULL;
  int rc = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; rc == 0 && attrs && (pos = tvm_ffi_map_next(attrs, pos, &k, &v)) >= 0;) {
    rc = tvm_ffi_dict_set(dict, k, v);
  }
  TVMFFIAny key = tvm_ffi_string("global_symbol"), val = tvm_ffi_string(name);
  if (rc == 0) rc = tvm_ffi_dict_set(dict, &key, &val);
  tvm_ffi_any_release(&key);
  tvm_ffi_any_release(&val);
  void* out = rc == 0 ? tvm_ffi_dict_to_map(dict) : NULL;
  tvm_ffi_release(dict);
  return out;
}

int tvm_relax_bb_function_begin(tvm_relax_block_builder* bb, const char* name, void* params,
                                void* attrs, bool is_pure) {
  return tvm_relax_bb_function_begin_ex(bb, name, params, attrs, is_pure ? 0 : TVM_RELAX_BB_IMPURE);
}

int tvm_relax_bb_function_begin_ex(tvm_relax_block_builder* bb, const char* name, void* params,
                                   void* attrs, unsigned flags) {
  bool is_pure = !(flags & TVM_RELAX_BB_IMPURE);
  if (!bb) return tvm_ffi_raise("ValueError", "BlockBuilder: NULL builder");
  if (params && tvm_ffi_type_index(params) != kTVMFFIArray) {
    return tvm_ffi_raise("TypeError", "BlockBuilder: params must be an ffi.Array of Var");
  }
  if (attrs && tvm_ffi_type_index(attrs) != kTVMFFIMap) {
    return tvm_ffi_raise("TypeError", "BlockBuilder: attrs must be an ffi.Map");
  }
  /* A function begun inside another is a local function: the outer one is set aside until
   * this one ends. */
  if (bb->in_function && save_function(bb) != 0) return -1;
  bb->name = tvm_ffi_strndup(name ? name : "main", name ? strlen(name) : 4);
  bb->params = params ? params : tvm_relax__empty_array();
  if (params) tvm_ffi_retain(params);
  if (flags & TVM_RELAX_BB_PRIVATE) {
    bb->attrs = attrs;
    if (attrs) tvm_ffi_retain(attrs);
  } else if (!(bb->attrs = public_attrs(attrs, name ? name : "main"))) {
    end_function_state(bb);
    restore_function(bb);
    return -1;
  }
  bb->is_pure = is_pure;
  bb->blocks = tvm_ffi_list_new();
  bb->bindings = tvm_ffi_list_new();
  bb->names = names_new();
  bb->in_function = true;
  if (!bb->name || !bb->blocks || !bb->bindings || !bb->names) {
    end_function_state(bb);
    restore_function(bb);
    return -1;
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(bb->params); ++i) {
    tvm_relax_var_obj* p = tvm_ffi_seq_obj_at(bb->params, i);
    if (!tvm_relax_is_var(p)) {
      end_function_state(bb);
      restore_function(bb);
      return tvm_ffi_raise("TypeError", "BlockBuilder: params[%lld] is not a Var", (long long)i);
    }
    char buf[256]; /* (the parameter keeps its name; this only takes it in the table) */
    if (!take_name(bb, tvm_relax_var_name(p), buf)) {
      end_function_state(bb);
      restore_function(bb);
      return -1;
    }
  }
  return 0;
}

/* Close the current block into bb->blocks (nothing when it is empty). */
static int close_block(tvm_relax_block_builder* bb) {
  if (tvm_ffi_seq_size(bb->bindings) > 0) {
    void* arr = tvm_ffi_list_to_array(bb->bindings);
    tvm_relax_block_obj* blk = arr ? tvm_relax_block_new(arr, bb->dataflow) : NULL;
    tvm_ffi_release(arr);
    if (!blk) return -1;
    TVMFFIAny item = tvm_ffi_any_obj(blk);
    int rc = tvm_ffi_list_push_take(bb->blocks, &item);
    if (rc != 0) return -1;
    tvm_ffi_list_clear(bb->bindings);
  }
  bb->dataflow = false;
  return 0;
}

int tvm_relax_bb_dataflow_begin(tvm_relax_block_builder* bb) {
  if (need_function(bb, "dataflow block") != 0) return -1;
  if (bb->dataflow) return tvm_ffi_raise("ValueError", "BlockBuilder: dataflow blocks do not nest");
  if (close_block(bb) != 0) return -1;
  bb->dataflow = true;
  return 0;
}

int tvm_relax_bb_block_end(tvm_relax_block_builder* bb) {
  if (need_function(bb, "block end") != 0) return -1;
  if (!bb->dataflow) return tvm_ffi_raise("ValueError", "BlockBuilder: no dataflow block to end");
  return close_block(bb);
}


static tvm_relax_var_obj* emit_value(tvm_relax_block_builder* bb, tvm_relax_expr_obj* value,
                                     const char* hint, bool dataflow_var);

/* An argument in A-normal form: a leaf, a Tuple of normalised fields, or a new variable. */
static tvm_relax_expr_obj* normalize_arg(tvm_relax_block_builder* bb, tvm_relax_expr_obj* arg) {
  if (tvm_relax__is_leaf(arg, false)) {
    tvm_ffi_retain(arg);
    return arg;
  }
  if (tvm_relax_kind_of(arg) == TVM_RELAX_KIND_Tuple) {
    return tvm_relax_bb_normalize(bb, arg);
  }
  tvm_tir_expr_obj* known = tvm_relax_kind_of(arg) == TVM_RELAX_KIND_Call
                                ? tvm_relax__inspect_known_value((tvm_relax_call_obj*)arg)
                                : NULL;
  if (known) return tvm_relax_prim_value_new(known); /* a leaf */
  return (tvm_relax_expr_obj*)emit_value(bb, arg, NULL, bb->dataflow);
}

static void* normalize_item(void* bb, void* arg) { return normalize_arg(bb, arg); }

/* fields normalised: a new array, or the same one retained when nothing changed. */
static void* normalize_list(tvm_relax_block_builder* bb, void* arr) {
  return tvm_relax__map_array(arr, normalize_item, bb);
}

tvm_relax_expr_obj* tvm_relax_bb_normalize(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr) {
  if (need_function(bb, "normalize") != 0) return NULL;
  if (!tvm_relax_is_expr(expr)) {
    tvm_ffi_raise("TypeError", "BlockBuilder: not a Relax expression");
    return NULL;
  }
  switch (tvm_relax_kind_of(expr)) {
    case TVM_RELAX_KIND_Call: {
      tvm_relax_call_obj* c = (void*)expr;
      tvm_tir_expr_obj* known = tvm_relax__inspect_known_value(c);
      if (known) return tvm_relax_prim_value_new(known);
      void* args = normalize_list(bb, c->args);
      if (!args) return NULL;
      if (args == c->args) {
        tvm_ffi_release(args);
        break;
      }
      tvm_relax_expr_obj* out = tvm_relax_call_new(c->op, args, c->attrs, c->sinfo_args, c->expr.span);
      tvm_ffi_release(args);
      return out;
    }
    case TVM_RELAX_KIND_Tuple: {
      tvm_relax_tuple_obj* t = (void*)expr;
      void* fields = normalize_list(bb, t->fields);
      if (!fields) return NULL;
      if (fields == t->fields) {
        tvm_ffi_release(fields);
        break;
      }
      tvm_relax_expr_obj* out = tvm_relax_tuple_new(fields);
      tvm_ffi_release(fields);
      return out;
    }
    case TVM_RELAX_KIND_TupleGetItem: {
      tvm_relax_tuple_get_item_obj* g = (void*)expr;
      tvm_relax_expr_obj* t = normalize_arg(bb, g->tuple_value);
      if (!t) return NULL;
      if (t == g->tuple_value) {
        tvm_ffi_release(t);
        break;
      }
      tvm_relax_expr_obj* out = tvm_relax_tuple_get_item_new(t, g->index);
      tvm_ffi_release(t);
      return out;
    }
    case TVM_RELAX_KIND_If: {
      tvm_relax_if_obj* f = (void*)expr;
      tvm_relax_expr_obj* cond = normalize_arg(bb, f->cond);
      if (!cond) return NULL;
      if (cond == f->cond) {
        tvm_ffi_release(cond);
        break;
      }
      tvm_relax_expr_obj* out = tvm_relax_if_new(cond, f->true_branch, f->false_branch);
      tvm_ffi_release(cond);
      return out;
    }
    default:
      break;
  }
  tvm_ffi_retain(expr);
  return expr;
}

static int push_binding(tvm_relax_block_builder* bb, tvm_relax_binding_obj* b) {
  TVMFFIAny item = tvm_ffi_any_obj(b);
  if (tvm_ffi_list_push_take(bb->bindings, &item) != 0) return -1;
  ++bb->num_bindings;
  return 0;
}

static tvm_relax_var_obj* emit_value(tvm_relax_block_builder* bb, tvm_relax_expr_obj* value,
                                     const char* hint, bool dataflow_var) {
  tvm_relax_expr_obj* norm = tvm_relax_bb_normalize(bb, value);
  if (!norm) return NULL;
  void* name = unique_name(bb, hint ? hint : (dataflow_var ? "lv" : "gv"));
  tvm_relax_var_obj* var = name ? tvm_relax_var_new_str(name, tvm_relax_sinfo_of(norm), dataflow_var)
                                : NULL;
  tvm_ffi_release(name);
  tvm_relax_binding_obj* b = var ? tvm_relax_var_binding_new(var, norm) : NULL;
  tvm_ffi_release(norm);
  if (!b || push_binding(bb, b) != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  return var;
}

tvm_relax_var_obj* tvm_relax_bb_emit(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr,
                                     const char* name_hint) {
  if (need_function(bb, "emit") != 0) return NULL;
  return emit_value(bb, expr, name_hint, bb->dataflow);
}

tvm_relax_var_obj* tvm_relax_bb_emit_output(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr,
                                            const char* name_hint) {
  if (need_function(bb, "emit_output") != 0) return NULL;
  if (!bb->dataflow) {
    tvm_ffi_raise("ValueError", "BlockBuilder: emit_output outside a dataflow block");
    return NULL;
  }
  return emit_value(bb, expr, name_hint, false);
}

tvm_relax_var_obj* tvm_relax_bb_match_cast(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr,
                                           tvm_relax_sinfo_obj* sinfo, const char* name_hint) {
  if (need_function(bb, "match_cast") != 0) return NULL;
  tvm_relax_expr_obj* norm = normalize_arg(bb, expr);
  if (!norm) return NULL;
  void* name = unique_name(bb, name_hint ? name_hint : (bb->dataflow ? "lv" : "gv"));
  tvm_relax_var_obj* var = name ? tvm_relax_var_new_str(name, sinfo, bb->dataflow) : NULL;
  tvm_ffi_release(name);
  tvm_relax_binding_obj* b = var ? tvm_relax_match_cast_new(var, norm, sinfo) : NULL;
  tvm_ffi_release(norm);
  if (!b || push_binding(bb, b) != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  return var;
}

int tvm_relax_bb_emit_binding(tvm_relax_block_builder* bb, tvm_relax_binding_obj* binding) {
  if (need_function(bb, "emit_binding") != 0) return -1;
  if (!tvm_relax_is(binding, TVM_RELAX_KIND_Binding)) {
    return tvm_ffi_raise("TypeError", "BlockBuilder: not a binding");
  }
  bool df = tvm_relax_kind_of(binding->var) == TVM_RELAX_KIND_DataflowVar;
  if (df && !bb->dataflow) {
    return tvm_ffi_raise("ValueError", "BlockBuilder: DataflowVar %s bound outside a dataflow block",
                         tvm_relax_var_name(binding->var));
  }
  char buf[256]; /* (the binding keeps its Var's name; this only takes the name in the table) */
  if (!take_name(bb, tvm_relax_var_name(binding->var), buf)) return -1;
  tvm_ffi_retain(binding);
  return push_binding(bb, binding);
}

/* Add func under a unique global name. */
static tvm_tir_global_var_obj* add_to_module(tvm_relax_block_builder* bb, void* func,
                                             const char* hint) {
  char buf[256];
  snprintf(buf, sizeof(buf), "%.200s", hint);
  for (int64_t k = 1;; ++k) {
    void* existing = tvm_tir_ir_module_lookup(bb->mod, buf);
    if (!existing) break;
    tvm_ffi_release(existing);
    snprintf(buf, sizeof(buf), "%.200s%lld", hint, (long long)k);
  }
  tvm_relax_sinfo_obj* s = tvm_relax_expr_sinfo(func);
  tvm_tir_global_var_obj* gv = s ? tvm_relax_global_var_new(buf, s) : NULL;
  tvm_ffi_release(s);
  if (!gv) return NULL;
  tvm_tir_ir_module_obj* mod = tvm_tir_ir_module_add(bb->mod, gv, func);
  if (!mod) {
    tvm_ffi_release(gv);
    return NULL;
  }
  tvm_ffi_release(bb->mod);
  bb->mod = mod;
  return gv;
}

tvm_tir_global_var_obj* tvm_relax_bb_add_function(tvm_relax_block_builder* bb, void* func,
                                                  const char* name_hint) {
  if (!bb) {
    tvm_ffi_raise("ValueError", "BlockBuilder: NULL builder");
    return NULL;
  }
  if (!tvm_tir_is(func, TVM_TIR_KIND_BaseFunc)) {
    tvm_ffi_raise("TypeError", "BlockBuilder: add_function takes a PrimFunc or a Relax Function");
    return NULL;
  }
  return add_to_module(bb, func, name_hint ? name_hint : "func");
}

/* The current function's Function (NULL + error); the state of the function ends either way and
 * the enclosing function, if any, is current again. */
static tvm_relax_function_obj* finish_function(tvm_relax_block_builder* bb,
                                               tvm_relax_expr_obj* output,
                                               tvm_relax_sinfo_obj* ret_sinfo) {
  if (need_function(bb, "function end") != 0) return NULL;
  if (bb->scopes > 0) {
    tvm_ffi_raise("ValueError", "BlockBuilder: the function ends with %d binding scope%s open",
                  (int)bb->scopes, bb->scopes == 1 ? "" : "s");
    return NULL;
  }
  if (bb->dataflow) {
    tvm_ffi_raise("ValueError", "BlockBuilder: the function ends inside a dataflow block");
    return NULL;
  }
  tvm_relax_expr_obj* out = normalize_arg(bb, output);
  tvm_relax_function_obj* f = NULL;
  if (out && close_block(bb) == 0) {
    if (tvm_relax_kind_of(out) == TVM_RELAX_KIND_DataflowVar) {
      tvm_ffi_raise("ValueError", "BlockBuilder: the function returns DataflowVar %s (emit it with "
                    "emit_output)", tvm_relax_var_name((tvm_relax_var_obj*)out));
    } else {
      void* blocks = tvm_ffi_list_to_array(bb->blocks);
      tvm_relax_expr_obj* seq = blocks ? tvm_relax_seq_expr_new(blocks, out) : NULL;
      f = seq ? tvm_relax_function_new(bb->params, seq, ret_sinfo, bb->is_pure, bb->attrs) : NULL;
      tvm_ffi_release(seq);
      tvm_ffi_release(blocks);
    }
  }
  tvm_ffi_release(out);
  return f;
}

int tvm_relax_bb_function_set_attrs(tvm_relax_block_builder* bb, void* attrs) {
  if (need_function(bb, "set_attrs") != 0) return -1;
  if (attrs && tvm_ffi_type_index(attrs) != kTVMFFIMap) {
    return tvm_ffi_raise("TypeError", "BlockBuilder: attrs must be an ffi.Map");
  }
  if (attrs) tvm_ffi_retain(attrs);
  tvm_ffi_release(bb->attrs);
  bb->attrs = attrs;
  return 0;
}

tvm_tir_global_var_obj* tvm_relax_bb_function_end(tvm_relax_block_builder* bb,
                                                  tvm_relax_expr_obj* output,
                                                  tvm_relax_sinfo_obj* ret_sinfo) {
  tvm_relax_function_obj* f = finish_function(bb, output, ret_sinfo);
  char* name = bb ? bb->name : NULL;
  tvm_tir_global_var_obj* gv = f ? add_to_module(bb, f, name) : NULL;
  tvm_ffi_release(f);
  if (bb && bb->in_function) {
    end_function_state(bb);
    restore_function(bb);
  }
  return gv;
}

tvm_relax_function_obj* tvm_relax_bb_function_finish(tvm_relax_block_builder* bb,
                                                     tvm_relax_expr_obj* output,
                                                     tvm_relax_sinfo_obj* ret_sinfo) {
  tvm_relax_function_obj* f = finish_function(bb, output, ret_sinfo);
  if (bb && bb->in_function) {
    end_function_state(bb);
    restore_function(bb);
  }
  return f;
}

/* ---- Binding scopes ------------------------------------------------------------------------ */
int tvm_relax_bb_scope_begin(tvm_relax_block_builder* bb) {
  if (need_function(bb, "scope") != 0) return -1;
  if (bb->dataflow) {
    return tvm_ffi_raise("ValueError", "BlockBuilder: a binding scope (an If branch) cannot begin "
                                       "inside a dataflow block");
  }
  void* blocks = tvm_ffi_list_new();
  void* bindings = blocks ? tvm_ffi_list_new() : NULL;
  bb_saved* s = bindings ? push_saved(bb) : NULL;
  if (!s) {
    tvm_ffi_release(blocks);
    tvm_ffi_release(bindings);
    return -1;
  }
  s->blocks = bb->blocks;
  s->bindings = bb->bindings;
  bb->blocks = blocks;
  bb->bindings = bindings;
  bb->scopes++;
  return 0;
}

tvm_relax_expr_obj* tvm_relax_bb_scope_end(tvm_relax_block_builder* bb, tvm_relax_expr_obj* result) {
  if (need_function(bb, "scope end") != 0) return NULL;
  if (bb->scopes == 0) {
    tvm_ffi_raise("ValueError", "BlockBuilder: no binding scope to end");
    return NULL;
  }
  if (bb->dataflow) {
    tvm_ffi_raise("ValueError", "BlockBuilder: a binding scope ends inside a dataflow block");
    return NULL;
  }
  tvm_relax_expr_obj* seq = NULL;
  tvm_relax_expr_obj* out = normalize_arg(bb, result);
  if (out && close_block(bb) == 0) {
    if (tvm_relax_kind_of(out) == TVM_RELAX_KIND_DataflowVar) {
      tvm_ffi_raise("ValueError", "BlockBuilder: a binding scope results in DataflowVar %s",
                    tvm_relax_var_name((tvm_relax_var_obj*)out));
    } else {
      void* blocks = tvm_ffi_list_to_array(bb->blocks);
      seq = blocks ? tvm_relax_seq_expr_new(blocks, out) : NULL;
      tvm_ffi_release(blocks);
    }
  }
  tvm_ffi_release(out);
  /* The enclosing scope's blocks are current again, whatever happened. */
  bb_saved* s = &bb->saved[--bb->num_saved];
  tvm_ffi_release(bb->blocks);
  tvm_ffi_release(bb->bindings);
  bb->blocks = s->blocks;
  bb->bindings = s->bindings;
  bb->scopes--;
  return seq;
}

/* ---- Dataflow outputs ------------------------------------------------------------------------- */
/* Whether v is one of the Vars of arr (by identity); its index or -1. */
static int64_t index_in(void* arr, const void* v) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(arr); ++i) {
    if (tvm_ffi_seq_obj_at(arr, i) == v) return i;
  }
  return -1;
}

int tvm_relax_bb_dataflow_end_outputs(tvm_relax_block_builder* bb, void* outputs,
                                      void** out_vars) {
  *out_vars = NULL;
  if (need_function(bb, "block end") != 0) return -1;
  if (!bb->dataflow) return tvm_ffi_raise("ValueError", "BlockBuilder: no dataflow block to end");
  int64_t n = outputs ? tvm_ffi_seq_size(outputs) : 0;
  if (outputs && tvm_ffi_type_index(outputs) != kTVMFFIArray) {
    return tvm_ffi_raise("TypeError", "BlockBuilder: outputs must be an ffi.Array of DataflowVar");
  }
  for (int64_t i = 0; i < n; ++i) {
    const void* v = tvm_ffi_seq_obj_at(outputs, i);
    if (tvm_relax_kind_of(v) != TVM_RELAX_KIND_DataflowVar) {
      return tvm_ffi_raise("ValueError", "BlockBuilder: output %lld is not a DataflowVar",
                           (long long)i);
    }
    if (index_in(outputs, v) != i) {
      return tvm_ffi_raise("ValueError", "BlockBuilder: %s is an output twice",
                           tvm_relax_var_name(v));
    }
  }
  TVMFFIAny* news = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  /* The outputs in the order their bindings were rebound. */
  int64_t* order = news ? tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(int64_t)) : NULL;
  if (!order) {
    tvm_ffi_free(news);
    return -1;
  }
  for (int64_t i = 0; i < n; ++i) news[i] = tvm_ffi_any_none();
  /* Each output's binding rebinds a Var of the same name and struct info; later bindings of
   * the block that use it are rewritten to the new Var. The mutator is given the rebound Vars
   * only when a later binding is to be rewritten: most outputs are their block's last
   * bindings, and then it is never set up. */
  tvm_relax_mutator m;
  memset(&m, 0, sizeof(m));
  int64_t rebound = 0, remapped = 0;
  int rc = 0;
  int64_t nb = tvm_ffi_seq_size(bb->bindings);
  for (int64_t i = 0; rc == 0 && i < nb; ++i) {
    tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(bb->bindings, i);
    int64_t k = index_in(outputs, b->var);
    if (k < 0 && rebound == 0) continue;
    for (; rc == 0 && remapped < rebound; ++remapped) {
      int64_t o = order[remapped];
      rc = tvm_relax_mutator_remap(&m, tvm_ffi_seq_obj_at(outputs, o),
                                   (tvm_relax_var_obj*)news[o].v_obj);
    }
    if (rc != 0) break;
    tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
    tvm_relax_expr_obj* nv =
        rebound > 0 ? tvm_relax_mutate(&m, value) : (tvm_ffi_retain(value), value);
    if (!nv) {
      rc = -1;
      break;
    }
    if (k < 0 && nv == value) {
      tvm_ffi_release(nv);
      continue;
    }
    tvm_relax_var_obj* var = b->var;
    tvm_relax_var_obj* new_var = NULL;
    if (k >= 0) {
      new_var = tvm_relax_var_new_str(var->name_hint, tvm_relax_sinfo_of(var), false);
    } else {
      tvm_ffi_retain(var);
      new_var = var;
    }
    tvm_relax_binding_obj* nb_ = NULL;
    if (new_var) {
      nb_ = tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast
                ? tvm_relax_match_cast_new(new_var, nv,
                                           ((tvm_relax_match_cast_obj*)b)->struct_info)
                : tvm_relax_var_binding_new(new_var, nv);
    }
    tvm_ffi_release(nv);
    if (nb_ && k >= 0) {
      news[k] = tvm_ffi_any_obj(new_var);
      tvm_ffi_retain(new_var);
      order[rebound++] = k;
    }
    tvm_ffi_release(new_var);
    if (!nb_) {
      rc = -1;
      break;
    }
    TVMFFIAny item = tvm_ffi_any_obj(nb_);
    if (rc == 0) rc = tvm_ffi_list_set(bb->bindings, i, &item);
    tvm_ffi_release(nb_);
  }
  tvm_relax_mutator_free(&m);
  tvm_ffi_free(order);
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    if (news[i].type_index == kTVMFFINone) {
      rc = tvm_ffi_raise("ValueError", "BlockBuilder: output %s is not bound in this dataflow block",
                         tvm_relax_var_name(tvm_ffi_seq_obj_at(outputs, i)));
    }
  }
  void* arr = rc == 0 ? tvm_ffi_array_new_take(news, n) : NULL;
  if (rc != 0 || !arr) {
    for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&news[i]);
    tvm_ffi_free(news);
    return -1;
  }
  tvm_ffi_free(news);
  if (close_block(bb) != 0) {
    tvm_ffi_release(arr);
    return -1;
  }
  *out_vars = arr;
  return 0;
}

int tvm_relax_bb_in_dataflow(const tvm_relax_block_builder* bb) {
  return bb && bb->in_function && bb->dataflow;
}

tvm_tir_ir_module_obj* tvm_relax_bb_module(tvm_relax_block_builder* bb) {
  if (!bb) {
    tvm_ffi_raise("ValueError", "BlockBuilder: NULL builder");
    return NULL;
  }
  tvm_ffi_retain(bb->mod);
  return bb->mod;
}

int64_t tvm_relax_bb_num_bindings(const tvm_relax_block_builder* bb) {
  return bb ? bb->num_bindings : 0;
}

const void* tvm_relax_bb_open_bindings(const tvm_relax_block_builder* bb) {
  return bb && bb->in_function ? bb->bindings : NULL;
}

const tvm_relax_block_obj* tvm_relax_bb_last_block(const tvm_relax_block_builder* bb) {
  int64_t n = bb && bb->in_function ? tvm_ffi_seq_size(bb->blocks) : 0;
  return n > 0 ? tvm_ffi_seq_obj_at(bb->blocks, n - 1) : NULL;
}

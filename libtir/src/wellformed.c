/*
 * wellformed.c: the well-formedness checker (tvm/tir/analysis.h). A tvm_tir_visitor whose
 * per-kind pre callbacks handle the binding sites (they visit the fields of a node in scoping
 * order themselves and return SKIP); every other node gets the generic child walk, so a Var use
 * anywhere is checked by the Var callback. The first violation stops the walk with a ValueError
 * carrying the access path of the offending node. A first, generic pass (pre_structure) checks
 * that the fields the scoped pass reads are present and of the right kinds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <tvm/tir/analysis.h>
#include <tvm/tir/arith.h>
#include <tvm/tir/visit.h>

#include "internal.h"

/* What the walk knows of one Var or Buffer. Entries are created on first binding and never
 * removed (a Var stays bound for the SSA check); leaving a scope clears flags. */
enum {
  F_BOUND = 1,   /* a Var bound so far (SSA) */
  F_SCOPE = 2,   /* a Var in scope */
  F_BUFFER = 4,  /* a Buffer in scope */
  F_RANGE = 8,   /* a loop / block iter Var in scope, its range in min, extent */
  F_ALLOC = 32   /* the data Var of an Allocate in scope */
};
typedef struct { /* (its key is the table's keys[i]: 32 bytes, indexed by a shift) */
  uint32_t flags;
  const void* owner;      /* the Buffer whose declaration defined this shape/stride/offset Var */
  tvm_tir_expr_obj* min;  /* F_RANGE: borrowed from the IR being checked */
  tvm_tir_expr_obj* extent;
} fact;

/* An open-addressing table of facts keyed by object identity (the walk does several lookups
 * per node: ffi.Dicts of Any keys cost a hash of the key and a call each). */
#define FIRST_SLOTS 64 /* a power of two */
typedef struct {
  const void** keys; /* keys[i]: the key of slots[i], NULL when free (probed alone) */
  fact* slots;       /* valid where keys[i] is set */
  size_t mask; /* capacity - 1 (a power of two); 0: no table yet (scoped_pass starts one) */
  size_t used;
  /* The first slots: most functions never need more, and a heap table would cost an
   * allocation and its zeroing per check. Only the keys are zeroed with the table (the facts,
   * four times their size, are written when their slot is taken); first stays last in wf, out
   * of its zeroing. */
  const void* first_keys[FIRST_SLOTS];
  fact first[FIRST_SLOTS];
} fact_table;

/*
 * The scoped pass runs in one of two modes. Tracking: a tvm_tir_visitor walk that records the
 * access path of every node, so that an error can name it. Fast (first): the same callbacks on
 * a direct walk of wellformed.c's own that only counts path steps (the depth limit is on
 * them), raising nothing for a violation. Only when the fast pass fails is the function checked
 * again by the tracking pass, which raises the error, so errors and their paths are exactly
 * those of the tracking pass; the check is a pure function of the IR, so both passes agree on
 * whether it passes.
 */
struct wf;
/* Walks a node of one kind at depth d in the fast pass (see walk): 0 when it passes. */
typedef int (*walker)(struct wf* w, const void* obj, int64_t d);

typedef struct wf {
  tvm_tir_visitor v; /* first: callbacks get the state through their visitor pointer */
  bool track;        /* the tracking pass (v.steps holds the path), else the fast pass */
  const tvm_tir__children* children; /* the fast pass's child tables */
  const walker* walkers; /* the fast pass's walker of each kind (see walk) */
  fact_table facts; /* last: see fact_table.first */
} wf;

_Static_assert(offsetof(wf, facts.first) + sizeof(((wf*)0)->facts.first) == sizeof(wf),
               "the first facts end wf (scoped_pass zeroes what comes before them)");

#define SELF ((wf*)v)
#define K(Name) TVM_TIR_KIND_##Name

/* v.ctx of the fast pass's visitor: fail_at (shared with the structure pass's visitor) tells
 * the two apart by it. */
static const char k_fast_pass = 0;

/* Path steps: recorded by the tracking pass, only counted by the fast pass. -1 on OOM. */
static inline int wpush_attr(wf* w, const char* name) {
  if (w->track) return tvm_tir_visitor_push_attr(&w->v, name);
  w->v.depth++;
  return 0;
}
static inline int wpush_item(wf* w, int64_t index) {
  if (w->track) return tvm_tir_visitor_push_item(&w->v, index);
  w->v.depth++;
  return 0;
}
static inline int wpush_key(wf* w, const TVMFFIAny* key) {
  if (w->track) return tvm_tir_visitor_push_key(&w->v, key);
  w->v.depth++;
  return 0;
}
static inline void wpop(wf* w) { w->v.depth--; } /* tvm_tir_visitor_pop, either mode */

/* ---- Errors ---------------------------------------------------------------------------------- */
/* Raise at the current path extended by field (NULL: the current node) and index (-1: none). */
static int fail_at(tvm_tir_visitor* v, const char* field, int64_t index, const char* fmt, ...) {
  if (v->ctx == &k_fast_pass) return -1; /* the tracking pass raises it */
  int pushed = 0;
  if (field && tvm_tir_visitor_push_attr(v, field) == 0) pushed++;
  if (index >= 0 && tvm_tir_visitor_push_item(v, index) == 0) pushed++;
  tvm_ffi_strbuf msg = {0};
  tvm_ffi_strbuf_puts(&msg, "well-formedness: ");
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  tvm_ffi_strbuf_puts(&msg, " at ");
  tvm_tir_visitor_path_format(v, &msg);
  while (pushed--) tvm_tir_visitor_pop(v);
  tvm_ffi_raise("ValueError", "%s", tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return -1;
}

/* ---- Facts ------------------------------------------------------------------------------- */
static size_t slot_of(const fact_table* t, const void* key) {
  uintptr_t h = (uintptr_t)key >> 4;
  return (size_t)((h * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & t->mask;
}

/* The facts of key, NULL when it has none. */
static fact* find(const fact_table* t, const void* key) {
  if (!key) return NULL; /* (t->mask: scoped_pass starts the table before any lookup) */
  for (size_t i = slot_of(t, key);; i = (i + 1) & t->mask) {
    if (t->keys[i] == key) return &t->slots[i];
    if (!t->keys[i]) return NULL;
  }
}

/* obtain's general case: the first table, growth, a NULL key. */
__attribute__((noinline)) /* out of obtain's common path, which then saves no registers */
static fact* obtain_slow(fact_table* t, const void* key) {
  fact* f = find(t, key);
  if (f) return f;
  if (!key) { /* the structure pass rules this out */
    tvm_ffi_raise("ValueError", "well-formedness: a binding without its variable");
    return NULL;
  }
  if (2 * (t->used + 1) > t->mask) { /* keep the load under one half */
    size_t cap = t->mask ? 2 * (t->mask + 1) : FIRST_SLOTS;
    /* A heap table is one block: cap keys (zeroed), then cap facts (written when their slot
     * is taken, like the first ones: zeroing them would be four times the keys' work). */
    const void** keys =
        t->mask ? tvm_ffi_malloc(cap * (sizeof(void*) + sizeof(fact))) : t->first_keys;
    if (!keys) {
      tvm_ffi_raise("MemoryError", "well-formedness: out of memory");
      return NULL;
    }
    if (t->mask) memset(keys, 0, cap * sizeof(void*));
    fact* slots = t->mask ? (fact*)(keys + cap) : t->first;
    const void** old_keys = t->keys;
    fact* old = t->slots;
    size_t old_mask = t->mask;
    t->keys = keys;
    t->slots = slots;
    t->mask = cap - 1;
    for (size_t i = 0; old_mask && i <= old_mask; ++i) {
      if (!old_keys[i]) continue;
      size_t j = slot_of(t, old_keys[i]);
      while (keys[j]) j = (j + 1) & t->mask;
      keys[j] = old_keys[i];
      slots[j] = old[i];
    }
    if (old_keys != t->first_keys) tvm_ffi_free((void*)old_keys);
  }
  size_t i = slot_of(t, key);
  while (t->keys[i]) i = (i + 1) & t->mask;
  t->used++;
  t->keys[i] = key;
  t->slots[i] = (fact){0};
  return &t->slots[i];
}

/* The facts of key, created empty when missing; NULL + MemoryError. */
static fact* obtain(fact_table* t, const void* key) {
  if (key && t->mask) {
    size_t i = slot_of(t, key);
    for (; t->keys[i]; i = (i + 1) & t->mask) {
      if (t->keys[i] == key) return &t->slots[i];
    }
    /* Missing, and i is the free slot its insertion would probe to: take it if the load stays
     * under one half (else obtain_slow grows the table first). */
    if (2 * (t->used + 1) <= t->mask) {
      t->used++;
      t->keys[i] = key;
      t->slots[i] = (fact){0};
      return &t->slots[i];
    }
  }
  return obtain_slow(t, key);
}

static bool has(const wf* w, const void* obj, uint32_t flag) {
  const fact* f = find(&w->facts, obj);
  return f && (f->flags & flag);
}
static int put(wf* w, const void* obj, uint32_t flag) {
  fact* f = obtain(&w->facts, obj);
  if (!f) return -1;
  f->flags |= flag;
  return 0;
}
static void drop(wf* w, const void* obj, uint32_t flags) {
  fact* f = find(&w->facts, obj);
  if (f) f->flags &= ~flags;
}

static const char* vname(const void* var) { return tvm_tir_var_name((const tvm_tir_var_obj*)var); }

/* Bind var at the current path + field[index]: SSA check, then in scope. Returns its facts
 * (valid until the next insertion into the table), NULL on failure. One lookup: the entry a
 * first binding creates is the one the SSA check would have found missing. */
static fact* bind_fact(wf* w, const tvm_tir_var_obj* var, const char* field, int64_t index) {
  fact* f = obtain(&w->facts, var);
  if (!f) return NULL;
  if (f->flags & F_BOUND) {
    fail_at(&w->v, field, index, "variable `%s` is bound more than once (SSA)", vname(var));
    return NULL;
  }
  f->flags |= F_BOUND | F_SCOPE;
  return f;
}
static int bind(wf* w, const tvm_tir_var_obj* var, const char* field, int64_t index) {
  return bind_fact(w, var, field, index) ? 0 : -1;
}
static void unbind(wf* w, const void* var) { drop(w, var, F_SCOPE | F_RANGE); }

/* Visit value, the object field `field` of the current node (an object, array elements, map
 * values), as uses. Fields are read directly, not looked up by name: this runs per node. */
static int walk(wf* w, const void* obj, int64_t d);
static int walk_items(wf* w, const void* seq, int64_t d);

static int uses(wf* w, const void* value, const char* field) {
  if (w->track) return tvm_tir_visit_child(&w->v, value, field);
  if (!value) return 0;
  /* An Array's items are read directly (walk would go through walk_other). */
  return tvm_ffi_type_index(value) == kTVMFFIArray ? walk_items(w, value, w->v.depth + 1)
                                                   : walk(w, value, w->v.depth + 1);
}

/* Visit node at the current path + field[index]. */
static int visit_at(wf* w, const void* node, const char* field, int64_t index) {
  if (!node) return 0;
  if (wpush_attr(w, field) != 0) return -1;
  int rc = index >= 0 ? wpush_item(w, index) : 0;
  if (rc == 0) {
    rc = w->track ? tvm_tir_visit_node(&w->v, node) : walk(w, node, w->v.depth);
    if (index >= 0) wpop(w);
  }
  wpop(w);
  return rc;
}

/* ---- Buffers ------------------------------------------------------------------------------- */
/* How a declaration treats the buffer's data var and its shape/strides/elem_offset symbols. */
typedef enum {
  DECL_ALLOC,   /* data bound here; symbols must be in scope (block alloc_buffers) */
  DECL_DEFINE,  /* data bound here; Vars not in scope are defined here (buffer_map, match
                   buffers, BufferRealize) */
  DECL_DECLARE, /* DeclBuffer: data used if in scope (Allocate / LetStmt before it), else bound;
                   symbols must be in scope */
  DECL_DEFINE_VARS /* only the fields that are Vars not in scope are defined: a PrimFunc's first
                      round over its buffer_map, so that every buffer's variables are defined
                      before any field is checked (upstream's order: `(n * 32,)` may use the n
                      of a later buffer of shape (n, 32)) */
} decl_mode;

/* e (field[index] of the buffer at the current path): defined when a fresh Var and mode allows,
 * else a use. */
static int walk_imm(wf* w, const void* obj, int64_t d);

static int buffer_symbol(wf* w, const tvm_tir_buffer_obj* b, const void* e, decl_mode mode,
                         const char* field, int64_t index) {
  if (!e) return 0;
  /* The fast pass on a span-less constant (the usual shape / elem_offset): visit_at would only
   * check its depth, two steps down at most. */
  if (!w->track && w->v.depth + 2 <= TVM_FFI_STRUCTURAL_MAX_DEPTH) {
    tvm_tir_kind k = tir_kind_of(e);
    if (k >= 0 && w->walkers[k] == walk_imm && !((const tvm_tir_expr_obj*)e)->span) return 0;
  }
  if ((mode == DECL_DEFINE || mode == DECL_DEFINE_VARS) && tvm_tir_is_var(e)) {
    /* A Var not in scope is bound here (bind's steps on the one lookup: obtain creates the
     * entry only for a Var without one, which is then not in scope). */
    fact* f = obtain(&w->facts, e);
    if (!f) return -1;
    if (!(f->flags & F_SCOPE)) {
      if (f->flags & F_BOUND) {
        return fail_at(&w->v, field, index, "variable `%s` is bound more than once (SSA)",
                       vname(e));
      }
      f->flags |= F_BOUND | F_SCOPE;
      f->owner = b;
      return 0;
    }
  }
  if (mode == DECL_DEFINE_VARS) return 0;
  return visit_at(w, e, field, index);
}

/* Declare buffer b, found at the current path + field[index]. *out_data: whether its data var
 * was bound here (the caller unbinds it at the end of the scope). */
static int declare_buffer(wf* w, const tvm_tir_buffer_obj* b, decl_mode mode, const char* field,
                          int64_t index, bool* out_data) {
  *out_data = false;
  int pushed = 0, rc = 0;
  if (field && (rc = wpush_attr(w, field)) == 0) pushed++;
  if (rc == 0 && index >= 0 && (rc = wpush_item(w, index)) == 0) pushed++;
  bool vars_only = mode == DECL_DEFINE_VARS;
  if (rc == 0 && !vars_only && !(mode == DECL_DECLARE && has(w, b->data, F_SCOPE))) {
    rc = bind(w, b->data, "data", -1);
    *out_data = rc == 0;
  }
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(b->shape); ++i) {
    rc = buffer_symbol(w, b, tvm_ffi_seq_obj_at(b->shape, i), mode, "shape", i);
  }
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(b->strides); ++i) {
    rc = buffer_symbol(w, b, tvm_ffi_seq_obj_at(b->strides, i), mode, "strides", i);
  }
  if (rc == 0) rc = buffer_symbol(w, b, b->elem_offset, mode, "elem_offset", -1);
  while (pushed--) wpop(w);
  if (rc == 0 && !vars_only) rc = put(w, b, F_BUFFER);
  return rc;
}

static void unbind_symbol(wf* w, const tvm_tir_buffer_obj* b, const void* e) {
  fact* f = find(&w->facts, e);
  if (f && f->owner == (const void*)b) {
    unbind(w, e);
    f->owner = NULL;
  }
}

/* End of a declared buffer's scope: it, its data var (when bound by the declaration) and the
 * symbols it defined leave scope (they stay bound for the SSA check). */
static void undeclare_buffer(wf* w, const tvm_tir_buffer_obj* b, bool data_bound) {
  drop(w, b, F_BUFFER);
  if (data_bound) unbind(w, b->data);
  for (int64_t i = 0; i < tvm_ffi_seq_size(b->shape); ++i) {
    unbind_symbol(w, b, tvm_ffi_seq_obj_at(b->shape, i));
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(b->strides); ++i) {
    unbind_symbol(w, b, tvm_ffi_seq_obj_at(b->strides, i));
  }
  unbind_symbol(w, b, b->elem_offset);
}

/* The buffer of a load/store/region, at field "buffer" of the current node: declared, or a
 * view of memory whose data var is in scope (an Allocate's, another buffer's such as a
 * parameter's `A.data`, a let-bound handle): then its shape, strides and elem_offset are uses.
 * Upstream accepts these undeclared views (FlattenBuffer writes them). */
static int check_buffer_use(wf* w, const tvm_tir_buffer_obj* b) {
  if (has(w, b, F_BUFFER)) return 0;
  if (has(w, b->data, F_ALLOC) || has(w, b->data, F_SCOPE)) {
    int rc = wpush_attr(w, "buffer");
    if (rc == 0) {
      rc = uses(w, b->shape, "shape") || uses(w, b->strides, "strides") ||
                   uses(w, b->elem_offset, "elem_offset") ? -1 : 0;
      wpop(w);
    }
    return rc;
  }
  return fail_at(&w->v, "buffer", -1, "buffer `%s` is not declared in this scope",
                 tvm_tir_buffer_name(b));
}

/* ---- Expressions --------------------------------------------------------------------------- */
static int pre_var(tvm_tir_visitor* v, const void* node) {
  const fact* f = find(&SELF->facts, node);
  if (!f || !(f->flags & F_SCOPE)) {
    return fail_at(v, NULL, -1, "variable `%s` used outside its scope", vname(node));
  }
  return TVM_TIR_VISIT_SKIP;
}

static int pre_skip(tvm_tir_visitor* v, const void* node) {
  (void)v;
  (void)node;
  return TVM_TIR_VISIT_SKIP;
}

static int pre_let(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_let_obj* e = TIR_IS(node, Let) ? node : NULL;
  const tvm_tir_let_stmt_obj* s = e ? NULL : node;
  const void* var = e ? (const void*)e->var : (const void*)s->var;
  const void* value = e ? (const void*)e->value : (const void*)s->value;
  const void* body = e ? (const void*)e->body : (const void*)s->body;
  if (uses(SELF, value, "value") != 0 || bind(SELF, var, "var", -1) != 0) return -1;
  int rc = uses(SELF, body, "body");
  unbind(SELF, var);
  return rc ? -1 : TVM_TIR_VISIT_SKIP;
}

static int pre_buffer_load(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_load_obj* l = node;
  if (check_buffer_use(SELF, l->buffer) != 0 || uses(SELF, l->indices, "indices") != 0) return -1;
  return TVM_TIR_VISIT_SKIP;
}

/* ---- Statements ---------------------------------------------------------------------------- */
static int pre_buffer_store(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_store_obj* s = node;
  if (check_buffer_use(SELF, s->buffer) != 0 || uses(SELF, s->value, "value") != 0 ||
      uses(SELF, s->indices, "indices") != 0) {
    return -1;
  }
  return TVM_TIR_VISIT_SKIP;
}

/* Record the range of var (just bound) for proofs; the Range object is only made if a proof
 * needs it (ranges_dict), but its constructor's checks apply here, as if it were made. */
__attribute__((noinline)) /* rare: out of add_range's common path */
static int range_check(tvm_tir_expr_obj* min, tvm_tir_expr_obj* extent) {
  tvm_tir_range_obj* r = tvm_tir_range_new(min, extent); /* raises the constructor's error */
  if (!r) return -1;
  tvm_ffi_release(r);
  return 0;
}

/* f: the facts of the var just bound (bind_fact). */
static int add_range(fact* f, tvm_tir_expr_obj* min, tvm_tir_expr_obj* extent) {
  if (!min || !extent) return 0;
  if ((!tvm_tir_is(min, K(PrimExpr)) || !tvm_tir_is(extent, K(PrimExpr))) &&
      range_check(min, extent) != 0) {
    return -1;
  }
  f->flags |= F_RANGE;
  f->min = min;
  f->extent = extent;
  return 0;
}

/* The ranges in scope as an ffi.Dict Var -> Range (for tvm_tir_prove), NULL on failure. */
static void* ranges_dict(const wf* w) {
  void* dict = tvm_ffi_dict_new();
  for (size_t i = 0; dict && w->facts.mask && i <= w->facts.mask; ++i) {
    const fact* f = &w->facts.slots[i];
    if (!w->facts.keys[i] || !(f->flags & F_RANGE)) continue;
    tvm_tir_range_obj* r = tvm_tir_range_new(f->min, f->extent);
    TVMFFIAny k = tvm_ffi_any_obj(w->facts.keys[i]), val = tvm_ffi_any_obj(r);
    if (!r || tvm_ffi_dict_set(dict, &k, &val) != 0) {
      tvm_ffi_release(dict);
      dict = NULL;
    }
    tvm_ffi_release(r);
  }
  return dict;
}

static int pre_for(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_for_obj* f = node;
  fact* lf;
  if (uses(SELF, f->min, "min") != 0 || uses(SELF, f->extent, "extent") != 0 ||
      !(lf = bind_fact(SELF, f->loop_var, "loop_var", -1)) ||
      add_range(lf, f->min, f->extent) != 0) {
    return -1;
  }
  int rc = uses(SELF, f->body, "body");
  unbind(SELF, f->loop_var);
  return rc ? -1 : TVM_TIR_VISIT_SKIP;
}

static int pre_allocate(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_allocate_obj* a = node;
  if (uses(SELF, a->extents, "extents") != 0 || uses(SELF, a->condition, "condition") != 0 ||
      bind(SELF, a->buffer_var, "buffer_var", -1) != 0 || put(SELF, a->buffer_var, F_ALLOC)) {
    return -1;
  }
  int rc = uses(SELF, a->body, "body");
  unbind(SELF, a->buffer_var);
  drop(SELF, a->buffer_var, F_ALLOC);
  return rc ? -1 : TVM_TIR_VISIT_SKIP;
}

static int pre_attr_stmt(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_attr_stmt_obj* a = node;
  const char* key = tvm_ffi_str_cstr(a->attr_key);
  const void* n = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
  const void* var = NULL;
  if (strcmp(key, "thread_extent") == 0 || strcmp(key, "virtual_thread") == 0) {
    if (tvm_tir_is_var(n)) var = n;
    if (TIR_IS(n, IterVar)) var = ((const tvm_tir_iter_var_obj*)n)->var;
  }
  if (!var) return TVM_TIR_VISIT_CONTINUE;
  if (uses(SELF, a->value, "value") != 0) return -1;
  int rc = wpush_attr(SELF, "node");
  if (rc == 0) {
    rc = TIR_IS(n, IterVar) ? bind(SELF, var, "var", -1) : bind(SELF, var, NULL, -1);
    wpop(SELF);
  }
  if (rc == 0) rc = uses(SELF, a->body, "body");
  unbind(SELF, var);
  return rc ? -1 : TVM_TIR_VISIT_SKIP;
}

static int pre_decl_buffer(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_decl_buffer_obj* d = node;
  bool data, declared = has(SELF, d->buffer, F_BUFFER); /* e.g. a parameter's buffer */
  if (declare_buffer(SELF, d->buffer, DECL_DECLARE, "buffer", -1, &data) != 0) return -1;
  int rc = uses(SELF, d->body, "body");
  if (!declared) undeclare_buffer(SELF, d->buffer, data);
  return rc ? -1 : TVM_TIR_VISIT_SKIP;
}

static int pre_buffer_realize(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_realize_obj* r = node;
  bool data;
  if (declare_buffer(SELF, r->buffer, DECL_DEFINE, "buffer", -1, &data) != 0) return -1;
  int rc = uses(SELF, r->bounds, "bounds");
  if (rc == 0) rc = uses(SELF, r->condition, "condition");
  if (rc == 0) rc = uses(SELF, r->body, "body");
  undeclare_buffer(SELF, r->buffer, data);
  return rc ? -1 : TVM_TIR_VISIT_SKIP;
}

/* O4: one range per dimension, on a buffer in scope. */
static int pre_buffer_region(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_region_obj* r = node;
  if (check_buffer_use(SELF, r->buffer) != 0) return -1;
  int64_t n = tvm_ffi_seq_size(r->region), ndim = tvm_tir_buffer_ndim(r->buffer);
  if (n != ndim) {
    return fail_at(v, "region", -1,
                   "region of buffer `%s` has %lld ranges for %lld dimensions (rule "
                   "O-BUFFERREGION, spec O4)",
                   tvm_tir_buffer_name(r->buffer), (long long)n, (long long)ndim);
  }
  return uses(SELF, r->region, "region") ? -1 : TVM_TIR_VISIT_SKIP;
}

static int pre_sblock_realize(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_sblock_realize_obj* r = node;
  int64_t nv = tvm_ffi_seq_size(r->iter_values), ni = tvm_ffi_seq_size(r->block->iter_vars);
  if (nv != ni) {
    return fail_at(v, "iter_values", -1,
                   "%lld iter_values for block `%s` with %lld iter_vars (rule S-BLOCKREALIZE, "
                   "spec S14)",
                   (long long)nv, tvm_ffi_str_cstr(r->block->name_hint), (long long)ni);
  }
  for (int64_t i = 0; i < nv; ++i) {
    const tvm_tir_expr_obj* val = tvm_ffi_seq_obj_at(r->iter_values, i);
    const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(r->block->iter_vars, i);
    if (!tvm_tir_dtype_equal(val->dtype, iv->var->expr.dtype)) {
      return fail_at(v, "iter_values", i,
                     "iter value of dtype %s bound to iter var `%s` of dtype %s (rule "
                     "S-BLOCKREALIZE)",
                     tvm_tir_dtype_str(val->dtype).s, vname(iv->var),
                     tvm_tir_dtype_str(iv->var->expr.dtype).s);
    }
  }
  if (uses(SELF, r->iter_values, "iter_values") != 0 ||
      uses(SELF, r->predicate, "predicate") != 0 || uses(SELF, r->block, "block") != 0) {
    return -1;
  }
  return TVM_TIR_VISIT_SKIP;
}

/* prove a == b (casting b to a's dtype when they differ); false when it cannot be shown. */
static bool prove_equal(wf* w, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  tvm_tir_expr_obj* bb = tvm_tir_cast(a->dtype, b);
  tvm_tir_expr_obj* eq = bb ? tvm_tir_eq(a, bb) : NULL;
  void* ranges = eq ? ranges_dict(w) : NULL;
  int r = ranges ? tvm_tir_prove(eq, ranges) : -1;
  tvm_ffi_release(ranges);
  tvm_ffi_release(bb);
  tvm_ffi_release(eq);
  if (r < 0) tvm_ffi_error_clear();
  return r == 1;
}

/* O5 on match_buffers[j] (the current path is the block). */
static int check_match_buffer(wf* w, const tvm_tir_match_buffer_region_obj* mb, int64_t j) {
  const tvm_tir_buffer_obj* buf = mb->buffer;
  const tvm_tir_buffer_obj* src = mb->source->buffer;
  const char* name = tvm_tir_buffer_name(buf);
  const char* why = NULL;
  if (!tvm_tir_dtype_equal(buf->dtype, src->dtype)) {
    why = "its dtype differs from the source buffer's (item 2)";
  } else if (buf->data_alignment <= 0 || src->data_alignment % buf->data_alignment != 0) {
    why = "the source alignment is not a multiple of its alignment (item 3)";
  } else if (strcmp(tvm_tir_buffer_scope(buf), tvm_tir_buffer_scope(src)) != 0) {
    why = "its storage scope differs from the source buffer's (item 5)";
  } else if (buf->buffer_type != TVM_TIR_BUFFER_DEFAULT ||
             src->buffer_type != TVM_TIR_BUFFER_DEFAULT) {
    why = "buffer types must be kDefault (item 6)";
  }
  if (why) {
    return fail_at(&w->v, "match_buffers", j, "match_buffer `%s`: %s (rule O-MATCHBUFFER, spec O5)",
                   name, why);
  }
  void* region = mb->source->region;
  int64_t nr = tvm_ffi_seq_size(region), ns = tvm_ffi_seq_size(buf->shape);
  int64_t offset = nr - ns;
  if (offset < 0) {
    return fail_at(&w->v, "match_buffers", j,
                   "match_buffer `%s`: %lld dimensions for a region of %lld (rule O-MATCHBUFFER, "
                   "spec O5 item 7)",
                   name, (long long)ns, (long long)nr);
  }
  tvm_tir_expr_obj* one = tvm_tir_int(1);
  if (!one) return -1;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < nr; ++i) {
    const tvm_tir_range_obj* r = tvm_ffi_seq_obj_at(region, i);
    tvm_tir_expr_obj* shape = i >= offset ? tvm_ffi_seq_obj_at(buf->shape, i - offset) : NULL;
    if (i >= offset && tvm_tir_is_var(shape)) continue; /* bound by the match */
    tvm_tir_expr_obj* want = i < offset ? one : shape;
    if (!r->extent || !prove_equal(w, want, r->extent)) {
      rc = -1;
      if (wpush_attr(w, "match_buffers") != 0) break;
      if (wpush_item(w, j) == 0) {
        tvm_ffi_strbuf t = {0};
        tvm_tir__text(&t, want);
        rc = fail_at(&w->v, "source", -1,
                     "match_buffer `%s`: cannot prove that the extent of region[%lld] equals %s "
                     "(rule O-MATCHBUFFER, spec O5 item %d)",
                     name, (long long)i, tvm_ffi_strbuf_cstr(&t), i < offset ? 8 : 9);
        tvm_ffi_strbuf_free(&t);
        wpop(w);
      }
      wpop(w);
    }
  }
  tvm_ffi_release(one);
  return rc;
}

static int visit_block(wf* w, const tvm_tir_sblock_obj* b) {
  int64_t ni = tvm_ffi_seq_size(b->iter_vars);
  int64_t na = tvm_ffi_seq_size(b->alloc_buffers), nm = tvm_ffi_seq_size(b->match_buffers);
  /* Iter vars: domains are uses outside the block; the vars are bound in it. */
  for (int64_t i = 0; i < ni; ++i) {
    const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(b->iter_vars, i);
    int rc = wpush_attr(w, "iter_vars");
    if (rc == 0) {
      rc = wpush_item(w, i);
      if (rc == 0) {
        rc = uses(w, iv->dom, "dom");
        wpop(w);
      }
      wpop(w);
    }
    if (rc != 0) return -1;
  }
  /* An init in a block without a kCommReduce iter var is well formed: it runs every time
   * (upstream's verifier accepts it; LowerInitBlock emits it unconditionally). */
  for (int64_t i = 0; i < ni; ++i) {
    const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(b->iter_vars, i);
    fact* vf = NULL;
    int rc = wpush_attr(w, "iter_vars");
    if (rc == 0) {
      rc = wpush_item(w, i);
      if (rc == 0) {
        rc = (vf = bind_fact(w, iv->var, "var", -1)) ? 0 : -1;
        wpop(w);
      }
      wpop(w);
    }
    if (rc == 0 && iv->dom) rc = add_range(vf, iv->dom->min, iv->dom->extent);
    if (rc != 0) return -1;
  }
  for (int64_t i = 0; i < na; ++i) {
    bool data;
    if (declare_buffer(w, tvm_ffi_seq_obj_at(b->alloc_buffers, i), DECL_ALLOC, "alloc_buffers", i,
                       &data) != 0) {
      return -1;
    }
  }
  for (int64_t j = 0; j < nm; ++j) {
    const tvm_tir_match_buffer_region_obj* mb = tvm_ffi_seq_obj_at(b->match_buffers, j);
    bool data;
    int rc = wpush_attr(w, "match_buffers");
    if (rc == 0) {
      rc = wpush_item(w, j);
      if (rc == 0) {
        rc = uses(w, mb->source, "source");
        wpop(w);
      }
      wpop(w);
    }
    if (rc == 0) rc = check_match_buffer(w, mb, j);
    if (rc == 0) {
      rc = wpush_attr(w, "match_buffers");
      if (rc == 0) {
        rc = declare_buffer(w, mb->buffer, DECL_DEFINE, NULL, j, &data);
        wpop(w);
      }
    }
    if (rc != 0) return -1;
  }
  if (uses(w, b->reads, "reads") != 0 || uses(w, b->writes, "writes") != 0) return -1;
  /* The init may read the reduction iter vars, as upstream accepts (they equal the minimum of
   * their domain when it runs). */
  if (b->init && uses(w, b->init, "init") != 0) return -1;
  if (uses(w, b->body, "body") != 0) return -1;
  /* Leave the block's scope. */
  for (int64_t i = 0; i < na; ++i) {
    const tvm_tir_buffer_obj* buf = tvm_ffi_seq_obj_at(b->alloc_buffers, i);
    undeclare_buffer(w, buf, true);
  }
  for (int64_t j = 0; j < nm; ++j) {
    const tvm_tir_match_buffer_region_obj* mb = tvm_ffi_seq_obj_at(b->match_buffers, j);
    undeclare_buffer(w, mb->buffer, true);
  }
  for (int64_t i = 0; i < ni; ++i) {
    unbind(w, ((const tvm_tir_iter_var_obj*)tvm_ffi_seq_obj_at(b->iter_vars, i))->var);
  }
  return 0;
}

static int pre_sblock(tvm_tir_visitor* v, const void* node) {
  return visit_block(SELF, node) ? -1 : TVM_TIR_VISIT_SKIP;
}

static int buffer_map_round(wf* w, const tvm_tir_prim_func_obj* f, decl_mode mode);

static int pre_prim_func(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_prim_func_obj* f = node;
  int64_t n = tvm_ffi_seq_size(f->params);
  for (int64_t i = 0; i < n; ++i) {
    if (bind(SELF, tvm_ffi_seq_obj_at(f->params, i), "params", i) != 0) return -1;
  }
  /* buffer_map: each buffer's data is bound; its symbolic shape Vars are defined here, every
   * buffer's before any buffer's other fields are checked (round 0 defines, round 1 checks). */
  for (int round = 0; round < 2; ++round) {
    if (buffer_map_round(SELF, f, round ? DECL_DEFINE : DECL_DEFINE_VARS) != 0) return -1;
  }
  /* Its attrs see the parameters and the buffer_map's variables, not the body's. */
  if (uses(SELF, f->func.attrs, "attrs") != 0) return -1;
  return uses(SELF, f->body, "body") ? -1 : TVM_TIR_VISIT_SKIP;
}

static int buffer_map_round(wf* w, const tvm_tir_prim_func_obj* f, decl_mode mode) {
  const TVMFFIAny *key, *val;
  /* A Map's (or Dict's) entries are read directly (tvm_ffi__map_entries), in the order
   * tvm_ffi_map_next gives them; anything else takes tvm_ffi_map_next, which reports it. */
  const void* map = f->buffer_map;
  int32_t mt = map ? tvm_ffi_type_index(map) : kTVMFFINone;
  bool direct = mt == kTVMFFIMap || mt == kTVMFFIDict;
  int64_t count = 0, i = 0;
  const char* entries = direct ? tvm_ffi__map_entries(map, &count) : NULL;
  for (int64_t pos = 0;;) {
    if (direct) {
      if (i == count) break;
      key = (const TVMFFIAny*)(entries + i++ * TVM_FFI__MAP_ENTRY_SIZE);
      if (key->type_index == TVM_FFI__MAP_DEAD) continue;
      val = key + 1;
    } else if ((pos = tvm_ffi_map_next(map, pos, &key, &val)) < 0) {
      break;
    }
    /* A tir.Buffer (the usual value) is told by its type index; anything else asks ffi (a
     * type derived from Buffer elsewhere). */
    const tvm_tir_buffer_obj* b =
        tvm_ffi_any_is_object(val) && TIR_IS(val->v_obj, Buffer)
            ? val->v_obj
            : tvm_ffi_any_as_object(val, tvm_tir_type_index(K(Buffer)));
    if (!b) continue;
    bool data;
    int rc = wpush_attr(w, "buffer_map");
    if (rc == 0) {
      rc = wpush_key(w, key);
      if (rc == 0) {
        rc = declare_buffer(w, b, mode, NULL, -1, &data);
        wpop(w);
      }
      wpop(w);
    }
    if (rc != 0) return -1;
  }
  return 0;
}

/* The callbacks by kind. */
static const tvm_tir_visit_fn k_pre[TVM_TIR_KIND_COUNT] = {
    [K(Var)] = pre_var,
    [K(SizeVar)] = pre_var,
    [K(Let)] = pre_let,
    [K(LetStmt)] = pre_let,
    [K(BufferLoad)] = pre_buffer_load,
    [K(BufferStore)] = pre_buffer_store,
    [K(For)] = pre_for,
    [K(Allocate)] = pre_allocate,
    [K(AttrStmt)] = pre_attr_stmt,
    [K(DeclBuffer)] = pre_decl_buffer,
    [K(BufferRealize)] = pre_buffer_realize,
    [K(BufferRegion)] = pre_buffer_region,
    [K(SBlockRealize)] = pre_sblock_realize,
    [K(SBlock)] = pre_sblock,
    [K(PrimFunc)] = pre_prim_func,
    /* Reached only where they are not uses: a buffer's internals are checked where it is
     * declared; a For's thread_binding IterVar binds nothing of the body; types hold no Vars
     * of the function. */
    [K(Buffer)] = pre_skip,
    [K(IterVar)] = pre_skip,
    [K(PrimType)] = pre_skip,
    [K(PointerType)] = pre_skip,
    [K(TupleType)] = pre_skip,
    /* Their Vars are bound inside them, not uses of the function's. */
    [K(CommReducer)] = pre_skip,
    [K(IndexMap)] = pre_skip,
};

bool tvm_tir__wf_rule(tvm_tir_kind kind) {
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT && k_pre[kind] != NULL;
}

/* ---- The fast pass's walk -------------------------------------------------------------------
 * What tvm_tir_visit does with the callbacks of k_pre (no defaults, no post callbacks), node for
 * node and field for field (see visit.c), counting path steps instead of recording them. */
static bool is_seq_type(int32_t t) { return t == kTVMFFIArray || t == kTVMFFIList; }
static bool is_map_type(int32_t t) { return t == kTVMFFIMap || t == kTVMFFIDict; }
/* An object worth visiting (what the generic walk visits, as visit.c's any_child: not a string
 * or bytes). Used by the fast pass and the structure pass. */
static const void* child_object(const TVMFFIAny* a) {
  if (!tvm_ffi_any_is_object(a) || a->type_index == kTVMFFIStr || a->type_index == kTVMFFIBytes) {
    return NULL;
  }
  return a->v_obj;
}

/* The object a reflected field of node holds that a generic walk visits, or NULL. */
static const void* field_child(const void* node, const TVMFFIFieldInfo* f) {
  const char* addr = (const char*)node + f->offset;
  int32_t st = f->field_static_type_index;
  if (st == kTVMFFIAny) return child_object((const TVMFFIAny*)addr);
  return st >= kTVMFFIStaticObjectBegin && st != kTVMFFIStr && st != kTVMFFIBytes
             ? *(void* const*)addr
             : NULL;
}

/* What the generic walk visits of a (non-NULL) field value or container item at depth d: its
 * own checks and children (walk). */
static int walk(wf* w, const void* obj, int64_t d);

/* Generic children of a libtir node of kind k at depth d, from the child tables (a field one
 * step below, a container's items one more). */
static int walk_fields(wf* w, const void* node, tvm_tir_kind k, int64_t d) {
  const tvm_tir__children* c = w->children;
  for (int32_t i = c->start[k], end = c->start[k + 1]; i < end; ++i) {
    const tvm_tir__child_field* f = &c->f[i];
    const char* addr = (const char*)node + f->offset;
    const void* val;
    if (f->type == kTVMFFIAny) {
      val = child_object((const TVMFFIAny*)addr);
    } else if (f->type != kTVMFFIStr && f->type != kTVMFFIBytes) {
      val = *(void* const*)addr; /* the table holds object fields only */
    } else {
      continue;
    }
    if (val && walk(w, val, d + 1) != 0) return -1;
  }
  return 0;
}

/* Children of a non-libtir object at depth d (as tvm_tir_visit_children): a container's items /
 * values, else its reflected object fields. */
__attribute__((noinline)) /* out of walk, which must stay small (see walk) */
static int walk_other(wf* w, const void* obj, int64_t d) {
  int32_t t = tvm_ffi_type_index(obj);
  if (is_seq_type(t)) {
    int64_t n = tvm_ffi_seq_size(obj);
    const TVMFFIAny* items = tvm_ffi_seq_data(obj);
    for (int64_t i = 0; i < n; ++i) {
      const void* child = child_object(&items[i]);
      if (child && walk(w, child, d + 1) != 0) return -1;
    }
    return 0;
  }
  if (is_map_type(t)) {
    const TVMFFIAny *key, *val;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(obj, pos, &key, &val)) >= 0;) {
      const void* child = child_object(val);
      if (child && walk(w, child, d + 1) != 0) return -1;
    }
    return 0;
  }
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = 0; i < n; ++i) {
    const void* val = field_child(obj, fields[i]);
    if (val && walk(w, val, d + 1) != 0) return -1;
  }
  return 0;
}

/* A callback of k_pre on node at depth d: the callbacks read the depth from the visitor, which
 * the caller (a callback too, maybe) gets back as it was. */
static inline int call_pre(wf* w, tvm_tir_visit_fn pre, const void* node, int64_t d) {
  int64_t saved = w->v.depth;
  w->v.depth = d;
  int r = pre(&w->v, node);
  w->v.depth = saved;
  return r;
}
static int walk_pre(wf* w, tvm_tir_visit_fn pre, const void* node, tvm_tir_kind k, int64_t d) {
  int r = call_pre(w, pre, node, d);
  if (r < 0) return -1;
  return r == TVM_TIR_VISIT_SKIP ? 0 : walk_fields(w, node, k, d);
}

/*
 * The per-kind walk: walk dispatches a node to its kind's walker (wf.walkers, built per set of
 * child tables by walkers_of). For the kinds without a callback the generic walk visits the
 * reflected object fields in order; where the child tables show exactly the fields the struct
 * declares, the kind's walker reads those fields directly, in the same order, instead of
 * through the tables (walk_generic otherwise). Small functions, one per kind, keep the per-node
 * cost low (few saved registers; the last child is a tail call). Depths are those the generic
 * walk counts: a field one step below its node, a container's items one more.
 */

#define CHILD(val)                                \
  do {                                            \
    const void* c_ = (val);                       \
    if (c_ && walk(w, c_, d + 1) != 0) return -1; \
  } while (0)
#define LAST_CHILD(val)                           \
  do {                                            \
    const void* c_ = (val);                       \
    return c_ ? walk(w, c_, d + 1) : 0;           \
  } while (0)
#define ITEMS(val)                                       \
  do {                                                   \
    if (walk_items(w, (val), d + 1) != 0) return -1;     \
  } while (0)

/* A field's value at depth d (NULL: none), as walk, but an Array's items are read here (the
 * usual value of the fields read this way), one step below. */
static int walk_items(wf* w, const void* seq, int64_t d) {
  if (!seq) return 0;
  if (tvm_ffi_type_index(seq) != kTVMFFIArray) return walk(w, seq, d);
  if (d > TVM_FFI_STRUCTURAL_MAX_DEPTH) return -1; /* as walk does (the tracking pass raises) */
  int64_t n = tvm_ffi_seq_size(seq);
  const TVMFFIAny* items = tvm_ffi_seq_data(seq);
  for (int64_t i = 0; i < n; ++i) {
    const void* child = child_object(&items[i]);
    if (child && walk(w, child, d + 1) != 0) return -1;
  }
  return 0;
}

static int walk_imm(wf* w, const void* obj, int64_t d);

/* The leaves most nodes are (Var uses, constants) are answered here without a call. */
static int walk(wf* w, const void* obj, int64_t d) {
  if (d > TVM_FFI_STRUCTURAL_MAX_DEPTH) return -1; /* the tracking pass raises it */
  tvm_tir_kind k = tir_kind_of(obj);
  if (k < 0) return walk_other(w, obj, d);
  if (k == K(Var) || k == K(SizeVar)) { /* walk_var, which they always have */
    const fact* f = find(&w->facts, obj);
    return f && (f->flags & F_SCOPE) ? 0 : -1;
  }
  walker fn = w->walkers[k];
  if (fn == walk_imm && !((const tvm_tir_expr_obj*)obj)->span) return 0; /* no children */
  return fn(w, obj, d);
}

/* Any kind, through k_pre and the child tables. */
static int walk_generic(wf* w, const void* obj, int64_t d) {
  tvm_tir_kind k = tir_kind_of(obj);
  tvm_tir_visit_fn pre = k_pre[k];
  return pre ? walk_pre(w, pre, obj, k, d) : walk_fields(w, obj, k, d);
}

/* Var, SizeVar: pre_var, answering only whether it passes (no children: it skips). */
static int walk_var(wf* w, const void* obj, int64_t d) {
  (void)d;
  const fact* f = find(&w->facts, obj);
  return f && (f->flags & F_SCOPE) ? 0 : -1;
}

/* The kinds whose callback skips always: pre_skip, and the callbacks called directly. */
static int walk_skip(wf* w, const void* obj, int64_t d) {
  (void)w, (void)obj, (void)d;
  return 0;
}
/* BufferLoad, BufferStore: their callbacks, inline where the buffer is declared (else they
 * check a view of an Allocate, or fail); a field's uses at depth d + 1 as uses() walks them. */
static int walk_buffer_load(wf* w, const void* obj, int64_t d) {
  const tvm_tir_buffer_load_obj* l = obj;
  if (!has(w, l->buffer, F_BUFFER)) return call_pre(w, pre_buffer_load, obj, d) < 0 ? -1 : 0;
  return walk_items(w, l->indices, d + 1);
}
/* BufferRegion: pre_buffer_region, inline where the buffer is declared and the region has a
 * range per dimension. */
static int walk_buffer_region(wf* w, const void* obj, int64_t d) {
  const tvm_tir_buffer_region_obj* r = obj;
  if (!has(w, r->buffer, F_BUFFER) ||
      tvm_ffi_seq_size(r->region) != tvm_tir_buffer_ndim(r->buffer)) {
    return call_pre(w, pre_buffer_region, obj, d) < 0 ? -1 : 0;
  }
  return walk_items(w, r->region, d + 1);
}
/* SBlock, PrimFunc: their callbacks, which always skip (or fail). */
static int walk_sblock(wf* w, const void* obj, int64_t d) {
  return call_pre(w, pre_sblock, obj, d) < 0 ? -1 : 0;
}
static int walk_prim_func(wf* w, const void* obj, int64_t d) {
  return call_pre(w, pre_prim_func, obj, d) < 0 ? -1 : 0;
}
static int walk_buffer_store(wf* w, const void* obj, int64_t d) {
  const tvm_tir_buffer_store_obj* s = obj;
  if (!has(w, s->buffer, F_BUFFER)) return call_pre(w, pre_buffer_store, obj, d) < 0 ? -1 : 0;
  if (s->value && walk(w, s->value, d + 1) != 0) return -1;
  return walk_items(w, s->indices, d + 1);
}
/* For: pre_for's steps, in its order, with its uses walked directly at depth d + 1 (bind and
 * add_range read no depth; in the fast pass a violation only makes them return -1). */
static int walk_for(wf* w, const void* obj, int64_t d) {
  const tvm_tir_for_obj* f = obj;
  fact* lf;
  if ((f->min && walk(w, f->min, d + 1) != 0) || (f->extent && walk(w, f->extent, d + 1) != 0) ||
      !(lf = bind_fact(w, f->loop_var, "loop_var", -1)) ||
      add_range(lf, f->min, f->extent) != 0) {
    return -1;
  }
  int rc = f->body ? walk(w, f->body, d + 1) : 0;
  unbind(w, f->loop_var);
  return rc;
}

/* The kinds without a callback whose fields are read directly. */
#define SPAN_OF(obj) (((const tvm_tir_stmt_obj*)(obj))->span) /* every Expr / Stmt's first */
static int walk_imm(wf* w, const void* obj, int64_t d) { LAST_CHILD(SPAN_OF(obj)); }
static int walk_cast(wf* w, const void* obj, int64_t d) {
  CHILD(SPAN_OF(obj));
  LAST_CHILD(((const tvm_tir_cast_obj*)obj)->value);
}
static int walk_broadcast(wf* w, const void* obj, int64_t d) {
  CHILD(SPAN_OF(obj));
  LAST_CHILD(((const tvm_tir_broadcast_obj*)obj)->value);
}
static int walk_not(wf* w, const void* obj, int64_t d) {
  CHILD(SPAN_OF(obj));
  LAST_CHILD(((const tvm_tir_not_obj*)obj)->a);
}
static int walk_binary(wf* w, const void* obj, int64_t d) {
  const tvm_tir_binary_obj* e = obj;
  CHILD(e->expr.span);
  CHILD(e->a);
  LAST_CHILD(e->b);
}
static int walk_select(wf* w, const void* obj, int64_t d) {
  const tvm_tir_select_obj* e = obj;
  CHILD(e->expr.span);
  CHILD(e->condition);
  CHILD(e->true_value);
  LAST_CHILD(e->false_value);
}
static int walk_ramp(wf* w, const void* obj, int64_t d) {
  const tvm_tir_ramp_obj* e = obj;
  CHILD(e->expr.span);
  CHILD(e->base);
  LAST_CHILD(e->stride);
}
static int walk_call(wf* w, const void* obj, int64_t d) {
  const tvm_tir_call_obj* e = obj;
  CHILD(e->expr.span);
  CHILD(e->op);
  return walk_items(w, e->args, d + 1);
}
static int walk_shuffle(wf* w, const void* obj, int64_t d) {
  const tvm_tir_shuffle_obj* e = obj;
  CHILD(e->expr.span);
  ITEMS(e->vectors);
  return walk_items(w, e->indices, d + 1);
}
static int walk_relax_expr(wf* w, const void* obj, int64_t d) { /* Op, GlobalVar */
  const tvm_tir_relax_expr_obj* e = obj;
  CHILD(e->span);
  LAST_CHILD(e->struct_info_);
}
static int walk_assert(wf* w, const void* obj, int64_t d) {
  const tvm_tir_assert_stmt_obj* s = obj;
  CHILD(s->stmt.span);
  CHILD(s->condition);
  CHILD(s->message);
  CHILD(s->body);
  LAST_CHILD(s->kind);
}
static int walk_seq(wf* w, const void* obj, int64_t d) {
  const tvm_tir_seq_stmt_obj* s = obj;
  CHILD(s->stmt.span);
  return walk_items(w, s->seq, d + 1);
}
static int walk_if(wf* w, const void* obj, int64_t d) {
  const tvm_tir_if_then_else_obj* s = obj;
  CHILD(s->stmt.span);
  CHILD(s->condition);
  CHILD(s->then_case);
  LAST_CHILD(s->else_case);
}
static int walk_evaluate(wf* w, const void* obj, int64_t d) {
  CHILD(SPAN_OF(obj));
  LAST_CHILD(((const tvm_tir_evaluate_obj*)obj)->value);
}
static int walk_while(wf* w, const void* obj, int64_t d) {
  const tvm_tir_while_obj* s = obj;
  CHILD(s->stmt.span);
  CHILD(s->condition);
  LAST_CHILD(s->body);
}
static int walk_range(wf* w, const void* obj, int64_t d) {
  const tvm_tir_range_obj* r = obj;
  CHILD(r->min);
  LAST_CHILD(r->extent);
}
#undef SPAN_OF
#undef CHILD
#undef LAST_CHILD
#undef ITEMS

/* The walkers for one set of child tables. */
typedef struct kind_walkers {
  const tvm_tir__children* src; /* the tables this was built for */
  struct kind_walkers* prev;    /* replaced ones stay alive: another thread may be reading one */
  walker fn[TVM_TIR_KIND_COUNT];
} kind_walkers;

static kind_walkers* g_walkers;

/* Every kind through its callback and the tables (when out of memory). */
static const walker k_generic_walkers[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) walk_generic,
#include <tvm/tir/nodes.def>
};

/* Whether kind k's generically walked fields (its table's object fields other than strings and
 * bytes) are exactly the pointer fields at offsets off[0..n-1], in this order. */
static bool fields_are(const tvm_tir__children* c, tvm_tir_kind k, int n, const size_t* off) {
  int j = 0;
  for (int32_t i = c->start[k]; i < c->start[k + 1]; ++i) {
    const tvm_tir__child_field* f = &c->f[i];
    if (f->type == kTVMFFIStr || f->type == kTVMFFIBytes) continue;
    if (j == n || f->type == kTVMFFIAny || f->offset != (int64_t)off[j]) return false;
    j++;
  }
  return j == n;
}

static void walkers_fill(const tvm_tir__children* c, walker* fn) {
  memcpy(fn, k_generic_walkers, sizeof(k_generic_walkers));
#define SPAN offsetof(tvm_tir_expr_obj, span)
#define DIRECT(Kind, walk_fn, ...)                                                      \
  do {                                                                                  \
    const size_t off_[] = {__VA_ARGS__};                                                \
    if (fields_are(c, K(Kind), (int)(sizeof(off_) / sizeof(*off_)), off_)) {           \
      fn[K(Kind)] = walk_fn;                                                            \
    }                                                                                   \
  } while (0)
  DIRECT(IntImm, walk_imm, SPAN);
  DIRECT(FloatImm, walk_imm, SPAN);
  DIRECT(StringImm, walk_imm, SPAN);
  DIRECT(Cast, walk_cast, SPAN, offsetof(tvm_tir_cast_obj, value));
  DIRECT(Broadcast, walk_broadcast, SPAN, offsetof(tvm_tir_broadcast_obj, value));
  DIRECT(Not, walk_not, SPAN, offsetof(tvm_tir_not_obj, a));
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) \
  DIRECT(Name, walk_binary, SPAN, offsetof(tvm_tir_binary_obj, a), offsetof(tvm_tir_binary_obj, b));
#include <tvm/tir/nodes.def>
  DIRECT(Select, walk_select, SPAN, offsetof(tvm_tir_select_obj, condition),
         offsetof(tvm_tir_select_obj, true_value), offsetof(tvm_tir_select_obj, false_value));
  DIRECT(Ramp, walk_ramp, SPAN, offsetof(tvm_tir_ramp_obj, base),
         offsetof(tvm_tir_ramp_obj, stride));
  DIRECT(Call, walk_call, SPAN, offsetof(tvm_tir_call_obj, op), offsetof(tvm_tir_call_obj, args));
  DIRECT(Shuffle, walk_shuffle, SPAN, offsetof(tvm_tir_shuffle_obj, vectors),
         offsetof(tvm_tir_shuffle_obj, indices));
  DIRECT(Op, walk_relax_expr, SPAN, offsetof(tvm_tir_relax_expr_obj, struct_info_));
  DIRECT(GlobalVar, walk_relax_expr, SPAN, offsetof(tvm_tir_relax_expr_obj, struct_info_));
  DIRECT(AssertStmt, walk_assert, SPAN, offsetof(tvm_tir_assert_stmt_obj, condition),
         offsetof(tvm_tir_assert_stmt_obj, message), offsetof(tvm_tir_assert_stmt_obj, body),
         offsetof(tvm_tir_assert_stmt_obj, kind));
  DIRECT(SeqStmt, walk_seq, SPAN, offsetof(tvm_tir_seq_stmt_obj, seq));
  DIRECT(IfThenElse, walk_if, SPAN, offsetof(tvm_tir_if_then_else_obj, condition),
         offsetof(tvm_tir_if_then_else_obj, then_case),
         offsetof(tvm_tir_if_then_else_obj, else_case));
  DIRECT(Evaluate, walk_evaluate, SPAN, offsetof(tvm_tir_evaluate_obj, value));
  DIRECT(While, walk_while, SPAN, offsetof(tvm_tir_while_obj, condition),
         offsetof(tvm_tir_while_obj, body));
  DIRECT(Range, walk_range, offsetof(tvm_tir_range_obj, min), offsetof(tvm_tir_range_obj, extent));
#undef DIRECT
#undef SPAN
  /* Callbacks that always skip (or fail): the tables are never read for these kinds. */
  fn[K(Var)] = fn[K(SizeVar)] = walk_var;
  fn[K(BufferLoad)] = walk_buffer_load;
  fn[K(BufferStore)] = walk_buffer_store;
  fn[K(BufferRegion)] = walk_buffer_region;
  fn[K(SBlock)] = walk_sblock;
  fn[K(PrimFunc)] = walk_prim_func;
  fn[K(For)] = walk_for;
  static const tvm_tir_kind skipping[] = {K(Buffer),    K(IterVar),     K(PrimType), K(PointerType),
                                          K(TupleType), K(CommReducer), K(IndexMap)};
  for (size_t i = 0; i < sizeof(skipping) / sizeof(*skipping); ++i) fn[skipping[i]] = walk_skip;
}

/* The walkers for tables c (built once per set of tables), NULL when out of memory. */
static const kind_walkers* walkers_of(const tvm_tir__children* c) {
  kind_walkers* cur = __atomic_load_n(&g_walkers, __ATOMIC_ACQUIRE);
  if (cur && cur->src == c) return cur;
  kind_walkers* kw = tvm_ffi_malloc(sizeof(kind_walkers));
  if (!kw) return NULL;
  kw->src = c;
  walkers_fill(c, kw->fn);
  kw->prev = cur;
  if (__atomic_compare_exchange_n(&g_walkers, &kw->prev, kw, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    return kw;
  }
  /* Another thread published first (kw->prev now holds its table). */
  kind_walkers* winner = kw->prev;
  tvm_ffi_free(kw);
  return winner->src == c ? winner : NULL;
}

/* ---- Structure ------------------------------------------------------------------------------
 * A first pass (the scoped pass dereferences fields freely): every object field of a libtir
 * node is present unless optional, and the arrays the scoped pass reads hold the right kinds.
 * Constructors guarantee this; deserialized IR may not. */
static bool optional_field(tvm_tir_kind k, const char* f) {
  static const char* const any_kind[] = {"span", "struct_info_", "else_case", "thread_binding",
                                         "init", "dom"};
  for (size_t i = 0; i < sizeof(any_kind) / sizeof(*any_kind); ++i) {
    if (strcmp(f, any_kind[i]) == 0) return true;
  }
  return (k == K(Range) && strcmp(f, "extent") == 0) ||
         (k == K(AssertStmt) && strcmp(f, "kind") == 0);
}

static tvm_tir_kind element_kind(const char* f) {
  static const struct {
    const char* field;
    tvm_tir_kind kind;
  } table[] = {{"params", K(Var)},          {"iter_vars", K(IterVar)},
               {"alloc_buffers", K(Buffer)}, {"match_buffers", K(MatchBufferRegion)},
               {"reads", K(BufferRegion)},   {"writes", K(BufferRegion)},
               {"iter_values", K(PrimExpr)}, {"indices", K(PrimExpr)},
               {"shape", K(PrimExpr)},       {"strides", K(PrimExpr)},
               {"extents", K(PrimExpr)},     {"args", K(PrimExpr)},
               {"region", K(Range)},         {"bounds", K(Range)},
               {"seq", K(Stmt)}};
  for (size_t i = 0; i < sizeof(table) / sizeof(*table); ++i) {
    if (strcmp(f, table[i].field) == 0) return table[i].kind;
  }
  return TVM_TIR_KIND_NONE;
}

static int pre_structure(tvm_tir_visitor* v, const void* node) {
  tvm_tir_kind k = tvm_tir_kind_of(node);
  if (k < 0) return TVM_TIR_VISIT_CONTINUE;
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(tvm_ffi_type_index(node), &fields);
  for (int32_t i = 0; i < n; ++i) {
    const TVMFFIFieldInfo* f = fields[i];
    if (f->field_static_type_index < kTVMFFIStaticObjectBegin) continue;
    const void* val = *(void* const*)((const char*)node + f->offset);
    const char* name = f->name.data;
    if (!val) {
      if (optional_field(k, name)) continue;
      return fail_at(v, name, -1, "required field `%s` of %s is missing", name,
                     tvm_tir_kind_name(k));
    }
    tvm_tir_kind elem = element_kind(name);
    if (elem < 0 || tvm_ffi_type_index(val) != kTVMFFIArray) continue;
    for (int64_t j = 0; j < tvm_ffi_seq_size(val); ++j) {
      const TVMFFIAny* a = tvm_ffi_seq_at(val, j);
      if (!tvm_ffi_any_is_object(a) || !tvm_tir_is(a->v_obj, elem)) {
        return fail_at(v, name, j, "%s[%lld] of %s must be a %s, got %s", name, (long long)j,
                       tvm_tir_kind_name(k), tvm_tir_kind_name(elem), tvm_ffi_any_type_name(a));
      }
    }
  }
  return TVM_TIR_VISIT_CONTINUE;
}

/* ---- Structure, fast path --------------------------------------------------------------------
 * The same checks as pre_structure over the same nodes as its generic walk, answering only
 * whether the IR passes: no path tracking, and the facts about each field (optional? element
 * kind?) looked up once per kind instead of by name per node. When it says no, the visitor pass
 * above runs to raise the error at its path, so errors are exactly those of that pass. */
typedef struct {
  bool optional;
  tvm_tir_kind elem; /* the kind an Array value's elements must have, or NONE */
} field_facts;

/* The facts of each field of a tvm_tir__children table, indexed as its f[]. */
typedef struct kind_facts {
  const tvm_tir__children* src; /* the tables these facts were built for */
  struct kind_facts* prev; /* replaced tables stay alive: another thread may be reading one */
  field_facts f[];
} kind_facts;

static kind_facts* g_facts;

static const kind_facts* facts_of(const tvm_tir__children* c) {
  kind_facts* cur = __atomic_load_n(&g_facts, __ATOMIC_ACQUIRE);
  if (cur && cur->src == c) return cur;
  int32_t n = c->start[TVM_TIR_KIND_COUNT];
  kind_facts* kf = tvm_ffi_malloc(sizeof(kind_facts) + (size_t)n * sizeof(field_facts));
  if (!kf) return NULL;
  kf->src = c;
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    for (int32_t i = c->start[k]; i < c->start[k + 1]; ++i) {
      kf->f[i] = (field_facts){optional_field((tvm_tir_kind)k, c->f[i].name),
                               element_kind(c->f[i].name)};
    }
  }
  kf->prev = cur;
  if (__atomic_compare_exchange_n(&g_facts, &kf->prev, kf, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    return kf;
  }
  /* Another thread published first (kf->prev now holds its table). */
  kind_facts* winner = kf->prev;
  tvm_ffi_free(kf);
  return winner->src == c ? winner : NULL;
}

/* Buffers and Vars are shared by every use of them: each is checked once (a few recent ones
 * remembered, with the depth their check reached below them). */
#define MEMO_SIZE 64 /* the slot is 6 bits of a hash */
typedef struct {
  int64_t deepest; /* the deepest path reached so far */
  struct {
    const void* node;
    int64_t height; /* path steps below it */
  } memo[MEMO_SIZE];
  const tvm_tir__children* c; /* the object fields of each kind */
  const field_facts* ff;       /* and their facts, indexed alike */
} structure_walk;

static bool structure_ok_node(structure_walk* sw, const void* node, int64_t depth);

/* A field's value (an object, or a container's elements / values), one path step below. */
static bool structure_ok_value(structure_walk* sw, const void* obj, int64_t depth) {
  int32_t t = tvm_ffi_type_index(obj);
  if (is_seq_type(t)) {
    int64_t n = tvm_ffi_seq_size(obj);
    for (int64_t i = 0; i < n; ++i) {
      const void* c = child_object(tvm_ffi_seq_at(obj, i));
      if (c && !structure_ok_node(sw, c, depth + 1)) return false;
    }
    return true;
  }
  if (is_map_type(t)) {
    const TVMFFIAny *key, *val;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(obj, pos, &key, &val)) >= 0;) {
      const void* c = child_object(val);
      if (c && !structure_ok_node(sw, c, depth + 1)) return false;
    }
    return true;
  }
  return structure_ok_node(sw, obj, depth);
}

/* Generic children of a non-libtir object (as tvm_tir_visit_children). */
static bool structure_ok_other(structure_walk* sw, const void* node, int64_t depth) {
  int32_t t = tvm_ffi_type_index(node);
  if (is_seq_type(t) || is_map_type(t)) return structure_ok_value(sw, node, depth);
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = 0; i < n; ++i) {
    const void* val = field_child(node, fields[i]);
    if (val && !structure_ok_value(sw, val, depth + 1)) return false;
  }
  return true;
}

static bool structure_ok_fields(structure_walk* sw, tvm_tir_kind k, const void* node,
                                int64_t depth);
static bool structure_ok_kind(structure_walk* sw, const void* node, tvm_tir_kind k,
                              int64_t depth);

static bool structure_ok_node(structure_walk* sw, const void* node, int64_t depth) {
  return structure_ok_kind(sw, node, tir_kind_of(node), depth);
}

/* node, of kind k (tir_kind_of). depth: path steps from the root, as the visitor counts them
 * (it raises beyond MAX_DEPTH). */
static bool structure_ok_kind(structure_walk* sw, const void* node, tvm_tir_kind k,
                              int64_t depth) {
  if (depth > TVM_FFI_STRUCTURAL_MAX_DEPTH) return false;
  if (depth > sw->deepest) sw->deepest = depth;
  if (k < 0) return structure_ok_other(sw, node, depth);
  if (k != K(Buffer) && k != K(Var) && k != K(SizeVar)) {
    return structure_ok_fields(sw, k, node, depth);
  }
  size_t slot = (((uintptr_t)node >> 4) * UINT64_C(0x9E3779B97F4A7C15)) >> 58; /* 6 bits */
  if (sw->memo[slot].node == node) {
    int64_t reach = depth + sw->memo[slot].height;
    if (reach > TVM_FFI_STRUCTURAL_MAX_DEPTH) return false;
    if (reach > sw->deepest) sw->deepest = reach;
    return true;
  }
  int64_t deepest = sw->deepest;
  sw->deepest = depth;
  bool ok = structure_ok_fields(sw, k, node, depth);
  if (ok) {
    sw->memo[slot].node = node;
    sw->memo[slot].height = sw->deepest - depth;
  }
  if (deepest > sw->deepest) sw->deepest = deepest;
  return ok;
}

/* The checks and children of a libtir node's fields (its object fields: the others are neither
 * checked nor walked). */
static bool structure_ok_fields(structure_walk* sw, tvm_tir_kind k, const void* node,
                                int64_t depth) {
  const tvm_tir__children* c = sw->c;
  for (int32_t i = c->start[k], end = c->start[k + 1]; i < end; ++i) {
    const tvm_tir__child_field* f = &c->f[i];
    const char* addr = (const char*)node + f->offset;
    const void* val;
    if (f->type == kTVMFFIAny) {
      val = child_object((const TVMFFIAny*)addr);
      if (!val) continue;
    } else {
      val = *(void* const*)addr;
      if (!val) {
        if (sw->ff[i].optional) continue;
        return false;
      }
      if (f->type == kTVMFFIStr || f->type == kTVMFFIBytes) continue;
    }
    /* A libtir node (the usual value) is no container: straight to its checks. */
    tvm_tir_kind vk = tir_kind_of(val);
    if (vk >= 0) {
      if (!structure_ok_kind(sw, val, vk, depth + 1)) return false;
      continue;
    }
    tvm_tir_kind elem = f->type == kTVMFFIAny ? TVM_TIR_KIND_NONE : sw->ff[i].elem;
    if (elem >= 0 && tvm_ffi_type_index(val) == kTVMFFIArray) {
      /* Element kinds, and each element's own checks (an element of a kind is an object and
       * no string: structure_ok_value would visit every one of them, one step deeper). The
       * order of the checks does not matter: only whether all pass. */
      const TVMFFIAny* items = tvm_ffi_seq_data(val);
      for (int64_t j = 0, n = tvm_ffi_seq_size(val); j < n; ++j) {
        if (!tvm_ffi_any_is_object(&items[j]) || !tir_is(items[j].v_obj, elem) ||
            !structure_ok_node(sw, items[j].v_obj, depth + 2)) {
          return false;
        }
      }
      continue;
    }
    if (!structure_ok_value(sw, val, depth + 1)) return false;
  }
  return true;
}

static int verify_structure(const tvm_tir_prim_func_obj* f);

/* Zero the first keys (FIRST_SLOTS pointers, 512 bytes) as a run of 16-byte stores: the
 * memset of this constant size that the compiler emits is `rep stos`, which is slower than
 * the stores for so few bytes. The zero is
 * hidden from the compiler so that it cannot turn the stores back into that memset. (The keys
 * are 8-byte aligned: unaligned stores, through a type that may alias them.) */
typedef long long wf_zero16 __attribute__((vector_size(16), aligned(8), may_alias));
static inline void zero_first_keys(const void** keys) {
  wf_zero16 zero = {0, 0};
  __asm__("" : "+x"(zero));
  wf_zero16* z = (wf_zero16*)(void*)keys;
  _Static_assert(FIRST_SLOTS * sizeof(void*) % sizeof(wf_zero16) == 0, "whole 16-byte stores");
#pragma GCC unroll 32
  for (size_t i = 0; i < FIRST_SLOTS * sizeof(void*) / sizeof(wf_zero16); ++i) z[i] = zero;
}

/* The scoped pass over f, tracking the path or not (see wf). */
static int scoped_pass(const tvm_tir_prim_func_obj* f, bool track,
                       const tvm_tir__children* children) {
  wf w;
  /* The visitor's callback tables are only read by the tracking pass's tvm_tir_visit; the fast
   * pass leaves them (most of wf's bytes) unset. The first keys are zeroed apart (below). */
  memset((char*)&w + sizeof(w.v), 0, offsetof(wf, facts.first_keys) - sizeof(w.v));
  zero_first_keys(w.facts.first_keys);
  w.v.steps = NULL;
  w.v.depth = w.v.capacity = 0;
  w.track = track;
  w.children = children;
  const kind_walkers* kw = children ? walkers_of(children) : NULL;
  w.walkers = kw ? kw->fn : k_generic_walkers;
  /* The table starts as the first slots (zeroed above), so that the first binding takes the
   * common path of obtain. */
  w.facts.keys = w.facts.first_keys;
  w.facts.slots = w.facts.first;
  w.facts.mask = FIRST_SLOTS - 1;
  int rc;
  if (track) {
    memset(w.v.post, 0, sizeof(w.v.post));
    memcpy(w.v.pre, k_pre, sizeof(k_pre));
    w.v.pre_default = w.v.post_default = NULL;
    w.v.ctx = NULL;
    rc = tvm_tir_visit(&w.v, f);
  } else {
    w.v.ctx = (void*)&k_fast_pass;
    rc = walk(&w, f, 0);
  }
  if (track) tvm_tir_visitor_free(&w.v); /* the fast pass records no steps */
  if (w.facts.keys != w.facts.first_keys) tvm_ffi_free((void*)w.facts.keys);
  return rc;
}

static int verify_func(const tvm_tir_prim_func_obj* f, unsigned flags) {
  if (!(flags & TVM_TIR_WF_CONSTRUCTED) && verify_structure(f) != 0) return -1;
  /* Fast first; on any failure (a violation, or an error such as MemoryError raised on the
   * way), again with tracking, which raises the error the check reports. Without child tables
   * (out of memory) the tracking pass alone. */
  const tvm_tir__children* children = tvm_tir__children_get();
  if (children) {
    if (scoped_pass(f, false, children) == 0) return tvm_tir__verify_jumps(f);
    tvm_ffi_error_clear();
  }
  if (scoped_pass(f, true, NULL) != 0) return -1;
  return tvm_tir__verify_jumps(f);
}

/* The first pass: the fields the scoped pass reads are there and of the right kinds. */
static int verify_structure(const tvm_tir_prim_func_obj* f) {
  structure_walk sw;
  memset(&sw, 0, sizeof(sw));
  sw.c = tvm_tir__children_get();
  const kind_facts* kf = sw.c ? facts_of(sw.c) : NULL;
  sw.ff = kf ? kf->f : NULL;
  /* Without tables (out of memory) the visitor pass checks the structure. */
  if (!sw.ff || !structure_ok_node(&sw, f, 0)) {
    tvm_tir_visitor structure = {0};
    structure.pre_default = pre_structure;
    int rc = tvm_tir_visit(&structure, f);
    tvm_tir_visitor_free(&structure);
    if (rc != 0) return rc;
  }
  return 0;
}

static int pre_unbound_var(tvm_tir_visitor* v, const void* node) {
  return fail_at(v, NULL, -1, "variable `%s` is bound nowhere", vname(node));
}

int tvm_tir_verify_closed(const void* obj) {
  tvm_tir_visitor v = {0};
  v.pre[K(Var)] = v.pre[K(SizeVar)] = pre_unbound_var;
  v.pre[K(CommReducer)] = v.pre[K(IndexMap)] = pre_skip; /* (they bind their own) */
  int rc = obj ? tvm_tir_visit(&v, obj) : 0;
  tvm_tir_visitor_free(&v);
  return rc < 0 ? -1 : 0;
}

int tvm_tir_verify_well_formed(const void* func_or_module) {
  return tvm_tir_verify_well_formed_ex(func_or_module, 0);
}

int tvm_tir_verify_well_formed_ex(const void* func_or_module, unsigned flags) {
  if (!func_or_module) {
    tvm_tir__null_arg("tvm_tir_verify_well_formed", "func_or_module");
    return -1;
  }
  if (TIR_IS(func_or_module, PrimFunc)) return verify_func(func_or_module, flags);
  if (!TIR_IS(func_or_module, IRModule)) {
    return tvm_ffi_raise("TypeError",
                         "tvm_tir_verify_well_formed: expected a PrimFunc or an IRModule, got %s",
                         tvm_ffi_type_key(tvm_ffi_type_index(func_or_module)));
  }
  const tvm_tir_ir_module_obj* mod = func_or_module;
  if (tvm_tir_verify_closed(mod->attrs) != 0) {
    return tvm_ffi_raise_context("in the module's attrs");
  }
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &key, &val)) >= 0;) {
    const void* f = tvm_ffi_any_is_object(val) ? val->v_obj : NULL;
    if (!TIR_IS(f, PrimFunc)) continue;
    if (verify_func(f, flags) != 0) {
      const tvm_tir_global_var_obj* gv = (const void*)key->v_obj;
      return tvm_ffi_raise_context("in function `%s`", tvm_ffi_str_cstr(gv->name_hint));
    }
  }
  return 0;
}

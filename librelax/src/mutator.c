/*
 * mutator.c: the bottom-up rewriting walk of Relax IR (tvm/relax/analysis.h), upstream's
 * ExprMutator: children first; a node none of whose children changed is reused, a changed one is
 * rebuilt through the constructors of expr.h (so its struct info is inferred again); then
 * post[kind] may replace it. A binding whose value's struct info changed binds a new Var (same
 * name and dataflow-ness, the new struct info) and later uses of the old Var are redirected to
 * it through var_map, as are Vars remapped with tvm_relax_mutator_remap.
 *
 * Each non-Var expression is rewritten once (memo: node -> result), so shared sub-expressions
 * cost one rewrite and the walk is linear in the program. A memoized result depends on the
 * redirections in force when it was made, which is sound for well-formed IR (a Var is defined,
 * and so redirected, before its uses); an explicit remap of a Var the walk has already met as a
 * use empties the memo.
 *
 * The walk is iterative (an explicit stack of frames and one of finished results), so nesting
 * depth costs heap, not C stack: the walk has no depth limit of its own.
 */
#include <string.h>

#include <tvm/relax/analysis.h>

#include "internal.h"

typedef struct {
  void* memo; /* ffi.Dict expression -> its rewrite */
  void* used; /* ffi.Dict Var -> None: the Vars met as uses */
} mut_state;

static mut_state* state_of(tvm_relax_mutator* m) {
  if (m->memo) return m->memo;
  mut_state* s = tvm_ffi_calloc(1, sizeof(mut_state));
  if (!s) return NULL;
  s->memo = tvm_ffi_dict_new();
  s->used = tvm_ffi_dict_new();
  if (!m->var_map) m->var_map = tvm_ffi_dict_new();
  if (!s->memo || !s->used || !m->var_map) {
    tvm_ffi_release(s->memo);
    tvm_ffi_release(s->used);
    tvm_ffi_free(s);
    return NULL;
  }
  m->memo = s;
  return s;
}

void tvm_relax_mutator_free(tvm_relax_mutator* m) {
  if (!m) return;
  mut_state* s = m->memo;
  if (s) {
    tvm_ffi_release(s->memo);
    tvm_ffi_release(s->used);
    tvm_ffi_free(s);
  }
  tvm_ffi_release(m->var_map);
  m->memo = NULL;
  m->var_map = NULL;
}

int tvm_relax_mutator_remap(tvm_relax_mutator* m, tvm_relax_var_obj* from, tvm_relax_var_obj* to) {
  if (!m || !tvm_relax_is_var(from) || !tvm_relax_is_var(to)) {
    return tvm_ffi_raise("TypeError", "tvm_relax_mutator_remap: from and to must be Relax Vars");
  }
  mut_state* s = state_of(m);
  if (!s) return -1;
  TVMFFIAny k = tvm_ffi_any_obj(from), v = tvm_ffi_any_obj(to);
  if (tvm_ffi_dict_set(m->var_map, &k, &v) != 0) return -1;
  if (tvm_ffi_map_get(s->used, &k)) tvm_ffi_dict_clear(s->memo);
  return 0;
}

/* The Var that replaces var (borrowed): its redirection, or var itself. */
static tvm_relax_var_obj* redirect(tvm_relax_mutator* m, const tvm_relax_var_obj* var) {
  TVMFFIAny k = tvm_ffi_any_obj(var);
  const TVMFFIAny* v = tvm_ffi_map_get(m->var_map, &k);
  return v ? (tvm_relax_var_obj*)v->v_obj : (tvm_relax_var_obj*)var;
}

/* Apply post[kind of node] to node (owned): the callback's result, which must be `want`. */
static void* apply_post(tvm_relax_mutator* m, void* node, bool (*want)(const void*),
                        const char* what) {
  tvm_relax_kind k = tvm_relax_kind_of(node);
  if (!node || k == TVM_RELAX_KIND_NONE || !m->post[k]) return node;
  void* out = m->post[k](m, node);
  tvm_ffi_release(node);
  if (!out) {
    if (!tvm_ffi_error_pending()) {
      tvm_ffi_raise("RuntimeError", "tvm_relax_mutate: the %s callback returned NULL without an "
                    "error", tvm_relax_kind_name(k));
    }
    return NULL;
  }
  if (!want(out)) {
    tvm_ffi_raise("TypeError", "tvm_relax_mutate: the %s callback must return %s, got %s",
                  tvm_relax_kind_name(k), what, tvm_ffi_type_key(tvm_ffi_type_index(out)));
    tvm_ffi_release(out);
    return NULL;
  }
  return out;
}

static bool is_binding(const void* o) { return tvm_relax_is(o, TVM_RELAX_KIND_Binding); }
static bool is_block(const void* o) { return tvm_relax_is(o, TVM_RELAX_KIND_BindingBlock); }
static bool is_expr(const void* o) { return tvm_relax_is_expr(o); }

/* ---- The walk ------------------------------------------------------------------------------ */
/* A node being rewritten: its children (by child_at) are rewritten first, their results pushed
 * on the result stack; when all are done the node is rebuilt from the top n results. */
typedef struct {
  const void* node;
  int64_t next;
  int64_t n;
} frame;

typedef struct {
  frame* frames;
  int64_t nframes, cap_frames;
  void** results; /* owned references */
  int64_t nresults, cap_results;
} walk_stack;

static int grow(void** data, int64_t* cap, int64_t need, size_t size) {
  if (need <= *cap) return 0;
  int64_t c = *cap ? *cap * 2 : 64;
  while (c < need) c *= 2;
  void* p = tvm_ffi_calloc((size_t)c, size);
  if (!p) return -1;
  if (*data) {
    memcpy(p, *data, (size_t)*cap * size);
    tvm_ffi_free(*data);
  }
  *data = p;
  *cap = c;
  return 0;
}

static int push_result(walk_stack* w, void* r) {
  if (grow((void**)&w->results, &w->cap_results, w->nresults + 1, sizeof(void*)) != 0) {
    tvm_ffi_release(r);
    return -1;
  }
  w->results[w->nresults++] = r;
  return 0;
}

/* The number of children the walk rewrites before node. */
static int64_t num_children(const void* node) {
  switch (tvm_relax__walk_shape_of(node)) {
    case TVM_RELAX__SHAPE_CALL:
      return 1 + tvm_ffi_seq_size(((const tvm_relax_call_obj*)node)->args);
    case TVM_RELAX__SHAPE_TUPLE:
      return tvm_ffi_seq_size(((const tvm_relax_tuple_obj*)node)->fields);
    case TVM_RELAX__SHAPE_TUPLE_GET_ITEM:
      return 1;
    case TVM_RELAX__SHAPE_IF:
      return 3;
    case TVM_RELAX__SHAPE_SEQ:
      return tvm_ffi_seq_size(((const tvm_relax_seq_expr_obj*)node)->blocks) + 1;
    case TVM_RELAX__SHAPE_FUNCTION:
      return 1; /* the body; parameters are definitions, redirected only */
    case TVM_RELAX__SHAPE_BINDING:
      return 1;
    case TVM_RELAX__SHAPE_BLOCK:
      return tvm_ffi_seq_size(((const tvm_relax_block_obj*)node)->bindings);
    case TVM_RELAX__SHAPE_NOT_WALKED:
    case TVM_RELAX__SHAPE_LEAF: /* PrimFuncs are leaves: not entered */
    case TVM_RELAX__SHAPE_VAR:  /* done by start() */
      return 0;
  }
  return 0;
}

static const void* child_at(const void* node, int64_t i) {
  switch (tvm_relax__walk_shape_of(node)) {
    case TVM_RELAX__SHAPE_CALL: {
      const tvm_relax_call_obj* c = node;
      return i == 0 ? (const void*)c->op : tvm_ffi_seq_obj_at(c->args, i - 1);
    }
    case TVM_RELAX__SHAPE_TUPLE:
      return tvm_ffi_seq_obj_at(((const tvm_relax_tuple_obj*)node)->fields, i);
    case TVM_RELAX__SHAPE_TUPLE_GET_ITEM:
      return ((const tvm_relax_tuple_get_item_obj*)node)->tuple_value;
    case TVM_RELAX__SHAPE_IF: {
      const tvm_relax_if_obj* n = node;
      return i == 0 ? n->cond : i == 1 ? n->true_branch : n->false_branch;
    }
    case TVM_RELAX__SHAPE_SEQ: {
      const tvm_relax_seq_expr_obj* q = node;
      int64_t nb = tvm_ffi_seq_size(q->blocks);
      return i < nb ? tvm_ffi_seq_obj_at(q->blocks, i) : (const void*)q->body;
    }
    case TVM_RELAX__SHAPE_FUNCTION:
      return ((const tvm_relax_function_obj*)node)->body;
    case TVM_RELAX__SHAPE_BINDING:
      return tvm_relax_binding_value(node);
    case TVM_RELAX__SHAPE_BLOCK:
      return tvm_ffi_seq_obj_at(((const tvm_relax_block_obj*)node)->bindings, i);
    case TVM_RELAX__SHAPE_NOT_WALKED:
    case TVM_RELAX__SHAPE_LEAF:
    case TVM_RELAX__SHAPE_VAR:
      break; /* no children: never asked */
  }
  return NULL;
}

/* An array of n results (borrowed), or `orig` itself (retained) when they are its items. */
static void* results_array(void** r, int64_t n, void* orig, bool* changed) {
  *changed = false;
  for (int64_t i = 0; i < n && !*changed; ++i) *changed = r[i] != tvm_ffi_seq_obj_at(orig, i);
  if (!*changed) {
    tvm_ffi_retain(orig);
    return orig;
  }
  return tvm_ffi_array_of_objects(r, n);
}

/* Whether two struct infos differ (structurally). */
static bool sinfo_changed(const tvm_relax_sinfo_obj* a, const tvm_relax_sinfo_obj* b) {
  if (a == b) return false;
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  int eq = tvm_ffi_structural_equal(&x, &y, false, NULL, NULL);
  if (eq != 1) tvm_ffi_error_clear(); /* too deep to compare: treat as changed */
  return eq != 1;
}

static void* retained(const void* node) {
  tvm_ffi_retain((void*)node);
  return (void*)node;
}

static void* rebuild_binding(tvm_relax_mutator* m, const tvm_relax_binding_obj* b,
                             tvm_relax_expr_obj* nv) {
  tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
  tvm_relax_var_obj* var = retained(redirect(m, b->var));
  void* out = NULL;
  if (nv == value && var == b->var) {
    out = retained(b);
  } else if (tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast) {
    out = tvm_relax_match_cast_new(var, nv, ((const tvm_relax_match_cast_obj*)b)->struct_info);
  } else {
    if (sinfo_changed(tvm_relax_sinfo_of(value), tvm_relax_sinfo_of(nv))) {
      /* The value's struct info changed: bind a new Var that carries it. */
      tvm_relax_var_obj* nvar =
          tvm_relax_var_new_str(var->name_hint, tvm_relax_sinfo_of(nv),
                                tvm_relax_kind_of(var) == TVM_RELAX_KIND_DataflowVar);
      tvm_ffi_release(var);
      var = nvar;
    }
    out = var ? tvm_relax_var_binding_new(var, nv) : NULL;
  }
  tvm_ffi_release(var);
  return out;
}

/* node rebuilt from its rewritten children r[0..n) (borrowed): node itself (retained) when none
 * changed. */
static void* rebuild(tvm_relax_mutator* m, const void* node, void** r, int64_t n) {
  bool ch = false;
  void* a = NULL;
  void* out = NULL;
  switch (tvm_relax__walk_shape_of(node)) {
    case TVM_RELAX__SHAPE_CALL: {
      const tvm_relax_call_obj* c = node;
      if (!(a = results_array(r + 1, n - 1, c->args, &ch))) return NULL;
      out = !ch && r[0] == c->op ? retained(node)
                                 : tvm_relax_call_new(r[0], a, c->attrs, c->sinfo_args, c->expr.span);
      break;
    }
    case TVM_RELAX__SHAPE_TUPLE:
      if (!(a = results_array(r, n, ((const tvm_relax_tuple_obj*)node)->fields, &ch))) return NULL;
      out = ch ? tvm_relax_tuple_new(a) : retained(node);
      break;
    case TVM_RELAX__SHAPE_TUPLE_GET_ITEM: {
      const tvm_relax_tuple_get_item_obj* g = node;
      return r[0] == g->tuple_value ? retained(node) : tvm_relax_tuple_get_item_new(r[0], g->index);
    }
    case TVM_RELAX__SHAPE_IF: {
      const tvm_relax_if_obj* f = node;
      return r[0] == f->cond && r[1] == f->true_branch && r[2] == f->false_branch
                 ? retained(node)
                 : tvm_relax_if_new(r[0], r[1], r[2]);
    }
    case TVM_RELAX__SHAPE_SEQ: {
      const tvm_relax_seq_expr_obj* q = node;
      if (!(a = results_array(r, n - 1, q->blocks, &ch))) return NULL;
      out = !ch && r[n - 1] == q->body ? retained(node) : tvm_relax_seq_expr_new(a, r[n - 1]);
      break;
    }
    case TVM_RELAX__SHAPE_FUNCTION: {
      const tvm_relax_function_obj* f = node;
      int64_t np = tvm_ffi_seq_size(f->params);
      void** ps = tvm_ffi_calloc((size_t)(np ? np : 1), sizeof(void*));
      if (!ps) return NULL;
      for (int64_t i = 0; i < np; ++i) ps[i] = redirect(m, tvm_ffi_seq_obj_at(f->params, i));
      a = results_array(ps, np, f->params, &ch);
      tvm_ffi_free(ps);
      if (!a) return NULL;
      /* The declared return struct info is kept, as upstream does: a rewrite that makes the body
       * no instance of it is a TypeError of the constructor. */
      out = !ch && r[0] == f->body ? retained(node)
                                   : tvm_relax_function_new(a, r[0], f->ret_struct_info,
                                                            f->is_pure, f->func.attrs);
      break;
    }
    case TVM_RELAX__SHAPE_BINDING:
      return rebuild_binding(m, node, r[0]);
    case TVM_RELAX__SHAPE_BLOCK: {
      const tvm_relax_block_obj* b = node;
      if (!(a = results_array(r, n, b->bindings, &ch))) return NULL;
      out = ch ? tvm_relax_block_new(a, tvm_relax_kind_of(b) == TVM_RELAX_KIND_DataflowBlock)
               : retained(node);
      break;
    }
    case TVM_RELAX__SHAPE_NOT_WALKED:
    case TVM_RELAX__SHAPE_LEAF:
    case TVM_RELAX__SHAPE_VAR:
      return retained(node);
  }
  tvm_ffi_release(a);
  return out;
}

/* The end of node's rewrite: post[kind], then the binding's redirection or the memo entry. */
static void* finish(tvm_relax_mutator* m, mut_state* s, const void* node, void* out) {
  if (tvm_relax_is(node, TVM_RELAX_KIND_Binding)) {
    out = apply_post(m, out, is_binding, "a binding");
    const tvm_relax_binding_obj* b = node;
    if (out && ((tvm_relax_binding_obj*)out)->var != b->var) {
      TVMFFIAny k = tvm_ffi_any_obj(b->var);
      TVMFFIAny v = tvm_ffi_any_obj(((tvm_relax_binding_obj*)out)->var);
      if (tvm_ffi_dict_set(m->var_map, &k, &v) != 0) {
        tvm_ffi_release(out);
        return NULL;
      }
    }
    return out;
  }
  if (tvm_relax_is(node, TVM_RELAX_KIND_BindingBlock)) {
    return apply_post(m, out, is_block, "a binding block");
  }
  out = apply_post(m, out, is_expr, "a Relax expression");
  if (out) {
    TVMFFIAny k = tvm_ffi_any_obj(node), v = tvm_ffi_any_obj(out);
    if (tvm_ffi_dict_set(s->memo, &k, &v) != 0) {
      tvm_ffi_release(out);
      return NULL;
    }
  }
  return out;
}

/* Begin the rewrite of node: a Var or a memoized expression is done at once (its result pushed),
 * anything else gets a frame. */
static int start(tvm_relax_mutator* m, mut_state* s, walk_stack* w, const void* node) {
  if (tvm_relax_is_var(node)) {
    TVMFFIAny k = tvm_ffi_any_obj(node), none = tvm_ffi_any_none();
    if (tvm_ffi_dict_set(s->used, &k, &none) != 0) return -1;
    void* out = apply_post(m, retained(redirect(m, node)), is_expr, "a Relax expression");
    return out ? push_result(w, out) : -1;
  }
  bool binding = tvm_relax_is(node, TVM_RELAX_KIND_Binding);
  bool block = tvm_relax_is(node, TVM_RELAX_KIND_BindingBlock);
  if (!binding && !block) {
    if (!tvm_relax_is_expr(node)) {
      return tvm_ffi_raise("TypeError",
                           "tvm_relax_mutate: %s is not a Relax expression, binding or block",
                           node ? tvm_ffi_type_key(tvm_ffi_type_index(node)) : "NULL");
    }
    TVMFFIAny k = tvm_ffi_any_obj(node);
    const TVMFFIAny* hit = tvm_ffi_map_get(s->memo, &k);
    if (hit) return push_result(w, retained(hit->v_obj));
  }
  if (grow((void**)&w->frames, &w->cap_frames, w->nframes + 1, sizeof(frame)) != 0) return -1;
  w->frames[w->nframes++] = (frame){node, 0, num_children(node)};
  return 0;
}

static void* run(tvm_relax_mutator* m, mut_state* s, const void* root) {
  walk_stack w = {0};
  int rc = start(m, s, &w, root);
  while (rc == 0 && w.nframes > 0) {
    frame* f = &w.frames[w.nframes - 1];
    if (f->next < f->n) {
      const void* child = child_at(f->node, f->next++);
      rc = start(m, s, &w, child);
      continue;
    }
    /* (no results yet: w.results may still be NULL for a leaf) */
    void** r = f->n > 0 ? w.results + w.nresults - f->n : NULL;
    void* out = rebuild(m, f->node, r, f->n);
    for (int64_t i = 0; i < f->n; ++i) tvm_ffi_release(r[i]);
    w.nresults -= f->n;
    const void* node = f->node;
    --w.nframes;
    out = out ? finish(m, s, node, out) : NULL;
    rc = out ? push_result(&w, out) : -1;
  }
  void* out = NULL;
  if (rc == 0 && w.nresults == 1) {
    out = w.results[0];
    w.nresults = 0;
  }
  for (int64_t i = 0; i < w.nresults; ++i) tvm_ffi_release(w.results[i]);
  tvm_ffi_free(w.results);
  tvm_ffi_free(w.frames);
  return out;
}

void* tvm_relax_mutate(tvm_relax_mutator* m, const void* node) {
  if (!m || !node) {
    tvm_ffi_raise("TypeError", "tvm_relax_mutate: the mutator and the node are required");
    return NULL;
  }
  mut_state* s = state_of(m);
  return s ? run(m, s, node) : NULL;
}

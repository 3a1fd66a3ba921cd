/*
 * dead_code_elimination.c: DeadCodeElimination (tvm/relax/transform.h), upstream's pass of that
 * name: the bindings of each Relax function whose variables are not needed and whose values have
 * no effect are removed, then the module's functions that no entry function reaches.
 *
 * Bindings. Each binding of a function (those in If branches and nested functions included) is
 * a node; a node uses the nodes of the variables its value mentions, except the variables that
 * the bindings of a SeqExpr nested in the value mention (those bindings are nodes of their own);
 * the uses of a nested SeqExpr's result are its enclosing binding's. The function's result is
 * a virtual node 0. A binding is an effect when it is a match_cast (a check, which may also
 * define symbolic variables) or its value calls something impure, directly or in a nested
 * binding of an If branch (a nested function's body does not count: defining it does nothing).
 * Live: node 0, what a live node uses, and the effects whose enclosing binding is live (at the
 * top level: node 0). Everything else is removed, with the blocks left empty. One walk to
 * collect, one reachability from the roots, one rewrite: linear in the function, and the fixed
 * point at once (a binding that only dead bindings used is not reached).
 *
 * Functions. Entries: the functions with a global_symbol (public), module-level ExternFuncs, and
 * the names the caller gives. Reachable: the entries, and what a reachable function refers to:
 * a Relax function's GlobalVars and the ExternFuncs naming a module function; a PrimFunc's
 * GlobalVars (calls of module PrimFuncs) and string immediates naming a module function
 * (call_extern of a helper next to its caller). Bindings go first, so that the functions only
 * dead bindings called are unreachable.
 */
#include <string.h>

#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>
#include <tvm/tir/visit.h>

#include "internal.h"

/* ---- Bindings: the use graph -------------------------------------------------------------------
 */
typedef struct {
  int64_t parent;     /* the enclosing binding's node (0: the function's top level) */
  int64_t first_edge; /* into dce_fn.edge_to / edge_next, -1 = none */
  int64_t first_root; /* the first effect enclosed by this node, -1 = none */
  int64_t next_root;  /* the next effect of the same enclosing node */
  bool live;
} dce_node;

typedef struct {
  const tvm_tir_ir_module_obj* mod;
  void* var_node; /* ffi.Dict Var -> node index */
  dce_node* nodes;
  int64_t n_nodes, cap_nodes;
  int64_t *edge_to, *edge_next;
  int64_t n_edges, cap_edges;
  int64_t* stack;
} dce_fn;

static int grow(void** arr, int64_t* cap, int64_t need, size_t elem) {
  if (need <= *cap) return 0;
  int64_t n = *cap ? *cap * 2 : 64;
  while (n < need) n *= 2;
  void* p = tvm_ffi_realloc(*arr, (size_t)n * elem);
  if (!p) return -1;
  *arr = p;
  *cap = n;
  return 0;
}

static int64_t new_node(dce_fn* d, int64_t parent) {
  if (grow((void**)&d->nodes, &d->cap_nodes, d->n_nodes + 1, sizeof(dce_node)) != 0) return -1;
  d->nodes[d->n_nodes] = (dce_node){parent, -1, -1, -1, false};
  return d->n_nodes++;
}

static int add_edge(dce_fn* d, int64_t from, int64_t to) {
  if (d->n_edges + 1 > d->cap_edges) {
    int64_t cap = d->cap_edges;
    if (grow((void**)&d->edge_to, &cap, d->n_edges + 1, sizeof(int64_t)) != 0) return -1;
    cap = d->cap_edges;
    if (grow((void**)&d->edge_next, &cap, d->n_edges + 1, sizeof(int64_t)) != 0) return -1;
    d->cap_edges = cap;
  }
  d->edge_to[d->n_edges] = to;
  d->edge_next[d->n_edges] = d->nodes[from].first_edge;
  d->nodes[from].first_edge = d->n_edges++;
  return 0;
}

static bool func_sinfo_pure(const void* s) {
  return tvm_relax_kind_of(s) == TVM_RELAX_KIND_FuncStructInfo &&
         ((const tvm_relax_func_sinfo_obj*)s)->purity;
}

/* Whether calling op has no effect: an operator's purity; a module function's (a Relax
 * function's is_pure; a PrimFunc called directly writes its arguments); otherwise the callee's
 * FuncStructInfo (an ExternFunc or a function-typed variable), impure without one. */
static bool call_is_pure(const dce_fn* d, const void* op) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(op);
  if (info) return info->pure;
  if (tvm_tir_is(op, TVM_TIR_KIND_Op)) return false;
  const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(op);
  if (!s && tvm_tir_is(op, TVM_TIR_KIND_GlobalVar)) {
    void* f = tvm_tir_ir_module_lookup(
        d->mod, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)op)->name_hint));
    bool pure =
        tvm_relax_kind_of(f) == TVM_RELAX_KIND_Function && ((tvm_relax_function_obj*)f)->is_pure;
    tvm_ffi_release(f);
    return pure;
  }
  return func_sinfo_pure(s);
}

/* Record the uses in e as node cur's; set *effect when e calls something impure (or holds an
 * effect in a nested SeqExpr outside nested functions). */
static int collect(dce_fn* d, const void* e, int64_t cur, bool* effect);

static int collect_array(dce_fn* d, void* arr, int64_t cur, bool* effect) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(arr); ++i) {
    if (collect(d, tvm_ffi_seq_obj_at(arr, i), cur, effect) != 0) return -1;
  }
  return 0;
}

static int collect_seq(dce_fn* d, const tvm_relax_seq_expr_obj* s, int64_t cur, bool* effect) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(s->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(s->blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, j);
      int64_t k = new_node(d, cur);
      if (k < 0) return -1;
      bool eff = tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast;
      if (collect(d, tvm_relax_binding_value(b), k, &eff) != 0) return -1;
      if (eff) {
        d->nodes[k].next_root = d->nodes[cur].first_root;
        d->nodes[cur].first_root = k;
        *effect = true;
      }
      TVMFFIAny key = tvm_ffi_any_obj(b->var), val = tvm_ffi_any_int(k);
      if (tvm_ffi_dict_set(d->var_node, &key, &val) != 0) return -1;
    }
  }
  return collect(d, s->body, cur, effect);
}

static int collect(dce_fn* d, const void* e, int64_t cur, bool* effect) {
  if (!e) return 0;
  switch (tvm_relax__walk_shape_of(e)) {
    case TVM_RELAX__SHAPE_VAR: {
      TVMFFIAny key = tvm_ffi_any_obj(e);
      const TVMFFIAny* v = tvm_ffi_map_get(d->var_node, &key);
      return v ? add_edge(d, cur, v->v_int64) : 0; /* parameters are not nodes */
    }
    case TVM_RELAX__SHAPE_CALL: {
      const tvm_relax_call_obj* c = e;
      if (!call_is_pure(d, c->op)) *effect = true;
      if (collect(d, c->op, cur, effect) != 0) return -1;
      return collect_array(d, c->args, cur, effect);
    }
    case TVM_RELAX__SHAPE_TUPLE:
      return collect_array(d, ((const tvm_relax_tuple_obj*)e)->fields, cur, effect);
    case TVM_RELAX__SHAPE_TUPLE_GET_ITEM:
      return collect(d, ((const tvm_relax_tuple_get_item_obj*)e)->tuple_value, cur, effect);
    case TVM_RELAX__SHAPE_IF: {
      const tvm_relax_if_obj* n = e;
      if (collect(d, n->cond, cur, effect) != 0 || collect(d, n->true_branch, cur, effect) != 0) {
        return -1;
      }
      return collect(d, n->false_branch, cur, effect);
    }
    case TVM_RELAX__SHAPE_SEQ: return collect_seq(d, e, cur, effect);
    case TVM_RELAX__SHAPE_FUNCTION: {
      bool inner = false; /* a function's effects happen when it is called, not here */
      return collect(d, ((const tvm_relax_function_obj*)e)->body, cur, &inner);
    }
    case TVM_RELAX__SHAPE_BINDING:
    case TVM_RELAX__SHAPE_BLOCK:
    case TVM_RELAX__SHAPE_NOT_WALKED:
    case TVM_RELAX__SHAPE_LEAF: return 0;
  }
  return 0;
}

static int mark(dce_fn* d, int64_t i, int64_t* top) {
  if (d->nodes[i].live) return 0;
  d->nodes[i].live = true;
  d->stack[(*top)++] = i;
  return 0;
}

/* Liveness from node 0; returns the number of dead nodes. */
static int64_t propagate(dce_fn* d) {
  int64_t top = 0, live = 0;
  mark(d, 0, &top);
  while (top > 0) {
    int64_t i = d->stack[--top];
    ++live;
    for (int64_t e = d->nodes[i].first_edge; e >= 0; e = d->edge_next[e])
      mark(d, d->edge_to[e], &top);
    for (int64_t r = d->nodes[i].first_root; r >= 0; r = d->nodes[r].next_root) mark(d, r, &top);
  }
  return d->n_nodes - live;
}

/* ---- Bindings: the rewrite ---------------------------------------------------------------------
 */
static bool binding_live(const dce_fn* d, const tvm_relax_binding_obj* b) {
  TVMFFIAny key = tvm_ffi_any_obj(b->var);
  const TVMFFIAny* v = tvm_ffi_map_get(d->var_node, &key);
  return !v || d->nodes[v->v_int64].live; /* a variable the walk did not see: keep it */
}

static void* post_block(tvm_relax_mutator* m, const void* node) {
  const dce_fn* d = m->ctx;
  const tvm_relax_block_obj* blk = node;
  int64_t n = tvm_ffi_seq_size(blk->bindings), kept = 0;
  for (int64_t i = 0; i < n; ++i) kept += binding_live(d, tvm_ffi_seq_obj_at(blk->bindings, i));
  if (kept == n) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  void* list = tvm_ffi_list_new();
  int rc = list ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    if (binding_live(d, tvm_ffi_seq_obj_at(blk->bindings, i))) {
      rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(blk->bindings, i));
    }
  }
  void* arr = rc == 0 ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  void* out =
      arr ? tvm_relax_block_new(arr, tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock) : NULL;
  tvm_ffi_release(arr);
  return out;
}

/* The SeqExpr without its empty blocks. */
static void* post_seq(tvm_relax_mutator* m, const void* node) {
  (void)m;
  const tvm_relax_seq_expr_obj* s = node;
  int64_t n = tvm_ffi_seq_size(s->blocks), kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    kept += tvm_ffi_seq_size(
                ((const tvm_relax_block_obj*)tvm_ffi_seq_obj_at(s->blocks, i))->bindings) > 0;
  }
  if (kept == n) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  void* list = tvm_ffi_list_new();
  int rc = list ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    const tvm_relax_block_obj* b = tvm_ffi_seq_obj_at(s->blocks, i);
    if (tvm_ffi_seq_size(b->bindings) > 0)
      rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(s->blocks, i));
  }
  void* arr = rc == 0 ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  tvm_relax_expr_obj* out = arr ? tvm_relax_seq_expr_new(arr, s->body) : NULL;
  tvm_ffi_release(arr);
  return out;
}

static tvm_relax_function_obj* remove_unused_bindings(tvm_relax_function_obj* f, void* ctx) {
  dce_fn* d = ctx;
  tvm_ffi_dict_clear(d->var_node);
  d->n_nodes = d->n_edges = 0;
  bool eff = false;
  if (new_node(d, 0) != 0 || collect(d, f->body, 0, &eff) != 0) return NULL;
  tvm_ffi_free(d->stack);
  d->stack = tvm_ffi_calloc((size_t)d->n_nodes, sizeof(int64_t));
  if (!d->stack) return NULL;
  if (propagate(d) == 0) {
    tvm_ffi_retain(f);
    return f;
  }
  tvm_relax_mutator m = {0};
  m.ctx = d;
  m.post[TVM_RELAX_KIND_BindingBlock] = post_block;
  m.post[TVM_RELAX_KIND_DataflowBlock] = post_block;
  m.post[TVM_RELAX_KIND_SeqExpr] = post_seq;
  tvm_relax_function_obj* out = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  return out;
}

/* ---- Functions: reachability -------------------------------------------------------------------
 */
typedef struct {
  void* index; /* ffi.Dict name -> function index */
  bool* reached;
  int64_t* queue;
  int64_t n_queued;
} dce_reach;

static int reach_name(dce_reach* r, const char* name) {
  TVMFFIAny key = tvm_ffi_string(name);
  const TVMFFIAny* v = tvm_ffi_map_get(r->index, &key);
  tvm_ffi_any_release(&key);
  if (v && !r->reached[v->v_int64]) {
    r->reached[v->v_int64] = true;
    r->queue[r->n_queued++] = v->v_int64;
  }
  return 0;
}

static int relax_ref(const void* node, void* ctx) {
  if (tvm_tir_is(node, TVM_TIR_KIND_GlobalVar)) {
    return reach_name(ctx, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)node)->name_hint));
  }
  if (tvm_relax_kind_of(node) == TVM_RELAX_KIND_ExternFunc) {
    return reach_name(ctx,
                      tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)node)->global_symbol));
  }
  return 0;
}

static int tir_global_var(tvm_tir_visitor* v, const void* node) {
  return reach_name(v->ctx, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)node)->name_hint));
}

static int tir_string(tvm_tir_visitor* v, const void* node) {
  TVMFFIByteArray s = tvm_ffi_str_view(((const tvm_tir_string_imm_obj*)node)->value);
  char name[256];
  if (s.size >= sizeof(name)) return 0; /* longer than any function name we match */
  memcpy(name, s.data, s.size);
  name[s.size] = '\0';
  return reach_name(v->ctx, name);
}

static int visit_refs(dce_reach* r, const void* func) {
  if (tvm_relax_kind_of(func) == TVM_RELAX_KIND_Function) {
    return tvm_relax_post_order_visit(func, relax_ref, r) == 0 ? 0 : -1;
  }
  if (!tvm_tir_is(func, TVM_TIR_KIND_PrimFunc)) return 0;
  tvm_tir_visitor v = {0};
  v.ctx = r;
  v.post[TVM_TIR_KIND_GlobalVar] = tir_global_var;
  v.post[TVM_TIR_KIND_StringImm] = tir_string;
  int rc = tvm_tir_visit(&v, func);
  tvm_tir_visitor_free(&v);
  return rc == 0 ? 0 : -1;
}

/* funcs (ffi.Dict GlobalVar -> function) without the functions no entry reaches; *changed set
 * when some went. */
static int remove_unreachable(void* funcs, const char* const* entries, int64_t n_entries,
                              bool* changed) {
  int64_t n = tvm_ffi_map_size(funcs);
  dce_reach r = {tvm_ffi_dict_new(), tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(bool)),
                 tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(int64_t)), 0};
  const void** gvs = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
  const void** fns = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
  int rc = r.index && r.reached && r.queue && gvs && fns ? 0 : -1;
  int64_t i = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(funcs, pos, &k, &v)) >= 0; ++i) {
    gvs[i] = k->v_obj;
    fns[i] = v->v_obj;
    TVMFFIAny name = tvm_ffi_any_obj(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    TVMFFIAny idx = tvm_ffi_any_int(i);
    rc = tvm_ffi_dict_set(r.index, &name, &idx);
  }
  for (int64_t e = 0; rc == 0 && e < n_entries; ++e) {
    TVMFFIAny key = tvm_ffi_string(entries[e]);
    bool known = tvm_ffi_map_get(r.index, &key) != NULL;
    tvm_ffi_any_release(&key);
    if (!known) {
      tvm_ffi_raise("ValueError", "DeadCodeElimination: entry function '%s' is not in the module",
                    entries[e]);
      rc = -1;
    } else {
      rc = reach_name(&r, entries[e]);
    }
  }
  for (int64_t j = 0; rc == 0 && j < n; ++j) {
    if (tvm_tir_func_global_symbol(fns[j]) ||
        tvm_relax_kind_of(fns[j]) == TVM_RELAX_KIND_ExternFunc) {
      rc = reach_name(&r, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)gvs[j])->name_hint));
    }
  }
  for (int64_t q = 0; rc == 0 && q < r.n_queued; ++q) rc = visit_refs(&r, fns[r.queue[q]]);
  if (rc == 0 && r.n_queued < n) {
    *changed = true;
    for (int64_t j = 0; j < n; ++j) {
      if (r.reached[j]) continue;
      TVMFFIAny key = tvm_ffi_any_obj(gvs[j]);
      tvm_ffi_dict_erase(funcs, &key);
    }
  }
  tvm_ffi_release(r.index);
  tvm_ffi_free(r.reached);
  tvm_ffi_free(r.queue);
  tvm_ffi_free(gvs);
  tvm_ffi_free(fns);
  return rc;
}

/* ---- The pass -------------------------------------------------------------------------------- */
static tvm_tir_ir_module_obj* run_dead_code_elimination(const tvm_tir_ir_module_obj* mod,
                                                        const char* const* entries,
                                                        int64_t n_entries) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule) || n_entries < 0 || (n_entries > 0 && !entries)) {
    tvm_ffi_raise("TypeError",
                  "DeadCodeElimination: an IRModule (and a list of entry names) is required");
    return NULL;
  }
  dce_fn d = {mod, tvm_ffi_dict_new(), NULL, 0, 0, NULL, NULL, 0, 0, NULL};
  tvm_tir_ir_module_obj* cleaned =
      d.var_node ? tvm_relax__map_functions(mod, "DeadCodeElimination", remove_unused_bindings, &d)
                 : NULL;
  tvm_ffi_release(d.var_node);
  tvm_ffi_free(d.nodes);
  tvm_ffi_free(d.edge_to);
  tvm_ffi_free(d.edge_next);
  tvm_ffi_free(d.stack);
  if (!cleaned) return NULL;
  void* funcs = tvm_ffi_dict_new();
  int rc = funcs ? 0 : -1;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0;
       rc == 0 && (pos = tvm_ffi_map_next(cleaned->functions, pos, &k, &v)) >= 0;) {
    rc = tvm_ffi_dict_set(funcs, k, v);
  }
  bool changed = cleaned != mod;
  if (rc == 0) rc = remove_unreachable(funcs, entries, n_entries, &changed);
  tvm_tir_ir_module_obj* out = rc == 0 ? tvm_relax__module_with(cleaned, funcs, changed) : NULL;
  tvm_ffi_release(funcs);
  tvm_ffi_release(cleaned);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_dead_code_elimination_entries(
    const tvm_tir_ir_module_obj* mod, const char* const* entries, int64_t n_entries) {
  void* stale = tvm_ffi_error_take(); /* as tvm_relax__pass_set_aside, for this signature */
  tvm_tir_ir_module_obj* out = run_dead_code_elimination(mod, entries, n_entries);
  tvm_ffi_error_give_back(stale);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_dead_code_elimination(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax_transform_dead_code_elimination_entries(mod, NULL, 0);
}

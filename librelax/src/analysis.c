/*
 * analysis.c: walking Relax IR (tvm/relax/analysis.h): the post-order visitor and the variable
 * analyses built on it (free / bound / all variables, GlobalVars, free symbolic variables).
 *
 * One recursive walk serves them all. It follows the expression structure only (not struct info,
 * attributes or PrimFunc bodies), visits each node once (a Dict of the nodes seen, so a shared
 * sub-expression costs one visit and the walk is linear in the program), and recurses only
 * along nesting (a block's bindings are a loop), its depth bounded by
 * TVM_FFI_STRUCTURAL_MAX_DEPTH (a RuntimeError beyond).
 */
#include <stdlib.h>
#include <string.h>

#include <tvm/relax/analysis.h>

#include "internal.h"

/* ---- Walk shapes ----------------------------------------------------------------------------- */
#define WALK_StructInfo NOT_WALKED
#define WALK_ObjectStructInfo NOT_WALKED
#define WALK_PrimStructInfo NOT_WALKED
#define WALK_ShapeStructInfo NOT_WALKED
#define WALK_TensorStructInfo NOT_WALKED
#define WALK_TupleStructInfo NOT_WALKED
#define WALK_FuncStructInfo NOT_WALKED
#define WALK_DTensorStructInfo NOT_WALKED
#define WALK_DeviceMesh NOT_WALKED /* a module global info, not an expression */
#define WALK_Call CALL
#define WALK_Tuple TUPLE
#define WALK_TupleGetItem TUPLE_GET_ITEM
#define WALK_ShapeExpr LEAF
#define WALK_Var VAR
#define WALK_DataflowVar VAR
#define WALK_Constant LEAF
#define WALK_PrimValue LEAF
#define WALK_StringImm LEAF
#define WALK_DataTypeImm LEAF
#define WALK_If IF
#define WALK_SeqExpr SEQ
#define WALK_Function FUNCTION
#define WALK_ExternFunc LEAF
#define WALK_Binding NOT_WALKED /* abstract: no node is of this exact kind */
#define WALK_VarBinding BINDING
#define WALK_MatchCast BINDING
#define WALK_BindingBlock BLOCK
#define WALK_DataflowBlock BLOCK
#define SHAPE_(x) TVM_RELAX__SHAPE_##x
#define SHAPE(x) SHAPE_(x)

const tvm_relax__walk_shape tvm_relax__walk_shapes[TVM_RELAX_KIND_COUNT] = {
#define TVM_RELAX_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) \
  [TVM_RELAX_KIND_##Name] = SHAPE(WALK_##Name),
#include <tvm/relax/nodes.def>
};

/* ---- The walker ------------------------------------------------------------------------------ */
typedef struct walker walker;
struct walker {
  /* Called once per node after its children; non-zero stops the walk. */
  int (*visit)(walker* w, const void* node);
  /* Called for each occurrence of a Var at a definition site (parameter, binding) or a use. */
  int (*def)(walker* w, const tvm_relax_var_obj* var);
  int (*use)(walker* w, const tvm_relax_var_obj* var);
  void* ctx;
  void* seen; /* ffi.Dict node -> None */
  int32_t depth;
};

static int walk_at(walker* w, const void* node, bool def);
static int walk(walker* w, const void* node) { return walk_at(w, node, false); }

static int walk_seq(walker* w, void* arr) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(arr); ++i) {
    int rc = walk(w, tvm_ffi_seq_obj_at(arr, i));
    if (rc) return rc;
  }
  return 0;
}

/* A Var at a definition site. */
static int walk_def(walker* w, const tvm_relax_var_obj* var) {
  if (w->def) {
    int rc = w->def(w, var);
    if (rc) return rc;
  }
  return walk_at(w, var, true);
}

static int walk_children(walker* w, const void* node) {
  int rc = 0;
  switch (tvm_relax__walk_shape_of(node)) {
    case TVM_RELAX__SHAPE_CALL: {
      const tvm_relax_call_obj* c = node;
      if ((rc = walk(w, c->op))) return rc;
      return walk_seq(w, c->args);
    }
    case TVM_RELAX__SHAPE_TUPLE:
      return walk_seq(w, ((const tvm_relax_tuple_obj*)node)->fields);
    case TVM_RELAX__SHAPE_TUPLE_GET_ITEM:
      return walk(w, ((const tvm_relax_tuple_get_item_obj*)node)->tuple_value);
    case TVM_RELAX__SHAPE_IF: {
      const tvm_relax_if_obj* n = node;
      if ((rc = walk(w, n->cond)) || (rc = walk(w, n->true_branch))) return rc;
      return walk(w, n->false_branch);
    }
    case TVM_RELAX__SHAPE_SEQ: {
      const tvm_relax_seq_expr_obj* s = node;
      if ((rc = walk_seq(w, s->blocks))) return rc;
      return walk(w, s->body);
    }
    case TVM_RELAX__SHAPE_FUNCTION: {
      const tvm_relax_function_obj* f = node;
      for (int64_t i = 0; i < tvm_ffi_seq_size(f->params); ++i) {
        if ((rc = walk_def(w, tvm_ffi_seq_obj_at(f->params, i)))) return rc;
      }
      return walk(w, f->body);
    }
    case TVM_RELAX__SHAPE_BINDING: {
      const tvm_relax_binding_obj* b = node;
      if ((rc = walk(w, tvm_relax_binding_value(b)))) return rc;
      return walk_def(w, b->var);
    }
    case TVM_RELAX__SHAPE_BLOCK:
      return walk_seq(w, ((const tvm_relax_block_obj*)node)->bindings);
    case TVM_RELAX__SHAPE_NOT_WALKED:
    case TVM_RELAX__SHAPE_LEAF:
    case TVM_RELAX__SHAPE_VAR:
      return 0;
  }
  return 0;
}

static bool walkable(const void* node) {
  return tvm_relax_is_expr(node) || (tvm_relax_kind_of(node) != TVM_RELAX_KIND_NONE &&
                                     tvm_relax__walk_shape_of(node) != TVM_RELAX__SHAPE_NOT_WALKED);
}

static int walk_at(walker* w, const void* node, bool def) {
  if (!node) return 0;
  if (!def && w->use && tvm_relax_is_var(node)) {
    int rc = w->use(w, node);
    if (rc) return rc;
  }
  TVMFFIAny key = tvm_ffi_any_obj(node);
  if (tvm_ffi_map_get(w->seen, &key)) return 0;
  if (!walkable(node)) {
    tvm_ffi_raise("TypeError", "Relax walk: %s is not a Relax expression, binding or block",
                  tvm_ffi_type_key(tvm_ffi_type_index(node)));
    return -1;
  }
  TVMFFIAny none = tvm_ffi_any_none();
  if (tvm_ffi_dict_set(w->seen, &key, &none) != 0) return -1;
  if (w->depth >= TVM_FFI_STRUCTURAL_MAX_DEPTH) {
    tvm_ffi_raise("RuntimeError", "Relax walk: IR nested deeper than %d levels",
                  TVM_FFI_STRUCTURAL_MAX_DEPTH);
    return -1;
  }
  ++w->depth;
  int rc = walk_children(w, node);
  --w->depth;
  if (rc) return rc;
  return w->visit ? w->visit(w, node) : 0;
}

static int name_cmp(const void* a, const void* b) {
  const tvm_tir_global_var_obj* x = *(void* const*)a;
  const tvm_tir_global_var_obj* y = *(void* const*)b;
  return strcmp(tvm_ffi_str_cstr(x->name_hint), tvm_ffi_str_cstr(y->name_hint));
}

/* Walk root: an expression, binding, block, or an IRModule (its Relax functions by name). */
static int walk_root(walker* w, const void* root) {
  if (!root) {
    tvm_ffi_raise("TypeError", "Relax walk: the node is NULL");
    return -1;
  }
  if (!(w->seen = tvm_ffi_dict_new())) return -1;
  w->depth = 0;
  int rc = 0;
  if (tvm_tir_is(root, TVM_TIR_KIND_IRModule)) {
    void* funcs = ((const tvm_tir_ir_module_obj*)root)->functions;
    int64_t n = tvm_ffi_map_size(funcs), count = 0;
    void** gvs = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
    if (!gvs) rc = -1;
    const TVMFFIAny *k, *v;
    for (int64_t pos = tvm_ffi_map_next(funcs, 0, &k, &v); gvs && pos >= 0;
         pos = tvm_ffi_map_next(funcs, pos, &k, &v)) {
      if (tvm_relax_kind_of(v->v_obj) == TVM_RELAX_KIND_Function) gvs[count++] = k->v_obj;
    }
    if (gvs) qsort(gvs, (size_t)count, sizeof(void*), name_cmp);
    for (int64_t i = 0; rc == 0 && i < count; ++i) {
      TVMFFIAny key = tvm_ffi_any_obj(gvs[i]);
      rc = walk(w, tvm_ffi_map_get(funcs, &key)->v_obj);
    }
    tvm_ffi_free(gvs);
  } else {
    rc = walk(w, root);
  }
  tvm_ffi_release(w->seen);
  w->seen = NULL;
  return rc;
}

/* ---- Post-order visitor ---------------------------------------------------------------------- */
typedef struct {
  tvm_relax_visit_fn fn;
  void* ctx;
} user_visit;

static int call_user(walker* w, const void* node) {
  user_visit* u = w->ctx;
  return u->fn(node, u->ctx);
}

int tvm_relax_post_order_visit(const void* node, tvm_relax_visit_fn fn, void* ctx) {
  if (!fn) {
    tvm_ffi_raise("TypeError", "tvm_relax_post_order_visit: fn is NULL");
    return -1;
  }
  user_visit u = {fn, ctx};
  walker w = {call_user, NULL, NULL, &u, NULL, 0};
  return walk_root(&w, node);
}

/* ---- Variables ------------------------------------------------------------------------------- */
/* An ordered set: the items in order of first addition. */
typedef struct {
  void* list; /* ffi.List */
  void* set;  /* ffi.Dict item -> None */
} ordered_set;

static int set_init(ordered_set* s) {
  s->list = tvm_ffi_list_new();
  s->set = tvm_ffi_dict_new();
  return s->list && s->set ? 0 : -1;
}

static void set_free(ordered_set* s) {
  tvm_ffi_release(s->list);
  tvm_ffi_release(s->set);
}

static bool set_has(const ordered_set* s, const TVMFFIAny* item) {
  return tvm_ffi_map_get(s->set, item) != NULL;
}

static int set_add(ordered_set* s, const void* obj) {
  TVMFFIAny key = tvm_ffi_any_obj(obj), none = tvm_ffi_any_none();
  if (set_has(s, &key)) return 0;
  if (tvm_ffi_dict_set(s->set, &key, &none) != 0) return -1;
  return tvm_ffi_list_push(s->list, &key);
}

/* What the variable analyses collect. */
typedef struct {
  ordered_set bound, used, all;
} var_sets;

static int on_def(walker* w, const tvm_relax_var_obj* v) {
  var_sets* s = w->ctx;
  return set_add(&s->bound, v) || set_add(&s->all, v) ? -1 : 0;
}

static int on_use(walker* w, const tvm_relax_var_obj* v) {
  var_sets* s = w->ctx;
  return set_add(&s->used, v) || set_add(&s->all, v) ? -1 : 0;
}

typedef enum { VARS_FREE, VARS_BOUND, VARS_USED, VARS_ALL } vars_what;

static void* collect_vars(const void* expr, vars_what what) {
  var_sets s;
  memset(&s, 0, sizeof(s));
  void* out = NULL;
  if (set_init(&s.bound) == 0 && set_init(&s.used) == 0 && set_init(&s.all) == 0) {
    walker w = {NULL, on_def, on_use, &s, NULL, 0};
    if (walk_root(&w, expr) == 0) {
      if (what == VARS_FREE) {
        void* list = tvm_ffi_list_new();
        bool ok = list != NULL;
        for (int64_t i = 0; ok && i < tvm_ffi_seq_size(s.used.list); ++i) {
          const TVMFFIAny* v = tvm_ffi_seq_at(s.used.list, i);
          if (!set_has(&s.bound, v)) ok = tvm_ffi_list_push(list, v) == 0;
        }
        out = ok ? tvm_ffi_list_to_array(list) : NULL;
        tvm_ffi_release(list);
      } else {
        const ordered_set* set = what == VARS_BOUND  ? &s.bound
                                 : what == VARS_USED ? &s.used
                                                     : &s.all;
        out = tvm_ffi_list_to_array(set->list);
      }
    }
  }
  set_free(&s.bound);
  set_free(&s.used);
  set_free(&s.all);
  return out;
}

void* tvm_relax_free_vars(const void* expr) { return collect_vars(expr, VARS_FREE); }
void* tvm_relax_bound_vars(const void* expr) { return collect_vars(expr, VARS_BOUND); }
void* tvm_relax_used_vars(const void* expr) { return collect_vars(expr, VARS_USED); }
void* tvm_relax_all_vars(const void* expr) { return collect_vars(expr, VARS_ALL); }

static int on_global_var(walker* w, const void* node) {
  return tvm_tir_is(node, TVM_TIR_KIND_GlobalVar) ? set_add(w->ctx, node) : 0;
}

void* tvm_relax_all_global_vars(const void* expr) {
  ordered_set s;
  memset(&s, 0, sizeof(s));
  void* out = NULL;
  if (set_init(&s) == 0) {
    walker w = {on_global_var, NULL, NULL, &s, NULL, 0};
    if (walk_root(&w, expr) == 0) out = tvm_ffi_list_to_array(s.list);
  }
  set_free(&s);
  return out;
}

/* ---- Symbolic variables ---------------------------------------------------------------------- */
typedef struct {
  ordered_set used;
  void* defined; /* ffi.Dict tir.Var -> None */
  void* scratch; /* ffi.List, emptied after each use */
} sym_vars;

static int sym_sinfo(sym_vars* s, const tvm_relax_sinfo_obj* sinfo, bool defs) {
  if (!sinfo) return 0;
  if (defs) {
    /* The variables this struct info defines go to `defined` (through scratch). */
    void* seen = tvm_ffi_dict_new();
    int rc = seen ? tvm_relax__sinfo_tir_vars_seen(sinfo, true, s->scratch, seen) : -1;
    tvm_ffi_release(seen);
    TVMFFIAny none = tvm_ffi_any_none();
    for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(s->scratch); ++i) {
      rc = tvm_ffi_dict_set(s->defined, tvm_ffi_seq_at(s->scratch, i), &none);
    }
    tvm_ffi_list_clear(s->scratch);
    return rc;
  }
  return tvm_relax__sinfo_tir_vars_seen(sinfo, false, s->used.list, s->used.set);
}

static int on_symbolic(walker* w, const void* node) {
  sym_vars* s = w->ctx;
  int rc = 0;
  switch (tvm_relax_kind_of(node)) {
    case TVM_RELAX_KIND_Function: {
      const tvm_relax_function_obj* f = node;
      for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(f->params); ++i) {
        rc = sym_sinfo(s, tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(f->params, i)), true);
      }
      if (rc == 0) rc = sym_sinfo(s, f->ret_struct_info, false);
      return rc;
    }
    case TVM_RELAX_KIND_MatchCast: {
      const tvm_relax_match_cast_obj* m = node;
      if ((rc = sym_sinfo(s, m->struct_info, true))) return rc;
      return sym_sinfo(s, m->struct_info, false);
    }
    case TVM_RELAX_KIND_Call: {
      const tvm_relax_call_obj* c = node;
      for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(c->sinfo_args); ++i) {
        rc = sym_sinfo(s, tvm_ffi_seq_obj_at(c->sinfo_args, i), false);
      }
      break;
    }
    case TVM_RELAX_KIND_PrimValue:
      rc = tvm_relax__expr_tir_vars(((const tvm_relax_prim_value_obj*)node)->value, s->used.list,
                                    s->used.set);
      break;
    case TVM_RELAX_KIND_ShapeExpr: {
      void* values = ((const tvm_relax_shape_expr_obj*)node)->values;
      for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(values); ++i) {
        rc = tvm_relax__expr_tir_vars(tvm_ffi_seq_obj_at(values, i), s->used.list, s->used.set);
      }
      break;
    }
    default:
      break;
  }
  /* An expression's own struct info (a GlobalVar's signature binds its own variables). */
  if (rc == 0 && tvm_relax_is_expr(node) && !tvm_tir_is(node, TVM_TIR_KIND_GlobalVar) &&
      !tvm_tir_is(node, TVM_TIR_KIND_PrimFunc)) {
    rc = sym_sinfo(s, tvm_relax_sinfo_of(node), false);
  }
  return rc;
}

void* tvm_relax_free_symbolic_vars(const void* expr) {
  sym_vars s;
  memset(&s, 0, sizeof(s));
  void* out = NULL;
  void* list = NULL;
  if (set_init(&s.used) == 0 && (s.defined = tvm_ffi_dict_new()) &&
      (s.scratch = tvm_ffi_list_new())) {
    walker w = {on_symbolic, NULL, NULL, &s, NULL, 0};
    if (walk_root(&w, expr) == 0 && (list = tvm_ffi_list_new())) {
      bool ok = true;
      for (int64_t i = 0; ok && i < tvm_ffi_seq_size(s.used.list); ++i) {
        const TVMFFIAny* v = tvm_ffi_seq_at(s.used.list, i);
        if (!tvm_ffi_map_get(s.defined, v)) ok = tvm_ffi_list_push(list, v) == 0;
      }
      if (ok) out = tvm_ffi_list_to_array(list);
    }
  }
  tvm_ffi_release(list);
  set_free(&s.used);
  tvm_ffi_release(s.defined);
  tvm_ffi_release(s.scratch);
  return out;
}

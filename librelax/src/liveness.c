/*
 * liveness.c: lifetimes of the allocated values of a function's top-level bindings, for
 * StaticPlanBlockMemory and KillAfterLastUse (the rules: internal.h, tvm_relax__liveness).
 */
#include <string.h>

#include "internal.h"

static int64_t token_of(const tvm_relax__liveness* l, const void* var) {
  if (!tvm_relax_is_var(var)) return -1;
  TVMFFIAny k = tvm_ffi_any_obj(var);
  const TVMFFIAny* v = tvm_ffi_map_get(l->token_of, &k);
  int64_t t;
  return v && tvm_ffi_any_as_int(v, &t) ? t : -1;
}

static int set_token(tvm_relax__liveness* l, const void* var, int64_t t) {
  TVMFFIAny k = tvm_ffi_any_obj(var), v = tvm_ffi_any_int(t);
  return tvm_ffi_dict_set(l->token_of, &k, &v);
}

static void use(tvm_relax__liveness* l, int64_t t, int64_t pos) {
  if (l->last[t] < pos) l->last[t] = pos;
}

/* Whether the call's arguments are only read or written by it: nothing it returns aliases them. */
static bool plain_use_call(const tvm_relax__liveness* l, const tvm_relax_call_obj* c) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
  if (info) {
    return info->id == TVM_RELAX_OP_memory_alloc_tensor || info->id == TVM_RELAX_OP_memory_kill_tensor ||
           info->id == TVM_RELAX_OP_memory_kill_storage || info->id == TVM_RELAX_OP_shape_of;
  }
  if (!tvm_tir_is(c->op, TVM_TIR_KIND_GlobalVar)) return false;
  void* f = tvm_tir_ir_module_lookup(l->mod, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)c->op)->name_hint));
  bool kernel = tvm_tir_is(f, TVM_TIR_KIND_PrimFunc);
  tvm_ffi_release(f);
  return kernel;
}

/* Record the uses in e at position pos: a token's Var as a direct argument of a plain-use call
 * is a use, any other occurrence an escape (all of them when escape_all: inside a nested
 * function). */
static void scan(tvm_relax__liveness* l, const void* e, int64_t pos, bool escape_all) {
  switch (tvm_relax_kind_of(e)) {
    case TVM_RELAX_KIND_Var:
    case TVM_RELAX_KIND_DataflowVar: {
      int64_t t = token_of(l, e);
      if (t >= 0) use(l, t, pos), l->escapes[t] = true;
      return;
    }
    case TVM_RELAX_KIND_Call: {
      const tvm_relax_call_obj* c = e;
      scan(l, c->op, pos, escape_all);
      bool plain = !escape_all && plain_use_call(l, c);
      for (int64_t i = 0; i < tvm_ffi_seq_size(c->args); ++i) {
        const void* a = tvm_ffi_seq_obj_at(c->args, i);
        int64_t t = plain ? token_of(l, a) : -1;
        if (t >= 0) use(l, t, pos);
        else scan(l, a, pos, escape_all);
      }
      return;
    }
    case TVM_RELAX_KIND_Tuple: {
      void* f = ((const tvm_relax_tuple_obj*)e)->fields;
      for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) scan(l, tvm_ffi_seq_obj_at(f, i), pos, escape_all);
      return;
    }
    case TVM_RELAX_KIND_TupleGetItem:
      scan(l, ((const tvm_relax_tuple_get_item_obj*)e)->tuple_value, pos, escape_all);
      return;
    case TVM_RELAX_KIND_If: {
      const tvm_relax_if_obj* f = e;
      scan(l, f->cond, pos, escape_all);
      scan(l, f->true_branch, pos, escape_all);
      scan(l, f->false_branch, pos, escape_all);
      return;
    }
    case TVM_RELAX_KIND_SeqExpr: {
      const tvm_relax_seq_expr_obj* s = e;
      for (int64_t i = 0; i < tvm_ffi_seq_size(s->blocks); ++i) {
        const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(s->blocks, i);
        for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
          scan(l, tvm_relax_binding_value(tvm_ffi_seq_obj_at(blk->bindings, j)), pos, escape_all);
        }
      }
      scan(l, s->body, pos, escape_all);
      return;
    }
    case TVM_RELAX_KIND_Function:
      scan(l, ((const tvm_relax_function_obj*)e)->body, pos, true);
      return;
    default:
      return; /* leaves: constants, shapes, prim values, GlobalVars, ExternFuncs, ops */
  }
}

/* The token that v views when v is a reshape of a token's Var (R.reshape, or the
 * vm.builtin.reshape LowerRuntimeBuiltin makes of it), else -1. */
static int64_t reshape_of(const tvm_relax__liveness* l, const void* v) {
  if (tvm_relax_kind_of(v) != TVM_RELAX_KIND_Call) return -1;
  const tvm_relax_call_obj* c = v;
  bool reshape = tvm_relax__call_op_id(c) == TVM_RELAX_OP_reshape;
  if (!reshape && tvm_relax_kind_of(c->op) == TVM_RELAX_KIND_ExternFunc) {
    TVMFFIByteArray name = tvm_ffi_str_view(((const tvm_relax_extern_func_obj*)c->op)->global_symbol);
    reshape = name.size == 18 && memcmp(name.data, "vm.builtin.reshape", 18) == 0;
  }
  return reshape && tvm_ffi_seq_size(c->args) == 2 ? token_of(l, tvm_ffi_seq_obj_at(c->args, 0)) : -1;
}

static int new_token(tvm_relax__liveness* l, const tvm_relax_var_obj* root, int64_t pos) {
  if (l->n == l->cap) {
    int64_t cap = l->cap ? l->cap * 2 : 16;
    int64_t* d = tvm_ffi_realloc(l->def, (size_t)cap * sizeof(int64_t));
    if (d) l->def = d;
    int64_t* u = d ? tvm_ffi_realloc(l->last, (size_t)cap * sizeof(int64_t)) : NULL;
    if (u) l->last = u;
    bool* e = u ? tvm_ffi_realloc(l->escapes, (size_t)cap * sizeof(bool)) : NULL;
    if (!e) return -1;
    l->escapes = e;
    l->cap = cap;
  }
  TVMFFIAny item = tvm_ffi_any_obj(root);
  if (tvm_ffi_list_push(l->roots, &item) != 0 || set_token(l, root, l->n) != 0) return -1;
  l->def[l->n] = l->last[l->n] = pos;
  l->escapes[l->n] = false;
  l->n++;
  return 0;
}

int tvm_relax__liveness_init(tvm_relax__liveness* l, const tvm_tir_ir_module_obj* mod,
                             const tvm_relax_function_obj* f,
                             bool (*is_root)(const tvm_relax_binding_obj* b)) {
  memset(l, 0, sizeof(*l));
  l->mod = mod;
  l->token_of = tvm_ffi_dict_new();
  l->roots = tvm_ffi_list_new();
  if (!l->token_of || !l->roots) return -1;
  const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
  int64_t pos = 0;
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j, ++pos) {
      const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, j);
      const void* v = tvm_relax_binding_value(b);
      int64_t t = token_of(l, v);
      if (t < 0 && (t = reshape_of(l, v)) >= 0) {
        scan(l, tvm_ffi_seq_obj_at(((const tvm_relax_call_obj*)v)->args, 1), pos, false);
      }
      if (t >= 0) {
        /* v = root (or a match_cast of it, or a reshape view of it): v is the root under
         * another name. */
        use(l, t, pos);
        if (set_token(l, b->var, t) != 0) return -1;
        continue;
      }
      scan(l, v, pos, false);
      if (is_root(b) && new_token(l, b->var, pos) != 0) return -1;
    }
  }
  l->count = pos;
  scan(l, seq->body, pos, false);
  return 0;
}

void tvm_relax__liveness_free(tvm_relax__liveness* l) {
  tvm_ffi_release(l->token_of);
  tvm_ffi_release(l->roots);
  tvm_ffi_free(l->def);
  tvm_ffi_free(l->last);
  tvm_ffi_free(l->escapes);
  memset(l, 0, sizeof(*l));
}

/*
 * compute_prim_value.c: ComputePrimValue (tvm/relax/transform.h), upstream's pass of that name.
 *
 * An `R.prim_value(e)` whose e is neither a constant nor a bare variable (`n * 2`, `n % 2 == 0`,
 * a cast) becomes a call of a new PrimFunc of the module, `compute_symbolic_expr(n) -> T.ret(e)`
 * (its parameters the TIR variables of e, renewed), with those variables passed as
 * `R.prim_value(n)` and e's struct info as the call's sinfo_args: VMCodeGen calls it like any
 * kernel, so values the shape heap cannot hold (bools, floats) are computed by compiled code.
 * Where the prim value was an argument, a tuple field or an If's condition the call is bound to
 * a new variable first (A-normal form), as is a function or branch result.
 */
#include <stdio.h>

#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>
#include <tvm/tir/builder.h>

#include "internal.h"

typedef struct {
  const tvm_tir_ir_module_obj* mod;
  void* added;  /* ffi.Dict GlobalVar -> PrimFunc: the functions made */
  void* lifted; /* ffi.Dict Call -> None: the calls made of prim values */
  int64_t next; /* the next name suffix */
} cpv_ctx;

static bool stays(const tvm_tir_expr_obj* v) {
  int64_t i;
  double d;
  return !v || tvm_tir_is_var(v) || tvm_tir_as_const_int(v, &i) || tvm_tir_as_const_float(v, &d);
}

/* A name no function of the module (or made here) has. */
static int fresh_name(cpv_ctx* c, char* out, size_t size) {
  for (;; ++c->next) {
    if (c->next == 0) snprintf(out, size, "compute_symbolic_expr");
    else snprintf(out, size, "compute_symbolic_expr%lld", (long long)c->next);
    void* f = tvm_tir_ir_module_lookup(c->mod, out);
    bool taken = f != NULL;
    tvm_ffi_release(f);
    if (!taken) break;
  }
  ++c->next;
  return 0;
}

/* The PrimFunc returning the value of sinfo (a PrimStructInfo with a value) from `vars`. */
static tvm_tir_prim_func_obj* make_func(const tvm_relax_sinfo_obj* sinfo, void* vars, const char* name) {
  int64_t n = tvm_ffi_seq_size(vars);
  void* vmap = tvm_ffi_dict_new();
  void* params = tvm_ffi_list_new();
  int rc = vmap && params ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    const tvm_tir_var_obj* v = tvm_ffi_seq_obj_at(vars, i);
    tvm_tir_var_obj* p = tvm_tir_var(tvm_tir_var_name(v), tvm_tir_expr_dtype(v));
    TVMFFIAny k = tvm_ffi_any_obj(v), pv = tvm_ffi_any_obj(p);
    rc = p && tvm_ffi_dict_set(vmap, &k, &pv) == 0 && tvm_ffi_list_push(params, &pv) == 0 ? 0 : -1;
    tvm_ffi_release(p);
  }
  tvm_relax_sinfo_obj* s = rc == 0 ? tvm_relax_sinfo_substitute(sinfo, vmap) : NULL;
  tvm_ffi_release(vmap);
  void* arr = s ? tvm_ffi_list_to_array(params) : NULL;
  tvm_ffi_release(params);
  tvm_tir_prim_func_obj* f = NULL;
  if (arr) {
    void* value = tvm_tir_ref(((tvm_relax_prim_sinfo_obj*)s)->value);
    tvm_tir_stmt_obj* body = tvm_tir_evaluate_take(
        tvm_tir_call_takev(tvm_tir_expr_dtype(value), "tir.ret", 1, (void* const[]){value}));
    TVMFFIAny key = tvm_ffi_string("global_symbol"), val = tvm_ffi_string(name);
    void* attrs = body ? tvm_ffi_map_new(&key, &val, 1) : NULL;
    tvm_ffi_any_release(&key);
    tvm_ffi_any_release(&val);
    f = attrs ? tvm_tir_prim_func_new(arr, body, NULL, NULL, attrs) : NULL;
    tvm_ffi_release(attrs);
    tvm_ffi_release(body);
  }
  tvm_ffi_release(arr);
  tvm_ffi_release(s);
  return f;
}

static void* post_prim_value(tvm_relax_mutator* m, const void* node) {
  cpv_ctx* c = m->ctx;
  const tvm_relax_prim_value_obj* pv = node;
  if (stays(pv->value)) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  const tvm_relax_sinfo_obj* sinfo = tvm_relax_sinfo_of(pv);
  char name[64];
  void* vars = tvm_ffi_list_new();
  int rc = vars && fresh_name(c, name, sizeof(name)) == 0 &&
                   tvm_relax_sinfo_tir_vars(sinfo, false, vars) == 0
               ? 0
               : -1;
  tvm_tir_prim_func_obj* f = rc == 0 ? make_func(sinfo, vars, name) : NULL;
  tvm_tir_global_var_obj* gv = f ? tvm_relax__prim_func_global_var(name, f) : NULL;
  TVMFFIAny k = tvm_ffi_any_obj(gv), v = tvm_ffi_any_obj(f);
  rc = gv && tvm_ffi_dict_set(c->added, &k, &v) == 0 ? 0 : -1;
  void* args = rc == 0 ? tvm_ffi_list_new() : NULL;
  for (int64_t i = 0; args && rc == 0 && i < tvm_ffi_seq_size(vars); ++i) {
    tvm_relax_expr_obj* a = tvm_relax_prim_value_new(tvm_ffi_seq_obj_at(vars, i));
    TVMFFIAny item = tvm_ffi_any_obj(a);
    rc = a && tvm_ffi_list_push(args, &item) == 0 ? 0 : -1;
    tvm_ffi_release(a);
  }
  void* arr = args && rc == 0 ? tvm_ffi_list_to_array(args) : NULL;
  tvm_relax_expr_obj* call = tvm_relax__call_sinfo(gv, arr, sinfo, pv->expr.span);
  TVMFFIAny ck = tvm_ffi_any_obj(call), none = tvm_ffi_any_none();
  if (call && tvm_ffi_dict_set(c->lifted, &ck, &none) != 0) {
    tvm_ffi_release(call);
    call = NULL;
  }
  void* objs[] = {arr, args, gv, f, vars};
  tvm_relax__release_all(objs, sizeof(objs) / sizeof(objs[0]));
  return call;
}

/* ---- A-normal form: the calls made bound to variables ---------------------------------------- */
static bool is_lifted(cpv_ctx* c, const void* e) {
  TVMFFIAny k = tvm_ffi_any_obj(e);
  return tvm_relax_kind_of(e) == TVM_RELAX_KIND_Call && tvm_ffi_map_get(c->lifted, &k) != NULL;
}

static void* hoist(cpv_ctx* c, const void* e, bool top, void* pending, bool dataflow);

static void* hoist_item(void* ctx, void* item) {
  void** a = ctx;
  return hoist(a[0], item, false, a[1], a[2] != NULL);
}

/* e with each prim-value call in an argument, tuple field or If condition (e itself too unless
 * top) replaced by a new variable bound to it in `pending` (an ffi.List of bindings). */
static void* hoist(cpv_ctx* c, const void* e, bool top, void* pending, bool dataflow) {
  if (!top && is_lifted(c, e)) {
    tvm_relax_var_obj* v = tvm_relax_var_new("lv_prim", tvm_relax_sinfo_of(e), dataflow);
    tvm_relax_binding_obj* b = v ? tvm_relax_var_binding_new(v, (void*)e) : NULL;
    TVMFFIAny item = tvm_ffi_any_obj(b);
    int rc = b ? tvm_ffi_list_push(pending, &item) : -1;
    tvm_ffi_release(b);
    if (rc != 0) {
      tvm_ffi_release(v);
      return NULL;
    }
    return v;
  }
  void* ctx[3] = {c, pending, dataflow ? (void*)c : NULL};
  switch (tvm_relax_kind_of(e)) {
    case TVM_RELAX_KIND_Call: {
      const tvm_relax_call_obj* call = e;
      void* args = tvm_relax__map_array(call->args, hoist_item, ctx);
      if (!args || args == call->args) {
        tvm_ffi_release(args);
        break;
      }
      tvm_relax_expr_obj* out =
          tvm_relax_call_new(call->op, args, call->attrs, call->sinfo_args, call->expr.span);
      tvm_ffi_release(args);
      return out;
    }
    case TVM_RELAX_KIND_Tuple: {
      const tvm_relax_tuple_obj* t = e;
      void* fields = tvm_relax__map_array(t->fields, hoist_item, ctx);
      if (!fields || fields == t->fields) {
        tvm_ffi_release(fields);
        break;
      }
      tvm_relax_expr_obj* out = tvm_relax_tuple_new(fields);
      tvm_ffi_release(fields);
      return out;
    }
    case TVM_RELAX_KIND_If: {
      const tvm_relax_if_obj* f = e;
      if (!is_lifted(c, f->cond)) break;
      void* cond = hoist(c, f->cond, false, pending, dataflow);
      tvm_relax_expr_obj* out = cond ? tvm_relax_if_new(cond, f->true_branch, f->false_branch) : NULL;
      tvm_ffi_release(cond);
      return out;
    }
    default:
      break;
  }
  if (tvm_ffi_error_pending()) return NULL;
  tvm_ffi_retain((void*)e);
  return (void*)e;
}

static void* post_block(tvm_relax_mutator* m, const void* node) {
  cpv_ctx* c = m->ctx;
  const tvm_relax_block_obj* blk = node;
  bool dataflow = tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock;
  void* list = tvm_ffi_list_new();
  bool changed = false;
  int rc = list ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(blk->bindings); ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, i);
    const void* v = tvm_relax_binding_value(b);
    void* nv = hoist(c, v, true, list, dataflow);
    if (!nv) {
      rc = -1;
      break;
    }
    void* nb = NULL;
    if (nv == v) {
      tvm_ffi_retain((void*)b);
      nb = (void*)b;
    } else if (tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast) {
      nb = tvm_relax_match_cast_new(b->var, nv, ((const tvm_relax_match_cast_obj*)b)->struct_info);
    } else {
      nb = tvm_relax_var_binding_new(b->var, nv);
    }
    changed |= nb != b;
    tvm_ffi_release(nv);
    TVMFFIAny item = tvm_ffi_any_obj(nb);
    rc = nb && tvm_ffi_list_push(list, &item) == 0 ? 0 : -1;
    tvm_ffi_release(nb);
  }
  void* out = NULL;
  if (rc == 0 && !changed) {
    tvm_ffi_retain((void*)node);
    out = (void*)node;
  } else if (rc == 0) {
    void* arr = tvm_ffi_list_to_array(list);
    out = arr ? tvm_relax_block_new(arr, dataflow) : NULL;
    tvm_ffi_release(arr);
  }
  tvm_ffi_release(list);
  return out;
}

static void* post_seq(tvm_relax_mutator* m, const void* node) {
  cpv_ctx* c = m->ctx;
  const tvm_relax_seq_expr_obj* s = node;
  void* pending = tvm_ffi_list_new();
  void* body = pending ? hoist(c, s->body, false, pending, false) : NULL;
  void* out = NULL;
  if (body && body == s->body) {
    tvm_ffi_retain((void*)node);
    out = (void*)node;
  } else if (body) {
    /* The result's bindings go at the end: into the last block when it is an ordinary one (as
     * upstream's normalizer merges adjacent blocks of a kind; the printed text cannot tell two
     * such blocks apart), else into a new ordinary block. */
    int64_t nb = tvm_ffi_seq_size(s->blocks);
    const tvm_relax_block_obj* last = nb > 0 ? tvm_ffi_seq_obj_at(s->blocks, nb - 1) : NULL;
    bool merge = last && tvm_relax_kind_of(last) == TVM_RELAX_KIND_BindingBlock;
    void* all = tvm_ffi_list_new();
    int rc = all ? 0 : -1;
    for (int64_t i = 0; merge && rc == 0 && i < tvm_ffi_seq_size(last->bindings); ++i) {
      rc = tvm_ffi_list_push(all, tvm_ffi_seq_at(last->bindings, i));
    }
    for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(pending); ++i) {
      rc = tvm_ffi_list_push(all, tvm_ffi_seq_at(pending, i));
    }
    void* bindings = rc == 0 ? tvm_ffi_list_to_array(all) : NULL;
    tvm_ffi_release(all);
    tvm_relax_block_obj* blk = bindings ? tvm_relax_block_new(bindings, false) : NULL;
    void* blocks = tvm_ffi_list_new();
    rc = blk && blocks ? 0 : -1;
    for (int64_t i = 0; rc == 0 && i < nb - (merge ? 1 : 0); ++i) {
      rc = tvm_ffi_list_push(blocks, tvm_ffi_seq_at(s->blocks, i));
    }
    TVMFFIAny item = tvm_ffi_any_obj(blk);
    if (rc == 0) rc = tvm_ffi_list_push(blocks, &item);
    void* arr = rc == 0 ? tvm_ffi_list_to_array(blocks) : NULL;
    out = arr ? tvm_relax_seq_expr_new(arr, body) : NULL;
    void* objs[] = {arr, blocks, blk, bindings};
    tvm_relax__release_all(objs, 4);
  }
  tvm_ffi_release(body);
  tvm_ffi_release(pending);
  return out;
}

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  tvm_relax_mutator m = {0};
  m.ctx = ctx;
  m.post[TVM_RELAX_KIND_PrimValue] = post_prim_value;
  m.post[TVM_RELAX_KIND_BindingBlock] = post_block;
  m.post[TVM_RELAX_KIND_DataflowBlock] = post_block;
  m.post[TVM_RELAX_KIND_SeqExpr] = post_seq;
  tvm_relax_function_obj* out = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  return out;
}

static tvm_tir_ir_module_obj* run_compute_prim_value(const tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  cpv_ctx c = {mod, tvm_ffi_dict_new(), tvm_ffi_dict_new(), 0};
  tvm_tir_ir_module_obj* out =
      c.added && c.lifted ? tvm_relax__map_functions(mod, "ComputePrimValue", rewrite, &c) : NULL;
  if (out && tvm_ffi_map_size(c.added) > 0) {
    /* The module with the functions made. */
    void* funcs = tvm_ffi_dict_new();
    int rc = funcs ? 0 : -1;
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(out->functions, pos, &k, &v)) >= 0;) {
      rc = tvm_ffi_dict_set(funcs, k, v);
    }
    for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(c.added, pos, &k, &v)) >= 0;) {
      rc = tvm_ffi_dict_set(funcs, k, v);
    }
    void* map = rc == 0 ? tvm_ffi_dict_to_map(funcs) : NULL;
    tvm_tir_ir_module_obj* with = map ? tvm_tir_ir_module_new(map, out->attrs) : NULL;
    tvm_ffi_release(map);
    tvm_ffi_release(funcs);
    tvm_ffi_release(out);
    out = with;
  }
  tvm_ffi_release(c.added);
  tvm_ffi_release(c.lifted);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_compute_prim_value(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_compute_prim_value, mod);
}

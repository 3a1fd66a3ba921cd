/*
 * lambda_lift.c: LambdaLift (tvm/relax/transform.h), upstream's pass of the same name: every
 * local function (a Function bound to a variable inside another function) becomes a function of
 * the module, so that VMCodeGen only meets module functions.
 *
 * The walk is the bottom-up mutator, so inner lambdas are lifted before the ones around them
 * (whose free variables then include what the inner ones capture). At `f = <Function F>`:
 *   - the lifted function takes F's parameters, then one parameter per free variable of F
 *     (fresh Vars with the same names and struct info), and is named <outer>_<f> (made unique);
 *   - F captures nothing: the binding is dropped and every use of f (calls included) is the
 *     GlobalVar; a recursive F calls the GlobalVar;
 *   - F captures variables: the binding becomes `f = R.make_closure(cls.<lifted>, (captured...))`
 *     (the VM binds them as the last arguments) and each call `f(args)` becomes
 *     `R.invoke_pure_closure(f, (args...))` (`R.invoke_closure` for an impure F) with F's result
 *     as its struct info; a recursive F calls the GlobalVar with its captured parameters added.
 * Calls of function-typed parameters are left as they are (VMCodeGen invokes them as closures).
 */
#include <stdio.h>
#include <string.h>

#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>

#include "internal.h"

typedef struct {
  void* names;   /* ffi.Dict name -> None: the module's function names, lifted ones included */
  void* lifted;  /* ffi.Dict GlobalVar -> Function: the lifted functions */
  void* direct;  /* ffi.Dict Var -> GlobalVar: local functions that capture nothing */
  void* closure; /* ffi.Dict Var -> Function: closures, by their new Var (value: the lambda) */
  const char* outer;
} lift_ctx;

/* The state of rewriting one lambda's body. */
typedef struct {
  const tvm_relax_var_obj* self; /* the Var the lambda is bound to */
  tvm_tir_global_var_obj* gv;
  void* captured; /* ffi.Array of the lifted function's capture parameters */
  void* vmap;     /* ffi.Dict tir.Var -> tir.Var: the lifted function's own symbolic variables */
  int64_t self_uses, self_calls;
} body_ctx;

static bool map_has(void* map, const void* key) {
  TVMFFIAny k = tvm_ffi_any_obj(key);
  return tvm_ffi_map_get(map, &k) != NULL;
}

static int map_put(void* map, const void* key, const void* value) {
  TVMFFIAny k = tvm_ffi_any_obj(key), v = value ? tvm_ffi_any_obj(value) : tvm_ffi_any_none();
  return tvm_ffi_dict_set(map, &k, &v);
}

/* A module-unique name for the lambda bound to var (upstream: <outer>_<var>, then counted). */
static void* unique_name(lift_ctx* c, const tvm_relax_var_obj* var) {
  char buf[512];
  snprintf(buf, sizeof(buf), "%s_%s", c->outer, tvm_relax_var_name(var));
  size_t len = strlen(buf);
  for (int k = 1;; ++k) {
    void* s = tvm_relax__str(buf);
    if (!s) return NULL;
    if (!map_has(c->names, s)) return map_put(c->names, s, NULL) == 0 ? s : (tvm_ffi_release(s), NULL);
    tvm_ffi_release(s);
    snprintf(buf + len, sizeof(buf) - len, "_%d", k);
  }
}

/* ---- The lifted function's body ------------------------------------------------------------- */
/* A function may not share symbolic variables with another (well-formedness), so the lifted
 * function gets fresh ones for those of its parameters' struct info: the parameters are
 * replaced, and the struct info written into the body (call_tir's out_sinfo, shapes, prim
 * values, match_cast) is substituted; the rest is inferred again by the mutator. */
static tvm_tir_expr_obj* subst_prim(const body_ctx* b, tvm_tir_expr_obj* e) {
  tvm_relax_sinfo_obj* s = tvm_relax_prim_sinfo_new(tvm_tir_expr_dtype(e), e);
  tvm_relax_sinfo_obj* t = s ? tvm_relax_sinfo_substitute(s, b->vmap) : NULL;
  tvm_tir_expr_obj* out = t ? ((tvm_relax_prim_sinfo_obj*)t)->value : NULL;
  if (out) tvm_ffi_retain(out);
  tvm_ffi_release(s);
  tvm_ffi_release(t);
  return out;
}

static void* subst_item(void* ctx, void* item) {
  const body_ctx* b = ctx;
  return tvm_relax_is_sinfo(item) ? (void*)tvm_relax_sinfo_substitute(item, b->vmap)
                                  : (void*)subst_prim(b, item);
}

static void* body_shape(tvm_relax_mutator* m, const void* node) {
  void* values = tvm_relax__map_array(((const tvm_relax_shape_expr_obj*)node)->values, subst_item, m->ctx);
  void* out = values ? tvm_relax_shape_expr_new(values) : NULL;
  tvm_ffi_release(values);
  return out;
}

static void* body_prim(tvm_relax_mutator* m, const void* node) {
  tvm_tir_expr_obj* v = subst_prim(m->ctx, ((const tvm_relax_prim_value_obj*)node)->value);
  void* out = v ? tvm_relax_prim_value_new(v) : NULL;
  tvm_ffi_release(v);
  return out;
}

static void* body_match_cast(tvm_relax_mutator* m, const void* node) {
  const body_ctx* b = m->ctx;
  const tvm_relax_match_cast_obj* mc = node;
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_substitute(mc->struct_info, b->vmap);
  tvm_relax_var_obj* v =
      s ? tvm_relax_var_new_str(mc->binding.var->name_hint, s,
                                tvm_relax_kind_of(mc->binding.var) == TVM_RELAX_KIND_DataflowVar)
        : NULL;
  void* out = v ? tvm_relax_match_cast_new(v, mc->value, s) : NULL;
  tvm_ffi_release(v);
  tvm_ffi_release(s);
  return out;
}

static void* body_var(tvm_relax_mutator* m, const void* node) {
  body_ctx* b = m->ctx;
  void* out = (void*)node;
  if (node == (const void*)b->self) {
    ++b->self_uses;
    /* Capturing nothing, the lambda is its GlobalVar wherever it names itself. */
    if (tvm_ffi_seq_size(b->captured) == 0) out = b->gv;
  }
  tvm_ffi_retain(out);
  return out;
}

/* A recursive call of a capturing lambda: the GlobalVar with the captured parameters added. */
static void* body_call_self(body_ctx* b, const void* node);

static void* body_call(tvm_relax_mutator* m, const void* node) {
  body_ctx* b = m->ctx;
  const tvm_relax_call_obj* call = node;
  if (call->sinfo_args && tvm_ffi_seq_size(call->sinfo_args) > 0 && tvm_ffi_map_size(b->vmap) > 0) {
    void* sa = tvm_relax__map_array(call->sinfo_args, subst_item, b);
    void* c2 = sa ? tvm_relax_call_new(call->op, call->args, call->attrs, sa, call->expr.span) : NULL;
    tvm_ffi_release(sa);
    if (!c2) return NULL;
    void* out = body_call_self(b, c2);
    tvm_ffi_release(c2);
    return out;
  }
  return body_call_self(b, node);
}

/* A call of the lambda itself, when it captures variables. */
static void* body_call_self(body_ctx* b, const void* node) {
  const tvm_relax_call_obj* call = node;
  if (call->op != (const void*)b->self || tvm_ffi_seq_size(b->captured) == 0) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  ++b->self_calls;
  int64_t n = tvm_ffi_seq_size(call->args), k = tvm_ffi_seq_size(b->captured);
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n + k), sizeof(TVMFFIAny));
  if (!items) return NULL;
  for (int64_t i = 0; i < n; ++i) items[i] = *tvm_ffi_seq_at(call->args, i);
  for (int64_t i = 0; i < k; ++i) items[n + i] = *tvm_ffi_seq_at(b->captured, i);
  void* args = tvm_ffi_array_new(items, n + k);
  tvm_ffi_free(items);
  void* out = args ? tvm_relax_call_new(b->gv, args, NULL, NULL, call->expr.span) : NULL;
  tvm_ffi_release(args);
  return out;
}

/* ---- Lifting one lambda --------------------------------------------------------------------- */
/* A fresh symbolic variable in b->vmap for each TIR variable of the struct infos of vars (an
 * Array of Relax Vars). */
static int fresh_symbols(body_ctx* b, void* vars, void* seen) {
  void* tvars = tvm_ffi_list_new();
  int rc = tvars ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(vars); ++i)
    rc = tvm_relax__sinfo_tir_vars_seen(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(vars, i)), false, tvars, seen);
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(tvars); ++i) {
    const tvm_tir_var_obj* v = tvm_ffi_seq_obj_at(tvars, i);
    TVMFFIAny key = tvm_ffi_any_obj(v);
    if (tvm_ffi_map_get(b->vmap, &key)) continue;
    tvm_tir_var_obj* nv = tvm_tir_var_new(tvm_tir_var_name(v), v->expr.dtype);
    rc = nv ? map_put(b->vmap, v, nv) : -1;
    tvm_ffi_release(nv);
  }
  tvm_ffi_release(tvars);
  return rc;
}

/* Push to list a new parameter standing for v (its struct info under b->vmap), and make the
 * body use it in v's place. */
static int new_param(tvm_relax_mutator* m, body_ctx* b, const tvm_relax_var_obj* v, void* list) {
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_substitute(tvm_relax_sinfo_of(v), b->vmap);
  tvm_relax_var_obj* p = s ? tvm_relax_var_new_str(v->name_hint, s, false) : NULL;
  TVMFFIAny pv = tvm_ffi_any_obj(p);
  int rc = p && tvm_ffi_list_push(list, &pv) == 0 ? tvm_relax_mutator_remap(m, (void*)v, p) : -1;
  tvm_ffi_release(p);
  tvm_ffi_release(s);
  return rc;
}

/* The lifted function of lambda fn bound to self: fn's parameters, then one per free variable;
 * *out_gv its GlobalVar, *out_free a new Array of the free variables (the values a closure
 * binds, in the enclosing function). */
static tvm_relax_function_obj* lift(lift_ctx* c, const tvm_relax_function_obj* fn,
                                    const tvm_relax_var_obj* self, tvm_tir_global_var_obj** out_gv,
                                    void** out_free) {
  body_ctx b = {self, NULL, NULL, tvm_ffi_dict_new(), 0, 0};
  tvm_relax_mutator m = {0};
  void* all_free = tvm_relax_free_vars(fn);
  void* free_list = tvm_ffi_list_new();
  void* seen = tvm_ffi_dict_new();
  int rc = b.vmap && all_free && free_list && seen ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(all_free); ++i) {
    if (tvm_ffi_seq_obj_at(all_free, i) != (void*)self) rc = tvm_ffi_list_push(free_list, tvm_ffi_seq_at(all_free, i));
  }
  void* free = rc == 0 ? tvm_ffi_list_to_array(free_list) : NULL;
  if (!free || fresh_symbols(&b, fn->params, seen) != 0 || fresh_symbols(&b, free, seen) != 0) rc = -1;
  /* The parameters, then the captured ones. */
  void* params = tvm_ffi_list_new();
  void* caps = tvm_ffi_list_new();
  if (!params || !caps) rc = -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(fn->params); ++i)
    rc = new_param(&m, &b, tvm_ffi_seq_obj_at(fn->params, i), params);
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(free); ++i)
    rc = new_param(&m, &b, tvm_ffi_seq_obj_at(free, i), caps);
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(caps); ++i)
    rc = tvm_ffi_list_push(params, tvm_ffi_seq_at(caps, i));
  /* The GlobalVar before the body, which may call it. */
  void* param_arr = rc == 0 ? tvm_ffi_list_to_array(params) : NULL;
  void* cap_arr = param_arr ? tvm_ffi_list_to_array(caps) : NULL;
  void* psinfos = cap_arr ? tvm_ffi_list_new() : NULL;
  for (int64_t i = 0; psinfos && rc == 0 && i < tvm_ffi_seq_size(param_arr); ++i) {
    TVMFFIAny s = tvm_ffi_any_obj(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(param_arr, i)));
    rc = tvm_ffi_list_push(psinfos, &s);
  }
  void* psinfo_arr = psinfos && rc == 0 ? tvm_ffi_list_to_array(psinfos) : NULL;
  tvm_relax_sinfo_obj* ret = psinfo_arr ? tvm_relax_sinfo_substitute(fn->ret_struct_info, b.vmap) : NULL;
  tvm_relax_sinfo_obj* fsinfo = ret ? tvm_relax_func_sinfo_new(psinfo_arr, ret, fn->is_pure) : NULL;
  void* name = fsinfo ? unique_name(c, self) : NULL;
  tvm_tir_global_var_obj* gv = name ? tvm_relax_global_var_new(tvm_ffi_str_cstr(name), fsinfo) : NULL;
  tvm_relax_function_obj* out = NULL;
  if (gv) {
    b.gv = gv, b.captured = cap_arr;
    m.ctx = &b;
    m.post[TVM_RELAX_KIND_Var] = body_var;
    m.post[TVM_RELAX_KIND_Call] = body_call;
    if (tvm_ffi_map_size(b.vmap) > 0) {
      m.post[TVM_RELAX_KIND_ShapeExpr] = body_shape;
      m.post[TVM_RELAX_KIND_PrimValue] = body_prim;
      m.post[TVM_RELAX_KIND_MatchCast] = body_match_cast;
    }
    tvm_relax_expr_obj* body = tvm_relax_mutate(&m, fn->body);
    if (body && b.self_uses != b.self_calls && tvm_ffi_seq_size(cap_arr) > 0) {
      tvm_ffi_raise("NotImplementedError",
                    "LambdaLift: %s: local function %s names itself other than by calling itself "
                    "while capturing variables", c->outer, tvm_relax_var_name(self));
    } else if (body) {
      out = tvm_relax_function_new(param_arr, body, ret, fn->is_pure, fn->func.attrs);
    }
    tvm_ffi_release(body);
  }
  if (out) {
    *out_gv = gv, *out_free = free;
    gv = NULL, free = NULL;
  }
  tvm_relax_mutator_free(&m);
  void* objs[] = {gv, name, fsinfo, ret, psinfo_arr, psinfos, cap_arr, param_arr, caps, params,
                  free, seen, free_list, all_free, b.vmap};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  return out;
}

/* ---- The enclosing function ------------------------------------------------------------------- */
/* `f = <Function>`: lift it, and bind f to its GlobalVar or to a closure over its captures. */
static void* outer_binding(tvm_relax_mutator* m, const void* node) {
  lift_ctx* c = m->ctx;
  const tvm_relax_binding_obj* b = node;
  const tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
  if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_VarBinding ||
      tvm_relax_kind_of(value) != TVM_RELAX_KIND_Function) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  const tvm_relax_function_obj* fn = (const void*)value;
  tvm_tir_global_var_obj* gv = NULL;
  void* free = NULL;
  tvm_relax_function_obj* lifted = lift(c, fn, b->var, &gv, &free);
  if (!lifted) return NULL;
  void* out = NULL;
  int rc = map_put(c->lifted, gv, lifted);
  if (rc == 0 && tvm_ffi_seq_size(free) == 0) {
    out = tvm_relax_var_binding_new(b->var, (void*)gv);
    if (!out || map_put(c->direct, b->var, gv) != 0) rc = -1;
  } else if (rc == 0) {
    /* f keeps its function struct info, so that its calls stay well typed until they are
     * rewritten (make_closure's own is R.Object). */
    tvm_relax_expr_obj* tuple = tvm_relax_tuple_new(free);
    tvm_relax_expr_obj* make = tuple ? tvm_relax_call_op("relax.make_closure", NULL, 2, gv, tuple) : NULL;
    out = make ? tvm_relax_var_binding_new(b->var, make) : NULL;
    if (!out || map_put(c->closure, b->var, fn) != 0) rc = -1;
    tvm_ffi_release(make);
    tvm_ffi_release(tuple);
  }
  tvm_ffi_release(lifted);
  tvm_ffi_release(gv);
  tvm_ffi_release(free);
  if (rc != 0) {
    tvm_ffi_release(out);
    return NULL;
  }
  return out;
}

/* A use of a local function that captures nothing: its GlobalVar. */
static void* outer_var(tvm_relax_mutator* m, const void* node) {
  lift_ctx* c = m->ctx;
  TVMFFIAny key = tvm_ffi_any_obj(node);
  const TVMFFIAny* gv = tvm_ffi_map_get(c->direct, &key);
  void* out = gv ? gv->v_obj : (void*)node;
  tvm_ffi_retain(out);
  return out;
}

/* The bindings `f = cls.<lifted>` of local functions that capture nothing are dropped (their
 * uses are the GlobalVar now). */
static void* outer_block(tvm_relax_mutator* m, const void* node) {
  lift_ctx* c = m->ctx;
  const tvm_relax_block_obj* blk = node;
  int64_t n = tvm_ffi_seq_size(blk->bindings), kept = 0;
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, i);
    if (!map_has(c->direct, b->var)) items[kept++] = *tvm_ffi_seq_at(blk->bindings, i);
  }
  void* out = NULL;
  if (kept == n) {
    tvm_ffi_retain((void*)node);
    out = (void*)node;
  } else {
    void* arr = tvm_ffi_array_new(items, kept);
    out = arr ? tvm_relax_block_new(arr, tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock) : NULL;
    tvm_ffi_release(arr);
  }
  tvm_ffi_free(items);
  return out;
}

/* A call of a local function that captures variables: through its closure. */
static void* outer_call(tvm_relax_mutator* m, const void* node) {
  lift_ctx* c = m->ctx;
  const tvm_relax_call_obj* call = node;
  TVMFFIAny key = tvm_ffi_any_obj(call->op);
  const TVMFFIAny* fn = tvm_relax_is_var(call->op) ? tvm_ffi_map_get(c->closure, &key) : NULL;
  if (!fn) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  const tvm_relax_function_obj* lambda = (const void*)fn->v_obj;
  tvm_relax_expr_obj* tuple = tvm_relax_tuple_new(call->args);
  TVMFFIAny ret = tvm_ffi_any_obj(tvm_relax_sinfo_of(call));
  void* sinfo_args = tuple ? tvm_ffi_array_new(&ret, 1) : NULL;
  TVMFFIAny items[2] = {tvm_ffi_any_obj(call->op), tvm_ffi_any_obj(tuple)};
  void* args = sinfo_args ? tvm_ffi_array_new(items, 2) : NULL;
  void* op = tvm_relax_op(lambda->is_pure ? TVM_RELAX_OP_invoke_pure_closure : TVM_RELAX_OP_invoke_closure);
  void* out = args ? tvm_relax_call_new(op, args, NULL, sinfo_args, call->expr.span) : NULL;
  tvm_ffi_release(args);
  tvm_ffi_release(sinfo_args);
  tvm_ffi_release(tuple);
  return out;
}

static tvm_relax_function_obj* lift_in(lift_ctx* c, const char* name,
                                       const tvm_relax_function_obj* f) {
  c->outer = name;
  c->direct = tvm_ffi_dict_new();
  c->closure = tvm_ffi_dict_new();
  tvm_relax_mutator m = {0};
  m.ctx = c;
  m.post[TVM_RELAX_KIND_VarBinding] = outer_binding;
  m.post[TVM_RELAX_KIND_Call] = outer_call;
  m.post[TVM_RELAX_KIND_Var] = m.post[TVM_RELAX_KIND_DataflowVar] = outer_var;
  m.post[TVM_RELAX_KIND_BindingBlock] = m.post[TVM_RELAX_KIND_DataflowBlock] = outer_block;
  tvm_relax_expr_obj* body = c->direct && c->closure ? tvm_relax_mutate(&m, f->body) : NULL;
  tvm_relax_function_obj* out = NULL;
  if (body == f->body) {
    tvm_ffi_retain((void*)f);
    out = (tvm_relax_function_obj*)f;
  } else if (body) {
    out = tvm_relax_function_new(f->params, body, f->ret_struct_info, f->is_pure, f->func.attrs);
  }
  tvm_ffi_release(body);
  tvm_relax_mutator_free(&m);
  tvm_ffi_release(c->direct);
  tvm_ffi_release(c->closure);
  c->direct = c->closure = NULL;
  return out;
}

static tvm_tir_ir_module_obj* run_lambda_lift(const tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "LambdaLift: an IRModule is required");
    return NULL;
  }
  lift_ctx c = {tvm_ffi_dict_new(), tvm_ffi_dict_new(), NULL, NULL, NULL};
  void* funcs = tvm_ffi_dict_new();
  int rc = c.names && c.lifted && funcs ? 0 : -1;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;)
    rc = map_put(c.names, ((tvm_tir_global_var_obj*)k->v_obj)->name_hint, NULL);
  bool changed = false;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (tvm_relax_kind_of(v->v_obj) != TVM_RELAX_KIND_Function) {
      rc = tvm_ffi_dict_set(funcs, k, v);
      continue;
    }
    const char* name = tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    tvm_relax_function_obj* f = lift_in(&c, name, (const void*)v->v_obj);
    if (!f) {
      tvm_ffi_raise_context("LambdaLift: function %s", name);
      rc = -1;
      break;
    }
    changed |= (void*)f != v->v_obj;
    rc = map_put(funcs, k->v_obj, f);
    tvm_ffi_release(f);
  }
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(c.lifted, pos, &k, &v)) >= 0;)
    rc = tvm_ffi_dict_set(funcs, k, v);
  tvm_tir_ir_module_obj* out = rc == 0 ? tvm_relax__module_with(mod, funcs, changed) : NULL;
  tvm_ffi_release(funcs);
  tvm_ffi_release(c.names);
  tvm_ffi_release(c.lifted);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_lambda_lift(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_lambda_lift, mod);
}

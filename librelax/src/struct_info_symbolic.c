/*
 * struct_info_symbolic.c: the symbolic side of struct info: the TIR variables it uses, erasing
 * what is out of scope, substituting variables, and binding a callee's symbolic parameters at a
 * call site.
 */
#include <string.h>

#include <tvm/tir/visit.h>

#include "internal.h"

/* ---- TIR variables of expressions ------------------------------------------------------------ */
typedef struct {
  void* out;     /* ffi.List */
  void* seen;    /* ffi.Dict Var -> None: what out holds; NULL: scan out (see add_var) */
  bool own_seen; /* seen was made here (tvm_relax_sinfo_tir_vars releases it) */
} var_collect;

/* Lists this short are searched in place rather than through a Dict (most struct infos use a
 * handful of variables; a Dict would cost more to build than the scans it saves). */
enum { kScanMax = 16 };

static int add_var(var_collect* c, const void* var) {
  TVMFFIAny key = tvm_ffi_any_obj(var);
  TVMFFIAny none = tvm_ffi_any_none();
  if (!c->seen) {
    int64_t n = tvm_ffi_seq_size(c->out);
    if (n < kScanMax) {
      for (int64_t i = 0; i < n; ++i) {
        if (tvm_ffi_any_equal(tvm_ffi_seq_at(c->out, i), &key)) return 0;
      }
      return tvm_ffi_list_push(c->out, &key);
    }
    c->seen = tvm_ffi_dict_new();
    if (!c->seen) return -1;
    c->own_seen = true;
    for (int64_t i = 0; i < n; ++i) {
      if (tvm_ffi_dict_set(c->seen, tvm_ffi_seq_at(c->out, i), &none) != 0) return -1;
    }
  }
  if (tvm_ffi_map_get(c->seen, &key)) return 0;
  if (tvm_ffi_dict_set(c->seen, &key, &none) != 0) return -1;
  return tvm_ffi_list_push(c->out, &key);
}

static int on_var(tvm_tir_visitor* v, const void* node) {
  return add_var(v->ctx, node) == 0 ? TVM_TIR_VISIT_SKIP : -1;
}

/* Add the TIR variables of PrimExpr e to c. */
static int expr_vars(var_collect* c, const tvm_tir_expr_obj* e) {
  if (!e) return 0;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_IntImm || k == TVM_TIR_KIND_FloatImm) return 0;
  if (k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_SizeVar) return add_var(c, e);
  tvm_tir_visitor v;
  memset(&v, 0, sizeof(v));
  v.pre[TVM_TIR_KIND_Var] = on_var;
  v.pre[TVM_TIR_KIND_SizeVar] = on_var;
  v.ctx = c;
  int rc = tvm_tir_visit(&v, e);
  tvm_tir_visitor_free(&v);
  return rc;
}

static int dims_vars(var_collect* c, void* dims, bool defs_only) {
  if (!dims) return 0;
  for (int64_t i = 0; i < tvm_ffi_seq_size(dims); ++i) {
    tvm_tir_expr_obj* d = tvm_ffi_seq_obj_at(dims, i);
    if (defs_only && !tvm_tir_is_var(d)) continue;
    if (expr_vars(c, d) != 0) return -1;
  }
  return 0;
}

static int sinfo_vars(var_collect* c, const tvm_relax_sinfo_obj* s, bool defs_only) {
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_PrimStructInfo: {
      tvm_tir_expr_obj* v = ((const tvm_relax_prim_sinfo_obj*)s)->value;
      if (defs_only && !(v && tvm_tir_is_var(v))) return 0;
      return expr_vars(c, v);
    }
    case TVM_RELAX_KIND_ShapeStructInfo:
      return dims_vars(c, ((const tvm_relax_shape_sinfo_obj*)s)->values, defs_only);
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_expr_obj* shape = ((const tvm_relax_tensor_sinfo_obj*)s)->shape;
      if (tvm_relax_kind_of(shape) != TVM_RELAX_KIND_ShapeExpr) return 0;
      return dims_vars(c, ((const tvm_relax_shape_expr_obj*)shape)->values, defs_only);
    }
    case TVM_RELAX_KIND_DTensorStructInfo:
      return sinfo_vars(c, ((const tvm_relax_dtensor_sinfo_obj*)s)->tensor_sinfo, defs_only);
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* f = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) {
        if (sinfo_vars(c, tvm_ffi_seq_obj_at(f, i), defs_only) != 0) return -1;
      }
      return 0;
    }
    case TVM_RELAX_KIND_FuncStructInfo:
      /* A function's signature binds its own variables: none are free or defined outside. */
      return 0;
    default:
      return 0;
  }
}

int tvm_relax_sinfo_tir_vars(const tvm_relax_sinfo_obj* sinfo, bool defs_only, void* out) {
  var_collect c = {out, NULL, false};
  int rc = sinfo_vars(&c, sinfo, defs_only);
  if (c.own_seen) tvm_ffi_release(c.seen);
  return rc;
}

int tvm_relax__sinfo_tir_vars_seen(const tvm_relax_sinfo_obj* sinfo, bool defs_only, void* out,
                                   void* seen) {
  var_collect c = {out, seen, false};
  return sinfo_vars(&c, sinfo, defs_only);
}

int tvm_relax__expr_tir_vars(const tvm_tir_expr_obj* e, void* out, void* seen) {
  var_collect c = {out, seen, false};
  return expr_vars(&c, e);
}

/* ---- Rebuilding struct info with new dims ---------------------------------------------------- */
/* A dims transform: *out a new dims array, or NULL for "unknown"; returns 0 or -1 + error. */
typedef int (*dims_fn)(void* ctx, void* dims, void** out);
/* A prim value transform: *out a new PrimExpr or NULL for unknown. */
typedef int (*value_fn)(void* ctx, tvm_tir_expr_obj* value, tvm_tir_expr_obj** out);

static tvm_relax_sinfo_obj* rebuild(const tvm_relax_sinfo_obj* s, dims_fn fd, value_fn fv,
                                    void* ctx, const void* defined_vars);

static tvm_relax_sinfo_obj* rebuild_fields(const tvm_relax_sinfo_obj* s, dims_fn fd, value_fn fv,
                                           void* ctx, const void* defined_vars) {
  void* fields = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
  int64_t n = tvm_ffi_seq_size(fields);
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return NULL;
  bool changed = false;
  int64_t i = 0;
  for (; i < n; ++i) {
    tvm_relax_sinfo_obj* f = tvm_ffi_seq_obj_at(fields, i);
    tvm_relax_sinfo_obj* g = rebuild(f, fd, fv, ctx, defined_vars);
    if (!g) break;
    changed |= g != f;
    items[i] = tvm_ffi_any_obj(g); /* owned */
  }
  tvm_relax_sinfo_obj* out = NULL;
  if (i == n) {
    if (!changed) {
      out = retained_sinfo(s);
      for (int64_t j = 0; j < n; ++j) tvm_ffi_any_release(&items[j]);
    } else {
      void* arr = tvm_ffi_array_new_take(items, n);
      if (!arr) {
        for (int64_t j = 0; j < n; ++j) tvm_ffi_any_release(&items[j]);
      }
      if (arr) out = tvm_relax_tuple_sinfo_new(arr);
      tvm_ffi_release(arr);
    }
  } else {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_any_release(&items[j]);
  }
  tvm_ffi_free(items);
  return out;
}

static tvm_relax_sinfo_obj* rebuild(const tvm_relax_sinfo_obj* s, dims_fn fd, value_fn fv,
                                    void* ctx, const void* defined_vars) {
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_PrimStructInfo: {
      const tvm_relax_prim_sinfo_obj* p = (const void*)s;
      if (!p->value) return retained_sinfo(s);
      tvm_tir_expr_obj* v;
      if (fv(ctx, p->value, &v) != 0) return NULL;
      if (v == p->value) {
        tvm_ffi_release(v);
        return retained_sinfo(s);
      }
      tvm_relax_sinfo_obj* out = tvm_relax_prim_sinfo_new(p->dtype, v);
      tvm_ffi_release(v);
      return out;
    }
    case TVM_RELAX_KIND_ShapeStructInfo: {
      const tvm_relax_shape_sinfo_obj* p = (const void*)s;
      if (!p->values) return retained_sinfo(s);
      void* d;
      if (fd(ctx, p->values, &d) != 0) return NULL;
      if (d == p->values) {
        tvm_ffi_release(d);
        return retained_sinfo(s);
      }
      tvm_relax_sinfo_obj* out = tvm_relax_shape_sinfo_new(d, p->ndim);
      tvm_ffi_release(d);
      return out;
    }
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj* p = (const void*)s;
      if (!p->shape) return retained_sinfo(s);
      void* dims = tvm_relax_tensor_sinfo_dims(s);
      bool var_shape = tvm_relax_kind_of(p->shape) != TVM_RELAX_KIND_ShapeExpr;
      if (var_shape && defined_vars) {
        TVMFFIAny key = tvm_ffi_any_obj(p->shape);
        if (tvm_ffi_map_get(defined_vars, &key)) return retained_sinfo(s);
      } else if (var_shape) {
        return retained_sinfo(s);
      }
      void* d = NULL;
      if (dims && fd(ctx, dims, &d) != 0) return NULL;
      if (!var_shape && d == dims) {
        tvm_ffi_release(d);
        return retained_sinfo(s);
      }
      tvm_relax_sinfo_obj* out = tvm_relax__tensor_result(d, p->dtype, p->ndim, p->vdevice);
      tvm_ffi_release(d);
      return out;
    }
    case TVM_RELAX_KIND_DTensorStructInfo: {
      const tvm_relax_dtensor_sinfo_obj* p = (const void*)s;
      tvm_relax_sinfo_obj* t = rebuild(p->tensor_sinfo, fd, fv, ctx, defined_vars);
      if (!t) return NULL;
      if (t == p->tensor_sinfo) {
        tvm_ffi_release(t);
        return retained_sinfo(s);
      }
      tvm_relax_sinfo_obj* out = tvm_relax_dtensor_sinfo_new(t, p->device_mesh, p->placement);
      tvm_ffi_release(t);
      return out;
    }
    case TVM_RELAX_KIND_TupleStructInfo:
      return rebuild_fields(s, fd, fv, ctx, defined_vars);
    default:
      return retained_sinfo(s);
  }
}

/* ---- Erasure --------------------------------------------------------------------------------- */
typedef struct {
  const void* defined; /* Dict of TIR variables, or NULL (none) */
  bool ok;             /* no variable outside `defined` seen yet */
} defined_walk;

static bool is_defined(const void* defined, const void* var) {
  TVMFFIAny key = tvm_ffi_any_obj(var);
  return defined && tvm_ffi_map_get(defined, &key);
}

static int on_defined_var(tvm_tir_visitor* v, const void* node) {
  defined_walk* w = v->ctx;
  w->ok = w->ok && is_defined(w->defined, node);
  return TVM_TIR_VISIT_SKIP;
}

/* Whether every TIR variable of e is in `defined`. */
static bool defined_expr(const void* defined, const tvm_tir_expr_obj* e) {
  if (!e) return true;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_IntImm || k == TVM_TIR_KIND_FloatImm) return true;
  if (k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_SizeVar) return is_defined(defined, e);
  defined_walk w = {defined, true};
  tvm_tir_visitor v;
  memset(&v, 0, sizeof(v));
  v.pre[TVM_TIR_KIND_Var] = on_defined_var;
  v.pre[TVM_TIR_KIND_SizeVar] = on_defined_var;
  v.ctx = &w;
  int rc = tvm_tir_visit(&v, e);
  tvm_tir_visitor_free(&v);
  if (rc != 0) tvm_ffi_error_clear();
  return rc == 0 && w.ok;
}

static int erase_dims(void* ctx, void* dims, void** out) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(dims); ++i) {
    if (!defined_expr(ctx, tvm_ffi_seq_obj_at(dims, i))) {
      *out = NULL;
      return 0;
    }
  }
  tvm_ffi_retain(dims);
  *out = dims;
  return 0;
}

static int erase_value(void* ctx, tvm_tir_expr_obj* v, tvm_tir_expr_obj** out) {
  *out = defined_expr(ctx, v) ? v : NULL;
  if (*out) tvm_ffi_retain(v);
  return 0;
}

tvm_relax_sinfo_obj* tvm_relax_sinfo_erase(const tvm_relax_sinfo_obj* sinfo, const void* defined,
                                           const void* defined_vars) {
  return rebuild(sinfo, erase_dims, erase_value, (void*)defined, defined_vars);
}

/* ---- Substitution ---------------------------------------------------------------------------- */
static void* subst_var(tvm_tir_mutator* m, const void* node) {
  TVMFFIAny key = tvm_ffi_any_obj(node);
  const TVMFFIAny* v = tvm_ffi_map_get(m->ctx, &key);
  void* out = v ? v->v_obj : (void*)node;
  tvm_ffi_retain(out);
  return out;
}

tvm_tir_expr_obj* tvm_relax__subst_expr(const void* vmap, tvm_tir_expr_obj* e) {
  tvm_tir_mutator m;
  memset(&m, 0, sizeof(m));
  m.pre[TVM_TIR_KIND_Var] = subst_var;
  m.pre[TVM_TIR_KIND_SizeVar] = subst_var;
  m.ctx = (void*)vmap;
  tvm_tir_expr_obj* r = tvm_tir_mutate(&m, e);
  if (!r || r == e) return r;
  tvm_tir_expr_obj* s = tvm_tir_simplify_expr(r, NULL);
  tvm_ffi_release(r);
  return s;
}

static int subst_value(void* ctx, tvm_tir_expr_obj* v, tvm_tir_expr_obj** out) {
  *out = tvm_relax__subst_expr(ctx, v);
  return *out ? 0 : -1;
}

static int subst_dims(void* ctx, void* dims, void** out) {
  int64_t n = tvm_ffi_seq_size(dims);
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return -1;
  bool changed = false;
  int64_t i = 0;
  for (; i < n; ++i) {
    tvm_tir_expr_obj* d = tvm_ffi_seq_obj_at(dims, i);
    tvm_tir_expr_obj* r = tvm_relax__subst_expr(ctx, d);
    if (!r) break;
    changed |= r != d;
    items[i] = tvm_ffi_any_obj(r); /* owned */
  }
  int rc = -1;
  if (i == n) {
    if (changed) {
      *out = tvm_ffi_array_new_take(items, n);
      rc = *out ? 0 : -1;
      for (int64_t j = 0; rc != 0 && j < n; ++j) tvm_ffi_any_release(&items[j]);
    } else {
      for (int64_t j = 0; j < n; ++j) tvm_ffi_any_release(&items[j]);
      tvm_ffi_retain(dims);
      *out = dims;
      rc = 0;
    }
  } else {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_any_release(&items[j]);
  }
  tvm_ffi_free(items);
  return rc;
}

tvm_relax_sinfo_obj* tvm_relax_sinfo_substitute(const tvm_relax_sinfo_obj* sinfo, const void* vmap) {
  if (!vmap || tvm_ffi_map_size(vmap) == 0) return retained_sinfo(sinfo);
  return rebuild(sinfo, subst_dims, subst_value, (void*)vmap, NULL);
}

/* ---- Unification at a call site -------------------------------------------------------------- */
static int bind_dim(void* dict, tvm_tir_expr_obj* p, tvm_tir_expr_obj* a) {
  if (!p || !a || !tvm_tir_is_var(p)) return 0;
  TVMFFIAny key = tvm_ffi_any_obj(p);
  if (tvm_ffi_map_get(dict, &key)) return 0;
  TVMFFIAny val = tvm_ffi_any_obj(a);
  return tvm_ffi_dict_set(dict, &key, &val);
}

static int bind_dims(void* dict, void* p, void* a) {
  if (!p || !a || tvm_ffi_seq_size(p) != tvm_ffi_seq_size(a)) return 0;
  for (int64_t i = 0; i < tvm_ffi_seq_size(p); ++i) {
    if (bind_dim(dict, tvm_ffi_seq_obj_at(p, i), tvm_ffi_seq_obj_at(a, i)) != 0) return -1;
  }
  return 0;
}

int tvm_relax_sinfo_unify(const tvm_relax_sinfo_obj* param, const tvm_relax_sinfo_obj* arg,
                          void* dict) {
  tvm_relax_kind k = tvm_relax_kind_of(param);
  if (k != tvm_relax_kind_of(arg)) return 0;
  switch (k) {
    case TVM_RELAX_KIND_PrimStructInfo:
      return bind_dim(dict, ((const tvm_relax_prim_sinfo_obj*)param)->value,
                      ((const tvm_relax_prim_sinfo_obj*)arg)->value);
    case TVM_RELAX_KIND_ShapeStructInfo:
      return bind_dims(dict, ((const tvm_relax_shape_sinfo_obj*)param)->values,
                       ((const tvm_relax_shape_sinfo_obj*)arg)->values);
    case TVM_RELAX_KIND_TensorStructInfo:
      return bind_dims(dict, tvm_relax_tensor_sinfo_dims(param), tvm_relax_tensor_sinfo_dims(arg));
    case TVM_RELAX_KIND_DTensorStructInfo:
      return tvm_relax_sinfo_unify(((const tvm_relax_dtensor_sinfo_obj*)param)->tensor_sinfo,
                                   ((const tvm_relax_dtensor_sinfo_obj*)arg)->tensor_sinfo, dict);
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* p = ((const tvm_relax_tuple_sinfo_obj*)param)->fields;
      void* a = ((const tvm_relax_tuple_sinfo_obj*)arg)->fields;
      if (tvm_ffi_seq_size(p) != tvm_ffi_seq_size(a)) return 0;
      for (int64_t i = 0; i < tvm_ffi_seq_size(p); ++i) {
        if (tvm_relax_sinfo_unify(tvm_ffi_seq_obj_at(p, i), tvm_ffi_seq_obj_at(a, i), dict) != 0) {
          return -1;
        }
      }
      return 0;
    }
    default:
      return 0;
  }
}

/* The result of calling a function of struct info f with args (see internal.h). */
tvm_relax_sinfo_obj* tvm_relax__call_func_sinfo(const tvm_relax_func_sinfo_obj* f, void* args,
                                                const void* callee) {
  if (!f->params) return retained_sinfo(f->ret);
  int64_t n = tvm_ffi_seq_size(f->params), m = tvm_ffi_seq_size(args);
  if (n != m) {
    tvm_ffi_strbuf b = {0};
    tvm_relax__text(&b, callee);
    tvm_ffi_raise("TypeError", "call to %s: expected %lld arguments, got %lld",
                  tvm_ffi_strbuf_cstr(&b), (long long)n, (long long)m);
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  void* dict = tvm_ffi_dict_new();
  if (!dict) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    tvm_relax_sinfo_obj* p = tvm_ffi_seq_obj_at(f->params, i);
    tvm_relax_sinfo_obj* a = tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(args, i));
    if (tvm_relax_sinfo_unify(p, a, dict) != 0) {
      tvm_ffi_release(dict);
      return NULL;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    tvm_relax_sinfo_obj* p = tvm_ffi_seq_obj_at(f->params, i);
    tvm_relax_sinfo_obj* a = tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(args, i));
    tvm_relax_sinfo_obj* bound = tvm_relax_sinfo_substitute(p, dict);
    if (!bound) {
      tvm_ffi_release(dict);
      return NULL;
    }
    tvm_relax_base_check c = tvm_relax_sinfo_base_check(bound, a);
    if (c == TVM_RELAX_BASE_CHECK_FAIL) {
      tvm_ffi_strbuf b = {0};
      tvm_ffi_strbuf_puts(&b, "call to ");
      tvm_relax__text(&b, callee);
      tvm_ffi_strbuf_printf(&b, ": argument %lld of struct info ", (long long)i);
      tvm_relax_sinfo_text(&b, a);
      tvm_ffi_strbuf_puts(&b, " does not match the parameter's ");
      tvm_relax_sinfo_text(&b, bound);
      tvm_ffi_raise("TypeError", "%s", tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&b);
      tvm_ffi_release(bound);
      tvm_ffi_release(dict);
      return NULL;
    }
    tvm_ffi_release(bound);
  }
  tvm_relax_sinfo_obj* ret = tvm_relax_sinfo_substitute(f->ret, dict);
  if (!ret) {
    tvm_ffi_release(dict);
    return NULL;
  }
  /* Variables of the callee's parameters that the call did not bind are not defined here; the
   * others are kept: the call's own (what the bound ones became, which may be the very same
   * variables when the callee is a local function over the caller's dims) and any the callee
   * closes over. */
  void* param_vars = tvm_ffi_list_new();
  void* ret_vars = tvm_ffi_list_new();
  void* defined = tvm_ffi_dict_new();
  bool ok = param_vars && ret_vars && defined && tvm_relax_sinfo_tir_vars(ret, false, ret_vars) == 0;
  for (int64_t j = 0; ok && j < n; ++j) {
    ok = tvm_relax_sinfo_tir_vars(tvm_ffi_seq_obj_at(f->params, j), false, param_vars) == 0;
  }
  void* pset = ok ? tvm_ffi_dict_new() : NULL;
  ok = ok && pset;
  TVMFFIAny none = tvm_ffi_any_none();
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(param_vars); ++i) {
    if (!tvm_ffi_map_get(dict, tvm_ffi_seq_at(param_vars, i)))
      ok = tvm_ffi_dict_set(pset, tvm_ffi_seq_at(param_vars, i), &none) == 0;
  }
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(ret_vars); ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(ret_vars, i);
    if (!tvm_ffi_map_get(pset, v)) ok = tvm_ffi_dict_set(defined, v, &none) == 0;
  }
  tvm_relax_sinfo_obj* out = ok ? tvm_relax_sinfo_erase(ret, defined, NULL) : NULL;
  tvm_ffi_release(dict);
  tvm_ffi_release(pset);
  tvm_ffi_release(param_vars);
  tvm_ffi_release(ret_vars);
  tvm_ffi_release(defined);
  tvm_ffi_release(ret);
  return out;
}

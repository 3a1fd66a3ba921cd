/* transform_common.c: what the lowering passes share (module dispatch, substitution) and the
 * pipeline driver tvm_tir_lower (tvm/tir/transform.h). */
#include <stdarg.h>
#include <string.h>

#include "transform_internal.h"

/* ---- Module / function dispatch ------------------------------------------------------------ */
/* The function a pass is working on (for the access paths of its errors). */
static _Thread_local const tvm_tir_prim_func_obj* t_current_func;

static void* run_on(tir_func_pass fn, const tvm_tir_prim_func_obj* f) {
  const tvm_tir_prim_func_obj* outer = t_current_func;
  t_current_func = f;
  void* r = fn(f);
  t_current_func = outer;
  return r;
}

static void* apply(const void* mod_or_func, const char* pass, tir_func_pass fn) {
  tvm_tir__ensure_init();
  if (TIR_IS(mod_or_func, PrimFunc)) return run_on(fn, mod_or_func);
  if (!TIR_IS(mod_or_func, IRModule)) {
    tvm_ffi_raise("TypeError", "%s: expected a tir.PrimFunc or an ir.IRModule, got %s", pass,
                  mod_or_func ? tvm_ffi_type_key(tvm_ffi_type_index(mod_or_func)) : "NULL");
    return NULL;
  }
  const tvm_tir_ir_module_obj* mod = mod_or_func;
  int64_t n = tvm_ffi_map_size(mod->functions);
  TVMFFIAny* keys = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  TVMFFIAny* vals = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  bool ok = keys && vals, changed = false;
  int64_t i = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; ok && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0; ++i) {
    keys[i] = tvm_ffi_any_copy(k);
    if (!TIR_IS(v->v_obj, PrimFunc)) {
      vals[i] = tvm_ffi_any_copy(v);
      continue;
    }
    void* r = run_on(fn, (const tvm_tir_prim_func_obj*)v->v_obj);
    if (!r) {
      tvm_ffi_raise_context("in function `%s`",
                            tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint));
      ok = false;
    }
    changed |= r != v->v_obj;
    vals[i] = tvm_ffi_any_obj(r); /* takes r's reference */
  }
  void* result = NULL;
  if (ok && !changed) {
    tvm_ffi_retain((void*)mod);
    result = (void*)mod;
  } else if (ok) {
    void* fns = tvm_ffi_map_new(keys, vals, i);
    if (fns) result = tvm_tir_ir_module_new(fns, mod->attrs);
    tvm_ffi_release(fns);
  }
  for (int64_t j = 0; j < i; ++j) {
    tvm_ffi_any_release(&keys[j]);
    tvm_ffi_any_release(&vals[j]);
  }
  tvm_ffi_free(keys);
  tvm_ffi_free(vals);
  return result;
}

void* tvm_tir__xform_apply(const void* mod_or_func, const char* pass, tir_func_pass fn) {
  void* stale = tvm_ffi_error_take();
  void* r = apply(mod_or_func, pass, fn);
  tvm_ffi_error_give_back(stale);
  return r;
}

void* tvm_tir__xform_with_body(const tvm_tir_prim_func_obj* f, tvm_tir_stmt_obj* body) {
  if (body == f->body) {
    tvm_ffi_retain((void*)f);
    return (void*)f;
  }
  return tvm_tir_prim_func_new(f->params, body, f->ret_type, f->buffer_map, f->func.attrs);
}

typedef struct {
  const void* target;
  tvm_ffi_strbuf* out;
  bool found;
} path_finder;

static int find_node(tvm_tir_visitor* v, const void* node) {
  path_finder* pf = v->ctx;
  if (pf->found) return TVM_TIR_VISIT_SKIP;
  if (node != pf->target) return TVM_TIR_VISIT_CONTINUE;
  pf->found = true;
  tvm_ffi_strbuf_puts(pf->out, " at ");
  tvm_tir_visitor_path_format(v, pf->out);
  return TVM_TIR_VISIT_SKIP;
}

/* Append " at <access path>" of node in the current function, when node is part of it (a node
 * the pass built itself has no path). */
static void append_path(tvm_ffi_strbuf* out, const void* node) {
  if (!t_current_func || !node) return;
  path_finder pf = {node, out, false};
  tvm_tir_visitor v = {0};
  v.pre_default = find_node;
  v.ctx = &pf;
  tvm_tir_visit(&v, t_current_func);
  tvm_tir_visitor_free(&v);
}

void* tvm_tir__xform_error(const char* kind, const char* pass, const void* node, const char* fmt,
                           ...) {
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_printf(&b, "%s: ", pass);
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  if (node) {
    tvm_ffi_strbuf_puts(&b, " (");
    tvm_tir__text(&b, node);
    tvm_ffi_strbuf_putc(&b, ')');
    append_path(&b, node);
  }
  tvm_ffi_raise(kind, "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return NULL;
}

tvm_tir_expr_obj* tvm_tir__cast_bits(tvm_tir_expr_obj* expr, int bits) {
  DLDataType t = expr->dtype;
  if (t.bits == bits) return tir_expr_retain(expr);
  t.bits = (uint8_t)bits;
  return tvm_tir_cast(t, expr);
}

tvm_tir_expr_obj* tvm_tir__wide_binary(tvm_tir_kind kind, tvm_tir_expr_obj* a,
                                       tvm_tir_expr_obj* b) {
  int bits = a->dtype.bits > b->dtype.bits ? a->dtype.bits : b->dtype.bits;
  bool ints = tvm_tir_dtype_is_integer(a->dtype) && tvm_tir_dtype_is_integer(b->dtype);
  tvm_tir_expr_obj* ca = ints ? tvm_tir__cast_bits(a, bits) : tir_expr_retain(a);
  tvm_tir_expr_obj* cb = ints ? tvm_tir__cast_bits(b, bits) : tir_expr_retain(b);
  tvm_tir_expr_obj* r = ca && cb ? tvm_tir_binary(kind, ca, cb) : NULL;
  tvm_ffi_release(ca);
  tvm_ffi_release(cb);
  return r;
}

tvm_tir_expr_obj* tvm_tir__wide_take(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  tvm_tir_expr_obj* r = a && b ? tvm_tir__wide_binary(kind, a, b) : NULL;
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  return r;
}

/* The strides of a buffer's layout: its own, or the compact row-major ones of its shape. */
void* tvm_tir__layout_strides(const tvm_tir_buffer_obj* buf) {
  int64_t n = tvm_tir_buffer_ndim(buf);
  if (tvm_tir_array_size(buf->strides) == n) return tvm_tir_ref(buf->strides);
  void* items[64] = {0};
  if (n > 64)
    return tvm_tir__xform_error("NotImplementedError", "layout", buf, "more than 64 dimensions");
  tvm_tir_expr_obj* s =
      n ? tvm_tir_const_int(tvm_tir_expr_dtype(tvm_tir_array_at(buf->shape, n - 1)), 1) : NULL;
  for (int64_t k = n - 1; k >= 0; --k) {
    items[k] = s;
    if (!s) {
      for (int64_t j = k + 1; j < n; ++j) tvm_ffi_release(items[j]);
      return NULL;
    }
    if (k > 0) s = tvm_tir__wide_binary(TVM_TIR_KIND_Mul, s, tvm_tir_array_at(buf->shape, k));
  }
  void* arr = tir_array(items, n);
  for (int64_t k = 0; k < n; ++k) tvm_ffi_release(items[k]);
  return arr;
}

/* ---- Substitution -------------------------------------------------------------------------- */
static const TVMFFIAny* dict_get(void* dict, const void* key) {
  TVMFFIAny k = tvm_ffi_any_obj(key);
  return tvm_ffi_map_get(dict, &k);
}

static int dict_put(void* dict, const void* key, const void* value) {
  TVMFFIAny k = tvm_ffi_any_obj(key), v = tvm_ffi_any_obj(value);
  return tvm_ffi_dict_set(dict, &k, &v);
}

static void* subst_var(tvm_tir_mutator* m, const void* node) {
  const TVMFFIAny* r = dict_get(((tvm_tir_subst*)m)->vars, node);
  void* out = r ? r->v_obj : (void*)node;
  tvm_ffi_retain(out);
  return out;
}

static void* subst_buffer(tvm_tir_mutator* m, const void* node) {
  tvm_tir_subst* s = (tvm_tir_subst*)m;
  const TVMFFIAny* r = dict_get(s->buffers, node);
  if (r) {
    tvm_ffi_retain(r->v_obj);
    return r->v_obj;
  }
  void* out = tvm_tir_mutate_children(m, node);
  if (out && dict_put(s->buffers, node, out) != 0) {
    tvm_ffi_release(out);
    return NULL;
  }
  return out;
}

/* A fresh Var like v (same name, dtype, annotation, Var/SizeVar kind). */
static tvm_tir_var_obj* fresh_var(const tvm_tir_var_obj* v) {
  if (TIR_IS(v, SizeVar)) return tvm_tir_size_var_new(tvm_tir_var_name(v), v->expr.dtype);
  return tvm_tir_var_new_typed(tvm_tir_var_name(v), v->type_annotation);
}

static void* rename_binding(tvm_tir_mutator* m, const void* node, const tvm_tir_var_obj* var) {
  tvm_tir_var_obj* fresh = fresh_var(var);
  int rc = fresh ? dict_put(((tvm_tir_subst*)m)->vars, var, fresh) : -1;
  tvm_ffi_release(fresh);
  return rc == 0 ? tvm_tir_mutate_children(m, node) : NULL;
}
static void* rename_let_stmt(tvm_tir_mutator* m, const void* node) {
  return rename_binding(m, node, ((const tvm_tir_let_stmt_obj*)node)->var);
}
static void* rename_let(tvm_tir_mutator* m, const void* node) {
  return rename_binding(m, node, ((const tvm_tir_let_obj*)node)->var);
}
static void* rename_for(tvm_tir_mutator* m, const void* node) {
  return rename_binding(m, node, ((const tvm_tir_for_obj*)node)->loop_var);
}
static void* rename_allocate(tvm_tir_mutator* m, const void* node) {
  return rename_binding(m, node, ((const tvm_tir_allocate_obj*)node)->buffer_var);
}

int tvm_tir_subst_init(tvm_tir_subst* s, bool rename) {
  memset(s, 0, sizeof(*s));
  s->vars = tvm_ffi_dict_new();
  s->buffers = tvm_ffi_dict_new();
  s->rename = rename;
  s->m.pre[TVM_TIR_KIND_Var] = subst_var;
  s->m.pre[TVM_TIR_KIND_SizeVar] = subst_var;
  s->m.pre[TVM_TIR_KIND_Buffer] = subst_buffer;
  if (rename) {
    s->m.pre[TVM_TIR_KIND_LetStmt] = rename_let_stmt;
    s->m.pre[TVM_TIR_KIND_Let] = rename_let;
    s->m.pre[TVM_TIR_KIND_For] = rename_for;
    s->m.pre[TVM_TIR_KIND_Allocate] = rename_allocate;
  }
  if (s->vars && s->buffers) return 0;
  tvm_tir_subst_free(s);
  return -1;
}

void tvm_tir_subst_free(tvm_tir_subst* s) {
  tvm_ffi_release(s->vars);
  tvm_ffi_release(s->buffers);
  s->vars = s->buffers = NULL;
}

int tvm_tir_subst_set_var(tvm_tir_subst* s, const void* var, const void* value) {
  return dict_put(s->vars, var, value);
}

int tvm_tir_subst_set_buffer(tvm_tir_subst* s, const void* old_buffer, const void* new_buffer) {
  return dict_put(s->buffers, old_buffer, new_buffer);
}

void* tvm_tir_subst_apply(tvm_tir_subst* s, const void* node) { return tvm_tir_mutate(&s->m, node); }

/* ---- The pipeline -------------------------------------------------------------------------- */
static const tvm_tir_pass k_passes[] = {TVM_TIR_LOWER_PASSES};

tvm_tir_lower_options tvm_tir_lower_options_default(void) {
  tvm_tir_lower_options o = {0};
#ifdef NDEBUG
  o.check = false;
#else
  o.check = true;
#endif
  return o;
}

static void* lower(const void* mod_or_func, const tvm_tir_lower_options* options) {
  tvm_tir_lower_options o = options ? *options : tvm_tir_lower_options_default();
  if (o.check && tvm_tir_verify_well_formed(mod_or_func) != 0) {
    tvm_ffi_raise_context("lower: input");
    return NULL;
  }
  void* cur = (void*)mod_or_func;
  tvm_ffi_retain(cur);
  static const tvm_tir_pass bounds = {"bounds_check", tvm_tir_transform_bounds_check};
  size_t np = sizeof(k_passes) / sizeof(k_passes[0]);
  for (size_t i = 0, step = 0; i < np; ++step) {
    /* bounds_check, when asked for, between convert_blocks and flatten_buffers. */
    bool extra = o.bounds_check && i == 2 && step == 2;
    const tvm_tir_pass* p = extra ? &bounds : &k_passes[i];
    if (!extra) ++i;
    void* next = p->fn(cur);
    tvm_ffi_release(cur);
    if (!next) {
      tvm_ffi_raise_context("lower: pass %s", p->name);
      return NULL;
    }
    if (o.check && tvm_tir_verify_well_formed(next) != 0) {
      tvm_ffi_raise_context("lower: after pass %s", p->name);
      tvm_ffi_release(next);
      return NULL;
    }
    cur = next;
  }
  return cur;
}

void* tvm_tir_lower(const void* mod_or_func, const tvm_tir_lower_options* options) {
  void* stale = tvm_ffi_error_take();
  void* r = lower(mod_or_func, options);
  tvm_ffi_error_give_back(stale);
  return r;
}

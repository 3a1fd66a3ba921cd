/*
 * relax_vm_codegen.c: VMCodeGen (Relax functions -> Relax VM bytecode through libvm's builder)
 * and the Relax build driver (tvm/codegen/relax_build.h).
 *
 * A function is compiled in two steps: its instructions are recorded (with jumps as record
 * indices), then replayed into the builder, which needs the register count up front. The shape
 * heap (an int64 tensor of the function's symbolic dims) is allocated first thing when the
 * function has symbolic dims; its size is patched in at replay.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/relax/transform.h>
#include <tvm/tir/transform.h>
#include <tvm/vm/builder.h>

#include "internal.h"
#include "relax_vm_shape.h"
#include "relax_vm_tir.h"

typedef tvm_codegen__vm_rec rec;

typedef struct {
  tvm_vm_builder* b;
  const tvm_tir_ir_module_obj* mod;
  const char* fname;
  rec* recs;
  int64_t n_recs, cap_recs;
  int64_t* words;
  int64_t n_words, cap_words;
  int64_t next_reg;
  void* regs;     /* ffi.Dict Var -> int */
  tvm_codegen__shape_heap heap; /* slots of the symbolic variables and composite dims */
  int64_t heap_reg;
  int64_t heap_rec; /* the alloc_shape_heap record (its size word is patched) */
  /* Composite dims of the struct info being matched, checked once every variable of the match
   * is stored (flush_deferred). */
  struct deferred_check {
    int64_t reg;   /* the value checked */
    int64_t ndim;  /* its dims (match_shape), or -1 for a prim value (match_prim_value) */
    int64_t dim;
    const tvm_tir_expr_obj* expr; /* borrowed from the function's struct info */
    char* err;     /* the error context (owned) */
  } * deferred;
  int64_t n_deferred, cap_deferred;
} fn_ctx;

static int fail(fn_ctx* c, const char* fmt, const char* detail) {
  return tvm_ffi_raise("ValueError", "VMCodeGen: %s: %s%s", c->fname, fmt, detail ? detail : "");
}

/* ---- Recording ------------------------------------------------------------------------------- */
static int64_t new_reg(fn_ctx* c) { return c->next_reg++; }

static int64_t push_rec(fn_ctx* c, rec r) {
  if (c->n_recs == c->cap_recs) {
    int64_t cap = c->cap_recs ? c->cap_recs * 2 : 64;
    rec* nr = tvm_ffi_realloc(c->recs, (size_t)cap * sizeof(rec));
    if (!nr) return -1;
    c->recs = nr;
    c->cap_recs = cap;
  }
  c->recs[c->n_recs] = r;
  return c->n_recs++;
}

static int64_t emit_call_idx(fn_ctx* c, int64_t func, const int64_t* args, int32_t n, int64_t dst) {
  if (c->n_words + n > c->cap_words) {
    int64_t cap = c->cap_words ? c->cap_words * 2 : 256;
    while (cap < c->n_words + n) cap *= 2;
    int64_t* nw = tvm_ffi_realloc(c->words, (size_t)cap * sizeof(int64_t));
    if (!nw) return -1;
    c->words = nw;
    c->cap_words = cap;
  }
  memcpy(c->words + c->n_words, args, (size_t)n * sizeof(int64_t));
  rec r = {TVM_VM_OP_Call, dst, func, n, c->n_words, -1};
  c->n_words += n;
  return push_rec(c, r);
}

static int64_t emit_call(fn_ctx* c, const char* name, const int64_t* args, int32_t n, int64_t dst) {
  int64_t f = tvm_vm_builder_declare_packed(c->b, name);
  return f < 0 ? -1 : emit_call_idx(c, f, args, n, dst);
}

static int64_t arg_const_str(fn_ctx* c, const char* s) {
  int64_t k = tvm_vm_builder_const_str(c->b, s);
  return k < 0 ? INT64_MIN : tvm_vm_arg_const(k);
}

/* ---- Symbolic dims --------------------------------------------------------------------------- */
/* Whether d is a composite dim (neither a constant nor a bare variable). */
static bool composite(const tvm_tir_expr_obj* d) {
  int64_t k;
  return !tvm_tir_as_const_int(d, &k) && !tvm_tir_is_var(d);
}

/* Defer the check of composite dim `dim` (expr) of the value in register reg. */
static int defer_check(fn_ctx* c, int64_t reg, int64_t ndim, int64_t dim, const tvm_tir_expr_obj* expr,
                       const char* ctx_text) {
  if (c->n_deferred == c->cap_deferred) {
    int64_t cap = c->cap_deferred ? c->cap_deferred * 2 : 8;
    struct deferred_check* d = tvm_ffi_realloc(c->deferred, (size_t)cap * sizeof(*d));
    if (!d) return -1;
    c->deferred = d;
    c->cap_deferred = cap;
  }
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_puts(&b, ctx_text);
  if (ndim >= 0) tvm_ffi_strbuf_printf(&b, " (dimension %lld is ", (long long)dim);
  else tvm_ffi_strbuf_puts(&b, " (the value is ");
  tvm_tir_node_text(&b, expr);
  tvm_ffi_strbuf_puts(&b, ")");
  size_t len = strlen(tvm_ffi_strbuf_cstr(&b));
  char* err = tvm_ffi_malloc(len + 1);
  if (err) memcpy(err, tvm_ffi_strbuf_cstr(&b), len + 1);
  tvm_ffi_strbuf_free(&b);
  if (!err) return -1;
  c->deferred[c->n_deferred++] = (struct deferred_check){reg, ndim, dim, expr, err};
  return 0;
}

/* The (code, value) words of a dim for match_shape: a constant is checked, a variable seen for
 * the first time stored, a known one checked; a composite dim is deferred (checked by
 * flush_deferred once the match has stored every variable). */
static int match_words(fn_ctx* c, const tvm_tir_expr_obj* d, int64_t* code, int64_t* value,
                       int64_t reg, int64_t ndim, int64_t dim, const char* ctx_text) {
  int64_t k;
  if (tvm_tir_as_const_int(d, &k)) {
    *code = TVM_VM_MATCH_ASSERT_EQUAL_TO_IMM, *value = k;
    return 0;
  }
  if (tvm_tir_is_var(d)) {
    int64_t s = tvm_codegen__shape_var_slot(&c->heap, d, false);
    if (s >= 0) {
      *code = TVM_VM_MATCH_ASSERT_EQUAL_TO_LOAD, *value = s;
    } else {
      s = tvm_codegen__shape_var_slot(&c->heap, d, true);
      if (s < 0) return -1;
      *code = TVM_VM_MATCH_STORE_TO_HEAP, *value = s;
    }
    return 0;
  }
  *code = TVM_VM_MATCH_NO_OP, *value = 0;
  return defer_check(c, reg, ndim, dim, d, ctx_text);
}

/* Make sure the composite dims among dims[0..n) are computed into the heap here: one shape
 * function call for those that are not yet. */
static int compute_dims(fn_ctx* c, const tvm_tir_expr_obj* const* dims, int64_t n) {
  int64_t small[16];
  int64_t* need = n <= 16 ? small : tvm_ffi_malloc((size_t)n * sizeof(int64_t));
  if (!need) return -1;
  int64_t m = 0;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    if (!composite(dims[i])) continue;
    int64_t s = tvm_codegen__shape_expr_slot(&c->heap, dims[i]);
    if (s < 0) {
      rc = -1;
    } else if (!tvm_codegen__shape_is_computed(&c->heap, s)) {
      bool dup = false;
      for (int64_t j = 0; j < m && !dup; ++j) dup = need[j] == s;
      if (!dup) need[m++] = s;
    }
  }
  if (rc == 0 && m > 0) {
    const char* name = tvm_codegen__shape_func(&c->heap, need, m);
    int64_t a = tvm_vm_arg_reg(c->heap_reg);
    rc = name && emit_call(c, name, &a, 1, TVM_VM_REG_VOID) >= 0 ? 0 : -1;
  }
  if (need != small) tvm_ffi_free(need);
  return rc;
}

/* Check the deferred composite dims: computed by one shape function, then each compared with
 * the value's dim (match_shape / match_prim_value against its slot). */
static int flush_deferred(fn_ctx* c) {
  int64_t n = c->n_deferred;
  int rc = 0;
  const tvm_tir_expr_obj** exprs = n ? tvm_ffi_malloc((size_t)n * sizeof(void*)) : NULL;
  if (n && !exprs) rc = -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) exprs[i] = c->deferred[i].expr;
  if (rc == 0 && n > 0) rc = compute_dims(c, exprs, n);
  tvm_ffi_free(exprs);
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    const struct deferred_check* d = &c->deferred[i];
    int64_t s = tvm_codegen__shape_expr_slot(&c->heap, d->expr);
    int64_t err = s >= 0 ? arg_const_str(c, d->err) : INT64_MIN;
    if (err == INT64_MIN) {
      rc = -1;
      break;
    }
    if (d->ndim < 0) {
      int64_t m[5] = {tvm_vm_arg_reg(d->reg), tvm_vm_arg_reg(c->heap_reg),
                      tvm_vm_arg_imm(TVM_VM_MATCH_ASSERT_EQUAL_TO_LOAD), tvm_vm_arg_imm(s), err};
      rc = emit_call(c, "vm.builtin.match_prim_value", m, 5, TVM_VM_REG_VOID) < 0 ? -1 : 0;
      continue;
    }
    int64_t args[3 + 128 + 1];
    args[0] = tvm_vm_arg_reg(d->reg), args[1] = tvm_vm_arg_reg(c->heap_reg);
    args[2] = tvm_vm_arg_imm(d->ndim);
    for (int64_t j = 0; j < d->ndim; ++j) {
      bool here = j == d->dim;
      args[3 + 2 * j] = tvm_vm_arg_imm(here ? TVM_VM_MATCH_ASSERT_EQUAL_TO_LOAD : TVM_VM_MATCH_NO_OP);
      args[4 + 2 * j] = tvm_vm_arg_imm(here ? s : 0);
    }
    args[3 + 2 * d->ndim] = err;
    int32_t nargs = (int32_t)(4 + 2 * d->ndim);
    rc = emit_call(c, "vm.builtin.match_shape", args, nargs, TVM_VM_REG_VOID) < 0 ? -1 : 0;
  }
  for (int64_t i = 0; i < n; ++i) tvm_ffi_free(c->deferred[i].err);
  c->n_deferred = 0;
  return rc;
}

/* The (code, value) words of a dim for make_shape / make_prim_value (composite dims computed
 * first, by compute_dims). */
static int make_words(fn_ctx* c, const tvm_tir_expr_obj* d, int64_t* code, int64_t* value) {
  int64_t k;
  if (tvm_tir_as_const_int(d, &k)) {
    *code = TVM_VM_MAKE_USE_IMM, *value = k;
    return 0;
  }
  int64_t s = tvm_tir_is_var(d) ? tvm_codegen__shape_var_slot(&c->heap, d, false)
                                : tvm_codegen__shape_expr_slot(&c->heap, d);
  if (s < 0 || (!tvm_tir_is_var(d) && !tvm_codegen__shape_is_computed(&c->heap, s))) {
    if (s < -1 || tvm_ffi_error_pending()) return -1;
    tvm_ffi_strbuf b = {0};
    tvm_tir_node_text(&b, d);
    int rc = fail(c, "symbolic dim not defined here: ", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return rc;
  }
  *code = TVM_VM_MAKE_LOAD_SHAPE, *value = s;
  return 0;
}

/* A register holding the shape of dims (ffi.Array of PrimExprs). */
static int64_t shape_reg(fn_ctx* c, void* dims) {
  int64_t n = tvm_ffi_seq_size(dims);
  bool all_const = true;
  int64_t vals[64];
  if (n > 64) return fail(c, "more than 64 dims", NULL), -1;
  for (int64_t i = 0; i < n && all_const; ++i) {
    all_const = tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, i), &vals[i]);
  }
  int64_t dst = new_reg(c);
  if (all_const) {
    int64_t k = tvm_vm_builder_const_shape(c->b, vals, n);
    if (k < 0) return -1;
    int64_t arg = tvm_vm_arg_const(k);
    return emit_call(c, "vm.builtin.copy", &arg, 1, dst) < 0 ? -1 : dst;
  }
  const tvm_tir_expr_obj* d[64];
  for (int64_t i = 0; i < n; ++i) d[i] = tvm_ffi_seq_obj_at(dims, i);
  if (compute_dims(c, d, n) != 0) return -1;
  int64_t args[2 + 128];
  args[0] = tvm_vm_arg_reg(c->heap_reg);
  args[1] = tvm_vm_arg_imm(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t code, v;
    if (make_words(c, tvm_ffi_seq_obj_at(dims, i), &code, &v) != 0) return -1;
    args[2 + 2 * i] = tvm_vm_arg_imm(code);
    args[3 + 2 * i] = tvm_vm_arg_imm(v);
  }
  return emit_call(c, "vm.builtin.make_shape", args, (int32_t)(2 + 2 * n), dst) < 0 ? -1 : dst;
}

/* Check register `reg` against struct info s (what: "argument 'x'"), binding symbolic dims. */
static int emit_match(fn_ctx* c, int64_t reg, const tvm_relax_sinfo_obj* s, const char* what) {
  char ctx_text[512];
  tvm_ffi_strbuf ann = {0};
  tvm_relax_sinfo_text(&ann, s);
  snprintf(ctx_text, sizeof(ctx_text), "%s: %s of %s", c->fname, what, tvm_ffi_strbuf_cstr(&ann));
  tvm_ffi_strbuf_free(&ann);
  int64_t err = arg_const_str(c, ctx_text);
  if (err == INT64_MIN) return -1;
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj* t = (const void*)s;
      int64_t dt = tvm_vm_builder_const_dtype(c->b, t->dtype);
      if (dt < 0) return -1;
      int64_t a[4] = {tvm_vm_arg_reg(reg), tvm_vm_arg_imm(t->ndim), tvm_vm_arg_const(dt), err};
      if (emit_call(c, "vm.builtin.check_tensor_info", a, 4, TVM_VM_REG_VOID) < 0) return -1;
      void* dims = tvm_relax_tensor_sinfo_dims(s);
      if (!dims) return 0;
      int64_t n = tvm_ffi_seq_size(dims);
      int64_t args[3 + 128 + 1];
      if (n > 64) return fail(c, "more than 64 dims", NULL);
      args[0] = tvm_vm_arg_reg(reg);
      args[1] = tvm_vm_arg_reg(c->heap_reg);
      args[2] = tvm_vm_arg_imm(n);
      for (int64_t i = 0; i < n; ++i) {
        int64_t code, v;
        if (match_words(c, tvm_ffi_seq_obj_at(dims, i), &code, &v, reg, n, i, ctx_text) != 0) return -1;
        args[3 + 2 * i] = tvm_vm_arg_imm(code);
        args[4 + 2 * i] = tvm_vm_arg_imm(v);
      }
      args[3 + 2 * n] = err;
      return emit_call(c, "vm.builtin.match_shape", args, (int32_t)(4 + 2 * n), TVM_VM_REG_VOID) < 0 ? -1 : 0;
    }
    case TVM_RELAX_KIND_ShapeStructInfo: {
      const tvm_relax_shape_sinfo_obj* t = (const void*)s;
      int64_t a[3] = {tvm_vm_arg_reg(reg), tvm_vm_arg_imm(t->ndim), err};
      if (emit_call(c, "vm.builtin.check_shape_info", a, 3, TVM_VM_REG_VOID) < 0) return -1;
      if (!t->values) return 0;
      int64_t n = tvm_ffi_seq_size(t->values);
      int64_t args[3 + 128 + 1];
      if (n > 64) return fail(c, "more than 64 dims", NULL);
      args[0] = tvm_vm_arg_reg(reg), args[1] = tvm_vm_arg_reg(c->heap_reg), args[2] = tvm_vm_arg_imm(n);
      for (int64_t i = 0; i < n; ++i) {
        int64_t code, v;
        if (match_words(c, tvm_ffi_seq_obj_at(t->values, i), &code, &v, reg, n, i, ctx_text) != 0) return -1;
        args[3 + 2 * i] = tvm_vm_arg_imm(code), args[4 + 2 * i] = tvm_vm_arg_imm(v);
      }
      args[3 + 2 * n] = err;
      return emit_call(c, "vm.builtin.match_shape", args, (int32_t)(4 + 2 * n), TVM_VM_REG_VOID) < 0 ? -1 : 0;
    }
    case TVM_RELAX_KIND_PrimStructInfo: {
      const tvm_relax_prim_sinfo_obj* p = (const void*)s;
      int64_t dt = tvm_vm_builder_const_dtype(c->b, p->dtype);
      if (dt < 0) return -1;
      int64_t a[3] = {tvm_vm_arg_reg(reg), tvm_vm_arg_const(dt), err};
      if (emit_call(c, "vm.builtin.check_prim_value_info", a, 3, TVM_VM_REG_VOID) < 0) return -1;
      if (!p->value || !tvm_tir_dtype_is_integer(p->dtype)) return 0;
      int64_t code, v;
      if (match_words(c, p->value, &code, &v, reg, -1, 0, ctx_text) != 0) return -1;
      int64_t m[5] = {tvm_vm_arg_reg(reg), tvm_vm_arg_reg(c->heap_reg), tvm_vm_arg_imm(code),
                      tvm_vm_arg_imm(v), err};
      return emit_call(c, "vm.builtin.match_prim_value", m, 5, TVM_VM_REG_VOID) < 0 ? -1 : 0;
    }
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* f = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      int64_t a[3] = {tvm_vm_arg_reg(reg), tvm_vm_arg_imm(tvm_ffi_seq_size(f)), err};
      if (emit_call(c, "vm.builtin.check_tuple_info", a, 3, TVM_VM_REG_VOID) < 0) return -1;
      for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) {
        int64_t item = new_reg(c);
        int64_t g[2] = {tvm_vm_arg_reg(reg), tvm_vm_arg_imm(i)};
        char sub[256];
        snprintf(sub, sizeof(sub), "%s[%lld]", what, (long long)i);
        if (emit_call(c, "vm.builtin.tuple_getitem", g, 2, item) < 0 ||
            emit_match(c, item, tvm_ffi_seq_obj_at(f, i), sub) != 0) {
          return -1;
        }
      }
      return 0;
    }
    case TVM_RELAX_KIND_FuncStructInfo: {
      int64_t a[2] = {tvm_vm_arg_reg(reg), err};
      return emit_call(c, "vm.builtin.check_func_info", a, 2, TVM_VM_REG_VOID) < 0 ? -1 : 0;
    }
    default:
      return 0;
  }
}

/* ---- Expressions ----------------------------------------------------------------------------- */
static int64_t emit_expr(fn_ctx* c, const tvm_relax_expr_obj* e);

static int64_t var_reg(fn_ctx* c, const void* var) {
  TVMFFIAny key = tvm_ffi_any_obj(var);
  const TVMFFIAny* v = tvm_ffi_map_get(c->regs, &key);
  int64_t r;
  if (!v || !tvm_ffi_any_as_int(v, &r)) {
    return fail(c, "variable used before its binding: ", tvm_relax_var_name(var)), -1;
  }
  return r;
}

static int bind_reg(fn_ctx* c, const void* var, int64_t reg) {
  TVMFFIAny key = tvm_ffi_any_obj(var), val = tvm_ffi_any_int(reg);
  return tvm_ffi_dict_set(c->regs, &key, &val);
}

/* An argument word for a leaf (a register, or a constant). */
static int64_t arg_word(fn_ctx* c, const tvm_relax_expr_obj* e, bool* ok) {
  int64_t r = emit_expr(c, e);
  *ok = r >= 0;
  return tvm_vm_arg_reg(r);
}

/* Emit a call to `name` (packed) or function index with the Relax args, into dst. */
static int64_t emit_args_call(fn_ctx* c, int64_t func, void* args, int64_t first, int64_t* extra,
                              int32_t n_extra, int64_t dst) {
  int64_t n = tvm_ffi_seq_size(args) - first;
  int64_t words[256];
  if (n + n_extra > 256) return fail(c, "more than 256 call arguments", NULL), -1;
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    words[i] = arg_word(c, tvm_ffi_seq_obj_at(args, first + i), &ok);
    if (!ok) return -1;
  }
  for (int32_t i = 0; i < n_extra; ++i) words[n + i] = extra[i];
  return emit_call_idx(c, func, words, (int32_t)(n + n_extra), dst) < 0 ? -1 : dst;
}

/* A call of packed `name` with the words prefix[0..np) and then the Relax args, into dst. */
static int64_t emit_prefixed_call(fn_ctx* c, const char* name, const int64_t* prefix, int32_t np,
                                  void* args, int64_t dst) {
  int64_t n = tvm_ffi_seq_size(args), words[256];
  if (n + np > 256) return fail(c, "more than 256 call arguments", NULL), -1;
  memcpy(words, prefix, (size_t)np * sizeof(int64_t));
  for (int64_t i = 0; i < n; ++i) {
    bool ok;
    words[np + i] = arg_word(c, tvm_ffi_seq_obj_at(args, i), &ok);
    if (!ok) return -1;
  }
  return emit_call(c, name, words, (int32_t)(np + n), dst) < 0 ? -1 : dst;
}

/* The same with the fields of `tuple` (a Tuple expression: the arguments of make_closure and
 * invoke_closure) as the args. */
static int64_t emit_tuple_call(fn_ctx* c, const char* name, const int64_t* prefix, int32_t np,
                               const tvm_relax_expr_obj* tuple, int64_t dst) {
  if (tvm_relax_kind_of(tuple) != TVM_RELAX_KIND_Tuple) {
    return fail(c, name, ": the arguments must be a tuple expression"), -1;
  }
  return emit_prefixed_call(c, name, prefix, np, ((const tvm_relax_tuple_obj*)tuple)->fields, dst);
}

/* A register of a newly allocated tensor of struct info s. */
static int64_t alloc_output(fn_ctx* c, const tvm_relax_sinfo_obj* s) {
  void* dims = tvm_relax_tensor_sinfo_dims(s);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TensorStructInfo || !dims ||
      tvm_relax_dtype_is_unknown(((const tvm_relax_tensor_sinfo_obj*)s)->dtype)) {
    return fail(c, "call_tir's outputs must be tensors of known shape and dtype", NULL), -1;
  }
  int64_t shape = shape_reg(c, dims);
  if (shape < 0) return -1;
  int64_t dt = tvm_vm_builder_const_dtype(c->b, ((const tvm_relax_tensor_sinfo_obj*)s)->dtype);
  if (dt < 0) return -1;
  int64_t storage = new_reg(c), tensor = new_reg(c);
  int64_t a[4] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_reg(shape), tvm_vm_arg_imm(0),
                  tvm_vm_arg_const(dt)};
  if (emit_call(c, "vm.builtin.alloc_storage", a, 4, storage) < 0) return -1;
  int64_t t[4] = {tvm_vm_arg_reg(storage), tvm_vm_arg_imm(0), tvm_vm_arg_reg(shape),
                  tvm_vm_arg_const(dt)};
  return emit_call(c, "vm.builtin.alloc_tensor", t, 4, tensor) < 0 ? -1 : tensor;
}

/* The packed function name of a PrimFunc's GlobalVar (its global_symbol, else its name). */
static const char* kernel_name(fn_ctx* c, const tvm_tir_global_var_obj* gv) {
  void* f = tvm_tir_ir_module_lookup(c->mod, tvm_ffi_str_cstr(gv->name_hint));
  const char* sym = f ? tvm_tir_func_global_symbol(f) : NULL;
  tvm_ffi_release(f); /* the module keeps the function and its attrs */
  return sym ? sym : tvm_ffi_str_cstr(gv->name_hint);
}

/* The function index of a GlobalVar: a Relax function of the executable, else the packed
 * function of a PrimFunc. */
static int64_t func_index(fn_ctx* c, const tvm_tir_global_var_obj* gv) {
  int64_t f = tvm_vm_builder_find_function(c->b, tvm_ffi_str_cstr(gv->name_hint));
  return f >= 0 ? f : tvm_vm_builder_declare_packed(c->b, kernel_name(c, gv));
}


/* call_tir, call_tir_inplace (an in-place output is the register of the input it names, not
 * passed again) and call_dps_packed (the callee an ExternFunc). */
static int64_t emit_call_tir(fn_ctx* c, const tvm_relax_call_obj* call) {
  const tvm_tir_global_var_obj* gv = tvm_ffi_seq_obj_at(call->args, 0);
  const tvm_relax_expr_obj* in = tvm_ffi_seq_obj_at(call->args, 1);
  bool packed = tvm_relax_kind_of(gv) == TVM_RELAX_KIND_ExternFunc;
  if ((!packed && !tvm_tir_is(gv, TVM_TIR_KIND_GlobalVar)) || tvm_relax_kind_of(in) != TVM_RELAX_KIND_Tuple) {
    return fail(c, "call_tir needs a GlobalVar (or an ExternFunc) and a tuple of arguments", NULL), -1;
  }
  const TVMFFIAny* inplace = tvm_relax_call_attr(call, "inplace_indices");
  void* fields = ((const tvm_relax_tuple_obj*)in)->fields;
  bool dyn = tvm_ffi_seq_size(call->args) > 2; /* tir_vars: vm.builtin.call_tir_dyn */
  if (dyn && packed) return fail(c, "call_dps_packed with tir_vars", NULL), -1;
  const tvm_relax_sinfo_obj* os = tvm_ffi_seq_obj_at(call->sinfo_args, 0);
  bool tuple_out = tvm_relax_kind_of(os) == TVM_RELAX_KIND_TupleStructInfo;
  void* ofields = tuple_out ? ((const tvm_relax_tuple_sinfo_obj*)os)->fields : NULL;
  int64_t nout = tuple_out ? tvm_ffi_seq_size(ofields) : 1;
  int64_t outs[64], extra[64];
  int32_t nextra = 0;
  if (nout > 64) return fail(c, "more than 64 outputs", NULL), -1;
  for (int64_t i = 0; i < nout; ++i) {
    int64_t idx = -1;
    if (inplace && inplace->type_index == kTVMFFIArray && i < tvm_ffi_seq_size(inplace->v_obj)) {
      tvm_ffi_any_as_int(tvm_ffi_seq_at(inplace->v_obj, i), &idx);
    }
    if (idx >= 0 && idx < tvm_ffi_seq_size(fields)) {
      outs[i] = emit_expr(c, tvm_ffi_seq_obj_at(fields, idx));
      if (outs[i] < 0) return -1;
      continue;
    }
    outs[i] = alloc_output(c, tuple_out ? tvm_ffi_seq_obj_at(ofields, i) : os);
    if (outs[i] < 0) return -1;
    extra[nextra++] = tvm_vm_arg_reg(outs[i]);
  }
  const char* name = packed ? tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)(const void*)gv)->global_symbol)
                            : kernel_name(c, gv);
  int64_t f = tvm_vm_builder_declare_packed(c->b, name);
  if (f < 0) return -1;
  if (dyn) {
    /* vm.builtin.call_tir_dyn(kernel, inputs..., outputs..., shape), as after CallTIRRewrite */
    int64_t shape = emit_expr(c, tvm_ffi_seq_obj_at(call->args, 2));
    if (shape < 0) return -1;
    int64_t words[256];
    int64_t nin = tvm_ffi_seq_size(fields);
    if (nin + nextra + 2 > 256) return fail(c, "more than 256 call arguments", NULL), -1;
    words[0] = tvm_vm_arg_func(f);
    for (int64_t i = 0; i < nin; ++i) {
      bool ok;
      words[1 + i] = arg_word(c, tvm_ffi_seq_obj_at(fields, i), &ok);
      if (!ok) return -1;
    }
    for (int32_t i = 0; i < nextra; ++i) words[1 + nin + i] = extra[i];
    words[1 + nin + nextra] = tvm_vm_arg_reg(shape);
    if (emit_call(c, "vm.builtin.call_tir_dyn", words, (int32_t)(nin + nextra + 2),
                  TVM_VM_REG_VOID) < 0) {
      return -1;
    }
  } else if (emit_args_call(c, f, fields, 0, extra, nextra, TVM_VM_REG_VOID) < 0 &&
             tvm_ffi_error_pending()) {
    return -1;
  }
  if (!tuple_out) return outs[0];
  for (int64_t i = 0; i < nout; ++i) extra[i] = tvm_vm_arg_reg(outs[i]);
  int64_t dst = new_reg(c);
  return emit_call(c, "vm.builtin.make_tuple", extra, (int32_t)nout, dst) < 0 ? -1 : dst;
}

/* The allocation operators of the lowered form (CallTIRRewrite, StaticPlanBlockMemory), as
 * upstream's VMBuiltinLower maps them: R.memory.alloc_storage(size, device, scope, dtype) ->
 * vm.builtin.alloc_storage(vm, size, device, dtype, scope); R.memory.alloc_tensor(storage, offset,
 * shape, dtype) -> vm.builtin.alloc_tensor(same); R.builtin.alloc_tensor(shape, dtype, device)
 * -> a storage of the tensor's size and the tensor at offset 0 in it; R.vm.alloc_storage /
 * alloc_tensor (VMBuiltinLower's own output) -> the same builtins, arguments in order (a fifth,
 * vm.alloc_tensor's device index, is not passed: the tensor is on its storage's device). */
static int64_t emit_alloc_op(fn_ctx* c, int32_t id, const tvm_relax_call_obj* call, int64_t dst) {
  int64_t n = tvm_ffi_seq_size(call->args), w[4];
  for (int64_t i = 0; i < n && i < 4; ++i) {
    int64_t r = emit_expr(c, tvm_ffi_seq_obj_at(call->args, i));
    if (r < 0) return -1;
    w[i] = tvm_vm_arg_reg(r);
  }
  if (id == TVM_RELAX_OP_memory_alloc_storage) {
    int64_t a[5] = {tvm_vm_arg_reg(TVM_VM_REG_VM), w[0], w[1], w[3], w[2]};
    return emit_call(c, "vm.builtin.alloc_storage", a, 5, dst) < 0 ? -1 : dst;
  }
  if (id == TVM_RELAX_OP_vm_alloc_storage) { /* (shape, device, dtype, scope): as they come */
    int64_t a[5] = {tvm_vm_arg_reg(TVM_VM_REG_VM), w[0], w[1], w[2], w[3]};
    return emit_call(c, "vm.builtin.alloc_storage", a, 5, dst) < 0 ? -1 : dst;
  }
  if (id == TVM_RELAX_OP_memory_alloc_tensor || id == TVM_RELAX_OP_vm_alloc_tensor) {
    return emit_call(c, "vm.builtin.alloc_tensor", w, 4, dst) < 0 ? -1 : dst;
  }
  int64_t storage = new_reg(c);
  int64_t a[4] = {tvm_vm_arg_reg(TVM_VM_REG_VM), w[0], w[2], w[1]};
  if (emit_call(c, "vm.builtin.alloc_storage", a, 4, storage) < 0) return -1;
  int64_t t[4] = {tvm_vm_arg_reg(storage), tvm_vm_arg_imm(0), w[0], w[1]};
  if (emit_call(c, "vm.builtin.alloc_tensor", t, 4, dst) < 0) return -1;
  /* The tensor holds its storage: drop the register's reference, so that killing the tensor
   * frees the memory. */
  int64_t none = 0;
  return emit_call(c, "vm.builtin.null_value", &none, 0, storage) < 0 ? -1 : dst;
}

/* R.memory.kill_tensor(v) / kill_storage(v) / R.vm.kill_object(v): v's register (shared by the Vars bound to it) is
 * overwritten with None, dropping the VM's reference, as upstream's VMCodeGen emits a kill. */
static int64_t emit_kill(fn_ctx* c, const tvm_relax_call_obj* call) {
  const void* v = tvm_ffi_seq_obj_at(call->args, 0);
  if (!tvm_relax_is_var(v)) return fail(c, "a kill (memory.kill_*, vm.kill_object) of a value that is not a variable", NULL), -1;
  int64_t r = var_reg(c, v);
  if (r < 0) return -1;
  int64_t none = 0;
  return emit_call(c, "vm.builtin.null_value", &none, 0, r) < 0 ? -1 : r;
}

/* R.print(args, format) -> relax.run.print(format, args...); R.assert_op(cond, args, format) ->
 * relax.run.assert_op(cond, format, args...) (upstream's FCallPacked functions; the format is
 * the call's attribute here, as older upstream kept it). */
static int64_t emit_print_assert(fn_ctx* c, bool print, const tvm_relax_call_obj* call, int64_t dst) {
  const TVMFFIAny* fa = tvm_relax_call_attr(call, "format");
  TVMFFIByteArray fmt = {"", 0};
  if (fa) tvm_ffi_any_as_bytes(fa, &fmt);
  if (memchr(fmt.data, 0, fmt.size)) return fail(c, "a format string with a NUL byte", NULL), -1;
  tvm_ffi_strbuf text = {0};
  tvm_ffi_strbuf_append(&text, fmt.data, fmt.size);
  int64_t fw = arg_const_str(c, tvm_ffi_strbuf_cstr(&text));
  tvm_ffi_strbuf_free(&text);
  if (fw == INT64_MIN) return -1;
  if (print) return emit_prefixed_call(c, "relax.run.print", &fw, 1, call->args, dst);
  int64_t n = tvm_ffi_seq_size(call->args), words[256];
  if (n + 1 > 256) return fail(c, "more than 256 call arguments", NULL), -1;
  for (int64_t i = 0, w = 0; i < n; ++i) {
    bool ok;
    words[w++] = arg_word(c, tvm_ffi_seq_obj_at(call->args, i), &ok);
    if (!ok) return -1;
    if (i == 0) words[w++] = fw;
  }
  return emit_call(c, "relax.run.assert_op", words, (int32_t)(n + 1), dst) < 0 ? -1 : dst;
}

static int64_t emit_call_expr(fn_ctx* c, const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  int64_t dst = new_reg(c);
  if (info) {
    switch (info->id) {
      case TVM_RELAX_OP_call_tir:
      case TVM_RELAX_OP_call_tir_inplace:
      case TVM_RELAX_OP_call_dps_packed:
      case TVM_RELAX_OP_call_tir_with_grad:
        return emit_call_tir(c, call);
      case TVM_RELAX_OP_vm_call_tir_dyn: {
        /* vm.builtin.call_tir_dyn(kernel, tensors..., shape): the tuple's fields unpacked; the
         * kernel a PrimFunc's packed function, or a packed function by name */
        const tvm_relax_expr_obj* gv = tvm_ffi_seq_obj_at(call->args, 0);
        tvm_relax_kind gk = tvm_relax_kind_of(gv);
        char nbuf[256];
        if (gk == TVM_RELAX_KIND_ExternFunc || gk == TVM_RELAX_KIND_StringImm) {
          TVMFFIAny sym = tvm_ffi_any_obj(
              gk == TVM_RELAX_KIND_ExternFunc ? ((const tvm_relax_extern_func_obj*)gv)->global_symbol
                                              : ((const tvm_relax_string_imm_obj*)gv)->value);
          TVMFFIByteArray nb = {"", 0};
          tvm_ffi_any_as_bytes(&sym, &nb);
          if (nb.size >= sizeof(nbuf) || memchr(nb.data, 0, nb.size)) {
            return fail(c, "vm.call_tir_dyn of a function name too long or with a NUL byte", NULL), -1;
          }
          snprintf(nbuf, sizeof(nbuf), "%.*s", (int)nb.size, nb.data);
        } else if (!tvm_tir_is(gv, TVM_TIR_KIND_GlobalVar)) {
          return fail(c, "vm.call_tir_dyn of something other than a GlobalVar or a name", NULL), -1;
        }
        int64_t f = tvm_vm_builder_declare_packed(
            c->b, tvm_tir_is(gv, TVM_TIR_KIND_GlobalVar) ? kernel_name(c, (const void*)gv) : nbuf);
        int64_t w = tvm_vm_arg_func(f);
        return f < 0 ? -1
                     : emit_tuple_call(c, "vm.builtin.call_tir_dyn", &w, 1,
                                       tvm_ffi_seq_obj_at(call->args, 1), dst);
      }
      case TVM_RELAX_OP_call_builtin_with_ctx: {
        /* the builtin called with the VM context (the %vm register) first, then the tuple's
         * fields, as upstream's VMCodeGen emits it */
        const tvm_relax_expr_obj* callee = tvm_ffi_seq_obj_at(call->args, 0);
        if (tvm_relax_kind_of(callee) != TVM_RELAX_KIND_ExternFunc) {
          return fail(c, "call_builtin_with_ctx of something other than an ExternFunc", NULL), -1;
        }
        int64_t w = tvm_vm_arg_reg(TVM_VM_REG_VM);
        return emit_tuple_call(
            c, tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)callee)->global_symbol), &w, 1,
            tvm_ffi_seq_obj_at(call->args, 1), dst);
      }
      case TVM_RELAX_OP_tensor_to_shape:
      case TVM_RELAX_OP_shape_to_tensor: {
        /* upstream: LowerRuntimeBuiltin's vm.builtin.tensor_to_shape; shape_to_tensor's
         * FCallPacked relax.run.shape_to_tensor */
        int64_t f = tvm_vm_builder_declare_packed(c->b, info->id == TVM_RELAX_OP_tensor_to_shape
                                                            ? "vm.builtin.tensor_to_shape"
                                                            : "relax.run.shape_to_tensor");
        return f < 0 ? -1 : emit_args_call(c, f, call->args, 0, NULL, 0, dst);
      }
      case TVM_RELAX_OP_print:
      case TVM_RELAX_OP_assert_op:
        return emit_print_assert(c, info->id == TVM_RELAX_OP_print, call, dst);
      case TVM_RELAX_OP_shape_of: {
        int64_t f = tvm_vm_builder_declare_packed(c->b, "vm.builtin.shape_of");
        return f < 0 ? -1 : emit_args_call(c, f, call->args, 0, NULL, 0, dst);
      }
      case TVM_RELAX_OP_null_value: {
        int64_t f = tvm_vm_builder_declare_packed(c->b, "vm.builtin.null_value");
        return f < 0 ? -1 : emit_args_call(c, f, call->args, 0, NULL, 0, dst);
      }
      case TVM_RELAX_OP_builtin_alloc_tensor:
      case TVM_RELAX_OP_memory_alloc_storage:
      case TVM_RELAX_OP_memory_alloc_tensor:
      case TVM_RELAX_OP_vm_alloc_storage:
      case TVM_RELAX_OP_vm_alloc_tensor:
        return emit_alloc_op(c, info->id, call, dst);
      case TVM_RELAX_OP_memory_kill_storage:
      case TVM_RELAX_OP_memory_kill_tensor:
      case TVM_RELAX_OP_vm_kill_object:
        return emit_kill(c, call);
      case TVM_RELAX_OP_make_closure: {
        const tvm_relax_expr_obj* gv = tvm_ffi_seq_obj_at(call->args, 0);
        int64_t f = tvm_tir_is(gv, TVM_TIR_KIND_GlobalVar) ? func_index(c, (const void*)gv) : -1;
        if (f < 0) return fail(c, "make_closure of something other than a function", NULL), -1;
        int64_t w = tvm_vm_arg_func(f);
        return emit_tuple_call(c, "vm.builtin.make_closure", &w, 1, tvm_ffi_seq_obj_at(call->args, 1), dst);
      }
      case TVM_RELAX_OP_invoke_closure:
      case TVM_RELAX_OP_invoke_pure_closure: {
        int64_t clo = emit_expr(c, tvm_ffi_seq_obj_at(call->args, 0));
        int64_t w[2] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_reg(clo)};
        return clo < 0 ? -1
                       : emit_tuple_call(c, "vm.builtin.invoke_closure", w, 2,
                                         tvm_ffi_seq_obj_at(call->args, 1), dst);
      }
      case TVM_RELAX_OP_call_pure_packed:
      case TVM_RELAX_OP_call_inplace_packed: {
        const tvm_relax_expr_obj* callee = tvm_ffi_seq_obj_at(call->args, 0);
        if (tvm_relax_kind_of(callee) != TVM_RELAX_KIND_ExternFunc) break;
        int64_t f = tvm_vm_builder_declare_packed(
            c->b, tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)callee)->global_symbol));
        return f < 0 ? -1 : emit_args_call(c, f, call->args, 1, NULL, 0, dst);
      }
      default:
        break;
    }
    return fail(c, "operator call left in the module (legalize it first): ", info->name), -1;
  }
  if (tvm_relax_kind_of(call->op) == TVM_RELAX_KIND_ExternFunc) {
    int64_t f = tvm_vm_builder_declare_packed(
        c->b, tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)call->op)->global_symbol));
    return f < 0 ? -1 : emit_args_call(c, f, call->args, 0, NULL, 0, dst);
  }
  if (tvm_tir_is(call->op, TVM_TIR_KIND_GlobalVar)) {
    /* A Relax function, or a PrimFunc called directly (its packed function). */
    int64_t f = func_index(c, (const void*)call->op);
    return f < 0 ? -1 : emit_args_call(c, f, call->args, 0, NULL, 0, dst);
  }
  if (tvm_relax_is_var(call->op)) {
    /* A function value (a parameter, or a closure): invoked as a closure, as upstream does. */
    int64_t clo = var_reg(c, call->op);
    int64_t w[2] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_reg(clo)};
    return clo < 0 ? -1 : emit_prefixed_call(c, "vm.builtin.invoke_closure", w, 2, call->args, dst);
  }
  return fail(c, "calls of this callee are not supported yet: ",
              tvm_ffi_type_key(tvm_ffi_type_index(call->op))), -1;
}

static int emit_seq(fn_ctx* c, const tvm_relax_seq_expr_obj* s, int64_t* out);

static int64_t emit_if(fn_ctx* c, const tvm_relax_if_obj* f) {
  int64_t cond = emit_expr(c, f->cond);
  if (cond < 0) return -1;
  int64_t creg = new_reg(c), dst = new_reg(c);
  int64_t a = tvm_vm_arg_reg(cond);
  if (emit_call(c, "vm.builtin.read_if_cond", &a, 1, creg) < 0) return -1;
  int64_t if_rec = push_rec(c, (rec){TVM_VM_OP_If, creg, 0, 0, 0, -1});
  int64_t t;
  /* Composite dims computed in a branch are not computed on the other path. */
  int64_t mark = tvm_codegen__shape_scope(&c->heap);
  if (if_rec < 0 || emit_seq(c, (const void*)f->true_branch, &t) != 0) return -1;
  tvm_codegen__shape_unscope(&c->heap, mark);
  a = tvm_vm_arg_reg(t);
  if (emit_call(c, "vm.builtin.copy", &a, 1, dst) < 0) return -1;
  int64_t goto_rec = push_rec(c, (rec){TVM_VM_OP_Goto, 0, 0, 0, 0, -1});
  if (goto_rec < 0) return -1;
  c->recs[if_rec].target = c->n_recs;
  int64_t fv;
  if (emit_seq(c, (const void*)f->false_branch, &fv) != 0) return -1;
  tvm_codegen__shape_unscope(&c->heap, mark);
  a = tvm_vm_arg_reg(fv);
  if (emit_call(c, "vm.builtin.copy", &a, 1, dst) < 0) return -1;
  c->recs[goto_rec].target = c->n_recs;
  return dst;
}

/* The register of each kind of expression, by kind (k_emit). */
static int64_t emit_var(fn_ctx* c, const tvm_relax_expr_obj* e) { return var_reg(c, e); }

static int64_t emit_call_kind(fn_ctx* c, const tvm_relax_expr_obj* e) {
  return emit_call_expr(c, (const void*)e);
}

static int64_t emit_constant(fn_ctx* c, const tvm_relax_expr_obj* e) {
  int64_t k = tvm_vm_builder_const_tensor(c->b, ((const tvm_relax_constant_obj*)e)->data);
  int64_t a = tvm_vm_arg_const(k), dst = new_reg(c);
  return k < 0 || emit_call(c, "vm.builtin.copy", &a, 1, dst) < 0 ? -1 : dst;
}

static int64_t emit_shape_expr(fn_ctx* c, const tvm_relax_expr_obj* e) {
  return shape_reg(c, ((const tvm_relax_shape_expr_obj*)e)->values);
}

static int64_t emit_prim_value(fn_ctx* c, const tvm_relax_expr_obj* e) {
  const tvm_tir_expr_obj* v = ((const tvm_relax_prim_value_obj*)e)->value;
  int64_t i, k, dst = new_reg(c);
  double d;
  if (tvm_tir_as_const_int(v, &i) && !tvm_tir_dtype_is_floating(tvm_tir_expr_dtype(v))) {
    k = tvm_vm_builder_const_int(c->b, i);
  } else if (tvm_tir_as_const_float(v, &d)) {
    k = tvm_vm_builder_const_float(c->b, d);
  } else {
    int64_t code, val;
    if (!tvm_tir_dtype_is_integer(tvm_tir_expr_dtype(v))) {
      tvm_ffi_strbuf b = {0};
      tvm_tir_node_text(&b, v);
      fail(c, "a prim value the shape heap cannot hold (run ComputePrimValue): ", tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&b);
      return -1;
    }
    if (compute_dims(c, (const tvm_tir_expr_obj* const[]){v}, 1) != 0 || make_words(c, v, &code, &val) != 0) return -1;
    int64_t a[3] = {tvm_vm_arg_reg(c->heap_reg), tvm_vm_arg_imm(code), tvm_vm_arg_imm(val)};
    return emit_call(c, "vm.builtin.make_prim_value", a, 3, dst) < 0 ? -1 : dst;
  }
  int64_t a = tvm_vm_arg_const(k);
  return k < 0 || emit_call(c, "vm.builtin.copy", &a, 1, dst) < 0 ? -1 : dst;
}

static int64_t emit_string_imm(fn_ctx* c, const tvm_relax_expr_obj* e) {
  int64_t a = arg_const_str(c, tvm_ffi_str_cstr(((const tvm_relax_string_imm_obj*)e)->value));
  int64_t dst = new_reg(c);
  return a == INT64_MIN || emit_call(c, "vm.builtin.copy", &a, 1, dst) < 0 ? -1 : dst;
}

static int64_t emit_dtype_imm(fn_ctx* c, const tvm_relax_expr_obj* e) {
  int64_t k = tvm_vm_builder_const_dtype(c->b, ((const tvm_relax_dtype_imm_obj*)e)->value);
  int64_t a = tvm_vm_arg_const(k), dst = new_reg(c);
  return k < 0 || emit_call(c, "vm.builtin.copy", &a, 1, dst) < 0 ? -1 : dst;
}

static int64_t emit_tuple(fn_ctx* c, const tvm_relax_expr_obj* e) {
  int64_t f = tvm_vm_builder_declare_packed(c->b, "vm.builtin.make_tuple");
  return f < 0 ? -1 : emit_args_call(c, f, ((const tvm_relax_tuple_obj*)e)->fields, 0, NULL, 0, new_reg(c));
}

static int64_t emit_tuple_get_item(fn_ctx* c, const tvm_relax_expr_obj* e) {
  const tvm_relax_tuple_get_item_obj* g = (const void*)e;
  int64_t t = emit_expr(c, g->tuple_value);
  int64_t a[2] = {tvm_vm_arg_reg(t), tvm_vm_arg_imm(g->index)}, dst = new_reg(c);
  return t < 0 || emit_call(c, "vm.builtin.tuple_getitem", a, 2, dst) < 0 ? -1 : dst;
}

/* An ExternFunc used as a value: the packed function of that name (resolved when the VM loads),
 * in a register. */
static int64_t emit_extern_func(fn_ctx* c, const tvm_relax_expr_obj* e) {
  int64_t f = tvm_vm_builder_declare_packed(
      c->b, tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)e)->global_symbol));
  int64_t w = tvm_vm_arg_func(f), dst = new_reg(c);
  return f < 0 || emit_call(c, "vm.builtin.copy", &w, 1, dst) < 0 ? -1 : dst;
}

static int64_t emit_if_kind(fn_ctx* c, const tvm_relax_expr_obj* e) { return emit_if(c, (const void*)e); }

static int64_t emit_seq_kind(fn_ctx* c, const tvm_relax_expr_obj* e) {
  int64_t out;
  return emit_seq(c, (const void*)e, &out) == 0 ? out : -1;
}

#define K(Name) TVM_RELAX_KIND_##Name
static int64_t (*const k_emit[TVM_RELAX_KIND_COUNT])(fn_ctx* c, const tvm_relax_expr_obj* e) = {
    [K(Var)] = emit_var,
    [K(DataflowVar)] = emit_var,
    [K(Call)] = emit_call_kind,
    [K(Constant)] = emit_constant,
    [K(ShapeExpr)] = emit_shape_expr,
    [K(PrimValue)] = emit_prim_value,
    [K(StringImm)] = emit_string_imm,
    [K(DataTypeImm)] = emit_dtype_imm,
    [K(ExternFunc)] = emit_extern_func,
    [K(Tuple)] = emit_tuple,
    [K(TupleGetItem)] = emit_tuple_get_item,
    [K(If)] = emit_if_kind,
    [K(SeqExpr)] = emit_seq_kind,
};
#undef K

bool tvm_codegen__vm_expr_rule(tvm_relax_kind kind) {
  return kind >= 0 && kind < TVM_RELAX_KIND_COUNT && k_emit[kind] != NULL;
}

static int64_t emit_expr(fn_ctx* c, const tvm_relax_expr_obj* e) {
  tvm_relax_kind k = tvm_relax_kind_of(e);
  if (k >= 0 && k_emit[k]) return k_emit[k](c, e);
  if (tvm_tir_is(e, TVM_TIR_KIND_GlobalVar)) {
    /* A function used as a value: its entry of the function pool (a closure). */
    int64_t f = func_index(c, (const void*)e), dst = new_reg(c);
    int64_t w = tvm_vm_arg_func(f);
    return f < 0 || emit_call(c, "vm.builtin.copy", &w, 1, dst) < 0 ? -1 : dst;
  }
  return fail(c, "cannot compile a ", e ? tvm_ffi_type_key(tvm_ffi_type_index(e)) : "NULL"), -1;
}

static int emit_seq(fn_ctx* c, const tvm_relax_seq_expr_obj* s, int64_t* out) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(s->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(s->blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, j);
      int64_t r = emit_expr(c, tvm_relax_binding_value(b));
      if (r < 0) return -1;
      if (tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast) {
        char what[128];
        snprintf(what, sizeof(what), "match_cast of %s", tvm_relax_var_name(b->var));
        if (emit_match(c, r, ((const tvm_relax_match_cast_obj*)b)->struct_info, what) != 0 ||
            flush_deferred(c) != 0) {
          return -1;
        }
      }
      if (bind_reg(c, b->var, r) != 0) return -1;
    }
  }
  *out = emit_expr(c, s->body);
  return *out >= 0 ? 0 : -1;
}

/* ---- Functions ------------------------------------------------------------------------------- */
static int replay(fn_ctx* c, const char* name, int64_t nparams, const char* const* param_names) {
  /* The shape heap's size is known now. */
  if (c->heap_rec >= 0) c->words[c->recs[c->heap_rec].args_at + 1] = tvm_vm_arg_imm(tvm_codegen__shape_heap_size(&c->heap));
  if (tvm_vm_builder_function_begin(c->b, name, nparams, c->next_reg, param_names) < 0) return -1;
  int64_t* index = tvm_ffi_malloc((size_t)(c->n_recs + 1) * sizeof(int64_t));
  if (!index) return -1;
  for (int64_t i = 0; i < c->n_recs; ++i) {
    const rec* r = &c->recs[i];
    int64_t at;
    switch (r->op) {
      case TVM_VM_OP_Call: at = tvm_vm_builder_emit_call_index(c->b, r->func, c->words + r->args_at, r->nargs, r->dst); break;
      case TVM_VM_OP_Ret: at = tvm_vm_builder_emit_ret(c->b, r->dst); break;
      case TVM_VM_OP_Goto: at = tvm_vm_builder_emit_goto(c->b, 0); break;
      default: at = tvm_vm_builder_emit_if(c->b, r->dst, 0); break;
    }
    if (at < 0) {
      tvm_ffi_free(index);
      return -1;
    }
    index[i] = at;
  }
  index[c->n_recs] = tvm_vm_builder_next_instr(c->b);
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < c->n_recs; ++i) {
    if (c->recs[i].op == TVM_VM_OP_Goto || c->recs[i].op == TVM_VM_OP_If) {
      rc = tvm_vm_builder_set_jump_target(c->b, index[i], index[c->recs[i].target]);
    }
  }
  tvm_ffi_free(index);
  return rc == 0 ? tvm_vm_builder_function_end(c->b) : -1;
}

/* exec_mode="compiled": the recorded function as `__vmtir__<name>` (added to sf->funcs, compiled
 * with the kernels) and declared vm_tir; *done false (nothing raised) when its records are not
 * in the structured form relax_vm_tir.c takes, so that the caller replays it as bytecode. */
static int define_compiled(fn_ctx* c, const char* name, int64_t nparams, const char* const* names,
                           tvm_codegen__shape_funcs* sf, bool* done) {
  *done = false;
  if (c->heap_rec >= 0) c->words[c->recs[c->heap_rec].args_at + 1] = tvm_vm_arg_imm(tvm_codegen__shape_heap_size(&c->heap));
  int64_t fidx = tvm_vm_builder_find_function(c->b, name);
  bool unsupported = false;
  int64_t nf = 0;
  while (tvm_vm_builder_function_kind(c->b, nf) >= 0) ++nf;
  bool* packed = tvm_ffi_calloc((size_t)nf + 1, sizeof(bool));
  if (!packed) return -1;
  for (int64_t i = 0; i < nf; ++i) packed[i] = tvm_vm_builder_function_kind(c->b, i) == TVM_VM_FUNC_PACKED;
  tvm_tir_prim_func_obj* pf = tvm_codegen__vm_tir_func(name, fidx, nparams, c->recs, c->n_recs, c->words,
                                                       packed, nf, c->next_reg, &unsupported);
  tvm_ffi_free(packed);
  if (!pf) return unsupported ? 0 : -1;
  char sym[512];
  snprintf(sym, sizeof(sym), "__vmtir__%s", name);
  void* gv = tvm_tir_global_var_new(sym);
  TVMFFIAny k = tvm_ffi_any_obj(gv), v = tvm_ffi_any_obj(pf);
  int rc = gv && tvm_ffi_dict_set(sf->funcs, &k, &v) == 0 ? 0 : -1;
  tvm_ffi_release(gv);
  tvm_ffi_release(pf);
  if (rc == 0 && tvm_vm_builder_define_vmtir(c->b, name, c->next_reg, names) < 0) rc = -1;
  *done = rc == 0;
  return rc;
}

static int compile_function(tvm_vm_builder* b, const tvm_tir_ir_module_obj* mod, const char* name,
                            const tvm_relax_function_obj* f, tvm_codegen__shape_funcs* sf,
                            bool compiled) {
  fn_ctx c;
  memset(&c, 0, sizeof(c));
  c.b = b, c.mod = mod, c.fname = name, c.heap_reg = -1, c.heap_rec = -1;
  c.regs = tvm_ffi_dict_new();
  int64_t np = tvm_ffi_seq_size(f->params);
  const char** names = tvm_ffi_calloc((size_t)(np ? np : 1), sizeof(char*));
  int rc = c.regs && names && tvm_codegen__shape_heap_init(&c.heap, sf, name) == 0 ? 0 : -1;
  c.next_reg = np;
  for (int64_t i = 0; rc == 0 && i < np; ++i) {
    names[i] = tvm_relax_var_name(tvm_ffi_seq_obj_at(f->params, i));
    rc = bind_reg(&c, tvm_ffi_seq_obj_at(f->params, i), i);
  }
  /* The shape heap (its size patched at replay), then the parameters' checks. */
  if (rc == 0) {
    c.heap_reg = new_reg(&c);
    int64_t a[2] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_imm(0)};
    c.heap_rec = emit_call(&c, "vm.builtin.alloc_shape_heap", a, 2, c.heap_reg);
    if (c.heap_rec < 0) rc = -1;
  }
  for (int64_t i = 0; rc == 0 && i < np; ++i) {
    char what[160];
    snprintf(what, sizeof(what), "argument '%s'", names[i]);
    rc = emit_match(&c, i, tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(f->params, i)), what);
  }
  /* Composite dims of the parameters, once all their variables are stored (a later parameter
   * may define a variable an earlier one's dim uses). */
  if (rc == 0) rc = flush_deferred(&c);
  int64_t out = -1;
  if (rc == 0) rc = emit_seq(&c, (const void*)f->body, &out);
  if (rc == 0 && push_rec(&c, (rec){TVM_VM_OP_Ret, out, 0, 0, 0, -1}) < 0) rc = -1;
  bool done = false;
  if (rc == 0 && compiled) rc = define_compiled(&c, name, np, names, sf, &done);
  if (rc == 0 && !done) rc = replay(&c, name, np, names);
  tvm_ffi_free(names);
  tvm_ffi_free(c.recs);
  tvm_ffi_free(c.words);
  tvm_ffi_release(c.regs);
  tvm_codegen__shape_heap_free(&c.heap);
  for (int64_t i = 0; i < c.n_deferred; ++i) tvm_ffi_free(c.deferred[i].err);
  tvm_ffi_free(c.deferred);
  return rc;
}

/* mod's PrimFuncs, each with a global_symbol (its GlobalVar's name when it has none), and the
 * functions of `extra` (ffi.Dict GlobalVar -> PrimFunc, or NULL). */
static tvm_tir_ir_module_obj* kernels_module(const tvm_tir_ir_module_obj* mod, void* extra) {
  void* dict = tvm_ffi_dict_new();
  if (!dict) return NULL;
  int rc = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (!tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc)) continue;
    void* f = v->v_obj;
    tvm_ffi_retain(f);
    if (!tvm_tir_func_global_symbol(f)) {
      TVMFFIAny gs = tvm_ffi_any_obj(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
      void* g = tvm_tir_prim_func_with_attr(f, "global_symbol", &gs);
      tvm_ffi_release(f);
      f = g;
    }
    TVMFFIAny val = tvm_ffi_any_obj(f);
    rc = f ? tvm_ffi_dict_set(dict, k, &val) : -1;
    tvm_ffi_release(f);
  }
  for (int64_t pos = 0; extra && rc == 0 && (pos = tvm_ffi_map_next(extra, pos, &k, &v)) >= 0;) {
    rc = tvm_ffi_dict_set(dict, k, v);
  }
  void* funcs = rc == 0 ? tvm_ffi_dict_to_map(dict) : NULL;
  tvm_ffi_release(dict);
  tvm_tir_ir_module_obj* out = funcs ? tvm_tir_ir_module_new(funcs, NULL) : NULL;
  tvm_ffi_release(funcs);
  return out;
}

static tvm_vm_executable* vm_codegen(const tvm_tir_ir_module_obj* mod,
                                     tvm_tir_ir_module_obj** out_kernels, bool compiled) {
  tvm_relax_init();
  if (out_kernels) *out_kernels = NULL;
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "VMCodeGen: an IRModule is required");
    return NULL;
  }
  tvm_codegen__shape_funcs sf;
  if (tvm_codegen__shape_funcs_init(&sf, mod) != 0) return NULL;
  tvm_vm_builder* b = tvm_vm_builder_new();
  int rc = b ? 0 : -1;
  const TVMFFIAny *k, *v;
  /* Declare every Relax function first, so calls may refer to later ones. */
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (tvm_relax_kind_of(v->v_obj) != TVM_RELAX_KIND_Function) continue;
    const tvm_relax_function_obj* f = (const void*)v->v_obj;
    if (tvm_vm_builder_declare_function(b, tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint),
                                        tvm_ffi_seq_size(f->params)) < 0) {
      rc = -1;
    }
  }
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (tvm_relax_kind_of(v->v_obj) != TVM_RELAX_KIND_Function) continue;
    rc = compile_function(b, mod, tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint),
                          (const void*)v->v_obj, &sf, compiled);
  }
  tvm_vm_executable* exec = rc == 0 ? tvm_vm_builder_finish(b) : NULL;
  tvm_vm_builder_free(b);
  if (exec && out_kernels && !(*out_kernels = kernels_module(mod, sf.funcs))) {
    tvm_ffi_release(exec);
    exec = NULL;
  } else if (exec && !out_kernels && tvm_ffi_map_size(sf.funcs) > 0) {
    tvm_ffi_raise("ValueError",
                  "VMCodeGen: the executable calls shape functions generated for composite "
                  "symbolic dims; use tvm_codegen_relax_vm_codegen_kernels to compile them");
    tvm_ffi_release(exec);
    exec = NULL;
  }
  tvm_codegen__shape_funcs_free(&sf);
  return exec;
}

tvm_vm_executable* tvm_codegen_relax_vm_codegen_kernels(const tvm_tir_ir_module_obj* mod,
                                                        tvm_tir_ir_module_obj** out_kernels) {
  /* A stale error the caller left raised is set aside (ffi.h, tvm_ffi_error_take). */
  void* stale = tvm_ffi_error_take();
  tvm_vm_executable* exec = vm_codegen(mod, out_kernels, false);
  tvm_ffi_error_give_back(stale);
  return exec;
}

tvm_vm_executable* tvm_codegen__relax_vm_codegen_mode(const tvm_tir_ir_module_obj* mod,
                                                      tvm_tir_ir_module_obj** out_kernels,
                                                      const tvm_codegen_options* options) {
  return vm_codegen(mod, out_kernels, options && options->exec_mode == TVM_CODEGEN_EXEC_COMPILED);
}

tvm_vm_executable* tvm_codegen_relax_vm_codegen(const tvm_tir_ir_module_obj* mod) {
  return tvm_codegen_relax_vm_codegen_kernels(mod, NULL);
}

static tvm_vm_executable* build_lowered(const tvm_tir_ir_module_obj* mod,
                                        const tvm_codegen_options* options) {
  tvm_tir_ir_module_obj* tir = NULL;
  tvm_codegen_target target;
  if (tvm_codegen__relax_target(options, &target) != 0) return NULL;
  tvm_vm_executable* exec = tvm_codegen__relax_vm_codegen_mode(mod, &tir, options);
  if (!exec) return NULL;
  if (tvm_ffi_map_size(tir->functions) > 0) {
    void* lowered = tvm_codegen__schedule_and_lower(tir, options);
    char text[128];
    tvm_codegen_target_str(&target, text, sizeof(text));
    if (target.kind == TVM_CODEGEN_TARGET_CUDA && !tvm_codegen__has_gpu_kernels(tir))
      snprintf(text, sizeof(text), "llvm");
    void* lib = lowered ? tvm_codegen_build(lowered, text, options) : NULL;
    tvm_ffi_release(lowered);
    if (!lib || tvm_vm_executable_import(exec, lib) != 0) {
      tvm_ffi_release(lib);
      tvm_ffi_release(tir);
      tvm_ffi_release(exec);
      return NULL;
    }
    tvm_ffi_release(lib);
  }
  tvm_ffi_release(tir);
  return exec;
}

tvm_vm_executable* tvm_codegen_relax_build_passes(const tvm_tir_ir_module_obj* mod,
                                                  const tvm_relax_pass* passes, int64_t n,
                                                  const tvm_codegen_options* options) {
  /* A stale error the caller left raised is set aside: the passes, the TIR builder and the
   * lowering read a raised error as their own failure (ffi.h, tvm_ffi_error_take). */
  void* stale = tvm_ffi_error_take();
  tvm_tir_ir_module_obj* lowered =
      options ? tvm_relax_run_passes_observed(mod, passes, n, options->relax_after_pass,
                                              options->relax_after_pass_ctx)
              : tvm_relax_run_passes(mod, passes, n);
  tvm_vm_executable* exec = lowered ? build_lowered(lowered, options) : NULL;
  tvm_ffi_release(lowered);
  tvm_ffi_error_give_back(stale);
  return exec;
}

tvm_vm_executable* tvm_codegen_relax_build(const tvm_tir_ir_module_obj* mod,
                                           const tvm_codegen_options* options) {
  const tvm_relax_pass* passes;
  int64_t n = tvm_relax_build_pipeline_passes(&passes);
  return tvm_codegen_relax_build_passes(mod, passes, n, options);
}

/* transform_vectorize_loops.c: pass vectorize_loops (tvm/tir/transform.h).
 *
 * A For of kind vectorized with a constant extent N, 1 < N <= TVM_TIR_INTERP_MAX_LANES, whose
 * body is made only of the supported forms below becomes that body once, over N lanes: the loop
 * var is Ramp(min, 1, N), an expression that does not depend on it stays scalar (and is
 * broadcast where it meets a vector), Ramps absorb scalar offsets and factors
 * (Ramp(b, s, n) + x = Ramp(b + x, s, n), Ramp(b, s, n) * x = Ramp(b * x, s * x, n)) and integer
 * widening casts (int64(Ramp(b, s, n)) = Ramp(int64(b), int64(s), n)), loads and
 * stores get a vector last index.
 *
 *   statements   BufferStore whose last index depends on the loop var (others must not),
 *                SeqStmt, LetStmt, IfThenElse whose condition does not depend on the loop var
 *   expressions  constants, Vars, arithmetic/comparison/logical ops, Not, Cast, Select, Let,
 *                BufferLoad (scalar buffer dtype; only the last index may depend on the loop
 *                var), calls of elementwise builtins (math, bitwise, shifts, fma, if_then_else)
 *
 * Anything else (loops, allocations, Evaluate, asserts, stores to a location that does not depend
 * on the loop var, vector dtypes already in the body, calls of other functions) keeps the loop,
 * as a serial one: the spec lets a vectorized loop run its iterations in order, so this fallback
 * is always correct. Order of side effects: the stores of one statement happen lane by lane
 * before the next statement, which the spec's "no dependencies between iterations" allows. A
 * non-constant extent also gives a serial loop; extent 1 substitutes min. */
#include <tvm/tir/interp.h>

#include "transform_internal.h"

static const char kPass[] = "vectorize_loops";

typedef struct {
  const tvm_tir_var_obj* var; /* the loop var */
  tvm_tir_expr_obj* ramp;     /* Ramp(min, 1, lanes) */
  int lanes;
  void* lets; /* ffi.Dict Var -> its vector Var */
  bool unsupported;
} vectorizer;

typedef void* (*vec_fn)(vectorizer* vz, const void* node);
static void* vec(vectorizer* vz, const void* node);

static void* fail(vectorizer* vz) {
  vz->unsupported = true;
  return NULL;
}

static bool is_vec(const void* e) { return tvm_tir_expr_dtype(e).lanes > 1; }

/* e broadcast to the vector width (a new reference). */
static tvm_tir_expr_obj* widen(vectorizer* vz, tvm_tir_expr_obj* e) {
  return is_vec(e) ? tir_expr_retain(e) : tvm_tir_broadcast_new(e, vz->lanes);
}

static void* vec_keep(vectorizer* vz, const void* node) {
  (void)vz;
  return tvm_tir_ref((void*)node);
}

static void* vec_var(vectorizer* vz, const void* node) {
  if (node == vz->var) return tvm_tir_ref(vz->ramp);
  TVMFFIAny key = tvm_ffi_any_obj(node);
  const TVMFFIAny* v = tvm_ffi_map_get(vz->lets, &key);
  return tvm_tir_ref(v ? v->v_obj : (void*)node);
}

/* Ramp arithmetic with a scalar (or two Ramps): NULL without error when it does not apply. */
static tvm_tir_expr_obj* ramp_arith(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  bool ra = TIR_IS(a, Ramp), rb = TIR_IS(b, Ramp);
  if (!(ra || rb) || (!ra && is_vec(a)) || (!rb && is_vec(b))) return NULL;
  const tvm_tir_ramp_obj* x = ra ? (const tvm_tir_ramp_obj*)a : (const tvm_tir_ramp_obj*)b;
  tvm_tir_expr_obj* other = ra ? b : a;
  if (kind == TVM_TIR_KIND_Add && ra && rb) {
    const tvm_tir_ramp_obj* y = (const tvm_tir_ramp_obj*)b;
    return tvm_tir_ramp_take(tvm_tir_add(x->base, y->base), tvm_tir_add(x->stride, y->stride),
                             x->lanes);
  }
  if (ra && rb) return NULL;
  if (!tvm_tir_dtype_equal(other->dtype, x->base->dtype) && !TIR_IS(other, IntImm)) return NULL;
  switch (kind) {
    case TVM_TIR_KIND_Add:
      return tvm_tir_ramp_take(tvm_tir_add(x->base, other), tvm_tir_ref(x->stride), x->lanes);
    case TVM_TIR_KIND_Sub:
      if (!ra) return NULL;
      return tvm_tir_ramp_take(tvm_tir_sub(x->base, other), tvm_tir_ref(x->stride), x->lanes);
    case TVM_TIR_KIND_Mul:
      return tvm_tir_ramp_take(tvm_tir_mul(x->base, other), tvm_tir_mul(x->stride, other),
                               x->lanes);
    default:
      return NULL;
  }
}

static void* vec_binary(vectorizer* vz, const void* node) {
  const tvm_tir_binary_obj* e = node;
  tvm_tir_kind kind = tvm_tir_kind_of(node);
  tvm_tir_expr_obj* a = vec(vz, e->a);
  tvm_tir_expr_obj* b = a ? vec(vz, e->b) : NULL;
  tvm_tir_expr_obj* r = NULL;
  if (a && b && a == e->a && b == e->b) {
    r = tir_expr_retain((tvm_tir_expr_obj*)node);
  } else if (a && b) {
    r = ramp_arith(kind, a, b);
    if (!r && !tvm_ffi_error_pending()) r = tvm_tir_binary(kind, a, b);
  }
  RELEASE2(a, b);
  return r;
}

static void* vec_not(vectorizer* vz, const void* node) {
  const tvm_tir_not_obj* e = node;
  tvm_tir_expr_obj* a = vec(vz, e->a);
  void* r = a && a != e->a ? tvm_tir_not(a) : a ? tvm_tir_ref((void*)node) : NULL;
  tvm_ffi_release(a);
  return r;
}

static void* vec_cast(vectorizer* vz, const void* node) {
  const tvm_tir_cast_obj* e = node;
  tvm_tir_expr_obj* a = vec(vz, e->value);
  void* r = NULL;
  if (a && a == e->value) {
    r = tvm_tir_ref((void*)node);
  } else if (a && TIR_IS(a, Ramp) && e->expr.dtype.code == kDLInt && a->dtype.code == kDLInt &&
             e->expr.dtype.bits >= a->dtype.bits) {
    /* a widened index stays a Ramp (a contiguous access, not a gather): int32 lanes of an int64
     * index, as the index arithmetic assumes no overflow */
    const tvm_tir_ramp_obj* ra = (const tvm_tir_ramp_obj*)a;
    r = tvm_tir_ramp_take(tvm_tir_cast(e->expr.dtype, ra->base), tvm_tir_cast(e->expr.dtype, ra->stride),
                          ra->lanes);
  } else if (a) {
    r = tvm_tir_cast(tvm_tir_dtype_with_lanes(e->expr.dtype, a->dtype.lanes), a);
  }
  tvm_ffi_release(a);
  return r;
}

/* Vectorize n operands; *out_any_vec tells whether one depends on the loop var. */
static bool vec_operands(vectorizer* vz, tvm_tir_expr_obj* const* in, tvm_tir_expr_obj** out,
                         int64_t n, bool* out_any_vec) {
  *out_any_vec = false;
  for (int64_t k = 0; k < n; ++k) {
    out[k] = vec(vz, in[k]);
    if (!out[k]) {
      for (int64_t j = 0; j < k; ++j) tvm_ffi_release(out[j]);
      return false;
    }
    *out_any_vec |= is_vec(out[k]);
  }
  for (int64_t k = 0; *out_any_vec && k < n; ++k) {
    tvm_tir_expr_obj* w = widen(vz, out[k]);
    tvm_ffi_release(out[k]);
    out[k] = w;
    if (!w) {
      for (int64_t j = 0; j < n; ++j) tvm_ffi_release(out[j]);
      return false;
    }
  }
  return true;
}

static void* vec_select(vectorizer* vz, const void* node) {
  const tvm_tir_select_obj* e = node;
  tvm_tir_expr_obj* ops[3];
  bool any;
  if (!vec_operands(vz, (tvm_tir_expr_obj* const[]){e->condition, e->true_value, e->false_value},
                    ops, 3, &any)) {
    return NULL;
  }
  void* r = any ? tvm_tir_select_new(ops[0], ops[1], ops[2]) : tvm_tir_ref((void*)node);
  for (int k = 0; k < 3; ++k) tvm_ffi_release(ops[k]);
  return r;
}

/* Vectorized indices of an access: NULL (unsupported) when an index but the last is a vector;
 * *out_last_vec tells whether the last is. */
static void* vec_indices(vectorizer* vz, const void* indices, bool* out_last_vec) {
  int64_t n = tvm_tir_array_size(indices);
  void* items[64] = {0};
  *out_last_vec = false;
  if (n > 64) return fail(vz);
  for (int64_t k = 0; k < n; ++k) {
    items[k] = vec(vz, tvm_tir_array_at(indices, k));
    bool failed = items[k] == NULL, v = !failed && is_vec(items[k]);
    if (failed || (v && k + 1 < n)) {
      for (int64_t j = 0; j <= k; ++j) tvm_ffi_release(items[j]);
      return failed ? NULL : fail(vz);
    }
    if (k + 1 == n) *out_last_vec = v;
  }
  void* arr = tir_array(items, n);
  for (int64_t k = 0; k < n; ++k) tvm_ffi_release(items[k]);
  return arr;
}

static void* vec_load(vectorizer* vz, const void* node) {
  const tvm_tir_buffer_load_obj* e = node;
  if (e->buffer->dtype.lanes != 1) return fail(vz);
  bool last_vec;
  void* idx = vec_indices(vz, e->indices, &last_vec);
  if (!idx) return NULL;
  void* r = last_vec ? tvm_tir_buffer_load_new(e->buffer, idx) : tvm_tir_ref((void*)node);
  tvm_ffi_release(idx);
  return r;
}

/* The builtins applied lane by lane. */
static bool elementwise_op(const void* op) {
  static const tvm_tir_builtin ids[] = {
      TVM_TIR_BUILTIN_if_then_else, TVM_TIR_BUILTIN_bitwise_and, TVM_TIR_BUILTIN_bitwise_or,
      TVM_TIR_BUILTIN_bitwise_xor,  TVM_TIR_BUILTIN_bitwise_not, TVM_TIR_BUILTIN_shift_left,
      TVM_TIR_BUILTIN_shift_right,  TVM_TIR_BUILTIN_popcount,    TVM_TIR_BUILTIN_fma,
      TVM_TIR_BUILTIN_exp,          TVM_TIR_BUILTIN_exp2,        TVM_TIR_BUILTIN_exp10,
      TVM_TIR_BUILTIN_log,          TVM_TIR_BUILTIN_log2,        TVM_TIR_BUILTIN_log10,
      TVM_TIR_BUILTIN_log1p,        TVM_TIR_BUILTIN_sqrt,        TVM_TIR_BUILTIN_rsqrt,
      TVM_TIR_BUILTIN_tanh,         TVM_TIR_BUILTIN_sigmoid,     TVM_TIR_BUILTIN_erf,
      TVM_TIR_BUILTIN_floor,        TVM_TIR_BUILTIN_ceil,        TVM_TIR_BUILTIN_round,
      TVM_TIR_BUILTIN_nearbyint,    TVM_TIR_BUILTIN_trunc,       TVM_TIR_BUILTIN_fabs,
      TVM_TIR_BUILTIN_sin,          TVM_TIR_BUILTIN_cos,         TVM_TIR_BUILTIN_tan,
      TVM_TIR_BUILTIN_asin,         TVM_TIR_BUILTIN_acos,        TVM_TIR_BUILTIN_atan,
      TVM_TIR_BUILTIN_sinh,         TVM_TIR_BUILTIN_cosh,        TVM_TIR_BUILTIN_asinh,
      TVM_TIR_BUILTIN_acosh,        TVM_TIR_BUILTIN_atanh,       TVM_TIR_BUILTIN_isnan,
      TVM_TIR_BUILTIN_isinf,        TVM_TIR_BUILTIN_isfinite,    TVM_TIR_BUILTIN_pow,
      TVM_TIR_BUILTIN_fmod,         TVM_TIR_BUILTIN_atan2,       TVM_TIR_BUILTIN_copysign,
      TVM_TIR_BUILTIN_hypot,        TVM_TIR_BUILTIN_ldexp,       TVM_TIR_BUILTIN_nextafter};
  for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); ++k) {
    if (tvm_tir_is_builtin(op, ids[k])) return true;
  }
  return false;
}

static void* vec_call(vectorizer* vz, const void* node) {
  const tvm_tir_call_obj* e = node;
  int64_t n = tvm_tir_array_size(e->args);
  if (!elementwise_op(e->op) || n > 8) return fail(vz);
  tvm_tir_expr_obj* in[8];
  tvm_tir_expr_obj* out[8];
  for (int64_t k = 0; k < n; ++k) in[k] = tvm_tir_array_at(e->args, k);
  bool any;
  if (!vec_operands(vz, in, out, n, &any)) return NULL;
  void* args = any ? tir_array((void**)out, n) : NULL;
  void* r = !any ? tvm_tir_ref((void*)node)
            : args
                ? tvm_tir_call_new(tvm_tir_dtype_with_lanes(e->expr.dtype, vz->lanes), e->op, args)
                : NULL;
  tvm_ffi_release(args);
  for (int64_t k = 0; k < n; ++k) tvm_ffi_release(out[k]);
  return r;
}

/* The Var standing for `var` inside a Let body whose value became `value`: var itself, or a
 * fresh vector Var (recorded in lets). */
static tvm_tir_var_obj* let_var(vectorizer* vz, const tvm_tir_var_obj* var,
                                const tvm_tir_expr_obj* value) {
  if (!is_vec(value)) return tvm_tir_ref((void*)var);
  tvm_tir_var_obj* v = tvm_tir_var_new(tvm_tir_var_name(var), value->dtype);
  TVMFFIAny key = tvm_ffi_any_obj(var), val = tvm_ffi_any_obj(v);
  if (v && tvm_ffi_dict_set(vz->lets, &key, &val) != 0) {
    tvm_ffi_release(v);
    return NULL;
  }
  return v;
}

static void* vec_let(vectorizer* vz, const void* node) {
  const tvm_tir_let_obj* e = node;
  tvm_tir_expr_obj* value = vec(vz, e->value);
  tvm_tir_var_obj* var = value ? let_var(vz, e->var, value) : NULL;
  tvm_tir_expr_obj* body = var ? vec(vz, e->body) : NULL;
  void* r = NULL;
  if (body && value == e->value && body == e->body) {
    r = tvm_tir_ref((void*)node);
  } else if (body) {
    r = tvm_tir_let_new(var, value, body);
  }
  RELEASE2(value, var);
  tvm_ffi_release(body);
  return r;
}

/* ---- Statements ---------------------------------------------------------------------------- */
static void* vec_store(vectorizer* vz, const void* node) {
  const tvm_tir_buffer_store_obj* s = node;
  if (s->buffer->dtype.lanes != 1) return fail(vz);
  bool last_vec;
  tvm_tir_expr_obj* value = vec(vz, s->value);
  void* idx = value ? vec_indices(vz, s->indices, &last_vec) : NULL;
  void* r = NULL;
  if (idx && !last_vec) {
    fail(vz); /* every lane would store to the same element */
  } else if (idx) {
    tvm_tir_expr_obj* wide = widen(vz, value);
    r = wide ? tvm_tir_buffer_store_new(s->buffer, wide, idx) : NULL;
    tvm_ffi_release(wide);
  }
  RELEASE2(value, idx);
  return r;
}

static void* vec_seq(vectorizer* vz, const void* node) {
  const tvm_tir_seq_stmt_obj* s = node;
  int64_t n = tvm_tir_array_size(s->seq);
  void** items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
  bool ok = items != NULL;
  for (int64_t k = 0; ok && k < n; ++k)
    ok = (items[k] = vec(vz, tvm_tir_array_at(s->seq, k))) != NULL;
  void* arr = ok ? tir_array(items, n) : NULL;
  void* r = arr ? tvm_tir_seq_stmt_new(arr) : NULL;
  for (int64_t k = 0; items && k < n; ++k) tvm_ffi_release(items[k]);
  tvm_ffi_free(items);
  tvm_ffi_release(arr);
  return r;
}

static void* vec_let_stmt(vectorizer* vz, const void* node) {
  const tvm_tir_let_stmt_obj* s = node;
  tvm_tir_expr_obj* value = vec(vz, s->value);
  tvm_tir_var_obj* var = value ? let_var(vz, s->var, value) : NULL;
  tvm_tir_stmt_obj* body = var ? vec(vz, s->body) : NULL;
  void* r = body ? tvm_tir_let_stmt_new(var, value, body) : NULL;
  RELEASE2(value, var);
  tvm_ffi_release(body);
  return r;
}

static void* vec_if(vectorizer* vz, const void* node) {
  const tvm_tir_if_then_else_obj* s = node;
  tvm_tir_expr_obj* cond = vec(vz, s->condition);
  if (cond && is_vec(cond)) {
    tvm_ffi_release(cond);
    return fail(vz); /* lanes may take different branches */
  }
  tvm_tir_stmt_obj* then_case = cond ? vec(vz, s->then_case) : NULL;
  tvm_tir_stmt_obj* else_case = then_case && s->else_case ? vec(vz, s->else_case) : NULL;
  void* r = then_case && (else_case || !s->else_case)
                ? tvm_tir_if_then_else_new(cond, then_case, else_case)
                : NULL;
  RELEASE2(cond, then_case);
  tvm_ffi_release(else_case);
  return r;
}

static const vec_fn k_vec[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_Var] = vec_var,         [TVM_TIR_KIND_SizeVar] = vec_var,
    [TVM_TIR_KIND_IntImm] = vec_keep,     [TVM_TIR_KIND_FloatImm] = vec_keep,
    [TVM_TIR_KIND_StringImm] = vec_keep,  [TVM_TIR_KIND_Cast] = vec_cast,
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) [TVM_TIR_KIND_##Name] = vec_binary,
#include <tvm/tir/nodes.def>
    [TVM_TIR_KIND_Not] = vec_not,         [TVM_TIR_KIND_Select] = vec_select,
    [TVM_TIR_KIND_BufferLoad] = vec_load, [TVM_TIR_KIND_Let] = vec_let,
    [TVM_TIR_KIND_Call] = vec_call,       [TVM_TIR_KIND_BufferStore] = vec_store,
    [TVM_TIR_KIND_SeqStmt] = vec_seq,     [TVM_TIR_KIND_LetStmt] = vec_let_stmt,
    [TVM_TIR_KIND_IfThenElse] = vec_if,
};

/* The vectorized node (new reference), or NULL: with an error raised, or with vz->unsupported
 * set when the body has a form the vectorizer does not handle. */
static void* vec(vectorizer* vz, const void* node) {
  tvm_tir_kind k = tvm_tir_kind_of(node);
  if (vz->unsupported) return NULL;
  if (k < 0 || !k_vec[k]) return fail(vz);
  return k_vec[k](vz, node);
}

static void* serial(const tvm_tir_for_obj* f) {
  return tvm_tir_for_new(f->loop_var, f->min, f->extent, TVM_TIR_FOR_SERIAL, f->body,
                         f->thread_binding, f->annotations);
}

static void* vectorize(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_for_obj* f = node;
  if (f->kind != TVM_TIR_FOR_VECTORIZED) return tvm_tir_ref((void*)f);
  int64_t n;
  if (!tvm_tir_as_const_int(f->extent, &n) || n < 1 || n > TVM_TIR_INTERP_MAX_LANES ||
      tvm_tir__loop_jumps(f->body)) { /* (ill-formed: a vectorized loop is not left early) */
    return serial(f);
  }
  if (n == 1) {
    tvm_tir_subst s;
    if (tvm_tir_subst_init(&s, false) != 0) return NULL;
    void* r = tvm_tir_subst_set_var(&s, f->loop_var, f->min) == 0
                  ? tvm_tir_subst_apply(&s, f->body)
                  : NULL;
    tvm_tir_subst_free(&s);
    return r;
  }
  vectorizer vz = {0};
  vz.var = f->loop_var;
  vz.lanes = (int)n;
  vz.lets = tvm_ffi_dict_new();
  vz.ramp =
      vz.lets ? tvm_tir_ramp_take(tvm_tir_ref(f->min), tvm_tir_const(f->min->dtype, 1), (int32_t)n)
              : NULL;
  void* r = vz.ramp ? vec(&vz, f->body) : NULL;
  bool fallback = !r && vz.unsupported && !tvm_ffi_error_pending();
  RELEASE2(vz.ramp, vz.lets);
  return fallback ? serial(f) : r;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_For] = vectorize;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_vectorize_loops(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}

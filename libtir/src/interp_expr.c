/*
 * interp_expr.c: evaluation of PrimExprs (spec "Evaluating PrimExprs") through a table indexed
 * by node kind, and of builtin calls through a table indexed by builtin id (ops.def).
 *
 * Arithmetic: integers on the two's complement bits, wrapped to the width; float64 in double;
 * float32 in float; float16 and bfloat16 in float, rounded back to the type after each
 * operation (round to nearest even).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tvm-private/tir.h>

#include "interp_internal.h"

typedef int (*eval_fn)(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out);

/* ---- Messages ------------------------------------------------------------------------------- */
int tvm_tir__raise_at(const char* kind, const void* node, const char* fmt, ...) {
  tvm_ffi_strbuf b = {0};
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  if (node) {
    tvm_ffi_strbuf_puts(&b, " (in `");
    tvm_tir__text(&b, node);
    tvm_ffi_strbuf_puts(&b, "`)");
  }
  tvm_ffi_raise(kind, "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return TIR_ERROR;
}

static int check_lanes(const void* node, int lanes) {
  if (lanes >= 1 && lanes <= TVM_TIR_INTERP_MAX_LANES) return TIR_OK;
  return tvm_tir__raise_at("NotImplementedError", node,
                           "a value of %d lanes (the interpreter supports %d)", lanes,
                           TVM_TIR_INTERP_MAX_LANES);
}

/* ---- Leaves --------------------------------------------------------------------------------- */
static int eval_var(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tir_value* v = tvm_tir__lookup(in, (const tvm_tir_var_obj*)e);
  if (!v) {
    return tvm_tir__raise_at("RuntimeError", NULL, "unbound variable '%s'",
                             tvm_tir_var_name((const tvm_tir_var_obj*)e));
  }
  *out = *v;
  return TIR_OK;
}

static int eval_int_imm(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  (void)in;
  tvm_tir__value_int(out, e->dtype, ((const tvm_tir_int_imm_obj*)e)->value);
  return TIR_OK;
}

static int eval_float_imm(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  (void)in;
  out->dtype = e->dtype;
  out->lane[0].f = tvm_tir__round_float(e->dtype, ((const tvm_tir_float_imm_obj*)e)->value);
  return TIR_OK;
}

/* A handle to the string's characters; they live as long as the IR node. */
static int eval_string_imm(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  (void)in;
  out->dtype = tvm_tir_dtype_handle();
  out->lane[0].p = (void*)tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)e)->value);
  return TIR_OK;
}

/* ---- Cast, Select, Not ---------------------------------------------------------------------- */
static int eval_cast(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_cast_obj* c = (const tvm_tir_cast_obj*)e;
  tir_value v;
  TRY(tvm_tir__eval(in, c->value, &v));
  out->dtype = e->dtype;
  for (int l = 0; l < tir_lanes(&v); ++l) {
    if (tvm_tir__cast_lane(v.dtype, e->dtype, v.lane[l], &out->lane[l], "Cast") != 0)
      return TIR_ERROR;
  }
  return TIR_OK;
}

static int eval_select(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_select_obj* s = (const tvm_tir_select_obj*)e;
  tir_value c, t, f; /* not short-circuiting: all three are evaluated (spec E6 semantics) */
  TRY(tvm_tir__eval(in, s->condition, &c));
  TRY(tvm_tir__eval(in, s->true_value, &t));
  TRY(tvm_tir__eval(in, s->false_value, &f));
  *out = t;
  for (int l = 0; l < tir_lanes(&t); ++l) {
    bool pick_true = c.lane[tir_lanes(&c) == 1 ? 0 : l].i != 0;
    out->lane[l] = pick_true ? t.lane[l] : f.lane[l];
  }
  return TIR_OK;
}

static int eval_not(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  TRY(tvm_tir__eval(in, ((const tvm_tir_not_obj*)e)->a, out));
  for (int l = 0; l < tir_lanes(out); ++l) out->lane[l].i = out->lane[l].i == 0;
  return TIR_OK;
}

/* ---- Binary operators ----------------------------------------------------------------------- */
/* Integer lane functions on the two's complement values (u: the type is unsigned); the caller
 * wraps the result. Division by zero is rejected before they run. */
typedef uint64_t (*int_fn)(bool u, int64_t a, int64_t b);
static uint64_t i_add(bool u, int64_t a, int64_t b) {
  (void)u;
  return (uint64_t)a + (uint64_t)b;
}
static uint64_t i_sub(bool u, int64_t a, int64_t b) {
  (void)u;
  return (uint64_t)a - (uint64_t)b;
}
static uint64_t i_mul(bool u, int64_t a, int64_t b) {
  (void)u;
  return (uint64_t)a * (uint64_t)b;
}
static uint64_t i_div(bool u, int64_t a, int64_t b) {
  if (u) return (uint64_t)a / (uint64_t)b;
  return b == -1 ? (uint64_t)0 - (uint64_t)a : (uint64_t)(a / b); /* INT64_MIN / -1 wraps */
}
static uint64_t i_mod(bool u, int64_t a, int64_t b) {
  if (u) return (uint64_t)a % (uint64_t)b;
  return b == -1 ? 0 : (uint64_t)(a % b);
}
static uint64_t i_floordiv(bool u, int64_t a, int64_t b) {
  if (u || b == -1) return i_div(u, a, b);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return (uint64_t)q;
}
static uint64_t i_floormod(bool u, int64_t a, int64_t b) {
  if (u || b == -1) return i_mod(u, a, b);
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return (uint64_t)r;
}
static bool i_less(bool u, int64_t a, int64_t b) { return u ? (uint64_t)a < (uint64_t)b : a < b; }
static uint64_t i_min(bool u, int64_t a, int64_t b) { return (uint64_t)(i_less(u, a, b) ? a : b); }
static uint64_t i_max(bool u, int64_t a, int64_t b) { return (uint64_t)(i_less(u, b, a) ? a : b); }
static uint64_t i_eq(bool u, int64_t a, int64_t b) {
  (void)u;
  return a == b;
}
static uint64_t i_ne(bool u, int64_t a, int64_t b) {
  (void)u;
  return a != b;
}
static uint64_t i_lt(bool u, int64_t a, int64_t b) { return i_less(u, a, b); }
static uint64_t i_le(bool u, int64_t a, int64_t b) { return !i_less(u, b, a); }
static uint64_t i_gt(bool u, int64_t a, int64_t b) { return i_less(u, b, a); }
static uint64_t i_ge(bool u, int64_t a, int64_t b) { return !i_less(u, a, b); }

/* Float lane functions, once in float and once in double. Min/Max are `a < b ? a : b` and
 * `a > b ? a : b` (what upstream's code generators emit; a NaN operand yields b). */
#define TIR_FLOAT_FNS(T, S, FLOOR)                                 \
  static T S##_add(T a, T b) { return a + b; }                     \
  static T S##_sub(T a, T b) { return a - b; }                     \
  static T S##_mul(T a, T b) { return a * b; }                     \
  static T S##_div(T a, T b) { return a / b; }                     \
  static T S##_floordiv(T a, T b) { return FLOOR(a / b); }         \
  static T S##_floormod(T a, T b) { return a - FLOOR(a / b) * b; } \
  static T S##_min(T a, T b) { return a < b ? a : b; }             \
  static T S##_max(T a, T b) { return a > b ? a : b; }             \
  static T S##_eq(T a, T b) { return a == b; }                     \
  static T S##_ne(T a, T b) { return a != b; }                     \
  static T S##_lt(T a, T b) { return a < b; }                      \
  static T S##_le(T a, T b) { return a <= b; }                     \
  static T S##_gt(T a, T b) { return a > b; }                      \
  static T S##_ge(T a, T b) { return a >= b; }
TIR_FLOAT_FNS(float, f32, floorf)
TIR_FLOAT_FNS(double, f64, floor)
#undef TIR_FLOAT_FNS

typedef struct {
  int_fn i;
  float (*f32)(float, float); /* NULL: not defined on floats (Mod) */
  double (*f64)(double, double);
  bool divides; /* integer division: zero divisor is an error */
} binop_impl;

#define BINOP(Name, i, f, div) [TVM_TIR_KIND_##Name] = {i, f32_##f, f64_##f, div}
static const binop_impl k_binops[TVM_TIR_KIND_COUNT] = {
    BINOP(Add, i_add, add, false),
    BINOP(Sub, i_sub, sub, false),
    BINOP(Mul, i_mul, mul, false),
    BINOP(Div, i_div, div, true),
    [TVM_TIR_KIND_Mod] = {i_mod, NULL, NULL, true},
    BINOP(FloorDiv, i_floordiv, floordiv, true),
    BINOP(FloorMod, i_floormod, floormod, true),
    BINOP(Min, i_min, min, false),
    BINOP(Max, i_max, max, false),
    BINOP(EQ, i_eq, eq, false),
    BINOP(NE, i_ne, ne, false),
    BINOP(LT, i_lt, lt, false),
    BINOP(LE, i_le, le, false),
    BINOP(GT, i_gt, gt, false),
    BINOP(GE, i_ge, ge, false),
};
#undef BINOP

/* One lane of a binary operator on element type t; the result is of type rt. */
static int binop_lane(const binop_impl* op, const tvm_tir_expr_obj* e, DLDataType t, DLDataType rt,
                      tir_lane a, tir_lane b, tir_lane* out) {
  if (tvm_tir_dtype_is_integer(t)) {
    if (op->divides && b.i == 0) {
      return tvm_tir__raise_at("ValueError", e, "%s: integer division by zero",
                               tvm_tir_kind_name(tvm_tir_kind_of(e)));
    }
    out->i = (int64_t)op->i(tir_is_unsigned(t), a.i, b.i);
  } else if (tvm_tir_dtype_is_floating(t) && op->f64) {
    if (t.code == kDLFloat && t.bits == 64) {
      out->f = op->f64(a.f, b.f);
    } else { /* float32, and float16/bfloat16 computed in float */
      out->f = op->f32((float)a.f, (float)b.f);
    }
    if (tvm_tir_dtype_is_bool(rt)) out->i = out->f != 0;
  } else {
    return tvm_tir__raise_at("NotImplementedError", e, "%s on %s operands is not supported",
                             tvm_tir_kind_name(tvm_tir_kind_of(e)), tvm_tir_dtype_str(t).s);
  }
  *out = tvm_tir__normalize(rt, *out);
  return TIR_OK;
}

static int eval_binary(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_binary_obj* bin = (const tvm_tir_binary_obj*)e;
  tir_value a, b;
  TRY(tvm_tir__eval(in, bin->a, &a));
  TRY(tvm_tir__eval(in, bin->b, &b));
  if (tir_lanes(&a) != tir_lanes(&b)) {
    return tvm_tir__raise_at("RuntimeError", e, "operands have %d and %d lanes", tir_lanes(&a),
                             tir_lanes(&b));
  }
  const binop_impl* op = &k_binops[tvm_tir_kind_of(e)];
  DLDataType t = tvm_tir_dtype_element(a.dtype), rt = tvm_tir_dtype_element(e->dtype);
  out->dtype = e->dtype;
  for (int l = 0; l < tir_lanes(&a); ++l) {
    TRY(binop_lane(op, e, t, rt, a.lane[l], b.lane[l], &out->lane[l]));
  }
  return TIR_OK;
}

/* And / Or: short-circuiting on scalars (spec E14); vectors evaluate both sides. */
static int eval_logic(tir_interp* in, const tvm_tir_expr_obj* e, bool is_and, tir_value* out) {
  const tvm_tir_binary_obj* bin = (const tvm_tir_binary_obj*)e;
  tir_value a, b;
  TRY(tvm_tir__eval(in, bin->a, &a));
  if (tir_lanes(&a) == 1 && (a.lane[0].i != 0) != is_and) {
    *out = a; /* And with a false / Or with a true left side: b is not evaluated */
    return TIR_OK;
  }
  TRY(tvm_tir__eval(in, bin->b, &b));
  *out = a;
  for (int l = 0; l < tir_lanes(&a); ++l) {
    out->lane[l].i = is_and ? (a.lane[l].i && b.lane[l].i) : (a.lane[l].i || b.lane[l].i);
  }
  return TIR_OK;
}
static int eval_and_or(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  return eval_logic(in, e, tvm_tir_kind_of(e) == TVM_TIR_KIND_And, out);
}

/* ---- Vectors -------------------------------------------------------------------------------- */
static int eval_ramp(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_ramp_obj* r = (const tvm_tir_ramp_obj*)e;
  tir_value base, stride;
  TRY(check_lanes(e, r->lanes));
  TRY(tvm_tir__eval(in, r->base, &base));
  TRY(tvm_tir__eval(in, r->stride, &stride));
  DLDataType t = tvm_tir_dtype_element(base.dtype);
  if (!tvm_tir_dtype_is_integer(t)) {
    return tvm_tir__raise_at("NotImplementedError", e, "Ramp of %s", tvm_tir_dtype_str(t).s);
  }
  out->dtype = e->dtype;
  for (int l = 0; l < r->lanes; ++l) {
    tir_lane x = {
        .i = (int64_t)((uint64_t)base.lane[0].i + (uint64_t)l * (uint64_t)stride.lane[0].i)};
    out->lane[l] = tvm_tir__normalize(t, x);
  }
  return TIR_OK;
}

static int eval_broadcast(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_broadcast_obj* b = (const tvm_tir_broadcast_obj*)e;
  tir_value v;
  TRY(check_lanes(e, b->lanes));
  TRY(tvm_tir__eval(in, b->value, &v));
  out->dtype = e->dtype;
  for (int l = 0; l < b->lanes; ++l) out->lane[l] = v.lane[0];
  return TIR_OK;
}

static int eval_shuffle(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_shuffle_obj* s = (const tvm_tir_shuffle_obj*)e;
  tir_value all, v;
  int total = 0;
  for (int64_t k = 0; k < tvm_tir_array_size(s->vectors); ++k) {
    TRY(tvm_tir__eval(in, tvm_tir_array_at(s->vectors, k), &v));
    TRY(check_lanes(e, total + tir_lanes(&v)));
    memcpy(&all.lane[total], v.lane, sizeof(tir_lane) * (size_t)tir_lanes(&v));
    total += tir_lanes(&v);
  }
  int64_t n = tvm_tir_array_size(s->indices);
  TRY(check_lanes(e, (int)n));
  out->dtype = e->dtype;
  for (int64_t k = 0; k < n; ++k) {
    int64_t idx = 0;
    TRY(tvm_tir__eval_int(in, tvm_tir_array_at(s->indices, k), &idx));
    if (idx < 0 || idx >= total) {
      return tvm_tir__raise_at("IndexError", e, "Shuffle: index %lld out of range for %d lanes",
                               (long long)idx, total);
    }
    out->lane[k] = all.lane[idx];
  }
  return TIR_OK;
}

/* ---- Buffers, Let --------------------------------------------------------------------------- */
/* Indices of a BufferLoad/BufferStore evaluated to int64 (spec: cast to the back end's index
 * type); the last one may be a vector, whose lanes go to last[] (*last_lanes of them). */
int tvm_tir__eval_indices(tir_interp* in, const void* node, void* indices, int64_t* idx,
                          int64_t max_dims, int64_t last[], int* last_lanes) {
  int64_t n = tvm_tir_array_size(indices);
  if (n > max_dims)
    return tvm_tir__raise_at("NotImplementedError", node, "more than %lld indices",
                             (long long)max_dims);
  *last_lanes = 1;
  for (int64_t k = 0; k < n; ++k) {
    tir_value v;
    TRY(tvm_tir__eval(in, tvm_tir_array_at(indices, k), &v));
    if (!tvm_tir_dtype_is_integer(v.dtype)) {
      return tvm_tir__raise_at("TypeError", node, "index %lld is not an integer", (long long)k);
    }
    idx[k] = v.lane[0].i;
    if (k == n - 1) {
      *last_lanes = tir_lanes(&v);
      for (int l = 0; l < tir_lanes(&v); ++l) last[l] = v.lane[l].i;
    }
  }
  return TIR_OK;
}

static int eval_buffer_load(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_buffer_load_obj* ld = (const tvm_tir_buffer_load_obj*)e;
  const tvm_tir_buffer_obj* buf = ld->buffer;
  int64_t idx[TIR_MAX_DIMS], last[TVM_TIR_INTERP_MAX_LANES];
  int il;
  TRY(tvm_tir__check_storable(buf->dtype, tvm_tir_buffer_name(buf)));
  TRY(tvm_tir__eval_indices(in, e, ld->indices, idx, TIR_MAX_DIMS, last, &il));
  int64_t n = tvm_tir_array_size(ld->indices);
  int bl = buf->dtype.lanes;
  TRY(check_lanes(e, il * bl));
  out->dtype = tvm_tir_dtype_with_lanes(buf->dtype, il * bl);
  for (int j = 0; j < il; ++j) { /* element j of a vector index (spec E7 semantics, item v) */
    if (n > 0) idx[n - 1] = last[j];
    char* addr;
    TRY(tvm_tir__element_addr(in, buf, idx, n, &addr));
    tvm_tir__mem_read(buf->dtype, addr, &out->lane[j * bl]);
  }
  return TIR_OK;
}

/* tir.address_of(B[indices]): the address of one element (a handle); the element must lie in
 * live memory, as for a load. */
static int b_address_of(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  const void* a = tvm_tir_array_size(call->args) == 1 ? tvm_tir_array_at(call->args, 0) : NULL;
  if (tvm_tir_kind_of(a) != TVM_TIR_KIND_BufferLoad) {
    return tvm_tir__raise_at("TypeError", call, "tir.address_of expects a buffer element");
  }
  const tvm_tir_buffer_load_obj* ld = a;
  int64_t idx[TIR_MAX_DIMS], last[TVM_TIR_INTERP_MAX_LANES];
  int il;
  TRY(tvm_tir__eval_indices(in, a, ld->indices, idx, TIR_MAX_DIMS, last, &il));
  if (il != 1) {
    return tvm_tir__raise_at("NotImplementedError", call, "tir.address_of of a vector index");
  }
  char* addr = NULL;
  TRY(tvm_tir__element_addr(in, ld->buffer, idx, tvm_tir_array_size(ld->indices), &addr));
  out->dtype = call->expr.dtype;
  out->lane[0].p = addr;
  return TIR_OK;
}

/* tir.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, mask): the address of
 * element `offset` (in dtype's units) of data, as the code generator computes it (extent and
 * mask only describe the access). */
static int b_access_ptr(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  if (tvm_tir_array_size(call->args) != 5) {
    return tvm_tir__raise_at("TypeError", call, "tir.tvm_access_ptr takes 5 arguments");
  }
  DLDataType t = tvm_tir_expr_dtype(tvm_tir_array_at(call->args, 0));
  tir_value data, off;
  TRY(tvm_tir__eval(in, tvm_tir_array_at(call->args, 1), &data));
  TRY(tvm_tir__eval(in, tvm_tir_array_at(call->args, 2), &off));
  if (!tvm_tir_dtype_is_handle(data.dtype) || !tvm_tir_dtype_is_integer(off.dtype) ||
      tir_lanes(&off) != 1) {
    return tvm_tir__raise_at("TypeError", call,
                             "tir.tvm_access_ptr expects a handle and a scalar integer offset");
  }
  out->dtype = call->expr.dtype;
  out->lane[0].p = (char*)data.lane[0].p + off.lane[0].i * (int64_t)((t.bits * t.lanes + 7) / 8);
  return TIR_OK;
}

static int eval_let(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_let_obj* let = (const tvm_tir_let_obj*)e;
  tir_value v;
  TRY(tvm_tir__eval(in, let->value, &v));
  int64_t mark = tir_scope_mark(in);
  int rc = tvm_tir__bind(in, let->var, &v);
  if (rc == TIR_OK) rc = tvm_tir__eval(in, let->body, out);
  tir_scope_pop(in, mark);
  return rc;
}

/* ---- Builtins ------------------------------------------------------------------------------- */
typedef int (*builtin_fn)(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out);

static int64_t num_args(const tvm_tir_call_obj* call) { return tvm_tir_array_size(call->args); }
static const tvm_tir_expr_obj* arg(const tvm_tir_call_obj* call, int64_t i) {
  return tvm_tir_array_at(call->args, i);
}
static const char* op_name(const tvm_tir_call_obj* call) {
  return tvm_tir_op_name((const tvm_tir_op_obj*)call->op);
}

static int b_ret(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  TRY(tvm_tir__eval(in, arg(call, 0), &in->frame->ret));
  tvm_tir__value_void(out);
  return TIR_RETURNED;
}

/* tir.break_loop / tir.continue_loop: leave the innermost loop, or its iteration (the loop's
 * statement catches the status; well-formedness puts every one inside a loop). */
static int b_break(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  (void)in, (void)call;
  tvm_tir__value_void(out);
  return TIR_BREAK;
}
static int b_continue(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  (void)in, (void)call;
  tvm_tir__value_void(out);
  return TIR_CONTINUE;
}

/* tir.likely is the identity on its argument. */
static int b_identity(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  return tvm_tir__eval(in, arg(call, 0), out);
}

/* tir.start_profile_intrinsic / tir.end_profile_intrinsic: markers for a profiler (none on a
 * CPU); arguments not evaluated, 0 when used as an integer. */
static int b_profile_marker(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  (void)in;
  if (tvm_tir_dtype_is_integer(call->expr.dtype)) {
    tvm_tir__value_int(out, call->expr.dtype, 0);
  } else {
    tvm_tir__value_void(out);
  }
  return TIR_OK;
}

/* tir.tvm_storage_sync("shared" | "shared.dyn" | "global" | "warp"): a barrier between the GPU
 * threads of a block. Reached here, outside every thread loop, it is a no-op, exactly (the
 * loops before it have finished). Inside a thread loop, a statement holding one runs in lockstep
 * (interp_gpu.c) and never gets here; one it did not see (in a function called from a thread
 * loop) cannot be placed, and is an error rather than a silently wrong result. */
static int b_storage_sync(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  if (in->serial_threads > 0) {
    return tvm_tir__raise_at("NotImplementedError", call,
                             "%s reached where the interpreter runs GPU threads one after another "
                             "(in a function called from a thread loop, or inside an expression); "
                             "the interpreter places a barrier only as a statement of the kernel "
                             "itself",
                             op_name(call));
  }
  return b_profile_marker(in, call, out); /* 0, or void */
}

/* tir.tvm_warp_shuffle / _up / _down, tir.tvm_warp_activemask: collectives over a warp's
 * threads. A statement holding them inside a thread launch runs in lockstep (interp_gpu.c),
 * which computes their results for every thread first; here the call reads its thread's. */
static int b_warp(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  const tir_warp_results* w = in->warp;
  for (int j = 0; w && j < w->ncalls; ++j) {
    if (w->calls[j] != (const void*)call) continue;
    *out = w->results[w->ctx * w->ncalls + j];
    return TIR_OK;
  }
  return tvm_tir__raise_at("NotImplementedError", call,
                           "%s reached where the interpreter cannot run the threads of a warp "
                           "together (outside a GPU thread launch, in a function called from "
                           "one, or in a condition or loop bound evaluated per thread)",
                           op_name(call));
}

/* tir.tvm_thread_allreduce: a collective over the threads of a launch, run by interp_gpu.c as a
 * statement of a thread launch; anywhere else it cannot be placed. */
static int b_thread_allreduce(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  (void)in;
  (void)out;
  return tvm_tir__raise_at("NotImplementedError", call,
                           "tvm_thread_allreduce outside a GPU thread launch over its thread "
                           "variables (or inside an expression, or a function called from one)");
}

/* The WMMA intrinsics: whole-warp operations, run by interp_gpu.c once per warp as statements of
 * a thread launch; anywhere else the threads of a warp are not together. */
static int b_wmma(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  (void)in;
  (void)out;
  return tvm_tir__raise_at("NotImplementedError", call,
                           "%s (a tensor-core operation of a whole warp) reached outside a GPU "
                           "thread launch, inside an expression, or in a function called from a "
                           "launch, where the interpreter cannot run the threads of a warp together",
                           op_name(call));
}

/* tir.assume: information for the compiler; its argument is not evaluated (kEmbedInfo). */
static int b_assume(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  (void)in;
  if (tvm_tir_dtype_is_integer(call->expr.dtype)) {
    tvm_tir__value_int(out, call->expr.dtype, 1);
  } else {
    tvm_tir__value_void(out);
  }
  return TIR_OK;
}

/* tir.if_then_else: only the chosen side is evaluated (a vector condition evaluates both and
 * selects per lane). */
static int b_if_then_else(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  tir_value c, t, f;
  TRY(tvm_tir__eval(in, arg(call, 0), &c));
  if (tir_lanes(&c) == 1) return tvm_tir__eval(in, arg(call, tir_truthy(&c) ? 1 : 2), out);
  TRY(tvm_tir__eval(in, arg(call, 1), &t));
  TRY(tvm_tir__eval(in, arg(call, 2), &f));
  *out = t;
  for (int l = 0; l < tir_lanes(&t); ++l) out->lane[l] = c.lane[l].i ? t.lane[l] : f.lane[l];
  return TIR_OK;
}

static int b_reinterpret(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  tir_value v;
  TRY(tvm_tir__eval(in, arg(call, 0), &v));
  DLDataType to = call->expr.dtype;
  TRY(check_lanes(call, to.lanes));
  if (tvm_tir__check_storable(v.dtype, "tir.reinterpret") ||
      tvm_tir__check_storable(to, "tir.reinterpret")) {
    return TIR_ERROR;
  }
  if (tvm_tir_dtype_is_bool(v.dtype) || tvm_tir_dtype_is_bool(to) ||
      tvm_tir__elem_bytes(v.dtype) != tvm_tir__elem_bytes(to)) {
    return tvm_tir__raise_at("ValueError", call, "tir.reinterpret: %s and %s differ in size",
                             tvm_tir_dtype_str(v.dtype).s, tvm_tir_dtype_str(to).s);
  }
  char bytes[TVM_TIR_INTERP_MAX_LANES * 8];
  tvm_tir__mem_write(v.dtype, bytes, v.lane);
  out->dtype = to;
  tvm_tir__mem_read(to, bytes, out->lane);
  return TIR_OK;
}

/* Integer lane operations of the bit builtins. */
typedef int (*int_lane_fn)(const tvm_tir_call_obj* call, DLDataType t, int64_t a, int64_t b,
                           int64_t* out);
static int l_and(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  (void)c, (void)t;
  *o = a & b;
  return TIR_OK;
}
static int l_or(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  (void)c, (void)t;
  *o = a | b;
  return TIR_OK;
}
static int l_xor(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  (void)c, (void)t;
  *o = a ^ b;
  return TIR_OK;
}
static int l_not(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  (void)c, (void)t, (void)b;
  *o = ~a;
  return TIR_OK;
}
static int check_shift(const tvm_tir_call_obj* c, DLDataType t, int64_t b) {
  if (b >= 0 && b < t.bits) return TIR_OK;
  return tvm_tir__raise_at("ValueError", c, "%s: shift amount %lld is outside [0, %d)", op_name(c),
                           (long long)b, t.bits);
}
static int l_shl(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  TRY(check_shift(c, t, b));
  *o = (int64_t)((uint64_t)a << b);
  return TIR_OK;
}
/* Arithmetic shift for Int (lanes are sign-extended), logical for UInt (zero-extended). */
static int l_shr(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  TRY(check_shift(c, t, b));
  *o = tir_is_unsigned(t) ? (int64_t)((uint64_t)a >> b) : a >> b;
  return TIR_OK;
}
static uint64_t width_bits(DLDataType t, int64_t a) {
  return t.bits >= 64 ? (uint64_t)a : (uint64_t)a & (((uint64_t)1 << t.bits) - 1);
}
static int l_popcount(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  (void)c, (void)b;
  *o = __builtin_popcountll(width_bits(t, a));
  return TIR_OK;
}
/* Leading zeros within the width; clz(0) is undefined (upstream emits ctlz with
 * is_zero_undef), so it is an error here. */
static int l_clz(const tvm_tir_call_obj* c, DLDataType t, int64_t a, int64_t b, int64_t* o) {
  (void)b;
  uint64_t u = width_bits(t, a);
  if (u == 0) return tvm_tir__raise_at("ValueError", c, "tir.clz: the result for 0 is undefined");
  *o = __builtin_clzll(u) - (64 - t.bits);
  return TIR_OK;
}

static const int_lane_fn k_int_lane[TVM_TIR_BUILTIN_COUNT] = {
    [TVM_TIR_BUILTIN_bitwise_and] = l_and,   [TVM_TIR_BUILTIN_bitwise_or] = l_or,
    [TVM_TIR_BUILTIN_bitwise_xor] = l_xor,   [TVM_TIR_BUILTIN_bitwise_not] = l_not,
    [TVM_TIR_BUILTIN_shift_left] = l_shl,    [TVM_TIR_BUILTIN_shift_right] = l_shr,
    [TVM_TIR_BUILTIN_popcount] = l_popcount, [TVM_TIR_BUILTIN_clz] = l_clz,
};

/* Evaluate the 1 or 2 arguments of a builtin into a[]; all must have the dtype of the first. */
static int eval_args(tir_interp* in, const tvm_tir_call_obj* call, tir_value* a, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    TRY(tvm_tir__eval(in, arg(call, k), &a[k]));
    if (k > 0 && !tvm_tir_dtype_equal(a[k].dtype, a[0].dtype)) {
      return tvm_tir__raise_at("TypeError", call, "%s: arguments of types %s and %s", op_name(call),
                               tvm_tir_dtype_str(a[0].dtype).s, tvm_tir_dtype_str(a[k].dtype).s);
    }
  }
  return TIR_OK;
}

static int b_int_lanes(tir_interp* in, const tvm_tir_call_obj* call, int_lane_fn fn,
                       tir_value* out) {
  tir_value a[2];
  int64_t n = num_args(call);
  TRY(eval_args(in, call, a, n));
  DLDataType t = tvm_tir_dtype_element(a[0].dtype);
  if (!tvm_tir_dtype_is_integer(t)) {
    return tvm_tir__raise_at("TypeError", call, "%s: needs integer arguments, got %s",
                             op_name(call), tvm_tir_dtype_str(t).s);
  }
  DLDataType rt = tvm_tir_dtype_element(call->expr.dtype);
  out->dtype = call->expr.dtype;
  for (int l = 0; l < tir_lanes(&a[0]); ++l) {
    TRY(fn(call, t, a[0].lane[l].i, n > 1 ? a[1].lane[l].i : 0, &out->lane[l].i));
    out->lane[l] = tvm_tir__normalize(rt, out->lane[l]);
  }
  return TIR_OK;
}

/* Floating-point math: float and double versions; float16/bfloat16 use the float one and round. */
typedef struct {
  float (*f1)(float);
  double (*d1)(double);
  float (*f2)(float, float);
  double (*d2)(double, double);
} math_impl;
static float sigmoidf_(float x) { return 1.0f / (1.0f + expf(-x)); }
static double sigmoid_(double x) { return 1.0 / (1.0 + exp(-x)); }
static float rsqrtf_(float x) { return 1.0f / sqrtf(x); }
static double rsqrt_(double x) { return 1.0 / sqrt(x); }
static float exp10f_(float x) { return powf(10.0f, x); }
static double exp10_(double x) { return pow(10.0, x); }

#define M1(id, fn) [TVM_TIR_BUILTIN_##id] = {fn##f, fn, NULL, NULL}
#define M1X(id, fn) [TVM_TIR_BUILTIN_##id] = {fn##f_, fn##_, NULL, NULL}
#define M2(id, fn) [TVM_TIR_BUILTIN_##id] = {NULL, NULL, fn##f, fn}
static const math_impl k_math[TVM_TIR_BUILTIN_COUNT] = {
    M1(exp, exp),           M1(exp2, exp2),   M1X(exp10, exp10),     M1(log, log),
    M1(log2, log2),         M1(log10, log10), M1(log1p, log1p),      M1(sqrt, sqrt),
    M1X(rsqrt, rsqrt),      M1(tanh, tanh),   M1X(sigmoid, sigmoid), M1(erf, erf),
    M1(floor, floor),       M1(ceil, ceil),   M1(round, round),      M1(nearbyint, nearbyint),
    M1(trunc, trunc),       M1(fabs, fabs),   M1(sin, sin),          M1(cos, cos),
    M1(tan, tan),           M1(asin, asin),   M1(acos, acos),        M1(atan, atan),
    M1(sinh, sinh),         M1(cosh, cosh),   M1(asinh, asinh),      M1(acosh, acosh),
    M1(atanh, atanh),       M2(pow, pow),     M2(fmod, fmod),        M2(atan2, atan2),
    M2(copysign, copysign), M2(hypot, hypot),
};
#undef M1
#undef M1X
#undef M2

static int b_math(tir_interp* in, const tvm_tir_call_obj* call, const math_impl* m,
                  tir_value* out) {
  tir_value a[2];
  int64_t n = num_args(call);
  TRY(eval_args(in, call, a, n));
  DLDataType t = tvm_tir_dtype_element(a[0].dtype);
  if (!tvm_tir_dtype_is_floating(t) || !tvm_tir_dtype_equal(a[0].dtype, call->expr.dtype)) {
    return tvm_tir__raise_at(
        "TypeError", call, "%s: needs float arguments of the call's type %s, got %s", op_name(call),
        tvm_tir_dtype_str(call->expr.dtype).s, tvm_tir_dtype_str(a[0].dtype).s);
  }
  bool f64 = t.code == kDLFloat && t.bits == 64;
  out->dtype = a[0].dtype;
  for (int l = 0; l < tir_lanes(&a[0]); ++l) {
    double x = a[0].lane[l].f, y = n > 1 ? a[1].lane[l].f : 0;
    double r;
    if (m->d1) {
      r = f64 ? m->d1(x) : m->f1((float)x);
    } else {
      r = f64 ? m->d2(x, y) : m->f2((float)x, (float)y);
    }
    out->lane[l].f = tvm_tir__round_float(t, r);
  }
  return TIR_OK;
}

/* tir.isnan / isinf / isfinite: bool lanes; integers are finite numbers. */
static int b_classify(tir_interp* in, const tvm_tir_call_obj* call, int which, tir_value* out) {
  tir_value a;
  TRY(tvm_tir__eval(in, arg(call, 0), &a));
  bool fl = tvm_tir_dtype_is_floating(a.dtype);
  out->dtype = tvm_tir_dtype_with_lanes(tvm_tir_dtype_bool(), tir_lanes(&a));
  for (int l = 0; l < tir_lanes(&a); ++l) {
    double x = a.lane[l].f;
    out->lane[l].i = which == 0   ? (fl && isnan(x))
                     : which == 1 ? (fl && isinf(x))
                                  : (!fl || isfinite(x));
  }
  return TIR_OK;
}
static int b_isnan(tir_interp* in, const tvm_tir_call_obj* c, tir_value* o) {
  return b_classify(in, c, 0, o);
}
static int b_isinf(tir_interp* in, const tvm_tir_call_obj* c, tir_value* o) {
  return b_classify(in, c, 1, o);
}
static int b_isfinite(tir_interp* in, const tvm_tir_call_obj* c, tir_value* o) {
  return b_classify(in, c, 2, o);
}

/* tir.fma(a, b, c) = a * b + c with one rounding (in float for float32/16, bfloat16). */
static int b_fma(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  tir_value a[3];
  TRY(eval_args(in, call, a, 3));
  DLDataType t = tvm_tir_dtype_element(a[0].dtype);
  if (!tvm_tir_dtype_is_floating(t)) {
    return tvm_tir__raise_at("TypeError", call, "tir.fma: needs float arguments, got %s",
                             tvm_tir_dtype_str(t).s);
  }
  *out = a[0];
  for (int l = 0; l < tir_lanes(&a[0]); ++l) {
    double x = a[0].lane[l].f, y = a[1].lane[l].f, z = a[2].lane[l].f;
    double r =
        (t.code == kDLFloat && t.bits == 64) ? fma(x, y, z) : fmaf((float)x, (float)y, (float)z);
    out->lane[l].f = tvm_tir__round_float(t, r);
  }
  return TIR_OK;
}

/* tir.ldexp(x, n): x * 2^n, n an integer (or an integral float). */
static int b_ldexp(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  tir_value x, n;
  TRY(tvm_tir__eval(in, arg(call, 0), &x));
  TRY(tvm_tir__eval(in, arg(call, 1), &n));
  DLDataType t = tvm_tir_dtype_element(x.dtype);
  if (!tvm_tir_dtype_is_floating(t) || tir_lanes(&n) != tir_lanes(&x)) {
    return tvm_tir__raise_at("TypeError", call,
                             "tir.ldexp: needs a float and an exponent of its lanes");
  }
  *out = x;
  for (int l = 0; l < tir_lanes(&x); ++l) {
    double e = tvm_tir__lane_as_double(n.dtype, n.lane[l]);
    int ei = e > 100000 ? 100000 : e < -100000 ? -100000 : (int)e;
    double r = (t.code == kDLFloat && t.bits == 64) ? ldexp(x.lane[l].f, ei)
                                                    : ldexpf((float)x.lane[l].f, ei);
    out->lane[l].f = tvm_tir__round_float(t, r);
  }
  return TIR_OK;
}

static int b_large_uint_imm(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  int64_t lo, hi;
  TRY(tvm_tir__eval_int(in, arg(call, 0), &lo));
  TRY(tvm_tir__eval_int(in, arg(call, 1), &hi));
  tvm_tir__value_int(out, call->expr.dtype,
                     (int64_t)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo));
  return TIR_OK;
}

static int b_vector_half(tir_interp* in, const tvm_tir_call_obj* call, bool high, tir_value* out) {
  tir_value v;
  TRY(tvm_tir__eval(in, arg(call, 0), &v));
  int half = tir_lanes(&v) / 2;
  out->dtype = tvm_tir_dtype_with_lanes(v.dtype, half);
  memcpy(out->lane, &v.lane[high ? tir_lanes(&v) - half : 0], sizeof(tir_lane) * (size_t)half);
  return TIR_OK;
}
static int b_vectorlow(tir_interp* in, const tvm_tir_call_obj* c, tir_value* o) {
  return b_vector_half(in, c, false, o);
}
static int b_vectorhigh(tir_interp* in, const tvm_tir_call_obj* c, tir_value* o) {
  return b_vector_half(in, c, true, o);
}

static int b_vectorcombine(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  tir_value a, b;
  TRY(tvm_tir__eval(in, arg(call, 0), &a));
  TRY(tvm_tir__eval(in, arg(call, 1), &b));
  TRY(check_lanes(call, tir_lanes(&a) + tir_lanes(&b)));
  *out = a;
  out->dtype = tvm_tir_dtype_with_lanes(a.dtype, tir_lanes(&a) + tir_lanes(&b));
  memcpy(&out->lane[tir_lanes(&a)], b.lane, sizeof(tir_lane) * (size_t)tir_lanes(&b));
  return TIR_OK;
}

static int b_isnullptr(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  tir_value v;
  TRY(tvm_tir__eval(in, arg(call, 0), &v));
  tvm_tir__value_int(out, tvm_tir_dtype_bool(), v.lane[0].p == NULL);
  return TIR_OK;
}

/* tir.tvm_struct_get(handle, index, kind) / tir.tvm_struct_set(handle, index, kind, value): a
 * field of the index-th DLTensor / TVMFFIAny / int64 of the array at handle (tvm-private/tir.h),
 * read or written where it lies in live memory (a DLTensor a caller passed for a handle
 * parameter is, with its shape, strides and data: interp_call.c). */
static int struct_field_at(tir_interp* in, const tvm_tir_call_obj* call, bool set,
                           const tvm_tir_struct_field** out_f, char** out_addr, tir_value* value) {
  const char* op = op_name(call);
  if (num_args(call) != (set ? 4 : 3))
    return tvm_tir__raise_at("TypeError", call, "%s takes %d arguments", op, set ? 4 : 3);
  int64_t kind;
  if (!tvm_tir_as_const_int(arg(call, 2), &kind))
    return tvm_tir__raise_at("TypeError", call, "%s: the field kind must be a constant", op);
  const tvm_tir_struct_field* f = tvm_tir__struct_field(kind);
  if (!f) return tvm_tir__raise_at("ValueError", call, "%s: no field kind %lld", op, (long long)kind);
  tir_value h, idx;
  TRY(tvm_tir__eval(in, arg(call, 0), &h));
  TRY(tvm_tir__eval(in, arg(call, 1), &idx));
  if (set) TRY(tvm_tir__eval(in, arg(call, 3), value));
  DLDataType vt = set ? value->dtype : call->expr.dtype;
  if (!tvm_tir_dtype_is_handle(h.dtype) || !tvm_tir_dtype_is_integer(idx.dtype) ||
      idx.dtype.lanes != 1) {
    return tvm_tir__raise_at("TypeError", call, "%s expects a handle and an integer index", op);
  }
  if (kind == TVM_TIR_STRUCT_ADDR ? set || !tvm_tir_dtype_is_handle(vt)
                                  : !tvm_tir__struct_field_accepts(f, vt)) {
    return tvm_tir__raise_at("TypeError", call, "%s: field %s is %s; it cannot be %s as %s", op,
                             f->name, tvm_tir__struct_field_type_text(f),
                             set ? "written" : "read", tvm_tir_dtype_str(vt).s);
  }
  int64_t off;
  if (__builtin_mul_overflow(idx.lane[0].i, (int64_t)f->stride, &off) ||
      __builtin_add_overflow(off, (int64_t)f->offset, &off) || !h.lane[0].p) {
    return tvm_tir__raise_at("IndexError", call, "%s: element %lld of a null or invalid handle", op,
                             (long long)idx.lane[0].i);
  }
  char* addr = (char*)h.lane[0].p + off;
  DLDataType ft = f->dtype.lanes == 0 ? vt : f->dtype;
  int64_t bytes = kind == TVM_TIR_STRUCT_ADDR ? 0 : (ft.bits + 7) / 8;
  if (kind != TVM_TIR_STRUCT_ADDR && !tvm_tir__in_live_region(in, addr, bytes)) {
    return tvm_tir__raise_at("IndexError", call,
                             "%s: field %s of element %lld is outside every live allocation", op,
                             f->name, (long long)idx.lane[0].i);
  }
  *out_f = f;
  *out_addr = addr;
  return TIR_OK;
}

static int b_struct_get(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  const tvm_tir_struct_field* f = NULL;
  char* addr = NULL;
  TRY(struct_field_at(in, call, false, &f, &addr, NULL));
  DLDataType t = call->expr.dtype;
  out->dtype = t;
  if (f == tvm_tir__struct_field(TVM_TIR_STRUCT_ADDR)) {
    out->lane[0].p = addr;
    return TIR_OK;
  }
  tir_lane v;
  tvm_tir__mem_read(f->dtype.lanes == 0 ? t : f->dtype, addr, &v);
  if (tvm_tir_dtype_is_integer(t))
    tvm_tir__value_int(out, t, v.i);
  else
    out->lane[0] = v;
  return TIR_OK;
}

static int b_struct_set(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  const tvm_tir_struct_field* f = NULL;
  char* addr = NULL;
  tir_value v;
  TRY(struct_field_at(in, call, true, &f, &addr, &v));
  DLDataType ft = f->dtype.lanes == 0 ? v.dtype : f->dtype;
  tir_lane w = v.lane[0];
  if (tvm_tir_dtype_is_integer(ft)) {
    tir_value n;
    tvm_tir__value_int(&n, ft, v.lane[0].i); /* wrapped to the field's width */
    w = n.lane[0];
  }
  tvm_tir__mem_write(ft, addr, &w);
  tvm_tir__value_int(out, tvm_tir_dtype_is_integer(call->expr.dtype) ? call->expr.dtype
                                                                      : tvm_tir_dtype_int(32),
                     0);
  return TIR_OK;
}

/* Evaluate the call's arguments from index `first` on, left to right, then call the module's
 * PrimFunc `name` (spec E11 item ii). */
static int call_module_func(tir_interp* in, const tvm_tir_call_obj* call, const char* name,
                            int64_t first, tir_value* out) {
  int64_t n = num_args(call) - first;
  tir_value* args = tvm_ffi_calloc((size_t)(n > 0 ? n : 1), sizeof(tir_value));
  if (!args) return TIR_ERROR;
  int rc = TIR_OK;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) rc = tvm_tir__eval(in, arg(call, first + k), &args[k]);
  if (rc == TIR_OK) rc = tvm_tir__call_global(in, name, args, n, out);
  tvm_ffi_free(args);
  return rc;
}

/* No external function is linked into the interpreter: a call_extern runs the module's PrimFunc
 * of that name (a helper defined next to its caller), and any other name is unknown. */
static int b_extern(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  const char* name = "?";
  if (num_args(call) > 0 && tvm_tir_kind_of(arg(call, 0)) == TVM_TIR_KIND_StringImm) {
    name = tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)arg(call, 0))->value);
  }
  if (tvm_tir__has_module_func(in, name)) return call_module_func(in, call, name, 1, out);
  return tvm_tir__raise_at("RuntimeError", call, "%s: unknown external function '%s'",
                           op_name(call), name);
}

static const builtin_fn k_builtins[TVM_TIR_BUILTIN_COUNT] = {
    [TVM_TIR_BUILTIN_ret] = b_ret,
    [TVM_TIR_BUILTIN_break_loop] = b_break,
    [TVM_TIR_BUILTIN_continue_loop] = b_continue,
    [TVM_TIR_BUILTIN_likely] = b_identity,
    [TVM_TIR_BUILTIN_tvm_thread_invariant] = b_identity,
    [TVM_TIR_BUILTIN_assume] = b_assume,
    [TVM_TIR_BUILTIN_address_of] = b_address_of,
    [TVM_TIR_BUILTIN_tvm_access_ptr] = b_access_ptr,
    [TVM_TIR_BUILTIN_start_profile_intrinsic] = b_profile_marker,
    [TVM_TIR_BUILTIN_end_profile_intrinsic] = b_profile_marker,
    [TVM_TIR_BUILTIN_tvm_storage_sync] = b_storage_sync,
    [TVM_TIR_BUILTIN_tvm_warp_shuffle] = b_warp,
    [TVM_TIR_BUILTIN_tvm_warp_shuffle_up] = b_warp,
    [TVM_TIR_BUILTIN_tvm_warp_shuffle_down] = b_warp,
    [TVM_TIR_BUILTIN_tvm_warp_activemask] = b_warp,
    [TVM_TIR_BUILTIN_tvm_thread_allreduce] = b_thread_allreduce,
    [TVM_TIR_BUILTIN_tvm_fill_fragment] = b_wmma,
    [TVM_TIR_BUILTIN_tvm_load_matrix_sync] = b_wmma,
    [TVM_TIR_BUILTIN_tvm_store_matrix_sync] = b_wmma,
    [TVM_TIR_BUILTIN_tvm_mma_sync] = b_wmma,
    [TVM_TIR_BUILTIN_tvm_bmma_sync] = b_wmma,
    [TVM_TIR_BUILTIN_if_then_else] = b_if_then_else,
    [TVM_TIR_BUILTIN_reinterpret] = b_reinterpret,
    [TVM_TIR_BUILTIN_large_uint_imm] = b_large_uint_imm,
    [TVM_TIR_BUILTIN_fma] = b_fma,
    [TVM_TIR_BUILTIN_ldexp] = b_ldexp,
    [TVM_TIR_BUILTIN_isnan] = b_isnan,
    [TVM_TIR_BUILTIN_isinf] = b_isinf,
    [TVM_TIR_BUILTIN_isfinite] = b_isfinite,
    [TVM_TIR_BUILTIN_vectorlow] = b_vectorlow,
    [TVM_TIR_BUILTIN_vectorhigh] = b_vectorhigh,
    [TVM_TIR_BUILTIN_vectorcombine] = b_vectorcombine,
    [TVM_TIR_BUILTIN_isnullptr] = b_isnullptr,
    [TVM_TIR_BUILTIN_tvm_struct_get] = b_struct_get,
    [TVM_TIR_BUILTIN_tvm_struct_set] = b_struct_set,
    [TVM_TIR_BUILTIN_call_extern] = b_extern,
    [TVM_TIR_BUILTIN_call_pure_extern] = b_extern,
    [TVM_TIR_BUILTIN_call_llvm_intrin] = b_extern,
    [TVM_TIR_BUILTIN_call_llvm_pure_intrin] = b_extern,
};

static int eval_builtin(tir_interp* in, const tvm_tir_call_obj* call, tir_value* out) {
  int id = tvm_tir_builtin_of(call->op);
  if (id >= 0 && k_builtins[id]) return k_builtins[id](in, call, out);
  if (id >= 0 && k_int_lane[id]) return b_int_lanes(in, call, k_int_lane[id], out);
  if (id >= 0 && (k_math[id].d1 || k_math[id].d2)) return b_math(in, call, &k_math[id], out);
  return tvm_tir__raise_at("NotImplementedError", call,
                           "builtin %s is not supported by the interpreter", op_name(call));
}

static int eval_call(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  const tvm_tir_call_obj* call = (const tvm_tir_call_obj*)e;
  if (tvm_tir_kind_of(call->op) == TVM_TIR_KIND_Op) return eval_builtin(in, call, out);
  /* A PrimFunc of the module. */
  return call_module_func(in, call, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)call->op)->name_hint),
                          0, out);
}

/* ---- Dispatch ------------------------------------------------------------------------------- */
static const eval_fn k_eval[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_Var] = eval_var,
    [TVM_TIR_KIND_SizeVar] = eval_var,
    [TVM_TIR_KIND_IntImm] = eval_int_imm,
    [TVM_TIR_KIND_FloatImm] = eval_float_imm,
    [TVM_TIR_KIND_StringImm] = eval_string_imm,
    [TVM_TIR_KIND_Cast] = eval_cast,
#define EVAL_ARITH eval_binary
#define EVAL_CMP eval_binary
#define EVAL_LOGIC eval_and_or
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) [TVM_TIR_KIND_##Name] = EVAL_##klass,
#include <tvm/tir/nodes.def>
    [TVM_TIR_KIND_Not] = eval_not,
    [TVM_TIR_KIND_Select] = eval_select,
    [TVM_TIR_KIND_BufferLoad] = eval_buffer_load,
    [TVM_TIR_KIND_Ramp] = eval_ramp,
    [TVM_TIR_KIND_Broadcast] = eval_broadcast,
    [TVM_TIR_KIND_Let] = eval_let,
    [TVM_TIR_KIND_Call] = eval_call,
    [TVM_TIR_KIND_Shuffle] = eval_shuffle,
};

bool tvm_tir__interp_expr_rule(tvm_tir_kind kind) {
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT && k_eval[kind] != NULL;
}

int tvm_tir__eval(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out) {
  tvm_tir_kind kind = tvm_tir_kind_of(e);
  eval_fn fn = kind >= 0 ? k_eval[kind] : NULL;
  if (!fn) {
    return tvm_tir__raise_at(
        "NotImplementedError", NULL, "cannot evaluate a %s",
        e ? (kind >= 0 ? tvm_tir_kind_name(kind) : tvm_ffi_type_key(tvm_ffi_type_index(e)))
          : "missing (NULL) expression");
  }
  TRY(check_lanes(e, e->dtype.lanes ? e->dtype.lanes : 1));
  return fn(in, e, out);
}

int tvm_tir__eval_int(tir_interp* in, const tvm_tir_expr_obj* e, int64_t* out) {
  tir_value v;
  TRY(tvm_tir__eval(in, e, &v));
  if (!tvm_tir_dtype_is_integer(v.dtype) || tir_lanes(&v) != 1) {
    return tvm_tir__raise_at("TypeError", e, "expected an integer scalar, got %s",
                             tvm_tir_dtype_str(v.dtype).s);
  }
  *out = v.lane[0].i;
  return TIR_OK;
}

/*
 * expr.c: PrimExpr constructors and the typing rules of spec section "Rules for Assigning
 * Datatypes to PrimExprs" (rule names in rules.def, decisions in docs/tir-decisions.md).
 */
#include <math.h>
#include <stdio.h>

#include "internal.h"

/* A required PrimExpr argument: NULL and non-expressions are rejected. */
static bool bad_expr(const void* e, const char* node, const char* field) {
  if (!e) {
    tvm_tir__null_arg(node, field);
    return true;
  }
  return tvm_tir__check_kind(e, TVM_TIR_KIND_PrimExpr, node, field) != 0;
}

#define DT(e) (((const tvm_tir_expr_obj*)(e))->dtype)

/* ---- Var ----------------------------------------------------------------------------------- */
/* The name hint of a Var: name_str (an ffi.String, shared: strings are immutable values) when
 * given, else a new String of name. New reference, or NULL with an error. */
static void* name_of(const char* name, void* name_str) {
  if (!name_str) return tvm_tir__str(name);
  if (tvm_ffi_type_index(name_str) != kTVMFFIStr) {
    tvm_ffi_raise("TypeError", "Var: name_hint must be an ffi.String, got %s",
                  tvm_ffi_type_key(tvm_ffi_type_index(name_str)));
    return NULL;
  }
  tvm_ffi_retain(name_str);
  return name_str;
}

/* Takes the reference to annotation. The name is name_str when given, else the text name. */
static tvm_tir_var_obj* var_make(tvm_tir_kind kind, const char* name, void* name_str,
                                 DLDataType dtype, tvm_tir_type_obj* annotation) {
  void* str = annotation ? name_of(name, name_str) : NULL;
  tvm_tir_var_obj* v =
      str ? (tvm_tir_var_obj*)tvm_tir__new_expr(kind, sizeof(tvm_tir_var_obj), dtype) : NULL;
  if (!v) {
    tvm_ffi_release(annotation);
    tvm_ffi_release(str);
    return NULL;
  }
  v->name_hint = str;
  v->type_annotation = annotation;
  return v;
}

static tvm_tir_type_obj* annotation_of(DLDataType dtype) {
  if (tvm_tir_dtype_is_void(dtype)) return (tvm_tir_type_obj*)tvm_tir_tuple_type_new(NULL);
  return (tvm_tir_type_obj*)tvm_tir_prim_type_new(dtype);
}

tvm_tir_var_obj* tvm_tir_var_new(const char* name_hint, DLDataType dtype) {
  return var_make(TVM_TIR_KIND_Var, name_hint, NULL, dtype, annotation_of(dtype));
}

tvm_tir_var_obj* tvm_tir_var_new_str(void* name_hint, DLDataType dtype) {
  if (!name_hint) return tvm_tir__null_arg("Var", "name_hint");
  return var_make(TVM_TIR_KIND_Var, NULL, name_hint, dtype, annotation_of(dtype));
}

tvm_tir_var_obj* tvm_tir_size_var_new(const char* name_hint, DLDataType dtype) {
  return var_make(TVM_TIR_KIND_SizeVar, name_hint, NULL, dtype, annotation_of(dtype));
}

static tvm_tir_var_obj* var_new_typed(const char* name_hint, void* name_str,
                                      tvm_tir_type_obj* type_annotation);

tvm_tir_var_obj* tvm_tir_var_new_typed(const char* name_hint, tvm_tir_type_obj* type_annotation) {
  return var_new_typed(name_hint, NULL, type_annotation);
}

tvm_tir_var_obj* tvm_tir_var_new_typed_str(void* name_hint, tvm_tir_type_obj* type_annotation) {
  if (!name_hint) return tvm_tir__null_arg("Var", "name_hint");
  return var_new_typed(NULL, name_hint, type_annotation);
}

static tvm_tir_var_obj* var_new_typed(const char* name_hint, void* name_str,
                                      tvm_tir_type_obj* type_annotation) {
  if (!type_annotation) return tvm_tir__null_arg("Var", "type_annotation");
  DLDataType dtype;
  if (TIR_IS(type_annotation, PrimType)) {
    dtype = ((tvm_tir_prim_type_obj*)type_annotation)->dtype;
  } else if (TIR_IS(type_annotation, PointerType)) {
    dtype = tvm_tir_dtype_handle();
  } else if (tvm_tir_type_is_void(type_annotation)) {
    dtype = tvm_tir_dtype_void();
  } else {
    return tvm_tir__type_error(TVM_TIR_RULE_T_VAR, "Var",
                               "type_annotation must be a PrimType, a PointerType or TupleType([])",
                               "type_annotation", type_annotation, NULL);
  }
  tvm_ffi_retain(type_annotation);
  return var_make(TVM_TIR_KIND_Var, name_hint, name_str, dtype, type_annotation);
}

/* ---- Constants ----------------------------------------------------------------------------- */
/* An IntImm whose dtype and value are known valid. */
static tvm_tir_expr_obj* int_imm_make(DLDataType dtype, int64_t value) {
  tvm_tir_int_imm_obj* e = TIR_NEW_EXPR(tvm_tir_int_imm_obj, IntImm, dtype);
  if (!e) return NULL;
  e->value = value;
  return &e->expr;
}

static __attribute__((noinline)) tvm_tir_expr_obj* int_imm_checked(DLDataType dtype,
                                                                   int64_t value);

/* The small IntImms of int32, int64 and bool are shared by the whole process
 * (tvm_tir__shared_get): loop bounds, extents, indices and predicates are nearly all such
 * constants, and a small program makes ~14 of them, each an allocation and a release saved. */
enum { SMALL_INT_LO = -1, SMALL_INT_HI = 255, SMALL_INTS = SMALL_INT_HI - SMALL_INT_LO + 1 };
static void* g_small_int[2][SMALL_INTS]; /* [bits == 64][value - SMALL_INT_LO] */
static void* g_bool_imm[2];

static inline tvm_tir_expr_obj* shared_int(void** slot, DLDataType dtype, int64_t value) {
  void* e = tvm_tir__shared_get(slot);
  return e ? e : tvm_tir__shared_publish(slot, int_imm_make(dtype, value));
}

tvm_tir_expr_obj* tvm_tir_int_imm_new(DLDataType dtype, int64_t value) {
  /* The common constants first: int32 (in range) and int64 (always in range). */
  if (dtype.code == kDLInt && dtype.lanes == 1 &&
      (dtype.bits == 64 || (dtype.bits == 32 && value == (int32_t)value))) {
    if ((uint64_t)value - (uint64_t)SMALL_INT_LO < SMALL_INTS) { /* (unsigned: no overflow) */
      return shared_int(&g_small_int[dtype.bits == 64][value - SMALL_INT_LO], dtype, value);
    }
    return int_imm_make(dtype, value);
  }
  if (dtype.code == kDLUInt && dtype.bits == 1 && dtype.lanes == 1 && (value == 0 || value == 1)) {
    return shared_int(&g_bool_imm[value], dtype, value);
  }
  return int_imm_checked(dtype, value);
}

static tvm_tir_expr_obj* int_imm_checked(DLDataType dtype, int64_t value) {
  char what[160];
  if (!tvm_tir_dtype_is_integer(dtype) || dtype.lanes != 1) {
    snprintf(what, sizeof(what), "dtype must be a scalar Int or UInt, got %s",
             tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_INTIMM, "IntImm", what, NULL);
  }
  if (tvm_tir__dtype_too_wide(dtype)) {
    return tvm_tir__too_wide_error(TVM_TIR_RULE_T_INTIMM, "IntImm", dtype);
  }
  if (!tvm_tir_dtype_int_fits(dtype, value)) {
    snprintf(what, sizeof(what), "value %lld is out of the range [%lld, %lld] of %s",
             (long long)value, (long long)tvm_tir_dtype_min_int(dtype),
             (long long)tvm_tir_dtype_max_int(dtype), tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_INTIMM, "IntImm", what, NULL);
  }
  return int_imm_make(dtype, value);
}

/* Largest finite value of a Float/BFloat type, or 0 for an unsupported width. */
static double float_max(DLDataType t) {
  if (t.code == kDLBfloat) return t.bits == 16 ? 3.38953138925153547590470800371487866880e38 : 0;
  switch (t.bits) {
    case 16:
      return 65504.0;
    case 32:
      return 3.40282346638528859811704183484516925440e38;
    case 64:
      return 1.79769313486231570814527423731704356798e308;
    default:
      return 0;
  }
}

tvm_tir_expr_obj* tvm_tir_float_imm_new(DLDataType dtype, double value) {
  char what[160];
  double maxv = tvm_tir_dtype_is_floating(dtype) && dtype.lanes == 1 ? float_max(dtype) : 0;
  if (maxv == 0) {
    snprintf(what, sizeof(what),
             "dtype must be a scalar float16, float32, float64 or bfloat16, got %s",
             tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_FLOATIMM, "FloatImm", what, NULL);
  }
  if (isfinite(value) && fabs(value) > maxv) {
    snprintf(what, sizeof(what), "value %.17g is out of the range [-%.9g, %.9g] of %s", value, maxv,
             maxv, tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_FLOATIMM, "FloatImm", what, NULL);
  }
  tvm_tir_float_imm_obj* e = TIR_NEW_EXPR(tvm_tir_float_imm_obj, FloatImm, dtype);
  if (!e) return NULL;
  e->value = value;
  return &e->expr;
}

tvm_tir_expr_obj* tvm_tir_string_imm_new(const char* value, size_t len) {
  if (!value && len) {
    tvm_ffi_raise("ValueError", "StringImm: NULL value with length %zu", len);
    return NULL;
  }
  void* s = len ? tvm_ffi_str_obj(value, len) : tvm_tir__str("");
  tvm_tir_string_imm_obj* e = s ? TIR_NEW(tvm_tir_string_imm_obj, StringImm) : NULL;
  if (!e) {
    tvm_ffi_release(s);
    return NULL;
  }
  e->expr.dtype = tvm_tir_dtype_handle();
  e->value = s;
  return &e->expr;
}

bool tvm_tir_as_const_int(const void* expr, int64_t* out) {
  if (!TIR_IS(expr, IntImm)) return false;
  *out = ((const tvm_tir_int_imm_obj*)expr)->value;
  return true;
}

bool tvm_tir_as_const_float(const void* expr, double* out) {
  if (TIR_IS(expr, FloatImm)) {
    *out = ((const tvm_tir_float_imm_obj*)expr)->value;
    return true;
  }
  if (TIR_IS(expr, IntImm)) {
    *out = (double)((const tvm_tir_int_imm_obj*)expr)->value;
    return true;
  }
  return false;
}

/* ---- Cast ---------------------------------------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_cast_new(DLDataType dtype, tvm_tir_expr_obj* value) {
  if (bad_expr(value, "Cast", "value")) return NULL;
  DLDataType from = DT(value);
  char what[160];
  if (from.lanes != dtype.lanes) {
    snprintf(what, sizeof(what), "cannot cast %s to %s: the number of lanes must match",
             tvm_tir_dtype_str(from).s, tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_CAST, "Cast", what, "value", value, NULL);
  }
  if (tvm_tir_dtype_is_handle_code(from) && !tvm_tir_dtype_is_handle_code(dtype)) {
    snprintf(what, sizeof(what), "a handle cannot be cast to %s", tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_CAST, "Cast", what, "value", value, NULL);
  }
  if (tvm_tir__dtype_too_wide(dtype)) {
    return tvm_tir__too_wide_error(TVM_TIR_RULE_T_CAST, "Cast", dtype);
  }
  if (tvm_tir_dtype_is_handle_code(dtype) && !tvm_tir_dtype_is_integer(from) &&
      !tvm_tir_dtype_is_handle_code(from)) {
    snprintf(what, sizeof(what), "only Int, UInt and handle values can be cast to %s",
             tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_CAST, "Cast", what, "value", value, NULL);
  }
  tvm_tir_cast_obj* e = TIR_NEW(tvm_tir_cast_obj, Cast);
  if (!e) return NULL;
  e->expr.dtype = dtype;
  e->value = tir_expr_retain(value);
  return &e->expr;
}

/* ---- Binary operators ---------------------------------------------------------------------- */
const unsigned char tvm_tir__binop_class[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) [TVM_TIR_KIND_##Name] = klass,
#include <tvm/tir/nodes.def>
};

tvm_tir_expr_obj* tvm_tir_binary_new(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  if (kind < 0 || kind >= TVM_TIR_KIND_COUNT || tvm_tir__binop_class[kind] == TIR_NOT_BINOP) {
    tvm_ffi_raise("ValueError", "tvm_tir_binary_new: %s is not a binary operator",
                  tvm_tir_kind_name(kind));
    return NULL;
  }
  const char* node = tvm_tir_kind_name(kind);
  if (bad_expr(a, node, "a") || bad_expr(b, node, "b")) return NULL;
  DLDataType ta = DT(a), tb = DT(b), result = ta;
  switch (tvm_tir__binop_class[kind]) {
    case ARITH:
    case CMP: {
      tvm_tir_rule rule =
          tvm_tir__binop_class[kind] == ARITH ? TVM_TIR_RULE_T_BINOP : TVM_TIR_RULE_T_CMP;
      if (tvm_tir_dtype_is_handle_code(ta) || tvm_tir_dtype_is_handle_code(tb)) {
        return tvm_tir__type_error(rule, node, "operands must not be handles", "a", a, "b", b,
                                   NULL);
      }
      if (!tvm_tir_dtype_equal(ta, tb)) {
        return tvm_tir__type_error(rule, node, "operands must have the same dtype", "a", a, "b", b,
                                   NULL);
      }
      if (kind == TVM_TIR_KIND_Mod && !tvm_tir_dtype_is_integer(ta)) {
        return tvm_tir__type_error(rule, node, "operands of Mod must be Int or UInt", "a", a, "b",
                                   b, NULL);
      }
      if (rule == TVM_TIR_RULE_T_CMP) result = tvm_ffi_dtype(kDLUInt, 1, ta.lanes);
      break;
    }
    default: /* LOGIC */
      if (!tvm_tir_dtype_is_bool(ta) || !tvm_tir_dtype_is_bool(tb) || ta.lanes != tb.lanes) {
        return tvm_tir__type_error(TVM_TIR_RULE_T_LOGIC, node,
                                   "operands must be bool with the same number of lanes", "a", a,
                                   "b", b, NULL);
      }
      break;
  }
  tvm_tir_binary_obj* e = (tvm_tir_binary_obj*)tvm_tir__new(kind, sizeof(tvm_tir_binary_obj));
  if (!e) return NULL;
  e->expr.dtype = result;
  e->a = tir_expr_retain(a);
  e->b = tir_expr_retain(b);
  return &e->expr;
}

tvm_tir_expr_obj* tvm_tir__binary_take(tvm_tir_kind kind, tvm_tir_expr_obj* a,
                                       tvm_tir_expr_obj* b) {
  DLDataType t = DT(a);
  /* The one check of tvm_tir_binary_new that the caller's guarantees leave open: raised by it,
   * so that the error is its own. */
  if (kind == TVM_TIR_KIND_Mod && !tvm_tir_dtype_is_integer(t)) {
    tvm_tir_expr_obj* r = tvm_tir_binary_new(kind, a, b);
    tvm_ffi_release(a);
    tvm_ffi_release(b);
    return r;
  }
  tvm_tir_binary_obj* e = (tvm_tir_binary_obj*)tvm_tir__new_expr(
      kind, sizeof(tvm_tir_binary_obj),
      tvm_tir__binop_class[kind] == CMP ? tvm_ffi_dtype(kDLUInt, 1, t.lanes) : t);
  if (!e) {
    tvm_ffi_release(a);
    tvm_ffi_release(b);
    return NULL;
  }
  e->a = a;
  e->b = b;
  return &e->expr;
}

tvm_tir_expr_obj* tvm_tir_not_new(tvm_tir_expr_obj* a) {
  if (bad_expr(a, "Not", "a")) return NULL;
  if (!tvm_tir_dtype_is_bool(DT(a))) {
    return tvm_tir__type_error(TVM_TIR_RULE_T_NOT, "Not", "the operand must be bool", "a", a, NULL);
  }
  tvm_tir_not_obj* e = TIR_NEW(tvm_tir_not_obj, Not);
  if (!e) return NULL;
  e->expr.dtype = DT(a);
  e->a = tir_expr_retain(a);
  return &e->expr;
}

/* ---- Select -------------------------------------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_select_new(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* true_value,
                                     tvm_tir_expr_obj* false_value) {
  if (bad_expr(condition, "Select", "condition") || bad_expr(true_value, "Select", "true_value") ||
      bad_expr(false_value, "Select", "false_value")) {
    return NULL;
  }
  DLDataType tc = DT(condition), tt = DT(true_value);
  const char* why = NULL;
  if (!tvm_tir_dtype_is_bool(tc)) {
    why = "the condition must be bool";
  } else if (!tvm_tir_dtype_equal(tt, DT(false_value))) {
    why = "true_value and false_value must have the same dtype";
  } else if (tc.lanes != 1 && tc.lanes != tt.lanes) {
    why = "the condition must be scalar or have as many lanes as the values";
  }
  if (why) {
    return tvm_tir__type_error(TVM_TIR_RULE_T_SELECT, "Select", why, "condition", condition,
                               "true_value", true_value, "false_value", false_value, NULL);
  }
  tvm_tir_select_obj* e = TIR_NEW(tvm_tir_select_obj, Select);
  if (!e) return NULL;
  e->expr.dtype = tt;
  e->condition = tir_expr_retain(condition);
  e->true_value = tir_expr_retain(true_value);
  e->false_value = tir_expr_retain(false_value);
  return &e->expr;
}

/* ---- BufferLoad ---------------------------------------------------------------------------- */
/* tvm_tir__check_indices past the buffer's checks and the array's: the indices items[0, n)
 * (PrimExprs) against the buffer. */
static __attribute__((noinline)) int index_count_error(tvm_tir_rule rule, const char* node,
                                                       tvm_tir_buffer_obj* buffer, int64_t ndim,
                                                       int64_t n) {
  char what[200];
  snprintf(what, sizeof(what), "buffer %s has %lld dimensions but %lld indices are given",
           tvm_tir_buffer_name(buffer), (long long)ndim, (long long)n);
  tvm_tir__type_error(rule, node, what, "buffer", buffer, NULL);
  return -1;
}
static __attribute__((noinline)) int index_item_error(tvm_tir_rule rule, const char* node,
                                                      const char* why, int64_t i,
                                                      tvm_tir_expr_obj* e,
                                                      tvm_tir_expr_obj* first) {
  char name[32];
  snprintf(name, sizeof(name), "indices[%lld]", (long long)i);
  /* (indices[0] only when the complaint is about the two of them) */
  tvm_tir__type_error(rule, node, why, name, e, first != e ? "indices[0]" : NULL, first, NULL);
  return -1;
}

static const char k_width[] = "indices must all have the same bit width";

/* (The errors are reported out of line: this runs per load and store.) */
static int check_index_items(tvm_tir_rule rule, const char* node, tvm_tir_buffer_obj* buffer,
                             const TVMFFIAny* items, int64_t n, int* out_lanes) {
  int64_t ndim = tvm_ffi_seq_size(buffer->shape);
  if (n != ndim) return index_count_error(rule, node, buffer, ndim, n);
  int lanes = 1;
  for (int64_t i = 0; i < n; ++i) {
    tvm_tir_expr_obj* e = (tvm_tir_expr_obj*)items[i].v_obj;
    tvm_tir_expr_obj* first = (tvm_tir_expr_obj*)items[0].v_obj;
    const char* why = NULL;
    if (!tvm_tir_dtype_is_integer(e->dtype)) {
      why = "indices must be Int or UInt";
    } else if (e->dtype.bits != first->dtype.bits) {
      why = k_width;
    } else if (i + 1 < n && e->dtype.lanes != 1) {
      why = "only the last index may be a vector";
    }
    if (why) return index_item_error(rule, node, why, i, e, why == k_width ? first : e);
    if (i + 1 == n) lanes = e->dtype.lanes;
  }
  *out_lanes = lanes;
  return 0;
}

int tvm_tir__check_indices(tvm_tir_rule rule, const char* node, tvm_tir_buffer_obj* buffer,
                           void* indices, void** out_indices, int* out_lanes) {
  *out_indices = NULL;
  if (!buffer) {
    tvm_tir__null_arg(node, "buffer");
    return -1;
  }
  if (tvm_tir__check_kind(buffer, TVM_TIR_KIND_Buffer, node, "buffer") != 0) return -1;
  void* idx;
  if (tvm_tir__array_arg(indices, TVM_TIR_KIND_PrimExpr, node, "indices", &idx) != 0) return -1;
  if (check_index_items(rule, node, buffer, tvm_ffi_seq_data(idx), tvm_ffi_seq_size(idx),
                        out_lanes) != 0) {
    tvm_ffi_release(idx);
    return -1;
  }
  *out_indices = idx;
  return 0;
}

int tvm_tir__check_typed_indices(tvm_tir_rule rule, const char* node, tvm_tir_buffer_obj* buffer,
                                 void* indices, void** out_indices, int* out_lanes) {
  void* idx = indices ? indices : tvm_tir__empty_array();
  if (indices) tvm_ffi_retain(idx);
  if (check_index_items(rule, node, buffer, tvm_ffi_seq_data(idx), tvm_ffi_seq_size(idx),
                        out_lanes) != 0) {
    *out_indices = NULL;
    tvm_ffi_release(idx);
    return -1;
  }
  *out_indices = idx;
  return 0;
}

int tvm_tir_buffer_load_check(tvm_tir_buffer_obj* buffer, const TVMFFIAny* indices, int64_t n) {
  /* tvm_tir__check_indices, in its order, with the array's check on the items. */
  if (!buffer) {
    tvm_tir__null_arg("BufferLoad", "buffer");
    return -1;
  }
  if (tvm_tir__check_kind(buffer, TVM_TIR_KIND_Buffer, "BufferLoad", "buffer") != 0) return -1;
  if (n < 0 || (n > 0 && !indices)) {
    return tvm_ffi_raise("ValueError", "tvm_tir_buffer_load_check: bad indices");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!tvm_ffi_any_is_object(&indices[i]) || !tir_is(indices[i].v_obj, TVM_TIR_KIND_PrimExpr)) {
      return tvm_ffi_raise("TypeError", "%s: %s[%lld] must be a %s, got %s", "BufferLoad",
                           "indices", (long long)i, tvm_tir_kind_type_key(TVM_TIR_KIND_PrimExpr),
                           tvm_ffi_any_type_name(&indices[i]));
    }
  }
  int lanes;
  return check_index_items(TVM_TIR_RULE_T_BUFFERLOAD, "BufferLoad", buffer, indices, n, &lanes);
}

/* The node of a load whose checks passed (idx: the checked indices, taken). */
static inline tvm_tir_expr_obj* buffer_load_make(tvm_tir_buffer_obj* buffer, void* idx,
                                                 int index_lanes) {
  tvm_tir_buffer_load_obj* e = TIR_NEW_EXPR(
      tvm_tir_buffer_load_obj, BufferLoad,
      tvm_tir_dtype_with_lanes(buffer->dtype, index_lanes * buffer->dtype.lanes));
  if (!e) {
    tvm_ffi_release(idx);
    return NULL;
  }
  tvm_ffi_retain(buffer);
  e->buffer = buffer;
  e->indices = idx;
  return &e->expr;
}

tvm_tir_expr_obj* tvm_tir_buffer_load_new(tvm_tir_buffer_obj* buffer, void* indices) {
  void* idx;
  int index_lanes;
  if (tvm_tir__check_indices(TVM_TIR_RULE_T_BUFFERLOAD, "BufferLoad", buffer, indices, &idx,
                             &index_lanes) != 0) {
    return NULL;
  }
  return buffer_load_make(buffer, idx, index_lanes);
}

tvm_tir_expr_obj* tvm_tir__buffer_load_new_typed(tvm_tir_buffer_obj* buffer, void* indices) {
  void* idx;
  int index_lanes;
  /* The kinds are the caller's promise (tvm-private/tir.h); the index count and dtype checks
   * are the same as tvm_tir_buffer_load_new's, with the same errors. */
  assert(tir_is(buffer, TVM_TIR_KIND_Buffer) &&
         tvm_tir__array_of(indices, TVM_TIR_KIND_PrimExpr, true));
  if (tvm_tir__check_typed_indices(TVM_TIR_RULE_T_BUFFERLOAD, "BufferLoad", buffer, indices,
                                   &idx, &index_lanes) != 0) {
    return NULL;
  }
  return buffer_load_make(buffer, idx, index_lanes);
}

/* ---- Ramp, Broadcast ----------------------------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_ramp_new(tvm_tir_expr_obj* base, tvm_tir_expr_obj* stride,
                                   int32_t lanes) {
  if (bad_expr(base, "Ramp", "base") || bad_expr(stride, "Ramp", "stride")) return NULL;
  const char* why = NULL;
  char what[96];
  if (lanes <= 1 || lanes > 65535) {
    snprintf(what, sizeof(what), "lanes must be in 2..65535, got %d", (int)lanes);
    why = what;
  } else if (!tvm_tir_dtype_equal(DT(base), DT(stride))) {
    why = "base and stride must have the same dtype";
  } else if (DT(base).lanes != 1) {
    why = "base and stride must be scalars";
  } else if (!tvm_tir_dtype_is_integer(DT(base))) {
    why = "base and stride must be Int or UInt";
  }
  if (why) {
    return tvm_tir__type_error(TVM_TIR_RULE_T_RAMP, "Ramp", why, "base", base, "stride", stride,
                               NULL);
  }
  tvm_tir_ramp_obj* e = TIR_NEW(tvm_tir_ramp_obj, Ramp);
  if (!e) return NULL;
  e->expr.dtype = tvm_tir_dtype_with_lanes(DT(base), lanes);
  e->base = tir_expr_retain(base);
  e->stride = tir_expr_retain(stride);
  e->lanes = lanes;
  return &e->expr;
}

tvm_tir_expr_obj* tvm_tir_broadcast_new(tvm_tir_expr_obj* value, int32_t lanes) {
  if (bad_expr(value, "Broadcast", "value")) return NULL;
  const char* why = NULL;
  char what[96];
  if (lanes <= 1 || lanes > 65535) {
    snprintf(what, sizeof(what), "lanes must be in 2..65535, got %d", (int)lanes);
    why = what;
  } else if (DT(value).lanes != 1) {
    why = "the value must be a scalar";
  }
  if (why)
    return tvm_tir__type_error(TVM_TIR_RULE_T_BROADCAST, "Broadcast", why, "value", value, NULL);
  tvm_tir_broadcast_obj* e = TIR_NEW(tvm_tir_broadcast_obj, Broadcast);
  if (!e) return NULL;
  e->expr.dtype = tvm_tir_dtype_with_lanes(DT(value), lanes);
  e->value = tir_expr_retain(value);
  e->lanes = lanes;
  return &e->expr;
}

/* ---- Let ----------------------------------------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_let_new(tvm_tir_var_obj* var, tvm_tir_expr_obj* value,
                                  tvm_tir_expr_obj* body) {
  if (!var) return tvm_tir__null_arg("Let", "var");
  if (tvm_tir__check_kind(var, TVM_TIR_KIND_Var, "Let", "var") != 0) return NULL;
  if (bad_expr(value, "Let", "value") || bad_expr(body, "Let", "body")) return NULL;
  if (!tvm_tir_dtype_equal(var->expr.dtype, DT(value))) {
    return tvm_tir__type_error(TVM_TIR_RULE_T_LET, "Let", "var and value must have the same dtype",
                               "var", var, "value", value, NULL);
  }
  tvm_tir_let_obj* e = TIR_NEW(tvm_tir_let_obj, Let);
  if (!e) return NULL;
  e->expr.dtype = DT(body);
  tvm_ffi_retain(var);
  e->var = var;
  e->value = tir_expr_retain(value);
  e->body = tir_expr_retain(body);
  return &e->expr;
}

/* ---- Call ---------------------------------------------------------------------------------- */
/* Builtins computed in one dtype: every operand has the call's dtype (T-CALL as libtir extends
 * it, docs/tir-decisions.md). The bit operations need Int/UInt, the float math Float/BFloat;
 * the code generator and the interpreter have no conversion between mixed operands. */
static const tvm_tir_builtin k_same_int_ops[] = {
    TVM_TIR_BUILTIN_bitwise_and, TVM_TIR_BUILTIN_bitwise_or, TVM_TIR_BUILTIN_bitwise_xor,
    TVM_TIR_BUILTIN_bitwise_not, TVM_TIR_BUILTIN_shift_left, TVM_TIR_BUILTIN_shift_right};
static const tvm_tir_builtin k_same_float_ops[] = {
    TVM_TIR_BUILTIN_exp,      TVM_TIR_BUILTIN_exp2,  TVM_TIR_BUILTIN_exp10,    TVM_TIR_BUILTIN_log,
    TVM_TIR_BUILTIN_log2,     TVM_TIR_BUILTIN_log10, TVM_TIR_BUILTIN_log1p,    TVM_TIR_BUILTIN_sqrt,
    TVM_TIR_BUILTIN_rsqrt,    TVM_TIR_BUILTIN_tanh,  TVM_TIR_BUILTIN_sigmoid,  TVM_TIR_BUILTIN_erf,
    TVM_TIR_BUILTIN_floor,    TVM_TIR_BUILTIN_ceil,  TVM_TIR_BUILTIN_round,    TVM_TIR_BUILTIN_nearbyint,
    TVM_TIR_BUILTIN_trunc,    TVM_TIR_BUILTIN_fabs,  TVM_TIR_BUILTIN_sin,      TVM_TIR_BUILTIN_cos,
    TVM_TIR_BUILTIN_tan,      TVM_TIR_BUILTIN_asin,  TVM_TIR_BUILTIN_acos,     TVM_TIR_BUILTIN_atan,
    TVM_TIR_BUILTIN_sinh,     TVM_TIR_BUILTIN_cosh,  TVM_TIR_BUILTIN_asinh,    TVM_TIR_BUILTIN_acosh,
    TVM_TIR_BUILTIN_atanh,    TVM_TIR_BUILTIN_pow,   TVM_TIR_BUILTIN_fmod,     TVM_TIR_BUILTIN_atan2,
    TVM_TIR_BUILTIN_copysign, TVM_TIR_BUILTIN_hypot, TVM_TIR_BUILTIN_nextafter};

static bool in_ops(const void* op, const tvm_tir_builtin* ids, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (tvm_tir_is_builtin(op, ids[i])) return true;
  }
  return false;
}

/* The operand rule above for a call of op (an ir.Op of arity 1 or 2): 0, or -1 raised. */
static __attribute__((noinline)) int call_operands_check(DLDataType dtype, const void* op,
                                                         void* arr) {
  bool is_int = in_ops(op, k_same_int_ops, sizeof(k_same_int_ops) / sizeof(k_same_int_ops[0]));
  if (!is_int &&
      !in_ops(op, k_same_float_ops, sizeof(k_same_float_ops) / sizeof(k_same_float_ops[0]))) {
    return 0;
  }
  const char* name = tvm_tir_op_name((const tvm_tir_op_obj*)op);
  char what[200];
  bool code_ok = is_int ? tvm_tir_dtype_is_integer(dtype)
                        : (dtype.code == kDLFloat || dtype.code == kDLBfloat);
  if (!code_ok) {
    snprintf(what, sizeof(what), "%s computes on %s, not %s", name,
             is_int ? "Int/UInt values" : "Float/BFloat values", tvm_tir_dtype_str(dtype).s);
    tvm_tir__type_error(TVM_TIR_RULE_T_CALL, "Call", what, "op", op, "args", arr, NULL);
    return -1;
  }
  int64_t n = tvm_ffi_seq_size(arr);
  for (int64_t i = 0; i < n; ++i) {
    const void* a = tvm_ffi_seq_obj_at(arr, i);
    if (!tvm_tir_dtype_equal(DT(a), dtype)) {
      char arg_name[32];
      snprintf(what, sizeof(what), "the operands of %s must have the call's dtype %s", name,
               tvm_tir_dtype_str(dtype).s);
      snprintf(arg_name, sizeof(arg_name), "args[%lld]", (long long)i);
      tvm_tir__type_error(TVM_TIR_RULE_T_CALL, "Call", what, arg_name, a, NULL);
      return -1;
    }
  }
  return 0;
}

tvm_tir_expr_obj* tvm_tir_call_new(DLDataType dtype, void* op, void* args) {
  if (!op) return tvm_tir__null_arg("Call", "op");
  if (!TIR_IS(op, Op) && !TIR_IS(op, GlobalVar)) {
    tvm_ffi_raise("TypeError", "Call: op must be an ir.Op or an ir.GlobalVar, got %s",
                  tvm_ffi_type_key(tvm_ffi_type_index(op)));
    return NULL;
  }
  if (tvm_tir__dtype_too_wide(dtype)) {
    return tvm_tir__too_wide_error(TVM_TIR_RULE_T_CALL, "Call", dtype);
  }
  void* arr;
  if (tvm_tir__array_arg(args, TVM_TIR_KIND_PrimExpr, "Call", "args", &arr) != 0) return NULL;
  if (TIR_IS(op, Op)) {
    const tvm_tir_op_obj* o = (const tvm_tir_op_obj*)op;
    int64_t n = tvm_ffi_seq_size(arr);
    if (o->num_inputs >= 0 && n != o->num_inputs) {
      char what[160];
      snprintf(what, sizeof(what), "%s takes %d argument%s but %lld %s given", tvm_tir_op_name(o),
               (int)o->num_inputs, o->num_inputs == 1 ? "" : "s", (long long)n,
               n == 1 ? "was" : "were");
      tvm_tir__type_error(TVM_TIR_RULE_T_CALL, "Call", what, "op", op, "args", arr, NULL);
      tvm_ffi_release(arr);
      return NULL;
    }
    if ((n == 1 || n == 2) && o->call_effect_kind == TVM_TIR_EFFECT_PURE &&
        call_operands_check(dtype, op, arr) != 0) {
      tvm_ffi_release(arr);
      return NULL;
    }
  }
  tvm_tir_call_obj* e = TIR_NEW_EXPR(tvm_tir_call_obj, Call, dtype);
  if (!e) {
    tvm_ffi_release(arr);
    return NULL;
  }
  tvm_ffi_retain(op);
  e->op = (tvm_tir_relax_expr_obj*)op;
  e->args = arr;
  return &e->expr;
}

/* ---- Shuffle ------------------------------------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_shuffle_new(void* vectors, void* indices) {
  void *vecs = NULL, *idx = NULL;
  if (tvm_tir__array_arg(vectors, TVM_TIR_KIND_PrimExpr, "Shuffle", "vectors", &vecs) != 0 ||
      tvm_tir__array_arg(indices, TVM_TIR_KIND_PrimExpr, "Shuffle", "indices", &idx) != 0) {
    tvm_ffi_release(vecs);
    return NULL;
  }
  int64_t nv = tvm_ffi_seq_size(vecs), ni = tvm_ffi_seq_size(idx), total = 0;
  const char* why = NULL;
  char what[160];
  const void* bad = NULL;
  if (nv == 0) why = "vectors must not be empty";
  for (int64_t i = 0; !why && i < nv; ++i) {
    DLDataType t = DT(tvm_ffi_seq_obj_at(vecs, i)), t0 = DT(tvm_ffi_seq_obj_at(vecs, 0));
    if (t.code != t0.code || t.bits != t0.bits) {
      why = "vectors must all have the same element type";
      bad = tvm_ffi_seq_obj_at(vecs, i);
    }
    total += t.lanes;
  }
  for (int64_t i = 0; !why && i < ni; ++i) {
    DLDataType t = DT(tvm_ffi_seq_obj_at(idx, i));
    if (!tvm_tir_dtype_is_integer(t) || t.lanes != 1) {
      why = "indices must be Int or UInt scalars";
      bad = tvm_ffi_seq_obj_at(idx, i);
    }
  }
  if (!why && ni != total) {
    snprintf(what, sizeof(what), "%lld indices for vectors of %lld lanes in total", (long long)ni,
             (long long)total);
    why = what;
  }
  if (!why && total > 65535) why = "too many lanes";
  if (why) {
    tvm_tir__type_error(TVM_TIR_RULE_T_SHUFFLE, "Shuffle", why, "vectors", vecs, "indices", idx,
                        bad ? "offending" : NULL, bad, NULL);
    tvm_ffi_release(vecs);
    tvm_ffi_release(idx);
    return NULL;
  }
  tvm_tir_shuffle_obj* e = TIR_NEW(tvm_tir_shuffle_obj, Shuffle);
  if (!e) {
    tvm_ffi_release(vecs);
    tvm_ffi_release(idx);
    return NULL;
  }
  e->expr.dtype = tvm_tir_dtype_with_lanes(DT(tvm_ffi_seq_obj_at(vecs, 0)), (int)total);
  e->vectors = vecs;
  e->indices = idx;
  return &e->expr;
}

/*
 * parse_tir_builtins_expr.c: the expression builtins of TVMScript's `T.*`, the inverse of
 * printer_tir_expr.c.
 *
 * What the printer writes, and what builds it back here:
 *   literals      `5`, `T.int64(5)`, `T.float32(1.5)`, `T.float16("inf")`, `T.bool(True)`:
 *                 the dtype constructor (any dtype spelling, tvm_script__tir_dtype_builtin);
 *                 with no value, `n = T.int32()` / `T.int64(is_size_var=True)` is a new Var
 *   variables     `p = T.handle("float32", "shared")`, `h = T.handle()`, `a = T.Var("a", "int64")`
 *                 (also as upstream's node classes T.IntImm / T.FloatImm(dtype, value) and
 *                 T.StringImm(value)), T.Call(dtype, op, args) (op a name or an Op),
 *                 T.const(value, dtype=None) (upstream's tvm.tir.const, read as T.const)
 *   nodes         T.Cast, T.Select, T.Ramp, T.Broadcast, T.Shuffle, T.Let and the binary node
 *                 names (T.Add ... T.Or, printed when infix text would fold or change the node)
 *                 build exactly that node: no constant folding, only a Python literal operand
 *                 takes the other operand's dtype; T.min/T.max/T.truncmod likewise
 *   other values  T.iter_var(var, dom, "DataPar", tag) (IterVars of T.attr), T.Tuple(types),
 *                 T.max_value / T.min_value(dtype)
 *   op calls      `T.<op>(args)` for every op of ops.def ("tir.<op>"), generated from that list;
 *                 the result dtype is printed first for call_extern & co and reinterpret, last
 *                 for tvm_struct_get, and otherwise follows the op's rule (call_dtype below).
 *                 A `dtype=` keyword overrides the rule.
 * The libtir constructors check the typing rules; their TypeErrors propagate unchanged.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/tir/builder.h>

#include "parse_bound_args.h"
#include "parse_tir_builtins_attr.h"

/* ---- Bound arguments (parse_bound_args.h) ------------------------------------------------- */
static int arg_bool(bound_args* a, int i, bool* out) {
  if (!given(a, i)) {
    *out = false;
    return 0;
  }
  if (a->v[i].type_index == kTVMFFIBool) {
    *out = a->v[i].v_int64 != 0;
    return 0;
  }
  char what[160];
  tvm_script__arg_what(a->call, a->spec, i, what, sizeof(what));
  fail(a, i);
  return tvm_ffi_raise("TypeError", "%s must be a bool, got %s", what,
                       tvm_ffi_any_type_name(&a->v[i]));
}

/* Store an expression result (NULL: an error is raised). */
static int ret_obj(void* obj, TVMFFIAny* out) {
  if (!obj) return -1;
  *out = tvm_ffi_any_obj(obj);
  return 0;
}

/* ---- Literals ------------------------------------------------------------------------------ */
/* A float literal as a constant of dtype (broadcast for a vector). float16 and bfloat16 values
 * round to the type, since the printer writes the shortest text that reads back as the same
 * value of the type; float32 and float64 keep the value read, as upstream does (the printer
 * writes their stored double exactly, and a Python float operand of a float64 expression must
 * not lose precision). */
static tvm_tir_expr_obj* float_literal(DLDataType dtype, double v) {
  DLDataType elem = tvm_tir_dtype_element(dtype);
  if (elem.bits == 16 && tvm_tir_dtype_is_floating(elem) && isfinite(v)) {
    /* Casting a float64 constant folds with round-to-nearest-even in the target type. Out of
     * its range (a Cast, or infinity) v is kept for tvm_tir_const_float to report. */
    tvm_tir_expr_obj* wide = tvm_tir_float_imm_new(TVM_TIR_FLOAT64, v);
    tvm_tir_expr_obj* rounded = wide ? tvm_tir_cast(elem, wide) : NULL;
    tvm_ffi_release(wide);
    if (!rounded) return NULL;
    if (tvm_tir_kind_of(rounded) == TVM_TIR_KIND_FloatImm &&
        isfinite(((const tvm_tir_float_imm_obj*)rounded)->value)) {
      v = ((const tvm_tir_float_imm_obj*)rounded)->value;
    }
    tvm_ffi_release(rounded);
  }
  return tvm_tir_const_float(dtype, v);
}

static bool is_number(const TVMFFIAny* v) {
  return v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool ||
         v->type_index == kTVMFFIFloat;
}

/* A Python int / bool / float as a constant of dtype; TypeError (T-INTIMM / T-FLOATIMM) when it
 * does not fit. */
tvm_tir_expr_obj* tvm_script__dtype_number(const TVMFFIAny* v, DLDataType dtype) {
  if (v->type_index == kTVMFFIFloat) return float_literal(dtype, v->v_float64);
  DLDataType elem = tvm_tir_dtype_element(dtype);
  if (v->type_index == kTVMFFIInt && elem.bits == 16 && tvm_tir_dtype_is_floating(elem)) {
    return float_literal(dtype, (double)v->v_int64); /* 4097 is 4096 in float16, as it prints */
  }
  return tvm_tir_const_int(dtype, v->v_int64);
}

/* A Python number operand (src, already converted to *e) takes the dtype of the other operand:
 * `T.max(x, 0)` on an int64 x. Nothing else converts, so the node built is exactly the one the
 * printer printed. *e is owned and may be replaced. */
static int match_literal(const TVMFFIAny* src, tvm_tir_expr_obj** e,
                         const tvm_tir_expr_obj* other) {
  DLDataType want = tvm_tir_expr_dtype(other);
  if (!is_number(src) || tvm_tir_dtype_equal(tvm_tir_expr_dtype(*e), want) ||
      tvm_tir_dtype_is_handle_code(want)) {
    return 0;
  }
  tvm_tir_expr_obj* c = tvm_script__dtype_number(src, want);
  if (!c) return -1;
  tvm_ffi_release(*e);
  *e = c;
  return 0;
}

/* Parameters i and j as PrimExprs, a literal one converted to the other's dtype. */
static int arg_pair(bound_args* a, int i, int j, tvm_tir_expr_obj** x, tvm_tir_expr_obj** y) {
  *x = arg_expr(a, i);
  *y = *x ? arg_expr(a, j) : NULL;
  if (*y && match_literal(&a->v[i], x, *y) == 0 && match_literal(&a->v[j], y, *x) == 0) return 0;
  tvm_ffi_release(*x);
  tvm_ffi_release(*y);
  *x = *y = NULL;
  return -1;
}

/* ---- Dtype constructors -------------------------------------------------------------------- */
/* The name a new Var gets: the assignment target (`n = T.int32()`), else "" as upstream. */
static const char* new_var_name(const tvm_script_call* call) {
  return call->ctx == TVM_SCRIPT_CTX_ASSIGN && call->num_targets == 1 ? call->targets[0] : "";
}

/* T.<dtype>(expr=None, *, is_size_var=False). */
static int dtype_ctor(tvm_script_call* call, TVMFFIAny* out) {
  DLDataType dtype = call->dtype;
  if (!call->has_dtype) {
    const char* dot = strrchr(call->name, '.');
    const char* name = dot ? dot + 1 : call->name;
    if (!tvm_script__tir_dtype_name(name, strlen(name), &dtype)) {
      return tvm_ffi_raise("ValueError", "%s is not a dtype", call->name);
    }
  }
  bound_args a;
  if (bind(&a, call, "expr=, *is_size_var=", 2) != 0) return -1;
  bool size_var = false; /* (set by arg_bool; initialized for the compiler's flow analysis) */
  if (arg_bool(&a, 1, &size_var) != 0) return -1;
  const TVMFFIAny* v = &a.v[0];
  if (!given(&a, 0)) {
    const char* vname = new_var_name(call);
    return ret_obj(size_var ? tvm_tir_size_var_new(vname, dtype) : tvm_tir_var_new(vname, dtype),
                   out);
  }
  if (size_var) {
    fail(&a, 1);
    return tvm_ffi_raise("TypeError", "%s(): is_size_var applies only without a value", call->name);
  }
  if (is_number(v)) return ret_obj(tvm_script__dtype_number(v, dtype), out);
  TVMFFIByteArray s;
  if (tvm_script__is_str(v) && tvm_ffi_any_as_bytes(v, &s)) {
    /* T.float32("inf"), "-inf", "nan" (any number text reads the same way). */
    char text[64];
    char* end = NULL;
    double d = 0;
    if (s.size < sizeof(text)) {
      memcpy(text, s.data, s.size);
      text[s.size] = '\0';
      d = tvm_ffi_strtod(text, &end);
    }
    if (!end || end == text || *end != '\0' || !tvm_tir_dtype_is_floating(dtype)) {
      fail(&a, 0);
      return tvm_ffi_raise("ValueError", "%s(): cannot convert the string \"%.*s\" to %s",
                           call->name, (int)(s.size > 40 ? 40 : s.size), s.data,
                           tvm_tir_dtype_str(dtype).s);
    }
    return ret_obj(float_literal(dtype, d), out);
  }
  tvm_tir_expr_obj* e = arg_expr(&a, 0);
  if (!e) return -1;
  tvm_tir_expr_obj* r = tvm_tir_cast(dtype, e);
  tvm_ffi_release(e);
  return ret_obj(r, out);
}

const tvm_script_builtin tvm_script__tir_dtype_builtin = {"<dtype>", dtype_ctor};

/* T.Var(name, dtype) / T.SizeVar(name, dtype): tir.Var's and tir.SizeVar's constructors
 * (upstream's T module exports both: `a = T.Var("a", "int64")`, mlc-llm's kernels write
 * `n = T.SizeVar("n", "int32")`), as `a = T.int64()` / `n = T.int32(is_size_var=True)`. */
static int var_ctor(tvm_script_call* call, bool size_var, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "name, dtype", 2) != 0) return -1;
  const char* name = arg_cstr(&a, 0);
  DLDataType dtype;
  if (!name || arg_dtype(&a, 1, &dtype) != 0) return -1;
  return ret_obj(size_var ? tvm_tir_size_var_new(name, dtype) : tvm_tir_var_new(name, dtype), out);
}
static int b_Var(tvm_script_call* call, TVMFFIAny* out) { return var_ctor(call, false, out); }
static int b_SizeVar(tvm_script_call* call, TVMFFIAny* out) { return var_ctor(call, true, out); }

/* T.handle(dtype=None, storage_scope="global", *, is_size_var=False): a handle Var, annotated
 * PointerType(PrimType(dtype), scope) when a dtype is given (as the printer prints pointer
 * variables); "global" is the IR's "" scope. T.ptr(dtype, storage_scope="global",
 * is_size_var=False) is the same with the dtype required. a: bound as T.handle's. */
static int handle_var(tvm_script_call* call, bound_args* a, TVMFFIAny* out) {
  bool size_var = false; /* (set by arg_bool; initialized for the compiler's flow analysis) */
  if (arg_bool(a, 2, &size_var) != 0) return -1;
  const char* name = new_var_name(call);
  const char* scope = "";
  if (given(a, 1) && !(scope = arg_cstr(a, 1))) return -1;
  if (strcmp(scope, "global") == 0) scope = "";
  if (!given(a, 0) && !*scope) {
    DLDataType h = TVM_TIR_HANDLE;
    return ret_obj(size_var ? tvm_tir_size_var_new(name, h) : tvm_tir_var_new(name, h), out);
  }
  if (size_var) {
    fail(a, 2);
    return tvm_ffi_raise("TypeError", "%s(): a pointer variable cannot be a size var", call->name);
  }
  DLDataType elem = TVM_TIR_VOID;
  if (given(a, 0) && arg_dtype(a, 0, &elem) != 0) return -1;
  tvm_tir_pointer_type_obj* ptr = tvm_tir_pointer_type_of(elem, scope);
  tvm_tir_var_obj* var = ptr ? tvm_tir_var_new_typed(name, (tvm_tir_type_obj*)ptr) : NULL;
  tvm_ffi_release(ptr);
  return ret_obj(var, out);
}

static int b_handle(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "dtype=, storage_scope=, *is_size_var=", 3) != 0) return -1;
  return handle_var(call, &a, out);
}

static int b_ptr(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "dtype, storage_scope=, is_size_var=", 3) != 0) return -1;
  return handle_var(call, &a, out);
}

/* The largest finite value of a float type, 0 for other types. */
static double float_max(DLDataType t) {
  if (t.code == kDLBfloat && t.bits == 16) return 3.38953138925153547590470800371487866880e38;
  if (t.code != kDLFloat) return 0;
  switch (t.bits) {
    case 16: return 65504.0;
    case 32: return 3.40282346638528859811704183484516925440e38;
    case 64: return 1.79769313486231570814527423731704356798e308;
    default: return 0;
  }
}

/* T.max_value(dtype) / T.min_value(dtype): the largest / smallest finite value. */
static int limit_value(tvm_script_call* call, TVMFFIAny* out, bool max) {
  bound_args a;
  DLDataType t;
  if (bind(&a, call, "dtype", 1) != 0 || arg_dtype(&a, 0, &t) != 0) return -1;
  if (tvm_tir_dtype_is_integer(t)) {
    return ret_obj(tvm_tir_const_int(t, max ? tvm_tir_dtype_max_int(t) : tvm_tir_dtype_min_int(t)),
                   out);
  }
  double m = float_max(t);
  if (m == 0) {
    fail(&a, 0);
    return tvm_ffi_raise("TypeError", "%s(): no limit value for dtype %s", call->name,
                         tvm_tir_dtype_str(t).s);
  }
  return ret_obj(tvm_tir_const_float(t, max ? m : -m), out);
}
static int b_max_value(tvm_script_call* c, TVMFFIAny* o) { return limit_value(c, o, true); }
static int b_min_value(tvm_script_call* c, TVMFFIAny* o) { return limit_value(c, o, false); }

/* T.abs(x): fabs for floats, x for unsigned ints, Select(x >= 0, x, -x) for signed ints (as
 * upstream's tir.abs). */
static int b_abs(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "x", 1) != 0) return -1;
  tvm_tir_expr_obj* x = arg_expr(&a, 0);
  if (!x) return -1;
  DLDataType t = x->dtype;
  if (tvm_tir_dtype_is_float(t)) return ret_obj(tvm_tir_call_takev(t, "tir.fabs", 1, (void*[]){x}), out);
  if (t.code == kDLUInt) return ret_obj(x, out);
  /* (Each operand made in its own statement: C leaves the order of a call's arguments open,
   * and -x of a constant folds, releasing the x it takes.) */
  tvm_tir_expr_obj* ge = tvm_tir_ge_take(tvm_tir_ref(x), tvm_tir_const_int(t, 0));
  tvm_tir_expr_obj* neg = tvm_tir_neg_take(tvm_tir_ref(x));
  return ret_obj(tvm_tir_select_take(ge, x, neg), out);
}

/* ---- Nodes --------------------------------------------------------------------------------- */
static int cast_node(bound_args* a, int dtype_i, int value_i, TVMFFIAny* out) {
  DLDataType t;
  if (arg_dtype(a, dtype_i, &t) != 0) return -1;
  tvm_tir_expr_obj* v = arg_expr(a, value_i);
  if (!v) return -1;
  tvm_tir_expr_obj* r = tvm_tir_cast_new(t, v);
  tvm_ffi_release(v);
  return ret_obj(r, out);
}

/* T.Cast(dtype, value) (the printed form) and upstream's T.cast(value, dtype). */
static int b_Cast(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  return bind(&a, call, "dtype, value", 2) != 0 ? -1 : cast_node(&a, 0, 1, out);
}
static int b_cast(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  return bind(&a, call, "value, dtype", 2) != 0 ? -1 : cast_node(&a, 1, 0, out);
}

/* T.IntImm(dtype, value) / T.FloatImm(dtype, value): tvm.tir's literal classes, which
 * upstream's T namespace exports too (its tests write `T.FloatImm("float32", 0.1)`); the
 * constant the dtype constructor makes, for a scalar dtype of the class's kind and a number
 * value (a float is no IntImm's value). */
static int imm_node(tvm_script_call* call, bool floating, TVMFFIAny* out) {
  bound_args a;
  DLDataType t;
  if (bind(&a, call, "dtype, value", 2) != 0 || arg_dtype(&a, 0, &t) != 0) return -1;
  bool kind_ok = floating ? tvm_tir_dtype_is_floating(t) : tvm_tir_dtype_is_integer(t);
  if (!kind_ok || t.lanes != 1) {
    fail(&a, 0);
    return tvm_ffi_raise("TypeError", "%s(): the dtype must be a scalar %s type, got %s",
                         call->name, floating ? "float" : "integer", tvm_tir_dtype_str(t).s);
  }
  const TVMFFIAny* v = &a.v[1];
  if (!is_number(v) || (!floating && v->type_index == kTVMFFIFloat)) {
    fail(&a, 1);
    return tvm_ffi_raise("TypeError", "%s(): the value must be %s, got %s", call->name,
                         floating ? "a number" : "an integer", tvm_ffi_any_type_name(v));
  }
  return ret_obj(tvm_script__dtype_number(v, t), out);
}
static int b_IntImm(tvm_script_call* call, TVMFFIAny* out) { return imm_node(call, false, out); }
static int b_FloatImm(tvm_script_call* call, TVMFFIAny* out) { return imm_node(call, true, out); }

/* tvm.tir.const(value, dtype=None) (read as T.const): the constant of dtype, by default the
 * value's (bool, int32 or int64 when the int does not fit, float32), as upstream's. */
static int b_const(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "value, dtype=", 2) != 0) return -1;
  const TVMFFIAny* v = &a.v[0];
  if (!is_number(v)) {
    fail(&a, 0);
    return tvm_ffi_raise("TypeError", "%s(): the value must be a number, got %s", call->name,
                         tvm_ffi_any_type_name(v));
  }
  DLDataType t = v->type_index == kTVMFFIBool    ? TVM_TIR_BOOL
                 : v->type_index == kTVMFFIFloat ? TVM_TIR_FLOAT32
                 : v->v_int64 == (int32_t)v->v_int64 ? TVM_TIR_INT32
                                                     : TVM_TIR_INT64;
  if (given(&a, 1) && arg_dtype(&a, 1, &t) != 0) return -1;
  return ret_obj(tvm_script__dtype_number(v, t), out);
}

/* T.StringImm(value): the string literal. */
static int b_StringImm(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "value", 1) != 0) return -1;
  TVMFFIByteArray s;
  if (!tvm_ffi_any_as_bytes(&a.v[0], &s)) {
    fail(&a, 0);
    return tvm_ffi_raise("TypeError", "%s(): the value must be a str, got %s", call->name,
                         tvm_ffi_any_type_name(&a.v[0]));
  }
  return ret_obj(tvm_tir_string_imm_new(s.data, s.size), out);
}

/* T.Add(a, b) ... T.Or(a, b), T.min / T.max / T.truncdiv / ...: exactly that node. */
static int binary_node(tvm_script_call* call, tvm_tir_kind kind, TVMFFIAny* out) {
  bound_args a;
  tvm_tir_expr_obj *x, *y;
  if (bind(&a, call, "a, b", 2) != 0 || arg_pair(&a, 0, 1, &x, &y) != 0) return -1;
  tvm_tir_expr_obj* r = tvm_tir_binary_new(kind, x, y);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  return ret_obj(r, out);
}

#define BINARY_BUILTIN(fn, Kind) \
  static int fn(tvm_script_call* c, TVMFFIAny* o) { return binary_node(c, TVM_TIR_KIND_##Kind, o); }
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) BINARY_BUILTIN(b_##Name, Name)
#include <tvm/tir/nodes.def>
BINARY_BUILTIN(b_min, Min)
BINARY_BUILTIN(b_max, Max)
BINARY_BUILTIN(b_truncdiv, Div)
BINARY_BUILTIN(b_truncmod, Mod)
BINARY_BUILTIN(b_floordiv, FloorDiv)
BINARY_BUILTIN(b_floormod, FloorMod)

static int b_Not(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "a", 1) != 0) return -1;
  tvm_tir_expr_obj* x = arg_expr(&a, 0);
  tvm_tir_expr_obj* r = x ? tvm_tir_not_new(x) : NULL;
  tvm_ffi_release(x);
  return ret_obj(r, out);
}

/* T.ceildiv(a, b) = (a + (b - 1)) // b, built with the folding helpers (never printed). */
static int b_ceildiv(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  tvm_tir_expr_obj *x, *y;
  if (bind(&a, call, "a, b", 2) != 0 || arg_pair(&a, 0, 1, &x, &y) != 0) return -1;
  tvm_tir_expr_obj* one = tvm_tir_const_int(tvm_tir_expr_dtype(y), 1);
  tvm_tir_expr_obj* r =
      tvm_tir_floordiv_take(tvm_tir_add_take(x, tvm_tir_sub_take(tvm_tir_ref(y), one)), y);
  return ret_obj(r, out);
}

static int b_Select(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  tvm_tir_expr_obj *t, *f;
  if (bind(&a, call, "condition, true_value, false_value", 3) != 0) return -1;
  tvm_tir_expr_obj* c = arg_expr(&a, 0);
  if (!c) return -1;
  if (arg_pair(&a, 1, 2, &t, &f) != 0) {
    tvm_ffi_release(c);
    return -1;
  }
  tvm_tir_expr_obj* r = tvm_tir_select_new(c, t, f);
  tvm_ffi_release(c);
  tvm_ffi_release(t);
  tvm_ffi_release(f);
  return ret_obj(r, out);
}

static int arg_lanes(bound_args* a, int i, int32_t* out) {
  int64_t lanes;
  if (arg_int(a, i, &lanes) != 0) return -1;
  if (lanes < 1 || lanes > 65535) {
    fail(a, i);
    return tvm_ffi_raise("ValueError", "%s(): lanes must be in [1, 65535], got %lld", a->call->name,
                         (long long)lanes);
  }
  *out = (int32_t)lanes;
  return 0;
}

static int b_Ramp(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  tvm_tir_expr_obj *base, *stride;
  int32_t lanes;
  if (bind(&a, call, "base, stride, lanes", 3) != 0 || arg_lanes(&a, 2, &lanes) != 0 ||
      arg_pair(&a, 0, 1, &base, &stride) != 0) {
    return -1;
  }
  tvm_tir_expr_obj* r = tvm_tir_ramp_new(base, stride, lanes);
  tvm_ffi_release(base);
  tvm_ffi_release(stride);
  return ret_obj(r, out);
}

static int b_Broadcast(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  int32_t lanes;
  if (bind(&a, call, "value, lanes", 2) != 0 || arg_lanes(&a, 1, &lanes) != 0) return -1;
  tvm_tir_expr_obj* v = arg_expr(&a, 0);
  tvm_tir_expr_obj* r = v ? tvm_tir_broadcast_new(v, lanes) : NULL;
  tvm_ffi_release(v);
  return ret_obj(r, out);
}

static int b_Shuffle(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "vectors, indices", 2) != 0) return -1;
  void* vectors = arg_expr_array(&a, 0);
  void* indices = vectors ? arg_expr_array(&a, 1) : NULL;
  tvm_tir_expr_obj* r = indices ? tvm_tir_shuffle_new(vectors, indices) : NULL;
  tvm_ffi_release(vectors);
  tvm_ffi_release(indices);
  return ret_obj(r, out);
}

/* T.Let(body, where={var: value}) */
static int b_Let(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "body, where", 2) != 0) return -1;
  const void* where = tvm_ffi_any_as_object(&a.v[1], kTVMFFIMap);
  if (!where) where = tvm_ffi_any_as_object(&a.v[1], kTVMFFIDict);
  const TVMFFIAny *key = NULL, *value = NULL;
  if (where && tvm_ffi_map_size(where) == 1) tvm_ffi_map_next(where, 0, &key, &value);
  if (!key || !tvm_ffi_any_is_object(key) || !tvm_tir_is_var(key->v_obj)) {
    fail(&a, 1);
    return tvm_ffi_raise(
        "TypeError", "argument 'where' of %s must be a dict of one Var to its value", call->name);
  }
  tvm_tir_expr_obj* body = arg_expr(&a, 0);
  if (!body) return -1;
  /* A literal value takes the variable's dtype: where={v: 5} on an int64 v. */
  const tvm_tir_var_obj* var = (const tvm_tir_var_obj*)key->v_obj;
  tvm_tir_expr_obj* v = is_number(value)
                            ? tvm_script__dtype_number(value, var->expr.dtype)
                            : tvm_script__value_to_expr_slow(value, "the value of 'where'");
  if (!v) {
    tvm_ffi_release(body);
    return fail(&a, 1), -1;
  }
  tvm_tir_expr_obj* r = tvm_tir_let_new((tvm_tir_var_obj*)var, v, body);
  tvm_ffi_release(v);
  tvm_ffi_release(body);
  return ret_obj(r, out);
}

/* T.iter_var(var, dom, "DataPar", "threadIdx.x"): dom a Range, an extent or None. */
static int b_iter_var(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const k_types[] = {"DataPar",    "ThreadIndex",  "CommReduce",
                                        "Ordered",    "Opaque",       "Unrolled",
                                        "Vectorized", "Parallelized", "Tensorized"};
  bound_args a;
  if (bind(&a, call, "var, dom, iter_type, thread_tag=", 4) != 0) return -1;
  void* var = tvm_ffi_any_is_object(&a.v[0]) ? a.v[0].v_obj : NULL;
  if (!tvm_tir_is_var(var)) {
    fail(&a, 0);
    return tvm_ffi_raise("TypeError", "argument 'var' of %s must be a Var, got %s", call->name,
                         tvm_ffi_any_type_name(&a.v[0]));
  }
  const char* type_name = arg_cstr(&a, 2);
  if (!type_name) return -1;
  const int n_types = (int)(sizeof(k_types) / sizeof(k_types[0]));
  int type = 0;
  while (type < n_types && strcmp(k_types[type], type_name) != 0) ++type;
  if (type == n_types) {
    fail(&a, 2);
    return tvm_ffi_raise("ValueError", "%s(): unknown iter_type \"%s\"", call->name, type_name);
  }
  const char* tag = "";
  if (given(&a, 3) && !(tag = arg_cstr(&a, 3))) return -1;
  tvm_tir_range_obj* dom = NULL;
  if (given(&a, 1)) {
    dom = tvm_ffi_any_as_object(&a.v[1], tvm_tir_type_index(TVM_TIR_KIND_Range));
    if (dom) {
      tvm_ffi_retain(dom);
    } else {
      tvm_tir_expr_obj* extent = arg_expr(&a, 1);
      if (!extent) return -1;
      dom = tvm_tir_range_take(tvm_tir_const_int(tvm_tir_expr_dtype(extent), 0), extent);
      if (!dom) return -1;
    }
  }
  tvm_tir_iter_var_obj* iv = tvm_tir_iter_var_new(dom, var, (tvm_tir_iter_var_type)type, tag);
  tvm_ffi_release(dom);
  return ret_obj(iv, out);
}

/* T.Tuple(*fields): a TupleType of types (the printer's form of a non-empty one). */
static int b_Tuple(tvm_script_call* call, TVMFFIAny* out) {
  if (call->num_kwargs) {
    call->error_arg = call->num_args;
    return tvm_ffi_raise("TypeError", "%s() takes no keyword arguments", call->name);
  }
  void* list = tvm_ffi_list_new();
  if (!list) return -1;
  for (int32_t i = 0; i < call->num_args; ++i) {
    const TVMFFIAny* v = &call->args[i];
    void* type = tvm_ffi_any_is_object(v) && tvm_tir_is_type(v->v_obj) ? v->v_obj : NULL;
    tvm_tir_prim_type_obj* prim = NULL;
    if (!type && v->type_index == kTVMFFIDataType) type = prim = tvm_tir_prim_type_new(v->v_dtype);
    if (!type) {
      tvm_ffi_release(list);
      call->error_arg = i;
      return tvm_ffi_raise("TypeError", "argument %d of %s must be a type, got %s", (int)i + 1,
                           call->name, tvm_ffi_any_type_name(v));
    }
    TVMFFIAny item = tvm_ffi_any_obj(type);
    int rc = tvm_ffi_list_push(list, &item);
    tvm_ffi_release(prim);
    if (rc != 0) {
      tvm_ffi_release(list);
      return -1;
    }
  }
  void* fields = tvm_ffi_list_to_array(list);
  tvm_ffi_release(list);
  tvm_tir_tuple_type_obj* t = fields ? tvm_tir_tuple_type_new(fields) : NULL;
  tvm_ffi_release(fields);
  return ret_obj(t, out);
}

/* ---- Calls of registered ops --------------------------------------------------------------- */
static bool dtype_first(tvm_tir_builtin id) {
  return id == TVM_TIR_BUILTIN_call_extern || id == TVM_TIR_BUILTIN_call_pure_extern ||
         id == TVM_TIR_BUILTIN_call_llvm_intrin || id == TVM_TIR_BUILTIN_call_llvm_pure_intrin ||
         id == TVM_TIR_BUILTIN_reinterpret || id == TVM_TIR_BUILTIN_type_annotation;
}

/* Ops whose first two arguments are operands of one type (a literal takes the other's); the
 * printer types a literal operand that differs (script_internal.h). */
bool tvm_script__binary_operand_op(tvm_tir_builtin id) {
  switch (id) {
    case TVM_TIR_BUILTIN_bitwise_and:
    case TVM_TIR_BUILTIN_bitwise_or:
    case TVM_TIR_BUILTIN_bitwise_xor:
    case TVM_TIR_BUILTIN_shift_left:
    case TVM_TIR_BUILTIN_shift_right:
    case TVM_TIR_BUILTIN_pow:
    case TVM_TIR_BUILTIN_fmod:
    case TVM_TIR_BUILTIN_atan2:
    case TVM_TIR_BUILTIN_copysign:
    case TVM_TIR_BUILTIN_hypot:
    case TVM_TIR_BUILTIN_nextafter: return true;
    default: return false;
  }
}

/* The result dtype of a call whose text does not print it: upstream's rule for each op
 * (script_internal.h). */
bool tvm_script__tir_call_rule_dtype(tvm_tir_builtin id, const void* const* args, int64_t n,
                                     DLDataType* out) {
  switch (id) {
    case TVM_TIR_BUILTIN_address_of:
    case TVM_TIR_BUILTIN_tvm_access_ptr:
    case TVM_TIR_BUILTIN_tvm_static_handle:
    case TVM_TIR_BUILTIN_tvm_context_id:
    case TVM_TIR_BUILTIN_tvm_stack_alloca:
    case TVM_TIR_BUILTIN_tvm_stack_make_shape:
    case TVM_TIR_BUILTIN_tvm_stack_make_array:
    case TVM_TIR_BUILTIN_tvm_tuple:
    case TVM_TIR_BUILTIN_tvm_thread_context:
    case TVM_TIR_BUILTIN_tvm_thread_allreduce:
    case TVM_TIR_BUILTIN_tvm_load_matrix_sync:
    case TVM_TIR_BUILTIN_tvm_mma_sync:
    case TVM_TIR_BUILTIN_tvm_bmma_sync:
    case TVM_TIR_BUILTIN_tvm_fill_fragment:
    case TVM_TIR_BUILTIN_tvm_store_matrix_sync:
    case TVM_TIR_BUILTIN_start_profile_intrinsic:
    case TVM_TIR_BUILTIN_end_profile_intrinsic:
    case TVM_TIR_BUILTIN_anylist_getitem: *out = TVM_TIR_HANDLE; return true;
    case TVM_TIR_BUILTIN_isnullptr:
    case TVM_TIR_BUILTIN_assume: *out = TVM_TIR_BOOL; return true;
    case TVM_TIR_BUILTIN_undef:
    case TVM_TIR_BUILTIN_tvm_struct_set:
    case TVM_TIR_BUILTIN_tvm_throw_last_error:
    case TVM_TIR_BUILTIN_tvm_call_packed:
    case TVM_TIR_BUILTIN_tvm_call_cpacked:
    case TVM_TIR_BUILTIN_tvm_call_packed_lowered:
    case TVM_TIR_BUILTIN_tvm_call_cpacked_lowered:
    case TVM_TIR_BUILTIN_tvm_check_return:
    case TVM_TIR_BUILTIN_tvm_storage_sync:
    case TVM_TIR_BUILTIN_vscale:
    case TVM_TIR_BUILTIN_q_multiply_shift_per_axis:
    case TVM_TIR_BUILTIN_anylist_resetitem:
    case TVM_TIR_BUILTIN_anylist_setitem_call_packed:
    case TVM_TIR_BUILTIN_anylist_setitem_call_cpacked: *out = TVM_TIR_INT32; return true;
    case TVM_TIR_BUILTIN_tvm_warp_activemask: *out = TVM_TIR_UINT32; return true;
    case TVM_TIR_BUILTIN_break_loop:
    case TVM_TIR_BUILTIN_continue_loop:
      *out = TVM_TIR_VOID;
      return true;
    case TVM_TIR_BUILTIN_large_uint_imm: *out = TVM_TIR_UINT64; return true;
    default: break;
  }
  /* The rest follow an operand: the value of if_then_else and of the warp shuffles (mask,
   * value, ...), the first argument otherwise. */
  int64_t from = id == TVM_TIR_BUILTIN_if_then_else || id == TVM_TIR_BUILTIN_tvm_warp_shuffle ||
                         id == TVM_TIR_BUILTIN_tvm_warp_shuffle_up ||
                         id == TVM_TIR_BUILTIN_tvm_warp_shuffle_down
                     ? 1
                     : 0;
  if (n <= from) return false;
  DLDataType t = tvm_tir_expr_dtype(args[from]);
  switch (id) {
    case TVM_TIR_BUILTIN_isnan:
    case TVM_TIR_BUILTIN_isinf:
    case TVM_TIR_BUILTIN_isfinite: t = tvm_tir_dtype_with_lanes(TVM_TIR_BOOL, t.lanes); break;
    case TVM_TIR_BUILTIN_vectorlow:
    case TVM_TIR_BUILTIN_vectorhigh: t.lanes = (uint16_t)(t.lanes / 2); break;
    case TVM_TIR_BUILTIN_vectorcombine: t.lanes = (uint16_t)(t.lanes * 2); break;
    default: break;
  }
  *out = t;
  return true;
}

/* T.Call(dtype, op, args): tvm.tir.Call, which upstream's T namespace exports (its VM codegen
 * tests write `T.Call("bool", "tir.tvm_call_packed", [...])`): op a registered op's name or an
 * Op, args a list or tuple converted as an op call's arguments; the Call node as given (its
 * constructor checks it). */
static int b_Call(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  DLDataType t;
  if (bind(&a, call, "dtype, op, args", 3) != 0 || arg_dtype(&a, 0, &t) != 0) return -1;
  tvm_tir_op_obj* op = NULL;
  const TVMFFIAny* opv = &a.v[1];
  TVMFFIByteArray name;
  if (tvm_ffi_any_is_object(opv) && tvm_tir_kind_of(opv->v_obj) == TVM_TIR_KIND_Op) {
    tvm_ffi_retain(opv->v_obj);
    op = (tvm_tir_op_obj*)opv->v_obj;
  } else if (opv->type_index != kTVMFFIObject && tvm_ffi_any_as_bytes(opv, &name)) {
    op = tvm_tir_op_get(arg_cstr(&a, 1)); /* (a KeyError names an unknown op) */
  } else {
    tvm_ffi_raise("TypeError", "%s(): op must be an op's name or an Op, got %s", call->name,
                  tvm_ffi_any_type_name(opv));
  }
  if (!op) {
    fail(&a, 1);
    return -1;
  }
  const void* seq = tvm_ffi_any_as_object(&a.v[2], kTVMFFIArray);
  if (!seq) seq = tvm_ffi_any_as_object(&a.v[2], kTVMFFIList);
  if (!seq) {
    tvm_ffi_release(op);
    fail(&a, 2);
    return tvm_ffi_raise("TypeError", "%s(): args must be a list or tuple, got %s", call->name,
                         tvm_ffi_any_type_name(&a.v[2]));
  }
  int64_t n = tvm_ffi_seq_size(seq);
  tvm_script_items it;
  if (!tvm_script_items_init(&it, n)) {
    tvm_ffi_release(op);
    return -1;
  }
  tvm_tir_expr_obj* r = NULL;
  int64_t i = 0;
  for (; i < n; ++i) {
    tvm_tir_expr_obj* e = tvm_script__arg_to_expr(call, tvm_ffi_seq_at(seq, i), 3);
    if (!e) break;
    tvm_script_items_push(&it, e);
  }
  void* arr = i == n ? tvm_script_items_to_array(&it) : NULL;
  tvm_script_items_free(&it);
  if (arr) r = tvm_tir_call_new(t, op, arr); /* borrows op, arr */
  tvm_ffi_release(arr);
  tvm_ffi_release(op);
  if (!r && i < n) fail(&a, 2);
  return ret_obj(r, out);
}

/* T.<op>(args): a Call of "tir.<op>". */
static int op_call(tvm_script_call* call, tvm_tir_builtin id, TVMFFIAny* out) {
  bool have_dtype = false;
  DLDataType dtype = TVM_TIR_INT32;
  for (int32_t k = 0; k < call->num_kwargs; ++k) {
    call->error_arg = call->num_args + k;
    if (strcmp(call->kw_names[k], "dtype") != 0) {
      return tvm_ffi_raise("TypeError", "%s() got an unexpected keyword argument '%s'", call->name,
                           call->kw_names[k]);
    }
    char what[160];
    snprintf(what, sizeof(what), "argument 'dtype' of %s", call->name);
    if (tvm_script__value_to_dtype(&call->kwargs[k], what, &dtype) != 0) return -1;
    have_dtype = true;
  }
  /* The printed dtype argument: first for extern calls, last for tvm_struct_get. */
  int32_t lo = 0, hi = call->num_args;
  if (!have_dtype && (dtype_first(id) || id == TVM_TIR_BUILTIN_tvm_struct_get)) {
    if (call->num_args == 0) {
      call->error_arg = -1;
      return tvm_ffi_raise("TypeError", "%s() missing required argument 'dtype'", call->name);
    }
    int32_t at = dtype_first(id) ? lo++ : --hi;
    call->error_arg = at;
    char what[160];
    snprintf(what, sizeof(what), "argument 'dtype' of %s", call->name);
    if (tvm_script__value_to_dtype(&call->args[at], what, &dtype) != 0) return -1;
    have_dtype = true;
  }
  call->error_arg = -1;
  int64_t n = hi - lo;
  tvm_tir_expr_obj* stack_args[8];
  tvm_tir_expr_obj** args = n <= 8 ? stack_args : tvm_ffi_calloc((size_t)n, sizeof(*args));
  if (!args) return -1;
  int rc = -1;
  int64_t done = 0;
  for (; done < n; ++done) {
    args[done] = tvm_script__arg_to_expr(call, &call->args[lo + done], done + 1);
    if (!args[done]) {
      call->error_arg = (int32_t)(lo + done);
      goto done;
    }
  }
  if (tvm_script__binary_operand_op(id) && n >= 2 &&
      (match_literal(&call->args[lo], &args[0], args[1]) != 0 ||
       match_literal(&call->args[lo + 1], &args[1], args[0]) != 0)) {
    goto done;
  }
  if (id == TVM_TIR_BUILTIN_if_then_else && n == 3 &&
      (match_literal(&call->args[lo + 1], &args[1], args[2]) != 0 ||
       match_literal(&call->args[lo + 2], &args[2], args[1]) != 0)) {
    goto done;
  }
  if (!have_dtype && !tvm_script__tir_call_rule_dtype(id, (const void* const*)args, n, &dtype)) {
    tvm_ffi_raise("TypeError", "%s(): cannot infer the result dtype without arguments; pass "
                  "dtype=", call->name);
    goto done;
  }
  {
    void* arr = tvm_ffi_array_of_objects((void* const*)args, n);
    tvm_tir_op_obj* op = arr ? tvm_tir_builtin_op(id) : NULL;
    tvm_tir_expr_obj* r = op ? tvm_tir_call_new(dtype, op, arr) : NULL; /* borrows op, arr */
    tvm_ffi_release(op);
    tvm_ffi_release(arr);
    rc = ret_obj(r, out);
  }
done:
  for (int64_t i = 0; i < done; ++i) tvm_ffi_release(args[i]);
  if (args != stack_args) tvm_ffi_free(args);
  return rc;
}

#define TVM_TIR_OP(id, name, effect, num_inputs)         \
  static int op_##id(tvm_script_call* c, TVMFFIAny* o) { \
    return op_call(c, TVM_TIR_BUILTIN_##id, o);          \
  }
#include <tvm/tir/ops.def>

/* ---- The table ----------------------------------------------------------------------------- */
const tvm_script_builtin tvm_script__tir_expr_builtins[] = {
    {"handle", b_handle},
    {"ptr", b_ptr},
    {"Var", b_Var},
    {"SizeVar", b_SizeVar},
    {"max_value", b_max_value},
    {"abs", b_abs},
    {"min_value", b_min_value},
    {"Cast", b_Cast},
    {"cast", b_cast},
    {"Call", b_Call},
    {"const", b_const},
    {"IntImm", b_IntImm},
    {"FloatImm", b_FloatImm},
    {"StringImm", b_StringImm},
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) {#Name, b_##Name},
#include <tvm/tir/nodes.def>
    {"Not", b_Not},
    {"min", b_min},
    {"max", b_max},
    {"truncdiv", b_truncdiv},
    {"truncmod", b_truncmod},
    {"floordiv", b_floordiv},
    {"floormod", b_floormod},
    {"ceildiv", b_ceildiv},
    {"Select", b_Select},
    {"Ramp", b_Ramp},
    {"ramp", b_Ramp},
    {"Broadcast", b_Broadcast},
    {"broadcast", b_Broadcast},
    {"Shuffle", b_Shuffle},
    {"Let", b_Let},
    {"iter_var", b_iter_var},
    {"Tuple", b_Tuple},
    {"target", tvm_script__b_target},
    {"comm_reducer", tvm_script__b_comm_reducer},
    {"index_map", tvm_script__b_index_map},
    {"meta_var", tvm_script__b_meta_var},
/* Every op of ops.def under its name without "tir." (T.exp, T.tvm_call_packed, ...). */
#define TVM_TIR_OP(id, name, effect, num_inputs) {#id, op_##id},
#include <tvm/tir/ops.def>
    /* Upstream's Python names of the packed-call ops. */
    {"call_packed", op_tvm_call_packed},
    {"call_cpacked", op_tvm_call_cpacked},
    {"call_packed_lowered", op_tvm_call_packed_lowered},
    {"call_cpacked_lowered", op_tvm_call_cpacked_lowered},
};
const int32_t tvm_script__tir_expr_builtin_count =
    (int32_t)(sizeof(tvm_script__tir_expr_builtins) / sizeof(tvm_script__tir_expr_builtins[0]));

/*
 * printer_tir_expr.c: TIR expressions and types -> Doc (registered under the default token, as
 * these nodes belong to TIR alone).
 *
 * Literals carry their type unless it is the default (int32 prints bare; every float is typed:
 * `T.float32(1.0)`; booleans as `T.bool(True)`). Operators print infix with Python's
 * precedence where TVMScript parses them back to the same node, and as calls otherwise
 * (`T.Div(a, b)` on integers, `T.min`, `T.truncmod`; `T.Add(1, 2)` when both operands are
 * constants, which infix text would fold; `T.FloorMod(a, 0)`, which `a % 0` would reject).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printer_tir.h"

/* ---- Shared helpers ------------------------------------------------------------------------ */
void* tvm_script__tir_path(tvm_script_docsifier* d, const void* path, const char* name) {
  return tvm_script_path_attr(d, path, name);
}

void* tvm_script__tir_path_item(tvm_script_docsifier* d, const void* path, const char* name,
                                int64_t i) {
  void* p = tvm_script_path_attr(d, path, name);
  void* q = p ? tvm_script_path_item(d, p, i) : NULL;
  tvm_ffi_release(p);
  return q;
}

tvm_script_doc_obj* tvm_script__tir_child(tvm_script_docsifier* d, const void* child,
                                          const void* path, const char* name) {
  void* p = tvm_script__tir_path(d, path, name);
  tvm_script_doc_obj* doc = p ? tvm_script_as_doc_obj(d, child, p) : NULL;
  tvm_ffi_release(p);
  return doc;
}

tvm_script_doc_obj* tvm_script__tir_child_item(tvm_script_docsifier* d, const void* arr,
                                               const void* path, const char* name, int64_t i) {
  void* p = tvm_script__tir_path_item(d, path, name, i);
  tvm_script_doc_obj* doc = p ? tvm_script_as_doc(d, tvm_ffi_seq_at(arr, i), p) : NULL;
  tvm_ffi_release(p);
  return doc;
}

tvm_script_doc_obj* tvm_script__tir_dtype_literal(DLDataType t) {
  return tvm_script_literal_str(tvm_tir_dtype_str(t).s);
}

tvm_script_doc_obj* tvm_script__tir_dtype_attr(tvm_script_docsifier* d, DLDataType t) {
  return tvm_script_attr_doc_take(tvm_script_prefix(d, "tirx"), tvm_tir_dtype_str(t).s);
}

/* Nodes of an expression's arithmetic tree, counted up to `cap` (other nodes count one). */
static int expr_size(const void* e, int cap) {
  switch (tvm_tir_kind_of(e)) {
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) case TVM_TIR_KIND_##Name:
#include <tvm/tir/nodes.def>
    {
      int a = expr_size(((const tvm_tir_binary_obj*)e)->a, cap - 1);
      return a >= cap - 1 ? cap : 1 + a + expr_size(((const tvm_tir_binary_obj*)e)->b, cap - 1 - a);
    }
    case TVM_TIR_KIND_Cast: return 1 + expr_size(((const tvm_tir_cast_obj*)e)->value, cap - 1);
    default: return 1;
  }
}

tvm_tir_expr_obj* tvm_script__tir_range_end(tvm_tir_expr_obj* min, tvm_tir_expr_obj* extent) {
  tvm_tir_expr_obj* end = tvm_tir_add(min, extent);
  int64_t c;
  if (!end || tvm_tir_as_const_int(end, &c) || !tvm_tir_dtype_is_index(end->dtype)) return end;
  /* A smaller simplified end (`range(1, n - 1)`, not `range(1, 1 + (n - 2))`), when the parser's
   * extent of it is this extent again. */
  tvm_tir_expr_obj* simple = tvm_tir_simplify_expr(end, NULL);
  bool same = false;
  if (!simple) {
    tvm_ffi_error_clear(); /* print the unsimplified end */
  } else if (expr_size(simple, 64) < expr_size(end, 64)) {
    tvm_tir_expr_obj* back = tvm_script__range_extent(min, simple);
    TVMFFIAny a = tvm_ffi_any_obj(back), b = tvm_ffi_any_obj(extent);
    int eq = back ? tvm_ffi_structural_equal(&a, &b, false, NULL, NULL) : -1;
    if (eq < 0) tvm_ffi_error_clear();
    same = eq == 1;
    tvm_ffi_release(back);
  }
  if (!same) {
    tvm_ffi_release(simple);
    return end;
  }
  tvm_ffi_release(end);
  return simple;
}

bool tvm_script__tir_is_const(const void* e, int64_t v) {
  return tvm_tir_kind_of(e) == TVM_TIR_KIND_IntImm && ((const tvm_tir_int_imm_obj*)e)->value == v;
}

bool tvm_script__tir_expr_has_var(const void* e) {
  switch (tvm_tir_kind_of(e)) {
    case TVM_TIR_KIND_IntImm:
    case TVM_TIR_KIND_FloatImm:
    case TVM_TIR_KIND_StringImm: return false;
    case TVM_TIR_KIND_Cast:
      return tvm_script__tir_expr_has_var(((const tvm_tir_cast_obj*)e)->value);
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) case TVM_TIR_KIND_##Name:
#include <tvm/tir/nodes.def>
      return tvm_script__tir_expr_has_var(((const tvm_tir_binary_obj*)e)->a) ||
             tvm_script__tir_expr_has_var(((const tvm_tir_binary_obj*)e)->b);
    default: return true;
  }
}

tvm_script_frame* tvm_script__tir_decl_frame(tvm_script_docsifier* d) {
  tvm_script_frame* f = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_FUNC);
  return f ? f : tvm_script_frame_root(d);
}

/* `T.int32()`, `T.int32(is_size_var=True)`, `T.handle("float32", "shared")`. */
static tvm_script_doc_obj* var_creation(tvm_script_docsifier* d, const tvm_tir_var_obj* var,
                                        const void* path) {
  const tvm_tir_type_obj* ty = var->type_annotation;
  if (tvm_tir_kind_of(ty) == TVM_TIR_KIND_PointerType) {
    void* p = tvm_script__tir_path(d, path, "type_annotation");
    tvm_script_doc_obj* doc = p ? tvm_script_as_doc_obj(d, ty, p) : NULL;
    tvm_ffi_release(p);
    return doc;
  }
  tvm_script_doc_obj* callee = tvm_script__tir_dtype_attr(d, var->expr.dtype);
  if (tvm_tir_kind_of(var) == TVM_TIR_KIND_SizeVar) {
    return tvm_script_call_doc_take(callee, NULL, tvm_script__str_array1("is_size_var"),
                                    tvm_script_doc_array_take(tvm_script_literal_bool(true)));
  }
  return tvm_script_call_doc_take(callee, NULL, NULL, NULL);
}

int tvm_script__tir_declare_var(tvm_script_docsifier* d, const tvm_tir_var_obj* var,
                                const void* path, tvm_script_frame* frame) {
  tvm_script_doc_obj* rhs = var_creation(d, var, path);
  if (!rhs) return -1;
  tvm_script_doc_obj* lhs = tvm_script_define_var(d, var, tvm_tir_var_name(var), frame);
  return tvm_script_frame_emit_take(frame, tvm_script_assign_doc_take(lhs, rhs, NULL));
}

/* ---- Variables and literals ---------------------------------------------------------------- */
static tvm_script_doc_obj* conv_var(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                    const void* path) {
  const tvm_tir_var_obj* var = (const void*)obj->v_obj;
  tvm_script_doc_obj* doc = tvm_script_var_doc(d, var);
  if (doc) return doc;
  /* A free variable: declared once, before the statement that first uses it. */
  if (tvm_script__tir_declare_var(d, var, path, tvm_script__tir_decl_frame(d)) != 0) return NULL;
  return tvm_script_var_doc(d, var);
}

/* `T.<dtype>(value_doc)` */
static tvm_script_doc_obj* typed(tvm_script_docsifier* d, DLDataType t, void* value_doc) {
  return tvm_script_doc_call_take(tvm_script__tir_dtype_attr(d, t), value_doc);
}

static tvm_script_doc_obj* conv_int_imm(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                        const void* path) {
  const tvm_tir_int_imm_obj* imm = (const void*)obj->v_obj;
  DLDataType t = imm->expr.dtype;
  if (tvm_tir_dtype_is_bool(t)) return typed(d, t, tvm_script_literal_bool(imm->value != 0));
  tvm_script_doc_obj* lit = tvm_script_literal_int(imm->value);
  bool bare = tvm_tir_dtype_equal(t, TVM_TIR_INT32) && !tvm_script_docsifier_options(d)->verbose_literals;
  return bare ? lit : typed(d, t, lit);
}

/* v rounded to nearest even in a binary format with `precision` significand bits, minimum
 * normal exponent emin and largest finite value maxv (float16, bfloat16). */
static double round_to_format(double v, int precision, int emin, double maxv) {
  if (!isfinite(v) || v == 0) return v;
  int e;
  frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
  double quantum = ldexp(1.0, (e - 1 < emin ? emin : e - 1) - (precision - 1));
  double r = nearbyint(fabs(v) / quantum) * quantum;
  return copysign(r > maxv ? INFINITY : r, v);
}

static double round_half(double v, bool bf16) {
  return bf16 ? round_to_format(v, 8, -126, 3.38953138925153547590470800371487866880e38)
              : round_to_format(v, 11, -14, 65504.0);
}

/* "%.*g" of v read back (whatever decimal point the locale writes). */
static double read_back_g(double v, int digits) {
  char buf[48], norm[48];
  snprintf(buf, sizeof(buf), "%.*g", digits, v);
  size_t n = 0;
  for (const char* c = buf; *c && n + 1 < sizeof(norm); ++c) {
    bool keep = (*c >= '0' && *c <= '9') || *c == 'e' || *c == 'E' || *c == '+' || *c == '-';
    if (keep) {
      norm[n++] = *c;
    } else if (n == 0 || norm[n - 1] != '.') {
      norm[n++] = '.';
    }
  }
  norm[n] = '\0';
  return tvm_ffi_strtod(norm, NULL);
}

/* The value with the shortest decimal text that reads back as the same value: float32 and
 * float64 constants store a double, which the parser keeps as read (as upstream), so its own
 * shortest text (0.1 stays "0.1"; a float32-rounded 0.1 prints all its digits);
 * float16/bfloat16 values compare after rounding to that type (the parser rounds them). */
static double shortest(double v, DLDataType t) {
  if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v) return v; /* integral: exact */
  if (t.bits == 16 && (t.code == kDLFloat || t.code == kDLBfloat)) {
    bool bf16 = t.code == kDLBfloat;
    double target = round_half(v, bf16);
    for (int digits = 1; digits < 17; ++digits) {
      double r = read_back_g(v, digits);
      if (round_half(r, bf16) == target) return r;
    }
    return v;
  }
  char buf[40];
  tvm_ffi_format_double(v, false, buf, sizeof(buf));
  return tvm_ffi_strtod(buf, NULL);
}

static tvm_script_doc_obj* conv_float_imm(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  const tvm_tir_float_imm_obj* imm = (const void*)obj->v_obj;
  double v = imm->value;
  tvm_script_doc_obj* lit;
  if (isnan(v)) {
    lit = tvm_script_literal_str("nan");
  } else if (isinf(v)) {
    lit = tvm_script_literal_str(v > 0 ? "inf" : "-inf");
  } else {
    lit = tvm_script_literal_float(shortest(v, imm->expr.dtype));
  }
  return typed(d, imm->expr.dtype, lit);
}

static tvm_script_doc_obj* conv_string_imm(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                           const void* path) {
  /* The String object itself, not its C string: a NUL byte prints as an escape, not an end. */
  TVMFFIAny value = tvm_ffi_any_obj(((const tvm_tir_string_imm_obj*)obj->v_obj)->value);
  return tvm_script_literal_doc(&value);
}

/* ---- Operators ----------------------------------------------------------------------------- */
static tvm_script_doc_obj* conv_cast(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                     const void* path) {
  const tvm_tir_cast_obj* c = (const void*)obj->v_obj;
  return tvm_script_doc_call_take(tir_prefixed(d, "Cast"),
                                  tvm_script__tir_dtype_literal(c->expr.dtype),
                                  tvm_script__tir_child(d, c->value, path, "value"));
}

static bool is_imm(const void* e) {
  tvm_tir_kind k = tvm_tir_kind_of(e);
  return k == TVM_TIR_KIND_IntImm || k == TVM_TIR_KIND_FloatImm;
}

/* Infix operator of a binary kind (0 = none) and the name of its call form. */
static void binop_info(tvm_tir_kind k, int32_t* op, const char** name) {
  switch (k) {
    case TVM_TIR_KIND_Add: *op = TVM_SCRIPT_OP_Add; *name = "Add"; return;
    case TVM_TIR_KIND_Sub: *op = TVM_SCRIPT_OP_Sub; *name = "Sub"; return;
    case TVM_TIR_KIND_Mul: *op = TVM_SCRIPT_OP_Mult; *name = "Mul"; return;
    case TVM_TIR_KIND_Div: *op = TVM_SCRIPT_OP_Div; *name = "Div"; return;
    case TVM_TIR_KIND_Mod: *op = 0; *name = "truncmod"; return;
    case TVM_TIR_KIND_FloorDiv: *op = TVM_SCRIPT_OP_FloorDiv; *name = "FloorDiv"; return;
    case TVM_TIR_KIND_FloorMod: *op = TVM_SCRIPT_OP_Mod; *name = "FloorMod"; return;
    case TVM_TIR_KIND_Min: *op = 0; *name = "min"; return;
    case TVM_TIR_KIND_Max: *op = 0; *name = "max"; return;
    case TVM_TIR_KIND_EQ: *op = TVM_SCRIPT_OP_Eq; *name = "EQ"; return;
    case TVM_TIR_KIND_NE: *op = TVM_SCRIPT_OP_NotEq; *name = "NE"; return;
    case TVM_TIR_KIND_LT: *op = TVM_SCRIPT_OP_Lt; *name = "LT"; return;
    case TVM_TIR_KIND_LE: *op = TVM_SCRIPT_OP_LtE; *name = "LE"; return;
    case TVM_TIR_KIND_GT: *op = TVM_SCRIPT_OP_Gt; *name = "GT"; return;
    case TVM_TIR_KIND_GE: *op = TVM_SCRIPT_OP_GtE; *name = "GE"; return;
    case TVM_TIR_KIND_And: *op = TVM_SCRIPT_OP_And; *name = "And"; return;
    default: *op = TVM_SCRIPT_OP_Or; *name = "Or"; return;
  }
}

/* An operand of a binary node printed as a call because both operands are constants: an
 * IntImm as TIR writes it (T.int64(1)) whatever token prints around it (under Relax's a plain
 * int is an int64, which the call's arguments would read back as an int32). */
static tvm_script_doc_obj* const_operand(tvm_script_docsifier* d, const void* e,
                                         const void* path, const char* name) {
  if (tvm_tir_kind_of(e) != TVM_TIR_KIND_IntImm) return tvm_script__tir_child(d, e, path, name);
  void* p = tvm_script__tir_path(d, path, name);
  TVMFFIAny a = tvm_ffi_any_obj((void*)e);
  tvm_script_doc_obj* doc = p ? conv_int_imm(d, &a, p) : NULL;
  if (doc) tvm_script_doc_mark(d, doc, p);
  tvm_ffi_release(p);
  return doc;
}

static tvm_script_doc_obj* conv_binary(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                       const void* path) {
  const tvm_tir_binary_obj* b = (const void*)obj->v_obj;
  int32_t op;
  const char* name;
  binop_info(tvm_tir_kind_of(b), &op, &name);
  /* Integer `/` would parse as floor division; two constants would fold. */
  if (op == TVM_SCRIPT_OP_Div && !tvm_tir_dtype_is_float(b->expr.dtype)) op = 0;
  bool consts = is_imm(b->a) && is_imm(b->b);
  if (consts) op = 0;
  /* `a // 0` and `a % 0` are errors when parsed (the node itself is allowed). */
  if ((op == TVM_SCRIPT_OP_FloorDiv || op == TVM_SCRIPT_OP_Mod) &&
      tvm_script__tir_is_const(b->b, 0))
    op = 0;
  tvm_script_doc_obj* a = consts ? const_operand(d, b->a, path, "a")
                                 : tvm_script__tir_child(d, b->a, path, "a");
  tvm_script_doc_obj* c = consts ? const_operand(d, b->b, path, "b")
                                 : tvm_script__tir_child(d, b->b, path, "b");
  if (op) return tvm_script_operation_doc_take(op, tvm_script_doc_array_take(a, c));
  return tvm_script_doc_call_take(tir_prefixed(d, name), a, c);
}

static tvm_script_doc_obj* conv_not(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                    const void* path) {
  const tvm_tir_not_obj* n = (const void*)obj->v_obj;
  tvm_script_doc_obj* a = tvm_script__tir_child(d, n->a, path, "a");
  /* `not` of a constant would fold when parsed. */
  if (is_imm(n->a)) return tvm_script_doc_call_take(tir_prefixed(d, "Not"), a);
  return tvm_script_operation_doc_take(TVM_SCRIPT_OP_Not, tvm_script_doc_array_take(a));
}

static tvm_script_doc_obj* conv_select(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                       const void* path) {
  const tvm_tir_select_obj* s = (const void*)obj->v_obj;
  return tvm_script_doc_call_take(tir_prefixed(d, "Select"),
                                  tvm_script__tir_child(d, s->condition, path, "condition"),
                                  tvm_script__tir_child(d, s->true_value, path, "true_value"),
                                  tvm_script__tir_child(d, s->false_value, path, "false_value"));
}

static tvm_script_doc_obj* conv_buffer_load(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                            const void* path) {
  const tvm_tir_buffer_load_obj* l = (const void*)obj->v_obj;
  tvm_script_doc_obj* buf = tvm_script__tir_child(d, l->buffer, path, "buffer");
  void* p = tvm_script__tir_path(d, path, "indices");
  void* indices = buf && p ? tvm_script_as_doc_array(d, l->indices, p) : NULL;
  tvm_ffi_release(p);
  return tvm_script_index_doc_take(buf, indices);
}

static tvm_script_doc_obj* conv_ramp(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                     const void* path) {
  const tvm_tir_ramp_obj* r = (const void*)obj->v_obj;
  return tvm_script_doc_call_take(
      tir_prefixed(d, "Ramp"), tvm_script__tir_child(d, r->base, path, "base"),
      tvm_script__tir_child(d, r->stride, path, "stride"), tvm_script_literal_int(r->lanes));
}

static tvm_script_doc_obj* conv_broadcast(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  const tvm_tir_broadcast_obj* b = (const void*)obj->v_obj;
  return tvm_script_doc_call_take(tir_prefixed(d, "Broadcast"),
                                  tvm_script__tir_child(d, b->value, path, "value"),
                                  tvm_script_literal_int(b->lanes));
}

/* T.Let(body, where={var: value}) */
static tvm_script_doc_obj* conv_let(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                    const void* path) {
  const tvm_tir_let_obj* l = (const void*)obj->v_obj;
  tvm_script_doc_obj* value = tvm_script__tir_child(d, l->value, path, "value");
  tvm_script_doc_obj* var = tvm_script__tir_child(d, l->var, path, "var");
  tvm_script_doc_obj* body = tvm_script__tir_child(d, l->body, path, "body");
  tvm_script_doc_obj* where = tvm_script_dict_doc_take(tvm_script_doc_array_take(var),
                                                       tvm_script_doc_array_take(value));
  return tvm_script_call_doc_take(tir_prefixed(d, "Let"), tvm_script_doc_array_take(body),
                                  tvm_script__str_array1("where"),
                                  tvm_script_doc_array_take(where));
}

/* Ops whose TVMScript call takes the result dtype first. */
static bool dtype_first(const void* op) {
  return tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_call_extern) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_call_pure_extern) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_call_llvm_intrin) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_call_llvm_pure_intrin) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_reinterpret) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_type_annotation);
}

/* For an op whose two operands share a type when parsed (a bare literal takes the other's), an
 * int32 literal next to an operand of another type prints as T.int32(v). Consumes args. */
static void* type_literal_operand(tvm_script_docsifier* d, const tvm_tir_call_obj* c, int id,
                                  void* args) {
  if (id < 0 || !tvm_script__binary_operand_op((tvm_tir_builtin)id)) return args;
  const tvm_tir_expr_obj* a[2] = {tvm_ffi_seq_obj_at(c->args, 0), tvm_ffi_seq_obj_at(c->args, 1)};
  if (tvm_tir_dtype_equal(a[0]->dtype, a[1]->dtype)) return args;
  void* list = NULL;
  for (int k = 0; k < 2; ++k) {
    int64_t v;
    if (tvm_tir_kind_of(a[k]) != TVM_TIR_KIND_IntImm || !tvm_tir_as_const_int(a[k], &v) ||
        !tvm_tir_dtype_equal(a[k]->dtype, TVM_TIR_INT32))
      continue;
    if (!list) {
      list = tvm_ffi_list_new();
      for (int64_t i = 0; list && i < tvm_ffi_seq_size(args); ++i) {
        if (tvm_ffi_list_push(list, tvm_ffi_seq_at(args, i)) != 0) tvm_ffi_release(list), list = NULL;
      }
      if (!list) {
        tvm_ffi_release(args);
        return NULL;
      }
    }
    tvm_script_doc_obj* lit = typed(d, TVM_TIR_INT32, tvm_script_literal_int(v));
    TVMFFIAny la = tvm_ffi_any_obj(lit);
    int rc = lit ? tvm_ffi_list_set(list, k, &la) : -1;
    tvm_ffi_release(lit);
    if (rc != 0) {
      tvm_ffi_release(list);
      tvm_ffi_release(args);
      return NULL;
    }
  }
  if (!list) return args;
  tvm_ffi_release(args);
  return tvm_script_doc_list_to_array_take(list);
}

static tvm_script_doc_obj* conv_call(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                     const void* path) {
  const tvm_tir_call_obj* c = (const void*)obj->v_obj;
  tvm_script_doc_obj* callee = tvm_script__tir_child(d, c->op, path, "op");
  void* p = tvm_script__tir_path(d, path, "args");
  void* args = p ? tvm_script_as_doc_array(d, c->args, p) : NULL;
  tvm_ffi_release(p);
  int id = tvm_tir_builtin_of(c->op);
  if (args && tvm_ffi_seq_size(c->args) >= 2) args = type_literal_operand(d, c, id, args);
  if (args && tvm_tir_kind_of(c->op) == TVM_TIR_KIND_Op &&
      (dtype_first(c->op) || tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_struct_get))) {
    /* Rebuild the argument list with the dtype literal first (or last for tvm_struct_get). */
    bool first = dtype_first(c->op);
    int64_t n = tvm_ffi_seq_size(args);
    void* list = tvm_ffi_list_new();
    tvm_script_doc_obj* dt = tvm_script__tir_dtype_literal(c->expr.dtype);
    TVMFFIAny dta = tvm_ffi_any_obj(dt);
    bool ok = list && dt && (!first || tvm_ffi_list_push(list, &dta) == 0);
    for (int64_t i = 0; ok && i < n; ++i) ok = tvm_ffi_list_push(list, tvm_ffi_seq_at(args, i)) == 0;
    if (ok && !first) ok = tvm_ffi_list_push(list, &dta) == 0;
    tvm_ffi_release(dt);
    tvm_ffi_release(args);
    args = ok ? tvm_script_doc_list_to_array_take(list) : (tvm_ffi_release(list), NULL);
  } else if (args && id >= 0) {
    /* `dtype=` where the op's rule would make another dtype of these arguments (a pass's
     * `tvm_call_packed` of bool), so that the text reads back as this call. */
    int64_t n = tvm_ffi_seq_size(c->args);
    const void* first[2] = {n > 0 ? tvm_ffi_seq_obj_at(c->args, 0) : NULL,
                            n > 1 ? tvm_ffi_seq_obj_at(c->args, 1) : NULL};
    DLDataType rule;
    if (!tvm_script__tir_call_rule_dtype((tvm_tir_builtin)id, first, n, &rule) ||
        !tvm_tir_dtype_equal(rule, c->expr.dtype)) {
      void* dt = tvm_script_doc_array_take(tvm_script__tir_dtype_literal(c->expr.dtype));
      return tvm_script_call_doc_take(callee, args, tvm_script__str_array1("dtype"), dt);
    }
  }
  return tvm_script_call_doc_take(callee, args, NULL, NULL);
}

static tvm_script_doc_obj* conv_shuffle(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                        const void* path) {
  const tvm_tir_shuffle_obj* s = (const void*)obj->v_obj;
  return tvm_script_doc_call_take(tir_prefixed(d, "Shuffle"),
                                  tvm_script__tir_child(d, s->vectors, path, "vectors"),
                                  tvm_script__tir_child(d, s->indices, path, "indices"));
}

/* An op: `T.exp` for "tir.exp", `I.Op("name")` for other dialects' ops. */
static tvm_script_doc_obj* conv_op(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                   const void* path) {
  const char* name = tvm_tir_op_name((const void*)obj->v_obj);
  if (strncmp(name, "tir.", 4) == 0) return tir_prefixed(d, name + 4);
  return tvm_script_doc_call_take(tvm_script_prefixed(d, "ir", "Op"), tvm_script_literal_str(name));
}

/* ---- Types --------------------------------------------------------------------------------- */
static tvm_script_doc_obj* conv_prim_type(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  return tvm_script__tir_dtype_attr(d, ((const tvm_tir_prim_type_obj*)obj->v_obj)->dtype);
}

/* A bare data type value (an attribute value `T.int32`): the same name the parser reads back. */
static tvm_script_doc_obj* conv_dtype(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  return tvm_script__tir_dtype_attr(d, obj->v_dtype);
}

/* T.handle("float32", "shared") (scope omitted when global). */
static tvm_script_doc_obj* conv_pointer_type(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                             const void* path) {
  const tvm_tir_pointer_type_obj* t = (const void*)obj->v_obj;
  tvm_script_doc_obj* elem;
  if (tvm_tir_kind_of(t->element_type) == TVM_TIR_KIND_PrimType) {
    elem = tvm_script__tir_dtype_literal(((const tvm_tir_prim_type_obj*)t->element_type)->dtype);
  } else {
    elem = tvm_script__tir_child(d, t->element_type, path, "element_type");
  }
  const char* scope = tvm_ffi_str_cstr(t->storage_scope);
  if (!*scope) return tvm_script_doc_call_take(tir_prefixed(d, "handle"), elem);
  return tvm_script_doc_call_take(tir_prefixed(d, "handle"), elem, tvm_script_literal_str(scope));
}

/* TupleType([]) is void: `None`; others: `T.Tuple(...)`. */
static tvm_script_doc_obj* conv_tuple_type(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                           const void* path) {
  const tvm_tir_tuple_type_obj* t = (const void*)obj->v_obj;
  if (tvm_ffi_seq_size(t->fields) == 0) return tvm_script_literal_none();
  void* p = tvm_script__tir_path(d, path, "fields");
  void* fields = p ? tvm_script_as_doc_array(d, t->fields, p) : NULL;
  tvm_ffi_release(p);
  return tvm_script_call_doc_take(tir_prefixed(d, "Tuple"), fields, NULL, NULL);
}

/* ---- Attribute values ---------------------------------------------------------------------- */
/* `T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])`: the lhs then rhs Vars are the
 * lambda's parameters (defined in a scope of their own); several results print as a tuple. */
static tvm_script_doc_obj* conv_comm_reducer(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                             const void* path) {
  const tvm_tir_comm_reducer_obj* r = (const void*)obj->v_obj;
  tvm_script_frame* f = tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_SCOPE);
  if (!f) return NULL;
  void *params = tvm_ffi_list_new(), *results = tvm_ffi_list_new();
  bool ok = params && results;
  for (int side = 0; ok && side < 2; ++side) {
    const void* vars = side == 0 ? r->lhs : r->rhs;
    for (int64_t i = 0; ok && i < tvm_ffi_seq_size(vars); ++i) {
      const tvm_tir_var_obj* v = tvm_ffi_seq_obj_at(vars, i);
      tvm_script_doc_obj* id = tvm_script_define_var(d, v, tvm_tir_var_name(v), f);
      TVMFFIAny a = tvm_ffi_any_obj(id);
      ok = id && tvm_ffi_list_push(params, &a) == 0;
      tvm_ffi_release(id);
    }
  }
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(r->result); ++i) {
    tvm_script_doc_obj* e = tvm_script__tir_child_item(d, r->result, path, "result", i);
    TVMFFIAny a = tvm_ffi_any_obj(e);
    ok = e && tvm_ffi_list_push(results, &a) == 0;
    tvm_ffi_release(e);
  }
  tvm_script_frame_pop(d);
  if (!ok) {
    tvm_ffi_release(params);
    tvm_ffi_release(results);
    return NULL;
  }
  void* body_items = tvm_script_doc_list_to_array_take(results);
  tvm_script_doc_obj* body = NULL;
  if (body_items && tvm_ffi_seq_size(body_items) == 1) {
    body = tvm_ffi_seq_obj_at(body_items, 0);
    tvm_ffi_retain(body);
    tvm_ffi_release(body_items);
  } else {
    body = tvm_script_tuple_doc_take(body_items);
  }
  tvm_script_doc_obj* lambda =
      tvm_script_lambda_doc_take(tvm_script_doc_list_to_array_take(params), body);
  return tvm_script_doc_call_take(
      tir_prefixed(d, "comm_reducer"), lambda,
      tvm_script__tir_child(d, r->identity_element, path, "identity_element"));
}

/* `lambda i, j: (j, i)` of an IndexMap m at path (its Vars defined in a scope of their own). */
static tvm_script_doc_obj* index_map_lambda(tvm_script_docsifier* d,
                                            const tvm_tir_index_map_obj* m, const void* path) {
  tvm_script_frame* f = tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_SCOPE);
  if (!f) return NULL;
  void* params = tvm_ffi_list_new();
  bool ok = params != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(m->initial_indices); ++i) {
    const tvm_tir_var_obj* v = tvm_ffi_seq_obj_at(m->initial_indices, i);
    tvm_script_doc_obj* id = tvm_script_define_var(d, v, tvm_tir_var_name(v), f);
    TVMFFIAny a = tvm_ffi_any_obj(id);
    ok = id && tvm_ffi_list_push(params, &a) == 0;
    tvm_ffi_release(id);
  }
  void* fp = ok ? tvm_script__tir_path(d, path, "final_indices") : NULL;
  void* final = fp ? tvm_script_as_doc_array(d, m->final_indices, fp) : NULL;
  tvm_ffi_release(fp);
  tvm_script_frame_pop(d);
  if (!final) {
    tvm_ffi_release(params);
    return NULL;
  }
  return tvm_script_lambda_doc_take(tvm_script_doc_list_to_array_take(params),
                                    tvm_script_tuple_doc_take(final));
}

/* `T.index_map(lambda i, j: (j, i))`, plus `inverse_index_map=lambda ...` when it has one, as
 * upstream; and `index_dtype="int32"` when the indices are not int64 (upstream's parser's
 * default, which its printer leaves out). */
static tvm_script_doc_obj* conv_index_map(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  const tvm_tir_index_map_obj* m = (const void*)obj->v_obj;
  const tvm_tir_index_map_obj* inv =
      tvm_ffi_any_as_object(&m->inverse_index_map, tvm_tir_type_index(TVM_TIR_KIND_IndexMap));
  void *keys = tvm_ffi_list_new(), *values = tvm_ffi_list_new();
  tvm_script_doc_obj* map = index_map_lambda(d, m, path);
  bool ok = keys && values && map;
  if (ok && inv) {
    void* ip = tvm_script__tir_path(d, path, "inverse_index_map");
    tvm_script_doc_obj* inv_doc = ip ? index_map_lambda(d, inv, ip) : NULL;
    tvm_ffi_release(ip);
    TVMFFIAny k = tvm_ffi_string("inverse_index_map"), v = tvm_ffi_any_obj(inv_doc);
    ok = inv_doc && tvm_ffi_list_push(keys, &k) == 0 && tvm_ffi_list_push(values, &v) == 0;
    tvm_ffi_any_release(&k);
    tvm_ffi_release(inv_doc);
  }
  if (ok && tvm_ffi_seq_size(m->initial_indices) > 0) {
    DLDataType t = tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(m->initial_indices, 0));
    if (!tvm_tir_dtype_equal(t, TVM_TIR_INT64)) {
      tvm_script_doc_obj* dt = tvm_script__tir_dtype_literal(t);
      TVMFFIAny k = tvm_ffi_string("index_dtype"), v = tvm_ffi_any_obj(dt);
      ok = dt && tvm_ffi_list_push(keys, &k) == 0 && tvm_ffi_list_push(values, &v) == 0;
      tvm_ffi_any_release(&k);
      tvm_ffi_release(dt);
    }
  }
  void* key_arr = keys ? tvm_ffi_list_to_array(keys) : NULL;
  tvm_ffi_release(keys);
  if (!ok || !key_arr) {
    tvm_ffi_release(map);
    tvm_ffi_release(values);
    tvm_ffi_release(key_arr);
    return NULL;
  }
  return tvm_script_call_doc_take(tir_prefixed(d, "index_map"), tvm_script_doc_array_take(map),
                                  key_arr, tvm_script_doc_list_to_array_take(values));
}

/* `{"kind": "cuda", ...}`: upstream's export dict of a Target, the kind first and then the
 * attributes this Target has. */
static tvm_script_doc_obj* target_dict(tvm_script_docsifier* d, const tvm_tir_target_obj* t,
                                       const void* path) {
  void* ap = tvm_script__tir_path(d, path, "attrs");
  tvm_script_dict_doc_obj* attrs = ap ? (void*)tvm_script__map_doc(d, t->attrs, ap, NULL) : NULL;
  tvm_ffi_release(ap);
  if (!attrs) return NULL;
  void *keys = tvm_ffi_list_new(), *values = tvm_ffi_list_new();
  tvm_script_doc_obj* kk = tvm_script_literal_str("kind");
  tvm_script_doc_obj* kv = tvm_script__tir_child(d, t->kind, path, "kind");
  TVMFFIAny ka = tvm_ffi_any_obj(kk), va = tvm_ffi_any_obj(kv);
  bool ok = keys && values && kk && kv && tvm_ffi_list_push(keys, &ka) == 0 &&
            tvm_ffi_list_push(values, &va) == 0;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(attrs->keys); ++i) {
    ok = tvm_ffi_list_push(keys, tvm_ffi_seq_at(attrs->keys, i)) == 0 &&
         tvm_ffi_list_push(values, tvm_ffi_seq_at(attrs->values, i)) == 0;
  }
  tvm_ffi_release(kk);
  tvm_ffi_release(kv);
  tvm_ffi_release(attrs);
  if (!ok) {
    tvm_ffi_release(keys);
    tvm_ffi_release(values);
    return NULL;
  }
  return tvm_script_dict_doc_take(tvm_script_doc_list_to_array_take(keys),
                                  tvm_script_doc_list_to_array_take(values));
}

/* `T.target({"kind": "cuda", ...})`, as upstream prints a Target. */
static tvm_script_doc_obj* conv_target(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                       const void* path) {
  return tvm_script_doc_call_take(tir_prefixed(d, "target"),
                                  target_dict(d, (const void*)obj->v_obj, path));
}

/* `I.vdevice({"kind": "cuda", ...}, 0, "global")`, as upstream (the target as its dict). */
static tvm_script_doc_obj* conv_vdevice(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                        const void* path) {
  const tvm_tir_vdevice_obj* v = (const void*)obj->v_obj;
  void* tp = tvm_script__tir_path(d, path, "target");
  tvm_script_doc_obj* target = tp ? target_dict(d, v->target, tp) : NULL;
  tvm_ffi_release(tp);
  return tvm_script_doc_call_take(tvm_script_prefixed(d, "ir", "vdevice"), target,
                                  tvm_script_literal_int(v->vdevice_id),
                                  tvm_script_literal_str(tvm_ffi_str_cstr(v->memory_scope)));
}

/* `I.dummy_global_info()` */
static tvm_script_doc_obj* conv_dummy_global_info(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                                  const void* path) {
  (void)obj, (void)path;
  return tvm_script_doc_call_takev(tvm_script_prefixed(d, "ir", "dummy_global_info"), 0, NULL);
}

int tvm_script__register_tir_expr(void) {
  static const struct {
    tvm_tir_kind kind;
    tvm_script_converter fn;
  } k_table[] = {
      {TVM_TIR_KIND_Var, conv_var},
      {TVM_TIR_KIND_SizeVar, conv_var},
      {TVM_TIR_KIND_IntImm, conv_int_imm},
      {TVM_TIR_KIND_FloatImm, conv_float_imm},
      {TVM_TIR_KIND_StringImm, conv_string_imm},
      {TVM_TIR_KIND_Cast, conv_cast},
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) {TVM_TIR_KIND_##Name, conv_binary},
#include <tvm/tir/nodes.def>
      {TVM_TIR_KIND_Not, conv_not},
      {TVM_TIR_KIND_Select, conv_select},
      {TVM_TIR_KIND_BufferLoad, conv_buffer_load},
      {TVM_TIR_KIND_Ramp, conv_ramp},
      {TVM_TIR_KIND_Broadcast, conv_broadcast},
      {TVM_TIR_KIND_Let, conv_let},
      {TVM_TIR_KIND_Call, conv_call},
      {TVM_TIR_KIND_Shuffle, conv_shuffle},
      {TVM_TIR_KIND_Op, conv_op},
      {TVM_TIR_KIND_PrimType, conv_prim_type},
      {TVM_TIR_KIND_PointerType, conv_pointer_type},
      {TVM_TIR_KIND_TupleType, conv_tuple_type},
      {TVM_TIR_KIND_CommReducer, conv_comm_reducer},
      {TVM_TIR_KIND_Target, conv_target},
      {TVM_TIR_KIND_IndexMap, conv_index_map},
      {TVM_TIR_KIND_VDevice, conv_vdevice},
      {TVM_TIR_KIND_DummyGlobalInfo, conv_dummy_global_info},
  };
  tvm_tir_init();
  for (size_t i = 0; i < sizeof(k_table) / sizeof(k_table[0]); ++i) {
    if (tvm_script_register_converter("", tvm_tir_type_index(k_table[i].kind), k_table[i].fn) != 0) {
      return -1;
    }
  }
  return tvm_script_register_converter("", kTVMFFIDataType, conv_dtype);
}

/*
 * stmt.c: statement constructors and the rules of spec section "Typing Rules for Statements"
 * (S1-S14; rule names in rules.def, decisions in docs/tir-decisions.md).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Required arguments of a kind: NULL and objects of other kinds are rejected. */
static bool bad_arg(const void* obj, tvm_tir_kind kind, const char* node, const char* field) {
  if (!obj) {
    tvm_tir__null_arg(node, field);
    return true;
  }
  return tvm_tir__check_kind(obj, kind, node, field) != 0;
}
#define BAD_EXPR(e, node, field) bad_arg((e), TVM_TIR_KIND_PrimExpr, node, field)
#define BAD_STMT(s, node, field) bad_arg((s), TVM_TIR_KIND_Stmt, node, field)

static inline tvm_tir_stmt_obj* stmt_retain(tvm_tir_stmt_obj* s) {
  tvm_ffi_retain(s);
  return s;
}

static bool is_bool_scalar(const tvm_tir_expr_obj* e) {
  return tvm_tir_dtype_is_bool(e->dtype) && e->dtype.lanes == 1;
}

/* condition, or the constant true when it is NULL (a new reference either way); NULL on error. */
static tvm_tir_expr_obj* condition_or_true(tvm_tir_expr_obj* condition, const char* node) {
  if (!condition) return tvm_tir_int_imm_new(TVM_TIR_BOOL, 1);
  if (tvm_tir__check_kind(condition, TVM_TIR_KIND_PrimExpr, node, "condition") != 0) return NULL;
  return tir_expr_retain(condition);
}

/* ---- LetStmt, AttrStmt, AssertStmt --------------------------------------------------------- */
tvm_tir_stmt_obj* tvm_tir_let_stmt_new(tvm_tir_var_obj* var, tvm_tir_expr_obj* value,
                                       tvm_tir_stmt_obj* body) {
  static const char node[] = "LetStmt";
  if (bad_arg(var, TVM_TIR_KIND_Var, node, "var") || BAD_EXPR(value, node, "value") ||
      BAD_STMT(body, node, "body")) {
    return NULL;
  }
  if (TIR_IS(var->type_annotation, PointerType)) {
    if (!tvm_tir_dtype_is_handle(value->dtype)) {
      return tvm_tir__type_error(TVM_TIR_RULE_S_LETSTMT, node,
                                 "a var annotated with a PointerType must be bound to a handle",
                                 "var", var, "value", value, NULL);
    }
  } else if (!tvm_tir_dtype_equal(var->expr.dtype, value->dtype)) {
    return tvm_tir__type_error(TVM_TIR_RULE_S_LETSTMT, node,
                               "var and value must have the same dtype", "var", var, "value", value,
                               NULL);
  }
  tvm_tir_let_stmt_obj* s = TIR_NEW(tvm_tir_let_stmt_obj, LetStmt);
  if (!s) return NULL;
  tvm_ffi_retain(var);
  s->var = var;
  s->value = tir_expr_retain(value);
  s->body = stmt_retain(body);
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_attr_stmt_new(const TVMFFIAny* node_value, const char* attr_key,
                                        tvm_tir_expr_obj* value, tvm_tir_stmt_obj* body) {
  static const char node[] = "AttrStmt";
  if (BAD_EXPR(value, node, "value") || BAD_STMT(body, node, "body")) return NULL;
  TVMFFIAny owned = tvm_ffi_any_none();
  if (node_value && tvm_ffi_any_to_owned(node_value, &owned) != 0) return NULL;
  void* key = tvm_tir__str(attr_key);
  tvm_tir_attr_stmt_obj* s = key ? TIR_NEW(tvm_tir_attr_stmt_obj, AttrStmt) : NULL;
  if (!s) {
    tvm_ffi_any_release(&owned);
    tvm_ffi_release(key);
    return NULL;
  }
  s->node = owned;
  s->attr_key = key;
  s->value = tir_expr_retain(value);
  s->body = stmt_retain(body);
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_assert_stmt_new(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* message,
                                          tvm_tir_stmt_obj* body) {
  static const char node[] = "AssertStmt";
  if (BAD_EXPR(condition, node, "condition") || BAD_EXPR(message, node, "message") ||
      BAD_STMT(body, node, "body")) {
    return NULL;
  }
  if (!is_bool_scalar(condition)) {
    return tvm_tir__type_error(TVM_TIR_RULE_S_ASSERT, node, "the condition must be a bool scalar",
                               "condition", condition, NULL);
  }
  if (!TIR_IS(message, StringImm) && !tvm_tir_dtype_equal(message->dtype, TVM_TIR_INT32)) {
    return tvm_tir__type_error(TVM_TIR_RULE_S_ASSERT, node,
                               "the message must be a StringImm or an int32 expression", "message",
                               message, NULL);
  }
  tvm_tir_assert_stmt_obj* s = TIR_NEW(tvm_tir_assert_stmt_obj, AssertStmt);
  if (!s) return NULL;
  s->condition = tir_expr_retain(condition);
  s->message = tir_expr_retain(message);
  s->body = stmt_retain(body);
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_assert_stmt_new_kind(tvm_tir_expr_obj* condition,
                                               tvm_tir_string_imm_obj* kind,
                                               tvm_tir_expr_obj* message, tvm_tir_stmt_obj* body) {
  if (kind) {
    if (!TIR_IS(kind, StringImm) || tvm_ffi_str_view(kind->value).size == 0) {
      return tvm_tir__type_error(TVM_TIR_RULE_S_ASSERT, "AssertStmt",
                                 "the error kind must be a non-empty StringImm", "kind",
                                 (void*)kind, NULL);
    }
    if (message && !TIR_IS(message, StringImm)) {
      return tvm_tir__type_error(TVM_TIR_RULE_S_ASSERT, "AssertStmt",
                                 "an assert with an error kind needs a StringImm message",
                                 "message", message, NULL);
    }
  }
  tvm_tir_stmt_obj* s = tvm_tir_assert_stmt_new(condition, message, body);
  if (s && kind) {
    tvm_ffi_retain(kind);
    ((tvm_tir_assert_stmt_obj*)s)->kind = kind;
  }
  return s;
}

const char* tvm_tir_assert_stmt_kind(const tvm_tir_assert_stmt_obj* a) {
  return a->kind ? tvm_ffi_str_cstr(a->kind->value) : "AssertionError";
}

/* ---- Buffers: BufferStore, BufferRealize, Allocate, DeclBuffer ----------------------------- */
/* The TypeError of a BufferStore whose value does not have the dtype want (out of line: the
 * constructor runs per store); releases idx. */
static __attribute__((noinline)) tvm_tir_stmt_obj* buffer_store_value_error(
    tvm_tir_buffer_obj* buffer, tvm_tir_expr_obj* value, void* idx, DLDataType want,
    int index_lanes) {
  char what[200];
  if (value->dtype.lanes != want.lanes) {
    snprintf(what, sizeof(what), "the value must have %d lanes (index lanes %d x buffer lanes %d)",
             (int)want.lanes, index_lanes, (int)buffer->dtype.lanes);
  } else {
    snprintf(what, sizeof(what), "the value must have the buffer's element type %s",
             tvm_tir_dtype_str(tvm_tir_dtype_element(buffer->dtype)).s);
  }
  tvm_tir__type_error(TVM_TIR_RULE_S_BUFFERSTORE, "BufferStore", what, "buffer", buffer, "value",
                      value, "indices", idx, NULL);
  tvm_ffi_release(idx);
  return NULL;
}

static tvm_tir_stmt_obj* buffer_store_finish(tvm_tir_buffer_obj* buffer, tvm_tir_expr_obj* value,
                                             void* idx, int index_lanes);

tvm_tir_stmt_obj* tvm_tir_buffer_store_new(tvm_tir_buffer_obj* buffer, tvm_tir_expr_obj* value,
                                           void* indices) {
  static const char node[] = "BufferStore";
  if (BAD_EXPR(value, node, "value")) return NULL;
  void* idx;
  int index_lanes;
  if (tvm_tir__check_indices(TVM_TIR_RULE_S_BUFFERSTORE, node, buffer, indices, &idx,
                             &index_lanes) != 0) {
    return NULL;
  }
  return buffer_store_finish(buffer, value, idx, index_lanes);
}

tvm_tir_stmt_obj* tvm_tir__buffer_store_new_typed(tvm_tir_buffer_obj* buffer,
                                                  tvm_tir_expr_obj* value, void* indices) {
  assert(tir_is(buffer, TVM_TIR_KIND_Buffer) && tir_is(value, TVM_TIR_KIND_PrimExpr) &&
         tvm_tir__array_of(indices, TVM_TIR_KIND_PrimExpr, true));
  void* idx;
  int index_lanes;
  if (tvm_tir__check_typed_indices(TVM_TIR_RULE_S_BUFFERSTORE, "BufferStore", buffer, indices,
                                   &idx, &index_lanes) != 0) {
    return NULL;
  }
  return buffer_store_finish(buffer, value, idx, index_lanes);
}

/* tvm_tir_buffer_store_new past the checks of its arguments' kinds and of the indices: the
 * value's dtype, then the node (idx is taken). */
static tvm_tir_stmt_obj* buffer_store_finish(tvm_tir_buffer_obj* buffer, tvm_tir_expr_obj* value,
                                             void* idx, int index_lanes) {
  DLDataType want = tvm_tir_dtype_with_lanes(buffer->dtype, index_lanes * buffer->dtype.lanes);
  if (value->dtype.lanes != want.lanes || value->dtype.code != want.code ||
      value->dtype.bits != want.bits) {
    return buffer_store_value_error(buffer, value, idx, want, index_lanes);
  }
  tvm_tir_buffer_store_obj* s = TIR_NEW_UNINIT(tvm_tir_buffer_store_obj, BufferStore);
  if (!s) {
    tvm_ffi_release(idx);
    return NULL;
  }
  s->stmt.span = NULL;
  tvm_ffi_retain(buffer);
  s->buffer = buffer;
  s->value = tir_expr_retain(value);
  s->indices = idx;
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_buffer_realize_new(tvm_tir_buffer_obj* buffer, void* bounds,
                                             tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* body) {
  static const char node[] = "BufferRealize";
  if (bad_arg(buffer, TVM_TIR_KIND_Buffer, node, "buffer") || BAD_STMT(body, node, "body")) {
    return NULL;
  }
  void* arr = NULL;
  tvm_tir_expr_obj* cond = NULL;
  if (tvm_tir__array_arg(bounds, TVM_TIR_KIND_Range, node, "bounds", &arr) != 0 ||
      !(cond = condition_or_true(condition, node))) {
    tvm_ffi_release(arr);
    return NULL;
  }
  const char* why = NULL;
  const void* bad = NULL;
  if (!is_bool_scalar(cond)) {
    why = "the condition must be a bool scalar";
    bad = cond;
  }
  const tvm_tir_expr_obj* first = NULL;
  for (int64_t i = 0; !why && i < tvm_ffi_seq_size(arr); ++i) {
    const tvm_tir_range_obj* r = (const tvm_tir_range_obj*)tvm_ffi_seq_obj_at(arr, i);
    const tvm_tir_expr_obj* parts[2] = {r->min, r->extent};
    for (int j = 0; j < 2 && !why; ++j) {
      if (!parts[j]) continue;
      if (!first) first = parts[j];
      if (!tvm_tir_dtype_is_index(parts[j]->dtype)) {
        why = "bounds must be Int or UInt scalars";
      } else if (!tvm_tir_dtype_equal(parts[j]->dtype, first->dtype)) {
        why = "bounds must all have the same dtype";
      }
      if (why) bad = r;
    }
  }
  if (why) {
    tvm_tir__type_error(TVM_TIR_RULE_S_BUFFERREALIZE, node, why, "offending", bad, "buffer", buffer,
                        NULL);
    tvm_ffi_release(arr);
    tvm_ffi_release(cond);
    return NULL;
  }
  tvm_tir_buffer_realize_obj* s = TIR_NEW(tvm_tir_buffer_realize_obj, BufferRealize);
  if (!s) {
    tvm_ffi_release(arr);
    tvm_ffi_release(cond);
    return NULL;
  }
  tvm_ffi_retain(buffer);
  s->buffer = buffer;
  s->bounds = arr;
  s->condition = cond;
  s->body = stmt_retain(body);
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_allocate_new(tvm_tir_var_obj* buffer_var, DLDataType dtype, void* extents,
                                       tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* body,
                                       void* annotations) {
  static const char node[] = "Allocate";
  if (bad_arg(buffer_var, TVM_TIR_KIND_Var, node, "buffer_var") || BAD_STMT(body, node, "body")) {
    return NULL;
  }
  void *ext = NULL, *ann = NULL;
  tvm_tir_expr_obj* cond = NULL;
  if (tvm_tir__array_arg(extents, TVM_TIR_KIND_PrimExpr, node, "extents", &ext) != 0 ||
      tvm_tir__str_map_arg(annotations, node, "annotations", &ann) != 0 ||
      !(cond = condition_or_true(condition, node))) {
    goto fail;
  }
  const tvm_tir_type_obj* t = buffer_var->type_annotation;
  const tvm_tir_type_obj* elem =
      TIR_IS(t, PointerType) ? ((const tvm_tir_pointer_type_obj*)t)->element_type : NULL;
  DLDataType et =
      TIR_IS(elem, PrimType) ? ((const tvm_tir_prim_type_obj*)elem)->dtype : TVM_TIR_VOID;
  char what[200];
  if (!elem || !(tvm_tir_dtype_equal(et, dtype) || (tvm_tir_dtype_equal(dtype, TVM_TIR_BOOL) &&
                                                    tvm_tir_dtype_equal(et, TVM_TIR_INT8)))) {
    snprintf(what, sizeof(what), "buffer_var must be annotated PointerType(%s)%s",
             tvm_tir_dtype_str(dtype).s,
             tvm_tir_dtype_equal(dtype, TVM_TIR_BOOL) ? " or PointerType(int8)" : "");
    tvm_tir__type_error(TVM_TIR_RULE_S_ALLOCATE, node, what, "buffer_var", buffer_var,
                        "buffer_var->type_annotation", t, NULL);
    goto fail;
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(ext); ++i) {
    const tvm_tir_expr_obj* e = (const tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(ext, i);
    const tvm_tir_expr_obj* first = (const tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(ext, 0);
    const char* why = !tvm_tir_dtype_is_index(e->dtype) ? "extents must be Int or UInt scalars"
                      : !tvm_tir_dtype_equal(e->dtype, first->dtype)
                          ? "extents must all have the same dtype"
                          : NULL;
    if (why) {
      char name[32];
      snprintf(name, sizeof(name), "extents[%lld]", (long long)i);
      tvm_tir__type_error(TVM_TIR_RULE_S_ALLOCATE, node, why, name, e, "extents[0]", first, NULL);
      goto fail;
    }
  }
  if (!is_bool_scalar(cond)) {
    tvm_tir__type_error(TVM_TIR_RULE_S_ALLOCATE, node, "the condition must be a bool scalar",
                        "condition", cond, NULL);
    goto fail;
  }
  tvm_tir_allocate_obj* s = TIR_NEW(tvm_tir_allocate_obj, Allocate);
  if (!s) goto fail;
  tvm_ffi_retain(buffer_var);
  s->buffer_var = buffer_var;
  s->dtype = dtype;
  s->extents = ext;
  s->condition = cond;
  s->body = stmt_retain(body);
  s->annotations = ann;
  return &s->stmt;
fail:
  tvm_ffi_release(ext);
  tvm_ffi_release(ann);
  tvm_ffi_release(cond);
  return NULL;
}

tvm_tir_stmt_obj* tvm_tir_decl_buffer_new(tvm_tir_buffer_obj* buffer, tvm_tir_stmt_obj* body) {
  if (bad_arg(buffer, TVM_TIR_KIND_Buffer, "DeclBuffer", "buffer") ||
      BAD_STMT(body, "DeclBuffer", "body")) {
    return NULL;
  }
  tvm_tir_decl_buffer_obj* s = TIR_NEW(tvm_tir_decl_buffer_obj, DeclBuffer);
  if (!s) return NULL;
  tvm_ffi_retain(buffer);
  s->buffer = buffer;
  s->body = stmt_retain(body);
  return &s->stmt;
}

/* ---- SeqStmt, IfThenElse, Evaluate, While -------------------------------------------------- */
tvm_tir_stmt_obj* tvm_tir_seq_stmt_new(void* seq) {
  void* arr;
  if (tvm_tir__array_arg(seq, TVM_TIR_KIND_Stmt, "SeqStmt", "seq", &arr) != 0) return NULL;
  tvm_tir_stmt_obj* s = tvm_tir__seq_stmt_new_typed(arr);
  tvm_ffi_release(arr);
  return s;
}

tvm_tir_stmt_obj* tvm_tir__seq_stmt_new_typed(void* seq) {
  assert(tvm_tir__array_of(seq, TVM_TIR_KIND_Stmt, false));
  tvm_tir_seq_stmt_obj* s = TIR_NEW_UNINIT(tvm_tir_seq_stmt_obj, SeqStmt);
  if (!s) return NULL;
  s->stmt.span = NULL;
  tvm_ffi_retain(seq);
  s->seq = seq;
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_if_then_else_new(tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* then_case,
                                           tvm_tir_stmt_obj* else_case) {
  static const char node[] = "IfThenElse";
  if (BAD_EXPR(condition, node, "condition") || BAD_STMT(then_case, node, "then_case") ||
      tvm_tir__check_kind(else_case, TVM_TIR_KIND_Stmt, node, "else_case") != 0) {
    return NULL;
  }
  if (!is_bool_scalar(condition)) {
    return tvm_tir__type_error(TVM_TIR_RULE_S_IF, node, "the condition must be a bool scalar",
                               "condition", condition, NULL);
  }
  tvm_tir_if_then_else_obj* s = TIR_NEW(tvm_tir_if_then_else_obj, IfThenElse);
  if (!s) return NULL;
  s->condition = tir_expr_retain(condition);
  s->then_case = stmt_retain(then_case);
  s->else_case = else_case ? stmt_retain(else_case) : NULL;
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_evaluate_new(tvm_tir_expr_obj* value) {
  if (BAD_EXPR(value, "Evaluate", "value")) return NULL;
  tvm_tir_evaluate_obj* s = TIR_NEW_UNINIT(tvm_tir_evaluate_obj, Evaluate);
  if (!s) return NULL;
  s->stmt.span = NULL;
  s->value = tir_expr_retain(value);
  return &s->stmt;
}

tvm_tir_stmt_obj* tvm_tir_while_new(tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* body) {
  static const char node[] = "While";
  if (BAD_EXPR(condition, node, "condition") || BAD_STMT(body, node, "body")) return NULL;
  const char* why = !tvm_tir_dtype_is_index(condition->dtype)
                        ? "the condition must be an Int or UInt scalar"
                    : TIR_IS(condition, IntImm) ? "the condition must not be a constant (IntImm)"
                                                : NULL;
  if (why) {
    return tvm_tir__type_error(TVM_TIR_RULE_S_WHILE, node, why, "condition", condition, NULL);
  }
  tvm_tir_while_obj* s = TIR_NEW(tvm_tir_while_obj, While);
  if (!s) return NULL;
  s->condition = tir_expr_retain(condition);
  s->body = stmt_retain(body);
  return &s->stmt;
}

/* ---- For ----------------------------------------------------------------------------------- */
/* min / extent of a loop: an IntImm narrower than the loop var is promoted to its dtype (S11
 * items 3-4); afterwards the dtypes must match exactly (item 5). New reference or NULL. */
static __attribute__((noinline)) tvm_tir_expr_obj* loop_bound_slow(tvm_tir_var_obj* loop_var,
                                                                  tvm_tir_expr_obj* e,
                                                                  const char* field) {
  DLDataType lt = loop_var->expr.dtype, et = e->dtype;
  char what[200];
  const char* why = NULL;
  if (!tvm_tir_dtype_is_index(et)) {
    snprintf(what, sizeof(what), "%s must be an Int or UInt scalar", field);
    why = what;
  } else if (et.bits > lt.bits) {
    snprintf(what, sizeof(what), "%s (%d bits) must not be wider than the loop variable (%d bits)",
             field, (int)et.bits, (int)lt.bits);
    why = what;
  } else if (TIR_IS(e, IntImm) && et.bits < lt.bits) {
    int64_t v = ((const tvm_tir_int_imm_obj*)e)->value;
    if (tvm_tir_dtype_int_fits(lt, v)) return tvm_tir_int_imm_new(lt, v);
    snprintf(what, sizeof(what), "%s %lld cannot be promoted to the loop variable's %s", field,
             (long long)v, tvm_tir_dtype_str(lt).s);
    why = what;
  } else if (!tvm_tir_dtype_equal(et, lt)) {
    snprintf(what, sizeof(what), "%s must have the loop variable's dtype", field);
    why = what;
  }
  if (why) {
    return tvm_tir__type_error(TVM_TIR_RULE_S_FOR, "For", why, "loop_var", loop_var, field, e,
                               NULL);
  }
  return tir_expr_retain(e);
}
static inline tvm_tir_expr_obj* loop_bound(tvm_tir_var_obj* loop_var, tvm_tir_expr_obj* e,
                                           const char* field) {
  /* The usual bound has the loop var's (index) dtype: loop_bound_slow's last case, inline. */
  if (__builtin_expect(tvm_tir_dtype_equal(e->dtype, loop_var->expr.dtype) &&
                           tvm_tir_dtype_is_index(e->dtype),
                       1)) {
    return tir_expr_retain(e);
  }
  return loop_bound_slow(loop_var, e, field);
}

static int find_while(const void* obj, void* ctx) { return TIR_IS(obj, While); }

tvm_tir_stmt_obj* tvm_tir_for_new(tvm_tir_var_obj* loop_var, tvm_tir_expr_obj* min,
                                  tvm_tir_expr_obj* extent, tvm_tir_for_kind kind,
                                  tvm_tir_stmt_obj* body, tvm_tir_iter_var_obj* thread_binding,
                                  void* annotations) {
  static const char node[] = "For";
  if (bad_arg(loop_var, TVM_TIR_KIND_Var, node, "loop_var") || BAD_EXPR(min, node, "min") ||
      BAD_EXPR(extent, node, "extent") || BAD_STMT(body, node, "body") ||
      tvm_tir__check_kind(thread_binding, TVM_TIR_KIND_IterVar, node, "thread_binding") != 0) {
    return NULL;
  }
  return tvm_tir__for_new_typed(loop_var, min, extent, kind, body, thread_binding, annotations);
}

tvm_tir_stmt_obj* tvm_tir__for_new_typed(tvm_tir_var_obj* loop_var, tvm_tir_expr_obj* min,
                                         tvm_tir_expr_obj* extent, tvm_tir_for_kind kind,
                                         tvm_tir_stmt_obj* body,
                                         tvm_tir_iter_var_obj* thread_binding, void* annotations) {
  static const char node[] = "For";
  assert(tir_is(loop_var, TVM_TIR_KIND_Var) && tir_is(min, TVM_TIR_KIND_PrimExpr) &&
         tir_is(extent, TVM_TIR_KIND_PrimExpr) && tir_is(body, TVM_TIR_KIND_Stmt) &&
         (!thread_binding || tir_is(thread_binding, TVM_TIR_KIND_IterVar)));
  if ((int)kind < TVM_TIR_FOR_SERIAL || (int)kind > TVM_TIR_FOR_THREAD_BINDING) {
    tvm_ffi_raise("ValueError", "For: invalid kind %d", (int)kind);
    return NULL;
  }
  if (!tvm_tir_dtype_is_index(loop_var->expr.dtype)) {
    return tvm_tir__type_error(TVM_TIR_RULE_S_FOR, node,
                               "the loop variable must be an Int or UInt scalar", "loop_var",
                               loop_var, NULL);
  }
  tvm_tir_expr_obj *lo = NULL, *ext = NULL;
  void* ann = NULL;
  if (!(lo = loop_bound(loop_var, min, "min")) || !(ext = loop_bound(loop_var, extent, "extent")) ||
      tvm_tir__str_map_arg(annotations, node, "annotations", &ann) != 0) {
    goto fail;
  }
  if (kind == TVM_TIR_FOR_VECTORIZED) {
    int64_t m, e;
    const char* why = NULL;
    if (!tvm_tir_as_const_int(lo, &m) || m != 0) {
      why = "a vectorized loop must have min 0 (an IntImm)";
    } else if (!tvm_tir_as_const_int(ext, &e) || e < 1) {
      why = "a vectorized loop must have a constant extent of at least 1";
    } else if (tvm_tir__walk(body, true, find_while, NULL)) {
      why = "a vectorized loop must not contain a While loop";
    }
    if (why) {
      tvm_tir__type_error(TVM_TIR_RULE_S_FOR, node, why, "loop_var", loop_var, "min", lo, "extent",
                          ext, NULL);
      goto fail;
    }
  }
  tvm_tir_for_obj* s = TIR_NEW(tvm_tir_for_obj, For);
  if (!s) goto fail;
  tvm_ffi_retain(loop_var);
  tvm_ffi_retain(thread_binding);
  s->loop_var = loop_var;
  s->min = lo;
  s->extent = ext;
  s->kind = (int32_t)kind;
  s->body = stmt_retain(body);
  s->thread_binding = thread_binding;
  s->annotations = ann;
  return &s->stmt;
fail:
  tvm_ffi_release(lo);
  tvm_ffi_release(ext);
  tvm_ffi_release(ann);
  return NULL;
}

/* ---- SBlock, SBlockRealize ----------------------------------------------------------------- */
tvm_tir_sblock_obj* tvm_tir_sblock_new(const tvm_tir_sblock_fields* f) {
  static const char node[] = "SBlock";
  if (!f) return tvm_tir__null_arg(node, "fields");
  if (BAD_STMT(f->body, node, "body") ||
      tvm_tir__check_kind(f->init, TVM_TIR_KIND_Stmt, node, "init") != 0) {
    return NULL;
  }
  void *iters = NULL, *reads = NULL, *writes = NULL, *allocs = NULL, *matches = NULL, *ann = NULL,
       *name = NULL;
  if (tvm_tir__array_arg(f->iter_vars, TVM_TIR_KIND_IterVar, node, "iter_vars", &iters) != 0 ||
      tvm_tir__array_arg(f->reads, TVM_TIR_KIND_BufferRegion, node, "reads", &reads) != 0 ||
      tvm_tir__array_arg(f->writes, TVM_TIR_KIND_BufferRegion, node, "writes", &writes) != 0 ||
      tvm_tir__array_arg(f->alloc_buffers, TVM_TIR_KIND_Buffer, node, "alloc_buffers", &allocs) !=
          0 ||
      tvm_tir__array_arg(f->match_buffers, TVM_TIR_KIND_MatchBufferRegion, node, "match_buffers",
                         &matches) != 0 ||
      tvm_tir__str_map_arg(f->annotations, node, "annotations", &ann) != 0) {
    goto fail;
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(iters); ++i) {
    const tvm_tir_iter_var_obj* iv = (const tvm_tir_iter_var_obj*)tvm_ffi_seq_obj_at(iters, i);
    if (!tvm_tir_dtype_is_index(iv->var->expr.dtype)) {
      char name_i[32];
      snprintf(name_i, sizeof(name_i), "iter_vars[%lld]", (long long)i);
      tvm_tir__type_error(TVM_TIR_RULE_S_BLOCK, node,
                          "iteration variables must be Int or UInt scalars", name_i, iv->var, NULL);
      goto fail;
    }
  }
  tvm_tir_sblock_obj* s = NULL;
  if (!(name = tvm_tir__str(f->name_hint)) || !(s = TIR_NEW(tvm_tir_sblock_obj, SBlock))) goto fail;
  s->iter_vars = iters;
  s->reads = reads;
  s->writes = writes;
  s->name_hint = name;
  s->alloc_buffers = allocs;
  s->match_buffers = matches;
  s->annotations = ann;
  s->init = f->init ? stmt_retain(f->init) : NULL;
  s->body = stmt_retain(f->body);
  return s;
fail:
  tvm_ffi_release(iters);
  tvm_ffi_release(reads);
  tvm_ffi_release(writes);
  tvm_ffi_release(allocs);
  tvm_ffi_release(matches);
  tvm_ffi_release(ann);
  tvm_ffi_release(name);
  return NULL;
}

tvm_tir_stmt_obj* tvm_tir_sblock_realize_new(void* iter_values, tvm_tir_expr_obj* predicate,
                                             tvm_tir_sblock_obj* block) {
  static const char node[] = "SBlockRealize";
  if (bad_arg(block, TVM_TIR_KIND_SBlock, node, "block")) return NULL;
  void* vals = NULL;
  tvm_tir_expr_obj* pred = NULL;
  if (tvm_tir__array_arg(iter_values, TVM_TIR_KIND_PrimExpr, node, "iter_values", &vals) != 0 ||
      !(pred = predicate ? (tvm_tir__check_kind(predicate, TVM_TIR_KIND_PrimExpr, node, "predicate")
                                ? NULL
                                : tir_expr_retain(predicate))
                         : tvm_tir_int_imm_new(TVM_TIR_BOOL, 1))) {
    tvm_ffi_release(vals);
    return NULL;
  }
  int64_t nv = tvm_ffi_seq_size(vals), ni = tvm_ffi_seq_size(block->iter_vars);
  char what[160];
  const char* why = NULL;
  if (nv != ni) {
    snprintf(what, sizeof(what), "%lld iter_values for a block with %lld iter_vars", (long long)nv,
             (long long)ni);
    why = what;
  } else if (!tvm_tir_dtype_is_bool(pred->dtype)) {
    why = "the predicate must be bool";
  }
  if (why) {
    tvm_tir__type_error(TVM_TIR_RULE_S_BLOCKREALIZE, node, why, "iter_values", vals,
                        "block->iter_vars", block->iter_vars, "predicate", pred, NULL);
    tvm_ffi_release(vals);
    tvm_ffi_release(pred);
    return NULL;
  }
  tvm_tir_sblock_realize_obj* s = TIR_NEW_UNINIT(tvm_tir_sblock_realize_obj, SBlockRealize);
  if (!s) {
    tvm_ffi_release(vals);
    tvm_ffi_release(pred);
    return NULL;
  }
  s->stmt.span = NULL;
  tvm_ffi_retain(block);
  s->iter_values = vals;
  s->predicate = pred;
  s->block = block;
  return &s->stmt;
}

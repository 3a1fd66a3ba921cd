/*
 * expr.c: constructors of Relax expressions, bindings and blocks. Each computes the struct info
 * of what it makes (see tvm/relax/expr.h).
 */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

#define NEW_EXPR(T, KIND) ((T*)tvm_relax__new(TVM_RELAX_KIND_##KIND, sizeof(T)))

/* Take ownership of sinfo into expr (sinfo may be NULL on failure: the expr is released). */
static void* with_sinfo(void* expr, tvm_relax_sinfo_obj* sinfo) {
  if (!sinfo) {
    tvm_ffi_release(expr);
    return NULL;
  }
  ((tvm_relax_expr_obj*)expr)->struct_info_ = sinfo;
  return expr;
}

static void* retain(void* obj) {
  if (obj) tvm_ffi_retain(obj);
  return obj;
}

static bool is_array(const void* a) { return a && tvm_ffi_type_index(a) == kTVMFFIArray; }

static int check_exprs(void* arr, const char* what, bool need_sinfo) {
  if (!arr) return 0;
  if (!is_array(arr)) return tvm_ffi_raise("TypeError", "%s must be an ffi.Array", what);
  for (int64_t i = 0; i < tvm_ffi_seq_size(arr); ++i) {
    void* e = tvm_ffi_seq_obj_at(arr, i);
    if (!tvm_relax_is_expr(e)) {
      return tvm_ffi_raise("TypeError", "%s[%lld] is not a Relax expression (%s)", what,
                           (long long)i, tvm_ffi_any_type_name(tvm_ffi_seq_at(arr, i)));
    }
    if (need_sinfo && !tvm_relax_sinfo_of(e)) {
      return tvm_ffi_raise("TypeError", "%s[%lld] has no struct info", what, (long long)i);
    }
  }
  return 0;
}

/* ---- Leaves ---------------------------------------------------------------------------------- */
tvm_relax_var_obj* tvm_relax_var_new_str(void* name_hint, tvm_relax_sinfo_obj* sinfo, bool dataflow) {
  if (!tvm_relax_is_sinfo(sinfo)) {
    tvm_ffi_raise("TypeError", "Var %s: a struct info annotation is required",
                  name_hint ? tvm_ffi_str_cstr(name_hint) : "");
    return NULL;
  }
  tvm_relax_var_obj* v = dataflow ? NEW_EXPR(tvm_relax_var_obj, DataflowVar)
                                  : NEW_EXPR(tvm_relax_var_obj, Var);
  if (!v) return NULL;
  v->name_hint = name_hint ? retain(name_hint) : tvm_relax__str("");
  v->expr.struct_info_ = retain(sinfo);
  return v;
}

tvm_relax_var_obj* tvm_relax_var_new(const char* name_hint, tvm_relax_sinfo_obj* sinfo,
                                     bool dataflow) {
  void* name = tvm_relax__str(name_hint);
  if (!name) return NULL;
  tvm_relax_var_obj* v = tvm_relax_var_new_str(name, sinfo, dataflow);
  tvm_ffi_release(name);
  return v;
}

tvm_relax_expr_obj* tvm_relax_constant_new(void* data, tvm_relax_sinfo_obj* sinfo) {
  if (!data || tvm_ffi_type_index(data) != kTVMFFITensor) {
    tvm_ffi_raise("TypeError", "R.const: data must be an ffi.Tensor");
    return NULL;
  }
  DLTensor* t = tvm_ffi_tensor_dl(data);
  if (t->device.device_type != kDLCPU) {
    tvm_ffi_raise("ValueError", "R.const: data must be on the CPU");
    return NULL;
  }
  tvm_relax_sinfo_obj* exact = tvm_relax_tensor_sinfo_of_ints(t->shape, t->ndim, t->dtype);
  if (!exact) return NULL;
  /* A DTensor (upstream's R.dist.const): the data is the whole tensor, laid out as it says. */
  const tvm_relax_sinfo_obj* whole = sinfo;
  if (tvm_relax_kind_of(sinfo) == TVM_RELAX_KIND_DTensorStructInfo) {
    whole = ((const tvm_relax_dtensor_sinfo_obj*)sinfo)->tensor_sinfo;
  }
  if (sinfo && tvm_relax_sinfo_base_check(whole, exact) == TVM_RELAX_BASE_CHECK_FAIL) {
    tvm_ffi_strbuf b = {0};
    tvm_ffi_strbuf_puts(&b, "R.const: struct info ");
    tvm_relax_sinfo_text(&b, sinfo);
    tvm_ffi_strbuf_puts(&b, " does not describe the data ");
    tvm_relax_sinfo_text(&b, exact);
    tvm_ffi_raise("TypeError", "%s", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    tvm_ffi_release(exact);
    return NULL;
  }
  if (sinfo) {
    tvm_ffi_release(exact);
    exact = retain(sinfo);
  }
  tvm_relax_constant_obj* c = NEW_EXPR(tvm_relax_constant_obj, Constant);
  if (!c) {
    tvm_ffi_release(exact);
    return NULL;
  }
  c->data = retain(data);
  return with_sinfo(c, exact);
}

tvm_relax_expr_obj* tvm_relax_prim_value_new(tvm_tir_expr_obj* value) {
  if (!value || !tvm_tir_is_expr(value) || tvm_tir_expr_dtype(value).lanes != 1) {
    tvm_ffi_raise("TypeError", "R.prim_value: value must be a scalar PrimExpr");
    return NULL;
  }
  tvm_relax_prim_value_obj* p = NEW_EXPR(tvm_relax_prim_value_obj, PrimValue);
  if (!p) return NULL;
  p->value = retain(value);
  return with_sinfo(p, tvm_relax_prim_sinfo_new(tvm_tir_expr_dtype(value), value));
}

tvm_relax_expr_obj* tvm_relax_prim_value_int64(int64_t value) {
  tvm_tir_expr_obj* v = tvm_relax__int64(value);
  if (!v) return NULL;
  tvm_relax_expr_obj* out = tvm_relax_prim_value_new(v);
  tvm_ffi_release(v);
  return out;
}

tvm_relax_expr_obj* tvm_relax_string_imm_new(const char* data, size_t size) {
  tvm_relax_string_imm_obj* s = NEW_EXPR(tvm_relax_string_imm_obj, StringImm);
  if (!s) return NULL;
  if (!(s->value = tvm_ffi_str_obj(data ? data : "", data ? size : 0))) {
    tvm_ffi_release(s);
    return NULL;
  }
  return with_sinfo(s, tvm_relax_object_sinfo_new());
}

tvm_relax_expr_obj* tvm_relax_dtype_imm_new(DLDataType dtype) {
  tvm_relax_dtype_imm_obj* d = NEW_EXPR(tvm_relax_dtype_imm_obj, DataTypeImm);
  if (!d) return NULL;
  d->value = dtype;
  return with_sinfo(d, tvm_relax_object_sinfo_new());
}

tvm_relax_expr_obj* tvm_relax_shape_expr_new(void* values) {
  tvm_relax_sinfo_obj* sinfo = tvm_relax_shape_sinfo_new(values, TVM_RELAX_UNKNOWN_NDIM);
  if (!sinfo) return NULL;
  tvm_relax_shape_expr_obj* s = NEW_EXPR(tvm_relax_shape_expr_obj, ShapeExpr);
  if (!s) {
    tvm_ffi_release(sinfo);
    return NULL;
  }
  s->values = retain(((tvm_relax_shape_sinfo_obj*)sinfo)->values);
  return with_sinfo(s, sinfo);
}

tvm_relax_expr_obj* tvm_relax_shape_expr_of_ints(const int64_t* dims, int32_t ndim) {
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(ndim > 0 ? ndim : 1), sizeof(TVMFFIAny));
  if (!items) return NULL;
  int32_t i = 0;
  for (; i < ndim; ++i) {
    tvm_tir_expr_obj* d = tvm_relax__int64(dims[i]);
    if (!d) break;
    items[i] = tvm_ffi_any_obj(d); /* owned */
  }
  void* arr = i == ndim ? tvm_ffi_array_new_take(items, ndim) : NULL;
  for (int32_t j = 0; !arr && j < i; ++j) tvm_ffi_any_release(&items[j]);
  tvm_ffi_free(items);
  if (!arr) return NULL;
  tvm_relax_expr_obj* out = tvm_relax_shape_expr_new(arr);
  tvm_ffi_release(arr);
  return out;
}

/* ---- Tuples ---------------------------------------------------------------------------------- */
tvm_relax_expr_obj* tvm_relax_tuple_new(void* fields) {
  if (check_exprs(fields, "R.tuple: fields", true) != 0) return NULL;
  int64_t n = fields ? tvm_ffi_seq_size(fields) : 0;
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    items[i] = tvm_ffi_any_obj(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(fields, i)));
  }
  void* sarr = tvm_ffi_array_new(items, n);
  tvm_ffi_free(items);
  if (!sarr) return NULL;
  tvm_relax_sinfo_obj* sinfo = tvm_relax_tuple_sinfo_new(sarr);
  tvm_ffi_release(sarr);
  if (!sinfo) return NULL;
  tvm_relax_tuple_obj* t = NEW_EXPR(tvm_relax_tuple_obj, Tuple);
  if (!t) {
    tvm_ffi_release(sinfo);
    return NULL;
  }
  t->fields = fields ? retain(fields) : tvm_relax__empty_array();
  return with_sinfo(t, sinfo);
}

tvm_relax_expr_obj* tvm_relax_tuple_get_item_new(tvm_relax_expr_obj* tuple, int64_t index) {
  if (!tvm_relax_is_expr(tuple) || !tvm_relax_sinfo_of(tuple)) {
    tvm_ffi_raise("TypeError", "TupleGetItem: the tuple must be a Relax expression with struct info");
    return NULL;
  }
  tvm_relax_sinfo_obj* ts = tvm_relax_sinfo_of(tuple);
  tvm_relax_sinfo_obj* sinfo;
  if (tvm_relax_kind_of(ts) == TVM_RELAX_KIND_TupleStructInfo) {
    void* f = ((tvm_relax_tuple_sinfo_obj*)ts)->fields;
    if (index < 0 || index >= tvm_ffi_seq_size(f)) {
      tvm_ffi_raise("IndexError", "TupleGetItem: index %lld out of range for a tuple of %lld fields",
                    (long long)index, (long long)tvm_ffi_seq_size(f));
      return NULL;
    }
    sinfo = retained_sinfo(tvm_ffi_seq_obj_at(f, index));
  } else if (tvm_relax_kind_of(ts) == TVM_RELAX_KIND_ObjectStructInfo) {
    if (index < 0) {
      tvm_ffi_raise("IndexError", "TupleGetItem: negative index %lld", (long long)index);
      return NULL;
    }
    sinfo = tvm_relax_object_sinfo_new();
  } else {
    tvm_ffi_strbuf b = {0};
    tvm_relax_sinfo_text(&b, ts);
    tvm_ffi_raise("TypeError", "TupleGetItem: the value is not a tuple: %s", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  if (!sinfo) return NULL;
  tvm_relax_tuple_get_item_obj* g = NEW_EXPR(tvm_relax_tuple_get_item_obj, TupleGetItem);
  if (!g) {
    tvm_ffi_release(sinfo);
    return NULL;
  }
  g->tuple_value = retain(tuple);
  g->index = index;
  return with_sinfo(g, sinfo);
}

/* ---- Calls ----------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax_expr_sinfo(const void* expr) {
  if (tvm_tir_is(expr, TVM_TIR_KIND_PrimFunc) && !tvm_relax_sinfo_of(expr)) {
    return tvm_relax_prim_func_sinfo(expr);
  }
  if (!tvm_relax_is_expr(expr) || !tvm_relax_sinfo_of(expr)) {
    tvm_ffi_raise("TypeError", "%s has no struct info",
                  expr ? tvm_ffi_type_key(tvm_ffi_type_index(expr)) : "NULL");
    return NULL;
  }
  return retained_sinfo(tvm_relax_sinfo_of(expr));
}

/* The result of calling a non-operator callee. */
static tvm_relax_sinfo_obj* callee_result(tvm_relax_expr_obj* op, void* args, void* sinfo_args) {
  tvm_relax_sinfo_obj* cs = tvm_relax_sinfo_of(op);
  if (tvm_tir_is(op, TVM_TIR_KIND_PrimFunc) && !cs) cs = NULL;
  if (tvm_relax_kind_of(cs) == TVM_RELAX_KIND_FuncStructInfo &&
      ((tvm_relax_func_sinfo_obj*)cs)->derive_func) { /* its rule says (sinfo_args unused) */
    return tvm_relax__derive_call_sinfo((tvm_relax_func_sinfo_obj*)cs, args);
  }
  if (!cs || tvm_relax_kind_of(cs) == TVM_RELAX_KIND_ObjectStructInfo ||
      (tvm_relax_kind_of(cs) == TVM_RELAX_KIND_FuncStructInfo &&
       !((tvm_relax_func_sinfo_obj*)cs)->params && tvm_ffi_seq_size(sinfo_args) > 0)) {
    /* An opaque callee: the struct info arguments say what it returns. */
    if (tvm_ffi_seq_size(sinfo_args) == 1) return retained_sinfo(tvm_ffi_seq_obj_at(sinfo_args, 0));
    if (tvm_ffi_seq_size(sinfo_args) > 1) return tvm_relax_tuple_sinfo_new(sinfo_args);
    if (cs && tvm_relax_kind_of(cs) == TVM_RELAX_KIND_FuncStructInfo) {
      return retained_sinfo(((tvm_relax_func_sinfo_obj*)cs)->ret);
    }
    return tvm_relax_object_sinfo_new();
  }
  if (tvm_relax_kind_of(cs) != TVM_RELAX_KIND_FuncStructInfo) {
    tvm_ffi_strbuf b = {0};
    tvm_relax__text(&b, op);
    tvm_ffi_strbuf_puts(&b, " is not callable: its struct info is ");
    tvm_relax_sinfo_text(&b, cs);
    tvm_ffi_raise("TypeError", "%s", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  return tvm_relax__call_func_sinfo((tvm_relax_func_sinfo_obj*)cs, args, op);
}

static tvm_relax_expr_obj* call_new(void* op, void* args, void* attrs, void* sinfo_args,
                                    void* span) {
  tvm_relax__ensure_init();
  if (!tvm_relax_is_expr(op)) {
    tvm_ffi_raise("TypeError", "Call: the callee must be a Relax expression or an operator");
    return NULL;
  }
  const tvm_relax_op_info* info = tvm_relax_op_info_of(op);
  if (check_exprs(args, "Call: args", false) != 0) return NULL;
  if (sinfo_args && (!is_array(sinfo_args))) {
    tvm_ffi_raise("TypeError", "Call: sinfo_args must be an ffi.Array of struct info");
    return NULL;
  }
  for (int64_t i = 0; sinfo_args && i < tvm_ffi_seq_size(sinfo_args); ++i) {
    if (!tvm_relax_is_sinfo(tvm_ffi_seq_obj_at(sinfo_args, i))) {
      tvm_ffi_raise("TypeError", "Call: sinfo_args[%lld] is not a struct info", (long long)i);
      return NULL;
    }
  }
  if (attrs && tvm_ffi_type_index(attrs) != kTVMFFIMap) {
    tvm_ffi_raise("TypeError", "Call: attrs must be an ffi.Map");
    return NULL;
  }
  void* arr = args ? retain(args) : tvm_relax__empty_array();
  void* sarr = sinfo_args ? retain(sinfo_args) : tvm_relax__empty_array();
  void* full_attrs = NULL;
  tvm_relax_sinfo_obj* sinfo = NULL;
  if (info) {
    if (tvm_relax__complete_attrs(info, attrs, &full_attrs) == 0) {
      sinfo = tvm_relax__infer(info, arr, full_attrs, sarr);
    }
  } else if (tvm_tir_is(op, TVM_TIR_KIND_Op)) {
    tvm_ffi_raise("TypeError", "Call: %s is not a Relax operator", tvm_tir_op_name(op));
  } else if (attrs && tvm_ffi_map_size(attrs) > 0 &&
             tvm_relax_kind_of(op) != TVM_RELAX_KIND_ExternFunc) {
    tvm_ffi_raise("TypeError", "Call: attributes are only for operators and packed functions "
                  "(upstream's R.call_packed(..., key=value) DictAttrs)");
  } else if (check_exprs(arr, "Call: args", true) == 0) {
    sinfo = callee_result(op, arr, sarr);
    if (sinfo && attrs && tvm_ffi_map_size(attrs) > 0) full_attrs = retain(attrs);
  }
  if (!sinfo) {
    tvm_ffi_release(arr);
    tvm_ffi_release(sarr);
    tvm_ffi_release(full_attrs);
    return NULL;
  }
  tvm_relax_call_obj* c = NEW_EXPR(tvm_relax_call_obj, Call);
  if (!c) {
    tvm_ffi_release(arr);
    tvm_ffi_release(sarr);
    tvm_ffi_release(full_attrs);
    tvm_ffi_release(sinfo);
    return NULL;
  }
  c->op = retain(op);
  c->args = arr;
  c->attrs = full_attrs;
  c->sinfo_args = sarr;
  c->expr.span = retain(span);
  return with_sinfo(c, sinfo);
}

tvm_relax_expr_obj* tvm_relax_call_new(void* op, void* args, void* attrs, void* sinfo_args,
                                       void* span) {
  /* A stale error the caller left raised is set aside: inference's arithmetic reads a raised
   * error as its own failure (ffi.h, tvm_ffi_error_take). */
  void* stale = tvm_ffi_error_take();
  tvm_relax_expr_obj* c = call_new(op, args, attrs, sinfo_args, span);
  tvm_ffi_error_give_back(stale);
  return c;
}

tvm_relax_expr_obj* tvm_relax__call_sinfo(void* callee, void* args,
                                          const tvm_relax_sinfo_obj* sinfo, void* span) {
  if (!callee || !args || !sinfo) return NULL; /* (an earlier step failed, its error raised) */
  TVMFFIAny s = tvm_ffi_any_obj((void*)sinfo); /* (retained by the array) */
  void* sinfo_args = tvm_ffi_array_new(&s, 1);
  tvm_relax_expr_obj* c = sinfo_args ? tvm_relax_call_new(callee, args, NULL, sinfo_args, span)
                                     : NULL;
  tvm_ffi_release(sinfo_args);
  return c;
}

tvm_relax_expr_obj* tvm_relax_call_op(const char* op_name, void* attrs, int32_t num_args, ...) {
  tvm_relax__ensure_init();
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op_name, strlen(op_name));
  if (!info) {
    tvm_ffi_raise("KeyError", "no Relax operator named '%s'", op_name);
    return NULL;
  }
  TVMFFIAny items[16];
  if (num_args < 0 || num_args > 16) {
    tvm_ffi_raise("ValueError", "tvm_relax_call_op: at most 16 arguments");
    return NULL;
  }
  va_list ap;
  va_start(ap, num_args);
  for (int32_t i = 0; i < num_args; ++i) items[i] = tvm_ffi_any_obj(va_arg(ap, void*));
  va_end(ap);
  void* args = tvm_ffi_array_new(items, num_args);
  if (!args) return NULL;
  tvm_relax_expr_obj* c = tvm_relax_call_new(tvm_relax_op(info->id), args, attrs, NULL, NULL);
  tvm_ffi_release(args);
  return c;
}

/* ---- Control flow and scopes ----------------------------------------------------------------- */
static tvm_relax_expr_obj* as_seq(tvm_relax_expr_obj* e) {
  if (tvm_relax_kind_of(e) == TVM_RELAX_KIND_SeqExpr) return retain(e);
  return tvm_relax_seq_expr_new(NULL, e);
}

tvm_relax_expr_obj* tvm_relax_if_new(tvm_relax_expr_obj* cond, tvm_relax_expr_obj* t,
                                     tvm_relax_expr_obj* f) {
  if (!tvm_relax_is_expr(cond) || !tvm_relax_sinfo_of(cond) || !tvm_relax_is_expr(t) ||
      !tvm_relax_is_expr(f)) {
    tvm_ffi_raise("TypeError", "If: condition and branches must be Relax expressions");
    return NULL;
  }
  tvm_relax_sinfo_obj* cs = tvm_relax_sinfo_of(cond);
  tvm_relax_kind ck = tvm_relax_kind_of(cs);
  bool ok = ck == TVM_RELAX_KIND_ObjectStructInfo;
  if (ck == TVM_RELAX_KIND_TensorStructInfo) {
    tvm_relax_tensor_sinfo_obj* ts = (void*)cs;
    ok = (ts->ndim == 0 || ts->ndim == TVM_RELAX_UNKNOWN_NDIM) &&
         (tvm_relax_dtype_is_unknown(ts->dtype) || (ts->dtype.code == kDLUInt && ts->dtype.bits == 1) ||
          ts->dtype.code == kDLBool);
  } else if (ck == TVM_RELAX_KIND_PrimStructInfo) {
    DLDataType t0 = ((tvm_relax_prim_sinfo_obj*)cs)->dtype;
    ok = tvm_relax_dtype_is_unknown(t0) || (t0.code == kDLUInt && t0.bits == 1) ||
         t0.code == kDLBool;
  }
  if (!ok) {
    tvm_ffi_strbuf b = {0};
    tvm_relax_sinfo_text(&b, cs);
    tvm_ffi_raise("TypeError", "If: the condition must be a bool scalar (a tensor of ndim 0 or a "
                  "PrimValue), got %s", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  tvm_relax_expr_obj* ts = as_seq(t);
  tvm_relax_expr_obj* fs = ts ? as_seq(f) : NULL;
  tvm_relax_sinfo_obj* sinfo =
      fs ? tvm_relax_sinfo_lca(tvm_relax_sinfo_of(ts), tvm_relax_sinfo_of(fs)) : NULL;
  tvm_relax_if_obj* node = sinfo ? NEW_EXPR(tvm_relax_if_obj, If) : NULL;
  if (!node) {
    tvm_ffi_release(ts);
    tvm_ffi_release(fs);
    tvm_ffi_release(sinfo);
    return NULL;
  }
  node->cond = retain(cond);
  node->true_branch = ts;
  node->false_branch = fs;
  return with_sinfo(node, sinfo);
}

/* The TIR variables the MatchCast bindings of the blocks define, as a Dict (Var -> None), or
 * *out NULL when there are none. */
static int inner_tir_defs(void* blocks, void** out) {
  *out = NULL;
  TVMFFIAny none = tvm_ffi_any_none();
  void* list = NULL;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(blocks); ++i) {
    tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(blocks, i);
    for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(blk->bindings); ++j) {
      tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, j);
      if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_MatchCast) continue;
      if (!list && !(list = tvm_ffi_list_new())) return -1;
      rc = tvm_relax_sinfo_tir_vars(((tvm_relax_match_cast_obj*)b)->struct_info, true, list);
    }
  }
  if (rc == 0 && list && tvm_ffi_seq_size(list) > 0) {
    *out = tvm_ffi_dict_new();
    rc = *out ? 0 : -1;
    for (int64_t k = 0; rc == 0 && k < tvm_ffi_seq_size(list); ++k) {
      rc = tvm_ffi_dict_set(*out, tvm_ffi_seq_at(list, k), &none);
    }
  }
  tvm_ffi_release(list);
  return rc;
}

/* Whether one of the blocks binds var. */
static bool binds_var(void* blocks, const void* var) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(blocks); ++i) {
    tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      if (((tvm_relax_binding_obj*)tvm_ffi_seq_obj_at(blk->bindings, j))->var == var) return true;
    }
  }
  return false;
}

/* Whether one of the blocks has a MatchCast binding (the only binding that defines TIR
 * variables). */
static bool has_match_cast(void* blocks) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(blocks); ++i) {
    tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      if (tvm_relax_kind_of(tvm_ffi_seq_obj_at(blk->bindings, j)) == TVM_RELAX_KIND_MatchCast) {
        return true;
      }
    }
  }
  return false;
}

/* sinfo erased of what the blocks define: the TIR variables of their MatchCasts, and a shape
 * given by one of their Vars. */
static tvm_relax_sinfo_obj* erase_inner(const tvm_relax_sinfo_obj* sinfo, void* blocks) {
  void* shape = tvm_relax_kind_of(sinfo) == TVM_RELAX_KIND_TensorStructInfo
                    ? ((tvm_relax_tensor_sinfo_obj*)sinfo)->shape
                    : NULL;
  bool inner_shape = shape && tvm_relax_is_var(shape) && binds_var(blocks, shape);
  if (!inner_shape && !has_match_cast(blocks)) return retained_sinfo(sinfo); /* nothing to erase */
  void* used = tvm_ffi_list_new();
  if (!used || tvm_relax_sinfo_tir_vars(sinfo, false, used) != 0) {
    tvm_ffi_release(used);
    return NULL;
  }
  void* inner = NULL;
  void* keep = NULL;
  void* outer_vars = NULL;
  tvm_relax_sinfo_obj* out = NULL;
  TVMFFIAny none = tvm_ffi_any_none();
  bool ok = inner_tir_defs(blocks, &inner) == 0 && (keep = tvm_ffi_dict_new()) != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(used); ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(used, i);
    if (!inner || !tvm_ffi_map_get(inner, v)) ok = tvm_ffi_dict_set(keep, v, &none) == 0;
  }
  /* A shape given by a Var: kept when the Var is defined outside the blocks. */
  if (ok && shape && tvm_relax_is_var(shape) && !inner_shape) {
    TVMFFIAny key = tvm_ffi_any_obj(shape);
    outer_vars = tvm_ffi_dict_new();
    ok = outer_vars && tvm_ffi_dict_set(outer_vars, &key, &none) == 0;
  }
  if (ok) out = tvm_relax_sinfo_erase(sinfo, keep, outer_vars);
  tvm_ffi_release(outer_vars);
  tvm_ffi_release(inner);
  tvm_ffi_release(keep);
  tvm_ffi_release(used);
  return out;
}

tvm_relax_expr_obj* tvm_relax_seq_expr_new(void* blocks, tvm_relax_expr_obj* body) {
  if (!tvm_relax_is_expr(body) || !tvm_relax_sinfo_of(body)) {
    tvm_ffi_raise("TypeError", "SeqExpr: the body must be a Relax expression with struct info");
    return NULL;
  }
  if (blocks && !is_array(blocks)) {
    tvm_ffi_raise("TypeError", "SeqExpr: blocks must be an ffi.Array");
    return NULL;
  }
  for (int64_t i = 0; blocks && i < tvm_ffi_seq_size(blocks); ++i) {
    if (!tvm_relax_is(tvm_ffi_seq_obj_at(blocks, i), TVM_RELAX_KIND_BindingBlock)) {
      tvm_ffi_raise("TypeError", "SeqExpr: blocks[%lld] is not a binding block", (long long)i);
      return NULL;
    }
  }
  tvm_relax_sinfo_obj* sinfo;
  if (!blocks || tvm_ffi_seq_size(blocks) == 0) {
    sinfo = retained_sinfo(tvm_relax_sinfo_of(body));
  } else {
    sinfo = erase_inner(tvm_relax_sinfo_of(body), blocks);
  }
  if (!sinfo) return NULL;
  tvm_relax_seq_expr_obj* s = NEW_EXPR(tvm_relax_seq_expr_obj, SeqExpr);
  if (!s) {
    tvm_ffi_release(sinfo);
    return NULL;
  }
  s->blocks = blocks ? retain(blocks) : tvm_relax__empty_array();
  s->body = retain(body);
  return with_sinfo(s, sinfo);
}

/* ---- Functions ------------------------------------------------------------------------------- */
/* The body's struct info erased to what the parameters define (their Vars and TIR variables):
 * the return struct info of a function without an annotation. */
static tvm_relax_sinfo_obj* erase_to_params(const tvm_relax_sinfo_obj* body_sinfo, void* params,
                                            int64_t n) {
  void* tirs = tvm_ffi_dict_new();
  void* pvars = tvm_ffi_dict_new();
  void* list = tvm_ffi_list_new();
  bool ok = tirs && pvars && list;
  TVMFFIAny none = tvm_ffi_any_none();
  for (int64_t i = 0; ok && i < n; ++i) {
    tvm_relax_var_obj* p = tvm_ffi_seq_obj_at(params, i);
    TVMFFIAny key = tvm_ffi_any_obj(p);
    ok = tvm_ffi_dict_set(pvars, &key, &none) == 0 &&
         tvm_relax_sinfo_tir_vars(tvm_relax_sinfo_of(p), false, list) == 0;
  }
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(list); ++i) {
    ok = tvm_ffi_dict_set(tirs, tvm_ffi_seq_at(list, i), &none) == 0;
  }
  tvm_relax_sinfo_obj* ret = ok ? tvm_relax_sinfo_erase(body_sinfo, tirs, pvars) : NULL;
  tvm_ffi_release(tirs);
  tvm_ffi_release(pvars);
  tvm_ffi_release(list);
  return ret;
}

tvm_relax_function_obj* tvm_relax_function_new(void* params, tvm_relax_expr_obj* body,
                                               tvm_relax_sinfo_obj* ret_sinfo, bool is_pure,
                                               void* attrs) {
  if (params && !is_array(params)) {
    tvm_ffi_raise("TypeError", "Function: params must be an ffi.Array of Var");
    return NULL;
  }
  int64_t n = params ? tvm_ffi_seq_size(params) : 0;
  for (int64_t i = 0; i < n; ++i) {
    void* p = tvm_ffi_seq_obj_at(params, i);
    if (tvm_relax_kind_of(p) != TVM_RELAX_KIND_Var) {
      tvm_ffi_raise("TypeError", "Function: params[%lld] must be a Var (not a DataflowVar)",
                    (long long)i);
      return NULL;
    }
  }
  if (attrs && tvm_ffi_type_index(attrs) != kTVMFFIMap) {
    tvm_ffi_raise("TypeError", "Function: attrs must be an ffi.Map");
    return NULL;
  }
  if (ret_sinfo && !tvm_relax_is_sinfo(ret_sinfo)) {
    tvm_ffi_raise("TypeError", "Function: ret_struct_info must be a struct info");
    return NULL;
  }
  tvm_relax_expr_obj* seq = tvm_relax_is_expr(body) ? as_seq(body) : NULL;
  if (!seq) {
    if (!tvm_ffi_error_pending()) tvm_ffi_raise("TypeError", "Function: body must be a Relax expression");
    return NULL;
  }
  tvm_relax_sinfo_obj* body_sinfo = tvm_relax_sinfo_of(seq);
  tvm_relax_sinfo_obj* ret = NULL;
  if (ret_sinfo) {
    if (tvm_relax_sinfo_base_check(ret_sinfo, body_sinfo) == TVM_RELAX_BASE_CHECK_FAIL) {
      tvm_ffi_strbuf b = {0};
      tvm_ffi_strbuf_puts(&b, "Function: the body's struct info ");
      tvm_relax_sinfo_text(&b, body_sinfo);
      tvm_ffi_strbuf_puts(&b, " is not an instance of the return annotation ");
      tvm_relax_sinfo_text(&b, ret_sinfo);
      tvm_ffi_raise("TypeError", "%s", tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&b);
    } else {
      ret = retained_sinfo(ret_sinfo);
    }
  } else {
    ret = erase_to_params(body_sinfo, params, n);
  }
  /* The signature: the parameters' struct infos, then the return's. */
  void* parr = NULL;
  if (ret) {
    void* stack[16];
    void** ps = n <= 16 ? stack : tvm_ffi_calloc((size_t)n, sizeof(void*));
    if (ps) {
      for (int64_t i = 0; i < n; ++i) ps[i] = tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(params, i));
      parr = tvm_ffi_array_of_objects(ps, n);
      if (ps != stack) tvm_ffi_free(ps);
    }
  }
  tvm_relax_sinfo_obj* fsinfo = parr ? tvm_relax_func_sinfo_new(parr, ret, is_pure) : NULL;
  tvm_ffi_release(parr);
  tvm_relax_function_obj* f = fsinfo ? NEW_EXPR(tvm_relax_function_obj, Function) : NULL;
  if (!f) {
    tvm_ffi_release(seq);
    tvm_ffi_release(ret);
    tvm_ffi_release(fsinfo);
    return NULL;
  }
  f->params = params ? retain(params) : tvm_relax__empty_array();
  f->body = seq;
  f->ret_struct_info = ret;
  f->is_pure = is_pure;
  f->func.attrs = attrs ? retain(attrs) : tvm_relax__empty_map();
  return with_sinfo(f, fsinfo);
}

tvm_relax_function_obj* tvm_relax_function_with_attrs(const tvm_relax_function_obj* func,
                                                      void* attrs) {
  if (tvm_relax_kind_of(func) != TVM_RELAX_KIND_Function) {
    tvm_ffi_raise("TypeError", "Function.with_attrs: not a Relax Function");
    return NULL;
  }
  if (attrs && tvm_ffi_type_index(attrs) != kTVMFFIMap) {
    tvm_ffi_raise("TypeError", "Function: attrs must be an ffi.Map");
    return NULL;
  }
  /* Attributes take no part in a function's struct info: the other fields, and the struct info
   * computed from them, are shared (nothing is inferred again). */
  tvm_relax_function_obj* f = NEW_EXPR(tvm_relax_function_obj, Function);
  if (!f) return NULL;
  f->params = retain(func->params);
  f->body = retain(func->body);
  f->ret_struct_info = retain(func->ret_struct_info);
  f->is_pure = func->is_pure;
  f->func.attrs = attrs ? retain(attrs) : tvm_relax__empty_map();
  f->func.relax.span = func->func.relax.span ? retain(func->func.relax.span) : NULL;
  return with_sinfo(f, retained_sinfo(tvm_relax_sinfo_of(func)));
}

tvm_relax_function_obj* tvm_relax_function_with_attr(tvm_relax_function_obj* func, const char* key,
                                                     const TVMFFIAny* value) {
  void* dict = tvm_ffi_dict_new();
  if (!dict) return NULL;
  const TVMFFIAny *k, *v;
  int rc = 0;
  for (int64_t pos = tvm_ffi_map_next(func->func.attrs, 0, &k, &v); rc == 0 && pos >= 0;
       pos = tvm_ffi_map_next(func->func.attrs, pos, &k, &v)) {
    rc = tvm_ffi_dict_set(dict, k, v);
  }
  TVMFFIAny kk = tvm_ffi_string(key);
  if (rc == 0) rc = tvm_ffi_dict_set(dict, &kk, value);
  tvm_ffi_any_release(&kk);
  void* attrs = rc == 0 ? tvm_ffi_dict_to_map(dict) : NULL;
  tvm_ffi_release(dict);
  if (!attrs) return NULL;
  tvm_relax_function_obj* f = tvm_relax_function_with_attrs(func, attrs);
  tvm_ffi_release(attrs);
  return f;
}

tvm_relax_expr_obj* tvm_relax_extern_func_new(const char* global_symbol, tvm_relax_sinfo_obj* sinfo) {
  if (sinfo && tvm_relax_kind_of(sinfo) != TVM_RELAX_KIND_FuncStructInfo) {
    tvm_ffi_raise("TypeError", "ExternFunc: struct info must be a FuncStructInfo");
    return NULL;
  }
  tvm_relax_sinfo_obj* s = sinfo ? retained_sinfo(sinfo) : tvm_relax_func_sinfo_new(NULL, NULL, false);
  tvm_relax_extern_func_obj* f = s ? NEW_EXPR(tvm_relax_extern_func_obj, ExternFunc) : NULL;
  if (!f || !(f->global_symbol = tvm_relax__str(global_symbol)) ||
      !(f->func.attrs = tvm_relax__empty_map())) {
    tvm_ffi_release(f);
    tvm_ffi_release(s);
    return NULL;
  }
  return with_sinfo(f, s);
}

tvm_tir_global_var_obj* tvm_relax_global_var_new(const char* name_hint, tvm_relax_sinfo_obj* sinfo) {
  if (sinfo && !tvm_relax_is_sinfo(sinfo)) {
    tvm_ffi_raise("TypeError", "GlobalVar: struct info expected");
    return NULL;
  }
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new(name_hint);
  if (gv && sinfo) gv->relax.struct_info_ = retained_sinfo(sinfo);
  return gv;
}

tvm_relax_sinfo_obj* tvm_relax_prim_func_type_sinfo(const tvm_tir_type_obj* ret_type) {
  const tvm_tir_type_obj* t = ret_type;
  tvm_relax_sinfo_obj* ret;
  if (!t || (tvm_tir_is(t, TVM_TIR_KIND_TupleType) &&
             (!((const tvm_tir_tuple_type_obj*)t)->fields ||
              tvm_ffi_seq_size(((const tvm_tir_tuple_type_obj*)t)->fields) == 0))) {
    ret = tvm_relax_void_sinfo();
  } else if (tvm_tir_is(t, TVM_TIR_KIND_PrimType)) {
    ret = tvm_relax_prim_sinfo_new(((const tvm_tir_prim_type_obj*)t)->dtype, NULL);
  } else {
    ret = tvm_relax_object_sinfo_new();
  }
  tvm_relax_sinfo_obj* s = ret ? tvm_relax_func_sinfo_new(NULL, ret, false) : NULL;
  tvm_ffi_release(ret);
  return s;
}

tvm_relax_sinfo_obj* tvm_relax_prim_func_sinfo(const tvm_tir_prim_func_obj* func) {
  if (!func) {
    tvm_ffi_raise("TypeError", "tvm_relax_prim_func_sinfo: NULL PrimFunc");
    return NULL;
  }
  return tvm_relax_prim_func_type_sinfo(func->ret_type);
}

/* ---- Bindings -------------------------------------------------------------------------------- */
static int check_binding_var(tvm_relax_var_obj* var, tvm_relax_expr_obj* value, const char* what) {
  if (!tvm_relax_is_var(var)) return tvm_ffi_raise("TypeError", "%s: var must be a Relax Var", what);
  if (!tvm_relax_is_expr(value) || !tvm_relax_sinfo_of(value)) {
    return tvm_ffi_raise("TypeError", "%s: value must be a Relax expression with struct info", what);
  }
  return 0;
}

tvm_relax_binding_obj* tvm_relax_var_binding_new(tvm_relax_var_obj* var, tvm_relax_expr_obj* value) {
  if (check_binding_var(var, value, "VarBinding") != 0) return NULL;
  tvm_relax_sinfo_obj* vs = tvm_relax_sinfo_of(var);
  tvm_relax_sinfo_obj* xs = tvm_relax_sinfo_of(value);
  if (vs != xs && tvm_relax_sinfo_base_check(vs, xs) == TVM_RELAX_BASE_CHECK_FAIL) {
    tvm_ffi_strbuf b = {0};
    tvm_ffi_strbuf_printf(&b, "binding of %s: the value's struct info ", tvm_relax_var_name(var));
    tvm_relax_sinfo_text(&b, xs);
    tvm_ffi_strbuf_puts(&b, " is not an instance of the annotation ");
    tvm_relax_sinfo_text(&b, vs);
    tvm_ffi_raise("TypeError", "%s", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  tvm_relax_var_binding_obj* b = tvm_relax__new(TVM_RELAX_KIND_VarBinding, sizeof(*b));
  if (!b) return NULL;
  b->binding.var = retain(var);
  b->value = retain(value);
  return &b->binding;
}

tvm_relax_binding_obj* tvm_relax_match_cast_new(tvm_relax_var_obj* var, tvm_relax_expr_obj* value,
                                                tvm_relax_sinfo_obj* sinfo) {
  if (check_binding_var(var, value, "MatchCast") != 0) return NULL;
  if (!tvm_relax_is_sinfo(sinfo)) {
    tvm_ffi_raise("TypeError", "MatchCast: a struct info is required");
    return NULL;
  }
  if (tvm_relax_sinfo_base_check(sinfo, tvm_relax_sinfo_of(value)) == TVM_RELAX_BASE_CHECK_FAIL) {
    tvm_ffi_strbuf b = {0};
    tvm_ffi_strbuf_printf(&b, "R.match_cast to %s: the value's struct info ", tvm_relax_var_name(var));
    tvm_relax_sinfo_text(&b, tvm_relax_sinfo_of(value));
    tvm_ffi_strbuf_puts(&b, " can never match ");
    tvm_relax_sinfo_text(&b, sinfo);
    tvm_ffi_raise("TypeError", "%s", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  tvm_relax_match_cast_obj* b = tvm_relax__new(TVM_RELAX_KIND_MatchCast, sizeof(*b));
  if (!b) return NULL;
  b->binding.var = retain(var);
  b->value = retain(value);
  b->struct_info = retained_sinfo(sinfo);
  return &b->binding;
}

tvm_relax_block_obj* tvm_relax_block_new(void* bindings, bool dataflow) {
  if (bindings && !is_array(bindings)) {
    tvm_ffi_raise("TypeError", "BindingBlock: bindings must be an ffi.Array");
    return NULL;
  }
  for (int64_t i = 0; bindings && i < tvm_ffi_seq_size(bindings); ++i) {
    if (!tvm_relax_is(tvm_ffi_seq_obj_at(bindings, i), TVM_RELAX_KIND_Binding)) {
      tvm_ffi_raise("TypeError", "BindingBlock: bindings[%lld] is not a binding", (long long)i);
      return NULL;
    }
  }
  tvm_relax_block_obj* b = dataflow ? tvm_relax__new(TVM_RELAX_KIND_DataflowBlock, sizeof(*b))
                                    : tvm_relax__new(TVM_RELAX_KIND_BindingBlock, sizeof(*b));
  if (!b) return NULL;
  b->bindings = bindings ? retain(bindings) : tvm_relax__empty_array();
  return b;
}

/* ---- Shared walks ---------------------------------------------------------------------------- */
bool tvm_relax__is_leaf(const void* e, bool tuples) {
  switch (tvm_relax_kind_of(e)) {
    case TVM_RELAX_KIND_Var:
    case TVM_RELAX_KIND_DataflowVar:
    case TVM_RELAX_KIND_Constant:
    case TVM_RELAX_KIND_ShapeExpr:
    case TVM_RELAX_KIND_PrimValue:
    case TVM_RELAX_KIND_StringImm:
    case TVM_RELAX_KIND_DataTypeImm:
    case TVM_RELAX_KIND_ExternFunc:
      return true;
    case TVM_RELAX_KIND_Tuple:
      return tuples;
    case TVM_RELAX_KIND_NONE:
      return tvm_tir_is(e, TVM_TIR_KIND_GlobalVar) || tvm_tir_is(e, TVM_TIR_KIND_Op);
    default:
      return false;
  }
}

void* tvm_relax__map_array(void* arr, void* (*fn)(void* ctx, void* item), void* ctx) {
  int64_t n = tvm_ffi_seq_size(arr);
  /* The new items, made at the first item that changes (most calls change none). */
  TVMFFIAny stack[8];
  TVMFFIAny* items = NULL;
  int64_t i = 0;
  for (; i < n; ++i) {
    void* old = tvm_ffi_seq_obj_at(arr, i);
    void* nw = fn(ctx, old);
    if (!nw) break;
    if (!items) {
      if (nw == old) { /* (arr keeps old alive) */
        tvm_ffi_release(nw);
        continue;
      }
      items = n <= 8 ? stack : tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
      if (!items) {
        tvm_ffi_release(nw);
        break;
      }
      for (int64_t j = 0; j < i; ++j) {
        void* same = tvm_ffi_seq_obj_at(arr, j);
        tvm_ffi_retain(same);
        items[j] = tvm_ffi_any_obj(same); /* owned */
      }
    }
    items[i] = tvm_ffi_any_obj(nw); /* owned */
  }
  void* out = NULL;
  if (i == n && items) {
    out = tvm_ffi_array_new_take(items, n);
    if (!out) {
      for (int64_t j = 0; j < n; ++j) tvm_ffi_any_release(&items[j]);
    }
  } else if (i == n) {
    tvm_ffi_retain(arr);
    out = arr;
  } else if (items) {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_any_release(&items[j]);
  }
  if (items != stack) tvm_ffi_free(items);
  return out;
}

/*
 * op_builtin.c: inference rules of the structural and runtime operators: calls into TIR and
 * packed functions (call_tir, call_tir_inplace, call_dps_packed, call_pure_packed,
 * call_inplace_packed), shape
 * conversions, null_value, print and assert_op, memory allocation and closures (upstream:
 * src/relax/op/op.cc). Most of them take their result from the call's sinfo_args: the callee
 * is opaque to Relax.
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_call_tir_inplace[] = {
    {"inplace_indices", TVM_RELAX_ATTR_INTS, NULL}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_call_tir_with_grad[] = {
    {"te_grad_name", TVM_RELAX_ATTR_STR, NULL},
    {"te_grad_kwargs", TVM_RELAX_ATTR_ANY, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_print[] = {
    {"format", TVM_RELAX_ATTR_STR, ""}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_assert_op[] = {
    {"format", TVM_RELAX_ATTR_STR, ""}, {NULL, 0, NULL}};

/* ---- Helpers --------------------------------------------------------------------------------- */
/* Raise "argument '<name>' must be <need>, got <what argument i is>"; returns NULL. */
static void* arg_error(const tvm_relax__infer_ctx* ctx, const char* kind, int32_t i,
                       const char* need) {
  tvm_ffi_strbuf name = {0}, got = {0};
  tvm_relax__arg_name(ctx, i, &name);
  tvm_relax_expr_obj* a = tvm_relax__arg(ctx, i);
  if (a && tvm_relax_sinfo_of(a)) {
    tvm_relax_sinfo_text(&got, tvm_relax_sinfo_of(a));
  } else {
    tvm_relax__text(&got, a);
  }
  tvm_relax__op_error(ctx, kind, "argument '%s' must be %s, got %s", tvm_ffi_strbuf_cstr(&name),
                      need, tvm_ffi_strbuf_cstr(&got));
  tvm_ffi_strbuf_free(&name);
  tvm_ffi_strbuf_free(&got);
  return NULL;
}

static tvm_relax_kind arg_sinfo_kind(const tvm_relax__infer_ctx* ctx, int32_t i) {
  return tvm_relax_kind_of(tvm_relax__arg_sinfo(ctx, i));
}

static bool is_bool_dtype(DLDataType t) {
  return (t.code == kDLUInt && t.bits == 1) || t.code == kDLBool;
}

static bool is_int64(DLDataType t) { return t.code == kDLInt && t.bits == 64 && t.lanes == 1; }

/* Argument i's TupleStructInfo (borrowed), or NULL + TypeError. */
static tvm_relax_tuple_sinfo_obj* arg_tuple(const tvm_relax__infer_ctx* ctx, int32_t i) {
  if (arg_sinfo_kind(ctx, i) == TVM_RELAX_KIND_TupleStructInfo) {
    return (tvm_relax_tuple_sinfo_obj*)tvm_relax__arg_sinfo(ctx, i);
  }
  return arg_error(ctx, "TypeError", i, "a tuple (R.tuple of the arguments)");
}

/* Argument i must be a ShapeExpr or another value of R.Shape. */
static tvm_relax_shape_sinfo_obj* arg_shape(const tvm_relax__infer_ctx* ctx, int32_t i) {
  if (arg_sinfo_kind(ctx, i) == TVM_RELAX_KIND_ShapeStructInfo) {
    return (tvm_relax_shape_sinfo_obj*)tvm_relax__arg_sinfo(ctx, i);
  }
  return arg_error(ctx, "TypeError", i, "a shape (R.shape)");
}

/* Argument i must be an integer PrimValue (a device index, an offset). */
static int arg_int_prim(const tvm_relax__infer_ctx* ctx, int32_t i) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_PrimStructInfo) {
    DLDataType t = ((tvm_relax_prim_sinfo_obj*)s)->dtype;
    if (tvm_relax_dtype_is_unknown(t) || t.code == kDLInt || t.code == kDLUInt) return 0;
  }
  arg_error(ctx, "TypeError", i, "an integer R.prim_value");
  return -1;
}

/* Argument i must be the expression kind `kind` itself (a literal: DataTypeImm, StringImm). */
static int arg_literal(const tvm_relax__infer_ctx* ctx, int32_t i, tvm_relax_kind kind,
                       const char* need) {
  if (tvm_relax_kind_of(tvm_relax__arg(ctx, i)) == kind) return 0;
  arg_error(ctx, "TypeError", i, need);
  return -1;
}

/* The single struct info of sinfo_args: the call's output (borrowed), or NULL + ValueError. */
static tvm_relax_sinfo_obj* single_sinfo_arg(const tvm_relax__infer_ctx* ctx) {
  int64_t n = tvm_ffi_seq_size(ctx->sinfo_args);
  if (n != 1) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "sinfo_args must hold exactly one output struct info, got %lld",
                               (long long)n);
  }
  return tvm_ffi_seq_obj_at(ctx->sinfo_args, 0);
}

/* Whether s is a tensor: a DTensor too (R.dist.call_tir, upstream's call_tir of distributed
 * tensors). */
static bool any_tensor(const tvm_relax_sinfo_obj* s) {
  tvm_relax_kind k = tvm_relax_kind_of(s);
  return k == TVM_RELAX_KIND_TensorStructInfo || k == TVM_RELAX_KIND_DTensorStructInfo;
}

/* Whether s is a DTensor of known shape (dist.call_tir_local_view's outputs). */
static bool known_dtensor(const tvm_relax_sinfo_obj* s) {
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_DTensorStructInfo) return false;
  const tvm_relax_sinfo_obj* t = ((const tvm_relax_dtensor_sinfo_obj*)s)->tensor_sinfo;
  return tvm_relax_tensor_sinfo_dims(t) != NULL;
}

/* The output of a destination-passing call (borrowed): one struct info `item` accepts, or a
 * tuple of them; else NULL + TypeError "... must be <need>". */
static tvm_relax_sinfo_obj* dps_output_of(const tvm_relax__infer_ctx* ctx,
                                          bool (*item)(const tvm_relax_sinfo_obj*),
                                          const char* need) {
  tvm_relax_sinfo_obj* out = single_sinfo_arg(ctx);
  if (!out) return NULL;
  bool ok = item(out);
  if (tvm_relax_kind_of(out) == TVM_RELAX_KIND_TupleStructInfo) {
    void* f = ((tvm_relax_tuple_sinfo_obj*)out)->fields;
    ok = true;
    for (int64_t i = 0; ok && i < tvm_ffi_seq_size(f); ++i) ok = item(tvm_ffi_seq_obj_at(f, i));
  }
  if (!ok) {
    tvm_ffi_strbuf b = {0};
    tvm_relax_sinfo_text(&b, out);
    tvm_relax__op_error(ctx, "TypeError", "the output struct info (sinfo_args[0]) must be %s, got %s",
                        need, tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  return out;
}

/* The output of a destination-passing call: a tensor or a tuple of tensors. */
static tvm_relax_sinfo_obj* dps_output(const tvm_relax__infer_ctx* ctx) {
  return dps_output_of(ctx, any_tensor, "a tensor or a tuple of tensors");
}

/* call_tir and call_tir_inplace: func a GlobalVar (of a PrimFunc) or an ExternFunc, args a
 * tuple, packed_ints (optional) a shape. Returns the output struct info (borrowed). */
static tvm_relax_sinfo_obj* call_tir_common(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_expr_obj* func = tvm_relax__arg(ctx, 0);
  if (!tvm_tir_is(func, TVM_TIR_KIND_GlobalVar) &&
      tvm_relax_kind_of(func) != TVM_RELAX_KIND_ExternFunc) {
    return arg_error(ctx, "TypeError", 0, "a GlobalVar of a PrimFunc or an ExternFunc");
  }
  if (!arg_tuple(ctx, 1)) return NULL;
  if (ctx->num_args > 2 && !arg_shape(ctx, 2)) return NULL;
  return dps_output(ctx);
}

/* ---- Calls of TIR and packed functions ------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_call_tir(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* out = call_tir_common(ctx);
  return out ? retained_sinfo(out) : NULL;
}

/* dist.call_tir_local_view (upstream's MakeCallTIRLocalView and its rule): func a GlobalVar of a
 * PrimFunc written for one device's shard, args a tuple, packed_ints (optional) a shape; the
 * output DTensors (or a tuple of them) of known shapes, the global view of what the shards
 * make. */
tvm_relax_sinfo_obj* tvm_relax__infer_call_tir_local_view(const tvm_relax__infer_ctx* ctx) {
  if (!tvm_tir_is(tvm_relax__arg(ctx, 0), TVM_TIR_KIND_GlobalVar)) {
    return arg_error(ctx, "TypeError", 0, "a GlobalVar of a PrimFunc");
  }
  if (!arg_tuple(ctx, 1)) return NULL;
  if (ctx->num_args > 2 && !arg_shape(ctx, 2)) return NULL;
  tvm_relax_sinfo_obj* out =
      dps_output_of(ctx, known_dtensor, "R.DTensor of known shape, or a tuple of them");
  return out ? retained_sinfo(out) : NULL;
}

/* call_tir_with_grad: call_tir's rule; te_grad_kwargs None or a map of string keys. */
tvm_relax_sinfo_obj* tvm_relax__infer_call_tir_with_grad(const tvm_relax__infer_ctx* ctx) {
  const TVMFFIAny* kw = tvm_relax__attr(ctx, "te_grad_kwargs");
  if (!tvm_ffi_any_is_none(kw) && kw->type_index != kTVMFFIMap) {
    return tvm_relax__op_error(ctx, "TypeError",
                               "attribute 'te_grad_kwargs' must be a dict of keyword arguments, "
                               "got %s",
                               tvm_ffi_any_type_name(kw));
  }
  const char* name = tvm_relax__attr_str(ctx, "te_grad_name");
  if (!name || !*name) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'te_grad_name' must name the gradient function");
  }
  tvm_relax_sinfo_obj* out = call_tir_common(ctx);
  return out ? retained_sinfo(out) : NULL;
}

/* Whether two tensor struct infos provably have the same shape. */
static bool same_shape(const tvm_relax_tensor_sinfo_obj* a, const tvm_relax_tensor_sinfo_obj* b) {
  void* da = tvm_relax_tensor_sinfo_dims(&a->base);
  void* db = tvm_relax_tensor_sinfo_dims(&b->base);
  if (!da || !db) return a->shape && a->shape == b->shape;
  if (tvm_ffi_seq_size(da) != tvm_ffi_seq_size(db)) return false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(da); ++i) {
    if (!tvm_relax__dim_equal(tvm_ffi_seq_obj_at(da, i), tvm_ffi_seq_obj_at(db, i))) return false;
  }
  return true;
}

/* inplace_indices[i] (an attribute checked by the schema to hold integers). */
static int64_t inplace_index(const void* idx, int64_t i) {
  int64_t k = 0;
  tvm_ffi_any_as_int(tvm_ffi_seq_at(idx, i), &k);
  return k;
}

/* Whether each of inplace_indices is -1 or the index of one of num_inputs inputs, those other
 * than -1 are unique, and there is one (else the call is `plain`'s). Raises when not. */
static bool inplace_indices_valid(const tvm_relax__infer_ctx* ctx, const void* idx,
                                  int64_t num_inputs, const char* plain) {
  int64_t n = tvm_ffi_seq_size(idx);
  bool any = false;
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = inplace_index(idx, i);
    if (k < -1 || k >= num_inputs) {
      tvm_relax__op_error(ctx, "ValueError",
                          "'inplace_indices' gives %lld for output %lld, out of range: it must be "
                          "-1 or the index of one of the %lld inputs",
                          (long long)k, (long long)i, (long long)num_inputs);
      return false;
    }
    if (k == -1) continue;
    any = true;
    for (int64_t j = 0; j < i; ++j) {
      if (inplace_index(idx, j) == k) {
        tvm_relax__op_error(ctx, "ValueError",
                            "'inplace_indices' must be unique, but input %lld appears more "
                            "than once",
                            (long long)k);
        return false;
      }
    }
  }
  if (!any) {
    tvm_relax__op_error(ctx, "ValueError",
                        "at least one of 'inplace_indices' must be other than -1 (else use %s)",
                        plain);
  }
  return any;
}

/* Raise "'inplace_indices' computes output i (o) in place of input k, which <what>: <in>";
 * returns NULL. */
static void* inplace_mismatch(const tvm_relax__infer_ctx* ctx, int64_t i,
                              const tvm_relax_sinfo_obj* o, int64_t k, const char* what,
                              const tvm_relax_sinfo_obj* in) {
  tvm_ffi_strbuf a = {0}, b = {0};
  tvm_relax_sinfo_text(&a, o);
  tvm_relax_sinfo_text(&b, in);
  tvm_relax__op_error(ctx, "ValueError",
                      "'inplace_indices' computes output %lld (%s) in place of input %lld, which "
                      "%s: %s",
                      (long long)i, tvm_ffi_strbuf_cstr(&a), (long long)k, what,
                      tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&a);
  tvm_ffi_strbuf_free(&b);
  return NULL;
}

tvm_relax_sinfo_obj* tvm_relax__infer_call_tir_inplace(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* out = call_tir_common(ctx);
  if (!out) return NULL;
  void* inputs = ((tvm_relax_tuple_sinfo_obj*)tvm_relax__arg_sinfo(ctx, 1))->fields;
  int64_t num_inputs = tvm_ffi_seq_size(inputs);
  bool is_tuple = tvm_relax_kind_of(out) == TVM_RELAX_KIND_TupleStructInfo;
  void* outputs = is_tuple ? ((tvm_relax_tuple_sinfo_obj*)out)->fields : NULL;
  int64_t num_outputs = is_tuple ? tvm_ffi_seq_size(outputs) : 1;
  void* idx = tvm_relax__attr_ints(ctx, "inplace_indices");
  int64_t n = tvm_ffi_seq_size(idx);
  if (n != num_outputs) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'inplace_indices' must give one index per output: %lld "
                               "outputs, %lld indices",
                               (long long)num_outputs, (long long)n);
  }
  if (!inplace_indices_valid(ctx, idx, num_inputs, "relax.call_tir")) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = inplace_index(idx, i);
    if (k == -1) continue;
    tvm_relax_tensor_sinfo_obj* o = is_tuple ? tvm_ffi_seq_obj_at(outputs, i) : (void*)out;
    tvm_relax_sinfo_obj* in = tvm_ffi_seq_obj_at(inputs, k);
    tvm_relax_tensor_sinfo_obj* t =
        tvm_relax_kind_of(in) == TVM_RELAX_KIND_TensorStructInfo ? (void*)in : NULL;
    const char* what = !t                                      ? "is not a tensor"
                       : !same_shape(t, o)                     ? "has another shape"
                       : !tvm_relax_dtype_is_unknown(t->dtype) &&
                               !tvm_relax_dtype_is_unknown(o->dtype) &&
                               !tvm_ffi_dtype_equal(t->dtype, o->dtype)
                           ? "has another dtype"
                           : NULL;
    if (what) return inplace_mismatch(ctx, i, &o->base, k, what, in);
  }
  return retained_sinfo(out);
}

/* call_dps_packed(func, args): func an ExternFunc or a function value (a variable of R.Callable
 * or R.Object, e.g. bound to an ExternFunc), as upstream takes any expression for it. */
tvm_relax_sinfo_obj* tvm_relax__infer_call_dps_packed(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_kind fk = arg_sinfo_kind(ctx, 0);
  if (tvm_relax_kind_of(tvm_relax__arg(ctx, 0)) != TVM_RELAX_KIND_ExternFunc &&
      fk != TVM_RELAX_KIND_FuncStructInfo && fk != TVM_RELAX_KIND_ObjectStructInfo) {
    return arg_error(ctx, "TypeError", 0, "an ExternFunc or a function value (R.Callable)");
  }
  if (!arg_tuple(ctx, 1)) return NULL;
  tvm_relax_sinfo_obj* out = dps_output(ctx);
  return out ? retained_sinfo(out) : NULL;
}

/* The result given by sinfo_args: none -> fallback (new reference), one -> it, more -> their
 * tuple. */
static tvm_relax_sinfo_obj* sinfo_args_result(const tvm_relax__infer_ctx* ctx,
                                              tvm_relax_sinfo_obj* fallback) {
  int64_t n = tvm_ffi_seq_size(ctx->sinfo_args);
  if (n == 0) return fallback ? retained_sinfo(fallback) : tvm_relax_object_sinfo_new();
  if (n == 1) return retained_sinfo(tvm_ffi_seq_obj_at(ctx->sinfo_args, 0));
  return tvm_relax_tuple_sinfo_new(ctx->sinfo_args);
}

/* The result of a call of the packed function args[0] (call_pure_packed's and
 * call_inplace_packed's callee: an ExternFunc, a name, or an opaque function value): sinfo_args,
 * else the callee's declared return, else R.Object. New reference, or NULL + error. */
static tvm_relax_sinfo_obj* packed_call_result(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_expr_obj* func = tvm_relax__arg(ctx, 0);
  tvm_relax_sinfo_obj* fs = tvm_relax__arg_sinfo(ctx, 0);
  tvm_relax_kind k = tvm_relax_kind_of(func);
  tvm_relax_sinfo_obj* ret = NULL;
  if (k == TVM_RELAX_KIND_ExternFunc || k == TVM_RELAX_KIND_StringImm) {
    if (tvm_relax_kind_of(fs) == TVM_RELAX_KIND_FuncStructInfo) {
      ret = ((tvm_relax_func_sinfo_obj*)fs)->ret;
    }
  } else if (tvm_relax_kind_of(fs) == TVM_RELAX_KIND_FuncStructInfo &&
             !((tvm_relax_func_sinfo_obj*)fs)->params) {
    ret = ((tvm_relax_func_sinfo_obj*)fs)->ret; /* an opaque packed function value */
  } else {
    return arg_error(ctx, "TypeError", 0,
                     "an ExternFunc, a function name (StringImm) or an opaque function");
  }
  return sinfo_args_result(ctx, ret);
}

tvm_relax_sinfo_obj* tvm_relax__infer_call_pure_packed(const tvm_relax__infer_ctx* ctx) {
  return packed_call_result(ctx);
}

/* call_inplace_packed(func, args..., inplace_indices): call_pure_packed's result, of which
 * output i is written into argument inplace_indices[i] (of args, after func) and so must be a
 * base of that argument's struct info (one index: the result itself; several: the fields of a
 * tuple result, one per index). Upstream's rule; an index count that is not the number of
 * outputs is refused here (upstream's check does not cover it). */
tvm_relax_sinfo_obj* tvm_relax__infer_call_inplace_packed(const tvm_relax__infer_ctx* ctx) {
  if (ctx->num_args < 2) {
    return tvm_relax__op_error(ctx, "TypeError",
                               "takes the packed function and at least one argument to it (one "
                               "without arguments is a call_pure_packed)");
  }
  void* idx = tvm_relax__attr_ints(ctx, "inplace_indices");
  int64_t n = tvm_ffi_seq_size(idx);
  if (!inplace_indices_valid(ctx, idx, ctx->num_args - 1, "relax.call_pure_packed")) return NULL;
  tvm_relax_sinfo_obj* out = packed_call_result(ctx);
  if (!out) return NULL;
  bool is_tuple = tvm_relax_kind_of(out) == TVM_RELAX_KIND_TupleStructInfo;
  void* outputs = is_tuple ? ((tvm_relax_tuple_sinfo_obj*)out)->fields : NULL;
  if (n > 1 && (!is_tuple || tvm_ffi_seq_size(outputs) != n)) {
    tvm_ffi_strbuf a = {0};
    tvm_relax_sinfo_text(&a, out);
    tvm_relax__op_error(ctx, "ValueError",
                        "'inplace_indices' has %lld indices, which need a tuple result of %lld "
                        "fields, got %s",
                        (long long)n, (long long)n, tvm_ffi_strbuf_cstr(&a));
    tvm_ffi_strbuf_free(&a);
    tvm_ffi_release(out);
    return NULL;
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = inplace_index(idx, i);
    if (k == -1) continue;
    const tvm_relax_sinfo_obj* o = n == 1 ? out : tvm_ffi_seq_obj_at(outputs, i);
    const tvm_relax_sinfo_obj* in = tvm_relax__arg_sinfo(ctx, (int32_t)k + 1);
    if (!tvm_relax_sinfo_is_base_of(o, in)) {
      inplace_mismatch(ctx, i, o, k, "is not an instance of it", in);
      tvm_ffi_release(out);
      return NULL;
    }
  }
  return out;
}

/* call_builtin_with_ctx(func, args): a VM builtin called with the VM context first; func an
 * ExternFunc, args a tuple. The result: sinfo_args (none: R.Object), as upstream. */
tvm_relax_sinfo_obj* tvm_relax__infer_call_builtin_with_ctx(const tvm_relax__infer_ctx* ctx) {
  if (tvm_relax_kind_of(tvm_relax__arg(ctx, 0)) != TVM_RELAX_KIND_ExternFunc) {
    return arg_error(ctx, "TypeError", 0, "an ExternFunc (the builtin's name)");
  }
  if (!arg_tuple(ctx, 1)) return NULL;
  return sinfo_args_result(ctx, NULL);
}

/* vm.call_tir_dyn(func, args): func a GlobalVar of a PrimFunc, or the name of a packed function
 * (an ExternFunc or a StringImm, as upstream's wrapper converts a string), args a tuple whose
 * last field is the shape of the TIR arguments unpacked after the tensors (CallTIRRewrite's form
 * of a call_tir with tir_vars). The kernel writes its outputs in place: the result is void. */
tvm_relax_sinfo_obj* tvm_relax__infer_vm_call_tir_dyn(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_kind fk = tvm_relax_kind_of(tvm_relax__arg(ctx, 0));
  if (!tvm_tir_is(tvm_relax__arg(ctx, 0), TVM_TIR_KIND_GlobalVar) &&
      fk != TVM_RELAX_KIND_ExternFunc && fk != TVM_RELAX_KIND_StringImm) {
    return arg_error(ctx, "TypeError", 0,
                     "a GlobalVar of a PrimFunc or a packed function's name (ExternFunc, StringImm)");
  }
  tvm_relax_tuple_sinfo_obj* t = arg_tuple(ctx, 1);
  if (!t) return NULL;
  int64_t n = tvm_ffi_seq_size(t->fields);
  if (n == 0 ||
      tvm_relax_kind_of(tvm_ffi_seq_obj_at(t->fields, n - 1)) != TVM_RELAX_KIND_ShapeStructInfo) {
    return arg_error(ctx, "TypeError", 1,
                     "a tuple of the tensors then the shape of the TIR arguments (R.shape)");
  }
  return tvm_relax_void_sinfo();
}

/* ---- Shapes ---------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_shape_of(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  /* A shape given by a Relax Var stays ndim-only, as upstream does. */
  if (tvm_relax_kind_of(x->shape) == TVM_RELAX_KIND_ShapeExpr) {
    return tvm_relax_shape_sinfo_new(((tvm_relax_shape_expr_obj*)x->shape)->values,
                                     TVM_RELAX_UNKNOWN_NDIM);
  }
  return tvm_relax_shape_sinfo_new(NULL, x->ndim);
}

tvm_relax_sinfo_obj* tvm_relax__infer_tensor_to_shape(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (x->ndim != 1 && x->ndim != TVM_RELAX_UNKNOWN_NDIM) {
    return arg_error(ctx, "ValueError", 0, "a 1-d tensor");
  }
  if (!tvm_relax_dtype_is_unknown(x->dtype) && !is_int64(x->dtype)) {
    return arg_error(ctx, "TypeError", 0, "an int64 tensor");
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  int64_t len = 0;
  int32_t ndim = TVM_RELAX_UNKNOWN_NDIM; /* the number of elements, when constant */
  if (dims && tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, 0), &len) && len >= 0 &&
      len <= INT32_MAX) {
    ndim = (int32_t)len;
  }
  return tvm_relax_shape_sinfo_new(NULL, ndim);
}

tvm_relax_sinfo_obj* tvm_relax__infer_shape_to_tensor(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_shape_sinfo_obj* s = arg_shape(ctx, 0);
  if (!s) return NULL;
  if (s->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return tvm_relax_tensor_sinfo_new(NULL, tvm_tir_dtype_int(64), 1, NULL);
  }
  int64_t len = s->ndim;
  return tvm_relax_tensor_sinfo_of_ints(&len, 1, tvm_tir_dtype_int(64));
}

/* ---- Values and effects ---------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_null_value(const tvm_relax__infer_ctx* ctx) {
  (void)ctx;
  return tvm_relax_object_sinfo_new();
}

tvm_relax_sinfo_obj* tvm_relax__infer_print(const tvm_relax__infer_ctx* ctx) {
  for (int32_t i = 0; i < ctx->num_args; ++i) {
    if (!tvm_relax__arg_sinfo(ctx, i)) return arg_error(ctx, "TypeError", i, "a Relax value");
  }
  return tvm_relax_void_sinfo();
}

tvm_relax_sinfo_obj* tvm_relax__infer_assert_op(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* c = tvm_relax__arg_sinfo(ctx, 0);
  bool ok = false;
  if (tvm_relax_kind_of(c) == TVM_RELAX_KIND_TensorStructInfo) {
    tvm_relax_tensor_sinfo_obj* t = (void*)c;
    ok = (t->ndim == 0 || t->ndim == TVM_RELAX_UNKNOWN_NDIM) &&
         (tvm_relax_dtype_is_unknown(t->dtype) || is_bool_dtype(t->dtype));
  } else if (tvm_relax_kind_of(c) == TVM_RELAX_KIND_PrimStructInfo) {
    DLDataType t = ((tvm_relax_prim_sinfo_obj*)c)->dtype;
    ok = tvm_relax_dtype_is_unknown(t) || is_bool_dtype(t);
  }
  if (!ok) return arg_error(ctx, "TypeError", 0, "a bool scalar (tensor of ndim 0 or R.Prim)");
  for (int32_t i = 1; i < ctx->num_args; ++i) {
    if (!tvm_relax__arg_sinfo(ctx, i)) return arg_error(ctx, "TypeError", i, "a Relax value");
  }
  return tvm_relax_void_sinfo();
}

/* ---- Memory ---------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_alloc_storage(const tvm_relax__infer_ctx* ctx) {
  if (!arg_shape(ctx, 0) || arg_int_prim(ctx, 1) != 0 ||
      arg_literal(ctx, 2, TVM_RELAX_KIND_StringImm, "a StringImm (the storage scope)") != 0 ||
      arg_literal(ctx, 3, TVM_RELAX_KIND_DataTypeImm, "a DataTypeImm") != 0) {
    return NULL;
  }
  return tvm_relax_object_sinfo_new();
}

/* A tensor of the shape given by argument i (a ShapeExpr, a Var of R.Shape, or another value of
 * R.Shape: its known values or ndim) and dtype. */
static tvm_relax_sinfo_obj* tensor_of_shape_arg(const tvm_relax__infer_ctx* ctx, int32_t i,
                                                DLDataType dtype) {
  tvm_relax_expr_obj* shape = tvm_relax__arg(ctx, i);
  tvm_relax_shape_sinfo_obj* s = (tvm_relax_shape_sinfo_obj*)tvm_relax_sinfo_of(shape);
  if (tvm_relax_kind_of(shape) == TVM_RELAX_KIND_ShapeExpr || tvm_relax_is_var(shape)) {
    return tvm_relax_tensor_sinfo_new(shape, dtype, TVM_RELAX_UNKNOWN_NDIM, NULL);
  }
  return tvm_relax__tensor_result(s->values, dtype, s->ndim, NULL);
}

/* memory.alloc_tensor(storage, offset, shape, dtype[, runtime_device_index]): upstream's newer
 * form passes the device index (an integer R.prim_value, its wrapper's default 0); the tensor
 * lives on its storage's device either way. */
tvm_relax_sinfo_obj* tvm_relax__infer_alloc_tensor_from_storage(const tvm_relax__infer_ctx* ctx) {
  if (!tvm_relax__arg_sinfo(ctx, 0)) return arg_error(ctx, "TypeError", 0, "a storage object");
  if (arg_sinfo_kind(ctx, 0) == TVM_RELAX_KIND_TensorStructInfo) {
    return arg_error(ctx, "TypeError", 0, "a storage object (R.Object)");
  }
  if (arg_int_prim(ctx, 1) != 0 || !arg_shape(ctx, 2) ||
      arg_literal(ctx, 3, TVM_RELAX_KIND_DataTypeImm, "a DataTypeImm") != 0 ||
      (ctx->num_args == 5 && arg_int_prim(ctx, 4) != 0)) {
    return NULL;
  }
  return tensor_of_shape_arg(ctx, 2, ((tvm_relax_dtype_imm_obj*)tvm_relax__arg(ctx, 3))->value);
}

tvm_relax_sinfo_obj* tvm_relax__infer_kill(const tvm_relax__infer_ctx* ctx) {
  if (ctx->op->id == TVM_RELAX_OP_memory_kill_tensor) {
    if (!tvm_relax__arg_tensor(ctx, 0)) return NULL;
  } else if (!tvm_relax__arg_sinfo(ctx, 0)) {
    return arg_error(ctx, "TypeError", 0, "a storage object");
  }
  return tvm_relax_void_sinfo();
}

/* The VM's own allocation operators (upstream's relax.vm.*, what VMBuiltinLower makes of the
 * memory operators): vm.alloc_storage(shape, runtime_device_index, dtype, storage_scope) is an
 * R.Object; vm.alloc_tensor(storage, offset, shape, dtype[, runtime_device_index]) a tensor of
 * that dtype whose shape is the ShapeExpr given, else the known values or ndim of the shape's
 * struct info, as upstream's InferStructInfoVMAllocTensor (upstream's newer form adds the device
 * index, an integer R.prim_value: the tensor is on its storage's device either way);
 * vm.kill_object(obj) is void. */
tvm_relax_sinfo_obj* tvm_relax__infer_vm_alloc_storage(const tvm_relax__infer_ctx* ctx) {
  if (!arg_shape(ctx, 0) || arg_int_prim(ctx, 1) != 0 ||
      arg_literal(ctx, 2, TVM_RELAX_KIND_DataTypeImm, "a DataTypeImm") != 0 ||
      arg_literal(ctx, 3, TVM_RELAX_KIND_StringImm, "a StringImm (the storage scope)") != 0) {
    return NULL;
  }
  return tvm_relax_object_sinfo_new();
}

tvm_relax_sinfo_obj* tvm_relax__infer_vm_alloc_tensor(const tvm_relax__infer_ctx* ctx) {
  if (!tvm_relax__arg_sinfo(ctx, 0) || arg_sinfo_kind(ctx, 0) == TVM_RELAX_KIND_TensorStructInfo) {
    return arg_error(ctx, "TypeError", 0, "a storage object (R.Object)");
  }
  tvm_relax_shape_sinfo_obj* s;
  if (arg_int_prim(ctx, 1) != 0 || !(s = arg_shape(ctx, 2)) ||
      arg_literal(ctx, 3, TVM_RELAX_KIND_DataTypeImm, "a DataTypeImm") != 0 ||
      (ctx->num_args == 5 && arg_int_prim(ctx, 4) != 0)) {
    return NULL;
  }
  DLDataType dtype = ((tvm_relax_dtype_imm_obj*)tvm_relax__arg(ctx, 3))->value;
  tvm_relax_expr_obj* shape = tvm_relax__arg(ctx, 2);
  if (tvm_relax_kind_of(shape) == TVM_RELAX_KIND_ShapeExpr) {
    return tvm_relax_tensor_sinfo_new(shape, dtype, TVM_RELAX_UNKNOWN_NDIM, NULL);
  }
  return tvm_relax__tensor_result(s->values, dtype, s->ndim, NULL);
}

tvm_relax_sinfo_obj* tvm_relax__infer_vm_kill_object(const tvm_relax__infer_ctx* ctx) {
  if (!tvm_relax__arg_sinfo(ctx, 0)) return arg_error(ctx, "TypeError", 0, "a Relax value");
  return tvm_relax_void_sinfo();
}

tvm_relax_sinfo_obj* tvm_relax__infer_builtin_alloc_tensor(const tvm_relax__infer_ctx* ctx) {
  if (!arg_shape(ctx, 0) ||
      arg_literal(ctx, 1, TVM_RELAX_KIND_DataTypeImm, "a DataTypeImm") != 0 ||
      arg_int_prim(ctx, 2) != 0 ||
      (ctx->num_args > 3 &&
       arg_literal(ctx, 3, TVM_RELAX_KIND_StringImm, "a StringImm (the storage scope)") != 0)) {
    return NULL;
  }
  return tensor_of_shape_arg(ctx, 0, ((tvm_relax_dtype_imm_obj*)tvm_relax__arg(ctx, 1))->value);
}

/* ---- Closures -------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_invoke_closure(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_kind k = arg_sinfo_kind(ctx, 0);
  if (k != TVM_RELAX_KIND_ObjectStructInfo && k != TVM_RELAX_KIND_FuncStructInfo) {
    return arg_error(ctx, "TypeError", 0, "a closure (R.Object or a function)");
  }
  if (!arg_tuple(ctx, 1)) return NULL;
  return sinfo_args_result(ctx, NULL);
}

tvm_relax_sinfo_obj* tvm_relax__infer_make_closure(const tvm_relax__infer_ctx* ctx) {
  if (!tvm_tir_is(tvm_relax__arg(ctx, 0), TVM_TIR_KIND_GlobalVar)) {
    return arg_error(ctx, "TypeError", 0, "a GlobalVar");
  }
  if (!arg_tuple(ctx, 1)) return NULL;
  return tvm_relax_object_sinfo_new();
}

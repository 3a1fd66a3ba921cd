/*
 * codegen_llvm_entry.c: the packed-API entry point of a PrimFunc, generated directly in LLVM IR
 * from the function's signature (params + buffer_map), instead of as a TIR -> TIR pass: the
 * checks need only the signature, and generating them here keeps libtir free of ABI details.
 *
 *   int32 __tvm_ffi_<name>(ptr handle, ptr args, i32 num_args, ptr result)
 *     check num_args; per parameter (the scalars first, then the buffers): type index, DLTensor fields (ndim, dtype, device, data,
 *     shape, strides, byte_offset) against the Buffer, binding symbolic Vars on first sight;
 *     then call the body function with every bound value and return its result.
 *   internal int32 __tvm_codegen_<name>_body(<bound values>, ptr result)
 *     the lowered body; buffer data pointers are `noalias` parameters (distinct Vars); result
 *     is the entry's, where tir.ret writes the returned value.
 *
 * Errors: TypeError (argument count / kind), ValueError (tensor mismatch), message
 * "<name>: argument <arg>: <what>, got <actual>" built at run time from string parts (the
 * numbers formatted by an internal function), raised with TVMFFIErrorSetRaisedFromCStrParts.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/visit.h>

#include "internal.h"

static bool is_signed_code(DLDataType t) { return t.code == kDLInt; }

/* DLTensor field offsets (pinned against the header below). */
enum {
  DL_DATA = 0,
  DL_DEVICE_TYPE = 8,
  DL_NDIM = 16,
  DL_DTYPE = 20,
  DL_SHAPE = 24,
  DL_STRIDES = 32,
  DL_BYTE_OFFSET = 40
};
_Static_assert(offsetof(DLTensor, device) == DL_DEVICE_TYPE, "DLTensor layout");
_Static_assert(offsetof(DLTensor, ndim) == DL_NDIM, "DLTensor layout");
_Static_assert(offsetof(DLTensor, dtype) == DL_DTYPE, "DLTensor layout");
_Static_assert(offsetof(DLTensor, shape) == DL_SHAPE, "DLTensor layout");
_Static_assert(offsetof(DLTensor, strides) == DL_STRIDES, "DLTensor layout");
_Static_assert(offsetof(DLTensor, byte_offset) == DL_BYTE_OFFSET, "DLTensor layout");
_Static_assert(sizeof(TVMFFIAny) == 16, "TVMFFIAny layout");
/* An ffi.Tensor object holds its DLTensor right after the object header. */
_Static_assert(sizeof(TVMFFIObject) == 24, "ffi.Tensor layout");

static LLVMValueRef c32(cg_state* s, int64_t v) {
  return LLVMConstInt(s->i32, (unsigned long long)v, 1);
}
static LLVMValueRef c64(cg_state* s, int64_t v) {
  return LLVMConstInt(s->i64, (unsigned long long)v, 1);
}

static LLVMValueRef load_at(cg_state* s, LLVMTypeRef t, LLVMValueRef base, int64_t off) {
  LLVMValueRef idx = c64(s, off);
  LLVMValueRef p = LLVMBuildGEP2(s->b, s->i8, base, &idx, 1, "");
  return LLVMBuildLoad2(s->b, t, p, "");
}

/* "int", "float", ... of a type index at run time (a chain of selects over the common ones). */
static LLVMValueRef type_name_of(cg_state* s, LLVMValueRef tindex) {
  static const struct {
    int32_t index;
    const char* name;
  } names[] = {
      {kTVMFFINone, "None"},
      {kTVMFFIInt, "int"},
      {kTVMFFIBool, "bool"},
      {kTVMFFIFloat, "float"},
      {kTVMFFIOpaquePtr, "opaque pointer"},
      {kTVMFFIDataType, "dtype"},
      {kTVMFFIDevice, "device"},
      {kTVMFFIDLTensorPtr, "DLTensor*"},
      {kTVMFFIRawStr, "str"},
      {kTVMFFISmallStr, "str"},
      {kTVMFFIStr, "str"},
      {kTVMFFITensor, "ffi.Tensor"},
      {kTVMFFIShape, "ffi.Shape"},
      {kTVMFFIArray, "ffi.Array"},
      {kTVMFFIFunction, "ffi.Function"},
  };
  LLVMValueRef r = tvm_codegen__cstr(s, "an object");
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i)
    r = LLVMBuildSelect(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, names[i].index), ""),
                        tvm_codegen__cstr(s, names[i].name), r, "");
  return r;
}

static uint32_t pack_dtype(DLDataType t) {
  return (uint32_t)t.code | ((uint32_t)t.bits << 8) | ((uint32_t)t.lanes << 16);
}

static LLVMValueRef dtype_name_of(cg_state* s, LLVMValueRef packed) {
  static const DLDataType types[] = {
      {kDLInt, 8, 1},    {kDLInt, 16, 1},   {kDLInt, 32, 1},    {kDLInt, 64, 1}, {kDLUInt, 8, 1},
      {kDLUInt, 16, 1},  {kDLUInt, 32, 1},  {kDLUInt, 64, 1},   {kDLUInt, 1, 1}, {kDLFloat, 16, 1},
      {kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLBfloat, 16, 1}, {kDLBool, 8, 1},
  };
  LLVMValueRef r = tvm_codegen__cstr(s, "another dtype");
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i) {
    char buf[48];
    if (types[i].code == kDLBool) {
      snprintf(buf, sizeof(buf), "bool8");
    } else {
      snprintf(buf, sizeof(buf), "%s", tvm_tir_dtype_str(types[i]).s);
    }
    r = LLVMBuildSelect(s->b,
                        LLVMBuildICmp(s->b, LLVMIntEQ, packed, c32(s, pack_dtype(types[i])), ""),
                        tvm_codegen__cstr(s, buf), r, "");
  }
  return r;
}

/* A buffer field whose expression uses a variable that a later parameter defines (`(n * 32,)`
 * before the buffer of shape `(n, 32)`): checked once every parameter is bound, as upstream's
 * packed API puts its asserts after all the bindings. */
typedef struct {
  const void* expr;
  LLVMValueRef value;
  char what[64];
  char prefix[256];
} deferred_check;

typedef struct {
  deferred_check* items;
  int64_t n, cap;
} deferred_checks;

typedef struct {
  cg_state* s;
  char prefix[256]; /* "<fname>: argument <name>: " */
  deferred_checks* later;
} arg_ctx;

/* Check an i64 value against an expected i64: ValueError "<prefix><what>: expected E, got V". */
static void check_eq_i64(arg_ctx* a, LLVMValueRef got, LLVMValueRef expected, const char* what) {
  cg_state* s = a->s;
  char head[400];
  snprintf(head, sizeof(head), "%s%s: expected ", a->prefix, what);
  LLVMValueRef cond = LLVMBuildICmp(s->b, LLVMIntEQ, got, expected, "");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "check_fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "check_ok");
  LLVMBuildCondBr(s->b, cond, ok, fail);
  LLVMPositionBuilderAtEnd(s->b, fail);
  LLVMValueRef parts[4] = {tvm_codegen__cstr(s, head), tvm_codegen__fmt_i64(s, expected), tvm_codegen__cstr(s, ", got "),
                           tvm_codegen__fmt_i64(s, got)};
  tvm_codegen__emit_raise(s, "ValueError", parts, 4);
  LLVMPositionBuilderAtEnd(s->b, ok);
}

/* Whether the i64 value v survives conversion to integer dtype t unchanged (uint64: v >= 0). */
static LLVMValueRef fits_dtype(cg_state* s, LLVMValueRef v, DLDataType t) {
  if (t.bits >= 64)
    return t.code == kDLUInt ? LLVMBuildICmp(s->b, LLVMIntSGE, v, c64(s, 0), "")
                             : LLVMConstInt(s->i1, 1, 0);
  LLVMValueRef narrow = LLVMBuildTrunc(s->b, v, LLVMIntTypeInContext(s->ctx, t.bits), "");
  LLVMValueRef back = LLVMBuildIntCast2(s->b, narrow, s->i64, t.code == kDLInt, "");
  return LLVMBuildICmp(s->b, LLVMIntEQ, back, v, "");
}

/* ValueError "<prefix><what>: expected a non-negative <noun>, got V" unless v >= 0. */
static void check_non_negative(arg_ctx* a, LLVMValueRef v, const char* what, const char* noun) {
  cg_state* s = a->s;
  char head[400];
  snprintf(head, sizeof(head), "%s%s: expected a non-negative %s, got ", a->prefix, what, noun);
  LLVMBasicBlockRef ok = tvm_codegen__check_begin(s, LLVMBuildICmp(s->b, LLVMIntSGE, v, c64(s, 0), ""));
  LLVMValueRef parts[2] = {tvm_codegen__cstr(s, head), tvm_codegen__fmt_i64(s, v)};
  tvm_codegen__check_end(s, ok, "ValueError", parts, 2);
}

/* Check the i64 value v64 against expr (of any integer dtype). */
static int check_expr(arg_ctx* a, const void* expr, LLVMValueRef v64, const char* what) {
  cg_state* s = a->s;
  LLVMValueRef e = tvm_codegen__expr(s, expr);
  if (!e) return -1;
  if (LLVMTypeOf(e) != s->i64)
    e = LLVMBuildIntCast2(s->b, e, s->i64, tvm_tir_expr_dtype(expr).code == kDLInt, "");
  check_eq_i64(a, v64, e, what);
  return 0;
}

static int stop_at_unbound_var(tvm_tir_visitor* v, const void* node) {
  return tvm_codegen__lookup(v->ctx, node) ? TVM_TIR_VISIT_CONTINUE : -1;
}

/* Whether every variable of expr is bound already. */
static bool all_bound(cg_state* s, const void* expr) {
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Var] = v.pre[TVM_TIR_KIND_SizeVar] = stop_at_unbound_var;
  v.ctx = s;
  int rc = tvm_tir_visit(&v, expr);
  tvm_tir_visitor_free(&v);
  return rc == 0;
}

/* Bind a Var to value (converted from i64) on first sight, else check expr == value, or, when
 * expr uses a variable not bound yet, note the check for after the last parameter. A value
 * the Var's dtype cannot hold is a ValueError worded as the interpreter's
 * "<prefix><what>: V does not fit variable 'n' of type int32", not a silent truncation. */
static int bind_or_check(arg_ctx* a, const void* expr, LLVMValueRef v64, const char* what) {
  cg_state* s = a->s;
  if (tvm_tir_is_var(expr) && !tvm_codegen__lookup(s, expr)) {
    DLDataType dt = tvm_tir_expr_dtype(expr);
    LLVMTypeRef t = tvm_codegen__type(s, dt);
    if (!t) return -1;
    if (!tvm_tir_dtype_is_integer(dt) || dt.lanes != 1)
      return tvm_codegen__fail(s, "NotImplementedError", "buffer field variable %s of dtype %s",
                     tvm_tir_var_name(expr), tvm_tir_dtype_str(dt).s);
    char head[400], tail[300];
    snprintf(head, sizeof(head), "%s%s: ", a->prefix, what);
    snprintf(tail, sizeof(tail), " does not fit variable '%s' of type %s", tvm_tir_var_name(expr),
             tvm_tir_dtype_str(dt).s);
    LLVMBasicBlockRef ok = tvm_codegen__check_begin(s, fits_dtype(s, v64, dt));
    LLVMValueRef parts[3] = {tvm_codegen__cstr(s, head), tvm_codegen__fmt_i64(s, v64), tvm_codegen__cstr(s, tail)};
    tvm_codegen__check_end(s, ok, "ValueError", parts, 3);
    return tvm_codegen__bind(s, expr, LLVMBuildIntCast2(s->b, v64, t, 1, tvm_tir_var_name(expr)));
  }
  if (!all_bound(s, expr)) {
    deferred_checks* l = a->later;
    if (l->n == l->cap) {
      int64_t cap = l->cap ? 2 * l->cap : 8;
      deferred_check* items = tvm_ffi_realloc(l->items, (size_t)cap * sizeof(deferred_check));
      if (!items) return tvm_codegen__fail(s, "MemoryError", "out of memory");
      l->items = items, l->cap = cap;
    }
    deferred_check* d = &l->items[l->n++];
    d->expr = expr, d->value = v64;
    snprintf(d->what, sizeof(d->what), "%s", what);
    snprintf(d->prefix, sizeof(d->prefix), "%s", a->prefix);
    return 0;
  }
  return check_expr(a, expr, v64, what);
}

static int buffer_param(cg_state* s, arg_ctx* a, LLVMValueRef arg, const tvm_tir_buffer_obj* buf) {
  LLVMValueRef tindex = load_at(s, s->i32, arg, 0);
  LLVMValueRef is_dl = LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFIDLTensorPtr), "");
  LLVMValueRef is_t = LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFITensor), "");
  char msg[400];
  snprintf(msg, sizeof(msg), "%sexpected a Tensor (DLTensor* or ffi.Tensor), got ", a->prefix);
  LLVMValueRef parts[4] = {tvm_codegen__cstr(s, msg), type_name_of(s, tindex)};
  tvm_codegen__emit_check(s, LLVMBuildOr(s->b, is_dl, is_t, ""), "TypeError", parts, 2);
  LLVMValueRef p = load_at(s, s->ptr, arg, 8);
  snprintf(msg, sizeof(msg), "%sgot a NULL DLTensor*", a->prefix);
  parts[0] = tvm_codegen__cstr(s, msg);
  tvm_codegen__emit_check(s, LLVMBuildIsNotNull(s->b, p, ""), "ValueError", parts, 1);
  LLVMValueRef off = c64(s, sizeof(TVMFFIObject));
  LLVMValueRef dl =
      LLVMBuildSelect(s->b, is_t, LLVMBuildGEP2(s->b, s->i8, p, &off, 1, ""), p, "dl");
  /* ndim */
  int64_t ndim = tvm_tir_buffer_ndim(buf);
  LLVMValueRef nd = load_at(s, s->i32, dl, DL_NDIM);
  check_eq_i64(a, LLVMBuildSExt(s->b, nd, s->i64, ""), c64(s, ndim), "ndim");
  /* dtype */
  DLDataType want = buf->dtype;
  if (tvm_tir_dtype_is_bool(want)) want = tvm_ffi_dtype(kDLBool, 8, want.lanes); /* bool tensors */
  LLVMValueRef packed = load_at(s, s->i32, dl, DL_DTYPE);
  snprintf(msg, sizeof(msg), "%sexpected dtype %s, got ", a->prefix,
           tvm_tir_dtype_str(buf->dtype).s);
  parts[0] = tvm_codegen__cstr(s, msg);
  parts[1] = dtype_name_of(s, packed);
  LLVMValueRef ok_dtype = LLVMBuildICmp(s->b, LLVMIntEQ, packed, c32(s, pack_dtype(want)), "");
  if (tvm_tir_dtype_is_bool(buf->dtype)) /* uint1 tensors store one byte per element too */
    ok_dtype =
        LLVMBuildOr(s->b, ok_dtype,
                    LLVMBuildICmp(s->b, LLVMIntEQ, packed, c32(s, pack_dtype(buf->dtype)), ""), "");
  tvm_codegen__emit_check(s, ok_dtype, "ValueError", parts, 2);
  /* device: the function's device type (CPU, or CUDA for the host part of a CUDA build), and
   * for CUDA one device for all tensors, where the kernels are launched */
  LLVMValueRef dev = load_at(s, s->i32, dl, DL_DEVICE_TYPE);
  snprintf(msg, sizeof(msg), "%sexpected a %s tensor (device type %d), got device type ",
           a->prefix, s->device_type == kDLCUDA ? "CUDA" : "CPU", s->device_type);
  LLVMBasicBlockRef dev_ok =
      tvm_codegen__check_begin(s, LLVMBuildICmp(s->b, LLVMIntEQ, dev, c32(s, s->device_type), ""));
  parts[0] = tvm_codegen__cstr(s, msg);
  parts[1] = tvm_codegen__fmt_i64(s, dev);
  tvm_codegen__check_end(s, dev_ok, "ValueError", parts, 2);
  if (s->device_type != kDLCPU) {
    LLVMValueRef id = load_at(s, s->i32, dl, DL_DEVICE_TYPE + 4);
    LLVMValueRef first = tvm_codegen__device_id(s);
    if (!first) { /* passed on to the body like a bound variable */
      if (tvm_codegen__bind(s, &tvm_codegen__device_id_key, id) != 0) return -1;
    } else {
      check_eq_i64(a, LLVMBuildSExt(s->b, id, s->i64, ""), LLVMBuildSExt(s->b, first, s->i64, ""),
                   "device id (all tensors on one device)");
    }
  }
  /* data */
  LLVMValueRef data = load_at(s, s->ptr, dl, DL_DATA);
  snprintf(msg, sizeof(msg), "%sdata is NULL", a->prefix);
  parts[0] = tvm_codegen__cstr(s, msg);
  tvm_codegen__emit_check(s, LLVMBuildIsNotNull(s->b, data, ""), "ValueError", parts, 1);
  /* shape */
  LLVMValueRef shape = load_at(s, s->ptr, dl, DL_SHAPE);
  LLVMValueRef dims[64];
  if (ndim > 64) return tvm_codegen__fail(s, "NotImplementedError", "buffer of more than 64 dimensions");
  for (int64_t d = 0; d < ndim; ++d) {
    dims[d] = load_at(s, s->i64, shape, d * 8);
    char what[32];
    snprintf(what, sizeof(what), "shape[%lld]", (long long)d);
    check_non_negative(a, dims[d], what, "extent");
    if (bind_or_check(a, tvm_tir_array_at(buf->shape, d), dims[d], what) != 0) return -1;
  }
  /* strides */
  LLVMValueRef strides = load_at(s, s->ptr, dl, DL_STRIDES);
  LLVMValueRef has = LLVMBuildIsNotNull(s->b, strides, "");
  LLVMValueRef compact[64];
  LLVMValueRef acc = c64(s, 1);
  for (int64_t d = ndim - 1; d >= 0; --d) {
    compact[d] = acc;
    acc = LLVMBuildMul(s->b, acc, dims[d], "");
  }
  if (tvm_tir_array_size(buf->strides) == 0) {
    LLVMBasicBlockRef chk = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "strides_check");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "strides_done");
    LLVMBuildCondBr(s->b, has, chk, done);
    LLVMPositionBuilderAtEnd(s->b, chk);
    for (int64_t d = 0; d < ndim; ++d) {
      LLVMValueRef st = load_at(s, s->i64, strides, d * 8);
      /* A dimension of extent 1, or any of an empty tensor, may have any stride. */
      LLVMValueRef any = LLVMBuildOr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, dims[d], c64(s, 1), ""),
                                     LLVMBuildICmp(s->b, LLVMIntEQ, acc, c64(s, 0), ""), "");
      LLVMValueRef got = LLVMBuildSelect(s->b, any, compact[d], st, "");
      char what[64];
      snprintf(what, sizeof(what), "not compact: strides[%lld]", (long long)d);
      check_eq_i64(a, got, compact[d], what);
    }
    LLVMBuildBr(s->b, done);
    LLVMPositionBuilderAtEnd(s->b, done);
  } else {
    for (int64_t d = 0; d < ndim; ++d) {
      /* A NULL strides array means compact: read strides[d] only when there is one. */
      LLVMBasicBlockRef rd = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "stride_read");
      LLVMBasicBlockRef jn = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "stride_join");
      LLVMBasicBlockRef from = LLVMGetInsertBlock(s->b);
      LLVMBuildCondBr(s->b, has, rd, jn);
      LLVMPositionBuilderAtEnd(s->b, rd);
      LLVMValueRef st = load_at(s, s->i64, strides, d * 8);
      LLVMBuildBr(s->b, jn);
      LLVMPositionBuilderAtEnd(s->b, jn);
      LLVMValueRef phi = LLVMBuildPhi(s->b, s->i64, "stride");
      LLVMAddIncoming(phi, (LLVMValueRef[]){st, compact[d]}, (LLVMBasicBlockRef[]){rd, from}, 2);
      char what[32];
      snprintf(what, sizeof(what), "strides[%lld]", (long long)d);
      if (bind_or_check(a, tvm_tir_array_at(buf->strides, d), phi, what) != 0) return -1;
    }
  }
  /* byte_offset: a whole number of elements, equal to elem_offset. */
  int64_t esize = tvm_ffi_dtype_bytes(buf->dtype);
  LLVMValueRef bo = load_at(s, s->i64, dl, DL_BYTE_OFFSET);
  check_non_negative(a, bo, "byte_offset", "offset");
  check_eq_i64(a, LLVMBuildURem(s->b, bo, c64(s, esize), ""), c64(s, 0),
               "byte_offset modulo the element size");
  if (bind_or_check(a, buf->elem_offset, LLVMBuildUDiv(s->b, bo, c64(s, esize), ""),
                    "elem_offset (byte_offset / element size)") != 0)
    return -1;
  if (!tvm_codegen__lookup(s, buf->data)) return tvm_codegen__bind(s, buf->data, data);
  return 0;
}

static int scalar_param(cg_state* s, arg_ctx* a, LLVMValueRef arg, const tvm_tir_var_obj* v) {
  DLDataType t = v->expr.dtype;
  LLVMValueRef tindex = load_at(s, s->i32, arg, 0);
  LLVMValueRef is_int =
      LLVMBuildOr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFIInt), ""),
                  LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFIBool), ""), "");
  LLVMValueRef ok, val;
  const char* want;
  LLVMTypeRef ty = tvm_codegen__type(s, t);
  if (!ty) return -1;
  if (tvm_tir_dtype_is_handle(t)) {
    /* As upstream's packed API: an ffi.Tensor is passed as its DLTensor (right after the
     * object header), as a DLTensor* is. */
    want = "a pointer";
    LLVMValueRef is_tensor = LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFITensor), "");
    ok = LLVMBuildOr(
        s->b, LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFIOpaquePtr), ""),
        LLVMBuildOr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFIDLTensorPtr), ""),
                    LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFINone), ""), ""),
        "");
    ok = LLVMBuildOr(s->b, ok, is_tensor, "");
    LLVMValueRef p = load_at(s, s->ptr, arg, 8);
    LLVMValueRef off = c64(s, (int64_t)sizeof(TVMFFIObject));
    LLVMValueRef dl = LLVMBuildGEP2(s->b, s->i8, p, &off, 1, "");
    val = LLVMBuildSelect(s->b, is_tensor, dl, p, "");
  } else if (tvm_tir_dtype_is_floating(t) && t.lanes == 1) {
    want = "float";
    LLVMValueRef is_f = LLVMBuildICmp(s->b, LLVMIntEQ, tindex, c32(s, kTVMFFIFloat), "");
    ok = LLVMBuildOr(s->b, is_f, is_int, "");
    LLVMValueRef fv = load_at(s, LLVMDoubleTypeInContext(s->ctx), arg, 8);
    LLVMValueRef iv =
        LLVMBuildSIToFP(s->b, load_at(s, s->i64, arg, 8), LLVMDoubleTypeInContext(s->ctx), "");
    val = tvm_codegen__convert(s, LLVMBuildSelect(s->b, is_f, fv, iv, ""), TVM_TIR_FLOAT64, t);
  } else if (tvm_tir_dtype_is_integer(t) && t.lanes == 1) {
    want = tvm_tir_dtype_is_bool(t) ? "bool" : "int";
    ok = is_int;
    LLVMValueRef iv = load_at(s, s->i64, arg, 8);
    val = tvm_tir_dtype_is_bool(t) ? LLVMBuildICmp(s->b, LLVMIntNE, iv, c64(s, 0), "")
                                   : LLVMBuildTrunc(s->b, iv, ty, "");
    if (ty == s->i64) val = iv;
  } else {
    return tvm_codegen__fail(s, "NotImplementedError", "parameter %s of dtype %s", tvm_tir_var_name(v),
                   tvm_tir_dtype_str(t).s);
  }
  char msg[400];
  snprintf(msg, sizeof(msg), "%sexpected %s, got ", a->prefix, want);
  LLVMValueRef parts[3] = {tvm_codegen__cstr(s, msg), type_name_of(s, tindex)};
  tvm_codegen__emit_check(s, ok, "TypeError", parts, 2);
  if (tvm_tir_dtype_is_integer(t)) {
    /* The interpreter's check and words: an int that the parameter's dtype cannot hold
     * (2**32 - 5 for an int32 would become -5) is refused, not truncated. */
    LLVMValueRef iv = load_at(s, s->i64, arg, 8);
    snprintf(msg, sizeof(msg), "%s: argument '%s' = ", s->fname, tvm_tir_var_name(v));
    char tail[64];
    snprintf(tail, sizeof(tail), " does not fit %s", tvm_tir_dtype_str(t).s);
    LLVMValueRef fits = tvm_tir_dtype_is_bool(t)
                            ? LLVMBuildICmp(s->b, LLVMIntULT, iv, c64(s, 2), "")
                            : fits_dtype(s, iv, t);
    LLVMBasicBlockRef ok = tvm_codegen__check_begin(s, fits);
    parts[0] = tvm_codegen__cstr(s, msg);
    parts[1] = tvm_codegen__fmt_i64(s, iv);
    parts[2] = tvm_codegen__cstr(s, tail);
    tvm_codegen__check_end(s, ok, "ValueError", parts, 3);
  }
  LLVMValueRef prev = tvm_codegen__lookup(s, v);
  if (!prev) return tvm_codegen__bind(s, v, val);
  if (tvm_tir_dtype_is_integer(t) && !tvm_tir_dtype_is_bool(t)) /* also a shape variable */
    check_eq_i64(a, LLVMBuildIntCast2(s->b, val, s->i64, is_signed_code(t), ""),
                 LLVMBuildIntCast2(s->b, prev, s->i64, is_signed_code(t), ""), "value");
  return 0;
}

const char tvm_codegen__device_id_key = 0;

LLVMValueRef tvm_codegen__device_id(cg_state* s) {
  return tvm_codegen__lookup(s, &tvm_codegen__device_id_key);
}

LLVMValueRef tvm_codegen__packed_entry(cg_state* s, const char* symbol) {
  char name[512];
  snprintf(name, sizeof(name), "__tvm_ffi_%s", symbol);
  LLVMValueRef f = LLVMGetNamedFunction(s->mod, name);
  if (f) return f;
  LLVMTypeRef pts[4] = {s->ptr, s->ptr, s->i32, s->ptr};
  return LLVMAddFunction(s->mod, name, LLVMFunctionType(s->i32, pts, 4, 0));
}

int tvm_codegen__function(cg_state* s, const tvm_tir_prim_func_obj* f, const char* symbol) {
  s->fname = symbol;
  s->func = f;
  s->nbinds = 0;
  s->nallocs = s->alloc_base = 0;
  s->stack_slots = s->stack_dyn = s->stack_dyn_peak = 0;
  char name[512];
  LLVMValueRef entry = tvm_codegen__packed_entry(s, symbol);
  if (LLVMCountBasicBlocks(entry) != 0)
    return tvm_codegen__fail(s, "ValueError", "two functions with the symbol %s", symbol);
  if (!s->fn_raise_parts) {
    LLVMTypeRef rp[3] = {s->ptr, s->ptr, s->i32};
    s->fn_raise_parts = LLVMGetNamedFunction(s->mod, "TVMFFIErrorSetRaisedFromCStrParts");
    if (!s->fn_raise_parts)
      s->fn_raise_parts = LLVMAddFunction(s->mod, "TVMFFIErrorSetRaisedFromCStrParts",
                                          LLVMFunctionType(s->vd, rp, 3, 0));
  }
  s->fn = entry;
  s->entry = LLVMAppendBasicBlockInContext(s->ctx, entry, "entry");
  LLVMPositionBuilderAtEnd(s->b, s->entry);
  int64_t n = tvm_tir_array_size(f->params);
  LLVMValueRef args = LLVMGetParam(entry, 1), num_args = LLVMGetParam(entry, 2);
  {
    char msg[300];
    snprintf(msg, sizeof(msg), "%s: expected %lld arguments, got ", symbol, (long long)n);
    LLVMBasicBlockRef ok =
        tvm_codegen__check_begin(s, LLVMBuildICmp(s->b, LLVMIntEQ, num_args, c32(s, n), ""));
    LLVMValueRef parts[2] = {tvm_codegen__cstr(s, msg), tvm_codegen__fmt_i64(s, num_args)};
    tvm_codegen__check_end(s, ok, "TypeError", parts, 2);
  }
  bool* is_data = NULL;
  deferred_checks later = {0};
  /* Scalars first, then buffers, as the interpreter binds them: a buffer's shape may be an
   * expression of a scalar parameter that comes after it (`(n * 4,)`). */
  for (int64_t i = 0; i < 2 * n && !s->failed; ++i) {
    const tvm_tir_var_obj* p = tvm_tir_array_at(f->params, i % n);
    TVMFFIAny key = tvm_ffi_any_obj(p);
    const TVMFFIAny* bv = tvm_ffi_map_get(f->buffer_map, &key);
    if ((bv != NULL) != (i >= n)) continue;
    LLVMValueRef idx = c64(s, (i % n) * 16);
    LLVMValueRef arg = LLVMBuildGEP2(s->b, s->i8, args, &idx, 1, "arg");
    arg_ctx a = {.s = s, .later = &later};
    if (bv) {
      const tvm_tir_buffer_obj* buf = (const tvm_tir_buffer_obj*)bv->v_obj;
      snprintf(a.prefix, sizeof(a.prefix), "%s: argument %s: ", symbol, tvm_tir_buffer_name(buf));
      if (buffer_param(s, &a, arg, buf) != 0) break;
    } else {
      snprintf(a.prefix, sizeof(a.prefix), "%s: argument %s: ", symbol, tvm_tir_var_name(p));
      if (scalar_param(s, &a, arg, p) != 0) break;
    }
  }
  for (int64_t i = 0; i < later.n && !s->failed; ++i) {
    deferred_check* d = &later.items[i];
    arg_ctx a = {.s = s, .later = &later};
    memcpy(a.prefix, d->prefix, sizeof(a.prefix));
    if (check_expr(&a, d->expr, d->value, d->what) != 0) break;
  }
  tvm_ffi_free(later.items);
  if (s->failed) return -1;
  /* The body function: every bound value is a parameter. */
  int64_t nb = s->nbinds;
  LLVMTypeRef* bt = tvm_ffi_malloc(sizeof(LLVMTypeRef) * (size_t)(nb + 1));
  LLVMValueRef* bvals = tvm_ffi_malloc(sizeof(LLVMValueRef) * (size_t)(nb + 1));
  const void** bvars = tvm_ffi_malloc(sizeof(void*) * (size_t)(nb + 1));
  is_data = tvm_ffi_calloc((size_t)nb + 1, sizeof(bool));
  if (!bt || !bvals || !bvars || !is_data) {
    tvm_ffi_free(bt);
    tvm_ffi_free(bvals);
    tvm_ffi_free(bvars);
    tvm_ffi_free(is_data);
    s->failed = true;
    return -1;
  }
  for (int64_t i = 0; i < nb; ++i) {
    bvars[i] = s->binds[i].var;
    bvals[i] = s->binds[i].value;
    bt[i] = LLVMTypeOf(bvals[i]);
    for (int64_t k = 0; k < n; ++k) {
      TVMFFIAny key = tvm_ffi_any_obj(tvm_tir_array_at(f->params, k));
      const TVMFFIAny* bv = tvm_ffi_map_get(f->buffer_map, &key);
      if (bv && ((const tvm_tir_buffer_obj*)bv->v_obj)->data == bvars[i]) is_data[i] = true;
    }
  }
  bt[nb] = s->ptr; /* the result slot, for tir.ret */
  bvals[nb] = LLVMGetParam(entry, 3);
  snprintf(name, sizeof(name), "__tvm_codegen_%s_body", symbol);
  LLVMValueRef body =
      LLVMAddFunction(s->mod, name, LLVMFunctionType(s->i32, bt, (unsigned)nb + 1, 0));
  LLVMSetLinkage(body, LLVMInternalLinkage);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  for (int64_t i = 0; i < nb; ++i)
    if (is_data[i])
      LLVMAddAttributeAtIndex(body, (unsigned)(i + 1), LLVMCreateEnumAttribute(s->ctx, noalias, 0));
  /* "tir.optnone" (the Relax VM's compiled functions, relax_vm_tir.c: thousands of calls in
   * one body, where LLVM's optimizations gain little and GVN's memory dependence queries grow
   * faster than the body): the body is compiled without optimization. */
  const TVMFFIAny* onone = f->func.attrs ? tvm_ffi_map_get_str(f->func.attrs, "tir.optnone") : NULL;
  if (onone && onone->type_index == kTVMFFIBool && onone->v_int64) {
    const char* attrs[] = {"optnone", "noinline"};
    for (int k = 0; k < 2; ++k) {
      unsigned kind = LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k]));
      LLVMAddAttributeAtIndex(body, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(s->ctx, kind, 0));
    }
  }
  LLVMValueRef r =
      LLVMBuildCall2(s->b, LLVMGlobalGetValueType(body), body, bvals, (unsigned)nb + 1, "");
  LLVMBuildRet(s->b, r);
  s->nbinds = 0;
  for (int64_t i = 0; i < nb; ++i) tvm_codegen__bind(s, bvars[i], LLVMGetParam(body, (unsigned)i));
  s->ret_slot = LLVMGetParam(body, (unsigned)nb);
  s->ret_fn = body;
  tvm_ffi_free(bt);
  tvm_ffi_free(bvals);
  tvm_ffi_free(bvars);
  tvm_ffi_free(is_data);
  s->fn = body;
  s->entry = LLVMAppendBasicBlockInContext(s->ctx, body, "entry");
  LLVMPositionBuilderAtEnd(s->b, s->entry);
  if (tvm_codegen__stmt(s, f->body) != 0) return -1;
  LLVMBuildRet(s->b, c32(s, 0));
  return s->failed ? -1 : 0;
}

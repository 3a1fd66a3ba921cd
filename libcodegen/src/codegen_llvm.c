/*
 * codegen_llvm.c: lowered TIR expressions and statements -> LLVM IR (LLVM C API).
 *
 * Per-node behaviour dispatches through tables indexed by tvm_tir_kind_of (filled in
 * cg_tables_init), as DESIGN.md asks. Values: scalars are LLVM scalars, vectors LLVM fixed
 * vectors; bool is i1 in registers and i8 in memory; float16 is `half`, bfloat16 `bfloat`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- State, errors, bindings -------------------------------------------------------------- */
void tvm_codegen__init(cg_state* s, LLVMContextRef ctx, LLVMModuleRef mod, const tvm_codegen_options* o) {
  memset(s, 0, sizeof(*s));
  s->ctx = ctx;
  s->mod = mod;
  s->opts = o;
  s->b = LLVMCreateBuilderInContext(ctx);
  s->i1 = LLVMInt1TypeInContext(ctx);
  s->i8 = LLVMInt8TypeInContext(ctx);
  s->i16 = LLVMInt16TypeInContext(ctx);
  s->i32 = LLVMInt32TypeInContext(ctx);
  s->i64 = LLVMInt64TypeInContext(ctx);
  s->ptr = LLVMPointerTypeInContext(ctx, 0);
  s->vd = LLVMVoidTypeInContext(ctx);
  s->f16c = o->host_cpu && tvm_codegen__host_has_feature("f16c");
  s->device_type = kDLCPU;
}

void tvm_codegen__free(cg_state* s) {
  if (s->b) LLVMDisposeBuilder(s->b);
  tvm_ffi_free(s->binds);
  tvm_ffi_free(s->live_allocs);
  tvm_ffi_free(s->loops);
  s->binds = NULL;
  s->live_allocs = NULL;
  s->loops = NULL;
  s->b = NULL;
}

int tvm_codegen__fail(cg_state* s, const char* kind, const char* fmt, ...) {
  if (s->failed) return -1;
  s->failed = true;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return tvm_ffi_raise(kind, "codegen: %s: %s", s->fname ? s->fname : "?", msg);
}

int tvm_codegen__bind(cg_state* s, const void* var, LLVMValueRef v) {
  if (s->nbinds == s->cap) {
    int64_t cap = s->cap ? s->cap * 2 : 32;
    cg_binding* nb = tvm_ffi_realloc(s->binds, (size_t)cap * sizeof(cg_binding));
    if (!nb) {
      s->failed = true;
      return -1;
    }
    s->binds = nb;
    s->cap = cap;
  }
  s->binds[s->nbinds].var = var;
  s->binds[s->nbinds].value = v;
  s->nbinds++;
  return 0;
}

LLVMValueRef tvm_codegen__lookup(cg_state* s, const void* var) {
  for (int64_t i = s->nbinds - 1; i >= 0; --i)
    if (s->binds[i].var == var) return s->binds[i].value;
  return NULL;
}

/* ---- Types -------------------------------------------------------------------------------- */
static LLVMTypeRef scalar_type(cg_state* s, DLDataType t, bool mem) {
  switch (t.code) {
    case kDLInt:
    case kDLUInt:
      if (t.bits == 1) return mem ? s->i8 : s->i1;
      return LLVMIntTypeInContext(s->ctx, t.bits);
    case kDLFloat: /* 16-bit floats: codegen_llvm_float16.c */
      if (t.bits == 16) return mem ? s->i16 : LLVMFloatTypeInContext(s->ctx);
      if (t.bits == 32) return LLVMFloatTypeInContext(s->ctx);
      if (t.bits == 64) return LLVMDoubleTypeInContext(s->ctx);
      return NULL;
    case kDLBfloat:
      return t.bits == 16 ? (mem ? s->i16 : LLVMFloatTypeInContext(s->ctx)) : NULL;
    case kDLOpaqueHandle:
      return t.bits == 0 ? s->vd : s->ptr;
    default:
      return NULL;
  }
}

bool tvm_codegen_dtype_supported(DLDataType t, bool in_memory) {
  switch (t.code) {
    case kDLOpaqueHandle: return true;
    case kDLInt:
    case kDLUInt:
      /* In memory, whole bytes (bool is stored as a byte): DLPack packs narrower elements. */
      return t.bits >= 1 && t.bits <= 64 &&
             (!in_memory || t.bits % 8 == 0 || (t.code == kDLUInt && t.bits == 1));
    case kDLFloat: return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat: return t.bits == 16;
    default: return false;
  }
}

static LLVMTypeRef type_of(cg_state* s, DLDataType t, bool mem) {
  LLVMTypeRef e = tvm_codegen_dtype_supported(t, mem) ? scalar_type(s, t, mem) : NULL;
  if (!e) {
    tvm_codegen__fail(s, "NotImplementedError", "unsupported dtype %s%s", tvm_tir_dtype_str(t).s,
            mem && tvm_codegen_dtype_supported(t, false) ? " in memory" : "");
    return NULL;
  }
  if (t.lanes > 1 && t.code != kDLOpaqueHandle) return LLVMVectorType(e, t.lanes);
  return e;
}
LLVMTypeRef tvm_codegen__type(cg_state* s, DLDataType t) { return type_of(s, t, false); }
LLVMTypeRef tvm_codegen__mem_type(cg_state* s, DLDataType t) { return type_of(s, t, true); }

static bool is_float(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }
static bool is_signed(DLDataType t) { return t.code == kDLInt; }

static LLVMValueRef const_i32(cg_state* s, int64_t v) {
  return LLVMConstInt(s->i32, (unsigned long long)v, 1);
}
static LLVMValueRef const_i64(cg_state* s, int64_t v) {
  return LLVMConstInt(s->i64, (unsigned long long)v, 1);
}

LLVMValueRef tvm_codegen__const_i32(cg_state* s, int64_t v) { return const_i32(s, v); }
LLVMValueRef tvm_codegen__const_i64(cg_state* s, int64_t v) { return const_i64(s, v); }

static LLVMValueRef splat(cg_state* s, LLVMValueRef v, int lanes) {
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), (unsigned)lanes);
  LLVMValueRef one = LLVMBuildInsertElement(s->b, LLVMGetUndef(vt), v, const_i32(s, 0), "");
  LLVMValueRef mask = LLVMConstNull(LLVMVectorType(s->i32, (unsigned)lanes));
  return LLVMBuildShuffleVector(s->b, one, LLVMGetUndef(vt), mask, "");
}

/* ---- Errors raised by generated code ------------------------------------------------------ */
LLVMValueRef tvm_codegen__entry_alloca(cg_state* s, LLVMTypeRef t, const char* name) {
  LLVMBasicBlockRef cur = LLVMGetInsertBlock(s->b);
  LLVMPositionBuilder(s->b, s->entry, LLVMGetFirstInstruction(s->entry));
  LLVMValueRef a = LLVMBuildAlloca(s->b, t, name);
  LLVMPositionBuilderAtEnd(s->b, cur);
  return a;
}

void tvm_codegen__emit_release(cg_state* s, LLVMValueRef handle) {
  LLVMTypeRef ft = LLVMFunctionType(s->i32, &s->ptr, 1, 0);
  LLVMValueRef decref = LLVMGetNamedFunction(s->mod, "TVMFFIObjectDecRef");
  if (!decref) decref = LLVMAddFunction(s->mod, "TVMFFIObjectDecRef", ft);
  LLVMBasicBlockRef rel = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "release");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "released");
  LLVMBuildCondBr(s->b, LLVMBuildIsNotNull(s->b, handle, ""), rel, next);
  LLVMPositionBuilderAtEnd(s->b, rel);
  LLVMBuildCall2(s->b, ft, decref, &handle, 1, "");
  LLVMBuildBr(s->b, next);
  LLVMPositionBuilderAtEnd(s->b, next);
}

void tvm_codegen__emit_ret(cg_state* s, LLVMValueRef v) {
  for (int64_t k = s->nallocs - 1; k >= s->alloc_base; --k)
    tvm_codegen__emit_release(s, s->live_allocs[k].handle);
  LLVMBuildRet(s->b, v);
}

void tvm_codegen__emit_raise(cg_state* s, const char* kind, LLVMValueRef* parts, int n) {
  if (s->gpu) { /* no error slot on a GPU: the launch fails */
    tvm_codegen__gpu_trap(s);
    LLVMPositionBuilderAtEnd(s->b, LLVMAppendBasicBlockInContext(s->ctx, s->fn, "after_trap"));
    return;
  }
  LLVMTypeRef arr_t = LLVMArrayType(s->ptr, (unsigned)n);
  LLVMValueRef arr = tvm_codegen__entry_alloca(s, arr_t, "msg_parts");
  for (int i = 0; i < n; ++i) {
    LLVMValueRef idx[2] = {const_i32(s, 0), const_i32(s, i)};
    LLVMBuildStore(s->b, parts[i], LLVMBuildGEP2(s->b, arr_t, arr, idx, 2, ""));
  }
  LLVMTypeRef ft_params[3] = {s->ptr, s->ptr, s->i32};
  LLVMTypeRef ft = LLVMFunctionType(s->vd, ft_params, 3, 0);
  LLVMValueRef args[3] = {tvm_codegen__cstr(s, kind), arr, const_i32(s, n)};
  LLVMBuildCall2(s->b, ft, s->fn_raise_parts, args, 3, "");
  tvm_codegen__emit_ret(s, const_i32(s, -1));
}

LLVMBasicBlockRef tvm_codegen__check_begin(cg_state* s, LLVMValueRef cond) {
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "check_fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "check_ok");
  LLVMBuildCondBr(s->b, cond, ok, fail);
  LLVMPositionBuilderAtEnd(s->b, fail);
  return ok;
}

/* After a raise the builder is left where nothing follows: on a GPU an empty block after the
 * trap, which no branch reaches and nothing terminates; dropped before the builder moves on. */
static void drop_empty_block(cg_state* s) {
  LLVMBasicBlockRef bb = LLVMGetInsertBlock(s->b);
  if (bb && !LLVMGetFirstInstruction(bb) && !LLVMGetFirstUse(LLVMBasicBlockAsValue(bb)))
    LLVMDeleteBasicBlock(bb);
}

void tvm_codegen__check_end(cg_state* s, LLVMBasicBlockRef ok, const char* kind, LLVMValueRef* parts, int n) {
  tvm_codegen__emit_raise(s, kind, parts, n);
  drop_empty_block(s);
  LLVMPositionBuilderAtEnd(s->b, ok);
}

void tvm_codegen__emit_check(cg_state* s, LLVMValueRef cond, const char* kind, LLVMValueRef* parts, int n) {
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "check_fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "check_ok");
  LLVMBuildCondBr(s->b, cond, ok, fail);
  LLVMPositionBuilderAtEnd(s->b, fail);
  tvm_codegen__emit_raise(s, kind, parts, n);
  drop_empty_block(s);
  LLVMPositionBuilderAtEnd(s->b, ok);
}

/* Decimal text of an int64 (an internal function of the module, so that exported code needs
 * no libc): returns a pointer into a per-call stack buffer of the caller. */
LLVMValueRef tvm_codegen__fmt_i64(cg_state* s, LLVMValueRef v) {
  if (s->gpu) return LLVMConstNull(s->ptr); /* messages are not formatted on a GPU (it traps) */
  LLVMTypeRef buf_t = LLVMArrayType(s->i8, 24);
  LLVMTypeRef ft_params[2] = {s->i64, s->ptr};
  LLVMTypeRef ft = LLVMFunctionType(s->ptr, ft_params, 2, 0);
  if (!s->fn_fmt_i64) {
    LLVMValueRef f = LLVMAddFunction(s->mod, "__tvm_codegen_fmt_i64", ft);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(s->ctx);
    LLVMBasicBlockRef e = LLVMAppendBasicBlockInContext(s->ctx, f, "entry");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(s->ctx, f, "loop");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(s->ctx, f, "done");
    LLVMPositionBuilderAtEnd(b, e);
    LLVMValueRef x = LLVMGetParam(f, 0), buf = LLVMGetParam(f, 1);
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, const_i64(s, 0), "");
    LLVMValueRef mag = LLVMBuildSelect(b, neg, LLVMBuildSub(b, const_i64(s, 0), x, ""), x, "");
    LLVMValueRef endp = LLVMBuildGEP2(b, s->i8, buf, (LLVMValueRef[]){const_i64(s, 23)}, 1, "");
    LLVMBuildStore(b, LLVMConstInt(s->i8, 0, 0), endp);
    LLVMBuildBr(b, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef u = LLVMBuildPhi(b, s->i64, "u");
    LLVMValueRef p = LLVMBuildPhi(b, s->ptr, "p");
    LLVMValueRef p1 = LLVMBuildGEP2(b, s->i8, p, (LLVMValueRef[]){const_i64(s, -1)}, 1, "");
    LLVMValueRef digit = LLVMBuildURem(b, u, const_i64(s, 10), "");
    LLVMBuildStore(b, LLVMBuildTrunc(b, LLVMBuildAdd(b, digit, const_i64(s, '0'), ""), s->i8, ""),
                   p1);
    LLVMValueRef u1 = LLVMBuildUDiv(b, u, const_i64(s, 10), "");
    LLVMValueRef more = LLVMBuildICmp(b, LLVMIntNE, u1, const_i64(s, 0), "");
    LLVMAddIncoming(u, (LLVMValueRef[]){mag, u1}, (LLVMBasicBlockRef[]){e, loop}, 2);
    LLVMAddIncoming(p, (LLVMValueRef[]){endp, p1}, (LLVMBasicBlockRef[]){e, loop}, 2);
    LLVMBuildCondBr(b, more, loop, done);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef pm = LLVMBuildGEP2(b, s->i8, p1, (LLVMValueRef[]){const_i64(s, -1)}, 1, "");
    LLVMValueRef res = LLVMBuildSelect(b, neg, pm, p1, "");
    LLVMBuildStore(
        b, LLVMBuildSelect(b, neg, LLVMConstInt(s->i8, '-', 0), LLVMConstInt(s->i8, '0', 0), ""),
        LLVMBuildSelect(b, neg, pm,
                        LLVMBuildGEP2(b, s->i8, buf, (LLVMValueRef[]){const_i64(s, 0)}, 1, ""),
                        ""));
    LLVMBuildRet(b, res);
    LLVMDisposeBuilder(b);
    s->fn_fmt_i64 = f;
  }
  LLVMBasicBlockRef cur = LLVMGetInsertBlock(s->b);
  LLVMPositionBuilder(s->b, s->entry, LLVMGetFirstInstruction(s->entry));
  LLVMValueRef buf = LLVMBuildAlloca(s->b, buf_t, "numbuf");
  LLVMPositionBuilderAtEnd(s->b, cur);
  if (LLVMTypeOf(v) != s->i64) v = LLVMBuildSExt(s->b, v, s->i64, "");
  LLVMValueRef args[2] = {v, buf};
  return LLVMBuildCall2(s->b, ft, s->fn_fmt_i64, args, 2, "");
}

/* ---- Expressions -------------------------------------------------------------------------- */
typedef LLVMValueRef (*expr_fn)(cg_state* s, const void* e);
static const expr_fn g_expr[TVM_TIR_KIND_COUNT]; /* (by kind: defined at the end) */
typedef int (*stmt_fn)(cg_state* s, const void* st);
static const stmt_fn g_stmt[TVM_TIR_KIND_COUNT];

bool tvm_codegen__llvm_expr_rule(tvm_tir_kind kind) {
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT && g_expr[kind] != NULL;
}
bool tvm_codegen__llvm_stmt_rule(tvm_tir_kind kind) {
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT && g_stmt[kind] != NULL;
}

LLVMValueRef tvm_codegen__expr(cg_state* s, const void* e) {
  if (s->failed) return NULL;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_NONE || !g_expr[k]) {
    tvm_codegen__fail(s, "NotImplementedError", "unsupported expression %s",
            k == TVM_TIR_KIND_NONE ? "?" : tvm_tir_kind_name(k));
    return NULL;
  }
  return g_expr[k](s, e);
}

static LLVMValueRef e_var(cg_state* s, const void* e) {
  LLVMValueRef v = tvm_codegen__lookup(s, e);
  if (!v) tvm_codegen__fail(s, "RuntimeError", "unbound variable %s", tvm_tir_var_name(e));
  return v;
}

static LLVMValueRef e_int_imm(cg_state* s, const void* e) {
  const tvm_tir_int_imm_obj* n = e;
  LLVMTypeRef t = tvm_codegen__type(s, n->expr.dtype);
  return t ? LLVMConstInt(t, (unsigned long long)n->value, is_signed(n->expr.dtype)) : NULL;
}

static LLVMValueRef e_float_imm(cg_state* s, const void* e) {
  const tvm_tir_float_imm_obj* n = e;
  LLVMTypeRef t = tvm_codegen__type(s, n->expr.dtype);
  return t ? tvm_codegen__f16_round(s, LLVMConstReal(t, n->value), n->expr.dtype) : NULL;
}

static LLVMValueRef e_string_imm(cg_state* s, const void* e) {
  const tvm_tir_string_imm_obj* n = e;
  TVMFFIByteArray text = tvm_ffi_str_view(n->value);
  return tvm_codegen__bytes(s, text.data, text.size);
}

static LLVMValueRef convert(cg_state* s, LLVMValueRef v, DLDataType from, DLDataType to) {
  if (tvm_tir_dtype_equal(from, to)) return v;
  LLVMTypeRef tt = tvm_codegen__type(s, to);
  if (!tt) return NULL;
  if (from.lanes == 1 && to.lanes > 1) {
    v = convert(s, v, from, tvm_tir_dtype_element(to));
    return v ? splat(s, v, to.lanes) : NULL;
  }
  bool fb = from.code == kDLUInt && from.bits == 1, tb = to.code == kDLUInt && to.bits == 1;
  if (is_float(from) && is_float(to)) {
    /* A 16-bit float is a float in registers: only its rounding is emitted. */
    if (tvm_codegen__is_f16(to) && from.bits == 64) return tvm_codegen__f16_widen(s, tvm_codegen__f16_narrow_f64(s, v, to), to);
    return tvm_codegen__f16_round(s, LLVMBuildFPCast(s->b, v, tt, ""), to);
  }
  if (is_float(from)) {
    if (tb) return LLVMBuildFCmp(s->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    return is_signed(to) ? LLVMBuildFPToSI(s->b, v, tt, "") : LLVMBuildFPToUI(s->b, v, tt, "");
  }
  if (is_float(to)) { /* to 16 bits: through float32, as the interpreter does */
    return tvm_codegen__f16_round(s,
                        (is_signed(from) && !fb) ? LLVMBuildSIToFP(s->b, v, tt, "")
                                                 : LLVMBuildUIToFP(s->b, v, tt, ""),
                        to);
  }
  if (tvm_tir_dtype_is_integer(from) && tvm_tir_dtype_is_integer(to)) {
    if (tb) return LLVMBuildICmp(s->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    return LLVMBuildIntCast2(s->b, v, tt, is_signed(from) && !fb, "");
  }
  tvm_codegen__fail(s, "NotImplementedError", "unsupported cast from %s to %s", tvm_tir_dtype_str(from).s,
          tvm_tir_dtype_str(to).s);
  return NULL;
}

LLVMValueRef tvm_codegen__convert(cg_state* s, LLVMValueRef v, DLDataType from, DLDataType to) {
  return convert(s, v, from, to);
}

static LLVMValueRef e_cast(cg_state* s, const void* e) {
  const tvm_tir_cast_obj* n = e;
  LLVMValueRef v = tvm_codegen__expr(s, n->value);
  return v ? convert(s, v, n->value->dtype, n->expr.dtype) : NULL;
}

/* Float fast-math flags: all of them only when the user asked; otherwise just `contract`
 * (fp_contract, on by default as in gcc and upstream TVM), which lets a * b + c become one
 * FMA (one rounding instead of two) and nothing else. */
static LLVMValueRef fm(cg_state* s, LLVMValueRef v) {
  if (!v || !LLVMIsAInstruction(v) || !LLVMCanValueUseFastMathFlags(v)) return v;
  if (s->opts->fast_math) LLVMSetFastMathFlags(v, LLVMFastMathAll);
  else if (s->opts->fp_contract) LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
  return v;
}

static LLVMValueRef call_intrin(cg_state* s, const char* name, LLVMTypeRef t, LLVMValueRef* args,
                                unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) {
    tvm_codegen__fail(s, "NotImplementedError", "no LLVM intrinsic %s", name);
    return NULL;
  }
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(s->mod, id, &t, 1);
  LLVMTypeRef ft = LLVMIntrinsicGetType(s->ctx, id, &t, 1);
  return fm(s, LLVMBuildCall2(s->b, ft, f, args, n, ""));
}

/*
 * exp of a float32 vector, inline: LLVM scalarizes llvm.exp on vectors into one libm call per
 * lane, which made softmax's exps the bulk of a transformer block. Cody-Waite reduction
 * x = n ln2 + r (|r| <= ln2 / 2, n = nearest integer of x log2 e), Cephes' degree-6 polynomial
 * for e^r (within 2 ulp of expf over the normal range, tested in test_codegen_vexp.c), scaled by
 * 2^(n / 2) and 2^(n - n / 2) (each a valid float exponent down to the denormals); above
 * 88.72283905 +inf, below -103.972084 +0, NaN returned as is. Scalar exps keep libm's expf.
 */
static LLVMValueRef vexp_f32(cg_state* s, LLVMValueRef x, int lanes) {
  LLVMBuilderRef B = s->b;
  LLVMTypeRef f = LLVMFloatTypeInContext(s->ctx);
  LLVMTypeRef vf = LLVMVectorType(f, (unsigned)lanes), vi = LLVMVectorType(s->i32, (unsigned)lanes);
#define VC(v) splat(s, LLVMConstReal(f, (v)), lanes)
#define VI(v) splat(s, LLVMConstInt(s->i32, (unsigned long long)(v), 1), lanes)
  LLVMValueRef hi = VC(88.72283905206835), lo = VC(-103.972084);
  LLVMValueRef xc = call_intrin(s, "llvm.maxnum", vf, (LLVMValueRef[]){x, lo}, 2);
  xc = xc ? call_intrin(s, "llvm.minnum", vf, (LLVMValueRef[]){xc, hi}, 2) : NULL;
  if (!xc) return NULL;
  LLVMValueRef t = fm(s, LLVMBuildFMul(B, xc, VC(1.44269504088896341), ""));
  LLVMValueRef n = call_intrin(s, "llvm.nearbyint", vf, &t, 1);
  if (!n) return NULL;
  LLVMValueRef r = fm(s, LLVMBuildFSub(B, xc, fm(s, LLVMBuildFMul(B, n, VC(0.693359375), "")), ""));
  r = fm(s, LLVMBuildFSub(B, r, fm(s, LLVMBuildFMul(B, n, VC(-2.12194440e-4), "")), ""));
  static const double c[] = {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                             4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1};
  LLVMValueRef p = VC(c[0]);
  for (int i = 1; i < 6; ++i) p = fm(s, LLVMBuildFAdd(B, fm(s, LLVMBuildFMul(B, p, r, "")), VC(c[i]), ""));
  LLVMValueRef r2 = fm(s, LLVMBuildFMul(B, r, r, ""));
  LLVMValueRef y = fm(s, LLVMBuildFAdd(B, fm(s, LLVMBuildFMul(B, p, r2, "")), r, ""));
  y = fm(s, LLVMBuildFAdd(B, y, VC(1.0), ""));
  LLVMValueRef ni = LLVMBuildFPToSI(B, n, vi, "");
  LLVMValueRef n1 = LLVMBuildAShr(B, ni, VI(1), "");
  LLVMValueRef n2 = LLVMBuildSub(B, ni, n1, "");
  LLVMValueRef s1 = LLVMBuildBitCast(B, LLVMBuildShl(B, LLVMBuildAdd(B, n1, VI(127), ""), VI(23), ""), vf, "");
  LLVMValueRef s2 = LLVMBuildBitCast(B, LLVMBuildShl(B, LLVMBuildAdd(B, n2, VI(127), ""), VI(23), ""), vf, "");
  LLVMValueRef v = fm(s, LLVMBuildFMul(B, fm(s, LLVMBuildFMul(B, y, s1, "")), s2, ""));
  v = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOGT, x, hi, ""), VC(__builtin_inf()), v, "");
  v = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealOLT, x, lo, ""), VC(0.0), v, "");
  v = LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNO, x, x, ""), x, v, "");
#undef VC
#undef VI
  return v;
}

static bool is_vec_f32(DLDataType t) { return t.code == kDLFloat && t.bits == 32 && t.lanes > 1; }

static LLVMValueRef binop(cg_state* s, tvm_tir_kind k, DLDataType t, LLVMValueRef a,
                          LLVMValueRef b) {
  bool fl = is_float(t), sg = is_signed(t);
  LLVMBuilderRef B = s->b;
  switch (k) {
    case TVM_TIR_KIND_Add:
      return fl ? fm(s, LLVMBuildFAdd(B, a, b, "")) : LLVMBuildAdd(B, a, b, "");
    case TVM_TIR_KIND_Sub:
      return fl ? fm(s, LLVMBuildFSub(B, a, b, "")) : LLVMBuildSub(B, a, b, "");
    case TVM_TIR_KIND_Mul:
      return fl ? fm(s, LLVMBuildFMul(B, a, b, "")) : LLVMBuildMul(B, a, b, "");
    case TVM_TIR_KIND_Div:
      return fl   ? fm(s, LLVMBuildFDiv(B, a, b, ""))
             : sg ? LLVMBuildSDiv(B, a, b, "")
                  : LLVMBuildUDiv(B, a, b, "");
    case TVM_TIR_KIND_Mod:
      return fl   ? fm(s, LLVMBuildFRem(B, a, b, ""))
             : sg ? LLVMBuildSRem(B, a, b, "")
                  : LLVMBuildURem(B, a, b, "");
    case TVM_TIR_KIND_FloorDiv:
    case TVM_TIR_KIND_FloorMod: {
      if (fl) {
        LLVMValueRef q = fm(s, LLVMBuildFDiv(B, a, b, ""));
        LLVMValueRef fq = call_intrin(s, "llvm.floor", LLVMTypeOf(q), &q, 1);
        if (k == TVM_TIR_KIND_FloorDiv) return fq;
        return fm(s, LLVMBuildFSub(B, a, fm(s, LLVMBuildFMul(B, fq, b, "")), ""));
      }
      if (!sg)
        return k == TVM_TIR_KIND_FloorDiv ? LLVMBuildUDiv(B, a, b, "") : LLVMBuildURem(B, a, b, "");
      LLVMValueRef q = LLVMBuildSDiv(B, a, b, ""), r = LLVMBuildSRem(B, a, b, "");
      LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(a));
      LLVMValueRef adj = LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, r, zero, ""),
                                      LLVMBuildXor(B, LLVMBuildICmp(B, LLVMIntSLT, r, zero, ""),
                                                   LLVMBuildICmp(B, LLVMIntSLT, b, zero, ""), ""),
                                      "");
      if (k == TVM_TIR_KIND_FloorDiv)
        return LLVMBuildSub(B, q, LLVMBuildZExt(B, adj, LLVMTypeOf(q), ""), "");
      return LLVMBuildSelect(B, adj, LLVMBuildAdd(B, r, b, ""), r, "");
    }
    case TVM_TIR_KIND_Min:
    case TVM_TIR_KIND_Max: {
      bool mn = k == TVM_TIR_KIND_Min;
      LLVMValueRef c =
          fl ? LLVMBuildFCmp(B, mn ? LLVMRealOLT : LLVMRealOGT, a, b, "")
             : LLVMBuildICmp(B,
                             mn ? (sg ? LLVMIntSLT : LLVMIntULT) : (sg ? LLVMIntSGT : LLVMIntUGT),
                             a, b, "");
      return LLVMBuildSelect(B, c, a, b, "");
    }
    case TVM_TIR_KIND_EQ:
      return fl ? LLVMBuildFCmp(B, LLVMRealOEQ, a, b, "") : LLVMBuildICmp(B, LLVMIntEQ, a, b, "");
    case TVM_TIR_KIND_NE:
      return fl ? LLVMBuildFCmp(B, LLVMRealUNE, a, b, "") : LLVMBuildICmp(B, LLVMIntNE, a, b, "");
    case TVM_TIR_KIND_LT:
      return fl ? LLVMBuildFCmp(B, LLVMRealOLT, a, b, "")
                : LLVMBuildICmp(B, sg ? LLVMIntSLT : LLVMIntULT, a, b, "");
    case TVM_TIR_KIND_LE:
      return fl ? LLVMBuildFCmp(B, LLVMRealOLE, a, b, "")
                : LLVMBuildICmp(B, sg ? LLVMIntSLE : LLVMIntULE, a, b, "");
    case TVM_TIR_KIND_GT:
      return fl ? LLVMBuildFCmp(B, LLVMRealOGT, a, b, "")
                : LLVMBuildICmp(B, sg ? LLVMIntSGT : LLVMIntUGT, a, b, "");
    case TVM_TIR_KIND_GE:
      return fl ? LLVMBuildFCmp(B, LLVMRealOGE, a, b, "")
                : LLVMBuildICmp(B, sg ? LLVMIntSGE : LLVMIntUGE, a, b, "");
    case TVM_TIR_KIND_And:
      return LLVMBuildAnd(B, a, b, "");
    case TVM_TIR_KIND_Or:
      return LLVMBuildOr(B, a, b, "");
    default:
      tvm_codegen__fail(s, "NotImplementedError", "unsupported binary op %s", tvm_tir_kind_name(k));
      return NULL;
  }
}

/* A constant integer divisor other than 0 and -1 (a scalar or a Broadcast of one). */
static bool safe_const_divisor(const void* b) {
  if (tvm_tir_kind_of(b) == TVM_TIR_KIND_Broadcast) b = ((const tvm_tir_broadcast_obj*)b)->value;
  int64_t v;
  return tvm_tir_as_const_int(b, &v) && v != 0 && v != -1;
}

/* Integer division semantics of the interpreter for a divisor that is not a safe constant: a
 * zero divisor (in any lane) raises ValueError "<fname>: <Op>: integer division by zero" instead
 * of being undefined (SIGFPE on x86); a signed MIN / -1 wraps (MIN, remainder 0) by dividing by
 * 1 instead. The check branches to a returning block, so a loop-invariant divisor's check is
 * unswitched out of the loop; constant divisors (all index arithmetic) get no check at all. */
static LLVMValueRef checked_divisor(cg_state* s, tvm_tir_kind k, DLDataType t, LLVMValueRef a,
                                    LLVMValueRef b) {
  LLVMTypeRef ty = LLVMTypeOf(b);
  LLVMValueRef zero = LLVMConstNull(ty);
  LLVMValueRef is_zero = LLVMBuildICmp(s->b, LLVMIntEQ, b, zero, "");
  if (t.lanes > 1)
    is_zero = call_intrin(s, "llvm.vector.reduce.or", LLVMTypeOf(is_zero), &is_zero, 1);
  if (!is_zero) return NULL;
  char msg[600];
  snprintf(msg, sizeof(msg), "%s: %s: integer division by zero", s->fname, tvm_tir_kind_name(k));
  LLVMValueRef parts[1] = {tvm_codegen__cstr(s, msg)};
  tvm_codegen__emit_check(s, LLVMBuildNot(s->b, is_zero, ""), "ValueError", parts, 1);
  if (!is_signed(t)) return b;
  LLVMValueRef min = LLVMConstInt(LLVMIntTypeInContext(s->ctx, t.bits), 1ULL << (t.bits - 1), 0);
  LLVMValueRef m1 = LLVMConstAllOnes(LLVMIntTypeInContext(s->ctx, t.bits));
  LLVMValueRef one = LLVMConstInt(LLVMIntTypeInContext(s->ctx, t.bits), 1, 0);
  if (t.lanes > 1) {
    min = splat(s, min, t.lanes);
    m1 = splat(s, m1, t.lanes);
    one = splat(s, one, t.lanes);
  }
  LLVMValueRef overflow = LLVMBuildAnd(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, a, min, ""),
                                       LLVMBuildICmp(s->b, LLVMIntEQ, b, m1, ""), "");
  return LLVMBuildSelect(s->b, overflow, one, b, "");
}

static LLVMValueRef e_binary(cg_state* s, const void* e) {
  const tvm_tir_binary_obj* n = e;
  LLVMValueRef a = tvm_codegen__expr(s, n->a);
  LLVMValueRef b = a ? tvm_codegen__expr(s, n->b) : NULL;
  if (!b) return NULL;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  bool divides = k == TVM_TIR_KIND_Div || k == TVM_TIR_KIND_Mod || k == TVM_TIR_KIND_FloorDiv ||
                 k == TVM_TIR_KIND_FloorMod;
  if (divides && tvm_tir_dtype_is_integer(n->a->dtype) && !tvm_tir_dtype_is_bool(n->a->dtype) &&
      !safe_const_divisor(n->b)) {
    b = checked_divisor(s, k, n->a->dtype, a, b);
    if (!b) return NULL;
  }
  LLVMValueRef r = binop(s, k, n->a->dtype, a, b);
  /* float16 / bfloat16 arithmetic ran in float32: round its result (Min/Max pick an operand). */
  if (r && tvm_codegen__is_f16(n->expr.dtype) && k != TVM_TIR_KIND_Min && k != TVM_TIR_KIND_Max)
    r = tvm_codegen__f16_round(s, r, n->expr.dtype);
  return r;
}

static LLVMValueRef e_not(cg_state* s, const void* e) {
  LLVMValueRef a = tvm_codegen__expr(s, ((const tvm_tir_not_obj*)e)->a);
  return a ? LLVMBuildNot(s->b, a, "") : NULL;
}

static LLVMValueRef e_select(cg_state* s, const void* e) {
  const tvm_tir_select_obj* n = e;
  LLVMValueRef c = tvm_codegen__expr(s, n->condition);
  LLVMValueRef t = c ? tvm_codegen__expr(s, n->true_value) : NULL;
  LLVMValueRef f = t ? tvm_codegen__expr(s, n->false_value) : NULL;
  if (!f) return NULL;
  if (n->condition->dtype.lanes == 1 && n->expr.dtype.lanes > 1)
    c = splat(s, c, n->expr.dtype.lanes);
  return LLVMBuildSelect(s->b, c, t, f, "");
}

static LLVMValueRef e_ramp(cg_state* s, const void* e) {
  const tvm_tir_ramp_obj* n = e;
  LLVMValueRef base = tvm_codegen__expr(s, n->base);
  LLVMValueRef stride = base ? tvm_codegen__expr(s, n->stride) : NULL;
  if (!stride) return NULL;
  LLVMTypeRef et = LLVMTypeOf(base);
  LLVMValueRef* lanes = tvm_ffi_malloc(sizeof(LLVMValueRef) * (size_t)n->lanes);
  if (!lanes) return NULL;
  for (int i = 0; i < n->lanes; ++i) lanes[i] = LLVMConstInt(et, (unsigned long long)i, 0);
  LLVMValueRef iota = LLVMConstVector(lanes, (unsigned)n->lanes);
  tvm_ffi_free(lanes);
  return LLVMBuildAdd(s->b, splat(s, base, n->lanes),
                      LLVMBuildMul(s->b, splat(s, stride, n->lanes), iota, ""), "");
}

static LLVMValueRef e_broadcast(cg_state* s, const void* e) {
  const tvm_tir_broadcast_obj* n = e;
  LLVMValueRef v = tvm_codegen__expr(s, n->value);
  return v ? splat(s, v, n->lanes) : NULL;
}

static LLVMValueRef e_let(cg_state* s, const void* e) {
  const tvm_tir_let_obj* n = e;
  LLVMValueRef v = tvm_codegen__expr(s, n->value);
  if (!v || tvm_codegen__bind(s, n->var, v) != 0) return NULL;
  LLVMValueRef r = tvm_codegen__expr(s, n->body);
  s->nbinds--;
  return r;
}

static LLVMValueRef e_shuffle(cg_state* s, const void* e) {
  const tvm_tir_shuffle_obj* n = e;
  int64_t nv = tvm_tir_array_size(n->vectors), ni = tvm_tir_array_size(n->indices);
  LLVMValueRef vals[64];
  int lanes_of[64];
  if (nv > 64) {
    tvm_codegen__fail(s, "NotImplementedError", "Shuffle of more than 64 vectors");
    return NULL;
  }
  for (int64_t i = 0; i < nv; ++i) {
    const tvm_tir_expr_obj* v = tvm_tir_array_at(n->vectors, i);
    vals[i] = tvm_codegen__expr(s, v);
    lanes_of[i] = v->dtype.lanes;
    if (!vals[i]) return NULL;
  }
  LLVMTypeRef rt = tvm_codegen__type(s, n->expr.dtype);
  if (!rt) return NULL;
  LLVMValueRef r = n->expr.dtype.lanes > 1 ? LLVMGetUndef(rt) : NULL;
  for (int64_t j = 0; j < ni; ++j) {
    int64_t idx;
    if (!tvm_tir_as_const_int(tvm_tir_array_at(n->indices, j), &idx)) {
      tvm_codegen__fail(s, "NotImplementedError", "Shuffle with a non-constant index");
      return NULL;
    }
    LLVMValueRef x = NULL;
    for (int64_t i = 0; i < nv; ++i) {
      if (idx < lanes_of[i]) {
        x = lanes_of[i] == 1 ? vals[i]
                             : LLVMBuildExtractElement(s->b, vals[i], const_i32(s, idx), "");
        break;
      }
      idx -= lanes_of[i];
    }
    if (!x) {
      tvm_codegen__fail(s, "IndexError", "Shuffle index out of range");
      return NULL;
    }
    if (!r) return x;
    r = LLVMBuildInsertElement(s->b, r, x, const_i32(s, j), "");
  }
  return r;
}

/* The address of buffer[index] for a scalar index. */
static LLVMValueRef elem_ptr(cg_state* s, LLVMValueRef base, LLVMTypeRef et, LLVMValueRef idx) {
  if (LLVMTypeOf(idx) != s->i64) idx = LLVMBuildSExt(s->b, idx, s->i64, "");
  return LLVMBuildGEP2(s->b, et, base, &idx, 1, "");
}

static LLVMValueRef buffer_base(cg_state* s, const tvm_tir_buffer_obj* buf) {
  LLVMValueRef p = tvm_codegen__lookup(s, buf->data);
  if (p || s->failed) return p;
  const char* scope = tvm_tir_buffer_scope(buf);
  if (scope && strncmp(scope, "wmma.", 5) == 0)
    tvm_codegen__fail(s, "NotImplementedError",
                      "an element of tensor-core fragment %s (scope %s) read or written directly: "
                      "a fragment's elements are spread over a warp's registers, only the WMMA "
                      "intrinsics use it",
                      tvm_tir_var_name(buf->data), scope);
  else
    tvm_codegen__fail(s, "RuntimeError", "unbound buffer data %s", tvm_tir_var_name(buf->data));
  return p;
}

static unsigned elem_align(DLDataType t) { return (unsigned)((t.bits + 7) / 8); }

/* A contiguous Ramp index (stride 1): its base, else NULL. */
static const void* contiguous_base(const void* index) {
  if (tvm_tir_kind_of(index) != TVM_TIR_KIND_Ramp) return NULL;
  const tvm_tir_ramp_obj* r = index;
  int64_t st;
  return tvm_tir_as_const_int(r->stride, &st) && st == 1 ? r->base : NULL;
}

static LLVMValueRef from_mem(cg_state* s, LLVMValueRef v, DLDataType t) {
  if (tvm_codegen__is_f16(t)) return tvm_codegen__f16_widen(s, v, t);
  return tvm_tir_dtype_is_bool(t) ? LLVMBuildTrunc(s->b, v, tvm_codegen__type(s, t), "") : v;
}
static LLVMValueRef to_mem(cg_state* s, LLVMValueRef v, DLDataType t) {
  if (tvm_codegen__is_f16(t)) return tvm_codegen__f16_narrow(s, v, t);
  return tvm_tir_dtype_is_bool(t) ? LLVMBuildZExt(s->b, v, tvm_codegen__mem_type(s, t), "") : v;
}

/* A BufferLoad/BufferStore with more than one index left after lowering: a buffer with
 * axis_separators (N-D physical memory, for texture targets) stays N-D by design, which the CPU
 * code generator cannot address (upstream's LLVM backend rejects it too). */
static int not_flat(cg_state* s, const char* what, const tvm_tir_buffer_obj* b) {
  if (tvm_ffi_seq_size(b->axis_separators) > 0) {
    return tvm_codegen__fail(s, "NotImplementedError",
                             "%s %s: the buffer has axis_separators (N-D physical memory, for "
                             "texture targets); the CPU code generator needs flat buffers",
                             what, tvm_tir_buffer_name(b));
  }
  return tvm_codegen__fail(s, "ValueError", "%s %s is not flat (run tvm_tir_lower first)", what,
                           tvm_tir_buffer_name(b));
}

static LLVMValueRef e_buffer_load(cg_state* s, const void* e) {
  const tvm_tir_buffer_load_obj* n = e;
  if (tvm_tir_array_size(n->indices) != 1) {
    not_flat(s, "BufferLoad of", n->buffer);
    return NULL;
  }
  DLDataType et = tvm_tir_dtype_element(n->buffer->dtype);
  LLVMTypeRef emt = tvm_codegen__mem_type(s, et);
  LLVMValueRef base = buffer_base(s, n->buffer);
  if (!base || !emt) return NULL;
  const void* index = tvm_tir_array_at(n->indices, 0);
  int lanes = n->expr.dtype.lanes;
  const void* cb = contiguous_base(index);
  if (lanes > 1 && cb && n->buffer->dtype.lanes == 1) {
    LLVMValueRef b0 = tvm_codegen__expr(s, cb);
    if (!b0) return NULL;
    LLVMTypeRef vt = LLVMVectorType(emt, (unsigned)lanes);
    LLVMValueRef ld = LLVMBuildLoad2(s->b, vt, elem_ptr(s, base, emt, b0), "");
    LLVMSetAlignment(ld, elem_align(et));
    return from_mem(s, ld, n->expr.dtype);
  }
  LLVMValueRef idx = tvm_codegen__expr(s, index);
  if (!idx) return NULL;
  if (tvm_tir_expr_dtype(index).lanes == 1) {
    /* A scalar index counts whole elements of the buffer's dtype (a vector for a vector buffer). */
    LLVMTypeRef lt = tvm_codegen__mem_type(s, n->expr.dtype);
    LLVMValueRef ld =
        LLVMBuildLoad2(s->b, lt, elem_ptr(s, base, tvm_codegen__mem_type(s, n->buffer->dtype), idx), "");
    LLVMSetAlignment(ld, elem_align(et));
    return from_mem(s, ld, n->expr.dtype);
  }
  /* A general vector index: one scalar load per lane. */
  LLVMValueRef r = LLVMGetUndef(tvm_codegen__mem_type(s, n->expr.dtype));
  for (int i = 0; i < lanes; ++i) {
    LLVMValueRef li = LLVMBuildExtractElement(s->b, idx, const_i32(s, i), "");
    LLVMValueRef ld = LLVMBuildLoad2(s->b, emt, elem_ptr(s, base, emt, li), "");
    LLVMSetAlignment(ld, elem_align(et));
    r = LLVMBuildInsertElement(s->b, r, ld, const_i32(s, i), "");
  }
  return from_mem(s, r, n->expr.dtype);
}

/* tir.address_of(B[i]): the address of a flat buffer's element (a handle). */
static LLVMValueRef address_of(cg_state* s, const tvm_tir_call_obj* n) {
  const void* a = tvm_tir_array_size(n->args) == 1 ? tvm_tir_array_at(n->args, 0) : NULL;
  const tvm_tir_buffer_load_obj* ld = a;
  if (tvm_tir_kind_of(a) != TVM_TIR_KIND_BufferLoad || tvm_tir_array_size(ld->indices) != 1 ||
      tvm_tir_expr_dtype(tvm_tir_array_at(ld->indices, 0)).lanes != 1) {
    tvm_codegen__fail(s, "ValueError",
                      "tir.address_of expects one flat scalar buffer element (run tvm_tir_lower "
                      "first)");
    return NULL;
  }
  LLVMTypeRef et = tvm_codegen__mem_type(s, ld->buffer->dtype);
  LLVMValueRef base = buffer_base(s, ld->buffer);
  LLVMValueRef idx = base && et ? tvm_codegen__expr(s, tvm_tir_array_at(ld->indices, 0)) : NULL;
  return idx ? elem_ptr(s, base, et, idx) : NULL;
}

/* tir.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, mask): the address of
 * element `offset` (in dtype's units) of data, as upstream's LLVM backend computes it (extent
 * and mask are hints for other targets). */
static LLVMValueRef access_ptr(cg_state* s, const tvm_tir_call_obj* n) {
  if (tvm_tir_array_size(n->args) != 5) {
    tvm_codegen__fail(s, "ValueError", "tir.tvm_access_ptr takes 5 arguments");
    return NULL;
  }
  DLDataType t = tvm_tir_expr_dtype(tvm_tir_array_at(n->args, 0));
  LLVMTypeRef et = tvm_codegen__mem_type(s, t);
  LLVMValueRef base = et ? tvm_codegen__expr(s, tvm_tir_array_at(n->args, 1)) : NULL;
  LLVMValueRef idx = base ? tvm_codegen__expr(s, tvm_tir_array_at(n->args, 2)) : NULL;
  return idx ? elem_ptr(s, base, et, idx) : NULL;
}

/* ---- Calls -------------------------------------------------------------------------------- */
/* A call's float32 result rounded to its 16-bit dtype t (NULL stays NULL). */
static LLVMValueRef round16(cg_state* s, LLVMValueRef v, DLDataType t) {
  return v ? tvm_codegen__f16_round(s, v, t) : NULL;
}

/* Apply a scalar libm function lane by lane (float16/bfloat16 computed in float32). */
static LLVMValueRef libm_call(cg_state* s, const char* name, DLDataType t, LLVMValueRef* args,
                              int n) {
  DLDataType et = tvm_tir_dtype_element(t);
  bool dbl = et.bits == 64;
  DLDataType ct = dbl ? TVM_TIR_FLOAT64 : TVM_TIR_FLOAT32;
  LLVMTypeRef cty = tvm_codegen__type(s, ct);
  char fname[32];
  snprintf(fname, sizeof(fname), dbl ? "%s" : "%sf", name);
  LLVMTypeRef pts[2] = {cty, cty};
  LLVMTypeRef ft = LLVMFunctionType(cty, pts, (unsigned)n, 0);
  LLVMValueRef f = LLVMGetNamedFunction(s->mod, fname);
  if (!f) f = LLVMAddFunction(s->mod, fname, ft);
  int lanes = t.lanes;
  LLVMValueRef r = lanes > 1 ? LLVMGetUndef(tvm_codegen__type(s, t)) : NULL;
  for (int i = 0; i < lanes; ++i) {
    LLVMValueRef a[2];
    for (int k = 0; k < n; ++k) {
      LLVMValueRef x =
          lanes > 1 ? LLVMBuildExtractElement(s->b, args[k], const_i32(s, i), "") : args[k];
      a[k] = convert(s, x, et, ct);
    }
    LLVMValueRef y = convert(s, LLVMBuildCall2(s->b, ft, f, a, (unsigned)n, ""), ct, et);
    if (lanes == 1) return y;
    r = LLVMBuildInsertElement(s->b, r, y, const_i32(s, i), "");
  }
  return r;
}

static LLVMValueRef lazy_if(cg_state* s, const tvm_tir_call_obj* n) {
  const void* c = tvm_tir_array_at(n->args, 0);
  LLVMValueRef cond = tvm_codegen__expr(s, c);
  if (!cond) return NULL;
  if (tvm_tir_expr_dtype(c).lanes > 1) { /* lane-wise: both sides, then select */
    LLVMValueRef t = tvm_codegen__expr(s, tvm_tir_array_at(n->args, 1));
    LLVMValueRef f = t ? tvm_codegen__expr(s, tvm_tir_array_at(n->args, 2)) : NULL;
    return f ? LLVMBuildSelect(s->b, cond, t, f, "") : NULL;
  }
  LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "ite_then");
  LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "ite_else");
  LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "ite_join");
  LLVMBuildCondBr(s->b, cond, bt, bf);
  LLVMPositionBuilderAtEnd(s->b, bt);
  LLVMValueRef t = tvm_codegen__expr(s, tvm_tir_array_at(n->args, 1));
  if (!t) return NULL;
  LLVMBasicBlockRef et = LLVMGetInsertBlock(s->b);
  LLVMBuildBr(s->b, bj);
  LLVMPositionBuilderAtEnd(s->b, bf);
  LLVMValueRef f = tvm_codegen__expr(s, tvm_tir_array_at(n->args, 2));
  if (!f) return NULL;
  LLVMBasicBlockRef ef = LLVMGetInsertBlock(s->b);
  LLVMBuildBr(s->b, bj);
  LLVMPositionBuilderAtEnd(s->b, bj);
  LLVMValueRef phi = LLVMBuildPhi(s->b, LLVMTypeOf(t), "");
  LLVMAddIncoming(phi, (LLVMValueRef[]){t, f}, (LLVMBasicBlockRef[]){et, ef}, 2);
  return phi;
}

/* TVM_TIR_BOUNDS_CHECK_OP("<buffer>", indices..., shape...) (libtir's bounds_check pass):
 * index 0 when every 0 <= index_k < shape_k, else IndexError
 * "<fname>: buffer A: index [i, j] is out of bounds for shape [m, n]" with the values. */
static LLVMValueRef bounds_check(cg_state* s, const tvm_tir_call_obj* n) {
  int64_t na = tvm_tir_array_size(n->args), k = (na - 1) / 2;
  const void* name = na > 0 ? tvm_tir_array_at(n->args, 0) : NULL;
  if (na < 3 || na % 2 != 1 || tvm_tir_kind_of(name) != TVM_TIR_KIND_StringImm || k > 64) {
    tvm_codegen__fail(s, "ValueError", "%s expects a buffer name, n indices and n extents",
            TVM_TIR_BOUNDS_CHECK_OP);
    return NULL;
  }
  LLVMValueRef v[128], first = NULL, ok = LLVMConstInt(s->i1, 1, 0);
  for (int64_t i = 0; i < 2 * k; ++i) {
    const void* x = tvm_tir_array_at(n->args, i + 1);
    DLDataType t = tvm_tir_expr_dtype(x);
    LLVMValueRef e = tvm_codegen__expr(s, x);
    if (!e) return NULL;
    if (!tvm_tir_dtype_is_integer(t) || t.lanes != 1) {
      tvm_codegen__fail(s, "ValueError", "%s of a non-integer or vector index", TVM_TIR_BOUNDS_CHECK_OP);
      return NULL;
    }
    if (i == 0) first = e;
    v[i] = LLVMTypeOf(e) == s->i64 ? e : LLVMBuildIntCast2(s->b, e, s->i64, is_signed(t), "");
  }
  for (int64_t i = 0; i < k; ++i) /* unsigned: a negative index is out of bounds too */
    ok = LLVMBuildAnd(s->b, ok, LLVMBuildICmp(s->b, LLVMIntULT, v[i], v[k + i], ""), "");
  LLVMBasicBlockRef pass = tvm_codegen__check_begin(s, ok); /* the message only on failure */
  LLVMValueRef parts[4 * 64 + 2];
  int np = 0;
  char head[600];
  snprintf(head, sizeof(head), "%s: buffer %s: index [", s->fname,
           tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)name)->value));
  parts[np++] = tvm_codegen__cstr(s, head);
  for (int64_t i = 0; i < 2 * k; ++i) {
    if (i == k)
      parts[np++] = tvm_codegen__cstr(s, "] is out of bounds for shape [");
    else if (i > 0)
      parts[np++] = tvm_codegen__cstr(s, ", ");
    parts[np++] = tvm_codegen__fmt_i64(s, v[i]);
  }
  parts[np++] = tvm_codegen__cstr(s, "]");
  tvm_codegen__check_end(s, pass, "IndexError", parts, np);
  return first;
}

/* tir.tvm_struct_get(handle, index, kind) / tir.tvm_struct_set(handle, index, kind, value): a
 * field of the index-th DLTensor / TVMFFIAny / int64 of the array at handle (the fields,
 * numbered as upstream's TVMStructFieldKind, in tvm-private/tir.h), loaded or stored with the
 * field's type and converted from or to the call's integer dtype. */
static LLVMValueRef struct_access(cg_state* s, const tvm_tir_call_obj* n, bool set) {
  const char* op = set ? "tir.tvm_struct_set" : "tir.tvm_struct_get";
  int64_t kind;
  if (tvm_tir_array_size(n->args) != (set ? 4 : 3) ||
      !tvm_tir_as_const_int(tvm_tir_array_at(n->args, 2), &kind)) {
    tvm_codegen__fail(s, "TypeError", "%s takes a handle, an index and a constant field kind%s", op,
                      set ? " and a value" : "");
    return NULL;
  }
  const tvm_tir_struct_field* f = tvm_tir__struct_field(kind);
  if (!f) {
    tvm_codegen__fail(s, "ValueError", "%s: no field kind %lld", op, (long long)kind);
    return NULL;
  }
  DLDataType ht = tvm_tir_expr_dtype(tvm_tir_array_at(n->args, 0));
  DLDataType it = tvm_tir_expr_dtype(tvm_tir_array_at(n->args, 1));
  DLDataType vt = set ? tvm_tir_expr_dtype(tvm_tir_array_at(n->args, 3)) : n->expr.dtype;
  if (!tvm_tir_dtype_is_handle(ht) || !tvm_tir_dtype_is_integer(it) || it.lanes != 1) {
    tvm_codegen__fail(s, "TypeError", "%s expects a handle and an integer index", op);
    return NULL;
  }
  bool addr_kind = kind == TVM_TIR_STRUCT_ADDR;
  if (addr_kind ? set || !tvm_tir_dtype_is_handle(vt) : !tvm_tir__struct_field_accepts(f, vt)) {
    tvm_codegen__fail(s, "TypeError", "%s: field %s is %s; it cannot be %s as %s", op, f->name,
                      tvm_tir__struct_field_type_text(f), set ? "written" : "read",
                      tvm_tir_dtype_str(vt).s);
    return NULL;
  }
  LLVMValueRef base = tvm_codegen__expr(s, tvm_tir_array_at(n->args, 0));
  LLVMValueRef idx = base ? tvm_codegen__expr(s, tvm_tir_array_at(n->args, 1)) : NULL;
  LLVMValueRef val = idx && set ? tvm_codegen__expr(s, tvm_tir_array_at(n->args, 3)) : NULL;
  if (!idx || (set && !val)) return NULL;
  LLVMBuilderRef B = s->b;
  idx = LLVMBuildIntCast2(B, idx, s->i64, it.code == kDLInt, "");
  LLVMValueRef off = LLVMBuildAdd(B, LLVMBuildMul(B, idx, tvm_codegen__const_i64(s, f->stride), ""),
                                  tvm_codegen__const_i64(s, f->offset), "");
  LLVMValueRef p = LLVMBuildGEP2(B, s->i8, base, &off, 1, f->name);
  if (addr_kind) return p;
  DLDataType ft = f->dtype.lanes == 0 ? vt : f->dtype;
  LLVMTypeRef fty = tvm_codegen__type(s, ft);
  if (!fty) return NULL;
  if (!set) {
    LLVMValueRef v = LLVMBuildLoad2(B, fty, p, f->name);
    return tvm_tir_dtype_is_integer(vt) ? tvm_codegen__convert(s, v, ft, vt) : v;
  }
  if (tvm_tir_dtype_is_integer(ft)) val = tvm_codegen__convert(s, val, vt, ft);
  LLVMBuildStore(B, val, p);
  DLDataType rt = n->expr.dtype;
  return tvm_tir_dtype_is_integer(rt) ? LLVMConstInt(tvm_codegen__type(s, rt), 0, 0)
                                      : tvm_codegen__const_i32(s, 0);
}

static LLVMValueRef e_call(cg_state* s, const void* e) {
  const tvm_tir_call_obj* n = e;
  LLVMValueRef gpu_result;
  if (s->gpu && tvm_codegen__gpu_call(s, n, &gpu_result)) return gpu_result; /* codegen_nvptx.c */
  if (tvm_tir_kind_of(n->op) == TVM_TIR_KIND_GlobalVar) return tvm_codegen__call_global(s, n);
  if (tvm_tir_kind_of(n->op) != TVM_TIR_KIND_Op) {
    tvm_codegen__fail(s, "NotImplementedError", "unsupported call target %s",
                      tvm_tir_kind_name(tvm_tir_kind_of(n->op)));
    return NULL;
  }
  const tvm_tir_op_obj* op = (const tvm_tir_op_obj*)n->op;
  const char* name = tvm_tir_op_name(op);
  DLDataType t = n->expr.dtype;
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_if_then_else)) return lazy_if(s, n);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_address_of)) return address_of(s, n);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_access_ptr)) return access_ptr(s, n);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_struct_get)) return struct_access(s, n, false);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isnullptr)) {
    const void* h = tvm_tir_array_size(n->args) == 1 ? tvm_tir_array_at(n->args, 0) : NULL;
    if (!h || !tvm_tir_dtype_is_handle(tvm_tir_expr_dtype(h))) {
      tvm_codegen__fail(s, "TypeError", "tir.isnullptr takes one handle");
      return NULL;
    }
    LLVMValueRef v = tvm_codegen__expr(s, h);
    return v ? LLVMBuildIsNull(s->b, v, "") : NULL;
  }
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_struct_set)) return struct_access(s, n, true);
  if (strcmp(name, TVM_TIR_BOUNDS_CHECK_OP) == 0) return bounds_check(s, n);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_call_extern) ||
      tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_call_pure_extern))
    return tvm_codegen__call_extern(s, n);
  /* An error is raised already (by a call_extern callee, as the Relax VM's compiled functions
   * do): return -1 from the function. */
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_throw_last_error) && !s->gpu) {
    tvm_codegen__emit_ret(s, const_i32(s, -1));
    LLVMPositionBuilderAtEnd(s->b, LLVMAppendBasicBlockInContext(s->ctx, s->fn, "after_throw"));
    return const_i32(s, 0);
  }
  /* Hints without code on a CPU, their arguments not evaluated (as the interpreter does):
   * tir.assume (a fact for the compiler, 1 when used as a value) and the profiling markers. */
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_assume) ||
      tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_start_profile_intrinsic) ||
      tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_end_profile_intrinsic)) {
    if (!tvm_tir_dtype_is_integer(t) || t.lanes != 1) return const_i32(s, 0); /* not a value */
    LLVMTypeRef ity = tvm_codegen__type(s, t);
    return ity ? LLVMConstInt(ity, tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_assume) ? 1 : 0, 0)
               : NULL;
  }
  int64_t na = tvm_tir_array_size(n->args);
  LLVMValueRef a[4] = {0};
  if (na > 4) {
    tvm_codegen__fail(s, "NotImplementedError", "unsupported call to %s", name);
    return NULL;
  }
  for (int64_t i = 0; i < na; ++i) {
    a[i] = tvm_codegen__expr(s, tvm_tir_array_at(n->args, i));
    if (!a[i]) return NULL;
  }
  LLVMTypeRef ty = tvm_codegen__type(s, t);
  if (!ty) return NULL;
  DLDataType at = na ? tvm_tir_expr_dtype(tvm_tir_array_at(n->args, 0)) : t;
  LLVMTypeRef aty = na ? LLVMTypeOf(a[0]) : ty;
  static const struct {
    int id;
    const char* intrin;
  } intrins[] = {
      {TVM_TIR_BUILTIN_exp, "llvm.exp"},
      {TVM_TIR_BUILTIN_exp2, "llvm.exp2"},
      {TVM_TIR_BUILTIN_exp10, "llvm.exp10"},
      {TVM_TIR_BUILTIN_log, "llvm.log"},
      {TVM_TIR_BUILTIN_log2, "llvm.log2"},
      {TVM_TIR_BUILTIN_log10, "llvm.log10"},
      {TVM_TIR_BUILTIN_sqrt, "llvm.sqrt"},
      {TVM_TIR_BUILTIN_floor, "llvm.floor"},
      {TVM_TIR_BUILTIN_ceil, "llvm.ceil"},
      {TVM_TIR_BUILTIN_round, "llvm.round"},
      {TVM_TIR_BUILTIN_nearbyint, "llvm.nearbyint"},
      {TVM_TIR_BUILTIN_trunc, "llvm.trunc"},
      {TVM_TIR_BUILTIN_fabs, "llvm.fabs"},
      {TVM_TIR_BUILTIN_sin, "llvm.sin"},
      {TVM_TIR_BUILTIN_cos, "llvm.cos"},
      {TVM_TIR_BUILTIN_pow, "llvm.pow"},
      {TVM_TIR_BUILTIN_fma, "llvm.fma"},
      {TVM_TIR_BUILTIN_copysign, "llvm.copysign"},
      {TVM_TIR_BUILTIN_popcount, "llvm.ctpop"},
  };
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_exp) && is_vec_f32(t) && is_vec_f32(at))
    return vexp_f32(s, a[0], t.lanes);
  for (size_t i = 0; i < sizeof(intrins) / sizeof(intrins[0]); ++i)
    if (tvm_tir_is_builtin(op, (tvm_tir_builtin)intrins[i].id))
      return round16(s, call_intrin(s, intrins[i].intrin, ty, a, (unsigned)na), t);
  static const struct {
    int id;
    const char* fn;
  } libm[] = {
      {TVM_TIR_BUILTIN_tanh, "tanh"},   {TVM_TIR_BUILTIN_erf, "erf"},
      {TVM_TIR_BUILTIN_tan, "tan"},     {TVM_TIR_BUILTIN_asin, "asin"},
      {TVM_TIR_BUILTIN_acos, "acos"},   {TVM_TIR_BUILTIN_atan, "atan"},
      {TVM_TIR_BUILTIN_sinh, "sinh"},   {TVM_TIR_BUILTIN_cosh, "cosh"},
      {TVM_TIR_BUILTIN_asinh, "asinh"}, {TVM_TIR_BUILTIN_acosh, "acosh"},
      {TVM_TIR_BUILTIN_atanh, "atanh"}, {TVM_TIR_BUILTIN_log1p, "log1p"},
      {TVM_TIR_BUILTIN_fmod, "fmod"},   {TVM_TIR_BUILTIN_atan2, "atan2"},
      {TVM_TIR_BUILTIN_hypot, "hypot"}, {TVM_TIR_BUILTIN_nextafter, "nextafter"},
  };
  for (size_t i = 0; i < sizeof(libm) / sizeof(libm[0]); ++i)
    if (tvm_tir_is_builtin(op, (tvm_tir_builtin)libm[i].id))
      return libm_call(s, libm[i].fn, t, a, (int)na);
  LLVMBuilderRef B = s->b;
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_likely) ||
      tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_thread_invariant)) {
    return a[0];
  }
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_reinterpret)) {
    /* Through the in-memory bits: a 16-bit float's register is a float. */
    LLVMValueRef bits = tvm_codegen__is_f16(at) ? tvm_codegen__f16_narrow(s, a[0], at) : a[0];
    if (tvm_codegen__is_f16(t)) return tvm_codegen__f16_widen(s, LLVMBuildBitCast(B, bits, tvm_codegen__mem_type(s, t), ""), t);
    /* A handle and a 64-bit integer: the pointer's address. */
    if (tvm_tir_dtype_is_handle(t) && !tvm_tir_dtype_is_handle(at)) return LLVMBuildIntToPtr(B, bits, ty, "");
    if (!tvm_tir_dtype_is_handle(t) && tvm_tir_dtype_is_handle(at)) return LLVMBuildPtrToInt(B, bits, ty, "");
    return LLVMBuildBitCast(B, bits, ty, "");
  }
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_bitwise_and)) return LLVMBuildAnd(B, a[0], a[1], "");
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_bitwise_or)) return LLVMBuildOr(B, a[0], a[1], "");
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_bitwise_xor)) return LLVMBuildXor(B, a[0], a[1], "");
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_bitwise_not)) return LLVMBuildNot(B, a[0], "");
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_shift_left)) return LLVMBuildShl(B, a[0], a[1], "");
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_shift_right))
    return is_signed(at) ? LLVMBuildAShr(B, a[0], a[1], "") : LLVMBuildLShr(B, a[0], a[1], "");
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_clz)) {
    LLVMValueRef args[2] = {a[0], LLVMConstInt(s->i1, 0, 0)};
    LLVMValueRef r = call_intrin(s, "llvm.ctlz", aty, args, 2);
    return r ? LLVMBuildIntCast2(B, r, ty, 0, "") : NULL;
  }
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_sigmoid)) {
    LLVMValueRef neg = fm(s, LLVMBuildFNeg(B, a[0], ""));
    LLVMValueRef ex = is_vec_f32(t) ? vexp_f32(s, neg, t.lanes)
                                                            : call_intrin(s, "llvm.exp", ty, &neg, 1);
    if (!ex) return NULL;
    LLVMValueRef one = LLVMConstReal(scalar_type(s, t, false), 1.0);
    if (t.lanes > 1) one = splat(s, one, t.lanes);
    return round16(s, fm(s, LLVMBuildFDiv(B, one, fm(s, LLVMBuildFAdd(B, one, ex, "")), "")), t);
  }
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_rsqrt)) {
    LLVMValueRef sq = call_intrin(s, "llvm.sqrt", ty, a, 1);
    LLVMValueRef one = LLVMConstReal(scalar_type(s, t, false), 1.0);
    if (t.lanes > 1) one = splat(s, one, t.lanes);
    return sq ? round16(s, fm(s, LLVMBuildFDiv(B, one, sq, "")), t) : NULL;
  }
  if ((tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isnan) ||
       tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isinf) ||
       tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isfinite)) &&
      at.code != kDLFloat && at.code != kDLBfloat) {
    /* An integer or bool is a finite number (as the interpreter and upstream's tir.isnan have
     * it); the float compares below are not defined on integers. */
    LLVMValueRef c = LLVMConstInt(s->i1, tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isfinite), 0);
    return at.lanes > 1 ? splat(s, c, at.lanes) : c;
  }
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isnan))
    return LLVMBuildFCmp(B, LLVMRealUNO, a[0], a[0], "");
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isinf) ||
      tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isfinite)) {
    LLVMValueRef ab = call_intrin(s, "llvm.fabs", aty, a, 1);
    if (!ab) return NULL;
    LLVMValueRef inf = LLVMConstReal(scalar_type(s, at, false), __builtin_inf());
    if (at.lanes > 1) inf = splat(s, inf, at.lanes);
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_isinf))
      return LLVMBuildFCmp(B, LLVMRealOEQ, ab, inf, "");
    return LLVMBuildFCmp(B, LLVMRealOLT, ab, inf, "");
  }
  tvm_codegen__fail(s, "NotImplementedError", "unsupported builtin %s", name);
  return NULL;
}

/* ---- Statements --------------------------------------------------------------------------- */
int tvm_codegen__stmt(cg_state* s, const void* st) {
  if (s->failed) return -1;
  tvm_tir_kind k = tvm_tir_kind_of(st);
  if (k == TVM_TIR_KIND_NONE || !g_stmt[k])
    return tvm_codegen__fail(s, "NotImplementedError", "unsupported statement %s",
                   k == TVM_TIR_KIND_NONE ? "?" : tvm_tir_kind_name(k));
  return g_stmt[k](s, st);
}

static int s_let(cg_state* s, const void* st) {
  const tvm_tir_let_stmt_obj* n = st;
  LLVMValueRef v = tvm_codegen__expr(s, n->value);
  if (!v || tvm_codegen__bind(s, n->var, v) != 0) return -1;
  int rc = tvm_codegen__stmt(s, n->body);
  s->nbinds--;
  return rc;
}

/* Attributes are transparent, except the GPU thread bindings (T.launch_thread, T.env_thread):
 * their variable is a thread index, which CPU code does not have (GPU kernels:
 * codegen_nvptx.c). */
static int s_attr(cg_state* s, const void* st) {
  const tvm_tir_attr_stmt_obj* n = st;
  const char* key = tvm_ffi_str_cstr(n->attr_key);
  if (s->gpu && (strcmp(key, "thread_extent") == 0 || strcmp(key, "virtual_thread") == 0))
    return tvm_codegen__gpu_attr(s, n);
  if (strcmp(key, "thread_extent") == 0 || strcmp(key, "virtual_thread") == 0) {
    const void* node = tvm_ffi_any_is_object(&n->node) ? n->node.v_obj : NULL;
    const char* tag = "";
    if (tvm_tir_kind_of(node) == TVM_TIR_KIND_IterVar) {
      const tvm_tir_iter_var_obj* iv = node;
      if (iv->thread_tag) tag = tvm_ffi_str_cstr(iv->thread_tag);
      node = iv->var;
    }
    return tvm_codegen__fail(s, "NotImplementedError",
                   "GPU construct in a CPU kernel: %s binds %s to the GPU thread index \"%s\" "
                   "(T.launch_thread); the CPU code generator has no thread indices "
                   "(build for target cuda)",
                   key, tvm_tir_is_var(node) ? tvm_tir_var_name(node) : "?", tag);
  }
  return tvm_codegen__stmt(s, n->body);
}

static int s_decl_buffer(cg_state* s, const void* st) {
  return tvm_codegen__stmt(s, ((const tvm_tir_decl_buffer_obj*)st)->body);
}

static int s_assert(cg_state* s, const void* st) {
  const tvm_tir_assert_stmt_obj* n = st;
  LLVMValueRef c = tvm_codegen__expr(s, n->condition);
  if (!c) return -1;
  const char* msg = "assertion failed";
  if (tvm_tir_kind_of(n->message) == TVM_TIR_KIND_StringImm)
    msg = tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)n->message)->value);
  LLVMValueRef parts[1] = {tvm_codegen__cstr(s, msg)};
  tvm_codegen__emit_check(s, c, tvm_tir_assert_stmt_kind(n), parts, 1);
  return tvm_codegen__stmt(s, n->body);
}

static int s_buffer_store_here(cg_state* s, const void* st);

/* In a GPU kernel, outside its threadIdx launches, one thread of the block stores. */
static int s_buffer_store(cg_state* s, const void* st) {
  LLVMBasicBlockRef join =
      s->gpu ? tvm_codegen__gpu_store_guard(s, ((const tvm_tir_buffer_store_obj*)st)->buffer) : NULL;
  int rc = s_buffer_store_here(s, st);
  if (join && rc == 0) {
    LLVMBuildBr(s->b, join);
    LLVMPositionBuilderAtEnd(s->b, join);
  }
  return rc;
}

static int s_buffer_store_here(cg_state* s, const void* st) {
  const tvm_tir_buffer_store_obj* n = st;
  if (tvm_tir_array_size(n->indices) != 1)
    return not_flat(s, "BufferStore to", n->buffer);
  DLDataType et = tvm_tir_dtype_element(n->buffer->dtype);
  DLDataType vt = n->value->dtype;
  LLVMTypeRef emt = tvm_codegen__mem_type(s, et);
  LLVMValueRef base = buffer_base(s, n->buffer);
  LLVMValueRef v = base && emt ? tvm_codegen__expr(s, n->value) : NULL;
  if (!v) return -1;
  v = to_mem(s, v, vt);
  const void* index = tvm_tir_array_at(n->indices, 0);
  const void* cb = contiguous_base(index);
  if (vt.lanes > 1 && cb && n->buffer->dtype.lanes == 1) {
    LLVMValueRef b0 = tvm_codegen__expr(s, cb);
    if (!b0) return -1;
    LLVMSetAlignment(LLVMBuildStore(s->b, v, elem_ptr(s, base, emt, b0)), elem_align(et));
    return 0;
  }
  LLVMValueRef idx = tvm_codegen__expr(s, index);
  if (!idx) return -1;
  if (tvm_tir_expr_dtype(index).lanes == 1) {
    LLVMValueRef p = elem_ptr(s, base, tvm_codegen__mem_type(s, n->buffer->dtype), idx);
    LLVMSetAlignment(LLVMBuildStore(s->b, v, p), elem_align(et));
    return 0;
  }
  for (int i = 0; i < vt.lanes; ++i) { /* scatter, lane by lane */
    LLVMValueRef li = LLVMBuildExtractElement(s->b, idx, const_i32(s, i), "");
    LLVMValueRef x = LLVMBuildExtractElement(s->b, v, const_i32(s, i), "");
    LLVMSetAlignment(LLVMBuildStore(s->b, x, elem_ptr(s, base, emt, li)), elem_align(et));
  }
  return 0;
}

static int s_allocate(cg_state* s, const void* st) { return tvm_codegen__allocate(s, st); }

static int s_seq(cg_state* s, const void* st) {
  const tvm_tir_seq_stmt_obj* n = st;
  for (int64_t i = 0; i < tvm_tir_array_size(n->seq); ++i)
    if (tvm_codegen__stmt(s, tvm_tir_array_at(n->seq, i)) != 0) return -1;
  return 0;
}

static int s_if(cg_state* s, const void* st) {
  const tvm_tir_if_then_else_obj* n = st;
  LLVMValueRef c = tvm_codegen__expr(s, n->condition);
  if (!c) return -1;
  LLVMBasicBlockRef bt = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "if_then");
  LLVMBasicBlockRef be =
      n->else_case ? LLVMAppendBasicBlockInContext(s->ctx, s->fn, "if_else") : NULL;
  LLVMBasicBlockRef bj = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "if_end");
  LLVMBuildCondBr(s->b, c, bt, be ? be : bj);
  LLVMPositionBuilderAtEnd(s->b, bt);
  if (tvm_codegen__stmt(s, n->then_case) != 0) return -1;
  LLVMBuildBr(s->b, bj);
  if (be) {
    LLVMPositionBuilderAtEnd(s->b, be);
    if (tvm_codegen__stmt(s, n->else_case) != 0) return -1;
    LLVMBuildBr(s->b, bj);
  }
  LLVMPositionBuilderAtEnd(s->b, bj);
  return 0;
}

/* tir.ret(v): v into the caller's result slot (a TVMFFIAny: Bool, Int, Float or OpaquePtr, as
 * the interpreter returns it), then return 0 from the body, releasing live allocations. */
static int s_ret(cg_state* s, const tvm_tir_call_obj* c) {
  if (s->gpu) return tvm_codegen__fail(s, "NotImplementedError", "tir.ret in a CUDA kernel");
  if (!s->ret_slot || s->fn != s->ret_fn)
    return tvm_codegen__fail(s, "NotImplementedError", "tir.ret inside a parallel loop is not supported");
  const tvm_tir_expr_obj* v = tvm_tir_array_at(c->args, 0);
  DLDataType t = v->dtype;
  if (t.lanes != 1)
    return tvm_codegen__fail(s, "NotImplementedError", "tir.ret of a vector (%s) is not supported",
                   tvm_tir_dtype_str(t).s);
  int32_t tindex;
  DLDataType to = t;
  if (tvm_tir_dtype_is_bool(t)) {
    tindex = kTVMFFIBool;
    to = TVM_TIR_UINT64;
  } else if (tvm_tir_dtype_is_integer(t)) {
    tindex = kTVMFFIInt;
    to = tvm_tir_dtype_is_int(t) ? TVM_TIR_INT64 : TVM_TIR_UINT64;
  } else if (tvm_tir_dtype_is_floating(t)) {
    tindex = kTVMFFIFloat;
    to = TVM_TIR_FLOAT64;
  } else if (tvm_tir_dtype_is_handle(t)) {
    tindex = kTVMFFIOpaquePtr;
  } else {
    return tvm_codegen__fail(s, "NotImplementedError", "tir.ret of %s is not supported",
                   tvm_tir_dtype_str(t).s);
  }
  LLVMValueRef x = tvm_codegen__expr(s, v);
  if (x && !tvm_tir_dtype_equal(t, to)) x = convert(s, x, t, to);
  if (!x) return -1;
  /* { int32 type_index; uint32 zero_padding; 8-byte payload } */
  LLVMValueRef off4 = LLVMConstInt(s->i64, 4, 0), off8 = LLVMConstInt(s->i64, 8, 0);
  LLVMBuildStore(s->b, const_i32(s, tindex), s->ret_slot);
  LLVMBuildStore(s->b, const_i32(s, 0), LLVMBuildGEP2(s->b, s->i8, s->ret_slot, &off4, 1, ""));
  LLVMBuildStore(s->b, x, LLVMBuildGEP2(s->b, s->i8, s->ret_slot, &off8, 1, ""));
  tvm_codegen__emit_ret(s, const_i32(s, 0));
  /* Statements after the return are unreachable; they go to a block of their own. */
  LLVMPositionBuilderAtEnd(s->b, LLVMAppendBasicBlockInContext(s->ctx, s->fn, "after_ret"));
  return 0;
}

/* ---- Loops and the jumps that leave them ---------------------------------------------------- */
static int loop_push(cg_state* s, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont) {
  if (s->nloops == s->loops_cap) {
    int64_t cap = s->loops_cap ? 2 * s->loops_cap : 8;
    cg_loop* p = tvm_ffi_realloc(s->loops, (size_t)cap * sizeof(cg_loop));
    if (!p) return tvm_codegen__fail(s, "MemoryError", "out of memory");
    s->loops = p;
    s->loops_cap = cap;
  }
  s->loops[s->nloops++] = (cg_loop){brk, cont, s->nallocs};
  return 0;
}

/* tir.break_loop / tir.continue_loop: release the heap allocations made in the loop's body so
 * far and give back its dynamic stack (the first save after the body began), then branch to
 * the loop's exit, or its latch (a For's, made here on first use) / condition (a While's). */
static int s_jump(cg_state* s, bool brk) {
  if (s->nloops <= s->loop_base)
    return tvm_codegen__fail(s, "ValueError", "%s outside a loop",
                             brk ? "tir.break_loop" : "tir.continue_loop");
  cg_loop* l = &s->loops[s->nloops - 1];
  LLVMValueRef sp = NULL;
  for (int64_t k = s->nallocs - 1; k >= l->nallocs; --k) {
    tvm_codegen__emit_release(s, s->live_allocs[k].handle);
    if (s->live_allocs[k].stack) sp = s->live_allocs[k].stack;
  }
  if (sp) tvm_codegen__stack_restore(s, sp);
  if (!brk && !l->cont) l->cont = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "for_latch");
  LLVMBuildBr(s->b, brk ? l->brk : l->cont);
  /* Statements after the jump are unreachable; they go to a block of their own. */
  LLVMPositionBuilderAtEnd(s->b, LLVMAppendBasicBlockInContext(s->ctx, s->fn, "after_jump"));
  return 0;
}

static int s_evaluate(cg_state* s, const void* st) {
  const tvm_tir_evaluate_obj* n = st;
  if (tvm_tir_kind_of(n->value) == TVM_TIR_KIND_Call) {
    const void* op = ((const tvm_tir_call_obj*)n->value)->op;
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_ret))
      return s_ret(s, (const tvm_tir_call_obj*)n->value);
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_break_loop)) return s_jump(s, true);
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_continue_loop)) return s_jump(s, false);
  }
  if (tvm_tir_kind_of(n->value) == TVM_TIR_KIND_IntImm) return 0;
  return tvm_codegen__expr(s, n->value) ? 0 : -1;
}

/* ---- Loop metadata (policy: TVM_CODEGEN_UNROLL_* in codegen.h, README "Loop metadata") ---- */
typedef struct {
  int64_t size; /* TIR operations (non-leaf expressions and statements), saturating */
  int vbits;    /* widest vector value seen, in bits (0: scalar code only) */
} loop_cost;

static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }
static int64_t sat_mul(int64_t a, int64_t b) {
  return b != 0 && a > INT64_MAX / b ? INT64_MAX : a * b;
}

static void cost_of(const void* body, loop_cost* out);

static int cost_pre(tvm_tir_visitor* v, const void* node) {
  loop_cost* c = v->ctx;
  int kind = tvm_tir_kind_of(node);
  switch (kind) {
    case TVM_TIR_KIND_Buffer: /* declarations (shape, strides): not executed per iteration */
    case TVM_TIR_KIND_Var:
    case TVM_TIR_KIND_SizeVar:
    case TVM_TIR_KIND_IntImm:
    case TVM_TIR_KIND_FloatImm:
    case TVM_TIR_KIND_StringImm:
      return TVM_TIR_VISIT_SKIP;
    default:
      break;
  }
  if (tvm_tir_is_expr(node)) {
    DLDataType t = tvm_tir_expr_dtype(node);
    int bits = t.lanes > 1 ? (int)t.lanes * (int)t.bits : 0;
    if (bits > c->vbits) c->vbits = bits;
  }
  if (kind == TVM_TIR_KIND_For) {
    /* A nested loop costs its body times its constant extent (an unknown extent counts as
     * 2 * budget: too large to unroll around). */
    const tvm_tir_for_obj* f = node;
    loop_cost in;
    cost_of(f->body, &in);
    int64_t trips = tvm_tir_kind_of(f->extent) == TVM_TIR_KIND_IntImm
                        ? ((const tvm_tir_int_imm_obj*)f->extent)->value
                        : 2 * TVM_CODEGEN_UNROLL_BUDGET;
    if (trips < 1) trips = 1;
    c->size = sat_add(c->size, sat_add(1, sat_mul(in.size, trips)));
    if (in.vbits > c->vbits) c->vbits = in.vbits;
    return TVM_TIR_VISIT_SKIP;
  }
  /* Arrays, maps and other non-IR objects are walked through but not counted. */
  if (kind != TVM_TIR_KIND_SeqStmt && (tvm_tir_is_expr(node) || tvm_tir_is_stmt(node)))
    c->size = sat_add(c->size, 1);
  return TVM_TIR_VISIT_CONTINUE;
}

static void cost_of(const void* body, loop_cost* out) {
  out->size = 0;
  out->vbits = 0;
  tvm_tir_visitor v = {0};
  v.pre_default = cost_pre;
  v.ctx = out;
  if (tvm_tir_visit(&v, body) != 0) { /* too deep to walk: treat as too large to unroll */
    tvm_ffi_error_clear();
    out->size = INT64_MAX;
  }
  tvm_tir_visitor_free(&v);
}

/* The unroll hint of loop n (tvm_codegen__loop_metadata's unroll_count): 0 = LLVM's default. */
unsigned tvm_codegen__unroll_hint(const tvm_tir_for_obj* n) {
  if (tvm_tir_kind_of(n->extent) != TVM_TIR_KIND_IntImm) return 0;
  int64_t trips = ((const tvm_tir_int_imm_obj*)n->extent)->value;
  if (trips <= 1) return 0;
  loop_cost c;
  cost_of(n->body, &c);
  if (c.vbits < TVM_CODEGEN_UNROLL_VECTOR_BITS) return 0;
  int64_t body = c.size < 1 ? 1 : c.size;
  if (sat_mul(body, trips) <= TVM_CODEGEN_UNROLL_BUDGET) return 0;
  unsigned count = 1;
  while ((int64_t)count * 2 * body <= TVM_CODEGEN_UNROLL_BUDGET && (int64_t)count * 2 < trips)
    count *= 2;
  return count;
}

static int s_for(cg_state* s, const void* st) {
  const tvm_tir_for_obj* n = st;
  /* Serial loops, and parallel ones over an unsigned variable (the closure's chunking is
   * signed); thread bindings are not CPU code. */
  if (n->kind == TVM_TIR_FOR_THREAD_BINDING)
    return tvm_codegen__fail(s, "NotImplementedError",
                   "GPU construct in a CPU kernel: thread-bound loop %s (T.thread_binding; "
                   "build for target cuda)",
                   tvm_tir_var_name(n->loop_var));
  LLVMValueRef lo = tvm_codegen__expr(s, n->min);
  LLVMValueRef ext = lo ? tvm_codegen__expr(s, n->extent) : NULL;
  if (!ext) return -1;
  LLVMTypeRef t = LLVMTypeOf(lo);
  if (LLVMTypeOf(ext) != t) ext = LLVMBuildIntCast2(s->b, ext, t, 1, "");
  if (n->kind == TVM_TIR_FOR_PARALLEL && is_signed(n->loop_var->expr.dtype) && !s->gpu)
    return tvm_codegen__parallel_for(s, n, lo, ext); /* (serial in a GPU kernel) */
  LLVMValueRef hi = LLVMBuildAdd(s->b, lo, ext, "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(s->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "for_head");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "for_body");
  LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "for_end");
  LLVMBuildBr(s->b, head);
  LLVMPositionBuilderAtEnd(s->b, head);
  LLVMValueRef i = LLVMBuildPhi(s->b, t, tvm_tir_var_name(n->loop_var));
  bool sg = is_signed(n->loop_var->expr.dtype);
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, sg ? LLVMIntSLT : LLVMIntULT, i, hi, ""), body, end);
  LLVMPositionBuilderAtEnd(s->b, body);
  if (tvm_codegen__bind(s, n->loop_var, i) != 0 || loop_push(s, end, NULL) != 0) return -1;
  int rc = tvm_codegen__stmt(s, n->body);
  LLVMBasicBlockRef cont = s->loops[--s->nloops].cont;
  s->nbinds--;
  if (rc != 0) return -1;
  if (cont) { /* a continue's target: the rest of the body falls through to it */
    LLVMBuildBr(s->b, cont);
    LLVMPositionBuilderAtEnd(s->b, cont);
  }
  LLVMValueRef next = LLVMBuildAdd(s->b, i, LLVMConstInt(t, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(s->b);
  tvm_codegen__loop_metadata(s, LLVMBuildBr(s->b, head), true, tvm_codegen__unroll_hint(n));
  LLVMAddIncoming(i, (LLVMValueRef[]){lo, next}, (LLVMBasicBlockRef[]){pre, latch}, 2);
  LLVMPositionBuilderAtEnd(s->b, end);
  return 0;
}

static int s_while(cg_state* s, const void* st) {
  const tvm_tir_while_obj* n = st;
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "while_head");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "while_body");
  LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "while_end");
  LLVMBuildBr(s->b, head);
  LLVMPositionBuilderAtEnd(s->b, head);
  LLVMValueRef c = tvm_codegen__expr(s, n->condition);
  if (!c) return -1;
  LLVMBuildCondBr(s->b, c, body, end);
  LLVMPositionBuilderAtEnd(s->b, body);
  if (loop_push(s, end, head) != 0) return -1;
  int rc = tvm_codegen__stmt(s, n->body);
  s->nloops--;
  if (rc != 0) return -1;
  LLVMBuildBr(s->b, head);
  LLVMPositionBuilderAtEnd(s->b, end);
  return 0;
}

static const expr_fn g_expr[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_Var] = e_var,
    [TVM_TIR_KIND_SizeVar] = e_var,
    [TVM_TIR_KIND_IntImm] = e_int_imm,
    [TVM_TIR_KIND_FloatImm] = e_float_imm,
    [TVM_TIR_KIND_StringImm] = e_string_imm,
    [TVM_TIR_KIND_Cast] = e_cast,
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) [TVM_TIR_KIND_##Name] = e_binary,
#include <tvm/tir/nodes.def>
    [TVM_TIR_KIND_Not] = e_not,
    [TVM_TIR_KIND_Select] = e_select,
    [TVM_TIR_KIND_BufferLoad] = e_buffer_load,
    [TVM_TIR_KIND_Ramp] = e_ramp,
    [TVM_TIR_KIND_Broadcast] = e_broadcast,
    [TVM_TIR_KIND_Let] = e_let,
    [TVM_TIR_KIND_Call] = e_call,
    [TVM_TIR_KIND_Shuffle] = e_shuffle,
};

static const stmt_fn g_stmt[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_LetStmt] = s_let,
    [TVM_TIR_KIND_AttrStmt] = s_attr,
    [TVM_TIR_KIND_AssertStmt] = s_assert,
    [TVM_TIR_KIND_BufferStore] = s_buffer_store,
    [TVM_TIR_KIND_Allocate] = s_allocate,
    [TVM_TIR_KIND_DeclBuffer] = s_decl_buffer,
    [TVM_TIR_KIND_SeqStmt] = s_seq,
    [TVM_TIR_KIND_IfThenElse] = s_if,
    [TVM_TIR_KIND_Evaluate] = s_evaluate,
    [TVM_TIR_KIND_For] = s_for,
    [TVM_TIR_KIND_While] = s_while,
};

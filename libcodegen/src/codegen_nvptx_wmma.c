/*
 * codegen_nvptx_wmma.c: tensor cores in CUDA kernels, the WMMA intrinsics of upstream TVM
 * (docs/tir-decisions.md "Tensor cores" for their meaning) through LLVM's llvm.nvvm.wmma.*
 * intrinsics:
 *
 *   - an Allocate of scope "wmma.matrix_a" / "wmma.matrix_b" / "wmma.accumulator" holds
 *     fragments: registers of the warp, here an array of the fragment's register type per
 *     fragment (8 x <2 x half> for float16 A and B, 8 x float for a float32 accumulator,
 *     4 x <2 x half> for a float16 one; the same for every float16 shape), promoted to
 *     registers by LLVM when the fragment indices are constant. Its shape (m, n, k) and, for
 *     A and B, its layout are those of the calls that use it (as upstream's InferFragment
 *     finds them): constant, one per allocation. Its elements are not addressable: a load or
 *     store of the buffer is an error;
 *   - tvm_load_matrix_sync: llvm.nvvm.wmma.<mnk>.load.<a|b|c>.<layout>.stride.<type>;
 *     tvm_store_matrix_sync: ...store.d.<layout>.stride.<type>; tvm_mma_sync:
 *     llvm.nvvm.wmma.<mnk>.mma.<a layout>.<b layout>.<d type>.<c type>; tvm_fill_fragment
 *     sets every register of the fragment;
 *   - a shared allocation a load or store of matrices reads or writes is aligned to 32 bytes
 *     (CUDA: a 256-bit aligned pointer; the interpreter checks the offsets);
 *   - each is a warp's operation: it must be inside the threadIdx launches and not under a
 *     launch guard (which some lanes of a warp may skip), and the target sm_70 or later.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* A fragment allocation in scope at the builder's position (a stack through `prev`). */
struct cg_wmma {
  const void* var;
  char kind; /* 'a', 'b', 'c' */
  DLDataType dtype;
  int m, n, k;
  bool col_major; /* the layout of A / B fragments */
  LLVMTypeRef reg;
  int nregs;
  LLVMValueRef regs; /* nfrag * nregs registers */
  struct cg_wmma* prev;
};

static char kind_of(const char* scope) {
  if (strcmp(scope, "wmma.matrix_a") == 0) return 'a';
  if (strcmp(scope, "wmma.matrix_b") == 0) return 'b';
  if (strcmp(scope, "wmma.accumulator") == 0) return 'c';
  return 0;
}

static bool is_wmma_op(const void* op) {
  return tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_fill_fragment) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_load_matrix_sync) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_store_matrix_sync) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_mma_sync) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_bmma_sync);
}

/* ---- Shape and layout of an allocation, from the calls that use it ---------------------- */
typedef struct {
  cg_state* s;
  struct cg_wmma* f;
  const char* name;
  bool have_shape, have_layout;
  int rc;
} infer_walk;

static const char* str_arg(const tvm_tir_call_obj* c, int64_t i) {
  const void* a = tvm_tir_array_at(c->args, i);
  return tvm_tir_kind_of(a) == TVM_TIR_KIND_StringImm
             ? tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)a)->value)
             : NULL;
}

static int infer_call(tvm_tir_visitor* v, const void* node) {
  infer_walk* w = v->ctx;
  const tvm_tir_call_obj* c = node;
  if (!is_wmma_op(c->op) || tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_mma_sync) ||
      tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_bmma_sync))
    return TVM_TIR_VISIT_CONTINUE;
  int64_t na = tvm_tir_array_size(c->args);
  if (na < 6 || tvm_tir_array_at(c->args, 0) != w->f->var) return TVM_TIR_VISIT_CONTINUE;
  int64_t mnk[3];
  for (int i = 0; i < 3; ++i)
    if (!tvm_tir_as_const_int(tvm_tir_array_at(c->args, i + 1), &mnk[i])) {
      w->rc = tvm_codegen__fail(w->s, "NotImplementedError",
                                "%s of fragment %s with a shape that is not constant",
                                tvm_tir_op_name((const tvm_tir_op_obj*)c->op), w->name);
      return -1;
    }
  if (w->have_shape && (mnk[0] != w->f->m || mnk[1] != w->f->n || mnk[2] != w->f->k)) {
    w->rc = tvm_codegen__fail(w->s, "ValueError",
                              "fragment %s used with shapes %dx%dx%d and %lldx%lldx%lld (a "
                              "fragment allocation has one shape)",
                              w->name, w->f->m, w->f->n, w->f->k, (long long)mnk[0],
                              (long long)mnk[1], (long long)mnk[2]);
    return -1;
  }
  w->f->m = (int)mnk[0];
  w->f->n = (int)mnk[1];
  w->f->k = (int)mnk[2];
  w->have_shape = true;
  if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_load_matrix_sync) && na == 8 &&
      w->f->kind != 'c') {
    const char* l = str_arg(c, 7);
    bool col = l && strcmp(l, "col_major") == 0;
    if (!l || (!col && strcmp(l, "row_major") != 0)) {
      w->rc = tvm_codegen__fail(w->s, "ValueError",
                                "tvm_load_matrix_sync: the layout must be \"row_major\" or "
                                "\"col_major\"");
      return -1;
    }
    if (w->have_layout && col != w->f->col_major) {
      w->rc = tvm_codegen__fail(w->s, "ValueError",
                                "fragment %s loaded both row_major and col_major (a fragment of "
                                "matrix A or B has one layout)",
                                w->name);
      return -1;
    }
    w->f->col_major = col;
    w->have_layout = true;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

int tvm_codegen__wmma_allocate(cg_state* s, const tvm_tir_allocate_obj* n, const char* scope) {
  const char* name = tvm_tir_var_name(n->buffer_var);
  struct cg_wmma f = {0};
  f.var = n->buffer_var;
  f.kind = kind_of(scope);
  f.dtype = n->dtype;
  if (!f.kind)
    return tvm_codegen__fail(s, "NotImplementedError",
                             "allocation %s of scope \"%s\" in a CUDA kernel", name, scope);
  bool f16 = n->dtype.code == kDLFloat && n->dtype.bits == 16 && n->dtype.lanes == 1;
  bool f32 = n->dtype.code == kDLFloat && n->dtype.bits == 32 && n->dtype.lanes == 1;
  if (!(f16 || (f.kind == 'c' && f32)))
    return tvm_codegen__fail(s, "NotImplementedError",
                             "tensor-core fragment %s of dtype %s (float16 matrix_a and matrix_b "
                             "fragments, float16 or float32 accumulators are supported)",
                             name, tvm_tir_dtype_str(n->dtype).s);
  infer_walk w = {s, &f, name, false, false, 0};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Call] = infer_call;
  v.ctx = &w;
  tvm_tir_visit(&v, n->body);
  tvm_tir_visitor_free(&v);
  if (w.rc != 0 || s->failed) return -1;
  if (!w.have_shape) { /* never filled, loaded or stored: nothing to hold */
    return tvm_codegen__stmt(s, n->body);
  }
  if (!((f.m == 16 && f.n == 16 && f.k == 16) || (f.m == 32 && f.n == 8 && f.k == 16) ||
        (f.m == 8 && f.n == 32 && f.k == 16)))
    return tvm_codegen__fail(s, "ValueError",
                             "tensor-core fragment %s of shape %dx%dx%d (float16 takes 16x16x16, "
                             "32x8x16 or 8x32x16)",
                             name, f.m, f.n, f.k);
  if (s->gpu_sm && s->gpu_sm < 70)
    return tvm_codegen__fail(s, "ValueError",
                             "tensor-core fragment %s: WMMA needs sm_70 or later (the target is "
                             "sm_%d)",
                             name, s->gpu_sm);
  LLVMTypeRef half = LLVMHalfTypeInContext(s->ctx);
  if (f.kind == 'c' && f32) {
    f.reg = LLVMFloatTypeInContext(s->ctx);
    f.nregs = 8;
  } else {
    f.reg = LLVMVectorType(half, 2);
    f.nregs = f.kind == 'c' ? 4 : 8;
  }
  int64_t count = 1;
  for (int64_t k = 0; k < tvm_tir_array_size(n->extents); ++k) {
    int64_t e;
    if (!tvm_tir_as_const_int(tvm_tir_array_at(n->extents, k), &e) || e < 0 ||
        (e && count > (1 << 20) / e))
      return tvm_codegen__fail(s, "NotImplementedError",
                               "tensor-core fragment %s of a size that is not a small constant",
                               name);
    count *= e;
  }
  int64_t rows = f.kind == 'b' ? f.k : f.m, cols = f.kind == 'a' ? f.k : f.n;
  int64_t nfrag = count / (rows * cols);
  if (nfrag < 1 || count % (rows * cols) != 0)
    return tvm_codegen__fail(s, "ValueError",
                             "tensor-core fragment %s of %lld elements: not a whole number of "
                             "%lldx%lld fragments",
                             name, (long long)count, (long long)rows, (long long)cols);
  f.regs = tvm_codegen__entry_alloca(s, LLVMArrayType(f.reg, (unsigned)(nfrag * f.nregs)), name);
  f.prev = s->wmma;
  s->wmma = &f;
  int rc = tvm_codegen__stmt(s, n->body);
  s->wmma = f.prev;
  return rc;
}

/* ---- Memory the tensor cores read or write: 256-bit aligned -----------------------------------
 */
typedef struct {
  const void* var;
  bool found;
} uses_walk;

static int find_var(tvm_tir_visitor* v, const void* node) {
  uses_walk* w = v->ctx;
  if (node == w->var) w->found = true;
  return w->found ? -1 : TVM_TIR_VISIT_CONTINUE;
}

static int wmma_memory_call(tvm_tir_visitor* v, const void* node) {
  uses_walk* w = v->ctx;
  const tvm_tir_call_obj* c = node;
  if (!(tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_load_matrix_sync) ||
        tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_store_matrix_sync)) ||
      tvm_tir_array_size(c->args) < 6)
    return TVM_TIR_VISIT_CONTINUE;
  tvm_tir_visitor inner = {0};
  inner.pre[TVM_TIR_KIND_Var] = find_var;
  inner.ctx = w;
  tvm_tir_visit(&inner, tvm_tir_array_at(c->args, 5));
  tvm_tir_visitor_free(&inner);
  tvm_ffi_error_clear(); /* the stop is not an error */
  return w->found ? -1 : TVM_TIR_VISIT_CONTINUE;
}

bool tvm_codegen__wmma_uses_memory(const void* body, const void* var) {
  uses_walk w = {var, false};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Call] = wmma_memory_call;
  v.ctx = &w;
  tvm_tir_visit(&v, body);
  tvm_tir_visitor_free(&v);
  if (w.found) tvm_ffi_error_clear();
  return w.found;
}

/* ---- Calls --------------------------------------------------------------------------------- */
static struct cg_wmma* find_frag(cg_state* s, const tvm_tir_call_obj* c, int64_t i, char kind) {
  const void* v = tvm_tir_array_at(c->args, i);
  for (struct cg_wmma* f = s->wmma; f; f = f->prev) {
    if (f->var != v) continue;
    if (kind && f->kind != kind) {
      tvm_codegen__fail(s, "TypeError", "%s: argument %lld (%s) is a fragment of the wrong kind",
                        tvm_tir_op_name((const tvm_tir_op_obj*)c->op), (long long)i,
                        tvm_tir_var_name(v));
      return NULL;
    }
    return f;
  }
  tvm_codegen__fail(s, "TypeError",
                    "%s: argument %lld must be the data of a tensor-core fragment allocated in "
                    "the kernel (scope wmma.matrix_a, wmma.matrix_b or wmma.accumulator)",
                    tvm_tir_op_name((const tvm_tir_op_obj*)c->op), (long long)i);
  return NULL;
}

/* Pointer to register r of fragment index (an expression) of f. */
static LLVMValueRef reg_ptr(cg_state* s, struct cg_wmma* f, LLVMValueRef index, int r) {
  LLVMValueRef i =
      LLVMBuildAdd(s->b, LLVMBuildMul(s->b, index, LLVMConstInt(s->i64, (unsigned)f->nregs, 0), ""),
                   LLVMConstInt(s->i64, (unsigned)r, 0), "");
  return LLVMBuildGEP2(s->b, f->reg, f->regs, &i, 1, "");
}

static LLVMValueRef index_arg(cg_state* s, const tvm_tir_call_obj* c, int64_t i) {
  const tvm_tir_expr_obj* e = tvm_tir_array_at(c->args, i);
  LLVMValueRef v = tvm_codegen__expr(s, e);
  return v ? tvm_codegen__convert(s, v, e->dtype, TVM_TIR_INT64) : NULL;
}

static const char* type_name(const struct cg_wmma* f) {
  return f->dtype.bits == 32 ? "f32" : "f16";
}

static LLVMValueRef intrinsic(cg_state* s, const char* name, LLVMTypeRef* over, int nover,
                              LLVMValueRef* args, unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id) {
    tvm_codegen__fail(s, "NotImplementedError", "LLVM has no intrinsic %s", name);
    return NULL;
  }
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(s->mod, id, over, (size_t)nover);
  LLVMTypeRef ft = LLVMIntrinsicGetType(s->ctx, id, over, (size_t)nover);
  return LLVMBuildCall2(s->b, ft, fn, args, nargs, "");
}

static LLVMValueRef fill(cg_state* s, const tvm_tir_call_obj* c) {
  struct cg_wmma* f = find_frag(s, c, 0, 0);
  if (!f) return NULL;
  LLVMValueRef idx = index_arg(s, c, 4);
  const tvm_tir_expr_obj* ve = tvm_tir_array_at(c->args, 5);
  LLVMValueRef v = idx ? tvm_codegen__expr(s, ve) : NULL;
  if (!v) return NULL;
  v = tvm_codegen__convert(s, v, ve->dtype, f->dtype);
  if (LLVMGetTypeKind(f->reg) == LLVMVectorTypeKind) {
    LLVMValueRef pair = LLVMGetUndef(f->reg);
    pair = LLVMBuildInsertElement(s->b, pair, v, LLVMConstInt(s->i32, 0, 0), "");
    v = LLVMBuildInsertElement(s->b, pair, v, LLVMConstInt(s->i32, 1, 0), "");
  }
  for (int r = 0; r < f->nregs; ++r) LLVMBuildStore(s->b, v, reg_ptr(s, f, idx, r));
  return LLVMConstInt(s->i32, 0, 0);
}

static LLVMValueRef load_store(cg_state* s, const tvm_tir_call_obj* c, bool load) {
  struct cg_wmma* f = find_frag(s, c, 0, load ? 0 : 'c');
  if (!f) return NULL;
  const char* layout = str_arg(c, 7);
  if (!layout || (strcmp(layout, "row_major") != 0 && strcmp(layout, "col_major") != 0)) {
    tvm_codegen__fail(s, "ValueError", "%s: the layout must be \"row_major\" or \"col_major\"",
                      tvm_tir_op_name((const tvm_tir_op_obj*)c->op));
    return NULL;
  }
  /* A and B: the fragment's own layout (the one its loads agree on); C / D: the memory's. */
  LLVMValueRef idx = index_arg(s, c, 4);
  const tvm_tir_expr_obj* pe = tvm_tir_array_at(c->args, 5);
  const tvm_tir_expr_obj* se = tvm_tir_array_at(c->args, 6);
  LLVMValueRef ptr = idx ? tvm_codegen__expr(s, pe) : NULL;
  LLVMValueRef stride = ptr ? tvm_codegen__expr(s, se) : NULL;
  if (!stride) return NULL;
  stride = tvm_codegen__convert(s, stride, se->dtype, TVM_TIR_INT32);
  char name[96];
  snprintf(name, sizeof(name), "llvm.nvvm.wmma.m%dn%dk%d.%s.%s.%s.stride.%s", f->m, f->n, f->k,
           load ? "load" : "store",
           load ? (f->kind == 'a'   ? "a"
                   : f->kind == 'b' ? "b"
                                    : "c")
                : "d",
           layout[0] == 'r' ? "row" : "col", type_name(f));
  LLVMTypeRef pt = LLVMTypeOf(ptr);
  if (load) {
    LLVMValueRef args[2] = {ptr, stride};
    LLVMValueRef r = intrinsic(s, name, &pt, 1, args, 2);
    if (!r) return NULL;
    for (int k = 0; k < f->nregs; ++k)
      LLVMBuildStore(s->b, LLVMBuildExtractValue(s->b, r, (unsigned)k, ""), reg_ptr(s, f, idx, k));
    return LLVMConstInt(s->i32, 0, 0);
  }
  LLVMValueRef args[10];
  args[0] = ptr;
  for (int k = 0; k < f->nregs; ++k)
    args[1 + k] = LLVMBuildLoad2(s->b, f->reg, reg_ptr(s, f, idx, k), "");
  args[1 + f->nregs] = stride;
  return intrinsic(s, name, &pt, 1, args, (unsigned)(f->nregs + 2)) ? LLVMConstInt(s->i32, 0, 0)
                                                                    : NULL;
}

static LLVMValueRef mma(cg_state* s, const tvm_tir_call_obj* c) {
  static const char kinds[4] = {'c', 'a', 'b', 'c'};
  struct cg_wmma* f[4];
  LLVMValueRef idx[4];
  for (int j = 0; j < 4; ++j) {
    f[j] = find_frag(s, c, 2 * j, kinds[j]);
    idx[j] = f[j] ? index_arg(s, c, 2 * j + 1) : NULL;
    if (!idx[j]) return NULL;
  }
  for (int j = 0; j < 4; ++j)
    if (f[j]->m != f[1]->m || f[j]->n != f[1]->n || f[j]->k != f[1]->k) {
      tvm_codegen__fail(s, "ValueError",
                        "tvm_mma_sync of fragments of different shapes (%s and %s)",
                        tvm_tir_var_name(f[1]->var), tvm_tir_var_name(f[j]->var));
      return NULL;
    }
  char name[96];
  snprintf(name, sizeof(name), "llvm.nvvm.wmma.m%dn%dk%d.mma.%s.%s.%s.%s", f[1]->m, f[1]->n,
           f[1]->k, f[1]->col_major ? "col" : "row", f[2]->col_major ? "col" : "row",
           type_name(f[0]), type_name(f[3]));
  LLVMValueRef args[24];
  unsigned na = 0;
  for (int j = 1; j < 4; ++j)
    for (int k = 0; k < f[j]->nregs; ++k)
      args[na++] = LLVMBuildLoad2(s->b, f[j]->reg, reg_ptr(s, f[j], idx[j], k), "");
  LLVMValueRef r = intrinsic(s, name, NULL, 0, args, na);
  if (!r) return NULL;
  for (int k = 0; k < f[0]->nregs; ++k)
    LLVMBuildStore(s->b, LLVMBuildExtractValue(s->b, r, (unsigned)k, ""),
                   reg_ptr(s, f[0], idx[0], k));
  return LLVMConstInt(s->i32, 0, 0);
}

bool tvm_codegen__wmma_call(cg_state* s, const tvm_tir_call_obj* c, LLVMValueRef* out) {
  *out = NULL;
  if (!is_wmma_op(c->op)) return false;
  const char* op = tvm_tir_op_name((const tvm_tir_op_obj*)c->op);
  int64_t na = tvm_tir_array_size(c->args);
  if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_bmma_sync)) {
    tvm_codegen__fail(s, "NotImplementedError", "tvm_bmma_sync (1-bit fragments) in a CUDA kernel");
    return true;
  }
  if (na != (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_fill_fragment) ? 6 : 8)) {
    tvm_codegen__fail(s, "TypeError", "%s with %lld arguments", op, (long long)na);
    return true;
  }
  if (s->gpu_thread_depth == 0 || s->gpu_guards > 0) {
    tvm_codegen__fail(s, "ValueError",
                      "%s outside the threadIdx launches of the kernel or inside a launch that "
                      "not every thread of the block runs: a tensor-core operation needs the "
                      "whole warp",
                      op);
    return true;
  }
  if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_fill_fragment))
    *out = fill(s, c);
  else if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_mma_sync))
    *out = mma(s, c);
  else
    *out = load_store(s, c, tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_load_matrix_sync));
  return true;
}

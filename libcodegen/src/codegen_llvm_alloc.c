/*
 * codegen_llvm_alloc.c: the Allocate statement (T.allocate_const: a constant global, see
 * const_allocate).
 *
 * Each function (the body, and each parallel task's closure, which may run on a thread of its
 * own) has a stack budget of TVM_CODEGEN_MAX_STACK_ALLOC bytes for its Allocates; what does not
 * fit goes to the heap. Without a total, twelve 1 MiB buffers took 12 MiB of an 8 MiB stack.
 *
 * - A constant size that fits the rest of the budget: a 64-byte aligned alloca in the entry
 *   block of the current function (allocated once per call, so an Allocate inside a loop reuses
 *   one slot; an Allocate's contents are undefined on entry anyway). Slots add up: they all live
 *   for the whole call.
 * - Otherwise (a symbolic size, or a constant one beyond the budget) the size is computed at run
 *   time, each extent checked non-negative (ValueError), and
 *     size <= TVM_CODEGEN_MAX_DYN_STACK_ALLOC while the budget has that much left: a dynamic
 *       alloca between llvm.stacksave and llvm.stackrestore, so a loop around the Allocate does
 *       not grow the stack (it takes TVM_CODEGEN_MAX_DYN_STACK_ALLOC of the budget while in
 *       scope: nested ones add up, consecutive ones reuse the same bytes);
 *     larger, or no budget left: the environment's tensor allocator (TVMFFIEnvTensorAlloc of a
 *       1-D uint8 CPU tensor, 64-byte aligned data), released with TVMFFIObjectDecRef at the end
 *       of the Allocate's scope and on every return while it is live (failed checks, failed
 *       parallel tasks: tvm_codegen__emit_ret). An allocation failure raises the allocator's error and
 *       returns -1.
 *   Through the ABI rather than libc, exported code keeps referencing TVMFFI* symbols only, and
 *   allocations follow the embedding application's allocator.
 * The budget holds at every point: a slot is placed only if the slots so far, it, and the
 * deepest nesting of dynamic allocas seen so far fit; a dynamic alloca only if the slots so far
 * and the dynamic allocas in scope with it fit (later slots then count it in that peak).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Bytes per element in memory (bool lanes take a byte each). */
static int64_t elem_bytes(DLDataType t) {
  return (t.bits == 1 ? 1 : (int64_t)(t.bits + 7) / 8) * (t.lanes ? t.lanes : 1);
}

/* The number of elements when every extent is a constant and the size fits the budget. */
static bool const_count(const tvm_tir_allocate_obj* n, int64_t* out) {
  int64_t count = 1, limit = TVM_CODEGEN_MAX_STACK_ALLOC / elem_bytes(n->dtype);
  for (int64_t i = 0; i < tvm_tir_array_size(n->extents); ++i) {
    int64_t v;
    if (!tvm_tir_as_const_int(tvm_tir_array_at(n->extents, i), &v) || v < 0) return false;
    if (v != 0 && count > limit / v) return false;
    count *= v;
  }
  *out = count;
  return true;
}

static LLVMValueRef stack_intrin(cg_state* s, const char* name, LLVMValueRef* args, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  bool ov = LLVMIntrinsicIsOverloaded(id); /* llvm.stacksave.p0 since LLVM 18 */
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(s->mod, id, ov ? &s->ptr : NULL, ov ? 1 : 0);
  LLVMTypeRef ft = LLVMIntrinsicGetType(s->ctx, id, ov ? &s->ptr : NULL, ov ? 1 : 0);
  return LLVMBuildCall2(s->b, ft, f, args, n, "");
}

/* The run-time byte size of n (i64), raising ValueError for a negative extent or a size that
 * does not fit in int64. */
static LLVMValueRef dynamic_bytes(cg_state* s, const tvm_tir_allocate_obj* n) {
  LLVMValueRef bytes = tvm_codegen__const_i64(s, elem_bytes(n->dtype));
  LLVMValueRef overflow = LLVMConstInt(s->i1, 0, 0);
  unsigned smul = LLVMLookupIntrinsicID("llvm.smul.with.overflow", 23);
  LLVMValueRef smul_f = LLVMGetIntrinsicDeclaration(s->mod, smul, &s->i64, 1);
  LLVMTypeRef smul_t = LLVMIntrinsicGetType(s->ctx, smul, &s->i64, 1);
  const char* name = tvm_tir_var_name(n->buffer_var);
  char msg[300];
  for (int64_t i = 0; i < tvm_tir_array_size(n->extents); ++i) {
    const void* e = tvm_tir_array_at(n->extents, i);
    LLVMValueRef v = tvm_codegen__expr(s, e);
    if (!v) return NULL;
    v = LLVMBuildIntCast2(s->b, v, s->i64, tvm_tir_expr_dtype(e).code == kDLInt, "");
    snprintf(msg, sizeof(msg), "%s: Allocate of %s: extent %lld is negative: ", s->fname, name,
             (long long)i);
    LLVMBasicBlockRef ok =
        tvm_codegen__check_begin(s, LLVMBuildICmp(s->b, LLVMIntSGE, v, tvm_codegen__const_i64(s, 0), ""));
    LLVMValueRef parts[2] = {tvm_codegen__cstr(s, msg), tvm_codegen__fmt_i64(s, v)};
    tvm_codegen__check_end(s, ok, "ValueError", parts, 2);
    LLVMValueRef args[2] = {bytes, v};
    LLVMValueRef r = LLVMBuildCall2(s->b, smul_t, smul_f, args, 2, "");
    bytes = LLVMBuildExtractValue(s->b, r, 0, "");
    overflow = LLVMBuildOr(s->b, overflow, LLVMBuildExtractValue(s->b, r, 1, ""), "");
  }
  snprintf(msg, sizeof(msg), "%s: Allocate of %s: the size overflows int64", s->fname, name);
  LLVMValueRef parts[1] = {tvm_codegen__cstr(s, msg)};
  tvm_codegen__emit_check(s, LLVMBuildNot(s->b, overflow, ""), "ValueError", parts, 1);
  return bytes;
}

/* Heap path: TVMFFIEnvTensorAlloc(&{NULL, CPU:0, 1, uint8, &bytes, NULL, 0}, &handle). Returns
 * the handle; *out_data its data pointer. */
static LLVMValueRef heap_alloc(cg_state* s, LLVMValueRef bytes, LLVMValueRef* out_data) {
  enum { DL_SIZE = 48 };
  _Static_assert(sizeof(DLTensor) == DL_SIZE, "DLTensor layout");
  LLVMValueRef proto = tvm_codegen__entry_alloca(s, LLVMArrayType(s->i8, DL_SIZE), "alloc_proto");
  LLVMSetAlignment(proto, 8);
  LLVMValueRef shape = tvm_codegen__entry_alloca(s, s->i64, "alloc_shape");
  LLVMValueRef out = tvm_codegen__entry_alloca(s, s->ptr, "alloc_handle");
  LLVMBuildStore(s->b, bytes, shape);
  struct {
    int64_t off;
    LLVMValueRef v;
  } fields[] = {
      {offsetof(DLTensor, data), LLVMConstNull(s->ptr)},
      {offsetof(DLTensor, device), tvm_codegen__const_i32(s, kDLCPU)},
      {offsetof(DLTensor, device) + 4, tvm_codegen__const_i32(s, 0)},
      {offsetof(DLTensor, ndim), tvm_codegen__const_i32(s, 1)},
      {offsetof(DLTensor, dtype), tvm_codegen__const_i32(s, kDLUInt | (8 << 8) | (1 << 16))},
      {offsetof(DLTensor, shape), shape},
      {offsetof(DLTensor, strides), LLVMConstNull(s->ptr)},
      {offsetof(DLTensor, byte_offset), tvm_codegen__const_i64(s, 0)},
  };
  for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); ++k) {
    LLVMValueRef off = tvm_codegen__const_i64(s, fields[k].off);
    LLVMBuildStore(s->b, fields[k].v, LLVMBuildGEP2(s->b, s->i8, proto, &off, 1, ""));
  }
  LLVMTypeRef pt[2] = {s->ptr, s->ptr};
  LLVMTypeRef ft = LLVMFunctionType(s->i32, pt, 2, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(s->mod, "TVMFFIEnvTensorAlloc");
  if (!fn) fn = LLVMAddFunction(s->mod, "TVMFFIEnvTensorAlloc", ft);
  LLVMValueRef args[2] = {proto, out};
  LLVMValueRef rc = LLVMBuildCall2(s->b, ft, fn, args, 2, "");
  /* The allocator raised already: return its failure (releasing what is live). */
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "alloc_fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "alloc_ok");
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, rc, tvm_codegen__const_i32(s, 0), ""), ok,
                  fail);
  LLVMPositionBuilderAtEnd(s->b, fail);
  tvm_codegen__emit_ret(s, tvm_codegen__const_i32(s, -1));
  LLVMPositionBuilderAtEnd(s->b, ok);
  LLVMValueRef h = LLVMBuildLoad2(s->b, s->ptr, out, "alloc_tensor");
  /* An ffi.Tensor holds its DLTensor (data first) right after the 24-byte object header. */
  LLVMValueRef off = tvm_codegen__const_i64(s, sizeof(TVMFFIObject));
  *out_data = LLVMBuildLoad2(s->b, s->ptr, LLVMBuildGEP2(s->b, s->i8, h, &off, 1, ""), "");
  return h;
}

static int push_alloc(cg_state* s, LLVMValueRef h, LLVMValueRef sp) {
  if (s->nallocs == s->alloc_cap) {
    int64_t cap = s->alloc_cap ? 2 * s->alloc_cap : 8;
    cg_alloc* p = tvm_ffi_realloc(s->live_allocs, (size_t)cap * sizeof(cg_alloc));
    if (!p) {
      s->failed = true;
      return -1;
    }
    s->live_allocs = p;
    s->alloc_cap = cap;
  }
  s->live_allocs[s->nallocs++] = (cg_alloc){h, sp};
  return 0;
}

void tvm_codegen__stack_restore(cg_state* s, LLVMValueRef sp) {
  stack_intrin(s, "llvm.stackrestore", &sp, 1);
}

/* A run-time sized allocation: on the stack when small and the budget allows, else the heap. */
static int dynamic_allocate(cg_state* s, const tvm_tir_allocate_obj* n) {
  LLVMValueRef bytes = dynamic_bytes(s, n);
  if (!bytes) return -1;
  bool may_stack = s->stack_slots + s->stack_dyn + TVM_CODEGEN_MAX_DYN_STACK_ALLOC <=
                   TVM_CODEGEN_MAX_STACK_ALLOC;
  LLVMValueRef sp = may_stack ? stack_intrin(s, "llvm.stacksave", NULL, 0) : NULL;
  LLVMBasicBlockRef stk = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "alloc_stack");
  LLVMBasicBlockRef heap = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "alloc_heap");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "alloc_join");
  LLVMValueRef small = may_stack
                           ? LLVMBuildICmp(s->b, LLVMIntULE, bytes,
                                           tvm_codegen__const_i64(s, TVM_CODEGEN_MAX_DYN_STACK_ALLOC), "")
                           : LLVMConstInt(s->i1, 0, 0);
  if (may_stack) {
    s->stack_dyn += TVM_CODEGEN_MAX_DYN_STACK_ALLOC;
    if (s->stack_dyn > s->stack_dyn_peak) s->stack_dyn_peak = s->stack_dyn;
  }
  LLVMBuildCondBr(s->b, small, stk, heap);
  LLVMPositionBuilderAtEnd(s->b, stk);
  LLVMValueRef a = LLVMBuildArrayAlloca(s->b, s->i8, bytes, tvm_tir_var_name(n->buffer_var));
  LLVMSetAlignment(a, 64);
  LLVMBuildBr(s->b, join);
  LLVMPositionBuilderAtEnd(s->b, heap);
  LLVMValueRef data;
  LLVMValueRef h = heap_alloc(s, bytes, &data);
  LLVMBasicBlockRef heap_end = LLVMGetInsertBlock(s->b);
  LLVMBuildBr(s->b, join);
  LLVMPositionBuilderAtEnd(s->b, join);
  LLVMValueRef p = LLVMBuildPhi(s->b, s->ptr, tvm_tir_var_name(n->buffer_var));
  LLVMAddIncoming(p, (LLVMValueRef[]){a, data}, (LLVMBasicBlockRef[]){stk, heap_end}, 2);
  LLVMValueRef hp = LLVMBuildPhi(s->b, s->ptr, "alloc_owner");
  LLVMAddIncoming(hp, (LLVMValueRef[]){LLVMConstNull(s->ptr), h},
                  (LLVMBasicBlockRef[]){stk, heap_end}, 2);
  if (push_alloc(s, hp, sp) != 0 || tvm_codegen__bind(s, n->buffer_var, p) != 0) return -1;
  int rc = tvm_codegen__stmt(s, n->body);
  s->nbinds--;
  if (may_stack) s->stack_dyn -= TVM_CODEGEN_MAX_DYN_STACK_ALLOC;
  if (rc != 0) return -1;
  /* End of scope: release a heap allocation, pop the stack. */
  tvm_codegen__emit_release(s, hp);
  s->nallocs--;
  if (sp) stack_intrin(s, "llvm.stackrestore", &sp, 1);
  return 0;
}

/* T.allocate_const (data: its constants, tvm_tir__allocate_const_data): a private constant
 * global of the library, 64-byte aligned, which the buffer var points to (as upstream's LLVM
 * back end does). Writing to it is undefined, as upstream has it. */
static int const_allocate(cg_state* s, const tvm_tir_allocate_obj* n, const void* data) {
  LLVMTypeRef et = tvm_codegen__mem_type(s, n->dtype);
  if (!et) return -1;
  int64_t count = tvm_ffi_seq_size(data);
  LLVMValueRef* elems = tvm_ffi_malloc((size_t)(count ? count : 1) * sizeof(*elems));
  if (!elems) return tvm_codegen__fail(s, "MemoryError", "allocate_const: out of memory");
  bool is_float = n->dtype.code == kDLFloat;
  LLVMTypeRef ft = n->dtype.bits == 16 ? LLVMHalfTypeInContext(s->ctx) : et;
  for (int64_t i = 0; i < count; ++i) {
    const void* c = tvm_ffi_seq_obj_at(data, i);
    int64_t iv = 0;
    double fv = 0;
    if (is_float) {
      (void)tvm_tir_as_const_float(c, &fv);
      elems[i] = LLVMConstReal(ft, fv);
      if (ft != et) elems[i] = LLVMConstBitCast(elems[i], et); /* float16 is stored as i16 */
    } else {
      (void)tvm_tir_as_const_int(c, &iv);
      elems[i] = LLVMConstInt(et, (unsigned long long)iv, n->dtype.code == kDLInt);
    }
  }
  LLVMValueRef init = LLVMConstArray2(et, elems, (uint64_t)count);
  tvm_ffi_free(elems);
  char name[160];
  snprintf(name, sizeof(name), "__tvm_const_%s", tvm_tir_var_name(n->buffer_var));
  LLVMValueRef g = LLVMAddGlobal(s->mod, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetAlignment(g, 64);
  if (tvm_codegen__bind(s, n->buffer_var, g) != 0) return -1;
  int rc = tvm_codegen__stmt(s, n->body);
  s->nbinds--;
  return rc;
}

int tvm_codegen__allocate(cg_state* s, const tvm_tir_allocate_obj* n) {
  const void* data;
  if (tvm_tir__allocate_const_data(n, &data) != 0) {
    s->failed = true; /* raised */
    return -1;
  }
  if (data && s->gpu) {
    return tvm_codegen__fail(s, "NotImplementedError", "allocate_const %s in device code",
                             tvm_tir_var_name(n->buffer_var));
  }
  if (data) return const_allocate(s, n, data);
  if (s->gpu) return tvm_codegen__gpu_allocate(s, n); /* codegen_nvptx.c */
  if (n->dtype.code == kDLOpaqueHandle)
    return tvm_codegen__fail(s, "NotImplementedError", "Allocate of %s with dtype handle",
                   tvm_tir_var_name(n->buffer_var));
  int64_t count;
  if (!const_count(n, &count)) return dynamic_allocate(s, n);
  /* Slots are 64-byte aligned: count them rounded up. */
  int64_t bytes = (count * elem_bytes(n->dtype) + 63) / 64 * 64;
  if (bytes == 0) bytes = 64;
  if (s->stack_slots + bytes + s->stack_dyn_peak > TVM_CODEGEN_MAX_STACK_ALLOC)
    return dynamic_allocate(s, n);
  s->stack_slots += bytes;
  LLVMTypeRef et = tvm_codegen__mem_type(s, tvm_tir_dtype_element(n->dtype));
  if (!et) return -1;
  unsigned elems = (unsigned)(count * n->dtype.lanes);
  LLVMValueRef a =
      tvm_codegen__entry_alloca(s, LLVMArrayType(et, elems ? elems : 1), tvm_tir_var_name(n->buffer_var));
  LLVMSetAlignment(a, 64);
  if (tvm_codegen__bind(s, n->buffer_var, a) != 0) return -1;
  int rc = tvm_codegen__stmt(s, n->body);
  s->nbinds--;
  return rc;
}

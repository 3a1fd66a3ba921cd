/*
 * codegen_llvm_parallel.c: For loops of kind parallel, the way upstream TVM generates them.
 *
 * The loop body is outlined into a closure with upstream's FTVMParallelLambda signature
 *
 *   internal i32 closure(i32 task_id, TVMParallelGroupEnv* penv, ptr cdata)
 *     penv = { ptr sync_handle; i32 num_task }, cdata = a stack struct of every bound value
 *
 * which runs the static chunk [lo + task_id * chunk, min(lo + (task_id + 1) * chunk, hi)) of
 * the iterations. The caller launches it through the module's pointer variable
 *
 *   @__TVMBackendParallelLaunch = global ptr null   ; int (*)(FTVMParallelLambda, void*, int)
 *
 * which the loader fills at load time (TVMFFIEnvModRegisterContextSymbol: libtvmffi registers
 * its adapter over tvm_ffi_parallel_launch at init, as upstream TVM's runtime does) and the JIT
 * fills after adding the module. While it is NULL (a runtime that does not provide it) the
 * caller runs the closure itself as the single task 0 of 1: the loop runs serially, same code.
 * So exported libraries still reference TVMFFI* symbols only, and the JIT and export share
 * one path. A failed task's code is returned with its error raised on the caller's thread.
 */
#include <stdio.h>

#include "internal.h"

/* The module's launch variable, created on first use. */
static LLVMValueRef launch_variable(cg_state* s) {
  LLVMValueRef g = LLVMGetNamedGlobal(s->mod, CG_PARALLEL_LAUNCH_SYMBOL);
  if (!g) {
    g = LLVMAddGlobal(s->mod, s->ptr, CG_PARALLEL_LAUNCH_SYMBOL);
    LLVMSetInitializer(g, LLVMConstNull(s->ptr));
    LLVMSetAlignment(g, 8);
  }
  return g;
}

int tvm_codegen__parallel_for(cg_state* s, const tvm_tir_for_obj* n, LLVMValueRef lo,
                              LLVMValueRef ext) {
  LLVMTypeRef t = LLVMTypeOf(lo);
  int64_t nb = s->nbinds;
  LLVMTypeRef* ft = tvm_ffi_malloc(sizeof(LLVMTypeRef) * (size_t)(nb + 2));
  if (!ft) {
    s->failed = true;
    return -1;
  }
  ft[0] = t; /* lo */
  ft[1] = t; /* extent */
  for (int64_t i = 0; i < nb; ++i) ft[i + 2] = LLVMTypeOf(s->binds[i].value);
  LLVMTypeRef env_t = LLVMStructTypeInContext(s->ctx, ft, (unsigned)(nb + 2), 0);
  tvm_ffi_free(ft);
  LLVMTypeRef penv_fields[2] = {s->ptr, s->i32};
  LLVMTypeRef penv_t = LLVMStructTypeInContext(s->ctx, penv_fields, 2, 0);

  /* Caller side: fill the closure data, launch (or run task 0 of 1), propagate a failure. */
  LLVMValueRef env = tvm_codegen__entry_alloca(s, env_t, "par_env");
  LLVMBuildStore(s->b, lo, LLVMBuildStructGEP2(s->b, env_t, env, 0, ""));
  LLVMBuildStore(s->b, ext, LLVMBuildStructGEP2(s->b, env_t, env, 1, ""));
  for (int64_t i = 0; i < nb; ++i)
    LLVMBuildStore(s->b, s->binds[i].value,
                   LLVMBuildStructGEP2(s->b, env_t, env, (unsigned)(i + 2), ""));
  char name[600];
  snprintf(name, sizeof(name), "__tvm_codegen_%s_parallel_%d", s->fname, s->nclosures++);
  LLVMTypeRef cpt[3] = {s->i32, s->ptr, s->ptr};
  LLVMTypeRef closure_t = LLVMFunctionType(s->i32, cpt, 3, 0);
  LLVMValueRef closure = LLVMAddFunction(s->mod, name, closure_t);
  LLVMSetLinkage(closure, LLVMInternalLinkage);
  LLVMTypeRef lpt[3] = {s->ptr, s->ptr, s->i32};
  LLVMTypeRef launch_t = LLVMFunctionType(s->i32, lpt, 3, 0);
  LLVMValueRef launch = LLVMBuildLoad2(s->b, s->ptr, launch_variable(s), "launch");
  LLVMBasicBlockRef via = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "par_launch");
  LLVMBasicBlockRef alone = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "par_serial");
  LLVMBasicBlockRef joined = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "par_joined");
  LLVMBuildCondBr(s->b, LLVMBuildIsNotNull(s->b, launch, ""), via, alone);
  LLVMPositionBuilderAtEnd(s->b, via);
  LLVMValueRef largs[3] = {closure, env,
                           tvm_codegen__const_i32(s, 0)}; /* 0 tasks = the pool size */
  LLVMValueRef rc_launch = LLVMBuildCall2(s->b, launch_t, launch, largs, 3, "");
  LLVMBuildBr(s->b, joined);
  LLVMPositionBuilderAtEnd(s->b, alone);
  LLVMValueRef penv = tvm_codegen__entry_alloca(s, penv_t, "par_group");
  LLVMBuildStore(s->b, LLVMConstNull(s->ptr), LLVMBuildStructGEP2(s->b, penv_t, penv, 0, ""));
  LLVMBuildStore(s->b, tvm_codegen__const_i32(s, 1),
                 LLVMBuildStructGEP2(s->b, penv_t, penv, 1, ""));
  LLVMValueRef cargs[3] = {tvm_codegen__const_i32(s, 0), penv, env};
  LLVMValueRef rc_alone = LLVMBuildCall2(s->b, closure_t, closure, cargs, 3, "");
  LLVMBuildBr(s->b, joined);
  LLVMPositionBuilderAtEnd(s->b, joined);
  LLVMValueRef rc = LLVMBuildPhi(s->b, s->i32, "par_rc");
  LLVMAddIncoming(rc, (LLVMValueRef[]){rc_launch, rc_alone}, (LLVMBasicBlockRef[]){via, alone}, 2);
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "par_fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "par_ok");
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, rc, tvm_codegen__const_i32(s, 0), ""), ok,
                  fail);
  LLVMPositionBuilderAtEnd(s->b, fail);
  tvm_codegen__emit_ret(s, rc);
  LLVMPositionBuilderAtEnd(s->b, ok);
  LLVMBasicBlockRef resume = ok;

  /* Closure side: the same bindings, reloaded from the closure data; the caller's heap
   * allocations are not the closure's to release. */
  LLVMValueRef saved_fn = s->fn;
  LLVMBasicBlockRef saved_entry = s->entry;
  int64_t saved_base = s->alloc_base, saved_loop_base = s->loop_base;
  s->alloc_base = s->nallocs;
  s->loop_base = s->nloops; /* no jump leaves the closure */
  /* The closure is a function of its own, run on a pool thread: its own stack budget. */
  int64_t saved_stack[3] = {s->stack_slots, s->stack_dyn, s->stack_dyn_peak};
  s->stack_slots = s->stack_dyn = s->stack_dyn_peak = 0;
  s->fn = closure;
  s->entry = LLVMAppendBasicBlockInContext(s->ctx, closure, "entry");
  LLVMPositionBuilderAtEnd(s->b, s->entry);
  LLVMValueRef cenv = LLVMGetParam(closure, 2);
  LLVMValueRef clo = LLVMBuildLoad2(s->b, t, LLVMBuildStructGEP2(s->b, env_t, cenv, 0, ""), "");
  LLVMValueRef cext = LLVMBuildLoad2(s->b, t, LLVMBuildStructGEP2(s->b, env_t, cenv, 1, ""), "");
  /* Rebind in place (the outer values are not valid in this function), restored below. */
  LLVMValueRef* outer = tvm_ffi_malloc(sizeof(LLVMValueRef) * (size_t)(nb + 1));
  if (!outer) {
    s->failed = true;
    return -1;
  }
  for (int64_t i = 0; i < nb; ++i) {
    outer[i] = s->binds[i].value;
    s->binds[i].value =
        LLVMBuildLoad2(s->b, LLVMTypeOf(outer[i]),
                       LLVMBuildStructGEP2(s->b, env_t, cenv, (unsigned)(i + 2), ""), "");
  }
  /* chunk = ceil(extent / num_task); [begin, end) clipped to the extent. */
  LLVMValueRef tid = LLVMBuildIntCast2(s->b, LLVMGetParam(closure, 0), t, 1, "");
  LLVMValueRef num_task = LLVMBuildLoad2(
      s->b, s->i32, LLVMBuildStructGEP2(s->b, penv_t, LLVMGetParam(closure, 1), 1, ""), "");
  LLVMValueRef nt = LLVMBuildIntCast2(s->b, num_task, t, 1, "");
  LLVMValueRef one = LLVMConstInt(t, 1, 0);
  LLVMValueRef chunk =
      LLVMBuildSDiv(s->b, LLVMBuildSub(s->b, LLVMBuildAdd(s->b, cext, nt, ""), one, ""), nt, "");
  LLVMValueRef b0 = LLVMBuildMul(s->b, tid, chunk, "");
  LLVMValueRef e0 = LLVMBuildAdd(s->b, b0, chunk, "");
  e0 = LLVMBuildSelect(s->b, LLVMBuildICmp(s->b, LLVMIntSLT, e0, cext, ""), e0, cext, "");
  LLVMValueRef begin = LLVMBuildAdd(s->b, clo, b0, "");
  LLVMValueRef end = LLVMBuildAdd(s->b, clo, e0, "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(s->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(s->ctx, closure, "pfor_head");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(s->ctx, closure, "pfor_body");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(s->ctx, closure, "pfor_end");
  LLVMBuildBr(s->b, head);
  LLVMPositionBuilderAtEnd(s->b, head);
  LLVMValueRef i = LLVMBuildPhi(s->b, t, tvm_tir_var_name(n->loop_var));
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntSLT, i, end, ""), body, done);
  LLVMPositionBuilderAtEnd(s->b, body);
  int rc_body = tvm_codegen__bind(s, n->loop_var, i) == 0 ? tvm_codegen__stmt(s, n->body) : -1;
  s->nbinds = nb;
  for (int64_t k = 0; k < nb; ++k) s->binds[k].value = outer[k];
  tvm_ffi_free(outer);
  s->stack_slots = saved_stack[0];
  s->stack_dyn = saved_stack[1];
  s->stack_dyn_peak = saved_stack[2];
  if (rc_body != 0) return -1;
  LLVMValueRef next = LLVMBuildAdd(s->b, i, one, "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(s->b);
  tvm_codegen__loop_metadata(s, LLVMBuildBr(s->b, head), true, tvm_codegen__unroll_hint(n));
  LLVMAddIncoming(i, (LLVMValueRef[]){begin, next}, (LLVMBasicBlockRef[]){pre, latch}, 2);
  LLVMPositionBuilderAtEnd(s->b, done);
  LLVMBuildRet(s->b, tvm_codegen__const_i32(s, 0));
  s->fn = saved_fn;
  s->entry = saved_entry;
  s->alloc_base = saved_base;
  s->loop_base = saved_loop_base;
  LLVMPositionBuilderAtEnd(s->b, resume);
  return 0;
}

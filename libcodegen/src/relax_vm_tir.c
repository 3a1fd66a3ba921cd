/*
 * relax_vm_tir.c: exec_mode="compiled" (upstream's VMTIRCodeGen, codegen_vm_tir.cc): a Relax
 * function becomes the TIR PrimFunc
 *
 *   __vmtir__<name>(ctx: handle, r: handle, c: handle, f: handle)
 *
 * called by the VM (libvm vm.c, vmtir_closure_call) with the VM context, the function's
 * register file (arguments in registers 0..num_args-1, the result left in register num_args),
 * the constant pool and the function pool. It is made from the instructions VMCodeGen recorded
 * for the function, so both modes share every lowering decision:
 *
 *   - a Call of a packed function (an ffi.Function in the pool) gathers its arguments from the
 *     registers, immediates, constants and functions into a stack array of TVMFFIAny, calls
 *     TVMFFIFunctionCall on the Function and hands the return code and result to
 *     tvm_vm_tir_result (libvm vmtir_abi.c: error context, view ownership, the store into the
 *     destination register releasing the old value);
 *   - a Call of a VM function (a Relax function, compiled or not) stores its argument words
 *     (kind and value, as in the bytecode) into a stack array and calls
 *     tvm_vm_tir_call(ctx, r, fidx, dst, func, words, nargs), which calls the function table
 *     entry as the interpreter does;
 *   - a failed call returns from the PrimFunc (tir.tvm_throw_last_error: the error stays
 *     raised);
 *   - an If (VMCodeGen's pattern: If cond -> else; then...; Goto end; else...; end) becomes a
 *     TIR IfThenElse on tvm_vm_tir_cond(ctx, r, fidx, cond);
 *   - the Ret copies its register into register num_args (tvm_vm_tir_ret).
 *
 * The body is made twice, the second calling every callee through tvm_vm_tir_call (which
 * honours the VM's instrument), chosen on entry by tvm_vm_tir_instrumented. The PrimFunc is
 * compiled by LLVM with the kernels (marked tir.is_scheduled: the default schedule leaves it
 * alone; over TVM_CODEGEN_VM_TIR_OPT_MAX_CALLS calls also tir.optnone), so the VM runs the
 * function by one native call, without fetching or dispatching instructions. Upstream passes
 * the arguments through AnyList intrinsics (anylist_getitem, anylist_setitem_call_packed);
 * here they are plain int64 words of buffers over the register file and pools, which the
 * existing code generator compiles without new intrinsics.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>
#include <tvm/tir/schedule.h>
#include <tvm/vm/bytecode.h>

#include "relax_vm_tir.h"

/* Above this many calls a function's body is compiled without optimization. */
#define TVM_CODEGEN_VM_TIR_OPT_MAX_CALLS 1000

typedef struct {
  const tvm_codegen__vm_rec* recs;
  const int64_t* words;
  int64_t fidx, num_args, n;
  const bool* packed; /* packed[func]: a packed function (an ffi.Function in the pool) */
  int64_t num_funcs;
  tvm_tir_var_obj* ctx;
  tvm_tir_buffer_obj *R, *C, *F; /* register file, constants, function pool as int64 words */
  tvm_tir_buffer_obj* W;         /* argument words for tvm_vm_tir_call */
  tvm_tir_buffer_obj* A;         /* the TVMFFIAny arguments of a direct call, 2 words each */
  tvm_tir_buffer_obj* Res;       /* its result */
  bool unsupported;
} tir_ctx;

static void* i64v(int64_t v) { return tvm_tir_i64(v); }
static void* ld(tvm_tir_buffer_obj* b, void* idx) { return tvm_tir_load_take(tvm_tir_ref(b), idx); }
static void* st(tvm_tir_buffer_obj* b, void* idx, void* v) {
  return tvm_tir_store_take(tvm_tir_ref(b), v, idx);
}
static void* extern_call(const char* name, int64_t n, void* const* args) {
  void* a[12];
  a[0] = tvm_tir_str(name);
  for (int64_t i = 0; i < n; ++i) a[i + 1] = args[i];
  return tvm_tir_call_takev(TVM_TIR_INT32, "tir.call_extern", n + 1, a);
}
#define EXTERN(name, ...) extern_call(name, TVM_TIR_NARGS(__VA_ARGS__), (void* const[]){__VA_ARGS__})
static void* as_handle(void* v) { return tvm_tir_call_take(TVM_TIR_HANDLE, "tir.reinterpret", v); }
static void* as_i64(void* v) { return tvm_tir_call_take(TVM_TIR_INT64, "tir.reinterpret", v); }

static void* throw_if(void* failed) {
  void* thr = tvm_tir_call_takev(TVM_TIR_INT32, "tir.tvm_throw_last_error", 0, NULL);
  return tvm_tir_if_take(failed, tvm_tir_evaluate_take(thr), NULL);
}

/* Through tvm_vm_tir_call: any callee, the instrument honoured. */
static void* generic_call(tir_ctx* t, const tvm_codegen__vm_rec* rc) {
  void** s = tvm_ffi_calloc((size_t)rc->nargs + 1, sizeof(void*));
  if (!s) return NULL;
  for (int32_t i = 0; i < rc->nargs; ++i) s[i] = st(t->W, i64v(i), i64v(t->words[rc->args_at + i]));
  void* call = EXTERN("tvm_vm_tir_call", tvm_tir_ref(t->ctx), tvm_tir_ref(t->R->data), i64v(t->fidx),
                      i64v(rc->dst), i64v(rc->func), tvm_tir_ref(t->W->data), tvm_tir_int(rc->nargs));
  s[rc->nargs] = throw_if(tvm_tir_ne_take(call, tvm_tir_int(0)));
  void* out = tvm_tir_seq_takev(rc->nargs + 1, s);
  tvm_ffi_free(s);
  return out;
}

/* A packed callee called in place: its arguments gathered into A, TVMFFIFunctionCall on the
 * Function in the pool, the result stored into the destination register and the old value
 * released (TVMFFIObjectDecRef), as the interpreter's packed Call does. */
static void* direct_call(tir_ctx* t, const tvm_codegen__vm_rec* rc) {
  int64_t cap = 2 * (int64_t)rc->nargs + 8, n = 0;
  void** s = tvm_ffi_calloc((size_t)cap, sizeof(void*));
  if (!s) return NULL;
  for (int32_t i = 0; i < rc->nargs; ++i) {
    int64_t w = t->words[rc->args_at + i], v = tvm_vm_arg_value(w);
    void *w0, *w1;
    switch (tvm_vm_arg_kind_of(w)) {
      case TVM_VM_ARG_REGISTER:
        if (v == TVM_VM_REG_VM) {
          w0 = i64v(kTVMFFIOpaquePtr), w1 = as_i64(tvm_tir_ref(t->ctx));
        } else if (v == TVM_VM_REG_VOID) {
          w0 = i64v(kTVMFFINone), w1 = i64v(0);
        } else {
          w0 = ld(t->R, i64v(2 * v)), w1 = ld(t->R, i64v(2 * v + 1));
        }
        break;
      case TVM_VM_ARG_IMMEDIATE: w0 = i64v(kTVMFFIInt), w1 = i64v(v); break;
      case TVM_VM_ARG_CONST_IDX: w0 = ld(t->C, i64v(2 * v)), w1 = ld(t->C, i64v(2 * v + 1)); break;
      default: w0 = ld(t->F, i64v(2 * v)), w1 = ld(t->F, i64v(2 * v + 1)); break;
    }
    s[n++] = st(t->A, i64v(2 * i), w0);
    s[n++] = st(t->A, i64v(2 * i + 1), w1);
  }
  s[n++] = st(t->Res, i64v(0), i64v(kTVMFFINone));
  s[n++] = st(t->Res, i64v(1), i64v(0));
  void* call = EXTERN("TVMFFIFunctionCall", as_handle(ld(t->F, i64v(2 * rc->func + 1))),
                      tvm_tir_ref(t->A->data), tvm_tir_int(rc->nargs), tvm_tir_ref(t->Res->data));
  void* result = EXTERN("tvm_vm_tir_result", tvm_tir_ref(t->ctx), tvm_tir_ref(t->R->data),
                        i64v(t->fidx), i64v(rc->dst), i64v(rc->func), call,
                        tvm_tir_ref(t->Res->data));
  s[n++] = throw_if(tvm_tir_ne_take(result, tvm_tir_int(0)));
  void* out = tvm_tir_seq_takev(n, s);
  tvm_ffi_free(s);
  return out;
}

/* A Call: a packed callee called in place, unless `generic` (the VM has an instrument) or the
 * callee is a VM function. */
static void* call_stmt(tir_ctx* t, const tvm_codegen__vm_rec* rc, bool generic) {
  bool packed = rc->func >= 0 && rc->func < t->num_funcs && t->packed[rc->func];
  return packed && !generic ? direct_call(t, rc) : generic_call(t, rc);
}

/* Records [lo, hi) as one statement (generic: every call through tvm_vm_tir_call); NULL with
 * t->unsupported set (nothing raised) for records not in VMCodeGen's shape. */
static void* region(tir_ctx* t, int64_t lo, int64_t hi, int depth, bool generic) {
  int64_t cap = 16, n = 0;
  void** st = tvm_ffi_malloc((size_t)cap * sizeof(void*));
  if (!st) return NULL;
  bool ok = true;
  for (int64_t i = lo; ok && i < hi;) {
    const tvm_codegen__vm_rec* rc = &t->recs[i];
    void* s = NULL;
    if (rc->op == TVM_VM_OP_Call) {
      s = call_stmt(t, rc, generic);
      ++i;
    } else if (rc->op == TVM_VM_OP_Ret && i == t->n - 1 && depth == 0) {
      s = tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern",
                                                  tvm_tir_str("tvm_vm_tir_ret"), tvm_tir_ref(t->R->data),
                                                  tvm_tir_i64(rc->dst), tvm_tir_i64(t->num_args)));
      ++i;
    } else if (rc->op == TVM_VM_OP_If && depth < 200) {
      int64_t els = rc->target, go = els - 1;
      const tvm_codegen__vm_rec* g = go > i && go < hi ? &t->recs[go] : NULL;
      if (!g || g->op != TVM_VM_OP_Goto || g->target < els || g->target > hi) {
        t->unsupported = true;
        ok = false;
        break;
      }
      void* then_s = region(t, i + 1, go, depth + 1, generic);
      void* else_s = then_s ? region(t, els, g->target, depth + 1, generic) : NULL;
      if (!else_s) {
        tvm_ffi_release(then_s);
        ok = false;
        break;
      }
      tvm_tir_var_obj* cv = tvm_tir_var("cond", TVM_TIR_INT32);
      void* cond = tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("tvm_vm_tir_cond"),
                                     tvm_tir_ref(t->ctx), tvm_tir_ref(t->R->data), tvm_tir_i64(t->fidx),
                                     tvm_tir_i64(rc->dst));
      void* body = tvm_tir_seq_take(throw_if(tvm_tir_lt_take(tvm_tir_ref(cv), tvm_tir_int(0))),
                                    tvm_tir_if_take(tvm_tir_ne_take(tvm_tir_ref(cv), tvm_tir_int(0)),
                                                    then_s, else_s));
      s = tvm_tir_let_stmt_take(cv, cond, body);
      i = g->target;
    } else {
      t->unsupported = true;
      ok = false;
      break;
    }
    if (!s) {
      ok = false;
      break;
    }
    if (n == cap) {
      void** ns = tvm_ffi_realloc(st, (size_t)(cap *= 2) * sizeof(void*));
      if (!ns) {
        tvm_ffi_release(s);
        ok = false;
        break;
      }
      st = ns;
    }
    st[n++] = s;
  }
  void* out = NULL;
  if (ok) {
    out = tvm_tir_seq_takev(n, st);
  } else {
    for (int64_t k = 0; k < n; ++k) tvm_ffi_release(st[k]);
  }
  tvm_ffi_free(st);
  return out;
}

static tvm_tir_buffer_obj* words_buf(const char* name, int64_t n, const char* scope) {
  return tvm_tir_buffer_decl_takev(name, TVM_TIR_INT64, 1, (void* const[]){i64v(n)}, scope);
}

tvm_tir_prim_func_obj* tvm_codegen__vm_tir_func(const char* name, int64_t fidx, int64_t num_args,
                                                const tvm_codegen__vm_rec* recs, int64_t n,
                                                const int64_t* words, const bool* packed,
                                                int64_t num_funcs, int64_t num_regs,
                                                bool* unsupported) {
  *unsupported = false;
  if (n == 0 || recs[n - 1].op != TVM_VM_OP_Ret) {
    *unsupported = true;
    return NULL;
  }
  int32_t max_args = 1;
  int64_t num_consts = 1, n_calls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (recs[i].op != TVM_VM_OP_Call) continue;
    n_calls++;
    if (recs[i].nargs > max_args) max_args = recs[i].nargs;
    for (int32_t a = 0; a < recs[i].nargs; ++a) {
      int64_t w = words[recs[i].args_at + a];
      if (tvm_vm_arg_kind_of(w) == TVM_VM_ARG_CONST_IDX && tvm_vm_arg_value(w) >= num_consts)
        num_consts = tvm_vm_arg_value(w) + 1;
    }
  }
  tir_ctx t;
  memset(&t, 0, sizeof(t));
  t.recs = recs, t.words = words, t.fidx = fidx, t.num_args = num_args, t.n = n;
  t.packed = packed, t.num_funcs = num_funcs;
  t.ctx = tvm_tir_var("ctx", TVM_TIR_HANDLE);
  t.R = words_buf("r", 2 * num_regs, NULL);
  t.C = words_buf("c", 2 * num_consts, NULL);
  t.F = words_buf("f", 2 * num_funcs, NULL);
  t.W = words_buf("vm_words", max_args, "local");
  t.A = words_buf("vm_args", 2 * (int64_t)max_args, "local");
  t.Res = words_buf("vm_result", 2, "local");
  bool ok = t.ctx && t.R && t.C && t.F && t.W && t.A && t.Res;
  /* The body twice: calling packed functions in place, and through tvm_vm_tir_call when the
   * VM has an instrument (one test on entry rather than one per call). */
  void* direct = ok ? region(&t, 0, n, 0, false) : NULL;
  void* generic = direct ? region(&t, 0, n, 0, true) : NULL;
  void* body = generic ? tvm_tir_if_take(tvm_tir_ne_take(EXTERN("tvm_vm_tir_instrumented", tvm_tir_ref(t.ctx)),
                                                         tvm_tir_int(0)),
                                         generic, direct)
                       : (tvm_ffi_release(direct), NULL);
  tvm_tir_prim_func_obj* out = NULL;
  if (body) {
    /* Every buffer declared (DeclBuffer), the local ones allocated on the stack. */
    tvm_tir_buffer_obj* bufs[6] = {t.W, t.A, t.Res, t.R, t.C, t.F};
    for (int k = 0; k < 6; ++k) {
      body = tvm_tir_decl_buffer_take(tvm_tir_ref(bufs[k]), body);
      if (k < 3) {
        body = tvm_tir_allocate_takev(tvm_tir_ref(bufs[k]->data), TVM_TIR_INT64, 1,
                                      (void* const[]){tvm_tir_ref(tvm_tir_array_at(bufs[k]->shape, 0))},
                                      body);
      }
    }
    char sym[512];
    snprintf(sym, sizeof(sym), "__vmtir__%s", name);
    void* params = tvm_tir_list_take(tvm_tir_ref(t.ctx), tvm_tir_ref(t.R->data),
                                     tvm_tir_ref(t.C->data), tvm_tir_ref(t.F->data));
    tvm_tir_prim_func_obj* fn = tvm_tir_func_take(sym, params, body);
    TVMFFIAny yes = tvm_ffi_any_bool(true);
    tvm_tir_prim_func_obj* marked = fn ? tvm_tir_prim_func_with_attr(fn, "tir.is_scheduled", &yes) : NULL;
    /* the VM runs on the host, in a CUDA build too */
    tvm_tir_prim_func_obj* sched =
        marked ? tvm_tir_prim_func_with_attr(marked, TVM_TIR_ATTR_IS_HOST_FUNC, &yes) : NULL;
    tvm_ffi_release(marked);
    /* A body of many calls is compiled without LLVM's optimizations (tir.optnone): GVN's
     * memory dependence queries over thousands of calls grow faster than the body. */
    if (sched && n_calls > TVM_CODEGEN_VM_TIR_OPT_MAX_CALLS) {
      out = tvm_tir_prim_func_with_attr(sched, "tir.optnone", &yes);
    } else {
      out = sched;
      tvm_ffi_retain(out);
    }
    tvm_ffi_release(fn);
    tvm_ffi_release(sched);
  }
  *unsupported = t.unsupported;
  void* objs[] = {t.ctx, t.R, t.C, t.F, t.W, t.A, t.Res};
  for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); ++k) tvm_ffi_release(objs[k]);
  return out;
}

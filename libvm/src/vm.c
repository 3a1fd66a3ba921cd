/*
 * vm.c: the VM state, its initialisation (devices, constants, function pool, prepared code),
 * the frame and register stacks, and the dispatch loop.
 *
 * Prepared code. At initialisation the verified instr_data is copied into vm->code with
 * everything the loop would otherwise look up resolved once:
 *   Call [handler, dst, callee*, num_args, arg...]  callee* points at vm->callees[func_idx];
 *        registers are byte offsets into the register file (%void is -1); an argument is such
 *        an offset (>= 0) or ~pointer to a TVMFFIAny that lives as long as the VM (a constant,
 *        an immediate, a function pool entry, None for %void, the context for %vm)
 *   Ret  [handler, result]   Goto [handler, word delta]   If [handler, cond, false word delta]
 * The handler word selects a specialised Call handler (see the prepared opcodes below). The
 * loop trusts the code: the verifier proved registers, targets and arities valid.
 *
 * Calls. A call of a bytecode function pushes a frame (vm->frames, allocated for max_depth
 * frames up front so that it never moves) and a register file on the register stack (chunks
 * reused for the VM's lifetime) and continues in the same loop: recursion costs no C stack.
 * Packed functions are called through their cell's safe_call with the arguments gathered (as
 * views) into the scratch array of the current nesting level, or passed in place when they
 * are consecutive registers; the result goes straight into the destination register, whose
 * old value is not even looked at when the verifier proved no path wrote it before (a fresh
 * destination: the common case, as compilers give every binding its own register). Plain
 * values move without reference counting: a result below kTVMFFIRawStr (no view to own, no
 * object) into a register that held no object costs one test, a call fused with the If that
 * tests its result branches at once on an int or bool, and arguments copied into a new frame
 * are retained in a second pass only when one of them is an object. Everything else (errors,
 * views, objects, other conditions) takes the general path, with the same checks.
 * Closures (vm_tir functions, and every call while an instrument is set) get the VM context
 * prepended. A native function that calls back into the VM nests a new loop; nesting is
 * capped (max_nest), as is the depth (max_depth).
 */
#include <string.h>

#include "internal.h"

static int32_t g_state_type = -1;
int32_t tvm_vm__state_type_index(void) { return g_state_type; }

static const TVMFFIAny k_none = {0};

/* ---- State lifetime ---------------------------------------------------------------------- */
static void release_array(TVMFFIAny* a, int64_t n) {
  if (!a) return;
  for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&a[i]);
  tvm_ffi_free(a);
}

static void state_destroy(void* self) {
  tvm_vm_state* vm = (tvm_vm_state*)self;
  int64_t nf = vm->exec ? vm->exec->num_funcs : 0;
  release_array(vm->consts, vm->exec ? vm->exec->num_consts : 0);
  release_array(vm->func_pool, nf);
  release_array(vm->inputs, nf);
  release_array(vm->outputs, nf);
  tvm_ffi_release(vm->saved);
  tvm_ffi_release(vm->instrument);
  for (int32_t i = 0; i < vm->num_devices; ++i) tvm_ffi_release(vm->allocators[i]);
  tvm_ffi_free(vm->allocators);
  tvm_ffi_free(vm->devices);
  tvm_ffi_free(vm->callees);
  tvm_ffi_free(vm->code);
  tvm_ffi_free(vm->imms);
  tvm_ffi_free(vm->frames);
  for (int32_t i = 0; i < vm->num_chunks; ++i) tvm_ffi_free(vm->chunks[i].base);
  tvm_ffi_free(vm->chunks);
  for (int32_t i = 0; i < vm->scratch_levels; ++i) tvm_ffi_free(vm->scratch[i]);
  tvm_ffi_free(vm->scratch);
  tvm_ffi_release(vm->exec);
}

int tvm_vm__register_state_type(void);
int tvm_vm__register_state_type(void) {
  g_state_type = tvm_ffi_type_register("vm.VirtualMachineState", kTVMFFIObject, -1,
                                       sizeof(tvm_vm_state), state_destroy,
                                       kTVMFFISEqHashKindUniqueInstance);
  return g_state_type < 0 ? -1 : 0;
}

tvm_vm_state* tvm_vm__state_new(tvm_vm_executable* exec);
tvm_vm_state* tvm_vm__state_new(tvm_vm_executable* exec) {
  tvm_vm_state* vm = (tvm_vm_state*)tvm_ffi_object_new(g_state_type, sizeof(tvm_vm_state));
  if (!vm) return NULL;
  vm->magic = TVM_VM_STATE_MAGIC;
  tvm_ffi_retain(exec);
  vm->exec = exec;
  vm->max_depth = TVM_VM_DEFAULT_MAX_DEPTH;
  vm->max_nest = TVM_VM_DEFAULT_MAX_NESTING;
  vm->self_any = tvm_ffi_any_ptr(vm);
  return vm;
}

tvm_vm_state* tvm_vm__state_from_arg(const char* fname, const TVMFFIAny* arg) {
  tvm_vm_state* vm = arg->type_index == kTVMFFIOpaquePtr ? (tvm_vm_state*)arg->v_ptr : NULL;
  if (!vm || vm->header.type_index != g_state_type || vm->magic != TVM_VM_STATE_MAGIC) {
    tvm_ffi_raise("TypeError", "%s: expected the VM context (the %%vm register) but got %s", fname,
                  tvm_ffi_any_type_name(arg));
    return NULL;
  }
  return vm;
}

int tvm_vm__check_initialized(tvm_vm_state* vm) {
  if (TVM_VM_LIKELY(vm->initialized)) return 0;
  return tvm_ffi_raise("RuntimeError",
                       "the VM is not initialised: call vm_initialization(device_type, "
                       "device_id, allocator_type, ...) first");
}

/* ---- Register stack and frames -----------------------------------------------------------
 * Registers come from chunks that are reused for the VM's lifetime. Invariant: no slot above
 * the top of the stack holds an object (slots hold None or stale plain values), so freeing a
 * register file only has to release and clear its object slots, and a register file needs
 * initialising to None only when its function may read a register before writing it
 * (tvm_vm_func_info.needs_init, from the verifier's definite-assignment analysis). */
#define FIRST_CHUNK_REGS 4096

/* Move to a chunk that can hold n registers (the current one is too full); returns its base. */
static TVM_VM_COLD TVMFFIAny* regs_next_chunk(tvm_vm_state* vm, int64_t n) {
  int32_t next = vm->cur_chunk + 1;
  if (next < vm->num_chunks && vm->chunks[next].cap < (size_t)n) {
    tvm_ffi_free(vm->chunks[next].base); /* unused above the current chunk: replace it */
    vm->chunks[next].base = NULL;
  }
  if (next == vm->num_chunks) {
    tvm_vm_reg_chunk* c = (tvm_vm_reg_chunk*)tvm_ffi_realloc(
        vm->chunks, (size_t)(vm->num_chunks + 1) * sizeof(tvm_vm_reg_chunk));
    if (!c) return NULL;
    vm->chunks = c;
    c[vm->num_chunks].base = NULL;
    c[vm->num_chunks].cap = 0;
    vm->num_chunks++;
  }
  tvm_vm_reg_chunk* c = &vm->chunks[next];
  if (!c->base) {
    size_t cap = vm->chunks[vm->cur_chunk].cap * 2;
    if (cap < (size_t)n) cap = (size_t)n;
    c->base = (TVMFFIAny*)tvm_ffi_calloc(cap, sizeof(TVMFFIAny));
    if (!c->base) return NULL;
    c->cap = cap;
  }
  vm->cur_chunk = next;
  vm->limit = c->base + c->cap;
  return c->base;
}

/* Back to the previous chunk, when the frame that started the current one returns. */
static TVM_VM_COLD void regs_prev_chunk(tvm_vm_state* vm) {
  tvm_vm_reg_chunk* c = &vm->chunks[--vm->cur_chunk];
  vm->limit = c->base + c->cap;
}

/* Release the objects in n registers, leaving None in their slots. */
static void regs_release(TVMFFIAny* regs, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (regs[i].type_index >= kTVMFFIStaticObjectBegin) {
      void* obj = regs[i].v_obj;
      memset(&regs[i], 0, sizeof(TVMFFIAny));
      tvm_ffi_release(obj);
    }
  }
}

/* New references to the objects in n registers. */
static TVM_VM_COLD void regs_retain(const TVMFFIAny* regs, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (regs[i].type_index >= kTVMFFIStaticObjectBegin) tvm_ffi_retain(regs[i].v_obj);
  }
}

/* The frame array holds max_depth frames (allocated, not touched, at initialisation), so frame
 * pointers stay valid while the VM runs. */
static TVM_VM_COLD int depth_error(tvm_vm_state* vm, const tvm_vm_callee* callee) {
  return tvm_ffi_raise("RecursionError", "maximum VM call depth (%lld) exceeded calling `%s`",
                       (long long)vm->max_depth, vm->exec->funcs[callee->index].name.data);
}

int tvm_vm__resize_frames(tvm_vm_state* vm, int64_t max_depth) {
  if (max_depth > vm->frames_alloc) {
    if (vm->depth > 0) {
      return tvm_ffi_raise("ValueError",
                           "the call depth limit can grow past %lld only while the VM is idle",
                           (long long)vm->frames_alloc);
    }
    tvm_vm_frame* f =
        (tvm_vm_frame*)tvm_ffi_realloc(vm->frames, (size_t)max_depth * sizeof(tvm_vm_frame));
    if (!f) return -1;
    vm->frames = f;
    vm->frames_alloc = max_depth;
  }
  vm->max_depth = max_depth;
  vm->frames_end = vm->frames + max_depth;
  return 0;
}

/* Push a frame (outside the loop: entries and vm_tir calls) for callee with its register file
 * (holding no objects); NULL with an error raised on failure. */
static tvm_vm_frame* frame_push(tvm_vm_state* vm, const tvm_vm_callee* callee) {
  if (TVM_VM_UNLIKELY(vm->depth >= vm->max_depth)) {
    depth_error(vm, callee);
    return NULL;
  }
  TVMFFIAny* top = vm->chunks[0].base;
  if (vm->depth > 0) {
    const tvm_vm_frame* cur = &vm->frames[vm->depth - 1];
    top = cur->regs + cur->func->nregs;
  }
  tvm_vm_frame* fr = &vm->frames[vm->depth];
  fr->flags = 0;
  if (vm->limit - top < callee->nregs) {
    if (!(top = regs_next_chunk(vm, callee->nregs))) return NULL;
    fr->flags = TVM_VM_FRAME_NEW_CHUNK;
  }
  fr->ret_ip = NULL;
  fr->dst = NULL;
  fr->regs = top;
  fr->func = callee;
  vm->depth++;
  return fr;
}

/* Pop the innermost frame, releasing its registers. */
static void frame_pop(tvm_vm_state* vm) {
  tvm_vm_frame* fr = &vm->frames[--vm->depth];
  regs_release(fr->regs, fr->func->nregs);
  if (fr->flags & TVM_VM_FRAME_NEW_CHUNK) regs_prev_chunk(vm);
}

/* Scratch argument array of nesting level `level` (max_call_args + 4 instrument slots + 1
 * context slot). */
static TVMFFIAny* scratch_for(tvm_vm_state* vm, int32_t level) {
  if (level >= vm->scratch_levels) {
    int32_t n = level + 1;
    TVMFFIAny** s = (TVMFFIAny**)tvm_ffi_realloc(vm->scratch, (size_t)n * sizeof(TVMFFIAny*));
    if (!s) return NULL;
    for (int32_t i = vm->scratch_levels; i < n; ++i) s[i] = NULL;
    vm->scratch = s;
    vm->scratch_levels = n;
  }
  if (!vm->scratch[level]) {
    vm->scratch[level] =
        (TVMFFIAny*)tvm_ffi_calloc((size_t)vm->exec->max_call_args + 5, sizeof(TVMFFIAny));
  }
  return vm->scratch[level];
}

/* ---- Errors ------------------------------------------------------------------------------ */
#define MAX_ANNOTATED_FRAMES 32

/* Append "at VM function <f>, instruction <i>: <text>" for one frame to the trace in b. */
static void trace_frame(tvm_vm_state* vm, const tvm_vm_callee* func, const int64_t* ip,
                        tvm_ffi_strbuf* b) {
  const tvm_vm_executable* e = vm->exec;
  int64_t instr = tvm_vm__instr_at_word(e, ip - vm->code);
  const tvm_vm_func_info* f = &e->funcs[func->index];
  tvm_ffi_strbuf_printf(b, "  at VM function %s, instruction %lld: ", f->name.data,
                        (long long)(instr - f->start_instr));
  tvm_vm__format_instr(e, instr, b);
  tvm_ffi_strbuf_putc(b, '\n');
}

/* Append the VM trace to the raised error's backtrace (raising a RuntimeError if a callee
 * failed without raising anything). */
static void attach_trace(tvm_ffi_strbuf* b) {
  void* err = tvm_ffi_error_take();
  if (!err) {
    tvm_ffi_raise("RuntimeError", "a function called by the VM failed without raising an error");
    err = tvm_ffi_error_take();
    if (!err) return;
  }
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  if (cell->update_backtrace && !b->failed && b->size) {
    TVMFFIByteArray bt = {b->data, b->size};
    cell->update_backtrace(err, &bt, kTVMFFIBacktraceUpdateModeAppend);
  }
  TVMFFIErrorSetRaised(err);
  tvm_ffi_release(err);
}

/* ---- The dispatch loop -------------------------------------------------------------------
 * Prepared opcodes. Ret, Goto and If keep one handler each. Call is split by the kind of
 * callee (resolved once at initialisation) so the loop never tests it: closures
 * (CallClosure), bytecode functions (CallBytecode; CallBytecode1 for one argument) and packed
 * functions, whose variants specialise the gather of the arguments, the destination, and fuse
 * the call with the instruction after it.
 *
 * VM_OP / VM_DISPATCH make the loop a computed goto with direct threading (GCC/Clang: the
 * opcode word holds the handler's address) or a switch (-DTVM_VM_USE_SWITCH). */
/* M(group, shape, nargs, direct) lists the packed call variants, variant group * 7 + shape.
 * Shapes: 0..3 arguments (the gather unrolled), any count (nargs -1), direct 1: arguments
 * that are consecutive registers (none of them the destination) passed in place, without a
 * copy, and direct 2: a register then a value that lives as long as the VM (`x op constant`,
 * gathered without testing which is which). Groups: what the following instruction does with
 * the result when the call is fused with it (VM_GROUP_NEXT: 0 nothing, 1 If tests it, 2 Ret
 * returns it), and whether the destination is fresh (VM_GROUP_FRESH: no path to the call
 * wrote it, so it holds no object and its old value needs no release; tvm_vm__fresh_dst). */
#define VM_PACKED_SHAPES(M, group) \
  M(group, 0, 0, 0)                \
  M(group, 1, 1, 0)                \
  M(group, 2, 2, 0)                \
  M(group, 3, 3, 0)                \
  M(group, 4, -1, 0)               \
  M(group, 5, -1, 1)                \
  M(group, 6, 2, 2)
#define VM_PACKED_VARIANTS(M) \
  VM_PACKED_SHAPES(M, 0)      \
  VM_PACKED_SHAPES(M, 1)      \
  VM_PACKED_SHAPES(M, 2)      \
  VM_PACKED_SHAPES(M, 3)      \
  VM_PACKED_SHAPES(M, 4)
#define VM_GROUP_NEXT(group) ((group) / 2)
#define VM_GROUP_FRESH(group) ((group) & 1) /* group 4 (Ret) writes the caller's register */
#define VM_PACKED_VARIANT(group, shape) ((group) * 7 + (shape))

enum {
  VM_OP_Ret = 1,
  VM_OP_Goto,
  VM_OP_If,
  VM_OP_CallClosure,
  VM_OP_CallBytecode,
  VM_OP_CallBytecode1, /* exactly one argument */
  VM_OP_CallPacked, /* + variant */
  VM_NUM_OPS = VM_OP_CallPacked + VM_PACKED_VARIANT(5, 0)
};

#if defined(__GNUC__) && !defined(TVM_VM_USE_SWITCH)
#define VM_COMPUTED_GOTO 1
#define VM_DISPATCH() goto*(const void*)(uintptr_t)*ip
#define VM_OP_AT(label, value) L_##label:
#define VM_LOOP_BEGIN VM_DISPATCH();
#define VM_LOOP_END
#else
#define VM_COMPUTED_GOTO 0
#define VM_DISPATCH() continue
#define VM_OP_AT(label, value) case (value):
#define VM_LOOP_BEGIN \
  for (;;) {          \
    switch (*ip) {
#define VM_LOOP_END          \
  default:                   \
    __builtin_unreachable(); \
    }                        \
    }
#endif
#define VM_OP(name) VM_OP_AT(name, VM_OP_##name)

/* In prepared code the opcode word holds the handler's address (computed goto: direct
 * threading) or the opcode (switch). */
#if VM_COMPUTED_GOTO
static const void* const* g_handlers; /* set (atomically, always to the same table) by run_loop */
#define VM_ENCODE_OP(op) \
  ((int64_t)(uintptr_t)__atomic_load_n(&g_handlers, __ATOMIC_ACQUIRE)[op])
#else
#define VM_ENCODE_OP(op) ((int64_t)(op))
#endif

/* Registers in prepared code are byte offsets into the register file (%void is -1). An
 * argument word is such an offset (>= 0) or ~pointer to a value that lives as long as the VM. */
#define VM_NO_REG INT64_C(-1)
#define VM_REG(regs, off) ((TVMFFIAny*)((char*)(regs) + (off)))
#define VM_ARG(regs, w) \
  ((w) >= 0 ? (const TVMFFIAny*)((const char*)(regs) + (w)) : (const TVMFFIAny*)(uintptr_t)~(w))

/*
 * Values move through the loop as two 8-byte words. Callees write results with 8-byte
 * stores; reading such a value back with one 16-byte load (what a struct copy compiles to)
 * stalls on store forwarding. The empty asm keeps the compiler from
 * merging the two words into one vector load.
 */
typedef struct {
  uint64_t lo; /* type_index | zero_padding << 32 */
  uint64_t hi; /* the payload */
} any_words;

static inline any_words load_any(const TVMFFIAny* p) {
  any_words w;
  memcpy(&w.lo, p, 8);
  memcpy(&w.hi, (const char*)p + 8, 8);
  __asm__("" : "+r"(w.lo), "+r"(w.hi));
  return w;
}

static inline void store_any(TVMFFIAny* p, any_words w) {
  memcpy(p, &w.lo, 8);
  memcpy((char*)p + 8, &w.hi, 8);
}

static inline bool words_is_object(any_words w) {
  return (int32_t)(uint32_t)w.lo >= kTVMFFIStaticObjectBegin;
}

/* Copy the arguments of a call (views) into a. */
static inline void gather_args(TVMFFIAny* a, const TVMFFIAny* regs, const int64_t* aw,
                               int64_t n) {
  for (int64_t i = 0; i < n; ++i) store_any(&a[i], load_any(VM_ARG(regs, aw[i])));
}

/* Store an owned result into *dst (or drop it for a NULL dst), releasing the old value. */
static inline void write_result(TVMFFIAny* dst, any_words v) {
  if (TVM_VM_LIKELY(dst != NULL)) {
    any_words old = load_any(dst);
    store_any(dst, v);
    if (words_is_object(old)) tvm_ffi_release((void*)(uintptr_t)old.hi);
  } else if (words_is_object(v)) {
    tvm_ffi_release((void*)(uintptr_t)v.hi);
  }
}

/* Store an owned result into the register at byte offset dst (or drop it for %void). */
static inline void write_reg(TVMFFIAny* regs, int64_t dst, any_words v) {
  write_result(dst >= 0 ? VM_REG(regs, dst) : NULL, v);
}

/* Results must be owned: turn views (raw strings, byte arrays, r-value refs) into values. */
static TVM_VM_COLD int own_result(TVMFFIAny* v) {
  TVMFFIAny view = *v;
  *v = tvm_ffi_any_none();
  return tvm_ffi_any_to_owned(&view, v);
}

/* Call through the instrument: before, the call (unless skipped), after. */
static int call_instrumented(tvm_vm_state* vm, const tvm_vm_callee* c, TVMFFIAny* scratch,
                             int64_t nargs, TVMFFIAny* ret) {
  TVMFFIAny* a = scratch + 5; /* the arguments; [1..4] instrument prefix, [4] also context */
  TVMFFIAny* pre = scratch + 1;
  const tvm_vm_func_info* f = &vm->exec->funcs[c->index];
  TVMFFIAny r;
  /* The instrument may replace itself (set_instrument) while it runs: hold this one. */
  void* instrument = vm->instrument;
  tvm_ffi_retain(instrument);
  pre[0] = vm->func_pool[c->index];
  pre[1] = tvm_ffi_any_raw_str(f->name.data);
  pre[2] = tvm_ffi_any_bool(true);
  pre[3] = tvm_ffi_any_none();
  *ret = tvm_ffi_any_none();
  int rc = tvm_ffi_function_call(instrument, pre, (int32_t)nargs + 4, &r);
  bool skip = rc == 0 && r.type_index == kTVMFFIInt && r.v_int64 == TVM_VM_INSTRUMENT_SKIP_RUN;
  tvm_ffi_any_release(&r);
  if (rc != 0 || skip) {
    tvm_ffi_release(instrument);
    return rc;
  }
  if (c->kind == TVM_VM_CALLEE_PACKED) {
    rc = c->safe_call(c->handle, a, (int32_t)nargs, ret);
  } else {
    a[-1] = vm->self_any;
    rc = c->safe_call(c->handle, a - 1, (int32_t)nargs + 1, ret);
  }
  if (rc == 0 && (uint32_t)(ret->type_index - kTVMFFIRawStr) <= 2) rc = own_result(ret);
  if (rc == 0) {
    pre[0] = vm->func_pool[c->index];
    pre[1] = tvm_ffi_any_raw_str(f->name.data);
    pre[2] = tvm_ffi_any_bool(false);
    pre[3] = *ret;
    rc = tvm_ffi_function_call(instrument, pre, (int32_t)nargs + 4, &r);
    tvm_ffi_any_release(&r);
    if (rc != 0) tvm_ffi_any_release(ret);
  }
  tvm_ffi_release(instrument);
  return rc;
}

/* The uncommon outcomes of a packed call (see call_packed): an error, a view to own, an object
 * result, a result to drop, an old value to release. */
static TVM_VM_COLD int packed_result_slow(int rc, TVMFFIAny* res, any_words old, bool drop) {
  if (rc == 0 && (uint32_t)(res->type_index - kTVMFFIRawStr) <= 2) rc = own_result(res);
  if (rc != 0) {
    store_any(res, old);
    return -1;
  }
  int is_object = res->type_index >= kTVMFFIStaticObjectBegin;
  if (drop) {
    any_words v = load_any(res);
    store_any(res, (any_words){0, 0});
    if (words_is_object(v)) tvm_ffi_release((void*)(uintptr_t)v.hi);
  }
  if (words_is_object(old)) tvm_ffi_release((void*)(uintptr_t)old.hi);
  return is_object;
}

/* Call packed function c with args; the result goes straight into *res (a register, or the
 * caller's destination for a call fused with Ret), whose old value (possibly an argument of
 * this call) is released afterwards, or put back if the call fails; a fresh destination has
 * none. With drop (a %void destination) the result is released at once. Returns whether the
 * result is an object, or -1 with an error raised. The common case, a plain value (type index
 * below kTVMFFIRawStr: no view, no object) into a register that held none, costs one test. */
static inline __attribute__((always_inline)) int call_packed(const tvm_vm_callee* c,
                                                             const TVMFFIAny* args,
                                                             int64_t nargs, TVMFFIAny* res,
                                                             bool drop, bool fresh) {
  /* A fresh destination holds no object: its old value is not even loaded. */
  any_words old = {0, 0};
  if (!fresh) old = load_any(res);
  store_any(res, (any_words){0, 0});
  int rc = c->safe_call(c->handle, args, (int32_t)nargs, res);
  bool plain = rc == 0 && (uint32_t)res->type_index < kTVMFFIRawStr;
  if (TVM_VM_LIKELY(plain && !words_is_object(old))) return 0; /* a plain value needs no drop */
  return packed_result_slow(rc, res, old, drop && !plain);
}

/*
 * Run from the frame on top (pushed by the caller at index `base`) until it returns; *out
 * receives its result. On error every frame down to and including `base` is popped and the
 * error carries a VM backtrace.
 */
static int run_loop(tvm_vm_state* vm, int64_t base, TVMFFIAny* out) {
#if VM_COMPUTED_GOTO
  static const void* const k_labels[VM_NUM_OPS] = {
      [VM_OP_Ret] = &&L_Ret,
      [VM_OP_Goto] = &&L_Goto,
      [VM_OP_If] = &&L_If,
      [VM_OP_CallClosure] = &&L_CallClosure,
      [VM_OP_CallBytecode] = &&L_CallBytecode,
      [VM_OP_CallBytecode1] = &&L_CallBytecode1,
#define VM_PACKED_LABEL_(GROUP, SHAPE, NARGS, DIRECT) \
  [VM_OP_CallPacked + VM_PACKED_VARIANT(GROUP, SHAPE)] = &&L_CallPacked_##GROUP##_##SHAPE,
      VM_PACKED_VARIANTS(VM_PACKED_LABEL_)
#undef VM_PACKED_LABEL_
  };
  if (TVM_VM_UNLIKELY(!vm)) { /* called by init_code to learn the handler addresses */
    __atomic_store_n(&g_handlers, k_labels, __ATOMIC_RELEASE);
    return 0;
  }
#endif
  /* The frame array does not move while the VM runs (see tvm_vm__resize_frames). */
  tvm_vm_frame* const entry = &vm->frames[base];
  tvm_vm_frame* fr = &vm->frames[vm->depth - 1];
  *out = tvm_ffi_any_none();
  entry->dst = out;
  TVMFFIAny* regs = fr->regs;
  TVMFFIAny* top = regs + fr->func->nregs; /* register stack top: the end of fr's registers */
  /* Nested runs leave the chunk where they found it, so the limit changes only here. A call
   * depth limit set while this loop runs (frames_end) takes effect in runs started later;
   * the frame array is as long as the largest limit (it grows only while the VM is idle). */
  TVMFFIAny* limit = vm->limit;
  tvm_vm_frame* const frames_end = vm->frames_end;
  const int64_t* ip = fr->func->code;
  TVMFFIAny* const scratch = vm->scratch[vm->nest];
  TVMFFIAny* const a = scratch + 5; /* call arguments; a[-1] is the closure context slot */
  /* Whether the current frame's registers may hold objects. While false, Ret needs not look
   * for references to release. Entry frames always may. */
  bool owns = true;
  TVMFFIAny ret = {0}; /* results of calls into %void and of instrumented calls */
  bool result_is_object = false; /* of the value a Ret just handed to the caller */
  int rc;

  VM_LOOP_BEGIN

  /* Packed function calls (see the variants above). */
#define VM_CALL_PACKED_BODY(NARGS, DIRECT, NEXT, FRESH)                                 \
  {                                                                                     \
    const tvm_vm_callee* c = (const tvm_vm_callee*)(uintptr_t)ip[2];                    \
    const int64_t nargs_ = (NARGS) < 0 ? ip[3] : (NARGS);                               \
    const TVMFFIAny* args_ = a;                                                         \
    if ((DIRECT) == 1) {                                                                \
      args_ = VM_REG(regs, ip[4]);                                                      \
    } else if ((DIRECT) == 2) {                                                         \
      store_any(&a[0], load_any(VM_REG(regs, ip[4])));                                  \
      store_any(&a[1], load_any((const TVMFFIAny*)(uintptr_t)~ip[5]));                  \
    } else {                                                                            \
      gather_args(a, regs, ip + 4, nargs_);                                             \
    }                                                                                   \
    if ((NEXT) == 2) {                                                                  \
      /* The next instruction returns the result: write it to the caller's slot. */     \
      TVMFFIAny* res = fr->dst ? fr->dst : &ret;                                        \
      int obj = call_packed(c, args_, nargs_, res, res == &ret, false);                 \
      result_is_object = false;                                                         \
      if (TVM_VM_UNLIKELY(obj != 0)) {                                                  \
        if (obj < 0) goto fail;                                                         \
        result_is_object = true;                                                        \
      }                                                                                 \
      ip += 4 + nargs_;                                                                 \
      goto ret_pop;                                                                     \
    }                                                                                   \
    if ((NEXT) == 1) {                                                                  \
      /* The next instruction tests the result (a register): an int or bool result      \
       * lets the call branch at once; anything else takes the general path to If. */   \
      TVMFFIAny* res = VM_REG(regs, ip[1]);                                             \
      any_words old = {0, 0};                                                           \
      if (!(FRESH)) old = load_any(res);                                                \
      store_any(res, (any_words){0, 0});                                                \
      rc = c->safe_call(c->handle, args_, (int32_t)nargs_, res);                        \
      const int64_t* if_ip = ip + 4 + nargs_;                                           \
      if (TVM_VM_LIKELY(rc == 0 && (uint32_t)(res->type_index - kTVMFFIInt) <= 1 &&     \
                        !words_is_object(old))) {                                       \
        ip = if_ip + (res->v_int64 ? 3 : if_ip[2]);                                     \
        VM_DISPATCH();                                                                  \
      }                                                                                 \
      int obj = packed_result_slow(rc, res, old, false);                                \
      if (TVM_VM_UNLIKELY(obj < 0)) goto fail; /* ip: at the Call, for the trace */     \
      owns |= obj > 0;                                                                  \
      ip = if_ip;                                                                       \
      goto op_if;                                                                       \
    }                                                                                   \
    /* A fresh destination is a register (never %void). */                            \
    const int64_t dst = ip[1];                                                          \
    const bool void_dst = !(FRESH) && dst < 0;                                          \
    int obj = call_packed(c, args_, nargs_, void_dst ? &ret : VM_REG(regs, dst), void_dst, \
                          (FRESH));                                                     \
    if (TVM_VM_UNLIKELY(obj != 0)) {                                                    \
      if (obj < 0) goto fail;                                                           \
      owns = true;                                                                      \
    }                                                                                   \
    ip += 4 + nargs_;                                                                   \
    VM_DISPATCH();                                                                      \
  }
#define VM_PACKED_HANDLER(GROUP, SHAPE, NARGS, DIRECT)                                 \
  VM_OP_AT(CallPacked_##GROUP##_##SHAPE, VM_OP_CallPacked + VM_PACKED_VARIANT(GROUP, SHAPE)) \
  VM_CALL_PACKED_BODY(NARGS, DIRECT, VM_GROUP_NEXT(GROUP), VM_GROUP_FRESH(GROUP))
  VM_PACKED_VARIANTS(VM_PACKED_HANDLER)
#undef VM_PACKED_HANDLER
#undef VM_CALL_PACKED_BODY

  /* Calls of bytecode functions: a new frame in this loop. CallBytecode1 is the common
   * one-argument case with the copy unrolled. */
#define VM_CALL_BYTECODE_BODY(NARGS)                                                    \
  {                                                                                     \
    const tvm_vm_callee* c = (const tvm_vm_callee*)(uintptr_t)ip[2];                    \
    const int64_t nargs = (NARGS) < 0 ? ip[3] : (NARGS);                                \
    const int64_t* aw = ip + 4;                                                         \
    if (TVM_VM_UNLIKELY(fr + 1 >= frames_end)) {                                        \
      depth_error(vm, c);                                                               \
      goto fail;                                                                        \
    }                                                                                   \
    /* The new registers follow the caller's, in a new chunk if this one is full. */    \
    TVMFFIAny* nregs = top;                                                             \
    uint64_t flags = owns ? TVM_VM_FRAME_CALLER_OWNS : 0;                               \
    if (TVM_VM_UNLIKELY(limit - nregs < c->nregs)) {                                    \
      if (!(nregs = regs_next_chunk(vm, c->nregs))) goto fail;                          \
      limit = vm->limit;                                                                \
      flags |= TVM_VM_FRAME_NEW_CHUNK;                                                  \
    }                                                                                   \
    top = nregs + c->nregs;                                                             \
    if (TVM_VM_UNLIKELY(c->needs_init)) {                                               \
      memset(nregs + nargs, 0, (size_t)(c->nregs - nargs) * sizeof(TVMFFIAny));         \
    }                                                                                   \
    /* Copy the arguments without a branch per value; objects among them (rare on hot   \
     * paths) get their new references in a second pass. */                            \
    bool callee_owns = false;                                                           \
    for (int64_t i = 0; i < nargs; ++i) {                                               \
      any_words v = load_any(VM_ARG(regs, aw[i]));                                      \
      callee_owns |= words_is_object(v);                                                \
      store_any(&nregs[i], v);                                                          \
    }                                                                                   \
    if (TVM_VM_UNLIKELY(callee_owns)) regs_retain(nregs, nargs);                        \
    ++fr;                                                                               \
    fr->ret_ip = aw + nargs;                                                            \
    fr->regs = nregs;                                                                   \
    fr->func = c;                                                                       \
    fr->dst = ip[1] >= 0 ? VM_REG(regs, ip[1]) : NULL;                                  \
    fr->flags = flags;                                                                  \
    vm->depth++;                                                                        \
    owns = callee_owns;                                                                 \
    regs = nregs;                                                                       \
    ip = c->code;                                                                       \
    VM_DISPATCH();                                                                      \
  }
  VM_OP(CallBytecode) VM_CALL_BYTECODE_BODY(-1)
  VM_OP(CallBytecode1) VM_CALL_BYTECODE_BODY(1)
#undef VM_CALL_BYTECODE_BODY

  VM_OP(CallClosure) {
    /* Closures, and every call while an instrument is set (see tvm_vm__set_call_handlers). */
    const tvm_vm_callee* c = (const tvm_vm_callee*)(uintptr_t)ip[2];
    const int64_t nargs = ip[3];
    gather_args(a, regs, ip + 4, nargs);
    if (vm->instrument) {
      rc = call_instrumented(vm, c, scratch, nargs, &ret);
    } else {
      store_any(&ret, (any_words){0, 0});
      a[-1] = vm->self_any;
      rc = c->safe_call(c->handle, a - 1, (int32_t)nargs + 1, &ret);
      if (rc == 0 && (uint32_t)(ret.type_index - kTVMFFIRawStr) <= 2) rc = own_result(&ret);
    }
    if (TVM_VM_UNLIKELY(rc != 0)) {
      store_any(&ret, (any_words){0, 0});
      goto fail;
    }
    any_words v = load_any(&ret);
    store_any(&ret, (any_words){0, 0});
    owns |= words_is_object(v);
    write_reg(regs, ip[1], v);
    ip += 4 + nargs;
    VM_DISPATCH();
  }

  VM_OP(Ret) {
    /* Move the result into the frame's destination, then pop the frame. */
    const int64_t r = ip[1];
    any_words rv = {0, 0};
    if (TVM_VM_LIKELY(r >= 0)) {
      rv = load_any(VM_REG(regs, r));
      /* The reference moves to the caller (a plain value may stay: it is released by none). */
      if (words_is_object(rv)) store_any(VM_REG(regs, r), (any_words){0, 0});
    }
    result_is_object = words_is_object(rv);
    write_result(fr->dst, rv);
  }
  ret_pop: {
    if (owns) regs_release(regs, fr->func->nregs);
    const uint64_t flags = fr->flags;
    top = regs;
    vm->depth--;
    if (TVM_VM_UNLIKELY(fr == entry)) {
      if (flags & TVM_VM_FRAME_NEW_CHUNK) regs_prev_chunk(vm);
      return 0;
    }
    ip = fr->ret_ip;
    owns = (flags & TVM_VM_FRAME_CALLER_OWNS) || result_is_object;
    --fr;
    regs = fr->regs;
    if (TVM_VM_UNLIKELY(flags & TVM_VM_FRAME_NEW_CHUNK)) {
      regs_prev_chunk(vm);
      limit = vm->limit;
      top = regs + fr->func->nregs;
    }
    VM_DISPATCH();
  }

  VM_OP(Goto) {
    ip += ip[1];
    VM_DISPATCH();
  }

  VM_OP(If)
  op_if: {
    const TVMFFIAny* c = VM_REG(regs, ip[1]);
    if (TVM_VM_UNLIKELY(c->type_index != kTVMFFIInt && c->type_index != kTVMFFIBool)) {
      tvm_ffi_raise("TypeError",
                    "If: condition register %%%lld holds %s, expected an int or bool (convert "
                    "tensors with vm.builtin.read_if_cond)",
                    (long long)(ip[1] / (int64_t)sizeof(TVMFFIAny)), tvm_ffi_any_type_name(c));
      goto fail;
    }
    ip += c->v_int64 ? 3 : ip[2];
    VM_DISPATCH();
  }

  VM_LOOP_END

fail: {
  /* Unwind this loop's frames, innermost first, recording where each one was. */
  tvm_ffi_strbuf trace = {0};
  int64_t unwound = 0;
  for (;;) {
    tvm_vm_frame* inner = &vm->frames[vm->depth - 1];
    if (unwound++ < MAX_ANNOTATED_FRAMES) trace_frame(vm, inner->func, ip, &trace);
    const int64_t* ret_ip = inner->ret_ip;
    frame_pop(vm);
    if (vm->depth == base) break;
    ip = ret_ip - 1; /* in the caller's Call instruction */
  }
  if (unwound > MAX_ANNOTATED_FRAMES) {
    tvm_ffi_strbuf_printf(&trace, "  ... %lld more VM frames\n",
                          (long long)(unwound - MAX_ANNOTATED_FRAMES));
  }
  attach_trace(&trace);
  tvm_ffi_strbuf_free(&trace);
  return -1;
}
}

/* ---- Entry points ------------------------------------------------------------------------ */
static int invoke_bytecode(tvm_vm_state* vm, const tvm_vm_callee* c, const TVMFFIAny* args,
                           int32_t n, TVMFFIAny* out) {
  const tvm_vm_func_info* f = &vm->exec->funcs[c->index];
  if (n != c->num_args) {
    return tvm_ffi_raise("TypeError", "VM function `%s` expects %lld argument%s but got %d",
                         f->name.data, (long long)c->num_args, c->num_args == 1 ? "" : "s", (int)n);
  }
  if (vm->nest >= vm->max_nest) {
    return tvm_ffi_raise("RecursionError",
                         "maximum native nesting of VM calls (%d) exceeded calling `%s`",
                         (int)vm->max_nest, f->name.data);
  }
  if (!scratch_for(vm, vm->nest + 1)) return -1;
  int64_t base = vm->depth;
  tvm_vm_frame* fr = frame_push(vm, c);
  if (!fr) return -1;
  if (c->needs_init) memset(fr->regs + n, 0, (size_t)(c->nregs - n) * sizeof(TVMFFIAny));
  for (int32_t i = 0; i < n; ++i) {
    if (tvm_ffi_any_to_owned(&args[i], &fr->regs[i]) != 0) {
      frame_pop(vm);
      return -1;
    }
  }
  tvm_ffi_retain(vm); /* a callee may drop the last outside reference to the VM */
  vm->nest++;
  int rc = run_loop(vm, base, out);
  vm->nest--;
  tvm_ffi_release(vm);
  return rc;
}

int tvm_vm__invoke_index(tvm_vm_state* vm, int64_t fidx, const TVMFFIAny* args, int32_t n,
                         TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (tvm_vm__check_initialized(vm) != 0) return -1;
  const tvm_vm_callee* c = &vm->callees[fidx];
  if (c->kind == TVM_VM_CALLEE_BYTECODE) return invoke_bytecode(vm, c, args, n, out);
  return tvm_vm__invoke_closure(vm, &vm->func_pool[fidx], args, n, out);
}

int tvm_vm__invoke_closure(tvm_vm_state* vm, const TVMFFIAny* callee, const TVMFFIAny* args,
                           int32_t n, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (callee->type_index == kTVMFFIFunction) return tvm_ffi_function_call(callee->v_obj, args, n, out);
  tvm_vm_closure_obj* clo =
      (tvm_vm_closure_obj*)tvm_ffi_any_as_object(callee, tvm_vm__closure_type_index());
  if (!clo) {
    return tvm_ffi_raise("TypeError", "expected a Function or a vm.Closure but got %s",
                         tvm_ffi_any_type_name(callee));
  }
  TVMFFIAny small[16];
  TVMFFIAny* all = n < 16 ? small : (TVMFFIAny*)tvm_ffi_malloc(((size_t)n + 1) * sizeof(TVMFFIAny));
  if (!all) return -1;
  all[0] = vm->self_any;
  if (n) memcpy(all + 1, args, (size_t)n * sizeof(TVMFFIAny));
  int rc = tvm_ffi_function_call(clo->impl, all, n + 1, out);
  if (all != small) tvm_ffi_free(all);
  return rc;
}

/* ---- Function pool: closures of bytecode and vm_tir functions ---------------------------- */
typedef struct {
  tvm_vm_executable* exec; /* weak: identifies the executable without keeping it alive */
  int64_t fidx;
  void* tir_func; /* vm_tir: the __vmtir__ function (owned) */
} vm_fn_self;

static void vm_fn_delete(void* self) {
  vm_fn_self* s = (vm_fn_self*)self;
  tvm_ffi_weak_release(s->exec);
  tvm_ffi_release(s->tir_func);
  tvm_ffi_free(s);
}

/* The VM a closure implementation was called with; it must run the closure's executable
 * (only then is s->exec known to be alive, and s->fidx meaningful). */
static tvm_vm_state* closure_vm(vm_fn_self* s, const TVMFFIAny* args, int32_t n) {
  if (n < 1) {
    tvm_ffi_raise("TypeError", "a VM closure expects the VM context as its first argument");
    return NULL;
  }
  tvm_vm_state* vm = tvm_vm__state_from_arg("VM closure", &args[0]);
  if (vm && vm->exec != s->exec) {
    tvm_ffi_raise("ValueError", "the closure belongs to a different executable than this VM");
    return NULL;
  }
  return vm;
}

static int bytecode_closure_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  vm_fn_self* s = (vm_fn_self*)self;
  tvm_vm_state* vm = closure_vm(s, args, n);
  if (!vm) return -1;
  if (tvm_vm__check_initialized(vm) != 0) return -1;
  return invoke_bytecode(vm, &vm->callees[s->fidx], args + 1, n - 1, rv);
}

/* exec_mode="compiled": __vmtir__<name>(vm, register file, constants, function pool) with the
 * arguments in registers 0..num_args-1 and the result left in register num_args. */
static int vmtir_closure_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  vm_fn_self* s = (vm_fn_self*)self;
  tvm_vm_state* vm = closure_vm(s, args, n);
  if (!vm || tvm_vm__check_initialized(vm) != 0) return -1;
  const tvm_vm_func_info* f = &vm->exec->funcs[s->fidx];
  if (n - 1 != f->num_args) {
    return tvm_ffi_raise("TypeError", "VM function `%s` expects %lld argument%s but got %d",
                         f->name.data, (long long)f->num_args, f->num_args == 1 ? "" : "s",
                         (int)(n - 1));
  }
  tvm_vm_frame* fr = frame_push(vm, &vm->callees[s->fidx]);
  if (!fr) return -1;
  TVMFFIAny* regs = fr->regs;
  memset(regs, 0, (size_t)f->register_file_size * sizeof(TVMFFIAny));
  int rc = 0;
  for (int64_t i = 0; i < f->num_args && rc == 0; ++i) rc = tvm_ffi_any_to_owned(&args[i + 1], &regs[i]);
  if (rc == 0) {
    TVMFFIAny call[4] = {vm->self_any, tvm_ffi_any_ptr(regs), tvm_ffi_any_ptr(vm->consts),
                         tvm_ffi_any_ptr(vm->func_pool)};
    TVMFFIAny ignored;
    tvm_ffi_retain(vm);
    rc = tvm_ffi_function_call(s->tir_func, call, 4, &ignored);
    tvm_ffi_release(vm);
    tvm_ffi_any_release(&ignored);
  }
  if (rc == 0) {
    *rv = regs[f->num_args];
    regs[f->num_args] = k_none;
  }
  frame_pop(vm);
  return rc;
}

static int make_vm_closure(tvm_vm_state* vm, int64_t fidx, TVMFFIAny* out) {
  const tvm_vm_func_info* f = &vm->exec->funcs[fidx];
  vm_fn_self* s = (vm_fn_self*)tvm_ffi_calloc(1, sizeof(vm_fn_self));
  if (!s) return -1;
  s->exec = vm->exec;
  tvm_ffi_weak_retain(vm->exec);
  s->fidx = fidx;
  if (f->kind == TVM_VM_FUNC_VMTIR) {
    tvm_ffi_strbuf name = {0};
    tvm_ffi_strbuf_printf(&name, "__vmtir__%s", f->name.data);
    void* imports = vm->exec->base.imports;
    int rc = 0;
    for (int64_t i = 0; !name.failed && imports && i < tvm_ffi_seq_size(imports) && !s->tir_func; ++i) {
      void* m = tvm_ffi_any_as_object(tvm_ffi_seq_at(imports, i), kTVMFFIModule);
      if (m && (rc = tvm_ffi_module_get_function(m, name.data, true, &s->tir_func)) != 0) break;
    }
    if (!s->tir_func && rc == 0) {
      tvm_ffi_raise("ValueError",
                    "cannot find `%s`, the compiled implementation of vm_tir function `%s`, in "
                    "the executable's imports",
                    tvm_ffi_strbuf_cstr(&name), f->name.data);
    }
    tvm_ffi_strbuf_free(&name);
    if (!s->tir_func) {
      vm_fn_delete(s);
      return -1;
    }
  }
  void* impl = tvm_ffi_function_new(
      s, f->kind == TVM_VM_FUNC_VMTIR ? vmtir_closure_call : bytecode_closure_call, vm_fn_delete);
  if (!impl) {
    vm_fn_delete(s);
    return -1;
  }
  tvm_vm_closure_obj* clo = tvm_vm__closure_new(f->name.data, f->name.size, impl);
  tvm_ffi_release(impl);
  if (!clo) return -1;
  *out = tvm_ffi_any_obj(clo);
  return 0;
}

/* A packed function: the imports (depth first), then the global registry. */
static int resolve_packed(tvm_vm_state* vm, int64_t fidx, TVMFFIAny* out) {
  const tvm_vm_func_info* f = &vm->exec->funcs[fidx];
  void* fn = NULL;
  void* imports = vm->exec->base.imports;
  for (int64_t i = 0; imports && i < tvm_ffi_seq_size(imports) && !fn; ++i) {
    void* m = tvm_ffi_any_as_object(tvm_ffi_seq_at(imports, i), kTVMFFIModule);
    if (m && tvm_ffi_module_get_function(m, f->name.data, true, &fn) != 0) return -1;
  }
  if (!fn) fn = tvm_ffi_global_get(f->name.data);
  if (!fn) {
    return tvm_ffi_raise("ValueError",
                         "cannot find packed function `%s` (function %lld) in the executable's "
                         "imports or the global function registry",
                         f->name.data, (long long)fidx);
  }
  *out = tvm_ffi_any_obj(fn);
  return 0;
}

/* ---- Initialisation ---------------------------------------------------------------------- */
static int init_devices(tvm_vm_state* vm, const DLDevice* devices, const int32_t* types,
                        int32_t n) {
  if (n < 1 || !devices) return tvm_ffi_raise("ValueError", "a VM needs at least one device");
  bool add_cpu = devices[n - 1].device_type != kDLCPU;
  int32_t total = n + (add_cpu ? 1 : 0);
  vm->devices = (DLDevice*)tvm_ffi_calloc((size_t)total, sizeof(DLDevice));
  vm->allocators = (tvm_vm_allocator**)tvm_ffi_calloc((size_t)total, sizeof(void*));
  if (!vm->devices || !vm->allocators) return -1;
  for (int32_t i = 0; i < total; ++i) {
    vm->devices[i] = i < n ? devices[i] : TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
    int32_t type = i < n && types ? types[i] : TVM_VM_ALLOC_POOLED;
    vm->allocators[i] = tvm_vm__allocator_new(vm->devices[i], type);
    if (!vm->allocators[i]) {
      return tvm_ffi_raise_context("creating the allocator of device %d (%s:%d)", (int)i,
                                   tvm_vm__device_name(vm->devices[i]),
                                   (int)vm->devices[i].device_id);
    }
    vm->num_devices = i + 1;
  }
  return 0;
}

static int init_constants(tvm_vm_state* vm) {
  const tvm_vm_executable* e = vm->exec;
  vm->consts = (TVMFFIAny*)tvm_ffi_calloc((size_t)e->num_consts + 1, sizeof(TVMFFIAny));
  if (!vm->consts) return -1;
  DLDevice dev = vm->devices[0];
  for (int64_t i = 0; i < e->num_consts; ++i) {
    const TVMFFIAny* c = &e->consts[i];
    if (c->type_index == kTVMFFITensor && dev.device_type != kDLCPU) {
      void* t = tvm_vm__tensor_to_device(tvm_ffi_tensor_dl(c->v_obj), dev, vm->allocators[0]);
      if (!t) return tvm_ffi_raise_context("loading constant %lld onto the device", (long long)i);
      vm->consts[i] = tvm_ffi_any_obj(t);
    } else {
      vm->consts[i] = tvm_ffi_any_copy(c);
    }
  }
  return 0;
}

static int init_functions(tvm_vm_state* vm) {
  const tvm_vm_executable* e = vm->exec;
  int64_t nf = e->num_funcs;
  vm->func_pool = (TVMFFIAny*)tvm_ffi_calloc((size_t)nf + 1, sizeof(TVMFFIAny));
  vm->callees = (tvm_vm_callee*)tvm_ffi_calloc((size_t)nf + 1, sizeof(tvm_vm_callee));
  vm->inputs = (TVMFFIAny*)tvm_ffi_calloc((size_t)nf + 1, sizeof(TVMFFIAny));
  vm->outputs = (TVMFFIAny*)tvm_ffi_calloc((size_t)nf + 1, sizeof(TVMFFIAny));
  if (!vm->func_pool || !vm->callees || !vm->inputs || !vm->outputs) return -1;
  for (int64_t i = 0; i < nf; ++i) {
    const tvm_vm_func_info* f = &e->funcs[i];
    tvm_vm_callee* c = &vm->callees[i];
    c->index = i;
    c->num_args = f->num_args;
    int rc = f->kind == TVM_VM_FUNC_PACKED ? resolve_packed(vm, i, &vm->func_pool[i])
                                           : make_vm_closure(vm, i, &vm->func_pool[i]);
    if (rc != 0) return -1;
    void* fn = f->kind == TVM_VM_FUNC_PACKED
                   ? vm->func_pool[i].v_obj
                   : ((tvm_vm_closure_obj*)vm->func_pool[i].v_obj)->impl;
    c->handle = fn;
    c->safe_call = TVMFFIFunctionGetCellPtr(fn)->safe_call;
    c->kind = f->kind == TVM_VM_FUNC_PACKED ? TVM_VM_CALLEE_PACKED
              : f->kind == TVM_VM_FUNC_VM   ? TVM_VM_CALLEE_BYTECODE
                                            : TVM_VM_CALLEE_CLOSURE;
    c->nregs = f->kind == TVM_VM_FUNC_PACKED ? 0 : (int32_t)f->register_file_size;
    if (f->kind == TVM_VM_FUNC_VM) {
      c->needs_init = f->needs_init;
    }
  }
  return 0;
}

/* A Call argument in prepared form (see VM_ARG). */
static int64_t prepare_arg(tvm_vm_state* vm, int64_t word, int64_t* next_imm) {
  int64_t v = tvm_vm_arg_value(word);
  const TVMFFIAny* p;
  switch (tvm_vm_arg_kind_of(word)) {
    case TVM_VM_ARG_REGISTER:
      if (v < TVM_VM_REG_SPECIAL_BEGIN) return v * (int64_t)sizeof(TVMFFIAny);
      p = v == TVM_VM_REG_VM ? &vm->self_any : &k_none;
      break;
    case TVM_VM_ARG_IMMEDIATE:
      vm->imms[*next_imm] = tvm_ffi_any_int(v);
      p = &vm->imms[(*next_imm)++];
      break;
    case TVM_VM_ARG_CONST_IDX:
      p = &vm->consts[v];
      break;
    default:
      p = &vm->func_pool[v];
      break;
  }
  return (int64_t)~(uintptr_t)p;
}

/* Whether a Call argument is a register of the frame (prepared as a byte offset) rather than a
 * value that lives as long as the VM (prepared as a pointer: see prepare_arg). */
static bool arg_is_reg(int64_t word) {
  return tvm_vm_arg_kind_of(word) == TVM_VM_ARG_REGISTER &&
         tvm_vm_arg_value(word) < TVM_VM_REG_SPECIAL_BEGIN;
}

/* Whether the arguments of Call w are registers r, r+1, ..., none of them the destination:
 * they can be passed in place. */
static bool args_in_place(const int64_t* w) {
  if (w[3] < 2) return false; /* nothing to gain */
  for (int64_t k = 0; k < w[3]; ++k) {
    int64_t arg = w[4 + k], r = tvm_vm_arg_value(arg);
    if (tvm_vm_arg_kind_of(arg) != TVM_VM_ARG_REGISTER || r >= TVM_VM_REG_SPECIAL_BEGIN ||
        r != tvm_vm_arg_value(w[4]) + k || r == w[1]) {
      return false;
    }
  }
  return true;
}

/* The handler of the Call at instruction i: the generic one while an instrument is set, else
 * the one specialised for its callee, arguments and the following instruction. */
static int64_t call_opcode(const tvm_vm_state* vm, int64_t i) {
  const tvm_vm_executable* e = vm->exec;
  const int64_t* w = &e->instr_data[e->instr_offset[i]];
  if (vm->instrument) return VM_OP_CallClosure;
  switch (vm->callees[w[2]].kind) {
    case TVM_VM_CALLEE_PACKED: {
      /* Fused with a following If that tests the result or Ret that returns it (i + 1 is in
       * the function: a call never ends one). */
      const int64_t* next = &e->instr_data[e->instr_offset[i + 1]];
      int fuse = w[1] == TVM_VM_REG_VOID                            ? 0
                 : next[0] == TVM_VM_OP_If && next[1] == w[1]  ? 1
                 : next[0] == TVM_VM_OP_Ret && next[1] == w[1] ? 2
                                                               : 0;
      int group = fuse * 2 + (fuse < 2 && tvm_vm__fresh_dst(e, i));
      int shape = args_in_place(w)                               ? 5
                  : w[3] == 2 && arg_is_reg(w[4]) && !arg_is_reg(w[5]) ? 6
                  : w[3] < 4                                     ? (int)w[3]
                                                                 : 4;
      return VM_OP_CallPacked + VM_PACKED_VARIANT(group, shape);
    }
    case TVM_VM_CALLEE_BYTECODE:
      return w[3] == 1 ? VM_OP_CallBytecode1 : VM_OP_CallBytecode;
    default:
      return VM_OP_CallClosure;
  }
}

void tvm_vm__set_call_handlers(tvm_vm_state* vm) {
  const tvm_vm_executable* e = vm->exec;
  if (!vm->code) return; /* not initialised: init_code reads vm->instrument */
  for (int64_t fi = 0; fi < e->num_funcs; ++fi) {
    const tvm_vm_func_info* f = &e->funcs[fi];
    if (f->kind != TVM_VM_FUNC_VM) continue;
    for (int64_t i = f->start_instr; i < f->end_instr; ++i) {
      int64_t off = e->instr_offset[i];
      if (e->instr_data[off] == TVM_VM_OP_Call) vm->code[off] = VM_ENCODE_OP(call_opcode(vm, i));
    }
  }
}

/* A destination/result/condition register in prepared form. */
static int64_t prepare_reg(int64_t reg) {
  return reg == TVM_VM_REG_VOID ? VM_NO_REG : reg * (int64_t)sizeof(TVMFFIAny);
}

static int init_code(tvm_vm_state* vm) {
  const tvm_vm_executable* e = vm->exec;
  int64_t num_imms = 0;
  for (int64_t i = 0; i < e->num_instrs; ++i) {
    const int64_t* w = &e->instr_data[e->instr_offset[i]];
    if (w[0] != TVM_VM_OP_Call) continue;
    for (int64_t a = 0; a < w[3]; ++a) num_imms += tvm_vm_arg_kind_of(w[4 + a]) == TVM_VM_ARG_IMMEDIATE;
  }
  vm->imms = (TVMFFIAny*)tvm_ffi_calloc((size_t)num_imms + 1, sizeof(TVMFFIAny));
  vm->code = (int64_t*)tvm_ffi_calloc((size_t)e->num_words + 1, sizeof(int64_t));
  if (!vm->imms || !vm->code) return -1;
#if VM_COMPUTED_GOTO
  if (!__atomic_load_n(&g_handlers, __ATOMIC_ACQUIRE)) run_loop(NULL, 0, NULL);
#endif
  for (int64_t fi = 0; fi < e->num_funcs; ++fi) {
    if (e->funcs[fi].kind == TVM_VM_FUNC_VM) {
      vm->callees[fi].code = vm->code + e->instr_offset[e->funcs[fi].start_instr];
    }
  }
  int64_t next_imm = 0;
  for (int64_t fi = 0; fi < e->num_funcs; ++fi) {
    const tvm_vm_func_info* f = &e->funcs[fi];
    if (f->kind != TVM_VM_FUNC_VM) continue;
    for (int64_t i = f->start_instr; i < f->end_instr; ++i) {
      int64_t off = e->instr_offset[i];
      const int64_t* w = &e->instr_data[off];
      int64_t* c = &vm->code[off];
      switch (w[0]) {
        case TVM_VM_OP_Call:
          c[0] = VM_ENCODE_OP(call_opcode(vm, i));
          c[1] = prepare_reg(w[1]);
          c[2] = (int64_t)(uintptr_t)&vm->callees[w[2]];
          c[3] = w[3];
          for (int64_t a = 0; a < w[3]; ++a) c[4 + a] = prepare_arg(vm, w[4 + a], &next_imm);
          break;
        case TVM_VM_OP_Ret:
          c[0] = VM_ENCODE_OP(VM_OP_Ret);
          c[1] = prepare_reg(w[1]);
          break;
        case TVM_VM_OP_Goto:
          c[0] = VM_ENCODE_OP(VM_OP_Goto);
          c[1] = e->instr_offset[i + w[1]] - off;
          break;
        case TVM_VM_OP_If:
          c[0] = VM_ENCODE_OP(VM_OP_If);
          c[1] = prepare_reg(w[1]);
          c[2] = e->instr_offset[i + w[2]] - off;
          break;
      }
    }
  }
  return 0;
}

int tvm_vm__init(tvm_vm_state* vm, const DLDevice* devices, const int32_t* alloc_types,
                 int32_t num_devices) {
  if (vm->initialized) return tvm_ffi_raise("RuntimeError", "the VM is already initialised");
  int rc = init_devices(vm, devices, alloc_types, num_devices);
  if (rc == 0) rc = init_constants(vm);
  if (rc == 0) rc = init_functions(vm);
  if (rc == 0) rc = init_code(vm);
  if (rc == 0) {
    vm->chunks = (tvm_vm_reg_chunk*)tvm_ffi_calloc(1, sizeof(tvm_vm_reg_chunk));
    TVMFFIAny* base = (TVMFFIAny*)tvm_ffi_calloc(FIRST_CHUNK_REGS, sizeof(TVMFFIAny));
    if (!vm->chunks || !base) {
      tvm_ffi_free(base);
      rc = -1;
    } else {
      vm->chunks[0].base = base;
      vm->chunks[0].cap = FIRST_CHUNK_REGS;
      vm->num_chunks = 1;
      vm->limit = base + FIRST_CHUNK_REGS;
    }
  }
  if (rc == 0 && !scratch_for(vm, 0)) rc = -1;
  if (rc == 0) rc = tvm_vm__resize_frames(vm, vm->max_depth);
  if (rc == 0) vm->initialized = true;
  return rc;
}

/* ---- Closures by name, device conversion ------------------------------------------------- */
tvm_vm_closure_obj* tvm_vm__get_closure(tvm_vm_state* vm, const char* name, bool allow_missing) {
  if (vm->saved) {
    const TVMFFIAny* s = tvm_ffi_map_get_str(vm->saved, name);
    if (s) {
      tvm_ffi_retain(s->v_obj);
      return (tvm_vm_closure_obj*)s->v_obj;
    }
  }
  int64_t idx = tvm_vm_executable_find_function(vm->exec, name);
  if (idx < 0) {
    if (!allow_missing) tvm_ffi_raise("ValueError", "unknown function `%s`", name);
    return NULL;
  }
  if (vm->exec->funcs[idx].kind == TVM_VM_FUNC_PACKED) {
    if (!allow_missing) {
      tvm_ffi_raise("ValueError", "`%s` is a packed function, not a function of the executable", name);
    }
    return NULL;
  }
  if (tvm_vm__check_initialized(vm) != 0) return NULL;
  tvm_ffi_retain(vm->func_pool[idx].v_obj);
  return (tvm_vm_closure_obj*)vm->func_pool[idx].v_obj;
}

int tvm_vm__to_vm_device(tvm_vm_state* vm, const TVMFFIAny* in, TVMFFIAny* out) {
  DLDevice dev = vm->devices[0];
  const DLTensor* t = NULL;
  if (in->type_index == kTVMFFIDLTensorPtr) t = (const DLTensor*)in->v_ptr;
  if (in->type_index == kTVMFFITensor) {
    t = tvm_ffi_tensor_dl(in->v_obj);
    if (t->device.device_type == dev.device_type && t->device.device_id == dev.device_id) t = NULL;
  }
  if (t) {
    /* A DLTensor* is copied even on the right device: the VM must not keep borrowed memory. */
    void* c = tvm_vm__tensor_to_device(t, dev, vm->allocators[0]);
    if (!c) return -1;
    *out = tvm_ffi_any_obj(c);
    return 0;
  }
  if (in->type_index == kTVMFFIArray) {
    int64_t n = tvm_ffi_seq_size(in->v_obj);
    TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_calloc((size_t)n + 1, sizeof(TVMFFIAny));
    if (!items) return -1;
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; ++i) {
      rc = tvm_vm__to_vm_device(vm, tvm_ffi_seq_at(in->v_obj, i), &items[i]);
    }
    void* arr = rc == 0 ? tvm_ffi_array_new_take(items, n) : NULL;
    for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&items[i]);
    tvm_ffi_free(items);
    if (!arr) return -1;
    *out = tvm_ffi_any_obj(arr);
    return 0;
  }
  return tvm_ffi_any_to_owned(in, out);
}

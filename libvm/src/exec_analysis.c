/*
 * exec_analysis.c: register assignment facts for the interpreter, per bytecode function.
 *
 * Two classic forward dataflow problems over basic blocks, solved together with a worklist:
 *   - definite assignment ("must": intersection over predecessors): when every read of a
 *     register (a Call argument, the Ret result, an If condition) is preceded by a write on
 *     every path, a new register file needs no initialisation (tvm_vm_func_info.needs_init
 *     is false);
 *   - possible assignment ("may": union over predecessors): a Call whose destination has not
 *     been written on any path to it writes a register that holds no object yet, so the
 *     interpreter need not read and release the old value (bit i of exec->fresh_dst).
 * Writes are Call destinations; registers 0..num_args-1 are written on entry. The answers
 * only make the interpreter skip work; when a function is too large for the memory budget
 * the conservative answers stand (needs_init, no fresh destinations).
 */
#include <string.h>

#include "internal.h"

/* Bitset words the analysis may use for one function (2 MiB). */
#define MAX_ANALYSIS_WORDS (INT64_C(1) << 18)

static bool bit(const uint64_t* s, int64_t r) { return (s[r >> 6] >> (r & 63)) & 1; }
static void set_bit(uint64_t* s, int64_t r) { s[r >> 6] |= UINT64_C(1) << (r & 63); }

typedef struct {
  tvm_vm_executable* e;
  const tvm_vm_func_info* f;
  int64_t nwords;    /* bitset words per set */
  int64_t* block_of; /* instruction (relative) -> block index */
  int64_t* starts;   /* block -> first instruction (relative) */
  int64_t nblocks;
  uint64_t* must;    /* nblocks entry sets, then one scratch set */
  uint64_t* may;     /* likewise */
  bool* seen;        /* block reached at least once */
  int64_t* work;     /* worklist of blocks */
  bool* queued;
  bool uninit_read;  /* final pass: a register may be read before it is written */
} analysis;

/* Run block b from its entry sets into the scratch sets; returns the number of successors
 * (stored in succ). With final, record reads before writes and fresh destinations. */
static int run_block(analysis* a, int64_t b, bool final, int64_t succ[2]) {
  const tvm_vm_executable* e = a->e;
  const tvm_vm_func_info* f = a->f;
  const int64_t n = f->end_instr - f->start_instr, R = f->register_file_size, W = a->nwords;
  uint64_t* must = a->must + a->nblocks * W;
  uint64_t* may = a->may + a->nblocks * W;
  memcpy(must, a->must + b * W, (size_t)W * 8);
  memcpy(may, a->may + b * W, (size_t)W * 8);
  int nsucc = 0;
  for (int64_t i = a->starts[b];; ++i) {
    const int64_t* w = &e->instr_data[e->instr_offset[f->start_instr + i]];
    bool last = i + 1 == n || a->block_of[i + 1] != b;
    switch (w[0]) {
      case TVM_VM_OP_Call:
        if (final) {
          for (int64_t k = 0; k < w[3]; ++k) {
            int64_t arg = w[4 + k], r = tvm_vm_arg_value(arg);
            if (tvm_vm_arg_kind_of(arg) == TVM_VM_ARG_REGISTER && r < R && !bit(must, r)) {
              a->uninit_read = true;
            }
          }
          if (w[1] < R && !bit(may, w[1])) set_bit(a->e->fresh_dst, f->start_instr + i);
        }
        if (w[1] < R) {
          set_bit(must, w[1]);
          set_bit(may, w[1]);
        }
        if (last) succ[nsucc++] = i + 1;
        break;
      case TVM_VM_OP_Ret:
        if (final && w[1] < R && !bit(must, w[1])) a->uninit_read = true;
        break;
      case TVM_VM_OP_Goto:
        succ[nsucc++] = i + w[1];
        break;
      case TVM_VM_OP_If:
        if (final && !bit(must, w[1])) a->uninit_read = true;
        succ[nsucc++] = i + 1;
        succ[nsucc++] = i + w[2];
        break;
    }
    if (last) break;
  }
  return nsucc;
}

/* Merge the scratch sets into the entry sets of block sb; queue it if they changed. */
static void merge(analysis* a, int64_t sb, int64_t* nwork) {
  const int64_t W = a->nwords;
  const uint64_t* must = a->must + a->nblocks * W;
  const uint64_t* may = a->may + a->nblocks * W;
  uint64_t* must_in = a->must + sb * W;
  uint64_t* may_in = a->may + sb * W;
  bool changed = !a->seen[sb];
  if (!a->seen[sb]) {
    memcpy(must_in, must, (size_t)W * 8);
    memcpy(may_in, may, (size_t)W * 8);
    a->seen[sb] = true;
  } else {
    for (int64_t k = 0; k < W; ++k) {
      uint64_t m = must_in[k] & must[k], y = may_in[k] | may[k];
      changed |= m != must_in[k] || y != may_in[k];
      must_in[k] = m;
      may_in[k] = y;
    }
  }
  if (changed && !a->queued[sb]) {
    a->queued[sb] = true;
    a->work[(*nwork)++] = sb;
  }
}

int tvm_vm__analyze_registers(tvm_vm_executable* e, int64_t fi) {
  tvm_vm_func_info* f = &e->funcs[fi];
  const int64_t n = f->end_instr - f->start_instr, R = f->register_file_size;
  f->needs_init = true;
  if (R == 0) {
    f->needs_init = false;
    return 0;
  }
  analysis a = {0};
  a.e = e;
  a.f = f;
  a.nwords = (R + 63) / 64;
  /* Leaders: the entry, jump targets, and the instructions after jumps. */
  a.block_of = (int64_t*)tvm_ffi_calloc((size_t)n, sizeof(int64_t));
  if (!a.block_of) return -1;
  a.block_of[0] = 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* w = &e->instr_data[e->instr_offset[f->start_instr + i]];
    if (w[0] == TVM_VM_OP_Goto || w[0] == TVM_VM_OP_If) {
      a.block_of[i + (w[0] == TVM_VM_OP_Goto ? w[1] : w[2])] = 1;
      if (i + 1 < n) a.block_of[i + 1] = 1;
    }
  }
  for (int64_t i = 0; i < n; ++i) a.nblocks += a.block_of[i];
  int rc = 0;
  if (a.nblocks > MAX_ANALYSIS_WORDS / (2 * a.nwords + 1)) goto done; /* too large */
  const size_t set_bytes = (size_t)(a.nblocks + 1) * (size_t)a.nwords * 8;
  a.starts = (int64_t*)tvm_ffi_malloc((size_t)a.nblocks * sizeof(int64_t));
  a.must = (uint64_t*)tvm_ffi_malloc(set_bytes);
  a.may = (uint64_t*)tvm_ffi_malloc(set_bytes);
  a.seen = (bool*)tvm_ffi_calloc((size_t)a.nblocks, sizeof(bool));
  a.queued = (bool*)tvm_ffi_calloc((size_t)a.nblocks, sizeof(bool));
  a.work = (int64_t*)tvm_ffi_malloc((size_t)a.nblocks * sizeof(int64_t));
  if (!a.starts || !a.must || !a.may || !a.seen || !a.queued || !a.work) {
    rc = -1;
    goto done;
  }
  for (int64_t i = 0, b = -1; i < n; ++i) {
    if (a.block_of[i]) a.starts[++b] = i;
    a.block_of[i] = b;
  }
  /* The entry block starts with the arguments written. */
  memset(a.must, 0, (size_t)a.nwords * 8);
  for (int64_t r = 0; r < f->num_args; ++r) set_bit(a.must, r);
  memcpy(a.may, a.must, (size_t)a.nwords * 8);
  a.seen[0] = a.queued[0] = true;
  int64_t nwork = 1, succ[2];
  a.work[0] = 0;
  while (nwork > 0) {
    int64_t b = a.work[--nwork];
    a.queued[b] = false;
    int nsucc = run_block(&a, b, false, succ);
    for (int s = 0; s < nsucc; ++s) merge(&a, a.block_of[succ[s]], &nwork);
  }
  /* The fixpoint reached: read the facts off every reachable block. */
  for (int64_t b = 0; b < a.nblocks; ++b) {
    if (a.seen[b]) run_block(&a, b, true, succ);
  }
  f->needs_init = a.uninit_read;
done:
  tvm_ffi_free(a.block_of);
  tvm_ffi_free(a.starts);
  tvm_ffi_free(a.must);
  tvm_ffi_free(a.may);
  tvm_ffi_free(a.seen);
  tvm_ffi_free(a.queued);
  tvm_ffi_free(a.work);
  return rc;
}

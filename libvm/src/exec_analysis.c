/*
 * exec_analysis.c: definite assignment of registers in bytecode functions.
 *
 * A register file need not be initialised when every read of a register (a Call argument,
 * the Ret result, an If condition) is preceded by a write (a Call destination, or being an
 * argument) on every path from the function's entry. This is the classic forward "must"
 * dataflow problem: the set of definitely written registers at a block's entry is the
 * intersection over its predecessors, solved with a worklist over basic blocks. The answer
 * only decides whether the interpreter initialises registers; when the problem is too large
 * for the memory budget the function is simply treated as needing initialisation.
 */
#include <string.h>

#include "internal.h"

/* Bitset words the analysis may use for one function (2 MiB). */
#define MAX_ANALYSIS_WORDS (INT64_C(1) << 18)

static bool bit(const uint64_t* s, int64_t r) { return (s[r >> 6] >> (r & 63)) & 1; }
static void set_bit(uint64_t* s, int64_t r) { s[r >> 6] |= UINT64_C(1) << (r & 63); }

typedef struct {
  const tvm_vm_executable* e;
  const tvm_vm_func_info* f;
  int64_t nwords;    /* bitset words per set */
  int64_t* block_of; /* instruction (relative) -> block index */
  int64_t* starts;   /* block -> first instruction (relative) */
  int64_t nblocks;
  uint64_t* in;      /* nblocks sets */
  bool* seen;        /* block reached at least once */
  int64_t* work;     /* worklist of blocks */
  bool* queued;
} analysis;

/* Run block b from its entry set; returns 1 if a read precedes a write, 0 otherwise, and
 * propagates the exit set to the successors. */
static int run_block(analysis* a, int64_t b, uint64_t* cur, int64_t* nwork) {
  const tvm_vm_executable* e = a->e;
  const tvm_vm_func_info* f = a->f;
  int64_t n = f->end_instr - f->start_instr;
  int64_t R = f->register_file_size;
  memcpy(cur, a->in + b * a->nwords, (size_t)a->nwords * 8);
  int64_t succ[2];
  int nsucc = 0;
  for (int64_t i = a->starts[b];; ++i) {
    const int64_t* w = &e->instr_data[e->instr_offset[f->start_instr + i]];
    bool last = i + 1 == n || a->block_of[i + 1] != b;
    switch (w[0]) {
      case TVM_VM_OP_Call:
        for (int64_t k = 0; k < w[3]; ++k) {
          int64_t arg = w[4 + k], r = tvm_vm_arg_value(arg);
          if (tvm_vm_arg_kind_of(arg) == TVM_VM_ARG_REGISTER && r < R && !bit(cur, r)) return 1;
        }
        if (w[1] >= 0 && w[1] < R) set_bit(cur, w[1]);
        if (last) succ[nsucc++] = i + 1;
        break;
      case TVM_VM_OP_Ret:
        if (w[1] >= 0 && w[1] < R && !bit(cur, w[1])) return 1;
        break;
      case TVM_VM_OP_Goto:
        succ[nsucc++] = i + w[1];
        break;
      case TVM_VM_OP_If:
        if (!bit(cur, w[1])) return 1;
        succ[nsucc++] = i + 1;
        succ[nsucc++] = i + w[2];
        break;
    }
    if (last) break;
  }
  for (int s = 0; s < nsucc; ++s) {
    int64_t sb = a->block_of[succ[s]];
    uint64_t* in = a->in + sb * a->nwords;
    bool changed = !a->seen[sb];
    if (!a->seen[sb]) {
      memcpy(in, cur, (size_t)a->nwords * 8);
      a->seen[sb] = true;
    } else {
      for (int64_t k = 0; k < a->nwords; ++k) {
        uint64_t v = in[k] & cur[k];
        changed |= v != in[k];
        in[k] = v;
      }
    }
    if (changed && !a->queued[sb]) {
      a->queued[sb] = true;
      a->work[(*nwork)++] = sb;
    }
  }
  return 0;
}

int tvm_vm__regs_definitely_assigned(const tvm_vm_executable* e, int64_t fi) {
  const tvm_vm_func_info* f = &e->funcs[fi];
  int64_t n = f->end_instr - f->start_instr;
  int64_t R = f->register_file_size;
  if (R == 0) return 1;
  analysis a = {e, f, (R + 63) / 64, NULL, NULL, 0, NULL, NULL, NULL, NULL};
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
  int result = 0;
  if (a.nblocks > MAX_ANALYSIS_WORDS / (a.nwords + 1)) goto done; /* too large: not proven */
  a.starts = (int64_t*)tvm_ffi_malloc((size_t)a.nblocks * sizeof(int64_t));
  a.in = (uint64_t*)tvm_ffi_malloc((size_t)(a.nblocks + 1) * (size_t)a.nwords * 8);
  a.seen = (bool*)tvm_ffi_calloc((size_t)a.nblocks, sizeof(bool));
  a.queued = (bool*)tvm_ffi_calloc((size_t)a.nblocks, sizeof(bool));
  a.work = (int64_t*)tvm_ffi_malloc((size_t)a.nblocks * sizeof(int64_t));
  if (!a.starts || !a.in || !a.seen || !a.queued || !a.work) {
    result = -1;
    goto done;
  }
  for (int64_t i = 0, b = -1; i < n; ++i) {
    if (a.block_of[i]) a.starts[++b] = i;
    a.block_of[i] = b;
  }
  uint64_t* cur = a.in + a.nblocks * a.nwords; /* scratch set */
  memset(a.in, 0, (size_t)a.nwords * 8);
  for (int64_t r = 0; r < f->num_args; ++r) set_bit(a.in, r);
  a.seen[0] = a.queued[0] = true;
  int64_t nwork = 1;
  a.work[0] = 0;
  result = 1;
  while (nwork > 0) {
    int64_t b = a.work[--nwork];
    a.queued[b] = false;
    if (run_block(&a, b, cur, &nwork)) {
      result = 0;
      break;
    }
  }
done:
  tvm_ffi_free(a.block_of);
  tvm_ffi_free(a.starts);
  tvm_ffi_free(a.in);
  tvm_ffi_free(a.seen);
  tvm_ffi_free(a.queued);
  tvm_ffi_free(a.work);
  return result;
}

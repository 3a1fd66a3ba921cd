/*
 * exec_verify.c: the verifier of executables, run by the loader and by the builder. It
 * establishes every invariant the interpreter relies on instead of checking at run time:
 * function kinds and ranges (disjoint, inside the code), register file sizes, instructions
 * that tile instr_data exactly with valid opcodes, argument kinds and constant/function
 * indices, registers inside each function's register file, jump targets inside the function,
 * no fall-through past a function's end, and argument counts of calls to VM functions. It
 * also builds the name index and runs the register analysis (exec_analysis.c).
 */
#include <string.h>

#include "internal.h"

static uint64_t name_hash(const char* s, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

int64_t tvm_vm__find_name(const tvm_vm_executable* e, const char* s, size_t n) {
  if (!e->name_slots) return -1;
  uint64_t mask = (uint64_t)e->name_cap - 1;
  for (uint64_t i = name_hash(s, n) & mask;; i = (i + 1) & mask) {
    int64_t slot = e->name_slots[i];
    if (slot == 0) return -1;
    const TVMFFIByteArray* name = &e->funcs[slot - 1].name;
    if (name->size == n && memcmp(name->data, s, n) == 0) return slot - 1;
  }
}

static int build_name_index(tvm_vm_executable* e) {
  tvm_ffi_free(e->name_slots);
  int64_t cap = 16;
  while (cap < 2 * e->num_funcs) cap *= 2;
  e->name_cap = cap;
  e->name_slots = (int64_t*)tvm_ffi_calloc((size_t)cap, sizeof(int64_t));
  if (!e->name_slots) return -1;
  for (int64_t f = 0; f < e->num_funcs; ++f) {
    const TVMFFIByteArray* name = &e->funcs[f].name;
    if (name->size == 0) {
      return tvm_ffi_raise("ValueError", "invalid executable: globals section: function %lld has "
                           "an empty name", (long long)f);
    }
    int64_t prev = tvm_vm__find_name(e, name->data, name->size);
    if (prev >= 0) {
      return tvm_ffi_raise("ValueError", "invalid executable: globals section: functions %lld "
                           "and %lld are both named `%s`", (long long)prev, (long long)f,
                           name->data);
    }
    uint64_t mask = (uint64_t)cap - 1, i = name_hash(name->data, name->size) & mask;
    while (e->name_slots[i]) i = (i + 1) & mask;
    e->name_slots[i] = f + 1;
  }
  return 0;
}

#define VERR(...) tvm_ffi_raise("ValueError", "invalid executable: " __VA_ARGS__)

static int verify_functions(const tvm_vm_executable* e) {
  for (int64_t i = 0; i < e->num_funcs; ++i) {
    const tvm_vm_func_info* f = &e->funcs[i];
    const char* name = f->name.data;
    switch (f->kind) {
      case TVM_VM_FUNC_PACKED:
        break;
      case TVM_VM_FUNC_VM:
        if (f->start_instr < 0 || f->start_instr >= f->end_instr || f->end_instr > e->num_instrs) {
          return VERR("globals section: function %lld (`%s`): instruction range [%lld, %lld) is "
                      "empty or outside the %lld instructions of the code section",
                      (long long)i, name, (long long)f->start_instr, (long long)f->end_instr,
                      (long long)e->num_instrs);
        }
        if (f->num_args < 0 || f->register_file_size < f->num_args ||
            f->register_file_size > TVM_VM_MAX_REGISTERS) {
          return VERR("globals section: function %lld (`%s`): register_file_size %lld must be "
                      "at least num_args %lld (>= 0) and at most %lld",
                      (long long)i, name, (long long)f->register_file_size,
                      (long long)f->num_args, (long long)TVM_VM_MAX_REGISTERS);
        }
        break;
      case TVM_VM_FUNC_VMTIR:
        if (f->num_args < 0 || f->register_file_size <= f->num_args ||
            f->register_file_size > TVM_VM_MAX_REGISTERS) {
          return VERR("globals section: function %lld (`%s`): a vm_tir function needs "
                      "register_file_size (%lld) > num_args (%lld) >= 0 (its result is register "
                      "num_args), at most %lld",
                      (long long)i, name, (long long)f->register_file_size,
                      (long long)f->num_args, (long long)TVM_VM_MAX_REGISTERS);
        }
        break;
      default:
        return VERR("globals section: function %lld (`%s`): unknown kind %d", (long long)i, name,
                    (int)f->kind);
    }
  }
  for (int64_t i = 0; i < e->num_scopes; ++i) {
    if (e->scopes[i].const_idx < 0 || e->scopes[i].const_idx >= e->num_consts) {
      return VERR("memory scopes section: entry %lld names constant %lld but there are %lld "
                  "constants",
                  (long long)i, (long long)e->scopes[i].const_idx, (long long)e->num_consts);
    }
  }
  return 0;
}

/* Instructions tile instr_data exactly; opcodes, lengths and indices that do not depend on the
 * enclosing function are valid. */
static int verify_layout(tvm_vm_executable* e) {
  if (e->num_instrs == 0 && e->num_words != 0) {
    return VERR("code section: %lld words but no instructions", (long long)e->num_words);
  }
  e->max_call_args = 0;
  for (int64_t i = 0; i < e->num_instrs; ++i) {
    int64_t off = e->instr_offset[i];
    int64_t expect = i == 0 ? 0 : e->instr_offset[i - 1] +
                                      tvm_vm__instr_words(e->instr_data, e->instr_offset[i - 1]);
    if (off != expect) {
      return VERR("code section: instruction %lld starts at word %lld, expected %lld (instructions "
                  "must be contiguous)",
                  (long long)i, (long long)off, (long long)expect);
    }
    if (off >= e->num_words) {
      return VERR("code section: instruction %lld starts at word %lld, past the %lld words",
                  (long long)i, (long long)off, (long long)e->num_words);
    }
    int64_t op = e->instr_data[off];
    int64_t fixed = 0;
#define FIXED_WORDS_(name, value, text, words) \
  if (op == value) fixed = words;
    TVM_VM_OPCODES(FIXED_WORDS_)
#undef FIXED_WORDS_
    if (fixed == 0) {
      return VERR("code section: instruction %lld: unknown opcode %lld", (long long)i,
                  (long long)op);
    }
    if (off + fixed > e->num_words) {
      return VERR("code section: instruction %lld (opcode %lld) runs past the end of the %lld "
                  "words",
                  (long long)i, (long long)op, (long long)e->num_words);
    }
    if (op != TVM_VM_OP_Call) continue;
    int64_t fidx = e->instr_data[off + 2], nargs = e->instr_data[off + 3];
    if (fidx < 0 || fidx >= e->num_funcs) {
      return VERR("code section: instruction %lld: call of function index %lld, but there are %lld "
                  "functions",
                  (long long)i, (long long)fidx, (long long)e->num_funcs);
    }
    if (nargs < 0 || nargs > TVM_VM_MAX_CALL_ARGS || off + 4 + nargs > e->num_words) {
      return VERR("code section: instruction %lld: call with %lld arguments runs past the end of "
                  "the %lld words (or exceeds %lld)",
                  (long long)i, (long long)nargs, (long long)e->num_words,
                  (long long)TVM_VM_MAX_CALL_ARGS);
    }
    if (nargs > e->max_call_args) e->max_call_args = nargs;
    for (int64_t a = 0; a < nargs; ++a) {
      int64_t w = e->instr_data[off + 4 + a];
      int kind = tvm_vm_arg_kind_of(w);
      int64_t v = tvm_vm_arg_value(w);
      const char* what = NULL;
      int64_t limit = 0;
      if (kind == TVM_VM_ARG_CONST_IDX) {
        what = "constant";
        limit = e->num_consts;
      } else if (kind == TVM_VM_ARG_FUNC_IDX) {
        what = "function";
        limit = e->num_funcs;
      } else if (kind != TVM_VM_ARG_REGISTER && kind != TVM_VM_ARG_IMMEDIATE) {
        return VERR("code section: instruction %lld: argument %lld has unknown kind %d",
                    (long long)i, (long long)a, kind);
      }
      if (what && (v < 0 || v >= limit)) {
        return VERR("code section: instruction %lld: argument %lld: %s index %lld out of range "
                    "(%lld %ss)",
                    (long long)i, (long long)a, what, (long long)v, (long long)limit, what);
      }
    }
  }
  if (e->num_instrs > 0) {
    int64_t last = e->instr_offset[e->num_instrs - 1];
    if (last + tvm_vm__instr_words(e->instr_data, last) != e->num_words) {
      return VERR("code section: %lld words follow the last instruction",
                  (long long)(e->num_words - last - tvm_vm__instr_words(e->instr_data, last)));
    }
  }
  return 0;
}

static bool reg_ok(int64_t r, int64_t nregs, bool allow_void, bool allow_vm) {
  return (r >= 0 && r < nregs) || (allow_void && r == TVM_VM_REG_VOID) ||
         (allow_vm && r == TVM_VM_REG_VM);
}

/* Registers, jump targets and call arities inside one bytecode function. */
static int verify_function_code(const tvm_vm_executable* e, int64_t fi) {
  const tvm_vm_func_info* f = &e->funcs[fi];
  const char* name = f->name.data;
  int64_t nregs = f->register_file_size;
#define FERR(i, fmt, ...)                                                                    \
  VERR("code section: function `%s`, instruction %lld: " fmt, name, (long long)((i)-f->start_instr), \
       __VA_ARGS__)
  for (int64_t i = f->start_instr; i < f->end_instr; ++i) {
    const int64_t* w = &e->instr_data[e->instr_offset[i]];
    bool falls_through = false;
    int64_t target = -1;
    switch (w[0]) {
      case TVM_VM_OP_Call: {
        if (!reg_ok(w[1], nregs, true, false)) {
          return FERR(i, "destination register %lld out of range (register_file_size %lld)",
                      (long long)w[1], (long long)nregs);
        }
        const tvm_vm_func_info* callee = &e->funcs[w[2]];
        if (callee->kind != TVM_VM_FUNC_PACKED && w[3] != callee->num_args) {
          return FERR(i, "call of `%s` with %lld arguments, but it takes %lld", callee->name.data,
                      (long long)w[3], (long long)callee->num_args);
        }
        for (int64_t a = 0; a < w[3]; ++a) {
          int64_t arg = w[4 + a];
          if (tvm_vm_arg_kind_of(arg) == TVM_VM_ARG_REGISTER &&
              !reg_ok(tvm_vm_arg_value(arg), nregs, true, true)) {
            return FERR(i, "argument %lld reads register %lld, out of range (register_file_size "
                        "%lld)",
                        (long long)a, (long long)tvm_vm_arg_value(arg), (long long)nregs);
          }
        }
        falls_through = true;
        break;
      }
      case TVM_VM_OP_Ret:
        if (!reg_ok(w[1], nregs, true, false)) {
          return FERR(i, "returns register %lld, out of range (register_file_size %lld)",
                      (long long)w[1], (long long)nregs);
        }
        break;
      case TVM_VM_OP_Goto:
        if (__builtin_add_overflow(i, w[1], &target)) target = -1;
        break;
      case TVM_VM_OP_If:
        if (!reg_ok(w[1], nregs, false, false)) {
          return FERR(i, "condition register %lld out of range (register_file_size %lld)",
                      (long long)w[1], (long long)nregs);
        }
        if (__builtin_add_overflow(i, w[2], &target)) target = -1;
        falls_through = true;
        break;
    }
    if ((w[0] == TVM_VM_OP_Goto || w[0] == TVM_VM_OP_If) &&
        (target < f->start_instr || target >= f->end_instr)) {
      return FERR(i, "jump offset %lld leaves the function (%lld instructions)",
                  (long long)(w[0] == TVM_VM_OP_If ? w[2] : w[1]),
                  (long long)(f->end_instr - f->start_instr));
    }
    if (falls_through && i + 1 >= f->end_instr) {
      return FERR(i, "the last instruction must be ret or goto, not %s",
                  w[0] == TVM_VM_OP_Call ? "call" : "If");
    }
  }
#undef FERR
  return 0;
}

int tvm_vm__executable_verify(tvm_vm_executable* e) {
  if (build_name_index(e) != 0 || verify_functions(e) != 0 || verify_layout(e) != 0) return -1;
  /* Bytecode functions own disjoint instruction ranges. */
  int64_t* owner = (int64_t*)tvm_ffi_malloc((size_t)(e->num_instrs ? e->num_instrs : 1) * 8);
  if (!owner) return -1;
  for (int64_t i = 0; i < e->num_instrs; ++i) owner[i] = -1;
  tvm_ffi_free(e->fresh_dst);
  e->fresh_dst = (uint64_t*)tvm_ffi_calloc((size_t)(e->num_instrs / 64 + 1), sizeof(uint64_t));
  if (!e->fresh_dst) {
    tvm_ffi_free(owner);
    return -1;
  }
  int rc = 0;
  for (int64_t fi = 0; fi < e->num_funcs && rc == 0; ++fi) {
    const tvm_vm_func_info* f = &e->funcs[fi];
    if (f->kind != TVM_VM_FUNC_VM) continue;
    for (int64_t i = f->start_instr; i < f->end_instr && rc == 0; ++i) {
      if (owner[i] >= 0) {
        rc = VERR("globals section: functions `%s` and `%s` overlap at instruction %lld",
                  e->funcs[owner[i]].name.data, f->name.data, (long long)i);
      }
      owner[i] = fi;
    }
    if (rc == 0) rc = verify_function_code(e, fi);
    if (rc == 0) rc = tvm_vm__analyze_registers(e, fi);
  }
  tvm_ffi_free(owner);
  return rc;
}


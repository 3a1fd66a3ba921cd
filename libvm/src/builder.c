/*
 * builder.c: the executable builder (include/tvm/vm/builder.h). It checks each call as it is
 * made, so mistakes are reported where they happen, and runs the loader's verifier on the
 * finished executable.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct tvm_vm_builder {
  tvm_vm_func_info* funcs;
  bool* defined; /* bytecode functions: begin/end seen */
  int64_t num_funcs, cap_funcs, cap_defined;
  TVMFFIAny* consts;
  int64_t num_consts, cap_consts;
  tvm_vm_mem_scope* scopes;
  int64_t num_scopes, cap_scopes;
  int64_t* offsets; /* one spare entry for the end sentinel */
  int64_t num_instrs, cap_instrs;
  int64_t* words;
  int64_t num_words, cap_words;
  int64_t cur; /* function being defined, or -1 */
};

#define BERR(...) tvm_ffi_raise("ValueError", "VM builder: " __VA_ARGS__)

/* Grow *arr (of elem-byte items) so that `need` fit. */
static int reserve(void** arr, int64_t* cap, int64_t need, size_t elem) {
  if (need <= *cap) return 0;
  int64_t c = *cap ? *cap : 8;
  while (c < need) c *= 2;
  void* p = tvm_ffi_realloc(*arr, (size_t)c * elem);
  if (!p) return -1;
  *arr = p;
  *cap = c;
  return 0;
}

tvm_vm_builder* tvm_vm_builder_new(void) {
  if (tvm_vm_init() != 0) return NULL;
  tvm_vm_builder* b = (tvm_vm_builder*)tvm_ffi_calloc(1, sizeof(tvm_vm_builder));
  if (b) b->cur = -1;
  return b;
}

static void free_func(tvm_vm_func_info* f) {
  tvm_ffi_free((void*)f->name.data);
  for (int64_t p = 0; p < f->num_params; ++p) tvm_ffi_free((void*)f->param_names[p].data);
  tvm_ffi_free(f->param_names);
}

static void clear(tvm_vm_builder* b) {
  for (int64_t i = 0; i < b->num_funcs; ++i) free_func(&b->funcs[i]);
  for (int64_t i = 0; i < b->num_consts; ++i) tvm_ffi_any_release(&b->consts[i]);
  for (int64_t i = 0; i < b->num_scopes; ++i) tvm_ffi_free((void*)b->scopes[i].scope.data);
  tvm_ffi_free(b->funcs);
  tvm_ffi_free(b->defined);
  tvm_ffi_free(b->consts);
  tvm_ffi_free(b->scopes);
  tvm_ffi_free(b->offsets);
  tvm_ffi_free(b->words);
  memset(b, 0, sizeof(*b));
  b->cur = -1;
}

void tvm_vm_builder_free(tvm_vm_builder* b) {
  if (!b) return;
  clear(b);
  tvm_ffi_free(b);
}

/* ---- Function table ----------------------------------------------------------------------- */
int64_t tvm_vm_builder_find_function(const tvm_vm_builder* b, const char* name) {
  if (!b || !name) return -1;
  for (int64_t i = 0; i < b->num_funcs; ++i) {
    if (strcmp(b->funcs[i].name.data, name) == 0) return i;
  }
  return -1;
}

static int set_params(tvm_vm_func_info* f, int64_t n, const char* const* names) {
  f->param_names = (TVMFFIByteArray*)tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIByteArray));
  if (!f->param_names) return -1;
  for (int64_t i = 0; i < n; ++i) {
    char tmp[32];
    const char* s = names ? names[i] : tmp;
    if (!names) snprintf(tmp, sizeof(tmp), "arg%lld", (long long)i);
    if (!s) return BERR("function `%s`: parameter name %lld is NULL", f->name.data, (long long)i);
    f->param_names[i].size = strlen(s);
    if (!(f->param_names[i].data = tvm_vm__bytes_dup(s, f->param_names[i].size))) return -1;
    f->num_params = i + 1;
  }
  return 0;
}

static int64_t add_func(tvm_vm_builder* b, const char* name, int32_t kind, int64_t num_args,
                        int64_t regs) {
  if (!name || !name[0]) return BERR("a function needs a non-empty name");
  int64_t need = b->num_funcs + 1;
  if (reserve((void**)&b->funcs, &b->cap_funcs, need, sizeof(tvm_vm_func_info)) != 0 ||
      reserve((void**)&b->defined, &b->cap_defined, need, sizeof(bool)) != 0) {
    return -1;
  }
  tvm_vm_func_info* f = &b->funcs[b->num_funcs];
  memset(f, 0, sizeof(*f));
  f->name.size = strlen(name);
  if (!(f->name.data = tvm_vm__bytes_dup(name, f->name.size))) return -1;
  f->kind = kind;
  f->num_args = num_args;
  f->register_file_size = regs;
  b->defined[b->num_funcs] = kind != TVM_VM_FUNC_VM;
  return b->num_funcs++;
}

int64_t tvm_vm_builder_declare_packed(tvm_vm_builder* b, const char* name) {
  if (!b) return BERR("NULL builder");
  int64_t i = tvm_vm_builder_find_function(b, name);
  if (i >= 0) {
    if (b->funcs[i].kind == TVM_VM_FUNC_PACKED) return i;
    return BERR("`%s` is already declared as a %s function", name,
                tvm_vm__func_kind_name(b->funcs[i].kind));
  }
  /* Upstream writes packed entries as start 0, end 0, num_args -2, 0 registers. */
  return add_func(b, name, TVM_VM_FUNC_PACKED, -2, 0);
}

int64_t tvm_vm_builder_declare_function(tvm_vm_builder* b, const char* name, int64_t num_args) {
  if (!b) return BERR("NULL builder");
  if (num_args < 0 || num_args > TVM_VM_MAX_REGISTERS) {
    return BERR("function `%s`: num_args %lld out of range", name ? name : "", (long long)num_args);
  }
  int64_t i = tvm_vm_builder_find_function(b, name);
  if (i >= 0) {
    if (b->funcs[i].kind != TVM_VM_FUNC_VM) {
      return BERR("`%s` is already declared as a %s function", name,
                  tvm_vm__func_kind_name(b->funcs[i].kind));
    }
    if (b->funcs[i].num_args != num_args) {
      return BERR("function `%s` was declared with %lld arguments, now %lld", name,
                  (long long)b->funcs[i].num_args, (long long)num_args);
    }
    return i;
  }
  return add_func(b, name, TVM_VM_FUNC_VM, num_args, 0);
}

int64_t tvm_vm_builder_declare_vmtir(tvm_vm_builder* b, const char* name, int64_t num_args,
                                     int64_t register_file_size, const char* const* param_names) {
  if (!b) return BERR("NULL builder");
  if (tvm_vm_builder_find_function(b, name) >= 0) return BERR("`%s` is already declared", name);
  if (num_args < 0 || register_file_size <= num_args || register_file_size > TVM_VM_MAX_REGISTERS) {
    return BERR("vm_tir function `%s`: needs register_file_size (%lld) > num_args (%lld) >= 0",
                name ? name : "", (long long)register_file_size, (long long)num_args);
  }
  int64_t i = add_func(b, name, TVM_VM_FUNC_VMTIR, num_args, register_file_size);
  if (i < 0) return -1;
  if (param_names && set_params(&b->funcs[i], num_args, param_names) != 0) {
    free_func(&b->funcs[i]);
    b->num_funcs--;
    return -1;
  }
  if (!b->funcs[i].param_names) b->funcs[i].param_names = (TVMFFIByteArray*)tvm_ffi_calloc(1, sizeof(TVMFFIByteArray));
  return b->funcs[i].param_names ? i : -1;
}

int tvm_vm_builder_function_kind(const tvm_vm_builder* b, int64_t index) {
  return b && index >= 0 && index < b->num_funcs ? b->funcs[index].kind : -1;
}

int64_t tvm_vm_builder_define_vmtir(tvm_vm_builder* b, const char* name,
                                    int64_t register_file_size, const char* const* param_names) {
  if (!b) return BERR("NULL builder");
  if (b->cur >= 0) return BERR("define_vmtir(`%s`) inside function `%s`: end it first", name ? name : "", b->funcs[b->cur].name.data);
  int64_t i = tvm_vm_builder_find_function(b, name);
  if (i < 0 || b->funcs[i].kind != TVM_VM_FUNC_VM || b->defined[i]) {
    return BERR("define_vmtir: `%s` is not a declared, undefined bytecode function", name ? name : "");
  }
  tvm_vm_func_info* f = &b->funcs[i];
  if (register_file_size <= f->num_args || register_file_size > TVM_VM_MAX_REGISTERS) {
    return BERR("vm_tir function `%s`: needs register_file_size (%lld) > num_args (%lld)", name,
                (long long)register_file_size, (long long)f->num_args);
  }
  if (set_params(f, f->num_args, param_names) != 0) {
    for (int64_t p = 0; p < f->num_params; ++p) tvm_ffi_free((void*)f->param_names[p].data);
    tvm_ffi_free(f->param_names);
    f->param_names = NULL;
    f->num_params = 0;
    return -1;
  }
  f->kind = TVM_VM_FUNC_VMTIR;
  f->register_file_size = register_file_size;
  b->defined[i] = true;
  return i;
}

int64_t tvm_vm_builder_function_begin(tvm_vm_builder* b, const char* name, int64_t num_args,
                                      int64_t num_registers, const char* const* param_names) {
  if (!b) return BERR("NULL builder");
  if (b->cur >= 0) {
    return BERR("function_begin(`%s`) inside function `%s`: end it first", name ? name : "",
                b->funcs[b->cur].name.data);
  }
  if (num_registers < num_args || num_registers > TVM_VM_MAX_REGISTERS) {
    return BERR("function `%s`: num_registers %lld must be at least num_args %lld and at most %lld",
                name ? name : "", (long long)num_registers, (long long)num_args,
                (long long)TVM_VM_MAX_REGISTERS);
  }
  int64_t i = tvm_vm_builder_declare_function(b, name, num_args);
  if (i < 0) return -1;
  if (b->defined[i]) return BERR("function `%s` is already defined", name);
  tvm_vm_func_info* f = &b->funcs[i];
  if (set_params(f, num_args, param_names) != 0) {
    for (int64_t p = 0; p < f->num_params; ++p) tvm_ffi_free((void*)f->param_names[p].data);
    tvm_ffi_free(f->param_names);
    f->param_names = NULL;
    f->num_params = 0;
    return -1;
  }
  f->start_instr = b->num_instrs;
  f->register_file_size = num_registers;
  b->cur = i;
  return i;
}

/* ---- Instructions ------------------------------------------------------------------------- */
static int64_t emit(tvm_vm_builder* b, const int64_t* w, int64_t n) {
  if (reserve((void**)&b->offsets, &b->cap_instrs, b->num_instrs + 2, sizeof(int64_t)) != 0 ||
      reserve((void**)&b->words, &b->cap_words, b->num_words + n, sizeof(int64_t)) != 0) {
    return -1;
  }
  memcpy(b->words + b->num_words, w, (size_t)n * sizeof(int64_t));
  b->offsets[b->num_instrs] = b->num_words;
  b->num_words += n;
  return b->num_instrs++;
}

static const tvm_vm_func_info* current(tvm_vm_builder* b, const char* what) {
  if (!b) {
    BERR("NULL builder");
    return NULL;
  }
  if (b->cur < 0) {
    BERR("%s outside a function: call function_begin first", what);
    return NULL;
  }
  return &b->funcs[b->cur];
}

static bool reg_in(const tvm_vm_func_info* f, int64_t r, bool allow_void, bool allow_vm,
                   const char* what) {
  if ((r >= 0 && r < f->register_file_size) || (allow_void && r == TVM_VM_REG_VOID) ||
      (allow_vm && r == TVM_VM_REG_VM)) {
    return true;
  }
  BERR("function `%s`: %s register %lld is beyond its %lld registers", f->name.data, what,
       (long long)r, (long long)f->register_file_size);
  return false;
}

int64_t tvm_vm_builder_emit_call_index(tvm_vm_builder* b, int64_t fidx, const int64_t* args,
                                       int32_t num_args, int64_t dst) {
  const tvm_vm_func_info* f = current(b, "emit_call");
  if (!f) return -1;
  if (fidx < 0 || fidx >= b->num_funcs) {
    return BERR("function `%s`: call of function index %lld, but %lld are declared", f->name.data,
                (long long)fidx, (long long)b->num_funcs);
  }
  const tvm_vm_func_info* callee = &b->funcs[fidx];
  if (num_args < 0 || num_args > TVM_VM_MAX_CALL_ARGS || (num_args && !args)) {
    return BERR("function `%s`: bad argument list for a call of `%s`", f->name.data, callee->name.data);
  }
  if (callee->kind != TVM_VM_FUNC_PACKED && num_args != callee->num_args) {
    return BERR("function `%s`: call of `%s` with %d arguments, but it takes %lld", f->name.data,
                callee->name.data, (int)num_args, (long long)callee->num_args);
  }
  if (!reg_in(f, dst, true, false, "destination")) return -1;
  for (int32_t a = 0; a < num_args; ++a) {
    int kind = tvm_vm_arg_kind_of(args[a]);
    int64_t v = tvm_vm_arg_value(args[a]);
    if (kind == TVM_VM_ARG_REGISTER) {
      char what[96];
      snprintf(what, sizeof(what), "argument %d of the call of `%.32s` reads", (int)a,
               callee->name.data);
      if (!reg_in(f, v, true, true, what)) return -1;
    } else if (kind == TVM_VM_ARG_CONST_IDX && (v < 0 || v >= b->num_consts)) {
      return BERR("function `%s`: argument %d of the call of `%s`: constant %lld does not exist "
                  "(%lld constants)",
                  f->name.data, (int)a, callee->name.data, (long long)v, (long long)b->num_consts);
    } else if (kind == TVM_VM_ARG_FUNC_IDX && (v < 0 || v >= b->num_funcs)) {
      return BERR("function `%s`: argument %d of the call of `%s`: function %lld does not exist "
                  "(%lld functions)",
                  f->name.data, (int)a, callee->name.data, (long long)v, (long long)b->num_funcs);
    } else if (kind > TVM_VM_ARG_FUNC_IDX) {
      return BERR("function `%s`: argument %d of the call of `%s` has unknown kind %d",
                  f->name.data, (int)a, callee->name.data, kind);
    }
  }
  int64_t small[16];
  int64_t n = 4 + num_args;
  int64_t* w = n <= 16 ? small : (int64_t*)tvm_ffi_malloc((size_t)n * sizeof(int64_t));
  if (!w) return -1;
  w[0] = TVM_VM_OP_Call;
  w[1] = dst;
  w[2] = fidx;
  w[3] = num_args;
  if (num_args) memcpy(w + 4, args, (size_t)num_args * sizeof(int64_t));
  int64_t r = emit(b, w, n);
  if (w != small) tvm_ffi_free(w);
  return r;
}

int64_t tvm_vm_builder_emit_call(tvm_vm_builder* b, const char* func_name, const int64_t* args,
                                 int32_t num_args, int64_t dst) {
  const tvm_vm_func_info* f = current(b, "emit_call");
  if (!f) return -1;
  int64_t fidx = tvm_vm_builder_find_function(b, func_name);
  if (fidx < 0) {
    return BERR("function `%s`: call of unknown function `%s` (declare it first)", f->name.data,
                func_name ? func_name : "(null)");
  }
  return tvm_vm_builder_emit_call_index(b, fidx, args, num_args, dst);
}

int64_t tvm_vm_builder_emit_ret(tvm_vm_builder* b, int64_t result_reg) {
  const tvm_vm_func_info* f = current(b, "emit_ret");
  if (!f || !reg_in(f, result_reg, true, false, "returned")) return -1;
  int64_t w[2] = {TVM_VM_OP_Ret, result_reg};
  return emit(b, w, 2);
}

int64_t tvm_vm_builder_emit_goto(tvm_vm_builder* b, int64_t pc_offset) {
  if (!current(b, "emit_goto")) return -1;
  int64_t w[2] = {TVM_VM_OP_Goto, pc_offset};
  return emit(b, w, 2);
}

int64_t tvm_vm_builder_emit_if(tvm_vm_builder* b, int64_t cond_reg, int64_t false_offset) {
  const tvm_vm_func_info* f = current(b, "emit_if");
  if (!f || !reg_in(f, cond_reg, false, false, "condition")) return -1;
  int64_t w[3] = {TVM_VM_OP_If, cond_reg, false_offset};
  return emit(b, w, 3);
}

int64_t tvm_vm_builder_next_instr(const tvm_vm_builder* b) { return b ? b->num_instrs : -1; }

int tvm_vm_builder_set_jump_target(tvm_vm_builder* b, int64_t instr, int64_t target) {
  const tvm_vm_func_info* f = current(b, "set_jump_target");
  if (!f) return -1;
  if (instr < f->start_instr || instr >= b->num_instrs) {
    return BERR("function `%s`: instruction %lld is not in the current function", f->name.data,
                (long long)instr);
  }
  int64_t* w = &b->words[b->offsets[instr]];
  if (w[0] != TVM_VM_OP_Goto && w[0] != TVM_VM_OP_If) {
    return BERR("function `%s`: instruction %lld is not a goto or If", f->name.data, (long long)instr);
  }
  if (target < f->start_instr || target == instr) {
    return BERR("function `%s`: jump target %lld is outside the function or the jump itself",
                f->name.data, (long long)target);
  }
  w[w[0] == TVM_VM_OP_Goto ? 1 : 2] = target - instr;
  return 0;
}

int tvm_vm_builder_function_end(tvm_vm_builder* b) {
  const tvm_vm_func_info* cf = current(b, "function_end");
  if (!cf) return -1;
  tvm_vm_func_info* f = &b->funcs[b->cur];
  int64_t start = f->start_instr, end = b->num_instrs;
  if (end == start) return BERR("function `%s` has no instructions", f->name.data);
  for (int64_t i = start; i < end; ++i) {
    const int64_t* w = &b->words[b->offsets[i]];
    if (w[0] != TVM_VM_OP_Goto && w[0] != TVM_VM_OP_If) continue;
    int64_t off = w[0] == TVM_VM_OP_Goto ? w[1] : w[2];
    if (off == 0) {
      return BERR("function `%s`: the %s at instruction %lld has no target (set_jump_target)",
                  f->name.data, w[0] == TVM_VM_OP_Goto ? "goto" : "If", (long long)(i - start));
    }
    if (i + off < start || i + off >= end) {
      return BERR("function `%s`: the jump at instruction %lld (offset %lld) leaves the function "
                  "(%lld instructions)",
                  f->name.data, (long long)(i - start), (long long)off, (long long)(end - start));
    }
  }
  int64_t last = b->words[b->offsets[end - 1]];
  if (last != TVM_VM_OP_Ret && last != TVM_VM_OP_Goto) {
    return BERR("function `%s` must end with ret or goto", f->name.data);
  }
  f->end_instr = end;
  b->defined[b->cur] = true;
  b->cur = -1;
  return 0;
}

/* ---- Constants ---------------------------------------------------------------------------- */
static int64_t add_const_take(tvm_vm_builder* b, TVMFFIAny v) {
  if (reserve((void**)&b->consts, &b->cap_consts, b->num_consts + 1, sizeof(TVMFFIAny)) != 0) {
    tvm_ffi_any_release(&v);
    return -1;
  }
  b->consts[b->num_consts] = v;
  return b->num_consts++;
}

int64_t tvm_vm_builder_const_int(tvm_vm_builder* b, int64_t value) {
  return b ? add_const_take(b, tvm_ffi_any_int(value)) : BERR("NULL builder");
}

int64_t tvm_vm_builder_const_float(tvm_vm_builder* b, double value) {
  return b ? add_const_take(b, tvm_ffi_any_float(value)) : BERR("NULL builder");
}

int64_t tvm_vm_builder_const_dtype(tvm_vm_builder* b, DLDataType dtype) {
  return b ? add_const_take(b, tvm_ffi_any_dtype(dtype)) : BERR("NULL builder");
}

int64_t tvm_vm_builder_const_str(tvm_vm_builder* b, const char* s) {
  if (!b || !s) return BERR("NULL builder or string");
  TVMFFIByteArray bytes = {s, strlen(s)};
  TVMFFIAny v;
  if (TVMFFIStringFromByteArray(&bytes, &v) != 0) return -1;
  return add_const_take(b, v);
}

int64_t tvm_vm_builder_const_shape(tvm_vm_builder* b, const int64_t* dims, int64_t ndim) {
  if (!b || ndim < 0 || (ndim && !dims)) return BERR("bad shape constant");
  void* s = tvm_ffi_shape_new(dims, ndim);
  return s ? add_const_take(b, tvm_ffi_any_obj(s)) : -1;
}

int64_t tvm_vm_builder_const_tensor(tvm_vm_builder* b, const void* tensor) {
  if (!b) return BERR("NULL builder");
  if (!tensor || !tvm_ffi_instance_of(tensor, kTVMFFITensor)) {
    return BERR("const_tensor expects a Tensor");
  }
  void* t = tvm_vm__tensor_copy_to_cpu(tvm_ffi_tensor_dl(tensor));
  return t ? add_const_take(b, tvm_ffi_any_obj(t)) : -1;
}

int64_t tvm_vm_builder_const_object(tvm_vm_builder* b, const TVMFFIAny* value) {
  if (!b || !value) return BERR("NULL builder or value");
  TVMFFIAny v;
  switch (value->type_index) {
    case kTVMFFINone:
    case kTVMFFIInt:
    case kTVMFFIBool:
    case kTVMFFIFloat:
    case kTVMFFIDataType:
    case kTVMFFISmallStr:
    case kTVMFFISmallBytes:
    case kTVMFFIRawStr:
    case kTVMFFIByteArrayPtr:
    case kTVMFFIStr:
    case kTVMFFIBytes:
    case kTVMFFIShape:
      if (tvm_ffi_any_to_owned(value, &v) != 0) return -1;
      return add_const_take(b, v);
    case kTVMFFITensor:
      return tvm_vm_builder_const_tensor(b, value->v_obj);
    case kTVMFFIDLTensorPtr: {
      void* t = tvm_vm__tensor_copy_to_cpu((const DLTensor*)value->v_ptr);
      return t ? add_const_take(b, tvm_ffi_any_obj(t)) : -1;
    }
    default:
      break;
  }
  if (!tvm_ffi_any_is_object(value)) {
    return BERR("a %s cannot be a constant", tvm_ffi_any_type_name(value));
  }
  /* Other objects are saved as JSON: check now that they can be. */
  tvm_ffi_strbuf json = {0};
  int rc = tvm_ffi_json_save(value, &json);
  tvm_ffi_strbuf_free(&json);
  if (rc != 0) {
    tvm_ffi_raise_context("VM builder: a %s constant must be serializable to JSON",
                          tvm_ffi_any_type_name(value));
    return -1;
  }
  return add_const_take(b, tvm_ffi_any_copy(value));
}

int tvm_vm_builder_set_memory_scope(tvm_vm_builder* b, int64_t const_index, const char* scope) {
  if (!b || !scope) return BERR("NULL builder or scope");
  if (const_index < 0 || const_index >= b->num_consts) {
    return BERR("memory scope for constant %lld, but there are %lld constants", (long long)const_index,
                (long long)b->num_consts);
  }
  if (reserve((void**)&b->scopes, &b->cap_scopes, b->num_scopes + 1, sizeof(tvm_vm_mem_scope)) != 0) {
    return -1;
  }
  tvm_vm_mem_scope* m = &b->scopes[b->num_scopes];
  m->const_idx = const_index;
  m->scope.size = strlen(scope);
  if (!(m->scope.data = tvm_vm__bytes_dup(scope, m->scope.size))) return -1;
  b->num_scopes++;
  return 0;
}

/* ---- Finish ------------------------------------------------------------------------------- */
tvm_vm_executable* tvm_vm_builder_finish(tvm_vm_builder* b) {
  if (!b) {
    BERR("NULL builder");
    return NULL;
  }
  if (b->cur >= 0) {
    BERR("function `%s` is not ended (call function_end)", b->funcs[b->cur].name.data);
    return NULL;
  }
  for (int64_t i = 0; i < b->num_funcs; ++i) {
    if (!b->defined[i]) {
      BERR("function `%s` is declared but never defined", b->funcs[i].name.data);
      return NULL;
    }
    if (!b->funcs[i].param_names) {
      b->funcs[i].param_names = (TVMFFIByteArray*)tvm_ffi_calloc(1, sizeof(TVMFFIByteArray));
      if (!b->funcs[i].param_names) return NULL;
    }
  }
  if (reserve((void**)&b->offsets, &b->cap_instrs, b->num_instrs + 1, sizeof(int64_t)) != 0) {
    return NULL;
  }
  tvm_vm_executable* e = tvm_vm__executable_new();
  if (!e) return NULL;
  /* Move everything into the executable; the builder is left empty. */
  e->funcs = b->funcs;
  e->num_funcs = b->num_funcs;
  e->consts = b->consts;
  e->num_consts = b->num_consts;
  e->scopes = b->scopes;
  e->num_scopes = b->num_scopes;
  e->instr_offset = b->offsets;
  e->num_instrs = b->num_instrs;
  e->instr_offset[e->num_instrs] = b->num_words;
  e->instr_data = b->words;
  e->num_words = b->num_words;
  b->funcs = NULL;
  b->consts = NULL;
  b->scopes = NULL;
  b->offsets = NULL;
  b->words = NULL;
  b->num_funcs = b->num_consts = b->num_scopes = 0;
  clear(b);
  if (!e->instr_data && !(e->instr_data = (int64_t*)tvm_ffi_calloc(1, sizeof(int64_t)))) {
    tvm_ffi_release(e);
    return NULL;
  }
  if (tvm_vm__executable_verify(e) != 0) {
    tvm_ffi_release(e);
    return NULL;
  }
  return e;
}

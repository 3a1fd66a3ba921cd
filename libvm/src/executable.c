/*
 * executable.c: the executable module, its binary format (parse + serialize) and the verifier
 * that establishes every invariant the interpreter trusts. The format is documented in
 * include/tvm/vm/vm.h.
 *
 * Loading is two steps: parse (here) checks that each section is well formed and fits in the
 * bytes that remain (errors name the section); verify (exec_verify.c) checks the meaning
 * (indices, registers, jump targets, argument counts). The builder runs the same verify.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

char* tvm_vm__bytes_dup(const char* s, size_t n) { return tvm_ffi_strndup(s ? s : "", n); }

const char* tvm_vm__func_kind_name(int32_t kind) {
  switch (kind) {
    case TVM_VM_FUNC_PACKED:
      return "packed";
    case TVM_VM_FUNC_VM:
      return "vm";
    case TVM_VM_FUNC_VMTIR:
      return "vm_tir";
    default:
      return "unknown";
  }
}

/* ---- The module ------------------------------------------------------------------------- */
static void free_bytes(TVMFFIByteArray* b) {
  tvm_ffi_free((void*)b->data);
  b->data = NULL;
  b->size = 0;
}

static void exec_destroy(void* mod) {
  tvm_vm_executable* e = (tvm_vm_executable*)mod;
  for (int64_t i = 0; i < e->num_funcs; ++i) {
    tvm_vm_func_info* f = &e->funcs[i];
    free_bytes(&f->name);
    for (int64_t p = 0; p < f->num_params; ++p) free_bytes(&f->param_names[p]);
    tvm_ffi_free(f->param_names);
  }
  tvm_ffi_free(e->funcs);
  for (int64_t i = 0; i < e->num_consts; ++i) tvm_ffi_any_release(&e->consts[i]);
  tvm_ffi_free(e->consts);
  for (int64_t i = 0; i < e->num_scopes; ++i) free_bytes(&e->scopes[i].scope);
  tvm_ffi_free(e->scopes);
  tvm_ffi_free(e->instr_offset);
  tvm_ffi_free(e->instr_data);
  tvm_ffi_free(e->name_slots);
  tvm_ffi_free(e->fresh_dst);
}

/* Functions of the module hold a weak reference: the module's function cache must not keep
 * the module alive. */
typedef int (*exec_method)(tvm_vm_executable* e, const TVMFFIAny* args, int32_t n,
                           TVMFFIAny* rv);
typedef struct {
  tvm_vm_executable* exec; /* weak */
  exec_method method;
} exec_fn_self;

static void exec_fn_delete(void* self) {
  exec_fn_self* s = (exec_fn_self*)self;
  tvm_ffi_weak_release(s->exec);
  tvm_ffi_free(s);
}

static int exec_fn_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  exec_fn_self* s = (exec_fn_self*)self;
  tvm_vm_executable* e = (tvm_vm_executable*)tvm_ffi_weak_lock(s->exec);
  if (!e) return tvm_ffi_raise("RuntimeError", "the VM executable has been released");
  int rc = s->method(e, args, n, rv);
  tvm_ffi_release(e);
  return rc;
}

static int m_stats(tvm_vm_executable* e, const TVMFFIAny* a, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("relax.VMExecutable.stats", n, 0)) return -1;
  return tvm_vm_executable_stats(e, rv);
}
static int m_as_text(tvm_vm_executable* e, const TVMFFIAny* a, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("relax.VMExecutable.as_text", n, 0)) return -1;
  return tvm_vm_executable_as_text(e, rv);
}
static int m_as_python(tvm_vm_executable* e, const TVMFFIAny* a, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("relax.VMExecutable.as_python", n, 0)) return -1;
  return tvm_vm_executable_as_python(e, rv);
}
static int m_save(tvm_vm_executable* e, const TVMFFIAny* a, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("relax.VMExecutable.save", n, 0)) return -1;
  return tvm_vm_executable_save(e, rv);
}
static int m_load_vm(tvm_vm_executable* e, const TVMFFIAny* a, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("relax.VMExecutable.vm_load_executable", n, 0)) return -1;
  tvm_vm* vm = tvm_vm__new(e);
  if (!vm) return -1;
  *rv = tvm_ffi_any_obj(vm);
  return 0;
}

static const tvm_vm_func_info* func_by_name_arg(tvm_vm_executable* e, const char* fname,
                                                const TVMFFIAny* args, int32_t i) {
  TVMFFIByteArray name;
  if (!tvm_ffi_arg_bytes(fname, args, i, &name)) return NULL;
  char* s = tvm_vm__bytes_dup(name.data, name.size);
  if (!s) return NULL;
  int64_t idx = tvm_vm_executable_find_function(e, s);
  if (idx < 0) tvm_ffi_raise("ValueError", "%s: unknown function `%s`", fname, s);
  tvm_ffi_free(s);
  return idx < 0 ? NULL : &e->funcs[idx];
}

static int m_arity(tvm_vm_executable* e, const TVMFFIAny* a, int32_t n, TVMFFIAny* rv) {
  const char* fname = "relax.VMExecutable.get_function_arity";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  const tvm_vm_func_info* f = func_by_name_arg(e, fname, a, 0);
  if (!f) return -1;
  *rv = tvm_ffi_any_int(f->num_params);
  return 0;
}

static int m_param_name(tvm_vm_executable* e, const TVMFFIAny* a, int32_t n, TVMFFIAny* rv) {
  const char* fname = "relax.VMExecutable.get_function_param_name";
  int64_t i;
  if (!tvm_ffi_check_num_args(fname, n, 2) || !tvm_ffi_arg_int(fname, a, 1, &i)) return -1;
  const tvm_vm_func_info* f = func_by_name_arg(e, fname, a, 0);
  if (!f) return -1;
  if (i < 0 || i >= f->num_params) {
    return tvm_ffi_raise("IndexError", "%s: index %lld out of range for `%s` (%lld parameters)",
                         fname, (long long)i, f->name.data, (long long)f->num_params);
  }
  *rv = tvm_ffi_string_n(f->param_names[i].data, f->param_names[i].size);
  return 0;
}

static const struct {
  const char* name;
  exec_method method;
} k_exec_methods[] = {
    {"stats", m_stats},
    {"as_text", m_as_text},
    {"as_python", m_as_python},
    {"save", m_save},
    {"vm_load_executable", m_load_vm},
    {"get_function_arity", m_arity},
    {"get_function_param_name", m_param_name},
};
#define NUM_EXEC_METHODS ((int)(sizeof(k_exec_methods) / sizeof(k_exec_methods[0])))

static int exec_get_function(void* mod, const char* name, void** out) {
  *out = NULL;
  for (int i = 0; i < NUM_EXEC_METHODS; ++i) {
    if (strcmp(name, k_exec_methods[i].name) != 0) continue;
    exec_fn_self* s = (exec_fn_self*)tvm_ffi_malloc(sizeof(exec_fn_self));
    if (!s) return -1;
    s->exec = (tvm_vm_executable*)mod;
    s->method = k_exec_methods[i].method;
    tvm_ffi_weak_retain(mod);
    *out = tvm_ffi_function_new(s, exec_fn_call, exec_fn_delete);
    if (!*out) {
      exec_fn_delete(s);
      return -1;
    }
    return 0;
  }
  return 0;
}

static int exec_list_functions(void* mod, void* list) {
  for (int i = 0; i < NUM_EXEC_METHODS; ++i) {
    TVMFFIAny s = tvm_ffi_string(k_exec_methods[i].name);
    if (tvm_ffi_list_push_take(list, &s) != 0) return -1;
  }
  return 0;
}

static int exec_inspect_source(void* mod, const char* format, TVMFFIAny* out) {
  if (strcmp(format, "python") == 0) return tvm_vm_executable_as_python(mod, out);
  if (format[0] == '\0' || strcmp(format, "text") == 0) return tvm_vm_executable_as_text(mod, out);
  return tvm_ffi_raise("ValueError", "relax.VMExecutable: unknown source format `%s` "
                       "(expected \"text\" or \"python\")", format);
}

static int exec_save_to_bytes(void* mod, TVMFFIAny* out) { return tvm_vm_executable_save(mod, out); }

static int exec_write_to_file(void* mod, const char* path, const char* format) {
  return tvm_vm_executable_save_file(mod, path);
}

static const tvm_ffi_module_vtable k_exec_vtable = {
    .kind = "relax.VMExecutable",
    .property_mask = TVM_FFI_MODULE_BINARY_SERIALIZABLE,
    .get_function = exec_get_function,
    .list_functions = exec_list_functions,
    .inspect_source = exec_inspect_source,
    .save_to_bytes = exec_save_to_bytes,
    .write_to_file = exec_write_to_file,
    .destroy = exec_destroy,
};

tvm_vm_executable* tvm_vm__executable_new(void) {
  return (tvm_vm_executable*)tvm_ffi_module_new(&k_exec_vtable,
                                                sizeof(struct tvm_vm_executable_obj));
}

bool tvm_vm_is_executable(const void* obj) {
  return obj && tvm_ffi_instance_of(obj, kTVMFFIModule) &&
         ((const tvm_ffi_module_obj*)obj)->vtable == &k_exec_vtable;
}

/* ---- Reading ---------------------------------------------------------------------------- */
typedef struct {
  const uint8_t* p;
  size_t left;
  const char* section;
} reader;

static int truncated(reader* r, size_t need, const char* what) {
  return tvm_ffi_raise("ValueError",
                       "invalid executable: %s section truncated: need %zu bytes for %s but "
                       "only %zu remain",
                       r->section, need, what, r->left);
}

static int read_raw(reader* r, void* out, size_t n, const char* what) {
  if (r->left < n) {
    memset(out, 0, n); /* outputs are defined on every path */
    truncated(r, n, what);
    return -1;
  }
  memcpy(out, r->p, n);
  r->p += n;
  r->left -= n;
  return 0;
}
#define READ(r, var, what) read_raw((r), &(var), sizeof(var), (what))

/* A count of items of at least min_item_bytes each, checked against the remaining bytes
 * before anything is allocated for it. */
static int read_count(reader* r, size_t min_item_bytes, const char* what, int64_t* out) {
  uint64_t n = 0;
  *out = 0;
  if (READ(r, n, what) != 0) return -1;
  if (min_item_bytes && n > r->left / min_item_bytes) {
    return tvm_ffi_raise("ValueError",
                         "invalid executable: %s section truncated: %s is %llu but only %zu "
                         "bytes remain",
                         r->section, what, (unsigned long long)n, r->left);
  }
  *out = (int64_t)n;
  return 0;
}

static int read_str(reader* r, const char* what, TVMFFIByteArray* out) {
  int64_t n;
  if (read_count(r, 1, what, &n) != 0) return -1;
  char* s = tvm_vm__bytes_dup((const char*)r->p, (size_t)n);
  if (!s) return -1;
  r->p += n;
  r->left -= (size_t)n;
  out->data = s;
  out->size = (size_t)n;
  return 0;
}

static int read_i64_array(reader* r, const char* what, int64_t extra, int64_t* out_n,
                          int64_t** out) {
  int64_t n;
  if (read_count(r, 8, what, &n) != 0) return -1;
  int64_t* a = (int64_t*)tvm_ffi_malloc((size_t)(n + extra) * 8);
  if (!a) return -1;
  memcpy(a, r->p, (size_t)n * 8);
  r->p += n * 8;
  r->left -= (size_t)n * 8;
  *out_n = n;
  *out = a;
  return 0;
}

static int parse_globals(reader* r, tvm_vm_executable* e) {
  r->section = "globals";
  int64_t n;
  /* kind + name length + 4 fields + param count */
  if (read_count(r, 4 + 8 + 32 + 8, "the function count", &n) != 0) return -1;
  e->funcs = (tvm_vm_func_info*)tvm_ffi_calloc((size_t)n ? (size_t)n : 1, sizeof(tvm_vm_func_info));
  if (!e->funcs) return -1;
  for (int64_t i = 0; i < n; ++i) {
    tvm_vm_func_info* f = &e->funcs[i];
    e->num_funcs = i + 1; /* so that destroy frees what was read */
    if (READ(r, f->kind, "a function kind") != 0 || read_str(r, "a function name", &f->name) ||
        READ(r, f->start_instr, "start_instr") || READ(r, f->end_instr, "end_instr") ||
        READ(r, f->num_args, "num_args") ||
        READ(r, f->register_file_size, "register_file_size") ||
        read_count(r, 8, "the parameter name count", &f->num_params) != 0) {
      return -1;
    }
    f->param_names = (TVMFFIByteArray*)tvm_ffi_calloc(f->num_params ? (size_t)f->num_params : 1,
                                                      sizeof(TVMFFIByteArray));
    if (!f->param_names) {
      f->num_params = 0;
      return -1;
    }
    for (int64_t p = 0; p < f->num_params; ++p) {
      if (read_str(r, "a parameter name", &f->param_names[p]) != 0) return -1;
    }
  }
  return 0;
}

static int parse_scopes(reader* r, tvm_vm_executable* e) {
  r->section = "memory scopes";
  int64_t n;
  if (read_count(r, 16, "the memory scope count", &n) != 0) return -1;
  e->scopes = (tvm_vm_mem_scope*)tvm_ffi_calloc((size_t)n ? (size_t)n : 1, sizeof(tvm_vm_mem_scope));
  if (!e->scopes) return -1;
  for (int64_t i = 0; i < n; ++i) {
    e->num_scopes = i + 1;
    if (READ(r, e->scopes[i].const_idx, "a constant index") != 0 ||
        read_str(r, "a memory scope", &e->scopes[i].scope) != 0) {
      return -1;
    }
  }
  return 0;
}

static int const_error(int64_t i, const char* fmt, const char* detail) {
  return tvm_ffi_raise("ValueError", "invalid executable: constants section: constant %lld: %s%s",
                       (long long)i, fmt, detail ? detail : "");
}

static int parse_tensor(reader* r, int64_t ci, TVMFFIAny* out) {
  uint64_t magic, reserved;
  DLDevice dev;
  int32_t ndim;
  DLDataType dtype;
  if (READ(r, magic, "a tensor magic") || READ(r, reserved, "a tensor reserved field") ||
      READ(r, dev.device_type, "a tensor device type") || READ(r, dev.device_id, "a tensor device id") ||
      READ(r, ndim, "a tensor ndim") || READ(r, dtype, "a tensor dtype")) {
    return -1;
  }
  if (magic != TVM_VM_TENSOR_MAGIC) {
    return tvm_ffi_raise("ValueError",
                         "invalid executable: constants section: constant %lld: bad tensor magic "
                         "0x%016llx (expected 0x%016llx)",
                         (long long)ci, (unsigned long long)magic,
                         (unsigned long long)TVM_VM_TENSOR_MAGIC);
  }
  if (reserved != 0) return const_error(ci, "tensor reserved field is not 0", NULL);
  if (dev.device_type != kDLCPU || dev.device_id != 0) {
    return const_error(ci, "tensor records must be saved as CPU tensors (device 1, id 0)", NULL);
  }
  if (ndim < 0 || ndim > TVM_VM_MAX_TENSOR_NDIM) {
    return tvm_ffi_raise("ValueError",
                         "invalid executable: constants section: constant %lld: tensor ndim %d "
                         "out of range [0, %d]",
                         (long long)ci, (int)ndim, TVM_VM_MAX_TENSOR_NDIM);
  }
  if (dtype.bits == 0 || dtype.lanes == 0) {
    return const_error(ci, "tensor dtype has zero bits or lanes", NULL);
  }
  int64_t shape[TVM_VM_MAX_TENSOR_NDIM];
  for (int32_t d = 0; d < ndim; ++d) {
    if (READ(r, shape[d], "a tensor dimension") != 0) return -1;
  }
  int64_t nbytes = tvm_vm__nbytes(shape, ndim, dtype, "tensor");
  if (nbytes < 0) {
    return tvm_ffi_raise_context("invalid executable: constants section: constant %lld",
                                 (long long)ci);
  }
  int64_t stored;
  if (READ(r, stored, "the tensor data size") != 0) return -1;
  if (stored != nbytes) {
    return tvm_ffi_raise("ValueError",
                         "invalid executable: constants section: constant %lld: tensor data size "
                         "%lld does not match its shape and dtype (%lld bytes)",
                         (long long)ci, (long long)stored, (long long)nbytes);
  }
  if (r->left < (uint64_t)nbytes) return truncated(r, (size_t)nbytes, "tensor data");
  void* t = tvm_ffi_tensor_empty(shape, ndim, dtype, TVMFFIDLDeviceFromIntPair(kDLCPU, 0));
  if (!t) return -1;
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  if (tvm_ffi_dltensor_nbytes(dl) != nbytes) { /* defensive: sizes must agree */
    tvm_ffi_release(t);
    return const_error(ci, "tensor size disagrees with the allocation", NULL);
  }
  if (nbytes) memcpy((char*)dl->data + dl->byte_offset, r->p, (size_t)nbytes);
  r->p += nbytes;
  r->left -= (size_t)nbytes;
  *out = tvm_ffi_any_obj(t);
  return 0;
}

static int parse_constant(reader* r, int64_t ci, TVMFFIAny* out) {
  int32_t tag;
  if (READ(r, tag, "a constant tag") != 0) return -1;
  switch (tag) {
    case kTVMFFITensor:
      return parse_tensor(r, ci, out);
    case kTVMFFIShape: {
      int64_t n;
      if (read_count(r, 8, "a shape length", &n) != 0) return -1;
      void* s = tvm_ffi_shape_new((const int64_t*)r->p, n);
      if (!s) return -1;
      r->p += n * 8;
      r->left -= (size_t)n * 8;
      *out = tvm_ffi_any_obj(s);
      return 0;
    }
    case kTVMFFIStr:
    case kTVMFFIBytes:
    case kTVMFFIObject: {
      int64_t n;
      if (read_count(r, 1, "a string length", &n) != 0) return -1;
      TVMFFIByteArray b = {(const char*)r->p, (size_t)n};
      r->p += n;
      r->left -= (size_t)n;
      if (tag == kTVMFFIObject) {
        if (tvm_ffi_json_load(b.data, b.size, out) != 0) {
          return tvm_ffi_raise_context("invalid executable: constants section: constant %lld: "
                                       "bad JSON object",
                                       (long long)ci);
        }
        return 0;
      }
      return tag == kTVMFFIStr ? TVMFFIStringFromByteArray(&b, out)
                               : TVMFFIBytesFromByteArray(&b, out);
    }
    case kTVMFFIInt:
    case kTVMFFIBool: {
      int64_t v;
      if (READ(r, v, "an integer constant") != 0) return -1;
      if (tag == kTVMFFIBool && v != 0 && v != 1) return const_error(ci, "bool is not 0 or 1", NULL);
      *out = tag == kTVMFFIBool ? tvm_ffi_any_bool(v != 0) : tvm_ffi_any_int(v);
      return 0;
    }
    case kTVMFFIFloat: {
      double v;
      if (READ(r, v, "a float constant") != 0) return -1;
      *out = tvm_ffi_any_float(v);
      return 0;
    }
    case kTVMFFIDataType: {
      DLDataType t;
      if (READ(r, t, "a dtype constant") != 0) return -1;
      *out = tvm_ffi_any_dtype(t);
      return 0;
    }
    case kTVMFFINone:
      *out = tvm_ffi_any_none();
      return 0;
    default:
      return tvm_ffi_raise("ValueError",
                           "invalid executable: constants section: constant %lld: unknown tag %d",
                           (long long)ci, (int)tag);
  }
}

static int parse_constants(reader* r, tvm_vm_executable* e) {
  r->section = "constants";
  int64_t n;
  if (read_count(r, 4, "the constant count", &n) != 0) return -1;
  e->consts = (TVMFFIAny*)tvm_ffi_calloc((size_t)n ? (size_t)n : 1, sizeof(TVMFFIAny));
  if (!e->consts) return -1;
  for (int64_t i = 0; i < n; ++i) {
    e->num_consts = i + 1;
    if (parse_constant(r, i, &e->consts[i]) != 0) return -1;
  }
  return 0;
}

static int parse_code(reader* r, tvm_vm_executable* e) {
  r->section = "code";
  if (read_i64_array(r, "the instruction count", 1, &e->num_instrs, &e->instr_offset) != 0 ||
      read_i64_array(r, "the word count", 0, &e->num_words, &e->instr_data) != 0) {
    return -1;
  }
  e->instr_offset[e->num_instrs] = e->num_words;
  return 0;
}

tvm_vm_executable* tvm_vm_executable_load_bytes(const void* data, size_t size) {
  if (tvm_vm_init() != 0) return NULL;
  if (!data && size) {
    tvm_ffi_raise("ValueError", "tvm_vm_executable_load_bytes: NULL data");
    return NULL;
  }
  reader r = {(const uint8_t*)data, size, "header"};
  uint64_t magic;
  TVMFFIByteArray version = {NULL, 0};
  if (READ(&r, magic, "the magic number") != 0) return NULL;
  if (magic != TVM_VM_BYTECODE_MAGIC) {
    tvm_ffi_raise("ValueError",
                  "invalid executable: header section: bad magic 0x%016llx (expected 0x%016llx)",
                  (unsigned long long)magic, (unsigned long long)TVM_VM_BYTECODE_MAGIC);
    return NULL;
  }
  if (read_str(&r, "the version string", &version) != 0) return NULL;
  bool version_ok = version.size == strlen(TVM_VM_FORMAT_VERSION) &&
                    memcmp(version.data, TVM_VM_FORMAT_VERSION, version.size) == 0;
  if (!version_ok) {
    tvm_ffi_raise("ValueError",
                  "invalid executable: header section: unsupported version \"%.*s\" (expected "
                  "\"%s\")",
                  (int)(version.size > 64 ? 64 : version.size), version.data, TVM_VM_FORMAT_VERSION);
    free_bytes(&version);
    return NULL;
  }
  free_bytes(&version);
  tvm_vm_executable* e = tvm_vm__executable_new();
  if (!e) return NULL;
  if (parse_globals(&r, e) != 0 || parse_scopes(&r, e) != 0 || parse_constants(&r, e) != 0 ||
      parse_code(&r, e) != 0) {
    tvm_ffi_release(e);
    return NULL;
  }
  if (r.left != 0) {
    tvm_ffi_raise("ValueError", "invalid executable: %zu trailing bytes after the code section",
                  r.left);
    tvm_ffi_release(e);
    return NULL;
  }
  if (tvm_vm__executable_verify(e) != 0) {
    tvm_ffi_release(e);
    return NULL;
  }
  return e;
}

/* A model library (an ELF shared library, as tvm_codegen_relax_export writes): loaded with
 * libtvmffi's loader, which rebuilds its library_bin (the executable importing the library's
 * kernels) through ffi.Module.load_from_bytes.relax.VMExecutable. */
static tvm_vm_executable* load_model_library(const char* path) {
  if (tvm_vm_init() != 0) return NULL;
  /* The file opened here, not a library of that name on the dlopen search path. */
  tvm_ffi_strbuf local = {0};
  if (!strchr(path, '/')) {
    tvm_ffi_strbuf_puts(&local, "./");
    tvm_ffi_strbuf_puts(&local, path);
    if (local.failed) {
      tvm_ffi_strbuf_free(&local);
      return NULL;
    }
  }
  void* mod = tvm_ffi_module_load_file(local.data ? local.data : path); /* errors name it */
  tvm_ffi_strbuf_free(&local);
  if (!mod) return NULL;
  tvm_vm_executable* e = tvm_vm_executable_load_from_module(mod);
  tvm_ffi_release(mod);
  if (!e) tvm_ffi_raise_context("loading `%s`", path);
  return e;
}

tvm_vm_executable* tvm_vm_executable_load_file(const char* path) {
  if (!path) {
    tvm_ffi_raise("ValueError", "tvm_vm_executable_load_file: NULL path");
    return NULL;
  }
  FILE* f = fopen(path, "rb");
  if (!f) {
    tvm_ffi_raise("RuntimeError", "cannot open VM executable file `%s`", path);
    return NULL;
  }
  unsigned char head[4] = {0};
  size_t got = fread(head, 1, sizeof(head), f);
  if (got == sizeof(head) && memcmp(head, "\x7f" "ELF", 4) == 0) {
    fclose(f);
    return load_model_library(path);
  }
  rewind(f);
  tvm_ffi_strbuf b = {0};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) tvm_ffi_strbuf_append(&b, buf, n);
  bool read_error = ferror(f) != 0;
  fclose(f);
  if (read_error || b.failed) {
    tvm_ffi_strbuf_free(&b);
    if (read_error) tvm_ffi_raise("RuntimeError", "error reading VM executable file `%s`", path);
    return NULL;
  }
  tvm_vm_executable* e = tvm_vm_executable_load_bytes(b.data ? b.data : "", b.size);
  tvm_ffi_strbuf_free(&b);
  if (!e) tvm_ffi_raise_context("loading `%s`", path);
  return e;
}

static tvm_vm_executable* find_in_imports(void* mod, int depth) {
  if (tvm_vm_is_executable(mod)) {
    tvm_ffi_retain(mod);
    return (tvm_vm_executable*)mod;
  }
  if (depth > 64 || !tvm_ffi_instance_of(mod, kTVMFFIModule)) return NULL;
  void* imports = ((tvm_ffi_module_obj*)mod)->imports;
  if (!imports) return NULL;
  for (int64_t i = 0; i < tvm_ffi_seq_size(imports); ++i) {
    void* sub = tvm_ffi_any_as_object(tvm_ffi_seq_at(imports, i), kTVMFFIModule);
    tvm_vm_executable* e = sub ? find_in_imports(sub, depth + 1) : NULL;
    if (e) return e;
  }
  return NULL;
}

tvm_vm_executable* tvm_vm_executable_load_from_module(void* module) {
  if (tvm_vm_init() != 0) return NULL;
  if (!module || !tvm_ffi_instance_of(module, kTVMFFIModule)) {
    tvm_ffi_raise("TypeError", "tvm_vm_executable_load_from_module: expected an ffi.Module");
    return NULL;
  }
  if (tvm_vm_is_vm(module)) {
    tvm_vm_executable* own = tvm_vm_get_executable((tvm_vm*)module);
    tvm_ffi_retain(own);
    return own;
  }
  tvm_vm_executable* e = find_in_imports(module, 0);
  if (e) return e;
  void* f = NULL;
  if (tvm_ffi_module_get_function(module, "vm_load_executable", true, &f) != 0) return NULL;
  if (!f) {
    tvm_ffi_raise("ValueError",
                  "module of kind `%s` holds no VM executable (no relax.VMExecutable import and "
                  "no vm_load_executable function)",
                  ((tvm_ffi_module_obj*)module)->vtable->kind);
    return NULL;
  }
  TVMFFIAny r;
  int rc = tvm_ffi_function_call(f, NULL, 0, &r);
  tvm_ffi_release(f);
  if (rc != 0) return NULL;
  void* obj = tvm_ffi_any_is_object(&r) ? r.v_obj : NULL;
  if (tvm_vm_is_executable(obj)) return (tvm_vm_executable*)obj; /* takes r's reference */
  if (tvm_vm_is_vm(obj)) e = tvm_vm_get_executable((tvm_vm*)obj);
  tvm_ffi_retain(e);
  tvm_ffi_any_release(&r);
  if (!e) {
    tvm_ffi_raise("TypeError", "vm_load_executable returned neither an executable nor a VM");
  }
  return e;
}

/* ---- Writing ---------------------------------------------------------------------------- */
#define PUT(b, v) tvm_ffi_strbuf_append((b), (const char*)&(v), sizeof(v))

static void put_u64(tvm_ffi_strbuf* b, uint64_t v) { PUT(b, v); }
static void put_str(tvm_ffi_strbuf* b, const char* s, size_t n) {
  put_u64(b, n);
  tvm_ffi_strbuf_append(b, s, n);
}

static int serialize_constant(const TVMFFIAny* v, int64_t ci, tvm_ffi_strbuf* b) {
  int32_t tag = v->type_index;
  TVMFFIByteArray bytes;
  switch (v->type_index) {
    case kTVMFFINone:
      PUT(b, tag);
      return 0;
    case kTVMFFIInt:
    case kTVMFFIBool:
      PUT(b, tag);
      PUT(b, v->v_int64);
      return 0;
    case kTVMFFIFloat:
      PUT(b, tag);
      PUT(b, v->v_float64);
      return 0;
    case kTVMFFIDataType:
      PUT(b, tag);
      PUT(b, v->v_dtype);
      return 0;
    case kTVMFFISmallStr:
    case kTVMFFIStr:
    case kTVMFFISmallBytes:
    case kTVMFFIBytes:
      tag = (v->type_index == kTVMFFISmallStr || v->type_index == kTVMFFIStr) ? kTVMFFIStr
                                                                              : kTVMFFIBytes;
      tvm_ffi_any_as_bytes(v, &bytes);
      PUT(b, tag);
      put_str(b, bytes.data, bytes.size);
      return 0;
    case kTVMFFIShape: {
      int64_t n = tvm_ffi_shape_ndim(v->v_obj);
      PUT(b, tag);
      put_u64(b, (uint64_t)n);
      tvm_ffi_strbuf_append(b, (const char*)tvm_ffi_shape_data(v->v_obj), (size_t)n * 8);
      return 0;
    }
    case kTVMFFITensor: {
      const DLTensor* t = tvm_ffi_tensor_dl(v->v_obj);
      if (t->device.device_type != kDLCPU || !tvm_ffi_dltensor_is_contiguous(t)) {
        return tvm_ffi_raise("ValueError", "cannot save constant %lld: not a compact CPU tensor",
                             (long long)ci);
      }
      uint64_t magic = TVM_VM_TENSOR_MAGIC, reserved = 0;
      DLDevice cpu = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
      int64_t nbytes = tvm_ffi_dltensor_nbytes(t);
      PUT(b, tag);
      PUT(b, magic);
      PUT(b, reserved);
      PUT(b, cpu.device_type);
      PUT(b, cpu.device_id);
      PUT(b, t->ndim);
      PUT(b, t->dtype);
      tvm_ffi_strbuf_append(b, (const char*)t->shape, (size_t)t->ndim * 8);
      PUT(b, nbytes);
      tvm_ffi_strbuf_append(b, (const char*)t->data + t->byte_offset, (size_t)nbytes);
      return 0;
    }
    default:
      if (!tvm_ffi_any_is_object(v)) {
        return tvm_ffi_raise("TypeError", "cannot save constant %lld of type %s", (long long)ci,
                             tvm_ffi_any_type_name(v));
      }
      tvm_ffi_strbuf json = {0};
      if (tvm_ffi_json_save(v, &json) != 0) {
        tvm_ffi_strbuf_free(&json);
        return tvm_ffi_raise_context("cannot save constant %lld of type %s", (long long)ci,
                                     tvm_ffi_any_type_name(v));
      }
      tag = kTVMFFIObject;
      PUT(b, tag);
      put_str(b, json.data ? json.data : "", json.size);
      tvm_ffi_strbuf_free(&json);
      return 0;
  }
}

int tvm_vm__executable_serialize(const tvm_vm_executable* e, tvm_ffi_strbuf* b) {
  uint64_t magic = TVM_VM_BYTECODE_MAGIC;
  PUT(b, magic);
  put_str(b, TVM_VM_FORMAT_VERSION, strlen(TVM_VM_FORMAT_VERSION));
  put_u64(b, (uint64_t)e->num_funcs);
  for (int64_t i = 0; i < e->num_funcs; ++i) {
    const tvm_vm_func_info* f = &e->funcs[i];
    PUT(b, f->kind);
    put_str(b, f->name.data, f->name.size);
    PUT(b, f->start_instr);
    PUT(b, f->end_instr);
    PUT(b, f->num_args);
    PUT(b, f->register_file_size);
    put_u64(b, (uint64_t)f->num_params);
    for (int64_t p = 0; p < f->num_params; ++p) {
      put_str(b, f->param_names[p].data, f->param_names[p].size);
    }
  }
  put_u64(b, (uint64_t)e->num_scopes);
  for (int64_t i = 0; i < e->num_scopes; ++i) {
    PUT(b, e->scopes[i].const_idx);
    put_str(b, e->scopes[i].scope.data, e->scopes[i].scope.size);
  }
  put_u64(b, (uint64_t)e->num_consts);
  for (int64_t i = 0; i < e->num_consts; ++i) {
    if (serialize_constant(&e->consts[i], i, b) != 0) return -1;
  }
  put_u64(b, (uint64_t)e->num_instrs);
  tvm_ffi_strbuf_append(b, (const char*)e->instr_offset, (size_t)e->num_instrs * 8);
  put_u64(b, (uint64_t)e->num_words);
  tvm_ffi_strbuf_append(b, (const char*)e->instr_data, (size_t)e->num_words * 8);
  if (b->failed) return tvm_ffi_raise("MemoryError", "out of memory serializing an executable");
  return 0;
}

int tvm_vm_executable_save(const tvm_vm_executable* exec, TVMFFIAny* out_bytes) {
  *out_bytes = tvm_ffi_any_none();
  if (!tvm_vm_is_executable(exec)) return tvm_ffi_raise("TypeError", "not a VM executable");
  tvm_ffi_strbuf b = {0};
  int rc = tvm_vm__executable_serialize(exec, &b);
  if (rc == 0) {
    TVMFFIByteArray bytes = {b.data ? b.data : "", b.size};
    rc = TVMFFIBytesFromByteArray(&bytes, out_bytes);
  }
  tvm_ffi_strbuf_free(&b);
  return rc;
}

int tvm_vm_executable_save_file(const tvm_vm_executable* exec, const char* path) {
  TVMFFIAny bytes;
  if (tvm_vm_executable_save(exec, &bytes) != 0) return -1;
  TVMFFIByteArray data;
  tvm_ffi_any_as_bytes(&bytes, &data);
  FILE* f = fopen(path, "wb");
  int rc = 0;
  if (!f) {
    rc = tvm_ffi_raise("RuntimeError", "cannot open `%s` for writing", path);
  } else {
    bool ok = fwrite(data.data, 1, data.size, f) == data.size;
    ok &= fclose(f) == 0;
    if (!ok) rc = tvm_ffi_raise("RuntimeError", "error writing `%s`", path);
  }
  tvm_ffi_any_release(&bytes);
  return rc;
}

int tvm_vm_executable_import(tvm_vm_executable* exec, void* module) {
  if (!tvm_vm_is_executable(exec)) return tvm_ffi_raise("TypeError", "not a VM executable");
  return tvm_ffi_module_import(exec, module);
}

/* ---- Queries ---------------------------------------------------------------------------- */
int64_t tvm_vm_executable_find_function(const tvm_vm_executable* exec, const char* name) {
  if (!tvm_vm_is_executable(exec) || !name) return -1;
  return tvm_vm__find_name(exec, name, strlen(name));
}

int64_t tvm_vm_executable_num_functions(const tvm_vm_executable* exec) {
  return tvm_vm_is_executable(exec) ? exec->num_funcs : 0;
}

static bool func_ok(const tvm_vm_executable* exec, int64_t i) {
  return tvm_vm_is_executable(exec) && i >= 0 && i < exec->num_funcs;
}

const char* tvm_vm_executable_function_name(const tvm_vm_executable* exec, int64_t i) {
  return func_ok(exec, i) ? exec->funcs[i].name.data : NULL;
}
int tvm_vm_executable_function_kind(const tvm_vm_executable* exec, int64_t i) {
  return func_ok(exec, i) ? exec->funcs[i].kind : -1;
}
int64_t tvm_vm_executable_function_num_args(const tvm_vm_executable* exec, int64_t i) {
  return func_ok(exec, i) ? exec->funcs[i].num_args : -1;
}
int64_t tvm_vm_executable_num_constants(const tvm_vm_executable* exec) {
  return tvm_vm_is_executable(exec) ? exec->num_consts : 0;
}
const TVMFFIAny* tvm_vm_executable_constant(const tvm_vm_executable* exec, int64_t i) {
  return tvm_vm_is_executable(exec) && i >= 0 && i < exec->num_consts ? &exec->consts[i] : NULL;
}
int64_t tvm_vm_executable_num_instructions(const tvm_vm_executable* exec) {
  return tvm_vm_is_executable(exec) ? exec->num_instrs : 0;
}

int64_t tvm_vm__instr_at_word(const tvm_vm_executable* e, int64_t word) {
  int64_t lo = 0, hi = e->num_instrs; /* largest i with instr_offset[i] <= word */
  while (hi - lo > 1) {
    int64_t mid = (lo + hi) / 2;
    if (e->instr_offset[mid] <= word) lo = mid;
    else hi = mid;
  }
  return lo;
}

/*
 * common.c: argument scanning, file loading and parsing, function selection and error
 * reporting shared by the tvmc subcommands (tvmc.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/relax.h>
#include <unistd.h>
#include <tvm/script/parser.h>

#include <tvm/codegen/codegen.h>

#include "tvmc.h"

/* ---- Arguments ---------------------------------------------------------------------------- */
int tvmc_flag_value(const char* cmd, int argc, char** argv, int* i, const char* name,
                    const char* alias, const char** out) {
  const char* arg = argv[*i];
  const char* names[2] = {name, alias};
  for (int k = 0; k < 2; ++k) {
    if (!names[k]) continue;
    size_t n = strlen(names[k]);
    if (strncmp(arg, names[k], n) != 0) continue;
    if (arg[n] == '=') {
      *out = arg + n + 1;
      return 1;
    }
    if (arg[n] != '\0') continue;
    if (*i + 1 >= argc) {
      tvmc_usage_error(cmd, "option %s needs a value", names[k]);
      return -1;
    }
    *out = argv[++*i];
    return 1;
  }
  return 0;
}

bool tvmc_is_help(const char* arg) { return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0; }

int tvmc_usage_error(const char* cmd, const char* fmt, ...) {
  fprintf(stderr, "tvmc %s: ", cmd);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (see `tvmc %s --help`)\n", cmd);
  return TVMC_USAGE_ERROR;
}

bool tvmc_parse_int(const char* cmd, const char* flag, const char* arg, int64_t* out) {
  char* end;
  errno = 0;
  long long v = strtoll(arg, &end, 10);
  if (end == arg || *end != '\0' || errno == ERANGE) {
    tvmc_usage_error(cmd, "%s expects an integer, got '%s'", flag, arg);
    return false;
  }
  *out = v;
  return true;
}

bool tvmc_parse_exec_mode(const char* cmd, const char* arg, tvm_codegen_options* codegen) {
  if (strcmp(arg, "bytecode") == 0 || strcmp(arg, "compiled") == 0) {
    codegen->exec_mode = arg[0] == 'c' ? TVM_CODEGEN_EXEC_COMPILED : TVM_CODEGEN_EXEC_BYTECODE;
    return true;
  }
  tvmc_usage_error(cmd, "--exec-mode expects bytecode or compiled, got '%s'", arg);
  return false;
}

uint64_t tvmc_memory_limit(const char* cmd, bool* ok) {
  *ok = true;
  const char* env = getenv("TVMC_MEMORY_LIMIT");
  if (env && *env) {
    char* end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
              : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift) ++end;
    if (end == env || *env == '-' || *end || errno || v > (UINT64_MAX >> shift)) {
      fprintf(stderr, "tvmc %s: TVMC_MEMORY_LIMIT=%s is not a byte count (digits, optionally "
              "followed by K, M or G)\n", cmd, env);
      *ok = false;
      return 0;
    }
    return (uint64_t)v << shift;
  }
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return UINT64_MAX;
  return (uint64_t)pages / 2 * (uint64_t)page_size;
}

/* ---- Files and IR --------------------------------------------------------------------------- */
char* tvmc_read_file(const char* cmd, const char* path, size_t* out_len) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "tvmc %s: cannot open '%s': %s\n", cmd, path, strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char* buf = malloc(cap);
  while (buf) {
    len += fread(buf + len, 1, cap - len - 1, f);
    if (len < cap - 1) break;
    char* grown = realloc(buf, cap * 2);
    if (!grown) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  bool failed = !buf || ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "tvmc %s: cannot read '%s'\n", cmd, path);
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  *out_len = len;
  return buf;
}

bool tvmc_write_text(const char* cmd, const char* path, const char* text, size_t len) {
  FILE* f = path ? fopen(path, "wb") : stdout;
  if (!f) {
    fprintf(stderr, "tvmc %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
    return false;
  }
  bool ok = fwrite(text, 1, len, f) == len;
  if (path) ok = (fclose(f) == 0) && ok;
  if (!ok) fprintf(stderr, "tvmc %s: cannot write '%s'\n", cmd, path ? path : "<stdout>");
  return ok;
}

void* tvmc_parse_file(const char* cmd, const char* path, bool check_well_formed,
                      int* out_status) {
  size_t len;
  char* text = tvmc_read_file(cmd, path, &len);
  if (!text) {
    *out_status = TVMC_USAGE_ERROR;
    return NULL;
  }
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = path;
  opts.check_well_formed = check_well_formed;
  void* ir = tvm_script_parse(text, len, &opts);
  free(text);
  *out_status = TVMC_PROGRAM_ERROR;
  if (!ir) {
    void* err = tvm_ffi_error_take();
    const char* msg = err ? tvm_ffi_error_message(err) : "unknown error";
    /* Located errors are rendered "file:line:col: error: ..." already; give others the file. */
    if (strncmp(msg, path, strlen(path)) == 0)
      fprintf(stderr, "%s\n", msg);
    else
      fprintf(stderr, "%s: error: %s: %s\n", path, err ? tvm_ffi_error_kind(err) : "Error", msg);
    tvm_ffi_release(err);
    return NULL;
  }
  tvm_tir_kind k = tvm_tir_kind_of(ir);
  /* A standalone @R.function: check and fmt only (build and run take a module). */
  bool relax_ok = tvm_relax_kind_of(ir) == TVM_RELAX_KIND_Function &&
                  (strcmp(cmd, "check") == 0 || strcmp(cmd, "fmt") == 0);
  if (!relax_ok && tvm_relax_kind_of(ir) == TVM_RELAX_KIND_Function) {
    fprintf(stderr, "%s: error: a lone @R.function: put it in an `@I.ir_module` class to %s it\n",
            path, cmd);
    tvm_ffi_release(ir);
    return NULL;
  }
  if (k != TVM_TIR_KIND_PrimFunc && k != TVM_TIR_KIND_IRModule && !relax_ok) {
    fprintf(stderr,
            "%s: error: expected a `@T.prim_func` function or an `@I.ir_module` class, got a %s\n",
            path, tvm_ffi_type_key(tvm_ffi_type_index(ir)));
    tvm_ffi_release(ir);
    return NULL;
  }
  *out_status = TVMC_OK;
  return ir;
}

/* f with attrs["global_symbol"] = name unless it has one (a new reference). */
static tvm_tir_prim_func_obj* with_symbol(const tvm_tir_prim_func_obj* f, const char* name) {
  if (tvm_tir_func_global_symbol(f)) {
    tvm_ffi_retain((void*)f);
    return (tvm_tir_prim_func_obj*)f;
  }
  TVMFFIAny sym = tvm_ffi_string(name);
  tvm_tir_prim_func_obj* g = tvm_tir_prim_func_with_attr((tvm_tir_prim_func_obj*)f, "global_symbol",
                                                         &sym);
  tvm_ffi_any_release(&sym);
  return g;
}

/* The PrimFuncs of a module: their names (ffi.String of the GlobalVars, borrowed) and the
 * functions (borrowed), at most cap; returns how many there are. */
static int64_t module_prim_funcs(const tvm_tir_ir_module_obj* mod, const char** names,
                                 const void** funcs, int64_t cap) {
  int64_t n = 0;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &key, &val)) >= 0;) {
    if (!tvm_ffi_any_is_object(val) || tvm_tir_kind_of(val->v_obj) != TVM_TIR_KIND_PrimFunc)
      continue;
    if (n < cap) {
      names[n] = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)key->v_obj)->name_hint);
      funcs[n] = val->v_obj;
    }
    n++;
  }
  return n;
}

enum { MAX_LISTED = 64 };

tvm_tir_prim_func_obj* tvmc_select_func(const char* cmd, const char* path, const void* ir,
                                        const char* name) {
  const void* f = NULL;
  const char* fname = NULL;
  if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_PrimFunc) {
    const char* sym = tvm_tir_func_global_symbol(ir);
    if (name && sym && strcmp(name, sym) != 0) {
      fprintf(stderr, "tvmc %s: '%s' has no function `%s` (its function is `%s`)\n", cmd, path,
              name, sym);
      return NULL;
    }
    f = ir;
    fname = name ? name : sym ? sym : "main";
  } else {
    const char* names[MAX_LISTED];
    const void* funcs[MAX_LISTED];
    int64_t n = module_prim_funcs(ir, names, funcs, MAX_LISTED);
    if (n > MAX_LISTED) n = MAX_LISTED;
    for (int64_t k = 0; k < n && !f; ++k) {
      bool match = name ? strcmp(names[k], name) == 0 : (n == 1 || strcmp(names[k], "main") == 0);
      if (match) {
        f = funcs[k];
        fname = names[k];
      }
    }
    if (!f) {
      tvm_ffi_strbuf list = {0};
      for (int64_t k = 0; k < n; ++k) tvm_ffi_strbuf_printf(&list, "%s%s", k ? ", " : "", names[k]);
      if (n == 0)
        fprintf(stderr, "tvmc %s: '%s' defines no @T.prim_func\n", cmd, path);
      else if (name)
        fprintf(stderr, "tvmc %s: '%s' has no function `%s` (it has: %s)\n", cmd, path, name,
                tvm_ffi_strbuf_cstr(&list));
      else
        fprintf(stderr, "tvmc %s: '%s' defines several functions; choose one with --func (%s)\n",
                cmd, path, tvm_ffi_strbuf_cstr(&list));
      tvm_ffi_strbuf_free(&list);
      return NULL;
    }
  }
  tvm_tir_prim_func_obj* g = with_symbol(f, fname);
  if (!g) tvmc_report_error(cmd, "cannot set the function's global_symbol");
  return g;
}

void* tvmc_module_with_symbols(const void* ir) {
  if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_PrimFunc) {
    const char* sym = tvm_tir_func_global_symbol(ir);
    tvm_tir_prim_func_obj* f = with_symbol(ir, sym ? sym : "main");
    if (!f) return NULL;
    tvm_tir_global_var_obj* gv = tvm_tir_global_var_new(tvm_tir_func_global_symbol(f));
    TVMFFIAny k = tvm_ffi_any_obj(gv), v = tvm_ffi_any_obj(f);
    void* fns = gv ? tvm_ffi_map_new(&k, &v, 1) : NULL;
    void* mod = fns ? tvm_tir_ir_module_new(fns, NULL) : NULL;
    tvm_ffi_release(fns);
    tvm_ffi_release(gv);
    tvm_ffi_release(f);
    return mod;
  }
  const tvm_tir_ir_module_obj* mod = ir;
  int64_t n = tvm_ffi_map_size(mod->functions);
  TVMFFIAny* keys = calloc((size_t)n + 1, sizeof(TVMFFIAny));
  TVMFFIAny* vals = calloc((size_t)n + 1, sizeof(TVMFFIAny));
  int64_t m = 0;
  bool ok = keys && vals;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; ok && (pos = tvm_ffi_map_next(mod->functions, pos, &key, &val)) >= 0;) {
    if (!tvm_ffi_any_is_object(val) || tvm_tir_kind_of(val->v_obj) != TVM_TIR_KIND_PrimFunc)
      continue; /* only PrimFuncs compile to kernels */
    const char* name = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)key->v_obj)->name_hint);
    tvm_tir_prim_func_obj* f = with_symbol((const void*)val->v_obj, name);
    if (!f) {
      ok = false;
      break;
    }
    keys[m] = tvm_ffi_any_copy(key);
    vals[m++] = tvm_ffi_any_obj(f); /* owns f's reference */
  }
  void* fns = ok ? tvm_ffi_map_new(keys, vals, m) : NULL;
  void* out = fns ? tvm_tir_ir_module_new(fns, NULL) : NULL;
  for (int64_t k = 0; k < m; ++k) {
    tvm_ffi_any_release(&keys[k]);
    tvm_ffi_any_release(&vals[k]);
  }
  free(keys);
  free(vals);
  tvm_ffi_release(fns);
  if (!ok && !tvm_ffi_error_pending()) tvm_ffi_raise("MemoryError", "out of memory");
  return out;
}

/* ---- Errors ------------------------------------------------------------------------------- */
void tvmc_report_error(const char* cmd, const char* what) {
  void* err = tvm_ffi_error_take();
  if (err)
    fprintf(stderr, "tvmc %s: %s: %s: %s\n", cmd, what, tvm_ffi_error_kind(err),
            tvm_ffi_error_message(err));
  else
    fprintf(stderr, "tvmc %s: %s\n", cmd, what);
  tvm_ffi_release(err);
}

void* tvmc_schedule(const void* ir, bool enabled) {
  if (!enabled) {
    tvm_ffi_retain((void*)ir);
    return (void*)ir;
  }
  tvm_tir_schedule_target t;
  tvm_codegen_schedule_target(NULL, &t);
  return tvm_tir_schedule_default(ir, &t);
}

/*
 * model_build.c: `tvmc build` of a Relax model: the Relax build (tvm/codegen/relax_build.h) into
 * one model library (the VM executable and its kernels), the executable printed with --emit,
 * and the module after each pass of the pipeline written as TVMScript with --dump-ir.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/script/printer.h>
#include <tvm/vm/vm.h>

#include "model.h"
#include "tvmc.h"

bool tvmc_is_relax_module(const void* ir) {
  if (tvm_tir_kind_of(ir) != TVM_TIR_KIND_IRModule) return false;
  const TVMFFIAny *key, *val;
  const tvm_tir_ir_module_obj* mod = ir;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &key, &val)) >= 0;)
    if (tvm_ffi_any_is_object(val) && tvm_relax_kind_of(val->v_obj) == TVM_RELAX_KIND_Function)
      return true;
  return false;
}

/* --dump-ir: the folder and the number of the next file. */
typedef struct {
  const char* dir;
  int next;
} dump_ctx;

/* Write mod as TVMScript to dir/NN_name.py (name's characters other than letters, digits and
 * '_' become '_'). 0, or -1 with an error raised. */
static int dump_module(dump_ctx* d, const char* name, const tvm_tir_ir_module_obj* mod) {
  char safe[128];
  size_t n = 0;
  for (const char* c = name; *c && n + 1 < sizeof(safe); ++c, ++n)
    safe[n] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')
                  ? *c
                  : '_';
  safe[n] = '\0';
  tvm_ffi_strbuf path = {0};
  tvm_ffi_strbuf_printf(&path, "%s/%02d_%s.py", d->dir, d->next++, safe);
  void* text = tvm_script_print_obj(mod, NULL);
  int rc = -1;
  if (text) {
    TVMFFIAny t = tvm_ffi_any_obj(text);
    TVMFFIByteArray b = {0};
    tvm_ffi_any_as_bytes(&t, &b);
    FILE* f = fopen(tvm_ffi_strbuf_cstr(&path), "wb");
    bool ok = f && fwrite(b.data, 1, b.size, f) == b.size;
    if (f) ok = fclose(f) == 0 && ok;
    if (ok)
      rc = 0;
    else
      tvm_ffi_raise("OSError", "cannot write '%s': %s", tvm_ffi_strbuf_cstr(&path),
                    strerror(errno));
  } else {
    tvm_ffi_raise_context("cannot print the module after %s", name);
  }
  tvm_ffi_release(text);
  tvm_ffi_strbuf_free(&path);
  return rc;
}

static int after_pass(void* ctx, const char* pass, const tvm_tir_ir_module_obj* result) {
  return dump_module(ctx, pass, result);
}

/* Print exec's as_text / as_python on stdout. */
static int emit(const tvm_vm_executable* exec, const char* what) {
  TVMFFIAny text = tvm_ffi_any_none();
  int rc = strcmp(what, "text") == 0 ? tvm_vm_executable_as_text(exec, &text)
                                     : tvm_vm_executable_as_python(exec, &text);
  if (rc != 0) {
    tvmc_report_error("build", "cannot print the executable");
    return TVMC_FAILURE;
  }
  TVMFFIByteArray b = {0};
  tvm_ffi_any_as_bytes(&text, &b);
  bool ok = tvmc_write_text("build", NULL, b.data, b.size);
  tvm_ffi_any_release(&text);
  return ok ? TVMC_OK : TVMC_FAILURE;
}

int tvmc_model_build(const void* mod, const tvmc_model_build_options* opts) {
  const char* cmd = "build";
  tvm_codegen_options co = opts->codegen;
  dump_ctx dump = {opts->dump_ir, 0};
  if (opts->dump_ir) {
    if (mkdir(opts->dump_ir, 0777) != 0 && errno != EEXIST) {
      fprintf(stderr, "tvmc build: --dump-ir: cannot make the folder '%s': %s\n", opts->dump_ir,
              strerror(errno));
      return TVMC_USAGE_ERROR;
    }
    if (dump_module(&dump, "input", mod) != 0) {
      tvmc_report_error(cmd, "--dump-ir");
      return TVMC_FAILURE;
    }
    co.relax_after_pass = after_pass;
    co.relax_after_pass_ctx = &dump;
  }
  tvm_vm_executable* exec = NULL;
  if (opts->out) {
    if (tvm_codegen_relax_export(mod, opts->out, &co) != 0) {
      char what[512];
      snprintf(what, sizeof(what), "building the model '%s' into '%s' failed", opts->path,
               opts->out);
      tvmc_report_error(cmd, what);
      return TVMC_FAILURE;
    }
    if (!opts->emit) return TVMC_OK;
    /* The executable printed is the one the library holds. */
    tvm_vm_init();
    exec = tvm_vm_executable_load_file(opts->out);
    if (!exec) {
      tvmc_report_error(cmd, "cannot load the library just written");
      return TVMC_FAILURE;
    }
  } else if (!(exec = tvm_codegen_relax_build(mod, &co))) {
    char what[512];
    snprintf(what, sizeof(what), "building the model '%s' failed", opts->path);
    tvmc_report_error(cmd, what);
    return TVMC_FAILURE;
  }
  int status = emit(exec, opts->emit);
  tvm_vm_executable_release(exec);
  return status;
}

/*
 * relax_export.c: a Relax module exported as one shared library (tvm_codegen_relax_export):
 * the PrimFuncs compiled into it as with tvm_codegen_export, and the VM executable's bytes in its
 * __tvm_ffi__library_bin, laid out as upstream's export_library does for a relax.build result:
 *
 *   modules[0] = relax.VMExecutable (payload: tvm_vm_executable_save), importing
 *   modules[1] = "_lib" (the library's own kernels)
 *
 * so that loading the library (tvm_ffi_module_load_file, once libvm has registered
 * ffi.Module.load_from_bytes.relax.VMExecutable) gives the executable back with the kernels as
 * its import, which is where the VM resolves call_tir's packed functions.
 */
#include <string.h>

#include <tvm/codegen/relax_build.h>
#include <tvm/relax/transform.h>
#include <tvm/tir/transform.h>

#include "internal.h"

/* The stand-in for the kernels while the library_bin is packed: a module that is compiled into
 * the library (COMPILATION_EXPORTABLE), hence written as "_lib". It has no functions. */
static int lib_placeholder_get_function(void* mod, const char* name, void** out) {
  (void)mod, (void)name;
  *out = NULL;
  return 0;
}

static const tvm_ffi_module_vtable g_lib_placeholder = {
    .kind = "llvm",
    .property_mask = TVM_FFI_MODULE_COMPILATION_EXPORTABLE,
    .get_function = lib_placeholder_get_function,
};

/* The library_bin of exec + the library's kernels into *out. */
static int pack_library_bin(tvm_vm_executable* exec, tvm_ffi_strbuf* out) {
  void* lib = tvm_ffi_module_new(&g_lib_placeholder, sizeof(tvm_ffi_module_obj));
  if (!lib) return -1;
  int rc = tvm_vm_executable_import(exec, lib);
  if (rc == 0) rc = tvm_ffi_module_pack_library_bin(exec, out);
  tvm_ffi_release(lib);
  return rc;
}

static int relax_export(const tvm_tir_ir_module_obj* mod_in, const char* path_so,
                        const tvm_codegen_options* options) {
  if (!path_so) return tvm_ffi_raise("ValueError", "tvm_codegen_relax_export: the path is NULL");
  /* The same build pipeline as tvm_codegen_relax_build. */
  const tvm_relax_pass* passes;
  int64_t n = tvm_relax_build_pipeline_passes(&passes);
  tvm_tir_ir_module_obj* mod =
      options ? tvm_relax_run_passes_observed(mod_in, passes, n, options->relax_after_pass,
                                              options->relax_after_pass_ctx)
              : tvm_relax_run_passes(mod_in, passes, n);
  tvm_tir_ir_module_obj* tir = NULL;
  tvm_vm_executable* exec = mod ? tvm_codegen__relax_vm_codegen_mode(mod, &tir, options) : NULL;
  if (!exec) {
    tvm_ffi_release(mod);
    return -1;
  }
  tvm_ffi_strbuf bin = {0};
  void* lowered = NULL;
  tvm_codegen_target target;
  int rc = tvm_codegen__relax_target(options, &target);
  if (rc == 0 && target.kind == TVM_CODEGEN_TARGET_CUDA && tvm_codegen__has_gpu_kernels(tir)) {
    /* the executable imports "_lib", which imports the kernels' cuda module */
    tvm_codegen_options o = options ? *options : tvm_codegen_options_default();
    rc = (lowered = tvm_codegen__schedule_and_lower(tir, options)) ? 0 : -1;
    if (rc == 0) rc = tvm_codegen__cuda_export(lowered, &target, &o, path_so, exec);
  } else if (rc == 0) {
    rc = pack_library_bin(exec, &bin);
    if (rc == 0 && bin.failed) rc = -1;
    if (rc == 0) rc = (lowered = tvm_codegen__schedule_and_lower(tir, options)) ? 0 : -1;
    if (rc == 0) rc = tvm_codegen__export_library(lowered, path_so, options, bin.data, bin.size);
  }
  if (rc != 0) tvm_ffi_raise_context("exporting the Relax module to %s", path_so);
  tvm_ffi_release(lowered);
  tvm_ffi_release(tir);
  tvm_ffi_strbuf_free(&bin);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
  return rc;
}

int tvm_codegen_relax_export(const tvm_tir_ir_module_obj* mod, const char* path_so,
                             const tvm_codegen_options* options) {
  /* A stale error the caller left raised is set aside (ffi.h, tvm_ffi_error_take). */
  void* stale = tvm_ffi_error_take();
  int rc = relax_export(mod, path_so, options);
  tvm_ffi_error_give_back(stale);
  return rc;
}

/*
 * cmd_build.c: `tvmc build`: TVMScript -> lowered TIR -> a shared library whose
 * __tvm_ffi_<name> entry points load with ffi.Module.load_from_file.so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/codegen/codegen.h>
#include <tvm/codegen/target.h>
#include <tvm/tir/transform.h>

#include "tvmc.h"

static const char kUsage[] =
    "usage: tvmc build FILE [-o OUT.so] [--target TARGET] [--func NAME] [--bounds-check]\n"
    "                  [--no-schedule]\n"
    "\n"
    "Parse and check FILE, lower its PrimFuncs and compile them into a shared library that\n"
    "exports one `__tvm_ffi_<name>` entry point per function (load it with\n"
    "ffi.Module.load_from_file.so, e.g. tvm_ffi_module_load_file). Needs `cc` to link.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.so  the library to write (default: FILE's name with .so, here)\n"
    "  --target TARGET      \"llvm\" (the host CPU, the default), \"llvm -mcpu=CPU\", \"cuda\"\n"
    "                       or \"cuda -arch=sm_XY\": NVIDIA GPUs (PTX through LLVM's NVPTX\n"
    "                       backend, carried by the library; loading it needs the CUDA driver)\n"
    "  --func NAME          compile only the function NAME of the module\n"
    "  --bounds-check       guard every buffer access: an index outside its buffer raises\n"
    "                       IndexError (buffer, index, shape) instead of reading or writing\n"
    "  --no-schedule        compile the loops as written: without it, functions without a\n"
    "                       parallel, vectorized or unrolled loop (and not marked\n"
    "                       tir.is_scheduled) get the default CPU schedule (parallel outer\n"
    "                       loops, vectorized inner ones, register-tiled reductions)\n";

/* "dir/kernel.py" -> "kernel.so" (malloc'd). */
static char* default_output(const char* path) {
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 3 && strcmp(base + n - 3, ".py") == 0) n -= 3;
  char* out = malloc(n + 4);
  if (out) {
    memcpy(out, base, n);
    memcpy(out + n, ".so", 4);
  }
  return out;
}

int tvmc_cmd_build(int argc, char** argv) {
  const char* cmd = "build";
  const char *path = NULL, *out = NULL, *target = "llvm", *func = NULL;
  tvm_tir_lower_options lower = tvm_tir_lower_options_default();
  bool schedule = true;
  for (int i = 1; i < argc; ++i) {
    int r;
    if (tvmc_is_help(argv[i])) {
      fputs(kUsage, stdout);
      return TVMC_OK;
    } else if (strcmp(argv[i], "--bounds-check") == 0) {
      lower.bounds_check = true;
    } else if (strcmp(argv[i], "--no-schedule") == 0) {
      schedule = false;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--output", "-o", &out)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--target", NULL, &target)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--func", NULL, &func)) != 0) {
      if (r < 0) return TVMC_USAGE_ERROR;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return tvmc_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else if (path) {
      return tvmc_usage_error(cmd, "one FILE only (got '%s' and '%s')", path, argv[i]);
    } else {
      path = argv[i];
    }
  }
  if (!path) return tvmc_usage_error(cmd, "missing FILE");
  tvm_codegen_target parsed;
  if (tvm_codegen_target_parse(target, &parsed) != 0) {
    void* e = tvm_ffi_error_take();
    int rc = tvmc_usage_error(cmd, "--target: %s", e ? tvm_ffi_error_message(e) : target);
    tvm_ffi_release(e);
    return rc;
  }

  int status;
  void* ir = tvmc_parse_file(cmd, path, true, &status);
  if (!ir) return status;
  void* sel = func ? (void*)tvmc_select_func(cmd, path, ir, func) : tvmc_module_with_symbols(ir);
  tvm_ffi_release(ir);
  if (!sel) {
    if (func) return TVMC_USAGE_ERROR;
    tvmc_report_error(cmd, "cannot collect the functions to compile");
    return TVMC_FAILURE;
  }
  char* out_owned = out ? NULL : default_output(path);
  if (!out) out = out_owned;

  status = TVMC_OK;
  /* The default schedule is the CPU's. */
  void* sched = tvmc_schedule(sel, schedule && parsed.kind != TVM_CODEGEN_TARGET_CUDA);
  void* lowered = sched ? tvm_tir_lower(sched, &lower) : NULL;
  tvm_ffi_release(sched);
  tvm_codegen_options opts = tvm_codegen_options_default();
  if (!lowered) {
    tvmc_report_error(cmd, "lowering failed");
    status = TVMC_FAILURE;
  } else if (!out) {
    fprintf(stderr, "tvmc build: out of memory\n");
    status = TVMC_FAILURE;
  } else if (tvm_codegen_export_target(lowered, target, out, &opts) != 0) {
    char what[512];
    snprintf(what, sizeof(what), "compiling '%s' into '%s' failed", path, out);
    tvmc_report_error(cmd, what);
    status = TVMC_FAILURE;
  }
  tvm_ffi_release(lowered);
  tvm_ffi_release(sel);
  free(out_owned);
  return status;
}

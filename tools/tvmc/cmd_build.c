/*
 * cmd_build.c: `tvmc build`: TVMScript -> lowered TIR -> a shared library whose
 * __tvm_ffi_<name> entry points load with ffi.Module.load_from_file.so; a Relax model (a module
 * with @R.functions) goes through the Relax build into one model library (model_build.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/codegen/codegen.h>
#include <tvm/codegen/target.h>
#include <tvm/tir/transform.h>

#include "model.h"
#include "tvmc.h"

static const char kUsage[] =
    "usage: tvmc build FILE [-o OUT.so] [--target TARGET] [--func NAME] [--bounds-check]\n"
    "                  [--no-schedule] [--exec-mode bytecode|compiled] [--emit text|python]\n"
    "                  [--dump-ir DIR]\n"
    "\n"
    "Parse and check FILE, lower its PrimFuncs and compile them into a shared library that\n"
    "exports one `__tvm_ffi_<name>` entry point per function (load it with\n"
    "ffi.Module.load_from_file.so, e.g. tvm_ffi_module_load_file). Needs `cc` to link.\n"
    "\n"
    "A Relax model (an @I.ir_module class with @R.functions, and @T.prim_funcs they call)\n"
    "goes through the Relax build pipeline into one model library: the VM executable and its\n"
    "compiled kernels, which a program loads with tvm_vm_executable_load_file (libvm) and\n"
    "runs with tvm_vm_create / tvm_vm_invoke (see examples/serve).\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.so  the library to write (default: FILE's name with .so, here)\n"
    "  --target TARGET      \"llvm\" (the host CPU, the default), \"llvm -mcpu=CPU\", \"cuda\"\n"
    "                       or \"cuda -arch=sm_XY\": NVIDIA GPUs (PTX through LLVM's NVPTX\n"
    "                       backend, carried by the library; loading it needs the CUDA driver;\n"
    "                       a Relax model's kernels get the default GPU schedule)\n"
    "  --func NAME          compile only the function NAME of the module\n"
    "  --bounds-check       guard every buffer access: an index outside its buffer raises\n"
    "                       IndexError (buffer, index, shape) instead of reading or writing\n"
    "  --no-schedule        compile the loops as written: without it, functions without a\n"
    "                       parallel, vectorized or unrolled loop (and not marked\n"
    "                       tir.is_scheduled) get the default CPU schedule (parallel outer\n"
    "                       loops, vectorized inner ones, register-tiled reductions)\n"
    "  --exec-mode MODE     how a Relax model's functions run in the VM: bytecode (the\n"
    "                       default: VM instructions, interpreted) or compiled (each\n"
    "                       function native code, called by the VM; the serving program\n"
    "                       must export libvm's symbols, -rdynamic)\n";

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

/* A Relax model: the options checked, then model_build.c. */
static int build_model(const char* path, const void* mod, const tvm_codegen_target* target,
                       const char* out, const char* func, const char* emit, const char* dump_ir,
                       const tvm_codegen_options* codegen, bool bounds_check) {
  const char* cmd = "build";
  if (func)
    return tvmc_usage_error(cmd, "'%s' is a Relax model: --func does not apply (the library "
                            "holds every function of the module)", path);
  if (bounds_check)
    return tvmc_usage_error(cmd, "'%s' is a Relax model: --bounds-check is not supported for "
                            "Relax models yet", path);
  /* -mcpu: the Relax build compiles for TVM_CODEGEN_CPU (libcodegen reads it at each build). */
  if (target->kind == TVM_CODEGEN_TARGET_LLVM && target->mcpu[0] &&
      setenv("TVM_CODEGEN_CPU", target->mcpu, 1) != 0) {
    fprintf(stderr, "tvmc build: cannot set TVM_CODEGEN_CPU\n");
    return TVMC_FAILURE;
  }
  char* out_owned = out || emit ? NULL : default_output(path);
  tvmc_model_build_options o = {.path = path, .out = out ? out : out_owned, .emit = emit,
                                .dump_ir = dump_ir, .codegen = *codegen};
  /* cuda: the kernels' PTX in the library as a cuda module (no GPU needed to build) */
  char text[128];
  tvm_codegen_target_str(target, text, sizeof(text));
  if (target->kind == TVM_CODEGEN_TARGET_CUDA) o.codegen.target = text; /* llvm: the env above */
  int status = !out && !emit && !out_owned ? TVMC_FAILURE : tvmc_model_build(mod, &o);
  free(out_owned);
  return status;
}

int tvmc_cmd_build(int argc, char** argv) {
  const char* cmd = "build";
  const char *path = NULL, *out = NULL, *target = "llvm", *func = NULL, *emit = NULL,
             *dump_ir = NULL;
  tvm_tir_lower_options lower = tvm_tir_lower_options_default();
  bool schedule = true;
  tvm_codegen_options codegen = tvm_codegen_options_default();
  const char* exec_mode = NULL;
  for (int i = 1; i < argc; ++i) {
    int r;
    if (tvmc_is_help(argv[i])) {
      fputs(kUsage, stdout);
      return TVMC_OK;
    } else if (strcmp(argv[i], "--bounds-check") == 0) {
      lower.bounds_check = true;
    } else if (strcmp(argv[i], "--no-schedule") == 0) {
      schedule = codegen.schedule = false;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--exec-mode", NULL, &exec_mode)) != 0) {
      if (r < 0 || !tvmc_parse_exec_mode(cmd, exec_mode, &codegen)) return TVMC_USAGE_ERROR;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--output", "-o", &out)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--target", NULL, &target)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--func", NULL, &func)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--emit", NULL, &emit)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--dump-ir", NULL, &dump_ir)) != 0) {
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
  if (emit && strcmp(emit, "text") != 0 && strcmp(emit, "python") != 0)
    return tvmc_usage_error(cmd, "--emit expects text or python, got '%s'", emit);
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
  if (tvmc_is_relax_module(ir)) {
    status = build_model(path, ir, &parsed, out, func, emit, dump_ir, &codegen, lower.bounds_check);
    tvm_ffi_release(ir);
    return status;
  }
  if (emit || dump_ir || exec_mode) {
    fprintf(stderr, "tvmc build: '%s' defines no @R.function (--emit, --dump-ir and --exec-mode "
                    "are for Relax models)\n", path);
    tvm_ffi_release(ir);
    return TVMC_USAGE_ERROR;
  }
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

/*
 * relax_compile_bench.c: where the time of compiling a Relax model goes (issue 17). For each
 * model of model_bench (bench/model_bench_models.c) the stages of `tvmc build`, each timed on
 * its own:
 *
 *   print     the model (as built) printed as TVMScript (libscript)
 *   parse     that text parsed back to a module (libscript; the front end of `tvmc build`)
 *   pipeline  the Relax build pipeline (tvm_relax_run_passes_observed: each pass's time, in the
 *             second table)
 *   vmcodegen VMCodeGen (tvm_codegen_relax_vm_codegen_kernels)
 *   lower     the kernels scheduled (the default CPU schedule) and lowered (libtir)
 *   export    tvm_codegen_relax_export to a temporary .so, after its pipeline (observed: the
 *             time from the pipeline's last pass to the written library)
 *   link      the `$CC -shared` step of the export, timed by a $CC wrapper script
 *   llvm      export - vmcodegen - lower - link: LLVM's code generation, optimisation and
 *             object file (and packing the executable's bytes, which is small)
 *
 * "LLVM%" is llvm / (parse + pipeline + vmcodegen + lower + llvm + link). The baseline rows
 * compile the model with the pipeline less DeadCodeElimination: the kernels it leaves uncalled
 * (folded constants, reshapes made views) are then compiled for nothing.
 *
 *   relax_compile_bench [MODEL...]     (default: mlp-b32 cnn transformer resnet-block)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/tir/schedule.h>
#include <tvm/tir/transform.h>

#include "bench_util.h"
#include "model_bench.h"

enum { MAX_PASSES = 32 };

typedef struct {
  double last;
  double ms[MAX_PASSES];
  const char* names[MAX_PASSES];
  int n;
} pass_timer;

static int on_pass(void* ctx, const char* pass, const tvm_tir_ir_module_obj* result) {
  (void)result;
  pass_timer* t = ctx;
  double now = bench_now_ns();
  if (t->n < MAX_PASSES) {
    t->ms[t->n] = (now - t->last) / 1e6;
    t->names[t->n++] = pass;
  }
  t->last = now;
  return 0;
}

typedef struct {
  double print, parse, pipeline, vmcodegen, lower, llvm, export_post, link;
  int64_t kernels;
  pass_timer passes;
} stages;

static void report_error(const char* model, const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "relax_compile_bench: %s: %s: %s\n", model, what,
          e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
}

static int64_t count_prim_funcs(const tvm_tir_ir_module_obj* mod) {
  int64_t n = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    n += tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc);
  }
  return n;
}

/* A $CC wrapper in dir that runs the real compiler driver and writes the link's nanoseconds
 * to dir/link_ns; CC set to it. 0 or -1. */
static int install_cc_wrapper(const char* dir) {
  char path[512];
  snprintf(path, sizeof(path), "%s/cc-timed", dir);
  const char* cc = getenv("CC");
  FILE* f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f,
          "#!/bin/sh\n"
          "s=$(date +%%s%%N)\n"
          "%s \"$@\"\n"
          "rc=$?\n"
          "e=$(date +%%s%%N)\n"
          "echo $((e - s)) > '%s/link_ns'\n"
          "exit $rc\n",
          cc && *cc ? cc : "cc", dir);
  fclose(f);
  if (chmod(path, 0700) != 0) return -1;
  return setenv("CC", path, 1);
}

/* The last link's time (ms) from the wrapper, -1 when unknown. */
static double read_link_ms(const char* dir) {
  char path[512];
  snprintf(path, sizeof(path), "%s/link_ns", dir);
  FILE* f = fopen(path, "r");
  long long ns = -1;
  if (f) {
    if (fscanf(f, "%lld", &ns) != 1) ns = -1;
    fclose(f);
  }
  unlink(path);
  return ns < 0 ? -1 : (double)ns / 1e6;
}

/* The model's module through the stages; passes = the pipeline to run. 0 or -1 (reported). */
static int compile_model(const char* name, const tvm_tir_ir_module_obj* built,
                         const tvm_relax_pass* passes, int64_t n_passes, const char* tmpdir,
                         stages* s) {
  memset(s, 0, sizeof(*s));
  int rc = -1;
  void *text = NULL, *lowered_kernels = NULL;
  tvm_tir_ir_module_obj *parsed = NULL, *lowered = NULL, *kernels = NULL;
  tvm_vm_executable* exec = NULL;
  const tvm_tir_ir_module_obj* mod = built;

  /* Print and parse back: the parsed module is what the rest compiles, as tvmc does. */
  double t0 = bench_now_ns();
  text = tvm_script_print_obj(built, NULL);
  s->print = (bench_now_ns() - t0) / 1e6;
  if (!text) {
    report_error(name, "print");
  } else {
    TVMFFIByteArray b = tvm_ffi_str_view(text);
    t0 = bench_now_ns();
    parsed = tvm_script_parse(b.data, b.size, NULL);
    s->parse = (bench_now_ns() - t0) / 1e6;
    if (!parsed) report_error(name, "parse");
    if (parsed && tvm_tir_is(parsed, TVM_TIR_KIND_IRModule)) mod = parsed;
  }

  s->passes.last = bench_now_ns();
  t0 = s->passes.last;
  lowered = tvm_relax_run_passes_observed(mod, passes, n_passes, on_pass, &s->passes);
  s->pipeline = (bench_now_ns() - t0) / 1e6;
  if (!lowered) {
    report_error(name, "pipeline");
    goto done;
  }
  t0 = bench_now_ns();
  exec = tvm_codegen_relax_vm_codegen_kernels(lowered, &kernels);
  s->vmcodegen = (bench_now_ns() - t0) / 1e6;
  if (!exec) {
    report_error(name, "VMCodeGen");
    goto done;
  }
  s->kernels = count_prim_funcs(kernels);
  tvm_codegen_options opts = tvm_codegen_options_default();
  t0 = bench_now_ns();
  tvm_tir_schedule_target target;
  tvm_codegen_schedule_target(&opts, &target);
  void* scheduled = tvm_tir_schedule_default(kernels, &target);
  lowered_kernels = scheduled ? tvm_tir_lower(scheduled, NULL) : NULL;
  tvm_ffi_release(scheduled);
  s->lower = (bench_now_ns() - t0) / 1e6;
  if (!lowered_kernels) {
    report_error(name, "schedule and lower");
    goto done;
  }
  /* The export runs the pipeline again (observed, so that its end is known), then the rest. */
  char path[512];
  snprintf(path, sizeof(path), "%s/%s.so", tmpdir, name);
  pass_timer again = {0};
  tvm_codegen_options eo = tvm_codegen_options_default();
  eo.relax_after_pass = on_pass;
  eo.relax_after_pass_ctx = &again;
  again.last = bench_now_ns();
  if (tvm_codegen_relax_export(mod, path, &eo) != 0) {
    report_error(name, "export");
    goto done;
  }
  s->export_post = (bench_now_ns() - again.last) / 1e6;
  s->link = read_link_ms(tmpdir);
  s->llvm = s->export_post - s->vmcodegen - s->lower - (s->link > 0 ? s->link : 0);
  unlink(path);
  rc = 0;
done:
  tvm_ffi_release(lowered_kernels), tvm_ffi_release(kernels);
  tvm_ffi_release(exec), tvm_ffi_release(lowered), tvm_ffi_release(parsed), tvm_ffi_release(text);
  return rc;
}

static double total(const stages* s) {
  return s->parse + s->pipeline + s->vmcodegen + s->lower + s->llvm + (s->link > 0 ? s->link : 0);
}

int main(int argc, char** argv) {
  const char* defaults[] = {"mlp-b32", "cnn", "transformer", "resnet-block"};
  const char* const* models = argc > 1 ? (const char* const*)argv + 1 : defaults;
  int n_models = argc > 1 ? argc - 1 : 4;
  if (n_models > 8) n_models = 8;
  char tmpdir[] = "/tmp/relax_compile_benchXXXXXX";
  if (!mkdtemp(tmpdir)) {
    perror("relax_compile_bench: mkdtemp");
    return 1;
  }
  if (install_cc_wrapper(tmpdir) != 0) {
    perror("relax_compile_bench: the $CC wrapper");
    return 1;
  }
  const tvm_relax_pass* pipeline;
  int64_t n_pipeline = tvm_relax_build_pipeline_passes(&pipeline);
  tvm_relax_pass no_dce[MAX_PASSES];
  int64_t n_no_dce = 0;
  for (int64_t i = 0; i < n_pipeline && n_no_dce < MAX_PASSES; ++i) {
    if (strcmp(pipeline[i].name, "DeadCodeElimination") != 0) no_dce[n_no_dce++] = pipeline[i];
  }

  static stages with[8], without[8];
  int ok[8] = {0};
  printf(
      "Compile time of a Relax model, ms (one run each; llvm = export - vmcodegen - lower - "
      "link)\n");
  printf("%-36s %7s %7s %8s %9s %7s %8s %7s %8s %8s %6s %7s\n", "model", "print", "parse",
         "pipeline", "vmcodegen", "lower", "export", "link", "llvm", "total", "LLVM%", "kernels");
  int rc = 0;
  for (int m = 0; m < n_models; ++m) {
    bench_model bm;
    if (bench_model_build(models[m], &bm) != 0) {
      report_error(models[m], "build");
      rc = 1;
      continue;
    }
    for (int variant = 0; variant < 2; ++variant) {
      stages* s = variant == 0 ? &with[m] : &without[m];
      char label[64];
      snprintf(label, sizeof(label), "%s%s", models[m], variant ? " without DCE (baseline)" : "");
      if (compile_model(models[m], bm.mod, variant ? no_dce : pipeline,
                        variant ? n_no_dce : n_pipeline, tmpdir, s) != 0) {
        rc = 1;
        continue;
      }
      if (variant == 0) ok[m] = 1;
      double t = total(s);
      printf("%-36s %7.1f %7.1f %8.1f %9.1f %7.1f %8.1f %7.1f %8.1f %8.1f %5.0f%% %7lld\n", label,
             s->print, s->parse, s->pipeline, s->vmcodegen, s->lower, s->export_post, s->link,
             s->llvm, t, t > 0 ? 100.0 * s->llvm / t : 0.0, (long long)s->kernels);
    }
    tvm_ffi_release(bm.mod);
  }

  /* Each pass's time and share of the pipeline. */
  printf("\nThe build pipeline's passes, ms (share of the pipeline)\n");
  printf("%-24s", "pass");
  for (int m = 0; m < n_models; ++m) printf(" %20s", models[m]);
  printf("\n");
  for (int64_t i = 0; i < n_pipeline; ++i) {
    printf("%-24s", pipeline[i].name);
    for (int m = 0; m < n_models; ++m) {
      const pass_timer* p = &with[m].passes;
      if (!ok[m] || i >= p->n) {
        printf(" %20s", "n/a");
        continue;
      }
      printf(" %12.2f (%4.1f%%)", p->ms[i],
             with[m].pipeline > 0 ? 100.0 * p->ms[i] / with[m].pipeline : 0.0);
    }
    printf("\n");
  }
  char wrapper[512];
  snprintf(wrapper, sizeof(wrapper), "%s/cc-timed", tmpdir);
  unlink(wrapper);
  rmdir(tmpdir);
  return rc;
}

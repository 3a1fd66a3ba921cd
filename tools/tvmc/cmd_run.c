/*
 * cmd_run.c: `tvmc run`: parse, lower and JIT-compile a kernel (or load it from a library
 * `tvmc build` wrote), run it on random inputs, check every buffer against the reference
 * interpreter run on a copy of the same inputs, then time repeated runs.
 *
 * The interpreter is exact but slow (it bounds-checks every access), so the check is sized:
 * below TVMC_CHECK_WORK evaluated IR nodes it runs on the problem as given; above it a kernel
 * with symbolic sizes is checked at smaller sizes (halved until small enough), and a kernel
 * with constant sizes is checked on a sample of its outputs (run_sample.c): the outermost
 * data-parallel loops of the reference run are narrowed to their first iterations and only the
 * elements that run wrote are compared. The output says which was done. A kernel that calls
 * other PrimFuncs of its module is compiled, and interpreted, with the whole module.
 * A Relax model (a module with @R.functions, or a model library) runs in the VM: model_run.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tvm/codegen/codegen.h>
#include <tvm/tir/interp.h>
#include <tvm/tir/op.h>
#include <tvm/tir/transform.h>
#include <tvm/tir/visit.h>
#include <tvm/vm/vm.h>

#include "model.h"
#include "run.h"
#include "tvmc.h"

/* Interpreter budget of a check in evaluated IR nodes (of the function as written): about 2 s
 * of interpretation in a Release build (measured: 1e8 to 1.5e8 nodes/s). The environment
 * variable TVMC_CHECK_WORK overrides it (tests use it to reach the reduced checks on small
 * problems). */
#define TVMC_CHECK_WORK 2e8

double tvmc_check_budget(void) {
  const char* env = getenv("TVMC_CHECK_WORK");
  char* end;
  double v = env ? strtod(env, &end) : 0;
  return env && end != env && v > 0 ? v : TVMC_CHECK_WORK;
}

static const char kUsage[] =
    "usage: tvmc run FILE [--func NAME] [--shape NAME=VALUE ...] [--repeat N] [--seed S]\n"
    "                [--no-check] [--lib LIB.so] [--bounds-check] [--target TARGET]\n"
    "                [--no-schedule] [--exec-mode bytecode|compiled]\n"
    "\n"
    "Lower and JIT-compile the kernel, run it on random inputs (non-zero values of each\n"
    "buffer's dtype; shapes from its signature), check every buffer against the reference\n"
    "interpreter run on a copy of the same inputs, then time repeated runs and print the\n"
    "median time, GFLOP/s (float add/sub/mul/fma counted in the lowered loops; n/a when a\n"
    "trip count is unknown) and GB/s (bytes of all buffer arguments / time).\n"
    "Large problems are checked at smaller symbolic sizes, or on a sample of the outputs.\n"
    "\n"
    "options:\n"
    "  --func NAME          the function of the module to run (default: the only one, or main)\n"
    "  --shape NAME=VALUE   bind a symbolic size (a Var in a buffer shape or an integer\n"
    "                       scalar parameter); repeat for each; every one must be bound\n"
    "  --repeat N           timed runs (default 10; 0 = no timing)\n"
    "  --seed S             seed of the random inputs (default 1)\n"
    "  --no-check           skip the comparison with the interpreter\n"
    "  --bounds-check       compile with every buffer access guarded: an index outside its\n"
    "                       buffer raises IndexError (buffer, index, shape)\n"
    "  --target TARGET      llvm (default), llvm -mcpu=CPU, cuda or cuda -arch=sm_XY: with a\n"
    "                       CUDA target the tensors are copied to GPU 0 for the check, and\n"
    "                       timed there (mean of --repeat launches, one synchronisation);\n"
    "                       without a CUDA driver a kernel is compiled, not run (exit 4),\n"
    "                       and the interpreter checks each stage of its GPU lowering\n"
    "                       against the function as written (exit 1 if one differs);\n"
    "                       a Relax model runs in the VM on GPU 0 (its calls timed up to the\n"
    "                       output's copy back to the host)\n"
    "  --no-schedule        compile the loops as written (see `tvmc build --help`); the\n"
    "                       operation counts are always those of the loops as written\n"
    "  --exec-mode MODE     a Relax model's functions interpreted as VM bytecode (the\n"
    "                       default) or compiled to native code (see `tvmc build --help`)\n"
    "  --lib LIB.so         run the kernel of a library built by `tvmc build` instead of\n"
    "                       compiling FILE (FILE still gives the signature and the reference)\n"
    "\n"
    "memory: run holds 4 copies of every buffer (1 with --no-check) and refuses, before\n"
    "allocating, a total over TVMC_MEMORY_LIMIT (bytes, K/M/G suffixes; default half the\n"
    "physical memory); TVM_TIR_INTERP_MEMORY_LIMIT bounds the interpreter's allocations.\n"
    "\n"
    "Relax models (an @I.ir_module with @R.functions): the Relax build compiles FILE\n"
    "in-process (or --lib loads the model library `tvmc build` wrote); the function (--func,\n"
    "default main) runs in the Relax VM on random inputs (floats k/32 in [-1, 1], integers in\n"
    "[-9, 9], bools), every output is compared with the reference evaluator (the module\n"
    "after LegalizeOps alone, kernels in the TIR interpreter), then --repeat calls are timed.\n"
    "The interpreter is far slower than the compiled model: a reference run estimated over\n"
    "the check budget (about 2 s) is announced on stderr with its estimate.\n"
    "  --shape NAME=VALUE   bind a symbolic dim of the parameters' shapes\n"
    "  --input NAME=SHAPE[:DTYPE]\n"
    "                       give parameter NAME this shape (4x16, 4,16 or () for a scalar)\n"
    "                       and dtype (default: the declared one, else float32)\n"
    "tvmc run MODEL.so [--func NAME] [--ref MODEL.py] [--input ...]: run a model library;\n"
    "with --ref the signature and the reference come from MODEL.py, without it every\n"
    "argument needs --input (a library records no shapes) and the outputs are printed\n"
    "unchecked.\n"
    "\n"
    "exit status: 1 when a result differs from the interpreter (the first mismatch is\n"
    "printed with its index and both values) or a model rejects its arguments (wrong rank,\n"
    "dtype, shape or count: the located error is printed), 2 for unbound or unknown --shape\n"
    "names.\n";

enum { MAX_SHAPES = 64 };

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Exit status for an error the interpreter raised: the program's fault or the tool's. */
static int interp_error_status(void) {
  void* err = tvm_ffi_error_take();
  const char* kind = err ? tvm_ffi_error_kind(err) : "";
  bool program = strcmp(kind, "IndexError") == 0 || strcmp(kind, "AssertionError") == 0 ||
                 strcmp(kind, "ValueError") == 0;
  fprintf(stderr, "tvmc run: the reference interpreter %s: %s: %s\n",
          program ? "rejected the program on these inputs" : "failed", err ? kind : "Error",
          err ? tvm_ffi_error_message(err) : "unknown error");
  if (strcmp(kind, "IndexError") == 0)
    fprintf(stderr, "  (inputs are random: integers in [-99, 99]; a kernel that indexes with an "
                    "input needs other inputs than tvmc run makes)\n");
  tvm_ffi_release(err);
  return program ? TVMC_PROGRAM_ERROR : TVMC_FAILURE;
}

/* Whether the compiled kernel returned what the interpreter did: the same type, the same
 * integer, or floats within a relative 1e-5 (float32 arithmetic may be contracted into FMA). */
static bool same_return(const TVMFFIAny* got, const TVMFFIAny* want) {
  if (got->type_index != want->type_index) return false;
  if (want->type_index != kTVMFFIFloat) return got->v_int64 == want->v_int64;
  double g = got->v_float64, w = want->v_float64;
  if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
  return fabs(g - w) <= 1e-5 * fmax(1.0, fabs(w));
}

static void format_return(const TVMFFIAny* v, tvm_ffi_strbuf* out) {
  switch (v->type_index) {
    case kTVMFFIInt:
      tvm_ffi_strbuf_printf(out, "%lld", (long long)v->v_int64);
      break;
    case kTVMFFIBool:
      tvm_ffi_strbuf_puts(out, v->v_int64 ? "True" : "False");
      break;
    case kTVMFFIFloat:
      tvm_ffi_strbuf_printf(out, "%.9g", v->v_float64);
      break;
    default:
      tvm_ffi_strbuf_printf(out, "a value of type %s", tvm_ffi_any_type_name(v));
  }
}

/* When the kernel calls other PrimFuncs of its module: that module (every PrimFunc, with its
 * global_symbol) and the kernel's name in it. The whole module is compiled, and the interpreter
 * runs the kernel inside it (a narrowed kernel in its place) so that its calls resolve. */
static const tvm_tir_ir_module_obj* g_unit;
static const char* g_unit_name;

/* Run func (the kernel, or a narrowed copy of it) in the interpreter on a's arguments: alone,
 * or under its name in g_unit. The memory behind a's raw pointers is live for the run. */
static int interp_run(const void* func, const tvmc_args* a, TVMFFIAny* ret) {
  tvm_tir_interp_memory mem[TVMC_MAX_PARAMS];
  int nmem = 0;
  for (int k = 0; k < a->n; ++k)
    if (a->raw[k]) mem[nmem++] = (tvm_tir_interp_memory){a->data[k], (int64_t)a->nbytes[k]};
  if (!g_unit) return tvm_tir_interp_run_with_memory(func, NULL, a->args, a->n, mem, nmem, ret);
  const tvm_tir_ir_module_obj* m = g_unit;
  int64_t size = tvm_ffi_map_size(m->functions);
  TVMFFIAny* keys = calloc((size_t)size + 1, sizeof(TVMFFIAny));
  TVMFFIAny* vals = calloc((size_t)size + 1, sizeof(TVMFFIAny));
  int64_t k = 0;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; keys && vals && (pos = tvm_ffi_map_next(m->functions, pos, &key, &val)) >= 0; ++k) {
    const char* name = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)key->v_obj)->name_hint);
    keys[k] = *key;
    vals[k] = strcmp(name, g_unit_name) == 0 ? tvm_ffi_any_obj(func) : *val;
  }
  void* fns = keys && vals ? tvm_ffi_map_new(keys, vals, k) : NULL;
  void* mod = fns ? tvm_tir_ir_module_new(fns, NULL) : NULL;
  free(keys);
  free(vals);
  tvm_ffi_release(fns);
  int rc = mod ? tvm_tir_interp_run_with_memory(mod, g_unit_name, a->args, a->n, mem, nmem, ret)
               : -1;
  if (!mod && !tvm_ffi_error_pending()) tvm_ffi_raise("MemoryError", "out of memory");
  tvm_ffi_release(mod);
  return rc;
}

/* Run the compiled fn and the interpreter on f_ref with copies of `inputs` and compare every
 * element, or with `sampled` only the elements the reference run changed: from the inputs, or,
 * given f_base, from what f_base computes (run_sample.c). *out_compared counts the elements
 * compared. */
static int check_on(void* fn, const void* f_ref, const void* f_base, const tvmc_args* inputs,
                    bool sampled, const void* bindings, int64_t* out_compared) {
  double reduction;
  if (tvmc_reduction_length(f_ref, bindings, &reduction) != 0) {
    tvmc_report_error("run", "cannot measure the reductions of the function");
    return TVMC_FAILURE;
  }
  tvmc_args got, want, base;
  if (!tvmc_args_copy(inputs, &base)) return TVMC_FAILURE;
  if (!tvmc_args_copy(inputs, &got)) {
    tvmc_args_free(&base);
    return TVMC_FAILURE;
  }
  if (!tvmc_args_copy(inputs, &want)) {
    tvmc_args_free(&base);
    tvmc_args_free(&got);
    return TVMC_FAILURE;
  }
  /* The interpreter first: inputs it rejects (an out-of-bounds index read from an input, say)
   * would make the compiled kernel touch memory it must not. */
  int status = TVMC_OK;
  TVMFFIAny ret = tvm_ffi_any_none(), want_ret = tvm_ffi_any_none();
  if (interp_run(f_ref, &want, &want_ret) != 0)
    status = interp_error_status();
  if (status == TVMC_OK && f_base && interp_run(f_base, &base, &ret) != 0)
    status = interp_error_status();
  tvm_ffi_any_release(&ret);
  if (status == TVMC_OK && tvm_ffi_function_call(fn, got.args, got.n, &ret) != 0) {
    tvmc_report_error("run", "the compiled kernel failed");
    status = TVMC_FAILURE;
  }
  *out_compared = 0;
  /* A returned value (T.ret) is compared too, unless the interpreter ran a narrowed sample. */
  if (status == TVMC_OK && !sampled && want_ret.type_index != kTVMFFINone) {
    if (!same_return(&ret, &want_ret)) {
      tvm_ffi_strbuf a = {0}, b = {0};
      format_return(&ret, &a);
      format_return(&want_ret, &b);
      printf("check FAILED: the returned value: compiled %s, interpreter %s\n",
             tvm_ffi_strbuf_cstr(&a), tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&a);
      tvm_ffi_strbuf_free(&b);
      status = TVMC_PROGRAM_ERROR;
    } else {
      *out_compared = 1;
    }
  }
  tvm_ffi_any_release(&ret);
  tvm_ffi_any_release(&want_ret);
  int64_t compared = 0;
  if (status == TVMC_OK &&
      tvmc_args_compare(&got, &want, sampled ? &base : NULL, reduction, &compared) != 0)
    status = TVMC_PROGRAM_ERROR;
  *out_compared += compared;
  tvmc_args_free(&base);
  tvmc_args_free(&got);
  tvmc_args_free(&want);
  return status;
}

/* ", n=64, m=32" of bindings into out. */
static void format_bindings(const void* bindings, tvm_ffi_strbuf* out) {
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(bindings, pos, &key, &val)) >= 0;)
    tvm_ffi_strbuf_printf(out, "%s%s=%lld", out->size ? ", " : "",
                          tvm_ffi_str_cstr(((const tvm_tir_var_obj*)key->v_obj)->name_hint),
                          (long long)val->v_int64);
}

/* The check, sized as the file comment says: the work is counted on f itself, which is what
 * the interpreter runs (before lowering, a vectorized loop is still a loop of scalar
 * iterations). Prints one "check: ..." line on success. */
static int check(void* fn, const tvm_tir_prim_func_obj* f, const void* bindings,
                 const tvmc_args* inputs, unsigned seed) {
  int64_t compared = 0;
  double budget = tvmc_check_budget();
  tvmc_counts full;
  if (tvmc_count_ops(f, bindings, &full) != 0) {
    tvmc_report_error("run", "cannot estimate the cost of the check");
    return TVMC_FAILURE;
  }
  if (!full.known || full.work <= budget) {
    int status = check_on(fn, f, NULL, inputs, false, bindings, &compared);
    if (status == TVMC_OK)
      printf("check: ok (%lld elements match the reference interpreter)\n", (long long)compared);
    return status;
  }
  /* Symbolic sizes: shrink them until the reference run is affordable. */
  void* small = NULL;
  bool fits = false;
  for (void* next; !fits && (next = tvmc_bindings_halved(small ? small : bindings));) {
    tvm_ffi_release(small);
    small = next;
    tvmc_counts c;
    if (tvmc_count_ops(f, small, &c) != 0) {
      tvm_ffi_release(small);
      tvmc_report_error("run", "cannot count the operations at smaller sizes");
      return TVMC_FAILURE;
    }
    if (!c.known) break;
    fits = c.work <= budget;
  }
  if (fits) {
    tvmc_args small_args;
    int status = TVMC_FAILURE;
    /* Held with the full-size inputs: those, and 4 copies of the smaller ones. */
    uint64_t held = 0;
    for (int k = 0; k < inputs->n; ++k) held += inputs->data[k] ? inputs->nbytes[k] : 0;
    if (tvmc_args_make("run", f, small, seed, 4, held, &small_args)) {
      status = check_on(fn, f, NULL, &small_args, false, small, &compared);
      tvmc_args_free(&small_args);
    }
    if (status == TVMC_OK) {
      tvm_ffi_strbuf at = {0};
      format_bindings(small, &at);
      printf("check: ok at the smaller sizes %s (%lld elements match the reference "
             "interpreter, which is too slow for the sizes given)\n",
             tvm_ffi_strbuf_cstr(&at), (long long)compared);
      tvm_ffi_strbuf_free(&at);
    }
    tvm_ffi_release(small);
    return status;
  }
  tvm_ffi_release(small);
  /* Constant sizes: a sample of the outputs. */
  char what[256];
  void* base;
  void* narrowed = tvmc_sample_func(f, full.work, budget, what, sizeof(what), &base);
  if (narrowed) {
    int status = check_on(fn, narrowed, base, inputs, true, bindings, &compared);
    tvm_ffi_release(narrowed);
    tvm_ffi_release(base);
    if (status == TVMC_OK)
      printf("check: ok on a sample: %lld output elements (%s) match the reference "
             "interpreter; the rest was not checked\n",
             (long long)compared, what);
    return status;
  }
  tvm_ffi_error_clear();
  fprintf(stderr,
          "tvmc run: checking the whole problem with the reference interpreter: %.1e IR nodes "
          "to evaluate, about %.1f s in a Release build (--no-check skips it)\n",
          full.work, full.work / 1e8);
  int status = check_on(fn, f, NULL, inputs, false, bindings, &compared);
  if (status == TVMC_OK)
    printf("check: ok (%lld elements match the reference interpreter)\n", (long long)compared);
  return status;
}

/* After a failed CUDA build or load: whether it failed for want of a driver (then said, as a
 * skip, and the error taken). */
static bool no_cuda_driver(void) {
  void* e = tvm_ffi_error_take();
  bool none = e && strstr(tvm_ffi_error_message(e), "no CUDA driver");
  if (none) {
    fprintf(stderr, "tvmc run: skipped: the kernel compiled for CUDA, but this machine cannot "
                    "run it: %s\n", tvm_ffi_error_message(e));
    tvm_ffi_release(e);
    return true;
  }
  if (e) TVMFFIErrorSetRaised(e); /* raised again for the report */
  tvm_ffi_release(e);
  return false;
}

/* Time `repeat` runs after a warm-up; prints the result line. */
static int time_runs(void* fn, const char* name, const tvmc_args* args, int64_t repeat,
                     const tvmc_counts* counts) {
  double* t = calloc((size_t)repeat, sizeof(double));
  if (!t) return TVMC_FAILURE;
  TVMFFIAny ret = tvm_ffi_any_none();
  for (int64_t r = -1; r < repeat; ++r) {
    double start = now_s();
    if (tvm_ffi_function_call(fn, args->args, args->n, &ret) != 0) {
      free(t);
      tvmc_report_error("run", "the compiled kernel failed");
      return TVMC_FAILURE;
    }
    tvm_ffi_any_release(&ret);
    if (r >= 0) t[r] = now_s() - start;
  }
  qsort(t, (size_t)repeat, sizeof(double), cmp_double);
  double median = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
  free(t);
  double bytes = tvmc_args_bytes(args);
  char flops[64] = "n/a GFLOP/s";
  if (counts->known && median > 0)
    snprintf(flops, sizeof(flops), "%.2f GFLOP/s (%.0f flops)", counts->flops / median * 1e-9,
             counts->flops);
  printf("%s: median %.4g ms over %lld runs; %s, %.2f GB/s (%.0f bytes)\n", name, median * 1e3,
         (long long)repeat, flops, median > 0 ? bytes / median * 1e-9 : 0.0, bytes);
  return TVMC_OK;
}

typedef struct {
  const void* mod;
  bool found;
} calls_ctx;

/* A call through a GlobalVar, or a call_extern of a helper PrimFunc of the module. */
static int is_module_call(tvm_tir_visitor* v, const void* node) {
  calls_ctx* c = v->ctx;
  const tvm_tir_call_obj* call = node;
  if (tvm_tir_kind_of(call->op) == TVM_TIR_KIND_GlobalVar) c->found = true;
  const void* name = tvm_tir_array_size(call->args) > 0 ? tvm_tir_array_at(call->args, 0) : NULL;
  if ((tvm_tir_is_builtin(call->op, TVM_TIR_BUILTIN_call_extern) ||
       tvm_tir_is_builtin(call->op, TVM_TIR_BUILTIN_call_pure_extern)) &&
      name && tvm_tir_kind_of(name) == TVM_TIR_KIND_StringImm) {
    void* f = tvm_tir_ir_module_lookup(c->mod, tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)name)->value));
    c->found |= f != NULL;
    tvm_ffi_release(f);
  }
  return tvm_tir_visit_children(v, node);
}

/* Whether f calls another PrimFunc of its module mod. */
static bool calls_module(const void* mod, const tvm_tir_prim_func_obj* f) {
  calls_ctx c = {mod, false};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Call] = is_module_call;
  v.ctx = &c;
  if (tvm_tir_visit(&v, f) != 0) tvm_ffi_error_clear();
  tvm_tir_visitor_free(&v);
  return c.found;
}

/* The PrimFunc `name` of a lowered module (borrowed; the module keeps it alive). */
static const void* lowered_kernel(const void* mod, const char* name) {
  void* f = tvm_tir_ir_module_lookup(mod, name);
  tvm_ffi_release(f);
  return f;
}

/* What is compiled: ir with the default schedule, lowered (lowered itself, retained, without
 * the schedule or when it changed nothing). */
static void* scheduled_lowered(const void* ir, bool schedule, void* lowered,
                               const tvm_tir_lower_options* lower) {
  void* s = tvmc_schedule(ir, schedule);
  if (!s || s == ir) {
    tvm_ffi_release(s);
    if (!s) return NULL;
    tvm_ffi_retain(lowered);
    return lowered;
  }
  void* out = tvm_tir_lower(s, lower);
  tvm_ffi_release(s);
  return out;
}

/* --target cuda without a CUDA driver: the kernel compiled (its PTX made), nothing can run it.
 * The interpreter checks instead that every lowering stage the CUDA build goes through computes
 * what the function as written does, on the same random inputs: the lowered function, then the
 * module after each GPU pass (TVM_TIR_GPU_PASSES), the last one the host function calling its
 * device kernels. One "stage <pass>: check: ..." line per stage. */
typedef struct {
  void* stage;
  const char* name; /* the kernel in a module stage; NULL for a PrimFunc */
} stage_ctx;

static int run_stage(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const stage_ctx* c = self;
  return tvm_tir_interp_run(c->stage, c->name, args, n, rv);
}

static int check_gpu_stages(const tvm_tir_prim_func_obj* f, void* lowered, const char* name,
                            const void* bindings, const tvmc_args* inputs, unsigned seed) {
  static const tvm_tir_pass passes[] = {TVM_TIR_GPU_PASSES};
  enum { NP = sizeof(passes) / sizeof(passes[0]) };
  for (int k = 0; k < inputs->n; ++k) {
    if (inputs->raw[k]) {
      fprintf(stderr, "tvmc run: the GPU lowering stages are not checked: argument %d is a raw "
                      "pointer\n", k);
      return TVMC_OK;
    }
  }
  int status = TVMC_OK;
  void* stage = lowered;
  tvm_ffi_retain(stage);
  for (int s = -1; s < NP && status == TVMC_OK; ++s) {
    if (s >= 0) {
      void* next = passes[s].fn(stage);
      tvm_ffi_release(stage);
      stage = next;
      if (!stage) {
        tvmc_report_error("run", passes[s].name);
        return TVMC_FAILURE;
      }
    }
    stage_ctx c = {stage, tvm_tir_kind_of(stage) == TVM_TIR_KIND_IRModule ? name : NULL};
    void* fn = tvm_ffi_function_new(&c, run_stage, NULL);
    if (!fn) {
      status = TVMC_FAILURE;
      break;
    }
    printf("stage %s: ", s < 0 ? "tvm_tir_lower" : passes[s].name);
    fflush(stdout);
    status = check(fn, f, bindings, inputs, seed);
    if (status != TVMC_OK) printf("tvmc run: the check fails at this stage\n");
    tvm_ffi_release(fn);
  }
  tvm_ffi_release(stage);
  return status;
}

/* A Relax model (mod, or NULL for a library alone): the options checked, then model_run.c. */
static int run_model(const void* mod, const char* path, const char* lib, const char* func,
                     const char** shapes, int num_shapes, const char** inputs, int num_inputs,
                     int64_t repeat, unsigned seed, bool no_check, const tvm_codegen_target* target,
                     const tvm_codegen_options* codegen, bool bounds_check) {
  const char* cmd = "run";
  const char* what = mod ? path : lib;
  if (bounds_check)
    return tvmc_usage_error(cmd, "'%s' is a Relax model: --bounds-check is not supported for "
                            "Relax models yet", what);
  if (target->kind == TVM_CODEGEN_TARGET_LLVM && target->mcpu[0] &&
      setenv("TVM_CODEGEN_CPU", target->mcpu, 1) != 0) {
    fprintf(stderr, "tvmc run: cannot set TVM_CODEGEN_CPU\n");
    return TVMC_FAILURE;
  }
  tvmc_model_run_options o = {.path = path, .lib = lib, .func = func, .shapes = shapes,
                              .num_shapes = num_shapes, .inputs = inputs,
                              .num_inputs = num_inputs, .repeat = repeat, .seed = seed,
                              .no_check = no_check, .codegen = *codegen};
  /* cuda: the kernels compiled for the GPU, the VM's tensors on GPU 0 */
  char text[128];
  tvm_codegen_target_str(target, text, sizeof(text));
  if (target->kind == TVM_CODEGEN_TARGET_CUDA) o.codegen.target = text; /* llvm: the env above */
  return tvmc_model_run(mod, &o);
}

int tvmc_cmd_run(int argc, char** argv) {
  const char* cmd = "run";
  const char *path = NULL, *func = NULL, *lib = NULL, *value, *target = "llvm", *ref = NULL;
  const char* shapes[MAX_SHAPES];
  const char* inputs[MAX_SHAPES];
  int num_shapes = 0, num_inputs = 0;
  int64_t repeat = 10, seed = 1;
  bool no_check = false, schedule = true;
  tvm_tir_lower_options lower = tvm_tir_lower_options_default();
  tvm_codegen_options codegen = tvm_codegen_options_default();
  const char* exec_mode = NULL;
  for (int i = 1; i < argc; ++i) {
    int r;
    if (tvmc_is_help(argv[i])) {
      fputs(kUsage, stdout);
      return TVMC_OK;
    } else if (strcmp(argv[i], "--no-check") == 0) {
      no_check = true;
    } else if (strcmp(argv[i], "--bounds-check") == 0) {
      lower.bounds_check = true;
    } else if (strcmp(argv[i], "--no-schedule") == 0) {
      schedule = codegen.schedule = false;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--exec-mode", NULL, &exec_mode)) != 0) {
      if (r < 0 || !tvmc_parse_exec_mode(cmd, exec_mode, &codegen)) return TVMC_USAGE_ERROR;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--func", NULL, &func)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--lib", NULL, &lib)) != 0 ||
               (r = tvmc_flag_value(cmd, argc, argv, &i, "--target", NULL, &target)) != 0) {
      if (r < 0) return TVMC_USAGE_ERROR;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--shape", NULL, &value)) != 0) {
      if (r < 0) return TVMC_USAGE_ERROR;
      if (num_shapes == MAX_SHAPES) return tvmc_usage_error(cmd, "too many --shape options");
      shapes[num_shapes++] = value;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--input", NULL, &value)) != 0) {
      if (r < 0) return TVMC_USAGE_ERROR;
      if (num_inputs == MAX_SHAPES) return tvmc_usage_error(cmd, "too many --input options");
      inputs[num_inputs++] = value;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--ref", NULL, &ref)) != 0) {
      if (r < 0) return TVMC_USAGE_ERROR;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--repeat", NULL, &value)) != 0) {
      if (r < 0 || !tvmc_parse_int(cmd, "--repeat", value, &repeat)) return TVMC_USAGE_ERROR;
      if (repeat < 0 || repeat > 1000000)
        return tvmc_usage_error(cmd, "--repeat must be in [0, 1000000], got %s", value);
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--seed", NULL, &value)) != 0) {
      if (r < 0 || !tvmc_parse_int(cmd, "--seed", value, &seed)) return TVMC_USAGE_ERROR;
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
  bool cuda = parsed.kind == TVM_CODEGEN_TARGET_CUDA;
  if (cuda) tvm_vm_init(); /* the cuda module kind, the device copies */
  /* FILE.so: a model library, run with libvm (the model's file with --ref). */
  size_t path_len = strlen(path);
  bool model_lib = path_len > 3 && strcmp(path + path_len - 3, ".so") == 0;
  if (model_lib && lib)
    return tvmc_usage_error(cmd, "FILE is a library already; --lib does not apply");
  if (ref && !model_lib)
    return tvmc_usage_error(cmd, "--ref is for running a model library (FILE.so)");
  if (model_lib) {
    lib = path;
    path = ref;
  }
  if (lib && access(lib, R_OK) != 0) {
    fprintf(stderr, "tvmc run: cannot open '%s': %s\n", lib, strerror(errno));
    return TVMC_USAGE_ERROR;
  }
  /* dlopen takes a name without a '/' for a library to search for, not for this file. */
  char lib_here[4096];
  if (lib && !strchr(lib, '/') && (size_t)snprintf(lib_here, sizeof(lib_here), "./%s", lib) <
                                      sizeof(lib_here)) {
    lib = lib_here;
  }

  int status;
  void* ir = NULL;
  if (path) {
    ir = tvmc_parse_file(cmd, path, true, &status);
    if (!ir) return status;
  }
  if (model_lib || tvmc_is_relax_module(ir)) {
    if (ir && !tvmc_is_relax_module(ir)) {
      fprintf(stderr, "tvmc run: '%s' defines no @R.function (--ref takes the model's file)\n",
              ref);
      tvm_ffi_release(ir);
      return TVMC_USAGE_ERROR;
    }
    status = run_model(ir, path, lib, func, shapes,
                       num_shapes, inputs, num_inputs, repeat, (unsigned)seed, no_check, &parsed,
                       &codegen, lower.bounds_check);
    tvm_ffi_release(ir);
    return status;
  }
  if (num_inputs > 0) {
    tvm_ffi_release(ir);
    return tvmc_usage_error(cmd, "--input is for Relax models ('%s' defines no @R.function; "
                            "use --shape)", path);
  }
  if (exec_mode) {
    tvm_ffi_release(ir);
    return tvmc_usage_error(cmd, "--exec-mode is for Relax models ('%s' defines no "
                            "@R.function)", path);
  }
  tvm_tir_prim_func_obj* f = tvmc_select_func(cmd, path, ir, func);
  /* A kernel calling other PrimFuncs is compiled and interpreted with its whole module. */
  void* unit = f && tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule && calls_module(ir, f)
                   ? tvmc_module_with_symbols(ir)
                   : NULL;
  tvm_ffi_release(ir);
  if (!f) return TVMC_USAGE_ERROR;
  const char* name = tvm_tir_func_global_symbol(f);
  g_unit = unit;
  g_unit_name = name;
  void* bindings = tvmc_bind_shapes(cmd, f, shapes, num_shapes);
  void *lowered = NULL, *compiled = NULL, *mod = NULL, *fn = NULL, *gpu_fn = NULL;
  tvmc_args args = {0};
  tvmc_counts counts = {0};
  status = TVMC_FAILURE;
  if (!bindings) {
    status = TVMC_USAGE_ERROR;
  } else if (!(lowered = tvm_tir_lower(unit ? unit : (void*)f, &lower))) {
    tvmc_report_error(cmd, "lowering failed");
  } else if (tvmc_count_ops(unit ? lowered_kernel(lowered, name) : lowered, bindings, &counts) != 0) {
    tvmc_report_error(cmd, "cannot count the operations");
  } else if (!lib && !(compiled = scheduled_lowered(unit ? unit : (void*)f, schedule && !cuda,
                                                     lowered, &lower))) {
    tvmc_report_error(cmd, "scheduling failed");
  } else if (!(mod = lib ? tvm_ffi_module_load_file(lib) : tvm_codegen_build(compiled, target, NULL))) {
    if (cuda && no_cuda_driver()) {
      status = TVMC_SKIPPED;
      if (!no_check && tvmc_args_make(cmd, f, bindings, (unsigned)seed, 4, 0, &args)) {
        int st = check_gpu_stages(f, lowered, name, bindings, &args, (unsigned)seed);
        if (st != TVMC_OK) status = st;
      }
    } else {
      tvmc_report_error(cmd, lib ? "cannot load the library" : "compilation failed");
    }
  } else if (tvm_ffi_module_get_function(mod, name, false, &fn) != 0 || !fn) {
    if (tvm_ffi_error_pending())
      tvmc_report_error(cmd, "cannot get the kernel");
    else
      fprintf(stderr, "tvmc run: %s has no function `%s`\n", lib ? lib : "the compiled module",
              name);
  } else if (cuda && !(gpu_fn = tvmc_cuda_wrap(fn))) {
    tvmc_report_error(cmd, "out of memory");
  } else if (tvmc_args_make(cmd, f, bindings, (unsigned)seed, no_check ? 1 : 4, 0, &args)) {
    status = no_check ? TVMC_OK : check(cuda ? gpu_fn : fn, f, bindings, &args, (unsigned)seed);
    if (status == TVMC_OK && repeat > 0)
      status = cuda ? tvmc_cuda_time(fn, name, &args, repeat, &counts)
                    : time_runs(fn, name, &args, repeat, &counts);
  }
  tvm_ffi_release(gpu_fn);
  tvmc_args_free(&args);
  tvm_ffi_release(fn);
  tvm_ffi_release(mod);
  tvm_ffi_release(compiled);
  tvm_ffi_release(lowered);
  tvm_ffi_release(bindings);
  tvm_ffi_release(f);
  tvm_ffi_release(unit);
  g_unit = NULL;
  return status;
}

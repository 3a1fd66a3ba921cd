/*
 * model_bench.c: whole models, compiled by the Relax build and run in libvm, with and without
 * the default CPU schedule (tvm/tir/schedule.h), against PyTorch on the same shapes.
 *
 *   model_bench [--models a,b,...] [--threads 1,2] [--rounds N] [--no-torch]
 *   model_bench --dump-tir MODEL   (the model's kernels after the build pipeline and the default
 *                                   schedule for this CPU, as TVMScript; MODEL_BENCH_DUMP_RULES
 *                                   = letters of the rules to apply: d pad, l local_accum,
 *                                   v vectorize, R vector_reduce, r register_tile, p pack,
 *                                   P parallel)
 *
 *   model_bench --profile MODEL bytecode|compiled N   (one build, N inferences: for callgrind,
 *                                   perf; the pool size from TVM_NUM_THREADS)
 *
 * Models (model_bench_models.c): an MLP 784-512-256-10 at batch 1 and 32, a CNN (two 3x3
 * convolutions with bias, ReLU and 2x2 max pooling, a dense classifier; 1x3x32x32), a
 * transformer block (layer norm, q/k/v projections, 4-head softmax attention, output projection,
 * residual; sequence 64, hidden 128), a ResNet-style block (two 3x3 convolutions over
 * 1x64x56x56 with folded batch-norm biases, ReLU, residual add) and 1,000 chained adds of a
 * 4-vector (the VM's cost per operator call).
 *
 * Each (model, thread count) runs in a child process with TVM_NUM_THREADS set (the pool's size
 * is fixed per process): the builds (scheduled, unscheduled, scheduled in exec_mode compiled), a
 * check that the scheduled model's output matches the other two, then ms per inference (median of rounds, each at least ~0.15 s). PyTorch's
 * column comes from bench/model_bench_torch.py run by /usr/bin/python3 with
 * torch.set_num_threads; without torch it prints "n/a (no torch)". Both sides of a T-thread row
 * run confined to the same T CPUs (PyTorch's set_num_threads(1) alone still keeps a second core
 * busy on some models). The whole measurement is
 * repeated --rounds times (default 3), ours and PyTorch's alternating, and each figure is the
 * median of its rounds.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/codegen/codegen.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/transform.h>
#include <tvm/relax/relax.h>
#include <tvm/script/printer.h>
#include <tvm/tir/schedule.h>
#include <tvm/vm/vm.h>
#include <unistd.h>

#include "bench_util.h"
#include "model_bench.h"

#ifndef MODEL_BENCH_TORCH_SCRIPT
#define MODEL_BENCH_TORCH_SCRIPT "bench/model_bench_torch.py"
#endif

static void report_error(const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "model_bench: %s: %s: %s\n", what, e ? tvm_ffi_error_kind(e) : "?",
          e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
}

/* ---- Child: one model at this process's thread count -------------------------------------- */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static float rnd(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (float)((double)(g_rng >> 11) / 9007199254740992.0 - 0.5);
}

typedef struct {
  tvm_vm_executable* exec;
  tvm_vm* vm;
  double build_s;
} built;

static int build(const bench_model* m, bool schedule, tvm_codegen_exec_mode mode, built* out) {
  tvm_codegen_options o = tvm_codegen_options_default();
  o.schedule = schedule;
  o.exec_mode = mode;
  double t0 = bench_now_ns();
  if (m->ops > 0) {
    /* The per-call overhead model: without the fusion passes, which would make its chain of
     * operators one kernel (one VM call). */
    const tvm_relax_pass* p;
    tvm_relax_pass passes[32];
    int64_t all = tvm_relax_build_pipeline_passes(&p), n = 0;
    for (int64_t i = 0; i < all && n < 32; ++i) {
      if (strcmp(p[i].name, "FuseOps") != 0 && strcmp(p[i].name, "FuseTIR") != 0) passes[n++] = p[i];
    }
    out->exec = tvm_codegen_relax_build_passes(m->mod, passes, n, &o);
  } else {
    out->exec = tvm_codegen_relax_build(m->mod, &o);
  }
  out->build_s = (bench_now_ns() - t0) / 1e9;
  out->vm = out->exec ? tvm_vm_create(out->exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  return out->vm ? 0 : -1;
}

static void built_free(built* b) {
  if (b->vm) tvm_vm_release(b->vm);
  tvm_ffi_release(b->exec);
}

static int invoke(built* b, const TVMFFIAny* args, int n, TVMFFIAny* out) {
  return tvm_vm_invoke(b->vm, "main", args, n, out);
}

/* ms per inference: the median of rounds of at least ~0.15 s (3 single runs past 1 s each). */
static double time_ms(built* b, const TVMFFIAny* args, int n) {
  TVMFFIAny out;
  for (int i = 0; i < 2; ++i) {
    if (invoke(b, args, n, &out) != 0) return -1;
    tvm_ffi_any_release(&out);
  }
  double t0 = bench_now_ns();
  if (invoke(b, args, n, &out) != 0) return -1;
  tvm_ffi_any_release(&out);
  double one = (bench_now_ns() - t0) / 1e6;
  long iters = one > 150 ? 1 : (long)(150 / (one > 1e-3 ? one : 1e-3));
  int rounds = one > 1000 ? 3 : 5;
  double ns;
  int rc = 0;
  BENCH_MEDIAN_NS(ns, rounds, iters, {
    if (rc == 0) rc = invoke(b, args, n, &out);
    if (rc == 0) tvm_ffi_any_release(&out);
  });
  return rc == 0 ? ns / 1e6 : -1;
}

/* max |a - b| / (1 + |b|) over two float tensors. */
static double max_rel_diff(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index != kTVMFFITensor || b->type_index != kTVMFFITensor) return INFINITY;
  const DLTensor *x = tvm_ffi_tensor_dl(a->v_obj), *y = tvm_ffi_tensor_dl(b->v_obj);
  int64_t n = tvm_ffi_dltensor_numel(x);
  if (n != tvm_ffi_dltensor_numel(y)) return INFINITY;
  double m = 0;
  for (int64_t i = 0; i < n; ++i) {
    double u = ((const float*)x->data)[i], v = ((const float*)y->data)[i];
    double d = fabs(u - v) / (1 + fabs(v));
    if (!(d <= m)) m = d;
  }
  return m;
}

static int child(const char* name) {
  bench_model m;
  if (bench_model_build(name, &m) != 0) {
    report_error(name);
    return 1;
  }
  void* tensors[BENCH_MAX_PARAMS];
  TVMFFIAny args[BENCH_MAX_PARAMS];
  for (int i = 0; i < m.nparams; ++i) {
    tensors[i] = tvm_ffi_tensor_empty(m.shape[i], m.ndim[i], tvm_tir_dtype_float(32), (DLDevice){kDLCPU, 0});
    float* p = tvm_ffi_tensor_dl(tensors[i])->data;
    for (int64_t k = 0, e = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(tensors[i])); k < e; ++k) p[k] = rnd();
    args[i] = tvm_ffi_any_obj(tensors[i]);
  }
  built s = {0}, u = {0}, c = {0}; /* scheduled, unscheduled, scheduled in compiled mode */
  int rc = 0;
  if (build(&m, true, TVM_CODEGEN_EXEC_BYTECODE, &s) != 0 ||
      build(&m, false, TVM_CODEGEN_EXEC_BYTECODE, &u) != 0 ||
      build(&m, true, TVM_CODEGEN_EXEC_COMPILED, &c) != 0) {
    report_error("build");
    rc = 1;
  }
  TVMFFIAny ys, yu, yc;
  if (rc == 0 && (invoke(&s, args, m.nparams, &ys) != 0 || invoke(&u, args, m.nparams, &yu) != 0 ||
                  invoke(&c, args, m.nparams, &yc) != 0)) {
    report_error("run");
    rc = 1;
  }
  if (rc == 0) {
    double dc = max_rel_diff(&yc, &ys), du = max_rel_diff(&ys, &yu);
    printf("DIFF %s %.3g\n", name, dc > du ? dc : du);
    printf("BUILD %s %.2f %.2f\n", name, s.build_s, u.build_s);
    tvm_ffi_any_release(&ys), tvm_ffi_any_release(&yu), tvm_ffi_any_release(&yc);
    double ts = time_ms(&s, args, m.nparams), tu = time_ms(&u, args, m.nparams);
    double tc = time_ms(&c, args, m.nparams);
    if (ts < 0 || tu < 0 || tc < 0) {
      report_error("timing");
      rc = 1;
    } else {
      printf("RESULT %s sched %.4f\nRESULT %s nosched %.4f\n", name, ts, name, tu);
      printf("RESULT %s compiled %.4f\n", name, tc);
    }
  }
  built_free(&s), built_free(&u), built_free(&c);
  for (int i = 0; i < m.nparams; ++i) tvm_ffi_release(tensors[i]);
  tvm_ffi_release(m.mod);
  fflush(stdout);
  return rc;
}

/* ---- --profile: one build, N inferences (for callgrind or perf over the VM) --------------- */
static int profile(const char* name, const char* mode, long n) {
  bench_model m;
  if (bench_model_build(name, &m) != 0) {
    report_error(name);
    return 1;
  }
  void* tensors[BENCH_MAX_PARAMS];
  TVMFFIAny args[BENCH_MAX_PARAMS];
  for (int i = 0; i < m.nparams; ++i) {
    tensors[i] = tvm_ffi_tensor_empty(m.shape[i], m.ndim[i], tvm_tir_dtype_float(32), (DLDevice){kDLCPU, 0});
    float* p = tvm_ffi_tensor_dl(tensors[i])->data;
    for (int64_t k = 0, e = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(tensors[i])); k < e; ++k) p[k] = rnd();
    args[i] = tvm_ffi_any_obj(tensors[i]);
  }
  built b = {0};
  int rc = build(&m, true, strcmp(mode, "compiled") == 0 ? TVM_CODEGEN_EXEC_COMPILED : TVM_CODEGEN_EXEC_BYTECODE, &b);
  if (rc != 0) report_error("build");
  double t0 = bench_now_ns(), fastest = INFINITY;
  for (long i = 0; rc == 0 && i < n; ++i) {
    TVMFFIAny out;
    double t1 = bench_now_ns();
    rc = invoke(&b, args, m.nparams, &out);
    if (rc == 0) tvm_ffi_any_release(&out);
    double one = (bench_now_ns() - t1) / 1e6;
    if (one < fastest) fastest = one;
  }
  double ms = (bench_now_ns() - t0) / 1e6 / (double)n;
  /* the fastest inference: on a loaded machine, the figure least disturbed by other work */
  if (rc == 0)
    printf("%s %s: %.4f ms per inference over %ld (fastest %.4f)", name, mode, ms, n, fastest);
  if (rc == 0 && m.ops > 0) printf(" (%d ops: %.3f us per op)", m.ops, ms * 1e3 / m.ops);
  if (rc == 0) printf("\n");
  else report_error("run");
  built_free(&b);
  for (int i = 0; i < m.nparams; ++i) tvm_ffi_release(tensors[i]);
  tvm_ffi_release(m.mod);
  return rc == 0 ? 0 : 1;
}

/* ---- --dump-tir: the model's kernels after the default schedule ----------------------------- */
static int dump_tir(const char* name) {
  bench_model m;
  if (bench_model_build(name, &m) != 0) {
    report_error(name);
    return 1;
  }
  tvm_tir_ir_module_obj* mod = tvm_relax_build_pipeline(m.mod);
  tvm_codegen_options o = tvm_codegen_options_default();
  tvm_tir_schedule_target t;
  tvm_codegen_schedule_target(&o, &t);
  if (getenv("MODEL_BENCH_DUMP_RULES")) { /* e.g. "lvr": which rules (pad, local_accum, ...) */
    const char* r = getenv("MODEL_BENCH_DUMP_RULES");
    t.pad = strchr(r, 'd'), t.local_accum = strchr(r, 'l'), t.vectorize = strchr(r, 'v');
    t.register_tile = strchr(r, 'r'), t.pack = strchr(r, 'p'), t.parallel = strchr(r, 'P');
    t.vector_reduce = strchr(r, 'R');
  }
  void* s = mod ? tvm_tir_schedule_default(mod, &t) : NULL;
  void* text = NULL;
  if (s) {
    TVMFFIAny a = tvm_ffi_any_obj(s);
    text = tvm_script_print(&a, NULL);
  }
  if (text) {
    printf("%s\n", tvm_ffi_str_cstr(text));
  } else {
    report_error("dump");
  }
  tvm_ffi_release(text), tvm_ffi_release(s), tvm_ffi_release(mod), tvm_ffi_release(m.mod);
  return text ? 0 : 1;
}

/* ---- Parent: children per thread count, PyTorch, the table --------------------------------- */
enum { MAX_MODELS = 8, MAX_THREADS = 4 };

enum { MAX_ROUNDS = 9 };

/* One (model, thread count): the samples of each round, the median reported. */
typedef struct {
  double sched[MAX_ROUNDS], nosched[MAX_ROUNDS], torch[MAX_ROUNDS];
  double compiled[MAX_ROUNDS]; /* sched, exec_mode compiled */
  int nsched, ntorch;
  double diff, build_s;
} row;

static row g_rows[MAX_MODELS][MAX_THREADS];
static const char* g_models[MAX_MODELS];
static int g_nmodels, g_threads[MAX_THREADS], g_nthreads;
static char g_torch_note[256] = "";

static int model_index(const char* name) {
  for (int i = 0; i < g_nmodels; ++i) {
    if (strcmp(g_models[i], name) == 0) return i;
  }
  return -1;
}

/* Confines this process, and the children it starts from now on, to the first t CPUs it may run
 * on (all of them when t is 0 or at least their number); quietly unconfined where the system
 * refuses. */
static void confine_to_cpus(int t) {
  static cpu_set_t all;
  static int have_all = -1;
  if (have_all < 0) have_all = sched_getaffinity(0, sizeof(all), &all) == 0;
  if (!have_all) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  int n = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &all)) continue;
    if (t > 0 && n == t) break;
    CPU_SET(cpu, &set);
    ++n;
  }
  (void)sched_setaffinity(0, sizeof(set), &set);
}

static void run_child(const char* self, const char* model, int t, row* r) {
  char cmd[4400];
  snprintf(cmd, sizeof(cmd), "TVM_NUM_THREADS=%d '%s' --child %s", t, self, model);
  FILE* p = popen(cmd, "r");
  if (!p) return;
  char line[512], name[64], kind[32];
  double a, b;
  double ts = -1, tu = -1, tc = -1;
  while (fgets(line, sizeof(line), p)) {
    if (sscanf(line, "RESULT %63s %31s %lf", name, kind, &a) == 3) {
      if (strcmp(kind, "sched") == 0) ts = a;
      if (strcmp(kind, "nosched") == 0) tu = a;
      if (strcmp(kind, "compiled") == 0) tc = a;
    } else if (sscanf(line, "DIFF %63s %lf", name, &a) == 2) {
      if (a > r->diff) r->diff = a;
    } else if (sscanf(line, "BUILD %63s %lf %lf", name, &a, &b) == 3) {
      r->build_s = a;
    }
  }
  pclose(p);
  if (ts >= 0 && tu >= 0 && tc >= 0 && r->nsched < MAX_ROUNDS) {
    r->compiled[r->nsched] = tc;
    r->sched[r->nsched] = ts;
    r->nosched[r->nsched++] = tu;
  }
}

static double median(const double* v, int n) {
  double s[MAX_ROUNDS];
  memcpy(s, v, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), bench_cmp_double);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void run_torch(const char* models, int threads) {
  if (access("/usr/bin/python3", X_OK) != 0) {
    snprintf(g_torch_note, sizeof(g_torch_note), "no /usr/bin/python3");
    return;
  }
  char cmd[1024];
  snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' --threads %d --models %s 2>&1",
           MODEL_BENCH_TORCH_SCRIPT, threads, models);
  FILE* p = popen(cmd, "r");
  if (!p) return;
  char line[512], name[64];
  int t;
  double ms;
  while (fgets(line, sizeof(line), p)) {
    if (sscanf(line, "RESULT %63s %d %lf", name, &t, &ms) == 3) {
      int i = model_index(name);
      for (int k = 0; i >= 0 && k < g_nthreads; ++k) {
        row* r = &g_rows[i][k];
        if (g_threads[k] == t && r->ntorch < MAX_ROUNDS) r->torch[r->ntorch++] = ms;
      }
    } else if (strncmp(line, "NOTORCH", 7) == 0) {
      snprintf(g_torch_note, sizeof(g_torch_note), "no torch");
    }
  }
  pclose(p);
}

static void print_table(void) {
  printf("%-13s %3s %11s %11s %11s %7s %11s %9s %8s %9s\n", "model", "thr", "no-sched ms",
         "sched ms", "compiled ms", "speedup", "pytorch ms", "vs torch", "2T gain", "check");
  for (int i = 0; i < g_nmodels; ++i) {
    if (strcmp(g_models[i], "tiny-ops") == 0) continue;
    for (int k = 0; k < g_nthreads; ++k) {
      row* r = &g_rows[i][k];
      if (!r->nsched) {
        printf("%-13s %3d  (failed)\n", g_models[i], g_threads[k]);
        continue;
      }
      double sched = median(r->sched, r->nsched), nosched = median(r->nosched, r->nsched);
      char torch[32], ratio[300], gain[32];
      if (r->ntorch) {
        double t = median(r->torch, r->ntorch);
        snprintf(torch, sizeof(torch), "%.3f", t);
        snprintf(ratio, sizeof(ratio), "%.2fx", t / sched);
      } else {
        snprintf(torch, sizeof(torch), "n/a");
        snprintf(ratio, sizeof(ratio), "(%s)", g_torch_note[0] ? g_torch_note : "no torch");
      }
      snprintf(gain, sizeof(gain), "-");
      if (k > 0 && g_rows[i][0].nsched)
        snprintf(gain, sizeof(gain), "%.2fx", median(g_rows[i][0].sched, g_rows[i][0].nsched) / sched);
      printf("%-13s %3d %11.3f %11.3f %11.3f %6.1fx %11s %9s %8s %9.1e\n", g_models[i],
             g_threads[k], nosched, sched, median(r->compiled, r->nsched), nosched / sched, torch,
             ratio, gain, r->diff);
    }
  }
  printf("(speedup: no-sched / sched; vs torch: pytorch ms / sched ms, above 1 = faster than\n"
         " PyTorch; 2T gain: sched 1 thread / sched this row; compiled: sched with exec_mode\n"
         " compiled (each Relax function native code instead of VM bytecode); check: max\n"
         " relative difference of the scheduled output from the unscheduled and compiled ones)\n");
  int t = model_index("tiny-ops");
  for (int k = 0; t >= 0 && k < g_nthreads; ++k) {
    row* r = &g_rows[t][k];
    if (!r->nsched) continue;
    printf("VM overhead per operator call (%d chained 4-element adds, %d thread%s): %.2f us "
           "bytecode, %.2f us compiled",
           BENCH_TINY_OPS, g_threads[k], g_threads[k] > 1 ? "s" : "",
           median(r->sched, r->nsched) * 1e3 / BENCH_TINY_OPS,
           median(r->compiled, r->nsched) * 1e3 / BENCH_TINY_OPS);
    if (r->ntorch) printf("; PyTorch eager: %.2f us", median(r->torch, r->ntorch) * 1e3 / BENCH_TINY_OPS);
    printf("\n");
  }
}

/* The 1-minute load average (other processes competing for the cores) into buf. */
static const char* loadavg(char* buf) {
  FILE* f = fopen("/proc/loadavg", "r");
  double l = -1;
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  if (l < 0) {
    snprintf(buf, 64, "?");
  } else {
    snprintf(buf, 64, "%.1f", l);
  }
  return buf;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--dump-tir") == 0) return dump_tir(argv[2]);
  if (argc == 5 && strcmp(argv[1], "--profile") == 0) return profile(argv[2], argv[3], atol(argv[4]));
  const char* models = NULL;
  const char* threads = "1,2";
  bool torch = true;
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--models") == 0 && i + 1 < argc) {
      models = argv[++i];
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = argv[++i];
    } else if (strcmp(argv[i], "--no-torch") == 0) {
      torch = false;
    } else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
      if (rounds < 1 || rounds > MAX_ROUNDS) rounds = 3;
    } else {
      fprintf(stderr, "usage: model_bench [--models a,b,...] [--threads 1,2] [--rounds N] [--no-torch]\n"
                      "       model_bench --dump-tir MODEL\n"
                      "       model_bench --profile MODEL bytecode|compiled N\n");
      return 2;
    }
  }
  static char model_buf[512];
  if (models) {
    snprintf(model_buf, sizeof(model_buf), "%s", models);
    for (char* tok = strtok(model_buf, ","); tok && g_nmodels < MAX_MODELS; tok = strtok(NULL, ","))
      g_models[g_nmodels++] = tok;
  } else {
    for (int i = 0; bench_model_names[i] && g_nmodels < MAX_MODELS; ++i) g_models[g_nmodels++] = bench_model_names[i];
  }
  char tbuf[64];
  snprintf(tbuf, sizeof(tbuf), "%s", threads);
  for (char* tok = strtok(tbuf, ","); tok && g_nthreads < MAX_THREADS; tok = strtok(NULL, ","))
    g_threads[g_nthreads++] = atoi(tok);
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return 1;
  self[n] = '\0';
  char list[512] = "";
  for (int i = 0; i < g_nmodels; ++i) {
    strncat(list, g_models[i], sizeof(list) - strlen(list) - 2);
    if (i + 1 < g_nmodels) strcat(list, ",");
  }
  char load0[64], load1[64];
  loadavg(load0);
  /* Rounds alternate this project's runs and PyTorch's, so that a change in the machine's load
   * (shared machines drift) reaches both columns; each figure is the median of its rounds. */
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < g_nthreads; ++k) {
      confine_to_cpus(g_threads[k]);
      for (int i = 0; i < g_nmodels; ++i) run_child(self, g_models[i], g_threads[k], &g_rows[i][k]);
      if (torch) run_torch(list, g_threads[k]);
    }
    confine_to_cpus(0);
  }
  if (!torch) snprintf(g_torch_note, sizeof(g_torch_note), "--no-torch");
  printf("%d round%s, each figure the median of its rounds; load average %s at the start, %s at "
         "the end\n", rounds, rounds > 1 ? "s" : "", load0, loadavg(load1));
  print_table();
  return 0;
}

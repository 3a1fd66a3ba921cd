/* script_parse_bench.c: throughput of the TVMScript parser, compared in the same run with
 * CPython's ast.parse on the very same texts.
 *
 * Inputs: a generated module of typical TIR text (about 5 MB by default; the first argument sets
 * the size in MB), valid for the semantic parser (every name defined, consistent dtypes), and the
 * corpus of tests/corpus (tir/ and canonical/, each file parsed on its own; the directory is
 * found from this file's path, or from the environment variable TVM_CORPUS_DIR).
 *
 * Rows: the streaming lexer alone (as the parser drives it, interning names; needs libscript/src
 * on the include path), the lexer into one token array (tvm_script_lex), lexer + parser to the
 * syntax tree (ast.h), lexer + parser to a Doc tree (the tree converted), and the
 * whole job, tvm_script_parse (text -> checked IR, well-formedness on), on the corpus (sum of
 * bytes over sum of times) and on the generated module.
 *
 * The comparison with ast.parse: one python3 child ($TVM_BENCH_PYTHON names another; the header
 * line says which ran) reads the same files and times ast.parse
 * (time.perf_counter) whenever asked. The whole-job rows alternate rounds, one of ours then one
 * of Python's, so that both sides see the same state of the machine (a shared VM's speed drifts
 * by more than the margin being measured); each side's MB/s is its median over the rounds, and
 * the ratio is the median of the rounds' ratios. Both processes are pinned to the CPU the bench
 * starts on (where the system allows it): the two sides then alternate on one core, and a busy
 * neighbour on one of the VM's virtual CPUs cannot slow only the side that happened to run there
 * (unpinned, whole runs read 7x or 11x by where each process landed). Other rows are medians of
 * runs of their own.
 * `n/a` when python3 is missing. The requirement: the whole job >= 10x ast.parse.
 *
 * Relax rows: a transformer built with librelax's BlockBuilder (tests/relax/relax_models.c),
 * printed as TVMScript, parsed whole; and the Relax corpus (tests/corpus/relax), each file on
 * its own; both compared with ast.parse as the TIR rows are.
 *
 * A second argument names a file to write the generated text to. */
#define _GNU_SOURCE /* sched_getcpu, CPU_SET */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>

#include "bench_util.h"
#include "relax_models.h"
#include "lex_internal.h"

/* One TIR function in the printer's canonical style, varied by index; valid TIR. */
static void append_function(tvm_ffi_strbuf* b, int i) {
  tvm_ffi_strbuf_printf(
      b,
      "    @T.prim_func(private=True)\n"
      "    def matmul_%d(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), "
      "\"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
      "        T.func_attr({\"global_symbol\": \"matmul_%d\", \"tir.noalias\": True})\n"
      "        # with T.sblock(\"root\"):\n"
      "        for i, j, k in T.grid(128, 128, %d):\n"
      "            with T.sblock(\"C\"):\n"
      "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "                T.reads(A[vi, vk], B[vk, vj])\n"
      "                T.writes(C[vi, vj])\n"
      "                with T.init():\n"
      "                    C[vi, vj] = T.float32(0.0)\n"
      "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
      "        for i_0 in range(%d):\n"
      "            for ax0 in T.serial(16):\n"
      "                if i_0 * 16 + ax0 < 1000 and ax0 %% 2 == 0:\n"
      "                    C[i_0 // 8, ax0 + 1] = T.Select(i_0 > 3, T.max(C[i_0 // 8, ax0], "
      "T.float32(%d.5)), T.float32(0))\n"
      "                    x: T.let = T.Cast(\"int64\", i_0 * 4 + ax0 - 1)\n"
      "                    C[i_0, ax0] = T.call_extern(\"float32\", \"f\", x, T.float32(1e-3))\n"
      "\n",
      i, i, 120 + i % 7, 8 + i % 5, i % 10);
}

/* ---- Inputs --------------------------------------------------------------------------------- */

typedef struct {
  char* path; /* a file holding exactly `text` */
  char* text;
  size_t len;
} bench_text;

static char* read_all(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  tvm_ffi_strbuf b = {0};
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) tvm_ffi_strbuf_append(&b, chunk, got);
  fclose(f);
  char* text = malloc(b.size + 1);
  if (text) {
    if (b.size) memcpy(text, b.data, b.size);
    text[b.size] = '\0';
    *len = b.size;
  }
  tvm_ffi_strbuf_free(&b);
  return text;
}

static int cmp_cstr(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Append the *.py files of dir (sorted) to texts. */
static void add_dir(const char* dir, bench_text** texts, size_t* n, size_t* cap) {
  DIR* d = opendir(dir);
  if (!d) return;
  char* names[512];
  size_t k = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL && k < 512;) {
    size_t len = strlen(e->d_name);
    if (len > 3 && strcmp(e->d_name + len - 3, ".py") == 0) names[k++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, k, sizeof(char*), cmp_cstr);
  for (size_t i = 0; i < k; ++i) {
    char path[2048];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    free(names[i]);
    if (*n == *cap) {
      *cap = *cap ? *cap * 2 : 64;
      bench_text* grown = realloc(*texts, *cap * sizeof(bench_text));
      if (!grown) continue;
      *texts = grown;
    }
    bench_text t = {strdup(path), NULL, 0};
    t.text = read_all(path, &t.len);
    if (t.text) {
      (*texts)[(*n)++] = t;
    } else {
      free(t.path);
    }
  }
}

/* The corpus directory: $TVM_CORPUS_DIR, else tests/corpus next to this file's bench/. */
static void corpus_dir(char* out, size_t size) {
  const char* env = getenv("TVM_CORPUS_DIR");
  if (env && *env) {
    snprintf(out, size, "%s", env);
    return;
  }
  snprintf(out, size, "%s", __FILE__);
  char* slash = strrchr(out, '/');
  if (slash) *slash = '\0';
  slash = strrchr(out, '/');
  if (slash) {
    *slash = '\0';
  } else {
    snprintf(out, size, ".");
  }
  size_t used = strlen(out);
  snprintf(out + used, size - used, "/tests/corpus");
}

/* ---- Timing ----------------------------------------------------------------------------------- */

static void* parse_ir(const bench_text* t) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = t->path;
  return tvm_script_parse(t->text, t->len, &opts);
}

/* A python3 child that times CPython's ast.parse over a set of files on request: it reads them
 * once, then for each line "n warm" on its stdin parses every file once untimed if warm (the
 * other side's round has just run: this warms the caches again) and n times timed, and answers
 * with the seconds per timed pass. */
typedef struct {
  pid_t pid;
  FILE* to;
  FILE* from;
} py_timer;

static const char kPyTimer[] =
    "import ast, sys, time\n"
    "texts = [open(p, encoding='utf-8').read() for p in sys.argv[1:]]\n"
    "print(sum(len(t.encode('utf-8')) for t in texts), sys.version.split()[0], sys.executable,\n"
    "      flush=True)\n"
    "for line in sys.stdin:\n"
    "    n, warm = map(int, line.split())\n"
    "    for t in texts if warm else ():\n"
    "        ast.parse(t)\n"
    "    t0 = time.perf_counter()\n"
    "    for _ in range(n):\n"
    "        for t in texts:\n"
    "            ast.parse(t)\n"
    "    print((time.perf_counter() - t0) / n, flush=True)\n";

/* The Python the comparison runs: $TVM_BENCH_PYTHON, else the first python3 on PATH; and its
 * version and path as the child reports them (the table's header says which it was: ast.parse
 * runs ~1.5x faster in a PGO-built CPython, such as Debian's, than in a plain build). */
static const char* python_command(void) {
  const char* p = getenv("TVM_BENCH_PYTHON");
  return p && *p ? p : "python3";
}
static char g_py_version[64], g_py_path[512];

/* Starts the child on texts[0..n); false (and nothing to stop) when python3 is not there. */
static bool py_timer_start(py_timer* t, const bench_text* texts, size_t n) {
  int to[2], from[2];
  if (pipe(to) != 0) return false;
  if (pipe(from) != 0) {
    close(to[0]), close(to[1]);
    return false;
  }
  char** argv = calloc(n + 4, sizeof(char*));
  pid_t pid = argv ? fork() : -1;
  if (pid == 0) {
    dup2(to[0], 0);
    dup2(from[1], 1);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    close(to[0]), close(to[1]), close(from[0]), close(from[1]);
    argv[0] = (char*)python_command();
    argv[1] = "-c";
    argv[2] = (char*)kPyTimer;
    for (size_t i = 0; i < n; ++i) argv[3 + i] = texts[i].path;
    execvp(argv[0], argv);
    _exit(127);
  }
  free(argv);
  close(to[0]);
  close(from[1]);
  t->pid = pid;
  t->to = pid > 0 ? fdopen(to[1], "w") : NULL;
  t->from = pid > 0 ? fdopen(from[0], "r") : NULL;
  long size = -1;
  if (!t->to || !t->from ||
      fscanf(t->from, "%ld %63s %511[^\n]", &size, g_py_version, g_py_path) != 3) {
    if (t->to) {
      fclose(t->to);
    } else {
      close(to[1]);
    }
    if (t->from) {
      fclose(t->from);
    } else {
      close(from[0]);
    }
    if (pid > 0) waitpid(pid, NULL, 0);
    return false;
  }
  return true;
}

/* Seconds per pass of ast.parse over the files, timed over `passes` passes (after an untimed
 * one if warm); -1 on failure. */
static double py_timer_pass(py_timer* t, int passes, bool warm) {
  double secs = -1;
  if (fprintf(t->to, "%d %d\n", passes, warm) < 0 || fflush(t->to) != 0) return -1;
  return fscanf(t->from, "%lf", &secs) == 1 ? secs : -1;
}

static void py_timer_stop(py_timer* t) {
  fclose(t->to); /* the child's loop ends at EOF */
  fclose(t->from);
  waitpid(t->pid, NULL, 0);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
  return v[n / 2];
}

typedef struct {
  const bench_text* texts;
  size_t n;
  int reps;  /* passes per timing */
  bool warm; /* an untimed pass first (short passes, whose caches the other side disturbed) */
} parse_pass;

static void parse_all(const parse_pass* pp) {
  for (size_t i = 0; i < pp->n; ++i) {
    void* ir = parse_ir(&pp->texts[i]);
    BENCH_KEEP(ir);
    tvm_ffi_release(ir);
  }
}

/* ns per pass of tvm_script_parse over the texts: one pass untimed if warm (as the Python side
 * does then), then the mean of `reps` passes. */
static double time_parse_pass(const parse_pass* pp) {
  if (pp->warm) parse_all(pp);
  double t0 = bench_now_ns();
  for (int k = 0; k < pp->reps; ++k) parse_all(pp);
  return (bench_now_ns() - t0) / pp->reps;
}

/* The rounds of one whole-job row: one timing of ours (time_parse_pass), then the child times
 * `py_passes` passes of ast.parse; outputs are medians (ns per pass of ours, MB/s of Python,
 * and the ratio of the speeds per round), the Python ones -1 without python3. */
static void interleaved(const parse_pass* pp, py_timer* py, int py_passes, int rounds,
                        double bytes, double* out_ns, double* out_py_mbps, double* out_ratio) {
  double ours[64], theirs[64], ratio[64];
  rounds = rounds > 64 ? 64 : rounds;
  bool have_py = py != NULL;
  for (int r = 0; r < rounds; ++r) {
    ours[r] = time_parse_pass(pp);
    double secs = have_py ? py_timer_pass(py, py_passes, pp->warm) : -1;
    if (secs <= 0) have_py = false;
    theirs[r] = have_py ? bytes / 1e6 / secs : -1;
    ratio[r] = have_py ? secs * 1e9 / ours[r] : -1;
  }
  *out_ns = median(ours, rounds);
  *out_py_mbps = have_py ? median(theirs, rounds) : -1;
  *out_ratio = have_py ? median(ratio, rounds) : -1;
}

/* One row; ratio <= 0: ours over py_mbps. */
static void print_row(const char* what, double bytes, double ns, double py_mbps, double ratio) {
  double ours = bytes / 1e6 / (ns / 1e9);
  if (py_mbps > 0) {
    printf("%-44s %10.1f %12.1f %8.1fx %10.2f\n", what, ours, py_mbps,
           ratio > 0 ? ratio : ours / py_mbps, ns / 1e6);
  } else {
    printf("%-44s %10.1f %12s %9s %10.2f\n", what, ours, py_mbps == 0 ? "-" : "n/a", "-",
           ns / 1e6);
  }
}

/* Pins this process (and the python3 child it forks later) to the CPU it runs on now; returns
 * the CPU, or -1 where that is not possible (the bench then runs unpinned). */
static int pin_to_current_cpu(void) {
  int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0 ? cpu : -1;
}

static void report_parse_error(const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "%s: %s: %s\n", what, e ? tvm_ffi_error_kind(e) : "?",
          e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
}

int main(int argc, char** argv) {
  double mb = argc > 1 ? atof(argv[1]) : 5.0;
  if (mb <= 0) mb = 5.0;
  signal(SIGPIPE, SIG_IGN); /* a python3 child that dies is a failed timing, not our death */
  int cpu = pin_to_current_cpu();
  tvm_ffi_strbuf src = {0};
  tvm_ffi_strbuf_puts(&src,
                      "# from tvm.script import ir as I\n"
                      "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n"
                      "@I.ir_module\nclass Module:\n");
  for (int i = 0; (double)src.size < mb * 1e6; ++i) append_function(&src, i);
  if (src.failed) return 1;
  size_t n = src.size;

  /* The generated text goes to a file for ast.parse: the one named, or a temporary one. */
  char tmp_path[] = "/tmp/script_parse_bench_XXXXXX";
  const char* gen_path = argc > 2 ? argv[2] : NULL;
  FILE* f = NULL;
  if (gen_path) {
    f = fopen(gen_path, "wb");
  } else {
    int fd = mkstemp(tmp_path);
    f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    gen_path = tmp_path;
  }
  if (!f || fwrite(src.data, 1, n, f) != n) return 1;
  fclose(f);
  bench_text gen = {(char*)gen_path, src.data, n};

  /* Check that it parses before timing. */
  void* doc = tvm_script_parse_doc(src.data, n, "bench.py");
  if (!doc) {
    report_parse_error("parse failed");
    return 1;
  }
  tvm_ffi_release(doc);
  tvm_script_tokens toks;
  if (tvm_script_lex(src.data, n, "bench.py", &toks) != 0) return 1;
  size_t ntok = toks.count;
  tvm_script_tokens_free(&toks);

  double stream_ns, lex_ns, ast_ns, parse_ns, ir_ns = 0, corpus_ns = 0;
  BENCH_MEDIAN_NS(stream_ns, 5, 1, {
    tvm_script__lexer lx;
    script_arena arena;
    script_names names;
    size_t total = 0;
    tvm_script__arena_init(&arena, n);
    tvm_script__lexer_init(&lx, src.data, n, "bench.py", &names);
    if (tvm_script__names_init(&names, &arena, 1024) != 0) return 1;
    while (!lx.done) {
      if (tvm_script__lexer_fill(&lx, 1024) != 0) return 1;
      total += lx.count;
      tvm_script__lexer_drop(&lx, lx.count);
    }
    BENCH_KEEP(total);
    tvm_script__lexer_free(&lx);
    tvm_script__names_free(&names);
    tvm_script__arena_free(&arena);
  });
  BENCH_MEDIAN_NS(ast_ns, 5, 1, {
    ast_module m;
    if (tvm_script__parse_ast(src.data, n, "bench.py", &m) != 0) return 1;
    BENCH_KEEP(m.body.n);
    tvm_script__ast_free(&m);
  });
  BENCH_MEDIAN_NS(lex_ns, 5, 1, {
    tvm_script_lex(src.data, n, "bench.py", &toks);
    BENCH_KEEP(toks.count);
    tvm_script_tokens_free(&toks);
  });
  BENCH_MEDIAN_NS(parse_ns, 5, 1, {
    doc = tvm_script_parse_doc(src.data, n, "bench.py");
    BENCH_KEEP(doc);
    tvm_ffi_release(doc);
  });

  /* The whole job on the generated module. */
  void* ir = parse_ir(&gen);
  bool gen_ok = ir != NULL;
  if (!gen_ok) report_parse_error("tvm_script_parse of the generated module failed");
  tvm_ffi_release(ir);
  double py_gen = -1, r_gen = -1;
  if (gen_ok) {
    py_timer py;
    bool have_py = py_timer_start(&py, &gen, 1);
    parse_pass pp = {&gen, 1, 1, false};
    interleaved(&pp, have_py ? &py : NULL, 1, 5, (double)n, &ir_ns, &py_gen,
                &r_gen);
    if (have_py) py_timer_stop(&py);
  }

  /* The whole job on the corpus: the files our parser accepts, each parsed on its own. */
  char dir[1024], sub[1100];
  corpus_dir(dir, sizeof(dir));
  bench_text* corpus = NULL;
  size_t ncorpus = 0, cap = 0, nok = 0, corpus_bytes = 0;
  snprintf(sub, sizeof(sub), "%s/tir", dir);
  add_dir(sub, &corpus, &ncorpus, &cap);
  snprintf(sub, sizeof(sub), "%s/canonical", dir);
  add_dir(sub, &corpus, &ncorpus, &cap);
  for (size_t i = 0; i < ncorpus; ++i) {
    ir = parse_ir(&corpus[i]);
    if (ir) {
      corpus[nok++] = corpus[i]; /* keep the accepted ones first */
      corpus_bytes += corpus[i].len;
    } else {
      report_parse_error(corpus[i].path);
      bench_text skip = corpus[i];
      free(skip.path);
      free(skip.text);
    }
    tvm_ffi_release(ir);
  }
  /* Rounds of ~10 ms a side: 10 passes of ours, one of ast.parse, each after an untimed one. */
  double py_corpus = -1, r_corpus = -1;
  if (nok > 0) {
    py_timer py;
    bool have_py = py_timer_start(&py, corpus, nok);
    parse_pass pp = {corpus, nok, 10, true};
    interleaved(&pp, have_py ? &py : NULL, 1, 21, (double)corpus_bytes,
                &corpus_ns, &py_corpus, &r_corpus);
    if (have_py) py_timer_stop(&py);
  }

  /* Relax: a printed BlockBuilder transformer, parsed whole, then the Relax corpus per file. */
  char rtmp_path[] = "/tmp/script_parse_bench_relax_XXXXXX";
  bench_text rgen = {NULL, NULL, 0};
  double rgen_ns = 0, py_rgen = -1, r_rgen = -1;
  {
    void* model = relax_models_transformer(48, 8, 128, 256);
    void* text = model ? tvm_script_print_obj(model, NULL) : NULL;
    int fd = text ? mkstemp(rtmp_path) : -1;
    FILE* rf = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (rf) {
      rgen.len = strlen(tvm_ffi_str_cstr(text));
      rgen.text = strdup(tvm_ffi_str_cstr(text));
      rgen.path = rtmp_path;
      if (fwrite(rgen.text, 1, rgen.len, rf) != rgen.len) rgen.len = 0;
      fclose(rf);
    }
    tvm_ffi_release(text);
    tvm_ffi_release(model);
    void* rir = rgen.len ? parse_ir(&rgen) : NULL;
    if (!rir) report_parse_error("tvm_script_parse of the printed Relax model failed");
    if (rir) {
      py_timer py;
      bool have_py = py_timer_start(&py, &rgen, 1);
      parse_pass pp = {&rgen, 1, 1, false};
      interleaved(&pp, have_py ? &py : NULL, 1, 5, (double)rgen.len, &rgen_ns, &py_rgen,
                  &r_rgen);
      if (have_py) py_timer_stop(&py);
    }
    tvm_ffi_release(rir);
  }
  bench_text* rcorpus = NULL;
  size_t nrcorpus = 0, rcap = 0, nrok = 0, rcorpus_bytes = 0;
  double rcorpus_ns = 0, py_rcorpus = -1, r_rcorpus = -1;
  snprintf(sub, sizeof(sub), "%s/relax", dir);
  add_dir(sub, &rcorpus, &nrcorpus, &rcap);
  for (size_t i = 0; i < nrcorpus; ++i) {
    ir = parse_ir(&rcorpus[i]);
    if (ir) {
      rcorpus[nrok++] = rcorpus[i];
      rcorpus_bytes += rcorpus[i].len;
    } else {
      report_parse_error(rcorpus[i].path);
      free(rcorpus[i].path);
      free(rcorpus[i].text);
    }
    tvm_ffi_release(ir);
  }
  if (nrok > 0) {
    py_timer py;
    bool have_py = py_timer_start(&py, rcorpus, nrok);
    parse_pass pp = {rcorpus, nrok, 10, true};
    interleaved(&pp, have_py ? &py : NULL, 1, 21, (double)rcorpus_bytes, &rcorpus_ns,
                &py_rcorpus, &r_rcorpus);
    if (have_py) py_timer_stop(&py);
  }

  printf("%-44s %10s %12s %9s %10s\n", "script_parse_bench", "MB/s", "ast.parse", "ratio", "ms");
  printf("generated module: %.2f MB, %zu tokens; corpus: %zu of %zu files parse, %.1f KB "
         "(allocator: %s)\n",
         (double)n / 1e6, ntok, nok, ncorpus, (double)corpus_bytes / 1e3,
         tvm_ffi_allocator_name());
  if (g_py_version[0]) printf("ast.parse: CPython %s (%s)\n", g_py_version, g_py_path);
  if (cpu >= 0) {
    printf("both sides pinned to cpu %d\n", cpu);
  } else {
    printf("both sides unpinned (could not set the CPU affinity)\n");
  }
  print_row("lex (streaming)", (double)n, stream_ns, 0, 0);
  print_row("lex to a token array", (double)n, lex_ns, 0, 0);
  print_row("lex + parse to the syntax tree", (double)n, ast_ns, py_gen, 0);
  print_row("lex + parse to Doc", (double)n, parse_ns, py_gen, 0);
  if (gen_ok) {
    print_row("tvm_script_parse, generated module", (double)n, ir_ns, py_gen, r_gen);
  } else {
    printf("%-44s %10s\n", "tvm_script_parse, generated module", "failed");
  }
  if (nok > 0) {
    print_row("tvm_script_parse, corpus (per file)", (double)corpus_bytes, corpus_ns, py_corpus,
              r_corpus);
  } else {
    printf("%-44s %10s\n", "tvm_script_parse, corpus (per file)", "failed");
  }
  printf("Relax: printed transformer model %.2f MB; Relax corpus: %zu of %zu files parse, "
         "%.1f KB\n", (double)rgen.len / 1e6, nrok, nrcorpus, (double)rcorpus_bytes / 1e3);
  if (rgen_ns > 0) {
    print_row("tvm_script_parse, Relax model", (double)rgen.len, rgen_ns, py_rgen, r_rgen);
  } else {
    printf("%-44s %10s\n", "tvm_script_parse, Relax model", "failed");
  }
  if (nrok > 0) {
    print_row("tvm_script_parse, Relax corpus (per file)", (double)rcorpus_bytes, rcorpus_ns,
              py_rcorpus, r_rcorpus);
  } else {
    printf("%-44s %10s\n", "tvm_script_parse, Relax corpus (per file)", "failed");
  }
  for (size_t i = 0; i < nrok; ++i) {
    free(rcorpus[i].path);
    free(rcorpus[i].text);
  }
  free(rcorpus);
  free(rgen.text);
  if (rgen.path) remove(rtmp_path);
  if (gen_ok && nok > 0 && r_gen > 0 && r_corpus > 0) {
    double worst = r_gen < r_corpus ? r_gen : r_corpus;
    if (r_rgen > 0 && r_rgen < worst) worst = r_rgen;
    if (r_rcorpus > 0 && r_rcorpus < worst) worst = r_rcorpus;
    printf("whole job vs ast.parse: %.1fx at worst (requirement >= 10x): %s\n", worst,
           worst >= 10 ? "met" : "NOT met");
  }

  for (size_t i = 0; i < nok; ++i) {
    free(corpus[i].path);
    free(corpus[i].text);
  }
  free(corpus);
  if (argc <= 2) remove(tmp_path);
  tvm_ffi_strbuf_free(&src);
  return 0;
}

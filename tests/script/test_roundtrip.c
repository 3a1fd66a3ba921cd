/*
 * test_roundtrip.c: the TVMScript round trip over the corpus (tests/corpus, see its README) and
 * over IR built directly with the C builder.
 *
 *   tir/, relax/, canonical/  parse -> print -> parse gives a structurally equal module, and the
 *                             print is a fixed point: print(parse(print(m))) == print(m);
 *                             canonical/ files are also exactly the printer's output, and
 *                             a tir/NAME.py with a NAME.expected beside it prints as that
 *                             text (what the parse means, where a round trip cannot tell:
 *                             inferred block regions, dropped arguments, extra statements).
 *   errors/                   line 1 is `# expect: <ErrorKind> <line>:<col>`: parsing fails with
 *                             one error of that kind whose message starts `<file>:<line>:<col>:`
 *                             and shows the source line with a '^' caret line under it.
 *   builder IR                print -> parse -> structurally equal to the original, fixed point
 *                             (TIR from the C builder, Relax models from librelax's BlockBuilder).
 *
 * The corpus directory is listed at run time, so adding a file adds a case. Every file reports
 * one PASS / FAIL line (with the stage and the error); the test fails if any file fails.
 */
#include <dirent.h>
#include <stdlib.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

#include "relax_models.h"
#include "test_util.h"
#include "tir_testing.h"

#ifndef TVM_CORPUS_DIR
#error "TVM_CORPUS_DIR must name tests/corpus"
#endif

static int g_files, g_files_failed;

/* ---- Small utilities ------------------------------------------------------------------------ */

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* The sorted names of the *.py files of dir (malloc'd; *n their count). NULL if unreadable. */
static char** list_py(const char* dir, size_t* n) {
  *n = 0;
  DIR* d = opendir(dir);
  if (!d) return NULL;
  char** names = NULL;
  size_t cap = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 3, ".py") != 0) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 64;
      char** grown = realloc(names, cap * sizeof(char*));
      if (!grown) break;
      names = grown;
    }
    names[(*n)++] = strdup(e->d_name);
  }
  closedir(d);
  if (names) qsort(names, *n, sizeof(char*), cmp_str);
  return names;
}

static void free_names(char** names, size_t n) {
  for (size_t i = 0; i < n; ++i) free(names[i]);
  free(names);
}

/* The pending error as "Kind: message" appended to out (consumed); "no error raised" if none. */
static void take_error(tvm_ffi_strbuf* out) {
  void* e = tvm_ffi_error_take();
  if (!e) {
    tvm_ffi_strbuf_puts(out, "no error raised");
    return;
  }
  tvm_ffi_strbuf_printf(out, "%s: %s", tvm_ffi_error_kind(e), tvm_ffi_error_message(e));
  tvm_ffi_release(e);
}

static void* parse_text(const char* text, size_t len, const char* filename) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = filename;
  return tvm_script_parse(text, len, &opts);
}

/* The printed text of obj (borrowed) as a new ffi.String, or NULL + error. */
static void* print_obj(const void* obj) { return tvm_script_print_obj(obj, NULL); }

/* Report one file's result; `why` says what failed. */
static void report(const char* name, bool ok, tvm_ffi_strbuf* why) {
  ++g_files;
  if (ok) {
    printf("PASS %s\n", name);
    return;
  }
  ++g_files_failed;
  fprintf(stderr, "FAIL %s: %s\n", name, tvm_ffi_strbuf_cstr(why));
  g_test_failed_checks++;
}

/*
 * The round trip of an object m (borrowed): print, parse the text, compare structurally, print
 * again and compare the texts. Appends what failed to why; returns whether it held. *printed
 * gets the first print (a new ffi.String) when non-NULL.
 */
static bool roundtrip(const void* m, const char* label, tvm_ffi_strbuf* why, void** printed) {
  bool ok = false;
  void *t1 = NULL, *m2 = NULL, *t2 = NULL;
  if (printed) *printed = NULL;
  if (!(t1 = print_obj(m))) {
    tvm_ffi_strbuf_puts(why, "print failed: ");
    take_error(why);
    goto done;
  }
  const char* s1 = tvm_ffi_str_cstr(t1);
  tvm_ffi_strbuf name = {0};
  tvm_ffi_strbuf_printf(&name, "<printed %s>", label);
  m2 = parse_text(s1, strlen(s1), tvm_ffi_strbuf_cstr(&name));
  tvm_ffi_strbuf_free(&name);
  if (!m2) {
    tvm_ffi_strbuf_puts(why, "parsing the printed text failed: ");
    take_error(why);
    tvm_ffi_strbuf_printf(why, "\n--- printed text:\n%s\n---", s1);
    goto done;
  }
  /* Functions and modules define all their variables: they must map one to one. A fragment's
   * free variables are declared anew by the parse. */
  tvm_tir_kind k = tvm_tir_kind_of(m);
  bool map_free = k != TVM_TIR_KIND_PrimFunc && k != TVM_TIR_KIND_IRModule &&
                  tvm_relax_kind_of(m) != TVM_RELAX_KIND_Function;
  TVMFFIAny a = tvm_ffi_any_obj((void*)m), b = tvm_ffi_any_obj(m2);
  tvm_ffi_strbuf rep = {0};
  int eq = tvm_script_structural_equal_report(&a, &b, map_free, &rep);
  if (eq != 1) {
    if (eq < 0) {
      tvm_ffi_strbuf_puts(why, "structural_equal_report failed: ");
      take_error(why);
    } else {
      tvm_ffi_strbuf_printf(why, "not structurally equal after print -> parse:\n%s",
                            tvm_ffi_strbuf_cstr(&rep));
    }
    tvm_ffi_strbuf_free(&rep);
    goto done;
  }
  tvm_ffi_strbuf_free(&rep);
  if (!(t2 = print_obj(m2))) {
    tvm_ffi_strbuf_puts(why, "second print failed: ");
    take_error(why);
    goto done;
  }
  if (strcmp(s1, tvm_ffi_str_cstr(t2)) != 0) {
    tvm_ffi_strbuf_printf(why, "printing is not a fixed point:\n--- first:\n%s\n--- second:\n%s\n---",
                          s1, tvm_ffi_str_cstr(t2));
    goto done;
  }
  ok = true;
done:
  if (printed && ok) {
    *printed = t1;
    t1 = NULL;
  }
  tvm_ffi_release(t1);
  tvm_ffi_release(m2);
  tvm_ffi_release(t2);
  return ok;
}

/* ---- Well-formed corpus files --------------------------------------------------------------- */

/* Text without trailing newlines, for comparing a file with the printer's output. */
static size_t trimmed_len(const char* s, size_t len) {
  while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r')) --len;
  return len;
}

static void check_program(const char* sub, const char* file, bool canonical) {
  char path[1024], name[512];
  snprintf(path, sizeof(path), "%s/%s/%s", TVM_CORPUS_DIR, sub, file);
  snprintf(name, sizeof(name), "%s/%s", sub, file);
  tvm_ffi_strbuf why = {0};
  bool ok = false;
  void *m = NULL, *printed = NULL;
  size_t len = 0;
  char* text = test_read_file(path, &len);
  if (!text) {
    tvm_ffi_strbuf_puts(&why, "cannot read the file");
    goto done;
  }
  /* The front end first: a failure here is a plain syntax error in the file. */
  void* doc = tvm_script_parse_doc(text, len, name);
  if (!doc) {
    tvm_ffi_strbuf_puts(&why, "front end (parse_doc) failed: ");
    take_error(&why);
    goto done;
  }
  tvm_ffi_release(doc);
  if (!(m = parse_text(text, len, name))) {
    tvm_ffi_strbuf_puts(&why, "parse failed: ");
    take_error(&why);
    goto done;
  }
  if (!roundtrip(m, name, &why, &printed)) goto done;
  /* The text the printer must give: the file itself, or its .expected companion. */
  char* expected = NULL;
  size_t elen = 0;
  if (canonical) {
    expected = text;
    elen = len;
  } else {
    char epath[1100];
    snprintf(epath, sizeof(epath), "%.*s.expected", (int)(strlen(path) - 3), path);
    expected = test_read_file(epath, &elen);
  }
  if (expected) {
    const char* p = tvm_ffi_str_cstr(printed);
    size_t n = trimmed_len(expected, elen);
    bool same = strlen(p) == n && memcmp(p, expected, n) == 0;
    if (expected != text) free(expected);
    if (!same) {
      tvm_ffi_strbuf_printf(&why, "%s; the printer gives:\n%s\n---",
                            canonical ? "not in the printer's form" : "differs from its .expected",
                            p);
      goto done;
    }
  }
  ok = true;
done:
  report(name, ok, &why);
  tvm_ffi_strbuf_free(&why);
  tvm_ffi_release(m);
  tvm_ffi_release(printed);
  free(text);
}

static void check_program_dir(const char* sub, bool canonical, size_t min_files) {
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s/%s", TVM_CORPUS_DIR, sub);
  size_t n = 0;
  char** names = list_py(dir, &n);
  if (n < min_files) {
    fprintf(stderr, "%s: %zu .py files, expected at least %zu\n", dir, n, min_files);
    g_test_failed_checks++;
  }
  for (size_t i = 0; i < n; ++i) check_program(sub, names[i], canonical);
  free_names(names, n);
}

TEST(corpus_tir_programs) { check_program_dir("tir", false, 30); }
TEST(corpus_relax_programs) { check_program_dir("relax", false, 5); }
TEST(corpus_canonical_programs) { check_program_dir("canonical", true, 1); }

/* ---- Ill-formed corpus files ---------------------------------------------------------------- */

/* Whether msg has a line made of blanks and at least one '^' (the caret line). */
static bool has_caret_line(const char* msg) {
  for (const char* line = msg; line && *line;) {
    const char* p = line;
    while (*p == ' ' || *p == '\t') ++p;
    if (*p == '^') {
      while (*p == '^') ++p;
      if (*p == '\n' || *p == '\0') return true;
    }
    line = strchr(line, '\n');
    if (line) ++line;
  }
  return false;
}

static void check_error_file(const char* file) {
  char path[1024], name[512];
  snprintf(path, sizeof(path), "%s/errors/%s", TVM_CORPUS_DIR, file);
  snprintf(name, sizeof(name), "errors/%s", file);
  tvm_ffi_strbuf why = {0};
  bool ok = false;
  void* result = NULL;
  size_t len = 0;
  char* text = test_read_file(path, &len);
  char kind[64];
  int line = 0, col = 0;
  if (!text) {
    tvm_ffi_strbuf_puts(&why, "cannot read the file");
    goto done;
  }
  if (sscanf(text, "# expect: %63s %d:%d", kind, &line, &col) != 3) {
    tvm_ffi_strbuf_puts(&why, "line 1 is not `# expect: <ErrorKind> <line>:<col>`");
    goto done;
  }
  if ((result = parse_text(text, len, name)) != NULL) {
    tvm_ffi_strbuf_printf(&why, "parsed, expected %s at %d:%d", kind, line, col);
    goto done;
  }
  void* e = tvm_ffi_error_take();
  if (!e) {
    tvm_ffi_strbuf_puts(&why, "returned NULL without raising an error");
    goto done;
  }
  const char* got_kind = tvm_ffi_error_kind(e);
  const char* msg = tvm_ffi_error_message(e);
  char prefix[600];
  snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", name, line, col);
  if (strcmp(got_kind, kind) != 0) {
    tvm_ffi_strbuf_printf(&why, "expected %s, got %s: %s", kind, got_kind, msg);
  } else if (strncmp(msg, prefix, strlen(prefix)) != 0) {
    tvm_ffi_strbuf_printf(&why, "expected the message to start with `%s`, got:\n%s", prefix, msg);
  } else if (!has_caret_line(msg)) {
    tvm_ffi_strbuf_printf(&why, "no caret line in the message:\n%s", msg);
  } else {
    ok = true;
  }
  tvm_ffi_release(e);
done:
  report(name, ok, &why);
  tvm_ffi_strbuf_free(&why);
  tvm_ffi_release(result);
  free(text);
}

TEST(corpus_errors) {
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s/errors", TVM_CORPUS_DIR);
  size_t n = 0;
  char** names = list_py(dir, &n);
  CHECK(n >= 10);
  for (size_t i = 0; i < n; ++i) check_error_file(names[i]);
  free_names(names, n);
}

/* ---- IR built with the C builder ------------------------------------------------------------ */

static void* ref(void* obj) { return tvm_tir_ref(obj); }

/* Round trip of obj (consumed) under label. */
static void check_built(void* obj, const char* label) {
  char name[256];
  snprintf(name, sizeof(name), "builder/%s", label);
  tvm_ffi_strbuf why = {0};
  bool ok = false;
  if (!obj) {
    tvm_ffi_strbuf_puts(&why, "building failed: ");
    take_error(&why);
  } else {
    ok = roundtrip(obj, name, &why, NULL);
  }
  report(name, ok, &why);
  tvm_ffi_strbuf_free(&why);
  tvm_ffi_release(obj);
}

/* f(A: float32[16]) with a root block allocating Tmp and a block bound to 15 - i. */
static void* make_reverse_copy(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* Tmp = tvm_tir_buffer_decl("Tmp", TVM_TIR_FLOAT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  void* block = tvm_tir_block_take(
      "copy",
      tvm_tir_list_take(tvm_tir_iter_var_take(ref(vi), tvm_tir_int(0), tvm_tir_int(16),
                                              TVM_TIR_ITER_DATA_PAR)),
      tvm_tir_list_take(tvm_tir_sub_take(tvm_tir_int(15), ref(i))),
      tvm_tir_list_take(tvm_tir_region_take(ref(Tmp), tvm_tir_range_take(ref(vi), tvm_tir_int(1)))),
      tvm_tir_list_take(tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vi), tvm_tir_int(1)))),
      tvm_tir_store_take(ref(A), tvm_tir_load_take(ref(Tmp), ref(vi)), ref(vi)));
  void* loop = tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(16), block);
  tvm_tir_sblock_fields rf = {0};
  rf.name_hint = "root";
  rf.body = loop;
  rf.alloc_buffers = tvm_tir_list_take(ref(Tmp));
  tvm_tir_sblock_obj* root = loop && rf.alloc_buffers ? tvm_tir_sblock_new(&rf) : NULL;
  void* realize = root ? tvm_tir_sblock_realize_new(NULL, NULL, root) : NULL;
  void* f = realize ? tvm_tir_func_take("reverse_copy", tvm_tir_list_take(ref(A)), realize) : NULL;
  tvm_ffi_release(rf.alloc_buffers);
  tvm_ffi_release(loop);
  tvm_ffi_release(root);
  tvm_ffi_release(A);
  tvm_ffi_release(Tmp);
  tvm_ffi_release(i);
  tvm_ffi_release(vi);
  return f;
}

/* A private function over a symbolic-shape buffer with an attribute (printed with a handle and
 * match_buffer). */
static void* make_symbolic_private(void) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  void* shape[] = {ref(n)};
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, shape, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), ref(n),
      tvm_tir_store_take(ref(A), tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(2)),
                         ref(i)));
  tvm_tir_prim_func_obj* f = tvm_tir_func_take(NULL, tvm_tir_list_take(ref(A)), body);
  TVMFFIAny v = tvm_ffi_any_bool(true);
  void* g = f ? tvm_tir_prim_func_with_attr(f, "tir.noalias", &v) : NULL;
  tvm_ffi_release(f);
  tvm_ffi_release(n);
  tvm_ffi_release(A);
  tvm_ffi_release(i);
  return g;
}

/*
 * One function with most statement kinds: LetStmt, assert, AttrStmt, Allocate + DeclBuffer,
 * if / elif / else, while, launch_thread, vector Ramp / Broadcast, Cast, Select, intrinsic and
 * extern calls, and literals of several dtypes.
 */
static void* make_statement_zoo(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 64);
  tvm_tir_buffer_obj* H = tvm_tir_buffer_decl("H", TVM_TIR_FLOAT16, 8);
  tvm_tir_buffer_obj* I = tvm_tir_buffer_decl("I", TVM_TIR_INT64, 8);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* tx = tvm_tir_var("threadIdx_x", TVM_TIR_INT32);
  tvm_tir_var_obj* buf = tvm_tir_ptr_var("buf", TVM_TIR_FLOAT32, "local");

  /* Allocate buf[16] with B viewing it: B[i] = A[i] for i < 16, then A[0] = B[3]. */
  tvm_tir_buffer_fields bfields = {0};
  bfields.data = buf;
  bfields.dtype = TVM_TIR_FLOAT32;
  bfields.shape = tvm_tir_list_take(tvm_tir_int(16));
  bfields.name = "B";
  tvm_tir_buffer_obj* B = bfields.shape ? tvm_tir_buffer_new(&bfields) : NULL;
  tvm_ffi_release(bfields.shape);
  void* alloc_body = tvm_tir_seq_take(
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(16),
                          tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(i)), ref(i))),
      tvm_tir_store_take(ref(A), tvm_tir_load_take(ref(B), tvm_tir_int(3)), tvm_tir_int(0)));
  void* ext[] = {tvm_tir_int(16)};
  void* alloc = tvm_tir_allocate_takev(ref(buf), TVM_TIR_FLOAT32, 1, ext,
                                       tvm_tir_decl_buffer_take(ref(B), alloc_body));

  /* if n < 0: A[1] = 0 elif n == 0: A[1] = 1 else: A[1] = Select(n > 4, 2, 3) */
  void* branches = tvm_tir_if_take(
      tvm_tir_lt_take(ref(n), tvm_tir_int(0)),
      tvm_tir_store_take(ref(A), tvm_tir_f32(0), tvm_tir_int(1)),
      tvm_tir_if_take(tvm_tir_eq_take(ref(n), tvm_tir_int(0)),
                      tvm_tir_store_take(ref(A), tvm_tir_f32(1), tvm_tir_int(1)),
                      tvm_tir_store_take(ref(A),
                                         tvm_tir_select_take(tvm_tir_gt_take(ref(n), tvm_tir_int(4)),
                                                             tvm_tir_f32(2), tvm_tir_f32(3)),
                                         tvm_tir_int(1))));
  /* while A[2] < 10: A[2] = A[2] + 1 */
  void* loop = tvm_tir_while_take(
      tvm_tir_lt_take(tvm_tir_load_take(ref(A), tvm_tir_int(2)), tvm_tir_f32(10)),
      tvm_tir_store_take(ref(A), tvm_tir_add_take(tvm_tir_load_take(ref(A), tvm_tir_int(2)), tvm_tir_f32(1)),
                         tvm_tir_int(2)));
  /* A[Ramp(8, 1, 4)] = Broadcast(exp(A[4]), 4) */
  void* vec = tvm_tir_store_take(
      ref(A),
      tvm_tir_broadcast_take(tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp",
                                               tvm_tir_load_take(ref(A), tvm_tir_int(4))),
                             4),
      tvm_tir_ramp_take(tvm_tir_int(8), tvm_tir_int(1), 4));
  /* H[0] = float16(A[5]) * 0.5h; I[0] = int64(x) + 3 */
  void* casts = tvm_tir_seq_take(
      tvm_tir_store_take(ref(H),
                         tvm_tir_mul_take(tvm_tir_cast_take(TVM_TIR_FLOAT16,
                                                            tvm_tir_load_take(ref(A), tvm_tir_int(5))),
                                          tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 0.5)),
                         tvm_tir_int(0)),
      tvm_tir_store_take(ref(I), tvm_tir_add_take(tvm_tir_cast_take(TVM_TIR_INT64, ref(x)), tvm_tir_i64(3)),
                         tvm_tir_int(0)));
  void* ext_call = tvm_tir_evaluate_take(
      tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("log_value"), ref(x)));
  /* Launch a thread and store through it. */
  /* The thread's IterVar spans [0, extent), as T.launch_thread makes it. */
  void* tdom = tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(8));
  tvm_tir_iter_var_obj* iv = tvm_tir_iter_var_new(tdom, tx, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  tvm_ffi_release(tdom);
  void* launch = tvm_tir_attr_take(
      ref(iv), "thread_extent", tvm_tir_int(8),
      tvm_tir_store_take(ref(A), tvm_tir_f32(7), tvm_tir_add_take(ref(tx), tvm_tir_int(32))));
  tvm_ffi_release(iv);
  void* pragma = tvm_tir_attr_take(NULL, "pragma_unroll", tvm_tir_int(1), ext_call);

  void* rest = tvm_tir_seq_take(alloc, branches, loop, vec, casts, pragma, launch);
  void* body = tvm_tir_let_stmt_take(
      ref(x), tvm_tir_mul_take(ref(n), tvm_tir_int(2)),
      tvm_tir_assert_take(tvm_tir_gt_take(ref(x), tvm_tir_int(0)), "x must be positive", rest));
  void* f = tvm_tir_func_take("zoo", tvm_tir_list_take(ref(A), ref(H), ref(I), ref(n)), body);
  tvm_ffi_release(A);
  tvm_ffi_release(B);
  tvm_ffi_release(H);
  tvm_ffi_release(I);
  tvm_ffi_release(n);
  tvm_ffi_release(x);
  tvm_ffi_release(i);
  tvm_ffi_release(tx);
  tvm_ffi_release(buf);
  return f;
}

/* A module of two functions, main calling inc through its GlobalVar (printed as cls.inc). */
static void* make_module_with_call(void) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_prim_func_obj* inc = tvm_tir_func_take(
      "inc", tvm_tir_list_take(ref(x)),
      tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_INT32, "tir.ret",
                                              tvm_tir_add_take(ref(x), tvm_tir_int(1)))));
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("inc");
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  void* call = tvm_tir_call_global_takev(TVM_TIR_INT32, ref(gv), 1, (void*[]){ref(y)});
  tvm_tir_prim_func_obj* main_f =
      tvm_tir_func_take("main", tvm_tir_list_take(ref(y)), tvm_tir_evaluate_take(call));
  tvm_tir_ir_module_obj* mod = tvm_tir_module_take(main_f);
  void* mod2 = mod && inc && gv ? tvm_tir_ir_module_add(mod, gv, inc) : NULL;
  tvm_ffi_release(mod);
  tvm_ffi_release(inc);
  tvm_ffi_release(gv);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  return mod2;
}

/* f(A) whose buffer has variable strides (s0, s1) and elem_offset off, all used in the body. */
static void* make_strided(void) {
  tvm_tir_var_obj* s0 = tvm_tir_var("s0", TVM_TIR_INT32);
  tvm_tir_var_obj* s1 = tvm_tir_var("s1", TVM_TIR_INT32);
  tvm_tir_var_obj* off = tvm_tir_var("off", TVM_TIR_INT32);
  tvm_tir_var_obj* data = tvm_tir_ptr_var("A", TVM_TIR_FLOAT32, NULL);
  tvm_tir_buffer_fields bf = {0};
  bf.data = data;
  bf.dtype = TVM_TIR_FLOAT32;
  bf.shape = tvm_tir_list_take(tvm_tir_int(16), tvm_tir_int(16));
  bf.strides = tvm_tir_list_take(ref(s0), ref(s1));
  bf.elem_offset = &off->expr;
  bf.name = "A";
  bf.offset_factor = 1;
  tvm_tir_buffer_obj* A = bf.shape && bf.strides ? tvm_tir_buffer_new(&bf) : NULL;
  tvm_ffi_release(bf.shape);
  tvm_ffi_release(bf.strides);
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(A), tvm_tir_f32(0), tvm_tir_int(0), tvm_tir_int(1)),
      tvm_tir_evaluate_take(tvm_tir_add_take(tvm_tir_mul_take(ref(s0), tvm_tir_int(2)), ref(off))));
  void* f = A ? tvm_tir_func_take("strided", tvm_tir_list_take(ref(A)), body) : NULL;
  if (!A) tvm_ffi_release(body);
  tvm_ffi_release(A);
  tvm_ffi_release(data);
  tvm_ffi_release(s0);
  tvm_ffi_release(s1);
  tvm_ffi_release(off);
  return f;
}

/* A block over a shifted reduce domain with a predicate, an annotation and a matched sub-buffer
 * of A, inside a loop of a function. */
static void* make_block_details(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl("S", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* vk = tvm_tir_var("vk", TVM_TIR_INT32);
  tvm_tir_iter_var_obj* iv =
      tvm_tir_iter_var_take(ref(vk), tvm_tir_int(4), tvm_tir_int(8), TVM_TIR_ITER_COMM_REDUCE);
  void* region = tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vk), tvm_tir_int(4)));
  tvm_tir_match_buffer_region_obj* m = region ? tvm_tir_match_buffer_region_new(S, region) : NULL;
  TVMFFIAny key = tvm_ffi_string("pragma"), val = tvm_ffi_any_int(1);
  tvm_tir_sblock_fields bf = {0};
  bf.name_hint = "b";
  bf.iter_vars = tvm_tir_list_take(ref(iv));
  bf.writes = tvm_tir_list_take(tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vk), tvm_tir_int(4))));
  bf.match_buffers = tvm_tir_list_take(ref(m));
  bf.annotations = tvm_ffi_map_new(&key, &val, 1);
  bf.body = tvm_tir_store_take(ref(S), tvm_tir_f32(0), tvm_tir_int(0));
  tvm_tir_sblock_obj* block = bf.iter_vars && bf.writes && bf.match_buffers && bf.annotations &&
                                      bf.body
                                  ? tvm_tir_sblock_new(&bf)
                                  : NULL;
  void* values = tvm_tir_list_take(tvm_tir_add_take(ref(k), tvm_tir_int(4)));
  tvm_tir_expr_obj* pred = tvm_tir_lt_take(ref(k), tvm_tir_int(6));
  void* realize = block ? tvm_tir_sblock_realize_new(values, pred, block) : NULL;
  void* loop = realize ? tvm_tir_serial_take(ref(k), tvm_tir_int(0), tvm_tir_int(8), realize) : NULL;
  void* f = loop ? tvm_tir_func_take("block_details", tvm_tir_list_take(ref(A)), loop) : NULL;
  tvm_ffi_any_release(&key);
  void* objs[] = {bf.iter_vars, bf.writes, bf.match_buffers, bf.annotations, bf.body, block,
                  values, pred, m, region, iv, A, S, k, vk};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  return f;
}

/* The shared alias fixture: three sub-buffers of A matched in one block of a function. */
static void* make_aliases(void) {
  tvm_tir_testing_aliases a;
  if (tvm_tir_testing_make_aliases(&a) != 0) return NULL;
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(a.S), tvm_tir_int(1), tvm_tir_int(0), tvm_tir_int(0)),
      tvm_tir_store_take(ref(a.S2), tvm_tir_int(2), tvm_tir_int(1)),
      tvm_tir_store_take(ref(a.S3), tvm_tir_int(3), tvm_tir_int(0), tvm_tir_int(1)));
  void* block = tvm_tir_testing_block_with_matches(ref(a.match_buffers), body);
  void* f = block ? tvm_tir_func_take("aliases", tvm_tir_list_take(ref(a.A)), block) : NULL;
  tvm_tir_testing_aliases_release(&a);
  return f;
}

TEST(builder_ir) {
  check_built(tvm_tir_testing_make_matmul("", 128, 128, 64), "matmul");
  check_built(tvm_tir_testing_make_matmul("_t", 16, 32, 8), "matmul_tagged");
  check_built(tvm_tir_testing_make_large_func(64), "large_func");
  check_built(make_reverse_copy(), "reverse_copy");
  check_built(make_symbolic_private(), "symbolic_private");
  check_built(make_statement_zoo(), "statement_zoo");
  check_built(make_module_with_call(), "module_with_call");
  check_built(tvm_tir_module_take(tvm_tir_testing_make_matmul("", 8, 8, 8)), "module_matmul");
  check_built(make_strided(), "strided");
  check_built(make_block_details(), "block_details");
  check_built(make_aliases(), "aliases");
}

/* Relax models built with librelax's BlockBuilder (tests/relax/relax_models.c). */
TEST(builder_relax) {
  check_built(relax_models_mlp(3, 4, 16), "relax_mlp");
  check_built(relax_models_mlp(2, -1, 8), "relax_mlp_symbolic_batch");
  check_built(relax_models_transformer(1, 2, 8, 16), "relax_transformer");
}

/* Function attributes using what the parameters define: structural equality compares a
 * function's attrs after its parameters (their last field), so these round-trip. */
TEST(attrs_using_parameters) {
  static const char* const k_texts[] = {
      "@T.prim_func\n"
      "def f(A: T.Buffer((4,), \"float32\"), n: T.int32):\n"
      "    T.func_attr({\"bounds\": [n, n * 2]})\n"
      "    A[0] = T.float32(1)\n",
      "@R.function\n"
      "def f(x: R.Tensor((\"n\",), \"float32\")):\n"
      "    n = T.int64()\n"
      "    R.func_attr({\"relax.rewrite_cuda_graph.capture_symbolic_vars\": [n], \"x\": x})\n"
      "    return x\n",
  };
  for (size_t i = 0; i < sizeof(k_texts) / sizeof(k_texts[0]); ++i) {
    check_built(parse_text(k_texts[i], strlen(k_texts[i]), "attrs.py"),
                i == 0 ? "prim_func_attrs" : "relax_function_attrs");
  }
}

/* ---- The harness itself --------------------------------------------------------------------- */

TEST(harness_detects_failures) {
  /* The checks can fail: a caret line is recognised only under a source line. */
  CHECK(has_caret_line("f.py:1:2: error: x\nab\n ^\n"));
  CHECK(has_caret_line("f.py:1:2: error: x\nab\n\t^^^"));
  CHECK(!has_caret_line("f.py:1:2: error: x ^ y\n"));
  CHECK(!has_caret_line(""));
  size_t n = 0;
  char** none = list_py(TVM_CORPUS_DIR "/no_such_dir", &n);
  CHECK(none == NULL && n == 0);
  /* A syntax error: located, with a caret line. */
  const char* bad = "def f(:\n    pass\n";
  CHECK(parse_text(bad, strlen(bad), "bad.py") == NULL);
  void* e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (e) {
    CHECK_STR_EQ(tvm_ffi_error_kind(e), "SyntaxError");
    CHECK(strncmp(tvm_ffi_error_message(e), "bad.py:1:", 9) == 0);
    CHECK(has_caret_line(tvm_ffi_error_message(e)));
  }
  tvm_ffi_release(e);
}

/* The strong references to each builtin op, which the registry holds and every Call using the
 * op adds to for its lifetime: once everything this test made is released, the counts must be
 * back where they started. (A leaked reference to a global op is invisible to LeakSanitizer, as
 * the op stays reachable, and it defeats libtir's tir.ret shortcut in the PrimFunc
 * constructor.) */
static uint32_t g_op_refs[TVM_TIR_BUILTIN_COUNT];
static uint32_t op_strong_refs(tvm_tir_builtin id) {
  tvm_tir_op_obj* op = tvm_tir_builtin_op(id);
  uint32_t n = op ? (uint32_t)(((TVMFFIObject*)op)->combined_ref_count & UINT32_MAX) - 1 : 0;
  tvm_ffi_release(op);
  return n;
}
TEST(builtin_op_references_before) {
  for (int id = 0; id < TVM_TIR_BUILTIN_COUNT; ++id) g_op_refs[id] = op_strong_refs(id);
}
TEST(builtin_op_references_balance) {
  for (int id = 0; id < TVM_TIR_BUILTIN_COUNT; ++id) {
    uint32_t now = op_strong_refs(id);
    if (now != g_op_refs[id]) {
      tvm_tir_op_obj* op = tvm_tir_builtin_op(id);
      printf("  builtin %s: %u strong references before the corpus, %u after\n",
             op ? tvm_tir_op_name(op) : "?", g_op_refs[id], now);
      tvm_ffi_release(op);
    }
    CHECK_EQ_INT(now, g_op_refs[id]);
  }
}

int main(void) {
  RUN(builtin_op_references_before);
  RUN(harness_detects_failures);
  RUN(corpus_tir_programs);
  RUN(corpus_relax_programs);
  RUN(corpus_canonical_programs);
  RUN(corpus_errors);
  RUN(builder_ir);
  RUN(builder_relax);
  RUN(attrs_using_parameters);
  RUN(builtin_op_references_balance);
  printf("corpus round trip: %d files, %d passed, %d failed\n", g_files, g_files - g_files_failed,
         g_files_failed);
  return test_summary();
}

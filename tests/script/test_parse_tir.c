/* test_parse_tir.c: TVMScript text -> TIR (tvm_script_parse): each statement and expression
 * handler compared with IR built directly (tvm/tir/builder.h), print -> parse roundtrips, and
 * the located errors of bad programs. */
#include <math.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

#include "test_util.h"
#include "tir_testing.h"

static void* ref(void* obj) { return tvm_tir_ref(obj); }

/* Parse src with default options; on failure print the error and count a failed check. */
static void* parse_line(const char* src, int line) {
  void* r = tvm_script_parse(src, strlen(src), NULL);
  if (!r) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: parse failed: %s: %s\n", line, e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  return r;
}
#define PARSE(src) parse_line((src), __LINE__)

/* Structural equality of got and want (both consumed), with the diagnostic on failure. */
static void expect_equal(void* got, void* want, bool map_free_vars, int line) {
  if (!got || !want) {
    fprintf(stderr, "line %d: missing %s\n", line, got ? "expected IR" : "parsed IR");
    g_test_failed_checks++;
  } else {
    TVMFFIAny a = tvm_ffi_any_obj(got), b = tvm_ffi_any_obj(want);
    tvm_ffi_strbuf out = {0};
    int rc = tvm_script_structural_equal_report(&a, &b, map_free_vars, &out);
    if (rc != 1) {
      void* e = rc < 0 ? tvm_ffi_error_take() : NULL;
      fprintf(stderr, "line %d: not equal:\n%s%s\n", line, tvm_ffi_strbuf_cstr(&out),
              e ? tvm_ffi_error_message(e) : "");
      tvm_ffi_release(e);
      g_test_failed_checks++;
    }
    tvm_ffi_strbuf_free(&out);
  }
  tvm_ffi_release(got);
  tvm_ffi_release(want);
}
#define EXPECT_EQUAL(got, want) expect_equal((got), (want), false, __LINE__)
#define EXPECT_EQUAL_FREE(got, want) expect_equal((got), (want), true, __LINE__)

/* Print obj (borrowed), parse the text back and compare. */
static void roundtrip_line(void* obj, int line) {
  void* text = tvm_script_print_obj(obj, NULL);
  if (!text) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: print failed: %s\n", line, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    return;
  }
  void* back = parse_line(tvm_ffi_str_cstr(text), line);
  if (!back) fprintf(stderr, "--- text:\n%s\n---\n", tvm_ffi_str_cstr(text));
  tvm_ffi_release(text);
  expect_equal(back, ref(obj), true, line);
}
#define ROUNDTRIP(obj) roundtrip_line((obj), __LINE__)

/* Parse must fail with `kind`, and the message must contain each of the parts. */
static void expect_error_line(const char* src, const char* kind, const char* const* parts,
                              int line) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = "t.py";
  void* r = tvm_script_parse(src, strlen(src), &opts);
  if (r) {
    fprintf(stderr, "line %d: parse unexpectedly succeeded\n", line);
    tvm_ffi_release(r);
    g_test_failed_checks++;
    return;
  }
  void* e = tvm_ffi_error_take();
  if (!e) {
    fprintf(stderr, "line %d: no error raised\n", line);
    g_test_failed_checks++;
    return;
  }
  const char* msg = tvm_ffi_error_message(e);
  if (strcmp(tvm_ffi_error_kind(e), kind) != 0) {
    fprintf(stderr, "line %d: kind %s, expected %s: %s\n", line, tvm_ffi_error_kind(e), kind, msg);
    g_test_failed_checks++;
  }
  for (; *parts; ++parts) {
    if (!strstr(msg, *parts)) {
      fprintf(stderr, "line %d: message lacks \"%s\":\n%s\n", line, *parts, msg);
      g_test_failed_checks++;
    }
  }
  tvm_ffi_release(e);
}
#define EXPECT_ERROR(src, kind, ...) \
  expect_error_line((src), (kind), (const char* const[]){__VA_ARGS__, NULL}, __LINE__)

#define HEADER "from tvm.script import tirx as T\n\n"

/* ---- Functions, loops, stores ---------------------------------------------------------------- */
static void* add_one_ir(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 128);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 128);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* store = tvm_tir_store_take(
      ref(B), tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(1)), ref(i));
  void* loop = tvm_tir_serial_take(i, tvm_tir_int(0), tvm_tir_int(128), store);
  return tvm_tir_func_take("add_one", tvm_tir_list_take(A, B), loop);
}

TEST(prim_func_with_buffer_params_and_range_loop) {
  EXPECT_EQUAL(
      PARSE(HEADER
            "@T.prim_func\n"
            "def add_one(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"
            "    \"\"\"docstring is ignored\"\"\"\n"
            "    for i in range(128):\n"
            "        B[i] = A[i] + T.float32(1)\n"),
      add_one_ir());
  /* The old `tir` spelling, a Python literal converted to the buffer's dtype, T.serial. */
  EXPECT_EQUAL(PARSE("from tvm.script import tir as T\n"
                     "@T.prim_func(private=False, s_tir=True)\n"
                     "def add_one(A: T.Buffer(128), B: T.Buffer([128], \"float32\")):\n"
                     "    for i in T.serial(0, 128):\n"
                     "        B[i] = A[i] + 1.0\n"),
               add_one_ir());
}

TEST(handle_params_match_buffer_and_symbolic_shape) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_HANDLE);
  void* shape[] = {ref(n)};
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, shape, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(ref(i), tvm_tir_int(0), ref(n),
                                   tvm_tir_store_take(ref(A), tvm_tir_f32(0), ref(i)));
  TVMFFIAny k = tvm_ffi_any_obj(a), v = tvm_ffi_any_obj(A);
  void* bmap = tvm_ffi_map_new(&k, &v, 1);
  void* params = tvm_tir_list_take(ref(a));
  TVMFFIAny gk = tvm_ffi_string("global_symbol"), gv = tvm_ffi_string("fill");
  void* attrs = tvm_ffi_map_new(&gk, &gv, 1);
  tvm_tir_prim_func_obj* want = tvm_tir_prim_func_new(params, body, NULL, bmap, attrs);
  tvm_ffi_any_release(&gk);
  tvm_ffi_any_release(&gv);
  EXPECT_EQUAL(PARSE(HEADER "@T.prim_func\n"
                            "def fill(a: T.handle):\n"
                            "    n = T.int32()\n"
                            "    A = T.match_buffer(a, (n,), \"float32\")\n"
                            "    for i in range(n):\n"
                            "        A[i] = 0\n"),
               want);
  tvm_ffi_release(attrs);
  tvm_ffi_release(params);
  tvm_ffi_release(bmap);
  tvm_ffi_release(body);
  tvm_ffi_release(A);
  tvm_ffi_release(a);
  tvm_ffi_release(n);
  tvm_ffi_release(i);
}

TEST(module_constants_follow_python_arithmetic) {
  void* f = PARSE(HEADER
                  "N = 7 // 2 * 10 + 7 % -3 + (-7) // 2 * -1\n"
                  "M = 2 ** 5 // 4 if N > 3 and not False else 0\n"
                  "S = (N, M)\n"
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((S[0], S[-1] << 1), \"float32\")):\n"
                  "    A[0, 0] = T.float32(7 / 2)\n");
  CHECK(f != NULL);
  if (!f) return;
  const tvm_tir_prim_func_obj* pf = f;
  const TVMFFIAny* A = tvm_ffi_map_get(pf->buffer_map, tvm_ffi_seq_at(pf->params, 0));
  CHECK(A != NULL);
  if (A) {
    const tvm_tir_buffer_obj* buf = (const void*)A->v_obj;
    int64_t d0 = 0, d1 = 0;
    CHECK(tvm_tir_as_const_int(tvm_ffi_seq_obj_at(buf->shape, 0), &d0));
    CHECK(tvm_tir_as_const_int(tvm_ffi_seq_obj_at(buf->shape, 1), &d1));
    CHECK_EQ_INT(d0, 32);
    CHECK_EQ_INT(d1, 16);
  }
  const tvm_tir_buffer_store_obj* st = (const void*)pf->body;
  double v = 0;
  CHECK(tvm_tir_kind_of(st) == TVM_TIR_KIND_BufferStore && tvm_tir_as_const_float(st->value, &v));
  CHECK(v == 3.5);
  tvm_ffi_release(f);
}

/* ---- Expressions ------------------------------------------------------------------------------
 */
TEST(expression_fragments) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT64);
  EXPECT_EQUAL_FREE(
      PARSE("x = T.int32()\ny = T.int32()\n(x + y) * 2 - x // 3 % y"),
      tvm_tir_sub_take(
          tvm_tir_mul_take(tvm_tir_add_take(ref(x), ref(y)), tvm_tir_int(2)),
          tvm_tir_floormod_take(tvm_tir_floordiv_take(ref(x), tvm_tir_int(3)), ref(y))));
  /* Chained comparison, and/or/not. */
  EXPECT_EQUAL_FREE(PARSE("x = T.int32()\ny = T.int32()\n0 <= x < y or not x == 1"),
                    tvm_tir_or_take(tvm_tir_and_take(tvm_tir_le_take(tvm_tir_int(0), ref(x)),
                                                     tvm_tir_lt_take(ref(x), ref(y))),
                                    tvm_tir_not_take(tvm_tir_eq_take(ref(x), tvm_tir_int(1)))));
  /* A literal takes the other operand's dtype; float division; unary minus is x * -1, as
   * upstream's PrimExpr.__neg__ (a float's sign of zero then flips, as IEEE negation does). */
  EXPECT_EQUAL_FREE(PARSE("n = T.int64()\n-(n * 2)"),
                    tvm_tir_mul_take(tvm_tir_mul_take(ref(n), tvm_tir_i64(2)), tvm_tir_i64(-1)));
  EXPECT_EQUAL_FREE(PARSE("f = T.float32()\n-f"), tvm_tir_mul_take(ref(f), tvm_tir_f32(-1)));
  EXPECT_EQUAL_FREE(PARSE("-T.float32(1.5)"), tvm_tir_f32(-1.5));
  EXPECT_EQUAL_FREE(PARSE("f = T.float32()\nf / 2.5 + 1"),
                    tvm_tir_add_take(tvm_tir_div_take(ref(f), tvm_tir_f32(2.5)), tvm_tir_f32(1)));
  /* Bitwise operators are calls of the tir.bitwise_* / shift ops. */
  EXPECT_EQUAL_FREE(
      PARSE("x = T.int32()\ny = T.int32()\nx & y | x << 2"),
      tvm_tir_call_take(
          TVM_TIR_INT32, "tir.bitwise_or",
          tvm_tir_call_take(TVM_TIR_INT32, "tir.bitwise_and", ref(x), ref(y)),
          tvm_tir_call_take(TVM_TIR_INT32, "tir.shift_left", ref(x), tvm_tir_int(2))));
  /* `a if c else b`: static on a Python condition, if_then_else on a PrimExpr. */
  EXPECT_EQUAL_FREE(PARSE("x = T.int32()\nx if 1 > 2 else x + 1"),
                    tvm_tir_add_take(ref(x), tvm_tir_int(1)));
  EXPECT_EQUAL_FREE(PARSE("x = T.int32()\ny = T.int32()\nx if x < y else 0"),
                    tvm_tir_call_take(TVM_TIR_INT32, "tir.if_then_else",
                                      tvm_tir_lt_take(ref(x), ref(y)), ref(x), tvm_tir_int(0)));
  /* Calls unpacked into names each get their target's name. */
  void* nm = PARSE("n, m = T.int32(), T.int64()\nn + T.Cast(\"int32\", m)");
  CHECK(nm && tvm_tir_kind_of(nm) == TVM_TIR_KIND_Add);
  if (nm && tvm_tir_kind_of(nm) == TVM_TIR_KIND_Add) {
    const tvm_tir_binary_obj* add = nm;
    CHECK_STR_EQ(tvm_tir_var_name((const void*)add->a), "n");
    CHECK_STR_EQ(
        tvm_tir_var_name((const void*)((const tvm_tir_cast_obj*)(const void*)add->b)->value), "m");
  }
  tvm_ffi_release(nm);
  /* A call of a function outside its module, as the printer writes it. */
  void* gcall = PARSE("x = T.int32()\nI.GlobalVar(\"g\")(x)");
  CHECK(gcall && tvm_tir_kind_of(gcall) == TVM_TIR_KIND_Call);
  if (gcall && tvm_tir_kind_of(gcall) == TVM_TIR_KIND_Call) {
    const tvm_tir_call_obj* c = gcall;
    CHECK(tvm_tir_kind_of(c->op) == TVM_TIR_KIND_GlobalVar &&
          strcmp(tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)(const void*)c->op)->name_hint),
                 "g") == 0);
  }
  tvm_ffi_release(gcall);
  /* A lone declaration gives the variable. */
  void* v = PARSE("v = T.float32()");
  CHECK(v && tvm_tir_is_var(v) && tvm_tir_dtype_equal(tvm_tir_expr_dtype(v), TVM_TIR_FLOAT32));
  tvm_ffi_release(v);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  tvm_ffi_release(f);
  tvm_ffi_release(n);
}

TEST(buffer_fields_loads_and_regions) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  const char* decl = "A = T.Buffer((16, 8), \"float32\")\ni = T.int32()\n";
  char src[256];
  snprintf(src, sizeof(src), "%sA[i, A.shape[1] - 1]", decl);
  EXPECT_EQUAL_FREE(PARSE(src), tvm_tir_load_take(ref(A), ref(i), tvm_tir_int(7)));
  snprintf(src, sizeof(src), "%sA[i, 2:6]", decl);
  EXPECT_EQUAL_FREE(PARSE(src),
                    tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(i), tvm_tir_int(1)),
                                        tvm_tir_range_take(tvm_tir_int(2), tvm_tir_int(4))));
  /* A slice with a step loads a vector through a Ramp index. */
  snprintf(src, sizeof(src), "%sA[i, 0:8:2]", decl);
  EXPECT_EQUAL_FREE(
      PARSE(src),
      tvm_tir_load_take(ref(A), ref(i), tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(2), 4)));
  /* `p = A.data` names the data pointer (no name referred to it); `q = p` is then a LetStmt. */
  snprintf(src, sizeof(src), "%sp = A.data\nq = p\nT.evaluate(q)", decl);
  void* lets = PARSE(src);
  CHECK(lets && tvm_tir_kind_of(lets) == TVM_TIR_KIND_LetStmt &&
        tvm_tir_is_var(((const tvm_tir_let_stmt_obj*)lets)->value) &&
        tvm_tir_dtype_equal(((const tvm_tir_let_stmt_obj*)lets)->value->dtype, TVM_TIR_HANDLE));
  tvm_ffi_release(lets);
  snprintf(src, sizeof(src), "%sA.data", decl);
  void* data = PARSE(src);
  CHECK(data && tvm_tir_is_var(data) &&
        tvm_tir_dtype_equal(tvm_tir_expr_dtype(data), TVM_TIR_HANDLE));
  tvm_ffi_release(data);
  tvm_ffi_release(A);
  tvm_ffi_release(i);
}

/* ---- Statements --------------------------------------------------------------------------- */
TEST(let_assert_if_while_and_stores) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 8);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  /* x: T.int32 = v and x = <PrimExpr> are LetStmts over the rest of the body. */
  void* want = tvm_tir_let_stmt_take(
      ref(x), tvm_tir_int(3),
      tvm_tir_let_stmt_take(ref(y),
                            tvm_tir_add_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), ref(x)),
                            tvm_tir_store_take(ref(A), ref(y), ref(x))));
  EXPECT_EQUAL_FREE(PARSE("A = T.Buffer((8,), \"int32\")\nx: T.int32 = 3\ny = A[0] + x\nA[x] = y"),
                    want);
  /* assert; augmented store; if / elif / else; a static Python if. */
  want = tvm_tir_assert_take(
      tvm_tir_gt_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(0)), "positive",
      tvm_tir_seq_take(
          tvm_tir_store_take(
              ref(A), tvm_tir_add_take(tvm_tir_load_take(ref(A), tvm_tir_int(1)), tvm_tir_int(2)),
              tvm_tir_int(1)),
          tvm_tir_if_take(
              tvm_tir_lt_take(ref(x), tvm_tir_int(0)),
              tvm_tir_store_take(ref(A), tvm_tir_int(0), tvm_tir_int(0)),
              tvm_tir_if_take(tvm_tir_eq_take(ref(x), tvm_tir_int(0)),
                              tvm_tir_store_take(ref(A), tvm_tir_int(1), tvm_tir_int(0)),
                              tvm_tir_store_take(ref(A), tvm_tir_int(2), tvm_tir_int(0)))),
          tvm_tir_store_take(ref(A), tvm_tir_int(5), tvm_tir_int(5))));
  EXPECT_EQUAL_FREE(
      PARSE("A = T.Buffer((8,), \"int32\")\nx = T.int32()\n"
            "assert A[0] > 0, \"positive\"\n"
            "A[1] += 2\n"
            "if x < 0:\n    A[0] = 0\nelif x == 0:\n    A[0] = 1\nelse:\n    A[0] = 2\n"
            "if 1 + 1 == 2:\n    A[5] = 5\nelse:\n    A[6] = 6\n"),
      want);
  want = tvm_tir_while_take(
      tvm_tir_lt_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(10)),
      tvm_tir_store_take(
          ref(A), tvm_tir_add_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(1)),
          tvm_tir_int(0)));
  EXPECT_EQUAL_FREE(PARSE("A = T.Buffer((8,), \"int32\")\nwhile A[0] < 10:\n    A[0] = A[0] + 1\n"),
                    want);
  /* A vector store through a slice: a Ramp index, the value broadcast from a literal. */
  tvm_tir_buffer_obj* F = tvm_tir_buffer_decl("F", TVM_TIR_FLOAT32, 8);
  want = tvm_tir_store_take(ref(F), tvm_tir_broadcast_take(tvm_tir_f32(1), 4),
                            tvm_tir_ramp_take(tvm_tir_int(4), tvm_tir_int(1), 4));
  EXPECT_EQUAL_FREE(PARSE("F = T.Buffer((8,), \"float32\")\nF[4:8] = 1.0"), want);
  tvm_ffi_release(F);
  tvm_ffi_release(A);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
}

TEST(starred_arguments_and_dtype_comparison) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 2, 3);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      i, tvm_tir_int(0), tvm_tir_int(2),
      tvm_tir_serial_take(j, tvm_tir_int(0), tvm_tir_int(3),
                          tvm_tir_store_take(ref(A), tvm_tir_f32(1), ref(i), ref(j))));
  EXPECT_EQUAL(PARSE(HEADER "S = (2, 3)\n"
                            "@T.prim_func\n"
                            "def f(A: T.Buffer(S, \"float32\")):\n"
                            "    for i, j in T.grid(*S):\n"
                            "        if A.dtype == \"float32\":\n"
                            "            A[i, j] = 1.0\n"
                            "        else:\n"
                            "            A[i, j] = 2.0\n"),
               tvm_tir_func_take("f", tvm_tir_list_take(A), body));
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    for i in T.grid(*3):\n        pass\n",
               "TypeError", "t.py:5:21:", "argument after * must be");
  /* A parameter name once per signature (names of equal length that differ are no duplicate). */
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f(a: T.int32, b: T.int32, a: T.int32):\n    pass\n",
               "SyntaxError", "t.py:4:31:", "duplicate argument 'a' in function definition");
}

TEST(scopes_shadow_and_restore_names) {
  /* `i` of the inner loop shadows the constant i = 2 only inside the loop. */
  void* f = PARSE(HEADER
                  "i = 2\n"
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((8,), \"int32\")):\n"
                  "    for i in range(4):\n"
                  "        A[i] = i\n"
                  "    A[i] = 9\n");
  CHECK(f != NULL);
  if (f) {
    const tvm_tir_seq_stmt_obj* seq = (const void*)((const tvm_tir_prim_func_obj*)f)->body;
    CHECK(tvm_tir_kind_of(seq) == TVM_TIR_KIND_SeqStmt);
    if (tvm_tir_kind_of(seq) == TVM_TIR_KIND_SeqStmt) {
      const tvm_tir_buffer_store_obj* st = tvm_ffi_seq_obj_at(seq->seq, 1);
      int64_t idx = -1;
      CHECK(tvm_tir_as_const_int(tvm_ffi_seq_obj_at(st->indices, 0), &idx));
      CHECK_EQ_INT(idx, 2);
    }
  }
  tvm_ffi_release(f);
}

TEST(many_names_grow_the_variable_table) {
  tvm_ffi_strbuf src = {0};
  for (int k = 0; k < 700; ++k) tvm_ffi_strbuf_printf(&src, "v%d = T.int32()\n", k);
  tvm_ffi_strbuf_puts(&src, "v0 + v350 * v699");
  void* e = PARSE(tvm_ffi_strbuf_cstr(&src));
  CHECK(e && tvm_tir_kind_of(e) == TVM_TIR_KIND_Add);
  if (e && tvm_tir_kind_of(e) == TVM_TIR_KIND_Add) {
    const tvm_tir_binary_obj* add = e;
    const tvm_tir_binary_obj* mul = (const void*)add->b;
    CHECK_STR_EQ(tvm_tir_var_name((const void*)add->a), "v0");
    CHECK_STR_EQ(tvm_tir_var_name((const void*)mul->a), "v350");
    CHECK_STR_EQ(tvm_tir_var_name((const void*)mul->b), "v699");
  }
  tvm_ffi_release(e);
  tvm_ffi_strbuf_free(&src);
}

TEST(module_with_cls_forward_reference_and_attrs) {
  void* m = PARSE(
      "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    I.module_attrs({\"system_lib_prefix\": \"x_\"})\n"
      "    @T.prim_func\n"
      "    def main(A: T.Buffer((4,), \"int32\")):\n"
      "        cls = Module\n"
      "        T.evaluate(cls.helper(A[0]))\n"
      "    @T.prim_func(private=True)\n"
      "    def helper(x: T.int32) -> T.int32:\n"
      "        return x + 1\n");
  CHECK(m != NULL && tvm_tir_kind_of(m) == TVM_TIR_KIND_IRModule);
  if (m && tvm_tir_kind_of(m) == TVM_TIR_KIND_IRModule) {
    tvm_tir_global_var_obj* gv = tvm_tir_ir_module_get_global_var(m, "helper");
    void* main = tvm_tir_ir_module_lookup(m, "main");
    CHECK(gv && main);
    if (gv && main) {
      const tvm_tir_evaluate_obj* ev = (const void*)((const tvm_tir_prim_func_obj*)main)->body;
      CHECK(tvm_tir_kind_of(ev) == TVM_TIR_KIND_Evaluate);
      const tvm_tir_call_obj* call =
          tvm_tir_kind_of(ev) == TVM_TIR_KIND_Evaluate ? (const void*)ev->value : NULL;
      CHECK(call && tvm_tir_kind_of(call) == TVM_TIR_KIND_Call && (void*)call->op == (void*)gv);
    }
    const tvm_tir_ir_module_obj* mod = m;
    CHECK(tvm_ffi_map_get_str(mod->attrs, "system_lib_prefix") != NULL);
    tvm_ffi_release(gv);
    tvm_ffi_release(main);
  }
  tvm_ffi_release(m);
}

TEST(several_functions_make_a_module) {
  void* m = PARSE(HEADER
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((4,), \"int32\")):\n"
                  "    A[0] = g(1)\n"
                  "@T.prim_func\n"
                  "def g(x: T.int32) -> T.int32:\n"
                  "    return x * 2\n");
  CHECK(m && tvm_tir_kind_of(m) == TVM_TIR_KIND_IRModule);
  if (m && tvm_tir_kind_of(m) == TVM_TIR_KIND_IRModule) {
    void* f = tvm_tir_ir_module_lookup(m, "f");
    void* g = tvm_tir_ir_module_lookup(m, "g");
    CHECK(f && g);
    if (f) {
      /* g(1) is a call of g's GlobalVar returning g's annotated int32. */
      const tvm_tir_buffer_store_obj* st = (const void*)((const tvm_tir_prim_func_obj*)f)->body;
      CHECK(tvm_tir_kind_of(st) == TVM_TIR_KIND_BufferStore &&
            tvm_tir_kind_of(st->value) == TVM_TIR_KIND_Call &&
            tvm_tir_dtype_equal(st->value->dtype, TVM_TIR_INT32));
    }
    tvm_ffi_release(f);
    tvm_ffi_release(g);
  }
  tvm_ffi_release(m);
}

TEST(extra_vars_are_visible_and_shadowed) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  TVMFFIAny keys[2] = {tvm_ffi_string("n"), tvm_ffi_string("K")};
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(n), tvm_ffi_any_int(5)};
  void* extra = tvm_ffi_map_new(keys, vals, 2);
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.extra_vars = extra;
  const char* src = "n * K";
  void* r = tvm_script_parse(src, strlen(src), &opts);
  if (!r) tvm_ffi_error_clear();
  EXPECT_EQUAL(r, tvm_tir_mul_take(ref(n), tvm_tir_int(5)));
  const char* src2 = "K = 2\nn * K"; /* the file's own name wins: a LetStmt var here */
  r = tvm_script_parse(src2, strlen(src2), &opts);
  CHECK(r && tvm_tir_kind_of(r) == TVM_TIR_KIND_LetStmt);
  tvm_ffi_release(r);
  tvm_ffi_any_release(&keys[0]);
  tvm_ffi_any_release(&keys[1]);
  tvm_ffi_release(extra);
  tvm_ffi_release(n);
}

/* ---- Print -> parse ------------------------------------------------------------------------- */
TEST(roundtrips) {
  /* The builder adds the implicit root block to a function with blocks (as upstream's
   * ScriptComplete does), so the matmul roundtrips from its parsed form. */
  void* mm = tvm_tir_testing_make_matmul("", 64, 32, 16);
  void* text = tvm_script_print_obj(mm, NULL);
  void* parsed = text ? PARSE(tvm_ffi_str_cstr(text)) : NULL;
  CHECK(parsed != NULL);
  if (parsed) ROUNDTRIP(parsed);
  tvm_ffi_release(parsed);
  tvm_ffi_release(text);
  tvm_ffi_release(mm);
  void* f = add_one_ir();
  ROUNDTRIP(f);
  tvm_ffi_release(f);
  void* large = tvm_tir_testing_make_large_func(24);
  ROUNDTRIP(large);
  tvm_ffi_release(large);
  /* Match buffers with symbolic strides and offset inside a block. */
  tvm_tir_testing_aliases al;
  if (tvm_tir_testing_make_aliases(&al) == 0) {
    void* body =
        tvm_tir_store_take(ref(al.S3), tvm_tir_load_take(ref(al.S), tvm_tir_int(0), tvm_tir_int(0)),
                           tvm_tir_int(0), tvm_tir_int(1));
    void* block = tvm_tir_testing_block_with_matches(ref(al.match_buffers), body);
    void* fn = tvm_tir_func_take("aliases", tvm_tir_list_take(ref(al.A)), block);
    void* text = tvm_script_print_obj(fn, NULL);
    void* back = text ? PARSE(tvm_ffi_str_cstr(text)) : NULL;
    if (back) ROUNDTRIP(back);
    tvm_ffi_release(back);
    tvm_ffi_release(text);
    tvm_ffi_release(fn);
    tvm_tir_testing_aliases_release(&al);
  }
  /* Scoped statements printed as `with` blocks and concisely. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 8);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  void* let = tvm_tir_let_stmt_take(ref(x), tvm_tir_int(3),
                                    tvm_tir_store_take(ref(A), ref(x), tvm_tir_int(0)));
  void* s = tvm_tir_seq_take(let, tvm_tir_store_take(ref(A), tvm_tir_int(1), tvm_tir_int(1)));
  ROUNDTRIP(s);
  tvm_ffi_release(s);
  s = tvm_tir_seq_take(
      tvm_tir_attr_take(NULL, "pragma_x", tvm_tir_int(1), tvm_tir_evaluate_take(tvm_tir_int(0))),
      tvm_tir_evaluate_take(tvm_tir_int(1)));
  ROUNDTRIP(s);
  tvm_ffi_release(s);
  tvm_tir_var_obj* buf = tvm_tir_ptr_var("buf", TVM_TIR_FLOAT32, "local");
  void* ext[] = {tvm_tir_int(16)};
  s = tvm_tir_allocate_takev(ref(buf), TVM_TIR_FLOAT32, 1, ext,
                             tvm_tir_evaluate_take(tvm_tir_int(0)));
  ROUNDTRIP(s);
  tvm_ffi_release(s);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 16);
  s = tvm_tir_decl_buffer_take(ref(B), tvm_tir_store_take(ref(B), tvm_tir_f32(0), tvm_tir_int(0)));
  ROUNDTRIP(s);
  tvm_ffi_release(s);
  tvm_tir_var_obj* tx = tvm_tir_var("threadIdx_x", TVM_TIR_INT32);
  /* (The thread's IterVar gets the domain [0, extent), as upstream's launch_thread.) */
  tvm_tir_range_obj* dom = tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(32));
  tvm_tir_iter_var_obj* iv =
      tvm_tir_iter_var_new(dom, tx, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  tvm_ffi_release(dom);
  s = tvm_tir_attr_take(ref(iv), "thread_extent", tvm_tir_int(32),
                        tvm_tir_store_take(ref(A), tvm_tir_int(1), ref(tx)));
  ROUNDTRIP(s);
  tvm_ffi_release(s);
  tvm_ffi_release(iv);
  tvm_ffi_release(tx);
  tvm_ffi_release(buf);
  tvm_ffi_release(B);
  tvm_ffi_release(A);
  tvm_ffi_release(x);
}

/* ---- Errors ------------------------------------------------------------------------------- */
/* Python's float(): the printer writes float("inf"), -float("inf") and float("nan") for the
 * attribute values no literal spells, and they must read back (found by fuzz_parse_ir). */
TEST(python_float_of_text_and_numbers) {
  void* f = PARSE(HEADER
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((4,), \"float32\")):\n"
                  "    T.func_attr({\"a\": float(\"inf\"), \"b\": -float(\" Infinity \"),\n"
                  "                 \"c\": float(\"nan\"), \"d\": float(3), \"e\": float(\"-1.5e3\"),\n"
                  "                 \"g\": 1e400})\n"
                  "    A[0] = T.float32(0)\n");
  CHECK(f != NULL);
  if (!f) return;
  const tvm_tir_prim_func_obj* pf = f;
  const char* keys[] = {"a", "b", "c", "d", "e", "g"};
  double want[] = {INFINITY, -INFINITY, NAN, 3.0, -1500.0, INFINITY};
  for (int i = 0; i < 6; ++i) {
    const TVMFFIAny* v = tvm_ffi_map_get_str(pf->func.attrs, keys[i]);
    CHECK(v && v->type_index == kTVMFFIFloat);
    if (v && v->type_index == kTVMFFIFloat) {
      CHECK(isnan(want[i]) ? isnan(v->v_float64) : v->v_float64 == want[i]);
    }
  }
  /* The printed text parses back. */
  void* text = tvm_script_print_obj(f, NULL);
  CHECK(text && strstr(tvm_ffi_str_cstr(text), "-float(\"inf\")"));
  void* back = text ? PARSE(tvm_ffi_str_cstr(text)) : NULL;
  CHECK(back != NULL);
  tvm_ffi_release(back);
  tvm_ffi_release(text);
  tvm_ffi_release(f);
#define FLOAT_ATTR(x) HEADER "@T.prim_func\ndef f():\n    T.func_attr({\"a\": " x "})\n"
  EXPECT_ERROR(FLOAT_ATTR("float(\"0x10\")"), "ValueError",
               "t.py:5:29: error: could not convert string to float: '0x10'");
  EXPECT_ERROR(FLOAT_ATTR("float(\"1e\")"), "ValueError", "t.py:5:29:", "'1e'");
  EXPECT_ERROR(FLOAT_ATTR("float()"), "TypeError",
               "t.py:5:23: error: float() takes exactly one argument");
  EXPECT_ERROR(FLOAT_ATTR("float(1, x=2)"), "TypeError", "t.py:5:23:", "exactly one argument");
  EXPECT_ERROR(FLOAT_ATTR("float(T)"), "TypeError",
               "t.py:5:29: error: float() argument must be a string or a number, not module");
  EXPECT_ERROR(FLOAT_ATTR("float"), "TypeError", "t.py:5:23:", "`float` cannot be used");
#undef FLOAT_ATTR
  /* A variable named float shadows the builtin. */
  void* g = PARSE(HEADER "float = 2\n@T.prim_func\ndef f():\n    T.func_attr({\"a\": float})\n");
  CHECK(g != NULL);
  if (g) {
    const TVMFFIAny* v = tvm_ffi_map_get_str(((const tvm_tir_prim_func_obj*)g)->func.attrs, "a");
    CHECK(v && v->type_index == kTVMFFIInt && v->v_int64 == 2);
  }
  tvm_ffi_release(g);
}

/* The header's aliases: a repeated alias takes its last module, as a dict would, and a header
 * of more imports than the parser lists inline (8) resolves the same way through its map. */
TEST(import_aliases_repeated_and_many) {
  void* f = PARSE("from tvm.script import ir as T\nfrom tvm.script import tirx as T\n\n"
                  "@T.prim_func\ndef f():\n    T.evaluate(0)\n");
  CHECK(f != NULL && tvm_tir_kind_of(f) == TVM_TIR_KIND_PrimFunc);
  tvm_ffi_release(f);
  EXPECT_ERROR("from tvm.script import tirx as T\nfrom tvm.script import ir as T\n\n"
               "@T.prim_func\ndef f():\n    T.evaluate(0)\n",
               "SyntaxError", "t.py:4:2:", "unknown decorator");
  const char* many = "from tvm.script import tir as A, ir as B, relax as C, tirx as D, tir as E\n"
                     "from tvm.script import ir as F, relax as G, tirx as H, tir as J\n\n";
  char src[512];
  snprintf(src, sizeof(src), "%s@J.prim_func\ndef f():\n    A.evaluate(0)\n", many);
  f = PARSE(src);
  CHECK(f != NULL && tvm_tir_kind_of(f) == TVM_TIR_KIND_PrimFunc);
  tvm_ffi_release(f);
  snprintf(src, sizeof(src), "%s@T.prim_func\ndef f():\n    J.evaluate(0)\n", many);
  EXPECT_ERROR(src, "SyntaxError", "t.py:4:2:", "unknown decorator");
}

TEST(error_undefined_name) {
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f(A: T.Buffer((8,), \"int32\")):\n    A[0] = nope + 1\n",
               "NameError", "t.py:5:12: error: name 'nope' is not defined",
               "    A[0] = nope + 1\n           ^^^^");
}

TEST(error_wrong_argument_count_to_builtin) {
  EXPECT_ERROR(HEADER
               "@T.prim_func\ndef f(A: T.Buffer((8,), \"int32\")):\n"
               "    for i in T.serial(0, 8, 1, 2, 3):\n        A[i] = 0\n",
               "TypeError", "t.py:5:29:", "T.serial() takes at most 2 arguments (5 given)",
               "    for i in T.serial(0, 8, 1, 2, 3):\n                            ^");
}

TEST(error_type_rule_of_a_constructor) {
  EXPECT_ERROR("x = T.int32()\nc = T.bool()\nx + c\n", "TypeError", "t.py:3:1:", "x + c\n^^^^^");
}

/* A dtype constructor of one literal number makes its constant in the evaluator (a fast path):
 * its errors keep the kind, message and span (the whole call) of the general path. */
TEST(error_dtype_constructor_of_a_literal) {
  EXPECT_ERROR(HEADER
               "@T.prim_func\ndef f(A: T.Buffer((8,), \"int8\")):\n    A[0] = T.int8(1000)\n",
               "TypeError", "t.py:5:12: error: IntImm: value 1000 is out of the range [-128, 127]",
               "    A[0] = T.int8(1000)\n           ^^^^^^^^^^^^");
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    T.evaluate(T.void(1))\n", "TypeError",
               "t.py:5:16: error: IntImm: no constant of dtype void");
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    T.evaluate(T.int8(1, 2))\n", "TypeError",
               "t.py:5:26: error: T.int8() takes at most 1 argument (2 given)");
}

TEST(error_unknown_builtin) {
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    T.frobnicate(1)\n", "AttributeError",
               "t.py:5:5:", "frobnicate", "    T.frobnicate(1)\n    ^^^^^^^^^^^^");
}

TEST(error_store_to_non_buffer) {
  EXPECT_ERROR("x = T.int32()\nx[0] = 1\n", "TypeError", "t.py:2:1:", "only a Buffer",
               "x[0] = 1\n^");
}

TEST(error_relax_decorator) {
  /* @R.function is the Relax dialect (parse_relax_stmt.c): its own errors, located. */
  EXPECT_ERROR("from tvm.script import relax as R\n@R.function\ndef f(x):\n    return x\n",
               "TypeError", "t.py:3:7:", "a Relax parameter needs an annotation");
  EXPECT_ERROR("from tvm.script import relax as R\n@R.function\n"
               "def f(x: R.Tensor((2,), \"float32\")):\n    while x:\n        pass\n",
               "SyntaxError", "t.py:4:5:", "not supported in dialect 'relax'");
}

TEST(error_ill_formed_ir) {
  /* `j` is used outside the loop that binds it. */
  const char* src = HEADER
      "@T.prim_func\ndef f(A: T.Buffer((8,), \"int32\")):\n"
      "    j = T.int32()\n    A[j] = 1\n";
  /* Reported at the statement that uses it (the checker's access path, resolved). */
  EXPECT_ERROR(src, "ValueError", "t.py:6:5:", "well-formedness", "A[j] = 1\n    ^^^^^^^^");
  /* The decorator turns the check off. */
  const char* off = HEADER
      "@T.prim_func(check_well_formed=False)\ndef f(A: T.Buffer((8,), \"int32\")):\n"
      "    j = T.int32()\n    A[j] = 1\n";
  void* r = PARSE(off);
  CHECK(r != NULL);
  tvm_ffi_release(r);
}

TEST(error_syntax_and_misc) {
  EXPECT_ERROR(HEADER "def f(:\n", "SyntaxError", "t.py:3:6:");
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    x = lambda y: y\n", "NotImplementedError",
               "t.py:5:9:");
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    T.evaluate(1 // 0)\n", "ZeroDivisionError",
               "t.py:5:16:");
  EXPECT_ERROR("@I.ir_module\nclass M:\n    pass\n@T.prim_func\ndef g():\n    pass\n",
               "SyntaxError", "t.py:5:1:", "not both");
  EXPECT_ERROR("def f():\n    pass\n", "SyntaxError", "decorator");
  EXPECT_ERROR("a, b = T.int32()\n", "ValueError", "t.py:1:1:");
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    @T.prim_func\n    def g():\n        pass\n",
               "SyntaxError", "t.py:6:5:", "nested functions");
  EXPECT_ERROR(HEADER "@T.prim_func(fast=True)\ndef f():\n    pass\n", "TypeError",
               "t.py:3:19:", "unknown decorator argument 'fast'");
  EXPECT_ERROR(HEADER "@T.kernel\ndef f():\n    pass\n", "SyntaxError",
               "t.py:3:2:", "unknown decorator");
  EXPECT_ERROR("A = T.Buffer((4,), \"int32\")\nfor i in [1, 2]:\n    A[i] = 0\n", "SyntaxError",
               "t.py:2:10:");
  EXPECT_ERROR("x = T.int32()\nx.foo\n", "AttributeError", "t.py:2:1:", "has no attribute 'foo'");
  /* A statement no handler of the current dialect takes, named by its kind. */
  EXPECT_ERROR(HEADER "for i in range(2):\n    pass\n@T.prim_func\ndef f():\n    pass\n",
               "SyntaxError", "t.py:3:1:", "this statement (for) is not supported at module level");
  EXPECT_ERROR("@I.ir_module\nclass M:\n    while True:\n        pass\n", "SyntaxError",
               "t.py:3:5:", "this statement (while) is not supported in dialect 'ir'");
  EXPECT_ERROR("", "ValueError", "t.py:");
  /* A left-deep operator chain longer than the evaluation depth: an error, not a crash. */
  tvm_ffi_strbuf deep = {0};
  tvm_ffi_strbuf_puts(&deep, "x = T.int32()\nx");
  for (int k = 0; k < 5000; ++k) tvm_ffi_strbuf_puts(&deep, " + x");
  EXPECT_ERROR(tvm_ffi_strbuf_cstr(&deep), "SyntaxError", "t.py:2:1:", "nested too deeply");
  tvm_ffi_strbuf_free(&deep);
}

/* Inputs found by fuzzing and by hand (tests/fuzz): each was accepted wrongly, reported
 * badly or failed to round-trip. */
TEST(fuzz_and_hand_found_inputs) {
  /* T.abs of a constant that no table shares: its operands were made in one call whose
   * arguments C may evaluate in any order, -x (folded) releasing x before x was taken again
   * (AddressSanitizer saw it once the parser stopped holding literals). */
  for (int k = 0; k < 2; ++k) {
    const char* abs_src = k ? "T.abs(0x7f2)\n" : "T.abs(T.int64(-5000))\n";
    void* a = PARSE(abs_src);
    CHECK(a != NULL && tvm_tir_kind_of(a) == TVM_TIR_KIND_Select);
    tvm_ffi_release(a);
  }
  /* A UTF-8 byte order mark is skipped, as Python does; columns count from after it. */
  void* r = PARSE("\xEF\xBB\xBF" HEADER "@T.prim_func\ndef f():\n    pass\n");
  CHECK(r != NULL);
  tvm_ffi_release(r);
  EXPECT_ERROR("\xEF\xBB\xBFx = $\n", "SyntaxError", "t.py:1:5:", "\nx = $\n    ^");
  /* Characters pasted from documents are errors at the character, not odd names. */
  EXPECT_ERROR(HEADER "x = \xE2\x80\x9C\n", "SyntaxError", "t.py:3:5:", "U+201C");
  /* A global_symbol that is no Python name prints under the default name and round-trips. */
  static const char* const kSymbols[] = {"my-kernel.v2", "for", "9lives"};
  for (size_t k = 0; k < sizeof(kSymbols) / sizeof(kSymbols[0]); ++k) {
    char src[256];
    snprintf(src, sizeof(src),
             HEADER "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
                    "    T.func_attr({\"global_symbol\": \"%s\"})\n    A[0] = T.float32(1)\n",
             kSymbols[k]);
    void* f = PARSE(src);
    if (!f) continue;
    void* text = tvm_script_print_obj(f, NULL);
    CHECK(text != NULL);
    if (text) CHECK(strstr(tvm_ffi_str_cstr(text), "def main(A") != NULL);
    tvm_ffi_release(text);
    ROUNDTRIP(f);
    tvm_ffi_release(f);
  }
  /* A thread tag of any length keeps all of it (T.launch_thread("<tag>", n) once cut it at
   * 127 bytes, so the printed text read back as another tag; found by fuzz_parse_ir). */
  {
    char tag[301], src[600];
    memset(tag, 'x', 300);
    tag[300] = '\0';
    snprintf(src, sizeof(src),
             HEADER "@T.prim_func\ndef f(A: T.Buffer((128,), \"float32\")):\n"
                    "    bx = T.launch_thread(\"%s\", 2)\n    A[bx] = T.float32(1)\n",
             tag);
    void* f = PARSE(src);
    const tvm_tir_attr_stmt_obj* at = f ? (const void*)((tvm_tir_prim_func_obj*)f)->body : NULL;
    CHECK(at && tvm_tir_kind_of(at) == TVM_TIR_KIND_AttrStmt);
    if (at && tvm_tir_kind_of(at) == TVM_TIR_KIND_AttrStmt) {
      const tvm_tir_iter_var_obj* iv = (const void*)at->node.v_obj;
      CHECK(tvm_tir_kind_of(iv) == TVM_TIR_KIND_IterVar &&
            strcmp(tvm_ffi_str_cstr(iv->thread_tag), tag) == 0);
    }
    if (f) ROUNDTRIP(f);
    tvm_ffi_release(f);
  }
  /* `with` needs a frame: a value would silently drop the with. */
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f(n: T.int32):\n    with T.abs(n):\n        pass\n",
               "TypeError", "t.py:5:10:", "needs a frame", "tir.");
  /* A static `if` takes a bool (or int), as upstream; not None, strings or buffers. */
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n    if A:\n"
                      "        A[0] = 1\n",
               "TypeError", "t.py:5:8:", "got tir.Buffer");
  EXPECT_ERROR(HEADER "@T.prim_func\ndef f():\n    if \"s\":\n        pass\n", "TypeError",
               "t.py:5:8:");
  void* st = PARSE(HEADER "@T.prim_func\ndef f(A: T.Buffer((4,), \"int32\")):\n"
                          "    if True:\n        A[0] = 1\n    if 0:\n        A[1] = 1\n");
  CHECK(st != NULL);
  tvm_ffi_release(st);
  /* A number converted to float16/bfloat16 (a store, an operand) holds the value of the type,
   * as `T.float16(v)` reads: printing then parsing gives the same constant. */
  static const char* const kHalf[] = {"F[0] = 4097", "F[0] = T.float32(0.001)",
                                      "F[0] = F[1] + 0.001", "G[0] = G[1] * 0.001",
                                      "F[0] = T.Select(F[1] < 0.001, F[1], 0.3)",
                                      "F[0] = T.max(F[1], 4097)"};
  for (size_t k = 0; k < sizeof(kHalf) / sizeof(kHalf[0]); ++k) {
    char src[256];
    snprintf(src, sizeof(src),
             HEADER "@T.prim_func\ndef f(F: T.Buffer((2,), \"float16\"), "
                    "G: T.Buffer((2,), \"bfloat16\")):\n    %s\n",
             kHalf[k]);
    void* f = PARSE(src);
    if (f) ROUNDTRIP(f);
    tvm_ffi_release(f);
  }
  /* An elem_offset or stride variable of another type than the shape's index type prints as
   * a variable of its own: `elem_offset=off` (the parser would make an int32 one again). */
  static const char* const kLayout[] = {
      "    off = T.int64()\n    B = T.match_buffer(b, (16,), \"float32\", elem_offset=off)\n",
      "    s0 = T.int64()\n"
      "    B = T.match_buffer(b, (4, 4), \"float32\", strides=(s0, T.int64(1)))\n"};
  for (size_t k = 0; k < sizeof(kLayout) / sizeof(kLayout[0]); ++k) {
    char src[320];
    snprintf(src, sizeof(src), HEADER "@T.prim_func\ndef f(b: T.handle):\n%s    T.evaluate(0)\n",
             kLayout[k]);
    void* f = PARSE(src);
    if (f) ROUNDTRIP(f);
    tvm_ffi_release(f);
  }
  /* Long chains of lets, asserts or elifs (flat in the text, nested in the IR) stop at a located
   * error instead of overflowing the stack of the checker or the printer. */
  static const char* const kChain[] = {"    x%d = n + 1\n", "    assert n < %d, \"m\"\n",
                                       "    elif n < %d:\n        pass\n"};
  for (size_t k = 0; k < sizeof(kChain) / sizeof(kChain[0]); ++k) {
    tvm_ffi_strbuf chain = {0};
    tvm_ffi_strbuf_puts(&chain, HEADER "@T.prim_func\ndef f(n: T.int32):\n");
    if (k == 2) tvm_ffi_strbuf_puts(&chain, "    if n < 0:\n        pass\n");
    for (int i = 0; i < 50000; ++i) tvm_ffi_strbuf_printf(&chain, kChain[k], i);
    EXPECT_ERROR(tvm_ffi_strbuf_cstr(&chain), "SyntaxError", "nested too deeply", "\n    ^");
    tvm_ffi_strbuf_free(&chain);
  }
}

int main(void) {
  RUN(prim_func_with_buffer_params_and_range_loop);
  RUN(handle_params_match_buffer_and_symbolic_shape);
  RUN(module_constants_follow_python_arithmetic);
  RUN(expression_fragments);
  RUN(buffer_fields_loads_and_regions);
  RUN(let_assert_if_while_and_stores);
  RUN(starred_arguments_and_dtype_comparison);
  RUN(scopes_shadow_and_restore_names);
  RUN(many_names_grow_the_variable_table);
  RUN(module_with_cls_forward_reference_and_attrs);
  RUN(several_functions_make_a_module);
  RUN(extra_vars_are_visible_and_shadowed);
  RUN(roundtrips);
  RUN(error_undefined_name);
  RUN(error_wrong_argument_count_to_builtin);
  RUN(error_type_rule_of_a_constructor);
  RUN(import_aliases_repeated_and_many);
  RUN(python_float_of_text_and_numbers);
  RUN(error_dtype_constructor_of_a_literal);
  RUN(error_unknown_builtin);
  RUN(error_store_to_non_buffer);
  RUN(error_relax_decorator);
  RUN(error_ill_formed_ir);
  RUN(error_syntax_and_misc);
  RUN(fuzz_and_hand_found_inputs);
  return test_summary();
}

/* test_printer_tir.c: golden tests of the TVMScript printer for every TIR node kind. */
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

#include "test_util.h"
#include "tir_testing.h"

static void* ref(void* obj) { return tvm_tir_ref(obj); }

/* Print obj (consumed) without the import header and compare with expected. */
static void expect_opts(void* obj, const tvm_script_print_options* opts, const char* expected,
                        int line) {
  CHECK(obj != NULL);
  void* s = obj ? tvm_script_print_obj(obj, opts) : NULL;
  if (!s) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: print failed: %s\n", line, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  } else if (strcmp(tvm_ffi_str_cstr(s), expected) != 0) {
    fprintf(stderr, "line %d: got:\n%s\n--- expected:\n%s\n---\n", line, tvm_ffi_str_cstr(s),
            expected);
    g_test_failed_checks++;
  }
  tvm_ffi_release(s);
  tvm_ffi_release(obj);
}

static void expect_line(void* obj, const char* expected, int line) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  expect_opts(obj, &opts, expected, line);
}
#define EXPECT(obj, expected) expect_line((obj), (expected), __LINE__)

TEST(matmul_function_with_header) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  expect_opts(tvm_tir_testing_make_matmul("", 128, 128, 64), &opts,
              "# from tvm.script import tirx as T\n"
              "\n"
              "@T.prim_func\n"
              "def matmul(A: T.Buffer((128, 64), \"float32\"), B: T.Buffer((64, 128), \"float32\"), "
              "C: T.Buffer((128, 128), \"float32\")):\n"
              "    for i, j, k in T.grid(128, 128, 64):\n"
              "        with T.sblock(\"update\"):\n"
              "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
              "            T.reads(A[vi, vk], B[vk, vj])\n"
              "            T.writes(C[vi, vj])\n"
              "            with T.init():\n"
              "                C[vi, vj] = T.float32(0.0)\n"
              "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]",
              __LINE__);
}

TEST(literals) {
  EXPECT(tvm_tir_int(7), "7");
  EXPECT(tvm_tir_int(-3), "-3");
  EXPECT(tvm_tir_i64(128), "T.int64(128)");
  EXPECT(tvm_tir_const(TVM_TIR_UINT8, 255), "T.uint8(255)");
  EXPECT(tvm_tir_bool(true), "T.bool(True)");
  EXPECT(tvm_tir_f32(1), "T.float32(1.0)");
  EXPECT(tvm_tir_f32(0.1), "T.float32(0.1)");
  EXPECT(tvm_tir_f64(2.5), "T.float64(2.5)");
  EXPECT(tvm_tir_f32(100000), "T.float32(100000.0)");
  EXPECT(tvm_tir_f64(1e20), "T.float64(1e+20)");
  EXPECT(tvm_tir_f64(-0.0), "T.float64(-0.0)");
  EXPECT(tvm_tir_f32(1.0 / 0.0), "T.float32(\"inf\")");
  EXPECT(tvm_tir_str("a\"b\n"), "\"a\\\"b\\n\"");
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  opts.verbose_literals = true;
  expect_opts(tvm_tir_int(7), &opts, "T.int32(7)", __LINE__);
}

TEST(free_variables_are_declared_first) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT64);
  EXPECT(tvm_tir_add_take(ref(x), tvm_tir_int(1)), "x = T.int32()\nx + 1");
  EXPECT(tvm_tir_mul_take(ref(n), tvm_tir_i64(2)), "n = T.int64()\nn * T.int64(2)");
  EXPECT(ref(x), "x = T.int32()");
  tvm_tir_var_obj* s = tvm_tir_size_var_new("m", TVM_TIR_INT32);
  EXPECT(tvm_tir_add_take(ref(s), ref(x)), "m = T.int32(is_size_var=True)\nx = T.int32()\nm + x");
  tvm_tir_var_obj* p = tvm_tir_ptr_var("p", TVM_TIR_FLOAT16, "shared");
  EXPECT(ref(p), "p = T.handle(\"float16\", \"shared\")");
  /* Two distinct variables with one name get distinct names. */
  tvm_tir_var_obj* x2 = tvm_tir_var("x", TVM_TIR_INT32);
  EXPECT(tvm_tir_add_take(ref(x), ref(x2)), "x = T.int32()\nx_1 = T.int32()\nx + x_1");
  tvm_ffi_release(x);
  tvm_ffi_release(x2);
  tvm_ffi_release(n);
  tvm_ffi_release(s);
  tvm_ffi_release(p);
}

TEST(operators_and_precedence) {
  tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_INT32);
  tvm_tir_var_obj* b = tvm_tir_var("b", TVM_TIR_INT32);
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  const char* decl = "a = T.int32()\nb = T.int32()\n";
  char want[256];
#define WANT(text) (snprintf(want, sizeof(want), "%s%s", decl, text), want)
  EXPECT(tvm_tir_mul_take(tvm_tir_add_take(ref(a), ref(b)), ref(a)), WANT("(a + b) * a"));
  EXPECT(tvm_tir_sub_take(ref(a), tvm_tir_sub_take(ref(b), ref(a))), WANT("a - (b - a)"));
  EXPECT(tvm_tir_sub_take(tvm_tir_sub_take(ref(a), ref(b)), ref(a)), WANT("a - b - a"));
  EXPECT(tvm_tir_binary_take(TVM_TIR_KIND_Div, ref(a), ref(b)), WANT("T.Div(a, b)"));
  EXPECT(tvm_tir_binary_take(TVM_TIR_KIND_Mod, ref(a), ref(b)), WANT("T.truncmod(a, b)"));
  EXPECT(tvm_tir_floordiv_take(ref(a), tvm_tir_add_take(ref(b), tvm_tir_int(1))),
         WANT("a // (b + 1)"));
  EXPECT(tvm_tir_floormod_take(ref(a), ref(b)), WANT("a % b"));
  EXPECT(tvm_tir_min_take(ref(a), ref(b)), WANT("T.min(a, b)"));
  EXPECT(tvm_tir_max_take(ref(a), ref(b)), WANT("T.max(a, b)"));
  EXPECT(tvm_tir_and_take(tvm_tir_lt_take(ref(a), ref(b)),
                          tvm_tir_or_take(tvm_tir_ge_take(ref(a), tvm_tir_int(0)),
                                          tvm_tir_ne_take(ref(b), tvm_tir_int(2)))),
         WANT("a < b and (a >= 0 or b != 2)"));
  EXPECT(tvm_tir_not_take(tvm_tir_eq_take(ref(a), ref(b))), WANT("not a == b"));
  EXPECT(tvm_tir_eq_take(tvm_tir_le_take(ref(a), ref(b)), tvm_tir_gt_take(ref(b), ref(a))),
         WANT("(a <= b) == (b > a)"));
  /* Constant operands keep their node: infix text would fold. */
  tvm_tir_expr_obj *one = tvm_tir_int(1), *two = tvm_tir_int(2);
  EXPECT(tvm_tir_binary_new(TVM_TIR_KIND_Add, one, two), "T.Add(1, 2)");
  tvm_ffi_release(one);
  tvm_ffi_release(two);
  EXPECT(tvm_tir_div_take(ref(f), tvm_tir_f32(2)), "f = T.float32()\nf / T.float32(2.0)");
  EXPECT(tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(a)), "a = T.int32()\nT.Cast(\"float32\", a)");
  EXPECT(tvm_tir_select_take(tvm_tir_lt_take(ref(a), ref(b)), ref(a), ref(b)),
         WANT("T.Select(a < b, a, b)"));
  tvm_tir_expr_obj* cond = tvm_tir_lt_take(ref(a), ref(b));
  EXPECT(tvm_tir_if_then_else(cond, &a->expr, &b->expr), WANT("T.if_then_else(a < b, a, b)"));
  tvm_ffi_release(cond);
  EXPECT(tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", ref(f)), "f = T.float32()\nT.exp(f)");
  EXPECT(tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("abs"), ref(a)),
         "a = T.int32()\nT.call_extern(\"int32\", \"abs\", a)");
  /* A dtype the op's rule would not give is written as dtype= (it reads back as given) */
  EXPECT(tvm_tir_call_take(TVM_TIR_BOOL, "tir.tvm_call_packed", tvm_tir_str("f"), ref(a)),
         "a = T.int32()\nT.tvm_call_packed(\"f\", a, dtype=\"bool\")");
  EXPECT(tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_call_packed", tvm_tir_str("f"), ref(a)),
         "a = T.int32()\nT.tvm_call_packed(\"f\", a)");
  EXPECT(tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.undef"), "T.undef(dtype=\"float32\")");
  EXPECT(tvm_tir_ramp_take(ref(a), tvm_tir_int(1), 4), "a = T.int32()\nT.Ramp(a, 1, 4)");
  EXPECT(tvm_tir_broadcast_take(ref(f), 4), "f = T.float32()\nT.Broadcast(f, 4)");
  tvm_tir_var_obj* v = tvm_tir_var("v", TVM_TIR_INT32);
  EXPECT(tvm_tir_let_take(ref(v), tvm_tir_int(1), tvm_tir_add_take(ref(v), ref(a))),
         "v = T.int32()\na = T.int32()\nT.Let(v + a, where={v: 1})");
  void* vecs = tvm_tir_list_take(tvm_tir_broadcast_take(ref(a), 2), tvm_tir_broadcast_take(ref(b), 2));
  void* idx = tvm_tir_list_take(tvm_tir_int(0), tvm_tir_int(3), tvm_tir_int(1), tvm_tir_int(2));
  EXPECT(tvm_tir_shuffle_new(vecs, idx),
         WANT("T.Shuffle([T.Broadcast(a, 2), T.Broadcast(b, 2)], [0, 3, 1, 2])"));
  tvm_ffi_release(vecs);
  tvm_ffi_release(idx);
#undef WANT
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  tvm_ffi_release(f);
  tvm_ffi_release(v);
}

TEST(buffers_and_stores) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 128, 128);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  EXPECT(ref(A), "A = T.Buffer((128, 128), \"float32\")");
  EXPECT(tvm_tir_store_take(ref(A), tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(i), ref(i)),
                                                     tvm_tir_f32(1)),
                            ref(i), tvm_tir_int(0)),
         "A = T.Buffer((128, 128), \"float32\")\ni = T.int32()\n"
         "A[i, 0] = A[i, i] + T.float32(1.0)");
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT64);
  void* shape[] = {ref(n)};
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl_takev("S", TVM_TIR_FLOAT16, 1, shape, "shared");
  EXPECT(ref(S), "n = T.int64()\nS = T.Buffer((n,), \"float16\", scope=\"shared\")");
  tvm_ffi_release(A);
  tvm_ffi_release(S);
  tvm_ffi_release(i);
  tvm_ffi_release(n);
}

TEST(loops) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 64);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* store = tvm_tir_store_take(ref(A), tvm_tir_f32(0), ref(i));
  const char* decl = "A = T.Buffer((64,), \"float32\")\n";
  char want[512];
#define WANT(text) (snprintf(want, sizeof(want), "%s%s", decl, text), want)
  EXPECT(tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(64), ref(store)),
         WANT("for i in range(64):\n    A[i] = T.float32(0.0)"));
  EXPECT(tvm_tir_serial_take(ref(i), tvm_tir_int(2), tvm_tir_int(62), ref(store)),
         WANT("for i in range(2, 64):\n    A[i] = T.float32(0.0)"));
  EXPECT(tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(64), TVM_TIR_FOR_PARALLEL, ref(store)),
         WANT("for i in T.parallel(64):\n    A[i] = T.float32(0.0)"));
  EXPECT(tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(64), TVM_TIR_FOR_VECTORIZED, ref(store)),
         WANT("for i in T.vectorized(64):\n    A[i] = T.float32(0.0)"));
  EXPECT(tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(64), TVM_TIR_FOR_UNROLLED, ref(store)),
         WANT("for i in T.unroll(64):\n    A[i] = T.float32(0.0)"));
  tvm_tir_iter_var_obj* tx = tvm_tir_iter_var_new(NULL, i, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  tvm_tir_expr_obj *zero = tvm_tir_int(0), *ext = tvm_tir_int(64);
  EXPECT(tvm_tir_for_new(i, zero, ext, TVM_TIR_FOR_THREAD_BINDING, store, tx, NULL),
         WANT("for i in T.thread_binding(64, thread=\"threadIdx.x\"):\n    A[i] = T.float32(0.0)"));
  tvm_ffi_release(tx);
  tvm_ffi_release(zero);
  tvm_ffi_release(ext);
  /* A grid stops at a loop whose extent uses an outer loop variable. */
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* inner = tvm_tir_store_take(ref(A), tvm_tir_f32(1), tvm_tir_add_take(ref(i), ref(k)));
  EXPECT(tvm_tir_serial_take(
             ref(i), tvm_tir_int(0), tvm_tir_int(4),
             tvm_tir_serial_take(ref(j), tvm_tir_int(0), tvm_tir_int(4),
                                 tvm_tir_serial_take(ref(k), tvm_tir_int(0), ref(j), inner))),
         WANT("for i, j in T.grid(4, 4):\n    for k in range(j):\n        A[i + k] = T.float32(1.0)"));
  EXPECT(tvm_tir_while_take(tvm_tir_lt_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_f32(1)),
                            tvm_tir_store_take(ref(A), tvm_tir_f32(1), tvm_tir_int(0))),
         WANT("while A[0] < T.float32(1.0):\n    A[0] = T.float32(1.0)"));
#undef WANT
  tvm_ffi_release(store);
  tvm_ffi_release(A);
  tvm_ffi_release(i);
  tvm_ffi_release(j);
  tvm_ffi_release(k);
}

TEST(scoped_statements) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 8);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  const char* decl = "A = T.Buffer((8,), \"int32\")\n";
  char want[512];
#define WANT(text) (snprintf(want, sizeof(want), "%s%s", decl, text), want)
  /* Last statement of its body: concise. */
  EXPECT(tvm_tir_let_stmt_take(ref(x), tvm_tir_int(3), tvm_tir_store_take(ref(A), ref(x), tvm_tir_int(0))),
         "A = T.Buffer((8,), \"int32\")\nx: T.int32 = 3\nA[0] = x");
  /* Not the last one: a with block. */
  void* let = tvm_tir_let_stmt_take(ref(x), tvm_tir_int(3), tvm_tir_store_take(ref(A), ref(x), tvm_tir_int(0)));
  EXPECT(tvm_tir_seq_take(let, tvm_tir_store_take(ref(A), tvm_tir_int(1), tvm_tir_int(1))),
         "A = T.Buffer((8,), \"int32\")\nwith T.LetStmt(3) as x:\n    A[0] = x\nA[1] = 1");
  EXPECT(tvm_tir_assert_take(tvm_tir_gt_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(0)),
                             "positive", tvm_tir_store_take(ref(A), tvm_tir_int(1), tvm_tir_int(1))),
         WANT("assert A[0] > 0, \"positive\"\nA[1] = 1"));
  EXPECT(tvm_tir_seq_take(tvm_tir_attr_take(NULL, "pragma_x", tvm_tir_int(1),
                                            tvm_tir_evaluate_take(tvm_tir_int(0))),
                          tvm_tir_evaluate_take(tvm_tir_int(1))),
         "with T.attr(None, \"pragma_x\", 1):\n    T.evaluate(0)\nT.evaluate(1)");
  tvm_tir_var_obj* buf = tvm_tir_ptr_var("buf", TVM_TIR_FLOAT32, "local");
  void* ext[] = {tvm_tir_int(16)};
  EXPECT(tvm_tir_allocate_takev(ref(buf), TVM_TIR_FLOAT32, 1, ext, tvm_tir_evaluate_take(tvm_tir_int(0))),
         "buf = T.allocate([16], \"float32\", \"local\")\nT.evaluate(0)");
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 16);
  EXPECT(tvm_tir_decl_buffer_take(ref(B), tvm_tir_store_take(ref(B), tvm_tir_f32(0), tvm_tir_int(0))),
         "B = T.decl_buffer((16,), \"float32\")\nB[0] = T.float32(0.0)");
  void* bounds = tvm_tir_list_take(tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(8)));
  tvm_tir_stmt_obj* body = tvm_tir_evaluate_take(tvm_tir_int(0));
  EXPECT(tvm_tir_buffer_realize_new(A, bounds, NULL, body),
         WANT("T.realize(A[0:8], \"\")\nT.evaluate(0)"));
  tvm_ffi_release(bounds);
  tvm_ffi_release(body);
  EXPECT(tvm_tir_if_take(tvm_tir_lt_take(ref(x), tvm_tir_int(0)),
                         tvm_tir_store_take(ref(A), tvm_tir_int(0), tvm_tir_int(0)),
                         tvm_tir_if_take(tvm_tir_eq_take(ref(x), tvm_tir_int(0)),
                                         tvm_tir_store_take(ref(A), tvm_tir_int(1), tvm_tir_int(0)),
                                         tvm_tir_store_take(ref(A), tvm_tir_int(2), tvm_tir_int(0)))),
         "x = T.int32()\nA = T.Buffer((8,), \"int32\")\n"
         "if x < 0:\n    A[0] = 0\nelif x == 0:\n    A[0] = 1\nelse:\n    A[0] = 2");
  EXPECT(tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", tvm_tir_f32(1))),
         "T.exp(T.float32(1.0))");
#undef WANT
  tvm_ffi_release(A);
  tvm_ffi_release(B);
  tvm_ffi_release(x);
  tvm_ffi_release(buf);
}

/* T.launch_thread for exactly what it builds (an IterVar over [0, extent), the key its tag
 * implies); any other thread AttrStmt prints as T.attr so that parsing rebuilds it. */
TEST(launch_thread) {
  tvm_tir_var_obj* tx = tvm_tir_var("threadIdx_x", TVM_TIR_INT32);
  tvm_tir_range_obj* dom = tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(32));
  tvm_tir_iter_var_obj* iv = tvm_tir_iter_var_new(dom, tx, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  EXPECT(tvm_tir_attr_take(ref(iv), "thread_extent", tvm_tir_int(32), tvm_tir_evaluate_take(ref(tx))),
         "threadIdx_x = T.launch_thread(\"threadIdx.x\", 32)\nT.evaluate(threadIdx_x)");
  tvm_tir_iter_var_obj* no_dom =
      tvm_tir_iter_var_new(NULL, tx, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  EXPECT(tvm_tir_attr_take(ref(no_dom), "thread_extent", tvm_tir_int(32),
                           tvm_tir_evaluate_take(ref(tx))),
         "threadIdx_x = T.int32()\n"
         "T.attr(T.iter_var(threadIdx_x, None, \"ThreadIndex\", \"threadIdx.x\"), \"thread_extent\", 32)\n"
         "T.evaluate(threadIdx_x)");
  tvm_ffi_release(iv);
  tvm_ffi_release(no_dom);
  tvm_ffi_release(dom);
  tvm_ffi_release(tx);
}

TEST(blocks_and_root) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* T_ = tvm_tir_buffer_decl("Tmp", TVM_TIR_FLOAT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  /* An iter var bound to an expression prints as T.axis.spatial. */
  void* block = tvm_tir_block_take(
      "copy", tvm_tir_list_take(tvm_tir_iter_var_take(ref(vi), tvm_tir_int(0), tvm_tir_int(16), TVM_TIR_ITER_DATA_PAR)),
      tvm_tir_list_take(tvm_tir_sub_take(tvm_tir_int(15), ref(i))),
      tvm_tir_list_take(tvm_tir_region_take(ref(T_), tvm_tir_range_take(ref(vi), tvm_tir_int(1)))),
      tvm_tir_list_take(tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vi), tvm_tir_int(1)))),
      tvm_tir_store_take(ref(A), tvm_tir_load_take(ref(T_), ref(vi)), ref(vi)));
  void* loop = tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(16), block);
  tvm_tir_sblock_fields rf = {0};
  rf.name_hint = "root";
  rf.body = loop;
  rf.alloc_buffers = tvm_tir_list_take(ref(T_));
  tvm_tir_sblock_obj* root = tvm_tir_sblock_new(&rf);
  tvm_ffi_release(rf.alloc_buffers);
  tvm_ffi_release(loop);
  void* realize = tvm_tir_sblock_realize_new(NULL, NULL, root);
  tvm_ffi_release(root);
  EXPECT(tvm_tir_func_take("f", tvm_tir_list_take(ref(A)), realize),
         "@T.prim_func\n"
         "def f(A: T.Buffer((16,), \"float32\")):\n"
         "    # with T.sblock(\"root\"):\n"
         "    Tmp = T.sblock_alloc_buffer((16,), \"float32\")\n"
         "    for i in range(16):\n"
         "        with T.sblock(\"copy\"):\n"
         "            vi = T.axis.spatial(16, 15 - i)\n"
         "            T.reads(Tmp[vi])\n"
         "            T.writes(A[vi])\n"
         "            A[vi] = Tmp[vi]");
  /* A bare block (no realize). */
  tvm_tir_sblock_fields bf = {0};
  bf.name_hint = "";
  bf.body = tvm_tir_evaluate_take(tvm_tir_int(0));
  EXPECT(tvm_tir_sblock_new(&bf),
         "with T.sblock(\"\", no_realize=True):\n    T.reads()\n    T.writes()\n    T.evaluate(0)");
  tvm_ffi_release(bf.body);
  tvm_ffi_release(A);
  tvm_ffi_release(T_);
  tvm_ffi_release(i);
  tvm_ffi_release(vi);
}

TEST(other_nodes) {
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  EXPECT(tvm_tir_range_take(tvm_tir_int(2), tvm_tir_int(6)), "I.Range(2, 8)");
  EXPECT(tvm_tir_iter_var_take(tvm_tir_ref(i), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_ITER_COMM_REDUCE),
         "i = T.int32()\nT.iter_var(i, I.Range(0, 4), \"CommReduce\", \"\")");
  EXPECT(tvm_tir_op_get("tir.exp"), "T.exp");
  EXPECT(tvm_tir_global_var_new("f"), "I.GlobalVar(\"f\")");
  EXPECT(tvm_tir_prim_type_new(TVM_TIR_FLOAT16), "T.float16");
  EXPECT(tvm_tir_pointer_type_of(TVM_TIR_INT8, NULL), "T.handle(\"int8\")");
  EXPECT(tvm_tir_tuple_type_new(NULL), "None");
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16, 16);
  EXPECT(tvm_tir_region_take(tvm_tir_ref(A), tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(16)),
                             tvm_tir_range_take(tvm_tir_ref(i), tvm_tir_int(1))),
         "A = T.Buffer((16, 16), \"float32\")\ni = T.int32()\nA[0:16, i]");
  tvm_ffi_release(A);
  tvm_ffi_release(i);
}

TEST(block_details) {
  /* A reduce axis over a shifted domain, a predicate, annotations and a matched sub-buffer. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl("S", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* vk = tvm_tir_var("vk", TVM_TIR_INT32);
  tvm_tir_iter_var_obj* iv =
      tvm_tir_iter_var_take(tvm_tir_ref(vk), tvm_tir_int(4), tvm_tir_int(8), TVM_TIR_ITER_COMM_REDUCE);
  void* region = tvm_tir_region_take(tvm_tir_ref(A), tvm_tir_range_take(tvm_tir_ref(vk), tvm_tir_int(4)));
  tvm_tir_match_buffer_region_obj* m = tvm_tir_match_buffer_region_new(S, region);
  TVMFFIAny key = tvm_ffi_string("pragma"), val = tvm_ffi_any_int(1);
  tvm_tir_sblock_fields bf = {0};
  bf.name_hint = "b";
  bf.iter_vars = tvm_tir_list_take(tvm_tir_ref(iv));
  bf.match_buffers = tvm_tir_list_take(tvm_tir_ref(m));
  bf.annotations = tvm_ffi_map_new(&key, &val, 1);
  bf.body = tvm_tir_store_take(tvm_tir_ref(S), tvm_tir_f32(0), tvm_tir_int(0));
  tvm_tir_sblock_obj* block = tvm_tir_sblock_new(&bf);
  void* values = tvm_tir_list_take(tvm_tir_add_take(tvm_tir_ref(k), tvm_tir_int(4)));
  tvm_tir_expr_obj* pred = tvm_tir_lt_take(tvm_tir_ref(k), tvm_tir_int(6));
  tvm_tir_stmt_obj* realize = block ? tvm_tir_sblock_realize_new(values, pred, block) : NULL;
  EXPECT(tvm_tir_serial_take(tvm_tir_ref(k), tvm_tir_int(0), tvm_tir_int(8), realize),
         "A = T.Buffer((16,), \"float32\")\n"
         "for k in range(8):\n"
         "    with T.sblock(\"b\"):\n"
         "        vk = T.axis.reduce((4, 12), k + 4)\n"
         "        T.where(k < 6)\n"
         "        T.reads()\n"
         "        T.writes()\n"
         "        T.sblock_attr({\"pragma\": 1})\n"
         "        S = T.match_buffer(A[vk:vk + 4], (4,), \"float32\")\n"
         "        S[0] = T.float32(0.0)");
  tvm_ffi_any_release(&key);
  tvm_ffi_release(bf.iter_vars);
  tvm_ffi_release(bf.match_buffers);
  tvm_ffi_release(bf.annotations);
  tvm_ffi_release(bf.body);
  tvm_ffi_release(block);
  tvm_ffi_release(values);
  tvm_ffi_release(pred);
  tvm_ffi_release(m);
  tvm_ffi_release(region);
  tvm_ffi_release(iv);
  tvm_ffi_release(A);
  tvm_ffi_release(S);
  tvm_ffi_release(k);
  tvm_ffi_release(vk);
}

TEST(function_forms) {
  /* Symbolic shape: match_buffer after the declaration of n; private; attributes; return. */
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  void* shape[] = {ref(n)};
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, shape, NULL);
  void* body = tvm_tir_store_take(ref(A), tvm_tir_f32(0), tvm_tir_int(0));
  tvm_tir_prim_func_obj* f = tvm_tir_func_take(NULL, tvm_tir_list_take(ref(A)), body);
  TVMFFIAny v = tvm_ffi_any_bool(true);
  tvm_tir_prim_func_obj* g = f ? tvm_tir_prim_func_with_attr(f, "tir.noalias", &v) : NULL;
  tvm_ffi_release(f);
  EXPECT(g,
         "@T.prim_func(private=True)\n"
         "def main(A_handle: T.handle):\n"
         "    T.func_attr({\"tir.noalias\": True})\n"
         "    n = T.int32()\n"
         "    A = T.match_buffer(A_handle, (n,), \"float32\")\n"
         "    A[0] = T.float32(0.0)");
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  void* ret = tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_INT32, "tir.ret", tvm_tir_add_take(ref(x), tvm_tir_int(1))));
  EXPECT(tvm_tir_func_take("inc", tvm_tir_list_take(ref(x)), ret),
         "@T.prim_func\ndef inc(x: T.int32) -> T.int32:\n    T.ret(x + 1)");
  tvm_ffi_release(n);
  tvm_ffi_release(A);
  tvm_ffi_release(x);
}

TEST(half_precision_literals_print_shortest) {
  /* float16 / bfloat16 values print as the shortest text that reads back to the same value of
   * that type, not as their exact decimal expansion. */
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 0.0999755859375), "T.float16(0.1)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 0.333251953125), "T.float16(0.3333)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT16, -3.140625), "T.float16(-3.14)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 5.9604644775390625e-08), "T.float16(6e-08)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 65504), "T.float16(65504.0)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 0.1), "T.float16(0.1)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_BFLOAT16, 0.10009765625), "T.bfloat16(0.1)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_BFLOAT16, 0.333984375), "T.bfloat16(0.334)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_BFLOAT16, 3.140625), "T.bfloat16(3.14)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_BFLOAT16, 0.00099945068359375), "T.bfloat16(0.001)");
  /* float32 / float64 store a double and print it exactly (as upstream), so that the parser
   * reads back the same value: 0.1 stays short, a value rounded to float32 shows its digits. */
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT32, 0.333251953125), "T.float32(0.333251953125)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT32, 0.1), "T.float32(0.1)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT32, (double)0.1f), "T.float32(0.10000000149011612)");
  EXPECT(tvm_tir_float_imm_new(TVM_TIR_FLOAT64, 0.333251953125), "T.float64(0.333251953125)");
}

/* A buffer over a fresh data pointer with the given strides / elem_offset (borrowed). */
static tvm_tir_buffer_obj* strided_buffer(const char* name, void* shape, void* strides,
                                          void* elem_offset, int32_t offset_factor) {
  tvm_tir_buffer_obj* base = tvm_tir_buffer_decl_new(name, TVM_TIR_FLOAT32, NULL, NULL);
  tvm_tir_buffer_fields bf = {0};
  bf.data = base ? base->data : NULL;
  bf.dtype = TVM_TIR_FLOAT32;
  bf.shape = shape;
  bf.strides = strides;
  bf.elem_offset = elem_offset;
  bf.name = name;
  bf.offset_factor = offset_factor;
  tvm_tir_buffer_obj* buf = base ? tvm_tir_buffer_new(&bf) : NULL;
  tvm_ffi_release(base);
  return buf;
}

TEST(buffer_strides_and_elem_offset_defined_by_the_buffer) {
  /* Stride and offset variables first seen in a buffer's declaration are defined through it
   * (`A.strides[0]`, `A.elem_offset`): the strides print as the variables' names and
   * offset_factor is always printed (upstream BufferAttrs). */
  tvm_tir_var_obj* s0 = tvm_tir_var("s0", TVM_TIR_INT32);
  tvm_tir_var_obj* s1 = tvm_tir_var("s1", TVM_TIR_INT32);
  tvm_tir_var_obj* off = tvm_tir_var("off", TVM_TIR_INT32);
  void* shape = tvm_tir_list_take(tvm_tir_int(16), tvm_tir_int(16));
  void* strides = tvm_tir_list_take(ref(s0), ref(s1));
  tvm_tir_buffer_obj* A = strided_buffer("A", shape, strides, off, 1);
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(A), tvm_tir_f32(0), tvm_tir_int(0), tvm_tir_int(1)),
      tvm_tir_evaluate_take(tvm_tir_add_take(tvm_tir_mul_take(ref(s0), tvm_tir_int(2)), ref(off))));
  EXPECT(tvm_tir_func_take("f", tvm_tir_list_take(ref(A)), body),
         "@T.prim_func\n"
         "def f(A_handle: T.handle):\n"
         "    A = T.match_buffer(A_handle, (16, 16), \"float32\", strides=(\"s0\", \"s1\"), "
         "offset_factor=1)\n"
         "    A[0, 1] = T.float32(0.0)\n"
         "    T.evaluate(A.strides[0] * 2 + A.elem_offset)");
  /* A free buffer: the same, with a non-default offset factor. */
  EXPECT(ref(A), "A = T.Buffer((16, 16), \"float32\", strides=(\"s0\", \"s1\"), offset_factor=1)");
  tvm_tir_buffer_obj* B = strided_buffer("B", shape, strides, off, 4);
  EXPECT(ref(B), "B = T.Buffer((16, 16), \"float32\", strides=(\"s0\", \"s1\"), offset_factor=4)");
  /* A variable used twice in the buffer, or already defined, is declared on its own line and
   * printed by name. */
  void* shape_n = tvm_tir_list_take(ref(s1), tvm_tir_int(8));
  void* strides_ss = tvm_tir_list_take(ref(s0), ref(s0));
  tvm_tir_buffer_obj* C = strided_buffer("C", shape_n, strides_ss, s1, 1);
  EXPECT(ref(C),
         "s1 = T.int32()\ns0 = T.int32()\n"
         "C = T.Buffer((s1, 8), \"float32\", strides=(s0, s0), elem_offset=s1)");
  /* In a block's match_buffer, as used by tensor intrinsics. */
  tvm_tir_buffer_obj* G = tvm_tir_buffer_decl("G", TVM_TIR_FLOAT32, 16, 16);
  void* shape4 = tvm_tir_list_take(tvm_tir_int(4), tvm_tir_int(4));
  void* strides_s1 = tvm_tir_list_take(ref(s0), tvm_tir_int(1));
  tvm_tir_buffer_obj* S = strided_buffer("S", shape4, strides_s1, off, 1);
  void* region = tvm_tir_region_take(ref(G), tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(4)),
                                     tvm_tir_range_take(tvm_tir_int(4), tvm_tir_int(4)));
  tvm_tir_match_buffer_region_obj* m = tvm_tir_match_buffer_region_new(S, region);
  tvm_tir_sblock_fields bf = {0};
  bf.name_hint = "tile";
  bf.match_buffers = tvm_tir_list_take(ref(m));
  bf.body = tvm_tir_evaluate_take(tvm_tir_add_take(ref(s0), ref(off)));
  tvm_tir_sblock_obj* block = tvm_tir_sblock_new(&bf);
  EXPECT(block ? tvm_tir_sblock_realize_new(NULL, NULL, block) : NULL,
         "G = T.Buffer((16, 16), \"float32\")\n"
         "with T.sblock(\"tile\"):\n"
         "    T.reads()\n"
         "    T.writes()\n"
         "    S = T.match_buffer(G[0:4, 4:8], (4, 4), \"float32\", strides=(\"s0\", 1), "
         "offset_factor=1)\n"
         "    T.evaluate(S.strides[0] + S.elem_offset)");
  tvm_ffi_release(bf.match_buffers);
  tvm_ffi_release(bf.body);
  tvm_ffi_release(block);
  tvm_ffi_release(m);
  tvm_ffi_release(region);
  tvm_ffi_release(shape4);
  tvm_ffi_release(strides_s1);
  tvm_ffi_release(S);
  tvm_ffi_release(G);
  tvm_ffi_release(shape_n);
  tvm_ffi_release(strides_ss);
  tvm_ffi_release(C);
  tvm_ffi_release(B);
  tvm_ffi_release(shape);
  tvm_ffi_release(strides);
  tvm_ffi_release(A);
  tvm_ffi_release(s0);
  tvm_ffi_release(s1);
  tvm_ffi_release(off);
}

TEST(handle_used_in_body_is_matched_in_body) {
  /* A handle parameter used anywhere besides buffer_map keeps `a: T.handle` and its buffer is
   * matched in the body (upstream: CountVarOccurrence(func, param) == 2 to inline). */
  tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_HANDLE);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  TVMFFIAny key = tvm_ffi_any_obj(a), val = tvm_ffi_any_obj(A);
  void* buffer_map = tvm_ffi_map_new(&key, &val, 1);
  void* params = tvm_tir_list_take(ref(a));
  tvm_tir_stmt_obj* store = tvm_tir_store_take(ref(A), tvm_tir_f32(0), tvm_tir_int(0));
  tvm_tir_stmt_obj* used = tvm_tir_seq_take(tvm_tir_evaluate_take(ref(a)), ref(store));
  EXPECT(tvm_tir_prim_func_new(params, used, NULL, buffer_map, NULL),
         "@T.prim_func(private=True)\n"
         "def main(a: T.handle):\n"
         "    A = T.match_buffer(a, (16,), \"float32\")\n"
         "    T.evaluate(a)\n"
         "    A[0] = T.float32(0.0)");
  /* Not used in the body: the buffer goes in the signature. */
  EXPECT(tvm_tir_prim_func_new(params, store, NULL, buffer_map, NULL),
         "@T.prim_func(private=True)\n"
         "def main(A: T.Buffer((16,), \"float32\")):\n"
         "    A[0] = T.float32(0.0)");
  tvm_ffi_release(used);
  tvm_ffi_release(store);
  tvm_ffi_release(params);
  tvm_ffi_release(buffer_map);
  tvm_ffi_release(A);
  tvm_ffi_release(a);
}

/* A DeclBuffer that defines its data variable prints it as `lhs.data` (no data=) only when
 * the parser makes that variable again: a pointer to the buffer's dtype. A pointer to another
 * type is declared and passed as data= (fuzz_parse_ir found the int63 pointer of a bare
 * `p: T.handle("int63")` lost). */
TEST(decl_buffer_data_of_another_type) {
  tvm_tir_pointer_type_obj* i8p = tvm_tir_pointer_type_of(TVM_TIR_INT8, NULL);
  tvm_tir_var_obj* p = tvm_tir_var_new_typed("p", &i8p->type);
  tvm_ffi_release(i8p);
  tvm_tir_buffer_fields f;
  memset(&f, 0, sizeof(f));
  f.data = p;
  f.dtype = TVM_TIR_FLOAT32;
  f.shape = tvm_tir_list_take(tvm_tir_int(4));
  f.name = "B";
  tvm_tir_buffer_obj* B = tvm_tir_buffer_new(&f);
  tvm_ffi_release(f.shape);
  tvm_tir_stmt_obj* store = tvm_tir_store_take(ref(B), tvm_tir_f32(0), tvm_tir_int(0));
  void* body = tvm_tir_decl_buffer_take(ref(B), store);
  EXPECT(tvm_tir_prim_func_new(NULL, body, NULL, NULL, NULL),
         "@T.prim_func(private=True)\n"
         "def main():\n"
         "    p = T.handle(\"int8\")\n"
         "    B = T.decl_buffer((4,), \"float32\", data=p)\n"
         "    B[0] = T.float32(0.0)");
  tvm_ffi_release(body);
  tvm_ffi_release(B);
  tvm_ffi_release(p);
  /* Its own dtype: defined by the buffer. */
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, 4);
  store = tvm_tir_store_take(ref(C), tvm_tir_f32(0), tvm_tir_int(0));
  body = tvm_tir_decl_buffer_take(ref(C), store);
  EXPECT(tvm_tir_prim_func_new(NULL, body, NULL, NULL, NULL),
         "@T.prim_func(private=True)\n"
         "def main():\n"
         "    C = T.decl_buffer((4,), \"float32\")\n"
         "    C[0] = T.float32(0.0)");
  tvm_ffi_release(body);
  tvm_ffi_release(C);
}

TEST(module_with_cls) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_prim_func_obj* inc = tvm_tir_func_take(
      "inc", tvm_tir_list_take(ref(x)),
      tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_INT32, "tir.ret", tvm_tir_add_take(ref(x), tvm_tir_int(1)))));
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("inc");
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  void* call = tvm_tir_call_global_takev(TVM_TIR_INT32, ref(gv), 1, (void*[]){ref(y)});
  tvm_tir_prim_func_obj* main_f = tvm_tir_func_take("main", tvm_tir_list_take(ref(y)),
                                                    tvm_tir_evaluate_take(call));
  tvm_tir_ir_module_obj* mod = tvm_tir_module_take(main_f);
  tvm_tir_ir_module_obj* mod2 = mod ? tvm_tir_ir_module_add(mod, gv, inc) : NULL;
  tvm_ffi_release(mod);
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  expect_opts(mod2, &opts,
              "# from tvm.script import ir as I\n"
              "# from tvm.script import tirx as T\n"
              "\n"
              "@I.ir_module\n"
              "class Module:\n"
              "    @T.prim_func\n"
              "    def inc(x: T.int32) -> T.int32:\n"
              "        T.ret(x + 1)\n"
              "\n"
              "    @T.prim_func\n"
              "    def main(y: T.int32):\n"
              "        cls = Module\n"
              "        cls.inc(y)",
              __LINE__);
  /* Module attributes come first in the class body. */
  tvm_tir_ir_module_obj* m1 = tvm_tir_module_take(tvm_tir_ref(inc));
  TVMFFIAny k = tvm_ffi_string("target"), v = tvm_ffi_string("llvm");
  void* attrs = tvm_ffi_map_new(&k, &v, 1);
  tvm_ffi_any_release(&k);
  tvm_ffi_any_release(&v);
  EXPECT(m1 && attrs ? tvm_tir_ir_module_new(m1->functions, attrs) : NULL,
         "@I.ir_module\n"
         "class Module:\n"
         "    I.module_attrs({\"target\": \"llvm\"})\n"
         "    @T.prim_func\n"
         "    def inc(x: T.int32) -> T.int32:\n"
         "        T.ret(x + 1)");
  tvm_ffi_release(attrs);
  tvm_ffi_release(m1);
  tvm_ffi_release(inc);
  tvm_ffi_release(gv);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
}

TEST(errors_are_raised_not_crashes) {
  CHECK(tvm_script_print(NULL, NULL) == NULL);
  CHECK_RAISED("ValueError", "NULL");
  void* shape = tvm_ffi_shape_new((int64_t[]){1, 2}, 2);
  CHECK(tvm_script_print_obj(shape, NULL) == NULL);
  CHECK_RAISED("TypeError", "no converter for `ffi.Shape`");
  tvm_ffi_release(shape);
  tvm_ffi_strbuf out = {0};
  CHECK(tvm_script_doc_to_python(NULL, NULL, &out) != 0);
  CHECK_RAISED("TypeError", "expected a Doc");
  /* An unprintable value deep inside a function: the error comes back, nothing leaks. */
  void* sh = tvm_ffi_shape_new((int64_t[]){4}, 1);
  TVMFFIAny node = tvm_ffi_any_obj(sh);
  tvm_tir_expr_obj* one = tvm_tir_int(1);
  tvm_tir_stmt_obj* ev = tvm_tir_evaluate_take(tvm_tir_int(0));
  tvm_tir_stmt_obj* attr = tvm_tir_attr_stmt_new(&node, "k", one, ev);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_int(0), tvm_tir_int(4),
                                                    tvm_tir_ref(attr)),
                                tvm_tir_evaluate_take(tvm_tir_int(1)));
  tvm_tir_prim_func_obj* f = tvm_tir_func_take("f", NULL, body);
  CHECK(f != NULL);
  tvm_script_print_options uopts;
  tvm_script_print_options_init(&uopts);
  void* root = tvm_ffi_access_path_root();
  const void* ups[] = {root};
  uopts.underline_paths = ups;
  uopts.num_underline_paths = 1;
  CHECK(tvm_script_print_obj(f, NULL) == NULL);
  CHECK_RAISED("TypeError", "no converter for `ffi.Shape`");
  CHECK(tvm_script_print_obj(f, &uopts) == NULL);
  CHECK_RAISED("TypeError", "no converter for `ffi.Shape`");
  tvm_ffi_release(root);
  tvm_ffi_release(f);
  tvm_ffi_release(i);
  tvm_ffi_release(attr);
  tvm_ffi_release(ev);
  tvm_ffi_release(one);
  tvm_ffi_release(sh);
  /* IR nested deeper than the printer's limit is refused, not a stack overflow. */
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  void* e = tvm_tir_ref(x);
  for (int k = 0; e && k < 3000; ++k) e = tvm_tir_add_take(e, tvm_tir_ref(x));
  CHECK(e != NULL);
  CHECK(tvm_script_print_obj(e, NULL) == NULL);
  CHECK_RAISED("RuntimeError", "nested deeper than");
  tvm_ffi_release(e);
  tvm_ffi_release(x);
  tvm_ffi_strbuf_free(&out);
}

TEST(large_function_prints_in_one_pass) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_large_func(2000);
  tvm_ffi_strbuf out = {0};
  TVMFFIAny fa = tvm_ffi_any_obj(f);
  CHECK_OK(tvm_script_print_to(&fa, NULL, &out));
  CHECK(out.size > 0);
  CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&out), "    for j1999 in range(8):\n");
  CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&out), "    with T.LetStmt(1992) as t1992:\n");
  tvm_ffi_strbuf_free(&out);
  tvm_ffi_release(f);
}

int main(void) {
  RUN(matmul_function_with_header);
  RUN(literals);
  RUN(free_variables_are_declared_first);
  RUN(operators_and_precedence);
  RUN(buffers_and_stores);
  RUN(loops);
  RUN(scoped_statements);
  RUN(launch_thread);
  RUN(blocks_and_root);
  RUN(other_nodes);
  RUN(block_details);
  RUN(function_forms);
  RUN(half_precision_literals_print_shortest);
  RUN(buffer_strides_and_elem_offset_defined_by_the_buffer);
  RUN(handle_used_in_body_is_matched_in_body);
  RUN(decl_buffer_data_of_another_type);
  RUN(module_with_cls);
  RUN(errors_are_raised_not_crashes);
  RUN(large_function_prints_in_one_pass);
  return test_summary();
}

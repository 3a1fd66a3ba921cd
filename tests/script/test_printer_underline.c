/* test_printer_underline.c: underlined diagnostics (access paths -> ^ marks) and the structural
 * mismatch report. */
#include <stdlib.h>
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

#include "test_util.h"
#include "tir_testing.h"

/* <root>.a.b.c... where a name in brackets "[3]" is an array item. */
static void* path_of(const char* const* steps, int n) {
  void* p = tvm_ffi_access_path_root();
  for (int i = 0; p && i < n; ++i) {
    void* q = steps[i][0] == '[' ? tvm_ffi_access_path_item(p, atoi(steps[i] + 1))
                                 : tvm_ffi_access_path_attr(p, steps[i]);
    tvm_ffi_release(p);
    p = q;
  }
  return p;
}
#define PATH(...) \
  path_of((const char* const[]){__VA_ARGS__}, (int)(sizeof((const char*[]){__VA_ARGS__}) / sizeof(char*)))

static void expect_underlined(const void* obj, const void* const* paths, int n, bool line_numbers,
                              int64_t context, const char* expected, int line) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  opts.underline_paths = paths;
  opts.num_underline_paths = n;
  opts.line_numbers = line_numbers;
  opts.context_lines = context;
  void* s = tvm_script_print_obj(obj, &opts);
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
}

static const char* k_matmul_head =
    "@T.prim_func\n"
    "def matmul(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\"), "
    "C: T.Buffer((16, 16), \"float32\")):\n";

/* The path of the update statement C[vi, vj] = ... inside the three loops and the block. */
#define UPDATE "body", "body", "body", "body", "block", "body"

TEST(single_path_inside_nested_loops) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 16, 16, 16);
  void* p = PATH(UPDATE, "value", "b");
  const void* ps[] = {p};
  char want[1024];
  snprintf(want, sizeof(want), "%s%s", k_matmul_head,
           "    for i, j, k in T.grid(16, 16, 16):\n"
           "        with T.sblock(\"update\"):\n"
           "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
           "            T.reads(A[vi, vk], B[vk, vj])\n"
           "            T.writes(C[vi, vj])\n"
           "            with T.init():\n"
           "                C[vi, vj] = T.float32(0.0)\n"
           "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
           "                                    ^^^^^^^^^^^^^^^^^^^^^");
  expect_underlined(f, ps, 1, false, -1, want, __LINE__);
  tvm_ffi_release(p);
  tvm_ffi_release(f);
}

TEST(multiple_paths_with_line_numbers_and_context) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 16, 16, 16);
  /* The write region, and a path deeper than any doc (the deepest printed prefix is marked:
   * here the buffer `A` of the load A[vi, vk]). */
  void* p1 = PATH("body", "body", "body", "body", "block", "writes", "[0]");
  void* p2 = PATH(UPDATE, "value", "b", "a", "buffer", "name");
  const void* ps[] = {p1, p2};
  expect_underlined(f, ps, 2, true, 0, 
                    "(... 6 lines skipped ...)\n"
                    " 7             T.writes(C[vi, vj])\n"
                    "                        ^^^^^^^^^\n"
                    "(... 2 lines skipped ...)\n"
                    "10             C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
                    "                                       ^",
                    __LINE__);
  tvm_ffi_release(p1);
  tvm_ffi_release(p2);
  tvm_ffi_release(f);
}

TEST(span_over_several_lines) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 16, 16, 16);
  void* p = PATH("body", "body", "body", "body", "block", "init");
  const void* ps[] = {p};
  /* The init statement's `with T.init():` block covers two lines. */
  void* q = PATH("body", "body", "body", "body");
  const void* qs[] = {q};
  expect_underlined(f, qs, 1, true, 1,
                    "(... 2 lines skipped ...)\n"
                    " 3     for i, j, k in T.grid(16, 16, 16):\n"
                    " 4         with T.sblock(\"update\"):\n"
                    "           ^^^^^^^^^^^^^^^^^^^^^^^^\n"
                    " 5             vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                    "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
                    " 6             T.reads(A[vi, vk], B[vk, vj])\n"
                    "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
                    " 7             T.writes(C[vi, vj])\n"
                    "               ^^^^^^^^^^^^^^^^^^^\n"
                    " 8             with T.init():\n"
                    "               ^^^^^^^^^^^^^^\n"
                    " 9                 C[vi, vj] = T.float32(0.0)\n"
                    "                   ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
                    "10             C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
                    "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
                    __LINE__);
  char want[1024];
  snprintf(want, sizeof(want), "%s%s", k_matmul_head,
           "    for i, j, k in T.grid(16, 16, 16):\n"
           "        with T.sblock(\"update\"):\n"
           "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
           "            T.reads(A[vi, vk], B[vk, vj])\n"
           "            T.writes(C[vi, vj])\n"
           "            with T.init():\n"
           "                C[vi, vj] = T.float32(0.0)\n"
           "                ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]");
  expect_underlined(f, ps, 1, false, -1, want, __LINE__);
  tvm_ffi_release(p);
  tvm_ffi_release(q);
  tvm_ffi_release(f);
}

TEST(bad_underline_path_is_an_error) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 4, 4, 4);
  void* notpath = tvm_ffi_str_obj("x", 1);
  const void* ps[] = {notpath};
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.underline_paths = ps;
  opts.num_underline_paths = 1;
  CHECK(tvm_script_print_obj(f, &opts) == NULL);
  CHECK_RAISED("TypeError", "not an access path");
  tvm_ffi_release(notpath);
  tvm_ffi_release(f);
}

/* The RFC's example: two functions that differ in one buffer shape. */
TEST(structural_mismatch_report) {
  tvm_tir_buffer_obj* A1 = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 1);
  tvm_tir_buffer_obj* A8 = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 8);
  tvm_tir_prim_func_obj* fa = tvm_tir_func_take("main", tvm_tir_list_take(tvm_tir_ref(A1)),
      tvm_tir_store_take(tvm_tir_ref(A1), tvm_tir_int(0), tvm_tir_int(0)));
  tvm_tir_prim_func_obj* fb = tvm_tir_func_take("main", tvm_tir_list_take(tvm_tir_ref(A8)),
      tvm_tir_store_take(tvm_tir_ref(A8), tvm_tir_int(0), tvm_tir_int(0)));
  TVMFFIAny a = tvm_ffi_any_obj(fa), b = tvm_ffi_any_obj(fb);
  tvm_ffi_strbuf out = {0};
  CHECK_EQ_INT(tvm_script_structural_equal_report(&a, &b, false, &out), 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out),
               "StructuralEqual check failed, first delta highlighted below\n"
               "Access path (lhs): <root>.buffer_map[<tir.Var>].shape[0].value\n"
               "Access path (rhs): <root>.buffer_map[<tir.Var>].shape[0].value\n"
               "\n"
               "@T.prim_func\n"
               "def main(A: T.Buffer((1,), \"int32\")):\n"
               "                      ^\n"
               "    A[0] = 0\n"
               "\n"
               "@T.prim_func\n"
               "def main(A: T.Buffer((8,), \"int32\")):\n"
               "                      ^\n"
               "    A[0] = 0");
  /* Equal values: 1 and nothing written. */
  out.size = 0;
  CHECK_EQ_INT(tvm_script_structural_equal_report(&a, &a, false, &out), 1);
  CHECK_EQ_INT(out.size, 0);
  tvm_ffi_strbuf_free(&out);
  tvm_ffi_release(fa);
  tvm_ffi_release(fb);
  tvm_ffi_release(A1);
  tvm_ffi_release(A8);
}

int main(void) {
  RUN(single_path_inside_nested_loops);
  RUN(multiple_paths_with_line_numbers_and_context);
  RUN(span_over_several_lines);
  RUN(bad_underline_path_is_an_error);
  RUN(structural_mismatch_report);
  return test_summary();
}

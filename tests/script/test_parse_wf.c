/* test_parse_wf.c: well-formedness errors of parsed programs (libtir's checker, run by
 * tvm_script_parse) are reported at the statement that built the offending node: the checker
 * names the node by its access path, the parser resolves the path through the IR to the deepest
 * node it recorded a source span for. With check_well_formed off the same programs parse. */
#include <tvm/script/parser.h>

#include "test_util.h"

#define HEADER "from tvm.script import tirx as T\n\n"
#define FUNC HEADER "@T.prim_func\ndef f(A: T.Buffer((8,), \"float32\")):\n" /* body: line 5 */

/* Parse src (filename t.py) with the well-formedness check on or off. */
static void* parse(const char* src, bool check) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = "t.py";
  opts.check_well_formed = check;
  return tvm_script_parse(src, strlen(src), &opts);
}

/* src must fail the check with `kind` reported at `where` ("t.py:6:5:"), the message holding
 * `what`, and ending with `marked`: the statement's source line, a newline and the carets under
 * the statement's first line; it must parse with the check off. */
static void expect_wf_error(const char* src, const char* kind, const char* where, const char* what,
                            const char* marked, int line) {
  void* r = parse(src, true);
  void* e = r ? NULL : tvm_ffi_error_take();
  const char* msg = e ? tvm_ffi_error_message(e) : "";
  size_t n = strlen(msg), m = strlen(marked);
  bool ok = e && strcmp(tvm_ffi_error_kind(e), kind) == 0 &&
            strncmp(msg, where, strlen(where)) == 0 && strstr(msg, what) && n >= m &&
            strcmp(msg + n - m, marked) == 0;
  if (!ok) {
    fprintf(stderr, "line %d: expected %s at %s with \"%s\" and\n%s\ngot %s: %s\n", line, kind,
            where, what, marked, e ? tvm_ffi_error_kind(e) : r ? "success" : "no error", msg);
    g_test_failed_checks++;
  }
  tvm_ffi_release(r);
  tvm_ffi_release(e);
  r = parse(src, false);
  if (!r) {
    e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: with the check off: %s\n", line, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  tvm_ffi_release(r);
}
#define EXPECT_WF_ERROR(src, kind, where, what, marked) \
  expect_wf_error((src), (kind), (where), (what), (marked), __LINE__)

TEST(var_outside_scope) {
  /* `x` is declared, never bound: the store in the loop is reported, not the loop or the def. */
  EXPECT_WF_ERROR(FUNC "    x = T.int32()\n"
                       "    for i in range(8):\n"
                       "        A[i] = T.Cast(\"float32\", x)\n",
                  "ValueError", "t.py:7:9:", "variable `x` used outside its scope",
                  "        A[i] = T.Cast(\"float32\", x)\n        ^^^^^^^^^^^^^^^^^^^^^^^^^^^");
  /* In a loop's extent: the loop's own statement. */
  EXPECT_WF_ERROR(FUNC "    n = T.int32()\n"
                       "    for i in range(4):\n"
                       "        A[i] = T.float32(0)\n"
                       "    for j in range(n):\n"
                       "        A[j] = T.float32(1)\n",
                  "ValueError", "t.py:8:5:", "variable `n` used outside its scope",
                  "    for j in range(n):\n    ^^^^^^^^^^^^^^^^^^");
  /* In an if condition inside a let (a rest-of-body frame closed at the function's end). */
  EXPECT_WF_ERROR(FUNC "    y = T.int32()\n"
                       "    x: T.int32 = 3\n"
                       "    A[0] = T.float32(0)\n"
                       "    if y < x:\n"
                       "        A[x] = T.float32(1)\n",
                  "ValueError", "t.py:8:5:", "variable `y` used outside its scope",
                  "    if y < x:\n    ^^^^^^^^^");
}

TEST(var_bound_twice) {
  /* One thread variable launched twice: the second launch binds it again. */
  EXPECT_WF_ERROR(FUNC "    tx = T.env_thread(\"threadIdx.x\")\n"
                       "    with T.launch_thread(tx, 8):\n"
                       "        A[tx] = T.float32(0)\n"
                       "    with T.launch_thread(tx, 8):\n"
                       "        A[tx] = T.float32(1)\n",
                  "ValueError", "t.py:8:5:", "variable `tx` is bound more than once (SSA)",
                  "    with T.launch_thread(tx, 8):\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^");
  /* A let var bound again by T.LetStmt inside the body of its `x: T.int32 = 1` (a rest-of-body
   * frame, built at the end of the function with the span of its statement). */
  EXPECT_WF_ERROR(FUNC "    x: T.int32 = 1\n"
                       "    A[0] = T.float32(0)\n"
                       "    with T.LetStmt(2, var=x):\n"
                       "        A[1] = T.float32(0)\n",
                  "ValueError", "t.py:7:5:", "variable `x` is bound more than once (SSA)",
                  "    with T.LetStmt(2, var=x):\n    ^^^^^^^^^^^^^^^^^^^^^^^^^");
}

TEST(buffer_outside_allocation) {
  /* A T.Buffer with its own data var is allocated nowhere: the store into it. */
  EXPECT_WF_ERROR(FUNC "    B = T.Buffer((8,), \"float32\")\n"
                       "    for i in range(8):\n"
                       "        A[i] = T.float32(0)\n"
                       "        B[i] = A[i]\n",
                  "ValueError", "t.py:8:9:", "buffer `B` is not declared in this scope",
                  "        B[i] = A[i]\n        ^^^^^^^^^^^");
}

TEST(block_var_outside_block) {
  /* A block var in the block's predicate, which belongs to the realize outside the block. */
  EXPECT_WF_ERROR(FUNC "    for i in range(8):\n"
                       "        with T.sblock(\"b\"):\n"
                       "            vi = T.axis.spatial(8, i)\n"
                       "            T.where(vi < 4)\n"
                       "            A[vi] = T.float32(0)\n",
                  "ValueError", "t.py:6:9:", "variable `vi` used outside its scope",
                  "        with T.sblock(\"b\"):\n        ^^^^^^^^^^^^^^^^^^^");
}

TEST(module_function) {
  /* In a module the error names the function and is located the same way. */
  EXPECT_WF_ERROR("from tvm.script import ir as I\n" HEADER "@I.ir_module\nclass M:\n"
                         "    @T.prim_func\n"
                         "    def ok(A: T.Buffer((8,), \"float32\")):\n"
                         "        A[0] = T.float32(0)\n"
                         "\n"
                         "    @T.prim_func\n"
                         "    def bad(A: T.Buffer((8,), \"float32\")):\n"
                         "        j = T.int32()\n"
                         "        A[j] = T.float32(0)\n",
                  "ValueError", "t.py:13:9:", "variable `j` used outside its scope",
                  "        A[j] = T.float32(0)\n        ^^^^^^^^^^^^^^^^^^^");
}

TEST(fallback_to_def) {
  /* No node on the path was built by a statement (the implicit root block holding a function
   * level allocation): reported at the function's name, as before. */
  EXPECT_WF_ERROR(FUNC "    n = T.int32()\n"
                       "    C = T.alloc_buffer((n,))\n"
                       "    A[0] = T.float32(0)\n",
                  "ValueError", "t.py:4:5:", "variable `n` used outside its scope",
                  "def f(A: T.Buffer((8,), \"float32\")):\n    ^");
}

TEST(frame_exit_error) {
  /* A libtir error raised when a frame's node is built at its exit is reported at the statement
   * that opened the frame, not where the frame happened to close. */
  const char* src = FUNC "    for i in range(8):\n"
                         "        with T.sblock(\"b\", no_realize=True):\n"
                         "            T.where(i < 4)\n"
                         "            A[i] = T.float32(0)\n"
                         "        A[i] = T.float32(1)\n";
  void* r = parse(src, false);
  CHECK(r == NULL);
  void* e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (e) {
    CHECK_STR_EQ(tvm_ffi_error_kind(e), "ValueError");
    CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "t.py:6:9: error: T.where needs a realized block");
  }
  tvm_ffi_release(e);
}

TEST(well_formed_programs_pass) {
  /* The spans recorded change nothing for a good program (a let, a block, a launch). */
  void* r = parse(FUNC "    x: T.int32 = 1\n"
                       "    tx = T.env_thread(\"threadIdx.x\")\n"
                       "    with T.launch_thread(tx, 8):\n"
                       "        for i in range(8):\n"
                       "            with T.sblock(\"b\"):\n"
                       "                vi = T.axis.spatial(8, i)\n"
                       "                A[vi] = T.Cast(\"float32\", x + tx)\n",
                  true);
  CHECK(r != NULL);
  if (!r) tvm_ffi_error_clear();
  tvm_ffi_release(r);
}

int main(void) {
  RUN(var_outside_scope);
  RUN(var_bound_twice);
  RUN(buffer_outside_allocation);
  RUN(block_var_outside_block);
  RUN(module_function);
  RUN(fallback_to_def);
  RUN(frame_exit_error);
  RUN(well_formed_programs_pass);
  return test_summary();
}

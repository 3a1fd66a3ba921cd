/*
 * script_testing.h: TVMScript files of the test suite parsed, with the failure located at the
 * test's line (header-only; the tests link libscript).
 */
#ifndef TVM_TESTS_SCRIPT_TESTING_H_
#define TVM_TESTS_SCRIPT_TESTING_H_

#include <string.h>
#include <tvm/script/parser.h>

#include "test_util.h"

/* dir/file parsed (a new reference; the error named by file), or NULL with a failed check. */
static inline void* test_parse_file_(int line, const char* dir, const char* file) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, file);
  size_t len = 0;
  char* text = test_read_file(path, &len);
  if (!text) {
    fprintf(stderr, "line %d: cannot read %s\n", line, path);
    g_test_failed_checks++;
    return NULL;
  }
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = file;
  void* ir = tvm_script_parse(text, len, &opts);
  free(text);
  if (!ir) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: parsing %s failed: %s: %s\n", line, path,
            e ? tvm_ffi_error_kind(e) : "-", e ? tvm_ffi_error_message(e) : "-");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  return ir;
}
#define test_parse_file(dir, file) test_parse_file_(__LINE__, (dir), (file))

/* A module of one @R.function, its def written as body (indented for a class body), fails to
 * parse as file bad.py with an error of kind whose message contains part (a located one:
 * "bad.py:LINE:COL: error: ..."). */
static inline void test_expect_relax_error(const char* body, const char* kind, const char* part) {
  char src[2048];
  snprintf(src, sizeof(src),
           "from tvm.script import ir as I\nfrom tvm.script import relax as R\n"
           "from tvm.script import tir as T\n\n@I.ir_module\nclass M:\n    @R.function\n%s",
           body);
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = "bad.py";
  void* ir = tvm_script_parse(src, strlen(src), &opts);
  CHECK(ir == NULL);
  tvm_ffi_release(ir);
  CHECK_RAISED(kind, part);
}

#endif /* TVM_TESTS_SCRIPT_TESTING_H_ */

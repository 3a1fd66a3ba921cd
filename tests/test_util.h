/*
 * test_util.h: the minimal test harness every C test of the suite uses.
 *
 *   TEST(name) { CHECK(cond); CHECK_EQ_INT(a, b); CHECK_STR_CONTAINS(s, part); ... }
 *   int main(void) { RUN(name); ...; return test_summary(); }
 *
 * A failed CHECK prints file:line and the expression and marks the current test failed; the
 * test goes on. test_summary prints "N passed, N failed" and returns the exit code.
 */
#ifndef TVM_TESTS_TEST_UTIL_H_
#define TVM_TESTS_TEST_UTIL_H_

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/ffi/ffi.h>

static int g_test_failed_checks;
static int g_tests_passed;
static int g_tests_failed;

#define TEST(name) static void test_##name(void)

#define RUN(name)                                              \
  do {                                                         \
    int before_ = g_test_failed_checks;                        \
    test_##name();                                             \
    if (tvm_ffi_error_pending()) {                             \
      void* e_ = tvm_ffi_error_take();                         \
      fprintf(stderr, "  %s: error left raised: %s: %s\n", #name, \
              tvm_ffi_error_kind(e_), tvm_ffi_error_message(e_)); \
      tvm_ffi_release(e_);                                     \
      g_test_failed_checks++;                                  \
    }                                                          \
    if (g_test_failed_checks == before_) {                     \
      g_tests_passed++;                                        \
    } else {                                                   \
      g_tests_failed++;                                        \
      fprintf(stderr, "FAILED: %s\n", #name);                  \
    }                                                          \
  } while (0)

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      g_test_failed_checks++;                                                \
    }                                                                        \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                              \
  do {                                                                                  \
    long long a_ = (long long)(a), b_ = (long long)(b);                                 \
    if (a_ != b_) {                                                                     \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n", __FILE__,     \
              __LINE__, #a, #b, a_, b_);                                                \
      g_test_failed_checks++;                                                           \
    }                                                                                   \
  } while (0)

#define CHECK_STR_EQ(a, b)                                                                  \
  do {                                                                                      \
    const char *a_ = (a), *b_ = (b);                                                        \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                \
      fprintf(stderr, "%s:%d: CHECK_STR_EQ failed: %s == %s\n  got:      \"%s\"\n  expected: \"%s\"\n", \
              __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");          \
      g_test_failed_checks++;                                                               \
    }                                                                                       \
  } while (0)

#define CHECK_STR_CONTAINS(s, part)                                                         \
  do {                                                                                      \
    const char *s_ = (s), *p_ = (part);                                                     \
    if (!s_ || !strstr(s_, p_)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK_STR_CONTAINS failed: \"%s\" does not contain \"%s\"\n", \
              __FILE__, __LINE__, s_ ? s_ : "(null)", p_);                                  \
      g_test_failed_checks++;                                                               \
    }                                                                                       \
  } while (0)

/* Check that the last call failed with an error of `kind` whose message contains `part`;
 * consumes the error. */
#define CHECK_RAISED(kind, part)                                                          \
  do {                                                                                    \
    void* e_ = tvm_ffi_error_take();                                                      \
    if (!e_) {                                                                            \
      fprintf(stderr, "%s:%d: expected a raised %s, none raised\n", __FILE__, __LINE__,   \
              kind);                                                                      \
      g_test_failed_checks++;                                                             \
    } else {                                                                              \
      CHECK_STR_EQ(tvm_ffi_error_kind(e_), kind);                                         \
      CHECK_STR_CONTAINS(tvm_ffi_error_message(e_), part);                                \
      tvm_ffi_release(e_);                                                                \
    }                                                                                     \
  } while (0)

/* Fail the check (and print the error) if a call returned non-zero. */
#define CHECK_OK(call)                                                                    \
  do {                                                                                    \
    if ((call) != 0) {                                                                    \
      void* e_ = tvm_ffi_error_take();                                                    \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call,            \
              e_ ? tvm_ffi_error_kind(e_) : "?", e_ ? tvm_ffi_error_message(e_) : "");    \
      tvm_ffi_release(e_);                                                                \
      g_test_failed_checks++;                                                             \
    }                                                                                     \
  } while (0)

/* The whole file at path (malloc'd, NUL-terminated, its length in *len), or NULL when it cannot
 * be read. */
static inline char* test_read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  tvm_ffi_strbuf b = {0};
  char chunk[4096];
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

static inline int test_summary(void) {
  printf("%d passed, %d failed\n", g_tests_passed, g_tests_failed);
  return g_tests_failed ? 1 : 0;
}

#endif /* TVM_TESTS_TEST_UTIL_H_ */

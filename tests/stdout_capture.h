/*
 * stdout_capture.h: what a piece of code writes to stdout, for tests of printing (header-only).
 *
 *   capture_begin(); ...; const char* text = capture_end();
 *
 * stdout (the file descriptor, so writes through any FILE* or write(2) are caught) goes to a
 * temporary file until capture_end, which restores it and returns the text (a static buffer of
 * up to 8 KiB). Not nestable.
 */
#ifndef TVM_TESTS_STDOUT_CAPTURE_H_
#define TVM_TESTS_STDOUT_CAPTURE_H_

#include <stdio.h>
#include <unistd.h>

static int g_capture_saved_fd = -1;
static FILE* g_capture_file;

static inline void capture_begin(void) {
  fflush(stdout);
  g_capture_file = tmpfile();
  g_capture_saved_fd = dup(STDOUT_FILENO);
  if (g_capture_file) dup2(fileno(g_capture_file), STDOUT_FILENO);
}

static inline const char* capture_end(void) {
  static char buf[8192];
  size_t n = 0;
  fflush(stdout);
  dup2(g_capture_saved_fd, STDOUT_FILENO);
  close(g_capture_saved_fd);
  if (g_capture_file) {
    rewind(g_capture_file);
    n = fread(buf, 1, sizeof(buf) - 1, g_capture_file);
    fclose(g_capture_file);
  }
  buf[n] = 0;
  return buf;
}

#endif /* TVM_TESTS_STDOUT_CAPTURE_H_ */

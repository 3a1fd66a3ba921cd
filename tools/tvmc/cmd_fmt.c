/*
 * cmd_fmt.c: `tvmc fmt`: parse a TVMScript file and print it in canonical form (the printer's
 * output); with --check, report whether the file already is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/script/printer.h>

#include "tvmc.h"

static const char kUsage[] =
    "usage: tvmc fmt FILE [--check] [-o OUT]\n"
    "\n"
    "Parse FILE and print its canonical TVMScript (the form the printer writes) on stdout.\n"
    "\n"
    "options:\n"
    "  --check       print nothing, exit 1 and show the first differing line when FILE is\n"
    "                not in canonical form, exit 0 when it is\n"
    "  -o, --output OUT  write the canonical text to OUT instead (OUT may be FILE itself)\n";

/* Line `line` (1-based) of text as a pointer and length; length 0 and "" past the end. */
static const char* nth_line(const char* text, size_t len, int64_t line, size_t* out_n) {
  size_t pos = 0;
  for (int64_t k = 1; k < line && pos < len; ++k) {
    const char* nl = memchr(text + pos, '\n', len - pos);
    pos = nl ? (size_t)(nl - text) + 1 : len;
  }
  const char* nl = memchr(text + pos, '\n', len - pos);
  *out_n = nl ? (size_t)(nl - text) - pos : len - pos;
  return text + pos;
}

/* Report the first line where a (the file) and b (canonical) differ, as a unified-style hunk. */
static void report_diff(const char* path, const char* a, size_t alen, const char* b, size_t blen) {
  size_t i = 0;
  int64_t line = 1;
  while (i < alen && i < blen && a[i] == b[i]) {
    if (a[i] == '\n') line++;
    i++;
  }
  size_t an, bn;
  const char* al = nth_line(a, alen, line, &an);
  const char* bl = nth_line(b, blen, line, &bn);
  printf("%s: not in canonical form; first difference at line %lld\n", path, (long long)line);
  printf("--- %s\n+++ %s (canonical)\n@@ -%lld +%lld @@\n", path, path, (long long)line,
         (long long)line);
  if (al < a + alen) printf("-%.*s\n", (int)an, al);
  else printf("-(end of file)\n");
  if (bl < b + blen) printf("+%.*s\n", (int)bn, bl);
  else printf("+(end of file)\n");
  printf("run `tvmc fmt %s -o %s` to rewrite it\n", path, path);
}

int tvmc_cmd_fmt(int argc, char** argv) {
  const char* cmd = "fmt";
  const char *path = NULL, *out = NULL;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    int r;
    if (tvmc_is_help(argv[i])) {
      fputs(kUsage, stdout);
      return TVMC_OK;
    } else if (strcmp(argv[i], "--check") == 0) {
      check = true;
    } else if ((r = tvmc_flag_value(cmd, argc, argv, &i, "--output", "-o", &out)) != 0) {
      if (r < 0) return TVMC_USAGE_ERROR;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return tvmc_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else if (path) {
      return tvmc_usage_error(cmd, "one FILE only (got '%s' and '%s')", path, argv[i]);
    } else {
      path = argv[i];
    }
  }
  if (!path) return tvmc_usage_error(cmd, "missing FILE");
  if (check && out) return tvmc_usage_error(cmd, "--check writes nothing; drop -o");

  size_t src_len;
  char* src = tvmc_read_file(cmd, path, &src_len);
  if (!src) return TVMC_USAGE_ERROR;
  int status;
  /* Formatting must work on programs that are not well formed (yet). */
  void* ir = tvmc_parse_file(cmd, path, false, &status);
  if (!ir) {
    free(src);
    return status;
  }
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  tvm_ffi_strbuf text = {0};
  TVMFFIAny any = tvm_ffi_any_obj(ir);
  int rc = tvm_script_print_to(&any, &opts, &text);
  tvm_ffi_release(ir);
  if (rc != 0 || text.failed) {
    free(src);
    tvm_ffi_strbuf_free(&text);
    tvmc_report_error(cmd, "cannot print the program");
    return TVMC_FAILURE;
  }
  tvm_ffi_strbuf_putc(&text, '\n'); /* the printer writes no final newline; files end with one */
  int result = TVMC_OK;
  if (check) {
    if (text.size != src_len || memcmp(text.data, src, src_len) != 0) {
      report_diff(path, src, src_len, text.data, text.size);
      result = TVMC_PROGRAM_ERROR;
    }
  } else if (!tvmc_write_text(cmd, out, text.data, text.size)) {
    result = out ? TVMC_USAGE_ERROR : TVMC_FAILURE;
  }
  free(src);
  tvm_ffi_strbuf_free(&text);
  return result;
}

/*
 * roundtrip.c: the TVMScript round trip of tests/script/test_roundtrip.c over files given on the
 * command line (a dev tool for measuring upstream programs, built by measure.py; not installed).
 *
 * For each FILE: parse it (well-formedness on), print, parse the printed text, compare the two
 * structurally (map_free_vars=false), print again and compare the texts. Prints one line per
 * file: "OK FILE", or "FAIL FILE: <stage>: <first error line>". Exit status 0.
 *
 * usage: roundtrip FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/node.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

static char* read_file(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = 0;
  *len = (size_t)n;
  return buf;
}

/* The first line of the pending error (consumed) after `stage`. */
static void fail(const char* file, const char* stage) {
  void* e = tvm_ffi_error_take();
  const char* msg = e ? tvm_ffi_error_message(e) : "no error raised";
  const char* nl = strchr(msg, '\n');
  int n = nl ? (int)(nl - msg) : (int)strlen(msg);
  printf("FAIL %s: %s: %s: %.*s\n", file, stage, e ? tvm_ffi_error_kind(e) : "-", n, msg);
  tvm_ffi_release(e);
}

static void* parse(const char* text, size_t len, const char* name) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = name;
  return tvm_script_parse(text, len, &opts);
}

static void one(const char* file) {
  size_t len = 0;
  char* text = read_file(file, &len);
  void *m = NULL, *t1 = NULL, *m2 = NULL, *t2 = NULL;
  if (!text) {
    printf("FAIL %s: read: cannot read the file\n", file);
    return;
  }
  if (!(m = parse(text, len, file))) {
    fail(file, "parse");
    goto done;
  }
  if (!(t1 = tvm_script_print_obj(m, NULL))) {
    fail(file, "print");
    goto done;
  }
  const char* s1 = tvm_ffi_str_cstr(t1);
  if (!(m2 = parse(s1, strlen(s1), "<printed>"))) {
    fail(file, "parse of the printed text");
    goto done;
  }
  bool map_free = tvm_tir_kind_of(m) != TVM_TIR_KIND_PrimFunc &&
                  tvm_tir_kind_of(m) != TVM_TIR_KIND_IRModule &&
                  tvm_relax_kind_of(m) != TVM_RELAX_KIND_Function;
  TVMFFIAny a = tvm_ffi_any_obj(m), b = tvm_ffi_any_obj(m2);
  tvm_ffi_strbuf rep = {0};
  int eq = tvm_script_structural_equal_report(&a, &b, map_free, &rep);
  if (eq != 1) {
    if (eq < 0) {
      fail(file, "structural_equal");
    } else {
      const char* r = tvm_ffi_strbuf_cstr(&rep);
      const char* nl = getenv("FULL") ? NULL : strchr(r, '\n');
      printf("FAIL %s: not structurally equal: %.*s\n", file, nl ? (int)(nl - r) : (int)strlen(r),
             r);
    }
    tvm_ffi_strbuf_free(&rep);
    goto done;
  }
  tvm_ffi_strbuf_free(&rep);
  if (!(t2 = tvm_script_print_obj(m2, NULL))) {
    fail(file, "second print");
    goto done;
  }
  if (strcmp(s1, tvm_ffi_str_cstr(t2)) != 0) {
    printf("FAIL %s: printing is not a fixed point\n", file);
    goto done;
  }
  printf("OK %s\n", file);
done:
  tvm_ffi_release(m);
  tvm_ffi_release(t1);
  tvm_ffi_release(m2);
  tvm_ffi_release(t2);
  free(text);
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) one(argv[i]);
  return 0;
}

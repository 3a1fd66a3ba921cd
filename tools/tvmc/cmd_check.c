/*
 * cmd_check.c: `tvmc check`: parse a TVMScript file and check its well-formedness.
 *
 * Parse errors come rendered by libscript ("file:line:col: error: ..." + source line + carets).
 * Well-formedness errors come from libtir with the access path of the offending node in their
 * message ("well-formedness: <what> (<rule>) at <root>.body.seq[1]..."): the path is read back
 * and the program is printed with that node underlined. The parser reports the same error at
 * the statement that built the node (its line:col); when that statement's source line is the
 * underlined printed line (indentation aside), the underline narrows the column to the node.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/codegen/codegen.h>
#include <tvm/relax/relax.h>
#include <tvm/tir/analysis.h>
#include <tvm/tir/visit.h>

#include "tvmc.h"

static const char kUsage[] =
    "usage: tvmc check FILE\n"
    "\n"
    "Parse FILE and check that its functions are well formed (typing, variable scoping and\n"
    "SSA, buffer rules) and that their dtypes are ones the CPU code generator represents.\n"
    "Prints \"ok\" and exits 0, or prints each error with its location in\n"
    "FILE (the program with the offending node underlined for well-formedness errors) and\n"
    "exits 1.\n";

/* Extend path (consumed) by the steps of text "<root>.a.b[2]..." (function relative). Stops
 * at a step it cannot read back (a map key that is an object): the node above it is shown. */
static void* path_from_text(void* path, const char* s) {
  if (strncmp(s, "<root>", 6) != 0) return path;
  s += 6;
  while (path && *s) {
    void* next = NULL;
    if (*s == '.') {
      size_t n = 1;
      while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
      if (n == 1) break;
      char name[128];
      if (n - 1 >= sizeof(name)) break;
      memcpy(name, s + 1, n - 1);
      name[n - 1] = '\0';
      next = tvm_ffi_access_path_attr(path, name);
      s += n;
    } else if (*s == '[' && isdigit((unsigned char)s[1])) {
      char* end;
      long long index = strtoll(s + 1, &end, 10);
      if (*end != ']') break;
      next = tvm_ffi_access_path_item(path, index);
      s = end + 1;
    } else {
      break;
    }
    tvm_ffi_release(path);
    path = next;
  }
  return path;
}

/* Line and column (1-based) of the first underline in `marked` (the program printed with an
 * underline) relative to `plain` (the same program printed without). False if there is none. */
static bool first_caret(const char* plain, const char* marked, int64_t* out_line,
                        int64_t* out_col) {
  int64_t line = 0;
  const char *p = plain, *m = marked;
  while (*m) {
    size_t mn = strcspn(m, "\n"), pn = strcspn(p, "\n");
    if (mn == pn && memcmp(m, p, mn) == 0 && *p) {
      line++;
      p += pn + (p[pn] == '\n');
    } else {
      const char* caret = memchr(m, '^', mn);
      if (!caret || line == 0) return false;
      *out_line = line;
      *out_col = caret - m + 1;
      return true;
    }
    m += mn + (m[mn] == '\n');
  }
  return false;
}

/* Line `line` (1-based) of text: its start and length (NULL past the end). */
static const char* line_at(const char* text, int64_t line, size_t* out_len) {
  for (int64_t k = 1; k < line && text; ++k) {
    text = strchr(text, '\n');
    if (text) text++;
  }
  if (!text || !*text) return NULL;
  *out_len = strcspn(text, "\n");
  return text;
}

static size_t indent_of(const char* s, size_t n) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  return i;
}

/* Where the parser reports libtir's error `what` ("well-formedness: ..."): the line:col of the
 * statement that built the offending node. False when its check reports another error. */
static bool statement_location(const char* path, const char* src, size_t len, const char* what,
                               int64_t* out_line, int64_t* out_col) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = path;
  opts.ignore_check_flags = true; /* (the check found the error: the parse reports it too) */
  void* ir = tvm_script_parse(src, len, &opts);
  void* err = ir ? NULL : tvm_ffi_error_take();
  const char* msg = err ? tvm_ffi_error_message(err) : "";
  size_t n = strlen(path);
  long long line, col;
  bool ok = strncmp(msg, path, n) == 0 && sscanf(msg + n, ":%lld:%lld:", &line, &col) == 2 &&
            strstr(msg, what);
  if (ok) {
    *out_line = line;
    *out_col = col;
  }
  tvm_ffi_release(ir);
  tvm_ffi_release(err);
  return ok;
}

/* The line and column in src of the node underlined at printed line:col: the first line of src
 * from *src_line on that is that printed line, indentation aside (the parser locates the
 * statement that built the node, or the def when it knows none: the node is within or further
 * down), its column moved by the indentation; else keep both. */
static void narrow_location(const char* src, int64_t* src_line, const char* printed,
                            int64_t line, int64_t col, int64_t* out_col) {
  size_t pn = 0, sn = 0;
  const char* p = line_at(printed, line, &pn);
  if (!p) return;
  size_t pi = indent_of(p, pn);
  if ((size_t)col <= pi) return;
  for (int64_t k = *src_line;; ++k) {
    const char* s = line_at(src, k, &sn);
    if (!s) return;
    size_t si = indent_of(s, sn);
    if (sn - si == pn - pi && memcmp(s + si, p + pi, pn - pi) == 0) {
      *src_line = k;
      *out_col = col - (int64_t)pi + (int64_t)si;
      return;
    }
  }
}

/* Print libtir's well-formedness error `message` about ir, parsed from path whose text is
 * src. */
static void report_well_formedness(const char* path, const char* src, size_t len, const void* ir,
                                   const char* message) {
  /* "[in function `name`: ]well-formedness: ... at <root>..." */
  char func_name[256] = "";
  const char* msg = message;
  if (strncmp(msg, "in function `", 13) == 0) {
    const char* end = strchr(msg + 13, '`');
    if (end && (size_t)(end - msg - 13) < sizeof(func_name)) {
      memcpy(func_name, msg + 13, (size_t)(end - msg - 13));
      func_name[end - msg - 13] = '\0';
      msg = end + 1;
      if (strncmp(msg, ": ", 2) == 0) msg += 2;
    }
  }
  /* Relax's form puts the path first: "<root>[\"name\"].body...: ..." for a module's function
   * (by name), "<root>.body...: ..." for a lone function. */
  char rel[512];
  bool relax_path = false;
  const char* colon = strncmp(msg, "<root>", 6) == 0 ? strstr(msg, ": ") : NULL;
  if (colon && (size_t)(colon - msg) < sizeof(rel) - 8) {
    const char* p = msg + 6;
    const char* q = strncmp(p, "[\"", 2) == 0 ? strchr(p + 2, '"') : NULL;
    if (q && q[1] == ']' && q < colon && (size_t)(q - p - 2) < sizeof(func_name)) {
      memcpy(func_name, p + 2, (size_t)(q - p - 2));
      func_name[q - p - 2] = '\0';
      p = q + 2;
    }
    snprintf(rel, sizeof(rel), "<root>%.*s", (int)(colon - p), p);
    relax_path = true;
    msg = colon + 2;
  }
  const char* at = strstr(msg, " at <root>");
  for (const char* later; at && (later = strstr(at + 1, " at <root>"));) at = later;
  int what_len = at ? (int)(at - msg) : (int)strlen(msg);

  /* The underlined node's path, relative to the printed object (the module when there is one:
   * a function of a module is at <root>.functions[<its GlobalVar>]). */
  void* upath = tvm_ffi_access_path_root();
  if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule && func_name[0]) {
    tvm_tir_global_var_obj* gv = tvm_tir_ir_module_get_global_var(ir, func_name);
    void* fns = upath ? tvm_ffi_access_path_attr(upath, "functions") : NULL;
    TVMFFIAny key = tvm_ffi_any_obj(gv);
    tvm_ffi_release(upath);
    upath = fns && gv ? tvm_ffi_access_path_extend(fns, TVM_FFI_PATH_MAP_ITEM, &key) : NULL;
    tvm_ffi_release(fns);
    tvm_ffi_release(gv);
  }
  if (upath && at) upath = path_from_text(upath, at + 4);
  else if (upath && relax_path) upath = path_from_text(upath, rel);

  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  void* plain = tvm_script_print_obj(ir, &opts);
  opts.underline_paths = (const void* const*)&upath;
  opts.num_underline_paths = upath ? 1 : 0;
  void* marked = tvm_script_print_obj(ir, &opts);
  tvm_ffi_error_clear(); /* a failure to print only loses the picture, not the error */

  /* The statement's line:col from the parser, narrowed to the node by the underline. */
  int64_t line = 0, col = 0, pline, pcol;
  bool canonical = plain && strlen(src) == tvm_ffi_str_view(plain).size + 1 &&
                   memcmp(src, tvm_ffi_str_cstr(plain), tvm_ffi_str_view(plain).size) == 0;
  tvm_ffi_strbuf what = {0};
  tvm_ffi_strbuf_append(&what, msg, (size_t)what_len);
  bool located = statement_location(path, src, len, tvm_ffi_strbuf_cstr(&what), &line, &col);
  tvm_ffi_strbuf_free(&what);
  if (located && plain && marked &&
      first_caret(tvm_ffi_str_cstr(plain), tvm_ffi_str_cstr(marked), &pline, &pcol))
    narrow_location(src, &line, tvm_ffi_str_cstr(plain), pline, pcol, &col);
  if (located)
    fprintf(stderr, "%s:%lld:%lld: error: %.*s\n", path, (long long)line, (long long)col,
            what_len, msg);
  else
    fprintf(stderr, "%s: error: %.*s\n", path, what_len, msg);
  const char* where = at ? at + 1 : relax_path ? rel : NULL;
  if (func_name[0] || where)
    fprintf(stderr, "  %s%s%s%s%s%s\n", func_name[0] ? "in function `" : "", func_name,
            func_name[0] ? "`" : "", func_name[0] && where ? ", " : "",
            where && !at ? "at " : "", where ? where : "");
  if (marked) fprintf(stderr, "%s%s\n", canonical ? "" : "(as printed by `tvmc fmt`)\n",
                      tvm_ffi_str_cstr(marked));
  tvm_ffi_release(plain);
  tvm_ffi_release(marked);
  tvm_ffi_release(upath);
}

/* ---- Dtypes the code generator represents ------------------------------------------------ */
typedef struct {
  const char* func; /* the function's name in its module, or NULL for a lone function */
} dtype_walk;

static int dtype_error(tvm_tir_visitor* v, DLDataType t, const char* what) {
  const dtype_walk* w = v->ctx;
  tvm_ffi_strbuf path = {0};
  tvm_tir_visitor_path_format(v, &path);
  tvm_ffi_raise("TypeError", "%s%s%sdtype %s%s is not supported by the CPU code generator at %s",
                w->func ? "in function `" : "", w->func ? w->func : "", w->func ? "`: " : "",
                tvm_tir_dtype_str(t).s, what, tvm_ffi_strbuf_cstr(&path));
  tvm_ffi_strbuf_free(&path);
  return -1;
}

/* Every expression's dtype, and the element dtype of every buffer and Allocate. */
static int check_node_dtype(tvm_tir_visitor* v, const void* node) {
  if (tvm_tir_is_expr(node)) {
    DLDataType t = tvm_tir_expr_dtype(node);
    if (!tvm_codegen_dtype_supported(t, false)) return dtype_error(v, t, "");
  } else if (tvm_tir_kind_of(node) == TVM_TIR_KIND_Buffer) {
    DLDataType t = ((const tvm_tir_buffer_obj*)node)->dtype;
    if (!tvm_codegen_dtype_supported(t, true)) return dtype_error(v, t, " (buffer elements)");
  } else if (tvm_tir_kind_of(node) == TVM_TIR_KIND_Allocate) {
    DLDataType t = ((const tvm_tir_allocate_obj*)node)->dtype;
    if (!tvm_codegen_dtype_supported(t, true)) return dtype_error(v, t, " (allocated elements)");
  }
  return TVM_TIR_VISIT_CONTINUE;
}

/* A function's body first, so that a buffer's dtype is reported at its first use (a path the
 * printer can underline), then the signature. */
static int check_func_dtypes(tvm_tir_visitor* v, const void* node) {
  static const char* const kFields[] = {"body", "params", "buffer_map", "ret_type"};
  for (size_t i = 0; i < sizeof(kFields) / sizeof(kFields[0]); ++i) {
    if (tvm_tir_visit_field(v, node, kFields[i]) != 0) return -1;
  }
  return TVM_TIR_VISIT_SKIP;
}

/* Well-formed IR the CPU back end cannot represent (float8, int4 buffers, ...): the error
 * as libtir's well-formedness errors read ("in function `f`: ... at <root>..."), or 0. */
static int check_dtypes(const void* ir) {
  tvm_tir_visitor v = {0};
  v.pre_default = check_node_dtype;
  v.pre[TVM_TIR_KIND_PrimFunc] = check_func_dtypes;
  dtype_walk w = {NULL};
  v.ctx = &w;
  int rc = 0;
  if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule) {
    const TVMFFIAny *k, *f;
    void* fns = ((const tvm_tir_ir_module_obj*)ir)->functions;
    for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(fns, pos, &k, &f)) >= 0;) {
      if (tvm_tir_kind_of(f->v_obj) != TVM_TIR_KIND_PrimFunc) continue; /* (Relax) */
      w.func = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)k->v_obj)->name_hint);
      rc = tvm_tir_visit(&v, f->v_obj);
    }
  } else if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_PrimFunc) {
    rc = tvm_tir_visit(&v, ir);
  }
  tvm_tir_visitor_free(&v);
  return rc;
}

/* Relax's well-formedness of a module holding Relax functions, or of an @R.function; 0 for
 * TIR only. */
static int verify_relax(const void* ir) {
  bool relax = tvm_relax_kind_of(ir) == TVM_RELAX_KIND_Function;
  if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule) {
    const TVMFFIAny *k, *f;
    void* fns = ((const tvm_tir_ir_module_obj*)ir)->functions;
    for (int64_t pos = 0; !relax && (pos = tvm_ffi_map_next(fns, pos, &k, &f)) >= 0;) {
      relax = tvm_relax_kind_of(f->v_obj) == TVM_RELAX_KIND_Function;
    }
  }
  return relax ? tvm_relax_verify_well_formed(ir) : 0;
}

int tvmc_cmd_check(int argc, char** argv) {
  const char* cmd = "check";
  const char* path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (tvmc_is_help(argv[i])) {
      fputs(kUsage, stdout);
      return TVMC_OK;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return tvmc_usage_error(cmd, "unknown option '%s'", argv[i]);
    } else if (path) {
      return tvmc_usage_error(cmd, "one FILE only (got '%s' and '%s')", path, argv[i]);
    } else {
      path = argv[i];
    }
  }
  if (!path) return tvmc_usage_error(cmd, "missing FILE");

  size_t len;
  char* src = tvmc_read_file(cmd, path, &len);
  if (!src) return TVMC_USAGE_ERROR;
  int status;
  /* Parse without the parser's own check, to get libtir's error with its access path. */
  void* ir = tvmc_parse_file(cmd, path, false, &status);
  bool relax_fn = ir && tvm_relax_kind_of(ir) == TVM_RELAX_KIND_Function;
  if (ir && (verify_relax(ir) != 0 || (!relax_fn && tvm_tir_verify_well_formed(ir) != 0) ||
             check_dtypes(ir) != 0)) {
    void* err = tvm_ffi_error_take();
    report_well_formedness(path, src, len, ir,
                           err ? tvm_ffi_error_message(err) : "unknown error");
    tvm_ffi_release(err);
    status = TVMC_PROGRAM_ERROR;
  } else if (ir) {
    printf("ok\n");
  }
  tvm_ffi_release(ir);
  free(src);
  return status;
}

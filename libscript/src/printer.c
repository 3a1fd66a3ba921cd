/*
 * printer.c: the print entry points (IR -> Doc -> text), the structural-equality report and the
 * benchmark hook.
 *
 * The object is converted under a root frame. A module or function prints as is; any other
 * object is a fragment: the declarations of its free variables (emitted into the root frame)
 * come first, then the statement(s) or the expression. A lone Var or Buffer prints as its
 * declaration. The import header lists the dialects the text uses.
 */
#include <string.h>
#include <tvm/relax/relax.h>
#include <tvm/tir/tir.h>

#include "script_internal.h"

void tvm_script_print_options_init(tvm_script_print_options* opts) {
  memset(opts, 0, sizeof(*opts));
  opts->ir_prefix = "I";
  opts->tir_prefix = "T";
  opts->relax_prefix = "R";
  opts->print_header = true;
  opts->indent_spaces = 4;
  opts->context_lines = -1;
  opts->default_func_name = "main";
  opts->default_module_name = "Module";
  opts->inline_constant_max_elements = 16;
  opts->show_meta = true;
}

static int push_doc(void* list, void* doc) {
  TVMFFIAny a = tvm_ffi_any_obj(doc);
  int rc = doc ? tvm_ffi_list_push(list, &a) : -1;
  tvm_ffi_release(doc);
  return rc;
}

/* The whole doc of obj: header comments, fragment declarations, the node. */
static tvm_script_doc_obj* to_doc(tvm_script_docsifier* d, const TVMFFIAny* obj) {
  tvm_script_frame* root = tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_ROOT);
  void* path = root ? tvm_ffi_access_path_root() : NULL;
  if (!path) return NULL;
  const void* o = tvm_ffi_any_is_object(obj) ? obj->v_obj : NULL;
  bool is_stmt = o && tvm_tir_is_stmt(o);
  if (is_stmt) root->flags |= SCRIPT_FRAME_CONCISE; /* a fragment's statement is its last */
  /* A Relax node prints under the relax token (its ints, GlobalVars), as inside a function. */
  bool relax = tvm_relax_kind_of(o) != TVM_RELAX_KIND_NONE;
  tvm_script_doc_obj* doc =
      !relax || tvm_script_push_token(d, "relax") == 0 ? tvm_script_as_doc(d, obj, path) : NULL;
  if (relax && doc) tvm_script_pop_token(d);
  tvm_ffi_release(path);
  if (!doc) return NULL;
  void* stmts = tvm_ffi_list_new();
  const tvm_script_print_options* opts = tvm_script_docsifier_options(d);
  static const struct {
    const char* dialect;
    const char* module;
  } k_imports[] = {{"ir", "ir"}, {"tirx", "tirx"}, {"relax", "relax"}};
  int rc = stmts ? 0 : -1;
  /* Header: the dialects used so far (conversion is done). */
  bool any = false;
  for (size_t i = 0; rc == 0 && opts->print_header && i < 3; ++i) {
    if (!tvm_script__dialect_used(d, k_imports[i].dialect)) continue;
    const char* prefix = i == 0 ? opts->ir_prefix : i == 1 ? opts->tir_prefix : opts->relax_prefix;
    tvm_ffi_strbuf line = {0};
    tvm_ffi_strbuf_printf(&line, "from tvm.script import %s as %s", k_imports[i].module, prefix);
    rc = line.failed ? -1 : push_doc(stmts, tvm_script_comment_doc(tvm_ffi_strbuf_cstr(&line)));
    tvm_ffi_strbuf_free(&line);
    any = true;
  }
  if (rc == 0 && any) rc = push_doc(stmts, tvm_script_comment_doc(""));
  /* The metadata section (large constants), after the header, as upstream writes it. */
  void* metadata = rc == 0 ? tvm_script__docsifier_metadata(d) : NULL;
  if (!metadata && tvm_ffi_error_pending()) rc = -1;
  if (rc == 0 && metadata && opts->show_meta) {
    rc = push_doc(stmts, tvm_script__metadata_stmt(metadata));
    if (rc == 0) rc = push_doc(stmts, tvm_script_comment_doc(""));
  }
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(root->stmts); ++i) {
    rc = tvm_ffi_list_push(stmts, tvm_ffi_seq_at(root->stmts, i));
  }
  /* A lone variable or buffer prints as its declaration. */
  bool decl_only = (tvm_tir_is_var(o) || tvm_tir_kind_of(o) == TVM_TIR_KIND_Buffer ||
                    tvm_relax_kind_of(o) == TVM_RELAX_KIND_Var ||
                    tvm_relax_kind_of(o) == TVM_RELAX_KIND_DataflowVar) &&
                   tvm_ffi_seq_size(root->stmts) > 0;
  if (rc == 0 && !decl_only) {
    tvm_ffi_retain(doc);
    rc = push_doc(stmts, tvm_script_is_stmt_doc(doc) ? (void*)doc
                                                     : tvm_script_expr_stmt_doc_take(doc));
  }
  if (rc == 0 && metadata && !opts->show_meta) {
    rc = push_doc(stmts, tvm_script_comment_doc(
                             "Metadata omitted. Use show_meta=True in script() method to show it."));
  }
  tvm_ffi_release(metadata);
  tvm_ffi_release(doc);
  void* arr = rc == 0 ? tvm_script_stmts_to_array(stmts) : NULL;
  tvm_ffi_release(stmts);
  return arr ? tvm_script_stmt_block_doc_take(arr) : NULL;
}

static int print_to(const TVMFFIAny* obj, const tvm_script_print_options* opts,
                    tvm_ffi_strbuf* out) {
  if (!obj || !out) return tvm_ffi_raise("ValueError", "tvm_script_print: NULL argument");
  if (tvm_script_register_builtin_converters() != 0) return -1;
  tvm_script_docsifier* d = tvm_script__docsifier_new(opts);
  if (!d) return -1;
  tvm_script_doc_obj* doc = to_doc(d, obj);
  tvm_script__docsifier_free(d);
  if (!doc) return -1;
  size_t before = out->size;
  int rc = tvm_script_doc_to_python(doc, opts, out);
  tvm_ffi_release(doc);
  if (rc != 0) out->size = before;
  return rc;
}

int tvm_script_print_to(const TVMFFIAny* obj, const tvm_script_print_options* opts,
                        tvm_ffi_strbuf* out) {
  /* A stale error the caller left raised is set aside: the Doc constructors chain on a raised
   * error (ffi.h, tvm_ffi_error_take). */
  void* stale = tvm_ffi_error_take();
  int rc = print_to(obj, opts, out);
  tvm_ffi_error_give_back(stale);
  return rc;
}

void* tvm_script_print(const TVMFFIAny* obj, const tvm_script_print_options* opts) {
  tvm_ffi_strbuf buf = {0};
  void* s = NULL;
  if (tvm_script_print_to(obj, opts, &buf) == 0) s = tvm_ffi_str_obj(buf.data ? buf.data : "", buf.size);
  tvm_ffi_strbuf_free(&buf);
  return s;
}

void* tvm_script_print_obj(const void* obj, const tvm_script_print_options* opts) {
  TVMFFIAny a = tvm_ffi_any_obj(obj);
  return tvm_script_print(&a, opts);
}

int tvm_script_structural_equal_report(const TVMFFIAny* lhs, const TVMFFIAny* rhs,
                                       bool map_free_vars, tvm_ffi_strbuf* out) {
  if (!lhs || !rhs || !out) return tvm_ffi_raise("ValueError", "structural_equal_report: NULL");
  void *lp = NULL, *rp = NULL;
  int eq = tvm_ffi_structural_equal(lhs, rhs, map_free_vars, &lp, &rp);
  if (eq != 0) {
    tvm_ffi_release(lp);
    tvm_ffi_release(rp);
    return eq;
  }
  size_t before = out->size;
  tvm_ffi_strbuf_puts(out, "StructuralEqual check failed, first delta highlighted below\n");
  tvm_ffi_strbuf_puts(out, "Access path (lhs): ");
  if (lp) tvm_ffi_access_path_format(lp, out);
  tvm_ffi_strbuf_puts(out, "\nAccess path (rhs): ");
  if (rp) tvm_ffi_access_path_format(rp, out);
  tvm_ffi_strbuf_puts(out, "\n\n");
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  opts.show_meta = false; /* a diagnostic: the JSON of large constants is noise */
  const void* paths[1];
  opts.underline_paths = paths;
  paths[0] = lp;
  opts.num_underline_paths = lp ? 1 : 0;
  int rc = tvm_script_print_to(lhs, &opts, out);
  tvm_ffi_strbuf_puts(out, "\n\n");
  paths[0] = rp;
  opts.num_underline_paths = rp ? 1 : 0;
  if (rc == 0) rc = tvm_script_print_to(rhs, &opts, out);
  tvm_ffi_release(lp);
  tvm_ffi_release(rp);
  if (rc == 0 && out->failed) rc = tvm_ffi_raise("MemoryError", "structural_equal_report: OOM");
  if (rc != 0) {
    out->size = before;
    return -1;
  }
  return 0;
}

/*
 * tvm/script/printer.h: printing IR as TVMScript, and diagnostics over the printed text.
 *
 *   tvm_script_print_options opts;
 *   tvm_script_print_options_init(&opts);
 *   void* text = tvm_script_print(&func_any, &opts);     // an ffi.String, or NULL + error
 *
 * Any libtir object prints: an IRModule (`@I.ir_module class Module:`), a PrimFunc
 * (`@T.prim_func def name(...)`), a statement, an expression, a Buffer, a type, ... A fragment
 * (anything but a module or function) first declares its free variables (`x = T.int32()`,
 * `A = T.Buffer((128,), "float32")`) and then prints the node. The text follows the canonical
 * form of shared/TVMSCRIPT.md; it has no trailing newline.
 *
 * Underlining: with underline_paths set, the text of the nodes at those access paths (relative
 * to the printed object; the deepest printed node on each path) is marked with `^` characters
 * on the line below, for every line the node spans. line_numbers prefixes each line with its
 * number; context_lines >= 0 keeps only that many lines around underlined ones (the others are
 * replaced by "(... N lines skipped ...)").
 */
#ifndef TVM_SCRIPT_PRINTER_H_
#define TVM_SCRIPT_PRINTER_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/script/doc.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef struct {
  const char* ir_prefix;    /* "I" */
  const char* tir_prefix;   /* "T" */
  const char* relax_prefix; /* "R" */
  /* Print the import comments (`# from tvm.script import tirx as T`) and a blank line first. */
  bool print_header;
  /* Print every literal with its type (`T.int32(1)`), not only the non-default ones. */
  bool verbose_literals;
  int indent_spaces;           /* 4 */
  const void* const* underline_paths; /* access paths to underline (borrowed), may be NULL */
  int64_t num_underline_paths;
  bool line_numbers;
  int64_t context_lines; /* -1: print every line */
  /* Name of a standalone function / module when the IR does not give one ("main", "Module"). */
  const char* default_func_name;
  const char* default_module_name;
} tvm_script_print_options;

/* Defaults: prefixes I/T/R, header on, plain literals, 4 spaces, no underline, no line numbers,
 * every line. */
void tvm_script_print_options_init(tvm_script_print_options* opts);

/* The TVMScript of obj (opts NULL = defaults) as a new ffi.String, or NULL + error (TypeError
 * for an object no converter handles). */
void* tvm_script_print(const TVMFFIAny* obj, const tvm_script_print_options* opts);
/* The same appended to *out. 0 or -1 + error (out keeps what was there before). */
int tvm_script_print_to(const TVMFFIAny* obj, const tvm_script_print_options* opts,
                        tvm_ffi_strbuf* out);
/* Convenience for an object (borrowed). */
void* tvm_script_print_obj(const void* obj, const tvm_script_print_options* opts);

/* ---- Doc -> text ------------------------------------------------------------------------- */
/* Python text of a doc tree (only the formatting options of opts are used: indent_spaces,
 * underline_paths, line_numbers, context_lines). Docs whose source_paths lie on an underline
 * path are underlined (the deepest ones per path). */
int tvm_script_doc_to_python(const void* doc, const tvm_script_print_options* opts,
                             tvm_ffi_strbuf* out);

/* ---- Structural equality with a readable diagnostic ---------------------------------------- */
/*
 * Compares lhs and rhs with tvm_ffi_structural_equal (map_free_vars as given). Returns 1 when
 * equal, 0 when not (then *out gets the message below appended), -1 on error. The message:
 *
 *   StructuralEqual check failed, first delta highlighted below
 *   Access path (lhs): <root>.buffer_map[...]...
 *   Access path (rhs): ...
 *
 *   <lhs printed with the mismatching node underlined>
 *
 *   <rhs printed likewise>
 */
int tvm_script_structural_equal_report(const TVMFFIAny* lhs, const TVMFFIAny* rhs,
                                       bool map_free_vars, tvm_ffi_strbuf* out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_PRINTER_H_ */

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
  /* A Relax constant prints inline (`R.const([[1.0, 2.0]], "float32")`) when it has at most
   * this many elements and every element reads back to the same bits; otherwise it prints as
   * `metadata["relax.expr.Constant"][i]` (see the metadata section below). Scalars always
   * print inline when they can; 0 gives upstream's rule (only scalars inline). Default 16. */
  int64_t inline_constant_max_elements;
  /* Write the metadata section (true, the default), or only the comment
   * `# Metadata omitted. Use show_meta=True in script() method to show it.` at the end. */
  bool show_meta;
} tvm_script_print_options;

/* Defaults: prefixes I/T/R, header on, plain literals, 4 spaces, no underline, no line numbers,
 * every line, constants of up to 16 elements inline, the metadata section shown. */
void tvm_script_print_options_init(tvm_script_print_options* opts);

/* The TVMScript of obj (opts NULL = defaults) as a new ffi.String, or NULL + error (TypeError
 * for an object no converter handles). */
void* tvm_script_print(const TVMFFIAny* obj, const tvm_script_print_options* opts);
/* The same appended to *out. 0 or -1 + error (out keeps what was there before). */
int tvm_script_print_to(const TVMFFIAny* obj, const tvm_script_print_options* opts,
                        tvm_ffi_strbuf* out);
/* Convenience for an object (borrowed). */
void* tvm_script_print_obj(const void* obj, const tvm_script_print_options* opts);

/* ---- The metadata section ------------------------------------------------------------------ */
/*
 * Objects the printer does not write as text (large Relax constants) print as
 * `metadata["<type key>"][<index>]`, indices per type key in order of first use (an object used
 * twice has one index). With show_meta, the text then has, after the import header, upstream's
 * statement
 *
 *   metadata = tvm.ir.load_json("""{
 *     "root_index": 5,
 *     "nodes": [
 *       ...
 *     ]
 *   }""")
 *
 * followed by a blank line: a Python triple-quoted string (backslashes doubled) of the JSON
 * (tvm_ffi_json_save's node graph, indented by 2 as upstream's) of an ffi.Map from each type
 * key (sorted) to the ffi.Array of its objects. Tensors inside are ffi.Tensor nodes holding the
 * base64 of their bytes, so constants read back bit-exactly.
 */
/* The metadata of a section's JSON text (the Python string's value): an ffi.Map of type key to
 * ffi.Array, as a new reference, or NULL + error (ValueError / TypeError / KeyError naming what
 * is wrong in the text). */
void* tvm_script_metadata_from_json(const char* json, size_t len);
/* The same from a whole printed text: finds `metadata = tvm.ir.load_json("""...""")` at
 * the start of a line, undoes the string's escapes and loads it. NULL without an error raised
 * when the text has no metadata section; NULL + error when it has a bad one. */
void* tvm_script_metadata_from_script(const char* text, size_t len);
/* metadata["<type_key>"][index] (borrowed from metadata), or NULL + KeyError / IndexError. */
const void* tvm_script_metadata_item(const void* metadata, const char* type_key, int64_t index);

/* ---- Access paths in error messages ------------------------------------------------------ */
/*
 * The access path written as text (tvm_ffi_access_path_format's form, as errors give it:
 * `<root>.body.blocks[0].bindings[2].value`, `<root>["main"].body...`) as an access path
 * object relative to root, for underline_paths. The text ends at its first character that
 * continues no step (a space, ':', ...); *out_len (optional) gets the length read. Steps are read
 * against the objects they lead to, so that the path names the fields the printer marks:
 *   - `["name"]` on an IRModule (the root of a module's well-formedness errors) is the function
 *     of that name: `.functions[<its GlobalVar>]`;
 *   - `["key"]` on a Map is the item of that string key, `[i]` on an Array its i-th item;
 *   - `.field` a reflected field.
 * A step that does not lead to an object of root (a missing field or function, an index out of
 * range) ends the path there: the result then names the deepest node the text reaches, which
 * is what an underline can show. NULL + ValueError when text does not start with `<root>`.
 */
void* tvm_script_access_path_parse(const TVMFFIAny* root, const char* text, size_t len,
                                   size_t* out_len);

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
 *
 * (printed without the metadata section: large constants show as metadata[...] references,
 * and a differing one is the reference underlined).
 */
int tvm_script_structural_equal_report(const TVMFFIAny* lhs, const TVMFFIAny* rhs,
                                       bool map_free_vars, tvm_ffi_strbuf* out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_PRINTER_H_ */

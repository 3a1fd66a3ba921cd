/*
 * tvm/script/ir_docsifier.h: the IRDocsifier, which turns IR objects into Doc trees (stage 1 of
 * the TUNIP printer; tvm_script_doc_to_python is stage 2).
 *
 * Dispatch: converters are registered per (dispatch token, type index) by each dialect in its
 * own file (TIR: printer_tir*.c, IR: printer_ir.c, Relax: printer_relax.c). tvm_script_as_doc looks up the
 * converter of the innermost token on the docsifier's token stack, then falls back to the
 * default token "". Tokens are "ir", "tirx", "relax"; their prefixes (I, T, R) come from the
 * print options.
 *
 * Frames: a stack of scopes. Each frame owns the variables defined in it (their names are
 * released when the frame is popped, so sibling scopes may reuse them) and a list of statements
 * a converter emits into it (free-variable declarations of a fragment go to the outermost frame).
 *
 * Variables: any object (a Var, a Buffer, a GlobalVar, a module) can be defined by name (a
 * unique, readable identifier is derived from the hint: `x`, `x_1`, ...) or by a doc (e.g. a
 * buffer's data pointer as `A.data`). Using a defined object gives a new doc of its name.
 *
 * All docs returned are new references; NULL means an error is raised.
 */
#ifndef TVM_SCRIPT_IR_DOCSIFIER_H_
#define TVM_SCRIPT_IR_DOCSIFIER_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/script/doc.h>
#include <tvm/script/printer.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef struct tvm_script_docsifier tvm_script_docsifier;

/* A converter: the doc of obj (borrowed), printed from `path` (an access path, borrowed). The
 * docsifier adds `path` to the returned doc's source_paths (when paths are tracked). */
typedef tvm_script_doc_obj* (*tvm_script_converter)(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                                    const void* path);

/* Register fn for values of exactly type_index (an object type or a POD index such as kTVMFFIInt)
 * under token ("" = the default); a later registration replaces an earlier one. Registrations
 * are serialized, but lookups do not lock: register during initialisation (as the built-in
 * dialects do on the first print), not while other threads print. */
int tvm_script_register_converter(const char* token, int32_t type_index, tvm_script_converter fn);
/* Registers the built-in dialects' converters (idempotent; print entry points call it). */
int tvm_script_register_builtin_converters(void);

/* ---- Conversion ---------------------------------------------------------------------------- */
tvm_script_doc_obj* tvm_script_as_doc(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path);
/* obj is an object (borrowed; NULL prints as None). */
tvm_script_doc_obj* tvm_script_as_doc_obj(tvm_script_docsifier* d, const void* obj,
                                          const void* path);
/* The field / array item of obj at path.attr(name)[i], converted (helpers for converters). */
tvm_script_doc_obj* tvm_script_as_doc_attr(tvm_script_docsifier* d, const void* obj,
                                           const void* path, const char* name);
/* ffi.Array of the docs of the items of arr (an ffi.Array at path). */
void* tvm_script_as_doc_array(tvm_script_docsifier* d, const void* arr, const void* path);

/* ---- Access paths of children ------------------------------------------------------------- */
/* path.name / path[i] / path[key] as new references (NULL + error on OOM). When the print call
 * underlines nothing, paths are not tracked: these return `path` itself (retained) and
 * tvm_script_as_doc attaches no source paths, so printing allocates no path objects. */
void* tvm_script_path_attr(tvm_script_docsifier* d, const void* path, const char* name);
void* tvm_script_path_item(tvm_script_docsifier* d, const void* path, int64_t i);
void* tvm_script_path_map_item(tvm_script_docsifier* d, const void* path, const TVMFFIAny* key);
bool tvm_script_tracks_paths(const tvm_script_docsifier* d);
/* Attach path to doc's source paths when paths are tracked (for docs not made by as_doc). */
void tvm_script_doc_mark(tvm_script_docsifier* d, void* doc, const void* path);

/* ---- Dispatch tokens and prefixes ---------------------------------------------------------- */
int tvm_script_push_token(tvm_script_docsifier* d, const char* token);
void tvm_script_pop_token(tvm_script_docsifier* d);
/* An IdDoc of the prefix of `dialect` ("ir" -> "I", "tirx" -> "T", "relax" -> "R"); marks the
 * dialect as used (for the import header). */
tvm_script_doc_obj* tvm_script_prefix(tvm_script_docsifier* d, const char* dialect);
/* prefix.name1.name2 (name may contain dots: "axis.remap"). */
tvm_script_doc_obj* tvm_script_prefixed(tvm_script_docsifier* d, const char* dialect,
                                        const char* name);
const tvm_script_print_options* tvm_script_docsifier_options(const tvm_script_docsifier* d);

/* ---- Frames -------------------------------------------------------------------------------- */
typedef struct tvm_script_frame {
  int32_t kind;   /* dialect-defined (TVM_SCRIPT_PRINT_FRAME_*) */
  void* stmts;    /* ffi.List of StmtDocs emitted into this frame */
  void* vars;     /* ffi.List of the objects defined in this frame (private) */
  void* data;     /* dialect state, borrowed */
  int32_t flags;  /* dialect-defined bits */
} tvm_script_frame;
/* The printer's frame kinds (named apart from the IR builder's TVM_SCRIPT_FRAME_*, so that a
 * program can include both headers). */
enum {
  TVM_SCRIPT_PRINT_FRAME_ROOT = 0,
  TVM_SCRIPT_PRINT_FRAME_MODULE,
  TVM_SCRIPT_PRINT_FRAME_FUNC,
  TVM_SCRIPT_PRINT_FRAME_SCOPE
};

tvm_script_frame* tvm_script_frame_push(tvm_script_docsifier* d, int32_t kind);
/* Pops the innermost frame, undefining its variables. */
void tvm_script_frame_pop(tvm_script_docsifier* d);
/* The innermost frame / the outermost one / the innermost of a kind (NULL if none). */
tvm_script_frame* tvm_script_frame_top(tvm_script_docsifier* d);
tvm_script_frame* tvm_script_frame_root(tvm_script_docsifier* d);
tvm_script_frame* tvm_script_frame_find(tvm_script_docsifier* d, int32_t kind);
/* The number of frames and frame i (0 = outermost). */
int tvm_script_frame_count(const tvm_script_docsifier* d);
tvm_script_frame* tvm_script_frame_at(tvm_script_docsifier* d, int i);
/* Append a statement doc (consumed) to frame->stmts. */
int tvm_script_frame_emit_take(tvm_script_frame* frame, void* stmt_doc);

/* ---- Variables ----------------------------------------------------------------------------- */
/* Define obj in frame under a unique name derived from name_hint; returns its IdDoc. */
tvm_script_doc_obj* tvm_script_define_var(tvm_script_docsifier* d, const void* obj,
                                          const char* name_hint, tvm_script_frame* frame);
/* Define obj as printed by doc (borrowed). 0 or -1. */
int tvm_script_define_var_doc(tvm_script_docsifier* d, const void* obj, const void* doc,
                              tvm_script_frame* frame);
bool tvm_script_is_var_defined(tvm_script_docsifier* d, const void* obj);
/* A new doc of a defined obj, or NULL without raising when it is not defined. */
tvm_script_doc_obj* tvm_script_var_doc(tvm_script_docsifier* d, const void* obj);

/* ---- Metadata ------------------------------------------------------------------------------ */
/* The doc `metadata["<obj's type key>"][i]` of obj (borrowed) added to the print call's
 * metadata section (an object added twice keeps its first index; see printer.h). */
tvm_script_doc_obj* tvm_script_add_metadata(tvm_script_docsifier* d, const void* obj);

/* ---- Doc helpers for converters ------------------------------------------------------------ */
/* A statement list (ffi.List of StmtDocs) as an Array; flattens StmtBlockDocs. */
void* tvm_script_stmts_to_array(void* stmt_list);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_IR_DOCSIFIER_H_ */

/* printer_tir.h: helpers shared by the TIR converters (printer_tir_*.c). */
#ifndef TVM_SCRIPT_PRINTER_TIR_H_
#define TVM_SCRIPT_PRINTER_TIR_H_

#include <tvm/tir/tir.h>

#include "range_extent.h"
#include "script_internal.h"

/* Frame flags of the TIR converters (and SCRIPT_FRAME_USES_CLS, script_internal.h). */
enum {
  TIR_FRAME_CONCISE = SCRIPT_FRAME_CONCISE, /* the statement converted is the last of its body */
  TIR_FRAME_FOR = 4 /* frame->data is the tir.For whose variables the frame defines */
};

/* `T.<name>` */
static inline tvm_script_doc_obj* tir_prefixed(tvm_script_docsifier* d, const char* name) {
  return tvm_script_prefixed(d, "tirx", name);
}
/* The doc of child at path.name (the path is built and released here). */
tvm_script_doc_obj* tvm_script__tir_child(tvm_script_docsifier* d, const void* child, const void* path,
                              const char* name);
/* The doc of an array item arr[i] at path.name[i]. */
tvm_script_doc_obj* tvm_script__tir_child_item(tvm_script_docsifier* d, const void* arr, const void* path,
                                   const char* name, int64_t i);
/* path.name / path.name[i] (new references). */
void* tvm_script__tir_path(tvm_script_docsifier* d, const void* path, const char* name);
void* tvm_script__tir_path_item(tvm_script_docsifier* d, const void* path, const char* name, int64_t i);
/* A string literal of a DLDataType ("float32"). */
tvm_script_doc_obj* tvm_script__tir_dtype_literal(DLDataType t);
/* `T.<dtype>` as an expression (T.int32, T.float32x4, T.handle). */
tvm_script_doc_obj* tvm_script__tir_dtype_attr(tvm_script_docsifier* d, DLDataType t);
/* The frame where a free variable is declared: the innermost function, else the root. */
tvm_script_frame* tvm_script__tir_decl_frame(tvm_script_docsifier* d);
/* `name = T.int32()`-style declaration of var into frame; returns 0 / -1. */
int tvm_script__tir_declare_var(tvm_script_docsifier* d, const tvm_tir_var_obj* var, const void* path,
                    tvm_script_frame* frame);
/* Whether an expression mentions any variable (conservative: unknown kinds count as yes). */
bool tvm_script__tir_expr_has_var(const void* expr);
/* The end of the range [min, min + extent) as printed (new reference, NULL + error): simplified
 * when the parser's extent of it (tvm_script__range_extent) is `extent` again, else min + extent. */
tvm_tir_expr_obj* tvm_script__tir_range_end(tvm_tir_expr_obj* min, tvm_tir_expr_obj* extent);
/* Whether e is the IntImm `v`. */
bool tvm_script__tir_is_const(const void* e, int64_t v);
/* Convert stmt (at path) and append its docs to frame->stmts; a SeqStmt is spread, and only the
 * last statement of the body may use concise scoping. */
int tvm_script__tir_body(tvm_script_docsifier* d, const void* stmt, const void* path, tvm_script_frame* frame);
/* Emit `A = T.<api>(...)` into frame, defining the buffer there; first_arg (consumed, optional)
 * goes before the shape (match_buffer's source). */
int tvm_script__tir_emit_buffer_decl(tvm_script_docsifier* d, const tvm_tir_buffer_obj* buf, const void* path,
                         const char* api, void* first_arg, tvm_script_frame* frame);
/* `T.<api>([first_arg, ]shape, dtype, data=..., strides=..., ...)` for a buffer already defined
 * as `lhs` (borrowed): an undefined data pointer is defined as `lhs.data` in frame. */
tvm_script_doc_obj* tvm_script__tir_buffer_call(tvm_script_docsifier* d, const tvm_tir_buffer_obj* buf,
                                    const void* path, const char* api, void* first_arg,
                                    const void* lhs, tvm_script_frame* frame);

#endif /* TVM_SCRIPT_PRINTER_TIR_H_ */

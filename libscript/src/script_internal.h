/* script_internal.h: what libscript's files share privately. */
#ifndef TVM_SCRIPT_INTERNAL_H_
#define TVM_SCRIPT_INTERNAL_H_

#include <tvm/script/doc.h>
#include <tvm/script/ir_docsifier.h>
#include <tvm/script/printer.h>
#include <tvm/tir/op.h>

/* Registers the Doc types once (doc.c). 0, or -1 + error. */
int tvm_script__doc_init(void);
/* A new reference to the empty ffi.Array every empty array field of a doc shares, or NULL +
 * error (doc.c). */
void* tvm_script__empty_array(void);

/* Converters of the built-in dialects (printer_ir.c, printer_tir*.c). */
int tvm_script__register_ir(void);
int tvm_script__register_tir_expr(void);
int tvm_script__register_tir_stmt(void);
int tvm_script__register_tir_func(void);
int tvm_script__register_relax(void);

/* Whether the printer has a converter for objects of type_index under the dispatch token (or the
 * default one), the built-in converters registered first (ir_docsifier.c); for the test that
 * every node kind has its row in each table that needs one (tests/codegen/test_node_tables.c). */
bool tvm_script__printer_rule(const char* token, int32_t type_index);

/* A docsifier for one print call (ir_docsifier.c). */
tvm_script_docsifier* tvm_script__docsifier_new(const tvm_script_print_options* opts);
void tvm_script__docsifier_free(tvm_script_docsifier* d);
/* The print call's metadata section: an ffi.Map of type key (sorted) to ffi.Array of the
 * objects printed as metadata[...] (new reference), or NULL (no error) when there is none. */
void* tvm_script__docsifier_metadata(tvm_script_docsifier* d);
/* The statement `metadata = tvm.ir.load_json("""<JSON>""")` of metadata (printer_metadata.c). */
tvm_script_doc_obj* tvm_script__metadata_stmt(const void* metadata);
/* Whether a dialect ("ir", "tirx", "relax") was used, for the import header. */
bool tvm_script__dialect_used(const tvm_script_docsifier* d, const char* dialect);

/* Frame flags shared by the dialects. */
enum {
  SCRIPT_FRAME_CONCISE = 1, /* a scoped statement may print concisely (last of its body) */
  SCRIPT_FRAME_USES_CLS = 2 /* (function frame) the body refers to `cls` */
};

/* The data of a module frame: the module and the name of the function being printed. */
typedef struct {
  const void* mod;
  const char* func_name;
} tvm_script__module_ctx;

/* A DictDoc of an ffi.Map at path (string keys sorted), leaving out `skip_key` (NULL = none). */
tvm_script_doc_obj* tvm_script__map_doc(tvm_script_docsifier* d, const void* map, const void* path,
                                        const char* skip_key);

/* An ffi.Array holding one ffi.String (keyword names of a CallDoc), or NULL + error. */
void* tvm_script__str_array1(const char* key);

/* Whether the op builtin `id` takes two operands of one type, a Python int literal taking the
 * other operand's type when parsed (parse_tir_builtins_expr.c): T.bitwise_and, T.shift_left,
 * T.pow, ... The printer writes an int32 literal operand next to another type with its type. */
bool tvm_script__binary_operand_op(tvm_tir_builtin id);

/* The result dtype of a call of builtin `id` whose text does not write it (upstream's rule per
 * op: a fixed dtype, or one following an argument, args[0] or args[1], of its n PrimExprs),
 * in *out; false when the rule needs an argument there is not. The parser makes `T.<op>(...)`
 * so, unless `dtype=` is given; the printer writes `dtype=` when a call's differs from it. */
bool tvm_script__tir_call_rule_dtype(tvm_tir_builtin id, const void* const* args, int64_t n,
                                     DLDataType* out);

/* Consume `doc` and return it, or release it and return NULL when `ok` is false. */
static inline void* tvm_script__keep_if(void* doc, bool ok) {
  if (!ok) {
    tvm_ffi_release(doc);
    return NULL;
  }
  return doc;
}

#endif /* TVM_SCRIPT_INTERNAL_H_ */

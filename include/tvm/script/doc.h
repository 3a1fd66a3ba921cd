/*
 * tvm/script/doc.h: the Doc tree, a small Python-like AST shared by the TVMScript printer
 * (IR -> Doc -> text) and parser (text -> Doc -> IR). The kinds are listed once in docs.def.
 *
 * Every Doc is an FFI object ("script.printer.IdDoc", ...) registered with reflection, so docs
 * are destroyed, compared and serialized by libtvmffi's generic algorithms. Every Doc carries
 *   - source_paths: an ffi.Array of access paths (tvm_ffi_access_path_*) of the IR nodes it was
 *     printed from (NULL = none); the doc printer underlines docs by these paths;
 *   - span: where the doc's text is in a source file (filled by the parser; 0 = unknown).
 * Statement docs also carry an optional comment (ffi.String, NULL = none) printed after them
 * (`x = 1  # comment`) or, for statements with a body, on the line above.
 *
 * Ownership: constructors ending in _take consume every object argument (even on failure), so
 * calls nest; when an argument is NULL because the call producing it failed (an error raised),
 * they return NULL. Optional arguments may be NULL without an error. Results are new
 * references. Array arguments are ffi.Arrays of docs (NULL = empty); the stored array fields
 * are never NULL.
 */
#ifndef TVM_SCRIPT_DOC_H_
#define TVM_SCRIPT_DOC_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* "MAJOR.MINOR.PATCH" of libscript (libscript/VERSION). */
const char* tvm_script_version(void);

/* ---- Kinds --------------------------------------------------------------------------------- */
typedef enum {
  TVM_SCRIPT_DOC_NONE = -1, /* not a Doc */
#define TVM_SCRIPT_DOC(Name, Parent, c_struct) TVM_SCRIPT_DOC_##Name,
#include <tvm/script/docs.def>
  TVM_SCRIPT_DOC_COUNT
} tvm_script_doc_kind;

/* Registered type index of a kind; the exact kind of an object (NONE for NULL / non-docs). */
int32_t tvm_script_doc_type_index(tvm_script_doc_kind kind);
tvm_script_doc_kind tvm_script_doc_kind_of(const void* obj);
/* "IdDoc", ... */
const char* tvm_script_doc_kind_name(tvm_script_doc_kind kind);
static inline bool tvm_script_is_expr_doc(const void* obj);
static inline bool tvm_script_is_stmt_doc(const void* obj);

/* ---- Operators of OperationDoc (upstream's OperationDocNode::Kind values) ------------------ */
/*   TVM_SCRIPT_OP(Name, value, text): text is the Python operator. */
#define TVM_SCRIPT_OPERATORS(X)                                                            \
  X(USub, 1, "-") X(Invert, 2, "~") X(Not, 3, "not")                                       \
  X(Add, 6, "+") X(Sub, 7, "-") X(Mult, 8, "*") X(Div, 9, "/") X(FloorDiv, 10, "//")      \
  X(Mod, 11, "%") X(Pow, 12, "**") X(LShift, 13, "<<") X(RShift, 14, ">>")                \
  X(BitAnd, 15, "&") X(BitOr, 16, "|") X(BitXor, 17, "^") X(Lt, 18, "<") X(LtE, 19, "<=") \
  X(Eq, 20, "==") X(NotEq, 21, "!=") X(Gt, 22, ">") X(GtE, 23, ">=") X(And, 24, "and")    \
  X(Or, 25, "or") X(IfThenElse, 28, "if")
typedef enum {
#define TVM_SCRIPT_OP_ENUM(Name, value, text) TVM_SCRIPT_OP_##Name = value,
  TVM_SCRIPT_OPERATORS(TVM_SCRIPT_OP_ENUM)
#undef TVM_SCRIPT_OP_ENUM
} tvm_script_op_kind;
/* Unary: USub..Not (1 operand); binary: Add..Or (2); IfThenElse: (then, cond, else) printed as
 * `then if cond else else`. */
static inline int tvm_script_op_arity(int32_t op) {
  return op >= 1 && op <= 3 ? 1 : op >= 6 && op <= 25 ? 2 : op == 28 ? 3 : -1;
}
/* The Python text of an operator ("+", "not", ...) or NULL. */
const char* tvm_script_op_text(int32_t op);

/* ---- Structs ------------------------------------------------------------------------------- */
/* Source location: lines and columns are 1-based (0 = unknown); end is exclusive. Byte offsets
 * into the source are 0-based, end exclusive (-1 = unknown when lines are unknown too). */
typedef struct {
  int32_t start_line, start_col, end_line, end_col;
  int64_t start_byte, end_byte;
} tvm_script_span;

/* Every doc starts with this; ExprDoc and SliceDoc add nothing. */
typedef struct tvm_script_doc_obj {
  TVMFFIObject header;
  void* source_paths; /* ffi.Array of access paths, NULL = none */
  tvm_script_span span;
} tvm_script_doc_obj;

/* StmtDoc (also CommentDoc and DocStringDoc, whose text is `comment`). */
typedef struct {
  tvm_script_doc_obj doc;
  void* comment; /* ffi.String, optional */
} tvm_script_stmt_doc_obj;

/* LiteralDoc: value is None, a bool, an int, a float or a string (owned). */
typedef struct {
  tvm_script_doc_obj doc;
  TVMFFIAny value;
} tvm_script_literal_doc_obj;
typedef struct {
  tvm_script_doc_obj doc;
  void* name; /* ffi.String */
} tvm_script_id_doc_obj;
/* value.name */
typedef struct {
  tvm_script_doc_obj doc;
  tvm_script_doc_obj* value;
  void* name; /* ffi.String */
} tvm_script_attr_doc_obj;
/* value[indices...]: indices are ExprDocs or SliceDocs. */
typedef struct {
  tvm_script_doc_obj doc;
  tvm_script_doc_obj* value;
  void* indices;
} tvm_script_index_doc_obj;
/* callee(args..., key=value...): kwargs_keys an Array of ffi.String. */
typedef struct {
  tvm_script_doc_obj doc;
  tvm_script_doc_obj* callee;
  void* args;
  void* kwargs_keys;
  void* kwargs_values;
} tvm_script_call_doc_obj;
typedef struct {
  tvm_script_doc_obj doc;
  int32_t op; /* tvm_script_op_kind */
  void* operands;
} tvm_script_operation_doc_obj;
/* lambda args: body (args are IdDocs). */
typedef struct {
  tvm_script_doc_obj doc;
  void* args;
  tvm_script_doc_obj* body;
} tvm_script_lambda_doc_obj;
/* TupleDoc / ListDoc. */
typedef struct {
  tvm_script_doc_obj doc;
  void* elements;
} tvm_script_seq_doc_obj;
typedef struct {
  tvm_script_doc_obj doc;
  void* keys;
  void* values;
} tvm_script_dict_doc_obj;
/* *value: an unpacked positional argument (only among CallDoc.args). */
typedef struct {
  tvm_script_doc_obj doc;
  tvm_script_doc_obj* value;
} tvm_script_starred_doc_obj;
/* start:stop:step, each optional. */
typedef struct {
  tvm_script_doc_obj doc;
  tvm_script_doc_obj* start;
  tvm_script_doc_obj* stop;
  tvm_script_doc_obj* step;
} tvm_script_slice_doc_obj;

/* A sequence of statements printed at the current indentation. */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  void* stmts;
} tvm_script_stmt_block_doc_obj;
/* lhs[: annotation][ = rhs]; rhs and annotation optional (function arguments use this too). */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* lhs;
  tvm_script_doc_obj* rhs;
  tvm_script_doc_obj* annotation;
} tvm_script_assign_doc_obj;
/* if predicate: then_branch [else: else_branch]; an else branch holding exactly one IfDoc
 * prints as `elif`. */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* predicate;
  void* then_branch;
  void* else_branch;
} tvm_script_if_doc_obj;
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* predicate;
  void* body;
} tvm_script_while_doc_obj;
/* for lhs in rhs: body */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* lhs;
  tvm_script_doc_obj* rhs;
  void* body;
} tvm_script_for_doc_obj;
/* with rhs [as lhs]: body */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* lhs;
  tvm_script_doc_obj* rhs;
  void* body;
} tvm_script_scope_doc_obj;
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* expr;
} tvm_script_expr_stmt_doc_obj;
/* assert test[, msg] */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* test;
  tvm_script_doc_obj* msg;
} tvm_script_assert_doc_obj;
/* return [value] */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* value;
} tvm_script_return_doc_obj;
/* @decorators... def name(args...) [-> return_type]: body. args are AssignDocs (lhs an IdDoc,
 * optional annotation and default value). */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* name;
  void* args;
  void* decorators;
  tvm_script_doc_obj* return_type;
  void* body;
} tvm_script_function_doc_obj;
/* @decorators... class name: body */
typedef struct {
  tvm_script_stmt_doc_obj stmt;
  tvm_script_doc_obj* name;
  void* decorators;
  void* body;
} tvm_script_class_doc_obj;

static inline bool tvm_script_is_expr_doc(const void* obj) {
  return obj && tvm_ffi_instance_of(obj, tvm_script_doc_type_index(TVM_SCRIPT_DOC_ExprDoc));
}
static inline bool tvm_script_is_stmt_doc(const void* obj) {
  return obj && tvm_ffi_instance_of(obj, tvm_script_doc_type_index(TVM_SCRIPT_DOC_StmtDoc));
}

/* ---- Arrays -------------------------------------------------------------------------------- */
/* An ffi.Array of the docs (consumed; a NULL element fails the whole call, see above). */
void* tvm_script_doc_array_takev(int64_t n, void* const* docs);
#define TVM_SCRIPT_NARGS(...) ((int64_t)(sizeof((void*[]){__VA_ARGS__}) / sizeof(void*)))
#define tvm_script_doc_array_take(...) \
  tvm_script_doc_array_takev(TVM_SCRIPT_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})
/* An ffi.Array of the items of an ffi.List of docs (the list is consumed). */
void* tvm_script_doc_list_to_array_take(void* list);

/* ---- Constructors -------------------------------------------------------------------------- */
/* value is copied (a string view becomes an owned string). */
tvm_script_doc_obj* tvm_script_literal_doc(const TVMFFIAny* value);
tvm_script_doc_obj* tvm_script_literal_none(void);
tvm_script_doc_obj* tvm_script_literal_int(int64_t v);
tvm_script_doc_obj* tvm_script_literal_bool(bool v);
tvm_script_doc_obj* tvm_script_literal_float(double v);
tvm_script_doc_obj* tvm_script_literal_str(const char* s);
tvm_script_doc_obj* tvm_script_id_doc(const char* name);
tvm_script_doc_obj* tvm_script_id_doc_n(const char* name, size_t n);
/* An IdDoc sharing an existing ffi.String object (borrowed) as its name. */
tvm_script_doc_obj* tvm_script_id_doc_str(const void* name_str);
tvm_script_doc_obj* tvm_script_attr_doc_take(void* value, const char* name);
tvm_script_doc_obj* tvm_script_index_doc_take(void* value, void* indices);
/* kwargs_keys: an Array of ffi.String (consumed, may be NULL) with as many values. */
tvm_script_doc_obj* tvm_script_call_doc_take(void* callee, void* args, void* kwargs_keys,
                                             void* kwargs_values);
tvm_script_doc_obj* tvm_script_operation_doc_take(int32_t op, void* operands);
tvm_script_doc_obj* tvm_script_lambda_doc_take(void* args, void* body);
tvm_script_doc_obj* tvm_script_tuple_doc_take(void* elements);
tvm_script_doc_obj* tvm_script_list_doc_take(void* elements);
tvm_script_doc_obj* tvm_script_dict_doc_take(void* keys, void* values);
tvm_script_doc_obj* tvm_script_slice_doc_take(void* start, void* stop, void* step);
tvm_script_doc_obj* tvm_script_starred_doc_take(void* value);

tvm_script_doc_obj* tvm_script_stmt_block_doc_take(void* stmts);
tvm_script_doc_obj* tvm_script_assign_doc_take(void* lhs, void* rhs, void* annotation);
tvm_script_doc_obj* tvm_script_if_doc_take(void* predicate, void* then_branch, void* else_branch);
tvm_script_doc_obj* tvm_script_while_doc_take(void* predicate, void* body);
tvm_script_doc_obj* tvm_script_for_doc_take(void* lhs, void* rhs, void* body);
tvm_script_doc_obj* tvm_script_scope_doc_take(void* lhs, void* rhs, void* body);
tvm_script_doc_obj* tvm_script_expr_stmt_doc_take(void* expr);
tvm_script_doc_obj* tvm_script_assert_doc_take(void* test, void* msg);
tvm_script_doc_obj* tvm_script_return_doc_take(void* value);
tvm_script_doc_obj* tvm_script_function_doc_take(void* name, void* args, void* decorators,
                                                 void* return_type, void* body);
tvm_script_doc_obj* tvm_script_class_doc_take(void* name, void* decorators, void* body);
tvm_script_doc_obj* tvm_script_comment_doc(const char* text);
tvm_script_doc_obj* tvm_script_doc_string_doc(const char* text);

/* ---- Shorthands over the constructors (consume `self`) ------------------------------------- */
/* self.name / self(args...) / self[indices...] */
tvm_script_doc_obj* tvm_script_doc_attr_take(void* self, const char* name);
tvm_script_doc_obj* tvm_script_doc_call_takev(void* self, int64_t n, void* const* args);
#define tvm_script_doc_call_take(self, ...) \
  tvm_script_doc_call_takev((self), TVM_SCRIPT_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})

/* ---- Mutation while building (a doc is mutable until it is shared) ------------------------- */
/* Append an access path (borrowed; NULL = nothing) to doc->source_paths. 0 or -1 (OOM). */
int tvm_script_doc_add_path(void* doc, const void* path);
/* Set a statement's comment (NULL clears it). */
int tvm_script_stmt_doc_set_comment(void* stmt_doc, const char* comment);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_DOC_H_ */

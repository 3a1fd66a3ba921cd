/*
 * parse_eval.h: what the semantic half of the TVMScript parser shares between its files. It
 * reads the syntax tree of ast.h and builds IR straight from it:
 *   parse_eval.c       values, names and the variable table, the expression evaluator;
 *   parse_subscript.c  subscripts (loads, regions, element access) and buffer stores;
 *   parse_stmt.c       the statement handlers of TIR;
 *   parse_func.c       decorators, functions, modules, fragments, the dispatch table and
 *                      tvm_script_parse;
 *   parse_relax_stmt.c the statement handlers of Relax and @R.function definitions.
 *
 * Errors. Every function here that fails returns -1 (or NULL) with ONE error raised whose
 * message is already rendered at a source span (tvm_script_diag_render). Errors coming from
 * libtir, the IR builder or a builtin carry no location: the caller that made that call
 * relocates them (tvm_script__relocate) at the node that caused it, keeping their kind.
 *
 * Dialects. The decorator of a definition picks a dialect token (parse_func.c's kDecorators:
 * `@T.prim_func` -> TIRX, `@I.ir_module` -> IR, `@R.function` -> RELAX), which stays current for
 * the definition's body. Each statement runs the handler registered for (current token, its
 * ast_stmt_kind), else the one registered for SCRIPT_TOKEN_DEFAULT (module-level constants,
 * docstrings). A dialect plugs in with:
 *   1. its token below (it exists for Relax) and its decorator row in kDecorators;
 *   2. a register function (like tvm_script__register_tir_handlers in parse_stmt.c) calling
 *      tvm_script__register_handler(token, AST_<KIND>, handler) for each statement kind it
 *      gives a meaning, called from register_handlers (parse_func.c); a handler gets the
 *      statement node and evaluates its expressions with tvm_script__eval /
 *      tvm_script__eval_call, binds names with tvm_script__vt_bind and drives the IR builder;
 *   3. its `<alias>.<name>` builtins (tvm_script_builtin tables, parse_internal.h), which
 *      tvm_script__eval_call finds by the module the alias names (resolve_builtin in
 *      parse_eval.c).
 * Statement kinds a dialect leaves unregistered are errors at the statement ("this statement
 * (while) is not supported in dialect 'relax'").
 */
#ifndef TVM_SCRIPT_PARSE_EVAL_H_
#define TVM_SCRIPT_PARSE_EVAL_H_

#include <tvm/script/lexer.h>
#include <tvm/tir/tir.h>

#include "ast.h"
#include "parse_internal.h"

/* ---- Dialect tokens and the statement dispatch table ---------------------------------------- */
typedef enum {
  SCRIPT_TOKEN_DEFAULT = 0,
  SCRIPT_TOKEN_IR,
  SCRIPT_TOKEN_TIRX,
  SCRIPT_TOKEN_RELAX,
  SCRIPT_TOKEN_COUNT
} script_token;

typedef struct script_parser script_parser;
typedef int (*script_stmt_handler)(script_parser* p, const ast_stmt* stmt);

/* Install a handler (at start-up, before any parse; not thread-safe). NULL removes it. */
void tvm_script__register_handler(script_token token, ast_stmt_kind kind, script_stmt_handler fn);
/* The handlers of the built-in dialects (parse_stmt.c), installed once by tvm_script_parse. */
void tvm_script__register_tir_handlers(void);

/* ---- The variable table ------------------------------------------------------------------- */
/* Names map to owned values in scopes (function, for/with body, if branch) whose bindings are
 * undone when popped, so that shadowing restores the outer value. The bindings form an undo
 * log; each interned name (ast.h) holds the index of its innermost binding (script_name.binding)
 * and each binding the one it shadows, so a lookup is one load and nothing is hashed. */
typedef struct {
  TVMFFIAny value;
  script_name* name;
  int32_t prev; /* the binding of name this one shadows, -1: none */
} script_binding;
enum { SCRIPT_VT_INLINE = 64, SCRIPT_VT_SCOPES = 16 };
typedef struct {
  script_binding* binds;
  int32_t nbinds, cap_binds;
  int32_t* scopes; /* the nbinds at each scope's start */
  int32_t nscopes, cap_scopes;
  script_binding binds_inline[SCRIPT_VT_INLINE];
  int32_t scopes_inline[SCRIPT_VT_SCOPES];
} script_var_table;

void tvm_script__vt_init(script_var_table* vt); /* with one scope open */
/* Release the values (their names' bindings are left: the names die with the parse). */
void tvm_script__vt_free(script_var_table* vt);
int tvm_script__vt_push_scope(script_var_table* vt);
void tvm_script__vt_pop_scope(script_var_table* vt);
/* Bind name to value (moved; *value becomes None). -1 only on OOM (raised, unlocated). */
int tvm_script__vt_bind(script_var_table* vt, script_name* name, TVMFFIAny* value);
/* The innermost binding's value (borrowed), or NULL. */
static inline const TVMFFIAny* script__vt_lookup(const script_var_table* vt,
                                                 const script_name* name) {
  return name->binding >= 0 ? &vt->binds[name->binding].value : NULL;
}
/* Whether some visible name is bound to the object (a linear scan: for rare questions only). */
bool tvm_script__vt_holds(const script_var_table* vt, const void* obj);

/* ---- Parser state ------------------------------------------------------------------------- */
/* Deepest expression evaluated (a left-deep operator chain counts one level per operator). */
#define SCRIPT_MAX_EVAL_DEPTH 1000

/* The closed struct-info annotations evaluated in a parse: an open-addressing table (at most
 * half full) of entries keyed by an annotation's text and the variables it names, those
 * variables in one array (parse_relax_sinfo_cache.c). Zero: empty. */
typedef struct {
  struct script_sinfo_entry* slots;
  uint32_t cap, count;
  const void** vars;
  uint32_t nvars, vars_cap;
} script_sinfo_cache;

struct script_parser {
  const char* src;
  size_t len;
  const char* filename;
  ast_module* module; /* the tree being evaluated, and its names */
  tvm_script_builder* b;
  const void* extra_vars; /* ffi.Map<String, Any> or NULL (borrowed) */
  script_token token;
  int func_depth; /* > 0 inside a function body */
  bool check_wf;  /* options' check_well_formed */
  bool wf_always; /* options' ignore_check_flags: decorators cannot turn the check off */
  bool fragment;  /* statements outside any definition (a printed fragment) */
  bool has_imports; /* the header imports something (else T, I, R are the default aliases) */
  int eval_depth; /* nesting of tvm_script__eval (bounded by SCRIPT_MAX_EVAL_DEPTH) */
  /* The statements holding the functions of the module being parsed (a class body, or the
   * file's top level for several functions), to find a callee's return type; else NULL. */
  const ast_stmts* module_defs;
  /* Relax: the Vars the last R.output of the dataflow block being parsed made (an ffi.Array,
   * owned) and that call, for the with statement to bind after the block (parse_relax_stmt.c). */
  void* relax_outputs;
  const ast_expr* relax_output_call;
  /* Relax: the last statement of the if branch being parsed when both branches end with a
   * call for its effect (`R.print(x)`), which then binds the if's value; else NULL. */
  const struct ast_stmt* relax_void_tail;
  /* Relax: the signatures a module's declarations evaluated, in declaration order, which the
   * definitions (in the same order) take instead of evaluating them again (parse_relax_stmt.c;
   * tvm_script__relax_signatures_free). */
  struct script_relax_signature* relax_sigs;
  int32_t num_relax_sigs, cap_relax_sigs, next_relax_sig;
  /* Relax: the closed struct-info annotations evaluated so far (parse_relax_sinfo_cache.c). */
  script_sinfo_cache sinfo_cache;
  script_var_table vt;
};


/* The interned name of text s (for names the program does not spell, such as `cls`), or NULL
 * + MemoryError. */
static inline script_name* script__name(script_parser* p, const char* s) {
  return tvm_script__intern_cstr(&p->module->names, s);
}
/* Bind the file's header imports, in the outermost scope (before any evaluation). */
int tvm_script__bind_imports(script_parser* p);

/* ---- Special values --------------------------------------------------------------------------
 */
/* Values with no FFI type are opaque pointers to these static markers. */
typedef enum {
  SCRIPT_SPECIAL_MODULE, /* an imported TVMScript module (T, I, R): name = "tirx"/"ir"/"relax" */
  SCRIPT_SPECIAL_CLS,    /* `cls` / the class name inside an @I.ir_module class */
  SCRIPT_SPECIAL_RANGE,  /* Python's `range` */
  SCRIPT_SPECIAL_FLOAT,  /* Python's `float` (the printer writes `float("inf")`, `float("nan")`) */
} script_special_kind;
typedef struct {
  script_special_kind kind;
  const char* name;
} script_special;
/* The value of `cls` (and of the class name) inside a module class. */
TVMFFIAny tvm_script__cls_value(void);
/* The marker of value v, or NULL. */
const script_special* tvm_script__special_of(const TVMFFIAny* v);

/* ---- Errors --------------------------------------------------------------------------------- */
/* Raise `kind` with a message rendered at span (NULL: no location). Returns -1. */
int tvm_script__error_at(script_parser* p, const tvm_script_span* span, const char* kind,
                         const char* fmt, ...) TVM_FFI_PRINTF(4, 5) TVM_FFI_COLD;
/* Re-raise the pending (unlocated) error at span, keeping its kind. Returns -1. */
int tvm_script__relocate(script_parser* p, const tvm_script_span* span) TVM_FFI_COLD;

/* ---- Evaluation --------------------------------------------------------------------------- */
/* Evaluate an expression into *out (owned). */
int tvm_script__eval(script_parser* p, const ast_expr* e, TVMFFIAny* out);
/* The attribute `e` (an AST_ATTR node: its name and span) of the value *value, which it takes
 * (left none): what tvm_script__eval gives for e once e's value is evaluated. */
int tvm_script__attr_of(script_parser* p, const ast_expr* e, TVMFFIAny* value, TVMFFIAny* out);
/* Evaluate a CALL in a context (statement handlers: STMT, ASSIGN, WITH, FOR) with the names
 * being bound (NUL-terminated texts). */
int tvm_script__eval_call(script_parser* p, const ast_expr* call, tvm_script_call_ctx ctx,
                          const char* const* targets, int32_t num_targets, TVMFFIAny* out);
/* Evaluate to a PrimExpr (Python numbers converted as tvm_script__value_to_expr_slow does).
 * NULL on failure. */
tvm_tir_expr_obj* tvm_script__eval_expr(script_parser* p, const ast_expr* e);
/* A PrimExpr of value v (borrowed): a PrimExpr as is, a Python number converted to the dtype
 * `like` when given (a literal next to a PrimExpr of that dtype) else as
 * tvm_script__value_to_expr_slow. Unlocated error on failure. */
tvm_tir_expr_obj* tvm_script__to_expr_slow(const TVMFFIAny* v, const DLDataType* like);
static inline tvm_tir_expr_obj* script__to_expr(const TVMFFIAny* v, const DLDataType* like) {
  if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_expr_obj*)v->v_obj;
  }
  return tvm_script__to_expr_slow(v, like);
}
/* Python truthiness of a non-PrimExpr value. */
bool tvm_script__truthy(const TVMFFIAny* v);
/* The TIR dtype a value names (`T.float32`, "float32"), or false. */
bool tvm_script__as_dtype(const TVMFFIAny* v, DLDataType* out);
/* Whether e names `T.<name>` (through any alias of the tir module). */
bool tvm_script__is_tir_attr(script_parser* p, const ast_expr* e, const char* name);
/* Whether an annotation is `T.let`. */
bool tvm_script__is_let_annotation(script_parser* p, const ast_expr* ann);
/* Whether name n is an alias of the Relax module where it is used. */
bool tvm_script__is_relax_alias(script_parser* p, const script_name* n);
/* Resolve `<alias>.a.b` to its module marker and dotted rest ("a.b" into buf). */
const script_special* tvm_script__dotted(script_parser* p, const ast_expr* e, char* buf,
                                         size_t bufsize, size_t* out_len);
/* Whether e is a call of `R.<want>` (through any alias of the Relax module). */
bool tvm_script__is_relax_call(script_parser* p, const ast_expr* e, const char* want);

/* value[indices...] (parse_subscript.c). */
int tvm_script__eval_index(script_parser* p, const ast_expr* e, TVMFFIAny* out);
/* An argument of T.reads / T.writes (tvm_script_builtin.region_args): when e is A[i, j] with A
 * a Buffer's name and no slice, evaluates it as tvm_script__eval would, but to the BufferRegion
 * that tvm_script__value_to_region makes of the BufferLoad (the same errors, at the same points;
 * no load and no index Array made only to be dropped): 0, or -1 with the error. 1 (out left
 * None) for any other e: the caller evaluates it as usual. */
int tvm_script__eval_region(script_parser* p, const ast_expr* e, TVMFFIAny* out);
/* lhs[...] = value (a BufferStore; slices become Ramp indices; a Python literal takes the
 * buffer's dtype). Errors of the store itself are located at `at`. */
int tvm_script__store(script_parser* p, const ast_expr* lhs, const TVMFFIAny* value,
                      const tvm_script_span* at);

/* Relax dims written as strings (parse_relax_dims.c): whether s[0..n) is a name (left to the
 * builtin as a symbolic variable), and the PrimExpr an expression string such as "n * 2"
 * denotes over the function's symbolic variables (errors located inside the literal). */
bool tvm_script__relax_dim_is_name(const char* s, size_t n);
int tvm_script__relax_dim_expr(script_parser* p, const ast_expr* lit, TVMFFIAny* out);

/* Run each statement of a body through the dispatch table. */
int tvm_script__run_body(script_parser* p, ast_stmts stmts);
int tvm_script__run_stmt(script_parser* p, const ast_stmt* stmt);
/* Close builder frames until the depth is back at `depth` (errors relocated at span). */
int tvm_script__exit_to(script_parser* p, int depth, const tvm_script_span* span);

/* Definitions (parse_func.c): a def in the current dialect / inside a class. */
int tvm_script__parse_function(script_parser* p, const ast_stmt* fn);
/* The TVM_SCRIPT_RELAX_* flags of an @R.function def's decorator (parse_func.c). */
int tvm_script__relax_decorator_flags(script_parser* p, const ast_stmt* fn, unsigned* flags);

/* The Relax dialect (parse_relax_stmt.c): its handlers; an @R.function def (the builder's
 * function_end result in *out: a local function's Var, a module function's GlobalVar or the
 * top-level Function); the declaration of a module's Relax function with the struct info of its
 * signature (bind_name: bind the def's name to the GlobalVar, for functions at a file's top). */
void tvm_script__register_relax_handlers(void);
int tvm_script__parse_relax_function(script_parser* p, const ast_stmt* fn, unsigned flags,
                                     void** out);
int tvm_script__relax_decl_function(script_parser* p, const ast_stmt* fn, bool pure,
                                    bool bind_name);
void tvm_script__relax_signatures_free(script_parser* p);
/* An annotation's struct info (a tvm_relax_sinfo_obj, new reference), or NULL with a located
 * error; a closed annotation written before takes the struct info evaluated then
 * (parse_relax_sinfo_cache.c, which tvm_script__sinfo_cache_free empties). */
struct tvm_relax_sinfo_obj* tvm_script__relax_eval_sinfo(script_parser* p, const ast_expr* ann,
                                                         const char* what);
void tvm_script__sinfo_cache_free(script_parser* p);

#endif /* TVM_SCRIPT_PARSE_EVAL_H_ */

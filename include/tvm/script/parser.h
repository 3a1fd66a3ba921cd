/*
 * tvm/script/parser.h: the TVMScript parser, in two halves.
 *
 * 1. Front end (parse.c): text -> syntax tree (plain structures in an arena, freed after the
 *    parse: libscript/src/ast.h); tvm_script_parse_doc converts it to a Doc tree
 *    (tvm/script/doc.h), whose kinds the table below names.
 * 2. Semantic half (tvm_script_parse, libscript/src/parse_*.c): walks the syntax tree, evaluates
 *    its expressions (Python values, PrimExprs through libtir's operator helpers, `T.*`
 *    builtins) over a scoped variable table, and drives the IR builder (tvm/script/ir_builder.h)
 *    to produce an IRModule, a PrimFunc or a fragment's Stmt / PrimExpr. Statements dispatch on
 *    (dialect token, statement kind): the decorator picks the token (`@T.prim_func` -> "tirx",
 *    `@I.ir_module` -> "ir", `@R.function` -> "relax"). Names resolve
 *    through the variable table (function / loop / with / branch scopes over the file's
 *    module-level constants), then the file's import aliases, opts->extra_vars and Python
 *    builtins (`range`). Every semantic error is ONE error of the underlying kind (NameError,
 *    TypeError from a typing rule, ValueError from the well-formedness check, ...) rendered by
 *    tvm_script_diag_render at the construct that caused it (a builtin's offending argument;
 *    for an ill-formed function, the statement that built the node at the end of the checker's
 *    access path, or the function's name when no statement did).
 *
 * Front end. The result is a StmtBlockDoc of the module's statements; every doc carries the
 * exact source span of its text (for a parenthesised expression, the span of what is inside
 * the parentheses, as Python's ast does). A bad program fails with ONE "SyntaxError" whose
 * message is rendered by tvm_script_diag_render: `file:line:col: error: <message>`, the source
 * line and '^' under the offending span. The parser never recurses deeper than
 * TVM_SCRIPT_MAX_NESTING levels.
 *
 * The Python subset and how it maps onto docs:
 *   header lines    `from tvm.script import tirx as T` (also tir, ir, relax; several names per
 *                   line) are recorded in the imports map (alias -> module), not in the tree.
 *   @d def f(a: T, b: U = v) -> R: body      FunctionDoc, args AssignDoc(IdDoc, default, ann)
 *   @d class C: body                          ClassDoc (no base classes)
 *   x = v, a, b = v, x: T = v, x: T           AssignDoc (tuple targets are TupleDocs)
 *   x op= v                                   AssignDoc(x, OperationDoc(op, x, v)), sharing x
 *   if / elif / else                          IfDoc (elif: an else branch of one IfDoc)
 *   for t in e / while c                      ForDoc / WhileDoc (no `else` clause)
 *   with a as x, b as y: body                 nested ScopeDocs, one per item
 *   return [v], assert c[, msg], e            ReturnDoc, AssertDoc, ExprStmtDoc
 *   a string first in a def/class body       DocStringDoc
 *   pass                                      nothing (an empty body is a pass)
 *   a < b < c                                 OperationDoc(And, a < b, b < c), b's docs equal
 *   x if c else y                             OperationDoc(IfThenElse, x, c, y)
 *   +x                                        x itself (its span widened over the '+')
 *   "a" "b"                                   one LiteralDoc "ab"
 *   a[i, 1:n:2]                               IndexDoc with indices [i, SliceDoc]
 *   lambda x, y: e                            LambdaDoc
 *   f(a, *xs, k=v)                            CallDoc; `*xs` is a StarredDoc among the args
 *                                             (also after keywords, as Python allows)
 * Rejected with "... is not supported in TVMScript" at the construct: other imports, try, raise,
 * global, nonlocal, del, yield, await, async, break, continue, comprehensions, set literals,
 * walrus, double-starred arguments (`**kw`), `@` (matmul), `is` / `in` comparisons, `...`,
 * for/while `else`, chained assignment, class bases, `*`/`**` parameters, bytes, f-strings.
 * (`*x` outside call arguments is not an expression: "expected an expression".)
 */
#ifndef TVM_SCRIPT_PARSER_H_
#define TVM_SCRIPT_PARSER_H_

#include <stdbool.h>
#include <stddef.h>
#include <tvm/script/doc.h>
#include <tvm/script/lexer.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* Parse source[0..len) (filename is for messages; NULL: "<string>"). Returns a new
 * StmtBlockDoc, or NULL with a SyntaxError raised. The docs are ordinary counted objects, made
 * from the parser's syntax tree (which is freed before the call returns). */
void* tvm_script_parse_doc(const char* source, size_t len, const char* filename);

/* As tvm_script_parse_doc; also *out_imports = a new ffi.Map from each imported alias ("T") to
 * its module name as written ("tirx", "tir", "ir", "relax"). out_imports may be NULL. */
void* tvm_script_parse_doc_ex(const char* source, size_t len, const char* filename,
                              void** out_imports);

/* ---- Text -> IR -------------------------------------------------------------------------- */
typedef struct {
  const char* filename;    /* for messages; NULL = "<string>" */
  /* Caller-supplied bindings visible to the program (upstream's extra_vars): an
   * ffi.Map<String, Any> (borrowed; NULL = none). Names defined in the file shadow them. */
  const void* extra_vars;
  bool check_well_formed;  /* verify the result's well-formedness: tvm_tir_verify_well_formed
                              on PrimFuncs, tvm_relax_verify_well_formed on Relax functions
                              (default true; a decorator's check_well_formed=False turns its
                              function's check off, but for a Relax function in a module,
                              which is checked with the module's other Relax functions) */
  bool ignore_check_flags; /* with check_well_formed, check also the functions whose decorator
                              says check_well_formed=False (default false; a checker that wants
                              every error located, as tvmc check) */
} tvm_script_parse_options;
void tvm_script_parse_options_init(tvm_script_parse_options* opts);

/*
 * TVMScript text -> IR. The result (a new reference) is an IRModule for `@I.ir_module class`,
 * a PrimFunc for a lone `@T.prim_func def` (a Relax Function for a lone `@R.function def`), an
 * IRModule of the functions (by name, each able to call the others by name) for several
 * top-level `@T.prim_func` / `@R.function` defs, and for statements
 * outside any definition (a printed fragment, its free variables declared first) the Stmt they
 * build; when the fragment is only declarations and a final expression statement, the value of
 * that expression (a PrimExpr, BufferRegion, ...); when only declarations, the last declared
 * Var or Buffer. Module-level assignments before the definitions are Python constants. NULL on
 * failure with ONE error raised: SyntaxError for bad syntax; for a semantic error the kind of
 * the underlying error (TypeError, ValueError, NameError, ...). Its message is rendered by
 * tvm_script_diag_render at the span of the construct that caused it. opts NULL = defaults.
 */
void* tvm_script_parse(const char* source, size_t len, const tvm_script_parse_options* opts);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_PARSER_H_ */

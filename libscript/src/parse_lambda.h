/*
 * parse_lambda.h: `lambda x, y: body` as a call argument (parse_lambda.c). The evaluator turns a
 * lambda written directly as an argument of a builtin call into an ffi.Function; the builtin
 * (T.comm_reducer) calls it with values (fresh Vars) that bind the parameters while the body is
 * evaluated in the current scope. A lambda anywhere else stays a located NotImplementedError.
 *
 * The function holds a pointer to the parser, so it is callable only during the call it is an
 * argument of: the evaluator chains the lambdas of a call and ends them after it (a later call,
 * should a builtin have kept the function, raises instead of touching a dead parser).
 */
#ifndef TVM_SCRIPT_PARSE_LAMBDA_H_
#define TVM_SCRIPT_PARSE_LAMBDA_H_

#include "parse_eval.h"

typedef struct script_lambda script_lambda;

/* *out = the function of LAMBDA node e, linked into *chain. -1 with a located error (out of
 * memory). */
int tvm_script__lambda_new(script_parser* p, const ast_expr* e, script_lambda** chain,
                           TVMFFIAny* out);
/* After the call: a lambda body that failed during it left its (located) error; when `failed`
 * and there is one, raise it again and return true (the caller must not relocate it). Either
 * way, every lambda of the chain is detached from the parser; *chain becomes NULL. */
bool tvm_script__lambdas_end(script_lambda** chain, bool failed);

/* Whether a lambda of the chain is referenced beyond its call's argument list (the builtin
 * kept it, or returned it). */
bool tvm_script__lambda_escaped(const script_lambda* chain);
/* The parameter names of a lambda's function (an ffi.Array of ffi.String, new reference) for a
 * builtin that names what it passes (T.comm_reducer names its Vars after them); NULL with a
 * TypeError naming `what` when fn is no lambda. Usable while the lambda is. */
void* tvm_script__lambda_params(const TVMFFIAny* fn, const char* what);

#endif /* TVM_SCRIPT_PARSE_LAMBDA_H_ */

/*
 * tvm-private/relax.h: librelax's internals that the project's tests call (not installed).
 */
#ifndef TVM_PRIVATE_RELAX_H_
#define TVM_PRIVATE_RELAX_H_

#include <stdbool.h>
#include <tvm/relax/node.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the reference evaluator (tvm_relax_eval, eval.c) has a rule for a Relax expression of
 * the kind; for the test that every node kind has its row in each table that needs one
 * (tests/codegen/test_node_tables.c). */
bool tvm_relax__eval_rule(tvm_relax_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* TVM_PRIVATE_RELAX_H_ */

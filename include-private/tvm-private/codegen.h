/*
 * tvm-private/codegen.h: libcodegen's internals that the project's tests call (not installed).
 */
#ifndef TVM_PRIVATE_CODEGEN_H_
#define TVM_PRIVATE_CODEGEN_H_

#include <stdbool.h>
#include <tvm/relax/node.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The per-kind tables of libcodegen, for the test that every node kind has its row in each
 * table that needs one (tests/codegen/test_node_tables.c). */
/* Whether the LLVM code generator has a rule for a PrimExpr / Stmt of the kind
 * (codegen_llvm.c). */
bool tvm_codegen__llvm_expr_rule(tvm_tir_kind kind);
bool tvm_codegen__llvm_stmt_rule(tvm_tir_kind kind);
/* Whether the Relax -> VM code generator has a rule for a Relax expression of the kind
 * (relax_vm_codegen.c). */
bool tvm_codegen__vm_expr_rule(tvm_relax_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* TVM_PRIVATE_CODEGEN_H_ */

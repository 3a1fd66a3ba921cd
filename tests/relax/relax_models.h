/*
 * relax_models.h: Relax models built with the BlockBuilder, shared by the tests and the
 * benchmarks (relax_models.c).
 */
#ifndef TVM_TESTS_RELAX_MODELS_H_
#define TVM_TESTS_RELAX_MODELS_H_

#include <tvm/relax/relax.h>

/*
 * A transformer encoder: `layers` layers over x: (n, seq, hidden) float32 with a symbolic batch
 * n; each layer is layer norm, multi-head attention with each of `heads` heads written out
 * (its own q/k/v projections, scores, softmax, weighted sum: 8 bindings a head), the heads
 * concatenated and projected, a residual add, then layer norm, a GELU MLP and a residual add.
 * hidden must be a multiple of heads. Weights are parameters shared by every layer. Returns the
 * module (main) or NULL + error.
 */
tvm_tir_ir_module_obj* relax_models_transformer(int layers, int heads, int64_t seq, int64_t hidden);

/* The number of bindings relax_models_transformer emits. */
int64_t relax_models_transformer_bindings(int layers, int heads);

#endif /* TVM_TESTS_RELAX_MODELS_H_ */

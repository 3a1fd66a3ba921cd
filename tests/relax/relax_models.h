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

/*
 * An MLP-like chain in one dataflow block: main(x: (batch, hidden), w: (hidden, hidden)) applies
 * `layers` times h = relu(matmul(h, w)) and returns h (an output of the block). batch < 0: a
 * symbolic batch n. Not legalized. Returns the module or NULL + error.
 */
tvm_tir_ir_module_obj* relax_models_mlp(int layers, int64_t batch, int64_t hidden);

/*
 * A compact text of the top-level bindings of function `name` of mod, for structure checks:
 * blocks separated by " | " (a dataflow block starts with "df: "), bindings by "; ", each
 * `var = value` with calls as `op(args)` (the operator name without "relax.", a GlobalVar's name),
 * Vars by name, `t[0]` for a tuple item, constants as `const`, shapes as `shape(2, 4)`, PrimValues as numbers, dtypes and strings bare, tuples
 * as `(a, b)`, If as `if(...)`, anything else `?`. The text is written to buf (size bytes).
 */
const char* relax_models_bindings_text(const tvm_tir_ir_module_obj* mod, const char* name, char* buf,
                                       size_t size);

/* How many top-level bindings of function `name` call operator op_name ("relax.call_tir"). */
int64_t relax_models_count_calls(const tvm_tir_ir_module_obj* mod, const char* name,
                                 const char* op_name);

#endif /* TVM_TESTS_RELAX_MODELS_H_ */

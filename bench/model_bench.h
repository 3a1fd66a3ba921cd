/* model_bench.h: the models of model_bench (model_bench_models.c). */
#ifndef TVM_BENCH_MODEL_BENCH_H_
#define TVM_BENCH_MODEL_BENCH_H_

#include <tvm/relax/relax.h>

enum { BENCH_MAX_PARAMS = 16, BENCH_TINY_OPS = 1000 };

typedef struct {
  char name[32];
  tvm_tir_ir_module_obj* mod; /* main(params...) -> one tensor; owned */
  int nparams;
  int ndim[BENCH_MAX_PARAMS];
  int64_t shape[BENCH_MAX_PARAMS][4];
  int ops; /* operator calls per run (tiny-ops), else 0 */
} bench_model;

/* NULL-terminated: mlp-b1, mlp-b32, cnn, transformer, resnet-block, tiny-ops. */
extern const char* const bench_model_names[];

/* Build model `name` into *out. 0, or -1 + error. */
int bench_model_build(const char* name, bench_model* out);

#endif /* TVM_BENCH_MODEL_BENCH_H_ */

/*
 * model.h: tvmc on Relax models (an @I.ir_module holding @R.functions, with or without
 * @T.prim_funcs): `tvmc build` through the Relax build (one model library, --emit, --dump-ir)
 * and `tvmc run` in the Relax VM against the reference evaluator (tvm/relax/eval.h).
 */
#ifndef TVMC_MODEL_H_
#define TVMC_MODEL_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/codegen/codegen.h>

/* Whether ir (a parsed file) is a module holding at least one Relax function. */
bool tvmc_is_relax_module(const void* ir);

typedef struct {
  const char* path;    /* the model's file, for messages */
  const char* out;     /* the library to write, or NULL (only with emit) */
  const char* emit;    /* NULL, "text" or "python": print the executable */
  const char* dump_ir; /* NULL, or the folder for the module after each pass */
  tvm_codegen_options codegen;
} tvmc_model_build_options;

/* `tvmc build` of a Relax module mod (borrowed). Returns the exit status, problems reported. */
int tvmc_model_build(const void* mod, const tvmc_model_build_options* opts);

typedef struct {
  const char* path;     /* the model file (.py), or NULL when running a library alone */
  const char* lib;      /* a model library to run instead of compiling path (NULL: compile) */
  const char* func;     /* the function to run (NULL: main, or the only Relax function) */
  const char** shapes;  /* --shape NAME=VALUE items */
  int num_shapes;
  const char** inputs;  /* --input NAME=SHAPE[:DTYPE] items */
  int num_inputs;
  int64_t repeat;
  unsigned seed;
  bool no_check;
  tvm_codegen_options codegen;
} tvmc_model_run_options;

/* `tvmc run` of a Relax model: mod (borrowed) is the parsed model (NULL with a library alone).
 * Returns the exit status, problems reported. */
int tvmc_model_run(const void* mod, const tvmc_model_run_options* opts);

#endif /* TVMC_MODEL_H_ */

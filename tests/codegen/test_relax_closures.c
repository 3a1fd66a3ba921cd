/*
 * test_relax_closures.c: local functions and function values in Relax models. LambdaLift turns
 * lambdas into module functions (bound directly when they capture nothing, else through
 * R.make_closure / R.invoke_pure_closure); the reference evaluator runs the model before and
 * after lifting, and the compiled model (the whole build pipeline, VMCodeGen's closures and
 * function values, libvm's vm.builtin.make_closure / invoke_closure) must agree with it on
 * random inputs: a lambda capturing a parameter called twice, a recursive lambda with and
 * without captures, a lambda inside a lambda, and module functions passed as values to a
 * function that calls its function-typed parameter.
 */
#include <math.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/script/printer.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "values_testing.h"
#include "exec_mode_testing.h"

/* Objects made while building a model, released together. */
static void* g_keep[512];
static int g_nkeep;
static void* keep(void* obj) {
  if (g_nkeep < 512) g_keep[g_nkeep++] = obj;
  return obj;
}
static void release_kept(void) {
  while (g_nkeep > 0) tvm_ffi_release(g_keep[--g_nkeep]);
}

static void* scalar_tensor(float v) {
  void* t = tvm_ffi_tensor_empty(NULL, 0, F32, (DLDevice){kDLCPU, 0});
  *(float*)tvm_ffi_tensor_dl(t)->data = v;
  return t;
}

/* ---- Building blocks ------------------------------------------------------------------------ */
static tvm_relax_var_obj* param(const char* name, tvm_relax_sinfo_obj* sinfo) {
  return keep(rt_var_take(name, sinfo));
}

/* `name = value` with the value's struct info; *var receives the bound Var. */
static tvm_relax_binding_obj* bind(const char* name, tvm_relax_expr_obj* value,
                                   tvm_relax_var_obj** var) {
  *var = value ? keep(tvm_relax_var_new(name, tvm_relax_sinfo_of(value), false)) : NULL;
  return *var ? keep(tvm_relax_var_binding_new(*var, value)) : NULL;
}

/* A SeqExpr of one block of n bindings and body. */
static tvm_relax_expr_obj* seq(int n, tvm_relax_binding_obj* const* bs, void* body) {
  void* arr = keep(tvm_ffi_array_of_objects((void**)bs, n));
  tvm_relax_block_obj* blk = keep(tvm_relax_block_new(arr, false));
  return keep(tvm_relax_seq_expr_new(keep(rt_array(1, blk)), body));
}

static tvm_relax_expr_obj* call(const char* op, void* a, void* b) {
  return keep(b ? RT_CALL(op, NULL, a, b) : RT_CALL(op, NULL, a));
}

static tvm_relax_expr_obj* call_fn(void* fn, int n, void* const* args) {
  void* arr = keep(tvm_ffi_array_of_objects((void**)args, n));
  return keep(tvm_relax_call_new(fn, arr, NULL, NULL, NULL));
}

static tvm_relax_expr_obj* constant(float v) {
  void* t = keep(scalar_tensor(v));
  return keep(tvm_relax_constant_new(t, NULL));
}

static tvm_relax_sinfo_obj* vec4(void) { return rt_tensor(F32, 1, (int64_t)4); }
static tvm_relax_sinfo_obj* scalar(void) { return rt_tensor(F32, 0); }

/* A module of main(params) = body, main public (a global_symbol: the build's
 * DeadCodeElimination keeps what the public functions reach). */
static tvm_tir_ir_module_obj* module(void* main_params, tvm_relax_expr_obj* main_body) {
  void* attrs = keep(rt_attrs(1, "global_symbol", tvm_ffi_string("main")));
  tvm_relax_function_obj* main_f = keep(tvm_relax_function_new(main_params, main_body, NULL, true, attrs));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_tir_ir_module_obj* out =
      main_f && keep(tvm_relax_bb_add_function(bb, main_f, "main")) ? tvm_relax_bb_module(bb) : NULL;
  tvm_relax_bb_free(bb);
  return out;
}

/* ---- Models --------------------------------------------------------------------------------- */
/* main(x: (n, 4), y: (4,)):
 *   a = relu(x)
 *   add_y = lambda z: (n, 4): z + y          (captures y)
 *   b = add_y(a); c = add_y(b)
 *   return c * x */
static tvm_tir_ir_module_obj* capture_model(void) {
  tvm_tir_var_obj* n = keep(tvm_tir_var_new("n", I64));
  void* d[2] = {n, keep(tvm_tir_const_int(I64, 4))};
  tvm_relax_var_obj* x = param("x", rt_tensor_sym(F32, 2, d));
  tvm_relax_var_obj* y = param("y", vec4());
  tvm_relax_var_obj* z = param("z", rt_tensor_sym(F32, 2, d));
  tvm_relax_var_obj *s, *a, *b, *c, *add_y, *out;
  tvm_relax_binding_obj* inner[1] = {bind("s", call("relax.add", z, y), &s)};
  tvm_relax_function_obj* lambda =
      keep(tvm_relax_function_new(keep(rt_array(1, z)), seq(1, inner, s), NULL, true, NULL));
  tvm_relax_binding_obj* bs[5] = {
      bind("a", call("relax.nn.relu", x, NULL), &a),
      bind("add_y", (void*)lambda, &add_y),
      bind("b", call_fn(add_y, 1, (void*[]){a}), &b),
      bind("c", call_fn(add_y, 1, (void*[]){b}), &c),
      bind("out", call("relax.multiply", c, x), &out),
  };
  return module(keep(rt_array(2, x, y)), seq(5, bs, out));
}

/* main(x: (4,), k: ()): a recursive lambda, capturing `step` or not:
 *   step = x * 0.5            (captured when `captures`)
 *   loop = lambda v: (4,), j: ():
 *            if j > 0.5: loop(v + step|v * 0.5, j - 1) else v
 *   return loop(x, k) */
static tvm_tir_ir_module_obj* recursive_model(bool captures) {
  tvm_relax_var_obj* x = param("x", vec4());
  tvm_relax_var_obj* k = param("k", scalar());
  tvm_relax_var_obj* v = param("v", vec4());
  tvm_relax_var_obj* j = param("j", scalar());
  tvm_relax_var_obj *step, *loop, *cond, *next, *j1, *r, *out;
  tvm_relax_binding_obj* step_b = bind("step", call("relax.multiply", x, constant(0.5f)), &step);
  /* The lambda's own Var first: its body calls it. */
  tvm_relax_sinfo_obj* lsinfo = keep(tvm_relax_func_sinfo_new(
      keep(tvm_ffi_array_of_objects((void*[]){keep(vec4()), keep(scalar())}, 2)), keep(vec4()), true));
  loop = keep(tvm_relax_var_new("loop", lsinfo, false));
  tvm_relax_binding_obj* then_b[3] = {
      bind("next", captures ? call("relax.add", v, step) : call("relax.multiply", v, constant(0.5f)), &next),
      bind("j1", call("relax.subtract", j, constant(1.0f)), &j1),
      bind("r", call_fn(loop, 2, (void*[]){next, j1}), &r),
  };
  tvm_relax_expr_obj* then_e = seq(3, then_b, r);
  tvm_relax_expr_obj* else_e = keep(tvm_relax_seq_expr_new(NULL, (void*)v));
  tvm_relax_binding_obj* body_b[2] = {
      bind("cond", call("relax.greater", j, constant(0.5f)), &cond),
      bind("res", keep(tvm_relax_if_new((void*)cond, then_e, else_e)), &out),
  };
  tvm_relax_function_obj* lambda = keep(tvm_relax_function_new(
      keep(rt_array(2, v, j)), seq(2, body_b, out), keep(vec4()), true, NULL));
  tvm_relax_binding_obj* loop_b = keep(tvm_relax_var_binding_new(loop, (void*)lambda));
  tvm_relax_var_obj* res;
  tvm_relax_binding_obj* bs[3] = {step_b, loop_b, bind("res", call_fn(loop, 2, (void*[]){x, k}), &res)};
  return module(keep(rt_array(2, x, k)), seq(3, bs, res));
}

/* main(x: (4,), y: (4,)): a lambda inside a lambda, both capturing:
 *   outer = lambda a: (4,): (inner = lambda b: (4,): b * y + a); inner(a) + inner(x)
 *   return outer(x) */
static tvm_tir_ir_module_obj* nested_model(void) {
  tvm_relax_var_obj* x = param("x", vec4());
  tvm_relax_var_obj* y = param("y", vec4());
  tvm_relax_var_obj* a = param("a", vec4());
  tvm_relax_var_obj* b = param("b", vec4());
  tvm_relax_var_obj *m, *s, *inner, *i1, *i2, *t, *outer, *r;
  tvm_relax_binding_obj* ib[2] = {bind("m", call("relax.multiply", b, y), &m),
                                  bind("s", call("relax.add", m, a), &s)};
  tvm_relax_function_obj* inner_f =
      keep(tvm_relax_function_new(keep(rt_array(1, b)), seq(2, ib, s), NULL, true, NULL));
  tvm_relax_binding_obj* ob[4] = {
      bind("inner", (void*)inner_f, &inner),
      bind("i1", call_fn(inner, 1, (void*[]){a}), &i1),
      bind("i2", call_fn(inner, 1, (void*[]){x}), &i2),
      bind("t", call("relax.add", i1, i2), &t),
  };
  tvm_relax_function_obj* outer_f =
      keep(tvm_relax_function_new(keep(rt_array(1, a)), seq(4, ob, t), NULL, true, NULL));
  tvm_relax_binding_obj* bs[2] = {bind("outer", (void*)outer_f, &outer),
                                  bind("r", call_fn(outer, 1, (void*[]){x}), &r)};
  return module(keep(rt_array(2, x, y)), seq(2, bs, r));
}

/* Module functions as values: apply(f: Callable((4,) -> (4,)), v) = f(v) * 2;
 * main(x, y) = apply(cls.neg, x) + apply(sq, y) where sq = lambda w: w * w (capturing nothing,
 * so a GlobalVar after lifting) and neg(w) = negative(w). */
static tvm_tir_ir_module_obj* higher_order_model(void) {
  tvm_relax_sinfo_obj* fs = keep(tvm_relax_func_sinfo_new(
      keep(tvm_ffi_array_of_objects((void*[]){keep(vec4())}, 1)), keep(vec4()), true));
  tvm_relax_var_obj* f = keep(tvm_relax_var_new("f", fs, false));
  tvm_relax_var_obj* v = param("v", vec4());
  tvm_relax_var_obj *fv, *dbl;
  tvm_relax_binding_obj* ab[2] = {bind("fv", call_fn(f, 1, (void*[]){v}), &fv),
                                  bind("dbl", call("relax.multiply", fv, constant(2.0f)), &dbl)};
  tvm_relax_function_obj* apply =
      keep(tvm_relax_function_new(keep(rt_array(2, f, v)), seq(2, ab, dbl), keep(vec4()), true, NULL));
  tvm_relax_var_obj* w = param("w", vec4());
  tvm_relax_var_obj* nw;
  tvm_relax_binding_obj* nb[1] = {bind("nw", call("relax.negative", w, NULL), &nw)};
  tvm_relax_function_obj* neg =
      keep(tvm_relax_function_new(keep(rt_array(1, w)), seq(1, nb, nw), keep(vec4()), true, NULL));
  /* main needs the GlobalVars: build the module in two steps. */
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_tir_global_var_obj* g_apply = keep(tvm_relax_bb_add_function(bb, apply, "apply"));
  tvm_tir_global_var_obj* g_neg = keep(tvm_relax_bb_add_function(bb, neg, "neg"));
  tvm_relax_var_obj* x = param("x", vec4());
  tvm_relax_var_obj* y = param("y", vec4());
  tvm_relax_var_obj* u = param("u", vec4());
  tvm_relax_var_obj* uu;
  tvm_relax_binding_obj* sb[1] = {bind("uu", call("relax.multiply", u, u), &uu)};
  tvm_relax_function_obj* sq =
      keep(tvm_relax_function_new(keep(rt_array(1, u)), seq(1, sb, uu), keep(vec4()), true, NULL));
  tvm_tir_ir_module_obj* out = NULL;
  if (tvm_relax_bb_function_begin(bb, "main", keep(rt_array(2, x, y)), NULL, true) == 0) {
    tvm_relax_var_obj* sqv = keep(tvm_relax_bb_emit(bb, (void*)sq, "sq"));
    tvm_relax_var_obj* p = keep(tvm_relax_bb_emit(bb, call_fn(g_apply, 2, (void*[]){g_neg, x}), "p"));
    tvm_relax_var_obj* q = keep(tvm_relax_bb_emit(bb, call_fn(g_apply, 2, (void*[]){sqv, y}), "q"));
    tvm_relax_var_obj* r = keep(tvm_relax_bb_emit(bb, call("relax.add", p, q), "r"));
    if (r && keep(tvm_relax_bb_function_end(bb, (void*)r, NULL))) out = tvm_relax_bb_module(bb);
  }
  tvm_relax_bb_free(bb);
  return out;
}

/* The number of Relax functions of mod. */
static int relax_functions(const tvm_tir_ir_module_obj* mod) {
  int n = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;)
    n += tvm_relax_kind_of(v->v_obj) == TVM_RELAX_KIND_Function;
  return n;
}

/* Lift mod (legalized first, as the evaluator needs kernels), check that the lifted module has
 * `want_funcs` Relax functions and is well formed, then run main on inputs from make_args in
 * the evaluator before and after lifting and in the compiled model, trials times. */
typedef int (*make_args_fn)(int trial, TVMFFIAny* args);

static void check_model_(int line, tvm_tir_ir_module_obj* mod, int want_funcs, make_args_fn make,
                         int trials, const char* must_print) {
  if (!mod) {
    fprintf(stderr, "line %d: model not built\n", line);
    CHECK_OK(-1);
    release_kept();
    return;
  }
  tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
  tvm_tir_ir_module_obj* lifted = legal ? tvm_relax_transform_lambda_lift(legal) : NULL;
  CHECK(lifted != NULL);
  if (!lifted) CHECK_OK(-1);
  if (lifted) {
    CHECK_EQ_INT(relax_functions(lifted), want_funcs);
    CHECK_OK(tvm_relax_verify_well_formed(lifted));
    TVMFFIAny m = tvm_ffi_any_obj(lifted);
    void* text = tvm_script_print(&m, NULL);
    CHECK(text != NULL);
    const char* t = text ? tvm_ffi_str_cstr(text) : "";
    if (text && must_print && !strstr(t, must_print)) {
      fprintf(stderr, "line %d: the lifted module lacks \"%s\":\n%s\n", line, must_print, t);
      CHECK(0);
    }
    tvm_ffi_release(text);
  }
  tvm_vm_executable* exec = lifted ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  CHECK(exec != NULL);
  if (!exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  for (int trial = 0; vm && trial < trials; ++trial) {
    TVMFFIAny args[4];
    int n = make(trial, args);
    TVMFFIAny want = tvm_ffi_any_none(), after = tvm_ffi_any_none(), got = tvm_ffi_any_none();
    CHECK_OK(tvm_relax_eval(legal, "main", args, n, &want));
    CHECK_OK(tvm_relax_eval(lifted, "main", args, n, &after));
    CHECK_OK(tvm_vm_invoke(vm, "main", args, n, &got));
    if (rv_differ(&after, &want, 1e-5) || rv_differ(&got, &want, 1e-5)) {
      fprintf(stderr, "line %d: trial %d: results differ\n", line, trial);
      CHECK(0);
    }
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&after), tvm_ffi_any_release(&got);
    for (int i = 0; i < n; ++i) tvm_ffi_any_release(&args[i]);
  }
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(lifted);
  tvm_ffi_release(legal);
  tvm_ffi_release(mod);
  release_kept();
}
#define CHECK_MODEL(...) check_model_(__LINE__, __VA_ARGS__)

static int two_vec_args(int trial, TVMFFIAny* args) {
  int64_t s[1] = {4};
  (void)trial;
  args[0] = tvm_ffi_any_obj(rv_rand(1, s));
  args[1] = tvm_ffi_any_obj(rv_rand(1, s));
  return 2;
}

static int batch_args(int trial, TVMFFIAny* args) {
  int64_t sx[2] = {1 + 2 * trial, 4}, sy[1] = {4};
  args[0] = tvm_ffi_any_obj(rv_rand(2, sx));
  args[1] = tvm_ffi_any_obj(rv_rand(1, sy));
  return 2;
}

static int loop_args(int trial, TVMFFIAny* args) {
  int64_t s[1] = {4};
  args[0] = tvm_ffi_any_obj(rv_rand(1, s));
  args[1] = tvm_ffi_any_obj(scalar_tensor((float)trial)); /* 0 .. 3 iterations */
  return 2;
}

TEST(capturing_lambda) {
  CHECK_MODEL(capture_model(), 2, batch_args, 3, "R.invoke_pure_closure(add_y, (a,)");
}

TEST(recursive_lambdas) {
  CHECK_MODEL(recursive_model(false), 2, loop_args, 4, "cls.main_loop(next, j1)");
  CHECK_MODEL(recursive_model(true), 2, loop_args, 4, "R.make_closure(cls.main_loop, (step,))");
}

TEST(lambda_inside_a_lambda) {
  CHECK_MODEL(nested_model(), 3, two_vec_args, 3, "R.make_closure(cls.main_inner");
}

TEST(functions_as_values) {
  CHECK_MODEL(higher_order_model(), 4, two_vec_args, 3, "cls.apply(cls.main_sq, y)");
}

/* A recursive capturing lambda that names itself other than in a call is refused by name. */
TEST(unsupported_self_reference_is_an_error) {
  tvm_relax_var_obj* x = param("x", vec4());
  tvm_relax_var_obj* v = param("v", vec4());
  tvm_relax_sinfo_obj* fs = keep(tvm_relax_func_sinfo_new(
      keep(tvm_ffi_array_of_objects((void*[]){keep(vec4())}, 1)), keep(rt_tensor(F32, 1, (int64_t)4)), true));
  tvm_relax_var_obj* self = keep(tvm_relax_var_new("self", fs, false));
  tvm_relax_var_obj *t, *s, *r;
  tvm_relax_binding_obj* ib[2] = {bind("t", keep(tvm_relax_tuple_new(keep(rt_array(2, self, x)))), &t),
                                  bind("s", call("relax.add", v, x), &s)};
  tvm_relax_function_obj* lambda =
      keep(tvm_relax_function_new(keep(rt_array(1, v)), seq(2, ib, s), keep(vec4()), true, NULL));
  tvm_relax_binding_obj* bs[2] = {keep(tvm_relax_var_binding_new(self, (void*)lambda)),
                                  bind("r", call_fn(self, 1, (void*[]){x}), &r)};
  tvm_tir_ir_module_obj* mod = module(keep(rt_array(1, x)), seq(2, bs, r));
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* lifted = mod ? tvm_relax_transform_lambda_lift(mod) : NULL;
  CHECK(lifted == NULL);
  if (!lifted) CHECK_RAISED("NotImplementedError", "names itself other than by calling itself");
  tvm_ffi_release(lifted);
  tvm_ffi_release(mod);
  release_kept();
}

int main(void) {
  RUN(capturing_lambda);
  RUN(recursive_lambdas);
  RUN(lambda_inside_a_lambda);
  RUN(functions_as_values);
  RUN(unsupported_self_reference_is_an_error);
  return test_summary();
}

/*
 * test_dead_code_elimination.c: DeadCodeElimination. Which module functions stay (reachable from
 * the public ones, through Relax calls, call_tir, TIR calls by GlobalVar and call_extern by
 * name, or named as entries); which bindings go (pure and unused, chains of them at once) and
 * stay (impure calls, match_cast, an If whose branch has an effect, block outputs used later);
 * on the test models after the pipeline's passes before it: the kernels that FoldConstant and
 * RewriteDataflowReshape left uncalled are gone, the evaluator's results on random inputs are
 * bit-identical, and a second run changes nothing. Bad inputs.
 */
#include <string.h>

#include <tvm/relax/eval.h>
#include <tvm/script/parser.h>

#include "fuse_testing.h"
#include "relax_models.h"
#include "relax_testing.h"

static char g_text[8192];
static const char* text(const tvm_tir_ir_module_obj* mod, const char* fn) {
  return mod ? relax_models_bindings_text(mod, fn, g_text, sizeof(g_text)) : "(null)";
}

static tvm_tir_ir_module_obj* parse(const char* src) {
  void* mod = tvm_script_parse(src, strlen(src), NULL);
  if (!mod) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "parse: %s\n", e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
  }
  CHECK(mod != NULL);
  return mod;
}

static bool has(const tvm_tir_ir_module_obj* mod, const char* name) {
  void* f = tvm_tir_ir_module_lookup(mod, name);
  tvm_ffi_release(f);
  return f != NULL;
}

static tvm_tir_ir_module_obj* dce(const tvm_tir_ir_module_obj* mod) {
  tvm_tir_ir_module_obj* out = mod ? tvm_relax_transform_dead_code_elimination(mod) : NULL;
  CHECK(out != NULL);
  if (out) CHECK_OK(tvm_relax_verify_well_formed(out));
  return out;
}

static const char k_reach[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "from tvm.script import tirx as T\n"
    "\n"
    "@I.ir_module\n"
    "class M:\n"
    "    @T.prim_func(private=True)\n"
    "    def add_one(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "        cls = M\n"
    "        for i in range(8):\n"
    "            B[i] = cls.inc(A[i])\n"
    "    @T.prim_func(private=True)\n"
    "    def inc(x: T.float32) -> T.float32:\n"
    "        T.ret(x + T.call_extern(\"float32\", \"one\"))\n"
    "    @T.prim_func(private=True)\n"
    "    def one() -> T.float32:\n"
    "        T.ret(T.float32(1))\n"
    "    @T.prim_func(private=True)\n"
    "    def unused_kernel(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "        for i in range(8):\n"
    "            B[i] = A[i]\n"
    "    @T.prim_func\n"
    "    def public_kernel(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "        for i in range(8):\n"
    "            B[i] = A[i] * T.float32(2)\n"
    "    @R.function(private=True)\n"
    "    def twice(x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        cls = M\n"
    "        y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((8,), \"float32\"))\n"
    "        return y\n"
    "    @R.function(private=True)\n"
    "    def only_dead_caller(x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        cls = M\n"
    "        y = R.call_tir(cls.unused_kernel, (x,), out_sinfo=R.Tensor((8,), \"float32\"))\n"
    "        return y\n"
    "    @R.function(private=True)\n"
    "    def never_called(x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        return x\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        cls = M\n"
    "        with R.dataflow():\n"
    "            a = cls.twice(x)\n"
    "            dead = cls.only_dead_caller(x)\n"
    "            R.output(a)\n"
    "        return a\n";

TEST(removes_unreachable_functions) {
  tvm_tir_ir_module_obj* mod = parse(k_reach);
  tvm_tir_ir_module_obj* out = dce(mod);
  if (out) {
    /* Kept: the public functions and what they reach (a Relax call, call_tir, a TIR call by
     * GlobalVar, a call_extern by name). */
    const char* kept[] = {"main", "twice", "add_one", "inc", "one", "public_kernel"};
    for (int i = 0; i < 6; ++i) CHECK(has(out, kept[i]));
    /* Gone: never referred to, or only from a binding that went (and its kernel with it). */
    CHECK(!has(out, "never_called"));
    CHECK(!has(out, "only_dead_caller"));
    CHECK(!has(out, "unused_kernel"));
    CHECK_EQ_INT(tvm_ffi_map_size(out->functions), 6);
    CHECK_STR_EQ(text(out, "main"), "df: a = twice(x)");
    /* The fixed point: nothing left to do, the module itself. */
    tvm_tir_ir_module_obj* again = tvm_relax_transform_dead_code_elimination(out);
    CHECK(again == out);
    tvm_ffi_release(again);
    /* Evaluation: x + 1 either way. */
    TVMFFIAny args[1];
    int n = fm_args(mod, 1, args, 1);
    TVMFFIAny want, have;
    CHECK_OK(tvm_relax_eval(mod, "main", args, n, &want));
    CHECK_OK(tvm_relax_eval(out, "main", args, n, &have));
    CHECK_EQ_INT(rv_differ(&have, &want, 0), 0);
    const float* x = tvm_ffi_tensor_dl(args[0].v_obj)->data;
    const float* y = tvm_ffi_tensor_dl(have.v_obj)->data;
    CHECK(y[3] == x[3] + 1.0f);
    tvm_ffi_any_release(&want), tvm_ffi_any_release(&have);
    fm_args_free(args, n);
  }
  /* Named entries stay, with what they reach. */
  const char* entries[] = {"only_dead_caller"};
  tvm_tir_ir_module_obj* kept =
      mod ? tvm_relax_transform_dead_code_elimination_entries(mod, entries, 1) : NULL;
  CHECK(kept != NULL);
  if (kept) {
    CHECK(has(kept, "only_dead_caller") && has(kept, "unused_kernel"));
    CHECK(!has(kept, "never_called"));
  }
  tvm_ffi_release(kept), tvm_ffi_release(out), tvm_ffi_release(mod);
}

static const char k_bindings[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "from tvm.script import tirx as T\n"
    "\n"
    "@I.ir_module\n"
    "class M:\n"
    "    @R.function(pure=False, private=True)\n"
    "    def effect(x: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n"
    "        R.print(x, format=\"x={}\")\n"
    "        return x\n"
    "    @R.function(private=True)\n"
    "    def pure_helper(x: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n"
    "        y = R.exp(x)\n"
    "        return y\n"
    "    @R.function(pure=False)\n"
    "    def main(x: R.Tensor((4,), \"float32\"), c: R.Tensor((), \"bool\")) -> R.Tensor((4,), "
    "\"float32\"):\n"
    "        cls = M\n"
    "        a = R.add(x, x)\n"
    "        b = R.multiply(a, a)\n"
    "        d = R.exp(b)\n"
    "        p = cls.pure_helper(x)\n"
    "        e = cls.effect(x)\n"
    "        R.print(x, format=\"again {}\")\n"
    "        k = T.int64()\n"
    "        m = R.match_cast(x, R.Tensor((k,), \"float32\"))\n"
    "        if c:\n"
    "            u = R.exp(x)\n"
    "            f = R.add(u, x)\n"
    "        else:\n"
    "            f = R.multiply(x, x)\n"
    "        if c:\n"
    "            v = R.exp(x)\n"
    "            R.print(v, format=\"v={}\")\n"
    "            g = R.add(v, x)\n"
    "        else:\n"
    "            g = x\n"
    "        @R.function(pure=False)\n"
    "        def noisy(y: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n"
    "            R.print(y, format=\"y={}\")\n"
    "            return y\n"
    "        r = R.negative(x)\n"
    "        return r\n";

TEST(removes_pure_unused_bindings) {
  tvm_tir_ir_module_obj* mod = parse(k_bindings);
  if (mod) CHECK_STR_CONTAINS(text(mod, "main"), "noisy = ");
  tvm_tir_ir_module_obj* out = dce(mod);
  if (out) {
    /* Gone at once: the chain a -> b -> d nothing uses, the call of a pure function, the If
     * whose branches only compute, the impure local function nothing calls. Kept: the impure
     * calls (of a function, of R.print), the match_cast, the If with a print in a branch (and
     * within it, the bindings the print and the result need), and the result. */
    const char* t = text(out, "main");
    CHECK(strstr(t, "a = ") == NULL && strstr(t, "b = ") == NULL && strstr(t, "d = ") == NULL);
    CHECK(strstr(t, "p = ") == NULL && strstr(t, "f = ") == NULL);
    /* A local function's effects happen when it is called: unused, it goes. */
    CHECK(strstr(t, "noisy") == NULL);
    CHECK_STR_CONTAINS(t, "e = effect(x)");
    CHECK_STR_CONTAINS(t, "print(");
    CHECK_STR_CONTAINS(t, "m = ");
    CHECK_STR_CONTAINS(t, "g = if(");
    CHECK_STR_CONTAINS(t, "r = negative(x)");
    /* The pure helper has no caller left; the impure one has. */
    CHECK(!has(out, "pure_helper"));
    CHECK(has(out, "effect"));
    tvm_tir_ir_module_obj* again = tvm_relax_transform_dead_code_elimination(out);
    CHECK(again == out);
    tvm_ffi_release(again);
  }
  tvm_ffi_release(out), tvm_ffi_release(mod);
}

static const char k_dataflow[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "\n"
    "@I.ir_module\n"
    "class M:\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4,), \"float32\")) -> R.Tensor((4,), \"float32\"):\n"
    "        with R.dataflow():\n"
    "            t = R.exp(x)\n"
    "            a = R.add(t, x)\n"
    "            b = R.multiply(x, x)\n"
    "            u = R.sqrt(x)\n"
    "            R.output(a, b, u)\n"
    "        c = R.add(a, a)\n"
    "        dead = R.negative(u)\n"
    "        return c\n";

TEST(dataflow_outputs) {
  tvm_tir_ir_module_obj* mod = parse(k_dataflow);
  tvm_tir_ir_module_obj* out = dce(mod);
  /* The output used after the block stays with what it needs; the output nothing uses goes,
   * as does the one only a removed binding used. */
  CHECK_STR_EQ(text(out, "main"), "df: t = exp(x); a = add(t, x) | c = add(a, a)");
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  tvm_tir_ir_module_obj* legal_out = out ? tvm_relax_transform_legalize_ops(out) : NULL;
  if (legal && legal_out) CHECK_EQ_INT(fm_eval_diff(legal, legal_out, 1, 0), 0);
  tvm_ffi_release(legal_out), tvm_ffi_release(legal), tvm_ffi_release(out), tvm_ffi_release(mod);
}

/* A chain of n unused pure bindings after the result's: one run removes them all (the pass is
 * linear; a quadratic one would take n passes over n bindings). */
TEST(long_dead_chain) {
  fm_model m;
  fm_init(&m);
  int64_t d4[1] = {4};
  tvm_relax_var_obj* x = fm_param(&m, "x", 1, d4);
  fm_begin(&m);
  tvm_relax_var_obj* keep = FM_OUT(&m, "relax.exp", x);
  tvm_relax_var_obj* h = x;
  for (int i = 0; i < 3000 && h; ++i) h = FM_OP(&m, "relax.add", h, x);
  tvm_tir_ir_module_obj* mod = fm_end(&m, keep, NULL);
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* out = dce(mod);
  CHECK_EQ_INT(relax_models_count_calls(out, "main", "relax.call_tir"), 1);
  if (out) CHECK_EQ_INT(fm_eval_diff(mod, out, 1, 0), 0);
  tvm_ffi_release(out), tvm_ffi_release(mod);
}

/* The number of PrimFuncs of mod. */
static int64_t prim_funcs(const tvm_tir_ir_module_obj* mod) {
  return mod ? fm_count_funcs(mod, true) : -1;
}

/* mod after the build pipeline's passes before DeadCodeElimination (mod borrowed). */
static tvm_tir_ir_module_obj* before_dce(const tvm_tir_ir_module_obj* mod) {
  const tvm_relax_pass* p;
  int64_t all = tvm_relax_build_pipeline_passes(&p), k = 0;
  while (k < all && strcmp(p[k].name, "DeadCodeElimination") != 0) ++k;
  CHECK(k < all);
  tvm_tir_ir_module_obj* out = mod && k < all ? tvm_relax_run_passes(mod, p, k) : NULL;
  CHECK(out != NULL);
  return out;
}

/* Every PrimFunc of mod is called by main (call_tir) or by another kernel. */
static int count_gv(const void* node, void* ctx) {
  if (tvm_tir_is(node, TVM_TIR_KIND_GlobalVar)) {
    TVMFFIAny k = tvm_ffi_any_obj(((const tvm_tir_global_var_obj*)node)->name_hint),
              none = tvm_ffi_any_none();
    tvm_ffi_dict_set(ctx, &k, &none);
  }
  return 0;
}
static int64_t uncalled_prim_funcs(const tvm_tir_ir_module_obj* mod) {
  void* used = tvm_ffi_dict_new();
  tvm_relax_post_order_visit(mod, count_gv, used);
  int64_t n = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    TVMFFIAny name = tvm_ffi_any_obj(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    n += tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc) && !tvm_ffi_map_get(used, &name);
  }
  tvm_ffi_release(used);
  return n;
}

/* The pipeline up to DeadCodeElimination, then the pass: every kernel left is called, at least
 * `removed` went, results bit-identical on random inputs (batch 3 for a symbolic batch). */
static void check_model(tvm_tir_ir_module_obj* mod, int64_t removed) {
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* pre = before_dce(mod);
  tvm_tir_ir_module_obj* out = dce(pre);
  if (pre && out) {
    if (uncalled_prim_funcs(pre) < removed) {
      fprintf(stderr, "expected %lld uncalled kernels before, got %lld\n", (long long)removed,
              (long long)uncalled_prim_funcs(pre));
    }
    CHECK(uncalled_prim_funcs(pre) >= removed);
    CHECK_EQ_INT(uncalled_prim_funcs(out), 0);
    CHECK(prim_funcs(out) <= prim_funcs(pre) - removed);
    CHECK_EQ_INT(fm_eval_diff(pre, out, 3, 0), 0);
    /* Against the model's meaning: LegalizeOps alone. */
    tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
    CHECK(legal != NULL);
    if (legal) CHECK_EQ_INT(fm_eval_diff(legal, out, 3, 1e-5), 0);
    tvm_ffi_release(legal);
    tvm_tir_ir_module_obj* again = tvm_relax_transform_dead_code_elimination(out);
    CHECK(again == out);
    tvm_ffi_release(again);
  }
  tvm_ffi_release(out), tvm_ffi_release(pre), tvm_ffi_release(mod);
}

TEST(models_mlp) { check_model(relax_models_mlp(3, -1, 16), 0); }
TEST(models_transformer) { check_model(relax_models_transformer(1, 2, 4, 8), 0); }
TEST(models_cnn) { check_model(fm_conv_bias_relu(), 0); }

/* FoldConstant evaluates the kernels of constant-only calls: those kernels go. */
TEST(folded_kernels_go) {
  fm_model m;
  fm_init(&m);
  int64_t d24[2] = {2, 4};
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, d24);
  fm_begin(&m);
  void* t = tvm_ffi_tensor_empty(d24, 2, F32, (DLDevice){kDLCPU, 0});
  float* p = tvm_ffi_tensor_dl(t)->data;
  for (int i = 0; i < 8; ++i) p[i] = rv_rnd();
  tvm_relax_expr_obj* c = fm_keep(&m, tvm_relax_constant_new(t, NULL));
  tvm_ffi_release(t);
  tvm_relax_var_obj* e = FM_OP(&m, "relax.exp", c); /* folded */
  tvm_relax_var_obj* y = FM_OUT(&m, "relax.multiply", x, e);
  tvm_tir_ir_module_obj* mod = fm_end(&m, y, NULL);
  check_model(mod, 1);
}

/* A reshape between two matmuls stays its own call_tir (neither fuses with it), which
 * RewriteDataflowReshape makes a view: its kernel goes. */
TEST(reshape_kernels_go) {
  fm_model m;
  fm_init(&m);
  int64_t d48[2] = {4, 8}, d88[2] = {8, 8}, d44[2] = {4, 4}, d84[2] = {8, 4};
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, d48);
  tvm_relax_var_obj* w = fm_param(&m, "w", 2, d88);
  tvm_relax_var_obj* w2 = fm_param(&m, "w2", 2, d44);
  fm_begin(&m);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.matmul", x, w);
  tvm_relax_var_obj* r = FM_OP(&m, "relax.reshape", a, fm_shape(&m, 2, d84));
  tvm_relax_var_obj* y = FM_OUT(&m, "relax.matmul", r, w2);
  tvm_tir_ir_module_obj* mod = fm_end(&m, y, NULL);
  check_model(mod, 1);
}

TEST(bad_input) {
  tvm_relax_var_obj* v = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  CHECK(tvm_relax_transform_dead_code_elimination((void*)v) == NULL);
  CHECK_RAISED("TypeError", "DeadCodeElimination: an IRModule");
  tvm_tir_ir_module_obj* mod = parse(k_dataflow);
  const char* entries[] = {"nope"};
  CHECK(mod && tvm_relax_transform_dead_code_elimination_entries(mod, entries, 1) == NULL);
  CHECK_RAISED("ValueError", "entry function 'nope' is not in the module");
  CHECK(mod && tvm_relax_transform_dead_code_elimination_entries(mod, NULL, 1) == NULL);
  CHECK_RAISED("TypeError", "a list of entry names");
  tvm_ffi_release(mod), tvm_ffi_release(v);
}

int main(void) {
  RUN(removes_unreachable_functions);
  RUN(removes_pure_unused_bindings);
  RUN(dataflow_outputs);
  RUN(long_dead_chain);
  RUN(models_mlp);
  RUN(models_transformer);
  RUN(models_cnn);
  RUN(folded_kernels_go);
  RUN(reshape_kernels_go);
  RUN(bad_input);
  return test_summary();
}

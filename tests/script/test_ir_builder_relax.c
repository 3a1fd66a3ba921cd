/*
 * test_ir_builder_relax.c: the Relax frames of the IR builder (tvm/script/ir_builder_relax.h),
 * driven the way the parser's statement handlers drive them, with the values made by the `R.*`
 * builtins: the models of tests/relax/relax_models.c built through the frames are structurally
 * equal to the same models built with librelax's BlockBuilder directly; a mixed module (a
 * PrimFunc, call_tir, functions declared first and called through cls.f) equals its BlockBuilder
 * twin; control flow, local functions, match_cast and symbolic names print as the TVMScript a
 * user writes and pass the well-formedness checker; every misuse raises the right error.
 */
#include <tvm/script/ir_builder_relax.h>

#include "relax_models.h"
#include "relax_script_testing.h"

/* Report and clear an unexpected failure; returns p. */
static void* ok_line(void* p, int line) {
  if (!p) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: unexpected failure: %s: %s\n", line, e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "(no error)");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  return p;
}
#define OK(p) ok_line((p), __LINE__)

/* ---- A small driver: what the statement handlers do ------------------------------------------ */
/* `name[: ann] = value` with value a new reference (consumed); returns the bound Var (borrowed:
 * the builder's IR keeps it; released by the caller with the others at the end is not needed). */
static void* g_keep[4096];
static int g_nkeep;
static void* keep(void* obj) {
  if (obj && g_nkeep < 4096) g_keep[g_nkeep++] = obj;
  return obj;
}
static void drop_kept(void) {
  while (g_nkeep > 0) tvm_ffi_release(g_keep[--g_nkeep]);
}

static tvm_relax_var_obj* let(tvm_script_builder* b, const char* name, void* value, const void* ann) {
  if (!value) return OK(NULL);
  TVMFFIAny v = tvm_ffi_any_obj(value);
  tvm_relax_var_obj* var = OK(tvm_script_relax_emit(b, name, &v, ann));
  tvm_ffi_release(value);
  return keep(var);
}

/* R.<name>(args...) with keywords: a kept result. */
#define R_(b, name, ...) keep(OK(rcall((b), (name), __VA_ARGS__)))

/* An annotation R.Tensor(dims, dtype): dims an Array (borrowed). */
static void* tensor(tvm_script_builder* b, void* dims, const char* dtype) {
  return R_(b, "Tensor", RARGS(AO(dims), AS(dtype)), NOKW);
}

/* ---- The MLP ---------------------------------------------------------------------------------- */
/* relax_models_mlp(layers, batch < 0 (symbolic "n"), hidden), written as TVMScript:
 *   @R.function
 *   def main(x: R.Tensor(("n", hidden), "float32"), w: R.Tensor((hidden, hidden), "float32")):
 *       with R.dataflow():
 *           lv = R.matmul(x, w); lv1 = R.nn.relu(lv); ...; out = R.nn.relu(lvk)
 *           R.output(out)
 *       return out */
static void* mlp_frames(int layers, int64_t hidden, bool in_module) {
  tvm_script_builder* b = tvm_script_builder_new();
  if (in_module) CHECK_OK(tvm_script_ir_module_enter(b));
  CHECK_OK(tvm_script_relax_function_enter(b, "main", 0));
  void* dx = keep(RTUPLE(AS("n"), AI(hidden)));
  void* dw = keep(RTUPLE(AI(hidden), AI(hidden)));
  tvm_relax_var_obj* x = keep(OK(tvm_script_relax_arg(b, "x", tensor(b, dx, "float32"))));
  tvm_relax_var_obj* w = keep(OK(tvm_script_relax_arg(b, "w", tensor(b, dw, "float32"))));
  TVMFFIAny out;
  CHECK_OK(rcall_any(b, TVM_SCRIPT_CTX_WITH, "dataflow", NOARGS, NOKW, &out));
  tvm_relax_var_obj* h = x;
  for (int l = 0; l < layers; ++l) {
    char n1[16], n2[16];
    snprintf(n1, sizeof(n1), l ? "lv%d" : "lv", 2 * l);
    snprintf(n2, sizeof(n2), l + 1 < layers ? "lv%d" : "out", 2 * l + 1);
    tvm_relax_var_obj* mm = let(b, n1, rcall(b, "matmul", RARGS(AO(h), AO(w)), NOKW), NULL);
    h = let(b, n2, rcall(b, "nn.relu", RARGS(AO(mm)), NOKW), NULL);
  }
  TVMFFIAny outs;
  CHECK_OK(rcall_any(b, TVM_SCRIPT_CTX_STMT, "output", RARGS(AO(h)), NOKW, &outs));
  keep(outs.v_obj);
  CHECK_OK(tvm_script_builder_exit(b)); /* the with */
  TVMFFIAny r = tvm_ffi_seq_obj_at(outs.v_obj, 0) ? *tvm_ffi_seq_at(outs.v_obj, 0) : ANONE;
  CHECK_OK(tvm_script_relax_func_return(b, &r));
  void* f = OK(tvm_script_relax_function_end(b));
  if (in_module) {
    tvm_ffi_release(f);
    CHECK_OK(tvm_script_builder_exit(b));
    f = OK(tvm_script_builder_result(b));
  }
  tvm_script_builder_free(b);
  drop_kept();
  return f;
}

TEST(mlp_matches_block_builder) {
  void* mod = mlp_frames(3, 8, true);
  tvm_tir_ir_module_obj* ref = OK(relax_models_mlp(3, -1, 8));
  CHECK(requal(mod, ref));
  CHECK_OK(tvm_relax_verify_well_formed(mod));
  char buf[512];
  CHECK_STR_EQ(relax_models_bindings_text(mod, "main", buf, sizeof(buf)),
               "df: lv = matmul(x, w); lv1 = nn.relu(lv); lv2 = matmul(lv1, w); lv3 = nn.relu(lv2); "
               "lv4 = matmul(lv3, w); out = nn.relu(lv4)");
  CHECK_STR_EQ(rprint(mod),
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function\n"
               "    def main(x: R.Tensor((\"n\", 8), dtype=\"float32\"), w: R.Tensor((8, 8), dtype=\"float32\")) -> R.Tensor((\"n\", 8), dtype=\"float32\"):\n"
               "        n = T.int64()\n"
               "        with R.dataflow():\n"
               "            lv: R.Tensor((n, 8), dtype=\"float32\") = R.matmul(x, w)\n"
               "            lv1: R.Tensor((n, 8), dtype=\"float32\") = R.nn.relu(lv)\n"
               "            lv2: R.Tensor((n, 8), dtype=\"float32\") = R.matmul(lv1, w)\n"
               "            lv3: R.Tensor((n, 8), dtype=\"float32\") = R.nn.relu(lv2)\n"
               "            lv4: R.Tensor((n, 8), dtype=\"float32\") = R.matmul(lv3, w)\n"
               "            out: R.Tensor((n, 8), dtype=\"float32\") = R.nn.relu(lv4)\n"
               "            R.output(out)\n"
               "        return out");
  /* Standalone, the function is the result and gets its global_symbol as upstream's parser
   * gives it. */
  void* f = mlp_frames(1, 4, false);
  CHECK(tvm_relax_kind_of(f) == TVM_RELAX_KIND_Function);
  const TVMFFIAny* gs = f ? tvm_ffi_map_get_str(((tvm_relax_function_obj*)f)->func.attrs, "global_symbol") : NULL;
  TVMFFIByteArray gsb = {"", 0};
  CHECK(gs && tvm_ffi_any_as_bytes(gs, &gsb) && gsb.size == 4 && memcmp(gsb.data, "main", 4) == 0);
  tvm_ffi_release(f);
  tvm_ffi_release(ref);
  tvm_ffi_release(mod);
}

/* ---- The transformer -------------------------------------------------------------------------- */
/* relax_models_transformer through the frames, binding for binding. */
static void* transformer_frames(int layers, int heads, int64_t seq, int64_t hidden) {
  int64_t hd = hidden / heads;
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_ir_module_enter(b));
  CHECK_OK(tvm_script_relax_function_enter(b, "main", 0));
  void* f32 = "float32";
  tvm_relax_var_obj* x = keep(OK(tvm_script_relax_arg(b, "x", tensor(b, keep(RTUPLE(AS("n"), AI(seq), AI(hidden))), f32))));
  void* vec = keep(RTUPLE(AI(hidden)));
  tvm_relax_var_obj* g = keep(OK(tvm_script_relax_arg(b, "ln_gamma", tensor(b, vec, f32))));
  tvm_relax_var_obj* be = keep(OK(tvm_script_relax_arg(b, "ln_beta", tensor(b, vec, f32))));
  tvm_relax_var_obj* wo = keep(OK(tvm_script_relax_arg(b, "w_out", tensor(b, keep(RTUPLE(AI(hidden), AI(hidden))), f32))));
  tvm_relax_var_obj* w1 = keep(OK(tvm_script_relax_arg(b, "w_mlp1", tensor(b, keep(RTUPLE(AI(hidden), AI(4 * hidden))), f32))));
  tvm_relax_var_obj* w2 = keep(OK(tvm_script_relax_arg(b, "w_mlp2", tensor(b, keep(RTUPLE(AI(4 * hidden), AI(hidden))), f32))));
  tvm_relax_var_obj* wq[3 * 16];
  void* hproj = keep(RTUPLE(AI(hidden), AI(hd)));
  for (int h = 0; h < heads * 3; ++h) {
    char name[32];
    snprintf(name, sizeof(name), "w%c_%d", "qkv"[h % 3], h / 3);
    wq[h] = keep(OK(tvm_script_relax_arg(b, name, tensor(b, hproj, f32))));
  }
  TVMFFIAny none;
  CHECK_OK(rcall_any(b, TVM_SCRIPT_CTX_WITH, "dataflow", NOARGS, NOKW, &none));
  void* axes_last = keep(RTUPLE(AI(-1)));
  void* perm = keep(RTUPLE(AI(0), AI(2), AI(1)));
  tvm_tir_expr_obj* eighth = keep(tvm_tir_const_float(tvm_tir_dtype_float(32), 0.125));
  void* scale = R_(b, "prim_value", RARGS(AO(eighth)), NOKW);
  tvm_relax_var_obj* cur = x;
  for (int l = 0; l < layers; ++l) {
    tvm_relax_var_obj* ln = let(b, "ln", rcall(b, "nn.layer_norm", RARGS(AO(cur), AO(g), AO(be)), RKW("axes"), RARGS(AO(axes_last))), NULL);
    TVMFFIAny outs[16];
    for (int h = 0; h < heads; ++h) {
      tvm_relax_var_obj* q = let(b, "q", rcall(b, "matmul", RARGS(AO(ln), AO(wq[3 * h])), NOKW), NULL);
      tvm_relax_var_obj* k = let(b, "k", rcall(b, "matmul", RARGS(AO(ln), AO(wq[3 * h + 1])), NOKW), NULL);
      tvm_relax_var_obj* v = let(b, "v", rcall(b, "matmul", RARGS(AO(ln), AO(wq[3 * h + 2])), NOKW), NULL);
      tvm_relax_var_obj* kt = let(b, "kt", rcall(b, "permute_dims", RARGS(AO(k)), RKW("axes"), RARGS(AO(perm))), NULL);
      tvm_relax_var_obj* s = let(b, "s", rcall(b, "matmul", RARGS(AO(q), AO(kt)), NOKW), NULL);
      tvm_relax_var_obj* ss = let(b, "ss", rcall(b, "multiply", RARGS(AO(s), AO(scale)), NOKW), NULL);
      tvm_relax_var_obj* p = let(b, "p", rcall(b, "nn.softmax", RARGS(AO(ss)), NOKW), NULL);
      tvm_relax_var_obj* o = let(b, "o", rcall(b, "matmul", RARGS(AO(p), AO(v)), NOKW), NULL);
      outs[h] = AO(o);
    }
    void* hs = keep(tvm_ffi_array_new(outs, heads));
    tvm_relax_var_obj* cat = let(b, "cat", rcall(b, "concat", RARGS(AO(hs)), RKW("axis"), RARGS(AI(-1))), NULL);
    tvm_relax_var_obj* proj = let(b, "proj", rcall(b, "matmul", RARGS(AO(cat), AO(wo)), NOKW), NULL);
    tvm_relax_var_obj* r1 = let(b, "r1", rcall(b, "add", RARGS(AO(cur), AO(proj)), NOKW), NULL);
    tvm_relax_var_obj* ln2 = let(b, "ln2", rcall(b, "nn.layer_norm", RARGS(AO(r1), AO(g), AO(be), AO(axes_last)), NOKW), NULL);
    tvm_relax_var_obj* h1 = let(b, "h1", rcall(b, "matmul", RARGS(AO(ln2), AO(w1)), NOKW), NULL);
    tvm_relax_var_obj* h2 = let(b, "h2", rcall(b, "nn.gelu", RARGS(AO(h1)), NOKW), NULL);
    tvm_relax_var_obj* h3 = let(b, "h3", rcall(b, "matmul", RARGS(AO(h2), AO(w2)), NOKW), NULL);
    cur = let(b, "r2", rcall(b, "add", RARGS(AO(r1), AO(h3)), NOKW), NULL);
  }
  tvm_ffi_retain(cur);
  tvm_relax_var_obj* out = let(b, "out", cur, NULL);
  void* outs = keep(OK(tvm_script_relax_dataflow_output(b, keep(RTUPLE(AO(out))))));
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_relax_func_return(b, tvm_ffi_seq_at(outs, 0)));
  tvm_ffi_release(OK(tvm_script_relax_function_end(b)));
  CHECK_OK(tvm_script_builder_exit(b));
  void* mod = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  drop_kept();
  return mod;
}

TEST(transformer_matches_block_builder) {
  void* mod = transformer_frames(2, 2, 4, 8);
  tvm_tir_ir_module_obj* ref = OK(relax_models_transformer(2, 2, 4, 8));
  CHECK(requal(mod, ref));
  CHECK_OK(tvm_relax_verify_well_formed(mod));
  /* binding for binding, and every one where the reference has it */
  const tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "main");
  const tvm_relax_seq_expr_obj* body = f ? (const void*)f->body : NULL;
  if (body) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(body->blocks, 0);
    CHECK_EQ_INT(tvm_ffi_seq_size(blk->bindings), relax_models_transformer_bindings(2, 2));
  }
  tvm_ffi_release((void*)f);
  tvm_ffi_release(ref);
  tvm_ffi_release(mod);
}

/* ---- A mixed module ----------------------------------------------------------------------------- */
/* add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")): B[i] = A[i] + 1 */
static void build_add_one(tvm_script_builder* b) {
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "add_one"));
  tvm_tir_buffer_obj* bufs[2];
  for (int k = 0; k < 2; ++k) {
    tvm_script_buffer_args ba;
    tvm_script_buffer_args_init(&ba);
    ba.shape = tvm_tir_list_take(tvm_tir_int(4));
    ba.dtype = TVM_TIR_FLOAT32;
    tvm_tir_buffer_obj* buf = tvm_script_tir_buffer(&ba);
    bufs[k] = buf ? OK(tvm_script_tir_arg(b, k ? "B" : "A", buf)) : NULL;
    tvm_ffi_release(buf);
    tvm_ffi_release(ba.shape);
  }
  void* four = tvm_tir_int(4);
  tvm_tir_var_obj* i = OK(tvm_script_tir_for_enter(b, "i", TVM_TIR_FOR_SERIAL, NULL, four, NULL, NULL));
  tvm_ffi_release(four);
  void* value = tvm_tir_add_take(tvm_tir_load_take(tvm_tir_ref(bufs[0]), tvm_tir_ref(i)), tvm_tir_f32(1));
  void* idx = tvm_tir_list_take(tvm_tir_ref(i));
  CHECK_OK(tvm_script_tir_buffer_store(b, bufs[1], value, idx));
  tvm_ffi_release(value), tvm_ffi_release(idx), tvm_ffi_release(i);
  tvm_ffi_release(bufs[0]), tvm_ffi_release(bufs[1]);
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_builder_exit(b));
}

/* The module as TVMScript:
 *   @I.ir_module
 *   class Module:
 *       @T.prim_func
 *       def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")): ...
 *       @R.function
 *       def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
 *           cls = Module
 *           with R.dataflow():
 *               lv = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), "float32"))
 *               out = R.add(lv, x)
 *               R.output(out)
 *           return out
 *       @R.function(private=True)
 *       def twice(x: R.Tensor((4,), "float32")):
 *           a = cls.main(x)
 *           b = cls.main(a)
 *           return b
 * Functions are declared first (the parser's first pass over the class), main through
 * tvm_script_relax_decl_function, the PrimFunc by name. */
static void* mixed_frames(void) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_ir_module_enter(b));
  void* d4 = keep(RTUPLE(AI(4)));
  void* t4 = tensor(b, d4, "float32");
  void* params = keep(RTUPLE(AO(t4)));
  void* main_sinfo = R_(b, "Callable", RARGS(AO(params), AO(t4)), NOKW);
  tvm_tir_global_var_obj* gv_main = keep(OK(tvm_script_relax_decl_function(b, "main", main_sinfo)));
  tvm_tir_global_var_obj* gv_k = keep(OK(tvm_script_ir_module_global_var(b, "add_one")));
  /* main */
  CHECK_OK(tvm_script_relax_function_enter(b, "main", 0));
  tvm_relax_var_obj* x = keep(OK(tvm_script_relax_arg(b, "x", t4)));
  CHECK_OK(tvm_script_relax_func_ret(b, t4));
  CHECK_OK(tvm_script_relax_dataflow_enter(b));
  void* args = keep(RTUPLE(AO(x)));
  tvm_relax_var_obj* lv = let(b, "lv", rcall(b, "call_tir", RARGS(AO(gv_k), AO(args)), RKW("out_sinfo"), RARGS(AO(t4))), t4);
  tvm_relax_var_obj* o = let(b, "out", rcall(b, "add", RARGS(AO(lv), AO(x)), NOKW), NULL);
  void* outs = keep(OK(tvm_script_relax_dataflow_output(b, keep(RTUPLE(AO(o))))));
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_relax_func_return(b, tvm_ffi_seq_at(outs, 0)));
  void* got_gv = OK(tvm_script_relax_function_end(b));
  CHECK(got_gv == (void*)gv_main);
  tvm_ffi_release(got_gv);
  /* the PrimFunc, defined after its first use */
  build_add_one(b);
  /* twice (private): calls through the declared GlobalVar infer their result */
  CHECK_OK(tvm_script_relax_function_enter(b, "twice", TVM_SCRIPT_RELAX_PRIVATE));
  tvm_relax_var_obj* x2 = keep(OK(tvm_script_relax_arg(b, "x", t4)));
  TVMFFIAny ax = AO(x2);
  tvm_relax_var_obj* a = let(b, "a", tvm_script__relax_call_value(gv_main, &ax, 1, NULL, NULL), NULL);
  CHECK_STR_EQ(rt_sinfo_text(a), "R.Tensor((4,), dtype=\"float32\")");
  TVMFFIAny aa = AO(a);
  tvm_relax_var_obj* r = let(b, "b", tvm_script__relax_call_value(gv_main, &aa, 1, NULL, NULL), NULL);
  TVMFFIAny rv = AO(r);
  CHECK_OK(tvm_script_relax_func_return(b, &rv));
  tvm_ffi_release(OK(tvm_script_relax_function_end(b)));
  CHECK_OK(tvm_script_builder_exit(b));
  void* mod = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  drop_kept();
  return mod;
}

/* The same module with the BlockBuilder. */
static void* mixed_block_builder(void) {
  tvm_script_builder* tb = tvm_script_builder_new();
  build_add_one(tb);
  void* pf = OK(tvm_script_builder_result(tb));
  tvm_script_builder_free(tb);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_tir_global_var_obj* gk = OK(tvm_relax_bb_add_function(bb, pf, "add_one"));
  tvm_relax_sinfo_obj* t4 = rt_tensor(F32, 1, (int64_t)4);
  tvm_relax_var_obj* x = tvm_relax_var_new("x", t4, false);
  void* params = rt_array(1, x);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  void* targs = rt_array(1, x);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(targs);
  void* cargs = rt_array(2, gk, tup);
  void* sargs = rt_array(1, t4);
  tvm_relax_expr_obj* ct = tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_call_tir), cargs, NULL, sargs, NULL);
  tvm_relax_var_obj* lv = OK(tvm_relax_bb_emit(bb, ct, "lv"));
  tvm_relax_expr_obj* add = RT_CALL("relax.add", NULL, lv, x);
  tvm_relax_var_obj* out = OK(tvm_relax_bb_emit_output(bb, add, "out"));
  CHECK_OK(tvm_relax_bb_block_end(bb));
  tvm_tir_global_var_obj* gm = OK(tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)out, t4));
  tvm_relax_var_obj* x2 = tvm_relax_var_new("x", t4, false);
  void* params2 = rt_array(1, x2);
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "twice", params2, NULL, TVM_RELAX_BB_PRIVATE));
  void* a1 = rt_array(1, x2);
  tvm_relax_expr_obj* c1 = tvm_relax_call_new(gm, a1, NULL, NULL, NULL);
  tvm_relax_var_obj* a = OK(tvm_relax_bb_emit(bb, c1, "a"));
  void* a2 = rt_array(1, a);
  tvm_relax_expr_obj* c2 = tvm_relax_call_new(gm, a2, NULL, NULL, NULL);
  tvm_relax_var_obj* r = OK(tvm_relax_bb_emit(bb, c2, "b"));
  tvm_tir_global_var_obj* gt = OK(tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)r, NULL));
  void* mod = OK(tvm_relax_bb_module(bb));
  tvm_relax_bb_free(bb);
  tvm_ffi_release(gt), tvm_ffi_release(r), tvm_ffi_release(c2), tvm_ffi_release(a2);
  tvm_ffi_release(a), tvm_ffi_release(c1), tvm_ffi_release(a1), tvm_ffi_release(params2);
  tvm_ffi_release(x2), tvm_ffi_release(gm), tvm_ffi_release(out), tvm_ffi_release(add);
  tvm_ffi_release(lv), tvm_ffi_release(ct), tvm_ffi_release(sargs), tvm_ffi_release(cargs);
  tvm_ffi_release(tup), tvm_ffi_release(targs), tvm_ffi_release(params), tvm_ffi_release(x);
  tvm_ffi_release(t4), tvm_ffi_release(gk), tvm_ffi_release(pf);
  return mod;
}

TEST(mixed_module_matches_block_builder) {
  void* mod = mixed_frames();
  void* ref = mixed_block_builder();
  CHECK(requal(mod, ref));
  CHECK_OK(tvm_relax_verify_well_formed(mod));
  CHECK_STR_EQ(rprint(mod),
               "@I.ir_module\n"
               "class Module:\n"
               "    @T.prim_func\n"
               "    def add_one(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
               "        for i in range(4):\n"
               "            B[i] = A[i] + T.float32(1.0)\n"
               "\n"
               "    @R.function(private=True)\n"
               "    def twice(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
               "        cls = Module\n"
               "        a: R.Tensor((4,), dtype=\"float32\") = cls.main(x)\n"
               "        b: R.Tensor((4,), dtype=\"float32\") = cls.main(a)\n"
               "        return b\n"
               "\n"
               "    @R.function\n"
               "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
               "        cls = Module\n"
               "        with R.dataflow():\n"
               "            lv = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))\n"
               "            out: R.Tensor((4,), dtype=\"float32\") = R.add(lv, x)\n"
               "            R.output(out)\n"
               "        return out");
  tvm_ffi_release(ref);
  tvm_ffi_release(mod);
}

/* ---- Control flow, local functions, match_cast, symbolic names --------------------------------- */
/*
 *   @R.function
 *   def f(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")):
 *       n = T.int64()
 *       @R.function
 *       def g(z: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
 *           m = T.int64()
 *           return R.exp(z)
 *       if c:
 *           t = g(x)
 *           r: R.Tensor((n,), "float32") = R.add(t, y)
 *       else:
 *           r: R.Tensor((n,), "float32") = x
 *       s = R.match_cast(r, R.Tensor(("k",), "float32"))
 *       return (s, R.const([1, 2], "int64"))
 */
TEST(control_flow_local_function_match_cast) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_relax_function_enter(b, "f", 0));
  void* dscalar = keep(tvm_ffi_array_new(NULL, 0));
  void* dn = keep(RTUPLE(AS("n")));
  tvm_relax_var_obj* c = keep(OK(tvm_script_relax_arg(b, "c", tensor(b, dscalar, "bool"))));
  tvm_relax_var_obj* x = keep(OK(tvm_script_relax_arg(b, "x", tensor(b, dn, "float32"))));
  tvm_relax_var_obj* y = keep(OK(tvm_script_relax_arg(b, "y", tensor(b, dn, "float32"))));
  /* `n = T.int64()` in the body is the signature's n */
  tvm_tir_var_obj* fresh = tvm_tir_var_new("n", I64);
  tvm_tir_var_obj* n = keep(OK(tvm_script_relax_bind_sym_var(b, "n", fresh)));
  CHECK(n != fresh);
  CHECK(n && tvm_ffi_seq_obj_at(tvm_relax_tensor_sinfo_dims(tvm_relax_sinfo_of(x)), 0) == (void*)n);
  CHECK(tvm_ffi_seq_obj_at(tvm_relax_tensor_sinfo_dims(tvm_relax_sinfo_of(x)), 0) ==
        tvm_ffi_seq_obj_at(tvm_relax_tensor_sinfo_dims(tvm_relax_sinfo_of(y)), 0));
  tvm_tir_var_obj* n32 = tvm_tir_var_new("n", tvm_tir_dtype_int(32));
  CHECK(tvm_script_relax_bind_sym_var(b, "n", n32) == NULL);
  CHECK_RAISED("TypeError", "already a symbolic variable of dtype int64");
  tvm_ffi_release(n32), tvm_ffi_release(fresh);
  void* syms = keep(tvm_script_relax_syms(b));
  CHECK_EQ_INT(tvm_ffi_map_size(syms), 1);
  /* the local function: its own symbolic names */
  CHECK_OK(tvm_script_relax_function_enter(b, "g", 0));
  void* dm = keep(RTUPLE(AS("m")));
  void* tm = tensor(b, dm, "float32");
  tvm_relax_var_obj* z = keep(OK(tvm_script_relax_arg(b, "z", tm)));
  CHECK_OK(tvm_script_relax_func_ret(b, tm));
  void* ez = R_(b, "exp", RARGS(AO(z)), NOKW);
  TVMFFIAny ezv = AO(ez);
  CHECK_OK(tvm_script_relax_func_return(b, &ezv));
  tvm_relax_var_obj* g = keep(OK(tvm_script_relax_function_end(b)));
  CHECK(g && tvm_relax_kind_of(g) == TVM_RELAX_KIND_Var);
  /* if / else */
  TVMFFIAny cv = AO(c);
  CHECK_OK(tvm_script_relax_if_enter(b, &cv));
  CHECK_OK(tvm_script_relax_then_enter(b));
  TVMFFIAny xv = AO(x);
  tvm_relax_var_obj* t = let(b, "t", tvm_script__relax_call_value(g, &xv, 1, NULL, NULL), NULL);
  void* tn = tensor(b, dn, "float32");
  let(b, "r", rcall(b, "add", RARGS(AO(t), AO(y)), NOKW), tn);
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_relax_else_enter(b));
  tvm_ffi_retain(x);
  let(b, "r", x, tn);
  CHECK_OK(tvm_script_builder_exit(b));
  tvm_relax_var_obj* r = keep(OK(tvm_script_relax_if_end(b)));
  CHECK_STR_EQ(tvm_relax_var_name(r), "r");
  /* match_cast through the R.match_cast value */
  void* dk = keep(RTUPLE(AS("k")));
  void* pair = rcall(b, "match_cast", RARGS(AO(r), AO(tensor(b, dk, "float32"))), NOKW);
  tvm_relax_var_obj* s = let(b, "s", pair, NULL);
  void* cst_v = keep(RTUPLE(AI(1), AI(2)));
  void* cst = R_(b, "const", RARGS(AO(cst_v), AS("int64")), NOKW);
  void* res = keep(RTUPLE(AO(s), AO(cst)));
  TVMFFIAny rv = AO(res);
  CHECK_OK(tvm_script_relax_func_return(b, &rv));
  void* f = OK(tvm_script_relax_function_end(b));
  tvm_script_builder_free(b);
  drop_kept();
  CHECK_OK(tvm_relax_verify_well_formed(f));
  CHECK_STR_EQ(rprint(f),
               "@R.function\n"
               "def f(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor((\"n\",), dtype=\"float32\"), y: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tuple(R.Tensor(dtype=\"float32\", ndim=1), R.Tensor((2,), dtype=\"int64\")):\n"
               "    n = T.int64()\n"
               "    @R.function\n"
               "    def g(z: R.Tensor((\"m\",), dtype=\"float32\")) -> R.Tensor((\"m\",), dtype=\"float32\"):\n"
               "        m = T.int64()\n"
               "        gv: R.Tensor((m,), dtype=\"float32\") = R.exp(z)\n"
               "        return gv\n"
               "\n"
               "    if c:\n"
               "        t: R.Tensor((n,), dtype=\"float32\") = g(x)\n"
               "        r_then: R.Tensor((n,), dtype=\"float32\") = R.add(t, y)\n"
               "        r: R.Tensor((n,), dtype=\"float32\") = r_then\n"
               "    else:\n"
               "        r: R.Tensor((n,), dtype=\"float32\") = x\n"
               "    k = T.int64()\n"
               "    s: R.Tensor((k,), dtype=\"float32\") = R.match_cast(r, R.Tensor((k,), dtype=\"float32\"))\n"
               "    return (s, R.const([1, 2], \"int64\"))");
  tvm_ffi_release(f);
}

/* A branch ending with a match_cast results in the cast Var (its struct info), not the value,
 * bound as upstream binds it to `y_then` / `y_else`:
 *   if c: y = R.match_cast(x, R.Tensor((4,), "float32"))
 *   else: y = R.match_cast(x, R.Tensor((4,), "float32")) */
TEST(branches_ending_with_match_cast) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_relax_function_enter(b, "f", 0));
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_RELAX_FUNC);
  tvm_relax_sinfo_obj* tb = rt_tensor(tvm_tir_dtype_bool(), 0);
  tvm_relax_sinfo_obj* t1 = tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL);
  tvm_relax_sinfo_obj* t4 = rt_tensor(F32, 1, (int64_t)4);
  tvm_relax_var_obj* c = OK(tvm_script_relax_arg(b, "c", tb));
  tvm_relax_var_obj* x = OK(tvm_script_relax_arg(b, "x", t1));
  TVMFFIAny cv = AO(c), xv = AO(x);
  CHECK_OK(tvm_script_relax_if_enter(b, &cv));
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_RELAX_IF);
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(k ? tvm_script_relax_else_enter(b) : tvm_script_relax_then_enter(b));
    CHECK(tvm_script_builder_frame_kind(b, 0) ==
          (k ? TVM_SCRIPT_FRAME_RELAX_ELSE : TVM_SCRIPT_FRAME_RELAX_THEN));
    tvm_ffi_release(OK(tvm_script_relax_emit_match_cast(b, "y", &xv, t4, NULL)));
    CHECK_OK(tvm_script_builder_exit(b));
  }
  tvm_relax_var_obj* y = OK(tvm_script_relax_if_end(b));
  CHECK_STR_EQ(rt_sinfo_text(y), "R.Tensor((4,), dtype=\"float32\")");
  TVMFFIAny yv = AO(y);
  CHECK_OK(tvm_script_relax_func_return(b, &yv));
  void* f = OK(tvm_script_relax_function_end(b));
  CHECK_EQ_INT(tvm_script_builder_depth(b), 0);
  CHECK_OK(tvm_relax_verify_well_formed(f));
  CHECK_STR_EQ(rprint(f),
               "@R.function\n"
               "def f(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor(dtype=\"float32\", ndim=1)) -> R.Tensor((4,), dtype=\"float32\"):\n"
               "    if c:\n"
               "        y_then: R.Tensor((4,), dtype=\"float32\") = R.match_cast(x, R.Tensor((4,), dtype=\"float32\"))\n"
               "        y: R.Tensor((4,), dtype=\"float32\") = y_then\n"
               "    else:\n"
               "        y_else: R.Tensor((4,), dtype=\"float32\") = R.match_cast(x, R.Tensor((4,), dtype=\"float32\"))\n"
               "        y: R.Tensor((4,), dtype=\"float32\") = y_else\n"
               "    return y");
  tvm_ffi_release(f), tvm_ffi_release(y), tvm_ffi_release(x), tvm_ffi_release(c);
  tvm_ffi_release(t4), tvm_ffi_release(t1), tvm_ffi_release(tb);
  tvm_script_builder_free(b);
}

/* ---- Misuse ----------------------------------------------------------------------------------- */
TEST(errors) {
  tvm_script_builder* b = tvm_script_builder_new();
  tvm_relax_sinfo_obj* t23 = rt_tensor(F32, 2, (int64_t)2, (int64_t)3);
  tvm_relax_sinfo_obj* t24 = rt_tensor(F32, 2, (int64_t)2, (int64_t)4);
  TVMFFIAny none = ANONE;
  /* outside a function */
  CHECK(tvm_script_relax_emit(b, "a", &none, NULL) == NULL);
  CHECK_RAISED("ValueError", "a Relax binding is only valid inside an R.function (no frame is open)");
  CHECK(tvm_script_relax_dataflow_enter(b) != 0);
  CHECK_RAISED("ValueError", "R.dataflow is only valid inside an R.function");
  CHECK(tvm_script_relax_decl_function(b, "f", t23) == NULL);
  CHECK_RAISED("ValueError", "only valid inside an I.ir_module");
  CHECK(tvm_script_relax_function_enter(b, "", 0) != 0);
  CHECK_RAISED("ValueError", "needs a name");
  /* inside a function */
  CHECK_OK(tvm_script_relax_function_enter(b, "main", 0));
  tvm_relax_var_obj* x = OK(tvm_script_relax_arg(b, "x", t23));
  CHECK(tvm_script_relax_arg(b, "y", (void*)x) == NULL);
  CHECK_RAISED("TypeError", "parameter `y` needs a struct info annotation");
  TVMFFIAny xv = AO(x);
  /* an annotation the value contradicts */
  CHECK(tvm_script_relax_emit(b, "a", &xv, t24) == NULL);
  CHECK_RAISED("TypeError", "`a`: the annotation R.Tensor((2, 4), dtype=\"float32\") does not match the value's struct info R.Tensor((2, 3), dtype=\"float32\")");
  /* a narrower annotation is kept (what a runtime check would verify), as upstream */
  tvm_relax_sinfo_obj* any2 = tvm_relax_tensor_sinfo_new(NULL, F32, 2, NULL);
  tvm_relax_var_obj* w = OK(tvm_script_relax_emit(b, "w", &xv, any2));
  CHECK_STR_EQ(rt_sinfo_text(w), "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_ffi_release(w), tvm_ffi_release(any2);
  /* a parameter after the body began */
  CHECK(tvm_script_relax_arg(b, "late", t23) == NULL);
  CHECK_RAISED("ValueError", "parameter `late` after the body began");
  /* a TIR statement in a Relax frame */
  tvm_tir_stmt_obj* ev = tvm_tir_evaluate_take(tvm_tir_int(0));
  CHECK(tvm_script_tir_add_stmt(b, ev) != 0);
  CHECK_RAISED("ValueError", "not valid directly inside a Relax function");
  tvm_ffi_release(ev);
  /* a prim_func inside a Relax function, and R.output outside a dataflow block */
  void* outs = rt_array(1, x);
  CHECK(tvm_script_relax_dataflow_output(b, outs) == NULL);
  CHECK_RAISED("ValueError", "R.output is only valid inside a R.dataflow block");
  /* dataflow: if inside, return inside, a non-block output, bindings after R.output */
  CHECK_OK(tvm_script_relax_dataflow_enter(b));
  CHECK(tvm_script_relax_dataflow_enter(b) != 0);
  CHECK_RAISED("ValueError", "R.dataflow blocks do not nest");
  tvm_relax_sinfo_obj* tb = rt_tensor(tvm_tir_dtype_bool(), 0);
  tvm_relax_var_obj* cb = tvm_relax_var_new("cb", tb, false);
  TVMFFIAny cbv = AO(cb);
  CHECK(tvm_script_relax_if_enter(b, &cbv) != 0);
  CHECK_RAISED("ValueError", "a Relax if is not allowed inside R.dataflow");
  CHECK(tvm_script_relax_func_return(b, &xv) != 0);
  CHECK_RAISED("ValueError", "not inside R.dataflow or an if branch");
  CHECK(tvm_script_relax_dataflow_output(b, outs) == NULL);
  CHECK_RAISED("ValueError", "R.output: `x` is not a variable of this dataflow block");
  tvm_relax_var_obj* lv = OK(tvm_script_relax_emit(b, "lv", &xv, NULL));
  CHECK(tvm_relax_kind_of(lv) == TVM_RELAX_KIND_DataflowVar);
  void* louts = rt_array(1, lv);
  void* new_outs = OK(tvm_script_relax_dataflow_output(b, louts));
  CHECK(tvm_script_relax_emit(b, "late", &xv, NULL) == NULL);
  CHECK_RAISED("ValueError", "R.output must be the last statement of a dataflow block");
  CHECK(tvm_script_relax_dataflow_output(b, louts) == NULL);
  CHECK_RAISED("ValueError", "R.output is given twice");
  CHECK_OK(tvm_script_builder_exit(b));
  /* if: a bad condition, a missing else, branches assigning different names */
  CHECK(tvm_script_relax_if_enter(b, &xv) != 0);
  CHECK_RAISED("TypeError", "the condition of a Relax if must be a bool scalar");
  CHECK_OK(tvm_script_relax_if_enter(b, &cbv));
  CHECK(tvm_script_relax_else_enter(b) != 0);
  CHECK_RAISED("ValueError", "comes after its then branch");
  CHECK_OK(tvm_script_relax_then_enter(b));
  tvm_ffi_release(OK(tvm_script_relax_emit(b, "p", &xv, NULL)));
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_relax_else_enter(b));
  tvm_ffi_release(OK(tvm_script_relax_emit(b, "q", &xv, NULL)));
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK(tvm_script_relax_if_end(b) == NULL);
  CHECK_RAISED("ValueError", "`p` in the then branch, `q` in the else branch");
  CHECK_OK(tvm_script_relax_if_enter(b, &cbv));
  CHECK_OK(tvm_script_relax_then_enter(b));
  CHECK(tvm_script_builder_exit(b) != 0);
  CHECK_RAISED("ValueError", "the then branch of a Relax if must end by assigning");
  tvm_script_builder_free(b);
  /* a function without return; return twice; statements after return */
  b = tvm_script_builder_new();
  CHECK_OK(tvm_script_relax_function_enter(b, "f", 0));
  CHECK(tvm_script_relax_function_end(b) == NULL);
  CHECK_RAISED("ValueError", "R.function `f` has no return statement");
  tvm_script_builder_free(b);
  b = tvm_script_builder_new();
  CHECK_OK(tvm_script_relax_function_enter(b, "f", 0));
  tvm_relax_var_obj* x2 = OK(tvm_script_relax_arg(b, "x", t23));
  TVMFFIAny x2v = AO(x2);
  CHECK_OK(tvm_script_relax_func_return(b, &x2v));
  CHECK(tvm_script_relax_func_return(b, &x2v) != 0);
  CHECK_RAISED("ValueError", "returns twice");
  CHECK(tvm_script_relax_emit(b, "a", &x2v, NULL) == NULL);
  CHECK_RAISED("ValueError", "nothing may follow the return of R.function `f`");
  /* the return annotation contradicted by the body */
  CHECK_OK(tvm_script_relax_func_ret(b, t24));
  CHECK(tvm_script_relax_function_end(b) == NULL);
  CHECK(tvm_ffi_error_pending());
  tvm_ffi_error_clear();
  tvm_script_builder_free(b);
  /* module: a declaration twice */
  b = tvm_script_builder_new();
  CHECK_OK(tvm_script_ir_module_enter(b));
  void* ps = rt_array(1, t23);
  tvm_relax_sinfo_obj* fs = tvm_relax_func_sinfo_new(ps, t23, true);
  tvm_ffi_release(OK(tvm_script_relax_decl_function(b, "f", fs)));
  CHECK(tvm_script_relax_decl_function(b, "f", fs) == NULL);
  CHECK_RAISED("ValueError", "declares `f` twice");
  CHECK(tvm_script_relax_decl_function(b, "g", t23) == NULL);
  CHECK_RAISED("TypeError", "a FuncStructInfo was expected");
  /* an R.function inside a T.prim_func */
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK(tvm_script_relax_function_enter(b, "inner", 0) != 0);
  CHECK_RAISED("ValueError", "not inside a T.prim_func");
  tvm_script_builder_free(b);
  tvm_ffi_release(fs), tvm_ffi_release(ps), tvm_ffi_release(x2);
  tvm_ffi_release(new_outs), tvm_ffi_release(louts), tvm_ffi_release(lv), tvm_ffi_release(cb);
  tvm_ffi_release(tb), tvm_ffi_release(outs), tvm_ffi_release(x);
  tvm_ffi_release(t24), tvm_ffi_release(t23);
}

int main(void) {
  RUN(mlp_matches_block_builder);
  RUN(transformer_matches_block_builder);
  RUN(mixed_module_matches_block_builder);
  RUN(control_flow_local_function_match_cast);
  RUN(branches_ending_with_match_cast);
  RUN(errors);
  return test_summary();
}

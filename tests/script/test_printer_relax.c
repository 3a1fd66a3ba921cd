/*
 * test_printer_relax.c: Relax IR printed as TVMScript in upstream's canonical form: functions
 * with symbolic signatures, dataflow blocks with R.output, operators with non-default
 * attributes, call_tir into a sibling PrimFunc (cls.), if/else bindings, match_cast, tuples,
 * constants, nested functions, struct info of every kind; large constants as
 * metadata["relax.expr.Constant"][i] with the metadata section read back bit-exactly;
 * fragments (a lone binding, expression, struct info, block, variable, a function outside its
 * module); underlined diagnostics on Relax nodes, from access paths and from the text of
 * well-formedness errors; the call forms (call_tir's tir_vars=, call_tir_inplace, packed calls),
 * decorators and int64 PrimValues; a sample of operators with attributes, each printed call
 * rebuilt by the parser's R.<op> builtin from the printed keywords and structurally equal.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/analysis.h>
#include <tvm/script/ir_docsifier.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>

#include "relax_script_testing.h"

static char g_text[65536];

/* The text of obj printed with opts (NULL: defaults without the header), in a static buffer;
 * "<error Kind: message>" when printing fails. */
static const char* print_with(const void* obj, const tvm_script_print_options* o) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  void* s = tvm_script_print_obj(obj, o ? o : &opts);
  if (!s) {
    void* e = tvm_ffi_error_take();
    snprintf(g_text, sizeof(g_text), "<error %s: %s>", e ? tvm_ffi_error_kind(e) : "?",
             e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
  } else {
    snprintf(g_text, sizeof(g_text), "%s", tvm_ffi_str_cstr(s));
    tvm_ffi_release(s);
  }
  return g_text;
}

static const char* print(const void* obj) { return print_with(obj, NULL); }

static void* keep(void* obj);
static void drop_all(void);

TEST(function_with_dataflow_and_symbolic_shapes) {
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* dims[2] = {n, four};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, dims));
  tvm_relax_var_obj* b = rt_var_take("b", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(2, x, b);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "main", params, NULL, TVM_RELAX_BB_PRIVATE));
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  tvm_relax_expr_obj* e = RT_CALL("relax.exp", NULL, x);
  tvm_relax_expr_obj* add = RT_CALL("relax.add", NULL, e, b);
  tvm_relax_var_obj* lv = tvm_relax_bb_emit(bb, add, NULL);
  void* attrs = rt_attrs(1, "dtype", tvm_ffi_any_raw_str("float16"));
  tvm_relax_expr_obj* cast = RT_CALL("relax.astype", attrs, lv);
  tvm_relax_var_obj* gv = tvm_relax_bb_emit_output(bb, cast, NULL);
  CHECK_OK(tvm_relax_bb_block_end(bb));
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)gv, NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  CHECK_STR_EQ(print(mod),
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function(private=True)\n"
               "    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), b: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((\"n\", 4), dtype=\"float16\"):\n"
               "        n = T.int64()\n"
               "        with R.dataflow():\n"
               "            lv: R.Tensor((n, 4), dtype=\"float32\") = R.exp(x)\n"
               "            lv1: R.Tensor((n, 4), dtype=\"float32\") = R.add(lv, b)\n"
               "            gv: R.Tensor((n, 4), dtype=\"float16\") = R.astype(lv1, dtype=\"float16\")\n"
               "            R.output(gv)\n"
               "        return gv");
  tvm_relax_bb_free(bb);
  tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(gv), tvm_ffi_release(cast);
  tvm_ffi_release(attrs), tvm_ffi_release(lv), tvm_ffi_release(add), tvm_ffi_release(e);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(b);
  tvm_ffi_release(four), tvm_ffi_release(n);
}

TEST(struct_info_forms) {
  tvm_relax_sinfo_obj* s[11];
  s[0] = tvm_relax_object_sinfo_new();
  s[1] = tvm_relax_prim_sinfo_new(I64, NULL);
  s[2] = tvm_relax_shape_sinfo_new(NULL, 3);
  s[3] = tvm_relax_tensor_sinfo_new(NULL, F32, 2, NULL);
  s[4] = tvm_relax_tensor_sinfo_new(NULL, TVM_RELAX_DTYPE_UNKNOWN, -1, NULL);
  void* f = rt_array(2, s[1], s[3]);
  void* f1 = rt_array(1, s[1]);
  s[5] = tvm_relax_tuple_sinfo_new(f);
  s[6] = tvm_relax_func_sinfo_new(f, s[3], false);
  s[7] = tvm_relax_tuple_sinfo_new(NULL);
  s[8] = tvm_relax_func_sinfo_new(f1, s[0], true);
  s[9] = tvm_relax_func_sinfo_new(NULL, s[0], true);
  s[10] = tvm_relax_func_sinfo_new(NULL, s[3], false);
  /* upstream's forms: R.Callable((params,), ret, purity); an opaque one with its non-default
   * keywords (an opaque function is impure unless it says purity=True) */
  const char* expect[11] = {"R.Object",
                            "R.Prim(\"int64\")",
                            "R.Shape(ndim=3)",
                            "R.Tensor(dtype=\"float32\", ndim=2)",
                            "R.Tensor",
                            "R.Tuple(R.Prim(\"int64\"), R.Tensor(dtype=\"float32\", ndim=2))",
                            "R.Callable((R.Prim(\"int64\"), R.Tensor(dtype=\"float32\", ndim=2)), "
                            "R.Tensor(dtype=\"float32\", ndim=2), False)",
                            "R.Tuple",
                            "R.Callable((R.Prim(\"int64\"),), R.Object, True)",
                            "R.Callable(purity=True)",
                            "R.Callable(ret=R.Tensor(dtype=\"float32\", ndim=2))"};
  for (int i = 0; i < 11; ++i) {
    CHECK_STR_EQ(print(s[i]), expect[i]);
  }
  /* the printed Callables bind back through R.Callable (the parser's builtin) */
  void* t1 = keep(RTUPLE(AO(s[1])));
  void* t2 = keep(RTUPLE(AO(s[1]), AO(s[3])));
  CHECK(requal(keep(rcall(NULL, "Callable", RARGS(AO(t2), AO(s[3]), AB(false)), NOKW)), s[6]));
  CHECK(requal(keep(rcall(NULL, "Callable", RARGS(AO(t1), AO(s[0]), AB(true)), NOKW)), s[8]));
  CHECK(requal(keep(rcall(NULL, "Callable", NOARGS, RKW("purity"), RARGS(AB(true)))), s[9]));
  CHECK(requal(keep(rcall(NULL, "Callable", NOARGS, RKW("ret"), RARGS(AO(s[3])))), s[10]));
  /* R.Callable() alone: any arguments, an object, impure (upstream's default) */
  void* opaque = keep(tvm_relax_func_sinfo_new(NULL, s[0], false));
  CHECK(requal(keep(rcall(NULL, "Callable", NOARGS, NOKW)), opaque));
  CHECK(!requal(keep(rcall(NULL, "Callable", NOARGS, NOKW)), s[9]));
  for (int i = 0; i < 11; ++i) tvm_ffi_release(s[i]);
  tvm_ffi_release(f);
  tvm_ffi_release(f1);
  drop_all();
}

/* f(c: bool, x: (k,)) with an if/else binding, match_cast, tuples and a constant. */
TEST(control_flow_match_cast_tuples_constants) {
  tvm_relax_var_obj* c = rt_var_take("c", rt_tensor(tvm_tir_dtype_bool(), 0));
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL));
  void* params = rt_array(2, c, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "f", params, NULL, true));
  tvm_tir_var_obj* k = tvm_tir_var_new("k", I64);
  void* dk[1] = {k};
  tvm_relax_sinfo_obj* tk = rt_tensor_sym(F32, 1, dk);
  tvm_relax_var_obj* y = tvm_relax_bb_match_cast(bb, (tvm_relax_expr_obj*)x, tk, "y");
  CHECK(y != NULL);
  /* if c: z = exp(y) else: z = y */
  tvm_relax_expr_obj* ex = RT_CALL("relax.exp", NULL, y);
  tvm_relax_var_obj* t1 = tvm_relax_var_new("t1", tvm_relax_sinfo_of(ex), false);
  tvm_relax_binding_obj* b1 = tvm_relax_var_binding_new(t1, ex);
  void* bs = rt_array(1, b1);
  tvm_relax_block_obj* blk = tvm_relax_block_new(bs, false);
  void* blks = rt_array(1, blk);
  tvm_relax_expr_obj* then_seq = tvm_relax_seq_expr_new(blks, (tvm_relax_expr_obj*)t1);
  tvm_relax_expr_obj* iff = tvm_relax_if_new((tvm_relax_expr_obj*)c, then_seq, (tvm_relax_expr_obj*)y);
  tvm_relax_var_obj* z = tvm_relax_bb_emit(bb, iff, "z");
  /* t = (z, y); u = t[1]; a constant */
  void* fields = rt_array(2, z, y);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(fields);
  tvm_relax_var_obj* t = tvm_relax_bb_emit(bb, tup, "t");
  tvm_relax_expr_obj* gi = tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)t, 1);
  tvm_relax_var_obj* u = tvm_relax_bb_emit(bb, gi, "u");
  int64_t shape[2] = {2, 2};
  void* data = tvm_ffi_tensor_empty(shape, 2, F32, (DLDevice){kDLCPU, 0});
  float* p = tvm_ffi_tensor_dl(data)->data;
  p[0] = 1, p[1] = 2.5f, p[2] = -3, p[3] = 0;
  tvm_relax_expr_obj* cst = tvm_relax_constant_new(data, NULL);
  tvm_relax_var_obj* w = tvm_relax_bb_emit(bb, cst, "w");
  void* out_fields = rt_array(2, u, w);
  tvm_relax_expr_obj* out = tvm_relax_tuple_new(out_fields);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, out, NULL);
  CHECK(g != NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "f");
  CHECK_STR_EQ(print(f),
               "@R.function\n"
               "def f(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor(dtype=\"float32\", ndim=1)) -> R.Tuple(R.Tensor(dtype=\"float32\", ndim=1), R.Tensor((2, 2), dtype=\"float32\")):\n"
               "    k = T.int64()\n"
               "    y: R.Tensor((k,), dtype=\"float32\") = R.match_cast(x, R.Tensor((k,), dtype=\"float32\"))\n"
               "    if c:\n"
               "        t1: R.Tensor((k,), dtype=\"float32\") = R.exp(y)\n"
               "        z: R.Tensor((k,), dtype=\"float32\") = t1\n"
               "    else:\n"
               "        z: R.Tensor((k,), dtype=\"float32\") = y\n"
               "    t: R.Tuple(R.Tensor((k,), dtype=\"float32\"), R.Tensor((k,), dtype=\"float32\")) = z, y\n"
               "    u: R.Tensor((k,), dtype=\"float32\") = t[1]\n"
               "    w: R.Tensor((2, 2), dtype=\"float32\") = R.const([[1.0, 2.5], [-3.0, 0.0]], \"float32\")\n"
               "    return (u, w)");
  tvm_ffi_release(f), tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(out);
  tvm_ffi_release(out_fields), tvm_ffi_release(w), tvm_ffi_release(cst), tvm_ffi_release(data);
  tvm_ffi_release(u), tvm_ffi_release(gi), tvm_ffi_release(t), tvm_ffi_release(tup);
  tvm_ffi_release(fields), tvm_ffi_release(z), tvm_ffi_release(iff), tvm_ffi_release(then_seq);
  tvm_ffi_release(blks), tvm_ffi_release(blk), tvm_ffi_release(bs), tvm_ffi_release(b1);
  tvm_ffi_release(t1), tvm_ffi_release(ex), tvm_ffi_release(y), tvm_ffi_release(tk);
  tvm_ffi_release(k), tvm_relax_bb_free(bb), tvm_ffi_release(params), tvm_ffi_release(x);
  tvm_ffi_release(c);
}

/* ---- Objects kept for the length of a test ---------------------------------------------------- */
static void* g_kept[1024];
static int g_num_kept;

static void* keep(void* obj) {
  if (!obj) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "building the IR failed: %s: %s\n", e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    return NULL;
  }
  if (g_num_kept < (int)(sizeof(g_kept) / sizeof(g_kept[0]))) g_kept[g_num_kept++] = obj;
  return obj;
}

static void drop_all(void) {
  while (g_num_kept > 0) tvm_ffi_release(g_kept[--g_num_kept]);
}

#define ARR(...) keep(rt_array(RT_NARGS(__VA_ARGS__), __VA_ARGS__))
static tvm_relax_var_obj* var(const char* name, tvm_relax_sinfo_obj* s) {
  return keep(tvm_relax_var_new(name, s, false));
}
static tvm_relax_var_obj* dfvar(const char* name, tvm_relax_sinfo_obj* s) {
  return keep(tvm_relax_var_new(name, s, true));
}
static tvm_relax_sinfo_obj* t23(void) { return keep(rt_tensor(F32, 2, (int64_t)2, (int64_t)3)); }
static void* bind(void* v, void* value) { return keep(tvm_relax_var_binding_new(v, value)); }
static void* block(bool dataflow, void* bindings) { return keep(tvm_relax_block_new(bindings, dataflow)); }
static void* seq(void* blocks, void* body) { return keep(tvm_relax_seq_expr_new(blocks, body)); }

/* A CPU tensor of dtype and shape with its bytes from a fixed pseudo-random sequence (not only
 * zeros); float elements are kept finite unless `raw`. */
static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static void* data_tensor(DLDataType dt, int ndim, const int64_t* shape, bool raw) {
  void* t = keep(tvm_ffi_tensor_empty(shape, ndim, dt, (DLDevice){kDLCPU, 0}));
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  int64_t n = tvm_ffi_dltensor_numel(dl);
  for (int64_t i = 0; i < n; ++i) {
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    if (dt.code == kDLFloat && dt.bits == 32) {
      float f = raw ? 0 : (float)((int64_t)(g_rng % 20001) - 10000) / 64.0f;
      if (raw) memcpy(&f, &g_rng, 4);
      ((float*)dl->data)[i] = f;
    } else if (dt.code == kDLInt && dt.bits == 32) {
      ((int32_t*)dl->data)[i] = (int32_t)g_rng;
    } else if (dt.bits == 16) {
      ((uint16_t*)dl->data)[i] = (uint16_t)(0x3c00 + g_rng % 0x800); /* finite halves in [1, 4) */
    }
  }
  return t;
}

static const char* meta_print(const void* obj, int64_t max_inline, bool show_meta, bool header) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = header;
  opts.inline_constant_max_elements = max_inline;
  opts.show_meta = show_meta;
  return print_with(obj, &opts);
}

/* ---- Constants and the metadata section ------------------------------------------------------ */
/* f(x: (4, 5)) adds a 4x5 constant (20 elements: metadata), the same constant again (one
 * index), a 2x2 constant (inline), a float16 vector (inline), an int32 4x5 one (metadata) and a
 * float32 vector holding a NaN (no exact literal: metadata). */
TEST(large_constants_print_as_metadata) {
  int64_t s45[2] = {4, 5}, s22[2] = {2, 2}, s3[1] = {3};
  tvm_relax_var_obj* x = var("x", keep(rt_tensor(F32, 2, (int64_t)4, (int64_t)5)));
  void* big = keep(tvm_relax_constant_new(data_tensor(F32, 2, s45, false), NULL));
  void* small = keep(tvm_relax_constant_new(data_tensor(F32, 2, s22, false), NULL));
  void* half = keep(tvm_relax_constant_new(data_tensor(tvm_tir_dtype_float(16), 1, s3, false), NULL));
  void* ints = keep(tvm_relax_constant_new(data_tensor(tvm_tir_dtype_int(32), 2, s45, false), NULL));
  void* nan_t = data_tensor(F32, 1, s3, false);
  ((float*)tvm_ffi_tensor_dl(nan_t)->data)[1] = NAN;
  void* nanc = keep(tvm_relax_constant_new(nan_t, NULL));
  tvm_relax_var_obj *a = var("a", keep(rt_tensor(F32, 2, (int64_t)4, (int64_t)5))),
                    *b = var("b", keep(rt_tensor(F32, 2, (int64_t)4, (int64_t)5))),
                    *c = var("c", keep(rt_tensor(F32, 2, (int64_t)2, (int64_t)2))),
                    *h = var("h", keep(rt_tensor(tvm_tir_dtype_float(16), 1, (int64_t)3))),
                    *i = var("i", keep(rt_tensor(tvm_tir_dtype_int(32), 2, (int64_t)4, (int64_t)5))),
                    *n = var("n", keep(rt_tensor(F32, 1, (int64_t)3)));
  void* body = seq(ARR(block(false, ARR(bind(a, keep(RT_CALL("relax.add", NULL, x, big))),
                                        bind(b, keep(RT_CALL("relax.multiply", NULL, a, big))),
                                        bind(c, small), bind(h, half), bind(i, ints), bind(n, nanc)))),
                   (void*)b);
  tvm_relax_function_obj* f = keep(tvm_relax_function_new(ARR(x), body, NULL, true, NULL));
  const char* text = meta_print(f, 16, true, true);
  /* the script after the section */
  const char* script = strstr(text, "\n\n@R.function");
  CHECK(script != NULL);
  CHECK_STR_EQ(script ? script + 2 : text,
               "@R.function(private=True)\n"
               "def main(x: R.Tensor((4, 5), dtype=\"float32\")) -> R.Tensor((4, 5), dtype=\"float32\"):\n"
               "    a: R.Tensor((4, 5), dtype=\"float32\") = R.add(x, metadata[\"relax.expr.Constant\"][0])\n"
               "    b: R.Tensor((4, 5), dtype=\"float32\") = R.multiply(a, metadata[\"relax.expr.Constant\"][0])\n"
               "    c: R.Tensor((2, 2), dtype=\"float32\") = R.const([[-101.890625, 128.359375], [-67.21875, 34.453125]], \"float32\")\n"
               "    h: R.Tensor((3,), dtype=\"float16\") = R.const([3.5, 1.154296875, 2.748046875], \"float16\")\n"
               "    i: R.Tensor((4, 5), dtype=\"int32\") = metadata[\"relax.expr.Constant\"][1]\n"
               "    n: R.Tensor((3,), dtype=\"float32\") = metadata[\"relax.expr.Constant\"][2]\n"
               "    return b");
  /* the header, then the section */
  const char* head = "# from tvm.script import relax as R\n\nmetadata = tvm.ir.load_json(\"\"\"{\n"
                     "  \"root_index\": ";
  CHECK(strncmp(text, head, strlen(head)) == 0);
  /* read back: three constants, bit-exact, structurally equal to the printed ones */
  void* meta = tvm_script_metadata_from_script(text, strlen(text));
  CHECK(meta != NULL);
  const void* expect[3] = {big, ints, nanc};
  for (int k = 0; meta && k < 3; ++k) {
    const tvm_relax_constant_obj* got = tvm_script_metadata_item(meta, "relax.expr.Constant", k);
    CHECK(got && tvm_relax_kind_of(got) == TVM_RELAX_KIND_Constant);
    if (!got) continue;
    const DLTensor *gt = tvm_ffi_tensor_dl(got->data),
                   *et = tvm_ffi_tensor_dl(((const tvm_relax_constant_obj*)expect[k])->data);
    int64_t nb = tvm_ffi_dltensor_nbytes(et);
    CHECK(nb == tvm_ffi_dltensor_nbytes(gt) && memcmp(gt->data, et->data, (size_t)nb) == 0);
    TVMFFIAny ga = tvm_ffi_any_obj((void*)got), ea = tvm_ffi_any_obj((void*)expect[k]);
    CHECK(tvm_ffi_structural_equal(&ga, &ea, false, NULL, NULL) == 1);
  }
  CHECK(meta && tvm_script_metadata_item(meta, "relax.expr.Constant", 3) == NULL);
  CHECK_RAISED("IndexError", "metadata[\"relax.expr.Constant\"][3] is out of range (3 entries)");
  CHECK(meta && tvm_script_metadata_item(meta, "tir.StringImm", 0) == NULL);
  CHECK_RAISED("KeyError", "metadata has no \"tir.StringImm\" entries");
  tvm_ffi_release(meta);
  /* without the section: the comment upstream prints at the end */
  text = meta_print(f, 16, false, false);
  CHECK(strstr(text, "metadata = ") == NULL);
  CHECK(strstr(text, "= metadata[\"relax.expr.Constant\"][1]\n") != NULL);
  const char* end = "    return b\n\n# Metadata omitted. Use show_meta=True in script() method to show it.";
  size_t len = strlen(text), tail = strlen(end);
  CHECK(len > tail && strcmp(text + len - tail, end) == 0);
  CHECK(tvm_script_metadata_from_script(text, len) == NULL && !tvm_ffi_error_pending());
  /* a larger threshold prints the 4x5 ones inline (the NaN one stays in the section) */
  text = meta_print(f, 20, true, false);
  CHECK(strstr(text, "metadata[\"relax.expr.Constant\"][0]\n") != NULL);
  CHECK(strstr(text, "metadata[\"relax.expr.Constant\"][1]") == NULL);
  CHECK(strstr(text, "R.add(x, R.const([[") != NULL);
  drop_all();
}

/* The section's exact text for one small constant printed with upstream's rule (only scalars
 * inline), and the scalar itself inline. */
TEST(metadata_section_text) {
  int64_t s2[1] = {2};
  void* t = keep(tvm_ffi_tensor_empty(s2, 1, F32, (DLDevice){kDLCPU, 0}));
  ((float*)tvm_ffi_tensor_dl(t)->data)[0] = 1.0f;
  ((float*)tvm_ffi_tensor_dl(t)->data)[1] = -2.5f;
  void* c = keep(tvm_relax_constant_new(t, NULL));
  void* sc = keep(tvm_ffi_tensor_empty(NULL, 0, F32, (DLDevice){kDLCPU, 0}));
  *(float*)tvm_ffi_tensor_dl(sc)->data = 0.25f;
  void* scalar = keep(tvm_relax_constant_new(sc, NULL));
  void* sum = keep(RT_CALL("relax.add", NULL, c, scalar));
  const char* text = meta_print(sum, 0, true, false);
  CHECK_STR_EQ(
      text,
      "metadata = tvm.ir.load_json(\"\"\"{\n"
      "  \"root_index\": 10,\n"
      "  \"nodes\": [\n"
      "    {\n"
      "      \"type\": \"ffi.String\",\n"
      "      \"data\": \"relax.expr.Constant\"\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"None\"\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"ir.IntImm\",\n"
      "      \"data\": {\n"
      "        \"span\": 1,\n"
      "        \"dtype\": \"int64\",\n"
      "        \"value\": 2\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"ffi.Array\",\n"
      "      \"data\": [2]\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"relax.ShapeStructInfo\",\n"
      "      \"data\": {\n"
      "        \"span\": 1,\n"
      "        \"values\": 3,\n"
      "        \"ndim\": 1\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"relax.expr.ShapeExpr\",\n"
      "      \"data\": {\n"
      "        \"span\": 1,\n"
      "        \"struct_info_\": 4,\n"
      "        \"values\": 3\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"relax.TensorStructInfo\",\n"
      "      \"data\": {\n"
      "        \"span\": 1,\n"
      "        \"shape\": 5,\n"
      "        \"dtype\": \"float32\",\n"
      "        \"ndim\": 1,\n"
      "        \"vdevice\": 1\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"ffi.Tensor\",\n"
      "      \"data\": \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPwAAIMA=\"\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"relax.expr.Constant\",\n"
      "      \"data\": {\n"
      "        \"span\": 1,\n"
      "        \"struct_info_\": 6,\n"
      "        \"data\": 7\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"ffi.Array\",\n"
      "      \"data\": [8]\n"
      "    },\n"
      "    {\n"
      "      \"type\": \"ffi.Map\",\n"
      "      \"data\": [0, 9]\n"
      "    }\n"
      "  ]\n"
      "}\"\"\")\n"
      "\n"
      "R.add(metadata[\"relax.expr.Constant\"][0], R.const(0.25, \"float32\"))");
  void* meta = tvm_script_metadata_from_script(text, strlen(text));
  const void* got = meta ? tvm_script_metadata_item(meta, "relax.expr.Constant", 0) : NULL;
  TVMFFIAny ga = tvm_ffi_any_obj((void*)got), ea = tvm_ffi_any_obj(c);
  CHECK(got && tvm_ffi_structural_equal(&ga, &ea, false, NULL, NULL) == 1);
  tvm_ffi_release(meta);
  /* bad sections */
  CHECK(tvm_script_metadata_from_json("[1, 2]", 6) == NULL);
  CHECK_RAISED("ValueError", "metadata");
  const char* not_map = "{\"root_index\":0,\"nodes\":[{\"type\":\"int\",\"data\":3}]}";
  CHECK(tvm_script_metadata_from_json(not_map, strlen(not_map)) == NULL);
  CHECK_RAISED("TypeError", "metadata: the JSON must hold a map of type key to array, got int");
  const char* open = "metadata = tvm.ir.load_json(\"\"\"{\"root_index\": 0";
  CHECK(tvm_script_metadata_from_script(open, strlen(open)) == NULL);
  CHECK_RAISED("ValueError", "not closed");
  drop_all();
}

/* The section's string keeps quotes and backslashes: an object holding them, added to the
 * metadata by a test converter (ffi.Shape has no converter of its own here), reads back the
 * same. */
static void* g_tricky;
static tvm_script_doc_obj* tricky_conv(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                       const void* path) {
  return tvm_script_add_metadata(d, g_tricky);
}

TEST(metadata_string_escapes) {
  static const char k_tricky[] = "say \"\"\"hi\"\"\" \\ back\\slash \\\" \n\"";
  g_tricky = keep(tvm_relax_string_imm_new(k_tricky, sizeof(k_tricky) - 1));
  CHECK_OK(tvm_script_register_builtin_converters());
  CHECK_OK(tvm_script_register_converter("", kTVMFFIShape, tricky_conv));
  void* shape = keep(tvm_ffi_shape_new((int64_t[]){2}, 1));
  const char* text = meta_print(shape, 16, true, false);
  size_t len = strlen(text), tail = strlen("\n\nmetadata[\"relax.expr.StringImm\"][0]");
  CHECK(len > tail && strcmp(text + len - tail, "\n\nmetadata[\"relax.expr.StringImm\"][0]") == 0);
  CHECK(strstr(text, "\"\"\"hi") == NULL); /* no triple quote inside the string */
  void* meta = tvm_script_metadata_from_script(text, len);
  const tvm_relax_string_imm_obj* got = meta ? tvm_script_metadata_item(meta, "relax.expr.StringImm", 0) : NULL;
  CHECK(got != NULL);
  if (got) CHECK_STR_EQ(tvm_ffi_str_cstr(got->value), k_tricky);
  tvm_ffi_release(meta);
  drop_all();
}

/* ---- Fragments -------------------------------------------------------------------------------- */
TEST(fragments) {
  tvm_tir_var_obj* n = keep(tvm_tir_var_new("n", I64));
  void* dn[2] = {n, NULL};
  tvm_tir_expr_obj* three = keep(tvm_tir_const_int(I64, 3));
  dn[1] = three;
  tvm_relax_var_obj* x = var("x", keep(rt_tensor_sym(F32, 2, dn)));
  tvm_relax_var_obj* y = var("y", keep(rt_tensor_sym(F32, 2, dn)));
  /* an expression: its free variables declared first */
  void* add = keep(RT_CALL("relax.add", NULL, x, y));
  CHECK_STR_EQ(print(add),
               "n = T.int64()\n"
               "x: R.Tensor((n, 3), dtype=\"float32\")\n"
               "y: R.Tensor((n, 3), dtype=\"float32\")\n"
               "R.add(x, y)");
  /* with the header */
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  CHECK_STR_EQ(print_with(add, &opts),
               "# from tvm.script import tirx as T\n"
               "# from tvm.script import relax as R\n"
               "\n"
               "n = T.int64()\n"
               "x: R.Tensor((n, 3), dtype=\"float32\")\n"
               "y: R.Tensor((n, 3), dtype=\"float32\")\n"
               "R.add(x, y)");
  /* a lone variable: its declaration */
  CHECK_STR_EQ(print(x), "n = T.int64()\nx: R.Tensor((n, 3), dtype=\"float32\")");
  /* a struct info */
  CHECK_STR_EQ(print(tvm_relax_sinfo_of(x)), "n = T.int64()\nR.Tensor((n, 3), dtype=\"float32\")");
  /* a lone binding, a match_cast */
  tvm_relax_var_obj* z = var("z", keep(rt_tensor_sym(F32, 2, dn)));
  void* b = bind(z, add);
  CHECK_STR_EQ(print(b),
               "n = T.int64()\n"
               "x: R.Tensor((n, 3), dtype=\"float32\")\n"
               "y: R.Tensor((n, 3), dtype=\"float32\")\n"
               "z: R.Tensor((n, 3), dtype=\"float32\") = R.add(x, y)");
  tvm_tir_var_obj* m = keep(tvm_tir_var_new("m", I64));
  void* dm[2] = {m, three};
  tvm_relax_sinfo_obj* tm = keep(rt_tensor_sym(F32, 2, dm));
  tvm_relax_var_obj* w = var("w", tm);
  void* mc = keep(tvm_relax_match_cast_new(w, (void*)x, tm));
  CHECK_STR_EQ(print(mc),
               "n = T.int64()\n"
               "x: R.Tensor((n, 3), dtype=\"float32\")\n"
               "m = T.int64()\n"
               "w: R.Tensor((m, 3), dtype=\"float32\") = R.match_cast(x, R.Tensor((m, 3), dtype=\"float32\"))");
  /* a dataflow block: outputs by R.output */
  tvm_relax_var_obj* lv = dfvar("lv", keep(rt_tensor_sym(F32, 2, dn)));
  tvm_relax_var_obj* gv = var("gv", keep(rt_tensor_sym(F32, 2, dn)));
  void* df = block(true, ARR(bind(lv, keep(RT_CALL("relax.exp", NULL, x))),
                            bind(gv, keep(RT_CALL("relax.negative", NULL, lv)))));
  CHECK_STR_EQ(print(df),
               "n = T.int64()\n"
               "x: R.Tensor((n, 3), dtype=\"float32\")\n"
               "with R.dataflow():\n"
               "    lv: R.Tensor((n, 3), dtype=\"float32\") = R.exp(x)\n"
               "    gv: R.Tensor((n, 3), dtype=\"float32\") = R.negative(lv)\n"
               "    R.output(gv)");
  /* a plain block, and a SeqExpr ending with its body */
  void* pb = block(false, ARR(bind(z, add)));
  CHECK_STR_EQ(print(seq(ARR(pb), keep(RT_CALL("relax.exp", NULL, z)))),
               "n = T.int64()\n"
               "x: R.Tensor((n, 3), dtype=\"float32\")\n"
               "y: R.Tensor((n, 3), dtype=\"float32\")\n"
               "z: R.Tensor((n, 3), dtype=\"float32\") = R.add(x, y)\n"
               "R.exp(z)");
  /* an int64 PrimValue prints as a plain int, others with their type */
  CHECK_STR_EQ(print(keep(tvm_relax_prim_value_int64(7))), "R.prim_value(7)");
  CHECK_STR_EQ(print(keep(tvm_relax_prim_value_new(keep(tvm_tir_const_int(tvm_tir_dtype_int(32), 7))))),
               "R.prim_value(T.int32(7))");
  void* nd[1] = {keep(tvm_tir_mul((tvm_tir_expr_obj*)n, keep(tvm_tir_const_int(I64, 2))))};
  CHECK_STR_EQ(print(keep(tvm_relax_shape_expr_new(ARR(nd[0], three)))),
               "n = T.int64()\nR.shape([n * 2, 3])");
  drop_all();
}

/* A module's functions printed alone: `cls.f` references stay unresolved (the bare name, as
 * upstream prints them), a function without global_symbol is private, an impure one says so
 * first, and a global_symbol that is not the function's name is kept in R.func_attr. */
TEST(functions_outside_their_module) {
  tvm_relax_var_obj* x = var("x", t23());
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "helper", ARR(x), NULL, TVM_RELAX_BB_PRIVATE | TVM_RELAX_BB_IMPURE));
  tvm_relax_var_obj* e = keep(tvm_relax_bb_emit(bb, keep(RT_CALL("relax.exp", NULL, x)), NULL));
  tvm_tir_global_var_obj* helper = keep(tvm_relax_bb_function_end(bb, (void*)e, NULL));
  tvm_relax_var_obj* y = var("y", t23());
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", ARR(y), NULL, false));
  void* call = keep(tvm_relax_call_new(helper, ARR(y), NULL, NULL, NULL));
  tvm_relax_var_obj* r = keep(tvm_relax_bb_emit(bb, call, NULL));
  keep(tvm_relax_bb_function_end(bb, (void*)r, NULL));
  tvm_tir_ir_module_obj* mod = keep(tvm_relax_bb_module(bb));
  tvm_relax_bb_free(bb);
  CHECK_STR_EQ(print(mod),
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function(pure=False, private=True)\n"
               "    def helper(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "        gv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
               "        return gv\n"
               "\n"
               "    @R.function(pure=False)\n"
               "    def main(y: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "        cls = Module\n"
               "        gv: R.Tensor((2, 3), dtype=\"float32\") = cls.helper(y)\n"
               "        return gv");
  void* main_fn = keep(tvm_tir_ir_module_lookup(mod, "main"));
  CHECK_STR_EQ(print(main_fn),
               "@R.function(pure=False)\n"
               "def main(y: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "    gv: R.Tensor((2, 3), dtype=\"float32\") = helper(y)\n"
               "    return gv");
  CHECK_STR_EQ(print(keep(tvm_tir_ir_module_lookup(mod, "helper"))),
               "@R.function(pure=False, private=True)\n"
               "def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "    gv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
               "    return gv");
  /* exported under another name: the name it is printed under is the global symbol */
  TVMFFIAny other = tvm_ffi_any_raw_str("exported_main");
  void* renamed = keep(tvm_relax_function_with_attr(main_fn, "global_symbol", &other));
  CHECK_STR_EQ(print(renamed),
               "@R.function(pure=False)\n"
               "def exported_main(y: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "    gv: R.Tensor((2, 3), dtype=\"float32\") = helper(y)\n"
               "    return gv");
  /* attributes print as TIR prints them: an int32 IntImm as a plain int (upstream's) */
  TVMFFIAny one = tvm_ffi_any_obj(keep(tvm_tir_const_int(tvm_tir_dtype_int(32), 1)));
  CHECK_STR_EQ(print(keep(tvm_relax_function_with_attr(main_fn, "num_input", &one))),
               "@R.function(pure=False)\n"
               "def main(y: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "    R.func_attr({\"num_input\": 1})\n"
               "    gv: R.Tensor((2, 3), dtype=\"float32\") = helper(y)\n"
               "    return gv");
  /* in a module under its GlobalVar's name, a different global_symbol is an attribute */
  tvm_tir_global_var_obj* gmain = keep(tvm_relax_global_var_new("main", keep(tvm_relax_expr_sinfo(renamed))));
  TVMFFIAny k = tvm_ffi_any_obj(gmain), v = tvm_ffi_any_obj(renamed);
  tvm_tir_ir_module_obj* mod2 = keep(tvm_tir_ir_module_new(keep(tvm_ffi_map_new(&k, &v, 1)), NULL));
  CHECK_STR_EQ(print(mod2),
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function(pure=False)\n"
               "    def main(y: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "        R.func_attr({\"global_symbol\": \"exported_main\"})\n"
               "        gv: R.Tensor((2, 3), dtype=\"float32\") = helper(y)\n"
               "        return gv");
  drop_all();
}

/* ---- Call forms -------------------------------------------------------------------------------- */
TEST(call_forms) {
  tvm_tir_var_obj* n = keep(tvm_tir_var_new("n", I64));
  void* dn[1] = {n};
  tvm_relax_var_obj* x = var("x", keep(rt_tensor_sym(F32, 1, dn)));
  tvm_tir_global_var_obj* k = keep(tvm_tir_global_var_new("kernel"));
  tvm_relax_sinfo_obj* out = keep(rt_tensor_sym(F32, 1, dn));
  void* sv = keep(tvm_relax_shape_expr_new(ARR(n)));
  /* call_tir with tir_vars, as upstream: keyword after out_sinfo */
  void* ct = keep(tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_call_tir),
                                     ARR(k, keep(tvm_relax_tuple_new(ARR(x))), sv), NULL, ARR(out), NULL));
  CHECK_STR_EQ(rprint(ct), "R.call_tir(kernel, (x,), out_sinfo=R.Tensor((n,), dtype=\"float32\"), tir_vars=R.shape([n]))");
  /* the printed keywords bind back through R.call_tir (the parser's builtin) to an equal call */
  void* again = keep(rcall(NULL, "call_tir", RARGS(AO(k), AO(keep(RTUPLE(AO(x))))),
                           RKW("out_sinfo", "tir_vars"), RARGS(AO(out), AO(sv))));
  CHECK(requal(again, ct));
  /* call_tir_inplace: out_sinfo, inplace_indices, tir_vars */
  void* idx = keep(RTUPLE(AI(0)));
  void* cti = keep(rcall(NULL, "call_tir_inplace", RARGS(AO(k), AO(keep(RTUPLE(AO(x))))),
                         RKW("out_sinfo", "inplace_indices", "tir_vars"), RARGS(AO(out), AO(idx), AO(sv))));
  CHECK_STR_EQ(rprint(cti), "R.call_tir_inplace(kernel, (x,), out_sinfo=R.Tensor((n,), dtype=\"float32\"), inplace_indices=[0], tir_vars=R.shape([n]))");
  /* call_dps_packed of a packed function: its name */
  void* cdp = keep(rcall(NULL, "call_dps_packed", RARGS(AS("my_kernel"), AO(keep(RTUPLE(AO(x))))),
                         RKW("out_sinfo"), RARGS(AO(out))));
  CHECK_STR_EQ(rprint(cdp), "R.call_dps_packed(\"my_kernel\", (x,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))");
  /* R.call_packed / call_pure_packed: sinfo_args as a tuple */
  void* sargs = keep(RTUPLE(AO(out)));
  void* cp = keep(rcall(NULL, "call_packed", RARGS(AS("vm.builtin.f"), AO(x), AI(2)), RKW("sinfo_args"), RARGS(AO(sargs))));
  CHECK_STR_EQ(rprint(cp), "R.call_packed(\"vm.builtin.f\", x, R.prim_value(2), sinfo_args=(R.Tensor((n,), dtype=\"float32\"),))");
  void* cpp = keep(rcall(NULL, "call_pure_packed", RARGS(AS("f"), AO(x)), RKW("sinfo_args"), RARGS(AO(out))));
  CHECK_STR_EQ(rprint(cpp), "R.call_pure_packed(\"f\", x, sinfo_args=(R.Tensor((n,), dtype=\"float32\"),))");
  void* cpp2 = keep(rcall(NULL, "call_pure_packed", RARGS(AS("f"), AO(x)), RKW("sinfo_args"), RARGS(AO(sargs))));
  CHECK(requal(cpp2, cpp));
  drop_all();
}

/* A sample of operators with attributes: the text (attributes that differ from the schema's
 * defaults as keywords, in the schema's order), and the call rebuilt by the parser's R.<op>
 * builtin from exactly the printed arguments and keywords is structurally equal. */
typedef struct {
  const char* op;
  int nargs;
  const char* keys[6];
  TVMFFIAny values[6];
  int nkw;
  const char* text;
} op_case;

TEST(operator_attributes) {
  tvm_relax_var_obj* x = var("x", keep(rt_tensor(F32, 4, (int64_t)1, (int64_t)3, (int64_t)8, (int64_t)8)));
  tvm_relax_var_obj* w = var("w", keep(rt_tensor(F32, 4, (int64_t)4, (int64_t)3, (int64_t)3, (int64_t)3)));
  tvm_relax_var_obj* m = var("m", t23());
  tvm_relax_var_obj* ix = var("ix", keep(rt_tensor(tvm_tir_dtype_int(64), 1, (int64_t)2)));
  tvm_relax_var_obj* cond = var("c", keep(rt_tensor(tvm_tir_dtype_bool(), 0)));
  void* s22 = keep(RTUPLE(AI(2), AI(2)));
  void* p1 = keep(RTUPLE(AI(1), AI(1), AI(1), AI(1)));
  void* ax1 = keep(RTUPLE(AI(1)));
  void* perm = keep(RTUPLE(AI(1), AI(0)));
  void* tup = keep(RTUPLE(AO(m), AO(m)));
  void* shape = keep(RTUPLE(AI(3), AI(2)));
  void* axes0 = keep(RTUPLE(AI(0)));
  void* b0 = keep(RTUPLE(AI(0)));
  void* e1 = keep(RTUPLE(AI(1)));
  const op_case cases[] = {
      {"nn.conv2d", 2, {"strides", "padding", "groups", "out_dtype"}, {AO(s22), AO(p1), AI(1), AS("float16")}, 4,
       "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], out_dtype=\"float16\")"},
      {"nn.conv2d", 2, {"data_layout"}, {AS("NCHW")}, 1, "R.nn.conv2d(x, w)"},
      {"nn.max_pool2d", 1, {"pool_size", "strides", "padding", "ceil_mode"}, {AO(s22), AO(s22), AO(p1), AB(true)}, 4,
       "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1], ceil_mode=True)"},
      {"sum", 1, {"axis", "keepdims"}, {AO(ax1), AB(true)}, 2, "R.sum(m, axis=[1], keepdims=True)"},
      {"sum", 1, {0}, {{0}}, 0, "R.sum(m)"},
      {"take", 2, {"axis", "mode"}, {AI(1), AS("clip")}, 2, "R.take(m, ix, axis=1, mode=\"clip\")"},
      {"concat", 1, {"axis"}, {AI(1)}, 1, "R.concat((m, m), axis=1)"},
      {"concat", 1, {0}, {{0}}, 0, "R.concat((m, m))"},
      {"reshape", 2, {0}, {{0}}, 0, "R.reshape(m, R.shape([3, 2]))"},
      {"permute_dims", 1, {"axes"}, {AO(perm)}, 1, "R.permute_dims(m, axes=[1, 0])"},
      {"permute_dims", 1, {0}, {{0}}, 0, "R.permute_dims(m)"},
      {"astype", 1, {"dtype"}, {AS("int8")}, 1, "R.astype(m, dtype=\"int8\")"},
      {"strided_slice", 4, {"assume_inbound"}, {AB(true)}, 1,
       "R.strided_slice(m, (R.prim_value(0),), (R.prim_value(0),), (R.prim_value(1),), assume_inbound=True)"},
      {"nn.softmax", 1, {"axis"}, {AI(0)}, 1, "R.nn.softmax(m, axis=0)"},
      {"nn.softmax", 1, {"axis"}, {AI(-1)}, 1, "R.nn.softmax(m)"},
      {"assert_op", 2, {"format"}, {AS("m={}")}, 1, "R.assert_op(c, m, format=\"m={}\")"},
      {"print", 1, {"format"}, {AS("{}")}, 1, "R.print(m, format=\"{}\")"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const op_case* c = &cases[i];
    bool is_conv = strncmp(c->op, "nn.conv2d", 9) == 0, is_pool = strncmp(c->op, "nn.max_pool2d", 13) == 0;
    TVMFFIAny args[4];
    if (is_conv) args[0] = AO(x), args[1] = AO(w);
    else if (is_pool) args[0] = AO(x);
    else if (strcmp(c->op, "concat") == 0) args[0] = AO(tup);
    else if (strcmp(c->op, "take") == 0) args[0] = AO(m), args[1] = AO(ix);
    else if (strcmp(c->op, "reshape") == 0) args[0] = AO(m), args[1] = AO(shape);
    else if (strcmp(c->op, "strided_slice") == 0) args[0] = AO(m), args[1] = AO(axes0), args[2] = AO(b0), args[3] = AO(e1);
    else if (strcmp(c->op, "assert_op") == 0) args[0] = AO(cond), args[1] = AO(m);
    else args[0] = AO(m);
    void* call = keep(rcall(NULL, c->op, args, c->nargs, c->keys, c->values, c->nkw));
    if (!call) continue;
    const char* text = rprint(call);
    CHECK_STR_EQ(text, c->text);
    /* rebuild from the printed keywords only (names and values read off the text's call) */
    const tvm_relax_call_obj* cc = call;
    const tvm_relax_op_info* info = tvm_relax_op_info_of(cc->op);
    const char* keys[8];
    TVMFFIAny vals[8];
    int nk = 0;
    for (int32_t a = 0; info && a < info->num_attrs; ++a) {
      char pat[64];
      snprintf(pat, sizeof(pat), "%s=", info->attrs[a].name);
      if (!strstr(text, pat)) continue;
      keys[nk] = info->attrs[a].name;
      vals[nk++] = *tvm_ffi_map_get_str(cc->attrs, info->attrs[a].name);
    }
    void* again = keep(rcall(NULL, c->op, args, c->nargs, keys, vals, nk));
    CHECK(again && requal(again, call));
  }
  drop_all();
}

/* ---- Underlined diagnostics ------------------------------------------------------------------ */
static const char* underlined(const void* obj, const void* path) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  const void* paths[1] = {path};
  opts.underline_paths = paths;
  opts.num_underline_paths = 1;
  return print_with(obj, &opts);
}

/* The path <root>.functions[<gv>] + steps ("[i]" an array item). */
static void* fpath(const void* gv, const char* const* steps, int n) {
  void* p = tvm_ffi_access_path_root();
  void* q = tvm_ffi_access_path_attr(p, "functions");
  tvm_ffi_release(p);
  TVMFFIAny k = tvm_ffi_any_obj((void*)gv);
  p = tvm_ffi_access_path_extend(q, TVM_FFI_PATH_MAP_ITEM, &k);
  tvm_ffi_release(q);
  for (int i = 0; p && i < n; ++i) {
    q = steps[i][0] == '[' ? tvm_ffi_access_path_item(p, atoi(steps[i] + 1))
                           : tvm_ffi_access_path_attr(p, steps[i]);
    tvm_ffi_release(p);
    p = q;
  }
  return keep(p);
}
#define FPATH(gv, ...) \
  fpath((gv), (const char* const[]){__VA_ARGS__}, (int)(sizeof((const char*[]){__VA_ARGS__}) / sizeof(char*)))

TEST(underlined_relax_nodes) {
  tvm_relax_var_obj* x = var("x", t23());
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", ARR(x), NULL, true));
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  tvm_relax_var_obj* lv = keep(tvm_relax_bb_emit(bb, keep(RT_CALL("relax.exp", NULL, x)), NULL));
  tvm_relax_var_obj* gv = keep(tvm_relax_bb_emit_output(bb, keep(RT_CALL("relax.add", NULL, lv, x)), NULL));
  CHECK_OK(tvm_relax_bb_block_end(bb));
  tvm_tir_global_var_obj* g = keep(tvm_relax_bb_function_end(bb, (void*)gv, NULL));
  tvm_tir_ir_module_obj* mod = keep(tvm_relax_bb_module(bb));
  tvm_relax_bb_free(bb);
  const char* head =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
      "        with R.dataflow():\n";
  char want[2048];
  /* an expression: a binding's value */
  snprintf(want, sizeof(want), "%s%s", head,
           "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "            gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(lv, x)\n"
           "                                                    ^^^^^^^^^^^^\n"
           "            R.output(gv)\n"
           "        return gv");
  CHECK_STR_EQ(underlined(mod, FPATH(g, "body", "blocks", "[0]", "bindings", "[1]", "value")), want);
  /* an argument of it, and a path deeper than any doc (the deepest printed node: the var) */
  snprintf(want, sizeof(want), "%s%s", head,
           "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "            gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(lv, x)\n"
           "                                                              ^\n"
           "            R.output(gv)\n"
           "        return gv");
  CHECK_STR_EQ(underlined(mod, FPATH(g, "body", "blocks", "[0]", "bindings", "[1]", "value", "args", "[1]", "name_hint")), want);
  /* a binding: its statement */
  snprintf(want, sizeof(want), "%s%s", head,
           "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "            gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(lv, x)\n"
           "            R.output(gv)\n"
           "        return gv");
  CHECK_STR_EQ(underlined(mod, FPATH(g, "body", "blocks", "[0]", "bindings", "[0]")), want);
  /* a struct info: the variable's annotation */
  snprintf(want, sizeof(want), "%s%s", head,
           "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "            gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(lv, x)\n"
           "            R.output(gv)\n"
           "        return gv");
  CHECK_STR_EQ(underlined(mod, FPATH(g, "body", "blocks", "[0]", "bindings", "[0]", "var", "struct_info_")), want);
  /* a dimension of a parameter's struct info */
  CHECK_STR_EQ(underlined(mod, FPATH(g, "params", "[0]", "struct_info_", "shape", "values", "[1]")),
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function\n"
               "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "                             ^\n"
               "        with R.dataflow():\n"
               "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
               "            gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(lv, x)\n"
               "            R.output(gv)\n"
               "        return gv");
  /* a block: the whole `with R.dataflow():` */
  snprintf(want, sizeof(want), "%s%s", head,
           "        ^^^^^^^^^^^^^^^^^^\n"
           "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "            gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(lv, x)\n"
           "            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "            R.output(gv)\n"
           "            ^^^^^^^^^^^^\n"
           "        return gv");
  CHECK_STR_EQ(underlined(mod, FPATH(g, "body", "blocks", "[0]")), want);
  /* the function's result */
  snprintf(want, sizeof(want), "%s%s", head,
           "            lv: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "            gv: R.Tensor((2, 3), dtype=\"float32\") = R.add(lv, x)\n"
           "            R.output(gv)\n"
           "        return gv\n"
           "               ^^");
  CHECK_STR_EQ(underlined(mod, FPATH(g, "body", "body")), want);
  drop_all();
}

/* An If binding: the value is the whole if/else, a branch's node is inside it; a function
 * printed alone is <root>. */
TEST(underlined_if_branches) {
  tvm_relax_var_obj* c = var("c", keep(rt_tensor(tvm_tir_dtype_bool(), 0)));
  tvm_relax_var_obj* x = var("x", t23());
  tvm_relax_var_obj* t1 = var("t1", t23());
  void* then_seq = seq(ARR(block(false, ARR(bind(t1, keep(RT_CALL("relax.exp", NULL, x)))))), (void*)t1);
  void* iff = keep(tvm_relax_if_new((void*)c, then_seq, (void*)x));
  tvm_relax_var_obj* z = var("z", t23());
  void* body = seq(ARR(block(false, ARR(bind(z, iff)))), (void*)z);
  tvm_relax_function_obj* f = keep(tvm_relax_function_new(ARR(c, x), body, NULL, true, NULL));
  void* root = keep(tvm_ffi_access_path_root());
  const char* prog =
      "@R.function(private=True)\n"
      "def main(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n";
  char want[2048];
  const char* text = "<root>.body.blocks[0].bindings[0].value";
  void* p = keep(tvm_script_access_path_parse(&(TVMFFIAny){.type_index = tvm_ffi_type_index(f), .v_obj = (void*)f},
                                              text, strlen(text), NULL));
  CHECK(p && tvm_ffi_access_path_is_prefix(root, p));
  snprintf(want, sizeof(want), "%s%s", prog,
           "    if c:\n"
           "    ^^^^^\n"
           "        t1: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "        z: R.Tensor((2, 3), dtype=\"float32\") = t1\n"
           "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "    else:\n"
           "    ^^^^^\n"
           "        z: R.Tensor((2, 3), dtype=\"float32\") = x\n"
           "        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "    return z");
  CHECK_STR_EQ(underlined(f, p), want);
  text = "<root>.body.blocks[0].bindings[0].value.true_branch.blocks[0].bindings[0].value";
  p = keep(tvm_script_access_path_parse(&(TVMFFIAny){.type_index = tvm_ffi_type_index(f), .v_obj = (void*)f},
                                        text, strlen(text), NULL));
  snprintf(want, sizeof(want), "%s%s", prog,
           "    if c:\n"
           "        t1: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
           "                                                ^^^^^^^^\n"
           "        z: R.Tensor((2, 3), dtype=\"float32\") = t1\n"
           "    else:\n"
           "        z: R.Tensor((2, 3), dtype=\"float32\") = x\n"
           "    return z");
  CHECK_STR_EQ(underlined(f, p), want);
  drop_all();
}

/* A well-formedness error names the offending node by an access path in its text; read back
 * against the module, it underlines that node in the printed module. */
TEST(underlined_well_formedness_errors) {
  tvm_relax_var_obj* x = var("x", t23());
  tvm_relax_var_obj* a = var("a", t23());
  tvm_relax_var_obj* b = var("b", t23());
  void* body = seq(ARR(block(false, ARR(bind(a, keep(RT_CALL("relax.exp", NULL, b))),
                                        bind(b, keep(RT_CALL("relax.exp", NULL, x)))))),
                   (void*)a);
  tvm_relax_function_obj* f = keep(tvm_relax_function_new(ARR(x), body, NULL, true, NULL));
  tvm_relax_sinfo_obj* fs = keep(tvm_relax_expr_sinfo(f));
  tvm_tir_global_var_obj* g = keep(tvm_relax_global_var_new("main", fs));
  TVMFFIAny k = tvm_ffi_any_obj(g), v = tvm_ffi_any_obj(f);
  tvm_tir_ir_module_obj* mod = keep(tvm_tir_ir_module_new(keep(tvm_ffi_map_new(&k, &v, 1)), NULL));
  CHECK(tvm_relax_verify_well_formed(mod) != 0);
  void* e = tvm_ffi_error_take();
  const char* msg = e ? tvm_ffi_error_message(e) : "";
  CHECK_STR_CONTAINS(msg, "<root>[\"main\"].body.blocks[0].bindings[0].value.args[0]: Var b is used before");
  TVMFFIAny root = tvm_ffi_any_obj(mod);
  size_t used = 0;
  void* path = keep(tvm_script_access_path_parse(&root, msg, strlen(msg), &used));
  CHECK(used == strlen("<root>[\"main\"].body.blocks[0].bindings[0].value.args[0]"));
  CHECK(path && tvm_ffi_access_path_equal(path, FPATH(g, "body", "blocks", "[0]", "bindings", "[0]", "value", "args", "[0]")));
  CHECK_STR_EQ(underlined(mod, path),
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function(private=True)\n"
               "    def main(x: R.Tensor((2, 3), dtype=\"float32\")) -> R.Tensor((2, 3), dtype=\"float32\"):\n"
               "        b: R.Tensor((2, 3), dtype=\"float32\")\n"
               "        a: R.Tensor((2, 3), dtype=\"float32\") = R.exp(b)\n"
               "                                                     ^\n"
               "        b_1: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
               "        return a");
  tvm_ffi_release(e);
  /* the same error of the function checked alone: <root> is the function */
  CHECK(tvm_relax_verify_well_formed(f) != 0);
  e = tvm_ffi_error_take();
  msg = e ? tvm_ffi_error_message(e) : "";
  TVMFFIAny froot = tvm_ffi_any_obj(f);
  void* fp = keep(tvm_script_access_path_parse(&froot, msg, strlen(msg), NULL));
  const char* text = underlined(f, fp);
  CHECK_STR_CONTAINS(text, "= R.exp(b)\n                                                 ^\n");
  tvm_ffi_release(e);
  /* steps that lead nowhere end the path at the deepest node reached */
  const char* far = "<root>[\"main\"].body.blocks[7].bindings[0]: x";
  void* p2 = keep(tvm_script_access_path_parse(&root, far, strlen(far), &used));
  CHECK(p2 && tvm_ffi_access_path_equal(p2, FPATH(g, "body", "blocks")));
  CHECK(used == strlen("<root>[\"main\"].body.blocks[7].bindings[0]"));
  const char* nofn = "<root>[\"nothing\"].body";
  void* p3 = keep(tvm_script_access_path_parse(&root, nofn, strlen(nofn), NULL));
  CHECK(p3 && tvm_ffi_access_path_equal(p3, keep(tvm_ffi_access_path_root())));
  CHECK(tvm_script_access_path_parse(&root, "root.body", 9, NULL) == NULL);
  CHECK_RAISED("ValueError", "must start with <root>");
  drop_all();
}

/* Two functions that differ in one element of a large constant: the report underlines its
 * metadata reference and leaves the section out. */
TEST(structural_mismatch_in_a_constant) {
  int64_t s45[2] = {4, 5};
  tvm_relax_var_obj* x = var("x", keep(rt_tensor(F32, 2, (int64_t)4, (int64_t)5)));
  void* d1 = data_tensor(F32, 2, s45, false);
  void* d2 = keep(tvm_ffi_tensor_empty(s45, 2, F32, (DLDevice){kDLCPU, 0}));
  memcpy(tvm_ffi_tensor_dl(d2)->data, tvm_ffi_tensor_dl(d1)->data, 80);
  ((float*)tvm_ffi_tensor_dl(d2)->data)[7] += 1.0f;
  void* fns[2];
  for (int k = 0; k < 2; ++k) {
    tvm_relax_var_obj* a = var("a", keep(rt_tensor(F32, 2, (int64_t)4, (int64_t)5)));
    void* c = keep(tvm_relax_constant_new(k ? d2 : d1, NULL));
    void* body = seq(ARR(block(false, ARR(bind(a, keep(RT_CALL("relax.add", NULL, x, c)))))), (void*)a);
    fns[k] = keep(tvm_relax_function_new(ARR(x), body, NULL, true, NULL));
  }
  TVMFFIAny l = tvm_ffi_any_obj(fns[0]), r = tvm_ffi_any_obj(fns[1]);
  tvm_ffi_strbuf out = {0};
  CHECK_EQ_INT(tvm_script_structural_equal_report(&l, &r, false, &out), 0);
  const char* side =
      "@R.function(private=True)\n"
      "def main(x: R.Tensor((4, 5), dtype=\"float32\")) -> R.Tensor((4, 5), dtype=\"float32\"):\n"
      "    a: R.Tensor((4, 5), dtype=\"float32\") = R.add(x, metadata[\"relax.expr.Constant\"][0])\n"
      "                                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "    return a\n"
      "\n"
      "# Metadata omitted. Use show_meta=True in script() method to show it.";
  char want[4096];
  snprintf(want, sizeof(want),
           "StructuralEqual check failed, first delta highlighted below\n"
           "Access path (lhs): <root>.body.blocks[0].bindings[0].value.args[1].data\n"
           "Access path (rhs): <root>.body.blocks[0].bindings[0].value.args[1].data\n\n%s\n\n%s",
           side, side);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), want);
  tvm_ffi_strbuf_free(&out);
  drop_all();
}

/* src (a module printed without header) parses and prints back as it is. */
static void check_prints_back(const char* src) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* mod = tvm_script_parse(src, strlen(src), &opts);
  CHECK_OK(mod ? 0 : -1);
  if (mod) CHECK_STR_EQ(print(mod), src);
  tvm_ffi_release(mod);
}

/* The symbolic variables a signature defines are declared in the order the signature first
 * names them, the return annotation first (upstream prints it before the parameters): a
 * function upstream printed prints back as it was. */
TEST(symbolic_variables_in_signature_order) {
  static const char src[] =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((1, \"c\", \"d\"), dtype=\"float32\"), y: R.Tensor((\"a\", \"b\", \"c\", 1), dtype=\"float32\")) -> R.Tensor((\"a\", \"b\", \"c\", \"d\"), dtype=\"float32\"):\n"
      "        a = T.int64()\n"
      "        b = T.int64()\n"
      "        c = T.int64()\n"
      "        d = T.int64()\n"
      "        gv: R.Tensor((a, b, c, d), dtype=\"float32\") = R.multiply(x, y)\n"
      "        return gv";
  check_prints_back(src);
}

/* Upstream's forms: a returned tuple in parentheses, the empty tuple as R.tuple(). */
TEST(returned_tuples) {
  static const char src[] =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def pair(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((2,), dtype=\"float32\")):\n"
      "        y: R.Tensor((2,), dtype=\"float32\") = R.exp(x)\n"
      "        return (x, y)\n"
      "\n"
      "    @R.function\n"
      "    def unit(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tuple:\n"
      "        return R.tuple()";
  check_prints_back(src);
}

/* A call returning nothing into a variable nobody uses prints as the bare call (upstream's
 * syntax sugar); a used one keeps its assignment, as does one in a nested function whose
 * variable the enclosing function returns. */
TEST(void_calls_print_bare) {
  static const char src[] =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function(pure=False)\n"
      "    def outer(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tuple:\n"
      "        @R.function(pure=False)\n"
      "        def inner(y: R.Tensor((2,), dtype=\"float32\")) -> R.Tuple:\n"
      "            R.print(y, format=\"{}\")\n"
      "            u: R.Tuple = R.print(y, format=\"{}\")\n"
      "            return u\n"
      "\n"
      "        r: R.Tuple = inner(x)\n"
      "        return r\n"
      "\n"
      "    @R.function(pure=False)\n"
      "    def main(x: R.Tensor((2,), dtype=\"float32\")) -> R.Tuple:\n"
      "        R.print(x, format=\"x={}\")\n"
      "        y: R.Tensor((2,), dtype=\"float32\") = R.add(x, x)\n"
      "        R.assert_op(R.const(True, \"bool\"), format=\"ok\")\n"
      "        gv: R.Tuple = R.print(y, format=\"y={}\")\n"
      "        return gv";
  check_prints_back(src);
}

/* An ExternFunc whose struct info is not the default prints it second, positionally (as
 * upstream's printer; its keyword is struct_info= in older upstream, ty= in newer): as a module
 * entry and as a callee. */
TEST(extern_func_struct_info_positional) {
  static const char src[] =
      "@I.ir_module\n"
      "class Module:\n"
      "    my_ext = R.ExternFunc(\"my_ext\", R.Callable((), R.Tensor(dtype=\"float32\", ndim=2), "
      "True))\n"
      "    @R.function\n"
      "    def main(x: R.Shape(ndim=2)) -> R.Shape(ndim=2):\n"
      "        gv: R.Shape(ndim=2) = R.call_packed(R.ExternFunc(\"vm.builtin.shape_of\", "
      "R.Callable(purity=True)), x, sinfo_args=(R.Shape(ndim=2),))\n"
      "        return gv";
  check_prints_back(src);
}

/* A tensor's DLTensor fields (`x.ndim`, `x.dtype.bits`, `x.shape[i]`, ...) parse to the
 * relax.inspect calls, which print by their registered names; a field the struct info knows is
 * normalized into its value (R.prim_value) as it is emitted, the others stay calls. */
TEST(tensor_field_accessors) {
  static const char src[] =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4, \"n\", 8), \"float16\"), y: R.Tensor, i: R.Prim(\"int64\")):\n"
      "        a = x.ndim\n"
      "        b = x.dtype.bits\n"
      "        c = x.shape[1]\n"
      "        d = x.strides[0]\n"
      "        e = x.byte_offset\n"
      "        f = y.dtype.type_code\n"
      "        g = y.dtype.lanes\n"
      "        h = y.shape[i]\n"
      "        k = y.strides[1]\n"
      "        m = y.elem_offset\n"
      "        return (a, b, c, d, e, f, g, h, k, m)";
  static const char want[] =
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4, \"n\", 8), dtype=\"float16\"), y: R.Tensor, i: R.Prim(\"int64\")) "
      "-> R.Tuple(R.Prim(value=T.int32(3)), R.Prim(value=T.uint8(16)), R.Prim(value=\"n\"), "
      "R.Prim(value=\"n * 8\"), R.Prim(value=T.uint64(0)), R.Prim(\"uint8\"), R.Prim(\"uint16\"), "
      "R.Prim(\"int64\"), R.Prim(\"int64\"), R.Prim(\"uint64\")):\n"
      "        n = T.int64()\n"
      "        a: R.Prim(value=T.int32(3)) = R.prim_value(T.int32(3))\n"
      "        b: R.Prim(value=T.uint8(16)) = R.prim_value(T.uint8(16))\n"
      "        c: R.Prim(value=n) = R.prim_value(n)\n"
      "        d: R.Prim(value=n * 8) = R.prim_value(n * 8)\n"
      "        e: R.Prim(value=T.uint64(0)) = R.prim_value(T.uint64(0))\n"
      "        f: R.Prim(\"uint8\") = R.inspect.tensor_dtype_code(y)\n"
      "        g: R.Prim(\"uint16\") = R.inspect.tensor_dtype_lanes(y)\n"
      "        h: R.Prim(\"int64\") = R.inspect.tensor_shape_i(y, i)\n"
      "        k: R.Prim(\"int64\") = R.inspect.tensor_stride_i(y, R.prim_value(1))\n"
      "        m: R.Prim(\"uint64\") = R.inspect.tensor_elem_offset(y)\n"
      "        return (a, b, c, d, e, f, g, h, k, m)";
  void* mod = tvm_script_parse(src, strlen(src), NULL);
  CHECK_OK(mod ? 0 : -1);
  if (mod) CHECK_STR_EQ(print(mod), want);
  tvm_ffi_release(mod);
  check_prints_back(want);
}

/* Upstream's layout of a module and of call_tir bindings: PrimFuncs first, then Relax
 * functions, each by name, `main` last; `cls = Module` after the symbolic declarations and
 * R.func_attr; a call_tir or call_dps_packed binding without the annotation its out_sinfo
 * implies, and with one that differs from it (here less specific). */
TEST(module_order_and_call_tir_annotations) {
  static const char src[] =
      "@I.ir_module\n"
      "class Module:\n"
      "    @T.prim_func\n"
      "    def zeta(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
      "        for i in range(4):\n"
      "            B[i] = A[i]\n"
      "\n"
      "    @R.function\n"
      "    def alpha(x: R.Tensor((\"n\",), dtype=\"float32\")) -> R.Tensor((\"n\",), dtype=\"float32\"):\n"
      "        n = T.int64()\n"
      "        R.func_attr({\"some_attr\": 1})\n"
      "        cls = Module\n"
      "        y = R.call_tir(cls.zeta, (x,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))\n"
      "        z: R.Tensor(dtype=\"float32\", ndim=1) = R.call_tir(cls.zeta, (y,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))\n"
      "        w = R.call_dps_packed(\"my_func\", (z,), out_sinfo=R.Tensor((n,), dtype=\"float32\"))\n"
      "        return w\n"
      "\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((4,), dtype=\"float32\"):\n"
      "        cls = Module\n"
      "        y: R.Tensor((4,), dtype=\"float32\") = cls.alpha(x)\n"
      "        return y";
  check_prints_back(src);
}

int main(void) {
  RUN(function_with_dataflow_and_symbolic_shapes);
  RUN(returned_tuples);
  RUN(void_calls_print_bare);
  RUN(extern_func_struct_info_positional);
  RUN(tensor_field_accessors);
  RUN(module_order_and_call_tir_annotations);
  RUN(symbolic_variables_in_signature_order);
  RUN(struct_info_forms);
  RUN(control_flow_match_cast_tuples_constants);
  RUN(large_constants_print_as_metadata);
  RUN(metadata_section_text);
  RUN(metadata_string_escapes);
  RUN(fragments);
  RUN(functions_outside_their_module);
  RUN(call_forms);
  RUN(operator_attributes);
  RUN(underlined_relax_nodes);
  RUN(underlined_if_branches);
  RUN(underlined_well_formedness_errors);
  RUN(structural_mismatch_in_a_constant);
  return test_summary();
}

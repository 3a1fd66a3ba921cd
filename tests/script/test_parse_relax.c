/*
 * test_parse_relax.c: what parsed Relax TVMScript means, beyond the round trip of
 * test_roundtrip.c: parsed functions run on librelax's reference evaluator (tvm_relax_eval) on
 * random inputs (after LegalizeOps) and give what the text says (if/else picks its branch, a
 * closure sees its enclosing variables, R.call_tir calls the hand-written PrimFunc, tuple
 * unpacking, match_cast); decorator flags reach the Function (private: no global_symbol,
 * pure=False).
 */
#include <math.h>
#include <string.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/relax/transform.h>
#include <tvm/script/parser.h>

#include "test_util.h"
#include "values_testing.h"

static void* tensor_of(int64_t n, const float* data) {
  int64_t shape[1] = {n};
  void* t = tvm_ffi_tensor_empty(shape, 1, (DLDataType){kDLFloat, 32, 1}, (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(t)->data, data, (size_t)n * sizeof(float));
  return t;
}

static void* bool_scalar(bool v) {
  void* t = tvm_ffi_tensor_empty(NULL, 0, tvm_tir_dtype_bool(), (DLDevice){kDLCPU, 0});
  *(uint8_t*)tvm_ffi_tensor_dl(t)->data = v;
  return t;
}

static void* parse(const char* text) {
  void* m = tvm_script_parse(text, strlen(text), NULL);
  if (!m) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "parse failed: %s\n", e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
  }
  return m;
}

/* Evaluate mod[name](args) and compare the float32 result with want[0..n). */
static bool eval_matches(void* mod, const char* name, const TVMFFIAny* args, int32_t nargs,
                         const float* want, int64_t n) {
  TVMFFIAny out = tvm_ffi_any_none();
  if (tvm_relax_eval(mod, name, args, nargs, &out) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "eval %s failed: %s\n", name, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    return false;
  }
  bool ok = out.type_index == kTVMFFITensor;
  const DLTensor* t = ok ? tvm_ffi_tensor_dl(out.v_obj) : NULL;
  ok = ok && tvm_ffi_dltensor_numel(t) == n;
  for (int64_t i = 0; ok && i < n; ++i) {
    float v = ((const float*)t->data)[i];
    ok = fabsf(v - want[i]) <= 1e-5f * (1 + fabsf(want[i]));
    if (!ok) fprintf(stderr, "%s[%lld] = %g, want %g\n", name, (long long)i, v, want[i]);
  }
  tvm_ffi_any_release(&out);
  return ok;
}

static const char* kProgram =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "from tvm.script import tirx as T\n"
    "\n"
    "@I.ir_module\n"
    "class M:\n"
    "    @T.prim_func\n"
    "    def twice_plus_one(A: T.Buffer((8,), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"
    "        for i in range(8):\n"
    "            B[i] = A[i] * T.float32(2) + T.float32(1)\n"
    "\n"
    "    @R.function\n"
    "    def choose(c: R.Tensor((), \"bool\"), x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        if c:\n"
    "            e = R.exp(x)\n"
    "            y = R.add(e, x)\n"
    "        else:\n"
    "            y = R.multiply(x, x)\n"
    "        return y\n"
    "\n"
    "    @R.function\n"
    "    def closure(x: R.Tensor((8,), \"float32\"), w: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        @R.function\n"
    "        def inner(y: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "            z = R.subtract(y, w)\n"
    "            return z\n"
    "\n"
    "        r = inner(x)\n"
    "        return r\n"
    "\n"
    "    @R.function(private=True)\n"
    "    def pair(x: R.Tensor((8,), \"float32\")) -> R.Tuple(R.Tensor((8,), \"float32\"), R.Tensor((8,), \"float32\")):\n"
    "        return (R.negative(x), x)\n"
    "\n"
    "    @R.function\n"
    "    def main(x: R.Tensor(ndim=1, dtype=\"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        cls = M\n"
    "        x8 = R.match_cast(x, R.Tensor((8,), \"float32\"))\n"
    "        with R.dataflow():\n"
    "            t = R.call_tir(cls.twice_plus_one, (x8,), out_sinfo=R.Tensor((8,), \"float32\"))\n"
    "            a, b = cls.pair(t)\n"
    "            na = -a\n"
    "            s = na + b * R.const(3.0, \"float32\")\n"
    "            R.output(s)\n"
    "        return s\n"
    "\n"
    "    @R.function(pure=False)\n"
    "    def effect(x: R.Tensor((8,), \"float32\")) -> R.Tensor((8,), \"float32\"):\n"
    "        return x\n";

TEST(parsed_relax_evaluates) {
  void* parsed = parse(kProgram);
  CHECK(parsed != NULL);
  if (!parsed) return;
  /* The reference evaluator runs operators through their TIR legalizations. */
  void* mod = tvm_relax_transform_legalize_ops(parsed);
  tvm_ffi_release(parsed);
  CHECK(mod != NULL);
  if (!mod) return;
  float x[8], w[8], want[8];
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 8; ++i) x[i] = (float)rv_rnd(), w[i] = (float)rv_rnd();
    void* xt = tensor_of(8, x);
    void* wt = tensor_of(8, w);
    for (int c = 0; c < 2; ++c) { /* if/else: each branch on its condition */
      void* ct = bool_scalar(c);
      for (int i = 0; i < 8; ++i) want[i] = c ? expf(x[i]) + x[i] : x[i] * x[i];
      TVMFFIAny args[2] = {tvm_ffi_any_obj(ct), tvm_ffi_any_obj(xt)};
      CHECK(eval_matches(mod, "choose", args, 2, want, 8));
      tvm_ffi_release(ct);
    }
    for (int i = 0; i < 8; ++i) want[i] = x[i] - w[i]; /* the closure reads w */
    TVMFFIAny args2[2] = {tvm_ffi_any_obj(xt), tvm_ffi_any_obj(wt)};
    CHECK(eval_matches(mod, "closure", args2, 2, want, 8));
    /* t = 2x + 1; (a, b) = (-t, t); na = -a = t; s = na + 3b = 4t */
    for (int i = 0; i < 8; ++i) want[i] = 4 * (2 * x[i] + 1);
    TVMFFIAny arg = tvm_ffi_any_obj(xt);
    CHECK(eval_matches(mod, "main", &arg, 1, want, 8));
    tvm_ffi_release(xt);
    tvm_ffi_release(wt);
  }
  /* match_cast checks at run time: a tensor of 4 elements is not R.Tensor((8,)). */
  void* x4 = tensor_of(4, x);
  TVMFFIAny a4 = tvm_ffi_any_obj(x4), out = tvm_ffi_any_none();
  CHECK(tvm_relax_eval(mod, "main", &a4, 1, &out) != 0);
  tvm_ffi_error_clear();
  tvm_ffi_release(x4);
  tvm_ffi_release(mod);
}

TEST(decorator_flags) {
  void* mod = parse(kProgram);
  CHECK(mod != NULL);
  if (!mod) return;
  tvm_relax_function_obj* pair = tvm_tir_ir_module_lookup(mod, "pair");
  tvm_relax_function_obj* choose = tvm_tir_ir_module_lookup(mod, "choose");
  tvm_relax_function_obj* effect = tvm_tir_ir_module_lookup(mod, "effect");
  CHECK(pair && choose && effect);
  if (pair && choose && effect) {
    CHECK(!pair->func.attrs || !tvm_ffi_map_get_str(pair->func.attrs, "global_symbol"));
    void* attrs = choose->func.attrs;
    const TVMFFIAny* gs = attrs ? tvm_ffi_map_get_str(attrs, "global_symbol") : NULL;
    TVMFFIByteArray text;
    CHECK(gs && tvm_ffi_any_as_bytes(gs, &text) && text.size == 6 &&
          memcmp(text.data, "choose", 6) == 0);
    CHECK(choose->is_pure && pair->is_pure);
    CHECK(!effect->is_pure);
  }
  tvm_ffi_release(pair);
  tvm_ffi_release(choose);
  tvm_ffi_release(effect);
  tvm_ffi_release(mod);
}

/* `-> None` (and a `None` annotation) is R.Tuple(), void, as upstream's parser reads it; a body
 * that is not void is then refused by the Function's own check (librelax is stricter than
 * upstream there). */
TEST(none_annotation_is_void) {
  void* mod = parse("from tvm.script import ir as I\n"
                    "from tvm.script import relax as R\n"
                    "@I.ir_module\n"
                    "class M:\n"
                    "    @R.function(pure=False)\n"
                    "    def f(x: R.Tensor((2,), \"float32\")) -> None:\n"
                    "        y: None = R.print(x, format=\"{}\")\n"
                    "        return y\n");
  CHECK(mod != NULL);
  tvm_relax_function_obj* f = mod ? tvm_tir_ir_module_lookup(mod, "f") : NULL;
  CHECK(f != NULL);
  if (f) {
    tvm_ffi_strbuf b = {0};
    tvm_relax_sinfo_text(&b, f->ret_struct_info);
    CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&b), "R.Tuple()");
    tvm_ffi_strbuf_free(&b);
  }
  tvm_ffi_release(f);
  tvm_ffi_release(mod);
  const char* bad = "from tvm.script import relax as R\n"
                    "@R.function\n"
                    "def g(x: R.Tensor((2,), \"float32\")) -> None:\n"
                    "    return x\n";
  CHECK(tvm_script_parse(bad, strlen(bad), NULL) == NULL);
  CHECK_RAISED("TypeError", "is not an instance of the return annotation R.Tuple()");
}

/* The first parameter's struct info of function name in mod (borrowed), or NULL. */
static const tvm_relax_sinfo_obj* param_sinfo(void* mod, const char* name, int64_t i) {
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, name);
  const tvm_relax_sinfo_obj* s = f && i < tvm_ffi_seq_size(f->params)
                                     ? tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(f->params, i))
                                     : NULL;
  tvm_ffi_release(f); /* (the module holds it) */
  return s;
}

/* The struct info of the Var of binding i of function name's first block (borrowed), or NULL. */
static const tvm_relax_sinfo_obj* binding_sinfo(void* mod, const char* name, int64_t i) {
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, name);
  const tvm_relax_seq_expr_obj* body = f ? (const void*)f->body : NULL;
  const tvm_relax_block_obj* blk =
      body && tvm_ffi_seq_size(body->blocks) > 0 ? tvm_ffi_seq_obj_at(body->blocks, 0) : NULL;
  const tvm_relax_binding_obj* b =
      blk && i < tvm_ffi_seq_size(blk->bindings) ? tvm_ffi_seq_obj_at(blk->bindings, i) : NULL;
  tvm_ffi_release(f); /* (the module holds it) */
  return b ? tvm_relax_sinfo_of(b->var) : NULL;
}

/* An annotation written again takes the struct info evaluated the first time when it is closed
 * (dims of literals and TIR variables, literal dtypes) and its names are bound to the same
 * variables; one that declares a symbolic variable (a string dim, a value) is evaluated each
 * time, and an alias of R shadowed by a variable is not the module. */
TEST(repeated_annotations) {
  void* mod = parse("from tvm.script import ir as I\n"
                    "from tvm.script import relax as R\n"
                    "@I.ir_module\n"
                    "class M:\n"
                    "    @R.function\n"
                    "    def f(x: R.Tensor((2, 3), \"float32\"), s: R.Tensor((\"n\", 3), \"float32\"), "
                    "p: R.Prim(value=\"m\")) -> R.Tensor((2, 3), \"float32\"):\n"
                    "        y: R.Tensor((2, 3), \"float32\") = R.add(x, x)\n"
                    "        return y\n"
                    "    @R.function\n"
                    "    def g(x: R.Tensor((2, 3), \"float32\"), s: R.Tensor((\"n\", 3), \"float32\"), "
                    "p: R.Prim(value=\"m\")) -> R.Tensor((2, 3), \"float32\"):\n"
                    "        return x\n");
  CHECK(mod != NULL);
  if (mod) {
    CHECK(param_sinfo(mod, "f", 0) == param_sinfo(mod, "g", 0));
    const tvm_relax_sinfo_obj* fs = param_sinfo(mod, "f", 1);
    const tvm_relax_sinfo_obj* gs = param_sinfo(mod, "g", 1);
    CHECK(fs && gs && fs != gs);
    if (fs && gs) { /* each function its own n */
      CHECK(tvm_ffi_seq_obj_at(tvm_relax_tensor_sinfo_dims(fs), 0) !=
            tvm_ffi_seq_obj_at(tvm_relax_tensor_sinfo_dims(gs), 0));
    }
    CHECK(param_sinfo(mod, "f", 2) != param_sinfo(mod, "g", 2));
  }
  tvm_ffi_release(mod);
  /* Dims naming TIR variables: the same variable, the same struct info; another function's n
   * (its own variable), another. */
  mod = parse("from tvm.script import ir as I\n"
              "from tvm.script import relax as R\n"
              "from tvm.script import tirx as T\n"
              "@I.ir_module\n"
              "class M:\n"
              "    @R.function\n"
              "    def f(x: R.Tensor((\"n\", 4), \"float32\")) -> R.Tensor((\"n\", 4), \"float32\"):\n"
              "        n = T.int64()\n"
              "        y: R.Tensor((n, 4), \"float32\") = R.exp(x)\n"
              "        z: R.Tensor((n, 4), \"float32\") = R.exp(y)\n"
              "        return z\n"
              "    @R.function\n"
              "    def g(x: R.Tensor((\"n\", 4), \"float32\")) -> R.Tensor((\"n\", 4), \"float32\"):\n"
              "        n = T.int64()\n"
              "        y: R.Tensor((n, 4), \"float32\") = R.exp(x)\n"
              "        return y\n");
  CHECK(mod != NULL);
  if (mod) {
    const tvm_relax_sinfo_obj* fy = binding_sinfo(mod, "f", 0);
    const tvm_relax_sinfo_obj* fz = binding_sinfo(mod, "f", 1);
    const tvm_relax_sinfo_obj* gy = binding_sinfo(mod, "g", 0);
    CHECK(fy && fy == fz);
    CHECK(gy && gy != fy);
  }
  tvm_ffi_release(mod);
  /* R rebound to a variable: the second annotation is no struct info, whatever the first was. */
  const char* shadowed = "from tvm.script import relax as R\n"
                         "@R.function\n"
                         "def f(x: R.Tensor((2, 3), \"float32\")):\n"
                         "    R = x\n"
                         "    y: R.Tensor((2, 3), \"float32\") = x\n"
                         "    return y\n";
  CHECK(tvm_script_parse(shadowed, strlen(shadowed), NULL) == NULL);
  CHECK_RAISED("AttributeError", "5:8: error: 'relax.expr.Var' object has no attribute 'Tensor'");
}

/* R.layout_transform with a plain lambda and a number for pad_value (upstream's wrapper makes
 * the IndexMap over int64 indices and a PrimValue of the input's dtype): the module written
 * with T.index_map and R.prim_value; a pad value the dtype cannot hold and a lambda whose body
 * fails are located errors. */
static const char* layout_program(const char* index_map, const char* pad) {
  static char buf[1024];
  snprintf(buf, sizeof(buf),
           "from tvm.script import ir as I\n"
           "from tvm.script import relax as R\n"
           "from tvm.script import tirx as T\n"
           "@I.ir_module\n"
           "class M:\n"
           "    @R.function\n"
           "    def f(x: R.Tensor((6, 4), \"int32\")):\n"
           "        y = R.layout_transform(x, index_map=%s, pad_value=%s)\n"
           "        return y\n",
           index_map, pad);
  return buf;
}

static const char* parse_error_of(const char* text) {
  static char msg[1024];
  void* m = tvm_script_parse(text, strlen(text), NULL);
  tvm_ffi_release(m);
  void* e = m ? NULL : tvm_ffi_error_take();
  snprintf(msg, sizeof(msg), "%s", e ? tvm_ffi_error_message(e) : "(parsed)");
  tvm_ffi_release(e);
  return msg;
}

TEST(layout_transform_lambda) {
  void* a = parse(layout_program("lambda i, j: (j, i // 4, i % 4)", "7"));
  void* b = parse(layout_program("T.index_map(lambda i, j: (j, i // 4, i % 4))",
                                 "R.prim_value(T.int32(7))"));
  TVMFFIAny aa = tvm_ffi_any_obj(a), ba = tvm_ffi_any_obj(b);
  CHECK(a && b && tvm_ffi_structural_equal(&aa, &ba, false, NULL, NULL) == 1);
  tvm_ffi_release(a), tvm_ffi_release(b);
  CHECK(strstr(parse_error_of(layout_program("lambda i, j: (j, i)", "0.5")),
               ":8:76: error: attribute 'pad_value' of R.layout_transform: 0.5 is not a value of "
               "the input's dtype int32") != NULL);
  CHECK(strstr(parse_error_of(layout_program("lambda i, j: (j, i // 0)", "None")),
               ":8:62: error: FloorDiv: division by a constant zero") != NULL);
}

/* A call of a module function checks the arguments against the callee's signature; the
 * message names the callee. */
static const char* call_program(const char* call) {
  static char buf[1024];
  snprintf(buf, sizeof(buf),
           "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n"
           "@I.ir_module\nclass M:\n"
           "    @R.function\n"
           "    def f(a: R.Tensor((2,), \"float32\"), b: R.Tensor((2,), \"float32\")):\n"
           "        return a\n\n"
           "    @R.function\n"
           "    def main(x: R.Tensor((2,), \"float32\"), y: R.Tensor((3,), \"float32\")):\n"
           "        cls = M\n"
           "        z = %s\n"
           "        return z\n",
           call);
  return buf;
}

TEST(call_checks_the_callee_signature) {
  void* ok = parse(call_program("cls.f(x, x)"));
  CHECK(ok != NULL);
  tvm_ffi_release(ok);
  CHECK(strstr(parse_error_of(call_program("cls.f(x)")),
               ":13:13: error: call to @f: expected 2 arguments, got 1") != NULL);
  CHECK(strstr(parse_error_of(call_program("cls.f(x, y)")),
               ":13:13: error: call to @f: argument 1 of struct info R.Tensor((3,), "
               "dtype=\"float32\") does not match the parameter's R.Tensor((2,), "
               "dtype=\"float32\")") != NULL);
}

/* A one-binding function of x: R.Tensor((2, 3, 4), "float32") and p: R.Prim("int64"). */
static const char* field_program(const char* value) {
  static char text[512];
  snprintf(text, sizeof(text),
           "from tvm.script import relax as R\n"
           "@R.function\n"
           "def f(x: R.Tensor((2, 3, 4), \"float32\"), p: R.Prim(\"int64\")):\n"
           "    a = %s\n"
           "    return a\n",
           value);
  return text;
}

/* The DLTensor fields of a Relax value: what is no value alone (x.shape, x.dtype), an axis that
 * is no integer, negative, past the known rank or a slice, a field of a non-tensor: each a
 * located error. */
TEST(tensor_field_errors) {
  static const char* const cases[][2] = {
      {"x.shape", ":4:9: error: `.shape` of a Relax value is no value: read the tensor's fields "
                  "as .shape[i]"},
      {"x.dtype", ":4:9: error: `.dtype` of a Relax value is no value"},
      {"x.dtype.code", ":4:9: error: `.dtype` of a Relax value is no value"},
      {"x.strides", ":4:9: error: `.strides` of a Relax value is no value"},
      {"x.shape[0:1]", ":4:9: error: `.shape[i]` of a Relax tensor takes one axis"},
      {"x.strides[0, 1]", ":4:9: error: `.strides[i]` of a Relax tensor takes one axis"},
      {"x.shape[-1]", ":4:9: error: relax.inspect.tensor_shape_i: argument 'axis' is -1: the "
                      "axis of .shape[i] may not be negative"},
      {"x.strides[3]", ":4:9: error: relax.inspect.tensor_stride_i: argument 'axis' is 3, but "
                       "the tensor's .strides has only 3 elements"},
      {"x.shape[1.5]", "argument 'axis' must be an integer R.Prim"},
      {"p.dtype.bits", ":4:9: error: relax.inspect.tensor_dtype_bits: argument 'tensor' must "
                       "be a tensor, got R.Prim(\"int64\")"},
      {"p.ndim", "relax.inspect.tensor_ndim: argument 'tensor' must be a tensor"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const char* msg = parse_error_of(field_program(cases[i][0]));
    if (!strstr(msg, cases[i][1])) {
      fprintf(stderr, "%s: got %s\n", cases[i][0], msg);
      CHECK(false);
    }
  }
  /* (a valid axis parses) */
  CHECK_STR_EQ(parse_error_of(field_program("x.shape[2]")), "(parsed)");
  /* An item of the shape literal of x's struct info is a dim (ShapeExpr.__getitem__), in
   * range as Python's. */
  CHECK_STR_EQ(parse_error_of(field_program("R.prim_value(x.struct_info.shape[-1])")),
               "(parsed)");
  CHECK(strstr(parse_error_of(field_program("R.prim_value(x.ty.shape[3])")),
               ":4:33: error: index 3 out of range (3 items)"));
}

/* The runtime's device constructors (`R.hint_on_device(x, tvm.cpu())`, as upstream's tests
 * write it) make the device R.device makes: the same module; a bad device type or id, or an
 * argument too many, is a located error. */
TEST(tvm_device_constructors) {
  static const char* const same[][2] = {
      {"tvm.cpu()", "R.device(1, 0)"},
      {"tvm.cuda(1)", "R.device(2, 1)"},
      {"tvm.gpu(dev_id=3)", "R.device(2, 3)"},
      {"tvm.rocm()", "R.device(10)"},
      {"tvm.device(\"cuda -arch=sm_80\", 2)", "R.device(2, 2)"},
      {"tvm.device(\"llvm\")", "R.device(1)"},
      {"tvm.device(dev_type=4, dev_id=1)", "R.device(4, 1)"},
  };
  for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); ++i) {
    char a[128], b[128];
    snprintf(a, sizeof(a), "R.hint_on_device(x, %s)", same[i][0]);
    snprintf(b, sizeof(b), "R.hint_on_device(x, %s)", same[i][1]);
    void* ma = parse(field_program(a));
    void* mb = parse(field_program(b));
    TVMFFIAny aa = tvm_ffi_any_obj(ma), ba = tvm_ffi_any_obj(mb);
    if (!ma || !mb || tvm_ffi_structural_equal(&aa, &ba, false, NULL, NULL) != 1) {
      fprintf(stderr, "%s is not %s\n", same[i][0], same[i][1]);
      CHECK(false);
    }
    tvm_ffi_release(ma), tvm_ffi_release(mb);
  }
  static const char* const bad[][2] = {
      {"R.hint_on_device(x, tvm.cpu(0, 1))",
       ":4:29: error: tvm.cpu() takes at most 1 positional argument"},
      {"R.hint_on_device(x, tvm.cuda(index=0))",
       ":4:44: error: tvm.cuda() got an unexpected keyword argument 'index'"},
      {"R.hint_on_device(x, tvm.cuda(0, dev_id=0))",
       ":4:48: error: tvm.cuda() got multiple values for argument 'dev_id'"},
      {"R.hint_on_device(x, tvm.cuda(-1))",
       ":4:38: error: tvm.cuda: argument 'dev_id' must be a non-negative int"},
      {"R.hint_on_device(x, tvm.device(\"tpu\"))", ":4:40: error: tvm.device: unknown device"},
      {"R.hint_on_device(x, tvm.device(0))", ":4:40: error: tvm.device: unknown device"},
      {"R.hint_on_device(x, tvm.device())",
       ":4:29: error: tvm.device() missing required argument 'dev_type'"},
      {"R.hint_on_device(x, tvm.cpu)", ":4:29: error: tvm.cpu is a function: call it"},
      {"R.hint_on_device(x, tvm.tpu())", ":4:29: error: module 'tvm' has no attribute 'tpu'"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    const char* msg = parse_error_of(field_program(bad[i][0]));
    if (!strstr(msg, bad[i][1])) {
      fprintf(stderr, "%s: got %s\n", bad[i][0], msg);
      CHECK(false);
    }
  }
}

/* A module's function named bare (upstream's parser, since its PyLint change, binds it only on
 * the class): the NameError says how to reach it. */
TEST(bare_module_function_name) {
  static const char src[] =
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class Mod:\n"
      "    @R.function\n"
      "    def f(x: R.Tensor((2,), \"float32\")):\n"
      "        return x\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((2,), \"float32\")):\n"
      "        y = f(x)\n"
      "        return y\n";
  CHECK(strstr(parse_error_of(src), ":10:13: error: name 'f' is not defined (the module's "
                                    "function is reached as `cls.f` or through the class name)"));
  /* a name no function has gets no hint */
  CHECK(strstr(parse_error_of(field_program("q")), "name 'q' is not defined\n"));
}

/* An error a caller left raised (it never took it) does not fail the next parse: the concat of
 * symbolic dims below goes through the arithmetic simplifier, which reads a raised error as its
 * own. The stale error is still raised after a parse that succeeds, replaced by the parse's own
 * after one that fails. */
/* LowerRuntimeBuiltin writes R.memory.view as upstream's LowerBuiltinView does: a call of
 * runtime.TVMTensorCreateView typed by the view's derivation rule (R.Callable(derive_func=...));
 * upstream's expected text of that (test_op_view's) parses to the same module, and the call's
 * struct info is the view's, derived from its arguments. */
TEST(view_lowered_with_derive_func) {
  void* before = parse(
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class Before:\n"
      "    @R.function\n"
      "    def main(A: R.Tensor([4096], \"float32\")):\n"
      "        B = R.memory.view(A, [64, 64])\n"
      "        return B\n");
  void* expected = parse(
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class Expected:\n"
      "    @R.function\n"
      "    def main(A: R.Tensor([4096], \"float32\")):\n"
      "        B = R.ExternFunc(\n"
      "            \"runtime.TVMTensorCreateView\",\n"
      "            R.Callable(derive_func=\"tvm.relax.type.infer_view_ty\", purity=True),\n"
      "        )(A, R.shape([64, 64]), R.dtype(\"float32\"), R.prim_value(0))\n"
      "        return B\n");
  void* low = before ? tvm_relax_transform_lower_runtime_builtin(before) : NULL;
  CHECK(low && expected);
  if (low && expected) {
    TVMFFIAny a = tvm_ffi_any_obj(low), b = tvm_ffi_any_obj(expected);
    CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &b, true, NULL, NULL), 1);
    tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(expected, "main");
    const tvm_relax_sinfo_obj* r = f ? f->ret_struct_info : NULL;
    CHECK(r && tvm_relax_kind_of(r) == TVM_RELAX_KIND_TensorStructInfo);
    if (r && tvm_relax_kind_of(r) == TVM_RELAX_KIND_TensorStructInfo) {
      CHECK_EQ_INT(((const tvm_relax_tensor_sinfo_obj*)r)->ndim, 2);
    }
    tvm_ffi_release(f);
  }
  /* a view past the tensor is refused by the rule, as by R.memory.view */
  static const char kBad[] =
      "from tvm.script import relax as R\n"
      "@R.function\n"
      "def main(A: R.Tensor([16], \"float32\")):\n"
      "    B = R.ExternFunc(\"runtime.TVMTensorCreateView\",\n"
      "        R.Callable(derive_func=\"tvm.relax.type.infer_view_ty\", purity=True))(\n"
      "        A, R.shape([4, 5]), R.dtype(\"float32\"), R.prim_value(0))\n"
      "    return B\n";
  void* bad = tvm_script_parse(kBad, strlen(kBad), NULL);
  CHECK(bad == NULL);
  CHECK_RAISED("ValueError", "the view would reach past 'x'");
  tvm_ffi_release(bad), tvm_ffi_release(low), tvm_ffi_release(before), tvm_ffi_release(expected);
}

TEST(stale_error_is_set_aside) {
  static const char* const good =
      "from tvm.script import relax as R\n"
      "from tvm.script import tir as T\n"
      "@R.function\n"
      "def f(x: R.Tensor((\"a\", \"b\"), \"float32\")):\n"
      "    a = T.int64()\n"
      "    b = T.int64()\n"
      "    y: R.Tensor((2 * a, b), \"float32\") = R.concat((x, x), axis=0)\n"
      "    return y\n";
  tvm_ffi_raise("KeyError", "left by the caller");
  void* m = parse(good);
  CHECK(m != NULL);
  tvm_ffi_release(m);
  void* e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_message(e), "left by the caller") == 0);
  tvm_ffi_release(e);
  tvm_ffi_raise("KeyError", "left by the caller");
  static const char* const bad = "from tvm.script import relax as R\n@R.function\ndef f(:\n";
  CHECK(tvm_script_parse(bad, strlen(bad), NULL) == NULL);
  e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "SyntaxError") == 0);
  tvm_ffi_release(e);
}

int main(void) {
  RUN(parsed_relax_evaluates);
  RUN(decorator_flags);
  RUN(none_annotation_is_void);
  RUN(repeated_annotations);
  RUN(layout_transform_lambda);
  RUN(call_checks_the_callee_signature);
  RUN(tensor_field_errors);
  RUN(tvm_device_constructors);
  RUN(bare_module_function_name);
  RUN(stale_error_is_set_aside);
  RUN(view_lowered_with_derive_func);
  return test_summary();
}

/* model_bench_models.c: the models of model_bench, built with librelax's BlockBuilder (see
 * model_bench.h). bench/model_bench_torch.py computes the same functions with PyTorch. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/relax.h>

#include "model_bench.h"

#define F32 tvm_tir_dtype_float(32)

typedef struct {
  tvm_relax_block_builder* bb;
  void* keep;   /* ffi.List of objects released at the end */
  void* params; /* ffi.List of the parameter Vars */
  bench_model* out;
  int failed;
} mb;

static void* keep(mb* m, void* obj) {
  if (!obj) {
    m->failed = 1;
    return NULL;
  }
  TVMFFIAny a = tvm_ffi_any_obj(obj);
  if (tvm_ffi_list_push(m->keep, &a) != 0) m->failed = 1;
  tvm_ffi_release(obj); /* the list holds it */
  return obj;
}

/* A float32 parameter of the given shape. */
static tvm_relax_var_obj* param(mb* m, const char* name, int ndim, ...) {
  if (m->failed || m->out->nparams >= BENCH_MAX_PARAMS) {
    m->failed = 1;
    return NULL;
  }
  va_list ap;
  va_start(ap, ndim);
  int64_t dims[4];
  for (int i = 0; i < ndim; ++i) dims[i] = va_arg(ap, int64_t);
  va_end(ap);
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_of_ints(dims, ndim);
  tvm_relax_sinfo_obj* s = shape ? tvm_relax_tensor_sinfo_of_dims(((tvm_relax_shape_expr_obj*)shape)->values, F32) : NULL;
  tvm_ffi_release(shape);
  tvm_relax_var_obj* v = s ? tvm_relax_var_new(name, s, false) : NULL;
  tvm_ffi_release(s);
  if (!keep(m, v)) return NULL;
  TVMFFIAny a = tvm_ffi_any_obj(v);
  if (tvm_ffi_list_push(m->params, &a) != 0) m->failed = 1;
  int k = m->out->nparams++;
  m->out->ndim[k] = ndim;
  for (int i = 0; i < ndim; ++i) m->out->shape[k][i] = dims[i];
  return v;
}

/* An attrs map from key/value pairs (values as TVMFFIAny, consumed). */
static void* attrs(mb* m, int n, ...) {
  TVMFFIAny keys[4], vals[4];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) {
    keys[i] = tvm_ffi_string(va_arg(ap, const char*));
    vals[i] = va_arg(ap, TVMFFIAny);
  }
  va_end(ap);
  void* map = tvm_ffi_map_new(keys, vals, n);
  for (int i = 0; i < n; ++i) tvm_ffi_any_release(&keys[i]), tvm_ffi_any_release(&vals[i]);
  return keep(m, map);
}

static TVMFFIAny ints(int n, ...) {
  TVMFFIAny items[4];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(va_arg(ap, int64_t));
  va_end(ap);
  return tvm_ffi_any_obj(tvm_ffi_array_new(items, n));
}

/* Emit op(args) (n <= 3); the result Var. */
static tvm_relax_var_obj* emit(mb* m, const char* op, void* at, int n, void* a, void* b, void* c) {
  if (m->failed) return NULL;
  tvm_relax_expr_obj* call = n == 1   ? tvm_relax_call_op(op, at, 1, a)
                             : n == 2 ? tvm_relax_call_op(op, at, 2, a, b)
                                      : tvm_relax_call_op(op, at, 3, a, b, c);
  tvm_relax_var_obj* v = call ? tvm_relax_bb_emit(m->bb, call, NULL) : NULL;
  tvm_ffi_release(call);
  return keep(m, v);
}

#define E1(op, at, a) emit(m, (op), (at), 1, (a), NULL, NULL)
#define E2(op, at, a, b) emit(m, (op), (at), 2, (a), (b), NULL)
#define E3(op, at, a, b, c) emit(m, (op), (at), 3, (a), (b), (c))

static tvm_relax_expr_obj* shape_of(mb* m, int n, const int64_t* dims) {
  return keep(m, tvm_relax_shape_expr_of_ints(dims, n));
}

static int begin(mb* m, bench_model* out) {
  memset(out, 0, sizeof(*out));
  m->bb = tvm_relax_bb_new(NULL);
  m->keep = tvm_ffi_list_new();
  m->params = tvm_ffi_list_new();
  m->out = out;
  m->failed = !m->bb || !m->keep || !m->params;
  return m->failed ? -1 : 0;
}

/* Open main over the parameters declared so far. */
static void open_main(mb* m) {
  void* params = m->failed ? NULL : tvm_ffi_list_to_array(m->params);
  if (!params || tvm_relax_bb_function_begin(m->bb, "main", params, NULL, true) != 0 ||
      tvm_relax_bb_dataflow_begin(m->bb) != 0)
    m->failed = 1;
  tvm_ffi_release(params);
}

/* Close main returning `last`'s value (emitted as the block's output). */
static tvm_tir_ir_module_obj* finish(mb* m, const char* op, void* at, int n, void* a, void* b) {
  tvm_tir_ir_module_obj* mod = NULL;
  if (!m->failed) {
    tvm_relax_expr_obj* call = n == 1 ? tvm_relax_call_op(op, at, 1, a) : tvm_relax_call_op(op, at, 2, a, b);
    tvm_relax_var_obj* out = call ? tvm_relax_bb_emit_output(m->bb, call, "out") : NULL;
    tvm_ffi_release(call);
    tvm_tir_global_var_obj* g = out && tvm_relax_bb_block_end(m->bb) == 0
                                    ? tvm_relax_bb_function_end(m->bb, (tvm_relax_expr_obj*)out, NULL)
                                    : NULL;
    mod = g ? tvm_relax_bb_module(m->bb) : NULL;
    tvm_ffi_release(g), tvm_ffi_release(out);
  }
  tvm_ffi_release(m->keep), tvm_ffi_release(m->params);
  tvm_relax_bb_free(m->bb);
  return mod;
}

/* MLP 784-512-256-10: relu(x @ w1 + b1) ... */
static tvm_tir_ir_module_obj* mlp(mb* m, int64_t batch) {
  tvm_relax_var_obj* x = param(m, "x", 2, batch, (int64_t)784);
  int64_t sizes[4] = {784, 512, 256, 10};
  tvm_relax_var_obj *w[3], *b[3];
  for (int l = 0; l < 3; ++l) {
    char wn[8], bn[8];
    snprintf(wn, sizeof(wn), "w%d", l + 1), snprintf(bn, sizeof(bn), "b%d", l + 1);
    w[l] = param(m, wn, 2, sizes[l], sizes[l + 1]);
    b[l] = param(m, bn, 1, sizes[l + 1]);
  }
  open_main(m);
  tvm_relax_var_obj* h = x;
  for (int l = 0; l < 2; ++l) {
    tvm_relax_var_obj* mm = E2("relax.matmul", NULL, h, w[l]);
    tvm_relax_var_obj* ad = E2("relax.add", NULL, mm, b[l]);
    h = E1("relax.nn.relu", NULL, ad);
  }
  tvm_relax_var_obj* mm = E2("relax.matmul", NULL, h, w[2]);
  return finish(m, "relax.add", NULL, 2, mm, b[2]);
}

/* conv3x3(pad 1) + bias, relu, maxpool 2 (twice), then a dense classifier. */
static tvm_tir_ir_module_obj* cnn(mb* m) {
  tvm_relax_var_obj* x = param(m, "x", 4, (int64_t)1, (int64_t)3, (int64_t)32, (int64_t)32);
  tvm_relax_var_obj* w1 = param(m, "w1", 4, (int64_t)16, (int64_t)3, (int64_t)3, (int64_t)3);
  tvm_relax_var_obj* b1 = param(m, "b1", 3, (int64_t)16, (int64_t)1, (int64_t)1);
  tvm_relax_var_obj* w2 = param(m, "w2", 4, (int64_t)32, (int64_t)16, (int64_t)3, (int64_t)3);
  tvm_relax_var_obj* b2 = param(m, "b2", 3, (int64_t)32, (int64_t)1, (int64_t)1);
  tvm_relax_var_obj* wf = param(m, "wf", 2, (int64_t)2048, (int64_t)10);
  tvm_relax_var_obj* bf = param(m, "bf", 1, (int64_t)10);
  open_main(m);
  void* pad = attrs(m, 1, "padding", ints(1, (int64_t)1));
  void* pool = attrs(m, 2, "pool_size", ints(1, (int64_t)2), "strides", ints(1, (int64_t)2));
  tvm_relax_var_obj* c1 = E2("relax.nn.conv2d", pad, x, w1);
  tvm_relax_var_obj* r1 = E1("relax.nn.relu", NULL, E2("relax.add", NULL, c1, b1));
  tvm_relax_var_obj* p1 = E1("relax.nn.max_pool2d", pool, r1);
  tvm_relax_var_obj* c2 = E2("relax.nn.conv2d", pad, p1, w2);
  tvm_relax_var_obj* r2 = E1("relax.nn.relu", NULL, E2("relax.add", NULL, c2, b2));
  tvm_relax_var_obj* p2 = E1("relax.nn.max_pool2d", pool, r2);
  tvm_relax_var_obj* f = E2("relax.reshape", NULL, p2, shape_of(m, 2, (int64_t[]){1, 2048}));
  tvm_relax_var_obj* d = E2("relax.matmul", NULL, f, wf);
  return finish(m, "relax.add", NULL, 2, d, bf);
}

/* x + proj(attention(layer_norm(x))): seq 64, hidden 128, 4 heads of 32. */
static tvm_tir_ir_module_obj* transformer(mb* m) {
  const int64_t S = 64, H = 128, NH = 4, D = 32;
  tvm_relax_var_obj* x = param(m, "x", 2, S, H);
  tvm_relax_var_obj* g = param(m, "ln_g", 1, H);
  tvm_relax_var_obj* be = param(m, "ln_b", 1, H);
  tvm_relax_var_obj* wq = param(m, "wq", 2, H, H);
  tvm_relax_var_obj* wk = param(m, "wk", 2, H, H);
  tvm_relax_var_obj* wv = param(m, "wv", 2, H, H);
  tvm_relax_var_obj* wo = param(m, "wo", 2, H, H);
  open_main(m);
  void* ln_at = attrs(m, 1, "axes", ints(1, (int64_t)-1));
  void* heads = attrs(m, 1, "axes", ints(3, (int64_t)1, (int64_t)0, (int64_t)2)); /* (S,NH,D) -> (NH,S,D) */
  void* heads_t = attrs(m, 1, "axes", ints(3, (int64_t)1, (int64_t)2, (int64_t)0)); /* -> (NH,D,S) */
  tvm_relax_expr_obj* split = shape_of(m, 3, (int64_t[]){S, NH, D});
  tvm_relax_var_obj* ln = E3("relax.nn.layer_norm", ln_at, x, g, be);
  tvm_relax_var_obj* q = E2("relax.matmul", NULL, ln, wq);
  tvm_relax_var_obj* k = E2("relax.matmul", NULL, ln, wk);
  tvm_relax_var_obj* v = E2("relax.matmul", NULL, ln, wv);
  tvm_relax_var_obj* qh = E1("relax.permute_dims", heads, E2("relax.reshape", NULL, q, split));
  tvm_relax_var_obj* kt = E1("relax.permute_dims", heads_t, E2("relax.reshape", NULL, k, split));
  tvm_relax_var_obj* vh = E1("relax.permute_dims", heads, E2("relax.reshape", NULL, v, split));
  tvm_relax_var_obj* s = E2("relax.matmul", NULL, qh, kt); /* (NH, S, S) */
  tvm_tir_expr_obj* sc = keep(m, tvm_tir_const_float(F32, 0.17677669529663687));
  tvm_relax_expr_obj* scale = keep(m, m->failed ? NULL : tvm_relax_prim_value_new(sc));
  tvm_relax_var_obj* ss = E2("relax.multiply", NULL, s, scale);
  tvm_relax_var_obj* p = E1("relax.nn.softmax", NULL, ss);
  tvm_relax_var_obj* o = E2("relax.matmul", NULL, p, vh); /* (NH, S, D) */
  tvm_relax_var_obj* ot = E1("relax.permute_dims", heads, o); /* (S, NH, D) */
  tvm_relax_var_obj* om = E2("relax.reshape", NULL, ot, shape_of(m, 2, (int64_t[]){S, H}));
  tvm_relax_var_obj* pr = E2("relax.matmul", NULL, om, wo);
  return finish(m, "relax.add", NULL, 2, x, pr);
}

/* relu(conv(relu(conv(x) + b1)) + b2 + x) over 1x64x56x56 (batch norm folded into the biases). */
static tvm_tir_ir_module_obj* resnet_block(mb* m) {
  tvm_relax_var_obj* x = param(m, "x", 4, (int64_t)1, (int64_t)64, (int64_t)56, (int64_t)56);
  tvm_relax_var_obj* w1 = param(m, "w1", 4, (int64_t)64, (int64_t)64, (int64_t)3, (int64_t)3);
  tvm_relax_var_obj* b1 = param(m, "b1", 3, (int64_t)64, (int64_t)1, (int64_t)1);
  tvm_relax_var_obj* w2 = param(m, "w2", 4, (int64_t)64, (int64_t)64, (int64_t)3, (int64_t)3);
  tvm_relax_var_obj* b2 = param(m, "b2", 3, (int64_t)64, (int64_t)1, (int64_t)1);
  open_main(m);
  void* pad = attrs(m, 1, "padding", ints(1, (int64_t)1));
  tvm_relax_var_obj* r1 = E1("relax.nn.relu", NULL, E2("relax.add", NULL, E2("relax.nn.conv2d", pad, x, w1), b1));
  tvm_relax_var_obj* a2 = E2("relax.add", NULL, E2("relax.nn.conv2d", pad, r1, w2), b2);
  tvm_relax_var_obj* s = E2("relax.add", NULL, a2, x);
  return finish(m, "relax.nn.relu", NULL, 1, s, NULL);
}

/* `ops` chained adds of a 4-element vector: the VM's cost per operator call. */
static tvm_tir_ir_module_obj* tiny_ops(mb* m, int ops) {
  tvm_relax_var_obj* x = param(m, "x", 1, (int64_t)4);
  tvm_relax_var_obj* y = param(m, "y", 1, (int64_t)4);
  open_main(m);
  tvm_relax_var_obj* h = x;
  for (int i = 0; i + 1 < ops && !m->failed; ++i) h = E2("relax.add", NULL, h, y);
  return finish(m, "relax.add", NULL, 2, h, y);
}

const char* const bench_model_names[] = {"mlp-b1", "mlp-b32", "cnn", "transformer", "resnet-block",
                                         "tiny-ops", NULL};

int bench_model_build(const char* name, bench_model* out) {
  mb m;
  if (begin(&m, out) != 0) return -1;
  snprintf(out->name, sizeof(out->name), "%s", name);
  tvm_tir_ir_module_obj* mod = NULL;
  if (strcmp(name, "mlp-b1") == 0) {
    mod = mlp(&m, 1);
  } else if (strcmp(name, "mlp-b32") == 0) {
    mod = mlp(&m, 32);
  } else if (strcmp(name, "cnn") == 0) {
    mod = cnn(&m);
  } else if (strcmp(name, "transformer") == 0) {
    mod = transformer(&m);
  } else if (strcmp(name, "resnet-block") == 0) {
    mod = resnet_block(&m);
  } else if (strcmp(name, "tiny-ops") == 0) {
    /* MODEL_BENCH_TINY_OPS: another chain length (for --profile: how the cost per call
     * depends on the compiled function's size) */
    const char* env = getenv("MODEL_BENCH_TINY_OPS");
    out->ops = env && atoi(env) > 1 ? atoi(env) : BENCH_TINY_OPS;
    mod = tiny_ops(&m, out->ops);
  } else {
    m.failed = 1;
    finish(&m, NULL, NULL, 0, NULL, NULL);
    return tvm_ffi_raise("ValueError", "model_bench: unknown model '%s'", name);
  }
  out->mod = mod;
  if (!mod && !tvm_ffi_error_pending()) tvm_ffi_raise("RuntimeError", "model_bench: building %s failed", name);
  return mod ? 0 : -1;
}

/*
 * fuse_testing.h: helpers of the fusion tests (tests/relax/test_fuse.c and
 * tests/codegen/test_relax_fuse.c; header-only): small models built with the BlockBuilder, the
 * fusion passes, random arguments for a function's parameters, and result comparison.
 */
#ifndef TVM_TESTS_FUSE_TESTING_H_
#define TVM_TESTS_FUSE_TESTING_H_

#include <math.h>
#include <tvm/relax/eval.h>
#include <tvm/tir/visit.h>

#include "relax_models.h"
#include "relax_testing.h"
#include "values_testing.h"

/* ---- Models ---------------------------------------------------------------------------------- */
/* A model under construction: objects made along the way are kept and released at the end. */
typedef struct {
  tvm_relax_block_builder* bb;
  void* keep; /* ffi.List */
  tvm_tir_var_obj* n; /* the symbolic batch */
  void* params;       /* ffi.List of parameter Vars */
} fm_model;

static inline void* fm_keep(fm_model* m, void* obj) {
  TVMFFIAny v = tvm_ffi_any_obj(obj);
  if (obj) tvm_ffi_list_push(m->keep, &v);
  tvm_ffi_release(obj);
  return obj;
}

static inline void fm_init(fm_model* m) {
  m->bb = tvm_relax_bb_new(NULL);
  m->keep = tvm_ffi_list_new();
  m->n = fm_keep(m, tvm_tir_var_new("n", I64));
  m->params = tvm_ffi_list_new();
}

/* A float32 parameter; a dim of -1 is the symbolic batch n. */
static inline tvm_relax_var_obj* fm_param(fm_model* m, const char* name, int ndim, const int64_t* dims) {
  void* d[8];
  for (int i = 0; i < ndim; ++i) {
    d[i] = dims[i] < 0 ? (void*)m->n : fm_keep(m, tvm_tir_const_int(I64, dims[i]));
  }
  tvm_relax_var_obj* v = fm_keep(m, rt_var_take(name, rt_tensor_sym(F32, ndim, d)));
  TVMFFIAny item = tvm_ffi_any_obj(v);
  tvm_ffi_list_push(m->params, &item);
  return v;
}

/* Start main (a dataflow block) once the parameters are made. */
static inline void fm_begin(fm_model* m) {
  void* arr = tvm_ffi_list_to_array(m->params);
  CHECK_OK(tvm_relax_bb_function_begin(m->bb, "main", arr, NULL, true));
  CHECK_OK(tvm_relax_bb_dataflow_begin(m->bb));
  tvm_ffi_release(arr);
}

/* Emit op(args...) (NULL-terminated, up to 4) in the dataflow block, as an output when out. */
static inline tvm_relax_var_obj* fm_op(fm_model* m, bool out, const char* op, void* attrs, void* a,
                                       void* b, void* c) {
  tvm_relax_expr_obj* call = !b   ? tvm_relax_call_op(op, attrs, 1, a)
                             : !c ? tvm_relax_call_op(op, attrs, 2, a, b)
                                  : tvm_relax_call_op(op, attrs, 3, a, b, c);
  fm_keep(m, call);
  if (!call) return NULL;
  return fm_keep(m, out ? tvm_relax_bb_emit_output(m->bb, call, NULL) : tvm_relax_bb_emit(m->bb, call, NULL));
}
static inline tvm_relax_var_obj* fm_opv(fm_model* m, bool out, const char* op, void* const* args) {
  return fm_op(m, out, op, NULL, args[0], args[1], args[1] ? args[2] : NULL);
}
#define FM_OP(m, op, ...) fm_opv(m, false, op, (void* const[]){__VA_ARGS__, NULL, NULL})
#define FM_OUT(m, op, ...) fm_opv(m, true, op, (void* const[]){__VA_ARGS__, NULL, NULL})

/* Emit an expression (a TupleGetItem, a Tuple) in the block. */
static inline tvm_relax_var_obj* fm_emit(fm_model* m, bool out, tvm_relax_expr_obj* e) {
  fm_keep(m, e);
  if (!e) return NULL;
  return fm_keep(m, out ? tvm_relax_bb_emit_output(m->bb, e, NULL) : tvm_relax_bb_emit(m->bb, e, NULL));
}

/* An attribute map of one int list or one int. */
static inline void* fm_ints_attr(fm_model* m, const char* key, int n, const int64_t* v) {
  TVMFFIAny items[8];
  for (int i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(v[i]);
  void* arr = fm_keep(m, tvm_ffi_array_new(items, n));
  return fm_keep(m, rt_attrs(1, key, tvm_ffi_any_obj(arr)));
}
static inline void* fm_int_attr(fm_model* m, const char* key, int64_t v) {
  return fm_keep(m, rt_attrs(1, key, tvm_ffi_any_int(v)));
}
static inline tvm_relax_expr_obj* fm_scalar(fm_model* m, double v) {
  tvm_tir_expr_obj* c = fm_keep(m, tvm_tir_const_float(F32, v));
  return fm_keep(m, tvm_relax_prim_value_new(c));
}
static inline tvm_relax_expr_obj* fm_shape(fm_model* m, int n, const int64_t* dims) {
  void* d[8];
  for (int i = 0; i < n; ++i) d[i] = dims[i] < 0 ? (void*)m->n : fm_keep(m, tvm_tir_const_int(I64, dims[i]));
  void* arr = fm_keep(m, tvm_ffi_array_of_objects(d, n));
  return fm_keep(m, tvm_relax_shape_expr_new(arr));
}

/* End main returning `ret` (a Var, or the tuple of two Vars when ret2): the legalized module. */
static inline tvm_tir_ir_module_obj* fm_end(fm_model* m, void* ret, void* ret2) {
  CHECK_OK(tvm_relax_bb_block_end(m->bb));
  tvm_relax_expr_obj* r = ret;
  if (ret2) {
    void* arr = fm_keep(m, rt_array(2, ret, ret2));
    r = fm_keep(m, tvm_relax_tuple_new(arr));
  }
  tvm_tir_global_var_obj* gv = tvm_relax_bb_function_end(m->bb, r, NULL);
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(m->bb) : NULL;
  tvm_ffi_release(gv);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  if (!legal) CHECK_OK(-1);
  tvm_ffi_release(mod);
  tvm_relax_bb_free(m->bb);
  tvm_ffi_release(m->keep);
  tvm_ffi_release(m->params);
  return legal;
}

/* ---- The models of the fusion tests (legalized; main's parameters float32, -1 = batch n) ----- */
/* relu(exp(x) + y) */
static inline tvm_tir_ir_module_obj* fm_elementwise_chain(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 4});
  tvm_relax_var_obj* y = fm_param(&m, "y", 2, (int64_t[]){-1, 4});
  fm_begin(&m);
  tvm_relax_var_obj* e = FM_OP(&m, "relax.exp", x);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.add", e, y);
  tvm_relax_var_obj* r = FM_OUT(&m, "relax.nn.relu", a);
  return fm_end(&m, r, NULL);
}

/* tanh((x + b * c) * 0.5), b: (4,), c: (n, 1) */
static inline tvm_tir_ir_module_obj* fm_broadcast_and_scalar(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 4});
  tvm_relax_var_obj* b = fm_param(&m, "b", 1, (int64_t[]){4});
  tvm_relax_var_obj* c = fm_param(&m, "c", 2, (int64_t[]){-1, 1});
  fm_begin(&m);
  tvm_relax_var_obj* bc = FM_OP(&m, "relax.multiply", b, c); /* (n, 4) from (4,) and (n, 1) */
  tvm_relax_var_obj* a = FM_OP(&m, "relax.add", x, bc);
  tvm_relax_var_obj* s = FM_OP(&m, "relax.multiply", a, fm_scalar(&m, 0.5));
  tvm_relax_var_obj* r = FM_OUT(&m, "relax.tanh", s);
  return fm_end(&m, r, NULL);
}

/* -(permute_dims(reshape(x, (6, 4))) + y) */
static inline tvm_tir_ir_module_obj* fm_injective_chain(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 3, (int64_t[]){2, 3, 4});
  tvm_relax_var_obj* y = fm_param(&m, "y", 2, (int64_t[]){4, 6});
  fm_begin(&m);
  tvm_relax_var_obj* r = fm_op(&m, false, "relax.reshape", NULL, x, fm_shape(&m, 2, (int64_t[]){6, 4}), NULL);
  tvm_relax_var_obj* p = fm_op(&m, false, "relax.permute_dims", NULL, r, NULL, NULL);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.add", p, y);
  tvm_relax_var_obj* o = FM_OUT(&m, "relax.negative", a);
  return fm_end(&m, o, NULL);
}

/* sqrt(sum(exp(x), axis 1)) */
static inline tvm_tir_ir_module_obj* fm_reduction_prologue(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 8});
  fm_begin(&m);
  tvm_relax_var_obj* e = FM_OP(&m, "relax.exp", x);
  tvm_relax_var_obj* s = fm_op(&m, false, "relax.sum", fm_ints_attr(&m, "axis", 1, (int64_t[]){1}), e, NULL, NULL);
  tvm_relax_var_obj* r = FM_OUT(&m, "relax.sqrt", s);
  return fm_end(&m, r, NULL);
}

/* softmax(x) * 3 */
static inline tvm_tir_ir_module_obj* fm_softmax_epilogue(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 8});
  fm_begin(&m);
  tvm_relax_var_obj* s = FM_OP(&m, "relax.nn.softmax", x);
  tvm_relax_var_obj* r = FM_OUT(&m, "relax.multiply", s, fm_scalar(&m, 3.0));
  return fm_end(&m, r, NULL);
}

/* relu(x @ w + b): a dense layer */
static inline tvm_tir_ir_module_obj* fm_matmul_bias_relu(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 16});
  tvm_relax_var_obj* w = fm_param(&m, "w", 2, (int64_t[]){16, 8});
  tvm_relax_var_obj* b = fm_param(&m, "b", 1, (int64_t[]){8});
  fm_begin(&m);
  tvm_relax_var_obj* mm = FM_OP(&m, "relax.matmul", x, w);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.add", mm, b);
  tvm_relax_var_obj* r = FM_OUT(&m, "relax.nn.relu", a);
  return fm_end(&m, r, NULL);
}

/* (b, relu(a * b)) with a = exp(x), b = a + y a block output */
static inline tvm_tir_ir_module_obj* fm_block_output_in_a_chain(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 4});
  tvm_relax_var_obj* y = fm_param(&m, "y", 2, (int64_t[]){-1, 4});
  fm_begin(&m);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.exp", x);
  tvm_relax_var_obj* b = FM_OUT(&m, "relax.add", a, y);
  tvm_relax_var_obj* c = FM_OP(&m, "relax.multiply", a, b);
  tvm_relax_var_obj* d = FM_OUT(&m, "relax.nn.relu", c);
  return fm_end(&m, b, d);
}

/* split(x, 3, axis 1)[0] @ w */
static inline tvm_tir_ir_module_obj* fm_tuple_get_root(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){2, 6});
  tvm_relax_var_obj* w = fm_param(&m, "w", 2, (int64_t[]){2, 4});
  fm_begin(&m);
  void* sa = fm_keep(&m, rt_attrs(2, "indices_or_sections", tvm_ffi_any_int(3), "axis", tvm_ffi_any_int(1)));
  tvm_relax_var_obj* sp = fm_op(&m, false, "relax.split", sa, x, NULL, NULL);
  tvm_relax_var_obj* t0 = fm_emit(&m, false, tvm_relax_tuple_get_item_new(&sp->expr, 0));
  tvm_relax_var_obj* o = FM_OUT(&m, "relax.matmul", t0, w);
  return fm_end(&m, o, NULL);
}

/* exp(x) + sqrt(exp(x)), exp bound once */
static inline tvm_tir_ir_module_obj* fm_value_used_twice(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 4});
  fm_begin(&m);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.exp", x);
  tvm_relax_var_obj* b = FM_OP(&m, "relax.sqrt", a);
  tvm_relax_var_obj* c = FM_OUT(&m, "relax.add", a, b);
  return fm_end(&m, c, NULL);
}

/* (t0, t1, t2) = split(x @ w, 3); sigmoid(t0) + tanh(t1) * exp(t2) */
static inline tvm_tir_ir_module_obj* fm_split_tuple_get_item(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){1, 10});
  tvm_relax_var_obj* w = fm_param(&m, "w", 2, (int64_t[]){10, 30});
  fm_begin(&m);
  tvm_relax_var_obj* mm = FM_OP(&m, "relax.matmul", x, w);
  void* sa = fm_keep(&m, rt_attrs(2, "indices_or_sections", tvm_ffi_any_int(3), "axis", tvm_ffi_any_int(1)));
  tvm_relax_var_obj* sp = fm_op(&m, false, "relax.split", sa, mm, NULL, NULL);
  tvm_relax_var_obj* t0 = fm_emit(&m, false, tvm_relax_tuple_get_item_new(&sp->expr, 0));
  tvm_relax_var_obj* s0 = FM_OP(&m, "relax.sigmoid", t0);
  tvm_relax_var_obj* t1 = fm_emit(&m, false, tvm_relax_tuple_get_item_new(&sp->expr, 1));
  tvm_relax_var_obj* s1 = FM_OP(&m, "relax.tanh", t1);
  tvm_relax_var_obj* t2 = fm_emit(&m, false, tvm_relax_tuple_get_item_new(&sp->expr, 2));
  tvm_relax_var_obj* s2 = FM_OP(&m, "relax.exp", t2);
  tvm_relax_var_obj* p = FM_OP(&m, "relax.multiply", s1, s2);
  tvm_relax_var_obj* o = FM_OUT(&m, "relax.add", s0, p);
  return fm_end(&m, o, NULL);
}

/* abs(-split(x, 2)[0]), the split also used by a Tuple binding */
static inline tvm_tir_ir_module_obj* fm_tuple_get_item_of_outside_tuple(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){2, 6});
  fm_begin(&m);
  void* sa = fm_keep(&m, rt_attrs(2, "indices_or_sections", tvm_ffi_any_int(2), "axis", tvm_ffi_any_int(1)));
  tvm_relax_var_obj* sp = fm_op(&m, false, "relax.split", sa, x, NULL, NULL);
  tvm_relax_var_obj* e = FM_OP(&m, "relax.exp", x);                    /* split's dominator is far */
  void* pair = fm_keep(&m, rt_array(2, sp, e));
  tvm_relax_var_obj* tp = fm_emit(&m, false, tvm_relax_tuple_new(pair)); /* an opaque use of sp */
  tvm_relax_var_obj* t0 = fm_emit(&m, false, tvm_relax_tuple_get_item_new(&sp->expr, 0));
  tvm_relax_var_obj* n0 = FM_OP(&m, "relax.negative", t0);
  tvm_relax_var_obj* o = FM_OUT(&m, "relax.abs", n0);
  (void)tp;
  return fm_end(&m, o, NULL);
}

/* max_pool2d(relu(conv2d(x, k, padding 1) + b)) */
static inline tvm_tir_ir_module_obj* fm_conv_bias_relu_batch(int64_t batch) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 4, (int64_t[]){batch, 2, 6, 6});
  tvm_relax_var_obj* k = fm_param(&m, "k", 4, (int64_t[]){3, 2, 3, 3});
  tvm_relax_var_obj* b = fm_param(&m, "b", 4, (int64_t[]){1, 3, 1, 1});
  fm_begin(&m);
  tvm_relax_var_obj* c = fm_op(&m, false, "relax.nn.conv2d", fm_ints_attr(&m, "padding", 1, (int64_t[]){1}), x, k, NULL);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.add", c, b);
  tvm_relax_var_obj* r = FM_OP(&m, "relax.nn.relu", a);
  tvm_relax_var_obj* p = fm_op(&m, true, "relax.nn.max_pool2d", fm_ints_attr(&m, "pool_size", 2, (int64_t[]){2, 2}), r, NULL, NULL);
  return fm_end(&m, p, NULL);
}
static inline tvm_tir_ir_module_obj* fm_conv_bias_relu(void) { return fm_conv_bias_relu_batch(-1); }

/* exp(x * C) with C a Relax Constant (2, 4): the group lifts it to a parameter */
static inline tvm_tir_ir_module_obj* fm_constant_operand(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){2, 4});
  fm_begin(&m);
  int64_t shape[2] = {2, 4};
  void* t = tvm_ffi_tensor_empty(shape, 2, F32, (DLDevice){kDLCPU, 0});
  for (int i = 0; i < 8; ++i) ((float*)tvm_ffi_tensor_dl(t)->data)[i] = 0.25f * (float)(i - 3);
  tvm_relax_expr_obj* c = fm_keep(&m, tvm_relax_constant_new(t, NULL));
  tvm_ffi_release(t);
  tvm_relax_var_obj* a = FM_OP(&m, "relax.multiply", x, c);
  tvm_relax_var_obj* e = FM_OUT(&m, "relax.exp", a);
  return fm_end(&m, e, NULL);
}

/* x + exp(C1 * C2) with C1, C2 Relax Constants (1, 32): FoldConstant folds exp(C1 * C2) into one
 * constant of 32 elements, which TVMScript prints in the metadata section (pass_roundtrip.h
 * reads it back after every pass). */
static inline tvm_tir_ir_module_obj* fm_folded_constants(void) {
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* x = fm_param(&m, "x", 2, (int64_t[]){-1, 32});
  fm_begin(&m);
  int64_t shape[2] = {1, 32};
  tvm_relax_expr_obj* c[2];
  for (int k = 0; k < 2; ++k) {
    void* t = tvm_ffi_tensor_empty(shape, 2, F32, (DLDevice){kDLCPU, 0});
    for (int i = 0; i < 32; ++i) {
      ((float*)tvm_ffi_tensor_dl(t)->data)[i] = 0.0625f * (float)((i * (k + 3)) % 17 - 8);
    }
    c[k] = fm_keep(&m, tvm_relax_constant_new(t, NULL));
    tvm_ffi_release(t);
  }
  tvm_relax_var_obj* a = FM_OP(&m, "relax.multiply", c[0], c[1]);
  tvm_relax_var_obj* e = FM_OP(&m, "relax.exp", a);
  tvm_relax_var_obj* r = FM_OUT(&m, "relax.add", x, e);
  return fm_end(&m, r, NULL);
}

/* ---- Passes ---------------------------------------------------------------------------------- */
/* AnnotateTIROpPattern then FuseOps (mod borrowed), each result checked for well-formedness. */
static inline tvm_tir_ir_module_obj* fm_fuse_ops(const tvm_tir_ir_module_obj* mod) {
  tvm_tir_ir_module_obj* a = mod ? tvm_relax_transform_annotate_tir_op_pattern(mod) : NULL;
  tvm_tir_ir_module_obj* f = a ? tvm_relax_transform_fuse_ops(a) : NULL;
  tvm_ffi_release(a);
  if (!f || tvm_relax_verify_well_formed(f) != 0) {
    CHECK_OK(-1);
    tvm_ffi_release(f);
    return NULL;
  }
  return f;
}
/* fm_fuse_ops then FuseTIR. */
static inline tvm_tir_ir_module_obj* fm_fuse(const tvm_tir_ir_module_obj* mod) {
  tvm_tir_ir_module_obj* f = fm_fuse_ops(mod);
  tvm_tir_ir_module_obj* t = f ? tvm_relax_transform_fuse_tir(f) : NULL;
  tvm_ffi_release(f);
  if (!t || tvm_relax_verify_well_formed(t) != 0) {
    CHECK_OK(-1);
    tvm_ffi_release(t);
    return NULL;
  }
  return t;
}

/* The number of PrimFuncs and of Relax functions of a module. */
static inline int64_t fm_count_funcs(const tvm_tir_ir_module_obj* mod, bool prim) {
  int64_t n = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; mod && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    n += prim ? tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc) : tvm_relax_kind_of(v->v_obj) == TVM_RELAX_KIND_Function;
  }
  return n;
}

/* How many nodes of a TIR kind the function `name` of mod holds. */
typedef struct {
  int kind;
  int64_t n;
} fm_kind_count;
static inline int fm_count_pre(tvm_tir_visitor* v, const void* node) {
  fm_kind_count* c = v->ctx;
  if ((int)tvm_tir_kind_of(node) == c->kind) ++c->n;
  return TVM_TIR_VISIT_CONTINUE;
}
static inline int64_t fm_count_tir(const tvm_tir_ir_module_obj* mod, const char* name, tvm_tir_kind kind) {
  void* f = tvm_tir_ir_module_lookup(mod, name);
  if (!tvm_tir_is(f, TVM_TIR_KIND_PrimFunc)) {
    tvm_ffi_release(f);
    return -1;
  }
  fm_kind_count c = {(int)kind, 0};
  tvm_tir_visitor v = {0};
  v.pre_default = fm_count_pre;
  v.ctx = &c;
  tvm_tir_visit(&v, ((tvm_tir_prim_func_obj*)f)->body);
  tvm_tir_visitor_free(&v);
  tvm_ffi_release(f);
  return c.n;
}

/* ---- Running --------------------------------------------------------------------------------- */
/* Random float32 tensors for the parameters of mod's main, the symbolic batch n = batch. */
static inline int fm_args(const tvm_tir_ir_module_obj* mod, int64_t batch, TVMFFIAny* args, int max) {
  void* f = tvm_tir_ir_module_lookup(mod, "main");
  if (!f) return -1;
  void* params = ((tvm_relax_function_obj*)f)->params;
  int n = (int)tvm_ffi_seq_size(params);
  for (int i = 0; i < n && i < max; ++i) {
    void* dims = tvm_relax_tensor_sinfo_dims(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(params, i)));
    int64_t shape[8];
    int nd = (int)tvm_ffi_seq_size(dims);
    for (int d = 0; d < nd; ++d) {
      if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, d), &shape[d])) shape[d] = batch;
    }
    args[i] = tvm_ffi_any_obj(rv_rand(nd, shape));
  }
  tvm_ffi_release(f);
  return n;
}
static inline void fm_args_free(TVMFFIAny* args, int n) {
  for (int i = 0; i < n; ++i) tvm_ffi_any_release(&args[i]);
}

/* Evaluate main of ref and of got on the same random inputs (batch n) and count the elements
 * that differ (tol as rv_differ); -1 when an evaluation fails. */
static inline int64_t fm_eval_diff(const tvm_tir_ir_module_obj* ref, const tvm_tir_ir_module_obj* got,
                                   int64_t batch, double tol) {
  TVMFFIAny args[64], want, have;
  int n = fm_args(ref, batch, args, 64);
  if (n < 0) return -1;
  int64_t bad = -1;
  if (tvm_relax_eval(ref, "main", args, n, &want) == 0) {
    if (tvm_relax_eval(got, "main", args, n, &have) == 0) {
      bad = rv_differ(&have, &want, tol);
      tvm_ffi_any_release(&have);
    }
    tvm_ffi_any_release(&want);
  }
  if (bad < 0) CHECK_OK(-1);
  fm_args_free(args, n);
  return bad;
}

#endif /* TVM_TESTS_FUSE_TESTING_H_ */

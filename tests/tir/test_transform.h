/*
 * test_transform.h: helpers of the lowering-pass tests (test_transform*.c), on top of
 * test_interp.h.
 *
 *   SAME_RESULTS(f, g, opts)   run f and g in the interpreter on the same random arguments
 *                              (fixed seed, never zero) and check every buffer ends equal
 *                              byte for byte (a failure or a difference is a failed check)
 *   PASS_OK(pass, f)           run a pass, check it succeeded and the result is well formed
 *   count_kind(node, kind)     number of nodes of an exact kind under node
 *   count_loops(node, kind)    number of For loops of a kind under node
 *   count_block_inits(node)    number of SBlocks with an init under node
 *   all_accesses_flat(node)    every BufferLoad/BufferStore has exactly one index
 */
#ifndef TVM_TESTS_TIR_TEST_TRANSFORM_H_
#define TVM_TESTS_TIR_TEST_TRANSFORM_H_

#include <stdlib.h>
#include <tvm/tir/transform.h>

#include "test_interp.h"

enum { MAX_PARAMS = 8 };

typedef struct {
  int64_t sym;                        /* value of symbolic dims and of scalar int params */
  const int64_t* strides[MAX_PARAMS]; /* per parameter: tensor strides (NULL = compact) */
  unsigned seed;                      /* 0 = 1234 */
  double tol; /* > 0: float32 results within tol * (1 + |before|), else equal byte for byte */
} run_opts;

/* Whether float32 arrays a and b (n bytes) agree within tol * (1 + |a|). */
static inline bool close_f32(const void* a, const void* b, size_t n, double tol) {
  const float *x = a, *y = b;
  for (size_t i = 0; i < n / sizeof(float); ++i) {
    double d = (double)x[i] - (double)y[i];
    if (d < 0) d = -d;
    if (!(d <= tol * (1.0 + (x[i] < 0 ? -(double)x[i] : (double)x[i])))) return false;
  }
  return true;
}

typedef struct {
  int n;
  TVMFFIAny args[MAX_PARAMS];
  DLTensor t[MAX_PARAMS];
  int64_t shape[MAX_PARAMS][8];
  void* data[MAX_PARAMS];
  size_t bytes[MAX_PARAMS];
} arg_set;

static inline void arg_set_free(arg_set* a) {
  for (int k = 0; k < a->n; ++k) free(a->data[k]);
}

/* Random non-zero element of dtype t into p. */
static inline void random_elem(DLDataType t, unsigned* state, char* p) {
  int r = (int)(rand_r(state) % 199) - 99;
  if (r == 0) r = 42;
  if (t.code == kDLFloat && t.bits == 32) {
    *(float*)p = (float)r / 16.0f;
  } else if (t.code == kDLFloat && t.bits == 64) {
    *(double*)p = (double)r / 16.0;
  } else if (t.bits == 64) {
    *(int64_t*)p = r;
  } else if (t.bits == 32) {
    *(int32_t*)p = r;
  } else if (t.bits == 16) {
    *(int16_t*)p = (int16_t)r;
  } else {
    *(int8_t*)p = (int8_t)r;
  }
}

static inline bool make_args(const tvm_tir_prim_func_obj* f, const run_opts* o, arg_set* a) {
  memset(a, 0, sizeof(*a));
  unsigned state = o->seed ? o->seed : 1234;
  a->n = (int)tvm_tir_array_size(f->params);
  if (a->n > MAX_PARAMS) return false;
  for (int k = 0; k < a->n; ++k) {
    TVMFFIAny key = tvm_ffi_any_obj(tvm_tir_array_at(f->params, k));
    const TVMFFIAny* b = tvm_ffi_map_get(f->buffer_map, &key);
    if (!b) {
      a->args[k] = tvm_ffi_any_int(o->sym);
      continue;
    }
    const tvm_tir_buffer_obj* buf = (const tvm_tir_buffer_obj*)b->v_obj;
    int ndim = (int)tvm_tir_buffer_ndim(buf);
    int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) {
      int64_t v;
      if (!tvm_tir_as_const_int(tvm_tir_array_at(buf->shape, d), &v)) v = o->sym;
      a->shape[k][d] = v;
      numel *= v;
    }
    size_t esize = (size_t)tvm_ffi_dtype_bytes(buf->dtype);
    a->bytes[k] = (size_t)numel * esize;
    a->data[k] = calloc((size_t)numel + 1, esize);
    for (int64_t e = 0; e < numel; ++e)
      random_elem(buf->dtype, &state, (char*)a->data[k] + e * esize);
    a->t[k] = dl(a->data[k], buf->dtype, ndim, a->shape[k], (int64_t*)o->strides[k]);
    a->args[k] = tvm_ffi_any_dltensor(&a->t[k]);
  }
  return true;
}

static inline void same_results_(int line, const void* f, const void* g, const run_opts* o) {
  if (!tir_expect_ok_(line, f) || !tir_expect_ok_(line, g)) return;
  const tvm_tir_prim_func_obj* pf = f;
  arg_set a, b;
  if (!make_args(pf, o, &a) || !make_args(g, o, &b)) {
    fprintf(stderr, "line %d: too many parameters\n", line);
    g_test_failed_checks++;
    return;
  }
  TVMFFIAny ra = tvm_ffi_any_none(), rb = tvm_ffi_any_none();
  if (tvm_tir_interp_run(f, NULL, a.args, a.n, &ra) != 0) {
    interp_fail_(line, "run before the pass failed");
  } else if (tvm_tir_interp_run(g, NULL, b.args, b.n, &rb) != 0) {
    interp_fail_(line, "run after the pass failed");
  } else {
    for (int k = 0; k < a.n; ++k) {
      TVMFFIAny key = tvm_ffi_any_obj(tvm_tir_array_at(pf->params, k));
      const TVMFFIAny* bm = tvm_ffi_map_get(pf->buffer_map, &key);
      bool f32 = bm && ((const tvm_tir_buffer_obj*)bm->v_obj)->dtype.code == kDLFloat &&
                 ((const tvm_tir_buffer_obj*)bm->v_obj)->dtype.bits == 32;
      bool same = !a.data[k] || (o->tol > 0 && f32 ? close_f32(a.data[k], b.data[k], a.bytes[k], o->tol)
                                                   : memcmp(a.data[k], b.data[k], a.bytes[k]) == 0);
      if (!same) {
        fprintf(stderr, "line %d: parameter %d differs after the pass\n", line, k);
        g_test_failed_checks++;
      }
    }
  }
  tvm_ffi_any_release(&ra);
  tvm_ffi_any_release(&rb);
  arg_set_free(&a);
  arg_set_free(&b);
}
#define SAME_RESULTS(f, g, ...) same_results_(__LINE__, (f), (g), &(run_opts){__VA_ARGS__})

/* Run pass on f (borrowed): the result (new reference) when it succeeded and is well formed. */
static inline void* pass_ok_(int line, void* (*pass)(const void*), const void* f) {
  if (!tir_expect_ok_(line, f)) return NULL;
  void* g = pass(f);
  if (!tir_expect_ok_(line, g)) return NULL;
  if (tvm_tir_verify_well_formed(g) != 0) {
    interp_fail_(line, "not well formed after the pass");
  }
  return g;
}
#define PASS_OK(pass, f) pass_ok_(__LINE__, (pass), (f))

typedef struct {
  tvm_tir_kind kind;
  int count;
} kind_count;
static inline int count_kind_fn_(tvm_tir_visitor* v, const void* node) {
  kind_count* c = v->ctx;
  c->count += tvm_tir_kind_of(node) == c->kind;
  return 0;
}
static inline int count_kind(const void* node, tvm_tir_kind kind) {
  kind_count c = {kind, 0};
  tvm_tir_visitor v = {0};
  v.pre_default = count_kind_fn_;
  v.ctx = &c;
  if (node) tvm_tir_visit(&v, node);
  tvm_tir_visitor_free(&v);
  return c.count;
}

/* Number of For loops of a kind under node. */
static inline int count_for_fn_(tvm_tir_visitor* v, const void* node) {
  kind_count* c = v->ctx;
  c->count += tvm_tir_kind_of(node) == TVM_TIR_KIND_For &&
              ((const tvm_tir_for_obj*)node)->kind == (int32_t)c->kind;
  return 0;
}
static inline int count_loops(const void* node, tvm_tir_for_kind kind) {
  kind_count c = {(tvm_tir_kind)kind, 0};
  tvm_tir_visitor v = {0};
  v.pre_default = count_for_fn_;
  v.ctx = &c;
  if (node) tvm_tir_visit(&v, node);
  tvm_tir_visitor_free(&v);
  return c.count;
}

/* Number of SBlocks with an init under node. */
static inline int count_init_fn_(tvm_tir_visitor* v, const void* node) {
  *(int*)v->ctx += tvm_tir_kind_of(node) == TVM_TIR_KIND_SBlock &&
                   ((const tvm_tir_sblock_obj*)node)->init != NULL;
  return 0;
}
static inline int count_block_inits(const void* node) {
  int n = 0;
  tvm_tir_visitor v = {0};
  v.pre_default = count_init_fn_;
  v.ctx = &n;
  tvm_tir_visit(&v, node);
  tvm_tir_visitor_free(&v);
  return n;
}

/* Whether every BufferLoad/BufferStore under node has exactly one index. */
static inline int multi_index_fn_(tvm_tir_visitor* v, const void* node) {
  tvm_tir_kind k = tvm_tir_kind_of(node);
  if (k == TVM_TIR_KIND_BufferLoad) {
    *(int*)v->ctx += tvm_tir_array_size(((const tvm_tir_buffer_load_obj*)node)->indices) != 1;
  } else if (k == TVM_TIR_KIND_BufferStore) {
    *(int*)v->ctx += tvm_tir_array_size(((const tvm_tir_buffer_store_obj*)node)->indices) != 1;
  }
  return 0;
}
static inline bool all_accesses_flat(const void* node) {
  int bad = 0;
  tvm_tir_visitor v = {0};
  v.pre_default = multi_index_fn_;
  v.ctx = &bad;
  tvm_tir_visit(&v, node);
  tvm_tir_visitor_free(&v);
  return bad == 0;
}

#endif /* TVM_TESTS_TIR_TEST_TRANSFORM_H_ */

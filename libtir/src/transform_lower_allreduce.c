/*
 * transform_lower_allreduce.c: lower_thread_allreduce (tvm/tir/transform.h), upstream's
 * LowerThreadAllreduce in our own form.
 *
 * T.tvm_thread_allreduce(size, values..., cond, results..., thread vars...) under its
 * reduce_scope AttrStmt (the CommReducer) becomes code a GPU runs, for the enclosing threadIdx
 * launches (thread_extent AttrStmts or thread-bound loops from 0, of constant extents). R, the
 * reduction extent, is the product of the thread vars' extents and G, the group extent, that of the
 * other threadIdx launches around it; ri / gi are a thread's index in its group / its group's index
 * (x fastest). Three forms:
 *
 *  - warp: R a power of two <= 32, the reduced axes the lowest ones (x, or x and y, ...: a
 *    group's threads are consecutive lanes of one warp) and every value a scalar of 8 to 64
 *    bits (shuffled widened to 32 bits, or as two halves, by the code generator): each thread's
 *    value in a local red_buf, tvm_warp_shuffle_down with width R at offsets R/2 .. 1 combining
 *    into it, then tvm_warp_shuffle of lane 0 of the group to every lane (mask from
 *    tvm_warp_activemask). No shared memory, no barrier.
 *  - two-stage: R a multiple of 32, at most 1024, the same layout and types: a warp reduction
 *    of width 32, lane 0 of each warp writing its partial to a shared buffer of G * R/32
 *    elements, a barrier, each warp reducing the R/32 partials of its group with shuffles
 *    again and broadcasting lane 0, and a barrier at the end (a loop around it may reuse the
 *    buffer).
 *  - tree: anything else: a shared buffer of G * R elements, each thread's value (the identity
 *    where cond is false) at gi * R + ri, a barrier, then for s = P/2 .. 1 (P the power of two
 *    >= R) the threads with ri < s and ri + s < R combining element ri + s into ri, a barrier
 *    after each step; every thread reads element gi * R and a final barrier follows.
 *
 * Values whose cond is false contribute the reducer's identity. The results are written to
 * element 0 of each result (a handle Var or a BufferLoad). The combiner is applied as a LetStmt
 * per value, so reducers of several values (argmax) combine at once. The interpreter runs every
 * form with the results of the allreduce itself up to floating-point reassociation
 * (interp_gpu.c runs the allreduce in thread order, the shuffles lane by lane).
 */
#include <stdio.h>
#include <string.h>
#include <tvm/tir/attr_value.h>
#include <tvm/tir/builder.h>

#include "transform_internal.h"

static const char kPass[] = "lower_thread_allreduce";

#define MAX_LAUNCHES 32
#define MAX_VALUES 8

typedef struct {
  const tvm_tir_var_obj* var;
  int axis;
  int64_t extent; /* -1: not a constant */
} launch_rec;

typedef struct {
  launch_rec launches[MAX_LAUNCHES];
  int n;
  int counter; /* names of the buffers made */
} ar_ctx;

static bool is_allreduce(const void* e) {
  return tvm_tir_kind_of(e) == TVM_TIR_KIND_Call &&
         tvm_tir_is_builtin(((const tvm_tir_call_obj*)e)->op, TVM_TIR_BUILTIN_tvm_thread_allreduce);
}

static const void* arg_at(const tvm_tir_call_obj* c, int64_t i) {
  return tvm_tir_array_at(c->args, i);
}

/* A scalar the shuffles carry: 32 bits as it is; 8 and 16 bits widened to 32, 64 bits as two
 * 32-bit halves (the code generator's tvm_warp_shuffle). */
static bool shuffleable(DLDataType t) {
  return t.lanes == 1 && (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64) &&
         (t.code == kDLInt || t.code == kDLUInt || t.code == kDLFloat || t.code == kDLBfloat);
}

/* A local or shared buffer of n elements, declared for body by Allocate + DeclBuffer. */
static tvm_tir_buffer_obj* new_buf(ar_ctx* c, const char* base, DLDataType t, int64_t n,
                                   const char* scope) {
  char name[64];
  snprintf(name, sizeof(name), "%s%d", base, c->counter++);
  return tvm_tir_buffer_decl_takev(name, t, 1, (void*[]){tvm_tir_int(n)}, scope);
}

static void* wrap_alloc(tvm_tir_buffer_obj* b, int64_t n, void* body) {
  if (!b || !body) {
    tvm_ffi_release(body);
    return NULL;
  }
  void* d = tvm_tir_decl_buffer_take(tvm_tir_ref(b), body);
  return tvm_tir_allocate_takev(tvm_tir_ref(b->data), b->dtype, 1, (void*[]){tvm_tir_int(n)}, d);
}

static void* load0(tvm_tir_buffer_obj* b) {
  return tvm_tir_load_take(tvm_tir_ref(b), tvm_tir_int(0));
}
static void* store0(tvm_tir_buffer_obj* b, void* v) {
  return tvm_tir_store_take(tvm_tir_ref(b), v, tvm_tir_int(0));
}

static void* barrier(void) {
  return tvm_tir_evaluate_take(
      tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_storage_sync", tvm_tir_str("shared")));
}

/* A growing list of statements. */
typedef struct {
  void** s;
  int64_t n, cap;
  bool failed;
} stmt_list;

static void push(stmt_list* l, void* s) {
  if (!s) {
    l->failed = true;
    return;
  }
  if (l->n == l->cap) {
    int64_t cap = l->cap ? 2 * l->cap : 16;
    void** p = tvm_ffi_realloc(l->s, (size_t)cap * sizeof(void*));
    if (!p) {
      tvm_ffi_release(s);
      l->failed = true;
      return;
    }
    l->s = p;
    l->cap = cap;
  }
  l->s[l->n++] = s;
}

static void* seq_of(stmt_list* l) {
  void* r = NULL;
  if (!l->failed) {
    r = tvm_tir_seq_takev(l->n, l->s);
  } else {
    for (int64_t k = 0; k < l->n; ++k) tvm_ffi_release(l->s[k]);
  }
  tvm_ffi_free(l->s);
  return r;
}

/* The combiner's results with lhs[i] -> lhs_v[i] and rhs[i] -> rhs_v[i] (borrowed), as
 * LetStmts c_i = result_i binding over the stores dst[i] = c_i. */
static void* combine_into(const tvm_tir_comm_reducer_obj* r, int64_t size, void* const* lhs_v,
                          void* const* rhs_v, tvm_tir_buffer_obj* const* dst,
                          void* const* dst_index) {
  tvm_tir_subst s;
  if (tvm_tir_subst_init(&s, false) != 0) return NULL;
  int rc = 0;
  for (int64_t i = 0; i < size && rc == 0; ++i) {
    rc = tvm_tir_subst_set_var(&s, tvm_tir_array_at(r->lhs, i), lhs_v[i]);
    if (rc == 0) rc = tvm_tir_subst_set_var(&s, tvm_tir_array_at(r->rhs, i), rhs_v[i]);
  }
  void* vals[MAX_VALUES] = {NULL};
  tvm_tir_var_obj* cv[MAX_VALUES] = {NULL};
  for (int64_t i = 0; i < size && rc == 0; ++i) {
    vals[i] = tvm_tir_subst_apply(&s, tvm_tir_array_at(r->result, i));
    if (!vals[i]) rc = -1;
  }
  tvm_tir_subst_free(&s);
  void* body = NULL;
  if (rc == 0) {
    stmt_list st = {0};
    for (int64_t i = 0; i < size; ++i) {
      cv[i] = tvm_tir_var_new("c", ((const tvm_tir_expr_obj*)vals[i])->dtype);
      push(&st,
           tvm_tir_store_take(tvm_tir_ref(dst[i]), tvm_tir_ref(cv[i]), tvm_tir_ref(dst_index[i])));
    }
    body = seq_of(&st);
    for (int64_t i = size - 1; i >= 0; --i) {
      body = tvm_tir_let_stmt_take(cv[i], vals[i], body);
      vals[i] = NULL;
    }
  }
  for (int64_t i = 0; i < size; ++i) tvm_ffi_release(vals[i]);
  return body;
}

/* A shuffle call: kind "tir.tvm_warp_shuffle[_down]" of value with lane/offset d, width w. */
static void* shuffle(const char* op, tvm_tir_buffer_obj* mask, tvm_tir_buffer_obj* v, int64_t d,
                     int64_t w) {
  return tvm_tir_call_take(v->dtype, op, load0(mask), load0(v), tvm_tir_int(d), tvm_tir_int(w),
                           tvm_tir_int(32));
}

/* The shuffle-down steps of a warp reduction of width w from offset `from` down to 1, into
 * red[i] with the temporaries t[i]. */
static void warp_steps(stmt_list* l, const tvm_tir_comm_reducer_obj* r, int64_t size,
                       tvm_tir_buffer_obj* mask, tvm_tir_buffer_obj* const* red,
                       tvm_tir_buffer_obj* const* t, int64_t from, int64_t w) {
  for (int64_t off = from; off >= 1; off /= 2) {
    for (int64_t i = 0; i < size; ++i)
      push(l, store0(t[i], shuffle("tir.tvm_warp_shuffle_down", mask, red[i], off, w)));
    void *lhs[MAX_VALUES], *rhs[MAX_VALUES], *idx[MAX_VALUES];
    for (int64_t i = 0; i < size; ++i) {
      lhs[i] = load0(red[i]);
      rhs[i] = load0(t[i]);
      idx[i] = tvm_tir_int(0);
    }
    push(l, combine_into(r, size, lhs, rhs, red, idx));
    for (int64_t i = 0; i < size; ++i) {
      tvm_ffi_release(lhs[i]);
      tvm_ffi_release(rhs[i]);
      tvm_ffi_release(idx[i]);
    }
  }
}

/* Store v to an allreduce result operand: a handle Var (element 0 through a buffer over it) or
 * a BufferLoad's element. */
static void* store_result(const void* dst, DLDataType t, void* v) {
  if (tvm_tir_kind_of(dst) == TVM_TIR_KIND_BufferLoad) {
    const tvm_tir_buffer_load_obj* l = dst;
    int64_t n = tvm_tir_array_size(l->indices);
    void* idx[32];
    if (n > 32) n = 32;
    for (int64_t k = 0; k < n; ++k) idx[k] = tvm_tir_ref(tvm_tir_array_at(l->indices, k));
    return tvm_tir_store_takev(tvm_tir_ref(l->buffer), v, n, idx);
  }
  tvm_tir_buffer_fields f = {0};
  f.data = (tvm_tir_var_obj*)dst;
  f.dtype = t;
  f.shape = tvm_tir_list_take(tvm_tir_int(1));
  f.name = tvm_tir_var_name(dst);
  tvm_tir_buffer_obj* b = f.shape ? tvm_tir_buffer_new(&f) : NULL;
  tvm_ffi_release(f.shape);
  void* s = b ? store0(b, v) : (tvm_ffi_release(v), NULL);
  tvm_ffi_release(b);
  return s;
}

/* Linear index over the threadIdx launches selected by `want` (reduced or not), x fastest. */
static void* linear_index(ar_ctx* c, const bool* reduced, bool want) {
  void* e = NULL;
  int64_t mult = 1;
  for (int axis = TVM_TIR_THREAD_TAG_THREAD_X; axis <= TVM_TIR_THREAD_TAG_THREAD_X + 2; ++axis) {
    for (int k = c->n - 1; k >= 0; --k) { /* the innermost launch of the axis */
      if (c->launches[k].axis != axis) continue;
      if (reduced[k] == want) {
        void* v = tvm_tir_ref((void*)c->launches[k].var);
        if (v && ((const tvm_tir_expr_obj*)v)->dtype.bits != 32)
          v = tvm_tir_cast_take(TVM_TIR_INT32, v);
        if (mult != 1) v = tvm_tir_mul_take(v, tvm_tir_int(mult));
        e = e ? tvm_tir_add_take(e, v) : v;
        mult *= c->launches[k].extent;
      }
      break;
    }
  }
  return e ? e : tvm_tir_int(0);
}

/* if_then_else(cond, v, identity) (v evaluated only where cond holds: it may load out of
 * bounds elsewhere), or v when cond is the constant true (all borrowed). */
static void* guarded(const void* cond, const void* v, const void* identity) {
  int64_t k = 0;
  if (tvm_tir_as_const_int(cond, &k) && k) return tvm_tir_ref((void*)v);
  return tvm_tir_call_take(((const tvm_tir_expr_obj*)v)->dtype, "tir.if_then_else",
                           tvm_tir_ref((void*)cond), tvm_tir_ref((void*)v),
                           tvm_tir_ref((void*)identity));
}

static void* lower_one(ar_ctx* c, const tvm_tir_attr_stmt_obj* attr,
                       const tvm_tir_comm_reducer_obj* r, const tvm_tir_call_obj* call) {
  int64_t nargs = tvm_tir_array_size(call->args), size = -1;
  int64_t nred = tvm_tir_array_size(r->lhs);
  if (nargs < 1 || !tvm_tir_as_const_int(arg_at(call, 0), &size) || size != nred ||
      nargs < 2 + 2 * size || size > MAX_VALUES) {
    return tvm_tir__xform_error("ValueError", kPass, call,
                                "expected (size, values..., condition, results..., thread "
                                "variables...) for a reducer of %lld values (at most %d)",
                                (long long)nred, MAX_VALUES);
  }
  bool reduced[MAX_LAUNCHES] = {false};
  int64_t R = 1, G = 1;
  for (int64_t k = 2 + 2 * size; k < nargs; ++k) {
    const void* v = arg_at(call, k);
    int found = -1;
    for (int j = c->n - 1; j >= 0 && found < 0; --j)
      if ((const void*)c->launches[j].var == v) found = j;
    if (found < 0 || c->launches[found].axis < TVM_TIR_THREAD_TAG_THREAD_X ||
        c->launches[found].axis > TVM_TIR_THREAD_TAG_THREAD_X + 2) {
      return tvm_tir__xform_error("ValueError", kPass, v,
                                  "tvm_thread_allreduce over a variable that is not a threadIdx "
                                  "launched around it");
    }
    reduced[found] = true;
  }
  bool seen[3] = {false}, contiguous = true, gap = false;
  for (int k = c->n - 1; k >= 0; --k) {
    int a = c->launches[k].axis - TVM_TIR_THREAD_TAG_THREAD_X;
    if (a < 0 || a > 2 || seen[a]) continue;
    seen[a] = true;
    if (c->launches[k].extent < 0) {
      return tvm_tir__xform_error("NotImplementedError", kPass, c->launches[k].var,
                                  "tvm_thread_allreduce inside a thread launch of non-constant "
                                  "extent");
    }
    if (reduced[k])
      R *= c->launches[k].extent;
    else
      G *= c->launches[k].extent;
  }
  /* contiguous: walking x, y, z, the reduced axes come before every other launched one */
  for (int axis = 0; axis < 3; ++axis) {
    for (int k = c->n - 1; k >= 0; --k) {
      if (c->launches[k].axis != axis + TVM_TIR_THREAD_TAG_THREAD_X) continue;
      if (!reduced[k])
        gap = true;
      else if (gap)
        contiguous = false;
      break;
    }
  }
  DLDataType types[MAX_VALUES];
  bool shfl = true;
  for (int64_t i = 0; i < size; ++i) {
    types[i] = ((const tvm_tir_expr_obj*)arg_at(call, 1 + i))->dtype;
    shfl = shfl && shuffleable(types[i]);
  }
  bool pow2 = (R & (R - 1)) == 0;
  int form = 2; /* 0 warp, 1 two-stage, 2 tree */
  if (contiguous && shfl && pow2 && R <= 32)
    form = 0;
  else if (contiguous && shfl && R % 32 == 0 && R <= 1024)
    form = 1;
  (void)attr;

  void* ri = linear_index(c, reduced, true);
  void* gi = linear_index(c, reduced, false);
  const void* cond = arg_at(call, 1 + size);
  tvm_tir_buffer_obj *red[MAX_VALUES] = {NULL}, *t[MAX_VALUES] = {NULL}, *sh[MAX_VALUES] = {NULL};
  tvm_tir_buffer_obj* mask = NULL;
  stmt_list l = {0};
  for (int64_t i = 0; i < size; ++i) {
    void* v = guarded(cond, arg_at(call, 1 + i), tvm_tir_array_at(r->identity_element, i));
    red[i] = new_buf(c, "red_buf", types[i], 1, "local");
    if (form == 2) {
      sh[i] = new_buf(c, "red_shared", types[i], G * R, "shared");
      push(&l,
           tvm_tir_store_take(tvm_tir_ref(sh[i]), v,
                              tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(gi), tvm_tir_int(R)),
                                               tvm_tir_ref(ri))));
    } else {
      t[i] = new_buf(c, "t", types[i], 1, "local");
      push(&l, store0(red[i], v));
    }
  }
  if (form == 0 || form == 1) {
    mask = new_buf(c, "mask", TVM_TIR_UINT32, 1, "local");
    push(&l, store0(mask, tvm_tir_call_takev(TVM_TIR_UINT32, "tir.tvm_warp_activemask", 0, NULL)));
    int64_t w = form == 0 ? R : 32;
    warp_steps(&l, r, size, mask, red, t, w / 2, w);
    if (form == 1) {
      int64_t W = R / 32, P = 1;
      while (P < W) P *= 2;
      for (int64_t i = 0; i < size; ++i)
        sh[i] = new_buf(c, "red_shared", types[i], G * W, "shared");
      void* lane = tvm_tir_floormod_take(tvm_tir_ref(ri), tvm_tir_int(32));
      stmt_list wr = {0};
      for (int64_t i = 0; i < size; ++i) {
        push(&wr, tvm_tir_store_take(
                      tvm_tir_ref(sh[i]), load0(red[i]),
                      tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(gi), tvm_tir_int(W)),
                                       tvm_tir_floordiv_take(tvm_tir_ref(ri), tvm_tir_int(32)))));
      }
      push(&l,
           tvm_tir_if_take(tvm_tir_eq_take(tvm_tir_ref(lane), tvm_tir_int(0)), seq_of(&wr), NULL));
      push(&l, barrier());
      for (int64_t i = 0; i < size; ++i) {
        void* at = tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(gi), tvm_tir_int(W)),
                                    tvm_tir_min_take(tvm_tir_ref(lane), tvm_tir_int(W - 1)));
        push(&l, store0(red[i], tvm_tir_select_take(
                                    tvm_tir_lt_take(tvm_tir_ref(lane), tvm_tir_int(W)),
                                    tvm_tir_load_take(tvm_tir_ref(sh[i]), at),
                                    tvm_tir_ref(tvm_tir_array_at(r->identity_element, i)))));
      }
      tvm_ffi_release(lane);
      warp_steps(&l, r, size, mask, red, t, P / 2, 32);
    }
    if (R > 1) {
      for (int64_t i = 0; i < size; ++i)
        push(&l,
             store0(red[i], shuffle("tir.tvm_warp_shuffle", mask, red[i], 0, form == 0 ? R : 32)));
    }
    for (int64_t i = 0; i < size; ++i)
      push(&l, store_result(arg_at(call, 2 + size + i), types[i], load0(red[i])));
    if (form == 1) push(&l, barrier());
  } else {
    int64_t P = 1;
    while (P < R) P *= 2;
    push(&l, barrier());
    void* base = tvm_tir_mul_take(tvm_tir_ref(gi), tvm_tir_int(R));
    for (int64_t s = P / 2; s >= 1; s /= 2) {
      void *lhs[MAX_VALUES], *rhs[MAX_VALUES], *idx[MAX_VALUES];
      for (int64_t i = 0; i < size; ++i) {
        idx[i] = tvm_tir_add_take(tvm_tir_ref(base), tvm_tir_ref(ri));
        lhs[i] = tvm_tir_load_take(tvm_tir_ref(sh[i]), tvm_tir_ref(idx[i]));
        rhs[i] = tvm_tir_load_take(tvm_tir_ref(sh[i]),
                                   tvm_tir_add_take(tvm_tir_ref(idx[i]), tvm_tir_int(s)));
      }
      void* cnd = tvm_tir_lt_take(tvm_tir_ref(ri), tvm_tir_int(s));
      if (2 * s > R) /* the partner ri + s may be past R when R is not a power of two */
        cnd = tvm_tir_and_take(
            cnd,
            tvm_tir_lt_take(tvm_tir_add_take(tvm_tir_ref(ri), tvm_tir_int(s)), tvm_tir_int(R)));
      push(&l, tvm_tir_if_take(cnd, combine_into(r, size, lhs, rhs, sh, idx), NULL));
      for (int64_t i = 0; i < size; ++i) {
        tvm_ffi_release(lhs[i]);
        tvm_ffi_release(rhs[i]);
        tvm_ffi_release(idx[i]);
      }
      push(&l, barrier());
    }
    for (int64_t i = 0; i < size; ++i)
      push(&l, store_result(arg_at(call, 2 + size + i), types[i],
                            tvm_tir_load_take(tvm_tir_ref(sh[i]), tvm_tir_ref(base))));
    push(&l, barrier());
    tvm_ffi_release(base);
  }
  void* body = seq_of(&l);
  for (int64_t i = size - 1; i >= 0; --i) {
    if (t[i]) body = wrap_alloc(t[i], 1, body);
    if (sh[i]) body = wrap_alloc(sh[i], form == 2 ? G * R : G * (R / 32), body);
    body = wrap_alloc(red[i], 1, body);
  }
  if (mask) body = wrap_alloc(mask, 1, body);
  for (int64_t i = 0; i < size; ++i) {
    tvm_ffi_release(red[i]);
    tvm_ffi_release(t[i]);
    tvm_ffi_release(sh[i]);
  }
  tvm_ffi_release(mask);
  tvm_ffi_release(ri);
  tvm_ffi_release(gi);
  return body;
}

static void* pre_attr(tvm_tir_mutator* m, const void* node) {
  ar_ctx* c = m->ctx;
  const tvm_tir_attr_stmt_obj* a = node;
  const char* key = tvm_ffi_str_cstr(a->attr_key);
  const tvm_tir_var_obj* var = NULL;
  const char* tag = tvm_tir__launch_tag(a, &var);
  if (tag && var) {
    if (c->n == MAX_LAUNCHES)
      return tvm_tir__xform_error("NotImplementedError", kPass, a, "more than %d nested launches",
                                  MAX_LAUNCHES);
    int64_t e = -1;
    if (!tvm_tir_as_const_int(a->value, &e)) e = -1;
    c->launches[c->n++] = (launch_rec){var, tvm_tir__thread_tag_axis(tag), e};
    void* r = tvm_tir_mutate_children(m, node);
    c->n--;
    return r;
  }
  const void* rn = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
  if (strcmp(key, "reduce_scope") == 0 && tvm_tir_kind_of(rn) == TVM_TIR_KIND_CommReducer &&
      tvm_tir_kind_of(a->body) == TVM_TIR_KIND_Evaluate &&
      is_allreduce(((const tvm_tir_evaluate_obj*)a->body)->value)) {
    return lower_one(c, a, rn,
                     (const tvm_tir_call_obj*)((const tvm_tir_evaluate_obj*)a->body)->value);
  }
  return tvm_tir_mutate_children(m, node);
}

/* A thread-bound loop (before lower_thread_bindings) is a launch too. */
static void* pre_for(tvm_tir_mutator* m, const void* node) {
  ar_ctx* c = m->ctx;
  const tvm_tir_for_obj* f = node;
  const tvm_tir_var_obj* var = NULL;
  const char* tag = tvm_tir__launch_tag(f, &var);
  if (!tag || !var) return tvm_tir_mutate_children(m, node);
  if (c->n == MAX_LAUNCHES)
    return tvm_tir__xform_error("NotImplementedError", kPass, f, "more than %d nested launches",
                                MAX_LAUNCHES);
  int64_t e = -1, lo = -1;
  if (!tvm_tir_as_const_int(f->extent, &e) || !tvm_tir_as_const_int(f->min, &lo) || lo != 0) e = -1;
  c->launches[c->n++] = (launch_rec){var, tvm_tir__thread_tag_axis(tag), e};
  void* r = tvm_tir_mutate_children(m, node);
  c->n--;
  return r;
}

static void* pre_evaluate(tvm_tir_mutator* m, const void* node) {
  (void)m;
  if (is_allreduce(((const tvm_tir_evaluate_obj*)node)->value)) {
    return tvm_tir__xform_error("ValueError", kPass, node,
                                "tvm_thread_allreduce outside a reduce_scope attribute naming its "
                                "reducer");
  }
  return tvm_tir_ref((void*)node);
}

static void* run(const tvm_tir_prim_func_obj* f) {
  ar_ctx c = {0};
  tvm_tir_mutator m = {0};
  m.ctx = &c;
  m.pre[TVM_TIR_KIND_AttrStmt] = pre_attr;
  m.pre[TVM_TIR_KIND_Evaluate] = pre_evaluate;
  m.pre[TVM_TIR_KIND_For] = pre_for;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_lower_thread_allreduce(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}

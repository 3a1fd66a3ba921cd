/* transform_flatten_buffers.c: pass flatten_buffers (tvm/tir/transform.h).
 *
 * Every buffer B used in the body is replaced by its flat view F(B): same data Var and dtype,
 * strides empty, elem_offset 0, and one axis per axis_separators group (one axis when there are
 * none) whose extent covers every element B reaches:
 *
 *   no separators   [elem_offset + span], span = prod(shape) for a compact buffer, else
 *                   1 + sum((shape_k - 1) * stride_k)
 *   separators      [prod(shape of each group)] (compact buffers with elem_offset 0 only)
 *
 * B[i_0, ..., i_n-1] becomes F(B)[elem_offset + sum(i_k * stride_k)] (per group with
 * separators), strides being B's or the row-major ones of its shape. Allocate extents become
 * their product. buffer_map keeps the parameters' original buffers (their shape, strides and
 * elem_offset are what the packed-API pass checks against the arguments); the body is wrapped in
 * DeclBuffer(F(B)) for each parameter buffer it uses. SBlocks and BufferRealize must be gone
 * (convert_blocks); they are an error here. */
#include "transform_internal.h"

static const char kPass[] = "flatten_buffers";

typedef struct {
  tvm_tir_mutator m;
  void* flat; /* ffi.Dict Buffer -> flat Buffer */
} flattener;

static bool is_const(const void* e, int64_t v) {
  int64_t x;
  return tvm_tir_as_const_int(e, &x) && x == v;
}

/* a + b * c, skipping a == 0 (a may be NULL = 0) and c == 1; consumes nothing. */
static tvm_tir_expr_obj* add_mul(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b, tvm_tir_expr_obj* c) {
  tvm_tir_expr_obj* p =
      is_const(c, 1) ? tir_expr_retain(b) : tvm_tir__wide_binary(TVM_TIR_KIND_Mul, b, c);
  if (!p || !a || is_const(a, 0)) return p;
  return tvm_tir__wide_take(TVM_TIR_KIND_Add, tir_expr_retain(a), p);
}

/* Product of shape[lo..hi) (1 when empty), widened. */
static tvm_tir_expr_obj* product(const void* shape, int64_t lo, int64_t hi) {
  tvm_tir_expr_obj* p = NULL;
  for (int64_t k = lo; k < hi; ++k) {
    tvm_tir_expr_obj* d = tvm_tir_array_at(shape, k);
    tvm_tir_expr_obj* q = p ? tvm_tir__wide_binary(TVM_TIR_KIND_Mul, p, d) : tir_expr_retain(d);
    tvm_ffi_release(p);
    if (!(p = q)) return NULL;
  }
  return p ? p : tvm_tir_int(1);
}

/* The axis_separators as group boundaries: bounds[0] = 0, ..., bounds[g] = ndim. */
static int groups(const tvm_tir_buffer_obj* b, int64_t* bounds, int64_t* out_g) {
  int64_t ns = tvm_tir_array_size(b->axis_separators), nd = tvm_tir_buffer_ndim(b);
  if (ns + 2 > 66) {
    tvm_tir__xform_error("NotImplementedError", kPass, b, "more than 64 axis separators");
    return -1;
  }
  bounds[0] = 0;
  for (int64_t k = 0; k < ns; ++k) {
    int64_t s;
    tvm_tir_as_const_int(tvm_tir_array_at(b->axis_separators, k), &s);
    if (s < bounds[k] || s > nd) {
      tvm_tir__xform_error("ValueError", kPass, b, "axis_separators must be increasing and <= ndim");
      return -1;
    }
    bounds[k + 1] = s;
  }
  bounds[ns + 1] = nd;
  *out_g = ns + 1;
  if (ns && (tvm_tir_array_size(b->strides) || !is_const(b->elem_offset, 0))) {
    tvm_tir__xform_error("NotImplementedError", kPass, b,
                    "axis_separators on a buffer with strides or an elem_offset");
    return -1;
  }
  return 0;
}

/* Elements a buffer without separators reaches: elem_offset + span (see the top). */
static tvm_tir_expr_obj* flat_extent(const tvm_tir_buffer_obj* b) {
  int64_t nd = tvm_tir_buffer_ndim(b);
  tvm_tir_expr_obj* span;
  if (tvm_tir_array_size(b->strides) == 0) {
    span = product(b->shape, 0, nd);
  } else {
    span = tvm_tir_int(1);
    for (int64_t k = 0; span && k < nd; ++k) {
      tvm_tir_expr_obj* dim = tvm_tir_array_at(b->shape, k);
      tvm_tir_expr_obj* last = tvm_tir_sub_take(tvm_tir_ref(dim), tvm_tir_const(dim->dtype, 1));
      tvm_tir_expr_obj* next = last ? add_mul(span, last, tvm_tir_array_at(b->strides, k)) : NULL;
      RELEASE2(span, last);
      span = next;
    }
  }
  if (!span || is_const(b->elem_offset, 0)) return span;
  return tvm_tir__wide_take(TVM_TIR_KIND_Add, tir_expr_retain(b->elem_offset), span);
}

static tvm_tir_buffer_obj* make_flat(const tvm_tir_buffer_obj* b) {
  int64_t bounds[66], g;
  if (groups(b, bounds, &g) != 0) return NULL;
  void* items[65] = {0};
  void* seps[65] = {0};
  bool ok = true;
  if (g > 1) {
    for (int64_t k = 0; ok && k < g; ++k) {
      ok = (items[k] = product(b->shape, bounds[k], bounds[k + 1])) != NULL;
    }
    for (int64_t k = 1; ok && k < g; ++k) ok = (seps[k - 1] = tvm_tir_int(k)) != NULL;
  } else {
    ok = (items[0] = flat_extent(b)) != NULL;
  }
  for (int64_t k = 0; ok && k < g; ++k) {
    tvm_tir_expr_obj* simple = tvm_tir_simplify_expr(items[k], NULL);
    tvm_ffi_release(items[k]);
    ok = (items[k] = simple) != NULL;
  }
  void* shape = ok ? tir_array(items, g) : NULL;
  void* separators = ok ? tir_array(seps, g - 1) : NULL;
  tvm_tir_buffer_obj* flat = NULL;
  if (shape && separators) {
    tvm_tir_buffer_fields f = {0};
    f.data = b->data;
    f.dtype = b->dtype;
    f.shape = shape;
    f.axis_separators = separators;
    f.name = tvm_tir_buffer_name(b);
    f.data_alignment = b->data_alignment;
    f.offset_factor = b->offset_factor;
    flat = tvm_tir_buffer_new(&f);
  }
  for (int64_t k = 0; k < 65; ++k) RELEASE2(items[k], seps[k]);
  RELEASE2(shape, separators);
  return flat;
}

/* The flat view of b (memoised; a new reference). */
static tvm_tir_buffer_obj* flat_of(flattener* fl, const tvm_tir_buffer_obj* b) {
  TVMFFIAny key = tvm_ffi_any_obj(b);
  const TVMFFIAny* hit = tvm_ffi_map_get(fl->flat, &key);
  if (hit) return tvm_tir_ref(hit->v_obj);
  tvm_tir_buffer_obj* flat = make_flat(b);
  TVMFFIAny val = tvm_ffi_any_obj(flat);
  if (flat && tvm_ffi_dict_set(fl->flat, &key, &val) != 0) {
    tvm_ffi_release(flat);
    return NULL;
  }
  return flat;
}

/* The flat indices of b[indices] (a new ffi.Array). */
static void* flat_indices(const tvm_tir_buffer_obj* b, const void* indices) {
  int64_t bounds[66], g;
  if (groups(b, bounds, &g) != 0) return NULL;
  void* strides = tvm_tir__layout_strides(b);
  if (!strides) return NULL;
  void* items[65] = {0};
  bool ok = true;
  for (int64_t grp = 0; ok && grp < g; ++grp) {
    /* Within a group of a separated buffer, strides are row-major over the group's axes. */
    tvm_tir_expr_obj* acc =
        g == 1 && !is_const(b->elem_offset, 0) ? tir_expr_retain(b->elem_offset) : NULL;
    tvm_tir_expr_obj* stride = g > 1 ? tvm_tir_int(1) : NULL;
    for (int64_t k = bounds[grp + 1] - 1; ok && k >= bounds[grp]; --k) {
      tvm_tir_expr_obj* s = g > 1 ? stride : tvm_tir_array_at(strides, k);
      tvm_tir_expr_obj* next = s ? add_mul(acc, tvm_tir_array_at(indices, k), s) : NULL;
      tvm_ffi_release(acc);
      acc = next;
      if (g > 1 && stride) {
        tvm_tir_expr_obj* ns =
            tvm_tir__wide_binary(TVM_TIR_KIND_Mul, stride, tvm_tir_array_at(b->shape, k));
        tvm_ffi_release(stride);
        stride = ns;
      }
      ok = acc != NULL;
    }
    tvm_ffi_release(stride);
    if (ok && !acc) acc = b->elem_offset ? tir_expr_retain(b->elem_offset) : tvm_tir_int(0);
    ok = ok && acc;
    items[grp] = acc;
  }
  void* arr = ok ? tir_array(items, g) : NULL;
  for (int64_t k = 0; k < 65; ++k) tvm_ffi_release(items[k]);
  tvm_ffi_release(strides);
  return arr;
}

static void* flatten_load(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_buffer_load_obj* l = node;
  tvm_tir_buffer_obj* flat = flat_of((flattener*)m, l->buffer);
  void* idx = flat ? flat_indices(l->buffer, l->indices) : NULL;
  void* r = idx ? tvm_tir_buffer_load_new(flat, idx) : NULL;
  RELEASE2(flat, idx);
  return r;
}

static void* flatten_store(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_buffer_store_obj* s = node;
  tvm_tir_buffer_obj* flat = flat_of((flattener*)m, s->buffer);
  void* idx = flat ? flat_indices(s->buffer, s->indices) : NULL;
  void* r = idx ? tvm_tir_buffer_store_new(flat, s->value, idx) : NULL;
  RELEASE2(flat, idx);
  return r;
}

static void* flatten_decl(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_decl_buffer_obj* d = node;
  tvm_tir_buffer_obj* flat = flat_of((flattener*)m, d->buffer);
  void* r = flat ? tvm_tir_decl_buffer_new(flat, d->body) : NULL;
  tvm_ffi_release(flat);
  return r;
}

static void* flatten_allocate(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_allocate_obj* a = node;
  if (tvm_tir_array_size(a->extents) <= 1) return tvm_tir_ref((void*)a);
  tvm_tir_expr_obj* n = product(a->extents, 0, tvm_tir_array_size(a->extents));
  void* extents = n ? tir_array((void*[]){n}, 1) : NULL;
  void* r = extents ? tvm_tir_allocate_new(a->buffer_var, a->dtype, extents, a->condition, a->body,
                                           a->annotations)
                    : NULL;
  RELEASE2(n, extents);
  return r;
}

static void* keep(tvm_tir_mutator* m, const void* node) {
  (void)m;
  return tvm_tir_ref((void*)node);
}

static void* unsupported(tvm_tir_mutator* m, const void* node) {
  (void)m;
  return tvm_tir__xform_error("ValueError", kPass, node, "%s is not supported: run convert_blocks first",
                         tvm_tir_kind_name(tvm_tir_kind_of(node)));
}

static void* run(const tvm_tir_prim_func_obj* f) {
  flattener fl = {0};
  fl.flat = tvm_ffi_dict_new();
  if (!fl.flat) return NULL;
  fl.m.pre[TVM_TIR_KIND_Buffer] = keep; /* buffers are replaced where they are used */
  fl.m.pre[TVM_TIR_KIND_SBlock] = unsupported;
  fl.m.pre[TVM_TIR_KIND_SBlockRealize] = unsupported;
  fl.m.pre[TVM_TIR_KIND_BufferRealize] = unsupported;
  fl.m.post[TVM_TIR_KIND_BufferLoad] = flatten_load;
  fl.m.post[TVM_TIR_KIND_BufferStore] = flatten_store;
  fl.m.post[TVM_TIR_KIND_DeclBuffer] = flatten_decl;
  fl.m.post[TVM_TIR_KIND_Allocate] = flatten_allocate;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&fl.m, f->body);
  /* Declare the flat views of the parameters' buffers the body uses, in parameter order. */
  for (int64_t k = tvm_tir_array_size(f->params) - 1; body && k >= 0; --k) {
    TVMFFIAny var = tvm_ffi_any_obj(tvm_tir_array_at(f->params, k));
    const TVMFFIAny* buf = tvm_ffi_map_get(f->buffer_map, &var);
    const TVMFFIAny* flat = buf ? tvm_ffi_map_get(fl.flat, buf) : NULL;
    if (!flat) continue;
    tvm_tir_stmt_obj* decl = tvm_tir_decl_buffer_new((tvm_tir_buffer_obj*)flat->v_obj, body);
    tvm_ffi_release(body);
    body = decl;
  }
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  RELEASE2(body, fl.flat);
  return r;
}

void* tvm_tir_transform_flatten_buffers(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}

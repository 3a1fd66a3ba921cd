/* transform_convert_blocks.c: pass convert_blocks (tvm/tir/transform.h). Each SBlockRealize
 * becomes, outermost first:
 *
 *   LetStmt(iv, value)...          only for iter values that read memory, call functions or
 *                                  hold a Let; the others are substituted into the block
 *   IfThenElse(predicate)          unless the predicate is the constant true
 *   Allocate + DeclBuffer          per alloc_buffer, in order (one extent, what the layout
 *                                  reaches, for strides or an elem_offset)
 *   DeclBuffer(view)               per match_buffer: the source region seen through the matched
 *                                  buffer's shape (data Var, strides and elem_offset of the
 *                                  source), which replaces the matched buffer in the body
 *   body
 *
 * Blocks are converted outermost first, so a nested block matching a region of a matched buffer
 * sees the outer view. The init must have been lowered (lower_init). A DeclBuffer whose data Var
 * nothing binds becomes Allocate + DeclBuffer too (convert_decl). */
#include "transform_internal.h"

static const char kPass[] = "convert_blocks";

/* Whether an iter value must be bound once by a LetStmt rather than substituted: it reads
 * memory (a store of the body could come first), calls a function, or binds a Var itself (two
 * copies would bind it twice, breaking SSA). */
static int needs_let(const void* obj, void* ctx) {
  (void)ctx;
  return TIR_IS(obj, BufferLoad) || TIR_IS(obj, Call) || TIR_IS(obj, Let);
}

static int binds_var(const void* obj, void* ctx) {
  (void)ctx;
  return TIR_IS(obj, Let);
}

/* var -> value (cast to var's dtype) when `expr` is a Var not substituted yet. */
static int bind_pattern(tvm_tir_subst* s, const void* expr, tvm_tir_expr_obj* value) {
  if (!tvm_tir_is_var(expr)) return 0;
  if (tvm_tir__walk(value, false, binds_var, NULL)) {
    tvm_tir__xform_error("NotImplementedError", kPass, value,
                         "a match_buffer region or layout holding a Let expression");
    return -1;
  }
  TVMFFIAny key = tvm_ffi_any_obj(expr);
  if (tvm_ffi_map_get(s->vars, &key)) return 0;
  tvm_tir_expr_obj* v = tvm_tir_cast(tvm_tir_expr_dtype(expr), value);
  int rc = v ? tvm_tir_subst_set_var(s, expr, v) : -1;
  tvm_ffi_release(v);
  return rc;
}

/* The view standing for match buffer mb inside its block (a new reference). */
static tvm_tir_buffer_obj* match_view(tvm_tir_subst* s, const tvm_tir_match_buffer_region_obj* mb) {
  const tvm_tir_buffer_obj* S = mb->buffer;
  tvm_tir_buffer_region_obj* region = tvm_tir_subst_apply(s, mb->source);
  if (!region) return NULL;
  const tvm_tir_buffer_obj* src = region->buffer;
  int64_t nsrc = tvm_tir_array_size(region->region), n = tvm_tir_buffer_ndim(S);
  void* strides = tvm_tir__layout_strides(src);
  tvm_tir_expr_obj* offset = tir_expr_retain(src->elem_offset);
  for (int64_t k = 0; strides && offset && k < nsrc; ++k) {
    const tvm_tir_range_obj* r = tvm_tir_array_at(region->region, k);
    offset = tvm_tir__wide_take(
        TVM_TIR_KIND_Add, offset,
        tvm_tir__wide_binary(TVM_TIR_KIND_Mul, r->min, tvm_tir_array_at(strides, k)));
  }
  if (offset) {
    tvm_tir_expr_obj* simple = tvm_tir_simplify_expr(offset, NULL);
    tvm_ffi_release(offset);
    offset = simple;
  }
  void* view_strides = NULL;
  void* shape = NULL;
  tvm_tir_buffer_obj* view = NULL;
  if (!strides || !offset || n > nsrc || n > 64) {
    if (strides && offset) {
      tvm_tir__xform_error(n > 64 ? "NotImplementedError" : "ValueError", kPass, S,
                           n > 64 ? "match_buffer of more than 64 dimensions"
                                  : "match_buffer has more dimensions than its region");
    }
    goto done;
  }
  void* items[64] = {0};
  for (int64_t k = 0; k < n; ++k) items[k] = tvm_tir_array_at(strides, nsrc - n + k);
  view_strides = tir_array(items, n);
  /* Pattern variables of the matched buffer take the view's values. */
  int rc = view_strides ? 0 : -1;
  for (int64_t k = 0; rc == 0 && k < n; ++k) {
    const tvm_tir_range_obj* r = tvm_tir_array_at(region->region, nsrc - n + k);
    rc = bind_pattern(s, tvm_tir_array_at(S->shape, k), r->extent);
    if (rc == 0 && tvm_tir_array_size(S->strides) == n) {
      rc = bind_pattern(s, tvm_tir_array_at(S->strides, k), tvm_tir_array_at(view_strides, k));
    }
  }
  if (rc == 0 && S->elem_offset) rc = bind_pattern(s, S->elem_offset, offset);
  if (rc == 0) rc = tvm_tir_subst_set_var(s, S->data, src->data);
  /* Element by element: the mutator leaves an ffi.Array itself unchanged. */
  void* dims[64] = {0};
  for (int64_t k = 0; rc == 0 && k < n; ++k) {
    dims[k] = tvm_tir_subst_apply(s, tvm_tir_array_at(S->shape, k));
    if (!dims[k]) rc = -1;
  }
  if (rc == 0) shape = tir_array(dims, n);
  for (int64_t k = 0; k < n; ++k) tvm_ffi_release(dims[k]);
  if (shape) {
    tvm_tir_buffer_fields f = {0};
    f.data = src->data;
    f.dtype = S->dtype;
    f.shape = shape;
    f.strides = view_strides;
    f.axis_separators = S->axis_separators;
    f.elem_offset = offset;
    f.name = tvm_tir_buffer_name(S);
    f.data_alignment = S->data_alignment;
    f.offset_factor = S->offset_factor;
    view = tvm_tir_buffer_new(&f);
  }
  if (view && tvm_tir_subst_set_buffer(s, S, view) != 0) {
    tvm_ffi_release(view);
    view = NULL;
  }
done:
  tvm_ffi_release(region);
  tvm_ffi_release(strides);
  tvm_ffi_release(offset);
  tvm_ffi_release(view_strides);
  tvm_ffi_release(shape);
  return view;
}

/* The elements a strided / offset layout reaches: elem_offset + 1 + sum(max(shape_k - 1, 0) *
 * stride_k) (a new reference), as the interpreter allocates it. */
static tvm_tir_expr_obj* layout_extent(const tvm_tir_buffer_obj* buf) {
  void* strides = tvm_tir__layout_strides(buf);
  if (!strides) return NULL;
  tvm_tir_expr_obj* e = tvm_tir__wide_take(TVM_TIR_KIND_Add, tir_expr_retain(buf->elem_offset),
                                           tvm_tir_int(1));
  for (int64_t k = 0; e && k < tvm_tir_buffer_ndim(buf); ++k) {
    tvm_tir_expr_obj* last = tvm_tir__wide_take(
        TVM_TIR_KIND_Max,
        tvm_tir__wide_take(TVM_TIR_KIND_Sub, tir_expr_retain(tvm_tir_array_at(buf->shape, k)),
                           tvm_tir_int(1)),
        tvm_tir_int(0));
    e = tvm_tir__wide_take(
        TVM_TIR_KIND_Add, e,
        tvm_tir__wide_take(TVM_TIR_KIND_Mul, last, tir_expr_retain(tvm_tir_array_at(strides, k))));
  }
  tvm_ffi_release(strides);
  return e;
}

/* Allocate(buf.data, extents, DeclBuffer(buf, body)): extents = buf.shape (widened to one dtype;
 * [1] for a scalar buffer), or for a buffer with strides or an elem_offset the one extent its
 * layout reaches (layout_extent). */
static tvm_tir_stmt_obj* allocate(const tvm_tir_buffer_obj* buf, tvm_tir_stmt_obj* body) {
  int64_t offset;
  bool laid_out = tvm_tir_array_size(buf->strides) != 0 ||
                  !tvm_tir_as_const_int(buf->elem_offset, &offset) || offset != 0;
  int64_t n = tvm_tir_buffer_ndim(buf);
  int bits = 32;
  for (int64_t k = 0; k < n; ++k) {
    DLDataType t = tvm_tir_expr_dtype(tvm_tir_array_at(buf->shape, k));
    if (t.bits > bits) bits = t.bits;
  }
  void* list = tvm_ffi_list_new();
  bool ok = list != NULL;
  if (ok && laid_out) {
    tvm_tir_expr_obj* e = layout_extent(buf);
    TVMFFIAny item = tvm_ffi_any_obj(e);
    ok = e && tvm_ffi_list_push(list, &item) == 0;
    tvm_ffi_release(e);
  }
  for (int64_t k = 0; ok && !laid_out && k < n; ++k) {
    tvm_tir_expr_obj* e = tvm_tir__cast_bits(tvm_tir_array_at(buf->shape, k), bits);
    TVMFFIAny item = tvm_ffi_any_obj(e);
    ok = e && tvm_ffi_list_push(list, &item) == 0;
    tvm_ffi_release(e);
  }
  if (ok && !laid_out && n == 0) {
    tvm_tir_expr_obj* one = tvm_tir_int(1);
    TVMFFIAny item = tvm_ffi_any_obj(one);
    ok = one && tvm_ffi_list_push(list, &item) == 0;
    tvm_ffi_release(one);
  }
  void* extents = ok ? tvm_ffi_list_to_array(list) : NULL;
  tvm_tir_stmt_obj* decl = extents ? tvm_tir_decl_buffer_new((tvm_tir_buffer_obj*)buf, body) : NULL;
  tvm_tir_stmt_obj* r =
      decl ? tvm_tir_allocate_new(buf->data, buf->dtype, extents, NULL, decl, NULL) : NULL;
  tvm_ffi_release(list);
  tvm_ffi_release(extents);
  tvm_ffi_release(decl);
  return r;
}

typedef struct {
  const tvm_tir_var_obj* var;
  const tvm_tir_expr_obj* value;
} let_binding;

static void* convert(tvm_tir_mutator* m, const tvm_tir_sblock_obj* b, void* values,
                     tvm_tir_expr_obj* predicate) {
  const char* name = tvm_ffi_str_cstr(b->name_hint);
  if (b->init) {
    return tvm_tir__xform_error("ValueError", kPass, b,
                                "block '%s' still has an init: run lower_init first", name);
  }
  int64_t n = tvm_tir_array_size(b->iter_vars);
  if ((values ? tvm_tir_array_size(values) : 0) != n) {
    return tvm_tir__xform_error(
        "ValueError", kPass, NULL, "block '%s' has %lld iter vars but is realized with %lld values",
        name, (long long)n, (long long)(values ? tvm_tir_array_size(values) : 0));
  }
  tvm_tir_subst s;
  if (tvm_tir_subst_init(&s, false) != 0) return NULL;
  let_binding* lets = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(let_binding));
  int64_t num_lets = 0, num_views = 0, num_allocs = tvm_tir_array_size(b->alloc_buffers);
  int64_t num_matches = tvm_tir_array_size(b->match_buffers);
  void** views = tvm_ffi_calloc((size_t)(num_matches + 1), sizeof(void*));
  void** allocs = tvm_ffi_calloc((size_t)(num_allocs + 1), sizeof(void*));
  tvm_tir_stmt_obj *body = NULL, *stmt = NULL;
  tvm_tir_expr_obj* pred = NULL;
  bool ok = lets && views && allocs;
  for (int64_t k = 0; ok && k < n; ++k) {
    const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(b->iter_vars, k);
    const tvm_tir_expr_obj* v = tvm_tir_array_at(values, k);
    if (tvm_tir__walk(v, false, needs_let, NULL)) {
      lets[num_lets++] = (let_binding){iv->var, v};
    } else {
      ok = tvm_tir_subst_set_var(&s, iv->var, v) == 0;
    }
  }
  for (int64_t k = 0; ok && k < num_matches; ++k) {
    views[k] = match_view(&s, tvm_tir_array_at(b->match_buffers, k));
    ok = views[k] != NULL;
    num_views += ok;
  }
  for (int64_t k = 0; ok && k < num_allocs; ++k) {
    allocs[k] = tvm_tir_subst_apply(&s, tvm_tir_array_at(b->alloc_buffers, k));
    ok = allocs[k] != NULL;
  }
  tvm_tir_stmt_obj* substituted = ok ? tvm_tir_subst_apply(&s, b->body) : NULL;
  /* Nested blocks next (their regions now name the views). */
  body = substituted ? tvm_tir_mutate(m, substituted) : NULL;
  tvm_ffi_release(substituted);
  for (int64_t k = num_views - 1; body && k >= 0; --k) {
    stmt = tvm_tir_decl_buffer_new(views[k], body);
    tvm_ffi_release(body);
    body = stmt;
  }
  for (int64_t k = num_allocs - 1; body && k >= 0; --k) {
    stmt = allocate(allocs[k], body);
    tvm_ffi_release(body);
    body = stmt;
  }
  if (body && predicate && !tir_is_true_const(predicate)) {
    pred = tvm_tir_subst_apply(&s, predicate);
    stmt = pred ? tvm_tir_if_then_else_new(pred, body, NULL) : NULL;
    tvm_ffi_release(body);
    body = stmt;
  }
  for (int64_t k = num_lets - 1; body && k >= 0; --k) {
    stmt =
        tvm_tir_let_stmt_new((tvm_tir_var_obj*)lets[k].var, (tvm_tir_expr_obj*)lets[k].value, body);
    tvm_ffi_release(body);
    body = stmt;
  }
  for (int64_t k = 0; views && k < num_matches; ++k) tvm_ffi_release(views[k]);
  for (int64_t k = 0; allocs && k < num_allocs; ++k) tvm_ffi_release(allocs[k]);
  tvm_ffi_free(views);
  tvm_ffi_free(allocs);
  tvm_ffi_free(lets);
  tvm_ffi_release(pred);
  tvm_tir_subst_free(&s);
  return body;
}

static void* convert_realize(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_sblock_realize_obj* r = node;
  return convert(m, r->block, r->iter_values, r->predicate);
}

static void* convert_bare_block(tvm_tir_mutator* m, const void* node) {
  return convert(m, node, NULL, NULL);
}

/* ---- DeclBuffers that allocate ------------------------------------------------------------
 * A DeclBuffer whose data Var nothing else binds (no parameter, buffer_map, Allocate, LetStmt,
 * Let, alloc_buffer, match_buffer or BufferRealize) is `T.decl_buffer(shape)` without data:
 * upstream's IR builder makes it Allocate + DeclBuffer, and the interpreter allocates it; the
 * outermost such DeclBuffer of each Var becomes Allocate + DeclBuffer here. */
typedef struct {
  tvm_tir_mutator m; /* first: callbacks get &m */
  const void** bound; /* data Vars bound elsewhere, then also those allocated so far */
  int64_t n, cap;
} conv_state;

static int add_bound(conv_state* c, const void* var) {
  if (c->n == c->cap) {
    int64_t cap = c->cap ? 2 * c->cap : 32;
    const void** b = tvm_ffi_realloc(c->bound, (size_t)cap * sizeof(void*));
    if (!b) return -1;
    c->bound = b;
    c->cap = cap;
  }
  c->bound[c->n++] = var;
  return 0;
}

static bool is_bound(const conv_state* c, const void* var) {
  for (int64_t k = 0; k < c->n; ++k)
    if (c->bound[k] == var) return true;
  return false;
}

static int collect_binding(const void* obj, void* ctx) {
  conv_state* c = ctx;
  int rc = 0;
  if (TIR_IS(obj, Allocate)) {
    rc = add_bound(c, ((const tvm_tir_allocate_obj*)obj)->buffer_var);
  } else if (TIR_IS(obj, LetStmt)) {
    rc = add_bound(c, ((const tvm_tir_let_stmt_obj*)obj)->var);
  } else if (TIR_IS(obj, Let)) {
    rc = add_bound(c, ((const tvm_tir_let_obj*)obj)->var);
  } else if (TIR_IS(obj, BufferRealize)) {
    rc = add_bound(c, ((const tvm_tir_buffer_realize_obj*)obj)->buffer->data);
  } else if (TIR_IS(obj, SBlock)) {
    const tvm_tir_sblock_obj* b = obj;
    for (int64_t k = 0; rc == 0 && k < tvm_tir_array_size(b->alloc_buffers); ++k)
      rc = add_bound(c, ((const tvm_tir_buffer_obj*)tvm_tir_array_at(b->alloc_buffers, k))->data);
    for (int64_t k = 0; rc == 0 && k < tvm_tir_array_size(b->match_buffers); ++k) {
      const tvm_tir_match_buffer_region_obj* mb = tvm_tir_array_at(b->match_buffers, k);
      rc = add_bound(c, mb->buffer->data);
    }
  }
  return rc != 0 ? -1 : 0;
}

static void* convert_decl(tvm_tir_mutator* m, const void* node) {
  conv_state* c = (conv_state*)m;
  const tvm_tir_decl_buffer_obj* d = node;
  if (is_bound(c, d->buffer->data)) return tvm_tir_mutate_children(m, node);
  if (add_bound(c, d->buffer->data) != 0) {
    tvm_ffi_raise("MemoryError", "%s: out of memory", kPass);
    return NULL;
  }
  tvm_tir_stmt_obj* body = tvm_tir_mutate(m, d->body);
  tvm_tir_stmt_obj* r = body ? allocate(d->buffer, body) : NULL;
  tvm_ffi_release(body);
  return r;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  conv_state c = {0};
  int rc = 0;
  for (int64_t k = 0; rc == 0 && k < tvm_tir_array_size(f->params); ++k)
    rc = add_bound(&c, tvm_tir_array_at(f->params, k));
  const TVMFFIAny *key, *val;
  for (int64_t pos = tvm_ffi_map_next(f->buffer_map, 0, &key, &val); rc == 0 && pos >= 0;
       pos = tvm_ffi_map_next(f->buffer_map, pos, &key, &val))
    rc = add_bound(&c, ((const tvm_tir_buffer_obj*)val->v_obj)->data);
  if (rc == 0) rc = tvm_tir__walk(f->body, false, collect_binding, &c);
  if (rc != 0) {
    tvm_ffi_free(c.bound);
    tvm_ffi_raise("MemoryError", "%s: out of memory", kPass);
    return NULL;
  }
  c.m.pre[TVM_TIR_KIND_SBlockRealize] = convert_realize;
  c.m.pre[TVM_TIR_KIND_SBlock] = convert_bare_block;
  c.m.pre[TVM_TIR_KIND_DeclBuffer] = convert_decl;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&c.m, f->body);
  tvm_ffi_free(c.bound);
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_convert_blocks(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}

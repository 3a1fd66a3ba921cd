/*
 * interp_stmt.c: statement execution (spec "Semantics of Statements") through a table indexed
 * by node kind, buffers and memory, scopes, PrimFunc calls and tvm_tir_interp_run.
 *
 * Memory: a buffer's data variable is bound to a handle (a host pointer). An element's address
 * is data + (elem_offset + sum(index[k] * stride[k])) * element_size, with the buffer's strides
 * or, when it has none, the compact row-major strides of its shape (spec PrimFunc item ii-iii).
 * Every access is checked against the buffer's shape (IndexError) and must fall inside a live
 * allocation: an argument tensor's extent, or a block of memory the interpreter allocated.
 * match_buffer aliases are resolved as the spec says, by offsetting the indices into the
 * source buffer.
 */
#include <stdio.h>
#include <string.h>

#include "interp_internal.h"

typedef int (*exec_fn)(tir_interp* in, const tvm_tir_stmt_obj* s);

/* ---- Variables ------------------------------------------------------------------------------ */
const tir_value* tir_lookup(tir_interp* in, const tvm_tir_var_obj* var) {
  tir_frame* f = in->frame;
  for (int64_t k = f->num_vars - 1; k >= 0; --k) {
    if (f->vars[k].var == var) return &f->vars[k].value;
  }
  return NULL;
}

int tir_bind(tir_interp* in, const tvm_tir_var_obj* var, const tir_value* v) {
  tir_frame* f = in->frame;
  if (f->num_vars == f->cap_vars) {
    int64_t cap = f->cap_vars ? 2 * f->cap_vars : 16;
    tir_binding* vars = tvm_ffi_realloc(f->vars, (size_t)cap * sizeof(tir_binding));
    if (!vars) return TIR_ERROR;
    f->vars = vars;
    f->cap_vars = cap;
  }
  f->vars[f->num_vars].var = var;
  f->vars[f->num_vars].value = *v;
  f->num_vars++;
  return TIR_OK;
}

static int bind_handle(tir_interp* in, const tvm_tir_var_obj* var, void* p) {
  tir_value v;
  v.dtype = tvm_tir_dtype_handle();
  v.lane[0].p = p;
  return tir_bind(in, var, &v);
}

static bool is_unbound_var(tir_interp* in, const tvm_tir_expr_obj* e) {
  return tvm_tir_is_var(e) && !tir_lookup(in, (const tvm_tir_var_obj*)e);
}

/* Bind an integer to var, which must be able to hold it exactly. */
static int bind_int(tir_interp* in, const tvm_tir_var_obj* var, int64_t value, const char* what) {
  tir_value v;
  tir_value_int(&v, var->expr.dtype, value);
  if (v.lane[0].i != value || !tvm_tir_dtype_is_index(var->expr.dtype)) {
    return tir_raise_at("ValueError", NULL, "%s: %lld does not fit variable '%s' of type %s", what,
                        (long long)value, tvm_tir_var_name(var),
                        tvm_tir_dtype_str(var->expr.dtype).s);
  }
  return tir_bind(in, var, &v);
}

/*
 * Match a buffer field (shape / stride / elem_offset expression e) against an actual value: an
 * unbound Var is bound to it (the first binding wins), anything else is evaluated and must be
 * equal (ValueError "<owner>: <field>[dim] is <actual> but <e> is <expected>").
 */
static int match_field(tir_interp* in, const tvm_tir_expr_obj* e, int64_t actual, const char* owner,
                       const char* field, int64_t dim) {
  char what[160];
  if (dim >= 0) {
    snprintf(what, sizeof(what), "%s: %s[%lld]", owner, field, (long long)dim);
  } else {
    snprintf(what, sizeof(what), "%s: %s", owner, field);
  }
  if (is_unbound_var(in, e)) return bind_int(in, (const tvm_tir_var_obj*)e, actual, what);
  int64_t expected;
  TRY(tir_eval_int(in, e, &expected));
  if (expected == actual) return TIR_OK;
  return tir_raise_at("ValueError", e, "%s is %lld but the buffer requires %lld", what,
                      (long long)actual, (long long)expected);
}

/* ---- Memory regions ------------------------------------------------------------------------- */
static int push_region(tir_interp* in, char* base, int64_t nbytes, bool owned) {
  if (in->num_regions == in->cap_regions) {
    int64_t cap = in->cap_regions ? 2 * in->cap_regions : 8;
    tir_region* r = tvm_ffi_realloc(in->regions, (size_t)cap * sizeof(tir_region));
    if (!r) {
      if (owned) tvm_ffi_free(base);
      return TIR_ERROR;
    }
    in->regions = r;
    in->cap_regions = cap;
  }
  in->regions[in->num_regions++] = (tir_region){base, nbytes, owned};
  return TIR_OK;
}

static void pop_regions(tir_interp* in, int64_t mark) {
  while (in->num_regions > mark) {
    tir_region* r = &in->regions[--in->num_regions];
    if (r->owned) tvm_ffi_free(r->base);
  }
}

static bool in_live_region(tir_interp* in, uintptr_t addr, int64_t nbytes) {
  for (int64_t k = in->num_regions - 1; k >= 0; --k) {
    uintptr_t base = (uintptr_t)in->regions[k].base;
    uint64_t size = (uint64_t)in->regions[k].nbytes;
    if (addr >= base && addr - base <= size && size - (addr - base) >= (uint64_t)nbytes) {
      return true;
    }
  }
  return false;
}

/* Fresh zero-filled memory of nbytes, registered as a live region (freed by pop_regions). */
static int alloc_region(tir_interp* in, int64_t nbytes, char** out) {
  char* p = tvm_ffi_aligned_alloc(64, (size_t)(nbytes > 0 ? nbytes : 1));
  if (!p) return TIR_ERROR;
  memset(p, 0, (size_t)(nbytes > 0 ? nbytes : 1));
  *out = p;
  return push_region(in, p, nbytes, true);
}

/* ---- Buffers -------------------------------------------------------------------------------- */
static const tir_alias* find_alias(tir_interp* in, const tvm_tir_buffer_obj* buf) {
  for (int64_t k = in->frame->num_aliases - 1; k >= 0; --k) {
    if (in->frame->aliases[k].buffer == buf) return &in->frame->aliases[k];
  }
  return NULL;
}

static void pop_aliases(tir_interp* in, int64_t mark) {
  while (in->frame->num_aliases > mark)
    tvm_ffi_free(in->frame->aliases[--in->frame->num_aliases].mins);
}

static int eval_shape(tir_interp* in, const tvm_tir_buffer_obj* buf, int64_t* shape) {
  int64_t ndim = tvm_tir_buffer_ndim(buf);
  if (ndim > TIR_MAX_DIMS) {
    return tir_raise_at("NotImplementedError", buf, "buffer %s has more than %d dimensions",
                        tvm_tir_buffer_name(buf), TIR_MAX_DIMS);
  }
  for (int64_t k = 0; k < ndim; ++k)
    TRY(tir_eval_int(in, tvm_tir_array_at(buf->shape, k), &shape[k]));
  return TIR_OK;
}

/* Compact row-major strides of a shape. */
static int compact_strides(const tvm_tir_buffer_obj* buf, const int64_t* shape, int64_t ndim,
                           int64_t* strides) {
  int64_t s = 1;
  for (int64_t k = ndim - 1; k >= 0; --k) {
    strides[k] = s;
    if (shape[k] < 0 || __builtin_mul_overflow(s, shape[k], &s)) {
      return tir_raise_at("ValueError", buf, "buffer %s: invalid shape (dimension %lld is %lld)",
                          tvm_tir_buffer_name(buf), (long long)k, (long long)shape[k]);
    }
  }
  return TIR_OK;
}

/* The memory layout of a buffer: element offset and strides, through match_buffer aliases. */
static int buffer_layout(tir_interp* in, const tvm_tir_buffer_obj* buf, int64_t* elem_offset,
                         int64_t* strides) {
  int64_t ndim = tvm_tir_buffer_ndim(buf);
  const tir_alias* a = find_alias(in, buf);
  if (a) {
    int64_t src_strides[TIR_MAX_DIMS];
    TRY(buffer_layout(in, a->source, elem_offset, src_strides));
    for (int64_t k = 0; k < a->num_mins; ++k) *elem_offset += a->mins[k] * src_strides[k];
    memcpy(strides, src_strides + (a->num_mins - ndim), (size_t)ndim * sizeof(int64_t));
    return TIR_OK;
  }
  int64_t shape[TIR_MAX_DIMS];
  TRY(eval_shape(in, buf, shape));
  if (tvm_tir_array_size(buf->strides) == 0) {
    TRY(compact_strides(buf, shape, ndim, strides));
  } else {
    for (int64_t k = 0; k < ndim; ++k) {
      TRY(tir_eval_int(in, tvm_tir_array_at(buf->strides, k), &strides[k]));
    }
  }
  *elem_offset = 0;
  if (buf->elem_offset) TRY(tir_eval_int(in, buf->elem_offset, elem_offset));
  return TIR_OK;
}

static void format_indices(tvm_ffi_strbuf* b, const int64_t* v, int64_t n) {
  tvm_ffi_strbuf_putc(b, '[');
  for (int64_t k = 0; k < n; ++k)
    tvm_ffi_strbuf_printf(b, "%s%lld", k ? ", " : "", (long long)v[k]);
  tvm_ffi_strbuf_putc(b, ']');
}

static int index_error(const tvm_tir_buffer_obj* buf, const int64_t* idx, const int64_t* shape,
                       int64_t n, const char* why) {
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_printf(&b, "buffer %s: index ", tvm_tir_buffer_name(buf));
  format_indices(&b, idx, n);
  if (shape) {
    tvm_ffi_strbuf_puts(&b, " is out of bounds for shape ");
    format_indices(&b, shape, n);
  }
  tvm_ffi_strbuf_puts(&b, why);
  tvm_ffi_raise("IndexError", "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return TIR_ERROR;
}

int tir_element_addr(tir_interp* in, const tvm_tir_buffer_obj* buf, const int64_t* idx, int64_t n,
                     char** out) {
  int64_t ndim = tvm_tir_buffer_ndim(buf), shape[TIR_MAX_DIMS];
  if (n != ndim) {
    return tir_raise_at("RuntimeError", buf, "buffer %s: %lld indices for %lld dimensions",
                        tvm_tir_buffer_name(buf), (long long)n, (long long)ndim);
  }
  TRY(eval_shape(in, buf, shape));
  for (int64_t k = 0; k < n; ++k) {
    if (idx[k] < 0 || idx[k] >= shape[k]) return index_error(buf, idx, shape, n, "");
  }
  const tir_alias* a = find_alias(in, buf);
  if (a) { /* spec Block item iii: an access to the source at the region's mins + indices */
    int64_t src[TIR_MAX_DIMS], offset = a->num_mins - n;
    for (int64_t k = 0; k < a->num_mins; ++k)
      src[k] = a->mins[k] + (k >= offset ? idx[k - offset] : 0);
    return tir_element_addr(in, a->source, src, a->num_mins, out);
  }
  int64_t strides[TIR_MAX_DIMS], flat;
  TRY(buffer_layout(in, buf, &flat, strides));
  int64_t size = tir_elem_bytes(buf->dtype), term, byte_offset;
  bool overflow = false;
  for (int64_t k = 0; k < n; ++k) {
    overflow |= __builtin_mul_overflow(idx[k], strides[k], &term);
    overflow |= __builtin_add_overflow(flat, term, &flat);
  }
  overflow |= __builtin_mul_overflow(flat, size, &byte_offset);
  const tir_value* data = tir_lookup(in, buf->data);
  if (!data) {
    return tir_raise_at("RuntimeError", NULL, "buffer %s: its data variable '%s' is unbound",
                        tvm_tir_buffer_name(buf), tvm_tir_var_name(buf->data));
  }
  uintptr_t addr = (uintptr_t)data->lane[0].p + (uintptr_t)byte_offset;
  if (overflow || !data->lane[0].p || !in_live_region(in, addr, size)) {
    return index_error(buf, idx, NULL, n, " addresses memory outside every live allocation");
  }
  *out = (char*)addr;
  return TIR_OK;
}

/* Elements a buffer's layout reaches (elem_offset + the furthest element + 1); 0 if empty. */
static int buffer_span(tir_interp* in, const tvm_tir_buffer_obj* buf, int64_t* out) {
  int64_t ndim = tvm_tir_buffer_ndim(buf), shape[TIR_MAX_DIMS], strides[TIR_MAX_DIMS], span;
  TRY(eval_shape(in, buf, shape));
  TRY(buffer_layout(in, buf, &span, strides));
  *out = 0;
  bool overflow = span < 0, term_overflow = false;
  for (int64_t k = 0; k < ndim; ++k) {
    if (shape[k] == 0) return TIR_OK;
    int64_t term;
    term_overflow |= strides[k] < 0 || shape[k] < 0 ||
                     __builtin_mul_overflow(shape[k] - 1, strides[k], &term) ||
                     __builtin_add_overflow(span, term, &span);
  }
  if (overflow || term_overflow || __builtin_add_overflow(span, 1, out)) {
    return tir_raise_at("ValueError", buf, "buffer %s: invalid layout to allocate",
                        tvm_tir_buffer_name(buf));
  }
  return TIR_OK;
}

/* Allocate a buffer's memory (zero-filled) and bind its data variable. With bind_layout
 * (BufferRealize), unbound stride / elem_offset variables are bound to the compact layout. */
static int alloc_buffer(tir_interp* in, const tvm_tir_buffer_obj* buf, bool bind_layout) {
  TRY(tir_check_storable(buf->dtype, tvm_tir_buffer_name(buf)));
  int64_t ndim = tvm_tir_buffer_ndim(buf), shape[TIR_MAX_DIMS], compact[TIR_MAX_DIMS];
  if (bind_layout) {
    TRY(eval_shape(in, buf, shape));
    TRY(compact_strides(buf, shape, ndim, compact));
    for (int64_t k = 0; k < tvm_tir_array_size(buf->strides) && k < ndim; ++k) {
      const tvm_tir_expr_obj* s = tvm_tir_array_at(buf->strides, k);
      if (is_unbound_var(in, s)) TRY(bind_int(in, (const tvm_tir_var_obj*)s, compact[k], "stride"));
    }
    if (is_unbound_var(in, buf->elem_offset)) {
      TRY(bind_int(in, (const tvm_tir_var_obj*)buf->elem_offset, 0, "elem_offset"));
    }
  }
  int64_t elems, nbytes;
  TRY(buffer_span(in, buf, &elems));
  if (__builtin_mul_overflow(elems, tir_elem_bytes(buf->dtype), &nbytes)) {
    return tir_raise_at("ValueError", buf, "buffer %s is too large", tvm_tir_buffer_name(buf));
  }
  char* p;
  TRY(alloc_region(in, nbytes, &p));
  return bind_handle(in, buf->data, p);
}

/* match_buffer (spec Block item iii): buf aliases the source region. */
static int match_buffer(tir_interp* in, const tvm_tir_match_buffer_region_obj* m) {
  const tvm_tir_buffer_obj* buf = m->buffer;
  const tvm_tir_buffer_obj* src = m->source->buffer;
  void* region = m->source->region;
  int64_t nr = tvm_tir_array_size(region), nb = tvm_tir_buffer_ndim(buf);
  const char* name = tvm_tir_buffer_name(buf);
  if (nb > nr || nr > TIR_MAX_DIMS || nr != tvm_tir_buffer_ndim(src)) {
    return tir_raise_at("RuntimeError", m, "match_buffer %s: %lld dimensions for a region of %lld",
                        name, (long long)nb, (long long)nr);
  }
  int64_t mins[TIR_MAX_DIMS], src_shape[TIR_MAX_DIMS], src_strides[TIR_MAX_DIMS], src_offset;
  TRY(eval_shape(in, src, src_shape));
  for (int64_t k = 0; k < nr; ++k) {
    const tvm_tir_range_obj* r = tvm_tir_array_at(region, k);
    int64_t extent = 1;
    TRY(tir_eval_int(in, r->min, &mins[k]));
    if (r->extent) TRY(tir_eval_int(in, r->extent, &extent));
    if (mins[k] < 0 || extent < 0 || mins[k] > src_shape[k] - extent) {
      return tir_raise_at("IndexError", m,
                          "match_buffer %s: region [%lld, %lld) of dimension %lld is outside "
                          "buffer %s of extent %lld",
                          name, (long long)mins[k], (long long)(mins[k] + extent), (long long)k,
                          tvm_tir_buffer_name(src), (long long)src_shape[k]);
    }
    if (k >= nr - nb)
      TRY(match_field(in, tvm_tir_array_at(buf->shape, k - (nr - nb)), extent, name, "shape",
                      k - (nr - nb)));
  }
  /* The alias shares the source's data; its layout variables, if any, describe the view. */
  const tir_value* data = tir_lookup(in, src->data);
  if (!data) {
    return tir_raise_at("RuntimeError", m, "match_buffer %s: source buffer %s is not allocated",
                        name, tvm_tir_buffer_name(src));
  }
  TRY(tir_bind(in, buf->data, data));
  TRY(buffer_layout(in, src, &src_offset, src_strides));
  for (int64_t k = 0; k < nr; ++k) src_offset += mins[k] * src_strides[k];
  for (int64_t k = 0; k < tvm_tir_array_size(buf->strides) && k < nb; ++k) {
    const tvm_tir_expr_obj* s = tvm_tir_array_at(buf->strides, k);
    if (is_unbound_var(in, s))
      TRY(bind_int(in, (const tvm_tir_var_obj*)s, src_strides[nr - nb + k], name));
  }
  if (is_unbound_var(in, buf->elem_offset)) {
    TRY(bind_int(in, (const tvm_tir_var_obj*)buf->elem_offset, src_offset, name));
  }
  tir_frame* f = in->frame;
  if (f->num_aliases == f->cap_aliases) {
    int64_t cap = f->cap_aliases ? 2 * f->cap_aliases : 4;
    tir_alias* a = tvm_ffi_realloc(f->aliases, (size_t)cap * sizeof(tir_alias));
    if (!a) return TIR_ERROR;
    f->aliases = a;
    f->cap_aliases = cap;
  }
  int64_t* copy = tvm_ffi_malloc((size_t)nr * sizeof(int64_t) + 1);
  if (!copy) return TIR_ERROR;
  memcpy(copy, mins, (size_t)nr * sizeof(int64_t));
  f->aliases[f->num_aliases++] = (tir_alias){buf, src, copy, nr};
  return TIR_OK;
}

/* ---- Statements ----------------------------------------------------------------------------- */
static int exec_let_stmt(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_let_stmt_obj* let = (const tvm_tir_let_stmt_obj*)s;
  tir_value v;
  TRY(tir_eval(in, let->value, &v));
  int64_t mark = tir_scope_mark(in);
  int rc = tir_bind(in, let->var, &v);
  if (rc == TIR_OK) rc = tir_exec(in, let->body);
  tir_scope_pop(in, mark);
  return rc;
}

/* thread_extent / virtual_thread bind their variable to 0 .. value-1 (run in order, as a
 * parallel loop may be); every other attribute is transparent. */
static int exec_attr_stmt(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_attr_stmt_obj* a = (const tvm_tir_attr_stmt_obj*)s;
  const char* key = tvm_ffi_str_cstr(a->attr_key);
  if (strcmp(key, "thread_extent") != 0 && strcmp(key, "virtual_thread") != 0) {
    return tir_exec(in, a->body);
  }
  const void* node = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_IterVar)
    node = ((const tvm_tir_iter_var_obj*)node)->var;
  if (!tvm_tir_is_var(node)) {
    return tir_raise_at("RuntimeError", s, "AttrStmt %s: the node must be a Var or IterVar", key);
  }
  int64_t extent;
  TRY(tir_eval_int(in, a->value, &extent));
  for (int64_t i = 0; i < extent; ++i) {
    int64_t mark = tir_scope_mark(in);
    int rc = bind_int(in, (const tvm_tir_var_obj*)node, i, key);
    if (rc == TIR_OK) rc = tir_exec(in, a->body);
    tir_scope_pop(in, mark);
    TRY(rc);
  }
  return TIR_OK;
}

static int exec_assert(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_assert_stmt_obj* a = (const tvm_tir_assert_stmt_obj*)s;
  tir_value c;
  TRY(tir_eval(in, a->condition, &c));
  if (tir_truthy(&c)) return tir_exec(in, a->body);
  if (tvm_tir_kind_of(a->message) == TVM_TIR_KIND_StringImm) {
    tvm_ffi_raise("AssertionError", "%s",
                  tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)a->message)->value));
    return TIR_ERROR;
  }
  int64_t code;
  TRY(tir_eval_int(in, a->message, &code));
  tvm_ffi_raise("AssertionError", "assertion failed with code %lld", (long long)code);
  return TIR_ERROR;
}

static int exec_buffer_store(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_buffer_store_obj* st = (const tvm_tir_buffer_store_obj*)s;
  const tvm_tir_buffer_obj* buf = st->buffer;
  tir_value v;
  int64_t idx[TIR_MAX_DIMS], last[TVM_TIR_INTERP_MAX_LANES];
  int il;
  TRY(tir_check_storable(buf->dtype, tvm_tir_buffer_name(buf)));
  TRY(tir_eval(in, st->value, &v)); /* the value first, then the indices (spec S5 semantics) */
  TRY(tir_eval_indices(in, s, st->indices, idx, TIR_MAX_DIMS, last, &il));
  int64_t n = tvm_tir_array_size(st->indices);
  int bl = buf->dtype.lanes;
  if (tir_lanes(&v) != il * bl) {
    return tir_raise_at("RuntimeError", s, "a value of %d lanes stored to %d elements of %d lanes",
                        tir_lanes(&v), il, bl);
  }
  /* Element j of a vector index receives lanes [j * bl, (j + 1) * bl) of the value. */
  for (int j = 0; j < il; ++j) {
    if (n > 0) idx[n - 1] = last[j];
    char* addr;
    TRY(tir_element_addr(in, buf, idx, n, &addr));
    tir_mem_write(buf->dtype, addr, &v.lane[j * bl]);
  }
  return TIR_OK;
}

static int exec_buffer_realize(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_buffer_realize_obj* r = (const tvm_tir_buffer_realize_obj*)s;
  int64_t mark = tir_scope_mark(in), regions = in->num_regions;
  int rc = alloc_buffer(in, r->buffer, true);
  if (rc == TIR_OK) rc = tir_exec(in, r->body);
  pop_regions(in, regions);
  tir_scope_pop(in, mark);
  return rc;
}

static int exec_allocate(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_allocate_obj* a = (const tvm_tir_allocate_obj*)s;
  tir_value c;
  TRY(tir_eval(in, a->condition, &c));
  if (!tir_truthy(&c)) return TIR_OK; /* spec S7 item i: the statement finishes */
  TRY(tir_check_storable(a->dtype, tvm_tir_var_name(a->buffer_var)));
  int64_t nbytes = tir_elem_bytes(a->dtype);
  for (int64_t k = 0; k < tvm_tir_array_size(a->extents); ++k) {
    int64_t e;
    TRY(tir_eval_int(in, tvm_tir_array_at(a->extents, k), &e));
    if (e < 0 || __builtin_mul_overflow(nbytes, e, &nbytes)) {
      return tir_raise_at("ValueError", s, "Allocate %s: invalid extent %lld",
                          tvm_tir_var_name(a->buffer_var), (long long)e);
    }
  }
  int64_t mark = tir_scope_mark(in), regions = in->num_regions;
  char* p;
  int rc = alloc_region(in, nbytes, &p);
  if (rc == TIR_OK) rc = bind_handle(in, a->buffer_var, p);
  if (rc == TIR_OK) rc = tir_exec(in, a->body);
  pop_regions(in, regions);
  tir_scope_pop(in, mark);
  return rc;
}

static int exec_decl_buffer(tir_interp* in, const tvm_tir_stmt_obj* s) {
  return tir_exec(in, ((const tvm_tir_decl_buffer_obj*)s)->body);
}

static int exec_seq(tir_interp* in, const tvm_tir_stmt_obj* s) {
  void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
  for (int64_t k = 0; k < tvm_tir_array_size(seq); ++k) TRY(tir_exec(in, tvm_tir_array_at(seq, k)));
  return TIR_OK;
}

static int exec_if(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_if_then_else_obj* i = (const tvm_tir_if_then_else_obj*)s;
  tir_value c;
  TRY(tir_eval(in, i->condition, &c));
  if (tir_truthy(&c)) return tir_exec(in, i->then_case);
  return i->else_case ? tir_exec(in, i->else_case) : TIR_OK;
}

static int exec_evaluate(tir_interp* in, const tvm_tir_stmt_obj* s) {
  tir_value v;
  return tir_eval(in, ((const tvm_tir_evaluate_obj*)s)->value, &v);
}

/* Every loop kind runs serially in order (an order every kind allows). min and extent are
 * evaluated once, cast to the loop variable's type. */
static int exec_for(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_for_obj* f = (const tvm_tir_for_obj*)s;
  DLDataType t = f->loop_var->expr.dtype;
  tir_value m, e;
  tir_lane lm, le;
  TRY(tir_eval(in, f->min, &m));
  TRY(tir_eval(in, f->extent, &e));
  if (tir_cast_lane(m.dtype, t, m.lane[0], &lm, "For") ||
      tir_cast_lane(e.dtype, t, e.lane[0], &le, "For")) {
    return TIR_ERROR;
  }
  for (int64_t k = 0; k < le.i; ++k) {
    tir_value v;
    tir_value_int(&v, t, (int64_t)((uint64_t)lm.i + (uint64_t)k));
    int64_t mark = tir_scope_mark(in);
    int rc = tir_bind(in, f->loop_var, &v);
    if (rc == TIR_OK) rc = tir_exec(in, f->body);
    tir_scope_pop(in, mark);
    TRY(rc);
  }
  return TIR_OK;
}

static int exec_while(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_while_obj* w = (const tvm_tir_while_obj*)s;
  for (;;) {
    tir_value c;
    TRY(tir_eval(in, w->condition, &c));
    if (!tir_truthy(&c)) return TIR_OK;
    TRY(tir_exec(in, w->body));
  }
}

/* The init of a reduction block runs when every reduction iteration variable is at the minimum
 * of its domain (the first iteration of the reduction); a non-reduction block always runs it. */
static int init_applies(tir_interp* in, const tvm_tir_sblock_obj* b, bool* out) {
  *out = true;
  for (int64_t k = 0; k < tvm_tir_array_size(b->iter_vars); ++k) {
    const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(b->iter_vars, k);
    if (iv->iter_type != TVM_TIR_ITER_COMM_REDUCE) continue;
    int64_t v, min = 0;
    TRY(tir_eval_int(in, &iv->var->expr, &v));
    if (iv->dom) TRY(tir_eval_int(in, iv->dom->min, &min));
    if (v != min) *out = false;
  }
  return TIR_OK;
}

static int exec_sblock_body(tir_interp* in, const tvm_tir_sblock_obj* b) {
  for (int64_t k = 0; k < tvm_tir_array_size(b->alloc_buffers); ++k) {
    TRY(alloc_buffer(in, tvm_tir_array_at(b->alloc_buffers, k), false));
  }
  for (int64_t k = 0; k < tvm_tir_array_size(b->match_buffers); ++k) {
    TRY(match_buffer(in, tvm_tir_array_at(b->match_buffers, k)));
  }
  if (b->init) {
    bool run_init;
    TRY(init_applies(in, b, &run_init));
    if (run_init) TRY(tir_exec(in, b->init));
  }
  return tir_exec(in, b->body);
}

static int exec_sblock(tir_interp* in, const tvm_tir_stmt_obj* s) {
  int64_t mark = tir_scope_mark(in), regions = in->num_regions, aliases = in->frame->num_aliases;
  int rc = exec_sblock_body(in, (const tvm_tir_sblock_obj*)s);
  pop_aliases(in, aliases);
  pop_regions(in, regions);
  tir_scope_pop(in, mark);
  return rc;
}

/* Binds the iteration variables, then runs the block unless the predicate is false. */
static int exec_sblock_realize(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_sblock_realize_obj* r = (const tvm_tir_sblock_realize_obj*)s;
  int64_t n = tvm_tir_array_size(r->iter_values);
  if (n != tvm_tir_array_size(r->block->iter_vars)) {
    return tir_raise_at("RuntimeError", s,
                        "SBlockRealize: %lld values for %lld iteration variables", (long long)n,
                        (long long)tvm_tir_array_size(r->block->iter_vars));
  }
  int64_t mark = tir_scope_mark(in);
  int rc = TIR_OK;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    tir_value v;
    const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(r->block->iter_vars, k);
    rc = tir_eval(in, tvm_tir_array_at(r->iter_values, k), &v);
    if (rc == TIR_OK) rc = tir_bind(in, iv->var, &v);
  }
  tir_value p;
  if (rc == TIR_OK && r->predicate) rc = tir_eval(in, r->predicate, &p);
  if (rc == TIR_OK && (!r->predicate || tir_truthy(&p))) rc = exec_sblock(in, &r->block->stmt);
  tir_scope_pop(in, mark);
  return rc;
}

static const exec_fn k_exec[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_LetStmt] = exec_let_stmt,
    [TVM_TIR_KIND_AttrStmt] = exec_attr_stmt,
    [TVM_TIR_KIND_AssertStmt] = exec_assert,
    [TVM_TIR_KIND_BufferStore] = exec_buffer_store,
    [TVM_TIR_KIND_BufferRealize] = exec_buffer_realize,
    [TVM_TIR_KIND_Allocate] = exec_allocate,
    [TVM_TIR_KIND_DeclBuffer] = exec_decl_buffer,
    [TVM_TIR_KIND_SeqStmt] = exec_seq,
    [TVM_TIR_KIND_IfThenElse] = exec_if,
    [TVM_TIR_KIND_Evaluate] = exec_evaluate,
    [TVM_TIR_KIND_For] = exec_for,
    [TVM_TIR_KIND_While] = exec_while,
    [TVM_TIR_KIND_SBlock] = exec_sblock,
    [TVM_TIR_KIND_SBlockRealize] = exec_sblock_realize,
};

int tir_exec(tir_interp* in, const tvm_tir_stmt_obj* s) {
  tvm_tir_kind kind = tvm_tir_kind_of(s);
  exec_fn fn = kind >= 0 ? k_exec[kind] : NULL;
  if (!fn) {
    return tir_raise_at(
        "NotImplementedError", NULL, "cannot execute a %s",
        s ? (kind >= 0 ? tvm_tir_kind_name(kind) : tvm_ffi_type_key(tvm_ffi_type_index(s)))
          : "missing (NULL) statement");
  }
  return fn(in, s);
}

/* ---- PrimFunc calls ------------------------------------------------------------------------- */
/* The arguments of a call: external values (any) or values of a call in TIR (values). */
typedef struct {
  const TVMFFIAny* any;
  const tir_value* values;
  int64_t count;
} call_args;

static const tvm_tir_buffer_obj* param_buffer(const tvm_tir_prim_func_obj* f, const void* var) {
  TVMFFIAny key = tvm_ffi_any_obj(var);
  const TVMFFIAny* b = tvm_ffi_map_get(f->buffer_map, &key);
  return b ? (const tvm_tir_buffer_obj*)b->v_obj : NULL;
}

/* Whether param is a shape / stride / elem_offset variable of a buffer of the buffer map. */
static bool is_buffer_field_var(const tvm_tir_prim_func_obj* f, const void* param) {
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(f->buffer_map, pos, &k, &v)) >= 0;) {
    const tvm_tir_buffer_obj* b = (const tvm_tir_buffer_obj*)v->v_obj;
    if ((const void*)b->elem_offset == param) return true;
    for (int64_t i = 0; i < tvm_tir_array_size(b->shape); ++i) {
      if (tvm_tir_array_at(b->shape, i) == param) return true;
    }
    for (int64_t i = 0; i < tvm_tir_array_size(b->strides); ++i) {
      if (tvm_tir_array_at(b->strides, i) == param) return true;
    }
  }
  return false;
}

/* A scalar argument converted to the parameter's dtype. */
static int scalar_from_any(const TVMFFIAny* a, const tvm_tir_var_obj* var, const char* fname,
                           tir_value* out) {
  DLDataType t = var->expr.dtype;
  const char* pname = tvm_tir_var_name(var);
  out->dtype = t;
  if (tvm_tir_dtype_is_handle(t)) {
    void* tensor = tvm_ffi_any_as_object(a, kTVMFFITensor);
    if (a->type_index == kTVMFFIDLTensorPtr) {
      out->lane[0].p = ((DLTensor*)a->v_ptr)->data;
    } else if (tensor) {
      out->lane[0].p = tvm_ffi_tensor_dl(tensor)->data;
    } else if (a->type_index == kTVMFFIOpaquePtr || a->type_index == kTVMFFINone) {
      out->lane[0].p = a->v_ptr;
    } else {
      return tir_raise_at("TypeError", NULL, "%s: argument '%s' must be a handle, got %s", fname,
                          pname, tvm_ffi_any_type_name(a));
    }
    return TIR_OK;
  }
  int64_t i;
  double d;
  if (tvm_tir_dtype_is_integer(t) && t.lanes == 1 && tvm_ffi_any_as_int(a, &i)) {
    tir_value_int(out, t, i);
    bool fits = t.code == kDLUInt && t.bits == 64 ? i >= 0 : out->lane[0].i == i;
    if (fits) return TIR_OK;
    return tir_raise_at("ValueError", NULL, "%s: argument '%s' = %lld does not fit %s", fname,
                        pname, (long long)i, tvm_tir_dtype_str(t).s);
  }
  if (tvm_tir_dtype_is_floating(t) && t.lanes == 1 && tvm_ffi_any_as_float(a, &d)) {
    out->lane[0].f = tvm_tir__round_float(t, d);
    return TIR_OK;
  }
  return tir_raise_at("TypeError", NULL, "%s: argument '%s' of type %s cannot be passed %s", fname,
                      pname, tvm_tir_dtype_str(t).s, tvm_ffi_any_type_name(a));
}

static bool dtype_matches(DLDataType buffer, DLDataType tensor) {
  if (tvm_tir_dtype_equal(buffer, tensor)) return true;
  /* A bool (uint1) buffer reads a DLPack bool tensor (one byte per element). */
  return tvm_tir_dtype_is_bool(buffer) && tensor.code == kDLBool && tensor.bits == 8 &&
         tensor.lanes == buffer.lanes;
}

/* Bind a buffer parameter to a tensor (spec PrimFunc item ii.d). With add_region, the tensor's
 * memory becomes a live region (external arguments). */
static int bind_tensor(tir_interp* in, const tvm_tir_buffer_obj* b, const DLTensor* t,
                       const char* arg, bool add_region) {
  int64_t ndim = tvm_tir_buffer_ndim(b);
  const char* bname = tvm_tir_buffer_name(b);
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost) {
    return tir_raise_at("ValueError", NULL, "%s: tensor is on device type %d, not in host memory",
                        arg, (int)t->device.device_type);
  }
  if (!dtype_matches(b->dtype, t->dtype)) {
    char have[48];
    if (tvm_ffi_dtype_format(t->dtype, have, sizeof(have)) < 0) {
      tvm_ffi_error_clear();
      snprintf(have, sizeof(have), "dtype(code=%d, bits=%d)", t->dtype.code, t->dtype.bits);
    }
    return tir_raise_at("ValueError", NULL, "%s: dtype %s does not match buffer %s of dtype %s",
                        arg, have, bname, tvm_tir_dtype_str(b->dtype).s);
  }
  TRY(tir_check_storable(b->dtype, bname));
  if (t->ndim != ndim || ndim > TIR_MAX_DIMS || (ndim > 0 && !t->shape)) {
    return tir_raise_at("ValueError", NULL, "%s: ndim %d does not match buffer %s of ndim %lld",
                        arg, (int)t->ndim, bname, (long long)ndim);
  }
  for (int64_t k = 0; k < ndim; ++k)
    TRY(match_field(in, tvm_tir_array_at(b->shape, k), t->shape[k], arg, "shape", k));
  int64_t compact[TIR_MAX_DIMS];
  TRY(compact_strides(b, t->shape, ndim, compact));
  if (tvm_tir_array_size(b->strides) == 0) {
    if (t->strides && !tvm_ffi_dltensor_is_contiguous(t)) {
      return tir_raise_at("ValueError", NULL, "%s: strided tensor for buffer %s, which is compact",
                          arg, bname);
    }
  } else {
    if (tvm_tir_array_size(b->strides) != ndim) {
      return tir_raise_at("ValueError", NULL, "%s: buffer %s has %lld strides for %lld dimensions",
                          arg, bname, (long long)tvm_tir_array_size(b->strides), (long long)ndim);
    }
    for (int64_t k = 0; k < ndim; ++k) {
      int64_t stride = t->strides ? t->strides[k] : compact[k];
      TRY(match_field(in, tvm_tir_array_at(b->strides, k), stride, arg, "strides", k));
    }
  }
  int64_t size = tir_elem_bytes(b->dtype);
  if (t->byte_offset % (uint64_t)size != 0) {
    return tir_raise_at("ValueError", NULL, "%s: byte_offset %llu is not a multiple of %lld", arg,
                        (unsigned long long)t->byte_offset, (long long)size);
  }
  if (b->elem_offset) {
    TRY(match_field(in, b->elem_offset, (int64_t)(t->byte_offset / (uint64_t)size), arg,
                    "elem_offset", -1));
  }
  TRY(bind_handle(in, b->data, t->data));
  if (!add_region) return TIR_OK;
  /* The bytes the tensor's layout reaches, from its first element. */
  int64_t lo = 0, hi = 1;
  bool overflow = false;
  for (int64_t k = 0; k < ndim; ++k) {
    int64_t stride = t->strides ? t->strides[k] : compact[k], span;
    if (t->shape[k] == 0) return TIR_OK; /* no element: nothing is reachable */
    overflow |= __builtin_mul_overflow(stride, t->shape[k] - 1, &span);
    overflow |=
        span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi);
  }
  if (overflow || __builtin_mul_overflow(lo, size, &lo) || __builtin_mul_overflow(hi, size, &hi)) {
    return tir_raise_at("ValueError", NULL, "%s: tensor extent overflows", arg);
  }
  char* first = (char*)t->data + t->byte_offset;
  return push_region(in, first + lo, hi - lo, false);
}

/* A buffer parameter of a call in TIR gets a handle: a compact tensor of the buffer's (constant)
 * shape at that address, inside the caller's live memory. */
static int bind_handle_as_tensor(tir_interp* in, const tvm_tir_buffer_obj* b, const tir_value* v,
                                 const char* arg) {
  int64_t shape[TIR_MAX_DIMS], ndim = tvm_tir_buffer_ndim(b);
  if (!tvm_tir_dtype_is_handle(v->dtype) || ndim > TIR_MAX_DIMS) {
    return tir_raise_at("TypeError", NULL, "%s: buffer %s needs a handle, got %s", arg,
                        tvm_tir_buffer_name(b), tvm_tir_dtype_str(v->dtype).s);
  }
  for (int64_t k = 0; k < ndim; ++k) {
    if (!tvm_tir_as_const_int(tvm_tir_array_at(b->shape, k), &shape[k])) {
      return tir_raise_at("NotImplementedError", NULL,
                          "%s: buffer %s has a symbolic shape, which a handle does not carry", arg,
                          tvm_tir_buffer_name(b));
    }
  }
  DLTensor t = {.data = v->lane[0].p,
                .device = {kDLCPU, 0},
                .ndim = (int32_t)ndim,
                .dtype = b->dtype,
                .shape = shape,
                .strides = NULL,
                .byte_offset = 0};
  return bind_tensor(in, b, &t, arg, false);
}

static int bind_params(tir_interp* in, const tvm_tir_prim_func_obj* f, const char* fname,
                       const call_args* args) {
  int64_t np = tvm_tir_array_size(f->params), implicit = 0;
  for (int64_t i = 0; i < np; ++i)
    implicit += is_buffer_field_var(f, tvm_tir_array_at(f->params, i));
  bool skip_implicit = args->count != np && args->count == np - implicit;
  if (args->count != np && !skip_implicit) {
    return tir_raise_at("TypeError", NULL, "%s: expected %lld arguments, got %lld", fname,
                        (long long)np, (long long)args->count);
  }
  /* Scalars first (they enter the scope first), then the buffers bind their fields. */
  for (int pass = 0; pass < 2; ++pass) {
    int64_t a = 0;
    for (int64_t i = 0; i < np; ++i) {
      const tvm_tir_var_obj* p = tvm_tir_array_at(f->params, i);
      if (skip_implicit && is_buffer_field_var(f, p)) continue;
      int64_t k = a++;
      const tvm_tir_buffer_obj* b = param_buffer(f, p);
      if ((b != NULL) != (pass == 1)) continue;
      char arg[128];
      snprintf(arg, sizeof(arg), "%s: argument %lld ('%s')", fname, (long long)k,
               tvm_tir_var_name(p));
      if (b && args->any) {
        const TVMFFIAny* x = &args->any[k];
        void* tensor = tvm_ffi_any_as_object(x, kTVMFFITensor);
        const DLTensor* t = x->type_index == kTVMFFIDLTensorPtr ? (const DLTensor*)x->v_ptr
                            : tensor                            ? tvm_ffi_tensor_dl(tensor)
                                                                : NULL;
        if (!t) {
          return tir_raise_at("TypeError", NULL, "%s: buffer %s needs a tensor, got %s", arg,
                              tvm_tir_buffer_name(b), tvm_ffi_any_type_name(x));
        }
        TRY(bind_tensor(in, b, t, arg, true));
      } else if (b) {
        TRY(bind_handle_as_tensor(in, b, &args->values[k], arg));
      } else if (args->any) {
        tir_value v;
        TRY(scalar_from_any(&args->any[k], p, fname, &v));
        TRY(tir_bind(in, p, &v));
      } else {
        if (!tvm_tir_dtype_equal(args->values[k].dtype, p->expr.dtype)) {
          return tir_raise_at("TypeError", NULL, "%s: expected %s, got %s", arg,
                              tvm_tir_dtype_str(p->expr.dtype).s,
                              tvm_tir_dtype_str(args->values[k].dtype).s);
        }
        TRY(tir_bind(in, p, &args->values[k]));
      }
    }
  }
  return TIR_OK;
}

/* Run f in a fresh frame; *out is the tir.ret value or void. */
static int call_func(tir_interp* in, const tvm_tir_prim_func_obj* f, const char* fname,
                     const call_args* args, tir_value* out) {
  if (in->depth >= TVM_TIR_INTERP_MAX_CALL_DEPTH) {
    return tir_raise_at("RuntimeError", NULL, "%s: maximum call depth %d exceeded", fname,
                        TVM_TIR_INTERP_MAX_CALL_DEPTH);
  }
  tir_frame frame = {0}, *caller = in->frame;
  int64_t regions = in->num_regions;
  in->frame = &frame;
  in->depth++;
  int rc = bind_params(in, f, fname, args);
  if (rc == TIR_OK) rc = tir_exec(in, f->body);
  if (rc == TIR_RETURNED) {
    *out = frame.ret;
    rc = TIR_OK;
  } else if (rc == TIR_OK) {
    tir_value_void(out);
  }
  pop_aliases(in, 0);
  pop_regions(in, regions);
  tvm_ffi_free(frame.vars);
  tvm_ffi_free(frame.aliases);
  in->frame = caller;
  in->depth--;
  return rc;
}

int tir_call_global(tir_interp* in, const tvm_tir_global_var_obj* gv, const tir_value* args,
                    int64_t num_args, tir_value* out) {
  const char* name = tvm_ffi_str_cstr(gv->name_hint);
  const void* f = NULL;
  void* owned = NULL;
  if (in->mod) {
    f = owned = tvm_tir_ir_module_lookup(in->mod, name);
  } else {
    const char* self = tvm_tir_func_global_symbol(in->root);
    if (self && strcmp(self, name) == 0) f = in->root;
  }
  int rc;
  if (!f) {
    rc = tir_raise_at("RuntimeError", NULL, "call to '%s': no such function%s", name,
                      in->mod ? " in the module" : " (a PrimFunc run alone can only call itself)");
  } else if (tvm_tir_kind_of(f) != TVM_TIR_KIND_PrimFunc) {
    rc = tir_raise_at("RuntimeError", NULL, "call to '%s': not a PrimFunc", name);
  } else {
    call_args ca = {NULL, args, num_args};
    rc = call_func(in, f, name, &ca, out);
  }
  tvm_ffi_release(owned);
  return rc;
}

/* ---- Entry point ---------------------------------------------------------------------------- */
static int ret_to_any(const tir_value* v, const char* fname, TVMFFIAny* out) {
  DLDataType t = v->dtype;
  if (tvm_tir_dtype_is_void(t)) {
    *out = tvm_ffi_any_none();
  } else if (tir_lanes(v) != 1) {
    return tir_raise_at("NotImplementedError", NULL, "%s: returns a vector (%s)", fname,
                        tvm_tir_dtype_str(t).s);
  } else if (tvm_tir_dtype_is_bool(t)) {
    *out = tvm_ffi_any_bool(v->lane[0].i != 0);
  } else if (tvm_tir_dtype_is_integer(t)) {
    *out = tvm_ffi_any_int(v->lane[0].i);
  } else if (tvm_tir_dtype_is_floating(t)) {
    *out = tvm_ffi_any_float(v->lane[0].f);
  } else {
    *out = tvm_ffi_any_ptr(v->lane[0].p);
  }
  return TIR_OK;
}

int tvm_tir_interp_run(const void* func_or_module, const char* func_name, const TVMFFIAny* args,
                       int32_t num_args, TVMFFIAny* out_ret) {
  tvm_tir_init();
  if (out_ret) *out_ret = tvm_ffi_any_none();
  tir_interp in = {0};
  void* owned = NULL;
  const tvm_tir_prim_func_obj* f = NULL;
  const char* name = func_name;
  tvm_tir_kind kind = tvm_tir_kind_of(func_or_module);
  if (kind == TVM_TIR_KIND_PrimFunc) {
    f = func_or_module;
    if (!name) name = tvm_tir_func_global_symbol(f);
    if (!name) name = "PrimFunc";
  } else if (kind == TVM_TIR_KIND_IRModule) {
    in.mod = func_or_module;
    if (!name)
      return tvm_ffi_raise("ValueError", "tvm_tir_interp_run: a module needs a function name");
    owned = tvm_tir_ir_module_lookup(in.mod, name);
    if (!owned)
      return tvm_ffi_raise("ValueError", "tvm_tir_interp_run: no function '%s' in the module",
                           name);
    if (tvm_tir_kind_of(owned) != TVM_TIR_KIND_PrimFunc) {
      tvm_ffi_release(owned);
      return tvm_ffi_raise("TypeError", "tvm_tir_interp_run: '%s' is not a PrimFunc", name);
    }
    f = owned;
  } else {
    return tvm_ffi_raise(
        "TypeError", "tvm_tir_interp_run: expected a PrimFunc or an IRModule, got %s",
        func_or_module ? tvm_ffi_type_key(tvm_ffi_type_index(func_or_module)) : "NULL");
  }
  in.root = f;
  int rc;
  if (num_args < 0 || (num_args > 0 && !args)) {
    rc = tvm_ffi_raise("TypeError", "%s: invalid argument list", name);
  } else {
    call_args ca = {args, NULL, num_args};
    tir_value ret;
    rc = call_func(&in, f, name, &ca, &ret);
    if (rc == TIR_OK && out_ret) rc = ret_to_any(&ret, name, out_ret);
  }
  pop_regions(&in, 0);
  tvm_ffi_free(in.regions);
  tvm_ffi_release(owned);
  return rc == TIR_OK ? 0 : -1;
}

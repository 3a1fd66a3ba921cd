/*
 * interp_memory.c: the interpreter's variables, memory and buffers.
 *
 * A buffer's data variable is bound to a handle (a host pointer). An element's address is
 * data + (elem_offset + sum(index[k] * stride[k])) * element_size, with the buffer's strides or,
 * when it has none, the compact row-major strides of its shape (spec PrimFunc item ii-iii).
 * Every access is checked against the buffer's shape (IndexError) and must fall inside a live
 * allocation: an argument tensor's extent, or a block of memory the interpreter allocated.
 * match_buffer aliases are resolved as the spec says, by offsetting the indices into the
 * source buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp_internal.h"

/* ---- Variables ------------------------------------------------------------------------------ */
const tir_value* tvm_tir__lookup(tir_interp* in, const tvm_tir_var_obj* var) {
  tir_frame* f = in->frame;
  for (int64_t k = f->num_vars - 1; k >= 0; --k) {
    if (f->vars[k].var == var) return &f->vars[k].value;
  }
  for (int64_t k = f->num_outer - 1; k >= 0; --k) {
    if (f->outer[k].var == var) return &f->outer[k].value;
  }
  return NULL;
}

int tvm_tir__bind(tir_interp* in, const tvm_tir_var_obj* var, const tir_value* v) {
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

int tvm_tir__bind_handle(tir_interp* in, const tvm_tir_var_obj* var, void* p) {
  tir_value v;
  v.dtype = tvm_tir_dtype_handle();
  v.lane[0].p = p;
  return tvm_tir__bind(in, var, &v);
}

static bool is_unbound_var(tir_interp* in, const tvm_tir_expr_obj* e) {
  return tvm_tir_is_var(e) && !tvm_tir__lookup(in, (const tvm_tir_var_obj*)e);
}

/* Bind an integer to var, which must be able to hold it exactly. */
int tvm_tir__bind_int(tir_interp* in, const tvm_tir_var_obj* var, int64_t value, const char* what) {
  tir_value v;
  tvm_tir__value_int(&v, var->expr.dtype, value);
  if (v.lane[0].i != value || !tvm_tir_dtype_is_index(var->expr.dtype)) {
    return tvm_tir__raise_at("ValueError", NULL, "%s: %lld does not fit variable '%s' of type %s",
                             what, (long long)value, tvm_tir_var_name(var),
                             tvm_tir_dtype_str(var->expr.dtype).s);
  }
  return tvm_tir__bind(in, var, &v);
}

/*
 * Match a buffer field (shape / stride / elem_offset expression e) against an actual value: an
 * unbound Var is bound to it (the first binding wins), anything else is evaluated and must be
 * equal (ValueError "<owner>: <field>[dim] is <actual> but <e> is <expected>").
 */
int tvm_tir__match_field(tir_interp* in, const tvm_tir_expr_obj* e, int64_t actual,
                         const char* owner, const char* field, int64_t dim) {
  char what[160];
  if (dim >= 0) {
    snprintf(what, sizeof(what), "%s: %s[%lld]", owner, field, (long long)dim);
  } else {
    snprintf(what, sizeof(what), "%s: %s", owner, field);
  }
  if (is_unbound_var(in, e)) return tvm_tir__bind_int(in, (const tvm_tir_var_obj*)e, actual, what);
  int64_t expected;
  TRY(tvm_tir__eval_int(in, e, &expected));
  if (expected == actual) return TIR_OK;
  return tvm_tir__raise_at("ValueError", e, "%s is %lld but the buffer requires %lld", what,
                           (long long)actual, (long long)expected);
}

int tvm_tir__define_field(tir_interp* in, const tvm_tir_expr_obj* e, int64_t actual,
                          const char* owner, const char* field, int64_t dim) {
  return is_unbound_var(in, e) ? tvm_tir__match_field(in, e, actual, owner, field, dim) : TIR_OK;
}

/* ---- Memory regions ------------------------------------------------------------------------- */
int tvm_tir__push_region(tir_interp* in, char* base, int64_t nbytes, bool owned) {
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
  if (owned) in->owned_bytes += nbytes;
  return TIR_OK;
}

void tvm_tir__pop_regions(tir_interp* in, int64_t mark) {
  while (in->num_regions > mark) {
    tir_region* r = &in->regions[--in->num_regions];
    if (r->owned) {
      in->owned_bytes -= r->nbytes;
      tvm_ffi_free(r->base);
    }
  }
}

/* "123", "64K", "512M", "2G" (binary multiples): the byte count, or -1. */
static int64_t parse_bytes(const char* s) {
  char* end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || errno || v < 0) return -1;
  int shift = 0;
  switch (*end) {
    case 'k': case 'K': shift = 10, ++end; break;
    case 'm': case 'M': shift = 20, ++end; break;
    case 'g': case 'G': shift = 30, ++end; break;
    default: break;
  }
  if (*end || v > (INT64_MAX >> shift)) return -1;
  return (int64_t)v << shift;
}

int64_t tvm_tir_interp_memory_limit(void) {
  const char* env = getenv("TVM_TIR_INTERP_MEMORY_LIMIT");
  if (env && *env) {
    int64_t v = parse_bytes(env);
    if (v < 0) {
      tvm_ffi_raise("ValueError", "TVM_TIR_INTERP_MEMORY_LIMIT=%s is not a byte count (digits, "
                    "optionally followed by K, M or G)", env);
    }
    return v;
  }
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return INT64_MAX; /* unknown: no limit but the allocator's */
  return (int64_t)pages / 2 * (int64_t)page_size;
}

bool tvm_tir__in_live_region(tir_interp* in, const void* p, int64_t nbytes) {
  uintptr_t addr = (uintptr_t)p;
  for (int64_t k = in->num_regions - 1; k >= 0; --k) {
    uintptr_t base = (uintptr_t)in->regions[k].base;
    uint64_t size = (uint64_t)in->regions[k].nbytes;
    if (addr >= base && addr - base <= size && size - (addr - base) >= (uint64_t)nbytes) {
      return true;
    }
  }
  return false;
}

const char* tvm_tir__region_base(tir_interp* in, const void* p) {
  uintptr_t addr = (uintptr_t)p;
  for (int64_t k = in->num_regions - 1; k >= 0; --k) {
    uintptr_t base = (uintptr_t)in->regions[k].base;
    if (addr >= base && addr - base < (uint64_t)in->regions[k].nbytes) return in->regions[k].base;
  }
  return NULL;
}

/* Fresh zero-filled memory of nbytes, registered as a live region (freed by pop_regions). */
int tvm_tir__alloc_region(tir_interp* in, const char* name, int64_t nbytes, char** out) {
  if (in->memory_limit == 0 && (in->memory_limit = tvm_tir_interp_memory_limit()) < 0) {
    in->memory_limit = 0;
    return TIR_ERROR;
  }
  int64_t total;
  if (__builtin_add_overflow(in->owned_bytes, nbytes, &total) || total > in->memory_limit) {
    return tvm_tir__raise_at("MemoryError", NULL,
                        "%s: %lld bytes would bring the interpreter's allocations to %lld bytes, "
                        "over its limit of %lld bytes (TVM_TIR_INTERP_MEMORY_LIMIT; by default "
                        "half the physical memory)",
                        name, (long long)nbytes,
                        (long long)(total < nbytes ? INT64_MAX : total),
                        (long long)in->memory_limit);
  }
  char* p = tvm_ffi_aligned_alloc(64, (size_t)(nbytes > 0 ? nbytes : 1));
  if (!p) return TIR_ERROR;
  memset(p, 0, (size_t)(nbytes > 0 ? nbytes : 1));
  *out = p;
  return tvm_tir__push_region(in, p, nbytes, true);
}

/* ---- Buffers -------------------------------------------------------------------------------- */
static const tir_alias* find_alias(tir_interp* in, const tvm_tir_buffer_obj* buf) {
  for (int64_t k = in->frame->num_aliases - 1; k >= 0; --k) {
    if (in->frame->aliases[k].buffer == buf) return &in->frame->aliases[k];
  }
  return NULL;
}

void tvm_tir__pop_aliases(tir_interp* in, int64_t mark) {
  while (in->frame->num_aliases > mark)
    tvm_ffi_free(in->frame->aliases[--in->frame->num_aliases].mins);
}

static int eval_shape(tir_interp* in, const tvm_tir_buffer_obj* buf, int64_t* shape) {
  int64_t ndim = tvm_tir_buffer_ndim(buf);
  if (ndim > TIR_MAX_DIMS) {
    return tvm_tir__raise_at("NotImplementedError", buf, "buffer %s has more than %d dimensions",
                             tvm_tir_buffer_name(buf), TIR_MAX_DIMS);
  }
  for (int64_t k = 0; k < ndim; ++k)
    TRY(tvm_tir__eval_int(in, tvm_tir_array_at(buf->shape, k), &shape[k]));
  return TIR_OK;
}

/* Compact row-major strides of a shape. */
int tvm_tir__compact_strides(const tvm_tir_buffer_obj* buf, const int64_t* shape, int64_t ndim,
                             int64_t* strides) {
  int64_t s = 1;
  for (int64_t k = ndim - 1; k >= 0; --k) {
    strides[k] = s;
    if (shape[k] < 0 || __builtin_mul_overflow(s, shape[k], &s)) {
      return tvm_tir__raise_at("ValueError", buf,
                               "buffer %s: invalid shape (dimension %lld is %lld)",
                               tvm_tir_buffer_name(buf), (long long)k, (long long)shape[k]);
    }
  }
  return TIR_OK;
}

/* *acc += a * b; false on int64 overflow. */
static bool add_product(int64_t* acc, int64_t a, int64_t b) {
  int64_t p;
  return !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(*acc, p, acc);
}

/* The memory layout of a buffer: element offset and strides, through match_buffer aliases. */
static int buffer_layout(tir_interp* in, const tvm_tir_buffer_obj* buf, int64_t* elem_offset,
                         int64_t* strides) {
  int64_t ndim = tvm_tir_buffer_ndim(buf);
  const tir_alias* a = find_alias(in, buf);
  if (a) {
    int64_t src_strides[TIR_MAX_DIMS];
    TRY(buffer_layout(in, a->source, elem_offset, src_strides));
    for (int64_t k = 0; k < a->num_mins; ++k) {
      if (!add_product(elem_offset, a->mins[k], src_strides[k])) {
        return tvm_tir__raise_at("ValueError", buf, "buffer %s: element offset overflows",
                                 tvm_tir_buffer_name(buf));
      }
    }
    memcpy(strides, src_strides + (a->num_mins - ndim), (size_t)ndim * sizeof(int64_t));
    return TIR_OK;
  }
  int64_t shape[TIR_MAX_DIMS];
  TRY(eval_shape(in, buf, shape));
  if (tvm_tir_array_size(buf->strides) == 0) {
    TRY(tvm_tir__compact_strides(buf, shape, ndim, strides));
  } else {
    for (int64_t k = 0; k < ndim; ++k) {
      TRY(tvm_tir__eval_int(in, tvm_tir_array_at(buf->strides, k), &strides[k]));
    }
  }
  *elem_offset = 0;
  if (buf->elem_offset) TRY(tvm_tir__eval_int(in, buf->elem_offset, elem_offset));
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

int tvm_tir__element_addr(tir_interp* in, const tvm_tir_buffer_obj* buf, const int64_t* idx,
                          int64_t n, char** out) {
  int64_t ndim = tvm_tir_buffer_ndim(buf), shape[TIR_MAX_DIMS];
  if (n != ndim) {
    return tvm_tir__raise_at("RuntimeError", buf, "buffer %s: %lld indices for %lld dimensions",
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
    return tvm_tir__element_addr(in, a->source, src, a->num_mins, out);
  }
  int64_t strides[TIR_MAX_DIMS], flat;
  TRY(buffer_layout(in, buf, &flat, strides));
  int64_t size = tvm_tir__elem_bytes(buf->dtype), term, byte_offset;
  bool overflow = false;
  for (int64_t k = 0; k < n; ++k) {
    overflow |= __builtin_mul_overflow(idx[k], strides[k], &term);
    overflow |= __builtin_add_overflow(flat, term, &flat);
  }
  overflow |= __builtin_mul_overflow(flat, size, &byte_offset);
  const tir_value* data = tvm_tir__lookup(in, buf->data);
  if (!data) {
    return tvm_tir__raise_at("RuntimeError", NULL, "buffer %s: its data variable '%s' is unbound",
                             tvm_tir_buffer_name(buf), tvm_tir_var_name(buf->data));
  }
  uintptr_t addr = (uintptr_t)data->lane[0].p + (uintptr_t)byte_offset;
  if (overflow || !data->lane[0].p || !tvm_tir__in_live_region(in, (const void*)addr, size)) {
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
    return tvm_tir__raise_at("ValueError", buf, "buffer %s: invalid layout to allocate",
                             tvm_tir_buffer_name(buf));
  }
  return TIR_OK;
}

/* Allocate a buffer's memory (zero-filled) and bind its data variable. With bind_layout
 * (BufferRealize), unbound stride / elem_offset variables are bound to the compact layout. */
int tvm_tir__alloc_buffer(tir_interp* in, const tvm_tir_buffer_obj* buf, bool bind_layout) {
  TRY(tvm_tir__check_storable(buf->dtype, tvm_tir_buffer_name(buf)));
  int64_t ndim = tvm_tir_buffer_ndim(buf), shape[TIR_MAX_DIMS], compact[TIR_MAX_DIMS];
  if (bind_layout) {
    TRY(eval_shape(in, buf, shape));
    TRY(tvm_tir__compact_strides(buf, shape, ndim, compact));
    for (int64_t k = 0; k < tvm_tir_array_size(buf->strides) && k < ndim; ++k) {
      const tvm_tir_expr_obj* s = tvm_tir_array_at(buf->strides, k);
      if (is_unbound_var(in, s))
        TRY(tvm_tir__bind_int(in, (const tvm_tir_var_obj*)s, compact[k], "stride"));
    }
    if (is_unbound_var(in, buf->elem_offset)) {
      TRY(tvm_tir__bind_int(in, (const tvm_tir_var_obj*)buf->elem_offset, 0, "elem_offset"));
    }
  }
  int64_t elems, nbytes;
  TRY(buffer_span(in, buf, &elems));
  if (__builtin_mul_overflow(elems, tvm_tir__elem_bytes(buf->dtype), &nbytes)) {
    return tvm_tir__raise_at("ValueError", buf, "buffer %s is too large", tvm_tir_buffer_name(buf));
  }
  char* p;
  char what[160];
  snprintf(what, sizeof(what), "buffer %s", tvm_tir_buffer_name(buf));
  TRY(tvm_tir__alloc_region(in, what, nbytes, &p));
  return tvm_tir__bind_handle(in, buf->data, p);
}

/* match_buffer (spec Block item iii): buf aliases the source region. */
int tvm_tir__match_buffer(tir_interp* in, const tvm_tir_match_buffer_region_obj* m) {
  const tvm_tir_buffer_obj* buf = m->buffer;
  const tvm_tir_buffer_obj* src = m->source->buffer;
  void* region = m->source->region;
  int64_t nr = tvm_tir_array_size(region), nb = tvm_tir_buffer_ndim(buf);
  const char* name = tvm_tir_buffer_name(buf);
  if (nb > nr || nr > TIR_MAX_DIMS || nr != tvm_tir_buffer_ndim(src)) {
    return tvm_tir__raise_at("RuntimeError", m,
                             "match_buffer %s: %lld dimensions for a region of %lld", name,
                             (long long)nb, (long long)nr);
  }
  int64_t mins[TIR_MAX_DIMS], src_shape[TIR_MAX_DIMS], src_strides[TIR_MAX_DIMS], src_offset;
  TRY(eval_shape(in, src, src_shape));
  for (int64_t k = 0; k < nr; ++k) {
    const tvm_tir_range_obj* r = tvm_tir_array_at(region, k);
    int64_t extent = 1;
    TRY(tvm_tir__eval_int(in, r->min, &mins[k]));
    if (r->extent) TRY(tvm_tir__eval_int(in, r->extent, &extent));
    if (mins[k] < 0 || extent < 0 || mins[k] > src_shape[k] - extent) {
      return tvm_tir__raise_at("IndexError", m,
                               "match_buffer %s: the region (min %lld, extent %lld) of dimension "
                               "%lld is outside buffer %s of extent %lld",
                               name, (long long)mins[k], (long long)extent, (long long)k,
                               tvm_tir_buffer_name(src), (long long)src_shape[k]);
    }
    if (k >= nr - nb)
      TRY(tvm_tir__match_field(in, tvm_tir_array_at(buf->shape, k - (nr - nb)), extent, name,
                               "shape", k - (nr - nb)));
  }
  /* The alias shares the source's data; its layout variables, if any, describe the view. */
  const tir_value* data = tvm_tir__lookup(in, src->data);
  if (!data) {
    return tvm_tir__raise_at("RuntimeError", m,
                             "match_buffer %s: source buffer %s is not allocated", name,
                             tvm_tir_buffer_name(src));
  }
  TRY(tvm_tir__bind(in, buf->data, data));
  TRY(buffer_layout(in, src, &src_offset, src_strides));
  for (int64_t k = 0; k < nr; ++k) {
    if (!add_product(&src_offset, mins[k], src_strides[k])) {
      return tvm_tir__raise_at("ValueError", m, "match_buffer %s: element offset overflows", name);
    }
  }
  for (int64_t k = 0; k < tvm_tir_array_size(buf->strides) && k < nb; ++k) {
    const tvm_tir_expr_obj* s = tvm_tir_array_at(buf->strides, k);
    if (is_unbound_var(in, s))
      TRY(tvm_tir__bind_int(in, (const tvm_tir_var_obj*)s, src_strides[nr - nb + k], name));
  }
  if (is_unbound_var(in, buf->elem_offset)) {
    TRY(tvm_tir__bind_int(in, (const tvm_tir_var_obj*)buf->elem_offset, src_offset, name));
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

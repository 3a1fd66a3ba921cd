/*
 * parse_subscript.c: subscripts in the TVMScript evaluator (parse_eval.h), as upstream's
 * Buffer.__getitem__: Buffer[i, j] is a BufferLoad; with a slice and no step a BufferRegion
 * (`A[0:4, i]`, extents simplified: `A[4 * i:4 * i + 4]` has extent 4); with a step a BufferLoad
 * through Ramp indices. Tuples / lists / `A.shape` index by int (negative from the end), dicts
 * by key. Stores (`A[i] = v`, `A[0:4] = v`) use the same indices, a slice becoming a Ramp.
 */
#include <string.h>
#include <tvm-private/tir.h>
#include <tvm/tir/arith.h>

#include "parse_eval.h"
#include "script_relax_internal.h"

static bool is_kind(const TVMFFIAny* v, tvm_tir_kind k) {
  return tvm_ffi_any_is_object(v) && tvm_tir_kind_of(v->v_obj) == k;
}

static bool is_seq(const TVMFFIAny* v) {
  return v->type_index == kTVMFFIArray || v->type_index == kTVMFFIList;
}

/* One index of a subscript: a slice's parts (None when absent) or a scalar value. */
typedef struct {
  bool is_slice;
  TVMFFIAny value, start, stop, step;
} index_val;

static void index_vals_free(index_val* iv, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    tvm_ffi_any_release(&iv[i].value);
    tvm_ffi_any_release(&iv[i].start);
    tvm_ffi_any_release(&iv[i].stop);
    tvm_ffi_any_release(&iv[i].step);
  }
}

static int eval_opt(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  return e ? tvm_script__eval(p, e, out) : 0;
}

static int eval_indices(script_parser* p, ast_exprs indices, index_val* iv, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const ast_expr* ix = indices.items[i];
    memset(&iv[i], 0, sizeof(iv[i]));
    if (ix->kind == AST_SLICE) {
      iv[i].is_slice = true;
      if (eval_opt(p, ix->u.slice.start, &iv[i].start) != 0 ||
          eval_opt(p, ix->u.slice.stop, &iv[i].stop) != 0 ||
          eval_opt(p, ix->u.slice.step, &iv[i].step) != 0) {
        index_vals_free(iv, i + 1);
        return -1;
      }
    } else if (tvm_script__eval(p, ix, &iv[i].value) != 0) {
      index_vals_free(iv, i + 1);
      return -1;
    }
  }
  return 0;
}

/* start/stop/step of a slice index as PrimExprs (start default 0, stop default dim). */
static int slice_parts(const index_val* iv, const tvm_tir_buffer_obj* buf, int64_t dim,
                       tvm_tir_expr_obj** start, tvm_tir_expr_obj** stop, int64_t* step) {
  *start = *stop = NULL;
  *step = 1;
  if (!tvm_ffi_any_is_none(&iv->step) &&
      tvm_script__value_to_int(&iv->step, "the step of a slice", step) != 0) {
    return -1;
  }
  if (*step <= 0) return tvm_ffi_raise("ValueError", "the step of a slice must be positive");
  const TVMFFIAny* shp =
      dim < tvm_ffi_seq_size(buf->shape) ? tvm_ffi_seq_at(buf->shape, dim) : NULL;
  DLDataType idx =
      shp && tvm_ffi_any_is_object(shp) ? tvm_tir_expr_dtype(shp->v_obj) : TVM_TIR_INT32;
  *start = tvm_ffi_any_is_none(&iv->start) ? tvm_tir_const_int(idx, 0)
                                           : script__to_expr(&iv->start, NULL);
  if (!*start) return -1;
  if (tvm_ffi_any_is_none(&iv->stop)) {
    if (!shp) return tvm_ffi_raise("ValueError", "a slice without a stop needs a buffer dimension");
    *stop = script__to_expr(shp, NULL);
  } else {
    *stop = script__to_expr(&iv->stop, &(*start)->dtype);
  }
  if (!*stop) return -1;
  /* (a float bound would make a float extent, which no region or vector slice has) */
  for (int i = 0; i < 2; ++i) {
    DLDataType t = (i ? *stop : *start)->dtype;
    if (!tvm_tir_dtype_is_index(t)) {
      return tvm_ffi_raise("TypeError", "the %s of a slice of a buffer must be an integer, got %s",
                           i ? "stop" : "start", tvm_tir_dtype_str(t).s);
    }
  }
  return 0;
}

/* Constant number of lanes of start:stop:step, or -1 with an error. */
static int64_t slice_lanes(tvm_tir_expr_obj* start, tvm_tir_expr_obj* stop, int64_t step) {
  tvm_tir_expr_obj* ext = tvm_script__range_extent(start, stop);
  int64_t e;
  bool ok = ext && tvm_tir_as_const_int(ext, &e);
  tvm_ffi_release(ext);
  if (!ok) {
    if (!tvm_ffi_error_pending()) {
      tvm_ffi_raise("ValueError", "a vector slice needs a constant length");
    }
    return -1;
  }
  if (e <= 0) return tvm_ffi_raise("ValueError", "a vector slice must not be empty");
  return (e + step - 1) / step;
}

/* A Ramp index for a slice (or the start when it has one lane). */
static tvm_tir_expr_obj* ramp_index(const index_val* iv, const tvm_tir_buffer_obj* buf,
                                    int64_t dim) {
  tvm_tir_expr_obj *start, *stop;
  int64_t step;
  if (slice_parts(iv, buf, dim, &start, &stop, &step) != 0) {
    tvm_ffi_release(start);
    tvm_ffi_release(stop);
    return NULL;
  }
  int64_t lanes = slice_lanes(start, stop, step);
  tvm_tir_expr_obj* r = NULL;
  if (lanes == 1) {
    r = start;
    start = NULL;
  } else if (lanes > 1) {
    tvm_tir_expr_obj* st = tvm_tir_const_int(start->dtype, step);
    r = st ? tvm_tir_ramp_new(start, st, (int32_t)lanes) : NULL;
    tvm_ffi_release(st);
  }
  tvm_ffi_release(start);
  tvm_ffi_release(stop);
  return r;
}

/* Buffer indices of mixed bit widths (an int64 loop variable next to an int32 one, T.grid(n, 4)
 * with an int64 n): upstream keeps them as written and widens them when the access is
 * flattened; here the narrower integer indices are cast to the widest width (a literal becomes
 * a literal of that width), which keeps the value, so every later pass sees one index width
 * (docs/tir-decisions.md). Non-integer and bool indices are left to the constructor's checks.
 * Each item is an owned PrimExpr; 0, or -1 (unlocated) when a cast fails. */
static int widen_index_items(TVMFFIAny* items, int64_t n) {
  int bits = 0;
  bool mixed = false;
  for (int64_t i = 0; i < n; ++i) {
    DLDataType t = ((const tvm_tir_expr_obj*)items[i].v_obj)->dtype;
    if (!tvm_tir_dtype_is_integer(t) || t.bits == 1) return 0;
    mixed |= i > 0 && t.bits != bits;
    if (t.bits > bits) bits = t.bits;
  }
  for (int64_t i = 0; mixed && i < n; ++i) {
    tvm_tir_expr_obj* e = (tvm_tir_expr_obj*)items[i].v_obj;
    if (e->dtype.bits == bits) continue;
    DLDataType t = e->dtype;
    t.bits = (uint8_t)bits;
    tvm_tir_expr_obj* c = tvm_tir_cast(t, e);
    if (!c) return -1;
    tvm_ffi_any_release(&items[i]);
    items[i] = tvm_ffi_any_obj(c);
  }
  return 0;
}

/* The indices of buffer[...] as an Array of PrimExpr (slices become Ramps). Unlocated error. */
static void* buffer_indices(const tvm_tir_buffer_obj* buf, const index_val* iv, int64_t n) {
  tvm_script_items idx;
  if (!tvm_script_items_init(&idx, n)) return NULL;
  for (int64_t k = 0; k < n; ++k) {
    tvm_tir_expr_obj* e =
        iv[k].is_slice ? ramp_index(&iv[k], buf, k) : script__to_expr(&iv[k].value, NULL);
    if (!e) {
      tvm_script_items_free(&idx);
      return NULL;
    }
    tvm_script_items_push(&idx, e);
  }
  void* arr = widen_index_items(idx.items, idx.n) == 0 ? tvm_script_items_to_array(&idx) : NULL;
  tvm_script_items_free(&idx);
  return arr;
}

/* buffer[...] with a slice and no step: a BufferRegion. Unlocated error. */
static void* buffer_region(tvm_tir_buffer_obj* buf, const index_val* iv, int64_t n) {
  tvm_script_items ranges;
  if (!tvm_script_items_init(&ranges, n)) return NULL;
  int rc = 0;
  for (int64_t k = 0; rc == 0 && k < n; ++k) {
    tvm_tir_expr_obj *start = NULL, *stop = NULL, *ext = NULL;
    int64_t step = 1;
    if (iv[k].is_slice) {
      rc = slice_parts(&iv[k], buf, k, &start, &stop, &step);
      ext = rc == 0 ? tvm_script__range_extent(start, stop) : NULL;
    } else {
      start = script__to_expr(&iv[k].value, NULL);
      /* (an index as a load's: an integer; a float one would print as a float slice) */
      if (start && !tvm_tir_dtype_is_index(start->dtype)) {
        tvm_ffi_raise("TypeError", "an index of a region of a buffer must be an integer, got %s",
                      tvm_tir_dtype_str(start->dtype).s);
        tvm_ffi_release(start);
        start = NULL;
      }
      ext = start ? tvm_tir_const_int(start->dtype, 1) : NULL;
    }
    tvm_tir_range_obj* r = ext ? tvm_tir_range_new(start, ext) : NULL;
    if (r) tvm_script_items_push(&ranges, r);
    if (!r) rc = -1;
    tvm_ffi_release(start);
    tvm_ffi_release(stop);
    tvm_ffi_release(ext);
  }
  void* arr = rc == 0 ? tvm_script_items_to_array(&ranges) : NULL;
  tvm_script_items_free(&ranges);
  void* region = arr ? tvm_tir_buffer_region_new(buf, arr) : NULL;
  tvm_ffi_release(arr);
  return region;
}

tvm_tir_expr_obj* tvm_script__region_as_load(const tvm_tir_buffer_region_obj* r) {
  int64_t n = tvm_ffi_seq_size(r->region), vector_axes = 0;
  tvm_script_items idx;
  if (!tvm_script_items_init(&idx, n)) return NULL;
  for (int64_t k = 0; k < n; ++k) {
    const tvm_tir_range_obj* range = tvm_ffi_seq_obj_at(r->region, k);
    int64_t ext;
    tvm_tir_expr_obj* e = NULL;
    if (!tvm_tir_as_const_int(range->extent, &ext) || ext < 1 || ext > 65535 ||
        (ext > 1 && ++vector_axes > 1)) {
      tvm_ffi_raise("TypeError",
                    "a region of buffer `%s` used as a value must have constant extents, "
                    "all 1 but at most one (a vector)",
                    tvm_tir_buffer_name(r->buffer));
    } else if (ext == 1) {
      e = tvm_tir_ref(range->min);
    } else {
      tvm_tir_expr_obj* one = tvm_tir_const_int(range->min->dtype, 1);
      e = one ? tvm_tir_ramp_new(range->min, one, (int32_t)ext) : NULL;
      tvm_ffi_release(one);
    }
    if (!e) {
      tvm_script_items_free(&idx);
      return NULL;
    }
    tvm_script_items_push(&idx, e);
  }
  void* arr = tvm_script_items_to_array(&idx);
  tvm_script_items_free(&idx);
  tvm_tir_expr_obj* load = arr ? tvm_tir_buffer_load_new(r->buffer, arr) : NULL;
  tvm_ffi_release(arr);
  return load;
}

/* An int index into a sequence of size n (Python's negative indices). */
static int seq_index(script_parser* p, const tvm_script_span* at, const TVMFFIAny* v, int64_t n,
                     int64_t* out) {
  int64_t i;
  if (tvm_script__value_to_int(v, "an index", &i) != 0) return tvm_script__relocate(p, at);
  int64_t given = i;
  if (i < 0) i += n;
  if (i < 0 || i >= n) {
    return tvm_script__error_at(p, at, "IndexError", "index %lld out of range (%lld items)",
                                (long long)given, (long long)n);
  }
  *out = i;
  return 0;
}

/* The indices of a buffer subscript: `A[(i, j)]` and `A[i,]` are `A[i, j]` and `A[i]` as in
 * Python, and `A[()]` indexes a 0-d buffer with no index. */
static ast_exprs buffer_index_list(ast_exprs indices) {
  if (indices.n == 1 && indices.items[0]->kind == AST_TUPLE) return indices.items[0]->u.elts;
  return indices;
}

/* Whether every index is a scalar (no slice) and they fit the fast paths' stack arrays. */
static bool scalar_indices(ast_exprs indices) {
  if (indices.n > 8) return false;
  for (int32_t i = 0; i < indices.n; ++i) {
    if (indices.items[i]->kind == AST_SLICE) return false;
  }
  return true;
}

/* The indices of buffer[i, j] when none is a slice (scalar_indices), into idx as PrimExprs:
 * the common load and store, without the slice bookkeeping of index_val. Same order as
 * eval_indices + buffer_indices: every index is evaluated first (a located error), then each
 * is converted (an unlocated error, which the caller relocates). An evaluated PrimExpr is moved
 * into idx rather than copied. 0, or -1 with *located telling which kind of error. */
static int scalar_buffer_indices(script_parser* p, ast_exprs indices, int64_t n,
                                 tvm_script_items* idx, bool* located) {
  TVMFFIAny* vals = idx->items; /* evaluated in place, then converted in place */
  *located = true;
  for (int64_t i = 0; i < n; ++i) {
    if (tvm_script__eval(p, indices.items[i], &vals[i]) != 0) {
      idx->n = i; /* release what was evaluated (tvm_script__eval left vals[i] None) */
      return -1;
    }
  }
  idx->n = n;
  *located = false;
  for (int64_t i = 0; i < n; ++i) {
    if (tvm_ffi_any_is_object(&vals[i]) && tvm_script__is_expr(vals[i].v_obj)) continue;
    tvm_tir_expr_obj* e = script__to_expr(&vals[i], NULL);
    tvm_ffi_any_release(&vals[i]);
    if (!e) return -1;
    vals[i] = tvm_ffi_any_obj(e);
  }
  return widen_index_items(vals, n);
}

/* The Buffer a subscripted name is bound to (borrowed), as tvm_script__eval would evaluate that
 * name (to a copy), or NULL for any other value. Borrowing is safe for the subscript's
 * evaluation: the indices' evaluation binds no name of an enclosing scope (a lambda's
 * parameters are bound in a scope of its own, popped after it), so the binding keeps the Buffer
 * alive. Past the depth bound, tvm_script__eval reports it as before. */
static tvm_tir_buffer_obj* named_buffer(script_parser* p, const ast_expr* e) {
  if (p->eval_depth >= SCRIPT_MAX_EVAL_DEPTH || e->kind != AST_NAME) return NULL;
  const TVMFFIAny* v = script__vt_lookup(&p->vt, e->u.name);
  return v && is_kind(v, TVM_TIR_KIND_Buffer) ? (tvm_tir_buffer_obj*)v->v_obj : NULL;
}

/* A load A[i, j] without slices (scalar_indices) of a Buffer (borrowed). */
static int scalar_load(script_parser* p, const ast_expr* e, tvm_tir_buffer_obj* buf,
                       ast_exprs indices, TVMFFIAny* out) {
  int64_t n = indices.n;
  tvm_script_items idx;
  tvm_script_items_init(&idx, n); /* n <= 8: on the stack */
  bool located;
  int rc = scalar_buffer_indices(p, indices, n, &idx, &located);
  void* arr = rc == 0 ? tvm_script_items_to_array(&idx) : NULL;
  /* buf is a Buffer (both callers test its kind) and every index a PrimExpr
   * (scalar_buffer_indices): the typed constructor makes only the index count and dtype
   * checks, with the same errors. */
  void* r = arr ? tvm_tir__buffer_load_new_typed(buf, arr) : NULL;
  tvm_ffi_release(arr);
  tvm_script_items_free(&idx);
  if (r) {
    *out = tvm_ffi_any_obj(r);
    return 0;
  }
  return rc != 0 && located ? -1 : tvm_script__relocate(p, &e->span);
}

int tvm_script__eval_region(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (e->kind != AST_SUBSCRIPT) return 1;
  ast_exprs indices = buffer_index_list(e->u.subscript.indices);
  int64_t n = indices.n;
  /* (named_buffer is NULL at the depth bound: tvm_script__eval then reports it.) */
  tvm_tir_buffer_obj* buf = named_buffer(p, e->u.subscript.value);
  if (!buf || !scalar_indices(indices)) return 1;
  /* scalar_load's steps, at the depth tvm_script__eval would evaluate them; the load's checks
   * (tvm_tir_buffer_load_check) fail where its constructor would, and are relocated alike. */
  ++p->eval_depth;
  tvm_script_items idx;
  tvm_script_items_init(&idx, n); /* n <= 8: on the stack */
  bool located;
  int rc = scalar_buffer_indices(p, indices, n, &idx, &located);
  if (rc == 0) rc = tvm_tir_buffer_load_check(buf, idx.items, n);
  void* r = rc == 0 ? tvm_script__load_region(buf, idx.items, n) : NULL;
  tvm_script_items_free(&idx);
  --p->eval_depth;
  if (r) {
    *out = tvm_ffi_any_obj(r);
    return 0;
  }
  return rc != 0 && located ? -1 : tvm_script__relocate(p, &e->span);
}

/* The subscript e's value into *v (0), except for `x.shape[i]` / `x.strides[i]` of a Relax
 * tensor x: then *out is the relax.inspect call (1); -1 on error. */
static int tensor_field_index(script_parser* p, const ast_expr* e, TVMFFIAny* v, TVMFFIAny* out) {
  const ast_expr* value = e->u.subscript.value;
  if (value->kind != AST_ATTR || (strcmp(value->u.attr.name->text, "shape") != 0 &&
                                  strcmp(value->u.attr.name->text, "strides") != 0)) {
    return tvm_script__eval(p, value, v);
  }
  TVMFFIAny x = tvm_ffi_any_none();
  if (tvm_script__eval(p, value->u.attr.value, &x) != 0) return -1;
  if (!tvm_script__is_relax_value(&x)) return tvm_script__attr_of(p, value, &x, v);
  ast_exprs indices = e->u.subscript.indices;
  if (indices.n != 1 || indices.items[0]->kind == AST_SLICE) {
    tvm_ffi_any_release(&x);
    return tvm_script__error_at(p, &e->span, "TypeError",
                                "`.%s[i]` of a Relax tensor takes one axis (an integer)",
                                value->u.attr.name->text);
  }
  TVMFFIAny axis = tvm_ffi_any_none();
  if (tvm_script__eval(p, indices.items[0], &axis) != 0) {
    tvm_ffi_any_release(&x);
    return -1;
  }
  const char* op = tvm_script__relax_inspect_op(value->u.attr.name->text, false);
  tvm_relax_expr_obj* c = tvm_script__relax_inspect(op, &x, &axis);
  tvm_ffi_any_release(&axis);
  tvm_ffi_any_release(&x);
  if (!c) return tvm_script__relocate(p, &e->span);
  *out = tvm_ffi_any_obj(c);
  return 1;
}

int tvm_script__eval_index(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  ast_exprs indices = e->u.subscript.indices;
  int64_t n = indices.n;
  const tvm_script_span* at = &e->span;
  tvm_tir_buffer_obj* named = named_buffer(p, e->u.subscript.value);
  if (named && scalar_indices(buffer_index_list(indices))) {
    return scalar_load(p, e, named, buffer_index_list(indices), out);
  }
  TVMFFIAny v = tvm_ffi_any_none();
  int field = tensor_field_index(p, e, &v, out);
  if (field != 0) return field < 0 ? -1 : 0;
  if (is_kind(&v, TVM_TIR_KIND_Buffer)) {
    indices = buffer_index_list(indices);
    n = indices.n;
  }
  if (is_kind(&v, TVM_TIR_KIND_Buffer) && scalar_indices(indices)) {
    int rc = scalar_load(p, e, (void*)v.v_obj, indices, out);
    tvm_ffi_any_release(&v);
    return rc;
  }
  index_val stack_iv[8];
  index_val* iv = n <= 8 ? stack_iv : tvm_ffi_calloc((size_t)n, sizeof(index_val));
  int rc = -1;
  if (!iv) {
    tvm_script__relocate(p, at);
    goto done_v;
  }
  if (eval_indices(p, indices, iv, n) != 0) goto done_iv_nofree;
  bool any_slice = false, any_step = false;
  for (int64_t i = 0; i < n; ++i) {
    any_slice |= iv[i].is_slice;
    any_step |= iv[i].is_slice && !tvm_ffi_any_is_none(&iv[i].step);
  }
  if (is_kind(&v, TVM_TIR_KIND_Buffer)) {
    void* r;
    if (any_slice && !any_step) {
      r = buffer_region((void*)v.v_obj, iv, n);
    } else {
      void* idx = buffer_indices((void*)v.v_obj, iv, n);
      r = idx ? tvm_tir_buffer_load_new((void*)v.v_obj, idx) : NULL;
      tvm_ffi_release(idx);
    }
    if (r) {
      *out = tvm_ffi_any_obj(r);
      rc = 0;
    } else {
      tvm_script__relocate(p, at);
    }
  } else if (is_seq(&v) && n == 1 && !any_slice) {
    int64_t i = 0;
    if (seq_index(p, &indices.items[0]->span, &iv[0].value, tvm_ffi_seq_size(v.v_obj), &i) == 0) {
      *out = tvm_ffi_any_copy(tvm_ffi_seq_at(v.v_obj, i));
      rc = 0;
    }
  } else if (tvm_ffi_any_is_object(&v) && tvm_relax_kind_of(v.v_obj) == TVM_RELAX_KIND_ShapeExpr &&
             n == 1 && !any_slice) {
    /* s[i] of a shape literal (`x.struct_info.shape[0]`): its i-th dim, as upstream's
     * ShapeExpr.__getitem__ */
    const void* dims = ((const tvm_relax_shape_expr_obj*)v.v_obj)->values;
    int64_t i = 0;
    if (seq_index(p, &indices.items[0]->span, &iv[0].value, tvm_ffi_seq_size(dims), &i) == 0) {
      *out = tvm_ffi_any_copy(tvm_ffi_seq_at(dims, i));
      rc = 0;
    }
  } else if (tvm_ffi_any_is_object(&v) && tvm_relax_is_expr(v.v_obj) && n == 1 && !any_slice) {
    /* x[i] of a Relax tuple: a TupleGetItem */
    int64_t i = 0;
    if (tvm_script__value_to_int(&iv[0].value, "a tuple index", &i) != 0) {
      tvm_script__relocate(p, &indices.items[0]->span);
    } else {
      tvm_relax_expr_obj* r = tvm_script__relax_getitem(&v, i);
      if (r) {
        *out = tvm_ffi_any_obj(r);
        rc = 0;
      } else {
        tvm_script__relocate(p, at);
      }
    }
  } else if ((v.type_index == kTVMFFIMap || v.type_index == kTVMFFIDict) && n == 1 && !any_slice) {
    const TVMFFIAny* r = tvm_ffi_map_get(v.v_obj, &iv[0].value);
    if (r) {
      *out = tvm_ffi_any_copy(r);
      rc = 0;
    } else {
      TVMFFIByteArray key;
      if (tvm_ffi_any_as_bytes(&iv[0].value, &key)) {
        tvm_script__error_at(p, &indices.items[0]->span, "KeyError", "key \"%.*s\" not found",
                             (int)key.size, key.data);
      } else {
        tvm_script__error_at(p, &indices.items[0]->span, "KeyError", "key not found");
      }
    }
  } else {
    tvm_script__error_at(p, &e->u.subscript.value->span, "TypeError",
                         "'%s' object is not subscriptable%s",
                         tvm_ffi_any_type_name(&v),
                         is_seq(&v) || v.type_index == kTVMFFIMap ? " this way" : "");
  }
  index_vals_free(iv, n);
done_iv_nofree:
  if (iv != stack_iv) tvm_ffi_free(iv);
done_v:
  tvm_ffi_any_release(&v);
  return rc;
}

int tvm_script__store(script_parser* p, const ast_expr* lhs, const TVMFFIAny* value,
                      const tvm_script_span* at) {
  TVMFFIAny bv = tvm_ffi_any_none();
  const ast_expr* target = lhs->u.subscript.value;
  ast_exprs indices = lhs->u.subscript.indices;
  tvm_tir_buffer_obj* named = named_buffer(p, target);
  if (named) {
    tvm_ffi_retain(named); /* the copy tvm_script__eval would make */
    bv = tvm_ffi_any_obj(named);
  } else if (tvm_script__eval(p, target, &bv) != 0) {
    return -1;
  }
  if (!is_kind(&bv, TVM_TIR_KIND_Buffer)) {
    tvm_script__error_at(p, &target->span, "TypeError",
                         "cannot store into '%s': only a Buffer can be "
                         "stored into with [...]",
                         tvm_ffi_any_type_name(&bv));
    tvm_ffi_any_release(&bv);
    return -1;
  }
  tvm_tir_buffer_obj* buf = (void*)bv.v_obj;
  indices = buffer_index_list(indices);
  int64_t n = indices.n;
  if (scalar_indices(indices)) {
    /* A[i, j] = v: as below (a literal takes the buffer's dtype; scalar indices have one lane
     * unless an index is itself a vector). */
    tvm_script_items idx;
    tvm_script_items_init(&idx, n); /* n <= 8: on the stack */
    bool located;
    int rc = scalar_buffer_indices(p, indices, n, &idx, &located);
    if (rc != 0) {
      if (!located) tvm_script__relocate(p, &lhs->span);
    } else {
      DLDataType t = buf->dtype;
      for (int64_t i = 0; i < n; ++i) {
        int lanes = ((const tvm_tir_expr_obj*)idx.items[i].v_obj)->dtype.lanes;
        if (lanes > 1) t.lanes = (uint16_t)(t.lanes * lanes);
      }
      void* arr = tvm_script_items_to_array(&idx);
      tvm_tir_expr_obj* e = arr ? script__to_expr(value, &t) : NULL;
      if (!arr) {
        rc = tvm_script__relocate(p, &lhs->span);
      } else if (!e || tvm_script_tir_buffer_store(p->b, buf, e, arr) != 0) {
        rc = tvm_script__relocate(p, at);
      }
      tvm_ffi_release(e);
      tvm_ffi_release(arr);
    }
    tvm_script_items_free(&idx);
    tvm_ffi_any_release(&bv);
    return rc == 0 ? 0 : -1;
  }
  index_val stack_iv[8];
  index_val* iv = n <= 8 ? stack_iv : tvm_ffi_calloc((size_t)n, sizeof(index_val));
  int rc = -1;
  if (!iv) {
    tvm_script__relocate(p, &lhs->span);
  } else if (eval_indices(p, indices, iv, n) == 0) {
    void* idx = buffer_indices(buf, iv, n);
    index_vals_free(iv, n);
    if (!idx) {
      tvm_script__relocate(p, &lhs->span);
    } else {
      /* A Python literal takes the buffer's element type (with the indices' lanes). */
      DLDataType t = buf->dtype;
      for (int64_t i = 0; i < tvm_ffi_seq_size(idx); ++i) {
        int lanes = tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(idx, i)).lanes;
        if (lanes > 1) t.lanes = (uint16_t)(t.lanes * lanes);
      }
      tvm_tir_expr_obj* v = script__to_expr(value, &t);
      if (!v) {
        tvm_script__relocate(p, at);
      } else if (tvm_script_tir_buffer_store(p->b, buf, v, idx) != 0) {
        tvm_script__relocate(p, at);
      } else {
        rc = 0;
      }
      tvm_ffi_release(v);
      tvm_ffi_release(idx);
    }
  }
  if (iv && iv != stack_iv) tvm_ffi_free(iv);
  tvm_ffi_any_release(&bv);
  return rc;
}

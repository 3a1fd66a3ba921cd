/*
 * buffer.c: Range, IterVar, Buffer, BufferRegion, MatchBufferRegion and the rules of spec section
 * "Typing Rules for Other Language Constructs" (O1-O5).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- Range --------------------------------------------------------------------------------- */
tvm_tir_range_obj* tvm_tir_range_new(tvm_tir_expr_obj* min, tvm_tir_expr_obj* extent) {
  if (!min) return tvm_tir__null_arg("Range", "min");
  if (tvm_tir__check_kind(min, TVM_TIR_KIND_PrimExpr, "Range", "min") != 0 ||
      tvm_tir__check_kind(extent, TVM_TIR_KIND_PrimExpr, "Range", "extent") != 0) {
    return NULL;
  }
  tvm_tir_range_obj* r = TIR_NEW_UNINIT(tvm_tir_range_obj, Range); /* (both fields set) */
  if (!r) return NULL;
  r->min = tir_expr_retain(min);
  r->extent = extent ? tir_expr_retain(extent) : NULL;
  return r;
}

/* ---- IterVar ------------------------------------------------------------------------------- */
tvm_tir_iter_var_obj* tvm_tir_iter_var_new(tvm_tir_range_obj* dom, tvm_tir_var_obj* var,
                                           tvm_tir_iter_var_type iter_type,
                                           const char* thread_tag) {
  if (!var) return tvm_tir__null_arg("IterVar", "var");
  if (tvm_tir__check_kind(var, TVM_TIR_KIND_Var, "IterVar", "var") != 0 ||
      tvm_tir__check_kind(dom, TVM_TIR_KIND_Range, "IterVar", "dom") != 0) {
    return NULL;
  }
  if ((int)iter_type < TVM_TIR_ITER_DATA_PAR || (int)iter_type > TVM_TIR_ITER_TENSORIZED) {
    tvm_ffi_raise("ValueError", "IterVar: invalid iter_type %d", (int)iter_type);
    return NULL;
  }
  if (dom && dom->extent) {
    DLDataType te = dom->extent->dtype;
    const char* why = NULL;
    if (!tvm_tir_dtype_is_int(te) || te.lanes != 1) {
      why = "dom->extent must be an Int scalar";
    } else if (!tvm_tir_dtype_equal(te, var->expr.dtype)) {
      why = "dom->extent and var must have the same dtype";
    }
    if (why) {
      return tvm_tir__type_error(TVM_TIR_RULE_O_ITERVAR, "IterVar", why, "dom", dom, "var", var,
                                 "dom->extent", dom->extent, NULL);
    }
  }
  void* tag = tvm_tir__str(thread_tag);
  tvm_tir_iter_var_obj* iv = tag ? TIR_NEW(tvm_tir_iter_var_obj, IterVar) : NULL;
  if (!iv) {
    tvm_ffi_release(tag);
    return NULL;
  }
  tvm_ffi_retain(dom);
  tvm_ffi_retain(var);
  iv->dom = dom;
  iv->var = var;
  iv->iter_type = (int32_t)iter_type;
  iv->thread_tag = tag;
  return iv;
}

/* ---- Buffer -------------------------------------------------------------------------------- */
/* An Int/UInt scalar expression check of an array's elements; all of one dtype if same_dtype. */
static int check_index_exprs(const void* arr, const char* field, bool same_dtype) {
  int64_t n = tvm_ffi_seq_size(arr);
  for (int64_t i = 0; i < n; ++i) {
    const tvm_tir_expr_obj* e = (const tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(arr, i);
    const tvm_tir_expr_obj* first = (const tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(arr, 0);
    const char* why = NULL;
    if (!tvm_tir_dtype_is_index(e->dtype)) {
      why = "must be Int or UInt scalars";
    } else if (same_dtype && !tvm_tir_dtype_equal(e->dtype, first->dtype)) {
      why = "must all have the same dtype";
    }
    if (why) {
      char what[96], name[48];
      snprintf(what, sizeof(what), "%s %s", field, why);
      snprintf(name, sizeof(name), "%s[%lld]", field, (long long)i);
      tvm_tir__type_error(TVM_TIR_RULE_O_BUFFER, "Buffer", what, name, e, NULL);
      return -1;
    }
  }
  return 0;
}

/* A dimension is a size: a constant one must not be negative (symbolic ones are checked
 * where they are bound, by the interpreter and the compiled entry). */
static int check_shape_sizes(const void* shape, const char* name) {
  int64_t n = tvm_ffi_seq_size(shape);
  for (int64_t i = 0; i < n; ++i) {
    const void* e = tvm_ffi_seq_obj_at(shape, i);
    if (TIR_IS(e, IntImm) && ((const tvm_tir_int_imm_obj*)e)->value < 0) {
      return tvm_ffi_raise("ValueError", "Buffer %s: shape[%lld] is %lld; a dimension must not be "
                           "negative", name, (long long)i,
                           (long long)((const tvm_tir_int_imm_obj*)e)->value);
    }
  }
  return 0;
}

/* Fresh stride Vars "<name>_s<i>" for an auto-broadcast buffer (spec O3 item 5). */
static void* broadcast_strides(const char* name, const void* shape) {
  int64_t n = tvm_ffi_seq_size(shape);
  TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  if (!items) return NULL;
  void* arr = NULL;
  int64_t made = 0;
  for (; made < n; ++made) {
    char vname[256];
    snprintf(vname, sizeof(vname), "%s_s%lld", name, (long long)made);
    DLDataType t = ((const tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(shape, made))->dtype;
    tvm_tir_var_obj* v = tvm_tir_var_new(vname, t);
    if (!v) break;
    items[made] = tvm_ffi_any_obj(v);
  }
  if (made == n) arr = tvm_ffi_array_new_take(items, n);
  for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&items[i]);
  tvm_ffi_free(items);
  return arr;
}

tvm_tir_buffer_obj* tvm_tir_buffer_new(const tvm_tir_buffer_fields* f) {
  if (!f || !f->data) return tvm_tir__null_arg("Buffer", "data");
  if (tvm_tir__check_kind(f->data, TVM_TIR_KIND_Var, "Buffer", "data") != 0 ||
      tvm_tir__check_kind(f->elem_offset, TVM_TIR_KIND_PrimExpr, "Buffer", "elem_offset") != 0) {
    return NULL;
  }
  const tvm_tir_type_obj* ann = f->data->type_annotation;
  if (!TIR_IS(ann, PointerType) ||
      !TIR_IS(((const tvm_tir_pointer_type_obj*)ann)->element_type, PrimType)) {
    return tvm_tir__type_error(TVM_TIR_RULE_O_BUFFER, "Buffer",
                               "data must be annotated with a PointerType to a PrimType", "data",
                               f->data, "data->type_annotation", ann, NULL);
  }
  if (tvm_tir__dtype_too_wide(f->dtype)) {
    return tvm_tir__too_wide_error(TVM_TIR_RULE_O_BUFFER, "Buffer", f->dtype);
  }
  int buffer_type = f->buffer_type ? (int)f->buffer_type : TVM_TIR_BUFFER_DEFAULT;
  if (buffer_type != TVM_TIR_BUFFER_DEFAULT && buffer_type != TVM_TIR_BUFFER_AUTO_BROADCAST) {
    tvm_ffi_raise("ValueError", "Buffer: invalid buffer_type %d", buffer_type);
    return NULL;
  }
  const char* name = f->name ? f->name : "buffer";
  void *shape = NULL, *strides = NULL, *seps = NULL, *str = NULL;
  tvm_tir_expr_obj* offset = NULL;
  tvm_tir_buffer_obj* b = NULL;
  if (tvm_tir__array_arg(f->shape, TVM_TIR_KIND_PrimExpr, "Buffer", "shape", &shape) != 0 ||
      tvm_tir__array_arg(f->strides, TVM_TIR_KIND_PrimExpr, "Buffer", "strides", &strides) != 0 ||
      tvm_tir__array_arg(f->axis_separators, TVM_TIR_KIND_IntImm, "Buffer", "axis_separators",
                         &seps) != 0 ||
      check_index_exprs(shape, "shape", false) != 0 ||
      check_index_exprs(strides, "strides", true) != 0 || check_shape_sizes(shape, name) != 0) {
    goto fail;
  }
  DLDataType index_dtype = tvm_ffi_seq_size(shape)
                               ? ((const tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(shape, 0))->dtype
                               : TVM_TIR_INT32;
  if (f->elem_offset) {
    if (!tvm_tir_dtype_is_index(f->elem_offset->dtype)) {
      tvm_tir__type_error(TVM_TIR_RULE_O_BUFFER, "Buffer",
                          "elem_offset must be an Int or UInt scalar", "elem_offset",
                          f->elem_offset, NULL);
      goto fail;
    }
    offset = tir_expr_retain(f->elem_offset);
  } else if (!(offset = tvm_tir_int_imm_new(index_dtype, 0))) {
    goto fail;
  }
  if (buffer_type == TVM_TIR_BUFFER_AUTO_BROADCAST && tvm_ffi_seq_size(strides) == 0 &&
      tvm_ffi_seq_size(shape) > 0) {
    tvm_ffi_release(strides);
    if (!(strides = broadcast_strides(name, shape))) goto fail;
  }
  /* A buffer is usually named as its data Var: share that String (strings are immutable
   * values) rather than copy the text. */
  void* dn = f->data->name_hint;
  size_t n = strlen(name);
  if (dn && tvm_ffi_type_index(dn) == kTVMFFIStr && tvm_ffi_str_view(dn).size == n &&
      memcmp(tvm_ffi_str_view(dn).data, name, n) == 0) {
    tvm_ffi_retain(dn);
    str = dn;
  } else if (!(str = tvm_tir__str(name))) {
    goto fail;
  }
  if (!(b = TIR_NEW(tvm_tir_buffer_obj, Buffer))) goto fail;
  tvm_ffi_retain(f->data);
  b->data = f->data;
  b->dtype = f->dtype;
  b->shape = shape;
  b->strides = strides;
  b->axis_separators = seps;
  b->elem_offset = offset;
  b->name = str;
  b->data_alignment = f->data_alignment > 0 ? f->data_alignment : TVM_TIR_DEFAULT_ALIGNMENT;
  b->offset_factor = f->offset_factor ? f->offset_factor : 1;
  b->buffer_type = buffer_type;
  return b;
fail:
  tvm_ffi_release(shape);
  tvm_ffi_release(strides);
  tvm_ffi_release(seps);
  tvm_ffi_release(offset);
  tvm_ffi_release(str);
  return NULL;
}

tvm_tir_buffer_obj* tvm_tir_buffer_decl_new(const char* name, DLDataType dtype, void* shape,
                                            const char* scope) {
  tvm_tir_pointer_type_obj* ptr = tvm_tir_pointer_type_of(dtype, scope);
  tvm_tir_var_obj* data = ptr ? tvm_tir_var_new_typed(name, &ptr->type) : NULL;
  tvm_ffi_release(ptr);
  if (!data) return NULL;
  tvm_tir_buffer_fields f;
  memset(&f, 0, sizeof(f));
  f.data = data;
  f.dtype = dtype;
  f.shape = shape;
  f.name = name;
  tvm_tir_buffer_obj* b = tvm_tir_buffer_new(&f);
  tvm_ffi_release(data);
  return b;
}

const char* tvm_tir_buffer_scope(const tvm_tir_buffer_obj* b) {
  const char* s = tvm_tir_pointer_type_scope(b->data->type_annotation);
  return s ? s : "";
}

/* ---- BufferRegion -------------------------------------------------------------------------- */
tvm_tir_buffer_region_obj* tvm_tir_buffer_region_new(tvm_tir_buffer_obj* buffer, void* region) {
  if (!buffer) return tvm_tir__null_arg("BufferRegion", "buffer");
  if (tvm_tir__check_kind(buffer, TVM_TIR_KIND_Buffer, "BufferRegion", "buffer") != 0) return NULL;
  void* arr;
  if (tvm_tir__array_arg(region, TVM_TIR_KIND_Range, "BufferRegion", "region", &arr) != 0) {
    return NULL;
  }
  if (tvm_ffi_seq_size(arr) != tvm_tir_buffer_ndim(buffer)) {
    char what[160];
    snprintf(what, sizeof(what), "the region has %lld ranges but buffer %s has %lld dimensions",
             (long long)tvm_ffi_seq_size(arr), tvm_tir_buffer_name(buffer),
             (long long)tvm_tir_buffer_ndim(buffer));
    tvm_tir__type_error(TVM_TIR_RULE_O_BUFFERREGION, "BufferRegion", what, "buffer", buffer,
                        "region", arr, NULL);
    tvm_ffi_release(arr);
    return NULL;
  }
  tvm_tir_buffer_region_obj* r =
      TIR_NEW_UNINIT(tvm_tir_buffer_region_obj, BufferRegion); /* (both fields set) */
  if (!r) {
    tvm_ffi_release(arr);
    return NULL;
  }
  tvm_ffi_retain(buffer);
  r->buffer = buffer;
  r->region = arr;
  return r;
}

tvm_tir_buffer_region_obj* tvm_tir_buffer_region_full(tvm_tir_buffer_obj* buffer) {
  if (!buffer) return tvm_tir__null_arg("BufferRegion", "buffer");
  if (tvm_tir__check_kind(buffer, TVM_TIR_KIND_Buffer, "BufferRegion", "buffer") != 0) return NULL;
  int64_t n = tvm_tir_buffer_ndim(buffer);
  TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return NULL;
  tvm_tir_buffer_region_obj* r = NULL;
  int64_t made = 0;
  for (; made < n; ++made) {
    tvm_tir_expr_obj* extent = (tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(buffer->shape, made);
    tvm_tir_expr_obj* zero = tvm_tir_int_imm_new(extent->dtype, 0);
    tvm_tir_range_obj* range = zero ? tvm_tir_range_new(zero, extent) : NULL;
    tvm_ffi_release(zero);
    if (!range) break;
    items[made] = tvm_ffi_any_obj(range);
  }
  void* arr = made == n ? tvm_ffi_array_new_take(items, n) : NULL;
  if (arr) r = tvm_tir_buffer_region_new(buffer, arr);
  for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&items[i]);
  tvm_ffi_free(items);
  tvm_ffi_release(arr);
  return r;
}

/* ---- MatchBufferRegion --------------------------------------------------------------------- */
static bool is_zero(const tvm_tir_expr_obj* e) {
  int64_t v;
  return tvm_tir_as_const_int(e, &v) && v == 0;
}

tvm_tir_match_buffer_region_obj* tvm_tir_match_buffer_region_new(
    tvm_tir_buffer_obj* buffer, tvm_tir_buffer_region_obj* source) {
  static const char node[] = "MatchBufferRegion";
  if (!buffer) return tvm_tir__null_arg(node, "buffer");
  if (!source) return tvm_tir__null_arg(node, "source");
  if (tvm_tir__check_kind(buffer, TVM_TIR_KIND_Buffer, node, "buffer") != 0 ||
      tvm_tir__check_kind(source, TVM_TIR_KIND_BufferRegion, node, "source") != 0) {
    return NULL;
  }
  const tvm_tir_buffer_obj* src = source->buffer;
  int64_t ndim = tvm_tir_buffer_ndim(buffer), nreg = tvm_ffi_seq_size(source->region);
  int64_t offset = nreg - ndim;
  char what[200];
  const char* why = NULL;
  if (!tvm_tir_dtype_equal(buffer->dtype, src->dtype)) {
    why = "buffer and source buffer must have the same dtype";
  } else if (src->data_alignment % buffer->data_alignment != 0) {
    snprintf(what, sizeof(what),
             "the source buffer's data_alignment %d must be divisible by the buffer's %d",
             (int)src->data_alignment, (int)buffer->data_alignment);
    why = what;
  } else if (is_zero(buffer->elem_offset) && !is_zero(src->elem_offset)) {
    why = "a buffer with elem_offset 0 must match a source buffer with elem_offset 0";
  } else if (strcmp(tvm_tir_buffer_scope(buffer), tvm_tir_buffer_scope(src)) != 0) {
    snprintf(what, sizeof(what), "storage scopes differ: \"%s\" and \"%s\"",
             tvm_tir_buffer_scope(buffer), tvm_tir_buffer_scope(src));
    why = what;
  } else if (buffer->buffer_type != TVM_TIR_BUFFER_DEFAULT ||
             src->buffer_type != TVM_TIR_BUFFER_DEFAULT) {
    why = "both buffers must have buffer_type kDefault";
  } else if (offset < 0) {
    snprintf(what, sizeof(what), "the buffer has %lld dimensions but the region only %lld",
             (long long)ndim, (long long)nreg);
    why = what;
  }
  /* Extents provably 1 (leading region dims) and equal to the shape (the others): checked
   * when both sides are constants; symbolic ones need the simplifier and are left to the
   * well-formedness checker. */
  for (int64_t i = 0; !why && i < nreg; ++i) {
    const tvm_tir_range_obj* r = (const tvm_tir_range_obj*)tvm_ffi_seq_obj_at(source->region, i);
    int64_t ext, want;
    if (!r->extent || !tvm_tir_as_const_int(r->extent, &ext)) continue;
    if (i < offset) {
      if (ext != 1) {
        snprintf(what, sizeof(what),
                 "region[%lld] has extent %lld, but dimensions the buffer "
                 "drops must have extent 1",
                 (long long)i, (long long)ext);
        why = what;
      }
    } else {
      const void* dim = tvm_ffi_seq_obj_at(buffer->shape, i - offset);
      if (tvm_tir_as_const_int(dim, &want) && want != ext) {
        snprintf(what, sizeof(what),
                 "buffer shape[%lld] = %lld does not match the extent %lld "
                 "of region[%lld]",
                 (long long)(i - offset), (long long)want, (long long)ext, (long long)i);
        why = what;
      }
    }
  }
  if (why) {
    return tvm_tir__type_error(TVM_TIR_RULE_O_MATCHBUFFER, node, why, "buffer", buffer, "source",
                               source, NULL);
  }
  tvm_tir_match_buffer_region_obj* m = TIR_NEW(tvm_tir_match_buffer_region_obj, MatchBufferRegion);
  if (!m) return NULL;
  tvm_ffi_retain(buffer);
  tvm_ffi_retain(source);
  m->buffer = buffer;
  m->source = source;
  return m;
}

/*
 * distributed.c: the distributed dialect's nodes (tvm/relax/distributed.h): DeviceMesh, placement
 * text, DTensorStructInfo, as upstream's relax/distributed/{global_info,struct_info}.cc.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/relax/distributed.h>

#include "internal.h"

static bool is_seq(const void* a) {
  int32_t t = a ? tvm_ffi_type_index(a) : -1;
  return t == kTVMFFIArray || t == kTVMFFIList;
}

/* The integer at item i of an ffi sequence (an int, or an IntImm), or false. */
static bool item_int(const void* seq, int64_t i, int64_t* out) {
  const TVMFFIAny* a = tvm_ffi_seq_at(seq, i);
  if (a->type_index == kTVMFFIInt) {
    *out = a->v_int64;
    return true;
  }
  return tvm_ffi_any_is_object(a) && tvm_tir_as_const_int(a->v_obj, out);
}

/* ffi.Array of plain int64 from a sequence of ints, each >= lo; NULL + error otherwise. */
static void* int_array(const void* seq, int64_t lo, const char* what) {
  int64_t n = tvm_ffi_seq_size(seq);
  TVMFFIAny* items = n ? tvm_ffi_malloc((size_t)n * sizeof(TVMFFIAny)) : NULL;
  if (n && !items) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    int64_t v;
    if (!item_int(seq, i, &v) || v < lo) {
      tvm_ffi_free(items);
      tvm_ffi_raise("ValueError", "R.device_mesh: %s[%lld] must be an integer >= %lld", what,
                    (long long)i, (long long)lo);
      return NULL;
    }
    items[i] = tvm_ffi_any_int(v);
  }
  void* arr = tvm_ffi_array_new(items, n);
  tvm_ffi_free(items);
  return arr;
}

tvm_relax_device_mesh_obj* tvm_relax_device_mesh_new(void* shape, void* device_ids,
                                                     tvm_tir_range_obj* range) {
  if (!shape || !is_seq(shape)) {
    tvm_ffi_raise("TypeError", "R.device_mesh: the shape must be a tuple of integers");
    return NULL;
  }
  if (!device_ids && !range) {
    tvm_ffi_raise("TypeError", "R.device_mesh: needs the device ids (a list or an I.Range)");
    return NULL;
  }
  if (device_ids && !is_seq(device_ids)) {
    tvm_ffi_raise("TypeError", "R.device_mesh: the device ids must be a list of integers");
    return NULL;
  }
  if (!device_ids && !tvm_tir_is(range, TVM_TIR_KIND_Range)) {
    tvm_ffi_raise("TypeError", "R.device_mesh: the device range must be an I.Range");
    return NULL;
  }
  void* shp = int_array(shape, 1, "shape");
  if (!shp) return NULL;
  int64_t count = 1;
  for (int64_t i = 0; i < tvm_ffi_seq_size(shp); ++i) {
    if (__builtin_mul_overflow(count, tvm_ffi_seq_at(shp, i)->v_int64, &count)) count = -1;
  }
  void* ids = NULL;
  if (device_ids) {
    ids = int_array(device_ids, 0, "device_ids");
  } else {
    int64_t lo, ext;
    if (!range->extent || !tvm_tir_as_const_int(range->min, &lo) ||
        !tvm_tir_as_const_int(range->extent, &ext) || lo < 0 || ext < 0) {
      tvm_ffi_raise("ValueError",
                    "R.device_mesh: the device range must be I.Range(a, b) of "
                    "integers 0 <= a <= b");
    } else if (ext == count) {
      TVMFFIAny* items = ext ? tvm_ffi_malloc((size_t)ext * sizeof(TVMFFIAny)) : NULL;
      if (!ext || items) {
        for (int64_t i = 0; i < ext; ++i) items[i] = tvm_ffi_any_int(lo + i);
        ids = tvm_ffi_array_new(items, ext);
      }
      tvm_ffi_free(items);
    } else {
      tvm_ffi_raise("ValueError",
                    "R.device_mesh: the mesh has %lld devices but the range holds %lld",
                    (long long)count, (long long)ext);
    }
  }
  if (!ids) {
    tvm_ffi_release(shp);
    return NULL;
  }
  if (tvm_ffi_seq_size(ids) != count) {
    tvm_ffi_raise("ValueError", "R.device_mesh: the mesh has %lld devices but %lld ids are given",
                  (long long)count, (long long)tvm_ffi_seq_size(ids));
    tvm_ffi_release(shp);
    tvm_ffi_release(ids);
    return NULL;
  }
  tvm_relax_device_mesh_obj* m = tvm_relax__new(TVM_RELAX_KIND_DeviceMesh, sizeof(*m));
  if (!m) {
    tvm_ffi_release(shp);
    tvm_ffi_release(ids);
    return NULL;
  }
  m->shape = shp;
  m->device_ids = ids;
  m->device_range = device_ids ? NULL : range;
  if (m->device_range) tvm_ffi_retain(range);
  return m;
}

int64_t tvm_relax_device_mesh_ndim(const tvm_relax_device_mesh_obj* mesh) {
  return mesh ? tvm_ffi_seq_size(mesh->shape) : 0;
}

/* ---- Placement ------------------------------------------------------------------------------- */
static bool is_space(char c) { return c == ' ' || c == '\t'; }

void* tvm_relax_placement_parse(const char* text, size_t len) {
  void* list = tvm_ffi_list_new();
  if (!list) return NULL;
  size_t i = 0;
  while (true) {
    while (i < len && is_space(text[i])) ++i;
    size_t start = i;
    int64_t spec = 0;
    bool ok = false;
    if (i < len && text[i] == 'R') {
      spec = TVM_RELAX_PLACEMENT_REPLICA, ok = true, ++i;
    } else if (i + 1 < len && text[i] == 'S' && text[i + 1] == '[') {
      i += 2;
      size_t d0 = i;
      while (i < len && text[i] >= '0' && text[i] <= '9' && spec < 100000000) {
        spec = spec * 10 + (text[i++] - '0');
      }
      ok = i > d0 && i < len && text[i] == ']';
      if (ok) ++i;
    }
    while (i < len && is_space(text[i])) ++i;
    if (!ok || (i < len && text[i] != ',')) {
      size_t end = start;
      while (end < len && text[end] != ',') ++end;
      tvm_ffi_raise("ValueError",
                    "placement \"%.*s\": the item \"%.*s\" at offset %zu is not \"R\" or "
                    "\"S[<axis>]\"",
                    (int)len, text, (int)(end - start), text + start, start);
      tvm_ffi_release(list);
      return NULL;
    }
    TVMFFIAny v = tvm_ffi_any_int(spec);
    if (tvm_ffi_list_push(list, &v) != 0) {
      tvm_ffi_release(list);
      return NULL;
    }
    if (i >= len) break;
    ++i; /* ',' */
  }
  void* arr = tvm_ffi_list_to_array(list);
  tvm_ffi_release(list);
  return arr;
}

void tvm_relax_placement_text(tvm_ffi_strbuf* out, const void* placement) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(placement); ++i) {
    int64_t v = tvm_ffi_seq_at(placement, i)->v_int64;
    if (i) tvm_ffi_strbuf_puts(out, ", ");
    if (v == TVM_RELAX_PLACEMENT_REPLICA) {
      tvm_ffi_strbuf_putc(out, 'R');
    } else {
      tvm_ffi_strbuf_printf(out, "S[%lld]", (long long)v);
    }
  }
}

int tvm_relax_placement_check(const void* placement, const tvm_relax_device_mesh_obj* mesh,
                              int32_t ndim, const char* what) {
  if (!placement || !is_seq(placement)) {
    tvm_ffi_raise("TypeError", "%s: the placement must be a placement array", what);
    return -1;
  }
  int64_t n = tvm_ffi_seq_size(placement), mdim = tvm_relax_device_mesh_ndim(mesh);
  int64_t axis = -1; /* the first sharded axis the tensor does not have */
  for (int64_t i = 0; n == mdim && i < n && axis < 0; ++i) {
    const TVMFFIAny* a = tvm_ffi_seq_at(placement, i);
    if (a->type_index != kTVMFFIInt || a->v_int64 < TVM_RELAX_PLACEMENT_REPLICA) {
      tvm_ffi_raise("ValueError", "%s: placement spec %lld is not R or S[axis]", what,
                    (long long)i);
      return -1;
    }
    if (ndim != TVM_RELAX_UNKNOWN_NDIM && a->v_int64 >= ndim) axis = a->v_int64;
  }
  if (n == mdim && axis < 0) return 0;
  tvm_ffi_strbuf text = {0}; /* (only for the message) */
  tvm_relax_placement_text(&text, placement);
  if (n != mdim) {
    tvm_ffi_raise("ValueError",
                  "%s: placement \"%s\" has %lld specs but the device mesh has %lld dims", what,
                  tvm_ffi_strbuf_cstr(&text), (long long)n, (long long)mdim);
  } else {
    tvm_ffi_raise("ValueError", "%s: placement \"%s\" shards axis %lld but the tensor has %d dims",
                  what, tvm_ffi_strbuf_cstr(&text), (long long)axis, ndim);
  }
  tvm_ffi_strbuf_free(&text);
  return -1;
}

/* ---- DTensorStructInfo ------------------------------------------------------------------------
 */
tvm_relax_sinfo_obj* tvm_relax_dtensor_sinfo_new(tvm_relax_sinfo_obj* tensor_sinfo,
                                                 tvm_relax_device_mesh_obj* mesh, void* placement) {
  if (tvm_relax_kind_of(tensor_sinfo) != TVM_RELAX_KIND_TensorStructInfo) {
    tvm_ffi_raise("TypeError", "R.DTensor: the tensor struct info must be a TensorStructInfo");
    return NULL;
  }
  if (tvm_relax_kind_of(mesh) != TVM_RELAX_KIND_DeviceMesh) {
    tvm_ffi_raise("TypeError", "R.DTensor: device_mesh must be an R.device_mesh");
    return NULL;
  }
  int32_t ndim = ((tvm_relax_tensor_sinfo_obj*)tensor_sinfo)->ndim;
  if (tvm_relax_placement_check(placement, mesh, ndim, "R.DTensor") != 0) return NULL;
  tvm_relax_dtensor_sinfo_obj* s =
      tvm_relax__new(TVM_RELAX_KIND_DTensorStructInfo, sizeof(tvm_relax_dtensor_sinfo_obj));
  if (!s) return NULL;
  tvm_ffi_retain(tensor_sinfo);
  tvm_ffi_retain(mesh);
  tvm_ffi_retain(placement);
  s->tensor_sinfo = tensor_sinfo;
  s->device_mesh = mesh;
  s->placement = placement;
  return &s->base;
}

bool tvm_relax_sinfo_has_dtensor(const tvm_relax_sinfo_obj* s) {
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_DTensorStructInfo:
      return true;
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* f = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) {
        if (tvm_relax_sinfo_has_dtensor(tvm_ffi_seq_obj_at(f, i))) return true;
      }
      return false;
    }
    case TVM_RELAX_KIND_FuncStructInfo: {
      const tvm_relax_func_sinfo_obj* fs = (const void*)s;
      for (int64_t i = 0; fs->params && i < tvm_ffi_seq_size(fs->params); ++i) {
        if (tvm_relax_sinfo_has_dtensor(tvm_ffi_seq_obj_at(fs->params, i))) return true;
      }
      return tvm_relax_sinfo_has_dtensor(fs->ret);
    }
    default:
      return false;
  }
}

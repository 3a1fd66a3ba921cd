/*
 * walk.c: a pre-order walk over everything reachable from an object through its reflected
 * fields (object fields, Any fields, array elements, map keys and values). The typing rules use
 * it to look for statements or calls inside a body (a vectorized loop must not contain While;
 * a PrimFunc's tir.ret calls fix its return type).
 */
#include "internal.h"

typedef struct {
  bool stmts_only;
  tvm_tir__walk_fn fn;
  void* ctx;
} walker;

static int visit(walker* w, const void* obj);

static int visit_any(walker* w, const TVMFFIAny* a) {
  return tvm_ffi_any_is_object(a) ? visit(w, a->v_obj) : 0;
}

static int visit(walker* w, const void* obj) {
  if (!obj) return 0;
  int32_t t = tvm_ffi_type_index(obj);
  int r = 0;
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    int64_t n = tvm_ffi_seq_size(obj);
    for (int64_t i = 0; i < n && !r; ++i) r = visit_any(w, tvm_ffi_seq_at(obj, i));
    return r;
  }
  if (t == kTVMFFIMap || t == kTVMFFIDict) {
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; !r && (pos = tvm_ffi_map_next(obj, pos, &k, &v)) >= 0;) {
      r = visit_any(w, k);
      if (!r) r = visit_any(w, v);
    }
    return r;
  }
  if (t == kTVMFFIStr || t == kTVMFFIBytes) return 0;
  if (w->stmts_only && !tvm_tir_is_stmt(obj)) return 0;
  if ((r = w->fn(obj, w->ctx)) != 0) return r;
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = 0; i < n && !r; ++i) {
    const TVMFFIFieldInfo* f = fields[i];
    const char* addr = (const char*)obj + f->offset;
    if (f->field_static_type_index == kTVMFFIAny) {
      r = visit_any(w, (const TVMFFIAny*)addr);
    } else if (f->field_static_type_index >= kTVMFFIStaticObjectBegin) {
      r = visit(w, *(void* const*)addr);
    }
  }
  return r;
}

int tvm_tir__walk(const void* obj, bool stmts_only, tvm_tir__walk_fn fn, void* ctx) {
  walker w = {stmts_only, fn, ctx};
  return visit(&w, obj);
}

/*
 * walk.c: a pre-order walk over everything reachable from an object through its reflected
 * fields (object fields, Any fields, array elements, map keys and values). The typing rules use
 * it to look for statements or calls inside a body (a vectorized loop must not contain While;
 * a PrimFunc's tir.ret calls fix its return type).
 *
 * A Buffer is shared by every load, store and region of it, and its subtree (data Var, shape,
 * strides, ...) is most of what a walk meets; a Var by every use. A Buffer or Var whose subtree
 * was walked to the end is not entered again (a few recent ones are remembered). The callbacks
 * are predicates that give the same answer for an object each time they meet it, so this
 * changes nothing they can see but how often a shared subtree is met.
 */
#include "internal.h"

#define WALKED_SIZE 64 /* the slot is 6 bits of a hash */

typedef struct {
  bool stmts_only;
  tvm_tir__walk_fn fn;
  void* ctx;
  const tvm_tir__children* children; /* the object fields of libtir kinds */
  const void* walked[WALKED_SIZE];   /* Buffers and Vars walked to the end, by address */
} walker;

static int visit_fields(walker* w, const void* obj, tvm_tir_kind k);
static int visit(walker* w, const void* obj);

static int visit_any(walker* w, const TVMFFIAny* a) {
  return tvm_ffi_any_is_object(a) ? visit(w, a->v_obj) : 0;
}

/* An object that is not a libtir node: containers, strings, other types. */
static int visit_other(walker* w, const void* obj) {
  int32_t t = tvm_ffi_type_index(obj);
  int r = 0;
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    int64_t n = tvm_ffi_seq_size(obj);
    const TVMFFIAny* items = tvm_ffi_seq_data(obj);
    for (int64_t i = 0; i < n && !r; ++i) r = visit_any(w, &items[i]);
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
  if (w->stmts_only && !tvm_tir__is_other(obj, TVM_TIR_KIND_Stmt)) return 0;
  return visit_fields(w, obj, TVM_TIR_KIND_NONE);
}

static int visit(walker* w, const void* obj) {
  if (!obj) return 0;
  tvm_tir_kind k = tir_kind_of(obj);
  if (k < 0) return visit_other(w, obj);
  if (w->stmts_only &&
      !((tvm_tir__ancestry[k][TVM_TIR_KIND_Stmt >> 6] >> (TVM_TIR_KIND_Stmt & 63)) & 1)) {
    return 0;
  }
  if (k != TVM_TIR_KIND_Buffer && k != TVM_TIR_KIND_Var) return visit_fields(w, obj, k);
  const void** slot = &w->walked[(((uintptr_t)obj >> 4) * UINT64_C(0x9E3779B97F4A7C15)) >> 58];
  if (*slot == obj) return 0;
  int r = visit_fields(w, obj, k);
  if (r == 0) *slot = obj;
  return r;
}

static int visit_field(walker* w, const char* addr, int32_t type) {
  if (type == kTVMFFIAny) return visit_any(w, (const TVMFFIAny*)addr);
  if (type >= kTVMFFIStaticObjectBegin) return visit(w, *(void* const*)addr);
  return 0;
}

/* fn on obj (of kind k, NONE for another type), then its fields. */
static int visit_fields(walker* w, const void* obj, tvm_tir_kind k) {
  int r = w->fn(obj, w->ctx);
  if (r != 0) return r;
  const tvm_tir__children* c = w->children;
  if (k >= 0 && c) {
    /* Object fields only (the table holds no others); NULLs, most spans, are skipped here. */
    for (int32_t i = c->start[k], end = c->start[k + 1]; i < end; ++i) {
      const char* addr = (const char*)obj + c->f[i].offset;
      const void* child;
      if (c->f[i].type == kTVMFFIAny) {
        if (!tvm_ffi_any_is_object((const TVMFFIAny*)addr)) continue;
        child = ((const TVMFFIAny*)addr)->v_obj;
      } else {
        child = *(void* const*)addr;
      }
      if (child && (r = visit(w, child)) != 0) return r;
    }
    return 0;
  }
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(tvm_ffi_type_index(obj), &fields);
  for (int32_t i = 0; i < n && !r; ++i) {
    r = visit_field(w, (const char*)obj + fields[i]->offset, fields[i]->field_static_type_index);
  }
  return r;
}

int tvm_tir__walk(const void* obj, bool stmts_only, tvm_tir__walk_fn fn, void* ctx) {
  walker w = {stmts_only, fn, ctx, tvm_tir__children_get(), {NULL}};
  return visit(&w, obj);
}

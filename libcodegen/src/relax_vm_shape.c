/*
 * relax_vm_shape.c: the shape heap of a function compiled by VMCodeGen and the shape functions
 * computing its composite dims (relax_vm_shape.h).
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>
#include <tvm/tir/schedule.h>
#include <tvm/tir/visit.h>

#include "relax_vm_shape.h"

static const DLDataType k_i64 = {kDLInt, 64, 1};

int tvm_codegen__shape_funcs_init(tvm_codegen__shape_funcs* sf, const tvm_tir_ir_module_obj* mod) {
  sf->mod = mod;
  sf->next = 0;
  sf->funcs = tvm_ffi_dict_new();
  return sf->funcs ? 0 : -1;
}

void tvm_codegen__shape_funcs_free(tvm_codegen__shape_funcs* sf) {
  tvm_ffi_release(sf->funcs);
  sf->funcs = NULL;
}

int tvm_codegen__shape_heap_init(tvm_codegen__shape_heap* h, tvm_codegen__shape_funcs* shared,
                                 const char* fname) {
  memset(h, 0, sizeof(*h));
  h->shared = shared;
  h->fname = fname;
  h->var_slots = tvm_ffi_dict_new();
  h->by_hash = tvm_ffi_dict_new();
  h->slot_exprs = tvm_ffi_list_new();
  return h->var_slots && h->by_hash && h->slot_exprs ? 0 : -1;
}

void tvm_codegen__shape_heap_free(tvm_codegen__shape_heap* h) {
  tvm_ffi_release(h->var_slots);
  tvm_ffi_release(h->by_hash);
  tvm_ffi_release(h->slot_exprs);
  tvm_ffi_release(h->size_var);
  tvm_ffi_free(h->computed);
  tvm_ffi_free(h->log);
  memset(h, 0, sizeof(*h));
}

int64_t tvm_codegen__shape_heap_size(const tvm_codegen__shape_heap* h) {
  return tvm_ffi_seq_size(h->slot_exprs);
}

/* A new slot for expr (None for a variable). */
static int64_t new_slot(tvm_codegen__shape_heap* h, const void* expr) {
  int64_t s = tvm_ffi_seq_size(h->slot_exprs);
  if (s >= h->cap_computed) {
    int64_t cap = h->cap_computed ? h->cap_computed * 2 : 16;
    uint8_t* c = tvm_ffi_realloc(h->computed, (size_t)cap);
    if (!c) return -1;
    memset(c + h->cap_computed, 0, (size_t)(cap - h->cap_computed));
    h->computed = c;
    h->cap_computed = cap;
  }
  TVMFFIAny item = expr ? tvm_ffi_any_obj(expr) : tvm_ffi_any_none();
  return tvm_ffi_list_push(h->slot_exprs, &item) == 0 ? s : -1;
}

int64_t tvm_codegen__shape_var_slot(tvm_codegen__shape_heap* h, const void* var, bool create) {
  TVMFFIAny key = tvm_ffi_any_obj(var);
  const TVMFFIAny* v = tvm_ffi_map_get(h->var_slots, &key);
  int64_t s;
  if (v) {
    tvm_ffi_any_as_int(v, &s);
    return s;
  }
  if (!create) return -1;
  if ((s = new_slot(h, NULL)) < 0) return -2;
  TVMFFIAny val = tvm_ffi_any_int(s);
  return tvm_ffi_dict_set(h->var_slots, &key, &val) == 0 ? s : -2;
}

int64_t tvm_codegen__shape_expr_slot(tvm_codegen__shape_heap* h, const tvm_tir_expr_obj* e) {
  TVMFFIAny ev = tvm_ffi_any_obj(e);
  uint64_t hash;
  if (tvm_ffi_structural_hash_checked(&ev, false, &hash) != 0) return -1;
  TVMFFIAny hk = tvm_ffi_any_int((int64_t)hash);
  const TVMFFIAny* same = tvm_ffi_map_get(h->by_hash, &hk);
  for (int64_t i = 0; same && i < tvm_ffi_seq_size(same->v_obj); ++i) {
    int64_t s;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(same->v_obj, i), &s);
    if (tvm_ffi_structural_equal(&ev, tvm_ffi_seq_at(h->slot_exprs, s), false, NULL, NULL) == 1) {
      return s;
    }
  }
  int64_t s = new_slot(h, e);
  if (s < 0) return -1;
  if (!same) {
    void* list = tvm_ffi_list_new();
    TVMFFIAny lv = tvm_ffi_any_obj(list);
    int rc = list ? tvm_ffi_dict_set(h->by_hash, &hk, &lv) : -1;
    tvm_ffi_release(list);
    if (rc != 0) return -1;
    same = tvm_ffi_map_get(h->by_hash, &hk);
  }
  TVMFFIAny sv = tvm_ffi_any_int(s);
  return tvm_ffi_list_push(same->v_obj, &sv) == 0 ? s : -1;
}

bool tvm_codegen__shape_is_computed(const tvm_codegen__shape_heap* h, int64_t slot) {
  return slot >= 0 && slot < tvm_ffi_seq_size(h->slot_exprs) && h->computed[slot];
}

int64_t tvm_codegen__shape_scope(const tvm_codegen__shape_heap* h) { return h->n_log; }

void tvm_codegen__shape_unscope(tvm_codegen__shape_heap* h, int64_t mark) {
  for (; h->n_log > mark; --h->n_log) h->computed[h->log[h->n_log - 1]] = 0;
}

static int mark_computed(tvm_codegen__shape_heap* h, int64_t slot) {
  if (h->n_log == h->cap_log) {
    int64_t cap = h->cap_log ? h->cap_log * 2 : 16;
    int64_t* l = tvm_ffi_realloc(h->log, (size_t)cap * sizeof(int64_t));
    if (!l) return -1;
    h->log = l;
    h->cap_log = cap;
  }
  h->log[h->n_log++] = slot;
  h->computed[slot] = 1;
  return 0;
}

/* ---- Shape functions ------------------------------------------------------------------------- */
typedef struct {
  tvm_codegen__shape_heap* h;
  tvm_tir_buffer_obj* heap;
  const tvm_tir_expr_obj* expr; /* the expression being rewritten, for messages */
} load_ctx;

/* A variable becomes its slot of the heap (cast to its dtype). */
static void* load_var(tvm_tir_mutator* m, const void* var) {
  load_ctx* c = m->ctx;
  int64_t s = tvm_codegen__shape_var_slot(c->h, var, false);
  if (s < 0) {
    if (s == -1) {
      tvm_ffi_strbuf b = {0};
      tvm_tir_node_text(&b, c->expr);
      tvm_ffi_raise("ValueError", "VMCodeGen: %s: symbolic dim not defined here: %s (in %s)",
                    c->h->fname, tvm_tir_var_name(var), tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&b);
    }
    return NULL;
  }
  void* load = tvm_tir_load_takev(tvm_tir_ref(c->heap), 1, (void* const[]){tvm_tir_i64(s)});
  DLDataType t = tvm_tir_expr_dtype(var);
  return tvm_ffi_dtype_equal(t, k_i64) || !load ? load : tvm_tir_cast_take(t, load);
}

/* A function name no function of the module, and no shape function made, has. */
static void* fresh_gv(tvm_codegen__shape_funcs* sf) {
  char name[64];
  for (;; ++sf->next) {
    if (sf->next == 0) snprintf(name, sizeof(name), "shape_func");
    else snprintf(name, sizeof(name), "shape_func%lld", (long long)sf->next);
    void* f = tvm_tir_ir_module_lookup(sf->mod, name);
    tvm_ffi_release(f);
    if (!f) break;
  }
  ++sf->next;
  return tvm_tir_global_var_new(name);
}

const char* tvm_codegen__shape_func(tvm_codegen__shape_heap* h, const int64_t* slots, int64_t n) {
  if (!h->size_var && !(h->size_var = tvm_tir_var("heap_size", k_i64))) return NULL;
  tvm_tir_buffer_obj* heap =
      tvm_tir_buffer_decl_takev("H", k_i64, 1, (void* const[]){tvm_tir_ref(h->size_var)}, NULL);
  void** stores = heap ? tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*)) : NULL;
  if (!stores) {
    tvm_ffi_release(heap);
    return NULL;
  }
  load_ctx lc = {h, heap, NULL};
  tvm_tir_mutator m;
  memset(&m, 0, sizeof(m));
  m.post[TVM_TIR_KIND_Var] = load_var;
  m.post[TVM_TIR_KIND_SizeVar] = load_var;
  m.ctx = &lc;
  int64_t i = 0;
  for (; i < n; ++i) {
    lc.expr = tvm_ffi_seq_obj_at(h->slot_exprs, slots[i]);
    void* v = tvm_tir_mutate(&m, lc.expr);
    if (v && !tvm_ffi_dtype_equal(tvm_tir_expr_dtype(v), k_i64)) v = tvm_tir_cast_take(k_i64, v);
    void* at = v ? tvm_tir_i64(slots[i]) : NULL;
    stores[i] = v ? tvm_tir_store_takev(tvm_tir_ref(heap), v, 1, (void* const[]){at}) : NULL;
    if (!stores[i]) break;
  }
  void* gv = NULL;
  void* f = NULL;
  if (i == n) {
    void* body = tvm_tir_seq_takev(n, stores);
    gv = body ? fresh_gv(h->shared) : NULL;
    void* params = gv ? tvm_tir_list_takev(1, (void* const[]){tvm_tir_ref(heap)}) : NULL;
    f = params ? tvm_tir_func_take(tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)gv)->name_hint), params, body)
               : (tvm_ffi_release(body), NULL);
    if (f) { /* it reads the shape heap, a CPU tensor, in a GPU build too */
      TVMFFIAny yes = tvm_ffi_any_bool(true);
      void* host = tvm_tir_prim_func_with_attr(f, TVM_TIR_ATTR_IS_HOST_FUNC, &yes);
      tvm_ffi_release(f);
      f = host;
    }
  } else {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_release(stores[j]);
  }
  tvm_ffi_free(stores);
  tvm_ffi_release(heap);
  TVMFFIAny k = tvm_ffi_any_obj(gv), v = tvm_ffi_any_obj(f);
  int rc = f && tvm_ffi_dict_set(h->shared->funcs, &k, &v) == 0 ? 0 : -1;
  tvm_ffi_release(f);
  for (int64_t j = 0; rc == 0 && j < n; ++j) rc = mark_computed(h, slots[j]);
  const char* name = rc == 0 ? tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)gv)->name_hint) : NULL;
  tvm_ffi_release(gv); /* the shared dict keeps it */
  return name;
}

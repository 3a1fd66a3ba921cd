/*
 * func.c: GlobalVar, PrimFunc (rule O-PRIMFUNC: the return type and tir.ret) and IRModule.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- GlobalVar ----------------------------------------------------------------------------- */
tvm_tir_global_var_obj* tvm_tir_global_var_new(const char* name_hint) {
  void* name = tvm_tir__str(name_hint);
  tvm_tir_global_var_obj* gv = name ? TIR_NEW(tvm_tir_global_var_obj, GlobalVar) : NULL;
  if (!gv) {
    tvm_ffi_release(name);
    return NULL;
  }
  gv->name_hint = name;
  return gv;
}

tvm_tir_global_var_obj* tvm_tir_global_var_new_str(void* name_hint) {
  if (!name_hint) return tvm_tir__null_arg("GlobalVar", "name_hint");
  tvm_tir_global_var_obj* gv = TIR_NEW(tvm_tir_global_var_obj, GlobalVar);
  if (!gv) return NULL;
  tvm_ffi_retain(name_hint);
  gv->name_hint = name_hint;
  return gv;
}

/* ---- PrimFunc: return type ----------------------------------------------------------------- */
/* Whether a value returned by tir.ret fits ret_type (spec O6 items 1-3). */
static bool ret_matches(const tvm_tir_type_obj* ret_type, const tvm_tir_expr_obj* value) {
  if (tvm_tir_is_var(value)) {
    return tvm_tir_type_equal(ret_type, ((const tvm_tir_var_obj*)value)->type_annotation);
  }
  if (tvm_tir_dtype_is_handle(value->dtype)) return TIR_IS(ret_type, PointerType);
  return TIR_IS(ret_type, PrimType) &&
         tvm_tir_dtype_equal(((const tvm_tir_prim_type_obj*)ret_type)->dtype, value->dtype);
}

/* The type a returned value gives a function without a declared return type (new reference). */
static tvm_tir_type_obj* ret_type_of(const tvm_tir_expr_obj* value) {
  if (tvm_tir_is_var(value)) {
    tvm_tir_type_obj* t = ((const tvm_tir_var_obj*)value)->type_annotation;
    tvm_ffi_retain(t);
    return t;
  }
  if (tvm_tir_dtype_is_handle(value->dtype)) {
    return (tvm_tir_type_obj*)tvm_tir_pointer_type_of(TVM_TIR_VOID, NULL);
  }
  return (tvm_tir_type_obj*)tvm_tir_prim_type_new(value->dtype);
}

typedef struct {
  tvm_tir_type_obj* ret_type; /* owned; the declared or inferred type */
  bool declared;
  int count;  /* tir.ret calls seen */
  int failed; /* -1 when an error was raised */
} ret_ctx;

static int check_ret(const void* obj, void* p) {
  ret_ctx* c = (ret_ctx*)p;
  if (!TIR_IS(obj, Call) ||
      !tvm_tir_is_builtin(((const tvm_tir_call_obj*)obj)->op, TVM_TIR_BUILTIN_ret)) {
    return 0;
  }
  const tvm_tir_expr_obj* value =
      (const tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(((const tvm_tir_call_obj*)obj)->args, 0);
  if (c->count++ == 0 && !c->declared) {
    if (!(c->ret_type = ret_type_of(value))) return -1;
    return 0;
  }
  if (ret_matches(c->ret_type, value)) return 0;
  tvm_tir__type_error(TVM_TIR_RULE_O_PRIMFUNC, "PrimFunc",
                      c->declared ? "the value returned by tir.ret does not match ret_type"
                                  : "the values returned by tir.ret do not all have the same type",
                      c->declared ? "ret_type" : "first returned type", c->ret_type, "returned",
                      value, NULL);
  return -1;
}

/* ---- PrimFunc: the search for tir.ret ------------------------------------------------------
 * tvm_tir__walk(body, false, check_ret, ...) specialised: the same objects in the same order
 * (pre-order; libtir nodes' object fields from the child tables, containers' elements, map keys
 * then values), so the same tir.ret calls are met in the same order and raise the same errors.
 * Nothing is pruned by what a field is declared to hold (a raw reflected setter can store any
 * object anywhere): the savings are the calls per node (the callback, a separate fields loop)
 * and the walk's generality (stmts_only). Buffers and Vars, shared by
 * their uses, are searched once (a few recent ones remembered; check_ret gives the same answer
 * each time it meets a returned value, so this only skips repeats). */
#define RET_WALKED_SIZE 64 /* the slot is 6 bits of a hash */
typedef struct {
  ret_ctx* rc;
  const tvm_tir__children* c;
  int32_t call_index;
  const void* walked[RET_WALKED_SIZE];
} ret_search;

static int ret_search_obj(ret_search* s, const void* obj);

static int ret_search_any(ret_search* s, const TVMFFIAny* a) {
  return tvm_ffi_any_is_object(a) ? ret_search_obj(s, a->v_obj) : 0;
}

/* An object that is not a libtir node (never NULL). */
static int ret_search_other(ret_search* s, const void* obj) {
  int32_t t = tvm_ffi_type_index(obj);
  int r = 0;
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    int64_t n = tvm_ffi_seq_size(obj);
    const TVMFFIAny* items = tvm_ffi_seq_data(obj);
    for (int64_t i = 0; i < n && !r; ++i) r = ret_search_any(s, &items[i]);
    return r;
  }
  if (t == kTVMFFIMap || t == kTVMFFIDict) {
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; !r && (pos = tvm_ffi_map_next(obj, pos, &k, &v)) >= 0;) {
      r = ret_search_any(s, k);
      if (!r) r = ret_search_any(s, v);
    }
    return r;
  }
  if (t == kTVMFFIStr || t == kTVMFFIBytes) return 0;
  /* Another type: the generic walk does the same for it (check_ret is a no-op on it). */
  return tvm_tir__walk(obj, false, check_ret, s->rc);
}

/* The object held by field i of a libtir node at obj, NULL when none. */
static inline const void* ret_field(const tvm_tir__children* c, int32_t i, const void* obj) {
  const char* addr = (const char*)obj + c->f[i].offset;
  if (c->f[i].type != kTVMFFIAny) return *(void* const*)addr;
  return tvm_ffi_any_is_object((const TVMFFIAny*)addr) ? ((const TVMFFIAny*)addr)->v_obj : NULL;
}

/* The fields of obj, a libtir node of kind k. */
static int ret_search_fields(ret_search* s, const void* obj, tvm_tir_kind k) {
  const tvm_tir__children* c = s->c;
  if (((const TVMFFIObject*)obj)->type_index == s->call_index) {
    int r = check_ret(obj, s->rc);
    if (r != 0) return r;
  }
  for (int32_t i = c->start[k], end = c->start[k + 1]; i < end; ++i) {
    const void* child = ret_field(c, i, obj);
    if (!child) continue;
    int r = ret_search_obj(s, child);
    if (r != 0) return r;
  }
  return 0;
}

static int ret_search_obj(ret_search* s, const void* obj) {
  tvm_tir_kind k = tir_kind_of(obj);
  if (k < 0) return ret_search_other(s, obj);
  if (k != TVM_TIR_KIND_Buffer && k != TVM_TIR_KIND_Var) return ret_search_fields(s, obj, k);
  const void** slot = &s->walked[(((uintptr_t)obj >> 4) * UINT64_C(0x9E3779B97F4A7C15)) >> 58];
  if (*slot == obj) return 0;
  int r = ret_search_fields(s, obj, k);
  if (r == 0) *slot = obj;
  return r;
}

/* tvm_tir__walk(body, false, check_ret, rc), faster. */
static int search_rets(const void* body, ret_ctx* rc) {
  /* Most functions return nothing, and then usually no Call in the whole process refers to
   * tir.ret: a body held here cannot contain one (see tvm_tir__builtin_unused). */
  if (tvm_tir__builtin_unused(TVM_TIR_BUILTIN_ret)) return 0;
  ret_search s;
  s.c = tvm_tir__children_get();
  if (!s.c) return tvm_tir__walk(body, false, check_ret, rc); /* out of memory: reflection */
  s.rc = rc;
  s.call_index = tvm_tir__index[TVM_TIR_KIND_Call];
  memset(s.walked, 0, sizeof(s.walked));
  return ret_search_obj(&s, body);
}

/* ---- PrimFunc ------------------------------------------------------------------------------ */
/* The return type of a function that returns nothing, TupleType([]) (a new reference): one
 * shared node, made once, like the shared empty Array and Map (types are immutable values
 * compared by structure), instead of a node made and freed per function. */
static void* g_void_type;
static tvm_tir_type_obj* void_type(void) {
  void* t = __atomic_load_n(&g_void_type, __ATOMIC_ACQUIRE);
  if (!t) {
    void* made = tvm_tir_tuple_type_new(NULL);
    if (!made) return NULL;
    /* made's reference becomes the global's; another thread may have stored one first (then t
     * is that one, and made goes). */
    if (__atomic_compare_exchange_n(&g_void_type, &t, made, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      t = made;
    } else {
      tvm_ffi_release(made);
    }
  }
  tvm_ffi_retain(t);
  return t;
}

static int check_buffer_map(void* map, void** out) {
  *out = NULL;
  if (!map) {
    *out = tvm_tir__empty_map();
    return 0;
  }
  if (tvm_ffi_type_index(map) != kTVMFFIMap) {
    return tvm_ffi_raise("TypeError", "PrimFunc: buffer_map must be an ffi.Map, got %s",
                         tvm_ffi_type_key(tvm_ffi_type_index(map)));
  }
  /* (A Map: its entries read directly, as tvm_ffi_map_next would hand them out.) */
  int64_t n;
  const char* e = tvm_ffi__map_entries(map, &n);
  for (int64_t i = 0; i < n; ++i, e += TVM_FFI__MAP_ENTRY_SIZE) {
    const TVMFFIAny *k = (const TVMFFIAny*)e, *v = k + 1;
    if (k->type_index == TVM_FFI__MAP_DEAD) continue;
    if (!tvm_ffi_any_is_object(k) || !tvm_tir_is_var(k->v_obj) || !tvm_ffi_any_is_object(v) ||
        !TIR_IS(v->v_obj, Buffer)) {
      return tvm_ffi_raise("TypeError",
                           "PrimFunc: buffer_map must map tir.Var to tir.Buffer, "
                           "found %s -> %s",
                           tvm_ffi_any_type_name(k), tvm_ffi_any_type_name(v));
    }
  }
  tvm_ffi_retain(map);
  *out = map;
  return 0;
}

tvm_tir_prim_func_obj* tvm_tir_prim_func_new(void* params, tvm_tir_stmt_obj* body,
                                             tvm_tir_type_obj* ret_type, void* buffer_map,
                                             void* attrs) {
  static const char node[] = "PrimFunc";
  if (!body) return tvm_tir__null_arg(node, "body");
  if (tvm_tir__check_kind(body, TVM_TIR_KIND_Stmt, node, "body") != 0 ||
      tvm_tir__check_kind(ret_type, TVM_TIR_KIND_Type, node, "ret_type") != 0) {
    return NULL;
  }
  void *ps = NULL, *bmap = NULL, *at = NULL;
  ret_ctx rc = {ret_type, ret_type != NULL, 0, 0};
  tvm_ffi_retain(ret_type);
  if (tvm_tir__array_arg(params, TVM_TIR_KIND_Var, node, "params", &ps) != 0 ||
      check_buffer_map(buffer_map, &bmap) != 0 ||
      tvm_tir__str_map_arg(attrs, node, "attrs", &at) != 0 ||
      search_rets(body, &rc) != 0) {
    goto fail;
  }
  if (rc.count == 0) {
    if (!rc.ret_type) {
      if (!(rc.ret_type = void_type())) goto fail;
    } else if (!tvm_tir_type_is_void(rc.ret_type)) {
      tvm_tir__type_error(TVM_TIR_RULE_O_PRIMFUNC, node,
                          "ret_type must be TupleType([]) when the body has no tir.ret", "ret_type",
                          rc.ret_type, NULL);
      goto fail;
    }
  }
  tvm_tir_prim_func_obj* f = TIR_NEW(tvm_tir_prim_func_obj, PrimFunc);
  if (!f) goto fail;
  f->func.attrs = at;
  f->params = ps;
  f->ret_type = rc.ret_type;
  f->buffer_map = bmap;
  tvm_ffi_retain(body);
  f->body = body;
  return f;
fail:
  tvm_ffi_release(rc.ret_type);
  tvm_ffi_release(ps);
  tvm_ffi_release(bmap);
  tvm_ffi_release(at);
  return NULL;
}

/* A copy of map (Map or NULL) with key = value, as a new ffi.Map. */
static void* map_with(const void* map, const TVMFFIAny* key, const TVMFFIAny* value) {
  void* dict = tvm_ffi_dict_new();
  if (!dict) return NULL;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; map && (pos = tvm_ffi_map_next(map, pos, &k, &v)) >= 0;) {
    if (tvm_ffi_dict_set(dict, k, v) != 0) goto fail;
  }
  if (tvm_ffi_dict_set(dict, key, value) != 0) goto fail;
  void* result = tvm_ffi_dict_to_map(dict);
  tvm_ffi_release(dict);
  return result;
fail:
  tvm_ffi_release(dict);
  return NULL;
}

tvm_tir_prim_func_obj* tvm_tir_prim_func_with_attr(tvm_tir_prim_func_obj* func, const char* key,
                                                   const TVMFFIAny* value) {
  if (!func) return tvm_tir__null_arg("PrimFunc", "func");
  if (tvm_tir__check_kind(func, TVM_TIR_KIND_PrimFunc, "PrimFunc", "func") != 0) return NULL;
  TVMFFIAny k = tvm_ffi_any_raw_str(key ? key : "");
  TVMFFIAny none = tvm_ffi_any_none();
  void* attrs = map_with(func->func.attrs, &k, value ? value : &none);
  tvm_tir_prim_func_obj* f = attrs ? TIR_NEW(tvm_tir_prim_func_obj, PrimFunc) : NULL;
  if (!f) {
    tvm_ffi_release(attrs);
    return NULL;
  }
  f->func.attrs = attrs;
  tvm_ffi_retain(func->params);
  tvm_ffi_retain(func->ret_type);
  tvm_ffi_retain(func->buffer_map);
  tvm_ffi_retain(func->body);
  f->params = func->params;
  f->ret_type = func->ret_type;
  f->buffer_map = func->buffer_map;
  f->body = func->body;
  return f;
}

const char* tvm_tir_func_global_symbol(const void* func) {
  if (!tvm_tir_is(func, TVM_TIR_KIND_BaseFunc)) return NULL;
  const void* attrs = ((const tvm_tir_base_func_obj*)func)->attrs;
  const TVMFFIAny* v = attrs ? tvm_ffi_map_get_str(attrs, "global_symbol") : NULL;
  if (!v) return NULL;
  if (v->type_index == kTVMFFIStr) return tvm_ffi_str_cstr(v->v_obj);
  if (v->type_index == kTVMFFISmallStr) return v->v_bytes; /* NUL-padded inline bytes */
  return NULL;
}

/* ---- IRModule ------------------------------------------------------------------------------ */
static const char* gv_name(const void* gv) {
  return tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)gv)->name_hint);
}

/* A global_var_map_ key: the String a raw-string view of gv's name converts to when stored
 * (a small string up to 7 bytes, else a String of the bytes before any NUL), owned; for a long
 * name that is all of name_hint, name_hint itself (the same bytes, none made and hashed from a
 * C string by the map's slow path). None when out of memory. */
static TVMFFIAny gv_name_key(const void* gv) {
  void* s = ((const tvm_tir_global_var_obj*)gv)->name_hint;
  TVMFFIByteArray b = tvm_ffi_str_view(s);
  size_t n = strlen(b.data);
  if (n > 7 && n == b.size) {
    tvm_ffi_retain(s);
    return tvm_ffi_any_obj(s);
  }
  return tvm_ffi_string_n(b.data, n);
}

tvm_tir_ir_module_obj* tvm_tir_ir_module_new(void* functions, void* attrs) {
  static const char node[] = "IRModule";
  if (functions && tvm_ffi_type_index(functions) != kTVMFFIMap) {
    tvm_ffi_raise("TypeError", "IRModule: functions must be an ffi.Map, got %s",
                  tvm_ffi_type_key(tvm_ffi_type_index(functions)));
    return NULL;
  }
  /* global_var_map_ (name -> GlobalVar) for a few functions: the Map made at once from the
   * names gathered here (a duplicate found by comparing them), not a Dict filled and copied. */
  enum { FEW = 8 };
  TVMFFIAny few_names[FEW], few_gvs[FEW];
  int64_t n_few = 0;
  bool few = !functions || tvm_ffi_map_size(functions) <= FEW;
  void *names = few ? NULL : tvm_ffi_dict_new(), *fns = NULL, *gmap = NULL, *at = NULL;
  bool ok = few || names != NULL;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; ok && functions && (pos = tvm_ffi_map_next(functions, pos, &k, &v)) >= 0;) {
    if (!tvm_ffi_any_is_object(k) || !TIR_IS(k->v_obj, GlobalVar) || !tvm_ffi_any_is_object(v) ||
        !tvm_tir_is(v->v_obj, TVM_TIR_KIND_BaseFunc)) {
      tvm_ffi_raise("TypeError",
                    "IRModule: functions must map ir.GlobalVar to ir.BaseFunc, "
                    "found %s -> %s",
                    tvm_ffi_any_type_name(k), tvm_ffi_any_type_name(v));
      ok = false;
      break;
    }
    TVMFFIAny name = few ? gv_name_key(k->v_obj) : tvm_ffi_any_raw_str(gv_name(k->v_obj));
    if (few && name.type_index == kTVMFFINone) {
      ok = false; /* (MemoryError raised) */
      break;
    }
    bool dup = false;
    if (few) {
      for (int64_t i = 0; i < n_few && !dup; ++i) {
        dup = strcmp(gv_name(few_gvs[i].v_obj), gv_name(k->v_obj)) == 0;
      }
    } else {
      dup = tvm_ffi_map_get(names, &name) != NULL;
    }
    if (dup) {
      if (few) tvm_ffi_any_release(&name);
      tvm_ffi_raise("ValueError", "IRModule: two functions are named `%s`", gv_name(k->v_obj));
      ok = false;
      break;
    }
    if (few) {
      few_names[n_few] = name; /* (owned: released below; tvm_ffi_map_new retains its own) */
      few_gvs[n_few++] = *k;
    } else {
      ok = tvm_ffi_dict_set(names, &name, k) == 0;
    }
  }
  if (ok) {
    fns = functions ? functions : tvm_tir__empty_map();
    if (functions) tvm_ffi_retain(functions);
    gmap = few ? tvm_ffi_map_new(few_names, few_gvs, n_few) : tvm_ffi_dict_to_map(names);
    ok = gmap && tvm_tir__str_map_arg(attrs, node, "attrs", &at) == 0;
  }
  tvm_tir_ir_module_obj* m = ok ? TIR_NEW(tvm_tir_ir_module_obj, IRModule) : NULL;
  tvm_ffi_release(names);
  for (int64_t i = 0; i < n_few; ++i) tvm_ffi_any_release(&few_names[i]);
  if (!m) {
    tvm_ffi_release(fns);
    tvm_ffi_release(gmap);
    tvm_ffi_release(at);
    return NULL;
  }
  m->global_var_map_ = gmap;
  m->functions = fns;
  m->attrs = at;
  return m;
}

tvm_tir_global_var_obj* tvm_tir_ir_module_get_global_var(const tvm_tir_ir_module_obj* mod,
                                                         const char* name) {
  const TVMFFIAny* gv = mod && name ? tvm_ffi_map_get_str(mod->global_var_map_, name) : NULL;
  if (!gv) return NULL;
  tvm_ffi_retain(gv->v_obj);
  return (tvm_tir_global_var_obj*)gv->v_obj;
}

void* tvm_tir_ir_module_lookup(const tvm_tir_ir_module_obj* mod, const char* name) {
  const TVMFFIAny* gv = mod && name ? tvm_ffi_map_get_str(mod->global_var_map_, name) : NULL;
  const TVMFFIAny* f = gv ? tvm_ffi_map_get(mod->functions, gv) : NULL;
  if (!f) return NULL;
  tvm_ffi_retain(f->v_obj);
  return f->v_obj;
}

tvm_tir_ir_module_obj* tvm_tir_ir_module_add(tvm_tir_ir_module_obj* mod, tvm_tir_global_var_obj* gv,
                                             void* func) {
  static const char node[] = "IRModule";
  if (!mod) return tvm_tir__null_arg(node, "mod");
  if (!gv) return tvm_tir__null_arg(node, "gv");
  if (!func) return tvm_tir__null_arg(node, "func");
  if (tvm_tir__check_kind(mod, TVM_TIR_KIND_IRModule, node, "mod") != 0 ||
      tvm_tir__check_kind(gv, TVM_TIR_KIND_GlobalVar, node, "gv") != 0 ||
      tvm_tir__check_kind(func, TVM_TIR_KIND_BaseFunc, node, "func") != 0) {
    return NULL;
  }
  tvm_tir_global_var_obj* existing = tvm_tir_ir_module_get_global_var(mod, gv_name(gv));
  if (existing) {
    tvm_ffi_release(existing);
    tvm_ffi_raise("ValueError", "IRModule: a function named `%s` already exists", gv_name(gv));
    return NULL;
  }
  TVMFFIAny key = tvm_ffi_any_obj(gv), value = tvm_ffi_any_obj(func);
  void* fns = map_with(mod->functions, &key, &value);
  if (!fns) return NULL;
  tvm_tir_ir_module_obj* m = tvm_tir_ir_module_new(fns, mod->attrs);
  tvm_ffi_release(fns);
  return m;
}

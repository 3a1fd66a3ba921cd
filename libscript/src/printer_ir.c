/*
 * printer_ir.c: converters of the shared IR layer and of plain values: None, bools, ints,
 * floats, strings, ffi.Array (a list), ffi.Map (a dict, string keys sorted), IRModule
 * (`@I.ir_module class Module:`, its functions in upstream's order, reachable as `cls.<name>`),
 * GlobalVar.
 */
#include <stdlib.h>
#include <string.h>
#include <tvm/tir/tir.h>

#include "script_internal.h"

static tvm_script_doc_obj* conv_pod(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                    const void* path) {
  return tvm_script_literal_doc(obj);
}

static tvm_script_doc_obj* conv_array(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  return tvm_script_list_doc_take(tvm_script_as_doc_array(d, obj->v_obj, path));
}

typedef struct {
  const TVMFFIAny* key;
  const TVMFFIAny* value;
  TVMFFIByteArray name; /* the key's text when it is a string */
} map_item;

static int cmp_item(const void* a, const void* b) {
  const map_item *x = a, *y = b;
  size_t n = x->name.size < y->name.size ? x->name.size : y->name.size;
  int c = memcmp(x->name.data, y->name.data, n);
  return c ? c : (x->name.size > y->name.size) - (x->name.size < y->name.size);
}

tvm_script_doc_obj* tvm_script__map_doc(tvm_script_docsifier* d, const void* map, const void* path,
                                        const char* skip_key) {
  int64_t n = tvm_ffi_map_size(map);
  map_item* items = tvm_ffi_malloc((size_t)(n + 1) * sizeof(map_item));
  if (!items) return NULL;
  int64_t m = 0;
  bool all_str = true;
  const TVMFFIAny *k, *v;
  for (int64_t pos = tvm_ffi_map_next(map, 0, &k, &v); pos >= 0;
       pos = tvm_ffi_map_next(map, pos, &k, &v)) {
    map_item it = {k, v, {"", 0}};
    if (!tvm_ffi_any_as_bytes(k, &it.name)) all_str = false;
    if (skip_key && it.name.size == strlen(skip_key) &&
        memcmp(it.name.data, skip_key, it.name.size) == 0) {
      continue;
    }
    items[m++] = it;
  }
  if (all_str) qsort(items, (size_t)m, sizeof(map_item), cmp_item);
  void *keys = tvm_ffi_list_new(), *values = tvm_ffi_list_new();
  bool ok = keys && values;
  for (int64_t i = 0; ok && i < m; ++i) {
    void* p = tvm_script_path_map_item(d, path, items[i].key);
    tvm_script_doc_obj* kd = p ? tvm_script_as_doc(d, items[i].key, NULL) : NULL;
    tvm_script_doc_obj* vd = kd ? tvm_script_as_doc(d, items[i].value, p) : NULL;
    tvm_ffi_release(p);
    TVMFFIAny ka = tvm_ffi_any_obj(kd), va = tvm_ffi_any_obj(vd);
    ok = kd && vd && tvm_ffi_list_push(keys, &ka) == 0 && tvm_ffi_list_push(values, &va) == 0;
    tvm_ffi_release(kd);
    tvm_ffi_release(vd);
  }
  tvm_ffi_free(items);
  if (!ok) {
    tvm_ffi_release(keys);
    tvm_ffi_release(values);
    return NULL;
  }
  return tvm_script_dict_doc_take(tvm_script_doc_list_to_array_take(keys),
                                  tvm_script_doc_list_to_array_take(values));
}

static tvm_script_doc_obj* conv_map(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                    const void* path) {
  return tvm_script__map_doc(d, obj->v_obj, path, NULL);
}

/* `cls.name` inside a module (the enclosing function then gets `cls = Module`), else
 * `I.GlobalVar("name")`. */
static tvm_script_doc_obj* conv_global_var(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                           const void* path) {
  const tvm_tir_global_var_obj* gv = (const void*)obj->v_obj;
  tvm_script_doc_obj* doc = tvm_script_var_doc(d, gv);
  if (doc) {
    tvm_script_frame* f = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_FUNC);
    if (f) f->flags |= SCRIPT_FRAME_USES_CLS;
    return doc;
  }
  return tvm_script_doc_call_take(tvm_script_prefixed(d, "ir", "GlobalVar"),
                                  tvm_script_literal_str(tvm_ffi_str_cstr(gv->name_hint)));
}

typedef struct {
  const tvm_tir_global_var_obj* gv;
  const TVMFFIAny* func;
  int rank; /* func_rank */
} func_item;

/* Upstream's order of a module's functions: PrimFuncs, ExternFuncs, Relax functions, each by
 * name, and `main` last (by type key: this layer knows no dialect). */
static int func_rank(const tvm_tir_global_var_obj* gv, const TVMFFIAny* func) {
  if (strcmp(tvm_ffi_str_cstr(gv->name_hint), "main") == 0) return 4;
  const char* key = tvm_ffi_any_is_object(func) ? tvm_ffi_type_key(func->type_index) : "";
  if (strcmp(key, "tir.PrimFunc") == 0) return 1;
  if (strcmp(key, "relax.expr.ExternFunc") == 0) return 2;
  return 3;
}

static int cmp_func(const void* a, const void* b) {
  const func_item *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return strcmp(tvm_ffi_str_cstr(x->gv->name_hint), tvm_ffi_str_cstr(y->gv->name_hint));
}

static tvm_script_doc_obj* conv_ir_module(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  const tvm_tir_ir_module_obj* mod = (const void*)obj->v_obj;
  int64_t n = tvm_ffi_map_size(mod->functions);
  func_item* items = tvm_ffi_malloc((size_t)(n + 1) * sizeof(func_item));
  tvm_script_frame* mf = items ? tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_MODULE) : NULL;
  if (!mf) {
    tvm_ffi_free(items);
    return NULL;
  }
  tvm_script__module_ctx ctx = {mod, NULL};
  mf->data = &ctx;
  tvm_script_doc_obj* name =
      tvm_script_define_var(d, mod, tvm_script_docsifier_options(d)->default_module_name, mf);
  int rc = name ? 0 : -1;
  int64_t m = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = tvm_ffi_map_next(mod->functions, 0, &k, &v); pos >= 0;
       pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) {
    items[m] = (func_item){(const void*)k->v_obj, v, 0};
    items[m].rank = func_rank(items[m].gv, v);
    ++m;
  }
  qsort(items, (size_t)m, sizeof(func_item), cmp_func);
  for (int64_t i = 0; rc == 0 && i < m; ++i) {
    tvm_script_doc_obj* cls = tvm_script_attr_doc_take(tvm_script_id_doc("cls"),
                                                       tvm_ffi_str_cstr(items[i].gv->name_hint));
    rc = cls ? tvm_script_define_var_doc(d, items[i].gv, cls, mf) : -1;
    tvm_ffi_release(cls);
  }
  /* The attribute "global_infos" (where I.module_global_infos puts its dict) prints as that
   * call, after I.module_attrs of the others, as upstream prints the two fields. */
  const TVMFFIAny* infos = tvm_ffi_map_get_str(mod->attrs, "global_infos");
  if (infos && infos->type_index != kTVMFFIMap) infos = NULL; /* not from I.module_global_infos */
  int64_t n_attrs = tvm_ffi_map_size(mod->attrs) - (infos ? 1 : 0);
  if (rc == 0 && n_attrs > 0) {
    void* ap = tvm_script_path_attr(d, path, "attrs");
    tvm_script_doc_obj* attrs =
        ap ? tvm_script__map_doc(d, mod->attrs, ap, infos ? "global_infos" : NULL) : NULL;
    tvm_ffi_release(ap);
    rc = tvm_script_frame_emit_take(
        mf, tvm_script_expr_stmt_doc_take(tvm_script_doc_call_take(
                tvm_script_prefixed(d, "ir", "module_attrs"), attrs)));
  }
  if (rc == 0 && infos) {
    void* ap = tvm_script_path_attr(d, path, "attrs");
    TVMFFIAny key = tvm_ffi_string("global_infos");
    void* ip = ap ? tvm_script_path_map_item(d, ap, &key) : NULL;
    tvm_ffi_any_release(&key);
    tvm_script_doc_obj* doc = ip ? tvm_script_as_doc(d, infos, ip) : NULL;
    tvm_ffi_release(ip);
    tvm_ffi_release(ap);
    rc = tvm_script_frame_emit_take(
        mf, tvm_script_expr_stmt_doc_take(tvm_script_doc_call_take(
                tvm_script_prefixed(d, "ir", "module_global_infos"), doc)));
  }
  void* fp = rc == 0 ? tvm_script_path_attr(d, path, "functions") : NULL;
  for (int64_t i = 0; rc == 0 && i < m; ++i) {
    TVMFFIAny key = tvm_ffi_any_obj(items[i].gv);
    void* p = fp ? tvm_script_path_map_item(d, fp, &key) : NULL;
    ctx.func_name = tvm_ffi_str_cstr(items[i].gv->name_hint);
    tvm_script_doc_obj* fd = p ? tvm_script_as_doc(d, items[i].func, p) : NULL;
    tvm_ffi_release(p);
    /* An ExternFunc is an expression: `name = R.ExternFunc("symbol")`, as upstream prints it. */
    if (fd && items[i].rank == 2) {
      fd = tvm_script_assign_doc_take(tvm_script_id_doc(ctx.func_name), fd, NULL);
    }
    rc = fd ? tvm_script_frame_emit_take(mf, fd) : -1;
  }
  tvm_ffi_release(fp);
  tvm_ffi_free(items);
  void* body = rc == 0 ? tvm_script_stmts_to_array(mf->stmts) : NULL;
  tvm_script_frame_pop(d);
  if (!body) {
    tvm_ffi_release(name);
    return NULL;
  }
  return tvm_script_class_doc_take(
      name, tvm_script_doc_array_take(tvm_script_prefixed(d, "ir", "ir_module")), body);
}

int tvm_script__register_ir(void) {
  static const int32_t k_pods[] = {kTVMFFINone, kTVMFFIBool,      kTVMFFIInt,  kTVMFFIFloat,
                                   kTVMFFIStr,  kTVMFFISmallStr, kTVMFFIRawStr};
  for (size_t i = 0; i < sizeof(k_pods) / sizeof(k_pods[0]); ++i) {
    if (tvm_script_register_converter("", k_pods[i], conv_pod) != 0) return -1;
  }
  tvm_tir_init();
  if (tvm_script_register_converter("", kTVMFFIArray, conv_array) != 0 ||
      tvm_script_register_converter("", kTVMFFIMap, conv_map) != 0 ||
      tvm_script_register_converter("", tvm_tir_type_index(TVM_TIR_KIND_GlobalVar),
                                    conv_global_var) != 0 ||
      tvm_script_register_converter("", tvm_tir_type_index(TVM_TIR_KIND_IRModule),
                                    conv_ir_module) != 0) {
    return -1;
  }
  return 0;
}

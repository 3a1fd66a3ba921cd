/*
 * printer_relax.c: Relax functions, bindings, expressions and struct info -> Doc, in upstream's
 * canonical TVMScript:
 *
 *   @R.function
 *   def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
 *       n = T.int64()
 *       with R.dataflow():
 *           lv: R.Tensor((n, 4), dtype="float32") = R.exp(x)
 *           gv: R.Tensor((n, 4), dtype="float32") = lv
 *           R.output(gv)
 *       return gv
 *
 * Symbolic dims a parameter's annotation defines print as strings in the signature and are
 * declared at the top of the body; other undefined TIR variables are declared before the
 * statement that first uses them (a match_cast's), and so are free Relax variables (a
 * fragment's, `x: R.Tensor(...)`). Operators print as R.<name> with the attributes that differ
 * from the schema's defaults as keywords; call_tir & co as upstream (`out_sinfo=`,
 * `inplace_indices=`, `tir_vars=`, a packed function by its name); other calls' struct info
 * arguments as `sinfo_args=(...)`. A bound If prints as an if/else whose branches end by
 * assigning the binding's variable; a bound Function as a nested @R.function def. Under the
 * relax token an int64 IntImm is a plain int (`R.prim_value(0)`) and a GlobalVar outside its
 * module its bare name. Constants print inline up to the print options' size and when every
 * element has an exact literal, else as metadata["relax.expr.Constant"][i]. Bindings, blocks
 * and bodies carry their access paths for underlining.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/relax/relax.h>
#include <tvm/script/printer.h>
#include <tvm/tir/visit.h>

#include "printer_tir.h"

static tvm_script_doc_obj* r_prefixed(tvm_script_docsifier* d, const char* name) {
  return tvm_script_prefixed(d, "relax", name);
}

/* The doc of child at path.name. */
static tvm_script_doc_obj* child(tvm_script_docsifier* d, const void* obj, const void* path,
                                 const char* name) {
  void* p = tvm_script_path_attr(d, path, name);
  tvm_script_doc_obj* doc = p ? tvm_script_as_doc_obj(d, obj, p) : NULL;
  tvm_ffi_release(p);
  return doc;
}

static tvm_script_doc_obj* child_item(tvm_script_docsifier* d, const void* arr, const void* path,
                                      const char* name, int64_t i) {
  void* p = tvm_script__tir_path_item(d, path, name, i);
  tvm_script_doc_obj* doc = p ? tvm_script_as_doc_obj(d, tvm_ffi_seq_obj_at(arr, i), p) : NULL;
  tvm_ffi_release(p);
  return doc;
}

/* keyword argument lists of a CallDoc under construction */
typedef struct {
  void* args;
  void* keys;
  void* values;
  bool ok;
} call_parts;

static call_parts parts_new(void) {
  call_parts c = {tvm_ffi_list_new(), tvm_ffi_list_new(), tvm_ffi_list_new(), true};
  c.ok = c.args && c.keys && c.values;
  return c;
}

static void push_arg(call_parts* c, void* doc) {
  TVMFFIAny a = tvm_ffi_any_obj(doc);
  c->ok = c->ok && doc && tvm_ffi_list_push(c->args, &a) == 0;
  tvm_ffi_release(doc);
}

static void push_kwarg(call_parts* c, const char* key, void* doc) {
  void* s = tvm_ffi_str_obj(key, strlen(key));
  TVMFFIAny k = tvm_ffi_any_obj(s), v = tvm_ffi_any_obj(doc);
  c->ok = c->ok && s && doc && tvm_ffi_list_push(c->keys, &k) == 0 &&
          tvm_ffi_list_push(c->values, &v) == 0;
  tvm_ffi_release(s);
  tvm_ffi_release(doc);
}

static tvm_script_doc_obj* parts_call(call_parts* c, void* callee) {
  if (!c->ok || !callee) {
    tvm_ffi_release(c->args);
    tvm_ffi_release(c->keys);
    tvm_ffi_release(c->values);
    tvm_ffi_release(callee);
    return NULL;
  }
  return tvm_script_call_doc_take(callee, tvm_script_doc_list_to_array_take(c->args),
                                  tvm_script_doc_list_to_array_take(c->keys),
                                  tvm_script_doc_list_to_array_take(c->values));
}

/* ---- Struct info ----------------------------------------------------------------------------- */
/* In a signature, a symbolic variable not yet defined prints as its name in quotes and becomes
 * defined (declared at the top of the body by the function converter). */
typedef struct {
  bool signature;
  void* new_vars; /* ffi.List of the TIR variables the signature defined */
} sinfo_ctx;

/* The TIR variables a dim mentions (a visitor's ctx: an ffi.List, duplicates left in). */
static int collect_var(tvm_tir_visitor* v, const void* node) {
  if (!tvm_tir_is_var(node)) return TVM_TIR_VISIT_CONTINUE;
  TVMFFIAny a = tvm_ffi_any_obj((void*)node);
  return tvm_ffi_list_push(v->ctx, &a) == 0 ? TVM_TIR_VISIT_SKIP : -1;
}

static tvm_script_doc_obj* dim_doc(tvm_script_docsifier* d, const void* e, const void* path,
                                   sinfo_ctx* sc);

/* A composite dim in a signature (`n * 2`) over symbolic variables the signature defines prints
 * as its text in quotes ("n * 2"), as upstream: the names exist only in the body. Its variables
 * not yet defined become the signature's (declared at the top of the body). NULL with no error
 * raised (*failed false) when e mentions no such variable: it prints as an expression. */
static tvm_script_doc_obj* composite_dim_str(tvm_script_docsifier* d, const void* e,
                                             const void* path, sinfo_ctx* sc, bool* failed) {
  *failed = true;
  void* vars = tvm_ffi_list_new();
  if (!vars) return NULL;
  tvm_tir_visitor vis = {0};
  vis.pre_default = collect_var;
  vis.ctx = vars;
  int rc = tvm_tir_visit(&vis, e);
  tvm_tir_visitor_free(&vis);
  bool any = false;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(vars); ++i) {
    const void* v = tvm_ffi_seq_obj_at(vars, i);
    bool sig = !tvm_script_is_var_defined(d, v);
    for (int64_t j = 0; !sig && j < tvm_ffi_seq_size(sc->new_vars); ++j) {
      sig = tvm_ffi_seq_obj_at(sc->new_vars, j) == v;
    }
    if (!sig) continue;
    any = true;
    tvm_script_doc_obj* name = dim_doc(d, v, path, sc); /* defines it when new */
    if (!name) rc = -1;
    tvm_ffi_release(name);
  }
  tvm_ffi_release(vars);
  if (rc != 0) return NULL;
  *failed = false;
  if (!any) return NULL;
  tvm_script_doc_obj* doc = tvm_script_as_doc_obj(d, e, path);
  if (!doc) {
    *failed = true;
    return NULL;
  }
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  tvm_ffi_strbuf text = {0};
  rc = tvm_script_doc_to_python(doc, &opts, &text);
  tvm_ffi_release(doc);
  /* (the text of one expression: no trailing newline wanted) */
  while (rc == 0 && text.size > 0 && text.data[text.size - 1] == '\n') text.data[--text.size] = 0;
  tvm_script_doc_obj* lit = rc == 0 ? tvm_script_literal_str(text.data ? text.data : "") : NULL;
  tvm_ffi_strbuf_free(&text);
  if (lit) tvm_script_doc_mark(d, lit, path);
  *failed = lit == NULL;
  return lit;
}

static tvm_script_doc_obj* dim_doc(tvm_script_docsifier* d, const void* e, const void* path,
                                   sinfo_ctx* sc) {
  int64_t v;
  if (tvm_tir_kind_of(e) == TVM_TIR_KIND_IntImm && tvm_tir_as_const_int(e, &v) &&
      tvm_tir_dtype_equal(tvm_tir_expr_dtype(e), TVM_TIR_INT64)) {
    tvm_script_doc_obj* lit = tvm_script_literal_int(v);
    tvm_script_doc_mark(d, lit, path);
    return lit;
  }
  if (sc && sc->signature && tvm_tir_is_var(e) && tvm_script_is_var_defined(d, e)) {
    /* Defined earlier in this signature: still written as its name in quotes. */
    for (int64_t i = 0; i < tvm_ffi_seq_size(sc->new_vars); ++i) {
      if (tvm_ffi_seq_obj_at(sc->new_vars, i) != e) continue;
      tvm_script_doc_obj* id = tvm_script_var_doc(d, e);
      tvm_script_doc_obj* lit =
          id ? tvm_script_literal_str(tvm_ffi_str_cstr(((tvm_script_id_doc_obj*)id)->name)) : NULL;
      tvm_ffi_release(id);
      if (lit) tvm_script_doc_mark(d, lit, path);
      return lit;
    }
  }
  if (sc && sc->signature && tvm_tir_is_var(e) && !tvm_script_is_var_defined(d, e)) {
    const char* name = tvm_tir_var_name(e);
    tvm_script_frame* f = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_FUNC);
    tvm_script_doc_obj* id = tvm_script_define_var(d, e, name, f ? f : tvm_script_frame_top(d));
    TVMFFIAny a = tvm_ffi_any_obj(e);
    if (!id || tvm_ffi_list_push(sc->new_vars, &a) != 0) {
      tvm_ffi_release(id);
      return NULL;
    }
    /* The defined name may differ from the hint (made unique): print that one. */
    const void* id_name = ((tvm_script_id_doc_obj*)id)->name;
    tvm_script_doc_obj* lit = tvm_script_literal_str(tvm_ffi_str_cstr(id_name));
    tvm_ffi_release(id);
    if (lit) tvm_script_doc_mark(d, lit, path);
    return lit;
  }
  if (sc && sc->signature && !tvm_tir_is_var(e) && tvm_tir_kind_of(e) != TVM_TIR_KIND_IntImm) {
    bool failed;
    tvm_script_doc_obj* lit = composite_dim_str(d, e, path, sc, &failed);
    if (lit || failed) return lit;
  }
  return tvm_script_as_doc_obj(d, e, path);
}

static tvm_script_doc_obj* dims_doc(tvm_script_docsifier* d, void* dims, const void* path,
                                    sinfo_ctx* sc, bool as_list) {
  void* list = tvm_ffi_list_new();
  bool ok = list != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(dims); ++i) {
    void* p = tvm_script_path_item(d, path, i);
    tvm_script_doc_obj* doc = p ? dim_doc(d, tvm_ffi_seq_obj_at(dims, i), p, sc) : NULL;
    tvm_ffi_release(p);
    TVMFFIAny a = tvm_ffi_any_obj(doc);
    ok = doc && tvm_ffi_list_push(list, &a) == 0;
    tvm_ffi_release(doc);
  }
  if (!ok) {
    tvm_ffi_release(list);
    return NULL;
  }
  void* arr = tvm_script_doc_list_to_array_take(list);
  return as_list ? tvm_script_list_doc_take(arr) : tvm_script_tuple_doc_take(arr);
}

static tvm_script_doc_obj* sinfo_doc(tvm_script_docsifier* d, const tvm_relax_sinfo_obj* s,
                                     const void* path, sinfo_ctx* sc);

/* The printed module's I.module_global_infos list named `key` ("vdevice", "mesh"), or NULL. */
static const void* global_info_list(tvm_script_docsifier* d, const char* key) {
  tvm_script_frame* mf = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_MODULE);
  const tvm_script__module_ctx* mctx = mf ? mf->data : NULL;
  const tvm_tir_ir_module_obj* mod = mctx ? mctx->mod : NULL;
  const TVMFFIAny* infos = mod ? tvm_ffi_map_get_str(mod->attrs, "global_infos") : NULL;
  const TVMFFIAny* list =
      infos && infos->type_index == kTVMFFIMap ? tvm_ffi_map_get_str(infos->v_obj, key) : NULL;
  return list && (list->type_index == kTVMFFIArray || list->type_index == kTVMFFIList)
             ? list->v_obj
             : NULL;
}

/* A tensor's virtual device as upstream prints it: "<target kind>:<index among that kind's>" in
 * the printed module's I.module_global_infos vdevice list (the device itself, else one equal to
 * it); the I.vdevice(...) call when it is not there (no module, or a device of its own). */
static tvm_script_doc_obj* vdevice_doc(tvm_script_docsifier* d, const void* vdev,
                                       const void* path) {
  const void* seq = global_info_list(d, "vdevice");
  const tvm_tir_vdevice_obj* want = vdev;
  TVMFFIAny wa = tvm_ffi_any_obj(want->target ? want->target->kind : NULL);
  TVMFFIByteArray wk;
  int64_t n = seq ? tvm_ffi_seq_size(seq) : 0;
  for (int pass = 0; want->target && tvm_ffi_any_as_bytes(&wa, &wk) && pass < 2; ++pass) {
    int64_t index = 0;
    for (int64_t i = 0; i < n; ++i) {
      const TVMFFIAny* item = tvm_ffi_seq_at(seq, i); /* (the list may hold anything) */
      const void* v = tvm_ffi_any_is_object(item) ? item->v_obj : NULL;
      if (!tvm_tir_is(v, TVM_TIR_KIND_VDevice) || !((const tvm_tir_vdevice_obj*)v)->target) continue;
      TVMFFIAny ka = tvm_ffi_any_obj(((const tvm_tir_vdevice_obj*)v)->target->kind);
      TVMFFIByteArray k;
      if (!tvm_ffi_any_as_bytes(&ka, &k) || k.size != wk.size || memcmp(k.data, wk.data, k.size)) {
        continue;
      }
      TVMFFIAny va = tvm_ffi_any_obj((void*)v), xa = tvm_ffi_any_obj((void*)vdev);
      if (v == vdev || (pass == 1 && tvm_ffi_structural_equal(&va, &xa, false, NULL, NULL) == 1)) {
        char buf[160];
        snprintf(buf, sizeof(buf), "%.*s:%lld", (int)(wk.size < 120 ? wk.size : 120), wk.data,
                 (long long)index);
        tvm_script_doc_obj* lit = tvm_script_literal_str(buf);
        void* p = lit ? tvm_script_path_attr(d, path, "vdevice") : NULL;
        if (p) tvm_script_doc_mark(d, lit, p);
        tvm_ffi_release(p);
        return lit;
      }
      ++index;
    }
  }
  return child(d, vdev, path, "vdevice");
}

/* ---- The distributed dialect ----------------------------------------------------------------- */
/* A list of ints as a tuple (or list) of literals. */
static tvm_script_doc_obj* ints_doc(const void* arr, bool tuple) {
  void* list = tvm_ffi_list_new();
  bool ok = list != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(arr); ++i) {
    tvm_script_doc_obj* lit = tvm_script_literal_int(tvm_ffi_seq_at(arr, i)->v_int64);
    TVMFFIAny a = tvm_ffi_any_obj(lit);
    ok = lit && tvm_ffi_list_push(list, &a) == 0;
    tvm_ffi_release(lit);
  }
  if (!ok) {
    tvm_ffi_release(list);
    return NULL;
  }
  void* docs = tvm_script_doc_list_to_array_take(list);
  return tuple ? tvm_script_tuple_doc_take(docs) : tvm_script_list_doc_take(docs);
}

/* R.device_mesh((2, 2), I.Range(0, 4)), or with the ids as a list, as upstream prints it. */
static tvm_script_doc_obj* mesh_value_doc(tvm_script_docsifier* d,
                                          const tvm_relax_device_mesh_obj* m, const void* path) {
  call_parts c = parts_new();
  push_arg(&c, ints_doc(m->shape, true));
  int64_t lo, ext;
  const tvm_tir_range_obj* r = m->device_range;
  if (r && r->extent && tvm_tir_as_const_int(r->min, &lo) && tvm_tir_as_const_int(r->extent, &ext)) {
    push_arg(&c, tvm_script_doc_call_take(tvm_script_prefixed(d, "ir", "Range"),
                                          tvm_script_literal_int(lo),
                                          tvm_script_literal_int(lo + ext)));
  } else {
    push_arg(&c, ints_doc(m->device_ids, false));
  }
  tvm_script_doc_obj* doc = parts_call(&c, r_prefixed(d, "device_mesh"));
  if (doc) tvm_script_doc_mark(d, doc, path);
  return doc;
}

static tvm_script_doc_obj* conv_device_mesh(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                            const void* path) {
  return mesh_value_doc(d, (const void*)obj->v_obj, path);
}

/* A mesh by its name in the printed module, "mesh[i]" (the mesh itself in the module's
 * I.module_global_infos "mesh" list, else one equal to it), as upstream; else its value. */
static tvm_script_doc_obj* mesh_doc(tvm_script_docsifier* d, const tvm_relax_device_mesh_obj* m,
                                    const void* path) {
  const void* seq = global_info_list(d, "mesh");
  TVMFFIAny ma = tvm_ffi_any_obj((void*)m);
  for (int pass = 0; seq && pass < 2; ++pass) {
    for (int64_t i = 0; i < tvm_ffi_seq_size(seq); ++i) {
      const TVMFFIAny* v = tvm_ffi_seq_at(seq, i);
      if (v->v_obj == (void*)m ||
          (pass == 1 && tvm_ffi_structural_equal(v, &ma, false, NULL, NULL) == 1)) {
        char buf[48];
        snprintf(buf, sizeof(buf), "mesh[%lld]", (long long)i);
        tvm_script_doc_obj* lit = tvm_script_literal_str(buf);
        if (lit) tvm_script_doc_mark(d, lit, path);
        return lit;
      }
    }
  }
  return mesh_value_doc(d, m, path);
}

static tvm_script_doc_obj* placement_doc(const void* placement) {
  tvm_ffi_strbuf text = {0};
  tvm_relax_placement_text(&text, placement);
  tvm_script_doc_obj* doc = tvm_script_literal_str(tvm_ffi_strbuf_cstr(&text));
  tvm_ffi_strbuf_free(&text);
  return doc;
}

static tvm_script_doc_obj* sinfo_child(tvm_script_docsifier* d, const tvm_relax_sinfo_obj* s,
                                       const void* path, const char* name, sinfo_ctx* sc) {
  void* p = tvm_script_path_attr(d, path, name);
  tvm_script_doc_obj* doc = p ? sinfo_doc(d, s, p, sc) : NULL;
  tvm_ffi_release(p);
  return doc;
}

static tvm_script_doc_obj* sinfo_list(tvm_script_docsifier* d, void* arr, const void* path,
                                      const char* name, sinfo_ctx* sc) {
  void* fp = tvm_script_path_attr(d, path, name);
  void* list = fp ? tvm_ffi_list_new() : NULL;
  bool ok = list != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(arr); ++i) {
    void* p = tvm_script_path_item(d, fp, i);
    tvm_script_doc_obj* doc = p ? sinfo_doc(d, tvm_ffi_seq_obj_at(arr, i), p, sc) : NULL;
    tvm_ffi_release(p);
    TVMFFIAny a = tvm_ffi_any_obj(doc);
    ok = doc && tvm_ffi_list_push(list, &a) == 0;
    tvm_ffi_release(doc);
  }
  tvm_ffi_release(fp);
  if (!ok) {
    tvm_ffi_release(list);
    return NULL;
  }
  return tvm_script_doc_list_to_array_take(list); /* an Array of docs */
}

static tvm_script_doc_obj* dtype_str(DLDataType t) { return tvm_script__tir_dtype_literal(t); }

static tvm_script_doc_obj* sinfo_doc(tvm_script_docsifier* d, const tvm_relax_sinfo_obj* s,
                                     const void* path, sinfo_ctx* sc) {
  tvm_script_doc_obj* doc = NULL;
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_ObjectStructInfo:
      doc = r_prefixed(d, "Object");
      break;
    case TVM_RELAX_KIND_PrimStructInfo: {
      const tvm_relax_prim_sinfo_obj* p = (const void*)s;
      call_parts c = parts_new();
      if (p->value) {
        void* vp = tvm_script_path_attr(d, path, "value");
        push_kwarg(&c, "value", vp ? dim_doc(d, p->value, vp, sc) : NULL);
        tvm_ffi_release(vp);
      } else if (!tvm_relax_dtype_is_unknown(p->dtype)) {
        push_arg(&c, dtype_str(p->dtype));
      }
      doc = parts_call(&c, r_prefixed(d, "Prim"));
      break;
    }
    case TVM_RELAX_KIND_ShapeStructInfo: {
      const tvm_relax_shape_sinfo_obj* p = (const void*)s;
      if (!p->values && p->ndim == TVM_RELAX_UNKNOWN_NDIM) return r_prefixed(d, "Shape");
      call_parts c = parts_new();
      if (p->values) {
        void* vp = tvm_script_path_attr(d, path, "values");
        push_arg(&c, vp ? dims_doc(d, p->values, vp, sc, true) : NULL);
        tvm_ffi_release(vp);
      } else {
        push_kwarg(&c, "ndim", tvm_script_literal_int(p->ndim));
      }
      doc = parts_call(&c, r_prefixed(d, "Shape"));
      break;
    }
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj* p = (const void*)s;
      call_parts c = parts_new();
      void* dims = tvm_relax_tensor_sinfo_dims(s);
      bool shape_known = p->shape && tvm_relax_kind_of(p->shape) == TVM_RELAX_KIND_ShapeExpr;
      if (shape_known) {
        void* sp = tvm_script_path_attr(d, path, "shape");
        void* vp = sp ? tvm_script_path_attr(d, sp, "values") : NULL;
        push_arg(&c, vp ? dims_doc(d, dims, vp, sc, false) : NULL);
        tvm_ffi_release(vp);
        tvm_ffi_release(sp);
      } else if (p->shape) {
        push_arg(&c, child(d, p->shape, path, "shape"));
      }
      if (!tvm_relax_dtype_is_unknown(p->dtype)) push_kwarg(&c, "dtype", dtype_str(p->dtype));
      if (!p->shape && p->ndim != TVM_RELAX_UNKNOWN_NDIM) {
        push_kwarg(&c, "ndim", tvm_script_literal_int(p->ndim));
      }
      if (p->vdevice) push_kwarg(&c, "vdevice", vdevice_doc(d, p->vdevice, path));
      if (tvm_ffi_seq_size(c.args) == 0 && tvm_ffi_seq_size(c.keys) == 0) {
        tvm_ffi_release(c.args), tvm_ffi_release(c.keys), tvm_ffi_release(c.values);
        return r_prefixed(d, "Tensor");
      }
      doc = parts_call(&c, r_prefixed(d, "Tensor"));
      break;
    }
    case TVM_RELAX_KIND_DTensorStructInfo: {
      /* upstream's R.DTensor((128, 128), "float32", "mesh[0]", "S[0], R"): positional while
       * each argument before is there, keywords after a missing one */
      const tvm_relax_dtensor_sinfo_obj* p = (const void*)s;
      const tvm_relax_tensor_sinfo_obj* t = (const void*)p->tensor_sinfo;
      void* tp = tvm_script_path_attr(d, path, "tensor_sinfo");
      call_parts c = parts_new();
      bool positional = true;
      if (t->shape && tvm_relax_kind_of(t->shape) == TVM_RELAX_KIND_ShapeExpr) {
        void* sp = tp ? tvm_script_path_attr(d, tp, "shape") : NULL;
        void* vp = sp ? tvm_script_path_attr(d, sp, "values") : NULL;
        push_arg(&c, vp ? dims_doc(d, tvm_relax_tensor_sinfo_dims(&t->base), vp, sc, false) : NULL);
        tvm_ffi_release(vp);
        tvm_ffi_release(sp);
      } else if (t->shape) {
        push_kwarg(&c, "shape", tp ? child(d, t->shape, tp, "shape") : NULL);
        positional = false;
      } else {
        positional = false;
      }
      if (!tvm_relax_dtype_is_unknown(t->dtype)) {
        if (positional) push_arg(&c, dtype_str(t->dtype));
        else push_kwarg(&c, "dtype", dtype_str(t->dtype));
      } else {
        positional = false;
      }
      void* mp = tvm_script_path_attr(d, path, "device_mesh");
      void* pp = tvm_script_path_attr(d, path, "placement");
      tvm_script_doc_obj* md = mp ? mesh_doc(d, p->device_mesh, mp) : NULL;
      tvm_script_doc_obj* pd = pp ? placement_doc(p->placement) : NULL;
      if (pd) tvm_script_doc_mark(d, pd, pp);
      if (positional) {
        push_arg(&c, md);
        push_arg(&c, pd);
      } else {
        push_kwarg(&c, "device_mesh", md);
        push_kwarg(&c, "placement", pd);
      }
      if (!t->shape && t->ndim != TVM_RELAX_UNKNOWN_NDIM) {
        push_kwarg(&c, "ndim", tvm_script_literal_int(t->ndim));
      }
      tvm_ffi_release(mp);
      tvm_ffi_release(pp);
      tvm_ffi_release(tp);
      doc = parts_call(&c, r_prefixed(d, "DTensor"));
      break;
    }
    case TVM_RELAX_KIND_TupleStructInfo: {
      const tvm_relax_tuple_sinfo_obj* p = (const void*)s;
      if (tvm_ffi_seq_size(p->fields) == 0) return r_prefixed(d, "Tuple");
      void* fields = sinfo_list(d, p->fields, path, "fields", sc);
      doc = fields ? tvm_script_call_doc_take(r_prefixed(d, "Tuple"), fields, NULL, NULL) : NULL;
      break;
    }
    case TVM_RELAX_KIND_FuncStructInfo: {
      /* upstream's: R.Callable((params...), ret, purity); an opaque one R.Callable with its
       * non-default ret= / derive_func= / purity= (an opaque function is impure unless it says
       * so) */
      const tvm_relax_func_sinfo_obj* p = (const void*)s;
      call_parts c = parts_new();
      if (p->params) {
        void* params = sinfo_list(d, p->params, path, "params", sc);
        push_arg(&c, params ? tvm_script_tuple_doc_take(params) : NULL);
        push_arg(&c, sinfo_child(d, p->ret, path, "ret", sc));
        push_arg(&c, tvm_script_literal_bool(p->purity));
      } else {
        if (tvm_relax_kind_of(p->ret) != TVM_RELAX_KIND_ObjectStructInfo) {
          push_kwarg(&c, "ret", sinfo_child(d, p->ret, path, "ret", sc));
        }
        TVMFFIAny rule = tvm_ffi_any_obj(p->derive_func);
        if (p->derive_func) push_kwarg(&c, "derive_func", tvm_script_literal_doc(&rule));
        if (p->purity) push_kwarg(&c, "purity", tvm_script_literal_bool(true));
      }
      if (c.ok && tvm_ffi_seq_size(c.args) == 0 && tvm_ffi_seq_size(c.keys) == 0) {
        tvm_ffi_release(c.args), tvm_ffi_release(c.keys), tvm_ffi_release(c.values);
        doc = r_prefixed(d, "Callable");
      } else {
        doc = parts_call(&c, r_prefixed(d, "Callable"));
      }
      break;
    }
    default:
      tvm_ffi_raise("TypeError", "printer: not a struct info");
      return NULL;
  }
  if (doc) tvm_script_doc_mark(d, doc, path);
  return doc;
}

static tvm_script_doc_obj* conv_sinfo(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  return sinfo_doc(d, (const void*)obj->v_obj, path, NULL);
}

/* ---- Expressions ----------------------------------------------------------------------------- */
/* A Relax variable: its name. A free one (in a fragment, or a use outside its scope in
 * ill-formed IR) is first declared with its struct info, `x: R.Tensor((2, 3), dtype="float32")`,
 * as upstream's PrintRelaxVar does, where a free TIR variable is: at the top of a fragment, or
 * in the innermost function before the statement that uses it. */
static tvm_script_doc_obj* conv_var(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                    const void* path) {
  const tvm_relax_var_obj* v = (const void*)obj->v_obj;
  tvm_script_doc_obj* doc = tvm_script_var_doc(d, v);
  if (doc) return doc;
  tvm_script_frame* f = tvm_script__tir_decl_frame(d); /* as a free TIR variable's */
  void* sp = tvm_script_path_attr(d, path, "struct_info_");
  tvm_script_doc_obj* ann = sp ? sinfo_doc(d, tvm_relax_sinfo_of(v), sp, NULL) : NULL;
  tvm_ffi_release(sp);
  tvm_script_doc_obj* id = ann ? tvm_script_define_var(d, v, tvm_relax_var_name(v), f) : NULL;
  if (!id) {
    tvm_ffi_release(ann);
    return NULL;
  }
  if (tvm_script_frame_emit_take(f, tvm_script_assign_doc_take(id, NULL, ann)) != 0) return NULL;
  return tvm_script_var_doc(d, v);
}

/* Under the relax token an int64 IntImm is a plain int (`R.prim_value(0)`, `R.shape([n, 4])`)
 * and others keep their type (`T.int32(0)`), as upstream's. */
static tvm_script_doc_obj* conv_int_imm(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                        const void* path) {
  int64_t v;
  DLDataType t = tvm_tir_expr_dtype(obj->v_obj);
  if (tvm_tir_as_const_int(obj->v_obj, &v)) {
    if (tvm_tir_dtype_equal(t, TVM_TIR_INT64)) return tvm_script_literal_int(v);
    /* T.int32(7): a plain int would read back as an int64 here */
    if (t.code == kDLInt || (t.code == kDLUInt && t.bits > 1 && t.bits < 64)) {
      return tvm_script_doc_call_take(tvm_script__tir_dtype_attr(d, t), tvm_script_literal_int(v));
    }
  }
  tvm_script_pop_token(d); /* the TIR converter (bools, uint64), as outside Relax */
  tvm_script_doc_obj* doc = tvm_script_as_doc(d, obj, NULL);
  int rc = tvm_script_push_token(d, "relax");
  if (rc != 0) {
    tvm_ffi_release(doc);
    return NULL;
  }
  return doc;
}

/* A GlobalVar under the relax token: `cls.name` inside a module (the function then gets
 * `cls = Module`), else its bare name, as upstream prints a function's references to others
 * when it is printed outside its module. */
static tvm_script_doc_obj* conv_global_var(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                           const void* path) {
  const tvm_tir_global_var_obj* gv = (const void*)obj->v_obj;
  tvm_script_doc_obj* doc = tvm_script_var_doc(d, gv);
  if (doc) {
    tvm_script_frame* f = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_FUNC);
    if (f) f->flags |= SCRIPT_FRAME_USES_CLS;
    return doc;
  }
  return tvm_script_id_doc_str(gv->name_hint);
}

/* (a, b); the empty tuple as R.tuple(), as upstream prints it. */
static tvm_script_doc_obj* conv_tuple(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  const tvm_relax_tuple_obj* t = (const void*)obj->v_obj;
  if (tvm_ffi_seq_size(t->fields) == 0) return tvm_script_doc_call_takev(r_prefixed(d, "tuple"), 0, NULL);
  void* p = tvm_script_path_attr(d, path, "fields");
  void* docs = p ? tvm_script_as_doc_array(d, t->fields, p) : NULL;
  tvm_ffi_release(p);
  return tvm_script_tuple_doc_take(docs);
}

static tvm_script_doc_obj* conv_tuple_get_item(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                               const void* path) {
  const tvm_relax_tuple_get_item_obj* g = (const void*)obj->v_obj;
  tvm_script_doc_obj* t = child(d, g->tuple_value, path, "tuple_value");
  if (tvm_relax_kind_of(g->tuple_value) == TVM_RELAX_KIND_Tuple) {
    /* `(a, b)[0]` would parse as Python indexing (giving `a`): the call keeps the node */
    return tvm_script_doc_call_take(r_prefixed(d, "TupleGetItem"), t,
                                    tvm_script_literal_int(g->index));
  }
  return tvm_script_index_doc_take(t, tvm_script_doc_array_take(tvm_script_literal_int(g->index)));
}

static tvm_script_doc_obj* conv_shape_expr(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                           const void* path) {
  const tvm_relax_shape_expr_obj* s = (const void*)obj->v_obj;
  void* p = tvm_script_path_attr(d, path, "values");
  tvm_script_doc_obj* dims = p ? dims_doc(d, s->values, p, NULL, true) : NULL;
  tvm_ffi_release(p);
  return tvm_script_doc_call_take(r_prefixed(d, "shape"), dims);
}

static tvm_script_doc_obj* conv_prim_value(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                           const void* path) {
  const tvm_relax_prim_value_obj* p = (const void*)obj->v_obj;
  void* vp = tvm_script_path_attr(d, path, "value");
  tvm_script_doc_obj* v = vp ? tvm_script_as_doc_obj(d, p->value, vp) : NULL;
  tvm_ffi_release(vp);
  return tvm_script_doc_call_take(r_prefixed(d, "prim_value"), v);
}

static tvm_script_doc_obj* conv_string_imm(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                           const void* path) {
  const tvm_relax_string_imm_obj* s = (const void*)obj->v_obj;
  TVMFFIAny v = tvm_ffi_any_obj(s->value);
  return tvm_script_doc_call_take(r_prefixed(d, "str"), tvm_script_literal_doc(&v));
}

static tvm_script_doc_obj* conv_dtype_imm(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  const tvm_relax_dtype_imm_obj* t = (const void*)obj->v_obj;
  return tvm_script_doc_call_take(r_prefixed(d, "dtype"), dtype_str(t->value));
}

/* Whether an ExternFunc has the struct info R.ExternFunc("name") / R.call_packed("name") give
 * it (upstream's: an opaque impure function returning an object), so its name alone reads back
 * to it. LowerRuntimeBuiltin's builtins are pure: they print with their struct info. */
static bool extern_sinfo_is_default(const void* f) {
  const tvm_relax_func_sinfo_obj* s = (const void*)tvm_relax_sinfo_of(f);
  return !s || (tvm_relax_kind_of(s) == TVM_RELAX_KIND_FuncStructInfo && !s->params &&
                !s->purity && tvm_relax_kind_of(s->ret) == TVM_RELAX_KIND_ObjectStructInfo);
}

/* R.ExternFunc("name"), with its struct info second when not the default (positional, as
 * upstream prints it: the keyword is `struct_info=` in older upstream, `ty=` in newer). */
static tvm_script_doc_obj* conv_extern_func(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                            const void* path) {
  const tvm_relax_extern_func_obj* f = (const void*)obj->v_obj;
  TVMFFIAny v = tvm_ffi_any_obj(f->global_symbol);
  call_parts c = parts_new();
  push_arg(&c, tvm_script_literal_doc(&v));
  if (!extern_sinfo_is_default(f)) {
    push_arg(&c, sinfo_child(d, tvm_relax_sinfo_of(f), path, "struct_info_", NULL));
  }
  return parts_call(&c, r_prefixed(d, "ExternFunc"));
}

/* float16 / bfloat16 bits as the float they denote (exactly). */
static double half_value(uint16_t h, bool bf16) {
  if (bf16) {
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
  }
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
  return h & 0x8000 ? -v : v;
}

/* Element i of a constant as a number: *out_f for a float, *out_i for an int or bool. Returns
 * 'f', 'i', 'b' (bool), or 0 when the dtype or the value has no literal that the parser's
 * R.const reads back to the same bits (such a constant goes to the metadata section). */
static int element_value(const DLTensor* t, int64_t i, double* out_f, int64_t* out_i) {
  const char* base = (const char*)t->data + t->byte_offset;
  DLDataType dt = t->dtype;
  if (dt.lanes != 1) return 0;
  switch (dt.code) {
    case kDLFloat:
    case kDLBfloat:
      if (dt.bits == 16) *out_f = half_value(((const uint16_t*)base)[i], dt.code == kDLBfloat);
      else if (dt.bits == 32 && dt.code == kDLFloat) *out_f = ((const float*)base)[i];
      else if (dt.bits == 64 && dt.code == kDLFloat) *out_f = ((const double*)base)[i];
      else return 0;
      /* NaN payloads and infinities have no exact literal */
      return isfinite(*out_f) ? 'f' : 0;
    case kDLInt:
      if (dt.bits == 8) *out_i = ((const int8_t*)base)[i];
      else if (dt.bits == 16) *out_i = ((const int16_t*)base)[i];
      else if (dt.bits == 32) *out_i = ((const int32_t*)base)[i];
      else if (dt.bits == 64) *out_i = ((const int64_t*)base)[i];
      else return 0;
      return 'i';
    case kDLUInt:
    case kDLBool:
      if (dt.bits == 1 || (dt.bits == 8 && dt.code == kDLBool)) {
        uint8_t v = ((const uint8_t*)base)[i];
        if (v > 1) return 0;
        *out_i = v;
        return 'b';
      }
      if (dt.code != kDLUInt) return 0;
      if (dt.bits == 8) *out_i = ((const uint8_t*)base)[i];
      else if (dt.bits == 16) *out_i = ((const uint16_t*)base)[i];
      else if (dt.bits == 32) *out_i = ((const uint32_t*)base)[i];
      else if (dt.bits == 64 && ((const uint64_t*)base)[i] <= (uint64_t)INT64_MAX) {
        *out_i = (int64_t)((const uint64_t*)base)[i];
      } else {
        return 0;
      }
      return 'i';
    default:
      return 0;
  }
}

static tvm_script_doc_obj* element_doc(const DLTensor* t, int64_t i) {
  double f = 0;
  int64_t v = 0;
  switch (element_value(t, i, &f, &v)) {
    case 'f': return tvm_script_literal_float(f);
    case 'i': return tvm_script_literal_int(v);
    case 'b': return tvm_script_literal_bool(v != 0);
    default: return NULL;
  }
}

/* The nested list of dims[k:] starting at element *next. */
static tvm_script_doc_obj* nested_doc(const DLTensor* t, int k, int64_t* next) {
  if (k == t->ndim) return element_doc(t, (*next)++);
  void* list = tvm_ffi_list_new();
  bool ok = list != NULL;
  for (int64_t i = 0; ok && i < t->shape[k]; ++i) {
    tvm_script_doc_obj* e = nested_doc(t, k + 1, next);
    TVMFFIAny a = tvm_ffi_any_obj(e);
    ok = e && tvm_ffi_list_push(list, &a) == 0;
    tvm_ffi_release(e);
  }
  if (!ok) {
    tvm_ffi_release(list);
    return NULL;
  }
  return tvm_script_list_doc_take(tvm_script_doc_list_to_array_take(list));
}

/* Whether constant data t prints inline: a compact CPU tensor of at most `max` elements (a
 * scalar always) whose every element has an exact literal. */
static bool const_inline(const DLTensor* t, int64_t max) {
  if (t->device.device_type != kDLCPU || !tvm_ffi_dltensor_is_contiguous(t)) return false;
  int64_t n = tvm_ffi_dltensor_numel(t);
  if (n < 0) {
    tvm_ffi_error_clear();
    return false;
  }
  /* R.const([], ...) does not give back a shape with a zero dim after a non-zero one */
  for (int k = 0; k < t->ndim; ++k) {
    if (t->shape[k] == 0) return false;
  }
  if (t->ndim > 0 && n > max) return false;
  for (int64_t i = 0; i < n; ++i) {
    double f;
    int64_t v;
    if (!element_value(t, i, &f, &v)) return false;
  }
  return true;
}

/* R.const(value, "dtype"): a scalar, or nested lists of the data (row-major, compact); a
 * constant without an exact inline form, or larger than the print options allow, is
 * metadata["relax.expr.Constant"][i]. */
static tvm_script_doc_obj* conv_constant(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                         const void* path) {
  const tvm_relax_constant_obj* c = (const void*)obj->v_obj;
  const DLTensor* t = tvm_ffi_tensor_dl(c->data);
  if (!const_inline(t, tvm_script_docsifier_options(d)->inline_constant_max_elements)) {
    return tvm_script_add_metadata(d, c);
  }
  int64_t next = 0;
  tvm_script_doc_obj* value = nested_doc(t, 0, &next);
  const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(c);
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_DTensorStructInfo) {
    /* R.dist.const(value, R.DTensor(...)): a distributed constant, as upstream prints it */
    tvm_script_doc_obj* sd = sinfo_child(d, s, path, "struct_info_", NULL);
    return tvm_script_doc_call_take(r_prefixed(d, "dist.const"), value, sd);
  }
  return tvm_script_doc_call_take(r_prefixed(d, "const"), value, dtype_str(t->dtype));
}

/* Whether attribute value v equals field i's default. */
static bool is_default(const tvm_relax_op_info* info, int32_t i, const TVMFFIAny* v) {
  TVMFFIAny def;
  if (tvm_relax_op_attr_default(info, i, &def) != 0) {
    tvm_ffi_error_clear();
    return false;
  }
  bool same = tvm_ffi_structural_equal(v, &def, false, NULL, NULL) == 1;
  tvm_ffi_any_release(&def);
  tvm_ffi_error_clear();
  return same;
}

static tvm_script_doc_obj* attr_value_doc(tvm_script_docsifier* d, const TVMFFIAny* v,
                                          const void* path) {
  if (v->type_index == kTVMFFIDataType) return dtype_str(v->v_dtype);
  /* a virtual device (to_vdevice's dst_vdevice) by its name in the module, as upstream */
  if (tvm_ffi_any_is_object(v) && tvm_tir_is(v->v_obj, TVM_TIR_KIND_VDevice)) {
    return vdevice_doc(d, v->v_obj, path);
  }
  /* a device mesh (R.dist.annotate_sharding's) by its name in the module, as upstream */
  if (tvm_ffi_any_is_object(v) && tvm_relax_kind_of(v->v_obj) == TVM_RELAX_KIND_DeviceMesh) {
    return mesh_doc(d, (const void*)v->v_obj, path);
  }
  return tvm_script_as_doc(d, v, path);
}

/* out_sinfo of call_tir & co: one struct info, or a list of them for a tuple result (a tuple of
 * one as R.Tuple(...): a list of one reads back as that one). */
static tvm_script_doc_obj* out_sinfo_doc(tvm_script_docsifier* d, const tvm_relax_call_obj* c,
                                         const void* path) {
  void* sp = tvm_script_path_attr(d, path, "sinfo_args");
  void* p = sp ? tvm_script_path_item(d, sp, 0) : NULL;
  const tvm_relax_sinfo_obj* s = tvm_ffi_seq_obj_at(c->sinfo_args, 0);
  tvm_script_doc_obj* doc = NULL;
  if (p && tvm_relax_kind_of(s) == TVM_RELAX_KIND_TupleStructInfo &&
      tvm_ffi_seq_size(((const tvm_relax_tuple_sinfo_obj*)s)->fields) != 1) {
    void* fields = sinfo_list(d, ((const tvm_relax_tuple_sinfo_obj*)s)->fields, p, "fields", NULL);
    doc = fields ? tvm_script_list_doc_take(fields) : NULL;
  } else if (p) {
    doc = sinfo_doc(d, s, p, NULL);
  }
  tvm_ffi_release(p);
  tvm_ffi_release(sp);
  return doc;
}

/* A callee argument (upstream's PrintCallee): an ExternFunc as its name in quotes (as
 * R.ExternFunc(...) when its struct info is not what the name reads back to). */
static tvm_script_doc_obj* callee_arg(tvm_script_docsifier* d, const tvm_relax_call_obj* c,
                                      const void* path, int64_t i) {
  const void* a = tvm_ffi_seq_obj_at(c->args, i);
  if (tvm_relax_kind_of(a) != TVM_RELAX_KIND_ExternFunc || !extern_sinfo_is_default(a)) {
    return child_item(d, c->args, path, "args", i);
  }
  TVMFFIAny name = tvm_ffi_any_obj(((const tvm_relax_extern_func_obj*)a)->global_symbol);
  tvm_script_doc_obj* doc = tvm_script_literal_doc(&name);
  void* ap = tvm_script__tir_path_item(d, path, "args", i);
  tvm_script_doc_mark(d, doc, ap);
  tvm_ffi_release(ap);
  return doc;
}

/* `sinfo_args=(...)`, a tuple as upstream prints it. */
static void push_sinfo_args(tvm_script_docsifier* d, call_parts* parts, const tvm_relax_call_obj* c,
                            const void* path) {
  if (tvm_ffi_seq_size(c->sinfo_args) == 0) return;
  void* s = sinfo_list(d, c->sinfo_args, path, "sinfo_args", NULL);
  push_kwarg(parts, "sinfo_args", s ? tvm_script_tuple_doc_take(s) : NULL);
}

/* call_tir / call_tir_inplace / call_dps_packed / dist.call_tir_local_view as upstream prints
 * them:
 *   R.call_tir(cls.f, (x,), out_sinfo=..., tir_vars=R.shape([n]))
 *   R.call_tir_inplace(cls.f, (x, y), out_sinfo=..., inplace_indices=[0], tir_vars=...)
 *   R.call_dps_packed("name", (x,), out_sinfo=...) */
static tvm_script_doc_obj* dps_call_doc(tvm_script_docsifier* d, const tvm_relax_call_obj* c,
                                        const tvm_relax_op_info* info, const void* path) {
  call_parts parts = parts_new();
  int64_t n = tvm_ffi_seq_size(c->args);
  push_arg(&parts, callee_arg(d, c, path, 0));
  push_arg(&parts, child_item(d, c->args, path, "args", 1));
  push_kwarg(&parts, "out_sinfo", out_sinfo_doc(d, c, path));
  if (info->id == TVM_RELAX_OP_call_tir_inplace) {
    const TVMFFIAny* v = c->attrs ? tvm_ffi_map_get_str(c->attrs, "inplace_indices") : NULL;
    void* ap = v ? tvm_script_path_attr(d, path, "attrs") : NULL;
    TVMFFIAny key = tvm_ffi_string("inplace_indices");
    void* kp = ap ? tvm_script_path_map_item(d, ap, &key) : NULL;
    tvm_ffi_any_release(&key);
    push_kwarg(&parts, "inplace_indices", kp ? tvm_script_as_doc(d, v, kp) : tvm_script_list_doc_take(tvm_ffi_array_new(NULL, 0)));
    tvm_ffi_release(kp);
    tvm_ffi_release(ap);
  }
  if (info->id == TVM_RELAX_OP_call_tir_with_grad && c->attrs) {
    /* te_grad_name, then te_grad_kwargs unless None or empty, as upstream prints them */
    void* ap = tvm_script_path_attr(d, path, "attrs");
    static const char* const names[2] = {"te_grad_name", "te_grad_kwargs"};
    for (int k = 0; ap && k < 2; ++k) {
      const TVMFFIAny* v = tvm_ffi_map_get_str(c->attrs, names[k]);
      if (!v || tvm_ffi_any_is_none(v) ||
          (k == 1 && v->type_index == kTVMFFIMap && tvm_ffi_map_size(v->v_obj) == 0)) {
        continue;
      }
      TVMFFIAny key = tvm_ffi_string(names[k]);
      void* kp = tvm_script_path_map_item(d, ap, &key);
      tvm_ffi_any_release(&key);
      push_kwarg(&parts, names[k], kp ? attr_value_doc(d, v, kp) : NULL);
      tvm_ffi_release(kp);
    }
    tvm_ffi_release(ap);
  }
  if (n == 3 && info->id != TVM_RELAX_OP_call_dps_packed) {
    push_kwarg(&parts, "tir_vars", child_item(d, c->args, path, "args", 2));
  }
  /* R.dist.call_tir: upstream's spelling of a call_tir whose output is distributed */
  const char* name = info->name + strlen("relax.");
  if (info->id == TVM_RELAX_OP_call_tir && tvm_relax_sinfo_has_dtensor(tvm_relax_sinfo_of(c))) {
    name = "dist.call_tir";
  }
  return parts_call(&parts, r_prefixed(d, name));
}

/* R.hint_on_device(x, R.device(dev_type=T, dev_id=I)[, "scope"]), as upstream prints it. */
static tvm_script_doc_obj* hint_on_device_doc(tvm_script_docsifier* d, const tvm_relax_call_obj* c,
                                              const void* path) {
  int64_t type = 0, index = 0;
  const TVMFFIAny* t = tvm_ffi_map_get_str(c->attrs, "device_type");
  const TVMFFIAny* i = tvm_ffi_map_get_str(c->attrs, "index");
  const TVMFFIAny* m = tvm_ffi_map_get_str(c->attrs, "memory_scope");
  if (t) tvm_ffi_any_as_int(t, &type);
  if (i) tvm_ffi_any_as_int(i, &index);
  call_parts dev = parts_new();
  push_kwarg(&dev, "dev_type", tvm_script_literal_int(type));
  push_kwarg(&dev, "dev_id", tvm_script_literal_int(index));
  call_parts parts = parts_new();
  push_arg(&parts, child_item(d, c->args, path, "args", 0));
  push_arg(&parts, parts_call(&dev, r_prefixed(d, "device")));
  TVMFFIByteArray ms = {"global", 6};
  if (m) tvm_ffi_any_as_bytes(m, &ms);
  if (!(ms.size == 6 && memcmp(ms.data, "global", 6) == 0)) push_arg(&parts, tvm_script_literal_doc(m));
  return parts_call(&parts, r_prefixed(d, "hint_on_device"));
}

static tvm_script_doc_obj* conv_call(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                     const void* path) {
  const tvm_relax_call_obj* c = (const void*)obj->v_obj;
  const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
  int64_t n = tvm_ffi_seq_size(c->args);
  if (info &&
      (info->id == TVM_RELAX_OP_call_tir || info->id == TVM_RELAX_OP_call_tir_inplace ||
       info->id == TVM_RELAX_OP_call_dps_packed || info->id == TVM_RELAX_OP_call_tir_with_grad ||
       info->id == TVM_RELAX_OP_dist_call_tir_local_view) &&
      (n == 2 || n == 3) && tvm_ffi_seq_size(c->sinfo_args) == 1) {
    return dps_call_doc(d, c, info, path);
  }
  if (info && info->id == TVM_RELAX_OP_hint_on_device && n == 1 && c->attrs) {
    return hint_on_device_doc(d, c, path);
  }
  call_parts parts = parts_new();
  bool extern_callee = tvm_relax_kind_of(c->op) == TVM_RELAX_KIND_ExternFunc;
  if (extern_callee && !extern_sinfo_is_default(c->op)) {
    /* R.call_packed(R.ExternFunc("name", struct_info=...), args..., sinfo_args=(...)) */
    push_arg(&parts, child(d, c->op, path, "op"));
  } else if (extern_callee) {
    /* R.call_packed("name", args..., sinfo_args=(...)) */
    TVMFFIAny name = tvm_ffi_any_obj(((const tvm_relax_extern_func_obj*)c->op)->global_symbol);
    tvm_script_doc_obj* nd = tvm_script_literal_doc(&name);
    void* op_path = tvm_script_path_attr(d, path, "op");
    tvm_script_doc_mark(d, nd, op_path);
    tvm_ffi_release(op_path);
    push_arg(&parts, nd);
  }
  /* The callee argument of call_pure_packed / call_inplace_packed prints as its name, as
   * upstream's (the parser's R.call_pure_packed takes a name); other operators' ExternFunc
   * arguments as R.ExternFunc. */
  bool name_callee = info && (info->id == TVM_RELAX_OP_call_pure_packed ||
                              info->id == TVM_RELAX_OP_call_inplace_packed ||
                              info->id == TVM_RELAX_OP_call_builtin_with_ctx);
  /* R.nn.attention_var_len in its Python order (max_seqlen_q before seqstart_k), the key
   * arguments left out where they are the query ones, which the parser's defaults give back
   * (upstream prints the Call's order, which its wrapper would read otherwise). */
  static const int64_t k_var_len[7] = {0, 1, 2, 3, 5, 4, 6};
  const int64_t* order = NULL;
  int64_t n_print = n;
  if (info && info->id == TVM_RELAX_OP_nn_attention_var_len && n == 7) {
    order = k_var_len;
    bool same_sk = tvm_ffi_seq_obj_at(c->args, 4) == tvm_ffi_seq_obj_at(c->args, 3);
    bool same_mk = tvm_ffi_seq_obj_at(c->args, 6) == tvm_ffi_seq_obj_at(c->args, 5);
    n_print = same_mk ? (same_sk ? 5 : 6) : 7;
  }
  for (int64_t k = 0; k < n_print; ++k) {
    int64_t i = order ? order[k] : k;
    push_arg(&parts, i == 0 && name_callee ? callee_arg(d, c, path, 0)
                                          : child_item(d, c->args, path, "args", i));
  }
  void* callee = NULL;
  if (info) {
    void* ap = c->attrs ? tvm_script_path_attr(d, path, "attrs") : NULL;
    for (int32_t i = 0; ap && i < info->num_attrs; ++i) {
      const TVMFFIAny* v = tvm_ffi_map_get_str(c->attrs, info->attrs[i].name);
      if (!v || is_default(info, i, v)) continue;
      TVMFFIAny key = tvm_ffi_string(info->attrs[i].name);
      void* kp = tvm_script_path_map_item(d, ap, &key);
      tvm_ffi_any_release(&key);
      push_kwarg(&parts, info->attrs[i].name, kp ? attr_value_doc(d, v, kp) : NULL);
      tvm_ffi_release(kp);
    }
    tvm_ffi_release(ap);
    push_sinfo_args(d, &parts, c, path);
    callee = r_prefixed(d, info->name + strlen("relax."));
    void* op_path = callee ? tvm_script_path_attr(d, path, "op") : NULL;
    tvm_script_doc_mark(d, callee, op_path);
    tvm_ffi_release(op_path);
  } else {
    if (extern_callee && c->attrs && tvm_ffi_map_size(c->attrs) > 0) {
      /* R.call_packed's keyword attributes, as upstream prints a DictAttrs */
      TVMFFIAny tk = tvm_ffi_string("DictAttrs");
      push_kwarg(&parts, "attrs_type_key", tvm_script_literal_doc(&tk));
      tvm_ffi_any_release(&tk);
      void* ap = tvm_script_path_attr(d, path, "attrs");
      const TVMFFIAny *key, *val;
      for (int64_t pos = 0; ap && (pos = tvm_ffi_map_next(c->attrs, pos, &key, &val)) >= 0;) {
        TVMFFIByteArray kb = {0};
        tvm_ffi_strbuf name = {0};
        tvm_ffi_any_as_bytes(key, &kb); /* (the keys are strings: the parser's keywords) */
        tvm_ffi_strbuf_append(&name, kb.data, kb.size);
        void* kp = tvm_script_path_map_item(d, ap, key);
        push_kwarg(&parts, tvm_ffi_strbuf_cstr(&name), kp ? attr_value_doc(d, val, kp) : NULL);
        tvm_ffi_release(kp);
        tvm_ffi_strbuf_free(&name);
      }
      tvm_ffi_release(ap);
    }
    push_sinfo_args(d, &parts, c, path);
    callee = extern_callee ? r_prefixed(d, "call_packed") : child(d, c->op, path, "op");
  }
  return parts_call(&parts, callee);
}

/* ---- Bindings and blocks --------------------------------------------------------------------- */
static int emit_bindings(tvm_script_docsifier* d, const tvm_relax_block_obj* blk, const void* path,
                         tvm_script_frame* frame, tvm_script_frame* outer);
static int emit_seq_body(tvm_script_docsifier* d, const tvm_relax_seq_expr_obj* seq,
                         const void* path, tvm_script_frame* frame, void** out_result);
static tvm_script_doc_obj* function_doc(tvm_script_docsifier* d, const tvm_relax_function_obj* f,
                                        const void* path, const char* name, const void* var);

/* Underlining: the statements frame->stmts[start:] also show the node at path (a binding's
 * statement its binding, a block's statements the block, a SeqExpr's all of them). */
static void mark_since(tvm_script_docsifier* d, tvm_script_frame* frame, int64_t start,
                       const void* path) {
  if (!tvm_script_tracks_paths(d)) return;
  for (int64_t i = start; i < tvm_ffi_seq_size(frame->stmts); ++i) {
    tvm_script_doc_mark(d, tvm_ffi_seq_obj_at(frame->stmts, i), path);
  }
}

static void mark_last(tvm_script_docsifier* d, tvm_script_frame* frame, const void* path) {
  int64_t n = tvm_ffi_seq_size(frame->stmts);
  if (n > 0) mark_since(d, frame, n - 1, path);
}

/* The annotation `lv: <sinfo>` of a binding's variable. */
static tvm_script_doc_obj* var_annotation(tvm_script_docsifier* d, const tvm_relax_var_obj* var,
                                          const void* var_path) {
  void* p = tvm_script_path_attr(d, var_path, "struct_info_");
  tvm_script_doc_obj* doc = p ? sinfo_doc(d, tvm_relax_sinfo_of(var), p, NULL) : NULL;
  tvm_ffi_release(p);
  return doc;
}

/* The branch of an If as statements ending with `var: sinfo = result`. */
static void* branch_stmts(tvm_script_docsifier* d, const tvm_relax_expr_obj* branch,
                          const void* path, const tvm_relax_var_obj* var, const void* var_path) {
  tvm_script_frame* f = tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_SCOPE);
  if (!f) return NULL;
  void* result = NULL;
  int rc = emit_seq_body(d, (const tvm_relax_seq_expr_obj*)branch, path, f, &result);
  if (rc == 0) {
    /* The variable is defined after the if: print it by name without defining it here. */
    tvm_script_doc_obj* lhs = tvm_script_id_doc_str(var->name_hint);
    tvm_script_doc_obj* ann = lhs ? var_annotation(d, var, var_path) : NULL;
    rc = tvm_script_frame_emit_take(f, tvm_script_assign_doc_take(lhs, result, ann));
    result = NULL;
    if (rc == 0) mark_last(d, f, path);
  }
  tvm_ffi_release(result);
  void* stmts = rc == 0 ? tvm_script_stmts_to_array(f->stmts) : NULL;
  tvm_script_frame_pop(d);
  return stmts;
}

/* A Relax function's printing state, its FUNC frame's data: the variables it uses, found when
 * first asked. */
typedef struct {
  const tvm_relax_function_obj* func;
  void* used; /* ffi.Dict Var -> None; NULL until asked */
} func_print_ctx;

static bool is_void_sinfo(const tvm_relax_sinfo_obj* s) {
  return tvm_relax_kind_of(s) == TVM_RELAX_KIND_TupleStructInfo &&
         tvm_ffi_seq_size(((const tvm_relax_tuple_sinfo_obj*)s)->fields) == 0;
}

/* Whether var is never used in the function being printed (false when that is not known: no
 * function, or out of memory). */
static bool var_unused(tvm_script_docsifier* d, const tvm_relax_var_obj* var) {
  tvm_script_frame* f = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_FUNC);
  func_print_ctx* fc = f ? f->data : NULL;
  if (!fc) return false;
  if (!fc->used) {
    void* vars = tvm_relax_used_vars(fc->func);
    void* used = vars ? tvm_ffi_dict_new() : NULL;
    TVMFFIAny none = tvm_ffi_any_none();
    bool ok = used != NULL;
    for (int64_t i = 0; ok && i < tvm_ffi_seq_size(vars); ++i) {
      ok = tvm_ffi_dict_set(used, tvm_ffi_seq_at(vars, i), &none) == 0;
    }
    tvm_ffi_release(vars);
    if (!ok) {
      tvm_ffi_release(used);
      tvm_ffi_error_clear();
      return false;
    }
    fc->used = used;
  }
  TVMFFIAny key = tvm_ffi_any_obj((void*)var);
  return tvm_ffi_map_get(fc->used, &key) == NULL;
}

/* Whether a binding of value to var leaves its annotation out, as upstream does for call_tir
 * and call_dps_packed, whose out_sinfo says it: when the variable's struct info is the call's
 * (a different one keeps its annotation, which parsing it back needs). */
static bool annotation_implied(const tvm_relax_var_obj* var, const tvm_relax_expr_obj* value) {
  if (tvm_relax_kind_of(value) != TVM_RELAX_KIND_Call) return false;
  const tvm_relax_op_info* info = tvm_relax_op_info_of(((const tvm_relax_call_obj*)value)->op);
  if (!info || (info->id != TVM_RELAX_OP_call_tir && info->id != TVM_RELAX_OP_call_dps_packed)) {
    return false;
  }
  const tvm_relax_sinfo_obj* a = tvm_relax_sinfo_of(var);
  const tvm_relax_sinfo_obj* b = tvm_relax_sinfo_of(value);
  if (tvm_relax_sinfo_has_dtensor(b)) return false; /* R.dist.call_tir: upstream's own op */
  if (a == b) return true;
  TVMFFIAny x = tvm_ffi_any_obj((void*)a), y = tvm_ffi_any_obj((void*)b);
  int eq = a && b ? tvm_ffi_structural_equal(&x, &y, false, NULL, NULL) : 0;
  if (eq < 0) tvm_ffi_error_clear();
  return eq == 1;
}

/* Emit binding b into frame. Its variable is defined in `outer` when it is an output of a
 * dataflow block (visible after the block), else in frame. */
static int emit_binding(tvm_script_docsifier* d, const tvm_relax_binding_obj* b, const void* path,
                        tvm_script_frame* frame, tvm_script_frame* outer) {
  const tvm_relax_var_obj* var = b->var;
  tvm_script_frame* def_frame =
      tvm_relax_kind_of(var) == TVM_RELAX_KIND_DataflowVar || !outer ? frame : outer;
  void* var_path = tvm_script_path_attr(d, path, "var");
  void* vp = var_path ? tvm_script_path_attr(d, path, "value") : NULL;
  const tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
  int rc = vp ? 0 : -1;
  tvm_relax_kind vk = tvm_relax_kind_of(value);
  if (rc == 0 && tvm_relax_kind_of(b) == TVM_RELAX_KIND_VarBinding && vk == TVM_RELAX_KIND_If) {
    const tvm_relax_if_obj* f = (const void*)value;
    tvm_script_doc_obj* cond = child(d, f->cond, vp, "cond");
    void* tp = tvm_script_path_attr(d, vp, "true_branch");
    void* fp = tvm_script_path_attr(d, vp, "false_branch");
    void* then_stmts = cond && tp ? branch_stmts(d, f->true_branch, tp, var, var_path) : NULL;
    void* else_stmts = then_stmts && fp ? branch_stmts(d, f->false_branch, fp, var, var_path) : NULL;
    tvm_ffi_release(tp);
    tvm_ffi_release(fp);
    if (!else_stmts) {
      tvm_ffi_release(cond);
      tvm_ffi_release(then_stmts);
      rc = -1;
    } else {
      rc = tvm_script_frame_emit_take(frame, tvm_script_if_doc_take(cond, then_stmts, else_stmts));
      if (rc == 0) mark_last(d, frame, vp); /* the If itself */
      tvm_script_doc_obj* id = rc == 0 ? tvm_script_define_var(d, var, tvm_relax_var_name(var), def_frame) : NULL;
      if (!id) rc = -1;
      tvm_ffi_release(id);
    }
  } else if (rc == 0 && tvm_relax_kind_of(b) == TVM_RELAX_KIND_VarBinding &&
             vk == TVM_RELAX_KIND_Function) {
    tvm_script_doc_obj* id = tvm_script_define_var(d, var, tvm_relax_var_name(var), def_frame);
    tvm_script_doc_obj* fd =
        id ? function_doc(d, (const void*)value, vp, tvm_ffi_str_cstr(((tvm_script_id_doc_obj*)id)->name), var)
           : NULL;
    tvm_ffi_release(id);
    tvm_script_doc_mark(d, fd, vp); /* the Function itself */
    rc = fd ? tvm_script_frame_emit_take(frame, fd) : -1;
  } else if (rc == 0) {
    tvm_script_doc_obj* rhs;
    if (tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast) {
      const tvm_relax_match_cast_obj* m = (const void*)b;
      tvm_script_doc_obj* v = tvm_script_as_doc_obj(d, value, vp);
      tvm_script_doc_obj* s = v ? sinfo_child(d, m->struct_info, path, "struct_info", NULL) : NULL;
      rhs = s ? tvm_script_doc_call_take(r_prefixed(d, "match_cast"), v, s) : NULL;
      if (!s) tvm_ffi_release(v);
    } else {
      rhs = tvm_script_as_doc_obj(d, value, vp);
    }
    /* A call returning nothing into a variable nobody uses, as upstream's syntax sugar: the
     * bare call `R.print(x, format="...")` (which parses back to such a binding, in a dataflow
     * block to a DataflowVar: an output stays an assignment). */
    if (rhs && tvm_relax_kind_of(b) == TVM_RELAX_KIND_VarBinding && def_frame == frame &&
        is_void_sinfo(tvm_relax_sinfo_of(value)) && is_void_sinfo(tvm_relax_sinfo_of(var)) &&
        var_unused(d, var)) {
      rc = tvm_script_frame_emit_take(frame, tvm_script_expr_stmt_doc_take(rhs));
      tvm_ffi_release(vp);
      tvm_ffi_release(var_path);
      return rc;
    }
    bool implied = rhs && tvm_relax_kind_of(b) == TVM_RELAX_KIND_VarBinding &&
                   annotation_implied(var, value);
    tvm_script_doc_obj* ann = rhs && !implied ? var_annotation(d, var, var_path) : NULL;
    tvm_script_doc_obj* lhs =
        ann || implied ? tvm_script_define_var(d, var, tvm_relax_var_name(var), def_frame) : NULL;
    if (lhs) tvm_script_doc_mark(d, lhs, var_path);
    if (!lhs) {
      tvm_ffi_release(rhs);
      tvm_ffi_release(ann);
      rc = -1;
    } else {
      rc = tvm_script_frame_emit_take(frame, tvm_script_assign_doc_take(lhs, rhs, ann));
    }
  }
  tvm_ffi_release(vp);
  tvm_ffi_release(var_path);
  return rc;
}

static int emit_bindings(tvm_script_docsifier* d, const tvm_relax_block_obj* blk, const void* path,
                         tvm_script_frame* frame, tvm_script_frame* outer) {
  void* bp = tvm_script_path_attr(d, path, "bindings");
  int rc = bp ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(blk->bindings); ++i) {
    void* p = tvm_script_path_item(d, bp, i);
    rc = p ? emit_binding(d, tvm_ffi_seq_obj_at(blk->bindings, i), p, frame, outer) : -1;
    if (rc == 0) mark_last(d, frame, p); /* the binding's statement (an assignment, if, def) */
    tvm_ffi_release(p);
  }
  tvm_ffi_release(bp);
  return rc;
}

/* `with R.dataflow():` + bindings + `R.output(<non-dataflow vars>)` */
static int emit_dataflow(tvm_script_docsifier* d, const tvm_relax_block_obj* blk, const void* path,
                         tvm_script_frame* frame) {
  tvm_script_frame* f = tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_SCOPE);
  if (!f) return -1;
  int rc = emit_bindings(d, blk, path, f, frame);
  void* outs = rc == 0 ? tvm_ffi_list_new() : NULL;
  if (!outs) rc = -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(blk->bindings); ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, i);
    if (tvm_relax_kind_of(b->var) != TVM_RELAX_KIND_Var) continue;
    tvm_script_doc_obj* v = tvm_script_var_doc(d, b->var);
    TVMFFIAny a = tvm_ffi_any_obj(v);
    rc = v && tvm_ffi_list_push(outs, &a) == 0 ? 0 : -1;
    tvm_ffi_release(v);
  }
  if (rc == 0 && tvm_ffi_seq_size(outs) > 0) {
    tvm_script_doc_obj* call = tvm_script_call_doc_take(
        r_prefixed(d, "output"), tvm_script_doc_list_to_array_take(outs), NULL, NULL);
    outs = NULL;
    rc = tvm_script_frame_emit_take(f, tvm_script_expr_stmt_doc_take(call));
  }
  tvm_ffi_release(outs);
  void* body = rc == 0 ? tvm_script_stmts_to_array(f->stmts) : NULL;
  tvm_script_frame_pop(d);
  if (!body) return -1;
  tvm_script_doc_obj* scope = tvm_script_scope_doc_take(
      NULL, tvm_script_doc_call_takev(r_prefixed(d, "dataflow"), 0, NULL), body);
  return rc == 0 ? tvm_script_frame_emit_take(frame, scope) : (tvm_ffi_release(scope), -1);
}

/* The blocks of seq into frame; *out_result the doc of its body. */
static int emit_seq_body(tvm_script_docsifier* d, const tvm_relax_seq_expr_obj* seq,
                         const void* path, tvm_script_frame* frame, void** out_result) {
  void* bp = tvm_script_path_attr(d, path, "blocks");
  int rc = bp ? 0 : -1;
  int64_t start = tvm_ffi_seq_size(frame->stmts);
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    void* p = tvm_script_path_item(d, bp, i);
    int64_t block_start = tvm_ffi_seq_size(frame->stmts);
    if (!p) rc = -1;
    else if (tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock) rc = emit_dataflow(d, blk, p, frame);
    else rc = emit_bindings(d, blk, p, frame, NULL);
    if (rc == 0) mark_since(d, frame, block_start, p);
    tvm_ffi_release(p);
  }
  tvm_ffi_release(bp);
  if (rc == 0) mark_since(d, frame, start, path);
  *out_result = rc == 0 ? child(d, seq->body, path, "body") : NULL;
  return *out_result ? 0 : -1;
}

/* ---- Functions ------------------------------------------------------------------------------- */
static tvm_script_doc_obj* function_doc(tvm_script_docsifier* d, const tvm_relax_function_obj* f,
                                        const void* path, const char* name, const void* var) {
  /* A module's function or a function printed alone (upstream's AtTopLevelFunction), not one
   * nested in another. */
  bool top = var == NULL && tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_FUNC) == NULL;
  tvm_script_frame* frame = tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_FUNC);
  if (!frame) return NULL;
  func_print_ctx fctx = {f, NULL};
  frame->data = &fctx;
  if (tvm_script_push_token(d, "relax") != 0) {
    tvm_script_frame_pop(d);
    return NULL;
  }
  sinfo_ctx sc = {true, tvm_ffi_list_new()};
  void* args = tvm_ffi_list_new();
  bool ok = sc.new_vars && args;
  /* The return annotation first, then the parameters, as upstream: the symbolic variables are
   * declared in the order the signature first names them, the return's first. */
  tvm_script_doc_obj* ret = ok ? sinfo_child(d, f->ret_struct_info, path, "ret_struct_info", &sc) : NULL;
  ok = ok && ret;
  void* pp = ok ? tvm_script_path_attr(d, path, "params") : NULL;
  for (int64_t i = 0; ok && pp && i < tvm_ffi_seq_size(f->params); ++i) {
    const tvm_relax_var_obj* p = tvm_ffi_seq_obj_at(f->params, i);
    void* ip = tvm_script_path_item(d, pp, i);
    void* sp = ip ? tvm_script_path_attr(d, ip, "struct_info_") : NULL;
    tvm_script_doc_obj* ann = sp ? sinfo_doc(d, tvm_relax_sinfo_of(p), sp, &sc) : NULL;
    tvm_script_doc_obj* id = ann ? tvm_script_define_var(d, p, tvm_relax_var_name(p), frame) : NULL;
    if (id) tvm_script_doc_mark(d, id, ip);
    tvm_script_doc_obj* arg = id ? tvm_script_assign_doc_take(id, NULL, ann) : NULL;
    if (!id) tvm_ffi_release(ann);
    TVMFFIAny a = tvm_ffi_any_obj(arg);
    ok = arg && tvm_ffi_list_push(args, &a) == 0;
    tvm_ffi_release(arg);
    tvm_ffi_release(sp);
    tvm_ffi_release(ip);
  }
  ok = ok && pp;
  tvm_ffi_release(pp);
  /* Symbolic variables the signature defined: `n = T.int64()` first in the body. */
  for (int64_t i = 0; ret && ok && i < tvm_ffi_seq_size(sc.new_vars); ++i) {
    const tvm_tir_var_obj* v = tvm_ffi_seq_obj_at(sc.new_vars, i);
    tvm_script_doc_obj* lhs = tvm_script_var_doc(d, v);
    tvm_script_doc_obj* rhs = tvm_script_doc_call_takev(tvm_script__tir_dtype_attr(d, tvm_tir_expr_dtype(v)), 0, NULL);
    ok = lhs && rhs && tvm_script_frame_emit_take(frame, tvm_script_assign_doc_take(lhs, rhs, NULL)) == 0;
  }
  ok = ok && ret;
  /* R.func_attr({...}): global_symbol is implied by a top-level function's name (it is public,
   * not private) and left out when it is that name, as upstream. */
  const TVMFFIAny* gs = tvm_ffi_map_get_str(f->func.attrs, "global_symbol");
  TVMFFIByteArray gs_name;
  bool gs_implied = top && gs && tvm_ffi_any_as_bytes(gs, &gs_name) &&
                    gs_name.size == strlen(name) && memcmp(gs_name.data, name, gs_name.size) == 0;
  int64_t n_attrs = tvm_ffi_map_size(f->func.attrs) - (gs_implied ? 1 : 0);
  if (ok && n_attrs > 0) {
    /* printed as TIR prints values (an int32 IntImm as 1), as upstream does for func_attr */
    void* ap = tvm_script_path_attr(d, path, "attrs");
    bool pushed = ap && tvm_script_push_token(d, "tirx") == 0;
    tvm_script_doc_obj* attrs =
        pushed ? tvm_script__map_doc(d, f->func.attrs, ap, gs_implied ? "global_symbol" : NULL) : NULL;
    if (pushed) tvm_script_pop_token(d);
    tvm_ffi_release(ap);
    ok = attrs && tvm_script_frame_emit_take(frame, tvm_script_expr_stmt_doc_take(tvm_script_doc_call_take(
                                                        r_prefixed(d, "func_attr"), attrs))) == 0;
  }
  void* result = NULL;
  void* bp = ok ? tvm_script_path_attr(d, path, "body") : NULL;
  int64_t body_start = tvm_ffi_seq_size(frame->stmts); /* where `cls = Module` goes */
  ok = ok && bp && emit_seq_body(d, (const void*)f->body, bp, frame, &result) == 0;
  if (ok) {
    ok = tvm_script_frame_emit_take(frame, tvm_script_return_doc_take(result)) == 0;
    result = NULL;
    if (ok) mark_last(d, frame, bp); /* the return is part of the body (the SeqExpr) */
  }
  tvm_ffi_release(bp);
  tvm_ffi_release(result);
  /* `cls = Module` when the body refers to sibling functions, after the declarations and
   * R.func_attr (upstream's place: right before the body). */
  void* body = NULL;
  if (ok && (frame->flags & SCRIPT_FRAME_USES_CLS)) {
    tvm_script_frame* mf = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_MODULE);
    tvm_script__module_ctx* mctx = mf ? mf->data : NULL;
    tvm_script_doc_obj* mname = mctx ? tvm_script_var_doc(d, mctx->mod) : NULL;
    tvm_script_doc_obj* assign = mname ? tvm_script_assign_doc_take(tvm_script_id_doc("cls"), mname, NULL) : NULL;
    void* stmts = assign ? tvm_script_stmts_to_array(frame->stmts) : NULL;
    void* list = stmts ? tvm_ffi_list_new() : NULL;
    TVMFFIAny a = tvm_ffi_any_obj(assign);
    ok = list != NULL;
    int64_t n = tvm_ffi_seq_size(stmts);
    for (int64_t i = 0; ok && i <= n; ++i) {
      if (i == body_start) ok = tvm_ffi_list_push(list, &a) == 0;
      if (ok && i < n) ok = tvm_ffi_list_push(list, tvm_ffi_seq_at(stmts, i)) == 0;
    }
    body = ok ? tvm_ffi_list_to_array(list) : NULL;
    tvm_ffi_release(list);
    tvm_ffi_release(stmts);
    tvm_ffi_release(assign);
  } else if (ok) {
    body = tvm_script_stmts_to_array(frame->stmts);
  }
  tvm_script_pop_token(d);
  tvm_script_frame_pop(d);
  tvm_ffi_release(fctx.used);
  /* Decorator: @R.function, with pure=False for an impure function and private=True for a
   * top-level one (in a module, or printed alone) without a global_symbol, in upstream's
   * order. */
  call_parts dec = parts_new();
  if (!f->is_pure) push_kwarg(&dec, "pure", tvm_script_literal_bool(false));
  if (top && !gs) push_kwarg(&dec, "private", tvm_script_literal_bool(true));
  tvm_script_doc_obj* decorator = NULL;
  if (tvm_ffi_seq_size(dec.keys) == 0) {
    tvm_ffi_release(dec.args), tvm_ffi_release(dec.keys), tvm_ffi_release(dec.values);
    decorator = r_prefixed(d, "function");
  } else {
    decorator = parts_call(&dec, r_prefixed(d, "function"));
  }
  tvm_ffi_release(sc.new_vars);
  if (!ok || !body || !decorator) {
    tvm_ffi_release(args);
    tvm_ffi_release(ret);
    tvm_ffi_release(body);
    tvm_ffi_release(decorator);
    return NULL;
  }
  return tvm_script_function_doc_take(tvm_script_id_doc(name), tvm_script_doc_list_to_array_take(args),
                                      tvm_script_doc_array_take(decorator), ret, body);
}

static tvm_script_doc_obj* conv_function(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                         const void* path) {
  const tvm_relax_function_obj* f = (const void*)obj->v_obj;
  tvm_script_frame* mf = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_MODULE);
  const tvm_script__module_ctx* mctx = mf ? mf->data : NULL;
  const char* name = mctx && mctx->func_name ? mctx->func_name : NULL;
  char buf[256];
  if (!name) {
    /* Standalone: the name it is exported under, else the default. */
    const TVMFFIAny* gs = tvm_ffi_map_get_str(f->func.attrs, "global_symbol");
    TVMFFIByteArray b;
    if (gs && tvm_ffi_any_as_bytes(gs, &b) && b.size < sizeof(buf)) {
      memcpy(buf, b.data, b.size);
      buf[b.size] = 0;
      name = buf;
    } else {
      name = tvm_script_docsifier_options(d)->default_func_name;
    }
  }
  return function_doc(d, f, path, name, NULL);
}

/* A SeqExpr, If, binding or block printed alone (a fragment). */
static tvm_script_doc_obj* fragment(tvm_script_docsifier* d, const TVMFFIAny* obj, const void* path) {
  tvm_script_frame* f = tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_SCOPE);
  if (!f) return NULL;
  int rc;
  tvm_relax_kind k = tvm_relax_kind_of(obj->v_obj);
  void* result = NULL;
  if (k == TVM_RELAX_KIND_SeqExpr) {
    rc = emit_seq_body(d, (const void*)obj->v_obj, path, f, &result);
    if (rc == 0) rc = tvm_script_frame_emit_take(f, tvm_script_expr_stmt_doc_take(result));
  } else if (k == TVM_RELAX_KIND_DataflowBlock) {
    rc = emit_dataflow(d, (const void*)obj->v_obj, path, f);
  } else if (k == TVM_RELAX_KIND_BindingBlock) {
    rc = emit_bindings(d, (const void*)obj->v_obj, path, f, NULL);
  } else {
    rc = emit_binding(d, (const void*)obj->v_obj, path, f, NULL);
  }
  void* stmts = rc == 0 ? tvm_script_stmts_to_array(f->stmts) : NULL;
  tvm_script_frame_pop(d);
  return stmts ? tvm_script_stmt_block_doc_take(stmts) : NULL;
}

static tvm_script_doc_obj* conv_if(tvm_script_docsifier* d, const TVMFFIAny* obj, const void* path) {
  const tvm_relax_if_obj* f = (const void*)obj->v_obj;
  (void)f;
  tvm_ffi_raise("ValueError", "printer: a Relax If prints only as the value of a binding");
  return NULL;
}

int tvm_script__register_relax(void) {
  tvm_relax_init();
  static const struct {
    tvm_relax_kind kind;
    tvm_script_converter fn;
  } k_table[] = {
      {TVM_RELAX_KIND_ObjectStructInfo, conv_sinfo}, {TVM_RELAX_KIND_PrimStructInfo, conv_sinfo},
      {TVM_RELAX_KIND_ShapeStructInfo, conv_sinfo},  {TVM_RELAX_KIND_TensorStructInfo, conv_sinfo},
      {TVM_RELAX_KIND_TupleStructInfo, conv_sinfo},  {TVM_RELAX_KIND_FuncStructInfo, conv_sinfo},
      {TVM_RELAX_KIND_DTensorStructInfo, conv_sinfo}, {TVM_RELAX_KIND_DeviceMesh, conv_device_mesh},
      {TVM_RELAX_KIND_Call, conv_call},              {TVM_RELAX_KIND_Tuple, conv_tuple},
      {TVM_RELAX_KIND_TupleGetItem, conv_tuple_get_item},
      {TVM_RELAX_KIND_ShapeExpr, conv_shape_expr},   {TVM_RELAX_KIND_Var, conv_var},
      {TVM_RELAX_KIND_DataflowVar, conv_var},        {TVM_RELAX_KIND_Constant, conv_constant},
      {TVM_RELAX_KIND_PrimValue, conv_prim_value},   {TVM_RELAX_KIND_StringImm, conv_string_imm},
      {TVM_RELAX_KIND_DataTypeImm, conv_dtype_imm},  {TVM_RELAX_KIND_If, conv_if},
      {TVM_RELAX_KIND_SeqExpr, fragment},            {TVM_RELAX_KIND_Function, conv_function},
      {TVM_RELAX_KIND_ExternFunc, conv_extern_func}, {TVM_RELAX_KIND_VarBinding, fragment},
      {TVM_RELAX_KIND_MatchCast, fragment},          {TVM_RELAX_KIND_BindingBlock, fragment},
      {TVM_RELAX_KIND_DataflowBlock, fragment},
  };
  for (size_t i = 0; i < sizeof(k_table) / sizeof(k_table[0]); ++i) {
    if (tvm_script_register_converter("", tvm_relax_type_index(k_table[i].kind), k_table[i].fn) != 0) {
      return -1;
    }
  }
  /* Shared IR nodes as Relax prints them. */
  if (tvm_script_register_converter("relax", tvm_tir_type_index(TVM_TIR_KIND_IntImm), conv_int_imm) != 0 ||
      tvm_script_register_converter("relax", tvm_tir_type_index(TVM_TIR_KIND_GlobalVar), conv_global_var) != 0) {
    return -1;
  }
  return 0;
}

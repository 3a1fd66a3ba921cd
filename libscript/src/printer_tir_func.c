/*
 * printer_tir_func.c: buffers, ranges, iteration variables and PrimFuncs -> Doc.
 *
 * A PrimFunc prints as `@T.prim_func` (`(private=True)` without a global_symbol) with its
 * parameters; a parameter bound in buffer_map to a simple buffer (constant shape, compact,
 * global, default alignment/offset/type) and used nowhere else (not in the body) is annotated
 * in the signature
 * (`A: T.Buffer((128, 128), "float32")`), any other buffer is matched in the body
 * (`A = T.match_buffer(a, (n,), "float32")`, after `n = T.int32()`). The dtype is always
 * printed (shared/TVMSCRIPT.md). The implicit root block prints as `# with T.sblock("root"):`.
 */
#include <ctype.h>
#include <string.h>
#include <tvm/script/lexer.h>

#include "printer_tir.h"

/* ---- Buffers ------------------------------------------------------------------------------- */
/* Append key=value (value consumed) to the kwargs lists. */
static bool kwarg(void* keys, void* values, const char* key, void* value) {
  void* s = value ? tvm_ffi_str_obj(key, strlen(key)) : NULL;
  TVMFFIAny sa = tvm_ffi_any_obj(s), va = tvm_ffi_any_obj(value);
  bool ok = s && tvm_ffi_list_push(keys, &sa) == 0 && tvm_ffi_list_push(values, &va) == 0;
  tvm_ffi_release(s);
  tvm_ffi_release(value);
  return ok;
}

static void* array_doc(tvm_script_docsifier* d, const void* arr, const void* path,
                       const char* field, bool tuple) {
  void* p = tvm_script__tir_path(d, path, field);
  void* docs = p ? tvm_script_as_doc_array(d, arr, p) : NULL;
  tvm_ffi_release(p);
  return tuple ? tvm_script_tuple_doc_take(docs) : tvm_script_list_doc_take(docs);
}

/* Occurrences of one variable in a walk. */
typedef struct {
  const void* var;
  int64_t count;
} occurrence_ctx;

static int count_occurrence(tvm_tir_visitor* v, const void* node) {
  occurrence_ctx* ctx = v->ctx;
  if (node == ctx->var) ++ctx->count;
  return TVM_TIR_VISIT_CONTINUE;
}

static void occurrence_visitor(tvm_tir_visitor* v, occurrence_ctx* ctx) {
  v->pre[TVM_TIR_KIND_Var] = count_occurrence;
  v->pre[TVM_TIR_KIND_SizeVar] = count_occurrence;
  v->ctx = ctx;
}

/* Whether e is a variable not defined yet that occurs once in the buffer's data, shape,
 * strides and elem_offset: upstream then defines it through the buffer (`A.strides[0]`,
 * `A.elem_offset`) instead of on a line of its own. */
static int inline_buffer_var(tvm_script_docsifier* d, const tvm_tir_buffer_obj* buf,
                             const void* e, bool* inline_def) {
  tvm_tir_kind k = tvm_tir_kind_of(e);
  *inline_def = false;
  if ((k != TVM_TIR_KIND_Var && k != TVM_TIR_KIND_SizeVar) || tvm_script_is_var_defined(d, e)) {
    return 0;
  }
  occurrence_ctx ctx = {e, 0};
  tvm_tir_visitor v = {0};
  occurrence_visitor(&v, &ctx);
  int rc = tvm_tir_visit(&v, buf);
  tvm_tir_visitor_free(&v);
  *inline_def = rc == 0 && ctx.count == 1;
  return rc;
}

/* The index type of buf: its first dimension's, or int32 (what the parser gives a buffer's
 * elem_offset when none is written). */
static DLDataType index_dtype(const tvm_tir_buffer_obj* buf) {
  return tvm_ffi_seq_size(buf->shape) ? tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(buf->shape, 0))
                                      : TVM_TIR_INT32;
}
/* Whether buf's elem_offset is what the parser makes when none is written: 0 of the index type
 * (a 0 of another type, say int32 under a bool shape, must be written to read back). */
static bool default_elem_offset(const tvm_tir_buffer_obj* buf) {
  return tvm_script__tir_is_const(buf->elem_offset, 0) &&
         tvm_ffi_dtype_equal(tvm_tir_expr_dtype(buf->elem_offset), index_dtype(buf));
}

/* `strides=(...)`: a stride variable defined by this buffer prints as its name (a string) and
 * is defined as `lhs.strides[i]` in frame. */
static tvm_script_doc_obj* strides_doc(tvm_script_docsifier* d, const tvm_tir_buffer_obj* buf,
                                       const void* path, const void* lhs,
                                       tvm_script_frame* frame) {
  void* list = tvm_ffi_list_new();
  bool ok = list != NULL;
  /* The parser makes a named stride a variable of the shape's index type. */
  DLDataType index_t = tvm_ffi_seq_size(buf->shape)
                           ? tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(buf->shape, 0))
                           : TVM_TIR_INT32;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(buf->strides); ++i) {
    const void* e = tvm_ffi_seq_obj_at(buf->strides, i);
    bool inline_def;
    ok = inline_buffer_var(d, buf, e, &inline_def) == 0;
    inline_def = inline_def && tvm_ffi_dtype_equal(tvm_tir_expr_dtype(e), index_t);
    tvm_script_doc_obj* doc = NULL;
    if (ok && inline_def) {
      tvm_ffi_retain((void*)lhs);
      tvm_script_doc_obj* def = tvm_script_index_doc_take(
          tvm_script_attr_doc_take((void*)lhs, "strides"),
          tvm_script_doc_array_take(tvm_script_literal_int(i)));
      ok = def && tvm_script_define_var_doc(d, e, def, frame) == 0;
      tvm_ffi_release(def);
      void* p = ok ? tvm_script__tir_path_item(d, path, "strides", i) : NULL;
      doc = p ? tvm_script_literal_str(tvm_tir_var_name((const tvm_tir_var_obj*)e)) : NULL;
      if (doc) tvm_script_doc_mark(d, doc, p);
      tvm_ffi_release(p);
    } else if (ok) {
      doc = tvm_script__tir_child_item(d, buf->strides, path, "strides", i);
    }
    TVMFFIAny a = tvm_ffi_any_obj(doc);
    ok = doc && tvm_ffi_list_push_take(list, &a) == 0;
    if (!ok) tvm_ffi_release(doc);
  }
  if (!ok) {
    tvm_ffi_release(list);
    return NULL;
  }
  return tvm_script_tuple_doc_take(tvm_script_doc_list_to_array_take(list));
}

/* Whether the parser makes buf's data variable again when the buffer's call defines it
 * (`A.data`, no data=): a pointer to the buffer's own dtype. */
static bool data_made_again(const tvm_tir_buffer_obj* buf) {
  /* (a Buffer's data is a pointer to a PrimType: tvm_tir_buffer_new checks it) */
  const tvm_tir_pointer_type_obj* ptr = (const void*)buf->data->type_annotation;
  const tvm_tir_prim_type_obj* elem = (const void*)ptr->element_type;
  return tvm_ffi_dtype_equal(elem->dtype, buf->dtype);
}

tvm_script_doc_obj* tvm_script__tir_buffer_call(tvm_script_docsifier* d,
                                                const tvm_tir_buffer_obj* buf, const void* path,
                                                const char* api, void* first_arg, const void* lhs,
                                                tvm_script_frame* frame) {
  void* args = tvm_ffi_list_new();
  void *keys = tvm_ffi_list_new(), *values = tvm_ffi_list_new();
  bool ok = args && keys && values;
  if (ok && first_arg) {
    TVMFFIAny a = tvm_ffi_any_obj(first_arg);
    ok = tvm_ffi_list_push(args, &a) == 0;
  }
  tvm_ffi_release(first_arg);
  if (ok) {
    tvm_script_doc_obj* shape = array_doc(d, buf->shape, path, "shape", true);
    tvm_script_doc_obj* dtype = tvm_script__tir_dtype_literal(buf->dtype);
    TVMFFIAny sa = tvm_ffi_any_obj(shape), da = tvm_ffi_any_obj(dtype);
    ok = shape && dtype && tvm_ffi_list_push(args, &sa) == 0 && tvm_ffi_list_push(args, &da) == 0;
    tvm_ffi_release(shape);
    tvm_ffi_release(dtype);
  }
  if (ok) {
    if (tvm_script_is_var_defined(d, buf->data) || !data_made_again(buf)) {
      ok = kwarg(keys, values, "data", tvm_script__tir_child(d, buf->data, path, "data"));
    } else {
      tvm_ffi_retain((void*)lhs);
      tvm_script_doc_obj* data = tvm_script_attr_doc_take((void*)lhs, "data");
      ok = data && tvm_script_define_var_doc(d, buf->data, data, frame) == 0;
      tvm_ffi_release(data);
    }
  }
  if (ok && tvm_ffi_seq_size(buf->strides)) {
    ok = kwarg(keys, values, "strides", strides_doc(d, buf, path, lhs, frame));
  }
  /* An elem_offset variable defined by this buffer (`lhs.elem_offset`) is left out, and
   * offset_factor is then always printed. */
  bool offset_defined = false;
  if (ok && !default_elem_offset(buf)) {
    ok = inline_buffer_var(d, buf, buf->elem_offset, &offset_defined) == 0;
    /* ... when the parser makes it again: a (plain, not size) variable of the shape's index
     * type. */
    DLDataType index_t = index_dtype(buf);
    offset_defined = offset_defined && tvm_tir_kind_of(buf->elem_offset) == TVM_TIR_KIND_Var &&
                     tvm_ffi_dtype_equal(tvm_tir_expr_dtype(buf->elem_offset), index_t);
    if (ok && offset_defined) {
      tvm_ffi_retain((void*)lhs);
      tvm_script_doc_obj* def = tvm_script_attr_doc_take((void*)lhs, "elem_offset");
      ok = def && tvm_script_define_var_doc(d, buf->elem_offset, def, frame) == 0;
      tvm_ffi_release(def);
    } else if (ok) {
      ok = kwarg(keys, values, "elem_offset",
                 tvm_script__tir_child(d, buf->elem_offset, path, "elem_offset"));
    }
  }
  const char* scope = tvm_tir_buffer_scope(buf);
  if (ok && scope && *scope && strcmp(scope, "global") != 0) {
    ok = kwarg(keys, values, "scope", tvm_script_literal_str(scope));
  }
  if (ok && buf->data_alignment != TVM_TIR_DEFAULT_ALIGNMENT) {
    ok = kwarg(keys, values, "align", tvm_script_literal_int(buf->data_alignment));
  }
  if (ok && (offset_defined || buf->offset_factor != 1)) {
    ok = kwarg(keys, values, "offset_factor", tvm_script_literal_int(buf->offset_factor));
  }
  if (ok && buf->buffer_type == TVM_TIR_BUFFER_AUTO_BROADCAST) {
    ok = kwarg(keys, values, "buffer_type", tvm_script_literal_str("auto"));
  }
  if (ok && tvm_ffi_seq_size(buf->axis_separators)) {
    ok = kwarg(keys, values, "axis_separators",
               array_doc(d, buf->axis_separators, path, "axis_separators", false));
  }
  if (!ok) {
    tvm_ffi_release(args);
    tvm_ffi_release(keys);
    tvm_ffi_release(values);
    return NULL;
  }
  return tvm_script_call_doc_take(tir_prefixed(d, api), tvm_script_doc_list_to_array_take(args),
                                  tvm_script_doc_list_to_array_take(keys),
                                  tvm_script_doc_list_to_array_take(values));
}

int tvm_script__tir_emit_buffer_decl(tvm_script_docsifier* d, const tvm_tir_buffer_obj* buf,
                                     const void* path, const char* api, void* first_arg,
                                     tvm_script_frame* frame) {
  tvm_script_doc_obj* lhs = tvm_script_define_var(d, buf, tvm_tir_buffer_name(buf), frame);
  if (!lhs) {
    tvm_ffi_release(first_arg);
    return -1;
  }
  tvm_script_doc_obj* rhs = tvm_script__tir_buffer_call(d, buf, path, api, first_arg, lhs, frame);
  return tvm_script_frame_emit_take(frame, tvm_script_assign_doc_take(lhs, rhs, NULL));
}

/* The index of frame f, or -1. */
static int frame_index(tvm_script_docsifier* d, const tvm_script_frame* f) {
  for (int i = tvm_script_frame_count(d) - 1; i >= 0; --i) {
    if (tvm_script_frame_at(d, i) == f) return i;
  }
  return -1;
}

/* The index of the innermost frame defining obj, or -1. */
static int defining_frame(tvm_script_docsifier* d, const void* obj) {
  for (int i = tvm_script_frame_count(d) - 1; i >= 0; --i) {
    const void* vars = tvm_script_frame_at(d, i)->vars;
    for (int64_t k = 0; k < tvm_ffi_seq_size(vars); ++k) {
      if (tvm_ffi_seq_obj_at(vars, k) == obj) return i;
    }
  }
  return -1;
}

/* A buffer used where it is not defined (a fragment, or a buffer over an allocation's data):
 * declared once as `A = T.Buffer(...)`, in the function's frame, or in the deeper frame that
 * defines its data variable (`buf = T.allocate(...)`) so that it follows that definition. */
static tvm_script_doc_obj* conv_buffer(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                       const void* path) {
  const tvm_tir_buffer_obj* buf = (const void*)obj->v_obj;
  tvm_script_doc_obj* doc = tvm_script_var_doc(d, buf);
  if (doc) return doc;
  tvm_script_frame* frame = tvm_script__tir_decl_frame(d);
  int data_at = defining_frame(d, buf->data);
  if (data_at >= 0 && data_at > frame_index(d, frame)) frame = tvm_script_frame_at(d, data_at);
  if (tvm_script__tir_emit_buffer_decl(d, buf, path, "Buffer", NULL, frame) != 0) return NULL;
  return tvm_script_var_doc(d, buf);
}

/* ---- Range and IterVar --------------------------------------------------------------------- */
static tvm_script_doc_obj* conv_range(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  const tvm_tir_range_obj* r = (const void*)obj->v_obj;
  if (!r->extent) {
    return tvm_script_doc_call_take(tvm_script_prefixed(d, "ir", "Range"),
                                    tvm_script__tir_child(d, r->min, path, "min"));
  }
  tvm_tir_expr_obj* end = tvm_tir_add(r->min, r->extent);
  tvm_script_doc_obj* min = tvm_script__tir_child(d, r->min, path, "min");
  int64_t lo;
  if (min && end && tvm_tir_as_const_int(r->min, &lo) &&
      tvm_tir_dtype_equal(r->min->dtype, TVM_TIR_INT32) &&
      !tvm_tir_dtype_equal(r->min->dtype, end->dtype)) {
    /* An int32 literal prints bare, and a bare literal takes the end's dtype when parsed:
     * write its type. */
    min = tvm_script_doc_call_take(tvm_script__tir_dtype_attr(d, r->min->dtype),
                                   tvm_script__keep_if(min, true));
  }
  tvm_script_doc_obj* doc =
      tvm_script_doc_call_take(tvm_script_prefixed(d, "ir", "Range"), min,
                               end ? tvm_script__tir_child(d, end, path, "extent") : NULL);
  tvm_ffi_release(end);
  return doc;
}

static tvm_script_doc_obj* conv_iter_var(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                         const void* path) {
  static const char* const k_types[] = {"DataPar",    "ThreadIndex", "CommReduce",
                                        "Ordered",    "Opaque",      "Unrolled",
                                        "Vectorized", "Parallelized", "Tensorized"};
  const tvm_tir_iter_var_obj* iv = (const void*)obj->v_obj;
  if (iv->iter_type < 0 || iv->iter_type > TVM_TIR_ITER_TENSORIZED) {
    tvm_ffi_raise("ValueError", "printer: IterVar with iter type %d", iv->iter_type);
    return NULL;
  }
  tvm_script_doc_obj* dom =
      iv->dom ? tvm_script__tir_child(d, iv->dom, path, "dom") : tvm_script_literal_none();
  return tvm_script_doc_call_take(tir_prefixed(d, "iter_var"),
                                  tvm_script__tir_child(d, iv->var, path, "var"), dom,
                                  tvm_script_literal_str(k_types[iv->iter_type]),
                                  tvm_script_literal_str(tvm_ffi_str_cstr(iv->thread_tag)));
}

/* ---- PrimFunc ------------------------------------------------------------------------------ */
/* Whether buf can be written in the signature as T.Buffer(shape, dtype). */
static bool simple_buffer(const tvm_tir_buffer_obj* buf, const void* buffer_map) {
  if (tvm_ffi_seq_size(buf->strides) || tvm_ffi_seq_size(buf->axis_separators) ||
      !default_elem_offset(buf) || buf->data_alignment != TVM_TIR_DEFAULT_ALIGNMENT ||
      buf->offset_factor != 1 || buf->buffer_type != TVM_TIR_BUFFER_DEFAULT) {
    return false;
  }
  const char* scope = tvm_tir_buffer_scope(buf);
  if (scope && *scope && strcmp(scope, "global") != 0) return false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(buf->shape); ++i) {
    if (tvm_script__tir_expr_has_var(tvm_ffi_seq_obj_at(buf->shape, i))) return false;
  }
  /* The data pointer must belong to this buffer alone. */
  int shared = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = tvm_ffi_map_next(buffer_map, 0, &k, &v); pos >= 0;
       pos = tvm_ffi_map_next(buffer_map, pos, &k, &v)) {
    const tvm_tir_buffer_obj* other = (const void*)v->v_obj;
    if (other->data == buf->data) ++shared;
  }
  return shared == 1;
}

/* Whether param occurs only as itself in params and as its buffer_map key (upstream's
 * CountVarOccurrence == 2): not in the body, another parameter slot or any matched buffer. */
static int param_used_elsewhere(const tvm_tir_prim_func_obj* fn, const void* param, bool* used) {
  occurrence_ctx ctx = {param, 0};
  tvm_tir_visitor v = {0};
  occurrence_visitor(&v, &ctx);
  int rc = tvm_tir_visit(&v, fn->body);
  const TVMFFIAny *k, *val;
  for (int64_t pos = tvm_ffi_map_next(fn->buffer_map, 0, &k, &val); rc == 0 && pos >= 0;
       pos = tvm_ffi_map_next(fn->buffer_map, pos, &k, &val)) {
    rc = tvm_tir_visit(&v, val->v_obj);
  }
  tvm_tir_visitor_free(&v);
  for (int64_t i = 0; i < tvm_ffi_seq_size(fn->params); ++i) {
    if (tvm_ffi_seq_obj_at(fn->params, i) == param) ++ctx.count;
  }
  *used = ctx.count != 1;
  return rc;
}

/* path.buffer_map[var] */
static void* buffer_map_path(tvm_script_docsifier* d, const void* path, const void* var) {
  void* p = tvm_script__tir_path(d, path, "buffer_map");
  TVMFFIAny key = tvm_ffi_any_obj(var);
  void* q = p ? tvm_script_path_map_item(d, p, &key) : NULL;
  tvm_ffi_release(p);
  return q;
}

static void* func_params(tvm_script_docsifier* d, const tvm_tir_prim_func_obj* fn,
                         const void* path, tvm_script_frame* f, bool* inlined) {
  void* args = tvm_ffi_list_new();
  bool ok = args != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(fn->params); ++i) {
    const tvm_tir_var_obj* var = tvm_ffi_seq_obj_at(fn->params, i);
    TVMFFIAny key = tvm_ffi_any_obj(var);
    const TVMFFIAny* bv = tvm_ffi_map_get(fn->buffer_map, &key);
    const tvm_tir_buffer_obj* buf = bv ? (const void*)bv->v_obj : NULL;
    void* pp = tvm_script__tir_path_item(d, path, "params", i);
    tvm_script_doc_obj *lhs = NULL, *ann = NULL;
    bool used = false;
    if (buf && param_used_elsewhere(fn, var, &used) != 0) {
      tvm_ffi_release(pp);
      ok = false;
      break;
    }
    inlined[i] = buf && !used && simple_buffer(buf, fn->buffer_map);
    if (inlined[i]) {
      void* bp = buffer_map_path(d, path, var);
      lhs = bp ? tvm_script_define_var(d, buf, tvm_tir_buffer_name(buf), f) : NULL;
      ann = lhs ? tvm_script__tir_buffer_call(d, buf, bp, "Buffer", NULL, lhs, f) : NULL;
      if (ann && bp) tvm_script_doc_mark(d, ann, bp);
      tvm_ffi_release(bp);
    } else if (pp) {
      lhs = tvm_script_define_var(d, var, tvm_tir_var_name(var), f);
      ann = lhs ? tvm_script__tir_child(d, var->type_annotation, pp, "type_annotation") : NULL;
    }
    if (lhs && pp) tvm_script_doc_mark(d, lhs, pp);
    tvm_ffi_release(pp);
    tvm_script_doc_obj* arg = tvm_script_assign_doc_take(lhs, NULL, ann);
    TVMFFIAny a = tvm_ffi_any_obj(arg);
    ok = arg && tvm_ffi_list_push_take(args, &a) == 0;
    if (!ok) tvm_ffi_release(arg);
  }
  if (!ok) {
    tvm_ffi_release(args);
    return NULL;
  }
  return tvm_script_doc_list_to_array_take(args);
}

/* The block of an implicit root (printed as a comment), or NULL. */
static const tvm_tir_sblock_obj* implicit_root(const tvm_tir_stmt_obj* body) {
  if (tvm_tir_kind_of(body) != TVM_TIR_KIND_SBlockRealize) return NULL;
  const tvm_tir_sblock_realize_obj* r = (const tvm_tir_sblock_realize_obj*)body;
  const tvm_tir_sblock_obj* b = r->block;
  if (tvm_ffi_seq_size(r->iter_values) || !tvm_script__tir_is_const(r->predicate, 1) ||
      tvm_ffi_seq_size(b->iter_vars) || tvm_ffi_map_size(b->annotations) ||
      tvm_ffi_seq_size(b->match_buffers) || tvm_ffi_seq_size(b->reads) ||
      tvm_ffi_seq_size(b->writes) || b->init ||
      strcmp(tvm_ffi_str_cstr(b->name_hint), "root") != 0) {
    return NULL;
  }
  return b;
}

static int func_body(tvm_script_docsifier* d, const tvm_tir_prim_func_obj* fn, const void* path,
                     tvm_script_frame* f) {
  const tvm_tir_sblock_obj* root = implicit_root(fn->body);
  if (!root) {
    void* bp = tvm_script__tir_path(d, path, "body");
    int rc = bp ? tvm_script__tir_body(d, fn->body, bp, f) : -1;
    tvm_ffi_release(bp);
    return rc;
  }
  void* p1 = tvm_script__tir_path(d, path, "body");
  void* rp = p1 ? tvm_script__tir_path(d, p1, "block") : NULL;
  tvm_ffi_release(p1);
  int rc = rp ? tvm_script_frame_emit_take(f, tvm_script_comment_doc("with T.sblock(\"root\"):"))
              : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(root->alloc_buffers); ++i) {
    void* bp = tvm_script__tir_path_item(d, rp, "alloc_buffers", i);
    rc = bp ? tvm_script__tir_emit_buffer_decl(d, tvm_ffi_seq_obj_at(root->alloc_buffers, i), bp,
                                               "sblock_alloc_buffer", NULL, f)
            : -1;
    tvm_ffi_release(bp);
  }
  void* body_p = rc == 0 ? tvm_script__tir_path(d, rp, "body") : NULL;
  if (rc == 0) rc = body_p ? tvm_script__tir_body(d, root->body, body_p, f) : -1;
  tvm_ffi_release(body_p);
  tvm_ffi_release(rp);
  return rc;
}

/* Prepend `cls = Module` to the body when it refers to sibling functions. */
static void* with_cls(tvm_script_docsifier* d, void* body) {
  tvm_script_frame* mf = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_MODULE);
  const tvm_script__module_ctx* ctx = mf ? mf->data : NULL;
  tvm_script_doc_obj* mod = ctx ? tvm_script_var_doc(d, ctx->mod) : NULL;
  tvm_script_doc_obj* assign =
      mod ? tvm_script_assign_doc_take(tvm_script_id_doc("cls"), mod, NULL) : NULL;
  void* list = assign ? tvm_ffi_list_new() : NULL;
  TVMFFIAny a = tvm_ffi_any_obj(assign);
  bool ok = list && tvm_ffi_list_push(list, &a) == 0;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(body); ++i) {
    ok = tvm_ffi_list_push(list, tvm_ffi_seq_at(body, i)) == 0;
  }
  tvm_ffi_release(assign);
  tvm_ffi_release(body);
  if (!ok) {
    tvm_ffi_release(list);
    if (!tvm_ffi_error_pending()) tvm_ffi_raise("RuntimeError", "printer: `cls` outside a module");
    return NULL;
  }
  return tvm_script_doc_list_to_array_take(list);
}

/* Whether s can be written as a Python name (ASCII; not a keyword). */
static bool is_py_identifier(const char* s) {
  static const char* const kKeywords[] = {
#define X(e, text) text,
      TVM_SCRIPT_TOKEN_KEYWORDS(X)
#undef X
  };
  if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (const char* c = s; *c; ++c) {
    if (!(isalnum((unsigned char)*c) || *c == '_')) return false;
  }
  for (size_t i = 0; i < sizeof(kKeywords) / sizeof(kKeywords[0]); ++i) {
    if (strcmp(s, kKeywords[i]) == 0) return false;
  }
  return true;
}

static tvm_script_doc_obj* conv_prim_func(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  const tvm_tir_prim_func_obj* fn = (const void*)obj->v_obj;
  const char* symbol = tvm_tir_func_global_symbol(fn);
  /* The symbol as a C string, unless it holds a NUL byte (its C string would be a prefix). */
  const char* symbol_c = symbol;
  if (symbol) {
    const TVMFFIAny* v = tvm_ffi_map_get_str(fn->func.attrs, "global_symbol");
    TVMFFIByteArray bytes;
    if (!v || !tvm_ffi_any_as_bytes(v, &bytes) || bytes.size != strlen(symbol)) symbol_c = NULL;
  }
  tvm_script_frame* mf = tvm_script_frame_find(d, TVM_SCRIPT_PRINT_FRAME_MODULE);
  const tvm_script__module_ctx* ctx = mf ? mf->data : NULL;
  /* A global_symbol that is no Python name ("a-b") stays in T.func_attr under the default. */
  const char* name = ctx && ctx->func_name             ? ctx->func_name
                     : symbol_c && is_py_identifier(symbol_c) ? symbol_c
                                                         : tvm_script_docsifier_options(d)->default_func_name;
  int64_t n = tvm_ffi_seq_size(fn->params);
  bool* inlined = tvm_ffi_calloc((size_t)n + 1, sizeof(bool));
  tvm_script_frame* f = inlined ? tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_FUNC) : NULL;
  if (!f) {
    tvm_ffi_free(inlined);
    return NULL;
  }
  void* args = func_params(d, fn, path, f, inlined);
  int rc = args ? 0 : -1;
  /* T.func_attr({...}) without a global_symbol equal to the function's name. */
  const char* skip = symbol_c && strcmp(symbol_c, name) == 0 ? "global_symbol" : NULL;
  if (rc == 0 && tvm_ffi_map_size(fn->func.attrs) > (skip ? 1 : 0)) {
    void* ap = tvm_script__tir_path(d, path, "attrs");
    tvm_script_doc_obj* attrs = ap ? tvm_script__map_doc(d, fn->func.attrs, ap, skip) : NULL;
    tvm_ffi_release(ap);
    rc = tvm_script_frame_emit_take(
        f, tvm_script_expr_stmt_doc_take(
               tvm_script_doc_call_take(tir_prefixed(d, "func_attr"), attrs)));
  }
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    if (inlined[i]) continue;
    const tvm_tir_var_obj* var = tvm_ffi_seq_obj_at(fn->params, i);
    TVMFFIAny key = tvm_ffi_any_obj(var);
    const TVMFFIAny* bv = tvm_ffi_map_get(fn->buffer_map, &key);
    if (!bv) continue;
    void* bp = buffer_map_path(d, path, var);
    rc = bp ? tvm_script__tir_emit_buffer_decl(d, (const void*)bv->v_obj, bp, "match_buffer",
                                               tvm_script_var_doc(d, var), f)
            : -1;
    tvm_ffi_release(bp);
  }
  tvm_ffi_free(inlined);
  if (rc == 0) rc = func_body(d, fn, path, f);
  void* body = rc == 0 ? tvm_script_stmts_to_array(f->stmts) : NULL;
  if (body && (f->flags & SCRIPT_FRAME_USES_CLS)) body = with_cls(d, body);
  tvm_script_doc_obj* ret = NULL;
  if (body && !tvm_tir_type_is_void(fn->ret_type)) {
    ret = tvm_script__tir_child(d, fn->ret_type, path, "ret_type");
    if (!ret) rc = -1;
  }
  tvm_script_frame_pop(d);
  if (rc != 0 || !body) {
    tvm_ffi_release(args);
    tvm_ffi_release(body);
    tvm_ffi_release(ret);
    return NULL;
  }
  tvm_script_doc_obj* deco = tir_prefixed(d, "prim_func");
  if (!symbol) {
    deco = tvm_script_call_doc_take(deco, NULL, tvm_script__str_array1("private"),
                                    tvm_script_doc_array_take(tvm_script_literal_bool(true)));
  }
  tvm_script_doc_obj* name_doc = tvm_script_id_doc(name);
  if (name_doc && symbol) {
    /* The name stands for attrs["global_symbol"] when it is left out of T.func_attr. */
    void* ap = tvm_script__tir_path(d, path, "attrs");
    TVMFFIAny key = tvm_ffi_any_raw_str("global_symbol"), owned;
    bool owned_ok = ap && tvm_ffi_any_to_owned(&key, &owned) == 0;
    void* sp = owned_ok ? tvm_script_path_map_item(d, ap, &owned) : NULL;
    if (owned_ok) tvm_ffi_any_release(&owned);
    if (sp) tvm_script_doc_mark(d, name_doc, sp);
    tvm_ffi_release(sp);
    tvm_ffi_release(ap);
  }
  return tvm_script_function_doc_take(name_doc, args,
                                      tvm_script_doc_array_take(deco), ret, body);
}

int tvm_script__register_tir_func(void) {
  static const struct {
    tvm_tir_kind kind;
    tvm_script_converter fn;
  } k_table[] = {
      {TVM_TIR_KIND_Buffer, conv_buffer},
      {TVM_TIR_KIND_Range, conv_range},
      {TVM_TIR_KIND_IterVar, conv_iter_var},
      {TVM_TIR_KIND_PrimFunc, conv_prim_func},
  };
  for (size_t i = 0; i < sizeof(k_table) / sizeof(k_table[0]); ++i) {
    if (tvm_script_register_converter("", tvm_tir_type_index(k_table[i].kind), k_table[i].fn) != 0) {
      return -1;
    }
  }
  return 0;
}

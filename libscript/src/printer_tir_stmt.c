/*
 * printer_tir_stmt.c: TIR statements -> Doc.
 *
 * Scoped statements (LetStmt, AttrStmt, AssertStmt, Allocate, DeclBuffer, BufferRealize) print
 * concisely when they are the last statement of a body: their header becomes a plain statement
 * (`x: T.int32 = v`, `A = T.allocate(...)`, `T.attr(...)`, `assert c, "msg"`) followed by the
 * body at the same indentation; elsewhere they print as `with ...:` blocks. Perfectly nested
 * serial loops from 0 print as `T.grid`, a single serial loop as `range`; blocks print as
 * `with T.sblock("name"):` with their axes (`T.axis.remap` for loops bound one-to-one).
 */
#include <math.h>
#include <string.h>
#include <tvm-private/tir.h>

#include "printer_tir.h"

int tvm_script__tir_body(tvm_script_docsifier* d, const void* stmt, const void* path,
                         tvm_script_frame* frame) {
  bool seq = tvm_tir_kind_of(stmt) == TVM_TIR_KIND_SeqStmt;
  const void* items = seq ? ((const tvm_tir_seq_stmt_obj*)stmt)->seq : NULL;
  int64_t n = seq ? tvm_ffi_seq_size(items) : 1;
  for (int64_t i = 0; i < n; ++i) {
    frame->flags = (frame->flags & ~TIR_FRAME_CONCISE) | (i == n - 1 ? TIR_FRAME_CONCISE : 0);
    tvm_script_doc_obj* doc = seq ? tvm_script__tir_child_item(d, items, path, "seq", i)
                                  : tvm_script_as_doc_obj(d, stmt, path);
    frame->flags &= ~TIR_FRAME_CONCISE;
    if (!doc) return -1;
    if (tvm_script_doc_kind_of(doc) == TVM_SCRIPT_DOC_StmtBlockDoc) {
      const void* inner = ((tvm_script_stmt_block_doc_obj*)doc)->stmts;
      int rc = 0;
      for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(inner); ++j) {
        rc = tvm_ffi_list_push(frame->stmts, tvm_ffi_seq_at(inner, j));
      }
      tvm_ffi_release(doc);
      if (rc != 0) return -1;
    } else if (!tvm_script_is_stmt_doc(doc)) {
      tvm_ffi_release(doc);
      return tvm_ffi_raise("TypeError", "printer: a statement converted to an expression doc");
    } else if (tvm_script_frame_emit_take(frame, doc) != 0) {
      return -1;
    }
  }
  return 0;
}

static bool concise_allowed(tvm_script_docsifier* d) {
  tvm_script_frame* top = tvm_script_frame_top(d);
  return top && (top->flags & TIR_FRAME_CONCISE);
}

/* The body of a scoped statement: a new frame holding the converted body (popped by caller). */
static tvm_script_frame* body_frame(tvm_script_docsifier* d) {
  return tvm_script_frame_push(d, TVM_SCRIPT_PRINT_FRAME_SCOPE);
}

static int convert_body(tvm_script_docsifier* d, const void* body, const void* path,
                        tvm_script_frame* f) {
  void* p = tvm_script__tir_path(d, path, "body");
  int rc = p ? tvm_script__tir_body(d, body, p, f) : -1;
  tvm_ffi_release(p);
  return rc;
}

/* Finish a scoped statement from its header head (consumed) and the body in f (popped here):
 * concise: StmtBlockDoc([head] + body); else ScopeDoc(lhs, rhs, body). */
static tvm_script_doc_obj* finish_scope(tvm_script_docsifier* d, void* lhs, void* rhs, void* head,
                                        bool concise) {
  tvm_script_frame* f = tvm_script_frame_top(d);
  void* body = tvm_script_stmts_to_array(f->stmts);
  tvm_script_doc_obj* doc = NULL;
  if (concise) {
    tvm_ffi_release(lhs);
    tvm_ffi_release(rhs);
    void* list = tvm_ffi_list_new();
    TVMFFIAny h = tvm_ffi_any_obj(head);
    bool ok = list && head && body && tvm_ffi_list_push(list, &h) == 0;
    for (int64_t i = 0; ok && i < tvm_ffi_seq_size(body); ++i) {
      ok = tvm_ffi_list_push(list, tvm_ffi_seq_at(body, i)) == 0;
    }
    tvm_ffi_release(head);
    tvm_ffi_release(body);
    doc = ok ? tvm_script_stmt_block_doc_take(tvm_script_doc_list_to_array_take(list))
             : (tvm_ffi_release(list), NULL);
  } else {
    tvm_ffi_release(head);
    doc = tvm_script_scope_doc_take(lhs, rhs, body);
  }
  tvm_script_frame_pop(d);
  return doc;
}

/* `lhs = rhs` or `rhs` as the concise header of a scope. */
static void* header(void* lhs, void* rhs) {
  tvm_ffi_retain(lhs);
  tvm_ffi_retain(rhs);
  return lhs ? tvm_script_assign_doc_take(lhs, rhs, NULL) : tvm_script_expr_stmt_doc_take(rhs);
}

static tvm_script_doc_obj* fail_pop(tvm_script_docsifier* d, int n, void** objs) {
  for (int i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
  tvm_script_frame_pop(d);
  return NULL;
}

/* ---- Scoped statements --------------------------------------------------------------------- */
static tvm_script_doc_obj* conv_let_stmt(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                         const void* path) {
  const tvm_tir_let_stmt_obj* s = (const void*)obj->v_obj;
  bool concise = concise_allowed(d);
  tvm_script_doc_obj* rhs = tvm_script__tir_child(d, s->value, path, "value");
  tvm_script_doc_obj* ann = tvm_tir_type_is_void(s->var->type_annotation)
                                ? NULL
                                : tvm_script__tir_child(d, s->var->type_annotation, path, "var");
  tvm_script_frame* f = body_frame(d);
  if (!f || !rhs) {
    void* objs[] = {rhs, ann};
    if (f) return fail_pop(d, 2, objs);
    tvm_ffi_release(rhs);
    tvm_ffi_release(ann);
    return NULL;
  }
  bool defined = tvm_script_is_var_defined(d, s->var);
  tvm_script_doc_obj* lhs = defined ? tvm_script_var_doc(d, s->var)
                                    : tvm_script_define_var(d, s->var, tvm_tir_var_name(s->var), f);
  void* vp = tvm_script__tir_path(d, path, "var");
  if (lhs) tvm_script_doc_mark(d, lhs, vp);
  tvm_ffi_release(vp);
  if (!lhs || convert_body(d, s->body, path, f) != 0) {
    void* objs[] = {rhs, ann, lhs};
    return fail_pop(d, 3, objs);
  }
  if (defined) {
    tvm_ffi_release(ann);
    tvm_script_doc_obj* call = tvm_script_call_doc_take(
        tir_prefixed(d, "LetStmt"), tvm_script_doc_array_take(rhs), tvm_script__str_array1("var"),
        tvm_script_doc_array_take(lhs));
    return finish_scope(d, NULL, call, NULL, false);
  }
  if (concise) {
    tvm_ffi_retain(lhs);
    return finish_scope(d, lhs, NULL, tvm_script_assign_doc_take(lhs, rhs, ann), true);
  }
  tvm_ffi_release(ann);
  return finish_scope(d, lhs, tvm_script_doc_call_take(tir_prefixed(d, "LetStmt"), rhs), NULL,
                      false);
}


/* Whether an AttrStmt is exactly what T.launch_thread(tag, extent) builds: an IterVar of kind
 * ThreadIndex over [0, extent) and the key its tag implies ("virtual_thread" for vthread*,
 * else "thread_extent"); anything else prints as T.attr(...) so that parsing rebuilds it. */
static bool launch_thread_form(const tvm_tir_iter_var_obj* iv, const char* key, const void* value) {
  if (!iv || iv->iter_type != TVM_TIR_ITER_THREAD_INDEX || !iv->dom) return false;
  const char* tag = tvm_ffi_str_cstr(iv->thread_tag);
  const char* want = strncmp(tag ? tag : "", "vthread", 7) == 0 ? "virtual_thread" : "thread_extent";
  int64_t lo, a, b;
  const tvm_tir_range_obj* dom = (const void*)iv->dom;
  bool extent_ok = dom->extent == value || (tvm_tir_as_const_int(dom->extent, &a) &&
                                            tvm_tir_as_const_int(value, &b) && a == b &&
                                            tvm_tir_dtype_equal(dom->extent->dtype,
                                                                ((const tvm_tir_expr_obj*)value)->dtype));
  return strcmp(key, want) == 0 && tvm_tir_as_const_int(dom->min, &lo) && lo == 0 && extent_ok;
}

static tvm_script_doc_obj* conv_attr_stmt(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                          const void* path) {
  const tvm_tir_attr_stmt_obj* s = (const void*)obj->v_obj;
  bool concise = concise_allowed(d);
  const char* key = tvm_ffi_str_cstr(s->attr_key);
  const tvm_tir_iter_var_obj* iv = tvm_ffi_any_as_object(&s->node, tvm_tir_type_index(TVM_TIR_KIND_IterVar));
  tvm_script_doc_obj* value = tvm_script__tir_child(d, s->value, path, "value");
  tvm_script_frame* f = value ? body_frame(d) : NULL;
  if (!f) {
    tvm_ffi_release(value);
    return NULL;
  }
  tvm_script_doc_obj *lhs = NULL, *rhs = NULL;
  if (launch_thread_form(iv, key, s->value)) {
    /* threadIdx_x = T.launch_thread("threadIdx.x", 128) */
    if (!tvm_script_is_var_defined(d, iv->var)) {
      lhs = tvm_script_define_var(d, iv->var, tvm_tir_var_name(iv->var), f);
      rhs = tvm_script_doc_call_take(tir_prefixed(d, "launch_thread"),
                                     tvm_script_literal_str(tvm_ffi_str_cstr(iv->thread_tag)),
                                     value);
      if (!lhs) tvm_ffi_release(rhs), rhs = NULL;
    } else {
      void* np = tvm_script__tir_path(d, path, "node");
      void* vp = np ? tvm_script__tir_path(d, np, "var") : NULL;
      tvm_script_doc_obj* var = vp ? tvm_script_as_doc_obj(d, iv->var, vp) : NULL;
      tvm_ffi_release(np);
      tvm_ffi_release(vp);
      rhs = tvm_script_doc_call_take(tir_prefixed(d, "launch_thread"), var, value);
    }
  } else {
    void* np = tvm_script__tir_path(d, path, "node");
    tvm_script_doc_obj* node = np ? tvm_script_as_doc(d, &s->node, np) : NULL;
    tvm_ffi_release(np);
    rhs = tvm_script_doc_call_take(tir_prefixed(d, "attr"), node, tvm_script_literal_str(key),
                                   value);
  }
  if (!rhs || convert_body(d, s->body, path, f) != 0) {
    void* objs[] = {lhs, rhs};
    return fail_pop(d, 2, objs);
  }
  return finish_scope(d, lhs, rhs, concise ? header(lhs, rhs) : NULL, concise);
}

static tvm_script_doc_obj* conv_assert(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                       const void* path) {
  const tvm_tir_assert_stmt_obj* s = (const void*)obj->v_obj;
  bool concise = concise_allowed(d);
  tvm_script_doc_obj* cond = tvm_script__tir_child(d, s->condition, path, "condition");
  tvm_script_doc_obj* msg = tvm_script__tir_child(d, s->message, path, "message");
  tvm_script_doc_obj* kind =
      s->kind && msg ? tvm_script__tir_child(d, s->kind, path, "kind") : NULL;
  if (s->kind && concise && kind) { /* assert cond, (kind, [message]) */
    msg = tvm_script_tuple_doc_take(
        tvm_script_doc_array_take(kind, tvm_script_list_doc_take(tvm_script_doc_array_take(msg))));
    kind = NULL;
  } else if (s->kind && !kind) {
    tvm_ffi_release(msg);
    msg = NULL;
  }
  tvm_script_frame* f = cond && msg ? body_frame(d) : NULL;
  if (!f) {
    tvm_ffi_release(cond);
    tvm_ffi_release(msg);
    tvm_ffi_release(kind);
    return NULL;
  }
  if (convert_body(d, s->body, path, f) != 0) {
    void* objs[] = {cond, msg, kind};
    return fail_pop(d, 3, objs);
  }
  if (concise) return finish_scope(d, NULL, NULL, tvm_script_assert_doc_take(cond, msg), true);
  void* call = kind ? tvm_script_call_doc_take(
                          tir_prefixed(d, "Assert"), tvm_script_doc_array_take(cond, msg),
                          tvm_script_doc_array_take(tvm_ffi_str_obj("kind", 4)),
                          tvm_script_doc_array_take(kind))
                    : tvm_script_doc_call_take(tir_prefixed(d, "Assert"), cond, msg);
  return finish_scope(d, NULL, call, NULL, false);
}

/* `buffer[min:min+extent, ...]` with `i` for extents of 1 (BufferRegion and BufferRealize). */
static tvm_script_doc_obj* region_doc(tvm_script_docsifier* d, const tvm_tir_buffer_obj* buf,
                                      const void* ranges, const void* path, const char* buf_field,
                                      const char* ranges_field) {
  tvm_script_doc_obj* bdoc = tvm_script__tir_child(d, buf, path, buf_field);
  void* list = tvm_ffi_list_new();
  bool ok = bdoc && list;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(ranges); ++i) {
    const tvm_tir_range_obj* r = tvm_ffi_seq_obj_at(ranges, i);
    void* rp = tvm_script__tir_path_item(d, path, ranges_field, i);
    tvm_script_doc_obj* idx = NULL;
    if (rp && tvm_script__tir_is_const(r->extent, 1)) {
      idx = tvm_script__tir_child(d, r->min, rp, "min");
    } else if (rp) {
      tvm_tir_expr_obj* end = tvm_script__tir_range_end(r->min, r->extent);
      void* ep = tvm_script__tir_path(d, rp, "extent");
      idx = tvm_script_slice_doc_take(tvm_script__tir_child(d, r->min, rp, "min"),
                                      end && ep ? tvm_script_as_doc_obj(d, end, ep) : NULL, NULL);
      tvm_ffi_release(end);
      tvm_ffi_release(ep);
    }
    tvm_ffi_release(rp);
    TVMFFIAny item = tvm_ffi_any_obj(idx);
    ok = idx && tvm_ffi_list_push_take(list, &item) == 0;
    if (!ok) tvm_ffi_release(idx);
  }
  if (!ok) {
    tvm_ffi_release(bdoc);
    tvm_ffi_release(list);
    return NULL;
  }
  return tvm_script_index_doc_take(bdoc, tvm_script_doc_list_to_array_take(list));
}

static tvm_script_doc_obj* conv_buffer_realize(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                               const void* path) {
  const tvm_tir_buffer_realize_obj* s = (const void*)obj->v_obj;
  bool concise = concise_allowed(d);
  tvm_script_doc_obj* region = region_doc(d, s->buffer, s->bounds, path, "buffer", "bounds");
  tvm_script_doc_obj* scope = tvm_script_literal_str(tvm_tir_buffer_scope(s->buffer));
  tvm_script_doc_obj* rhs;
  if (tvm_script__tir_is_const(s->condition, 1)) {
    rhs = tvm_script_doc_call_take(tir_prefixed(d, "realize"), region, scope);
  } else {
    rhs = tvm_script_doc_call_take(tir_prefixed(d, "realize"), region, scope,
                                   tvm_script__tir_child(d, s->condition, path, "condition"));
  }
  tvm_script_frame* f = rhs ? body_frame(d) : NULL;
  if (!f || convert_body(d, s->body, path, f) != 0) {
    void* objs[] = {rhs};
    if (f) return fail_pop(d, 1, objs);
    tvm_ffi_release(rhs);
    return NULL;
  }
  return finish_scope(d, NULL, rhs, concise ? header(NULL, rhs) : NULL, concise);
}

/* The list doc of T.allocate_const's constants: plain literals, as upstream prints them (a
 * non-finite float as its expression, T.float32("inf")). */
static tvm_script_doc_obj* const_list(tvm_script_docsifier* d, const tvm_tir_allocate_obj* s,
                                      const void* data, const void* path) {
  void* list = tvm_ffi_list_new();
  bool ok = list != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(data); ++i) {
    const void* c = tvm_ffi_seq_obj_at(data, i);
    int64_t iv;
    double fv;
    tvm_script_doc_obj* e = NULL;
    if (s->dtype.code == kDLFloat && tvm_tir_as_const_float(c, &fv)) {
      e = isfinite(fv) ? tvm_script_literal_float(fv)
                       : tvm_script__tir_child(d, c, path, "annotations");
    } else if (tvm_tir_as_const_int(c, &iv)) {
      e = tvm_script_literal_int(iv);
    }
    TVMFFIAny item = e ? tvm_ffi_any_obj(e) : tvm_ffi_any_none();
    ok = e && tvm_ffi_list_push_take(list, &item) == 0;
  }
  void* arr = ok ? tvm_script_doc_list_to_array_take(list) : (tvm_ffi_release(list), NULL);
  return arr ? tvm_script_list_doc_take(arr) : NULL;
}

/* The annotations of an Allocate but the constants of T.allocate_const (a new Map). */
static void* other_annotations(const void* ann) {
  void* dict = tvm_ffi_dict_new();
  const TVMFFIAny *k, *v;
  bool ok = dict != NULL;
  for (int64_t pos = 0; ok && (pos = tvm_ffi_map_next(ann, pos, &k, &v)) >= 0;) {
    TVMFFIByteArray key;
    if (tvm_ffi_any_as_bytes(k, &key) && strlen(TVM_TIR__ALLOCATE_CONST_KEY) == key.size &&
        memcmp(key.data, TVM_TIR__ALLOCATE_CONST_KEY, key.size) == 0) {
      continue;
    }
    ok = tvm_ffi_dict_set(dict, k, v) == 0;
  }
  void* map = ok ? tvm_ffi_dict_to_map(dict) : NULL;
  tvm_ffi_release(dict);
  return map;
}

/* x = T.allocate_const([1, 2, 3, 4], "int32", [4]) (an Allocate holding its constants). */
static tvm_script_doc_obj* conv_allocate_const(tvm_script_docsifier* d,
                                               const tvm_tir_allocate_obj* s, const void* data,
                                               const void* path) {
  bool concise = concise_allowed(d);
  void* ep = tvm_script__tir_path(d, path, "extents");
  void* extents = ep ? tvm_script_as_doc_array(d, s->extents, ep) : NULL;
  tvm_ffi_release(ep);
  tvm_script_doc_obj* values = extents ? const_list(d, s, data, path) : NULL;
  void* args = values ? tvm_script_doc_array_take(values, tvm_script__tir_dtype_literal(s->dtype),
                                                  tvm_script_list_doc_take(extents))
                      : (tvm_ffi_release(extents), NULL);
  void* rest = args ? other_annotations(s->annotations) : NULL;
  void *keys = NULL, *kv = NULL;
  if (rest && tvm_ffi_map_size(rest)) {
    keys = tvm_script__str_array1("annotations");
    kv = tvm_script_doc_array_take(tvm_script__tir_child(d, rest, path, "annotations"));
  }
  tvm_ffi_release(rest);
  tvm_script_doc_obj* rhs =
      args && rest ? tvm_script_call_doc_take(tir_prefixed(d, "allocate_const"), args, keys, kv)
                   : (tvm_ffi_release(args), tvm_ffi_release(keys), tvm_ffi_release(kv), NULL);
  tvm_script_frame* f = rhs ? body_frame(d) : NULL;
  if (!f) {
    tvm_ffi_release(rhs);
    return NULL;
  }
  tvm_script_doc_obj* lhs =
      tvm_script_define_var(d, s->buffer_var, tvm_tir_var_name(s->buffer_var), f);
  if (!lhs || convert_body(d, s->body, path, f) != 0) {
    void* objs[] = {lhs, rhs};
    return fail_pop(d, 2, objs);
  }
  return finish_scope(d, lhs, rhs, concise ? header(lhs, rhs) : NULL, concise);
}

static tvm_script_doc_obj* conv_allocate(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                         const void* path) {
  const tvm_tir_allocate_obj* s = (const void*)obj->v_obj;
  const void* data = NULL;
  /* A malformed constant annotation prints as a plain annotation of T.allocate. */
  if (tvm_tir__allocate_const_data(s, &data) != 0) tvm_ffi_error_clear();
  if (data && tvm_script__tir_is_const(s->condition, 1))
    return conv_allocate_const(d, s, data, path);
  bool concise = concise_allowed(d);
  void* ep = tvm_script__tir_path(d, path, "extents");
  void* extents = ep ? tvm_script_as_doc_array(d, s->extents, ep) : NULL;
  tvm_ffi_release(ep);
  const char* scope = tvm_tir_pointer_type_scope(s->buffer_var->type_annotation);
  void* args = tvm_script_doc_array_take(
      tvm_script_list_doc_take(extents), tvm_script__tir_dtype_literal(s->dtype),
      tvm_script_literal_str(scope && *scope ? scope : "global"));
  if (args && !tvm_script__tir_is_const(s->condition, 1)) {
    void* arr =
        tvm_script_doc_array_take(tvm_script__tir_child(d, s->condition, path, "condition"));
    void* list = arr ? tvm_ffi_list_new() : NULL;
    bool ok = list != NULL;
    for (int64_t i = 0; ok && i < tvm_ffi_seq_size(args); ++i) {
      ok = tvm_ffi_list_push(list, tvm_ffi_seq_at(args, i)) == 0;
    }
    ok = ok && tvm_ffi_list_push(list, tvm_ffi_seq_at(arr, 0)) == 0;
    tvm_ffi_release(arr);
    tvm_ffi_release(args);
    args = ok ? tvm_script_doc_list_to_array_take(list) : (tvm_ffi_release(list), NULL);
  }
  void *keys = NULL, *values = NULL;
  if (args && tvm_ffi_map_size(s->annotations)) {
    keys = tvm_script__str_array1("annotations");
    values =
        tvm_script_doc_array_take(tvm_script__tir_child(d, s->annotations, path, "annotations"));
  }
  tvm_script_doc_obj* rhs =
      args ? tvm_script_call_doc_take(tir_prefixed(d, "allocate"), args, keys, values)
           : (tvm_ffi_release(keys), tvm_ffi_release(values), NULL);
  tvm_script_frame* f = rhs ? body_frame(d) : NULL;
  if (!f) {
    tvm_ffi_release(rhs);
    return NULL;
  }
  tvm_script_doc_obj* lhs =
      tvm_script_define_var(d, s->buffer_var, tvm_tir_var_name(s->buffer_var), f);
  if (!lhs || convert_body(d, s->body, path, f) != 0) {
    void* objs[] = {lhs, rhs};
    return fail_pop(d, 2, objs);
  }
  return finish_scope(d, lhs, rhs, concise ? header(lhs, rhs) : NULL, concise);
}

static tvm_script_doc_obj* conv_decl_buffer(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                            const void* path) {
  const tvm_tir_decl_buffer_obj* s = (const void*)obj->v_obj;
  bool concise = concise_allowed(d);
  tvm_script_frame* f = body_frame(d);
  if (!f) return NULL;
  void* bp = tvm_script__tir_path(d, path, "buffer");
  tvm_script_doc_obj* lhs =
      bp ? tvm_script_define_var(d, s->buffer, tvm_tir_buffer_name(s->buffer), f) : NULL;
  tvm_script_doc_obj* rhs =
      lhs ? tvm_script__tir_buffer_call(d, s->buffer, bp, "decl_buffer", NULL, lhs, f) : NULL;
  tvm_ffi_release(bp);
  if (!rhs || convert_body(d, s->body, path, f) != 0) {
    void* objs[] = {lhs, rhs};
    return fail_pop(d, 2, objs);
  }
  return finish_scope(d, lhs, rhs, concise ? header(lhs, rhs) : NULL, concise);
}

/* ---- Plain statements ---------------------------------------------------------------------- */
static tvm_script_doc_obj* conv_buffer_store(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                             const void* path) {
  const tvm_tir_buffer_store_obj* s = (const void*)obj->v_obj;
  tvm_script_doc_obj* buf = tvm_script__tir_child(d, s->buffer, path, "buffer");
  void* ip = tvm_script__tir_path(d, path, "indices");
  void* indices = buf && ip ? tvm_script_as_doc_array(d, s->indices, ip) : NULL;
  tvm_ffi_release(ip);
  tvm_script_doc_obj* lhs = tvm_script_index_doc_take(buf, indices);
  return tvm_script_assign_doc_take(lhs, tvm_script__tir_child(d, s->value, path, "value"), NULL);
}

static tvm_script_doc_obj* conv_seq_stmt(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                         const void* path) {
  tvm_script_frame* f = body_frame(d);
  if (!f) return NULL;
  if (tvm_script__tir_body(d, obj->v_obj, path, f) != 0) {
    tvm_script_frame_pop(d);
    return NULL;
  }
  void* stmts = tvm_script_stmts_to_array(f->stmts);
  tvm_script_frame_pop(d);
  return tvm_script_stmt_block_doc_take(stmts);
}

/* The docs of a branch / loop body in a fresh frame (an ffi.Array), or NULL. */
static void* branch(tvm_script_docsifier* d, const void* stmt, const void* path,
                    const char* field) {
  tvm_script_frame* f = body_frame(d);
  if (!f) return NULL;
  void* p = tvm_script__tir_path(d, path, field);
  void* arr =
      p && tvm_script__tir_body(d, stmt, p, f) == 0 ? tvm_script_stmts_to_array(f->stmts) : NULL;
  tvm_ffi_release(p);
  tvm_script_frame_pop(d);
  return arr;
}

static tvm_script_doc_obj* conv_if(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                   const void* path) {
  const tvm_tir_if_then_else_obj* s = (const void*)obj->v_obj;
  tvm_script_doc_obj* cond = tvm_script__tir_child(d, s->condition, path, "condition");
  void* then_b = cond ? branch(d, s->then_case, path, "then_case") : NULL;
  void* else_b = then_b && s->else_case ? branch(d, s->else_case, path, "else_case") : NULL;
  if (then_b && s->else_case && !else_b) {
    tvm_ffi_release(cond);
    tvm_ffi_release(then_b);
    return NULL;
  }
  return tvm_script_if_doc_take(cond, then_b, else_b);
}

static tvm_script_doc_obj* conv_evaluate(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                         const void* path) {
  const tvm_tir_evaluate_obj* s = (const void*)obj->v_obj;
  if (tvm_tir_kind_of(s->value) == TVM_TIR_KIND_Call) { /* `break` / `continue` */
    const void* op = ((const tvm_tir_call_obj*)s->value)->op;
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_break_loop))
      return tvm_script_expr_stmt_doc_take(tvm_script_id_doc("break"));
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_continue_loop))
      return tvm_script_expr_stmt_doc_take(tvm_script_id_doc("continue"));
  }
  tvm_script_doc_obj* v = tvm_script__tir_child(d, s->value, path, "value");
  if (tvm_tir_kind_of(s->value) == TVM_TIR_KIND_Call) return tvm_script_expr_stmt_doc_take(v);
  return tvm_script_expr_stmt_doc_take(tvm_script_doc_call_take(tir_prefixed(d, "evaluate"), v));
}

static tvm_script_doc_obj* conv_while(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  const tvm_tir_while_obj* s = (const void*)obj->v_obj;
  tvm_script_doc_obj* cond = tvm_script__tir_child(d, s->condition, path, "condition");
  void* body = cond ? branch(d, s->body, path, "body") : NULL;
  return tvm_script_while_doc_take(cond, body);
}

/* ---- Loops --------------------------------------------------------------------------------- */
/* Whether e mentions one of vars[0..n) (conservative for kinds it does not look into). */
static bool uses_vars(const void* e, const void* const* vars, int n) {
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_SizeVar) {
    for (int i = 0; i < n; ++i) {
      if (vars[i] == e) return true;
    }
    return false;
  }
  if (k == TVM_TIR_KIND_Cast) return uses_vars(((const tvm_tir_cast_obj*)e)->value, vars, n);
  if (tvm_tir_is_expr(e) && !tvm_script__tir_expr_has_var(e)) return false;
  switch (k) {
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) case TVM_TIR_KIND_##Name:
#include <tvm/tir/nodes.def>
      return uses_vars(((const tvm_tir_binary_obj*)e)->a, vars, n) ||
             uses_vars(((const tvm_tir_binary_obj*)e)->b, vars, n);
    default: return true;
  }
}

static bool grid_loop(const tvm_tir_for_obj* l) {
  return l->kind == TVM_TIR_FOR_SERIAL && tvm_script__tir_is_const(l->min, 0) &&
         tvm_ffi_map_size(l->annotations) == 0;
}

enum { MAX_GRID = 64 };

static tvm_script_doc_obj* conv_for(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                    const void* path) {
  const tvm_tir_for_obj* loop = (const void*)obj->v_obj;
  /* The perfectly nested serial loops from 0 whose extents do not use the outer loop vars. */
  const tvm_tir_for_obj* grid[MAX_GRID];
  const void* vars[MAX_GRID];
  int n = 0;
  for (const tvm_tir_for_obj* l = loop; n < MAX_GRID && tvm_tir_kind_of(l) == TVM_TIR_KIND_For;
       l = (const tvm_tir_for_obj*)l->body) {
    if (!grid_loop(l) || uses_vars(l->extent, vars, n)) break;
    grid[n] = l;
    vars[n++] = l->loop_var;
  }
  tvm_script_frame* f = body_frame(d);
  if (!f) return NULL;
  f->flags |= TIR_FRAME_FOR;
  f->data = (void*)loop;
  if (n > 1) {
    void *lhs = tvm_ffi_list_new(), *rhs = tvm_ffi_list_new();
    void* p = (void*)path; /* the path of grid[i] */
    tvm_ffi_retain(p);
    bool ok = lhs && rhs;
    for (int i = 0; ok && i < n; ++i) {
      tvm_script_doc_obj* v = tvm_script_define_var(d, grid[i]->loop_var,
                                                    tvm_tir_var_name(grid[i]->loop_var), f);
      tvm_script_doc_obj* e = tvm_script__tir_child(d, grid[i]->extent, p, "extent");
      TVMFFIAny va = tvm_ffi_any_obj(v), ea = tvm_ffi_any_obj(e);
      ok = v && e && tvm_ffi_list_push(lhs, &va) == 0 && tvm_ffi_list_push(rhs, &ea) == 0;
      tvm_ffi_release(v);
      tvm_ffi_release(e);
      if (ok && i + 1 < n) {
        void* next = tvm_script__tir_path(d, p, "body");
        tvm_ffi_release(p);
        p = next;
        ok = p != NULL;
      }
    }
    ok = ok && convert_body(d, grid[n - 1]->body, p, f) == 0;
    tvm_ffi_release(p);
    void* body = ok ? tvm_script_stmts_to_array(f->stmts) : NULL;
    tvm_script_frame_pop(d);
    if (!ok) {
      tvm_ffi_release(lhs);
      tvm_ffi_release(rhs);
      return NULL;
    }
    return tvm_script_for_doc_take(
        tvm_script_tuple_doc_take(tvm_script_doc_list_to_array_take(lhs)),
        tvm_script_call_doc_take(tir_prefixed(d, "grid"), tvm_script_doc_list_to_array_take(rhs),
                                 NULL, NULL),
        body);
  }
  tvm_script_doc_obj* lhs =
      tvm_script_define_var(d, loop->loop_var, tvm_tir_var_name(loop->loop_var), f);
  void* list = tvm_ffi_list_new();
  bool ok = lhs && list;
  if (ok && !tvm_script__tir_is_const(loop->min, 0)) {
    tvm_script_doc_obj* mn = tvm_script__tir_child(d, loop->min, path, "min");
    TVMFFIAny a = tvm_ffi_any_obj(mn);
    ok = mn && tvm_ffi_list_push(list, &a) == 0;
    tvm_ffi_release(mn);
    tvm_tir_expr_obj* end = ok ? tvm_script__tir_range_end(loop->min, loop->extent) : NULL;
    tvm_script_doc_obj* e = end ? tvm_script__tir_child(d, end, path, "extent") : NULL;
    TVMFFIAny b = tvm_ffi_any_obj(e);
    ok = e && tvm_ffi_list_push(list, &b) == 0;
    tvm_ffi_release(e);
    tvm_ffi_release(end);
  } else if (ok) {
    tvm_script_doc_obj* e = tvm_script__tir_child(d, loop->extent, path, "extent");
    TVMFFIAny b = tvm_ffi_any_obj(e);
    ok = e && tvm_ffi_list_push(list, &b) == 0;
    tvm_ffi_release(e);
  }
  static const char* const k_kind_names[] = {"serial", "parallel", "vectorized", "unroll",
                                             "thread_binding"};
  bool annotated = tvm_ffi_map_size(loop->annotations) > 0;
  void* keys = ok ? tvm_ffi_list_new() : NULL;
  void* values = ok ? tvm_ffi_list_new() : NULL;
  ok = ok && keys && values && loop->kind >= 0 && loop->kind <= 4;
  if (ok && loop->kind == TVM_TIR_FOR_THREAD_BINDING) {
    const char* tag = loop->thread_binding ? tvm_ffi_str_cstr(loop->thread_binding->thread_tag) : "";
    void* s = tvm_ffi_str_obj("thread", 6);
    tvm_script_doc_obj* v = tvm_script_literal_str(tag);
    TVMFFIAny sa = tvm_ffi_any_obj(s), va = tvm_ffi_any_obj(v);
    ok = s && v && tvm_ffi_list_push(keys, &sa) == 0 && tvm_ffi_list_push(values, &va) == 0;
    tvm_ffi_release(s);
    tvm_ffi_release(v);
  }
  if (ok && annotated) {
    void* s = tvm_ffi_str_obj("annotations", 11);
    tvm_script_doc_obj* v = tvm_script__tir_child(d, loop->annotations, path, "annotations");
    TVMFFIAny sa = tvm_ffi_any_obj(s), va = tvm_ffi_any_obj(v);
    ok = s && v && tvm_ffi_list_push(keys, &sa) == 0 && tvm_ffi_list_push(values, &va) == 0;
    tvm_ffi_release(s);
    tvm_ffi_release(v);
  }
  tvm_script_doc_obj* callee = NULL;
  if (ok) {
    callee = loop->kind == TVM_TIR_FOR_SERIAL && !annotated
                 ? tvm_script_id_doc("range")
                 : tir_prefixed(d, k_kind_names[loop->kind]);
  }
  ok = ok && callee && convert_body(d, loop->body, path, f) == 0;
  void* body = ok ? tvm_script_stmts_to_array(f->stmts) : NULL;
  tvm_script_frame_pop(d);
  if (!ok || !body) {
    tvm_ffi_release(lhs);
    tvm_ffi_release(list);
    tvm_ffi_release(keys);
    tvm_ffi_release(values);
    tvm_ffi_release(callee);
    tvm_ffi_release(body);
    if (!tvm_ffi_error_pending()) tvm_ffi_raise("ValueError", "printer: bad tir.For kind %d", loop->kind);
    return NULL;
  }
  tvm_script_doc_obj* rhs = tvm_script_call_doc_take(
      callee, tvm_script_doc_list_to_array_take(list), tvm_script_doc_list_to_array_take(keys),
      tvm_script_doc_list_to_array_take(values));
  return tvm_script_for_doc_take(lhs, rhs, body);
}

/* ---- Blocks -------------------------------------------------------------------------------- */
/* The For (of an enclosing loop frame) whose loop variable is var, or NULL. */
static const tvm_tir_for_obj* enclosing_loop(tvm_script_docsifier* d, const void* var) {
  for (int i = tvm_script_frame_count(d) - 1; i >= 0; --i) {
    tvm_script_frame* f = tvm_script_frame_at(d, i);
    if (!(f->flags & TIR_FRAME_FOR)) continue;
    for (const tvm_tir_for_obj* l = f->data; tvm_tir_kind_of(l) == TVM_TIR_KIND_For;
         l = (const tvm_tir_for_obj*)l->body) {
      if ((const void*)l->loop_var == var) return l;
    }
  }
  return NULL;
}

static bool same_expr(const void* a, const void* b) {
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  int r = tvm_ffi_structural_equal(&x, &y, false, NULL, NULL);
  if (r < 0) tvm_ffi_error_clear();
  return r == 1;
}

/* Whether block iter var i is bound one-to-one to an enclosing loop over the same domain. */
static bool remappable(tvm_script_docsifier* d, const tvm_tir_sblock_obj* block,
                       const tvm_tir_sblock_realize_obj* realize, int64_t i) {
  if (!realize) return false;
  const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(block->iter_vars, i);
  const void* value = tvm_ffi_seq_obj_at(realize->iter_values, i);
  if (iv->iter_type != TVM_TIR_ITER_DATA_PAR && iv->iter_type != TVM_TIR_ITER_COMM_REDUCE) {
    return false;
  }
  if (!tvm_tir_is_var(value) || !iv->dom) return false;
  const tvm_tir_for_obj* loop = enclosing_loop(d, value);
  return loop && same_expr(loop->min, iv->dom->min) && same_expr(loop->extent, iv->dom->extent);
}

/* vi = T.axis.spatial(128, i) / T.axis.reduce((0, 16), k) / ... */
static int emit_axis(tvm_script_docsifier* d, const tvm_tir_sblock_obj* block,
                     const tvm_tir_sblock_realize_obj* realize, const void* block_p,
                     const void* realize_p, int64_t i, tvm_script_frame* f) {
  const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(block->iter_vars, i);
  static const char* const k_axis[] = {[TVM_TIR_ITER_DATA_PAR] = "axis.spatial",
                                       [TVM_TIR_ITER_COMM_REDUCE] = "axis.reduce",
                                       [TVM_TIR_ITER_ORDERED] = "axis.scan",
                                       [TVM_TIR_ITER_OPAQUE] = "axis.opaque"};
  int t = iv->iter_type;
  if (t < 0 || t > TVM_TIR_ITER_OPAQUE || !k_axis[t] || !iv->dom) {
    return tvm_ffi_raise("ValueError", "printer: block iter var `%s` has iter type %d%s",
                         tvm_tir_var_name(iv->var), t, iv->dom ? "" : " and no domain");
  }
  void* ivp = tvm_script__tir_path_item(d, block_p, "iter_vars", i);
  void* dp = ivp ? tvm_script__tir_path(d, ivp, "dom") : NULL;
  tvm_script_doc_obj* dom = NULL;
  if (dp && tvm_script__tir_is_const(iv->dom->min, 0)) {
    dom = tvm_script__tir_child(d, iv->dom->extent, dp, "extent");
  } else if (dp) {
    tvm_tir_expr_obj* end = tvm_script__tir_range_end(iv->dom->min, iv->dom->extent);
    dom = tvm_script_tuple_doc_take(
        tvm_script_doc_array_take(tvm_script__tir_child(d, iv->dom->min, dp, "min"),
                                  end ? tvm_script__tir_child(d, end, dp, "extent") : NULL));
    tvm_ffi_release(end);
  }
  tvm_ffi_release(dp);
  tvm_script_doc_obj* rhs;
  if (realize) {
    rhs = tvm_script_doc_call_take(
        tir_prefixed(d, k_axis[t]), dom,
        tvm_script__tir_child_item(d, realize->iter_values, realize_p, "iter_values", i));
  } else {
    rhs = tvm_script_doc_call_take(tir_prefixed(d, k_axis[t]), dom);
  }
  tvm_script_doc_obj* lhs = rhs ? tvm_script_define_var(d, iv->var, tvm_tir_var_name(iv->var), f)
                                : NULL;
  if (lhs && ivp) tvm_script_doc_mark(d, lhs, ivp);
  tvm_ffi_release(ivp);
  if (!lhs) {
    tvm_ffi_release(rhs);
    return -1;
  }
  return tvm_script_frame_emit_take(f, tvm_script_assign_doc_take(lhs, rhs, NULL));
}

/* vi, vj, vk = T.axis.remap("SSR", [i, j, k]) for the pending indices idx[0..n). */
static int emit_remap(tvm_script_docsifier* d, const tvm_tir_sblock_obj* block,
                      const tvm_tir_sblock_realize_obj* realize, const void* block_p,
                      const void* realize_p, const int64_t* idx, int64_t n, tvm_script_frame* f) {
  if (n == 0) return 0;
  if (n == 1) return emit_axis(d, block, realize, block_p, realize_p, idx[0], f);
  void *lhs = tvm_ffi_list_new(), *vals = tvm_ffi_list_new();
  char* kinds = tvm_ffi_malloc((size_t)n + 1);
  bool ok = lhs && vals && kinds;
  for (int64_t k = 0; ok && k < n; ++k) {
    const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(block->iter_vars, idx[k]);
    kinds[k] = iv->iter_type == TVM_TIR_ITER_DATA_PAR ? 'S' : 'R';
    tvm_script_doc_obj* v =
        tvm_script__tir_child_item(d, realize->iter_values, realize_p, "iter_values", idx[k]);
    tvm_script_doc_obj* l = v ? tvm_script_define_var(d, iv->var, tvm_tir_var_name(iv->var), f) : NULL;
    void* ivp = tvm_script__tir_path_item(d, block_p, "iter_vars", idx[k]);
    if (l && ivp) tvm_script_doc_mark(d, l, ivp);
    tvm_ffi_release(ivp);
    TVMFFIAny la = tvm_ffi_any_obj(l), va = tvm_ffi_any_obj(v);
    ok = l && v && tvm_ffi_list_push(lhs, &la) == 0 && tvm_ffi_list_push(vals, &va) == 0;
    tvm_ffi_release(l);
    tvm_ffi_release(v);
  }
  tvm_script_doc_obj* kind_doc = NULL;
  if (ok) {
    kinds[n] = '\0';
    kind_doc = tvm_script_literal_str(kinds);
  }
  tvm_ffi_free(kinds);
  if (!ok || !kind_doc) {
    tvm_ffi_release(lhs);
    tvm_ffi_release(vals);
    return -1;
  }
  tvm_script_doc_obj* rhs = tvm_script_doc_call_take(
      tir_prefixed(d, "axis.remap"), kind_doc,
      tvm_script_list_doc_take(tvm_script_doc_list_to_array_take(vals)));
  return tvm_script_frame_emit_take(
      f, tvm_script_assign_doc_take(tvm_script_tuple_doc_take(tvm_script_doc_list_to_array_take(lhs)),
                                    rhs, NULL));
}

/* T.reads(...) / T.writes(...) */
static int emit_regions(tvm_script_docsifier* d, const void* regions, const void* block_p,
                        const char* field, tvm_script_frame* f) {
  void* p = tvm_script__tir_path(d, block_p, field);
  void* docs = p ? tvm_script_as_doc_array(d, regions, p) : NULL;
  tvm_ffi_release(p);
  return tvm_script_frame_emit_take(
      f, tvm_script_expr_stmt_doc_take(
             tvm_script_call_doc_take(tir_prefixed(d, field), docs, NULL, NULL)));
}

static tvm_script_doc_obj* print_block(tvm_script_docsifier* d, const tvm_tir_sblock_obj* block,
                                       const void* block_p,
                                       const tvm_tir_sblock_realize_obj* realize,
                                       const void* realize_p) {
  tvm_script_frame* f = body_frame(d);
  if (!f) return NULL;
  int64_t n = tvm_ffi_seq_size(block->iter_vars);
  int64_t* pending = tvm_ffi_malloc((size_t)(n + 1) * sizeof(int64_t));
  int64_t np = 0;
  int rc = pending ? 0 : -1;
  /* Step 1: axes; consecutive remappable ones are grouped into one T.axis.remap. */
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    if (remappable(d, block, realize, i)) {
      pending[np++] = i;
      continue;
    }
    rc = emit_remap(d, block, realize, block_p, realize_p, pending, np, f);
    np = 0;
    if (rc == 0) rc = emit_axis(d, block, realize, block_p, realize_p, i, f);
  }
  if (rc == 0) rc = emit_remap(d, block, realize, block_p, realize_p, pending, np, f);
  tvm_ffi_free(pending);
  /* Step 2: predicate, reads, writes, annotations, allocations, match_buffers, init, body. */
  if (rc == 0 && realize && !tvm_script__tir_is_const(realize->predicate, 1)) {
    rc = tvm_script_frame_emit_take(
        f, tvm_script_expr_stmt_doc_take(tvm_script_doc_call_take(
               tir_prefixed(d, "where"),
               tvm_script__tir_child(d, realize->predicate, realize_p, "predicate"))));
  }
  if (rc == 0) rc = emit_regions(d, block->reads, block_p, "reads", f);
  if (rc == 0) rc = emit_regions(d, block->writes, block_p, "writes", f);
  if (rc == 0 && tvm_ffi_map_size(block->annotations)) {
    rc = tvm_script_frame_emit_take(
        f, tvm_script_expr_stmt_doc_take(tvm_script_doc_call_take(
               tir_prefixed(d, "sblock_attr"),
               tvm_script__tir_child(d, block->annotations, block_p, "annotations"))));
  }
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(block->alloc_buffers); ++i) {
    void* bp = tvm_script__tir_path_item(d, block_p, "alloc_buffers", i);
    rc = bp ? tvm_script__tir_emit_buffer_decl(d, tvm_ffi_seq_obj_at(block->alloc_buffers, i), bp,
                                               "sblock_alloc_buffer", NULL, f)
            : -1;
    tvm_ffi_release(bp);
  }
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(block->match_buffers); ++i) {
    tvm_script_doc_obj* m =
        tvm_script__tir_child_item(d, block->match_buffers, block_p, "match_buffers", i);
    rc = m ? 0 : -1;
    tvm_ffi_release(m); /* the converter emitted the declaration into f */
  }
  if (rc == 0 && block->init) {
    void* init = branch(d, block->init, block_p, "init");
    rc = init ? tvm_script_frame_emit_take(
                    f, tvm_script_scope_doc_take(NULL, tvm_script_call_doc_take(
                                                           tir_prefixed(d, "init"), NULL, NULL, NULL),
                                                 init))
              : -1;
  }
  if (rc == 0) rc = convert_body(d, block->body, block_p, f);
  if (rc != 0) {
    tvm_script_frame_pop(d);
    return NULL;
  }
  void* body = tvm_script_stmts_to_array(f->stmts);
  tvm_script_frame_pop(d);
  void* np_ = tvm_script__tir_path(d, block_p, "name_hint");
  tvm_script_doc_obj* name = tvm_script_literal_str(tvm_ffi_str_cstr(block->name_hint));
  if (name && np_) tvm_script_doc_mark(d, name, np_);
  tvm_ffi_release(np_);
  void *keys = NULL, *values = NULL;
  if (!realize) {
    keys = tvm_script__str_array1("no_realize");
    values = tvm_script_doc_array_take(tvm_script_literal_bool(true));
  }
  tvm_script_doc_obj* rhs = tvm_script_call_doc_take(tir_prefixed(d, "sblock"),
                                                     tvm_script_doc_array_take(name), keys, values);
  return tvm_script_scope_doc_take(NULL, rhs, body);
}

static tvm_script_doc_obj* conv_sblock_realize(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                               const void* path) {
  const tvm_tir_sblock_realize_obj* r = (const void*)obj->v_obj;
  void* bp = tvm_script__tir_path(d, path, "block");
  tvm_script_doc_obj* doc = bp ? print_block(d, r->block, bp, r, path) : NULL;
  tvm_ffi_release(bp);
  return doc;
}

static tvm_script_doc_obj* conv_sblock(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                       const void* path) {
  return print_block(d, (const void*)obj->v_obj, path, NULL, NULL);
}

/* `A[0:16, j]` */
static tvm_script_doc_obj* conv_buffer_region(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                              const void* path) {
  const tvm_tir_buffer_region_obj* r = (const void*)obj->v_obj;
  return region_doc(d, r->buffer, r->region, path, "buffer", "region");
}

/* Block match_buffers: emits `A = T.match_buffer(B[0:16], (16,), "float32")` into the block's
 * frame and returns the source region doc (which the caller drops). */
static tvm_script_doc_obj* conv_match_buffer_region(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                                    const void* path) {
  const tvm_tir_match_buffer_region_obj* m = (const void*)obj->v_obj;
  tvm_script_doc_obj* src = tvm_script__tir_child(d, m->source, path, "source");
  if (!src) return NULL;
  tvm_ffi_retain(src);
  void* bp = tvm_script__tir_path(d, path, "buffer");
  int rc = bp ? tvm_script__tir_emit_buffer_decl(d, m->buffer, bp, "match_buffer", src,
                                                 tvm_script_frame_top(d))
              : (tvm_ffi_release(src), -1);
  tvm_ffi_release(bp);
  if (rc != 0) {
    tvm_ffi_release(src);
    return NULL;
  }
  return src;
}

int tvm_script__register_tir_stmt(void) {
  static const struct {
    tvm_tir_kind kind;
    tvm_script_converter fn;
  } k_table[] = {
      {TVM_TIR_KIND_LetStmt, conv_let_stmt},
      {TVM_TIR_KIND_AttrStmt, conv_attr_stmt},
      {TVM_TIR_KIND_AssertStmt, conv_assert},
      {TVM_TIR_KIND_BufferStore, conv_buffer_store},
      {TVM_TIR_KIND_BufferRealize, conv_buffer_realize},
      {TVM_TIR_KIND_Allocate, conv_allocate},
      {TVM_TIR_KIND_DeclBuffer, conv_decl_buffer},
      {TVM_TIR_KIND_SeqStmt, conv_seq_stmt},
      {TVM_TIR_KIND_IfThenElse, conv_if},
      {TVM_TIR_KIND_Evaluate, conv_evaluate},
      {TVM_TIR_KIND_For, conv_for},
      {TVM_TIR_KIND_While, conv_while},
      {TVM_TIR_KIND_SBlock, conv_sblock},
      {TVM_TIR_KIND_SBlockRealize, conv_sblock_realize},
      {TVM_TIR_KIND_BufferRegion, conv_buffer_region},
      {TVM_TIR_KIND_MatchBufferRegion, conv_match_buffer_region},
  };
  for (size_t i = 0; i < sizeof(k_table) / sizeof(k_table[0]); ++i) {
    if (tvm_script_register_converter("", tvm_tir_type_index(k_table[i].kind), k_table[i].fn) != 0) {
      return -1;
    }
  }
  return 0;
}

/*
 * visit.c: the public visitor and mutator (tvm/tir/visit.h). Children come from reflection
 * (tvm_ffi_type_all_fields); per-kind behaviour from the caller's tables indexed by kind.
 */
#include <string.h>
#include <tvm/tir/visit.h>

#include "internal.h"

/* Object size of each kind (from nodes.def), for copying a node in the mutator. */
static const size_t k_kind_size[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) sizeof(c_struct),
#include <tvm/tir/nodes.def>
};

static bool is_seq(int32_t t) { return t == kTVMFFIArray || t == kTVMFFIList; }
static bool is_map(int32_t t) { return t == kTVMFFIMap || t == kTVMFFIDict; }
static bool is_object_field(const TVMFFIFieldInfo* f) {
  return f->field_static_type_index >= kTVMFFIStaticObjectBegin &&
         f->field_static_type_index != kTVMFFIStr && f->field_static_type_index != kTVMFFIBytes;
}
/* An object value worth visiting (not a string or bytes). */
static const void* any_child(const TVMFFIAny* a) {
  if (!tvm_ffi_any_is_object(a) || a->type_index == kTVMFFIStr || a->type_index == kTVMFFIBytes) {
    return NULL;
  }
  return a->v_obj;
}

/* ---- Visitor ------------------------------------------------------------------------------- */
static int push(tvm_tir_visitor* v, tvm_tir_path_step s) {
  if (v->depth == v->capacity) {
    int64_t cap = v->capacity ? v->capacity * 2 : 32;
    tvm_tir_path_step* steps = tvm_ffi_realloc(v->steps, (size_t)cap * sizeof(*steps));
    if (!steps) return -1;
    v->steps = steps;
    v->capacity = cap;
  }
  v->steps[v->depth++] = s;
  return 0;
}

int tvm_tir_visitor_push_attr(tvm_tir_visitor* v, const char* name) {
  return push(v, (tvm_tir_path_step){TVM_FFI_PATH_ATTR, name, 0, NULL});
}
int tvm_tir_visitor_push_item(tvm_tir_visitor* v, int64_t index) {
  return push(v, (tvm_tir_path_step){TVM_FFI_PATH_ARRAY_ITEM, NULL, index, NULL});
}
int tvm_tir_visitor_push_key(tvm_tir_visitor* v, const TVMFFIAny* key) {
  return push(v, (tvm_tir_path_step){TVM_FFI_PATH_MAP_ITEM, NULL, 0, key});
}
void tvm_tir_visitor_pop(tvm_tir_visitor* v) { --v->depth; }

void tvm_tir_visitor_free(tvm_tir_visitor* v) {
  tvm_ffi_free(v->steps);
  v->steps = NULL;
  v->depth = v->capacity = 0;
}

/* Path steps allowed (each nested node adds at least one): deeper IR raises instead of
 * overflowing the stack. */
#define MAX_DEPTH TVM_FFI_STRUCTURAL_MAX_DEPTH

static int visit_node(tvm_tir_visitor* v, const void* node) {
  if (!node) return 0;
  if (v->depth > MAX_DEPTH) {
    tvm_ffi_raise("RuntimeError", "tvm_tir_visit: IR nested deeper than %d levels", MAX_DEPTH);
    return -1;
  }
  tvm_tir_kind k = tir_kind_of(node);
  tvm_tir_visit_fn pre = k >= 0 && v->pre[k] ? v->pre[k] : v->pre_default;
  tvm_tir_visit_fn post = k >= 0 && v->post[k] ? v->post[k] : v->post_default;
  int r = pre ? pre(v, node) : TVM_TIR_VISIT_CONTINUE;
  if (r < 0) return -1;
  if (r != TVM_TIR_VISIT_SKIP && tvm_tir_visit_children(v, node) != 0) return -1;
  return post && post(v, node) < 0 ? -1 : 0;
}

/* Visit a field's value: an object, or the elements / values of a container. */
static int visit_value(tvm_tir_visitor* v, const void* obj) {
  if (!obj) return 0;
  int32_t t = tvm_ffi_type_index(obj);
  if (is_seq(t)) {
    int64_t n = tvm_ffi_seq_size(obj);
    for (int64_t i = 0; i < n; ++i) {
      const void* child = any_child(tvm_ffi_seq_at(obj, i));
      if (!child) continue;
      if (tvm_tir_visitor_push_item(v, i) != 0) return -1;
      int r = visit_node(v, child);
      tvm_tir_visitor_pop(v);
      if (r != 0) return -1;
    }
    return 0;
  }
  if (is_map(t)) {
    const TVMFFIAny *key, *val;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(obj, pos, &key, &val)) >= 0;) {
      const void* child = any_child(val);
      if (!child) continue;
      if (tvm_tir_visitor_push_key(v, key) != 0) return -1;
      int r = visit_node(v, child);
      tvm_tir_visitor_pop(v);
      if (r != 0) return -1;
    }
    return 0;
  }
  return visit_node(v, obj);
}

static const void* field_value(const void* node, const TVMFFIFieldInfo* f) {
  const char* addr = (const char*)node + f->offset;
  if (f->field_static_type_index == kTVMFFIAny) return any_child((const TVMFFIAny*)addr);
  if (is_object_field(f)) return *(void* const*)addr;
  return NULL;
}

static int visit_field_info(tvm_tir_visitor* v, const void* node, const TVMFFIFieldInfo* f) {
  const void* val = field_value(node, f);
  if (!val) return 0;
  if (tvm_tir_visitor_push_attr(v, f->name.data) != 0) return -1;
  int r = visit_value(v, val);
  tvm_tir_visitor_pop(v);
  return r;
}

/* The object-field tables of the walks running on this thread (tvm_tir_visit takes them once;
 * NULL outside a walk), so that children are read from them, not from reflection per node. */
static _Thread_local const tvm_tir__children* t_children;

int tvm_tir_visit_children(tvm_tir_visitor* v, const void* node) {
  int32_t t = tvm_ffi_type_index(node);
  if (is_seq(t) || is_map(t)) return visit_value(v, node);
  tvm_tir_kind k = tir_kind_of(node);
  const tvm_tir__children* c = k >= 0 ? t_children : NULL;
  if (k >= 0 && !c) c = tvm_tir__children_get();
  if (c) {
    /* The same fields, in the same order, as the reflection loop below. */
    for (int32_t i = c->start[k], end = c->start[k + 1]; i < end; ++i) {
      const tvm_tir__child_field* f = &c->f[i];
      const char* addr = (const char*)node + f->offset;
      const void* val;
      if (f->type == kTVMFFIAny) {
        val = any_child((const TVMFFIAny*)addr);
      } else if (f->type != kTVMFFIStr && f->type != kTVMFFIBytes) {
        val = *(void* const*)addr; /* the table holds object fields only */
      } else {
        continue;
      }
      if (!val) continue;
      if (push(v, (tvm_tir_path_step){TVM_FFI_PATH_ATTR, f->name, 0, NULL}) != 0) return -1;
      int r = visit_value(v, val);
      --v->depth;
      if (r != 0) return -1;
    }
    return 0;
  }
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = 0; i < n; ++i) {
    if (visit_field_info(v, node, fields[i]) != 0) return -1;
  }
  return 0;
}

int tvm_tir_visit_field(tvm_tir_visitor* v, const void* node, const char* field) {
  const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(tvm_ffi_type_index(node), field);
  return f ? visit_field_info(v, node, f) : 0;
}

int tvm_tir_visit_child(tvm_tir_visitor* v, const void* node, const char* field) {
  if (!node) return 0;
  if (tvm_tir_visitor_push_attr(v, field) != 0) return -1;
  int r = visit_value(v, node);
  tvm_tir_visitor_pop(v);
  return r;
}

int tvm_tir_visit_node(tvm_tir_visitor* v, const void* node) { return visit_node(v, node); }

int tvm_tir_visit(tvm_tir_visitor* v, const void* root) {
  const tvm_tir__children* outer = t_children; /* a walk from a callback of another */
  t_children = tvm_tir__children_get();        /* NULL: out of memory, reflection then */
  v->depth = 0;
  int r = visit_node(v, root);
  v->depth = 0;
  t_children = outer;
  return r;
}

void* tvm_tir_visitor_path(const tvm_tir_visitor* v) {
  void* path = tvm_ffi_access_path_root();
  for (int64_t i = 0; path && i < v->depth; ++i) {
    const tvm_tir_path_step* s = &v->steps[i];
    void* next;
    if (s->kind == TVM_FFI_PATH_ATTR) {
      next = tvm_ffi_access_path_attr(path, s->name);
    } else if (s->kind == TVM_FFI_PATH_ARRAY_ITEM) {
      next = tvm_ffi_access_path_item(path, s->index);
    } else {
      next = tvm_ffi_access_path_extend(path, s->kind, s->key);
    }
    tvm_ffi_release(path);
    path = next;
  }
  return path;
}

void tvm_tir_visitor_path_format(const tvm_tir_visitor* v, tvm_ffi_strbuf* out) {
  void* path = tvm_tir_visitor_path(v);
  if (path) {
    tvm_ffi_access_path_format(path, out);
  } else {
    tvm_ffi_error_clear();
    tvm_ffi_strbuf_puts(out, "<path unavailable>");
  }
  tvm_ffi_release(path);
}

/* ---- Mutator ------------------------------------------------------------------------------- */
/* Mutate a field value: an object, or a container rebuilt only when an element changed. */
static void* mutate_value(tvm_tir_mutator* m, const void* obj) {
  int32_t t = tvm_ffi_type_index(obj);
  if (t == kTVMFFIArray) {
    int64_t n = tvm_ffi_seq_size(obj);
    TVMFFIAny* items = NULL;
    for (int64_t i = 0; i < n; ++i) {
      const TVMFFIAny* a = tvm_ffi_seq_at(obj, i);
      const void* child = any_child(a);
      if (!child) continue;
      void* r = tvm_tir_mutate(m, child);
      if (!r) goto fail;
      if (r == child && !items) {
        tvm_ffi_release(r);
        continue;
      }
      if (!items) {
        items = tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
        if (!items) {
          tvm_ffi_release(r);
          goto fail;
        }
        for (int64_t j = 0; j < n; ++j) items[j] = tvm_ffi_any_copy(tvm_ffi_seq_at(obj, j));
      }
      tvm_ffi_any_release(&items[i]);
      items[i] = tvm_ffi_any_obj(r); /* takes r's reference */
    }
    if (!items) {
      tvm_ffi_retain((void*)obj);
      return (void*)obj;
    }
    void* arr = tvm_ffi_array_new_take(items, n);
    for (int64_t j = 0; !arr && j < n; ++j) tvm_ffi_any_release(&items[j]);
    tvm_ffi_free(items);
    return arr;
  fail:
    for (int64_t j = 0; items && j < n; ++j) tvm_ffi_any_release(&items[j]);
    tvm_ffi_free(items);
    return NULL;
  }
  if (t == kTVMFFIMap) {
    int64_t n = tvm_ffi_map_size(obj);
    TVMFFIAny* keys = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
    TVMFFIAny* vals = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
    void* result = NULL;
    bool changed = false, ok = keys && vals;
    int64_t i = 0;
    const TVMFFIAny *key, *val;
    for (int64_t pos = 0; ok && (pos = tvm_ffi_map_next(obj, pos, &key, &val)) >= 0; ++i) {
      keys[i] = tvm_ffi_any_copy(key);
      const void* child = any_child(val);
      if (!child) {
        vals[i] = tvm_ffi_any_copy(val);
        continue;
      }
      void* r = tvm_tir_mutate(m, child);
      if (!r) ok = false;
      changed |= r != child;
      vals[i] = tvm_ffi_any_obj(r); /* takes r's reference (None when NULL) */
    }
    if (ok && changed) result = tvm_ffi_map_new(keys, vals, i);
    if (ok && !changed) {
      tvm_ffi_retain((void*)obj);
      result = (void*)obj;
    }
    for (int64_t j = 0; j < i; ++j) {
      tvm_ffi_any_release(&keys[j]);
      tvm_ffi_any_release(&vals[j]);
    }
    tvm_ffi_free(keys);
    tvm_ffi_free(vals);
    return result;
  }
  return tvm_tir_mutate(m, obj);
}

void* tvm_tir_mutate_children(tvm_tir_mutator* m, const void* node) {
  int32_t t = tvm_ffi_type_index(node);
  tvm_tir_kind kind = tvm_tir_kind_of(node);
  if (kind < 0) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  const TVMFFIFieldInfo* const* fields;
  int32_t n = tvm_ffi_type_all_fields(t, &fields);
  char* copy = NULL;
  for (int32_t i = 0; i < n; ++i) {
    const TVMFFIFieldInfo* f = fields[i];
    const void* old = field_value(node, f);
    if (!old) continue;
    void* r = mutate_value(m, old);
    if (!r) {
      tvm_ffi_release(copy);
      return NULL;
    }
    if (r == old) {
      tvm_ffi_release(r);
      continue;
    }
    if (!copy) {
      /* Copy every byte after the header, then retain what the copy now shares. */
      copy = tvm_ffi_object_new(t, k_kind_size[kind]);
      if (!copy) {
        tvm_ffi_release(r);
        return NULL;
      }
      memcpy(copy + sizeof(TVMFFIObject), (const char*)node + sizeof(TVMFFIObject),
             k_kind_size[kind] - sizeof(TVMFFIObject));
      for (int32_t j = 0; j < n; ++j) {
        char* addr = copy + fields[j]->offset;
        if (fields[j]->field_static_type_index == kTVMFFIAny) {
          *(TVMFFIAny*)addr = tvm_ffi_any_copy((TVMFFIAny*)addr);
        } else if (fields[j]->field_static_type_index >= kTVMFFIStaticObjectBegin) {
          tvm_ffi_retain(*(void**)addr);
        }
      }
    }
    char* addr = copy + f->offset;
    if (f->field_static_type_index == kTVMFFIAny) {
      tvm_ffi_any_release((TVMFFIAny*)addr);
      *(TVMFFIAny*)addr = tvm_ffi_any_obj(r);
    } else {
      tvm_ffi_release(*(void**)addr);
      *(void**)addr = r;
    }
  }
  if (copy) return copy;
  tvm_ffi_retain((void*)node);
  return (void*)node;
}

void* tvm_tir_mutate(tvm_tir_mutator* m, const void* node) {
  if (!node) return tvm_tir__null_arg("tvm_tir_mutate", "node");
  tvm_tir_kind k = tvm_tir_kind_of(node);
  if (k < 0) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  if (m->depth >= MAX_DEPTH) {
    tvm_ffi_raise("RuntimeError", "tvm_tir_mutate: IR nested deeper than %d levels", MAX_DEPTH);
    return NULL;
  }
  m->depth++;
  void* r;
  tvm_tir_mutate_fn pre = m->pre[k] ? m->pre[k] : m->pre_default;
  if (pre) {
    r = pre(m, node);
  } else {
    r = tvm_tir_mutate_children(m, node);
    tvm_tir_mutate_fn post = m->post[k] ? m->post[k] : m->post_default;
    if (r && post) {
      void* p = post(m, r);
      tvm_ffi_release(r);
      r = p;
    }
  }
  m->depth--;
  return r;
}

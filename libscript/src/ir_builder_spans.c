/*
 * ir_builder_spans.c: the IR builder's log of source spans (ir_builder_internal.h): the span of
 * the statement that produced each statement node, and the lookup of the nodes an access path
 * names, so that an error found in the finished IR (libtir's well-formedness check reports the
 * access path of the offending node) is reported at the statement that built it.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ir_builder_internal.h"

/* tvm_script__span_record when the log is full: grow it, then record. */
int tvm_script__span_record_grow(tvm_script_builder* b, const void* node,
                                 const tvm_script_span* span) {
  tvm_script__span_log* log = &b->spans;
  if (log->size == log->capacity) {
    size_t cap = 2 * log->capacity;
    /* The builder's inline entries (ir_builder_internal.h) are copied out, never reallocated. */
    bool inline_items = log->items == b->spans_inline;
    tvm_script__span_entry* items =
        inline_items ? tvm_ffi_malloc(cap * sizeof(*items))
                     : tvm_ffi_realloc(log->items, cap * sizeof(*items));
    if (!items) return tvm_ffi_raise("MemoryError", "IR builder: out of memory (source spans)");
    if (inline_items) memcpy(items, log->items, log->size * sizeof(*items));
    log->items = items;
    log->capacity = cap;
  }
  log->items[log->size++] = (tvm_script__span_entry){node, span};
  return 0;
}

void tvm_script__span_log_free(tvm_script__span_log* log) {
  tvm_ffi_free(log->items);
  memset(log, 0, sizeof(*log));
}

void tvm_script__span_log_replace(tvm_script__span_log* log, size_t start, const void* const* old,
                                  int64_t n, const void* now) {
  int64_t k = 0;
  for (size_t i = start; i < log->size && k < n; ++i) {
    if (log->items[i].node != old[k]) continue; /* (another node's entry) */
    log->items[i].node = tvm_ffi_seq_obj_at(now, k++);
  }
}

/* The child of obj named by the path step at *s (".field" or "[index]"), borrowed, advancing
 * *s past it; NULL at a step that cannot be followed. */
static const void* step(const void* obj, const char** s) {
  const char* p = *s;
  int32_t type = tvm_ffi_type_index(obj);
  if (*p == '.') {
    size_t n = 1;
    while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
    char name[64];
    if (n == 1 || n - 1 >= sizeof(name)) return NULL;
    memcpy(name, p + 1, n - 1);
    name[n - 1] = '\0';
    const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(type, name);
    const char* addr = f ? (const char*)obj + f->offset : NULL;
    const void* child = NULL;
    if (f && f->field_static_type_index == kTVMFFIAny) {
      const TVMFFIAny* a = (const TVMFFIAny*)addr;
      child = tvm_ffi_any_is_object(a) ? a->v_obj : NULL;
    } else if (f && f->field_static_type_index >= kTVMFFIStaticObjectBegin) {
      child = *(void* const*)addr;
    }
    if (child) *s = p + n;
    return child;
  }
  if (*p == '[' && isdigit((unsigned char)p[1]) &&
      (type == kTVMFFIArray || type == kTVMFFIList)) {
    char* end;
    long long index = strtoll(p + 1, &end, 10);
    if (*end != ']' || index >= tvm_ffi_seq_size(obj)) return NULL;
    const TVMFFIAny* a = tvm_ffi_seq_at(obj, index);
    if (!tvm_ffi_any_is_object(a)) return NULL;
    *s = end + 1;
    return a->v_obj;
  }
  return NULL; /* a map key, or not a path */
}

/* Orders (node, depth) pairs by node address. */
static int compare_ptr(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)*(const void* const*)a, y = (uintptr_t)*(const void* const*)b;
  return (x > y) - (x < y);
}

const tvm_script_span* tvm_script__span_at_path(const tvm_script__span_log* log, const void* root,
                                                const char* path) {
  if (!log->size || !root || strncmp(path, "<root>", 6) != 0) return NULL;
  /* The nodes on the path, root first (at most one per step), then sorted by address with
   * their depth kept beside them for the scan of the log. */
  size_t max = 1;
  for (const char* c = path; *c; ++c) max += *c == '.' || *c == '[';
  const void** nodes = tvm_ffi_malloc(2 * max * sizeof(void*));
  if (!nodes) {
    tvm_ffi_error_clear(); /* only the location is lost */
    return NULL;
  }
  size_t n = 0;
  const char* s = path + 6;
  for (const void* obj = root; obj; obj = *s ? step(obj, &s) : NULL) {
    nodes[2 * n] = obj;
    nodes[2 * n + 1] = (const void*)(uintptr_t)n;
    n++;
  }
  qsort(nodes, n, 2 * sizeof(void*), compare_ptr);
  const tvm_script_span* found = NULL;
  size_t found_depth = 0;
  for (size_t i = 0; i < log->size; ++i) {
    const void** hit = bsearch(&log->items[i].node, nodes, n, 2 * sizeof(void*), compare_ptr);
    size_t depth = hit ? (size_t)(uintptr_t)hit[1] : 0;
    if (hit && (!found || depth >= found_depth)) { /* deeper, or a later entry of the same */
      found = log->items[i].span;
      found_depth = depth;
    }
  }
  tvm_ffi_free(nodes);
  return found;
}

/*
 * ir_docsifier.c: the IRDocsifier: converter tables per dispatch token, the frame stack and the
 * variable table with unique names.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_internal.h"

/* ---- Converter tables ---------------------------------------------------------------------- */
enum { MAX_TOKENS = 8, MAX_TOKEN_LEN = 16, MAX_DEPTH = 2000 };

typedef struct {
  char name[MAX_TOKEN_LEN];
  tvm_script_converter* fns; /* indexed by type index */
  int32_t size;
} token_table;

static token_table g_tables[MAX_TOKENS];
static int g_num_tables;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static token_table* find_table(const char* token) {
  for (int i = 0; i < g_num_tables; ++i) {
    if (strcmp(g_tables[i].name, token) == 0) return &g_tables[i];
  }
  return NULL;
}

int tvm_script_register_converter(const char* token, int32_t type_index, tvm_script_converter fn) {
  if (!token) token = "";
  if (type_index < 0 || !fn) {
    return tvm_ffi_raise("ValueError", "register_converter: bad type index %d or NULL function",
                         (int)type_index);
  }
  if (strlen(token) >= MAX_TOKEN_LEN) {
    return tvm_ffi_raise("ValueError", "register_converter: token `%s` too long", token);
  }
  int rc = 0;
  pthread_mutex_lock(&g_lock);
  token_table* t = find_table(token);
  if (!t && g_num_tables < MAX_TOKENS) {
    t = &g_tables[g_num_tables++];
    strcpy(t->name, token);
  }
  if (!t) {
    rc = tvm_ffi_raise("ValueError", "register_converter: too many dispatch tokens");
  } else if (type_index >= t->size) {
    int32_t size = type_index + 64;
    tvm_script_converter* fns = tvm_ffi_realloc(t->fns, (size_t)size * sizeof(*fns));
    if (!fns) {
      rc = -1;
    } else {
      for (int32_t i = t->size; i < size; ++i) fns[i] = NULL;
      t->fns = fns;
      t->size = size;
    }
  }
  if (rc == 0) t->fns[type_index] = fn;
  pthread_mutex_unlock(&g_lock);
  return rc;
}

static tvm_script_converter lookup(const char* token, int32_t type_index) {
  token_table* t = find_table(token);
  return t && type_index >= 0 && type_index < t->size ? t->fns[type_index] : NULL;
}

bool tvm_script__printer_rule(const char* token, int32_t type_index) {
  return tvm_script_register_builtin_converters() == 0 &&
         (lookup(token ? token : "", type_index) || lookup("", type_index));
}

static pthread_once_t g_builtin_once = PTHREAD_ONCE_INIT;
static int g_builtin_rc;
static char g_builtin_error[256];

static void register_builtins(void) {
  if (tvm_script__doc_init() != 0 || tvm_script__register_ir() != 0 ||
      tvm_script__register_tir_expr() != 0 || tvm_script__register_tir_stmt() != 0 ||
      tvm_script__register_tir_func() != 0 || tvm_script__register_relax() != 0) {
    void* e = tvm_ffi_error_take();
    snprintf(g_builtin_error, sizeof(g_builtin_error), "%s", e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    g_builtin_rc = -1;
  }
}

int tvm_script_register_builtin_converters(void) {
  pthread_once(&g_builtin_once, register_builtins);
  if (g_builtin_rc != 0) {
    return tvm_ffi_raise("RuntimeError", "libscript: registering the converters failed: %s",
                         g_builtin_error);
  }
  return 0;
}

/* ---- The docsifier ------------------------------------------------------------------------- */
struct tvm_script_docsifier {
  tvm_script_print_options opts;
  const char* tokens[MAX_TOKENS * 4];
  int n_tokens;
  tvm_script_frame** frames;
  int n_frames, cap_frames;
  void* var_table; /* ffi.Dict: object -> doc (IdDoc: defined by name) */
  void* names;     /* ffi.Dict: name -> True, the names in use */
  bool used_ir, used_tir, used_relax;
  bool track_paths; /* build child access paths and attach them to docs (for underlining) */
  int depth;
  void* meta_lists; /* ffi.Dict: type key -> ffi.List of the objects printed as metadata */
  void* meta_index; /* ffi.Dict: object -> its index in its list (objects by identity) */
};

tvm_script_docsifier* tvm_script__docsifier_new(const tvm_script_print_options* opts) {
  tvm_script_docsifier* d = tvm_ffi_calloc(1, sizeof(*d));
  if (!d) return NULL;
  if (opts) {
    d->opts = *opts;
  } else {
    tvm_script_print_options_init(&d->opts);
  }
  d->track_paths = d->opts.num_underline_paths > 0;
  d->var_table = tvm_ffi_dict_new();
  d->names = tvm_ffi_dict_new();
  d->meta_lists = tvm_ffi_dict_new();
  d->meta_index = tvm_ffi_dict_new();
  if (!d->var_table || !d->names || !d->meta_lists || !d->meta_index) {
    tvm_script__docsifier_free(d);
    return NULL;
  }
  return d;
}

void tvm_script__docsifier_free(tvm_script_docsifier* d) {
  if (!d) return;
  while (d->n_frames) tvm_script_frame_pop(d);
  tvm_ffi_free(d->frames);
  tvm_ffi_release(d->var_table);
  tvm_ffi_release(d->names);
  tvm_ffi_release(d->meta_lists);
  tvm_ffi_release(d->meta_index);
  tvm_ffi_free(d);
}

const tvm_script_print_options* tvm_script_docsifier_options(const tvm_script_docsifier* d) {
  return &d->opts;
}

bool tvm_script__dialect_used(const tvm_script_docsifier* d, const char* dialect) {
  if (strcmp(dialect, "ir") == 0) return d->used_ir;
  if (strcmp(dialect, "tirx") == 0) return d->used_tir;
  if (strcmp(dialect, "relax") == 0) return d->used_relax;
  return false;
}

int tvm_script_push_token(tvm_script_docsifier* d, const char* token) {
  if (d->n_tokens == (int)(sizeof(d->tokens) / sizeof(d->tokens[0]))) {
    return tvm_ffi_raise("RuntimeError", "printer: dispatch tokens nested too deeply");
  }
  d->tokens[d->n_tokens++] = token;
  return 0;
}

void tvm_script_pop_token(tvm_script_docsifier* d) {
  if (d->n_tokens) d->n_tokens--;
}

tvm_script_doc_obj* tvm_script_prefix(tvm_script_docsifier* d, const char* dialect) {
  const char* p = NULL;
  if (strcmp(dialect, "ir") == 0) {
    d->used_ir = true;
    p = d->opts.ir_prefix;
  } else if (strcmp(dialect, "tirx") == 0) {
    d->used_tir = true;
    p = d->opts.tir_prefix;
  } else if (strcmp(dialect, "relax") == 0) {
    d->used_relax = true;
    p = d->opts.relax_prefix;
  } else {
    tvm_ffi_raise("ValueError", "printer: unknown dialect `%s`", dialect);
    return NULL;
  }
  return tvm_script_id_doc(p);
}

tvm_script_doc_obj* tvm_script_prefixed(tvm_script_docsifier* d, const char* dialect,
                                        const char* name) {
  tvm_script_doc_obj* doc = tvm_script_prefix(d, dialect);
  while (doc && *name) {
    const char* dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    char part[64];
    if (n >= sizeof(part)) n = sizeof(part) - 1;
    memcpy(part, name, n);
    part[n] = '\0';
    doc = tvm_script_attr_doc_take(doc, part);
    name += dot ? n + 1 : n;
  }
  return doc;
}

/* ---- Access paths ------------------------------------------------------------------------ */
/* Without tracking, a child's "path" is its parent's (no allocation); docs get none. */
static void* same_path(const void* path) {
  tvm_ffi_retain((void*)path);
  return (void*)path;
}

void* tvm_script_path_attr(tvm_script_docsifier* d, const void* path, const char* name) {
  return d->track_paths ? tvm_ffi_access_path_attr(path, name) : same_path(path);
}

void* tvm_script_path_item(tvm_script_docsifier* d, const void* path, int64_t i) {
  return d->track_paths ? tvm_ffi_access_path_item(path, i) : same_path(path);
}

void* tvm_script_path_map_item(tvm_script_docsifier* d, const void* path, const TVMFFIAny* key) {
  return d->track_paths ? tvm_ffi_access_path_extend(path, TVM_FFI_PATH_MAP_ITEM, key)
                        : same_path(path);
}

bool tvm_script_tracks_paths(const tvm_script_docsifier* d) { return d->track_paths; }

void tvm_script_doc_mark(tvm_script_docsifier* d, void* doc, const void* path) {
  if (d->track_paths && doc && path && tvm_script_doc_add_path(doc, path) != 0) {
    tvm_ffi_error_clear(); /* a missing mark only loses an underline */
  }
}

/* ---- Conversion ---------------------------------------------------------------------------- */
tvm_script_doc_obj* tvm_script_as_doc(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  if (!obj) {
    tvm_ffi_raise("ValueError", "printer: NULL value");
    return NULL;
  }
  int32_t t = obj->type_index;
  tvm_script_converter fn = d->n_tokens ? lookup(d->tokens[d->n_tokens - 1], t) : NULL;
  if (!fn) fn = lookup("", t);
  if (!fn) {
    tvm_ffi_raise("TypeError", "TVMScript printer: no converter for `%s` (dispatch token `%s`)",
                  tvm_ffi_any_type_name(obj), d->n_tokens ? d->tokens[d->n_tokens - 1] : "");
    return NULL;
  }
  if (d->depth >= MAX_DEPTH) {
    tvm_ffi_raise("RuntimeError", "TVMScript printer: IR nested deeper than %d", MAX_DEPTH);
    return NULL;
  }
  d->depth++;
  tvm_script_doc_obj* doc = fn(d, obj, path);
  d->depth--;
  if (doc && path && d->track_paths && tvm_script_doc_add_path(doc, path) != 0) {
    tvm_ffi_release(doc);
    return NULL;
  }
  return doc;
}

tvm_script_doc_obj* tvm_script_as_doc_obj(tvm_script_docsifier* d, const void* obj,
                                          const void* path) {
  TVMFFIAny a = tvm_ffi_any_obj(obj);
  return tvm_script_as_doc(d, &a, path);
}

tvm_script_doc_obj* tvm_script_as_doc_attr(tvm_script_docsifier* d, const void* obj,
                                           const void* path, const char* name) {
  const TVMFFIFieldInfo* f = obj ? tvm_ffi_type_find_field(tvm_ffi_type_index(obj), name) : NULL;
  if (!f) {
    tvm_ffi_raise("AttributeError", "printer: `%s` has no field `%s`",
                  obj ? tvm_ffi_type_key(tvm_ffi_type_index(obj)) : "None", name);
    return NULL;
  }
  TVMFFIAny v;
  if (tvm_ffi_field_get(obj, f, &v) != 0) return NULL;
  void* p = tvm_script_path_attr(d, path, name);
  tvm_script_doc_obj* doc = p ? tvm_script_as_doc(d, &v, p) : NULL;
  tvm_ffi_release(p);
  tvm_ffi_any_release(&v);
  return doc;
}

void* tvm_script_as_doc_array(tvm_script_docsifier* d, const void* arr, const void* path) {
  int64_t n = arr ? tvm_ffi_seq_size(arr) : 0;
  void* list = tvm_ffi_list_new();
  for (int64_t i = 0; list && i < n; ++i) {
    void* p = tvm_script_path_item(d, path, i);
    tvm_script_doc_obj* doc = p ? tvm_script_as_doc(d, tvm_ffi_seq_at(arr, i), p) : NULL;
    tvm_ffi_release(p);
    TVMFFIAny item = tvm_ffi_any_obj(doc);
    if (!doc || tvm_ffi_list_push_take(list, &item) != 0) {
      tvm_ffi_release(doc);
      tvm_ffi_release(list);
      return NULL;
    }
  }
  return tvm_script_doc_list_to_array_take(list);
}

/* ---- Frames -------------------------------------------------------------------------------- */
tvm_script_frame* tvm_script_frame_push(tvm_script_docsifier* d, int32_t kind) {
  if (d->n_frames == d->cap_frames) {
    int cap = d->cap_frames ? d->cap_frames * 2 : 16;
    tvm_script_frame** frames = tvm_ffi_realloc(d->frames, (size_t)cap * sizeof(*frames));
    if (!frames) return NULL;
    d->frames = frames;
    d->cap_frames = cap;
  }
  tvm_script_frame* f = tvm_ffi_calloc(1, sizeof(*f));
  if (!f) return NULL;
  f->kind = kind;
  f->stmts = tvm_ffi_list_new();
  f->vars = tvm_ffi_list_new();
  if (!f->stmts || !f->vars) {
    tvm_ffi_release(f->stmts);
    tvm_ffi_release(f->vars);
    tvm_ffi_free(f);
    return NULL;
  }
  d->frames[d->n_frames++] = f;
  return f;
}

void tvm_script_frame_pop(tvm_script_docsifier* d) {
  if (!d->n_frames) return;
  tvm_script_frame* f = d->frames[--d->n_frames];
  int64_t n = tvm_ffi_seq_size(f->vars);
  for (int64_t i = 0; i < n; ++i) {
    const TVMFFIAny* key = tvm_ffi_seq_at(f->vars, i);
    const TVMFFIAny* doc = tvm_ffi_map_get(d->var_table, key);
    if (doc && tvm_script_doc_kind_of(doc->v_obj) == TVM_SCRIPT_DOC_IdDoc) {
      TVMFFIAny name = tvm_ffi_any_obj(((tvm_script_id_doc_obj*)doc->v_obj)->name);
      tvm_ffi_dict_erase(d->names, &name);
    }
    tvm_ffi_dict_erase(d->var_table, key);
  }
  tvm_ffi_release(f->stmts);
  tvm_ffi_release(f->vars);
  tvm_ffi_free(f);
}

tvm_script_frame* tvm_script_frame_top(tvm_script_docsifier* d) {
  return d->n_frames ? d->frames[d->n_frames - 1] : NULL;
}

tvm_script_frame* tvm_script_frame_root(tvm_script_docsifier* d) {
  return d->n_frames ? d->frames[0] : NULL;
}

tvm_script_frame* tvm_script_frame_find(tvm_script_docsifier* d, int32_t kind) {
  for (int i = d->n_frames - 1; i >= 0; --i) {
    if (d->frames[i]->kind == kind) return d->frames[i];
  }
  return NULL;
}

int tvm_script_frame_count(const tvm_script_docsifier* d) { return d->n_frames; }

tvm_script_frame* tvm_script_frame_at(tvm_script_docsifier* d, int i) {
  return i >= 0 && i < d->n_frames ? d->frames[i] : NULL;
}

int tvm_script_frame_emit_take(tvm_script_frame* frame, void* stmt_doc) {
  if (!stmt_doc) return -1;
  TVMFFIAny item = tvm_ffi_any_obj(stmt_doc);
  if (tvm_ffi_list_push_take(frame->stmts, &item) != 0) {
    tvm_ffi_release(stmt_doc);
    return -1;
  }
  return 0;
}

/* ---- Metadata ------------------------------------------------------------------------------ */
tvm_script_doc_obj* tvm_script_add_metadata(tvm_script_docsifier* d, const void* obj) {
  if (!obj) {
    tvm_ffi_raise("ValueError", "printer: add_metadata of NULL");
    return NULL;
  }
  const char* key = tvm_ffi_type_key(tvm_ffi_type_index(obj));
  TVMFFIAny okey = tvm_ffi_any_obj(obj), tkey = tvm_ffi_any_raw_str(key);
  const TVMFFIAny* found = tvm_ffi_map_get(d->meta_index, &okey);
  int64_t index;
  if (found) {
    index = found->v_int64;
  } else {
    const TVMFFIAny* list = tvm_ffi_map_get(d->meta_lists, &tkey);
    void* l = list ? list->v_obj : tvm_ffi_list_new();
    TVMFFIAny la = tvm_ffi_any_obj(l);
    if (!l || (!list && tvm_ffi_dict_set(d->meta_lists, &tkey, &la) != 0)) {
      if (!list) tvm_ffi_release(l);
      return NULL;
    }
    if (!list) tvm_ffi_release(l); /* the dict holds it */
    index = tvm_ffi_seq_size(l);
    TVMFFIAny ia = tvm_ffi_any_int(index);
    if (tvm_ffi_list_push(l, &okey) != 0 || tvm_ffi_dict_set(d->meta_index, &okey, &ia) != 0) {
      return NULL;
    }
  }
  /* metadata["<type key>"][index] */
  return tvm_script_index_doc_take(
      tvm_script_index_doc_take(tvm_script_id_doc("metadata"),
                                tvm_script_doc_array_take(tvm_script_literal_str(key))),
      tvm_script_doc_array_take(tvm_script_literal_int(index)));
}

static int cmp_cstr(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

void* tvm_script__docsifier_metadata(tvm_script_docsifier* d) {
  int64_t n = tvm_ffi_map_size(d->meta_lists);
  if (n == 0) return NULL;
  const char** keys = tvm_ffi_malloc((size_t)n * sizeof(char*));
  TVMFFIAny* ks = tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  TVMFFIAny* vs = tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  void* map = NULL;
  if (keys && ks && vs) {
    int64_t m = 0;
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(d->meta_lists, pos, &k, &v)) >= 0;) {
      /* the key is the type key of the list's objects (a static string) */
      keys[m++] = tvm_ffi_type_key(tvm_ffi_type_index(tvm_ffi_seq_obj_at(v->v_obj, 0)));
    }
    qsort(keys, (size_t)m, sizeof(char*), cmp_cstr); /* keys sorted, as upstream writes them */
    bool ok = true;
    for (int64_t i = 0; ok && i < m; ++i) {
      TVMFFIAny key = tvm_ffi_any_raw_str(keys[i]);
      void* arr = tvm_ffi_list_to_array(tvm_ffi_map_get(d->meta_lists, &key)->v_obj);
      ks[i] = tvm_ffi_string(keys[i]);
      vs[i] = tvm_ffi_any_obj(arr);
      ok = arr && !tvm_ffi_any_is_none(&ks[i]);
    }
    map = ok ? tvm_ffi_map_new(ks, vs, m) : NULL;
    for (int64_t i = 0; i < m; ++i) {
      tvm_ffi_any_release(&ks[i]);
      tvm_ffi_any_release(&vs[i]);
    }
  }
  tvm_ffi_free(keys);
  tvm_ffi_free(ks);
  tvm_ffi_free(vs);
  return map;
}

/* ---- Variables ----------------------------------------------------------------------------- */
static bool is_reserved(tvm_script_docsifier* d, const char* s) {
  static const char* const k_words[] = {
      "False",  "None",   "True",    "and",      "as",     "assert", "async", "await",
      "break",  "class",  "continue", "def",     "del",    "elif",   "else",  "except",
      "finally", "for",   "from",    "global",   "if",     "import", "in",    "is",
      "lambda", "nonlocal", "not",   "or",       "pass",   "raise",  "return", "try",
      "while",  "with",   "yield",   "cls",      "tvm",    "metadata"};
  for (size_t i = 0; i < sizeof(k_words) / sizeof(k_words[0]); ++i) {
    if (strcmp(s, k_words[i]) == 0) return true;
  }
  return strcmp(s, d->opts.ir_prefix) == 0 || strcmp(s, d->opts.tir_prefix) == 0 ||
         strcmp(s, d->opts.relax_prefix) == 0;
}

static bool name_taken(tvm_script_docsifier* d, const char* s) {
  TVMFFIAny key = tvm_ffi_any_raw_str(s);
  return is_reserved(d, s) || tvm_ffi_map_get(d->names, &key) != NULL;
}

tvm_script_doc_obj* tvm_script_define_var(tvm_script_docsifier* d, const void* obj,
                                          const char* name_hint, tvm_script_frame* frame) {
  if (!obj || !frame) {
    tvm_ffi_raise("ValueError", "printer: define_var needs an object and a frame");
    return NULL;
  }
  /* A readable identifier: [A-Za-z0-9_], not starting with a digit, "v" when empty. */
  char base[128];
  size_t n = 0;
  for (const char* s = name_hint ? name_hint : ""; *s && n + 1 < sizeof(base) - 24; ++s) {
    unsigned char c = (unsigned char)*s;
    base[n++] = (char)(isalnum(c) || c == '_' ? c : '_');
  }
  base[n] = '\0';
  if (n == 0) strcpy(base, "v");
  if (isdigit((unsigned char)base[0])) {
    memmove(base + 1, base, strlen(base) + 1);
    base[0] = 'v';
  }
  char name[160];
  strcpy(name, base);
  for (int i = 1; name_taken(d, name); ++i) snprintf(name, sizeof(name), "%s_%d", base, i);
  tvm_script_doc_obj* id = tvm_script_id_doc(name);
  if (!id) return NULL;
  TVMFFIAny key = tvm_ffi_any_obj(obj), val = tvm_ffi_any_obj(id), t = tvm_ffi_any_bool(true);
  TVMFFIAny name_key = tvm_ffi_any_raw_str(name);
  if (tvm_ffi_dict_set(d->var_table, &key, &val) != 0 ||
      tvm_ffi_dict_set(d->names, &name_key, &t) != 0 || tvm_ffi_list_push(frame->vars, &key) != 0) {
    tvm_ffi_release(id);
    return NULL;
  }
  return id;
}

int tvm_script_define_var_doc(tvm_script_docsifier* d, const void* obj, const void* doc,
                              tvm_script_frame* frame) {
  if (!obj || !doc || !frame) {
    return tvm_ffi_raise("ValueError", "printer: define_var_doc needs an object, a doc, a frame");
  }
  TVMFFIAny key = tvm_ffi_any_obj(obj), val = tvm_ffi_any_obj(doc);
  if (tvm_ffi_dict_set(d->var_table, &key, &val) != 0) return -1;
  return tvm_ffi_list_push(frame->vars, &key);
}

bool tvm_script_is_var_defined(tvm_script_docsifier* d, const void* obj) {
  TVMFFIAny key = tvm_ffi_any_obj(obj);
  return obj && tvm_ffi_map_get(d->var_table, &key) != NULL;
}

/* A fresh copy of a name-like doc (IdDoc, or attribute / index chains of them), so that each
 * use gets its own source paths; other docs are shared. */
static tvm_script_doc_obj* fresh(const tvm_script_doc_obj* doc) {
  switch (tvm_script_doc_kind_of(doc)) {
    case TVM_SCRIPT_DOC_IdDoc:
      return tvm_script_id_doc_str(((const tvm_script_id_doc_obj*)doc)->name);
    case TVM_SCRIPT_DOC_AttrAccessDoc: {
      const tvm_script_attr_doc_obj* a = (const tvm_script_attr_doc_obj*)doc;
      tvm_script_doc_obj* v = fresh(a->value);
      return v ? tvm_script_attr_doc_take(v, tvm_ffi_str_cstr(a->name)) : NULL;
    }
    case TVM_SCRIPT_DOC_IndexDoc: {
      const tvm_script_index_doc_obj* x = (const tvm_script_index_doc_obj*)doc;
      tvm_script_doc_obj* v = fresh(x->value);
      if (!v) return NULL;
      tvm_ffi_retain(x->indices);
      return tvm_script_index_doc_take(v, x->indices);
    }
    default:
      tvm_ffi_retain((void*)doc);
      return (tvm_script_doc_obj*)doc;
  }
}

tvm_script_doc_obj* tvm_script_var_doc(tvm_script_docsifier* d, const void* obj) {
  if (!obj) return NULL;
  TVMFFIAny key = tvm_ffi_any_obj(obj);
  const TVMFFIAny* doc = tvm_ffi_map_get(d->var_table, &key);
  return doc ? fresh((const void*)doc->v_obj) : NULL;
}

/* ---- Helpers ------------------------------------------------------------------------------- */
void* tvm_script_stmts_to_array(void* stmt_list) {
  int64_t n = tvm_ffi_seq_size(stmt_list);
  bool nested = false;
  for (int64_t i = 0; i < n; ++i) {
    if (tvm_script_doc_kind_of(tvm_ffi_seq_obj_at(stmt_list, i)) == TVM_SCRIPT_DOC_StmtBlockDoc) {
      nested = true;
    }
  }
  if (!nested) return tvm_ffi_list_to_array(stmt_list);
  void* flat = tvm_ffi_list_new();
  for (int64_t i = 0; flat && i < n; ++i) {
    const TVMFFIAny* item = tvm_ffi_seq_at(stmt_list, i);
    if (tvm_script_doc_kind_of(item->v_obj) == TVM_SCRIPT_DOC_StmtBlockDoc) {
      void* inner = ((tvm_script_stmt_block_doc_obj*)item->v_obj)->stmts;
      for (int64_t j = 0; j < tvm_ffi_seq_size(inner); ++j) {
        if (tvm_ffi_list_push(flat, tvm_ffi_seq_at(inner, j)) != 0) {
          tvm_ffi_release(flat);
          return NULL;
        }
      }
    } else if (tvm_ffi_list_push(flat, item) != 0) {
      tvm_ffi_release(flat);
      return NULL;
    }
  }
  return tvm_script_doc_list_to_array_take(flat);
}

void* tvm_script__str_array1(const char* key) {
  void* s = tvm_ffi_str_obj(key, strlen(key));
  void* arr = s ? tvm_ffi_array_of_objects(&s, 1) : NULL;
  tvm_ffi_release(s);
  return arr;
}

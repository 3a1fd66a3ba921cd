/*
 * doc.c: the Doc node kinds of docs.def as FFI types with reflection, and their constructors.
 */
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <tvm/script/doc.h>

#include "script_internal.h"

static int32_t g_index[TVM_SCRIPT_DOC_COUNT];
static int16_t* g_kind_of; /* type index - g_kind_base -> kind */
static int32_t g_kind_base, g_kind_span;
static void* g_empty_array;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_init_ok;

/* ---- Field tables (only place a doc's fields are listed) ----------------------------------- */
#define FLD(S, m, type, flags) \
  { #m, offsetof(S, m), (type), (int32_t)sizeof(((S*)0)->m), (flags) }
#define OBJ kTVMFFIObject
#define ARR kTVMFFIArray
#define STR kTVMFFIStr
#define IGN kTVMFFIFieldFlagBitMaskSEqHashIgnore
#define SPAN_FLD(m)                                                                   \
  {"span_" #m, offsetof(tvm_script_doc_obj, span.m), kTVMFFIInt,                    \
   (int32_t)sizeof(((tvm_script_doc_obj*)0)->span.m), IGN}
#define END \
  { NULL, 0, 0, 0, 0 }

static const tvm_ffi_field_def k_f_Doc[] = {
    FLD(tvm_script_doc_obj, source_paths, ARR, IGN),
    SPAN_FLD(start_line),
    SPAN_FLD(start_col),
    SPAN_FLD(end_line),
    SPAN_FLD(end_col),
    SPAN_FLD(start_byte),
    SPAN_FLD(end_byte),
    END};
static const tvm_ffi_field_def k_f_ExprDoc[] = {END};
static const tvm_ffi_field_def k_f_StmtDoc[] = {FLD(tvm_script_stmt_doc_obj, comment, STR, 0),
                                                END};
static const tvm_ffi_field_def k_f_LiteralDoc[] = {
    FLD(tvm_script_literal_doc_obj, value, kTVMFFIAny, 0), END};
static const tvm_ffi_field_def k_f_IdDoc[] = {FLD(tvm_script_id_doc_obj, name, STR, 0), END};
static const tvm_ffi_field_def k_f_AttrAccessDoc[] = {
    FLD(tvm_script_attr_doc_obj, value, OBJ, 0), FLD(tvm_script_attr_doc_obj, name, STR, 0), END};
static const tvm_ffi_field_def k_f_IndexDoc[] = {FLD(tvm_script_index_doc_obj, value, OBJ, 0),
                                                 FLD(tvm_script_index_doc_obj, indices, ARR, 0),
                                                 END};
static const tvm_ffi_field_def k_f_CallDoc[] = {
    FLD(tvm_script_call_doc_obj, callee, OBJ, 0), FLD(tvm_script_call_doc_obj, args, ARR, 0),
    FLD(tvm_script_call_doc_obj, kwargs_keys, ARR, 0),
    FLD(tvm_script_call_doc_obj, kwargs_values, ARR, 0), END};
static const tvm_ffi_field_def k_f_OperationDoc[] = {
    FLD(tvm_script_operation_doc_obj, op, kTVMFFIInt, 0),
    FLD(tvm_script_operation_doc_obj, operands, ARR, 0), END};
static const tvm_ffi_field_def k_f_LambdaDoc[] = {FLD(tvm_script_lambda_doc_obj, args, ARR, 0),
                                                  FLD(tvm_script_lambda_doc_obj, body, OBJ, 0),
                                                  END};
static const tvm_ffi_field_def k_f_TupleDoc[] = {FLD(tvm_script_seq_doc_obj, elements, ARR, 0),
                                                 END};
#define k_f_ListDoc k_f_TupleDoc
static const tvm_ffi_field_def k_f_DictDoc[] = {FLD(tvm_script_dict_doc_obj, keys, ARR, 0),
                                                FLD(tvm_script_dict_doc_obj, values, ARR, 0), END};
static const tvm_ffi_field_def k_f_StarredDoc[] = {
    FLD(tvm_script_starred_doc_obj, value, OBJ, 0), END};
static const tvm_ffi_field_def k_f_SliceDoc[] = {FLD(tvm_script_slice_doc_obj, start, OBJ, 0),
                                                 FLD(tvm_script_slice_doc_obj, stop, OBJ, 0),
                                                 FLD(tvm_script_slice_doc_obj, step, OBJ, 0), END};
static const tvm_ffi_field_def k_f_StmtBlockDoc[] = {
    FLD(tvm_script_stmt_block_doc_obj, stmts, ARR, 0), END};
static const tvm_ffi_field_def k_f_AssignDoc[] = {
    FLD(tvm_script_assign_doc_obj, lhs, OBJ, 0), FLD(tvm_script_assign_doc_obj, rhs, OBJ, 0),
    FLD(tvm_script_assign_doc_obj, annotation, OBJ, 0), END};
static const tvm_ffi_field_def k_f_IfDoc[] = {FLD(tvm_script_if_doc_obj, predicate, OBJ, 0),
                                              FLD(tvm_script_if_doc_obj, then_branch, ARR, 0),
                                              FLD(tvm_script_if_doc_obj, else_branch, ARR, 0),
                                              END};
static const tvm_ffi_field_def k_f_WhileDoc[] = {FLD(tvm_script_while_doc_obj, predicate, OBJ, 0),
                                                 FLD(tvm_script_while_doc_obj, body, ARR, 0), END};
static const tvm_ffi_field_def k_f_ForDoc[] = {FLD(tvm_script_for_doc_obj, lhs, OBJ, 0),
                                               FLD(tvm_script_for_doc_obj, rhs, OBJ, 0),
                                               FLD(tvm_script_for_doc_obj, body, ARR, 0), END};
static const tvm_ffi_field_def k_f_ScopeDoc[] = {FLD(tvm_script_scope_doc_obj, lhs, OBJ, 0),
                                                 FLD(tvm_script_scope_doc_obj, rhs, OBJ, 0),
                                                 FLD(tvm_script_scope_doc_obj, body, ARR, 0), END};
static const tvm_ffi_field_def k_f_ExprStmtDoc[] = {
    FLD(tvm_script_expr_stmt_doc_obj, expr, OBJ, 0), END};
static const tvm_ffi_field_def k_f_AssertDoc[] = {FLD(tvm_script_assert_doc_obj, test, OBJ, 0),
                                                  FLD(tvm_script_assert_doc_obj, msg, OBJ, 0),
                                                  END};
static const tvm_ffi_field_def k_f_ReturnDoc[] = {FLD(tvm_script_return_doc_obj, value, OBJ, 0),
                                                  END};
static const tvm_ffi_field_def k_f_FunctionDoc[] = {
    FLD(tvm_script_function_doc_obj, name, OBJ, 0),
    FLD(tvm_script_function_doc_obj, args, ARR, 0),
    FLD(tvm_script_function_doc_obj, decorators, ARR, 0),
    FLD(tvm_script_function_doc_obj, return_type, OBJ, 0),
    FLD(tvm_script_function_doc_obj, body, ARR, 0), END};
static const tvm_ffi_field_def k_f_ClassDoc[] = {FLD(tvm_script_class_doc_obj, name, OBJ, 0),
                                                 FLD(tvm_script_class_doc_obj, decorators, ARR, 0),
                                                 FLD(tvm_script_class_doc_obj, body, ARR, 0), END};
#define k_f_CommentDoc k_f_ExprDoc
#define k_f_DocStringDoc k_f_ExprDoc

typedef struct {
  const char* name;
  const char* type_key;
  int parent; /* a kind, or -1 for ffi.Object */
  size_t size;
  const tvm_ffi_field_def* fields;
} doc_kind_info;

#define TVM_SCRIPT_DOC_Object (-1)
static const doc_kind_info k_kinds[TVM_SCRIPT_DOC_COUNT] = {
#define TVM_SCRIPT_DOC(Name, Parent, c_struct) \
  [TVM_SCRIPT_DOC_##Name] = {#Name, "script.printer." #Name, TVM_SCRIPT_DOC_##Parent, \
                             sizeof(c_struct), k_f_##Name},
#include <tvm/script/docs.def>
};
#undef TVM_SCRIPT_DOC_Object

static int register_kind(int k) {
  const doc_kind_info* info = &k_kinds[k];
  int32_t parent = info->parent < 0 ? kTVMFFIObject : g_index[info->parent];
  int32_t idx = tvm_ffi_type_register(info->type_key, parent, -1, info->size, NULL,
                                      kTVMFFISEqHashKindTreeNode);
  if (idx < 0) return -1;
  g_index[k] = idx;
  int32_t n = 0;
  while (info->fields[n].name) ++n;
  return n ? tvm_ffi_type_add_fields(idx, info->fields, n) : 0;
}

static void init_once(void) {
  tvm_ffi_init();
  for (int k = 0; k < TVM_SCRIPT_DOC_COUNT; ++k) {
    if (register_kind(k) != 0) return;
  }
  int32_t lo = g_index[0], hi = g_index[0];
  for (int k = 1; k < TVM_SCRIPT_DOC_COUNT; ++k) {
    if (g_index[k] < lo) lo = g_index[k];
    if (g_index[k] > hi) hi = g_index[k];
  }
  g_kind_of = (int16_t*)tvm_ffi_malloc((size_t)(hi - lo + 1) * sizeof(int16_t));
  g_empty_array = tvm_ffi_array_new(NULL, 0);
  if (!g_kind_of || !g_empty_array) return;
  for (int32_t i = 0; i <= hi - lo; ++i) g_kind_of[i] = -1;
  for (int k = 0; k < TVM_SCRIPT_DOC_COUNT; ++k) g_kind_of[g_index[k] - lo] = (int16_t)k;
  g_kind_base = lo;
  g_kind_span = hi - lo + 1;
  __atomic_store_n(&g_init_ok, 1, __ATOMIC_RELEASE);
}

int tvm_script__doc_init(void) {
  if (__atomic_load_n(&g_init_ok, __ATOMIC_ACQUIRE)) return 0;
  pthread_once(&g_once, init_once);
  if (!g_init_ok) return tvm_ffi_raise("RuntimeError", "libscript: Doc type registration failed");
  return 0;
}

int32_t tvm_script_doc_type_index(tvm_script_doc_kind kind) {
  if (tvm_script__doc_init() != 0 || kind < 0 || kind >= TVM_SCRIPT_DOC_COUNT) return -1;
  return g_index[kind];
}

tvm_script_doc_kind tvm_script_doc_kind_of(const void* obj) {
  if (!obj || tvm_script__doc_init() != 0) return TVM_SCRIPT_DOC_NONE;
  int32_t t = tvm_ffi_type_index(obj) - g_kind_base;
  return t >= 0 && t < g_kind_span ? (tvm_script_doc_kind)g_kind_of[t] : TVM_SCRIPT_DOC_NONE;
}

const char* tvm_script_doc_kind_name(tvm_script_doc_kind kind) {
  return kind >= 0 && kind < TVM_SCRIPT_DOC_COUNT ? k_kinds[kind].name : "<not a doc>";
}

const char* tvm_script_op_text(int32_t op) {
  switch (op) {
#define TVM_SCRIPT_OP_CASE(Name, value, text) \
  case value:                                 \
    return text;
    TVM_SCRIPT_OPERATORS(TVM_SCRIPT_OP_CASE)
#undef TVM_SCRIPT_OP_CASE
    default:
      return NULL;
  }
}

/* ---- Construction helpers ------------------------------------------------------------------ */
/* A zeroed doc of kind (span unknown), or NULL. */
static void* doc_new(tvm_script_doc_kind kind) {
  if (tvm_script__doc_init() != 0) return NULL;
  tvm_script_doc_obj* d = tvm_ffi_object_new(g_index[kind], k_kinds[kind].size);
  if (d) d->span.start_byte = d->span.end_byte = -1;
  return d;
}

/* Releases every object in objs[0..n) and returns NULL. */
static void* release_all(int n, void** objs) {
  for (int i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
  return NULL;
}

/* Whether a _take constructor may go on: no required argument is missing and no error raised. */
static bool args_ok(int n_required, void** objs) {
  if (tvm_ffi_error_pending()) return false;
  for (int i = 0; i < n_required; ++i) {
    if (!objs[i]) {
      tvm_ffi_raise("ValueError", "Doc constructor: a required argument is NULL");
      return false;
    }
  }
  return true;
}

/* An array field value: the given array (owned) or the shared empty one. */
static void* arr_or_empty(void* arr) {
  if (arr) return arr;
  tvm_ffi_retain(g_empty_array);
  return g_empty_array;
}

void* tvm_script__empty_array(void) {
  if (tvm_script__doc_init() != 0) return NULL;
  tvm_ffi_retain(g_empty_array);
  return g_empty_array;
}

void* tvm_script_doc_array_takev(int64_t n, void* const* docs) {
  bool ok = !tvm_ffi_error_pending();
  for (int64_t i = 0; i < n; ++i) {
    if (!docs[i]) ok = false;
  }
  void* arr = NULL;
  if (ok && tvm_script__doc_init() == 0) arr = tvm_ffi_array_of_objects(docs, n);
  else if (ok) ok = false;
  if (!ok && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "Doc array: an element is NULL");
  }
  for (int64_t i = 0; i < n; ++i) tvm_ffi_release(docs[i]);
  return arr;
}

void* tvm_script_doc_list_to_array_take(void* list) {
  void* arr = list ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  return arr;
}

/* ---- Constructors -------------------------------------------------------------------------- */
tvm_script_doc_obj* tvm_script_literal_doc(const TVMFFIAny* value) {
  tvm_script_literal_doc_obj* d = doc_new(TVM_SCRIPT_DOC_LiteralDoc);
  if (!d) return NULL;
  if (tvm_ffi_any_to_owned(value, &d->value) != 0) {
    d->value = tvm_ffi_any_none();
    tvm_ffi_release(d);
    return NULL;
  }
  return &d->doc;
}
tvm_script_doc_obj* tvm_script_literal_none(void) {
  TVMFFIAny v = tvm_ffi_any_none();
  return tvm_script_literal_doc(&v);
}
tvm_script_doc_obj* tvm_script_literal_int(int64_t v) {
  TVMFFIAny a = tvm_ffi_any_int(v);
  return tvm_script_literal_doc(&a);
}
tvm_script_doc_obj* tvm_script_literal_bool(bool v) {
  TVMFFIAny a = tvm_ffi_any_bool(v);
  return tvm_script_literal_doc(&a);
}
tvm_script_doc_obj* tvm_script_literal_float(double v) {
  TVMFFIAny a = tvm_ffi_any_float(v);
  return tvm_script_literal_doc(&a);
}
tvm_script_doc_obj* tvm_script_literal_str(const char* s) {
  TVMFFIAny a = tvm_ffi_any_raw_str(s ? s : "");
  return tvm_script_literal_doc(&a);
}

tvm_script_doc_obj* tvm_script_id_doc_n(const char* name, size_t n) {
  tvm_script_id_doc_obj* d = doc_new(TVM_SCRIPT_DOC_IdDoc);
  if (!d) return NULL;
  d->name = tvm_ffi_str_obj(name, n);
  if (!d->name) {
    tvm_ffi_release(d);
    return NULL;
  }
  return &d->doc;
}
tvm_script_doc_obj* tvm_script_id_doc_str(const void* name_str) {
  if (!name_str || !tvm_ffi_instance_of(name_str, kTVMFFIStr)) {
    tvm_ffi_raise("TypeError", "IdDoc: the name must be an ffi.String object");
    return NULL;
  }
  tvm_script_id_doc_obj* d = doc_new(TVM_SCRIPT_DOC_IdDoc);
  if (!d) return NULL;
  tvm_ffi_retain((void*)name_str);
  d->name = (void*)name_str;
  return &d->doc;
}

tvm_script_doc_obj* tvm_script_id_doc(const char* name) {
  return tvm_script_id_doc_n(name ? name : "", name ? strlen(name) : 0);
}

tvm_script_doc_obj* tvm_script_attr_doc_take(void* value, const char* name) {
  void* objs[] = {value};
  if (!args_ok(1, objs)) return release_all(1, objs);
  tvm_script_attr_doc_obj* d = doc_new(TVM_SCRIPT_DOC_AttrAccessDoc);
  void* s = d ? tvm_ffi_str_obj(name ? name : "", name ? strlen(name) : 0) : NULL;
  if (!s) {
    tvm_ffi_release(d);
    return release_all(1, objs);
  }
  d->value = value;
  d->name = s;
  return &d->doc;
}

/* Generic body of the constructors whose fields are all objects or arrays: objs[i] goes to the
 * field at offsets[i]; is_array[i] fields default to the empty array; the first n_required
 * arguments are required. */
static tvm_script_doc_obj* build(tvm_script_doc_kind kind, int n, void** objs,
                                 const size_t* offsets, const bool* is_array, int n_required) {
  if (!args_ok(n_required, objs)) return release_all(n, objs);
  char* d = doc_new(kind);
  if (!d) return release_all(n, objs);
  for (int i = 0; i < n; ++i) {
    *(void**)(d + offsets[i]) = is_array[i] ? arr_or_empty(objs[i]) : objs[i];
  }
  return (tvm_script_doc_obj*)d;
}

#define OFF(S, m) offsetof(S, m)
#define BUILD(kind, n_required, ...)                                                        \
  build(TVM_SCRIPT_DOC_##kind, (int)(sizeof(objs) / sizeof(objs[0])), objs,               \
        (const size_t[]){__VA_ARGS__}, is_array, (n_required))

tvm_script_doc_obj* tvm_script_index_doc_take(void* value, void* indices) {
  void* objs[] = {value, indices};
  const bool is_array[] = {false, true};
  return BUILD(IndexDoc, 1, OFF(tvm_script_index_doc_obj, value),
               OFF(tvm_script_index_doc_obj, indices));
}

tvm_script_doc_obj* tvm_script_call_doc_take(void* callee, void* args, void* kwargs_keys,
                                             void* kwargs_values) {
  void* objs[] = {callee, args, kwargs_keys, kwargs_values};
  const bool is_array[] = {false, true, true, true};
  int64_t nk = kwargs_keys ? tvm_ffi_seq_size(kwargs_keys) : 0;
  int64_t nv = kwargs_values ? tvm_ffi_seq_size(kwargs_values) : 0;
  if (nk != nv && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "CallDoc: %lld keyword names for %lld keyword values",
                  (long long)nk, (long long)nv);
  }
  return BUILD(CallDoc, 1, OFF(tvm_script_call_doc_obj, callee),
               OFF(tvm_script_call_doc_obj, args), OFF(tvm_script_call_doc_obj, kwargs_keys),
               OFF(tvm_script_call_doc_obj, kwargs_values));
}

tvm_script_doc_obj* tvm_script_operation_doc_take(int32_t op, void* operands) {
  void* objs[] = {operands};
  const bool is_array[] = {true};
  int arity = tvm_script_op_arity(op);
  int64_t n = operands ? tvm_ffi_seq_size(operands) : 0;
  if ((arity < 0 || n != arity) && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "OperationDoc: operator %d takes %d operands, got %lld", (int)op,
                  arity, (long long)n);
  }
  tvm_script_doc_obj* d = BUILD(OperationDoc, 1, OFF(tvm_script_operation_doc_obj, operands));
  if (d) ((tvm_script_operation_doc_obj*)d)->op = op;
  return d;
}

tvm_script_doc_obj* tvm_script_lambda_doc_take(void* args, void* body) {
  void* objs[] = {body, args};
  const bool is_array[] = {false, true};
  return BUILD(LambdaDoc, 1, OFF(tvm_script_lambda_doc_obj, body),
               OFF(tvm_script_lambda_doc_obj, args));
}

tvm_script_doc_obj* tvm_script_tuple_doc_take(void* elements) {
  void* objs[] = {elements};
  const bool is_array[] = {true};
  return BUILD(TupleDoc, 0, OFF(tvm_script_seq_doc_obj, elements));
}

tvm_script_doc_obj* tvm_script_list_doc_take(void* elements) {
  void* objs[] = {elements};
  const bool is_array[] = {true};
  return BUILD(ListDoc, 0, OFF(tvm_script_seq_doc_obj, elements));
}

tvm_script_doc_obj* tvm_script_dict_doc_take(void* keys, void* values) {
  void* objs[] = {keys, values};
  const bool is_array[] = {true, true};
  int64_t nk = keys ? tvm_ffi_seq_size(keys) : 0, nv = values ? tvm_ffi_seq_size(values) : 0;
  if (nk != nv && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "DictDoc: %lld keys for %lld values", (long long)nk,
                  (long long)nv);
  }
  return BUILD(DictDoc, 0, OFF(tvm_script_dict_doc_obj, keys),
               OFF(tvm_script_dict_doc_obj, values));
}

tvm_script_doc_obj* tvm_script_slice_doc_take(void* start, void* stop, void* step) {
  void* objs[] = {start, stop, step};
  const bool is_array[] = {false, false, false};
  return BUILD(SliceDoc, 0, OFF(tvm_script_slice_doc_obj, start),
               OFF(tvm_script_slice_doc_obj, stop), OFF(tvm_script_slice_doc_obj, step));
}

tvm_script_doc_obj* tvm_script_starred_doc_take(void* value) {
  void* objs[] = {value};
  const bool is_array[] = {false};
  return BUILD(StarredDoc, 1, OFF(tvm_script_starred_doc_obj, value));
}

tvm_script_doc_obj* tvm_script_stmt_block_doc_take(void* stmts) {
  void* objs[] = {stmts};
  const bool is_array[] = {true};
  return BUILD(StmtBlockDoc, 0, OFF(tvm_script_stmt_block_doc_obj, stmts));
}

tvm_script_doc_obj* tvm_script_assign_doc_take(void* lhs, void* rhs, void* annotation) {
  void* objs[] = {lhs, rhs, annotation};
  const bool is_array[] = {false, false, false};
  return BUILD(AssignDoc, 1, OFF(tvm_script_assign_doc_obj, lhs),
               OFF(tvm_script_assign_doc_obj, rhs), OFF(tvm_script_assign_doc_obj, annotation));
}

tvm_script_doc_obj* tvm_script_if_doc_take(void* predicate, void* then_branch, void* else_branch) {
  void* objs[] = {predicate, then_branch, else_branch};
  const bool is_array[] = {false, true, true};
  return BUILD(IfDoc, 1, OFF(tvm_script_if_doc_obj, predicate),
               OFF(tvm_script_if_doc_obj, then_branch), OFF(tvm_script_if_doc_obj, else_branch));
}

tvm_script_doc_obj* tvm_script_while_doc_take(void* predicate, void* body) {
  void* objs[] = {predicate, body};
  const bool is_array[] = {false, true};
  return BUILD(WhileDoc, 1, OFF(tvm_script_while_doc_obj, predicate),
               OFF(tvm_script_while_doc_obj, body));
}

tvm_script_doc_obj* tvm_script_for_doc_take(void* lhs, void* rhs, void* body) {
  void* objs[] = {lhs, rhs, body};
  const bool is_array[] = {false, false, true};
  return BUILD(ForDoc, 2, OFF(tvm_script_for_doc_obj, lhs), OFF(tvm_script_for_doc_obj, rhs),
               OFF(tvm_script_for_doc_obj, body));
}

tvm_script_doc_obj* tvm_script_scope_doc_take(void* lhs, void* rhs, void* body) {
  void* objs[] = {rhs, lhs, body};
  const bool is_array[] = {false, false, true};
  return BUILD(ScopeDoc, 1, OFF(tvm_script_scope_doc_obj, rhs), OFF(tvm_script_scope_doc_obj, lhs),
               OFF(tvm_script_scope_doc_obj, body));
}

tvm_script_doc_obj* tvm_script_expr_stmt_doc_take(void* expr) {
  void* objs[] = {expr};
  const bool is_array[] = {false};
  return BUILD(ExprStmtDoc, 1, OFF(tvm_script_expr_stmt_doc_obj, expr));
}

tvm_script_doc_obj* tvm_script_assert_doc_take(void* test, void* msg) {
  void* objs[] = {test, msg};
  const bool is_array[] = {false, false};
  return BUILD(AssertDoc, 1, OFF(tvm_script_assert_doc_obj, test),
               OFF(tvm_script_assert_doc_obj, msg));
}

tvm_script_doc_obj* tvm_script_return_doc_take(void* value) {
  void* objs[] = {value};
  const bool is_array[] = {false};
  return BUILD(ReturnDoc, 0, OFF(tvm_script_return_doc_obj, value));
}

tvm_script_doc_obj* tvm_script_function_doc_take(void* name, void* args, void* decorators,
                                                 void* return_type, void* body) {
  void* objs[] = {name, args, decorators, return_type, body};
  const bool is_array[] = {false, true, true, false, true};
  return BUILD(FunctionDoc, 1, OFF(tvm_script_function_doc_obj, name),
               OFF(tvm_script_function_doc_obj, args),
               OFF(tvm_script_function_doc_obj, decorators),
               OFF(tvm_script_function_doc_obj, return_type),
               OFF(tvm_script_function_doc_obj, body));
}

tvm_script_doc_obj* tvm_script_class_doc_take(void* name, void* decorators, void* body) {
  void* objs[] = {name, decorators, body};
  const bool is_array[] = {false, true, true};
  return BUILD(ClassDoc, 1, OFF(tvm_script_class_doc_obj, name),
               OFF(tvm_script_class_doc_obj, decorators), OFF(tvm_script_class_doc_obj, body));
}

static tvm_script_doc_obj* text_stmt(tvm_script_doc_kind kind, const char* text) {
  tvm_script_stmt_doc_obj* d = doc_new(kind);
  if (!d) return NULL;
  if (tvm_script_stmt_doc_set_comment(d, text ? text : "") != 0) {
    tvm_ffi_release(d);
    return NULL;
  }
  return &d->doc;
}
tvm_script_doc_obj* tvm_script_comment_doc(const char* text) {
  return text_stmt(TVM_SCRIPT_DOC_CommentDoc, text);
}
tvm_script_doc_obj* tvm_script_doc_string_doc(const char* text) {
  return text_stmt(TVM_SCRIPT_DOC_DocStringDoc, text);
}

/* ---- Shorthands ---------------------------------------------------------------------------- */
tvm_script_doc_obj* tvm_script_doc_attr_take(void* self, const char* name) {
  return tvm_script_attr_doc_take(self, name);
}

tvm_script_doc_obj* tvm_script_doc_call_takev(void* self, int64_t n, void* const* args) {
  void* arr = tvm_script_doc_array_takev(n, args);
  return tvm_script_call_doc_take(self, arr, NULL, NULL);
}

/* ---- Mutation ------------------------------------------------------------------------------ */
int tvm_script_doc_add_path(void* doc, const void* path) {
  if (!doc || !path) return 0;
  tvm_script_doc_obj* d = doc;
  int64_t n = d->source_paths ? tvm_ffi_seq_size(d->source_paths) : 0;
  TVMFFIAny items[8];
  TVMFFIAny* buf = n + 1 <= 8 ? items : tvm_ffi_malloc((size_t)(n + 1) * sizeof(TVMFFIAny));
  if (!buf) return -1;
  for (int64_t i = 0; i < n; ++i) buf[i] = *tvm_ffi_seq_at(d->source_paths, i);
  buf[n] = tvm_ffi_any_obj(path);
  void* arr = tvm_ffi_array_new(buf, n + 1);
  if (buf != items) tvm_ffi_free(buf);
  if (!arr) return -1;
  tvm_ffi_release(d->source_paths);
  d->source_paths = arr;
  return 0;
}

int tvm_script_stmt_doc_set_comment(void* stmt_doc, const char* comment) {
  if (!tvm_script_is_stmt_doc(stmt_doc)) {
    return tvm_ffi_raise("TypeError", "set_comment: not a StmtDoc");
  }
  tvm_script_stmt_doc_obj* s = stmt_doc;
  void* str = comment ? tvm_ffi_str_obj(comment, strlen(comment)) : NULL;
  if (comment && !str) return -1;
  tvm_ffi_release(s->comment);
  s->comment = str;
  return 0;
}

/*
 * ir_builder_tir.c: the TIR frames of the IR builder (tvm/script/ir_builder.h) for functions,
 * buffers and blocks, and the checks the TIR frames share. Each frame's node is built with the
 * libtir constructors when the frame exits, so their TypeErrors are the builder's. Loops,
 * control flow and scoped statements are in ir_builder_tir_stmt.c.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "ir_builder_internal.h"

/* ---- Helpers ------------------------------------------------------------------------------- */
/* Append obj (retained) to a frame collection. */
static bool push_vec(tvm_script__vec* v, const void* obj) {
  return tvm_script__vec_push(v, obj) == 0;
}

const char* tvm_script__type_name(const void* obj) {
  return obj ? tvm_ffi_type_key(tvm_ffi_type_index(obj)) : "None";
}

int tvm_script__expect_expr(const void* obj, const char* what) {
  if (tvm_script__is_expr(obj)) return 0;
  return tvm_ffi_raise("TypeError", "%s must be a PrimExpr, got %s", what,
                       tvm_script__type_name(obj));
}

/* A scalar integer PrimExpr (loop bounds). */
int tvm_script__expect_int(const void* obj, const char* what) {
  if (tvm_script__expect_expr(obj, what) != 0) return -1;
  DLDataType t = tvm_tir_expr_dtype(obj);
  if ((t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1) return 0;
  char dt[32] = "?";
  tvm_ffi_dtype_format(t, dt, sizeof(dt));
  return tvm_ffi_raise("TypeError", "%s must be an integer, got a %s expression", what, dt);
}

/* Whether arr is an ffi.Array of PrimExprs: Arrays are immutable, so the common case (indices
 * the evaluator has just built) is shared rather than copied. */
static bool all_exprs(const void* arr) {
  if (tvm_ffi_type_index(arr) != kTVMFFIArray) return false;
  for (int64_t i = 0, n = tvm_ffi_seq_size(arr); i < n; ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(arr, i);
    if (!tvm_ffi_any_is_object(v) || !tvm_script__is_expr(v->v_obj)) return false;
  }
  return true;
}

static __attribute__((noinline)) void* expr_array_slow(const void* arr, const char* what,
                                                      bool* ok);

/* An ffi.Array of PrimExpr from an Array of PrimExpr / Python ints (int32 IntImm, int64 when
 * it does not fit); NULL arr gives NULL without error. */
void* tvm_script__expr_array(const void* arr, const char* what, bool* ok) {
  *ok = true;
  if (!arr) return NULL;
  /* The common case (an Array of PrimExprs, shared) without the frame of the general one. */
  if (all_exprs(arr)) return tvm_tir_ref((void*)arr);
  return expr_array_slow(arr, what, ok);
}

/* tvm_script__expr_array past its common case (arr is not NULL). */
static void* expr_array_slow(const void* arr, const char* what, bool* ok) {
  if (!tvm_ffi_instance_of(arr, kTVMFFIArray) && !tvm_ffi_instance_of(arr, kTVMFFIList)) {
    *ok = false;
    tvm_ffi_raise("TypeError", "%s must be a list of PrimExpr, got %s", what,
                  tvm_script__type_name(arr));
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(arr);
  if (all_exprs(arr)) return tvm_tir_ref((void*)arr);
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  *ok = items != NULL;
  for (int64_t i = 0; *ok && i < n; ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(arr, i);
    int64_t x;
    void* e = NULL;
    if (v->type_index == kTVMFFIInt && tvm_ffi_any_as_int(v, &x)) {
      e = x >= INT32_MIN && x <= INT32_MAX ? tvm_tir_int(x) : tvm_tir_i64(x);
    } else if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) {
      e = tvm_tir_ref(v->v_obj);
    } else {
      tvm_ffi_raise("TypeError", "%s: element %lld must be a PrimExpr, got %s", what, (long long)i,
                    tvm_ffi_any_type_name(v));
    }
    items[i] = tvm_ffi_any_obj(e);
    *ok = e != NULL;
  }
  void* out = *ok ? tvm_ffi_array_new_take(items, n) : NULL;
  if (!out) {
    for (int64_t i = 0; items && i < n; ++i) tvm_ffi_any_release(&items[i]);
    *ok = false;
  }
  tvm_ffi_free(items);
  return out;
}

static void* list_to_array(const void* list) { return tvm_ffi_list_to_array(list); }

const char* tvm_script__norm_scope(const char* scope) {
  return !scope || strcmp(scope, "global") == 0 ? "" : scope;
}

/* The expression e in dtype when it is an integer literal (folded cast); else e itself. */
tvm_tir_expr_obj* tvm_script__int_literal_to(const void* e, DLDataType dtype) {
  if (tvm_tir_kind_of(e) == TVM_TIR_KIND_IntImm &&
      !tvm_ffi_dtype_equal(tvm_tir_expr_dtype(e), dtype)) {
    return tvm_tir_cast(dtype, (tvm_tir_expr_obj*)e);
  }
  return tvm_tir_ref((void*)e);
}

double tvm_script__float_value_in(DLDataType dtype, double v) {
  DLDataType elem = tvm_tir_dtype_element(dtype);
  if (elem.bits != 16 || !tvm_tir_dtype_is_floating(elem) || !isfinite(v)) return v;
  tvm_tir_expr_obj* wide = tvm_tir_float_imm_new(TVM_TIR_FLOAT64, v);
  tvm_tir_expr_obj* r = wide ? tvm_tir_cast(elem, wide) : NULL;
  tvm_ffi_release(wide);
  if (!r) tvm_ffi_error_clear(); /* v stays for the constructor to report */
  if (r && tvm_tir_kind_of(r) == TVM_TIR_KIND_FloatImm &&
      isfinite(((const tvm_tir_float_imm_obj*)r)->value)) {
    v = ((const tvm_tir_float_imm_obj*)r)->value;
  }
  tvm_ffi_release(r);
  return v;
}

/* ---- Functions ----------------------------------------------------------------------------- */
int tvm_script_tir_prim_func_enter(tvm_script_builder* b, bool is_private) {
  if (b->depth && b->frames[b->depth - 1].kind != TVM_SCRIPT_FRAME_MODULE) {
    return tvm_ffi_raise("ValueError",
                         "T.prim_func is only valid at the top level or in an I.ir_module");
  }
  tvm_script__frame* f = tvm_script__push_frame(b, TVM_SCRIPT_FRAME_PRIM_FUNC);
  if (!f) return -1;
  f->flag = is_private;
  return 0;
}

static tvm_script__frame* func_frame(tvm_script_builder* b, const char* what) {
  return tvm_script__require_top(b, TVM_SCRIPT_FRAME_PRIM_FUNC, what, "T.prim_func");
}

int tvm_script_tir_func_name(tvm_script_builder* b, const char* name) {
  tvm_script__frame* f = func_frame(b, "T.func_name");
  if (!f) return -1;
  f->name_str = tvm_script__name_str(b, name); /* (for global_symbol, shared) */
  return tvm_script__set_frame_name(b, f, name);
}

/* buf renamed `name` (a new reference): T.Buffer in a signature does not know the parameter's
 * name. A data var named after the old buffer was made with it and is renamed too. */
static tvm_tir_buffer_obj* buffer_named(tvm_tir_buffer_obj* buf, const char* name) {
  if (strcmp(tvm_tir_buffer_name(buf), name) == 0) return tvm_tir_ref(buf);
  tvm_tir_var_obj* data = buf->data;
  bool fresh = strcmp(tvm_tir_var_name(data), tvm_tir_buffer_name(buf)) == 0;
  data = fresh ? tvm_tir_var_new_typed(name, data->type_annotation) : tvm_tir_ref(data);
  if (!data) return NULL;
  tvm_tir_buffer_fields bf = {.data = data,
                              .dtype = buf->dtype,
                              .shape = buf->shape,
                              .strides = buf->strides,
                              .axis_separators = buf->axis_separators,
                              .elem_offset = buf->elem_offset,
                              .name = name,
                              .data_alignment = buf->data_alignment,
                              .offset_factor = buf->offset_factor,
                              .buffer_type = buf->buffer_type};
  tvm_tir_buffer_obj* out = tvm_tir_buffer_new(&bf);
  tvm_ffi_release(data);
  return out;
}

void* tvm_script_tir_arg(tvm_script_builder* b, const char* name, const void* param) {
  tvm_script__frame* f = func_frame(b, "a function parameter");
  if (!f) return NULL;
  if (tvm_tir_is_var(param)) {
    return push_vec(&f->params, param) ? tvm_tir_ref((void*)param) : NULL;
  }
  if (tvm_tir_kind_of(param) != TVM_TIR_KIND_Buffer) {
    tvm_ffi_raise("TypeError", "parameter `%s` must be a Var or a Buffer, got %s", name,
                  tvm_script__type_name(param));
    return NULL;
  }
  tvm_tir_buffer_obj* buf = buffer_named((tvm_tir_buffer_obj*)param, name);
  /* "<name>_handle", cut at 255 bytes as snprintf into this buffer would (no formatting: a
   * function has one per buffer parameter). */
  char handle_name[256];
  size_t n = strlen(name), total = n + 7 < sizeof(handle_name) ? n + 7 : sizeof(handle_name) - 1;
  memcpy(handle_name, name, n < total ? n : total);
  if (n < total) memcpy(handle_name + n, "_handle", total - n);
  handle_name[total] = '\0';
  tvm_tir_var_obj* handle = buf ? tvm_tir_var_new(handle_name, TVM_TIR_HANDLE) : NULL;
  /* A fresh handle Var: never a key of buffer_map yet. */
  bool ok = handle && push_vec(&f->params, handle) && push_vec(&f->buffer_map_keys, handle) &&
            push_vec(&f->buffer_map_values, buf);
  tvm_ffi_release(handle);
  if (!ok) {
    tvm_ffi_release(buf);
    return NULL;
  }
  return buf;
}

int tvm_script_tir_func_attrs(tvm_script_builder* b, const void* attrs) {
  tvm_script__frame* f = func_frame(b, "T.func_attr");
  if (f && !f->attrs && !(f->attrs = tvm_ffi_dict_new())) return -1;
  return f ? tvm_script__merge_attrs(f->attrs, attrs, "T.func_attr") : -1;
}

int tvm_script_tir_func_ret(tvm_script_builder* b, const void* type) {
  tvm_script__frame* f = func_frame(b, "T.ret_type");
  if (!f) return -1;
  if (!tvm_tir_is_type(type)) {
    return tvm_ffi_raise("TypeError", "the return type must be a type, got %s",
                         tvm_script__type_name(type));
  }
  tvm_ffi_release(f->ret_type);
  f->ret_type = tvm_tir_ref((void*)type);
  return 0;
}

int tvm_script_tir_func_root_block(tvm_script_builder* b) {
  tvm_script__frame* f = func_frame(b, "the root block");
  if (!f) return -1;
  f->root = true;
  return 0;
}

/* The function body, in the implicit root block when it has root allocations or the script
 * asked for one: the inverse of the printer's implicit_root(), which prints such a block as
 * `# with T.sblock("root"):` and its allocations as T.sblock_alloc_buffer at function level. */
static tvm_tir_stmt_obj* func_body(tvm_script__frame* f) {
  tvm_tir_stmt_obj* body = tvm_script__frame_body(f);
  if (!body || (!f->root && f->alloc_buffers.size == 0)) return body;
  bool ok;
  void* allocs = tvm_script__vec_take(&f->alloc_buffers, &ok);
  tvm_tir_sblock_fields bf = {.name_hint = "root", .body = body, .alloc_buffers = allocs};
  tvm_tir_sblock_obj* root = ok ? tvm_tir_sblock_new(&bf) : NULL;
  tvm_tir_stmt_obj* out = root ? tvm_tir_sblock_realize_new(NULL, NULL, root) : NULL;
  tvm_ffi_release(root);
  tvm_ffi_release(allocs);
  tvm_ffi_release(body);
  return out;
}

/* The key "global_symbol" (a new reference): one String made once (strings are immutable
 * values) rather than one per function. */
static void* g_global_symbol;
static pthread_once_t g_global_symbol_once = PTHREAD_ONCE_INIT;
static void make_global_symbol(void) {
  g_global_symbol = tvm_ffi_str_obj("global_symbol", 13);
  if (!g_global_symbol) tvm_ffi_error_clear(); /* each function then makes its own */
}
static TVMFFIAny global_symbol_key(void) {
  pthread_once(&g_global_symbol_once, make_global_symbol);
  if (!g_global_symbol) return tvm_ffi_string("global_symbol");
  tvm_ffi_retain(g_global_symbol);
  return tvm_ffi_any_obj(g_global_symbol);
}

/* The function's name as a value (new reference): the parser's String when it gave one and the
 * name is too long for a small string (which tvm_ffi_string makes of a short one). */
static TVMFFIAny func_name_value(const tvm_script__frame* f, const char* name) {
  if (!f->name_str || !f->name || tvm_ffi_str_view(f->name_str).size <= 7) {
    return tvm_ffi_string(name);
  }
  tvm_ffi_retain((void*)f->name_str);
  return tvm_ffi_any_obj(f->name_str);
}

int tvm_script__finish_prim_func(tvm_script_builder* b, tvm_script__frame* f) {
  const char* name = f->name ? f->name : "main";
  /* A public function is exported under its name unless T.func_attr names another symbol
   * (the printer leaves global_symbol out of T.func_attr exactly when it equals the name, and
   * prints private=True exactly when there is none). Without T.func_attr that is the one
   * attribute: a Map of it directly (no Dict to fill and copy). */
  void* attrs = NULL;
  bool ok = true;
  if (!f->attrs && !f->flag) {
    TVMFFIAny k = global_symbol_key(), v = func_name_value(f, name);
    attrs = tvm_ffi_map_new(&k, &v, 1);
    tvm_ffi_any_release(&k);
    tvm_ffi_any_release(&v);
    if (!attrs) return -1;
  } else if (f->attrs) {
    if (!f->flag && !tvm_ffi_map_get_str(f->attrs, "global_symbol")) {
      TVMFFIAny k = global_symbol_key(), v = func_name_value(f, name);
      int rc = tvm_ffi_dict_set(f->attrs, &k, &v);
      tvm_ffi_any_release(&k);
      tvm_ffi_any_release(&v);
      if (rc != 0) return -1;
    }
    if (!(attrs = tvm_ffi_dict_to_map(f->attrs))) return -1;
  }
  /* (A private function without T.func_attr has no attributes: NULL, the empty Map.) */
  int32_t nb = f->buffer_map_keys.size;
  void* buffer_map =
      nb ? tvm_ffi_map_new(f->buffer_map_keys.items, f->buffer_map_values.items, nb) : NULL;
  ok = !nb || buffer_map;
  tvm_tir_stmt_obj* body = ok ? func_body(f) : NULL;
  void* params = body ? tvm_script__vec_take(&f->params, &ok) : NULL;
  tvm_tir_prim_func_obj* fn =
      body && ok ? tvm_tir_prim_func_new(params, body, f->ret_type, buffer_map, attrs) : NULL;
  tvm_ffi_release(body);
  tvm_ffi_release(params);
  tvm_ffi_release(buffer_map);
  tvm_ffi_release(attrs);
  int rc = fn ? tvm_script__deliver_func(b, name, f->name ? (void*)f->name_str : NULL, fn) : -1;
  tvm_ffi_release(fn);
  return rc;
}

/* ---- Buffers ------------------------------------------------------------------------------- */
void tvm_script_buffer_args_init(tvm_script_buffer_args* a) {
  memset(a, 0, sizeof(*a));
  a->dtype = TVM_TIR_FLOAT32;
  a->align = -1;
}

tvm_tir_buffer_obj* tvm_script_tir_buffer(const tvm_script_buffer_args* a) {
  const char* name = a->name ? a->name : "buffer";
  if (!a->shape) {
    tvm_ffi_raise("TypeError", "buffer `%s` needs a shape", name);
    return NULL;
  }
  tvm_tir_buffer_type type = TVM_TIR_BUFFER_DEFAULT;
  if (a->buffer_type && strcmp(a->buffer_type, "auto") == 0) {
    type = TVM_TIR_BUFFER_AUTO_BROADCAST;
  } else if (a->buffer_type && *a->buffer_type && strcmp(a->buffer_type, "default") != 0) {
    tvm_ffi_raise("ValueError",
                  "buffer `%s`: buffer_type must be \"default\" or \"auto\", got "
                  "\"%s\"",
                  name, a->buffer_type);
    return NULL;
  }
  if (a->data &&
      (!tvm_tir_is_var(a->data) || tvm_tir_expr_dtype(a->data).code != kDLOpaqueHandle)) {
    tvm_ffi_raise("TypeError", "buffer `%s`: data must be a handle Var, got %s", name,
                  tvm_script__type_name(a->data));
    return NULL;
  }
  if (a->elem_offset && tvm_script__expect_expr(a->elem_offset, "elem_offset") != 0) return NULL;
  bool ok1 = false, ok2 = false, ok3 = false;
  void* shape = tvm_script__expr_array(a->shape, "shape", &ok1);
  void* strides = ok1 ? tvm_script__expr_array(a->strides, "strides", &ok2) : NULL;
  void* seps =
      ok1 && ok2 ? tvm_script__expr_array(a->axis_separators, "axis_separators", &ok3) : NULL;
  tvm_tir_var_obj* data = NULL;
  tvm_tir_expr_obj* offset = NULL;
  tvm_tir_buffer_obj* buf = NULL;
  if (ok1 && ok2 && ok3) {
    const char* scope = tvm_script__norm_scope(a->scope);
    data = a->data       ? tvm_tir_ref((void*)a->data)
           : a->builder  ? tvm_script__ptr_var(a->builder, name, a->name_str, a->dtype, scope)
           : a->name_str ? tvm_tir_ptr_var_str(a->name_str, a->dtype, scope)
                         : tvm_tir_ptr_var(name, a->dtype, scope);
    /* Without an elem_offset, a non-zero offset_factor makes it a fresh variable (upstream). */
    DLDataType index_t =
        tvm_ffi_seq_size(shape) ? tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(shape, 0)) : TVM_TIR_INT32;
    /* Else the constructor's elem_offset 0 of the index dtype; given here as the parse's shared
     * IntImm when that dtype is an index one (the constructor's checks then pass it as they
     * would pass its own; any other dtype is left to the constructor, which rejects the shape). */
    offset = a->elem_offset     ? tvm_tir_ref((void*)a->elem_offset)
             : a->offset_factor ? (tvm_tir_expr_obj*)tvm_tir_var("elem_offset", index_t)
             : tvm_tir_dtype_is_index(index_t) ? tvm_tir_const_int(index_t, 0)
                                               : NULL;
    tvm_tir_buffer_fields bf = {.data = data,
                                .dtype = a->dtype,
                                .shape = shape,
                                .strides = strides,
                                .axis_separators = seps,
                                .elem_offset = offset,
                                .name = name,
                                .data_alignment = a->align,
                                .offset_factor = a->offset_factor,
                                .buffer_type = type};
    bool parts_ok = data && (offset || !(a->elem_offset || a->offset_factor ||
                                         tvm_tir_dtype_is_index(index_t)));
    buf = parts_ok ? tvm_tir_buffer_new(&bf) : NULL;
  }
  tvm_ffi_release(shape);
  tvm_ffi_release(strides);
  tvm_ffi_release(seps);
  tvm_ffi_release(data);
  tvm_ffi_release(offset);
  return buf;
}

static bool vec_contains(const tvm_script__vec* v, const void* obj) {
  for (int32_t i = 0; i < v->size; ++i) {
    if (tvm_script__vec_at(v, i) == obj) return true;
  }
  return false;
}

tvm_tir_buffer_obj* tvm_script_tir_match_buffer(tvm_script_builder* b, const void* param,
                                                const tvm_script_buffer_args* a) {
  if (tvm_tir_kind_of(param) == TVM_TIR_KIND_BufferRegion) {
    tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_BLOCK,
                                                   "T.match_buffer of a region", "T.sblock");
    tvm_tir_buffer_obj* buf = f ? tvm_script_tir_buffer(a) : NULL;
    tvm_tir_match_buffer_region_obj* m =
        buf ? tvm_tir_match_buffer_region_new(buf, (tvm_tir_buffer_region_obj*)param) : NULL;
    bool ok = m && push_vec(&f->match_buffers, m);
    tvm_ffi_release(m);
    if (!ok) tvm_ffi_release(buf), buf = NULL;
    return buf;
  }
  if (!tvm_tir_is_var(param)) {
    tvm_ffi_raise("TypeError",
                  "T.match_buffer expects a handle parameter or a buffer region, "
                  "got %s",
                  tvm_script__type_name(param));
    return NULL;
  }
  tvm_script__frame* f = tvm_script__find_frame(b, TVM_SCRIPT_FRAME_PRIM_FUNC);
  const char* pname = tvm_tir_var_name(param);
  if (tvm_tir_expr_dtype(param).code != kDLOpaqueHandle) {
    tvm_ffi_raise("TypeError", "T.match_buffer: parameter `%s` is not a handle", pname);
    return NULL;
  }
  if (!f || !vec_contains(&f->params, param)) {
    tvm_ffi_raise("ValueError", "T.match_buffer: `%s` is not a parameter of the function", pname);
    return NULL;
  }
  /* (Keys are Vars: a Map compares them by identity.) */
  if (vec_contains(&f->buffer_map_keys, param)) {
    tvm_ffi_raise("ValueError", "T.match_buffer: parameter `%s` is already matched to a buffer",
                  pname);
    return NULL;
  }
  tvm_tir_buffer_obj* buf = tvm_script_tir_buffer(a);
  if (buf && (!push_vec(&f->buffer_map_keys, param) || !push_vec(&f->buffer_map_values, buf))) {
    tvm_ffi_release(buf);
    return NULL;
  }
  return buf;
}

/* A frame whose body holds TIR statements of a PrimFunc (where upstream's statement-level
 * T.alloc_buffer emits its allocation). */
static bool tir_stmt_body_frame(tvm_script_frame_kind k) {
  switch (k) {
    case TVM_SCRIPT_FRAME_FOR:
    case TVM_SCRIPT_FRAME_THEN:
    case TVM_SCRIPT_FRAME_ELSE:
    case TVM_SCRIPT_FRAME_WHILE:
    case TVM_SCRIPT_FRAME_ASSERT:
    case TVM_SCRIPT_FRAME_LET:
    case TVM_SCRIPT_FRAME_ALLOCATE:
    case TVM_SCRIPT_FRAME_DECL_BUFFER:
    case TVM_SCRIPT_FRAME_ATTR:
    case TVM_SCRIPT_FRAME_LAUNCH_THREAD:
    case TVM_SCRIPT_FRAME_REALIZE: return true;
    default: return false;
  }
}

tvm_tir_buffer_obj* tvm_script__tir_alloc_buffer(tvm_script_builder* b,
                                                 const tvm_script_buffer_args* a, bool stmt_ok) {
  /* The innermost block anywhere up the stack, else the function's root when directly in its
   * body; inside any other statement of a PrimFunc (a for body, T.launch_thread, ...) it is
   * upstream's statement-level allocation: a DeclBuffer without a data Var for the rest of the
   * enclosing body, which the interpreter allocates and lowering makes Allocate + DeclBuffer. */
  tvm_script__frame* f = tvm_script__find_frame(b, TVM_SCRIPT_FRAME_BLOCK);
  tvm_script__frame* top = b->depth ? &b->frames[b->depth - 1] : NULL;
  if (!f && top && tir_stmt_body_frame(top->kind) &&
      tvm_script__find_frame(b, TVM_SCRIPT_FRAME_PRIM_FUNC)) {
    if (!stmt_ok) {
      tvm_ffi_raise("ValueError",
                    "T.alloc_buffer outside a T.sblock allocates for the rest of the body: use "
                    "it as a statement or assignment (`A = T.alloc_buffer(...)`)");
      return NULL;
    }
    if (a->data) {
      tvm_ffi_raise("ValueError",
                    "T.alloc_buffer outside a T.sblock takes no data=: use T.decl_buffer to "
                    "declare a buffer over existing data");
      return NULL;
    }
    return tvm_script_tir_decl_buffer_enter(b, a, true);
  }
  if (!f) {
    f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_PRIM_FUNC, "T.alloc_buffer",
                                "T.sblock, a T.prim_func body or a statement of one");
  }
  tvm_tir_buffer_obj* buf = f ? tvm_script_tir_buffer(a) : NULL;
  if (buf && !push_vec(&f->alloc_buffers, buf)) tvm_ffi_release(buf), buf = NULL;
  return buf;
}

tvm_tir_buffer_obj* tvm_script_tir_alloc_buffer(tvm_script_builder* b,
                                                const tvm_script_buffer_args* a) {
  return tvm_script__tir_alloc_buffer(b, a, true);
}

tvm_tir_buffer_obj* tvm_script_tir_decl_buffer_enter(tvm_script_builder* b,
                                                     const tvm_script_buffer_args* a,
                                                     bool rest_of_body) {
  tvm_tir_buffer_obj* buf = tvm_script_tir_buffer(a);
  tvm_script__frame* f = buf ? tvm_script__push_frame(b, TVM_SCRIPT_FRAME_DECL_BUFFER) : NULL;
  if (!f) {
    tvm_ffi_release(buf);
    return NULL;
  }
  f->rest_of_body = rest_of_body;
  f->buffer = tvm_tir_ref(buf);
  return buf;
}

/* ---- Blocks -------------------------------------------------------------------------------- */
int tvm_script_tir_block_enter(tvm_script_builder* b, const char* name, bool no_realize) {
  tvm_script__frame* f = tvm_script__push_frame(b, TVM_SCRIPT_FRAME_BLOCK);
  if (!f) return -1;
  f->flag = no_realize;
  return tvm_script__set_frame_name(b, f, name);
}

int tvm_script_tir_block_init_enter(tvm_script_builder* b) {
  tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_BLOCK, "T.init", "T.sblock");
  if (!f) return -1;
  if (f->init) return tvm_ffi_raise("ValueError", "a T.sblock has at most one T.init");
  return tvm_script__push_frame(b, TVM_SCRIPT_FRAME_BLOCK_INIT) ? 0 : -1;
}

int tvm_script_tir_where(tvm_script_builder* b, const void* predicate) {
  tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_BLOCK, "T.where", "T.sblock");
  if (!f) return -1;
  if (f->cond) return tvm_ffi_raise("ValueError", "T.where is given twice in a T.sblock");
  if (tvm_script__expect_expr(predicate, "the predicate of T.where") != 0) return -1;
  DLDataType t = tvm_tir_expr_dtype(predicate);
  if (!tvm_tir_dtype_is_bool(t) || t.lanes != 1) {
    char dt[32] = "?";
    tvm_ffi_dtype_format(t, dt, sizeof(dt));
    return tvm_ffi_raise("TypeError",
                         "the predicate of T.where must be a bool expression, got "
                         "%s (rule S-BLOCKREALIZE)",
                         dt);
  }
  f->cond = tvm_tir_ref((void*)predicate);
  return 0;
}

static int set_regions(tvm_script_builder* b, const void* regions, const char* what, bool writes) {
  tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_BLOCK, what, "T.sblock");
  if (!f) return -1;
  void** slot = writes ? &f->writes : &f->reads;
  if (*slot) return tvm_ffi_raise("ValueError", "%s is given twice in a T.sblock", what);
  if (!regions ||
      (!tvm_ffi_instance_of(regions, kTVMFFIArray) && !tvm_ffi_instance_of(regions, kTVMFFIList))) {
    return tvm_ffi_raise("TypeError", "%s expects a list of buffer regions, got %s", what,
                         tvm_script__type_name(regions));
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(regions); ++i) {
    const TVMFFIAny* r = tvm_ffi_seq_at(regions, i);
    if (!tvm_ffi_any_is_object(r) || tvm_tir_kind_of(r->v_obj) != TVM_TIR_KIND_BufferRegion) {
      return tvm_ffi_raise("TypeError", "%s: element %lld must be a buffer region, got %s", what,
                           (long long)i, tvm_ffi_any_type_name(r));
    }
  }
  *slot = tvm_ffi_instance_of(regions, kTVMFFIList) ? list_to_array(regions)
                                                    : tvm_tir_ref((void*)regions);
  return *slot ? 0 : -1;
}

int tvm_script_tir_reads(tvm_script_builder* b, const void* regions) {
  return set_regions(b, regions, "T.reads", false);
}

int tvm_script_tir_writes(tvm_script_builder* b, const void* regions) {
  return set_regions(b, regions, "T.writes", true);
}

int tvm_script_tir_block_attrs(tvm_script_builder* b, const void* attrs) {
  tvm_script__frame* f =
      tvm_script__require_top(b, TVM_SCRIPT_FRAME_BLOCK, "T.sblock_attr", "T.sblock");
  if (f && !f->annotations && !(f->annotations = tvm_ffi_dict_new())) return -1;
  return f ? tvm_script__merge_attrs(f->annotations, attrs, "T.sblock_attr") : -1;
}

/* tvm_script_tir_axis in the block frame f, with the domain as its min (NULL: 0) and extent. */
static tvm_tir_var_obj* axis_in(tvm_script_builder* b, tvm_script__frame* f, const char* name,
                                tvm_tir_iter_var_type kind, const void* dmin, const void* dext,
                                const void* binding) {
  if (tvm_script__expect_expr(dext, "the domain of a block axis") != 0) return NULL;
  if (binding && tvm_script__expect_expr(binding, "the binding of a block axis") != 0) return NULL;
  if (!binding && !f->flag) {
    tvm_ffi_raise("ValueError",
                  "block axis `%s` needs a binding (only a T.sblock with "
                  "no_realize=True has axes without one)",
                  name);
    return NULL;
  }
  /* The axis has its binding's dtype; integer literals in the domain follow it (and a literal
   * binding follows a symbolic domain). */
  DLDataType dtype = tvm_tir_expr_dtype(binding ? binding : dext);
  if (binding && tvm_tir_kind_of(binding) == TVM_TIR_KIND_IntImm &&
      tvm_tir_kind_of(dext) != TVM_TIR_KIND_IntImm) {
    dtype = tvm_tir_expr_dtype(dext);
  }
  tvm_tir_expr_obj* ext = tvm_script__int_literal_to(dext, dtype);
  tvm_tir_expr_obj* mn =
      dmin ? tvm_script__int_literal_to(dmin, dtype) : tvm_tir_const_int(dtype, 0);
  tvm_tir_expr_obj* value = binding ? tvm_script__int_literal_to(binding, dtype) : NULL;
  tvm_tir_var_obj* var =
      ext && mn && (value || !binding) ? tvm_script__var(b, name, dtype) : NULL;
  tvm_tir_range_obj* range = var ? tvm_tir_range_new(mn, ext) : NULL;
  tvm_tir_iter_var_obj* iv = range ? tvm_tir_iter_var_new(range, var, kind, NULL) : NULL;
  bool ok = iv && push_vec(&f->iter_vars, iv) && (!value || push_vec(&f->iter_values, value));
  tvm_ffi_release(ext);
  tvm_ffi_release(mn);
  tvm_ffi_release(value);
  tvm_ffi_release(range);
  tvm_ffi_release(iv);
  if (!ok) tvm_ffi_release(var), var = NULL;
  return var;
}

tvm_tir_var_obj* tvm_script_tir_axis(tvm_script_builder* b, const char* name,
                                     tvm_tir_iter_var_type kind, const void* dom,
                                     const void* binding) {
  tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_BLOCK, "T.axis", "T.sblock");
  if (!f) return NULL;
  const void *dmin = NULL, *dext = dom;
  if (tvm_tir_kind_of(dom) == TVM_TIR_KIND_Range) {
    dmin = ((const tvm_tir_range_obj*)dom)->min;
    dext = ((const tvm_tir_range_obj*)dom)->extent;
  }
  return axis_in(b, f, name, kind, dmin, dext, binding);
}

void* tvm_script_tir_axis_remap(tvm_script_builder* b, const char* kinds, const void* bindings,
                                const char* const* names) {
  tvm_script__frame* f =
      tvm_script__require_top(b, TVM_SCRIPT_FRAME_BLOCK, "T.axis.remap", "T.sblock");
  if (!f) return NULL;
  size_t n = strlen(kinds);
  if (!bindings || (!tvm_ffi_instance_of(bindings, kTVMFFIArray) &&
                    !tvm_ffi_instance_of(bindings, kTVMFFIList))) {
    tvm_ffi_raise("TypeError", "T.axis.remap expects a list of loop variables, got %s",
                  tvm_script__type_name(bindings));
    return NULL;
  }
  if ((int64_t)n != tvm_ffi_seq_size(bindings)) {
    tvm_ffi_raise("ValueError", "T.axis.remap: %zu kinds (\"%s\") for %lld variables", n, kinds,
                  (long long)tvm_ffi_seq_size(bindings));
    return NULL;
  }
  tvm_script__vec vars = {NULL, 0, 0};
  for (size_t i = 0; i < n; ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(bindings, (int64_t)i);
    tvm_tir_iter_var_type kind = kinds[i] == 'S'   ? TVM_TIR_ITER_DATA_PAR
                                 : kinds[i] == 'R' ? TVM_TIR_ITER_COMM_REDUCE
                                                   : (tvm_tir_iter_var_type)-1;
    const tvm_script__frame* loop = NULL;
    for (int d = b->depth - 1; d >= 0 && tvm_ffi_any_is_object(v) && !loop; --d) {
      if (b->frames[d].kind == TVM_SCRIPT_FRAME_FOR && b->frames[d].var == v->v_obj) {
        loop = &b->frames[d];
      }
    }
    tvm_tir_var_obj* var = NULL;
    if ((int)kind < 0) {
      tvm_ffi_raise("ValueError", "T.axis.remap: unknown axis kind '%c' in \"%s\" (S or R)",
                    kinds[i], kinds);
    } else if (!loop) {
      tvm_ffi_raise("ValueError",
                    "T.axis.remap: binding %zu (%s) is not the variable of an "
                    "enclosing loop",
                    i,
                    tvm_ffi_any_is_object(v) && tvm_tir_is_var(v->v_obj)
                        ? tvm_tir_var_name((const tvm_tir_var_obj*)v->v_obj)
                        : tvm_ffi_any_type_name(v));
    } else {
      char buf[256];
      const char* name = names && names[i] ? names[i] : NULL;
      if (!name) {
        snprintf(buf, sizeof(buf), "v%s", tvm_tir_var_name(loop->var));
        name = buf;
      }
      /* The loop's domain as T.axis would read it from Range(min, extent), without making the
       * Range (a loop's min and extent are PrimExprs, so that Range could not fail). The block
       * frame stays on top: axes only push onto its collections. */
      var = axis_in(b, f, name, kind, loop->min, loop->extent, loop->var);
    }
    if (!var || !push_vec(&vars, var)) {
      tvm_ffi_release(var);
      tvm_script__vec_clear(&vars);
      return NULL;
    }
    tvm_ffi_release(var);
  }
  /* (n > 0: an empty remap would be an empty Array, not the NULL of an empty collection.) */
  bool ok;
  void* out = n ? tvm_script__vec_take(&vars, &ok) : tvm_ffi_array_new(NULL, 0);
  tvm_script__vec_clear(&vars);
  return out;
}

int tvm_script__finish_block(tvm_script_builder* b, tvm_script__frame* f) {
  if (f->flag && f->cond) {
    return tvm_ffi_raise("ValueError", "T.where needs a realized block (not no_realize=True)");
  }
  tvm_tir_stmt_obj* body = tvm_script__frame_body(f);
  /* Without T.reads / T.writes the regions are inferred from the body (as upstream), except
   * for a root block written out (`with T.sblock("root"):` directly in the function, no axes),
   * which keeps none and so prints as the implicit root. */
  const tvm_script__frame* p = b->depth ? &b->frames[b->depth - 1] : NULL;
  bool root = p && p->kind == TVM_SCRIPT_FRAME_PRIM_FUNC && !f->iter_vars.size &&
              strcmp(f->name, "root") == 0;
  void *reads = NULL, *writes = NULL;
  if (body && !root && (!f->reads || !f->writes) &&
      tvm_script__infer_regions(b, f, body, &reads, &writes) != 0) {
    tvm_ffi_release(body);
    return -1;
  }
  /* Empty collections are NULL: the constructor's empty default. */
  bool ok = body != NULL, ok_iters = true, ok_allocs = true, ok_matches = true;
  void* iter_vars = ok ? tvm_script__vec_take(&f->iter_vars, &ok_iters) : NULL;
  void* allocs = ok && ok_iters ? tvm_script__vec_take(&f->alloc_buffers, &ok_allocs) : NULL;
  void* matches = ok && ok_iters && ok_allocs ? tvm_script__vec_take(&f->match_buffers, &ok_matches)
                                              : NULL;
  ok = ok && ok_iters && ok_allocs && ok_matches;
  void* annotations = ok && f->annotations && tvm_ffi_map_size(f->annotations)
                          ? tvm_ffi_dict_to_map(f->annotations)
                          : NULL;
  ok = ok && (annotations || !f->annotations || !tvm_ffi_map_size(f->annotations));
  tvm_tir_sblock_fields bf = {.iter_vars = iter_vars,
                              .reads = f->reads ? f->reads : reads,
                              .writes = f->writes ? f->writes : writes,
                              .name_hint = f->name,
                              .body = body,
                              .init = f->init,
                              .alloc_buffers = allocs,
                              .match_buffers = matches,
                              .annotations = annotations};
  tvm_tir_sblock_obj* block = ok ? tvm_tir_sblock_new(&bf) : NULL;
  void* values = block && !f->flag ? tvm_script__vec_take(&f->iter_values, &ok) : NULL;
  void* stmt = !block  ? NULL
               : f->flag ? tvm_tir_ref(block)
               : ok      ? tvm_tir_sblock_realize_new(values, f->cond, block)
                         : NULL;
  void* objs[] = {body, reads, writes, iter_vars, allocs, matches, annotations, block, values};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  int rc = stmt ? tvm_script__emit(b, stmt) : -1;
  tvm_ffi_release(stmt);
  return rc;
}

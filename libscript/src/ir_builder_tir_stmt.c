/*
 * ir_builder_tir_stmt.c: the TIR statement frames of the IR builder (tvm/script/ir_builder.h):
 * loops, if/then/else, while, the scoped statements (assert, let, attr, thread launches,
 * allocate, realize) and plain statements, and the exit of every TIR frame. Functions, buffers
 * and blocks are in ir_builder_tir.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <tvm-private/tir.h>

#include "ir_builder_internal.h"

/* ---- Helpers ------------------------------------------------------------------------------- */
/* A literal (IntImm / FloatImm) converted to dtype so that `A[i] = 0` stores into a float16
 * buffer as upstream's builder does; anything else is returned as is (the constructor checks
 * it). New reference. */
static tvm_tir_expr_obj* literal_to(const void* value, DLDataType dtype) {
  DLDataType vt = tvm_tir_expr_dtype(value);
  int64_t i;
  double d;
  tvm_tir_kind k = tvm_tir_kind_of(value);
  if (tvm_ffi_dtype_equal(vt, dtype)) return tvm_tir_ref((void*)value);
  if (k == TVM_TIR_KIND_IntImm && tvm_tir_as_const_int(value, &i) &&
      (dtype.code == kDLInt || dtype.code == kDLUInt || dtype.code == kDLFloat ||
       dtype.code == kDLBfloat)) {
    /* float16 4097 is 4096: the constant holds the value of its type (the printer needs it). */
    double in = tvm_script__float_value_in(dtype, (double)i);
    return in != (double)i ? tvm_tir_const_float(dtype, in) : tvm_tir_const_int(dtype, i);
  }
  if (k == TVM_TIR_KIND_FloatImm && tvm_tir_as_const_float(value, &d) &&
      (dtype.code == kDLFloat || dtype.code == kDLBfloat)) {
    return tvm_tir_const_float(dtype, tvm_script__float_value_in(dtype, d));
  }
  return tvm_tir_ref((void*)value);
}

/* The typing rules of a scoped statement are checked when its frame is entered, by building
 * the node once around a placeholder body: the constructor's TypeError then points at the
 * statement that caused it rather than at the end of its body. */
static tvm_tir_stmt_obj* new_placeholder(void) {
  tvm_tir_expr_obj* zero = tvm_tir_int(0);
  tvm_tir_stmt_obj* s = zero ? tvm_tir_evaluate_new(zero) : NULL;
  tvm_ffi_release(zero);
  return s;
}

/* The placeholder is immutable and never part of the IR built: one is shared (made once for
 * the life of the process, like the op registry), as every loop and scope enters with one. */
static tvm_tir_stmt_obj* g_placeholder;
static pthread_once_t g_placeholder_once = PTHREAD_ONCE_INIT;

static void make_placeholder(void) {
  g_placeholder = new_placeholder();
  if (!g_placeholder) tvm_ffi_error_clear(); /* each call then makes its own */
}

static tvm_tir_stmt_obj* placeholder(void) {
  pthread_once(&g_placeholder_once, make_placeholder);
  return g_placeholder ? tvm_tir_ref(g_placeholder) : new_placeholder();
}

/* The node s built around the placeholder body, or NULL when its constructor failed; our
 * reference to the placeholder is consumed (s holds its own). The frame keeps s (`built`) and
 * its exit moves the real body into it (finish_built). */
static tvm_tir_stmt_obj* built(tvm_tir_stmt_obj* s, tvm_tir_stmt_obj* ph) {
  tvm_ffi_release(ph);
  return s;
}

/* ---- Allocation -------------------------------------------------------------------------- */
tvm_tir_var_obj* tvm_script_tir_allocate_enter(tvm_script_builder* b, const char* name,
                                               const void* extents, DLDataType dtype,
                                               const char* scope, const void* condition,
                                               const void* annotations, bool rest_of_body) {
  bool ok;
  void* ext = tvm_script__expr_array(extents, "T.allocate extents", &ok);
  if (ok && !ext) ok = tvm_ffi_raise("TypeError", "T.allocate needs extents") == 0;
  if (ok && condition) ok = tvm_script__expect_expr(condition, "T.allocate condition") == 0;
  if (ok && annotations && !tvm_ffi_instance_of(annotations, kTVMFFIMap)) {
    ok = tvm_ffi_raise("TypeError", "T.allocate annotations must be a dict") == 0;
  }
  tvm_tir_var_obj* var =
      ok ? tvm_script__ptr_var(b, name ? name : "buffer",
                                  tvm_script__name_str(b, name ? name : "buffer"), dtype,
                                  tvm_script__norm_scope(scope))
         : NULL;
  tvm_tir_stmt_obj* ph = var ? placeholder() : NULL;
  tvm_tir_stmt_obj* node =
      ph ? built(tvm_tir_allocate_new(var, dtype, ext, (tvm_tir_expr_obj*)condition, ph,
                                      (void*)annotations),
                 ph)
         : NULL;
  tvm_script__frame* f = node ? tvm_script__push_frame(b, TVM_SCRIPT_FRAME_ALLOCATE) : NULL;
  if (!f) {
    tvm_ffi_release(node);
    tvm_ffi_release(ext);
    tvm_ffi_release(var);
    return NULL;
  }
  f->built = node;
  f->rest_of_body = rest_of_body;
  f->var = tvm_tir_ref(var);
  f->extents = ext;
  f->dtype = dtype;
  f->cond = tvm_tir_ref((void*)condition);
  f->annotations = tvm_tir_ref((void*)annotations);
  return var;
}

/* T.allocate_const(data, dtype, extents): an Allocate whose annotations hold the constants
 * (TVM_TIR__ALLOCATE_CONST_KEY, tvm-private/tir.h); literals are converted to dtype. */
tvm_tir_var_obj* tvm_script__tir_allocate_const_enter(tvm_script_builder* b, const char* name,
                                                      const void* data, DLDataType dtype,
                                                      const void* extents, const void* annotations,
                                                      bool rest_of_body) {
  bool ok;
  int64_t n = tvm_ffi_seq_size(data);
  TVMFFIAny* items = tvm_ffi_malloc((size_t)(n ? n : 1) * sizeof(TVMFFIAny));
  void* arr = NULL;
  if (items) {
    int64_t k = 0;
    for (; k < n; ++k) {
      const TVMFFIAny* v = tvm_ffi_seq_at(data, k);
      int64_t iv;
      double fv;
      tvm_tir_expr_obj* lit = v->type_index == kTVMFFIInt && tvm_ffi_any_as_int(v, &iv)
                                  ? tvm_tir_const_int(TVM_TIR_INT64, iv)
                              : v->type_index == kTVMFFIFloat && tvm_ffi_any_as_float(v, &fv)
                                  ? tvm_tir_const_float(TVM_TIR_FLOAT64, fv)
                              : tvm_ffi_any_is_object(v) && tvm_tir_is_expr(v->v_obj)
                                  ? tvm_tir_ref(v->v_obj)
                                  : NULL;
      if (!lit) {
        tvm_ffi_raise("TypeError", "T.allocate_const data: element %lld must be a number, got %s",
                      (long long)k, tvm_ffi_any_type_name(v));
        break;
      }
      tvm_tir_expr_obj* c = literal_to(lit, dtype);
      tvm_ffi_release(lit);
      if (!c) break;
      items[k] = tvm_ffi_any_obj(c);
    }
    if (k == n) {
      arr = tvm_ffi_array_new_take(items, n);
    } else {
      while (k > 0) tvm_ffi_release(items[--k].v_obj);
    }
    tvm_ffi_free(items);
  }
  void* dict = arr ? tvm_ffi_dict_new() : NULL;
  ok = dict != NULL;
  if (ok && annotations) {
    if (!tvm_ffi_instance_of(annotations, kTVMFFIMap)) {
      ok = tvm_ffi_raise("TypeError", "T.allocate_const annotations must be a dict") == 0;
    }
    const TVMFFIAny *key, *value;
    for (int64_t pos = 0; ok && (pos = tvm_ffi_map_next(annotations, pos, &key, &value)) >= 0;) {
      ok = tvm_ffi_dict_set(dict, key, value) == 0;
    }
  }
  if (ok) {
    TVMFFIAny key = tvm_ffi_string(TVM_TIR__ALLOCATE_CONST_KEY), value = tvm_ffi_any_obj(arr);
    ok = !tvm_ffi_any_is_none(&key) && tvm_ffi_dict_set(dict, &key, &value) == 0;
    tvm_ffi_any_release(&key);
  }
  void* map = ok ? tvm_ffi_dict_to_map(dict) : NULL;
  tvm_ffi_release(dict);
  tvm_ffi_release(arr);
  bool exts_ok;
  void* ext = map ? tvm_script__expr_array(extents, "T.allocate_const extents", &exts_ok) : NULL;
  const void* checked;
  tvm_tir_var_obj* var =
      ext && tvm_tir__allocate_const_check(name ? name : "buffer", dtype, ext, map, &checked) == 0
          ? tvm_script_tir_allocate_enter(b, name, ext, dtype, "global", NULL, map, rest_of_body)
          : NULL;
  if (map && !ext && exts_ok) tvm_ffi_raise("TypeError", "T.allocate_const needs extents");
  tvm_ffi_release(ext);
  tvm_ffi_release(map);
  return var;
}

int tvm_script_tir_realize_enter(tvm_script_builder* b, const void* region, const char* scope,
                                 const void* condition, bool rest_of_body) {
  if (tvm_tir_kind_of(region) != TVM_TIR_KIND_BufferRegion) {
    return tvm_ffi_raise("TypeError", "T.realize expects a buffer region, got %s",
                         tvm_script__type_name(region));
  }
  const tvm_tir_buffer_region_obj* r = region;
  if (strcmp(tvm_script__norm_scope(scope),
             tvm_script__norm_scope(tvm_tir_buffer_scope(r->buffer))) != 0) {
    return tvm_ffi_raise("ValueError", "T.realize: buffer `%s` is in scope \"%s\", not \"%s\"",
                         tvm_tir_buffer_name(r->buffer), tvm_tir_buffer_scope(r->buffer), scope);
  }
  if (condition && tvm_script__expect_expr(condition, "the condition of T.realize") != 0) return -1;
  tvm_script__frame* f = tvm_script__push_frame(b, TVM_SCRIPT_FRAME_REALIZE);
  if (!f) return -1;
  f->rest_of_body = rest_of_body;
  f->buffer = tvm_tir_ref(r->buffer);
  f->extents = tvm_tir_ref(r->region);
  f->cond = tvm_tir_ref((void*)condition);
  return 0;
}

/* ---- Loops and control flow ---------------------------------------------------------------- */
tvm_tir_var_obj* tvm_script_tir_for_enter(tvm_script_builder* b, const char* name,
                                          tvm_tir_for_kind kind, const void* min,
                                          const void* extent, const char* thread,
                                          const void* annotations) {
  if (tvm_script__expect_int(extent, "the extent of a loop") != 0) return NULL;
  if (min && tvm_script__expect_int(min, "the start of a loop") != 0) return NULL;
  if (annotations && !tvm_ffi_instance_of(annotations, kTVMFFIMap)) {
    tvm_ffi_raise("TypeError", "loop annotations must be a dict, got %s",
                  tvm_script__type_name(annotations));
    return NULL;
  }
  if (kind == TVM_TIR_FOR_THREAD_BINDING && !thread) {
    tvm_ffi_raise("ValueError", "T.thread_binding needs a thread tag");
    return NULL;
  }
  /* The loop var has the wider of the two dtypes; the For constructor promotes literals. */
  DLDataType dtype = tvm_tir_expr_dtype(extent);
  if (min && tvm_tir_expr_dtype(min).bits > dtype.bits) dtype = tvm_tir_expr_dtype(min);
  tvm_tir_var_obj* var = tvm_script__var(b, name ? name : "v", dtype);
  /* (The implicit start 0 is the parse's shared IntImm, as a literal 0 would be.) */
  tvm_tir_expr_obj* mn =
      min ? tvm_script__int_literal_to(min, dtype) : tvm_tir_const_int(dtype, 0);
  tvm_tir_expr_obj* ext = tvm_script__int_literal_to(extent, dtype);
  tvm_tir_iter_var_obj* iv = NULL;
  if (kind == TVM_TIR_FOR_THREAD_BINDING && var && mn && ext) {
    tvm_tir_var_obj* iter = tvm_tir_var("iter", dtype);
    iv = iter ? tvm_tir_iter_var_new(NULL, iter, TVM_TIR_ITER_THREAD_INDEX, thread) : NULL;
    tvm_ffi_release(iter);
  }
  bool ok = var && mn && ext && (iv || kind != TVM_TIR_FOR_THREAD_BINDING);
  tvm_tir_stmt_obj* ph = ok ? placeholder() : NULL;
  /* (Arguments of their kinds: a Var made here, PrimExprs expect_int passed, the placeholder
   * Stmt, an IterVar or NULL; the constructor's other checks still run.) */
  tvm_tir_stmt_obj* node =
      ph ? built(tvm_tir__for_new_typed(var, mn, ext, kind, ph, iv, (void*)annotations), ph)
         : NULL;
  tvm_script__frame* f = node ? tvm_script__push_frame(b, TVM_SCRIPT_FRAME_FOR) : NULL;
  if (!f) {
    tvm_ffi_release(node);
    tvm_ffi_release(var);
    tvm_ffi_release(mn);
    tvm_ffi_release(ext);
    tvm_ffi_release(iv);
    return NULL;
  }
  f->built = node;
  f->var = tvm_tir_ref(var);
  f->min = mn;
  f->extent = ext;
  f->for_kind = kind;
  f->thread = iv;
  f->annotations = tvm_tir_ref((void*)annotations);
  return var;
}

int tvm_script_tir_while_enter(tvm_script_builder* b, const void* condition) {
  if (tvm_script__expect_expr(condition, "the condition of a while loop") != 0) return -1;
  tvm_tir_stmt_obj* ph = placeholder();
  tvm_tir_stmt_obj* node =
      ph ? built(tvm_tir_while_new((tvm_tir_expr_obj*)condition, ph), ph) : NULL;
  tvm_script__frame* f = node ? tvm_script__push_frame(b, TVM_SCRIPT_FRAME_WHILE) : NULL;
  if (!f) {
    tvm_ffi_release(node);
    return -1;
  }
  f->built = node;
  f->cond = tvm_tir_ref((void*)condition);
  return 0;
}

int tvm_script_tir_if_enter(tvm_script_builder* b, const void* condition) {
  if (tvm_script__expect_expr(condition, "the condition of an if") != 0) return -1;
  tvm_tir_stmt_obj* ph = placeholder();
  tvm_tir_stmt_obj* node =
      ph ? built(tvm_tir_if_then_else_new((tvm_tir_expr_obj*)condition, ph, NULL), ph) : NULL;
  tvm_script__frame* f = node ? tvm_script__push_frame(b, TVM_SCRIPT_FRAME_IF) : NULL;
  if (!f) {
    tvm_ffi_release(node);
    return -1;
  }
  f->built = node;
  f->cond = tvm_tir_ref((void*)condition);
  return 0;
}

int tvm_script_tir_then_enter(tvm_script_builder* b) {
  tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_IF, "T.Then", "T.If");
  if (!f) return -1;
  if (f->then_case) return tvm_ffi_raise("ValueError", "T.If has at most one T.Then");
  return tvm_script__push_frame(b, TVM_SCRIPT_FRAME_THEN) ? 0 : -1;
}

int tvm_script_tir_else_enter(tvm_script_builder* b) {
  tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_IF, "T.Else", "T.If");
  if (!f) return -1;
  if (!f->then_case) return tvm_ffi_raise("ValueError", "T.Else must follow a T.Then");
  if (f->else_case) return tvm_ffi_raise("ValueError", "T.If has at most one T.Else");
  return tvm_script__push_frame(b, TVM_SCRIPT_FRAME_ELSE) ? 0 : -1;
}

static int push_scoped(tvm_script_builder* b, tvm_script_frame_kind kind, bool rest_of_body,
                       tvm_script__frame** out) {
  *out = tvm_script__push_frame(b, kind);
  if (!*out) return -1;
  (*out)->rest_of_body = rest_of_body;
  return 0;
}

int tvm_script_tir_assert_enter(tvm_script_builder* b, const void* condition, const void* message,
                                bool rest_of_body) {
  return tvm_script_tir_assert_kind_enter(b, condition, NULL, message, rest_of_body);
}

int tvm_script_tir_assert_kind_enter(tvm_script_builder* b, const void* condition, const char* kind,
                                     const void* message, bool rest_of_body) {
  if (tvm_script__expect_expr(condition, "the condition of an assert") != 0) return -1;
  tvm_tir_string_imm_obj* kind_imm = NULL;
  if (kind && !(kind_imm = (tvm_tir_string_imm_obj*)tvm_tir_string_imm_new(kind, strlen(kind))))
    return -1;
  tvm_tir_expr_obj* msg = NULL;
  if (message && tvm_ffi_instance_of(message, kTVMFFIStr)) {
    TVMFFIByteArray text = tvm_ffi_str_view(message);
    msg = tvm_tir_string_imm_new(text.data, text.size);
  } else if (tvm_script__expect_expr(message, "the message of an assert") == 0) {
    msg = tvm_tir_ref((void*)message);
  }
  tvm_script__frame* f;
  tvm_tir_stmt_obj* ph = msg ? placeholder() : NULL;
  tvm_tir_stmt_obj* node =
      ph ? built(tvm_tir_assert_stmt_new_kind((tvm_tir_expr_obj*)condition, kind_imm, msg, ph), ph)
         : NULL;
  if (!node || push_scoped(b, TVM_SCRIPT_FRAME_ASSERT, rest_of_body, &f) != 0) {
    tvm_ffi_release(node);
    tvm_ffi_release(msg);
    tvm_ffi_release(kind_imm);
    return -1;
  }
  f->built = node;
  f->cond = tvm_tir_ref((void*)condition);
  f->value = msg;
  f->thread = kind_imm;
  return 0;
}

tvm_tir_var_obj* tvm_script_tir_let_enter(tvm_script_builder* b, const char* name,
                                          const void* value, const void* type_annotation,
                                          bool rest_of_body) {
  if (tvm_script__expect_expr(value, "the value of a let") != 0) return NULL;
  if (type_annotation && !tvm_tir_is_type(type_annotation)) {
    tvm_ffi_raise("TypeError", "the annotation of let `%s` must be a type, got %s", name,
                  tvm_script__type_name(type_annotation));
    return NULL;
  }
  name = name ? name : "v";
  void* name_str = tvm_script__name_str(b, name);
  tvm_tir_var_obj* var =
      !type_annotation ? tvm_script__var(b, name, tvm_tir_expr_dtype(value))
      : name_str       ? tvm_tir_var_new_typed_str(name_str, (tvm_tir_type_obj*)type_annotation)
                       : tvm_tir_var_new_typed(name, (tvm_tir_type_obj*)type_annotation);
  tvm_tir_var_obj* out = var ? tvm_script_tir_let_bind_enter(b, var, value, rest_of_body) : NULL;
  tvm_ffi_release(var);
  return out;
}

tvm_tir_var_obj* tvm_script_tir_let_bind_enter(tvm_script_builder* b, const void* var,
                                               const void* value, bool rest_of_body) {
  if (!tvm_tir_is_var(var)) {
    tvm_ffi_raise("TypeError", "a let binds a Var, got %s", tvm_script__type_name(var));
    return NULL;
  }
  if (tvm_script__expect_expr(value, "the value of a let") != 0) return NULL;
  tvm_tir_stmt_obj* ph = placeholder();
  tvm_tir_stmt_obj* node =
      ph ? built(tvm_tir_let_stmt_new((tvm_tir_var_obj*)var, (tvm_tir_expr_obj*)value, ph), ph)
         : NULL;
  tvm_script__frame* f;
  if (!node || push_scoped(b, TVM_SCRIPT_FRAME_LET, rest_of_body, &f) != 0) {
    tvm_ffi_release(node);
    return NULL;
  }
  f->built = node;
  f->var = tvm_tir_ref((void*)var);
  f->value = tvm_tir_ref((void*)value);
  return tvm_tir_ref((void*)var);
}

int tvm_script_tir_attr_enter(tvm_script_builder* b, const TVMFFIAny* node, const char* key,
                              const void* value, bool rest_of_body) {
  if (tvm_script__expect_expr(value, "the value of T.attr") != 0) return -1;
  tvm_tir_stmt_obj* ph = placeholder();
  tvm_tir_stmt_obj* stmt =
      ph ? built(tvm_tir_attr_stmt_new(node, key, (tvm_tir_expr_obj*)value, ph), ph) : NULL;
  if (!stmt) return -1;
  tvm_script__frame* f;
  TVMFFIAny owned;
  if (tvm_ffi_any_to_owned(node, &owned) != 0) {
    tvm_ffi_release(stmt);
    return -1;
  }
  if (push_scoped(b, TVM_SCRIPT_FRAME_ATTR, rest_of_body, &f) != 0) {
    tvm_ffi_release(stmt);
    tvm_ffi_any_release(&owned);
    return -1;
  }
  f->built = stmt;
  f->node = owned;
  f->value = tvm_tir_ref((void*)value);
  /* (Out of memory, the frame stays open without a key: dropped with the builder.) */
  return tvm_script__set_frame_name(b, f, key);
}

tvm_tir_iter_var_obj* tvm_script_tir_env_thread(const char* name, const char* thread_tag,
                                                DLDataType dtype) {
  tvm_tir_var_obj* var = tvm_tir_var(name ? name : thread_tag, dtype);
  tvm_tir_iter_var_obj* iv =
      var ? tvm_tir_iter_var_new(NULL, var, TVM_TIR_ITER_THREAD_INDEX, thread_tag) : NULL;
  tvm_ffi_release(var);
  return iv;
}

tvm_tir_var_obj* tvm_script_tir_env_thread_var(tvm_script_builder* b, const char* name,
                                               const char* thread_tag, DLDataType dtype) {
  if (!b->env_threads && !(b->env_threads = tvm_ffi_dict_new())) return NULL;
  tvm_tir_iter_var_obj* iv = tvm_script_tir_env_thread(name, thread_tag, dtype);
  TVMFFIAny k = tvm_ffi_any_obj(iv ? iv->var : NULL), v = tvm_ffi_any_obj(iv);
  tvm_tir_var_obj* var =
      iv && tvm_ffi_dict_set(b->env_threads, &k, &v) == 0 ? tvm_tir_ref(iv->var) : NULL;
  tvm_ffi_release(iv);
  return var;
}

tvm_tir_var_obj* tvm_script_tir_launch_thread_enter(tvm_script_builder* b, const char* name,
                                                    const TVMFFIAny* thread, const void* extent,
                                                    bool rest_of_body) {
  if (tvm_script__expect_expr(extent, "the extent of T.launch_thread") != 0) return NULL;
  DLDataType dtype = tvm_tir_expr_dtype(extent);
  TVMFFIByteArray tag;
  void* tag_str = NULL; /* a tag given as text, NUL-terminated (any length) */
  tvm_tir_var_obj* var = NULL;
  const char* tag_s = NULL;
  void* obj = tvm_ffi_any_is_object(thread) ? thread->v_obj : NULL;
  if (tvm_tir_kind_of(obj) == TVM_TIR_KIND_IterVar) {
    var = tvm_tir_ref(((tvm_tir_iter_var_obj*)obj)->var);
    tag_s = tvm_ffi_str_cstr(((tvm_tir_iter_var_obj*)obj)->thread_tag);
  } else if (tvm_tir_is_var(obj)) {
    /* A T.env_thread variable, or the variable of an earlier launch of the same thread. */
    TVMFFIAny key = tvm_ffi_any_obj(obj);
    const TVMFFIAny* iv = b->env_threads ? tvm_ffi_map_get(b->env_threads, &key) : NULL;
    if (!iv) {
      tvm_ffi_raise("ValueError", "T.launch_thread: `%s` is not a thread variable (T.env_thread)",
                    tvm_tir_var_name(obj));
      return NULL;
    }
    var = tvm_tir_ref(obj);
    tag_s = tvm_ffi_str_cstr(((tvm_tir_iter_var_obj*)iv->v_obj)->thread_tag);
  } else if (tvm_ffi_any_as_bytes(thread, &tag)) {
    if (!(tag_str = tvm_ffi_str_obj(tag.data, tag.size))) return NULL;
    tag_s = tvm_ffi_str_cstr(tag_str);
    var = tvm_script_tir_env_thread_var(b, name ? name : tag_s, tag_s, dtype);
  } else {
    tvm_ffi_raise("TypeError",
                  "T.launch_thread expects a thread tag or an env_thread variable, "
                  "got %s",
                  tvm_ffi_any_type_name(thread));
    return NULL;
  }
  tvm_tir_expr_obj* zero = var ? tvm_tir_const_int(tvm_tir_expr_dtype(var), 0) : NULL;
  tvm_tir_expr_obj* ext = zero ? tvm_script__int_literal_to(extent, tvm_tir_expr_dtype(var)) : NULL;
  tvm_tir_range_obj* dom = ext ? tvm_tir_range_new(zero, ext) : NULL;
  tvm_tir_iter_var_obj* iv =
      dom ? tvm_tir_iter_var_new(dom, var, TVM_TIR_ITER_THREAD_INDEX, tag_s) : NULL;
  const char* key =
      strncmp(tag_s ? tag_s : "", "vthread", 7) == 0 ? "virtual_thread" : "thread_extent";
  TVMFFIAny node = tvm_ffi_any_obj(iv);
  int rc = iv ? tvm_script_tir_attr_enter(b, &node, key, ext, rest_of_body) : -1;
  if (rc == 0) b->frames[b->depth - 1].kind = TVM_SCRIPT_FRAME_LAUNCH_THREAD;
  tvm_ffi_release(zero);
  tvm_ffi_release(ext);
  tvm_ffi_release(dom);
  tvm_ffi_release(iv);
  tvm_ffi_release(tag_str);
  if (rc != 0) tvm_ffi_release(var), var = NULL;
  return var;
}

/* ---- Plain statements ---------------------------------------------------------------------- */
int tvm_script_tir_buffer_store(tvm_script_builder* b, const void* buffer, const void* value,
                                const void* indices) {
  if (tvm_tir_kind_of(buffer) != TVM_TIR_KIND_Buffer) {
    return tvm_ffi_raise("TypeError", "a store needs a Buffer, got %s",
                         tvm_script__type_name(buffer));
  }
  if (tvm_script__expect_expr(value, "the stored value") != 0) return -1;
  bool ok;
  void* idx = tvm_script__expr_array(indices, "buffer indices", &ok);
  if (!ok) return -1;
  /* A literal takes the buffer's element type (vector lanes from a Ramp index). */
  DLDataType dtype = ((const tvm_tir_buffer_obj*)buffer)->dtype;
  for (int64_t i = 0; idx && i < tvm_ffi_seq_size(idx); ++i) {
    uint16_t lanes = tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(idx, i)).lanes;
    if (lanes > dtype.lanes) dtype.lanes = lanes;
  }
  tvm_tir_expr_obj* v = literal_to(value, dtype);
  /* Any other value of the same lanes is cast to the element type, as upstream's builder does
   * (`b[i] = a[()]` from float32 into int32); other lanes stay the constructor's TypeError. */
  if (v && !tvm_ffi_dtype_equal(tvm_tir_expr_dtype(v), dtype) &&
      tvm_tir_expr_dtype(v).lanes == dtype.lanes) {
    tvm_tir_expr_obj* c = tvm_tir_cast(dtype, v);
    tvm_ffi_release(v);
    v = c;
  }
  /* (A Buffer and a PrimExpr, tested above; idx an Array of PrimExprs or NULL, from
   * tvm_script__expr_array.) */
  tvm_tir_stmt_obj* s =
      v ? tvm_tir__buffer_store_new_typed((tvm_tir_buffer_obj*)buffer, v, idx) : NULL;
  int rc = s ? tvm_script__emit(b, s) : -1;
  tvm_ffi_release(v);
  tvm_ffi_release(idx);
  tvm_ffi_release(s);
  return rc;
}

int tvm_script_tir_evaluate(tvm_script_builder* b, const void* value) {
  if (tvm_script__expect_expr(value, "T.evaluate's argument") != 0) return -1;
  tvm_tir_stmt_obj* s = tvm_tir_evaluate_new((tvm_tir_expr_obj*)value);
  int rc = s ? tvm_script__emit(b, s) : -1;
  tvm_ffi_release(s);
  return rc;
}

int tvm_script_tir_loop_jump(tvm_script_builder* b, bool is_break) {
  const char* what = is_break ? "break" : "continue";
  const char* in_way = NULL;
  for (int d = b->depth - 1; d >= 0 && !in_way; --d) {
    const tvm_script__frame* f = &b->frames[d];
    switch (f->kind) {
      case TVM_SCRIPT_FRAME_WHILE:
        break;
      case TVM_SCRIPT_FRAME_FOR:
        in_way = f->for_kind == TVM_TIR_FOR_PARALLEL         ? "a parallel loop"
                 : f->for_kind == TVM_TIR_FOR_VECTORIZED     ? "a vectorized loop"
                 : f->for_kind == TVM_TIR_FOR_THREAD_BINDING ? "a thread-bound loop"
                                                             : NULL;
        if (in_way) {
          return tvm_ffi_raise("ValueError",
                               "'%s' in %s: only a serial or unrolled for loop or a while loop "
                               "can be left early",
                               what, in_way);
        }
        break;
      case TVM_SCRIPT_FRAME_BLOCK:
      case TVM_SCRIPT_FRAME_BLOCK_INIT:
        in_way = "a block";
        break;
      case TVM_SCRIPT_FRAME_LAUNCH_THREAD:
        in_way = "a GPU thread launch";
        break;
      case TVM_SCRIPT_FRAME_PRIM_FUNC:
      case TVM_SCRIPT_FRAME_MODULE:
        d = 0;
        break; /* no loop in this function */
      default:
        continue;
    }
    if (f->kind == TVM_SCRIPT_FRAME_WHILE || f->kind == TVM_SCRIPT_FRAME_FOR) {
      tvm_tir_expr_obj* call = tvm_tir_call_builtin(
          TVM_TIR_VOID, is_break ? TVM_TIR_BUILTIN_break_loop : TVM_TIR_BUILTIN_continue_loop, NULL,
          0);
      int rc = call ? tvm_script_tir_evaluate(b, call) : -1;
      tvm_ffi_release(call);
      return rc;
    }
  }
  if (in_way) {
    return tvm_ffi_raise("ValueError", "'%s' inside %s whose loop is outside it", what, in_way);
  }
  return tvm_ffi_raise("SyntaxError", "'%s' outside loop", what);
}

/* ---- Exiting frames ------------------------------------------------------------------------ */
/* The frame below the one being finished (already popped), which must be of kind. */
static tvm_script__frame* parent(tvm_script_builder* b, tvm_script_frame_kind kind) {
  tvm_script__frame* p = b->depth ? &b->frames[b->depth - 1] : NULL;
  return p && p->kind == kind ? p : NULL;
}

/* The node built when f was entered (f->built, taken), to be finished by moving the real
 * body into it: its constructor checked every argument then, and of the body only that it is a
 * Stmt, which the statements a frame collects always are (a vectorized loop, whose constructor
 * also looks inside the body, is built again instead). Never shared, so nobody sees the change.
 * NULL when f has none. */
static void* take_built(tvm_script__frame* f) {
  void* s = f->built;
  f->built = NULL;
  return s;
}

/* Replace the placeholder in *slot by body (retained). */
static void put_body(tvm_tir_stmt_obj** slot, tvm_tir_stmt_obj* body) {
  tvm_ffi_release(*slot);
  *slot = tvm_tir_ref(body);
}

int tvm_script__finish_tir_frame(tvm_script_builder* b, tvm_script__frame* f) {
  if (f->kind == TVM_SCRIPT_FRAME_PRIM_FUNC) return tvm_script__finish_prim_func(b, f);
  if (f->kind == TVM_SCRIPT_FRAME_BLOCK) return tvm_script__finish_block(b, f);
  tvm_tir_stmt_obj* body = tvm_script__frame_body(f);
  if (!body) return -1;
  tvm_tir_stmt_obj* stmt = NULL;
  tvm_script__frame* p;
  int rc = 0;
  switch (f->kind) {
    case TVM_SCRIPT_FRAME_BLOCK_INIT:
      p = parent(b, TVM_SCRIPT_FRAME_BLOCK);
      if (p) p->init = tvm_tir_ref(body);
      rc = p ? 0 : tvm_ffi_raise("ValueError", "T.init is only valid inside a T.sblock");
      break;
    case TVM_SCRIPT_FRAME_THEN:
    case TVM_SCRIPT_FRAME_ELSE:
      p = parent(b, TVM_SCRIPT_FRAME_IF);
      if (p)
        *(f->kind == TVM_SCRIPT_FRAME_THEN ? &p->then_case : &p->else_case) = tvm_tir_ref(body);
      rc = p ? 0 : tvm_ffi_raise("ValueError", "T.Then / T.Else are only valid inside a T.If");
      break;
    case TVM_SCRIPT_FRAME_IF:
      if (!f->then_case) {
        rc = tvm_ffi_raise("ValueError", "an if has no then branch (T.Then)");
      } else if ((stmt = take_built(f))) {
        tvm_tir_if_then_else_obj* s = (tvm_tir_if_then_else_obj*)stmt;
        put_body(&s->then_case, f->then_case);
        s->else_case = f->else_case ? tvm_tir_ref(f->else_case) : NULL; /* NULL when built */
      } else {
        stmt = tvm_tir_if_then_else_new(f->cond, f->then_case, f->else_case);
      }
      break;
    case TVM_SCRIPT_FRAME_FOR:
      if (f->for_kind != TVM_TIR_FOR_VECTORIZED && (stmt = take_built(f))) {
        put_body(&((tvm_tir_for_obj*)stmt)->body, body);
      } else {
        stmt = tvm_tir_for_new(f->var, f->min, f->extent, (tvm_tir_for_kind)f->for_kind, body,
                               f->thread, f->annotations);
      }
      break;
    case TVM_SCRIPT_FRAME_WHILE:
      if ((stmt = take_built(f))) {
        put_body(&((tvm_tir_while_obj*)stmt)->body, body);
      } else {
        stmt = tvm_tir_while_new(f->cond, body);
      }
      break;
    case TVM_SCRIPT_FRAME_ASSERT:
      if ((stmt = take_built(f))) {
        put_body(&((tvm_tir_assert_stmt_obj*)stmt)->body, body);
      } else {
        stmt = tvm_tir_assert_stmt_new_kind(f->cond, f->thread, f->value, body);
      }
      break;
    case TVM_SCRIPT_FRAME_LET:
      if ((stmt = take_built(f))) {
        put_body(&((tvm_tir_let_stmt_obj*)stmt)->body, body);
      } else {
        stmt = tvm_tir_let_stmt_new(f->var, f->value, body);
      }
      break;
    case TVM_SCRIPT_FRAME_ALLOCATE:
      if ((stmt = take_built(f))) {
        put_body(&((tvm_tir_allocate_obj*)stmt)->body, body);
      } else {
        stmt = tvm_tir_allocate_new(f->var, f->dtype, f->extents, f->cond, body, f->annotations);
      }
      break;
    case TVM_SCRIPT_FRAME_DECL_BUFFER: stmt = tvm_tir_decl_buffer_new(f->buffer, body); break;
    case TVM_SCRIPT_FRAME_REALIZE:
      stmt = tvm_tir_buffer_realize_new(f->buffer, f->extents, f->cond, body);
      break;
    case TVM_SCRIPT_FRAME_ATTR:
    case TVM_SCRIPT_FRAME_LAUNCH_THREAD:
      if ((stmt = take_built(f))) {
        put_body(&((tvm_tir_attr_stmt_obj*)stmt)->body, body);
      } else {
        stmt = tvm_tir_attr_stmt_new(&f->node, f->name, f->value, body);
      }
      break;
    default: rc = tvm_ffi_raise("ValueError", "IR builder: unexpected frame kind %d", f->kind);
  }
  tvm_ffi_release(body);
  if (rc == 0 && stmt)
    rc = tvm_script__emit(b, stmt);
  else if (rc == 0 && f->kind != TVM_SCRIPT_FRAME_BLOCK_INIT && f->kind != TVM_SCRIPT_FRAME_THEN &&
           f->kind != TVM_SCRIPT_FRAME_ELSE) {
    rc = -1; /* a constructor failed */
  }
  tvm_ffi_release(stmt);
  return rc;
}

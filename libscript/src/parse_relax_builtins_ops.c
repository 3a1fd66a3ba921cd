/*
 * parse_relax_builtins_ops.c: the `R.*` builtins that make Relax expressions, the inverse of
 * printer_relax.c's expression converters:
 *
 *   operators   `R.<op>(args..., attr=value)` for every row of librelax's table (ops.def):
 *               `R.add`, `R.nn.conv2d`, `R.memory.alloc_storage`, ... One generic builtin per
 *               row, driven by the row: the parameters are the row's arguments (in upstream's
 *               wrapper order where it differs from the Call's: arg_order), then its
 *               attributes (upstream's Python order: positional or keyword, attributes
 *               defaulting from the schema; a variadic row takes the extra positional
 *               arguments, its attributes by keyword); values convert as upstream's Python
 *               wrappers do (an argument named `shape` / `size` written as a tuple is a
 *               ShapeExpr, one named `dtype` written as a string a DataTypeImm, the rest by
 *               convert_to_expr), and the Call is made by tvm_relax_call_new, whose inference
 *               errors are re-raised with `R.<op>` for `relax.<op>` and pointed at the argument
 *               or attribute they name.
 *   call forms  R.call_tir(gvar, args, out_sinfo, tir_vars=None) (also `out_ty=`; the printer's
 *               positional tir_vars R.shape([...]) third is recognised), R.call_tir_inplace(gvar,
 *               args, inplace_indices, out_sinfo, tir_vars=None), R.call_dps_packed(func, args,
 *               out_sinfo), R.call_packed(func, *args, sinfo_args=None),
 *               R.call_pure_packed(func, *args, sinfo_args=None), R.call_inplace_packed(func,
 *               *args, inplace_indices, sinfo_args=None), R.call_builtin_with_ctx(func,
 *               args, sinfo_args=None), R.call_tir_with_grad(gvar, args, out_sinfo,
 *               te_grad_name, te_grad_kwargs=None, tir_vars=None), R.invoke_closure(closure,
 *               args, sinfo_args=None) (and R.invoke_pure_closure), R.arange(start, end=None,
 *               step=1, dtype=None), R.eye(n, m=None, k=0, dtype="float32");
 *   values      R.const(value, dtype=None) (a number or nested lists, numpy's dtype rules as
 *               upstream: int -> int32, float -> float32), R.prim_value, R.str, R.dtype,
 *               R.shape([...]) (R.ShapeExpr(values) the same), R.tuple(*fields), R.TupleGetItem(tuple, index), R.ExternFunc(name),
 *               R.match_cast(value, sinfo)
 *               (a pair the binding statement takes apart).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h" /* tvm_script__name_hash */
#include "parse_tir_builtins_attr.h" /* tvm_script__index_map_of, tvm_script__b_vdevice */
#include "script_relax_internal.h"

extern const tvm_script_builtin tvm_script__relax_sinfo_builtins[];
extern const int32_t tvm_script__relax_sinfo_builtin_count;

static bool present(const TVMFFIAny* v) {
  return tvm_script_arg_given(v) && !tvm_ffi_any_is_none(v);
}

static const void* seq_of(const TVMFFIAny* v) {
  const void* s = tvm_ffi_any_as_object(v, kTVMFFIArray);
  return s ? s : tvm_ffi_any_as_object(v, kTVMFFIList);
}

static int ret(void* obj, TVMFFIAny* out) {
  if (!obj) return -1;
  *out = tvm_ffi_any_obj(obj);
  return 0;
}

static int fail_at(tvm_script_call* call, const char* spec, int i) {
  call->error_arg = tvm_script__arg_index(call, spec, i);
  return -1;
}

/* ---- Values to expressions ------------------------------------------------------------------- */
bool tvm_script__is_relax_value(const TVMFFIAny* v) {
  return tvm_ffi_any_is_object(v) && tvm_relax_is_expr(v->v_obj) &&
         !tvm_tir_is(v->v_obj, TVM_TIR_KIND_Op);
}

tvm_relax_expr_obj* tvm_script__relax_expr_of(const TVMFFIAny* v, const char* what) {
  switch (v->type_index) {
    case kTVMFFIInt: return tvm_relax_prim_value_int64(v->v_int64);
    case kTVMFFIBool:
    case kTVMFFIFloat: {
      tvm_tir_expr_obj* e = v->type_index == kTVMFFIBool
                                ? tvm_tir_const_int(tvm_tir_dtype_bool(), v->v_int64 != 0)
                                : tvm_tir_float_imm_new(tvm_tir_dtype_float(32), v->v_float64);
      tvm_relax_expr_obj* p = e ? tvm_relax_prim_value_new(e) : NULL;
      tvm_ffi_release(e);
      return p;
    }
    case kTVMFFIDataType: return tvm_relax_dtype_imm_new(v->v_dtype);
    default: break;
  }
  if (tvm_script__is_str(v)) {
    TVMFFIByteArray s;
    tvm_ffi_any_as_bytes(v, &s);
    return tvm_relax_string_imm_new(s.data, s.size);
  }
  const void* seq = seq_of(v);
  if (seq) {
    int64_t n = tvm_ffi_seq_size(seq);
    tvm_script_items it;
    if (!tvm_script_items_init(&it, n)) return NULL;
    for (int64_t i = 0; i < n; ++i) {
      tvm_relax_expr_obj* e = tvm_script__relax_expr_of(tvm_ffi_seq_at(seq, i), what);
      if (!e) {
        tvm_script_items_free(&it);
        return NULL;
      }
      tvm_script_items_push(&it, e);
    }
    void* arr = tvm_script_items_to_array(&it);
    tvm_script_items_free(&it);
    tvm_relax_expr_obj* t = arr ? tvm_relax_tuple_new(arr) : NULL;
    tvm_ffi_release(arr);
    return t;
  }
  if (tvm_script__is_relax_value(v)) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_relax_expr_obj*)v->v_obj;
  }
  if (tvm_ffi_any_is_object(v)) {
    void* o = v->v_obj;
    if (tvm_script__is_expr(o)) return tvm_relax_prim_value_new((tvm_tir_expr_obj*)o);
    if (tvm_ffi_type_index(o) == kTVMFFITensor) return tvm_relax_constant_new(o, NULL);
  }
  tvm_ffi_raise("TypeError", "%s must be a Relax expression, got %s", what,
                tvm_ffi_any_type_name(v));
  return NULL;
}

/* ---- The match_cast pair --------------------------------------------------------------------- */
static int32_t g_pair_index = -1;
static pthread_once_t g_pair_once = PTHREAD_ONCE_INIT;

static void pair_register(void) {
  int32_t idx = tvm_ffi_type_register("script.relax.MatchCastPair", kTVMFFIObject, -1,
                                      sizeof(tvm_script_match_cast_pair), NULL,
                                      kTVMFFISEqHashKindTreeNode);
  if (idx < 0) return;
  static const tvm_ffi_field_def fields[] = {
      TVM_FFI_FIELD(tvm_script_match_cast_pair, value, kTVMFFIObject, 0),
      TVM_FFI_FIELD(tvm_script_match_cast_pair, struct_info, kTVMFFIObject, 0),
  };
  if (tvm_ffi_type_add_fields(idx, fields, 2) == 0) g_pair_index = idx;
}

tvm_script_match_cast_pair* tvm_script__relax_match_cast_pair_new(tvm_relax_expr_obj* value,
                                                                  tvm_relax_sinfo_obj* sinfo) {
  pthread_once(&g_pair_once, pair_register);
  if (g_pair_index < 0) {
    if (!tvm_ffi_error_pending()) tvm_ffi_raise("RuntimeError", "MatchCastPair: no type");
    return NULL;
  }
  tvm_script_match_cast_pair* p = tvm_ffi_object_new(g_pair_index, sizeof(*p));
  if (!p) return NULL;
  tvm_ffi_retain(value);
  tvm_ffi_retain(sinfo);
  p->value = value;
  p->struct_info = sinfo;
  return p;
}

const tvm_script_match_cast_pair* tvm_script__relax_match_cast_pair(const TVMFFIAny* v) {
  if (!v || !tvm_ffi_any_is_object(v) || g_pair_index < 0) return NULL;
  return tvm_ffi_type_index(v->v_obj) == g_pair_index ? (const tvm_script_match_cast_pair*)v->v_obj : NULL;
}

/* "argument '<lit>' of R.<name>" into the char array buf (tvm_script__arg_label). */
#define ARG_LABEL(buf, lit, call) \
  tvm_script__arg_label((buf), sizeof(buf), (lit), sizeof(lit) - 1, (call)->name)

/* ---- Calls of values, tuple items ------------------------------------------------------------ */
tvm_relax_expr_obj* tvm_script__relax_call_value(const void* callee, const TVMFFIAny* args,
                                                 int32_t num_args, void* sinfo_args, void* attrs) {
  if (!tvm_relax_is_expr(callee) || tvm_tir_is(callee, TVM_TIR_KIND_Op)) {
    tvm_ffi_raise("TypeError", "a Relax call needs a function (a GlobalVar, a function variable "
                  "or an ExternFunc), got %s", callee ? tvm_ffi_type_key(tvm_ffi_type_index(callee)) : "None");
    return NULL;
  }
  tvm_script_items it;
  if (!tvm_script_items_init(&it, num_args)) return NULL;
  for (int32_t i = 0; i < num_args; ++i) {
    char what[48] = "";
    bool is_expr = tvm_ffi_any_is_object(&args[i]) && tvm_relax_is_expr(args[i].v_obj);
    if (!is_expr) snprintf(what, sizeof(what), "argument %d", i + 1); /* (for its message) */
    tvm_relax_expr_obj* e = tvm_script__relax_expr_of(&args[i], what);
    if (!e) {
      tvm_script_items_free(&it);
      return NULL;
    }
    tvm_script_items_push(&it, e);
  }
  void* arr = tvm_script_items_to_array(&it);
  tvm_script_items_free(&it);
  tvm_relax_expr_obj* c = arr ? tvm_relax_call_new((void*)callee, arr, attrs, sinfo_args, NULL) : NULL;
  tvm_ffi_release(arr);
  return c;
}

tvm_relax_expr_obj* tvm_script__relax_getitem(const TVMFFIAny* v, int64_t index) {
  tvm_relax_expr_obj* t = tvm_script__relax_expr_of(v, "the subscripted value");
  if (!t) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(t);
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_TupleStructInfo && index < 0) {
    int64_t n = tvm_ffi_seq_size(((tvm_relax_tuple_sinfo_obj*)s)->fields);
    if (index < -n) { /* (reported with the index as written) */
      tvm_ffi_release(t);
      tvm_ffi_raise("IndexError", "TupleGetItem: index %lld out of range for a tuple of %lld fields",
                    (long long)index, (long long)n);
      return NULL;
    }
    index += n; /* Python's x[-1] */
  }
  tvm_relax_expr_obj* g = tvm_relax_tuple_get_item_new(t, index);
  tvm_ffi_release(t);
  return g;
}

/* ---- Tensor fields: x.ndim, x.dtype.bits, x.shape[i], ... ------------------------------------- */
const char* tvm_script__relax_inspect_op(const char* field, bool dtype_field) {
  static const char* const kFields[][2] = {
      {"ndim", "relax.inspect.tensor_ndim"},
      {"byte_offset", "relax.inspect.tensor_byte_offset"},
      {"elem_offset", "relax.inspect.tensor_elem_offset"},
      {"shape", "relax.inspect.tensor_shape_i"},
      {"strides", "relax.inspect.tensor_stride_i"},
  };
  static const char* const kDtypeFields[][2] = {
      {"type_code", "relax.inspect.tensor_dtype_code"},
      {"bits", "relax.inspect.tensor_dtype_bits"},
      {"lanes", "relax.inspect.tensor_dtype_lanes"},
  };
  const char* const(*rows)[2] = dtype_field ? kDtypeFields : kFields;
  size_t n = dtype_field ? sizeof(kDtypeFields) / sizeof(kDtypeFields[0])
                         : sizeof(kFields) / sizeof(kFields[0]);
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(rows[i][0], field) == 0) return rows[i][1];
  }
  return NULL;
}

tvm_relax_expr_obj* tvm_script__relax_inspect(const char* op, const TVMFFIAny* x,
                                              const TVMFFIAny* axis) {
  tvm_relax_expr_obj* t = tvm_script__relax_expr_of(x, "the inspected tensor");
  tvm_relax_expr_obj* a = t && axis ? tvm_script__relax_expr_of(axis, "the axis") : NULL;
  tvm_relax_expr_obj* c = NULL;
  if (t && (a || !axis)) {
    c = a ? tvm_relax_call_op(op, NULL, 2, t, a) : tvm_relax_call_op(op, NULL, 1, t);
  }
  tvm_ffi_release(a);
  tvm_ffi_release(t);
  return c;
}

/* ---- Operators: the generic builtin ---------------------------------------------------------- */
/* A parameter of an operator's Python signature: argument `index` of the row, or attribute
 * `index` of its schema, or (index SINFO_ARGS) the keyword sinfo_args, the Call's struct info
 * arguments, which every operator takes (the printer writes them when a Call has some). */
enum { SINFO_ARGS = -1 };
typedef struct {
  const char* name;
  uint8_t len;
  bool is_attr;
  bool optional;
  int8_t index;
} op_param;

enum { OP_MAX_PARAMS = 24 };

typedef struct {
  const tvm_relax_op_info* info;
  char spec[400]; /* the signature as tvm_script__bind_args reads it (static storage) */
  op_param params[OP_MAX_PARAMS];
  int n_params;
  int n_fixed;    /* arguments taken positionally before a variadic one */
  bool variadic;  /* the row's last argument takes the rest */
  int var_param;  /* the keyword parameter of the variadic argument (a list), or -1 */
  bool reordered; /* the arguments' Python order is not the row's (arg_order) */
  bool ok;
} op_sig;

static op_sig g_sigs[TVM_RELAX_OP_COUNT];
static pthread_once_t g_sigs_once = PTHREAD_ONCE_INIT;

/* Rows whose Python signature orders the attributes differently from the schema (upstream's
 * relax.op wrappers), and arguments upstream's wrappers default. */
static const char* attr_order(tvm_relax_op_id id) {
  switch (id) {
    case TVM_RELAX_OP_nn_pad: return "pad_width, pad_mode, pad_value";
    case TVM_RELAX_OP_nn_max_pool2d:
    case TVM_RELAX_OP_nn_avg_pool2d:
    case TVM_RELAX_OP_grad_max_pool2d_backward:
    case TVM_RELAX_OP_grad_avg_pool2d_backward:
    case TVM_RELAX_OP_nn_max_pool3d:
    case TVM_RELAX_OP_nn_avg_pool3d:
    case TVM_RELAX_OP_nn_max_pool1d:
    case TVM_RELAX_OP_nn_avg_pool1d:
      return "pool_size, strides, padding, dilation, ceil_mode, count_include_pad, layout, "
             "out_layout";
    default: return NULL;
  }
}

/* Rows whose Python signature orders the arguments differently from the Call (upstream's
 * wrapper): the row's argument names in that order. */
static const char* arg_order(tvm_relax_op_id id) {
  if (id == TVM_RELAX_OP_nn_attention_var_len) {
    return "queries, keys, values, seqstart_q, max_seqlen_q, seqstart_k?, max_seqlen_k?";
  }
  return NULL;
}

/* R.nn.attention_var_len(..., seqstart_q, max_seqlen_q, seqstart_k=None, max_seqlen_k=None):
 * an absent key argument is the query one (upstream's wrapper), the parameter of that index. */
static int arg_defaults_twin(tvm_relax_op_id id, const char* name, size_t len) {
  if (id != TVM_RELAX_OP_nn_attention_var_len) return -1;
  if (len == 10 && memcmp(name, "seqstart_k", 10) == 0) return 3;
  if (len == 12 && memcmp(name, "max_seqlen_k", 12) == 0) return 4;
  return -1;
}

/* The index of argument name[0, len) in the row's list of argument names, or -1. */
static int row_arg_index(const tvm_relax_op_info* info, const char* name, size_t len) {
  int i = 0;
  for (const char* p = info->arg_names; *p; ++i) {
    while (*p == ' ' || *p == ',') ++p;
    size_t n = strcspn(p, ",?. ");
    if (n == len && memcmp(p, name, len) == 0) return i;
    p += strcspn(p, ",");
  }
  return -1;
}

/* R.cumsum / R.cumprod's exclusive=None is exclusive=False (upstream's wrappers: `if exclusive
 * is None: exclusive = False`). */
static bool attr_none_is_default(tvm_relax_op_id id, const char* name) {
  return (id == TVM_RELAX_OP_cumsum || id == TVM_RELAX_OP_cumprod) &&
         strcmp(name, "exclusive") == 0;
}

static bool arg_defaults_zero(tvm_relax_op_id id, const char* name, size_t len) {
  return (id == TVM_RELAX_OP_tril || id == TVM_RELAX_OP_triu || id == TVM_RELAX_OP_eye_like) &&
         len == 1 && name[0] == 'k';
}

/* R.memory.view(data, shape=None, dtype=None, relative_byte_offset=None): an absent or None
 * argument, or `()`, is "void", the empty tuple (upstream's wrapper). */
static bool arg_defaults_void(tvm_relax_op_id id, const char* name, size_t len) {
  return id == TVM_RELAX_OP_memory_view && !(len == 4 && memcmp(name, "data", 4) == 0);
}

/* R.vm.alloc_storage(shape, runtime_device_index, dtype, storage_scope="global") (upstream's
 * wrapper). */
static bool arg_defaults_global(tvm_relax_op_id id, const char* name, size_t len) {
  return id == TVM_RELAX_OP_vm_alloc_storage && len == 13 && memcmp(name, "storage_scope", 13) == 0;
}

/* R.unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
 * axis=None): the flags' defaults (*out), as upstream's wrapper writes them. */
static bool arg_defaults_flag(tvm_relax_op_id id, const char* name, size_t len, int64_t* out) {
  if (id != TVM_RELAX_OP_unique) return false;
  bool sorted = len == 6 && memcmp(name, "sorted", 6) == 0;
  *out = sorted;
  return sorted || (len > 7 && memcmp(name, "return_", 7) == 0);
}

static tvm_relax_expr_obj* void_tuple(void) {
  void* empty = tvm_ffi_array_new(NULL, 0);
  tvm_relax_expr_obj* t = empty ? tvm_relax_tuple_new(empty) : NULL;
  tvm_ffi_release(empty);
  return t;
}

static void sig_append(op_sig* s, size_t* at, const char* prefix, const char* name, size_t len,
                       bool optional) {
  int w = snprintf(s->spec + *at, sizeof(s->spec) - *at, "%s%s%.*s%s", *at ? ", " : "", prefix,
                   (int)len, name, optional ? "=" : "");
  if (w < 0 || (size_t)w >= sizeof(s->spec) - *at) {
    s->ok = false;
    return;
  }
  *at += (size_t)w;
}

static void sig_build(op_sig* s, const tvm_relax_op_info* info) {
  s->info = info;
  s->ok = true;
  s->var_param = -1;
  size_t at = 0;
  /* The arguments: "x1, x2", "x, k?", "func, args...". */
  const char* p = arg_order(info->id) ? arg_order(info->id) : info->arg_names;
  s->reordered = p != info->arg_names;
  int8_t arg_i = 0;
  while (*p) {
    while (*p == ' ' || *p == ',') ++p;
    if (!*p) break;
    const char* name = p;
    while (*p && *p != ',' && *p != '?' && *p != '.' && *p != ' ') ++p;
    size_t len = (size_t)(p - name);
    bool optional = *p == '?', variadic = *p == '.';
    while (*p && *p != ',') ++p;
    if (s->n_params == OP_MAX_PARAMS) {
      s->ok = false;
      return;
    }
    op_param* q = &s->params[s->n_params];
    *q = (op_param){name, (uint8_t)len, false, optional, arg_i++};
    if (s->reordered && (q->index = (int8_t)row_arg_index(info, name, len)) < 0) {
      s->ok = false; /* (arg_order names an argument the row has not) */
      return;
    }
    if (variadic) {
      s->variadic = true;
      s->var_param = s->n_params;
      q->optional = true;
      sig_append(s, &at, "*", name, len, true);
    } else {
      s->n_fixed++;
      q->optional = optional || arg_defaults_zero(info->id, name, len) ||
                    arg_defaults_void(info->id, name, len) ||
                    arg_defaults_global(info->id, name, len) ||
                    arg_defaults_flag(info->id, name, len, &(int64_t){0});
      sig_append(s, &at, "", name, len, q->optional);
    }
    s->n_params++;
  }
  /* The attributes, in upstream's order where it differs. */
  const char* order = attr_order(info->id);
  for (int32_t k = 0; k < info->num_attrs; ++k) {
    int32_t i = k;
    if (order) {
      /* the k-th name of order */
      const char* o = order;
      for (int32_t j = 0; j < k && o; ++j) {
        o = strchr(o, ',');
        if (o) o += 2;
      }
      size_t len = o ? strcspn(o, ",") : 0;
      char buf[64];
      snprintf(buf, sizeof(buf), "%.*s", (int)len, o ? o : "");
      i = tvm_relax_op_attr_index(info, buf);
      if (i < 0) {
        s->ok = false;
        return;
      }
    }
    const tvm_relax_attr_field* f = &info->attrs[i];
    if (s->n_params == OP_MAX_PARAMS) {
      s->ok = false;
      return;
    }
    bool optional = f->default_text != NULL;
    s->params[s->n_params++] = (op_param){f->name, (uint8_t)strlen(f->name), true, optional, (int8_t)i};
    sig_append(s, &at, s->variadic ? "*" : "", f->name, strlen(f->name), optional);
  }
  if (s->n_params == OP_MAX_PARAMS) {
    s->ok = false;
    return;
  }
  s->params[s->n_params++] = (op_param){"sinfo_args", 10, false, true, SINFO_ARGS};
  sig_append(s, &at, "*", "sinfo_args", 10, true);
}

static void sigs_build(void) {
  for (int id = 0; id < TVM_RELAX_OP_COUNT; ++id) {
    const tvm_relax_op_info* info = tvm_relax_op_info_get((tvm_relax_op_id)id);
    if (info) sig_build(&g_sigs[id], info);
  }
}

/* The name the error message of librelax names ("argument 'x1'", "attribute 'strides'"): the
 * parameter's index in sig, or -1. */
static int param_named_in(const op_sig* s, const char* msg) {
  for (const char* p = msg; (p = strchr(p, '\'')) != NULL; ++p) {
    const char* end = strchr(p + 1, '\'');
    if (!end) break;
    size_t len = (size_t)(end - p - 1);
    for (int i = 0; i < s->n_params; ++i) {
      if (s->params[i].len == len && memcmp(s->params[i].name, p + 1, len) == 0) return i;
    }
    p = end;
  }
  return -1;
}

/* Re-raise the pending error of an operator call in the script's words: `relax.add:` -> `R.add:`,
 * located at the parameter the message names (by its name: the spec of a call form such as
 * R.call_tir_inplace orders its parameters otherwise than the operator's signature). */
static int reraise(tvm_script_call* call, const op_sig* s, const char* spec) {
  void* e = tvm_ffi_error_take();
  if (!e) return -1;
  const char* msg = tvm_ffi_error_message(e);
  int param = param_named_in(s, msg);
  if (param >= 0) {
    const op_param* p = &s->params[param];
    int32_t at = tvm_script__arg_index_named(call, spec, p->name, p->len);
    if (at >= 0) call->error_arg = at;
  }
  size_t n = strlen(s->info->name);
  const char* rest = strncmp(msg, s->info->name, n) == 0 ? msg + n : NULL;
  if (rest) {
    tvm_ffi_raise(tvm_ffi_error_kind(e), "R.%s%s", s->info->name + strlen("relax."), rest);
  } else {
    tvm_ffi_raise(tvm_ffi_error_kind(e), "%s: %s", call->name, msg);
  }
  tvm_ffi_release(e);
  return -1;
}

/* An argument of an operator, converted as upstream's wrapper converts it. */
static tvm_relax_expr_obj* op_arg(tvm_script_call* call, const op_param* p, const TVMFFIAny* v) {
  if (tvm_ffi_any_is_object(v) && tvm_relax_is_expr(v->v_obj)) { /* most arguments: as it is */
    tvm_ffi_retain(v->v_obj);
    return (tvm_relax_expr_obj*)v->v_obj;
  }
  char what[160]; /* (only for values that convert, and their messages) */
  tvm_script__arg_label(what, sizeof(what), p->name, p->len, call->name);
  bool shape_like = (p->len == 5 && memcmp(p->name, "shape", 5) == 0) ||
                    (p->len == 4 && memcmp(p->name, "size", 4) == 0);
  if (shape_like && seq_of(v)) {
    void* dims = tvm_script__value_to_expr_array(v, what);
    tvm_relax_expr_obj* e = dims ? tvm_relax_shape_expr_new(dims) : NULL;
    tvm_ffi_release(dims);
    return e;
  }
  if (p->len == 5 && memcmp(p->name, "dtype", 5) == 0 && (tvm_script__is_str(v) || v->type_index == kTVMFFIDataType)) {
    DLDataType t;
    if (tvm_script__value_to_dtype(v, what, &t) != 0) return NULL;
    return tvm_relax_dtype_imm_new(t);
  }
  return tvm_script__relax_expr_of(v, what);
}

/* resize2d / resize3d's size written as one dim or a sequence of one, affine_grid's as one dim,
 * or roi as one number (upstream's wrappers repeat it: size 8 or (8,) is (8, 8), roi 0.5 is four
 * 0.5s): *out (owned) the tuple, per spatial axis for size and twice that for roi; false when v
 * is written otherwise. */
static bool resize_repeated(tvm_relax_op_id id, const op_param* p, const TVMFFIAny* v,
                            TVMFFIAny* out) {
  bool resize = id == TVM_RELAX_OP_image_resize2d || id == TVM_RELAX_OP_image_resize3d;
  int n = id == TVM_RELAX_OP_image_resize3d ? 3 : 2;
  bool size = p->len == 4 && memcmp(p->name, "size", 4) == 0;
  bool roi = resize && p->len == 3 && memcmp(p->name, "roi", 3) == 0;
  if (!(size && (resize || id == TVM_RELAX_OP_image_affine_grid)) && !roi) return false;
  const void* seq = resize && size ? seq_of(v) : NULL;
  if (seq && tvm_ffi_seq_size(seq) == 1) v = tvm_ffi_seq_at(seq, 0);
  bool one = size ? v->type_index == kTVMFFIInt ||
                        (tvm_ffi_any_is_object(v) && tvm_tir_is_expr(v->v_obj))
                  : v->type_index == kTVMFFIFloat || v->type_index == kTVMFFIInt;
  if (!one) return false;
  if (roi) n *= 2;
  TVMFFIAny item = *v;
  if (roi && v->type_index == kTVMFFIInt) item = tvm_ffi_any_float((double)v->v_int64);
  TVMFFIAny items[6];
  for (int k = 0; k < n; ++k) items[k] = item;
  void* arr = tvm_ffi_array_new(items, n);
  *out = arr ? tvm_ffi_any_obj(arr) : tvm_ffi_any_none();
  return arr != NULL;
}

/* layout_transform's pad_value written as a number: a PrimValue of x's dtype (*out; NULL when
 * v is no number or x's dtype is unknown), as upstream's wrapper converts it. */
static int pad_number(const TVMFFIAny* x, const TVMFFIAny* v, tvm_relax_expr_obj** out) {
  *out = NULL;
  bool is_int = v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool;
  if (!is_int && v->type_index != kTVMFFIFloat) return 0;
  const void* xs = tvm_ffi_any_is_object(x) && tvm_relax_is_expr(x->v_obj)
                       ? tvm_relax_sinfo_of(x->v_obj)
                       : NULL;
  if (tvm_relax_kind_of(xs) != TVM_RELAX_KIND_TensorStructInfo) return 0;
  DLDataType t = ((const tvm_relax_tensor_sinfo_obj*)xs)->dtype;
  bool fl = tvm_tir_dtype_is_floating(t);
  if (!fl && !(t.code == kDLInt || t.code == kDLUInt)) return 0;
  if (!fl && !is_int) {
    return tvm_ffi_raise("TypeError", "attribute 'pad_value' of R.layout_transform: %g is not a "
                         "value of the input's dtype %s", v->v_float64, tvm_tir_dtype_str(t).s);
  }
  double d = is_int ? (double)v->v_int64 : v->v_float64;
  tvm_tir_expr_obj* c = fl ? tvm_tir_const_float(t, d) : tvm_tir_const_int(t, v->v_int64);
  *out = c ? tvm_relax_prim_value_new(c) : NULL;
  tvm_ffi_release(c);
  return *out ? 0 : -1;
}

static bool param_is(const op_param* p, const char* name) {
  return strlen(name) == p->len && memcmp(p->name, name, p->len) == 0;
}

/* The attribute entries of parameter p, given the value v (x: the call's first argument), as
 * upstream's wrappers convert them: keys[k] and vals[k] (owned) for each entry made. Returns
 * how many (one, or two for hint_on_device's device: its type and index), or -1 with an error
 * raised (the caller locates it at the argument). */
static int attr_entries(tvm_script_call* call, tvm_relax_op_id id, const op_param* p,
                        const TVMFFIAny* v, const TVMFFIAny* x, TVMFFIAny keys[2],
                        TVMFFIAny vals[2]) {
  bool dist = id == TVM_RELAX_OP_dist_annotate_sharding || id == TVM_RELAX_OP_dist_redistribute;
  const char* key = NULL; /* NULL: the parameter's name */
  TVMFFIAny val = tvm_ffi_any_none(); /* the converted value (owned); none: v as written */
  void* obj = NULL;                   /* or this object (owned) */
  if (id == TVM_RELAX_OP_hint_on_device && v->type_index == kTVMFFIDevice) {
    /* R.hint_on_device(x, R.device(t, i)): the device's type and index */
    keys[0] = tvm_ffi_string("device_type");
    vals[0] = tvm_ffi_any_int(v->v_device.device_type);
    keys[1] = tvm_ffi_string("index");
    vals[1] = tvm_ffi_any_int(v->v_device.device_id);
    return 2;
  } else if (id == TVM_RELAX_OP_hint_on_device && tvm_script__is_str(v) && param_is(p, "index")) {
    /* R.hint_on_device(x, R.device(...), "scope"): the third is the memory scope */
    key = "memory_scope";
  } else if (id == TVM_RELAX_OP_to_vdevice && tvm_script__is_str(v)) {
    /* dst_vdevice="llvm:0": the module's virtual device of that name */
    obj = tvm_script__relax_vdevice_by_name(call, v, "attribute 'dst_vdevice' of R.to_vdevice");
    if (!obj) return -1;
  } else if (dist && param_is(p, "device_mesh")) {
    /* device_mesh="mesh[0]": the module's mesh of that name (or an R.device_mesh) */
    obj = tvm_script__relax_mesh_of(call, v, "attribute 'device_mesh'");
    if (!obj) return -1;
  } else if (dist && param_is(p, "placement")) {
    /* the placement in its canonical text ("S[1],R" -> "S[1], R") */
    void* pl = tvm_script__relax_placement_of(v, "attribute 'placement'");
    if (!pl) return -1;
    tvm_ffi_strbuf text = {0};
    tvm_relax_placement_text(&text, pl);
    tvm_ffi_release(pl);
    val = tvm_ffi_string(tvm_ffi_strbuf_cstr(&text));
    tvm_ffi_strbuf_free(&text);
  } else if (id == TVM_RELAX_OP_layout_transform && param_is(p, "index_map") &&
             v->type_index == kTVMFFIFunction) {
    /* index_map=lambda i, j: (j, i): an IndexMap over int64 indices, as upstream's wrapper
     * makes one of a callable */
    obj = tvm_script__index_map_of(v, TVM_TIR_INT64, NULL,
                                   "attribute 'index_map' of R.layout_transform");
    if (!obj) return -1;
  } else if (id == TVM_RELAX_OP_layout_transform && param_is(p, "pad_value")) {
    tvm_relax_expr_obj* pv = NULL; /* (NULL: not a number, kept as written) */
    if (pad_number(x, v, &pv) != 0) return -1;
    obj = pv;
  } else {
    resize_repeated(id, p, v, &val); /* (size=8 is (8, 8) ...) */
  }
  if (obj) val = tvm_ffi_any_obj(obj);
  if (tvm_ffi_any_is_none(&val)) val = tvm_ffi_any_copy(v); /* as written */
  keys[0] = key ? tvm_ffi_string(key) : tvm_ffi_string_n(p->name, p->len);
  vals[0] = val;
  return 1;
}

static int op_call(tvm_script_call* call, tvm_relax_op_id id, TVMFFIAny* out) {
  pthread_once(&g_sigs_once, sigs_build);
  const op_sig* s = &g_sigs[id];
  if (!s->ok) {
    return tvm_ffi_raise("RuntimeError", "%s: the operator's signature could not be built",
                         call->name);
  }
  /* A variadic row: the positional arguments past the fixed ones are the variadic argument. */
  tvm_script_call bound_call = *call;
  int32_t extra = 0;
  if (s->variadic && call->num_args > s->n_fixed) {
    extra = call->num_args - s->n_fixed;
    bound_call.num_args = s->n_fixed;
  }
  TVMFFIAny v[OP_MAX_PARAMS];
  if (tvm_script__bind_args(&bound_call, s->spec, v, s->n_params) != 0) {
    call->error_arg = bound_call.error_arg;
    if (call->error_arg >= bound_call.num_args) call->error_arg += extra; /* a keyword */
    return -1;
  }
  /* The variadic argument's items: the extra positional arguments, or a list by keyword. */
  const TVMFFIAny* var_items = call->args + s->n_fixed;
  int64_t var_n = extra;
  if (s->variadic && tvm_script_arg_given(&v[s->var_param])) {
    const op_param* p = &s->params[s->var_param];
    if (extra > 0) {
      tvm_ffi_raise("TypeError", "%s() got multiple values for argument '%.*s'", call->name,
                    (int)p->len, p->name);
      return fail_at(call, s->spec, s->var_param);
    }
    const void* seq = seq_of(&v[s->var_param]);
    var_items = seq ? tvm_ffi_seq_at(seq, 0) : &v[s->var_param];
    var_n = seq ? tvm_ffi_seq_size(seq) : 1;
  }
  tvm_script_items args;
  if (!tvm_script_items_init(&args, s->n_fixed + var_n)) return -1;
  TVMFFIAny keys[OP_MAX_PARAMS + 1], vals[OP_MAX_PARAMS + 1]; /* (attr_entries: one makes 2) */
  int n_attrs = 0;
  int rc = 0;
  bool absent_arg = false;
  void* sinfo_args = NULL;
  for (int i = 0; rc == 0 && i < s->n_params; ++i) {
    const op_param* p = &s->params[i];
    if (p->index == SINFO_ARGS && !p->is_attr) {
      if (!present(&v[i])) continue;
      char what[96];
      ARG_LABEL(what, "sinfo_args", call);
      sinfo_args = tvm_script__relax_sinfo_list(&v[i], what, false);
      if (!sinfo_args) rc = fail_at(call, s->spec, i);
      continue;
    }
    if (p->is_attr) {
      if (!tvm_script_arg_given(&v[i])) continue;
      /* dtype=None is the schema's "unspecified". */
      const tvm_relax_attr_field* field = &s->info->attrs[(int)p->index];
      if (tvm_ffi_any_is_none(&v[i]) &&
          (field->kind == TVM_RELAX_ATTR_DTYPE || attr_none_is_default(s->info->id, field->name))) {
        continue;
      }
      int made =
          attr_entries(call, s->info->id, p, &v[i], &v[0], keys + n_attrs, vals + n_attrs);
      if (made < 0) {
        rc = fail_at(call, s->spec, i);
        break;
      }
      n_attrs += made;
      continue;
    }
    if (i == s->var_param) {
      for (int64_t k = 0; rc == 0 && k < var_n; ++k) {
        tvm_relax_expr_obj* e = op_arg(call, p, &var_items[k]);
        if (!e) {
          rc = -1;
          if (extra > 0) call->error_arg = s->n_fixed + (int32_t)k;
          else fail_at(call, s->spec, i);
        } else {
          tvm_script_items_push(&args, e);
        }
      }
      continue;
    }
    if (arg_defaults_void(s->info->id, p->name, p->len) &&
        (!tvm_script_arg_given(&v[i]) || tvm_ffi_any_is_none(&v[i]) ||
         (seq_of(&v[i]) && tvm_ffi_seq_size(seq_of(&v[i])) == 0))) {
      /* (`()`, as the printer writes the empty tuple, too: R.shape([]) is a scalar view) */
      tvm_relax_expr_obj* z = void_tuple();
      if (!z) rc = -1;
      else tvm_script_items_push(&args, z);
      continue;
    }
    /* (an optional argument given as None is not given: upstream's wrappers default them to
     * None, `strides=None`, `bias=None`) */
    int64_t flag;
    bool is_flag = arg_defaults_flag(s->info->id, p->name, p->len, &flag);
    if (is_flag && tvm_script_arg_given(&v[i]) && v[i].type_index == kTVMFFIBool) {
      /* upstream's wrapper makes a Python bool PrimValue(b), an int64 0 or 1 */
      flag = v[i].v_int64 != 0;
    } else if (is_flag && tvm_script_arg_given(&v[i])) {
      is_flag = false; /* (given otherwise: converted as any argument) */
    }
    if (is_flag) {
      tvm_relax_expr_obj* z = tvm_relax_prim_value_int64(flag);
      if (!z) rc = -1;
      else tvm_script_items_push(&args, z);
      continue;
    }
    if (!tvm_script_arg_given(&v[i]) || (p->optional && tvm_ffi_any_is_none(&v[i]))) {
      if (arg_defaults_zero(s->info->id, p->name, p->len) ||
          arg_defaults_global(s->info->id, p->name, p->len)) {
        tvm_relax_expr_obj* z = arg_defaults_zero(s->info->id, p->name, p->len)
                                    ? tvm_relax_prim_value_int64(0)
                                    : tvm_relax_string_imm_new("global", 6);
        if (!z) rc = -1;
        else tvm_script_items_push(&args, z);
        continue;
      }
      int twin = arg_defaults_twin(s->info->id, p->name, p->len);
      if (twin >= 0) {
        tvm_ffi_retain(args.items[twin].v_obj);
        tvm_script_items_push(&args, args.items[twin].v_obj);
        continue;
      }
      absent_arg = true; /* an optional trailing argument ("strides?") */
      continue;
    }
    if (absent_arg) {
      rc = tvm_ffi_raise("TypeError", "%s(): argument '%.*s' is given but an optional argument "
                         "before it is not", call->name, (int)p->len, p->name);
      fail_at(call, s->spec, i);
      break;
    }
    TVMFFIAny rep;
    bool repeated = resize_repeated(s->info->id, p, &v[i], &rep);
    tvm_relax_expr_obj* e = op_arg(call, p, repeated ? &rep : &v[i]);
    if (repeated) tvm_ffi_any_release(&rep);
    if (!e) {
      rc = fail_at(call, s->spec, i);
      break;
    }
    tvm_script_items_push(&args, e);
  }
  if (rc == 0 && s->reordered && args.n == s->n_fixed) {
    /* the arguments, pushed in the Python order, into the Call's (all present: defaulted) */
    TVMFFIAny row[OP_MAX_PARAMS];
    for (int64_t k = 0; k < args.n; ++k) row[s->params[k].index] = args.items[k];
    memcpy(args.items, row, (size_t)args.n * sizeof(TVMFFIAny));
  }
  void* arr = rc == 0 ? tvm_script_items_to_array(&args) : NULL;
  tvm_script_items_free(&args);
  void* attrs = rc == 0 && arr && n_attrs > 0 ? tvm_ffi_map_new(keys, vals, n_attrs) : NULL;
  for (int k = 0; k < n_attrs; ++k) {
    tvm_ffi_any_release(&keys[k]);
    tvm_ffi_any_release(&vals[k]);
  }
  if (rc != 0 || !arr || (n_attrs > 0 && !attrs)) {
    tvm_ffi_release(arr);
    tvm_ffi_release(attrs);
    tvm_ffi_release(sinfo_args);
    return -1;
  }
  tvm_relax_expr_obj* c = tvm_relax_call_new(tvm_relax_op(id), arr, attrs, sinfo_args, NULL);
  tvm_script__relax_note_inferred(call->builder, c);
  tvm_ffi_release(arr);
  tvm_ffi_release(attrs);
  tvm_ffi_release(sinfo_args);
  if (!c) return reraise(call, s, s->spec);
  return ret(c, out);
}

/* One builtin per row (the row's id fixed in it). */
#define TVM_RELAX_OP(Id, name, args, attrs, infer, pattern, purity) \
  static int op_##Id(tvm_script_call* c, TVMFFIAny* out) { return op_call(c, TVM_RELAX_OP_##Id, out); }
#include <tvm/relax/ops.def>

static const tvm_script_builtin k_op_builtins[TVM_RELAX_OP_COUNT] = {
#define TVM_RELAX_OP(Id, name, args, attrs, infer, pattern, purity) \
  [TVM_RELAX_OP_##Id] = {name + 6 /* without "relax." */, op_##Id, 0, false},
#include <tvm/relax/ops.def>
};

/* ---- Call forms ------------------------------------------------------------------------------ */
/* args of call_tir & co: a tuple value as it is; one expression that is not a tuple in a Tuple. */
static tvm_relax_expr_obj* tuple_args(const TVMFFIAny* v, const char* what) {
  tvm_relax_expr_obj* e = tvm_script__relax_expr_of(v, what);
  if (!e || tvm_relax_kind_of(tvm_relax_sinfo_of(e)) == TVM_RELAX_KIND_TupleStructInfo) return e;
  TVMFFIAny item = tvm_ffi_any_obj(e);
  void* arr = tvm_ffi_array_new_take(&item, 1);
  tvm_relax_expr_obj* t = arr ? tvm_relax_tuple_new(arr) : NULL;
  tvm_ffi_release(arr);
  return t;
}

/* Whether v reads as a struct info argument (a struct info, or a list of them). */
static bool is_sinfo_value(const TVMFFIAny* v) {
  if (tvm_ffi_any_is_object(v) && tvm_relax_is_sinfo(v->v_obj)) return true;
  const void* seq = seq_of(v);
  if (!seq || tvm_ffi_seq_size(seq) == 0) return false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq); ++i) {
    const TVMFFIAny* e = tvm_ffi_seq_at(seq, i);
    if (!tvm_ffi_any_is_object(e) || !tvm_relax_is_sinfo(e->v_obj)) return false;
  }
  return true;
}

/* tir_vars: a shape value, or a tuple / list of PrimExprs (a ShapeExpr of them). */
static tvm_relax_expr_obj* tir_vars_of(const TVMFFIAny* v, const char* what) {
  if (seq_of(v)) {
    void* dims = tvm_script__value_to_expr_array(v, what);
    tvm_relax_expr_obj* e = dims ? tvm_relax_shape_expr_new(dims) : NULL;
    tvm_ffi_release(dims);
    return e;
  }
  return tvm_script__relax_expr_of(v, what);
}

/* call_tir / call_tir_inplace / call_dps_packed: the Call of op with the bound parameters
 * (func, args, [inplace_indices,] out_sinfo, tir_vars, out_ty at fixed slots). */
static int dps_call_attrs(tvm_script_call* call, tvm_relax_op_id id, const char* spec, TVMFFIAny* a,
                          int i_out, int i_tir, int i_out_ty, int i_inplace, void* given_attrs,
                          TVMFFIAny* out) {
  if (present(&a[i_out]) && present(&a[i_out_ty])) {
    call->error_arg = tvm_script__arg_index(call, spec, i_out_ty);
    return tvm_ffi_raise("TypeError", "%s() got both out_sinfo and out_ty", call->name);
  }
  int i_sinfo = present(&a[i_out]) ? i_out : i_out_ty;
  if (!present(&a[i_sinfo])) {
    return tvm_ffi_raise("ValueError", "%s() needs out_sinfo, the struct info of its result (a "
                         "tensor's, or a list of them for a tuple)", call->name);
  }
  char what[96];
  ARG_LABEL(what, "out_sinfo", call);
  void* sinfo_args = tvm_script__relax_sinfo_list(&a[i_sinfo], what, true);
  if (!sinfo_args) return fail_at(call, spec, i_sinfo);
  /* func: a GlobalVar (cls.f), or for call_dps_packed a packed function's name. */
  tvm_relax_expr_obj* func = NULL;
  if (tvm_script__is_str(&a[0])) {
    func = tvm_relax_extern_func_new(tvm_script__value_to_cstr(&a[0], "func"), NULL);
  } else if (tvm_ffi_any_is_object(&a[0]) && tvm_relax_is_expr(a[0].v_obj)) {
    tvm_ffi_retain(a[0].v_obj);
    func = (tvm_relax_expr_obj*)a[0].v_obj;
  } else {
    tvm_ffi_raise("TypeError", "argument 'func' of %s must be a function (cls.f, or a packed "
                  "function's name), got %s", call->name, tvm_ffi_any_type_name(&a[0]));
  }
  ARG_LABEL(what, "args", call);
  tvm_relax_expr_obj* args = func ? tuple_args(&a[1], what) : NULL;
  tvm_relax_expr_obj* tir = NULL;
  int rc = func ? (args ? 0 : fail_at(call, spec, 1)) : fail_at(call, spec, 0);
  if (rc == 0 && i_tir >= 0 && present(&a[i_tir])) {
    ARG_LABEL(what, "tir_vars", call);
    tir = tir_vars_of(&a[i_tir], what);
    if (!tir) rc = fail_at(call, spec, i_tir);
  }
  void* attrs = NULL;
  if (rc == 0 && given_attrs) {
    tvm_ffi_retain(given_attrs);
    attrs = given_attrs;
  } else if (rc == 0 && i_inplace >= 0) {
    if (!present(&a[i_inplace])) {
      rc = tvm_ffi_raise("TypeError", "%s() missing required argument 'inplace_indices'",
                         call->name);
    } else {
      TVMFFIAny k = tvm_ffi_string("inplace_indices");
      attrs = tvm_ffi_map_new(&k, &a[i_inplace], 1);
      tvm_ffi_any_release(&k);
      if (!attrs) rc = -1;
    }
  }
  void* items[3] = {func, args, tir};
  void* arr = rc == 0 ? tvm_ffi_array_of_objects(items, tir ? 3 : 2) : NULL;
  tvm_relax_expr_obj* c = arr ? tvm_relax_call_new(tvm_relax_op(id), arr, attrs, sinfo_args, NULL) : NULL;
  tvm_script__relax_note_inferred(call->builder, c);
  tvm_ffi_release(arr);
  tvm_ffi_release(attrs);
  tvm_ffi_release(func);
  tvm_ffi_release(args);
  tvm_ffi_release(tir);
  tvm_ffi_release(sinfo_args);
  if (!c && rc == 0) {
    pthread_once(&g_sigs_once, sigs_build);
    return reraise(call, &g_sigs[id], spec);
  }
  return ret(c, out);
}

static int dps_call(tvm_script_call* call, tvm_relax_op_id id, const char* spec, TVMFFIAny* a,
                    int i_out, int i_tir, int i_out_ty, int i_inplace, TVMFFIAny* out) {
  return dps_call_attrs(call, id, spec, a, i_out, i_tir, i_out_ty, i_inplace, NULL, out);
}

/* The printer writes call_tir's tir_vars third, positionally, before `out_sinfo=` (and
 * call_tir_inplace's before `inplace_indices=`), where upstream's signature has out_sinfo /
 * inplace_indices: such a third argument (a shape value, not a struct info or a list of
 * indices) binds as `tir_vars=`. Binds call to spec into a, with error_arg in call's terms. */
static int bind_dps(tvm_script_call* call, const char* spec, TVMFFIAny* a, int n) {
  const TVMFFIAny* third = call->num_args == 3 ? &call->args[2] : NULL;
  bool tir_third = third && tvm_ffi_any_is_object(third) &&
                   tvm_relax_is_expr(third->v_obj) && !is_sinfo_value(third);
  if (!tir_third) return tvm_script__bind_args(call, spec, a, n);
  enum { MAX_KW = 8 };
  if (call->num_kwargs >= MAX_KW) return tvm_script__bind_args(call, spec, a, n);
  const char* names[MAX_KW + 1];
  TVMFFIAny values[MAX_KW + 1];
  for (int32_t k = 0; k < call->num_kwargs; ++k) {
    names[k] = call->kw_names[k];
    values[k] = call->kwargs[k];
  }
  names[call->num_kwargs] = "tir_vars";
  values[call->num_kwargs] = *third;
  tvm_script_call c2 = *call;
  c2.num_args = 2;
  c2.num_kwargs = call->num_kwargs + 1;
  c2.kw_names = names;
  c2.kwargs = values;
  int rc = tvm_script__bind_args(&c2, spec, a, n);
  if (rc != 0) {
    int32_t e = c2.error_arg;
    /* (c2's keyword k is call's keyword k; its last keyword is call's argument 2) */
    call->error_arg = e < 2 ? e : e == 2 + call->num_kwargs ? 2 : e + 1;
  }
  return rc;
}

/* R.call_tir, and R.dist.call_tir_local_view (the same call of a PrimFunc written for one
 * device's shard, upstream's LowerGlobalViewToLocalView's output). */
static int call_tir_of(tvm_script_call* call, tvm_relax_op_id op, TVMFFIAny* out) {
  static const char* const spec = "gvar, args, out_sinfo=, tir_vars=, *out_ty=";
  TVMFFIAny a[5];
  if (bind_dps(call, spec, a, 5) != 0) return -1;
  return dps_call(call, op, spec, a, 2, 3, 4, -1, out);
}
static int b_call_tir(tvm_script_call* call, TVMFFIAny* out) {
  return call_tir_of(call, TVM_RELAX_OP_call_tir, out);
}
static int b_call_tir_local_view(tvm_script_call* call, TVMFFIAny* out) {
  return call_tir_of(call, TVM_RELAX_OP_dist_call_tir_local_view, out);
}

static int b_call_tir_inplace(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "gvar, args, inplace_indices=, out_sinfo=, tir_vars=, *out_ty=";
  TVMFFIAny a[6];
  if (bind_dps(call, spec, a, 6) != 0) return -1;
  return dps_call(call, TVM_RELAX_OP_call_tir_inplace, spec, a, 3, 4, 5, 2, out);
}

static int b_call_dps_packed(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "func, args, out_sinfo=, *out_ty=";
  TVMFFIAny a[4];
  if (tvm_script__bind_args(call, spec, a, 4) != 0) return -1;
  return dps_call(call, TVM_RELAX_OP_call_dps_packed, spec, a, 2, -1, 3, -1, out);
}

/* R.call_tir_with_grad(gvar, args, out_sinfo, te_grad_name, te_grad_kwargs=None, tir_vars=None):
 * call_tir with the name (and keyword arguments) of the TE gradient function as attributes. */
static int b_call_tir_with_grad(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec =
      "gvar, args, out_sinfo=, te_grad_name=, te_grad_kwargs=, tir_vars=, *out_ty=";
  TVMFFIAny a[7];
  if (tvm_script__bind_args(call, spec, a, 7) != 0) return -1;
  if (!present(&a[3])) {
    return tvm_ffi_raise("TypeError", "%s() missing required argument 'te_grad_name'", call->name);
  }
  if (!tvm_script__is_str(&a[3])) {
    tvm_ffi_raise("TypeError", "argument 'te_grad_name' of %s must be a string, got %s", call->name,
                  tvm_ffi_any_type_name(&a[3]));
    return fail_at(call, spec, 3);
  }
  TVMFFIAny keys[2] = {tvm_ffi_string("te_grad_name"), tvm_ffi_string("te_grad_kwargs")};
  TVMFFIAny vals[2] = {a[3], present(&a[4]) ? a[4] : tvm_ffi_any_none()};
  void* attrs = tvm_ffi_map_new(keys, vals, present(&a[4]) ? 2 : 1);
  tvm_ffi_any_release(&keys[0]);
  tvm_ffi_any_release(&keys[1]);
  if (!attrs) return -1;
  int rc = dps_call_attrs(call, TVM_RELAX_OP_call_tir_with_grad, spec, a, 2, 5, 6, -1, attrs, out);
  tvm_ffi_release(attrs);
  return rc;
}

/* R.call_builtin_with_ctx(func, args, sinfo_args=None): func a builtin's name (or an
 * ExternFunc), args a tuple or list of the arguments after the VM context, sinfo_args one
 * struct info or a list of them (`ty_args=`, newer upstream's name for it, as well). */
static int b_call_builtin_with_ctx(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "func, args, *sinfo_args=, ty_args=";
  TVMFFIAny a[4];
  if (tvm_script__bind_args(call, spec, a, 4) != 0) return -1;
  if (present(&a[2]) && present(&a[3])) {
    call->error_arg = tvm_script__arg_index(call, spec, 3);
    return tvm_ffi_raise("TypeError", "%s() got both sinfo_args and ty_args", call->name);
  }
  if (present(&a[3])) a[2] = a[3];
  tvm_relax_expr_obj* func = NULL;
  if (tvm_script__is_str(&a[0])) {
    func = tvm_relax_extern_func_new(tvm_script__value_to_cstr(&a[0], "func"), NULL);
  } else if (tvm_ffi_any_is_object(&a[0]) &&
             tvm_relax_kind_of(a[0].v_obj) == TVM_RELAX_KIND_ExternFunc) {
    tvm_ffi_retain(a[0].v_obj);
    func = (tvm_relax_expr_obj*)a[0].v_obj;
  } else {
    tvm_ffi_raise("TypeError",
                  "argument 'func' of %s must be a builtin's name or an ExternFunc, "
                  "got %s",
                  call->name, tvm_ffi_any_type_name(&a[0]));
    return fail_at(call, spec, 0);
  }
  if (!func) return fail_at(call, spec, 0);
  char what[96];
  ARG_LABEL(what, "args", call);
  tvm_relax_expr_obj* args = tuple_args(&a[1], what);
  if (!args) {
    tvm_ffi_release(func);
    return fail_at(call, spec, 1);
  }
  void* sinfo_args = NULL;
  if (present(&a[2])) {
    ARG_LABEL(what, "sinfo_args", call);
    sinfo_args = tvm_script__relax_sinfo_list(&a[2], what, false);
    if (!sinfo_args) {
      tvm_ffi_release(func);
      tvm_ffi_release(args);
      return fail_at(call, spec, 2);
    }
  }
  void* items[2] = {func, args};
  void* arr = tvm_ffi_array_of_objects(items, 2);
  tvm_relax_expr_obj* c = arr ? tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_call_builtin_with_ctx),
                                                   arr, NULL, sinfo_args, NULL)
                              : NULL;
  tvm_script__relax_note_inferred(call->builder, c);
  tvm_ffi_release(arr);
  tvm_ffi_release(func);
  tvm_ffi_release(args);
  tvm_ffi_release(sinfo_args);
  if (!c && arr) {
    pthread_once(&g_sigs_once, sigs_build);
    return reraise(call, &g_sigs[TVM_RELAX_OP_call_builtin_with_ctx], spec);
  }
  return ret(c, out);
}

/* R.call_packed / R.call_pure_packed / R.invoke_closure / R.invoke_pure_closure /
 * R.call_inplace_packed: func, then the arguments (positional), sinfo_args= (and
 * call_inplace_packed's inplace_indices=, an index or a list of them) by keyword. */
/* Whether v can be an attribute of R.call_packed: a number, bool, string or None, or a list of
 * them (so that a misspelt sinfo_args, whose value is a struct info, is still an unexpected
 * keyword). */
static bool is_attr_literal(const TVMFFIAny* v, int depth) {
  if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIFloat ||
      v->type_index == kTVMFFIBool || tvm_ffi_any_is_none(v) || tvm_script__is_str(v)) {
    return true;
  }
  const void* seq = depth < 4 ? seq_of(v) : NULL;
  for (int64_t i = 0; seq && i < tvm_ffi_seq_size(seq); ++i) {
    if (!is_attr_literal(tvm_ffi_seq_at(seq, i), depth + 1)) return false;
  }
  return seq != NULL;
}

static int packed_call(tvm_script_call* call, int mode, TVMFFIAny* out) {
  /* mode 0: call_packed (Call of an ExternFunc), 1: call_pure_packed, 2: invoke_closure,
   * 3: invoke_pure_closure (LambdaLift's call of a pure closure), 4: call_inplace_packed */
  bool closure = mode == 2 || mode == 3;
  const TVMFFIAny *sinfo_v = NULL, *inplace_v = NULL;
  int32_t num_attrs = 0; /* R.call_packed's other keywords: the call's DictAttrs, as upstream's */
  for (int32_t k = 0; k < call->num_kwargs; ++k) {
    const char* kw = call->kw_names[k]; /* ty_args: newer upstream's name for sinfo_args */
    if ((strcmp(kw, "sinfo_args") == 0 || strcmp(kw, "ty_args") == 0) && !sinfo_v) {
      sinfo_v = &call->kwargs[k];
    } else if (mode == 4 && strcmp(kw, "inplace_indices") == 0 && !inplace_v) {
      inplace_v = &call->kwargs[k];
    } else if (mode == 0 && strcmp(kw, "attrs_type_key") == 0) {
      TVMFFIByteArray key = {0};
      if (!tvm_script__is_str(&call->kwargs[k]) || !tvm_ffi_any_as_bytes(&call->kwargs[k], &key) ||
          key.size != 9 || memcmp(key.data, "DictAttrs", 9) != 0) {
        call->error_arg = call->num_args + k;
        return tvm_ffi_raise("ValueError", "%s(): attrs_type_key must be \"DictAttrs\" (the "
                             "attributes of a packed call are a dict)", call->name);
      }
    } else if (mode == 0 && is_attr_literal(&call->kwargs[k], 0)) {
      ++num_attrs;
    } else {
      call->error_arg = call->num_args + k;
      return tvm_ffi_raise("TypeError", "%s() got an unexpected keyword argument '%s'", call->name,
                           call->kw_names[k]);
    }
  }
  int32_t need = closure ? 2 : 1;
  if (call->num_args < need) {
    return tvm_ffi_raise("TypeError", "%s() missing required argument '%s'", call->name,
                         !closure ? "func" : call->num_args == 0 ? "closure" : "args");
  }
  if (closure && call->num_args > 2) {
    call->error_arg = 2;
    return tvm_ffi_raise("TypeError", "%s() takes exactly 2 positional arguments (%d given)",
                         call->name, (int)call->num_args);
  }
  if (mode == 4 && !inplace_v) {
    return tvm_ffi_raise("TypeError", "%s() missing required keyword argument 'inplace_indices'",
                         call->name);
  }
  void* sinfo_args = NULL;
  if (sinfo_v && !tvm_ffi_any_is_none(sinfo_v)) {
    char what[96];
    ARG_LABEL(what, "sinfo_args", call);
    sinfo_args = tvm_script__relax_sinfo_list(sinfo_v, what, false);
    if (!sinfo_args) {
      call->error_arg = call->num_args + (int32_t)(sinfo_v - call->kwargs);
      return -1;
    }
  }
  tvm_relax_expr_obj* func = NULL;
  if (tvm_script__is_str(&call->args[0]) && !closure) {
    func = tvm_relax_extern_func_new(tvm_script__value_to_cstr(&call->args[0], "func"), NULL);
  } else if (tvm_ffi_any_is_object(&call->args[0]) && tvm_relax_is_expr(call->args[0].v_obj)) {
    tvm_ffi_retain(call->args[0].v_obj);
    func = (tvm_relax_expr_obj*)call->args[0].v_obj;
  } else {
    call->error_arg = 0;
    tvm_ffi_raise("TypeError", "argument 1 of %s must be %s, got %s", call->name,
                  closure ? "a closure" : "a packed function's name or an ExternFunc",
                  tvm_ffi_any_type_name(&call->args[0]));
  }
  tvm_relax_expr_obj* c = NULL;
  if (func && mode == 0) {
    TVMFFIAny* kv = num_attrs ? tvm_ffi_calloc((size_t)num_attrs * 2, sizeof(TVMFFIAny)) : NULL;
    int32_t m = 0;
    for (int32_t k = 0; kv && k < call->num_kwargs; ++k) {
      const char* kw = call->kw_names[k];
      if (strcmp(kw, "sinfo_args") != 0 && strcmp(kw, "ty_args") != 0 &&
          strcmp(kw, "attrs_type_key") != 0) {
        kv[m] = tvm_ffi_string(kw);
        kv[num_attrs + m++] = call->kwargs[k];
      }
    }
    void* attrs = kv ? tvm_ffi_map_new(kv, kv + num_attrs, num_attrs) : NULL;
    for (int32_t i = 0; kv && i < num_attrs; ++i) tvm_ffi_any_release(&kv[i]);
    tvm_ffi_free(kv);
    c = !num_attrs || attrs ? tvm_script__relax_call_value(func, call->args + 1, call->num_args - 1,
                                                           sinfo_args, attrs)
                            : NULL;
    tvm_ffi_release(attrs);
    tvm_script__relax_note_inferred(call->builder, c);
  } else if (func) {
    tvm_script_items it;
    void* arr = NULL;
    if (tvm_script_items_init(&it, call->num_args)) {
      tvm_ffi_retain(func);
      tvm_script_items_push(&it, func);
      bool ok = true;
      for (int32_t i = 1; ok && i < call->num_args; ++i) {
        char what[64];
        snprintf(what, sizeof(what), "argument %d of %s", (int)i + 1, call->name);
        tvm_relax_expr_obj* e = closure ? tuple_args(&call->args[i], what)
                                          : tvm_script__relax_expr_of(&call->args[i], what);
        if (e) {
          tvm_script_items_push(&it, e);
        } else {
          call->error_arg = i;
          ok = false;
        }
      }
      arr = ok ? tvm_script_items_to_array(&it) : NULL;
      tvm_script_items_free(&it);
    }
    tvm_relax_op_id id = mode == 1   ? TVM_RELAX_OP_call_pure_packed
                         : mode == 2 ? TVM_RELAX_OP_invoke_closure
                         : mode == 3 ? TVM_RELAX_OP_invoke_pure_closure
                                     : TVM_RELAX_OP_call_inplace_packed;
    void* attrs = NULL;
    if (arr && inplace_v) {
      TVMFFIAny k = tvm_ffi_string("inplace_indices");
      attrs = tvm_ffi_map_new(&k, inplace_v, 1);
      tvm_ffi_any_release(&k);
    }
    bool ready = arr && (attrs || !inplace_v);
    c = ready ? tvm_relax_call_new(tvm_relax_op(id), arr, attrs, sinfo_args, NULL) : NULL;
    tvm_script__relax_note_inferred(call->builder, c);
    tvm_ffi_release(attrs);
    tvm_ffi_release(arr);
    if (!c && arr) {
      pthread_once(&g_sigs_once, sigs_build);
      tvm_ffi_release(func);
      tvm_ffi_release(sinfo_args);
      return reraise(call, &g_sigs[id], "");
    }
  }
  tvm_ffi_release(func);
  tvm_ffi_release(sinfo_args);
  return ret(c, out);
}

/* R.emit_with_sinfo(op, args, sinfo_args=None), and its newer name R.emit_with_type(op, args,
 * ty_args=None): a call of the operator named op ("relax.builtin.alloc_tensor") on args (a
 * tuple or list of the arguments, or one) with sinfo_args, as upstream's helper makes it. */
static int emit_with(tvm_script_call* call, const char* spec, TVMFFIAny* out) {
  TVMFFIAny a[3];
  if (tvm_script__bind_args(call, spec, a, 3) != 0) return -1;
  TVMFFIByteArray name = {NULL, 0};
  const tvm_relax_op_info* info =
      tvm_script__is_str(&a[0]) && tvm_ffi_any_as_bytes(&a[0], &name)
          ? tvm_relax_op_info_find(name.data, name.size)
          : NULL;
  if (!info) {
    if (name.data) {
      tvm_ffi_raise("ValueError", "argument 'op' of %s: no Relax operator is named '%.*s'",
                    call->name, (int)name.size, name.data);
    } else {
      tvm_ffi_raise("TypeError", "argument 'op' of %s must be an operator's name, got %s",
                    call->name, tvm_ffi_any_type_name(&a[0]));
    }
    return fail_at(call, spec, 0);
  }
  const void* seq = seq_of(&a[1]);
  int64_t n = seq ? tvm_ffi_seq_size(seq) : 1;
  tvm_script_items it;
  if (!tvm_script_items_init(&it, n)) return -1;
  for (int64_t i = 0; i < n; ++i) {
    char what[96];
    ARG_LABEL(what, "args", call);
    tvm_relax_expr_obj* e = tvm_script__relax_expr_of(seq ? tvm_ffi_seq_at(seq, i) : &a[1], what);
    if (!e) {
      tvm_script_items_free(&it);
      return fail_at(call, spec, 1);
    }
    tvm_script_items_push(&it, e);
  }
  void* args = tvm_script_items_to_array(&it);
  tvm_script_items_free(&it);
  if (!args) return -1;
  void* sinfo_args = NULL;
  if (present(&a[2])) {
    char what[96];
    ARG_LABEL(what, "sinfo_args", call);
    sinfo_args = tvm_script__relax_sinfo_list(&a[2], what, false);
    if (!sinfo_args) {
      tvm_ffi_release(args);
      return fail_at(call, spec, 2);
    }
  }
  tvm_relax_expr_obj* c = tvm_relax_call_new(tvm_relax_op(info->id), args, NULL, sinfo_args, NULL);
  tvm_script__relax_note_inferred(call->builder, c);
  tvm_ffi_release(args);
  tvm_ffi_release(sinfo_args);
  if (!c) {
    pthread_once(&g_sigs_once, sigs_build);
    return reraise(call, &g_sigs[info->id], spec);
  }
  return ret(c, out);
}
static int b_emit_with_sinfo(tvm_script_call* call, TVMFFIAny* out) {
  return emit_with(call, "op, args, sinfo_args=", out);
}
static int b_emit_with_type(tvm_script_call* call, TVMFFIAny* out) {
  return emit_with(call, "op, args, ty_args=", out);
}

static int b_call_packed(tvm_script_call* call, TVMFFIAny* out) { return packed_call(call, 0, out); }
static int b_call_pure_packed(tvm_script_call* call, TVMFFIAny* out) {
  return packed_call(call, 1, out);
}
static int b_call_inplace_packed(tvm_script_call* call, TVMFFIAny* out) {
  return packed_call(call, 4, out);
}
static int b_invoke_closure(tvm_script_call* call, TVMFFIAny* out) {
  return packed_call(call, 2, out);
}
static int b_invoke_pure_closure(tvm_script_call* call, TVMFFIAny* out) {
  return packed_call(call, 3, out);
}

/* The call of operator op on three scalar operands vals (Relax expressions once converted;
 * names[i] for a message, param[i] the parameter of spec a failed one is located at, -1 for a
 * default) with the dtype attribute when given: R.arange's and R.eye's common part. */
static int scalar_operands_call(tvm_script_call* call, const char* spec, tvm_relax_op_id op,
                                const char* const names[3], const TVMFFIAny* const vals[3],
                                const int param[3], const TVMFFIAny* dtype, TVMFFIAny* out) {
  tvm_script_items it;
  if (!tvm_script_items_init(&it, 3)) return -1;
  for (int i = 0; i < 3; ++i) {
    char what[64];
    snprintf(what, sizeof(what), "argument '%s' of R.%s", names[i],
             tvm_relax_op_info_get(op)->name + strlen("relax."));
    tvm_relax_expr_obj* e = tvm_script__relax_expr_of(vals[i], what);
    if (!e) {
      tvm_script_items_free(&it);
      return param[i] >= 0 ? fail_at(call, spec, param[i]) : -1;
    }
    tvm_script_items_push(&it, e);
  }
  void* arr = tvm_script_items_to_array(&it);
  tvm_script_items_free(&it);
  void* attrs = NULL;
  if (arr && present(dtype)) {
    TVMFFIAny k = tvm_ffi_string("dtype");
    attrs = tvm_ffi_map_new(&k, dtype, 1);
    tvm_ffi_any_release(&k);
  }
  tvm_relax_expr_obj* c = arr && (attrs || !present(dtype))
                              ? tvm_relax_call_new(tvm_relax_op(op), arr, attrs, NULL, NULL)
                              : NULL;
  tvm_script__relax_note_inferred(call->builder, c);
  tvm_ffi_release(arr);
  tvm_ffi_release(attrs);
  if (!c) {
    pthread_once(&g_sigs_once, sigs_build);
    return reraise(call, &g_sigs[op], spec);
  }
  return ret(c, out);
}

/* R.arange(start, end=None, step=1, dtype=None): one bound is the end, from 0. */
static int b_arange(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "start, end=, step=, dtype=";
  static const char* const names[3] = {"start", "end", "step"};
  TVMFFIAny a[4];
  if (tvm_script__bind_args(call, spec, a, 4) != 0) return -1;
  TVMFFIAny zero = tvm_ffi_any_int(0), one = tvm_ffi_any_int(1);
  bool end = present(&a[1]);
  const TVMFFIAny* vals[3] = {end ? &a[0] : &zero, end ? &a[1] : &a[0],
                              present(&a[2]) ? &a[2] : &one};
  const int param[3] = {end ? 0 : -1, end ? 1 : 0, 2};
  return scalar_operands_call(call, spec, TVM_RELAX_OP_arange, names, vals, param, &a[3], out);
}

/* R.eye(n, m=None, k=0, dtype="float32"): m None is n (upstream's wrapper). */
static int b_eye(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "n, m=, k=, dtype=";
  static const char* const names[3] = {"n", "m", "k"};
  TVMFFIAny a[4];
  if (tvm_script__bind_args(call, spec, a, 4) != 0) return -1;
  TVMFFIAny zero = tvm_ffi_any_int(0);
  const TVMFFIAny* vals[3] = {&a[0], present(&a[1]) ? &a[1] : &a[0],
                              present(&a[2]) ? &a[2] : &zero};
  const int param[3] = {0, present(&a[1]) ? 1 : 0, present(&a[2]) ? 2 : -1};
  return scalar_operands_call(call, spec, TVM_RELAX_OP_eye, names, vals, param, &a[3], out);
}

/* R.linear(data, weight, bias=None, out_dtype=None): upstream's Python sugar, no operator:
 * matmul(data, permute_dims(weight), out_dtype) + bias, the nested calls bound by the binding's
 * normalization as upstream's BlockBuilder binds them. */
static tvm_relax_expr_obj* linear_step(tvm_script_call* call, tvm_relax_op_id op, void* args,
                                       void* attrs) {
  tvm_relax_expr_obj* c = args ? tvm_relax_call_new(tvm_relax_op(op), args, attrs, NULL, NULL)
                               : NULL;
  tvm_ffi_release(args);
  if (c) {
    tvm_script__relax_note_inferred(call->builder, c);
  } else if (tvm_ffi_error_pending()) { /* (the operator's message, said of R.linear) */
    void* e = tvm_ffi_error_take();
    tvm_ffi_raise(tvm_ffi_error_kind(e), "R.linear: %s", tvm_ffi_error_message(e));
    tvm_ffi_release(e);
  }
  return c;
}

static int b_linear(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "data, weight, bias=, out_dtype=";
  static const char* const what[3] = {"argument 'data' of R.linear",
                                      "argument 'weight' of R.linear",
                                      "argument 'bias' of R.linear"};
  TVMFFIAny a[4];
  if (tvm_script__bind_args(call, spec, a, 4) != 0) return -1;
  tvm_relax_expr_obj* e[3] = {NULL, NULL, NULL};
  int rc = 0;
  for (int i = 0; rc == 0 && i < 3; ++i) {
    if (i == 2 && !present(&a[2])) break;
    if (!(e[i] = tvm_script__relax_expr_of(&a[i], what[i]))) rc = fail_at(call, spec, i);
  }
  tvm_relax_expr_obj* r = NULL;
  if (rc == 0) {
    TVMFFIAny w = tvm_ffi_any_obj(e[1]);
    tvm_relax_expr_obj* wt = linear_step(call, TVM_RELAX_OP_permute_dims,
                                         tvm_ffi_array_new(&w, 1), NULL);
    void* attrs = NULL;
    if (wt && present(&a[3])) {
      TVMFFIAny k = tvm_ffi_string("out_dtype");
      attrs = tvm_ffi_map_new(&k, &a[3], 1);
      tvm_ffi_any_release(&k);
    }
    TVMFFIAny xw[2] = {tvm_ffi_any_obj(e[0]), tvm_ffi_any_obj(wt)};
    r = wt && (attrs || !present(&a[3]))
            ? linear_step(call, TVM_RELAX_OP_matmul, tvm_ffi_array_new(xw, 2), attrs)
            : NULL;
    tvm_ffi_release(attrs);
    tvm_ffi_release(wt);
    if (r && e[2]) {
      TVMFFIAny rb[2] = {tvm_ffi_any_obj(r), tvm_ffi_any_obj(e[2])};
      tvm_relax_expr_obj* sum = linear_step(call, TVM_RELAX_OP_add, tvm_ffi_array_new(rb, 2), NULL);
      tvm_ffi_release(r);
      r = sum;
    }
  }
  for (int i = 0; i < 3; ++i) tvm_ffi_release(e[i]);
  return ret(r, out);
}

/* ---- Values ---------------------------------------------------------------------------------- */
/* R.const: the shape of nested lists (rectangular), and whether any leaf is a float / all are
 * bools. */
typedef struct {
  int64_t shape[8];
  int ndim;
  bool any_float, all_bool;
  int64_t count;
} const_shape;

static int const_walk(const TVMFFIAny* v, int depth, const_shape* cs) {
  const void* seq = seq_of(v);
  if (!seq) {
    if (depth != cs->ndim) {
      return tvm_ffi_raise("ValueError", "R.const: the nested lists are not rectangular");
    }
    if (v->type_index == kTVMFFIFloat) cs->any_float = true, cs->all_bool = false;
    else if (v->type_index == kTVMFFIInt) cs->all_bool = false;
    else if (v->type_index != kTVMFFIBool) {
      return tvm_ffi_raise("TypeError", "R.const: an element must be a number or a bool, got %s",
                           tvm_ffi_any_type_name(v));
    }
    cs->count++;
    return 0;
  }
  int64_t n = tvm_ffi_seq_size(seq);
  if (depth == cs->ndim) {
    /* The first list at this depth fixes the dim (the first path goes deepest first). */
    if (cs->count > 0 || depth == 8) {
      return tvm_ffi_raise("ValueError", depth == 8 ? "R.const: more than 8 dims"
                                                    : "R.const: the nested lists are not rectangular");
    }
    cs->shape[cs->ndim++] = n;
  } else if (depth > cs->ndim || cs->shape[depth] != n) {
    return tvm_ffi_raise("ValueError", "R.const: the nested lists are not rectangular");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (const_walk(tvm_ffi_seq_at(seq, i), depth + 1, cs) != 0) return -1;
  }
  return 0;
}

/* float -> IEEE half / bfloat16 bits, rounding to nearest even. */
static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
  int32_t exp = (int32_t)((x >> 23) & 0xff);
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return (uint16_t)(sign | h);
}

static uint16_t to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

/* Store leaf v as element i of t (dtype checked by the caller). */
static int const_store(DLTensor* t, int64_t i, const TVMFFIAny* v) {
  DLDataType dt = t->dtype;
  double d = v->type_index == kTVMFFIFloat ? v->v_float64 : (double)v->v_int64;
  char* base = (char*)t->data;
  if (dt.code == kDLFloat || dt.code == kDLBfloat) {
    if (dt.bits == 64) ((double*)base)[i] = d;
    else if (dt.bits == 32) ((float*)base)[i] = (float)d;
    else ((uint16_t*)base)[i] = dt.code == kDLBfloat ? to_bf16((float)d) : to_half((float)d);
    return 0;
  }
  if (tvm_tir_dtype_is_bool(dt) || dt.code == kDLBool) {
    ((uint8_t*)base)[i] = d != 0;
    return 0;
  }
  if (v->type_index == kTVMFFIFloat && !isfinite(d)) {
    return tvm_ffi_raise("ValueError", "R.const: %g is not a value of %s", d, tvm_tir_dtype_str(dt).s);
  }
  /* numpy's astype truncates a float; an int must fit. */
  int64_t x = v->type_index == kTVMFFIFloat ? (int64_t)d : v->v_int64;
  bool fits = dt.code == kDLInt ? (dt.bits == 64 || (x >= -(INT64_C(1) << (dt.bits - 1)) &&
                                                     x < (INT64_C(1) << (dt.bits - 1))))
                                : (x >= 0 && (dt.bits == 64 || x < (INT64_C(1) << dt.bits)));
  if (!fits) {
    return tvm_ffi_raise("ValueError", "R.const: %lld does not fit in %s", (long long)x,
                         tvm_tir_dtype_str(dt).s);
  }
  switch (dt.bits) {
    case 8: ((uint8_t*)base)[i] = (uint8_t)x; break;
    case 16: ((uint16_t*)base)[i] = (uint16_t)x; break;
    case 32: ((uint32_t*)base)[i] = (uint32_t)x; break;
    default: ((uint64_t*)base)[i] = (uint64_t)x; break;
  }
  return 0;
}

static int const_fill(DLTensor* t, const TVMFFIAny* v, int64_t* next) {
  const void* seq = seq_of(v);
  if (!seq) return const_store(t, (*next)++, v);
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq); ++i) {
    if (const_fill(t, tvm_ffi_seq_at(seq, i), next) != 0) return -1;
  }
  return 0;
}

static bool const_dtype_ok(DLDataType t) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat) return t.bits == 16 || t.bits == 32 || t.bits == 64;
  if (t.code == kDLBfloat) return t.bits == 16;
  if (t.code == kDLBool) return t.bits == 8;
  if (t.code == kDLInt || t.code == kDLUInt) {
    return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64 ||
           (t.code == kDLUInt && t.bits == 1);
  }
  return false;
}

/* The Constant of value (a tensor, a number, nested lists) of dtype want (NULL: the value's, as
 * upstream's relax.const narrows numpy's: int32, float32 or bool) with struct info sinfo (NULL:
 * the data's own). NULL with the error raised and *blame the argument at fault: 0 the value, 1
 * the dtype or the struct info, -1 none (out of memory). */
tvm_relax_expr_obj* tvm_script__relax_const(const TVMFFIAny* value, const DLDataType* want,
                                            tvm_relax_sinfo_obj* sinfo, int* blame) {
  const char* name = sinfo ? "R.dist.const" : "R.const";
  *blame = -1;
  if (tvm_ffi_any_is_object(value) && tvm_ffi_type_index(value->v_obj) == kTVMFFITensor) {
    const DLTensor* t = tvm_ffi_tensor_dl(value->v_obj);
    if (want && !tvm_tir_dtype_equal(t->dtype, *want)) {
      *blame = 1;
      tvm_ffi_raise("TypeError", "%s: the tensor is %s, not %s", name,
                    tvm_tir_dtype_str(t->dtype).s, tvm_tir_dtype_str(*want).s);
      return NULL;
    }
    if (sinfo) *blame = 1;
    return tvm_relax_constant_new(value->v_obj, sinfo);
  }
  const_shape cs = {{0}, 0, false, true, 0};
  *blame = 0;
  if (const_walk(value, 0, &cs) != 0) return NULL;
  DLDataType dtype = want                         ? *want
                     : cs.count > 0 && cs.all_bool ? tvm_tir_dtype_bool()
                     : cs.any_float                ? tvm_tir_dtype_float(32)
                                                   : tvm_tir_dtype_int(32);
  if (!const_dtype_ok(dtype)) {
    *blame = 1;
    tvm_ffi_raise("TypeError", "%s: dtype %s is not supported", name, tvm_tir_dtype_str(dtype).s);
    return NULL;
  }
  void* data = tvm_ffi_tensor_empty(cs.shape, cs.ndim, dtype, (DLDevice){kDLCPU, 0});
  if (!data) {
    *blame = -1;
    return NULL;
  }
  int64_t next = 0;
  tvm_relax_expr_obj* c = NULL;
  if (const_fill(tvm_ffi_tensor_dl(data), value, &next) == 0) {
    *blame = sinfo ? 1 : -1;
    c = tvm_relax_constant_new(data, sinfo);
  }
  tvm_ffi_release(data);
  return c;
}

/* tvm_script__relax_const's Constant as the builtin's result, the argument at fault blamed. */
static int const_of(tvm_script_call* call, const char* spec, const TVMFFIAny* value,
                    const DLDataType* want, tvm_relax_sinfo_obj* sinfo, TVMFFIAny* out) {
  int blame;
  tvm_relax_expr_obj* c = tvm_script__relax_const(value, want, sinfo, &blame);
  if (c) return ret(c, out);
  return blame >= 0 ? fail_at(call, spec, blame) : -1;
}

static int b_const(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "value, dtype=";
  TVMFFIAny a[2];
  if (tvm_script__bind_args(call, spec, a, 2) != 0) return -1;
  DLDataType dtype;
  bool has_dtype = present(&a[1]);
  if (has_dtype && tvm_script__value_to_dtype(&a[1], "argument 'dtype' of R.const", &dtype) != 0) {
    return fail_at(call, spec, 1);
  }
  return const_of(call, spec, &a[0], has_dtype ? &dtype : NULL, NULL, out);
}

/* R.dist.const(value, struct_info): upstream's distributed constant, the whole tensor (of the
 * DTensor's dtype) laid out as the DTensorStructInfo says. */
static int b_dist_const(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "value, struct_info";
  TVMFFIAny a[2];
  if (tvm_script__bind_args(call, spec, a, 2) != 0) return -1;
  tvm_relax_sinfo_obj* s =
      tvm_script__relax_sinfo_of(&a[1], "argument 'struct_info' of R.dist.const");
  if (!s) return fail_at(call, spec, 1);
  int rc;
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_DTensorStructInfo) {
    tvm_ffi_raise("TypeError", "argument 'struct_info' of R.dist.const must be an R.DTensor");
    rc = fail_at(call, spec, 1);
  } else {
    const tvm_relax_dtensor_sinfo_obj* d = (const void*)s;
    DLDataType dtype = ((const tvm_relax_tensor_sinfo_obj*)d->tensor_sinfo)->dtype;
    rc = const_of(call, spec, &a[0], tvm_relax_dtype_is_unknown(dtype) ? NULL : &dtype, s, out);
  }
  tvm_ffi_release(s);
  return rc;
}

static int b_prim_value(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "value";
  TVMFFIAny a[1];
  if (tvm_script__bind_args(call, spec, a, 1) != 0) return -1;
  tvm_relax_expr_obj* e = NULL;
  if (a[0].type_index == kTVMFFIInt || a[0].type_index == kTVMFFIBool ||
      a[0].type_index == kTVMFFIFloat ||
      (tvm_ffi_any_is_object(&a[0]) && tvm_script__is_expr(a[0].v_obj))) {
    e = tvm_script__relax_expr_of(&a[0], "argument 'value' of R.prim_value");
  } else {
    tvm_ffi_raise("TypeError", "argument 'value' of R.prim_value must be a number or a PrimExpr, "
                  "got %s", tvm_ffi_any_type_name(&a[0]));
  }
  return e ? ret(e, out) : fail_at(call, spec, 0);
}

static int b_str(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "value";
  TVMFFIAny a[1];
  if (tvm_script__bind_args(call, spec, a, 1) != 0) return -1;
  TVMFFIByteArray s;
  if (!tvm_script__is_str(&a[0]) || !tvm_ffi_any_as_bytes(&a[0], &s)) {
    tvm_ffi_raise("TypeError", "argument 'value' of R.str must be a string, got %s",
                  tvm_ffi_any_type_name(&a[0]));
    return fail_at(call, spec, 0);
  }
  return ret(tvm_relax_string_imm_new(s.data, s.size), out);
}

static int b_dtype(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "value";
  TVMFFIAny a[1];
  if (tvm_script__bind_args(call, spec, a, 1) != 0) return -1;
  DLDataType t;
  if (tvm_script__value_to_dtype(&a[0], "argument 'value' of R.dtype", &t) != 0) {
    return fail_at(call, spec, 0);
  }
  return ret(tvm_relax_dtype_imm_new(t), out);
}

/* R.device(dev_type, dev_id=0): a DLDevice value (R.hint_on_device's device). The keywords
 * device_type= and index= are the same parameters as upstream's newer printer writes them
 * (`R.device(device_type=1, index=0)`). */
static int b_device(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "dev_type=, dev_id=, *device_type=, *index=";
  TVMFFIAny a[4];
  if (tvm_script__bind_args(call, spec, a, 4) != 0) return -1;
  for (int i = 0; i < 2; ++i) {
    if (tvm_script_arg_given(&a[i]) && tvm_script_arg_given(&a[i + 2])) {
      tvm_ffi_raise("TypeError", "R.device() got both '%s' and '%s'", i ? "dev_id" : "dev_type",
                    i ? "index" : "device_type");
      return fail_at(call, spec, i + 2);
    }
    if (!tvm_script_arg_given(&a[i])) a[i] = a[i + 2];
  }
  int type_at = tvm_script_arg_given(&a[2]) ? 2 : 0, id_at = tvm_script_arg_given(&a[3]) ? 3 : 1;
  if (!tvm_script_arg_given(&a[0])) {
    call->error_arg = -1; /* (the whole call) */
    return tvm_ffi_raise("TypeError", "R.device() missing required argument 'dev_type'");
  }
  int64_t type, id = 0;
  if (!tvm_ffi_any_as_int(&a[0], &type) || type < 1 || type > INT32_MAX) {
    tvm_ffi_raise("TypeError", "R.device: argument '%s' must be a device type (an int >= 1)",
                  type_at ? "device_type" : "dev_type");
    return fail_at(call, spec, type_at);
  }
  if (tvm_script_arg_given(&a[1]) && (!tvm_ffi_any_as_int(&a[1], &id) || id < 0 || id > INT32_MAX)) {
    tvm_ffi_raise("TypeError", "R.device: argument '%s' must be a non-negative int",
                  id_at == 3 ? "index" : "dev_id");
    return fail_at(call, spec, id_at);
  }
  *out = tvm_ffi_any_device((DLDevice){(DLDeviceType)type, (int32_t)id});
  return 0;
}

/* A ShapeExpr of the list of dims given as the call's one argument (spec names it). */
static int shape_of_dims(tvm_script_call* call, const char* spec, const char* param,
                         const char* fn, TVMFFIAny* out) {
  TVMFFIAny a[1];
  if (tvm_script__bind_args(call, spec, a, 1) != 0) return -1;
  if (!seq_of(&a[0])) {
    tvm_ffi_raise("TypeError", "argument '%s' of %s must be a list of dims, got %s", param, fn,
                  tvm_ffi_any_type_name(&a[0]));
    return fail_at(call, spec, 0);
  }
  char what[64];
  snprintf(what, sizeof(what), "a dim of %s", fn);
  void* dims = tvm_script__value_to_expr_array(&a[0], what);
  tvm_relax_expr_obj* e = dims ? tvm_relax_shape_expr_new(dims) : NULL;
  tvm_ffi_release(dims);
  return e ? ret(e, out) : fail_at(call, spec, 0);
}

static int b_shape(tvm_script_call* call, TVMFFIAny* out) {
  return shape_of_dims(call, "value", "value", "R.shape", out);
}

/* R.ShapeExpr(values): upstream's relax.ShapeExpr constructor, the same as R.shape. */
static int b_shape_expr(tvm_script_call* call, TVMFFIAny* out) {
  return shape_of_dims(call, "values", "values", "R.ShapeExpr", out);
}

static int b_tuple(tvm_script_call* call, TVMFFIAny* out) {
  if (call->num_kwargs > 0) {
    call->error_arg = call->num_args;
    return tvm_ffi_raise("TypeError", "R.tuple() takes no keyword arguments");
  }
  void* arr = tvm_ffi_array_new(call->args, call->num_args);
  TVMFFIAny v = tvm_ffi_any_obj(arr);
  tvm_relax_expr_obj* t = arr ? tvm_script__relax_expr_of(&v, "a field of R.tuple") : NULL;
  tvm_ffi_release(arr);
  return ret(t, out);
}

/* R.TupleGetItem(tuple, index): the spelling of `tuple[index]` upstream's tests also use. */
static int b_tuple_get_item(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "tuple, index";
  TVMFFIAny a[2];
  if (tvm_script__bind_args(call, spec, a, 2) != 0) return -1;
  int64_t index;
  if (tvm_script__value_to_int(&a[1], "argument 'index' of R.TupleGetItem", &index) != 0) {
    return fail_at(call, spec, 1);
  }
  tvm_relax_expr_obj* item = tvm_script__relax_getitem(&a[0], index);
  return item ? ret(item, out) : fail_at(call, spec, 0);
}

static int b_extern_func(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "global_symbol, struct_info=";
  TVMFFIAny a[2];
  if (tvm_script__bind_args(call, spec, a, 2) != 0) return -1;
  const char* name = tvm_script__value_to_cstr(&a[0], "argument 'global_symbol' of R.ExternFunc");
  if (!name) return fail_at(call, spec, 0);
  tvm_relax_sinfo_obj* s = NULL;
  if (present(&a[1]) &&
      !(s = tvm_script__relax_sinfo_of(&a[1], "argument 'struct_info' of R.ExternFunc"))) {
    return fail_at(call, spec, 1);
  }
  tvm_relax_expr_obj* f = tvm_relax_extern_func_new(name, s);
  tvm_ffi_release(s);
  return ret(f, out);
}

static int b_match_cast(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "value, struct_info";
  TVMFFIAny a[2];
  if (tvm_script__bind_args(call, spec, a, 2) != 0) return -1;
  tvm_relax_expr_obj* v = tvm_script__relax_expr_of(&a[0], "argument 'value' of R.match_cast");
  if (!v) return fail_at(call, spec, 0);
  tvm_relax_sinfo_obj* s =
      tvm_script__relax_sinfo_of(&a[1], "argument 'struct_info' of R.match_cast");
  if (!s) {
    tvm_ffi_release(v);
    return fail_at(call, spec, 1);
  }
  tvm_script_match_cast_pair* p = tvm_script__relax_match_cast_pair_new(v, s);
  tvm_ffi_release(v);
  tvm_ffi_release(s);
  return ret(p, out);
}

/* ---- Lookup ---------------------------------------------------------------------------------- */
/* The builtins that are not operator rows, and the rows written by hand (sorted by name). */
static const tvm_script_builtin k_builtins[] = {
    {"ExternFunc", b_extern_func, 0, false},
    {"ShapeExpr", b_shape_expr, 0, false},
    {"TupleGetItem", b_tuple_get_item, 0, false},
    {"arange", b_arange, 0, false},
    {"call_builtin_with_ctx", b_call_builtin_with_ctx, 0, false},
    {"call_dps_packed", b_call_dps_packed, 0, false},
    {"call_packed", b_call_packed, 0, false},
    {"call_pure_packed", b_call_pure_packed, 0, false},
    {"call_inplace_packed", b_call_inplace_packed, 0, false},
    {"call_tir", b_call_tir, 0, false},
    {"call_tir_inplace", b_call_tir_inplace, 0, false},
    {"call_tir_with_grad", b_call_tir_with_grad, 0, false},
    {"const", b_const, 0, false},
    {"device", b_device, 0, false},
    {"dist.call_tir", b_call_tir, 0, false}, /* relax.call_tir of DTensors */
    {"dist.call_tir_local_view", b_call_tir_local_view, 0, false},
    {"dist.const", b_dist_const, 0, false},
    {"dtype", b_dtype, 0, false},
    {"emit_with_sinfo", b_emit_with_sinfo, 0, false},
    {"emit_with_type", b_emit_with_type, 0, false},
    {"eye", b_eye, 0, false},
    {"invoke_closure", b_invoke_closure, 0, false},
    {"linear", b_linear, 0, false},
    /* (upstream's newest name of attention with a bias; its printer writes it) */
    {"nn.attention_bias", op_nn_attention, 0, false},
    {"invoke_pure_closure", b_invoke_pure_closure, 0, false},
    {"match_cast", b_match_cast, 0, false},
    {"prim_value", b_prim_value, 0, false},
    {"shape", b_shape, 0, false},
    {"str", b_str, 0, false},
    {"tuple", b_tuple, 0, false},
    {"vdevice", tvm_script__b_vdevice, 0, false}, /* I.vdevice's */
};

/* Every `R.<name>` builtin by name, in one open-addressing table built once: k_builtins' rows,
 * then the struct-info builtins', then one per operator row (its name without "relax."); a name
 * already in the table keeps its first row. */
#define NAMED_SLOTS 1024
typedef struct {
  const tvm_script_builtin* builtin; /* NULL: a free slot */
  uint32_t len, hash;
} named_builtin;
static named_builtin g_named[NAMED_SLOTS];
static pthread_once_t g_named_once = PTHREAD_ONCE_INIT;
_Static_assert(2 * (sizeof(k_builtins) / sizeof(k_builtins[0]) + 32 + TVM_RELAX_OP_COUNT) <=
                   NAMED_SLOTS,
               "the table stays at most half full");

/* ast.h's identifier hash (names are identifiers, or a few joined by dots). */
static uint32_t named_hash(const char* s, size_t n) {
  uint64_t k0, k1;
  tvm_script__name_words(s, n, n, &k0, &k1);
  return tvm_script__name_hash(k0, k1, n);
}

/* The slot of name s[0, n) with hash h: its row, or the free slot where it goes. */
static named_builtin* named_slot(const char* s, size_t n, uint32_t h) {
  for (uint32_t i = h & (NAMED_SLOTS - 1);; i = (i + 1) & (NAMED_SLOTS - 1)) {
    named_builtin* e = &g_named[i];
    if (!e->builtin || (e->hash == h && e->len == n && memcmp(e->builtin->name, s, n) == 0)) {
      return e;
    }
  }
}

static void named_add(const tvm_script_builtin* b) {
  size_t n = strlen(b->name);
  uint32_t h = named_hash(b->name, n);
  named_builtin* e = named_slot(b->name, n, h);
  if (!e->builtin) *e = (named_builtin){b, (uint32_t)n, h};
}

static void named_build(void) {
  for (size_t i = 0; i < sizeof(k_builtins) / sizeof(k_builtins[0]); ++i) named_add(&k_builtins[i]);
  for (int32_t i = 0; i < tvm_script__relax_sinfo_builtin_count; ++i) {
    named_add(&tvm_script__relax_sinfo_builtins[i]);
  }
  for (int32_t i = 0; i < TVM_RELAX_OP_COUNT; ++i) named_add(&k_op_builtins[i]);
}

const tvm_script_builtin* tvm_script__relax_builtin_lookup(const char* name, size_t len) {
  tvm_relax_init();
  if (len == 0) return NULL;
  pthread_once(&g_named_once, named_build);
  return named_slot(name, len, named_hash(name, len))->builtin;
}

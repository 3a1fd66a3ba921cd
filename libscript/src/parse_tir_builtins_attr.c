/*
 * parse_tir_builtins_attr.c: `T.target`, `T.comm_reducer`, `T.index_map` and `I.vdevice`, the
 * inverses of their converters in printer_tir_expr.c / printer_ir.c. Their values live in
 * attributes: a PrimFunc's "target", the node of a "reduce_scope" AttrStmt, annotations of
 * layout transformations, a module's global infos.
 */
#include "parse_tir_builtins_attr.h"

#include <string.h>

#include "parse_lambda.h"

/* ---- T.target ------------------------------------------------------------------------------ */
/* "llvm -mcpu=skylake -keys=cpu,arm": the kind, then `-name=value` options (string values; a
 * bare `-name` is True), as upstream's target strings. Adds them to the dict `attrs`. */
static int parse_target_str(const char* s, void* attrs, void** out_kind) {
  *out_kind = NULL;
  while (*s == ' ') ++s;
  size_t n = strcspn(s, " ");
  if (n == 0) return tvm_ffi_raise("ValueError", "T.target(): empty target string");
  *out_kind = tvm_ffi_str_obj(s, n);
  if (!*out_kind) return -1;
  for (s += n;;) {
    while (*s == ' ') ++s;
    if (!*s) return 0;
    size_t len = strcspn(s, " ");
    const char* eq = memchr(s, '=', len);
    if (s[0] != '-' || len < 2 || eq == s + 1) {
      return tvm_ffi_raise(
          "ValueError", "T.target(): expected an option `-name=value`, got \"%.*s\"", (int)len, s);
    }
    const char* name = s[1] == '-' ? s + 2 : s + 1; /* -mcpu or --mcpu */
    size_t name_len = (size_t)((eq ? eq : s + len) - name);
    TVMFFIAny key = tvm_ffi_string_n(name, name_len);
    TVMFFIAny value =
        eq ? tvm_ffi_string_n(eq + 1, (size_t)(s + len - eq - 1)) : tvm_ffi_any_bool(true);
    int rc = tvm_ffi_dict_set(attrs, &key, &value);
    tvm_ffi_any_release(&key);
    tvm_ffi_any_release(&value);
    if (rc != 0) return -1;
    s += len;
  }
}

/* A Target from a string, a dict with "kind", or a Target (new reference). */
static tvm_tir_target_obj* to_target(const TVMFFIAny* v, const char* what) {
  const void* target = tvm_ffi_any_as_object(v, tvm_tir_type_index(TVM_TIR_KIND_Target));
  if (target) {
    tvm_ffi_retain((void*)target);
    return (tvm_tir_target_obj*)target;
  }
  void* attrs = tvm_ffi_dict_new();
  if (!attrs) return NULL;
  void* kind = NULL;
  int rc = -1;
  const void* map = tvm_ffi_any_as_object(v, kTVMFFIMap);
  const char* str = map ? NULL : tvm_script__value_to_cstr(v, "");
  tvm_ffi_error_clear();
  if (str) {
    rc = parse_target_str(str, attrs, &kind);
  } else if (map) {
    const TVMFFIAny *k, *val;
    rc = 0;
    for (int64_t pos = tvm_ffi_map_next(map, 0, &k, &val); rc == 0 && pos >= 0;
         pos = tvm_ffi_map_next(map, pos, &k, &val)) {
      TVMFFIByteArray key;
      if (!tvm_ffi_any_as_bytes(k, &key)) {
        rc = tvm_ffi_raise("TypeError", "%s: the keys of a target dict must be strings", what);
      } else if (key.size == 4 && memcmp(key.data, "kind", 4) == 0) {
        const char* ks = tvm_script__value_to_cstr(val, "the \"kind\" of a target");
        kind = ks ? tvm_ffi_str_obj(ks, strlen(ks)) : NULL;
        rc = kind ? 0 : -1;
      } else if (key.size == 4 && memcmp(key.data, "host", 4) == 0) {
        tvm_tir_target_obj* host = to_target(val, "the \"host\" of a target");
        TVMFFIAny h = tvm_ffi_any_obj(host);
        rc = host ? tvm_ffi_dict_set(attrs, k, &h) : -1;
        tvm_ffi_release(host);
      } else {
        rc = tvm_ffi_dict_set(attrs, k, val);
      }
    }
    if (rc == 0 && !kind)
      rc = tvm_ffi_raise("ValueError", "%s: a target dict needs a \"kind\"", what);
  } else {
    rc = tvm_ffi_raise("TypeError", "%s must be a target string, dict or Target, got %s", what,
                       tvm_ffi_any_type_name(v));
  }
  tvm_tir_target_obj* t = rc == 0 ? tvm_tir_target_new(tvm_ffi_str_cstr(kind), attrs) : NULL;
  tvm_ffi_release(kind);
  tvm_ffi_release(attrs);
  return t;
}

/* T.target(target, host=None): the host, when given, is the attribute "host". */
int tvm_script__b_target(tvm_script_call* call, TVMFFIAny* out) {
  TVMFFIAny a[2];
  if (tvm_script__bind_args(call, "target, host=", a, 2) != 0) return -1;
  tvm_tir_target_obj* t = to_target(&a[0], "argument 'target' of T.target");
  if (!t) return call->error_arg = tvm_script__arg_index(call, "target, host=", 0), -1;
  if (tvm_script_arg_given(&a[1]) && !tvm_ffi_any_is_none(&a[1])) {
    tvm_tir_target_obj* host = to_target(&a[1], "argument 'host' of T.target");
    void* attrs = host ? tvm_ffi_dict_new() : NULL;
    const TVMFFIAny *k, *v;
    int rc = attrs ? 0 : -1;
    for (int64_t pos = tvm_ffi_map_next(t->attrs, 0, &k, &v); rc == 0 && pos >= 0;
         pos = tvm_ffi_map_next(t->attrs, pos, &k, &v)) {
      rc = tvm_ffi_dict_set(attrs, k, v);
    }
    TVMFFIAny hk = tvm_ffi_string("host"), hv = tvm_ffi_any_obj(host);
    if (rc == 0) rc = tvm_ffi_dict_set(attrs, &hk, &hv);
    tvm_ffi_any_release(&hk);
    tvm_tir_target_obj* with_host =
        rc == 0 ? tvm_tir_target_new(tvm_ffi_str_cstr(t->kind), attrs) : NULL;
    tvm_ffi_release(attrs);
    tvm_ffi_release(host);
    tvm_ffi_release(t);
    if (!with_host) return call->error_arg = tvm_script__arg_index(call, "target, host=", 1), -1;
    t = with_host;
  }
  *out = tvm_ffi_any_obj(t);
  return 0;
}

/* ---- T.comm_reducer ------------------------------------------------------------------------ */
/* A PrimExpr of a value (a Python number takes dtype). */
static tvm_tir_expr_obj* expr_as(const TVMFFIAny* v, DLDataType dtype, const char* what) {
  if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) {
    return tvm_tir_const_int(dtype, v->v_int64);
  }
  if (v->type_index == kTVMFFIFloat) return tvm_tir_const_float(dtype, v->v_float64);
  return tvm_script__value_to_expr_slow(v, what);
}

/* T.comm_reducer(combiner, identity): identity a list of n PrimExprs, combiner a lambda of 2n
 * parameters (lhs names, then rhs names) returning one PrimExpr or a tuple of n. The Vars are
 * named after the parameters and typed by the identity elements, as upstream. */
int tvm_script__b_comm_reducer(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "combiner, identity";
  TVMFFIAny a[2];
  if (tvm_script__bind_args(call, spec, a, 2) != 0) return -1;
  void* identity = tvm_script__value_to_expr_array(&a[1], "argument 'identity' of T.comm_reducer");
  if (!identity) return call->error_arg = tvm_script__arg_index(call, spec, 1), -1;
  void* names = tvm_script__lambda_params(&a[0], "argument 'combiner' of T.comm_reducer");
  if (!names) call->error_arg = tvm_script__arg_index(call, spec, 0);
  int64_t n = tvm_ffi_seq_size(identity);
  void *lhs = NULL, *rhs = NULL, *result = NULL;
  tvm_tir_comm_reducer_obj* r = NULL;
  TVMFFIAny res = tvm_ffi_any_none();
  TVMFFIAny* vars = names ? tvm_ffi_calloc((size_t)(2 * n + 1), sizeof(TVMFFIAny)) : NULL;
  if (!vars) goto done;
  if (n == 0) {
    call->error_arg = tvm_script__arg_index(call, spec, 1);
    tvm_ffi_raise("TypeError", "T.comm_reducer(): the identity must hold at least one element");
    goto done;
  }
  if (tvm_ffi_seq_size(names) != 2 * n) {
    call->error_arg = tvm_script__arg_index(call, spec, 0);
    tvm_ffi_raise("TypeError",
                  "T.comm_reducer(): the combiner must take %lld parameters (two per identity "
                  "element), got %lld",
                  (long long)(2 * n), (long long)tvm_ffi_seq_size(names));
    goto done;
  }
  for (int64_t i = 0; i < 2 * n; ++i) {
    DLDataType t = tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(identity, i % n));
    tvm_tir_var_obj* v = tvm_tir_var_new(tvm_ffi_str_cstr(tvm_ffi_seq_obj_at(names, i)), t);
    if (!v) goto done;
    vars[i] = tvm_ffi_any_obj(v);
  }
  lhs = tvm_ffi_array_new(vars, n);
  rhs = lhs ? tvm_ffi_array_new(vars + n, n) : NULL;
  if (!rhs || tvm_ffi_function_call(a[0].v_obj, vars, (int32_t)(2 * n), &res) != 0) goto done;
  /* One result, or a tuple of n. */
  const void* seq = tvm_ffi_any_as_object(&res, kTVMFFIArray);
  if ((seq ? tvm_ffi_seq_size(seq) : 1) != n) {
    tvm_ffi_raise("TypeError", "T.comm_reducer(): the combiner must return %lld value%s, got %lld",
                  (long long)n, n == 1 ? "" : "s", (long long)(seq ? tvm_ffi_seq_size(seq) : 1));
    goto done;
  }
  void* list = tvm_ffi_list_new();
  for (int64_t i = 0; list && i < n; ++i) {
    DLDataType t = tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(identity, i));
    tvm_tir_expr_obj* e = expr_as(seq ? tvm_ffi_seq_at(seq, i) : &res, t, "a combiner's result");
    TVMFFIAny ea = tvm_ffi_any_obj(e);
    if (!e || tvm_ffi_list_push(list, &ea) != 0) {
      tvm_ffi_release(e);
      tvm_ffi_release(list);
      list = NULL;
      break;
    }
    tvm_ffi_release(e);
  }
  result = list ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  if (result) r = tvm_tir_comm_reducer_new(lhs, rhs, result, identity);
done:
  for (int64_t i = 0; vars && i < 2 * n; ++i) tvm_ffi_any_release(&vars[i]);
  tvm_ffi_free(vars);
  tvm_ffi_any_release(&res);
  tvm_ffi_release(identity);
  tvm_ffi_release(names);
  tvm_ffi_release(lhs);
  tvm_ffi_release(rhs);
  tvm_ffi_release(result);
  if (!r) return -1;
  *out = tvm_ffi_any_obj(r);
  return 0;
}

/* ---- T.index_map --------------------------------------------------------------------------- */
tvm_tir_index_map_obj* tvm_script__index_map_of(const TVMFFIAny* fn, DLDataType dtype,
                                                const tvm_tir_index_map_obj* inverse,
                                                const char* what) {
  void* names = tvm_script__lambda_params(fn, what);
  if (!names) return NULL;
  int64_t n = tvm_ffi_seq_size(names);
  TVMFFIAny* vars = tvm_ffi_calloc((size_t)n + 1, sizeof(TVMFFIAny));
  TVMFFIAny res = tvm_ffi_any_none();
  void *initial = NULL, *final = NULL;
  tvm_tir_index_map_obj* m = NULL;
  int64_t made = 0;
  for (; vars && made < n; ++made) {
    tvm_tir_var_obj* v = tvm_tir_var_new(tvm_ffi_str_cstr(tvm_ffi_seq_obj_at(names, made)), dtype);
    if (!v) break;
    vars[made] = tvm_ffi_any_obj(v);
  }
  if (made == n && (initial = tvm_ffi_array_new(vars, n)) != NULL &&
      tvm_ffi_function_call(fn->v_obj, vars, (int32_t)n, &res) == 0) {
    const void* seq = tvm_ffi_any_as_object(&res, kTVMFFIArray);
    int64_t k = seq ? tvm_ffi_seq_size(seq) : 1;
    void* list = tvm_ffi_list_new();
    for (int64_t i = 0; list && i < k; ++i) {
      const TVMFFIAny* item = seq ? tvm_ffi_seq_at(seq, i) : &res;
      tvm_tir_expr_obj* e = expr_as(item, dtype, "an index of T.index_map's result");
      TVMFFIAny ea = tvm_ffi_any_obj(e);
      if (!e || tvm_ffi_list_push(list, &ea) != 0) {
        tvm_ffi_release(e);
        tvm_ffi_release(list);
        list = NULL;
        break;
      }
      tvm_ffi_release(e);
    }
    final = list ? tvm_ffi_list_to_array(list) : NULL;
    tvm_ffi_release(list);
    if (final) m = tvm_tir_index_map_new(initial, final, inverse);
  }
  for (int64_t i = 0; i < made; ++i) tvm_ffi_any_release(&vars[i]);
  tvm_ffi_free(vars);
  tvm_ffi_any_release(&res);
  tvm_ffi_release(names);
  tvm_ffi_release(initial);
  tvm_ffi_release(final);
  return m;
}

/* T.index_map(mapping, *, inverse_index_map=None, index_dtype="int64"): the indices are Vars of
 * index_dtype, as upstream's IndexMap.from_func. */
int tvm_script__b_index_map(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "mapping, *inverse_index_map=, *index_dtype=";
  TVMFFIAny a[3];
  if (tvm_script__bind_args(call, spec, a, 3) != 0) return -1;
  DLDataType dtype = TVM_TIR_INT64;
  if (tvm_script_arg_given(&a[2]) &&
      tvm_script__value_to_dtype(&a[2], "argument 'index_dtype' of T.index_map", &dtype) != 0) {
    return call->error_arg = tvm_script__arg_index(call, spec, 2), -1;
  }
  tvm_tir_index_map_obj* inverse = NULL;
  if (tvm_script_arg_given(&a[1]) && !tvm_ffi_any_is_none(&a[1])) {
    const void* given_map = tvm_ffi_any_as_object(&a[1], tvm_tir_type_index(TVM_TIR_KIND_IndexMap));
    if (given_map) tvm_ffi_retain((void*)given_map);
    inverse = given_map
                  ? (tvm_tir_index_map_obj*)given_map
                  : tvm_script__index_map_of(&a[1], dtype, NULL,
                                             "argument 'inverse_index_map' of T.index_map");
    if (!inverse) return call->error_arg = tvm_script__arg_index(call, spec, 1), -1;
  }
  tvm_tir_index_map_obj* m =
      tvm_script__index_map_of(&a[0], dtype, inverse, "argument 'mapping' of T.index_map");
  tvm_ffi_release(inverse);
  if (!m) return call->error_arg = tvm_script__arg_index(call, spec, 0), -1;
  *out = tvm_ffi_any_obj(m);
  return 0;
}

/* ---- I.vdevice ----------------------------------------------------------------------------- */
/* I.vdevice(target, vdevice_id=0, memory_scope="global"): target a string, dict or Target. */
int tvm_script__b_vdevice(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "target, vdevice_id=, memory_scope=";
  TVMFFIAny a[3];
  if (tvm_script__bind_args(call, spec, a, 3) != 0) return -1;
  int64_t id = 0;
  const char* scope = "global";
  int bad = -1;
  if (tvm_script_arg_given(&a[1]) &&
      tvm_script__value_to_int(&a[1], "argument 'vdevice_id' of I.vdevice", &id) != 0) {
    bad = 1;
  } else if (tvm_script_arg_given(&a[2]) &&
             !(scope = tvm_script__value_to_cstr(&a[2], "argument 'memory_scope' of I.vdevice"))) {
    bad = 2;
  }
  tvm_tir_target_obj* t = bad < 0 ? to_target(&a[0], "argument 'target' of I.vdevice") : NULL;
  if (bad < 0 && !t) bad = 0;
  tvm_tir_vdevice_obj* v = t ? tvm_tir_vdevice_new(t, id, scope) : NULL;
  if (t && !v) bad = 1; /* the constructor only rejects the id */
  tvm_ffi_release(t);
  if (!v) return call->error_arg = tvm_script__arg_index(call, spec, bad), -1;
  *out = tvm_ffi_any_obj(v);
  return 0;
}

/* I.dummy_global_info(): an ir.DummyGlobalInfo. */
static int b_dummy_global_info(tvm_script_call* call, TVMFFIAny* out) {
  if (call->num_args + call->num_kwargs > 0) {
    call->error_arg = 0;
    return tvm_ffi_raise("TypeError", "I.dummy_global_info() takes no arguments (%d given)",
                         (int)(call->num_args + call->num_kwargs));
  }
  tvm_tir_dummy_global_info_obj* g = tvm_tir_dummy_global_info_new();
  if (!g) return -1;
  *out = tvm_ffi_any_obj(g);
  return 0;
}

/* I.meta_var(value) / T.meta_var(value): marks a Python value for metaprogramming; the value
 * itself here, where every name is evaluated when parsed. */
int tvm_script__b_meta_var(tvm_script_call* call, TVMFFIAny* out) {
  TVMFFIAny a[1];
  if (tvm_script__bind_args(call, "value", a, 1) != 0) return -1;
  *out = tvm_ffi_any_copy(&a[0]);
  return 0;
}

const tvm_script_builtin* tvm_script__ir_builtin_lookup(const char* name, size_t len) {
  static const tvm_script_builtin k_table[] = {{"vdevice", tvm_script__b_vdevice},
                                               {"meta_var", tvm_script__b_meta_var},
                                               {"dummy_global_info", b_dummy_global_info}};
  for (size_t i = 0; i < sizeof(k_table) / sizeof(k_table[0]); ++i) {
    if (strlen(k_table[i].name) == len && memcmp(k_table[i].name, name, len) == 0) {
      return &k_table[i];
    }
  }
  return NULL;
}

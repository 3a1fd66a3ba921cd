/*
 * builder.c: the _take functions of tvm/tir/builder.h. Each one checks on entry that no error is
 * raised and its required arguments are non-NULL (propagating the first failure of a nested
 * expression), calls the borrowing constructor or operator helper, and releases its arguments.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static void release_n(void* const* objs, int64_t n) {
  for (int64_t i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
}

/* Whether a builder function may go on: no error raised, and objs[0..required) non-NULL. A
 * NULL required argument with no error raised is a ValueError. */
static bool enter(const char* fn, void* const* objs, int64_t required) {
  if (tvm_ffi_error_pending()) return false;
  for (int64_t i = 0; i < required; ++i) {
    if (!objs[i]) {
      tvm_ffi_raise("ValueError", "%s: argument %lld is NULL", fn, (long long)i);
      return false;
    }
  }
  return true;
}

/* ---- Variables and literals ---------------------------------------------------------------- */
tvm_tir_var_obj* tvm_tir_var(const char* name, DLDataType dtype) {
  return tvm_ffi_error_pending() ? NULL : tvm_tir_var_new(name, dtype);
}

tvm_tir_var_obj* tvm_tir_ptr_var(const char* name, DLDataType element, const char* scope) {
  if (tvm_ffi_error_pending()) return NULL;
  tvm_tir_pointer_type_obj* t = tvm_tir_pointer_type_of(element, scope);
  tvm_tir_var_obj* v = t ? tvm_tir_var_new_typed(name, &t->type) : NULL;
  tvm_ffi_release(t);
  return v;
}

tvm_tir_var_obj* tvm_tir_var_str(void* name, DLDataType dtype) {
  return tvm_ffi_error_pending() ? NULL : tvm_tir_var_new_str(name, dtype);
}

tvm_tir_var_obj* tvm_tir_ptr_var_str(void* name, DLDataType element, const char* scope) {
  if (tvm_ffi_error_pending()) return NULL;
  tvm_tir_pointer_type_obj* t = tvm_tir_pointer_type_of(element, scope);
  tvm_tir_var_obj* v = t ? tvm_tir_var_new_typed_str(name, &t->type) : NULL;
  tvm_ffi_release(t);
  return v;
}

tvm_tir_expr_obj* tvm_tir_const(DLDataType dtype, int64_t v) {
  return tvm_ffi_error_pending() ? NULL : tvm_tir_const_int(dtype, v);
}
tvm_tir_expr_obj* tvm_tir_int(int64_t v) { return tvm_tir_const(TVM_TIR_INT32, v); }
tvm_tir_expr_obj* tvm_tir_i64(int64_t v) { return tvm_tir_const(TVM_TIR_INT64, v); }
tvm_tir_expr_obj* tvm_tir_bool(bool v) { return tvm_tir_const(TVM_TIR_BOOL, v); }
tvm_tir_expr_obj* tvm_tir_f32(double v) {
  return tvm_ffi_error_pending() ? NULL : tvm_tir_float_imm_new(TVM_TIR_FLOAT32, v);
}
tvm_tir_expr_obj* tvm_tir_f64(double v) {
  return tvm_ffi_error_pending() ? NULL : tvm_tir_float_imm_new(TVM_TIR_FLOAT64, v);
}
tvm_tir_expr_obj* tvm_tir_str(const char* s) {
  return tvm_ffi_error_pending() ? NULL : tvm_tir_string_imm_new(s, s ? strlen(s) : 0);
}

/* ---- Expressions --------------------------------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_binary_take(tvm_tir_kind kind, void* a, void* b) {
  void* args[] = {a, b};
  tvm_tir_expr_obj* r = enter(tvm_tir_kind_name(kind), args, 2) ? tvm_tir_binary(kind, a, b) : NULL;
  release_n(args, 2);
  return r;
}

#define BINARY_TAKE(fn, KIND) \
  tvm_tir_expr_obj* fn(void* a, void* b) { return tvm_tir_binary_take(TVM_TIR_KIND_##KIND, a, b); }
BINARY_TAKE(tvm_tir_add_take, Add)
BINARY_TAKE(tvm_tir_sub_take, Sub)
BINARY_TAKE(tvm_tir_mul_take, Mul)
BINARY_TAKE(tvm_tir_div_take, Div)
BINARY_TAKE(tvm_tir_mod_take, Mod)
BINARY_TAKE(tvm_tir_floordiv_take, FloorDiv)
BINARY_TAKE(tvm_tir_floormod_take, FloorMod)
BINARY_TAKE(tvm_tir_min_take, Min)
BINARY_TAKE(tvm_tir_max_take, Max)
BINARY_TAKE(tvm_tir_eq_take, EQ)
BINARY_TAKE(tvm_tir_ne_take, NE)
BINARY_TAKE(tvm_tir_lt_take, LT)
BINARY_TAKE(tvm_tir_le_take, LE)
BINARY_TAKE(tvm_tir_gt_take, GT)
BINARY_TAKE(tvm_tir_ge_take, GE)
BINARY_TAKE(tvm_tir_and_take, And)
BINARY_TAKE(tvm_tir_or_take, Or)

tvm_tir_expr_obj* tvm_tir_not_take(void* a) {
  tvm_tir_expr_obj* r = enter("not", &a, 1) ? tvm_tir_not(a) : NULL;
  tvm_ffi_release(a);
  return r;
}

tvm_tir_expr_obj* tvm_tir_neg_take(void* a) {
  tvm_tir_expr_obj* r = enter("neg", &a, 1) ? tvm_tir_neg(a) : NULL;
  tvm_ffi_release(a);
  return r;
}

tvm_tir_expr_obj* tvm_tir_cast_take(DLDataType dtype, void* value) {
  tvm_tir_expr_obj* r = enter("cast", &value, 1) ? tvm_tir_cast(dtype, value) : NULL;
  tvm_ffi_release(value);
  return r;
}

tvm_tir_expr_obj* tvm_tir_select_take(void* condition, void* true_value, void* false_value) {
  void* args[] = {condition, true_value, false_value};
  tvm_tir_expr_obj* r =
      enter("select", args, 3) ? tvm_tir_select(condition, true_value, false_value) : NULL;
  release_n(args, 3);
  return r;
}

tvm_tir_expr_obj* tvm_tir_let_take(void* var, void* value, void* body) {
  void* args[] = {var, value, body};
  tvm_tir_expr_obj* r = enter("let", args, 3) ? tvm_tir_let_new(var, value, body) : NULL;
  release_n(args, 3);
  return r;
}

tvm_tir_expr_obj* tvm_tir_ramp_take(void* base, void* stride, int32_t lanes) {
  void* args[] = {base, stride};
  tvm_tir_expr_obj* r = enter("ramp", args, 2) ? tvm_tir_ramp_new(base, stride, lanes) : NULL;
  release_n(args, 2);
  return r;
}

tvm_tir_expr_obj* tvm_tir_broadcast_take(void* value, int32_t lanes) {
  tvm_tir_expr_obj* r = enter("broadcast", &value, 1) ? tvm_tir_broadcast_new(value, lanes) : NULL;
  tvm_ffi_release(value);
  return r;
}

tvm_tir_expr_obj* tvm_tir_load_takev(void* buffer, int64_t n, void* const* indices) {
  tvm_tir_expr_obj* r = NULL;
  if (enter("load", &buffer, 1) && enter("load", indices, n)) {
    void* arr = tvm_ffi_array_of_objects(indices, n);
    if (arr) r = tvm_tir_buffer_load_new(buffer, arr);
    tvm_ffi_release(arr);
  }
  tvm_ffi_release(buffer);
  release_n(indices, n);
  return r;
}

static tvm_tir_expr_obj* call_with(DLDataType dtype, void* op, int64_t n, void* const* args) {
  if (!op || !enter("call", args, n)) return NULL;
  void* arr = tvm_ffi_array_of_objects(args, n);
  tvm_tir_expr_obj* r = arr ? tvm_tir_call_new(dtype, op, arr) : NULL;
  tvm_ffi_release(arr);
  return r;
}

tvm_tir_expr_obj* tvm_tir_call_takev(DLDataType dtype, const char* op_name, int64_t n,
                                     void* const* args) {
  tvm_tir_op_obj* op = tvm_ffi_error_pending() ? NULL : tvm_tir_op_get(op_name);
  tvm_tir_expr_obj* r = call_with(dtype, op, n, args);
  tvm_ffi_release(op);
  release_n(args, n);
  return r;
}

tvm_tir_expr_obj* tvm_tir_call_global_takev(DLDataType dtype, void* global_var, int64_t n,
                                            void* const* args) {
  tvm_tir_expr_obj* r =
      enter("call", &global_var, 1) ? call_with(dtype, global_var, n, args) : NULL;
  tvm_ffi_release(global_var);
  release_n(args, n);
  return r;
}

/* ---- Arrays -------------------------------------------------------------------------------- */
void* tvm_tir_list_takev(int64_t n, void* const* objs) {
  void* r = enter("list", objs, n) ? tvm_ffi_array_of_objects(objs, n) : NULL;
  release_n(objs, n);
  return r;
}

/* ---- Buffers and regions ------------------------------------------------------------------- */
tvm_tir_buffer_obj* tvm_tir_buffer_declv(const char* name, DLDataType dtype, int64_t ndim,
                                         const int64_t* shape) {
  if (tvm_ffi_error_pending()) return NULL;
  if (ndim < 0 || (ndim > 0 && !shape)) {
    tvm_ffi_raise("ValueError", "buffer_decl: invalid shape (ndim %lld)", (long long)ndim);
    return NULL;
  }
  DLDataType index = TVM_TIR_INT32;
  for (int64_t i = 0; i < ndim; ++i) {
    if (!tvm_tir_dtype_int_fits(TVM_TIR_INT32, shape[i])) index = TVM_TIR_INT64;
  }
  void* dims = tvm_ffi_list_new();
  bool ok = dims != NULL;
  for (int64_t i = 0; ok && i < ndim; ++i) {
    tvm_tir_expr_obj* d = tvm_tir_int_imm_new(index, shape[i]);
    TVMFFIAny item = tvm_ffi_any_obj(d);
    ok = d && tvm_ffi_list_push(dims, &item) == 0;
    tvm_ffi_release(d);
  }
  void* arr = ok ? tvm_ffi_list_to_array(dims) : NULL;
  tvm_tir_buffer_obj* b = arr ? tvm_tir_buffer_decl_new(name, dtype, arr, NULL) : NULL;
  tvm_ffi_release(arr);
  tvm_ffi_release(dims);
  return b;
}

tvm_tir_buffer_obj* tvm_tir_buffer_decl_takev(const char* name, DLDataType dtype, int64_t ndim,
                                              void* const* shape, const char* scope) {
  tvm_tir_buffer_obj* b = NULL;
  if (enter("buffer_decl", shape, ndim)) {
    void* arr = tvm_ffi_array_of_objects(shape, ndim);
    if (arr) b = tvm_tir_buffer_decl_new(name, dtype, arr, scope);
    tvm_ffi_release(arr);
  }
  release_n(shape, ndim);
  return b;
}

tvm_tir_range_obj* tvm_tir_range_take(void* min, void* extent) {
  tvm_tir_range_obj* r = enter("range", &min, 1) ? tvm_tir_range_new(min, extent) : NULL;
  tvm_ffi_release(min);
  tvm_ffi_release(extent);
  return r;
}

tvm_tir_buffer_region_obj* tvm_tir_region_takev(void* buffer, int64_t n, void* const* ranges) {
  tvm_tir_buffer_region_obj* r = NULL;
  if (enter("region", &buffer, 1) && enter("region", ranges, n)) {
    void* arr = tvm_ffi_array_of_objects(ranges, n);
    if (arr) r = tvm_tir_buffer_region_new(buffer, arr);
    tvm_ffi_release(arr);
  }
  tvm_ffi_release(buffer);
  release_n(ranges, n);
  return r;
}

tvm_tir_iter_var_obj* tvm_tir_iter_var_take(void* var, void* min, void* extent,
                                            tvm_tir_iter_var_type iter_type) {
  void* args[] = {var, min, extent};
  tvm_tir_iter_var_obj* r = NULL;
  if (enter("iter_var", args, 3)) {
    tvm_tir_range_obj* dom = tvm_tir_range_new(min, extent);
    if (dom) r = tvm_tir_iter_var_new(dom, var, iter_type, NULL);
    tvm_ffi_release(dom);
  }
  release_n(args, 3);
  return r;
}

/* ---- Statements ---------------------------------------------------------------------------- */
tvm_tir_stmt_obj* tvm_tir_store_takev(void* buffer, void* value, int64_t n, void* const* indices) {
  void* args[] = {buffer, value};
  tvm_tir_stmt_obj* r = NULL;
  if (enter("store", args, 2) && enter("store", indices, n)) {
    void* arr = tvm_ffi_array_of_objects(indices, n);
    if (arr) r = tvm_tir_buffer_store_new(buffer, value, arr);
    tvm_ffi_release(arr);
  }
  release_n(args, 2);
  release_n(indices, n);
  return r;
}

/* Append s to list, splicing the elements of a SeqStmt. */
static int append_flat(void* list, void* s) {
  if (TIR_IS(s, SeqStmt)) {
    const void* seq = ((tvm_tir_seq_stmt_obj*)s)->seq;
    for (int64_t i = 0; i < tvm_ffi_seq_size(seq); ++i) {
      if (append_flat(list, tvm_ffi_seq_obj_at(seq, i)) != 0) return -1;
    }
    return 0;
  }
  TVMFFIAny item = tvm_ffi_any_obj(s);
  return tvm_ffi_list_push(list, &item);
}

tvm_tir_stmt_obj* tvm_tir_seq_takev(int64_t n, void* const* stmts) {
  tvm_tir_stmt_obj* r = NULL;
  if (enter("seq", stmts, n)) {
    void* list = tvm_ffi_list_new();
    bool ok = list != NULL;
    for (int64_t i = 0; ok && i < n; ++i) {
      ok = tvm_tir__check_kind(stmts[i], TVM_TIR_KIND_Stmt, "seq", "statement") == 0 &&
           append_flat(list, stmts[i]) == 0;
    }
    int64_t count = ok ? tvm_ffi_seq_size(list) : -1;
    if (count == 0) {
      tvm_tir_expr_obj* zero = tvm_tir_int_imm_new(TVM_TIR_INT32, 0);
      if (zero) r = tvm_tir_evaluate_new(zero);
      tvm_ffi_release(zero);
    } else if (count == 1) {
      r = (tvm_tir_stmt_obj*)tvm_ffi_seq_obj_at(list, 0);
      tvm_ffi_retain(r);
    } else if (count > 1) {
      void* arr = tvm_ffi_list_to_array(list);
      if (arr) r = tvm_tir_seq_stmt_new(arr);
      tvm_ffi_release(arr);
    }
    tvm_ffi_release(list);
  }
  release_n(stmts, n);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_evaluate_take(void* value) {
  tvm_tir_stmt_obj* r = enter("evaluate", &value, 1) ? tvm_tir_evaluate_new(value) : NULL;
  tvm_ffi_release(value);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_for_take(void* loop_var, void* min, void* extent, tvm_tir_for_kind kind,
                                   void* body) {
  void* args[] = {loop_var, min, extent, body};
  tvm_tir_stmt_obj* r =
      enter("for", args, 4) ? tvm_tir_for_new(loop_var, min, extent, kind, body, NULL, NULL) : NULL;
  release_n(args, 4);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_serial_take(void* loop_var, void* min, void* extent, void* body) {
  return tvm_tir_for_take(loop_var, min, extent, TVM_TIR_FOR_SERIAL, body);
}

tvm_tir_stmt_obj* tvm_tir_if_take(void* condition, void* then_case, void* else_case) {
  void* args[] = {condition, then_case, else_case};
  tvm_tir_stmt_obj* r =
      enter("if", args, 2) ? tvm_tir_if_then_else_new(condition, then_case, else_case) : NULL;
  release_n(args, 3);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_while_take(void* condition, void* body) {
  void* args[] = {condition, body};
  tvm_tir_stmt_obj* r = enter("while", args, 2) ? tvm_tir_while_new(condition, body) : NULL;
  release_n(args, 2);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_let_stmt_take(void* var, void* value, void* body) {
  void* args[] = {var, value, body};
  tvm_tir_stmt_obj* r = enter("let_stmt", args, 3) ? tvm_tir_let_stmt_new(var, value, body) : NULL;
  release_n(args, 3);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_assert_take(void* condition, const char* message, void* body) {
  void* args[] = {condition, body};
  tvm_tir_stmt_obj* r = NULL;
  if (enter("assert", args, 2)) {
    tvm_tir_expr_obj* msg = tvm_tir_string_imm_new(message, message ? strlen(message) : 0);
    if (msg) r = tvm_tir_assert_stmt_new(condition, msg, body);
    tvm_ffi_release(msg);
  }
  release_n(args, 2);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_attr_take(void* node, const char* key, void* value, void* body) {
  void* args[] = {value, body, node};
  tvm_tir_stmt_obj* r = NULL;
  if (enter("attr", args, 2)) {
    TVMFFIAny n = tvm_ffi_any_obj(node);
    r = tvm_tir_attr_stmt_new(&n, key, value, body);
  }
  release_n(args, 3);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_decl_buffer_take(void* buffer, void* body) {
  void* args[] = {buffer, body};
  tvm_tir_stmt_obj* r =
      enter("decl_buffer", args, 2) ? tvm_tir_decl_buffer_new(buffer, body) : NULL;
  release_n(args, 2);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_allocate_takev(void* buffer_var, DLDataType dtype, int64_t n,
                                         void* const* extents, void* body) {
  void* args[] = {buffer_var, body};
  tvm_tir_stmt_obj* r = NULL;
  if (enter("allocate", args, 2) && enter("allocate", extents, n)) {
    void* arr = tvm_ffi_array_of_objects(extents, n);
    if (arr) r = tvm_tir_allocate_new(buffer_var, dtype, arr, NULL, body, NULL);
    tvm_ffi_release(arr);
  }
  release_n(args, 2);
  release_n(extents, n);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_block_full_take(const char* name, void* iter_vars, void* iter_values,
                                          void* reads, void* writes, void* init,
                                          void* alloc_buffers, void* body) {
  void* args[] = {body, iter_vars, iter_values, reads, writes, init, alloc_buffers};
  tvm_tir_stmt_obj* r = NULL;
  if (enter("block", args, 1)) {
    tvm_tir_sblock_fields f;
    memset(&f, 0, sizeof(f));
    f.name_hint = name;
    f.iter_vars = iter_vars;
    f.reads = reads;
    f.writes = writes;
    f.init = init;
    f.alloc_buffers = alloc_buffers;
    f.body = body;
    tvm_tir_sblock_obj* block = tvm_tir_sblock_new(&f);
    if (block) r = tvm_tir_sblock_realize_new(iter_values, NULL, block);
    tvm_ffi_release(block);
  }
  release_n(args, 7);
  return r;
}

tvm_tir_stmt_obj* tvm_tir_block_take(const char* name, void* iter_vars, void* iter_values,
                                     void* reads, void* writes, void* body) {
  return tvm_tir_block_full_take(name, iter_vars, iter_values, reads, writes, NULL, NULL, body);
}

/* ---- Functions and modules ----------------------------------------------------------------- */
/* params: Vars kept, Buffers replaced by a handle Var mapped to them. */
static tvm_tir_prim_func_obj* make_func(const char* global_symbol, void* params, void* body) {
  if (params && tvm_ffi_type_index(params) != kTVMFFIArray) {
    tvm_ffi_raise("TypeError", "func: params must be an ffi.Array of Var and Buffer");
    return NULL;
  }
  int64_t n = params ? tvm_ffi_seq_size(params) : 0;
  void* vars = tvm_ffi_list_new();
  void* bmap = tvm_ffi_dict_new();
  bool ok = vars && bmap;
  for (int64_t i = 0; ok && i < n; ++i) {
    void* p = tvm_ffi_seq_obj_at(params, i);
    TVMFFIAny param = tvm_ffi_any_obj(p), buffer = tvm_ffi_any_obj(p);
    if (TIR_IS(p, Buffer)) {
      char name[256];
      snprintf(name, sizeof(name), "%s_handle", tvm_tir_buffer_name((tvm_tir_buffer_obj*)p));
      tvm_tir_var_obj* v = tvm_tir_var_new(name, TVM_TIR_HANDLE);
      param = tvm_ffi_any_obj(v);
      ok =
          v && tvm_ffi_dict_set(bmap, &param, &buffer) == 0 && tvm_ffi_list_push(vars, &param) == 0;
      tvm_ffi_release(v);
    } else if (tvm_tir_is_var(p)) {
      ok = tvm_ffi_list_push(vars, &param) == 0;
    } else {
      tvm_ffi_raise("TypeError", "func: params[%lld] must be a Var or a Buffer, got %s",
                    (long long)i, tvm_ffi_type_key(tvm_ffi_type_index(p)));
      ok = false;
    }
  }
  TVMFFIAny sym_key = tvm_ffi_any_raw_str("global_symbol");
  TVMFFIAny sym = tvm_ffi_any_raw_str(global_symbol ? global_symbol : "");
  void* ps = ok ? tvm_ffi_list_to_array(vars) : NULL;
  void* map = ps ? tvm_ffi_dict_to_map(bmap) : NULL;
  void* attrs = map ? tvm_ffi_map_new(&sym_key, &sym, global_symbol ? 1 : 0) : NULL;
  tvm_tir_prim_func_obj* f = attrs ? tvm_tir_prim_func_new(ps, body, NULL, map, attrs) : NULL;
  tvm_ffi_release(vars);
  tvm_ffi_release(bmap);
  tvm_ffi_release(ps);
  tvm_ffi_release(map);
  tvm_ffi_release(attrs);
  return f;
}

tvm_tir_prim_func_obj* tvm_tir_func_take(const char* global_symbol, void* params, void* body) {
  void* args[] = {body, params};
  tvm_tir_prim_func_obj* f = enter("func", args, 1) ? make_func(global_symbol, params, body) : NULL;
  release_n(args, 2);
  return f;
}

tvm_tir_ir_module_obj* tvm_tir_module_takev(int64_t n, void* const* funcs) {
  tvm_tir_ir_module_obj* m = NULL;
  if (enter("module", funcs, n)) {
    void* fns = tvm_ffi_dict_new();
    bool ok = fns != NULL;
    for (int64_t i = 0; ok && i < n; ++i) {
      const char* name = tvm_tir_func_global_symbol(funcs[i]);
      if (!name) {
        tvm_ffi_raise("ValueError", "module: function %lld has no global_symbol", (long long)i);
        ok = false;
        break;
      }
      tvm_tir_global_var_obj* gv = tvm_tir_global_var_new(name);
      TVMFFIAny key = tvm_ffi_any_obj(gv), value = tvm_ffi_any_obj(funcs[i]);
      ok = gv && tvm_ffi_dict_set(fns, &key, &value) == 0;
      tvm_ffi_release(gv);
    }
    void* map = ok ? tvm_ffi_dict_to_map(fns) : NULL;
    if (map) m = tvm_tir_ir_module_new(map, NULL);
    tvm_ffi_release(map);
    tvm_ffi_release(fns);
  }
  release_n(funcs, n);
  return m;
}

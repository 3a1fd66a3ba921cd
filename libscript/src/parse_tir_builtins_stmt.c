/*
 * parse_tir_builtins_stmt.c: the statement and frame builtins of TVMScript's `T.*`: each binds
 * its arguments (parse_builtin_args.c) and drives the IR builder (tvm/script/ir_builder.h).
 *
 * The statement form comes from call->ctx: a frame builtin in a `with` (`with T.sblock("b"):`)
 * or `for` (`for i in T.serial(n):`) opens an explicit frame that the statement handler closes
 * after the body; in an assignment or expression statement (`A = T.decl_buffer(...)`,
 * `T.attr(...)`) a scoped statement opens a rest-of-body frame instead. Names of new Vars and
 * Buffers come from call->targets.
 *
 * Spellings: T.sblock / T.block, T.sblock_attr / T.block_attr, T.sblock_alloc_buffer /
 * T.alloc_buffer, and the old frame forms T.If / T.Then / T.Else / T.While / T.Assert /
 * T.LetStmt (and T.bind, upstream's name for it).
 */
#include <stdio.h>
#include <string.h>

#include "parse_bound_args.h"

/* ---- Bound arguments (parse_bound_args.h) ------------------------------------------------- */
/* A dict argument (an ffi.Map, borrowed). */
static const void* arg_map(bound_args* a, int i) {
  char what[160];
  const void* m = tvm_ffi_any_as_object(&a->v[i], kTVMFFIMap);
  if (m) return m;
  tvm_ffi_raise("TypeError", "%s must be a dict, got %s", WHAT(a, i),
                tvm_ffi_any_type_name(&a->v[i]));
  return fail(a, i);
}

/* An object argument that is a libtir node of kind (borrowed), else NULL without raising. */
static const void* arg_node(const bound_args* a, int i, tvm_tir_kind kind) {
  const void* o = tvm_ffi_any_is_object(&a->v[i]) ? a->v[i].v_obj : NULL;
  return tvm_tir_is(o, kind) ? o : NULL;
}

/* The single name the statement binds, or NULL. */
static const char* target(const tvm_script_call* call) {
  return call->num_targets == 1 ? call->targets[0] : NULL;
}

/* Return obj (a new reference, or NULL after an error) as the call's value. */
static int ret_obj(TVMFFIAny* out, void* obj) {
  if (!obj) return -1;
  *out = tvm_ffi_any_obj(obj);
  return 0;
}

/* The value of a scoped statement builtin: its Var, except in an expression statement
 * (`T.launch_thread(tx, 64)`), whose value would otherwise become a T.evaluate. */
static int ret_scoped(const tvm_script_call* call, TVMFFIAny* out, void* obj) {
  if (obj && call->ctx == TVM_SCRIPT_CTX_STMT) {
    tvm_ffi_release(obj);
    *out = tvm_ffi_any_none();
    return 0;
  }
  return ret_obj(out, obj);
}

static int ret_none(TVMFFIAny* out, int rc) {
  *out = tvm_ffi_any_none();
  return rc;
}

static int bad_ctx(tvm_script_call* call, const char* form) {
  return tvm_ffi_raise("ValueError", "%s(...) is only valid %s", call->name, form);
}

/* Scoped statements: `with X(...):` is an explicit frame; an assignment or an expression
 * statement opens a rest-of-body frame. */
static int scoped_form(tvm_script_call* call, bool* rest_of_body) {
  if (call->ctx == TVM_SCRIPT_CTX_WITH) {
    *rest_of_body = false;
    return 0;
  }
  if (call->ctx == TVM_SCRIPT_CTX_ASSIGN || call->ctx == TVM_SCRIPT_CTX_STMT) {
    *rest_of_body = true;
    return 0;
  }
  return bad_ctx(call, "as a statement, an assignment or a `with` item");
}

/* ---- Buffers ------------------------------------------------------------------------------- */
#define BUFFER_PARAMS                                                                     \
  "dtype=, data=, strides=, elem_offset=, scope=, align=, offset_factor=, buffer_type=, " \
  "axis_separators=, layout="
enum { BUFFER_NPARAMS = 10 };

/* Strides whose string elements name fresh variables of the index dtype (the printer writes a
 * stride defined by the buffer itself as its name: `strides=("s0", 1)`). */
static void* strides_array(bound_args* a, int i, DLDataType index_t) {
  const TVMFFIAny* v = &a->v[i];
  const void* seq = tvm_ffi_any_as_object(v, kTVMFFIArray);
  bool has_str = false;
  for (int64_t k = 0; seq && k < tvm_ffi_seq_size(seq); ++k) {
    TVMFFIByteArray s;
    has_str = has_str || (tvm_ffi_seq_at(seq, k)->type_index != kTVMFFIInt &&
                          tvm_ffi_any_as_bytes(tvm_ffi_seq_at(seq, k), &s));
  }
  if (!has_str) return arg_expr_array(a, i);
  int64_t n = tvm_ffi_seq_size(seq);
  void* list = tvm_ffi_list_new();
  for (int64_t k = 0; list && k < n; ++k) {
    const TVMFFIAny* e = tvm_ffi_seq_at(seq, k);
    TVMFFIByteArray s;
    char what[160];
    void* x = NULL;
    if (tvm_ffi_any_as_bytes(e, &s)) {
      char* name = tvm_ffi_strndup(s.data, s.size);
      x = name ? tvm_tir_var_new(name, index_t) : NULL;
      tvm_ffi_free(name);
    } else {
      x = tvm_script__value_to_expr_slow(e, WHAT(a, i));
    }
    TVMFFIAny xa = tvm_ffi_any_obj(x);
    if (!x || tvm_ffi_list_push_take(list, &xa) != 0) {
      tvm_ffi_release(x);
      tvm_ffi_release(list);
      return fail(a, i);
    }
  }
  void* arr = list ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  return arr;
}

/* Fill *ba from the parameters BUFFER_PARAMS bound at a->v[first...] (shape set by the
 * caller). *owned receives the objects to release afterwards (strides, elem_offset, seps). */
static int buffer_kwargs(bound_args* a, int first, tvm_script_buffer_args* ba, void* owned[3]) {
  owned[0] = owned[1] = owned[2] = NULL;
  if (given(a, first) && arg_dtype(a, first, &ba->dtype) != 0) return -1;
  /* (Most buffers: the shape and at most the dtype, positionally, and no keywords. Then every
   * later parameter is absent, and none of the tests below would pass.) */
  if (a->call->num_kwargs == 0 && a->call->num_args <= first + 1) return 0;
  if (given(a, first + 1)) {
    ba->data = arg_node(a, first + 1, TVM_TIR_KIND_Var);
    if (!ba->data) {
      fail(a, first + 1);
      return tvm_ffi_raise("TypeError", "%s: data must be a handle Var, got %s", a->call->name,
                           tvm_ffi_any_type_name(&a->v[first + 1]));
    }
  }
  DLDataType index_t = tvm_ffi_seq_size(ba->shape)
                           ? tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(ba->shape, 0))
                           : TVM_TIR_INT32;
  if (given(a, first + 2) && !(ba->strides = owned[0] = strides_array(a, first + 2, index_t))) {
    return -1;
  }
  if (given(a, first + 3) && !(ba->elem_offset = owned[1] = arg_expr(a, first + 3))) return -1;
  if (given(a, first + 4) && !(ba->scope = arg_cstr(a, first + 4))) return -1;
  int64_t x;
  if (given(a, first + 5)) {
    if (arg_int(a, first + 5, &x) != 0) return -1;
    ba->align = (int32_t)x;
  }
  if (given(a, first + 6)) {
    if (arg_int(a, first + 6, &x) != 0) return -1;
    ba->offset_factor = (int32_t)x;
  }
  if (given(a, first + 7) && !(ba->buffer_type = arg_cstr(a, first + 7))) return -1;
  if (given(a, first + 8) && !(ba->axis_separators = owned[2] = arg_expr_array(a, first + 8))) {
    return -1;
  }
  /* layout=: upstream's newer Buffer carries a layout (a TileLayout of device dialects); the
   * default one, None (which upstream's printer writes), is every Buffer here. */
  if (given(a, first + 9) && !tvm_ffi_any_is_none(&a->v[first + 9])) {
    fail(a, first + 9);
    return tvm_ffi_raise("NotImplementedError",
                         "%s: buffer layouts other than the default (layout=None) are not "
                         "supported, got %s",
                         a->call->name, tvm_ffi_any_type_name(&a->v[first + 9]));
  }
  return 0;
}

static void release3(void* owned[3]) {
  for (int i = 0; i < 3; ++i) tvm_ffi_release(owned[i]);
}

typedef enum { BUF_PLAIN, BUF_ALLOC, BUF_DECL } buffer_api;

/* T.Buffer / T.alloc_buffer / T.sblock_alloc_buffer / T.decl_buffer (shape first). */
static int buffer_builtin(tvm_script_call* call, TVMFFIAny* out, buffer_api api) {
  bound_args a;
  bool rest = false;
  if (api == BUF_DECL && scoped_form(call, &rest) != 0) return -1;
  if (bind(&a, call, "shape, " BUFFER_PARAMS, 1 + BUFFER_NPARAMS) != 0) return -1;
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = target(call);
  ba.name_str = ba.name && call->builder ? tvm_script__name_str(call->builder, ba.name) : NULL;
  ba.builder = call->builder;
  void* owned[3] = {NULL, NULL, NULL};
  ba.shape = arg_expr_array(&a, 0);
  if (!ba.shape || buffer_kwargs(&a, 1, &ba, owned) != 0) {
    tvm_ffi_release(ba.shape);
    release3(owned);
    return -1;
  }
  tvm_tir_buffer_obj* buf = api == BUF_PLAIN ? tvm_script_tir_buffer(&ba)
                            : api == BUF_ALLOC
                                ? tvm_script__tir_alloc_buffer(
                                      call->builder, &ba,
                                      call->ctx == TVM_SCRIPT_CTX_ASSIGN ||
                                          call->ctx == TVM_SCRIPT_CTX_STMT)
                                : tvm_script_tir_decl_buffer_enter(call->builder, &ba, rest);
  tvm_ffi_release(ba.shape);
  release3(owned);
  return ret_obj(out, buf);
}

static int b_Buffer(tvm_script_call* call, TVMFFIAny* out) {
  return buffer_builtin(call, out, BUF_PLAIN);
}
static int b_alloc_buffer(tvm_script_call* call, TVMFFIAny* out) {
  return buffer_builtin(call, out, BUF_ALLOC);
}
static int b_decl_buffer(tvm_script_call* call, TVMFFIAny* out) {
  return buffer_builtin(call, out, BUF_DECL);
}

/* The extents of a region's ranges (the default shape of a matched region). */
static void* region_extents(const tvm_tir_buffer_region_obj* r) {
  int64_t n = tvm_ffi_seq_size(r->region);
  void* list = tvm_ffi_list_new();
  for (int64_t i = 0; list && i < n; ++i) {
    const tvm_tir_range_obj* rg = tvm_ffi_seq_obj_at(r->region, i);
    TVMFFIAny e = tvm_ffi_any_obj(rg->extent);
    if (tvm_ffi_list_push(list, &e) != 0) tvm_ffi_release(list), list = NULL;
  }
  void* arr = list ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  return arr;
}

/* A = T.match_buffer(param, shape, dtype, ...): param a handle parameter or a region. */
static int b_match_buffer(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "param, shape=, " BUFFER_PARAMS, 2 + BUFFER_NPARAMS) != 0) return -1;
  const void* param = arg_node(&a, 0, TVM_TIR_KIND_Var);
  tvm_tir_buffer_region_obj* region = NULL;
  if (!param) {
    char what[160];
    region = tvm_script__value_to_region(&a.v[0], WHAT(&a, 0));
    if (!region) return fail(&a, 0), -1;
    param = region;
  }
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = target(call);
  ba.name_str = ba.name && call->builder ? tvm_script__name_str(call->builder, ba.name) : NULL;
  ba.builder = call->builder;
  void* owned[3] = {NULL, NULL, NULL};
  if (given(&a, 1)) {
    ba.shape = arg_expr_array(&a, 1);
  } else if (region) {
    ba.shape = region_extents(region);
  } else {
    tvm_ffi_raise("TypeError", "%s() of a handle needs a shape", call->name);
  }
  tvm_tir_buffer_obj* buf = NULL;
  /* A region without a dtype: the source buffer's (as upstream infers it with the shape). */
  if (region && !given(&a, 2)) ba.dtype = region->buffer->dtype;
  if (ba.shape && buffer_kwargs(&a, 2, &ba, owned) == 0) {
    buf = tvm_script_tir_match_buffer(call->builder, param, &ba);
    if (!buf) fail(&a, 0);
  }
  tvm_ffi_release(ba.shape);
  tvm_ffi_release(region);
  release3(owned);
  return ret_obj(out, buf);
}

/* ---- Blocks -------------------------------------------------------------------------------- */
static int b_sblock(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (call->ctx != TVM_SCRIPT_CTX_WITH) return bad_ctx(call, "as a `with` item");
  if (bind(&a, call, "name=, no_realize=", 2) != 0) return -1;
  const char* name = given(&a, 0) ? arg_cstr(&a, 0) : "";
  bool no_realize = false;
  if (!name || (given(&a, 1) && !tvm_ffi_any_as_bool(&a.v[1], &no_realize))) {
    if (name) tvm_ffi_raise("TypeError", "%s(): no_realize must be a bool", call->name);
    return fail(&a, name ? 1 : 0), -1;
  }
  return ret_none(out, tvm_script_tir_block_enter(call->builder, name, no_realize));
}

static int b_init(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (call->ctx != TVM_SCRIPT_CTX_WITH) return bad_ctx(call, "as a `with` item");
  if (bind(&a, call, "", 0) != 0) return -1;
  return ret_none(out, tvm_script_tir_block_init_enter(call->builder));
}

static int b_where(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "predicate", 1) != 0) return -1;
  tvm_tir_expr_obj* p = arg_expr(&a, 0);
  int rc = p ? tvm_script_tir_where(call->builder, p) : -1;
  tvm_ffi_release(p);
  return ret_none(out, rc);
}

/* T.reads(A[...], B[...]) or T.reads([A[...], B[...]]). */
static int regions_builtin(tvm_script_call* call, TVMFFIAny* out, bool writes) {
  if (call->num_kwargs) {
    call->error_arg = call->num_args;
    return tvm_ffi_raise("TypeError", "%s() takes no keyword arguments", call->name);
  }
  const TVMFFIAny* items = call->args;
  int64_t n = call->num_args;
  const void* seq = n == 1 ? tvm_ffi_any_as_object(&call->args[0], kTVMFFIArray) : NULL;
  if (seq) {
    items = tvm_ffi_seq_data(seq);
    n = tvm_ffi_seq_size(seq);
  }
  tvm_script_items regions;
  if (!tvm_script_items_init(&regions, n)) return -1;
  for (int64_t i = 0; i < n; ++i) {
    tvm_tir_buffer_region_obj* r = tvm_script__arg_to_region(call, &items[i], i + 1);
    if (!r) {
      call->error_arg = seq ? 0 : (int32_t)i;
      tvm_script_items_free(&regions);
      return -1;
    }
    tvm_script_items_push(&regions, r);
  }
  void* arr = tvm_script_items_to_array(&regions);
  tvm_script_items_free(&regions);
  int rc = !arr     ? -1
           : writes ? tvm_script_tir_writes(call->builder, arr)
                    : tvm_script_tir_reads(call->builder, arr);
  tvm_ffi_release(arr);
  return ret_none(out, rc);
}

static int b_reads(tvm_script_call* call, TVMFFIAny* out) {
  return regions_builtin(call, out, false);
}
static int b_writes(tvm_script_call* call, TVMFFIAny* out) {
  return regions_builtin(call, out, true);
}

static int b_sblock_attr(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "attrs", 1) != 0) return -1;
  const void* m = arg_map(&a, 0);
  return ret_none(out, m ? tvm_script_tir_block_attrs(call->builder, m) : -1);
}

/* The domain of an axis: a Range, a (min, max) pair, or an extent. New reference. */
static void* axis_dom(bound_args* a, int i) {
  const void* range = arg_node(a, i, TVM_TIR_KIND_Range);
  if (range) return tvm_tir_ref((void*)range);
  const void* pair = tvm_ffi_any_as_object(&a->v[i], kTVMFFIArray);
  if (!pair) return arg_expr(a, i);
  char what[160];
  if (tvm_ffi_seq_size(pair) != 2) {
    tvm_ffi_raise("TypeError", "%s must be an extent or a (min, max) pair", WHAT(a, i));
    return fail(a, i);
  }
  tvm_tir_expr_obj* lo = tvm_script__value_to_expr_slow(tvm_ffi_seq_at(pair, 0), WHAT(a, i));
  tvm_tir_expr_obj* hi = lo ? tvm_script__value_to_expr_slow(tvm_ffi_seq_at(pair, 1), what) : NULL;
  tvm_tir_expr_obj* simple = hi ? tvm_script__range_extent(lo, hi) : NULL;
  tvm_tir_range_obj* r = simple ? tvm_tir_range_new(lo, simple) : NULL;
  tvm_ffi_release(lo);
  tvm_ffi_release(hi);
  tvm_ffi_release(simple);
  return r ? (void*)r : fail(a, i);
}

/* vi = T.axis.spatial(dom, binding[, dtype]) */
static int axis_builtin(tvm_script_call* call, TVMFFIAny* out, tvm_tir_iter_var_type kind) {
  bound_args a;
  if (bind(&a, call, "dom, binding=, dtype=", 3) != 0) return -1;
  void* dom = axis_dom(&a, 0);
  tvm_tir_expr_obj* binding = dom && given(&a, 1) ? arg_expr(&a, 1) : NULL;
  DLDataType dtype;
  bool ok = dom && (binding || !given(&a, 1)) && (!given(&a, 2) || arg_dtype(&a, 2, &dtype) == 0);
  if (ok && given(&a, 2) && binding && tvm_tir_kind_of(binding) == TVM_TIR_KIND_IntImm) {
    tvm_tir_expr_obj* cast = tvm_tir_cast(dtype, binding);
    tvm_ffi_release(binding);
    binding = cast;
    ok = cast != NULL;
  }
  const char* name = target(call);
  tvm_tir_var_obj* var =
      ok ? tvm_script_tir_axis(call->builder, name ? name : "v", kind, dom, binding) : NULL;
  tvm_ffi_release(dom);
  tvm_ffi_release(binding);
  return ret_obj(out, var);
}

static int b_axis_spatial(tvm_script_call* call, TVMFFIAny* out) {
  return axis_builtin(call, out, TVM_TIR_ITER_DATA_PAR);
}
static int b_axis_reduce(tvm_script_call* call, TVMFFIAny* out) {
  return axis_builtin(call, out, TVM_TIR_ITER_COMM_REDUCE);
}
static int b_axis_scan(tvm_script_call* call, TVMFFIAny* out) {
  return axis_builtin(call, out, TVM_TIR_ITER_ORDERED);
}
static int b_axis_opaque(tvm_script_call* call, TVMFFIAny* out) {
  return axis_builtin(call, out, TVM_TIR_ITER_OPAQUE);
}

/* vi, vj, vk = T.axis.remap("SSR", [i, j, k]) */
static int b_axis_remap(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "kinds, bindings, dtype=", 3) != 0) return -1;
  const char* kinds = arg_cstr(&a, 0);
  if (!kinds) return -1;
  const void* bindings = tvm_ffi_any_as_object(&a.v[1], kTVMFFIArray);
  if (!bindings) {
    tvm_ffi_raise("TypeError", "%s(): bindings must be a list of loop variables, got %s",
                  call->name, tvm_ffi_any_type_name(&a.v[1]));
    return fail(&a, 1), -1;
  }
  size_t n = strlen(kinds);
  if (call->num_targets && (size_t)call->num_targets != n) {
    return tvm_ffi_raise("ValueError", "%s(\"%s\") defines %zu axes, assigned to %d names",
                         call->name, kinds, n, (int)call->num_targets);
  }
  void* vars = tvm_script_tir_axis_remap(call->builder, kinds, bindings,
                                         call->num_targets ? call->targets : NULL);
  if (!vars) return fail(&a, 1), -1;
  if (n == 1) {
    /* `vi = T.axis.remap("S", [i])` binds the one Var. */
    void* v = tvm_tir_ref(tvm_ffi_seq_obj_at(vars, 0));
    tvm_ffi_release(vars);
    vars = v;
  }
  return ret_obj(out, vars);
}

/* ---- Loops --------------------------------------------------------------------------------- */
/* The name of loop variable i of a `for` statement. */
static const char* loop_name(const tvm_script_call* call, int i) {
  return i < call->num_targets ? call->targets[i] : "v";
}

/* An integer scalar expression argument (loop bounds), new reference. */
static tvm_tir_expr_obj* arg_int_expr(bound_args* a, int i) {
  tvm_tir_expr_obj* e = arg_expr(a, i);
  if (!e) return NULL;
  DLDataType t = tvm_tir_expr_dtype(e);
  if ((t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1) return e;
  char what[160], dt[32] = "?";
  tvm_ffi_dtype_format(t, dt, sizeof(dt));
  tvm_ffi_raise("TypeError", "%s must be an integer, got a %s expression", WHAT(a, i), dt);
  tvm_ffi_release(e);
  return fail(a, i);
}

/* min and extent of `T.serial(start, stop)` / `T.serial(extent)` (new references). */
static int loop_range(bound_args* a, tvm_tir_expr_obj** min, tvm_tir_expr_obj** extent) {
  *min = NULL;
  *extent = NULL;
  tvm_tir_expr_obj* start = arg_int_expr(a, 0);
  if (!start) return -1;
  if (!given(a, 1)) {
    *extent = start;
    return 0;
  }
  tvm_tir_expr_obj* stop = arg_int_expr(a, 1);
  *extent = stop ? tvm_script__range_extent(start, stop) : NULL;
  tvm_ffi_release(stop);
  if (!*extent) {
    tvm_ffi_release(start);
    return -1;
  }
  *min = start;
  return 0;
}

static int for_builtin(tvm_script_call* call, TVMFFIAny* out, tvm_tir_for_kind kind) {
  bound_args a;
  if (call->ctx != TVM_SCRIPT_CTX_FOR) return bad_ctx(call, "as the iterable of a `for` loop");
  if (call->num_targets > 1) {
    return tvm_ffi_raise("ValueError", "%s() defines one loop variable, not %d (use T.grid)",
                         call->name, (int)call->num_targets);
  }
  bool binding = kind == TVM_TIR_FOR_THREAD_BINDING;
  if (bind(&a, call,
           binding ? "start, stop=, thread=, *annotations=" : "start, stop=, *annotations=",
           binding ? 4 : 3) != 0) {
    return -1;
  }
  int ann_i = binding ? 3 : 2;
  const char* thread = NULL;
  if (binding) {
    /* T.thread_binding(n, "threadIdx.x") passes the tag as stop (upstream). */
    TVMFFIByteArray s;
    if (!given(&a, 2) && given(&a, 1) && tvm_ffi_any_as_bytes(&a.v[1], &s)) {
      a.v[2] = a.v[1];
      a.v[1].type_index = TVM_SCRIPT_ARG_ABSENT;
    }
    if (!given(&a, 2)) return tvm_ffi_raise("ValueError", "%s() needs a thread", call->name);
    if (!(thread = arg_cstr(&a, 2))) return -1;
  }
  const void* ann = given(&a, ann_i) ? arg_map(&a, ann_i) : NULL;
  if (given(&a, ann_i) && !ann) return -1;
  tvm_tir_expr_obj *min, *extent;
  if (loop_range(&a, &min, &extent) != 0) return -1;
  tvm_tir_var_obj* var =
      tvm_script_tir_for_enter(call->builder, loop_name(call, 0), kind, min, extent, thread, ann);
  tvm_ffi_release(min);
  tvm_ffi_release(extent);
  return ret_obj(out, var);
}

static int b_serial(tvm_script_call* call, TVMFFIAny* out) {
  return for_builtin(call, out, TVM_TIR_FOR_SERIAL);
}
static int b_parallel(tvm_script_call* call, TVMFFIAny* out) {
  return for_builtin(call, out, TVM_TIR_FOR_PARALLEL);
}
static int b_vectorized(tvm_script_call* call, TVMFFIAny* out) {
  return for_builtin(call, out, TVM_TIR_FOR_VECTORIZED);
}
static int b_unroll(tvm_script_call* call, TVMFFIAny* out) {
  return for_builtin(call, out, TVM_TIR_FOR_UNROLLED);
}
static int b_thread_binding(tvm_script_call* call, TVMFFIAny* out) {
  return for_builtin(call, out, TVM_TIR_FOR_THREAD_BINDING);
}

/* for i, j in T.grid(n, m): one serial For frame per extent. One target for several extents
 * (`for ij in T.grid(n, m)`) names the list of loop variables, which are ij_0, ij_1, ... as
 * upstream's parser names the items of a list bound to one name. */
static int b_grid(tvm_script_call* call, TVMFFIAny* out) {
  if (call->ctx != TVM_SCRIPT_CTX_FOR) return bad_ctx(call, "as the iterable of a `for` loop");
  if (call->num_kwargs) {
    call->error_arg = call->num_args;
    return tvm_ffi_raise("TypeError", "%s() takes no keyword arguments", call->name);
  }
  if (call->num_args == 0) return tvm_ffi_raise("TypeError", "%s() needs extents", call->name);
  bool one_name = call->num_targets == 1 && call->num_args > 1;
  if (call->num_targets && call->num_targets != call->num_args && !one_name) {
    return tvm_ffi_raise("ValueError", "%s() of %d extents assigned to %d loop variables",
                         call->name, (int)call->num_args, (int)call->num_targets);
  }
  tvm_script_items vars;
  if (!tvm_script_items_init(&vars, call->num_args)) return -1;
  for (int32_t i = 0; i < call->num_args; ++i) {
    tvm_tir_expr_obj* e = tvm_script__arg_to_expr(call, &call->args[i], i + 1);
    char item[128];
    if (one_name) snprintf(item, sizeof(item), "%s_%d", call->targets[0], (int)i);
    tvm_tir_var_obj* v =
        e ? tvm_script_tir_for_enter(call->builder, one_name ? item : loop_name(call, i),
                                     TVM_TIR_FOR_SERIAL, NULL, e, NULL, NULL)
          : NULL;
    tvm_ffi_release(e);
    if (!v) {
      call->error_arg = i;
      tvm_script_items_free(&vars);
      return -1;
    }
    tvm_script_items_push(&vars, v);
  }
  void* arr = tvm_script_items_to_array(&vars);
  tvm_script_items_free(&vars);
  if (arr && call->num_args == 1) {
    void* v = tvm_tir_ref(tvm_ffi_seq_obj_at(arr, 0));
    tvm_ffi_release(arr);
    arr = v;
  }
  return ret_obj(out, arr);
}

/* ---- Functions ----------------------------------------------------------------------------- */
static int b_func_attr(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "attrs", 1) != 0) return -1;
  const void* m = arg_map(&a, 0);
  return ret_none(out, m ? tvm_script_tir_func_attrs(call->builder, m) : -1);
}

static int b_evaluate(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "value", 1) != 0) return -1;
  tvm_tir_expr_obj* e = arg_expr(&a, 0);
  int rc = e ? tvm_script_tir_evaluate(call->builder, e) : -1;
  tvm_ffi_release(e);
  return ret_none(out, rc);
}

/* ---- Threads and scoped statements --------------------------------------------------------- */
static int b_env_thread(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (bind(&a, call, "thread_tag, dtype=", 2) != 0) return -1;
  const char* tag = arg_cstr(&a, 0);
  DLDataType dtype = TVM_TIR_INT32;
  if (!tag || (given(&a, 1) && arg_dtype(&a, 1, &dtype) != 0)) return -1;
  const char* name = target(call);
  return ret_obj(out, tvm_script_tir_env_thread_var(call->builder, name ? name : tag, tag, dtype));
}

/* tx = T.launch_thread("threadIdx.x", 128) / T.launch_thread(tx, 128) */
static int b_launch_thread(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  bool rest = false;
  if (scoped_form(call, &rest) != 0 || bind(&a, call, "thread, extent", 2) != 0) return -1;
  tvm_tir_expr_obj* extent = arg_expr(&a, 1);
  tvm_tir_var_obj* var = extent ? tvm_script_tir_launch_thread_enter(call->builder, target(call),
                                                                     &a.v[0], extent, rest)
                                : NULL;
  if (extent && !var) fail(&a, 0);
  tvm_ffi_release(extent);
  return ret_scoped(call, out, var);
}

/* T.attr(node, "key", value) */
static int b_attr(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  bool rest = false;
  if (scoped_form(call, &rest) != 0 || bind(&a, call, "node, attr_key, value", 3) != 0) return -1;
  const char* key = arg_cstr(&a, 1);
  tvm_tir_expr_obj* value = key ? arg_expr(&a, 2) : NULL;
  int rc = value ? tvm_script_tir_attr_enter(call->builder, &a.v[0], key, value, rest) : -1;
  tvm_ffi_release(value);
  return ret_none(out, rc);
}

/* buf = T.allocate([n], "float32", "global"[, condition][, annotations=...]) */
static int b_allocate(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  bool rest = false;
  if (scoped_form(call, &rest) != 0 ||
      bind(&a, call, "extents, dtype, scope=, condition=, annotations=", 5) != 0) {
    return -1;
  }
  DLDataType dtype;
  const char* scope = "global";
  void* extents = arg_expr_array(&a, 0);
  bool ok =
      extents && arg_dtype(&a, 1, &dtype) == 0 && (!given(&a, 2) || (scope = arg_cstr(&a, 2)));
  tvm_tir_expr_obj* cond = ok && given(&a, 3) ? arg_expr(&a, 3) : NULL;
  ok = ok && (cond || !given(&a, 3));
  const void* ann = ok && given(&a, 4) ? arg_map(&a, 4) : NULL;
  ok = ok && (ann || !given(&a, 4));
  tvm_tir_var_obj* var = ok ? tvm_script_tir_allocate_enter(call->builder, target(call), extents,
                                                            dtype, scope, cond, ann, rest)
                            : NULL;
  tvm_ffi_release(extents);
  tvm_ffi_release(cond);
  return ret_scoped(call, out, var);
}

/* x = T.allocate_const([1, 2, 3, 4], "int32", [4]): constant contents, row-major. */
static int b_allocate_const(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  bool rest = false;
  if (scoped_form(call, &rest) != 0 ||
      bind(&a, call, "data, dtype, extents, annotations=", 4) != 0) {
    return -1;
  }
  DLDataType dtype;
  if (arg_dtype(&a, 1, &dtype) != 0) return -1;
  const void* ann = given(&a, 3) ? arg_map(&a, 3) : NULL;
  if (given(&a, 3) && !ann) return -1;
  const void* data = tvm_ffi_any_is_object(&a.v[0]) ? a.v[0].v_obj : NULL;
  const void* extents = tvm_ffi_any_is_object(&a.v[2]) ? a.v[2].v_obj : NULL;
  if (!data ||
      !(tvm_ffi_instance_of(data, kTVMFFIArray) || tvm_ffi_instance_of(data, kTVMFFIList))) {
    tvm_ffi_raise("TypeError", "%s(): data must be a list of constants", call->name);
    return fail(&a, 0), -1;
  }
  if (!extents ||
      !(tvm_ffi_instance_of(extents, kTVMFFIArray) || tvm_ffi_instance_of(extents, kTVMFFIList))) {
    tvm_ffi_raise("TypeError", "%s(): extents must be a list", call->name);
    return fail(&a, 2), -1;
  }
  tvm_tir_var_obj* var = tvm_script__tir_allocate_const_enter(call->builder, target(call), data,
                                                              dtype, extents, ann, rest);
  return ret_scoped(call, out, var);
}

/* with T.LetStmt(value) as x: / x = T.LetStmt(value) / T.LetStmt(value, var=x) (x defined) */
static int b_LetStmt(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  bool rest = false;
  if (scoped_form(call, &rest) != 0 || bind(&a, call, "value, *type_annotation=, *var=", 3) != 0) {
    return -1;
  }
  const void* ann = NULL;
  if (given(&a, 1) && !(ann = arg_node(&a, 1, TVM_TIR_KIND_Type))) {
    tvm_ffi_raise("TypeError", "%s(): type_annotation must be a type", call->name);
    return fail(&a, 1), -1;
  }
  const void* var = NULL;
  if (given(&a, 2) && !(var = arg_node(&a, 2, TVM_TIR_KIND_Var))) {
    tvm_ffi_raise("TypeError", "%s(): var must be a Var", call->name);
    return fail(&a, 2), -1;
  }
  tvm_tir_expr_obj* value = arg_expr(&a, 0);
  tvm_tir_var_obj* v =
      !value ? NULL
      : var  ? tvm_script_tir_let_bind_enter(call->builder, var, value, rest)
             : tvm_script_tir_let_enter(call->builder, target(call), value, ann, rest);
  tvm_ffi_release(value);
  return ret_scoped(call, out, v);
}

/* T.realize(A[0:4], "global"[, condition]) */
static int b_realize(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  bool rest = false;
  if (scoped_form(call, &rest) != 0 || bind(&a, call, "buffer_slice, scope=, condition=", 3) != 0) {
    return -1;
  }
  char what[160];
  tvm_tir_buffer_region_obj* region = tvm_script__value_to_region(&a.v[0], WHAT(&a, 0));
  if (!region) return fail(&a, 0), -1;
  const char* scope = given(&a, 1) ? arg_cstr(&a, 1) : "global";
  tvm_tir_expr_obj* cond = scope && given(&a, 2) ? arg_expr(&a, 2) : NULL;
  int rc = scope && (cond || !given(&a, 2))
               ? tvm_script_tir_realize_enter(call->builder, region, scope, cond, rest)
               : -1;
  tvm_ffi_release(region);
  tvm_ffi_release(cond);
  return ret_none(out, rc);
}

/* with T.Assert(condition, "message"[, kind="ValueError"]): */
static int b_Assert(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  bool rest = false;
  if (scoped_form(call, &rest) != 0 || bind(&a, call, "condition, message, kind=", 3) != 0)
    return -1;
  const char* kind = NULL;
  if (given(&a, 2) && !(kind = arg_cstr(&a, 2))) return -1;
  tvm_tir_expr_obj* cond = arg_expr(&a, 0);
  tvm_tir_expr_obj* msg = cond ? arg_expr(&a, 1) : NULL;
  int rc = msg ? tvm_script_tir_assert_kind_enter(call->builder, cond, kind, msg, rest) : -1;
  tvm_ffi_release(cond);
  tvm_ffi_release(msg);
  return ret_none(out, rc);
}

/* with T.If(c): / with T.Then(): / with T.Else(): / with T.While(c): */
static int b_If(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (call->ctx != TVM_SCRIPT_CTX_WITH) return bad_ctx(call, "as a `with` item");
  if (bind(&a, call, "condition", 1) != 0) return -1;
  tvm_tir_expr_obj* cond = arg_expr(&a, 0);
  int rc = cond ? tvm_script_tir_if_enter(call->builder, cond) : -1;
  tvm_ffi_release(cond);
  return ret_none(out, rc);
}

static int b_While(tvm_script_call* call, TVMFFIAny* out) {
  bound_args a;
  if (call->ctx != TVM_SCRIPT_CTX_WITH) return bad_ctx(call, "as a `with` item");
  if (bind(&a, call, "condition", 1) != 0) return -1;
  tvm_tir_expr_obj* cond = arg_expr(&a, 0);
  int rc = cond ? tvm_script_tir_while_enter(call->builder, cond) : -1;
  tvm_ffi_release(cond);
  return ret_none(out, rc);
}

static int branch_builtin(tvm_script_call* call, TVMFFIAny* out, bool is_else) {
  bound_args a;
  if (call->ctx != TVM_SCRIPT_CTX_WITH) return bad_ctx(call, "as a `with` item");
  if (bind(&a, call, "", 0) != 0) return -1;
  return ret_none(out, is_else ? tvm_script_tir_else_enter(call->builder)
                               : tvm_script_tir_then_enter(call->builder));
}
static int b_Then(tvm_script_call* call, TVMFFIAny* out) {
  return branch_builtin(call, out, false);
}
static int b_Else(tvm_script_call* call, TVMFFIAny* out) { return branch_builtin(call, out, true); }

/* ---- The table ----------------------------------------------------------------------------- */
const tvm_script_builtin tvm_script__tir_stmt_builtins[] = {
    {"Assert", b_Assert},
    {"Buffer", b_Buffer, 1},
    {"buffer", b_Buffer, 1}, /* (upstream's T.buffer, the same function) */
    {"Else", b_Else},
    {"If", b_If},
    {"LetStmt", b_LetStmt},
    {"Bind", b_LetStmt}, /* (upstream's newer name of the statement form) */
    {"Then", b_Then},
    {"While", b_While},
    {"alloc_buffer", b_alloc_buffer, 1},
    {"allocate", b_allocate, 1},
    {"allocate_const", b_allocate_const},
    {"attr", b_attr},
    {"axis.R", b_axis_reduce},
    {"axis.S", b_axis_spatial},
    {"axis.opaque", b_axis_opaque},
    {"axis.reduce", b_axis_reduce},
    {"axis.remap", b_axis_remap},
    {"axis.scan", b_axis_scan},
    {"axis.spatial", b_axis_spatial},
    {"bind", b_LetStmt},
    {"block", b_sblock},
    {"block_attr", b_sblock_attr},
    {"decl_buffer", b_decl_buffer, 1},
    {"env_thread", b_env_thread},
    {"evaluate", b_evaluate},
    {"func_attr", b_func_attr},
    {"grid", b_grid},
    {"init", b_init},
    {"launch_thread", b_launch_thread},
    {"match_buffer", b_match_buffer, 2},
    {"parallel", b_parallel},
    {"reads", b_reads, 0, true},
    {"realize", b_realize},
    {"sblock", b_sblock},
    {"sblock_alloc_buffer", b_alloc_buffer, 1},
    {"sblock_attr", b_sblock_attr},
    {"serial", b_serial},
    {"thread_binding", b_thread_binding},
    {"unroll", b_unroll},
    {"vectorized", b_vectorized},
    {"where", b_where},
    {"writes", b_writes, 0, true},
};
const int32_t tvm_script__tir_stmt_builtin_count =
    (int32_t)(sizeof(tvm_script__tir_stmt_builtins) / sizeof(tvm_script__tir_stmt_builtins[0]));

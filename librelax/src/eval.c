/*
 * eval.c: the Relax reference evaluator (tvm/relax/eval.h).
 *
 * State: `vars` maps Relax Vars to their values, `tirs` symbolic TIR variables to their int
 * values; both grow as bindings and matches are evaluated (variables are unique per program,
 * so one map per call of a function is enough). Values are owned TVMFFIAny.
 */
#include <stdio.h>
#include <string.h>

#include <tvm-private/ffi.h>
#include <tvm/tir/interp.h>

#include "internal.h"

enum { MAX_CALL_DEPTH = 64 };

typedef struct {
  const tvm_tir_ir_module_obj* mod;
} eval_ctx;

/* Calls in progress on this thread (closures called from packed code start new contexts). */
static _Thread_local int t_depth;

typedef struct closure closure;

typedef struct {
  void* vars; /* ffi.Dict Var -> value */
  void* tirs; /* ffi.Dict tir.Var -> int */
  const char* func;
  bool lenient; /* skip composite dims whose variables are not bound yet */
} frame;

static int eval_expr(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out);

/* ---- Symbolic values ------------------------------------------------------------------------- */
/* The int value of a PrimExpr under f->tirs; -1 + ValueError when it is not determined. */
static int eval_int(frame* f, const tvm_tir_expr_obj* e, int64_t* out) {
  if (tvm_tir_as_const_int(e, out)) return 0;
  void* vmap = tvm_ffi_dict_new();
  if (!vmap) return -1;
  const TVMFFIAny *k, *v;
  int rc = 0;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(f->tirs, pos, &k, &v)) >= 0;) {
    int64_t x;
    tvm_ffi_any_as_int(v, &x);
    tvm_tir_expr_obj* c = tvm_tir_const_int(tvm_tir_expr_dtype(k->v_obj), x);
    TVMFFIAny cv = tvm_ffi_any_obj(c);
    rc = c ? tvm_ffi_dict_set(vmap, k, &cv) : -1;
    tvm_ffi_release(c);
  }
  TVMFFIAny item = tvm_ffi_any_obj(e);
  void* arr = rc == 0 ? tvm_ffi_array_new(&item, 1) : NULL;
  tvm_relax_sinfo_obj* s = arr ? tvm_relax_shape_sinfo_new(arr, 1) : NULL;
  tvm_relax_sinfo_obj* t = s ? tvm_relax_sinfo_substitute(s, vmap) : NULL;
  tvm_ffi_release(arr);
  tvm_ffi_release(s);
  tvm_ffi_release(vmap);
  if (!t) return -1;
  tvm_tir_expr_obj* r = tvm_ffi_seq_obj_at(((tvm_relax_shape_sinfo_obj*)t)->values, 0);
  rc = tvm_tir_as_const_int(r, out) ? 0 : -1;
  if (rc) {
    tvm_ffi_strbuf b = {0};
    tvm_tir_node_text(&b, e);
    tvm_ffi_raise("ValueError", "%s: the value of %s is not known here", f->func,
                  tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
  }
  tvm_ffi_release(t);
  return rc;
}

/* Match one dim: bind a bare unbound variable, else the value must equal. */
static int match_dim(frame* f, const tvm_tir_expr_obj* d, int64_t actual, const char* what,
                     int64_t i) {
  if (tvm_tir_is_var(d)) {
    TVMFFIAny key = tvm_ffi_any_obj(d);
    if (!tvm_ffi_map_get(f->tirs, &key)) {
      TVMFFIAny v = tvm_ffi_any_int(actual);
      return tvm_ffi_dict_set(f->tirs, &key, &v);
    }
  }
  int64_t want;
  if (eval_int(f, d, &want) != 0) {
    if (!f->lenient) return -1;
    tvm_ffi_error_clear(); /* checked in the second round (eval_function) */
    return 0;
  }
  if (want != actual) {
    int64_t c;
    if (tvm_tir_as_const_int(d, &c)) {
      return tvm_ffi_raise("ValueError", "%s: %s dim %lld is %lld, expected %lld", f->func, what,
                           (long long)i, (long long)actual, (long long)want);
    }
    tvm_ffi_strbuf b = {0};
    tvm_tir_node_text(&b, d);
    tvm_ffi_raise("ValueError", "%s: %s dim %lld is %lld, expected %s = %lld", f->func, what,
                  (long long)i, (long long)actual, tvm_ffi_strbuf_cstr(&b), (long long)want);
    tvm_ffi_strbuf_free(&b);
    return -1;
  }
  return 0;
}

/* Check value v against struct info s (binding its symbolic variables). */
static int match(frame* f, const TVMFFIAny* v, const tvm_relax_sinfo_obj* s, const char* what) {
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_ObjectStructInfo:
      return 0;
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj* t = (const void*)s;
      if (v->type_index != kTVMFFITensor) {
        return tvm_ffi_raise("TypeError", "%s: %s must be a tensor, got %s", f->func, what,
                             tvm_ffi_any_type_name(v));
      }
      const DLTensor* dl = tvm_ffi_tensor_dl(v->v_obj);
      if (t->ndim != TVM_RELAX_UNKNOWN_NDIM && dl->ndim != t->ndim) {
        return tvm_ffi_raise("ValueError", "%s: %s has ndim %d, expected %d", f->func, what,
                             dl->ndim, t->ndim);
      }
      if (!tvm_relax_dtype_is_unknown(t->dtype) && !tvm_ffi_dtype_equal(dl->dtype, t->dtype)) {
        return tvm_ffi_raise("ValueError", "%s: %s has dtype %s, expected %s", f->func, what,
                             tvm_tir_dtype_str(dl->dtype).s, tvm_tir_dtype_str(t->dtype).s);
      }
      if (dl->device.device_type != kDLCPU) {
        return tvm_ffi_raise("ValueError", "%s: %s is not on the CPU", f->func, what);
      }
      void* dims = tvm_relax_tensor_sinfo_dims(s);
      for (int64_t i = 0; dims && i < tvm_ffi_seq_size(dims); ++i) {
        if (match_dim(f, tvm_ffi_seq_obj_at(dims, i), dl->shape[i], what, i) != 0) return -1;
      }
      return 0;
    }
    case TVM_RELAX_KIND_ShapeStructInfo: {
      const tvm_relax_shape_sinfo_obj* t = (const void*)s;
      if (v->type_index != kTVMFFIShape) {
        return tvm_ffi_raise("TypeError", "%s: %s must be a shape, got %s", f->func, what,
                             tvm_ffi_any_type_name(v));
      }
      int64_t n = tvm_ffi_shape_ndim(v->v_obj);
      if (t->ndim != TVM_RELAX_UNKNOWN_NDIM && n != t->ndim) {
        return tvm_ffi_raise("ValueError", "%s: %s has %lld dims, expected %d", f->func, what,
                             (long long)n, t->ndim);
      }
      for (int64_t i = 0; t->values && i < n; ++i) {
        if (match_dim(f, tvm_ffi_seq_obj_at(t->values, i), tvm_ffi_shape_data(v->v_obj)[i], what, i) != 0) {
          return -1;
        }
      }
      return 0;
    }
    case TVM_RELAX_KIND_PrimStructInfo: {
      const tvm_relax_prim_sinfo_obj* p = (const void*)s;
      int64_t x;
      double d;
      if (tvm_tir_dtype_is_floating(p->dtype)) {
        if (!tvm_ffi_any_as_float(v, &d)) {
          return tvm_ffi_raise("TypeError", "%s: %s must be a float", f->func, what);
        }
        return 0;
      }
      if (!tvm_ffi_any_as_int(v, &x)) {
        return tvm_ffi_raise("TypeError", "%s: %s must be an int, got %s", f->func, what,
                             tvm_ffi_any_type_name(v));
      }
      return p->value ? match_dim(f, p->value, x, what, 0) : 0;
    }
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* fields = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      /* R.Tuple() is also the struct info of a void call, whose value is None (a PrimFunc
       * called directly, R.print, ...: the VM's, as upstream's). */
      if (tvm_ffi_any_is_none(v) && tvm_ffi_seq_size(fields) == 0) return 0;
      if (v->type_index != kTVMFFIArray || tvm_ffi_seq_size(v->v_obj) != tvm_ffi_seq_size(fields)) {
        return tvm_ffi_raise("TypeError", "%s: %s must be a tuple of %lld values", f->func, what,
                             (long long)tvm_ffi_seq_size(fields));
      }
      for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
        if (match(f, tvm_ffi_seq_at(v->v_obj, i), tvm_ffi_seq_obj_at(fields, i), what) != 0) return -1;
      }
      return 0;
    }
    default:
      return 0; /* functions: not checked */
  }
}

/* A new CPU tensor of struct info s (known shape and dtype), zero-filled. */
static void* alloc_tensor(frame* f, const tvm_relax_sinfo_obj* s) {
  void* dims = tvm_relax_tensor_sinfo_dims(s);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TensorStructInfo || !dims) {
    tvm_ffi_raise("ValueError", "%s: call_tir's output must be a tensor of known shape", f->func);
    return NULL;
  }
  int64_t shape[16];
  int64_t n = tvm_ffi_seq_size(dims);
  if (n > 16) {
    tvm_ffi_raise("ValueError", "%s: more than 16 dims", f->func);
    return NULL;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (eval_int(f, tvm_ffi_seq_obj_at(dims, i), &shape[i]) != 0) return NULL;
    if (shape[i] < 0) {
      tvm_ffi_raise("ValueError", "%s: negative dim %lld", f->func, (long long)shape[i]);
      return NULL;
    }
  }
  void* t = tvm_ffi_tensor_empty(shape, (int32_t)n, ((const tvm_relax_tensor_sinfo_obj*)s)->dtype,
                                 (DLDevice){kDLCPU, 0});
  if (t) memset(tvm_ffi_tensor_dl(t)->data, 0, (size_t)tvm_ffi_dltensor_nbytes(tvm_ffi_tensor_dl(t)));
  return t;
}

/* ---- Calls ----------------------------------------------------------------------------------- */
/*
 * call_tir, call_tir_inplace and call_dps_packed: the callee (a PrimFunc of the module, run by
 * the TIR interpreter, or a packed function found by name) gets the inputs and then the outputs
 * to write; an in-place output of call_tir_inplace is the input its inplace_indices names (which
 * the kernel overwrites, as compiled code does), the others are new tensors.
 */
static int eval_call_tir(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  const void* callee = tvm_ffi_seq_obj_at(call->args, 0);
  bool packed = tvm_relax_kind_of(callee) == TVM_RELAX_KIND_ExternFunc;
  const char* op = tvm_relax_op_info_of(call->op)->name;
  /* call_dps_packed of a function value (a variable bound to an ExternFunc, a parameter): the
   * function it evaluates to */
  TVMFFIAny fn = tvm_ffi_any_none();
  if (!packed && !tvm_tir_is(callee, TVM_TIR_KIND_GlobalVar)) {
    if (tvm_relax__call_op_id(call) != TVM_RELAX_OP_call_dps_packed || !tvm_relax_is_var(callee)) {
      return tvm_ffi_raise("NotImplementedError",
                           "%s: %s of a callee that is neither a GlobalVar nor an ExternFunc",
                           f->func, op);
    }
    if (eval_expr(c, f, callee, &fn) != 0) return -1;
    if (fn.type_index != kTVMFFIFunction) {
      int rc = tvm_ffi_raise("TypeError", "%s: %s of %s, a %s (not a function)", f->func, op,
                             tvm_relax_var_name(callee), tvm_ffi_any_type_name(&fn));
      tvm_ffi_any_release(&fn);
      return rc;
    }
  }
  const char* name = packed ? tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)callee)->global_symbol)
                     : fn.type_index == kTVMFFIFunction ? tvm_relax_var_name(callee)
                            : tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)callee)->name_hint);
  const TVMFFIAny* inplace = tvm_relax__call_op_id(call) == TVM_RELAX_OP_call_tir_inplace
                                 ? tvm_relax_call_attr(call, "inplace_indices")
                                 : NULL;
  TVMFFIAny ins = tvm_ffi_any_none();
  if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 1), &ins) != 0) return -1;
  const tvm_relax_sinfo_obj* os = tvm_ffi_seq_obj_at(call->sinfo_args, 0);
  bool tuple_out = tvm_relax_kind_of(os) == TVM_RELAX_KIND_TupleStructInfo;
  void* ofields = tuple_out ? ((const tvm_relax_tuple_sinfo_obj*)os)->fields : NULL;
  int64_t nout = tuple_out ? tvm_ffi_seq_size(ofields) : 1;
  int64_t nin = ins.type_index == kTVMFFIArray ? tvm_ffi_seq_size(ins.v_obj) : 1;
  /* tir_vars (packed_ints): a shape whose values follow the outputs */
  TVMFFIAny packed_ints = tvm_ffi_any_none();
  if (tvm_ffi_seq_size(call->args) > 2 &&
      eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 2), &packed_ints) != 0) {
    tvm_ffi_any_release(&ins);
    return -1;
  }
  const TVMFFIShapeCell* pi =
      packed_ints.type_index == kTVMFFIShape ? TVMFFIShapeGetCellPtr(packed_ints.v_obj) : NULL;
  int64_t npi = pi ? (int64_t)pi->size : 0;
  /* args: the inputs, then the outputs the callee writes, then tir_vars' values; results: every
   * output */
  TVMFFIAny* args = tvm_ffi_calloc((size_t)(nin + nout + npi), sizeof(TVMFFIAny));
  TVMFFIAny* results = args ? tvm_ffi_calloc((size_t)nout, sizeof(TVMFFIAny)) : NULL;
  int rc = results ? 0 : -1;
  int64_t nargs = nin;
  for (int64_t i = 0; rc == 0 && i < nin; ++i) {
    args[i] = ins.type_index == kTVMFFIArray ? tvm_ffi_any_copy(tvm_ffi_seq_at(ins.v_obj, i))
                                             : tvm_ffi_any_copy(&ins);
  }
  for (int64_t i = 0; rc == 0 && i < nout; ++i) {
    int64_t idx = -1;
    if (inplace && inplace->type_index == kTVMFFIArray && i < tvm_ffi_seq_size(inplace->v_obj)) {
      tvm_ffi_any_as_int(tvm_ffi_seq_at(inplace->v_obj, i), &idx);
    }
    if (idx >= 0 && idx < nin) {
      results[i] = tvm_ffi_any_copy(&args[idx]);
      continue;
    }
    void* t = alloc_tensor(f, tuple_out ? tvm_ffi_seq_obj_at(ofields, i) : os);
    results[i] = tvm_ffi_any_obj(t);
    args[nargs++] = tvm_ffi_any_copy(&results[i]);
    if (!t) rc = -1;
  }
  for (int64_t i = 0; rc == 0 && i < npi; ++i) args[nargs++] = tvm_ffi_any_int(pi->data[i]);
  tvm_ffi_any_release(&packed_ints);
  TVMFFIAny ret = tvm_ffi_any_none();
  if (rc == 0) {
    rc = fn.type_index == kTVMFFIFunction ? tvm_ffi_function_call(fn.v_obj, args, (int32_t)nargs, &ret)
         : packed ? tvm_ffi_global_call(name, args, (int32_t)nargs, &ret)
                  : tvm_tir_interp_run(c->mod, name, args, (int32_t)nargs, &ret);
    if (rc != 0) tvm_ffi_raise_context("%s: %s %s", f->func, op, name);
  }
  tvm_ffi_any_release(&ret);
  if (rc == 0) {
    if (tuple_out) {
      void* arr = tvm_ffi_array_new(results, nout);
      *out = tvm_ffi_any_obj(arr);
      rc = arr ? 0 : -1;
    } else {
      *out = tvm_ffi_any_copy(&results[0]);
    }
  }
  for (int64_t i = 0; args && i < nargs; ++i) tvm_ffi_any_release(&args[i]);
  for (int64_t i = 0; results && i < nout; ++i) tvm_ffi_any_release(&results[i]);
  tvm_ffi_free(args);
  tvm_ffi_free(results);
  tvm_ffi_any_release(&ins);
  tvm_ffi_any_release(&fn);
  return rc;
}

/* vm.call_tir_dyn(f, (tensors..., shape)): the PrimFunc run with the tensors (its inputs and the
 * outputs it writes) and then the shape's values as int arguments; the result is void. */
static int eval_call_tir_dyn(eval_ctx* c, frame* f, const tvm_relax_call_obj* call,
                             TVMFFIAny* out) {
  const tvm_tir_global_var_obj* gv = tvm_ffi_seq_obj_at(call->args, 0);
  TVMFFIAny ins = tvm_ffi_any_none();
  if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 1), &ins) != 0) return -1;
  int64_t n = ins.type_index == kTVMFFIArray ? tvm_ffi_seq_size(ins.v_obj) : 0;
  const TVMFFIAny* last = n > 0 ? tvm_ffi_seq_at(ins.v_obj, n - 1) : NULL;
  TVMFFIShapeCell* shape =
      last && last->type_index == kTVMFFIShape ? TVMFFIShapeGetCellPtr(last->v_obj) : NULL;
  if (!shape) {
    tvm_ffi_any_release(&ins);
    return tvm_ffi_raise("TypeError", "%s: relax.vm.call_tir_dyn needs a tuple ending with a shape",
                         f->func);
  }
  int64_t nargs = n - 1 + (int64_t)shape->size;
  TVMFFIAny* args = tvm_ffi_calloc((size_t)(nargs ? nargs : 1), sizeof(TVMFFIAny));
  int rc = args ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n - 1; ++i)
    args[i] = tvm_ffi_any_copy(tvm_ffi_seq_at(ins.v_obj, i));
  for (size_t i = 0; rc == 0 && i < shape->size; ++i)
    args[n - 1 + (int64_t)i] = tvm_ffi_any_int(shape->data[i]);
  TVMFFIAny ret = tvm_ffi_any_none();
  /* a PrimFunc of the module, or a packed function by name (ExternFunc, StringImm) */
  bool by_name = !tvm_tir_is(gv, TVM_TIR_KIND_GlobalVar);
  TVMFFIByteArray nb = {"", 0};
  if (by_name) {
    TVMFFIAny sym = tvm_ffi_any_obj(tvm_relax_kind_of(gv) == TVM_RELAX_KIND_ExternFunc
                                        ? ((const tvm_relax_extern_func_obj*)(const void*)gv)->global_symbol
                                        : ((const tvm_relax_string_imm_obj*)(const void*)gv)->value);
    tvm_ffi_any_as_bytes(&sym, &nb);
  }
  char nbuf[256];
  if (rc == 0 && (nb.size >= sizeof(nbuf) || memchr(nb.data, 0, nb.size))) {
    rc = tvm_ffi_raise("ValueError", "%s: relax.vm.call_tir_dyn of a function name too long or "
                       "with a NUL byte", f->func);
  }
  snprintf(nbuf, sizeof(nbuf), "%.*s", (int)nb.size, nb.data);
  const char* name = by_name ? nbuf : tvm_ffi_str_cstr(gv->name_hint);
  if (rc == 0) {
    rc = by_name ? tvm_ffi_global_call(name, args, (int32_t)nargs, &ret)
                 : tvm_tir_interp_run(c->mod, name, args, (int32_t)nargs, &ret);
    if (rc != 0) tvm_ffi_raise_context("%s: relax.vm.call_tir_dyn %s", f->func, name);
  }
  tvm_ffi_any_release(&ret);
  for (int64_t i = 0; args && i < nargs; ++i) tvm_ffi_any_release(&args[i]);
  tvm_ffi_free(args);
  tvm_ffi_any_release(&ins);
  *out = tvm_ffi_any_none(); /* void */
  return rc;
}

/* ---- Function values ------------------------------------------------------------------------ */
/* A function used as a value is an ffi.Function: a nested Function with the values of its free
 * variables, captured when its expression was evaluated (a lambda), or a Relax function of the
 * module (a GlobalVar used as a value, or R.make_closure of one with values for its last
 * parameters: what LambdaLift makes of a lambda). */
struct closure {
  const tvm_tir_ir_module_obj* mod;    /* retained */
  const tvm_relax_function_obj* fn;    /* retained */
  char* name;
  void* captured;                      /* lambda: ffi.Dict Var -> value */
  void* tirs;                          /* lambda: ffi.Dict tir.Var -> int in scope */
  const tvm_relax_var_obj* self;       /* lambda: the Var it is bound to, or NULL (retained) */
  TVMFFIAny* bound;                    /* module function: the values of its last parameters */
  int32_t num_bound;
};

static int eval_function(eval_ctx* c, const tvm_relax_function_obj* fn, const char* name,
                         const TVMFFIAny* args, int32_t n, const closure* env, TVMFFIAny* out);

static void closure_delete(void* self) {
  closure* k = self;
  tvm_ffi_release((void*)k->mod);
  tvm_ffi_release((void*)k->fn);
  tvm_ffi_free(k->name);
  tvm_ffi_release(k->captured);
  tvm_ffi_release(k->tirs);
  tvm_ffi_release((void*)k->self);
  for (int32_t i = 0; i < k->num_bound; ++i) tvm_ffi_any_release(&k->bound[i]);
  tvm_ffi_free(k->bound);
  tvm_ffi_free(k);
}

static int closure_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  closure* k = self;
  eval_ctx c = {k->mod};
  if (!k->num_bound) return eval_function(&c, k->fn, k->name, args, n, k->self || k->captured ? k : NULL, rv);
  if (n > INT32_MAX - k->num_bound) return tvm_ffi_raise("ValueError", "%s: too many arguments", k->name);
  TVMFFIAny* all = tvm_ffi_calloc((size_t)(n + k->num_bound), sizeof(TVMFFIAny));
  if (!all) return -1;
  if (n) memcpy(all, args, (size_t)n * sizeof(TVMFFIAny));
  memcpy(all + n, k->bound, (size_t)k->num_bound * sizeof(TVMFFIAny));
  int rc = eval_function(&c, k->fn, k->name, all, n + k->num_bound, NULL, rv);
  tvm_ffi_free(all);
  return rc;
}

/* A new closure (all fields retained from the arguments), as an ffi.Function in *out. */
static int closure_value(const tvm_tir_ir_module_obj* mod, const tvm_relax_function_obj* fn,
                         const char* name, void* captured, void* tirs,
                         const tvm_relax_var_obj* self, const TVMFFIAny* bound, int32_t num_bound,
                         TVMFFIAny* out) {
  closure* k = tvm_ffi_calloc(1, sizeof(closure));
  if (!k) return -1;
  size_t len = strlen(name);
  k->name = tvm_ffi_malloc(len + 1);
  k->bound = num_bound ? tvm_ffi_calloc((size_t)num_bound, sizeof(TVMFFIAny)) : NULL;
  if (!k->name || (num_bound && !k->bound)) {
    closure_delete(k);
    return -1;
  }
  memcpy(k->name, name, len + 1);
  k->mod = mod, k->fn = fn, k->captured = captured, k->tirs = tirs, k->self = self;
  tvm_ffi_retain((void*)mod);
  tvm_ffi_retain((void*)fn);
  if (captured) tvm_ffi_retain(captured);
  if (tirs) tvm_ffi_retain(tirs);
  if (self) tvm_ffi_retain((void*)self);
  for (int32_t i = 0; i < num_bound; ++i) k->bound[i] = tvm_ffi_any_copy(&bound[i]);
  k->num_bound = num_bound;
  void* f = tvm_ffi_function_new(k, closure_call, closure_delete);
  if (!f) {
    closure_delete(k);
    return -1;
  }
  *out = tvm_ffi_any_obj(f);
  return 0;
}

/* Enter a lambda's call frame: its captured values, the symbolic values in scope where it was
 * made, and itself under the Var it is bound to (so that it may call itself). */
static int enter_closure(const closure* k, frame* f) {
  const TVMFFIAny *key, *val;
  int rc = 0;
  for (int64_t pos = 0; rc == 0 && k->captured && (pos = tvm_ffi_map_next(k->captured, pos, &key, &val)) >= 0;)
    rc = tvm_ffi_dict_set(f->vars, key, val);
  for (int64_t pos = 0; rc == 0 && k->tirs && (pos = tvm_ffi_map_next(k->tirs, pos, &key, &val)) >= 0;)
    rc = tvm_ffi_dict_set(f->tirs, key, val);
  if (rc == 0 && k->self) {
    TVMFFIAny me = tvm_ffi_any_none(), skey = tvm_ffi_any_obj(k->self);
    rc = closure_value(k->mod, k->fn, k->name, k->captured, k->tirs, k->self, NULL, 0, &me);
    if (rc == 0) rc = tvm_ffi_dict_set(f->vars, &skey, &me);
    tvm_ffi_any_release(&me);
  }
  return rc;
}

/* The value of a nested Function (bound to `self`, or NULL): a lambda over the current values of
 * its free variables. */
static int eval_lambda(eval_ctx* c, frame* f, const tvm_relax_function_obj* fn,
                       const tvm_relax_var_obj* self, TVMFFIAny* out) {
  void* free = tvm_relax_free_vars(fn);
  void* captured = tvm_ffi_dict_new();
  void* tirs = tvm_ffi_dict_new();
  int rc = free && captured && tirs ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(free); ++i) {
    const tvm_relax_var_obj* v = tvm_ffi_seq_obj_at(free, i);
    if (v == self) continue;
    TVMFFIAny key = tvm_ffi_any_obj(v);
    const TVMFFIAny* val = tvm_ffi_map_get(f->vars, &key);
    rc = val ? tvm_ffi_dict_set(captured, &key, val)
             : tvm_ffi_raise("RuntimeError", "%s: variable %s captured by a local function is not bound",
                             f->func, tvm_relax_var_name(v));
  }
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(f->tirs, pos, &key, &val)) >= 0;)
    rc = tvm_ffi_dict_set(tirs, key, val);
  char name[256];
  snprintf(name, sizeof(name), "%s.%s", f->func, self ? tvm_relax_var_name(self) : "<lambda>");
  if (rc == 0) rc = closure_value(c->mod, fn, name, captured, tirs, self, NULL, 0, out);
  tvm_ffi_release(free);
  tvm_ffi_release(captured);
  tvm_ffi_release(tirs);
  return rc;
}

/* The Relax function of the module that gv names, as a value (with bound last parameters). */
static int eval_module_function(eval_ctx* c, frame* f, const tvm_tir_global_var_obj* gv,
                                const TVMFFIAny* bound, int32_t num_bound, TVMFFIAny* out) {
  const char* name = tvm_ffi_str_cstr(gv->name_hint);
  void* fn = tvm_tir_ir_module_lookup(c->mod, name);
  int rc = tvm_relax_kind_of(fn) == TVM_RELAX_KIND_Function
               ? closure_value(c->mod, fn, name, NULL, NULL, NULL, bound, num_bound, out)
               : tvm_ffi_raise("NotImplementedError", "%s: %s used as a value (not a Relax function)",
                               f->func, name);
  tvm_ffi_release(fn);
  return rc;
}

/* R.make_closure(gv, (values...)) and R.invoke_closure / R.invoke_pure_closure(f, (args...)). */
static int eval_closure_op(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, bool make,
                           TVMFFIAny* out) {
  TVMFFIAny callee = tvm_ffi_any_none(), tuple = tvm_ffi_any_none();
  const void* op = tvm_ffi_seq_obj_at(call->args, 0);
  int rc = make ? 0 : eval_expr(c, f, op, &callee);
  if (rc == 0) rc = eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 1), &tuple);
  if (rc == 0 && tuple.type_index != kTVMFFIArray)
    rc = tvm_ffi_raise("TypeError", "%s: closure arguments must be a tuple", f->func);
  const TVMFFIAny* items = rc == 0 ? tvm_ffi_seq_at(tuple.v_obj, 0) : NULL;
  int32_t n = rc == 0 ? (int32_t)tvm_ffi_seq_size(tuple.v_obj) : 0;
  if (rc == 0 && make) {
    rc = eval_module_function(c, f, op, items, n, out);
  } else if (rc == 0) {
    rc = callee.type_index == kTVMFFIFunction
             ? tvm_ffi_function_call(callee.v_obj, items, n, out)
             : tvm_ffi_raise("TypeError", "%s: invoke_closure of a %s", f->func, tvm_ffi_any_type_name(&callee));
  }
  tvm_ffi_any_release(&callee);
  tvm_ffi_any_release(&tuple);
  return rc;
}


/* R.reshape(x, shape): a view of x's data (compact, same element count) with the new shape, as
 * vm.builtin.reshape makes it; RewriteDataflowReshape leaves these in a legalized module. */
static int eval_reshape(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  TVMFFIAny x = tvm_ffi_any_none(), s = tvm_ffi_any_none();
  int rc = eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), &x);
  if (rc == 0) rc = eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 1), &s);
  if (rc == 0 && (x.type_index != kTVMFFITensor || s.type_index != kTVMFFIShape)) {
    rc = tvm_ffi_raise("TypeError", "%s: relax.reshape needs a tensor and a shape", f->func);
  }
  if (rc == 0) {
    const DLTensor* dl = tvm_ffi_tensor_dl(x.v_obj);
    const int64_t* dims = tvm_ffi_shape_data(s.v_obj);
    int64_t n = tvm_ffi_shape_ndim(s.v_obj), numel = 1;
    for (int64_t i = 0; i < n; ++i) numel *= dims[i] < 0 ? 0 : dims[i];
    if (!tvm_ffi_dltensor_is_contiguous(dl) || numel != tvm_ffi_dltensor_numel(dl)) {
      rc = tvm_ffi_raise("ValueError", "%s: relax.reshape of a tensor of %lld elements to %lld elements",
                         f->func, (long long)tvm_ffi_dltensor_numel(dl), (long long)numel);
    } else {
      void* v = tvm_ffi_tensor_view(x.v_obj, dims, (int32_t)n, NULL, 0, dl->dtype);
      *out = tvm_ffi_any_obj(v);
      rc = v ? 0 : -1;
    }
  }
  tvm_ffi_any_release(&x);
  tvm_ffi_any_release(&s);
  return rc;
}

/* The values of the four arguments of call into v (owned; *k of them to release); void ones after
 * the first stay None when skip_void. */
static int eval_four_args(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, bool skip_void,
                          TVMFFIAny v[4], int* k) {
  int rc = 0;
  for (*k = 0; rc == 0 && *k < 4; ++*k) {
    v[*k] = tvm_ffi_any_none();
    tvm_relax_expr_obj* a = tvm_ffi_seq_obj_at(call->args, *k);
    if (skip_void && *k > 0 && tvm_relax__is_void(a)) continue;
    rc = eval_expr(c, f, a, &v[*k]);
  }
  return rc;
}

/* memory.view(x, shape, dtype, relative_byte_offset): a view of x's bytes from x's offset plus
 * relative_byte_offset, of the shape and dtype given (void: x's), as libvm's
 * runtime.TVMTensorCreateView makes it; x must be compact and the view inside its bytes. */
/* R.memory.ensure_zero_offset(x): x when its byte_offset is 0, else a view whose data pointer
 * holds the offset (vm.builtin.ensure_zero_offset's; CPU and CUDA addresses allow it). */
static int eval_zero_offset(eval_ctx* c, frame* f, const tvm_relax_call_obj* call,
                            TVMFFIAny* out) {
  TVMFFIAny x = tvm_ffi_any_none();
  if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), &x) != 0) return -1;
  if (x.type_index != kTVMFFITensor) {
    int rc = tvm_ffi_raise("TypeError", "%s: relax.memory.ensure_zero_offset of a %s", f->func,
                           tvm_ffi_any_type_name(&x));
    tvm_ffi_any_release(&x);
    return rc;
  }
  const DLTensor* dl = tvm_ffi_tensor_dl(x.v_obj);
  if (dl->byte_offset == 0) {
    *out = x;
    return 0;
  }
  DLTensor proto = *dl;
  proto.data = (char*)dl->data + dl->byte_offset;
  proto.byte_offset = 0;
  void* view = NULL;
  int rc = TVMFFITensorCreateUnsafeView(x.v_obj, &proto, &view);
  tvm_ffi_any_release(&x);
  if (rc == 0) *out = tvm_ffi_any_obj(view);
  return rc;
}

static int eval_view(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  TVMFFIAny v[4];
  int k;
  int rc = eval_four_args(c, f, call, true, v, &k);
  if (rc == 0 && v[0].type_index != kTVMFFITensor) {
    rc = tvm_ffi_raise("TypeError", "%s: relax.memory.view of a %s", f->func, tvm_ffi_any_type_name(&v[0]));
  }
  if (rc == 0) {
    const DLTensor* dl = tvm_ffi_tensor_dl(v[0].v_obj);
    DLTensor proto = *dl;
    proto.strides = NULL;
    if (v[1].type_index == kTVMFFIShape) {
      proto.ndim = (int32_t)tvm_ffi_shape_ndim(v[1].v_obj);
      proto.shape = (int64_t*)tvm_ffi_shape_data(v[1].v_obj);
    }
    if (v[2].type_index == kTVMFFIDataType) proto.dtype = v[2].v_dtype;
    int64_t rel = 0;
    if (v[3].type_index == kTVMFFIInt) tvm_ffi_any_as_int(&v[3], &rel);
    int64_t have = tvm_ffi_dltensor_numel(dl) * ((dl->dtype.bits * dl->dtype.lanes + 7) / 8);
    int64_t need = tvm_ffi_dltensor_numel(&proto) * ((proto.dtype.bits * proto.dtype.lanes + 7) / 8);
    if (!tvm_ffi_dltensor_is_contiguous(dl) || rel < 0 || rel + need > have) {
      rc = tvm_ffi_raise("ValueError",
                         "%s: relax.memory.view of %lld bytes at offset %lld does not fit in a "
                         "%s tensor of %lld bytes", f->func, (long long)need, (long long)rel,
                         tvm_ffi_dltensor_is_contiguous(dl) ? "compact" : "strided", (long long)have);
    } else {
      /* The offset goes into the data pointer where the device allows pointer arithmetic, so
       * that kernels (whose buffers have no element offset) can take the view. */
      DLDeviceType dev = dl->device.device_type;
      if (dev == kDLCPU || dev == kDLCUDA || dev == kDLCUDAHost) {
        proto.data = (char*)dl->data + dl->byte_offset + rel;
        proto.byte_offset = 0;
      } else {
        proto.byte_offset = dl->byte_offset + (uint64_t)rel;
      }
      void* view = NULL;
      rc = TVMFFITensorCreateUnsafeView(v[0].v_obj, &proto, &view);
      if (rc == 0) *out = tvm_ffi_any_obj(view);
    }
  }
  for (int i = 0; i < k; ++i) tvm_ffi_any_release(&v[i]);
  return rc;
}

/* ---- Storage --------------------------------------------------------------------------------- */
/*
 * The allocation operators of the lowered form, as libvm's vm.builtin.alloc_storage /
 * alloc_tensor run them: a storage (R.memory.alloc_storage(size, device, scope, dtype),
 * R.vm.alloc_storage(shape, device, dtype, scope)) is a zero-filled 1-d uint8 CPU tensor of
 * numel(shape) * sizeof(dtype) bytes; a tensor of it (R.memory.alloc_tensor / R.vm.alloc_tensor
 * (storage, offset, shape, dtype)) is a view of those bytes at the offset, so tensors placed in
 * one storage share its memory as on the VM. A kill (R.memory.kill_*, R.vm.kill_object) is void:
 * the value's memory goes when its last reference does.
 */
static int eval_alloc_storage(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, bool vm_form,
                              TVMFFIAny* out) {
  const char* op = tvm_relax_op_info_of(call->op)->name;
  TVMFFIAny v[4];
  int k;
  int rc = eval_four_args(c, f, call, false, v, &k);
  const TVMFFIAny* dt = &v[vm_form ? 2 : 3];
  const TVMFFIAny* scope = &v[vm_form ? 3 : 2];
  int64_t dev = 0;
  TVMFFIByteArray sc = {"", 0};
  if (rc == 0 && (v[0].type_index != kTVMFFIShape || dt->type_index != kTVMFFIDataType ||
                  !tvm_ffi_any_as_int(&v[1], &dev) || !tvm_ffi_any_as_bytes(scope, &sc))) {
    rc = tvm_ffi_raise("TypeError", "%s: %s expects a shape, a device index, a dtype and a scope",
                       f->func, op);
  }
  if (rc == 0 && dev != 0 && dev != -1) {
    rc = tvm_ffi_raise("ValueError", "%s: %s on device index %lld (the reference evaluator has "
                       "one device, the CPU: 0, or -1 for the host)", f->func, op, (long long)dev);
  }
  if (rc == 0 && !(sc.size == 0 || (sc.size == 6 && memcmp(sc.data, "global", 6) == 0))) {
    rc = tvm_ffi_raise("ValueError", "%s: %s in storage scope \"%.*s\" (only \"global\")", f->func,
                       op, (int)sc.size, sc.data);
  }
  int64_t nbytes = 0;
  if (rc == 0) {
    DLDataType t = dt->v_dtype;
    nbytes = (t.bits * (int64_t)t.lanes + 7) / 8;
    const int64_t* d = tvm_ffi_shape_data(v[0].v_obj);
    for (int64_t i = 0, n = tvm_ffi_shape_ndim(v[0].v_obj); rc == 0 && i < n; ++i) {
      if (d[i] < 0 || (d[i] > 0 && nbytes > INT64_MAX / d[i])) {
        rc = tvm_ffi_raise("ValueError", "%s: %s of a negative or too large size", f->func, op);
      } else {
        nbytes *= d[i];
      }
    }
  }
  void* st = rc == 0 ? tvm_ffi_tensor_empty(&nbytes, 1, (DLDataType){kDLUInt, 8, 1},
                                            (DLDevice){kDLCPU, 0})
                     : NULL;
  if (st && nbytes) memset(tvm_ffi_tensor_dl(st)->data, 0, (size_t)nbytes);
  for (int i = 0; i < k; ++i) tvm_ffi_any_release(&v[i]);
  *out = tvm_ffi_any_obj(st);
  return st ? 0 : -1;
}

static int eval_alloc_tensor(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  const char* op = tvm_relax_op_info_of(call->op)->name;
  TVMFFIAny v[4];
  int k;
  int rc = eval_four_args(c, f, call, false, v, &k);
  const DLTensor* st = rc == 0 && v[0].type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(v[0].v_obj) : NULL;
  int64_t offset = 0;
  if (rc == 0 && (!st || st->ndim != 1 || st->dtype.code != kDLUInt || st->dtype.bits != 8 ||
                  !tvm_ffi_any_as_int(&v[1], &offset) || v[2].type_index != kTVMFFIShape ||
                  v[3].type_index != kTVMFFIDataType)) {
    rc = tvm_ffi_raise("TypeError", "%s: %s expects a storage (of an alloc_storage), an offset, "
                       "a shape and a dtype, got a %s storage", f->func, op, tvm_ffi_any_type_name(&v[0]));
  }
  if (rc == 0) {
    DLTensor proto = *st;
    proto.strides = NULL;
    proto.ndim = (int32_t)tvm_ffi_shape_ndim(v[2].v_obj);
    proto.shape = (int64_t*)tvm_ffi_shape_data(v[2].v_obj);
    proto.dtype = v[3].v_dtype;
    int64_t need = (proto.dtype.bits * (int64_t)proto.dtype.lanes + 7) / 8;
    for (int32_t i = 0; i < proto.ndim; ++i) {
      if (proto.shape[i] < 0 || (proto.shape[i] > 0 && need > INT64_MAX / proto.shape[i])) need = -1;
      if (need < 0) break;
      need *= proto.shape[i];
    }
    if (need < 0 || offset < 0 || offset > st->shape[0] || need > st->shape[0] - offset) {
      rc = tvm_ffi_raise("ValueError", "%s: %s of %lld bytes at offset %lld does not fit in a "
                         "storage of %lld bytes", f->func, op, (long long)need, (long long)offset,
                         (long long)st->shape[0]);
    } else {
      proto.data = (char*)st->data + st->byte_offset + offset;
      proto.byte_offset = 0;
      void* view = NULL;
      rc = TVMFFITensorCreateUnsafeView(v[0].v_obj, &proto, &view);
      if (rc == 0) *out = tvm_ffi_any_obj(view);
    }
  }
  for (int i = 0; i < k; ++i) tvm_ffi_any_release(&v[i]);
  return rc;
}

/* ---- Runtime operators ----------------------------------------------------------------------- */
/* The values of call->args[first..] into vals (owned; *n their count). */
static int eval_args(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, int64_t first,
                     TVMFFIAny** vals, int32_t* n) {
  int64_t k = tvm_ffi_seq_size(call->args) - first;
  *n = 0;
  *vals = tvm_ffi_calloc((size_t)(k > 0 ? k : 1), sizeof(TVMFFIAny));
  if (!*vals) return -1;
  for (; *n < k; ++*n) {
    if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, first + *n), &(*vals)[*n]) != 0) return -1;
  }
  return 0;
}

static void free_args(TVMFFIAny* vals, int32_t n) {
  for (int32_t i = 0; vals && i < n; ++i) tvm_ffi_any_release(&vals[i]);
  tvm_ffi_free(vals);
}

/* The text of print's / assert_op's message: the `format` attribute applied to vals (format ""
 * joins them with sep), as libvm's relax.run.print / assert_op make it. */
static int format_message(frame* f, const tvm_relax_call_obj* call, const TVMFFIAny* vals, int32_t n,
                          const char* sep, tvm_ffi_strbuf* out) {
  const TVMFFIAny* fa = tvm_relax_call_attr(call, "format");
  TVMFFIByteArray fmt = {"", 0};
  if (fa) tvm_ffi_any_as_bytes(fa, &fmt);
  if (tvm_ffi__format_values(fmt, vals, n, sep, out) != 0) {
    return tvm_ffi_raise_context("%s: %s format \"%.*s\"", f->func, tvm_relax_op_info_of(call->op)->name,
                                 (int)fmt.size, fmt.data);
  }
  return 0;
}

static int eval_print(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  TVMFFIAny* vals;
  int32_t n;
  tvm_ffi_strbuf text = {0};
  int rc = eval_args(c, f, call, 0, &vals, &n);
  if (rc == 0) rc = format_message(f, call, vals, n, " ", &text);
  if (rc == 0) {
    tvm_ffi_strbuf_putc(&text, '\n');
    const char* s = tvm_ffi_strbuf_cstr(&text);
    size_t len = strlen(s);
    if (fwrite(s, 1, len, stdout) != len || fflush(stdout) != 0) {
      rc = tvm_ffi_raise("RuntimeError", "%s: relax.print: writing to stdout failed", f->func);
    }
  }
  tvm_ffi_strbuf_free(&text);
  free_args(vals, n);
  *out = tvm_ffi_any_none(); /* void: R.Tuple(), None at run time as in the VM */
  return rc;
}

static int eval_assert(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  TVMFFIAny* vals;
  int32_t n;
  int rc = eval_args(c, f, call, 0, &vals, &n);
  bool holds = true;
  if (rc == 0 && (vals[0].type_index == kTVMFFIBool || vals[0].type_index == kTVMFFIInt)) {
    holds = vals[0].v_int64 != 0;
  } else if (rc == 0) {
    const DLTensor* t = vals[0].type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(vals[0].v_obj) : NULL;
    bool is_bool = t && t->dtype.lanes == 1 && (t->dtype.code == kDLBool || (t->dtype.code == kDLUInt && t->dtype.bits == 1));
    if (!is_bool || t->ndim != 0) {
      rc = tvm_ffi_raise("ValueError", "%s: relax.assert_op: the condition must be a bool scalar, got %s", f->func,
                         tvm_ffi_any_type_name(&vals[0]));
    } else {
      holds = *((const uint8_t*)t->data + t->byte_offset) != 0;
    }
  }
  if (rc == 0 && !holds) {
    tvm_ffi_strbuf text = {0};
    const TVMFFIAny* fa = tvm_relax_call_attr(call, "format");
    TVMFFIByteArray fmt = {"", 0};
    if (fa) tvm_ffi_any_as_bytes(fa, &fmt);
    if (n == 1 && fmt.size == 0) {
      tvm_ffi_strbuf_puts(&text, "Assertion Failed");
    } else {
      rc = format_message(f, call, vals + 1, n - 1, ", ", &text);
    }
    if (rc == 0) rc = tvm_ffi_raise("AssertionError", "%s", tvm_ffi_strbuf_cstr(&text));
    tvm_ffi_strbuf_free(&text);
  }
  free_args(vals, n);
  *out = tvm_ffi_any_none(); /* void: R.Tuple(), None at run time as in the VM */
  return rc;
}

/* tensor_to_shape (a 1-d int64 tensor's values as a Shape) and shape_to_tensor (the reverse). */
static int eval_shape_conversion(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, bool to_shape,
                                 TVMFFIAny* out) {
  TVMFFIAny v = tvm_ffi_any_none();
  if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), &v) != 0) return -1;
  void* r = NULL;
  if (to_shape) {
    const DLTensor* t = v.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(v.v_obj) : NULL;
    if (!t || t->ndim != 1 || t->dtype.code != kDLInt || t->dtype.bits != 64 || t->dtype.lanes != 1) {
      tvm_ffi_raise("TypeError", "%s: relax.tensor_to_shape: expected a 1-d int64 tensor, got %s", f->func,
                    tvm_ffi_any_type_name(&v));
    } else {
      r = tvm_ffi_shape_new((const int64_t*)((const char*)t->data + t->byte_offset), t->shape[0]);
    }
  } else if (v.type_index != kTVMFFIShape) {
    tvm_ffi_raise("TypeError", "%s: relax.shape_to_tensor: expected a shape, got %s", f->func,
                  tvm_ffi_any_type_name(&v));
  } else {
    int64_t n = tvm_ffi_shape_ndim(v.v_obj);
    r = tvm_ffi_tensor_empty(&n, 1, tvm_tir_dtype_int(64), (DLDevice){kDLCPU, 0});
    if (r && n) memcpy(tvm_ffi_tensor_dl(r)->data, tvm_ffi_shape_data(v.v_obj), (size_t)n * sizeof(int64_t));
  }
  tvm_ffi_any_release(&v);
  *out = tvm_ffi_any_obj(r);
  return r ? 0 : -1;
}

/* call_pure_packed / call_inplace_packed(func, args...): the packed function found by name (an
 * in-place one writes into its arguments' tensors and returns them). */
static int eval_call_packed(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  const void* callee = tvm_ffi_seq_obj_at(call->args, 0);
  const char* op = tvm_relax_op_info_of(call->op)->name + strlen("relax.");
  if (tvm_relax_kind_of(callee) != TVM_RELAX_KIND_ExternFunc) {
    return tvm_ffi_raise("NotImplementedError", "%s: %s of a callee that is not an ExternFunc",
                         f->func, op);
  }
  const char* sym = tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)callee)->global_symbol);
  TVMFFIAny* vals;
  int32_t n;
  int rc = eval_args(c, f, call, 1, &vals, &n);
  if (rc == 0) rc = tvm_ffi_global_call(sym, vals, n, out);
  if (rc != 0) tvm_ffi_raise_context("%s: %s %s", f->func, op, sym);
  free_args(vals, n);
  return rc;
}

static int eval_call(eval_ctx* c, frame* f, const tvm_relax_call_obj* call, TVMFFIAny* out) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  if (info) {
    switch (info->id) {
      case TVM_RELAX_OP_call_tir:
      case TVM_RELAX_OP_call_tir_inplace:
      case TVM_RELAX_OP_call_dps_packed:
      case TVM_RELAX_OP_call_tir_with_grad:
        return eval_call_tir(c, f, call, out);
      case TVM_RELAX_OP_vm_call_tir_dyn:
        return eval_call_tir_dyn(c, f, call, out);
      case TVM_RELAX_OP_call_builtin_with_ctx:
        return tvm_ffi_raise(
            "NotImplementedError",
            "%s: relax.call_builtin_with_ctx calls a VM builtin with the VM's "
            "context, which the reference evaluator does not have (run it in the VM)",
            f->func);
      case TVM_RELAX_OP_builtin_alloc_tensor: {
        /* CallTIRRewrite's allocation (a tensor of the call's struct info, zeroed) */
        void* t = alloc_tensor(f, tvm_relax_sinfo_of(&call->expr));
        *out = tvm_ffi_any_obj(t);
        return t ? 0 : -1;
      }
      case TVM_RELAX_OP_memory_alloc_storage:
      case TVM_RELAX_OP_vm_alloc_storage:
        return eval_alloc_storage(c, f, call, info->id == TVM_RELAX_OP_vm_alloc_storage, out);
      case TVM_RELAX_OP_memory_alloc_tensor:
      case TVM_RELAX_OP_vm_alloc_tensor:
        return eval_alloc_tensor(c, f, call, out);
      case TVM_RELAX_OP_memory_kill_storage:
      case TVM_RELAX_OP_memory_kill_tensor:
      case TVM_RELAX_OP_vm_kill_object: {
        TVMFFIAny x = tvm_ffi_any_none(); /* (evaluated for its errors) */
        if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), &x) != 0) return -1;
        tvm_ffi_any_release(&x);
        *out = tvm_ffi_any_none(); /* void (the VM's register is None after a kill) */
        return 0;
      }
      case TVM_RELAX_OP_grad_no_grad:
      case TVM_RELAX_OP_grad_start_checkpoint:
      case TVM_RELAX_OP_grad_end_checkpoint:
      case TVM_RELAX_OP_builtin_stop_lift_params:
        return eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), out);
      case TVM_RELAX_OP_reshape:
        return eval_reshape(c, f, call, out);
      case TVM_RELAX_OP_memory_view:
        return eval_view(c, f, call, out);
      case TVM_RELAX_OP_memory_ensure_zero_offset:
        return eval_zero_offset(c, f, call, out);
      case TVM_RELAX_OP_hint_on_device: {
        const TVMFFIAny* t = tvm_relax_call_attr(call, "device_type");
        int64_t type = 0;
        if (t) tvm_ffi_any_as_int(t, &type);
        if (type != kDLCPU) {
          return tvm_ffi_raise("NotImplementedError",
                               "%s: relax.hint_on_device to device type %lld (the reference "
                               "evaluator runs on the CPU)", f->func, (long long)type);
        }
        return eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), out);
      }
      case TVM_RELAX_OP_to_vdevice: {
        const TVMFFIAny* d = tvm_relax_call_attr(call, "dst_vdevice");
        if (!d || !tvm_ffi_any_is_object(d) || tvm_relax__vdevice_device_type(d->v_obj) != kDLCPU) {
          return tvm_ffi_raise("NotImplementedError",
                               "%s: relax.to_vdevice to a device other than the CPU (the reference "
                               "evaluator runs on the CPU)", f->func);
        }
        TVMFFIAny x = tvm_ffi_any_none();
        if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), &x) != 0) return -1;
        void* copy = NULL;
        const DLTensor* dl = x.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(x.v_obj) : NULL;
        if (!dl || dl->device.device_type != kDLCPU || !tvm_ffi_dltensor_is_contiguous(dl)) {
          tvm_ffi_raise("TypeError", "%s: relax.to_vdevice of a %s (a compact CPU tensor is needed)",
                        f->func, tvm_ffi_any_type_name(&x));
        } else if ((copy = tvm_ffi_tensor_empty(dl->shape, dl->ndim, dl->dtype, dl->device)) != NULL) {
          size_t nbytes = (size_t)tvm_ffi_dltensor_numel(dl) * ((dl->dtype.bits * dl->dtype.lanes + 7) / 8);
          if (nbytes) memcpy(tvm_ffi_tensor_dl(copy)->data, (const char*)dl->data + dl->byte_offset, nbytes);
        }
        tvm_ffi_any_release(&x);
        *out = tvm_ffi_any_obj(copy);
        return copy ? 0 : -1;
      }
      case TVM_RELAX_OP_call_pure_packed:
      case TVM_RELAX_OP_call_inplace_packed:
        return eval_call_packed(c, f, call, out);
      case TVM_RELAX_OP_null_value: /* (as vm.builtin.null_value: None) */
        *out = tvm_ffi_any_none();
        return 0;
      case TVM_RELAX_OP_print:
        return eval_print(c, f, call, out);
      case TVM_RELAX_OP_assert_op:
        return eval_assert(c, f, call, out);
      case TVM_RELAX_OP_tensor_to_shape:
      case TVM_RELAX_OP_shape_to_tensor:
        return eval_shape_conversion(c, f, call, info->id == TVM_RELAX_OP_tensor_to_shape, out);
      case TVM_RELAX_OP_make_closure:
      case TVM_RELAX_OP_invoke_closure:
      case TVM_RELAX_OP_invoke_pure_closure:
        return eval_closure_op(c, f, call, info->id == TVM_RELAX_OP_make_closure, out);
      case TVM_RELAX_OP_inspect_tensor_dtype_code:
      case TVM_RELAX_OP_inspect_tensor_dtype_bits:
      case TVM_RELAX_OP_inspect_tensor_dtype_lanes:
      case TVM_RELAX_OP_inspect_tensor_ndim:
      case TVM_RELAX_OP_inspect_tensor_shape_i:
      case TVM_RELAX_OP_inspect_tensor_stride_i:
      case TVM_RELAX_OP_inspect_tensor_byte_offset:
      case TVM_RELAX_OP_inspect_tensor_elem_offset: {
        TVMFFIAny* vals;
        int32_t n;
        int rc = eval_args(c, f, call, 0, &vals, &n);
        if (rc == 0) rc = tvm_relax__eval_inspect(f->func, call, vals, n, out);
        free_args(vals, n);
        return rc;
      }
      case TVM_RELAX_OP_shape_of: {
        TVMFFIAny t = tvm_ffi_any_none();
        if (eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, 0), &t) != 0) return -1;
        const DLTensor* dl = tvm_ffi_tensor_dl(t.v_obj);
        void* s = tvm_ffi_shape_new(dl->shape, dl->ndim);
        tvm_ffi_any_release(&t);
        *out = tvm_ffi_any_obj(s);
        return s ? 0 : -1;
      }
      default:
        return tvm_ffi_raise("NotImplementedError",
                             "%s: %s has no kernel here (run LegalizeOps before evaluating)",
                             f->func, info->name);
    }
  }
  int64_t n = tvm_ffi_seq_size(call->args);
  TVMFFIAny* args = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!args) return -1;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < n; ++i) rc = eval_expr(c, f, tvm_ffi_seq_obj_at(call->args, i), &args[i]);
  if (rc == 0) {
    if (tvm_relax_kind_of(call->op) == TVM_RELAX_KIND_ExternFunc) {
      const char* sym = tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)call->op)->global_symbol);
      rc = tvm_ffi_global_call(sym, args, (int32_t)n, out);
      if (rc != 0) tvm_ffi_raise_context("%s: call_packed %s", f->func, sym);
    } else if (tvm_tir_is(call->op, TVM_TIR_KIND_GlobalVar)) {
      const char* name = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)call->op)->name_hint);
      void* callee = tvm_tir_ir_module_lookup(c->mod, name);
      if (tvm_relax_kind_of(callee) == TVM_RELAX_KIND_Function) {
        rc = eval_function(c, callee, name, args, (int32_t)n, NULL, out);
      } else if (tvm_tir_is(callee, TVM_TIR_KIND_PrimFunc)) {
        /* A PrimFunc called directly (ComputePrimValue's, or a kernel given its outputs): run
         * in the interpreter, its tir.ret value the result. */
        rc = tvm_tir_interp_run(c->mod, name, args, (int32_t)n, out);
        if (rc != 0) tvm_ffi_raise_context("%s: call of %s", f->func, name);
      } else {
        rc = tvm_ffi_raise("NotImplementedError", "%s: call of %s (not a Relax function)", f->func, name);
      }
      tvm_ffi_release(callee);
    } else {
      /* A function value: a lambda, or a function passed or returned as a value. */
      TVMFFIAny callee = tvm_ffi_any_none();
      rc = eval_expr(c, f, call->op, &callee);
      if (rc == 0 && callee.type_index != kTVMFFIFunction) {
        rc = tvm_ffi_raise("TypeError", "%s: call of a %s, not a function", f->func,
                           tvm_ffi_any_type_name(&callee));
      }
      if (rc == 0) rc = tvm_ffi_function_call(callee.v_obj, args, (int32_t)n, out);
      tvm_ffi_any_release(&callee);
    }
  }
  for (int64_t i = 0; i < n; ++i) tvm_ffi_any_release(&args[i]);
  tvm_ffi_free(args);
  return rc;
}

/* ---- Expressions ----------------------------------------------------------------------------- */
static int eval_block(eval_ctx* c, frame* f, const tvm_relax_block_obj* blk) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(blk->bindings); ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, i);
    TVMFFIAny v = tvm_ffi_any_none();
    const tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
    if (tvm_relax_kind_of(value) == TVM_RELAX_KIND_Function
            ? eval_lambda(c, f, (const void*)value, b->var, &v) != 0
            : eval_expr(c, f, value, &v) != 0) {
      return -1;
    }
    int rc = 0;
    if (tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast) {
      char what[96];
      snprintf(what, sizeof(what), "match_cast of %s", tvm_relax_var_name(b->var));
      rc = match(f, &v, ((const tvm_relax_match_cast_obj*)b)->struct_info, what);
    }
    TVMFFIAny key = tvm_ffi_any_obj(b->var);
    if (rc == 0) rc = tvm_ffi_dict_set(f->vars, &key, &v);
    tvm_ffi_any_release(&v);
    if (rc != 0) return -1;
  }
  return 0;
}

static int eval_prim(frame* f, const tvm_tir_expr_obj* e, TVMFFIAny* out) {
  DLDataType t = tvm_tir_expr_dtype(e);
  double d;
  if (tvm_tir_dtype_is_floating(t)) {
    if (!tvm_tir_as_const_float(e, &d)) {
      return tvm_ffi_raise("NotImplementedError", "%s: a symbolic float R.prim_value", f->func);
    }
    *out = tvm_ffi_any_float(d);
    return 0;
  }
  int64_t v;
  if (eval_int(f, e, &v) != 0) return -1;
  *out = t.bits == 1 ? tvm_ffi_any_bool(v != 0) : tvm_ffi_any_int(v);
  return 0;
}

/* The value of each kind of expression, by kind (k_eval). */
static int eval_var(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  (void)c;
  TVMFFIAny key = tvm_ffi_any_obj(e);
  const TVMFFIAny* v = tvm_ffi_map_get(f->vars, &key);
  if (!v) {
    return tvm_ffi_raise("RuntimeError", "%s: variable %s is not bound", f->func,
                         tvm_relax_var_name((const tvm_relax_var_obj*)e));
  }
  *out = tvm_ffi_any_copy(v);
  return 0;
}

static int eval_constant(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  (void)c, (void)f;
  tvm_ffi_retain(((const tvm_relax_constant_obj*)e)->data);
  *out = tvm_ffi_any_obj(((const tvm_relax_constant_obj*)e)->data);
  return 0;
}

static int eval_prim_value(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  (void)c;
  return eval_prim(f, ((const tvm_relax_prim_value_obj*)e)->value, out);
}

static int eval_string_imm(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  (void)c, (void)f;
  tvm_ffi_retain(((const tvm_relax_string_imm_obj*)e)->value);
  *out = tvm_ffi_any_obj(((const tvm_relax_string_imm_obj*)e)->value);
  return 0;
}

/* An ExternFunc used as a value: the packed function of that name. */
static int eval_extern_func(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  (void)c;
  const char* sym = tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)e)->global_symbol);
  void* fn = tvm_ffi_global_get(sym);
  if (!fn) return tvm_ffi_raise("ValueError", "%s: no packed function named %s", f->func, sym);
  *out = tvm_ffi_any_obj(fn);
  return 0;
}

static int eval_dtype_imm(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  (void)c, (void)f;
  *out = tvm_ffi_any_dtype(((const tvm_relax_dtype_imm_obj*)e)->value);
  return 0;
}

static int eval_shape_expr(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  (void)c;
  void* vals = ((const tvm_relax_shape_expr_obj*)e)->values;
  int64_t n = tvm_ffi_seq_size(vals), dims[64];
  if (n > 64) return tvm_ffi_raise("ValueError", "%s: shape of more than 64 dims", f->func);
  for (int64_t i = 0; i < n; ++i) {
    if (eval_int(f, tvm_ffi_seq_obj_at(vals, i), &dims[i]) != 0) return -1;
  }
  void* s = tvm_ffi_shape_new(dims, n);
  *out = tvm_ffi_any_obj(s);
  return s ? 0 : -1;
}

static int eval_tuple(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  void* fields = ((const tvm_relax_tuple_obj*)e)->fields;
  int64_t n = tvm_ffi_seq_size(fields);
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return -1;
  int rc = 0;
  int64_t i = 0;
  for (; rc == 0 && i < n; ++i) rc = eval_expr(c, f, tvm_ffi_seq_obj_at(fields, i), &items[i]);
  void* arr = rc == 0 ? tvm_ffi_array_new_take(items, n) : NULL;
  for (int64_t j = 0; !arr && j < i; ++j) tvm_ffi_any_release(&items[j]);
  tvm_ffi_free(items);
  *out = tvm_ffi_any_obj(arr);
  return arr ? 0 : -1;
}

static int eval_tuple_get_item(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e,
                               TVMFFIAny* out) {
  const tvm_relax_tuple_get_item_obj* g = (const void*)e;
  TVMFFIAny t = tvm_ffi_any_none();
  if (eval_expr(c, f, g->tuple_value, &t) != 0) return -1;
  int rc = 0;
  if (t.type_index != kTVMFFIArray || g->index >= tvm_ffi_seq_size(t.v_obj)) {
    rc = tvm_ffi_raise("IndexError", "%s: tuple index %lld out of range", f->func, (long long)g->index);
  } else {
    *out = tvm_ffi_any_copy(tvm_ffi_seq_at(t.v_obj, g->index));
  }
  tvm_ffi_any_release(&t);
  return rc;
}

static int eval_call_kind(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  return eval_call(c, f, (const tvm_relax_call_obj*)e, out);
}

static int eval_if(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  const tvm_relax_if_obj* fi = (const void*)e;
  TVMFFIAny cv = tvm_ffi_any_none();
  if (eval_expr(c, f, fi->cond, &cv) != 0) return -1;
  bool cond = false;
  int rc = 0;
  if (cv.type_index == kTVMFFITensor) {
    const DLTensor* dl = tvm_ffi_tensor_dl(cv.v_obj);
    cond = *((const uint8_t*)dl->data + dl->byte_offset) != 0;
  } else if (!tvm_ffi_any_as_bool(&cv, &cond)) {
    rc = tvm_ffi_raise("TypeError", "%s: the condition of an If is not a bool", f->func);
  }
  tvm_ffi_any_release(&cv);
  return rc == 0 ? eval_expr(c, f, cond ? fi->true_branch : fi->false_branch, out) : -1;
}

static int eval_function_value(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  return eval_lambda(c, f, (const void*)e, NULL, out);
}

static int eval_seq(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  const tvm_relax_seq_expr_obj* s = (const void*)e;
  for (int64_t i = 0; i < tvm_ffi_seq_size(s->blocks); ++i) {
    if (eval_block(c, f, tvm_ffi_seq_obj_at(s->blocks, i)) != 0) return -1;
  }
  return eval_expr(c, f, s->body, out);
}

#define K(Name) TVM_RELAX_KIND_##Name
static int (*const k_eval[TVM_RELAX_KIND_COUNT])(eval_ctx* c, frame* f,
                                                 const tvm_relax_expr_obj* e, TVMFFIAny* out) = {
    [K(Var)] = eval_var,
    [K(DataflowVar)] = eval_var,
    [K(Constant)] = eval_constant,
    [K(PrimValue)] = eval_prim_value,
    [K(StringImm)] = eval_string_imm,
    [K(DataTypeImm)] = eval_dtype_imm,
    [K(ExternFunc)] = eval_extern_func,
    [K(ShapeExpr)] = eval_shape_expr,
    [K(Tuple)] = eval_tuple,
    [K(TupleGetItem)] = eval_tuple_get_item,
    [K(Call)] = eval_call_kind,
    [K(If)] = eval_if,
    [K(SeqExpr)] = eval_seq,
    [K(Function)] = eval_function_value,
};
#undef K

bool tvm_relax__eval_rule(tvm_relax_kind kind) {
  return kind >= 0 && kind < TVM_RELAX_KIND_COUNT && k_eval[kind] != NULL;
}

static int eval_expr(eval_ctx* c, frame* f, const tvm_relax_expr_obj* e, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  tvm_relax_kind k = tvm_relax_kind_of(e);
  if (k >= 0 && k_eval[k]) return k_eval[k](c, f, e, out);
  if (tvm_tir_is(e, TVM_TIR_KIND_GlobalVar)) return eval_module_function(c, f, (const void*)e, NULL, 0, out);
  return tvm_ffi_raise("NotImplementedError", "%s: evaluating a %s", f->func,
                       e ? tvm_ffi_type_key(tvm_ffi_type_index(e)) : "NULL");
}

static int eval_function(eval_ctx* c, const tvm_relax_function_obj* fn, const char* name,
                         const TVMFFIAny* args, int32_t n, const closure* env, TVMFFIAny* out) {
  if (t_depth >= MAX_CALL_DEPTH) {
    return tvm_ffi_raise("RuntimeError", "%s: calls nested deeper than %d", name, MAX_CALL_DEPTH);
  }
  int64_t np = tvm_ffi_seq_size(fn->params);
  if (n != np) {
    return tvm_ffi_raise("TypeError", "%s takes %lld arguments, got %d", name, (long long)np, n);
  }
  frame f = {tvm_ffi_dict_new(), tvm_ffi_dict_new(), name, true};
  int rc = f.vars && f.tirs ? 0 : -1;
  if (rc == 0 && env) rc = enter_closure(env, &f);
  /* Two rounds: a composite dim (`(n + 1) // 2`) may use a variable a later parameter binds. */
  for (int round = 0; round < 2; ++round, f.lenient = false) {
    for (int64_t i = 0; rc == 0 && i < np; ++i) {
      const tvm_relax_var_obj* p = tvm_ffi_seq_obj_at(fn->params, i);
      char what[96];
      snprintf(what, sizeof(what), "argument '%s'", tvm_relax_var_name(p));
      rc = match(&f, &args[i], tvm_relax_sinfo_of(p), what);
      TVMFFIAny key = tvm_ffi_any_obj(p);
      if (rc == 0 && round == 0) rc = tvm_ffi_dict_set(f.vars, &key, &args[i]);
    }
  }
  ++t_depth;
  if (rc == 0) rc = eval_expr(c, &f, fn->body, out);
  --t_depth;
  if (rc == 0 && match(&f, out, fn->ret_struct_info, "the result") != 0) {
    tvm_ffi_any_release(out);
    rc = -1;
  }
  tvm_ffi_release(f.vars);
  tvm_ffi_release(f.tirs);
  return rc;
}

int tvm_relax_eval(const tvm_tir_ir_module_obj* mod, const char* func_name, const TVMFFIAny* args,
                   int32_t num_args, TVMFFIAny* out) {
  tvm_relax__ensure_init();
  *out = tvm_ffi_any_none();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) return tvm_ffi_raise("TypeError", "eval: an IRModule is required");
  void* fn = tvm_tir_ir_module_lookup(mod, func_name ? func_name : "main");
  if (tvm_relax_kind_of(fn) != TVM_RELAX_KIND_Function) {
    tvm_ffi_release(fn);
    return tvm_ffi_raise("KeyError", "eval: the module has no Relax function '%s'",
                         func_name ? func_name : "main");
  }
  eval_ctx c = {mod};
  int rc = eval_function(&c, fn, func_name ? func_name : "main", args, num_args, NULL, out);
  tvm_ffi_release(fn);
  return rc;
}

int tvm_relax__eval_closed(const tvm_tir_ir_module_obj* mod, const tvm_relax_expr_obj* e,
                           const char* what, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  eval_ctx c = {mod};
  frame f = {tvm_ffi_dict_new(), tvm_ffi_dict_new(), what, false};
  int rc = f.vars && f.tirs ? eval_expr(&c, &f, e, out) : -1;
  tvm_ffi_release(f.vars);
  tvm_ffi_release(f.tirs);
  return rc;
}

/*
 * fuse_tir.c: FuseTIR (tvm/relax/transform.h), upstream's relax.transform.FuseTIR.
 *
 * Each Relax function with "Primitive" (a FuseOps group: one dataflow block of call_tir and
 * TupleGetItem bindings, returning one variable or a tuple of them) becomes one PrimFunc of the
 * same name, and every call of it `R.call_tir(fused, (args), out_sinfo=<the call's struct
 * info>)`:
 *
 *  - parameters: one buffer per parameter of the group (shapes from its struct info, symbolic
 *    dims as the kernel's own variables, as LegalizeOps makes them), then one per result;
 *  - each call_tir's kernel body is copied in order (SBlocks first turned into loops), its buffer
 *    parameters replaced by the fused kernel's buffers: a parameter, a result, or an
 *    intermediate (a local Allocate + DeclBuffer of the whole fused body). The kernel's shape
 *    variables are unified with the fused buffers' dims (a bare variable takes the dim, others
 *    must be provably equal), and every loop / let / allocation gets fresh variables, so a kernel
 *    merged twice stays in SSA form;
 *  - then tvm_relax__fuse_tir_rewrite (fuse_tir_inline.c) computes intermediates per element
 *    where that does not repeat work, and moves elementwise epilogues into their producer's loops.
 *
 * The group functions and the kernels no longer called from anywhere are removed. A group
 * function of another shape (not made by FuseOps) is left as it is, and so are its calls.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>
#include <tvm/tir/builder.h>
#include <tvm/tir/transform.h>

#include "fuse_internal.h"

enum { MAX_BUFS = 256 };

static const TVMFFIAny* get(void* dict, const void* key) {
  TVMFFIAny k = tvm_ffi_any_obj(key);
  return tvm_ffi_map_get(dict, &k);
}
static int put(void* dict, const void* key, const void* value) {
  TVMFFIAny k = tvm_ffi_any_obj(key), v = tvm_ffi_any_obj(value);
  return tvm_ffi_dict_set(dict, &k, &v);
}
static int put_int(void* dict, const void* key, int64_t value) {
  TVMFFIAny k = tvm_ffi_any_obj(key), v = tvm_ffi_any_int(value);
  return tvm_ffi_dict_set(dict, &k, &v);
}
static bool is_var(const void* e) {
  tvm_relax_kind k = tvm_relax_kind_of(e);
  return k == TVM_RELAX_KIND_Var || k == TVM_RELAX_KIND_DataflowVar;
}

/* ---- SBlocks to loops -------------------------------------------------------------------------- */
static int find_block(tvm_tir_visitor* v, const void* node) {
  (void)node;
  *(bool*)v->ctx = true;
  return TVM_TIR_VISIT_SKIP;
}

tvm_tir_prim_func_obj* tvm_relax__prim_func_loops(const tvm_tir_prim_func_obj* func) {
  bool blocks = false;
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_SBlock] = find_block;
  v.ctx = &blocks;
  int rc = tvm_tir_visit(&v, func->body);
  tvm_tir_visitor_free(&v);
  if (rc != 0) return NULL;
  if (!blocks) {
    tvm_ffi_retain((void*)func);
    return (tvm_tir_prim_func_obj*)func;
  }
  void* a = tvm_tir_transform_lower_init(func);
  void* b = a ? tvm_tir_transform_convert_blocks(a) : NULL;
  tvm_ffi_release(a);
  return b;
}

/* ---- Unifying a kernel's buffers with the fused kernel's ---------------------------------------- */
/* Bind the kernel's bare-variable dims (kmap: kernel Var -> fused dim). */
static int bind_dims(void* kmap, const tvm_tir_buffer_obj* kb, const tvm_tir_buffer_obj* fb, bool* ok) {
  int64_t n = tvm_ffi_seq_size(kb->shape);
  if (n != tvm_ffi_seq_size(fb->shape) || !tvm_tir_dtype_equal(kb->dtype, fb->dtype) ||
      tvm_ffi_seq_size(kb->strides) != 0 || !tvm_tir_as_const_int(kb->elem_offset, &(int64_t){0})) {
    *ok = false;
    return 0;
  }
  int64_t off;
  if (tvm_tir_as_const_int(kb->elem_offset, &off) && off != 0) *ok = false;
  for (int64_t d = 0; d < n && *ok; ++d) {
    const void* kd = tvm_ffi_seq_obj_at(kb->shape, d);
    if (!tvm_tir_is_var(kd) || get(kmap, kd)) continue;
    if (put(kmap, kd, tvm_ffi_seq_obj_at(fb->shape, d)) != 0) return -1;
  }
  return 0;
}

/* Every kernel dim, substituted, provably equals the fused buffer's. */
static int check_dims(void* kmap, const tvm_tir_buffer_obj* kb, const tvm_tir_buffer_obj* fb, bool* ok) {
  for (int64_t d = 0; d < tvm_ffi_seq_size(kb->shape) && *ok; ++d) {
    tvm_tir_subst s;
    if (tvm_tir_subst_init(&s, true) != 0) return -1;
    tvm_ffi_release(s.vars);
    s.vars = kmap;
    tvm_ffi_retain(kmap);
    tvm_tir_expr_obj* kd = tvm_tir_subst_apply(&s, tvm_ffi_seq_obj_at(kb->shape, d));
    tvm_tir_subst_free(&s);
    if (!kd) return -1;
    if (!tvm_relax__dim_equal(kd, tvm_ffi_seq_obj_at(fb->shape, d))) *ok = false;
    tvm_ffi_release(kd);
  }
  return 0;
}

/* ---- Building one fused kernel ------------------------------------------------------------------- */
typedef struct {
  const tvm_tir_ir_module_obj* mod;
  tvm_relax__kernel k; /* the fused kernel's parameters and Relax -> kernel variable map */
  void* local_params;  /* ffi.List: where kernel_buffer puts intermediates (then moved) */
  void* env;           /* ffi.Dict Relax Var -> Buffer, or ffi.List of Buffers for a tuple */
  void* outputs;       /* ffi.Dict Relax Var -> output Buffer */
  void* fields;        /* ffi.Dict tuple Var -> ffi.List: fields bound to output Buffers */
  void* locals;        /* ffi.Dict Buffer -> 1: the intermediates */
  void* local_order;   /* ffi.List of the intermediates, in order */
  void* stmts;         /* ffi.List of the kernels' bodies */
  void* writer;        /* ffi.Dict Buffer -> statement index */
  bool ok;             /* false: the function is not one this pass merges */
} fuser;

static void fuser_free(fuser* u) {
  tvm_relax__kernel_free(&u->k);
  tvm_ffi_release(u->local_params), tvm_ffi_release(u->env), tvm_ffi_release(u->outputs);
  tvm_ffi_release(u->fields), tvm_ffi_release(u->locals), tvm_ffi_release(u->local_order);
  tvm_ffi_release(u->stmts), tvm_ffi_release(u->writer);
}

/* A buffer for a tensor of struct info s: a parameter (params) or an intermediate. */
static tvm_tir_buffer_obj* new_buffer(fuser* u, const void* name_str, const tvm_relax_sinfo_obj* s,
                                      bool local) {
  char name[64];
  snprintf(name, sizeof(name), "%s", name_str ? tvm_ffi_str_cstr((void*)name_str) : "buf");
  if (!local) return tvm_relax__kernel_buffer(&u->k, name, s);
  tvm_relax__kernel lk = u->k; /* the same maps (not owned), intermediates to local_params */
  lk.params = u->local_params;
  tvm_tir_buffer_obj* b = tvm_relax__kernel_buffer(&lk, name, s);
  tvm_ffi_list_clear(u->local_params);
  TVMFFIAny bv = tvm_ffi_any_obj(b);
  if (b && (put_int(u->locals, b, 1) != 0 || tvm_ffi_list_push(u->local_order, &bv) != 0)) {
    tvm_ffi_release(b);
    return NULL;
  }
  return b;
}

/* The output buffers of a call_tir binding: its result's, or one per field of a tuple. */
static int call_outputs(fuser* u, const tvm_relax_binding_obj* b, const tvm_relax_sinfo_obj* out,
                        tvm_tir_buffer_obj** bufs, int64_t* nbufs) {
  if (tvm_relax_kind_of(out) != TVM_RELAX_KIND_TupleStructInfo) {
    const TVMFFIAny* o = get(u->outputs, b->var);
    bufs[0] = o ? (void*)o->v_obj : new_buffer(u, b->var->name_hint, out, true);
    if (o) tvm_ffi_retain(bufs[0]);
    *nbufs = 1;
    return bufs[0] ? 0 : -1;
  }
  void* fields = ((const tvm_relax_tuple_sinfo_obj*)out)->fields;
  const TVMFFIAny* assigned = get(u->fields, b->var);
  *nbufs = tvm_ffi_seq_size(fields);
  if (*nbufs > MAX_BUFS) {
    u->ok = false;
    *nbufs = 0;
    return 0;
  }
  for (int64_t i = 0; i < *nbufs; ++i) {
    /* (the list holds the fields up to the last one assigned: it may be shorter) */
    const TVMFFIAny* a = assigned && i < tvm_ffi_seq_size(assigned->v_obj)
                             ? tvm_ffi_seq_at(assigned->v_obj, i)
                             : NULL;
    if (a && a->type_index >= kTVMFFIStaticObjectBegin) {
      bufs[i] = (void*)a->v_obj;
      tvm_ffi_retain(bufs[i]);
    } else {
      bufs[i] = new_buffer(u, b->var->name_hint, tvm_ffi_seq_obj_at(fields, i), true);
    }
    if (!bufs[i]) {
      for (int64_t j = 0; j < i; ++j) tvm_ffi_release(bufs[j]);
      return -1;
    }
  }
  return 0;
}

/* Merge one call_tir binding: its kernel's body into u->stmts. */
static int merge_call(fuser* u, const tvm_relax_binding_obj* b) {
  const tvm_relax_call_obj* call = (const void*)tvm_relax_binding_value(b);
  TVMFFIAny gk = tvm_ffi_any_obj(tvm_ffi_seq_obj_at(call->args, 0));
  const tvm_tir_prim_func_obj* kernel = (void*)tvm_ffi_map_get(u->mod->functions, &gk)->v_obj;
  void* afields = ((tvm_relax_tuple_obj*)tvm_ffi_seq_obj_at(call->args, 1))->fields;
  int64_t nin = tvm_ffi_seq_size(afields);
  tvm_tir_buffer_obj* bufs[MAX_BUFS];
  int64_t nout = 0;
  if (nin > MAX_BUFS / 2) {
    u->ok = false;
    return 0;
  }
  for (int64_t i = 0; i < nin; ++i) {
    const TVMFFIAny* e = get(u->env, tvm_ffi_seq_obj_at(afields, i));
    if (!e || !tvm_tir_is(e->v_obj, TVM_TIR_KIND_Buffer)) {
      u->ok = false;
      return 0;
    }
    bufs[i] = (void*)e->v_obj;
  }
  if (call_outputs(u, b, tvm_ffi_seq_obj_at(call->sinfo_args, 0), bufs + nin, &nout) != 0) return -1;
  int rc = 0;
  if (u->ok && nout > 0) {
    if (nout == 1 && tvm_relax_kind_of(tvm_ffi_seq_obj_at(call->sinfo_args, 0)) != TVM_RELAX_KIND_TupleStructInfo) {
      rc = put(u->env, b->var, bufs[nin]);
    } else {
      void* list = tvm_ffi_list_new();
      for (int64_t i = 0; list && i < nout; ++i) {
        TVMFFIAny bv = tvm_ffi_any_obj(bufs[nin + i]);
        if (tvm_ffi_list_push(list, &bv) != 0) rc = -1;
      }
      rc = list && rc == 0 ? put(u->env, b->var, list) : -1;
      tvm_ffi_release(list);
    }
  }
  tvm_tir_prim_func_obj* f = rc == 0 && u->ok ? tvm_relax__prim_func_loops(kernel) : NULL;
  if (rc == 0 && u->ok && !f) rc = -1;
  /* The kernel's shape variables from its buffers, then its body copied. */
  void* kmap = f ? tvm_ffi_dict_new() : NULL;
  if (f && !kmap) rc = -1;
  tvm_tir_buffer_obj* kbufs[MAX_BUFS];
  for (int64_t i = 0; kmap && rc == 0 && u->ok && i < nin + nout; ++i) {
    TVMFFIAny p = tvm_ffi_any_obj(tvm_ffi_seq_obj_at(f->params, i));
    kbufs[i] = (void*)tvm_ffi_map_get(f->buffer_map, &p)->v_obj;
    rc = bind_dims(kmap, kbufs[i], bufs[i], &u->ok);
  }
  for (int64_t i = 0; kmap && rc == 0 && u->ok && i < nin + nout; ++i) {
    rc = check_dims(kmap, kbufs[i], bufs[i], &u->ok);
  }
  if (kmap && rc == 0 && u->ok) {
    tvm_tir_subst s;
    rc = tvm_tir_subst_init(&s, true);
    const TVMFFIAny *kk, *kv;
    for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(kmap, pos, &kk, &kv)) >= 0;) {
      rc = tvm_ffi_dict_set(s.vars, kk, kv);
    }
    for (int64_t i = 0; rc == 0 && i < nin + nout; ++i) rc = tvm_tir_subst_set_buffer(&s, kbufs[i], bufs[i]);
    void* body = rc == 0 ? tvm_tir_subst_apply(&s, f->body) : NULL;
    if (rc == 0 && !body) rc = -1;
    int64_t index = tvm_ffi_seq_size(u->stmts);
    TVMFFIAny sv = tvm_ffi_any_obj(body);
    if (rc == 0) rc = tvm_ffi_list_push(u->stmts, &sv);
    for (int64_t i = 0; rc == 0 && i < nout; ++i) rc = put_int(u->writer, bufs[nin + i], index);
    tvm_ffi_release(body);
    if (rc == 0 || s.vars) tvm_tir_subst_free(&s);
  }
  tvm_ffi_release(kmap);
  tvm_ffi_release(f);
  for (int64_t i = 0; i < nout; ++i) tvm_ffi_release(bufs[nin + i]);
  return rc;
}

/* The group function's bindings, if it is one this pass merges (else NULL, no error). */
static void* group_bindings(const tvm_tir_ir_module_obj* mod, const tvm_relax_function_obj* func) {
  const tvm_relax_seq_expr_obj* seq = (const void*)func->body;
  if (tvm_relax_kind_of(seq) != TVM_RELAX_KIND_SeqExpr || tvm_ffi_seq_size(seq->blocks) != 1) return NULL;
  const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, 0);
  if (tvm_relax_kind_of(blk) != TVM_RELAX_KIND_DataflowBlock) return NULL;
  for (int64_t i = 0; i < tvm_ffi_seq_size(blk->bindings); ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, i);
    if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_VarBinding) return NULL;
    tvm_relax_expr_obj* v = tvm_relax_binding_value(b);
    if (tvm_relax_kind_of(v) == TVM_RELAX_KIND_TupleGetItem) {
      if (!is_var(((tvm_relax_tuple_get_item_obj*)v)->tuple_value)) return NULL;
      continue;
    }
    if (tvm_relax__fusible_call_tir(mod, v) < 0) return NULL;
    void* fields = ((tvm_relax_tuple_obj*)tvm_ffi_seq_obj_at(((tvm_relax_call_obj*)v)->args, 1))->fields;
    for (int64_t j = 0; j < tvm_ffi_seq_size(fields); ++j) {
      if (!is_var(tvm_ffi_seq_obj_at(fields, j))) return NULL;
    }
  }
  return blk->bindings;
}

/* The fused PrimFunc of a group function, or NULL: with an error raised, or none when the
 * function is not one this pass merges. */
static tvm_tir_prim_func_obj* fuse_function(const tvm_tir_ir_module_obj* mod,
                                            const tvm_relax_function_obj* func) {
  void* bindings = group_bindings(mod, func);
  if (!bindings) return NULL;
  tvm_relax_expr_obj* result = ((const tvm_relax_seq_expr_obj*)func->body)->body;
  fuser u = {0};
  u.mod = mod;
  u.ok = true;
  int rc = tvm_relax__kernel_init(&u.k, NULL);
  u.local_params = tvm_ffi_list_new(), u.env = tvm_ffi_dict_new(), u.outputs = tvm_ffi_dict_new();
  u.fields = tvm_ffi_dict_new(), u.locals = tvm_ffi_dict_new(), u.local_order = tvm_ffi_list_new();
  u.stmts = tvm_ffi_list_new(), u.writer = tvm_ffi_dict_new();
  if (rc != 0 || !u.local_params || !u.env || !u.outputs || !u.fields || !u.locals ||
      !u.local_order || !u.stmts || !u.writer) {
    fuser_free(&u);
    return NULL;
  }
  /* Parameters. */
  for (int64_t i = 0; rc == 0 && u.ok && i < tvm_ffi_seq_size(func->params); ++i) {
    tvm_relax_var_obj* p = tvm_ffi_seq_obj_at(func->params, i);
    const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(p);
    if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TensorStructInfo || !tvm_relax_tensor_sinfo_dims(s) ||
        tvm_relax_dtype_is_unknown(((const tvm_relax_tensor_sinfo_obj*)s)->dtype)) {
      u.ok = false;
      break;
    }
    tvm_tir_buffer_obj* b = new_buffer(&u, p->name_hint, s, false);
    rc = b ? put(u.env, p, b) : -1;
    tvm_ffi_release(b);
  }
  /* Results: one buffer each, after the parameters. */
  void* outs[MAX_BUFS];
  int64_t nout = 0;
  if (is_var(result)) {
    outs[nout++] = result;
  } else if (tvm_relax_kind_of(result) == TVM_RELAX_KIND_Tuple &&
             tvm_ffi_seq_size(((tvm_relax_tuple_obj*)result)->fields) <= MAX_BUFS) {
    void* fields = ((tvm_relax_tuple_obj*)result)->fields;
    for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
      outs[nout++] = tvm_ffi_seq_obj_at(fields, i);
      if (!is_var(outs[nout - 1])) u.ok = false;
    }
  } else {
    u.ok = false;
  }
  for (int64_t i = 0; rc == 0 && u.ok && i < nout; ++i) {
    const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(outs[i]);
    if (get(u.env, outs[i]) || get(u.outputs, outs[i]) ||
        tvm_relax_kind_of(s) != TVM_RELAX_KIND_TensorStructInfo) {
      u.ok = false; /* a parameter returned, a result twice, a tuple result */
      break;
    }
    tvm_tir_buffer_obj* b = new_buffer(&u, ((tvm_relax_var_obj*)outs[i])->name_hint, s, false);
    rc = b ? put(u.outputs, outs[i], b) : -1;
    tvm_ffi_release(b);
  }
  /* Tuple fields that are results: the tuple's kernel writes the result buffer directly. */
  for (int64_t i = 0; rc == 0 && u.ok && i < tvm_ffi_seq_size(bindings); ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(bindings, i);
    const tvm_relax_tuple_get_item_obj* t = (const void*)tvm_relax_binding_value(b);
    const TVMFFIAny* o = get(u.outputs, b->var);
    if (tvm_relax_kind_of(t) != TVM_RELAX_KIND_TupleGetItem || !o) continue;
    const TVMFFIAny* list = get(u.fields, t->tuple_value);
    if (!list) {
      void* l = tvm_ffi_list_new();
      rc = l ? put(u.fields, t->tuple_value, l) : -1;
      tvm_ffi_release(l);
      list = rc == 0 ? get(u.fields, t->tuple_value) : NULL;
    }
    while (list && tvm_ffi_seq_size(list->v_obj) <= t->index) {
      TVMFFIAny none = tvm_ffi_any_none();
      if (tvm_ffi_list_push(list->v_obj, &none) != 0) rc = -1;
      if (rc) break;
    }
    if (rc == 0 && list) {
      if (!tvm_ffi_any_is_none(tvm_ffi_seq_at(list->v_obj, t->index))) u.ok = false;
      else rc = tvm_ffi_list_set(list->v_obj, t->index, o);
    }
  }
  /* The bindings, in order. */
  for (int64_t i = 0; rc == 0 && u.ok && i < tvm_ffi_seq_size(bindings); ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(bindings, i);
    tvm_relax_expr_obj* v = tvm_relax_binding_value(b);
    if (tvm_relax_kind_of(v) != TVM_RELAX_KIND_TupleGetItem) {
      rc = merge_call(&u, b);
      continue;
    }
    const tvm_relax_tuple_get_item_obj* t = (const void*)v;
    const TVMFFIAny* tup = get(u.env, t->tuple_value);
    if (!tup || tvm_tir_is(tup->v_obj, TVM_TIR_KIND_Buffer) || t->index >= tvm_ffi_seq_size(tup->v_obj)) {
      u.ok = false;
      break;
    }
    const TVMFFIAny* field = tvm_ffi_seq_at(tup->v_obj, t->index);
    const TVMFFIAny* o = get(u.outputs, b->var);
    if (o && o->v_obj != field->v_obj) u.ok = false;
    rc = put(u.env, b->var, field->v_obj);
  }
  /* Every result must have been written. */
  for (int64_t i = 0; rc == 0 && u.ok && i < nout; ++i) {
    const TVMFFIAny* o = get(u.outputs, outs[i]);
    if (!get(u.writer, o->v_obj)) u.ok = false;
  }
  tvm_tir_prim_func_obj* out = NULL;
  if (rc == 0 && u.ok) rc = tvm_relax__fuse_tir_rewrite(u.stmts, u.writer, u.locals);
  if (rc == 0 && u.ok) {
    /* The body: the statements left, inside the allocations of the intermediates left. */
    int64_t n = tvm_ffi_seq_size(u.stmts), m = 0;
    void** items = tvm_ffi_calloc((size_t)n + 1, sizeof(void*));
    if (!items) rc = -1;
    for (int64_t i = 0; items && i < n; ++i) {
      const TVMFFIAny* s = tvm_ffi_seq_at(u.stmts, i);
      if (!tvm_ffi_any_is_none(s)) items[m++] = tvm_tir_ref(s->v_obj);
    }
    void* body = items ? tvm_tir_seq_takev(m, items) : NULL;
    tvm_ffi_free(items);
    for (int64_t i = tvm_ffi_seq_size(u.local_order) - 1; body && i >= 0; --i) {
      tvm_tir_buffer_obj* lb = tvm_ffi_seq_obj_at(u.local_order, i);
      if (!get(u.locals, lb)) continue; /* inlined */
      int64_t nd = tvm_ffi_seq_size(lb->shape);
      void* ext[16];
      for (int64_t d = 0; d < nd; ++d) ext[d] = tvm_tir_ref(tvm_ffi_seq_obj_at(lb->shape, d));
      body = tvm_tir_allocate_takev(tvm_tir_ref(lb->data), lb->dtype, nd, ext,
                                    tvm_tir_decl_buffer_take(tvm_tir_ref(lb), body));
    }
    out = body ? tvm_relax__kernel_finish(&u.k, body) : NULL;
  }
  fuser_free(&u);
  return out;
}

/* ---- The pass -------------------------------------------------------------------------------- */
typedef struct {
  void* fused;  /* ffi.Dict group GlobalVar -> fused PrimFunc's GlobalVar */
} call_ctx;

/* A call of a merged group function -> call_tir of its PrimFunc. */
static void* rewrite_call(tvm_relax_mutator* m, const void* node) {
  const tvm_relax_call_obj* call = node;
  const TVMFFIAny* gv = tvm_tir_kind_of(call->op) == TVM_TIR_KIND_GlobalVar
                            ? get(((call_ctx*)m->ctx)->fused, call->op)
                            : NULL;
  if (!gv) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  tvm_relax_expr_obj* tuple = tvm_relax_tuple_new(call->args);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(gv->v_obj), tvm_ffi_any_obj(tuple)};
  void* arr = tuple ? tvm_ffi_array_new(args, 2) : NULL;
  tvm_relax_expr_obj* out = tvm_relax__call_sinfo(tvm_relax_op(TVM_RELAX_OP_call_tir), arr,
                                                  tvm_relax_sinfo_of(call), call->expr.span);
  tvm_ffi_release(arr), tvm_ffi_release(tuple);
  return out;
}

/* Fused kernels by structural hash: many groups of a model (every layer's) are the same kernel,
 * which is then compiled once. */
typedef struct {
  void* by_hash; /* ffi.Dict hash -> ffi.List of (GlobalVar, PrimFunc before naming) pairs */
} dedup_ctx;

/* The GlobalVar of the kernel equal to pf made earlier, else pf added to funcs under a new
 * GlobalVar `name`. New reference or NULL + error. */
static tvm_tir_global_var_obj* dedup(dedup_ctx* d, tvm_tir_prim_func_obj* pf, const char* name,
                                     void* funcs) {
  TVMFFIAny fv = tvm_ffi_any_obj(pf);
  uint64_t h;
  if (tvm_ffi_structural_hash_checked(&fv, false, &h) != 0) return NULL;
  TVMFFIAny hk = tvm_ffi_any_int((int64_t)h);
  const TVMFFIAny* same = tvm_ffi_map_get(d->by_hash, &hk);
  for (int64_t i = 0; same && i + 1 < tvm_ffi_seq_size(same->v_obj); i += 2) {
    if (tvm_ffi_structural_equal(&fv, tvm_ffi_seq_at(same->v_obj, i + 1), false, NULL, NULL) == 1) {
      void* gv = tvm_ffi_seq_obj_at(same->v_obj, i);
      tvm_ffi_retain(gv);
      return gv;
    }
  }
  /* Private (no global_symbol), as LegalizeOps' kernels. */
  tvm_tir_global_var_obj* gv = tvm_relax__prim_func_global_var(name, pf);
  int rc = gv ? put(funcs, gv, pf) : -1;
  if (rc == 0 && !same) {
    void* list = tvm_ffi_list_new();
    TVMFFIAny lv = tvm_ffi_any_obj(list);
    rc = list ? tvm_ffi_dict_set(d->by_hash, &hk, &lv) : -1;
    tvm_ffi_release(list);
    same = rc == 0 ? tvm_ffi_map_get(d->by_hash, &hk) : NULL;
  }
  TVMFFIAny gvv = tvm_ffi_any_obj(gv);
  if (rc == 0) rc = tvm_ffi_list_push(same->v_obj, &gvv) == 0 && tvm_ffi_list_push(same->v_obj, &fv) == 0 ? 0 : -1;
  if (rc != 0) {
    tvm_ffi_release(gv);
    return NULL;
  }
  return gv;
}

/* Collect the GlobalVars a PrimFunc body calls. */
static int tir_gv(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_call_obj* c = node;
  if (tvm_tir_kind_of(c->op) == TVM_TIR_KIND_GlobalVar && put_int(v->ctx, c->op, 1) != 0) return -1;
  return TVM_TIR_VISIT_CONTINUE;
}

static tvm_tir_ir_module_obj* run_fuse_tir(const tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "FuseTIR: an IRModule is required");
    return NULL;
  }
  void* funcs = tvm_ffi_dict_new();    /* the new module */
  void* fused = tvm_ffi_dict_new();    /* group GlobalVar -> PrimFunc GlobalVar */
  void* kernels = tvm_ffi_dict_new();  /* kernels the merged groups called */
  call_ctx cc = {fused};
  dedup_ctx dd = {tvm_ffi_dict_new()};
  int rc = funcs && fused && kernels && dd.by_hash ? 0 : -1;
  const TVMFFIAny *k, *v;
  /* 1. Each group function merged. */
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (!tvm_relax__is_primitive(v->v_obj)) continue;
    const char* name = tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    tvm_tir_prim_func_obj* pf = fuse_function(mod, (void*)v->v_obj);
    if (!pf) {
      if (!tvm_ffi_error_pending()) continue; /* left as a Relax function */
      tvm_ffi_raise_context("FuseTIR: function %s", name);
      rc = -1;
      break;
    }
    tvm_tir_global_var_obj* ngv = dedup(&dd, pf, name, funcs);
    rc = ngv && put(fused, k->v_obj, ngv) == 0 ? 0 : -1;
    tvm_ffi_release(ngv);
    tvm_ffi_release(pf);
    void* gvs = rc == 0 ? tvm_relax_all_global_vars(v->v_obj) : NULL;
    if (rc == 0 && !gvs) rc = -1;
    for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(gvs); ++i) {
      rc = put_int(kernels, tvm_ffi_seq_obj_at(gvs, i), 1);
    }
    tvm_ffi_release(gvs);
  }
  bool changed = rc == 0 && tvm_ffi_map_size(fused) > 0;
  /* 2. The other functions, calls rewritten. */
  for (int64_t pos = 0; rc == 0 && changed && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (get(fused, k->v_obj)) continue;
    if (tvm_relax_kind_of(v->v_obj) != TVM_RELAX_KIND_Function) {
      rc = tvm_ffi_dict_set(funcs, k, v);
      continue;
    }
    tvm_relax_mutator m = {0};
    m.post[TVM_RELAX_KIND_Call] = rewrite_call;
    m.ctx = &cc;
    tvm_relax_function_obj* nf = tvm_relax_mutate(&m, v->v_obj);
    tvm_relax_mutator_free(&m);
    TVMFFIAny nv = tvm_ffi_any_obj(nf);
    rc = nf ? tvm_ffi_dict_set(funcs, k, &nv) : -1;
    if (!nf) {
      tvm_ffi_raise_context("FuseTIR: function %s",
                            tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint));
    }
    tvm_ffi_release(nf);
  }
  /* 3. Kernels only the merged groups called are dropped. */
  void* used = changed && rc == 0 ? tvm_ffi_dict_new() : NULL;
  if (changed && rc == 0 && !used) rc = -1;
  for (int64_t pos = 0; used && rc == 0 && (pos = tvm_ffi_map_next(funcs, pos, &k, &v)) >= 0;) {
    if (tvm_relax_kind_of(v->v_obj) == TVM_RELAX_KIND_Function) {
      void* gvs = tvm_relax_all_global_vars(v->v_obj);
      if (!gvs) rc = -1;
      for (int64_t i = 0; gvs && rc == 0 && i < tvm_ffi_seq_size(gvs); ++i) {
        rc = put_int(used, tvm_ffi_seq_obj_at(gvs, i), 1);
      }
      tvm_ffi_release(gvs);
    } else if (tvm_tir_is(v->v_obj, TVM_TIR_KIND_PrimFunc)) {
      tvm_tir_visitor tv = {0};
      tv.pre[TVM_TIR_KIND_Call] = tir_gv;
      tv.ctx = used;
      rc = tvm_tir_visit(&tv, ((tvm_tir_prim_func_obj*)v->v_obj)->body);
      tvm_tir_visitor_free(&tv);
    }
  }
  tvm_tir_ir_module_obj* out = NULL;
  if (rc == 0 && !changed) {
    tvm_ffi_retain((void*)mod);
    out = (tvm_tir_ir_module_obj*)mod;
  } else if (rc == 0) {
    void* keep = tvm_ffi_dict_new();
    for (int64_t pos = 0; keep && rc == 0 && (pos = tvm_ffi_map_next(funcs, pos, &k, &v)) >= 0;) {
      if (get(kernels, k->v_obj) && !get(used, k->v_obj)) continue;
      rc = tvm_ffi_dict_set(keep, k, v);
    }
    void* map = keep && rc == 0 ? tvm_ffi_dict_to_map(keep) : NULL;
    out = map ? tvm_tir_ir_module_new(map, mod->attrs) : NULL;
    tvm_ffi_release(map);
    tvm_ffi_release(keep);
  }
  tvm_ffi_release(used);
  tvm_ffi_release(funcs);
  tvm_ffi_release(fused);
  tvm_ffi_release(kernels);
  tvm_ffi_release(dd.by_hash);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_fuse_tir(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_fuse_tir, mod);
}

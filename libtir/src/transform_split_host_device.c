/*
 * transform_split_host_device.c: pass split_host_device (tvm/tir/transform.h).
 *
 * Each kernel of a PrimFunc, an outermost thread launch (a "thread_extent" / "virtual_thread"
 * AttrStmt with a tagged IterVar; run lower_thread_bindings first) and everything under it,
 * becomes a device PrimFunc of the module, and the host function calls it in its place:
 *
 *   host:   ... T.evaluate(<kernel GlobalVar>(p0, p1, ...)) ...
 *   kernel: params p0, p1, ... (the Vars the region uses and does not bind: buffer data
 *           pointers first, then the scalars, each in order of first use), body = the region
 *           under a DeclBuffer of every buffer it uses that was declared outside it; attrs
 *           global_symbol "<host symbol>_kernel" ("_kernel_1", ... for later ones),
 *           calling_conv 2 (a device kernel launch), tir.is_global_func, tir.noalias,
 *           tir.kernel_launch_params: the tags it launches (blockIdx.x ... threadIdx.z, in
 *           that order) and "tir.use_dyn_shared_memory" when it has "shared.dyn" memory.
 *
 * The kernel's parameters are the host's own Vars, so the launch extents (the values of its
 * thread_extent AttrStmts) are expressions the host can evaluate; one that uses a variable
 * bound inside the kernel is a ValueError. Allocations of scope "shared.dyn" (extents that
 * the host can evaluate, too) are laid out one after another in the kernel's dynamic shared
 * memory, each at a 16-byte aligned offset: the Allocate gets the annotation
 * "tir.dyn_shared_offset" (bytes) and the kernel the attribute "tir.dyn_shared_bytes" (the
 * total, int64). First, an Allocate of a non-global scope in host code whose buffer only one
 * kernel uses (upstream's cross-thread reductions allocate their "local" result at the root)
 * moves, with its DeclBuffers, to the top of that kernel's outermost launch. Host code outside
 * the kernels may not touch buffer memory (a BufferLoad, BufferStore or Allocate there is a
 * ValueError: it would run on the host over device memory). A function without thread launches, and a device kernel (calling_conv 2), is left
 * as it is.
 *
 * The interpreter runs the result: the host's call of the kernel GlobalVar runs the kernel's
 * body, the same statements as before.
 */
#include <stdio.h>

#include "transform_internal.h"

static const char kPass[] = "split_host_device";

enum { TIR_CALLING_CONV_DEVICE_KERNEL_LAUNCH = 2 };

/* Identity sets and ordered lists of objects (an ffi.Dict keyed by the object itself). */
typedef struct {
  void* seen; /* Dict object -> None */
  void** items;
  int64_t n, cap;
} obj_list;

static int list_add(obj_list* l, const void* obj) {
  if (!l->seen && !(l->seen = tvm_ffi_dict_new())) return -1;
  TVMFFIAny key = tvm_ffi_any_obj(obj), none = tvm_ffi_any_none();
  if (tvm_ffi_map_get(l->seen, &key)) return 0;
  if (tvm_ffi_dict_set(l->seen, &key, &none) != 0) return -1;
  if (l->n == l->cap) {
    int64_t cap = l->cap ? 2 * l->cap : 16;
    void** p = tvm_ffi_realloc(l->items, (size_t)cap * sizeof(void*));
    if (!p) return -1;
    l->items = p;
    l->cap = cap;
  }
  l->items[l->n++] = (void*)obj;
  return 0;
}

/* Append without the identity check (a list of owned references). */
static int list_push(obj_list* l, void* obj) {
  if (l->n == l->cap) {
    int64_t cap = l->cap ? 2 * l->cap : 16;
    void** p = tvm_ffi_realloc(l->items, (size_t)cap * sizeof(void*));
    if (!p) return -1;
    l->items = p;
    l->cap = cap;
  }
  l->items[l->n++] = obj;
  return 0;
}

static bool list_has(const obj_list* l, const void* obj) {
  if (!l->seen) return false;
  TVMFFIAny key = tvm_ffi_any_obj(obj);
  return tvm_ffi_map_get(l->seen, &key) != NULL;
}

static void list_free(obj_list* l) {
  tvm_ffi_release(l->seen);
  tvm_ffi_free(l->items);
  memset(l, 0, sizeof(*l));
}

/* ---- What a kernel region uses -------------------------------------------------------------- */
typedef struct {
  obj_list defs;     /* Vars bound inside the region */
  obj_list uses;     /* Vars used (in first-use order) */
  obj_list decls;    /* Buffers declared inside the region */
  obj_list buffers;  /* Buffers accessed or declared (first-use order) */
  obj_list launches; /* launch statements */
  bool dyn_shared;
} region_info;

static void region_free(region_info* r) {
  list_free(&r->defs);
  list_free(&r->uses);
  list_free(&r->decls);
  list_free(&r->buffers);
  list_free(&r->launches);
}

static int scan_pre(tvm_tir_visitor* v, const void* node) {
  region_info* r = v->ctx;
  int rc = 0;
  const tvm_tir_var_obj* lv = NULL;
  switch (tvm_tir_kind_of(node)) {
    case TVM_TIR_KIND_Var:
    case TVM_TIR_KIND_SizeVar:
      if (!list_has(&r->defs, node)) rc = list_add(&r->uses, node);
      return rc ? -1 : TVM_TIR_VISIT_SKIP;
    case TVM_TIR_KIND_CommReducer:
      /* self-contained: its lhs/rhs Vars are bound in its result (a reduce_scope attribute
       * left after lower_thread_allreduce holds one), never kernel parameters */
      return TVM_TIR_VISIT_SKIP;
    case TVM_TIR_KIND_LetStmt: rc = list_add(&r->defs, ((const tvm_tir_let_stmt_obj*)node)->var); break;
    case TVM_TIR_KIND_Let: rc = list_add(&r->defs, ((const tvm_tir_let_obj*)node)->var); break;
    case TVM_TIR_KIND_For:
      rc = list_add(&r->defs, ((const tvm_tir_for_obj*)node)->loop_var);
      break;
    case TVM_TIR_KIND_Allocate: {
      const tvm_tir_var_obj* d = ((const tvm_tir_allocate_obj*)node)->buffer_var;
      rc = list_add(&r->defs, d);
      const char* scope = tvm_tir_pointer_type_scope(d->type_annotation);
      if (scope && strcmp(scope, "shared.dyn") == 0) r->dyn_shared = true;
      break;
    }
    case TVM_TIR_KIND_DeclBuffer: {
      const void* b = ((const tvm_tir_decl_buffer_obj*)node)->buffer;
      rc = list_add(&r->decls, b);
      if (rc == 0) rc = list_add(&r->buffers, b);
      break;
    }
    case TVM_TIR_KIND_AttrStmt:
      if (tvm_tir__launch_tag(node, &lv)) {
        if (lv) rc = list_add(&r->defs, lv);
        if (rc == 0) rc = list_add(&r->launches, node);
      }
      break;
    case TVM_TIR_KIND_BufferLoad:
      rc = list_add(&r->buffers, ((const tvm_tir_buffer_load_obj*)node)->buffer);
      break;
    case TVM_TIR_KIND_BufferStore:
      rc = list_add(&r->buffers, ((const tvm_tir_buffer_store_obj*)node)->buffer);
      break;
    case TVM_TIR_KIND_SBlock:
    case TVM_TIR_KIND_SBlockRealize:
    case TVM_TIR_KIND_BufferRealize:
      tvm_tir__xform_error("ValueError", kPass, node, "a %s in a kernel (run tvm_tir_lower first)",
                           tvm_tir_kind_name(tvm_tir_kind_of(node)));
      return -1;
    default: break;
  }
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_For &&
      ((const tvm_tir_for_obj*)node)->kind == TVM_TIR_FOR_THREAD_BINDING) {
    tvm_tir__xform_error("ValueError", kPass, node,
                         "a thread-bound loop (run lower_thread_bindings first)");
    return -1;
  }
  return rc ? -1 : TVM_TIR_VISIT_CONTINUE;
}

/* A Var of e that the region binds (NULL: none). */
static int find_def(tvm_tir_visitor* v, const void* node) {
  const void** ctx = v->ctx; /* [0] = region_info*, [1] = found */
  if (tvm_tir_is_var(node) || tvm_tir_kind_of(node) == TVM_TIR_KIND_SizeVar) {
    if (!ctx[1] && list_has(&((const region_info*)ctx[0])->defs, node)) ctx[1] = node;
    return TVM_TIR_VISIT_SKIP;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

static const void* bound_inside(const region_info* r, const void* e) {
  const void* ctx[2] = {r, NULL};
  tvm_tir_visitor v = {0};
  v.pre_default = find_def;
  v.ctx = ctx;
  tvm_tir_visit(&v, e);
  tvm_tir_visitor_free(&v);
  return ctx[1];
}

/* ---- Dynamic shared memory layout --------------------------------------------------------- */
typedef struct {
  tvm_tir_mutator m;
  const region_info* r;
  tvm_tir_expr_obj* total; /* int64 bytes so far */
} dyn_ctx;

/* (pre-order: allocations are laid out in the order they are written, outer first) */
static void* layout_dyn(tvm_tir_mutator* m, const void* node) {
  dyn_ctx* c = (dyn_ctx*)m;
  const tvm_tir_allocate_obj* a = node;
  const char* scope = tvm_tir_pointer_type_scope(a->buffer_var->type_annotation);
  if (!scope || strcmp(scope, "shared.dyn") != 0) return tvm_tir_mutate_children(m, node);
  tvm_tir_expr_obj* bytes = tvm_tir_const(TVM_TIR_INT64, (a->dtype.bits * a->dtype.lanes + 7) / 8);
  for (int64_t k = 0; bytes && k < tvm_tir_array_size(a->extents); ++k) {
    const void* e = tvm_tir_array_at(a->extents, k);
    const void* v = bound_inside(c->r, e);
    if (v) {
      tvm_ffi_release(bytes);
      return tvm_tir__xform_error("ValueError", kPass, a->buffer_var,
                                  "the size of this shared.dyn allocation depends on %s, which "
                                  "the kernel binds (the host must compute it to launch)",
                                  tvm_tir_var_name(v));
    }
    bytes = tvm_tir_mul_take(bytes, tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_ref((void*)e)));
  }
  /* offset = total; total += (bytes + 15) // 16 * 16 */
  tvm_tir_expr_obj* offset = tvm_tir_ref(c->total);
  tvm_tir_expr_obj* rounded = tvm_tir_mul_take(
      tvm_tir_floordiv_take(tvm_tir_add_take(bytes, tvm_tir_const(TVM_TIR_INT64, 15)),
                            tvm_tir_const(TVM_TIR_INT64, 16)),
      tvm_tir_const(TVM_TIR_INT64, 16));
  tvm_tir_expr_obj* total = tvm_tir_add_take(tvm_tir_ref(c->total), rounded);
  void* ann = NULL;
  void* r = NULL;
  if (offset && total) {
    TVMFFIAny k = tvm_ffi_string("tir.dyn_shared_offset"), v = tvm_ffi_any_obj(offset);
    ann = tvm_ffi_map_new(&k, &v, 1);
    tvm_ffi_any_release(&k);
  }
  void* body = NULL;
  if (ann) {
    tvm_ffi_release(c->total);
    c->total = total;
    total = NULL;
    body = tvm_tir_mutate(m, a->body);
  }
  if (body) r = tvm_tir_allocate_new(a->buffer_var, a->dtype, a->extents, a->condition, body, ann);
  tvm_ffi_release(body);
  tvm_ffi_release(ann);
  tvm_ffi_release(offset);
  tvm_ffi_release(total);
  return r;
}

/* ---- Outlining -------------------------------------------------------------------------------- */
typedef struct {
  tvm_tir_mutator m;
  const tvm_tir_prim_func_obj* func; /* the host function being split */
  const char* host_name;
  const tvm_tir_ir_module_obj* mod; /* the names already taken (NULL: none) */
  obj_list kernels;                 /* PrimFuncs made (owned references) */
  obj_list kernel_vars;             /* their GlobalVars (owned references) */
} split_ctx;

static bool name_taken(const split_ctx* c, const char* name) {
  if (c->mod) {
    void* gv = tvm_tir_ir_module_get_global_var(c->mod, name);
    tvm_ffi_release(gv);
    if (gv) return true;
  }
  for (int64_t k = 0; k < c->kernel_vars.n; ++k) {
    const tvm_tir_global_var_obj* gv = c->kernel_vars.items[k];
    if (strcmp(tvm_ffi_str_cstr(gv->name_hint), name) == 0) return true;
  }
  return false;
}

static void* make_attrs(const char* name, const region_info* r, tvm_tir_expr_obj* dyn_bytes) {
  bool axes[6] = {false};
  for (int64_t k = 0; k < r->launches.n; ++k) {
    int axis = tvm_tir__thread_tag_axis(tvm_tir__launch_tag(r->launches.items[k], NULL));
    if (axis >= 0 && axis < 6) axes[axis] = true;
  }
  TVMFFIAny tags[8];
  int nt = 0;
  for (int a = 0; a < 6; ++a)
    if (axes[a]) tags[nt++] = tvm_ffi_string(tvm_tir__thread_tag_name(a));
  if (dyn_bytes) tags[nt++] = tvm_ffi_string("tir.use_dyn_shared_memory");
  void* params = tvm_ffi_array_new(tags, nt);
  for (int k = 0; k < nt; ++k) tvm_ffi_any_release(&tags[k]);
  if (!params) return NULL;
  TVMFFIAny keys[6] = {tvm_ffi_string("global_symbol"), tvm_ffi_string("calling_conv"),
                       tvm_ffi_string("tir.is_global_func"), tvm_ffi_string("tir.noalias"),
                       tvm_ffi_string("tir.kernel_launch_params"),
                       tvm_ffi_string("tir.dyn_shared_bytes")};
  TVMFFIAny vals[6] = {tvm_ffi_string(name), tvm_ffi_any_int(TIR_CALLING_CONV_DEVICE_KERNEL_LAUNCH),
                       tvm_ffi_any_bool(true), tvm_ffi_any_bool(true), tvm_ffi_any_obj(params),
                       dyn_bytes ? tvm_ffi_any_obj(dyn_bytes) : tvm_ffi_any_none()};
  void* attrs = tvm_ffi_map_new(keys, vals, dyn_bytes ? 6 : 5);
  for (int k = 0; k < 6; ++k) tvm_ffi_any_release(&keys[k]);
  tvm_ffi_any_release(&vals[0]);
  tvm_ffi_release(params);
  return attrs;
}

/* The kernel of region `launch` added to c; returns the host's call of it. */
static void* outline(split_ctx* c, const void* launch) {
  region_info r = {0};
  tvm_tir_visitor v = {0};
  v.pre_default = scan_pre;
  v.ctx = &r;
  int rc = tvm_tir_visit(&v, launch);
  tvm_tir_visitor_free(&v);
  void *body = NULL, *params = NULL, *attrs = NULL, *func = NULL, *gv = NULL, *call = NULL;
  tvm_tir_expr_obj* dyn_bytes = NULL;
  char name[512];
  if (rc != 0) goto done;
  /* Launch extents: computed by the host. */
  for (int64_t k = 0; k < r.launches.n; ++k) {
    const tvm_tir_attr_stmt_obj* a = r.launches.items[k];
    const void* bad = bound_inside(&r, a->value);
    if (bad) {
      tvm_tir__xform_error("ValueError", kPass, a->value,
                           "the extent of the %s launch depends on %s, which the kernel binds "
                           "(the host must compute every launch extent)",
                           tvm_tir__launch_tag(a, NULL), tvm_tir_var_name(bad));
      goto done;
    }
  }
  /* Parameters: handles first, then scalars; among each, the host function's own parameters
   * (a buffer parameter by its data pointer) in its order, then the rest in first-use order. */
  {
    void** ps = tvm_ffi_calloc((size_t)r.uses.n + 1, sizeof(void*));
    int64_t* rank = tvm_ffi_calloc((size_t)r.uses.n + 1, sizeof(int64_t));
    if (!ps || !rank) {
      tvm_ffi_free(ps);
      tvm_ffi_free(rank);
      goto done;
    }
    int64_t np = 0, nfp = c->func ? tvm_tir_array_size(c->func->params) : 0;
    for (int64_t k = 0; k < r.uses.n; ++k) {
      rank[k] = nfp + k;
      for (int64_t i = 0; i < nfp; ++i) {
        const void* p = tvm_tir_array_at(c->func->params, i);
        TVMFFIAny key = tvm_ffi_any_obj(p);
        const TVMFFIAny* b = tvm_ffi_map_get(c->func->buffer_map, &key);
        if (p == r.uses.items[k] || (b && ((const tvm_tir_buffer_obj*)b->v_obj)->data == r.uses.items[k]))
          rank[k] = i;
      }
    }
    for (int pass = 0; pass < 2; ++pass) {
      int64_t first = np;
      for (int64_t k = 0; k < r.uses.n; ++k) {
        const tvm_tir_var_obj* u = r.uses.items[k];
        if (tvm_tir_dtype_is_handle(u->expr.dtype) != (pass == 0)) continue;
        /* insertion by rank (a handful of parameters) */
        int64_t at = np++;
        while (at > first && rank[(int64_t)(intptr_t)ps[at - 1] - 1] > rank[k]) {
          ps[at] = ps[at - 1];
          at--;
        }
        ps[at] = (void*)(intptr_t)(k + 1);
      }
    }
    for (int64_t k = 0; k < np; ++k) ps[k] = r.uses.items[(int64_t)(intptr_t)ps[k] - 1];
    tvm_ffi_free(rank);
    params = tvm_ffi_array_of_objects(ps, np);
    tvm_ffi_free(ps);
    if (!params) goto done;
  }
  /* Body: the region under DeclBuffers of the outside buffers it uses. */
  body = tvm_tir_ref((void*)launch);
  if (r.dyn_shared) {
    dyn_ctx d = {{{0}}, &r, tvm_tir_const(TVM_TIR_INT64, 0)};
    d.m.pre[TVM_TIR_KIND_Allocate] = layout_dyn;
    void* nb = d.total ? tvm_tir_mutate(&d.m, body) : NULL;
    tvm_ffi_release(body);
    body = nb;
    dyn_bytes = d.total;
    if (!body) goto done;
  }
  for (int64_t k = r.buffers.n - 1; k >= 0 && body; --k) {
    if (list_has(&r.decls, r.buffers.items[k])) continue;
    body = tvm_tir_decl_buffer_take(tvm_tir_ref(r.buffers.items[k]), body);
  }
  if (!body) goto done;
  for (int i = 0;; ++i) {
    if (i == 0)
      snprintf(name, sizeof(name), "%s_kernel", c->host_name);
    else
      snprintf(name, sizeof(name), "%s_kernel_%d", c->host_name, i);
    if (!name_taken(c, name)) break;
  }
  attrs = make_attrs(name, &r, dyn_bytes);
  func = attrs ? tvm_tir_prim_func_new(params, body, NULL, NULL, attrs) : NULL;
  gv = func ? tvm_tir_global_var_new(name) : NULL;
  if (!gv || list_add(&c->kernels, func) != 0 || list_add(&c->kernel_vars, gv) != 0) goto done;
  func = gv = NULL; /* owned by the lists now */
  {
    int64_t n = tvm_ffi_seq_size(params);
    void** args = tvm_ffi_calloc((size_t)n + 1, sizeof(void*));
    if (!args) goto done;
    for (int64_t k = 0; k < n; ++k) args[k] = tvm_tir_ref(tvm_ffi_seq_obj_at(params, k));
    tvm_tir_expr_obj* e = tvm_tir_call_global_takev(
        tvm_tir_dtype_void(), tvm_tir_ref(c->kernel_vars.items[c->kernel_vars.n - 1]), n, args);
    tvm_ffi_free(args);
    call = e ? tvm_tir_evaluate_take(e) : NULL;
  }
done:
  tvm_ffi_release(func);
  tvm_ffi_release(gv);
  tvm_ffi_release(attrs);
  tvm_ffi_release(body);
  tvm_ffi_release(params);
  tvm_ffi_release(dyn_bytes);
  region_free(&r);
  return call;
}

static void* split_launch(tvm_tir_mutator* m, const void* node) {
  const char* tag = tvm_tir__launch_tag(node, NULL);
  if (!tag) return tvm_tir_mutate_children(m, node); /* another attribute, a plain loop */
  if (tvm_tir__thread_tag_axis(tag) == TVM_TIR_THREAD_TAG_NONE) {
    return tvm_tir__xform_error("ValueError", kPass, node,
                                "a thread launch without a known thread tag (\"%s\")", tag);
  }
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_For) {
    return tvm_tir__xform_error("ValueError", kPass, node,
                                "a thread-bound loop (run lower_thread_bindings first)");
  }
  return outline((split_ctx*)m, node);
}

static void* host_memory(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const void* what = node;
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_Allocate) {
    const tvm_tir_var_obj* v = ((const tvm_tir_allocate_obj*)node)->buffer_var;
    const char* scope = tvm_tir_pointer_type_scope(v->type_annotation);
    what = v;
    if (scope && scope[0] && strcmp(scope, "global") != 0) {
      /* not moved into a kernel: several kernels, or host code, use it */
      return tvm_tir__xform_error(
          "ValueError", kPass, what,
          "a \"%s\" allocation in host code used by more than one kernel (or outside them): "
          "\"%s\" memory lives inside one kernel launch and cannot carry values from one kernel "
          "to the next (a blockIdx launch around these thread launches makes them one kernel)",
          scope, scope);
    }
    return tvm_tir__xform_error(
        "NotImplementedError", kPass, what,
        "host code (outside every thread launch) allocates global memory: device memory "
        "allocated by the host function (upstream's device workspace) is not supported; pass "
        "the buffer as a parameter, or allocate it inside the thread launch");
  }
  return tvm_tir__xform_error(
      "ValueError", kPass, what,
      "host code (outside every thread launch) %s memory; a kernel's buffers live on the device, "
      "so every access must be inside a thread launch (T.thread_binding / T.launch_thread)",
      tvm_tir_kind_of(node) == TVM_TIR_KIND_Allocate ? "allocates" : "accesses buffer");
}

/* ---- Host allocations used by one kernel move into it -------------------------------------- */
/* An Allocate in host code of a non-global scope (upstream's cross-thread reductions allocate
 * their "local" result buffer at the function's root) whose buffer only one kernel uses moves,
 * with the DeclBuffers of it directly under it, to the top of that kernel's outermost launch:
 * where a GPU can hold it. Anything else stays (and is the error below). */
typedef struct {
  tvm_tir_mutator m;
  const tvm_tir_var_obj* var;
  int users;          /* kernels using var */
  bool host_use;      /* var used outside kernels */
  const void* wrap;   /* the Allocate (and DeclBuffers) to rebuild inside the kernel */
} sink_ctx;

static int var_fn(const void* obj, void* ctx) { return obj == ctx ? 1 : 0; }

static bool mentions(const void* s, const void* var) {
  return s && tvm_tir__walk(s, false, var_fn, (void*)var) == 1;
}

static void* sink_launch(tvm_tir_mutator* m, const void* node) {
  sink_ctx* c = (sink_ctx*)m;
  if (!tvm_tir__launch_tag(node, NULL)) return tvm_tir_mutate_children(m, node);
  if (!mentions(node, c->var)) return tvm_tir_ref((void*)node);
  if (tvm_tir_kind_of(node) != TVM_TIR_KIND_AttrStmt) c->users += 100; /* a loop: not moved */
  if (++c->users > 1) return tvm_tir_ref((void*)node);
  const tvm_tir_attr_stmt_obj* a = node;
  /* rebuild the Allocate / DeclBuffer chain around the launch's body */
  const void* chain[8];
  int n = 0;
  for (const void* w = c->wrap; n < 8; ++n) {
    chain[n] = w;
    if (tvm_tir_kind_of(w) == TVM_TIR_KIND_Allocate) {
      const void* b = ((const tvm_tir_allocate_obj*)w)->body;
      if (tvm_tir_kind_of(b) != TVM_TIR_KIND_DeclBuffer ||
          ((const tvm_tir_decl_buffer_obj*)b)->buffer->data != c->var)
        break;
      w = b;
    } else {
      const void* b = ((const tvm_tir_decl_buffer_obj*)w)->body;
      if (tvm_tir_kind_of(b) != TVM_TIR_KIND_DeclBuffer ||
          ((const tvm_tir_decl_buffer_obj*)b)->buffer->data != c->var)
        break;
      w = b;
    }
  }
  void* body = tvm_tir_ref(a->body);
  for (int k = n < 8 ? n : 7; k >= 0 && body; --k) {
    if (tvm_tir_kind_of(chain[k]) == TVM_TIR_KIND_Allocate) {
      const tvm_tir_allocate_obj* al = chain[k];
      void* nb = tvm_tir_allocate_new(al->buffer_var, al->dtype, al->extents, al->condition,
                                      body, al->annotations);
      tvm_ffi_release(body);
      body = nb;
    } else {
      body = tvm_tir_decl_buffer_take(tvm_tir_ref(((const tvm_tir_decl_buffer_obj*)chain[k])->buffer), body);
    }
  }
  if (!body) return NULL;
  const void* nd = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
  return tvm_tir_attr_take(nd ? tvm_tir_ref((void*)nd) : NULL, tvm_ffi_str_cstr(a->attr_key),
                           tvm_tir_ref(a->value), body);
}

static void* flag_var(tvm_tir_mutator* m, const void* node) {
  sink_ctx* c = (sink_ctx*)m;
  if (node == (const void*)c->var) c->host_use = true;
  return tvm_tir_ref((void*)node);
}

/* Kernels are not entered: only host-level allocations move. */
static void* skip_launch(tvm_tir_mutator* m, const void* node) {
  if (tvm_tir__launch_tag(node, NULL)) return tvm_tir_ref((void*)node);
  return tvm_tir_mutate_children(m, node);
}

static void* sink_alloc(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_allocate_obj* a = node;
  const char* scope = tvm_tir_pointer_type_scope(a->buffer_var->type_annotation);
  void* r = tvm_tir_mutate_children(m, node); /* inner host allocations first */
  if (!r || !scope || !scope[0] || strcmp(scope, "global") == 0) return r;
  const tvm_tir_allocate_obj* ra = r;
  /* the statement under the Allocate and its DeclBuffers of the same buffer */
  const void* inner = ra->body;
  while (tvm_tir_kind_of(inner) == TVM_TIR_KIND_DeclBuffer &&
         ((const tvm_tir_decl_buffer_obj*)inner)->buffer->data == ra->buffer_var)
    inner = ((const tvm_tir_decl_buffer_obj*)inner)->body;
  sink_ctx c = {.var = ra->buffer_var, .wrap = ra};
  c.m.pre[TVM_TIR_KIND_AttrStmt] = sink_launch;
  c.m.pre[TVM_TIR_KIND_For] = sink_launch;
  void* moved = tvm_tir_mutate(&c.m, inner);
  if (!moved) {
    tvm_ffi_release(r);
    return NULL;
  }
  if (c.users != 1) { /* unused by kernels, or shared by several: leave it */
    tvm_ffi_release(moved);
    return r;
  }
  /* a host use (outside every launch) keeps it where it was (and is the error below) */
  sink_ctx h = {.var = ra->buffer_var};
  h.m.pre[TVM_TIR_KIND_AttrStmt] = skip_launch;
  h.m.pre[TVM_TIR_KIND_For] = skip_launch;
  h.m.pre[TVM_TIR_KIND_Var] = flag_var;
  void* same = tvm_tir_mutate(&h.m, inner);
  tvm_ffi_release(same);
  if (!same || h.host_use) {
    tvm_ffi_release(moved);
    return same ? r : (tvm_ffi_release(r), NULL);
  }
  tvm_ffi_release(r);
  return moved;
}

static _Thread_local split_ctx* t_split;

static void* run(const tvm_tir_prim_func_obj* f) {
  const TVMFFIAny* cc = tvm_ffi_map_get_str(f->func.attrs, "calling_conv");
  if (cc && cc->type_index == kTVMFFIInt && cc->v_int64 == TIR_CALLING_CONV_DEVICE_KERNEL_LAUNCH)
    return tvm_tir_ref((void*)f);
  split_ctx* c = t_split;
  c->func = f;
  c->m.pre[TVM_TIR_KIND_AttrStmt] = split_launch;
  c->m.pre[TVM_TIR_KIND_For] = split_launch;
  int64_t before = c->kernels.n;
  tvm_tir_mutator sink = {0};
  sink.pre[TVM_TIR_KIND_Allocate] = sink_alloc;
  sink.pre[TVM_TIR_KIND_AttrStmt] = skip_launch;
  sink.pre[TVM_TIR_KIND_For] = skip_launch;
  tvm_tir_stmt_obj* sunk = tvm_tir_mutate(&sink, f->body);
  if (!sunk) return NULL;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&c->m, sunk);
  tvm_ffi_release(sunk);
  if (!body) return NULL;
  if (c->kernels.n > before) { /* the host part: no memory of its own */
    tvm_tir_mutator h = {0};
    h.pre[TVM_TIR_KIND_BufferLoad] = host_memory;
    h.pre[TVM_TIR_KIND_BufferStore] = host_memory;
    h.pre[TVM_TIR_KIND_Allocate] = host_memory;
    void* same = tvm_tir_mutate(&h, body);
    if (!same) {
      tvm_ffi_release(body);
      return NULL;
    }
    tvm_ffi_release(same);
  }
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

static const char* func_name(const void* gv, const tvm_tir_prim_func_obj* f) {
  const char* sym = tvm_tir_func_global_symbol(f);
  if (sym) return sym;
  return gv ? tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)gv)->name_hint) : "main";
}

void* tvm_tir_transform_split_host_device(const void* mod_or_func) {
  tvm_tir__ensure_init();
  bool is_func = TIR_IS(mod_or_func, PrimFunc);
  if (!is_func && !TIR_IS(mod_or_func, IRModule)) {
    tvm_ffi_raise("TypeError", "%s: expected a tir.PrimFunc or an ir.IRModule, got %s", kPass,
                  mod_or_func ? tvm_ffi_type_key(tvm_ffi_type_index(mod_or_func)) : "NULL");
    return NULL;
  }
  split_ctx c;
  memset(&c, 0, sizeof(c));
  c.mod = is_func ? NULL : mod_or_func;
  split_ctx* outer = t_split;
  t_split = &c;
  obj_list keys = {0}, vals = {0};
  bool ok = true;
  if (is_func) {
    c.host_name = func_name(NULL, mod_or_func);
    void* host = tvm_tir__xform_apply(mod_or_func, kPass, run);
    void* gv = host ? tvm_tir_global_var_new(c.host_name) : NULL;
    ok = gv && host && list_push(&keys, gv) == 0;
    if (!ok) tvm_ffi_release(gv);
    ok = ok && list_push(&vals, host) == 0;
    if (!ok) tvm_ffi_release(host);
  } else {
    const tvm_tir_ir_module_obj* mod = mod_or_func;
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; ok && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
      void* f = v->v_obj;
      if (TIR_IS(f, PrimFunc)) {
        c.host_name = func_name(k->v_obj, f);
        f = tvm_tir__xform_apply(f, kPass, run);
        if (!f) {
          tvm_ffi_raise_context("in function `%s`",
                                tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint));
        }
      } else {
        tvm_ffi_retain(f);
      }
      void* key = tvm_tir_ref(k->v_obj);
      ok = f && list_push(&keys, key) == 0;
      if (!ok) tvm_ffi_release(key);
      ok = ok && list_push(&vals, f) == 0;
      if (!ok) tvm_ffi_release(f);
    }
  }
  t_split = outer;
  for (int64_t k = 0; ok && k < c.kernels.n; ++k) {
    ok = list_push(&keys, tvm_tir_ref(c.kernel_vars.items[k])) == 0 &&
         list_push(&vals, tvm_tir_ref(c.kernels.items[k])) == 0;
  }
  void* result = NULL;
  if (ok) {
    TVMFFIAny* ks = tvm_ffi_calloc((size_t)keys.n + 1, sizeof(TVMFFIAny));
    TVMFFIAny* vs = tvm_ffi_calloc((size_t)vals.n + 1, sizeof(TVMFFIAny));
    if (ks && vs) {
      for (int64_t k = 0; k < keys.n; ++k) {
        ks[k] = tvm_ffi_any_obj(keys.items[k]);
        vs[k] = tvm_ffi_any_obj(vals.items[k]);
      }
      void* fns = tvm_ffi_map_new(ks, vs, keys.n);
      if (fns) result = tvm_tir_ir_module_new(fns, is_func ? NULL : ((const tvm_tir_ir_module_obj*)mod_or_func)->attrs);
      tvm_ffi_release(fns);
    }
    tvm_ffi_free(ks);
    tvm_ffi_free(vs);
  }
  for (int64_t k = 0; k < keys.n; ++k) tvm_ffi_release(keys.items[k]);
  for (int64_t k = 0; k < vals.n; ++k) tvm_ffi_release(vals.items[k]);
  for (int64_t k = 0; k < c.kernels.n; ++k) tvm_ffi_release(c.kernels.items[k]);
  for (int64_t k = 0; k < c.kernel_vars.n; ++k) tvm_ffi_release(c.kernel_vars.items[k]);
  list_free(&keys);
  list_free(&vals);
  list_free(&c.kernels);
  list_free(&c.kernel_vars);
  return result;
}

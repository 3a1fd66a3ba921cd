/*
 * transform_inject_vthread.c: inject_virtual_thread (tvm/tir/transform.h), after
 * lower_thread_bindings: every "virtual_thread" launch (T.launch_thread("vthread", n),
 * thread_binding "vthread.x") becomes serial code of the thread that runs it, as upstream's
 * InjectVirtualThread does, keeping the interpreter's semantics (a vthread launch is a loop; one
 * whose body holds a barrier runs its iterations in lockstep phases):
 *
 *  - a body without a barrier (tvm_storage_sync, tvm_thread_allreduce, warp shuffles) becomes
 *    `for v in range(n): body` (a serial loop, exactly the interpreter's order);
 *  - a body with barriers is split at them: a sequence statement by statement, a loop or an if
 *    whose bounds / condition do not depend on v with the split pushed inside it, the barrier
 *    itself once, a threadIdx launch with the split inside it (the same lockstep phases for
 *    race-free code), every other statement in its own serial loop over a fresh copy of v; an
 *    Allocate of a non-shared scope there is one per virtual thread: n times larger, its
 *    accesses offset by v * size (the interpreter's one allocation per context), a shared one
 *    stays one (the block's).
 *
 * What cannot be split exactly (a barrier under a LetStmt, loop or condition that depends on v,
 * or under a statement of another kind) is a NotImplementedError naming it.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/tir/builder.h>

#include "transform_internal.h"

static const char kPass[] = "inject_virtual_thread";

static bool is_barrier_call(const void* obj) {
  if (tvm_tir_kind_of(obj) != TVM_TIR_KIND_Call) return false;
  const void* op = ((const tvm_tir_call_obj*)obj)->op;
  return tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_storage_sync) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_thread_allreduce) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle_up) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle_down) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_activemask);
}

static int barrier_fn(const void* obj, void* ctx) {
  (void)ctx;
  return is_barrier_call(obj) ? 1 : 0;
}

static bool holds_barrier(const void* s) { return tvm_tir__walk(s, false, barrier_fn, NULL) == 1; }

static int uses_fn(const void* obj, void* ctx) { return obj == ctx ? 1 : 0; }

static bool uses(const void* e, const void* var) {
  return e && tvm_tir__walk(e, false, uses_fn, (void*)var) == 1;
}

/* `for v' in range(n): s[v -> v']` with a fresh v'. */
static void* serial_copy(const tvm_tir_var_obj* v, const void* n, const void* s) {
  tvm_tir_var_obj* nv = tvm_tir_var_new(tvm_tir_var_name(v), v->expr.dtype);
  tvm_tir_subst sub;
  void* body = NULL;
  if (nv && tvm_tir_subst_init(&sub, false) == 0) {
    if (tvm_tir_subst_set_var(&sub, v, nv) == 0) body = tvm_tir_subst_apply(&sub, s);
    tvm_tir_subst_free(&sub);
  }
  if (!body) {
    tvm_ffi_release(nv);
    return NULL;
  }
  return tvm_tir_serial_take(nv, tvm_tir_const(v->expr.dtype, 0), tvm_tir_ref((void*)n), body);
}

static void* split(const tvm_tir_var_obj* v, const void* n, const void* s);

/* Buffer accesses of `old` data become accesses of nb at v * size + index (1-D buffers). */
typedef struct {
  tvm_tir_mutator m;
  const tvm_tir_var_obj* data;
  tvm_tir_buffer_obj* nb;
  const tvm_tir_var_obj* v;
  int64_t size;
  bool bad;
} expand_ctx;

static void* offset_index(expand_ctx* c, void* indices) {
  if (tvm_tir_array_size(indices) != 1) {
    c->bad = true;
    return NULL;
  }
  void* i = tvm_tir_array_at(indices, 0);
  DLDataType t = ((const tvm_tir_expr_obj*)i)->dtype;
  void* vv = tvm_tir_ref((void*)c->v);
  if (c->v->expr.dtype.bits != t.bits) vv = tvm_tir_cast_take(t, vv);
  if (c->size != 1) vv = tvm_tir_mul_take(vv, tvm_tir_const(t, c->size));
  int64_t k = -1;
  if (tvm_tir_as_const_int(i, &k) && k == 0) return vv;
  return tvm_tir_add_take(vv, tvm_tir_ref(i));
}

static void* expand_load(tvm_tir_mutator* m, const void* node) {
  expand_ctx* c = (expand_ctx*)m;
  const tvm_tir_buffer_load_obj* l = node;
  if (l->buffer->data != c->data) return tvm_tir_ref((void*)node);
  void* idx = offset_index(c, l->indices);
  return idx ? tvm_tir_load_take(tvm_tir_ref(c->nb), idx) : NULL;
}

static void* expand_store(tvm_tir_mutator* m, const void* node) {
  expand_ctx* c = (expand_ctx*)m;
  const tvm_tir_buffer_store_obj* st = node;
  if (st->buffer->data != c->data) return tvm_tir_ref((void*)node);
  void* idx = offset_index(c, st->indices);
  return idx ? tvm_tir_store_take(tvm_tir_ref(c->nb), tvm_tir_ref(st->value), idx) : NULL;
}

static void* expand_decl(tvm_tir_mutator* m, const void* node) {
  expand_ctx* c = (expand_ctx*)m;
  const tvm_tir_decl_buffer_obj* d = node;
  if (d->buffer->data != c->data) return tvm_tir_ref((void*)node);
  return tvm_tir_ref(d->body); /* the declaration of the new buffer replaces it */
}

/* A non-shared Allocate inside a split vthread body: one per virtual thread. */
static void* split_allocate(const tvm_tir_var_obj* v, const void* n,
                            const tvm_tir_allocate_obj* a) {
  const char* scope = tvm_tir_pointer_type_scope(a->buffer_var->type_annotation);
  if (scope && (strcmp(scope, "shared") == 0 || strcmp(scope, "shared.dyn") == 0)) {
    void* body = split(v, n, a->body);
    if (!body) return NULL;
    return tvm_tir_allocate_takev(tvm_tir_ref(a->buffer_var), a->dtype, 1,
                                  (void*[]){tvm_tir_ref(tvm_tir_array_at(a->extents, 0))}, body);
  }
  int64_t size = 1, vn = 0;
  for (int64_t k = 0; k < tvm_tir_array_size(a->extents); ++k) {
    int64_t e = 0;
    if (!tvm_tir_as_const_int(tvm_tir_array_at(a->extents, k), &e))
      return tvm_tir__xform_error("NotImplementedError", kPass, a,
                                  "an allocation of non-constant size in a virtual thread "
                                  "holding a barrier");
    size *= e;
  }
  if (!tvm_tir_as_const_int(n, &vn))
    return tvm_tir__xform_error("NotImplementedError", kPass, v,
                                "a virtual thread launch of non-constant extent holding a "
                                "barrier and an allocation");
  char name[256];
  snprintf(name, sizeof(name), "%s_vt", tvm_tir_var_name(a->buffer_var));
  tvm_tir_buffer_obj* nb = tvm_tir_buffer_decl_takev(
      name, a->dtype, 1, (void*[]){tvm_tir_int(size * vn)}, scope ? scope : "local");
  if (!nb) return NULL;
  expand_ctx c = {.data = a->buffer_var, .nb = nb, .v = v, .size = size};
  c.m.post[TVM_TIR_KIND_BufferLoad] = expand_load;
  c.m.post[TVM_TIR_KIND_BufferStore] = expand_store;
  c.m.post[TVM_TIR_KIND_DeclBuffer] = expand_decl;
  void* body = tvm_tir_mutate(&c.m, a->body);
  if (body && c.bad) {
    tvm_ffi_release(body);
    body = tvm_tir__xform_error("NotImplementedError", kPass, a,
                                "a multi-dimensional allocation in a virtual thread holding a "
                                "barrier");
  }
  if (body && uses(body, a->buffer_var)) {
    tvm_ffi_release(body);
    body = tvm_tir__xform_error("NotImplementedError", kPass, a,
                                "the address of %s taken in a virtual thread holding a barrier",
                                tvm_tir_var_name(a->buffer_var));
  }
  void* split_body = body ? split(v, n, body) : NULL;
  tvm_ffi_release(body);
  void* r = NULL;
  if (split_body) {
    void* d = tvm_tir_decl_buffer_take(tvm_tir_ref(nb), split_body);
    r = tvm_tir_allocate_takev(tvm_tir_ref(nb->data), a->dtype, 1,
                               (void*[]){tvm_tir_int(size * vn)}, d);
  }
  tvm_ffi_release(nb);
  return r;
}

static void* not_exact(const void* s, const char* what) {
  return tvm_tir__xform_error("NotImplementedError", kPass, s,
                              "a barrier under %s that depends on the virtual thread cannot be "
                              "split exactly",
                              what);
}

/* s (inside the vthread launch of v over n) with the virtual threads serialised. */
static void* split(const tvm_tir_var_obj* v, const void* n, const void* s) {
  if (!holds_barrier(s)) return serial_copy(v, n, s);
  switch (tvm_tir_kind_of(s)) {
    case TVM_TIR_KIND_Evaluate:
      if (is_barrier_call(((const tvm_tir_evaluate_obj*)s)->value) &&
          tvm_tir_is_builtin(((const tvm_tir_call_obj*)((const tvm_tir_evaluate_obj*)s)->value)->op,
                             TVM_TIR_BUILTIN_tvm_storage_sync))
        return tvm_tir_ref((void*)s);
      break;
    case TVM_TIR_KIND_SeqStmt: {
      void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
      int64_t k = tvm_tir_array_size(seq);
      void** parts = tvm_ffi_calloc((size_t)k + 1, sizeof(void*));
      if (!parts) return NULL;
      bool ok = true;
      for (int64_t i = 0; i < k && ok; ++i)
        ok = (parts[i] = split(v, n, tvm_tir_array_at(seq, i))) != NULL;
      void* r = NULL;
      if (ok) {
        r = tvm_tir_seq_takev(k, parts);
      } else {
        for (int64_t i = 0; i < k; ++i) tvm_ffi_release(parts[i]);
      }
      tvm_ffi_free(parts);
      return r;
    }
    case TVM_TIR_KIND_For: {
      const tvm_tir_for_obj* f = s;
      if (uses(f->min, v) || uses(f->extent, v) || f->kind == TVM_TIR_FOR_THREAD_BINDING)
        return not_exact(s, "a loop");
      void* body = split(v, n, f->body);
      return body ? tvm_tir_for_take(tvm_tir_ref(f->loop_var), tvm_tir_ref(f->min),
                                     tvm_tir_ref(f->extent), TVM_TIR_FOR_SERIAL, body)
                  : NULL;
    }
    case TVM_TIR_KIND_IfThenElse: {
      const tvm_tir_if_then_else_obj* i = s;
      if (uses(i->condition, v)) return not_exact(s, "a condition");
      void* t = split(v, n, i->then_case);
      void* e = t && i->else_case ? split(v, n, i->else_case) : NULL;
      if (!t || (i->else_case && !e)) {
        tvm_ffi_release(t);
        return NULL;
      }
      return tvm_tir_if_take(tvm_tir_ref(i->condition), t, e);
    }
    case TVM_TIR_KIND_LetStmt: {
      const tvm_tir_let_stmt_obj* l = s;
      if (uses(l->value, v)) return not_exact(s, "a LetStmt");
      void* body = split(v, n, l->body);
      return body ? tvm_tir_let_stmt_take(tvm_tir_ref(l->var), tvm_tir_ref(l->value), body) : NULL;
    }
    case TVM_TIR_KIND_AttrStmt: {
      const tvm_tir_attr_stmt_obj* a = s;
      const char* tag = tvm_tir__launch_tag(a, NULL);
      int axis = tvm_tir__thread_tag_axis(tag);
      /* a threadIdx launch inside the vthread: the vthread goes inside it (the same phases) */
      if (tag && (axis < TVM_TIR_THREAD_TAG_THREAD_X || axis > TVM_TIR_THREAD_TAG_THREAD_X + 2))
        break;
      if (tag && uses(a->value, v)) return not_exact(s, "a thread launch");
      void* body = split(v, n, a->body);
      if (!body) return NULL;
      const void* node = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
      return tvm_tir_attr_take(node ? tvm_tir_ref((void*)node) : NULL,
                               tvm_ffi_str_cstr(a->attr_key), tvm_tir_ref(a->value), body);
    }
    case TVM_TIR_KIND_Allocate:
      return split_allocate(v, n, s);
    case TVM_TIR_KIND_DeclBuffer: {
      const tvm_tir_decl_buffer_obj* d = s;
      void* body = split(v, n, d->body);
      return body ? tvm_tir_decl_buffer_take(tvm_tir_ref(d->buffer), body) : NULL;
    }
    default:
      break;
  }
  return tvm_tir__xform_error("NotImplementedError", kPass, s,
                              "a barrier or warp collective inside a virtual thread under a %s",
                              tvm_tir_kind_name(tvm_tir_kind_of(s)));
}

static void* post_attr(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_attr_stmt_obj* a = node;
  if (strcmp(tvm_ffi_str_cstr(a->attr_key), "virtual_thread") != 0) return tvm_tir_ref((void*)node);
  const tvm_tir_var_obj* v = NULL;
  tvm_tir__launch_tag(a, &v);
  if (!v)
    return tvm_tir__xform_error("ValueError", kPass, a, "a virtual_thread without a variable");
  if (!holds_barrier(a->body)) {
    /* v itself is the loop variable: the one binding of v */
    return tvm_tir_serial_take(tvm_tir_ref((void*)v), tvm_tir_const(v->expr.dtype, 0),
                               tvm_tir_ref(a->value), tvm_tir_ref(a->body));
  }
  return split(v, a->value, a->body);
}

static void* run(const tvm_tir_prim_func_obj* f) {
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_AttrStmt] = post_attr;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_inject_virtual_thread(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}

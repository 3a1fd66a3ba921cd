/*
 * tir_subst.c: substitution of TIR variables and buffers with fresh binding sites, for copying
 * kernel bodies into a fused kernel (fuse_internal.h). The same kernel may be merged twice into
 * one function, and a producer's expression may be inlined at several places: every copy gets
 * its own loop variables, let variables and allocations, so the result stays in SSA form.
 */
#include <string.h>

#include "fuse_internal.h"

static const TVMFFIAny* get(void* dict, const void* key) {
  TVMFFIAny k = tvm_ffi_any_obj(key);
  return tvm_ffi_map_get(dict, &k);
}

static int put(void* dict, const void* key, const void* value) {
  TVMFFIAny k = tvm_ffi_any_obj(key), v = tvm_ffi_any_obj(value);
  return tvm_ffi_dict_set(dict, &k, &v);
}

static void* subst_var(tvm_tir_mutator* m, const void* node) {
  const TVMFFIAny* r = get(((tvm_relax__tir_subst*)m)->vars, node);
  void* out = r ? r->v_obj : (void*)node;
  tvm_ffi_retain(out);
  return out;
}

static void* subst_buffer(tvm_tir_mutator* m, const void* node) {
  tvm_relax__tir_subst* s = (tvm_relax__tir_subst*)m;
  const TVMFFIAny* r = get(s->buffers, node);
  if (r) {
    tvm_ffi_retain(r->v_obj);
    return r->v_obj;
  }
  void* out = tvm_tir_mutate_children(m, node);
  if (out && put(s->buffers, node, out) != 0) {
    tvm_ffi_release(out);
    return NULL;
  }
  return out;
}

/* A fresh Var like v, recorded, then the node's children substituted. */
static void* rename(tvm_tir_mutator* m, const void* node, const tvm_tir_var_obj* v) {
  tvm_tir_var_obj* fresh = tvm_tir_kind_of(v) == TVM_TIR_KIND_SizeVar
                               ? tvm_tir_size_var_new(tvm_tir_var_name(v), tvm_tir_expr_dtype(v))
                               : tvm_tir_var_new_typed(tvm_tir_var_name(v), v->type_annotation);
  int rc = fresh ? put(((tvm_relax__tir_subst*)m)->vars, v, fresh) : -1;
  tvm_ffi_release(fresh);
  return rc == 0 ? tvm_tir_mutate_children(m, node) : NULL;
}
static void* rename_for(tvm_tir_mutator* m, const void* n) {
  return rename(m, n, ((const tvm_tir_for_obj*)n)->loop_var);
}
static void* rename_let_stmt(tvm_tir_mutator* m, const void* n) {
  return rename(m, n, ((const tvm_tir_let_stmt_obj*)n)->var);
}
static void* rename_let(tvm_tir_mutator* m, const void* n) {
  return rename(m, n, ((const tvm_tir_let_obj*)n)->var);
}
static void* rename_allocate(tvm_tir_mutator* m, const void* n) {
  return rename(m, n, ((const tvm_tir_allocate_obj*)n)->buffer_var);
}

int tvm_relax__tir_subst_init(tvm_relax__tir_subst* s) {
  memset(s, 0, sizeof(*s));
  s->vars = tvm_ffi_dict_new();
  s->buffers = tvm_ffi_dict_new();
  s->m.pre[TVM_TIR_KIND_Var] = subst_var;
  s->m.pre[TVM_TIR_KIND_SizeVar] = subst_var;
  s->m.pre[TVM_TIR_KIND_Buffer] = subst_buffer;
  s->m.pre[TVM_TIR_KIND_For] = rename_for;
  s->m.pre[TVM_TIR_KIND_LetStmt] = rename_let_stmt;
  s->m.pre[TVM_TIR_KIND_Let] = rename_let;
  s->m.pre[TVM_TIR_KIND_Allocate] = rename_allocate;
  if (s->vars && s->buffers) return 0;
  tvm_relax__tir_subst_free(s);
  return -1;
}

void tvm_relax__tir_subst_free(tvm_relax__tir_subst* s) {
  tvm_ffi_release(s->vars);
  tvm_ffi_release(s->buffers);
  s->vars = s->buffers = NULL;
}

int tvm_relax__tir_subst_var(tvm_relax__tir_subst* s, const void* var, const void* value) {
  return put(s->vars, var, value);
}

int tvm_relax__tir_subst_buffer(tvm_relax__tir_subst* s, const void* from, const void* to) {
  return put(s->buffers, from, to);
}

void* tvm_relax__tir_subst_apply(tvm_relax__tir_subst* s, const void* node) {
  return tvm_tir_mutate(&s->m, node);
}

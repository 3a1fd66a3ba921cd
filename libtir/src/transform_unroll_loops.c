/* transform_unroll_loops.c: pass unroll_loops (tvm/tir/transform.h). A For of kind unrolled with
 * a constant extent (inner loops first) becomes the sequence of its body's copies, the loop var
 * replaced by min + i; every copy renames the Vars bound inside it (Let, LetStmt, For, Allocate)
 * so that the function stays in SSA form. A non-constant extent keeps a serial loop (the same
 * semantics, spec For item iv), and so does a loop that a break or continue leaves. Extents above
 * TIR_MAX_UNROLL are an error rather than a code explosion. */
#include "transform_internal.h"

static const char kPass[] = "unroll_loops";

enum { TIR_MAX_UNROLL = 65536 };

static void* serial(const tvm_tir_for_obj* f) {
  return tvm_tir_for_new(f->loop_var, f->min, f->extent, TVM_TIR_FOR_SERIAL, f->body,
                         f->thread_binding, f->annotations);
}

/* A copy of f's body with the loop var replaced by value and fresh inner binding sites. */
static void* copy_body(const tvm_tir_for_obj* f, tvm_tir_expr_obj* value) {
  tvm_tir_subst s;
  if (tvm_tir_subst_init(&s, true) != 0) return NULL;
  void* r = tvm_tir_subst_set_var(&s, f->loop_var, value) == 0 ? tvm_tir_subst_apply(&s, f->body)
                                                                : NULL;
  tvm_tir_subst_free(&s);
  return r;
}

static void* unroll(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_for_obj* f = node;
  if (f->kind != TVM_TIR_FOR_UNROLLED) return tvm_tir_ref((void*)f);
  int64_t extent;
  /* A loop a break or continue leaves stays a loop (the same semantics, as above). */
  if (!tvm_tir_as_const_int(f->extent, &extent) || tvm_tir__loop_jumps(f->body)) return serial(f);
  if (extent > TIR_MAX_UNROLL) {
    return tvm_tir__xform_error("ValueError", kPass, f->loop_var,
                                "extent %lld of the unrolled loop over this variable exceeds %d",
                                (long long)extent, TIR_MAX_UNROLL);
  }
  int64_t n = extent > 0 ? extent : 0;
  void** copies = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
  if (!copies) return NULL;
  bool ok = true;
  for (int64_t i = 0; ok && i < n; ++i) {
    tvm_tir_expr_obj* v =
        tvm_tir_add_take(tvm_tir_ref(f->min), tvm_tir_const(f->loop_var->expr.dtype, i));
    copies[i] = v ? copy_body(f, v) : NULL;
    tvm_ffi_release(v);
    ok = copies[i] != NULL;
  }
  /* tvm_tir_seq_takev consumes the copies; after a failure they are released here. */
  void* r = ok ? tvm_tir_seq_takev(n, copies) : NULL;
  for (int64_t i = 0; !ok && i < n; ++i) tvm_ffi_release(copies[i]);
  tvm_ffi_free(copies);
  return r;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_For] = unroll;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_unroll_loops(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}

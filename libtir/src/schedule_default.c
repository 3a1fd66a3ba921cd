/* schedule_default.c: the default schedule, the rules in order (tvm/tir/schedule.h). */
#include "schedule_internal.h"

static const char kPass[] = "schedule_default";
static _Thread_local const tvm_tir_schedule_target* t_target;

typedef void* (*rule_fn)(const void* mod_or_func, const tvm_tir_schedule_target* t);

/* cur = rule(cur), consuming cur; NULL + error. */
static void* step(void* cur, rule_fn rule) {
  if (!cur) return NULL;
  void* next = rule(cur, t_target);
  tvm_ffi_release(cur);
  return next;
}

static void* step_pass(void* cur, tvm_tir_pass_fn pass) {
  if (!cur) return NULL;
  void* next = pass(cur);
  tvm_ffi_release(cur);
  return next;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  if (tvm_tir__sched_marked(f)) return tvm_tir_ref((void*)f);
  int hand = tvm_tir__sched_has_non_serial(f->body);
  if (hand != 0) return hand < 0 ? NULL : tvm_tir_ref((void*)f);
  /* The rules reason about loops that run every iteration: a kernel with a break or continue
   * is left as written. */
  if (tvm_tir__any_jumps(f->body)) return tvm_tir_ref((void*)f);
  const tvm_tir_schedule_target* t = t_target;
  void* cur = tvm_tir_ref((void*)f);
  cur = step_pass(cur, tvm_tir_transform_lower_init);
  cur = step_pass(cur, tvm_tir_transform_convert_blocks);
  /* index arithmetic folded under the loops' ranges (a conv's group term o // O is 0), so that
   * the rules see which loops an access really depends on */
  cur = step_pass(cur, tvm_tir_transform_simplify);
  if (t->pad) cur = step(cur, tvm_tir_schedule_pad);
  if (cur && (t->vectorize || t->register_tile)) {
    /* split loops at their border tests, so that interiors are free of them */
    void* parted = tvm_tir_transform_loop_partition(cur);
    if (parted && parted != cur) parted = step_pass(parted, tvm_tir_transform_simplify);
    tvm_ffi_release(cur);
    cur = parted;
  }
  if (t->local_accum) cur = step(cur, tvm_tir_schedule_local_accum);
  if (t->vectorize) cur = step(cur, tvm_tir_schedule_vectorize);
  if (t->vector_reduce) cur = step(cur, tvm_tir_schedule_vector_reduce);
  if (t->register_tile) cur = step(cur, tvm_tir_schedule_register_tile);
  if (t->pack) cur = step(cur, tvm_tir_schedule_pack);
  if (t->local_accum) cur = step(cur, tvm_tir_schedule_epilogue);
  if (t->parallel) cur = step(cur, tvm_tir_schedule_parallel);
  if (!cur || cur == (void*)f) return cur;
  TVMFFIAny yes = tvm_ffi_any_bool(true);
  void* marked = tvm_tir_prim_func_with_attr(cur, TVM_TIR_ATTR_IS_SCHEDULED, &yes);
  tvm_ffi_release(cur);
  return marked;
}

void* tvm_tir_schedule_default(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  tvm_tir_schedule_target d = tvm_tir_schedule_target_default();
  const tvm_tir_schedule_target* outer = t_target;
  t_target = t ? t : &d;
  void* r = tvm_tir__xform_apply(mod_or_func, kPass, run);
  t_target = outer;
  return r;
}

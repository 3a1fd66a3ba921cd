/*
 * interp_stmt.c: statement execution (spec "Semantics of Statements") through a table indexed
 * by node kind.
 */
#include <stdio.h>
#include <string.h>

#include "interp_internal.h"

typedef int (*exec_fn)(tir_interp* in, const tvm_tir_stmt_obj* s);

/* ---- Statements ----------------------------------------------------------------------------- */
static int exec_let_stmt(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_let_stmt_obj* let = (const tvm_tir_let_stmt_obj*)s;
  tir_value v;
  TRY(tvm_tir__eval(in, let->value, &v));
  int64_t mark = tir_scope_mark(in);
  int rc = tvm_tir__bind(in, let->var, &v);
  if (rc == TIR_OK) rc = tvm_tir__exec(in, let->body);
  tir_scope_pop(in, mark);
  return rc;
}

/* Whether a thread launch (AttrStmt or thread-bound For) of tag `tag` over `body` must run in
 * lockstep (interp_gpu.c): a thread or virtual-thread launch holding a barrier. *threads: the
 * launch is of threads (its iterations run one after another otherwise). */
static int launch_mode(tir_interp* in, const char* tag, const void* body, bool* lockstep,
                       bool* threads) {
  int axis = tvm_tir__thread_tag_axis(tag);
  *threads = axis >= TVM_TIR_THREAD_TAG_THREAD_X;
  *lockstep = false;
  if (*threads) TRY(tvm_tir__has_barrier(in, body, lockstep));
  return TIR_OK;
}

/* thread_extent / virtual_thread bind their variable to 0 .. value-1 (run in order, as the loop
 * they are; in lockstep phases when the body holds a barrier, interp_gpu.c); every other
 * attribute is transparent. */
static int exec_attr_stmt(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_attr_stmt_obj* a = (const tvm_tir_attr_stmt_obj*)s;
  const char* key = tvm_ffi_str_cstr(a->attr_key);
  if (strcmp(key, "thread_extent") != 0 && strcmp(key, "virtual_thread") != 0) {
    return tvm_tir__exec(in, a->body);
  }
  bool lockstep, threads;
  TRY(launch_mode(in, tvm_tir__launch_tag(s, NULL), a->body, &lockstep, &threads));
  if (lockstep) return tvm_tir__exec_lockstep(in, s);
  const void* node = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_IterVar)
    node = ((const tvm_tir_iter_var_obj*)node)->var;
  if (!tvm_tir_is_var(node)) {
    return tvm_tir__raise_at("RuntimeError", s, "AttrStmt %s: the node must be a Var or IterVar",
                             key);
  }
  int64_t extent;
  TRY(tvm_tir__eval_int(in, a->value, &extent));
  in->serial_threads += threads;
  int rc = TIR_OK;
  for (int64_t i = 0; i < extent && rc == TIR_OK; ++i) {
    int64_t mark = tir_scope_mark(in);
    rc = tvm_tir__bind_int(in, (const tvm_tir_var_obj*)node, i, key);
    if (rc == TIR_OK) rc = tvm_tir__exec(in, a->body);
    tir_scope_pop(in, mark);
  }
  in->serial_threads -= threads;
  return rc;
}

static int exec_assert(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_assert_stmt_obj* a = (const tvm_tir_assert_stmt_obj*)s;
  tir_value c;
  TRY(tvm_tir__eval(in, a->condition, &c));
  if (tir_truthy(&c)) return tvm_tir__exec(in, a->body);
  if (tvm_tir_kind_of(a->message) == TVM_TIR_KIND_StringImm) {
    tvm_ffi_raise(tvm_tir_assert_stmt_kind(a), "%s",
                  tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)a->message)->value));
    return TIR_ERROR;
  }
  int64_t code;
  TRY(tvm_tir__eval_int(in, a->message, &code));
  tvm_ffi_raise("AssertionError", "assertion failed with code %lld", (long long)code);
  return TIR_ERROR;
}

static int exec_buffer_store(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_buffer_store_obj* st = (const tvm_tir_buffer_store_obj*)s;
  const tvm_tir_buffer_obj* buf = st->buffer;
  tir_value v;
  int64_t idx[TIR_MAX_DIMS], last[TVM_TIR_INTERP_MAX_LANES];
  int il;
  TRY(tvm_tir__check_storable(buf->dtype, tvm_tir_buffer_name(buf)));
  TRY(tvm_tir__eval(in, st->value, &v)); /* the value first, then the indices (spec S5 semantics) */
  TRY(tvm_tir__eval_indices(in, s, st->indices, idx, TIR_MAX_DIMS, last, &il));
  int64_t n = tvm_tir_array_size(st->indices);
  int bl = buf->dtype.lanes;
  if (tir_lanes(&v) != il * bl) {
    return tvm_tir__raise_at("RuntimeError", s,
                             "a value of %d lanes stored to %d elements of %d lanes", tir_lanes(&v),
                             il, bl);
  }
  /* Element j of a vector index receives lanes [j * bl, (j + 1) * bl) of the value. */
  for (int j = 0; j < il; ++j) {
    if (n > 0) idx[n - 1] = last[j];
    char* addr;
    TRY(tvm_tir__element_addr(in, buf, idx, n, &addr));
    tvm_tir__mem_write(buf->dtype, addr, &v.lane[j * bl]);
  }
  return TIR_OK;
}

static int exec_buffer_realize(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_buffer_realize_obj* r = (const tvm_tir_buffer_realize_obj*)s;
  int64_t mark = tir_scope_mark(in), regions = in->num_regions;
  int rc = tvm_tir__alloc_buffer(in, r->buffer, true);
  if (rc == TIR_OK) rc = tvm_tir__exec(in, r->body);
  tvm_tir__pop_regions(in, regions);
  tir_scope_pop(in, mark);
  return rc;
}

/* T.allocate_const: the constants written into the new allocation p (a plain Allocate's
 * contents stay undefined). */
static int fill_const(const tvm_tir_allocate_obj* a, char* p) {
  const void* data;
  if (tvm_tir__allocate_const_data(a, &data) != 0) return TIR_ERROR;
  int64_t n = data ? tvm_ffi_seq_size(data) : 0, width = tvm_tir__elem_bytes(a->dtype);
  for (int64_t i = 0; i < n; ++i) {
    const void* c = tvm_ffi_seq_obj_at(data, i);
    tir_lane x;
    if (a->dtype.code == kDLFloat) {
      (void)tvm_tir_as_const_float(c, &x.f);
    } else {
      (void)tvm_tir_as_const_int(c, &x.i);
    }
    x = tvm_tir__normalize(a->dtype, x);
    tvm_tir__mem_write(a->dtype, p + i * width, &x);
  }
  return TIR_OK;
}

static int exec_allocate(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_allocate_obj* a = (const tvm_tir_allocate_obj*)s;
  tir_value c;
  TRY(tvm_tir__eval(in, a->condition, &c));
  if (!tir_truthy(&c)) return TIR_OK; /* spec S7 item i: the statement finishes */
  TRY(tvm_tir__check_storable(a->dtype, tvm_tir_var_name(a->buffer_var)));
  int64_t nbytes = tvm_tir__elem_bytes(a->dtype);
  for (int64_t k = 0; k < tvm_tir_array_size(a->extents); ++k) {
    int64_t e;
    TRY(tvm_tir__eval_int(in, tvm_tir_array_at(a->extents, k), &e));
    if (e < 0 || __builtin_mul_overflow(nbytes, e, &nbytes)) {
      return tvm_tir__raise_at("ValueError", s, "Allocate %s: invalid extent %lld",
                               tvm_tir_var_name(a->buffer_var), (long long)e);
    }
  }
  int64_t mark = tir_scope_mark(in), regions = in->num_regions;
  char* p;
  char what[160];
  snprintf(what, sizeof(what), "Allocate %s", tvm_tir_var_name(a->buffer_var));
  int rc = tvm_tir__alloc_region(in, what, nbytes, &p);
  if (rc == TIR_OK) rc = fill_const(a, p);
  if (rc == TIR_OK) rc = tvm_tir__bind_handle(in, a->buffer_var, p);
  if (rc == TIR_OK) rc = tvm_tir__exec(in, a->body);
  tvm_tir__pop_regions(in, regions);
  tir_scope_pop(in, mark);
  return rc;
}

/* A DeclBuffer whose data Var is not bound is `T.decl_buffer(shape)` without data: it allocates
 * the buffer for its body (upstream's IR builder emits Allocate + DeclBuffer for it). */
static int exec_decl_buffer(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_decl_buffer_obj* d = (const tvm_tir_decl_buffer_obj*)s;
  if (tvm_tir__lookup(in, d->buffer->data)) return tvm_tir__exec(in, d->body);
  int64_t mark = tir_scope_mark(in), regions = in->num_regions;
  int rc = tvm_tir__alloc_buffer(in, d->buffer, false);
  if (rc == TIR_OK) rc = tvm_tir__exec(in, d->body);
  tvm_tir__pop_regions(in, regions);
  tir_scope_pop(in, mark);
  return rc;
}

static int exec_seq(tir_interp* in, const tvm_tir_stmt_obj* s) {
  void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
  for (int64_t k = 0; k < tvm_tir_array_size(seq); ++k)
    TRY(tvm_tir__exec(in, tvm_tir_array_at(seq, k)));
  return TIR_OK;
}

static int exec_if(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_if_then_else_obj* i = (const tvm_tir_if_then_else_obj*)s;
  tir_value c;
  TRY(tvm_tir__eval(in, i->condition, &c));
  if (tir_truthy(&c)) return tvm_tir__exec(in, i->then_case);
  return i->else_case ? tvm_tir__exec(in, i->else_case) : TIR_OK;
}

static int exec_evaluate(tir_interp* in, const tvm_tir_stmt_obj* s) {
  tir_value v;
  return tvm_tir__eval(in, ((const tvm_tir_evaluate_obj*)s)->value, &v);
}

/* Every loop kind runs serially in order (an order every kind allows). min and extent are
 * evaluated once, cast to the loop variable's type. */
static int exec_for(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_for_obj* f = (const tvm_tir_for_obj*)s;
  bool lockstep = false, threads = false;
  if (f->kind == TVM_TIR_FOR_THREAD_BINDING) {
    TRY(launch_mode(in, tvm_tir__launch_tag(s, NULL), f->body, &lockstep, &threads));
    if (lockstep) return tvm_tir__exec_lockstep(in, s);
  }
  DLDataType t = f->loop_var->expr.dtype;
  tir_value m, e;
  tir_lane lm, le;
  TRY(tvm_tir__eval(in, f->min, &m));
  TRY(tvm_tir__eval(in, f->extent, &e));
  if (tvm_tir__cast_lane(m.dtype, t, m.lane[0], &lm, "For") ||
      tvm_tir__cast_lane(e.dtype, t, e.lane[0], &le, "For")) {
    return TIR_ERROR;
  }
  in->serial_threads += threads;
  int rc = TIR_OK;
  for (int64_t k = 0; k < le.i && rc == TIR_OK; ++k) {
    tir_value v;
    tvm_tir__value_int(&v, t, (int64_t)((uint64_t)lm.i + (uint64_t)k));
    int64_t mark = tir_scope_mark(in);
    rc = tvm_tir__bind(in, f->loop_var, &v);
    if (rc == TIR_OK) rc = tvm_tir__exec(in, f->body);
    tir_scope_pop(in, mark);
    if (rc == TIR_CONTINUE) rc = TIR_OK;
    if (rc == TIR_BREAK) {
      rc = TIR_OK;
      break;
    }
  }
  in->serial_threads -= threads;
  return rc;
}

static int exec_while(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_while_obj* w = (const tvm_tir_while_obj*)s;
  for (;;) {
    tir_value c;
    TRY(tvm_tir__eval(in, w->condition, &c));
    if (!tir_truthy(&c)) return TIR_OK;
    int rc = tvm_tir__exec(in, w->body);
    if (rc == TIR_BREAK) return TIR_OK;
    if (rc != TIR_OK && rc != TIR_CONTINUE) return rc;
  }
}

/* The init of a reduction block runs when every reduction iteration variable is at the minimum
 * of its domain (the first iteration of the reduction); a non-reduction block always runs it. */
static int init_applies(tir_interp* in, const tvm_tir_sblock_obj* b, bool* out) {
  *out = true;
  for (int64_t k = 0; k < tvm_tir_array_size(b->iter_vars); ++k) {
    const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(b->iter_vars, k);
    if (iv->iter_type != TVM_TIR_ITER_COMM_REDUCE) continue;
    int64_t v, min = 0;
    TRY(tvm_tir__eval_int(in, &iv->var->expr, &v));
    if (iv->dom) TRY(tvm_tir__eval_int(in, iv->dom->min, &min));
    if (v != min) *out = false;
  }
  return TIR_OK;
}

static int exec_sblock_body(tir_interp* in, const tvm_tir_sblock_obj* b) {
  for (int64_t k = 0; k < tvm_tir_array_size(b->alloc_buffers); ++k) {
    TRY(tvm_tir__alloc_buffer(in, tvm_tir_array_at(b->alloc_buffers, k), false));
  }
  for (int64_t k = 0; k < tvm_tir_array_size(b->match_buffers); ++k) {
    TRY(tvm_tir__match_buffer(in, tvm_tir_array_at(b->match_buffers, k)));
  }
  if (b->init) {
    bool run_init;
    TRY(init_applies(in, b, &run_init));
    if (run_init) TRY(tvm_tir__exec(in, b->init));
  }
  return tvm_tir__exec(in, b->body);
}

static int exec_sblock(tir_interp* in, const tvm_tir_stmt_obj* s) {
  int64_t mark = tir_scope_mark(in), regions = in->num_regions, aliases = in->frame->num_aliases;
  int rc = exec_sblock_body(in, (const tvm_tir_sblock_obj*)s);
  tvm_tir__pop_aliases(in, aliases);
  tvm_tir__pop_regions(in, regions);
  tir_scope_pop(in, mark);
  return rc;
}

/* Binds the iteration variables, then runs the block unless the predicate is false. */
static int exec_sblock_realize(tir_interp* in, const tvm_tir_stmt_obj* s) {
  const tvm_tir_sblock_realize_obj* r = (const tvm_tir_sblock_realize_obj*)s;
  int64_t n = tvm_tir_array_size(r->iter_values);
  if (n != tvm_tir_array_size(r->block->iter_vars)) {
    return tvm_tir__raise_at("RuntimeError", s,
                             "SBlockRealize: %lld values for %lld iteration variables",
                             (long long)n, (long long)tvm_tir_array_size(r->block->iter_vars));
  }
  int64_t mark = tir_scope_mark(in);
  int rc = TIR_OK;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    tir_value v;
    const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(r->block->iter_vars, k);
    rc = tvm_tir__eval(in, tvm_tir_array_at(r->iter_values, k), &v);
    if (rc == TIR_OK) rc = tvm_tir__bind(in, iv->var, &v);
  }
  tir_value p;
  if (rc == TIR_OK && r->predicate) rc = tvm_tir__eval(in, r->predicate, &p);
  if (rc == TIR_OK && (!r->predicate || tir_truthy(&p))) rc = exec_sblock(in, &r->block->stmt);
  tir_scope_pop(in, mark);
  return rc;
}

static const exec_fn k_exec[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_LetStmt] = exec_let_stmt,
    [TVM_TIR_KIND_AttrStmt] = exec_attr_stmt,
    [TVM_TIR_KIND_AssertStmt] = exec_assert,
    [TVM_TIR_KIND_BufferStore] = exec_buffer_store,
    [TVM_TIR_KIND_BufferRealize] = exec_buffer_realize,
    [TVM_TIR_KIND_Allocate] = exec_allocate,
    [TVM_TIR_KIND_DeclBuffer] = exec_decl_buffer,
    [TVM_TIR_KIND_SeqStmt] = exec_seq,
    [TVM_TIR_KIND_IfThenElse] = exec_if,
    [TVM_TIR_KIND_Evaluate] = exec_evaluate,
    [TVM_TIR_KIND_For] = exec_for,
    [TVM_TIR_KIND_While] = exec_while,
    [TVM_TIR_KIND_SBlock] = exec_sblock,
    [TVM_TIR_KIND_SBlockRealize] = exec_sblock_realize,
};

bool tvm_tir__interp_stmt_rule(tvm_tir_kind kind) {
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT && k_exec[kind] != NULL;
}

int tvm_tir__exec(tir_interp* in, const tvm_tir_stmt_obj* s) {
  tvm_tir_kind kind = tvm_tir_kind_of(s);
  exec_fn fn = kind >= 0 ? k_exec[kind] : NULL;
  if (!fn) {
    return tvm_tir__raise_at(
        "NotImplementedError", NULL, "cannot execute a %s",
        s ? (kind >= 0 ? tvm_tir_kind_name(kind) : tvm_ffi_type_key(tvm_ffi_type_index(s)))
          : "missing (NULL) statement");
  }
  return fn(in, s);
}

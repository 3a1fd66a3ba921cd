/*
 * run_sample.c: a reference run on a sample of the outputs, for kernels too large to interpret
 * whole (run.h, tvmc_sample_func).
 *
 * Along the chain of nested loops at the top of the function (through the root block and
 * single-statement wrappers), each loop that is spatial and has a constant extent is narrowed
 * to its first k iterations until the estimated work fits the budget. A loop is spatial when
 * every store to a parameter buffer under it indexes with its variable (directly, or through
 * a block iter var or let variable bound from it) and it binds only data-parallel block iter
 * vars: its iterations then write disjoint elements completely, so the elements the narrowed
 * run writes are final, and the caller compares exactly those. A loop that is not spatial (a
 * reduction) is kept whole and the chain goes on inside it.
 *
 * The chain may pass through one sequence into its last statement when the statements before
 * it are cheap (an initialisation, a padding stage, packing a panel into a local buffer): they
 * run as they are, and a second reference run, narrowed alike but without the last statement,
 * tells which elements the sampled loops wrote (those where the two runs differ). Statements
 * after the sampled ones could read elements the sample never computed, which is why only the
 * last one is sampled.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/tir/tir.h>
#include <tvm/tir/visit.h>

#include "run.h"

/* ---- Is a loop spatial? ----------------------------------------------------------------- */
typedef struct {
  tvm_tir_visitor v;
  void* derived;     /* ffi.Dict: the loop var and the vars bound from it */
  void* param_data;  /* ffi.Dict: data vars of the parameter buffers */
  bool spatial;
} spatial_check;
#define SC ((spatial_check*)v)

static bool in_dict(const void* dict, const void* obj) {
  TVMFFIAny k = tvm_ffi_any_obj(obj);
  return tvm_ffi_map_get(dict, &k) != NULL;
}
static int add_to(void* dict, const void* obj) {
  TVMFFIAny k = tvm_ffi_any_obj(obj), none = tvm_ffi_any_none();
  return tvm_ffi_dict_set(dict, &k, &none);
}

typedef struct {
  tvm_tir_visitor v;
  const void* vars;
  bool found;
} uses_check;

static int uses_var(tvm_tir_visitor* v, const void* node) {
  uses_check* u = (uses_check*)v;
  if (in_dict(u->vars, node)) u->found = true;
  return TVM_TIR_VISIT_CONTINUE;
}

/* Whether node (an expression or an array of them) uses a Var of vars; -1 on error. */
static int uses(const void* node, const void* vars) {
  uses_check u = {0};
  u.v.pre[TVM_TIR_KIND_Var] = u.v.pre[TVM_TIR_KIND_SizeVar] = uses_var;
  u.vars = vars;
  int rc = tvm_tir_visit(&u.v, node);
  tvm_tir_visitor_free(&u.v);
  return rc != 0 ? -1 : u.found;
}

static int sc_realize(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_sblock_realize_obj* r = node;
  int64_t n = tvm_tir_array_size(r->iter_values);
  for (int64_t k = 0; k < n && k < tvm_tir_array_size(r->block->iter_vars); ++k) {
    int u = uses(tvm_tir_array_at(r->iter_values, k), SC->derived);
    if (u < 0) return -1;
    if (!u) continue;
    const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(r->block->iter_vars, k);
    if (iv->iter_type != TVM_TIR_ITER_DATA_PAR) SC->spatial = false;
    if (add_to(SC->derived, iv->var) != 0) return -1;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

static int sc_let(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_let_stmt_obj* let = node;
  int u = uses(let->value, SC->derived);
  if (u < 0 || (u && add_to(SC->derived, let->var) != 0)) return -1;
  return TVM_TIR_VISIT_CONTINUE;
}

static int sc_store(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_store_obj* s = node;
  if (!in_dict(SC->param_data, s->buffer->data)) return TVM_TIR_VISIT_CONTINUE; /* local */
  int u = uses(s->indices, SC->derived);
  if (u < 0) return -1;
  if (!u) SC->spatial = false;
  return TVM_TIR_VISIT_CONTINUE;
}

static int is_spatial(const tvm_tir_for_obj* loop, const void* param_data) {
  spatial_check c = {0};
  c.v.pre[TVM_TIR_KIND_SBlockRealize] = sc_realize;
  c.v.pre[TVM_TIR_KIND_LetStmt] = sc_let;
  c.v.pre[TVM_TIR_KIND_BufferStore] = sc_store;
  c.param_data = (void*)param_data;
  c.derived = tvm_ffi_dict_new();
  c.spatial = true;
  int rc = c.derived ? add_to(c.derived, loop->loop_var) : -1;
  if (rc == 0) rc = tvm_tir_visit(&c.v, loop->body);
  tvm_tir_visitor_free(&c.v);
  tvm_ffi_release(c.derived);
  return rc != 0 ? -1 : c.spatial;
}

/* ---- Narrowing ---------------------------------------------------------------------------- */
typedef struct {
  tvm_tir_mutator m;
  void* extents;        /* ffi.Dict: For node -> new extent */
  const void* drop_from; /* a SeqStmt whose last statement is dropped (the baseline run) */
} narrower;

static void* narrow_for(tvm_tir_mutator* m, const void* node) {
  TVMFFIAny key = tvm_ffi_any_obj(node);
  const TVMFFIAny* ext = tvm_ffi_map_get(((narrower*)m)->extents, &key);
  if (!ext) return tvm_tir_mutate_children(m, node);
  const tvm_tir_for_obj* f = node;
  void* body = tvm_tir_mutate(m, f->body);
  tvm_tir_expr_obj* extent =
      body ? tvm_tir_int_imm_new(tvm_tir_expr_dtype(f->extent), ext->v_int64) : NULL;
  void* out = extent ? tvm_tir_for_new(f->loop_var, f->min, extent, f->kind, body,
                                       f->thread_binding, f->annotations)
                     : NULL;
  tvm_ffi_release(extent);
  tvm_ffi_release(body);
  return out;
}

static void* drop_last(tvm_tir_mutator* m, const void* node) {
  if (node != ((narrower*)m)->drop_from) return tvm_tir_mutate_children(m, node);
  const void* seq = ((const tvm_tir_seq_stmt_obj*)node)->seq;
  int64_t n = tvm_tir_array_size(seq) - 1;
  if (n == 1) {
    void* only = tvm_tir_array_at(seq, 0);
    tvm_ffi_retain(only);
    return only;
  }
  void* rest = tvm_ffi_array_new(tvm_ffi_seq_data(seq), n);
  void* out = rest ? tvm_tir_seq_stmt_new(rest) : NULL;
  tvm_ffi_release(rest);
  return out;
}

/* The statement inside a wrapper that holds one (root block, declarations, lets, attrs). */
static const void* inner(const void* s) {
  switch (tvm_tir_kind_of(s)) {
    case TVM_TIR_KIND_SBlockRealize: {
      const tvm_tir_sblock_obj* b = ((const tvm_tir_sblock_realize_obj*)s)->block;
      return tvm_tir_array_size(b->iter_vars) == 0 && !b->init ? b->body : NULL;
    }
    case TVM_TIR_KIND_DeclBuffer: return ((const tvm_tir_decl_buffer_obj*)s)->body;
    case TVM_TIR_KIND_LetStmt: return ((const tvm_tir_let_stmt_obj*)s)->body;
    case TVM_TIR_KIND_AttrStmt: return ((const tvm_tir_attr_stmt_obj*)s)->body;
    case TVM_TIR_KIND_Allocate: return ((const tvm_tir_allocate_obj*)s)->body;
    case TVM_TIR_KIND_AssertStmt: return ((const tvm_tir_assert_stmt_obj*)s)->body;
    case TVM_TIR_KIND_For: return ((const tvm_tir_for_obj*)s)->body;
    default: return NULL;
  }
}

void* tvmc_sample_func(const tvm_tir_prim_func_obj* f, double work, double budget, char* what,
                       size_t what_size, void** out_base) {
  *out_base = NULL;
  void* param_data = tvm_ffi_dict_new();
  narrower n = {0};
  n.extents = tvm_ffi_dict_new();
  void* out = NULL;
  if (!param_data || !n.extents) goto done;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(f->buffer_map, pos, &key, &val)) >= 0;)
    if (add_to(param_data, ((const tvm_tir_buffer_obj*)val->v_obj)->data) != 0) goto done;
  what[0] = '\0';
  size_t used = 0;
  double cur = work;
  const void* s = f->body;
  double mult = 1; /* how many times s runs in the narrowed function; < 0: unknown */
  while (s && cur > budget) {
    if (tvm_tir_kind_of(s) == TVM_TIR_KIND_SeqStmt) {
      /* Go on into the last statement when it holds the bulk of the work: the others run
       * as they are (through one sequence only). */
      const void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
      int64_t len = tvm_tir_array_size(seq);
      if (n.drop_from || mult < 0 || len < 2) break;
      const void* last = tvm_tir_array_at(seq, len - 1);
      tvmc_counts c;
      if (tvmc_count_stmt(last, NULL, &c) != 0) goto done;
      double rest = cur - mult * c.work;
      if (!c.known || rest > budget / 2) break;
      budget -= rest;
      cur -= rest;
      n.drop_from = s;
      s = last;
      continue;
    }
    if (tvm_tir_kind_of(s) == TVM_TIR_KIND_For) {
      const tvm_tir_for_obj* loop = s;
      int64_t extent;
      int sp = 0;
      bool constant = tvm_tir_as_const_int(loop->extent, &extent);
      if (constant && extent > 1 && (sp = is_spatial(loop, param_data)) < 0) goto done;
      if (sp) {
        double per_iter = cur / (double)extent;
        int64_t k = per_iter > 0 ? (int64_t)(budget / per_iter) : extent;
        if (k < 1) k = 1;
        if (k >= extent) break;
        TVMFFIAny fk = tvm_ffi_any_obj(loop), fv = tvm_ffi_any_int(k);
        if (tvm_ffi_dict_set(n.extents, &fk, &fv) != 0) goto done;
        cur = per_iter * (double)k;
        int w = snprintf(what + used, what_size - used,
                         "%sloop `%s` narrowed to %lld of %lld iterations", used ? ", " : "",
                         tvm_ffi_str_cstr(loop->loop_var->name_hint), (long long)k,
                         (long long)extent);
        if (w > 0 && (size_t)w < what_size - used) used += (size_t)w;
        extent = k;
      }
      mult = constant && mult >= 0 ? mult * (double)(extent > 0 ? extent : 0) : -1;
    }
    s = inner(s);
  }
  /* Over budget even so: still far less than the whole problem. */
  if (tvm_ffi_map_size(n.extents) == 0) goto done;
  /* The sample, and the baseline: the same narrowed loops without the last statement. */
  n.m.pre[TVM_TIR_KIND_For] = narrow_for;
  out = tvm_tir_mutate(&n.m, f);
  if (out && n.drop_from) {
    n.m.pre[TVM_TIR_KIND_SeqStmt] = drop_last;
    *out_base = tvm_tir_mutate(&n.m, f);
    if (!*out_base) {
      tvm_ffi_release(out);
      out = NULL;
    }
  }
done:
  tvm_ffi_release(param_data);
  tvm_ffi_release(n.extents);
  return out;
}

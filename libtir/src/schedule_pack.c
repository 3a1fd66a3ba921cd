/* schedule_pack.c: rule pack of the default schedule (tvm/tir/schedule.h): the operand packing
 * of a register-tiled matrix product, as examples/matmul.py does by hand.
 *
 *   for io:                                  for jo:
 *     for jo:                                  B_panel = local [K, L]
 *       ... for k:                      ->     for k, t: B_panel[k, t] = B[.., k, jo * L + t]
 *             for ii unrolled:                 for io:
 *               for t vectorized(L):             ... for k: for ii: for t:
 *                 acc += A[..] * B[.., k, jo * L + t]   acc += A[..] * B_panel[k, t]
 *
 * after register_tile, where the loop over row tiles io (covering at least kMinRows rows) holds
 * exactly the loop
 * over vector panels jo, and every vector load of a parameter buffer B (never written) in the
 * tile reads row k of one panel: k a reduction loop over all of B's dimension, the panel
 * jo * L + t. The two independent loops are interchanged, so each panel is copied once, into a
 * contiguous buffer that stays in cache for every row tile (in B, consecutive rows of a panel are
 * a row of B apart, and a power-of-two row length maps them all to a few cache sets). Values are
 * copied, not computed: results are unchanged. */
#include <stdio.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_pack";
static _Thread_local const tvm_tir_prim_func_obj* t_func;

enum { MAX_LEAVES = 64 };
/* Rows (row tiles x tile rows) from which the panels are copied. */
enum { kMinRows = 256 };

typedef struct {
  const tvm_tir_buffer_load_obj* load; /* a load of B in a vector leaf */
  const tvm_tir_var_obj* lane;         /* the leaf's vector loop variable */
} panel_load;

typedef struct {
  tvm_tir_visitor v;
  const tvm_tir_for_obj* io;
  const tvm_tir_for_obj* jo;
  const sched_scan* s; /* jo's body */
  panel_load loads[MAX_LEAVES];
  int n;
  int64_t lanes;
  int64_t rows; /* the row tile's unrolled extent */
  bool unrolled, bad;
} panel_finder;

static bool param_unwritten(const tvm_tir_buffer_obj* b) {
  const TVMFFIAny *k, *v;
  bool param = false;
  for (int64_t pos = 0; !param && (pos = tvm_ffi_map_next(t_func->buffer_map, pos, &k, &v)) >= 0;)
    param = ((const tvm_tir_buffer_obj*)v->v_obj)->data == b->data;
  if (!param) return false;
  sched_scan s;
  if (tvm_tir__sched_scan(t_func->body, &s) != 0) {
    tvm_ffi_error_clear();
    return false;
  }
  bool written = false;
  for (int64_t i = 0; i < s.nacc && !written; ++i) written = s.acc[i].store && s.acc[i].buffer->data == b->data;
  tvm_tir__sched_scan_free(&s);
  return !written;
}

typedef struct {
  tvm_tir_visitor v;
  panel_finder* pf;
  const tvm_tir_for_obj* leaf;
  const void* acc;
} leaf_loads;

static int leaf_load(tvm_tir_visitor* v, const void* node) {
  leaf_loads* ll = (leaf_loads*)v;
  panel_finder* pf = ll->pf;
  const tvm_tir_buffer_load_obj* l = node;
  if (l->buffer->data == ll->acc) return TVM_TIR_VISIT_SKIP;
  int ul = tvm_tir__sched_uses_var(l, ll->leaf->loop_var), uj = tvm_tir__sched_uses_var(l, pf->jo->loop_var);
  if (ul < 0 || uj < 0) return -1;
  if (!ul) return TVM_TIR_VISIT_SKIP; /* a broadcast operand (A) */
  if (!uj || pf->n == MAX_LEAVES) {
    pf->bad = true; /* a vector operand outside the panel: nothing to pack */
    return TVM_TIR_VISIT_SKIP;
  }
  pf->loads[pf->n++] = (panel_load){l, ll->leaf->loop_var};
  return TVM_TIR_VISIT_SKIP;
}

static int find_leaves(tvm_tir_visitor* v, const void* node) {
  panel_finder* pf = (panel_finder*)v;
  const tvm_tir_for_obj* f = node;
  int64_t r;
  if (f->kind == TVM_TIR_FOR_UNROLLED) {
    pf->unrolled = true;
    if (tvm_tir__sched_const(f->extent, &r) && r > pf->rows) pf->rows = r;
  }
  if (f->kind != TVM_TIR_FOR_VECTORIZED) return TVM_TIR_VISIT_CONTINUE;
  const tvm_tir_buffer_store_obj* st = (const void*)f->body;
  int64_t L;
  if (!TIR_IS(st, BufferStore) || !tvm_tir__sched_allocated(pf->s, st->buffer->data) ||
      !tvm_tir__sched_const(f->extent, &L) || (pf->lanes && pf->lanes != L))
    return TVM_TIR_VISIT_SKIP;
  pf->lanes = L;
  leaf_loads ll = {{{0}}, pf, f, st->buffer->data};
  ll.v.pre[TVM_TIR_KIND_BufferLoad] = leaf_load;
  int rc = tvm_tir_visit(&ll.v, st->value);
  tvm_tir_visitor_free(&ll.v);
  return rc < 0 ? -1 : TVM_TIR_VISIT_SKIP;
}

/* The panel of load p: its last index is jo * L + lane + c (c free of every variable bound in jo's
 * body); one leading dim d_k is a serial loop k of jo's body over all of B's dim, the others use
 * no variable bound there. Fills *out_dk / *out_k. */
static bool panel_form(const panel_finder* pf, const panel_load* p, int64_t* out_dk,
                       const tvm_tir_for_obj** out_k) {
  const tvm_tir_buffer_obj* B = p->load->buffer;
  int64_t nd = tvm_ffi_seq_size(p->load->indices), c;
  if (nd < 2 || tvm_ffi_seq_size(B->strides) != 0) return false;
  const tvm_tir_expr_obj* last = tvm_ffi_seq_obj_at(p->load->indices, nd - 1);
  if (!tvm_tir__sched_lin_coef(last, pf->jo->loop_var, &c) || c != pf->lanes ||
      !tvm_tir__sched_lin_coef(last, p->lane, &c) || c != 1)
    return false;
  for (int64_t i = 0; i < pf->s->nbind; ++i) { /* nothing else of jo's body in the panel index */
    const void* var = pf->s->bind[i].var;
    if (var == p->lane) continue;
    int u = tvm_tir__sched_uses_var(last, var);
    if (u != 0) return false;
  }
  if (tvm_tir__sched_uses_var(last, pf->io->loop_var) != 0) return false;
  *out_dk = -1;
  for (int64_t d = 0; d + 1 < nd; ++d) {
    const tvm_tir_expr_obj* e = tvm_ffi_seq_obj_at(p->load->indices, d);
    if (tvm_tir__sched_uses_var(e, pf->io->loop_var) != 0 || tvm_tir__sched_uses_var(e, p->lane) != 0)
      return false;
    const sched_binding* b = TIR_IS(e, Var) ? tvm_tir__sched_bound(pf->s, e) : NULL;
    int64_t mn, ext, dim;
    if (b && b->loop && *out_dk < 0 && b->loop->kind == TVM_TIR_FOR_SERIAL &&
        tvm_tir__sched_const(b->loop->min, &mn) && mn == 0 && tvm_tir__sched_const(b->loop->extent, &ext) &&
        tvm_tir__sched_const(tvm_ffi_seq_obj_at(B->shape, d), &dim) && ext == dim) {
      *out_dk = d;
      *out_k = b->loop;
      continue;
    }
    for (int64_t i = 0; i < pf->s->nbind; ++i) {
      if (tvm_tir__sched_uses_var(e, pf->s->bind[i].var) != 0) return false;
    }
  }
  return *out_dk >= 0;
}

/* ---- Rewriting --------------------------------------------------------------------------- */
typedef struct {
  tvm_tir_mutator m;
  panel_finder* pf;
  tvm_tir_buffer_obj* bp;
  int64_t dk;
} redirect;

static void* redirect_load(tvm_tir_mutator* m, const void* node) {
  redirect* r = (redirect*)m;
  for (int i = 0; i < r->pf->n; ++i) {
    if (r->pf->loads[i].load != node) continue;
    const tvm_tir_buffer_load_obj* l = node;
    void* ind = tvm_tir_list_take(tvm_tir_ref(tvm_ffi_seq_obj_at(l->indices, r->dk)),
                                  tvm_tir_ref((void*)r->pf->loads[i].lane));
    void* out = ind ? tvm_tir_buffer_load_new(r->bp, ind) : NULL;
    tvm_ffi_release(ind);
    return out;
  }
  return tvm_tir_ref((void*)node);
}

/* for kp in [0, K): for tp vectorized(L): Bp[kp, tp] = B[lead[k := kp], last[lane := tp]] */
static void* fill(const panel_load* p, int64_t dk, const tvm_tir_for_obj* k, int64_t lanes,
                  tvm_tir_buffer_obj* bp) {
  const void* ind = p->load->indices;
  int64_t nd = tvm_ffi_seq_size(ind);
  tvm_tir_var_obj* kp = tvm_tir_var("kp", k->loop_var->expr.dtype);
  tvm_tir_var_obj* tp = tvm_tir_var("tp", p->lane->expr.dtype);
  void* src[16];
  int64_t i = 0;
  for (; kp && tp && i < nd && i < 16; ++i) {
    const void* e = tvm_ffi_seq_obj_at(ind, i);
    src[i] = i == dk        ? tvm_tir_ref(kp)
             : i == nd - 1 ? tvm_tir__sched_copy_subst(e, p->lane, tp)
                           : tvm_tir_ref((void*)e);
  }
  void* s = NULL;
  if (i == nd) {
    void* val = tvm_tir_load_takev(tvm_tir_ref((void*)p->load->buffer), nd, src);
    void* st = tvm_tir_store_take(tvm_tir_ref(bp), val, tvm_tir_ref(kp), tvm_tir_ref(tp));
    s = tvm_tir_serial_take(tvm_tir_ref(kp), tvm_tir__sched_iconst(kp, 0), tvm_tir_ref(k->extent),
                            tvm_tir_for_take(tvm_tir_ref(tp), tvm_tir__sched_iconst(tp, 0),
                                             tvm_tir__sched_iconst(tp, lanes), TVM_TIR_FOR_VECTORIZED,
                                             st));
  } else {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_release(src[j]);
  }
  RELEASE2(kp, tp);
  return s;
}

static void* pack_for(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_for_obj* io = node;
  const tvm_tir_for_obj* jo = (const void*)io->body;
  int64_t nio;
  if (io->kind != TVM_TIR_FOR_SERIAL || !TIR_IS(jo, For) || jo->kind != TVM_TIR_FOR_SERIAL ||
      io->thread_binding || jo->thread_binding || !tvm_tir__sched_const(io->extent, &nio) || nio < 2)
    return tvm_tir_ref((void*)node);
  int u1 = tvm_tir__sched_uses_var(jo->min, io->loop_var), u2 = tvm_tir__sched_uses_var(jo->extent, io->loop_var);
  if (u1 != 0 || u2 != 0) return u1 < 0 || u2 < 0 ? NULL : tvm_tir_ref((void*)node);
  sched_scan s;
  if (tvm_tir__sched_scan(jo->body, &s) != 0) return NULL;
  panel_finder pf = {{{0}}, io, jo, &s, {{0}}, 0, 0, 0, false, false};
  pf.v.pre[TVM_TIR_KIND_For] = find_leaves;
  int rc = s.unsafe ? 0 : tvm_tir_visit(&pf.v, jo->body);
  tvm_tir_visitor_free(&pf.v);
  void* out = NULL;
  int64_t dk = -1;
  const tvm_tir_for_obj* k = NULL;
  /* the copy is a pass over B that nothing overlaps: it pays for itself from about 256 rows
   * on (fewer rows stream B's panels faster straight from the caches as they are) */
  bool ok = rc == 0 && !s.unsafe && !pf.bad && pf.unrolled && pf.n > 0 && nio * pf.rows >= kMinRows &&
            param_unwritten(pf.loads[0].load->buffer) && panel_form(&pf, &pf.loads[0], &dk, &k);
  /* interchanging io and jo needs both independent */
  int ind = ok ? tvm_tir__sched_independent(io) : 0;
  if (ind > 0) ind = tvm_tir__sched_independent(jo);
  if (ind < 0) rc = -1;
  ok = ok && ind > 0;
  /* every panel load the same panel of the same buffer */
  for (int i = 1; ok && i < pf.n; ++i) {
    int64_t d2;
    const tvm_tir_for_obj* k2;
    ok = pf.loads[i].load->buffer->data == pf.loads[0].load->buffer->data &&
         panel_form(&pf, &pf.loads[i], &d2, &k2) && d2 == dk && k2 == k;
    for (int64_t d = 0; ok && d + 1 < tvm_ffi_seq_size(pf.loads[0].load->indices); ++d) {
      const void* a = tvm_ffi_seq_obj_at(pf.loads[0].load->indices, d);
      const void* b = tvm_ffi_seq_obj_at(pf.loads[i].load->indices, d);
      TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
      int eq = a == b ? 1 : tvm_ffi_structural_equal(&x, &y, false, NULL, NULL);
      if (eq < 0) tvm_ffi_error_clear();
      ok = eq == 1;
    }
    if (ok) { /* the same panel base: last index at lane 0 */
      tvm_tir_expr_obj* z0 = tvm_tir__sched_iconst(pf.loads[0].lane, 0);
      tvm_tir_expr_obj* zi = tvm_tir__sched_iconst(pf.loads[i].lane, 0);
      int64_t nd = tvm_ffi_seq_size(pf.loads[0].load->indices);
      void* a = tvm_tir__sched_copy_subst(tvm_ffi_seq_obj_at(pf.loads[0].load->indices, nd - 1), pf.loads[0].lane, z0);
      void* b = tvm_tir__sched_copy_subst(tvm_ffi_seq_obj_at(pf.loads[i].load->indices, nd - 1), pf.loads[i].lane, zi);
      TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
      int eq = a && b ? tvm_ffi_structural_equal(&x, &y, false, NULL, NULL) : -1;
      if (eq < 0) tvm_ffi_error_clear();
      ok = eq == 1;
      tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(z0), tvm_ffi_release(zi);
    }
  }
  if (rc < 0) {
    tvm_tir__sched_scan_free(&s);
    return NULL;
  }
  if (ok) { /* a panel as wide as B's rows is B itself, contiguous already */
    int64_t w;
    const tvm_tir_buffer_obj* B = pf.loads[0].load->buffer;
    ok = !(tvm_tir__sched_const(tvm_ffi_seq_obj_at(B->shape, tvm_ffi_seq_size(B->shape) - 1), &w) &&
           w == pf.lanes);
  }
  if (ok) {
    const tvm_tir_buffer_obj* B = pf.loads[0].load->buffer;
    char name[96];
    snprintf(name, sizeof(name), "%s_panel", tvm_tir_buffer_name(B));
    tvm_tir_buffer_obj* bp = tvm_tir_buffer_decl_takev(
        name, B->dtype, 2, (void*[]){tvm_tir_ref(k->extent), tvm_tir_const_int(k->extent->dtype, pf.lanes)},
        "local");
    redirect r = {{{0}}, &pf, bp, dk};
    r.m.post[TVM_TIR_KIND_BufferLoad] = redirect_load;
    void* body = bp ? tvm_tir_mutate(&r.m, jo->body) : NULL;
    void* inner = body ? tvm_tir_for_new(io->loop_var, io->min, io->extent, TVM_TIR_FOR_SERIAL, body,
                                         NULL, io->annotations)
                       : NULL;
    tvm_ffi_release(body);
    void* cp = inner ? fill(&pf.loads[0], dk, k, pf.lanes, bp) : NULL;
    void* seq = cp ? tvm_tir_seq_take(cp, inner) : (tvm_ffi_release(inner), NULL);
    void* scoped =
        seq ? tvm_tir_allocate_takev(tvm_tir_ref(bp->data), bp->dtype, 2,
                                     (void*[]){tvm_tir_ref(k->extent), tvm_tir_const_int(k->extent->dtype, pf.lanes)},
                                     tvm_tir_decl_buffer_take(tvm_tir_ref(bp), seq))
            : NULL;
    out = scoped ? tvm_tir_for_new(jo->loop_var, jo->min, jo->extent, TVM_TIR_FOR_SERIAL, scoped, NULL,
                                   jo->annotations)
                 : NULL;
    tvm_ffi_release(scoped);
    tvm_ffi_release(bp);
  } else {
    out = tvm_tir_ref((void*)node);
  }
  tvm_tir__sched_scan_free(&s);
  return out;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  if (tvm_tir__sched_marked(f)) return tvm_tir_ref((void*)f);
  const tvm_tir_prim_func_obj* outer = t_func;
  t_func = f;
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_For] = pack_for;
  void* body = tvm_tir_mutate(&m, f->body);
  t_func = outer;
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_schedule_pack(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  (void)t;
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}

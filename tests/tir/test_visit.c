/*
 * test_visit.c: the reflection-driven visitor and mutator (tvm/tir/visit.h): every node of a
 * large function is visited once per occurrence, at a path that leads back to it; per-kind
 * tables, SKIP and post order; the mutator rebuilds only the subtrees that changed.
 */
#include <string.h>

#include <tvm/tir/builder.h>
#include <tvm/tir/visit.h>

#include "tir_check.h"

/* Follow an access path from root by reflection: the object it names, or NULL. */
static const void* resolve(const void* root, const tvm_ffi_access_path_obj* p) {
  if (!p->parent) return root;
  const void* up = resolve(root, p->parent);
  if (!up) return NULL;
  int32_t t = tvm_ffi_type_index(up);
  const TVMFFIAny* item = NULL;
  if (p->kind == TVM_FFI_PATH_ATTR) {
    TVMFFIByteArray name;
    if (!tvm_ffi_any_as_bytes(&p->key, &name)) return NULL;
    const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(t, name.data);
    if (!f) return NULL;
    const char* addr = (const char*)up + f->offset;
    if (f->field_static_type_index == kTVMFFIAny) {
      item = (const TVMFFIAny*)addr;
    } else {
      return *(void* const*)addr;
    }
  } else if (p->kind == TVM_FFI_PATH_ARRAY_ITEM && t == kTVMFFIArray) {
    if (p->key.v_int64 >= tvm_ffi_seq_size(up)) return NULL;
    item = tvm_ffi_seq_at(up, p->key.v_int64);
  } else if (p->kind == TVM_FFI_PATH_MAP_ITEM && t == kTVMFFIMap) {
    item = tvm_ffi_map_get(up, &p->key);
  }
  return item && tvm_ffi_any_is_object(item) ? item->v_obj : NULL;
}

typedef struct {
  const void* root;
  int64_t visits, bad_paths, posts;
  int64_t per_kind[TVM_TIR_KIND_COUNT];
} counter;

static int count_pre(tvm_tir_visitor* v, const void* node) {
  counter* c = v->ctx;
  c->visits++;
  tvm_tir_kind k = tvm_tir_kind_of(node);
  if (k >= 0) c->per_kind[k]++;
  void* path = tvm_tir_visitor_path(v);
  if (!path || resolve(c->root, path) != node) c->bad_paths++;
  tvm_ffi_release(path);
  return TVM_TIR_VISIT_CONTINUE;
}
static int count_post(tvm_tir_visitor* v, const void* node) {
  (void)node;
  ((counter*)v->ctx)->posts++;
  return 0;
}

TEST(visit_large_function) {
  const int64_t n = 64;
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_large_func(n);
  if (!EXPECT_OK(f)) return;
  counter c = {0};
  c.root = f;
  tvm_tir_visitor v = {0};
  v.pre_default = count_pre;
  v.post_default = count_post;
  v.ctx = &c;
  CHECK_OK(tvm_tir_visit(&v, f));
  CHECK_EQ_INT(c.bad_paths, 0);
  CHECK_EQ_INT(c.posts, c.visits);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_PrimFunc], 1);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_SeqStmt], 1);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_For], n);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_BufferStore], n);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_BufferLoad], n);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_IfThenElse], n / 4);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_LetStmt], n / 8);
  /* Buffers: A and B in buffer_map, plus one per load/store. */
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_Buffer], 2 + 2 * n);
  CHECK(c.visits > 20 * n);
  tvm_tir_visitor_free(&v);
  tvm_ffi_release(f);
}

static int skip_for(tvm_tir_visitor* v, const void* node) {
  (void)node;
  ((counter*)v->ctx)->visits++;
  return TVM_TIR_VISIT_SKIP;
}
static int count_store(tvm_tir_visitor* v, const void* node) {
  (void)node;
  ((counter*)v->ctx)->per_kind[TVM_TIR_KIND_BufferStore]++;
  return 0;
}
static int stop_at_if(tvm_tir_visitor* v, const void* node) {
  (void)node;
  tvm_ffi_strbuf b = {0};
  tvm_tir_visitor_path_format(v, &b);
  tvm_ffi_raise("ValueError", "stopped at %s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return -1;
}

TEST(visit_tables_skip_and_stop) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_large_func(16);
  if (!EXPECT_OK(f)) return;
  counter c = {0};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_For] = skip_for;
  v.pre[TVM_TIR_KIND_BufferStore] = count_store;
  v.ctx = &c;
  CHECK_OK(tvm_tir_visit(&v, f));
  CHECK_EQ_INT(c.visits, 16);
  CHECK_EQ_INT(c.per_kind[TVM_TIR_KIND_BufferStore], 0);
  tvm_tir_visitor v2 = {0};
  v2.pre[TVM_TIR_KIND_IfThenElse] = stop_at_if;
  CHECK_EQ_INT(tvm_tir_visit(&v2, f), -1);
  /* The first statement is LetStmt(t0, For(j0, If(...))). */
  CHECK_RAISED("ValueError", "stopped at <root>.body.seq[0].body.body");
  tvm_tir_visitor_free(&v);
  tvm_tir_visitor_free(&v2);
  tvm_ffi_release(f);
}

/* Mutators */
typedef struct {
  const void* from;
  void* to;
} subst;

static void* subst_var(tvm_tir_mutator* m, const void* node) {
  subst* s = m->ctx;
  void* r = node == s->from ? s->to : (void*)node;
  tvm_ffi_retain(r);
  return r;
}

static void* fail_on_if(tvm_tir_mutator* m, const void* node) {
  (void)m;
  (void)node;
  tvm_ffi_raise("ValueError", "no ifs");
  return NULL;
}

TEST(mutate_rebuilds_changed_subtrees_only) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_large_func(16);
  if (!EXPECT_OK(f)) return;
  /* No callbacks: nothing changes, the same object comes back. */
  tvm_tir_mutator id = {0};
  void* same = tvm_tir_mutate(&id, f);
  CHECK(same == f);
  tvm_ffi_release(same);
  /* Replace the loop variable j3 (4th statement: no Let, no If) by a fresh q. */
  const tvm_tir_seq_stmt_obj* seq = (const tvm_tir_seq_stmt_obj*)f->body;
  const tvm_tir_for_obj* loop3 = tvm_tir_array_at(seq->seq, 3);
  tvm_tir_var_obj* q = tvm_tir_var("q", TVM_TIR_INT32);
  subst s = {loop3->loop_var, q};
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_Var] = subst_var;
  m.ctx = &s;
  tvm_tir_prim_func_obj* g = tvm_tir_mutate(&m, f);
  if (EXPECT_OK(g)) {
    CHECK(g != f);
    CHECK(g->params == f->params);
    CHECK(g->buffer_map == f->buffer_map);
    CHECK(g->func.attrs == f->func.attrs);
    const tvm_tir_seq_stmt_obj* gseq = (const tvm_tir_seq_stmt_obj*)g->body;
    CHECK(gseq != seq && gseq->seq != seq->seq);
    for (int64_t i = 0; i < 16; ++i) {
      bool same_stmt = tvm_tir_array_at(gseq->seq, i) == tvm_tir_array_at(seq->seq, i);
      CHECK(same_stmt == (i != 3));
    }
    const tvm_tir_for_obj* g3 = tvm_tir_array_at(gseq->seq, 3);
    CHECK(g3->loop_var == q);
    CHECK(g3->min == loop3->min && g3->extent == loop3->extent);
    const tvm_tir_buffer_store_obj* st = (const tvm_tir_buffer_store_obj*)g3->body;
    const tvm_tir_buffer_store_obj* st0 = (const tvm_tir_buffer_store_obj*)loop3->body;
    CHECK(st != st0 && st->buffer == st0->buffer);
    /* The original is untouched. */
    CHECK(((const tvm_tir_for_obj*)tvm_tir_array_at(seq->seq, 3))->loop_var == s.from);
    CHECK_EQ_INT(tvm_ffi_strong_count(f), 1);
  }
  /* Errors propagate and leak nothing. */
  tvm_tir_mutator bad = {0};
  bad.pre[TVM_TIR_KIND_IfThenElse] = fail_on_if;
  void* none = tvm_tir_mutate(&bad, f);
  CHECK(none == NULL);
  CHECK_RAISED("ValueError", "no ifs");
  RELEASE(f, g, q);
}

TEST(deep_nesting_raises) {
  /* x + 1 + 1 + ... nested deeper than the walk allows. */
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_expr_obj* e = (tvm_tir_expr_obj*)tvm_tir_ref(x);
  for (int i = 0; e && i < TVM_FFI_STRUCTURAL_MAX_DEPTH + 10; ++i) {
    e = tvm_tir_add_take(e, tvm_tir_int(1));
  }
  if (!EXPECT_OK(e)) return;
  tvm_tir_visitor v = {0};
  CHECK_EQ_INT(tvm_tir_visit(&v, e), -1);
  CHECK_RAISED("RuntimeError", "nested deeper than");
  tvm_tir_visitor_free(&v);
  tvm_tir_mutator m = {0};
  CHECK(tvm_tir_mutate(&m, e) == NULL);
  CHECK_RAISED("RuntimeError", "nested deeper than");
  RELEASE(x, e);
}

/* tvm_tir_subst: Vars by values, Buffers by Buffers, and with rename fresh binding sites in each
 * copy (two copies of one loop get two loop variables; without rename the loop keeps its own). */
TEST(subst_vars_buffers_and_fresh_bindings) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT32);
  /* for i in range(8): A[i] = A[i] + x */
  tvm_tir_for_obj* loop = (tvm_tir_for_obj*)tvm_tir_serial_take(
      tvm_tir_ref(i), tvm_tir_int(0), tvm_tir_int(8),
      tvm_tir_store_take(tvm_tir_ref(A),
                         tvm_tir_add_take(tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i)),
                                          tvm_tir_ref(x)),
                         tvm_tir_ref(i)));
  tvm_tir_expr_obj* two = tvm_tir_f32(2.5);
  if (!EXPECT_OK(A) || !EXPECT_OK(B) || !EXPECT_OK(loop) || !EXPECT_OK(two)) return;
  tvm_tir_for_obj* copies[2] = {NULL, NULL};
  for (int c = 0; c < 2; ++c) {
    tvm_tir_subst s;
    CHECK_EQ_INT(tvm_tir_subst_init(&s, true), 0);
    CHECK_EQ_INT(tvm_tir_subst_set_var(&s, x, two), 0);
    CHECK_EQ_INT(tvm_tir_subst_set_buffer(&s, A, B), 0);
    copies[c] = tvm_tir_subst_apply(&s, loop);
    tvm_tir_subst_free(&s);
    if (!EXPECT_OK(copies[c])) return;
    const tvm_tir_for_obj* f = copies[c];
    CHECK(f->loop_var != i && strcmp(tvm_tir_var_name(f->loop_var), "i") == 0);
    const tvm_tir_buffer_store_obj* st = (const tvm_tir_buffer_store_obj*)f->body;
    CHECK(st->buffer == B);
    CHECK(tvm_tir_array_at(st->indices, 0) == f->loop_var);
    const tvm_tir_binary_obj* add = (const tvm_tir_binary_obj*)st->value;
    CHECK(add->b == (void*)two);
    const tvm_tir_buffer_load_obj* ld = (const tvm_tir_buffer_load_obj*)add->a;
    CHECK(ld->buffer == B && tvm_tir_array_at(ld->indices, 0) == f->loop_var);
  }
  CHECK(copies[0]->loop_var != copies[1]->loop_var);
  /* Without rename the loop variable stays; the original is untouched either way. */
  tvm_tir_subst keep;
  CHECK_EQ_INT(tvm_tir_subst_init(&keep, false), 0);
  CHECK_EQ_INT(tvm_tir_subst_set_buffer(&keep, A, B), 0);
  tvm_tir_for_obj* kept = tvm_tir_subst_apply(&keep, loop);
  tvm_tir_subst_free(&keep);
  if (EXPECT_OK(kept)) {
    CHECK(kept->loop_var == i);
    CHECK(((const tvm_tir_buffer_store_obj*)kept->body)->buffer == B);
  }
  CHECK(((const tvm_tir_buffer_store_obj*)loop->body)->buffer == A && loop->loop_var == i);
  RELEASE(A, B, i, x, loop, two, copies[0], copies[1], kept);
}

int main(void) {
  RUN(visit_large_function);
  RUN(visit_tables_skip_and_stop);
  RUN(mutate_rebuilds_changed_subtrees_only);
  RUN(deep_nesting_raises);
  RUN(subst_vars_buffers_and_fresh_bindings);
  tir_release_temps();
  return test_summary();
}

/*
 * test_relax_attention_var_len.c: nn.attention_var_len (tests/corpus/relax/attention_var_len.py,
 * one function per form) legalized, then run two ways on random queries, keys and values over
 * ragged batches: in the Relax reference evaluator (the kernel in libtir's interpreter) and
 * compiled (LLVM kernels in libvm; compiled mode in the _compiled twin), each checked against
 * the operator written below from its definition as plain C loops in double. The batches hold
 * sequences of length 0 and 1, query and key sequences of different lengths both ways, and rows
 * outside every sequence. Then the kernel's assertions on bad seqstarts and max_seqlens, and
 * the located errors of bad calls.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "exec_mode_testing.h"
#include "script_testing.h"
#include "values_testing.h"
#include "corpus_ops_testing.h"

#define I32 tvm_tir_dtype_int(32)

enum { NO_MASK, TOP_LEFT, BOTTOM_RIGHT };

/* The shapes of one call: queries (1, S, N, H), keys (1, S_kv, N_k, H), values (1, S_kv, N_k,
 * H_v); nseq sequences. */
typedef struct {
  int64_t S, S_kv, N, N_k, H, H_v;
  int nseq;
} shapes;

/* out (1, S, N, H_v): for sequence b, query rows sq[b] .. sq[b + 1] - 1 attend to key rows
 * sk[b] .. sk[b + 1] - 1 with softmax(scale q . k + mask) v, query head h on key head
 * h / (N / N_k); the mask keeps key position j' <= s' + offset (0 for TopLeft, |len_q - len_k|
 * for BottomRight) and with a window w also j' > s' + offset - w. Rows keeping no key, and rows
 * in no sequence, are 0. scale NaN: 1 / sqrt(H). */
static void ref_var_len(const shapes* c, const float* q, const float* k, const float* v,
                        const int32_t* sq, const int32_t* sk, double scale, int mask,
                        int64_t window, double* out) {
  if (isnan(scale)) scale = 1.0 / sqrt((double)c->H);
  for (int64_t i = 0; i < c->S * c->N * c->H_v; ++i) out[i] = 0;
  double p[64];
  for (int b = 0; b < c->nseq; ++b) {
    int64_t q0 = sq[b], q1 = sq[b + 1], k0 = sk[b], k1 = sk[b + 1];
    int64_t lq = q1 - q0, lk = k1 - k0;
    int64_t offset = mask == BOTTOM_RIGHT ? (lq > lk ? lq - lk : lk - lq) : 0;
    for (int64_t s = q0; s < q1; ++s)
      for (int64_t h = 0; h < c->N; ++h) {
        int64_t kh = h / (c->N / c->N_k);
        double mx = -INFINITY, sum = 0;
        bool kept[64];
        for (int64_t j = k0; j < k1; ++j) {
          int64_t sp = s - q0, jp = j - k0;
          kept[j - k0] = mask == NO_MASK ||
                         (jp <= sp + offset && (window <= 0 || jp > sp + offset - window));
          if (!kept[j - k0]) continue;
          double dot = 0;
          for (int64_t d = 0; d < c->H; ++d) {
            dot += (double)q[((s * c->N) + h) * c->H + d] * k[((j * c->N_k) + kh) * c->H + d];
          }
          p[j - k0] = dot * scale;
          if (p[j - k0] > mx) mx = p[j - k0];
        }
        for (int64_t j = k0; j < k1; ++j) {
          if (kept[j - k0]) sum += (p[j - k0] = exp(p[j - k0] - mx));
        }
        if (sum == 0) continue;
        for (int64_t e = 0; e < c->H_v; ++e) {
          double acc = 0;
          for (int64_t j = k0; j < k1; ++j) {
            if (kept[j - k0]) acc += p[j - k0] * v[((j * c->N_k) + kh) * c->H_v + e];
          }
          out[((s * c->N) + h) * c->H_v + e] = acc / sum;
        }
      }
  }
}

static void* i32_vector(int n, const int32_t* v) {
  int64_t len = n;
  void* t = tensor(1, &len, I32);
  memcpy(tvm_ffi_tensor_dl(t)->data, v, (size_t)n * sizeof(int32_t));
  return t;
}

static void* i32_scalar(int32_t v) {
  int64_t unused = 0;
  void* t = tensor(0, &unused, I32);
  *(int32_t*)tvm_ffi_tensor_dl(t)->data = v;
  return t;
}

static int32_t max_len(int nseq, const int32_t* st) {
  int32_t m = 0;
  for (int b = 0; b < nseq; ++b) m = st[b + 1] - st[b] > m ? st[b + 1] - st[b] : m;
  return m;
}

static float* F(void* t) { return tvm_ffi_tensor_dl(t)->data; }

/* The arguments of a corpus function (into t, returns how many): random q, k, v of c's shapes,
 * the seqstarts sq, sk (each of nseq + 1) and the max_seqlens mq, mk. args: which of sk,
 * max_seqlen_q, max_seqlen_k the function takes after sq ("kqk": all three, "q": max_seqlen_q
 * alone, "kq": sk and max_seqlen_q). */
static int make_args(void* t[7], const char* args, const shapes* c, const int32_t* sq,
                     const int32_t* sk, int32_t mq, int32_t mk) {
  t[0] = rv_rand(4, (int64_t[]){1, c->S, c->N, c->H});
  t[1] = rv_rand(4, (int64_t[]){1, c->S_kv, c->N_k, c->H});
  t[2] = rv_rand(4, (int64_t[]){1, c->S_kv, c->N_k, c->H_v});
  int n = 3;
  t[n++] = i32_vector(c->nseq + 1, sq);
  if (strchr(args, 'k')) t[n++] = i32_vector(c->nseq + 1, sk);
  t[n++] = i32_scalar(mq);
  if (strcmp(args, "kqk") == 0) t[n++] = i32_scalar(mk);
  return n;
}

/* Function fn of the corpus (args as make_args') on random inputs with the seqstarts sq, sk and
 * the max_seqlens they imply, against the reference. */
static void check(const char* fn, const char* args, const shapes* c, const int32_t* sq,
                  const int32_t* sk, double scale, int mask, int64_t window) {
  void* t[7];
  bool has_sk = strchr(args, 'k') != NULL;
  int n = make_args(t, args, c, sq, sk, max_len(c->nseq, sq),
                    has_sk ? max_len(c->nseq, sk) : 0);
  static double want[4096];
  ref_var_len(c, F(t[0]), F(t[1]), F(t[2]), sq, has_sk ? sk : sq, scale, mask, window, want);
  expect2(fn, t, n, 4, (int64_t[]){1, c->S, c->N, c->H_v}, F32, want);
  release_all(t, n);
}

/* Defaults: seqstart_k and max_seqlen_k the query ones, no mask, 1 / sqrt(8); 4 query heads on
 * 2 key heads, H_v 6. An empty sequence, one of length 1, rows outside every sequence. */
TEST(plain) {
  static const int32_t kStarts[4][4] = {
      {0, 3, 3, 9}, {0, 1, 2, 9}, {0, 9, 9, 9}, {1, 4, 4, 8}};
  shapes c = {9, 9, 4, 2, 8, 6, 3};
  for (int i = 0; i < 4; ++i) check("plain", "q", &c, kStarts[i], kStarts[i], NAN, NO_MASK, 0);
}

/* TopLeft with scale 0.5 and every argument given, symbolic sizes. */
TEST(top_left) {
  /* lengths (q, k): (2, 4), (1, 0): a row without keys, (4, 2): TopLeft keeps all of them */
  shapes c = {7, 6, 2, 2, 8, 8, 3};
  check("top_left", "kqk", &c, (int32_t[]){0, 2, 3, 7}, (int32_t[]){0, 4, 4, 6}, 0.5, TOP_LEFT,
        0);
  /* one sequence; then key rows beyond the last sequence, unread */
  shapes d = {5, 5, 2, 2, 8, 8, 1};
  check("top_left", "kqk", &d, (int32_t[]){0, 5}, (int32_t[]){0, 5}, 0.5, TOP_LEFT, 0);
  shapes e = {3, 8, 2, 2, 8, 8, 2};
  check("top_left", "kqk", &e, (int32_t[]){0, 1, 3}, (int32_t[]){0, 3, 5}, 0.5, TOP_LEFT, 0);
}

/* BottomRight, 3 query heads on one key head, H_v 5; max_seqlen_k defaults to max_seqlen_q. */
TEST(bottom_right) {
  shapes c = {8, 6, 3, 1, 4, 5, 3};
  check("bottom_right", "kq", &c, (int32_t[]){0, 3, 4, 8}, (int32_t[]){0, 1, 4, 6}, NAN,
        BOTTOM_RIGHT, 0);
  /* lengths (1, 4) and (4, 3): the keys' longest no longer than max_seqlen_q */
  shapes d = {5, 7, 3, 1, 4, 5, 2};
  check("bottom_right", "kq", &d, (int32_t[]){0, 1, 5}, (int32_t[]){0, 4, 7}, NAN,
        BOTTOM_RIGHT, 0);
}

/* A window of 2 keys ending at BottomRight's diagonal; sequences without keys. */
TEST(window) {
  shapes c = {9, 9, 2, 2, 4, 4, 3};
  check("window", "kqk", &c, (int32_t[]){0, 4, 5, 9}, (int32_t[]){0, 6, 6, 9}, NAN,
        BOTTOM_RIGHT, 2);
  shapes d = {6, 3, 2, 2, 4, 4, 2};
  check("window", "kqk", &d, (int32_t[]){0, 5, 6}, (int32_t[]){0, 3, 3}, NAN, BOTTOM_RIGHT, 2);
}

/* The seqstarts made in the graph from the lengths (cumsum, concat after a 0, max): causal
 * self-attention per sequence over x (t, 12) as (1, t, 3, 4). */
TEST(from_lengths) {
  static const int32_t kLens[2][4] = {{3, 0, 4, 1}, {5, 0, 0, 0}};
  static const int kNseq[2] = {4, 1};
  for (int i = 0; i < 2; ++i) {
    int32_t st[5] = {0};
    for (int b = 0; b < kNseq[i]; ++b) st[b + 1] = st[b] + kLens[i][b];
    int64_t T = st[kNseq[i]];
    void* a[2] = {rv_rand(2, (int64_t[]){T, 12}), i32_vector(kNseq[i], kLens[i])};
    shapes c = {T, T, 3, 3, 4, 4, kNseq[i]};
    static double want[512];
    ref_var_len(&c, F(a[0]), F(a[0]), F(a[0]), st, st, NAN, BOTTOM_RIGHT, 0, want);
    expect2("from_lengths", a, 2, 2, (int64_t[]){T, 12}, F32, want);
    release_all(a, 2);
  }
}

/* The kernel's assertions, interpreted and compiled alike. */
static void check_error(const char* fn, const char* args, const shapes* c, const int32_t* sq,
                        const int32_t* sk, int32_t mq, int32_t mk, const char* part) {
  void* t[7];
  int n = make_args(t, args, c, sq, sk, mq, mk);
  expect2_error(fn, t, n, "AssertionError", part);
  release_all(t, n);
}

TEST(bad_seqstarts) {
  shapes c = {9, 9, 4, 2, 8, 6, 3};
  const char* q = "relax.nn.attention_var_len: seqstart_q is not a non-decreasing sequence";
  check_error("plain", "q", &c, (int32_t[]){0, 5, 3, 9}, NULL, 9, 0, q);     /* decreasing */
  check_error("plain", "q", &c, (int32_t[]){0, 3, 6, 10}, NULL, 9, 0, q);    /* past the end */
  check_error("plain", "q", &c, (int32_t[]){-1, 3, 6, 9}, NULL, 9, 0, q);    /* negative */
  check_error("plain", "q", &c, (int32_t[]){0, 3, 6, 9}, NULL, 2, 0,
              "relax.nn.attention_var_len: a query sequence is longer than max_seqlen_q");
  shapes d = {7, 6, 2, 2, 8, 8, 3};
  check_error("top_left", "kqk", &d, (int32_t[]){0, 2, 3, 7}, (int32_t[]){0, 4, 4, 7}, 4, 4,
              "relax.nn.attention_var_len: seqstart_k is not a non-decreasing sequence");
  check_error("top_left", "kqk", &d, (int32_t[]){0, 2, 3, 7}, (int32_t[]){0, 4, 4, 6}, 4, 3,
              "relax.nn.attention_var_len: a key sequence is longer than max_seqlen_k");
}

/* Bad calls written in TVMScript, refused where written. */
#define SIG(params) "    def f(" params "):\n"
#define QKV                                                                                  \
  "q: R.Tensor((1, 6, 4, 8), \"float32\"), k: R.Tensor((1, 6, 2, 8), \"float32\"), "         \
  "v: R.Tensor((1, 6, 2, 8), \"float32\"), "
TEST(bad_calls) {
  test_expect_relax_error(
      SIG(QKV "s: R.Tensor((3,), \"int64\"), m: R.Tensor((), \"int32\")")
      "        return R.nn.attention_var_len(q, k, v, s, m)\n",
      "TypeError",
      "bad.py:9:48: error: R.nn.attention_var_len: argument 'seqstart_q' must be an int32 tensor, "
      "got dtype int64");
  test_expect_relax_error(
      SIG(QKV "s: R.Tensor((3,), \"int32\"), m: R.Tensor((1,), \"int32\")")
      "        return R.nn.attention_var_len(q, k, v, s, m)\n",
      "ValueError",
      "bad.py:9:51: error: R.nn.attention_var_len: argument 'max_seqlen_q' must have ndim 0, "
      "got 1");
  /* the defaulted key arguments are the query ones: a max_seqlen_q in seqstart_k's place */
  test_expect_relax_error(
      SIG(QKV "s: R.Tensor((3,), \"int32\"), m: R.Tensor((), \"int32\")")
      "        return R.nn.attention_var_len(q, k, v, s, m, m)\n",
      "ValueError", "bad.py:9:54: error: R.nn.attention_var_len: argument 'seqstart_k' must have "
      "ndim 1, got 0");
  test_expect_relax_error(
      SIG(QKV "s: R.Tensor((3,), \"int32\"), t: R.Tensor((4,), \"int32\"), "
              "m: R.Tensor((), \"int32\")")
      "        return R.nn.attention_var_len(q, k, v, s, m, seqstart_k=t)\n",
      "ValueError", "R.nn.attention_var_len: 'seqstart_q' (3,) and 'seqstart_k' (4,) differ in "
      "length");
  test_expect_relax_error(
      SIG("q: R.Tensor((2, 6, 4, 8), \"float32\"), s: R.Tensor((3,), \"int32\"), "
          "m: R.Tensor((), \"int32\")")
      "        return R.nn.attention_var_len(q, q, q, s, m)\n",
      "ValueError", "bad.py:9:39: error: R.nn.attention_var_len: argument 'queries' must have "
      "batch size 1");
  test_expect_relax_error(
      SIG(QKV "s: R.Tensor((3,), \"int32\"), m: R.Tensor((), \"int32\")")
      "        return R.nn.attention_var_len(q, k, v, s, m, causal_mask=\"Diagonal\")\n",
      "ValueError", "attribute 'causal_mask' must be None, \"TopLeft\" or \"BottomRight\"");
  test_expect_relax_error(
      SIG(QKV "s: R.Tensor((3,), \"int32\"), m: R.Tensor((), \"int32\")")
      "        return R.nn.attention_var_len(q, k, v, s)\n",
      "TypeError", "max_seqlen_q");
}

int main(void) {
  corpus_ops_setup("attention_var_len.py", 1e-5);
  RUN(plain);
  RUN(top_left);
  RUN(bottom_right);
  RUN(window);
  RUN(from_lengths);
  RUN(bad_seqstarts);
  RUN(bad_calls);
  corpus_ops_teardown();
  return test_summary();
}

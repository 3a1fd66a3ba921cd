/*
 * interp_wmma.c: the tensor-core (WMMA) intrinsics in the interpreter (docs/tir-decisions.md,
 * "Tensor cores"), as upstream TVM's CUDA code generator gives them meaning:
 *
 *   tvm_fill_fragment(frag, m, n, k, index, value)
 *   tvm_load_matrix_sync(frag, m, n, k, index, ptr, stride, layout)
 *   tvm_mma_sync(d, d_index, a, a_index, b, b_index, c, c_index)
 *   tvm_store_matrix_sync(frag, m, n, k, index, ptr, stride, layout)
 *
 * frag is the data Var of a buffer in scope "wmma.matrix_a" (an m x k matrix per fragment),
 * "wmma.matrix_b" (k x n) or "wmma.accumulator" (m x n); fragment `index` of it is elements
 * [index * size, (index + 1) * size) of the buffer, held here row-major (on a GPU the elements
 * are spread over the warp's registers, so nothing but these intrinsics may read them). layout
 * ("row_major" / "col_major") says how the matrix lies in memory at ptr, rows (or columns)
 * `stride` elements apart (a multiple of 16 bytes), elements of the fragment's dtype, ptr 32
 * bytes into its allocation times some n (CUDA's 256-bit alignment). mma_sync computes D = A B + C
 * (D may be C): each element the exact sum of C's and the products, rounded once to D's dtype
 * (a GPU accumulates in at least float32 in an unspecified order, so results agree within
 * rounding). A fragment keeps the shape (m, n, k) of its last fill / load / mma; mma_sync
 * needs A, B and C of one shape.
 *
 * Each is a whole-warp operation: interp_gpu.c runs the statement holding one for the 32
 * threads of each warp together and calls tvm_tir__wmma_run once per warp with the operands
 * of the warp's first lane (after checking the warp's operands agree).
 */
#include <string.h>

#include "interp_internal.h"

/* ---- Fragment shapes: address -> (m, n, k), an open-addressing table over the run ---------- */
typedef struct {
  const void* key;
  int32_t m, n, k;
} shape_entry;

struct tir_wmma_state {
  shape_entry* e;
  int64_t cap, n;
};

static uint64_t hash_ptr(const void* p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

static const shape_entry* shape_find(const tir_interp* in, const void* key) {
  const struct tir_wmma_state* m = in->wmma;
  if (!m || !m->cap) return NULL;
  for (uint64_t i = hash_ptr(key) & (uint64_t)(m->cap - 1);; i = (i + 1) & (uint64_t)(m->cap - 1)) {
    if (m->e[i].key == key) return &m->e[i];
    if (!m->e[i].key) return NULL;
  }
}

static int shape_put(tir_interp* in, const void* key, int32_t mm, int32_t nn, int32_t kk) {
  if (!in->wmma) {
    in->wmma = tvm_ffi_calloc(1, sizeof(struct tir_wmma_state));
    if (!in->wmma) return TIR_ERROR;
  }
  struct tir_wmma_state* m = in->wmma;
  if (2 * (m->n + 1) > m->cap) {
    int64_t cap = m->cap ? 2 * m->cap : 64;
    shape_entry* e = tvm_ffi_calloc((size_t)cap, sizeof(shape_entry));
    if (!e) return TIR_ERROR;
    for (int64_t k = 0; k < m->cap; ++k) {
      if (!m->e[k].key) continue;
      uint64_t i = hash_ptr(m->e[k].key) & (uint64_t)(cap - 1);
      while (e[i].key) i = (i + 1) & (uint64_t)(cap - 1);
      e[i] = m->e[k];
    }
    tvm_ffi_free(m->e);
    m->e = e;
    m->cap = cap;
  }
  uint64_t i = hash_ptr(key) & (uint64_t)(m->cap - 1);
  while (m->e[i].key && m->e[i].key != key) i = (i + 1) & (uint64_t)(m->cap - 1);
  if (!m->e[i].key) m->n++;
  m->e[i] = (shape_entry){key, mm, nn, kk};
  return TIR_OK;
}

void tvm_tir__wmma_free(tir_interp* in) {
  if (!in->wmma) return;
  tvm_ffi_free(in->wmma->e);
  tvm_ffi_free(in->wmma);
  in->wmma = NULL;
}

/* ---- Operands -------------------------------------------------------------------------------- */
bool tvm_tir__is_wmma_call(const void* call) {
  if (tvm_tir_kind_of(call) != TVM_TIR_KIND_Call) return false;
  const void* op = ((const tvm_tir_call_obj*)call)->op;
  return tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_fill_fragment) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_load_matrix_sync) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_store_matrix_sync) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_mma_sync) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_bmma_sync);
}

int tvm_tir__wmma_fragment_args(const tvm_tir_call_obj* call, int out[4]) {
  if (tvm_tir_is_builtin(call->op, TVM_TIR_BUILTIN_tvm_mma_sync) ||
      tvm_tir_is_builtin(call->op, TVM_TIR_BUILTIN_tvm_bmma_sync)) {
    for (int k = 0; k < 4; ++k) out[k] = 2 * k;
    return 4;
  }
  out[0] = 0;
  return 1;
}

/* The kind of fragment a scope holds: 'a', 'b', 'c' (accumulator), 0 for another scope. */
static char frag_kind(const char* scope) {
  if (!scope) return 0;
  if (strcmp(scope, "wmma.matrix_a") == 0) return 'a';
  if (strcmp(scope, "wmma.matrix_b") == 0) return 'b';
  if (strcmp(scope, "wmma.accumulator") == 0) return 'c';
  return 0;
}

typedef struct {
  char kind;
  DLDataType dtype;
  const char* name;
} frag_info;

/* What a fragment operand (a buffer's data Var in a wmma scope) is. */
static int frag_of(const tvm_tir_call_obj* call, int64_t i, frag_info* out) {
  const void* v = tvm_tir_array_at(call->args, i);
  const tvm_tir_type_obj* t =
      tvm_tir_is_var(v) ? ((const tvm_tir_var_obj*)v)->type_annotation : NULL;
  const char* scope = t ? tvm_tir_pointer_type_scope(t) : NULL;
  out->kind = frag_kind(scope);
  if (!out->kind) {
    return tvm_tir__raise_at("TypeError", call,
                             "%s: argument %lld must be the data of a buffer in scope "
                             "wmma.matrix_a, wmma.matrix_b or wmma.accumulator",
                             tvm_tir_op_name((const tvm_tir_op_obj*)call->op), (long long)i);
  }
  const tvm_tir_type_obj* et = ((const tvm_tir_pointer_type_obj*)t)->element_type;
  out->dtype = ((const tvm_tir_prim_type_obj*)et)->dtype;
  out->name = tvm_tir_var_name(v);
  return TIR_OK;
}

/* The shapes the tensor cores take with float16 inputs (CUDA's wmma for half). */
int tvm_tir__wmma_check_shape(const void* node, int64_t m, int64_t n, int64_t k) {
  if ((m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) ||
      (m == 8 && n == 32 && k == 16))
    return TIR_OK;
  return tvm_tir__raise_at("ValueError", node,
                           "a tensor-core fragment of shape m=%lld n=%lld k=%lld (float16 takes "
                           "16x16x16, 32x8x16 or 8x32x16)",
                           (long long)m, (long long)n, (long long)k);
}

/* Rows and columns of a fragment of kind `kind` for shape (m, n, k). */
static void frag_dims(char kind, int64_t m, int64_t n, int64_t k, int64_t* rows, int64_t* cols) {
  *rows = kind == 'b' ? k : m;
  *cols = kind == 'a' ? k : n;
}

/* The dtypes the tensor cores take: float16 A and B, a float16 or float32 accumulator. */
static int check_dtype(const tvm_tir_call_obj* call, const frag_info* f) {
  bool ok = f->kind == 'c'
                ? (f->dtype.code == kDLFloat && (f->dtype.bits == 16 || f->dtype.bits == 32))
                : (f->dtype.code == kDLFloat && f->dtype.bits == 16);
  if (ok && f->dtype.lanes == 1) return TIR_OK;
  return tvm_tir__raise_at("NotImplementedError", call,
                           "%s: fragment %s of dtype %s (tensor cores here take float16 matrix_a "
                           "and matrix_b fragments and float16 or float32 accumulators)",
                           tvm_tir_op_name((const tvm_tir_op_obj*)call->op), f->name,
                           tvm_tir_dtype_str(f->dtype).s);
}

/* The address of fragment `index` of f (rows x cols elements), checked to lie in live memory. */
static int frag_addr(tir_interp* in, const tvm_tir_call_obj* call, const frag_info* f,
                     const tir_value* data, const tir_value* index, int64_t rows, int64_t cols,
                     char** out) {
  int64_t eb = tvm_tir__elem_bytes(f->dtype), size = rows * cols * eb;
  if (!tvm_tir_dtype_is_integer(index->dtype) || index->lane[0].i < 0) {
    return tvm_tir__raise_at("IndexError", call, "%s: fragment index %lld of %s",
                             tvm_tir_op_name((const tvm_tir_op_obj*)call->op),
                             (long long)index->lane[0].i, f->name);
  }
  char* p = (char*)data->lane[0].p + index->lane[0].i * size;
  if (!data->lane[0].p || !tvm_tir__in_live_region(in, p, size)) {
    return tvm_tir__raise_at("IndexError", call,
                             "%s: fragment %lld of %s (%lld x %lld elements) lies outside its "
                             "allocation",
                             tvm_tir_op_name((const tvm_tir_op_obj*)call->op),
                             (long long)index->lane[0].i, f->name, (long long)rows,
                             (long long)cols);
  }
  *out = p;
  return TIR_OK;
}

static int shape_args(const tvm_tir_call_obj* call, const tir_value* args, int64_t* m, int64_t* n,
                      int64_t* k) {
  for (int i = 1; i <= 3; ++i)
    if (!tvm_tir_dtype_is_integer(args[i].dtype))
      return tvm_tir__raise_at("TypeError", call, "%s: m, n and k must be integers",
                               tvm_tir_op_name((const tvm_tir_op_obj*)call->op));
  *m = args[1].lane[0].i;
  *n = args[2].lane[0].i;
  *k = args[3].lane[0].i;
  return tvm_tir__wmma_check_shape(call, *m, *n, *k);
}

/* Memory element (r, c) of a matrix at ptr with the given layout and stride. */
static char* mem_elem(char* ptr, bool col_major, int64_t stride, int64_t r, int64_t c, int64_t eb) {
  return ptr + (col_major ? c * stride + r : r * stride + c) * eb;
}

static int layout_arg(const tvm_tir_call_obj* call, bool* col_major) {
  const void* a = tvm_tir_array_at(call->args, 7);
  const char* s = tvm_tir_kind_of(a) == TVM_TIR_KIND_StringImm
                      ? tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)a)->value)
                      : NULL;
  if (s && (strcmp(s, "row_major") == 0 || strcmp(s, "col_major") == 0)) {
    *col_major = s[0] == 'c';
    return TIR_OK;
  }
  return tvm_tir__raise_at("ValueError", call,
                           "%s: the layout must be \"row_major\" or \"col_major\"",
                           tvm_tir_op_name((const tvm_tir_op_obj*)call->op));
}

/* load (to_frag) or store between fragment memory and the matrix at ptr. */
static int copy_matrix(tir_interp* in, const tvm_tir_call_obj* call, const tir_value* args,
                       bool to_frag) {
  frag_info f;
  int64_t m = 0, n = 0, k = 0, rows, cols;
  bool col = false;
  TRY(frag_of(call, 0, &f));
  TRY(check_dtype(call, &f));
  TRY(shape_args(call, args, &m, &n, &k));
  TRY(layout_arg(call, &col));
  if (!to_frag && f.kind != 'c')
    return tvm_tir__raise_at("TypeError", call,
                             "tvm_store_matrix_sync stores an accumulator fragment, not %s (%s)",
                             f.name, f.kind == 'a' ? "wmma.matrix_a" : "wmma.matrix_b");
  if (!tvm_tir_dtype_is_handle(args[5].dtype) || !tvm_tir_dtype_is_integer(args[6].dtype))
    return tvm_tir__raise_at("TypeError", call, "%s: a pointer and an integer stride expected",
                             tvm_tir_op_name((const tvm_tir_op_obj*)call->op));
  frag_dims(f.kind, m, n, k, &rows, &cols);
  int64_t stride = args[6].lane[0].i, eb = tvm_tir__elem_bytes(f.dtype);
  int64_t lines = col ? cols : rows, len = col ? rows : cols;
  if (stride < len || (stride * eb) % 16 != 0) /* CUDA: ldm a multiple of 16 bytes */
    return tvm_tir__raise_at("ValueError", call,
                             "%s: stride %lld (it must be at least the %lld elements of a %s and a "
                             "multiple of 16 bytes)",
                             tvm_tir_op_name((const tvm_tir_op_obj*)call->op), (long long)stride,
                             (long long)len, col ? "column" : "row");
  char* fp;
  TRY(frag_addr(in, call, &f, &args[0], &args[4], rows, cols, &fp));
  char* mp = args[5].lane[0].p;
  /* CUDA: a 256-bit aligned pointer; allocations are (at least) that aligned on a GPU, so the
   * offset into the allocation must be a multiple of 32 bytes */
  const char* base = mp ? tvm_tir__region_base(in, mp) : NULL;
  if (base && (mp - base) % 32 != 0)
    return tvm_tir__raise_at("ValueError", call,
                             "%s: the matrix starts %lld bytes into its allocation, not a multiple "
                             "of 32 (the tensor cores need a 256-bit aligned pointer)",
                             tvm_tir_op_name((const tvm_tir_op_obj*)call->op),
                             (long long)(mp - base));
  for (int64_t l = 0; l < lines; ++l) {
    char* line = mp ? mp + l * stride * eb : NULL;
    if (!line || !tvm_tir__in_live_region(in, line, len * eb))
      return tvm_tir__raise_at("IndexError", call,
                               "%s: %s %lld of the matrix (%lld elements from the pointer plus "
                               "%lld) lies outside every live allocation",
                               tvm_tir_op_name((const tvm_tir_op_obj*)call->op),
                               col ? "column" : "row", (long long)l, (long long)len,
                               (long long)(l * stride));
  }
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      char* fe = fp + (r * cols + c) * eb;
      char* me = mem_elem(mp, col, stride, r, c, eb);
      if (to_frag)
        memcpy(fe, me, (size_t)eb);
      else
        memcpy(me, fe, (size_t)eb);
    }
  return to_frag ? shape_put(in, fp, (int32_t)m, (int32_t)n, (int32_t)k) : TIR_OK;
}

static int fill(tir_interp* in, const tvm_tir_call_obj* call, const tir_value* args) {
  frag_info f;
  int64_t m = 0, n = 0, k = 0, rows, cols;
  TRY(frag_of(call, 0, &f));
  TRY(check_dtype(call, &f));
  TRY(shape_args(call, args, &m, &n, &k));
  frag_dims(f.kind, m, n, k, &rows, &cols);
  if (tir_lanes(&args[5]) != 1)
    return tvm_tir__raise_at("TypeError", call, "tvm_fill_fragment: a scalar value expected");
  tir_lane v;
  TRY(tvm_tir__cast_lane(args[5].dtype, f.dtype, args[5].lane[0], &v, "tvm_fill_fragment"));
  char* fp;
  TRY(frag_addr(in, call, &f, &args[0], &args[4], rows, cols, &fp));
  int64_t eb = tvm_tir__elem_bytes(f.dtype);
  for (int64_t e = 0; e < rows * cols; ++e) tvm_tir__mem_write(f.dtype, fp + e * eb, &v);
  return shape_put(in, fp, (int32_t)m, (int32_t)n, (int32_t)k);
}

static int mma(tir_interp* in, const tvm_tir_call_obj* call, const tir_value* args) {
  static const char kinds[4] = {'c', 'a', 'b', 'c'};
  static const char* const names[4] = {"d", "a", "b", "c"};
  frag_info f[4];
  char* p[4];
  const shape_entry* sh[4] = {NULL};
  for (int j = 0; j < 4; ++j) {
    TRY(frag_of(call, 2 * j, &f[j]));
    TRY(check_dtype(call, &f[j]));
    if (f[j].kind != kinds[j])
      return tvm_tir__raise_at("TypeError", call,
                               "tvm_mma_sync: operand %s (%s) must be a %s fragment", names[j],
                               f[j].name,
                               kinds[j] == 'a'   ? "wmma.matrix_a"
                               : kinds[j] == 'b' ? "wmma.matrix_b"
                                                 : "wmma.accumulator");
  }
  /* The shape comes from the operands' last fill / load / mma. */
  for (int j = 1; j < 4; ++j) {
    if (!tvm_tir_dtype_is_integer(args[2 * j + 1].dtype) || args[2 * j + 1].lane[0].i < 0)
      return tvm_tir__raise_at("IndexError", call,
                               "tvm_mma_sync: a negative or non-integer fragment index");
  }
  int64_t m = 0, n = 0, k = 0;
  for (int j = 1; j < 4; ++j) {
    /* a fragment's start depends on its shape; try each shape the operand could have */
    const shape_entry* e = NULL;
    static const int32_t shapes[3][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
    for (int s = 0; s < 3 && !e; ++s) {
      int64_t rows, cols;
      frag_dims(kinds[j], shapes[s][0], shapes[s][1], shapes[s][2], &rows, &cols);
      char* q = (char*)args[2 * j].lane[0].p +
                args[2 * j + 1].lane[0].i * rows * cols * tvm_tir__elem_bytes(f[j].dtype);
      const shape_entry* c = shape_find(in, q);
      if (c && c->m == shapes[s][0] && c->n == shapes[s][1] && c->k == shapes[s][2]) e = c;
    }
    if (!e)
      return tvm_tir__raise_at("RuntimeError", call,
                               "tvm_mma_sync: fragment %lld of %s (operand %s) was never filled "
                               "or loaded (its contents are undefined on a GPU)",
                               (long long)args[2 * j + 1].lane[0].i, f[j].name, names[j]);
    sh[j] = e;
  }
  for (int j = 2; j < 4; ++j)
    if (sh[j]->m != sh[1]->m || sh[j]->n != sh[1]->n || sh[j]->k != sh[1]->k)
      return tvm_tir__raise_at("ValueError", call,
                               "tvm_mma_sync: operands of different shapes (%s is %dx%dx%d, %s "
                               "%dx%dx%d)",
                               f[1].name, sh[1]->m, sh[1]->n, sh[1]->k, f[j].name, sh[j]->m,
                               sh[j]->n, sh[j]->k);
  m = sh[1]->m;
  n = sh[1]->n;
  k = sh[1]->k;
  for (int j = 0; j < 4; ++j) {
    int64_t rows, cols;
    frag_dims(kinds[j], m, n, k, &rows, &cols);
    TRY(frag_addr(in, call, &f[j], &args[2 * j], &args[2 * j + 1], rows, cols, &p[j]));
  }
  double acc[256]; /* m * n <= 256 for every shape */
  int64_t eb[4];
  for (int j = 0; j < 4; ++j) eb[j] = tvm_tir__elem_bytes(f[j].dtype);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t jj = 0; jj < n; ++jj) {
      tir_lane x;
      tvm_tir__mem_read(f[3].dtype, p[3] + (i * n + jj) * eb[3], &x);
      double s = x.f;
      for (int64_t kk = 0; kk < k; ++kk) {
        tir_lane a, b;
        tvm_tir__mem_read(f[1].dtype, p[1] + (i * k + kk) * eb[1], &a);
        tvm_tir__mem_read(f[2].dtype, p[2] + (kk * n + jj) * eb[2], &b);
        s += a.f * b.f; /* float16 products are exact in double */
      }
      acc[i * n + jj] = s;
    }
  for (int64_t e = 0; e < m * n; ++e) {
    tir_lane v = {.f = acc[e]};
    v = tvm_tir__normalize(f[0].dtype, v);
    tvm_tir__mem_write(f[0].dtype, p[0] + e * eb[0], &v);
  }
  return shape_put(in, p[0], (int32_t)m, (int32_t)n, (int32_t)k);
}

int tvm_tir__wmma_run(tir_interp* in, const tvm_tir_call_obj* call, const tir_value* args) {
  int64_t na = tvm_tir_array_size(call->args);
  const void* op = call->op;
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_bmma_sync))
    return tvm_tir__raise_at("NotImplementedError", call,
                             "tvm_bmma_sync (1-bit tensor-core fragments) is not supported");
  int64_t want = tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_fill_fragment) ? 6 : 8;
  if (na != want)
    return tvm_tir__raise_at("TypeError", call, "%s takes %lld arguments, not %lld",
                             tvm_tir_op_name((const tvm_tir_op_obj*)op), (long long)want,
                             (long long)na);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_fill_fragment)) return fill(in, call, args);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_mma_sync)) return mma(in, call, args);
  return copy_matrix(in, call, args, tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_load_matrix_sync));
}

/*
 * loop_jumps.c: break and continue (upstream's builtins tir.break_loop / tir.continue_loop, each
 * the value of an Evaluate of its own). The facts passes need about them (which loop a jump
 * leaves; whether a function has any) and the well-formedness rule on where they may stand.
 *
 * Every walk here answers at once while nothing but the op registry holds a reference to either
 * op (tvm_tir__builtin_unused): then no IR anywhere contains one, and programs without them pay
 * nothing. The well-formedness rule runs a quick walk first, and the tracked one (paths for the
 * error) only when the quick one finds something.
 */
#include <string.h>
#include <tvm-private/tir.h>
#include <tvm/tir/visit.h>

#include "internal.h"

static bool jumps_unused(void) {
  return tvm_tir__builtin_unused(TVM_TIR_BUILTIN_break_loop) &&
         tvm_tir__builtin_unused(TVM_TIR_BUILTIN_continue_loop);
}

static unsigned call_jump(const void* e) {
  if (!TIR_IS(e, Call)) return 0;
  const void* op = ((const tvm_tir_call_obj*)e)->op;
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_break_loop)) return TVM_TIR__JUMP_BREAK;
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_continue_loop)) return TVM_TIR__JUMP_CONTINUE;
  return 0;
}

unsigned tvm_tir__stmt_jump(const void* stmt) {
  return TIR_IS(stmt, Evaluate) ? call_jump(((const tvm_tir_evaluate_obj*)stmt)->value) : 0;
}

/* ---- Which jumps a loop's body holds --------------------------------------------------------- */
typedef struct {
  unsigned found;
  bool nested; /* also inside nested loops */
} jump_search;

/* Statements only: a jump is an Evaluate (expressions hold none the checker accepts). */
static int find_pre(tvm_tir_visitor* v, const void* node) {
  jump_search* s = v->ctx;
  if (tvm_tir_is_expr(node)) return TVM_TIR_VISIT_SKIP;
  int k = tvm_tir_kind_of(node);
  if ((k == TVM_TIR_KIND_For || k == TVM_TIR_KIND_While) && !s->nested) return TVM_TIR_VISIT_SKIP;
  if (k == TVM_TIR_KIND_Evaluate) {
    s->found |= tvm_tir__stmt_jump(node);
    return TVM_TIR_VISIT_SKIP;
  }
  if (k < 0) return TVM_TIR_VISIT_CONTINUE; /* arrays (SeqStmt.seq), maps */
  /* Buffers, ranges, types: no statements below them. */
  return tvm_tir_is_stmt(node) ? TVM_TIR_VISIT_CONTINUE : TVM_TIR_VISIT_SKIP;
}

static unsigned search(const void* stmt, bool nested) {
  if (!stmt || jumps_unused()) return 0;
  jump_search s = {0, nested};
  tvm_tir_visitor v = {0};
  v.pre_default = find_pre;
  v.ctx = &s;
  /* (A walk stopped by depth finds less; answer "both", the safe side for every caller.) */
  if (tvm_tir_visit(&v, stmt) != 0) {
    tvm_ffi_error_clear();
    s.found = TVM_TIR__JUMP_BREAK | TVM_TIR__JUMP_CONTINUE;
  }
  tvm_tir_visitor_free(&v);
  return s.found;
}

unsigned tvm_tir__loop_jumps(const void* body) { return search(body, false); }
unsigned tvm_tir__any_jumps(const void* stmt) { return search(stmt, true); }

/* ---- Well-formedness ------------------------------------------------------------------------
 * A jump leaves the innermost enclosing For or While of its function. That loop must be a
 * while loop or a For of kind serial or unrolled (a parallel, vectorized or thread-bound loop
 * has no order of iterations to leave), and no thread launch or block may stand between the
 * two (a jump cannot leave a GPU kernel or a block's scope). A call of either op anywhere
 * but as an Evaluate's value is an error too. */
enum { CTX_LOOP, CTX_PARALLEL, CTX_VECTORIZED, CTX_THREAD, CTX_LAUNCH, CTX_BLOCK, CTX_NONE };

typedef struct {
  int* stack;
  int64_t n, cap;
} jump_check;

static int ctx_of(const void* node) {
  switch (tvm_tir_kind_of(node)) {
    case TVM_TIR_KIND_While:
      return CTX_LOOP;
    case TVM_TIR_KIND_For:
      switch (((const tvm_tir_for_obj*)node)->kind) {
        case TVM_TIR_FOR_PARALLEL:
          return CTX_PARALLEL;
        case TVM_TIR_FOR_VECTORIZED:
          return CTX_VECTORIZED;
        case TVM_TIR_FOR_THREAD_BINDING:
          return CTX_THREAD;
        default:
          return CTX_LOOP;
      }
    case TVM_TIR_KIND_AttrStmt:
      return tvm_tir__launch_tag(node, NULL) ? CTX_LAUNCH : -1;
    case TVM_TIR_KIND_SBlock:
      return CTX_BLOCK;
    default:
      return -1;
  }
}

static int fail(tvm_tir_visitor* v, const char* what, const char* why) {
  tvm_ffi_strbuf msg = {0};
  tvm_ffi_strbuf_printf(&msg, "well-formedness: %s %s at ", what, why);
  tvm_tir_visitor_path_format(v, &msg);
  tvm_ffi_raise("ValueError", "%s", tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return -1;
}

static int check_pre(tvm_tir_visitor* v, const void* node) {
  jump_check* c = v->ctx;
  if (TIR_IS(node, Evaluate)) {
    unsigned j = tvm_tir__stmt_jump(node);
    if (!j) return TVM_TIR_VISIT_CONTINUE;
    const char* what =
        j == TVM_TIR__JUMP_BREAK ? "`break` (tir.break_loop)" : "`continue` (tir.continue_loop)";
    static const char* const why[] = {
        [CTX_PARALLEL] =
            "in a parallel loop (only a serial or unrolled For or a while loop "
            "can be left early)",
        [CTX_VECTORIZED] =
            "in a vectorized loop (only a serial or unrolled For or a while "
            "loop can be left early)",
        [CTX_THREAD] =
            "in a thread-bound loop (only a serial or unrolled For or a while loop "
            "can be left early)",
        [CTX_LAUNCH] = "inside a GPU thread launch whose loop is outside it",
        [CTX_BLOCK] = "inside a block whose loop is outside it",
        [CTX_NONE] = "outside a loop",
    };
    int top = c->n > 0 ? c->stack[c->n - 1] : CTX_NONE;
    return top == CTX_LOOP ? TVM_TIR_VISIT_SKIP : fail(v, what, why[top]);
  }
  if (call_jump(node)) {
    return fail(v,
                tvm_tir_is_builtin(((const tvm_tir_call_obj*)node)->op, TVM_TIR_BUILTIN_break_loop)
                    ? "tir.break_loop"
                    : "tir.continue_loop",
                "used as a value (it is a statement: T.evaluate of it alone)");
  }
  int ctx = ctx_of(node);
  if (ctx < 0) return TVM_TIR_VISIT_CONTINUE;
  if (c->n == c->cap) {
    int64_t cap = c->cap ? 2 * c->cap : 16;
    int* p = tvm_ffi_realloc(c->stack, (size_t)cap * sizeof(int));
    if (!p) return tvm_ffi_raise("MemoryError", "out of memory");
    c->stack = p;
    c->cap = cap;
  }
  c->stack[c->n++] = ctx;
  return TVM_TIR_VISIT_CONTINUE;
}

static int check_post(tvm_tir_visitor* v, const void* node) {
  jump_check* c = v->ctx;
  if (ctx_of(node) >= 0) c->n--;
  return 0;
}

/* The check without paths, over the child tables (walk.c's way, not reflection per node): each
 * node sees the innermost context above it (ctx) instead of a stack. 0 when the rule holds; 1
 * when it may not (a violation, an object that is no libtir node or container, too deep), the
 * tracked walk below then deciding and locating the error. A Buffer or Var holds expressions
 * only, whose answer does not depend on ctx: one met again is not entered again. */
typedef struct {
  const tvm_tir__children* c;
  const void* walked[64]; /* Buffers and Vars checked, by address hash */
} quick_check;

static int quick(quick_check* q, const void* obj, int ctx, int64_t depth);

static int quick_any(quick_check* q, const TVMFFIAny* a, int ctx, int64_t depth) {
  if (!tvm_ffi_any_is_object(a) || a->type_index == kTVMFFIStr || a->type_index == kTVMFFIBytes) {
    return 0;
  }
  return quick(q, a->v_obj, ctx, depth);
}

static int quick(quick_check* q, const void* obj, int ctx, int64_t depth) {
  if (!obj) return 0;
  if (depth > TVM_FFI_STRUCTURAL_MAX_DEPTH) return 1;
  tvm_tir_kind k = tir_kind_of(obj);
  if (k < 0) {
    int32_t t = tvm_ffi_type_index(obj);
    if (t == kTVMFFIArray || t == kTVMFFIList) {
      int64_t n = tvm_ffi_seq_size(obj);
      const TVMFFIAny* items = tvm_ffi_seq_data(obj);
      for (int64_t i = 0; i < n; ++i) {
        if (quick_any(q, &items[i], ctx, depth + 1)) return 1;
      }
      return 0;
    }
    if (t == kTVMFFIMap || t == kTVMFFIDict) { /* values, as tvm_tir_visit */
      const TVMFFIAny *key, *val;
      for (int64_t pos = 0; (pos = tvm_ffi_map_next(obj, pos, &key, &val)) >= 0;) {
        if (quick_any(q, val, ctx, depth + 1)) return 1;
      }
      return 0;
    }
    return t == kTVMFFIStr || t == kTVMFFIBytes ? 0 : 1;
  }
  if (k == TVM_TIR_KIND_Evaluate) {
    unsigned j = tvm_tir__stmt_jump(obj);
    if (j) return ctx != CTX_LOOP;
  } else if (call_jump(obj)) {
    return 1;
  }
  const void** slot = NULL;
  if (k == TVM_TIR_KIND_Buffer || k == TVM_TIR_KIND_Var) {
    slot = &q->walked[(((uintptr_t)obj >> 4) * UINT64_C(0x9E3779B97F4A7C15)) >> 58];
    if (*slot == obj) return 0;
  }
  int inner = ctx_of(obj);
  if (inner < 0) inner = ctx;
  const tvm_tir__children* c = q->c;
  for (int32_t i = c->start[k], end = c->start[k + 1]; i < end; ++i) {
    const char* addr = (const char*)obj + c->f[i].offset;
    int r = c->f[i].type == kTVMFFIAny ? quick_any(q, (const TVMFFIAny*)addr, inner, depth + 1)
            : c->f[i].type == kTVMFFIStr || c->f[i].type == kTVMFFIBytes
                ? 0
                : quick(q, *(void* const*)addr, inner, depth + 1);
    if (r) return 1;
  }
  if (slot) *slot = obj;
  return 0;
}

int tvm_tir__verify_jumps(const void* func) {
  if (jumps_unused()) return 0;
  quick_check q = {tvm_tir__children_get(), {NULL}};
  if (q.c && quick(&q, func, CTX_NONE, 0) == 0) return 0;
  jump_check c = {0};
  tvm_tir_visitor v = {0};
  v.pre_default = check_pre;
  v.post_default = check_post;
  v.ctx = &c;
  int rc = tvm_tir_visit(&v, func);
  tvm_tir_visitor_free(&v);
  tvm_ffi_free(c.stack);
  return rc;
}

/*
 * loop_jumps.c: break and continue (upstream's builtins tir.break_loop / tir.continue_loop, each
 * the value of an Evaluate of its own). The facts passes need about them (which loop a jump
 * leaves; whether a function has any) and the well-formedness rule on where they may stand.
 *
 * Every walk here answers at once while nothing but the op registry holds a reference to either
 * op (tvm_tir__builtin_unused): then no IR anywhere contains one, and programs without them pay
 * nothing.
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

int tvm_tir__verify_jumps(const void* func) {
  if (jumps_unused()) return 0;
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

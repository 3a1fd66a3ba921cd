/*
 * tvm/tir/stmt.h: statements (spec grammar: Stmt) and their constructors, which enforce the
 * spec's "Typing Rules for Statements" (TypeError naming the rule, e.g. S-FOR).
 *
 * All arguments are borrowed; results are new references (NULL + error on failure). Array
 * arguments are ffi.Array objects (NULL = empty), map arguments ffi.Map objects (NULL = empty).
 */
#ifndef TVM_TIR_STMT_H_
#define TVM_TIR_STMT_H_

#include <tvm/tir/buffer.h>
#include <tvm/tir/expr.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* Upstream's ForKind values. */
typedef enum {
  TVM_TIR_FOR_SERIAL = 0,
  TVM_TIR_FOR_PARALLEL = 1,
  TVM_TIR_FOR_VECTORIZED = 2,
  TVM_TIR_FOR_UNROLLED = 3,
  TVM_TIR_FOR_THREAD_BINDING = 4
} tvm_tir_for_kind;

/* tir.LetStmt: var (definition site) bound to value in body. */
struct tvm_tir_let_stmt_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_var_obj* var;
  tvm_tir_expr_obj* value;
  tvm_tir_stmt_obj* body;
};
/* tir.AttrStmt: node is any value (usually a Var or IterVar). */
struct tvm_tir_attr_stmt_obj {
  tvm_tir_stmt_obj stmt;
  TVMFFIAny node;
  void* attr_key; /* ffi.String */
  tvm_tir_expr_obj* value;
  tvm_tir_stmt_obj* body;
};
/* tir.AssertStmt: message is a StringImm or an int32 PrimExpr. kind (upstream's newer field) is
 * the error kind a failure raises ("ValueError", ...; NULL: AssertionError, the spec's); with a
 * kind the message is a StringImm (upstream's message parts, joined). */
struct tvm_tir_assert_stmt_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_expr_obj* condition;
  tvm_tir_expr_obj* message;
  tvm_tir_stmt_obj* body;
  tvm_tir_string_imm_obj* kind;
};
/* tir.BufferStore: indices is an ffi.Array of PrimExpr. */
struct tvm_tir_buffer_store_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_buffer_obj* buffer;
  tvm_tir_expr_obj* value;
  void* indices;
};
/* tir.BufferRealize: bounds is an ffi.Array of Range. */
struct tvm_tir_buffer_realize_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_buffer_obj* buffer;
  void* bounds;
  tvm_tir_expr_obj* condition;
  tvm_tir_stmt_obj* body;
};
/* tir.Allocate: buffer_var (definition site) points to extents of dtype. */
struct tvm_tir_allocate_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_var_obj* buffer_var;
  DLDataType dtype;
  void* extents; /* ffi.Array of PrimExpr */
  tvm_tir_expr_obj* condition;
  tvm_tir_stmt_obj* body;
  void* annotations; /* ffi.Map<String, Any> */
};
/* tir.DeclBuffer */
struct tvm_tir_decl_buffer_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_buffer_obj* buffer;
  tvm_tir_stmt_obj* body;
};
/* tir.SeqStmt: seq is an ffi.Array of Stmt. */
struct tvm_tir_seq_stmt_obj {
  tvm_tir_stmt_obj stmt;
  void* seq;
};
/* tir.IfThenElse: else_case optional. */
struct tvm_tir_if_then_else_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_expr_obj* condition;
  tvm_tir_stmt_obj* then_case;
  tvm_tir_stmt_obj* else_case;
};
/* tir.Evaluate */
struct tvm_tir_evaluate_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_expr_obj* value;
};
/* tir.For: loop_var (definition site) over [min, min + extent). thread_binding optional. */
struct tvm_tir_for_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_var_obj* loop_var;
  tvm_tir_expr_obj* min;
  tvm_tir_expr_obj* extent;
  int32_t kind; /* tvm_tir_for_kind */
  tvm_tir_stmt_obj* body;
  tvm_tir_iter_var_obj* thread_binding;
  void* annotations; /* ffi.Map<String, Any> */
};
/* tir.While */
struct tvm_tir_while_obj {
  tvm_tir_stmt_obj stmt;
  tvm_tir_expr_obj* condition;
  tvm_tir_stmt_obj* body;
};
/* tir.SBlock (the spec's Block). iter_vars are definition sites; name_hint is ignored by
 * structural equality; init optional. */
struct tvm_tir_sblock_obj {
  tvm_tir_stmt_obj stmt;
  void* iter_vars;     /* ffi.Array of IterVar */
  void* reads;         /* ffi.Array of BufferRegion */
  void* writes;        /* ffi.Array of BufferRegion */
  void* name_hint;     /* ffi.String */
  void* alloc_buffers; /* ffi.Array of Buffer */
  void* match_buffers; /* ffi.Array of MatchBufferRegion */
  void* annotations;   /* ffi.Map<String, Any> */
  tvm_tir_stmt_obj* init;
  tvm_tir_stmt_obj* body;
};
/* tir.SBlockRealize (the spec's BlockRealize). */
struct tvm_tir_sblock_realize_obj {
  tvm_tir_stmt_obj stmt;
  void* iter_values; /* ffi.Array of PrimExpr */
  tvm_tir_expr_obj* predicate;
  tvm_tir_sblock_obj* block;
};

/* ---- Constructors -------------------------------------------------------------------------- */
/* S-LETSTMT */
tvm_tir_stmt_obj* tvm_tir_let_stmt_new(tvm_tir_var_obj* var, tvm_tir_expr_obj* value,
                                       tvm_tir_stmt_obj* body);
/* node: any value (NULL = None); attr_key NULL = "". */
tvm_tir_stmt_obj* tvm_tir_attr_stmt_new(const TVMFFIAny* node, const char* attr_key,
                                        tvm_tir_expr_obj* value, tvm_tir_stmt_obj* body);
/* S-ASSERT */
tvm_tir_stmt_obj* tvm_tir_assert_stmt_new(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* message,
                                          tvm_tir_stmt_obj* body);
/* The same with an error kind (NULL: none, as above; else a non-empty StringImm, and message
 * must be a StringImm). */
tvm_tir_stmt_obj* tvm_tir_assert_stmt_new_kind(tvm_tir_expr_obj* condition,
                                               tvm_tir_string_imm_obj* kind,
                                               tvm_tir_expr_obj* message, tvm_tir_stmt_obj* body);
/* The error kind a failure of assert `a` raises: its kind, else "AssertionError". */
const char* tvm_tir_assert_stmt_kind(const tvm_tir_assert_stmt_obj* a);
/* S-BUFFERSTORE */
tvm_tir_stmt_obj* tvm_tir_buffer_store_new(tvm_tir_buffer_obj* buffer, tvm_tir_expr_obj* value,
                                           void* indices);
/* S-BUFFERREALIZE: condition NULL = true. */
tvm_tir_stmt_obj* tvm_tir_buffer_realize_new(tvm_tir_buffer_obj* buffer, void* bounds,
                                             tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* body);
/* S-ALLOCATE: condition NULL = true. */
tvm_tir_stmt_obj* tvm_tir_allocate_new(tvm_tir_var_obj* buffer_var, DLDataType dtype, void* extents,
                                       tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* body,
                                       void* annotations);
tvm_tir_stmt_obj* tvm_tir_decl_buffer_new(tvm_tir_buffer_obj* buffer, tvm_tir_stmt_obj* body);
/* Every element a Stmt (S8: always valid otherwise). Kept as given: no flattening (see
 * tvm_tir_seq_takev in builder.h). */
tvm_tir_stmt_obj* tvm_tir_seq_stmt_new(void* seq);
/* S-IF: else_case NULL = none. */
tvm_tir_stmt_obj* tvm_tir_if_then_else_new(tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* then_case,
                                           tvm_tir_stmt_obj* else_case);
tvm_tir_stmt_obj* tvm_tir_evaluate_new(tvm_tir_expr_obj* value);
/* S-FOR: IntImm min/extent narrower than loop_var are promoted to its dtype (the stored node
 * holds the promoted IntImm). thread_binding NULL = none. */
tvm_tir_stmt_obj* tvm_tir_for_new(tvm_tir_var_obj* loop_var, tvm_tir_expr_obj* min,
                                  tvm_tir_expr_obj* extent, tvm_tir_for_kind kind,
                                  tvm_tir_stmt_obj* body, tvm_tir_iter_var_obj* thread_binding,
                                  void* annotations);
/* S-WHILE */
tvm_tir_stmt_obj* tvm_tir_while_new(tvm_tir_expr_obj* condition, tvm_tir_stmt_obj* body);

/* Arguments of tvm_tir_sblock_new; zero-initialise and set what you need. */
typedef struct {
  void* iter_vars;        /* ffi.Array of IterVar, NULL = none */
  void* reads;            /* ffi.Array of BufferRegion, NULL = none */
  void* writes;           /* ffi.Array of BufferRegion, NULL = none */
  const char* name_hint;  /* NULL = "" */
  tvm_tir_stmt_obj* body; /* required */
  tvm_tir_stmt_obj* init; /* optional */
  void* alloc_buffers;    /* ffi.Array of Buffer, NULL = none */
  void* match_buffers;    /* ffi.Array of MatchBufferRegion, NULL = none */
  void* annotations;      /* ffi.Map<String, Any>, NULL = empty */
} tvm_tir_sblock_fields;
/* S-BLOCK */
tvm_tir_sblock_obj* tvm_tir_sblock_new(const tvm_tir_sblock_fields* fields);
/* S-BLOCKREALIZE: predicate NULL = true. */
tvm_tir_stmt_obj* tvm_tir_sblock_realize_new(void* iter_values, tvm_tir_expr_obj* predicate,
                                             tvm_tir_sblock_obj* block);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_STMT_H_ */

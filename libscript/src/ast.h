/*
 * ast.h: the parser's syntax tree of TVMScript's Python subset, and what it points at: the
 * interned identifiers and the arena that holds them all.
 *
 * Memory. Everything one parse makes (nodes, sequences, identifiers, decoded string literals)
 * is bump-allocated in one arena and freed all at once when the parse is done (as CPython's
 * parser uses its PyArena): nodes hold plain pointers, no reference counts, and a node may be
 * shared (the target of `x += 1` is also the left operand of its addition). A node never
 * changes once made.
 *
 * Identifiers. Every identifier is interned once per parse in a table (script_names): one
 * lookup gives the unique script_name of its text and tells whether it is a keyword (the
 * keywords are the names whose `token` is not TVM_SCRIPT_TOK_NAME), as Lua's luaS_newlstr and
 * its reserved-word mark do. The lexer interns each word it reads; the parser's NAME nodes
 * point at the name, so two uses of a name are the same pointer. A name also carries the
 * semantic parser's state of it during the parse: its current binding in the variable table
 * (a symbol table entry, as in a classic compiler) and its ffi.String, made on first use.
 *
 * The tree mirrors Python's ast where TVMScript needs it:
 *   expressions  AST_NAME, AST_CONST (int, float, bool, None), AST_STR, AST_ATTR (value.name),
 *                AST_CALL (positional args, `*x` as AST_STARRED among them, keyword args),
 *                AST_SUBSCRIPT (value[indices], AST_SLICE among the indices), AST_TUPLE,
 *                AST_LIST, AST_DICT, AST_OP (unary, binary, boolean and comparison operators and
 *                `x if c else y`, by tvm_script_op_kind: `a < b < c` is (a < b) and (b < c),
 *                sharing b), AST_LAMBDA.
 *   statements   AST_EXPR_STMT, AST_ASSIGN (`x = v`, `a, b = v`, `x: T = v`, `x: T`, and
 *                `x op= v` as `x = x op v` with aug_op set), AST_IF (elif: an AST_IF alone in
 *                the else branch), AST_FOR, AST_WHILE, AST_WITH (one item; `with a, b:` nests),
 *                AST_RETURN, AST_ASSERT, AST_DEF, AST_CLASS (each with its decorators),
 *                AST_DOCSTRING (a string first in a def or class body), AST_BREAK,
 *                AST_CONTINUE (no fields).
 * `pass` makes no node (an empty body is a pass). `break` and `continue` have no kind: the
 * front end rejects them, as every other construct TVMScript does not support (parser.h lists
 * them), with a SyntaxError at the construct; a dialect that gives them a meaning adds a kind
 * here and a case in parse_small_stmt (parse.c).
 */
#ifndef TVM_SCRIPT_AST_H_
#define TVM_SCRIPT_AST_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tvm/ffi/ffi.h>
#include <tvm/script/doc.h> /* tvm_script_span, tvm_script_op_kind */

/* ---- The arena -------------------------------------------------------------------------- */
typedef struct script_chunk script_chunk;
typedef struct {
  char* cur;           /* the next free byte of the newest chunk */
  char* end;           /* its end */
  script_chunk* chunk; /* the newest chunk; each links to the one before */
  size_t next_size;    /* the size of the next chunk (they double) */
} script_arena;

/* An empty arena whose first chunk will have about `first` bytes. */
void tvm_script__arena_init(script_arena* a, size_t first);
/* tvm_script__arena_alloc when the newest chunk has no room. */
void* tvm_script__arena_grow(script_arena* a, size_t size);
/* size bytes (8-aligned, not initialised), or NULL with a MemoryError raised. */
static inline void* tvm_script__arena_alloc(script_arena* a, size_t size) {
  size = (size + 7) & ~(size_t)7;
  if ((size_t)(a->end - a->cur) < size) return tvm_script__arena_grow(a, size);
  void* p = a->cur;
  a->cur += size;
  return p;
}
/* A copy of s[0, n) followed by a NUL, or NULL with a MemoryError raised. */
char* tvm_script__arena_strdup(script_arena* a, const char* s, size_t n);
/* Frees every chunk; the arena is empty again. */
void tvm_script__arena_free(script_arena* a);

/* ---- Interned identifiers --------------------------------------------------------------- */
typedef struct script_name {
  uint64_t word;      /* the first 8 bytes of the text, zero padded (the table's quick compare) */
  uint32_t size;      /* bytes of the text */
  uint32_t hash;      /* tvm_script__name_hash of the text */
  int32_t token;      /* TVM_SCRIPT_TOK_NAME, or the keyword's token kind */
  /* The semantic parser's state of the name during the parse (parse_eval.h). */
  int32_t binding;    /* its innermost binding in the variable table; -1: unbound */
  void* str;          /* its ffi.String (tvm_script__name_string), released with the table */
  /* What `<module>.<name>` resolves to, remembered by the evaluator the first time it looks
   * the name up as a builtin of `module` (a script_special*; NULL: not looked up yet). */
  const void* builtin_module;
  const void* builtin; /* const tvm_script_builtin* */
  DLDataType builtin_dtype;
  bool builtin_has_dtype;
  /* Relax: last bound in a dataflow block that R.output did not name (for the NameError of a
   * use after the block). */
  bool relax_df_local;
  struct script_name* next; /* the name interned before it */
  char text[];        /* the name, NUL terminated */
} script_name;

typedef struct {
  script_name** slots; /* open addressing, linear probing, at most half full; NULL: empty */
  uint32_t cap;        /* a power of two */
  uint32_t count;
  script_name* first;  /* the newest name (they are chained by `next`) */
  script_arena* arena; /* where names and the slots live */
} script_names;

/* A table of cap slots (a power of two, at least 16), in arena. 0, or -1 + MemoryError. */
int tvm_script__names_init(script_names* t, script_arena* arena, uint32_t cap);
/* Releases the names' Strings (the memory is the arena's). */
void tvm_script__names_free(script_names* t);

/* The hash of a name from two words of its text: for up to 8 bytes the bytes, zero padded, and
 * 0; for more, its first and its last 8 bytes. */
static inline uint32_t tvm_script__name_hash(uint64_t k0, uint64_t k1, uint64_t n) {
  return (uint32_t)(((k0 ^ (k1 * UINT64_C(0xC2B2AE3D27D4EB4F)) ^ n) *
                     UINT64_C(0x9E3779B97F4A7C15)) >> 32);
}

/* The words of s[0, n) for the hash (`avail` bytes are readable from s on, n <= avail): one
 * load of 8 bytes, masked, where the text has them. */
static inline void tvm_script__name_words(const char* s, size_t n, size_t avail, uint64_t* k0,
                                          uint64_t* k1) {
  *k1 = 0;
  if (n > 8) {
    memcpy(k0, s, 8);
    memcpy(k1, s + n - 8, 8);
  } else if (avail >= 8) {
    memcpy(k0, s, 8);
    *k0 &= n == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * n)) - 1;
  } else {
    *k0 = 0;
    memcpy(k0, s, n);
  }
}

/* tvm_script__intern for a name the table does not hold yet. */
script_name* tvm_script__intern_new(script_names* t, const char* s, size_t n, uint64_t k0,
                                    uint32_t h);

/* The name spelled s[0, n) (n >= 1; `avail` bytes readable from s on), interned: the same
 * script_name for the same text; its `token` tells a keyword. NULL + MemoryError. */
static inline script_name* tvm_script__intern(script_names* t, const char* s, size_t n,
                                              size_t avail) {
  uint64_t k0, k1;
  tvm_script__name_words(s, n, avail, &k0, &k1);
  uint32_t h = tvm_script__name_hash(k0, k1, n);
  for (uint32_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    script_name* e = t->slots[i];
    if (!e) break;
    /* Up to 8 bytes, equal words and sizes are equal names (a name has no NUL byte). */
    if (e->hash == h && e->word == k0 && e->size == n &&
        (n <= 8 || memcmp(e->text + 8, s + 8, n - 8) == 0)) {
      return e;
    }
  }
  return tvm_script__intern_new(t, s, n, k0, h);
}
/* tvm_script__intern of a NUL-terminated name. */
static inline script_name* tvm_script__intern_cstr(script_names* t, const char* s) {
  size_t n = strlen(s);
  return tvm_script__intern(t, s, n, n);
}

/* The name's ffi.String (borrowed: the table holds it until tvm_script__names_free), or NULL +
 * MemoryError. */
static inline void* tvm_script__name_string(script_name* n) {
  if (!n->str) n->str = tvm_ffi_str_obj(n->text, n->size);
  return n->str;
}

/* ---- Nodes ------------------------------------------------------------------------------ */
/* The kinds (statements with the words messages use for them). */
#define TVM_SCRIPT_AST_EXPRS(X)                                                               \
  X(NAME) X(CONST) X(STR) X(ATTR) X(CALL) X(SUBSCRIPT) X(SLICE) X(STARRED) X(TUPLE) X(LIST)   \
  X(DICT) X(OP) X(LAMBDA)
#define TVM_SCRIPT_AST_STMTS(X)                                                             \
  X(EXPR_STMT, "expression statement") X(ASSIGN, "assignment") X(IF, "if") X(FOR, "for")  \
  X(WHILE, "while") X(WITH, "with") X(RETURN, "return") X(ASSERT, "assert") X(DEF, "def") \
  X(CLASS, "class") X(DOCSTRING, "docstring") X(BREAK, "break") X(CONTINUE, "continue")

#define TVM_SCRIPT_AST_X(k) AST_##k,
typedef enum { TVM_SCRIPT_AST_EXPRS(TVM_SCRIPT_AST_X) AST_EXPR_COUNT } ast_expr_kind;
#undef TVM_SCRIPT_AST_X
#define TVM_SCRIPT_AST_X(k, s) AST_##k,
typedef enum { TVM_SCRIPT_AST_STMTS(TVM_SCRIPT_AST_X) AST_STMT_COUNT } ast_stmt_kind;
#undef TVM_SCRIPT_AST_X
const char* tvm_script__ast_stmt_kind_name(int kind);

typedef struct ast_expr ast_expr;
typedef struct ast_stmt ast_stmt;
/* A sequence: n items (items NULL when n is 0). */
typedef struct {
  int32_t n;
  ast_expr** items;
} ast_exprs;
typedef struct {
  int32_t n;
  ast_stmt** items;
} ast_stmts;

struct ast_expr {
  tvm_script_span span; /* for a parenthesised expression, what is inside the parentheses */
  int32_t kind;         /* ast_expr_kind */
  union {
    script_name* name; /* NAME */
    TVMFFIAny value;   /* CONST: an int, float, bool or None (no object) */
    struct {
      const char* data; /* the decoded bytes: a view of the source, or a copy in the arena */
      size_t size;
    } str; /* STR (adjacent literals joined) */
    struct {
      ast_expr* value;
      script_name* name;
    } attr;
    struct {
      ast_expr* func;
      ast_exprs args;          /* positional, `*x` (STARRED) among them in place */
      ast_exprs kw_values;     /* keyword arguments' values, */
      script_name** kw_names;  /* and names (kw_values.n of them) */
    } call;
    struct {
      ast_expr* value;
      ast_exprs indices; /* a[i, j]: two; a[(i, j)] and a[i,]: one TUPLE */
    } subscript;
    struct {
      ast_expr *start, *stop, *step; /* each NULL when absent */
    } slice;
    ast_expr* starred; /* STARRED: the value */
    ast_exprs elts;    /* TUPLE, LIST */
    struct {
      ast_exprs keys, values;
    } dict;
    struct {
      int32_t op;        /* tvm_script_op_kind */
      ast_expr* args[3]; /* tvm_script_op_arity(op) of them; IfThenElse: then, cond, else */
    } op;
    struct {
      ast_exprs params; /* NAMEs */
      ast_expr* body;
    } lambda;
  } u;
};

/* A parameter of a def: `name: annotation = default_value` (both optional). */
typedef struct {
  tvm_script_span span;
  ast_expr* name; /* a NAME */
  ast_expr* annotation;
  ast_expr* default_value;
} ast_arg;

struct ast_stmt {
  tvm_script_span span;
  int32_t kind; /* ast_stmt_kind */
  union {
    ast_expr* expr; /* EXPR_STMT */
    struct {
      ast_expr* target;     /* a NAME, ATTR, SUBSCRIPT, or a TUPLE / LIST of targets */
      ast_expr* value;      /* NULL for `x: T` */
      ast_expr* annotation; /* NULL when not annotated */
      int32_t aug_op;       /* `x op= v`: op (value is then `x op v`, sharing x); else 0 */
    } assign;
    struct {
      ast_expr* test;
      ast_stmts body, orelse;
    } if_;
    struct {
      ast_expr* target;
      ast_expr* iter;
      ast_stmts body;
    } for_;
    struct {
      ast_expr* test;
      ast_stmts body;
    } while_;
    struct {
      ast_expr* context;
      ast_expr* target; /* `as` target, or NULL */
      ast_stmts body;
    } with;
    ast_expr* ret; /* RETURN: the value, or NULL */
    struct {
      ast_expr* test;
      ast_expr* msg; /* or NULL */
    } assert_;
    struct {
      ast_expr* name; /* a NAME */
      int32_t nargs;
      ast_arg** args;
      ast_exprs decorators;
      ast_expr* returns; /* `-> T`, or NULL */
      ast_stmts body;
    } def;
    struct {
      ast_expr* name; /* a NAME */
      ast_exprs decorators;
      ast_stmts body;
    } cls;
    struct {
      const char* data; /* NUL terminated, no NUL inside */
      size_t size;
    } docstring;
  } u;
};

/* A header import `from tvm.script import <mod> as <alias>`: byte ranges of the source. */
typedef struct {
  uint32_t alias, alias_n, mod, mod_n;
} tvm_script__import;

/* One parsed file: its statements and header imports, and the arena and names they live in. */
typedef struct {
  ast_stmts body;
  tvm_script_span span; /* the whole text */
  tvm_script__import* imports;
  size_t num_imports;
  script_arena arena;
  script_names names;
} ast_module;

/* Parse source[0, len) (filename for messages; NULL: "<string>") into *out. 0, or -1 with one
 * SyntaxError raised (then nothing is left to free). Free a parsed module with
 * tvm_script__ast_free. (parse.c) */
int tvm_script__parse_ast(const char* source, size_t len, const char* filename, ast_module* out);
void tvm_script__ast_free(ast_module* m);

/* The Doc tree of a parsed module: a new StmtBlockDoc, or NULL + error (ast_doc.c). */
void* tvm_script__ast_to_doc(const ast_module* m);

#endif /* TVM_SCRIPT_AST_H_ */

/*
 * parse_eval.h: what the semantic half of the TVMScript parser shares between its files:
 *   parse_eval.c       values and the expression evaluator;
 *   parse_vartable.c   the variable table;
 *   parse_subscript.c  subscripts (loads, regions, element access) and buffer stores;
 *   parse_stmt.c       the statement handlers of TIR;
 *   parse_func.c       decorators, functions, modules, fragments, the dispatch table and
 *                      tvm_script_parse.
 *
 * Errors. Every function here that fails returns -1 (or NULL) with ONE error raised whose
 * message is already rendered at a source span (tvm_script_diag_render). Errors coming from
 * libtir, the IR builder or a builtin carry no location: the caller that made that call
 * relocates them (tvm_script__relocate) at the doc that caused them, keeping their kind.
 */
#ifndef TVM_SCRIPT_PARSE_EVAL_H_
#define TVM_SCRIPT_PARSE_EVAL_H_

#include <tvm/script/doc.h>
#include <tvm/script/lexer.h>
#include <tvm/tir/tir.h>

#include "parse_doc_internal.h"
#include "parse_internal.h"

typedef tvm_script_doc_obj script_doc;

/* ---- Dialect tokens and the statement dispatch table ---------------------------------------- */
/* The decorator of a definition picks the token; handlers are looked up by (token, doc kind),
 * falling back to the default token. */
typedef enum {
  SCRIPT_TOKEN_DEFAULT = 0,
  SCRIPT_TOKEN_IR,
  SCRIPT_TOKEN_TIRX,
  SCRIPT_TOKEN_RELAX,
  SCRIPT_TOKEN_COUNT
} script_token;

typedef struct script_parser script_parser;
typedef int (*script_stmt_handler)(script_parser* p, const script_doc* stmt);

/* Install a handler (at start-up, before any parse; not thread-safe). NULL removes it. */
void tvm_script__register_handler(script_token token, tvm_script_doc_kind kind, script_stmt_handler fn);
/* The handlers of the built-in dialects (parse_stmt.c), installed once by tvm_script_parse. */
void tvm_script__register_tir_handlers(void);

/* ---- The variable table -----------------------------------------------------------------------
 */
/* Names map to owned values; scopes (function, for/with body, if branch) undo their bindings
 * when popped, so shadowing restores the outer value. Open addressing over interned name slots
 * plus an undo log: a lookup hashes the name once and allocates nothing. */
typedef struct {
  const char* name; /* not owned: points into a doc's string, or a static string */
  uint32_t size, hash;
  int32_t top; /* index of the innermost binding in binds, -1 = unbound */
} script_vt_slot;
typedef struct {
  TVMFFIAny value;
  int32_t slot, prev;
} script_vt_binding;
/* The slot where a name was last found, by the address of its text (direct-mapped by that
 * address): the front end interns identifiers, so a name read again is the same text at the
 * same address, and a hint lets a lookup skip hashing it. */
#define SCRIPT_VT_HINTS 64 /* (a power of two: script__vt_lookup takes 6 bits of a hash) */
/* The first storage of a table, given by its owner (tvm_script_parse: a per-thread one, or one
 * in its frame for a parse nested in another): a small file binds a few dozen names, so a parse
 * needs no malloc + free for its table. Larger tables move to the heap. The slots a table names
 * in it are listed (at most half of them are named before the table moves: tvm_script__vt_bind), so
 * that tvm_script__vt_free empties just those and leaves the storage clean for the next table: a
 * tiny parse names a handful of its 64 slots, and clearing all of them was most of its setup. */
enum { SCRIPT_VT_SLOTS = 64, SCRIPT_VT_BINDS = 64, SCRIPT_VT_SCOPES = 16 };
typedef struct {
  script_vt_slot slots[SCRIPT_VT_SLOTS];
  script_vt_binding binds[SCRIPT_VT_BINDS];
  int32_t scopes[SCRIPT_VT_SCOPES];
  uint8_t named[SCRIPT_VT_SLOTS / 2]; /* the slots named in slots[], num_named of them */
  int32_t num_named;
} script_vt_storage;
typedef struct {
  script_vt_storage* store; /* the owner's storage; slots, binds, scopes start in it */
  script_vt_slot* slots;
  uint32_t cap, used;
  uint32_t hints[SCRIPT_VT_HINTS];
  script_vt_binding* binds;
  int32_t nbinds, cap_binds;
  int32_t* scopes;
  int32_t nscopes, cap_scopes;
} script_var_table;

/* ---- Parser state -------------------------------------------------------------------------------
 */
/* Deepest expression evaluated (a left-deep operator chain counts one level per operator). */
#define SCRIPT_MAX_EVAL_DEPTH 1000

/* An import alias of a TVMScript module (`T` for tirx), read once per parse from the header's
 * imports (tvm_script__init_aliases): every `T.x` resolves its root name, and a scan of one or two
 * entries costs a fraction of a hashed ffi.Map lookup. */
#define SCRIPT_MAX_ALIASES 8
typedef struct {
  const char* name; /* in the source, or the imports map's key (both outlive the parse) */
  uint32_t size;
  const void* module; /* const script_special* */
} script_alias;

struct script_parser {
  /* (tvm_script_parse zeroes the fields before vt; tvm_script__vt_init sets up vt, and
   * tvm_script__init_aliases the aliases.) */
  const char* src;
  size_t len;
  const char* filename;
  tvm_script_builder* b;
  /* ffi.Map alias -> module name (borrowed), only for a header of more imports than
   * SCRIPT_MAX_ALIASES; else NULL and tvm_script__init_aliases lists them from the front end's list */
  const void* imports;
  const void* extra_vars; /* ffi.Map<String, Any> or NULL (borrowed) */
  script_token token;
  int func_depth; /* > 0 inside a function body */
  bool check_wf;  /* options' check_well_formed */
  bool fragment;  /* statements outside any definition (a printed fragment) */
  int eval_depth; /* nesting of tvm_script__eval (bounded by SCRIPT_MAX_EVAL_DEPTH) */
  /* The statements holding the functions of the module being parsed (a class body, or the
   * file's top level for several functions), to find a callee's return type; else NULL. */
  const void* module_defs;
  /* Root names of `T.x` resolved to a module without a variable binding, by the name's string
   * object: valid while the name's slot in the variable table stays empty (see
   * tvm_script__vt_lookup_slot), as everything else a root resolves by is fixed for the parse. */
  struct {
    const void* name; /* ffi.String, NULL = empty */
    uint32_t slot, cap;
    const void* module; /* const script_special* */
  } root_cache[4];
  script_var_table vt;
  /* The imports that name a TVMScript module; num_aliases -1 when there were too many to list
   * (resolve_name then asks the map). has_imports: the map is not empty. */
  int num_aliases;
  bool has_imports;
  script_alias aliases[SCRIPT_MAX_ALIASES];
};

/* Fill p->aliases (before any evaluation): from p->imports when set, else from the header's
 * imports list[0..n) (n <= SCRIPT_MAX_ALIASES, byte ranges of p->src). */
void tvm_script__init_aliases(script_parser* p, const tvm_script__import* list, size_t n);

/* store (not owned) must outlive the table; its contents need no initialisation. */
/* A table in store, whose slots are all empty when clean (a storage that a table was freed
 * from, or a zeroed one), else emptied here. */
int tvm_script__vt_init(script_var_table* vt, script_vt_storage* store, bool clean);
/* Release the values and heap storage, and leave the first storage clean. */
void tvm_script__vt_free(script_var_table* vt);
int tvm_script__vt_push_scope(script_var_table* vt);
void tvm_script__vt_pop_scope(script_var_table* vt);
/* Bind name[0..size) to value (moved; *value becomes None). -1 only on OOM (raised, unlocated). */
int tvm_script__vt_bind(script_var_table* vt, const char* name, uint32_t size, TVMFFIAny* value);
/* The innermost binding's value (borrowed), or NULL. */
const TVMFFIAny* tvm_script__vt_lookup_hashed(script_var_table* vt, const char* name, uint32_t size);
static inline const TVMFFIAny* script__vt_lookup(script_var_table* vt, const char* name,
                                                 uint32_t size) {
  /* The slot where this text (by address: identifiers are interned) was found last: a slot
   * holding this very text (same address and size) is the name's slot, a name having a single
   * one. Hints are slot indices below the capacity, which only grows; a stale one (another
   * name's, or from before a growth moved the slots) fails the test and the name is hashed. */
  uint32_t hint = vt->hints[((uintptr_t)name * UINT64_C(0x9E3779B97F4A7C15)) >> 58];
  const script_vt_slot* s = &vt->slots[hint];
  if (!name || s->name != name || s->size != size) return tvm_script__vt_lookup_hashed(vt, name, size);
  return s->top >= 0 ? &vt->binds[s->top].value : NULL;
}
/* script__vt_lookup; *empty_slot: when the name was never bound, the empty slot its lookup
 * stopped at (a later lookup stops there too while that slot stays empty and the table keeps
 * its capacity: slots are never emptied), else UINT32_MAX. */
const TVMFFIAny* tvm_script__vt_lookup_slot(const script_var_table* vt, const char* name,
                                        uint32_t size, uint32_t* empty_slot);
/* Whether some visible name is bound to the object (a linear scan: for rare questions only). */
bool tvm_script__vt_holds(const script_var_table* vt, const void* obj);

/* ---- Special values ---------------------------------------------------------------------------
 */
/* Values with no FFI type are opaque pointers to these static markers. */
typedef enum {
  SCRIPT_SPECIAL_MODULE, /* an imported TVMScript module (T, I, R): name = "tirx"/"ir"/"relax" */
  SCRIPT_SPECIAL_CLS,    /* `cls` / the class name inside an @I.ir_module class */
  SCRIPT_SPECIAL_RANGE,  /* Python's `range` */
  SCRIPT_SPECIAL_FLOAT,  /* Python's `float` (the printer writes `float("inf")`, `float("nan")`) */
} script_special_kind;
typedef struct {
  script_special_kind kind;
  const char* name;
} script_special;
/* The value of `cls` (and of the class name) inside a module class. */
TVMFFIAny tvm_script__cls_value(void);
/* The marker of value v, or NULL. */
const script_special* tvm_script__special_of(const TVMFFIAny* v);

/* ---- Errors --------------------------------------------------------------------------------- */
/* Raise `kind` with a message rendered at the doc's span. Returns -1. */
int tvm_script__error_at(script_parser* p, const void* doc, const char* kind, const char* fmt, ...)
    TVM_FFI_PRINTF(4, 5);
/* Re-raise the pending (unlocated) error at the doc's span, keeping its kind. Returns -1. */
int tvm_script__relocate(script_parser* p, const void* doc);

/* ---- Evaluation --------------------------------------------------------------------------- */
/* Evaluate an expression doc into *out (owned). */
int tvm_script__eval(script_parser* p, const script_doc* d, TVMFFIAny* out);
/* Evaluate a call doc in a context (statement handlers: STMT, ASSIGN, WITH, FOR) with the
 * names being bound. */
int tvm_script__eval_call(script_parser* p, const script_doc* call, tvm_script_call_ctx ctx,
                      const char* const* targets, int32_t num_targets, TVMFFIAny* out);
/* Evaluate to a PrimExpr (Python numbers converted as tvm_script__value_to_expr_slow does). NULL on
 * failure. */
tvm_tir_expr_obj* tvm_script__eval_expr(script_parser* p, const script_doc* d);
/* A PrimExpr of value v (borrowed): a PrimExpr as is, a Python number converted to the dtype
 * `like` when given (a literal next to a PrimExpr of that dtype) else as
 * tvm_script__value_to_expr_slow. Unlocated error on failure. */
tvm_tir_expr_obj* tvm_script__to_expr_slow(const TVMFFIAny* v, const DLDataType* like);
static inline tvm_tir_expr_obj* script__to_expr(const TVMFFIAny* v, const DLDataType* like) {
  /* (A PrimExpr, most values, inline: a new reference to it whatever `like` says.) */
  if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_expr_obj*)v->v_obj;
  }
  return tvm_script__to_expr_slow(v, like);
}
/* Python truthiness of a non-PrimExpr value. */
bool tvm_script__truthy(const TVMFFIAny* v);
/* The TIR dtype a value names (`T.float32`, "float32"), or false. */
bool tvm_script__as_dtype(const TVMFFIAny* v, DLDataType* out);
/* Whether an annotation doc is `T.let`. */
bool tvm_script__is_let_annotation(script_parser* p, const script_doc* ann);
/* Resolve `<alias>.a.b` to its module marker and dotted rest ("a.b" into buf). */
const script_special* tvm_script__dotted(script_parser* p, const script_doc* d, char* buf,
                                     size_t bufsize, size_t* out_len);

/* value[indices...] (parse_subscript.c). */
int tvm_script__eval_index(script_parser* p, const tvm_script_index_doc_obj* d, TVMFFIAny* out);
/* An argument of T.reads / T.writes (tvm_script_builtin.region_args): when d is A[i, j] with A
 * a Buffer's name and no slice, evaluates it as tvm_script__eval would, but to the BufferRegion
 * that tvm_script__value_to_region makes of the BufferLoad (the same errors, at the same points;
 * no load and no index Array made only to be dropped): 0, or -1 with the error. 1 (out left
 * None) for any other d: the caller evaluates it as usual. */
int tvm_script__eval_region(script_parser* p, const script_doc* d, TVMFFIAny* out);
/* lhs[...] = value (a BufferStore; slices become Ramp indices; a Python literal takes the
 * buffer's dtype). Errors of the store itself are located at `at`. */
int tvm_script__store(script_parser* p, const tvm_script_index_doc_obj* lhs, const TVMFFIAny* value,
                  const script_doc* at);

/* Doc helpers. */
static inline const char* script__id_name(const script_doc* d, uint32_t* out_size) {
  TVMFFIByteArray s = tvm_ffi_str_view(((const tvm_script_id_doc_obj*)d)->name);
  if (out_size) *out_size = (uint32_t)s.size;
  return s.data;
}
/* The FFI type index of each doc kind, filled once (tvm_script__init_doc_kinds, with the statement
 * handlers, before any parse): a kind test compares the object's own type index with it instead
 * of calling through the doc registry (~200,000 kind tests in a corpus pass). Doc types are
 * registered once per process, so the table never changes afterwards. */
extern int32_t tvm_script__doc_type_index[TVM_SCRIPT_DOC_COUNT];
void tvm_script__init_doc_kinds(void);
static inline bool script__is_kind(const void* d, tvm_script_doc_kind k) {
  return d && tvm_ffi_type_index(d) == tvm_script__doc_type_index[k];
}
/* tvm_script_doc_kind_of through the same table, inverted: kinds by type index - base. */
#define SCRIPT_DOC_KIND_SPAN 256
extern int32_t tvm_script__doc_kind_base;
extern int16_t tvm_script__doc_kind_by_index[SCRIPT_DOC_KIND_SPAN];
extern bool tvm_script__doc_kind_table_ok; /* every kind's index is within the span */
static inline tvm_script_doc_kind script__kind_of(const void* d) {
  if (!tvm_script__doc_kind_table_ok) return tvm_script_doc_kind_of(d);
  if (!d) return TVM_SCRIPT_DOC_NONE;
  uint32_t i = (uint32_t)(tvm_ffi_type_index(d) - tvm_script__doc_kind_base);
  return i < SCRIPT_DOC_KIND_SPAN ? (tvm_script_doc_kind)tvm_script__doc_kind_by_index[i]
                                  : TVM_SCRIPT_DOC_NONE;
}
/* The body of a statement (an ffi.Array of docs, possibly NULL): run each statement through
 * the dispatch table. */
int tvm_script__run_body(script_parser* p, const void* stmts);
int tvm_script__run_stmt(script_parser* p, const script_doc* stmt);
/* Close builder frames until the depth is back at `depth` (errors relocated at doc). */
int tvm_script__exit_to(script_parser* p, int depth, const void* doc);

/* Definitions (parse_func.c): a FunctionDoc in the current dialect / inside a class. */
int tvm_script__parse_function(script_parser* p, const script_doc* fn);

#endif /* TVM_SCRIPT_PARSE_EVAL_H_ */

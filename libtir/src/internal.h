/* internal.h: declarations shared by libtir's source files (not installed). */
#ifndef TVM_TIR_SRC_INTERNAL_H_
#define TVM_TIR_SRC_INTERNAL_H_

#include <assert.h>
#include <stddef.h>
#include <string.h>
#include <tvm-private/ffi.h>
#include <tvm-private/tir.h>
#include <tvm/tir/tir.h>

/* ---- Registry (registry.c) ----------------------------------------------------------------- */
/* Type index of each kind, valid once tvm_tir_init() has run. */
extern int32_t tvm_tir__index[TVM_TIR_KIND_COUNT];
extern int tvm_tir__initialized;
/* Set on the thread running the initialisation, which creates objects (the builtin ops) before
 * initialisation is complete. */
extern _Thread_local bool tvm_tir__in_init;

static inline void tvm_tir__ensure_init(void) {
  if (!__atomic_load_n(&tvm_tir__initialized, __ATOMIC_ACQUIRE) && !tvm_tir__in_init) {
    tvm_tir_init();
  }
}
/* tvm_tir__new when libtir is not (or not yet, or unsuccessfully) initialised. */
void* tvm_tir__new_slow(tvm_tir_kind kind, size_t size);

/* A zeroed object of kind (NULL + error on failure). Inline: every node is made through it,
 * and once tvm_tir__initialized is set (last, and only when initialisation succeeded: see
 * init_all) all it does is look up the kind's type index. */
static inline void* tvm_tir__new(tvm_tir_kind kind, size_t size) {
  if (__builtin_expect(__atomic_load_n(&tvm_tir__initialized, __ATOMIC_ACQUIRE), 1)) {
    return tvm_ffi_object_new(tvm_tir__index[kind], size);
  }
  return tvm_tir__new_slow(kind, size);
}
#define TIR_NEW(T, KIND) ((T*)tvm_tir__new(TVM_TIR_KIND_##KIND, sizeof(T)))

/* tvm_tir__new not zeroed, for a node whose constructor writes every field (span included)
 * and whose layout has no padding: the zeroing would only be overwritten. */
static inline void* tvm_tir__new_uninit(tvm_tir_kind kind, size_t size) {
  if (__builtin_expect(__atomic_load_n(&tvm_tir__initialized, __ATOMIC_ACQUIRE), 1)) {
    return tvm_ffi__object_new_uninit(tvm_tir__index[kind], size);
  }
  return tvm_tir__new_slow(kind, size);
}
#define TIR_NEW_UNINIT(T, KIND) ((T*)tvm_tir__new_uninit(TVM_TIR_KIND_##KIND, sizeof(T)))

/* tvm_tir__new_uninit for an expression of dtype whose fields past the PrimExpr header the
 * caller all sets (NULL or not); span (NULL), dtype and the padding after it are written
 * here. */
static inline tvm_tir_expr_obj* tvm_tir__new_expr(tvm_tir_kind kind, size_t size,
                                                 DLDataType dtype) {
  tvm_tir_expr_obj* e = (tvm_tir_expr_obj*)tvm_tir__new_uninit(kind, size);
  if (e) {
    _Static_assert(offsetof(tvm_tir_expr_obj, dtype) + sizeof(uint64_t) == sizeof(tvm_tir_expr_obj),
                   "dtype and its padding end the PrimExpr header");
    uint64_t word = 0; /* dtype, then zero padding: one store */
    memcpy(&word, &dtype, sizeof(dtype));
    e->span = NULL;
    memcpy(&e->dtype, &word, sizeof(word));
  }
  return e;
}
#define TIR_NEW_EXPR(T, KIND, dtype) \
  ((T*)tvm_tir__new_expr(TVM_TIR_KIND_##KIND, sizeof(T), (dtype)))

/* Type index -> kind + 1 (0: not a libtir kind), for every type index libtvmffi can hand out
 * (it registers at most this many types): a lookup with no base, bounds or table pointer to
 * load. An entry is written once, at initialisation, before any object of its type exists; the
 * entries of other types stay 0. */
#define TVM_TIR_KIND_TABLE 4096
extern uint8_t tvm_tir__kind_by_index[TVM_TIR_KIND_TABLE];
/* Bit a of tvm_tir__ancestry[k]: kind k is kind a or derives from it. */
extern uint64_t tvm_tir__ancestry[TVM_TIR_KIND_COUNT][2];
_Static_assert(TVM_TIR_KIND_COUNT <= 128, "tvm_tir__ancestry holds 128 kinds");

/* tvm_tir_kind_of, inline: one table lookup. */
static inline tvm_tir_kind tir_kind_of(const void* obj) {
  if (!obj) return TVM_TIR_KIND_NONE;
  uint32_t i = (uint32_t)((const TVMFFIObject*)obj)->type_index;
  if (i >= TVM_TIR_KIND_TABLE) return TVM_TIR_KIND_NONE;
  return (tvm_tir_kind)(__atomic_load_n(&tvm_tir__kind_by_index[i], __ATOMIC_RELAXED) - 1);
}
/* tvm_tir_is for an object that is not of a libtir kind (a type derived from one elsewhere). */
bool tvm_tir__is_other(const void* obj, tvm_tir_kind kind);
/* tvm_tir_is, inline (kind valid): a libtir node answers from the ancestry bits, which are its
 * ffi type ancestry (registered from the same parents). */
static inline bool tir_is(const void* obj, tvm_tir_kind kind) {
  if (!obj) return false;
  tvm_tir_kind k = tir_kind_of(obj);
  if (k >= 0) return (tvm_tir__ancestry[k][kind >> 6] >> (kind & 63)) & 1;
  return tvm_tir__is_other(obj, kind);
}

/* For the debug-build asserts of the trusted-caller `_typed` constructors (tvm-private/tir.h):
 * whether arr (borrowed) is an ffi.Array whose every element is an object of kind `kind`; NULL
 * passes when null_ok. */
static inline bool tvm_tir__array_of(const void* arr, tvm_tir_kind kind, bool null_ok) {
  if (!arr) return null_ok;
  if (tvm_ffi_type_index(arr) != kTVMFFIArray) return false;
  const TVMFFIAny* items = tvm_ffi_seq_data(arr);
  for (int64_t i = 0, n = tvm_ffi_seq_size(arr); i < n; ++i) {
    if (!tvm_ffi_any_is_object(&items[i]) || !tir_is(items[i].v_obj, kind)) return false;
  }
  return true;
}

/* Inside libtir the kind queries of node.h go through the inline tables above (function-like
 * macros: `(tvm_tir_is)(...)` still names the function, as registry.c defines it). The kinds
 * passed are constants, so the range check folds away. */
#define tvm_tir_kind_of(obj) tir_kind_of(obj)
#define tvm_tir_is(obj, kind) \
  ((unsigned)(kind) < (unsigned)TVM_TIR_KIND_COUNT && tir_is((obj), (kind)))
#define tvm_tir_is_expr(obj) tir_is((obj), TVM_TIR_KIND_PrimExpr)
#define tvm_tir_is_stmt(obj) tir_is((obj), TVM_TIR_KIND_Stmt)
#define tvm_tir_is_type(obj) tir_is((obj), TVM_TIR_KIND_Type)
#define tvm_tir_is_var(obj) tir_is((obj), TVM_TIR_KIND_Var)

/* The reflected object fields (static type Any, or an object type, strings included) of every
 * kind, ancestors' first as tvm_ffi_type_all_fields lists them: walks read children from here
 * instead of going through reflection per node. */
typedef struct {
  int64_t offset;
  int32_t type; /* field_static_type_index */
  const char* name;
  const TVMFFIFieldInfo* info;
} tvm_tir__child_field;
typedef struct tvm_tir__children {
  const TVMFFIFieldInfo* const* probe; /* validity check, see tvm_tir__children_get */
  struct tvm_tir__children* prev;
  int32_t start[TVM_TIR_KIND_COUNT + 1]; /* kind k's fields: f[start[k]] .. f[start[k + 1] - 1] */
  tvm_tir__child_field f[];
} tvm_tir__children;
/* The tables as of now (one reflection lookup; rebuilt when fields were registered since): take
 * them once per walk. NULL when out of memory (no error raised: walk through reflection). */
const tvm_tir__children* tvm_tir__children_get(void);

/* Exact kind test (no derived kinds), NULL-safe. */
static inline bool tir_is_exact(const void* obj, tvm_tir_kind kind) {
  return obj && ((const TVMFFIObject*)obj)->type_index == tvm_tir__index[kind];
}
#define TIR_IS(obj, KIND) tir_is_exact((obj), TVM_TIR_KIND_##KIND)

/* Shared empty containers (new references). */
extern void* tvm_tir__g_empty_array __attribute__((visibility("hidden")));
extern void* tvm_tir__g_empty_map __attribute__((visibility("hidden")));
/* Process-wide shared objects (the small IntImms in expr.c, the scalar PrimTypes and their
 * global PointerTypes in type.c): IR nodes are immutable and counts atomic, so one object can
 * stand for every equal one. A slot is filled on first use and never emptied (the objects stay
 * reachable, like the empty String). tvm_tir__shared_get: a new reference to the slot's object,
 * or NULL while it is empty; tvm_tir__shared_publish: offers obj (a new reference, or NULL on
 * failure) for the empty slot; the first offer wins and keeps that reference, and the result
 * is a new reference to the slot's object (NULL if obj is). */
static inline void* tvm_tir__shared_get(void** slot) {
  void* obj = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (__builtin_expect(obj != NULL, 1)) tvm_ffi_retain(obj);
  return obj;
}
void* tvm_tir__shared_publish(void** slot, void* obj);

static inline void* tvm_tir__empty_array(void) {
  tvm_ffi_retain(tvm_tir__g_empty_array);
  return tvm_tir__g_empty_array;
}
static inline void* tvm_tir__empty_map(void) {
  tvm_ffi_retain(tvm_tir__g_empty_map);
  return tvm_tir__g_empty_map;
}
/* An ffi.String object of s (NULL = ""); NULL + MemoryError on failure. */
void* tvm_tir__str(const char* s);

/* Registration hooks of the other files, called once by tvm_tir_init (registry.c). */
int tvm_tir__init_ops(void); /* op_registry.c */
int tvm_tir__init_tensor_json(void); /* tensor_json.c: ffi.Tensor's JSON hooks */
/* Whether nothing but the registry holds a reference to builtin op `id` (op_registry.c): then
 * no Call anywhere refers to it, as a Call holds a reference to its op for as long as it lives
 * (whoever set the field, a constructor or a reflected setter). Exact for any object the
 * caller holds: a Call reachable from it keeps the count up. Only a false "used" is possible
 * (someone else holds the op, perhaps for a moment), and callers then do the full search. */
bool tvm_tir__builtin_unused(tvm_tir_builtin id);

/* ---- break / continue (loop_jumps.c) -------------------------------------------------------- */
enum { TVM_TIR__JUMP_BREAK = 1, TVM_TIR__JUMP_CONTINUE = 2 };
/* The jump stmt is: Evaluate(tir.break_loop()) or Evaluate(tir.continue_loop()), else 0. */
unsigned tvm_tir__stmt_jump(const void* stmt);
/* The jumps of a loop's body that leave that loop (not those of loops nested in it). */
unsigned tvm_tir__loop_jumps(const void* body);
/* Every jump under stmt, nested loops included. */
unsigned tvm_tir__any_jumps(const void* stmt);
/* The well-formedness rule of jumps on func (wellformed.c runs it): 0, or -1 + ValueError. */
int tvm_tir__verify_jumps(const void* func);

/* ---- Argument checking (check.c) ------------------------------------------------------------ */
/* A NULL required argument: keeps an error already raised (the argument came from a failed
 * call), else raises ValueError "<node>: <field> is NULL". Returns NULL. */
void* tvm_tir__null_arg(const char* node, const char* field);
/*
 * Normalise an optional array argument: *out = a new reference to arr, or to the empty array
 * when arr is NULL. Checks it is an ffi.Array whose elements are instances of elem (TypeError
 * "<node>: <field>[i] must be ...", naming rule when given, else a plain TypeError). Returns 0
 * or -1.
 */
int tvm_tir__array_arg_slow(void* arr, tvm_tir_kind elem, const char* node, const char* field,
                            void** out);
/* (Inline: every constructor with an array field calls it. An Array whose elements all pass is
 * answered here; the rest, NULL and the errors, by the function.) */
static inline int tvm_tir__array_arg(void* arr, tvm_tir_kind elem, const char* node,
                                     const char* field, void** out) {
  if (!arr) { /* (what tvm_tir__array_arg_slow does with it) */
    *out = tvm_tir__empty_array();
    return 0;
  }
  if (tvm_ffi_type_index(arr) == kTVMFFIArray) {
    int64_t n = tvm_ffi_seq_size(arr);
    const TVMFFIAny* items = tvm_ffi_seq_data(arr);
    int64_t i = 0;
    while (i < n && tvm_ffi_any_is_object(&items[i]) && tir_is(items[i].v_obj, elem)) ++i;
    if (i == n) {
      tvm_ffi_retain(arr);
      *out = arr;
      return 0;
    }
  }
  return tvm_tir__array_arg_slow(arr, elem, node, field, out);
}
/* Same for an ffi.Map<String, Any> (annotations, attrs). */
int tvm_tir__str_map_arg_slow(void* map, const char* node, const char* field, void** out);
static inline int tvm_tir__str_map_arg(void* map, const char* node, const char* field,
                                       void** out) {
  if (!map) { /* (what tvm_tir__str_map_arg_slow does with it) */
    *out = tvm_tir__empty_map();
    return 0;
  }
  return tvm_tir__str_map_arg_slow(map, node, field, out);
}
/* Raise the TypeError of tvm_tir__check_kind. Returns -1. */
int tvm_tir__kind_error(const void* obj, tvm_tir_kind kind, const char* node, const char* field);
/* Check obj is an instance of kind (TypeError otherwise). NULL passes (callers check). */
static inline int tvm_tir__check_kind(const void* obj, tvm_tir_kind kind, const char* node,
                                      const char* field) {
  return !obj || tir_is(obj, kind) ? 0 : tvm_tir__kind_error(obj, kind, node, field);
}

/* The typing-rule family of each binary kind (the klass column of nodes.def), 0 otherwise. */
enum { TIR_NOT_BINOP = 0, ARITH, CMP, LOGIC };
extern const unsigned char tvm_tir__binop_class[TVM_TIR_KIND_COUNT];
/* tvm_tir_binary_new(kind, a, b) taking both references (released on failure too), for
 * operands that already passed its checks but Mod's: PrimExprs of one dtype, not handles for
 * an arithmetic or comparison kind, bool for a logical one (tvm_tir_binary's after
 * match_operands). Without its repeated checks, retains and the caller's releases. */
tvm_tir_expr_obj* tvm_tir__binary_take(tvm_tir_kind kind, tvm_tir_expr_obj* a,
                                       tvm_tir_expr_obj* b);

/* Shared by BufferLoad and BufferStore (T-BUFFERLOAD / S-BUFFERSTORE): buffer is a Buffer,
 * indices an ffi.Array of Int/UInt PrimExprs of one bit width, one per dimension, all scalar
 * but the last. *out_indices = the normalised array (new reference), *out_lanes = the lanes
 * of the last index (1 when none). */
int tvm_tir__check_indices(tvm_tir_rule rule, const char* node, tvm_tir_buffer_obj* buffer,
                           void* indices, void** out_indices, int* out_lanes);
/* tvm_tir__check_indices for buffer a Buffer and indices an ffi.Array of PrimExprs or NULL (the
 * caller knows their kinds): only the checks on the indices against the buffer. */
int tvm_tir__check_typed_indices(tvm_tir_rule rule, const char* node, tvm_tir_buffer_obj* buffer,
                                 void* indices, void** out_indices, int* out_lanes);

/* Int/UInt wider than 64 bits: libtir does not represent them (an IntImm holds an int64, the
 * interpreter and the code generator compute integers in at most 64 bits), so the constructors
 * that introduce a dtype (PrimType, IntImm, Cast, Call, Buffer) reject them. */
static inline bool tvm_tir__dtype_too_wide(DLDataType t) {
  return t.bits > 64 && (t.code == kDLInt || t.code == kDLUInt);
}
/* Raise that rule's TypeError for dtype t of node; returns NULL. */
void* tvm_tir__too_wide_error(tvm_tir_rule rule, const char* node, DLDataType t);

/* ---- Messages (text.c) --------------------------------------------------------------------- */
/*
 * Raise TypeError "<node>: <what> (rule <R>, spec <ref>): name1 = text1 (dtype1), ..." from
 * (const char* name, const void* operand) pairs terminated by a NULL name. Operands may be any
 * libtir node (expressions print with their dtype) or NULL. Returns NULL.
 */
void* tvm_tir__type_error(tvm_tir_rule rule, const char* node, const char* what, ...);
/* Short text of a node for messages: "x + 1", "A[i, j]", "buffer A", ... (depth-limited). */
void tvm_tir__text(tvm_ffi_strbuf* out, const void* obj);

/* ---- Walking (walk.c) ---------------------------------------------------------------------- */
/* Called for every object met, parents first; return non-zero to stop the walk (that value is
 * returned by tvm_tir__walk). */
typedef int (*tvm_tir__walk_fn)(const void* obj, void* ctx);
/* Visit obj and, through the reflected object/array/map fields, everything reachable from it.
 * With stmts_only, only statements are entered (their expressions are not visited). */
int tvm_tir__walk(const void* obj, bool stmts_only, tvm_tir__walk_fn fn, void* ctx);

/* ---- Folding helpers (op.c), used by the constructors too ---------------------------------- */
/* Round a double to the precision of a Float/BFloat type (float16/32/64, bfloat16). */
double tvm_tir__round_float(DLDataType t, double v);
/* Wrap an integer (two's complement bits) to the Int/UInt type t. */
int64_t tvm_tir__wrap_int(DLDataType t, uint64_t bits);

/* ---- Small helpers ------------------------------------------------------------------------- */
static inline tvm_tir_expr_obj* tir_expr_retain(tvm_tir_expr_obj* e) {
  tvm_ffi_retain(e);
  return e;
}
static inline bool tir_is_true_const(const void* e) {
  return TIR_IS(e, IntImm) && ((const tvm_tir_int_imm_obj*)e)->value != 0;
}

#endif /* TVM_TIR_SRC_INTERNAL_H_ */

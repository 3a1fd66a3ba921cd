/* internal.h: declarations shared by libtir's source files (not installed). */
#ifndef TVM_TIR_SRC_INTERNAL_H_
#define TVM_TIR_SRC_INTERNAL_H_

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
/* A zeroed object of kind (NULL + error on failure). */
void* tvm_tir__new(tvm_tir_kind kind, size_t size);
#define TIR_NEW(T, KIND) ((T*)tvm_tir__new(TVM_TIR_KIND_##KIND, sizeof(T)))

/* Exact kind test (no derived kinds), NULL-safe. */
static inline bool tir_is_exact(const void* obj, tvm_tir_kind kind) {
  return obj && ((const TVMFFIObject*)obj)->type_index == tvm_tir__index[kind];
}
#define TIR_IS(obj, KIND) tir_is_exact((obj), TVM_TIR_KIND_##KIND)

/* Shared empty containers (new references). */
void* tvm_tir__empty_array(void);
void* tvm_tir__empty_map(void);
/* An ffi.String object of s (NULL = ""); NULL + MemoryError on failure. */
void* tvm_tir__str(const char* s);

/* Registration hooks of the other files, called once by tvm_tir_init (registry.c). */
int tvm_tir__init_ops(void); /* op_registry.c */

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
int tvm_tir__array_arg(void* arr, tvm_tir_kind elem, const char* node, const char* field,
                       void** out);
/* Same for an ffi.Map<String, Any> (annotations, attrs). */
int tvm_tir__str_map_arg(void* map, const char* node, const char* field, void** out);
/* Check obj is an instance of kind (TypeError otherwise). NULL passes (callers check). */
int tvm_tir__check_kind(const void* obj, tvm_tir_kind kind, const char* node, const char* field);

/* The typing-rule family of each binary kind (the klass column of nodes.def), 0 otherwise. */
enum { TIR_NOT_BINOP = 0, ARITH, CMP, LOGIC };
extern const unsigned char tvm_tir__binop_class[TVM_TIR_KIND_COUNT];

/* Shared by BufferLoad and BufferStore (T-BUFFERLOAD / S-BUFFERSTORE): buffer is a Buffer,
 * indices an ffi.Array of Int/UInt PrimExprs of one bit width, one per dimension, all scalar
 * but the last. *out_indices = the normalised array (new reference), *out_lanes = the lanes
 * of the last index (1 when none). */
int tvm_tir__check_indices(tvm_tir_rule rule, const char* node, tvm_tir_buffer_obj* buffer,
                           void* indices, void** out_indices, int* out_lanes);

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

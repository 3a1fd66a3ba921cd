/*
 * interp_internal.h: the reference interpreter's shared state (not installed).
 *
 *   interp_value.c  values: lanes of every dtype, conversions, memory encoding of elements
 *   interp_expr.c   expression evaluation (a table indexed by node kind) and the builtins
 *                   (a table indexed by builtin id)
 *   interp_memory.c variables and scopes, live memory regions, buffer addressing, allocation
 *                   and match_buffer aliases
 *   interp_stmt.c   statement execution (a table indexed by node kind)
 *   interp_call.c   argument binding, PrimFunc calls and the entry point tvm_tir_interp_run
 *   interp_gpu.c    GPU thread launches holding barriers (lockstep phases)
 *
 * Status codes: every eval/exec function returns TIR_OK, TIR_ERROR (an error is raised) or
 * TIR_RETURNED (tir.ret was executed; the value is in the current frame), TIR_BREAK /
 * TIR_CONTINUE (tir.break_loop / tir.continue_loop was executed: the innermost For or While
 * catches it), and callers pass any non-OK status up unchanged (TRY).
 */
#ifndef TVM_TIR_SRC_INTERP_INTERNAL_H_
#define TVM_TIR_SRC_INTERP_INTERNAL_H_

#include <tvm/tir/interp.h>

#include "internal.h"

enum { TIR_OK = 0, TIR_ERROR = -1, TIR_RETURNED = 1, TIR_BREAK = 2, TIR_CONTINUE = 3 };
#define TRY(call)                  \
  do {                             \
    int rc_ = (call);              \
    if (rc_ != TIR_OK) return rc_; \
  } while (0)

/* ---- Values (interp_value.c) --------------------------------------------------------------- */
/* One lane. Invariant (tvm_tir__normalize): Int lanes hold the sign-extended value of their width,
 * UInt lanes the zero-extended one (uint64 as its bit pattern), bool 0 or 1; Float/BFloat lanes
 * hold a double exactly representable in the lane type; handles a pointer. */
typedef union {
  int64_t i;
  double f;
  void* p;
} tir_lane;

/* A scalar (lanes 1), a vector, a handle or void (dtype void, no lanes). */
typedef struct {
  DLDataType dtype;
  tir_lane lane[TVM_TIR_INTERP_MAX_LANES];
} tir_value;

static inline int tir_lanes(const tir_value* v) { return v->dtype.lanes ? v->dtype.lanes : 0; }
static inline bool tir_is_unsigned(DLDataType t) { return t.code == kDLUInt; }

/* Bring a lane to the invariant of its element type (wrap an integer, round a float). */
tir_lane tvm_tir__normalize(DLDataType elem, tir_lane x);
/* Scalar constructors. */
void tvm_tir__value_int(tir_value* out, DLDataType t, int64_t v); /* wrapped to t */
void tvm_tir__value_void(tir_value* out);
/* Whether a scalar Int/UInt/bool lane is non-zero; its value as int64 (uint64 bits as is). */
static inline bool tir_truthy(const tir_value* v) { return v->lane[0].i != 0; }
/* The lane as a float of its type (ints converted exactly as C does for that type). */
double tvm_tir__lane_as_double(DLDataType elem, tir_lane x);

/* Cast one lane from element type `from` to `to` with C semantics (spec E5 semantics): -1 and
 * a ValueError when a float does not fit the target integer type. `what` names the node. */
int tvm_tir__cast_lane(DLDataType from, DLDataType to, tir_lane x, tir_lane* out, const char* what);

/* NotImplementedError unless elements of elem can live in memory (int/uint 8-64, bool,
 * float16/32/64, bfloat16, handle). */
int tvm_tir__check_storable(DLDataType elem, const char* what);
/* Element encoding in memory (one element of dtype elem, all its lanes). bool takes a byte. */
void tvm_tir__mem_read(DLDataType elem, const void* addr, tir_lane* out);
void tvm_tir__mem_write(DLDataType elem, void* addr, const tir_lane* in);
/* Bytes of one element in memory (lanes included). */
int64_t tvm_tir__elem_bytes(DLDataType elem);

/* Text of a lane for messages ("-3", "1.5", "0x..."). */
void tvm_tir__lane_text(DLDataType elem, tir_lane x, char* buf, size_t n);

/* ---- Interpreter state ---------------------------------------------------------------------- */
typedef struct {
  const tvm_tir_var_obj* var;
  tir_value value;
} tir_binding;

/* A match_buffer alias (spec Block item iii): accesses to `buffer` are accesses to `source`
 * at [mins[0..offset), mins[offset + k] + index[k]]. */
typedef struct {
  const tvm_tir_buffer_obj* buffer;
  const tvm_tir_buffer_obj* source;
  int64_t* mins; /* len(region) entries */
  int64_t num_mins;
} tir_alias;

/* A live allocation: every access must stay inside one. */
typedef struct {
  char* base;
  int64_t nbytes;
  bool owned; /* allocated by the interpreter (freed when the region is popped) */
} tir_region;

/* The scope of one PrimFunc call. */
typedef struct {
  tir_binding* vars;
  int64_t num_vars, cap_vars;
  tir_alias* aliases;
  int64_t num_aliases, cap_aliases;
  tir_value ret;
  /* Bindings seen under vars (looked up after them): the frame's bindings at the entry of a
   * lockstep region, whose contexts each bind their own in vars (interp_gpu.c). */
  const tir_binding* outer;
  int64_t num_outer;
} tir_frame;

typedef struct {
  const tvm_tir_ir_module_obj* mod;  /* NULL when a PrimFunc runs alone */
  const tvm_tir_prim_func_obj* root; /* the function run by tvm_tir_interp_run */
  tir_frame* frame;
  tir_region* regions;
  int64_t num_regions, cap_regions;
  int64_t owned_bytes;  /* the sum of the owned regions' sizes */
  int64_t memory_limit; /* tvm_tir_interp_memory_limit(), read at the first allocation */
  int depth;
  /* GPU threads running one after another: thread launches executed as loops, and lockstep
   * contexts running a statement alone. A barrier reached while this is non-zero cannot be
   * placed exactly (interp_gpu.c). */
  int64_t serial_threads;
  struct tir_gpu_memo* gpu_memo; /* which statements hold a barrier (interp_gpu.c) */
  /* The results of the warp calls of the statement that contexts of a lockstep region are
   * running (interp_gpu.c): a tvm_warp_shuffle* / tvm_warp_activemask Call among calls[]
   * evaluates to results[ctx * ncalls + j]; NULL outside such a statement. */
  const struct tir_warp_results* warp;
  struct tir_wmma_state* wmma; /* tensor-core fragment shapes (interp_wmma.c) */
} tir_interp;

typedef struct tir_warp_results {
  const void* const* calls;
  int ncalls;
  const tir_value* results;
  int64_t ctx;
} tir_warp_results;

/* ---- Variables, memory, buffers (interp_memory.c) ----------------------------------------- */
/* Variables of the current frame; a scope is popped by restoring its mark. */
const tir_value* tvm_tir__lookup(tir_interp* in, const tvm_tir_var_obj* var);
int tvm_tir__bind(tir_interp* in, const tvm_tir_var_obj* var, const tir_value* v);
int tvm_tir__bind_handle(tir_interp* in, const tvm_tir_var_obj* var, void* p);
/* Bind an integer to var, which must hold it exactly (ValueError naming `what`). */
int tvm_tir__bind_int(tir_interp* in, const tvm_tir_var_obj* var, int64_t value, const char* what);
static inline int64_t tir_scope_mark(tir_interp* in) { return in->frame->num_vars; }
static inline void tir_scope_pop(tir_interp* in, int64_t mark) { in->frame->num_vars = mark; }
/*
 * Match a buffer field (shape / stride / elem_offset expression e) against an actual value: an
 * unbound Var is bound to it (the first binding wins), anything else is evaluated and must be
 * equal (ValueError "<owner>: <field>[dim] is <actual> but the buffer requires <expected>";
 * dim < 0 omits "[dim]").
 */
int tvm_tir__match_field(tir_interp* in, const tvm_tir_expr_obj* e, int64_t actual, const char* owner,
                    const char* field, int64_t dim);
/* tvm_tir__match_field's first half: binds e when it is an unbound Var, else does nothing (the
 * check waits for tvm_tir__match_field once every parameter's variables are bound). */
int tvm_tir__define_field(tir_interp* in, const tvm_tir_expr_obj* e, int64_t actual, const char* owner,
                    const char* field, int64_t dim);

/* Live memory regions: push one (owned ones are freed when popped), pop down to a mark
 * (in->num_regions before the pushes), or allocate a zero-filled owned one for `name` (a
 * buffer or Allocate): a MemoryError naming it and the size when the owned
 * total would pass the memory limit, before anything is allocated. */
int tvm_tir__push_region(tir_interp* in, char* base, int64_t nbytes, bool owned);
void tvm_tir__pop_regions(tir_interp* in, int64_t mark);
int tvm_tir__alloc_region(tir_interp* in, const char* name, int64_t nbytes, char** out);
/* Whether [addr, addr + nbytes) lies in a live region. */
bool tvm_tir__in_live_region(tir_interp* in, const void* addr, int64_t nbytes);
/* The start of the innermost live region holding addr, NULL if none. */
const char* tvm_tir__region_base(tir_interp* in, const void* addr);

/* Compact row-major strides of a shape (ValueError naming buf for a negative or huge shape). */
int tvm_tir__compact_strides(const tvm_tir_buffer_obj* buf, const int64_t* shape, int64_t ndim,
                        int64_t* strides);
/* The address of buffer[indices] (all scalar, n of them), bounds checked (IndexError). */
int tvm_tir__element_addr(tir_interp* in, const tvm_tir_buffer_obj* buf, const int64_t* idx, int64_t n,
                     char** out);
/* Allocate a buffer's memory (zero-filled, a region) and bind its data variable. With
 * bind_layout (BufferRealize), unbound stride / elem_offset variables get the compact layout. */
int tvm_tir__alloc_buffer(tir_interp* in, const tvm_tir_buffer_obj* buf, bool bind_layout);
/* Make m->buffer an alias of its source region (spec Block item iii); tvm_tir__pop_aliases drops
 * the aliases above a mark (in->frame->num_aliases before). */
int tvm_tir__match_buffer(tir_interp* in, const tvm_tir_match_buffer_region_obj* m);
void tvm_tir__pop_aliases(tir_interp* in, int64_t mark);

/* ---- Calls (interp_call.c) ----------------------------------------------------------------- */
/* Call the module's PrimFunc `name` (a GlobalVar's name, or a call_extern'd helper; args
 * evaluated), result in *out (void when none). */
int tvm_tir__call_global(tir_interp* in, const char* name, const tir_value* args, int64_t num_args,
                         tir_value* out);
/* Whether `name` is a PrimFunc the code being run can call (of its module, or itself). */
bool tvm_tir__has_module_func(tir_interp* in, const char* name);

/* ---- Expressions (interp_expr.c) ----------------------------------------------------------- */
/* The most dimensions a buffer access may have. */
#define TIR_MAX_DIMS 32
/* Evaluate the indices of a BufferLoad/BufferStore (node) to int64 idx[] (spec: cast to the
 * back end's index type); the lanes of the last index go to last[], *last_lanes of them. */
int tvm_tir__eval_indices(tir_interp* in, const void* node, void* indices, int64_t* idx,
                          int64_t max_dims, int64_t last[], int* last_lanes);
int tvm_tir__eval(tir_interp* in, const tvm_tir_expr_obj* e, tir_value* out);
/* Evaluate a scalar Int/UInt expression as int64 (uint64 as its bit pattern). */
int tvm_tir__eval_int(tir_interp* in, const tvm_tir_expr_obj* e, int64_t* out);

/* Raise an error of kind with the formatted message followed by " (in `<node text>`)" when node
 * is given. Returns TIR_ERROR. */
int tvm_tir__raise_at(const char* kind, const void* node, const char* fmt, ...)
    TVM_FFI_PRINTF(3, 4) TVM_FFI_COLD;

/* ---- Statements (interp_stmt.c) ------------------------------------------------------------ */
int tvm_tir__exec(tir_interp* in, const tvm_tir_stmt_obj* s);

/* ---- GPU launches (interp_gpu.c) ------------------------------------------------------------ */
typedef struct tir_gpu_memo tir_gpu_memo;
/* Whether statement s holds a barrier anywhere in its body (memoised for the run). */
int tvm_tir__has_barrier(tir_interp* in, const void* s, bool* out);
/* Run a thread launch (a thread_extent / virtual_thread AttrStmt or a thread-bound For) whose
 * body holds a barrier, its iterations in lockstep phases. */
int tvm_tir__exec_lockstep(tir_interp* in, const tvm_tir_stmt_obj* launch);
/* Whether call is tir.tvm_warp_shuffle / _up / _down or tir.tvm_warp_activemask. */
bool tvm_tir__is_warp_call(const void* call);
/* Release the run's GPU state. */
void tvm_tir__gpu_free(tir_interp* in);

/* ---- Tensor cores (interp_wmma.c) ---------------------------------------------------------- */
/* Whether call is one of the WMMA intrinsics (tvm_fill_fragment, tvm_load_matrix_sync,
 * tvm_store_matrix_sync, tvm_mma_sync, tvm_bmma_sync). */
bool tvm_tir__is_wmma_call(const void* call);
/* The argument positions of a WMMA call's fragment operands (out[0..return)). */
int tvm_tir__wmma_fragment_args(const tvm_tir_call_obj* call, int out[4]);
/* Run a WMMA call once, for a whole warp, with its evaluated arguments. */
int tvm_tir__wmma_run(tir_interp* in, const tvm_tir_call_obj* call, const tir_value* args);
/* ValueError at node unless (m, n, k) is a float16 tensor-core shape. */
int tvm_tir__wmma_check_shape(const void* node, int64_t m, int64_t n, int64_t k);
void tvm_tir__wmma_free(tir_interp* in);

#endif /* TVM_TIR_SRC_INTERP_INTERNAL_H_ */

/*
 * internal.h: what librelax's source files share (not installed).
 */
#ifndef TVM_RELAX_INTERNAL_H_
#define TVM_RELAX_INTERNAL_H_

#include <tvm/relax/relax.h>
#include <tvm-private/relax.h>
#include <tvm/tir/arith.h>

/* ---- Registry (registry.c) ------------------------------------------------------------------- */
extern int32_t tvm_relax__index[TVM_RELAX_KIND_COUNT];
/* The kind queries' tables, set once at initialisation: kind + 1 by type index (0: not a
 * librelax kind), bit a of tvm_relax__ancestry[k] when kind k is kind a or derives from it, and
 * bit k of tvm_relax__expr_kinds when kind k is an ir.RelaxExpr. */
#define TVM_RELAX_KIND_TABLE 4096
extern uint8_t tvm_relax__kind_by_index[TVM_RELAX_KIND_TABLE];
extern uint64_t tvm_relax__ancestry[TVM_RELAX_KIND_COUNT];
extern uint64_t tvm_relax__expr_kinds;
_Static_assert(TVM_RELAX_KIND_COUNT <= 64, "a kind set fits one word");

static inline tvm_relax_kind relax_kind_of(const void* obj) {
  if (!obj) return TVM_RELAX_KIND_NONE;
  uint32_t i = (uint32_t)tvm_ffi_type_index(obj);
  if (i >= TVM_RELAX_KIND_TABLE) return TVM_RELAX_KIND_NONE;
  return (tvm_relax_kind)((int)tvm_relax__kind_by_index[i] - 1);
}
/* tvm_relax_is with a valid kind. */
static inline bool relax_is(const void* obj, tvm_relax_kind kind) {
  tvm_relax_kind k = relax_kind_of(obj);
  return k != TVM_RELAX_KIND_NONE && (tvm_relax__ancestry[k] >> kind & 1);
}
/* tvm_relax_is_expr: librelax's kinds answer from the table; other objects (GlobalVar, Op,
 * PrimFunc, types derived elsewhere) from their ffi type. */
static inline bool relax_is_expr(const void* obj) {
  tvm_relax_kind k = relax_kind_of(obj);
  if (k != TVM_RELAX_KIND_NONE) return tvm_relax__expr_kinds >> k & 1;
  return obj && tvm_tir_is(obj, TVM_TIR_KIND_RelaxExpr);
}
/* Inside librelax the kind queries of node.h are the inline ones above (function-like macros:
 * `(tvm_relax_is)(...)` still names the function, as registry.c defines it). */
#define tvm_relax_kind_of(obj) relax_kind_of(obj)
#define tvm_relax_is(obj, kind) \
  ((unsigned)(kind) < (unsigned)TVM_RELAX_KIND_COUNT && relax_is((obj), (kind)))
#define tvm_relax_is_expr(obj) relax_is_expr(obj)
#define tvm_relax_is_sinfo(obj) relax_is((obj), TVM_RELAX_KIND_StructInfo)
#define tvm_relax_is_var(obj) relax_is((obj), TVM_RELAX_KIND_Var)
/* A zeroed object of kind (after initialisation), or NULL + error. */
void* tvm_relax__new(tvm_relax_kind kind, size_t size);
void tvm_relax__ensure_init(void);
/* The shared empty ffi.Array / ffi.Map (new references). */
void* tvm_relax__empty_array(void);
void* tvm_relax__empty_map(void);
/* An ffi.String of s (new reference). */
void* tvm_relax__str(const char* s);
/* Registers the operators of ops.def as ir.Ops (op_table.c); 0 or -1 + error. */
int tvm_relax__init_ops(void);

/* ---- Inference context (op_table.c) ---------------------------------------------------------- */
typedef struct {
  const tvm_relax_op_info* op;
  void* args;       /* ffi.Array of Relax expressions */
  int32_t num_args; /* tvm_ffi_seq_size(args) */
  void* attrs;      /* the completed attributes (ffi.Map), NULL when the op has none */
  void* sinfo_args; /* ffi.Array of StructInfo, possibly empty, never NULL */
  /* When set, argument i's struct info as the rule sees it (tvm_relax__arg_sinfo): the local
   * tensors of DTensor arguments, for the distributed rules (op_distributed_infer.c). */
  tvm_relax_sinfo_obj* const* local_sinfo;
} tvm_relax__infer_ctx;

/* attrs (ffi.Map of the attributes given, or NULL) checked against info's schema and completed
 * with defaults: *out is a new ffi.Map (NULL when the op has no attributes). 0 or -1 + error. */
int tvm_relax__complete_attrs(const tvm_relax_op_info* info, void* attrs, void** out);
/* Check the argument count and run the op's inference rule. */
tvm_relax_sinfo_obj* tvm_relax__infer(const tvm_relax_op_info* info, void* args, void* attrs,
                                      void* sinfo_args);

/* An inference rule: the struct info of the call (new reference), or NULL + error. */
typedef tvm_relax_sinfo_obj* (*tvm_relax__infer_fn)(const tvm_relax__infer_ctx* ctx);

/* Operators on DTensor arguments (op_distributed_infer.c, upstream's dist.FInferStructInfo):
 * whether the operator has a distributed rule, and that rule: the ordinary rule `rule` run on
 * the arguments' local tensors, the result laid out on their mesh with the placement the
 * operator's axis mapping propagates. Called when some argument is a DTensor. */
bool tvm_relax__has_dist_rule(tvm_relax_op_id id);
tvm_relax_sinfo_obj* tvm_relax__infer_dist(const tvm_relax__infer_ctx* ctx,
                                           tvm_relax__infer_fn rule);

#define TVM_RELAX_OP(Id, name, args, attrs, infer, pattern, purity) \
  tvm_relax_sinfo_obj* tvm_relax__infer_##infer(const tvm_relax__infer_ctx* ctx);
#include <tvm/relax/ops.def>
/* Attribute schemas, each ending with a {NULL} entry (tvm_relax__attrs_none is just that). */
#define TVM_RELAX_OP(Id, name, args, attrs, infer, pattern, purity) \
  extern const tvm_relax_attr_field tvm_relax__attrs_##attrs[];
#include <tvm/relax/ops.def>

/* The value a relax.inspect call's struct info says it has (borrowed), or NULL (another call, or
 * a value known only at run time): the BlockBuilder's normal form is that R.prim_value. */
tvm_tir_expr_obj* tvm_relax__inspect_known_value(const tvm_relax_call_obj* call);
/* The reference evaluator's relax.inspect call (eval_inspect.c): *out from the argument values
 * vals (the tensor, then shape_i's / stride_i's axis); errors name func and the operator. */
int tvm_relax__eval_inspect(const char* func, const tvm_relax_call_obj* call,
                            const TVMFFIAny* vals, int32_t n, TVMFFIAny* out);

/* ---- Shared walks (expr.c) ------------------------------------------------------------------- */
/* Whether e may be nested in another expression in A-normal form: a leaf (Var, Constant,
 * ShapeExpr, PrimValue, StringImm, DataTypeImm, ExternFunc, GlobalVar, Op), or, with tuples, a
 * Tuple (whose fields are then leaves). */
bool tvm_relax__is_leaf(const void* e, bool tuples);
/* arr (an ffi.Array) with each item replaced by fn(ctx, item) (a new reference, or NULL + error):
 * a new Array, or arr itself (retained) when every item came back unchanged. */
void* tvm_relax__map_array(void* arr, void* (*fn)(void* ctx, void* item), void* ctx);

/* ---- Data layouts (layout.c) ----------------------------------------------------------------- */
enum { TVM_RELAX_LAYOUT_MAX = 10 };
/* A layout of canon's axes in any order plus packed sub-axes ("NCHW16c"), by logical axis k:
 * canon[k] for k < nprimal, then the sub-axes in canon's order. */
typedef struct {
  int32_t rank, nprimal;
  int32_t pos[TVM_RELAX_LAYOUT_MAX];    /* the index in the layout (the tensor's dim) of axis k */
  int64_t factor[TVM_RELAX_LAYOUT_MAX]; /* 0 for a primal axis, else the sub-axis's factor */
  char letter[TVM_RELAX_LAYOUT_MAX];
} tvm_relax__layout;
/* 0 and *out when layout parses against canon (the axes of unsplit may not be packed); else -1
 * and why in err (a clause: "it lacks the axis H"). */
int tvm_relax__layout_parse(const char* layout, const char* canon, const char* unsplit,
                            tvm_relax__layout* out, char* err, size_t errn);
/* Whether a and b pack the same axes by the same factors (their orders may differ). */
bool tvm_relax__layout_same_axes(const tvm_relax__layout* a, const tvm_relax__layout* b);
/* The upper-case (primal) axes of layout (for the kernels: the op's spatial rank + 2). */
int32_t tvm_relax__layout_primal_count(const char* layout);

/* ---- Helpers for inference rules (op_common.c) ------------------------------------------------- */
/* Raise kind ("TypeError", "ValueError") with "<op name>: <message>"; returns NULL. */
void* tvm_relax__op_error(const tvm_relax__infer_ctx* ctx, const char* kind, const char* fmt, ...)
    TVM_FFI_PRINTF(3, 4) TVM_FFI_COLD;
/* The name of argument i ("x1"). */
void tvm_relax__arg_name(const tvm_relax__infer_ctx* ctx, int32_t i, tvm_ffi_strbuf* out);
/* Argument i (borrowed) and its struct info (borrowed). */
tvm_relax_expr_obj* tvm_relax__arg(const tvm_relax__infer_ctx* ctx, int32_t i);
tvm_relax_sinfo_obj* tvm_relax__arg_sinfo(const tvm_relax__infer_ctx* ctx, int32_t i);
/* Argument i's TensorStructInfo (borrowed), or NULL + TypeError "argument 'x' must be a tensor,
 * got <sinfo>". */
tvm_relax_tensor_sinfo_obj* tvm_relax__arg_tensor(const tvm_relax__infer_ctx* ctx, int32_t i);
/* Raise kind with "<op name>: argument '<arg i's name>' <message>"; returns NULL. */
void* tvm_relax__arg_error(const tvm_relax__infer_ctx* ctx, int32_t i, const char* kind,
                           const char* fmt, ...) TVM_FFI_PRINTF(4, 5) TVM_FFI_COLD;
/* TypeError "argument '<name>' must be <need>, got <arg i's struct info>"; returns NULL. */
void* tvm_relax__arg_kind_error(const tvm_relax__infer_ctx* ctx, int32_t i, const char* need);
/* A TensorStructInfo of dtype and vdevice whose shape is argument i, an expression of struct info
 * R.Shape (TypeError otherwise): the argument itself when it is a ShapeExpr or a Var (a shape
 * variable stays symbolic, as upstream's TensorStructInfo(call->args[i], ...)), else its known
 * values or rank. New reference or NULL + error. */
tvm_relax_sinfo_obj* tvm_relax__tensor_of_shape_arg(const tvm_relax__infer_ctx* ctx, int32_t i,
                                                    DLDataType dtype, void* vdevice);
/* Attributes of the completed map (the schema guarantees presence and kind). */
int64_t tvm_relax__attr_int(const tvm_relax__infer_ctx* ctx, const char* name);
bool tvm_relax__attr_bool(const tvm_relax__infer_ctx* ctx, const char* name);
double tvm_relax__attr_float(const tvm_relax__infer_ctx* ctx, const char* name);
DLDataType tvm_relax__attr_dtype(const tvm_relax__infer_ctx* ctx, const char* name);
/* STR / OPT_STR attributes as C strings; NULL for None. */
const char* tvm_relax__attr_str(const tvm_relax__infer_ctx* ctx, const char* name);
/* INTS / OPT_INTS attributes: the ffi.Array (borrowed), NULL for None. */
void* tvm_relax__attr_ints(const tvm_relax__infer_ctx* ctx, const char* name);
/* A call's attribute read by a kernel (legalize_*.c): its value, or dflt when the call has no
 * such attribute, it is None, or of another kind (the inference rule checked the kinds). */
const char* tvm_relax__call_attr_str(const tvm_relax_call_obj* call, const char* name,
                                     const char* dflt);
int64_t tvm_relax__call_attr_int(const tvm_relax_call_obj* call, const char* name, int64_t dflt);
bool tvm_relax__call_attr_bool(const tvm_relax_call_obj* call, const char* name, bool dflt);
double tvm_relax__call_attr_float(const tvm_relax_call_obj* call, const char* name, double dflt);
/* Whether an OPT_ attribute is None. */
bool tvm_relax__attr_is_none(const tvm_relax__infer_ctx* ctx, const char* name);
/* The attribute itself (borrowed). */
const TVMFFIAny* tvm_relax__attr(const tvm_relax__infer_ctx* ctx, const char* name);

/* axis in [-ndim, ndim) normalised to [0, ndim), or -1 + ValueError naming the op. */
int tvm_relax__normalize_axis(const tvm_relax__infer_ctx* ctx, int64_t axis, int64_t ndim,
                              int64_t* out);
/* Whether objects a and b (NULL: none) are the same object or structurally equal (free
 * variables by identity): a vdevice, device mesh or placement compared with the one it was copied from is
 * usually the very object, then nothing is walked. */
bool tvm_relax__obj_equal(const void* a, const void* b);
/* Whether two int64 PrimExprs are provably equal (structurally, or by libtir's prover). */
bool tvm_relax__dim_equal(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b);
/* Whether two dims are structurally equal (free variables by identity), as
 * tvm_ffi_structural_equal says, decided directly for the forms dims take (constants, variables,
 * arithmetic on them) without its general machinery. */
bool tvm_relax__dim_same(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b);
/* Whether two int64 PrimExprs are provably unequal (different constants, or libtir's prover). */
bool tvm_relax__dim_unequal(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b);
/* A call_tir / call_tir_inplace / call_tir_with_grad of a PrimFunc of mod that provably does not
 * fit its signature (wellformed_call_tir.c): 1 with why set, 0 when it fits (or is no such
 * call), -1 on error. */
int tvm_relax__call_tir_mismatch(const tvm_tir_ir_module_obj* mod, const tvm_relax_call_obj* c,
                                 tvm_ffi_strbuf* why);
/* A new int64 IntImm. */
tvm_tir_expr_obj* tvm_relax__int64(int64_t v);
/* Dim e for messages, appended to b (the caller frees it): a constant as a plain integer,
 * else the expression's text. Returns b's text. */
const char* tvm_relax__dim_text(tvm_ffi_strbuf* b, const tvm_tir_expr_obj* e);
/* A TensorStructInfo of dims (ffi.Array of PrimExpr, NULL for unknown) and dtype, with ndim used
 * when dims is NULL, and vdevice (optional). New reference or NULL + error. */
tvm_relax_sinfo_obj* tvm_relax__tensor_result(void* dims, DLDataType dtype, int32_t ndim,
                                              void* vdevice);
/* fields[0] when n is 1, else a TupleStructInfo of fields[0..n) (the fields stay the caller's).
 * New reference or NULL + error. */
tvm_relax_sinfo_obj* tvm_relax__one_or_tuple(void* const* fields, int n);
/* Argument i (tensor a) must have the dtype of argument j (tensor b) when both are known; false +
 * TypeError "argument 'i' must have the dtype of 'j' (<b's>), got <a's>" otherwise. */
bool tvm_relax__same_dtype(const tvm_relax__infer_ctx* ctx, int32_t i,
                           const tvm_relax_tensor_sinfo_obj* a, int32_t j,
                           const tvm_relax_tensor_sinfo_obj* b);
/* The usual arithmetic dtype of two operands (equal, or one unknown -> the other unknown). */
DLDataType tvm_relax__binary_dtype(DLDataType a, DLDataType b, bool* ok);
/*
 * Broadcast two tensor struct infos' shapes numpy-style: *out_dims (a new reference: an operand's
 * own dims array when the result's dims are that operand's, else a new ffi.Array; NULL when the
 * result's dims are unknown) and *out_ndim. A provable mismatch (two constants, neither 1) is
 * a ValueError naming the op and the dims; dims that are unequal symbolic expressions make the
 * result's shape unknown (of known rank), as upstream does.
 */
int tvm_relax__broadcast(const tvm_relax__infer_ctx* ctx, const tvm_relax_tensor_sinfo_obj* a,
                         const tvm_relax_tensor_sinfo_obj* b, void** out_dims, int32_t* out_ndim);

/* An einsum's subscripts resolved against its operands' ranks (op_index.c): each dim's label
 * (a-z 0..25, A-Z 26..51, the k-th dim from the right of an ellipsis ELL + k) per operand, and
 * the output's labels (explicit after "->", else numpy's implicit order). */
enum {
  TVM_RELAX_EINSUM_MAX_OPS = 8,
  TVM_RELAX_EINSUM_MAX_DIMS = 16,
  TVM_RELAX_EINSUM_ELL = 52,
  TVM_RELAX_EINSUM_LABELS = 52 + 16
};
typedef struct {
  int nops, n_ell, n_out;
  int ndim[TVM_RELAX_EINSUM_MAX_OPS];
  int labels[TVM_RELAX_EINSUM_MAX_OPS][TVM_RELAX_EINSUM_MAX_DIMS];
  int out[TVM_RELAX_EINSUM_MAX_DIMS];
} tvm_relax__einsum;
/* ndims[i] < 0: unknown rank (the ellipsis then takes no dims). 0, or -1 with the reason in err. */
int tvm_relax__einsum_parse(const char* subs, const int32_t* ndims, int nops,
                            tvm_relax__einsum* out, tvm_ffi_strbuf* err);

/* ---- Walk shapes (analysis.c) ---------------------------------------------------------------- */
/* How the walkers (visitor, mutator) take a node apart, per kind of nodes.def: a kind without a
 * shape fails to compile (analysis.c's WALK_<Name> defines). */
typedef enum {
  TVM_RELAX__SHAPE_NOT_WALKED, /* struct info: the walkers do not enter it */
  TVM_RELAX__SHAPE_LEAF,       /* no children (constants, ShapeExpr, ExternFunc, GlobalVar, ...) */
  TVM_RELAX__SHAPE_VAR,        /* a Var or DataflowVar: a use, or a definition site */
  TVM_RELAX__SHAPE_CALL,       /* op, then args */
  TVM_RELAX__SHAPE_TUPLE,      /* fields */
  TVM_RELAX__SHAPE_TUPLE_GET_ITEM,
  TVM_RELAX__SHAPE_IF,         /* cond, true_branch, false_branch */
  TVM_RELAX__SHAPE_SEQ,        /* blocks, then body */
  TVM_RELAX__SHAPE_FUNCTION,   /* params (definitions), then body */
  TVM_RELAX__SHAPE_BINDING,    /* value, then var (a definition) */
  TVM_RELAX__SHAPE_BLOCK,      /* bindings */
} tvm_relax__walk_shape;
extern const tvm_relax__walk_shape tvm_relax__walk_shapes[TVM_RELAX_KIND_COUNT];
/* The shape of any node: libtir's expressions (GlobalVar, Op, PrimFunc) are leaves. */
static inline tvm_relax__walk_shape tvm_relax__walk_shape_of(const void* node) {
  tvm_relax_kind k = tvm_relax_kind_of(node);
  return k == TVM_RELAX_KIND_NONE ? TVM_RELAX__SHAPE_LEAF : tvm_relax__walk_shapes[k];
}

/* ---- Struct info helpers (struct_info.c, struct_info_symbolic.c, text.c) ---------------------- */
static inline tvm_relax_sinfo_obj* retained_sinfo(const tvm_relax_sinfo_obj* s) {
  tvm_ffi_retain((void*)s);
  return (tvm_relax_sinfo_obj*)s;
}
/* Append the TIR variables of PrimExpr e not yet in `seen` (ffi.Dict) to `out` (ffi.List). */
int tvm_relax__expr_tir_vars(const tvm_tir_expr_obj* e, void* out, void* seen);
/* tvm_relax_sinfo_tir_vars with the caller's `seen` (ffi.Dict of the variables already in
 * `out`), so that collecting over many struct infos costs each one's size only. */
int tvm_relax__sinfo_tir_vars_seen(const tvm_relax_sinfo_obj* sinfo, bool defs_only, void* out,
                                   void* seen);
/* e with the TIR variables that vmap (ffi.Map/Dict tir.Var -> PrimExpr) maps replaced, then
 * simplified when anything changed; e itself (retained) otherwise. NULL + error. */
tvm_tir_expr_obj* tvm_relax__subst_expr(const void* vmap, tvm_tir_expr_obj* e);
/* Text of an expression or struct info for messages (never fails). */
void tvm_relax__text(tvm_ffi_strbuf* out, const void* obj);
/* The FuncStructInfo-derived result of calling a callee of struct info fsinfo with args:
 * checks the count and each argument against its parameter; a message names the callee. */
tvm_relax_sinfo_obj* tvm_relax__call_func_sinfo(const tvm_relax_func_sinfo_obj* fsinfo, void* args,
                                                const void* callee);

/* ---- Legalization (legalize.c, legalize_<family>.c) ------------------------------------------ */
/* A kernel under construction: the call's TIR variables mapped to the kernel's own, and the
 * buffer parameters made so far (inputs first, then outputs). A kernel binds its variables
 * from its buffers' bare-variable dims; a composite dim (`n * 2`) using a variable that no
 * bare dim of the call's tensors or result gives becomes a variable of its own (one per
 * structurally distinct expression), bound from the tensor like any bare dim: the call's
 * struct info guarantees the relations between dims that the kernel then no longer sees. A
 * variable the kernel reads that no dim gives at all (strided_slice's symbolic begin) is a
 * scalar parameter after the buffers (tvm_relax__kernel_scalar): the call passes its value as
 * call_tir's tir_vars. */
typedef struct {
  void* vmap;    /* ffi.Dict tir.Var -> tir.Var */
  void* params;  /* ffi.List of Buffers */
  void* bound;   /* ffi.Dict tir.Var -> None: the call's variables some bare dim gives */
  void* dims;    /* ffi.List of (composite dim, its kernel variable) pairs, flattened */
  void* scalars; /* ffi.List of (the call's variable, the kernel's scalar parameter) pairs,
                  * flattened, in parameter order */
} tvm_relax__kernel;
/* Start the kernel of `call` (its tensor arguments and result give the bound variables; NULL:
 * none, so every composite dim gets a variable of its own, as for FuseTIR's fused kernels). */
int tvm_relax__kernel_init(tvm_relax__kernel* k, const tvm_relax_call_obj* call);
void tvm_relax__kernel_free(tvm_relax__kernel* k);
/* A buffer parameter for a tensor of struct info sinfo (known shape and dtype), appended to the
 * kernel's params (new reference). */
tvm_tir_buffer_obj* tvm_relax__kernel_buffer(tvm_relax__kernel* k, const char* name,
                                             const tvm_relax_sinfo_obj* sinfo);
/* PrimExpr e of the call as the kernel reads it: the call's variables the kernel's buffers give
 * replaced by the kernel's, and each other one by a scalar parameter of the kernel (made on
 * first sight). New reference, NULL + error. Call after the buffers are made. */
tvm_tir_expr_obj* tvm_relax__kernel_scalar(tvm_relax__kernel* k, tvm_tir_expr_obj* e);
/* The PrimFunc of the kernel's params (buffers, then scalars) and body (consumed). */
tvm_tir_prim_func_obj* tvm_relax__kernel_finish(tvm_relax__kernel* k, void* body);
/* The call's variables the kernel's scalar parameters take, in order (a new ffi.Array; NULL
 * when it has none, or + error when out of memory: check tvm_ffi_error_pending). */
void* tvm_relax__kernel_scalar_args(const tvm_relax__kernel* k);
/* n new int64 loop variables named <prefix>0, <prefix>1, ... into out (new references). */
int tvm_relax__kernel_vars(void** out, int64_t n, const char* prefix);
/* Release n objects. */
void tvm_relax__release_all(void* const* objs, int64_t n);
/* callee(args) with sinfo (borrowed) as its one struct info argument, at span: call_tir's
 * output, or a function standing for an operator call (the call's own struct info). A new
 * reference, or NULL + error; NULL callee / args / sinfo (an earlier step failed, its error
 * raised) give NULL. */
tvm_relax_expr_obj* tvm_relax__call_sinfo(void* callee, void* args,
                                          const tvm_relax_sinfo_obj* sinfo, void* span);
/* body (consumed) inside serial loops, outermost first, over the dims i with include[i] (NULL:
 * all): vars[i] from 0 to extents[i]. */
void* tvm_relax__loop_nest(void* const* vars, void* const* extents, int64_t n, const bool* include,
                           void* body);
/* A one-element scratch buffer (an accumulator), and body (consumed) in its scope: allocated,
 * declared. */
tvm_tir_buffer_obj* tvm_relax__scratch(const char* name, DLDataType dtype);
void* tvm_relax__scratch_scope(tvm_tir_buffer_obj* buf, void* body);
/* buf[0] and buf[0] = value (consumed). */
void* tvm_relax__scratch_load(tvm_tir_buffer_obj* buf);
void* tvm_relax__scratch_store(tvm_tir_buffer_obj* buf, void* value);
/* The kernel computing a call (its tensor arguments, then its output, as buffers). */
typedef tvm_tir_prim_func_obj* (*tvm_relax__legalize_fn)(const tvm_relax_call_obj* call);
/* strided_slice's kernel, whose begin may use TIR variables no tensor dim gives: *tir_vars is
 * then the new ffi.Array of those variables (the kernel's scalar parameters, after its
 * buffers), else NULL. (The table's entry refuses such a call: it has no tir_vars to give.) */
tvm_tir_prim_func_obj* tvm_relax__legalize_strided_slice_vars(const tvm_relax_call_obj* call,
                                                             void** tir_vars);
/* The legalization of operator id (legalize.c's table), NULL when it has none. */
tvm_relax__legalize_fn tvm_relax__legalization(int32_t id);
tvm_tir_prim_func_obj* tvm_relax__legalize_elementwise(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_matmul(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_outer(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_pixel_shuffle(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_softmax(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_norm(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_reduce(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_variance(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_scan(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_bucketize(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_multinomial(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_collapse_sum(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_attention(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_attention_var_len(const tvm_relax_call_obj* call);
/* The kernel's tensor inputs of a call, appended to `out` (ffi.List of Relax expressions): each
 * tensor argument, and each field of an argument that is a tuple of tensors (a Tuple literal's
 * field, else a TupleGetItem of it), in order. 0 or -1 + error. */
int tvm_relax__kernel_inputs(const tvm_relax_call_obj* call, void* out);
/* The body of a kernel from its input buffers (tvm_relax__kernel_inputs' order) and output
 * buffers (one, or one per field of a tuple result); NULL + error. */
typedef void* (*tvm_relax__body_fn)(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                    int nin, tvm_tir_buffer_obj* const* out, int nout);
/* The kernel of a call whose body fn builds. */
tvm_tir_prim_func_obj* tvm_relax__legalize_with(const tvm_relax_call_obj* call,
                                                tvm_relax__body_fn fn);
/* The same with the output's struct info given (a kernel whose output is not the call's). */
tvm_tir_prim_func_obj* tvm_relax__legalize_with_out(const tvm_relax_call_obj* call,
                                                    const tvm_relax_sinfo_obj* out_sinfo,
                                                    tvm_relax__body_fn fn);
/* Data-dependent output shapes (legalize_dynamic.c; dynamic_strided_slice, nonzero, unique).
 * The number of int64 values the shape kernel writes (-1 + error when no kernel can be built);
 * the shape kernel (its output a 1-d int64 tensor of that length); the value kernel, given the
 * output's struct info with the dims the shape kernel computed bound to new variables. */
int64_t tvm_relax__dynamic_shape_len(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_dynamic_shape(const tvm_relax_call_obj* call,
                                                         const tvm_relax_sinfo_obj* shape_sinfo);
tvm_tir_prim_func_obj* tvm_relax__legalize_dynamic_value(const tvm_relax_call_obj* call,
                                                         const tvm_relax_sinfo_obj* out_sinfo);
/* The value kernel's output struct info, given the dims the shape kernel computed (an
 * ffi.Array bound by the match_cast): a tensor of those dims, or unique's results. */
tvm_relax_sinfo_obj* tvm_relax__dynamic_out_sinfo(const tvm_relax_call_obj* call, void* dims);
/* unique's value kernel for a call whose results are known (a 0-d x; FoldConstant's entry). */
tvm_tir_prim_func_obj* tvm_relax__legalize_unique(const tvm_relax_call_obj* call);
/* The relax.inspect operators' host getters (legalize_inspect.c): a PrimFunc
 * `(dlpack_handle: T.handle[, axis: T.int64])` returning the field with T.ret, which LegalizeOps
 * calls directly (not through call_tir). */
tvm_tir_prim_func_obj* tvm_relax__legalize_inspect(const tvm_relax_call_obj* call);
/* out[vars] = value (consumed) inside serial loops over out's whole shape (vars: one new loop
 * variable per dim, borrowed). */
void* tvm_relax__store_all(tvm_tir_buffer_obj* out, void* const* vars, void* value);
/* 0 <= idx < extent, a bool (idx and extent borrowed). */
void* tvm_relax__in_range(void* idx, void* extent);
/* body (consumed) under the assertion ok (consumed) that the indices a kernel read from a tensor
 * are inside their dims, failing with "<the call's op>: an index is out of range" (topi reads or
 * writes out of bounds there); body itself when ok folded to true. */
void* tvm_relax__assert_indices(const tvm_relax_call_obj* call, void* ok, void* body);
/* The row-major linear index of idx (borrowed) into buffer b's shape (new reference). */
void* tvm_relax__flat_index(tvm_tir_buffer_obj* b, void* const* idx);
/* The indices of b's shape whose row-major linear index is lin (borrowed), into out (new
 * references). */
void tvm_relax__unflat_index(tvm_tir_buffer_obj* b, void* lin, void** out);
/* The integer values of a call argument that is a tuple of constant R.Prim values or an R.Shape
 * of constants, into out[0..max); the count, or -1 when some value is not a constant. */
int64_t tvm_relax__const_ints(const tvm_relax_expr_obj* arg, int64_t* out, int64_t max);
/* The value of a call argument that is a constant R.Prim scalar, as a double; false otherwise. */
bool tvm_relax__const_scalar(const tvm_relax_expr_obj* arg, double* out);
/* Manipulation (legalize_manip.c), creation (legalize_create.c), convolution, pooling and the
 * other nn kernels (legalize_conv.c). */
tvm_tir_prim_func_obj* tvm_relax__legalize_reshape(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_permute_dims(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_broadcast_to(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_concat(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_stack(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_split(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_strided_slice(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_take(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_tile(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_repeat(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_flip(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_layout_transform(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_meshgrid(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_fill(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_arange(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_tri(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_eye(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_hamming_window(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_conv(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_conv_transpose(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_pool(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_adaptive_pool(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_pad(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_batch_norm(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_dropout(const tvm_relax_call_obj* call);
/* Gather / scatter, one_hot, slice_scatter and sorting (legalize_index.c). */
tvm_tir_prim_func_obj* tvm_relax__legalize_gather_elements(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_gather_nd(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_scatter_elements(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_scatter_nd(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_index_put(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_index_tensor(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_slice_scatter(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_one_hot(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_sort(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_einsum(const tvm_relax_call_obj* call);
/* image.resize2d / resize3d, image.grid_sample (legalize_image.c). */
tvm_tir_prim_func_obj* tvm_relax__legalize_resize2d(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_grid_sample(const tvm_relax_call_obj* call);
/* image.affine_grid, vision.roi_align / roi_pool / get_valid_counts, the NMS operators and
 * vision.multibox_transform_loc (legalize_vision.c). */
tvm_tir_prim_func_obj* tvm_relax__legalize_affine_grid(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_roi_align(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_roi_pool(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_get_valid_counts(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_nms(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_all_class_nms(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_multibox_transform_loc(const tvm_relax_call_obj* call);
/* quantize / dequantize, prelu, group_norm, nll_loss, cross_entropy_with_logits
 * (legalize_nn_extra.c). */
tvm_tir_prim_func_obj* tvm_relax__legalize_quantize(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_dequantize(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_prelu(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_group_norm(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_instance_norm(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_nll_loss(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_cross_entropy(const tvm_relax_call_obj* call);
/* median, grad.nll_loss_backward, grad.take_backward (legalize_grad.c);
 * grad.max_pool2d_backward / avg_pool2d_backward (legalize_conv.c). */
tvm_tir_prim_func_obj* tvm_relax__legalize_median(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_nll_loss_backward(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_take_backward(const tvm_relax_call_obj* call);
tvm_tir_prim_func_obj* tvm_relax__legalize_pool2d_backward(const tvm_relax_call_obj* call);

/* ---- memory.view, to_vdevice (op_memory_view.c) ---------------------------------------------------------- */
/* Whether e is "void": of struct info R.Tuple() (memory.view's "no change"). */
bool tvm_relax__is_void(const tvm_relax_expr_obj* e);
/* The struct info of a call of f (an opaque function with a derive_func) on args: the rule's
 * (tvm_relax_func_sinfo_derived); NULL with the rule's error. */
tvm_relax_sinfo_obj* tvm_relax__derive_call_sinfo(const tvm_relax_func_sinfo_obj* f, void* args);
/* The DLPack device type of an ir.VDevice's target kind (llvm / c: kDLCPU, cuda: kDLCUDA), or
 * -1 for a kind without one here. */
int32_t tvm_relax__vdevice_device_type(const void* vdevice);

/* ---- Evaluation (eval.c) --------------------------------------------------------------------- */
/* Evaluate e, an expression without free Relax or TIR variables (constants, shapes, prim values,
 * tuples and calls of them; call_tir runs mod's PrimFunc in libtir's interpreter), as
 * tvm_relax_eval evaluates a function's bindings; `what` names it in errors. *out is owned.
 * 0, or -1 + error. */
int tvm_relax__eval_closed(const tvm_tir_ir_module_obj* mod, const tvm_relax_expr_obj* e,
                           const char* what, TVMFFIAny* out);

/* ---- Pass helpers (pipeline.c) --------------------------------------------------------------- */
/* A rewrite of one Relax function: the new function (new reference; f retained when unchanged)
 * or NULL + error. */
typedef tvm_relax_function_obj* (*tvm_relax__func_rewrite)(tvm_relax_function_obj* f, void* ctx);
/* A pass's result: mod itself (retained) when !changed, else a module of mod's attributes with
 * the functions of `funcs` (an ffi.Dict GlobalVar -> function); NULL + error. */
tvm_tir_ir_module_obj* tvm_relax__module_with(const tvm_tir_ir_module_obj* mod, void* funcs,
                                              bool changed);
/* The public passes run `run` through this: a stale error the caller left raised is set aside
 * while it runs (ffi.h, tvm_ffi_error_give_back), since the passes read a raised error as
 * their own failure. */
tvm_tir_ir_module_obj* tvm_relax__pass_set_aside(tvm_relax_pass_fn run,
                                                 const tvm_tir_ir_module_obj* mod);
/* mod (an IRModule, else TypeError naming pass) with fn applied to each of its Relax functions;
 * mod itself (retained) when no function changed. */
tvm_tir_ir_module_obj* tvm_relax__map_functions(const tvm_tir_ir_module_obj* mod, const char* pass,
                                                tvm_relax__func_rewrite fn, void* ctx);
/* The GlobalVar under which a pass adds PrimFunc func to a module: its struct info is the
 * function's (tvm_relax_expr_sinfo), as upstream's BlockBuilder::AddFunction sets it and as the
 * parser sets it on a module's GlobalVars, so a module prints and parses back equal. */
tvm_tir_global_var_obj* tvm_relax__prim_func_global_var(const char* name, const void* func);
/* The operator id of a Call of an operator, else -1. */
int32_t tvm_relax__call_op_id(const void* expr);
/* The function's body blocks rebuilt from per-block binding lists (ffi.Lists, one per block of
 * f's body SeqExpr, same dataflow-ness): a new Function with the same params, body result,
 * return struct info, purity and attrs. */
tvm_relax_function_obj* tvm_relax__function_with_blocks(tvm_relax_function_obj* f, void* lists);

/* ---- Lifetimes of allocated values (liveness.c) ---------------------------------------------- */
/*
 * The values of a function's top-level bindings that is_root picks (allocations), each a token:
 * the top-level position (the bindings of the body's blocks counted in order; the body's result
 * is position `count`) of its binding and of its last use, a use of a Var bound to it
 * (`v = root`, `v = R.match_cast(root, ...)`) counting as a use of it. A value escapes when it is
 * used other than as a direct argument of a call that cannot return it or a view of it (a
 * PrimFunc of mod, memory.alloc_tensor, the kills, shape_of): in a tuple, as a branch's or the
 * function's result, as a condition, inside a nested function, passed to a Relax function or a
 * packed function. Its lifetime is then not known from the function alone.
 */
typedef struct {
  void* token_of;  /* ffi.Dict Var -> token index (the roots and the Vars bound to them) */
  void* roots;     /* ffi.List of the root Vars, by token */
  int64_t n, cap;  /* tokens */
  int64_t* def;    /* position of the root's binding */
  int64_t* last;   /* position of the last use (def when unused) */
  bool* escapes;
  int64_t count;   /* top-level bindings */
  const tvm_tir_ir_module_obj* mod;
} tvm_relax__liveness;
int tvm_relax__liveness_init(tvm_relax__liveness* l, const tvm_tir_ir_module_obj* mod,
                             const tvm_relax_function_obj* f,
                             bool (*is_root)(const tvm_relax_binding_obj* b));
void tvm_relax__liveness_free(tvm_relax__liveness* l);

#endif /* TVM_RELAX_INTERNAL_H_ */

/*
 * relax_vm_shape.h: the shape heap of a Relax function compiled by VMCodeGen
 * (relax_vm_codegen.c) and the shape functions that compute its composite dims
 * (relax_vm_shape.c). Private to those two files.
 *
 * Each symbolic variable the function binds, and each composite expression of them that it
 * checks or uses (`n * 2`, `(n + 1) // 2`), has a slot of the function's shape heap (an int64
 * tensor made by vm.builtin.alloc_shape_heap). Variables are stored by vm.builtin.match_shape /
 * match_prim_value; composite expressions are computed by a generated PrimFunc, a shape
 * function `shape_func(H: T.Buffer((heap_size,), "int64"))` whose body stores each expression,
 * with its variables read from their slots, into its own slot: upstream's VMShapeLower design.
 * The shape functions are compiled with the kernels (tvm_codegen__relax_vm_codegen returns them
 * with the module's PrimFuncs).
 */
#ifndef TVM_CODEGEN_RELAX_VM_SHAPE_H_
#define TVM_CODEGEN_RELAX_VM_SHAPE_H_

#include <tvm/relax/relax.h>
#include <tvm/tir/tir.h>

/* What the functions of one module share: the shape functions made (their names unique in the
 * module). */
typedef struct {
  const tvm_tir_ir_module_obj* mod;
  void* funcs;  /* ffi.Dict GlobalVar -> PrimFunc */
  int64_t next; /* the next name suffix */
} tvm_codegen__shape_funcs;

int tvm_codegen__shape_funcs_init(tvm_codegen__shape_funcs* sf, const tvm_tir_ir_module_obj* mod);
void tvm_codegen__shape_funcs_free(tvm_codegen__shape_funcs* sf);

/* The shape heap of one function. */
typedef struct {
  tvm_codegen__shape_funcs* shared;
  const char* fname;   /* the Relax function, for messages */
  void* var_slots;     /* ffi.Dict tir.Var -> slot */
  void* by_hash;       /* ffi.Dict structural hash -> ffi.List of composite slots */
  void* slot_exprs;    /* ffi.List: slot -> its composite PrimExpr, or None for a variable */
  uint8_t* computed;   /* composite slot computed on every path to the code being emitted */
  int64_t cap_computed;
  int64_t* log;        /* the composite slots marked computed, in order (for scopes) */
  int64_t n_log, cap_log;
  void* size_var;      /* the shape functions' heap size variable (made on first use) */
} tvm_codegen__shape_heap;

int tvm_codegen__shape_heap_init(tvm_codegen__shape_heap* h, tvm_codegen__shape_funcs* shared,
                                 const char* fname);
void tvm_codegen__shape_heap_free(tvm_codegen__shape_heap* h);
/* The number of slots. */
int64_t tvm_codegen__shape_heap_size(const tvm_codegen__shape_heap* h);
/* The slot of variable var: -1 when it has none and !create; -2 + error. */
int64_t tvm_codegen__shape_var_slot(tvm_codegen__shape_heap* h, const void* var, bool create);
/* The slot of composite expression e (structurally equal expressions share one), made on first
 * use; -1 + error. */
int64_t tvm_codegen__shape_expr_slot(tvm_codegen__shape_heap* h, const tvm_tir_expr_obj* e);
bool tvm_codegen__shape_is_computed(const tvm_codegen__shape_heap* h, int64_t slot);
/*
 * A shape function computing composite slots[0..n) (not computed yet) from the variables'
 * slots, added to the shared functions: its name (valid while the shared functions live) for
 * the caller to emit `name(heap)`; the slots are then computed. NULL + ValueError naming the
 * expression when a variable it uses has no slot (not defined at this point).
 */
const char* tvm_codegen__shape_func(tvm_codegen__shape_heap* h, const int64_t* slots, int64_t n);
/* Scopes (If branches): a mark, and forgetting what was computed after it. */
int64_t tvm_codegen__shape_scope(const tvm_codegen__shape_heap* h);
void tvm_codegen__shape_unscope(tvm_codegen__shape_heap* h, int64_t mark);

#endif /* TVM_CODEGEN_RELAX_VM_SHAPE_H_ */

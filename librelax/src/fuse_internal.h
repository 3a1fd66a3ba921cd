/*
 * fuse_internal.h: what the fusion passes share (annotate_tir_op_pattern.c, fuse_ops.c,
 * fuse_tir.c, fuse_tir_inline.c; not installed).
 */
#ifndef TVM_RELAX_FUSE_INTERNAL_H_
#define TVM_RELAX_FUSE_INTERNAL_H_

#include <tvm/tir/visit.h>

#include "internal.h"

/* Whether func is a Relax Function with a non-zero "Primitive" attribute (a FuseOps group). */
bool tvm_relax__is_primitive(const void* func);

/* For a call_tir binding value that FuseTIR can merge (a call_tir of a PrimFunc of mod, tensor
 * arguments (Vars or Constants) of known shape and dtype in a Tuple, a known tensor or
 * tuple-of-tensors output, one buffer parameter per argument and output): the kernel's
 * "op_pattern" attribute, kOpaque without one. -1 for any other value. */
int32_t tvm_relax__fusible_call_tir(const tvm_tir_ir_module_obj* mod, const void* value);

/* func with its SBlocks turned into loops (libtir's lower_init + convert_blocks), or func itself
 * (retained) when it has none. New reference or NULL + error. */
tvm_tir_prim_func_obj* tvm_relax__prim_func_loops(const tvm_tir_prim_func_obj* func);


/*
 * FuseTIR's per-element rewrites of a fused kernel's statements (fuse_tir_inline.c):
 *   stmts      ffi.List: one statement per merged kernel, in order (entries may become None)
 *   writer     ffi.Dict Buffer -> int: the index of the statement writing each buffer
 *   locals     ffi.Dict Buffer -> 1: the intermediate buffers (entries removed when inlined)
 * Producers computed per element are inlined into their single reader, and elementwise
 * consumers move into the loop nest of the kernel that produces their input (see the file).
 */
int tvm_relax__fuse_tir_rewrite(void* stmts, void* writer, void* locals);

#endif /* TVM_RELAX_FUSE_INTERNAL_H_ */

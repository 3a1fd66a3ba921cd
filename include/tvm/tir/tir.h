/*
 * tvm/tir/tir.h: all of libtir's public API.
 *
 *   dtype.h     DLDataType helpers with TIR's spelling (bool = uint1, handle, void)
 *   node.h      node kinds (nodes.def), type indices, base structs, typing rules (rules.def)
 *   type.h      PrimType, PointerType, TupleType
 *   expr.h      PrimExpr nodes and their rule-checking constructors
 *   buffer.h    Range, IterVar, Buffer, BufferRegion, MatchBufferRegion
 *   stmt.h      statements
 *   function.h  GlobalVar, PrimFunc, IRModule
 *   op.h        the ir.Op registry (ops.def) and operator helpers with promotion and folding
 *   builder.h   terse hand construction of IR (_take functions)
 *   interp.h    the reference interpreter (tvm_tir_interp_run)
 *   transform.h the lowering passes and their pipeline (tvm_tir_lower)
 *   schedule.h  the default CPU schedule (rules applied to unscheduled kernels)
 */
#ifndef TVM_TIR_TIR_H_
#define TVM_TIR_TIR_H_

#include <tvm/tir/buffer.h>
#include <tvm/tir/builder.h>
#include <tvm/tir/dtype.h>
#include <tvm/tir/expr.h>
#include <tvm/tir/function.h>
#include <tvm/tir/node.h>
#include <tvm/tir/op.h>
#include <tvm/tir/stmt.h>
#include <tvm/tir/attr_value.h>
#include <tvm/tir/type.h>
#include <tvm/tir/analysis.h>
#include <tvm/tir/arith.h>
#include <tvm/tir/interp.h>
#include <tvm/tir/visit.h>
#include <tvm/tir/transform.h>
#include <tvm/tir/schedule.h>

#endif /* TVM_TIR_TIR_H_ */

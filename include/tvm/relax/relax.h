/* tvm/relax/relax.h: all of librelax's public API. */
#ifndef TVM_RELAX_RELAX_H_
#define TVM_RELAX_RELAX_H_

#include <tvm/relax/node.h>
#include <tvm/relax/struct_info.h>
#include <tvm/relax/distributed.h>
#include <tvm/relax/expr.h>
#include <tvm/relax/op.h>
#include <tvm/relax/block_builder.h>
#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>
#include <tvm/relax/eval.h>

#endif /* TVM_RELAX_RELAX_H_ */

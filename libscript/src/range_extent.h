/* range_extent.h: the extent of a range written as [start, stop), shared by the parser (which
 * reads `range(m, e)`, `T.serial(m, e)`, `(m, e)` axis domains and `m:e` slices) and the
 * printer (which writes the shortest `e` that this function reads back exactly). */
#ifndef TVM_SCRIPT_RANGE_EXTENT_H_
#define TVM_SCRIPT_RANGE_EXTENT_H_

#include <tvm/tir/tir.h>

/* The extent of [start, stop): stop - start, folded or simplified (`i * 4:i * 4 + 4` has
 * extent 4, as upstream's analyzer gives). A stop of the form start + e (what the printer writes
 * when no shorter stop reads back the same) gives e itself. New reference; NULL + unlocated
 * error. */
tvm_tir_expr_obj* tvm_script__range_extent(tvm_tir_expr_obj* start, tvm_tir_expr_obj* stop);

#endif /* TVM_SCRIPT_RANGE_EXTENT_H_ */

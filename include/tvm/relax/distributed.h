/*
 * tvm/relax/distributed.h: the distributed Relax dialect (upstream: relax/distributed/): a
 * device mesh (relax.distributed.DeviceMesh, a module global info under "mesh"), the placement of
 * a tensor on it, and DTensorStructInfo, the struct info of a tensor laid out on a mesh.
 *
 * A placement has one spec per mesh dimension: replicated ("R") or sharded along a tensor axis
 * ("S[i]"); its text is the specs joined by ", " ("S[1], R"). Here a placement is an ffi.Array
 * of int64, one per mesh dimension: TVM_RELAX_PLACEMENT_REPLICA (-1) or the sharded axis i >= 0.
 *
 * This project has no distributed runtime (upstream's Disco): these nodes and the dist / ccl
 * operators parse, print, infer and check, and LegalizeOps refuses them with a located error.
 */
#ifndef TVM_RELAX_DISTRIBUTED_H_
#define TVM_RELAX_DISTRIBUTED_H_

#include <tvm/relax/struct_info.h>
#include <tvm/tir/buffer.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

#define TVM_RELAX_PLACEMENT_REPLICA (-1)

/* relax.distributed.DeviceMesh: shape (ffi.Array of int64, the mesh's dims), device_ids
 * (ffi.Array of int64, row-major over the mesh, as many as the product of shape) and, when the
 * ids were given as a range, device_range (an ir.Range of constants; printed that way). */
struct tvm_relax_device_mesh_obj {
  TVMFFIObject header;
  void* shape;
  void* device_ids;
  tvm_tir_range_obj* device_range; /* optional */
};
/* relax.DTensorStructInfo: a tensor (tensor_sinfo, a TensorStructInfo) laid out on device_mesh
 * by placement (ffi.Array of int64, one per mesh dim, see above). */
struct tvm_relax_dtensor_sinfo_obj {
  tvm_relax_sinfo_obj base;
  tvm_relax_sinfo_obj* tensor_sinfo;
  tvm_relax_device_mesh_obj* device_mesh;
  void* placement;
};

/* A mesh of shape (ffi.Array of integers, each >= 1) over device_ids (ffi.Array of integers
 * >= 0, one per mesh element) or, when device_ids is NULL, over range (an ir.Range of integer
 * constants whose extent is the number of mesh elements). ValueError / TypeError otherwise. */
tvm_relax_device_mesh_obj* tvm_relax_device_mesh_new(void* shape, void* device_ids,
                                                     tvm_tir_range_obj* range);
int64_t tvm_relax_device_mesh_ndim(const tvm_relax_device_mesh_obj* mesh);

/* Parse placement text ("R", "S[0]", "S[1], R"; spaces allowed around items) into a new
 * ffi.Array, or NULL + ValueError naming the offending item and its offset. */
void* tvm_relax_placement_parse(const char* text, size_t len);
/* Append the canonical text of a placement ("S[1], R"). */
void tvm_relax_placement_text(tvm_ffi_strbuf* out, const void* placement);
/* Whether placement fits mesh and a tensor of rank ndim (-1: unknown): one spec per mesh dim,
 * each sharded axis < ndim. 0, or -1 + ValueError ("<what>: ..."). */
int tvm_relax_placement_check(const void* placement, const tvm_relax_device_mesh_obj* mesh,
                              int32_t ndim, const char* what);

/* DTensorStructInfo of tensor_sinfo (a TensorStructInfo), mesh and placement, checked by
 * tvm_relax_placement_check. New reference, or NULL + error. */
tvm_relax_sinfo_obj* tvm_relax_dtensor_sinfo_new(tvm_relax_sinfo_obj* tensor_sinfo,
                                                 tvm_relax_device_mesh_obj* mesh, void* placement);

/* Whether a struct info mentions a DTensor anywhere (in a tuple or function signature too). */
bool tvm_relax_sinfo_has_dtensor(const tvm_relax_sinfo_obj* sinfo);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_DISTRIBUTED_H_ */

# GPU and runtime intrinsics: warp shuffles, tensor-core fragments, scalable vectors (T.vscale),
# profiling markers, per-axis quantized multiply and the AnyList calls of the Relax VM.
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((32,), "float32"), Q: T.Buffer((4,), "int32"), frag: T.handle, lst: T.handle):
    for tx in T.thread_binding(32, thread="threadIdx.x"):
        mask = T.tvm_warp_activemask()
        A[tx] = T.tvm_warp_shuffle(mask, A[tx], 0, 32, 32)
        A[tx] = A[tx] + T.tvm_warp_shuffle_down(mask, A[tx], 16, 32, 32)
        A[tx] = A[tx] + T.tvm_warp_shuffle_up(mask, A[tx], 1, 32, 32)
    T.tvm_fill_fragment(frag, 16, 16, 16, 0, T.float32(0))
    T.tvm_load_matrix_sync(frag, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), A.data, 0, 256, 1), 16, "row_major")
    T.tvm_mma_sync(frag, 0, frag, 0, frag, 0, frag, 0)
    T.tvm_store_matrix_sync(frag, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), A.data, 0, 256, 2), 16, "row_major")
    n = T.vscale() * 4
    Q[0] = T.q_multiply_shift_per_axis(Q[0], Q[1], Q[2], Q[3], 31, False, True) + n
    T.start_profile_intrinsic(3)
    T.evaluate(T.anylist_setitem_call_packed(lst, 0, "vm.builtin.alloc", Q[0]))
    T.evaluate(T.anylist_getitem(lst, 0))
    T.evaluate(T.anylist_resetitem(lst, 0))
    T.end_profile_intrinsic(3)

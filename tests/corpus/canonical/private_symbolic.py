# from tvm.script import tirx as T

@T.prim_func(private=True)
def main(A_handle: T.handle):
    T.func_attr({"tir.noalias": True})
    n = T.int32()
    A = T.match_buffer(A_handle, (n,), "float32")
    A[0] = T.float32(0.0)

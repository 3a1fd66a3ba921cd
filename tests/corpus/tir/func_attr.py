# Function attributes and decorator flags.
from tvm.script import tirx as T


@T.prim_func(private=True)
def kernel(A: T.Buffer((128,), "float32")):
    T.func_attr({"tir.noalias": True, "global_symbol": "my_kernel", "tir.is_entry_func": False,
                 "result_dtype": T.float32x4})
    for i in T.serial(128):
        A[i] = A[i] * T.float32(2)

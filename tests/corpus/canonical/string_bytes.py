# from tvm.script import tirx as T

@T.prim_func
def string_bytes(A: T.Buffer((4,), "int32")):
    assert A[0] == 0, "tab\there, nul\x00inside"
    A[1] = T.call_extern("int32", "ab\x00cd", "quote\" back\\slash \x7f\x01 é")

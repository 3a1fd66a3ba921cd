# Pointer intrinsics of lowered code: tvm_access_ptr with a type_annotation, and a stack
# allocation of packed-call arguments.
from tvm.script import tirx as T


@T.prim_func
def access_ptr(A: T.Buffer((64,), "float32")):
    for i in range(4):
        T.evaluate(T.call_extern("int32", "consume", T.tvm_access_ptr(T.type_annotation("float32"), A.data, i * 16, 16, 3)))
    stack = T.tvm_stack_alloca("arg_value", 2)
    T.evaluate(T.call_extern("int32", "use_stack", stack))

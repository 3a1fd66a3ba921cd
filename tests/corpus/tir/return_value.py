# PrimFuncs that return a value (`return v` is T.evaluate(T.ret(v))): a scalar expression, a
# comparison (bool), and early returns from inside a loop and a branch, as real programs write
# them. libcodegen compiles all three (tests/codegen/test_codegen_ret.c checks the same
# shapes against the interpreter).
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def scale(x: T.float32) -> T.float32:
        return x * T.float32(2.5)

    @T.prim_func
    def is_positive(n: T.int64) -> T.bool:
        return n > T.int64(0)

    @T.prim_func
    def find_first(A: T.Buffer((128,), "int32"), value: T.int32) -> T.int32:
        for i in range(128):
            if A[i] == value:
                return i
        return -1

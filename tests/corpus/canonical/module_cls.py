# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def inc(x: T.int32) -> T.int32:
        T.ret(x + 1)

    @T.prim_func
    def main(y: T.int32):
        cls = Module
        cls.inc(y)

# expect: TypeError 9:29
# A metadata Constant whose struct info is not its tensor's (the ShapeStructInfo of its shape
# says ndim 3 for two values): an error at the metadata section (a small constant would print
# inline as R.const and read back with the tensor's own struct info).
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

metadata = tvm.ir.load_json("""{
  "root_index": 11,
  "nodes": [
    {
      "type": "ffi.String",
      "data": "relax.expr.Constant"
    },
    {
      "type": "None"
    },
    {
      "type": "ir.IntImm",
      "data": {
        "span": 1,
        "dtype": "int64",
        "value": 1
      }
    },
    {
      "type": "ir.IntImm",
      "data": {
        "span": 1,
        "dtype": "int64",
        "value": 32
      }
    },
    {
      "type": "ffi.Array",
      "data": [2, 3]
    },
    {
      "type": "relax.ShapeStructInfo",
      "data": {
        "span": 1,
        "values": 4,
        "ndim": 3
      }
    },
    {
      "type": "relax.expr.ShapeExpr",
      "data": {
        "span": 1,
        "struct_info_": 5,
        "values": 4
      }
    },
    {
      "type": "relax.TensorStructInfo",
      "data": {
        "span": 1,
        "shape": 6,
        "dtype": "float32",
        "ndim": 2,
        "vdevice": 1
      }
    },
    {
      "type": "ffi.Tensor",
      "data": "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAACAAAAAAAAAAgAAAAAAAAADyWqQ/qGaKPwAAgD8FBII/AguRP4RJXz9djIM/40Z0P0cYeT/jRnQ/WzF2P1tBiD+qal4/VPGKPwAAgD9CgoE/DeqPP/JapD+oZoo/AACAPwUEgj8CC5E/hElfP12Mgz/jRnQ/Rxh5P+NGdD9bMXY/W0GIP6pqXj9U8Yo/AACAPw=="
    },
    {
      "type": "relax.expr.Constant",
      "data": {
        "span": 1,
        "struct_info_": 7,
        "data": 8
      }
    },
    {
      "type": "ffi.Array",
      "data": [9]
    },
    {
      "type": "ffi.Map",
      "data": [0, 10]
    }
  ]
}""")

@I.ir_module
class Module:
    @T.prim_func
    def add(A_handle: T.handle, B: T.Buffer((T.int64(1), T.int64(32)), "float32"), T_out_handle: T.handle):
        T.func_attr({"op_pattern": 0})
        n = T.int64()
        A = T.match_buffer(A_handle, (n, T.int64(32)), "float32")
        T_out = T.match_buffer(T_out_handle, (n, T.int64(32)), "float32")
        for i0, i1 in T.grid(n, T.int64(32)):
            T_out[i0, i1] = A[i0, i1] + B[T.int64(0), i1]

    @T.prim_func
    def exp(A: T.Buffer((T.int64(1), T.int64(32)), "float32"), T_out: T.Buffer((T.int64(1), T.int64(32)), "float32")):
        T.func_attr({"op_pattern": 1})
        for i0, i1 in T.grid(T.int64(1), T.int64(32)):
            T_out[i0, i1] = T.exp(A[T.int64(0), i1])

    @R.function
    def main(x: R.Tensor(("n", 32), dtype="float32")) -> R.Tensor(("n", 32), dtype="float32"):
        cls = Module
        n = T.int64()
        with R.dataflow():
            gv: R.Tensor((n, 32), dtype="float32") = R.call_tir(cls.add, (x, metadata["relax.expr.Constant"][0]), out_sinfo=R.Tensor((n, 32), dtype="float32"))
            R.output(gv)
        return gv

    @T.prim_func
    def multiply(A: T.Buffer((T.int64(1), T.int64(32)), "float32"), B: T.Buffer((T.int64(1), T.int64(32)), "float32"), T_out: T.Buffer((T.int64(1), T.int64(32)), "float32")):
        T.func_attr({"op_pattern": 1})
        for i0, i1 in T.grid(T.int64(1), T.int64(32)):
            T_out[i0, i1] = A[T.int64(0), i1] * B[T.int64(0), i1]

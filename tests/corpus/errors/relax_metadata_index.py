# expect: IndexError 87:86
# metadata["relax.expr.Constant"] holds one constant: index 1 is out of range.
from tvm.script import relax as R

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
        "ndim": 2
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


@R.function
def main(x: R.Tensor((1, 32), dtype="float32")) -> R.Tensor((1, 32), dtype="float32"):
    y: R.Tensor((1, 32), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][1])
    return y

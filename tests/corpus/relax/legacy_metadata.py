# A metadata section in the format TVM printed before tvm-ffi (SaveJSON's {"root", "nodes",
# "b64ndarrays"} graph, every attribute a string, `\"` escapes inside the triple-quoted string,
# `_checked_type_` naming types we do not have): read through json_legacy.c, printed back in the
# current format. Two constants (float32 4x5, int32 17) too large to print inline.
metadata = tvm.ir.load_json("""{
  \"root\": 1, 
  \"nodes\": [
    {
      \"type_key\": \"\"
    }, 
    {
      \"type_key\": \"Map\", 
      \"keys\": [
        \"relax.expr.Constant\"
      ], 
      \"data\": [
        2
      ]
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [
        3, 
        12
      ]
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"11\", 
        \"data\": \"0\", 
        \"span\": \"0\", 
        \"struct_info_\": \"4\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"2\", 
        \"shape\": \"5\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"10\", 
        \"span\": \"0\", 
        \"struct_info_\": \"9\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [
        7, 
        8
      ]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"4\"
      }
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"5\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"2\", 
        \"span\": \"0\", 
        \"values\": \"6\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"2\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"float32\", 
        \"ndim\": \"2\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.Constant\", 
      \"attrs\": {
        \"_checked_type_\": \"18\", 
        \"data\": \"1\", 
        \"span\": \"0\", 
        \"struct_info_\": \"13\"
      }
    }, 
    {
      \"type_key\": \"relax.TensorStructInfo\", 
      \"attrs\": {
        \"dtype\": \"int32\", 
        \"ndim\": \"1\", 
        \"shape\": \"14\", 
        \"span\": \"0\", 
        \"vdevice\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.expr.ShapeExpr\", 
      \"attrs\": {
        \"_checked_type_\": \"19\", 
        \"span\": \"0\", 
        \"struct_info_\": \"17\", 
        \"values\": \"15\"
      }
    }, 
    {
      \"type_key\": \"Array\", 
      \"data\": [
        16
      ]
    }, 
    {
      \"type_key\": \"IntImm\", 
      \"attrs\": {
        \"dtype\": \"int64\", 
        \"span\": \"0\", 
        \"value\": \"17\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeStructInfo\", 
      \"attrs\": {
        \"ndim\": \"1\", 
        \"span\": \"0\", 
        \"values\": \"15\"
      }
    }, 
    {
      \"type_key\": \"relax.DynTensorType\", 
      \"attrs\": {
        \"dtype\": \"int32\", 
        \"ndim\": \"1\", 
        \"span\": \"0\"
      }
    }, 
    {
      \"type_key\": \"relax.ShapeType\", 
      \"attrs\": {
        \"ndim\": \"1\", 
        \"span\": \"0\"
      }
    }
  ], 
  \"b64ndarrays\": [
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQAEAAAAAAAAAAUAAAAAAAAAUAAAAAAAAAAX2W5AIbDyvvYofMCYblJAYOVgQLByKD93vq8/9P1UwLByCEC0yAbAJzFwwArXE0BokZ2/f2p8P99PbT/P9zPAcT0iwKRwRcASg3jAhxbZvQ==\", 
    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAAgAQARAAAAAAAAAEQAAAAAAAAA0AMAABf+//+c/P//bgEAAGwAAABkAwAA0v///6T8///nAAAAfgEAAM78//82AAAAuQAAAHb8//9A/v//sAIAAIsAAAA=\"
  ], 
  \"attrs\": {
    \"tvm_version\": \"0.17.dev0\"
  }
}""")
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 5), dtype="float32"), i: R.Tensor((17,), dtype="int32")) -> R.Tuple(R.Tensor((4, 5), dtype="float32"), R.Tensor((17,), dtype="int32")):
        with R.dataflow():
            lv: R.Tensor((4, 5), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
            lv1: R.Tensor((17,), dtype="int32") = R.multiply(i, metadata["relax.expr.Constant"][1])
            gv: R.Tuple(R.Tensor((4, 5), dtype="float32"), R.Tensor((17,), dtype="int32")) = lv, lv1
            R.output(gv)
        return gv

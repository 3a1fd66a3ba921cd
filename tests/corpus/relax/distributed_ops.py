# Ordinary operators on DTensor arguments (upstream's dist.FInferStructInfo), as in upstream's
# ShardedMLP / ShardedLlamaAttentionLayer expected modules: each binding's annotation is the
# placement the operator's axis mapping gives (matmul, permute_dims, reshape, broadcasting
# binary operators with an R.dist.const, unary and nn activations, softmax, reductions,
# ccl.allreduce), on a 1-d and a 2-d mesh, with a symbolic dim.
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R


@I.ir_module
class ShardedOps:
    I.module_attrs({"device_num": 6})
    I.module_global_infos(
        {"mesh": [R.device_mesh((2,), I.Range(0, 2)), R.device_mesh((2, 2), [2, 3, 4, 5])]}
    )

    @R.function
    def mlp(
        x: R.DTensor((128, 128), "float32", "mesh[0]", "R"),
        w1: R.DTensor((128, 128), "float32", "mesh[0]", "S[1]"),
        w2: R.DTensor((128, 128), "float32", "mesh[0]", "S[0]"),
    ) -> R.DTensor((128, 128), "float32", "mesh[0]", "R"):
        lv0: R.DTensor((128, 128), "float32", "mesh[0]", "S[1]") = R.matmul(x, w1, out_dtype="void")
        lv1: R.DTensor((128, 128), "float32", "mesh[0]", "S[1]") = R.nn.gelu(lv0)
        lv2: R.DTensor((128, 128), "float32", "mesh[0]", "S[1]") = R.add(lv1, R.dist.const(2, R.DTensor((), "float32", "mesh[0]", "R")))
        lv3: R.DTensor((128, 128), "float32", "mesh[0]", "R") = R.matmul(lv2, w2, out_dtype="void")
        lv4: R.DTensor((128, 128), "float32", "mesh[0]", "R") = R.ccl.allreduce(lv3, op_type="sum")
        return lv4

    @R.function
    def attention(
        h: R.DTensor((1, "n", 4096), "float16", "mesh[0]", "R"),
        wq: R.DTensor((4096, 4096), "float16", "mesh[0]", "S[0]"),
        mask: R.DTensor((1, 1, "n", "n"), "float16", "mesh[0]", "R"),
    ):
        n = T.int64()
        lv0: R.DTensor((4096, 4096), "float16", "mesh[0]", "S[1]") = R.permute_dims(wq, axes=None)
        lv1: R.DTensor((1, n, 4096), "float16", "mesh[0]", "S[2]") = R.matmul(h, lv0, out_dtype="void")
        lv2: R.DTensor((1, n, 32, 128), "float16", "mesh[0]", "S[2]") = R.reshape(lv1, R.shape([1, n, 32, 128]))
        lv3: R.DTensor((1, 32, n, 128), "float16", "mesh[0]", "S[1]") = R.permute_dims(lv2, axes=[0, 2, 1, 3])
        lv4: R.DTensor((1, 32, 128, n), "float16", "mesh[0]", "S[1]") = R.permute_dims(lv3, axes=[0, 1, 3, 2])
        lv5: R.DTensor((1, 32, n, n), "float16", "mesh[0]", "S[1]") = R.matmul(lv3, lv4, out_dtype="void")
        lv6: R.DTensor((1, 32, n, n), "float16", "mesh[0]", "S[1]") = R.maximum(lv5, mask)
        lv7: R.DTensor((1, 32, n, n), "float16", "mesh[0]", "S[1]") = R.nn.softmax(lv6, axis=-1)
        lv8: R.DTensor((1, 32, n), "float16", "mesh[0]", "S[1]") = R.sum(lv7, axis=[3])
        lv9: R.DTensor((1, 1, n), "float16", "mesh[0]", "R") = R.mean(lv8, axis=[1], keepdims=True)
        lv10: R.DTensor((1, 32, n, n), "bool", "mesh[0]", "S[1]") = R.less(lv6, lv5)
        return (lv7, lv9, lv10)

    @R.function
    def mesh2d(
        a: R.DTensor((8, 16, 32), "float32", "mesh[1]", "S[0], S[2]"),
        b: R.DTensor((32,), "float32", "mesh[1]", "R, S[0]"),
    ):
        lv0: R.DTensor((8, 16, 32), "float32", "mesh[1]", "S[0], S[2]") = R.multiply(a, b)
        lv1: R.DTensor((8, 16, 32), "float32", "mesh[1]", "S[0], S[2]") = R.exp(lv0)
        lv2: R.DTensor((32, 16, 8), "float32", "mesh[1]", "S[2], S[0]") = R.permute_dims(lv1)
        lv3: R.DTensor((8, 512), "float32", "mesh[1]", "S[0], R") = R.reshape(lv1, R.shape([8, 512]))
        lv4: R.DTensor((8,), "float32", "mesh[1]", "S[0], R") = R.max(lv1, axis=[1, 2])
        return (lv2, lv3, lv4)

# The MLP after FuseTIR: one fused kernel (its intermediate an allocate + decl_buffer).
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def fused_matmul_nn_relu(x: T.Buffer((T.int64(5), T.int64(16)), "float32"), w: T.Buffer((T.int64(16), T.int64(16)), "float32"), lv1: T.Buffer((T.int64(5), T.int64(16)), "float32")):
        lv = T.allocate([T.int64(5), T.int64(16)], "float32", "global")
        lv_1 = T.decl_buffer((T.int64(5), T.int64(16)), "float32", data=lv)
        for i0, i1 in T.grid(T.int64(5), T.int64(16)):
            lv_1[i0, i1] = T.float32(0.0)
            for k in range(T.int64(16)):
                lv_1[i0, i1] = lv_1[i0, i1] + x[i0, k] * w[k, i1]
            lv1[i0, i1] = T.max(lv_1[i0, i1], T.float32(0.0))

    @R.function
    def main(x: R.Tensor((5, 16), dtype="float32"), w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv1: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.fused_matmul_nn_relu, (x, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            lv3: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.fused_matmul_nn_relu, (lv1, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            lv5: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.fused_matmul_nn_relu, (lv3, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            out: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.fused_matmul_nn_relu, (lv5, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            R.output(out)
        return out

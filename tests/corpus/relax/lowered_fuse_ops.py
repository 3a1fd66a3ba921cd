# The build pipeline's MLP after FuseOps: the grouped functions are private Relax functions with
# R.func_attr({"Primitive": 1}) calling the kernels, which carry their op_pattern.
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def fused_matmul_nn_relu(x: R.Tensor((5, 16), dtype="float32"), w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        cls = Module
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            lv1: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.nn_relu, (lv,), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            R.output(lv1)
        return lv1

    @R.function(private=True)
    def fused_matmul_nn_relu1(lv1: R.Tensor((5, 16), dtype="float32"), w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        cls = Module
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv2: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.matmul, (lv1, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            lv3: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.nn_relu, (lv2,), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            R.output(lv3)
        return lv3

    @R.function(private=True)
    def fused_matmul_nn_relu2(lv3: R.Tensor((5, 16), dtype="float32"), w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        cls = Module
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv4: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.matmul, (lv3, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            lv5: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.nn_relu, (lv4,), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            R.output(lv5)
        return lv5

    @R.function(private=True)
    def fused_matmul_nn_relu3(lv5: R.Tensor((5, 16), dtype="float32"), w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        cls = Module
        R.func_attr({"Primitive": 1})
        with R.dataflow():
            lv6: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.matmul, (lv5, w), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            out: R.Tensor((5, 16), dtype="float32") = R.call_tir(cls.nn_relu, (lv6,), out_sinfo=R.Tensor((5, 16), dtype="float32"))
            R.output(out)
        return out

    @R.function
    def main(x: R.Tensor((5, 16), dtype="float32"), w: R.Tensor((16, 16), dtype="float32")) -> R.Tensor((5, 16), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv1: R.Tensor((5, 16), dtype="float32") = cls.fused_matmul_nn_relu(x, w)
            lv3: R.Tensor((5, 16), dtype="float32") = cls.fused_matmul_nn_relu1(lv1, w)
            lv5: R.Tensor((5, 16), dtype="float32") = cls.fused_matmul_nn_relu2(lv3, w)
            out: R.Tensor((5, 16), dtype="float32") = cls.fused_matmul_nn_relu3(lv5, w)
            R.output(out)
        return out

    @T.prim_func
    def matmul(A: T.Buffer((T.int64(5), T.int64(16)), "float32"), B: T.Buffer((T.int64(16), T.int64(16)), "float32"), T_matmul: T.Buffer((T.int64(5), T.int64(16)), "float32")):
        T.func_attr({"op_pattern": 4})
        for i0, i1 in T.grid(T.int64(5), T.int64(16)):
            T_matmul[i0, i1] = T.float32(0.0)
            for k in range(T.int64(16)):
                T_matmul[i0, i1] = T_matmul[i0, i1] + A[i0, k] * B[k, i1]

    @T.prim_func
    def nn_relu(A: T.Buffer((T.int64(5), T.int64(16)), "float32"), T_out: T.Buffer((T.int64(5), T.int64(16)), "float32")):
        T.func_attr({"op_pattern": 0})
        for i0, i1 in T.grid(T.int64(5), T.int64(16)):
            T_out[i0, i1] = T.max(A[i0, i1], T.float32(0.0))

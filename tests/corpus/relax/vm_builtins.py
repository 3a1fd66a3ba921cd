# The forms that reach the VM: R.call_builtin_with_ctx (a VM builtin called with the VM context
# first, here vm.builtin.alloc_storage, its struct info given by ty_args=, newer upstream's name
# for sinfo_args=), R.vm.call_tir_dyn (a kernel with its TIR arguments unpacked from a shape, as
# CallTIRRewrite writes a call_tir with tir_vars), call_tir with tir_vars on a symbolic shape,
# and R.call_tir_with_grad (call_tir naming a TE gradient).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class VMBuiltins:
    @T.prim_func
    def scale(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), k: T.int64):
        for i in range(4):
            B[i] = A[i] * T.Cast("float32", k) + T.float32(1)

    @T.prim_func
    def scale_n(x: T.handle, y: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(x, (n,), "float32")
        B = T.match_buffer(y, (n,), "float32")
        for i in range(n):
            B[i] = A[i] * T.Cast("float32", k)

    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @R.function(pure=False)
    def with_ctx(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = VMBuiltins
        storage = R.call_builtin_with_ctx(
            "vm.builtin.alloc_storage",
            (R.shape([16]), R.prim_value(0), R.dtype("uint8")),
            ty_args=(R.Object,),
        )
        y = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _ = cls.add_one(x, y)
        return y

    @R.function(pure=False)
    def dyn(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = VMBuiltins
        y = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _: R.Tuple = R.vm.call_tir_dyn(cls.scale, (x, y, R.shape([3])))
        return y

    @R.function
    def tir_vars(x: R.Tensor(("n",), "float32"), s: R.Shape(["k"])) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        k = T.int64()
        cls = VMBuiltins
        y = R.call_tir(cls.scale_n, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([k]))
        return y

    @R.function
    def with_grad(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = VMBuiltins
        with R.dataflow():
            y = R.call_tir_with_grad(
                cls.add_one,
                (x,),
                out_sinfo=R.Tensor((4,), "float32"),
                te_grad_name="add_one_grad",
                te_grad_kwargs={"k": 1.0},
            )
            z = R.call_tir_with_grad(
                cls.add_one, (y,), out_sinfo=R.Tensor((4,), "float32"), te_grad_name="add_one_grad"
            )
            R.output(z)
        return z

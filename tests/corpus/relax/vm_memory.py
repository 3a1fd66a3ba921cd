# The VM's own allocation operators (upstream's relax.vm.*, what VMBuiltinLower makes of the
# memory operators): R.vm.alloc_storage(shape, runtime_device_index, dtype, storage_scope),
# R.vm.alloc_tensor(storage, offset, shape, dtype[, runtime_device_index]: upstream's newer form
# has the fifth) and R.vm.kill_object(obj); tensors placed at
# offsets of one storage, one reusing the bytes of a killed one (and a second storage); a storage of a symbolic size
# (its arguments by keyword, the scope defaulted).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class VMMemory:
    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @T.prim_func
    def mul(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            C[i] = A[i] * B[i]

    @T.prim_func
    def twice_n(x: T.handle, y: T.handle):
        n = T.int64()
        A = T.match_buffer(x, (n,), "float32")
        B = T.match_buffer(y, (n,), "float32")
        for i in range(n):
            B[i] = A[i] * T.float32(2)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = VMMemory
        storage: R.Object = R.vm.alloc_storage(R.shape([8]), R.prim_value(0), R.dtype("float32"), R.str("global"))
        a: R.Tensor((4,), "float32") = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        _: R.Tuple = cls.add_one(x, a)
        b: R.Tensor((4,), "float32") = R.vm.alloc_tensor(storage, R.prim_value(16), R.shape([4]), R.dtype("float32"))
        _1: R.Tuple = cls.mul(a, w, b)
        _2: R.Tuple = R.vm.kill_object(a)
        c: R.Tensor((4,), "float32") = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        _3: R.Tuple = cls.add_one(b, c)
        storage1: R.Object = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        d: R.Tensor((4,), "float32") = R.vm.alloc_tensor(storage1, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _4: R.Tuple = cls.mul(b, c, d)
        _5: R.Tuple = R.vm.kill_object(storage)
        return d

    @R.function(pure=False)
    def dynamic(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = VMMemory
        storage = R.vm.alloc_storage(R.shape([4 * n]), runtime_device_index=0, dtype="uint8")
        y = R.vm.alloc_tensor(storage, offset=0, shape=R.shape([n]), dtype="float32")
        _ = cls.twice_n(x, y)
        _1 = R.vm.kill_object(storage)
        return y

# The distributed dialect: device meshes as module global infos (by I.Range and by a list of
# ids), R.DTensor parameters, bindings and results (meshes by name "mesh[i]" and inline), every
# placement form, R.dist.annotate_sharding / R.dist.redistribute /
# R.dist.redistribute_replica_to_shard, R.dist.call_tir of a TIR kernel,
# and the collective operators R.ccl.* on local tensors.
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R


@I.ir_module
class Sharded:
    I.module_attrs({"device_num": 10})
    I.module_global_infos(
        {
            "mesh": [
                R.device_mesh((2,), I.Range(0, 2)),  # mesh[0]
                R.device_mesh((2, 2), [4, 5, 6, 7]),  # mesh[1]
                R.device_mesh((1,), [3]),  # mesh[2], written inline below
            ]
        }
    )

    @T.prim_func(private=True)
    def add_one(x: T.Buffer((T.int64(64), T.int64(128)), "float32"), y: T.Buffer((T.int64(64), T.int64(128)), "float32")):
        for i, j in T.grid(T.int64(64), T.int64(128)):
            with T.sblock("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                y[vi, vj] = x[vi, vj] + T.float32(1)

    @R.function
    def annotate(x: R.Tensor((128, 128), "float32"), w: R.Tensor((128, 128), "float32")) -> R.Tensor((128, 128), "float32"):
        lv0 = R.matmul(x, w)
        lv1 = R.dist.annotate_sharding(lv0, device_mesh="mesh[0]", placement="S[1]")
        lv2 = R.dist.annotate_sharding(lv1, "mesh[1]", "S[0],R")
        return lv2

    @R.function
    def layout(
        x: R.DTensor((128, 128), "float32", "mesh[0]", "R"),
        y: R.DTensor((128, 128), "float32", device_mesh="mesh[1]", placement="S[0], S[1]"),
    ) -> R.DTensor((128, 128), "float32", "mesh[0]", "S[0]"):
        z: R.DTensor((128, 128), "float32", "mesh[0]", "S[0]") = R.dist.redistribute(x, device_mesh="mesh[0]", placement="S[0]")
        t = R.dist.redistribute(y, "mesh[1]", "R, R")
        u: R.DTensor((128, 128), "float32", "mesh[1]", "R, R") = t
        v: R.DTensor((128, 128), "float32", "mesh[0]", "S[1]") = R.dist.redistribute_replica_to_shard(x, num_workers=2, axis=1)
        return z

    @R.function
    def kernel(x: R.DTensor((128, 128), "float32", "mesh[0]", "S[0]")) -> R.DTensor((128, 128), "float32", "mesh[0]", "S[0]"):
        cls = Sharded
        gv0 = R.dist.call_tir(cls.add_one, (x,), out_sinfo=R.DTensor((128, 128), "float32", "mesh[0]", "S[0]"))
        return gv0

    @R.function
    def forms(
        a: R.DTensor((4, 8), device_mesh="mesh[0]", placement="S[1]"),
        b: R.DTensor(dtype="float16", ndim=2, device_mesh="mesh[1]", placement="R, S[1]"),
        c: R.DTensor((2, 2), "int32", R.device_mesh((1,), [3]), "R"),
    ) -> R.Tuple(R.DTensor((4, 8), device_mesh="mesh[0]", placement="S[1]"), R.DTensor((2, 2), "int32", R.device_mesh((1,), [3]), "R")):
        return (a, c)

    @R.function
    def collectives(x: R.Tensor((8, 16), "float32"), n: R.Tensor(("m", 16), "float32")):
        m = T.int64()
        s = R.ccl.allreduce(x)
        mx = R.ccl.allreduce(x, op_type="max", in_group=False)
        g = R.ccl.allgather(x, num_workers=2)
        gn = R.ccl.allgather(n, 4)
        b = R.ccl.broadcast_from_worker0(x)
        p = R.ccl.scatter_from_worker0(x, num_workers=4, axis=1)
        q = R.ccl.scatter_from_worker0(x, 2)
        return (s, mx, g, gn, b, p, q)

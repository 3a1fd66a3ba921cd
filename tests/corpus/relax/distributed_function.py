# A distributed function outside a module: its meshes written (and printed) as R.device_mesh
# values, by a range and by a list of ids, in struct info and in an operator's attribute.
from tvm.script import ir as I
from tvm.script import relax as R


@R.function
def shard(
    x: R.DTensor((4, 4), "float32", R.device_mesh((2, 2), I.Range(0, 4)), "S[1], R"),
) -> R.DTensor((4, 4), "float32", R.device_mesh((2, 2), I.Range(0, 4)), "S[1], R"):
    y = R.dist.annotate_sharding(x, R.device_mesh((2, 2), I.Range(0, 4)), "R,R")
    z = R.dist.redistribute(y, device_mesh=R.device_mesh((4,), [3, 2, 1, 0]), placement="S[0]")
    return y

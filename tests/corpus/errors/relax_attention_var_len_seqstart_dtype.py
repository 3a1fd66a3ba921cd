# expect: TypeError 15:64
# nn.attention_var_len reads its seqstarts as int32 row indices (upstream's documented dtype): an
# int64 seqstart_k is refused at the argument.
from tvm.script import relax as R


@R.function
def main(
    q: R.Tensor((1, 10, 4, 8), "float32"),
    kv: R.Tensor((1, 12, 4, 8), "float32"),
    seqstart_q: R.Tensor((3,), "int32"),
    seqstart_k: R.Tensor((3,), "int64"),
    max_len: R.Tensor((), "int32"),
):
    y = R.nn.attention_var_len(q, kv, kv, seqstart_q, max_len, seqstart_k, max_len)
    return y

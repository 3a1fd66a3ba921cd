# expect: ValueError 13:32
# nn.attention_var_len takes the sequences concatenated along axis 1 of one batch row: queries
# of batch 2 are refused.
from tvm.script import relax as R


@R.function
def main(
    q: R.Tensor((2, 10, 4, 8), "float32"),
    seqstart: R.Tensor((3,), "int32"),
    max_len: R.Tensor((), "int32"),
):
    y = R.nn.attention_var_len(q, q, q, seqstart, max_len)
    return y

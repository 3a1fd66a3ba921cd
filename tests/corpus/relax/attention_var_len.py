# nn.attention_var_len: attention over a ragged batch of sequences concatenated along axis 1,
# in upstream's wrapper form R.nn.attention_var_len(queries, keys, values, seqstart_q,
# max_seqlen_q, seqstart_k=None, max_seqlen_k=None, scale=None, causal_mask=None,
# window_size=None) (the key arguments default to the query ones): grouped-query heads, both
# causal masks, a sliding window, an explicit scale, static and symbolic lengths, and the
# seqstarts made in the graph from the lengths as upstream's tests make them;
# tests/codegen/test_relax_attention_var_len.c runs them legalized (evaluator and compiled)
# against C loops.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class AttentionVarLen:
    @R.function
    def plain(
        q: R.Tensor((1, 9, 4, 8), "float32"),
        k: R.Tensor((1, 9, 2, 8), "float32"),
        v: R.Tensor((1, 9, 2, 6), "float32"),
        seqstart: R.Tensor((4,), "int32"),
        max_len: R.Tensor((), "int32"),
    ) -> R.Tensor((1, 9, 4, 6), "float32"):
        y = R.nn.attention_var_len(q, k, v, seqstart, max_len)
        return y

    @R.function
    def top_left(
        q: R.Tensor((1, "n", 2, 8), "float32"),
        k: R.Tensor((1, "m", 2, 8), "float32"),
        v: R.Tensor((1, "m", 2, 8), "float32"),
        sq: R.Tensor(("b",), "int32"),
        sk: R.Tensor(("b",), "int32"),
        mq: R.Tensor((), "int32"),
        mk: R.Tensor((), "int32"),
    ):
        y = R.nn.attention_var_len(q, k, v, sq, mq, sk, mk, scale=0.5, causal_mask="TopLeft")
        return y

    @R.function
    def bottom_right(
        q: R.Tensor((1, "n", 3, 4), "float32"),
        k: R.Tensor((1, "m", 1, 4), "float32"),
        v: R.Tensor((1, "m", 1, 5), "float32"),
        sq: R.Tensor(("b",), "int32"),
        sk: R.Tensor(("b",), "int32"),
        mq: R.Tensor((), "int32"),
    ):
        y = R.nn.attention_var_len(q, k, v, sq, mq, seqstart_k=sk, causal_mask="BottomRight")
        return y

    @R.function
    def window(
        q: R.Tensor((1, "n", 2, 4), "float32"),
        k: R.Tensor((1, "m", 2, 4), "float32"),
        v: R.Tensor((1, "m", 2, 4), "float32"),
        sq: R.Tensor(("b",), "int32"),
        sk: R.Tensor(("b",), "int32"),
        mq: R.Tensor((), "int32"),
        mk: R.Tensor((), "int32"),
    ):
        y = R.nn.attention_var_len(
            queries=q,
            keys=k,
            values=v,
            seqstart_q=sq,
            max_seqlen_q=mq,
            seqstart_k=sk,
            max_seqlen_k=mk,
            causal_mask="BottomRight",
            window_size=2,
        )
        return y

    @R.function
    def from_lengths(
        x: R.Tensor(("t", 12), "float32"),
        seq_lens: R.Tensor(("s",), "int32"),
    ) -> R.Tensor(("t", 12), "float32"):
        t = T.int64()
        with R.dataflow():
            ends = R.cumsum(seq_lens, axis=0)
            seqstart = R.concat([R.zeros((1,), "int32"), ends])
            max_len = R.max(seq_lens)
            q = R.reshape(x, R.shape([1, t, 3, 4]))
            y = R.nn.attention_var_len(q, q, q, seqstart, max_len, causal_mask="BottomRight")
            out = R.reshape(y, R.shape([t, 12]))
            R.output(out)
        return out

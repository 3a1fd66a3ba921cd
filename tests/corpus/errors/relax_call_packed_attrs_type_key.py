# expect: ValueError 8:48
# R.call_packed's attributes are a dict: attrs_type_key may only say "DictAttrs".
from tvm.script import relax as R


@R.function(pure=False)
def main(x: R.Tensor((4,), "float32")):
    y = R.call_packed("ext", x, attrs_type_key="relax.attrs.SortAttrs", axis=0, sinfo_args=R.Object())
    return y

# R.call_packed's keyword arguments beyond sinfo_args are the call's attributes, a DictAttrs, as
# upstream's call_packed makes them (test_ast_printer's test_call_packed); printed back with
# attrs_type_key="DictAttrs" first. The VM calls the packed function without them.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.call_packed("vm.builtin.copy", x, sinfo_args=R.Tensor((4,), "float32"), note="copy", level=2, exact=True)
        z = R.call_packed("vm.builtin.copy", y, attrs_type_key="DictAttrs", axes=[0, 1], sinfo_args=(R.Tensor((4,), "float32"),))
        return z

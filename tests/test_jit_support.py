"""policies.jit_support: the tunables' records typed by their defaults, and KernelSet's marks."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import numpy as np
import pytest

from policies import jit_support as support


@dataclass(frozen=True)
class _Params:
    count: int = 3
    share: float = 0.5
    flag: bool = True
    draws: tuple[int, int, int] = (4, 2, 1)
    label: str = "x"


def test_params_dtype_types_each_field_by_its_default_in_order():
    dtype = support.params_dtype(_Params, ("draws", "count", "share", "flag"))
    want = np.dtype(
        [("draws", np.int64, (3,)), ("count", np.int64), ("share", np.float64), ("flag", np.bool_)],
        align=True,
    )
    assert dtype == want and dtype.isalignedstruct


def test_params_dtype_refuses_a_default_with_no_field_type():
    with pytest.raises(TypeError, match="label"):
        support.params_dtype(_Params, ("count", "label"))


def test_the_experts_records_hold_the_references_tunables():
    from dataclasses import fields

    from policies import expert_jit, scat_expert_jit, thirteen_expert_jit
    from policies.schnauz import ExpertParams

    compiled = [f.name for f in fields(ExpertParams) if f.name not in expert_jit._NOT_COMPILED]
    assert expert_jit.PARAMS_DTYPE.names == tuple(compiled)
    assert expert_jit.PARAMS_DTYPE["skill"].shape == (3,)
    assert scat_expert_jit.PARAMS_DTYPE["samples"] == np.int64
    assert thirteen_expert_jit.PARAMS_DTYPE.names == ("spend_penalty", "margin")


KERNELS_MODULE = """
import numpy as np
from policies import jit_support as support
from policies.jit_support import first_legal

_kernels = support.KernelSet(globals(), what="a test", inline_imports=(first_legal,))


@_kernels.inline
def _one():
    return 1


@_kernels.jit
def _k_two(masks):
    return _one() + first_legal(masks, 0)
"""


def test_kernel_set_compiles_what_is_marked_and_refuses_late_marks(tmp_path):
    path = tmp_path / "marked_kernels.py"
    path.write_text(KERNELS_MODULE)
    spec = importlib.util.spec_from_file_location("marked_kernels", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)

    kernels = m._kernels
    assert kernels.names == ["first_legal", "_one", "_k_two"]
    assert kernels.inlined == {"first_legal", "_one"}
    plain = m._one
    kernels.compile()
    assert m._k_two(np.array([[0, 1]], dtype=np.int8)) == 2
    from schnauz_env.batched import jit

    assert (m._one is not plain) == jit.HAVE_NUMBA  # rebound to numba's version
    assert not hasattr(support.first_legal, "py_func")  # rebound in the module only
    with pytest.raises(RuntimeError, match="_late"):

        @kernels.jit
        def _late() -> int:
            return 0

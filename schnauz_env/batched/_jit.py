"""The old private name of :mod:`schnauz_env.batched.jit`: the same module object."""

import sys

from schnauz_env.batched import jit

sys.modules[__name__] = jit

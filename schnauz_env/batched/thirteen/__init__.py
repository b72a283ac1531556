"""The batched Thirteen engine: many games stepped at once in numba kernels.

    from schnauz_env.batched.thirteen import BatchedThirteen, reference_decks

Modules: ``tables`` (lookup tables filled from the rules floor), ``layout`` (the state
arrays' columns), ``rules`` (deal, legal actions, moves, rewards on one game row),
``observe`` (the observation), ``players`` (random and greedy), ``kernels`` (the loops
over games), ``engine`` (:class:`BatchedThirteen`).
"""

from schnauz_env.batched.thirteen.engine import HAVE_NUMBA, BatchedThirteen, reference_decks

__all__ = ["HAVE_NUMBA", "BatchedThirteen", "reference_decks"]

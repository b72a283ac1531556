"""The batched Scat engine: many games stepped at once in numba kernels.

    from schnauz_env.batched.scat import BatchedScat

=============  ==========================================================================
module         what it holds
=============  ==========================================================================
``layout``     where each fact lives in the state arrays; the tables filled from the
               rules floor (hand values, legal actions, pile weights)
``rules``      dealing, moves, round ends and rewards on one game (the reference's
               ``engine`` and the AEC env's settlement)
``observe``    the action mask and the observation of one seat
``players``    built-in random and greedy players
``kernels``    the loops over many games (reset, step, observe, players, benchmark)
``engine``     :class:`BatchedScat`, the Python API over the kernels
=============  ==========================================================================
"""

from schnauz_env.batched.scat.engine import BatchedScat, reference_decks, rounds_bound

__all__ = ["BatchedScat", "reference_decks", "rounds_bound"]

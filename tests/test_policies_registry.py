"""The policy registry: every player is findable by name once :mod:`policies` is imported."""

from __future__ import annotations

import importlib

import pytest

import policies
from policies import available_policies, make_policy
from policies.base import REGISTRY


@pytest.mark.parametrize(
    ("game", "names"),
    [
        ("schnauz", ["expert", "expert-jit", "greedy", "ismcts", "model", "pimc", "random"]),
        ("scat", ["expert", "greedy", "model", "random"]),
        ("thirteen", ["expert", "expert-jit", "greedy", "model", "random"]),
    ],
)
def test_importing_policies_registers_every_player(game: str, names: list[str]) -> None:
    known = available_policies(game)
    assert known == sorted(known) and set(names) <= set(known)
    assert all((game, n) in REGISTRY for n in known)


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known: expert, expert-jit, greedy, ismcts"):
        make_policy("grandmaster")


@pytest.mark.parametrize("name", ["make_policy", "available_policies"])
def test_old_base_path_warns_and_still_works(name: str) -> None:
    base = importlib.import_module("policies.base")
    with pytest.deprecated_call(match=f"policies.base.{name} moved"):
        moved = getattr(base, name)
    assert moved is getattr(policies, name)
    with pytest.raises(AttributeError):
        base.no_such_name  # noqa: B018

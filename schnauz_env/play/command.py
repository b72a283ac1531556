"""How a subcommand of ``schnauz`` is declared: once, in the module that runs it.

A command module (``schnauz_env.play.replay``, ``schnauz_env.web.cli``) has
``COMMAND = Subcommand(name, help, description)``, ``add_arguments(parser)`` and
``run(args) -> int``; the ``schnauz`` command (:mod:`schnauz_env.play.cli`) adds it
with :func:`register` and calls its ``run`` when it is the command given. A command
whose extra is not installed says so with :func:`missing_extra`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = ["Subcommand", "missing_extra", "register"]


@dataclass(frozen=True)
class Subcommand:
    """A subcommand's name and texts, as ``schnauz --help`` and ``schnauz NAME --help``
    show them."""

    #: The word after ``schnauz`` on the command line.
    name: str
    #: Its line in ``schnauz --help``.
    help: str
    #: The text at the top of ``schnauz NAME --help``.
    description: str


def register(sub: Any, module: ModuleType) -> argparse.ArgumentParser:
    """Add the subcommand ``module`` declares (its ``COMMAND``, ``add_arguments`` and
    ``run``) to the subparsers ``sub``; the parsed arguments carry its ``run``."""
    command: Subcommand = module.COMMAND
    parser = sub.add_parser(command.name, help=command.help, description=command.description)
    module.add_arguments(parser)
    parser.set_defaults(run=module.run)
    return parser


def missing_extra(command: str, extra: str, *modules: str) -> bool:
    """Whether one of the ``modules`` that ``schnauz COMMAND`` needs is not installed; if
    so, says on standard error which one and how to install it (the package's ``extra``):
    ``error: schnauz COMMAND needs NAME: pip install "schnauz_env[EXTRA]"``."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            name = err.name or module
            print(
                f'error: schnauz {command} needs {name}: pip install "schnauz_env[{extra}]"',
                file=sys.stderr,
            )
            return True
    return False

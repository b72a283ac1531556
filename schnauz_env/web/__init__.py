"""Play in the browser: ``schnauz serve`` (``docs/web.md``).

Floor 7 (apps), beside the terminal game (:mod:`schnauz_env.play`), whose screens and
words it reuses; nothing in the package imports it. One job per module:

- :mod:`~schnauz_env.web.cli`: the ``schnauz serve`` command (binds, prints the URL);
- :mod:`~schnauz_env.web.app`: the Starlette app, its routes, limits and JSON errors;
- :mod:`~schnauz_env.web.store`: many tables under unguessable ids, idle ones expiring;
- :mod:`~schnauz_env.web.table`: one game (a person, bots, the record, the turn token);
- :mod:`~schnauz_env.web.replays`: a record stepped through move by move;
- :mod:`~schnauz_env.web.coach`: the model's probabilities, the expert's estimates, the
  review, and the model files a server may use;
- :mod:`~schnauz_env.web.views`: the table, moves and events as the page's JSON;
- ``static/``: the page (HTML, CSS, JS; no build step).
"""

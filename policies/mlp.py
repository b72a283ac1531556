"""Trained models as numpy-only policies: the ``.npz`` model file format.

A model file holds the weights of a multilayer perceptron (the actor of an SB3
``MaskablePPO`` policy) and a JSON header with everything needed to refuse misuse:

==================  ==========================================================
``format``          ``"schnauz_env-mlp"`` and ``format_version``
``game``            ``"schnauz"``, ``"scat"`` or ``"thirteen"``
``rules``           the rules config it was trained under (table size excluded)
``table_sizes``     the table sizes it was trained at
``obs_version``     the observation layout version, and ``obs_size``
``num_actions``     the size of the action space
``activation``      ``"tanh"`` or ``"relu"``
``layers``          the number of hidden layers
``features``        optional: the name of a feature set computed from the observation
                    and appended to it before the first layer (e.g. ``schnauz-moves-v1``,
                    :mod:`schnauz_env.schnauz.features`); ``input_size`` is then the
                    observation size plus the feature size
==================  ==========================================================

Loading a model for other rules, another game, another observation layout or size,
or a file that is not a model (or is damaged) raises ``ValueError`` saying which.
Model files are safe to exchange: nothing in them is unpickled, every header field is
checked (:func:`check_header`), an unknown activation is refused, and every array's
declared shape is checked against the header before anything is allocated (at most
``MAX_PARAMETERS`` numbers, ``MAX_LAYERS`` hidden layers of up to ``MAX_WIDTH``). Files are
written atomically (a crash never leaves half a model under its name).
Playing needs numpy only; exporting from SB3 needs the ``train`` extra.

The package ships its trained models as data in ``policies/models/*.npz``
(:func:`models_dir`); ``make_policy("model", game=...)`` plays the one that fits the rules
(:func:`shipped_model`). This module used to be ``policies.models`` (still importable
for one version, with a ``DeprecationWarning``).
"""

from __future__ import annotations

import contextlib
import functools
import json
import zipfile
import zlib
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from policies.base import Policy, register_policy
from schnauz_env.common.files import atomic_write
from schnauz_env.common.options import make_config
from schnauz_env.games import game_module

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "SHIPPED",
    "MLPPolicy",
    "actor_layers",
    "check_compatible",
    "check_header",
    "export_sb3",
    "feature_transform",
    "load_actor",
    "load_model_policy",
    "models_dir",
    "obs_version",
    "read_model",
    "rules_of",
    "save_model",
    "shipped_model",
]

FORMAT = "schnauz_env-mlp"
FORMAT_VERSION = 1
#: Rules fields that do not change what a model sees or should do.
_NEUTRAL_FIELDS = {"num_players", "first_dealer", "max_turns", "episode"}


def obs_version(game: str) -> int:
    module = game_module(game)
    return int(getattr(module, "OBS_VERSION", getattr(module.observation, "OBS_VERSION", 1)))


def feature_transform(name: str | None, game: str, config: Any) -> Any:
    """The feature set ``name`` for ``game`` under ``config`` (``None``: no features).

    A feature set is a callable ``obs_batch -> obs_batch ++ features`` with a ``size``
    (the number of features it appends). Built once per name, game and rules (its
    tables take a moment), then shared: loading, checking and every policy of a model
    reuse it.
    """
    if not name:
        return None
    return _feature_set(name, game, config)


@functools.cache
def _feature_set(name: str, game: str, config: Any) -> Any:
    if game == "schnauz":
        from policies.expert_features import FEATURES_NAME as EXPERT_FEATURES
        from policies.expert_features import ExpertFeatures
        from schnauz_env.schnauz.features import FEATURES_NAME, MoveFeatures

        if name == FEATURES_NAME:
            return MoveFeatures(config)
        if name == EXPERT_FEATURES:
            return ExpertFeatures(config)
        known = [FEATURES_NAME, EXPERT_FEATURES]
    else:  # scat, thirteen: the expert's estimates, policies.<game>_features
        import importlib

        module = importlib.import_module(f"policies.{game}_features")
        if name == module.FEATURES_NAME:
            return module.make(config)
        known = [module.FEATURES_NAME]
    raise ValueError(
        f"unknown feature set {name!r} for {game!r} (this package knows: {', '.join(known) or 'none'}); "
        "the model needs a newer package version"
    )


def rules_of(config: Any) -> dict[str, Any]:
    """The rules of ``config`` that a model depends on (table size and guards excluded)."""
    return {
        f.name: getattr(config, f.name) for f in fields(config) if f.name not in _NEUTRAL_FIELDS
    }


def one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """numpy's BLAS limited to one thread while games are played (threadpoolctl, in the
    ``eval`` extra; without it, nothing changes).

    The networks multiply small batches, where BLAS's own threads only wait for cores
    that other work holds: on a busy 2-core machine a search player's batched forward
    passes of the shipped model took 14 ms each with two BLAS threads and 0.35 ms with
    one. Evaluation workers are limited for their whole life, games played in the
    caller's process for the duration of the call.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


class MLPPolicy(Policy):
    """A masked MLP policy from a model file: argmax (or sampling) over legal actions."""

    name = "model"

    def __init__(
        self,
        weights: list[tuple[np.ndarray, np.ndarray]],
        meta: dict[str, Any],
        config: Any,
        seed: int | None = None,
        deterministic: bool = True,
    ) -> None:
        super().__init__(config, seed)
        self.weights = weights
        self.meta = meta
        self.game = meta["game"]
        self.name = meta.get("name", "model")
        self.deterministic = deterministic
        if meta.get("activation") not in ACTIVATIONS:
            raise ValueError(
                f"unknown activation {meta.get('activation')!r}; a model uses one of "
                f"{', '.join(ACTIVATIONS)}"
            )
        self._act_fn = np.tanh if meta["activation"] == "tanh" else (lambda x: np.maximum(x, 0.0))
        self._features = feature_transform(meta.get("features"), self.game, config)

    def logits(self, observations: np.ndarray) -> np.ndarray:
        h = np.asarray(observations, dtype=np.float32)
        if self._features is not None:
            h = self._features(h)
        for w, b in self.weights[:-1]:
            h = self._act_fn(h @ w + b)
        w, b = self.weights[-1]
        return h @ w + b

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        logits = self.logits(observations).astype(np.float64)
        logits = np.where(np.asarray(action_masks, dtype=bool), logits, -np.inf)
        if self.deterministic:
            return logits.argmax(axis=-1)
        z = np.exp(logits - logits.max(axis=-1, keepdims=True))
        p = z / z.sum(axis=-1, keepdims=True)
        u = self.rng.random((len(p), 1))
        return (p.cumsum(axis=-1) < u).sum(axis=-1).clip(max=p.shape[-1] - 1)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])


def save_model(
    path: str | Path,
    weights: list[tuple[np.ndarray, np.ndarray]],
    game: str,
    config: Any,
    table_sizes: list[int],
    activation: str,
    obs_size: int | None = None,
    num_actions: int | None = None,
    extra: dict[str, Any] | None = None,
    features: str | None = None,
) -> Path:
    """Write a model file (see the module docstring); returns its path.

    ``obs_size`` is the environment's observation size; with ``features`` (a feature
    set name) the first layer takes the observation plus that feature set's block.
    Both sizes are read off the weights when not given (the first layer's inputs less
    the feature block; the last layer's outputs).
    """
    if obs_size is None:
        block = feature_transform(features, game, config).size if features else 0
        obs_size = int(np.shape(weights[0][0])[0]) - block
    if num_actions is None:
        num_actions = int(np.shape(weights[-1][0])[1])
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(".npz")
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; use one of {', '.join(ACTIVATIONS)}")
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game,
        "rules": rules_of(config),
        "table_sizes": [int(n) for n in table_sizes],
        "obs_version": obs_version(game),
        "obs_size": int(obs_size),
        "num_actions": int(num_actions),
        "activation": activation,
        "layers": len(weights) - 1,
        "input_size": int(np.shape(weights[0][0])[0]),
        **({"features": features} if features else {}),
        **(extra or {}),
    }
    arrays: dict[str, np.ndarray] = {"meta": np.array(json.dumps(meta))}
    for i, (w, b) in enumerate(weights):
        arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
    # A temporary file renamed into place: a crash never leaves half a model file.
    return atomic_write(
        path, lambda f: np.savez_compressed(f, **arrays), overwrite=True, binary=True
    )


def read_model(path: str | Path) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, Any]]:
    """Read a model file's weights and header; ``ValueError`` naming the problem if it is
    not a valid one.

    Model files come from other people: the header is checked field by field
    (:func:`check_header`), and every array's declared shape and type against it before
    the array is read, so a small file cannot make the loader allocate more than the
    model it describes (at most ``MAX_PARAMETERS`` numbers). Nothing is unpickled.
    """
    path = Path(path)
    name = repr(str(path))
    if not path.is_file():
        raise ValueError(f"model file {name} does not exist")
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
        if magic == b"\x93NUMPY":
            raise ValueError(
                f"{name} is a single numpy array (.npy), not a {FORMAT} model file (.npz)"
            )
        with zipfile.ZipFile(path) as zf:
            meta = check_header(_read_header(zf, name), name)
            weights = _read_weights(zf, meta, name)
    except (
        OSError,
        EOFError,
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,
        NotImplementedError,  # a zip compression numpy never writes
        RuntimeError,  # an encrypted zip member
    ) as err:
        raise ValueError(
            f"{name} is not a readable {FORMAT} model file (corrupt or another format): {err}"
        ) from err
    return weights, meta


#: Limits of a model file, checked before anything is allocated.
MAX_LAYERS = 64
MAX_WIDTH = 1 << 16
MAX_PARAMETERS = 1 << 26
#: The hidden activations a model may use.
ACTIVATIONS = ("tanh", "relu")
_HEADER_BYTES = 1 << 20


def _member(zf: zipfile.ZipFile, key: str, name: str) -> zipfile.ZipInfo:
    try:
        return zf.getinfo(f"{key}.npy")
    except KeyError:
        raise ValueError(
            f"{name} is damaged or not a model file: it has no {key!r} array"
        ) from None


def _open_array(
    zf: zipfile.ZipFile, key: str, name: str
) -> tuple[Any, tuple[int, ...], bool, np.dtype]:
    """The opened member ``key``, positioned at its data, and its declared shape,
    Fortran order and dtype (only the ``.npy`` header is read)."""
    fh = zf.open(_member(zf, key, name))
    try:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"npy version {version}")
    except (ValueError, EOFError, OSError) as err:
        fh.close()
        raise ValueError(f"{name} is damaged: array {key!r} has no valid header ({err})") from None
    return fh, tuple(shape), bool(fortran), dtype


def _read_data(fh: Any, key: str, shape: tuple[int, ...], fortran: bool, dtype: Any, name: str):
    """The array whose header :func:`_open_array` read (its size already checked)."""
    count = int(np.prod(shape, dtype=np.int64))
    nbytes = count * dtype.itemsize
    data = fh.read(nbytes)
    if len(data) != nbytes:
        raise ValueError(
            f"{name} is damaged: array {key!r} holds {len(data)} of its {nbytes} bytes"
        )
    return np.frombuffer(bytearray(data), dtype=dtype, count=count).reshape(
        shape, order="F" if fortran else "C"
    )


def _read_header(zf: zipfile.ZipFile, name: str | None = None) -> Any:
    """The JSON header of an open model file (any JSON value; :func:`check_header`
    checks it)."""
    name = name or repr(str(zf.filename))
    if _member(zf, "meta", name).file_size > _HEADER_BYTES:
        raise ValueError(f"{name} is damaged: its header is larger than {_HEADER_BYTES} bytes")
    fh, shape, fortran, dtype = _open_array(zf, "meta", name)
    with fh:
        if shape != () or dtype.kind != "U":
            raise ValueError(
                f"{name} is damaged: its header is an array of {dtype} {shape}, not text"
            )
        text = str(_read_data(fh, "meta", shape, fortran, dtype, name)[()])
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        raise ValueError(f"{name} is damaged: its header is not JSON ({err})") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_header(meta: Any, name: str = "model") -> dict[str, Any]:
    """``meta`` if it is a valid model header (see the module docstring), else
    ``ValueError`` naming the first field that is missing or wrong."""
    if not isinstance(meta, dict):
        raise ValueError(
            f"{name} is damaged: its header is a JSON {type(meta).__name__}, not an object"
        )
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{name} is not a {FORMAT} v{FORMAT_VERSION} model file "
            f"(format {meta.get('format')!r}, format_version {meta.get('format_version')!r})"
        )

    def field(key: str, check: Any, want: str, optional: bool = False) -> Any:
        if key not in meta:
            if optional:
                return None
            raise ValueError(f"{name} is damaged: its header has no {key!r}")
        value = meta[key]
        if not check(value):
            raise ValueError(
                f"{name} is damaged: header field {key!r} must be {want}, "
                f"got {type(value).__name__} {_short(value)}"
            )
        return value

    from schnauz_env.games import GAMES

    field("game", lambda v: v in GAMES, f"one of {', '.join(GAMES)}")
    field(
        "rules", lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v), "an object"
    )
    field(
        "table_sizes",
        lambda v: isinstance(v, list) and v and all(_is_int(n) and 2 <= n <= 16 for n in v),
        "a non-empty list of table sizes",
    )
    field("obs_version", _is_int, "an integer")
    size = lambda v: _is_int(v) and 1 <= v <= MAX_WIDTH  # noqa: E731
    field("obs_size", size, f"an integer from 1 to {MAX_WIDTH}")
    field("num_actions", size, f"an integer from 1 to {MAX_WIDTH}")
    field("input_size", size, f"an integer from 1 to {MAX_WIDTH}", optional=True)
    field("activation", lambda v: v in ACTIVATIONS, f"one of {', '.join(ACTIVATIONS)}")
    field(
        "layers",
        lambda v: _is_int(v) and 0 <= v <= MAX_LAYERS,
        f"an integer from 0 to {MAX_LAYERS}",
    )
    field("features", lambda v: v is None or isinstance(v, str), "a feature set's name", True)
    field("name", lambda v: isinstance(v, str), "text", optional=True)
    if not meta.get("features") and meta.get("input_size", meta["obs_size"]) != meta["obs_size"]:
        raise ValueError(
            f"{name} is damaged: input size {meta['input_size']} != {meta['obs_size']}"
        )
    return meta


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _read_weights(
    zf: zipfile.ZipFile, meta: dict[str, Any], name: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every layer's weights. Every array's declared shape and type is checked first
    (against the header, the layer before, and ``MAX_PARAMETERS`` in all), then the
    arrays are read: nothing is allocated for a file that fails."""
    prev = meta.get("input_size", meta["obs_size"])
    layers = meta["layers"]
    declared: list[tuple[str, tuple[int, ...], bool, np.dtype]] = []
    total = 0
    for i in range(layers + 1):
        for key in (f"w{i}", f"b{i}"):
            fh, shape, fortran, dtype = _open_array(zf, key, name)
            fh.close()
            if dtype.kind != "f" or dtype.itemsize not in (4, 8):
                raise ValueError(f"{name} is damaged: {key} holds {dtype}, not float32")
            if key[0] == "w":
                out = meta["num_actions"] if i == layers else None
                ok = len(shape) == 2 and shape[0] == prev and 1 <= shape[1] <= MAX_WIDTH
                ok = ok and (out is None or shape[1] == out)
                want = f"({prev}, {'width' if out is None else out})"
            else:
                ok = shape == (prev,)
                want = f"({prev},)"
            if not ok:
                raise ValueError(
                    f"{name} is damaged: layer {i} {key} has shape {shape}; the header and "
                    f"the layer before want {want}"
                )
            if key[0] == "w":
                prev = shape[1]
            total += int(np.prod(shape, dtype=np.int64))
            if total > MAX_PARAMETERS:
                raise ValueError(
                    f"{name} declares more than {MAX_PARAMETERS} parameters; refusing to load it"
                )
            declared.append((key, shape, fortran, dtype))
    arrays = []
    for key, shape, fortran, dtype in declared:
        fh, *_ = _open_array(zf, key, name)
        with fh:
            arrays.append(_read_data(fh, key, shape, fortran, dtype, name))
    return list(zip(arrays[::2], arrays[1::2], strict=True))


def check_compatible(meta: dict[str, Any], game: str, config: Any, path: str = "model") -> None:
    """Raise ``ValueError`` if a model with header ``meta`` cannot play ``game`` under ``config``."""
    if meta["game"] != game:
        raise ValueError(f"{path} was trained for {meta['game']!r}, not {game!r}")
    if meta["obs_version"] != obs_version(game):
        raise ValueError(
            f"{path} expects observation layout v{meta['obs_version']}, this package has "
            f"v{obs_version(game)}; retrain or use a matching package version"
        )
    want = rules_of(config)
    diff = {k: (meta["rules"].get(k), v) for k, v in want.items() if meta["rules"].get(k) != v}
    if diff:
        listed = ", ".join(f"{k}: model {a!r} vs table {b!r}" for k, (a, b) in diff.items())
        raise ValueError(f"{path} was trained under other rules ({listed})")
    env_size = game_module(game).ObservationEncoder(config).size
    if env_size != meta["obs_size"]:
        raise ValueError(f"{path} expects observations of size {meta['obs_size']}, got {env_size}")
    features = feature_transform(meta.get("features"), game, config)
    want_input = env_size + (features.size if features is not None else 0)
    if meta.get("input_size", meta["obs_size"]) != want_input:
        raise ValueError(
            f"{path} has a first layer of {meta.get('input_size')} inputs, but observation "
            f"{env_size} + features {want_input - env_size} = {want_input}"
        )


def load_model_policy(
    path: str | Path,
    game: str = "schnauz",
    config: Any = None,
    seed: int | None = None,
    deterministic: bool = True,
) -> MLPPolicy:
    """A policy from a ``.npz`` model file, checked against ``game`` and ``config``.

    ``config=None`` uses the rules stored in the file (at its first table size).
    """
    weights, meta = read_model(path)
    if meta["game"] != game:
        raise ValueError(f"{str(path)!r} was trained for {meta['game']!r}, not {game!r}")
    if config is None:
        try:
            config = make_config(
                game_module(game).Config,
                {"num_players": meta["table_sizes"][0], **meta["rules"]},
                game,
            )
        except (TypeError, ValueError) as err:
            raise ValueError(f"{str(path)!r} has rules this package cannot build: {err}") from None
    check_compatible(meta, game, config, path=repr(str(path)))
    meta.setdefault("name", Path(path).stem)
    return MLPPolicy(weights, meta, config, seed=seed, deterministic=deterministic)


def actor_layers(policy: Any) -> list[Any]:
    """The linear layers of an SB3 actor-critic policy's actor, in order: its hidden
    layers, then the action head; a model file holds exactly these
    (``weights[i]`` is ``layers[i]``'s weight, transposed, and bias)."""
    import torch

    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    return [*linears, policy.action_net]


def load_actor(model: Any, weights: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """Set the actor of an SB3 / sb3-contrib ``model`` to a model file's ``weights``
    (:func:`read_model`); the value network is left as it is. ``ValueError`` if the
    layers' shapes differ."""
    import torch

    layers = actor_layers(model.policy)
    shapes = [(m.in_features, m.out_features) for m in layers]
    if shapes != [w.shape for w, _ in weights]:
        raise ValueError(
            f"the model file's layers {[w.shape for w, _ in weights]} do not fit the "
            f"network's {shapes}"
        )
    with torch.no_grad():
        for m, (w, b) in zip(layers, weights, strict=True):
            m.weight.copy_(torch.as_tensor(w.T))
            m.bias.copy_(torch.as_tensor(b))


def export_sb3(
    model: Any,
    path: str | Path,
    game: str,
    config: Any,
    table_sizes: list[int],
    extra: dict[str, Any] | None = None,
    features: str | None = None,
) -> Path:
    """Export the actor of an SB3 / sb3-contrib policy (MLP) to a numpy model file.

    ``features``: the feature set the model was trained with (its observations were
    the environment's plus that block; see :func:`feature_transform`).
    """
    import torch

    policy = model.policy
    weights = [
        (m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
        for m in actor_layers(policy)
    ]
    act = policy.activation_fn
    name = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}.get(act)
    if name is None:
        raise ValueError(f"cannot export activation {act.__name__}; use Tanh or ReLU")
    if getattr(policy, "share_features_extractor", True) is False or not isinstance(
        policy.features_extractor,
        __import__("stable_baselines3").common.torch_layers.FlattenExtractor,
    ):
        raise ValueError("only MLP policies on flat observations can be exported")
    return save_model(
        path,
        weights,
        game,
        config,
        table_sizes,
        name,
        extra=extra,
        features=features,
    )


# ------------------------------------------------------------------ shipped models
#: The policy name of the trained model shipped for a game and its rules.
SHIPPED = "model"


def models_dir() -> Path:
    """Where the package ships its trained models (``policies/models/*.npz``)."""
    return Path(__file__).parent / "models"


def shipped_model(game: str, config: Any) -> Path | None:
    """The shipped model file that plays ``game`` under ``config``, if any.

    A model trained at this table size is preferred; any model whose rules and
    observation layout match is accepted (observations are padded to the largest table).
    """
    found: list[tuple[bool, Path]] = []
    for path in sorted(models_dir().glob("*.npz")):
        try:
            _, meta = read_model(path)
            check_compatible(meta, game, config, path=str(path))
        except (ValueError, KeyError):
            continue
        found.append((config.num_players in meta.get("table_sizes", ()), path))
    if not found:
        return None
    found.sort(key=lambda t: not t[0])
    return found[0][1]


def _shipped_factory(game: str) -> Any:
    def make(config: Any = None, seed: int | None = None, arg: str = "", **_: Any) -> MLPPolicy:
        if config is None:
            config = game_module(game).Config()
        path = shipped_model(game, config)
        if path is None:
            raise ValueError(
                f"no trained {game} model for these rules ships with the package "
                f"(shipped: {', '.join(p.name for p in sorted(models_dir().glob('*.npz'))) or 'none'}); "
                "train one with python -m training.train and pass its .npz path"
            )
        policy = load_model_policy(path, game=game, config=config, seed=seed)
        policy.name = SHIPPED
        return policy

    return make


for _game in ("schnauz", "scat", "thirteen"):
    register_policy(_game, SHIPPED)(_shipped_factory(_game))

"""Model files come from other people: every malformed one is refused with a
``ValueError`` naming the problem, before anything large is allocated (issue 16).

A bad-input table of headers (missing keys, wrong types, a header that is not an
object, empty ``table_sizes``, unknown activations, damaged JSON) and of files (a
``.npy`` renamed ``.npz``, truncated or empty files, arrays of the wrong shape or type,
arrays declaring far more numbers than the file holds). The shipped model still loads
to the same arrays.
"""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from policies import make_policy
from policies.mlp import (
    MAX_PARAMETERS,
    MLPPolicy,
    check_header,
    load_model_policy,
    read_model,
    save_model,
)
from schnauz_env.schnauz import SchnauzConfig

CONFIG = SchnauzConfig(num_players=4)
OBS = 436  # the observation size of 4-player A7 Schnauz


def tiny_weights(hidden: int = 8, inputs: int = OBS) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    return [
        (rng.normal(size=(inputs, hidden)).astype(np.float32), np.zeros(hidden, np.float32)),
        (rng.normal(size=(hidden, 14)).astype(np.float32), np.zeros(14, np.float32)),
    ]


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("models") / "good.npz"
    return save_model(path, tiny_weights(), "schnauz", CONFIG, [4], "tanh", OBS, 14)


def arrays_of(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return dict(data)


def write(path: Path, arrays: dict[str, Any]) -> Path:
    np.savez_compressed(path, **arrays)
    return path


def with_header(good: Path, tmp_path: Path, header: Any) -> Path:
    arrays = arrays_of(good)
    arrays["meta"] = np.array(json.dumps(header))
    return write(tmp_path / "m.npz", arrays)


def header_of(good: Path) -> dict[str, Any]:
    return json.loads(str(arrays_of(good)["meta"]))


def test_a_good_file_loads_and_plays(good: Path):
    policy = load_model_policy(good, config=CONFIG)
    assert policy.meta["obs_size"] == OBS
    obs = np.zeros((3, OBS), np.float32)
    mask = np.ones((3, 14), bool)
    assert policy.act_batch(obs, mask).shape == (3,)


REQUIRED = [
    "format",
    "format_version",
    "game",
    "rules",
    "table_sizes",
    "obs_version",
    "obs_size",
    "num_actions",
    "activation",
    "layers",
]


@pytest.mark.parametrize("key", REQUIRED)
def test_a_missing_header_key_is_named(good: Path, tmp_path: Path, key: str):
    header = header_of(good)
    del header[key]
    with pytest.raises(ValueError, match=key if key.startswith("format") else f"no '{key}'"):
        read_model(with_header(good, tmp_path, header))


@pytest.mark.parametrize("header", [[1, 2], "text", 3, None, True])
def test_a_header_that_is_not_an_object_is_refused(good: Path, tmp_path: Path, header: Any):
    with pytest.raises(ValueError, match="not an object"):
        read_model(with_header(good, tmp_path, header))


WRONG = [
    ("obs_size", "436"),
    ("obs_size", 436.0),
    ("obs_size", True),
    ("obs_size", 0),
    ("obs_size", 10**12),
    ("num_actions", -14),
    ("num_actions", None),
    ("input_size", "many"),
    ("layers", "1"),
    ("layers", -1),
    ("layers", 10**9),
    ("table_sizes", []),
    ("table_sizes", 4),
    ("table_sizes", [True]),
    ("table_sizes", [4, "6"]),
    ("table_sizes", [10**9]),
    ("rules", []),
    ("rules", "deck=A7"),
    ("game", "chess"),
    ("game", 1),
    ("obs_version", "1"),
    ("activation", "gelu"),
    ("activation", "sigmoid"),
    ("activation", None),
    ("features", 5),
    ("name", ["x"]),
]


@pytest.mark.parametrize(("key", "value"), WRONG, ids=[f"{k}={v!r}"[:40] for k, v in WRONG])
def test_a_header_field_of_the_wrong_type_or_value_is_named(
    good: Path, tmp_path: Path, key: str, value: Any
):
    header = {**header_of(good), key: value}
    with pytest.raises(ValueError, match=f"'{key}'"):
        read_model(with_header(good, tmp_path, header))


def test_an_unknown_activation_is_refused_everywhere(good: Path):
    weights, meta = read_model(good)
    with pytest.raises(ValueError, match="unknown activation 'gelu'"):
        MLPPolicy(weights, {**meta, "activation": "gelu"}, CONFIG)
    with pytest.raises(ValueError, match="unknown activation"):
        save_model(good.parent / "x.npz", weights, "schnauz", CONFIG, [4], "gelu", OBS, 14)
    with pytest.raises(ValueError, match="'activation'"):
        check_header({**meta, "activation": "swish"})


def test_rules_this_package_cannot_build_are_refused(good: Path, tmp_path: Path):
    header = header_of(good)
    header["rules"] = {**header["rules"], "colour": "red"}
    with pytest.raises(ValueError, match=r"cannot build.*colour"):
        load_model_policy(with_header(good, tmp_path, header))


def npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=True)
    return buf.getvalue()


def raw_npy(shape: tuple[int, ...], dtype: str = "<f4", data: bytes = b"") -> bytes:
    """An .npy member that declares ``shape`` and holds only ``data``."""
    buf = io.BytesIO()
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue() + data


def zip_of(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def members_of(good: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(good) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def damaged_files(good: Path, tmp: Path) -> list[tuple[str, Path, str]]:
    """(what, file, the message's pattern) of every damaged file the loader must refuse."""
    weights, meta = read_model(good)
    cases = []

    def case(what: str, name: str, message: str, data: bytes | None = None, **members: bytes):
        path = tmp / name
        if data is not None:
            path.write_bytes(data)
        else:
            zip_of(path, {**members_of(good), **{f"{k}.npy": v for k, v in members.items()}})
        cases.append((what, path, message))

    buf = io.BytesIO()
    np.save(buf, weights[0][0])
    case("a .npy renamed .npz", "renamed.npz", r"single numpy array \(\.npy\)", buf.getvalue())
    case("an empty file", "empty.npz", "not a readable", b"")
    case("a text file", "text.npz", "not a readable", b"weights: 1 2 3\n")
    case("a truncated file", "cut.npz", "not a readable", good.read_bytes()[:2000])
    case("half a file", "half.npz", "not a readable", good.read_bytes()[: good.stat().st_size // 2])
    zip_of(tmp / "nometa.npz", {k: v for k, v in members_of(good).items() if k != "meta.npy"})
    cases.append(("no header", tmp / "nometa.npz", "no 'meta' array"))
    case("a header that is numbers", "intmeta.npz", "not text", meta=npy_bytes(np.arange(3)))
    case("a header that is not JSON", "badjson.npz", "not JSON", meta=npy_bytes(np.array("{x")))
    deep = "[" * 100_000 + "]" * 100_000
    case("a header nested too deeply", "deep.npz", "not JSON", meta=npy_bytes(np.array(deep)))
    case("a huge header", "hugemeta.npz", "header is larger", meta=npy_bytes(np.array("x" * 2**20)))
    case("a header of pickled objects", "pickled.npz", "no valid header|not text",
         meta=npy_bytes(np.array([{"a": 1}], dtype=object)))  # fmt: skip
    zip_of(tmp / "noW1.npz", {k: v for k, v in members_of(good).items() if k != "w1.npy"})
    cases.append(("a layer missing", tmp / "noW1.npz", "no 'w1' array"))
    case("weights of integers", "intw.npz", "not float32", w0=npy_bytes(np.zeros((OBS, 8), int)))
    case("pickled weights", "objw.npz", "not float32|no valid header",
         w0=npy_bytes(np.zeros((OBS, 8), dtype=object)))  # fmt: skip
    case("a wrong input size", "inp.npz", r"layer 0 w0 has shape \(435, 8\)",
         w0=npy_bytes(np.zeros((OBS - 1, 8), np.float32)))  # fmt: skip
    case("a wrong bias", "bias.npz", r"layer 0 b0 has shape \(9,\)",
         b0=npy_bytes(np.zeros(9, np.float32)))  # fmt: skip
    case("a wrong output size", "out.npz", r"layer 1 w1 has shape \(8, 13\)",
         w1=npy_bytes(np.zeros((8, 13), np.float32)))  # fmt: skip
    case("a 3-d weight", "w3d.npz", "layer 0 w0 has shape",
         w0=npy_bytes(np.zeros((OBS, 8, 1), np.float32)))  # fmt: skip
    case("an array shorter than declared", "short.npz", "holds 400 of its",
         w0=raw_npy((OBS, 8), data=b"\0" * 400))  # fmt: skip
    case("a huge declared shape", "huge.npz", "layer 0 w0 has shape",
         w0=raw_npy((OBS, 10**12)))  # fmt: skip
    case("too many parameters", "many.npz", f"more than {MAX_PARAMETERS} parameters",
         w0=raw_npy((OBS, 60_000)), b0=raw_npy((60_000,)), w1=raw_npy((60_000, 60_000)),
         b1=raw_npy((60_000,)), w2=raw_npy((60_000, 14)), b2=raw_npy((14,)),
         meta=npy_bytes(np.array(json.dumps({**meta, "layers": 2}))))  # fmt: skip
    return cases


def test_every_damaged_file_is_refused_with_its_problem(good: Path, tmp_path: Path):
    cases = damaged_files(good, tmp_path)
    assert len(cases) == 21
    for what, path, message in cases:
        with pytest.raises(ValueError, match=message) as err:
            read_model(path)
        assert str(path.name) in str(err.value), what
        with pytest.raises(ValueError):
            make_policy(str(path), game="schnauz", config=CONFIG)


def test_a_small_file_cannot_make_the_loader_allocate_gigabytes(tmp_path: Path):
    """Zeros compress a thousandfold: a 1.5 MB file used to decompress 1.5 GB (and a
    declared shape of 10**12 numbers gave an uncaught MemoryError)."""
    width = 60_000  # within the width limit: the total is what refuses it
    members = {
        "w0.npy": raw_npy((OBS, width), data=b"\0" * (OBS * width * 4)),
        "b0.npy": npy_bytes(np.zeros(width, np.float32)),
        "w1.npy": raw_npy((width, width)),
        "b1.npy": npy_bytes(np.zeros(width, np.float32)),
        "w2.npy": npy_bytes(np.zeros((width, 14), np.float32)),
        "b2.npy": npy_bytes(np.zeros(14, np.float32)),
    }
    header = {
        "format": "schnauz_env-mlp",
        "format_version": 1,
        "game": "schnauz",
        "rules": {},
        "table_sizes": [4],
        "obs_version": 1,
        "obs_size": OBS,
        "num_actions": 14,
        "activation": "tanh",
        "layers": 2,
    }
    members["meta.npy"] = npy_bytes(np.array(json.dumps(header)))
    bomb = zip_of(tmp_path / "bomb.npz", members)
    assert bomb.stat().st_size < 2_000_000
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="parameters; refusing"):
            read_model(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20  # nothing allocated for the 14 GB declared


def test_the_shipped_model_reads_to_the_arrays_numpy_reads(tmp_path: Path):
    from policies.mlp import models_dir

    path = models_dir() / "schnauz4_a7.npz"
    weights, meta = read_model(path)
    with np.load(path) as data:
        assert json.loads(str(data["meta"])) == meta
        for i, (w, b) in enumerate(weights):
            assert w.dtype == data[f"w{i}"].dtype and np.array_equal(w, data[f"w{i}"])
            assert np.array_equal(b, data[f"b{i}"]) and w.flags.writeable


def test_saving_replaces_a_model_whole(good: Path, tmp_path: Path):
    path = tmp_path / "m.npz"
    save_model(path, tiny_weights(4), "schnauz", CONFIG, [4], "relu", OBS, 14)
    save_model(path, tiny_weights(6), "schnauz", CONFIG, [4], "tanh", OBS, 14)
    weights, meta = read_model(path)
    assert weights[0][0].shape == (OBS, 6) and meta["activation"] == "tanh"
    assert [p.name for p in tmp_path.iterdir()] == ["m.npz"]  # no temporary file left

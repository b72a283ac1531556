"""The training command lines: one rules parser (``--rules key=value``, typed by the
game's config) and the same setting names in the SB3 and RLlib trainers."""

from __future__ import annotations

import dataclasses
import re

import pytest

pytest.importorskip("tyro")

from schnauz_env.schnauz import SchnauzConfig
from training.args import PPOArgs, TableArgs, parse_args, rename_flags, rule_options

RULES_ARGV = ["--rules", "knock_in_first_circle=false", "deck=A9", "lives=2"]
WANT = {"knock_in_first_circle": False, "deck": "A9", "lives": 2}


def test_train_reads_typed_rules_from_its_command_line():
    pytest.importorskip("sb3_contrib")
    from training.train import Args

    args = parse_args(Args, [*RULES_ARGV, "--learning-rate", "1e-3"], "", "train")
    assert args.learning_rate == 1e-3
    assert rule_options(args) == WANT
    config = SchnauzConfig(num_players=4, **rule_options(args))
    assert config.knock_in_first_circle is False


def test_rllib_train_reads_typed_rules_and_builds_its_env_with_them():
    pytest.importorskip("ray.rllib")
    from training.rllib_env import TableEnv
    from training.rllib_train import RENAMED_FLAGS, Args, env_config

    args = parse_args(Args, [*RULES_ARGV, "--ent-coef", "0.02"], "", "rllib", RENAMED_FLAGS)
    assert args.ent_coef == 0.02
    settings = env_config(args, rule_options(args))
    assert settings["rules"] == WANT
    env = TableEnv({**settings, "opponents": ["random"]})
    assert env.configs[4].knock_in_first_circle is False


def test_both_trainers_name_the_shared_settings_alike():
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("ray.rllib")
    from training import rllib_train, train

    shared = {f.name for f in dataclasses.fields(PPOArgs)} | {
        f.name for f in dataclasses.fields(TableArgs)
    }
    for module in (train, rllib_train):
        assert shared <= {f.name for f in dataclasses.fields(module.Args)}
    rllib = {f.name for f in dataclasses.fields(rllib_train.Args)}
    assert not {"lr", "minibatch_size", "num_epochs", "lambda_", "entropy_coeff"} & rllib


def test_rllib_old_flag_spellings_still_work_with_a_warning():
    pytest.importorskip("ray.rllib")
    from training.rllib_train import RENAMED_FLAGS, Args

    old = ["--lr", "1e-3", "--minibatch_size=64", "--num-epochs", "2", "--lambda_", "0.9",
           "--entropy-coeff", "0.5", "--clip-param", "0.1"]  # fmt: skip
    with pytest.warns(DeprecationWarning) as caught:  # one warning per old flag, all caught
        args = parse_args(Args, old, "", "rllib", RENAMED_FLAGS)
    said = {str(w.message) for w in caught}
    for flag, new in [("--lr", "--learning-rate"), ("--minibatch_size", "--batch-size"),
                      ("--num-epochs", "--n-epochs"), ("--lambda_", "--gae-lambda"),
                      ("--entropy-coeff", "--ent-coef"), ("--clip-param", "--clip-range")]:  # fmt: skip
        assert f"rllib {flag} is deprecated; use {new}" in said, said
    assert (args.learning_rate, args.batch_size, args.n_epochs) == (1e-3, 64, 2)
    assert (args.gae_lambda, args.ent_coef, args.clip_range) == (0.9, 0.5, 0.1)


def test_rename_flags_leaves_values_and_new_flags_alone():
    renamed = {"--lr": "--learning-rate"}
    assert rename_flags(["--rules", "lr=3", "--learning-rate", "2"], renamed, "x") == [
        "--rules", "lr=3", "--learning-rate", "2"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (["knock_in_first_circle=maybe"], "write true or false"),
        (["colour=red"], "(?i)unknown schnauz rule 'colour'"),
        (["num_players=3"], "its own flag"),
        (["lives"], "key=value"),
    ],
)
def test_bad_rules_are_refused_with_what_is_allowed(rules, message, capsys):
    pytest.importorskip("sb3_contrib")
    from training.train import main

    _refused(capsys, main, ["--rules", *rules, "--total-steps", "1"], message)


def _refused(capsys, main, argv, message):
    """``main(argv)`` exits with code 2 and one line on stderr matching ``message``."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(message, err), err


def test_pretrain_and_quick_eval_take_the_same_rules(tmp_path, capsys):
    pytest.importorskip("numba")
    from policies.mlp import shipped_model
    from training import pretrain, quick_eval

    argv = ["--rules", "knock_in_first_circle=nah", "--out", str(tmp_path / "x.npz")]
    _refused(capsys, pretrain.main, argv, "write true or false")
    out = tmp_path / "t.npz"
    pretrain.main(["--teacher", "greedy", "--games", "1", "--workers", "1", "--out", str(out),
                   "--rules", "knock_in_first_circle=false"])  # fmt: skip
    assert out.is_file()
    # The shipped model was trained under the standard rules: the typed False reaches the
    # config, which the model refuses (a string 'false' would fail the config's own check).
    model = str(shipped_model("schnauz", SchnauzConfig()))
    argv = [model, "--games", "4", "--rules", "knock_in_first_circle=false"]
    _refused(capsys, quick_eval.main, argv, r"other rules \(knock_in_first_circle: model True")

"""How much does a seat know about whether a knock now loses? The expert's estimate vs a network.

    python bench/knock_information.py                          # 200,000 + 50,000 states
    python bench/knock_information.py --train 800000 --test 200000 --epochs 2
    python bench/knock_information.py --players 6 --model path/to/model.npz

Most of the shipped Schnauz model's edge over ``expert`` is in when it knocks, and a
player that sees every hand wins about 0.45 against three experts. This measures how
much of that hidden information the seat could still recover from what it sees. The
shipped model (or ``--model``) plays one seat against ``expert-jit`` on the batched
engine; at each of its turns where it may knock, the state is labelled with what a knock
*now* would bring on the true cards: every later player, in seat order, takes its best
reply on the table as it stands then (the final circle as the expert's own opponent model
plays it, :func:`policies.expert_jit._best_reply`), and the knock loses if no one ends
below the knocker's hand (ties lose, as in the expert's estimate). Three predictors of
that label are scored on states of games with another seed:

- the expert's own Monte Carlo estimate, the ``knock`` feature of ``schnauz-expert-v1``
  (48 deals of the opponent model from the seat's information): as it is, and
  recalibrated by a logistic fit on the training states;
- a network (two layers of 256, trained for ``--epochs`` with Adam on the training states)
  reading the observation and the whole ``schnauz-expert-v1`` block: everything the seat
  and the shipped model see, history included.

If the network predicts the label much better than the estimate, the observation holds
information about the other hands that the expert's opponent model leaves unused, and a
model could learn to knock better from it. Brier score and log-loss on the test states,
on all of them and on those near the expert's knock limit (within 0.15), where the
decision is made. Needs torch (``pip install -e .[train]``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from policies import expert_jit as EJ
from policies import make_policy
from policies.expert_features import EXPERT_SIZE, FEATURES_NAME, KN
from policies.mlp import feature_transform, load_model_policy, shipped_model
from schnauz_env.batched.jit import njit
from schnauz_env.batched.learner_loop import V_LEARNER
from schnauz_env.schnauz import SchnauzConfig
from schnauz_env.schnauz.engine import KNOCK
from schnauz_env.vector import SchnauzVecEnv

EJ._compile()
_best_reply = EJ._best_reply  # the expert's, compiled (resolved when the kernel compiles)


@njit
def knock_loses(key, hands, table, me, n, out):
    """1 if a knock by seat ``me`` now loses on the true ``hands``: each later player in
    seat order takes its best reply on the table as it stands, and none ends below."""
    mine = key[hands[me, 0], hands[me, 1], hands[me, 2]]
    x, y, z = table[0], table[1], table[2]
    for d in range(1, n):
        p = (me + d) % n
        if out[p]:
            continue
        k, _, _, _, x, y, z = _best_reply(key, hands[p, 0], hands[p, 1], hands[p, 2], x, y, z)
        if k < mine:
            return 0
    return 1


def collect(
    config: SchnauzConfig, model_path: str, count: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` (features, label) rows: the model's turns where it may knock."""
    n = config.num_players
    model = load_model_policy(model_path, "schnauz", config)
    features = feature_transform(FEATURES_NAME, "schnauz", config)
    key, _ = EJ.jit_tables(config)
    opponent = make_policy("expert-jit", game="schnauz", config=config, seed=seed + 1)
    venv = SchnauzVecEnv(num_envs=512, config=config, opponent=opponent.act_batch, seed=seed)
    eng = venv.engine
    obs = venv.reset()
    xs, ys, got, t0 = [], [], 0, time.perf_counter()
    while got < count:
        masks = venv.action_masks()
        rows = np.flatnonzero(masks[:, KNOCK])
        xs.append(features(np.asarray(obs[rows], np.float32)))
        out = eng.out.astype(np.int64)
        for g in rows:  # an out seat's empty hand is padded; knock_loses skips it
            hands = np.array([h or [0, 0, 0] for h in eng.hands(g)], dtype=np.int64)
            table = np.array(eng.table(g), dtype=np.int64)
            ys.append(knock_loses(key, hands, table, int(venv._vs[g, V_LEARNER]), n, out[g]))
        got += len(rows)
        obs, _, _, _ = venv.step(model.act_batch(obs, masks.astype(np.int8)))
        if len(xs) % 200 == 0:
            print(
                f"  {min(got, count):,} / {count:,} states, {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    return np.concatenate(xs)[:count], np.asarray(ys[:count], np.float32)


def scores(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Brier score and log-loss of probabilities ``p`` for labels ``y``."""
    q = np.clip(p, 1e-6, 1 - 1e-6)
    return float(((p - y) ** 2).mean()), float(-(y * np.log(q) + (1 - y) * np.log(1 - q)).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--model", default=None, help="a model file (default: the shipped one)")
    ap.add_argument("--train", type=int, default=200_000, help="training states")
    ap.add_argument("--test", type=int, default=50_000, help="test states (another seed)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=778, help="training games; test games use seed + 1")
    args = ap.parse_args()

    import torch

    torch.manual_seed(args.seed)
    config = SchnauzConfig(num_players=args.players)
    path = args.model or str(shipped_model("schnauz", config))
    print(f"{args.players} players, {path} against expert-jit; collecting ...")
    x, y = collect(config, path, args.train, args.seed)
    xt, yt = collect(config, path, args.test, args.seed + 1)
    k = x.shape[1] - EXPERT_SIZE + KN  # the knock estimate; the limit follows it
    est, est_t, limit_t = x[:, k], xt[:, k], xt[:, k + 1]

    # the estimate recalibrated: a logistic fit of the label on its logit
    def logit(p: np.ndarray) -> torch.Tensor:
        return torch.logit(torch.tensor(np.clip(p, 0.01, 0.99)))

    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=200)
    y_train = torch.tensor(y)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            w[0] * logit(est) + w[1], y_train
        )
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        recal_t = torch.sigmoid(w[0] * logit(est_t) + w[1]).numpy()

    X, Xt = torch.tensor(x), torch.tensor(xt)
    mu, sd = X.mean(0), X.std(0) + 1e-3
    net = torch.nn.Sequential(
        torch.nn.Linear(X.shape[1], 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 1),
    )
    adam = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(args.epochs):
        for b in torch.randperm(len(X)).split(1024):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                net((X[b] - mu) / sd).squeeze(1), y_train[b]
            )
            adam.zero_grad()
            loss.backward()
            adam.step()
        print(f"  network: epoch {epoch + 1} of {args.epochs}", flush=True)
    with torch.no_grad():
        net_t = torch.sigmoid(net((Xt - mu) / sd).squeeze(1)).numpy()

    near = np.abs(est_t - limit_t) < 0.15
    print(
        f"\n{len(y):,} training and {len(yt):,} test states; a knock now loses in {yt.mean():.3f} of the test"
        f" states; {near.mean():.3f} are near the expert's limit\n"
    )
    print(f"{'predictor':<34}{'Brier':>8}{'log-loss':>10}{'Brier near':>12}{'log-loss near':>15}")
    rows = [
        ("base rate", np.full_like(yt, y.mean())),
        ("expert's estimate", est_t),
        ("expert's estimate, recalibrated", recal_t),
        ("network (observation + features)", net_t),
    ]
    for name, p in rows:
        b, ll = scores(p, yt)
        bn, lln = scores(p[near], yt[near])
        print(f"{name:<34}{b:>8.4f}{ll:>10.4f}{bn:>12.4f}{lln:>15.4f}")


if __name__ == "__main__":
    main()

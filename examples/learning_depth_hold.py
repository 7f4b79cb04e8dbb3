"""Depth-and-heading hold on the learning tier: a baseline and a few seconds of policy search.

Runs on Warp's CPU device in well under 30 s (after the first run compiles the kernels):

1. evaluates the hand-written PD controller ``baseline_depth_heading_policy`` and a
   uniformly random policy on 64 vehicles for one 400-step episode (20 s simulated);
2. improves a PD policy from zero gains by basic random search (Mania et al. 2018,
   "Simple random search provides a competitive approach to reinforcement learning"):
   each iteration evaluates 8 gain perturbations, both signs, on 8 vehicles each, in one
   batched env of 128 vehicles, and steps along the return-weighted directions;
3. evaluates the searched gains like the baseline.

Returns are per-vehicle sums of the task's reward (at most 400 over the episode). This is
the learning tier: float32, not canonical; the same device, Warp build and seed print the
same numbers.

Usage: ``python examples/learning_depth_hold.py [--iterations 20] [--device cpu]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from leviathan.learning import UnderwaterVectorEnv, baseline_depth_heading_policy
from leviathan.learning.env import BASELINE_GAINS

GAIN_UNIT = 10.0  # search in units of 10 (N/m, N s/m, N m/rad, N m s/rad)


def returns(env: UnderwaterVectorEnv, policy, *, seed: int, steps: int) -> np.ndarray:
    """Per-env return of the first episode (later episodes after an autoreset not counted)."""
    obs, _ = env.reset(seed=seed)
    total = np.zeros(env.num_envs)
    ended = np.zeros(env.num_envs, bool)
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(policy(obs))
        total += np.where(ended, 0.0, reward)
        ended |= terminated | truncated
    return total


def evaluate(name: str, policy, device: str) -> float:
    env = UnderwaterVectorEnv("depth_heading_hold", num_envs=64, device=device)
    result = returns(env, policy, seed=1000, steps=env.episode_steps)
    print(f"{name:>24}: mean return {result.mean():6.1f}  (min {result.min():6.1f})")
    return float(result.mean())


def random_search(iterations: int, device: str) -> np.ndarray:
    directions, per_candidate, step_size, noise = 8, 8, 0.5, 0.5
    candidates = 2 * directions
    # A shorter episode (10 s) for the search; evaluation uses the full 20 s.
    env = UnderwaterVectorEnv(
        "depth_heading_hold", num_envs=candidates * per_candidate, episode_steps=200, device=device
    )
    rng = np.random.default_rng(0)
    theta = np.zeros(6)
    for iteration in range(iterations):
        delta = rng.standard_normal((directions, 6))
        trial = np.concatenate([theta + noise * delta, theta - noise * delta])
        gains = np.repeat(np.maximum(trial, 0.0) * GAIN_UNIT, per_candidate, axis=0)
        result = returns(
            env,
            lambda obs, g=gains: baseline_depth_heading_policy(obs, gains=g),
            seed=iteration,
            steps=env.episode_steps,
        )
        per_trial = result.reshape(candidates, per_candidate).mean(axis=1)
        plus, minus = per_trial[:directions], per_trial[directions:]
        spread = per_trial.std() + 1e-6
        theta = np.maximum(theta + step_size / (directions * spread) * (plus - minus) @ delta, 0.0)
        print(
            f"  iteration {iteration:2d}: mean return of the trials {per_trial.mean():6.1f} "
            f"(of 200), gains {np.round(theta * GAIN_UNIT, 1).tolist()}"
        )
    return theta * GAIN_UNIT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    start = time.perf_counter()

    print("depth_heading_hold, 64 vehicles, one 400-step episode (at most 400):")
    evaluate("baseline PD", baseline_depth_heading_policy, args.device)
    rng = np.random.default_rng(0)
    evaluate(
        "uniform random",
        lambda obs: rng.uniform(-1.0, 1.0, (obs.shape[0], 5)).astype(np.float32),
        args.device,
    )
    evaluate(
        "PD with zero gains",
        lambda obs: baseline_depth_heading_policy(obs, gains=np.zeros(6)),
        args.device,
    )
    print(f"random search from zero gains ({args.iterations} iterations):")
    gains = random_search(args.iterations, args.device)
    evaluate(
        "searched PD",
        lambda obs: baseline_depth_heading_policy(obs, gains=gains),
        args.device,
    )
    print(f"hand-tuned gains {list(BASELINE_GAINS)}, searched {np.round(gains, 1).tolist()}")
    print(f"wall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()

"""``leviathan sonar-image``: the analytic sonar image (not canonical) over the survey scene."""

from __future__ import annotations

import argparse

__all__ = ["add_subparser"]


def _run(args: argparse.Namespace) -> int:
    from leviathan.analytic import sonar_image, write_sonar_image
    from leviathan.demo import survey_environment
    from leviathan.sensors import SonarNoiseModel

    noisy = args.speckle or args.noise_floor_db is not None or args.gain_db != 0.0
    noise = SonarNoiseModel(
        speckle=args.speckle, noise_floor_db=args.noise_floor_db, gain_db=args.gain_db
    )
    env = survey_environment(args.seabed_triangles)
    image = sonar_image(
        scene=env.scene_at(0),
        position_ned_m=args.position,
        rpy_deg=args.rpy,
        water=env.water,
        noise=noise if noisy else None,
        seed=args.seed,
        backend=args.backend,
    )
    views = [v for v, on in (("fan", args.fan), ("bscan", args.bscan)) if on] or ["fan"]
    written = write_sonar_image(args.out, image, views=views, report=args.report)
    r = image.report
    print(f"analytic sonar image (tier analytic, not canonical): {r.elevation_sample_count.how}")
    print(f"  empty cells {100 * r.empty_cell_share.value:.1f} %; {r.falloff_note}")
    print("\n".join(f"  wrote {path}" for path in written))
    return 0


def add_subparser(subparsers: argparse._SubParsersAction) -> None:
    """Adds ``sonar-image`` and its handler."""
    p = subparsers.add_parser(
        "sonar-image", help="analytic sonar image (not canonical), survey scene"
    )
    p.add_argument(
        "--position",
        nargs=3,
        type=float,
        default=(-12.0, -8.0, 20.0),
        metavar=("N", "E", "D"),
        help="vehicle NED position [m]",
    )
    p.add_argument(
        "--rpy",
        nargs=3,
        type=float,
        default=(0.0, 0.0, 0.0),
        metavar=("ROLL", "PITCH", "YAW"),
        help="vehicle attitude [deg]",
    )
    for flag, text in (
        ("--fan", "fan PNG (written when neither --fan nor --bscan is given)"),
        ("--bscan", "B-scan PNG"),
        ("--report", "report JSON"),
        ("--speckle", "analytic speckle"),
    ):
        p.add_argument(flag, action="store_true", help=text)
    p.add_argument("--out", default="sonar_image_out", help="output folder (created if missing)")
    p.add_argument(
        "--noise-floor-db",
        type=float,
        default=None,
        help="noise floor [dB re 1] (default: none)",
    )
    p.add_argument("--gain-db", type=float, default=0.0, help="receiver gain [dB]")
    p.add_argument("--seed", type=int, default=None, help="noise seed (default: unseeded)")
    p.add_argument("--seabed-triangles", type=int, default=100_000, help="survey seabed size")
    p.add_argument(
        "--backend", default="auto", choices=("auto", "reference", "warp"), help="tracing backend"
    )
    p.set_defaults(func=_run)

"""The command line's shape: one module per subcommand, registered by one line; every
option's default in its help; exit statuses as the README states them; warnings as one line."""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
import warnings

import pytest

import leviathan.cli as cli
from leviathan.cli import main
from leviathan.cli._base import HelpFormatter


def _parsers(parser: argparse.ArgumentParser, name: str = "leviathan"):
    """``(name, parser)`` for the command line and every subcommand under it."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


def test_every_subcommand_lives_in_its_own_module() -> None:
    top = dict(_parsers(cli._parser()))
    commands = {name.split()[1] for name in top if name.count(" ") == 1}
    assert commands == {
        "catalogue", "parity", "bench", "export-usd", "export-dataset", "scenario",
        "sonar-image", "bathymetry", "demo", "serve", "sweep",
    }  # fmt: skip
    assert len(cli.SUBCOMMANDS) == len(commands)
    for module in cli.SUBCOMMANDS:
        assert callable(__import__(module, fromlist=["add_subparser"]).add_subparser), module


def test_a_subcommand_is_registered_by_naming_its_module(monkeypatch, capsys) -> None:
    toy = types.ModuleType("toy_subcommand")

    def add_subparser(subparsers) -> None:
        p = subparsers.add_parser("toy", help="a toy subcommand")
        p.add_argument("--times", type=int, default=2, help="how often to greet")
        p.set_defaults(func=lambda args: print("hello " * args.times) or 0)

    toy.add_subparser = add_subparser
    monkeypatch.setitem(sys.modules, "toy_subcommand", toy)
    monkeypatch.setattr(cli, "SUBCOMMANDS", (*cli.SUBCOMMANDS, "toy_subcommand"))
    assert main(["toy", "--times", "3"]) == 0
    assert capsys.readouterr().out.split() == ["hello"] * 3
    assert main(["toy", "--times", "x"]) == 2  # its usage errors are reported like any other
    assert capsys.readouterr().err.startswith("error: argument --times: invalid int value")
    assert main(["toy", "--help"]) == 0
    assert "how often to greet (default: 2)" in capsys.readouterr().out


def test_every_option_shows_its_default_in_its_help() -> None:
    formatter = HelpFormatter("leviathan")
    missing = []
    for name, parser in _parsers(cli._parser()):
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            if action.required:
                continue  # no default to show: it must be given
            text = formatter._get_help_string(action) or ""
            if "default" not in text:
                missing.append(f"{name} {'/'.join(action.option_strings)}: {text!r}")
    assert missing == []


def test_a_shown_default_is_the_parsed_default(capsys) -> None:
    assert main(["demo", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "output directory (default: survey_out)" in text
    assert "(default: 100000)" in text and "no progress bar (default: off)" in text
    assert main(["sonar-image", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "vehicle NED position [m] (default: -12 -8 20)" in text


# --------------------------------------------------------------------------- exit statuses


@pytest.mark.parametrize(
    "args",
    [
        ["scenario", "run", "nope.toml", "--out", "x"],
        ["export-dataset", "nope", "--mcap", "x.mcap"],
        ["parity", "--fixtures", "nope"],
    ],
)
def test_a_missing_input_is_bad_input(args, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "nope" in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_a_missing_input_is_bad_input_in_a_real_process(tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "leviathan", "scenario", "run", "nope.toml", "--out", "x"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: nope.toml: no such file or folder (the scenario document (.toml or .json))"
    ]


def test_an_output_that_cannot_be_written_is_a_failure(tmp_path, capsys) -> None:
    # Not bad input: the command could not complete (README: exit 1).
    assert main(["export-usd", str(tmp_path / "missing" / "w.usda")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_a_warning_is_one_line_and_the_command_goes_on(monkeypatch, capsys) -> None:
    import leviathan.catalogue

    def warn_then_list() -> str:
        warnings.warn("something was dropped\non two lines", UserWarning, stacklevel=1)
        return "the catalogue"

    monkeypatch.setattr(leviathan.catalogue, "format_catalogue", warn_then_list)
    assert main(["catalogue"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "the catalogue\n"
    assert captured.err == "warning: something was dropped; on two lines\n"

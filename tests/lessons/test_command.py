"""``python -m tapeviz.lessons [DIR]``: the lessons copied for a student, never over the student's work."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tapeviz.lessons import command, library

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_a_checkout_ships_its_own_notebooks():
    assert library.lessons() == LESSONS
    assert len(LESSONS) == 12
    assert library.title(LESSONS[0]).startswith("Lesson 1")


def test_copies_every_lesson_then_changes_nothing(tmp_path):
    done = library.copy(tmp_path)
    assert done == [(p.name, "written") for p in LESSONS]
    assert all((tmp_path / p.name).read_bytes() == p.read_bytes() for p in LESSONS)
    assert library.copy(tmp_path) == [(p.name, "unchanged") for p in LESSONS]


def test_an_edited_notebook_is_kept_and_update_writes_the_new_one_beside(tmp_path, capsys):
    library.copy(tmp_path)
    mine = tmp_path / LESSONS[0].name
    mine.write_text('{"cells": [], "my": "work"}')
    assert command.main([str(tmp_path), "--no-browser"]) == 0
    said = capsys.readouterr().out
    assert f"{LESSONS[0].name}: kept" in said and "--update" in said
    assert mine.read_text() == '{"cells": [], "my": "work"}'
    assert not library.beside(mine).exists()

    assert command.main([str(tmp_path), "--no-browser", "--update"]) == 0
    said = capsys.readouterr().out
    assert f"new version beside as {library.beside(mine).name}" in said
    assert mine.read_text() == '{"cells": [], "my": "work"}'
    assert library.beside(mine).read_bytes() == LESSONS[0].read_bytes()


def test_an_untouched_copy_of_an_older_version_is_replaced(tmp_path):
    library.copy(tmp_path)
    old = tmp_path / LESSONS[1].name
    old.write_text('{"cells": [], "version": "older"}')  # as an older tapeviz wrote it, per the manifest
    manifest = json.loads((tmp_path / library.MANIFEST).read_text())
    manifest["written"][old.name] = library.digest(old.read_bytes())
    (tmp_path / library.MANIFEST).write_text(json.dumps(manifest))
    done = dict(library.copy(tmp_path))
    assert done[old.name] == "updated" and old.read_bytes() == LESSONS[1].read_bytes()


@pytest.mark.parametrize("manifest", ["not json", '["a list"]', '{"written": {"01_first_gradient.ipynb": 3}}'])
def test_a_broken_manifest_trusts_nothing(tmp_path, manifest):
    library.copy(tmp_path)
    mine = tmp_path / LESSONS[0].name
    mine.write_text("{}")
    (tmp_path / library.MANIFEST).write_text(manifest)
    assert dict(library.copy(tmp_path))[mine.name] == "kept"
    assert mine.read_text() == "{}"


def test_list_shows_each_lesson_and_copies_nothing(tmp_path, capsys):
    folder = tmp_path / "class"
    assert command.main([str(folder), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 12 and all("not copied" in line for line in lines)
    assert not folder.exists()
    library.copy(folder)
    (folder / LESSONS[2].name).write_text("{}")
    command.main([str(folder), "--list"])
    lines = capsys.readouterr().out.splitlines()
    assert "edited by you" in lines[2] and "Lesson 3" in lines[2]
    assert sum("copied" in line for line in lines) == 11


def test_without_jupyterlab_it_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(command, "jupyterlab_installed", lambda: False)
    assert command.main([str(tmp_path)]) == 1
    assert "pip install jupyterlab" in capsys.readouterr().err
    assert len(list(tmp_path.glob("*.ipynb"))) == 12  # copied all the same


def test_runs_as_a_module(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "tapeviz.lessons", str(tmp_path), "--no-browser"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "12 written" in done.stdout and f"jupyter lab {tmp_path}" in done.stdout

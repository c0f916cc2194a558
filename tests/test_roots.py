"""Ingest path confinement to configured roots (kb.server.roots)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kb.errors import KbError
from kb.server.roots import PathRefused, check_roots, confine, resolve_under_roots
from tests.conftest import write

SUFFIXES = frozenset({".md", ".txt"})


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """root/{a.md, sub/b.txt, .hidden.md, in-link.md -> a.md, out-link.md -> outside/secret.md,
    out-dir -> outside/}, outside/secret.md."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    a = write(root / "a.md", "# A\n\nalpha\n")
    write(root / "sub" / "b.txt", "beta\n")
    write(root / ".hidden.md", "hidden\n")
    secret = write(outside / "secret.md", "secret\n")
    (root / "in-link.md").symlink_to(a)
    (root / "out-link.md").symlink_to(secret)
    (root / "out-dir").symlink_to(outside, target_is_directory=True)
    return {"root": root, "outside": outside, "a": a, "secret": secret}


def test_path_inside_root_resolves(tree: dict[str, Path]) -> None:
    roots = check_roots([tree["root"]])
    assert resolve_under_roots(tree["a"], roots) == tree["a"].resolve()
    assert resolve_under_roots(tree["root"], roots) == tree["root"].resolve()
    assert resolve_under_roots(tree["root"] / "in-link.md", roots) == tree["a"].resolve()


def test_relative_path_is_looked_up_under_each_root(tree: dict[str, Path], tmp_path: Path
                                                    ) -> None:
    other = write(tmp_path / "other" / "c.md", "gamma\n").parent
    roots = check_roots([other, tree["root"]])
    assert resolve_under_roots("sub/b.txt", roots) == (tree["root"] / "sub/b.txt").resolve()
    assert resolve_under_roots("c.md", roots) == (other / "c.md").resolve()


def test_dotdot_is_refused_even_when_it_stays_inside(tree: dict[str, Path]) -> None:
    roots = check_roots([tree["root"]])
    with pytest.raises(PathRefused, match=r"\.\./outside/secret\.md: refused: '\.\.'"):
        resolve_under_roots("../outside/secret.md", roots)
    with pytest.raises(PathRefused, match=r"'\.\.' is not allowed"):
        resolve_under_roots(str(tree["root"] / "sub" / ".." / "a.md"), roots)


def test_absolute_path_outside_is_refused_whether_or_not_it_exists(tree: dict[str, Path]
                                                                   ) -> None:
    roots = check_roots([tree["root"]])
    for path in (tree["secret"], tree["outside"] / "missing.md", Path("/etc/passwd")):
        with pytest.raises(PathRefused, match="outside the ingest roots") as info:
            resolve_under_roots(path, roots)
        assert str(path) in str(info.value)
        assert isinstance(info.value, KbError) and info.value.path == str(path)


def test_missing_path_inside_root_is_not_found(tree: dict[str, Path]) -> None:
    roots = check_roots([tree["root"]])
    with pytest.raises(FileNotFoundError, match="nope.md"):
        resolve_under_roots(tree["root"] / "nope.md", roots)
    with pytest.raises(FileNotFoundError):
        resolve_under_roots("nope.md", roots)


def test_symlinks_out_of_the_root_are_refused(tree: dict[str, Path]) -> None:
    roots = check_roots([tree["root"]])
    for path in (tree["root"] / "out-link.md", tree["root"] / "out-dir",
                 tree["root"] / "out-dir" / "secret.md", "out-link.md"):
        with pytest.raises(PathRefused, match="resolves outside the ingest roots"):
            resolve_under_roots(path, roots)


def test_symlink_loop_is_refused_without_hanging(tree: dict[str, Path]) -> None:
    root = tree["root"]
    (root / "loop1.md").symlink_to(root / "loop2.md")
    (root / "loop2.md").symlink_to(root / "loop1.md")
    roots = check_roots([root])
    outcome: list[BaseException | Path] = []

    def attempt() -> None:
        try:
            outcome.append(resolve_under_roots(root / "loop1.md", roots))
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "resolving a symlink loop hung"
    assert isinstance(outcome[0], PathRefused) and "symlink loop" in str(outcome[0])
    found = confine([root], roots, suffixes=SUFFIXES)  # a walk meets the loop too
    assert (str(root / "loop1.md"), "symlink loop") in found.refused


def test_no_roots_means_ingest_is_disabled(tree: dict[str, Path]) -> None:
    with pytest.raises(PathRefused, match="ingest is disabled"):
        resolve_under_roots(tree["a"], ())


def test_empty_path_is_refused(tree: dict[str, Path]) -> None:
    with pytest.raises(PathRefused, match="empty path"):
        resolve_under_roots("  ", check_roots([tree["root"]]))
    # an empty root is no root: Path("") is the working folder (`--root "$UNSET"`)
    with pytest.raises(ValueError, match="ingest root '': an empty path"):
        check_roots([tree["root"], ""])


def test_confine_walks_folders_and_drops_files_linked_out(tree: dict[str, Path]) -> None:
    roots = check_roots([tree["root"]])
    found = confine([tree["root"], tree["a"]], roots, suffixes=SUFFIXES)
    root = tree["root"].resolve()
    # a.md once (in-link.md resolves to it), sub/b.txt; hidden file and out-dir not walked
    assert found.files == (root / "a.md", root / "sub" / "b.txt")
    assert found.refused == ((str(root / "out-link.md"),
                              "resolves outside the ingest roots (symlink)"),)


def test_confine_refuses_the_whole_request_for_one_bad_path(tree: dict[str, Path]) -> None:
    roots = check_roots([tree["root"]])
    with pytest.raises(PathRefused, match="secret.md"):
        confine([tree["a"], tree["secret"]], roots, suffixes=SUFFIXES)


def test_root_given_through_a_symlink(tree: dict[str, Path], tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(tree["root"], target_is_directory=True)
    roots = check_roots([alias])
    assert roots == (tree["root"].resolve(),)
    assert resolve_under_roots(alias / "a.md", roots) == tree["a"].resolve()


def test_check_roots_rejects_missing_and_files_and_dedupes(tree: dict[str, Path]) -> None:
    with pytest.raises(ValueError, match="not an existing folder"):
        check_roots([tree["root"] / "missing"])
    with pytest.raises(ValueError, match="not a folder"):
        check_roots([tree["a"]])
    assert check_roots([tree["root"], str(tree["root"]) + os.sep]) == (tree["root"].resolve(),)


def test_confine_lists_broken_links_as_refused(tree: dict[str, Path]) -> None:
    root = tree["root"]
    (root / "sub" / "dangling.md").symlink_to(root / "nowhere.md")
    (root / "sub" / "loop_a").symlink_to("loop_b")
    (root / "sub" / "loop_b").symlink_to("loop_a")
    found = confine([root], check_roots([root]), suffixes=SUFFIXES)
    real = root.resolve()
    assert found.files == (real / "a.md", real / "sub" / "b.txt")
    assert found.refused == (
        (str(real / "out-link.md"), "resolves outside the ingest roots (symlink)"),
        (str(real / "sub" / "dangling.md"), "dangling symlink"),
        (str(real / "sub" / "loop_a"), "symlink loop"),
        (str(real / "sub" / "loop_b"), "symlink loop"),
    )


def test_confine_lists_an_unreadable_folder_as_refused(tree: dict[str, Path]) -> None:
    locked = tree["root"] / "sub"
    locked.chmod(0o000)
    try:
        if os.access(locked, os.R_OK | os.X_OK):
            pytest.skip("the permission bypass reads a mode-000 folder (root with "
                        "CAP_DAC_OVERRIDE); run without it to test this")
        found = confine([tree["root"]], check_roots([tree["root"]]), suffixes=SUFFIXES)
    finally:
        locked.chmod(0o755)
    real = tree["root"].resolve()
    assert found.files == (real / "a.md",)  # sub/b.txt cannot be reached
    assert (str(real / "sub"), "cannot read folder: Permission denied") in found.refused

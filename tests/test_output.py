"""Output folders: only paths inside count, nothing through a link, only our unchanged files go, the swap."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from failuremap_edu.instructor._output import OutputError, check_target, folder_files, install, read_manifest, relative

MANIFEST = ".manifest.json"


def stage(folder: Path, files: dict[str, str]) -> list[str]:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return sorted(files)


def build(tmp_path: Path, root: Path, files: dict[str, str], force: bool = False) -> None:
    staged = tmp_path / f"staged-{len(list(tmp_path.iterdir()))}"
    staged.mkdir()
    rels = stage(staged, files)
    install(staged, rels, check_target(root, rels, force, MANIFEST, "test"), MANIFEST)


@pytest.mark.parametrize("rel", ["/etc/passwd", "../x", "a/../../x", "", ".", "a\\..\\x", 3, None, "a\x00b"])
def test_only_plain_relative_paths_count(rel):
    assert relative(rel) is None


def test_a_plain_path_is_normalised():
    assert relative("./a//b/c.txt") == "a/b/c.txt"


def test_a_new_folder_is_the_staged_one_renamed(tmp_path):
    staged = tmp_path / "staged"
    staged.mkdir()
    rels = stage(staged, {"a/b.txt": "b", "c.txt": "c"})
    root = tmp_path / "deep" / "out"
    digests = install(staged, rels, check_target(root, rels, False, MANIFEST, "test"), MANIFEST)
    assert not staged.exists() and folder_files(root, skip=(MANIFEST,)) == rels
    assert json.loads((root / MANIFEST).read_text())["files"] == digests == {"a/b.txt": hashlib.sha256(b"b").hexdigest(), "c.txt": hashlib.sha256(b"c").hexdigest()}


def test_only_unchanged_files_of_ours_go_and_only_folders_they_leave_empty(tmp_path):
    root = tmp_path / "out"
    build(tmp_path, root, {"gone/deep/x.txt": "x", "kept/y.txt": "y", "edited/z.txt": "z", "same.txt": "s"})
    (root / "kept" / "mine.txt").write_text("mine")
    (root / "edited" / "z.txt").write_text("edited")
    with pytest.raises(OutputError, match=r"has changed since `failuremap-edu test` wrote it: edited/z.txt would be overwritten"):
        check_target(root, ["same.txt"], False, MANIFEST, "test")
    build(tmp_path, root, {"same.txt": "s2"}, force=True)
    assert folder_files(root, skip=(MANIFEST,)) == ["edited/z.txt", "kept/mine.txt", "same.txt"]
    assert (root / "edited" / "z.txt").read_text() == "edited" and (root / "same.txt").read_text() == "s2"
    assert not (root / "gone").exists()
    assert json.loads((root / MANIFEST).read_text())["files"] == {"same.txt": hashlib.sha256(b"s2").hexdigest()}


def test_no_removal_goes_through_a_link_and_no_write_out_of_the_folder(tmp_path):
    root = tmp_path / "out"
    build(tmp_path, root, {"a.txt": "a"})
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "sub").mkdir(parents=True)
    (elsewhere / "sub" / "v.txt").write_text("v")
    (root / "link").symlink_to(elsewhere)
    (root / "inner").symlink_to("a.txt")  # a link inside the folder is no reason to refuse
    data = json.loads((root / MANIFEST).read_text())
    data["files"].update({"link/sub/v.txt": hashlib.sha256(b"v").hexdigest(), "inner": hashlib.sha256(b"a").hexdigest()})
    (root / MANIFEST).write_text(json.dumps(data))
    build(tmp_path, root, {"a.txt": "a"})
    assert (elsewhere / "sub" / "v.txt").read_text() == "v" and (root / "inner").is_symlink()
    with pytest.raises(OutputError, match=r"link: a symbolic link out of .*out \(to .*elsewhere\); nothing is written through it"):
        check_target(root, ["link/sub/new.txt"], True, MANIFEST, "test")


def test_a_manifest_that_is_a_link_or_names_outside_paths_is_not_trusted(tmp_path):
    root = tmp_path / "out"
    root.mkdir()
    (tmp_path / "m.json").write_text(json.dumps({"files": {"a.txt": "0" * 64}}))
    (root / MANIFEST).symlink_to(tmp_path / "m.json")
    assert read_manifest(root, MANIFEST) == (None, [])
    (root / MANIFEST).unlink()
    (root / MANIFEST).write_text(json.dumps({"files": {"/abs": "0", "../up": "0", "ok.txt": "1", "n.txt": 5}}))
    files, warnings = read_manifest(root, MANIFEST)
    assert files == {"ok.txt": "1"} and len(warnings) == 1
    assert "'/abs', '../up', 'n.txt'" in warnings[0] and "not a path inside" in warnings[0]

"""Writing an output folder without losing anything that is not ours (``workshop``, ``lite``).

An output folder may be a clone of a repository that anyone with push access can
edit, so everything found in it is untrusted: its manifest and its symbolic links.

- The manifest (``{"files": {PATH: SHA256}}``) lists what a build wrote. Only
  relative paths without ``..`` count; anything else is named in a warning and ignored.
- A file is removed only when the manifest lists it, it is still a regular file
  (not a link) reached through real folders (no link on the way), and its sha256
  still matches. Nothing is ever removed recursively.
- Nothing is written through a symbolic link that leads out of the folder: refused
  in one line naming the link, before anything is written or removed.
- A file is put in place by renaming onto its name, so a link at that name is
  replaced, never written through.
- A folder is removed only when a file of ours in it was removed and it became empty.
- ``--force`` overwrites what the build writes (also a file someone edited, or one
  at a name the build uses) and leaves everything else alone.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .._atomic import fsync_folder, write_bytes, write_text
from .._errors import InputError

__all__ = ["OutputError", "Target", "check_files", "check_links", "check_target", "folder_files", "install", "save_files", "sha256"]


class OutputError(InputError):
    """An output folder cannot be written without risk to what is not ours (a link out of it, a foreign folder)."""


@dataclass
class Target:
    """What `check_target` found in an output folder, for `install`."""

    root: Path
    remove: list[str] = field(default_factory=list)
    """Files of the previous build, unchanged since, that this build no longer writes."""
    warnings: list[str] = field(default_factory=list)


KEEP = "build into another folder (-o DIR) to keep both, or pass --force to overwrite (your changes are then lost)"
"""The way on, when a build would overwrite what it did not write."""


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _names(rels: list[str], limit: int = 6) -> str:
    return ", ".join(rels[:limit]) + (f" and {len(rels) - limit} more" if len(rels) > limit else "")


def relative(rel) -> str | None:
    """`rel` as a plain relative POSIX path inside a folder, or None (absolute, ``..``, empty, not text)."""
    if not isinstance(rel, str) or not rel or "\x00" in rel or "\\" in rel:
        return None
    path = PurePosixPath(rel)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None
    return path.as_posix()


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _plain_file(root: Path, rel: str) -> Path | None:
    """`root/rel` when it is a regular file reached through real folders only (no symbolic link anywhere)."""
    path = root
    parts = PurePosixPath(rel).parts
    for i, part in enumerate(parts):
        path = path / part
        st = _lstat(path)
        if st is None:
            return None
        if i < len(parts) - 1 and not stat.S_ISDIR(st.st_mode):
            return None
        if i == len(parts) - 1 and not stat.S_ISREG(st.st_mode):
            return None
    return path


def _outside(root: Path, path: Path) -> bool:
    real_root, real = root.resolve(), path.resolve()
    return real != real_root and real_root not in real.parents


def check_links(root: Path, rel: str) -> None:
    """Raise OutputError, in one line, unless ``root/rel`` can be written without harm.

    Refused: a symbolic link out of `root` on the way (a folder or the file
    itself), a file where a folder goes, and a folder where the file goes.
    """
    path = root
    parts = PurePosixPath(rel).parts
    for i, part in enumerate(parts):
        path = path / part
        st = _lstat(path)
        if st is None:
            return
        if stat.S_ISLNK(st.st_mode) and _outside(root, path):
            raise OutputError(
                f"{path}: a symbolic link out of {root} (to {os.readlink(path)}); nothing is written through it: "
                "remove the link, or choose another folder"
            )
        if i < len(parts) - 1 and not path.is_dir():
            raise OutputError(f"{path}: not a folder, but {root / rel} is to be written in it: move it, or choose another folder")
        if i == len(parts) - 1 and stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{path}: a folder where a file is to be written: move it, or choose another folder")


def folder_files(root: Path, skip: tuple[str, ...] = ()) -> list[str]:
    """Every file and symbolic link in `root`, relative, following no link; git's folder and `skip` left out."""
    found = []
    for here, dirs, files in os.walk(root, followlinks=False):
        base = Path(here).relative_to(root)
        if base == Path("."):
            dirs[:] = [d for d in dirs if d != ".git"]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(here, d))]:
            rel = (base / name).as_posix()
            if rel not in skip:
                found.append(rel)
    return sorted(found)


def read_manifest(root: Path, name: str) -> tuple[dict[str, str] | None, list[str]]:
    """The files a previous build recorded, with their sha256 (None: no readable manifest), and warnings.

    Only entries that name a path inside `root` count; the others are named and ignored.
    """
    path = _plain_file(root, name)
    if path is None:
        return None, []
    try:
        files = json.loads(path.read_text(encoding="utf-8"))["files"]
        if not isinstance(files, dict):
            raise TypeError
    except (OSError, ValueError, KeyError, TypeError):
        return None, []
    kept, bad = {}, []
    for rel, digest in files.items():
        clean = relative(rel)
        if clean is None or clean == name or not isinstance(digest, str):
            bad.append(rel)
        else:
            kept[clean] = digest
    warnings = []
    if bad:
        shown = ", ".join(repr(r)[:200] for r in bad[:4]) + (f" and {len(bad) - 4} more" if len(bad) > 4 else "")
        warnings.append(f"{root / name}: ignoring {shown}: not a path inside {root} (nothing outside it is removed)")
    return kept, warnings


def check_target(root: Path, planned: list[str] | None, force: bool, manifest: str, command: str) -> Target:
    """What to remove before installing `planned` in `root`; raises OutputError unless that is safe or forced.

    `planned` None checks only what can be checked before the build (a foreign or
    edited folder); the links on the way to each planned file are checked otherwise.
    """
    root = Path(root)
    target = Target(root)
    if not os.path.lexists(root):
        return target
    if not root.is_dir():
        raise OutputError(f"{root}: exists and is not a folder")
    for rel in [*planned, manifest] if planned is not None else []:
        check_links(root, rel)
    existing = folder_files(root, skip=(manifest,))
    if not existing:
        return target
    recorded, target.warnings = read_manifest(root, manifest)
    planned_set = set(planned or ())
    if recorded is None:
        if force:
            return target
        clash = sorted(rel for rel in planned_set if os.path.lexists(root / rel))
        what = f"{_names(clash)} would be overwritten" if clash else f"it holds {_names(existing)}"
        raise OutputError(f"{root} is not empty and was not made by `failuremap-edu {command}`: {what}; {KEEP}")
    ours = [rel for rel in recorded if _plain_file(root, rel) is not None]
    changed = [rel for rel in ours if sha256(root / rel) != recorded[rel]]
    clash = [rel for rel in planned_set if rel not in recorded and os.path.lexists(root / rel)]
    if (changed or clash) and not force:
        raise OutputError(
            f"{root} has changed since `failuremap-edu {command}` wrote it: {_names(sorted(set(changed + clash)))} "
            f"would be overwritten; {KEEP}"
        )
    target.remove = sorted(rel for rel in ours if rel not in changed and rel not in planned_set)
    edited = sorted(rel for rel in changed if rel in planned_set)
    if edited:  # --force: say which of your edits it overwrote, never silently
        target.warnings.append(f"{root}: --force overwrote your changes to {_names(edited)} (this build's version is there now)")
    return target


def _make_folders(root: Path, rel: str) -> None:
    path = root
    for part in PurePosixPath(rel).parts[:-1]:
        path = path / part
        if not os.path.lexists(path):
            path.mkdir()
        elif not path.is_dir():
            raise OutputError(f"{path}: is in the way of {root / rel} (not a folder); move it, or choose another folder")


def _put(source: Path, destination: Path) -> None:
    """Move `source` onto `destination`'s name: a link there is replaced, not followed."""
    try:
        os.replace(source, destination)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    temporary = destination.with_name(f".{destination.name}.{secrets.token_hex(4)}.tmp")
    try:
        with open(source, "rb") as src, open(temporary, "xb") as dst:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(temporary, destination)
    finally:
        if os.path.lexists(temporary):
            os.unlink(temporary)


def _sync(path: Path) -> None:
    """Flush a staged file to the disk before it is renamed into place (a crash then leaves it whole, not empty)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def install(staged: Path, files: list[str], target: Target, manifest: str) -> dict[str, str]:
    """Move the `files` of the folder `staged` into `target.root`, remove the stale ones, write the manifest.

    Call only after `check_target` said yes, and after the build succeeded. Into a
    folder that does not exist yet, `staged` is renamed whole. Every file is on the
    disk (fsync) before it is renamed into place, and each is renamed whole.
    """
    root = target.root
    digests = {rel: sha256(staged / rel) for rel in files}
    body = json.dumps({"files": digests}, indent=1, sort_keys=True) + "\n"
    for rel in files:
        _sync(staged / rel)
    scratch = staged / f".{manifest}.new"
    write_text(scratch, body)  # first: the last write that needs room on the disk, done before anything in `root` changes
    if not os.path.lexists(root):
        root.parent.mkdir(parents=True, exist_ok=True)
        os.replace(scratch, staged / manifest)
        try:
            os.rename(staged, root)
            fsync_folder(root.parent)
            return digests
        except OSError as exc:  # another file system: file by file
            if exc.errno != errno.EXDEV:
                raise
            os.replace(staged / manifest, scratch)
            root.mkdir()
    for rel in files:
        check_links(root, rel)  # again, just before writing
        _make_folders(root, rel)
        _put(staged / rel, root / rel)
    for rel in target.remove:  # the previous build's files that this one no longer writes, unchanged since
        path = _plain_file(root, rel)
        if path is not None:
            path.unlink()
    check_links(root, manifest)
    _put(scratch, root / manifest)
    for rel in sorted(target.remove, key=lambda r: r.count("/"), reverse=True):  # folders that became empty
        parts = PurePosixPath(rel).parts[:-1]
        while parts:
            path = root.joinpath(*parts)
            st = _lstat(path)
            if st is None or not stat.S_ISDIR(st.st_mode):
                break
            with os.scandir(path) as entries:
                if any(entries):
                    break
            path.rmdir()
            parts = parts[:-1]
    for folder in sorted({(root / rel).parent for rel in [*files, manifest]}):  # the renames, on the disk
        fsync_folder(folder)
    return digests


def check_files(root: Path, files: dict[str, bytes], force: bool, manifest: str, command: str) -> list[str]:
    """Whether writing `files` (path in `root` -> content) loses nothing; raises OutputError naming the edited ones.

    For a folder that also holds other things (``notebook -o .``): only the files to
    write count. One that exists is overwritten when it is as the last
    `command` left it (its sha256 is in the manifest) or already holds exactly the
    new content; any other (edited since, or not written by `command`) is refused,
    unless `force`: then it is overwritten and a returned warning names it.
    """
    root = Path(root)
    for rel in [*files, manifest]:
        check_links(root, rel)
    recorded, warnings = read_manifest(root, manifest) if os.path.lexists(root) else (None, [])
    recorded = recorded or {}
    edited = []
    for rel, content in files.items():
        path = _plain_file(root, rel)
        if path is None:
            continue  # nothing there yet (check_links refused a folder or a link out)
        digest = sha256(path)
        if digest != recorded.get(rel) and digest != hashlib.sha256(content).hexdigest():
            edited.append(rel)
    if edited and not force:
        raise OutputError(
            f"{root}: {_names(edited)} changed since `failuremap-edu {command}` wrote {'them' if len(edited) > 1 else 'it'} "
            f"(or {'were' if len(edited) > 1 else 'was'} not written by it) and would be overwritten; {KEEP}"
        )
    if edited:
        warnings.append(f"{root}: --force overwrote your changes to {_names(edited)} (this build's version is there now)")
    return warnings


def save_files(root: Path, files: dict[str, bytes], manifest: str | None) -> list[Path]:
    """Write each of `files` whole (`_atomic`), then the manifest, listing them with the files it listed that are still there.

    Call after `check_files`. `manifest` None: no manifest (a folder that is itself staged).
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    written = []
    for rel, content in files.items():
        _make_folders(root, rel)
        written.append(write_bytes(root / rel, content))
    if manifest is not None:
        recorded, _ = read_manifest(root, manifest)
        kept = {rel: digest for rel, digest in (recorded or {}).items() if rel not in files and _plain_file(root, rel) is not None}
        kept.update({rel: hashlib.sha256(content).hexdigest() for rel, content in files.items()})
        write_text(root / manifest, json.dumps({"files": kept}, indent=1, sort_keys=True) + "\n")
    return written

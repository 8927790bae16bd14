"""The models this user has: pulled from the hub (verified) or registered with `models add`.

Kept in `<data dir>/installed-models.json`; pulled files live under `<data dir>/downloads/OWNER/REPO/`.
A record whose file has since disappeared is shown as missing, not dropped silently.
"""
from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from models.errors import ModelError

MANIFEST = "installed-models.json"


@dataclass(frozen=True)
class Installed:
    name: str
    path: str  # the GGUF file (readers) or the folder (a judge base)
    role: str = "reader"
    source: str = "added"  # "pulled" (from the hub, hash checked) or "added" (a local file)
    repo: str = ""
    sha256: str = ""
    size: int = 0

    @property
    def exists(self) -> bool:
        return Path(self.path).exists()


def downloads_dir(data_dir: Path, repo: str) -> Path:
    return Path(data_dir) / "downloads" / repo


def _manifest(data_dir: Path) -> Path:
    return Path(data_dir) / MANIFEST


def load_installed(data_dir: Path) -> list[Installed]:
    path = _manifest(data_dir)
    try:
        rows = json.loads(path.read_text(encoding="utf-8")).get("models", [])
        return [Installed(**{k: v for k, v in row.items() if k in Installed.__dataclass_fields__})
                for row in rows if isinstance(row, dict) and row.get("name") and row.get("path")]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, TypeError, AttributeError):
        raise ModelError(f"the list of installed models {path} is damaged; delete it and pull or add "
                         "the models again (their files stay where they are)") from None


def record(data_dir: Path, model: Installed) -> None:
    """Add or replace (by name, and by path) one model in the manifest."""
    others = [m for m in load_installed(data_dir) if m.name != model.name and m.path != model.path]
    path = _manifest(data_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"models": [asdict(m) for m in [*others, model]]}, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            path.with_suffix(".tmp").unlink()
        raise ModelError(f"cannot write {path}: {exc.strerror or exc}") from None


def find_installed(data_dir: Path, name: str) -> Installed | None:
    wanted = name.strip().lower()
    return next((m for m in load_installed(data_dir) if m.name.lower() == wanted), None)


def name_for(path: Path) -> str:
    """A short name for a local file: its stem, lower case ("qwen2.5-1.5b-instruct-q4_k_m")."""
    return Path(path).stem.lower()

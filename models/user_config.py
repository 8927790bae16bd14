"""Set keys in the user's config.toml while keeping everything else in it, comments included
(the reader `models use` picks, the judge a training or export makes)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from models.config import config_file
from models.errors import ConfigError


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a valid TOML basic string


def set_values(values: dict) -> Path:
    """Replace or add top-level `key = value` lines; keys under [tables] are left alone."""
    path = config_file()
    try:
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    top_end = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    pending = dict(values)
    for i in range(top_end):
        match = re.match(r"\s*([A-Za-z0-9_-]+)\s*=", lines[i])
        if match and match.group(1) in pending:
            key = match.group(1)
            lines[i] = f"{key} = {_toml_value(pending.pop(key))}"
    lines[top_end:top_end] = [f"{key} = {_toml_value(value)}" for key, value in pending.items()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot write config file {path}: {exc.strerror}") from None
    return path


def use_t5_judge(folder: Path) -> Path:
    """Make `folder` the user's judge: judge = "t5" and judge_path in config.toml. Returns the file."""
    return set_values({"judge": "t5", "judge_path": str(Path(folder).resolve())})

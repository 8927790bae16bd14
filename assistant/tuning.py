"""Tuned values as typed settings: each threshold and limit of the answer path is a field of a
settings group, with its bound, why it has its value (and where that was measured) and the reader
it was measured for.

A package keeps its groups in its own `settings.py` (e.g. assistant/grounding/settings.py) with a
default instance that its modules read by name (`GROUNDING.closest`). A group checks its values
when it is made: one out of its bound is a ConfigError naming the group, the field, the value and
the bound. `described()` lists a group's fields for people (docs/configuration.md, "Tuned values").

Where readers differ, a preset names the overrides measured for a reader; the values in the code
are those of `DEFAULT_PRESET`, the reader EVALUATION.md's tables used.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Iterator, NamedTuple

from models.errors import ConfigError

ANY_READER = "any"  # a value that does not depend on the reader


def setting(default: Any, *, bound: tuple[Any, Any], why: str, reader: str = ANY_READER) -> Any:
    """A field of a SettingsGroup: its default, its inclusive bound (for a tuple: of each element),
    one line on what it does and where it was chosen, and the reader it was measured for."""
    low, high = bound
    if not why.strip():
        raise ValueError("a setting needs a description (`why`)")
    return dataclasses.field(default=default, metadata={"bound": (low, high), "why": why, "reader": reader})


class Described(NamedTuple):
    """One field of a settings group as people read it."""

    name: str
    default: Any
    bound: tuple[Any, Any]
    why: str
    reader: str


@dataclass(frozen=True)
class SettingsGroup:
    """The base of a group of tuned values; every field is made with `setting`."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if "bound" not in f.metadata:
                raise TypeError(f"{type(self).__name__}.{f.name} is not declared with tuning.setting")
            value = getattr(self, f.name)
            low, high = f.metadata["bound"]
            for element in (value if isinstance(value, tuple) else (value,)):
                if isinstance(element, bool) or not low <= element <= high:
                    raise ConfigError(f"{type(self).__name__}.{f.name} = {value!r} is out of its bound "
                                      f"({low} to {high})")

    @classmethod
    def described(cls) -> Iterator[Described]:
        """(name, default, bound, why, reader) for each field, in declaration order."""
        for f in dataclasses.fields(cls):
            yield Described(f.name, f.default, f.metadata["bound"], f.metadata["why"], f.metadata["reader"])

    def with_changes(self, **changes: Any) -> "SettingsGroup":
        """A copy with these fields changed, checked like any group."""
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ConfigError(f"{type(self).__name__} has no setting {unknown[0]!r} "
                              f"(it has: {', '.join(sorted(known))})")
        return dataclasses.replace(self, **changes)


# preset -> settings group's class name -> the fields that differ from the code's defaults.
# Only values measured for a reader belong here; today's defaults were measured with one reader.
DEFAULT_PRESET = "qwen2.5-coder-1.5b"  # Qwen2.5-Coder-1.5B-Instruct, q4 (EVALUATION.md)
BUNDLED_PRESET = "smollm2-135m"  # the bundled demo reader, SmolLM2-135M-Instruct Q4_1
PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    DEFAULT_PRESET: {},
    # with the search's best 5 beside the judge's, SmolLM2 presented two near misses of
    # examples/docs as supported (EVALUATION.md, "Issue 62, third session")
    BUNDLED_PRESET: {"FilesSettings": {"search_kept": 2}},
}
# a reader's file name (as shipped or pulled) -> the preset measured for it; any other reader
# gets the code's values, those of DEFAULT_PRESET
READER_FILES = {
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf": DEFAULT_PRESET,
    "smollm2-135m-instruct.q4_1.gguf": BUNDLED_PRESET,
}


def preset_names() -> list[str]:
    return sorted(PRESETS)


def in_preset(group: SettingsGroup, preset: str) -> SettingsGroup:
    """The group with the overrides a preset names for it (unchanged where it names none)."""
    if preset not in PRESETS:
        raise ConfigError(f"no tuning preset {preset!r} (known: {', '.join(preset_names())})")
    return group.with_changes(**PRESETS[preset].get(type(group).__name__, {}))


def reader_preset(reader) -> str:
    """The preset measured for a loaded reader, by its file's name; DEFAULT_PRESET for a reader
    without a file (a fake) or one nothing was measured for."""
    path = getattr(reader, "path", None)
    return READER_FILES.get(PurePath(path).name.lower(), DEFAULT_PRESET) if path else DEFAULT_PRESET

"""Tuned values as typed settings (assistant/tuning.py): every group of the answer path's settings
modules declares, for each field, why it has its value, a bound holding it and the reader it was
measured for; a value out of its bound is refused by name; presets override real fields only; and
the shared steps keep their tuning in those modules, not as numbers in code."""
import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

from assistant.tuning import ANY_READER, PRESETS, SettingsGroup, in_preset, preset_names, setting
from models.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
# the shared steps whose tuning lives in their settings module (the strategies' and profiles' too
# where they have one)
SHARED_STEPS = ("answering", "grounding", "checks", "retrieval", "folder")
TUNING_MODULE_WORDS = ("settings", "options", "config", "preset")


def settings_modules() -> list[str]:
    return sorted(".".join(path.relative_to(ROOT).with_suffix("").parts)
                  for path in (ROOT / "assistant").rglob("*settings.py"))


def groups() -> list[type[SettingsGroup]]:
    found = {}
    for name in settings_modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, SettingsGroup) and value is not SettingsGroup:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[key] for key in sorted(found)]


def _elements(value) -> tuple:
    return value if isinstance(value, tuple) else (value,)


def test_each_shared_step_has_its_settings_module():
    assert {f"assistant.{package}.settings" for package in SHARED_STEPS} <= set(settings_modules())


@pytest.mark.parametrize("group", groups(), ids=lambda g: g.__name__)
def test_every_field_says_why_its_bound_holds_the_default_and_its_reader(group):
    rows = list(group.described())
    assert rows, f"{group.__name__} has no setting"
    for name, default, (low, high), why, reader in rows:
        assert len(why.split()) >= 3, f"{group.__name__}.{name}: say why it has its value"
        assert "\n" not in why, f"{group.__name__}.{name}: one line"
        assert all(low <= v <= high for v in _elements(default)), f"{group.__name__}.{name}: {default} not in its bound"
        assert reader == ANY_READER or reader in preset_names(), f"{group.__name__}.{name}: reader {reader!r}"
    group()  # the defaults pass the group's own check


@pytest.mark.parametrize("group", groups(), ids=lambda g: g.__name__)
def test_a_value_out_of_its_bound_is_refused_naming_the_group_and_the_field(group):
    for name, default, (low, high), _, _ in group.described():
        above = high + 1 if isinstance(high, int) else high * 2 + 1.0
        wrong = tuple(above for _ in default) if isinstance(default, tuple) else above
        with pytest.raises(ConfigError) as refused:
            group().with_changes(**{name: wrong})
        assert f"{group.__name__}.{name} = " in str(refused.value) and str(high) in str(refused.value)


def test_a_copy_changes_only_what_it_names_and_an_unknown_name_is_refused():
    @dataclasses.dataclass(frozen=True)
    class Limits(SettingsGroup):
        passages: int = setting(3, bound=(1, 10), why="passages read at most")
        gaps: tuple = setting((5, 7), bound=(0, 20), why="columns whose gap is taken")

    changed = Limits().with_changes(passages=4)
    assert (changed.passages, changed.gaps, Limits().passages) == (4, (5, 7), 3)
    with pytest.raises(ConfigError, match=r"Limits\.gaps = \(5, 21\)"):
        Limits(gaps=(5, 21))
    with pytest.raises(ConfigError, match="no setting 'passage'"):
        Limits().with_changes(passage=4)
    with pytest.raises(ConfigError, match="passages"):
        Limits(passages=True)  # a bool is no count


def test_a_field_declared_without_setting_is_a_mistake():
    @dataclasses.dataclass(frozen=True)
    class Bare(SettingsGroup):
        threshold: float = 0.5

    with pytest.raises(TypeError, match="tuning.setting"):
        Bare()


def test_presets_override_real_fields_within_their_bounds():
    by_name = {g.__name__: g for g in groups()}
    assert preset_names() and all(PRESETS[name] is not None for name in preset_names())
    for preset, overrides in PRESETS.items():
        for group_name, changes in overrides.items():
            assert group_name in by_name, f"preset {preset} names no settings group {group_name}"
            fields = {f.name for f in dataclasses.fields(by_name[group_name])}
            assert set(changes) <= fields, f"preset {preset}: {sorted(set(changes) - fields)} not in {group_name}"
            in_preset(by_name[group_name](), preset)  # within bounds
    with pytest.raises(ConfigError, match="no tuning preset"):
        in_preset(next(iter(by_name.values()))(), "no-such-reader")


def _numbers_in_code(package: str) -> list[str]:
    found = []
    for path in sorted((ROOT / "assistant" / package).rglob("*.py")):
        if any(word in path.stem for word in TUNING_MODULE_WORDS):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value not in (0, 1, 2):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    return found


def test_the_shared_steps_keep_their_tuning_in_their_settings_modules():
    """Numbers that are not tuning stay (what k and M multiply by, the calendar, a floor under a
    logarithm); a threshold or limit belongs in the package's settings module, with its reason."""
    numbers = [n for package in SHARED_STEPS for n in _numbers_in_code(package)]
    assert len(numbers) <= 15, "\n".join(numbers)

"""The keywords of Simulation(...) and set(...) that are boids-run flags:
their table, read from the library (boids_engine_option_name), and each
value as the flag's text by its kind."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Sequence, Tuple

from ._convert import _integer, _number, _numbers
from ._library import _MAX_AGENTS, _lib, _text, ffi


# Simulation's own parameters that the library also lists as options: the
# parameter sets the engine's description itself, so it is no keyword here.
_OWN_PARAMETERS = ("kernel",)


def _option_table() -> Dict[str, Tuple[str, str]]:
    """The Python keyword (the flag in snake_case) -> (the flag without "--",
    the kind of its value) of every option the library lists."""
    table = {}
    kind = ffi.new("const char **")
    for i in range(_lib.boids_engine_option_count()):
        flag = _text(_lib.boids_engine_option_name(i, kind))
        name = flag.replace("-", "_")
        if flag and name not in _OWN_PARAMETERS:
            table[name] = (flag, _text(kind[0]))
    return table


# The keywords of Simulation(...) and set(...) that are boids-run flags: the
# Python name (snake_case) -> (the flag without "--", the kind of value).
_OPTIONS: Dict[str, Tuple[str, str]] = _option_table()
_FLAG_NAMES = {flag: name for name, (flag, _) in _OPTIONS.items()}


def options() -> List[str]:
    """The keywords ``Simulation(...)`` takes beside count, dim, backend,
    seed, init, threads, scenario and kernel: boids-run's flags in
    snake_case (``wall_corner`` for ``--wall-corner``)."""
    return list(_OPTIONS)


def _agent_text(name: str, value: Any) -> str:
    """An agent id or "target" as boids-run's --leader takes it."""
    if isinstance(value, str):
        return value
    return str(_integer(name, value, 0, _MAX_AGENTS - 1, "an agent id or 'target'"))


def _name_text(name: str, value: Any) -> str:
    """A name (one of the flag's choices: the library checks which)."""
    if not isinstance(value, str):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a name (str)")
    return value


def _agents_text(name: str, value: Any) -> str:
    """A pair of agent ids (or "target") as boids-run's --interpose takes it."""
    if isinstance(value, str) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name}: {value!r} is not a pair of agent ids (or 'target')")
    return ",".join(_agent_text(name, v) for v in value)


def _behaviors_text(name: str, value: Any) -> str:
    """A behaviour name or set ("all", "flocking"), or a list of them."""
    if isinstance(value, str):
        return value
    try:
        names = list(value)
    except TypeError:
        raise TypeError(f"{name}: {value!r} is not a behaviour name or a list of them") from None
    if not all(isinstance(v, str) for v in names):
        raise TypeError(f"{name}: {value!r} is not a list of behaviour names (str)")
    return ",".join(names) if names else "none"


def _weights_text(name: str, value: Any) -> str:
    """A dict of behaviour name -> weight as NAME=W,..."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name}: {value!r} is not a dict of behaviour name -> weight")
    return ",".join(f"{k}={_number(f'weights[{k!r}]', v)!r}" for k, v in value.items())


# Each kind of value the library names (boids_engine_option_name) -> its
# text from a Python value (TypeError for a value of the wrong type; the
# library checks the value itself).
_KINDS: Dict[str, Callable[[str, Any], str]] = {
    "number": lambda name, v: repr(_number(name, v)),
    "integer": lambda name, v: str(_integer(name, v, 0, 2**32 - 1, "an integer")),
    "name": _name_text,
    "extents": lambda name, v: "x".join(_numbers(name, v, 2, 3)),
    "point": lambda name, v: ",".join(_numbers(name, v, 2, 3)),
    "range": lambda name, v: ",".join(_numbers(name, v, 2, 2)),
    "grid_fine": lambda name, v: v if isinstance(v, str) else str(_integer(name, v, 1, 4, "1..4 or 'auto'")),
    "agent": _agent_text,
    "agents": _agents_text,
    "behaviors": _behaviors_text,
    "weights": _weights_text,
}


def _option_text(name: str, value: Any) -> str:
    """The boids-run value text of keyword `name`, by its kind; a kind this
    package does not know (a newer library) takes the flag's own text."""
    flag, kind = _OPTIONS[name]
    if kind in _KINDS:
        return _KINDS[kind](name, value)
    if not isinstance(value, str):
        raise TypeError(f"{name}: {value!r} is a {type(value).__name__}; expected the text of --{flag}")
    return value


def _option_array(values: Mapping[str, Any]):
    """(cdata array of boids_engine_option, n, the texts kept alive) for the keywords."""
    keep = []
    arr = ffi.new("boids_engine_option[]", max(1, len(values)))
    for i, (name, value) in enumerate(values.items()):
        flag = ffi.new("char[]", _OPTIONS[name][0].encode())
        value_text = _option_text(name, value)
        if "\0" in value_text:
            raise ValueError(f"{name}: {value_text!r} contains a NUL character")
        text = ffi.new("char[]", value_text.encode())
        keep += [flag, text]
        arr[i].name = flag
        arr[i].value = text
    return arr, len(values), keep


def _unknown_keyword(where: str, names: Sequence[str]) -> None:
    """TypeError for keywords that are not options, with the nearest known ones."""
    import difflib

    bad = ", ".join(repr(n) for n in names)
    near = [m for n in names for m in difflib.get_close_matches(n, list(_OPTIONS), 1)]
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise TypeError(f"{where}: unexpected keyword {bad}{hint}; boids.options() lists the keywords")


def _python_words(message: str) -> str:
    """An engine line "wall-corner: ..." with the flag spelt as the keyword ("wall_corner: ...")."""
    head, sep, rest = message.partition(":")
    return _FLAG_NAMES.get(head, head) + sep + rest if sep else message

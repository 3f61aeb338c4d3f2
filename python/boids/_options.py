"""The keywords of Simulation(...) and set(...) that are boids-run flags:
their table, and each value as the flag's text by its kind."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Tuple

from ._convert import _integer, _number, _numbers
from ._library import _MAX_AGENTS, ffi


# The keywords of Simulation(...) and set(...) that are boids-run flags: the
# Python name (snake_case) -> (the flag without "--", the kind of value).
_OPTIONS: Dict[str, Tuple[str, str]] = {
    "world": ("world", "extents"),
    "origin": ("origin", "point"),
    "boundary": ("boundary", "name"),
    "margin": ("margin", "number"),
    "wall_corner": ("wall-corner", "name"),
    "behaviors": ("behaviors", "behaviors"),
    "radius": ("radius", "number"),
    "separation": ("separation", "number"),
    "fov": ("fov", "number"),
    "alignment_radius": ("alignment-radius", "number"),
    "cohesion_radius": ("cohesion-radius", "number"),
    "separation_fov": ("separation-fov", "number"),
    "alignment_fov": ("alignment-fov", "number"),
    "cohesion_fov": ("cohesion-fov", "number"),
    "neighbors_max": ("neighbors-max", "integer"),
    "eta": ("eta", "number"),
    "sigma": ("sigma", "number"),
    "turn": ("turn", "number"),
    "grid_fine": ("grid-fine", "grid_fine"),
    "maxspeed": ("maxspeed", "number"),
    "maxforce": ("maxforce", "number"),
    "maxspeed_range": ("maxspeed-range", "range"),
    "maxforce_range": ("maxforce-range", "range"),
    "rules": ("rules", "name"),
    "leader": ("leader", "agent"),
    "formation": ("formation", "name"),
    "interpose": ("interpose", "agents"),
    "combine": ("combine", "name"),
    "dt": ("dt", "number"),
    "bodies": ("bodies", "name"),
    "joints": ("joints", "integer"),
    "body_length": ("body-length", "number"),
    "path_outside": ("path-outside", "name"),
    "path_line": ("path-line", "name"),
    "distribution": ("distribution", "name"),
    "index": ("index", "name"),
    "update": ("update", "name"),
    "weights": ("weights", "weights"),
}
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


def _option_text(name: str, value: Any) -> str:
    """The boids-run value text of keyword `name` (TypeError for a value of
    the wrong type; the library checks the value itself)."""
    kind = _OPTIONS[name][1]
    if kind == "number":
        return repr(_number(name, value))
    if kind == "integer":
        return str(_integer(name, value, 0, 2**32 - 1, "an integer"))
    if kind == "name":
        if not isinstance(value, str):
            raise TypeError(f"{name}: {value!r} is a {type(value).__name__}, not a name (str)")
        return value
    if kind == "extents":
        return "x".join(_numbers(name, value, 2, 3))
    if kind == "point":
        return ",".join(_numbers(name, value, 2, 3))
    if kind == "range":
        return ",".join(_numbers(name, value, 2, 2))
    if kind == "grid_fine":
        return value if isinstance(value, str) else str(_integer(name, value, 1, 4, "1..4 or 'auto'"))
    if kind == "agent":
        return _agent_text(name, value)
    if kind == "agents":
        if isinstance(value, str) or not hasattr(value, "__len__") or len(value) != 2:
            raise TypeError(f"{name}: {value!r} is not a pair of agent ids (or 'target')")
        return ",".join(_agent_text(name, v) for v in value)
    if kind == "behaviors":
        if isinstance(value, str):
            return value
        try:
            names = list(value)
        except TypeError:
            raise TypeError(f"{name}: {value!r} is not a behaviour name or a list of them") from None
        if not all(isinstance(v, str) for v in names):
            raise TypeError(f"{name}: {value!r} is not a list of behaviour names (str)")
        return ",".join(names) if names else "none"
    # weights
    if not isinstance(value, Mapping):
        raise TypeError(f"{name}: {value!r} is not a dict of behaviour name -> weight")
    return ",".join(f"{k}={_number(f'weights[{k!r}]', v)!r}" for k, v in value.items())


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

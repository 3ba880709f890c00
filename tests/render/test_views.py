"""Every view in mem/render is called one way: `view(values..., *, as_json) -> str`."""

from __future__ import annotations

import inspect
from types import ModuleType

import pytest

from mem.render import action_views, memory_views, report, secret_report

HELPERS = {"truncate", "status_line", "one_line"}  # pure text helpers, not views


def _views(module: ModuleType) -> list[str]:
    return [
        name
        for name, value in vars(module).items()
        if inspect.isfunction(value)
        and value.__module__ == module.__name__
        and not name.startswith("_")
        and name not in HELPERS
    ]


@pytest.mark.parametrize(
    "module", [action_views, report, memory_views, secret_report], ids=lambda m: m.__name__
)
def test_every_view_takes_as_json_by_keyword(module: ModuleType) -> None:
    views = _views(module)
    assert views
    for name in views:
        parameter = inspect.signature(getattr(module, name)).parameters.get("as_json")
        assert parameter is not None, f"{module.__name__}.{name} has no as_json"
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, f"{module.__name__}.{name}"


def test_text_and_json_of_one_result_come_from_one_call() -> None:
    results = [{"id": "r1", "reason": None}, {"id": "r2", "reason": "superseded"}]
    assert action_views.outcomes(results, as_json=False) == "r1: accepted-current\nr2: superseded\n"
    assert action_views.outcomes(results, as_json=True).startswith('{\n  "count": 2,')
    assert report.index_path({"path": "/x"}, as_json=False) == "/x\n"
    assert report.index_path({"path": "/x"}, as_json=True) == '{\n  "path": "/x"\n}\n'
    stream, text = action_views.action_error("recall", "bad", as_json=True)
    assert (stream, text) == ("stdout", '{"error":"bad"}\n')

"""Every public function and class shows a runnable example, and the examples run."""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

MODULES = [
    "headway",
    "headway.api",
    "headway.config",
    "headway._source",
    "headway._toml_text",
    "headway.result",
    "headway.live",
    "headway.testing",
    "headway.errors",
    "headway.bench",
    "headway._bench_trace",
    "headway.validation",
    "headway.sweeps",
    "headway.sweeps.plot",
    "headway._overrides",
    "headway._write",
    "headway._progress",
    "headway._intervals",
    "headway._seeds",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def public_callables():
    import headway
    import headway.bench
    import headway.testing

    for mod in (headway, headway.testing, headway.bench):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) or (inspect.isclass(obj) and obj.__module__.startswith("headway.")):
                yield f"{mod.__name__}.{name}", obj


@pytest.mark.parametrize(
    "qualname, obj", list(public_callables()), ids=lambda x: x if isinstance(x, str) else ""
)
def test_public_api_has_an_example(qualname, obj):
    assert obj.__doc__, f"{qualname} has no docstring"
    if inspect.isfunction(obj):
        assert ">>>" in obj.__doc__, f"{qualname} has no example in its docstring"

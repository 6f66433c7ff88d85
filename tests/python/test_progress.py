from __future__ import annotations

import io

import pytest

from dcnsim.progress import Progress, _fmt_duration


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_quiet_when_not_a_tty_except_final_line() -> None:
    s = io.StringIO()
    with Progress(10, "sweep", unit="runs", stream=s) as p:
        for _ in range(10):
            p.advance()
        assert s.getvalue() == ""
    out = s.getvalue()
    assert out.count("\n") == 1 and "100.0%" in out and "10/10 runs" in out


def test_disabled_prints_nothing() -> None:
    s = FakeTTY()
    with Progress(3, stream=s, enabled=False) as p:
        p.update(3)
    assert s.getvalue() == ""


def test_tty_redraws_with_eta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    s = FakeTTY()
    p = Progress(4, "run", stream=s, min_interval_s=0.0)
    p.update(1)
    assert s.getvalue().startswith("\r") and "ETA" in s.getvalue() and "25.0%" in s.getvalue()
    p.close()
    assert s.getvalue().endswith("\n")


def test_ci_gets_only_a_final_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    s = FakeTTY()
    with Progress(2, stream=s, min_interval_s=0.0) as p:
        p.update(1)
        assert s.getvalue() == ""
    assert s.getvalue().count("\n") == 1


def test_fmt_duration() -> None:
    assert _fmt_duration(0) == "00:00"
    assert _fmt_duration(75) == "01:15"
    assert _fmt_duration(3725) == "1:02:05"
    assert _fmt_duration(float("nan")) == "--:--"


class _Handle:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def update(self, obj: object) -> None:
        self.log.append(obj.data)  # type: ignore[attr-defined]


def _fake_jupyter(monkeypatch: pytest.MonkeyPatch, with_display: bool = True) -> list[str]:
    """A fake IPython kernel in sys.modules: a ZMQInteractiveShell and IPython.display."""
    import sys
    import types

    shown: list[str] = []

    class ZMQInteractiveShell:
        pass

    ipy = types.ModuleType("IPython")
    ipy.get_ipython = lambda: ZMQInteractiveShell()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", ipy)
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    if with_display:
        disp = types.ModuleType("IPython.display")

        class Pretty:
            def __init__(self, data: str) -> None:
                self.data = data

        def display(obj: Pretty, display_id: bool = False) -> _Handle:
            assert display_id
            shown.append(obj.data)
            return _Handle(shown)

        disp.Pretty = Pretty  # type: ignore[attr-defined]
        disp.display = display  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "IPython.display", disp)
    else:
        monkeypatch.setitem(sys.modules, "IPython.display", None)
    monkeypatch.delenv("CI", raising=False)
    return shown


def test_notebook_updates_one_output_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = _fake_jupyter(monkeypatch)
    s = io.StringIO()  # a kernel's stderr is not a terminal
    with Progress(4, "sweep", unit="runs", stream=s, min_interval_s=0.0) as p:
        assert p.live and p.notebook
        for _ in range(4):
            p.advance()
            p._last_draw = 0.0  # no rate limit in the test
    assert s.getvalue() == ""  # nothing printed as stream output
    assert shown[0] == "" and "25.0%" in shown[1] and "ETA" in shown[1]
    assert "100.0%" in shown[-1] and "4/4 runs" in shown[-1] and "ETA" not in shown[-1]


def test_notebook_without_display_redraws_with_carriage_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fake_jupyter(monkeypatch, with_display=False)
    s = io.StringIO()
    with Progress(2, "run", stream=s, min_interval_s=0.0) as p:
        p.update(1)
    assert s.getvalue().startswith("\r") and s.getvalue().endswith("\n")


def test_plain_python_is_not_a_notebook(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from dcnsim.progress import in_notebook

    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    assert not in_notebook()

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

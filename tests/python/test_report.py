"""The report object: fields as attributes named as the JSON keys, its writers, and reading back."""
import json
import os

import pytest

import warmup


@pytest.fixture(scope="module")
def report():
    for _ in range(5):
        with warmup.region("report.site"):
            pass
    with warmup.d2h("report.copy", 4096):
        pass
    return warmup.snapshot()


def test_attributes_are_the_json_keys(report):
    doc = json.loads(report.to_json())
    assert sorted(dir(report)) == sorted(doc)
    s = report.find("report.site")
    assert s.calls == 5
    assert s.to_dict() == next(d for d in doc["sites"] if d["name"] == "report.site")
    assert s.host.first == s.to_dict()["host"]["first"]
    with pytest.raises(AttributeError, match="no field 'nonsense'"):
        report.nonsense
    with pytest.raises(AttributeError, match="read-only"):
        report.sites = []


def test_a_report_has_no_field_but_its_own(report):
    # Read-only all the way down: a report and its parts hold no dictionary of their own, so
    # nothing set past their __setattr__ can stand in for a JSON field.
    site = report.find("report.site")
    for part in (report, site, site.host):
        with pytest.raises(AttributeError):
            object.__setattr__(part, "calls", 0)
        with pytest.raises(TypeError):
            vars(part)
    assert site.calls == 5


def test_writers(report):
    assert report.to_json().startswith('{"schema":"warmup.report/')
    assert "report.site" in report.to_csv().splitlines()[1] or "report.site" in report.to_csv()
    assert json.loads(report.to_trace())["displayTimeUnit"] == "ns"
    svg = report.to_svg()
    assert svg.startswith('<?xml version="1.0"') and "<svg xmlns=" in svg and svg.rstrip().endswith("</svg>")
    assert "report.site" in report.table()
    assert report._repr_svg_() == report.to_svg()
    html = report._repr_html_()
    assert html.startswith("<pre>") and "\n<svg xmlns=" in html and "<?xml" not in html  # inline, no declaration
    assert repr(report).startswith("<warmup.Report: ")


def test_print(report, capsys):
    report.print()
    assert "report.site" in capsys.readouterr().out


def test_write_and_read_back(report, tmp_path):
    paths = [tmp_path / "r.json", tmp_path / "r.svg", tmp_path / "r.csv"]
    report.write(",".join(str(p) for p in paths))
    for p in paths:
        assert p.stat().st_size > 0
    back = warmup.read(str(paths[0]))
    assert back.to_json() == report.to_json()
    assert back.find("report.copy", "d2h").bytes.first == 4096


def test_write_refused_loses_nothing(report, tmp_path, capfd):
    missing = tmp_path / "no" / "such" / "dir" / "r.json"
    with pytest.raises(OSError, match="could not write"):
        report.write(str(missing))
    err = capfd.readouterr().err
    assert str(missing) in err and "report.site" in err  # the reason, then the table in its place


def test_write_of_no_destination_names_the_call(report, tmp_path, capfd):
    # The argument is refused before anything is written, in words naming the call and the
    # argument (no WARMUP_REPORT was set, nor blamed).
    for spec, why in (("", "'' names no destination"), (" , ", "' , ' names no destination"),
                      (str(tmp_path / "r.unknown"), "is neither stdout, stderr, a path ending in")):
        with pytest.raises(ValueError, match=r"^warmup: Report\.write: ") as e:
            report.write(spec)
        assert why in str(e.value)
    err = capfd.readouterr().err
    assert "WARMUP_REPORT" not in err and "report.site" not in err
    assert os.listdir(tmp_path) == []


def test_read_refuses_with_a_sentence(tmp_path):
    with pytest.raises(ValueError, match="No such file"):
        warmup.read(str(tmp_path / "absent.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "something else"}')
    with pytest.raises(ValueError, match="bad.json"):
        warmup.read(str(bad))
    with pytest.raises(ValueError, match="not a regular file"):
        warmup.read(str(tmp_path))


def test_snapshot_waits_only_when_asked():
    r = warmup.snapshot(wait=True)
    assert r.device_pending == 0
    assert os.getpid() == r.identity.pid


def test_records_are_equal_by_their_fields():
    a, b = warmup.Record({"name": "x", "calls": 2}), warmup.Record({"name": "x", "calls": 2})
    assert a == b and not (a != b)
    assert a != warmup.Record({"name": "x", "calls": 3}) and a != {"name": "x", "calls": 2}

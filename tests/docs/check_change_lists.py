#!/usr/bin/env python3
"""docs/design.md's "Where a change lands" says, for each kind of change, the headers it touches
(its "Files:" line). This makes each such change in a copy of the headers, in exactly those
files (each edit at a text found once in include/), and proves the change is whole: one program
(change_lists.cpp), compiled once against the copy, uses the new operation kind, report format,
statistic, cause and setting (the library's and the NVTX tool's), and each reaches every output it should. A list that names a file
the change does not need, or misses one it does, fails here, as does a new place a change must
also be made (the program then does not compile, or an output misses the new thing).
A figure of merge and compare is planted and run by report_tool.figure_row; here its list is
checked against that plant's one file.

usage: check_change_lists.py CXX CUDA_LIBRARY_DIR CUDA_INCLUDE_DIR...
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = os.path.join(ROOT, "include", "warmup")

# Each change: (the bold title of its item in docs/design.md, [(text found once in include/,
# the text that replaces it)]). A replacement keeps the text it replaces, unless it is a count.
CHANGES = [
    ("An operation kind", [
        ("  region    ///< any region of code: `op::region`",
         "  prefetch,  ///< planted\n  region    ///< any region of code: `op::region`"),
        ("inline constexpr std::size_t op_kind_count = 7;", "inline constexpr std::size_t op_kind_count = 8;"),
        ('    {op_kind::region, "region", 0, 0xFF909399u},',
         '    {op_kind::prefetch, "prefetch", 0, 0xFF123456u},\n    {op_kind::region, "region", 0, 0xFF909399u},'),
        ("/// @brief Any region of code, such as a whole model `forward`.",
         "struct prefetch {\n  static constexpr op_kind kind = op_kind::prefetch;\n};\n"
         "/// @brief Any region of code, such as a whole model `forward`."),
        ("using context_scope = scope<op::context>;",
         "using context_scope = scope<op::context>;\nusing prefetch_scope = scope<op::prefetch>;"),
    ]),
    ("A report format", [
        ("  trace,  ///< a Chrome trace timeline (`to_trace`), `.trace.json`",
         "  trace,  ///< a Chrome trace timeline (`to_trace`), `.trace.json`\n  planted,"),
        ('    {report_format::svg, "svg", ".svg",',
         '    {report_format::planted, "planted", ".planted",\n'
         '     [](const report& r) { return "planted format, " + std::to_string(r.sites.size()) + " sites\\n"; },\n'
         "     detail::kinds_of(document_kind::report)},\n"
         '    {report_format::svg, "svg", ".svg",'),
    ]),
    ("A statistic", [
        ("  std::chrono::nanoseconds cold_excess{};  ///< their total excess over the steady p50",
         "  std::chrono::nanoseconds cold_excess{};  ///< their total excess over the steady p50\n"
         "  std::uint64_t planted_statistic = 0;"),
        ("WARMUP_DETAIL_FIELD(cold_excess), WARMUP_DETAIL_FIELD(steady),",
         "WARMUP_DETAIL_FIELD(cold_excess), WARMUP_DETAIL_FIELD(planted_statistic), WARMUP_DETAIL_FIELD(steady),"),
        ("  t.total = ns(double(all));", "  t.total = ns(double(all));\n  t.planted_statistic = t.calls * 1000 + 7;"),
    ]),
    ("A cause", [
        ("  waiting,           ///< off the CPU", "  planted_cause,\n  waiting,           ///< off the CPU"),
        ("    case cause::waiting: return true;", "    case cause::planted_cause:\n    case cause::waiting: return true;"),
        ('    {cause::waiting, "waiting",',
         '    {cause::planted_cause, "planted_cause", "planted words", "#123456", cause_evidence::records},\n'
         '    {cause::waiting, "waiting",'),
        ("    {cause::sync_wait, \"the GPU's own work,",
         '    {cause::planted_cause, "a planted cause"},\n    {cause::sync_wait, "the GPU\'s own work,'),
    ]),
    ("A setting", [
        ("nvtx_device, nvtx_status,", "nvtx_device, nvtx_status, planted,"),
        ('    {setting::nvtx_status, "WARMUP_NVTX_STATUS", value_kind::text, 0, 0, 0, "", 0, "", read_by::nvtx_tool, "", nullptr},',
         '    {setting::nvtx_status, "WARMUP_NVTX_STATUS", value_kind::text, 0, 0, 0, "", 0, "", read_by::nvtx_tool, "", nullptr},\n'
         '    {setting::planted, "WARMUP_PLANTED", value_kind::number, 1, 100, 0, "units", 50, "the planted setting",\n'
         '     read_by::library, "set_planted_setting", [](std::int64_t v) { set_planted_setting(static_cast<std::uint32_t>(v)); }},'),
        ("std::uint32_t timeline_calls() noexcept;",
         "std::uint32_t timeline_calls() noexcept;\nvoid set_planted_setting(std::uint32_t v) noexcept;\n"
         "std::uint32_t planted_setting() noexcept;"),
        ("WARMUP_DETAIL_RUNTIME std::uint32_t timeline_calls() noexcept {",
         "namespace detail {\ninline std::atomic<std::uint32_t>& planted_value() noexcept {\n"
         "  static std::atomic<std::uint32_t> v{50};\n  return v;\n}\n}  // namespace detail\n"
         "WARMUP_DETAIL_RUNTIME void set_planted_setting(std::uint32_t v) noexcept {\n"
         "  constexpr const detail::setting_row& r = detail::row_of<detail::setting::planted>();\n"
         "  if (v < r.lo || v > r.hi) detail::out_of_range(\"set_planted_setting(\" + std::to_string(v) + \")\", r);\n"
         "  detail::planted_value().store(std::clamp(v, std::uint32_t(r.lo), std::uint32_t(r.hi)));\n}\n"
         "WARMUP_DETAIL_RUNTIME std::uint32_t planted_setting() noexcept { return detail::planted_value().load(); }\n"
         "WARMUP_DETAIL_RUNTIME std::uint32_t timeline_calls() noexcept {"),
    ]),
    ("A setting of the NVTX tool", [
        ("  nvtx_domains, nvtx_varying,", "  planted_tool, nvtx_domains, nvtx_varying,"),
        ('    {setting::nvtx_domains, "WARMUP_NVTX_DOMAINS",',
         '    {setting::planted_tool, "WARMUP_PLANTED_TOOL", value_kind::on_off, 0, 1, 1, "", 0, "the planted tool setting",\n'
         '     read_by::nvtx_tool, "", nullptr},\n'
         '    {setting::nvtx_domains, "WARMUP_NVTX_DOMAINS",'),
    ]),
    # Planted and run by tests/report_tool/check_figure_row.py; its one place, counted here.
    ("A figure of merge and compare", [("  X(warmup_excess,", None)]),
]


def headers():
    for folder, _, names in os.walk(INCLUDE):
        for n in names:
            if n.endswith(".hpp"):
                path = os.path.join(folder, n)
                yield os.path.relpath(path, INCLUDE), open(path, encoding="utf-8").read()


def listed_files(design):
    """The "Files:" line of each item of "Where a change lands", by the item's bold title."""
    section = design.split("## Where a change lands", 1)[1].split("\n## ", 1)[0]
    out = {}
    for m in re.finditer(r"^\*\*(.+?)\*\*(.*?)(?=^\*\*|\Z)", section, re.M | re.S):
        files = re.search(r"^Files: (.+?)\.?$", m.group(2), re.M)
        if files:
            out[m.group(1)] = {f.strip() for f in re.findall(r"`([^`]+)`", files.group(1))}
    return out


def main():
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    lists = listed_files(open(os.path.join(ROOT, "docs", "design.md"), encoding="utf-8").read())
    texts = dict(headers())
    edits = {}  # header -> [(old, new)]
    for title, changes in CHANGES:
        touched = set()
        for old, new in changes:
            where = [h for h, t in texts.items() if t.count(old) == 1]
            many = [h for h, t in texts.items() if t.count(old) > 1]
            if len(where) != 1 or many:
                sys.exit(f"check_change_lists.py: {title}: {old!r} is found {len(where)} times once and "
                         f"{len(many)} times more than once in include/warmup: update this plant to the code")
            touched.add(where[0])
            if new is not None:
                edits.setdefault(where[0], []).append((old, new))
        listed = lists.get(title)
        if listed is None:
            check(False, f"docs/design.md's item {title!r} has a Files: line")
            continue
        check(listed == touched, f"{title}: docs/design.md lists {sorted(listed)}; the change touches {sorted(touched)}")

    work = tempfile.mkdtemp(prefix="warmup-change-lists-")
    try:
        copy = os.path.join(work, "include")
        shutil.copytree(os.path.join(ROOT, "include"), copy)
        for header, pairs in edits.items():
            path = os.path.join(copy, "warmup", header)
            text = open(path, encoding="utf-8").read()
            for old, new in pairs:
                text = text.replace(old, new)
            open(path, "w", encoding="utf-8").write(text)
        cxx, cuda_lib, cuda_includes = sys.argv[1], sys.argv[2], sys.argv[3:]
        program = os.path.join(work, "change_lists")
        built = subprocess.run([cxx, "-std=c++17", "-O0", "-I", copy] + [a for d in cuda_includes for a in ("-isystem", d)] +
                               [os.path.join(ROOT, "tests", "docs", "change_lists.cpp"), "-o", program,
                                "-L", cuda_lib, "-Wl,-rpath," + cuda_lib, "-lcudart", "-ldl", "-pthread"],
                               capture_output=True, text=True)
        if built.returncode != 0:
            sys.exit("check_change_lists.py: with each change made in the files docs/design.md lists, the "
                     "program does not compile: a change needs another place, or a plant is out of date:\n"
                     + built.stderr[-4000:])
        out = os.path.join(work, "out")
        os.mkdir(out)
        env = dict(os.environ, WARMUP_PLANTED="7", WARMUP_PLANTED_TOOL="maybe")
        for v in ("WARMUP_REPORT", "WARMUP_ENABLE", "WARMUP_ATTRIBUTION", "WARMUP_CPU_SAMPLING"):
            env.pop(v, None)
        ran = subprocess.run([program, out], capture_output=True, text=True, timeout=120, env=env)
        check(ran.returncode == 0, f"the program runs and writes report.planted (exit {ran.returncode}: {ran.stderr[-300:]})")

        def read(name):
            p = os.path.join(out, name)
            return open(p, encoding="utf-8").read() if os.path.exists(p) else ""
        j, csv, svg, trace, table = (read(n) for n in ("report.json", "report.csv", "report.svg",
                                                       "report.trace.json", "report.txt"))
        check('"prefetch"' in j and "prefetch" in table, "the kind: its name in the JSON and the table")
        check(read("report.planted").startswith("planted format, "), "the format: write_report picks it by its extension")
        check(re.search(r'"planted_statistic":\s*3007', j) is not None, "the statistic: in the JSON, as computed")
        check("host.planted_statistic" in csv.split("\n", 1)[0], "  and a column of the CSV")
        check('"planted_cause"' in j, "the cause: its name in the JSON")
        check("planted words" in table, "  its words in the table")
        check("#123456" in svg, "  its colour in the SVG")
        check("planted words" in trace or "planted_cause" in trace, "  its stretch in the trace")
        check(read("setting.txt").strip() == "7", "the setting: read from its variable before main")
        check(read("setting_after.txt").strip() == "1" and "set_planted_setting(0)" in ran.stderr,
              "  its range kept by its function: the nearest value, with a message")
        check("unknown variable WARMUP_PLANTED" not in ran.stderr, "  both variables known to the library, none named unknown")
        check(read("tool_setting.txt") == "-1\nWARMUP_PLANTED_TOOL='maybe' is not one of 1, on, true, yes, 0, off, false, no "
              "(in any case); the planted tool setting stays off\n",
              "the NVTX tool's setting: read by its row as the tool reads its own, a value refused in words")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(f"{len(failures)} of the change lists' checks failed" if failures else 0)


if __name__ == "__main__":
    main()

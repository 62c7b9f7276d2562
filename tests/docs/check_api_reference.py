#!/usr/bin/env python3
"""The API reference (tools/api-docs, Doxygen) builds without a warning, so every public type,
function, macro and member has its doc comment; it lists the public API only, nothing of
`detail`; and the check can fail.

usage: check_api_reference.py reference OUT_DIR  (builds into OUT_DIR, checks what it lists)
       check_api_reference.py catches OUT_DIR    (strips two doc comments from a copy of the
                                                  headers: the build must fail naming both)
Skipped (77) where doxygen is not installed.
"""
import glob
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import warmup_check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What the reference must list: the names a program uses first, as it writes them.
COMPOUNDS = ["warmup", "warmup::scope", "warmup::report", "warmup::site_report", "warmup::steady_state",
             "warmup::op", "warmup::merged_report", "warmup::comparison", "warmup::pinned_buffer",
             "warmup::cause_span"]
MEMBERS = ["warmup::snapshot", "warmup::region_scope", "warmup::launch_scope", "warmup::print",
           "warmup::to_json", "warmup::timed", "warmup::expect_cold", "warmup::warmup_until_steady",
           "warmup::cause", "warmup::describe",
           "WARMUP_SCOPE", "WARMUP_FUNC_SCOPE", "WARMUP_VERSION_STRING"]


def build(root, out):
    """tools/api-docs of the tree at `root` into `out`: the process, its output read."""
    if shutil.which("doxygen") is None:
        warmup_check.skip("doxygen is not installed (Debian: apt-get install doxygen; tools/test installs it)")
    return warmup_check.run([os.path.join(root, "tools", "api-docs"), out], timeout=300)


def text(node):
    return "".join(node.itertext()).strip() if node is not None else ""


def reference(out):
    proc = build(ROOT, out)
    if proc.returncode != 0:
        warmup_check.fail(f"tools/api-docs failed (a public name without its doc comment, or a comment "
                          f"Doxygen cannot read):\n{proc.stderr}{proc.stdout}")
    xml = os.path.join(out, "xml")
    index = ET.parse(os.path.join(xml, "index.xml")).getroot()
    # Keyed by kind too: the folder include/warmup is a compound named "warmup", as the namespace is.
    compounds = {(c.get("kind"), c.findtext("name")): c for c in index.findall("compound")}
    members = {m.findtext("name") for c in compounds.values() for m in c.findall("member")}
    members |= {f"{name}::{m.findtext('name')}" for (kind, name), c in compounds.items()
                if kind in ("namespace", "class", "struct") for m in c.findall("member")}
    names = {name for kind, name in compounds}

    missing = [n for n in COMPOUNDS if n not in names] + [n for n in MEMBERS if n not in members]
    assert not missing, f"the reference lacks {missing}"
    # Names as programs write them: no version namespace (v6, v6_off), no cuda_warmup::.
    odd = sorted(n for n in names if re.search(r"\bv\d+|cuda_warmup", n))
    assert not odd, f"the reference names the library's inner namespaces: {odd}"

    # Public API only: no page, compound or member of `detail`, no WARMUP_DETAIL_ macro.
    leaks = sorted({n for n in names | members if "detail" in n.lower()})
    assert not leaks, f"the reference lists detail: {leaks}"
    pages = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "html", "*")) if "detail" in os.path.basename(p))
    assert not pages, f"the reference has pages for detail: {pages}"
    for page in glob.glob(os.path.join(out, "html", "*.html")):
        links = set(re.findall(r'href="([^"#]*detail[^"]*)"', open(page, encoding="utf-8").read()))
        assert not links, f"{os.path.basename(page)} links to {sorted(links)}"

    # Doxygen 1.9.4 does not warn about an enumerator without a comment (WARN_IF_UNDOC_ENUM_VAL
    # came later), nor about a type without an example: both checked here.
    bare, no_example = [], []
    for path in glob.glob(os.path.join(xml, "*.xml")):
        for compound in ET.parse(path).getroot().iter("compounddef"):
            name = compound.findtext("compoundname")
            if compound.get("kind") in ("class", "struct") and compound.find("detaileddescription//programlisting") is None:
                no_example.append(name)
            for enum in compound.iter("memberdef"):
                if enum.get("kind") == "enum" and enum.get("prot") == "public":
                    bare += [f"{enum.findtext('qualifiedname')}::{v.findtext('name')}" for v in enum.findall("enumvalue")
                             if not text(v.find("briefdescription")) and not text(v.find("detaileddescription"))]
    assert not bare, f"enumerators without a doc comment: {sorted(set(bare))}"
    assert not no_example, f"public types without an example (\\code) in their doc comment: {sorted(no_example)}"
    types = sum(1 for kind, name in compounds if kind in ("class", "struct"))
    return (f"{os.path.join(out, 'html', 'index.html')}: no warning; {types} types, {len(members)} member names, "
            f"nothing of detail")


def strip_comment_above(path, start_of_line):
    """Removes the /// lines right above the one line of `path` that starts with `start_of_line`
    and has such a comment."""
    lines = open(path, encoding="utf-8").read().split("\n")
    (at,) = [i for i, l in enumerate(lines) if l.startswith(start_of_line) and i > 0 and lines[i - 1].lstrip().startswith("///")]
    start = at
    while start > 0 and lines[start - 1].lstrip().startswith("///"):
        start -= 1
    assert start < at, f"{path}: no /// comment above {line!r}"
    del lines[start:at]
    open(path, "w", encoding="utf-8").write("\n".join(lines))


def catches(out):
    """The same build on a copy of the tree with the doc comments of one public type and one
    public macro removed must fail, naming both."""
    with tempfile.TemporaryDirectory() as tree:
        for part in ("include/warmup", "docs/api"):
            shutil.copytree(os.path.join(ROOT, part), os.path.join(tree, part))
        os.mkdir(os.path.join(tree, "tools"))
        shutil.copy2(os.path.join(ROOT, "tools", "api-docs"), os.path.join(tree, "tools"))
        include = os.path.join(tree, "include", "warmup")
        strip_comment_above(os.path.join(include, "report.hpp"), "struct steady_state {")
        strip_comment_above(os.path.join(include, "scope.hpp"), "#define WARMUP_SCOPE(")
        proc = build(tree, out)
    said = proc.stdout + proc.stderr
    assert proc.returncode != 0, f"tools/api-docs passed with two doc comments removed:\n{said}"
    for name in ("steady_state", "WARMUP_SCOPE"):
        assert re.search(r"warning:.*\b" + name + r"\b", said), f"tools/api-docs failed without naming {name}:\n{said}"
    return "without the doc comments of warmup::steady_state and WARMUP_SCOPE, tools/api-docs fails naming both"


if __name__ == "__main__":
    what, out = sys.argv[1], sys.argv[2]
    try:
        print(globals()[what](out))
    except AssertionError as e:
        warmup_check.fail(str(e))

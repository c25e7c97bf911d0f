#!/usr/bin/env python3
"""check-docs.py - keep gShare's documentation honest.

Checks, from the repository root:
  (a) README.md is shorter than 6,000 characters;
  (b) every relative Markdown link and #anchor in README.md, docs/**/*.md and the module, chart, deploy and bench
      READMEs resolves: the file or directory exists inside the repository, and an anchor names a heading of the
      target Markdown file (GitHub's slug rules: lower case, punctuation dropped, spaces to '-', '-1', '-2', ...
      for repeats) or an explicit <a name|id="...">;
  (c) each Maven module's README has a "## May depend on" section naming, as `gshare-<module>`, exactly the
      gShare modules its pom.xml depends on: those named before the word "Tests" at compile (or runtime/provided)
      scope, those named after it at test scope;
  (d) every test class these files name in backticks (`SomethingTest`, `SomethingIT`) exists as
      <module>/src/test/java/**/<Name>.java.

Usage: hack/check-docs.py [--root DIR]      (default root: the repository holding this script)

Exit status: 0 when every check passes; 1 with one line per problem on stderr; 2 on a usage error.
"""

import glob
import os
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

README_LIMIT = 6000
POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
TEST_CLASS = re.compile(r"^[A-Z][A-Za-z0-9]*(Test|IT)$")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\s*\)")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)


def usage(message=None):
    if message:
        print(f"check-docs: {message}", file=sys.stderr)
    print("usage: hack/check-docs.py [--root DIR]", file=sys.stderr)
    sys.exit(2)


def parse_args(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if arg == "--root":
            if not args:
                usage("--root needs a directory")
            root = args.pop(0)
        elif arg.startswith("--root="):
            root = arg.split("=", 1)[1]
        else:
            usage(f"unknown argument '{arg}'")
    if not os.path.isdir(root):
        usage(f"no such directory: {root}")
    return os.path.abspath(root)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def prose_lines(text):
    """The lines outside fenced code blocks, with their 1-based numbers."""
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield number, line


def without_code_spans(line):
    return re.sub(r"(`+)(.+?)\1", "", line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "")
    text = text.lower()
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in (" ", "-") or category[0] in ("L", "M", "N") or category == "Pc":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


_anchor_cache = {}


def anchors(path):
    if path not in _anchor_cache:
        found, seen = set(), {}
        text = read(path)
        for _, line in prose_lines(text):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                found.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
            for name in HTML_ANCHOR.findall(line):
                found.add(name)
        _anchor_cache[path] = found
    return _anchor_cache[path]


def documents(root):
    """README.md, docs/**/*.md and the READMEs of modules, charts, deploy/ and bench/, relative to root."""
    patterns = ["README.md", "docs/**/*.md", "*/README.md", "charts/*/README.md", "deploy/**/README.md",
                "bench/README.md"]
    found = set()
    for pattern in patterns:
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            rel = os.path.relpath(path, root)
            if not rel.startswith((".", "node_modules")) and "/node_modules/" not in rel and "/target/" not in rel:
                found.add(rel)
    return sorted(found)


def check_readme_length(root, problems):
    path = os.path.join(root, "README.md")
    if not os.path.isfile(path):
        problems.append("README.md: missing")
        return
    length = len(read(path))
    if length >= README_LIMIT:
        problems.append(f"README.md: {length} characters, the limit is under {README_LIMIT}: move detail into docs/")


def check_links(root, docs, problems):
    for rel in docs:
        path = os.path.join(root, rel)
        for number, line in prose_lines(read(path)):
            for raw in LINK.findall(without_code_spans(line)):
                target = raw.strip("<>")
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                    continue  # http:, https:, mailto: ...
                file_part, _, anchor = target.partition("#")
                if file_part:
                    resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                    if os.path.relpath(resolved, root).startswith(".."):
                        problems.append(f"{rel}:{number}: link '{target}' leaves the repository")
                        continue
                    if not os.path.exists(resolved):
                        problems.append(f"{rel}:{number}: link '{target}': no such file or directory")
                        continue
                else:
                    resolved = path
                if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                    if anchor not in anchors(resolved):
                        where = os.path.relpath(resolved, root)
                        problems.append(f"{rel}:{number}: link '{target}': {where} has no heading with anchor "
                                        f"'#{anchor}'")


def modules(root):
    pom = ET.parse(os.path.join(root, "pom.xml")).getroot()
    return [m.text.strip() for m in pom.findall("m:modules/m:module", POM_NS)]


def pom_dependencies(root, module):
    """{'compile': {...}, 'test': {...}}: the gshare-* artifactIds the module's pom.xml depends on directly."""
    deps = {"compile": set(), "test": set()}
    pom = ET.parse(os.path.join(root, module, "pom.xml")).getroot()
    for dep in pom.findall("m:dependencies/m:dependency", POM_NS):
        artifact = dep.findtext("m:artifactId", default="", namespaces=POM_NS).strip()
        if not artifact.startswith("gshare-"):
            continue
        scope = dep.findtext("m:scope", default="compile", namespaces=POM_NS).strip()
        deps["test" if scope == "test" else "compile"].add(artifact)
    return deps


def may_depend_section(text):
    """The text under the README's '## May depend on' heading, up to the next heading; None without one."""
    lines, inside, found = [], False, False
    for _, line in prose_lines(text):
        m = HEADING.match(line)
        if m:
            if inside:
                break
            inside = m.group(2).strip().lower() == "may depend on"
            found = found or inside
            continue
        if inside:
            lines.append(line)
    return "\n".join(lines) if found else None


def check_may_depend(root, problems):
    for module in modules(root):
        readme = os.path.join(module, "README.md")
        if not os.path.isfile(os.path.join(root, readme)):
            problems.append(f"{readme}: missing (every module says what it may depend on)")
            continue
        section = may_depend_section(read(os.path.join(root, readme)))
        if section is None:
            problems.append(f"{readme}: no '## May depend on' section")
            continue
        split = re.search(r"\bTests\b", section)
        compile_part, test_part = (section[:split.start()], section[split.start():]) if split else (section, "")
        named = {
            "compile": set(re.findall(r"`(gshare-[a-z0-9-]+)`", compile_part)),
            "test": set(re.findall(r"`(gshare-[a-z0-9-]+)`", test_part)),
        }
        actual = pom_dependencies(root, module)
        for scope in ("compile", "test"):
            for name in sorted(actual[scope] - named[scope]):
                problems.append(f"{readme}: 'May depend on' does not name `{name}`, a {scope}-scope dependency in "
                                f"{module}/pom.xml" + (" (name test-scope ones after \"Tests\")"
                                                        if scope == "test" else ""))
            for name in sorted(named[scope] - actual[scope]):
                problems.append(f"{readme}: 'May depend on' names `{name}` at {scope} scope, but "
                                f"{module}/pom.xml has no such {scope}-scope dependency")


def test_classes(root):
    names = set()
    for path in glob.glob(os.path.join(root, "*", "src", "test", "java", "**", "*.java"), recursive=True):
        names.add(os.path.basename(path)[:-5])
    return names


def check_test_names(root, docs, problems):
    existing = test_classes(root)
    for rel in docs:
        for number, line in prose_lines(read(os.path.join(root, rel))):
            for span in re.findall(r"`([^`]+)`", line):
                name = span.strip()
                if TEST_CLASS.match(name) and name not in existing:
                    problems.append(f"{rel}:{number}: names test class `{name}`, but no {name}.java is under "
                                    f"*/src/test/java")


def main(argv):
    root = parse_args(argv)
    docs = documents(root)
    problems = []
    check_readme_length(root, problems)
    check_links(root, docs, problems)
    check_may_depend(root, problems)
    check_test_names(root, docs, problems)
    for problem in problems:
        print(f"check-docs: {problem}", file=sys.stderr)
    if problems:
        print(f"check-docs: {len(problems)} problem(s) in {len(docs)} files", file=sys.stderr)
        return 1
    print(f"check-docs: {len(docs)} files: README length, links and anchors, 'May depend on', test class names: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

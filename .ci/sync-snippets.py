#!/usr/bin/env python3
"""Copies every quoted source into the docs: each block after a <!-- snippet: path#region -->
marker becomes the file (or the region between // snippet:region and // end:region, indentation
removed), exactly as DocSnippetsTest checks it. Usage: python3 .ci/sync-snippets.py REPO_DIR"""
import re, pathlib, sys
REPO = pathlib.Path(sys.argv[1]).resolve()
SNIP = re.compile(r"(<!-- snippet: ([^#\s]+)(?:#(\S+))? -->\s*```\w*\n)(.*?)(```)", re.S)
def region(src, name):
    lines = src.read_text().split("\n")
    start = end = -1
    for i, l in enumerate(lines):
        t = l.strip()
        if t == "// snippet:" + name: start = i + 1
        elif t == "// end:" + name: end = i
    assert start > 0 and end > start, (src, name)
    body = lines[start:end]
    ind = min(len(l) - len(l.lstrip()) for l in body if l.strip())
    return "".join(("" if not l.strip() else l[ind:]) + "\n" for l in body)
docs = [REPO / "README.md"] + sorted(p for p in (REPO / "docs").rglob("*.md")) + sorted(p / "README.md" for p in REPO.iterdir() if (p / "README.md").is_file())
changed = 0
for d in dict.fromkeys(docs):
    text = d.read_text()
    def sub(m):
        src = REPO / m.group(2)
        exp = src.read_text() if m.group(3) is None else region(src, m.group(3))
        return m.group(1) + exp + m.group(5)
    new = SNIP.sub(sub, text)
    if new != text:
        d.write_text(new); changed += 1; print("updated", d.relative_to(REPO))
print(changed, "docs updated")

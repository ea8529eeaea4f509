#!/usr/bin/env python3
"""Checks of what people read, on the golden reports (tests/report/golden).

    check_presentation.py GOLDEN_DIR

Markdown: every table has at most 8 columns and no table line is longer
than 160 characters; every section with rows has its id next to its
heading (an anchor), so that the ids findings cite resolve; sections
without data are listed once, under "Not available", at the end; signed
deltas; a diff with a gate has its table (check, before, after, measured,
passed, note).
HTML: self-contained (no URL outside the file: no http(s)://, no
protocol-relative //host, no src=, no @import or url(), no <link>);
findings or verdict first, then the contents; one collapsible <section>
per section with rows, in the JSON's order, with as many body rows as the
JSON; name cells carry the full name on hover; numeric cells are
right-aligned and carry the exact value; dark mode and print styles; a
diff with a gate shows it.
Exits 1 with a message per problem.
"""
import html.parser
import json
import os
import re
import sys

MAX_COLUMNS, MAX_LINE = 8, 160
problems = []


def fail(msg):
    problems.append(msg)


def check_markdown(path, report):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    for n, line in enumerate(lines, 1):
        if not line.startswith("|"):
            continue
        cells = re.split(r"(?<!\\)\|", line)[1:-1]
        if len(cells) > MAX_COLUMNS:
            fail(f"{path}:{n}: {len(cells)} columns (at most {MAX_COLUMNS})")
        if len(line) > MAX_LINE:
            fail(f"{path}:{n}: table line of {len(line)} characters (at most {MAX_LINE})")
    skipped = [s for s in report["sections"] if s["note"]]
    for s in report["sections"]:
        anchor = f'<a id="{s["id"]}"></a>'
        if anchor not in text:
            fail(f"{path}: no anchor for section {s['id']}")
        if not s["note"] and f"· `{s['id']}`" not in text:
            fail(f"{path}: heading of {s['id']} does not show its id")
    if skipped:
        if "## Not available" not in text:
            fail(f"{path}: sections without data but no 'Not available' list")
            return
        tail = text[text.index("## Not available"):]
        if "\n## " in tail[3:] or "\n### " in tail:
            fail(f"{path}: 'Not available' is not the last part")
        for s in skipped:
            if f"(`{s['id']}`)" not in tail:
                fail(f"{path}: skipped section {s['id']} not under 'Not available'")
    if "gate" in report and "| check | before | after | measured | passed | note |" not in text:
        fail(f"{path}: the gate table lacks its columns (passed, before and after in units)")
    if "SKIPPED" in text:
        fail(f"{path}: a section is still marked SKIPPED in place")
    # Deltas carry a sign: a delta column's positive values start with '+'.
    for m in re.finditer(r"^\| .*\bdelta\b.*\|$", text, re.M):
        header = [c.strip() for c in m.group(0).strip("|").split("|")]
        idx = [i for i, h in enumerate(header) if h.startswith("delta")]
        start = text.index(m.group(0)) + len(m.group(0)) + 1
        for row in text[start:].split("\n")[1:]:
            if not row.startswith("|"):
                break
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
            for i in idx:
                v = cells[i] if i < len(cells) else ""
                if re.match(r"^[0-9]", v) and float(v.split()[0]) != 0:
                    fail(f"{path}: unsigned delta {v!r} in {row[:60]}")


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.order = []          # ids of top-level blocks in order
        self.sections = []       # section ids
        self.rows = {}           # section id -> body rows
        self.current = None
        self.in_tbody = False
        self.tags = []
        self.name_cells = self.name_titled = self.num_cells = self.num_valued = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag in ("section", "nav"):
            self.order.append(a.get("id", tag))
        if tag == "section" and "id" in a and a["id"] not in ("findings", "verdict", "not-available"):
            self.sections.append(a["id"])
            self.current = a["id"]
            self.rows[self.current] = 0
        if tag == "tbody":
            self.in_tbody = True
        if tag == "tr" and self.in_tbody and self.current:
            self.rows[self.current] += 1
        if tag == "td":
            cls = a.get("class", "")
            if "name" in cls.split():
                self.name_cells += 1
                self.name_titled += "title" in a
            if "num" in cls.split():
                self.num_cells += 1
                self.num_valued += "data-v" in a

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_tbody = False
        if tag == "section":
            self.current = None


def check_html(path, report):
    text = open(path, encoding="utf-8").read()
    for pattern, what in [(r"https?://", "a URL"), (r"""["'(\s]//[a-zA-Z]""", "a protocol-relative URL"),
                          (r"\bsrc\s*=", "a src attribute"), (r"@import", "@import"),
                          (r"url\(", "url()"), (r"<link\b", "a <link>"),
                          (r"""href\s*=\s*["'](?!#)""", "a link leaving the page")]:
        if re.search(pattern, text):
            fail(f"{path}: references {what} (the file must be self-contained)")
    for needle in ["prefers-color-scheme:dark", "@media print", "<script>", "sortable",
                   "<meta charset=\"utf-8\">"]:
        if needle not in text:
            fail(f"{path}: missing {needle!r}")
    page = Page()
    page.feed(text)
    first = "verdict" if "verdict" in report else "findings"
    has_summary = bool(report.get(first)) or f'id="{first}"' in text
    if has_summary and page.order[:2] != [first, "nav"]:
        fail(f"{path}: {first} then contents must come first, got {page.order[:3]}")
    with_rows = [s for s in report["sections"] if not s["note"]]
    if page.sections != [s["id"] for s in with_rows]:
        fail(f"{path}: sections {page.sections} differ from the JSON's {[s['id'] for s in with_rows]}")
    for s in with_rows:
        if page.rows.get(s["id"]) != len(s["rows"]):
            fail(f"{path}: {s['id']}: {page.rows.get(s['id'])} table rows, JSON has {len(s['rows'])}")
        if f'<section id="{s["id"]}"><details open>' not in text:
            fail(f"{path}: {s['id']} is not collapsible")
    for s in report["sections"]:
        if s["note"] and f'<span id="{s["id"]}">' not in text:
            fail(f"{path}: {s['id']} (no data) not under Not available")
    if "gate" in report and '<h3 id="gate">Gate</h3>' not in text:
        fail(f"{path}: the JSON has a gate, the HTML shows none")
    if page.name_cells != page.name_titled:
        fail(f"{path}: name cells without the full name on hover")
    if page.num_cells != page.num_valued:
        fail(f"{path}: numeric cells without their exact value")


def main():
    golden = sys.argv[1]
    reports = sorted(f[:-5] for f in os.listdir(golden) if f.endswith(".json"))
    if not reports:
        fail(f"{golden}: no golden reports")
    for name in reports:
        report = json.load(open(os.path.join(golden, name + ".json"), encoding="utf-8"))
        for ext, check in ((".md", check_markdown), (".html", check_html)):
            path = os.path.join(golden, name + ext)
            if os.path.exists(path):
                check(path, report)
            else:
                fail(f"{path}: missing")
    for p in problems:
        print("FAIL:", p)
    print(f"{len(reports)} golden reports checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

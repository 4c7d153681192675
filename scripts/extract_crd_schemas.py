#!/usr/bin/env python3
"""Extract the OpenAPI v3 schemas of the trainer CRDs into api/crds/ (compact JSON,
descriptions stripped) and regenerate api/crd_schemas.cpp, which embeds them.

Usage: scripts/extract_crd_schemas.py [CRD_DIR]   (default: manifests/crds, the install manifests)
       scripts/extract_crd_schemas.py --check [CRD_DIR]  (compare the parser with PyYAML)

Python 3 standard library only: the controller-gen YAML subset (block maps and sequences,
plain / quoted / multi-line scalars, literal blocks, empty flow collections) is parsed here.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CRDS = [
    ("trainjobs", "trainer.kubeflow.org_trainjobs.yaml"),
    ("trainingruntimes", "trainer.kubeflow.org_trainingruntimes.yaml"),
    ("clustertrainingruntimes", "trainer.kubeflow.org_clustertrainingruntimes.yaml"),
]


class YamlError(Exception):
    pass


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _is_blank_or_comment(line):
    s = line.strip()
    return s == "" or s.startswith("#")


_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


def _plain(text):
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text == "{}":
        return {}
    if text == "[]":
        return []
    return text


class Parser:
    def __init__(self, lines):
        self.lines = lines
        self.i = 0

    def skip(self):
        while self.i < len(self.lines) and _is_blank_or_comment(self.lines[self.i]):
            self.i += 1

    def node(self, indent):
        self.skip()
        if self.i >= len(self.lines):
            return None
        line = self.lines[self.i]
        ind = _indent(line)
        if ind < indent:
            return None
        body = line[ind:]
        if body == "-" or body.startswith("- "):
            return self.seq(ind)
        return self.map(ind)

    def seq(self, ind):
        out = []
        while True:
            self.skip()
            if self.i >= len(self.lines):
                return out
            line = self.lines[self.i]
            if _indent(line) != ind or not (line[ind:] == "-" or line[ind:].startswith("- ")):
                return out
            rest = line[ind + 2:]
            if rest.strip() == "":
                self.i += 1
                out.append(self.node(ind + 1))
            elif re.match(r"^[^'\"\s][^:]*:( |$)", rest) or re.match(r"^'[^']*':( |$)", rest):
                # "- key: value": the item is a mapping starting on this line.
                self.lines[self.i] = " " * (ind + 2) + rest
                out.append(self.map(ind + 2))
            else:
                out.append(self.scalar(rest, ind))
        return out

    def map(self, ind):
        out = {}
        while True:
            self.skip()
            if self.i >= len(self.lines):
                return out
            line = self.lines[self.i]
            if _indent(line) != ind:
                return out
            body = line[ind:]
            if body == "-" or body.startswith("- "):
                return out
            m = re.match(r"^('(?:[^']|'')*'|\"(?:[^\"\\]|\\.)*\"|[^:]+?):( +|$)(.*)$", body)
            if not m:
                raise YamlError("line %d: expected 'key: value': %r" % (self.i + 1, body))
            key = m.group(1)
            if key.startswith("'"):
                key = key[1:-1].replace("''", "'")
            elif key.startswith('"'):
                key = json.loads(key)
            rest = m.group(3)
            if key in out:
                raise YamlError("line %d: duplicate key %r" % (self.i + 1, key))
            if rest.strip() == "":
                self.i += 1
                self.skip()
                nxt = self.lines[self.i] if self.i < len(self.lines) else ""
                ni = _indent(nxt)
                if self.i < len(self.lines) and (ni > ind or (ni == ind and (nxt[ni:] == "-" or nxt[ni:].startswith("- ")))):
                    out[key] = self.node(ind if ni == ind else ind + 1)
                else:
                    out[key] = None
            else:
                out[key] = self.scalar(rest, ind)

    def scalar(self, rest, ind):
        """rest: text after 'key: ' or '- ' on line self.i; continuation lines are deeper than ind."""
        start = self.i
        self.i += 1
        if rest[0] in "|>":
            m = re.match(r"^([|>])([-+]?)\s*(#.*)?$", rest)
            if not m:
                raise YamlError("line %d: unsupported block scalar header %r" % (start + 1, rest))
            block = []
            bi = None
            while self.i < len(self.lines):
                ln = self.lines[self.i]
                if ln.strip() == "":
                    block.append("")
                    self.i += 1
                    continue
                li = _indent(ln)
                if li <= ind:
                    break
                if bi is None:
                    bi = li
                if li < bi:
                    break
                block.append(ln[bi:])
                self.i += 1
            while block and block[-1] == "":
                block.pop()
                self.i -= 0
            if m.group(1) == ">":
                text = " ".join(block)
            else:
                text = "\n".join(block)
            if m.group(2) != "-" and block:
                text += "\n"
            return text
        # Gather continuation lines (multi-line plain or quoted scalars).
        parts = [rest.strip()]
        if rest[0] in "'\"":
            q = rest[0]
            while not self._closed(" ".join(parts), q):
                if self.i >= len(self.lines):
                    raise YamlError("line %d: unterminated quoted scalar" % (start + 1))
                parts.append(self.lines[self.i].strip())
                self.i += 1
            text = self._fold(parts)
            if q == "'":
                return text[1:-1].replace("''", "'")
            return json.loads(text)
        while self.i < len(self.lines):
            ln = self.lines[self.i]
            if ln.strip() == "":
                # A blank line inside a multi-line plain scalar is a newline.
                j = self.i
                while j < len(self.lines) and self.lines[j].strip() == "":
                    j += 1
                if j < len(self.lines) and _indent(self.lines[j]) > ind and not self.lines[j].strip().startswith("#"):
                    parts.append("")
                    self.i = j
                    continue
                break
            if _indent(ln) <= ind or ln.strip().startswith("#"):
                break
            parts.append(ln.strip())
            self.i += 1
        text = self._fold(parts)
        if len(parts) == 1:
            text = re.sub(r"\s+#.*$", "", text)
            return _plain(text)
        return text

    @staticmethod
    def _fold(parts):
        out = parts[0]
        for p in parts[1:]:
            if p == "":
                out += "\n"
            elif out.endswith("\n"):
                out += p
            else:
                out += " " + p
        return out

    @staticmethod
    def _closed(text, q):
        if len(text) < 2:
            return False
        if q == "'":
            body = text[1:]
            k = 0
            while k < len(body):
                if body[k] == "'":
                    if k + 1 < len(body) and body[k + 1] == "'":
                        k += 2
                        continue
                    return k == len(body) - 1 or body[k + 1:].strip().startswith("#")
                k += 1
            return False
        k = 1
        while k < len(text):
            if text[k] == "\\":
                k += 2
                continue
            if text[k] == '"':
                return True
            k += 1
        return False


def load_all(text):
    docs, cur = [], []
    for line in text.split("\n"):
        if line.rstrip() == "---":
            docs.append(cur)
            cur = []
        else:
            cur.append(line.rstrip("\r"))
    docs.append(cur)
    out = []
    for lines in docs:
        p = Parser(lines)
        v = p.node(0)
        p.skip()
        if p.i < len(p.lines):
            raise YamlError("line %d: unexpected content %r" % (p.i + 1, p.lines[p.i]))
        if v is not None:
            out.append(v)
    return out


def strip_descriptions(schema):
    """Drops `description` keywords (never a property that happens to be called description)."""
    if isinstance(schema, list):
        return [strip_descriptions(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k == "description":
            continue
        if k == "properties" and isinstance(v, dict):
            out[k] = {pk: strip_descriptions(pv) for pk, pv in v.items()}
        elif k in ("default", "enum", "example"):
            out[k] = v
        else:
            out[k] = strip_descriptions(v)
    return out


def extract(crd):
    spec = crd["spec"]
    version = spec["versions"][0]
    return {
        "group": spec["group"],
        "version": version["name"],
        "scope": spec["scope"],
        "names": spec["names"],
        "schema": strip_descriptions(version["schema"]["openAPIV3Schema"]),
        "additionalPrinterColumns": version.get("additionalPrinterColumns", []),
        "subresources": version.get("subresources", {}),
    }


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    src = args[0] if args else os.path.join(ROOT, "manifests", "crds")
    outdir = os.path.join(ROOT, "api", "crds")
    os.makedirs(outdir, exist_ok=True)
    blobs = []
    for name, fname in CRDS:
        with open(os.path.join(src, fname), encoding="utf-8") as f:
            text = f.read()
        docs = load_all(text)
        crd = [d for d in docs if isinstance(d, dict) and d.get("kind") == "CustomResourceDefinition"][0]
        if check:
            import yaml  # only for the self-check
            ref = [d for d in yaml.safe_load_all(text) if d][0]
            if ref != crd:
                print("MISMATCH with PyYAML in", fname)
                return 1
            print("ok", fname)
            continue
        data = json.dumps(extract(crd), separators=(",", ":"), ensure_ascii=False)
        with open(os.path.join(outdir, name + ".json"), "w", encoding="utf-8") as f:
            f.write(data + "\n")
        blobs.append((name, data))
        # The whole CRD as installed, which the embedded API server seeds (so applying the same
        # manifest later is a no-op, not a conflict).
        whole = dict(crd)
        whole["metadata"] = {k: v for k, v in crd.get("metadata", {}).items() if k != "creationTimestamp"}
        whole.pop("status", None)
        blobs.append(("whole_" + name, json.dumps(whole, separators=(",", ":"), ensure_ascii=False)))
    if check:
        return 0
    cpp = [
        "// GENERATED by scripts/extract_crd_schemas.py from api/crds/*.json. Do not edit.",
        '#include "core/api/crd_schemas.hpp"',
        "",
        "namespace trainer::core {",
        "",
        "namespace {",
    ]
    for name, data in blobs:
        # Split into chunks: some compilers limit a single string literal's length.
        chunks = [data[i:i + 60000] for i in range(0, len(data), 60000)]
        cpp.append("const char* const k_%s[] = {" % name)
        for c in chunks:
            if ")CRD\"" in c:
                raise SystemExit("raw string delimiter found in schema")
            cpp.append('R"CRD(' + c + ')CRD",')
        cpp.append("};")
    cpp.append("}  // namespace")
    cpp.append("")
    cpp.append("std::string embeddedCrd(std::string_view plural) {")
    cpp.append("    auto join = [](auto const& parts) { std::string s; for (const char* p : parts) s += p; return s; };")
    for name, _ in blobs:
        if not name.startswith("whole_"):
            cpp.append('    if (plural == "%s") return join(k_%s);' % (name, name))
    cpp.append("    return {};")
    cpp.append("}")
    cpp.append("")
    cpp.append("std::string embeddedCrdObject(std::string_view plural) {")
    cpp.append("    auto join = [](auto const& parts) { std::string s; for (const char* p : parts) s += p; return s; };")
    for name, _ in blobs:
        if name.startswith("whole_"):
            cpp.append('    if (plural == "%s") return join(k_%s);' % (name[len("whole_"):], name))
    cpp.append("    return {};")
    cpp.append("}")
    cpp.append("")
    cpp.append("}  // namespace trainer::core")
    with open(os.path.join(ROOT, "api", "crd_schemas.cpp"), "w", encoding="utf-8") as f:
        f.write("\n".join(cpp) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Generate kipviz/kafka/config/kafka_config_keys.json: every config key Kafka defines, by role
and version.

Reads Kafka's own ``ConfigDef`` definitions in a git mirror of apache/kafka (one release branch
per version, e.g. ``3.9``, ``4.1``, and ``trunk``), without building Kafka:

* a key is the first argument of a ``.define(`` / ``.defineInternal(`` call, a string literal or
  a constant; constants are resolved from every ``NAME = "..."`` / ``NAME = PREFIX + "..."``
  definition in the branch's main sources (same file first), and ``serverSynonym(TopicConfig.X)``
  through ``ServerTopicConfigSynonyms`` (``log.`` / ``log.cleaner.`` + the topic key);
* consumer: ``ConsumerConfig``; producer: ``ProducerConfig``; broker: every main-source file that
  defines broker settings (``KafkaConfig`` up to 3.x, the ``*Configs``/``*Config`` classes of
  ``server``, ``server-common``, ``storage``, ``raft``, ``group-coordinator``, ...), leaving out
  topic-, group- and client-metrics-level ``ConfigDef`` s (``LogConfig`` topic keys,
  ``GroupConfig``, ``ClientMetricsConfigs``, ``QuotaConfig`` entity keys) and the clients' own
  classes.

Usage: ``python tools/kafka_config_keys.py [--repo DIR] [--out FILE] [VERSION ...]``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from collections import defaultdict
from functools import cache
from pathlib import Path

REPO = Path("/work/.mirror/confluentinc+kafka/repo")
OUT = Path(__file__).resolve().parents[1] / "kipviz" / "kafka" / "config" / "kafka_config_keys.json"
VERSIONS = ["0.10.1", "0.10.2", "0.11.0", "1.0", "1.1", "2.0", "2.1", "2.2", "2.3", "2.4", "2.5",
            "2.6", "2.7", "2.8", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8",
            "3.9", "4.0", "4.1", "4.2", "4.3", "4.4", "trunk"]
BRANCH = {"trunk": "master"}

_CONST = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*String\s*)?=\s*"
                    r"([^;=\n][^;\n]*?)\s*;?\s*$")
_DEFINE = re.compile(r"\.define(?:Internal)?\(\s*(?:new\s+ConfigKey\(\s*)?"
                     r"(\"[^\"]+\"|[A-Za-z_][A-Za-z0-9_.]*)")
_KEY = re.compile(r"[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*")
_SKIP_BROKER = re.compile(r"(^|/)(clients|connect|streams|tools|trogdor|shell|examples|generator|"
                          r"jmh-benchmarks|test-common)/|/GroupConfig\.java|ClientMetricsConfigs|"
                          r"TopicBasedRemoteLogMetadataManagerConfig|/test/")


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True,
                          text=True, errors="replace").stdout


class Resolver:
    """String constants of one branch, by name (and by file), evaluated on demand."""

    def __init__(self, branch: str) -> None:
        self.by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.memo: dict[tuple[str, str], str | None] = {}
        text = _git("grep", "-E", r"[A-Za-z_][A-Za-z0-9_]*\s*(:\s*String\s*)?=\s*[^=]", branch,
                    "--", "*/src/main/*.java", "*/src/main/*.scala")
        for line in text.splitlines():
            _, path, code = line.split(":", 2)
            match = _CONST.search(code)
            if match and ("\"" in match[2] or "+" in match[2] or "Synonym" in match[2]
                          or re.fullmatch(r"[A-Za-z_.]+", match[2])):
                self.by_name[match[1]].append((path, match[2]))
        self.synonyms: dict[str, str] = {}  # TopicConfig constant -> broker key
        paths = [f for f in _git("ls-tree", "-r", "--name-only", branch).splitlines()
                 if f.endswith("/ServerTopicConfigSynonyms.java") and "/src/main/" in f]
        for path in paths:
            text = _git("show", f"{branch}:{path}")
            for kind, const, rest in re.findall(
                    r"(\w+)\(\s*TopicConfig\.(\w+)\s*(?:,\s*(?:new ConfigSynonym\(\s*)?"
                    r"\"([^\"]+)\")?", text):
                self.synonyms[const] = f"{kind}|{rest}"

    def value(self, expr: str, path: str, depth: int = 0) -> str | None:
        expr = expr.strip().rstrip(";").strip()
        if depth > 8:
            return None
        if (expr, path) not in self.memo:
            self.memo[(expr, path)] = None  # a cycle resolves to nothing
            self.memo[(expr, path)] = self._value(expr, path, depth)
        return self.memo[(expr, path)]

    def _value(self, expr: str, path: str, depth: int) -> str | None:
        if expr.startswith("\"") and expr.endswith("\"") and expr.count("\"") == 2:
            return expr[1:-1]
        synonym = re.fullmatch(r"(?:ServerTopicConfigSynonyms\.)?serverSynonym\((.+)\)", expr)
        if synonym:
            return self._server_synonym(synonym[1], path, depth)
        parts = [p for p in re.split(r"\s*\+\s*", expr) if p]
        if len(parts) > 1:
            values = [self.value(p, path, depth + 1) for p in parts]
            return None if None in values else "".join(v or "" for v in values)
        name = expr.split(".")[-1]
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return None
        candidates = sorted(self.by_name.get(name, []), key=lambda c: c[0] != path)
        for where, definition in candidates[:20]:
            if definition.strip() != expr:
                value = self.value(definition, where, depth + 1)
                if value is not None:
                    return value
        return None

    def _server_synonym(self, topic_expr: str, path: str, depth: int) -> str | None:
        topic = self.value(topic_expr, path, depth + 1)
        if topic is None:
            return None
        kind, _, other = self.synonyms.get(topic_expr.split(".")[-1], "sameName|").partition("|")
        name = other if other and not kind.startswith("sameName") else topic
        if "LogCleanerPrefix" in kind:
            return "log.cleaner." + name
        if "LogPrefix" in kind:
            return "log." + name
        return name  # sameName(...), single(..., "name") or not listed


@cache
def _resolver(branch: str) -> Resolver:
    return Resolver(branch)


def keys(branch: str, role: str) -> set[str]:
    """The keys ``role`` (broker, consumer, producer) defines on ``branch``."""
    resolver = _resolver(branch)
    if role == "broker":
        files = [f for f in _git("grep", "-l", "-E", r"\.define(Internal)?\(", branch, "--",
                                 "*/src/main/*.java", "*/src/main/*.scala").splitlines()
                 if not _SKIP_BROKER.search(f)]
    else:
        name = {"consumer": "ConsumerConfig.java", "producer": "ProducerConfig.java"}[role]
        files = [f for f in _git("ls-tree", "-r", "--name-only", branch).splitlines()
                 if f.endswith(f"clients/{role}/{name}") and "/src/main/" in f]
        files = [f"{branch}:{f}" for f in files]
    found: set[str] = set()
    for spec in files:
        path = spec.split(":", 1)[1]
        source = _git("show", spec)
        topic_level = path.rsplit("/", 1)[-1] in ("LogConfig.java", "LogConfig.scala")
        for match in _DEFINE.finditer(source):
            arg = match[1]
            if topic_level and not arg.startswith("ServerLogConfigs."):
                continue  # a topic-level key (LogConfig's own ConfigDef), not a broker setting
            value = resolver.value(arg, path)
            # a_b_c keys are client-quota entity configs (QuotaConfig), not broker settings
            if value and _KEY.fullmatch(value) and not re.fullmatch(r"[a-z]+(_[a-z]+)+", value):
                found.add(value)
    return found


def main() -> None:
    global REPO
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(str(REPO)))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("versions", nargs="*", default=VERSIONS)
    args = parser.parse_args()
    REPO = args.repo
    roles: dict[str, dict[str, list[str]]] = {"broker": {}, "consumer": {}, "producer": {}}
    for version in args.versions:
        branch = BRANCH.get(version, version)
        for role, table in roles.items():
            for key in sorted(keys(branch, role)):
                table.setdefault(key, []).append(version)
        print(version, {role: sum(version in v for v in t.values()) for role, t in roles.items()})
    data = {"source": "apache/kafka ConfigDef definitions, by tools/kafka_config_keys.py",
            "versions": args.versions,
            **{role: {key: _ranges(found, args.versions) for key, found in sorted(t.items())}
               for role, t in roles.items()}}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=0, sort_keys=False) + "\n", encoding="utf-8")


def _ranges(found: list[str], versions: list[str]) -> str:
    """``"0.10.1-2.8,3.1-trunk"``: the versions (consecutive runs) that define a key."""
    index = sorted(versions.index(v) for v in found)
    runs: list[list[int]] = []
    for i in index:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(versions[a] if a == b else f"{versions[a]}-{versions[b]}" for a, b in runs)


if __name__ == "__main__":
    main()

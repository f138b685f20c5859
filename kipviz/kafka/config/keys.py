"""Every config key Kafka defines, per role (broker, consumer, producer) and Kafka version.

The lists are generated from Kafka's own ``ConfigDef`` definitions (``ConsumerConfig``,
``ProducerConfig``; ``KafkaConfig`` and, from 3.x, ``ServerConfigs``, ``ReplicationConfigs``,
``SocketServerConfigs``, ``ServerLogConfigs``, ``ShareCoordinatorConfig``, ...) on each release
branch of apache/kafka by ``tools/kafka_config_keys.py`` and shipped as
``kipviz/kafka/config/kafka_config_keys.json``.

What Kafka does with a key it does not define: a broker ignores it without a word (``KafkaConfig``
passes the whole ``Properties`` to ``AbstractConfig``, which keeps only defined keys); a client
logs it once at INFO, "These configurations '[...]' were supplied but are not used yet."
(``AbstractConfig.logUnused``). Either way the Kafka default applies. :func:`unknown_key_message`
says so, with the closest known key as a hint.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from importlib import resources

__all__ = ["KafkaConfigWarning", "is_known", "kafka_keys", "kafka_versions",
           "key_versions", "unknown_key_message"]

# Prefixes every role accepts for families of keys (security settings, per-listener overrides).
COMMON_PREFIXES = ("ssl.", "sasl.", "listener.name.")
# Keys read outside ConfigDef: AbstractConfig's config.providers (all roles) and the
# authorizers' own settings (StandardAuthorizer / AclAuthorizer) on a broker.
_EXTRA = {"broker": ("config.providers", "super.users", "allow.everyone.if.no.acl.found"),
          "consumer": ("config.providers",), "producer": ("config.providers",)}


class KafkaConfigWarning(UserWarning):
    """A key in a Kafka config that Kafka does not define (it is ignored; the default applies)."""


@cache
def _data() -> dict[str, object]:
    keys = resources.files("kipviz.kafka.config").joinpath("kafka_config_keys.json")
    text = keys.read_text("utf-8")
    data: dict[str, object] = json.loads(text)
    return data


@cache
def kafka_versions() -> tuple[str, ...]:
    """The Kafka versions the key lists cover, oldest first (``"trunk"``: apache/kafka trunk)."""
    versions = _data()["versions"]
    assert isinstance(versions, list)
    return tuple(versions)


def __getattr__(name: str) -> object:
    """``KAFKA_VERSIONS``: :func:`kafka_versions`, read on first use."""
    if name == "KAFKA_VERSIONS":  # read on first use: importing kipviz reads no data file
        return kafka_versions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _table(role: str) -> dict[str, str]:
    if role not in _EXTRA:
        raise ValueError(f"role must be broker, consumer or producer: {role!r}")
    table = _data()[role]
    assert isinstance(table, dict)
    return table


def key_versions(role: str, key: str) -> tuple[str, ...]:
    """The Kafka versions whose ``role`` defines ``key`` (empty if none does)."""
    ranges = _table(role).get(key)
    if ranges is None:
        return kafka_versions() if key in _EXTRA[role] else ()
    found: list[str] = []
    for run in ranges.split(","):
        first, _, last = run.partition("-")
        start = kafka_versions().index(first)
        found.extend(kafka_versions()[start:kafka_versions().index(last or first) + 1])
    return tuple(found)


@cache
def kafka_keys(role: str, version: str | None = None) -> frozenset[str]:
    """The keys ``role`` defines in Kafka ``version`` ("MAJOR.MINOR" or "trunk"); None: in any
    version from 0.10.1 on (so an older file's keys, e.g. ``zookeeper.connect``, are known)."""
    if version is not None and version not in kafka_versions():
        raise ValueError(f"kafka_version must be one of {', '.join(kafka_versions())}: "
                         f"{version!r}")
    keys = {key for key in _table(role)
            if version is None or version in key_versions(role, key)}
    return frozenset(keys | set(_EXTRA[role]))


def is_known(role: str, key: str, version: str | None = None) -> bool:
    """Whether Kafka's ``role`` reads ``key`` (in ``version``), prefixed families included."""
    return key.startswith(COMMON_PREFIXES) or key in kafka_keys(role, version)


def unknown_key_message(role: str, key: str, version: str | None = None,
                        also: frozenset[str] = frozenset()) -> str:
    """Why ``key`` does nothing in a ``role`` config, what Kafka does with it, and the closest
    known key (from Kafka's list for ``version`` and ``also``, kipviz's own keys)."""
    known = sorted(kafka_keys(role, version) | also)
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    where = f"Kafka {version}" if version else "any Kafka version from 0.10.1"
    elsewhere = key_versions(role, key)
    was = f"; it is one in Kafka {elsewhere[0]} to {elsewhere[-1]}" if elsewhere else ""
    if role == "broker":
        does = "a broker ignores it without a word"
    else:
        does = (f"the {role} logs it at INFO as \"supplied but are not used yet\" and "
                f"otherwise ignores it")
    return (f"unknown {role} config {key!r}{hint}: not a {role} setting in {where}{was}; "
            f"{does}, so the Kafka default is used")

"""Which Kafka release does what: the behaviours kipviz models, by version and area.

Every rule that changed between releases is looked up here, in one table with the Kafka change
that introduced each (``behaviours.toml`` beside this module: data, read once at import).
Versions are release names as Kafka writes them ("0.10.1", "2.8", "4.0"); each was read on its
release branch of apache/kafka.

>>> has("3.9", "buffered_nodes"), has("4.0", "buffered_nodes")
(False, True)
>>> fetch_request_version("0.10.0"), fetch_request_version("0.10.1"), fetch_request_version("4.3")
(2, 3, 18)
>>> request_ordering("3.6").name, request_ordering("3.7").name, request_ordering("4.2").name
('ROUND_ROBIN', 'HASH', 'ROUND_ROBIN')
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from kipviz.kafka.config.checks import check_choice
from kipviz.kafka.config.fields import choice
from kipviz.kafka.fetch.request import Ordering

__all__ = [
    "BEHAVIOURS",
    "KAFKA_VERSIONS",
    "KAFKA_VERSION_RULE",
    "NEWEST_KAFKA_VERSION",
    "Behaviour",
    "check_kafka_version",
    "fetch_request_version",
    "has",
    "kafka_version_field",
    "request_ordering",
    "version_key",
]

# Releases the model knows, oldest first, with the newest FetchRequest version each one's consumer
# sends (FetchRequest.json "validVersions", or Protocol.java before 2.2).
_FETCH_VERSIONS = {
    "0.10.0": 2, "0.10.1": 3, "0.10.2": 3, "0.11.0": 5, "1.0": 6, "1.1": 7, "2.0": 8,
    "2.1": 10, "2.2": 10, "2.3": 11, "2.4": 11, "2.5": 11, "2.6": 11, "2.7": 12, "2.8": 12,
    "3.0": 12, "3.1": 13, "3.2": 13, "3.3": 13, "3.4": 13, "3.5": 15, "3.6": 15, "3.7": 16,
    "3.8": 16, "3.9": 17, "4.0": 17, "4.1": 18, "4.2": 18, "4.3": 18,
}
KAFKA_VERSIONS: tuple[str, ...] = tuple(_FETCH_VERSIONS)
# the newest release whose code the model was read against (the default everywhere)
NEWEST_KAFKA_VERSION = KAFKA_VERSIONS[-1]
KAFKA_VERSION_RULE = f"one of {', '.join(KAFKA_VERSIONS)} (\"MAJOR.MINOR\", a release name)"


@dataclass(frozen=True)
class Behaviour:
    """A rule that holds from ``since`` on (until ``until``, exclusive, when it was undone)."""

    name: str
    since: str
    change: str  # the KIP, JIRA or pull request that introduced it
    summary: str
    until: str | None = None
    # "consumer": the client's fetch path; "tiered": the broker's remote one; "share": share
    # groups (KIP-932, client, broker and group coordinator); "broker": the request memory pool
    area: str = "consumer"


BEHAVIOURS: tuple[Behaviour, ...] = tuple(
    Behaviour(**row) for row in tomllib.loads(
        resources.files(__package__).joinpath("behaviours.toml").read_text("utf-8"))["behaviour"])
"""Every behaviour, read from ``behaviours.toml`` beside this module (the one table)."""
_BY_NAME = {b.name: b for b in BEHAVIOURS}


def version_key(kafka_version: str) -> tuple[int, ...]:
    """``"0.10.1"`` -> ``(0, 10, 1)``: release names ordered as releases."""
    return tuple(int(part) for part in check_kafka_version(kafka_version).split("."))


def check_kafka_version(kafka_version: object) -> str:
    """``kafka_version`` itself when it names a release the model knows; ValueError otherwise."""
    return str(check_choice("kafka_version", kafka_version, KAFKA_VERSIONS, KAFKA_VERSION_RULE))


def kafka_version_field(default: str = NEWEST_KAFKA_VERSION) -> Any:
    """A dataclass field holding a release name, checked by :func:`check_kafka_version`'s rule
    (:func:`kipviz.kafka.config.fields.check_declared`)."""
    return choice(default, KAFKA_VERSIONS, rule=KAFKA_VERSION_RULE)


def has(kafka_version: str, behaviour: str) -> bool:
    """Whether the release follows ``behaviour`` (a name in :data:`BEHAVIOURS`)."""
    rule = _BY_NAME[behaviour]
    key = version_key(kafka_version)
    return key >= version_key(rule.since) and (rule.until is None
                                               or key < version_key(rule.until))


def fetch_request_version(kafka_version: str) -> int:
    """The newest FetchRequest version the release's consumer sends (<= 2 is pre-KIP-74)."""
    return _FETCH_VERSIONS[check_kafka_version(kafka_version)]


def request_ordering(kafka_version: str) -> Ordering:
    """The order in which the release's consumer lists partitions in a fetch request.

    0.10.0 writes a request grouped by topic in ``HashMap``s (``FetchRequest``'s
    ``CollectionUtils.groupDataByTopic``: a static hash order, see
    :func:`kipviz.kafka.fetch.request.group_data_by_topic_order`); 0.10.1 to 3.6 and 4.2 on walk
    ``PartitionStates`` in assignment order with KIP-74's move-to-end; 3.7 to 4.1 build the
    request from a ``HashSet`` (KAFKA-14274, undone by KAFKA-19820). With incremental fetch
    sessions (1.1 on) this order decides only full fetches and re-added partitions
    (:mod:`kipviz.kafka.fetch.session`).
    """
    if has(kafka_version, "round_robin_order") or has(kafka_version, "round_robin_order_again"):
        return Ordering.ROUND_ROBIN
    return Ordering.HASH
